package sanitize

import "testing"

func BenchmarkTmp(b *testing.B) {
	t := redactKeyValues(benchSecret)
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			_ = scan(benchSecret)
		}
	})
	b.Run("kv", func(b *testing.B) {
		for b.Loop() {
			sink = redactKeyValues(benchSecret)
		}
	})
	b.Run("kv2", func(b *testing.B) {
		for b.Loop() {
			sink = redactKeyValues(t)
		}
	})
	b.Run("rescan", func(b *testing.B) {
		f := scan(benchSecret)
		for b.Loop() {
			_ = rescan(benchSecret, f, t)
		}
	})
}
