#!/bin/bash
# The package versions pinned in kernel/PINNED, and moving them.
#
#   kernel/repin.sh             move each pin to the newest version apt offers
#                               (make repin): linux-source-6.1 only if both
#                               series still apply to it with git am -3
#   kernel/repin.sh check PKG=VERSION...
#                               stop, naming 'make repin', if apt no longer
#                               offers one of them (make deps, before it
#                               installs them); arguments without = pass
#
# Debian replaces linux-source-6.1 with each bookworm-security update and
# keeps a few older versions in the archive; once the pinned one is gone,
# make deps cannot install it, and the pin has to move.
#
# UC_APT_MADISON: a command run instead of 'apt-cache madison PKG', printing
# its format ("pkg | version | source"), so tests can hide versions from apt.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
pins=$top/kernel/PINNED
work=$top/build/repin
ident=(-c user.name='uringcmd developers' -c user.email='uringcmd@invalid')

die() { printf 'kernel/repin.sh: %s\n' "$*" >&2; exit 1; }

pinned() { # package: its pinned version
	sed -n "s/^$1 //p" "$pins"
}

offered() { # package: the versions apt offers, one a line
	local madison=(apt-cache madison)
	[ -z "${UC_APT_MADISON:-}" ] || madison=("$UC_APT_MADISON")
	"${madison[@]}" "$1" 2>/dev/null | awk -F'|' '{ gsub(/[ \t]/, "", $2); if ($2 != "") print $2 }' | sort -u
}

newest() { # the highest Debian version on stdin
	local v best=
	while IFS= read -r v; do
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then
			best=$v
		fi
	done
	printf '%s\n' "$best"
}

check() { # PKG=VERSION...
	local spec pkg ver have
	for spec in "$@"; do
		case $spec in *=*) ;; *) continue ;; esac
		pkg=${spec%%=*} ver=${spec#*=}
		have=$(offered "$pkg")
		[ -n "$have" ] || die "apt offers no $pkg at all: check /etc/apt/sources.list, then 'apt-get update'"
		grep -qxF "$ver" <<<"$have" ||
			die "apt no longer offers $pkg $ver, the version kernel/PINNED pins: run 'make repin' to move the pin to the newest one"
	done
}

set_pin() { # package version
	sed "s/^$1 .*/$1 $2/" "$pins" >"$pins.tmp"
	mv "$pins.tmp" "$pins"
}

series_files() { # dir: the patches its series lists, in order
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1/series" | while IFS= read -r p; do
		printf '%s\n' "$1/$p"
	done
}

# The new source in build/repin/linux, committed as tree.sh does (tag base);
# objects of build/linux borrowed, so git am -3 finds the blobs the patches
# name. The installed package is left as it is: make deps installs the new
# pin once it is written.
extract() { # version
	local tarball=/usr/src/linux-source-6.1.tar.xz tree=$work/linux
	mkdir -p "$work"
	if [ "$(dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null)" != "$1" ]; then
		rm -f "$work"/linux-source-6.1_*.deb
		(cd "$work" && apt-get download "linux-source-6.1=$1") >"$work/download.log" 2>&1 ||
			die "apt-get download linux-source-6.1=$1 failed (see $work/download.log)"
		tarball=$work/linux-source-6.1.tar.xz
		dpkg-deb --fsys-tarfile "$work"/linux-source-6.1_*.deb |
			tar -xO ./usr/src/linux-source-6.1.tar.xz >"$tarball" ||
			die "no linux-source-6.1.tar.xz in the package of $1"
	fi
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xJf "$tarball" -C "$tree" --strip-components=1
	git -C "$tree" init -q -b uringcmd-base
	git -C "$tree" add -f -A .
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git -C "$tree" "${ident[@]}" commit -q -m "linux-source-6.1 $1 (pristine)"
	git -C "$tree" tag base
	if [ -d "$top/build/linux/.git/objects" ]; then
		echo "$top/build/linux/.git/objects" >"$tree/.git/objects/info/alternates"
	fi
	rm -f "$work"/linux-source-6.1_*.deb "$work/linux-source-6.1.tar.xz"
}

# Every patch of both series in order; one that does not apply is reported
# and left out, and the rest still tried, so one run lists them all.
apply() { # branch dir
	local p why tree=$work/linux
	git -C "$tree" checkout -q -B "$1"
	for p in $(series_files "$2"); do
		if ! git -C "$tree" "${ident[@]}" am -q -3 --keep-cr "$p" >"$work/am.log" 2>&1; then
			why=$(git -C "$tree" diff --name-only --diff-filter=U | tr '\n' ' ')
			why=${why:+conflicts in ${why% }}
			[ -n "$why" ] || why=$(grep -m1 '^error:' "$work/am.log" || tail -n 1 "$work/am.log")
			failed+=("${p#"$top"/}: $why")
			git -C "$tree" am --abort 2>/dev/null || true
		fi
	done
}

repin_kernel() {
	local old new f failed=()
	old=$(pinned linux-source-6.1)
	new=$(offered linux-source-6.1 | newest)
	[ -n "$new" ] || die "apt offers no linux-source-6.1 at all: check /etc/apt/sources.list, then 'apt-get update'"
	if [ "$new" = "$old" ]; then
		echo "kernel/repin.sh: linux-source-6.1 stays at $old, the newest apt offers"
		return 0
	fi
	echo "kernel/repin.sh: trying both series on linux-source-6.1 $new (was $old): a few minutes"
	extract "$new"
	apply core "$top/patches"
	apply nvme "$top/drivers-nvme"
	if [ "${#failed[@]}" -gt 0 ]; then
		echo "kernel/repin.sh: on linux-source-6.1 $new these patches no longer apply (one may fail only because an earlier one did):" >&2
		for f in "${failed[@]}"; do
			echo "  $f" >&2
		done
		die "kernel/PINNED still pins $old; build/repin/linux has $new with the patches that applied"
	fi
	set_pin linux-source-6.1 "$new"
	rm -rf "$work/linux"
	cat <<-EOF
	kernel/repin.sh: kernel/PINNED now pins linux-source-6.1 $new (was $old); both series apply.
	  Next: 'make export-patches' if build/linux holds commits of yours, then 'rm -rf build/linux',
	  'make check' (extracts $new), 'make export-patches', and commit kernel/PINNED, patches/, drivers-nvme/.
	EOF
}

# fio: the engine is built against the pinned version's source and loaded by
# its /usr/bin/fio; it builds into fio 3.33 and newer (fio-engine/README.md),
# and make check (make fio) says whether the new one fits. The source:
# lines of kernel/PINNED (fio 3.41, liburing 2.9) are moved by hand.
repin_fio() {
	local old new
	old=$(pinned fio)
	new=$(offered fio | newest)
	[ -n "$new" ] || die "apt offers no fio at all: check /etc/apt/sources.list, then 'apt-get update'"
	if [ "$new" = "$old" ]; then
		echo "kernel/repin.sh: fio stays at $old, the newest apt offers"
		return 0
	fi
	set_pin fio "$new"
	echo "kernel/repin.sh: kernel/PINNED now pins fio $new (was $old): 'make check' builds the engine against it; commit kernel/PINNED if it passes"
}

case ${1:-} in
check) shift; check "$@" ;;
'') repin_kernel; repin_fio ;;	# the kernel first: a failure moves no pin
*) die "usage: kernel/repin.sh [check PKG=VERSION...]" ;;
esac
