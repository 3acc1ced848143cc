#!/bin/bash
# checkpatch.pl --strict over every patch of both series, with the tree's
# own script. One PASS/FAIL line per patch; exit status 1 on any finding.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
checkpatch=$top/build/linux/scripts/checkpatch.pl
[ -x "$checkpatch" ] || { echo "checkpatch.sh: no $checkpatch (run 'make kernel')" >&2; exit 1; }

failed=0
for dir in patches drivers-nvme; do
	# shellcheck disable=SC2013 # patch names have no blanks
	for patch in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/$dir/series"); do
		# build/linux is a tarball in one commit: every upstream commit id
		# a backport's Fixes: or message cites is unknown to it by
		# construction (each was looked up upstream instead).
		if out=$("$checkpatch" --strict --quiet --no-tree --show-types \
			--ignore UNKNOWN_COMMIT_ID \
			"$top/$dir/$patch" 2>&1); then
			echo "PASS checkpatch[$dir/$patch]"
		else
			echo "FAIL checkpatch[$dir/$patch]:"
			printf '%s\n' "$out" | sed 's/^/    /'
			failed=1
		fi
	done
done
exit "$failed"
