#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the benchmark JSON of several guest boots into RESULTS.md and plots.

usage: bench/report.py RESULTS_DIR [--out RESULTS.md] [--plots bench/plots]
                       [--command "make bench"] [--notes bench/notes.md]
                       [--allow-synthetic]

RESULTS_DIR holds boot-1.json, boot-2.json, ... (one per guest boot, at least
one), optionally env.json and icount-1.json, ... (bench/icount.sh's boots
under QEMU's icount: the section "Instructions per command", from
bench/icount_report.py). A RESULTS_DIR with icount-N.json files and no
boot-N.json (bench.sh --icount-only) rewrites only that section of OUT,
leaving the wall-clock sections as they are. Each boot has "pairs", the comparisons of
uc_bench pair (two paths alternated in slices within the boot, every pair's
IOPS and CPU per command), and "results", points of one path alone.

A comparison's figures: the median of the per-pair ratios of every boot,
with a 95 % interval from a two-level bootstrap (the boots resampled, then
the pairs within each resampled boot; seeded, so the same input gives the
same report), and the verdict, a resolved difference first: "faster" or
"slower" when the interval lies above or below 1 (", by at most 2 %" when it
also lies inside 0.98-1.02), "within" ±2 % when it includes 1 and lies
inside the band, "unresolved" otherwise. The median of each boot is shown
beside it. Points (a path alone) are the median over the boots, min-max in
parentheses.

Results marked synthetic ("synthetic": true in env.json or a boot file: the
test fixture tests/host/bench_fake_results.py) are refused unless
--allow-synthetic, and even then never written into the committed
RESULTS.md, RESULTS-kvm.md, bench/plots or bench/plots-kvm.

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
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import zlib

sys.dont_write_bytecode = True  # no bench/__pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import icount_report  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAT_KEYS = ("mean", "min", "p50", "p99", "p999", "max")
BAND = 0.02
BOOTSTRAP_N = 2000     # resamples of the two-level bootstrap
BOOTSTRAP_SEED = 27    # with each comparison's name, its seed
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
    "fio-engines-qd1": ("other", "fio engines, QD 1",
                        "fio, 4 KiB random reads on the null-co namespace, QD 1: "
                        "ioengine=uringcmd on /dev/nvme0n2 ÷ ioengine=io_uring_cmd "
                        "on /dev/ng0n2 (fio runs alternated; CPU: fio's usr + sys "
                        "per I/O)"),
    "fio-engines-qd32": ("other", "fio engines, QD 32",
                         "the same, QD 32"),
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
OLD_PLOTS = ("ratio-speedups.svg", "read4k-qd.svg", "identify-cdf-qd1.svg",
             "identify-cdf-qd16.svg", "read4k-cdf-qd1.svg")
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
    p.add_argument("--allow-synthetic", action="store_true",
                   help="report on made-up results (tests/host/"
                   "bench_fake_results.py), into an --out and --plots outside "
                   "the committed RESULTS.md and bench/plots")
    return p.parse_args()


# What a report on synthetic results may never overwrite
COMMITTED_OUT = ("RESULTS.md", "RESULTS-kvm.md")
COMMITTED_PLOTS = (os.path.join("bench", "plots"), os.path.join("bench", "plots-kvm"))


def is_synthetic(rdir):
    """Whether RESULTS_DIR holds made-up results: env.json or any boot file
    says "synthetic": true."""
    check(os.path.isdir(rdir), rdir, "no such directory")
    docs = [os.path.join(rdir, n) for n in sorted(os.listdir(rdir))
            if n == "env.json" or re.fullmatch(r"(boot|icount)-\d+\.json", n)]
    for path in docs:
        if os.path.exists(path):
            doc = read_json(path)
            if isinstance(doc, dict) and doc.get("synthetic") is True:
                return True
    return False


def check_synthetic(args):
    """Refuse synthetic input unless --allow-synthetic, and even then into
    the committed report or plots."""
    if not is_synthetic(args.results_dir):
        return False
    if not args.allow_synthetic:
        die(f"{args.results_dir}: synthetic results (made up by a test "
            "fixture); --allow-synthetic reports on them, into an --out and "
            "--plots of your own")
    out = os.path.realpath(args.out)
    plots = os.path.realpath(args.plots)
    if out in (os.path.realpath(os.path.join(TOP, f)) for f in COMMITTED_OUT):
        die(f"{args.out}: synthetic results never go into the committed "
            "report: give --out elsewhere")
    if plots in (os.path.realpath(os.path.join(TOP, d)) for d in COMMITTED_PLOTS):
        die(f"{args.plots}: synthetic results never go into the committed "
            "plots: give --plots elsewhere")
    return True


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


def median(values):
    v, n = sorted(values), len(values)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def bootstrap(groups, seed, resamples=BOOTSTRAP_N):
    """The pooled median of each statistic and its 95 % interval from a
    two-level bootstrap: @groups is {stat: [[value or None, ...] per boot]},
    the lists of a boot aligned (one entry per pair). Each of @resamples
    resamples draws the boots with replacement, then the pairs within each
    drawn boot with replacement, and takes each statistic's median over the
    drawn pairs; the interval is the 2.5th and 97.5th percentile of those
    medians. Seeded (random.Random(@seed), random() only), so the same
    input gives the same interval. With one boot it is a bootstrap of that
    boot's pairs."""
    rng = random.Random(seed)
    stats = list(groups)
    nboots = len(next(iter(groups.values())))
    sizes = [len(g) for g in groups[stats[0]]]
    meds = {k: [] for k in stats}
    for _ in range(resamples):
        drawn = {k: [] for k in stats}
        for _ in range(nboots):
            b = int(rng.random() * nboots)
            n = sizes[b]
            idx = [int(rng.random() * n) for _ in range(n)]
            for k in stats:
                col = groups[k][b]
                drawn[k].extend(col[i] for i in idx)
        for k in stats:
            vals = [v for v in drawn[k] if v is not None]
            if vals:
                meds[k].append(median(vals))
    out = {}
    for k in stats:
        pooled = [v for g in groups[k] for v in g if v is not None]
        m = sorted(meds[k])
        if not pooled or not m:
            out[k] = {"median": 1.0, "lo": 1.0, "hi": 1.0, "n": 0}
            continue
        lo = m[int(0.025 * len(m))]
        hi = m[max(0, math.ceil(0.975 * len(m)) - 1)]
        out[k] = {"median": median(pooled), "lo": lo, "hi": hi, "n": len(pooled)}
    return out


def seed_of(cid):
    """Each comparison its own seed: its interval does not depend on which
    other comparisons the run has, or their order."""
    return BOOTSTRAP_SEED * 2 ** 32 + zlib.crc32(cid.encode())


VERDICT_ORDER = ["slower", "slower, by at most 2 %", "faster", "faster, by at most 2 %",
                 "unresolved", "within"]


def verdict_of(ci, band=BAND):
    """The verdict on a ratio B ÷ A: a difference the interval resolves
    (it lies wholly above or below 1) is said first, qualified "by at most
    2 %" when the interval also lies inside the band; "within" only for an
    interval that crosses 1 and lies inside the band; "unresolved" for one
    that crosses 1 and leaves it."""
    inside = ci["lo"] >= 1 - band and ci["hi"] <= 1 + band
    pct = f"{band * 100:g} %"
    if ci["lo"] > 1:
        return f"faster, by at most {pct}" if inside else "faster"
    if ci["hi"] < 1:
        return f"slower, by at most {pct}" if inside else "slower"
    return "within" if inside else "unresolved"


def cpu_verdict_of(ci, band=BAND):
    """The same rule on CPU per command B ÷ A, where above 1 costs more."""
    return (verdict_of(ci, band).replace("faster", "costlier")
            .replace("slower", "cheaper"))


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
                                            "cpu_boots": {},
                                            "rows": [], "slice": p.get("slice"),
                                            "a": {}, "b": {}})
            c["boots"][b] = statistics.median(r[1] / r[0] for r in p["pairs"])
            c["cpu_boots"][b] = median(
                [r[3] / r[2] for r in p["pairs"] if r[2] > 0] or [1])
            c["rows"] += [r + [b] for r in p["pairs"]]
            c["a"][b], c["b"][b] = p["a"], p["b"]
    for c in out.values():
        per = [[r for r in c["rows"] if r[4] == b] for b in sorted(c["boots"])]
        ci = bootstrap({
            "ratio": [[r[1] / r[0] for r in rs] for rs in per],
            "cpu": [[r[3] / r[2] if r[2] > 0 else None for r in rs] for rs in per],
            "add_ns": [[1e9 / r[1] - 1e9 / r[0] for r in rs] for rs in per],
        }, seed_of(c["id"]))
        c.update(ci)
        c["verdict"] = verdict_of(c["ratio"])
        c["cpu_verdict"] = cpu_verdict_of(c["cpu"])
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
    parts = []
    for v in sorted({c["verdict"] for c in cs}, key=VERDICT_ORDER.index):
        out = [c for c in cs if c["verdict"] == v]
        word = f"**{v}**" if v != "within" else "within ±2 %"
        part = f"{word} in {len(out)} of {len(cs)}"
        if v == "within":
            los = [c["ratio"]["lo"] for c in out]
            his = [c["ratio"]["hi"] for c in out]
            part += f" (every interval inside [{fmt_x(min(los))}, {fmt_x(max(his))}])"
        else:
            part += ": " + ", ".join(f"{c['short']} {fmt_ci(c['ratio'])}" for c in out)
        parts.append(part)
    line = "; ".join(parts)
    cpu = [c for c in cs if c["cpu_verdict"].startswith(("costlier", "cheaper"))]
    if cpu:
        line += (". CPU per command resolves what IOPS may not: " + ", ".join(
            f"{c['short']} {fmt_ci(c['cpu'])} ({c['cpu_verdict']})" for c in cpu))
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
            parts.append(f"batches of {b}: {fmt_ci(c['ratio'])} ({c['verdict']})" + (
                f"; {fmt_ci(f['ratio'])} ({f['verdict']}) with a registered file and "
                f"SINGLE_ISSUER|COOP_TASKRUN" if f else ""))
    if not parts:
        return "not measured"
    line = "; ".join(parts)
    nop = comps.get("query-nop-b64")
    if nop:
        line += (f". A query costs {fmt_ci(nop['add_ns'], fmt_ns, ' µs')} over an "
                 f"io_uring NOP in batches of 64")
    if clocked(comps, "query"):
        line += (". **This run timed every query** (uc_bench before slice "
                 "timing read the clock twice per ioctl() and about once per "
                 "queued query inside the measured loop): the ratios include "
                 "those reads; the instruction counts of the icount section, "
                 "where present, have none")
    return line


def clocked(comps, question):
    """Whether the comparisons of @question were measured with a clock read
    per command inside the measured slices: uc_bench before slice timing
    recorded every command's latency there (no "lat_n" in its output)."""
    return any("lat_n" not in side and side["lat_ns"].get("p50") is not None
               for c in of(comps, question) for s in ("a", "b")
               for side in c[s].values())


def busy_source(comps):
    """How the guest's busy time of these results was measured: "nohz"
    (elapsed x CPUs minus the idle and iowait ns of /proc/timer_list) or
    "ticks" (user+system+irq of /proc/stat, tick-sampled)."""
    srcs = {side.get("busy_src", "ticks") for c in comps.values()
            for s in ("a", "b") for side in c[s].values()}
    return "ticks" if "ticks" in srcs else "nohz"


def md_answer(ctx):
    comps, env = ctx["comps"], ctx["env"]
    nboots = len(ctx["boots"])
    pairs = sorted({len(c["rows"]) for c in comps.values()})
    lines = ["# Results", ""]
    if ctx.get("synthetic"):
        lines += ["**Synthetic data**: these results were made up by a test "
                  "fixture (tests/host/bench_fake_results.py); no figure below "
                  "was measured.", ""]
    if ctx.get("icount") and ctx["icount"][0]:
        lines += ["In instructions per command, which do not drift from run to run, "
                  "the section *Instructions per command (QEMU icount)* answers "
                  "first; what follows here is wall-clock time.", ""]
    lines += [f"1. **{QUESTIONS['bdev']}** (IOPS): {answer_bdev(comps)}.",
             f"2. **{QUESTIONS['uring']}** (Identify on /dev/nvme0n1): "
             f"{answer_uring(comps)}.",
             f"3. **{QUESTIONS['query']}** (BLKBSZGET, throughput): "
             f"{answer_query(comps)}.", "",
             f"Each figure: the median, over {'/'.join(map(str, pairs)) or 'no'} "
             f"pairs from {nboots} boot{'s' if nboots != 1 else ''}, of the "
             f"ratio of two paths alternated in slices within one boot (A B, "
             f"B A, ...), with its 95 % interval from a two-level bootstrap: "
             f"{BOOTSTRAP_N:,} resamples, each drawing the boots with "
             f"replacement and then the pairs within each drawn boot, so that "
             f"the spread between boots widens the interval as it should "
             f"(seeded: the same results give the same intervals). Each boot's "
             f"median stands beside it. The verdict checks a resolved "
             f"difference first: faster or slower when the interval lies "
             f"wholly above or below 1 (\"by at most 2 %\" when it also lies "
             f"inside 0.98–1.02), within ±2 % when it includes 1 and lies "
             f"inside 0.98–1.02, unresolved when it includes 1 and leaves that "
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
    cper = ", ".join(fmt_x(v) for _, v in sorted(c["cpu_boots"].items()))
    floor = c["question"] == "floor"
    return [c["title"], fmt_ci(c["ratio"]), "—" if floor else c["verdict"], per,
            fmt_ci(c["cpu"]), "—" if floor else c["cpu_verdict"], cper,
            fmt_ci(c["add_ns"], fmt_ns, "")]


def md_comparisons(ctx):
    comps = ctx["comps"]
    if not comps:
        return ["## Comparisons", "", "No comparisons in these results.", ""]
    slices = sorted({c["slice"] for c in comps.values() if c["slice"]})
    lines = ["## Comparisons", "",
             "B ÷ A for each comparison (B named first). IOPS and CPU: the "
             "median of the per-pair ratios [95 % interval, two-level "
             "bootstrap over boots and pairs]; per boot: each boot's median; "
             "CPU verdict: the same rule on CPU per command (costlier or "
             "cheaper: the interval lies above or below 1); B − A: the time per "
             "command of B minus A's "
             f"(µs, wall time over the slice). Slices of "
             f"{', '.join(f'{s:,}' for s in slices)} commands.", ""]
    for q in QUESTIONS:
        cs = of(comps, q)
        if not cs:
            continue
        lines += [f"**{QUESTIONS[q]}**", ""]
        lines += table(["Comparison", "IOPS B ÷ A", "Verdict", "Per boot",
                        "CPU per command B ÷ A", "CPU verdict", "Per boot",
                        "B − A (µs per command)"],
                       "lrlrrlrr", [comp_row(c) for c in cs])
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
             "(getrusage, all threads) over its commands; guest busy: "
             + ("the slices' elapsed time times the guest's CPUs minus every "
                "CPU's idle and iowait time, which the kernel's nohz "
                "accounting keeps in ns (/proc/timer_list), interrupts and "
                "kernel threads included."
                if busy_source(ctx["comps"]) == "nohz" else
                "every CPU's user, system and interrupt time in /proc/stat, "
                "summed over the slices. **Tick-sampled in this run**: "
                "/proc/stat's non-idle columns are charged a tick at a time "
                "(10 ms) to whatever runs when the tick lands and miss short "
                "bursts between idle periods, so this figure undercounts "
                "interrupt-driven paths (it falls below the process's own "
                "time there) and is not comparable across paths; uc_bench "
                "now measures it from the nohz idle accounting instead.")
             + (" Latency: from separate latency slices after the measured "
                "ones (the measured slices read no clock per command); none "
                "for block queries and NOPs, whose per-command latency is a "
                "batch's round trip and costs a clock read as long as the "
                "query." if not clocked(ctx["comps"], "query") and not
                clocked(ctx["comps"], "bdev") else ""), ""]
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
             "A's, median over pairs [95 % interval, two-level bootstrap]). "
             "Where the interval "
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


def fn_samples(d, fn):
    """Samples of function @fn in profile @d (its share of the total), or
    None without one."""
    pct = d["share_pct"].get(fn)
    return None if pct is None else round(pct / 100 * d["samples"])


def fmt_fn(d, fn):
    n = fn_samples(d, fn)
    return "—" if n is None else f"{n:,} ({d['share_pct'][fn]:.2f} %)"


def md_costs(ctx):
    costs = ctx["costs"]
    pairs = [(a, b, t) for a, b, t in COST_PAIRS if a in costs and b in costs]
    if not pairs:
        return []
    lines = ["## Where the block node's time goes", "",
             "From the profile boot (perf, cpu-clock at 4 kHz, the benchmark "
             "process in the kernel and in user space, one run of each side): "
             "each function's samples and their share of the run's. The block "
             "node's way in (`blkdev_uring_cmd()`, `nvme_ns_bdev_uring_cmd()`) "
             "replaces the char device's (`nvme_ns_chr_uring_cmd()`, "
             "`nvme_dev_uring_cmd()`); both then run the same 6.1 functions. "
             "These are where the time goes, not how much it is: the shares "
             "include start-up and the run's end, perf slows the run it "
             "samples, TCG delivers a sample only at the end of a translated "
             "block (so it lands after the instruction that took the time), "
             "and a count of n samples varies by about √n between runs, so "
             "counts under a few dozen and differences within that are noise. "
             "How much the block node costs is the comparisons' CPU per "
             "command and the instruction counts. — : no sample. Static "
             "functions the compiler inlined count in their caller.", ""]
    for a, b, title in pairs:
        da, db = costs[a], costs[b]
        rows = []
        for fn in BDEV_ENTRY + CHAR_ENTRY + SHARED:
            if fn in da["share_pct"] or fn in db["share_pct"]:
                side = ("this series" if fn in BDEV_ENTRY else
                        "upstream, char device" if fn in CHAR_ENTRY else "shared")
                rows.append([f"`{fn}()` ({side})", fmt_fn(da, fn), fmt_fn(db, fn)])
        ea = sum(fn_samples(da, f) or 0 for f in CHAR_ENTRY)
        eb = sum(fn_samples(db, f) or 0 for f in BDEV_ENTRY)
        rows.append(["**way in, total**", f"{ea:,}", f"{eb:,}"])
        rows.append(["all samples of the run", f"{da['samples']:,}", f"{db['samples']:,}"])
        lines += [f"**{title}**: the way in has {eb:,} of {db['samples']:,} samples "
                  f"on the block node ({eb / db['samples'] * 100:.2f} %) and "
                  f"{ea:,} of {da['samples']:,} on the char device "
                  f"({ea / da['samples'] * 100:.2f} %).", ""]
        lines += table(["Function", "char device: samples (share)",
                        "block node: samples (share)"], "lrr", rows) + [""]
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


def gp_header(svg, title, width=1000, height=500, key="right"):
    """The common head of a plot: the legend outside the data, at its right
    or below it."""
    where = ("outside right top vertical" if key == "right"
             else "outside below center vertical maxrows 4")
    return ["set encoding utf8", f"set terminal svg size {width},{height}",
            "set termoption noenhanced", f"set output {gp_str(svg)}",
            f"set title {gp_str(title)}", "set grid",
            f"set key {where} Left reverse noopaque"]


def write_dat(tmp, name, lines):
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


# field -> (what a pair's value is, its interval in the comparison, y label)
RATIO_FIELDS = {
    "ratio": (lambda r: r[1] / r[0], "IOPS ratio B ÷ A"),
    "cpu": (lambda r: r[3] / r[2] if r[2] > 0 else None,
            "CPU per command ratio B ÷ A"),
}


def ratio_script(comps, ids, svg, tmp, title, field="ratio", logy=False, band=True):
    """One question's comparisons: every pair (dots, the boots side by
    side), each boot's median (open diamonds), the pooled median and its
    bootstrap interval (red bars); the ±2 % band only where the question's
    verdict uses it."""
    cs = [comps[i] for i in ids if i in comps]
    if not cs:
        return None
    value, ylabel = RATIO_FIELDS[field]
    boots = sorted({r[4] for c in cs for r in c["rows"]})
    pts, meds, bmeds = [], [], []
    for x, c in enumerate(cs):
        for bi, b in enumerate(boots):
            rows = [r for r in c["rows"] if r[4] == b]
            centre = x + (bi - (len(boots) - 1) / 2) * 0.22
            vals = []
            for j, r in enumerate(rows):
                v = value(r)
                if v is None:
                    continue
                vals.append(v)
                pts.append((centre + (j / max(len(rows), 1) - 0.5) * 0.18, v))
            if vals:
                bmeds.append((centre, median(vals)))
        ci = c[field]
        meds.append(f"{x} {ci['median']} {ci['lo']} {ci['hi']}")
    if not pts:
        return None
    # the range: the middle 96 % of the pairs, every interval (and the
    # band); pairs beyond it are drawn on its edge as triangles
    vals = sorted(v for _, v in pts)
    lo = min([vals[int(0.02 * (len(vals) - 1))]] + [c[field]["lo"] for c in cs]
             + [v for _, v in bmeds] + ([1 - 2 * BAND] if band else []))
    hi = max([vals[int(0.98 * (len(vals) - 1))]] + [c[field]["hi"] for c in cs]
             + [v for _, v in bmeds] + ([1 + 2 * BAND] if band else []))
    if logy:
        lo, hi = lo / 1.05, hi * 1.05
    else:
        pad = (hi - lo) * 0.05 or 0.01
        lo, hi = lo - pad, hi + pad
    inside = [f"{x} {v}" for x, v in pts if lo <= v <= hi]
    edge = [f"{x} {min(max(v, lo), hi)}" for x, v in pts if not lo <= v <= hi]
    pdat = write_dat(tmp, "pairs.dat", inside or ["NaN NaN"])
    edat = write_dat(tmp, "edge.dat", edge or ["NaN NaN"])
    bdat = write_dat(tmp, "boots.dat", [f"{x} {v}" for x, v in bmeds])
    mdat = write_dat(tmp, "med.dat", meds)
    tics = ", ".join(f"{gp_str(c['short'])} {x}" for x, c in enumerate(cs))
    script = gp_header(svg, title, 1400, 560) + [
        f"set xrange [-0.6:{len(cs) - 0.4}]", f"set xtics ({tics}) rotate by -25",
        "set bmargin 7", f"set yrange [{lo}:{hi}]",
        f"set ylabel {gp_str(ylabel + ', each pair of slices')}",
        "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lc rgb '#444444'"]
    if band:
        script.append(
            f"set object 1 rect from graph 0, first {1 - BAND} to graph 1, first "
            f"{1 + BAND} fc rgb '#cfe8cf' fs solid 1.0 noborder behind")
    if logy:
        script += ["set logscale y",
                   "set ytics (0.25, 0.5, 0.75, 0.9, 1, 1.25, 1.5, 2, 2.5, 3, 4, 6, 8)"]
    parts = [
        f"{gp_str(pdat)} using 1:2 with points pt 7 ps 0.35 lc rgb '#4a7ab5' "
        f"title 'one pair (boots side by side)'",
        f"{gp_str(edat)} using 1:2 with points pt 9 ps 0.6 lc rgb '#4a7ab5' "
        f"title 'a pair beyond the range, on its edge'",
        f"{gp_str(bdat)} using 1:2 with points pt 12 ps 1.3 lw 2 lc rgb '#202020' "
        f"title 'one boot: its median'",
        f"{gp_str(mdat)} using 1:2:3:4 with yerrorbars pt 5 ps 1.2 lw 2 lc rgb '#c03020' "
        f"title 'all boots: median, 95 % interval (two-level bootstrap)'"]
    if band:
        parts.append("NaN with boxes fc rgb '#cfe8cf' fs solid title "
                     + gp_str("±2 % (the verdict's band)"))
    script.append("plot " + ", \\\n     ".join(parts))
    return script


def nines(q):
    return -math.log10(1 - q)


def pct_script(comps, sides, svg, tmp, title):
    """Latency against percentile on a nines axis; every curve from one boot."""
    boots = None
    for cid, s in sides:
        if cid not in comps:
            return None
        have = {b for b, side in comps[cid][s].items() if side.get("cdf")}
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
    return gp_header(svg, f"{title}, boot {b} ({CAVEAT})", 1000, 600, "below") + [
        "set logscale y",
        "set xtics ('p50' 0.30103, 'p90' 1, 'p99' 2, 'p99.9' 3, 'p99.99' 4)",
        "set xrange [0.25:4.1]", "set xlabel 'percentile (nines)'",
        "set ylabel 'latency, µs (log)'", "plot " + ", \\\n     ".join(parts)]


def qd_script(meas, group, svg, tmp, title):
    """IOPS by queue depth, each path alone: a marker at each measured
    depth, lines only between depths measured next to each other."""
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
            if not per:
                pts.append("")  # a gap: no line across an unmeasured depth
                continue
            s = aggregate(per)["iops"]
            pts.append(f"{q} {s['median']} {s['min']} {s['max']}")
            label = re.sub(r" \(\d+ threads?\)", "",
                           list(per.values())[-1].get("label") or path)
        dat = write_dat(tmp, f"q{i}.dat", pts)
        parts.append(f"{gp_str(dat)} using 1:2:3:4 with yerrorlines lw 2 pt 7 "
                     f"lc {i + 1} title {gp_str(label)}")
    return gp_header(svg, f"{title} ({CAVEAT})", 1000, 620, "below") + [
        "set logscale x 2", f"set xrange [{qds[0] / 1.5}:{qds[-1] * 1.5}]",
        "set xtics (" + ", ".join(str(q) for q in qds) + ")", "set yrange [0:*]",
        "set xlabel 'queue depth (sync ioctl: threads)'",
        "set ylabel 'IOPS (median; bars: min–max over boots, not an interval)'",
        "plot " + ", \\\n     ".join(parts)]


# The floor ladder: each rung a path of a comparison (comparison, side),
# cheapest first
LADDER = (
    ("query-nop-b64", "a", "io_uring NOP, batches of 64"),
    ("query-ioctl-fast-b64", "b", "BLKBSZGET uring_cmd, batches of 64, registered file"),
    ("query-nop-b64", "b", "BLKBSZGET uring_cmd, batches of 64"),
    ("query-nop-b8", "b", "BLKBSZGET uring_cmd, batches of 8"),
    ("query-ioctl-b64", "a", "ioctl(BLKBSZGET)"),
    ("admin-floor-identify-qd1", "a", "Get Features uring_cmd, /dev/nvme0, QD 1"),
    ("bdev-char-features-qd1", "b", "Get Features uring_cmd, /dev/nvme0n1, QD 1"),
    ("admin-floor-identify-qd1", "b", "Identify uring_cmd, /dev/nvme0, QD 1"),
    ("bdev-char-identify-qd1", "b", "Identify uring_cmd, /dev/nvme0n1, QD 1"),
    ("uring-ioctl-identify-qd1", "a", "Identify NVME_IOCTL_ADMIN_CMD, /dev/nvme0n1"),
    ("bdev-char-read-qd1", "a", "Read passthrough, /dev/ng0n1, QD 1"),
    ("bdev-char-read-qd1", "b", "Read passthrough, /dev/nvme0n1, QD 1"),
)


def ladder_script(comps, svg, tmp, title):
    """CPU per command of each rung of LADDER: each boot (dots) and the
    median over boots (a bar), log scale."""
    rungs = [(cid, s, name) for cid, s, name in LADDER
             if cid in comps and any(side.get("cpu_ns_per_cmd")
                                     for side in comps[cid][s].values())]
    if not rungs:
        return None
    pts, meds = [], []
    for x, (cid, s, _) in enumerate(rungs):
        vals = [side["cpu_ns_per_cmd"] / 1000 for _, side in sorted(comps[cid][s].items())
                if side.get("cpu_ns_per_cmd")]
        pts += [f"{x + (i - (len(vals) - 1) / 2) * 0.12} {v}" for i, v in enumerate(vals)]
        meds.append(f"{x} {median(vals)}")
    pdat = write_dat(tmp, "ladder.dat", pts)
    mdat = write_dat(tmp, "ladder-med.dat", meds)
    tics = ", ".join(f"{gp_str(name)} {x}" for x, (_, _, name) in enumerate(rungs))
    return gp_header(svg, f"{title} ({CAVEAT})", 1200, 600) + [
        f"set xrange [-0.6:{len(rungs) - 0.4}]", f"set xtics ({tics}) rotate by -30",
        "set bmargin 12", "set logscale y",
        "set ylabel 'process CPU time per command, µs (log)'",
        f"plot {gp_str(mdat)} using 1:2:(0.36) with boxes fs solid 0.3 lc rgb '#4a7ab5' "
        f"title 'median over boots', "
        f"{gp_str(pdat)} using 1:2 with points pt 7 ps 0.8 lc rgb '#202020' "
        f"title 'one boot (its slices together)'"]


BDEV_IDS = [i for i, v in COMPARISONS.items() if v[0] == "bdev"]
URING_IDS = [i for i, v in COMPARISONS.items() if v[0] == "uring"]
QUERY_IDS = [i for i, v in COMPARISONS.items() if v[0] == "query"]
# name, script, title, caption, where in the page: "ratio" (after the
# comparisons) or "other" (after the paths)
PLOTS = [
    ("ratio-bdev-char.svg",
     lambda ctx, svg, tmp, t: ratio_script(ctx["comps"], BDEV_IDS, svg, tmp, t),
     f"Block node ÷ char device: IOPS, every pair ({CAVEAT})",
     "Block node ÷ char device, IOPS: every pair's ratio (dots, the boots side "
     "by side), each boot's median (diamonds), the median over all pairs and "
     "its 95 % interval from the two-level bootstrap (red), the ±2 % band of "
     "the verdict (green).", "ratio"),
    ("cpu-bdev-char.svg",
     lambda ctx, svg, tmp, t: ratio_script(ctx["comps"], BDEV_IDS, svg, tmp, t, "cpu"),
     f"Block node ÷ char device: CPU per command, every pair ({CAVEAT})",
     "Block node ÷ char device, the process's CPU time per command: the same "
     "layout; above 1 the block node costs more.", "ratio"),
    ("ratio-uring-ioctl.svg",
     lambda ctx, svg, tmp, t: ratio_script(ctx["comps"], URING_IDS, svg, tmp, t,
                                           logy=True, band=False),
     f"uring_cmd ÷ NVME_IOCTL_ADMIN_CMD, Identify: IOPS ({CAVEAT})",
     "uring_cmd ÷ the synchronous ioctl, Identify on /dev/nvme0n1: every "
     "pair's IOPS ratio (log scale), each boot's median, the median and its "
     "95 % interval.", "ratio"),
    ("ratio-query-ioctl.svg",
     lambda ctx, svg, tmp, t: ratio_script(ctx["comps"], QUERY_IDS, svg, tmp, t,
                                           band=False),
     f"Batched BLKBSZGET ÷ ioctl(): throughput ({CAVEAT})",
     "Batched block queries through BLOCK_URING_CMD_IOCTL ÷ ioctl(BLKBSZGET): "
     "every pair's throughput ratio, each boot's median, the median and its "
     "95 % interval.", "ratio"),
    ("floor-ladder.svg",
     lambda ctx, svg, tmp, t: ladder_script(ctx["comps"], svg, tmp, t),
     "The floor ladder: CPU per command, cheapest first",
     "The floor ladder: the process's CPU time per command of each path, from "
     "the slices of the comparisons it is part of, each boot (dots) and the "
     "median over boots (bars), log scale; what each rung adds over the one "
     "under it is in the Floors table, with its interval.", "ratio"),
    ("read-pct-qd1.svg",
     lambda ctx, svg, tmp, t: pct_script(
         ctx["comps"], [("bdev-char-read-qd1", "a"), ("bdev-char-read-qd1", "b")],
         svg, tmp, t),
     "Read passthrough latency, QD 1",
     "4 KiB read passthrough at QD 1, char device and block node interleaved "
     "in one boot (the first): latency by percentile, a marker at each "
     "percentile measured.", "other"),
    ("identify-pct-qd16.svg",
     lambda ctx, svg, tmp, t: pct_script(
         ctx["comps"], [("bdev-char-identify-qd16", "a"),
                        ("bdev-char-identify-qd16", "b"),
                        ("uring-ioctl-identify-qd16", "a")], svg, tmp, t),
     "Identify latency, QD 16",
     "Identify at QD 16 (the sync ioctl: 16 threads), all from one boot (the "
     "first): latency by percentile.", "other"),
    ("identify-qd.svg",
     lambda ctx, svg, tmp, t: qd_script(ctx["meas"], "identify", svg, tmp, t),
     "Identify: IOPS by queue depth",
     "Identify IOPS by queue depth, each path alone (not interleaved): a "
     "marker at each depth measured, the median over boots, bars min–max over "
     "boots (the spread, not an interval); no line across a depth a path was "
     "not measured at.", "other"),
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
    for name, fn, title, caption, where in PLOTS:
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
        out.append({"title": title, "caption": caption, "file": final,
                    "where": where})
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
        if p["where"] != which:
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
                                "verdict", "cpu_verdict", "boots", "cpu_boots",
                                "slice")}
             for c in ctx["comps"].values()]
    ms = [dict(zip(("group", "path", "qd", "iopoll"), key), **aggregate(per))
          for key, per in sorted(ctx["meas"].items())]
    return {"boots": sorted(ctx["boots"]), "env": ctx["env"],
            "method": {"interval": "two-level bootstrap (boots, then pairs "
                                   "within each), percentile 2.5-97.5",
                       "resamples": BOOTSTRAP_N, "seed": BOOTSTRAP_SEED,
                       "band": BAND},
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
    try:
        synthetic = check_synthetic(args)
    except BadInput as e:
        die(e)
    if (os.path.isdir(rdir) and icount_report.files(rdir)
            and not any(re.fullmatch(r"boot-\d+\.json", n) for n in os.listdir(rdir))):
        icount_only(args)
        return
    try:
        ctx = load(args)
    except BadInput as e:
        die(e)
    ctx["synthetic"] = synthetic
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
