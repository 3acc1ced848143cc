#!/bin/bash
# make shell: qemu/run-nvme.sh without a command, driven through a terminal
# (a tmux pane of 100x30): the guest's bash prompt appears, a typed command
# answers (the namespace's size, the terminal's size), and its exit status
# comes back as run-nvme.sh's. Without a terminal run-nvme.sh refuses in one
# line. One boot (about a minute under TCG), on null-co namespaces.
#
#   tests/host/make_shell.sh [--kernel BZIMAGE] [--results DIR]
#
# Prints "PASS make_shell[host]" or "FAIL make_shell[host]: reason".
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
name='make_shell[host]'
kernel=$top/build/linux/obj/arch/x86/boot/bzImage
results=$top/build/results/make_shell
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--results) results=$2; shift ;;
	*) echo "usage: $0 [--kernel BZIMAGE] [--results DIR]" >&2; exit 2 ;;
	esac
	shift
done

fail() { echo "FAIL $name: $*"; exit 1; }

command -v tmux >/dev/null || { echo "SKIP $name: no tmux (apt-get install tmux)"; exit 0; }
[ -f "$kernel" ] || fail "no kernel at $kernel"

# No terminal: refused at once, in one line.
if out=$("$top/qemu/run-nvme.sh" -k "$kernel" </dev/null 2>&1); then
	fail "run-nvme.sh without a command or a terminal succeeded"
fi
if [ "$(wc -l <<<"$out")" != 1 ] || ! grep -q 'no command given' <<<"$out"; then
	fail "run-nvme.sh without a command or a terminal: $out"
fi

# A tmux server of our own (its own socket), ended by the trap.
sock=uringcmd-shell-test-$$
pane() { tmux -L "$sock" capture-pane -p -J -S -200 -t shell; }
trap 'tmux -L "$sock" kill-server 2>/dev/null || true' EXIT
mkdir -p "$results"
tmux -L "$sock" -f /dev/null new-session -d -s shell -x 100 -y 30 \
	"$(printf '%q ' "$top/qemu/run-nvme.sh" -k "$kernel" --null --size 64 \
		--timeout 300 --results "$results"); echo uc-status=\$?; sleep 600"

wait_for() { # ERE seconds
	local waited=0
	until pane | grep -Eq "$1"; do
		[ "$waited" -lt "$2" ] || return 1
		sleep 1
		waited=$((waited + 1))
	done
}

wait_for 'root@uringcmd-guest[^ ]*# *$|uc-status=' 240 ||
	fail "no guest prompt after 240 s: $(pane | grep -v '^$' | tail -n 3 | tr '\n' ' ')"
pane | grep -q 'uc-status=' &&
	fail "the guest ended before its prompt: $(pane | grep -v '^$' | tail -n 3 | tr '\n' ' ')"
tmux -L "$sock" send-keys -t shell 'stty size; cat /sys/block/nvme0n1/size; exit 7' Enter
wait_for 'uc-status=' 60 || fail "the guest did not power off after exit: $(pane | grep -v '^$' | tail -n 3 | tr '\n' ' ')"

screen=$(pane)
grep -qx '131072' <<<"$screen" ||
	fail "no 131072 (64 MiB in sectors) from cat /sys/block/nvme0n1/size: $(tail -n 5 <<<"$screen" | tr '\n' ' ')"
grep -qx '30 100' <<<"$screen" ||
	fail "the guest's terminal is not 30x100 like the pane: $(tail -n 5 <<<"$screen" | tr '\n' ' ')"
grep -qx 'uc-status=7' <<<"$screen" ||
	fail "exit 7 in the guest gave $(grep -o 'uc-status=.*' <<<"$screen")"
echo "PASS $name"
