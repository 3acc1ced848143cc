#!/bin/bash
# The library's protection information on the host (tests/host/lib_pi.c):
# generated PI passes its own check; damage to the data, the metadata
# before a last-placed PI, the application tag (under its mask) and the
# reference tag each fail it, naming block and field; escaped blocks are
# not checked. Prints "PASS lib_pi[host]" or FAIL lines.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/uringcmd-lib-pi.XXXXXX)
trap 'rm -rf "$work"' EXIT
if ! cc -std=gnu11 -Wall -Wextra -Werror -O2 -D_GNU_SOURCE -I"$top/lib" \
	-o "$work/lib_pi" "$top/tests/host/lib_pi.c" -luring -lnvme >"$work/cc.log" 2>&1; then
	echo "FAIL lib_pi[host]: does not build: $(head -n 1 "$work/cc.log")"
	exit 1
fi
"$work/lib_pi"
