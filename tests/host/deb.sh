#!/bin/bash
# make deb as a user meets it, never installed here: the package of the
# patched kernel, its config taken from the plain guest kernel's
# (build/linux/obj/.config, so that almost every object is a ccache hit;
# about 3 minutes), then its linux-image package unpacked (dpkg-deb -x)
# and its /boot/vmlinuz booted in a guest (a minute or two): uname -r there
# is the package's release and names the series, and a few tests pass.
# Before that, without a build: kernel/deb.config is a part of
# kernel/guest.config; without CONFIG= and without the running kernel's
# /boot/config-*, make deb says so and names CONFIG=; and a Debian-like
# config (Debian's certificates, its own signing key, the NVMe driver a
# module, no multipath) is made buildable.
#
# Prints "PASS deb[host]" or "FAIL deb[host]: reason".
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
name='deb[host]'
work=$(mktemp -d /tmp/uringcmd-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
results=$top/build/results/deb

fail() { echo "FAIL $name: $*"; exit 1; }
progress() { printf '==> %s\n' "$*" >&2; }
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KERNEL -u DEBUG -u CONFIG make -s -C "$top" "$@"; }

base=$top/build/linux/obj/.config
[ -f "$base" ] || fail "no $base: the plain guest kernel is built first (make kernel)"

# kernel/deb.config: only options guest.config has
while IFS= read -r line; do
	grep -qxF "$line" "$top/kernel/guest.config" || fail "kernel/deb.config's $line is not in kernel/guest.config"
done < <(grep -E '^CONFIG_' "$top/kernel/deb.config")

# No CONFIG= and no config for the running kernel: one message, naming
# CONFIG= and the running kernel, and no build.
mkdir "$work/boot"
if UC_BOOT=$work/boot mk deb >"$work/out" 2>"$work/err"; then
	fail "make deb without a config did not fail"
fi
grep -q "no $work/boot/config-$(uname -r):.*make deb CONFIG=" "$work/err" ||
	fail "make deb without a config: $(tail -n 2 "$work/err" | tr '\n' ' ')"

# A Debian-like config: configured only, in a folder of its own.
{
	grep -v -e '^CONFIG_BLK_DEV_NVME=' -e '^CONFIG_NVME_MULTIPATH=' "$base"
	printf '%s\n' CONFIG_BLK_DEV_NVME=m CONFIG_MODULE_SIG=y CONFIG_SYSTEM_BLACKLIST_KEYRING=y \
		CONFIG_PKCS7_MESSAGE_PARSER=y CONFIG_SYSTEM_REVOCATION_LIST=y \
		'CONFIG_MODULE_SIG_KEY="debian/certs/signing.pem"' \
		'CONFIG_SYSTEM_TRUSTED_KEYS="debian/certs/debian-uefi-certs.pem"' \
		'CONFIG_SYSTEM_REVOCATION_KEYS="debian/certs/revoked.pem"'
} >"$work/debian.config"
UC_DEB_OBJ=$work/obj UC_DEB_CONFIG_ONLY=1 "$top/kernel/deb.sh" "$work/debian.config" \
	>"$work/out" 2>"$work/err" || fail "configuring a Debian-like config: $(tail -n 2 "$work/err" | tr '\n' ' ')"
for want in CONFIG_BLK_DEV_NVME=m CONFIG_NVME_MULTIPATH=y CONFIG_IO_URING=y \
	'CONFIG_SYSTEM_TRUSTED_KEYS=""' 'CONFIG_SYSTEM_REVOCATION_KEYS=""' \
	'CONFIG_MODULE_SIG_KEY="certs/signing_key.pem"'; do
	grep -qxF "$want" "$work/obj/.config" || fail "a Debian-like config did not end with $want"
done
[ "$(grep -c 'which is not here' "$work/err")" = 3 ] ||
	fail "the certificates and key replaced are not all named: $(tr '\n' ' ' <"$work/err")"

# The package, from the guest kernel's config.
t0=$(date +%s)
mk deb CONFIG="$base" >"$work/out" || fail "make deb CONFIG=$base failed"
build_s=$(( $(date +%s) - t0 ))
release=$(mk -C "$top/build/linux" kernelversion)-uringcmd
deb=$top/build/deb/linux-image-${release}_${release}-
set -- "$deb"*_amd64.deb
if [ $# != 1 ] || [ ! -f "$1" ]; then
	fail "not one linux-image package of $release in build/deb: $(cd "$top/build/deb" 2>/dev/null && echo *)"
fi
deb=$1
[ "$(dpkg-deb -f "$deb" Package)" = "linux-image-$release" ] ||
	fail "$deb: Package: $(dpkg-deb -f "$deb" Package), not linux-image-$release"
version=$(dpkg-deb -f "$deb" Version)
case $version in
"$release"-[0-9]*) ;;
*) fail "$deb: Version: $version, not $release-N" ;;
esac
[ "$(dpkg-deb -f "$deb" Architecture)" = amd64 ] || fail "$deb: Architecture: $(dpkg-deb -f "$deb" Architecture)"
[ -f "$top/build/deb/linux-headers-${release}_${version}_amd64.deb" ] ||
	fail "no linux-headers-$release $version in build/deb"

dpkg-deb -x "$deb" "$work/root"
kernel=$work/root/boot/vmlinuz-$release
[ -f "$kernel" ] || fail "$deb has no /boot/vmlinuz-$release"
while IFS= read -r line; do
	grep -qxF "$line" "$work/root/boot/config-$release" || fail "$deb's config lacks $line"
done < <(grep -E '^CONFIG_' "$top/kernel/deb.config")

# Its kernel in a guest (its config beside it, checked by run-nvme.sh):
# uname -r, then a few tests as make test runs them.
rm -rf "$results"
mkdir -p "$results"
t0=$(date +%s)
status=0
"$top/qemu/run-nvme.sh" -k "$kernel" --timeout 600 -n 1 --append nvme.poll_queues=1 --results "$results" -- \
	sh -c 'uname -r >/run/results/uname-r && exec "$@"' sh \
	env TEST_ONLY='block_query_* nvme_bdev_io' TEST_FABRICS=0 TEST_STRICT=1 \
	TEST_REQUIRE_NVME=1 TEST_TIMEOUT=120 TEST_CQE_TIMEOUT_MS=30000 \
	TEST_RESULTS_HOST="$results/tests" \
	"$top/tests/run.sh" "$top/build/tests" /run/results/tests >"$results/guest.log" || status=$?
boot_s=$(( $(date +%s) - t0 ))
uname=$(cat "$results/uname-r" 2>/dev/null || true)
[ "$uname" = "$release" ] || fail "the packaged kernel's uname -r is '$uname', not $release (console: $results/console.log)"
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$results/guest.log" || true)
case $status,$summary in
0,*' passed, 0 failed, 0 skipped') ;;
*) fail "the tests on the packaged kernel: ${summary:-no summary} (status $status): $(grep -E '^(FAIL|SKIP) ' "$results/guest.log" | head -n 3 | tr '\n' ' ')(log: $results/guest.log)" ;;
esac
[ "${summary%% *}" -ge 9 ] || fail "only ${summary%% *} tests ran on the packaged kernel ($results/guest.log)"
progress "deb: $release, package $version: make deb $build_s s, the boot and its tests $boot_s s ($summary)"
echo "PASS $name"
