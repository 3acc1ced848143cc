#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An NVMe-oF target (nvmet) inside the guest, reached by the fabrics hosts
# of the same kernel: one subsystem with two namespaces, a loop port and a
# TCP port on 127.0.0.1, and a host controller connected through each.
# nvmet reports a multi-controller subsystem, so with multipath each
# namespace's block node is a head node with two paths (loop and tcp).
# With nvme_core.multipath=N there are no heads: each controller has a
# block node of its own for each namespace, on its transport's tag set.
#   namespace 1: a file on tmpfs, for the nvme_bdev_* tests but faults;
#   namespace 2: a memory-backed null_blk that completes every I/O after
#                SLOW_NS (250 ms), so that commands are surely in flight
#                when a test removes a path or the namespace under them
#                (nvmet over loop finishes a batch of 4 KiB reads from the
#                page cache before the submitting syscall returns).
#                It needs null_blk and configfs (kernel/guest.config).
#
#   nvmet.sh up      set it all up; print the head nodes of namespaces 1
#                    and 2 on one line (nvme1n1 nvme1n2); with
#                    nvme_core.multipath=N the loop controller's nodes of
#                    namespaces 1 and 2, then the tcp controller's of 1
#   nvmet.sh ctrl T  print the name of the host controller over T (loop|tcp)
#   nvmet.sh drop T  delete the host controller over T
#   nvmet.sh ana T S set the ANA state of T's port to S (optimized,
#                    inaccessible, ...): inaccessible leaves no usable path
#   nvmet.sh ns-off [N]
#                    disable namespace N (1) on the target (hot removal)
#   nvmet.sh file drop T | ana T S | ns-off [N]
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
SLOW=/sys/kernel/config/nullb/uringcmd_nvmet_slow
SLOW_NS=250000000
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

head_node() { # nsid -> the subsystem's head node of that namespace, or nothing
	local s n
	for s in /sys/class/nvme-subsystem/nvme-subsys*; do
		[ -e "$s/subsysnqn" ] || continue
		[ "$(cat "$s/subsysnqn")" = "$NQN" ] || continue
		for n in "$s"/nvme*n*; do
			[ -e "$n/nsid" ] || continue
			case ${n##*/} in *c*) continue ;; esac
			[ "$(cat "$n/nsid")" = "$1" ] || continue
			echo "${n##*/}"
			return 0
		done
	done
}

has_head() { [ -n "$(head_node "$1")" ]; }

ns_node() { # transport nsid -> that controller's block node of the namespace
	local c n
	c=$(ctrl_over "$1")
	[ -n "$c" ] || return 0
	for n in /sys/class/nvme/"$c"/"$c"n*; do
		if [ -e "$n/nsid" ] && [ "$(cat "$n/nsid")" = "$2" ]; then
			echo "${n##*/}"
			return 0
		fi
	done
}

has_ns_node() { [ -n "$(ns_node "$1" "$2")" ]; }

multipath() { [ "$(cat /sys/module/nvme_core/parameters/multipath 2>/dev/null || echo Y)" = Y ]; }

# memory-backed null_blk, named after its configfs directory, 4 KiB blocks
# like the file namespace, every I/O completed by a timer after SLOW_NS
slow_up() {
	local attr
	[ -d "${SLOW%/*}" ] || die "no ${SLOW%/*}: null_blk or configfs missing"
	mkdir "$SLOW"
	for attr in size=128 blocksize=4096 memory_backed=1 irqmode=2 \
		completion_nsec=$SLOW_NS power=1; do
		echo "${attr#*=}" >"$SLOW/${attr%%=*}" ||
			die "null_blk ${SLOW##*/}: $attr failed"
	done
	wait_for 10 test -b "/dev/${SLOW##*/}" || die "no /dev/${SLOW##*/}"
}

ns_up() { # nsid device-path [buffered]
	mkdir "$SUB/namespaces/$1"
	echo "$2" >"$SUB/namespaces/$1/device_path"
	[ -z "${3:-}" ] || echo 1 >"$SUB/namespaces/$1/buffered_io"
	echo 1 >"$SUB/namespaces/$1/enable"
}

# shellcheck source=tests/common/wait_for.sh
. "$(dirname "$0")/common/wait_for.sh"

up() {
	local nsid h heads=()
	[ -d "$CFG" ] || die "no $CFG: nvmet or configfs missing"
	[ -w /dev/nvme-fabrics ] || die "no /dev/nvme-fabrics: fabrics hosts missing"
	ip link set lo up 2>/dev/null || true
	truncate -s 128M "$BACKING"
	mkdir "$SUB"
	echo 1 >"$SUB/attr_allow_any_host"
	# tmpfs has no O_DIRECT in 6.1
	ns_up 1 "$BACKING" buffered
	slow_up
	ns_up 2 "/dev/${SLOW##*/}"
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
	if ! multipath; then
		for nsid in "loop 1" "loop 2" "tcp 1"; do
			# shellcheck disable=SC2086 # transport and nsid
			wait_for 30 has_ns_node $nsid ||
				die "no block node of namespace ${nsid#* } over ${nsid% *} appeared"
			# shellcheck disable=SC2086
			h=$(ns_node $nsid)
			wait_for 30 test -b "/dev/$h" || die "/dev/$h did not appear"
			heads+=("$h")
		done
		echo "${heads[*]}"
		return 0
	fi
	for nsid in 1 2; do
		wait_for 30 has_head "$nsid" ||
			die "no block node of namespace $nsid appeared"
		h=$(head_node "$nsid")
		wait_for 30 test -b "/dev/$h" || die "/dev/$h did not appear"
		heads+=("$h")
	done
	echo "${heads[*]}"
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
	ns-off)
		[ -d "$SUB/namespaces/${2:-1}" ] || die "no namespace ${2:-1}"
		echo "$SUB/namespaces/${2:-1}/enable 0" ;;
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
		for p in 1 2; do
			[ -d "$SUB/namespaces/$p" ] || continue
			echo 0 >"$SUB/namespaces/$p/enable"
			rmdir "$SUB/namespaces/$p"
		done
		rmdir "$SUB"
	fi
	if [ -d "$SLOW" ]; then
		echo 0 >"$SLOW/power"
		rmdir "$SLOW"
	fi
	rm -f "$BACKING"
}

case ${1:-} in
up) up ;;
ctrl) ctrl_over "${2:?transport}" ;;
drop | ana | ns-off) act "$@" ;;
file) shift; file_of "$@" ;;
down) down ;;
*) echo "usage: $0 up|ctrl T|drop T|ana T S|ns-off [N]|file ACTION...|down" >&2; exit 2 ;;
esac
