#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Write made-up benchmark results, only to exercise bench/report.py.

usage: bench/fake_results.py DIR [--boots N] [--seed S] [--omit GROUP/PATH]...
                             [--no-env] [--no-iopoll]

Writes DIR/boot-1.json ... boot-N.json (default 3) and DIR/env.json in the
schema report.py reads, with every group and path the benchmark measures.
The figures are random (seeded, so the same arguments give the same files)
around a rough model of a TCG guest: a fixed latency at queue depth 1 and a
ceiling each path saturates at. The numbers mean nothing; a few targets are
deliberately missed so the report's MISSED rows get exercised. --omit drops a
path (repeatable), --no-iopoll the iopoll=true read4k runs.
"""
import argparse
import json
import os
import random
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
        # pt-bdev polls worse at depth: a MISSED row in the report
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
        write_json(os.path.join(args.dir, f"boot-{boot}.json"), {
            "boot": boot, "kernel": "6.1.192-g007529734fd0", "accel": "tcg",
            "guest_cpus": 2, "guest_mem_mb": 2048, "results": res})
    if not args.no_env:
        write_json(os.path.join(args.dir, "env.json"), {
            "host_cpu": "Fake CPU @ 2.0GHz (2 cores)",
            "host_kernel": "6.1.0-fake-amd64",
            "qemu": "QEMU emulator version 7.2.19 (Debian 1:7.2+dfsg-7+deb12u16)",
            "date": "2025-01-01T00:00:00Z", "commit": "0123456789ab (fake)",
            "boots": args.boots,
            "counts": {"warmup": 2000, "measured": 20000}})


if __name__ == "__main__":
    try:
        main()
    except OSError as e:
        sys.exit(f"fake_results.py: {e}")
