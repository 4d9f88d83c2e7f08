package sanitize

// The tiers promise linear time. The loops that could read the same bytes
// again for every trigger (a token's body, a value, a line) report what
// they read to spend (the prefilter's single pass is not counted), and the tests run hostile repetitions with metering
// on and bound the work per byte of input (TestLinearWork, FuzzLinear):
// a counted budget, not a timing, so the check holds on any machine.
var (
	metering bool
	work     int
)

func spend(n int) {
	if metering {
		work += n
	}
}
