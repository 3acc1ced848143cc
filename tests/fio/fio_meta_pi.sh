#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: ioengine=uringcmd with metadata and protection information,
# under fio's io_uring_cmd option names: writes and verified reads with a
# separate metadata buffer (md_per_io_size) on a namespace with metadata;
# on a PI namespace, fio-engine/examples/pi-verify.fio (the controller
# generates PI on writes, pi_act=1, and checks it on reads, pi_chk), then
# reads with pi_act=0 that return the PI into the metadata buffer with every
# check on, and a read whose application tag does not match, which must
# fail with the controller's status; pi_act=0 writes whose PI the engine
# computes (guard, application tag, reference tag), checked by the
# controller on the write and by the engine and controller on reads, on the
# type 1 and the type 3 namespace, and a read of them expecting another
# application tag, which fails; pi_act (default 1, as fio's) having no
# effect on a namespace without PI; fio's own examples/uring-cmd-pi-sb.fio
# where the tree of the fio under test has it (3.41's); extended LBAs
# (metadata in the data buffer): fio's examples/uring-cmd-pi-ext.fio (3.41's
# tree) with PI computed and checked in place, pi_act=1 with data-only
# buffers, write and verify without PI on a node Linux gives no capacity;
# refusals of what cannot work.
#
#   fio_meta_pi.sh NVME_DEV [NVME_CHAR NVME_CTRL]
# Environment: TEST_FIO, TEST_FIO_EXAMPLES, TEST_LIB.
set -eu

me=fio_meta_pi
# fio's output stays in $work when the test fails
fail() { echo "$me: FAIL: $* (fio's output: $work)"; exit 1; }
skip() { echo "$me: SKIP: $*"; exit 77; }

dev=${1:-/dev/nvme0n1}
fio=${TEST_FIO:-}
examples=${TEST_FIO_EXAMPLES:-}
check=${TEST_LIB:-}/fio_check.py
[ -x "${fio:-/nonexistent}" ] || skip "no fio with the uringcmd engine (TEST_FIO=$fio): make fio"
[ -b "$dev" ] || skip "$dev is not a block device"

# The namespaces of DEV's controller by their integrity format: "nop" is
# metadata without PI, T10-DIF-TYPE1-CRC PI type 1 (run-nvme.sh --ns ms=16
# and --ns ms=8,pi=1 in make check). Extended LBAs have no capacity on
# PCIe (6.1) and are left out by the size check.
ns_with_format() { # FORMAT
	local ctrl d
	ctrl=$(basename "$(readlink -f "/sys/block/${dev##*/}/device")")
	for d in /sys/class/nvme/"$ctrl"/"$ctrl"n*; do
		if [ ! -e "$d/integrity/format" ] || [ "$(cat "$d/size")" = 0 ]; then
			continue
		fi
		if [ "$(cat "$d/integrity/format")" = "$1" ]; then
			echo "/dev/${d##*/}"
			return
		fi
	done
}
mdns=$(ns_with_format nop)
pins=$(ns_with_format T10-DIF-TYPE1-CRC)
pi3ns=$(ns_with_format T10-DIF-TYPE3-CRC)
# Extended LBAs (metadata after each block's data, FLBAS bit 4) with PI
# type PI (0: none), by Identify Namespace: Linux reports no integrity
# format for them on PCIe, and no capacity without PI.
ext_ns() { # PI
	local ctrl d
	ctrl=$(basename "$(readlink -f "/sys/block/${dev##*/}/device")")
	for d in /sys/class/nvme/"$ctrl"/"$ctrl"n*; do
		[ -b "/dev/${d##*/}" ] || continue
		if nvme id-ns "/dev/${d##*/}" -o json 2>/dev/null | python3 -c '
import json, sys
ns = json.load(sys.stdin)
ms = ns["lbafs"][ns["flbas"] & 15]["ms"]
sys.exit(0 if ns["flbas"] & 16 and ms and ns["dps"] & 7 == int(sys.argv[1]) else 1)' "$1"; then
			echo "/dev/${d##*/}"
			return
		fi
	done
}
extns=$(ext_ns 0)
extpins=$(ext_ns 1)
[ -n "$mdns" ] || [ -n "$pins" ] ||
	skip "no namespace with metadata on the controller of $dev (run-nvme.sh --ns ms=16 / ms=8,pi=1)"

work=$(mktemp -d /tmp/fio-meta-pi.XXXXXX)
n=0

# run_job NAME FIO-ARGS... -- CHECKS...
# shellcheck source=../lib/fio_run.sh
. "${TEST_LIB:-}/fio_run.sh"

# expect_error WHAT PATTERN FIO-ARGS...: fio must fail within 60 s and say
# PATTERN (an extended regular expression).
expect_error() {
	local what=$1 pattern=$2 rc=0 out
	shift 2
	n=$((n + 1))
	out=$work/err$n.out
	timeout -k 5 60 "$fio" --name=err --ioengine=uringcmd --cmd=io --bs=4k \
		--size=64k "$@" >"$out" 2>&1 || rc=$?
	case $rc in
	0) fail "$what: fio exited 0: $(tail -n 3 "$out" | tr '\n' ' ')" ;;
	124|137) fail "$what: fio still running after 60 s" ;;
	esac
	grep -Eq -- "$pattern" "$out" ||
		fail "$what: output lacks /$pattern/: $(grep -v '^$' "$out" | head -n 3 | tr '\n' ' ')"
}

common=(--ioengine=uringcmd --cmd=io --bs=4k --size=1M --iodepth=8)
if [ -n "$mdns" ]; then
	# 16 bytes of metadata per 512-byte block: 128 per 4 KiB I/O
	run_job md-sep "${common[@]}" --filename="$mdns" --name=md-sep \
		--rw=randwrite --md_per_io_size=128 --verify=crc32c --do_verify=1 \
		--verify_fatal=1 -- md-sep:write:256 md-sep:read:256
	run_job md-sep-vec "${common[@]}" --filename="$mdns" --name=md-sep-vec \
		--rw=randread --md_per_io_size=4096 --nonvectored=0 -- md-sep-vec:read:256
	expect_error "metadata without md_per_io_size" \
		"has 16 bytes of metadata per block: set md_per_io_size=128 or more" \
		--filename="$mdns" --rw=read
	# pi_act=1 (fio's default) means nothing without PI: PRACT stays clear
	run_job md-pi-act "${common[@]}" --filename="$mdns" --name=md-pi-act \
		--rw=randread --md_per_io_size=128 --pi_act=1 -- md-pi-act:read:256
else
	echo "# no namespace with separate metadata: md_per_io_size jobs not run"
fi

if [ -n "$pins" ]; then
	UC_DEV=$pins run_job pi-verify "$examples/pi-verify.fio" -- \
		pi-randwrite:write:1024 pi-randwrite:read:1024
	# the same blocks, their PI returned into the metadata buffer (8 bytes
	# a block) and checked by the controller against apptag and each LBA
	run_job pi-read "${common[@]}" --filename="$pins" --name=pi-read --rw=read \
		--md_per_io_size=64 --pi_act=0 --pi_chk=GUARD,REFTAG,APPTAG \
		--apptag=0x1234 -- pi-read:read:256
	run_job pi-read-act "${common[@]}" --filename="$pins" --name=pi-read-act \
		--rw=randread --pi_act=1 --pi_chk=guard,reftag -- pi-read-act:read:256
	# the blocks carry apptag 0x1234: a read checking for 0x4321 fails with
	# End-to-end Application Tag Check Error (SCT 2h, SC 83h)
	expect_error "application tag mismatch" "NVMe status 0x(4)?283 " \
		--filename="$pins" --rw=read --size=4k --pi_act=1 --pi_chk=APPTAG --apptag=0x4321
	expect_error "unknown pi_chk" "GUARD, REFTAG and APPTAG" \
		--filename="$pins" --rw=read --pi_act=1 --pi_chk=GUARD,NOPE
	expect_error "PI with pi_act=0 and no md_per_io_size" \
		"set md_per_io_size=64 or more \(or pi_act=1" --filename="$pins" \
		--rw=read --pi_act=0

	# pi_act=0 writes: the engine computes each block's PI into the
	# metadata buffer, the controller checks all of it (PRCHK) on the write;
	# fio's verify reads back with pi_act=0, the PI checked by the engine
	# and the controller
	run_job pi0-write "${common[@]}" --filename="$pins" --name=pi0-write \
		--rw=randwrite --md_per_io_size=64 --pi_act=0 \
		--pi_chk=GUARD,REFTAG,APPTAG --apptag=0x5a5a --verify=crc32c \
		--do_verify=1 --verify_fatal=1 -- pi0-write:write:256 pi0-write:read:256
	run_job pi0-read "${common[@]}" --filename="$pins" --name=pi0-read --rw=read \
		--md_per_io_size=64 --pi_act=0 --pi_chk=GUARD,REFTAG,APPTAG \
		--apptag=0x5a5a -- pi0-read:read:256
	# only the tag bits apptag_mask selects are compared
	run_job pi0-mask "${common[@]}" --filename="$pins" --name=pi0-mask --rw=read \
		--md_per_io_size=64 --pi_act=0 --pi_chk=APPTAG --apptag=0x5aff \
		--apptag_mask=0xff00 -- pi0-mask:read:256
	# and pi_act=1 reads the same blocks, the controller checking and
	# stripping the PI
	run_job pi0-act "${common[@]}" --filename="$pins" --name=pi0-act --rw=read \
		--pi_act=1 --pi_chk=GUARD,REFTAG,APPTAG --apptag=0x5a5a -- pi0-act:read:256
	# another application tag: the controller (status 0x283) or the
	# engine's own check fails the read
	expect_error "pi_act=0 read, application tag mismatch" \
		"NVMe status 0x(4)?283 |application tag check failed" --filename="$pins" \
		--rw=read --size=4k --md_per_io_size=64 --pi_act=0 --pi_chk=APPTAG \
		--apptag=0x1234
	# fio's own example for PI with a separate metadata buffer (fio 3.41's
	# tree has it, 3.33's not): pi_act=0 writes and reads, every field
	# checked, 8 bytes of PI a 512-byte block
	if fio_example uring-cmd-pi-sb.fio "$pins" 4M; then
		run_job uring-cmd-pi-sb "$work/uring-cmd-pi-sb.fio" -- \
			write:write:1024 read:read:1024
	else
		echo "# $(dirname "$fio")/examples has no uring-cmd-pi-sb.fio"
	fi
else
	echo "# no PI type 1 namespace: PI jobs not run"
fi
if [ -n "$pi3ns" ]; then
	# type 3, 4 KiB blocks, 8 bytes of PI each: no reference tag check
	run_job pi3-write "${common[@]}" --filename="$pi3ns" --name=pi3-write \
		--rw=randwrite --md_per_io_size=8 --pi_act=0 --pi_chk=GUARD,APPTAG \
		--verify=crc32c --do_verify=1 --verify_fatal=1 -- \
		pi3-write:write:256 pi3-write:read:256
	run_job pi3-act "${common[@]}" --filename="$pi3ns" --name=pi3-act --rw=read \
		--pi_chk=GUARD,APPTAG -- pi3-act:read:256
	expect_error "type 3 pi_act=0 read, application tag mismatch" \
		"NVMe status 0x(4)?283 |application tag check failed" --filename="$pi3ns" \
		--rw=read --md_per_io_size=8 --pi_act=0 --pi_chk=APPTAG --apptag=0x4321
else
	echo "# no PI type 3 namespace: its jobs not run"
fi
# Extended LBAs, as fio's io_uring_cmd takes them on ng: bs= and offsets
# count each block's data and metadata (512 + 8), the file is nsze such
# blocks, the metadata travels in the data buffer.
if [ -n "$extpins" ]; then
	# fio's own example (fio 3.41's tree): pi_act=0 writes whose PI the
	# engine computes in place, block by block, checked by the controller
	# (GUARD, APPTAG, REFTAG), then reads checked by both; 4160-byte I/Os
	# of 8 blocks, 1024 of them (size=4160k: whole I/Os)
	if fio_example uring-cmd-pi-ext.fio "$extpins" 4160k; then
		run_job uring-cmd-pi-ext "$work/uring-cmd-pi-ext.fio" -- \
			write:write:1024 read:read:1024
	else
		echo "# $(dirname "$fio")/examples has no uring-cmd-pi-ext.fio"
		run_job pi-ext-write --ioengine=uringcmd --filename="$extpins" --name=pi-ext-write \
			--rw=write --bs=4160 --size=4160k --iodepth=32 --pi_act=0 \
			--pi_chk=GUARD,APPTAG,REFTAG --apptag=0x0888 -- pi-ext-write:write:1024
	fi
	run_job pi-ext-read --ioengine=uringcmd --filename="$extpins" --name=pi-ext-read \
		--rw=randread --bs=4160 --size=4160k --iodepth=8 --pi_act=0 \
		--pi_chk=GUARD,APPTAG,REFTAG --apptag=0x0888 -- pi-ext-read:read:1024
	expect_error "extended LBA, application tag mismatch" \
		"NVMe status 0x(4)?283 |application tag check failed" --filename="$extpins" \
		--rw=read --bs=4160 --size=4160 --pi_act=0 --pi_chk=APPTAG --apptag=0x4321
	# pi_act=1 with 8 bytes of PI: the controller inserts and strips it,
	# the buffer holds data only (bs a multiple of 512), verify= allowed
	run_job pi-ext-act --ioengine=uringcmd --filename="$extpins" --name=pi-ext-act \
		--rw=randwrite --bs=4k --size=1M --iodepth=8 --pi_act=1 --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --verify_state_save=0 -- \
		pi-ext-act:write:256 pi-ext-act:read:256
	expect_error "extended LBA PI and verify=" "verify cannot be used when E2E" \
		--filename="$extpins" --rw=write --bs=4160 --pi_act=0 --verify=crc32c
else
	echo "# no extended-LBA namespace with PI type 1: its jobs not run"
fi
if [ -n "$extns" ]; then
	# 8 bytes of metadata without PI: Linux gives the block node no
	# capacity; the engine sizes it from Identify Namespace
	run_job ext-verify --ioengine=uringcmd --filename="$extns" --name=ext-verify \
		--rw=randwrite --bs=4160 --size=4160k --iodepth=8 --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --verify_state_save=0 -- \
		ext-verify:write:1024 ext-verify:read:1024
	expect_error "extended LBA, a 4 KiB block size" \
		"block sizes must be multiples of 520 \(LBA data size \+ metadata size" \
		--filename="$extns" --rw=read --bs=4k
	expect_error "extended LBA, a one-range trim" "rw=trim's discard counts data bytes only" \
		--filename="$extns" --rw=trim --bs=4160
else
	echo "# no extended-LBA namespace without PI: its jobs not run"
fi
expect_error "pi_chk without PI" "pi_chk needs a namespace formatted with protection information" \
	--filename="$dev" --rw=read --pi_chk=GUARD
expect_error "metadata options on an admin command" "go with cmd=io" \
	--filename="$dev" --cmd=identify-ctrl --rw=read --md_per_io_size=64 --number_ios=8
rm -rf "$work"
