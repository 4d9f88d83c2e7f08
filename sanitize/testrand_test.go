package sanitize

// xorshiftPicker returns a function that picks a number below n from a
// fixed xorshift sequence, so that the generated texts of a test are the
// same on every run and a failure can be replayed.
func xorshiftPicker(seed uint64) func(n int) int {
	x := seed
	return func(n int) int {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(n))
	}
}
