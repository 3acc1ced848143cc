#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/report.py's own tests, on the host (no guest): made-up results
# (tests/host/bench_fake_results.py) are refused without --allow-synthetic
# and reported with it into a directory of the test's, never into the
# committed RESULTS.md or bench/plots (checksums before and after); the
# verdicts on crafted intervals (a resolved difference inside the band
# before "within"; within; unresolved); the bootstrap gives the same report
# twice; and the committed runs give the committed RESULTS.md byte for byte.
# Prints "PASS bench_report[host]" or "FAIL bench_report[host]: reason".
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
name='bench_report[host]'
report=$top/bench/report.py
work=$(mktemp -d /tmp/uringcmd-bench-report.XXXXXX)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL $name: $*"; exit 1; }

command -v gnuplot >/dev/null || fail "no gnuplot (make deps installs gnuplot-nox)"
# what must not change: the committed report and plots, and the committed
# runs (report.py writes summary.json into the directory it reads)
committed() {
	(cd "$top" && find RESULTS.md bench/plots bench/results -type f -print0 |
		sort -z | xargs -0 sha256sum)
}
committed >"$work/before"

# 1. synthetic results: refused, then reported elsewhere with the flag
"$top/tests/host/bench_fake_results.py" "$work/fake" ||
	fail "bench_fake_results.py failed"
grep -q '"synthetic": true' "$work/fake/env.json" || fail "the fixture's env.json is not marked synthetic"
rc=0
"$report" "$work/fake" --out "$work/fake.md" --plots "$work/fake-plots" \
	>"$work/out" 2>&1 || rc=$?
if [ "$rc" != 1 ] || ! grep -q synthetic "$work/out"; then
	fail "synthetic results without --allow-synthetic: exit $rc, said: $(head -n 1 "$work/out")"
fi
[ ! -e "$work/fake.md" ] || fail "a refused report was written anyway"
for args in "" "--out $work/fake.md" "--plots $work/fake-plots"; do
	rc=0
	# shellcheck disable=SC2086 # the options, split on purpose
	"$report" "$work/fake" --allow-synthetic $args >"$work/out" 2>&1 || rc=$?
	[ "$rc" = 1 ] || fail "synthetic results into the committed report or plots (args: ${args:-none}): exit $rc"
done
"$report" "$work/fake" --allow-synthetic --out "$work/fake.md" \
	--plots "$work/fake-plots" >"$work/out" 2>&1 ||
	fail "synthetic results with --allow-synthetic: $(tail -n 1 "$work/out")"
grep -q '^\*\*Synthetic data\*\*' "$work/fake.md" || fail "the synthetic report does not say so"
for want in '^1\. \*\*Block node' 'slower, by at most 2 %' '\*\*unresolved\*\*' \
	"^## Where the block node's time goes" '^!\[.*\](fake-plots/floor-ladder.svg)'; do
	grep -q -- "$want" "$work/fake.md" || fail "the synthetic report has no line matching /$want/"
done
[ "$(find "$work/fake-plots" -name '*.svg' | wc -l)" -ge 6 ] || fail "the synthetic report drew too few plots"
# the fixture marks its boot files too: without env.json still refused
rm "$work/fake/env.json"
rc=0
"$report" "$work/fake" --out "$work/fake2.md" --plots "$work/fake-plots" >/dev/null 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "synthetic boot files without env.json: exit $rc, not refused"

# 2. verdicts on crafted intervals
PYTHONDONTWRITEBYTECODE=1 python3 - "$top/bench" >"$work/out" 2>&1 <<'PY' ||
import sys
sys.path.insert(0, sys.argv[1])
import report
cases = [((1.003, 1.015), "faster, by at most 2 %"), ((0.981, 0.999), "slower, by at most 2 %"),
         ((1.01, 1.09), "faster"), ((0.90, 0.97), "slower"), ((0.99, 1.01), "within"),
         ((0.98, 1.02), "within"), ((0.97, 1.01), "unresolved"), ((0.995, 1.03), "unresolved")]
for (lo, hi), want in cases:
    got = report.verdict_of({"lo": lo, "hi": hi, "median": (lo + hi) / 2})
    if got != want:
        print(f"verdict_of [{lo}, {hi}]: {got!r}, wanted {want!r}")
        sys.exit(1)
if report.cpu_verdict_of({"lo": 1.009, "hi": 1.019, "median": 1.013}) != "costlier, by at most 2 %":
    print("cpu_verdict_of [1.009, 1.019] is not costlier, by at most 2 %")
    sys.exit(1)
# the bootstrap: seeded (the same twice), and its interval follows the boots
rows = {"r": [[1.0 + 0.001 * i for i in range(32)], [1.2 + 0.001 * i for i in range(32)],
              [1.1 + 0.001 * i for i in range(32)]]}
a, b = report.bootstrap(rows, 7), report.bootstrap(rows, 7)
if a != b:
    print(f"bootstrap not deterministic: {a} then {b}")
    sys.exit(1)
if not (a["r"]["lo"] < 1.05 and a["r"]["hi"] > 1.15):
    print(f"bootstrap interval {a['r']} ignores the spread between boots")
    sys.exit(1)
PY
	fail "$(tail -n 1 "$work/out")"

# 3. the committed runs give the committed RESULTS.md, byte for byte, and
# the same twice: the wall-clock run, then the icount run's section
wall=$(sed -n 's/^\[boot-1\.json\](bench\/results\/\([^/]*\)\/boot-1\.json).*/\1/p' "$top/RESULTS.md")
icount=$(find "$top/bench/results" -mindepth 1 -maxdepth 1 -name '*-icount' -printf '%f\n' |
	sort | tail -n 1)
if [ -z "$wall" ] || [ ! -d "$top/bench/results/$wall" ]; then
	fail "RESULTS.md names no wall-clock run under bench/results"
fi
for k in 1 2; do
	t=$work/regen-$k
	mkdir -p "$t/bench/results"
	cp -r "$top/bench/results/$wall" "$t/bench/results/"
	"$report" "$t/bench/results/$wall" --out "$t/RESULTS.md" --plots "$t/bench/plots" \
		>"$work/out" 2>&1 || fail "report.py on bench/results/$wall: $(tail -n 1 "$work/out")"
	if [ -n "$icount" ]; then
		cp -r "$top/bench/results/$icount" "$t/bench/results/"
		"$report" "$t/bench/results/$icount" --out "$t/RESULTS.md" >"$work/out" 2>&1 ||
			fail "report.py on bench/results/$icount: $(tail -n 1 "$work/out")"
	fi
done
if ! cmp -s "$work/regen-1/RESULTS.md" "$work/regen-2/RESULTS.md" ||
	! cmp -s "$work/regen-1/bench/results/$wall/summary.json" \
		"$work/regen-2/bench/results/$wall/summary.json"; then
	fail "two reports of the same run differ (the bootstrap is not deterministic)"
fi
cmp -s "$work/regen-1/RESULTS.md" "$top/RESULTS.md" ||
	fail "bench/results/$wall${icount:+ and $icount} do not give the committed RESULTS.md: $(diff "$top/RESULTS.md" "$work/regen-1/RESULTS.md" | sed -n 2p | cut -c1-120)"

committed >"$work/after"
cmp -s "$work/before" "$work/after" ||
	fail "the committed RESULTS.md, plots or runs changed: $(diff "$work/before" "$work/after" | sed -n 2p)"
echo "PASS $name"
