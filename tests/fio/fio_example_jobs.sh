#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: every job in fio-engine/examples/ runs with ioengine=uringcmd
# against the NVMe block node and does what it says: the expected number of
# I/Os per job, no error, verify passing, latency figures in the JSON; the
# block queries again on a non-NVMe block device; then the ring modes
# (hipri, sqthread_poll, IO_VEC, fixedbufs, registerfiles) on short jobs.
#
#   fio_example_jobs.sh NVME_DEV [NVME_CHAR NVME_CTRL]
# Environment: TEST_FIO (fio with uringcmd built in), TEST_FIO_EXAMPLES,
# TEST_LIB (tests/lib, for fio_check.py), TEST_NULLB_DEV.
set -eu

me=fio_example_jobs
fail() { echo "$me: FAIL: $*"; exit 1; }
skip() { echo "$me: SKIP: $*"; exit 77; }

dev=${1:-/dev/nvme0n1}
fio=${TEST_FIO:-}
examples=${TEST_FIO_EXAMPLES:-}
check=${TEST_LIB:-}/fio_check.py
[ -x "${fio:-/nonexistent}" ] || skip "no fio with the uringcmd engine (TEST_FIO=$fio): make fio"
[ -d "$examples" ] || fail "no examples folder ($examples)"
[ -b "$dev" ] || skip "$dev is not a block device"

work=$(mktemp -d /tmp/fio-example-jobs.XXXXXX)
trap 'rm -rf "$work"' EXIT

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

# An example with its device replaced by the one under test.
example() {
	sed -e "s|^filename=.*|filename=$2|" "$examples/$1.fio" >"$work/$1.fio"
	echo "$work/$1.fio"
}

run_job identify "$(example identify-qd-sweep "$dev")" -- \
	identify-qd1:read:1000 identify-qd4:read:1000 identify-qd16:read:1000 \
	identify-qd32:read:1000
run_job smart "$(example smart-during-randread "$dev")" -- \
	randread-qd16:read:4000 smart-poll:read:100
# 16 MiB of 4 KiB writes, each read back and verified
run_job verify "$(example verify-write-read "$dev")" -- \
	verify-randwrite:write:4096 verify-randwrite:read:4096
run_job queries "$(example block-queries "$dev")" -- \
	blkbszget:read:5000 blkgetsize64:read:5000
nullb=${TEST_NULLB_DEV:-/dev/nullb0}
if [ -b "$nullb" ]; then
	run_job queries-nullb "$(example block-queries "$nullb")" -- \
		blkbszget:read:5000 blkgetsize64:read:5000
fi

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
	echo "# nvme.poll_queues=0: hipri jobs not run"
fi

# Debian's /usr/bin/fio with the engine built for it: found by its bare
# name through the library path, and as external:PATH.
sysfio=/usr/bin/fio
lib=${TEST_FIO_LIB:-}
if [ -x "$sysfio" ] && [ -f "$lib/uringcmd" ]; then
	fio=$sysfio LD_LIBRARY_PATH=$lib run_job system-fio \
		"$(example identify-qd-sweep "$dev")" -- \
		identify-qd1:read:1000 identify-qd32:read:1000
	fio=$sysfio run_job system-fio-external - --name=ext \
		--ioengine="external:$lib/uringcmd" --filename="$dev" --cmd=identify-ctrl \
		--rw=read --bs=4k --iodepth=4 --number_ios=500 -- ext:read:500
else
	echo "# no $sysfio or no $lib/uringcmd: system fio not tried"
fi
