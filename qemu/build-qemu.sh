#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# QEMU 10 from Debian 13's source, for what Debian 12's QEMU 7.2 does not
# emulate: NVMe Flexible Data Placement (QEMU 8.0 on), which make
# check-fdp boots (qemu/run-nvme.sh --fdp). Only the x86_64 system emulator, with
# only what run-nvme.sh uses: TCG and KVM, virtfs (9p), the q35 machine's
# devices (NVMe, virtio); no UI, no tools, no network backend but the
# built-in ones (run-pair.sh's UDP sockets). Never installed system-wide:
#
#   qemu/build-qemu.sh OUTDIR
#
# OUTDIR (build/qemu-10) receives, each once:
#   source/     kernel/PINNED's source:qemu tarball and its tree (src/)
#   meson/      source:meson, Debian 13's meson .deb unpacked: QEMU 10
#               wants meson 1.5 or newer, Debian 12 has 1.0.1, and
#               Debian's "+ds" tarball leaves out QEMU's bundled wheels.
#               The .deb because this project's mirror serves no
#               meson_1.7.0.orig.tar.gz (404); its sha256 in kernel/PINNED
#               is the one Debian 13's Packages index gives (the orig
#               tarballs' are its Sources index's)
#   pycotap/    source:pycotap, Debian 13's, which configure asks for
#               beside meson (the functional tests' TAP output)
#   python/     a venv (Debian's python3, its site packages) holding those
#               two, which QEMU's configure takes as its python
#   obj/        the build
#   bin/qemu-system-x86_64  a link to the emulator in obj/, which looks
#               for its firmware in obj/qemu-bundle/opt/uringcmd-qemu/share/qemu/
#               (the build tree's stand-in for PREFIX/share/qemu): there, links
#               to the option ROMs the build made and to the firmware the
#               "+ds" tarball leaves out, bios-256k.bin from Debian 12's
#               seabios package (qemu-system-x86 depends on it) and
#               efi-virtio.rom from its ipxe-qemu
#
# The compiler runs through ccache as the kernel builds do (kernel/kbuild.sh),
# with a prefix that is the same in every checkout (PREFIX, never installed
# to: it is only baked into the objects), so that a fresh clone's build hits
# what another built: 45 s instead of 4 min on 2 cores.
#
# A first build prints a line when it starts and one when it is done (the
# logs: OUTDIR/*.log); a build already done is a ninja no-op, quiet.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
# shellcheck source=kernel/kbuild.sh
. "$top/kernel/kbuild.sh"
kbuild_ccache "$top"
prefix=/opt/uringcmd-qemu

die() {
	echo "qemu/build-qemu.sh: $*" >&2
	exit 1
}
progress() { printf '==> qemu: %s\n' "$*" >&2; }

qemu_version=$("$top/kernel/source.sh" --pinned qemu)
meson_version=$("$top/kernel/source.sh" --pinned meson)
pycotap_version=$("$top/kernel/source.sh" --pinned pycotap)
bios=/usr/share/seabios/bios-256k.bin
ipxe=/usr/lib/ipxe/qemu/efi-virtio.rom
t0=$(date +%s)

check_host() {
	local p
	for p in ninja pkg-config gcc make; do
		command -v "$p" >/dev/null || die "$p not found: run 'make deps'"
	done
	pkg-config --exists glib-2.0 || die "no glib-2.0 development files (libglib2.0-dev): run 'make deps'"
	/usr/bin/python3 -c 'import venv, ensurepip' 2>/dev/null ||
		die "Debian's python3 has no venv module (python3-venv): run 'make deps'"
	/usr/bin/python3 -c 'import setuptools' 2>/dev/null ||
		die "Debian's python3 has no setuptools (python3-setuptools): run 'make deps'"
	[ -f "$bios" ] || die "no $bios (seabios, which qemu-system-x86 depends on): run 'make deps'"
}

# The venv QEMU's configure runs in: Debian's python3 with its packages
# (tomllib, setuptools), plus meson from the .deb and pycotap from its
# tree, in its site-packages with their egg-info, where importlib finds
# them (configure's mkvenv asks importlib for their versions, and takes
# a system package that fits; offline, it installs nothing itself).
python_env() {
	local py=$out/python/bin/python3 site p
	[ -f "$out/python/.uringcmd-ready" ] && return 0
	"$top/kernel/source.sh" meson "$meson_version" "$out/meson"
	"$top/kernel/source.sh" pycotap "$pycotap_version" "$out/pycotap"
	rm -rf "$out/python"
	/usr/bin/python3 -m venv --system-site-packages --without-pip "$out/python" ||
		die "creating the venv $out/python failed"
	site=$("$py" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
	cp -a "$out/meson/src/usr/lib/python3/dist-packages/." "$site/"
	cp -a "$out/pycotap/src/pycotap" "$site/"
	(cd "$out/pycotap/src" && "$py" setup.py -q egg_info --egg-base "$site") \
		>"$out/pycotap.log" 2>&1 || die "pycotap's egg-info failed (see $out/pycotap.log)"
	for p in "meson ${meson_version%-*}" "pycotap $pycotap_version"; do
		"$py" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "${p% *}" |
			grep -qxF "${p#* }" || die "the venv $out/python does not find ${p% *} ${p#* }"
	done
	touch "$out/python/.uringcmd-ready"
}

configure() {
	[ -f "$out/obj/build.ninja" ] && return 0
	rm -rf "$out/obj"
	mkdir -p "$out/obj"
	# pc-bios/meson.build unpacks the EDK2 images of an x86 target
	# whenever bzip2 is installed, even with --disable-install-blobs, and
	# the "+ds" tarball has none: an empty one each, unpacked into obj/
	# only, never installed nor booted (run-nvme.sh boots SeaBIOS).
	local fd
	sed -n "s/^ *'\(edk2-[a-z0-9_-]*\.fd\)',\$/\1/p" "$out/source/src/pc-bios/meson.build" |
		while read -r fd; do
			[ -f "$out/source/src/pc-bios/$fd.bz2" ] ||
				bzip2 -c </dev/null >"$out/source/src/pc-bios/$fd.bz2"
		done
	# --without-default-features turns every "auto" feature off (pixman,
	# UI, slirp, the image formats' libraries); the ones run-nvme.sh needs
	# are turned on by name. Network backends "socket" and the block
	# drivers "file", "raw" and "null-co" are always built in.
	(cd "$out/obj" && "$out/source/src/configure" --prefix="$prefix" --cc="ccache gcc" \
		--python="$out/python/bin/python3" --disable-download \
		--target-list=x86_64-softmmu --without-default-features \
		--enable-tcg --enable-kvm --enable-virtfs --enable-attr \
		--disable-tools --disable-docs --disable-install-blobs) \
		>"$out/configure.log" 2>&1 ||
		die "configure failed (the end of $out/configure.log): $(tail -n 5 "$out/configure.log" | tr '\n' ' ')"
}

# Only the emulator and the x86 option ROMs (linuxboot_dma.bin loads
# -kernel), not QEMU's tests nor make install (which builds them all).
# Run from its build tree, QEMU takes obj/qemu-bundle/PREFIX/share/qemu
# as its data folder (qemu-system-x86_64 -L help lists it).
build() {
	local rom data=$out/obj/qemu-bundle$prefix/share/qemu
	make -C "$out/obj" -j"$(nproc)" qemu-system-x86_64 pc-bios/optionrom/all \
		>"$out/build.log" 2>&1 ||
		die "the build failed (the end of $out/build.log): $(grep -m 3 'error' "$out/build.log" | tr '\n' ' ')"
	mkdir -p "$out/bin" "$data"
	ln -sfn ../obj/qemu-system-x86_64 "$out/bin/qemu-system-x86_64"
	# the firmware the "+ds" tarball lacks: Debian 12's SeaBIOS, and its
	# iPXE ROM for virtio-net (run-pair.sh's NICs) where it is installed
	ln -sfn "$bios" "$data/bios-256k.bin"
	[ ! -f "$ipxe" ] || ln -sfn "$ipxe" "$data/efi-virtio.rom"
	for rom in "$out"/obj/pc-bios/optionrom/*.bin; do
		[ -f "$rom" ] || continue
		ln -sfn "$rom" "$data/${rom##*/}"
	done
	[ -e "$data/linuxboot_dma.bin" ] ||
		die "the build made no pc-bios/optionrom/linuxboot_dma.bin (-kernel needs it; see $out/build.log)"
}

check_host
first=
[ -x "$out/bin/qemu-system-x86_64" ] || first=1
[ -z "$first" ] || progress "building QEMU $qemu_version (kernel/PINNED) into ${out#"$top/"}: x86_64-softmmu only; 4 to 6 min on 2 cores, 1 through a warm ccache"
"$top/kernel/source.sh" qemu "$qemu_version" "$out/source"
python_env
configure
build
v=$("$out/bin/qemu-system-x86_64" --version | head -n 1)
case $v in
*" version $qemu_version"*) ;;
*) die "$out/bin/qemu-system-x86_64 says '$v', not QEMU $qemu_version" ;;
esac
[ -z "$first" ] || progress "$v ready in $(( $(date +%s) - t0 )) s: ${out#"$top/"}/bin/qemu-system-x86_64"
