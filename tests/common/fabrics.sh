# SPDX-License-Identifier: GPL-2.0
#
# NVMe over fabrics: the nvme_bdev_* tests and fabrics_paths on the nodes
# of an nvmet subsystem in the guest (tests/nvmet.sh), and its teardown
# under a kernel-log marker.
# Sourced by tests/run.sh, whose variables and helpers (note, fail_step,
# run_test, selected, workdir, strict, ...) these functions use.
# shellcheck shell=bash disable=SC2034,SC2154 # run.sh's variables

# The nvme_bdev_* tests again on the head nodes of an nvmet subsystem in
# this guest, reached over loop and tcp, then fabrics_paths, which removes
# paths and the slow namespace under load; the target is torn down after.
run_fabrics() {
	local heads head slow other t dev err=$workdir/nvmet.err fuzz_args ctrls
	if [ "${TEST_PAIR:-0}" = 1 ]; then
		run_pair
		return 0
	fi
	[ "${TEST_FABRICS:-1}" = 1 ] || return 0
	# any test that runs here, named alone or by a pattern
	dev=
	for t in fabrics_paths fabrics_file_range nvme_bdev_admin nvme_bdev_io \
		nvme_bdev_errors nvme_bdev_load nvme_bdev_faults nvme_perm_matrix; do
		! selected "$t" || dev=1
	done
	[ -n "$dev" ] || { selected uring_fuzz && [ "${TEST_FUZZ_NVMET:-1}" = 1 ]; } || return 0
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
			run_test "${t}[nvmet-$dev]" env TEST_NVME_SLOW="$([ "$dev" = "$slow" ] && echo 1 || echo 0)" \
				"$bindir/$t" "/dev/$dev"
			if [ -n "$other" ] && [ "$t" != nvme_bdev_faults ]; then
				run_test "${t}[nvmet-tcp-$other]" "$bindir/$t" "/dev/$other"
			fi
		fi
	done
	# out-of-range I/O of many segments on the file namespace (its bvec
	# array must be freed: tests/fabrics/fabrics_file_range.c)
	if [ -x "$bindir/fabrics_file_range" ] && selected fabrics_file_range; then
		run_test "fabrics_file_range[nvmet-$head]" "$bindir/fabrics_file_range" "/dev/$head"
		if [ -n "$other" ]; then
			run_test "fabrics_file_range[nvmet-tcp-$other]" \
				"$bindir/fabrics_file_range" "/dev/$other"
		fi
	fi
	# the fuzzer on the file namespace's head, its ng and both
	# controllers: no writes; fabrics commands are slow. Not with
	# TEST_FUZZ_NVMET=0.
	if [ -x "$bindir/uring_fuzz" ] && selected uring_fuzz &&
		[ "${TEST_FUZZ_NVMET:-1}" = 1 ]; then
		fuzz_opts $(( ${TEST_FUZZ_COUNT:-20000} / 20 )) 100
		subsys_ctrls "/dev/$head"
		timeout_s=$((timeout_s * 3)) run_test "uring_fuzz[nvmet-$head]" \
			"$bindir/uring_fuzz" "${fuzz_args[@]}" "/dev/$head" "/dev/ng${head#nvme}" \
			"${ctrls[@]}"
	fi
	if selected fabrics_paths; then
		run_test "fabrics_paths[nvmet-$slow]" \
			env TEST_NVMET="$here/nvmet.sh" "$bindir/fabrics_paths" "/dev/$slow"
	fi
	# the head outlives the controller that created it (loop, connected
	# first): every passthrough path that reads the Commands Supported and
	# Effects log (the ioctl's nvme_passthru_start(), nvme_cmd_allowed()
	# for a caller without CAP_SYS_ADMIN) must read a live path's, not
	# the freed controller's (KASAN on the debug kernel)
	if [ -z "$other" ] && [ -x "$bindir/nvme_perm_matrix" ] && selected nvme_perm_matrix; then
		first_ctrl_gone &&
			run_test "nvme_perm_matrix[nvmet-$head,first-ctrl-gone]" \
				"$bindir/nvme_perm_matrix" "/dev/$head"
	fi
	if selected fabrics_paths; then
		# under lockdep with the one report it trips allowed: the run
		# is last of the fabrics tests, since lockdep is off after it
		known_report=known_ns_remove_report \
		run_test "fabrics_paths[nvmet-$slow,ns-remove]" \
			env TEST_NVMET="$here/nvmet.sh" TEST_LOCKDEP_NS_REMOVE=1 \
			"$bindir/fabrics_paths" "/dev/$slow" ns-remove
	fi
	teardown_nvmet
}

# first_ctrl_gone: the loop controller, whose namespaces created the
# heads, is deleted (fabrics_paths did it, or this does) and gone from
# sysfs; otherwise a failed step and 1.
first_ctrl_gone() {
	local c i=0 err=$workdir/nvmet.err
	c=$("$here/nvmet.sh" ctrl loop 2>"$err") || c=
	if [ -n "$c" ] && ! "$here/nvmet.sh" drop loop 2>"$err"; then
		fail_step "dropping the loop controller" "$(tail -n 1 "$err")" "$err"
		return 1
	fi
	while [ -n "$c" ] && [ -e "/sys/class/nvme/$c" ] && [ "$i" -lt 100 ]; do
		nap 0.1
		i=$((i + 1))
	done
	if [ -n "$c" ] && [ -e "/sys/class/nvme/$c" ]; then
		fail_step "dropping the loop controller" "/sys/class/nvme/$c still there after 10 s"
		return 1
	fi
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

# The host guest of qemu/run-pair.sh (tests/pair.sh host): the head of the
# other guest's namespace is NVME_DEV, and the nvme_bdev_* and block_*
# tests ran on it in run.sh's loop. Here the faults with commands in
# flight (fabrics_pair: the target paused, stopped, a link lost, the
# target killed and rebooted; TEST_PAIR_FAULTS), then the target's kernel
# log over all its boots, then the disconnect under a marker.
run_pair() {
	local f t0 klog=$workdir/target.klog target=${TEST_PAIR_TARGET:-} splat=''
	selected fabrics_pair && [ -x "$bindir/fabrics_pair" ] || return 0
	ntests=$((ntests + 1))
	for f in ${TEST_PAIR_FAULTS:-pause stop link kill}; do
		# a reboot of the target under TCG, and ctrl_loss_tmo to wait
		timeout_s=$((timeout_s * 3)) run_test "fabrics_pair[$f]" \
			"$bindir/fabrics_pair" "$nvme_dev" "$f"
	done
	# the target's kernel log: this boot's dmesg, earlier boots' consoles
	# (loglevel 5: warnings and worse), each must be free of splats
	rm -f "$target"/dmesg.boot*
	: >"$target/dump-req"
	t0=$SECONDS
	while [ -e "$target/dump-req" ] && [ $((SECONDS - t0)) -lt 30 ]; do
		nap 0.2
	done
	if [ -e "$target/dump-req" ]; then
		fail_step "pair_target_klog" "the target did not write its kernel log within 30 s"
	else
		cat "$target"/dmesg.boot* "$target"/console.boot*.log >"$klog" 2>/dev/null || true
		splat=$(grep -E -m 1 "$SPLAT_RE" "$klog" || true)
		if [ -n "$splat" ]; then
			fail_step "pair_target_klog" "target kernel log: $splat" "$klog"
		else
			verdict PASS pair_target_klog
		fi
	fi
	run_test "pair_disconnect" nvme disconnect -n "$TEST_PAIR_NQN"
}
