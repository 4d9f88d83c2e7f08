package sanitize

import "testing"

// TestNextContextTriggerExact holds the eight-byte skip to the byte loop it
// stands for: every byte value at every position of a word, among
// neighbours of every kind (ASCII, lower-case letters, high bytes), after
// every byte before it, from every start.
func TestNextContextTriggerExact(t *testing.T) {
	byteLoop := func(s string, i, hi int) int {
		for i < hi && !contextTrigger(s, i) {
			i++
		}
		return i
	}
	buf := make([]byte, 24)
	for fill := 0; fill < 256; fill += 5 {
		if contextTriggerByte[fill] {
			continue
		}
		for pos := range 16 {
			for c := range 256 {
				for k := range buf {
					buf[k] = byte(fill)
				}
				buf[pos] = byte(c)
				// A capital counts after a lower-case letter only: the
				// byte before it is every kind of neighbour in turn.
				for _, before := range []int{fill, 'a', 'z', '`', '{', 'A', 0x80 | 'a'} {
					if pos > 0 {
						buf[pos-1] = byte(before)
					}
					s := string(buf)
					for from := range 9 {
						for _, hi := range []int{len(s), 16, 12} {
							if got, want := nextContextTrigger(s, from, hi), byteLoop(s, from, hi); got != want {
								t.Fatalf("nextContextTrigger(%q, %d, %d) = %d, the byte loop finds %d", s, from, hi, got, want)
							}
						}
					}
				}
			}
		}
	}
}
