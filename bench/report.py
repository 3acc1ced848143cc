#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the benchmark JSON of several guest boots into RESULTS.md and plots.

usage: bench/report.py RESULTS_DIR [--out RESULTS.md] [--plots bench/plots]
                       [--command "make bench"] [--notes bench/notes.md]

RESULTS_DIR holds boot-1.json, boot-2.json, ... (one per guest boot, at least
one), optionally env.json and icount-1.json, ... (bench/icount.sh's boots
under QEMU's icount: the section "Instructions per command", from
bench/icount_report.py). A RESULTS_DIR with icount-N.json files and no
boot-N.json (bench.sh --icount-only) rewrites only that section of OUT,
leaving the wall-clock sections as they are. Each boot has "pairs", the comparisons of
uc_bench pair (two paths alternated in slices within the boot, every pair's
IOPS and CPU per command), and "results", points of one path alone.

A comparison's figures pool the pairs of every boot: the median of the
per-pair ratios with the sign test's 95 % interval (order statistics), and
the verdict: "within" ±2 % when the interval lies inside 0.98-1.02, "faster"
or "slower" when it lies above or below 1, "unresolved" otherwise. The
median of each boot is shown beside it, for the spread across boots. Points
(a path alone) are the median over the boots, min-max in parentheses.

Writes OUT (default: RESULTS.md at the top of the repository), SVG plots in
PLOTS (default: bench/plots; drawn by gnuplot, skipped with a note in OUT if
gnuplot is not installed) and RESULTS_DIR/summary.json. NOTES (default:
bench/notes.md), when present, becomes the "What the numbers mean" section
verbatim.

Prints nothing on success; on bad input (missing directory, no boot files,
malformed JSON) prints one line and exits 1.
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import icount_report  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAT_KEYS = ("mean", "min", "p50", "p99", "p999", "max")
BAND = 0.02
CAVEAT = "emulated CPU (TCG), emulated controller"
FAST = "registered file and buffers, SINGLE_ISSUER|COOP_TASKRUN"

# comparison -> (question, short name, what B and A are). B ÷ A.
COMPARISONS = {
    "bdev-char-read-qd1": ("bdev", "read QD 1",
                           "NVMe Read passthrough, QD 1: /dev/nvme0n1 ÷ /dev/ng0n1"),
    "bdev-char-read-qd16": ("bdev", "read QD 16",
                            "NVMe Read passthrough, QD 16: /dev/nvme0n1 ÷ /dev/ng0n1"),
    "bdev-char-read-fast-qd1": ("bdev", "read QD 1 fast",
                                f"the same, QD 1, {FAST}"),
    "bdev-char-read-fast-qd16": ("bdev", "read QD 16 fast",
                                 f"the same, QD 16, {FAST}"),
    "bdev-char-read-poll-qd1": ("bdev", "read QD 1 polled",
                                "the same, QD 1, IOPOLL ring"),
    "bdev-char-identify-qd1": ("bdev", "Identify QD 1",
                               "Identify, QD 1: /dev/nvme0n1 ÷ /dev/nvme0"),
    "bdev-char-identify-qd16": ("bdev", "Identify QD 16",
                                "Identify, QD 16: /dev/nvme0n1 ÷ /dev/nvme0"),
    "bdev-char-features-qd1": ("bdev", "Get Features QD 1",
                               "Get Features (no data: the cheapest admin command), "
                               "QD 1: /dev/nvme0n1 ÷ /dev/nvme0"),
    "uring-ioctl-identify-qd1": ("uring", "Identify QD 1",
                                 "Identify on /dev/nvme0n1, QD 1: uring_cmd ÷ "
                                 "NVME_IOCTL_ADMIN_CMD (1 thread)"),
    "uring-ioctl-identify-qd16": ("uring", "Identify QD 16",
                                  "Identify on /dev/nvme0n1, QD 16: uring_cmd ÷ "
                                  "NVME_IOCTL_ADMIN_CMD (16 threads)"),
    "query-ioctl-b8": ("query", "batches of 8",
                       "BLKBSZGET, batches of 8: BLOCK_URING_CMD_IOCTL ÷ ioctl()"),
    "query-ioctl-fast-b8": ("query", "batches of 8 fast",
                            "the same, registered file, SINGLE_ISSUER|COOP_TASKRUN"),
    "query-ioctl-b64": ("query", "batches of 64",
                        "BLKBSZGET, batches of 64: BLOCK_URING_CMD_IOCTL ÷ ioctl()"),
    "query-ioctl-fast-b64": ("query", "batches of 64 fast",
                             "the same, registered file, SINGLE_ISSUER|COOP_TASKRUN"),
    "query-nop-b8": ("floor", "query over NOP, batches of 8",
                     "BLKBSZGET ÷ io_uring NOP, both in batches of 8"),
    "query-nop-b64": ("floor", "query over NOP, batches of 64",
                      "BLKBSZGET ÷ io_uring NOP, both in batches of 64"),
    "admin-floor-identify-qd1": ("floor", "Identify over Get Features",
                                 "Identify ÷ Get Features, both uring_cmd on "
                                 "/dev/nvme0, QD 1"),
}
QUESTIONS = {
    "bdev": "Block node ÷ char device, the same command",
    "uring": "uring_cmd ÷ the synchronous ioctl",
    "query": "Batched block queries ÷ ioctl()",
    "floor": "Floors: what a command adds over the cheapest one under it",
    "other": "Other comparisons",
}
# single-point groups: title, what the rows are, the QD column's name
GROUPS = {
    "floor": ("Floor: io_uring NOP and null-co reads", "QD"),
    "identify": ("Identify (NVMe admin command)", "QD; sync ioctl: threads"),
    "smart": ("SMART / health log (NVMe admin command)", "QD; sync ioctl: threads"),
    "query": ("Block-device queries (BLKBSZGET)", "batch"),
    "read4k": ("4 KiB random reads", "QD"),
    "fio": ("fio, 4 KiB random reads", "QD"),
}
OLD_PLOTS = ("read4k-qd.svg", "identify-cdf-qd1.svg", "identify-cdf-qd16.svg",
             "read4k-cdf-qd1.svg")
DEFAULT_NOTES = """\
The NVMe controller is QEMU's emulated one and, under TCG, the guest's CPU is
emulated too: the absolute numbers are not hardware numbers. Only ratios
between paths interleaved in the same boot mean anything."""



# ---- input -----------------------------------------------------------------

class BadInput(Exception):
    pass


def die(msg):
    print(f"report.py: {msg}", file=sys.stderr)
    sys.exit(1)


def parse_args():
    p = argparse.ArgumentParser(
        description="RESULTS.md and plots from benchmark JSON files")
    p.add_argument("results_dir", metavar="RESULTS_DIR")
    p.add_argument("--out", default=os.path.join(TOP, "RESULTS.md"))
    p.add_argument("--plots", default=os.path.join(TOP, "bench", "plots"))
    p.add_argument("--command", default="make bench")
    p.add_argument("--notes", default=os.path.join(TOP, "bench", "notes.md"))
    return p.parse_args()


# ---- input -----------------------------------------------------------------

def check(cond, where, what):
    if not cond:
        raise BadInput(f"{where}: {what}")


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def no_constants(name):
    raise ValueError(f"non-finite number {name}")


def read_json(path):
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f, parse_constant=no_constants)
    except OSError as e:
        raise BadInput(f"{path}: {e.strerror}") from e
    except ValueError as e:
        raise BadInput(f"{name}: malformed JSON: {e}") from e


def check_latency(r, where):
    lat = r.get("lat_ns")
    check(isinstance(lat, dict), where, '"lat_ns" missing or not an object')
    for k in LAT_KEYS:
        v = lat.get(k)
        check(v is None or (is_num(v) and v >= 0), where,
              f'"lat_ns.{k}" is not a number >= 0')
    cdf = r.get("cdf", [])
    check(isinstance(cdf, list) and all(
        isinstance(p, list) and len(p) == 2 and all(map(is_num, p))
        for p in cdf), where, '"cdf" is not a list of [lat_ns, fraction]')


def check_result(r, where):
    check(isinstance(r, dict), where, "not an object")
    for k in ("group", "path"):
        check(isinstance(r.get(k), str) and r[k], where,
              f'"{k}" missing or not a string')
    qd = r.get("qd")
    check(isinstance(qd, int) and not isinstance(qd, bool) and qd >= 1,
          where, '"qd" missing or not a positive integer')
    check(isinstance(r.get("iopoll", False), bool), where,
          '"iopoll" is not true or false')
    check(is_num(r.get("iops")) and r["iops"] >= 0, where,
          '"iops" missing or not a number >= 0')
    check(isinstance(r.get("label", ""), str), where, '"label" not a string')
    check_latency(r, where)


def load_boot(path, number):
    name = os.path.basename(path)
    doc = read_json(path)
    check(isinstance(doc, dict), name, "not a JSON object")
    check(doc.get("boot", number) == number, name,
          f'says "boot": {doc.get("boot")!r}')
    check(isinstance(doc.get("results"), list), name,
          '"results" missing or not a list')
    for i, r in enumerate(doc["results"]):
        check_result(r, f"{name}: results[{i}]")
    check(isinstance(doc.get("pairs", []), list), name, '"pairs" not a list')
    for i, p in enumerate(doc.get("pairs", [])):
        check_pair(p, f"{name}: pairs[{i}]")
    return doc


def boot_files(rdir):
    check(os.path.isdir(rdir), rdir, "no such directory")
    found = {}
    for name in sorted(os.listdir(rdir)):
        m = re.fullmatch(r"boot-(\d+)\.json", name)
        if m:
            n = int(m.group(1))
            check(n not in found, name, f"a second file for boot {n}")
            found[n] = os.path.join(rdir, name)
    check(found, rdir, "no boot-N.json files")
    return found


def load_env(rdir):
    path = os.path.join(rdir, "env.json")
    if not os.path.exists(path):
        return {}
    env = read_json(path)
    check(isinstance(env, dict), "env.json", "not a JSON object")
    return env


def key_name(key):
    g, path, qd, iopoll = key
    return f"{g}/{path} qd {qd}" + (" iopoll" if iopoll else "")


def index(boots):
    """{(group, path, qd, iopoll): {boot: result}}"""
    meas = {}
    for b, doc in boots.items():
        for i, r in enumerate(doc["results"]):
            key = (r["group"], r["path"], r["qd"], r.get("iopoll", False))
            per = meas.setdefault(key, {})
            check(b not in per, f"boot-{b}.json: results[{i}]",
                  f"a second result for {key_name(key)}")
            per[b] = r
    return meas



def span(values):
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals),
            "max": max(vals)}


def lat(r, k):
    return r["lat_ns"].get(k)


def aggregate(per):
    rs = list(per.values())
    out = {"boots": sorted(per), "iops": span(r["iops"] for r in rs)}
    for k in LAT_KEYS:
        out["lat_ns_" + k] = span(lat(r, k) for r in rs)
    return out


def per_boot_span(per):
    if not per:
        return None
    s = span(per.values())
    s["boots"] = sorted(per)
    s["per_boot"] = {str(b): v for b, v in sorted(per.items())}
    return s



def fmt_iops(v):
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def fmt_us(ns):
    us = ns / 1000
    if abs(us) >= 100:
        return f"{us:,.0f}"
    return f"{us:.1f}" if abs(us) >= 10 else f"{us:.2f}"


def fmt_ratio(v):
    return f"{v:.2f}"


def fmt_ratio3(v):
    return f"{v:.3f}"


def fmt_span(s, fmt):
    """median (min–max), the spread left out when it shows nothing."""
    if s is None:
        return "—"
    med, lo, hi = fmt(s["median"]), fmt(s["min"]), fmt(s["max"])
    return med if lo == hi else f"{med} ({lo}–{hi})"


def fmt_med(s, fmt):
    return "—" if s is None else fmt(s["median"])


def cell(v):
    return str(v).replace("|", "\\|").replace("\n", " ")


def table(header, align, rows):
    """A markdown table; align is one 'l' or 'r' per column."""
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(sep) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines



def boot_values(boots, field):
    vals = []
    for doc in boots.values():
        v = doc.get(field)
        v = "unknown" if v is None else str(v)
        if v not in vals:
            vals.append(v)
    return ", ".join(vals) + (" (differs between boots)" if len(vals) > 1
                              else "")


def accel(boots):
    return boot_values(boots, "accel").replace("tcg", "TCG").replace(
        "kvm", "KVM")


def env_value(env, k):
    v = env.get(k)
    if v is None or v == "":
        return "unknown"
    if isinstance(v, dict):
        return ", ".join(f"{a}: {b}" for a, b in v.items()) or "unknown"
    return str(v)



def run_gnuplot(script, tmp):
    path = os.path.join(tmp, "plot.gp")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(script) + "\n")
    p = subprocess.run(["gnuplot", path], capture_output=True, text=True,
                       check=False)
    if p.returncode != 0:
        err = (p.stderr.strip().splitlines() or ["failed"])[-1]
        raise PlotError(f"gnuplot: {err.strip()}")



def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)



def notes_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return DEFAULT_NOTES
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: {e}") from e




# ---- comparisons (uc_bench pair) ------------------------------------------

def check_pair(p, where):
    check(isinstance(p, dict), where, "not an object")
    check(isinstance(p.get("group"), str) and p["group"], where,
          '"group" missing or not a string')
    for side in ("a", "b"):
        check_result(p.get(side), f"{where}.{side}")
    rows = p.get("pairs")
    check(isinstance(rows, list) and rows and all(
        isinstance(r, list) and len(r) == 4 and all(map(is_num, r))
        and r[0] > 0 and r[1] > 0 for r in rows), where,
        '"pairs" is not a list of [iops_a, iops_b, cpu_a, cpu_b]')


def median_ci(values):
    """Median and the sign test's 95 % interval: order statistics k and
    n + 1 - k, k the largest with P(Binomial(n, 1/2) < k) <= 2.5 %."""
    v, n = sorted(values), len(values)
    med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    p, cdf, k = 0.5 ** n, 0.0, 0
    for j in range(n):
        if cdf + p > 0.025:
            break
        cdf, k, p = cdf + p, j + 1, p * (n - j) / (j + 1)
    k = max(k, 1)
    return {"median": med, "lo": v[k - 1], "hi": v[n - k], "n": n}


def verdict_of(ci):
    if ci["lo"] >= 1 - BAND and ci["hi"] <= 1 + BAND:
        return "within"
    if ci["lo"] > 1:
        return "faster"
    if ci["hi"] < 1:
        return "slower"
    return "unresolved"


SAME = ("qd", "iopoll", "fixed_file", "fast_ring", "fixed_buf")


def mismatch(p):
    """What sets the two sides of a comparison apart that should not: a
    comparison of two nodes or of a command over its floor must run both
    the same way (uring_cmd against ioctl, or queries against ioctl(), do
    differ in depth)."""
    cid = p["group"]
    keys = (SAME if cid.startswith(("bdev-char-", "admin-floor-"))
            else ("qd",) if cid.startswith("query-nop-") else ())
    return [k for k in keys if p["a"].get(k, False) != p["b"].get(k, False)]


def comparisons(boots, discarded):
    """{id: {...}}: the pairs of every boot pooled, and each boot's median.
    Comparisons whose sides differ where they should not go to @discarded."""
    out = {}
    for b, doc in sorted(boots.items()):
        for p in doc.get("pairs", []):
            bad = mismatch(p)
            if bad:
                discarded.setdefault(p["group"], set()).update(bad)
                continue
            c = out.setdefault(p["group"], {"id": p["group"], "boots": {},
                                            "rows": [], "slice": p.get("slice"),
                                            "a": {}, "b": {}})
            c["boots"][b] = statistics.median(r[1] / r[0] for r in p["pairs"])
            c["rows"] += [r + [b] for r in p["pairs"]]
            c["a"][b], c["b"][b] = p["a"], p["b"]
    for c in out.values():
        rows = c["rows"]
        c["ratio"] = median_ci([r[1] / r[0] for r in rows])
        c["cpu"] = median_ci([r[3] / r[2] for r in rows if r[2] > 0] or [1])
        c["add_ns"] = median_ci([1e9 / r[1] - 1e9 / r[0] for r in rows])
        c["verdict"] = verdict_of(c["ratio"])
        q, short, title = COMPARISONS.get(c["id"], ("other", c["id"], c["id"]))
        c.update(question=q, short=short, title=title)
    order = list(COMPARISONS)
    return dict(sorted(out.items(), key=lambda kv: (
        order.index(kv[0]) if kv[0] in order else len(order), kv[0])))


def fmt_x(v):
    return f"{v:.3f}" if v < 10 else f"{v:.1f}"


def fmt_ci(ci, fmt=fmt_x, unit="×"):
    return f"{fmt(ci['median'])}{unit} [{fmt(ci['lo'])}, {fmt(ci['hi'])}]"


def fmt_ns(v):
    return f"{v / 1000:+.2f}" if abs(v) < 10000 else f"{v / 1000:+.1f}"


def fmt_add(ci):
    """What a step adds over its floor: the median and interval, or "none
    measurable" where the interval includes 0 (a median below 0 there is
    noise, not a step that saves time)."""
    if ci["lo"] <= 0 <= ci["hi"]:
        return f"none measurable [{fmt_ns(ci['lo'])}, {fmt_ns(ci['hi'])}]"
    return fmt_ci(ci, fmt_ns, "")


def of(comps, q):
    return [c for c in comps.values() if c["question"] == q]


def answer_bdev(comps):
    cs = of(comps, "bdev")
    if not cs:
        return "not measured"
    within = [c for c in cs if c["verdict"] == "within"]
    line = f"within ±2 % in {len(within)} of {len(cs)} comparisons"
    if within:
        meds = [c["ratio"]["median"] for c in within]
        los = [c["ratio"]["lo"] for c in within]
        his = [c["ratio"]["hi"] for c in within]
        line += (f" (medians {fmt_x(min(meds))}–{fmt_x(max(meds))}, every "
                 f"interval inside [{fmt_x(min(los))}, {fmt_x(max(his))}])")
    for v in ("slower", "faster", "unresolved"):
        out = [c for c in cs if c["verdict"] == v]
        if out:
            line += f"; **{v}**: " + ", ".join(
                f"{c['short']} {fmt_ci(c['ratio'])}" for c in out)
    return line


def answer_uring(comps):
    cs = of(comps, "uring")
    if not cs:
        return "not measured"
    return "; ".join(
        f"{c['short']}: {fmt_ci(c['ratio'])} the IOPS ({c['verdict']}) at "
        f"{fmt_ci(c['cpu'])} the CPU per command" for c in reversed(cs))


def answer_query(comps):
    parts = []
    for b in (64, 8):
        c, f = comps.get(f"query-ioctl-b{b}"), comps.get(f"query-ioctl-fast-b{b}")
        if c:
            parts.append(f"batches of {b}: {fmt_ci(c['ratio'])}" + (
                f" ({fmt_ci(f['ratio'])} with a registered file and "
                f"SINGLE_ISSUER|COOP_TASKRUN)" if f else ""))
    if not parts:
        return "not measured"
    line = "; ".join(parts)
    nop = comps.get("query-nop-b64")
    if nop:
        line += (f". A query costs {fmt_ci(nop['add_ns'], fmt_ns, ' µs')} over an "
                 f"io_uring NOP in batches of 64")
    return line


def md_answer(ctx):
    comps, env = ctx["comps"], ctx["env"]
    nboots = len(ctx["boots"])
    pairs = sorted({len(c["rows"]) for c in comps.values()})
    lines = ["# Results", "",
             f"1. **{QUESTIONS['bdev']}** (IOPS): {answer_bdev(comps)}.",
             f"2. **{QUESTIONS['uring']}** (Identify on /dev/nvme0n1): "
             f"{answer_uring(comps)}.",
             f"3. **{QUESTIONS['query']}** (BLKBSZGET, throughput): "
             f"{answer_query(comps)}.", "",
             f"Each figure: the median, over {'/'.join(map(str, pairs)) or 'no'} "
             f"pairs from {nboots} boot{'s' if nboots != 1 else ''}, of the "
             f"ratio of two paths alternated in slices within one boot (A B, "
             f"B A, ...), with its 95 % interval; within ±2 % means the whole "
             f"interval lies inside 0.98–1.02, faster or slower that it lies "
             f"above or below 1, unresolved that it crosses 1 and leaves the "
             f"band: this run cannot tell. **{CAVEAT[0].upper() + CAVEAT[1:]}** "
             f"(QEMU): absolute figures are not hardware figures; the "
             f"ratios are what counts. Reproduce with `{ctx['command']}`; "
             f"measured {env_value(env, 'date')}, commit "
             f"{env_value(env, 'commit')}."]
    if env.get("short_run"):
        lines += ["", f"**A short run**: {env['short_run']}."]
    return lines + [""]


def comp_row(c):
    per = ", ".join(fmt_x(v) for _, v in sorted(c["boots"].items()))
    verdict = "—" if c["question"] == "floor" else c["verdict"]
    return [c["title"], fmt_ci(c["ratio"]), verdict, per,
            fmt_ci(c["cpu"]), fmt_ci(c["add_ns"], fmt_ns, "")]


def md_comparisons(ctx):
    comps = ctx["comps"]
    if not comps:
        return ["## Comparisons", "", "No comparisons in these results.", ""]
    slices = sorted({c["slice"] for c in comps.values() if c["slice"]})
    lines = ["## Comparisons", "",
             "B ÷ A for each comparison (B named first). IOPS and CPU: the "
             "median of the per-pair ratios [95 % interval]; per boot: each "
             "boot's median; B − A: the time per command of B minus A's "
             f"(µs, wall time over the slice). Slices of "
             f"{', '.join(f'{s:,}' for s in slices)} commands.", ""]
    for q in QUESTIONS:
        cs = of(comps, q)
        if not cs:
            continue
        lines += [f"**{QUESTIONS[q]}**", ""]
        lines += table(["Comparison", "IOPS B ÷ A", "Verdict", "Per boot",
                        "CPU per command B ÷ A", "B − A (µs per command)"],
                       "lrlrrr", [comp_row(c) for c in cs])
        lines.append("")
    if ctx["discarded"]:
        lines += ["Left out, because their two sides did not run the same "
                  "way (bench/run.sh before commit 9d6612d gave the options "
                  "to side A only): " + "; ".join(
                      f"{COMPARISONS.get(i, ('', i, i))[1]} (differs in "
                      f"{', '.join(sorted(k))})"
                      for i, k in sorted(ctx["discarded"].items())) + ".", ""]
    return lines


# ---- paths of the comparisons: IOPS, CPU, latency -------------------------

def row_key(cid, side):
    """A short name for a path of a comparison: command, path, variant."""
    fam = re.sub(r"-(qd|b)\d+$", "", cid)
    cmd = ("read" if "-read" in fam else "features" if "features" in fam
           else "query" if fam.startswith("query") else "identify")
    if fam == "admin-floor-identify":
        cmd = "features" if side["path"] == "features-char" else "identify"
    var = " fast" if "-fast" in fam else " polled" if "-poll" in fam else ""
    path = side["path"].replace("features-char", "uring-char")
    if cmd == "query":
        var = " fast" if side["path"] == "uring-fast" else ""
        path = side["path"].replace("uring-fast", "uring")
    return f"{cmd} {path}{var}"


def path_points(comps):
    """{(kind, row key): {qd: [points over boots and comparisons]}}, labels."""
    pts, labels = {}, {}
    for c in comps.values():
        for s in ("a", "b"):
            for side in c[s].values():
                key = row_key(c["id"], side)
                kind = "query" if key.startswith(("query", "nop")) else "nvme"
                if side["path"] == "nop":
                    key = "nop"
                pts.setdefault((kind, key), {}).setdefault(side["qd"], []).append(side)
                labels.setdefault(key, re.sub(r", batches of \d+|, \d+ thread\(s\)", "",
                                              side.get("label") or key))
    return pts, labels


def med_of(points, f):
    vals = [f(p) for p in points if f(p) is not None]
    return span(vals)


def pivot(pts, kind, cellf):
    keys = sorted(k for k in pts if k[0] == kind)
    qds = sorted({q for k in keys for q in pts[k]})
    rows = []
    for k in keys:
        rows.append([f"**{k[1]}**"] + [cellf(pts[k][q]) if q in pts[k] else "—"
                                       for q in qds])
    return qds, rows


def md_paths(ctx):
    pts, labels = path_points(ctx["comps"])
    if not pts:
        return []
    lines = ["## Each path: IOPS, CPU per command, latency", "",
             "From the slices of the comparisons (each path in every "
             "comparison it is part of): the median over boots, min–max in "
             "parentheses. CPU per command: the benchmark process's CPU time "
             "(getrusage, all threads) over its commands; guest busy: every "
             "CPU's non-idle time in /proc/stat, interrupts included (10 ms "
             "ticks, summed over the slices).", ""]
    lines += ["Paths: " + "; ".join(f"**{k}**: {v}" for k, v in
                                    sorted(labels.items())) + ".", ""]
    for kind, qname in (("nvme", "QD"), ("query", "batch")):
        if not any(k[0] == kind for k in pts):
            continue

        def iops(ps):
            return fmt_span(med_of(ps, lambda p: p["iops"]), fmt_iops)

        def cpu(ps):
            c = med_of(ps, lambda p: p.get("cpu_ns_per_cmd"))
            b = med_of(ps, lambda p: p.get("busy_ns_per_cmd"))
            return f"{fmt_med(c, fmt_us)} · {fmt_med(b, fmt_us)}"

        qds, rows = pivot(pts, kind, iops)
        head = ["Path"] + [f"{qname} {q}" for q in qds]
        title = "NVMe commands" if kind == "nvme" else "Block queries and NOPs"
        lines += [f"**{title}: IOPS**", ""] + table(head, "l" + "r" * len(qds), rows)
        qds, rows = pivot(pts, kind, cpu)
        lines += ["", f"**{title}: CPU per command, µs (process · guest busy)**",
                  ""] + table(head, "l" + "r" * len(qds), rows)
        lat_head = ["Path"]
        for q in qds:
            lat_head += [f"{qname} {q} p50", "p99", "p99.9"]
        lat_rows = []
        for k in sorted(k for k in pts if k[0] == kind):
            row = [f"**{k[1]}**"]
            for q in qds:
                ps = pts[k].get(q)
                if not ps:
                    row += ["—"] * 3
                    continue
                row += [fmt_med(med_of(ps, lambda p: lat(p, "p50")), fmt_us),
                        fmt_span(med_of(ps, lambda p: lat(p, "p99")), fmt_us),
                        fmt_span(med_of(ps, lambda p: lat(p, "p999")), fmt_us)]
            lat_rows.append(row)
        lines += ["", f"**{title}: latency, µs**", ""]
        lines += table(lat_head, "l" + "r" * (3 * len(qds)), lat_rows) + [""]
    return lines


def md_floors(ctx):
    comps = ctx["comps"]
    rows = []
    for cid, what in (("query-nop-b8", "a block query over an io_uring NOP, batches of 8"),
                      ("query-nop-b64", "a block query over an io_uring NOP, batches of 64"),
                      ("admin-floor-identify-qd1",
                       "Identify over Get Features (the admin floor), /dev/nvme0, QD 1"),
                      ("bdev-char-features-qd1",
                       "the block node over the char device, Get Features, QD 1"),
                      ("bdev-char-identify-qd1",
                       "the block node over the char device, Identify, QD 1"),
                      ("bdev-char-read-qd1",
                       "the block node over the char device, read passthrough, QD 1")):
        c = comps.get(cid)
        if c:
            rows.append([what, fmt_add(c["add_ns"]), fmt_ci(c["ratio"])])
    if not rows:
        return []
    return (["## Floors", "",
             "What each command adds, per command, over the cheapest command "
             "under it, measured as a comparison (time per command of B minus "
             "A's, median over pairs [95 % interval]). Where the interval "
             "includes 0 the step adds nothing this run can measure: "
             "\"none measurable\" with the interval, never a negative "
             "addition.", ""]
            + table(["Step", "Adds (µs per command)", "IOPS B ÷ A"], "lrr", rows)
            + [""])


# ---- where the block node's time goes (profiles) ----------------------------

# The functions on each side's way in: the block node's (this series) and the
# char devices' (upstream); both then run the same 6.1 functions (SHARED).
BDEV_ENTRY = ("blkdev_uring_cmd", "blkdev_uring_cmd_sqe_unused",
              "nvme_ns_bdev_uring_cmd", "nvme_ns_head_bdev_uring_cmd")
CHAR_ENTRY = ("nvme_ns_chr_uring_cmd", "nvme_ns_head_chr_uring_cmd",
              "nvme_dev_uring_cmd")
SHARED = ("io_uring_cmd", "nvme_ns_uring_cmd", "nvme_ctrl_uring_cmd",
          "nvme_uring_cmd_io")
COST_PAIRS = (("features-uring-char-qd1", "features-uring-bdev-qd1",
               "Get Features, QD 1"),
              ("identify-uring-char-qd16", "identify-uring-bdev-qd16",
               "Identify, QD 16"),
              ("read-pt-ng-qd16", "read-pt-bdev-qd16",
               "NVMe Read passthrough, QD 16"))


def load_costs(rdir):
    costs = {}
    for name in sorted(os.listdir(rdir)):
        if name.startswith("cost-") and name.endswith(".json"):
            try:
                with open(os.path.join(rdir, name)) as f:
                    d = json.load(f)
            except (OSError, ValueError) as e:
                raise BadInput(f"{name}: {e}")
            if not (is_num(d.get("cpu_ns_per_cmd")) and d.get("samples")
                    and isinstance(d.get("share_pct"), dict)):
                raise BadInput(f"{name}: no cpu_ns_per_cmd, samples or share_pct")
            costs[name[5:-5]] = d
    return costs


def fn_ns(d, fn):
    """ns per command of function @fn in profile @d: its share of the samples
    times the run's CPU time per command; None if it has no sample."""
    pct = d["share_pct"].get(fn)
    return None if pct is None else pct / 100 * d["cpu_ns_per_cmd"]


def fmt_fn(d, fn):
    v = fn_ns(d, fn)
    return "—" if v is None else f"{v:,.0f} ({d['share_pct'][fn]:.2f} %)"


def md_costs(ctx):
    costs = ctx["costs"]
    pairs = [(a, b, t) for a, b, t in COST_PAIRS if a in costs and b in costs]
    if not pairs:
        return []
    lines = ["## Where the block node's time goes", "",
             "From the profile boot (perf, cpu-clock at 4 kHz, the benchmark "
             "process in the kernel and in user space): each function's share "
             "of the samples times the run's CPU time per command gives its "
             "cost in ns per command (share in parentheses). The block node's "
             "way in (`blkdev_uring_cmd()`, `nvme_ns_bdev_uring_cmd()`) "
             "replaces the char device's (`nvme_ns_chr_uring_cmd()`, "
             "`nvme_dev_uring_cmd()`); both then run the same 6.1 functions. "
             "— : no sample, less than one sample's worth (the last row). "
             "Static functions the compiler inlined count in their caller.", ""]
    for a, b, title in pairs:
        da, db = costs[a], costs[b]
        rows = []
        for fn in BDEV_ENTRY + CHAR_ENTRY + SHARED:
            if fn in da["share_pct"] or fn in db["share_pct"]:
                side = ("this series" if fn in BDEV_ENTRY else
                        "upstream, char device" if fn in CHAR_ENTRY else "shared")
                rows.append([f"`{fn}()` ({side})", fmt_fn(da, fn),
                             fmt_fn(db, fn)])
        ea = sum(fn_ns(da, f) or 0 for f in CHAR_ENTRY)
        eb = sum(fn_ns(db, f) or 0 for f in BDEV_ENTRY)
        rows.append(["**way in, total**", f"{ea:,.0f}", f"{eb:,.0f}"])
        rows.append(["CPU per command, whole run", f"{da['cpu_ns_per_cmd']:,.0f}",
                     f"{db['cpu_ns_per_cmd']:,.0f}"])
        rows.append(["one sample, per command",
                     f"{da['cpu_ns_per_cmd'] / da['samples']:,.1f}",
                     f"{db['cpu_ns_per_cmd'] / db['samples']:,.1f}"])
        lines += [f"**{title}**: the block node's way in costs "
                  f"{eb - ea:+,.0f} ns per command over the char device's, "
                  f"{(eb - ea) / db['cpu_ns_per_cmd'] * 100:+.2f} % of a command's CPU "
                  f"({da['samples']:,} and {db['samples']:,} samples).", ""]
        lines += table(["Function", "char device, ns per command",
                        "block node, ns per command"], "lrr", rows) + [""]
    return lines


# ---- single points ----------------------------------------------------------

def md_points(ctx):
    meas = ctx["meas"]
    if not meas:
        return []
    lines = ["## Each path alone", "",
             "Points measured one after the other (not interleaved), for the "
             "queue depths the comparisons leave out: IOPS, then p50 / p99 / "
             "p99.9 in µs, then the process's CPU time per command in µs "
             "(fio: its job's usr + sys), each the median over the boots "
             "(IOPS and p99.9: min–max in parentheses).", ""]
    groups = list(GROUPS) + sorted({k[0] for k in meas} - set(GROUPS))
    for g in groups:
        keys = [k for k in meas if k[0] == g]
        if not keys:
            continue
        title, qname = GROUPS.get(g, (g, "QD"))
        qds = sorted({k[2] for k in keys})
        rowids = sorted({(k[1], k[3]) for k in keys})
        labels = {}
        rows = []
        for path, poll in rowids:
            name = path + (" polled" if poll else "")
            row = [f"**{name}**"]
            for q in qds:
                per = meas.get((g, path, q, poll))
                if not per:
                    row.append("—")
                    continue
                s = aggregate(per)
                labels[name] = re.sub(r" \(\d+ threads?\)|, batches of \d+", "",
                                      [r.get("label") for r in per.values()][-1] or name)
                cpu = span(r.get("cpu_ns_per_cmd") for r in per.values())
                row.append(f"{fmt_span(s['iops'], fmt_iops)}<br>"
                           f"{fmt_med(s['lat_ns_p50'], fmt_us)} / "
                           f"{fmt_med(s['lat_ns_p99'], fmt_us)} / "
                           f"{fmt_span(s['lat_ns_p999'], fmt_us)}"
                           + (f"<br>CPU {fmt_us(cpu['median'])}" if cpu else ""))
            rows.append(row)
        lines += [f"**{title}** ({CAVEAT}). "
                  + "; ".join(f"**{k}**: {v}" for k, v in labels.items()) + ".", ""]
        lines += table(["Path"] + [f"{qname} {q}" for q in qds],
                       "l" + "r" * len(qds), rows) + [""]
    return lines


# ---- plots -----------------------------------------------------------------

class PlotError(Exception):
    pass


def gp_str(s):
    return "'" + str(s).replace("'", "''") + "'"


def gp_header(svg, title, width=900, height=500):
    return ["set encoding utf8", f"set terminal svg size {width},{height}",
            "set termoption noenhanced", f"set output {gp_str(svg)}",
            f"set title {gp_str(title)}", "set grid", "set key left top opaque"]


def write_dat(tmp, name, lines):
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def ratio_script(comps, ids, svg, tmp, title, logy):
    cs = [comps[i] for i in ids if i in comps]
    if not cs:
        return None
    boots = sorted({r[4] for c in cs for r in c["rows"]})
    pts, meds = [], []
    for x, c in enumerate(cs):
        for bi, b in enumerate(boots):
            rows = [r for r in c["rows"] if r[4] == b]
            for j, r in enumerate(rows):
                off = ((bi - (len(boots) - 1) / 2) * 0.22
                       + (j / max(len(rows), 1) - 0.5) * 0.18)
                pts.append((x + off, r[1] / r[0]))
        ci = c["ratio"]
        meds.append(f"{x} {ci['median']} {ci['lo']} {ci['hi']}")
    # the range: the middle 96 % of the pairs, every interval and the band;
    # pairs beyond it are drawn on its edge as triangles
    vals = sorted(v for _, v in pts)
    lo = min([vals[int(0.02 * (len(vals) - 1))], 1 - 2 * BAND]
             + [c["ratio"]["lo"] for c in cs])
    hi = max([vals[int(0.98 * (len(vals) - 1))], 1 + 2 * BAND]
             + [c["ratio"]["hi"] for c in cs])
    if logy:
        lo, hi = lo / 1.05, hi * 1.05
    else:
        pad = (hi - lo) * 0.05
        lo, hi = lo - pad, hi + pad
    inside = [f"{x} {v}" for x, v in pts if lo <= v <= hi]
    edge = [f"{x} {min(max(v, lo), hi)}" for x, v in pts if not lo <= v <= hi]
    pdat = write_dat(tmp, "pairs.dat", inside)
    edat = write_dat(tmp, "edge.dat", edge or ["NaN NaN"])
    mdat = write_dat(tmp, "med.dat", meds)
    tics = ", ".join(f"{gp_str(('query, ' if c['question'] == 'query' else '') + c['short'])} {x}"
                     for x, c in enumerate(cs))
    script = gp_header(svg, title, 1000, 520) + [
        f"set xrange [-0.6:{len(cs) - 0.4}]", f"set xtics ({tics}) rotate by -25",
        "set key right top opaque", "set bmargin 7", f"set yrange [{lo}:{hi}]",
        "set ylabel 'IOPS ratio B ÷ A, each pair of slices'",
        f"set object 1 rect from graph 0, first {1 - BAND} to graph 1, first "
        f"{1 + BAND} fc rgb '#cfe8cf' fs solid 1.0 noborder behind",
        "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lc rgb '#444444'"]
    if logy:
        script += ["set logscale y",
                   "set ytics (0.25, 0.5, 0.75, 0.9, 1, 1.25, 1.5, 2, 2.5, 3, 4, 6, 8)"]
    script.append(
        f"plot {gp_str(pdat)} using 1:2 with points pt 7 ps 0.35 lc rgb '#4a7ab5' "
        f"title 'one pair (boots side by side)', "
        f"{gp_str(edat)} using 1:2 with points pt 9 ps 0.6 lc rgb '#4a7ab5' "
        f"title 'a pair beyond the range, on its edge', "
        f"{gp_str(mdat)} using 1:2:3:4 with yerrorbars pt 5 ps 1.2 lw 2 lc rgb '#c03020' "
        f"title 'median, 95 % interval', "
        f"NaN with boxes fc rgb '#cfe8cf' fs solid title '±2 %'")
    return script


def nines(q):
    return -math.log10(1 - q)


def pct_script(comps, sides, svg, tmp, title):
    """Latency against percentile on a nines axis; every curve from one boot."""
    boots = None
    for cid, s in sides:
        if cid not in comps:
            return None
        have = set(comps[cid][s])
        boots = have if boots is None else boots & have
    if not boots:
        return None
    b = min(boots)
    parts = []
    for i, (cid, s) in enumerate(sides):
        side = comps[cid][s][b]
        pts = [f"{nines(q)} {x / 1000}" for x, q in side.get("cdf", [])
               if 0.5 <= q < 1 and x > 0]
        dat = write_dat(tmp, f"p{i}.dat", pts)
        parts.append(f"{gp_str(dat)} using 1:2 with linespoints pt {i + 5} ps 0.5 "
                     f"lw 2 lc {i + 1} title {gp_str(side.get('label') or side['path'])}")
    return gp_header(svg, f"{title}, boot {b} ({CAVEAT})") + [
        "set key left top opaque", "set logscale y",
        "set xtics ('p50' 0.30103, 'p90' 1, 'p99' 2, 'p99.9' 3, 'p99.99' 4)",
        "set xrange [0.25:4.1]", "set xlabel 'percentile (nines)'",
        "set ylabel 'latency, µs (log)'", "plot " + ", \\\n     ".join(parts)]


def qd_script(meas, group, svg, tmp, title):
    keys = sorted({(k[1], k[3]) for k in meas if k[0] == group})
    if not keys:
        return None
    qds = sorted({k[2] for k in meas if k[0] == group})
    parts = []
    for i, (path, poll) in enumerate(keys):
        pts = []
        label = path
        for q in qds:
            per = meas.get((group, path, q, poll))
            if per:
                s = aggregate(per)["iops"]
                pts.append(f"{q} {s['median']} {s['min']} {s['max']}")
                label = re.sub(r" \(\d+ threads?\)", "",
                               list(per.values())[-1].get("label") or path)
        dat = write_dat(tmp, f"q{i}.dat", pts)
        parts.append(f"{gp_str(dat)} using 1:2:3:4 with yerrorlines lw 2 pt 7 "
                     f"lc {i + 1} title {gp_str(label)}")
    return gp_header(svg, f"{title} ({CAVEAT})") + [
        "set logscale x 2", f"set xrange [{qds[0] / 1.5}:{qds[-1] * 1.5}]",
        "set xtics (" + ", ".join(str(q) for q in qds) + ")", "set yrange [0:*]",
        "set xlabel 'queue depth (sync ioctl: threads)'",
        "set ylabel 'IOPS (median; bars: min–max over boots)'",
        "plot " + ", \\\n     ".join(parts)]


BDEV_IDS = [i for i, v in COMPARISONS.items() if v[0] == "bdev"]
SPEED_IDS = [i for i, v in COMPARISONS.items() if v[0] in ("uring", "query")]
PLOTS = [
    ("ratio-bdev-char.svg",
     lambda ctx, svg, tmp, t: ratio_script(ctx["comps"], BDEV_IDS, svg, tmp, t, False),
     f"Block node ÷ char device, every pair ({CAVEAT})",
     "Every pair's IOPS ratio (dots, the boots side by side), the median and "
     "its 95 % interval (red), the ±2 % band (green)."),
    ("ratio-speedups.svg",
     lambda ctx, svg, tmp, t: ratio_script(ctx["comps"], SPEED_IDS, svg, tmp, t, True),
     f"uring_cmd ÷ sync ioctl (Identify), batched queries ÷ ioctl() ({CAVEAT})",
     "Every pair's IOPS ratio (log scale), the median and its 95 % interval."),
    ("read-pct-qd1.svg",
     lambda ctx, svg, tmp, t: pct_script(
         ctx["comps"], [("bdev-char-read-qd1", "a"), ("bdev-char-read-qd1", "b")],
         svg, tmp, t),
     "Read passthrough latency, QD 1",
     "4 KiB read passthrough at QD 1, char device and block node interleaved "
     "in one boot: latency by percentile."),
    ("identify-pct-qd16.svg",
     lambda ctx, svg, tmp, t: pct_script(
         ctx["comps"], [("bdev-char-identify-qd16", "a"),
                        ("bdev-char-identify-qd16", "b"),
                        ("uring-ioctl-identify-qd16", "a")], svg, tmp, t),
     "Identify latency, QD 16",
     "Identify at QD 16 (the sync ioctl: 16 threads), all from one boot: "
     "latency by percentile."),
    ("identify-qd.svg",
     lambda ctx, svg, tmp, t: qd_script(ctx["meas"], "identify", svg, tmp, t),
     "Identify: IOPS by queue depth",
     "Identify IOPS by queue depth, each path alone (not interleaved): "
     "median over boots, bars min–max."),
]


def make_plots(ctx, plots_dir):
    """The plots drawn, or None without gnuplot."""
    if shutil.which("gnuplot") is None:
        return None
    os.makedirs(plots_dir, exist_ok=True)
    for old in OLD_PLOTS:
        if os.path.exists(os.path.join(plots_dir, old)):
            os.remove(os.path.join(plots_dir, old))
    out = []
    for name, fn, title, caption in PLOTS:
        final = os.path.join(plots_dir, name)
        with tempfile.TemporaryDirectory(prefix="report-") as tmp:
            svg = os.path.join(tmp, name)
            script = fn(ctx, svg, tmp, title)
            if script is None:
                if os.path.exists(final):
                    os.remove(final)  # stale, from an earlier run
                continue
            run_gnuplot(script, tmp)
            shutil.move(svg, final)
        out.append({"title": title, "caption": caption, "file": final})
    return out


# ---- the page --------------------------------------------------------------

def md_plots(ctx, which):
    if ctx.get("plot_error"):
        return [f"No plots: {ctx['plot_error']}.", ""] if which == "ratio" else []
    if ctx["plots"] is None:
        return (["gnuplot is not installed here, so no plots were drawn "
                 "(`apt-get install gnuplot-nox`, then run bench/report.py "
                 "again).", ""] if which == "ratio" else [])
    outdir = os.path.dirname(os.path.abspath(ctx["out"]))
    lines = []
    for p in ctx["plots"]:
        is_ratio = os.path.basename(p["file"]).startswith("ratio-")
        if is_ratio != (which == "ratio"):
            continue
        rel = os.path.relpath(p["file"], outdir).replace(os.sep, "/")
        lines += [f"![{p['title']}]({rel})", "", f"*{p['caption']}*", ""]
    return lines


def md_setup(ctx):
    env, boots = ctx["env"], ctx["boots"]
    counts = env.get("counts") if isinstance(env.get("counts"), dict) else {}
    rows = [
        ("Host", f"{env_value(env, 'host_cpu')}, kernel {env_value(env, 'host_kernel')}"
                 + (f"; other work used {env['host_other_cpu_pct']} % of its CPU "
                    "during the boots" if is_num(env.get("host_other_cpu_pct"))
                    else "")),
        ("QEMU", f"{env_value(env, 'qemu')}, {accel(boots)}"),
        ("Guest", f"kernel {boot_values(boots, 'kernel')}, "
                  f"{boot_values(boots, 'guest_cpus')} CPUs, "
                  f"{boot_values(boots, 'guest_mem_mb')} MiB, command line "
                  f"`{env_value(env, 'guest_cmdline')}`"),
        ("Boots", str(len(boots))),
    ]
    n, w = counts.get("measured_per_point"), counts.get("warmup_per_point")
    if is_num(n) and is_num(w):
        rows.append(("Commands per single point", f"{n:,} after {w:,} of warm-up"))
    return ["## Setup", ""] + table(["", ""], "ll", rows) + [""]


def md_notes(ctx):
    return ["## What the numbers mean", "", ctx["notes"].rstrip("\n"), ""]


def md_raw(ctx):
    outdir = os.path.dirname(os.path.abspath(ctx["out"]))
    rdir = os.path.abspath(ctx["results_dir"])
    names = [os.path.basename(f) for f in ctx["boot_files"].values()]
    names += [n for n in ("env.json",) if ctx["env"]] + ["summary.json"]
    links = ", ".join(
        f"[{n}]({os.path.relpath(os.path.join(rdir, n), outdir)})"
        for n in names)
    lines = ["## Raw data", "", f"{links}.", ""]
    profiles = sorted(n for n in os.listdir(rdir)
                      if n.startswith("profile-") and n.endswith(".txt"))
    if profiles:
        lines += ["Profiles (perf, cpu-clock, in a separate boot; "
                  "bench/profile.sh): " + ", ".join(
                      f"[{n[8:-4]}]({os.path.relpath(os.path.join(rdir, n), outdir)})"
                      for n in profiles) + ".", ""]
    return lines


def md_icount(ctx):
    boots, docs = ctx["icount"]
    if not boots:
        return []
    return icount_report.md_section(boots, docs, ctx["env"])


def render(ctx):
    lines = (md_answer(ctx) + md_icount(ctx) + md_comparisons(ctx) + md_plots(ctx, "ratio")
             + md_floors(ctx) + md_costs(ctx) + md_paths(ctx) + md_plots(ctx, "other")
             + md_notes(ctx) + md_points(ctx) + md_setup(ctx) + md_raw(ctx))
    return "\n".join(lines).rstrip() + "\n"


def summary(ctx):
    comps = [{k: c[k] for k in ("id", "title", "ratio", "cpu", "add_ns",
                                "verdict", "boots", "slice")}
             for c in ctx["comps"].values()]
    ms = [dict(zip(("group", "path", "qd", "iopoll"), key), **aggregate(per))
          for key, per in sorted(ctx["meas"].items())]
    return {"boots": sorted(ctx["boots"]), "env": ctx["env"],
            "comparisons": comps, "points": ms,
            "discarded": {i: sorted(k) for i, k in ctx["discarded"].items()},
            "icount": icount_report.summary(ctx["icount"][0])}


def load(args):
    files = boot_files(args.results_dir)
    boots = {n: load_boot(p, n) for n, p in files.items()}
    discarded = {}
    return {"results_dir": args.results_dir, "boot_files": files,
            "boots": boots, "env": load_env(args.results_dir),
            "meas": index(boots), "comps": comparisons(boots, discarded),
            "costs": load_costs(args.results_dir),
            "discarded": discarded,
            "icount": load_icount(args.results_dir),
            "notes": notes_text(args.notes), "command": args.command,
            "out": args.out}


def load_icount(rdir):
    try:
        return icount_report.load(rdir)
    except icount_report.IcountError as e:
        raise BadInput(str(e))


def icount_only(args):
    """RESULTS_DIR has icount boots only: their section into OUT"""
    try:
        boots, docs = load_icount(args.results_dir)
        env = load_env(args.results_dir)
    except BadInput as e:
        die(e)
    try:
        with open(args.out) as f:
            text = f.read()
    except FileNotFoundError:
        text = "# Results\n"
    except OSError as e:
        die(f"{args.out}: {e.strerror}")
    section = icount_report.md_section(boots, docs, env,
                                       icount_report.wall_clock_date(text))
    try:
        write_atomic(args.out, icount_report.splice(text, section))
        write_atomic(os.path.join(args.results_dir, "summary.json"),
                     json.dumps({"env": env, "icount": icount_report.summary(boots)},
                                indent=1) + "\n")
    except OSError as e:
        die(f"{e.filename or ''}: {e.strerror}")


def main():
    args = parse_args()
    rdir = args.results_dir
    if (os.path.isdir(rdir) and icount_report.files(rdir)
            and not any(re.fullmatch(r"boot-\d+\.json", n) for n in os.listdir(rdir))):
        icount_only(args)
        return
    try:
        ctx = load(args)
    except BadInput as e:
        die(e)
    ctx["plot_error"] = None
    try:
        ctx["plots"] = make_plots(ctx, args.plots)
    except (PlotError, OSError) as e:
        ctx["plot_error"], ctx["plots"] = str(e), None
    try:
        write_atomic(args.out, render(ctx))
        write_atomic(os.path.join(args.results_dir, "summary.json"),
                     json.dumps(summary(ctx), indent=1) + "\n")
    except OSError as e:
        die(f"{e.filename or ''}: {e.strerror}")
    if ctx["plot_error"]:
        die(ctx["plot_error"])


if __name__ == "__main__":
    main()
