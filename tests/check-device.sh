#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-device DEV=/dev/nvmeXnY: the guest suite's tests on the running
# kernel (a machine with the series installed), on one NVMe namespace whose
# data the user gives up.
#
#   tests/check-device.sh DEV
#
# Refuses, in one line on stderr and with status 1, unless: it runs as
# root; build/tests has the tests (make tests); DEV is the block node of a
# whole NVMe namespace with its ngXnY; neither it nor any of its partitions
# is mounted (or the source of a mount), swap, held (holders/: dm, md,
# bcache), a loop device's backing file, claimed (an O_EXCL open fails) or
# open by a process; the kernel answers the series' commands on DEV (a
# BLOCK_URING_CMD_IOCTL query and an NVMe admin command through uring_cmd,
# tests/tools/device_probe.c: the answer is in the message); and the user
# confirms that DEV's data will be destroyed: CONFIRM=destroy-NAME
# (NAME: nvme0n1 for /dev/nvme0n1), or, on a terminal, NAME typed at the
# prompt. Then tests/run.sh with TEST_DEVICE_ONLY=1: the block_* tests on
# DEV alone, the NVMe tests on DEV, its ng node and its controller; what
# would touch another namespace, the controller's state, QEMU, nvmet or
# null_blk skips, saying why. No test formats, sanitizes or manages
# namespaces (uring_fuzz, which could send such commands, never runs here).
# Prints run.sh's PASS/FAIL/SKIP lines and its "N passed, N failed, N
# skipped"; exits 1 if a test failed. Everything run.sh printed goes to
# RESULTS/run.log, each test's output and kernel log to RESULTS/tests/.
#
# Environment:
#   CONFIRM    destroy-NAME: the data on DEV may be destroyed
#   T          only these tests (shell patterns, as make test's T)
#   RESULTS    the results folder (build/results/check-device), emptied first
#   TEST_DISCARD_ZEROES  1 if DEV reads discarded blocks back as zeroes (0:
#              the discard tests compare with what BLKDISCARD left); other
#              TEST_* of run.sh (TEST_TIMEOUT...) pass through
#   CHECK_DEVICE_PROBE_NODE  for the tests of this script (tests/device/
#              check_device.sh): probe this node instead of DEV
set -eu

me=check-device
top=$(cd "$(dirname "$0")/.." && pwd)
bindir=$top/build/tests
probe=$bindir/.tools/device_probe
# set by getf and devname
name='' c='' state='' no='' dmname='' backing='' comm='' size='' nsid='' model=''

refuse() {
	echo "$me: $*" >&2
	exit 1
}

if [ $# != 1 ] || [ -z "$1" ]; then
	echo "usage: $0 /dev/nvmeXnY (make check-device DEV=/dev/nvmeXnY)" >&2
	exit 2
fi
dev=$1

[ "$EUID" = 0 ] || refuse "run it as root: the tests send NVMe admin commands and open $dev exclusively"
[ -x "$probe" ] || refuse "no $probe: build the tests first (make tests)"
[ -b "$dev" ] || refuse "$dev is not a block device"

# getf VAR FILE: FILE's first line into VAR, blanks trimmed ("" if
# unreadable): sysfs without a program run per file, which under QEMU's
# emulation costs a tenth of a second each
getf() {
	local _v=
	read -r _v <"$2" 2>/dev/null || true
	printf -v "$1" '%s' "$_v"
}

# devname VAR DIR: the DEVNAME of sysfs device DIR (its uevent) into VAR
devname() {
	local _l _n=
	while read -r _l; do
		[ "${_l#DEVNAME=}" = "$_l" ] || _n=${_l#DEVNAME=}
	done <"$2/uevent" 2>/dev/null || true
	printf -v "$1" '%s' "$_n"
}

# majmin NODE: the device number of a device node, as sysfs writes it
majmin() {
	local t
	t=$(stat -L -c '%t %T' "$1") || return 1
	read -r maj min <<<"$t"
	echo "$((16#$maj)):$((16#$min))"
}

devno=$(majmin "$dev")
devname name "/sys/dev/block/$devno"
sys=/sys/class/block/$name
if [ -e "$sys/partition" ]; then
	refuse "$dev ($name) is a partition: name the whole NVMe namespace (/dev/nvmeXnY)"
fi
if ! [[ $name =~ ^nvme[0-9]+n[0-9]+$ ]] || [ ! -r "$sys/nsid" ]; then
	refuse "$dev ($name) is not an NVMe namespace block device (/dev/nvmeXnY)"
fi
chr=/dev/ng${name#nvme}
[ -c "$chr" ] || refuse "$dev has no generic char node $chr (a kernel before 5.13?)"

# The controller: the namespace's own (nvmeX), or for a multipath head a
# live one of its paths (nvmeSUBcCTRLnNS: /dev/nvmeCTRL).
ctrl=
if [ -e "$sys/device/cntlid" ]; then
	devname c "$sys/device"
	ctrl=/dev/$c
else
	for p in "$sys"/multipath/nvme*; do
		[ -e "$p" ] || continue
		c=${p##*/}
		c=${c#nvme*c}
		c=nvme${c%%n*}
		getf state "/sys/class/nvme/$c/state"
		if [ -z "$ctrl" ] || [ "$state" = live ]; then
			ctrl=/dev/$c
		fi
	done
fi
if [ -z "$ctrl" ] || [ ! -c "$ctrl" ]; then
	refuse "cannot find the controller of $dev in $sys"
fi

# ---- nothing may be using the namespace or a partition of it -------------

nodes=("$name")
for p in "$sys"/"$name"p*; do
	[ -e "$p/partition" ] && nodes+=("${p##*/}")
done

# same_node PATH DEVNO: PATH is a block node of device DEVNO
same_node() {
	[ -b "$1" ] && [ "$(majmin "$1" 2>/dev/null)" = "$2" ]
}

for n in "${nodes[@]}"; do
	what=/dev/$n
	[ "$n" = "$name" ] || what="$what, a partition of $dev,"
	getf no "/sys/class/block/$n/dev"

	# mounted: the mount's device number, or its source (btrfs and
	# others give their mounts a device number of their own)
	while read -r _ _ mno _ mnt rest; do
		src=${rest#* - }
		src=${src#* }
		src=${src%% *}
		if [ "$mno" = "$no" ] || same_node "$src" "$no"; then
			refuse "$what is mounted on $mnt: unmount it first"
		fi
	done </proc/self/mountinfo
	# (no /proc/swaps on a kernel without CONFIG_SWAP; its first line
	# names the columns)
	if [ -r /proc/swaps ]; then
		while read -r sw _; do
			! same_node "$sw" "$no" || refuse "$what is swap: swapoff $sw first"
		done </proc/swaps
	fi

	held=()
	for h in "/sys/class/block/$n/holders"/*; do
		[ -e "$h" ] || continue
		h=${h##*/}
		if [ -r "/sys/class/block/$h/dm/name" ]; then
			getf dmname "/sys/class/block/$h/dm/name"
			h="$h (dm $dmname)"
		fi
		held+=("$h")
	done
	[ "${#held[@]}" = 0 ] ||
		refuse "$what is held by ${held[*]} (/sys/class/block/$n/holders): remove that first"

	for l in /sys/class/block/loop*/loop/backing_file; do
		[ -r "$l" ] || continue
		getf backing "$l"
		if same_node "$backing" "$no"; then
			l=${l%/loop/backing_file}
			refuse "$what backs loop device /dev/${l##*/}: losetup -d it first"
		fi
	done

done

# claimed (O_EXCL), as by a file system, dm, md or a program: the
# partitions first, as a claimed partition makes the whole disk busy too
for ((i = ${#nodes[@]} - 1; i >= 0; i--)); do
	n=${nodes[i]}
	what=/dev/$n
	[ "$n" = "$name" ] || what="$what, a partition of $dev,"
	if ! out=$("$probe" excl "/dev/$n"); then
		refuse "$what is in use ($out): something claims it (a file system, dm, md, another program)"
	fi
done

# open by a process: each open file compared with each node (test -ef, no
# program run per file: a desktop has thousands)
for fd in /proc/[0-9]*/fd/*; do
	for n in "${nodes[@]}"; do
		[ "$fd" -ef "/dev/$n" ] || continue
		pid=${fd#/proc/}
		pid=${pid%%/*}
		[ "$pid" != $$ ] || continue
		what=/dev/$n
		[ "$n" = "$name" ] || what="$what, a partition of $dev,"
		getf comm "/proc/$pid/comm"
		refuse "$what is open by pid $pid ($comm): end it first"
	done
done

# ---- the kernel has the series -------------------------------------------

node=${CHECK_DEVICE_PROBE_NODE:-$dev}
rc=0
out=$("$probe" series "$node") || rc=$?
case $rc in
0) ;;
1) refuse "this kernel ($(uname -r)) lacks the uringcmd series, or $node does not serve it: $out on $node" ;;
*) refuse "cannot probe $node for the series: $out" ;;
esac

# ---- the user gives the namespace's data up ------------------------------

getf size "$sys/size"
getf nsid "$sys/nsid"
size=$((size * 512 / 1000000))
if [ "$size" -ge 10000 ]; then
	size="$((size / 1000)) GB"
else
	size="$size MB"
fi
getf model "$sys/device/model"
desc="$size${model:+, $model}, namespace $nsid of ${ctrl#/dev/}"
want=destroy-$name
if [ "${CONFIRM:-}" != "$want" ]; then
	[ -z "${CONFIRM:-}" ] ||
		refuse "CONFIRM=$CONFIRM does not name $dev: CONFIRM=$want gives its data up"
	if [ ! -t 0 ] || [ ! -t 2 ]; then
		refuse "the tests destroy the data on $dev ($desc): to go on, run again with CONFIRM=$want"
	fi
	printf '%s: the tests destroy the data on %s (%s).\nType %s to go on: ' \
		"$me" "$dev" "$desc" "$name" >&2
	answer=
	read -r answer || true
	[ "$answer" = "$name" ] || refuse "not confirmed: nothing was run"
fi

# ---- the suite on the namespace -------------------------------------------

results=${RESULTS:-$top/build/results/check-device}
rm -rf "$results"
mkdir -p "$results"
# the variables of QEMU's topology (make check's, make test's) do not apply
set +e
env -u TEST_ONLY -u TEST_NVME_NS_COUNT -u TEST_REQUIRE_NVME -u TEST_STRICT \
	-u TEST_FUZZ_SCRATCH_NSID -u TEST_FUZZ_TARGETS -u TEST_RESULTS_HOST \
	-u TEST_NVME_HOTPLUG_DEV -u TEST_NVME_PART_DEV -u TEST_NULLB_BIO_DEV \
	${T:+TEST_ONLY="$T"} TEST_DEVICE_ONLY=1 TEST_NVME_DEV="$dev" \
	TEST_NVME_CHAR="$chr" TEST_NVME_CTRL="$ctrl" TEST_BLOCK_DEVS=nvme TEST_FABRICS=0 \
	TEST_DISCARD_ZEROES="${TEST_DISCARD_ZEROES:-0}" \
	"$top/tests/run.sh" "$bindir" "$results/tests" 2>&1 |
	tee "$results/run.log" | grep --line-buffered -E '^(PASS|FAIL|SKIP) |^[0-9]+ passed, '
st=("${PIPESTATUS[@]}")
set -e
if [ "${st[0]}" != 0 ]; then
	echo "$me: run.sh exited ${st[0]}: each test's output and kernel log in $results/tests, run.sh's notes in $results/run.log" >&2
	exit 1
fi
