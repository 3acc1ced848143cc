# SPDX-License-Identifier: GPL-2.0
#
# wait_for SECONDS COMMAND...: run COMMAND (quietly) every 0.1 s until it
# succeeds; 1 if it still fails after SECONDS. Sourced by tests/nvmet.sh
# and tests/pair.sh.
# shellcheck shell=bash
wait_for() {
	local i=0 limit=$(( $1 * 10 ))
	shift
	while ! "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt "$limit" ] || return 1
		sleep 0.1
	done
}
