#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: ioengine=uringcmd with metadata and protection information,
# under fio's io_uring_cmd option names: writes and verified reads with a
# separate metadata buffer (md_per_io_size) on a namespace with metadata;
# on a PI namespace, fio-engine/examples/pi-verify.fio (the controller
# generates PI on writes, pi_act=1, and checks it on reads, pi_chk), then
# reads with pi_act=0 that return the PI into the metadata buffer with every
# check on, and a read whose application tag does not match, which must
# fail with the controller's status; refusals of what cannot work.
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
[ -n "$mdns" ] || [ -n "$pins" ] ||
	skip "no namespace with metadata on the controller of $dev (run-nvme.sh --ns ms=16 / ms=8,pi=1)"

work=$(mktemp -d /tmp/fio-meta-pi.XXXXXX)
n=0

# run_job NAME FIO-ARGS... -- CHECKS...: fio with JSON output, then
# fio_check.py over it.
run_job() {
	local name=$1 args=() rc=0
	shift
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	"$fio" --output-format=json --output="$work/$name.json" "${args[@]}" \
		>"$work/$name.out" 2>&1 || rc=$?
	[ "$rc" = 0 ] ||
		fail "$name: fio exited $rc: $(grep -h -m 2 'uringcmd\|error\|fio:' "$work/$name.out" "$work/$name.json" 2>/dev/null | tr '\n' ' ')"
	python3 "$check" "$work/$name.json" "$@" || fail "$name: output check failed"
}

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
	expect_error "pi_act without PI" "need a namespace formatted with protection information" \
		--filename="$mdns" --rw=read --md_per_io_size=128 --pi_act=1
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
	expect_error "pi_chk on writes without pi_act" "pi_chk on writes needs pi_act=1" \
		--filename="$pins" --rw=write --md_per_io_size=64 --pi_chk=GUARD
	expect_error "PI without pi_act or md_per_io_size" \
		"set md_per_io_size=64 or more \(or pi_act=1" --filename="$pins" --rw=read
else
	echo "# no PI type 1 namespace: PI jobs not run"
fi
expect_error "pi_chk without PI" "need a namespace formatted with protection information" \
	--filename="$dev" --rw=read --pi_chk=GUARD
expect_error "metadata options on an admin command" "go with cmd=io" \
	--filename="$dev" --cmd=identify-ctrl --rw=read --md_per_io_size=64 --number_ios=8
rm -rf "$work"
