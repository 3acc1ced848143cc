#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The two guests of qemu/run-pair.sh, one role each: an NVMe-oF target
# that exports its NVMe drive over nvmet-tcp on two links, and a host that
# connects over both (one multipath head, two controllers) and runs the
# block-node tests and the faults (tests/fabrics/fabrics_pair.c) on it.
#
#   pair.sh target BOOT   nvmet-tcp on 10.29.1.1 and 10.29.2.1 (eth0, eth1),
#                         namespace 1 the drive /dev/nvme0n1; then
#                         "BOOT" in $UC_RESULTS/ready, and wait for
#                         $UC_RESULTS/done. $UC_RESULTS/dump-req asks for
#                         the kernel log, written to dmesg.bootBOOT.
#   pair.sh host          10.29.1.2 and 10.29.2.2; wait for the target's
#                         ready (its results folder is PAIR_TARGET,
#                         /run/results/target), nvme connect to both
#                         addresses, then tests/run.sh on the head node
#
# The namespace keeps its identifiers (serial, UUID, NGUID) across the
# target's boots: the host would otherwise see another namespace after a
# reboot and remove it instead of reconnecting.
set -eu

NQN=uringcmd-pair
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:75c3e29a-0000-4000-8000-000000000029
HOSTID=75c3e29a-0000-4000-8000-000000000029
NS_UUID=75c3e29a-0000-4000-8000-0000000000a1
NS_NGUID=75c3e29a-0000-4000-8000-0000000000a1
PORT=4420
CFG=/sys/kernel/config/nvmet
# the host's controller loss timeout: a target reboot must fit in it
CTRL_LOSS_TMO=${PAIR_CTRL_LOSS_TMO:-120}

here=$(cd "$(dirname "$0")" && pwd)
results=${UC_RESULTS:-/run/results}

# in the target, also into $UC_RESULTS/failed: the host waits for it
die() {
	echo "pair.sh: $*" >&2
	[ "${role:-}" != target ] || echo "$*" >"$results/failed"
	exit 1
}

# shellcheck source=tests/common/wait_for.sh
. "$here/common/wait_for.sh"

# net_up HOSTPART: ethN gets 10.29.(N+1).HOSTPART/24, N = 0 and 1
net_up() {
	local i
	ip link set lo up
	for i in 0 1; do
		wait_for 10 test -e "/sys/class/net/eth$i" || die "no eth$i (virtio-net, --udp-link)"
		ip addr add "10.29.$((i + 1)).$1/24" dev "eth$i"
		ip link set "eth$i" up
	done
}

target() {
	local boot=${1:?boot number} sub=$CFG/subsystems/$NQN p
	net_up 1
	wait_for 30 test -b /dev/nvme0n1 || die "no /dev/nvme0n1 to export"
	mkdir "$sub"
	echo 1 >"$sub/attr_allow_any_host"
	echo uringcmd-pair >"$sub/attr_serial"
	mkdir "$sub/namespaces/1"
	echo /dev/nvme0n1 >"$sub/namespaces/1/device_path"
	echo "$NS_UUID" >"$sub/namespaces/1/device_uuid"
	echo "$NS_NGUID" >"$sub/namespaces/1/device_nguid"
	echo 1 >"$sub/namespaces/1/enable"
	for p in 1 2; do
		mkdir "$CFG/ports/$p"
		echo tcp >"$CFG/ports/$p/addr_trtype"
		echo ipv4 >"$CFG/ports/$p/addr_adrfam"
		echo "10.29.$p.1" >"$CFG/ports/$p/addr_traddr"
		echo "$PORT" >"$CFG/ports/$p/addr_trsvcid"
		ln -s "$sub" "$CFG/ports/$p/subsystems/$NQN"
	done
	echo "$boot" >"$results/ready.tmp"
	mv "$results/ready.tmp" "$results/ready"
	while [ ! -e "$results/done" ]; do
		if [ -e "$results/dump-req" ]; then
			dmesg >"$results/dmesg.tmp"
			mv "$results/dmesg.tmp" "$results/dmesg.boot$boot"
			rm -f "$results/dump-req"
		fi
		sleep 0.2
	done
}

# the head node of the subsystem's namespace 1, or nothing
head_node() {
	local n
	for n in /sys/class/nvme-subsystem/nvme-subsys*/nvme*n1; do
		[ -e "$n/nsid" ] || continue
		case ${n##*/} in *c*) continue ;; esac
		[ "$(cat "${n%/*}/subsysnqn")" = "$NQN" ] || continue
		echo "${n##*/}"
		return 0
	done
	return 1
}

host() {
	local target=${PAIR_TARGET:-/run/results/target} p head ctrl s
	net_up 2
	for s in $(seq 3000); do
		[ ! -e "$target/ready" ] || break
		[ ! -e "$target/failed" ] || die "the target failed: $(cat "$target/failed")"
		[ "$s" != 3000 ] || die "the target did not come up in 300 s ($target/console.log)"
		sleep 0.1
	done
	# three tries each: a first SYN or ARP lost on a loaded host fails a
	# connect in 3 s (nvme-tcp's one SYN retry)
	for p in 1 2; do
		for s in 1 2 3; do
			! nvme connect -t tcp -a "10.29.$p.1" -s "$PORT" -n "$NQN" \
				--hostnqn="$HOSTNQN" --hostid="$HOSTID" \
				--ctrl-loss-tmo="$CTRL_LOSS_TMO" --reconnect-delay=2 \
				--keep-alive-tmo=5 --nr-poll-queues=1 >/dev/null || break
			[ "$s" != 3 ] || die "nvme connect to 10.29.$p.1 failed three times"
			sleep 1
		done
	done
	wait_for 30 head_node || die "no head node of $NQN appeared"
	head=$(head_node)
	wait_for 10 test -b "/dev/$head" || die "/dev/$head did not appear"
	ctrl=
	for s in /sys/class/nvme/nvme*; do
		[ "$(cat "$s/subsysnqn")" != "$NQN" ] || { ctrl=${s##*/}; break; }
	done
	# the block-node tests that make check runs on its in-guest nvmet
	# heads (tests/common/fabrics.sh), the block tests, then the faults
	export TEST_ONLY=${TEST_ONLY:-nvme_bdev_admin nvme_bdev_io nvme_bdev_errors nvme_bdev_load block_* fabrics_pair}
	export TEST_NVME_DEV=/dev/$head TEST_NVME_CHAR=/dev/ng${head#nvme} \
		TEST_NVME_CTRL=/dev/$ctrl TEST_BLOCK_DEVS=nvme TEST_PAIR=1 \
		TEST_PAIR_TARGET=$target TEST_PAIR_CTL=$results/ctl \
		TEST_PAIR_CTRL_LOSS_TMO=$CTRL_LOSS_TMO TEST_PAIR_NQN=$NQN
	exec "$here/run.sh" "${PAIR_BINDIR:-$here/../build/tests}" "$results/tests"
}

role=${1:-}
case $role in
target) shift; target "$@" ;;
host) host ;;
*) echo "usage: $0 target BOOT | host" >&2; exit 2 ;;
esac
