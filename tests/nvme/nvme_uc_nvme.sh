#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Description: uc-nvme (tool/), nvme-cli's verbs through io_uring, answers
# as Debian's nvme-cli does through the ioctls on the same node: on the
# namespace block node (the series' NVME_URING_CMD_ADMIN/_IO), its generic
# char node and the controller. id-ctrl and id-ns byte for byte (-o
# binary) and key for key, in nvme-cli's order (-o json); smart-log and
# get-log as the same bytes; get-feature the same value; admin-passthru
# the same Identify data as id-ctrl; io-passthru writes a block nvme-cli
# reads back, and reads one nvme-cli wrote. A refused command exits 1
# with nvme-cli's status line, bad options exit 2 and name the option.
#
#   nvme_uc_nvme.sh NVME_DEV NVME_CHAR NVME_CTRL
# Environment: TEST_UC_NVME (the tool; build/tool/uc-nvme next to the
# tests' folder).
set -eu

me=nvme_uc_nvme
fail() { echo "$me: FAIL: $*"; exit 1; }
skip() { echo "$me: SKIP: $*"; exit 77; }

dev=${1:-/dev/nvme0n1}
chr=${2:-/dev/ng0n1}
ctrl=${3:-/dev/nvme0}
tool=${TEST_UC_NVME:-$(cd "$(dirname "$0")/.." && pwd)/tool/uc-nvme}
[ -x "$tool" ] || fail "no $tool: make tests builds it"
command -v nvme >/dev/null || skip "no nvme-cli in the guest (make deps installs it)"
[ -b "$dev" ] || skip "$dev is not a block device"

work=$(mktemp -d /tmp/uc-nvme.XXXXXX)
trap 'rm -rf "$work"' EXIT

# same WHAT FILE-A FILE-B: byte for byte, or the first difference
same() {
	cmp "$2" "$3" >"$work/cmp" 2>&1 || fail "$1: $(head -n 1 "$work/cmp")"
}

# run NAME CMD...: CMD's stdout to $work/NAME, stderr to NAME.err; must succeed
run() {
	local name=$1
	shift
	"$@" >"$work/$name" 2>"$work/$name.err" ||
		fail "$*: exit $?: $(head -n 2 "$work/$name.err" | tr '\n' ' ')"
}

# refused STATUS PATTERN CMD...: CMD exits STATUS and says PATTERN
refused() {
	local want=$1 pattern=$2 st=0
	shift 2
	"$@" >"$work/refused" 2>&1 || st=$?
	if [ "$st" != "$want" ] || ! grep -q "$pattern" "$work/refused"; then
		fail "$*: exit $st (want $want): $(head -n 2 "$work/refused" | tr '\n' ' ')"
	fi
}

# json_same WHAT A B: the same keys in the same order with the same values
json_same() {
	python3 - "$2" "$3" <<'PY' || fail "$1: -o json differs from nvme-cli's (above)"
import json, sys
a, b = (json.load(open(p), object_pairs_hook=list) for p in sys.argv[1:3])
def walk(x, y, path):
    if type(x) != type(y):
        sys.exit(f"{path}: {x!r} against nvme-cli's {y!r}")
    if isinstance(x, list):
        if len(x) != len(y):
            keys = lambda l: [k for k, _ in l] if l and isinstance(l[0], tuple) else len(l)
            sys.exit(f"{path}: {keys(x)} against nvme-cli's {keys(y)}")
        for i, (u, v) in enumerate(zip(x, y)):
            if isinstance(u, tuple):
                if u[0] != v[0]:
                    sys.exit(f"{path}: key {u[0]} where nvme-cli has {v[0]}")
                walk(u[1], v[1], f"{path}.{u[0]}")
            else:
                walk(u, v, f"{path}[{i}]")
    elif x != y:
        sys.exit(f"{path}: {x!r} against nvme-cli's {y!r}")
walk(a, b, "")
PY
}

nsid=$(cat "/sys/class/block/${dev##*/}/nsid" 2>/dev/null || echo 1)

# Linux takes admin commands through io_uring on the controller, the
# series on the block node; the generic node refuses them, and says so.
refused 1 "admin commands through io_uring on the controller" "$tool" id-ctrl "$chr"

for node in "$dev" "$ctrl"; do
	[ -e "$node" ] || fail "$node does not exist"
	n=${node##*/}
	ns_opt=()
	[ "$node" != "$ctrl" ] || ns_opt=(-n "$nsid")

	run "$n.ctrl.bin" "$tool" id-ctrl "$node" -o binary
	run "$n.ctrl.cli.bin" nvme id-ctrl "$node" -o binary
	[ "$(stat -c %s "$work/$n.ctrl.bin")" = 4096 ] || fail "id-ctrl $node: not 4096 bytes"
	same "id-ctrl $node -o binary" "$work/$n.ctrl.bin" "$work/$n.ctrl.cli.bin"
	run "$n.ctrl.json" "$tool" id-ctrl "$node" --output-format=json
	run "$n.ctrl.cli.json" nvme id-ctrl "$node" -o json
	json_same "id-ctrl $node" "$work/$n.ctrl.json" "$work/$n.ctrl.cli.json"
	run "$n.ctrl.txt" "$tool" id-ctrl "$node"
	grep -q "^sn *: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sn"])' \
		"$work/$n.ctrl.cli.json")" "$work/$n.ctrl.txt" || fail "id-ctrl $node: no sn line"

	run "$n.ns.bin" "$tool" id-ns "$node" "${ns_opt[@]}" -o binary
	run "$n.ns.cli.bin" nvme id-ns "$node" "${ns_opt[@]}" -o binary
	same "id-ns $node -o binary" "$work/$n.ns.bin" "$work/$n.ns.cli.bin"
	run "$n.ns.json" "$tool" id-ns "$node" "${ns_opt[@]}" -o json
	run "$n.ns.cli.json" nvme id-ns "$node" "${ns_opt[@]}" -o json
	json_same "id-ns $node" "$work/$n.ns.json" "$work/$n.ns.cli.json"

	# No I/O runs meanwhile, so the counters hold still.
	run "$n.smart.bin" "$tool" smart-log "$node" -o binary
	run "$n.smart.cli.bin" nvme smart-log "$node" -o binary
	same "smart-log $node -o binary" "$work/$n.smart.bin" "$work/$n.smart.cli.bin"
	run "$n.smart.json" "$tool" smart-log "$node" -o json
	run "$n.smart.cli.json" nvme smart-log "$node" -o json
	json_same "smart-log $node" "$work/$n.smart.json" "$work/$n.smart.cli.json"

	# get-log: nvme-cli's hex dump, header line included (SMART, 512 bytes)
	run "$n.log.txt" "$tool" get-log "$node" --log-id=2 --log-len=512
	run "$n.log.cli.txt" nvme get-log "$node" --log-id=2 --log-len=512
	same "get-log $node (hex dump)" "$work/$n.log.txt" "$work/$n.log.cli.txt"
	run "$n.log.bin" "$tool" get-log "$node" -i 2 -l 512 -b
	same "get-log -b $node" "$work/$n.log.bin" "$work/$n.smart.cli.bin"

	# get-feature: Number of Queues, Temperature Threshold (with a
	# cdw11), Volatile Write Cache
	for f in "7" "4 -c 0" "6"; do
		# shellcheck disable=SC2086 # the fid and its options, split on purpose
		run "$n.feat" "$tool" get-feature "$node" -f $f
		# shellcheck disable=SC2086
		run "$n.feat.cli" nvme get-feature "$node" -f $f
		a=$(sed -n 's/.*value:\(0x[0-9a-f]*\)$/\1/p' "$work/$n.feat")
		b=$(sed -n 's/.*value:\(0x[0-9a-f]*\)$/\1/p' "$work/$n.feat.cli")
		if [ -z "$a" ] || [ "$a" != "$b" ]; then
			fail "get-feature $node -f $f: value '$a', nvme-cli's '$b'"
		fi
	done

	# admin-passthru: Identify Controller by hand, the same 4096 bytes
	run "$n.pt.bin" "$tool" admin-passthru "$node" --opcode=6 --cdw10=1 \
		--data-len=4096 --read --raw-binary
	same "admin-passthru $node (Identify)" "$work/$n.pt.bin" "$work/$n.ctrl.cli.bin"
	run "$n.pt.cli.bin" nvme admin-passthru "$node" -o 6 -4 1 -l 4096 -r -b
	same "admin-passthru $node against nvme-cli's" "$work/$n.pt.bin" "$work/$n.pt.cli.bin"
	grep -q "^Admin Command opcode 0x06 is Success and result: 0x00000000$" "$work/$n.pt.bin.err" ||
		fail "admin-passthru $node: $(cat "$work/$n.pt.bin.err")"
done

# io-passthru on the block node and the char node, each direction checked
# by the other program: one block at LBA 1000.
bs=$(cat "/sys/class/block/${dev##*/}/queue/logical_block_size")
for node in "$dev" "$chr"; do
	n=${node##*/}
	head -c "$bs" /dev/urandom >"$work/$n.w1"
	run "$n.w1.out" "$tool" io-passthru "$node" -o 1 -n "$nsid" -4 1000 -l "$bs" -w -i "$work/$n.w1"
	run "$n.r1" nvme io-passthru "$node" -o 2 -n "$nsid" -4 1000 -l "$bs" -r -b
	same "io-passthru write on $node, read by nvme-cli" "$work/$n.w1" "$work/$n.r1"
	head -c "$bs" /dev/urandom >"$work/$n.w2"
	run "$n.w2.out" nvme io-passthru "$node" -o 1 -n "$nsid" -4 1000 -l "$bs" -w -i "$work/$n.w2"
	run "$n.r2" "$tool" io-passthru "$node" -o 2 -n "$nsid" -4 1000 -l "$bs" -r -b
	same "io-passthru read on $node of nvme-cli's write" "$work/$n.w2" "$work/$n.r2"
	# the hex dump of the same read, as nvme-cli prints it
	run "$n.r2.txt" "$tool" io-passthru "$node" -o 2 -n "$nsid" -4 1000 -l "$bs" -r
	run "$n.r2.cli.txt" nvme io-passthru "$node" -o 2 -n "$nsid" -4 1000 -l "$bs" -r
	same "io-passthru $node (hex dump)" "$work/$n.r2.txt" "$work/$n.r2.cli.txt"
done

# Refusals: an NVMe status exits 1 and is named; a bad option exits 2;
# /dev/null (which completes every uring_cmd with 0) and a loop device are
# refused before anything is sent.
refused 1 "^NVMe status: 0x.*Invalid Command Opcode" "$tool" admin-passthru "$dev" -o 0xff
refused 1 "multiple of 4" "$tool" get-log "$dev" -i 2 -l 3
refused 2 "output-format" "$tool" id-ctrl "$dev" -o yaml
refused 2 "opcode" "$tool" admin-passthru "$dev" -o 0x100
# A kernel errno on a node that takes the commands (a Read naming another
# namespace: -EINVAL) is named, and blames no missing series: the tool asks
# the library's probe before saying the kernel lacks one.
refused 1 "Invalid argument" "$tool" io-passthru "$dev" -o 2 -n $((nsid + 1)) -l "$bs" -r
! grep -q "lacks the uringcmd series" "$work/refused" ||
	fail "io-passthru of nsid $((nsid + 1)) on $dev blames a missing series: $(tail -n 1 "$work/refused")"
for node in /dev/null /dev/loop0; do
	[ ! -e "$node" ] || refused 1 "not an NVMe namespace" "$tool" id-ctrl "$node"
done
exit 0
