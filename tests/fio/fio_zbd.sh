#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: ioengine=uringcmd with zonemode=zbd on the zoned namespace's
# block node: fio's zbd layer gets the zone model, the zones and their write
# pointers, and resets, from the engine (NVMe Zone Management Receive and
# Send, as fio's io_uring_cmd on /dev/ngXnY), and the writes go through the
# engine's NVMe Write passthrough. Sequential writes over four zones, then
# over two and a half zones of three with crc32c verify: fio resets the
# three zones first (3 zone resets in its output) and the write pointers
# the block layer reports (BLKREPORTZONE) are exactly what fio wrote; the
# same job through fio's own io_uring_cmd on the ng node leaves the same
# write pointers after the same resets; a random-write zbd job, verified,
# whose zones' write pointers add up to the bytes fio wrote (every write
# job at queue depth 1: fio-engine/README.md says why); fio's own zbd checks refuse a wrong zonesize= and a job without
# direct=1, as on any host-managed block device; fio's own
# examples/uring-cmd-zoned.fio from the tree of the fio under test.
#
#   fio_zbd.sh NVME_DEV [NVME_CHAR NVME_CTRL]
# Environment: TEST_FIO, TEST_LIB, TEST_DEVICE_ONLY.
set -eu

me=fio_zbd
# fio's output stays in $work when the test fails
fail() { echo "$me: FAIL: $* (fio's output: $work)"; exit 1; }
skip() { echo "$me: SKIP: $*"; exit 77; }

dev=${1:-/dev/nvme0n1}
fio=${TEST_FIO:-}
check=${TEST_LIB:-}/fio_check.py
[ -x "${fio:-/nonexistent}" ] || skip "no fio with the uringcmd engine (TEST_FIO=$fio): make fio"
[ -b "$dev" ] || skip "$dev is not a block device"
# it writes the controller's zoned namespace, not the one check-device names
[ "${TEST_DEVICE_ONLY:-0}" != 1 ] ||
	skip "writes the controller's zoned namespace (QEMU's --ns zoned=on); check-device uses only the namespace given"

# The first host-managed namespace of DEV's controller (run-nvme.sh --ns
# zoned=on,zoned.zone_size=8M in make check).
zoned_ns() {
	local ctrl d
	ctrl=$(basename "$(readlink -f "/sys/block/${dev##*/}/device")")
	for d in /sys/class/nvme/"$ctrl"/"$ctrl"n*; do
		if [ "$(cat "$d/queue/zoned" 2>/dev/null)" = host-managed ] &&
			[ "$(cat "$d/size")" != 0 ]; then
			echo "/dev/${d##*/}"
			return
		fi
	done
}
zns=$(zoned_ns)
[ -n "$zns" ] || skip "no zoned namespace on the controller of $dev (run-nvme.sh --ns zoned=on)"
ng=/dev/ng${zns#/dev/nvme}
sysq=/sys/block/${zns##*/}/queue
zone=$(($(cat "$sysq/chunk_sectors") * 512))
nzones=$(cat "$sysq/nr_zones")
[ "$nzones" -ge 8 ] || skip "$zns has $nzones zones; the test needs 8"

work=$(mktemp -d /tmp/fio-zbd.XXXXXX)
# Every zone reset at the end, as a fresh namespace has them: the tests
# after this one (nvme_zoned) open and write zones that must be empty.
cleanup() {
	blkzone reset "$zns" || echo "fio_zbd: blkzone reset $zns failed: the zones stay written" >&2
	rm -rf "$work"
}
trap cleanup EXIT
echo "# $zns: $nzones zones of $((zone >> 20)) MiB"

# The zones as the block layer reports them (BLKREPORTZONE), one line
# each: start, write pointer (bytes) and condition (1 empty, 2 implicitly
# open, 14 full).
zones() {
	python3 - "$zns" "$nzones" <<'EOF'
import fcntl, os, struct, sys
dev, n = sys.argv[1], int(sys.argv[2])
BLKREPORTZONE = 0xC0101282		# _IOWR(0x12, 130, struct blk_zone_report)
buf = bytearray(16 + 64 * n)
struct.pack_into("=QI", buf, 0, 0, n)
fd = os.open(dev, os.O_RDONLY)
fcntl.ioctl(fd, BLKREPORTZONE, buf)
got = struct.unpack_from("=I", buf, 8)[0]
for i in range(got):
    start, length, wp, ztype, cond = struct.unpack_from("=QQQBB", buf, 16 + 64 * i)
    print(start * 512, wp * 512, cond)
EOF
}
# expect_wp INDEX BYTES-WRITTEN: zone INDEX's write pointer is BYTES past
# its start (a full zone: condition 14, full)
expect_wp() {
	local line start wp cond
	line=$(zones | sed -n "$(($1 + 1))p")
	read -r start wp cond <<<"$line"
	[ "$((wp - start))" = "$2" ] ||
		fail "${3:-}zone $1: write pointer $((wp - start)) bytes past its start, expected $2 (BLKREPORTZONE: $line)"
	if [ "$2" = "$zone" ] && [ "$cond" != 14 ]; then
		fail "${3:-}zone $1: written to its end but condition $cond, not full (14)"
	fi
	return 0
}

# zbd_job NAME ENGINE-ARGS... -- CHECKS...: run_job with fio's normal
# output kept (fio's zone resets are in it only)
# shellcheck source=../lib/fio_run.sh
. "${TEST_LIB:-}/fio_run.sh"
zbd_job() {
	local name=$1
	shift
	run_job --normal "$name" --name="$name" --zonemode=zbd "$@"
}
# resets NAME: the zone resets fio counted ("; N zone resets")
resets() {
	sed -n 's/.*; \([0-9]*\) zone resets.*/\1/p' "$work/$1.all" | head -n 1
}

# direct=1: fio's zbd layer insists on it for writes to any host-managed
# block device, though the engine's passthrough never uses the page cache;
# the ng node, a char device, cannot be opened O_DIRECT
uc=(--ioengine=uringcmd --filename="$zns" --direct=1)
# Queue depth 1 for writes: nothing orders passthrough writes to one zone
# (fio-engine/README.md, zonemode=zbd); at QD 4 fio's own io_uring_cmd
# failed here with Zone Invalid Write.
seq=(--rw=write --bs=64k --iodepth=1 --offset=0)

# Four zones written to their ends (whatever earlier runs left there:
# verify makes fio reset every zone of the range that holds data first).
zbd_job fill "${uc[@]}" "${seq[@]}" --size=$((4 * zone)) --verify=crc32c \
	-- fill:write:$((4 * zone / 65536)) fill:read:$((4 * zone / 65536))
for i in 0 1 2 3; do
	expect_wp "$i" "$zone" "after fill: "
done

# Two and a half zones of three, verified: the three full zones are reset
# first, the write pointers stop where fio stopped.
half=$((zone / 2))
zbd_job seq "${uc[@]}" "${seq[@]}" --size=$((3 * zone)) --io_size=$((2 * zone + half)) \
	--verify=crc32c -- seq:write:$(((2 * zone + half) / 65536)) \
	seq:read:$(((2 * zone + half) / 65536))
[ "$(resets seq)" = 3 ] || fail "seq: fio counted $(resets seq) zone resets, expected 3 (the full zones 0 to 2)"
expect_wp 0 "$zone" "after seq: "
expect_wp 1 "$zone" "after seq: "
expect_wp 2 "$half" "after seq: "
expect_wp 3 "$zone" "after seq (outside the job's range): "
zones >"$work/zones.uringcmd"

# The same job through fio's own io_uring_cmd on the ng node (fio 3.33
# has zonemode=zbd there): the same resets, the same write pointers.
if [ -c "$ng" ]; then
	zbd_job seq-ng --ioengine=io_uring_cmd --cmd_type=nvme --filename="$ng" \
		"${seq[@]}" --size=$((3 * zone)) --io_size=$((2 * zone + half)) \
		--verify=crc32c -- seq-ng:write:$(((2 * zone + half) / 65536)) \
		seq-ng:read:$(((2 * zone + half) / 65536))
	[ "$(resets seq-ng)" = 3 ] ||
		fail "seq-ng: io_uring_cmd counted $(resets seq-ng) zone resets, expected 3"
	zones >"$work/zones.io_uring_cmd"
	cmp -s "$work/zones.uringcmd" "$work/zones.io_uring_cmd" ||
		fail "the write pointers after io_uring_cmd's job differ from uringcmd's: $(diff "$work/zones.uringcmd" "$work/zones.io_uring_cmd" | grep '^[<>]' | tr '\n' ' ')"
	echo "# io_uring_cmd on $ng: the same 3 resets and write pointers"
else
	fail "no $ng beside $zns"
fi

# Random writes over zones 4 to 7, verified: fio resets
# the zones holding data, then every write lands at a write pointer, so
# the write pointers add up to what fio wrote.
ios=512
zbd_job rand "${uc[@]}" --rw=randwrite --bs=16k --iodepth=1 --offset=$((4 * zone)) \
	--size=$((4 * zone)) --io_size=$((ios * 16384)) --verify=crc32c \
	-- rand:write:$ios rand:read:$ios
sum=$(zones | awk -v z="$zone" 'NR >= 5 && NR <= 8 { s += $2 - $1 } END { print s + 0 }')
[ "$sum" = $((ios * 16384)) ] ||
	fail "rand: the write pointers of zones 4 to 7 add up to $sum bytes, fio wrote $((ios * 16384))"

# fio's zbd layer takes the engine's zones as a host-managed device's:
# a zonesize= that is not the device's, and writes without direct=1, are
# refused before any I/O.
rc=0
timeout -k 5 60 "$fio" --name=badzs "${uc[@]}" --zonemode=zbd --rw=write \
	--bs=64k --size=$zone --zonesize=$((zone / 2)) >"$work/badzs.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "zonesize=$((zone / 2)) accepted on zones of $zone bytes"
grep -q "job parameter zonesize $((zone / 2)) does not match disk zone size $zone" "$work/badzs.out" ||
	fail "zonesize=$((zone / 2)): $(head -n 2 "$work/badzs.out" | tr '\n' ' ')"
rc=0
timeout -k 5 60 "$fio" --name=nodirect --ioengine=uringcmd --filename="$zns" --zonemode=zbd --rw=write \
	--bs=64k --size=$zone >"$work/nodirect.out" 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "zonemode=zbd writes without direct=1 accepted"
grep -q "Using direct I/O is mandatory for writing to ZBD drives" "$work/nodirect.out" ||
	fail "without direct=1: $(head -n 2 "$work/nodirect.out" | tr '\n' ' ')"
# A write job deeper than 1 is told why not (one write, at zone 2's write
# pointer, cannot be reordered).
zbd_job deep "${uc[@]}" --rw=write --bs=64k --iodepth=4 --offset=$((2 * zone)) \
	--size=$zone --number_ios=1 -- deep:write:1
grep -q "fio: uringcmd: zonemode=zbd writes at iodepth=4 may reach a zone out of order" \
	"$work/deep.out" "$work/deep.all" ||
	fail "iodepth=4: no warning: $(grep -h -m 2 uringcmd "$work/deep.out" "$work/deep.all" | tr '\n' ' ')"
expect_wp 2 $((half + 65536)) "after deep: "

# fio's own example for zonemode=zbd (both trees have it) on the block
# node: direct=1 added, 16 MiB a job (two zones) instead of 1G; random
# and sequential writes at queue depth 1, verified, SQPOLL, registered
# files.
fio_example uring-cmd-zoned.fio "$zns" 16M direct=1 ||
	fail "no uring-cmd-zoned.fio in $(dirname "$fio")/examples"
jobs=$((16 << 20 >> 18))
run_job uring-cmd-zoned "$work/uring-cmd-zoned.fio" -- \
	rand-write:write:$jobs rand-write:read:$jobs write-opts:write:$jobs \
	write-opts:read:$jobs randwrite-opts:write:$jobs randwrite-opts:read:$jobs
rm -rf "$work"
