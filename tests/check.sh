#!/bin/bash
# make check: the host-side checks (one of which boots make run's kernel,
# another make shell's), then the guest suite in three QEMU boots and,
# with --pair-kernel (make check's plain 6.1 run), a pair of guests
# (make pair).
# Prints a PASS/FAIL/SKIP line per test and closes with the totals line.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel='' timeout=1200 test_timeout=120 gates=0 given=0 pair_kernel=''
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--pair-kernel) pair_kernel=$2; shift ;;
	--gates) gates=1 ;;
	--given-kernel) given=1 ;;
	--timeout) timeout=$2; shift ;;
	--test-timeout) test_timeout=$2; shift ;;
	*) echo "check.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

results=$top/build/results/check
rm -rf "$results"
mkdir -p "$results"
log=$results/summary.log
steps=$results/steps
: >"$log"
: >"$steps"

# gate NAME CMD...: one host-side check; what it prints (stderr too) goes
# to the terminal, $results/NAME.log and the summary, its status to the
# tally (tests/tally.sh: a non-zero status without a FAIL line fails).
gate() {
	local name=$1 status=0 t0
	shift
	t0=$(date +%s)
	printf '==> gate %s\n' "$name" >&2
	"$@" 2>&1 | tee -a "$log" "$results/$name.log" || status=$?
	printf 'gate\t%s\t%s\t%s\n' "$name" "$status" "$results/$name.log" >>"$steps"
	printf '==> gate %s: done in %s s\n' "$name" "$(( $(date +%s) - t0 ))" >&2
}

# Host side, with --gates (the plain run of make check; none of these
# depends on the guest kernel): the tally's and run.sh's own self-tests;
# checkpatch over both series; every commit of both series compiled on its
# own, and W=1 + sparse on the files they touch, base against tip; the fio
# engine on this kernel. The newcomer's commands: the pin check with a
# stubbed apt, make help, make install of the library and a program built
# against it, the library and the programs built against Debian 13's
# liburing 2.9 (tests/host/liburing_trixie.sh), KERNEL= with a foreign
# kernel's config, make run as a first
# one meets it (kernel/run.config's kernel, one boot; not with
# --given-kernel, make check KERNEL=, which builds no kernel); make deb
# from this kernel's config, its packaged kernel booted (tests/host/deb.sh;
# not with --given-kernel either, the config being the built kernel's). In both
# runs: make shell through a pty, on this run's kernel; in the plain one,
# KVM=1 through the targets that boot (tests/host/kvm.sh).
# KVER=6.12 (make check KVER=6.12): the gates of that series and make run
# on its kernel; the others check programs and scripts that are the same
# for both kernels, which 6.1's make check runs.
kver=${KVER:-6.1}
if [ "$gates" = 1 ] && [ "$kver" != 6.1 ]; then
	gate checkpatch "$top/tests/checkpatch.sh"
	gate bisect "$top/kernel/bisect.sh"
	gate warnings "$top/kernel/warnings.sh"
	[ "$given" = 1 ] || gate make_run "$top/tests/host/make_run.sh"
elif [ "$gates" = 1 ]; then
	gate check_accounting "$top/tests/host/check_accounting.sh"
	gate run_harness "$top/tests/host/run_harness.sh"
	gate checkpatch "$top/tests/checkpatch.sh"
	gate bisect "$top/kernel/bisect.sh"
	gate warnings "$top/kernel/warnings.sh"
	gate fio-host "$top/tests/fio-host.sh"
	gate pin_check "$top/tests/host/pin_check.sh"
	gate make_help "$top/tests/host/make_help.sh"
	gate lib_install "$top/tests/host/lib_install.sh"
	gate lib_pi "$top/tests/host/lib_pi.sh"
	gate liburing_trixie "$top/tests/host/liburing_trixie.sh"
	gate foreign_kernel "$top/tests/host/foreign_kernel.sh"
	[ "$given" = 1 ] || gate make_run "$top/tests/host/make_run.sh"
	[ "$given" = 1 ] || gate deb "$top/tests/host/deb.sh"
fi
gate make_shell "$top/tests/host/make_shell.sh" --kernel "$kernel" --results "$results/make_shell"
[ "$gates" = 0 ] || [ "$kver" != 6.1 ] || gate kvm "$top/tests/host/kvm.sh" --kernel "$kernel"

# guest NAME TAG RUN-NVME-OPTIONS... -- RUN.SH-ENV...: one boot running
# tests/run.sh strictly (TEST_STRICT=1: a missing default device or kernel
# log fails); TAG, if not empty, is appended to every test name. Its
# output goes to $results/NAME.log and the summary, its status to the
# tally (which wants its summary line and a status of 0 or 1).
guest() {
	local name=$1 tag=$2 opts=() status=0
	shift 2
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	"$top/qemu/run-nvme.sh" -k "$kernel" --timeout "$timeout" "${opts[@]}" \
		--results "$results/$name" -- \
		env TEST_TIMEOUT="$test_timeout" TEST_CQE_TIMEOUT_MS=$((test_timeout * 250)) \
		TEST_FUZZ_COUNT="${TEST_FUZZ_COUNT:-20000}" ${TEST_FUZZ_SEED:+TEST_FUZZ_SEED="$TEST_FUZZ_SEED"} \
		TEST_STRICT=1 TEST_RESULTS_HOST="$results/$name/tests" \
		${TEST_FIO_NEXT+TEST_FIO_NEXT="$TEST_FIO_NEXT"} "$@" \
		"$top/tests/run.sh" "$top/build/tests" /run/results/tests |
		sed -u -e "s/^[0-9]* passed, [0-9]* failed.*/$name: &/" \
			-e "${tag:+s/^\(PASS\|FAIL\|SKIP\) \([^ :]*\)/\1 \2[$tag]/}" |
		tee -a "$log" "$results/$name.log" || status=$?
	printf 'guest\t%s\t%s\t%s\t%s\n' "$name" "$status" "$results/$name.log" \
		"console: $results/$name/console.log" >>"$steps"
}

# The suite, in a guest with two namespaces on one controller with a poll
# queue, and after them one of each format users meet (qemu/check-formats,
# shared with make test and make shell). It also sets up an nvmet target
# over loop and tcp in the guest. The fio_* tests run twice, with fio 3.33
# and fio 3.41 (run.sh's TEST_FIO_NEXT); make check DEBUG=1 and make check
# KVER=6.12 set TEST_FIO_NEXT empty: what differs between the fios is user
# space, which the plain 6.1 run covers, and CI's time goes to the kernels.
formats=()
while IFS= read -r f; do
	formats+=(--ns "$f")
done < <(sed -n '/^[a-z]/p' "$top/qemu/check-formats")
guest guest '' -n 2 "${formats[@]}" --qmp-agent --append nvme.poll_queues=1 -- \
	TEST_REQUIRE_NVME=1 TEST_NVME_NS_COUNT=$((2 + ${#formats[@]} / 2))
# The NVMe tests again on a QEMU nvme-subsys: two controllers share the
# namespace, so its block node is a multipath head (nvme0n1 or nvme1n1,
# after whichever controller probed first), and the block tests on that
# head. Then the fuzzer on the heads, their ng and both controllers, a
# twentieth of the first boot's commands: namespace 2, shared too, with 16
# bytes of separate metadata a block and used by no test, is its scratch
# namespace (NVMe writes with metadata allowed, a partition on it).
# Namespaces 3 and 4, with separate metadata and with PI type 1, are
# heads too: the metadata and PI tests on them.
guest guest-subsys subsys-head -n 1 --subsys --ns ms=16,shared=on,size=64 \
	--ns ms=16,shared=on,size=64 --ns ms=8,pi=1,shared=on,size=64 --append nvme.poll_queues=1 -- \
	TEST_ONLY='nvme_bdev_* block_* nvme_meta_* nvme_pi uring_fuzz' TEST_BLOCK_DEVS=nvme \
	TEST_FABRICS=0 TEST_REQUIRE_NVME=1 TEST_NVME_DEV=auto \
	TEST_FUZZ_TARGETS=nvme TEST_FUZZ_SCRATCH_NSID=2 TEST_FUZZ_COUNT=$(( ${TEST_FUZZ_COUNT:-20000} / 20 )) TEST_FUZZ_PER_RING=200

# The block-node NVMe tests once more without multipath
# (nvme_core.multipath=N, as hosts that use dm-multipath run): the nvmet
# namespaces then have a block node per controller, served by the loop and
# tcp hosts' own blk_mq_ops->uring_cmd (drivers-nvme's fabrics patch),
# which the heads of the first boot never reach.
guest guest-nompath nompath -n 1 --append "nvme.poll_queues=1 nvme_core.multipath=N" -- \
	TEST_ONLY='nvme_bdev_admin nvme_bdev_io' TEST_BLOCK_DEVS=nvme TEST_REQUIRE_NVME=1

# Two guests (make pair, qemu/run-pair.sh) on the pair's own kernel
# (kernel/pair.config): nvme-tcp from one to the other over two private
# links, the block-node tests on the remote head, then the target paused,
# stopped, killed and rebooted and a link lost with commands in flight.
# About 3 minutes; in the plain 6.1 run only (make pair DEBUG=1 and
# KVER=6.12 have not been run yet).
if [ -n "$pair_kernel" ]; then
	status=0
	"$top/qemu/run-pair.sh" -k "$pair_kernel" --timeout "$timeout" --results "$results/pair" -- \
		TEST_TIMEOUT="$test_timeout" TEST_CQE_TIMEOUT_MS=$((test_timeout * 250)) \
		TEST_STRICT=1 TEST_RESULTS_HOST="$results/pair/tests" |
		sed -u -e "s/^[0-9]* passed, [0-9]* failed.*/pair: &/" \
			-e "s/^\(PASS\|FAIL\|SKIP\) \([^ :]*\)/\1 \2[pair]/" |
		tee -a "$log" "$results/pair.log" || status=$?
	printf 'guest\t%s\t%s\t%s\t%s\n' pair "$status" "$results/pair.log" \
		"consoles: $results/pair/console.log, $results/pair/target/" >>"$steps"
fi

# The verdict: every PASS/FAIL/SKIP line, plus a FAIL for a step that
# ended badly without saying so and for each unexpected skip.
"$top/tests/tally.sh" "$steps" | tee -a "$log"
