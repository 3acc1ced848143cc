#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The verdict of make check, from what each step printed and how it ended.
#
#   tally.sh [-k plain|debug|unknown] [-a ALLOWLIST] STEPS
#
# STEPS has one line per step, fields split by tabs:
#   gate|guest  NAME  EXIT-STATUS  LOG  [WHERE-TO-LOOK]
# LOG holds everything the step printed. Every "PASS ", "FAIL " and "SKIP "
# line of the logs counts, and these count as failures too, each printed
# as a FAIL line:
#   - a gate that exited non-zero without printing a FAIL line;
#   - a guest without its "NAME: N passed, N failed, N skipped" line, whose
#     numbers disagree with its lines, or whose status is not 0 (nothing
#     failed) or 1 (something failed);
#   - a guest in which no test passed, or no guest at all;
#   - a SKIP that no entry of ALLOWLIST (tests/expected-skips) matches for
#     the kernel: "FAIL NAME: unexpected skip: REASON". The kernel is what
#     a "# kernel: plain|debug" line earlier in the same log says (run.sh
#     prints one), else -k's.
# Then prints "N passed, N failed, N skipped" and exits 1 if anything
# failed (2: bad usage).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
kernel=unknown
allowlist=$here/expected-skips

usage() {
	echo "usage: tally.sh [-k plain|debug|unknown] [-a ALLOWLIST] STEPS" >&2
	exit 2
}

while getopts k:a: opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	a) allowlist=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || usage
steps=$1
[ -r "$steps" ] || { echo "tally.sh: cannot read $steps" >&2; exit 2; }
[ -r "$allowlist" ] || { echo "tally.sh: cannot read $allowlist" >&2; exit 2; }

passed=0 failed=0 skipped=0 guests=0

fail() {
	failed=$((failed + 1))
	echo "FAIL $1: $2"
}

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	printf '%s' "${s%"${s##*[![:space:]]}"}"
}

# glob_re PATTERN: an ERE for PATTERN, in which only "*" is special
glob_re() {
	printf '%s' "$1" | sed -e 's/[].[^$\\+?(){}|]/\\&/g' -e 's/\*/.*/g'
}

# The allowlist as "KERNEL<tab>NAME-ERE<tab>REASON-ERE" lines.
allowed_re=$(
	while IFS='|' read -r k name reason _; do
		k=$(trim "$k")
		case $k in '' | '#'*) continue ;; esac
		printf '%s\t%s\t%s\n' "$k" "$(glob_re "$(trim "$name")")" \
			"$(glob_re "$(trim "$reason")")"
	done <"$allowlist"
)

# expected_skip NAME REASON: is this skip on the allowlist for this kernel?
expected_skip() {
	local k name_re reason_re
	while IFS=$'\t' read -r k name_re reason_re; do
		[ -n "$k" ] || continue
		[ "$k" = any ] || [ "$k" = "$log_kernel" ] || continue
		if [[ $1 =~ ^${name_re}$ ]] && [[ $2 =~ ^${reason_re}$ ]]; then
			return 0
		fi
	done <<<"$allowed_re"
	return 1
}

# count: tally the lines of $log, the log of step $step; sets p, f, s (as
# printed) and summary (the numbers of its "$step: N passed, N failed, N
# skipped" line, if any)
count() {
	local line name reason
	p=0 f=0 s=0 summary='' log_kernel=$kernel
	while IFS= read -r line; do
		case $line in
		'# kernel: '*)
			log_kernel=${line#'# kernel: '}
			;;
		'PASS '*)
			p=$((p + 1))
			;;
		'FAIL '*)
			f=$((f + 1))
			;;
		'SKIP '*)
			s=$((s + 1))
			line=${line#SKIP }
			name=${line%%: *}
			reason=
			[ "$name" = "$line" ] || reason=${line#*: }
			if expected_skip "$name" "$reason"; then
				skipped=$((skipped + 1))
			else
				fail "$name" "unexpected skip: $reason"
			fi
			;;
		*': '[0-9]*' passed, '[0-9]*' failed, '[0-9]*' skipped')
			if [ "${line%%: [0-9]*}" = "$step" ]; then
				line=${line#"$step: "}
				summary=$(printf '%s' "$line" | tr -dc '0-9 ' | tr -s ' ')
			fi
			;;
		esac
	done <"$log"
	passed=$((passed + p))
	failed=$((failed + f))
}

# last_words LOG: its last line that is neither empty nor a verdict
last_words() {
	grep -v -E '^(PASS|SKIP) |^[[:space:]]*$' "$1" | tail -n 1 || true
}

while IFS=$'\t' read -r kind step status out hint; do
	[ -n "$kind" ] || continue
	log=$out
	[ -f "$log" ] || log=/dev/null
	where="output: $out${hint:+, $hint}"
	count
	case $kind in
	gate)
		if [ "$status" != 0 ] && [ "$f" = 0 ]; then
			last=$(last_words "$log")
			fail "$step" "exited $status without a FAIL line${last:+: $last} ($where)"
		fi
		;;
	guest)
		guests=$((guests + 1))
		read -r sp sf ss <<<"${summary:-- - -}"
		if [ -z "$summary" ]; then
			fail "$step" "exited $status without its summary line ($where)"
		elif [ "$sp $sf $ss" != "$p $f $s" ]; then
			fail "$step" "its summary says $sp passed, $sf failed, $ss skipped, its lines $p, $f, $s ($where)"
		elif [ "$status" != $((f > 0)) ]; then
			fail "$step" "exited $status with $f failed ($where)"
		elif [ "$p" = 0 ]; then
			fail "$step" "no test passed ($where)"
		fi
		;;
	*)
		echo "tally.sh: $steps: unknown step kind '$kind'" >&2
		exit 2
		;;
	esac
done <"$steps"

[ "$guests" != 0 ] || fail "make check" "no guest ran"

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
