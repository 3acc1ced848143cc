#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# An upstream source tarball from Debian's archive, as kernel/PINNED pins
# it on a "source:NAME VERSION SHA256 PATH" line (PATH under the archive's
# root, its pool), extracted for a build: for what Debian 12 does not ship,
# fio 3.41 and liburing 2.9 (issue 28), QEMU 10 (qemu/build-qemu.sh). A
# PATH ending in .deb is a binary package, unpacked (dpkg-deb -x) instead:
# meson 1.7, whose orig tarball this project's mirror does not serve.
#
#   kernel/source.sh NAME VERSION OUTDIR
#   kernel/source.sh --pinned NAME
#
# --pinned prints the version of NAME's source: line (the last, were there
# several): the one place the second fio's version is written, which the
# Makefile (FIO_NEXT) and the tests read from here.
# OUTDIR receives the tarball and src/, its tree (top folder stripped; a
# .deb's as it is), once: a tree already extracted
# (src/.uringcmd-extracted) is left alone.
# apt-helper, apt's own (on every Debian), fetches it and checks the
# sha256, leaving nothing behind on a mismatch; no other source is used.
# UC_DEBIAN_ARCHIVE: another Debian mirror. Quiet on success; exits 1 with
# one line on failure (the fetch's own output in OUTDIR/fetch.log).
set -eu

die() {
	echo "kernel/source.sh: $*" >&2
	exit 1
}
pins=$(cd "$(dirname "$0")" && pwd)/PINNED
if [ $# -eq 2 ] && [ "$1" = --pinned ]; then
	v=$(awk -v n="source:$2" '$1 == n { v = $2 } END { print v }' "$pins")
	[ -n "$v" ] || die "kernel/PINNED has no 'source:$2' line"
	echo "$v"
	exit 0
fi
[ $# -eq 3 ] || { echo "usage: $0 NAME VERSION OUTDIR | --pinned NAME" >&2; exit 2; }
name=$1 version=$2
archive=${UC_DEBIAN_ARCHIVE:-http://deb.debian.org/debian}
mkdir -p "$3"
out=$(cd "$3" && pwd)
src=$out/src
[ -f "$src/.uringcmd-extracted" ] && exit 0

pin=$(awk -v n="source:$name" -v v="$version" '$1 == n && $2 == v { print $3, $4 }' "$pins")
[ -n "$pin" ] ||
	die "kernel/PINNED has no 'source:$name $version' line (it pins: $(awk -v n="source:$name" '$1 == n { printf "%s ", $2 }' "$pins"))"
sum=${pin%% *} path=${pin#* }
tarball=$out/${path##*/}
if ! [ -f "$tarball" ] || ! echo "$sum  $tarball" | sha256sum -c --status; then
	rm -f "$tarball"
	/usr/lib/apt/apt-helper -o APT::Sandbox::User=root download-file \
		"$archive/$path" "$tarball" "SHA256:$sum" >"$out/fetch.log" 2>&1 ||
		die "fetching $archive/$path (sha256 $sum) failed (see $out/fetch.log)"
fi
rm -rf "$src"
mkdir -p "$src"
case $tarball in
*.deb) dpkg-deb -x "$tarball" "$src" || die "unpacking $tarball failed" ;;
*) tar -xf "$tarball" -C "$src" --strip-components=1 || die "extracting $tarball failed" ;;
esac
touch "$src/.uringcmd-extracted"
