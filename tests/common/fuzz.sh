# SPDX-License-Identifier: GPL-2.0
#
# The fuzzer's targets and options: the scratch namespace and its
# partition, a subsystem's controllers, uring_fuzz's arguments.
# Sourced by tests/run.sh, whose variables and helpers (note, fail_step,
# run_test, selected, workdir, strict, ...) these functions use.
# shellcheck shell=bash disable=SC2034,SC2154 # run.sh's variables

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
	if wait_node "${dev}p1"; then
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
