#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the time goes, inside the guest: perf samples (cpu-clock, the
# benchmark process in user space and in the kernel) of the paths whose
# ratios RESULTS.md compares, and the top of each profile as text.
#
#   profile.sh BENCHDIR OUTDIR
#
# OUTDIR/profile-NAME.txt: `perf report --sort sym` of the run, kernel and
# user space, symbols above 1%. Needs perf (linux-perf).
set -eu

[ $# -eq 2 ] || { echo "usage: $0 BENCHDIR OUTDIR" >&2; exit 2; }
bin=$1/uc_bench
out=$2
dev=${BENCH_DEV:-/dev/nvme0n1}
base=${dev##*/}
ctrl=/dev/${base%n*}
n=${BENCH_N:-20000}

command -v perf >/dev/null || { echo "profile.sh: no perf (apt-get install linux-perf)" >&2; exit 1; }
work=$(mktemp -d /tmp/uringcmd-profile.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
echo 0 >/proc/sys/kernel/kptr_restrict 2>/dev/null || true
echo -1 >/proc/sys/kernel/perf_event_paranoid 2>/dev/null || true

# prof NAME UC_BENCH-ARGS...
prof() {
	local name=$1
	shift
	perf record -q -e cpu-clock -F 4000 -o "$work/$name.data" -- \
		"$bin" -n "$n" "$@" >"$work/$name.json" 2>"$work/$name.err" ||
		{ echo "profile.sh: $name: $(tail -n 1 "$work/$name.err")" >&2; exit 1; }
	{
		echo "# uc_bench -n $n $*"
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("# IOPS %.0f, p50 %.1f us" % (d["iops"], d["lat_ns"]["p50"] / 1000))' "$work/$name.json"
		perf report -i "$work/$name.data" --stdio --sort sym --percent-limit 1 \
			2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 40
	} >"$out/profile-$name.txt"
}

prof identify-ioctl-bdev-qd16 -q 16 admin ioctl "$dev" identify
prof identify-uring-char-qd16 -q 16 admin uring "$ctrl" identify
prof identify-uring-bdev-qd16 -q 16 admin uring "$dev" identify
# queries take a microsecond: many more of them for enough samples
n=$((n * 50))
prof query-ioctl query ioctl "$dev"
prof query-uring-batch8 -q 8 query uring "$dev"
prof query-uring-batch64 -q 64 query uring "$dev"
