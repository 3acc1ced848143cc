#!/bin/bash
# make help lists every target of the Makefile, one line each (but
# given-kernel, run-kernel and pair-kernel, the internal steps behind
# KERNEL=, make run and make pair).
# Prints "PASS make_help[host]" or "FAIL make_help[host]: reason".
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
name='make_help[host]'

targets=$(sed -n 's/^\([a-z][a-z-]*\):.*/\1/p' "$top/Makefile" | grep -vx -e given-kernel -e run-kernel -e pair-kernel | sort -u)
help=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u KERNEL -u DEBUG make -s -C "$top" help) || { echo "FAIL $name: make help failed"; exit 1; }
missing=$(for t in $targets; do
	grep -q "^make $t\\b" <<<"$help" || printf ' %s' "$t"
done)
if [ -n "$missing" ]; then
	echo "FAIL $name: make help does not list:$missing"
	exit 1
fi
echo "PASS $name"
