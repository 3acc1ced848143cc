#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Made-up benchmark results: a test fixture for bench/report.py.

usage: tests/host/bench_fake_results.py DIR [--boots N] [--seed S]
                                        [--omit GROUP/PATH]... [--no-env]
                                        [--no-iopoll]

Writes DIR/boot-1.json ... boot-N.json (default 3) and DIR/env.json in the
schema bench/report.py reads, every one marked "synthetic": true, which
report.py refuses without --allow-synthetic and never writes into the
committed RESULTS.md or bench/plots. The figures are random (seeded: the
same arguments give the same files) and mean nothing.

What they exercise in the report: the comparisons of bench/run.sh (uc_bench
pair, the ids of report.py's COMPARISONS: block node ÷ char device, uring_cmd
÷ ioctl, batched queries ÷ ioctl(), the floors), each with 32 pairs per
boot around a made-up ratio, so that the verdicts come out mixed (within,
resolved inside the band, resolved outside it, unresolved); the single
points of every group (floor, identify, smart, query, read4k, fio), from a
rough model of a TCG guest (a latency at QD 1 and a ceiling each path
saturates at); and the profile boot's cost-*.json (sample shares), so the
section on where the block node's time goes is drawn. --omit drops a point
(repeatable), --no-iopoll the polled read4k points, --no-env env.json (the
boot files still say they are synthetic).
"""
import argparse
import json
import os
import random
import statistics
import sys

QDS = [1, 4, 16, 32]
# group -> [(path, label, qds, qd-1 latency in us, ceiling in IOPS)]
MODEL = {
    "floor": [
        ("nop", "io_uring NOP", [1, 32], 4.0, 400000),
        ("nullco-read", "4 KiB O_DIRECT io_uring read, null-co namespace",
         [1, 32], 45.0, 60000),
    ],
    "identify": [
        ("ioctl-bdev", "sync NVME_IOCTL_ADMIN_CMD on /dev/nvme0n1",
         QDS, 120.0, 11000),
        ("uring-char", "uring_cmd on /dev/nvme0 (upstream)", QDS, 95.0, 60000),
        ("uring-bdev", "uring_cmd on /dev/nvme0n1", QDS, 96.0, 59000),
    ],
    "smart": [
        ("ioctl-bdev", "sync NVME_IOCTL_ADMIN_CMD on /dev/nvme0n1",
         QDS, 140.0, 9500),
        ("uring-char", "uring_cmd on /dev/nvme0 (upstream)", QDS, 110.0, 50000),
        ("uring-bdev", "uring_cmd on /dev/nvme0n1", QDS, 112.0, 48000),
    ],
    "read4k": [
        ("uring-read-bdev", "io_uring read O_DIRECT on /dev/nvme0n1",
         [1, 32], 70.0, 40000),
        ("pt-ng", "passthrough read on /dev/ng0n1", [1, 32], 72.0, 38000),
        ("pt-bdev", "passthrough read on /dev/nvme0n1", [1, 32], 73.0, 37500),
    ],
    "fio": [
        ("fio-uringcmd-bdev", "fio ioengine=uringcmd on /dev/nvme0n1",
         [1, 32], 80.0, 36000),
        ("fio-io_uring_cmd-ng", "fio ioengine=io_uring_cmd on /dev/ng0n1",
         [1, 32], 79.0, 37000),
        ("fio-io_uring-bdev", "fio ioengine=io_uring O_DIRECT on /dev/nvme0n1",
         [1, 32], 77.0, 39000),
    ],
}
QUERY_IOCTL_US = 2.5            # one ioctl(BLKBSZGET)
# comparison -> (A path, A label, B path, B label, QD, A IOPS, B/A ratio,
# B/A CPU per command)
PAIRS = {
    "bdev-char-read-qd1": ("pt-ng", "passthrough on /dev/ng0n1", "pt-bdev",
                           "passthrough on /dev/nvme0n1", 1, 9000, 0.995, 1.01),
    "bdev-char-read-qd16": ("pt-ng", "passthrough on /dev/ng0n1", "pt-bdev",
                            "passthrough on /dev/nvme0n1", 16, 40000, 1.0, 1.0),
    "bdev-char-read-fast-qd1": ("pt-ng", "fast, /dev/ng0n1", "pt-bdev",
                                "fast, /dev/nvme0n1", 1, 9500, 0.99, 1.0),
    "bdev-char-read-fast-qd16": ("pt-ng", "fast, /dev/ng0n1", "pt-bdev",
                                 "fast, /dev/nvme0n1", 16, 42000, 0.97, 1.03),
    "bdev-char-identify-qd1": ("uring-char", "Identify on /dev/nvme0", "uring-bdev",
                               "Identify on /dev/nvme0n1", 1, 9000, 0.99, 1.01),
    "bdev-char-identify-qd16": ("uring-char", "Identify on /dev/nvme0", "uring-bdev",
                                "Identify on /dev/nvme0n1", 16, 80000, 0.985, 1.02),
    "bdev-char-read-poll-qd1": ("pt-ng", "polled, /dev/ng0n1", "pt-bdev",
                                "polled, /dev/nvme0n1", 1, 14000, 1.0, 1.0),
    "bdev-char-features-qd1": ("uring-char", "Get Features on /dev/nvme0", "uring-bdev",
                               "Get Features on /dev/nvme0n1", 1, 12000, 0.98, 1.02),
    "uring-ioctl-identify-qd1": ("ioctl-bdev", "ioctl, 1 thread", "uring-bdev",
                                 "uring_cmd", 1, 10000, 0.9, 1.1),
    "uring-ioctl-identify-qd16": ("ioctl-bdev", "ioctl, 16 threads", "uring-bdev",
                                  "uring_cmd", 16, 30000, 2.6, 0.4),
    "query-ioctl-b8": ("ioctl", "ioctl(BLKBSZGET)", "uring", "batches of 8", 8,
                       900000, 1.3, 0.8),
    "query-ioctl-fast-b8": ("ioctl", "ioctl(BLKBSZGET)", "uring-fast", "fast, 8", 8,
                            900000, 1.4, 0.75),
    "query-nop-b8": ("nop", "NOP, 8", "uring", "batches of 8", 8, 2000000, 0.6, 1.6),
    "query-ioctl-b64": ("ioctl", "ioctl(BLKBSZGET)", "uring", "batches of 64", 64,
                        900000, 1.8, 0.55),
    "query-ioctl-fast-b64": ("ioctl", "ioctl(BLKBSZGET)", "uring-fast", "fast, 64", 64,
                             900000, 1.95, 0.5),
    "query-nop-b64": ("nop", "NOP, 64", "uring", "batches of 64", 64, 3000000, 0.55,
                      1.8),
    "admin-floor-identify-qd1": ("features-char", "Get Features on /dev/nvme0",
                                 "uring-char", "Identify on /dev/nvme0", 1, 12000, 0.8,
                                 1.1),
}
QUERY_SUBMIT_US, QUERY_CMD_US = 5.0, 0.8   # one io_uring_enter, one command


def parse_args():
    p = argparse.ArgumentParser(description="fake benchmark results")
    p.add_argument("dir")
    p.add_argument("--boots", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--omit", action="append", default=[],
                   metavar="GROUP/PATH")
    p.add_argument("--no-env", action="store_true")
    p.add_argument("--no-iopoll", action="store_true")
    return p.parse_args()


def percentile(sorted_vals, frac):
    i = min(len(sorted_vals) - 1, int(frac * len(sorted_vals)))
    return sorted_vals[i]


def latencies(rng, mean_us, count=4000):
    """Log-normal body plus a rare slow tail, in ns, sorted."""
    vals = []
    for _ in range(count):
        v = mean_us * rng.lognormvariate(-0.03, 0.25)
        if rng.random() < 0.005:
            v *= rng.uniform(3, 10)
        vals.append(v * 1000)
    return sorted(vals)


def result(rng, group, path, label, qd, iopoll, iops, lat_us):
    lat = latencies(rng, lat_us)
    cdf = [[round(percentile(lat, i / 100)), i / 100] for i in range(100)]
    cdf.append([round(lat[-1]), 1.0])
    return {
        "group": group, "path": path, "label": label, "qd": qd,
        "iopoll": iopoll, "n": 20000, "iops": round(iops, 1),
        "lat_ns": {
            "mean": round(sum(lat) / len(lat)), "min": round(lat[0]),
            "p50": round(percentile(lat, 0.5)),
            "p99": round(percentile(lat, 0.99)),
            "p999": round(percentile(lat, 0.999)), "max": round(lat[-1]),
        },
        "cdf": cdf,
    }


def modelled(rng, boot_f, group, entry, qd, iopoll):
    """IOPS from a qd-1 latency and a ceiling; latency by Little's law."""
    path, label, _, lat1, ceiling = entry
    if iopoll:
        lat1 *= 0.85
        # pt-bdev polls worse at depth
        ceiling *= 0.97 if path == "pt-bdev" else 1.05
    noise = boot_f * rng.gauss(1, 0.02)
    iops = noise / (lat1 * 1e-6 / qd + 1 / ceiling)
    return result(rng, group, path, label, qd, iopoll, iops, qd / iops * 1e6)


def query_results(rng, boot_f):
    out = [result(rng, "query", "ioctl", "ioctl(BLKBSZGET) per call", 1,
                  False, boot_f * 1e6 / QUERY_IOCTL_US, QUERY_IOCTL_US)]
    for batch in (1, 8, 32, 64):
        batch_us = QUERY_SUBMIT_US + batch * QUERY_CMD_US
        iops = boot_f * rng.gauss(1, 0.02) * batch / batch_us * 1e6
        out.append(result(rng, "query", "uring",
                          f"BLKBSZGET as uring_cmd, batches of {batch}",
                          batch, False, iops, batch_us))
    return out


def median_ci(v):
    """Median and the sign test's 95 % interval, as uc_bench computes them."""
    v, n = sorted(v), len(v)
    med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    p, cdf, k = 0.5 ** n, 0, 0
    for j in range(n):
        if cdf + p > 0.025:
            break
        cdf, k, p = cdf + p, j + 1, p * (n - j) / (j + 1)
    return {"median": med, "lo": v[max(k, 1) - 1], "hi": v[n - max(k, 1)]}


def pair_results(rng, boot_f, npairs=32, slice_n=2000):
    out = []
    for cid, (pa, la, pb, lb, qd, iops, r, c) in PAIRS.items():
        rows = []
        if cid == "bdev-char-read-poll-qd1":
            r *= rng.gauss(1, 0.03)  # boots that disagree: an unresolved verdict
        for _ in range(npairs):
            ia = boot_f * iops * rng.gauss(1, 0.04)
            ib = ia * r * rng.gauss(1, 0.015)
            ca = 1e9 / iops * rng.gauss(1, 0.02) * (2 if qd > 1 else 1) / 2
            rows.append([ia, ib, ca, ca * c * rng.gauss(1, 0.02)])
        a = result(rng, cid, pa, la, qd, False, statistics.median(x[0] for x in rows),
                   qd / iops * 1e6)
        b = result(rng, cid, pb, lb, qd, False, statistics.median(x[1] for x in rows),
                   qd / iops / r * 1e6)
        for pt, col in ((a, 2), (b, 3)):
            pt["n"] = npairs * slice_n
            pt["cpu_ns_per_cmd"] = statistics.median(x[col] for x in rows)
            pt["busy_ns_per_cmd"] = pt["cpu_ns_per_cmd"] * 1.3
            pt["busy_src"] = "nohz"     # as uc_bench writes it now
            pt["lat_n"] = 4 * 2 * slice_n  # its latency slices
        ratio = median_ci([x[1] / x[0] for x in rows])
        lo, hi = ratio["lo"], ratio["hi"]
        inside = lo >= 0.98 and hi <= 1.02
        verdict = ("faster" if lo > 1 else "slower" if hi < 1 else
                   "within" if inside else "unresolved")
        if inside and verdict != "within":
            verdict += ", by at most 2 %"
        out.append({"kind": "pair", "group": cid, "slice": slice_n, "pairs_n": npairs,
                    "band": 0.02, "a": a, "b": b, "pairs": rows,
                    "cpu_ratio": median_ci([x[3] / x[2] for x in rows]),
                    "add_ns": median_ci([1e9 / x[1] - 1e9 / x[0] for x in rows]),
                    "ratio": ratio, "verdict": verdict})
    return out


def boot_results(rng, iopoll):
    boot_f = rng.gauss(1, 0.03)
    out = []
    for group, entries in MODEL.items():
        for entry in entries:
            for qd in entry[2]:
                polls = [False, True] if group == "read4k" and iopoll else [False]
                for poll in polls:
                    out.append(modelled(rng, boot_f, group, entry, qd, poll))
    return out + query_results(rng, boot_f)


def write_json(path, doc):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    args = parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.dir, exist_ok=True)
    for boot in range(1, args.boots + 1):
        res = [r for r in boot_results(rng, not args.no_iopoll)
               if f'{r["group"]}/{r["path"]}' not in args.omit]
        pairs = pair_results(rng, rng.gauss(1, 0.1))
        write_json(os.path.join(args.dir, f"boot-{boot}.json"), {
            "synthetic": True, "boot": boot, "kernel": "6.1.192-g007529734fd0", "accel": "tcg",
            "guest_cpus": 2, "guest_mem_mb": 2048, "results": res,
            "pairs": pairs})
    if not args.no_env:
        write_json(os.path.join(args.dir, "env.json"), {
            "synthetic": True, "host_cpu": "Fake CPU @ 2.0GHz (2 cores)",
            "host_kernel": "6.1.0-fake-amd64",
            "qemu": "QEMU emulator version 7.2.19 (Debian 1:7.2+dfsg-7+deb12u16)",
            "date": "2025-01-01T00:00:00Z", "commit": "0123456789ab (fake)",
            "boots": args.boots,
            "counts": {"warmup_per_point": 2000, "measured_per_point": 20000,
                       "pairs": 32, "slice": 2000}})
    write_costs(args.dir, rng)


# the profiles report.py reads (bench/profile.sh's cost-NAME.json): side ->
# {function: share %}
COSTS = {
    "features-uring-char-qd1": {"nvme_dev_uring_cmd": 0.1, "io_uring_cmd": 0.2,
                                "nvme_uring_cmd_io": 0.8},
    "features-uring-bdev-qd1": {"blkdev_uring_cmd": 0.9, "nvme_ns_bdev_uring_cmd": 0.6,
                                "io_uring_cmd": 0.3, "nvme_uring_cmd_io": 1.5},
    "read-pt-ng-qd16": {"nvme_ns_chr_uring_cmd": 0.1, "nvme_uring_cmd_io": 0.7},
    "read-pt-bdev-qd16": {"blkdev_uring_cmd": 0.3, "nvme_ns_bdev_uring_cmd": 0.1,
                          "nvme_uring_cmd_io": 1.2},
}


def write_costs(d, rng):
    for side, shares in COSTS.items():
        share = {fn: round(v * rng.uniform(0.8, 1.2), 2) for fn, v in shares.items()}
        share["other"] = round(100 - sum(share.values()), 2)
        write_json(os.path.join(d, f"cost-{side}.json"), {
            "synthetic": True, "n": 20000, "samples": rng.randrange(900, 6000),
            "cpu_ns_per_cmd": rng.uniform(9000, 40000), "share_pct": share})


if __name__ == "__main__":
    try:
        main()
    except OSError as e:
        sys.exit(f"bench_fake_results.py: {e}")
