#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One benchmark boot, inside the guest: every command path measured side by
# side, written as one JSON document (bench/report.py's input).
#
#   run.sh BENCHDIR OUT.json [BOOT]
#
# BENCHDIR holds uc_bench (build/bench). The guest must have, as
# bench/bench.sh boots it: /dev/nvme0n1 file-backed, /dev/nvme0n2 null-co
# (the controller's own service time), nvme.poll_queues=1 for IOPOLL.
# Environment: BENCH_N (measured commands per point, 10000), BENCH_PAIRS
# (pairs of slices per comparison, 32), BENCH_SLICE (commands per slice of
# the slow paths, 2000; QD 16 paths take twice, block queries 25 times as
# many), BENCH_FIO (fio with the uringcmd engine: build/fio/src/fio),
# BENCH_ACCEL (tcg|kvm, recorded), BENCH_QUICK=1 (QD 1 and the largest
# only, 6 pairs of 200-command slices: for the tests).
#
# The comparisons come first: each is one uc_bench pair run, the two paths
# alternated in slices (A B, B A, ...) so that both see the same moment of
# the host; the points after them give each path's latency alone.
set -eu

[ $# -ge 2 ] || { echo "usage: $0 BENCHDIR OUT.json [BOOT]" >&2; exit 2; }
bin=$1/uc_bench
out=$2
boot=${3:-1}
here=$(cd "$(dirname "$0")" && pwd)
fio=${BENCH_FIO:-$here/../build/fio/src/fio}
n=${BENCH_N:-10000}
dev=${BENCH_DEV:-/dev/nvme0n1}
base=${dev##*/}
chr=/dev/ng${base#nvme}
ctrl=/dev/${base%n*}
nulldev=${BENCH_NULL_DEV:-/dev/nvme0n2}

die() { echo "bench/run.sh: $*" >&2; exit 1; }

[ -x "$bin" ] || die "$bin missing: make bench-progs"
[ -b "$dev" ] || die "$dev is not a block device"
[ -c "$chr" ] || die "$chr (the namespace's char device) missing"
[ -c "$ctrl" ] || die "$ctrl (the controller) missing"
[ -x "$fio" ] || die "$fio missing: make fio"

work=$(mktemp -d /tmp/uringcmd-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
lines=$work/results.jsonl
pairlines=$work/pairs.jsonl
: >"$lines"
: >"$pairlines"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	qds="1 32"
	batches="1 64"
	pairs=6 slice=200
else
	qds="1 4 16 32"
	batches="1 8 32 64"
	pairs=${BENCH_PAIRS:-32} slice=${BENCH_SLICE:-2000}
fi
poll=$(cat /sys/module/nvme/parameters/poll_queues 2>/dev/null || echo 0)

# m GROUP PATH LABEL UC_BENCH-ARGS...: one measurement point
m() {
	local g=$1 p=$2 l=$3
	shift 3
	"$bin" -g "$g" -p "$p" -l "$l" -n "$n" "$@" >>"$lines" ||
		die "uc_bench $* failed (group $g, path $p)"
}

# compare ID SLICE A-SPEC vs B-SPEC: one comparison, B against A. Each
# SPEC carries all its options: what stands after "pair" is side A's only.
compare() {
	local id=$1 sl=$2
	shift 2
	"$bin" -g "$id" -n "$sl" -r "$pairs" pair "$@" >>"$pairlines" ||
		die "uc_bench pair $* failed ($id)"
}
s2=$((slice * 2))
sq=$((slice * 25))
pt_ng="NVMe Read passthrough on $chr (upstream)"
pt_bd="NVMe Read passthrough on $dev (this series)"
id_ch="uring_cmd Identify on $ctrl (upstream)"
id_bd="uring_cmd Identify on $dev (this series)"
fast="registered file and buffers, SINGLE_ISSUER|COOP_TASKRUN"

# 1. The block node against the char device: the same command, the same
# 6.1 function at the end, two more calls on the way in.
for qd in 1 16; do
	[ "$qd" = 1 ] && sl=$slice || sl=$s2
	compare "bdev-char-read-qd$qd" "$sl" \
		-q "$qd" -p pt-ng -l "$pt_ng" read pt "$chr" vs \
		-q "$qd" -p pt-bdev -l "$pt_bd" read pt "$dev"
	compare "bdev-char-read-fast-qd$qd" "$sl" \
		-F -C -B -q "$qd" -p pt-ng -l "$pt_ng, $fast" read pt "$chr" vs \
		-F -C -B -q "$qd" -p pt-bdev -l "$pt_bd, $fast" read pt "$dev"
	compare "bdev-char-identify-qd$qd" "$sl" \
		-q "$qd" -p uring-char -l "$id_ch" admin uring "$ctrl" identify vs \
		-q "$qd" -p uring-bdev -l "$id_bd" admin uring "$dev" identify
done
if [ "$poll" != 0 ]; then
	compare bdev-char-read-poll-qd1 "$slice" \
		-P -p pt-ng -l "$pt_ng, IOPOLL" read pt "$chr" vs \
		-P -p pt-bdev -l "$pt_bd, IOPOLL" read pt "$dev"
fi
# the admin floor on both nodes: Get Features moves no data
compare bdev-char-features-qd1 "$slice" \
	-p uring-char -l "uring_cmd Get Features on $ctrl (upstream)" admin uring "$ctrl" features vs \
	-p uring-bdev -l "uring_cmd Get Features on $dev (this series)" admin uring "$dev" features

# 2. uring_cmd against the synchronous ioctl (QD threads, as nvme-cli
# would run them), both on the block node
for qd in 1 16; do
	[ "$qd" = 1 ] && sl=$slice || sl=$s2
	compare "uring-ioctl-identify-qd$qd" "$sl" \
		-q "$qd" -p ioctl-bdev -l "sync NVME_IOCTL_ADMIN_CMD Identify on $dev, $qd thread(s)" \
		admin ioctl "$dev" identify vs \
		-q "$qd" -p uring-bdev -l "$id_bd" admin uring "$dev" identify
done

# 3. Batched block queries against ioctl(), and against batched NOPs (what
# the query costs over io_uring's own per-request work)
for b in 8 64; do
	compare "query-ioctl-b$b" "$sq" \
		-p ioctl -l "ioctl(BLKBSZGET), one call per query" query ioctl "$dev" vs \
		-q "$b" -p uring -l "BLOCK_URING_CMD_IOCTL, batches of $b" query uring "$dev"
	compare "query-ioctl-fast-b$b" "$sq" \
		-p ioctl -l "ioctl(BLKBSZGET), one call per query" query ioctl "$dev" vs \
		-q "$b" -F -C -p uring-fast -l "BLOCK_URING_CMD_IOCTL, batches of $b, registered file, SINGLE_ISSUER|COOP_TASKRUN" \
		query uring "$dev"
	compare "query-nop-b$b" "$sq" \
		-q "$b" -p nop -l "io_uring NOP, batches of $b" nop vs \
		-q "$b" -p uring -l "BLOCK_URING_CMD_IOCTL, batches of $b" query uring "$dev"
done
# the admin floor under Identify, on the char device
compare admin-floor-identify-qd1 "$slice" \
	-p features-char -l "uring_cmd Get Features on $ctrl (admin floor)" admin uring "$ctrl" features vs \
	-p uring-char -l "$id_ch" admin uring "$ctrl" identify

# The floor: io_uring itself, then the emulated device with nothing behind.
m floor nop "io_uring NOP" nop
if [ -b "$nulldev" ]; then
	for qd in 1 32; do
		m floor nullco-read "4 KiB O_DIRECT read, null-co namespace" -q "$qd" read uring "$nulldev"
	done
	# the floor of the polled reads is a polled read
	if [ "$poll" != 0 ]; then
		m floor nullco-read "4 KiB O_DIRECT read, null-co namespace" -P read uring "$nulldev"
	fi
fi

# Admin commands at each QD: the three paths one after the other, in the
# opposite order on even boots, so that a drift within a boot does not
# always favour the same path.
admin_point() {
	case $1 in
	ioctl-bdev) m "$2" ioctl-bdev "sync NVME_IOCTL_ADMIN_CMD on $dev ($3 threads)" \
			-q "$3" admin ioctl "$dev" "$2" ;;
	uring-char) m "$2" uring-char "uring_cmd on $ctrl (upstream)" -q "$3" admin uring "$ctrl" "$2" ;;
	uring-bdev) m "$2" uring-bdev "uring_cmd on $dev (this project)" -q "$3" admin uring "$dev" "$2" ;;
	esac
}
order="ioctl-bdev uring-char uring-bdev"
[ $((boot % 2)) = 1 ] || order="uring-bdev uring-char ioctl-bdev"
for what in identify smart; do
	for qd in $qds; do
		for p in $order; do
			admin_point "$p" "$what" "$qd"
		done
	done
done

m query ioctl "ioctl(BLKBSZGET) per call" query ioctl "$dev"
for b in $batches; do
	m query uring "BLOCK_URING_CMD_IOCTL, batches of $b" -q "$b" query uring "$dev"
done

# read_point PATH QD [-P]: one 4 KiB random-read point
read_point() {
	local path=$1 qd=$2
	shift 2
	case $path in
	uring-read-bdev) m read4k uring-read-bdev "io_uring read O_DIRECT on $dev" -q "$qd" "$@" read uring "$dev" ;;
	pt-ng) m read4k pt-ng "passthrough on $chr" -q "$qd" "$@" read pt "$chr" ;;
	pt-bdev) m read4k pt-bdev "passthrough on $dev (this project)" -q "$qd" "$@" read pt "$dev" ;;
	esac
}
read_order="uring-read-bdev pt-ng pt-bdev"
[ $((boot % 2)) = 1 ] || read_order="pt-bdev pt-ng uring-read-bdev"
for qd in 1 32; do
	for p in "" -P; do
		if [ -n "$p" ] && [ "$poll" = 0 ]; then
			continue
		fi
		for path in $read_order; do
			read_point "$path" "$qd" $p
		done
	done
done

# The same work through fio's engines: total latency (submission to
# completion), as uc_bench measures it. fio_point GROUP PATH LABEL QD FILE
# FIO-ARGS...: 4 KiB random reads unless FIO-ARGS say otherwise.
fio_point() {
	local group=$1 path=$2 label=$3 qd=$4 file=$5
	shift 5
	"$fio" --output-format=json --output="$work/fio.json" --name="$path" \
		--filename="$file" --rw=randread --bs=4k --size=256M --iodepth="$qd" \
		--number_ios="$n" --lat_percentiles=1 \
		--clat_percentiles=0 --randrepeat=0 --norandommap \
		--percentile_list=1:5:10:20:30:40:50:60:70:80:90:95:99:99.5:99.9:99.99 \
		"$@" >"$work/fio.out" 2>&1 ||
		die "fio $path qd $qd failed: $(grep -m 1 'fio:' "$work/fio.out" "$work/fio.json")"
	python3 - "$work/fio.json" "$group" "$path" "$label" "$qd" "$file" >>"$lines" <<-'EOF'
	import json, sys
	f, group, path, label, qd, dev = sys.argv[1:]
	text = open(f).read()
	job = json.loads(text[text.index("{"):])["jobs"][0]
	r = job["read"]
	lat = r["lat_ns"]
	# fio's percentiles are histogram bucket values: keep them in [min, max]
	pct = {float(k): min(max(v, lat["min"]), lat["max"]) for k, v in lat["percentile"].items()}
	cdf = [[lat["min"], 0.0]] + [[v, k / 100] for k, v in sorted(pct.items())] + [[lat["max"], 1.0]]
	# fio's own CPU time (usr + sys of the job) per I/O, as uc_bench's getrusage
	cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] * 1e6
	print(json.dumps({"group": group, "path": path, "label": label, "dev": dev,
	                  "qd": int(qd), "iopoll": False, "n": r["total_ios"], "iops": r["iops"],
	                  "cpu_ns_per_cmd": cpu / max(r["total_ios"], 1),
	                  "lat_ns": {"mean": lat["mean"], "min": lat["min"], "p50": pct[50.0],
	                             "p99": pct[99.0], "p999": pct[99.9], "max": lat["max"]},
	                  "cdf": cdf}))
	EOF
}

for qd in 1 32; do
	fio_point fio fio-uringcmd-bdev "fio ioengine=uringcmd on $dev" "$qd" "$dev" \
		--ioengine=uringcmd
	fio_point fio fio-io_uring_cmd-ng "fio ioengine=io_uring_cmd on $chr" "$qd" "$chr" \
		--ioengine=io_uring_cmd --cmd_type=nvme
	fio_point fio fio-io_uring-bdev "fio ioengine=io_uring, O_DIRECT, on $dev" "$qd" "$dev" \
		--ioengine=io_uring --direct=1
done
# The two fio engines on the same namespace, paired as uc_bench pairs its
# paths: fio runs of SLICE reads alternated (A B, B A, ...), each side's
# IOPS and fio's own CPU time per I/O (usr + sys of the job); null-co, so
# that the host's file backend does not set the pace. B: ioengine=uringcmd
# on the block node; A: fio's io_uring_cmd on the char device (issue 28:
# the CPU per I/O the two engines spend, QD 1 and 32). Each run ramps for 200 ms
# first (fio then resets its statistics, CPU time included): fio opens the
# files inside the job, and uringcmd's open (Identify Namespace, and the
# library's probe on a ring of its own) cost some 8 ms of CPU under TCG,
# 20 us an I/O in a run of 400; the steady state is the question.
fio_pair() { # ID QD
	local id=$1 qd=$2 i k side
	local nchr=/dev/ng${nulldev##*/nvme}
	local sl=$(( slice * 2 )) np=$pairs
	# each fio run starts a process and a ring: fewer pairs for the tests
	[ "${BENCH_QUICK:-0}" != 1 ] || np=2
	[ -b "$nulldev" ] && [ -c "$nchr" ] || return 0
	: >"$work/fio-pair.jsonl"
	for i in $(seq 1 "$np"); do
		for k in 1 2; do
			# A B in odd pairs, B A in even ones
			if [ $(( (i + k) % 2 )) = 0 ]; then side=a; else side=b; fi
			if [ "$side" = a ]; then
				set -- --filename="$nchr" --ioengine=io_uring_cmd --cmd_type=nvme
			else
				set -- --filename="$nulldev" --ioengine=uringcmd
			fi
			"$fio" --output-format=json --output="$work/fio.json" --name="$id" \
				--rw=randread --bs=4k --size=256M --iodepth="$qd" \
				--number_ios="$sl" --ramp_time=200ms --randrepeat=0 --norandommap "$@" \
				>"$work/fio.out" 2>&1 ||
				die "fio $id $side failed: $(grep -m 1 'fio:' "$work/fio.out" "$work/fio.json")"
			python3 - "$work/fio.json" "$side" "$i" >>"$work/fio-pair.jsonl" <<-'EOF2'
			import json, sys
			text = open(sys.argv[1]).read()
			job = json.loads(text[text.index("{"):])["jobs"][0]
			r = job["read"]
			cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] * 1e6
			print(json.dumps({"side": sys.argv[2], "pair": int(sys.argv[3]), "n": r["total_ios"],
			                  "iops": r["iops"], "cpu": cpu / max(r["total_ios"], 1),
			                  "lat": r["lat_ns"]}))
			EOF2
		done
	done
	python3 - "$work/fio-pair.jsonl" "$id" "$qd" "$sl" "$nulldev" "$nchr" >>"$pairlines" <<-'EOF2'
	import json, statistics, sys
	f, cid, qd, sl, bdev, chr_ = sys.argv[1:]
	rows = [json.loads(l) for l in open(f) if l.strip()]
	by = {}
	for r in rows:
	    by.setdefault(r["pair"], {})[r["side"]] = r
	def side(s, path, label, dev):
	    rs = [by[p][s] for p in sorted(by)]
	    n = sum(r["n"] for r in rs)
	    lat = {k: statistics.median(r["lat"][k] for r in rs) for k in ("mean", "min", "max")}
	    return {"group": "fio", "path": path, "label": label, "dev": dev, "qd": int(qd),
	            "iopoll": False, "n": n, "iops": statistics.median(r["iops"] for r in rs),
	            "cpu_ns_per_cmd": statistics.median(r["cpu"] for r in rs),
	            "lat_ns": {"mean": lat["mean"], "min": lat["min"], "p50": None, "p99": None,
	                       "p999": None, "max": lat["max"]}, "cdf": []}
	print(json.dumps({"group": cid, "slice": int(sl),
	                  "a": side("a", "fio-io_uring_cmd-ng", f"fio ioengine=io_uring_cmd on {chr_}", chr_),
	                  "b": side("b", "fio-uringcmd-bdev", f"fio ioengine=uringcmd on {bdev}", bdev),
	                  "pairs": [[by[p]["a"]["iops"], by[p]["b"]["iops"], by[p]["a"]["cpu"],
	                             by[p]["b"]["cpu"]] for p in sorted(by)]}))
	EOF2
}
fio_pair fio-engines-qd1 1
fio_pair fio-engines-qd32 32

# Identify through fio's uringcmd engine, beside uc_bench's uring-bdev
# Identify points: the same work (why fio's figures differ: bench/notes.md)
for qd in 1 16; do
	fio_point identify fio-uringcmd "fio ioengine=uringcmd cmd=identify-ctrl on $dev" \
		"$qd" "$dev" --ioengine=uringcmd --cmd=identify-ctrl --rw=read
done

python3 - "$lines" "$pairlines" "$out" "$boot" "${BENCH_ACCEL:-tcg}" <<'EOF'
import json, os, sys
lines, pairlines, out, boot, accel = sys.argv[1:]
results = [json.loads(l) for l in open(lines) if l.strip()]
pairs = [json.loads(l) for l in open(pairlines) if l.strip()]
mem = 0
for l in open("/proc/meminfo"):
    if l.startswith("MemTotal:"):
        mem = int(l.split()[1]) // 1024
doc = {"boot": int(boot), "kernel": os.uname().release, "accel": accel,
       "guest_cpus": os.cpu_count(), "guest_mem_mb": mem, "results": results,
       "pairs": pairs}
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
EOF
