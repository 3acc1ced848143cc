#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An NVMe-oF target (nvmet) inside the guest, reached by the fabrics hosts
# of the same kernel: one subsystem with one file-backed namespace, a loop
# port and a TCP port on 127.0.0.1, and a host controller connected through
# each. nvmet reports a multi-controller subsystem, so with multipath the
# namespace's block node is a head node with two paths (loop and tcp).
#
#   nvmet.sh up      set it all up; print the head node's name (nvme1n1)
#   nvmet.sh ctrl T  print the name of the host controller over T (loop|tcp)
#   nvmet.sh drop T  delete the host controller over T
#   nvmet.sh ana T S set the ANA state of T's port to S (optimized,
#                    inaccessible, ...): inaccessible leaves no usable path
#   nvmet.sh ns-off  disable the namespace on the target (hot removal)
#   nvmet.sh file drop T | ana T S | ns-off
#                    print "FILE VALUE": what that action writes where, for
#                    a test that opens FILE first and writes VALUE itself the
#                    moment its commands are in flight (no fork in between)
#   nvmet.sh down    disconnect and tear the target down
#
# Quiet on success but for what it prints; errors go to stderr, exit 1.
set -eu

NQN=uringcmd-fabrics
CFG=/sys/kernel/config/nvmet
SUB=$CFG/subsystems/$NQN
BACKING=/tmp/uringcmd-nvmet.img
PORT_TCP=4420

die() { echo "nvmet.sh: $*" >&2; exit 1; }

ctrl_over() { # transport -> controller name, or nothing
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] || continue
		[ "$(cat "$c/subsysnqn")" = "$NQN" ] || continue
		[ "$(cat "$c/transport")" = "$1" ] || continue
		echo "${c##*/}"
		return 0
	done
}

head_node() { # the subsystem's namespace block node, or nothing
	local s n
	for s in /sys/class/nvme-subsystem/nvme-subsys*; do
		[ -e "$s/subsysnqn" ] || continue
		[ "$(cat "$s/subsysnqn")" = "$NQN" ] || continue
		for n in "$s"/nvme*n*; do
			[ -e "$n" ] || continue
			n=${n##*/}
			case $n in *c*) continue ;; esac
			echo "$n"
			return 0
		done
	done
}

wait_for() { # seconds command...
	local i=0 limit=$(( $1 * 10 ))
	shift
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt "$limit" ] || return 1
		sleep 0.1
	done
}

up() {
	[ -d "$CFG" ] || die "no $CFG: nvmet or configfs missing"
	[ -w /dev/nvme-fabrics ] || die "no /dev/nvme-fabrics: fabrics hosts missing"
	ip link set lo up 2>/dev/null || true
	truncate -s 128M "$BACKING"
	mkdir "$SUB"
	echo 1 >"$SUB/attr_allow_any_host"
	mkdir "$SUB/namespaces/1"
	echo "$BACKING" >"$SUB/namespaces/1/device_path"
	# tmpfs has no O_DIRECT in 6.1
	echo 1 >"$SUB/namespaces/1/buffered_io"
	echo 1 >"$SUB/namespaces/1/enable"
	mkdir "$CFG/ports/1"
	echo loop >"$CFG/ports/1/addr_trtype"
	ln -s "$SUB" "$CFG/ports/1/subsystems/$NQN"
	mkdir "$CFG/ports/2"
	echo tcp >"$CFG/ports/2/addr_trtype"
	echo ipv4 >"$CFG/ports/2/addr_adrfam"
	echo 127.0.0.1 >"$CFG/ports/2/addr_traddr"
	echo "$PORT_TCP" >"$CFG/ports/2/addr_trsvcid"
	ln -s "$SUB" "$CFG/ports/2/subsystems/$NQN"

	# one host NQN for both, so that both controllers are paths of one head
	echo "transport=loop,nqn=$NQN" >/dev/nvme-fabrics ||
		die "connecting over loop failed"
	echo "transport=tcp,traddr=127.0.0.1,trsvcid=$PORT_TCP,nqn=$NQN" \
		>/dev/nvme-fabrics || die "connecting over tcp failed"
	wait_for 30 test -n "$(head_node)" || die "no namespace block node appeared"
	wait_for 30 test -b "/dev/$(head_node)" || die "/dev/$(head_node) did not appear"
	head_node
}

port_of() { case $1 in loop) echo 1 ;; tcp) echo 2 ;; *) die "no transport $1" ;; esac; }

file_of() { # action args -> "FILE VALUE"
	local c
	case $1 in
	drop)
		c=$(ctrl_over "${2:?transport}")
		[ -n "$c" ] || die "no controller over $2"
		echo "/sys/class/nvme/$c/delete_controller 1" ;;
	ana) echo "$CFG/ports/$(port_of "${2:?transport}")/ana_groups/1/ana_state ${3:?state}" ;;
	ns-off) echo "$SUB/namespaces/1/enable 0" ;;
	*) die "no action $1" ;;
	esac
}

act() { # action args: write what file_of names
	local fv
	fv=$(file_of "$@")
	echo "${fv#* }" >"${fv%% *}"
}

down() {
	local t c p
	for t in loop tcp; do
		c=$(ctrl_over "$t")
		[ -z "$c" ] || echo 1 >"/sys/class/nvme/$c/delete_controller" || true
	done
	for p in 1 2; do
		[ -d "$CFG/ports/$p" ] || continue
		rm -f "$CFG/ports/$p/subsystems/$NQN" 2>/dev/null || true
		rmdir "$CFG/ports/$p"
	done
	if [ -d "$SUB" ]; then
		[ ! -d "$SUB/namespaces/1" ] || {
			echo 0 >"$SUB/namespaces/1/enable"
			rmdir "$SUB/namespaces/1"
		}
		rmdir "$SUB"
	fi
	rm -f "$BACKING"
}

case ${1:-} in
up) up ;;
ctrl) ctrl_over "${2:?transport}" ;;
drop | ana | ns-off) act "$@" ;;
file) shift; file_of "$@" ;;
down) down ;;
*) echo "usage: $0 up|ctrl T|drop T|ana T S|ns-off|file ACTION...|down" >&2; exit 2 ;;
esac
