// Package client is the contract's other half: a Go client that decides
// what to do after a failure from the problem's machine members (code,
// action, retryable, retry_after_ms, outcome), never from its prose, and
// never replays a write that may already have taken effect.
//
// It has four parts, each usable alone:
//
//   - ReadError reads a failed *http.Response into a *ResponseError that
//     errors.As turns into a *problem.Problem: application/problem+json,
//     application/problem+xml, faultline's text/plain proxy plane, and the
//     plain JSON error bodies of other servers ({"error": "..."} and
//     friends), with the Retry-After header
//     (seconds or HTTP-date) and the correlation ID header. The body is read
//     up to a limit and within a timeout; a huge, malformed or stalled body
//     is a clear error, never a hang. Members of the wrong type are
//     ignored one by one (RFC 9457 §3.1), never the whole document.
//   - Policy.Decide is one pure function from a failed attempt to a
//     Decision: retry after a delay, verify, reauthenticate, fix the
//     request, wait for approval, or stop.
//   - Transport is an http.RoundTripper applying those decisions: it adds
//     an Idempotency-Key to writes when asked, replays bodies through
//     GetBody, honours the request's context, keeps every attempt within
//     Policy.MaxElapsed (reading error bodies included), and reports
//     attempts and operations to an Observer and to log/slog.
//   - Line and ExitCode are the command-line surface: a one-line
//     "code: message" and an exit code from a fixed table. The exit code
//     is part of Decide's answer, so the two cannot disagree: a script
//     that reruns on ExitTemporary never reruns a write Decide would not
//     replay.
//
// The rule that matters most: a write (POST, PATCH: a method that is not
// idempotent) whose outcome is unknown or committed is never replayed
// without an Idempotency-Key. A transport error after the request may have
// been written counts as an unknown outcome, a timeout of the transport
// included (net/http reports its own as context.DeadlineExceeded; only
// the request's context ending means the caller stopped waiting), and so
// does the caller's own deadline once the request went out. The verdict
// is then Verify: find out whether the write took effect before doing
// anything else.
//
// # In a command
//
//	hc := &http.Client{Transport: client.NewTransport(nil,
//		client.WithIdempotencyKeys(), // a key per write, kept across its attempts
//		client.WithPolicy(client.Policy{MaxAttempts: 4, MaxElapsed: 20 * time.Second}))}
//	res, err := hc.Post(url, "application/json", body)
//	if err == nil {
//		defer res.Body.Close()
//		err = client.ReadError(res) // nil below 400; errors.As gives the *problem.Problem
//	}
//	if err != nil {
//		fmt.Fprintln(os.Stderr, client.Line(err)) // "code: message"
//		os.Exit(client.ExitCode("POST", err))
//	}
//
// ReadError reads at most [DefaultBodyLimit] bytes within
// [DefaultReadTimeout] (a Transport reads with its [WithReader] settings,
// and ReadError returns what it read); a huge, malformed or stalled body
// is an error wrapping [ErrNoProblemBody] that still carries the status. Numbers are read in every JSON spelling (1000.0, 1e3), and a
// wait too large for a time.Duration saturates, so the client stops rather
// than retries at once. An action the client does not know stops.
//
// # Exit codes
//
// ExitCode is the exit code of a first attempt, under the Idempotency-Key
// the caller set, if any (a key WithIdempotencyKeys drew is not there when
// the command runs again). The rules behind each class are on [ExitOK]'s
// constants.
//
//	code  constant            meaning
//	0     ExitOK              success
//	1     ExitInternal        the server failed on its own, or the error is not one the client can classify
//	2     ExitUsage           the request must change (fix_request)
//	3     ExitAuth            credentials (reauthenticate, cause auth)
//	4     ExitRefused         refused by policy or configuration
//	5     ExitTemporary       temporary: running the command again is safe
//	6     ExitUpstream        a dependency of the server failed: running again is safe
//	7     ExitUnknownOutcome  a write may have taken effect: verify before running again
//
// Only 5 and 6 mean running the command again is safe, and a write that
// Decide would not replay never gets them.
package client
