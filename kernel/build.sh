#!/bin/bash
# Build a guest bzImage from build/linux: merge the committed fragments onto
# x86_64_defconfig + kvm_guest.config, then an incremental make through ccache.
# usage: kernel/build.sh OBJDIR FRAGMENT...
#   KTARGETS: make targets instead of bzImage (kernel/bisect.sh builds single
#   objects: "prepare", "block/ioctl.o ...")
set -eu

# KSRC: another checkout of the tree (kernel/bisect.sh builds a worktree)
src=${KSRC:-$(cd "$(dirname "$0")/.." && pwd)/build/linux}
obj=$1
shift

die() { printf 'kernel/build.sh: %s\n' "$*" >&2; exit 1; }

[ -f "$src/Makefile" ] || die "no kernel tree in $src (run 'make kernel')"
mkdir -p "$obj"
obj=$(cd "$obj" && pwd)
frags=
for frag in "$@"; do
	[ -f "$frag" ] || die "no config fragment $frag"
	frags="$frags $(cd "$(dirname "$frag")" && pwd)/$(basename "$frag")"
done
# shellcheck disable=SC2086 # paths without blanks, split on purpose
set -- $frags

# Reconfigure only when a fragment changed, so rebuilds stay incremental.
stamp=$obj/.uringcmd-fragments
want=$(cat "$@" | sha256sum)
if [ ! -f "$obj/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	make -s -C "$src" O="$obj" x86_64_defconfig >/dev/null
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m .config \
		"$src/kernel/configs/kvm_guest.config" "$@" >/dev/null)
	make -s -C "$src" O="$obj" olddefconfig >/dev/null
	# The last fragment to set a symbol wins, as in merge_config.sh.
	awk -F= '/^CONFIG_[A-Z0-9_]+=/ { want[$1] = $0 }
		END { for (s in want) print want[s] }' "$@" |
	while IFS= read -r line; do
		case $line in
		*=n) ! grep -q "^${line%=n}=" "$obj/.config" ||
			die "'$line' did not survive olddefconfig" ;;
		*) grep -qxF "$line" "$obj/.config" ||
			die "'$line' did not survive olddefconfig" ;;
		esac
	done
	printf '%s\n' "$want" >"$stamp"
fi

export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(cd "$src/../.." && pwd)}
export CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export KBUILD_BUILD_TIMESTAMP='2000-01-01'
export KBUILD_BUILD_USER=uringcmd KBUILD_BUILD_HOST=uringcmd
# shellcheck disable=SC2086 # a list of targets, split on purpose
make -s -C "$src" O="$obj" CC="ccache gcc" -j"$(nproc)" ${KTARGETS:-bzImage}
