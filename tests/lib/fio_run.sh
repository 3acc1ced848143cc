# SPDX-License-Identifier: GPL-2.0
# run_job for the fio tests (tests/fio/*.sh source it from $TEST_LIB):
# fio with JSON output, then fio_check.py over it. The sourcing script sets
# fio, check and work, and defines fail.
# shellcheck shell=bash disable=SC2154 # the sourcing script's variables

# run_job NAME FIO-ARGS... -- CHECKS...
run_job() {
	local name=$1 args=() rc=0
	shift
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	"$fio" --output-format=json --output="$work/$name.json" "${args[@]}" \
		>"$work/$name.out" 2>&1 || rc=$?
	[ "$rc" = 0 ] ||
		fail "$name: fio exited $rc: $(grep -h -m 2 'uringcmd\|error\|fio:' "$work/$name.out" "$work/$name.json" 2>/dev/null | tr '\n' ' ')"
	python3 "$check" "$work/$name.json" "$@" || fail "$name: output check failed"
}
