#!/bin/bash
# checkpatch.pl --strict over every patch of both series, with the tree's
# own script. One PASS/FAIL line per patch; exit status 1 on any finding.
# KVER=6.12: the 6.12 series (patches-6.12/, drivers-nvme-6.12/) with
# 6.12's script.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
suffix=
[ "${KVER:-6.1}" = 6.1 ] || suffix=-$KVER
checkpatch=$top/build/linux$suffix/scripts/checkpatch.pl
[ -x "$checkpatch" ] || { echo "checkpatch.sh: no $checkpatch (run 'make tree${suffix:+ KVER=$KVER}')" >&2; exit 1; }

failed=0
for dir in "patches$suffix" "drivers-nvme$suffix"; do
	# shellcheck disable=SC2013 # patch names have no blanks
	for patch in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$top/$dir/series"); do
		# build/linux is a tarball in one commit: every upstream commit id
		# a backport's Fixes: or message cites is unknown to it by
		# construction (each was looked up upstream instead).
		# An upstream commit carried as such ("commit <sha> upstream.")
		# keeps upstream's message word for word: b62e0efd8a85 cites a
		# commit on a line of 76, 886f35201591 quotes a kernel log. There
		# checkpatch's long-line check gives way to ours, on our words
		# only (the "[ uringcmd: ... ]" note): over 75 only a line that
		# cites a commit, a tag or a URL. Upstream's tags stay as they
		# are too: 6.12's checkpatch wants a Closes: after a
		# Reported-by:, which d6211ebbdaa5 (6.14) does not have.
		ignore=UNKNOWN_COMMIT_ID long=
		if grep -qE '^commit [0-9a-f]{40} upstream\.$' "$top/$dir/$patch"; then
			ignore=$ignore,COMMIT_LOG_LONG_LINE,BAD_REPORTED_BY_LINK
			long=$(awk '/^---$/ { exit } /^\[ uringcmd:/ { ours = 1 }
				ours && length > 75 &&
				!/^[0-9a-f]+ \("/ && !/^[A-Za-z-]+: / && !/https?:\/\// { print }
				ours && /\]$/ { ours = 0 }' "$top/$dir/$patch")
		fi
		if out=$("$checkpatch" --strict --quiet --no-tree --show-types \
			--ignore "$ignore" \
			"$top/$dir/$patch" 2>&1) && [ -z "$long" ]; then
			echo "PASS checkpatch[$dir/$patch]"
		else
			echo "FAIL checkpatch[$dir/$patch]:"
			printf '%s\n' "$out" ${long:+"message lines over 75 characters:" "$long"} |
				sed 's/^/    /'
			failed=1
		fi
	done
done
exit "$failed"
