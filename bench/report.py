#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the benchmark JSON of several guest boots into RESULTS.md and plots.

usage: bench/report.py RESULTS_DIR [--out RESULTS.md] [--plots bench/plots]
                       [--command "make bench"] [--notes bench/notes.md]

RESULTS_DIR holds boot-1.json, boot-2.json, ... (one per guest boot, at least
one) and optionally env.json. A measurement is (group, path, qd, iopoll);
every figure reported is the median over the boots that measured it, spreads
are min-max over those boots, and ratios are taken within each boot first,
then their median (with the min-max of the per-boot ratios).

Writes OUT (default: RESULTS.md at the top of the repository), SVG plots in
PLOTS (default: bench/plots; drawn by gnuplot, skipped with a note in OUT if
gnuplot is not installed) and RESULTS_DIR/summary.json (medians, ratios and
target verdicts). NOTES (default: bench/notes.md), when present, becomes the
"What the numbers mean" section verbatim.

Prints nothing on success; on bad input (missing directory, no boot files,
malformed JSON) prints one line and exits 1.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAT_KEYS = ("mean", "min", "p50", "p99", "p999", "max")
NOT_MEASURED = "not measured"
ID_QDS = [1, 4, 16, 32]
GROUPS = {
    "floor": {
        "title": "Floor: io_uring NOP and null-co reads",
        "about": "io_uring NOP is the cost of io_uring itself; a 4 KiB "
                 "O_DIRECT read on a null-co backed namespace is that plus "
                 "the block layer, the NVMe driver and the emulated "
                 "controller's own service time.",
        "baseline": None, "qd_name": "QD",
        "expected": [("nop", [1]), ("nullco-read", [1])],
    },
    "identify": {
        "title": "Identify (NVMe admin command)",
        "about": "ioctl-bdev is synchronous NVME_IOCTL_ADMIN_CMD on "
                 "/dev/nvme0n1 with QD threads; uring-char is upstream "
                 "uring_cmd on /dev/nvme0; uring-bdev is this project's "
                 "uring_cmd on /dev/nvme0n1. Ratio: IOPS over uring-char's "
                 "at the same QD, in the same boot.",
        "baseline": "uring-char", "qd_name": "QD",
        "expected": [("ioctl-bdev", ID_QDS), ("uring-char", ID_QDS),
                     ("uring-bdev", ID_QDS)],
    },
    "smart": {
        "title": "SMART / health log (NVMe admin command)",
        "about": "The same three paths as Identify, fetching the SMART / "
                 "health log page; informative, no target. Ratio: IOPS over "
                 "uring-char's at the same QD, in the same boot.",
        "baseline": "uring-char", "qd_name": "QD",
        "expected": [("ioctl-bdev", ID_QDS), ("uring-char", ID_QDS),
                     ("uring-bdev", ID_QDS)],
    },
    "query": {
        "title": "Block-device queries (BLKBSZGET)",
        "about": "ioctl is one ioctl(BLKBSZGET) per call; uring submits the "
                 "same query as uring_cmd in batches of QD per "
                 "io_uring_enter. Ratio: IOPS over ioctl's (QD 1), in the "
                 "same boot.",
        "baseline": "ioctl", "qd_name": "batch",
        "expected": [("ioctl", [1]), ("uring", [1, 8, 32, 64])],
    },
    "read4k": {
        "title": "4 KiB reads",
        "about": "uring-read-bdev is a plain io_uring O_DIRECT read on "
                 "/dev/nvme0n1; pt-ng is NVMe passthrough on /dev/ng0n1 "
                 "(upstream); pt-bdev is passthrough on /dev/nvme0n1 (this "
                 "project). Ratio: IOPS over pt-ng's at the same QD and "
                 "iopoll, in the same boot.",
        "baseline": "pt-ng", "qd_name": "QD",
        "expected": [("uring-read-bdev", [1, 32]), ("pt-ng", [1, 32]),
                     ("pt-bdev", [1, 32])],
    },
    "fio": {
        "title": "fio, 4 KiB random reads",
        "about": "fio-uringcmd-bdev is ioengine=uringcmd on /dev/nvme0n1 "
                 "(this project); fio-io_uring_cmd-ng is fio's io_uring_cmd "
                 "on /dev/ng0n1; fio-io_uring-bdev is fio's io_uring with "
                 "O_DIRECT on /dev/nvme0n1. Ratio: IOPS over "
                 "fio-io_uring_cmd-ng's at the same QD, in the same boot.",
        "baseline": "fio-io_uring_cmd-ng", "qd_name": "QD",
        "expected": [("fio-uringcmd-bdev", [1, 32]),
                     ("fio-io_uring_cmd-ng", [1, 32]),
                     ("fio-io_uring-bdev", [1, 32])],
    },
}
DEFAULT_NOTES = """\
The NVMe controller is QEMU's emulated one and, under TCG (see Setup), the
guest's CPU is emulated too: the absolute numbers are not hardware numbers and say little
about a real machine. Only ratios between paths measured in the same boot mean
anything, which is why every ratio above is taken within one boot first.
Every latency includes QEMU's emulation of the controller (see the floor
ladder for how much of it is the floor every path pays)."""


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


# ---- figures ---------------------------------------------------------------

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


def ratio(meas, num, den):
    """IOPS of num over IOPS of den, per boot, then median and min-max."""
    a, b = meas.get(num, {}), meas.get(den, {})
    return per_boot_span({n: a[n]["iops"] / b[n]["iops"]
                          for n in a if n in b and b[n]["iops"] > 0})


def difference(meas, key, floor, field="p50"):
    """Latency of key minus that of floor, per boot, then median, in ns."""
    a, b = meas.get(key, {}), meas.get(floor, {})
    return per_boot_span({n: lat(a[n], field) - lat(b[n], field) for n in a
                          if n in b and lat(a[n], field) is not None
                          and lat(b[n], field) is not None})


def baseline_of(key):
    g, path, qd, iopoll = key
    base = GROUPS.get(g, {}).get("baseline")
    if base is None:
        return None
    if g == "query":
        return (g, base, 1, False)
    return (g, base, qd, iopoll)


def path_order(group, path):
    names = [p for p, _ in GROUPS.get(group, {}).get("expected", [])]
    return (names.index(path), "") if path in names else (len(names), path)


def group_keys(meas, group):
    """Measured keys of a group plus the expected ones (iopoll off)."""
    keys = {k for k in meas if k[0] == group}
    for path, qds in GROUPS.get(group, {}).get("expected", []):
        keys.update((group, path, qd, False) for qd in qds)
    return sorted(keys, key=lambda k: (path_order(group, k[1]), k[2], k[3]))


def qds_of(meas, group, paths, iopoll, default):
    qds = {k[2] for k in meas
           if k[0] == group and k[1] in paths and k[3] == iopoll}
    return sorted(qds | set(default))


# ---- targets ---------------------------------------------------------------

def target(name, num, den, goal, explain):
    return {"name": name, "num": num, "den": den, "op": ">=",
            "target": goal, "explain": explain}


def identify_targets(meas):
    out = []
    for qd in qds_of(meas, "identify", ("uring-bdev", "uring-char"), False,
                     ID_QDS):
        out.append(target(f"identify QD {qd}: uring-bdev / uring-char IOPS",
                          ("identify", "uring-bdev", qd, False),
                          ("identify", "uring-char", qd, False), 0.95,
                          f"identify uring-bdev {qd}"))
    out.append(target("identify QD 16: uring-bdev / ioctl-bdev IOPS",
                      ("identify", "uring-bdev", 16, False),
                      ("identify", "ioctl-bdev", 16, False), 3.5,
                      "identify uring-bdev 16"))
    return out


def query_targets(meas):
    out = []
    ioctl = ("query", "ioctl", 1, False)
    for qd in qds_of(meas, "query", ("uring",), False, [1, 8, 32, 64]):
        out.append(target(f"query batch {qd}: uring / ioctl throughput",
                          ("query", "uring", qd, False), ioctl,
                          2.0 if qd >= 8 else None, f"query uring {qd}"))
    return out


def read4k_targets(meas):
    out = []
    polls = [False] + ([True] if any(k[0] == "read4k" and k[3]
                                     for k in meas) else [])
    for iopoll in polls:
        for qd in qds_of(meas, "read4k", ("pt-bdev", "pt-ng"), iopoll,
                         [] if iopoll else [1, 32]):
            tag = " iopoll" if iopoll else ""
            out.append(target(f"read4k QD {qd}{tag}: pt-bdev / pt-ng IOPS",
                              ("read4k", "pt-bdev", qd, iopoll),
                              ("read4k", "pt-ng", qd, iopoll), 0.95,
                              f"read4k pt-bdev {qd}{tag}"))
    return out


def best_batch(meas):
    """Per boot, the best uring/ioctl ratio over batches of 8 and more."""
    best, which = {}, {}
    for qd in sorted({k[2] for k in meas if k[:2] == ("query", "uring")}):
        r = ratio(meas, ("query", "uring", qd, False),
                  ("query", "ioctl", 1, False)) if qd >= 8 else None
        for b, v in (r or {"per_boot": {}})["per_boot"].items():
            if v > best.get(b, -1):
                best[b], which[b] = v, qd
    s = per_boot_span({int(b): v for b, v in best.items()})
    if s:
        s["best_batch_per_boot"] = which
    return s


def verdict(r, goal):
    if r is None:
        return NOT_MEASURED
    if goal is None:
        return "informative"
    return "MET" if r["median"] >= goal else "MISSED"


def evaluate(t, r):
    t = dict(t, ratio=r, verdict=verdict(r, t["target"]))
    for k in ("num", "den"):
        t[k] = dict(zip(("group", "path", "qd", "iopoll"), t[k]))
    return t


def targets(meas):
    out = [evaluate(t, ratio(meas, t["num"], t["den"]))
           for t in identify_targets(meas) + query_targets(meas)]
    best = target("query best batch (8/32/64): uring / ioctl throughput",
                  ("query", "uring", None, False),  # qd: the best per boot
                  ("query", "ioctl", 1, False), 2.0, "query uring best")
    out.append(evaluate(best, best_batch(meas)))
    return out + [evaluate(t, ratio(meas, t["num"], t["den"]))
                  for t in read4k_targets(meas)]


# ---- floor ladder ----------------------------------------------------------

def ladder_keys(meas):
    keys = [("floor", "nop", 1, False), ("floor", "nullco-read", 1, False)]
    for path in ("ioctl-bdev", "uring-char", "uring-bdev"):
        keys.append(("identify", path, 1, False))
    for iopoll in (False, True):
        for path in ("uring-read-bdev", "pt-ng", "pt-bdev"):
            key = ("read4k", path, 1, iopoll)
            if not iopoll or key in meas:
                keys.append(key)
    return keys


def ladder(meas):
    nop, nullco = ("floor", "nop", 1, False), ("floor", "nullco-read", 1, False)
    upper = nullco if nullco in meas else nop
    rows = []
    for key in ladder_keys(meas):
        floor = None if key == nop else nop if key == nullco else upper
        stats = aggregate(meas[key]) if key in meas else None
        rows.append({"key": key, "p50": stats and stats["lat_ns_p50"],
                     "floor": floor,
                     "above_floor": floor and difference(meas, key, floor)})
    return rows


# ---- formatting ------------------------------------------------------------

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


def label_of(per):
    labels = [r.get("label") for _, r in sorted(per.items()) if r.get("label")]
    return labels[-1] if labels else ""


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


# ---- markdown sections -----------------------------------------------------

def md_head(ctx):
    env, boots = ctx["env"], ctx["boots"]
    return [
        "# Results", "",
        f"Latency and throughput of every way this project's kernel offers "
        f"to issue a command, measured side by side in {len(boots)} "
        f"boot{'' if len(boots) == 1 else 's'} of a QEMU guest ({accel(boots)}, kernel "
        f"{boot_values(boots, 'kernel')}) with an emulated NVMe controller: "
        f"NVMe admin commands (Identify, SMART log) as a synchronous ioctl "
        f"on the block node, as upstream uring_cmd on the char device and "
        f"as uring_cmd on the block node; a block-device query (BLKBSZGET) "
        f"as an ioctl and as batched uring_cmd; 4 KiB reads as plain "
        f"io_uring, as passthrough on /dev/ng0n1 and on /dev/nvme0n1; "
        f"the same reads through fio's engines; and the floor under all of "
        f"them (io_uring NOP, reads on a null-co namespace). Each figure is "
        f"the median over the boots, with the min–max across boots in "
        f"parentheses; ratios are taken within one boot, then their median.",
        "",
        f"Reproduce with `{ctx['command']}`. Measured on "
        f"{env_value(env, 'date')}, commit {env_value(env, 'commit')}.", ""]


def md_setup(ctx):
    env, boots = ctx["env"], ctx["boots"]
    nboots = str(len(boots))
    if "boots" in env and str(env["boots"]) != nboots:
        nboots += f" (env.json says {env['boots']})"
    ns = [r["n"] for d in boots.values() for r in d["results"]
          if is_num(r.get("n"))]
    rows = [
        ("Host CPU", env_value(env, "host_cpu")),
        ("Host kernel", env_value(env, "host_kernel")),
        ("Guest kernel", boot_values(boots, "kernel")),
        ("QEMU", env_value(env, "qemu")),
        ("Accelerator", accel(boots)),
        ("Guest CPUs", boot_values(boots, "guest_cpus")),
        ("Guest memory (MiB)", boot_values(boots, "guest_mem_mb")),
        ("Boots", nboots),
        ("Guest kernel command line", env_value(env, "guest_cmdline")),
        ("Counts", env_value(env, "counts")),
        ("Commands per measurement",
         fmt_span(span(ns), lambda v: f"{v:,.0f}") if ns else "unknown"),
    ]
    return ["## Setup", ""] + table(["", ""], "ll", rows) + [""]


def target_row(t):
    goal = "—" if t["target"] is None else f"≥ {t['target']:g}"
    boots = len(t["ratio"]["boots"]) if t["ratio"] else 0
    return [t["name"], fmt_span(t["ratio"], fmt_ratio3), boots, goal,
            t["verdict"]]


def md_targets(ctx):
    ts = ctx["targets"]
    judged = [t for t in ts if t["verdict"] in ("MET", "MISSED")]
    missed = [t for t in judged if t["verdict"] == "MISSED"]
    unmeasured = sum(t["verdict"] == NOT_MEASURED for t in ts)
    lines = ["## Targets", "",
             f"{len(judged) - len(missed)} of {len(judged)} measured targets "
             f"met" + (f", {unmeasured} rows not measured" if unmeasured
                       else "") +
             ". Ratios: median of the per-boot ratios (min–max over boots); "
             "the SMART rows are informative and only in their table "
             "below.", ""]
    lines += table(["Target", "Measured", "Boots", "Target", "Verdict"],
                   "lrrll", [target_row(t) for t in ts])
    explains = []
    for t in missed:
        line = f"<!-- explain: {t['explain']} -->"
        if line not in explains:
            explains.append(line)
    return lines + ([""] + explains if explains else []) + [""]


def md_notes(ctx):
    return ["## What the numbers mean", "", ctx["notes"].rstrip("\n"), ""]


def ladder_row(row):
    floor = row["floor"]
    floor_name = "—" if floor is None else floor[1]
    step = key_name(row["key"])
    if row["p50"] is None:
        return [step, NOT_MEASURED, floor_name, "—"]
    return [step, fmt_span(row["p50"], fmt_us), floor_name,
            fmt_span(row["above_floor"], fmt_us) if floor else "—"]


def md_ladder(ctx):
    lines = ["## Floor ladder", "",
             "Median p50 latency at QD 1 (µs), and what each step adds to "
             "the floor below it (per-boot difference, then median; "
             "min–max over boots).", ""]
    lines += table(["Step", "p50 (µs)", "Floor below", "p50 − floor (µs)"],
                   "lrlr", [ladder_row(r) for r in ctx["ladder"]])
    return lines + [""]


def group_row(meas, key, with_iopoll, show_ratio):
    g, path, qd, iopoll = key
    row = [path, qd] + (["yes" if iopoll else "no"] if with_iopoll else [])
    per = meas.get(key)
    if not per:
        return row + [NOT_MEASURED] + ["—"] * (5 + show_ratio)
    s = aggregate(per)
    row += [label_of(per), len(per), fmt_span(s["iops"], fmt_iops),
            fmt_span(s["lat_ns_p50"], fmt_us), fmt_med(s["lat_ns_p99"], fmt_us),
            fmt_med(s["lat_ns_p999"], fmt_us)]
    if show_ratio:
        base = baseline_of(key)
        row.append("baseline" if base == key
                   else fmt_span(ratio(meas, key, base), fmt_ratio))
    return row


def md_group(ctx, group):
    meas, info = ctx["meas"], GROUPS.get(group, {})
    keys = group_keys(meas, group)
    with_iopoll = group == "read4k" or any(k[3] for k in keys)
    base = info.get("baseline")
    header = (["Path", info.get("qd_name", "QD")]
              + (["iopoll"] if with_iopoll else [])
              + ["Label", "Boots", "IOPS", "p50 (µs)", "p99 (µs)",
                 "p99.9 (µs)"] + ([f"vs {base}"] if base else []))
    align = "lr" + ("l" if with_iopoll else "") + "lrrrrr" + ("r" if base
                                                             else "")
    rows = [group_row(meas, k, with_iopoll, bool(base)) for k in keys]
    about = info.get("about", "Not a group this report knows; as measured.")
    return ([f"## {info.get('title', group)}", "", about, ""]
            + table(header, align, rows) + [""])


def md_plots(ctx):
    lines = ["## Plots", ""]
    if ctx.get("plot_error"):
        return lines + [f"No plots: {ctx['plot_error']}.", ""]
    if ctx["plots"] is None:
        return lines + ["gnuplot is not installed here, so no plots were "
                        "drawn (`apt-get install gnuplot-nox`, then run "
                        "bench/report.py again).", ""]
    outdir = os.path.dirname(os.path.abspath(ctx["out"]))
    for p in ctx["plots"]:
        if p["file"] is None:
            lines += [f"*{p['title']}*: {NOT_MEASURED}.", ""]
            continue
        rel = os.path.relpath(p["file"], outdir).replace(os.sep, "/")
        lines += [f"![{p['title']}]({rel})", "", f"*{p['caption']}*", ""]
    return lines


def md_raw(ctx):
    outdir = os.path.dirname(os.path.abspath(ctx["out"]))
    rdir = os.path.abspath(ctx["results_dir"])
    names = [os.path.basename(f) for f in ctx["boot_files"].values()]
    names += [n for n in ("env.json",) if ctx["env"]] + ["summary.json"]
    links = ", ".join(
        f"[{n}]({os.path.relpath(os.path.join(rdir, n), outdir)})"
        for n in names)
    where = os.path.relpath(rdir, outdir)
    where = "next to this file" if where == "." else f"in `{where}/`"
    lines = ["## Raw data", "", f"Raw data: {links}, {where}.", ""]
    profiles = sorted(n for n in os.listdir(rdir)
                      if n.startswith("profile-") and n.endswith(".txt"))
    if profiles:
        lines += ["Profiles (perf, cpu-clock, in a separate boot; "
                  "bench/profile.sh): " + ", ".join(
                      f"[{n[8:-4]}]({os.path.relpath(os.path.join(rdir, n), outdir)})"
                      for n in profiles) + ".", ""]
    return lines


def render(ctx):
    lines = (md_head(ctx) + md_setup(ctx) + md_targets(ctx) + md_notes(ctx)
             + md_ladder(ctx))
    known = list(GROUPS)
    extra = sorted({k[0] for k in ctx["meas"]} - set(known))
    for group in known + extra:
        lines += md_group(ctx, group)
    return "\n".join(lines + md_plots(ctx) + md_raw(ctx)).rstrip() + "\n"


# ---- plots -----------------------------------------------------------------

class PlotError(Exception):
    pass


def gp_str(s):
    return "'" + str(s).replace("'", "''") + "'"


def series_keys(meas, group, qd=None):
    """(path, iopoll) pairs measured in a group, iopoll off first."""
    pairs = {(k[1], k[3]) for k in meas
             if k[0] == group and (qd is None or k[2] == qd)}
    return sorted(pairs, key=lambda p: (p[1], path_order(group, p[0])))


def series_title(path, iopoll):
    return path + (" (iopoll)" if iopoll else "")


def qd_series(meas, group):
    out = []
    for path, iopoll in series_keys(meas, group):
        pts = []
        for qd in sorted(k[2] for k in meas
                         if k[:2] == (group, path) and k[3] == iopoll):
            s = aggregate(meas[(group, path, qd, iopoll)])["iops"]
            pts.append(f"{qd} {s['median']} {s['min']} {s['max']}")
        out.append((path, iopoll, series_title(path, iopoll), pts))
    return out


def cdf_boot(per):
    """The boot whose p50 is the median one (lower median), with a CDF."""
    cands = sorted((lat(r, "p50") or 0, b) for b, r in per.items()
                   if r.get("cdf"))
    return cands[(len(cands) - 1) // 2][1] if cands else None


def cdf_series(meas, group, qd):
    out = []
    for path, iopoll in series_keys(meas, group, qd):
        per = meas[(group, path, qd, iopoll)]
        b = cdf_boot(per)
        if b is None:
            continue
        pts = [f"{x / 1000} {y}" for x, y in per[b]["cdf"] if x > 0]
        out.append((path, iopoll,
                     f"{series_title(path, iopoll)}, boot {b}", pts))
    return out


def plot_lines(tmp, group, series, using, style):
    parts = []
    for i, (path, iopoll, title, pts) in enumerate(series):
        data = os.path.join(tmp, f"s{i}.dat")
        with open(data, "w", encoding="utf-8") as f:
            f.write("\n".join(pts) + "\n")
        color = path_order(group, path)[0] + 1
        parts.append(f"{gp_str(data)} using {using} with {style} lw 2 "
                     f"lc {color} dt {2 if iopoll else 1} "
                     f"title {gp_str(title)}")
    return "plot " + ", \\\n     ".join(parts)


def gp_header(svg, title):
    return ["set encoding utf8", "set terminal svg size 800,500",
            "set termoption noenhanced", f"set output {gp_str(svg)}",
            f"set title {gp_str(title)}", "set grid", "set key left top opaque"]


def qd_script(meas, group, svg, tmp, title):
    series = qd_series(meas, group)
    if not series:
        return None
    qds = sorted({k[2] for k in meas if k[0] == group})
    return gp_header(svg, title) + [
        "set logscale x 2",
        f"set xrange [{qds[0] / 1.5}:{qds[-1] * 1.5}]",
        "set xtics (" + ", ".join(str(q) for q in qds) + ")",
        "set yrange [0:*]",
        "set xlabel 'queue depth (ioctl-bdev: threads)'",
        "set ylabel 'IOPS (median; bars: min–max over boots)'",
        plot_lines(tmp, group, series, "1:2:3:4", "yerrorlines")]


def cdf_script(meas, group, qd, svg, tmp, title):
    series = cdf_series(meas, group, qd)
    if not series:
        return None
    return gp_header(svg, title) + [
        "set key right bottom", "set logscale x 10", "set yrange [0:1]",
        "set xlabel 'latency (µs, log scale)'",
        "set ylabel 'fraction of commands'",
        plot_lines(tmp, group, series, "1:2", "lines")]


PLOTS = [
    ("identify-qd.svg", "identify", None,
     "Identify: IOPS vs queue depth",
     "Identify IOPS by queue depth (log2 x), median over boots, bars "
     "min–max."),
    ("read4k-qd.svg", "read4k", None,
     "4 KiB reads: IOPS vs queue depth",
     "4 KiB read IOPS by queue depth (log2 x), median over boots, bars "
     "min–max; dashed: iopoll."),
    ("identify-cdf-qd1.svg", "identify", 1,
     "Identify latency CDF, QD 1",
     "Identify latency CDF at QD 1, from the boot with the median p50."),
    ("identify-cdf-qd16.svg", "identify", 16,
     "Identify latency CDF, QD 16",
     "Identify latency CDF at QD 16, from the boot with the median p50."),
    ("read4k-cdf-qd1.svg", "read4k", 1,
     "4 KiB read latency CDF, QD 1",
     "4 KiB read latency CDF at QD 1, from the boot with the median p50; "
     "dashed: iopoll."),
]


def run_gnuplot(script, tmp):
    path = os.path.join(tmp, "plot.gp")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(script) + "\n")
    p = subprocess.run(["gnuplot", path], capture_output=True, text=True,
                       check=False)
    if p.returncode != 0:
        err = (p.stderr.strip().splitlines() or ["failed"])[-1]
        raise PlotError(f"gnuplot: {err.strip()}")


def make_plot(meas, spec, plots_dir):
    name, group, qd, title, caption = spec
    final = os.path.join(plots_dir, name)
    with tempfile.TemporaryDirectory(prefix="report-") as tmp:
        svg = os.path.join(tmp, name)
        script = (qd_script(meas, group, svg, tmp, title) if qd is None
                  else cdf_script(meas, group, qd, svg, tmp, title))
        if script is None:
            if os.path.exists(final):
                os.remove(final)  # stale, from an earlier run
            return {"title": title, "file": None}
        run_gnuplot(script, tmp)
        shutil.move(svg, final)
    return {"title": title, "caption": caption, "file": final}


def make_plots(meas, plots_dir):
    """The plots drawn, or None without gnuplot."""
    if shutil.which("gnuplot") is None:
        return None
    os.makedirs(plots_dir, exist_ok=True)
    return [make_plot(meas, spec, plots_dir) for spec in PLOTS]


# ---- output ----------------------------------------------------------------

def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def summary(ctx):
    ms = []
    for key in sorted(ctx["meas"], key=lambda k: (k[0], k[1], k[2], k[3])):
        per = ctx["meas"][key]
        base = baseline_of(key)
        m = dict(zip(("group", "path", "qd", "iopoll"), key),
                 label=label_of(per), **aggregate(per))
        if base and base != key:
            m["ratio"] = dict(ratio(ctx["meas"], key, base) or {},
                              baseline=base[1], baseline_qd=base[2])
        ms.append(m)
    ladder_rows = [{"step": key_name(r["key"]), "lat_ns_p50": r["p50"],
                    "floor": r["floor"] and key_name(r["floor"]),
                    "above_floor_ns": r["above_floor"]}
                   for r in ctx["ladder"]]
    verdicts = [t["verdict"] for t in ctx["targets"]]
    return {"boots": sorted(ctx["boots"]), "env": ctx["env"],
            "measurements": ms, "ladder": ladder_rows,
            "targets": [{k: v for k, v in t.items() if k != "explain"}
                        for t in ctx["targets"]],
            "all_targets_met": "MISSED" not in verdicts}


def notes_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return DEFAULT_NOTES
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: {e}") from e


def load(args):
    files = boot_files(args.results_dir)
    boots = {n: load_boot(p, n) for n, p in files.items()}
    meas = index(boots)
    return {"results_dir": args.results_dir, "boot_files": files,
            "boots": boots, "env": load_env(args.results_dir), "meas": meas,
            "targets": targets(meas), "ladder": ladder(meas),
            "notes": notes_text(args.notes), "command": args.command,
            "out": args.out}


def main():
    args = parse_args()
    try:
        ctx = load(args)
    except BadInput as e:
        die(e)
    ctx["plot_error"] = None
    try:
        ctx["plots"] = make_plots(ctx["meas"], args.plots)
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
