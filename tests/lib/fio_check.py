#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check a fio JSON output file against what a job was meant to do.

    fio_check.py OUT.json JOB:DIR:IOS[:BYTES] [JOB:DIR:IOS[:BYTES]...]

For each JOB (its name), the DIR ("read", "write" or "trim") side must show
exactly IOS completed I/Os of the job's block size each (io_bytes = IOS *
bs), or with BYTES, IOS I/Os ("*": any number, at least one) of BYTES in
all (a num_range= trim moves several blocks), the directions not named for
it none, and the job no error; every job
of the file must
have latency figures (completion latency mean and the 50/99/99.9th
percentiles) and submission latency samples (slat: the engine's commit hook
must report them, fio does not) for each side that did I/O. Prints one line saying what differs and exits 1,
or exits 0 silently.
"""
import json
import sys

PCTS = ("50.000000", "99.000000", "99.900000")
DIRS = ("read", "write", "trim")
SUFFIX = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def fail(msg):
    print(f"fio_check: {msg}")
    sys.exit(1)


def size(text):
    """fio's size syntax (4k, 512, 1M; kb_base 1024), None if not plain"""
    t = text.strip().lower().rstrip("ib").rstrip("b") if text else ""
    num = t.rstrip("kmg")
    if not num.isdigit() or len(t) - len(num) > 1:
        return None
    return int(num) * SUFFIX[t[len(num):]]


def block_size(data, job, ddir):
    """the job's bs for DDIR (bs=R,W,T), fio's 4096 if none; None if a range"""
    opts = dict(data.get("global options", {}))
    opts.update(job.get("job options", {}))
    if any(k in opts for k in ("bsrange", "bssplit", "blocksize_range")):
        return None
    bs = opts.get("bs", opts.get("blocksize", "4096")).split(",")
    i = DIRS.index(ddir)
    return size(bs[i] if i < len(bs) and bs[i] else bs[0])


def main():
    if len(sys.argv) < 3:
        fail("usage: fio_check.py OUT.json JOB:DIR:IOS...")
    try:
        with open(sys.argv[1]) as f:
            text = f.read()
        # fio may print notes before the JSON document
        data = json.loads(text[text.index("{"):])
    except (OSError, ValueError) as e:
        fail(f"{sys.argv[1]}: no fio JSON output ({e})")
    jobs = {j["jobname"]: j for j in data.get("jobs", [])}
    for spec in sys.argv[2:]:
        name, ddir, ios, *want = spec.split(":")
        job = jobs.get(name)
        if job is None:
            fail(f"job {name} missing from the output (jobs: {', '.join(jobs)})")
        if job.get("error", 0):
            fail(f"job {name}: error {job['error']}")
        got = job[ddir]["total_ios"]
        if (ios == "*" and not got) or (ios != "*" and got != int(ios)):
            fail(f"job {name}: {got} {ddir} I/Os, expected {ios}")
        if want:
            if job[ddir]["io_bytes"] != int(want[0]):
                fail(f"job {name}: {ddir} io_bytes {job[ddir]['io_bytes']}, expected {want[0]}")
            continue
        # each I/O moved its whole block, not only completed
        bs = block_size(data, job, ddir)
        nbytes = job[ddir]["io_bytes"]
        if bs is not None and nbytes != got * bs:
            fail(f"job {name}: {ddir} io_bytes {nbytes}, expected {got} x {bs}")
        if bs is None and (not nbytes or nbytes % got):
            fail(f"job {name}: {ddir} io_bytes {nbytes} for {got} I/Os")
    named = {}
    for spec in sys.argv[2:]:
        name, ddir = spec.split(":")[:2]
        named.setdefault(name, set()).add(ddir)
    for name, ddirs in named.items():
        for ddir in DIRS:
            got = jobs[name][ddir]["total_ios"]
            if ddir not in ddirs and got:
                fail(f"job {name}: {got} {ddir} I/Os, expected none")
    for name, job in jobs.items():
        for ddir in ("read", "write", "trim"):
            side = job[ddir]
            if not side["total_ios"]:
                continue
            clat = side.get("clat_ns", {})
            if not clat.get("mean", 0) > 0:
                fail(f"job {name}: no {ddir} completion latency")
            pct = clat.get("percentile", {})
            missing = [p for p in PCTS if not pct.get(p, 0) > 0]
            if missing:
                fail(f"job {name}: {ddir} latency percentiles {missing} missing")
            if not side.get("iops", 0) > 0:
                fail(f"job {name}: no {ddir} IOPS")
            slat = side.get("slat_ns", {})
            if not slat.get("N", 0) > 0:
                fail(f"job {name}: no {ddir} submission latency (slat) samples")


if __name__ == "__main__":
    main()
