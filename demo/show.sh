#!/bin/bash
# Runs in the guest for `make run`: the new commands on /dev/nvme0n1, next
# to what ioctl and sysfs say. $1: folder of the demo programs.
set -eu
bin=$1
dev=${DEMO_DEV:-/dev/nvme0n1}

echo "== $(uname -r) on $(sed 's/ *$//' /sys/class/nvme/nvme0/model 2>/dev/null)"
echo
"$bin/show-queries" "$dev"
echo
"$bin/show-identify" "$dev"

# uc-nvme: nvme-cli's verbs, each command through io_uring on the block node
if [ -x "${2:-}" ]; then
	echo
	echo "== uc-nvme id-ctrl $dev -o json (nvme-cli's keys; the first lines)"
	"$2" id-ctrl "$dev" -o json | head -n 8
	echo "  ..."
	echo "== uc-nvme smart-log $dev"
	"$2" smart-log "$dev" | head -n 8
fi
