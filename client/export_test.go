package client

import "net/http"

// Hooks for the package's external tests: a clock-free wait and a fixed
// jitter make retries exact, and the rest reach what the API keeps
// internal.
var (
	WithSleep  = withSleep
	WithJitter = withJitter
)

// ExitCodeOf is the exit code of a decision, as ExitCode gives it for an
// error.
func ExitCodeOf(d Decision) int { return d.exitCode() }

// ReadWith reads res as ReadError does, with rd's limits and headers.
func ReadWith(rd Reader, res *http.Response) error { return rd.readError(res) }
