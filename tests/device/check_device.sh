#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: make check-device (tests/check-device.sh) in the guest as on
# a user's machine, namespace 2 of the controller playing the user's drive:
# it refuses, in one line and with status 1, without confirmation (none,
# or one naming another namespace), as another user than root, a node
# that is not a whole NVMe namespace (a char node, a loop device, a
# partition), the namespace or a partition of it mounted, held by
# dm-linear, backing a loop device, claimed (O_EXCL) or open by a
# process, and a kernel whose block node does not answer the series'
# commands; then, confirmed, it runs a few tests on that namespace, the
# block tests on it alone, and skips those that reach beyond it with
# their reason.
#   check_device NVME_DEV NVME_CHAR NVME_CTRL   (run.sh's arguments)
#
# What the refusals show, and what not: the guest kernel has no block file
# system (kernel/guest.config), so "mounted" is a tmpfs mounted with the
# partition node as its source (check-device matches a mount by its
# device number or by its source); the unpatched kernel is not booted:
# the probe is pointed (CHECK_DEVICE_PROBE_NODE) at the namespace's
# /dev/ngXnY, which is no block node (-ENOTBLK from the block probe) and
# takes no admin uring_cmd on 6.1 (-ENOTTY, a real kernel answer), so the
# probe's failure path and message run,
# while an unpatched kernel's block node answers -EOPNOTSUPP (no
# ->uring_cmd in 6.1's block_device fops). No swap (CONFIG_SWAP is off).
set -eu

me=check_device
fail() { echo "$me: FAIL: $*"; exit 1; }
skip() { echo "$me: SKIP: $*"; exit 77; }

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd_sh=$top/tests/check-device.sh
probe=$here/.tools/device_probe
ctrl=${3:-/dev/nvme0}
# namespace 2 by its nsid: 6.12 scans namespaces in parallel and names them
# in the order they come, so nvme0n2 may be another one (a zoned one takes
# no partition table)
dev=${ctrl}n2
for d in /sys/class/nvme/"${ctrl#/dev/}"/"${ctrl#/dev/}"n*; do
	[ "$(cat "$d/nsid" 2>/dev/null)" = 2 ] && dev=/dev/${d##*/} && break
done
name=${dev#/dev/}
chr=/dev/ng${name#nvme}
[ -x "$cd_sh" ] || fail "no $cd_sh"
[ -x "$probe" ] || fail "no $probe (tests/tools, make tests)"
[ -b "$dev" ] || skip "no $dev: namespace 2 plays the user's drive (run-nvme.sh -n 2)"
for t in dmsetup losetup python3 blockdev setpriv; do
	command -v "$t" >/dev/null || fail "no $t in the guest"
done

work=$(mktemp -d /tmp/check-device.XXXXXX)
pids=() dms=() loops=() mnt=
cleanup() {
	local p
	for p in ${pids[@]+"${pids[@]}"}; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	[ -z "$mnt" ] || umount "$mnt" 2>/dev/null || true
	for p in ${dms[@]+"${dms[@]}"}; do dmsetup remove "$p" 2>/dev/null || true; done
	for p in ${loops[@]+"${loops[@]}"}; do losetup -d "$p" 2>/dev/null || true; done
	# the partition table written here goes, and its partition with it
	dd if=/dev/zero of="$dev" bs=512 count=1 conv=notrunc status=none 2>/dev/null || true
	blockdev --rereadpt "$dev" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# refused LABEL PATTERN NODE [VAR=VALUE...]: check-device NODE, with the
# environment given (and T naming one harmless test, in case a guard let
# it through), exits 1 with exactly one line, which matches PATTERN
refused() {
	local label=$1 pat=$2 node=$3 out rc=0
	shift 3
	out=$(env T=socket_errors RESULTS="$work/bypassed" "$@" "$cd_sh" "$node" </dev/null 2>&1) || rc=$?
	[ "$rc" = 1 ] || fail "$label: check-device exited $rc, not 1: $out"
	[ "$(wc -l <<<"$out")" = 1 ] || fail "$label: not one line: $out"
	[[ $out =~ $pat ]] || fail "$label: '$out' does not match '$pat'"
	echo "refused, $label: $out"
}

yes=CONFIRM=destroy-$name

# Before anything is set up.
refused "no confirmation" "^check-device: the tests destroy the data on $dev \(.*\): to go on, run again with CONFIRM=destroy-$name\$" "$dev"
refused "another namespace confirmed" "^check-device: CONFIRM=destroy-nvme9n9 does not name $dev: CONFIRM=destroy-$name gives its data up\$" \
	"$dev" CONFIRM=destroy-nvme9n9
out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$cd_sh" "$dev" 2>&1 </dev/null) && fail "ran as nobody: $out"
[[ $out =~ ^check-device:\ run\ it\ as\ root ]] || fail "as nobody: $out"
echo "refused, not root: $out"
refused "char node" "^check-device: $chr is not a block device\$" "$chr" "$yes"
truncate -s 8M "$work/img"
loop=$(losetup --find --show "$work/img")
loops+=("$loop")
refused "loop device" "^check-device: $loop \(${loop#/dev/}\) is not an NVMe namespace block device \(/dev/nvmeXnY\)\$" \
	"$loop" CONFIRM="destroy-${loop#/dev/}"
refused "unpatched kernel (probe on $chr)" \
	"^check-device: this kernel \(.*\) lacks the uringcmd series, or $chr does not serve it: BLOCK_URING_CMD_IOCTL\(BLKSSZGET\) answered -ENOTBLK, NVME_URING_CMD_ADMIN \(Identify Controller\) -ENOTTY on $chr\$" \
	"$dev" "$yes" CHECK_DEVICE_PROBE_NODE="$chr"

# The namespace itself in use: every refusal with the confirmation given.
losetup -d "$loop"
loops=()
loop=$(losetup --find --show "$dev")
loops+=("$loop")
refused "loop over it" "^check-device: $dev backs loop device $loop: losetup -d it first\$" "$dev" "$yes"
losetup -d "$loop"
loops=()
sectors=$(blockdev --getsz "$dev")
dmsetup create uc-cd-whole --table "0 $sectors linear $dev 0"
dms+=(uc-cd-whole)
refused "dm-linear over it" "^check-device: $dev is held by dm-[0-9]+ \(dm uc-cd-whole\) \(/sys/class/block/$name/holders\): remove that first\$" \
	"$dev" "$yes"
dmsetup remove uc-cd-whole
dms=()

# A partition (1 MiB to 63 MiB, MS-DOS label) and each way it can be in use.
printf '\x83\0\0\0\x00\x08\0\0\x00\xf0\x01\x00' | dd of="$dev" bs=1 seek=450 conv=notrunc status=none
printf '\x55\xaa' | dd of="$dev" bs=1 seek=510 conv=notrunc status=none
blockdev --rereadpt "$dev"
part=${dev}p1
for _ in $(seq 50); do [ -b "$part" ] && break; sleep 0.1; done
[ -b "$part" ] || fail "no $part after BLKRRPART"
refused "a partition named" "^check-device: $part \(${name}p1\) is a partition: name the whole NVMe namespace \(/dev/nvmeXnY\)\$" \
	"$part" "$yes"
mnt=$work/mnt
mkdir "$mnt"
mount -t tmpfs "$part" "$mnt"
refused "partition mounted (tmpfs, the partition its source)" \
	"^check-device: $part, a partition of $dev, is mounted on $mnt: unmount it first\$" "$dev" "$yes"
umount "$mnt"
mnt=
dmsetup create uc-cd-part --table "0 $(blockdev --getsz "$part") linear $part 0"
dms+=(uc-cd-part)
refused "dm-linear over the partition" \
	"^check-device: $part, a partition of $dev, is held by dm-[0-9]+ \(dm uc-cd-part\) \(/sys/class/block/${name}p1/holders\): remove that first\$" \
	"$dev" "$yes"
dmsetup remove uc-cd-part
dms=()
python3 -c 'import os, sys, time; os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL); time.sleep(600)' "$part" &
pids+=($!)
for _ in $(seq 100); do "$probe" excl "$part" >/dev/null || break; sleep 0.1; done
refused "partition claimed (O_EXCL)" \
	"^check-device: $part, a partition of $dev, is in use \(open\(O_EXCL\): Device or resource busy\): something claims it \(a file system, dm, md, another program\)\$" \
	"$dev" "$yes"
kill "${pids[0]}"
wait "${pids[0]}" 2>/dev/null || true
(exec 3<"$part" && exec sleep 600) &
pids=($!)
for _ in $(seq 50); do [ "/proc/${pids[0]}/fd/3" -ef "$part" ] && break; sleep 0.1; done
refused "partition open by a process" \
	"^check-device: $part, a partition of $dev, is open by pid ${pids[0]} \(sleep\): end it first\$" "$dev" "$yes"
kill "${pids[0]}"
wait "${pids[0]}" 2>/dev/null || true
pids=()
dd if=/dev/zero of="$dev" bs=512 count=1 conv=notrunc status=none
blockdev --rereadpt "$dev"

# Confirmed: a few tests on the namespace, and two that skip there. The
# block query and discard paths and the NVMe admin and I/O paths on the
# block node, ng and controller check-device derived; the full list runs
# on nvme0n1 in this same boot, so a subset shows the plumbing without
# doubling the boot's time.
only='block_query_ioctl_sysfs block_discard nvme_bdev_admin nvme_bdev_io nvme_char_passthru nvme_pi uring_fuzz'
rc=0
out=$(env T="$only" RESULTS="$work/results" "$yes" "$cd_sh" "$dev" </dev/null 2>&1) || rc=$?
printf '%s\n' "$out" | sed 's/^/  /'
if [ "$rc" != 0 ]; then
	cat "$work/results/run.log" 2>/dev/null
	fail "check-device on $dev exited $rc"
fi
want="PASS block_discard[$name]
PASS block_query_ioctl_sysfs[$name]
PASS nvme_bdev_admin
PASS nvme_bdev_io
PASS nvme_char_passthru
SKIP nvme_pi: writes to the controller's other namespaces of a format (QEMU's --ns ones); check-device uses only the namespace given
SKIP uring_fuzz: sends random admin commands to the controller, which serves other namespaces too, and fuzzes null_blk and loop devices made for it
5 passed, 0 failed, 2 skipped"
[ "$out" = "$want" ] || fail "check-device's output is not the expected lines (above)"
grep -qx "# block devices: $dev" "$work/results/run.log" ||
	fail "run.sh's block devices are not $dev alone: $(grep '^# block devices' "$work/results/run.log")"
echo "check-device on $dev: 5 passed, 2 skipped, block devices $dev alone"
