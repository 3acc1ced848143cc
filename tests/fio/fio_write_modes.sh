#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: ioengine=uringcmd's write commands and flags under fio's
# io_uring_cmd names: write_mode=zeroes (Write Zeroes, no data moved) over
# written blocks, then a read returns zeroes, again with deac=1 (DEAC);
# write_mode=uncor (Write Uncorrectable), then a read fails with
# Unrecovered Read Error, or, on a controller without the command (QEMU
# 7.2), the job fails with Invalid Command Opcode; readfua/writefua (FUA)
# verified writes and reads; cmd_type=nvme; write_mode= without writes
# refused in one line.
#
#   fio_write_modes.sh NVME_DEV [NVME_CHAR NVME_CTRL]
# Environment: TEST_FIO, TEST_LIB.
set -eu

me=fio_write_modes
fail() { echo "$me: FAIL: $* (fio's output: $work)"; exit 1; }
skip() { echo "$me: SKIP: $*"; exit 77; }

dev=${1:-/dev/nvme0n1}
fio=${TEST_FIO:-}
check=${TEST_LIB:-}/fio_check.py
[ -x "${fio:-/nonexistent}" ] || skip "no fio with the uringcmd engine (TEST_FIO=$fio): make fio"
[ -b "$dev" ] || skip "$dev is not a block device"

work=$(mktemp -d /tmp/fio-write-modes.XXXXXX)
# 1 MiB at 64 MiB: away from the 16 MiB the example jobs write
off=$((64 << 20))
len=$((1 << 20))

# run_job NAME FIO-ARGS... -- CHECKS...
# shellcheck source=../lib/fio_run.sh
. "${TEST_LIB:-}/fio_run.sh"

# fio_rc NAME FIO-ARGS...: fio's exit status, its output in $work/NAME.out
fio_rc() {
	local name=$1 rc=0
	shift
	timeout -k 5 60 "$fio" "$@" >"$work/$name.out" 2>&1 || rc=$?
	echo "$rc"
}

# The range's bytes through the page-cache-free block node: all zero?
range_is_zero() {
	python3 - "$dev" "$off" "$len" <<'EOF'
import mmap, os, sys
dev, off, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, n)
os.preadv(fd, [buf], off)
sys.exit(0 if buf[:] == bytes(n) else 1)
EOF
}

common=(--ioengine=uringcmd --cmd_type=nvme --filename="$dev" --offset="$off"
	--size="$len" --bs=4k --iodepth=8)

# Data first (checked by fio's verify, with FUA on writes and reads), so
# that zeroes afterwards are the command's doing.
run_job fua "${common[@]}" --name=fua --rw=write --writefua=1 --readfua=1 \
	--verify=crc32c --do_verify=1 --verify_fatal=1 -- fua:write:256 fua:read:256
! range_is_zero || fail "the range reads as zeroes after a verified write"
run_job zeroes "${common[@]}" --name=zeroes --rw=write --write_mode=zeroes \
	-- zeroes:write:256
range_is_zero || fail "write_mode=zeroes: the range does not read back as zeroes"

run_job refill "${common[@]}" --name=refill --rw=randwrite --verify=crc32c \
	--do_verify=1 -- refill:write:256 refill:read:256
run_job deac "${common[@]}" --name=deac --rw=randwrite --write_mode=zeroes \
	--deac=1 -- deac:write:256
range_is_zero || fail "write_mode=zeroes deac=1: the range does not read back as zeroes"

# Write Uncorrectable of the first 4 KiB, then a read of it
rc=$(fio_rc uncor --name=uncor "${common[@]}" --size=4k --rw=write --write_mode=uncor)
if [ "$rc" = 0 ]; then
	rc=$(fio_rc uncor-read --name=uncor-read "${common[@]}" --size=4k --rw=read)
	[ "$rc" != 0 ] || fail "a read after write_mode=uncor succeeded"
	# Unrecovered Read Error: SCT 2h, SC 81h
	grep -Eq 'NVMe status 0x(4)?281 ' "$work/uncor-read.out" ||
		fail "uncor read: no Unrecovered Read Error: $(grep -m 2 uringcmd "$work/uncor-read.out" | tr '\n' ' ')"
	echo "# write_mode=uncor: the read failed with Unrecovered Read Error"
else
	# QEMU 7.2 has no Write Uncorrectable (ONCS bit 1 clear): opcode 04h
	# reached it and came back Invalid Command Opcode (SCT 0, SC 01h)
	grep -Eq 'NVMe status 0x(4)?001 ' "$work/uncor.out" ||
		fail "write_mode=uncor failed without Invalid Command Opcode: $(grep -m 2 'uringcmd\|fio:' "$work/uncor.out" | tr '\n' ' ')"
	echo "# write_mode=uncor: this controller has no Write Uncorrectable (Invalid Command Opcode)"
fi
# make the blocks readable again for whatever runs next
run_job restore "${common[@]}" --name=restore --rw=write -- restore:write:256

rc=$(fio_rc no-writes --name=no-writes "${common[@]}" --rw=read --write_mode=zeroes)
[ "$rc" != 0 ] || fail "write_mode=zeroes with rw=read ran"
grep -q 'write_mode=zeroes replaces writes, and rw= has none' "$work/no-writes.out" ||
	fail "write_mode=zeroes with rw=read: $(head -n 2 "$work/no-writes.out" | tr '\n' ' ')"
rc=$(fio_rc bad-type --name=bad-type "${common[@]}" --rw=read --cmd_type=scsi)
[ "$rc" != 0 ] || fail "cmd_type=scsi accepted"
rm -rf "$work"
