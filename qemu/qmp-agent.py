#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""QMP on behalf of the guest: run-nvme.sh --qmp-agent starts this beside
QEMU. The guest writes one QMP command (a JSON object) into DIR/req.NAME on
the results share; this sends it to QEMU's QMP socket and writes QEMU's
answer (the "return" or "error" object, events skipped) to DIR/resp.NAME.
Files appear atomically (written as .tmp, then renamed).

usage: qmp-agent.py SOCKET DIR
"""
import json
import os
import socket
import sys
import time


def connect(path, deadline):
    while True:
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def answer(f):
    """The next line that is not an event."""
    while True:
        line = f.readline()
        if not line:
            raise EOFError("QMP socket closed")
        msg = json.loads(line)
        if "event" not in msg:
            return msg


def main():
    sock_path, req_dir = sys.argv[1], sys.argv[2]
    s = connect(sock_path, time.monotonic() + 60)
    f = s.makefile("rw")
    answer(f)  # greeting
    f.write(json.dumps({"execute": "qmp_capabilities"}) + "\n")
    f.flush()
    answer(f)
    while True:
        for name in sorted(os.listdir(req_dir)):
            if not name.startswith("req.") or name.endswith(".tmp"):
                continue
            req = os.path.join(req_dir, name)
            with open(req) as r:
                cmd = r.read()
            os.unlink(req)
            try:
                f.write(json.dumps(json.loads(cmd)) + "\n")
                f.flush()
                resp = answer(f)
            except ValueError as e:
                resp = {"error": {"class": "AgentError", "desc": str(e)}}
            out = os.path.join(req_dir, "resp." + name[4:])
            with open(out + ".tmp", "w") as w:
                w.write(json.dumps(resp) + "\n")
            os.rename(out + ".tmp", out)
        time.sleep(0.05)


if __name__ == "__main__":
    try:
        main()
    except (EOFError, OSError, KeyboardInterrupt):
        pass
