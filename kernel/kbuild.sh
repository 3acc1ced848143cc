# SPDX-License-Identifier: GPL-2.0
# What the kernel scripts share, sourced by them: ccache as the kernel
# builds go through it, the progress line a minute (build.sh, deb.sh), and
# which tree and configs KVER names (tree.sh, bisect.sh, warnings.sh).
# shellcheck shell=bash

# kbuild_ccache CHECKOUT: paths relative to the checkout, so that another
# clone (or another object folder right under the tree: obj, obj-deb) hits;
# depend mode: a miss runs the compiler alone, which the kernel's -MMD
# makes list its headers, instead of the preprocessor first (a fifth less
# time for a build from an empty cache). Callers pass HOSTCC='ccache gcc'
# too: the host programs (kconfig, objtool, scripts/) go through it, as
# every new object folder builds them.
kbuild_ccache() {
	export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$1}
	export CCACHE_NOHASHDIR=1
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
	export CCACHE_DEPEND=1
}

# ticker_start LABEL OBJ T0 [TOTAL]: "==> LABEL: N min, N objects compiled
# of about TOTAL" on stderr every minute, until ticker_stop. The
# subshell's own stderr is closed: killing its sleep below would otherwise
# print bash's "Terminated"; the lines go to fd 3.
ticker=
ticker_start() {
	local label=$1 obj=$2 t0=$3 total=${4:-}
	touch "$obj/.uringcmd-build-start"
	(
		exec 3>&2 2>/dev/null
		while sleep 60; do
			printf '==> %s: %s min, %s objects compiled%s\n' "$label" \
				"$(( ($(date +%s) - t0) / 60 ))" \
				"$(find "$obj" -name '*.o' -newer "$obj/.uringcmd-build-start" | wc -l)" \
				"${total:+ of about $total}" >&3
		done
	) &
	ticker=$!
	trap 'pkill -P "$ticker" sleep 2>/dev/null; kill "$ticker" 2>/dev/null || true' EXIT
}

# ticker_stop: its sleep first (an orphaned sleep would hold our fds, a
# pipe or a lock, open for up to a minute), then the ticker
ticker_stop() {
	[ -n "$ticker" ] || return 0
	pkill -P "$ticker" sleep 2>/dev/null || true
	kill "$ticker" 2>/dev/null || true
	trap - EXIT
	ticker=
}

# kbuild_kver TOP: from KVER in the environment (6.1 when unset), sets
# kver_suffix ('' or -6.12: build/linux$kver_suffix is the tree) and
# kver_configs (kernel/guest.config, then the version's own fragment).
# shellcheck disable=SC2034 # set for the caller
kbuild_kver() {
	kver_suffix=
	kver_configs=("$1/kernel/guest.config")
	case ${KVER:-6.1} in
	6.1) ;;
	6.12)
		kver_suffix=-6.12
		kver_configs+=("$1/kernel/6.12.config") ;;
	*)
		printf '%s: KVER=%s: the series exist for 6.1 and 6.12\n' "${0##*/}" "$KVER" >&2
		exit 1 ;;
	esac
}
