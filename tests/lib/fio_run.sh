# SPDX-License-Identifier: GPL-2.0
# run_job for the fio tests (tests/fio/*.sh source it from $TEST_LIB):
# fio with JSON output, then fio_check.py over it. The sourcing script sets
# fio, check and work, and defines fail.
# shellcheck shell=bash disable=SC2154 # the sourcing script's variables

# run_job [--normal] NAME FIO-ARGS... -- CHECKS...: no job runs past 300 s;
# --normal keeps fio's normal output beside the JSON in $work/NAME.all (what
# only that output says, such as fio's zone resets)
run_job() {
	local fmt=json out name args=() rc=0
	if [ "$1" = --normal ]; then
		fmt=json,normal
		shift
	fi
	name=$1
	shift
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	out=$work/$name.json
	[ "$fmt" = json ] || out=$work/$name.all
	timeout -k 5 300 "$fio" --output-format="$fmt" --output="$out" "${args[@]}" \
		>"$work/$name.out" 2>&1 || rc=$?
	[ "$rc" = 0 ] ||
		fail "$name: fio exited $rc: $(grep -h -m 3 'uringcmd\|error\|fio:\|zone' "$work/$name.out" "$out" 2>/dev/null | tr '\n' ' ')"
	[ "$fmt" = json ] || sed -n '/^{/,/^}/p' "$out" >"$work/$name.json"
	python3 "$check" "$work/$name.json" "$@" || fail "$name: output check failed"
}

# fio_example FILE DEV SIZE [LINE]: fio's own examples/FILE, from the tree
# of the fio under test ($fio's folder), into $work/FILE for the uringcmd
# engine: ioengine=uringcmd instead of io_uring_cmd, filename=DEV instead
# of /dev/ng0n1, size=SIZE instead of its size (1G does not fit make
# test's namespaces; SIZE may be the example's own), and LINE, if given,
# after [global]; nothing else may differ. Status 1, and nothing written,
# where that tree has no FILE (fio 3.33's has fewer examples than 3.41's).
fio_example() {
	local src job=$work/$1 want=3
	src=$(dirname "$fio")/examples/$1
	[ -f "$src" ] || return 1
	sed -e 's/^ioengine=io_uring_cmd$/ioengine=uringcmd/' \
		-e "s|^filename=/dev/ng0n1\$|filename=$2|" \
		-e "s/^size=[0-9]*[KMG]\$/size=$3/" \
		${4:+-e "s/^\\[global\\]\$/&\\n$4/"} "$src" >"$job"
	[ -z "${4:-}" ] || want=$((want + 1))
	# a size= the example has already is no change
	! grep -qx "size=$3" "$src" || want=$((want - 1))
	[ "$(diff "$src" "$job" | grep -c '^>')" = "$want" ] ||
		fail "$1: not exactly ioengine=, filename=, size=${4:+ and $4} changed: $(diff "$src" "$job" | grep '^[<>]' | tr '\n' ' ')"
}
