#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Builds fio from the Debian source of the installed fio, with the uringcmd
# engine built in, and the engine once more as a shared object for the
# system fio (/usr/bin/fio) of that same version.
#
#   build.sh BUILDDIR HDRS
#
# BUILDDIR (build/fio) receives the source package and src/ (fio's tree,
# never committed); HDRS is the patched kernel's uapi include directory
# (<linux/blkdev.h> with BLOCK_URING_CMD_IOCTL). Outputs:
#   BUILDDIR/src/fio        fio with ioengine=uringcmd built in
#   BUILDDIR/lib/uringcmd   the engine for the system fio: found by its bare
#                           name through LD_LIBRARY_PATH=BUILDDIR/lib, or as
#                           ioengine=external:BUILDDIR/lib/uringcmd
# Quiet on success; the logs are BUILDDIR/*.log.
set -eu

# The fio this engine is written against (FIO_IOOPS_VERSION 31): the version
# kernel/PINNED pins, which make deps installs.
here=$(cd "$(dirname "$0")" && pwd)
FIO_DEB_VERSION=$(sed -n 's/^fio //p' "$here/../kernel/PINNED")
# As debian/rules configures it, minus what only gfio and nbd need.
FIO_CONFIGURE="--disable-native --prefix=/usr"

usage() {
	echo "usage: $0 BUILDDIR HDRS" >&2
	exit 2
}
[ $# -eq 2 ] || usage
mkdir -p "$1"
out=$(cd "$1" && pwd)
hdrs=$(cd "$2" && pwd)
src=$out/src

die() {
	echo "fio-engine/build.sh: $*" >&2
	exit 1
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

fetch() {
	[ -f "$src/.uringcmd-extracted" ] && return 0
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
	if grep -qs "^# uringcmd: $hdrs\$" "$src/config-host.mak"; then
		return 0
	fi
	# shellcheck disable=SC2086 # word splitting wanted
	(cd "$src" && ./configure $FIO_CONFIGURE) >"$out/configure.log" 2>&1 ||
		die "fio's configure failed (see $out/configure.log)"
	{
		echo "# uringcmd: $hdrs"
		echo "ENGINES += uringcmd"
		echo "uringcmd_SRCS = engines/uringcmd.c"
		echo "uringcmd_LIBS = -luring -lnvme"
		echo "engines/uringcmd.o: override CFLAGS += -Wextra -Wno-unused-parameter -Werror -isystem $hdrs"
		echo "$out/lib/uringcmd: engines/uringcmd.c engines/uringcmd.o"
		printf '\t@mkdir -p $(@D)\n'
		printf '\t$(CC) $(CPPFLAGS) $(CFLAGS) -Wextra -Wno-unused-parameter -Werror -isystem %s -DURINGCMD_EXTERNAL -fPIC -shared -o $@ $< -luring -lnvme\n' "$hdrs"
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

check_version
fetch
configure
make -C "$src" -j"$(nproc)" CC="${CC:-ccache gcc}" \
	fio "$out/lib/uringcmd" >"$out/make.log" 2>&1 ||
	die "building fio failed (see $out/make.log)"
check_external
