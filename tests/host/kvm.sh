#!/bin/bash
# KVM=1 reaches QEMU through the make targets that boot, and a host whose
# /dev/kvm cannot boot a guest is told what to use instead.
#   tests/host/kvm.sh --kernel BZIMAGE
# First with a stand-in qemu-system-x86_64 (first in PATH) that records
# its arguments and exits: make test, run, bench and shell with KVM=1 each
# start it with -accel kvm, and without KVM=1 with TCG; make bench KVM=1
# reports to RESULTS-kvm.md, beside the TCG run's RESULTS.md. Then, where
# /dev/kvm exists, the real thing with UC_KVM_BOOT_WAIT=10: the guest boots
# (KVM works here) or run-nvme.sh ends it and names the fallback.
# Prints "PASS kvm[host]" or "FAIL kvm[host]: reason".
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
name='kvm[host]'
kernel=
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	*) echo "kvm.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$kernel" ] || { echo "usage: tests/host/kvm.sh --kernel BZIMAGE" >&2; exit 2; }

fail() { echo "FAIL $name: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
cat >"$work/bin/qemu-system-x86_64" <<'STUB'
#!/bin/bash
printf '%s\n' "$*" >>"$UC_QEMU_LOG"
STUB
chmod +x "$work/bin/qemu-system-x86_64"

# make TARGET... with the stand-in; the accelerator it was started with
accel_of() { # log-name make-args...
	local log=$work/$1.log
	shift
	: >"$log"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DEBUG -u UC_KVM \
		PATH="$work/bin:$PATH" UC_QEMU_LOG="$log" \
		script -qec "make -s -C $(printf '%q' "$top") $(printf '%q ' "$@")" /dev/null \
		>"$work/$1.out" 2>&1 </dev/null || true
	grep -o -- '-accel [a-z]*' "$log" | sort -u | tr '\n' ' '
}
for t in "test T=block_query_batch" run bench shell; do
	# shellcheck disable=SC2086 # the target and its variable
	got=$(accel_of kvm $t KVM=1 KERNEL="$kernel")
	[ "$got" = "-accel kvm " ] || fail "make $t KVM=1 started QEMU with '${got:-nothing}', not -accel kvm"
done
# a KVM benchmark run goes beside the TCG one, never over RESULTS.md
tr -d '\r' <"$work/bench.out" | grep -q '^bench: 3 boots under KVM.*; the report goes to RESULTS-kvm.md$' ||
	fail "make bench KVM=1 does not report to RESULTS-kvm.md: $(grep -m 1 '^bench' "$work/bench.out")"
got=$(accel_of tcg test T=block_query_batch KERNEL="$kernel")
[ "$got" = "-accel tcg " ] || fail "make test without KVM=1 started QEMU with '${got:-nothing}', not -accel tcg"

# the real QEMU under KVM, where there is a /dev/kvm
if [ -w /dev/kvm ]; then
	status=0
	out=$(UC_KVM=1 UC_KVM_BOOT_WAIT=10 "$top/qemu/run-nvme.sh" -k "$kernel" -n 1 --timeout 120 \
		--results "$work/res" -- true 2>&1) || status=$?
	if [ "$status" = 0 ]; then
		echo "# KVM boots a guest on this host"
	elif [ "$status" = 125 ] && grep -q 'Run without KVM=1' <<<"$out"; then
		echo "# KVM does not boot a guest on this host: run-nvme.sh said so in 10 s"
	else
		fail "run-nvme.sh under KVM: status $status, and no word of the fallback: $(tail -n 2 <<<"$out")"
	fi
fi
echo "PASS $name"
