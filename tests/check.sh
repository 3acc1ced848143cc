#!/bin/bash
# make check: the host-side checks, then the guest suite in one QEMU boot.
# Prints a PASS/FAIL/SKIP line per test and closes with the totals line.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel='' timeout=1200 test_timeout=120
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--test-timeout) test_timeout=$2; shift ;;
	*) echo "check.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

results=$top/build/results/check
rm -rf "$results"
mkdir -p "$results"
log=$results/summary.log
: >"$log"

# Host side: checkpatch over both series.
"$top/tests/checkpatch.sh" | tee -a "$log" || true

# Guest side: the suite, in a guest with two namespaces.
status=0
"$top/qemu/run-nvme.sh" -k "$kernel" --timeout "$timeout" -n 2 \
	--results "$results/guest" -- \
	env TEST_TIMEOUT="$test_timeout" TEST_CQE_TIMEOUT_MS=$((test_timeout * 250)) "$top/tests/run.sh" "$top/build/tests" /run/results/tests \
	| sed -u 's/^[0-9]* passed, [0-9]* failed.*/guest: &/' | tee -a "$log" || status=$?
if [ "$status" -ge 124 ]; then
	echo "FAIL guest: run-nvme.sh exited $status (see $results/guest/console.log)" | tee -a "$log"
fi

passed=$(grep -c '^PASS ' "$log" || true)
failed=$(grep -c '^FAIL ' "$log" || true)
skipped=$(grep -c '^SKIP ' "$log" || true)
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
