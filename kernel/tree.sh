#!/bin/bash
# The kernel tree in build/linux and the two patch series kept in the repo.
#
#   kernel/tree.sh prepare   extract linux-source-6.1 into build/linux (once),
#                            then apply patches/ on branch 'core' and
#                            drivers-nvme/ on branch 'nvme' with git am
#   kernel/tree.sh export    re-export both series with git format-patch
#
# KVER=6.12 in the environment: linux-source-6.12 into build/linux-6.12,
# with patches-6.12/ and drivers-nvme-6.12/.
#
# Developers edit and commit in build/linux and export; nobody edits a .patch.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
kver=${KVER:-6.1}
# shellcheck source=kernel/kbuild.sh
. "$top/kernel/kbuild.sh"
kbuild_kver "$top"
suffix=$kver_suffix
pkg=linux-source-$kver
tree=$top/build/linux$suffix
tname=build/linux$suffix
core_dir=$top/patches$suffix
nvme_dir=$top/drivers-nvme$suffix
tarball=/usr/src/$pkg.tar.xz
pinned=$(sed -n "s/^$pkg //p" "$top/kernel/PINNED")
stamp=$tree/.git/uringcmd-applied
ident=(-c user.name='uringcmd developers' -c user.email='uringcmd@invalid')

die() { printf 'kernel/tree.sh: %s\n' "$*" >&2; exit 1; }
progress() { printf '==> %s\n' "$*" >&2; }
g() { git -C "$tree" "${ident[@]}" "$@"; }

series_files() { # dir: the patches its series lists, in order
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1/series" | while IFS= read -r p; do
		[ -f "$1/$p" ] || die "$1/series lists $p, which does not exist"
		printf '%s\n' "$1/$p"
	done
}

want_stamp() {
	{
		cat "$core_dir/series" "$nvme_dir/series"
		series_files "$core_dir" | xargs -r cat
		series_files "$nvme_dir" | xargs -r cat
	} | sha256sum | cut -d' ' -f1
}

check_pinned() {
	local have
	have=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null) ||
		die "$pkg is not installed (run 'make deps${suffix:+ KVER=$kver}')"
	[ "$have" = "$pinned" ] ||
		die "$pkg is $have, the series is pinned to $pinned (kernel/PINNED): run 'make deps${suffix:+ KVER=$kver}', which installs $pinned"
	[ -f "$tarball" ] || die "$tarball is missing"
}

# A tree extracted before the pin moved (make repin) is not the pinned source.
check_tree_pinned() {
	local base
	base=$(g log -1 --format=%s base)
	[ "$base" = "$pkg $pinned (pristine)" ] ||
		die "$tname is '$base', kernel/PINNED pins $pinned: 'make export-patches' if it holds commits of yours, then 'rm -rf $tname' and make again"
}

extract() {
	local t0
	check_pinned
	t0=$(date +%s)
	progress "tree: extracting $pkg $pinned into $tname (about a minute)"
	rm -rf "$tree" "$tree.tmp"
	mkdir -p "$tree.tmp"
	tar -xJf "$tarball" -C "$tree.tmp" --strip-components=1
	git -C "$tree.tmp" init -q -b uringcmd-base
	# Debian's top-level .gitignore ignores every top-level entry: add all.
	git -C "$tree.tmp" add -f -A .
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git -C "$tree.tmp" "${ident[@]}" commit -q \
		-m "$pkg $pinned (pristine)"
	git -C "$tree.tmp" tag base
	mv "$tree.tmp" "$tree"
	progress "tree: extracted in $(( $(date +%s) - t0 )) s"
}

# The cover letter's subject and body, as a branch description for export.
cover_description() { # cover-letter.patch
	[ -f "$1" ] || return 0
	awk '
		/^Subject: / { sub(/^Subject: (\[[^]]*\] )?/, ""); subj = $0; hdr = 1; next }
		# a long subject is folded onto lines that start with a blank
		hdr && !body && /^ / { subj = subj $0; next }
		hdr && /^$/ && !body { print subj; print ""; body = 1; next }
		body && /^[^ ].* \([0-9]+\):$/ { exit }
		body { print }
	' "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}

apply() { # branch dir
	local patches=() next
	g checkout -q -B "$1"
	mapfile -t patches < <(series_files "$2")
	[ "${#patches[@]}" -gt 0 ] || die "$2/series lists no patch"
	# one git am for the series: it reads the tree's index once, not once
	# a patch; on a failure its rebase-apply/next is the patch it stopped at
	if ! g am -q --3way --keep-cr "${patches[@]}"; then
		next=$(cat "$tree/.git/rebase-apply/next" 2>/dev/null || echo 0)
		g am --abort 2>/dev/null || true
		if [ "$next" -lt 1 ] || [ "$next" -gt "${#patches[@]}" ]; then
			die "git am failed on $2/series"
		fi
		die "${patches[$((next - 1))]} does not apply"
	fi
	g config "branch.$1.description" "$(cover_description "$2/0000-cover-letter.patch")"
}

prepare() {
	local want applied head t0
	if [ ! -d "$tree/.git" ] || ! g rev-parse -q --verify refs/tags/base >/dev/null; then
		extract
	fi
	check_tree_pinned
	want=$(want_stamp)
	applied=$(cat "$stamp" 2>/dev/null || true)
	head=$(g rev-parse HEAD)
	[ "$applied" = "$want $head" ] && return 0
	if [ -n "$applied" ] && [ "${applied#* }" != "$head" ] && [ -z "${REAPPLY:-}" ]; then
		die "$tname has commits that are not exported: run 'make export-patches', or 'make kernel REAPPLY=1' to drop them"
	fi
	[ -z "$(g status --porcelain -uno)" ] ||
		die "$tname has uncommitted changes: commit them or 'git -C $tname checkout .'"
	t0=$(date +%s)
	progress "tree: applying ${core_dir#"$top"/}/ and ${nvme_dir#"$top"/}/ (git am)"
	g checkout -q --detach base
	apply core "$core_dir"
	apply nvme "$nvme_dir"
	printf '%s %s\n' "$want" "$(g rev-parse HEAD)" >"$stamp"
	progress "tree: $(g rev-list --count base..HEAD) patches applied in $(( $(date +%s) - t0 )) s"
}

export_series() { # from to dir
	local date name email n
	rm -f "$3"/*.patch
	n=$(g rev-list --count "$1..$2")
	if [ "$n" -gt 0 ]; then
		date=$(g log -1 --format=%aD "$2")
		name=$(g log -1 --format=%an "$2")
		email=$(g log -1 --format=%ae "$2")
		GIT_COMMITTER_DATE=$date GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email \
			git -C "$tree" format-patch -q --zero-commit --no-signature --abbrev=12 \
			--cover-letter --cover-from-description=subject \
			-o "$3" "$1..$2"
	fi
	{
		printf '# Applied in this order with git am (kernel/tree.sh prepare).\n'
		for p in "$3"/[0-9][0-9][0-9][0-9]-*.patch; do
			case $p in */0000-cover-letter.patch|*"/[0-9]"*) ;; *) basename "$p" ;; esac
		done
	} >"$3/series"
}

export_patches() {
	[ -d "$tree/.git" ] || die "no $tname: run 'make tree${suffix:+ KVER=$kver}' first"
	g rev-parse -q --verify refs/heads/core >/dev/null || die "no branch 'core' in $tname"
	[ "$(g rev-parse --abbrev-ref HEAD)" = nvme ] ||
		die "check out branch 'nvme' in $tname (core series below it) before exporting"
	g merge-base --is-ancestor core nvme || die "branch 'nvme' is not on top of 'core'"
	export_series base core "$core_dir"
	export_series core nvme "$nvme_dir"
	printf '%s %s\n' "$(want_stamp)" "$(g rev-parse HEAD)" >"$stamp"
}

case ${1:-} in
prepare) prepare ;;
export) export_patches ;;
*) die "usage: kernel/tree.sh prepare|export" ;;
esac
