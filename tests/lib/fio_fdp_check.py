#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check that a fio job's writes landed on the placement handles it named.

    fio_fdp_check.py JOBFILE OUT.json BEFORE.json AFTER.json LBS

JOBFILE is the fio job as it ran (fio's uring-cmd-fdp.fio): each job's
fdp_pli= (or plids=) names indices into the namespace's list of placement
identifiers, the Reclaim Unit Handle Status descriptors in their order, and
fio deals the job's writes over them round robin from the lowest index
(fdp_pli_select=roundrobin, fio's default; another is refused here).
OUT.json is fio's JSON output: each job's completed writes (total_ios) of
bs= bytes. BEFORE.json and AFTER.json are nvme-cli's `nvme fdp status -o
json` of the namespace around the run; LBS its logical block size.

Every descriptor's Reclaim Unit Available Media Writes (RUAMW, in logical
blocks) must drop by exactly the blocks written through it, a descriptor no
job names by none. A write sent without the FDP directive (DTYPE 2, DSPEC
the identifier) lands on placement handle 0, the namespace's default, and
the drops no longer match. Reclaim units must not fill up during the run
(QEMU then starts a new one, RUAMW full again): a drop that is negative
says one did. Prints the table and what differs, exits 1; silent, 0, when
everything matches.
"""
import configparser
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fio_check import size  # noqa: E402  fio's size syntax, one parser


def fail(msg, table=""):
    print(f"fio_fdp_check: {msg}")
    if table:
        print(table, end="")
    sys.exit(1)


def jobs_of(path):
    """{job: (sorted indices, bs)} for every job section"""
    cp = configparser.ConfigParser(interpolation=None, strict=False,
                                   comment_prefixes=("#", ";"),
                                   default_section="global")
    cp.optionxform = str
    with open(path, encoding="utf-8") as f:
        cp.read_file(f)
    jobs = {}
    for name in cp.sections():
        sec = cp[name]
        sel = sec.get("fdp_pli_select", sec.get("plid_select", "roundrobin"))
        if sel != "roundrobin":
            fail(f"{name}: fdp_pli_select={sel}: only roundrobin is checked")
        plis = sec.get("fdp_pli", sec.get("plids"))
        if plis is None:
            fail(f"{name}: no fdp_pli= (every placement identifier: not checked here)")
        idx = set()
        for part in plis.split(","):
            lo, _, hi = part.partition("-")
            idx.update(range(int(lo), int(hi or lo) + 1))
        bs = size(sec.get("bs", "4k"))
        if bs is None:
            fail(f"{name}: bs={sec.get('bs')}: not one plain block size")
        jobs[name] = (sorted(idx), bs)
    return jobs


def ruhs_of(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    descs = data.get("ruhss")
    if not isinstance(descs, list) or len(descs) != int(data.get("nruhsd", -1)):
        fail(f"{path}: not nvme-cli's fdp status JSON (nruhsd and ruhss): {data}")
    return [(int(d["pid"]), int(d["ruhid"]), int(d["ruamw"])) for d in descs]


def main():
    if len(sys.argv) != 6:
        fail("usage: fio_fdp_check.py JOBFILE OUT.json BEFORE.json AFTER.json LBS")
    jobs = jobs_of(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8") as f:
        out = {j["jobname"]: j for j in json.load(f)["jobs"]}
    before, after = ruhs_of(sys.argv[3]), ruhs_of(sys.argv[4])
    lbs = int(sys.argv[5])
    if [d[:2] for d in before] != [d[:2] for d in after]:
        fail(f"the placement identifiers changed during the run: {before} then {after}")

    want = [0] * len(before)
    who = [[] for _ in before]
    for name, (idx, bs) in jobs.items():
        if name not in out:
            fail(f"job {name} is not in {sys.argv[2]}")
        if out[name].get("error"):
            fail(f"job {name} ended with error {out[name]['error']}")
        writes = int(out[name]["write"]["total_ios"])
        if writes == 0:
            fail(f"job {name} wrote nothing: nothing to place")
        for k, i in enumerate(idx):
            if i >= len(before):
                fail(f"job {name}: fdp_pli index {i}, the namespace has {len(before)}")
            ios = writes // len(idx) + (1 if k < writes % len(idx) else 0)
            want[i] += ios * bs // lbs
            who[i].append(f"{name} {ios}")

    table = "index  pid  ruhid  RUAMW dropped  expected (job writes)\n"
    bad = []
    for i, ((pid, ruhid, b), (_, _, a)) in enumerate(zip(before, after)):
        got = b - a
        table += f"{i:5}  {pid:3}  {ruhid:5}  {got:13}  {want[i]:8} ({', '.join(who[i]) or 'none'})\n"
        if got != want[i]:
            bad.append(f"index {i} (pid {pid}) dropped {got} blocks, expected {want[i]}")
    if bad:
        fail("writes did not land on the placement handles fio chose: " + "; ".join(bad),
             table)


main()
