#!/bin/bash
# make install puts the library (lib/: header-only) where a user's program
# finds it: into a temporary DESTDIR, with the default PREFIX and another
# one; tests/install/nvme_lib_installed.c builds and links against that
# copy through uringcmd-nvme.pc (which brings liburing and libnvme), with
# the system's uapi headers only, and runs (it skips: no such device here;
# the guest runs it for real); <uringcmd.h> alone builds with -m32; both
# pkg-config files carry the header's URINGCMD_VERSION; man finds a page
# for every documented function, NAME and SYNOPSIS from its comment;
# make uninstall removes it all.
# Prints "PASS lib_install[host]" or "FAIL lib_install[host]: reason".
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
name='lib_install[host]'
work=$(mktemp -d /tmp/uringcmd-install.XXXXXX)
trap 'rm -rf "$work"' EXIT

fail() {
	echo "FAIL $name: $*"
	exit 1
}

mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$top" "$@" >"$work/make.log" 2>&1 ||
		fail "make $*: $(tail -n 1 "$work/make.log")"
}

dest=$work/dest
mk install DESTDIR="$dest"
for f in include/uringcmd.h include/uringcmd-nvme.h share/pkgconfig/uringcmd.pc \
	share/pkgconfig/uringcmd-nvme.pc share/man/man3/uringcmd_prep_block_query.3; do
	[ -f "$dest/usr/local/$f" ] || fail "make install did not install /usr/local/$f"
done

pc() {
	PKG_CONFIG_PATH=$dest/usr/local/share/pkgconfig \
		pkg-config --define-variable=prefix="$dest/usr/local" "$@"
}
cflags=$(pc --cflags uringcmd) || fail "pkg-config --cflags uringcmd failed"
cflags=${cflags%% }
libs=$(pc --libs uringcmd-nvme) || fail "pkg-config --libs uringcmd-nvme failed"
case " $libs " in
*' -luring '*' -lnvme '* | *' -lnvme '*' -luring '*) ;;
*) fail "pkg-config --libs uringcmd-nvme says '$libs': not liburing and libnvme" ;;
esac
version=$(sed -n 's/^#define URINGCMD_VERSION[ \t]*"\(.*\)"/\1/p' "$top/lib/uringcmd.h")
for p in uringcmd uringcmd-nvme; do
	v=$(pc --modversion "$p") || fail "pkg-config --modversion $p failed"
	[ "$v" = "$version" ] || fail "$p.pc says version $v, <uringcmd.h> $version"
done
pc --exists "uringcmd >= $version" || fail "pkg-config: uringcmd >= $version not found"

# a page for every function with a kernel-doc comment, found by man
man=$dest/usr/local/share/man
while read -r f; do
	[ -f "$man/man3/$f.3" ] || fail "no man page for $f()"
done < <(sed -n 's/^ \* \(uringcmd_[a-z0-9_]*\)() - .*/\1/p; s|^/\*\* \(uringcmd_[a-z0-9_]*\)() - .*|\1|p' \
	"$top/lib/uringcmd.h" "$top/lib/uringcmd-nvme.h")
page=$(MANPATH=$man MANWIDTH=200 man 3 uringcmd_prep_block_query 2>&1) ||
	fail "man 3 uringcmd_prep_block_query: $(head -n 1 <<<"$page")"
grep -q 'uringcmd_prep_block_query - ask a read-only block ioctl through io_uring' <<<"$page" ||
	fail "man uringcmd_prep_block_query: no NAME line from its comment"
grep -q 'void uringcmd_prep_block_query(struct io_uring_sqe \*sqe, int fd,' <<<"$page" ||
	fail "man uringcmd_prep_block_query: no SYNOPSIS from its declaration"
[ "$cflags" = "-I$dest/usr/local/include" ] || fail "pkg-config --cflags says '$cflags'"

prog=$work/nvme_lib_installed
# shellcheck disable=SC2086 # pkg-config's flags are words
cc -std=gnu11 -Wall -Wextra -Werror -O2 -D_GNU_SOURCE $cflags \
	-o "$prog" "$top/tests/install/nvme_lib_installed.c" $libs \
	>"$work/cc.log" 2>&1 || fail "building against the installed headers: $(head -n 1 "$work/cc.log")"
rc=0
"$prog" "$work/no-such-device" >"$work/run.log" 2>&1 || rc=$?
[ "$rc" = 77 ] || fail "the installed program exits $rc, not 77 (skip), without a device: $(tail -n 1 "$work/run.log")"

printf '#include <uringcmd.h>\nint main(void) { return URINGCMD_NR_BLOCK_QUERIES != 17; }\n' >"$work/m32.c"
# shellcheck disable=SC2086
cc -m32 -std=gnu11 -Wall -Wextra -Werror -c $cflags -o "$work/m32.o" "$work/m32.c" \
	>"$work/cc32.log" 2>&1 || fail "<uringcmd.h> with -m32: $(head -n 1 "$work/cc32.log")"

mk install DESTDIR="$dest" PREFIX=/opt/uc
grep -qx 'prefix=/opt/uc' "$dest/opt/uc/share/pkgconfig/uringcmd.pc" ||
	fail "PREFIX=/opt/uc: the pkg-config file says $(head -n 1 "$dest/opt/uc/share/pkgconfig/uringcmd.pc")"

mk uninstall DESTDIR="$dest"
mk uninstall DESTDIR="$dest" PREFIX=/opt/uc
left=$(find "$dest" -type f)
[ -z "$left" ] || fail "make uninstall left $(echo "$left" | head -n 1)"
echo "PASS $name"
