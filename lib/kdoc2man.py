#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Man pages (section 3) from the kernel-doc comments of lib/'s headers.

    kdoc2man.py OUTDIR VERSION HEADER...

One page per documented function, named after it: NAME from the summary
line, SYNOPSIS the #include and the declaration as written, ARGUMENTS the
@name: lines, DESCRIPTION the body, RETURN VALUE its "Return:" paragraph,
SEE ALSO the functions of the library it names. Functions under liburing's
own names (io_uring_prep_*: defined here only for a liburing that lacks
them) get no page, so that liburing's own pages are never shadowed.
The comments follow the kernel's kernel-doc format
(Documentation/doc-guide/kernel-doc.rst), a subset of it: what these
headers use. The kernel's scripts/kernel-doc would need a kernel tree
beside the library, which a user of `make install` need not have.
"""
import os
import re
import sys

COMMENT = re.compile(r"/\*\*\n?((?:(?!\*/).)*)\*/\s*\n(static inline [^{;]*?)\s*\{", re.S)
SUMMARY = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\(\)\s+-\s+(.*)$")


def roff(text):
    """Escape text for roff; @arg and name() in bold, as man pages do."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    text = re.sub(r"@([A-Za-z_][A-Za-z0-9_]*)", r"\\fI\1\\fP", text)
    text = re.sub(r"\b([A-Za-z_][A-Za-z0-9_]*\(\))", r"\\fB\1\\fP", text)
    return "\n".join("\\&" + line if line.startswith((".", "'")) else line
                     for line in text.split("\n"))


def parse(comment):
    """(name, summary, [(arg, desc)], body paragraphs, return text)"""
    lines = [re.sub(r"^\s*\* ?", "", l) for l in comment.strip().split("\n")]
    lines = [l for l in lines if l.strip() != "*"] if len(lines) == 1 else lines
    m = SUMMARY.match(lines[0].rstrip(" */"))
    if not m:
        return None
    name, summary = m.group(1), m.group(2).strip()
    args, paras, ret, cur = [], [[]], [], None
    for line in lines[1:]:
        a = re.match(r"^@([A-Za-z_][A-Za-z0-9_]*|\.\.\.):\s*(.*)$", line)
        if a:
            args.append([a.group(1), a.group(2)])
            cur = "arg"
        elif cur == "arg" and line.startswith(("\t", " ")) and line.strip():
            args[-1][1] += " " + line.strip()
        elif line.startswith("Return:"):
            ret.append(line[len("Return:"):].strip())
            cur = "ret"
        elif cur == "ret" and line.strip():
            ret.append(line.rstrip())
        elif not line.strip():
            if cur != "ret" and paras[-1]:
                paras.append([])
            cur = None if cur == "arg" else cur
        else:
            paras[-1].append(line.rstrip())
            cur = "body"
    paras = [p for p in paras if p]
    return name, summary, args, paras, " ".join(ret)


def page(name, summary, args, paras, ret, decl, header, siblings, version):
    out = [f'.TH {name} 3 "" "uringcmd {version}" "uringcmd Manual"',
           ".SH NAME", f"{name} \\- {roff(summary)}",
           ".SH SYNOPSIS", ".nf", f".B #include <{header}>", ".PP",
           roff(re.sub(r"^static inline\s+", "", decl.strip())) + ";", ".fi"]
    if args:
        out.append(".SH ARGUMENTS")
        for arg, desc in args:
            out += [".TP", f".I {arg}", roff(desc)]
    if paras:
        out.append(".SH DESCRIPTION")
        for i, p in enumerate(paras):
            if i:
                out.append(".PP")
            # indented lines (lists, code) keep their lines
            if any(l.startswith(("\t", "  ")) for l in p):
                out += [".nf", roff("\n".join(p)), ".fi"]
            else:
                out.append(roff(" ".join(l.strip() for l in p)))
    if ret:
        out += [".SH RETURN VALUE", roff(ret)]
    text = " ".join([summary, ret] + [d for _, d in args] +
                    [" ".join(p) for p in paras])
    see = sorted(s for s in siblings if s != name and s + "()" in text)
    if see:
        out.append(".SH SEE ALSO")
        out.append(",\n".join(f".BR {s} (3)" for s in see))
    return "\n".join(out) + "\n"


def main():
    outdir, version, headers = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(outdir, exist_ok=True)
    count = 0
    for path in headers:
        src = open(path).read()
        docs = []
        for m in COMMENT.finditer(src):
            doc = parse(m.group(1))
            if doc and not doc[0].startswith("io_uring_"):
                if doc[0] not in m.group(2):
                    sys.exit(f"{path}: the comment of {doc[0]}() sits on "
                             f"another declaration")
                docs.append((doc, m.group(2)))
        names = [d[0][0] for d in docs]
        for (name, summary, args, paras, ret), decl in docs:
            with open(os.path.join(outdir, name + ".3"), "w") as f:
                f.write(page(name, summary, args, paras, ret, decl,
                             os.path.basename(path), names, version))
            count += 1
    if not count:
        sys.exit("no documented function found")


if __name__ == "__main__":
    main()
