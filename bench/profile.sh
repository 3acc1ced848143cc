#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the time goes, inside the guest: perf samples (cpu-clock, the
# benchmark process in user space and in the kernel) of the paths whose
# ratios RESULTS.md compares, and the top of each profile as text.
#
#   profile.sh BENCHDIR OUTDIR
#
# OUTDIR/profile-NAME.txt: `perf report --sort sym -n` of the run, kernel
# and user space, symbols at 1% or more. OUTDIR/cost-NAME.json: every
# symbol's share of the samples, their count and the run's CPU time per
# command (uc_bench's getrusage), from which report.py gives each
# function's samples and share (not a cost in ns: see RESULTS.md). The run
# of an admin or read path includes its latency slice.
# Needs perf (linux-perf).
set -eu

[ $# -eq 2 ] || { echo "usage: $0 BENCHDIR OUTDIR" >&2; exit 2; }
bin=$1/uc_bench
out=$2
dev=${BENCH_DEV:-/dev/nvme0n1}
base=${dev##*/}
ctrl=/dev/${base%n*}
chr=/dev/ng${base#nvme}
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
	# every symbol with its sample count, once; the text keeps those >= 1%
	perf report -i "$work/$name.data" --stdio --sort sym --percent-limit 0 -n \
		2>/dev/null >"$work/$name.all"
	{
		echo "# uc_bench -n $n $*"
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p50 = d["lat_ns"]["p50"]; print("# IOPS %.0f" % d["iops"] + (", p50 %.1f us" % (p50 / 1000) if p50 is not None else ""))' "$work/$name.json"
		awk '!/^#/ && NF && $1 + 0 >= 1' "$work/$name.all" | head -n 40
	} >"$out/profile-$name.txt"
	python3 - "$work/$name.json" "$work/$name.all" "$name" "$*" \
		>"$out/cost-$name.json" <<-'PY'
	import json, re, sys
	res, report, name, args = sys.argv[1:]
	d = json.load(open(res))
	# shares from the sample counts: the percentages perf prints are
	# rounded to 0.01, and over a few hundred symbols their sum strays
	# from 100 by a percent either way
	counts = {}
	for l in open(report):
	    m = re.match(r"\s*([\d.]+)%\s+(\d+)\s+\[[k.]\]\s+(\S+)", l)
	    if m:
	        counts[m.group(3)] = counts.get(m.group(3), 0) + int(m.group(2))
	samples = sum(counts.values())
	shares = {k: 100.0 * v / samples for k, v in counts.items()}
	print(json.dumps({"name": name, "args": args, "n": d["n"],
	                  "iops": d["iops"], "cpu_ns_per_cmd": d["cpu_ns_per_cmd"],
	                  "samples": samples, "share_pct": shares}))
	PY
}

# the block node against the char device, the same command: what the
# block node's functions cost per command
prof features-uring-char-qd1 admin uring "$ctrl" features
prof features-uring-bdev-qd1 admin uring "$dev" features
prof read-pt-ng-qd16 -q 16 read pt "$chr"
prof read-pt-bdev-qd16 -q 16 read pt "$dev"
prof identify-ioctl-bdev-qd16 -q 16 admin ioctl "$dev" identify
prof identify-uring-char-qd16 -q 16 admin uring "$ctrl" identify
prof identify-uring-bdev-qd16 -q 16 admin uring "$dev" identify
# queries take a microsecond: many more of them for enough samples
n=$((n * 50))
prof query-ioctl query ioctl "$dev"
prof query-uring-batch8 -q 8 query uring "$dev"
prof query-uring-batch64 -q 64 query uring "$dev"
