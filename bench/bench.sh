#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: boots the guest BOOTS times (3), runs bench/run.sh in each,
# keeps the JSON under bench/results/RUN/ (and, after the report, only the
# runs the reports are made from), profiles the compared paths in
# one more boot (bench/profile.sh), counts instructions per command in
# ICOUNT_BOOTS (2) more under QEMU's icount (bench/icount.sh: one vCPU, 1 ns
# of running guest time per instruction, the same figure every boot) and
# writes RESULTS.md and bench/plots/ with bench/report.py.
#
# The icount boots run with sleep=on (qemu/run-nvme.sh --icount-sleep): an
# idle guest's clock follows the host's instead of jumping to its next
# timer, so a command waiting some microseconds on QEMU rarely takes a timer
# interrupt (sleep=off: 0.1-0.4 a command, 47 % apart between boots); busy
# instructions (elapsed minus idle) stay exact. The null-co namespace
# completes each read after ICOUNT_NULL_LATENCY ns (100000; QEMU rounds it
# up to its main loop's millisecond), so every QD 1 read puts the task to
# sleep before its completion: one shape of path, no race with QEMU.
#
# The guests use the TSC as clocksource: under TCG the kernel otherwise
# picks the HPET, and every clock_gettime() becomes an emulated MMIO read
# costing more than a block query.
#
#   bench.sh [--boots N] [--n COMMANDS] [--pairs P] [--slice S] [--no-profile]
#            [--kvm] [--kernel BZIMAGE] [--icount-boots N] [--icount-only]
#
# --n: commands per single point (20000); --pairs: pairs of slices per
# comparison (32); --slice: commands per slice of the slow paths (2000);
# --icount-boots: instruction-counting boots (2; 0: none; none under KVM),
# --icount-only: those boots alone, whose section report.py then writes
# into the RESULTS.md there is (the wall-clock sections stay as they are).
# The environment gives the same defaults (BENCH_BOOTS, BENCH_N,
# BENCH_PAIRS, BENCH_SLICE, BENCH_PROFILE=0, BENCH_ICOUNT_BOOTS,
# BENCH_ICOUNT_N: commands per repetition of the icount paths,
# BENCH_ICOUNT_NULL_LATENCY: the null-co latency of the icount boots, ns), so that `make bench` can be
# shortened; RESULTS.md then says it is a short run.
#
# The answers are ratios of paths interleaved within one boot; a busy host
# slows both sides of a pair alike, but widens the spread across boots.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
boots=${BENCH_BOOTS:-3} n=${BENCH_N:-20000} pairs=${BENCH_PAIRS:-32}
slice=${BENCH_SLICE:-2000} profile=${BENCH_PROFILE:-1}
accel=tcg kvm=() kernel=$top/build/linux/obj/arch/x86/boot/bzImage
icount_boots=${BENCH_ICOUNT_BOOTS:-2} icount_n=${BENCH_ICOUNT_N:-19200} icount_only=0
icount_latency=${BENCH_ICOUNT_NULL_LATENCY:-100000}
# make bench KVM=1 (UC_KVM=1): as --kvm, and the report says KVM
[ "${UC_KVM:-0}" != 1 ] || { accel=kvm; kvm=(--kvm); }
while [ $# -gt 0 ]; do
	case $1 in
	--boots) boots=$2; shift ;;
	--n) n=$2; shift ;;
	--pairs) pairs=$2; shift ;;
	--slice) slice=$2; shift ;;
	--no-profile) profile=0 ;;
	--kvm) accel=kvm; kvm=(--kvm) ;;
	--kernel) kernel=$2; shift ;;
	--icount-boots) icount_boots=$2; shift ;;
	--icount-only) icount_only=1 ;;
	*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

die() { echo "bench.sh: $*" >&2; exit 1; }
# icount is TCG's: a KVM run has none
[ "$accel" = tcg ] || icount_boots=0
if [ "$icount_only" = 1 ]; then
	[ "$icount_boots" -gt 0 ] || die "--icount-only with no icount boots (KVM, or --icount-boots 0)"
	boots=0 profile=0
fi

# A KVM run is reported beside the TCG one, not over it: its figures
# answer another question (the CPU's own speed, not an emulator's).
results_md=$top/RESULTS.md plots=$top/bench/plots
if [ "$accel" = kvm ]; then
	results_md=$top/RESULTS-kvm.md plots=$top/bench/plots-kvm
fi
echo "bench: $boots boots under ${accel^^}, $icount_boots counting instructions; the report goes to ${results_md#"$top"/}"

run=$(date -u +%Y-%m-%dT%H%M)
[ "$icount_only" = 0 ] || run=$run-icount
dir=$top/bench/results/$run
mkdir -p "$dir"
scratch=$top/build/results/bench-$run
cmdline="nvme.poll_queues=1 clocksource=tsc tsc=reliable"

# The host's CPU time over the boots, and ours (the boots' QEMU, from the
# shell's children times): what is left is other work sharing the host.
stat0=$(head -n 1 /proc/stat)
t0=$(date +%s.%N)
for k in $(seq 1 "$boots"); do
	echo "bench: boot $k of $boots"
	rm -rf "$scratch-$k"
	"$top/qemu/run-nvme.sh" -k "$kernel" "${kvm[@]}" -n 2 --null-last \
		--append "$cmdline" --timeout 3600 --results "$scratch-$k" -- \
		env BENCH_N="$n" BENCH_PAIRS="$pairs" BENCH_SLICE="$slice" \
		BENCH_ACCEL="$accel" "$top/bench/run.sh" \
		"$top/build/bench" /run/results/boot.json "$k" || {
		# no run of half its boots left among bench/results' runs
		rm -rf "$dir"
		die "boot $k failed (see $scratch-$k/console.log)"
	}
	cp "$scratch-$k/boot.json" "$dir/boot-$k.json"
done

if [ "$profile" = 1 ]; then
	echo "bench: profile boot"
	rm -rf "$scratch-prof"
	"$top/qemu/run-nvme.sh" -k "$kernel" "${kvm[@]}" -n 2 --null-last \
		--append "$cmdline" --timeout 3600 --results "$scratch-prof" -- \
		env BENCH_N="$n" "$top/bench/profile.sh" "$top/build/bench" /run/results/prof ||
		die "profile boot failed (see $scratch-prof/console.log)"
	cp "$scratch-prof"/prof/profile-*.txt "$scratch-prof"/prof/cost-*.json "$dir/"
fi

# Instructions per command: the same paths counted in each boot; icount
# makes them independent of the host's load
icount_t0=$(date +%s)
for k in $(seq 1 "$icount_boots"); do
	echo "bench: icount boot $k of $icount_boots"
	rm -rf "$scratch-icount-$k"
	"$top/qemu/run-nvme.sh" -k "$kernel" --icount-sleep -n 2 --null-last \
		--null-latency "$icount_latency" \
		--append "$cmdline" --timeout 3600 --results "$scratch-icount-$k" -- \
		env BENCH_ICOUNT_N="$icount_n" "$top/bench/icount.sh" \
		"$top/build/bench" /run/results/icount.json "$k" || {
		rm -rf "$dir"
		die "icount boot $k failed (see $scratch-icount-$k/console.log)"
	}
	cp "$scratch-icount-$k/icount.json" "$dir/icount-$k.json"
done
icount_t=$(( $(date +%s) - icount_t0 ))
[ "$icount_boots" = 0 ] || echo "bench: icount boots took $icount_t s"

stat1=$(head -n 1 /proc/stat)
t1=$(date +%s.%N)
ours=$(times | tail -n 1)

python3 - "$dir/env.json" "$boots" "$n" "$top" "$cmdline" "$pairs" "$slice" "$profile" \
	"$stat0" "$stat1" "$t0" "$t1" "$ours" "$(getconf CLK_TCK)" "$icount_boots" "$icount_n" \
	"$icount_latency" "$icount_t" <<'PY'
import json, os, platform, re, subprocess, sys, datetime
out, boots, n, top, cmdline, pairs, slice_, profile = sys.argv[1:9]
stat0, stat1, t0, t1, ours, hz, icount_boots, icount_n, icount_latency, icount_t = sys.argv[9:]
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
       "guest_cmdline": cmdline, "boots": int(boots),
       "counts": {"measured_per_point": int(n), "warmup_per_point": int(n) // 10,
                  "pairs": int(pairs), "slice": int(slice_)},
       "icount": {"boots": int(icount_boots), "n": int(icount_n), "sleep": "on",
                  "null_latency_ns": int(icount_latency), "seconds": int(icount_t),
                  "qemu": "-accel tcg,thread=single -icount shift=0,sleep=on -smp 1"}}
def busy(line):  # cpu user nice system idle iowait irq softirq steal ...
    v = [int(x) for x in line.split()[1:9]]
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / int(hz)
ours_s = sum(int(m) * 60 + float(s) for m, s in re.findall(r"(\d+)m([\d.]+)s", ours))
span = (float(t1) - float(t0)) * (os.cpu_count() or 1)
if span > 0:
    other = max(0.0, busy(stat1) - busy(stat0) - ours_s)
    env["host_other_cpu_pct"] = round(100 * other / span, 1)
short = []
if int(boots) and (int(boots), int(n), int(pairs), int(slice_)) != (3, 20000, 32, 2000):
    short.append(f"{boots} boot(s), {pairs} pairs of {slice_}-command slices per "
                 f"comparison and {n} commands per single point, where `make bench` "
                 f"takes 3, 32, 2000 and 20000")
if int(boots) and profile != "1":
    short.append("no profile boot")
if short:
    env["short_run"] = "; ".join(short)
json.dump(env, open(out, "w"), indent=1)
PY

"$top/bench/report.py" "$dir" --out "$results_md" --plots "$plots" \
	--command "make bench$([ "$accel" = tcg ] || echo " KVM=1")" || die "report.py failed"
echo "bench: ${results_md#"$top"/} and ${plots#"$top"/}/ from bench/results/$run"

# bench/results keeps what the reports are made from: this run and the
# runs RESULTS.md and RESULTS-kvm.md link to; older runs (an older icount
# run too: this one's section replaced it) go. The boots' own output stays
# in build/results/.
keep=$(cat "$top/RESULTS.md" "$top/RESULTS-kvm.md" 2>/dev/null |
	sed -n 's|.*(bench/results/\([^/)]*\)/.*|\1|p' | sort -u)
gone=0
for old in "$top"/bench/results/*/; do
	old=$(basename "$old")
	[ "$old" != "$run" ] || continue
	! grep -qxF -- "$old" <<<"$keep" || continue
	rm -rf "${top:?}/bench/results/$old"
	gone=$((gone + 1))
done
[ "$gone" = 0 ] || echo "bench: removed $gone older run(s) from bench/results (git rm them with the new run's commit)"
