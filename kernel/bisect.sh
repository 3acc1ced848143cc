#!/bin/bash
# Every prefix of both series compiles (bisectable): each commit from base to
# the tip of branch nvme in build/linux is checked out in a worktree
# (build/bisect) and every C file that the two series touch is compiled there
# as it is at that commit, incrementally, through ccache, with the plain guest
# config. A file that does not compile, or a compiler warning, fails the
# commit. Linking is left to the full builds at the tip (make kernel, both
# configs): a whole kernel per commit takes 40 min here, this about 5.
#   usage: kernel/bisect.sh      (prints PASS/FAIL per commit; exit 1 on any FAIL)
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
logs=$top/build/results/bisect$suffix

die() { printf 'kernel/bisect.sh: %s\n' "$*" >&2; exit 1; }

git -C "$tree" rev-parse -q --verify refs/heads/nvme >/dev/null ||
	die "no branch nvme in build/linux$suffix (run 'make kernel${suffix:+ KVER=$KVER}')"
git -C "$tree" worktree prune
[ -e "$wt/.git" ] || git -C "$tree" worktree add -q --detach "$wt" base
mkdir -p "$logs"
mapfile -t files < <(git -C "$tree" diff --name-only base nvme -- '*.c')
[ "${#files[@]}" -gt 0 ] || die "the series touch no C file?"

git -C "$wt" checkout -q --detach base
KSRC=$wt KTARGETS=prepare "$top/kernel/build.sh" "$wt/obj" "${kver_configs[@]}" \
	>"$logs/prepare.log" 2>&1 || die "make prepare failed (see $logs/prepare.log)"

fail=0
for c in $(git -C "$tree" rev-list --reverse base..nvme); do
	git -C "$wt" checkout -q --detach "$c"
	subject=$(git -C "$wt" log -1 --format='%h %s')
	log=$logs/$(git -C "$wt" log -1 --format=%h).log
	objs=()
	for f in "${files[@]}"; do
		[ -f "$wt/$f" ] && objs+=("${f%.c}.o")
	done
	if ! KSRC=$wt KTARGETS="${objs[*]}" "$top/kernel/build.sh" "$wt/obj" \
		"${kver_configs[@]}" >"$log" 2>&1; then
		echo "FAIL bisect[$subject]: does not compile (see $log)"
		fail=1
	elif grep -q 'warning:' "$log"; then
		echo "FAIL bisect[$subject]: $(grep -m1 'warning:' "$log")"
		fail=1
	else
		echo "PASS bisect[$subject]"
	fi
done
exit "$fail"
