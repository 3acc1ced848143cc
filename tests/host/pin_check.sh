#!/bin/bash
# make deps stops with one line naming 'make repin' when apt no longer offers
# a version kernel/PINNED pins. apt is never asked: kernel/repin.sh takes its
# version lists from a stub (UC_APT_MADISON) that hides the pinned versions.
# Prints "PASS pin_check[host]" or "FAIL pin_check[host]: reason".
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
name='pin_check[host]'
work=$(mktemp -d /tmp/uringcmd-pin-check.XXXXXX)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL $name: $*"; exit 1; }

kpin=$(sed -n 's/^linux-source-6.1 //p' "$top/kernel/PINNED")
fpin=$(sed -n 's/^fio //p' "$top/kernel/PINNED")
if [ -z "$kpin" ] || [ -z "$fpin" ]; then
	fail "kernel/PINNED pins no linux-source-6.1 or no fio"
fi

# apt-cache madison's format, offering the versions in $work/PKG.
cat >"$work/madison" <<-STUB
#!/bin/sh
[ -f "$work/\$1" ] || exit 0
while read -r v; do echo "\$1 | \$v | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages"; done <"$work/\$1"
STUB
chmod +x "$work/madison"
export UC_APT_MADISON=$work/madison
offer() { # package version...
	local p=$1
	shift
	printf '%s\n' "$@" >"$work/$p"
}
check() { # spec...: kernel/repin.sh check, stderr in $work/err
	"$top/kernel/repin.sh" check "$@" 2>"$work/err" >"$work/out"
}

# make deps asks apt for exactly the pinned versions.
pkgs=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KERNEL -u DEBUG make -s -C "$top" -pn help 2>/dev/null | sed -n 's/^PINNED_PKGS := //p')
[ "$pkgs" = "linux-source-6.1=$kpin fio=$fpin" ] ||
	fail "make deps installs '$pkgs', not linux-source-6.1=$kpin fio=$fpin"

# The second fio's version is written once, on kernel/PINNED's source:fio
# line: make's FIO_NEXT is read from it, and no script or makefile names a
# build/fio-VERSION folder of its own (moving the pin is one edit).
npin=$("$top/kernel/source.sh" --pinned fio) || fail "kernel/PINNED pins no source:fio"
next=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KERNEL -u DEBUG make -s -C "$top" -pn help 2>/dev/null | sed -n 's/^FIO_NEXT := //p')
[ "$next" = "$npin" ] || fail "make's FIO_NEXT is '$next', kernel/PINNED's source:fio $npin"
own=$(cd "$top" && git ls-files -z -- Makefile '*.sh' '*.mk' '*/Makefile' .ci |
	xargs -0 grep -nE '^[^#]*fio-[0-9]+\.[0-9]+' 2>/dev/null | head -n 3 | tr '\n' ' ') || true
[ -z "$own" ] || fail "a second fio version written outside kernel/PINNED: $own"

# Offered (among others): silent, status 0.
offer linux-source-6.1 6.1.999-1 "$kpin" 6.1.1-1
offer fio "$fpin"
check build-essential "linux-source-6.1=$kpin" "fio=$fpin" ||
	fail "pinned versions offered, yet the check failed: $(cat "$work/err")"
if [ -s "$work/err" ] || [ -s "$work/out" ]; then
	fail "the check is not quiet: $(cat "$work/out" "$work/err")"
fi

# Hidden: one line, naming the package, its pin and the command.
for p in linux-source-6.1 fio; do
	offer linux-source-6.1 "$kpin"
	offer fio "$fpin"
	offer "$p" 99.0-1
	pin=$kpin
	[ "$p" = fio ] && pin=$fpin
	if check "linux-source-6.1=$kpin" "fio=$fpin"; then
		fail "$p $pin hidden from apt, yet the check passed"
	fi
	[ "$(wc -l <"$work/err")" = 1 ] || fail "$p hidden: not one line: $(cat "$work/err")"
	grep -qF "$p $pin" "$work/err" || fail "$p hidden: the message does not name $p $pin: $(cat "$work/err")"
	grep -qF "'make repin'" "$work/err" || fail "$p hidden: the message does not name 'make repin': $(cat "$work/err")"
done

# Nothing offered at all (no apt lists): a different line.
rm -f "$work/fio"
check "fio=$fpin" && fail "fio not offered at all, yet the check passed"
grep -qF 'sources.list' "$work/err" || fail "fio not offered at all: $(cat "$work/err")"

# make repin when the pins are the newest: nothing changes, nothing fetched.
offer linux-source-6.1 6.1.1-1 "$kpin"
offer fio "$fpin"
before=$(cat "$top/kernel/PINNED")
"$top/kernel/repin.sh" >"$work/out" 2>&1 || fail "make repin at the newest versions failed: $(cat "$work/out")"
[ "$(cat "$top/kernel/PINNED")" = "$before" ] || fail "make repin at the newest versions changed kernel/PINNED"
grep -q "linux-source-6.1 stays at $kpin" "$work/out" || fail "make repin at the newest versions: $(cat "$work/out")"

echo "PASS $name"
