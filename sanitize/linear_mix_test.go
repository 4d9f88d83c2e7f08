package sanitize

import "testing"

// mixtureWorkPerByte bounds the work per byte of a mixture: a mixture of
// options whose values chain ("sshpass -p " among " 00\f0\n00") takes
// settle's eight passes on the text and eight more on its decoded
// escapes, 143 units a byte, where one unit repeated settles in two or
// three. Linear work stays under it at any length; the read to the end
// found in mixtures spent 635 units a byte and more.
const mixtureWorkPerByte = 4 * maxWorkPerByte

// Rules meet in mixtures as they never do in one unit repeated: the
// password-flag rule read to the end of the text for a real line break at
// every escaped one before a "-p", which no single unit showed until it
// held both ("mysql -p\n": 635 to 686 work units a byte in mixtures).
// Texts of hostile units drawn at random, to each tier's limit, are held
// to mixtureWorkPerByte.
func TestLinearWorkOnMixtures(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		pick := xorshiftPicker(seed * 0x9e3779b97f4a7c15)
		// A few units per text, so that each recurs often enough to
		// meet the others many times.
		units := make([]string, 2+pick(6))
		for i := range units {
			units[i] = hostileUnits[pick(len(hostileUnits))]
		}
		for _, tier := range linearTiers {
			s := randomWords(tier.limit, units, seed)
			if w := measuredWork(tier.f, s); w > mixtureWorkPerByte*len(s) {
				t.Errorf("%s(mixture of %q): work %d, %.0f per byte", tier.name, units, w, float64(w)/float64(len(s)))
			}
		}
	}
}

// FuzzLinearMixture draws two fuzzed units at random to each tier's limit
// and bounds the work per byte, as FuzzLinear does for one unit repeated.
func FuzzLinearMixture(f *testing.F) {
	f.Add("mysql -pa ", `\n`, uint64(1))
	f.Add("password=", `\u0070`, uint64(2))
	f.Add("Basic ", "a:b@", uint64(3))
	f.Fuzz(func(t *testing.T, a, b string, seed uint64) {
		if a == "" || b == "" || len(a) > 64 || len(b) > 64 {
			return
		}
		for _, tier := range linearTiers {
			s := randomWords(tier.limit, []string{a, b}, seed|1)
			if w := measuredWork(tier.f, s); w > mixtureWorkPerByte*len(s) {
				t.Fatalf("%s(mixture of %q and %q, seed %d): work %d, %.0f per byte", tier.name, a, b, seed, w, float64(w)/float64(len(s)))
			}
		}
	})
}
