# SPDX-License-Identifier: GPL-2.0
"""The icount section of RESULTS.md: instructions per command (bench/report.py).

Input: RESULTS_DIR/icount-N.json, one per boot under QEMU's icount
(bench/icount.sh, uc_icount), each {"boot", "kernel", "results": [{"group",
"path", "label", "reps": [{"elapsed", "cpu", "busy"}, ...]}, ...]}: figures
per command, in guest ns, which under -icount shift=0 are instructions.

The figure of a path: "elapsed" for the CPU-bound ones (no host I/O in the
loop: deterministic), "busy" (elapsed minus the guest's idle time) for the
device commands, whose completions come from host threads. Per boot the
median over its repetitions; the agreement of the boots is their range over
their mean. A target is checked on the interval of the difference over
every repetition of every boot ([min B - max A, max B - min A] per boot,
their union): "not met" when the interval lies wholly on the wrong side of
the limit, checked first, then "met" when it lies wholly on the right side,
else "unresolved".
"""
import json
import os
import re
import statistics

DETERMINISTIC = {"floor", "query", "discard", "dispatch"}
REPEAT = 0.001  # the boots must agree within 0.1 %
SECTION = "## Instructions per command (QEMU icount)"


class IcountError(Exception):
    pass


def files(rdir):
    found = {}
    for name in sorted(os.listdir(rdir)):
        m = re.fullmatch(r"icount-(\d+)\.json", name)
        if m:
            found[int(m.group(1))] = os.path.join(rdir, name)
    return found


def load(rdir):
    """{boot: {(group, path): result}}, {boot: doc}"""
    boots, docs = {}, {}
    for b, path in files(rdir).items():
        name = os.path.basename(path)
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise IcountError(f"{name}: {e}")
        if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
            raise IcountError(f"{name}: no \"results\" list")
        per = {}
        for i, r in enumerate(doc["results"]):
            reps = r.get("reps") if isinstance(r, dict) else None
            if (not isinstance(reps, list) or not reps or not all(
                    isinstance(x, dict) and all(isinstance(x.get(k), (int, float))
                                                for k in ("elapsed", "cpu", "busy"))
                    for x in reps) or not isinstance(r.get("group"), str)
                    or not isinstance(r.get("path"), str)):
                raise IcountError(f"{name}: results[{i}] malformed")
            key = (r["group"], r["path"])
            if key in per:
                raise IcountError(f"{name}: a second result for {key}")
            per[key] = r
        boots[b], docs[b] = per, doc
    return boots, docs


def measure(group):
    return "elapsed" if group in DETERMINISTIC else "busy"


def values(boots, key, field=None):
    """{boot: [the figure of each repetition]}"""
    out = {}
    for b, per in sorted(boots.items()):
        if key in per:
            f = field or measure(key[0])
            out[b] = [x[f] for x in per[key]["reps"]]
    return out


def medians(boots, key, field=None):
    return {b: statistics.median(v) for b, v in values(boots, key, field).items()}


def overall(boots, key, field=None):
    m = medians(boots, key, field)
    return statistics.mean(m.values()) if m else None


def agreement(boots, key, field=None):
    m = list(medians(boots, key, field).values())
    if len(m) < 2:
        return None
    return (max(m) - min(m)) / statistics.mean(m)


def spread(boots, key, field=None):
    """the largest range of the repetitions within one boot, over their median"""
    return max(((max(v) - min(v)) / statistics.median(v)
                for v in values(boots, key, field).values()), default=None)


def irqs(boots, key, field="timer_irqs"):
    """the mean over every repetition of a per-command count (timer_irqs,
    irqs, ctxt); None where the boots did not record it"""
    v = [x.get(field) for b in boots if key in boots[b]
         for x in boots[b][key]["reps"]]
    v = [x for x in v if isinstance(x, (int, float))]
    return statistics.mean(v) if v else None


def count_range(boots, key, field):
    v = [x.get(field) for b in boots if key in boots[b]
         for x in boots[b][key]["reps"]]
    v = [x for x in v if isinstance(x, (int, float))]
    return (min(v), max(v)) if v else None


# t quantiles (two-sided 95 %) by degrees of freedom, for the shape fits
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}
MIN_CTXT_SPREAD = 0.05  # context switches per command: less, and no slope to fit


def t975(df):
    return T975.get(df) or T975[max(k for k in T975 if k <= df)]


def shape_fit(boots, key):
    """A device command's busy count as a line in its context switches per
    command, over every repetition of every boot: busy = A + S x ctxt.
    A repetition is a mix of commands whose completion came before the task
    slept (no switch) and commands that slept (2 switches: to the idle task
    and back), so A is the count without a sleep and 2S what a sleep adds.
    None where the repetitions' ctxt spread too little to fit (every read at
    QD 1 sleeps) or lack it. Returns A, S, A's standard error, the degrees
    of freedom, the largest residual, and A per boot (each repetition's busy
    less S x ctxt, the boot's median)."""
    pts = [(b, x["ctxt"], x["busy"]) for b in sorted(boots) if key in boots[b]
           for x in boots[b][key]["reps"] if isinstance(x.get("ctxt"), (int, float))]
    if len(pts) < 4:
        return None
    xs = [c for _, c, _ in pts]
    ys = [y for _, _, y in pts]
    if max(xs) - min(xs) < MIN_CTXT_SPREAD:
        return None
    n = len(pts)
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - slope * mx
    resid = [y - (a + slope * x) for x, y in zip(xs, ys)]
    sd = (sum(r * r for r in resid) / (n - 2)) ** 0.5
    se = sd * (1 / n + mx * mx / sxx) ** 0.5
    per = {}
    for b, c, y in pts:
        per.setdefault(b, []).append(y - slope * c)
    return {"a": a, "slope": slope, "se": se, "df": n - 2,
            "resid": max(abs(r) for r in resid),
            "per_boot": {b: statistics.median(v) for b, v in per.items()}}


def shape_interval(boots, a, b):
    """B's no-sleep count less A's, with a 95 % interval from the two fits"""
    fa, fb = shape_fit(boots, a), shape_fit(boots, b)
    if not fa or not fb:
        return None, None
    d = fb["a"] - fa["a"]
    half = t975(min(fa["df"], fb["df"])) * (fa["se"] ** 2 + fb["se"] ** 2) ** 0.5
    return (d - half, d + half, d), fa["a"]


def diff_interval(boots, a, b, field=None):
    va, vb = values(boots, a, field), values(boots, b, field)
    common = sorted(set(va) & set(vb))
    if not common:
        return None
    return (min(min(vb[k]) - max(va[k]) for k in common),
            max(max(vb[k]) - min(va[k]) for k in common),
            statistics.mean(statistics.median(vb[k]) - statistics.median(va[k])
                            for k in common))


def fmt(v, d=1):
    return "–" if v is None else f"{v:,.{d}f}"


def fmt_pct(v, d=3):
    return "–" if v is None else f"{100 * v:.{d}f} %"


def at_most(iv, limit):
    """the verdict on B - A <= limit: the wrong side first"""
    if iv is None:
        return "not measured"
    lo, hi, _ = iv
    if lo > limit:
        return "not met"
    if hi <= limit:
        return "met"
    return "unresolved"


def targets(boots):
    rows = []

    def row(target, a, b, limit_of, unit_limit, field=None, note=""):
        iv = diff_interval(boots, a, b, field)
        base = overall(boots, a, field)
        if iv is None or base is None:
            rows.append((target, "not measured", "not measured"))
            return
        limit = limit_of(base)
        lo, hi, mid = iv
        verdict = at_most(iv, limit)
        rows.append((target, f"{fmt(overall(boots, b, field))} vs "
                     f"{fmt(base)}: {mid:+,.1f} [{lo:+,.1f}, {hi:+,.1f}] "
                     f"({100 * mid / base:+.2f} %); limit {unit_limit(limit)}"
                     + (f"; {note}" if note else ""), verdict))

    one_pct = lambda base: max(0.01 * base, 50.0)  # noqa: E731
    lim = lambda v: f"{v:+,.1f}"  # noqa: E731

    def shape_row(t, a, b, limit_of):
        iv, base = shape_interval(boots, a, b)
        if iv is None:
            rows.append((t, "not measured (too little spread of context switches "
                         "to fit)", "not measured"))
        else:
            lo, hi, mid = iv
            rows.append((t, f"{fmt(base + mid)} vs {fmt(base)}: {mid:+,.1f} "
                         f"[{lo:+,.1f}, {hi:+,.1f}] (95 % from the fits) "
                         f"({100 * mid / base:+.2f} %); limit {lim(limit_of(base))}",
                         at_most(iv, limit_of(base))))

    for g, name in (("features", "Get Features QD 1"), ("identify", "Identify QD 1")):
        row(f"Block node over char device, {name} (busy instructions): at most "
            "1 % or 50", (g, "uring-char"), (g, "uring-bdev"), one_pct, lim)
        shape_row(f"Block node over char device, {name}, without a sleep (busy fitted "
                  "over context switches): at most 1 % or 50", (g, "uring-char"),
                  (g, "uring-bdev"), one_pct)

    for sfx, name in (("-qd1", "null-co read QD 1, interrupt"),
                      ("-qd16", "null-co read QD 16, interrupt"),
                      ("-poll-qd1", "null-co read QD 1, polled"),
                      ("-poll-qd16", "null-co read QD 16, polled")):
        row(f"Block node over char device, {name} (busy instructions): at most 1 % or 50",
            ("read", "pt-ng" + sfx), ("read", "pt-bdev" + sfx), one_pct, lim,
            note=("polled: the spin count follows the host's completion time, "
                  "not deterministic" if "poll" in sfx else ""))
    for what, name in (("features", "Get Features"), ("identify", "Identify"),
                       ("read", "NVMe Read, interrupt"), ("read-poll", "NVMe Read, polled")):
        for e in ("EINVAL", "EFAULT"):
            if what == "features" and e == "EFAULT":
                continue
            char = "ng" if what.startswith("read") else "char"
            row(f"Block node over char device, {name}: dispatch refused by the driver "
                f"({e}, deterministic): at most 1 % or 50", ("dispatch", f"{what}-{e}-{char}"),
                ("dispatch", f"{what}-{e}-bdev"), one_pct, lim)
    row("Batched BLKBSZGET through BLOCK_URING_CMD_IOCTL over a NOP, batches of 64: "
        "at most 100", ("floor", "nop-b64"), ("query", "uring-b64"), lambda _: 100.0, lim)
    row("The same, batches of 8: at most 100", ("query", "nop-b8"), ("query", "uring-b8"),
        lambda _: 100.0, lim)
    row("Batched BLKBSZGET (64) through BLOCK_URING_CMD_IOCTL: fewer instructions "
        "than ioctl()", ("query", "ioctl"), ("query", "uring-b64"), lambda _: -0.001, lim)
    row("The same with a registered file: fewer than ioctl()", ("query", "ioctl"),
        ("query", "uring-b64-fixed"), lambda _: -0.001, lim)
    rows.append(("Wall-clock throughput of the batched query at least 2× ioctl() "
                 "with a registered file", "not measured by icount (it counts "
                 "instructions, not time): see the wall-clock answer 3 and its date",
                 "not measured"))
    ten = lambda base: 0.10 * base  # noqa: E731
    row("uring_cmd BLKBSZGET at QD 1 (io_uring_submit_and_wait) within 10 % of "
        "ioctl()", ("query", "ioctl"), ("query", "uring-qd1"), ten, lim)
    row("The same, SINGLE_ISSUER|DEFER_TASKRUN: within 10 %", ("query", "ioctl"),
        ("query", "uring-qd1-defer"), ten, lim)
    row("The same, DEFER_TASKRUN and a registered file: within 10 %", ("query", "ioctl"),
        ("query", "uring-qd1-defer-fixed"), ten, lim)
    for g, name in (("features", "Get Features"), ("identify", "Identify")):
        row(f"uring_cmd {name} at QD 1 on the block node within 10 % of "
            "NVME_IOCTL_ADMIN_CMD (busy)", (g, "ioctl-bdev"), (g, "uring-bdev"), ten, lim)
        shape_row(f"The same without a sleep (busy fitted over context switches): "
                  "within 10 %", (g, "ioctl-bdev"), (g, "uring-bdev"), ten)
    return rows


def answers(boots):
    """The section's answers in a few lines, from its deterministic rows:
    what the block node costs over the char device, what uring_cmd costs
    against ioctl(), and discard; [] where the rows are missing."""
    def v(g, p):
        return overall(boots, (g, p))

    out = []
    adm = [(v("dispatch", f"{w}-EINVAL-bdev"), v("dispatch", f"{w}-EINVAL-char"))
           for w in ("features", "identify")]
    rd = (v("dispatch", "read-EINVAL-bdev"), v("dispatch", "read-EINVAL-ng"))
    if all(a is not None and b is not None for a, b in adm + [rd]):
        d_adm = [a - b for a, b in adm]
        d_rd = rd[0] - rd[1]
        worst = max(d_adm + [d_rd])
        out.append(
            f"**Block node over the char device**: "
            + (fmt(min(d_adm)) if fmt(min(d_adm)) == fmt(max(d_adm))
               else f"{fmt(min(d_adm))}-{fmt(max(d_adm))}")
            + f" instructions more per admin command and {fmt(d_rd)} per I/O command: "
            "its dispatch (`blkdev_uring_cmd()` and `blk_mq_ops->uring_cmd`), "
            "counted exactly by the Dispatch rows; the rest of the path, the "
            "completion included, is the same code. The target, at most 1 % or 50: "
            + ("**met**." if worst <= 50 else "**not met**."))
    q, qf, io, nop = (v("query", "uring-b64"), v("query", "uring-b64-fixed"),
                      v("query", "ioctl"), v("floor", "nop-b64"))
    ng = v("query", "raw-ng-b64-fixed")
    q1 = [v("query", p) for p in ("uring-qd1", "uring-qd1-defer", "uring-qd1-defer-fixed")]
    if None not in (q, qf, io, nop):
        out.append(
            f"**uring_cmd against ioctl()**: a BLKBSZGET query costs {fmt(qf)} "
            f"instructions in batches of 64 with a registered file ({fmt(q)} without) "
            f"against {fmt(io)} for `ioctl(BLKBSZGET)`"
            + (f", {fmt(min(x for x in q1 if x))}-{fmt(max(x for x in q1 if x))} one "
               "at a time" if all(q1) else "")
            + ": more, not fewer. "
            + (f"io_uring's own uring_cmd path costs {fmt(ng - nop)} over a NOP before "
               f"any code of the series runs, the series {fmt(qf - ng)} (the table "
               "*Where a batched query's instructions go*). " if ng else "")
            + "What uring_cmd buys is asynchrony: many commands in flight from "
            "one thread, not fewer instructions per command.")
    fits = []
    for g, name in (("features", "Get Features"), ("identify", "Identify")):
        iv, base = shape_interval(boots, (g, "ioctl-bdev"), (g, "uring-bdev"))
        if iv:
            fits.append(f"{name} {iv[2]:+,.0f} ({100 * iv[2] / base:+.1f} %)")
    if fits:
        out.append("**Admin commands through uring_cmd against NVME_IOCTL_ADMIN_CMD** "
                   "(on the block node, a command that does not sleep, fitted): "
                   + ", ".join(fits) + " instructions per command.")
    d1, d16, bd = (v("discard", "uring-qd1-4KiB"), v("discard", "uring-qd16-4KiB"),
                   v("discard", "blkdiscard-4KiB"))
    if None not in (d1, d16, bd):
        out.append(f"**Discard** (4 KiB, a loop device on tmpfs): "
                   f"`BLOCK_URING_CMD_DISCARD` costs {d1 / bd:.3f}× the instructions of "
                   f"`ioctl(BLKDISCARD)` at QD 1 and {d16 / bd:.3f}× per command at QD 16.")
    return [f"{i}. {t}" for i, t in enumerate(out, 1)] + ([""] if out else [])


def md_section(boots, docs, env, wall_clock_date=None):
    bs = sorted(boots)
    ic = env.get("icount") if isinstance(env.get("icount"), dict) else {}
    kernels = sorted({str(docs[b].get("kernel")) for b in bs})
    lines = [SECTION, ""]
    lines += answers(boots)
    sleep_on = ic.get("sleep") == "on"
    latency = ic.get("null_latency_ns")
    lines.append(
        f"Measured {env.get('date', 'on an unknown date')}, commit "
        f"{env.get('commit', 'unknown')}, in {len(bs)} boot(s) of guest kernel "
        f"{', '.join(kernels)} under QEMU's instruction counter (`qemu/run-nvme.sh "
        + ("--icount-sleep`: one vCPU, `-accel tcg,thread=single -icount shift=0,sleep=on`"
           if sleep_on else "--icount`: one vCPU, `-accel tcg,thread=single -icount "
           "shift=0,sleep=off`")
        + (f", the null-co namespace with `latency-ns={latency}`" if latency else "")
        + "), where 1 ns of guest time the guest spends running is one retired "
        "instruction; "
        f"{ic.get('n', 'N')} commands per repetition of a CPU-bound path (a tenth "
        "for the device commands), 3 repetitions a boot after a warm-up, no clock "
        "read inside the measured loop (`bench/uc_icount`, `bench/icount.sh`). "
        "Instructions per command are the guest's: user space, kernel, interrupts. "
        "They do not depend on the host's load, unlike every figure of the "
        "wall-clock sections"
        + (f", which are from the run of {wall_clock_date} and were not rerun "
           "with this section." if wall_clock_date else "."))
    lines.append("")
    lines.append(
        "CPU-bound paths (no host I/O inside the loop: io_uring NOPs, block "
        "queries, discards on a loop device over a tmpfs file, and the uring_cmds "
        "the NVMe driver refuses before they reach the device) are counted as "
        "elapsed guest time. Device commands are completed by QEMU's threads at "
        "no fixed instruction, so their elapsed time is not deterministic; they "
        "are counted as busy instructions: elapsed minus the CPU's idle and "
        "iowait time, which the kernel's nohz idle accounting keeps in ns "
        "(`/proc/timer_list`; `/proc/stat` rounds it to 10 ms ticks and the "
        "guest has no schedstat). The process's own share (its "
        "`sum_exec_runtime`, `CLOCK_PROCESS_CPUTIME_ID`) is beside it, and what "
        "sets the shape of a device command's path: local timer interrupts and "
        "context switches per command (2: every command put the task to sleep "
        "until its interrupt; less: some completions came before the task slept). "
        "Per boot: the median of its repetitions.")
    lines.append("")
    lines.append(
        "**Dispatch** rows: the same uring_cmd on the block node and on the char "
        "device, refused by the NVMe driver before anything reaches the device "
        "(`uc_icount -E`): EINVAL, a nonzero `flags` byte in `struct "
        "nvme_uring_cmd`, which `nvme_uring_cmd_io()` refuses once the whole "
        "dispatch is done (io_uring, the node's `->uring_cmd`, for the block node "
        "`blkdev_uring_cmd()` and the driver's `blk_mq_ops->uring_cmd`, or the "
        "multipath head's); EFAULT, a buffer on a `PROT_NONE` page, refused by the "
        "mapping of the buffer after the request is allocated (and freed again). "
        "Every node ends in the same `nvme_uring_cmd_io()`, and a command that "
        "reaches the device completes through the same `nvme_uring_cmd_end_io()` "
        "and task_work whichever node it came from: the block node's extra cost is "
        "its dispatch, which these rows count to the instruction. Polled commands "
        "also differ in the poll callback (`blkdev_uring_cmd_iopoll()` against the "
        "char device's), called once per spin, which no refused command reaches.")
    lines.append("")
    lines += ["**Targets of issue 27** (B − A in instructions per command: the mean "
              "of the boots' medians [the range over every repetition of every boot]; "
              "\"not met\" is checked before \"met\"; \"unresolved\": the repetitions "
              "straddle the limit)", ""]
    lines += ["| Target | Measured (B vs A) | Verdict |", "|---|---|---|"]
    for t, m, v in targets(boots):
        lines.append(f"| {t} | {m} | **{v}** |")
    lines.append("")

    det = [k for k in order(boots) if k[0] in DETERMINISTIC]
    agreeing = [k for k in det if (agreement(boots, k) or 0) <= REPEAT]
    if len(bs) >= 2:
        worst = max(det, key=lambda k: agreement(boots, k) or 0, default=None)
        lines.append(
            f"**Repeat agreement**: {len(agreeing)} of {len(det)} CPU-bound paths agree "
            f"within 0.1 % across the {len(bs)} boots"
            + (f" (worst: {label(boots, worst)}, {fmt_pct(agreement(boots, worst))})"
               if worst else "") + "; the device commands' busy counts agree within "
            f"{fmt_pct(max((agreement(boots, k) or 0) for k in order(boots) if k[0] not in DETERMINISTIC and 'poll' not in k[1]), 1)} "
            "(interrupt-driven) and the polled ones do not repeat: a polled command's "
            "count is the spins of its wait, set by when the host completes it. "
            + ("An interrupt-driven command's count is not fixed either. With "
               "sleep=off (before 2026-12-07) the idle guest's clock jumped to its next "
               "timer at once, so each wait on the host cost as many timer interrupts "
               "(and tick, scheduler and idle-loop work) as the host's delay allowed: "
               "0.1-0.4 a command, and up to 47 % between boots. With sleep=on the idle "
               "clock follows the host's, and a wait of some microseconds rarely meets "
               "a tick (under 0.01 a command); what is left is the race between the "
               "task going to sleep and QEMU's completion (a bottom half in its main "
               "thread, at no fixed instruction): a command whose completion comes "
               "first skips the sleep, the idle loop and the wake-up (some 3,400 "
               "instructions on 2026-12-07; the Ctxt column: 2 a command when every one slept). "
               + (f"The null-co reads wait `latency-ns={latency}` on the host's clock, "
                  "which QEMU's main loop rounds up to a millisecond: every QD 1 read "
                  "sleeps (Ctxt 2.00) and its wait meets about one 1 ms tick (HZ=1000), "
                  "the rest of their spread. " if latency else "")
               + "Admin commands never reach a backend, so nothing in QEMU 7.2 delays "
               "them: their share of sleeping commands, and so their count, varies "
               "between repetitions, but along a line (the table \"Device commands by "
               "shape\" after this one), which gives their count without a sleep to a "
               "few instructions; the exact block-against-char figure is the Dispatch "
               "rows'." if sleep_on else
               "An interrupt-driven command's count is not fixed either: while the "
               "guest idles, icount (sleep=off) moves its clock to its next timer, so "
               "each wait on the host costs as many timer interrupts (and scheduler "
               "and idle-loop work) as the host's delay allows; a repetition runs "
               "in one of a few such modes throughout (the Timer IRQs column: local "
               "timer interrupts per command)."))
    else:
        lines.append("**Repeat agreement**: one boot only; `make bench` makes two.")
    lines.append("")

    heads = ["Group", "Path", "Counted"] + [f"Boot {b}" for b in bs] + \
        ["Process (cpu)", "Timer IRQs", "Ctxt", "Boots agree", "Within a boot"]
    lines += ["| " + " | ".join(heads) + " |",
              "|" + "|".join(["---"] * 2 + ["---"] + ["---:"] * (len(bs) + 5)) + "|"]
    for k in order(boots):
        m = medians(boots, k)
        a = agreement(boots, k)
        mark = "" if a is None or k[0] not in DETERMINISTIC else (
            " ✓" if a <= REPEAT else " ✗")
        lines.append("| " + " | ".join(
            [k[0], label(boots, k), measure(k[0])]
            + [fmt(m.get(b)) for b in bs]
            + [fmt(overall(boots, k, "cpu")), fmt(irqs(boots, k), 3),
               ctxt_cell(boots, k), fmt_pct(a) + mark,
               fmt_pct(spread(boots, k))]) + " |")
    lines.append("")
    lines += ladder_lines(boots)
    lines += shape_lines(boots)
    lines += discard_lines(boots)
    lines.append(
        "What icount cannot serve: anything timed by the host — IOPS and latency "
        "of device commands, and the polled paths, whose instruction count is the "
        "length of a spin the host decides; those keep the paired wall-clock method "
        "of the sections that follow. Discards here go to a loop device on a sparse "
        "tmpfs file, so each punches a hole into a hole: the figures are the paths' "
        "cost, not the freeing of data, and not any device's.")
    lines.append("")
    return lines


def shape_lines(boots):
    fits = [(k, shape_fit(boots, k)) for k in order(boots)
            if k[0] not in DETERMINISTIC and "poll" not in k[1]]
    fits = [(k, f) for k, f in fits if f]
    if not fits:
        return []
    bs = sorted(boots)
    lines = ["**Device commands by shape**: where the repetitions' share of sleeping "
             "commands differs (Ctxt), busy instructions lie on a line in context "
             "switches per command, busy = A + S × ctxt, fitted over every repetition "
             "of every boot; A is the count of a command whose completion comes before "
             "the task sleeps, 2S what a sleep (to the idle task, the idle loop, the "
             "interrupt's wake-up and back) adds. A per boot is the median of each "
             "repetition's busy − S × ctxt; the residual, the fit's largest miss over "
             "the repetitions, is how well the line holds.", "",
             "| Group | Path | A (no sleep) | " + " | ".join(f"Boot {b}" for b in bs)
             + " | ± (95 %) | A sleep adds (2S) | Largest residual | Boots agree |",
             "|---|---|---:|" + "---:|" * len(bs) + "---:|---:|---:|---:|"]
    for k, f in fits:
        pb = f["per_boot"]
        agree = ((max(pb.values()) - min(pb.values())) / statistics.mean(pb.values())
                 if len(pb) > 1 else None)
        lines.append("| " + " | ".join(
            [k[0], label(boots, k), fmt(f["a"])] + [fmt(pb.get(b)) for b in bs]
            + [fmt(t975(f["df"]) * f["se"]), fmt(2 * f["slope"]), fmt(f["resid"]),
               fmt_pct(agree)]) + " |")
    lines.append("")
    return lines


LADDER = [
    (("floor", "nop-b64"), "io_uring NOP (no file)"),
    (("query", "raw-ng-b64-fixed"), "uring_cmd refused at once by the NVMe char device "
     "(io_uring's uring_cmd path: the SQE's prep, the registered file, the LSM hook, "
     "the call, the completion)"),
    (("query", "raw-bdev-drv-b64-fixed"), "the same through the block node: "
     "blkdev_uring_cmd() hands it to blk_mq_ops->uring_cmd, whose driver refuses it"),
    (("query", "raw-bdev-blk-b64-fixed"), "a block-layer cmd_op blkdev_uring_cmd() "
     "refuses itself, after its SQE checks"),
    (("query", "uring-b64-fixed"), "BLKBSZGET answered (BLOCK_URING_CMD_IOCTL)"),
    (("query", "uring-b64"), "the same without a registered file (a file lookup "
     "and put per command)"),
]


def ladder_lines(boots):
    """The batched query's instructions, step by step (all batches of 64)."""
    vals = [(k, t, overall(boots, k)) for k, t in LADDER]
    if any(v is None for _, _, v in vals):
        return []
    lines = ["**Where a batched query's instructions go** (batches of 64, instructions "
             "per command, mean of the boots; each step a uring_cmd that goes one "
             "layer further, all counted the same way, so every difference is exact)",
             "", "| Step | Instructions | Over the step before |", "|---|---:|---:|"]
    prev = None
    for k, t, v in vals:
        lines.append(f"| {t} | {fmt(v)} | "
                     + ("" if prev is None else f"{v - prev:+,.1f}") + " |")
        prev = v
    ioctl = overall(boots, ("query", "ioctl"))
    nop, ng, query = vals[0][2], vals[1][2], vals[4][2]
    series = query - ng
    lines.append("")
    lines.append(
        f"Of the {query - nop:,.1f} instructions a query costs over a NOP with a "
        f"registered file, io_uring's own uring_cmd path takes {ng - nop:,.1f} before "
        f"any of this series' code runs; the series (the block node's dispatch, its "
        f"checks and the answer) takes {series:,.1f}. A block layer that cost nothing "
        f"would still leave {ng - nop:,.1f} over a NOP, above the target's 100, "
        + (f"and {ng:,.1f} a query against {ioctl:,.1f} for ioctl(BLKBSZGET). "
           if ioctl else "")
        + "Those targets need io_uring's uring_cmd path itself made cheaper, which is "
        "not this series' to change; the series' own share is what the table shows.")
    lines.append("")
    return lines


def ctxt_cell(boots, key):
    r = count_range(boots, key, "ctxt")
    if r is None:
        return "–"
    lo, hi = r
    return f"{lo:.2f}" if hi - lo < 0.005 else f"{lo:.2f}-{hi:.2f}"


def discard_lines(boots):
    sizes = ("4KiB", "1MiB", "64MiB")
    if not any(("discard", f"uring-qd1-{s}") in boots[b] for b in boots for s in sizes):
        return []
    lines = ["**Discard** (loop device on tmpfs; instructions per command, mean of the "
             "boots; the process's share in parentheses)", "",
             "| Size | BLOCK_URING_CMD_DISCARD QD 1 | QD 16 | ioctl(BLKDISCARD) | "
             "fallocate(PUNCH_HOLE) | uring QD 1 ÷ BLKDISCARD |",
             "|---|---:|---:|---:|---:|---:|"]
    for s in sizes:
        ks = [("discard", f"{p}-{s}") for p in ("uring-qd1", "uring-qd16", "blkdiscard",
                                                 "punch")]
        v = [overall(boots, k) for k in ks]
        c = [overall(boots, k, "cpu") for k in ks]
        r = v[0] / v[2] if v[0] and v[2] else None
        lines.append(f"| {s} | " + " | ".join(
            f"{fmt(x)} ({fmt(y)})" for x, y in zip(v, c)) + f" | {fmt(r, 3)}× |")
    lines.append("")
    return lines


def order(boots):
    seen = []
    for b in sorted(boots):
        for k in boots[b]:
            if k not in seen:
                seen.append(k)
    return seen


def label(boots, key):
    for b in sorted(boots):
        if key in boots[b]:
            r = boots[b][key]
            return f"{r.get('label', key[1])}".replace("|", "\\|")
    return key[1]


def summary(boots):
    return {f"{g}/{p}": {"figure": measure(g), "per_boot": medians(boots, (g, p)),
                         "cpu": overall(boots, (g, p), "cpu"),
                         "agreement": agreement(boots, (g, p))}
            for g, p in order(boots)}


def splice(text, section):
    """RESULTS.md with its icount section replaced, or put before the first
    wall-clock section (## Comparisons) when it has none"""
    lines = text.split("\n")
    try:
        start = lines.index(SECTION)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
    except ValueError:
        start = end = next((i for i, l in enumerate(lines) if l.startswith("## ")),
                           len(lines))
    return "\n".join(lines[:start] + section + lines[end:])


def wall_clock_date(text):
    m = re.search(r"measured (\d{4}-\d\d-\d\d[ \d:]* UTC)", text)
    return m.group(1) if m else None
