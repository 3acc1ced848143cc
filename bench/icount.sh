#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One instruction-counting boot, inside the guest: every path's cost per
# command with bench/uc_icount, as one JSON document (bench/report.py's
# icount-N.json). bench/bench.sh boots the guest for it with
# qemu/run-nvme.sh --icount (one vCPU, 1 ns of guest time = 1 instruction)
# -n 2 --null-last --append nvme.poll_queues=1.
#
#   icount.sh BENCHDIR OUT.json [BOOT]
#
# BENCHDIR holds uc_icount and uc_icount_m32. Environment: BENCH_ICOUNT_N
# (commands per repetition of the CPU-bound paths and the discards, 19200;
# the device commands a tenth), BENCH_ICOUNT_REPS (3),
# BENCH_DEV (/dev/nvme0n1), BENCH_NULL_DEV (/dev/nvme0n2: null-co),
# BENCH_QUICK=1 (a few commands of every path: for the tests, not under
# icount), BENCH_ICOUNT_PARTS (which groups of paths, "cpu dispatch
# device": the CPU-bound paths and discards; the uring_cmds the NVMe
# driver refuses on each node; the commands the device completes).
# Discards go to a loop device on a tmpfs file made here, which no host
# I/O serves.
set -eu

[ $# -ge 2 ] || { echo "usage: $0 BENCHDIR OUT.json [BOOT]" >&2; exit 2; }
bin=$1/uc_icount
bin32=$1/uc_icount_m32
out=$2
boot=${3:-1}
dev=${BENCH_DEV:-/dev/nvme0n1}
base=${dev##*/}
ctrl=/dev/${base%n*}
nulldev=${BENCH_NULL_DEV:-/dev/nvme0n2}
nullbase=${nulldev##*/}
nullchr=/dev/ng${nullbase#nvme}
chr=/dev/ng${base#nvme}
n=${BENCH_ICOUNT_N:-19200}
reps=${BENCH_ICOUNT_REPS:-3}
parts=" ${BENCH_ICOUNT_PARTS:-cpu dispatch device} "
[ "${BENCH_QUICK:-0}" != 1 ] || { n=640; reps=2; }
# a multiple of 64 (the batches), the device commands a tenth
n=$(( (n + 63) / 64 * 64 ))
ndev=$(( n / 10 > 0 ? n / 10 : 1 ))

die() { echo "bench/icount.sh: $*" >&2; exit 1; }

[ -x "$bin" ] || die "$bin missing: make bench-progs"
[ -x "$bin32" ] || die "$bin32 missing: make bench-progs"
[ -b "$dev" ] || die "$dev is not a block device"
[ -c "$ctrl" ] || die "$ctrl (the controller) missing"

work=$(mktemp -d /tmp/uringcmd-icount.XXXXXX)
loopdev=
cleanup() {
	[ -z "$loopdev" ] || losetup -d "$loopdev" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
lines=$work/results.jsonl
: >"$lines"
poll=$(cat /sys/module/nvme/parameters/poll_queues 2>/dev/null || echo 0)

# m GROUP PATH LABEL UC_ICOUNT [ARGS...]: one path, REPS repetitions,
# without address space randomization: where the program's mappings lie
# changes the kernel's walks of them (the EFAULT rows' buffer lookup moved
# by 30 instructions between boots), and the figure must not
m() {
	local g=$1 p=$2 l=$3 b=$4
	shift 4
	setarch -R "$b" -r "$reps" -p "$p" -l "$l" "$@" >"$work/one.json" 2>"$work/one.err" ||
		die "$(basename "$b") $* failed: $(tail -n 1 "$work/one.err")"
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["group"] = sys.argv[2]; print(json.dumps(d))' \
		"$work/one.json" "$g" >>"$lines"
}

# CPU-bound paths: no host I/O inside the loop, the elapsed count is the
# figure
cpu_paths() {
	m floor getppid "getppid()" "$bin" -n "$n" getppid
	m floor nop-b64 "io_uring NOP, batches of 64" "$bin" -n "$n" -b 64 nop
	m floor nop-b1 "io_uring NOP, one per submit" "$bin" -n "$n" nop
	m query ioctl "ioctl(BLKBSZGET)" "$bin" -n "$n" ioctl "$dev"
	m query ioctl-m32 "ioctl(BLKBSZGET), 32-bit program" "$bin32" -n "$n" ioctl "$dev"
	m query uring-b64 "BLOCK_URING_CMD_IOCTL BLKBSZGET, batches of 64" "$bin" -n "$n" -b 64 query "$dev"
	m query uring-b64-fixed "the same, registered file" "$bin" -n "$n" -b 64 -F query "$dev"
	m query uring-b64-m32 "BLOCK_URING_CMD_IOCTL BLKBSZGET, batches of 64, 32-bit program" \
		"$bin32" -n "$n" -b 64 query "$dev"
	m query uring-b8 "BLOCK_URING_CMD_IOCTL BLKBSZGET, batches of 8" "$bin" -n "$n" -b 8 query "$dev"
	m query nop-b8 "io_uring NOP, batches of 8" "$bin" -n "$n" -b 8 nop
	m query uring-qd1 "BLOCK_URING_CMD_IOCTL BLKBSZGET, QD 1, io_uring_submit_and_wait()" \
		"$bin" -n "$n" query1 "$dev"
	m query uring-qd1-defer "the same, SINGLE_ISSUER|DEFER_TASKRUN" "$bin" -n "$n" -D query1 "$dev"
	m query uring-qd1-defer-fixed "the same, SINGLE_ISSUER|DEFER_TASKRUN, registered file" \
		"$bin" -n "$n" -D -F query1 "$dev"
	# The query's path in steps (bench/icount_report.py's ladder): uring_cmds
	# refused with -EOPNOTSUPP as soon as a ->uring_cmd sees an unknown
	# cmd_op, batches of 64 on a registered file. On the char device, the
	# NVMe driver's at once (io_uring's uring_cmd path, and nothing of the
	# series); on the block node a driver's cmd_op (_IO('N', 0x7f)), which
	# blkdev_uring_cmd() hands to blk_mq_ops->uring_cmd (the block node's
	# dispatch); a block-layer one (_IO(0x12, 0x7f)), which
	# blkdev_uring_cmd()'s own checks refuse
	if [ -c "$chr" ]; then
		m query raw-ng-b64-fixed "uring_cmd refused by $chr's ->uring_cmd (an unknown cmd_op), batches of 64, registered file" \
			"$bin" -n "$n" -b 64 -F rawcmd "$chr" 0x4e7f
		m query raw-ng-b64 "the same, no registered file" "$bin" -n "$n" -b 64 rawcmd "$chr" 0x4e7f
	fi
	m query raw-bdev-drv-b64-fixed "uring_cmd of an unknown NVMe cmd_op on $dev, refused by the driver through blk_mq_ops->uring_cmd, batches of 64, registered file" \
		"$bin" -n "$n" -b 64 -F rawcmd "$dev" 0x4e7f
	m query raw-bdev-blk-b64-fixed "uring_cmd of an unknown block-layer cmd_op on $dev, refused by blkdev_uring_cmd(), batches of 64, registered file" \
		"$bin" -n "$n" -b 64 -F rawcmd "$dev" 0x127f
}

# The same uring_cmds on each node, refused by the NVMe driver before any
# reaches the device (uc_icount -E): CPU-bound, so deterministic. EINVAL
# (a nonzero flags byte) once the whole dispatch is done; EFAULT (a buffer
# on a PROT_NONE page) after the request's allocation and the failed
# mapping of the buffer, which frees it. Every node ends in the same
# nvme_uring_cmd_io(), and a command that reaches the device completes
# through the same nvme_uring_cmd_end_io(): the block node's extra cost
# over the char device is its dispatch, which these count exactly.
dispatch_paths() {
	local e p sfx how
	for e in EINVAL EFAULT; do
		for what in features identify; do
			[ "$e.$what" != EFAULT.features ] || continue
			m dispatch "$what-$e-char" "$what refused ($e) by uring_cmd on $ctrl (upstream)" \
				"$bin" -n "$n" -E "$e" admin "$ctrl" "$what"
			m dispatch "$what-$e-bdev" "$what refused ($e) by uring_cmd on $dev (this series)" \
				"$bin" -n "$n" -E "$e" admin "$dev" "$what"
		done
		[ -b "$nulldev" ] && [ -c "$nullchr" ] || continue
		for p in "" -P; do
			[ -z "$p" ] || [ "$poll" != 0 ] || continue
			sfx=${p:+-poll} how=${p:+, IOPOLL}
			m dispatch "read$sfx-$e-ng" "NVMe Read refused ($e) on $nullchr (upstream)$how" \
				"$bin" -n "$n" $p -E "$e" read "$nullchr"
			m dispatch "read$sfx-$e-bdev" "NVMe Read refused ($e) on $nulldev (this series)$how" \
				"$bin" -n "$n" $p -E "$e" read "$nulldev"
		done
	done
}

# Device commands: the controller completes them from host threads, so
# the elapsed count is not deterministic; busy and cpu are
device_paths() {
	for what in features identify; do
		m "$what" uring-char "uring_cmd on $ctrl (upstream)" "$bin" -n "$ndev" admin "$ctrl" "$what"
		m "$what" uring-bdev "uring_cmd on $dev (this series)" "$bin" -n "$ndev" admin "$dev" "$what"
		m "$what" ioctl-bdev "NVME_IOCTL_ADMIN_CMD on $dev" "$bin" -n "$ndev" admin-ioctl "$dev" "$what"
	done
	if [ -b "$nulldev" ] && [ -c "$nullchr" ]; then
		for qd in 1 16; do
			for p in "" -P; do
				[ -z "$p" ] || [ "$poll" != 0 ] || continue
				sfx=${p:+-poll} how=QD\ $qd${p:+, IOPOLL}
				m read "pt-ng$sfx-qd$qd" "NVMe Read passthrough on $nullchr (upstream), $how" \
					"$bin" -n "$ndev" -q "$qd" $p read "$nullchr"
				m read "pt-bdev$sfx-qd$qd" "NVMe Read passthrough on $nulldev (this series), $how" \
					"$bin" -n "$ndev" -q "$qd" $p read "$nulldev"
				m read "odirect$sfx-qd$qd" "io_uring O_DIRECT read on $nulldev, $how" \
					"$bin" -n "$ndev" -q "$qd" $p dread "$nulldev"
			done
		done
		if [ "$poll" != 0 ]; then
			m read pt-ng-poll-qd4 "NVMe Read passthrough on $nullchr (upstream), QD 4, IOPOLL" \
				"$bin" -n "$ndev" -q 4 -P read "$nullchr"
			m read pt-bdev-poll-qd4 "NVMe Read passthrough on $nulldev (this series), QD 4, IOPOLL" \
				"$bin" -n "$ndev" -q 4 -P read "$nulldev"
		fi
	fi
}

# Discards: a loop device on a sparse 1 GiB tmpfs file (guest memory only)
discard_paths() {
	truncate -s 1G "$work/disk"
	loopdev=$(losetup -f --show "$work/disk") || die "losetup failed"
	for sz in 4096 1048576 67108864; do
		case $sz in 4096) h=4KiB ;; 1048576) h=1MiB ;; *) h=64MiB ;; esac
		# as many as the other CPU-bound paths: with a tenth, two boots'
		# medians differed by up to 0.12 % (where a tick lands in the
		# loop worker's work); with 19200, by 0.001 %, in 15 s a boot
		nd=$(( n >= 16 ? n : 16 ))
		m discard "uring-qd1-$h" "BLOCK_URING_CMD_DISCARD, $h, QD 1" "$bin" -n "$nd" discard "$loopdev" "$sz"
		m discard "uring-qd16-$h" "BLOCK_URING_CMD_DISCARD, $h, QD 16" "$bin" -n "$nd" -q 16 discard "$loopdev" "$sz"
		m discard "blkdiscard-$h" "ioctl(BLKDISCARD), $h" "$bin" -n "$nd" blkdiscard "$loopdev" "$sz"
		m discard "punch-$h" "fallocate(PUNCH_HOLE), $h" "$bin" -n "$nd" punch "$loopdev" "$sz"
	done
}

case $parts in *" cpu "*) cpu_paths ;; esac
case $parts in *" dispatch "*) dispatch_paths ;; esac
case $parts in *" device "*) device_paths ;; esac
case $parts in *" cpu "*) discard_paths ;; esac

python3 - "$lines" "$out" "$boot" <<'EOF'
import json, os, sys
lines, out, boot = sys.argv[1:]
doc = {"boot": int(boot), "kernel": os.uname().release, "guest_cpus": os.cpu_count(),
       "cmdline": open("/proc/cmdline").read().strip(),
       "results": [json.loads(l) for l in open(lines) if l.strip()]}
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
EOF
