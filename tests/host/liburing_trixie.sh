#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The library (lib/, header-only) and every program of the checkout that
# includes it, built against Debian 13's liburing 2.9 instead of Debian
# 12's 2.3 (issue 28), with the flags of the normal build (-Werror):
# liburing 2.9 from its orig tarball in Debian's archive (kernel/PINNED's
# source:liburing line, sha256 checked by kernel/source.sh), built as a
# static library into build/liburing-2.9 and never installed; then the
# test programs (but the -m32 ones, which link Debian's i386 liburing),
# uc-nvme, the demo and the benchmark programs into build/liburing-2.9/,
# with CC="ccache gcc -I... -L..." (2.9's headers and library before the
# system's), so that every Makefile builds as it always does (LIBRARY_PATH
# would not do: gcc searches it after /usr/lib); and the fio engine alone, in
# fio 3.41's tree (make fio-next). Checks that the compiler took 2.9's
# <liburing.h>, that <uringcmd.h> then uses liburing's own
# io_uring_prep_cmd_discard() and io_uring_prep_cmd_sock(), and that no
# program needs liburing.so (the static 2.9 linked in). Nothing runs:
# the guest runs the programs built against Debian 12's liburing.
# Prints "PASS liburing_trixie[host]" or "FAIL liburing_trixie[host]: reason".
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
name='liburing_trixie[host]'
version=2.9
out=$top/build/liburing-$version
lu=$out/src
hdrs=$top/build/headers/include
fio_next_version=$("$top/kernel/source.sh" --pinned fio)
fio_next=$top/build/fio-$fio_next_version/src

fail() {
	echo "FAIL $name: $*"
	exit 1
}

# liburing itself: ./configure and src/liburing.a, once
err=$("$top/kernel/source.sh" liburing "$version" "$out" 2>&1) || fail "$err"
if [ ! -f "$lu/src/liburing.a" ]; then
	{ (cd "$lu" && ./configure --cc=gcc) && make -C "$lu/src" -j"$(nproc)" \
		CC="ccache gcc" liburing.a; } >"$out/build.log" 2>&1 ||
		fail "building liburing $version failed (see $out/build.log)"
fi
[ -f "$hdrs/linux/blkdev.h" ] || fail "no $hdrs: make headers"

cc="ccache gcc -I$lu/src/include -L$lu/src"
# built from scratch every time (through ccache): make would take programs
# of an earlier run as up to date, whatever CC made them
rm -rf "$out/tests" "$out/tool" "$out/demo" "$out/bench" "$out/fio"
log=$out/programs.log
: >"$log"
build() { # WHAT MAKE-ARGS...
	local what=$1
	shift
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s "$@" >>"$log" 2>&1 ||
		fail "$what against liburing $version: $(grep -m 1 -E 'error|warning' "$log" || tail -n 1 "$log") (see $log)"
}

# the version the compiler sees, and liburing's own helpers preferred
cat >"$out/probe.c" <<'EOF'
#include <liburing.h>
#include <uringcmd.h>
_Static_assert(IO_URING_VERSION_MAJOR == 2 && IO_URING_VERSION_MINOR == 9,
	       "not liburing 2.9's <liburing.h>");
_Static_assert(URINGCMD_LIBURING_AT_LEAST(2, 9), "URINGCMD_LIBURING_AT_LEAST");
int main(void) { return 0; }
EOF
# shellcheck disable=SC2086 # $cc: the compiler and its options
$cc -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$top/lib" -isystem "$hdrs" \
	-o "$out/probe" "$out/probe.c" >>"$log" 2>&1 ||
	fail "the probe did not build with liburing $version's <liburing.h>: $(grep -m 1 error "$log")"
# <uringcmd.h> defines liburing's helpers only for an older liburing: with
# 2.9, where the preprocessor found each one's definition is liburing.h
# shellcheck disable=SC2086
$cc -std=gnu11 -E -D_GNU_SOURCE -I"$top/lib" -isystem "$hdrs" "$out/probe.c" >"$out/probe.i"
for f in io_uring_prep_cmd_discard io_uring_prep_cmd_sock; do
	where=$(awk -v f="$f" '/^# [0-9]+ "/ { file = $3 } $0 ~ "void " f "\\(" { print file; exit }' "$out/probe.i")
	[ "$where" = "\"$lu/src/include/liburing.h\"" ] ||
		fail "$f() is defined in ${where:-no file}, not in liburing $version's <liburing.h>"
done

# the 64-bit programs (the *_m32 ones link Debian's i386 liburing 2.3)
tests=$(env -u MAKEFLAGS make -s -C "$top/tests" list | tr ' ' '\n' | grep -v '_m32$' |
	sed "s|^|$out/tests/|")
tools=() benches=()
for f in "$top"/tests/tools/*.c; do
	f=${f##*/} && tools+=("$out/tests/.tools/${f%.c}")
done
for f in "$top"/bench/*.c; do
	f=${f##*/} && benches+=("$out/bench/${f%.c}")
done
# shellcheck disable=SC2086 # one target a word
build "the test programs" -C "$top/tests" -j"$(nproc)" O="$out/tests" HDRS="$hdrs" \
	CC="$cc" $tests "${tools[@]}"
build uc-nvme -C "$top/tool" O="$out/tool" HDRS="$hdrs" CC="$cc"
build "the demo" -C "$top/demo" O="$out/demo" HDRS="$hdrs" CC="$cc"
build "the benchmark programs" -C "$top/bench" O="$out/bench" HDRS="$hdrs" CC="$cc" "${benches[@]}"
for bin in "$out"/tests/* "$out"/tests/.tools/* "$out"/tool/uc-nvme "$out"/demo/* "$out"/bench/*; do
	if [ ! -f "$bin" ] || [ ! -x "$bin" ] || ! file -b "$bin" | grep -q '^ELF'; then
		continue
	fi
	! readelf -d "$bin" | grep -q 'NEEDED.*liburing' ||
		fail "${bin#"$out/"} needs liburing.so: not linked with liburing $version's liburing.a"
done

[ -d "$fio_next" ] || fail "no $fio_next: make fio-next"
build "the fio engine (fio $fio_next_version)" -C "$fio_next" CC="$cc" "$out/fio/uringcmd-alone.o"
echo "PASS $name"
