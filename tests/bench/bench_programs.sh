#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: the benchmark programs run on this guest (bench/run.sh with
# short counts, QD 1 and 32): every group and path of the benchmark yields a
# point with the measured count, IOPS and latency figures; no timing is
# asserted. uc_bench names a bad device and refuses a char device for the
# block queries with one line.
#
#   bench_programs.sh NVME_DEV [NVME_CHAR NVME_CTRL]
# Environment: TEST_BENCH_DIR (build/bench), TEST_BENCH_RUN (bench/run.sh),
# TEST_FIO.
set -eu

me=bench_programs
fail() { echo "$me: FAIL: $*"; exit 1; }
skip() { echo "$me: SKIP: $*"; exit 77; }

dev=${1:-/dev/nvme0n1}
chr=${2:-/dev/ng0n1}
bindir=${TEST_BENCH_DIR:-}
runner=${TEST_BENCH_RUN:-}
[ -x "$bindir/uc_bench" ] || skip "no $bindir/uc_bench: make bench-progs"
[ -b "$dev" ] || skip "$dev is not a block device"

work=$(mktemp -d /tmp/bench-programs.XXXXXX)
trap 'rm -rf "$work"' EXIT

BENCH_QUICK=1 BENCH_N=200 BENCH_DEV=$dev BENCH_FIO=${TEST_FIO:-} \
	"$runner" "$bindir" "$work/boot.json" 1 >"$work/out" 2>&1 ||
	fail "bench/run.sh: $(tail -n 1 "$work/out")"

python3 - "$work/boot.json" <<'PY' || fail "bench/run.sh output incomplete"
import json, sys
doc = json.load(open(sys.argv[1]))
want = {("floor", "nop"), ("identify", "ioctl-bdev"), ("identify", "uring-char"),
        ("identify", "uring-bdev"), ("smart", "uring-bdev"), ("query", "ioctl"),
        ("query", "uring"), ("read4k", "uring-read-bdev"), ("read4k", "pt-ng"),
        ("read4k", "pt-bdev"), ("fio", "fio-uringcmd-bdev"),
        ("fio", "fio-io_uring_cmd-ng"), ("fio", "fio-io_uring-bdev")}
got = {(r["group"], r["path"]) for r in doc["results"]}
missing = want - got
if missing:
    print(f"{sys.argv[0]}: missing points {sorted(missing)}")
    sys.exit(1)
for r in doc["results"]:
    lat = r["lat_ns"]
    if not (r["n"] > 0 and r["iops"] > 0 and 0 < lat["min"] <= lat["p50"] <= lat["p99"]
            <= lat["p999"] <= lat["max"] and len(r["cdf"]) > 10):
        print(f"bad point {r['group']} {r['path']} qd {r['qd']}: {r['n']} {r['iops']} {lat}")
        sys.exit(1)
PY

# expect_error PATTERN UC_BENCH-ARGS...: exit status 1 and PATTERN said
expect_error() {
	local pattern=$1 rc=0
	shift
	"$bindir/uc_bench" -n 10 "$@" >"$work/err" 2>&1 || rc=$?
	[ "$rc" = 1 ] || fail "uc_bench $*: exit status $rc, expected 1"
	grep -q -- "$pattern" "$work/err" ||
		fail "uc_bench $*: says '$(head -n 1 "$work/err")', expected /$pattern/"
}
expect_error "/dev/nonexistent: No such file or directory" admin uring /dev/nonexistent identify
if [ -c "$chr" ]; then
	expect_error "$chr: not a block device" query uring "$chr"
fi
expect_error "usage:" admin uring "$dev" format
