#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Builds fio from the Debian source of the installed fio, with the uringcmd
# engine built in, and the engine once more as a shared object for the
# system fio (/usr/bin/fio) of that same version; or, with FIO_RELEASE=3.41,
# a newer fio from the orig tarball Debian's archive holds, with the
# engine built in (no system fio of that version, so no shared object).
#
#   build.sh BUILDDIR HDRS
#   FIO_RELEASE=3.41 build.sh BUILDDIR HDRS
#   FIO_SRC=path build.sh BUILDDIR HDRS
#
# BUILDDIR (build/fio) receives the source package and src/ (fio's tree,
# never committed); HDRS is the patched kernel's uapi include directory
# (<linux/blkdev.h> with BLOCK_URING_CMD_IOCTL). Outputs:
#   BUILDDIR/src/fio        fio with ioengine=uringcmd built in
#   BUILDDIR/lib/uringcmd   the engine for the system fio: found by its bare
#                           name through LD_LIBRARY_PATH=BUILDDIR/lib, or as
#                           ioengine=external:BUILDDIR/lib/uringcmd
#
# FIO_RELEASE: a fio release kernel/PINNED names on a "source:fio" line
# (version, sha256, path under Debian's archive): fetched and extracted
# into BUILDDIR/src by kernel/source.sh, which checks the sha256. The default
# (empty, or the installed fio's upstream version) is the apt pin above.
#
# FIO_SRC=path: a fio source tree of the user's instead of Debian's,
# configured (./configure) and built or not: only the engine is built,
# into BUILDDIR/lib/uringcmd, for that tree's fio (ioengine=external:...).
# The tree's FIO_IOOPS_VERSION must be fio 3.33's (31) or newer; the build
# stops first with a message naming both otherwise.
# The tree gets engines/uringcmd.c (a link) and a few lines at the end of
# its config-host.mak, as Debian's does.
#
# Quiet on success but for a first build (fetch, configure and build
# fio), which prints a line when it starts and one when it is done; the
# logs are BUILDDIR/*.log.
set -eu

# The fio this engine is written against (FIO_IOOPS_VERSION 31): the version
# kernel/PINNED pins, which make deps installs.
here=$(cd "$(dirname "$0")" && pwd)
FIO_DEB_VERSION=$(sed -n 's/^fio //p' "$here/../kernel/PINNED")
release=${FIO_RELEASE:-}
[ "$release" != "${FIO_DEB_VERSION%%-*}" ] || release=
# As debian/rules configures it, minus what only gfio and nbd need.
FIO_CONFIGURE="--disable-native --prefix=/usr"
# The project's library (header-only): lib/uringcmd-nvme.h
lib=$(cd "$here/../lib" && pwd)

usage() {
	echo "usage: $0 BUILDDIR HDRS" >&2
	exit 2
}
[ $# -eq 2 ] || usage
if [ -n "$release" ] && ! grep -q "^source:fio $release " "$here/../kernel/PINNED"; then
	echo "fio-engine/build.sh: FIO=$release: the fio releases this builds are ${FIO_DEB_VERSION%%-*} (Debian 12's) and $(sed -n 's/^source:fio \([^ ]*\) .*/\1/p' "$here/../kernel/PINNED" | tr '\n' ' ')(kernel/PINNED's source:fio lines)" >&2
	exit 1
fi
mkdir -p "$1"
out=$(cd "$1" && pwd)
hdrs=$(cd "$2" && pwd)
src=$out/src
fio_src=${FIO_SRC:-}

die() {
	echo "fio-engine/build.sh: $*" >&2
	exit 1
}
progress() { printf '==> fio: %s\n' "$*" >&2; }
t0=$(date +%s)
first=

# FIO_SRC: the tree's ops ABI must be fio 3.33's or newer, checked here
# rather than as a compiler #error deep in a build log.
check_tree() {
	[ -d "$fio_src" ] || die "FIO_SRC=$fio_src is not a directory"
	src=$(cd "$fio_src" && pwd)
	[ -f "$src/ioengines.h" ] || die "FIO_SRC=$src has no ioengines.h: not a fio source tree"
	[ -f "$src/config-host.mak" ] ||
		die "FIO_SRC=$src is not configured: run ./configure there first"
	have=$(sed -n 's/^#define[[:space:]]*FIO_IOOPS_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$src/ioengines.h")
	want=$(sed -n 's/^#define[[:space:]]*UC_FIO_IOOPS_OLDEST[[:space:]]*\([0-9]*\).*/\1/p' "$here/uringcmd.c")
	[ -n "$have" ] || die "FIO_SRC=$src: no FIO_IOOPS_VERSION in ioengines.h"
	[ "$have" -ge "$want" ] ||
		die "FIO_SRC=$src has FIO_IOOPS_VERSION $have; the engine needs $want (fio 3.33) or newer: its ops table and the fio structures it uses would not fit"
	[ -f "$hdrs/linux/blkdev.h" ] ||
		die "$hdrs/linux/blkdev.h missing: make headers first"
}

check_version() {
	v=$(dpkg-query -W -f '${Version}' fio 2>/dev/null) ||
		die "fio is not installed (make deps)"
	[ "$v" = "$FIO_DEB_VERSION" ] ||
		die "installed fio is $v, kernel/PINNED pins $FIO_DEB_VERSION: run 'make deps', which installs it"
	[ -f "$hdrs/linux/blkdev.h" ] ||
		die "$hdrs/linux/blkdev.h missing: make headers first"
}

# apt-get source needs deb-src lines; Debian 12 images ship only deb.
ensure_deb_src() {
	if grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list \
		/etc/apt/sources.list.d/; then
		return 0
	fi
	cat >/etc/apt/sources.list.d/uringcmd-deb-src.sources <<-EOF
	Types: deb-src
	URIs: http://deb.debian.org/debian
	Suites: bookworm bookworm-updates
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
	apt-get update -qq >"$out/apt.log" 2>&1 ||
		die "apt-get update failed (see $out/apt.log)"
}

# FIO_RELEASE: the orig tarball kernel/PINNED pins, from Debian's archive
# (kernel/source.sh checks its sha256).
fetch_release() {
	[ -f "$src/.uringcmd-extracted" ] && return 0
	[ -f "$hdrs/linux/blkdev.h" ] ||
		die "$hdrs/linux/blkdev.h missing: make headers first"
	first=1
	progress "fetching fio $release's source from Debian's archive, then building fio with ioengine=uringcmd (about a minute)"
	"$here/../kernel/source.sh" fio "$release" "$out" || exit 1
}

fetch() {
	[ -f "$src/.uringcmd-extracted" ] && return 0
	first=1
	progress "fetching Debian's fio $FIO_DEB_VERSION source (apt-get source), then building fio with ioengine=uringcmd (about a minute)"
	ensure_deb_src
	(cd "$out" && apt-get source --download-only "fio=$FIO_DEB_VERSION") \
		>"$out/fetch.log" 2>&1 ||
		die "apt-get source fio=$FIO_DEB_VERSION failed (see $out/fetch.log; if apt no longer offers it, 'make repin')"
	rm -rf "$src"
	(cd "$out" && dpkg-source --no-check -x "fio_$FIO_DEB_VERSION.dsc" src) \
		>>"$out/fetch.log" 2>&1 || die "dpkg-source -x failed (see $out/fetch.log)"
	touch "$src/.uringcmd-extracted"
}

# fio's Makefile builds every engine named in ENGINES from config-host.mak;
# `make clean` deletes that file and a bare `make` would re-run configure
# without our flags, so configure runs here whenever the marker is gone.
configure() {
	ln -sf "$here/uringcmd.c" "$src/engines/uringcmd.c"
	marker="# uringcmd: $hdrs $lib $out (2)"
	if grep -qsxF "$marker" "$src/config-host.mak"; then
		return 0
	fi
	if [ -n "$fio_src" ]; then
		# the user's tree: our lines replace any earlier ones, no configure
		sed -i '/^# uringcmd: /,/^# uringcmd end$/d' "$src/config-host.mak"
	else
		# shellcheck disable=SC2086 # word splitting wanted
		(cd "$src" && ./configure $FIO_CONFIGURE) >"$out/configure.log" 2>&1 ||
			die "fio's configure failed (see $out/configure.log)"
	fi
	flags="-Wextra -Wno-unused-parameter -Werror -I$lib -isystem $hdrs"
	# shellcheck disable=SC2016 # $(...) and $@ are make's, for make
	{
		echo "$marker"
		echo "ENGINES += uringcmd"
		echo "uringcmd_SRCS = engines/uringcmd.c"
		echo "uringcmd_LIBS = -luring -lnvme"
		echo "engines/uringcmd.o: override CFLAGS += $flags"
		echo "engines/uringcmd.o: $lib/uringcmd.h $lib/uringcmd-nvme.h"
		echo "$out/lib/uringcmd: engines/uringcmd.c engines/uringcmd.o"
		printf '\t@mkdir -p $(@D)\n'
		printf '\t$(CC) $(CPPFLAGS) $(CFLAGS) %s -DURINGCMD_EXTERNAL -fPIC -shared -o $@ $< -luring -lnvme\n' "$flags"
		echo "# the engine compiled alone into another folder, as the built-in one"
		echo "# (tests/host/liburing_trixie.sh: against another liburing, CC=)"
		echo "%/uringcmd-alone.o: engines/uringcmd.c engines/uringcmd.o"
		printf '\t@mkdir -p $(@D)\n'
		printf '\t$(CC) $(CPPFLAGS) $(CFLAGS) %s -c -o $@ $<\n' "$flags"
		echo "# uringcmd end"
	} >>"$src/config-host.mak"
}

# The engine's calls into fio must all be symbols /usr/bin/fio exports.
check_external() {
	missing=$(nm -u "$out/lib/uringcmd" | awk '$1 == "U" && $2 !~ /@/ { print $2 }' |
		while read -r sym; do
			nm -D --defined-only /usr/bin/fio | awk '{ print $3 }' |
				grep -qx "$sym" || echo "$sym"
		done)
	[ -z "$missing" ] || die "the engine needs fio symbols /usr/bin/fio does not export: $missing"
}

if [ -n "$fio_src" ]; then
	check_tree
	configure
	make -C "$src" -j"$(nproc)" CC="${CC:-ccache gcc}" \
		"$out/lib/uringcmd" >"$out/make.log" 2>&1 ||
		die "building the engine against $src failed (see $out/make.log)"
	exit 0
fi
if [ -n "$release" ]; then
	fetch_release
	configure
	make -C "$src" -j"$(nproc)" CC="${CC:-ccache gcc}" fio >"$out/make.log" 2>&1 ||
		die "building fio $release failed (see $out/make.log)"
	[ -z "$first" ] || progress "$src/fio built in $(( $(date +%s) - t0 )) s"
	exit 0
fi
check_version
fetch
configure
make -C "$src" -j"$(nproc)" CC="${CC:-ccache gcc}" \
	fio "$out/lib/uringcmd" >"$out/make.log" 2>&1 ||
	die "building fio failed (see $out/make.log)"
check_external
[ -z "$first" ] || progress "$src/fio built in $(( $(date +%s) - t0 )) s"
