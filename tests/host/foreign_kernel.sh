#!/bin/bash
# KERNEL=path/to/bzImage (make run, check, test, pair, shell, fuzz) boots
# that kernel without building one, and qemu/run-nvme.sh names in one line
# the options of kernel/guest.config (make run: kernel/run.config; make
# pair: guest.config and kernel/pair.config) its .config lacks, before
# booting. Which kernel make run builds without KERNEL=. No
# guest: a made-up bzImage (the boot-sector magic `file` knows) and configs.
# Prints "PASS foreign_kernel[host]" or "FAIL foreign_kernel[host]: reason".
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
name='foreign_kernel[host]'
work=$(mktemp -d /tmp/uringcmd-foreign-kernel.XXXXXX)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL $name: $*"; exit 1; }

fake_bzimage() { # path
	mkdir -p "$(dirname "$1")"
	head -c 4096 /dev/zero >"$1"
	printf '\x55\xaa' | dd of="$1" bs=1 seek=510 conv=notrunc status=none
	printf 'HdrS' | dd of="$1" bs=1 seek=514 conv=notrunc status=none
}
config_without() { # path option...: guest.config's =y lines but those
	local drop
	drop=$(printf '%s=y\n' "${@:2}")
	grep -E '^CONFIG_[A-Za-z0-9_]+=y$' "$top/kernel/guest.config" | grep -vxF "$drop" >"$1"
}
boot() { # run-nvme.sh args...: its stderr in $work/err; fails if it booted
	if "$top/qemu/run-nvme.sh" --null --results "$work/results" "$@" -- true 2>"$work/err"; then
		fail "run-nvme.sh $* booted"
	fi
}
expect_missing() { # what: one line naming exactly the options that follow
	local what=$1 named
	shift
	[ "$(wc -l <"$work/err")" = 1 ] || fail "$what: not one line: $(cat "$work/err")"
	named=$(grep -o 'CONFIG_[A-Za-z0-9_]*' "$work/err" | sort | tr '\n' ' ')
	[ "$named" = "$(printf '%s\n' "$@" | sort | tr '\n' ' ')" ] ||
		fail "$what: named '$named', not '$*': $(cat "$work/err")"
}

obj=$work/obj
bz=$obj/arch/x86/boot/bzImage
fake_bzimage "$bz"
file -b "$bz" | grep -q 'Linux kernel x86 boot' || fail "file does not take the made-up bzImage for one"

# Build folder with a .config lacking two options: both named, no boot.
config_without "$obj/.config" CONFIG_9P_FS CONFIG_NVME_TCP
boot -k "$bz"
expect_missing "obj/.config without CONFIG_9P_FS, CONFIG_NVME_TCP" CONFIG_9P_FS CONFIG_NVME_TCP

# A complete .config passes (the next check, of --ns, is the one to stop).
config_without "$obj/.config"
boot -k "$bz" --ns bogus=1
grep -q "'bogus' is not a namespace format property" "$work/err" ||
	fail "complete .config refused: $(cat "$work/err")"

# Build choices of guest.config's last part are not asked of it: a kernel
# with other timers and preemption and no KVM guest support passes.
config_without "$obj/.config" CONFIG_HZ_1000 CONFIG_PREEMPT_VOLUNTARY CONFIG_KVM_GUEST \
	CONFIG_PARAVIRT CONFIG_PRINTK_TIME
boot -k "$bz" --ns bogus=1
grep -q "'bogus' is not a namespace format property" "$work/err" ||
	fail "a .config with other build choices refused: $(cat "$work/err")"

# --any-config boots whatever the config says.
config_without "$obj/.config" CONFIG_9P_FS
boot -k "$bz" --any-config --ns bogus=1
grep -q "'bogus' is not a namespace format property" "$work/err" ||
	fail "--any-config still checked the config: $(cat "$work/err")"

# --needs kernel/run.config (make run): only what the demo needs is asked,
# so a kernel without the test suite's options (no nvme-tcp, no ACPI)
# passes, one without the 9p root does not.
config_without "$obj/.config" CONFIG_NVME_TCP CONFIG_ACPI
boot -k "$bz" --needs kernel/run.config --ns bogus=1
grep -q "'bogus' is not a namespace format property" "$work/err" ||
	fail "--needs kernel/run.config refused what the demo does not need: $(cat "$work/err")"
config_without "$obj/.config" CONFIG_9P_FS
boot -k "$bz" --needs kernel/run.config
expect_missing "--needs kernel/run.config, .config without CONFIG_9P_FS" CONFIG_9P_FS
grep -q 'lacks what kernel/run.config needs' "$work/err" ||
	fail "--needs kernel/run.config: the message does not name it: $(cat "$work/err")"

# --needs twice (make pair, qemu/run-pair.sh): both fragments' options
# are asked: the suite's kernel (no NIC) is refused, naming the NIC.
config_without "$obj/.config"
boot -k "$bz" --needs kernel/guest.config --needs kernel/pair.config
expect_missing "--needs guest.config and pair.config, the suite's .config" \
	CONFIG_NETDEVICES CONFIG_NET_CORE CONFIG_VIRTIO_NET
grep -q 'lacks what kernel/guest.config and kernel/pair.config need' "$work/err" ||
	fail "--needs twice: the message does not name both: $(cat "$work/err")"
config_without "$obj/.config" CONFIG_9P_FS
printf '%s\n' CONFIG_NETDEVICES=y CONFIG_NET_CORE=y CONFIG_VIRTIO_NET=y >>"$obj/.config"
boot -k "$bz" --needs kernel/guest.config --needs kernel/pair.config
expect_missing "--needs guest.config and pair.config, .config without CONFIG_9P_FS" CONFIG_9P_FS

# /boot's layout: config-VERSION beside vmlinuz-VERSION.
fake_bzimage "$work/boot/vmlinuz-6.1.0-test"
config_without "$work/boot/config-6.1.0-test" CONFIG_IO_URING
boot -k "$work/boot/vmlinuz-6.1.0-test"
expect_missing "/boot/config-V without CONFIG_IO_URING" CONFIG_IO_URING

# The Makefile: with KERNEL= the boots need that file, not a kernel build,
# and the headers only the patched tree. (make -p prints the rules; only
# help's recipe is dry-run.)
rules() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KERNEL -u DEBUG make -s -C "$top" -pn help "$@" 2>/dev/null; }
db=$(rules KERNEL="$bz")
grep -qx "BZIMAGE := $bz" <<<"$db" || fail "KERNEL=$bz: BZIMAGE is $(grep '^BZIMAGE :=' <<<"$db")"
for t in run check test pair shell fuzz; do
	deps=" $(sed -n "s/^$t: //p" <<<"$db") "
	case $deps in
	*' kernel '*) fail "KERNEL= given, yet make $t builds the kernel ($t:$deps)" ;;
	*' given-kernel '*) ;;
	*) fail "KERNEL= given, yet make $t does not check it exists ($t:$deps)" ;;
	esac
done
grep -qx 'headers: tree' <<<"$db" || fail "KERNEL= given: $(grep '^headers:' <<<"$db")"
grep -qx "RUN_BZIMAGE := $bz" <<<"$db" || fail "KERNEL=$bz: make run boots $(grep '^RUN_BZIMAGE :=' <<<"$db")"
grep -qx "PAIR_BZIMAGE := $bz" <<<"$db" || fail "KERNEL=$bz: make pair boots $(grep '^PAIR_BZIMAGE :=' <<<"$db")"
# Without KERNEL=: make run builds kernel/run.config's kernel while the
# plain kernel is not built (KOBJ without a bzImage), then boots the plain
# one; DEBUG=1 the debug one.
db=$(rules)
grep -qx 'headers: tree' <<<"$db" || fail "no KERNEL=: $(grep '^headers:' <<<"$db")"
grep -q '^run: .*\brun-kernel\b' <<<"$db" || fail "no KERNEL=: $(grep '^run:' <<<"$db")"
run_kernel() { # make args...: "RUN_KOBJ RUN_KCONFIGS" as make sees them
	db=$(rules "$@")
	printf '%s %s\n' "$(sed -n 's/^RUN_KOBJ := //p' <<<"$db")" "$(sed -n 's/^RUN_KCONFIGS := //p' <<<"$db")"
}
mkdir -p "$work/none"
got=$(run_kernel KOBJ="$work/none")
[ "$got" = "$top/build/linux/obj-run kernel/run.config" ] ||
	fail "no plain kernel built: make run would build '$got'"
got=$(run_kernel KOBJ="$obj")
[ "$got" = "$obj kernel/guest.config" ] || fail "plain kernel built: make run would build '$got'"
got=$(run_kernel DEBUG=1 KOBJ="$work/none")
[ "$got" = "$work/none kernel/guest.config kernel/debug.config" ] ||
	fail "DEBUG=1: make run would build '$got'"
# a goal beside run that builds the plain kernel: make run boots that one
got=$(run_kernel check run KOBJ="$work/none")
[ "$got" = "$work/none kernel/guest.config" ] || fail "make check run: make run would build '$got'"
# make pair builds its own kernel, the suite's options and a NIC, beside
# the suite's (whose config, and CI's ccache for it, the NIC leaves alone)
db=$(rules)
grep -q '^pair: .*\bpair-kernel\b' <<<"$db" || fail "make pair: $(grep '^pair:' <<<"$db")"
got="$(sed -n 's/^PAIR_KOBJ := //p' <<<"$db") $(sed -n 's/^PAIR_KCONFIGS := //p' <<<"$db")"
[ "$got" = "$top/build/linux/obj-pair kernel/guest.config kernel/pair.config" ] ||
	fail "make pair would build '$got'"
! grep -qxF -f <(grep -E '^CONFIG_[A-Za-z0-9_]+=y$' "$top/kernel/pair.config") "$top/kernel/guest.config" ||
	fail "kernel/guest.config has pair.config's NIC: every kernel's config changes"
# make check KERNEL= builds no kernel: it tells check.sh, which leaves out
# the make_run gate
cmd=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DEBUG make -s -n -C "$top" check KERNEL="$bz" \
	-o tests -o fio -o bench-progs -o given-kernel 2>/dev/null | tr -d '\\\n')
grep -q -- '--given-kernel' <<<"$cmd" || fail "make check KERNEL=: check.sh is not told ($cmd)"

# What the demo needs is a part of what the tests need: make run boots the
# plain kernel once it is built.
extra=$(grep -E '^CONFIG_[A-Za-z0-9_]+=y$' "$top/kernel/run.config" | grep -vxF -f "$top/kernel/guest.config" || true)
[ -z "$extra" ] || fail "kernel/run.config has options kernel/guest.config lacks: $(tr '\n' ' ' <<<"$extra")"

echo "PASS $name"
