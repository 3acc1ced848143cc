#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: ioengine=uringcmd refuses what it cannot do with one line
# naming the cause, and an error status, within seconds: a char device, a
# regular file, a block device that is not NVMe for NVMe commands, bad
# options, an NVMe status (decoded) from the controller.
#
#   fio_engine_errors.sh NVME_DEV NVME_CHAR [NVME_CTRL]
# Environment: TEST_FIO, TEST_NULLB_DEV.
set -eu

me=fio_engine_errors
fail() { echo "$me: FAIL: $*"; exit 1; }
skip() { echo "$me: SKIP: $*"; exit 77; }

dev=${1:-/dev/nvme0n1}
chr=${2:-/dev/ng0n1}
fio=${TEST_FIO:-}
[ -x "${fio:-/nonexistent}" ] || skip "no fio with the uringcmd engine (TEST_FIO=$fio): make fio"
[ -b "$dev" ] || skip "$dev is not a block device"

work=$(mktemp -d /tmp/fio-engine-errors.XXXXXX)
trap 'rm -rf "$work"' EXIT
n=0

# expect_error WHAT PATTERN FIO-ARGS...: fio must fail within 60 s and say
# PATTERN (an extended regular expression) somewhere in its output.
expect_error() {
	local what=$1 pattern=$2 rc=0 out
	shift 2
	n=$((n + 1))
	out=$work/$n.out
	timeout -k 5 60 "$fio" --name=err --ioengine=uringcmd --rw=read --bs=4k \
		--size=1M --number_ios=8 "$@" >"$out" 2>&1 || rc=$?
	case $rc in
	0) fail "$what: fio exited 0: $(tail -n 3 "$out" | tr '\n' ' ')" ;;
	124|137) fail "$what: fio still running after 60 s" ;;
	esac
	if [ "$rc" -gt 128 ]; then
		fail "$what: fio killed by signal $((rc - 128))"
	fi
	grep -Eq -- "$pattern" "$out" ||
		fail "$what: output lacks /$pattern/: $(grep -v '^$' "$out" | head -n 3 | tr '\n' ' ')"
}

if [ -c "$chr" ]; then
	expect_error "char device" "$chr: not a block device" \
		--filename="$chr" --cmd=identify-ctrl
fi
: >"$work/file"
truncate -s 1M "$work/file"
expect_error "regular file" "not a block device" --filename="$work/file"

nullb=${TEST_NULLB_DEV:-/dev/nullb0}
if [ -b "$nullb" ]; then
	expect_error "NVMe command on null_blk" "not an NVMe namespace block node" \
		--filename="$nullb" --cmd=identify-ctrl
	expect_error "NVMe I/O on null_blk" "not an NVMe namespace block node" \
		--filename="$nullb" --cmd=io
fi

expect_error "unknown cmd" "cmd.*bogus|bogus.*cmd" --filename="$dev" --cmd=bogus
expect_error "unknown block query" "BLKNOPE" --filename="$dev" --cmd=block-query \
	--block_query=BLKNOPE
expect_error "identify with bs=512" "transfers 4096 bytes: set bs=4k" \
	--filename="$dev" --cmd=identify-ctrl --bs=512
expect_error "admin write" "only reads" --filename="$dev" --cmd=get-log --rw=write
expect_error "fixedbufs vectored" "fixedbufs needs nonvectored=1" \
	--filename="$dev" --fixedbufs --nonvectored=0
expect_error "misaligned I/O" "multiples of the LBA size" --filename="$dev" \
	--bs=256 --size=64k
# A log page the controller does not have: its status, decoded.
expect_error "NVMe status" "get-log: NVMe status 0x[0-9a-f]+ \([A-Za-z]" \
	--filename="$dev" --cmd=get-log --log_id=191 --bs=512
