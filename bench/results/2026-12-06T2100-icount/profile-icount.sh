#!/bin/bash
set -eu
b=/work/ic/build/bench/uc_icount
o=/run/results
echo 0 >/proc/sys/kernel/kptr_restrict; echo -1 >/proc/sys/kernel/perf_event_paranoid
for spec in "nop:-b 64 nop" "query:-b 64 query /dev/nvme0n1" "queryF:-b 64 -F query /dev/nvme0n1" "ioctl:ioctl /dev/nvme0n1"; do
	name=${spec%%:*} args=${spec#*:}
	# shellcheck disable=SC2086
	perf record -q -e cpu-clock -c 997 -o /tmp/$name.data -- $b -n 192000 -r 1 $args >$o/$name.json
	perf report -i /tmp/$name.data --sort sym -n --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -45 >$o/prof-$name.txt
done
