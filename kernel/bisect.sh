#!/bin/bash
# Build every prefix of both series, so that each patch builds on its own
# (bisectable): each commit from base to the tip of branch nvme in
# build/linux is checked out in a worktree (build/bisect) and built there,
# incrementally, with the plain guest config, through ccache. A commit that
# does not build, or that adds a compiler warning, fails.
#   usage: kernel/bisect.sh      (prints PASS/FAIL per commit; exit 1 on any FAIL)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
wt=$top/build/bisect
logs=$top/build/results/bisect

die() { printf 'kernel/bisect.sh: %s\n' "$*" >&2; exit 1; }

git -C "$tree" rev-parse -q --verify refs/heads/nvme >/dev/null ||
	die "no branch nvme in build/linux (run 'make kernel')"
git -C "$tree" worktree prune
[ -d "$wt/.git" ] || [ -f "$wt/.git" ] ||
	git -C "$tree" worktree add -q --detach "$wt" base
mkdir -p "$logs"
fail=0
for c in $(git -C "$tree" rev-list --reverse base..nvme); do
	git -C "$wt" checkout -q --detach "$c"
	subject=$(git -C "$wt" log -1 --format='%h %s')
	log=$logs/$(git -C "$wt" log -1 --format=%h).log
	if ! KSRC=$wt "$top/kernel/build.sh" "$wt/obj" "$top/kernel/guest.config" >"$log" 2>&1; then
		echo "FAIL bisect[$subject]: does not build (see $log)"
		fail=1
	elif grep -q 'warning:' "$log"; then
		echo "FAIL bisect[$subject]: $(grep -m1 'warning:' "$log")"
		fail=1
	else
		echo "PASS bisect[$subject]"
	fi
done
exit "$fail"
