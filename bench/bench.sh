#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: boots the guest BOOTS times (3), runs bench/run.sh in each,
# keeps the JSON under bench/results/RUN/, profiles the compared paths in
# one more boot (bench/profile.sh) and writes RESULTS.md and bench/plots/
# with bench/report.py.
#
# The guests use the TSC as clocksource: under TCG the kernel otherwise
# picks the HPET, and every clock_gettime() becomes an emulated MMIO read
# costing more than a block query.
#
#   bench.sh [--boots N] [--n COMMANDS] [--kvm] [--kernel BZIMAGE]
#
# Run it on an otherwise idle machine: every figure is a ratio within one
# boot, but a busy host widens the spread across boots.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
boots=3 n=20000 accel=tcg kvm=() kernel=$top/build/linux/obj/arch/x86/boot/bzImage
while [ $# -gt 0 ]; do
	case $1 in
	--boots) boots=$2; shift ;;
	--n) n=$2; shift ;;
	--kvm) accel=kvm; kvm=(--kvm) ;;
	--kernel) kernel=$2; shift ;;
	*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

die() { echo "bench.sh: $*" >&2; exit 1; }

run=$(date -u +%Y-%m-%dT%H%M)
dir=$top/bench/results/$run
mkdir -p "$dir"
scratch=$top/build/results/bench-$run
cmdline="nvme.poll_queues=1 clocksource=tsc tsc=reliable"

for k in $(seq 1 "$boots"); do
	echo "bench: boot $k of $boots"
	rm -rf "$scratch-$k"
	"$top/qemu/run-nvme.sh" -k "$kernel" "${kvm[@]}" -n 2 --null-last \
		--append "$cmdline" --timeout 3600 --results "$scratch-$k" -- \
		env BENCH_N="$n" BENCH_ACCEL="$accel" "$top/bench/run.sh" \
		"$top/build/bench" /run/results/boot.json "$k" ||
		die "boot $k failed (see $scratch-$k/console.log)"
	cp "$scratch-$k/boot.json" "$dir/boot-$k.json"
done

echo "bench: profile boot"
rm -rf "$scratch-prof"
"$top/qemu/run-nvme.sh" -k "$kernel" "${kvm[@]}" -n 2 --null-last \
	--append "$cmdline" --timeout 3600 --results "$scratch-prof" -- \
	env BENCH_N="$n" "$top/bench/profile.sh" "$top/build/bench" /run/results/prof ||
	die "profile boot failed (see $scratch-prof/console.log)"
cp "$scratch-prof"/prof/profile-*.txt "$dir/"

python3 - "$dir/env.json" "$boots" "$n" "$top" "$cmdline" <<'PY'
import json, os, platform, subprocess, sys, datetime
out, boots, n, top, cmdline = sys.argv[1:]
def cmd(*a):
    try:
        return subprocess.run(a, capture_output=True, text=True, cwd=top).stdout.strip()
    except OSError:
        return "unknown"
cpu = "unknown"
for l in open("/proc/cpuinfo"):
    if l.startswith("model name"):
        cpu = l.split(":", 1)[1].strip()
        break
env = {"host_cpu": f"{cpu} ({os.cpu_count()} CPUs)", "host_kernel": platform.release(),
       "qemu": cmd("qemu-system-x86_64", "--version").splitlines()[0],
       "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
       "commit": cmd("git", "rev-parse", "--short=12", "HEAD"),
       "guest_cmdline": cmdline, "boots": int(boots), "counts": {"measured_per_point": int(n), "warmup_per_point": int(n) // 10}}
json.dump(env, open(out, "w"), indent=1)
PY

"$top/bench/report.py" "$dir" --out "$top/RESULTS.md" --plots "$top/bench/plots" \
	--command "make bench" || die "report.py failed"
echo "bench: RESULTS.md and bench/plots/ from bench/results/$run"
