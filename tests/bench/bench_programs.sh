#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: the benchmark programs run on this guest (bench/run.sh with
# short counts, QD 1 and 32): every group and path of the benchmark yields a
# point with the measured count, IOPS, CPU per command (guest busy time from
# the nohz accounting) and latency figures (none for block queries and NOPs),
# and every comparison (uc_bench pair) its pairs, a median ratio inside its
# interval and a verdict; bench/profile.sh gives every profiled path its
# symbols' shares; bench/report.py turns both into a report with the three
# answers, the comparisons and where the block node's time goes, and its
# plots; bench/icount.sh (briefly, not under icount) gives every
# instruction-counting path its repetitions, and report.py writes their
# section into a RESULTS.md from them alone, keeping the wall-clock
# sections. No timing is asserted. uc_bench names a bad device and refuses a
# char device for the block queries with one line.
#
#   bench_programs.sh NVME_DEV [NVME_CHAR NVME_CTRL]
# Environment: TEST_BENCH_DIR (build/bench), TEST_BENCH_RUN (bench/run.sh),
# TEST_FIO. On another kernel than 6.1 (make check KVER=6.12), a SKIP.
set -eu

me=bench_programs
fail() { echo "$me: FAIL: $*"; exit 1; }
skip() { echo "$me: SKIP: $*"; exit 77; }

dev=${1:-/dev/nvme0n1}
chr=${2:-/dev/ng0n1}
bindir=${TEST_BENCH_DIR:-}
runner=${TEST_BENCH_RUN:-}
[ -x "$bindir/uc_bench" ] || skip "no $bindir/uc_bench: make bench-progs"
# make bench is 6.1's (the Makefile refuses KVER=6.12): its programs are
# tested where they run, and make check KVER=6.12's time goes to the port
case $(uname -r) in
6.1.*) ;;
*) skip "make bench runs on Linux 6.1 only, and this kernel is $(uname -r): its programs are tested on 6.1" ;;
esac
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
        ("fio", "fio-io_uring_cmd-ng"), ("fio", "fio-io_uring-bdev"),
        ("identify", "fio-uringcmd")}
got = {(r["group"], r["path"]) for r in doc["results"]}
missing = want - got
if missing:
    print(f"{sys.argv[0]}: missing points {sorted(missing)}")
    sys.exit(1)
def point_ok(r, n=None):
    lat = r["lat_ns"]
    # block queries and NOPs have no latency (uc_bench times them by the
    # slice only), every other path its latency slices' figures
    if r["group"] == "query" or r["group"].startswith("query-") or r["path"] == "nop":
        lat_ok = r.get("lat_n") == 0 and lat["p50"] is None and r["cdf"] == []
    else:
        lat_ok = (0 < lat["min"] <= lat["p50"] <= lat["p99"] <= lat["p999"] <= lat["max"]
                  and len(r["cdf"]) > 10)
    # a point measures BENCH_N commands, a comparison's side its slices;
    # fio's points (group fio, and its Identify) have fio's own CPU figure
    return ((r["n"] == n if n else r["n"] > 0) and r["iops"] > 0 and lat_ok
            and (r["path"].startswith("fio") or (r.get("cpu_ns_per_cmd", 0) >= 0
                                                 and r.get("busy_src") == "nohz")))
for r in doc["results"]:
    if not point_ok(r, 200):
        print(f"bad point {r['group']} {r['path']} qd {r['qd']}: {r['n']} {r['iops']} {r['lat_ns']}")
        sys.exit(1)
want_cmp = {"bdev-char-read-qd1", "bdev-char-read-qd16", "bdev-char-read-fast-qd16",
            "bdev-char-identify-qd1", "bdev-char-identify-qd16", "bdev-char-features-qd1",
            "uring-ioctl-identify-qd1", "uring-ioctl-identify-qd16", "query-ioctl-b8",
            "query-ioctl-b64", "query-ioctl-fast-b64", "query-nop-b64",
            "admin-floor-identify-qd1", "fio-engines-qd1",
            "fio-engines-qd32"}
got_cmp = {p["group"] for p in doc["pairs"]}
if want_cmp - got_cmp:
    print(f"{sys.argv[0]}: missing comparisons {sorted(want_cmp - got_cmp)}")
    sys.exit(1)
same = ("qd", "iopoll", "fixed_file", "fast_ring", "fixed_buf")
for p in doc["pairs"]:
    if p["group"].startswith("fio-"):
        # fio's engines paired by bench/run.sh itself: 2 pairs of fio runs
        # here, each side's IOPS and CPU per I/O, no interval of its own
        if not (len(p["pairs"]) == 2 and all(len(r) == 4 and min(r) > 0 for r in p["pairs"])
                and p["a"]["path"] == "fio-io_uring_cmd-ng"
                and p["b"]["path"] == "fio-uringcmd-bdev"
                # fio resets its counts when the ramp ends, with QD reads in
                # flight: each of the 2 runs a side may count up to QD I/Os
                # fewer or more than asked
                and all(abs(p[s]["n"] - 2 * p["slice"]) <= 2 * p[s]["qd"] for s in ("a", "b"))):
            print(f"bad fio comparison {p['group']}: {p['pairs']} {p['a']['n']} {p['b']['n']}")
            sys.exit(1)
        continue
    keys = (same if p["group"].startswith(("bdev-char-", "admin-floor-"))
            else ("qd",) if p["group"].startswith("query-nop-") else ())
    diff = [k for k in keys if p["a"][k] != p["b"][k]]
    if diff:
        print(f"comparison {p['group']}: its sides differ in {diff}")
        sys.exit(1)
    r = p["ratio"]
    if not (point_ok(p["a"]) and point_ok(p["b"]) and len(p["pairs"]) == p["pairs_n"] >= 6
            and 0 < r["lo"] <= r["median"] <= r["hi"]
            and p["verdict"] in ("within", "faster", "slower", "unresolved",
                                 "faster, by at most 2 %", "slower, by at most 2 %")
            and p["a"]["n"] == p["b"]["n"] == p["slice"] * p["pairs_n"]):
        print(f"bad comparison {p['group']}: {r} {p['verdict']} {len(p['pairs'])} pairs")
        sys.exit(1)
PY

# The profile and the report from these results, short: they run, and the
# report says what it is for.
command -v perf >/dev/null || fail "no perf: make deps installs linux-perf"
mkdir "$work/res"
BENCH_N=200 BENCH_DEV=$dev "$(dirname "$runner")/profile.sh" "$bindir" "$work/res" \
	>"$work/prof.out" 2>&1 || fail "bench/profile.sh: $(tail -n 1 "$work/prof.out")"
python3 - "$work/res" <<'PY' || fail "bench/profile.sh output incomplete"
import json, os, sys
d = sys.argv[1]
for side in ("features-uring-char-qd1", "features-uring-bdev-qd1", "read-pt-ng-qd16",
             "read-pt-bdev-qd16", "identify-uring-bdev-qd16", "query-uring-batch64"):
    c = json.load(open(os.path.join(d, f"cost-{side}.json")))
    if not (c["n"] > 0 and c["cpu_ns_per_cmd"] > 0 and c["samples"] > 0
            and 99 < sum(c["share_pct"].values()) < 101):
        print(f"cost-{side}.json: {c['n']} commands, {c['samples']} samples, "
              f"shares summing to {sum(c['share_pct'].values())}")
        sys.exit(1)
    if not os.path.getsize(os.path.join(d, f"profile-{side}.txt")):
        print(f"profile-{side}.txt is empty")
        sys.exit(1)
PY
cp "$work/boot.json" "$work/res/boot-1.json"
"$(dirname "$runner")/report.py" "$work/res" --out "$work/RESULTS.md" \
	--plots "$work/plots" --command test >"$work/report.out" 2>&1 ||
	fail "bench/report.py: $(tail -n 1 "$work/report.out")"
for want in '^1\. \*\*Block node' '^2\. \*\*uring_cmd' '^3\. \*\*Batched' \
	"^## Where the block node's time goes" '^\*\*Get Features, QD 1\*\*: ' \
	'fio ioengine=uringcmd cmd=identify-ctrl'; do
	grep -q -- "$want" "$work/RESULTS.md" || fail "the report has no line matching /$want/"
done
ls "$work"/plots/*.svg >/dev/null 2>&1 || fail "the report made no plots"

# The instruction-counting paths (bench/icount.sh, uc_icount and its 32-bit
# build), briefly and without icount: the programs and the report path.
# The process CPU time of a short run may read 0 (no tick landed in it).
mkdir "$work/ic"
BENCH_QUICK=1 BENCH_DEV=$dev "$(dirname "$runner")/icount.sh" "$bindir" \
	"$work/ic/icount-1.json" 1 >"$work/ic.out" 2>&1 ||
	fail "bench/icount.sh: $(tail -n 1 "$work/ic.out")"
python3 - "$work/ic/icount-1.json" <<'PY' || fail "bench/icount.sh output incomplete"
import json, sys
doc = json.load(open(sys.argv[1]))
got = {(r["group"], r["path"]): r for r in doc["results"]}
want = {("floor", "nop-b64"), ("query", "ioctl"), ("query", "ioctl-m32"),
        ("query", "uring-b64"), ("query", "uring-b64-fixed"), ("query", "uring-b64-m32"),
        ("query", "uring-qd1"), ("query", "uring-qd1-defer"), ("features", "uring-char"),
        ("features", "uring-bdev"), ("identify", "ioctl-bdev"),
        ("discard", "uring-qd16-64MiB"), ("discard", "blkdiscard-4KiB"),
        ("discard", "punch-1MiB"), ("dispatch", "features-EINVAL-char"),
        ("dispatch", "features-EINVAL-bdev"), ("dispatch", "identify-EFAULT-char"),
        ("dispatch", "identify-EFAULT-bdev")}
if want - set(got):
    print(f"missing paths {sorted(want - set(got))}")
    sys.exit(1)
for k, r in got.items():
    if not (r["n"] > 0 and len(r["reps"]) == 2 and all(
            x["elapsed"] > 0 and x["cpu"] >= 0 and x["timer_irqs"] >= 0 for x in r["reps"])):
        print(f"bad path {k}: {r['n']} {r['reps']}")
        sys.exit(1)
if got[("query", "ioctl-m32")]["abi"] != 32 or got[("query", "ioctl")]["abi"] != 64:
    print("the 32-bit path is not a 32-bit program")
    sys.exit(1)
PY
cp "$work/RESULTS.md" "$work/ic/RESULTS.md"
"$(dirname "$runner")/report.py" "$work/ic" --out "$work/ic/RESULTS.md" >"$work/ic-report.out" 2>&1 ||
	fail "bench/report.py (icount only): $(tail -n 1 "$work/ic-report.out")"
for want in '^## Instructions per command \(QEMU icount\)$' '^1\. \*\*Block node' \
	'^## Comparisons$' '^\| Batched BLKBSZGET through BLOCK_URING_CMD_IOCTL over a NOP.*\*\*(met|not met|unresolved)\*\* \|$' \
	'^\| query \| ioctl\(BLKBSZGET\), 32-bit program \| elapsed \|'; do
	grep -Eq -- "$want" "$work/ic/RESULTS.md" || fail "the icount report has no line matching /$want/"
done

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
expect_error "usage:" -r 6 pair nop
expect_error "apply to io_uring paths only" -r 6 pair nop vs -F query ioctl "$dev"
