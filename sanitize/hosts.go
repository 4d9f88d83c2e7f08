package sanitize

// Top-level labels that only resolve inside a private network.
var internalSuffixes = []string{"internal", "localdomain", "local", "svc", "consul", "corp", "lan", "intranet"}

// suffixesByFirst groups internalSuffixes by first byte, in either case:
// the prefilter asks at every '.', and most dots end a sentence.
var suffixesByFirst = func() (t [256][]string) {
	for _, suf := range internalSuffixes {
		c := suf[0]
		t[c] = append(t[c], suf)
		t[c-'a'+'A'] = append(t[c-'a'+'A'], suf)
	}
	return t
}()

// internalSuffixAt returns the length of an internal top-level label
// starting at s[i] and ending at a label boundary, or 0.
func internalSuffixAt(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	rest := s[i:]
	for _, suf := range suffixesByFirst[rest[0]] {
		if hasPrefixFold(rest, suf) && (len(rest) == len(suf) || !isHostByte(rest[len(suf)]) || rest[len(suf)] == '.') {
			return len(suf)
		}
	}
	return 0
}

// redactHosts replaces whole host names that carry an internal label
// ("db.internal", "api.prod.svc.cluster.local"), with any trailing labels.
func redactHosts(s string) string {
	e := edit{s: s}
	for i := 0; i < len(s); i++ {
		if s[i] != '.' {
			continue
		}
		n := internalSuffixAt(s, i+1)
		if n == 0 {
			continue
		}
		start := i
		for start > e.last && isHostByte(s[start-1]) {
			start--
		}
		spend(i - start)
		for start < i && (s[start] == '.' || s[start] == '-') {
			start++
		}
		if start == i {
			continue
		}
		end := i + 1 + n
		for end < len(s) && isHostByte(s[end]) {
			end++
		}
		spend(end - i)
		for s[end-1] == '.' || s[end-1] == '-' {
			end--
		}
		e.replace(start, end, Redacted)
		i = end - 1
	}
	return e.result()
}

func isHostByte(c byte) bool { return isWordByte(c) || c == '.' || c == '-' }
