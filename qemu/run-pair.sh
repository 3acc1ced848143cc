#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Two guests of qemu/run-nvme.sh joined by two private links: a target
# that exports its NVMe drive over nvmet-tcp, and a host that connects to
# it over both links (one multipath head, two controllers) and runs the
# block-node tests and the faults on the remote namespace (tests/pair.sh,
# tests/fabrics/fabrics_pair.c). The host's tests/run.sh output is this
# script's output, its status this script's status.
#
# The links are QEMU UDP sockets on 127.0.0.1 between the two QEMUs (no
# host network, no root). The host guest may ask for the target to be
# killed: it writes "kill" into its results folder's ctl/req.NAME; this
# script SIGKILLs the target's QEMU, boots it again on the same image and
# answers in ctl/resp.NAME. QMP stop/cont of the target go through the
# target's own QMP agent (run-nvme.sh --qmp-agent), whose folder the host
# guest sees: the target's results folder is target/ inside the host's.
# shellcheck disable=SC2054 # run-nvme.sh's options, comma-separated
set -eu

usage() {
	cat <<'USAGE'
usage: qemu/run-pair.sh [options] [-- VAR=VALUE...]

  -k, --kernel PATH   bzImage for both guests (default: build/linux/obj-pair's,
                      make pair's); its config must have the options of
                      kernel/guest.config and kernel/pair.config (a NIC)
      --results DIR   the host guest's results (default: a new folder under
                      build/results/); the target's are DIR/target
      --timeout SECS  kill guests still running after SECS (default 900)
  VAR=VALUE...        environment of the host guest's tests/run.sh
                      (TEST_TIMEOUT, TEST_ONLY, ...)

Exit status: the host guest's (tests/run.sh: 0 all passed, 1 a failure);
124 on a timeout, 125 on a setup error, 126 if the host guest died.
USAGE
}

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=$top/build/linux/obj-pair/arch/x86/boot/bzImage
# what the kernel must have (run-nvme.sh checks): the suite's options and a NIC
needs=(--needs "$top/kernel/guest.config" --needs "$top/kernel/pair.config")
results='' timeout=900

die() { printf 'run-pair.sh: %s\n' "$*" >&2; exit 125; }

while [ $# -gt 0 ]; do
	case $1 in
	-k|--kernel) kernel=$2; shift ;;
	--results) results=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) usage >&2; die "unknown option $1" ;;
	esac
	shift
done

# the target's drive: a fresh image, kept across its boots in this run;
# one run at a time in a checkout (the image, and two guests are enough)
images=$top/build/nvme-pair
mkdir -p "$images"
exec {lock}>"$images/lock"
flock -n "$lock" || die "another run-pair.sh runs in this checkout (lock: $images/lock)"
rm -f "$images"/*.img

if [ -z "$results" ]; then
	mkdir -p "$top/build/results"
	results=$(mktemp -d "$top/build/results/pair.XXXXXX")
fi
rm -rf "$results"
mkdir -p "$results/target" "$results/ctl"
results=$(cd "$results" && pwd)
target=$results/target ctl=$results/ctl

# Four free UDP ports on 127.0.0.1, two per link: BASE..BASE+3
pick_ports() {
	local p used
	used=$(ss -Hlun 2>/dev/null || true)
	for _ in $(seq 20); do
		base=$(( 20000 + (RANDOM % 10000) * 4 ))
		for p in 0 1 2 3; do
			! grep -q ":$((base + p))\b" <<<"$used" || continue 2
		done
		return 0
	done
	die "no four free UDP ports found"
}
pick_ports

# The target, booted again after each kill the host asked for; its status
# (when it ended by itself) in target/status, each boot's console and
# run-nvme.sh output in target/console.bootN.log, target/bootN.log.
target_boots() {
	local boot=0 st
	while :; do
		boot=$((boot + 1))
		echo "$boot" >"$target/boot"
		rm -f "$target/ready"
		st=0
		"$top/qemu/run-nvme.sh" -k "$kernel" "${needs[@]}" --timeout "$timeout" -n 1 \
			--images "$images" --cpus 1 --mem 1024 --qmp-agent \
			--pidfile "$target/qemu.pid" --results "$target" \
			--append loglevel=5 \
			--udp-link "$((base + 1)):$base" --udp-link "$((base + 3)):$((base + 2))" \
			-- "$top/tests/pair.sh" target "$boot" >"$target/boot$boot.log" 2>&1 || st=$?
		[ ! -f "$target/console.log" ] || mv "$target/console.log" "$target/console.boot$boot.log"
		if [ ! -e "$ctl/killed.$boot" ] || [ -e "$target/done" ]; then
			echo "$st" >"$target/status"
			return 0
		fi
	done
}

# SIGKILL the target's QEMU, by the pid it wrote, if that is still it
# (its console file on its command line)
kill_target() {
	local pid boot
	boot=$(cat "$target/boot")
	pid=$(cat "$target/qemu.pid" 2>/dev/null || true)
	if [ -z "$pid" ] || ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null |
		grep -qF "file:$target/console.log"; then
		echo "no target QEMU running (boot $boot, pid '$pid')"
		return 0
	fi
	touch "$ctl/killed.$boot"
	kill -KILL "$pid"
	echo "killed boot $boot (pid $pid)"
}

# Requests of the host guest: ctl/req.NAME holding "kill"
serve_ctl() {
	local req name what
	for req in "$ctl"/req.*; do
		[ -f "$req" ] || continue
		case $req in *.tmp) continue ;; esac
		name=${req##*/req.}
		what=$(cat "$req")
		rm -f "$req"
		case $what in
		kill) kill_target >"$ctl/resp.$name.tmp" ;;
		*) echo "unknown request '$what'" >"$ctl/resp.$name.tmp" ;;
		esac
		mv "$ctl/resp.$name.tmp" "$ctl/resp.$name"
	done
}

# Whatever way this ends, no target is left running.
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	touch "$target/done"
	[ -z "${boots:-}" ] || ! kill -0 "$boots" 2>/dev/null || kill_target >/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM

target_boots &
boots=$!
"$top/qemu/run-nvme.sh" -k "$kernel" "${needs[@]}" --timeout "$timeout" -n 0 --qmp-agent \
	--results "$results" \
	--udp-link "$base:$((base + 1))" --udp-link "$((base + 2)):$((base + 3))" \
	-- env "$@" "$top/tests/pair.sh" host &
host=$!
while kill -0 "$host" 2>/dev/null; do
	serve_ctl
	sleep 0.1
done
status=0
wait "$host" || status=$?

# The target ends when told; a target still up after a minute is killed.
touch "$target/done"
for _ in $(seq 600); do
	kill -0 "$boots" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$boots" 2>/dev/null; then
	printf 'run-pair.sh: the target did not end when told; killing it (%s)\n' "$(kill_target)" >&2
fi
wait "$boots" || true
tst=$(cat "$target/status" 2>/dev/null || echo none)
if [ "$tst" != 0 ]; then
	last=$(cat "$target/boot" 2>/dev/null || echo 1)
	printf 'run-pair.sh: the target guest ended with status %s (%s, console: %s)\n' "$tst" \
		"$target/boot$last.log" "$target/console.boot$last.log" >&2
	[ "$status" != 0 ] || status=1
fi
exit "$status"
