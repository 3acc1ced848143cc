#!/bin/bash
# make run as a first one meets it, before the test suite's kernel is
# built (KOBJ points make at a folder without a bzImage): make builds
# kernel/run.config's kernel in build/linux/obj-run and boots it; the demo
# shows every block query equal to its ioctl and the admin commands
# returning the ioctl's bytes, and the guest, which has no ACPI, ends by a
# reset rather than a panic. From a warm ccache about two minutes, the
# boot a few seconds. KVER=6.12 in the environment (make check KVER=6.12):
# make run KVER=6.12, its kernel in build/linux-6.12/obj-run.
#
# Prints "PASS make_run[host]" or "FAIL make_run[host]: reason".
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
name='make_run[host]'
work=$(mktemp -d /tmp/uringcmd-make-run.XXXXXX)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL $name: $*"; exit 1; }

kver=${KVER:-6.1}
case $kver in
6.1) built='build/linux/obj-run (run.config)' ;;
6.12) built='build/linux-6.12/obj-run (run.config 6.12.config)' ;;
*) fail "KVER=$kver: the series exist for 6.1 and 6.12" ;;
esac

if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KERNEL -u DEBUG \
	make -s -C "$top" run KOBJ="$work/no-kernel" >"$work/out" 2>"$work/err"; then
	fail "make run failed: $(tail -n 3 "$work/err" "$work/out" | tr '\n' ' ')"
fi
grep -qF "==> kernel: building $built" "$work/err" ||
	fail "make run did not build kernel/run.config's kernel: $(grep '^==> kernel' "$work/err" | head -n 1)"
console=$(sed -n 's/^==> boot: .*console in \(.*\)$/\1/p' "$work/err")
[ -f "$console" ] || fail "no console log named: $(grep '^==> boot' "$work/err" | head -n 1)"

out=$work/out
grep -q "^== ${kver//./\\.}\\..* on QEMU NVMe Ctrl\$" "$out" || fail "no banner: $(head -n 1 "$out")"
# query  cqe->res  uring_cmd  ioctl  sysfs: the last three agree ('-' where
# sysfs has no such value); cqe->res is the answer itself, or 0 for the
# queries answered only at addr (marked *)
rows=$(awk '$1 ~ /^BLK/ { n++
		res = $1 ~ /\*$/ ? "0" : $3
		if ($2 != res || $3 != $4 || ($5 != "-" && $5 != $4)) bad = bad " [" $0 "]" }
	END { print n + 0; print bad }' "$out")
[ "$(sed -n 1p <<<"$rows")" -ge 17 ] || fail "$(sed -n 1p <<<"$rows") block queries shown, not 17"
[ -z "$(sed -n 2p <<<"$rows")" ] || fail "cqe->res, uring_cmd, ioctl and sysfs disagree:$(sed -n 2p <<<"$rows")"
[ "$(grep -c 'same bytes as NVME_IOCTL_ADMIN_CMD (status 0): yes$' "$out")" = 3 ] ||
	fail "the admin commands differ from the ioctl: $(grep 'same bytes' "$out" | tr '\n' ' ')"
# uc-nvme's JSON names the controller the demo's identify read
vid=$(sed -n 's/^  controller: vid \(0x[0-9a-f]*\),.*/\1/p' "$out")
if [ -z "$vid" ] || ! grep -q "^  \"vid\":$((vid)),\$" "$out"; then
	fail "no uc-nvme id-ctrl JSON with vid $vid: $(grep -m 1 -e '"vid"' -e 'uc-nvme' "$out")"
fi
grep -q '^Smart Log for NVME device:nvme0n1 namespace-id:ffffffff$' "$out" ||
	fail "no uc-nvme smart-log: $(grep -m 1 'uc-nvme' "$out")"
grep -q 'sysrq: Resetting' "$console" || fail "the guest did not end by a reset ($console)"
! grep -q 'Kernel panic' "$console" || fail "the guest panicked ($console)"
echo "PASS $name"
