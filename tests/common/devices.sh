# SPDX-License-Identifier: GPL-2.0
#
# The devices the tests run on, set up and taken down: loop devices over
# tmpfs, a partitioned loop, null_blk made through configfs, and the NVMe
# namespaces QEMU gives the guest.
# Sourced by tests/run.sh, whose variables and helpers (note, fail_step,
# run_test, selected, workdir, strict, ...) these functions use.
# shellcheck shell=bash disable=SC2034,SC2154 # run.sh's variables

bring_up_lo() {
	if ! command -v ip >/dev/null 2>&1; then
		note "no ip(8): cannot bring up lo"
		return 0
	fi
	ip link set lo up || note "ip link set lo up failed"
}

# missing NAME WHAT [OUTPUT-FILE]: a default device could not be had; a
# note, or under TEST_STRICT, if a test would use it, a failure (the
# coverage it gives is gone)
missing() {
	if [ "$strict" = 1 ] && [ "$default_devs_used" = 1 ]; then
		fail_step "$1" "$2" "${3:-}"
	else
		note "$2"
	fi
}

# make_loop NAME FILE [losetup options...]: attach a loop device over FILE
make_loop() {
	local name=$1 file=$2 dev err=$workdir/losetup.err
	shift 2
	if truncate -s 64M "$file" 2>"$err" &&
		dev=$(losetup --find --show "$@" "$file" 2>"$err"); then
		loop_devs+=("$dev")
		note "loop device $dev over tmpfs${*:+ ($*)}"
	else
		missing "setup[$name]" "losetup $* $file failed: $(tail -n 1 "$err")" "$err"
	fi
}

setup_loops() {
	if ! command -v losetup >/dev/null 2>&1; then
		missing "setup[loop]" "no losetup(8): no loop devices"
		return 0
	fi
	loop_mnt=$(mktemp -d /tmp/uringcmd-loop.XXXXXX)
	if ! mount -t tmpfs -o size=224M uringcmd-test "$loop_mnt" 2>"$workdir/mount.err"; then
		missing "setup[loop]" "cannot mount a tmpfs: no loop devices: $(tail -n 1 "$workdir/mount.err")" \
			"$workdir/mount.err"
		rmdir "$loop_mnt"
		loop_mnt=
		return 0
	fi
	make_loop loop-rw "$loop_mnt/rw.img"
	make_loop loop-ro4k "$loop_mnt/ro4k.img" --read-only --sector-size 4096
	make_part_loop "$loop_mnt/part.img"
}

# wait_node NODE: wait up to 5 s for the block node NODE (a partition
# that a rescan is making); 0 once it is there, 1 if it never came
wait_node() {
	for _ in $(seq 50); do
		[ -b "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# make_part_loop FILE: a loop device with partscan (losetup -P) over FILE
# holding an MS-DOS label with one partition, 2048 to 129023 (62 MiB):
# its node, part_dev, goes to the block tests and the fuzzer.
make_part_loop() {
	local file=$1 err=$workdir/losetup.err
	if ! truncate -s 64M "$file" 2>"$err" ||
		! printf '\x83\0\0\0\x00\x08\0\0\x00\xf0\x01\x00' |
			dd of="$file" bs=1 seek=450 conv=notrunc status=none 2>"$err" ||
		! printf '\x55\xaa' | dd of="$file" bs=1 seek=510 conv=notrunc status=none 2>"$err" ||
		! part_loop=$(losetup --find --show --partscan "$file" 2>"$err"); then
		part_loop=
		missing "setup[loop-part]" "a partitioned loop device over $file: $(tail -n 1 "$err")" "$err"
		return 0
	fi
	if wait_node "${part_loop}p1"; then
		part_dev=${part_loop}p1
		note "partition $part_dev of a loop device with partscan"
	else
		missing "setup[loop-part]" "no ${part_loop}p1 after losetup --partscan"
	fi
}

# A memory-backed null_blk that discards, made through configfs: the
# module's /dev/nullb0 discards nothing, so the discard tests need this one;
# nullb_md_dev is its node (the fuzzer discards there, after the tests).
setup_nullb_discard() {
	local cfg=/sys/kernel/config/nullb d attr
	if [ ! -d "$cfg" ]; then
		mount -t configfs configfs /sys/kernel/config 2>/dev/null || true
	fi
	if [ ! -d "$cfg" ]; then
		missing "setup[nullb-discard]" "no $cfg (CONFIG_CONFIGFS_FS, CONFIG_BLK_DEV_NULL_BLK): no discarding null_blk"
		return 0
	fi
	# a device made through configfs is named after its directory
	d=$cfg/nullb_discard
	if ! mkdir "$d" 2>"$workdir/nullb.err"; then
		missing "setup[nullb-discard]" "mkdir $d failed: $(tail -n 1 "$workdir/nullb.err")" "$workdir/nullb.err"
		return 0
	fi
	nullb_md=$d
	for attr in size=64 memory_backed=1 discard=1 power=1; do
		if ! echo "${attr#*=}" 2>"$workdir/nullb.err" >"$d/${attr%%=*}"; then
			missing "setup[nullb-discard]" "null_blk $attr failed: $(tail -n 1 "$workdir/nullb.err")" \
				"$workdir/nullb.err"
			return 0
		fi
	done
	nullb_md_dev=/dev/${d##*/}
	if [ ! -b "$nullb_md_dev" ]; then
		sleep 1		# devtmpfs makes the node; give a slow guest time
	fi
	if [ -b "$nullb_md_dev" ]; then
		note "memory-backed, discarding null_blk $nullb_md_dev"
		block_devs+=("$nullb_md_dev")
	else
		missing "setup[nullb-discard]" "no $nullb_md_dev after powering $d on"
		nullb_md_dev=
	fi
}

# A bio-based null_blk (queue_mode=0), made through configfs: the one disk
# here without blk-mq, whose driver-private cmd_ops go to its disk's fops
# (patch 0014); a default device of the block tests and the fuzzer, and
# nvme_bdev_errors' (TEST_NULLB_BIO_DEV) for NVMe commands on it.
setup_nullb_bio() {
	local d=/sys/kernel/config/nullb/nullb_bio attr
	if ! mkdir "$d" 2>"$workdir/nullb.err"; then
		missing "setup[nullb-bio]" "mkdir $d failed: $(tail -n 1 "$workdir/nullb.err")" "$workdir/nullb.err"
		return 0
	fi
	nullb_bio=$d
	for attr in size=64 queue_mode=0 power=1; do
		if ! echo "${attr#*=}" 2>"$workdir/nullb.err" >"$d/${attr%%=*}"; then
			missing "setup[nullb-bio]" "null_blk $attr failed: $(tail -n 1 "$workdir/nullb.err")" \
				"$workdir/nullb.err"
			return 0
		fi
	done
	[ -b /dev/nullb_bio ] || sleep 1
	if [ -b /dev/nullb_bio ]; then
		note "bio-based null_blk /dev/nullb_bio"
		block_devs+=(/dev/nullb_bio)
		export TEST_NULLB_BIO_DEV=/dev/nullb_bio
	else
		missing "setup[nullb-bio]" "no /dev/nullb_bio after powering $d on"
	fi
}

# Take down what the setup_* functions made.
devices_cleanup() {
	local d
	for d in $nullb_md $nullb_bio; do
		{ echo 0 >"$d/power" && rmdir "$d"; } ||
			note "could not remove null_blk $d"
	done
	for d in "${loop_devs[@]}" $part_loop; do
		losetup --detach "$d" || note "could not detach $d"
	done
	if [ -n "$loop_mnt" ]; then
		if umount "$loop_mnt"; then
			rmdir "$loop_mnt"
		else
			note "could not unmount $loop_mnt"
		fi
	fi
}

# asynchronous scans, which take seconds on a debug kernel under TCG.
# TEST_NVME_DEV=auto: the first namespace 1 there is (a multipath head is
# named after its subsystem, whose number depends on which controller of it
# probed first), found by its nsid: 6.12 scans a controller's namespaces in
# parallel and names them in the order they come, so nvme0n1 may be
# namespace 2. None yet: a name that is no node, and the caller waits.
first_ns1() {
	local d
	for d in /sys/block/nvme*n*; do
		case ${d##*/} in *c*|*p*) continue ;; esac
		[ "$(cat "$d/nsid" 2>/dev/null)" = 1 ] && echo "/dev/${d##*/}" && return 0
	done
	echo "/dev/nvme0n1 (no namespace 1 yet)"
}

# ctrl_ns_by_nsid NSID: the block node of namespace NSID of the controller
# under test, found by its nsid (see first_ns1); /dev/nvme0nNSID while
# there is none yet.
ctrl_ns_by_nsid() {
	local c=${nvme_ctrl##*/} d
	for d in /sys/class/nvme/"$c"/"$c"n*; do
		[ "$(cat "$d/nsid" 2>/dev/null)" = "$1" ] && echo "/dev/${d##*/}" && return 0
	done
	echo "/dev/${c}n$1"
}

# Namespaces of the controller under test, beyond the first: the
# controller scans them one after the other.
ctrl_namespaces() {
	local c=${nvme_ctrl##*/} d
	for d in /sys/class/nvme/"$c"/"$c"n*; do
		[ -e "$d/nsid" ] && echo "${d##*/}"
	done
}
