#!/usr/bin/env bash
# Load test: builds cmd/loadtarget, starts it three times on free loopback
# ports (bare chi, faultline's full stack, and the error route a team writes
# by hand with chi alone), drives /ok and /fail on each with wrk for a
# bounded time, and prints requests/s and p99 side by side.
# Each cell is the best of ROUNDS runs, alternating the targets, so a
# burst of load from elsewhere on the machine hits all alike. Runs in about
# 110 seconds; tune with DURATION, WARMUP, ROUNDS, THREADS and CONNS.
set -euo pipefail
cd "$(dirname "$0")"

DURATION="${DURATION:-7s}"
ROUNDS="${ROUNDS:-2}"
THREADS="${THREADS:-2}"
CONNS="${CONNS:-32}"
WARMUP="${WARMUP:-1s}"

if ! command -v wrk >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "wrk not found: installing it with apt-get" >&2
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
	else
		echo "load.sh needs wrk (https://github.com/wg/wrk); install it, e.g. 'sudo apt-get install -y wrk'" >&2
		exit 1
	fi
fi

tmp="$(mktemp -d)"
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/loadtarget" ./cmd/loadtarget

# start MODE: runs loadtarget on 127.0.0.1:0 and sets addr to its address.
# Not called in a subshell, so the trap knows every pid. The problem log
# goes to /dev/null: written, as in production, but not kept.
start() {
	local out="$tmp/$1.addr"
	"$tmp/loadtarget" -mode "$1" -addr 127.0.0.1:0 >"$out" 2>/dev/null &
	pids+=("$!")
	for _ in $(seq 100); do
		if [ -s "$out" ]; then addr="$(head -n1 "$out")"; return; fi
		sleep 0.05
	done
	echo "loadtarget -mode $1 did not start" >&2
	exit 1
}

# measure URL: prints "<requests/s> <p99 ms>".
measure() {
	wrk -t"$THREADS" -c"$CONNS" -d"$WARMUP" "$1" >/dev/null
	wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency "$1" | awk '
		/^Requests\/sec:/ { rps = $2 }
		$1 == "99%" {
			v = $2
			if (v ~ /us$/) { sub(/us$/, "", v); p99 = v / 1000 }
			else if (v ~ /ms$/) { sub(/ms$/, "", v); p99 = v }
			else if (v ~ /s$/) { sub(/s$/, "", v); p99 = v * 1000 }
		}
		END { printf "%.0f %.2f\n", rps, p99 }'
}

start bare
bare="$addr"
start faultline
faultline="$addr"
start handwritten
handwritten="$addr"

# best NAME URL: keeps in NAME_rps and NAME_p99 the run with the most
# requests/s seen so far.
best() {
	local rps p99 cur
	read -r rps p99 < <(measure "$2")
	cur="${1}_rps"
	if [ -z "${!cur:-}" ] || awk -v a="$rps" -v b="${!cur}" 'BEGIN { exit !(a > b) }'; then
		printf -v "${1}_rps" '%s' "$rps"
		printf -v "${1}_p99" '%s' "$p99"
	fi
}

for _ in $(seq "$ROUNDS"); do
	best bare_ok "http://$bare/ok"
	best fl_ok "http://$faultline/ok"
	best bare_fail "http://$bare/fail"
	best fl_fail "http://$faultline/fail"
	best hand_fail "http://$handwritten/fail"
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo
echo "wrk -t$THREADS -c$CONNS -d$DURATION (after a $WARMUP warm-up), best of $ROUNDS, loopback, $(nproc) CPUs, $(go version | awk '{print $3}')"
echo
printf '| route | bare chi req/s | bare chi p99 | faultline req/s | faultline p99 | faultline / bare |\n'
printf '|---|---:|---:|---:|---:|---:|\n'
printf '| success (/ok) | %s | %s ms | %s | %s ms | %s |\n' \
	"$bare_ok_rps" "$bare_ok_p99" "$fl_ok_rps" "$fl_ok_p99" "$(ratio "$fl_ok_rps" "$bare_ok_rps")"
printf '| error (/fail) | %s | %s ms | %s | %s ms | %s |\n' \
	"$bare_fail_rps" "$bare_fail_p99" "$fl_fail_rps" "$fl_fail_p99" "$(ratio "$fl_fail_rps" "$bare_fail_rps")"
echo
echo "hand-written error route (chi RequestID + Recoverer, one slog JSON record, encoding/json body): $hand_fail_rps req/s, p99 $hand_fail_p99 ms"
echo
echo "faultline error route / hand-written error route: $(ratio "$fl_fail_rps" "$hand_fail_rps") (goal >= 1.00)"
echo "faultline error route / bare chi success route: $(ratio "$fl_fail_rps" "$bare_ok_rps") (goal >= 0.80)"
echo "faultline success route / bare chi success route: $(ratio "$fl_ok_rps" "$bare_ok_rps") (goal >= 0.95)"
