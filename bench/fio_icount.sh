#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fio's two NVMe passthrough engines counted in instructions: random 4 KiB
# reads from the null-co namespace with ioengine=uringcmd on the block node
# and with fio's own io_uring_cmd on the char node, at QD 1 and 32, in one
# guest under QEMU's icount (one vCPU, one nanosecond of guest time per
# instruction). make bench's fio pair gives the same comparison in CPU
# time under TCG, where an instruction that exits to the emulated device
# (a doorbell, an interrupt) costs what QEMU takes to emulate it; here
# every instruction counts one.
#
#   bench/fio_icount.sh [--kernel BZIMAGE] [--fio FIO]
#
# Prints, for each engine and queue depth, the instructions per read of
# fio's job (its CPU time as fio reports it, which under icount counts
# instructions): the difference between a run of 102000 reads and one of
# 2000, so the job's start and end cancel out; twice, to show they repeat. Context
# switches per read beside them: at QD 1 a read that completes before its
# task sleeps skips the sleep and the wake-up, so QD 1 varies with them.
#
# Not part of make bench: QEMU 7.2's nvme, under icount, now and then
# never completes a few queued commands (the guest's nvme driver aborts
# them after 30 s and resets the controller; seen with both engines on
# both nodes, never without icount, and not under QEMU 10: UC_QEMU=
# build/qemu-10/bin/qemu-system-x86_64 after make qemu-fdp runs this
# there). A run that fails so is run again (up to five times); with
# sleep=off a lost command costs no host time. Takes about a minute.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=$top/build/linux/obj/arch/x86/boot/bzImage
fio=$top/build/fio/src/fio

if [ "${1:-}" != --guest ]; then
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) kernel=$2; shift ;;
		--fio) fio=$2; shift ;;
		*) echo "usage: $0 [--kernel BZIMAGE] [--fio FIO]" >&2; exit 2 ;;
		esac
		shift
	done
	[ -f "$kernel" ] || { echo "fio_icount.sh: no kernel at $kernel (make kernel)" >&2; exit 1; }
	[ -x "$fio" ] || { echo "fio_icount.sh: no fio at $fio (make fio)" >&2; exit 1; }
	fio=$(cd "$(dirname "$fio")" && pwd)/$(basename "$fio")
	results=$(mktemp -d /tmp/uringcmd-fio-icount.XXXXXX)
	trap 'rm -rf "$results"' EXIT
	"$top/qemu/run-nvme.sh" -k "$kernel" --icount -n 2 --null-last \
		--append "clocksource=tsc tsc=reliable" --timeout 1800 --results "$results" -- \
		"$top/bench/fio_icount.sh" --guest "$fio" >"$results/out" 2>&1 ||
		{ cat "$results/out" >&2; echo "fio_icount.sh: the guest failed (console: kept in $results)" >&2; trap - EXIT; exit 1; }
	grep -v '^==> ' "$results/out"
	exit 0
fi

# ---- in the guest ----------------------------------------------------------
fio=$2
work=$(mktemp -d /tmp/fio-icount.XXXXXX)

# one fio run of N reads, retried while the device loses commands;
# prints the job's CPU time (ns: its getrusage user and system time, which
# the kernel scales to the task's exact runtime) and context switches
one() { # N QD FIO-ARGS...
	local n=$1 qd=$2 try
	shift 2
	for try in 1 2 3 4 5; do
		"$fio" --name=icount --rw=randread --bs=4k --size=256M --io_size=1T --iodepth="$qd" \
			--number_ios="$n" --randrepeat=0 --norandommap --output-format=json \
			--output="$work/fio.json" "$@" >"$work/fio.out" 2>&1 || true
		if python3 - "$work/fio.json" "$n" <<-'EOF'
		import json, sys
		try:
		    text = open(sys.argv[1]).read()
		    job = json.loads(text[text.index("{"):])["jobs"][0]
		except (OSError, ValueError):
		    sys.exit(1)
		if job["error"] != 0 or job["read"]["total_ios"] != int(sys.argv[2]):
		    sys.exit(1)
		cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] * 1e6
		print("%.0f %d" % (cpu, job["ctx"]))
		EOF
		then
			return 0
		fi
		echo "# $* QD $qd: try $try lost commands or failed; again" >&2
	done
	echo "fio_icount.sh: $* QD $qd failed five times: $(grep -m 1 -i 'error\|fio:' "$work/fio.out")" >&2
	exit 1
}

printf '%-34s %3s %12s %12s %9s\n' "engine" "QD" "instr/read" "repeat" "ctxsw/read"
for qd in 1 32; do
	for side in io_uring_cmd uringcmd; do
		if [ "$side" = io_uring_cmd ]; then
			set -- --filename=/dev/ng0n2 --ioengine=io_uring_cmd --cmd_type=nvme
			label="io_uring_cmd on /dev/ng0n2"
		else
			set -- --filename=/dev/nvme0n2 --ioengine=uringcmd
			label="uringcmd on /dev/nvme0n2"
		fi
		res=()
		for _ in 1 2; do
			short=$(one 2000 "$qd" "$@")
			long=$(one 102000 "$qd" "$@")
			read -r a c <<<"$short"
			read -r b d <<<"$long"
			res+=("$(( b - a ))" "$(( d - c ))")
		done
		python3 -c 'import sys; l, q, i1, c1, i2, c2 = sys.argv[1:]
print("%-34s %3s %12.1f %12.1f %9.2f" % (l, q, int(i1) / 1e5, int(i2) / 1e5, int(c1) / 1e5))' \
			"$label" "$qd" "${res[@]}"
	done
done
