#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs the uringcmd test binaries inside the guest, as root.
#
#   run.sh BINDIR [RESULTSDIR]
#
# BINDIR holds the binaries built by tests/Makefile; per-test output and
# kernel log go to RESULTSDIR/<test>.log and <test>.dmesg (without
# RESULTSDIR: a folder in /tmp, kept only if something failed).
# Prints one line per test run, "PASS name", "FAIL name: reason (output:
# FILE, kernel log: FILE)" or "SKIP name: reason", then "N passed, N
# failed, N skipped"; exits 1 if any test failed (or none ran).
#
# Which tests get which arguments goes by name:
#   block_*   once per block device: name[dev] DEV
#   nvme_*, fio_*, bench_*  once: NVME_DEV NVME_CHAR NVME_CTRL;
#             nvme_bdev_* once more on a head node of an nvmet
#             subsystem (tests/nvmet.sh): the file namespace's, but
#             nvme_bdev_faults on the slow namespace's
#   fabrics_* once, on the slow namespace's head, after the nvme_bdev_*
#   uring_fuzz  once, over NVME_DEV NVME_CHAR NVME_CTRL NULLB_DEV, the
#             loop devices and the formatted namespaces (TEST_NVME_NS_COUNT)
#             (TEST_FUZZ_COUNT commands, TEST_FUZZ_SEED), with failslab
#             where the kernel has it; with TEST_FUZZ_NVMET=1 once more
#             over the nvmet head node, its ng and its two controllers
#             (a twentieth of them)
#   others    once, no arguments
#
# Environment:
#   TEST_NVME_DEV      NVMe namespace block device   (/dev/nvme0n1; auto:
#                      the first nvmeXn1 that appears)
#   TEST_NVME_CHAR     its generic char device       (/dev/ngXnY of TEST_NVME_DEV)
#   TEST_NVME_CTRL     NVMe controller char device   (/dev/nvme0)
#   TEST_NULLB_DEV     null_blk device               (/dev/nullb0)
#   TEST_BLOCK_DEVS    block devices for block_* tests, replacing the default
#                      "NVME_DEV NULLB_DEV" plus two loop devices made here
#                      (64 MiB read-write; 64 MiB read-only, 4096-byte sectors),
#                      a partition, a discarding and a bio-based null_blk;
#                      "nvme": NVME_DEV alone (a head in make check's
#                      second boot)
#   TEST_TIMEOUT       seconds a test may run (60)
#   TEST_TIMEOUT_SCALE multiplier for TEST_TIMEOUT, e.g. under TCG (1)
#   TEST_SETTLE        seconds to wait after a test before reading the
#                      kernel log (0.3)
#   TEST_ONLY          space-separated shell patterns; run only tests whose
#                      name (without [dev]) matches one
#   TEST_FABRICS       0: no nvmet target, no fabrics runs (1)
#   TEST_REQUIRE_NVME  1: fail if TEST_NVME_DEV never appears (0: tests skip)
#   TEST_NVME_NS_COUNT namespaces to wait for on TEST_NVME_CTRL's controller
#                      (the formatted ones of run-nvme.sh --ns come after
#                      the first); those with other than 512-byte blocks,
#                      or zoned, join the block_* tests' devices
#   TEST_FUZZ_COUNT    commands uring_fuzz sends (20000)
#   TEST_FUZZ_SEED     its seed (default: from the clock; printed, and a
#                      failure says how to repeat it)
#   TEST_FUZZ_TARGETS  nvme: the fuzzer gets the NVMe nodes only (NVME_DEV,
#                      its ng, every controller of its subsystem, the
#                      scratch namespace), no default block devices
#   TEST_FUZZ_SCRATCH_NSID  the namespace of NVME_DEV's subsystem (or
#                      controller) whose block node, ng and partition the
#                      fuzzer may write to (--scratch): no other test
#                      may use it; run.sh labels it with one partition
#   TEST_FUZZ_PER_RING uring_fuzz's --per-ring (none: 100 to 1500)
#   TEST_FUZZ_NVMET    1: fuzz the nvmet head too (0: make check leaves it
#                      out, it runs the guest out of memory on 6.1 with
#                      make check's seed, tests/fuzz/README.md)
#   TEST_FUZZ_FAILSLAB commands uring_fuzz runs under failslab after its
#                      TEST_FUZZ_COUNT (a twentieth of them); only on a kernel
#                      with /sys/kernel/debug/failslab, and required on
#                      the debug kernel
#   TEST_FIO           fio with ioengine=uringcmd built in (build/fio/src/fio)
#   TEST_FIO_LIB       folder of the engine built for the system fio
#                      (build/fio/lib)
#   TEST_STRICT        1 (make check): fail, not just note, a missing
#                      default block device (null_blk, the two loops), an
#                      unreadable kernel log or a failed nvmet teardown, and
#                      scan kmemleak even with TEST_ONLY (0)
#   TEST_RESULTS_HOST  RESULTSDIR as the reader sees it, for the FAIL
#                      lines (check.sh: its host path)
#
# A test fails, whatever its exit code, if the kernel log written after its
# "uringcmd-test: start NAME" marker matches SPLAT_RE, or if the kernel's
# taint flags change while it runs.

set -eu

SPLAT_RE='WARNING:|BUG:|KASAN|possible circular locking|INFO: task .* blocked|Call Trace|kmemleak'
LOCKDEP_RE='WARNING: possible circular locking dependency detected'

usage() {
	echo "usage: $0 BINDIR [RESULTSDIR]" >&2
	exit 2
}

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	usage
fi
bindir=$1
here=$(cd "$(dirname "$0")" && pwd)
results=${2:-}
[ -d "$bindir" ] || { echo "$0: $bindir: not a directory" >&2; exit 2; }
strict=${TEST_STRICT:-0}

timeout_s=$(( ${TEST_TIMEOUT:-60} * ${TEST_TIMEOUT_SCALE:-1} ))
settle=${TEST_SETTLE:-0.3}
if ! [[ $settle =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
	echo "$0: TEST_SETTLE=$settle: want seconds, such as 0.3" >&2
	exit 2
fi
nvme_dev=${TEST_NVME_DEV:-/dev/nvme0n1}
nvme_base=${nvme_dev##*/}
nvme_char=${TEST_NVME_CHAR:-/dev/ng${nvme_base#nvme}}
nvme_ctrl=${TEST_NVME_CTRL:-/dev/nvme0}
nullb_dev=${TEST_NULLB_DEV:-/dev/nullb0}

# What the fio_* tests use, from the checkout this script lives in.
export TEST_FIO=${TEST_FIO:-$here/../build/fio/src/fio}
export TEST_FIO_LIB=${TEST_FIO_LIB:-$here/../build/fio/lib}
export TEST_FIO_EXAMPLES=$here/../fio-engine/examples
export TEST_LIB=$here/lib
export TEST_NULLB_DEV=$nullb_dev
export TEST_BENCH_DIR=${TEST_BENCH_DIR:-$here/../build/bench}
export TEST_BENCH_RUN=$here/../bench/run.sh

npass=0
nfail=0
nskip=0
loop_mnt=
loop_devs=()
nullb_md=
nullb_bio=
part_loop=
part_dev=
workdir=$(mktemp -d /tmp/uringcmd-run.XXXXXX)
if [ -n "$results" ]; then
	mkdir -p "$results"
	own_results=0
else
	results=$(mktemp -d /tmp/uringcmd-results.XXXXXX)
	own_results=1
fi
shown=${TEST_RESULTS_HOST:-$results}

note() {
	echo "# $*"
}

cleanup() {
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
	rm -rf "$workdir"
	if [ "$own_results" = 1 ] && [ "$nfail" = 0 ]; then
		rm -rf "$results"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- environment ---------------------------------------------------------

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
	for _ in $(seq 50); do
		[ -b "${part_loop}p1" ] && break
		sleep 0.1
	done
	if [ -b "${part_loop}p1" ]; then
		part_dev=${part_loop}p1
		note "partition $part_dev of a loop device with partscan"
	else
		missing "setup[loop-part]" "no ${part_loop}p1 after losetup --partscan"
	fi
}

# A memory-backed null_blk that discards, made through configfs: the
# module's /dev/nullb0 discards nothing, so the discard tests need this one.
setup_nullb_discard() {
	local cfg=/sys/kernel/config/nullb d attr nullb_md_dev
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

# ---- kernel log ------------------------------------------------------------

kmsg() {
	if [ -w /dev/kmsg ]; then
		printf '%s\n' "$*" 2>/dev/null >/dev/kmsg || true
	fi
}

# have_dmesg: the kernel log can be read; have_marks: and the test
# markers written into it (without, a marker found could be another run's)
have_dmesg=0 have_marks=0
if dmesg >/dev/null 2>&1; then
	have_dmesg=1
	[ ! -w /dev/kmsg ] || have_marks=1
fi

# klog_since_start NAME: klines, the kernel log lines after the last
# "uringcmd-test: start NAME" line; status 3 if there is no such line (the
# log wrapped). Read backwards from the end, in bash: dmesg is the one
# program it runs, into a file, which mapfile reads in blocks (from a
# pipe it would read a byte at a time).
klog_since_start() {
	local m="uringcmd-test: start $1" all i
	klines=()
	dmesg >"$workdir/dmesg" 2>/dev/null || true
	mapfile -t all <"$workdir/dmesg"
	for ((i = ${#all[@]} - 1; i >= 0; i--)); do
		if [[ ${all[i]} == *"$m" ]]; then
			klines=("${all[@]:i+1}")
			return 0
		fi
	done
	return 3
}

# log_since_start NAME: those lines, printed
log_since_start() {
	klog_since_start "$1" || return
	[ "${#klines[@]}" = 0 ] || printf '%s\n' "${klines[@]}"
}

# read_taint VAR: the kernel's taint flags into VAR
read_taint() {
	local _t=0
	{ read -r _t </proc/sys/kernel/tainted; } 2>/dev/null || _t=0
	printf -v "$1" '%s' "$_t"
}

# nap SECONDS: sleep(1) without a fork. A test costs the programs run
# around it, and under KASAN on TCG each fork and exec takes a third of a
# second: nap reads, with a timeout, a FIFO that no one writes.
mkfifo "$workdir/never"
exec {never_fd}<>"$workdir/never"
nap() {
	read -r -t "$1" -u "$never_fd" _ || true
}

# ---- running one test ----------------------------------------------------

# run_with_deadline OUTFILE CMD...: run CMD under timeout(1), output to
# OUTFILE. Returns CMD's status, 124/137 on timeout, or 250 if it is still
# there stuck_s after its SIGKILL (stuck in the kernel); then it is left
# behind.
stuck_s=$((60 * ${TEST_TIMEOUT_SCALE:-1}))
run_with_deadline() {
	local out=$1 pid rc=0 deadline=$((SECONDS + timeout_s + 10 + stuck_s))
	shift
	# the subshell keeps bash's "Segmentation fault" notices in $out
	(timeout -k 10 "$timeout_s" "$@" </dev/null >"$out" 2>&1 {never_fd}<&-; exit $?) 2>>"$out" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			return 250
		fi
		nap 0.1
	done
	wait "$pid" || rc=$?
	return "$rc"
}

# to_safe VAR NAME: NAME as a file name in the results folder, into VAR
to_safe() {
	local _s=${2//[][]/.}
	_s=${_s//\//_}
	_s=${_s// /-}
	printf -v "$1" '%s' "${_s%.}"
}

# last_line VAR FILE: FILE's last non-empty line, without the "prog: FAIL: "
# style prefix, into VAR
last_line() {
	local _lines _i _l _re='^[A-Za-z0-9_.-]*: (FAIL|SKIP|error): '
	printf -v "$1" '%s' ''
	mapfile -t _lines <"$2" 2>/dev/null || return 0
	for ((_i = ${#_lines[@]} - 1; _i >= 0; _i--)); do
		_l=${_lines[_i]}
		[[ $_l =~ ^[[:space:]]*$ ]] && continue
		[[ $_l =~ $_re ]] && _l=${_l:${#BASH_REMATCH[0]}}
		printf -v "$1" '%s' "$_l"
		return 0
	done
}

verdict() {
	local v=$1 name=$2 reason=${3:-} safe
	case $v in
	PASS)
		npass=$((npass + 1))
		echo "PASS $name"
		;;
	FAIL)
		# run_test and fail_step keep these two files
		to_safe safe "$name"
		nfail=$((nfail + 1))
		echo "FAIL $name: ${reason:-failed} (output: $shown/$safe.log, kernel log: $shown/$safe.dmesg)"
		;;
	SKIP)
		nskip=$((nskip + 1))
		echo "SKIP $name: ${reason:-skipped}"
		;;
	esac
}

# fail_step NAME REASON [OUTPUT-FILE]: FAIL what is not a test program
# (setup, teardown, kmemleak), keeping its output (OUTPUT-FILE, else
# REASON) and the kernel log's last 300 lines where a test's files go.
fail_step() {
	local name=$1 reason=$2 file=${3:-} safe
	to_safe safe "$name"
	if [ -n "$file" ] && [ -f "$file" ]; then
		cp "$file" "$results/$safe.log"
	else
		printf '%s\n' "$reason" >"$results/$safe.log"
	fi
	if [ "$have_dmesg" = 1 ]; then
		dmesg | tail -n 300 >"$results/$safe.dmesg"
	else
		echo "(dmesg unreadable)" >"$results/$safe.dmesg"
	fi
	verdict FAIL "$name" "$reason"
}

# run_test NAME CMD...; with known_report set to a function name, a kernel
# log that function accepts (KLOG as its argument) is a note, not a FAIL.
# CMD's output and its kernel log go straight to the results folder; no
# other program runs but dmesg (see nap).
run_test() {
	local name=$1 out klog splat='' taint0 taint1 rc=0 kst=0 safe last line
	shift
	to_safe safe "$name"
	out=$results/$safe.log
	klog=$results/$safe.dmesg

	kmsg "uringcmd-test: start $name"
	read_taint taint0
	run_with_deadline "$out" "$@" || rc=$?
	nap "$settle"
	read_taint taint1

	klines=()
	if [ "$have_marks" = 1 ]; then
		klog_since_start "$name" || kst=$?
	fi
	kmsg "uringcmd-test: end $name rc=$rc"
	if [ "${#klines[@]}" = 0 ]; then
		: >"$klog"
	else
		printf '%s\n' "${klines[@]}" >"$klog"
	fi
	for line in ${klines[@]+"${klines[@]}"}; do
		if [[ $line =~ $SPLAT_RE ]]; then
			splat=$line
			break
		fi
	done
	if [ -n "$splat" ] && [ -n "${known_report:-}" ] && "$known_report" "$klog"; then
		note "$name: the known report ($known_report), allowed"
		splat=
	fi

	if [ -n "$splat" ]; then
		verdict FAIL "$name" "kernel log: $splat"
	elif [ "$taint0" != "$taint1" ]; then
		verdict FAIL "$name" "kernel taint changed from $taint0 to $taint1"
	elif [ "$kst" = 3 ]; then
		verdict FAIL "$name" "start marker missing from the kernel log (log overrun?)"
	else
		last_line last "$out"
		case $rc in
		0)	verdict PASS "$name" ;;
		77)	verdict SKIP "$name" "$last" ;;
		124|137) verdict FAIL "$name" "timed out after ${timeout_s}s" ;;
		250)	verdict FAIL "$name" "still there ${stuck_s}s after its SIGKILL (stuck in the kernel?)" ;;
		1)	verdict FAIL "$name" "$last" ;;
		*)	if [ "$rc" -gt 128 ] && [ "$rc" -lt 160 ]; then
				verdict FAIL "$name" "killed by SIG$(kill -l $((rc - 128)))"
			else
				verdict FAIL "$name" "exit status $rc${last:+: $last}"
			fi
			;;
		esac
	fi
}

selected() {
	local pat
	[ -n "${TEST_ONLY:-}" ] || return 0
	for pat in $TEST_ONLY; do
		# shellcheck disable=SC2254 # pat is a pattern on purpose
		case $1 in
		$pat) return 0 ;;
		esac
	done
	return 1
}

# ---- NVMe over fabrics ---------------------------------------------------

# The nvme_bdev_* tests again on the head nodes of an nvmet subsystem in
# this guest, reached over loop and tcp, then fabrics_paths, which removes
# paths and the slow namespace under load; the target is torn down after.
run_fabrics() {
	local heads head slow other t dev err=$workdir/nvmet.err fuzz_args ctrls
	[ "${TEST_FABRICS:-1}" = 1 ] || return 0
	# any test that runs here, named alone or by a pattern
	dev=
	for t in fabrics_paths nvme_bdev_admin nvme_bdev_io nvme_bdev_errors \
		nvme_bdev_load nvme_bdev_faults; do
		! selected "$t" || dev=1
	done
	[ -n "$dev" ] || { selected uring_fuzz && [ "${TEST_FUZZ_NVMET:-0}" = 1 ]; } || return 0
	[ -x "$bindir/fabrics_paths" ] || return 0
	ntests=$((ntests + 1))
	if ! heads=$("$here/nvmet.sh" up 2>"$err"); then
		fail_step "nvmet setup" "$(tail -n 1 "$err")" "$err"
		"$here/nvmet.sh" down 2>/dev/null || true
		return 0
	fi
	# the file namespace's head, and the slow namespace's (tests/nvmet.sh)
	# for the tests of faults with commands in flight: there they stay in
	# flight long enough
	# with nvme_core.multipath=N, no heads: the loop controller's nodes,
	# then the tcp controller's node of namespace 1 (other), each on its
	# transport's own blk_mq_ops->uring_cmd
	read -r head slow other <<<"$heads"
	if [ -n "$other" ]; then
		note "nvmet subsystem over loop and tcp, no multipath: /dev/$head, /dev/$slow (slow) over loop, /dev/$other over tcp"
	else
		note "nvmet subsystem over loop and tcp: head nodes /dev/$head, /dev/$slow (slow)"
	fi
	for t in nvme_bdev_admin nvme_bdev_io nvme_bdev_errors nvme_bdev_load nvme_bdev_faults; do
		dev=$head
		[ "$t" != nvme_bdev_faults ] || dev=$slow
		if [ -x "$bindir/$t" ] && selected "$t"; then
			run_test "${t}[nvmet-$dev]" "$bindir/$t" "/dev/$dev"
			if [ -n "$other" ] && [ "$t" != nvme_bdev_faults ]; then
				run_test "${t}[nvmet-tcp-$other]" "$bindir/$t" "/dev/$other"
			fi
		fi
	done
	# the fuzzer on the file namespace's head, its ng and both
	# controllers: no writes; fabrics commands are slow.
	# Only when asked: on 6.1 it exhausts the guest's memory (an open
	# finding, tests/fuzz/README.md), which would end the boot.
	if [ -x "$bindir/uring_fuzz" ] && selected uring_fuzz &&
		[ "${TEST_FUZZ_NVMET:-0}" = 1 ]; then
		fuzz_opts $(( ${TEST_FUZZ_COUNT:-20000} / 20 )) 100
		subsys_ctrls "/dev/$head"
		timeout_s=$((timeout_s * 3)) run_test "uring_fuzz[nvmet-$head]" \
			"$bindir/uring_fuzz" "${fuzz_args[@]}" "/dev/$head" "/dev/ng${head#nvme}" \
			"${ctrls[@]}"
	fi
	if selected fabrics_paths; then
		run_test "fabrics_paths[nvmet-$slow]" \
			env TEST_NVMET="$here/nvmet.sh" "$bindir/fabrics_paths" "/dev/$slow"
		# under lockdep with the one report it trips allowed: the run
		# is last of the fabrics tests, since lockdep is off after it
		known_report=known_ns_remove_report \
		run_test "fabrics_paths[nvmet-$slow,ns-remove]" \
			env TEST_NVMET="$here/nvmet.sh" TEST_LOCKDEP_NS_REMOVE=1 \
			"$bindir/fabrics_paths" "/dev/$slow" ns-remove
	fi
	teardown_nvmet
}

# Tear the nvmet target down under a kernel log marker, as a test is run:
# a splat there fails, but for the report 6.1 prints on the lockdep kernel
# when an nvme-tcp controller of an in-kernel nvmet-tcp target is deleted
# (nvmet_tcp_release_queue_work, drivers-nvme/README.md).
teardown_nvmet() {
	local err=$workdir/nvmet.err klog=$workdir/klog rc=0 splat safe
	kmsg "uringcmd-test: start nvmet-teardown"
	"$here/nvmet.sh" down 2>"$err" || rc=$?
	nap "$settle"
	: >"$klog"
	if [ "$have_marks" = 1 ]; then
		log_since_start nvmet-teardown >"$klog" || true
	fi
	kmsg "uringcmd-test: end nvmet-teardown rc=$rc"

	if known_teardown_report "$klog"; then
		note "nvmet teardown: the known 6.1 nvmet-tcp lockdep report"
		splat=
	else
		# the first splat line that is not part of a lockdep report
		splat=$(grep -E "$SPLAT_RE" "$klog" | grep -v -e "$LOCKDEP_RE" -e 'Call Trace:' |
			head -n 1 || true)
		[ -n "$splat" ] || splat=$(grep -E -m 1 "$SPLAT_RE" "$klog" || true)
		splat=${splat:+kernel log: $splat}
	fi
	if [ -z "$splat" ] && [ "$rc" != 0 ]; then
		if [ "$strict" != 1 ]; then
			note "nvmet teardown: $(tail -n 1 "$err")"
			return 0
		fi
		splat="nvmet.sh down exited $rc: $(tail -n 1 "$err")"
	fi
	[ -n "$splat" ] || return 0
	to_safe safe "nvmet teardown"
	cp "$err" "$results/$safe.log"
	cp "$klog" "$results/$safe.dmesg"
	verdict FAIL "nvmet teardown" "$splat"
}

# known_ns_remove_report KLOG: its one splat is 6.1's lockdep report for
# the last close of a head whose namespace is gone (nvme_mpath_remove_disk()
# flushing partition_scan_work under open_mutex, drivers-nvme/README.md)
known_ns_remove_report() {
	[ "$(grep -c -e "$LOCKDEP_RE" "$1")" = 1 ] &&
		grep -q nvme_mpath_remove_disk "$1" &&
		grep -q partition_scan_work "$1" &&
		! grep -E "$SPLAT_RE" "$1" | grep -q -v -e "$LOCKDEP_RE" -e 'Call Trace:'
}

# known_teardown_report KLOG: its one splat is a lockdep report through
# nvmet_tcp_release_queue_work (a "Call Trace:" line belongs to every
# report, so only the other kinds of SPLAT_RE lines count)
known_teardown_report() {
	[ "$(grep -c -e "$LOCKDEP_RE" "$1")" = 1 ] &&
		grep -q nvmet_tcp_release_queue_work "$1" &&
		! grep -E "$SPLAT_RE" "$1" | grep -q -v -e "$LOCKDEP_RE" -e 'Call Trace:'
}

# ---- the fuzzer's targets -------------------------------------------------

# scratch_ns NSID: the block node of namespace NSID beside nvme_dev (the
# same subsystem's head, or the same controller), or nothing
scratch_ns() {
	local dir d
	dir=$(dirname "$(readlink -f "/sys/block/$nvme_base")")
	for d in "$dir"/nvme*n*; do
		case ${d##*/} in *c*|*p*) continue ;; esac
		[ "$(cat "$d/nsid" 2>/dev/null)" = "$1" ] && echo "/dev/${d##*/}" && return 0
	done
	return 0
}

# label_scratch DEV: an MS-DOS label with one partition, 2048 to 129023,
# on DEV (a scratch namespace: the fuzzer writes over it afterwards, the
# partition node stays); sets scratch_part to the partition's node
label_scratch() {
	local dev=$1 err=$workdir/label.err
	scratch_part=
	if ! printf '\x83\0\0\0\x00\x08\0\0\x00\xf0\x01\x00' |
			dd of="$dev" bs=1 seek=450 conv=notrunc status=none 2>"$err" ||
		! printf '\x55\xaa' | dd of="$dev" bs=1 seek=510 conv=notrunc status=none 2>"$err" ||
		! blockdev --flushbufs --rereadpt "$dev" 2>"$err"; then
		fail_step "setup[fuzz-scratch]" "labelling $dev: $(tail -n 1 "$err")" "$err"
		return 0
	fi
	for _ in $(seq 50); do
		[ -b "${dev}p1" ] && break
		sleep 0.1
	done
	if [ -b "${dev}p1" ]; then
		scratch_part=${dev}p1
	else
		fail_step "setup[fuzz-scratch]" "no ${dev}p1 after labelling $dev"
	fi
}

# subsys_ctrls DEV: ctrls, /dev/nvmeX of every live controller reaching
# DEV's namespace (a head's paths; a private namespace's one controller)
subsys_ctrls() {
	local base=${1##*/} dir c
	ctrls=()
	dir=$(dirname "$(readlink -f "/sys/block/$base")")
	for c in "$dir"/nvme*; do
		# the controllers' links (nvme0), not the namespaces (nvme0n1)
		[[ ${c##*/} =~ ^nvme[0-9]+$ ]] || continue
		[ ! -c "/dev/${c##*/}" ] || ctrls+=("/dev/${c##*/}")
	done
	# a namespace of one controller: its parent is that controller
	case ${dir##*/} in nvme[0-9]*) ctrls+=("/dev/${dir##*/}") ;; esac
}

# fuzz_opts COUNT [PER-RING]: fuzz_args, the uring_fuzz options but the
# targets: count, seed, commands per ring at most (a short run still sees
# every kind of ring), and failslab where the kernel has it (required on
# the debug kernel)
fuzz_opts() {
	local n=$1
	fuzz_args=(--count "$n" ${2:+--per-ring "$2"})
	[ -z "${TEST_FUZZ_SEED:-}" ] || fuzz_args+=(--seed "$TEST_FUZZ_SEED")
	if [ -d /sys/kernel/debug/failslab ] || [ -e /proc/lockdep ]; then
		fuzz_args+=(--failslab "${TEST_FUZZ_FAILSLAB:-$((n / 20))}")
	fi
}

# ---- main ----------------------------------------------------------------

note "uringcmd tests on $(uname -r), binaries from $bindir"
# for the expected skips of make check (tests/expected-skips)
if [ -e /proc/lockdep ]; then
	note "kernel: debug"
else
	note "kernel: plain"
fi

# Without the kernel log no splat is seen, and every test would pass blind.
if [ "$have_dmesg" = 0 ] || [ ! -w /dev/kmsg ]; then
	if [ "$strict" = 1 ]; then
		fail_step "kernel log" "dmesg unreadable or /dev/kmsg not writable: kernel splats cannot be detected"
		echo "$npass passed, $nfail failed, $nskip skipped"
		exit 1
	fi
	note "dmesg unreadable or /dev/kmsg not writable: kernel splats may go undetected"
fi
bring_up_lo

# NVMe namespaces (and multipath heads) appear after the controllers'
# asynchronous scans, which take seconds on a debug kernel under TCG.
# TEST_NVME_DEV=auto: the first namespace 1 there is (a multipath head is
# named after its subsystem, whose number depends on which controller of it
# probed first).
first_ns1() {
	local d
	for d in /sys/block/nvme*n1; do
		case ${d##*/} in *c*) continue ;; esac
		[ -e "$d" ] && echo "/dev/${d##*/}" && return 0
	done
	echo /dev/nvme0n1
}
if ls /sys/class/nvme/nvme* >/dev/null 2>&1; then
	waited=0
	while [ "$waited" -lt $(( 120 * ${TEST_TIMEOUT_SCALE:-1} )) ]; do
		[ "${TEST_NVME_DEV:-}" != auto ] || nvme_dev=$(first_ns1)
		[ ! -b "$nvme_dev" ] || break
		sleep 1
		waited=$((waited + 1))
	done
	[ "$waited" = 0 ] || note "waited ${waited}s for $nvme_dev"
fi
if [ "${TEST_NVME_DEV:-}" = auto ]; then
	nvme_base=${nvme_dev##*/}
	nvme_char=/dev/ng${nvme_base#nvme}
	export TEST_NVME_DEV=$nvme_dev TEST_NVME_CHAR=$nvme_char
	note "NVMe namespace under test: $nvme_dev"
fi
if [ "${TEST_REQUIRE_NVME:-0}" = 1 ] && [ ! -b "$nvme_dev" ]; then
	fail_step "nvme setup" "$nvme_dev did not appear"
fi

# Namespaces of the controller under test, beyond the first: the
# controller scans them one after the other.
ctrl_namespaces() {
	local c=${nvme_ctrl##*/} d
	for d in /sys/class/nvme/"$c"/"$c"n*; do
		[ -e "$d/nsid" ] && echo "${d##*/}"
	done
}
format_devs=() fuzz_formats=()
if [ -n "${TEST_NVME_NS_COUNT:-}" ]; then
	waited=0
	while [ "$(ctrl_namespaces | wc -l)" -lt "$TEST_NVME_NS_COUNT" ] &&
		[ "$waited" -lt $(( 60 * ${TEST_TIMEOUT_SCALE:-1} )) ]; do
		sleep 1
		waited=$((waited + 1))
	done
	have=$(ctrl_namespaces | wc -l)
	if [ "$have" -lt "$TEST_NVME_NS_COUNT" ]; then
		fail_step "nvme setup" "$nvme_ctrl has $have namespaces, expected $TEST_NVME_NS_COUNT"
	fi
	for ns in $(ctrl_namespaces); do
		# every formatted namespace, block node and ngXnY, for the fuzzer
		if [ "/dev/$ns" != "$nvme_dev" ] && [ "$ns" != "${nvme_ctrl##*/}n2" ]; then
			fuzz_formats+=("/dev/$ns" "/dev/ng${ns#nvme}")
		fi
		[ "$(cat "/sys/block/$ns/size")" != 0 ] || continue
		if [ "$(cat "/sys/block/$ns/queue/logical_block_size")" != 512 ] ||
			[ "$(cat "/sys/block/$ns/queue/zoned")" != none ]; then
			format_devs+=("/dev/$ns")
		fi
	done
	note "formatted namespaces for the block tests: ${format_devs[*]:-none}"
fi

# The default block devices are for the block_* tests and the fuzzer.
default_devs_used=0
for bin in "$bindir"/block_* "$bindir"/uring_fuzz; do
	if [ -x "$bin" ] && selected "${bin##*/}"; then
		[ "${bin##*/}" = uring_fuzz ] && [ "${TEST_FUZZ_TARGETS:-}" = nvme ] ||
			default_devs_used=1
	fi
done
if [ "${TEST_BLOCK_DEVS:-}" = nvme ]; then
	block_devs=("$nvme_dev")
elif [ -n "${TEST_BLOCK_DEVS:-}" ]; then
	read -r -a block_devs <<<"$TEST_BLOCK_DEVS"
else
	setup_loops
	block_devs=("$nvme_dev")
	if [ -b "$nullb_dev" ]; then
		block_devs+=("$nullb_dev")
	else
		missing "setup[${nullb_dev##*/}]" "$nullb_dev does not exist (CONFIG_BLK_DEV_NULL_BLK, kernel/guest.config)"
		# without TEST_STRICT its tests skip, as they say why
		[ "$strict" = 1 ] || block_devs+=("$nullb_dev")
	fi
	setup_nullb_discard
	setup_nullb_bio
	block_devs+=("${loop_devs[@]}" ${part_dev:+"$part_dev"} ${format_devs[@]+"${format_devs[@]}"})
fi
note "block devices: ${block_devs[*]}"

# Leaks show up only in a scan, for objects older than a few seconds; a
# TEST_ONLY run scans only under TEST_STRICT (make check's second boot).
scan_leaks=0
if [ -w /sys/kernel/debug/kmemleak ] &&
	{ [ -z "${TEST_ONLY:-}" ] || [ "$strict" = 1 ]; }; then
	scan_leaks=1
	echo clear >/sys/kernel/debug/kmemleak || true
fi

ntests=0
for bin in "$bindir"/*; do
	if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then
		continue
	fi
	test=${bin##*/}
	case $test in fabrics_*) continue ;; esac	# run_fabrics runs these
	selected "$test" || continue
	ntests=$((ntests + 1))
	case $test in
	block_*)
		for dev in "${block_devs[@]}"; do
			run_test "${test}[${dev##*/}]" "$bin" "$dev"
		done
		;;
	bench_*)
		# every benchmark point and three fio jobs, short but many
		timeout_s=$((timeout_s * 3)) run_test "$test" "$bin" \
			"$nvme_dev" "$nvme_char" "$nvme_ctrl"
		;;
	nvme_*|fio_*)
		run_test "$test" "$bin" "$nvme_dev" "$nvme_char" "$nvme_ctrl"
		;;
	uring_fuzz)
		fuzz_targets=() fuzz_scratch=()
		if [ -n "${TEST_FUZZ_SCRATCH_NSID:-}" ]; then
			scratch=$(scratch_ns "$TEST_FUZZ_SCRATCH_NSID")
			if [ -b "$scratch" ]; then
				note "scratch namespace for the fuzzer: $scratch"
				fuzz_scratch=(--scratch "$scratch")
				label_scratch "$scratch"
				fuzz_targets+=("/dev/ng${scratch#/dev/nvme}" ${scratch_part:+"$scratch_part"})
			else
				fail_step "setup[fuzz-scratch]" "no namespace $TEST_FUZZ_SCRATCH_NSID beside $nvme_dev"
			fi
		fi
		if [ "${TEST_FUZZ_TARGETS:-}" = nvme ]; then
			subsys_ctrls "$nvme_dev"
			for dev in "$nvme_dev" "$nvme_char" "${ctrls[@]}"; do
				[ -e "$dev" ] && fuzz_targets+=("$dev")
			done
		else
			for dev in "$nvme_dev" "$nvme_char" "$nvme_ctrl" "$nullb_dev" "${loop_devs[@]}" \
				${part_dev:+"$part_dev"} ${nullb_bio:+/dev/nullb_bio} \
				${fuzz_formats[@]+"${fuzz_formats[@]}"}; do
				[ -e "$dev" ] && fuzz_targets+=("$dev")
			done
		fi
		fuzz_opts "${TEST_FUZZ_COUNT:-20000}" "${TEST_FUZZ_PER_RING:-}"
		# a long run of many commands: three test timeouts
		timeout_s=$((timeout_s * 3)) run_test "$test" "$bin" \
			"${fuzz_args[@]}" ${fuzz_scratch[@]+"${fuzz_scratch[@]}"} "${fuzz_targets[@]}"
		;;
	*)
		run_test "$test" "$bin"
		;;
	esac
done

run_fabrics

if [ "$ntests" = 0 ]; then
	fail_step "test binaries" "none in $bindir${TEST_ONLY:+ matching TEST_ONLY=$TEST_ONLY}"
fi

if [ "$scan_leaks" = 1 ]; then
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak || true
	leaks=$(grep -c 'unreferenced object' /sys/kernel/debug/kmemleak || true)
	if [ "${leaks:-0}" != 0 ]; then
		fail_step kmemleak "$leaks unreferenced objects" /sys/kernel/debug/kmemleak
	else
		verdict PASS kmemleak
	fi
fi

echo "$npass passed, $nfail failed, $nskip skipped"
if [ "$nfail" != 0 ]; then
	exit 1
fi
