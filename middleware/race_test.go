//go:build race

package middleware

// raceEnabled: the race detector makes sync.Pool drop items at random, so
// allocation counts of code that pools are meaningless under it.
const raceEnabled = true
