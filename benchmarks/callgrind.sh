#!/usr/bin/env bash
# Instructions per operation of one benchmark, which a loaded machine cannot
# bend: callgrind counts the instructions of N and of 4N iterations, with no
# garbage collection and one P, and the difference over 3N leaves out
# everything that runs once (start-up, the benchmark's setup).
#
#   ./callgrind.sh 'Success/faultline_stack' [N] [package dir]
#
# prints "<benchmark> <instructions per op>". N defaults to 2000.
set -euo pipefail
bench=${1:?usage: callgrind.sh BENCHMARK_REGEXP [N] [PACKAGE_DIR]}
n=${2:-2000}
dir=${3:-.}
bin=$(mktemp /tmp/callgrind-bench.XXXXXX)
trap 'rm -f "$bin"' EXIT
(cd "$dir" && go test -c -o "$bin" .)
# valgrind 3.19 does not know rdtscp, which the runtime may execute
# (runtime.cputicks, from sysmon's lock when it meets contention): the run
# then dies of SIGILL with a partial count. A count is taken only from a
# run that finished its benchmark: one that printed PASS, or its result
# line before sysmon died on the way out (what is left uncounted then is
# the exit, a few thousand instructions against the 3N iterations).
count() {
	local out
	for _ in 1 2 3 4 5 6 7 8; do
		out=$(GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
			--callgrind-out-file=/dev/null "$bin" -test.run='^$' -test.bench="$bench" \
			-test.benchtime="$1x" 2>&1) || true
		if grep -q '^PASS$' <<<"$out" || grep -q '^Benchmark.* ns/op' <<<"$out"; then
			sed -n 's/.*Collected : *\([0-9]*\).*/\1/p' <<<"$out"
			return
		fi
	done
	echo "callgrind.sh: no run of $bench finished" >&2
	exit 1
}
one=$(count "$n")
four=$(count $((4 * n)))
echo "$bench $(((four - one) / (3 * n)))"
