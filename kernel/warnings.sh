#!/bin/bash
# The W=1 and sparse gate: every C file that either series touches is
# compiled with W=1 and checked with sparse (C=2) at the tip of branch nvme,
# in the build/bisect worktree, and the files that warn there again at base;
# a warning at the tip that base does not have (compared without line
# numbers) fails. A file the tip compiles cleanly has nothing new, so base
# is only compiled for the files that warn at the tip (6 of 27 in 2026-12).
#   usage: kernel/warnings.sh     (PASS/FAIL per file; exit 1 on any FAIL)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
# KVER=6.12 in the environment: the 6.12 series in build/linux-6.12, built
# with kernel/6.12.config on top of the guest config.
# shellcheck source=kernel/kbuild.sh
. "$top/kernel/kbuild.sh"
kbuild_kver "$top"
suffix=$kver_suffix
tree=$top/build/linux$suffix
wt=$top/build/bisect$suffix
out=$top/build/results/warnings$suffix

die() { printf 'kernel/warnings.sh: %s\n' "$*" >&2; exit 1; }

command -v sparse >/dev/null || die "no sparse (run 'make deps')"
git -C "$tree" worktree prune
[ -e "$wt/.git" ] || git -C "$tree" worktree add -q --detach "$wt" base
mkdir -p "$out"
mapfile -t files < <(git -C "$tree" diff --name-only base nvme -- '*.c')

# warnings REV FILE...: W=1 and sparse output of those files, line numbers
# dropped. One make for them all (make's own start takes 4 s here, more
# than most of these files take to compile), -j1 and -k: each warning
# follows the CC or CHECK line of the file it is for, and a file that
# does not compile does not stop the others.
warnings() {
	local f targets=()
	git -C "$wt" checkout -q --detach "$1"
	shift
	KSRC=$wt KTARGETS=prepare "$top/kernel/build.sh" "$wt/obj" \
		"${kver_configs[@]}" >/dev/null
	for f in "$@"; do
		[ -f "$wt/$f" ] || continue	# added by the series
		touch "$wt/$f"
		targets+=("${f%.c}.o")
	done
	[ "${#targets[@]}" -gt 0 ] || return 0
	# HOSTCC as build.sh has it, or the host programs rebuild each time
	make -j1 -k -C "$wt" O="$wt/obj" HOSTCC="ccache gcc" W=1 C=2 KCFLAGS=-Wno-error \
		"${targets[@]}" 2>&1 |
		awk -v files="$*" '
		BEGIN { n = split(files, w, " "); for (i = 1; i <= n; i++) want[w[i]] = 1 }
		$1 == "CC" || $1 == "CHECK" {
			f = $2 == "[M]" ? $3 : $2
			sub(/^\.\.\//, "", f)
			sub(/\.o$/, ".c", f)
			next
		}
		/warning:|error:/ && (f in want) { print f ": " $0 }' |
		sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' | sort -u
}

warnings nvme "${files[@]}" >"$out/tip.txt"
mapfile -t warned < <(sed 's/: .*//' "$out/tip.txt" | sort -u)
if [ "${#warned[@]}" -gt 0 ]; then
	warnings base "${warned[@]}" >"$out/base.txt"
else
	: >"$out/base.txt"
fi
new=$(comm -13 "$out/base.txt" "$out/tip.txt")
fail=0
for f in "${files[@]}"; do
	if grep -q "^$f: " <<<"$new"; then
		echo "FAIL warnings[$f]: $(grep -m1 "^$f: " <<<"$new")"
		fail=1
	else
		echo "PASS warnings[$f]"
	fi
done
exit "$fail"
