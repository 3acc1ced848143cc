#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fio engine's checks that run on the host, whose kernel does not have
# the uringcmd series (nothing built here is ever loaded into it):
#   fio_enghelp[host]         fio --enghelp=uringcmd lists the options, with
#                             the built-in engine of both fios (3.33 and
#                             3.41, make fio-next) and with /usr/bin/fio
#                             loading build/fio/lib/uringcmd by name
#   fio_external_abi[host]    fio 3.41 refuses the shared object built for
#                             3.33 (fio's own FIO_IOOPS_VERSION check), in
#                             one line, before the engine runs
#   fio_unpatched_kernel[host] a block-query job on a loop device fails at
#                             once with one line saying the kernel lacks
#                             the series
#   fio_src_version[host]     make fio FIO_SRC=tree stops before compiling,
#                             in one line naming both versions, when the
#                             tree's FIO_IOOPS_VERSION is older than fio
#                             3.33's; and names an unconfigured tree
# Prints PASS/FAIL/SKIP lines as tests/run.sh does.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
fio=$top/build/fio/src/fio
fio_next=$top/build/fio-$("$top/kernel/source.sh" --pinned fio)/src/fio
lib=$top/build/fio/lib
work=$(mktemp -d /tmp/uringcmd-fio-host.XXXXXX)
loopdev=
cleanup() {
	[ -z "$loopdev" ] || losetup -d "$loopdev" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

verdict() { echo "$1 $2${3:+: $3}"; }

enghelp() {
	local name='fio_enghelp[host]' bin
	for bin in "$fio" "$fio_next" "LD_LIBRARY_PATH=$lib /usr/bin/fio"; do
		# shellcheck disable=SC2086 # "VAR=value prog" split on purpose
		if ! env $bin --enghelp=uringcmd >"$work/help" 2>&1 ||
			! grep -q '^cmd  *: The command each I/O unit issues' "$work/help" ||
			! grep -q '^block_query ' "$work/help"; then
			verdict FAIL "$name" "$bin --enghelp=uringcmd: $(head -n 2 "$work/help" | tr '\n' ' ')"
			return
		fi
	done
	verdict PASS "$name"
}

unpatched_kernel() {
	local name='fio_unpatched_kernel[host]' rc=0
	truncate -s 16M "$work/disk"
	if ! loopdev=$(losetup --find --show "$work/disk" 2>/dev/null); then
		verdict SKIP "$name" "no loop device on this host"
		return
	fi
	timeout -k 5 60 "$fio" --name=h --ioengine=uringcmd --cmd=block-query \
		--filename="$loopdev" --rw=read --bs=4k --number_ios=4 \
		>"$work/out" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		verdict FAIL "$name" "fio succeeded on $(uname -r): does this kernel have the series?"
	elif [ "$rc" -ge 124 ]; then
		verdict FAIL "$name" "fio exited $rc (timeout or signal)"
	elif ! grep -q "BLKSSZGET through io_uring failed: .*: this kernel does not answer BLOCK_URING_CMD_IOCTL (it needs the uringcmd series" "$work/out"; then
		verdict FAIL "$name" "no clear message: $(grep -m 2 'fio:' "$work/out" | tr '\n' ' ')"
	else
		verdict PASS "$name"
	fi
}

# An engine built for one fio is loaded by no other: fio 3.41 (ops version
# 39) refuses 3.33's (31) when it loads it, and says so.
external_abi() {
	local name='fio_external_abi[host]' rc=0
	timeout -k 5 60 "$fio_next" --name=h --ioengine="external:$lib/uringcmd" \
		--cmd=block-query --filename=/dev/null --rw=read --bs=4k --number_ios=1 \
		>"$work/abi" 2>&1 || rc=$?
	if ! grep -q '^bad ioops version 31 (want [0-9]*)' "$work/abi"; then
		verdict FAIL "$name" "exit $rc, $(head -n 2 "$work/abi" | tr '\n' ' ')"
	elif grep -q 'uringcmd' "$work/abi"; then
		verdict FAIL "$name" "the engine ran: $(grep -m 1 uringcmd "$work/abi")"
	else
		verdict PASS "$name"
	fi
}

# A made-up tree: only what build.sh reads before it compiles anything.
src_version() {
	local name='fio_src_version[host]' tree=$work/fio-tree rc=0
	mkdir -p "$tree"
	printf '#define FIO_IOOPS_VERSION\t30\n' >"$tree/ioengines.h"
	FIO_SRC=$tree "$top/fio-engine/build.sh" "$work/fio-out" "$top/build/headers/include" \
		>"$work/src.out" 2>&1 || rc=$?
	if [ "$rc" = 0 ] || ! grep -q "is not configured" "$work/src.out"; then
		verdict FAIL "$name" "unconfigured FIO_SRC: exit $rc, $(head -n 1 "$work/src.out")"
		return
	fi
	: >"$tree/config-host.mak"
	rc=0
	FIO_SRC=$tree "$top/fio-engine/build.sh" "$work/fio-out" "$top/build/headers/include" \
		>"$work/src.out" 2>&1 || rc=$?
	if [ "$rc" = 0 ] || ! grep -q "has FIO_IOOPS_VERSION 30; the engine needs 31 (fio 3.33) or newer" "$work/src.out"; then
		verdict FAIL "$name" "FIO_IOOPS_VERSION 30: exit $rc, $(head -n 1 "$work/src.out")"
	elif [ -e "$tree/engines" ] || [ -s "$tree/config-host.mak" ]; then
		verdict FAIL "$name" "the refused tree was changed"
	else
		verdict PASS "$name"
	fi
}

for f in "$fio" "$fio_next"; do
	if [ ! -x "$f" ]; then
		verdict FAIL fio_engine_host "$f missing: make fio fio-next"
		exit 0
	fi
done
enghelp
external_abi
unpatched_kernel
src_version
