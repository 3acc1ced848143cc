#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check's own accounting (tests/tally.sh with tests/expected-skips),
# on made-up step logs: the skips a clean run has today pass, and each
# planted fault turns the verdict red with its FAIL line. One PASS/FAIL
# line per case; -v also prints what the judge said.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
verbose=0
[ "${1:-}" != -v ] || verbose=1
work=$(mktemp -d /tmp/uringcmd-accounting.XXXXXX)
trap 'rm -rf "$work"' EXIT
failed=0

# What a clean run prints today, plain and debug kernel.
hotplug="SKIP nvme_hotplug_del: this QEMU cannot unplug an NVMe namespace ({\"error\": {\"class\": \"GenericError\", \"desc\": \"Bus 'nvme0' does not support hotplugging\"}}); 64 of 64 commands completed"
fault_inject='SKIP nvme_fault_inject: no /sys/kernel/debug/nvme0n1/fault_inject/status: needs CONFIG_FAULT_INJECTION_DEBUG_FS (make check DEBUG=1)'
# no longer expected: fabrics_paths' ns-remove runs under lockdep now
ns_remove_why='lockdep kernel: closing a head whose namespace is gone trips a 6.1 lockdep report (nvme_mpath_remove_disk flushing partition_scan_work under open_mutex)'
ns_remove="SKIP fabrics_paths[nvmet-nvme1n2,ns-remove]: $ns_remove_why"
# the debug run's tests of user-space programs (run.sh's TEST_USER_SPACE=0)
user_why='tests a user-space program, run on the plain kernels (TEST_USER_SPACE=0: make check DEBUG=1)'

# step KIND NAME STATUS LINE...: a step that printed LINEs and exited STATUS
step() {
	local kind=$1 name=$2 status=$3
	shift 3
	printf '%s\n' "$@" >"$work/$name.log"
	printf '%s\t%s\t%s\t%s\n' "$kind" "$name" "$status" "$work/$name.log" >>"$work/steps"
}

gates_pass() {
	step gate checkpatch 0 'PASS checkpatch[patches/0001-x.patch]'
	step gate bisect 0 'PASS bisect[block: x]'
}

# judge CASE KERNEL WANT-STATUS WANT-LINE: run the judge on the steps made
# since the last case; its status and a line of its output must be these
judge() {
	local case=$1 kernel=$2 want=$3 line=$4 rc=0
	"$here/tally.sh" -k "$kernel" -a "$here/expected-skips" "$work/steps" \
		>"$work/out" 2>&1 || rc=$?
	[ "$verbose" = 0 ] || sed "s/^/  $case: /" "$work/out"
	if [ "$rc" != "$want" ] || ! grep -q -F -x -e "$line" "$work/out"; then
		echo "FAIL check_accounting[$case]: the judge exited $rc, wanted $want and \"$line\"; it said: $(tr '\n' ' ' <"$work/out")"
		failed=1
	else
		echo "PASS check_accounting[$case]"
	fi
	: >"$work/steps"
}

: >"$work/steps"

gates_pass
step guest guest 0 'PASS block_query_batch[nullb0]' "$hotplug" "$fault_inject" \
	'guest: 1 passed, 0 failed, 2 skipped'
judge clean-plain plain 0 '3 passed, 0 failed, 2 skipped'

gates_pass
step guest guest 0 '# kernel: debug' 'PASS block_query_batch[nullb0]' "$hotplug" \
	"SKIP bench_programs: $user_why" "SKIP check_device: $user_why" \
	"SKIP fio_meta_pi: $user_why" \
	'PASS fabrics_paths[nvmet-nvme1n2,ns-remove]' 'guest: 2 passed, 0 failed, 4 skipped'
judge clean-debug plain 0 '4 passed, 0 failed, 4 skipped'

# bench_programs SKIPs on 6.12 (make bench is 6.1's), on 6.1 never
bench612='make bench runs on Linux 6.1 only, and this kernel is 6.12.118+: its programs are tested on 6.1'
bench61='make bench runs on Linux 6.1 only, and this kernel is 6.1.192+: its programs are tested on 6.1'
gates_pass
step guest guest 0 'PASS block_query_batch[nullb0]' "SKIP bench_programs: $bench612" \
	'guest: 1 passed, 0 failed, 1 skipped'
judge bench-skip-on-6.12 plain 0 '3 passed, 0 failed, 1 skipped'
gates_pass
step guest guest 0 'PASS block_query_batch[nullb0]' "SKIP bench_programs: $bench61" \
	'guest: 1 passed, 0 failed, 1 skipped'
judge bench-skip-on-6.1 plain 1 "FAIL bench_programs: unexpected skip: $bench61"

# a plain kernel runs them all: the same skip there is a failure
gates_pass
step guest guest 0 'PASS block_query_batch[nullb0]' "SKIP fio_meta_pi: $user_why" \
	'guest: 1 passed, 0 failed, 1 skipped'
judge user-space-skip-on-plain plain 1 "FAIL fio_meta_pi: unexpected skip: $user_why"

gates_pass
step guest guest 0 '# kernel: debug' 'PASS block_query_batch[nullb0]' "$hotplug" "$ns_remove" \
	'guest: 1 passed, 0 failed, 2 skipped'
judge ns-remove-skip-now-unexpected plain 1 "FAIL fabrics_paths[nvmet-nvme1n2,ns-remove]: unexpected skip: $ns_remove_why"

step gate checkpatch 0 'PASS checkpatch[patches/0001-x.patch]'
step gate bisect 1 'kernel/bisect.sh: make prepare failed (see build/bisect/prepare.log)'
step guest guest 0 'PASS block_query_batch[nullb0]' 'guest: 1 passed, 0 failed, 0 skipped'
judge gate-exits-1-silently plain 1 "FAIL bisect: exited 1 without a FAIL line: kernel/bisect.sh: make prepare failed (see build/bisect/prepare.log) (output: $work/bisect.log)"

gates_pass
step guest guest 2 'run.sh: build/tests: not a directory'
judge guest-exits-2 plain 1 "FAIL guest: exited 2 without its summary line (output: $work/guest.log)"

gates_pass
step guest guest 0 'PASS block_query_batch[loop0]' \
	'SKIP block_query_batch[nullb0]: /dev/nullb0 does not exist' \
	'guest: 1 passed, 0 failed, 1 skipped'
judge unexpected-skip plain 1 'FAIL block_query_batch[nullb0]: unexpected skip: /dev/nullb0 does not exist'

gates_pass
step guest guest 0 '# kernel: debug' 'PASS block_query_batch[nullb0]' "$fault_inject" \
	'guest: 1 passed, 0 failed, 1 skipped'
judge skip-expected-on-other-kernel plain 1 "FAIL nvme_fault_inject: unexpected skip: ${fault_inject#SKIP nvme_fault_inject: }"

gates_pass
step guest guest 0 'guest: 0 passed, 0 failed, 0 skipped'
judge only-host-passes plain 1 "FAIL guest: no test passed (output: $work/guest.log)"

gates_pass
step guest guest 1 'PASS block_query_batch[nullb0]' 'guest: 1 passed, 0 failed, 0 skipped'
judge guest-exits-1-nothing-failed plain 1 "FAIL guest: exited 1 with 0 failed (output: $work/guest.log)"

gates_pass
step guest guest 0 'PASS block_query_batch[nullb0]' 'guest: 2 passed, 0 failed, 0 skipped'
judge guest-lines-lost plain 1 "FAIL guest: its summary says 2 passed, 0 failed, 0 skipped, its lines 1, 0, 0 (output: $work/guest.log)"

exit "$failed"
