#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: every job in fio-engine/examples/ runs with ioengine=uringcmd
# against the NVMe block node (UC_DEV=..., as a user runs them) and does what
# it says: the expected number of I/Os per job, no error, verify passing,
# latency figures, slat included, in the JSON; the discard example, or the
# one line of a kernel without BLOCK_URING_CMD_DISCARD; the block queries
# again on a non-NVMe block device; nvme-cli's command spellings, block
# queries in any case, io_size= as the bound, force_async; then the ring
# modes (hipri, sqthread_poll, IO_VEC, fixedbufs, registerfiles); fio's
# own uring-cmd-ng.fio and uring-cmd-trim-multi-range.fio (num_range=,
# fio 3.37 on), whose trimmed ranges must then read as deallocated, and
# uring-cmd-fdp.fio (fio 3.34 on) on a namespace with Flexible Data
# Placement, whose writes must land on the placement handles fio chose,
# with this engine and with fio's io_uring_cmd (without one, QEMU 7.2's
# case, the job stops with the engine's line saying so). Each
# example takes filename=${UC_DEV} and, if it writes or discards, says so
# in its first line.
#
#   fio_example_jobs.sh NVME_DEV [NVME_CHAR NVME_CTRL]
# Environment: TEST_FIO (fio with uringcmd built in), TEST_FIO_EXAMPLES,
# TEST_LIB (tests/lib, for fio_check.py), TEST_NULLB_DEV, TEST_STRICT;
# TEST_FDP_DEV (the FDP namespace; default: found), TEST_FDP=1 (fail
# without one), FDP_RUNTIME (seconds of each FDP run, default 20).
# A part whose precondition is missing (null_blk, a poll queue, Debian's
# fio with the engine built for it) is not run: the test then SKIPs naming
# it, and under TEST_STRICT=1 (make check, whose guest has them all) fails.
set -eu

me=fio_example_jobs
fail() { echo "$me: FAIL: $*"; exit 1; }
skip() { echo "$me: SKIP: $*"; exit 77; }
left_out=
leave_out() { echo "# $*: not run"; left_out="$left_out${left_out:+; }$*"; }

dev=${1:-/dev/nvme0n1}
fio=${TEST_FIO:-}
examples=${TEST_FIO_EXAMPLES:-}
check=${TEST_LIB:-}/fio_check.py
[ -x "${fio:-/nonexistent}" ] || skip "no fio with the uringcmd engine (TEST_FIO=$fio): make fio"
[ -d "$examples" ] || fail "no examples folder ($examples)"
[ -b "$dev" ] || skip "$dev is not a block device"

work=$(mktemp -d /tmp/fio-example-jobs.XXXXXX)
trap 'rm -rf "$work"' EXIT

# fio_example from the shared helpers; run_job below is this test's own,
# which takes a job file (or - for none) before fio's arguments
# shellcheck source=../lib/fio_run.sh
. "${TEST_LIB:-}/fio_run.sh"

# run_job NAME JOBFILE|- [FIO ARGS...] -- CHECKS...: fio with JSON output,
# then fio_check.py over it.
run_job() {
	local name=$1 job=$2 args=() rc=0
	shift 2
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	[ "$job" = - ] && job=
	"$fio" --output-format=json --output="$work/$name.json" "${args[@]}" \
		${job:+"$job"} >"$work/$name.out" 2>&1 || rc=$?
	if [ "$rc" != 0 ]; then
		cat "$work/$name.out" "$work/$name.json" 2>/dev/null | tail -n 20
		fail "$name: fio exited $rc: $(grep -m 1 'uringcmd\|error\|fio:' "$work/$name.out" "$work/$name.json" 2>/dev/null)"
	fi
	python3 "$check" "$work/$name.json" "$@" || fail "$name: output check failed"
}

# Every example names its device ${UC_DEV} and nothing else; one that
# writes or discards says DESTROYS in its first line.
for f in "$examples"/*.fio; do
	# shellcheck disable=SC2016 # a literal ${UC_DEV}, as the job files have it
	grep -qxF 'filename=${UC_DEV}' "$f" || fail "${f##*/}: no filename=\${UC_DEV}"
	[ "$(grep -c '^filename=' "$f")" = 1 ] || fail "${f##*/}: a second filename="
	if grep -Eq '^rw=.*(write|trim|rw)' "$f"; then
		head -n 1 "$f" | grep -q '^; DESTROYS' ||
			fail "${f##*/} writes or discards but its first line does not say DESTROYS"
	fi
done

UC_DEV=$dev run_job identify "$examples/identify-qd-sweep.fio" -- \
	identify-qd1:read:1000 identify-qd4:read:1000 identify-qd16:read:1000 \
	identify-qd32:read:1000
UC_DEV=$dev run_job smart "$examples/smart-during-randread.fio" -- \
	randread-qd16:read:4000 smart-poll:read:100
# 16 MiB of 4 KiB writes, each read back and verified
UC_DEV=$dev run_job verify "$examples/verify-write-read.fio" -- \
	verify-randwrite:write:4096 verify-randwrite:read:4096
UC_DEV=$dev run_job queries "$examples/block-queries.fio" -- \
	blkbszget:read:5000 blkgetsize64:read:5000 blkgetzonesz:read:5000
nullb=${TEST_NULLB_DEV:-/dev/nullb0}
if [ -b "$nullb" ]; then
	UC_DEV=$nullb run_job queries-nullb "$examples/block-queries.fio" -- \
		blkbszget:read:5000 blkgetsize64:read:5000 blkgetzonesz:read:5000
else
	leave_out "no $nullb: the block queries on null_blk"
fi

# Discards: 16 MiB in 64 KiB, or, on a kernel without Linux 6.12's
# BLOCK_URING_CMD_DISCARD, a refusal at open in one line that says so.
rc=0
UC_DEV=$dev "$fio" --output-format=json --output="$work/discard.json" \
	"$examples/discard.fio" >"$work/discard.out" 2>&1 || rc=$?
if [ "$rc" = 0 ]; then
	python3 "$check" "$work/discard.json" discard-randtrim:trim:256 ||
		fail "discard: output check failed"
	echo "# discard: 256 discards through BLOCK_URING_CMD_DISCARD"
elif grep -q 'rw=trim: no BLOCK_URING_CMD_DISCARD here (-EOPNOTSUPP)' \
	"$work/discard.out" "$work/discard.json"; then
	echo "# discard: this kernel has no BLOCK_URING_CMD_DISCARD; the job said so"
else
	fail "discard: fio exited $rc without the no-discard line: $(grep -m 1 'uringcmd\|error' "$work/discard.out" "$work/discard.json")"
fi

# nvme-cli's spellings, block_query= in any case, and the queries the
# engine's own table used to leave out.
short=(--ioengine=uringcmd --filename="$dev" --rw=read --iodepth=4 --number_ios=50)
run_job id-ctrl - "${short[@]}" --name=id-ctrl --cmd=id-ctrl --bs=4k -- id-ctrl:read:50
run_job id-ns - "${short[@]}" --name=id-ns --cmd=id-ns --bs=4k -- id-ns:read:50
run_job get-feature - "${short[@]}" --name=get-feature --cmd=get-feature --fid=7 \
	--bs=4k -- get-feature:read:50
run_job smart-log - "${short[@]}" --name=smart-log --cmd=smart-log --bs=512 -- smart-log:read:50
run_job get-log - "${short[@]}" --name=get-log --cmd=get-log --log_id=2 --bs=512 -- get-log:read:50
for q in blksszget BlkGetSize64 BLKGETZONESZ BLKGETNRZONES BLKFRAGET BLKALIGNOFF; do
	run_job "query-$q" - "${short[@]}" --name="q-$q" --cmd=block-query --bs=4k \
		--block_query="$q" -- "q-$q:read:50"
done
# io_size= bounds an admin job as well as number_ios=: 100 identifies
run_job io-size - --ioengine=uringcmd --filename="$dev" --rw=read --bs=4k \
	--io_size=400k --name=io-size --cmd=id-ctrl -- io-size:read:100
# force_async: every second command through io-wq (IOSQE_ASYNC)
run_job force-async - --ioengine=uringcmd --filename="$dev" --bs=4k --size=16M \
	--number_ios=500 --name=force-async --rw=randread --iodepth=8 --force_async=2 \
	-- force-async:read:500
run_job force-async-admin - "${short[@]}" --name=force-async-admin --cmd=id-ctrl \
	--bs=4k --force_async=1 -- force-async-admin:read:50

# The ring modes, on short jobs: reads after the verify job's writes.
common=(--ioengine=uringcmd --filename="$dev" --bs=4k --size=16M --number_ios=500)
run_job vec - "${common[@]}" --name=vec --rw=randread --iodepth=8 --nonvectored=0 -- vec:read:500
run_job fixed - "${common[@]}" --name=fixed --rw=randread --iodepth=8 --fixedbufs \
	--registerfiles -- fixed:read:500
run_job sqpoll - "${common[@]}" --name=sqpoll --rw=randread --iodepth=8 \
	--sqthread_poll -- sqpoll:read:500
run_job admin-sqpoll - "${common[@]}" --name=admin-sqpoll --cmd=identify-ns \
	--rw=read --iodepth=8 --sqthread_poll -- admin-sqpoll:read:500
run_job features - "${common[@]}" --name=features --cmd=get-features --fid=7 \
	--rw=read --iodepth=4 -- features:read:500
# Polled completions need a poll queue: nvme.poll_queues=1 on the guest.
if [ "$(cat /sys/module/nvme/parameters/poll_queues 2>/dev/null || echo 0)" -gt 0 ]; then
	run_job hipri - "${common[@]}" --name=hipri --rw=randread --iodepth=8 --hipri \
		-- hipri:read:500
	run_job hipri-write - --ioengine=uringcmd --filename="$dev" --bs=4k \
		--size=2M --name=hipri-write --rw=randwrite --iodepth=8 --hipri \
		--fixedbufs --verify=crc32c --do_verify=1 -- \
		hipri-write:write:512 hipri-write:read:512
else
	leave_out "nvme.poll_queues=0: the hipri jobs"
fi

# fio's own example for its io_uring_cmd engine (fio's source tree, next to
# the fio built here), unchanged but for the engine, the device, and
# size=1G, which does not fit make test's 256 MiB namespace and would take
# minutes under TCG: 4 MiB a job.
ng_job=$(dirname "$fio")/examples/uring-cmd-ng.fio
if fio_example uring-cmd-ng.fio "$dev" 4M; then
	run_job uring-cmd-ng "$work/uring-cmd-ng.fio" -- \
		rand-write:write:1024 rand-read:read:1024 write-opts:write:1024
else
	leave_out "no $ng_job (fio's source, make fio): fio's uring-cmd-ng.fio"
fi

# fio's uring-cmd-trim-multi-range.fio (fio 3.37 on; 3.33's tree has
# neither it nor num_range=): num_range=8, each trim one Dataset Management
# command of up to 8 ranges, 10 MiB a job as fio has it.
if fio_example uring-cmd-trim-multi-range.fio "$dev" 10M; then
	run_job uring-cmd-trim-multi-range "$work/uring-cmd-trim-multi-range.fio" -- \
		write_bs:trim:320:10485760 'write_bssplit:trim:*:10485760'
	# What the ranges read as afterwards: 64 KiB of 0xab, then one trim
	# of 8 ranges, every second 4 KiB block (rw=trim:4k). The trimmed
	# blocks must read as the namespace's DLFEAT says a deallocated block
	# does (QEMU: zeroes), the others keep 0xab: a command that took
	# only its first range leaves 7 of the 8 holding 0xab.
	dlfeat=$(nvme id-ns "$dev" -o json | python3 -c \
		'import json, sys; print(json.load(sys.stdin)["dlfeat"] & 7)') ||
		fail "nvme id-ns $dev failed"
	case $dlfeat in
	1) fill=0 ;;
	2) fill=255 ;;
	*) fill= ;;
	esac
	if [ -n "$fill" ]; then
		python3 -c 'import sys; sys.stdout.buffer.write(b"\xab" * 65536)' >"$work/pattern"
		dd if="$work/pattern" of="$dev" bs=64k oflag=direct status=none ||
			fail "trim-ranges: writing the pattern failed"
		run_job trim-ranges - --ioengine=uringcmd --filename="$dev" --name=trim-ranges \
			--rw=trim:4k --bs=4k --size=64k --num_range=8 -- trim-ranges:trim:1:32768
		dd if="$dev" of="$work/ranges" bs=64k count=1 iflag=direct status=none ||
			fail "trim-ranges: reading back failed"
		bad=$(python3 -c '
import sys
data, fill = open(sys.argv[1], "rb").read(), int(sys.argv[2])
for i in range(16):
    want = fill if i % 2 == 0 else 0xab
    if data[i * 4096:(i + 1) * 4096] != bytes([want]) * 4096:
        print(f"block {i} (at {i * 4096}) is not all {want:#x};", end=" ")
' "$work/ranges" "$fill")
		[ -z "$bad" ] || fail "trim-ranges: after one trim of 8 ranges: $bad"
		echo "# trim-ranges: 8 ranges in one command read as deallocated (DLFEAT $dlfeat), the 8 between them kept"
	else
		leave_out "DLFEAT $dlfeat: what a deallocated block reads as is not reported, the multi-range trim's data"
	fi
	# Dataset Management is NVMe passthrough, which a polled ring takes
	if [ "$(cat /sys/module/nvme/parameters/poll_queues 2>/dev/null || echo 0)" -gt 0 ]; then
		run_job trim-ranges-hipri - --ioengine=uringcmd --filename="$dev" \
			--name=trim-ranges-hipri --rw=randtrim --bs=4k --size=4M --num_range=4 \
			--iodepth=8 --hipri -- trim-ranges-hipri:trim:256:4194304
	fi
else
	echo "# $(dirname "$fio")/examples has no uring-cmd-trim-multi-range.fio: fio $("$fio" --version) has no num_range="
fi

# fio's uring-cmd-fdp.fio (fio 3.34 on): Flexible Data Placement, on a
# namespace that has it (TEST_FDP_DEV, else the first that answers nvme-cli's
# Reclaim Unit Handle Status): make check-fdp's, under QEMU 10 (run-nvme.sh
# --fdp); Debian 12's QEMU 7.2 emulates none (8.0 added it). There the job
# runs unchanged but for the engine, the device and (FDP_RUNTIME) the
# runtime, with this engine on the block node and with fio's io_uring_cmd
# on the ng node; after each, every placement handle's Reclaim Unit
# Available Media Writes must have dropped by exactly what fio sent through
# it (tests/lib/fio_fdp_check.py). Without such a namespace: the example
# on $dev must stop with the engine's line saying the namespace has no FDP,
# and the skip is said with its reason (under TEST_FDP=1, make check-fdp's,
# a failure).
fdp_namespace() {
	local b
	if [ -n "${TEST_FDP_DEV:-}" ]; then
		echo "$TEST_FDP_DEV"
		return 0
	fi
	for b in /dev/nvme*n*; do
		case ${b##*/} in
		*c*|*p*) continue ;;	# multipath paths, partitions
		esac
		if [ -b "$b" ] && nvme fdp status "$b" -o json >/dev/null 2>&1; then
			echo "$b"
			return 0
		fi
	done
}

# fdp_run ENGINE NODE: the example as $work/fdp-ENGINE.fio on NODE, RUH
# status before and after, the placement check
fdp_run() {
	local engine=$1 node=$2 job=$work/fdp-$1.fio rc=0
	sed -e "s/^ioengine=uringcmd\$/ioengine=$engine/" -e "s|^filename=$fdp_dev\$|filename=$node|" \
		"$work/uring-cmd-fdp.fio" >"$job"
	nvme fdp status "$fdp_dev" -o json >"$work/fdp-$engine.before" ||
		fail "nvme fdp status $fdp_dev failed before the $engine run"
	timeout -k 5 $((fdp_runtime * 3 + 120)) "$fio" --output-format=json \
		--output="$work/fdp-$engine.json" "$job" >"$work/fdp-$engine.out" 2>&1 || rc=$?
	[ "$rc" = 0 ] ||
		fail "uring-cmd-fdp.fio with $engine on $node: fio exited $rc: $(grep -h -m 3 'uringcmd\|error\|fio:\|fdp\|ruh' "$work/fdp-$engine.out" "$work/fdp-$engine.json" 2>/dev/null | tr '\n' ' ')"
	nvme fdp status "$fdp_dev" -o json >"$work/fdp-$engine.after" ||
		fail "nvme fdp status $fdp_dev failed after the $engine run"
	python3 "$check" "$work/fdp-$engine.json" 'write-heavy:write:*' 'write-heavy:read:*' \
		'write-mid:write:*' 'write-mid:read:*' 'write-light:write:*' 'write-light:read:*' ||
		fail "uring-cmd-fdp.fio with $engine: output check failed"
	python3 "${TEST_LIB:-}/fio_fdp_check.py" "$job" "$work/fdp-$engine.json" \
		"$work/fdp-$engine.before" "$work/fdp-$engine.after" "$lbs" ||
		fail "uring-cmd-fdp.fio with $engine on $node: the writes did not land where fio placed them"
	echo "# uring-cmd-fdp.fio, $engine on $node, ${fdp_runtime} s: $(python3 -c '
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
print(", ".join("%s %d writes" % (j["jobname"], j["write"]["total_ios"]) for j in jobs))
' "$work/fdp-$engine.json"), each on the placement handles fio chose"
}

fdp_runtime=${FDP_RUNTIME:-20}
if [ -f "$(dirname "$fio")/examples/uring-cmd-fdp.fio" ]; then
	fdp_dev=$(fdp_namespace)
	if [ -n "$fdp_dev" ]; then
		[ -b "$fdp_dev" ] || fail "TEST_FDP_DEV=$fdp_dev is not a block device"
		fdp_base=${fdp_dev##*/}
		fdp_chr=/dev/ng${fdp_base#nvme}
		lbs=$(cat "/sys/block/$fdp_base/queue/logical_block_size")
		fio_example uring-cmd-fdp.fio "$fdp_dev" 30%
		# time_based, runtime=1000 in fio's file: FDP_RUNTIME=1000 runs it
		# as it is; a shorter one by default (each run is two of them)
		sed -i "s/^runtime=1000\$/runtime=$fdp_runtime/" "$work/uring-cmd-fdp.fio"
		grep -qx "runtime=$fdp_runtime" "$work/uring-cmd-fdp.fio" ||
			fail "uring-cmd-fdp.fio: no runtime=1000 line to change"
		fdp_run uringcmd "$fdp_dev"
		[ -c "$fdp_chr" ] || fail "no $fdp_chr beside $fdp_dev for fio's io_uring_cmd"
		fdp_run io_uring_cmd "$fdp_chr"
	else
		[ "${TEST_FDP:-0}" != 1 ] ||
			fail "TEST_FDP=1 (make check-fdp), but no namespace answers nvme fdp status: booted without run-nvme.sh --fdp, or under a QEMU older than 8.0?"
		fio_example uring-cmd-fdp.fio "$dev" 30%
		rc=0
		timeout -k 5 60 "$fio" "$work/uring-cmd-fdp.fio" >"$work/fdp.out" 2>&1 || rc=$?
		if [ "$rc" = 0 ] || [ "$rc" = 124 ] ||
			! grep -q "^fio: uringcmd: $dev: fdp=1: Reclaim Unit Handle Status (I/O Management Receive): NVMe status 0x[0-9a-f]* (.*): the namespace has no Flexible Data Placement\$" "$work/fdp.out"; then
			fail "uring-cmd-fdp.fio on $dev (no FDP): not the engine's line saying so (fio exited $rc): $(grep -m 2 'fdp\|ruh\|error' "$work/fdp.out" | tr '\n' ' ')"
		fi
		echo "# uring-cmd-fdp.fio: SKIP: no namespace with Flexible Data Placement in this guest (Debian 12's QEMU 7.2 emulates none; make check-fdp boots QEMU 10 with one); on $dev the job stops with the engine's line: $(grep -m 1 '^fio: uringcmd:' "$work/fdp.out")"
	fi
else
	echo "# $(dirname "$fio")/examples has no uring-cmd-fdp.fio: fio $("$fio" --version) has no fdp="
fi

# Debian's /usr/bin/fio with the engine built for it: found by its bare
# name through the library path, and as external:PATH. In the run with
# the fio of that version only (run.sh runs this test once more with fio
# 3.41, the engine built in, for which no shared object is built).
sysfio=/usr/bin/fio
lib=${TEST_FIO_LIB:-}
sysver=$("$sysfio" --version 2>/dev/null) || sysver=
if [ -n "$sysver" ] && [ "$sysver" != "$("$fio" --version)" ]; then
	echo "# Debian's fio with the engine: in the run with $sysver only, not with $("$fio" --version)"
elif [ -x "$sysfio" ] && [ -f "$lib/uringcmd" ]; then
	fio=$sysfio UC_DEV=$dev LD_LIBRARY_PATH=$lib run_job system-fio \
		"$examples/identify-qd-sweep.fio" -- \
		identify-qd1:read:1000 identify-qd32:read:1000
	fio=$sysfio run_job system-fio-external - --name=ext \
		--ioengine="external:$lib/uringcmd" --filename="$dev" --cmd=identify-ctrl \
		--rw=read --bs=4k --iodepth=4 --number_ios=500 -- ext:read:500
else
	leave_out "no $sysfio or no $lib/uringcmd: Debian's fio with the engine"
fi
if [ -n "$left_out" ]; then
	[ "${TEST_STRICT:-0}" != 1 ] || fail "left out under make check: $left_out"
	skip "the rest passed; left out: $left_out"
fi
