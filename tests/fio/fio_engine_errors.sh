#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: ioengine=uringcmd refuses what it cannot do with one line
# naming the cause, and an error status, within seconds: a char device, a
# regular file, a block device that is not NVMe for NVMe commands, bad
# options, an admin or query job bounded by neither number_ios, io_size nor
# runtime, hipri with an admin command or a discard, fixedbufs with
# num_range=, data placement with an admin command or on fio 3.33 (whose
# fio has none), an example job without UC_DEV, an
# NVMe status (decoded) from the controller.
#
#   fio_engine_errors.sh NVME_DEV NVME_CHAR [NVME_CTRL]
# Environment: TEST_FIO, TEST_FIO_EXAMPLES, TEST_NULLB_DEV, TEST_STRICT.
# A case whose device or file is missing (the char device, null_blk, the
# examples) is not run: the test then SKIPs naming it, and under
# TEST_STRICT=1 (make check) fails.
set -eu

me=fio_engine_errors
fail() { echo "$me: FAIL: $*"; exit 1; }
skip() { echo "$me: SKIP: $*"; exit 77; }
left_out=
leave_out() { echo "# $*: not run"; left_out="$left_out${left_out:+; }$*"; }

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
else
	leave_out "no $chr: the char-device case"
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
else
	leave_out "no $nullb: the null_blk cases"
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
# Unbounded admin and query jobs (number_ios=0 undoes the default above):
# refused in one line, not size/bs commands issued.
expect_error "unbounded admin" \
	"cmd=identify-ctrl is not bounded by the device: set number_ios=, io_size= or runtime=" \
	--filename="$dev" --cmd=id-ctrl --number_ios=0
expect_error "unbounded query" "cmd=block-query is not bounded by the device" \
	--filename="$dev" --cmd=block-query --block_query=blkgetsize64 --number_ios=0
expect_error "hipri admin" "hipri polls I/O queues; cmd=get-log is an admin command" \
	--filename="$dev" --cmd=smart-log --bs=512 --hipri
expect_error "hipri trim" "a discard cannot be polled" \
	--filename="$dev" --rw=randtrim --hipri
# num_range= (fio 3.37 on): its ranges are no data buffer to register
if "$fio" --cmdhelp=num_range 2>&1 | grep -q "^ *num_range:"; then
	expect_error "fixedbufs with num_range" "ranges of num_range=4 trims are not data" \
		--filename="$dev" --rw=randtrim --num_range=4 --fixedbufs
fi
# Data placement (fdp=1, dataplacement=, fdp_pli=; fio 3.34 on) tags NVMe
# writes: refused with admin commands. fio 3.33 has none of it, and its
# names are the engine's there only to be refused in one line (fio alone:
# "Bad option"). The FDP runs themselves are in fio_example_jobs.
if "$fio" --cmdhelp=fdp 2>&1 | grep -q "^ *fdp:"; then
	expect_error "fdp with an admin command" \
		"^fio: uringcmd: fdp=1 and dataplacement= place NVMe writes: cmd=io only, not cmd=identify-ctrl$" \
		--filename="$dev" --cmd=identify-ctrl --fdp=1
else
	for opt in --fdp=1 --dataplacement=fdp --fdp_pli=0,1 --plid_select=random; do
		expect_error "$opt on $("$fio" --version)" \
			"^fio: uringcmd: fdp=, dataplacement=, .* are fio 3.34's data placement, which $("$fio" --version) lacks: build fio 3.41 with the engine \(make fio-next\)$" \
			--filename="$dev" --rw=write "$opt"
		[ "$(grep -c '^fio: uringcmd:' "$work/$n.out")" = 1 ] ||
			fail "$opt on $("$fio" --version): not one line: $(grep '^fio' "$work/$n.out" | tr '\n' ' ')"
	done
fi
# The examples take their device from UC_DEV, which fio expands; unset, the
# job is refused rather than run on some default device.
examples=${TEST_FIO_EXAMPLES:-}
if [ -f "$examples/identify-qd-sweep.fio" ]; then
	rc=0
	env -u UC_DEV timeout -k 5 60 "$fio" "$examples/identify-qd-sweep.fio" \
		>"$work/uc_dev.out" 2>&1 || rc=$?
	[ "$rc" != 0 ] || fail "example without UC_DEV: fio exited 0"
	# shellcheck disable=SC2016 # fio's message quotes the job file's ${UC_DEV}
	grep -qF 'failed parsing filename=${UC_DEV}' "$work/uc_dev.out" ||
		fail "example without UC_DEV: $(head -n 2 "$work/uc_dev.out" | tr '\n' ' ')"
else
	leave_out "no examples folder: the UC_DEV case"
fi
if [ -n "$left_out" ]; then
	[ "${TEST_STRICT:-0}" != 1 ] || fail "left out under make check: $left_out"
	skip "the rest passed; left out: $left_out"
fi
