#!/bin/bash
# PID 1 of a run-nvme.sh guest: mount what the guest needs writable or
# virtual, run /run/results/cmd.sh with its output on ttyS1, store its exit
# status in /run/results/rc and power off (a kernel without ACPI, such as
# kernel/run.config's: reset, which QEMU's -no-reboot turns into its exit).
set -u
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH HOME=/root TERM=dumb LANG=C.UTF-8

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
for dir in /tmp /run /var/tmp /var/log /root; do
	mount -t tmpfs -o mode=1777 tmpfs "$dir"
done
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t configfs configfs /sys/kernel/config 2>/dev/null

top=$(sed -n 's/.*uringcmd\.top=\([^ ]*\).*/\1/p' /proc/cmdline)
mkdir -p "$top" /run/results
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=512000 checkout "$top"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results /run/results

hostname uringcmd-guest
ip link set lo up

stty -F /dev/ttyS1 raw -echo 2>/dev/null
bash /run/results/cmd.sh </dev/null >/dev/ttyS1 2>&1
echo $? >/run/results/rc
sync
if [ -d /sys/firmware/acpi ]; then
	echo o >/proc/sysrq-trigger
else
	echo b >/proc/sysrq-trigger
fi
sleep 10
