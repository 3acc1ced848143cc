#!/bin/bash
# make deb: the patched kernel in build/linux as Debian packages (the
# kernel's own bindeb-pkg), for the user's own machine: their config
# (CONFIG=file, else the running kernel's /boot/config-$(uname -r)) plus
# kernel/deb.config, release VERSION-uringcmd. Built in build/linux/obj-deb
# through ccache as kernel/build.sh builds; the packages land in build/deb
# (the last build's only). Nothing is installed here.
# usage: kernel/deb.sh [CONFIG]
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/linux
# UC_DEB_OBJ: another object folder; UC_DEB_CONFIG_ONLY=1: stop once
# configured (both for tests/host/deb.sh's config checks)
obj=${UC_DEB_OBJ:-$src/obj-deb}
out=$top/build/deb
frag=$top/kernel/deb.config
# The series' name in the release, as make's LOCALVERSION (not
# CONFIG_LOCALVERSION: a CONFIG_ value lands in autoconf.h, which every
# object includes, and ccache would miss on all of them).
localversion=-uringcmd
# UC_BOOT: where the running kernel's config is looked for (the tests
# point it elsewhere)
boot=${UC_BOOT:-/boot}

die() { printf 'kernel/deb.sh: %s\n' "$*" >&2; exit 1; }
progress() { printf '==> %s\n' "$*" >&2; }

[ -f "$src/Makefile" ] || die "no kernel tree in $src (run 'make tree')"
config=${1:-}
if [ -z "$config" ]; then
	config=$boot/config-$(uname -r)
	[ -f "$config" ] ||
		die "no $config: the running kernel ($(uname -r)) did not come with its config (not a Debian kernel?). Name one: make deb CONFIG=path/to/config (a Debian 12 machine's /boot/config-6.1.0-*-amd64, or a kernel's .config)"
fi
[ -f "$config" ] || die "CONFIG=$config: no such file"
config=$(realpath "$config")
grep -q '^CONFIG_X86_64=y$' "$config" ||
	die "$config is not an x86_64 kernel config (no CONFIG_X86_64=y)"

# The make of the user's make deb must not reach the kernel's (its
# CONFIG=, KERNEL=, T= ...); V=1 shows the kernel build itself.
unset MAKEFLAGS MFLAGS MAKELEVEL
quiet=-s
[ "${V:-0}" != 1 ] || quiet=
# ccache exactly as kernel/build.sh sets it up, so that the objects that
# the two configs share are hits (obj-deb, like obj, sits right under the
# tree, so the compiler sees the same relative paths).
# shellcheck source=kernel/kbuild.sh
. "$top/kernel/kbuild.sh"
kbuild_ccache "$top"
export LOCALVERSION=$localversion
kmake() { make $quiet -C "$src" O="$obj" CC='ccache gcc' HOSTCC='ccache gcc' LOCALVERSION="$localversion" "$@"; }

mkdir -p "$obj"
cfg=$obj/.config
value() { sed -n "s/^$1=//p" "$cfg"; }
# a file a config string names: absolute, or in the tree or the object folder
names_file() { [ -n "$1" ] && { [ -f "$1" ] || [ -f "$src/$1" ] || [ -f "$obj/$1" ]; }; }

# Reconfigure only when the config or the fragment changed: a rebuild
# stays incremental.
stamp=$obj/.uringcmd-deb-config
want=$(cat "$config" "$frag" | sha256sum)
if [ ! -f "$cfg" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	progress "deb: config ${config#"$top/"} plus kernel/deb.config"
	cp "$config" "$cfg"
	while IFS= read -r line; do
		opt=${line%%=*}
		# a module stays a module; anything else is built in
		[ "$(value "$opt")" = m ] || "$src/scripts/config" --file "$cfg" --enable "${opt#CONFIG_}"
	done < <(grep -E '^CONFIG_[A-Z0-9_]+=y$' "$frag")
	kmake olddefconfig >/dev/null
	# A distribution's config names its own certificates (Debian's
	# debian/certs/*.pem), which only its build has: trust none beyond the
	# build's own key. A module signing key that is not here either: the
	# kernel's default, which the build generates (certs/signing_key.pem).
	for opt in CONFIG_SYSTEM_TRUSTED_KEYS CONFIG_SYSTEM_REVOCATION_KEYS; do
		v=$(value "$opt" | tr -d '"')
		if [ -n "$v" ] && ! names_file "$v"; then
			progress "deb: $opt names $v, which is not here: set to \"\""
			"$src/scripts/config" --file "$cfg" --set-str "${opt#CONFIG_}" ''
		fi
	done
	v=$(value CONFIG_MODULE_SIG_KEY | tr -d '"')
	case $v in
	''|certs/signing_key.pem|pkcs11:*) ;;
	*)
		if ! names_file "$v"; then
			progress "deb: CONFIG_MODULE_SIG_KEY names $v, which is not here: a key of the build's own (certs/signing_key.pem)"
			"$src/scripts/config" --file "$cfg" --set-str MODULE_SIG_KEY certs/signing_key.pem
		fi ;;
	esac
	kmake olddefconfig >/dev/null
	while IFS= read -r line; do
		grep -qE "^${line%=y}=[ym]$" "$cfg" ||
			die "'$line' (kernel/deb.config) did not survive olddefconfig on ${config#"$top/"}: something it depends on is off there"
	done < <(grep -E '^CONFIG_[A-Z0-9_]+=y$' "$frag")
	if grep -q '^CONFIG_MODULE_SIG=y$' "$cfg" && [ "$(value CONFIG_MODULE_SIG_KEY)" = '"certs/signing_key.pem"' ]; then
		command -v openssl >/dev/null ||
			die "CONFIG_MODULE_SIG=y: the build generates a signing key with openssl, which is not installed (run 'make deps')"
	fi
	printf '%s\n' "$want" >"$stamp"
fi
[ "${UC_DEB_CONFIG_ONLY:-0}" = 0 ] || exit 0

# The package revision: one more than the last build's, as bindeb-pkg
# counts (the object folder's .version); the build and the packaging must
# agree on it, or the packaging would relink.
rev=$(( $(cat "$obj/.version" 2>/dev/null || echo 0) + 1 ))
printf '%s\n' "$rev" >"$obj/.version"

t0=$(date +%s)
progress "deb: building the kernel in ${obj#"$top/"} (a rebuild or a config close to the guest's: minutes; a distribution's config from an empty ccache: hours on 2 cores)"
# after a whole build here, its count of objects (as kernel/build.sh)
total=$(cat "$obj/.uringcmd-objects" 2>/dev/null || true)
[ -z "$quiet" ] || ticker_start deb "$obj" "$t0" "$total"
kmake -j"$(nproc)" KBUILD_BUILD_VERSION="$rev" vmlinux modules
# bzImage's own objects without ccache, as kernel/build.sh builds them
# (its piggy.S takes vmlinux in by .incbin, which depend mode does not
# hash: a hit could put another build's kernel into this one's image).
CCACHE_DISABLE=1 kmake -j"$(nproc)" KBUILD_BUILD_VERSION="$rev" bzImage
ticker_stop
find "$obj" -name '*.o' ! -name '.tmp*' | wc -l >"$obj/.uringcmd-objects"
release=$(cat "$obj/include/config/kernel.release")
version=$release-$rev
progress "deb: kernel $release built in $(( $(date +%s) - t0 )) s; packaging it (bindeb-pkg)"

# bindeb-pkg writes into the object folder's parent, the tree: clear what
# an earlier run may have left there, move the results to build/deb.
t0=$(date +%s)
rm -f "$src"/linux-*.deb "$src"/linux-upstream_*.buildinfo "$src"/linux-upstream_*.changes
log=$obj/bindeb-pkg.log
if ! kmake -j"$(nproc)" KBUILD_BUILD_VERSION="$rev" KDEB_PKGVERSION="$version" \
	bindeb-pkg >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	die "bindeb-pkg failed (all of its output: ${log#"$top/"})"
fi
debs=$(cd "$src" && ls linux-*_"$version"_*.deb 2>/dev/null) ||
	die "bindeb-pkg made no package of version $version (${log#"$top/"})"
rm -rf "$out"
mkdir -p "$out"
# shellcheck disable=SC2086 # file names without blanks, split on purpose
(cd "$src" && mv $debs linux-upstream_"$version"_*.buildinfo linux-upstream_"$version"_*.changes "$out/")
progress "deb: packaged in $(( $(date +%s) - t0 )) s, in ${out#"$top/"}: $(echo "$debs" | paste -sd ' ' -)"
