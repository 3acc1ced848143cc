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
