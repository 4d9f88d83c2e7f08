package sanitize

import "testing"

// TestJointNeighbours puts every trigger anchored at a byte with a joint
// after and before every byte, and every pair of bytes where the trigger's
// own bytes leave the two before its anchor free, and checks that
// punctTriggerAt answers as triggerAt does.
func TestJointNeighbours(t *testing.T) {
	sample := []byte{' ', 'a', 'z', 'A', 'Z', '0', '9', '.', '-', '_', '/', ':', '"', 0, 0xff}
	withSample := func(list []string) []string {
		for _, c := range sample {
			list = append(list, string(c))
		}
		return list
	}
	every := func(list []string, prefix string) []string {
		for c := range 256 {
			list = append(list, prefix+string(byte(c)))
		}
		return list
	}
	for _, a := range triggersByAnchor {
		if a == nil || a.joint == nil {
			continue
		}
		var ts []trigger
		ts = append(ts, a.first...)
		for _, g := range append(a.byPrev, a.byNext...) {
			ts = append(ts, g...)
		}
		for _, tr := range ts {
			lefts := every([]string{""}, "")
			if tr.at < 2 {
				for _, p := range sample {
					lefts = every(lefts, string(p))
				}
			}
			for _, l := range lefts {
				for _, r := range withSample([]string{""}) {
					jointSame(t, l+tr.text+r, len(l)+tr.at)
				}
			}
			for _, l := range withSample([]string{""}) {
				for _, r := range every(nil, "") {
					jointSame(t, l+tr.text+r, len(l)+tr.at)
				}
			}
		}
	}
}

// jointSame fails t when punctTriggerAt(s, i), which asks the joint, and
// triggerAt differ.
func jointSame(t *testing.T, s string, i int) {
	t.Helper()
	if got, want := punctTriggerAt(s, i), triggerAt(s, i); got != want {
		t.Fatalf("triggerAt(%q, %d) = %v with the joints, %v without", s, i, got, want)
	}
}
