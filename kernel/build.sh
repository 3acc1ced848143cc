#!/bin/bash
# Build a guest bzImage from build/linux: allnoconfig plus the committed
# fragments (everything the guest has is listed there), then an incremental
# make through ccache.
# usage: kernel/build.sh OBJDIR FRAGMENT...
#   KTARGETS: make targets instead of bzImage (kernel/bisect.sh builds single
#   objects: "prepare", "block/ioctl.o ...")
set -eu

# KSRC: another checkout of the tree (kernel/bisect.sh builds a worktree)
src=${KSRC:-$(cd "$(dirname "$0")/.." && pwd)/build/linux}
obj=$1
shift

die() { printf 'kernel/build.sh: %s\n' "$*" >&2; exit 1; }
# One line per step on stderr, for the bzImage builds of make (not for the
# single objects kernel/bisect.sh builds).
progress() { [ -n "${KTARGETS:-}" ] || printf '==> %s\n' "$*" >&2; }

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

# shellcheck source=kernel/kbuild.sh
. "$(dirname "$0")/kbuild.sh"
kbuild_ccache "$(cd "$src/../.." && pwd)"
hostcc='ccache gcc'

# Reconfigure only when a fragment changed, so rebuilds stay incremental.
stamp=$obj/.uringcmd-fragments
want=$(cat "$@" | sha256sum)
if [ ! -f "$obj/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	# The last fragment to set a symbol wins, as in merge_config.sh.
	awk -F= '/^CONFIG_[A-Z0-9_]+=/ { if (!($1 in want)) order[n++] = $1; want[$1] = $0 }
		END { for (i = 0; i < n; i++) print want[order[i]] }' "$@" >"$obj/.uringcmd-allconfig"
	# allnoconfig with the fragments as KCONFIG_ALLCONFIG: what they set,
	# and everything else off that may be (Documentation/kbuild/kconfig.rst)
	make -s -C "$src" O="$obj" HOSTCC="$hostcc" KCONFIG_ALLCONFIG="$obj/.uringcmd-allconfig" \
		allnoconfig >/dev/null
	make -s -C "$src" O="$obj" HOSTCC="$hostcc" olddefconfig >/dev/null
	while IFS= read -r line; do
		case $line in
		*=n) ! grep -q "^${line%=n}=" "$obj/.config" ||
			die "'$line' did not survive olddefconfig" ;;
		*) grep -qxF "$line" "$obj/.config" ||
			die "'$line' did not survive olddefconfig" ;;
		esac
	done <"$obj/.uringcmd-allconfig"
	printf '%s\n' "$want" >"$stamp"
fi

export KBUILD_BUILD_TIMESTAMP='2000-01-01'
export KBUILD_BUILD_USER=uringcmd KBUILD_BUILD_HOST=uringcmd
# V=1: make's own output instead of the progress lines
quiet=-s
[ "${V:-0}" != 1 ] || quiet=
t0=$(date +%s)
# A first build's time on 2 idle cores, from an empty ccache
# (docs/development.md)
# and how many objects a whole build compiles (measured: docs/development.md)
case " $(basename -a "$@" | paste -sd ' ' -) " in
*' debug.config '*) first=13 total=1354 ;;
*' guest.config '*) first=12 total=1372 ;;
*' run.config '*) first=7 total=930 ;;
*) first=12 total= ;;
esac
# after a whole build here, its own count
[ ! -s "$obj/.uringcmd-objects" ] || total=$(cat "$obj/.uringcmd-objects")
progress "kernel: building ${obj#"$(pwd)/"} ($(basename -a "$@" | paste -sd ' ' -)): a first build takes about $first minutes on 2 idle cores, a rebuild minutes"
if [ -z "${KTARGETS:-}" ] && [ -n "$quiet" ]; then
	ticker_start kernel "$obj" "$t0" "$total"
fi
# shellcheck disable=SC2086 # a list of targets, split on purpose
make $quiet -C "$src" O="$obj" CC="ccache gcc" HOSTCC="$hostcc" -j"$(nproc)" ${KTARGETS:-vmlinux}
# bzImage's own objects without ccache: the compressed loader's piggy.S
# takes vmlinux in through .incbin, which depend mode does not hash, so a
# piggy.S of the same sizes as an earlier build's (one changed line often
# leaves them equal) got that build's piggy.o back from the cache, and the
# guest booted the old kernel under the new bzImage's setup header (seen
# with make mutants, 2026-12-06). A few files, a few seconds.
if [ -z "${KTARGETS:-}" ]; then
	CCACHE_DISABLE=1 make $quiet -C "$src" O="$obj" CC="ccache gcc" HOSTCC="$hostcc" \
		-j"$(nproc)" bzImage
fi
ticker_stop
# every object of a whole build, the next build's total
[ -n "${KTARGETS:-}" ] || find "$obj" -name '*.o' ! -name '.tmp*' | wc -l >"$obj/.uringcmd-objects"
progress "kernel: ${KTARGETS:-bzImage} ready in $(( $(date +%s) - t0 )) s"
