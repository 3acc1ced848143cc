#!/bin/bash
# make mutants: does the suite catch a broken kernel? Each
# tests/mutants/NN-*.patch is a small, realistic bug in a file that the two
# series change. It is applied alone to a copy of the patched tree (a
# worktree of build/linux at branch nvme, build/mutants/src), the kernel is
# rebuilt there incrementally through ccache, and the tests the mutant names
# run in one guest boot: it is killed when one of them fails or the guest
# dies, and survives when they all pass. build/linux is never touched, and
# the copy is reset after each mutant.
#
#   tests/mutants/run.sh [PATTERN...]   mutants whose file names match
#                                       (shell patterns; default: all)
#
# A mutant file starts with its own header, which git apply skips:
#   Mutant: what the bug is, in one line
#   Tests: the tests that must catch it (TEST_ONLY patterns of run.sh)
#   Boot: first (make check's first guest, the default), subsys (its
#         second, on an nvme-subsys head) or nompath (its third, without
#         multipath)
#   Env: more run.sh environment, optional (TEST_FABRICS=0 ...)
# followed by a diff against the patched tree (git diff in build/mutants/src).
# Prints KILLED or SURVIVED per mutant, then "N killed, N survived"; exits 1
# if one survived or could not be built. Logs: build/results/mutants/.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
tree=$top/build/linux
wt=$top/build/mutants/src
res=$top/build/results/mutants
here=$top/tests/mutants

die() { printf 'tests/mutants/run.sh: %s\n' "$*" >&2; exit 1; }
# stop_guest RESULTS: every process of the boot whose results go there
stop_guest() {
	local i sig=TERM
	for i in 1 2 3 4 5 6 7 8 9 10; do
		pgrep -f -- "$1" >/dev/null || return 0
		[ "$i" -lt 10 ] || sig=KILL
		pkill -"$sig" -f -- "$1" 2>/dev/null || true
		sleep 1
	done
}
field() { sed -n "s/^$1: *//p" "$2" | head -n 1; }

git -C "$tree" rev-parse -q --verify refs/heads/nvme >/dev/null ||
	die "no branch nvme in build/linux (run 'make kernel')"
[ -d "$top/build/tests" ] || die "no build/tests (run 'make tests')"

mutants=()
for m in "$here"/[0-9]*.patch; do
	[ -f "$m" ] || continue
	if [ "$#" -gt 0 ]; then
		name=${m##*/} ok=
		for pat in "$@"; do
			# shellcheck disable=SC2254 # a pattern on purpose
			case $name in $pat|$pat.patch) ok=1 ;; esac
		done
		[ -n "$ok" ] || continue
	fi
	mutants+=("$m")
done
[ "${#mutants[@]}" -gt 0 ] || die "no mutant matches ${*:-*}"

mkdir -p "$top/build/mutants"
exec 9>"$top/build/mutants/lock"
flock -n 9 || die "another make mutants is running (build/mutants/lock)"
git -C "$tree" worktree prune
[ -e "$wt/.git" ] || git -C "$tree" worktree add -q --detach "$wt" nvme
mkdir -p "$res"

formats=()
while IFS= read -r f; do
	formats+=(--ns "$f")
done < <(sed -n '/^[a-z]/p' "$top/qemu/check-formats")

t0=$(date +%s) killed=0 survived=0 broken=0 pid=
# an interrupted run takes its guest with it and leaves the copy reset
trap '[ -z "$pid" ] || kill -KILL -- -"$pid" 2>/dev/null; [ -z "${name:-}" ] || stop_guest "$res/$name"
	git -C "$wt" reset -q --hard nvme' EXIT
for m in "${mutants[@]}"; do
	name=$(basename "$m" .patch)
	what=$(field Mutant "$m")
	tests=$(field Tests "$m")
	boot=$(field Boot "$m")
	read -r -a extra <<<"$(field Env "$m")"
	if [ -z "$what" ] || [ -z "$tests" ]; then
		die "$m: no Mutant: or Tests: line"
	fi
	log=$res/$name.log
	m0=$(date +%s)
	git -C "$wt" reset -q --hard nvme
	if ! git -C "$wt" apply "$m" 2>"$log"; then
		echo "BROKEN $name: does not apply to the tree ($log)"
		broken=$((broken + 1))
		continue
	fi
	if ! KSRC=$wt "$top/kernel/build.sh" "$wt/obj" "$top/kernel/guest.config" >>"$log" 2>&1; then
		echo "BROKEN $name: does not build ($log)"
		broken=$((broken + 1))
		continue
	fi
	case ${boot:-first} in
	first)
		opts=(-n 2 "${formats[@]}" --qmp-agent --append nvme.poll_queues=1)
		env=(TEST_REQUIRE_NVME=1 TEST_NVME_NS_COUNT=$((2 + ${#formats[@]} / 2)))
		;;
	subsys)
		# shellcheck disable=SC2054 # shared=on,size=64 is one argument
		opts=(-n 1 --subsys --ns shared=on,size=64 --append nvme.poll_queues=1)
		env=(TEST_BLOCK_DEVS=nvme TEST_FABRICS=0 TEST_REQUIRE_NVME=1 TEST_NVME_DEV=auto)
		;;
	nompath)
		opts=(-n 1 --append "nvme.poll_queues=1 nvme_core.multipath=N")
		env=(TEST_BLOCK_DEVS=nvme TEST_REQUIRE_NVME=1)
		;;
	*) die "$m: Boot: $boot (first, subsys or nompath)" ;;
	esac
	rm -rf "${res:?}/$name"
	# one FAIL kills the mutant: the guest is stopped there (its own
	# process group, QEMU with it), not left to time out every other test
	status=0
	setsid "$top/qemu/run-nvme.sh" -k "$wt/obj/arch/x86/boot/bzImage" --timeout 900 "${opts[@]}" \
		--results "$res/$name" -- \
		env TEST_ONLY="$tests" TEST_TIMEOUT=120 TEST_CQE_TIMEOUT_MS=30000 TEST_STRICT=1 \
		TEST_RESULTS_HOST="$res/$name/tests" "${env[@]}" ${extra[@]+"${extra[@]}"} \
		"$top/tests/run.sh" "$top/build/tests" /run/results/tests >>"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if grep -q '^FAIL ' "$log"; then
			kill -- -"$pid" 2>/dev/null || true
			break
		fi
		sleep 2
	done
	wait "$pid" || status=$?
	pid=
	# QEMU runs under timeout(1), in a process group of its own: find it
	# by its results folder. The next boot needs its drive images unlocked.
	stop_guest "$res/$name"
	secs=$(( $(date +%s) - m0 ))
	first_fail=$(grep -m 1 '^FAIL ' "$log" || true)
	if [ -n "$first_fail" ]; then
		echo "KILLED $name (${secs} s): ${first_fail#FAIL }"
		killed=$((killed + 1))
	elif [ "$status" != 0 ] || ! grep -qE '^[0-9]+ passed, 0 failed' "$log"; then
		echo "KILLED $name (${secs} s): the guest did not finish its tests (status $status, $log)"
		killed=$((killed + 1))
	elif ! grep -q '^PASS ' "$log"; then
		echo "SURVIVED $name (${secs} s): none of '$tests' ran (all skipped?): $what"
		survived=$((survived + 1))
	else
		echo "SURVIVED $name (${secs} s): $what"
		survived=$((survived + 1))
	fi
done
git -C "$wt" reset -q --hard nvme
echo "mutants: $killed killed, $survived survived, $broken broken in $(( $(date +%s) - t0 )) s"
[ "$survived" = 0 ] && [ "$broken" = 0 ]
