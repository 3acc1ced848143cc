#!/bin/bash
# tests/run.sh judges tests right: it runs on the host over stand-in test
# programs that pass, fail, skip, crash, hang and (as root, where the
# kernel log can be read and written) leave a splat in the kernel log, and
# its verdict lines, its log files and its exit status are compared with
# what each should give; then TEST_USER_SPACE=0 (make check DEBUG=1)
# over stand-ins named as the tests of user-space programs: they SKIP
# unrun, the others run.
# Prints "PASS run_harness[host]" or "FAIL run_harness[host]: reason".
# shellcheck disable=SC2016 # the stand-ins' $1 and $$ are their own
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
name='run_harness[host]'
tmp=$(mktemp -d /tmp/uringcmd-harness.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/bin res=$tmp/results
mkdir "$bin"

fail() {
	echo "FAIL $name: $*"
	exit 1
}

# stand_in NAME BODY: a test program that is a bash script
stand_in() {
	printf '#!/bin/bash\n%s\n' "$2" >"$bin/$1"
	chmod +x "$bin/$1"
}
stand_in block_pass 'echo "checked $1"'
stand_in nvme_fail 'echo "some output"; echo "nvme_fail: FAIL: planted failure"; echo; exit 1'
stand_in nvme_skip 'echo "nvme_skip: SKIP: planted skip"; exit 77'
stand_in nvme_segv 'kill -SEGV $$'
stand_in nvme_status 'echo "nvme_status: error: planted status"; exit 3'
stand_in nvme_timeout 'exec sleep 60'
splat=0
if [ "$(id -u)" = 0 ] && dmesg >/dev/null 2>&1 && [ -w /dev/kmsg ]; then
	splat=1
	# not a kernel warning: a line tests/run.sh must take for one
	stand_in nvme_splat 'echo "uringcmd run_harness self-test: WARNING: planted, not a kernel report" >/dev/kmsg'
fi

# The NVMe "device" is any block device there is (the stand-ins never
# open it): run.sh waits for it only where the host has NVMe controllers.
nvme_dev=/dev/null
for d in /dev/nvme0n1 /dev/*; do
	if [ -b "$d" ]; then
		nvme_dev=$d
		break
	fi
done

# harness_run VAR=VALUE...: run.sh over the stand-ins in $bin, results in
# $res, output in $tmp/out, its status in rc. Nothing of the caller's
# environment but PATH and the VARs; TEST_ONLY names the stand-ins (a run
# without it would clear and scan a host's kmemleak). One run at a time:
# two would find each other's markers in the log.
harness_run() {
	rc=0
	flock /tmp/uringcmd-run-harness.lock env -i PATH="$PATH" \
		TEST_ONLY="$(cd "$bin" && echo *)" \
		TEST_NVME_DEV="$nvme_dev" TEST_NVME_CHAR=/dev/null TEST_NVME_CTRL=/dev/null \
		TEST_FABRICS=0 TEST_TIMEOUT=2 TEST_SETTLE=0.1 "$@" \
		"$top/tests/run.sh" "$bin" "$res" >"$tmp/out" 2>&1 || rc=$?
}
harness_run TEST_BLOCK_DEVS="/dev/harness-a /dev/harness-b"
show() {
	sed 's/^/  | /' "$tmp/out"
}

[ "$rc" = 1 ] || { show; fail "run.sh exited $rc, not 1"; }
want=$(cat <<EOF
PASS block_pass[harness-a]
PASS block_pass[harness-b]
FAIL nvme_fail: planted failure (output: $res/nvme_fail.log, kernel log: $res/nvme_fail.dmesg)
FAIL nvme_segv: killed by SIGSEGV (output: $res/nvme_segv.log, kernel log: $res/nvme_segv.dmesg)
SKIP nvme_skip: planted skip
EOF
)
if [ "$splat" = 1 ]; then
	want+=$'\n'"FAIL nvme_splat: kernel log: "
fi
want+=$(cat <<EOF

FAIL nvme_status: exit status 3: planted status (output: $res/nvme_status.log, kernel log: $res/nvme_status.dmesg)
FAIL nvme_timeout: timed out after 2s (output: $res/nvme_timeout.log, kernel log: $res/nvme_timeout.dmesg)
EOF
)
got=$(grep -E '^(PASS|FAIL|SKIP) ' "$tmp/out" |
	sed 's/^\(FAIL nvme_splat: kernel log: \).*/\1/')
if [ "$got" != "$want" ]; then
	diff <(echo "$want") <(echo "$got") | sed 's/^/  /'
	fail "verdicts differ from the expected ones (-want +got above)"
fi
if [ "$splat" = 1 ]; then
	grep -q '^FAIL nvme_splat: kernel log: .*WARNING: planted, not a kernel report (output: ' "$tmp/out" ||
		{ show; fail "the planted splat is not the FAIL reason"; }
	grep -q 'WARNING: planted, not a kernel report' "$res/nvme_splat.dmesg" ||
		fail "$res/nvme_splat.dmesg lacks the planted line"
	# the test before it saw none of it
	if grep -q 'planted' "$res/nvme_skip.dmesg"; then
		fail "nvme_skip.dmesg holds the next test's kernel log"
	fi
fi
n_pass=2 n_fail=4 n_skip=1
[ "$splat" = 0 ] || n_fail=5
tail -n 1 "$tmp/out" | grep -qx "$n_pass passed, $n_fail failed, $n_skip skipped" ||
	{ show; fail "the totals line is not \"$n_pass passed, $n_fail failed, $n_skip skipped\""; }

# what each test printed is its log, whole
printf 'some output\nnvme_fail: FAIL: planted failure\n\n' | cmp -s - "$res/nvme_fail.log" ||
	fail "$res/nvme_fail.log is not nvme_fail's output"
grep -qx 'checked /dev/harness-b' "$res/block_pass.harness-b.log" ||
	fail "block_pass[harness-b] did not get its device"
for f in block_pass.harness-a nvme_fail nvme_segv nvme_skip nvme_status nvme_timeout; do
	if [ ! -f "$res/$f.log" ] || [ ! -f "$res/$f.dmesg" ]; then
		fail "no $res/$f.log and .dmesg"
	fi
done
grep -q 'Segmentation fault' "$res/nvme_segv.log" ||
	fail "nvme_segv.log lacks bash's Segmentation fault notice"

# TEST_USER_SPACE=0 (make check DEBUG=1): the tests of user-space programs
# SKIP with the reason tests/expected-skips allows on the debug kernel, and
# never run; the others run
bin=$tmp/bin-user res=$tmp/results-user
mkdir "$bin"
for t in fio_planted bench_planted check_device; do
	stand_in "$t" "echo ran >$tmp/$t.ran"
done
stand_in nvme_pass 'exit 0'
harness_run TEST_USER_SPACE=0 TEST_BLOCK_DEVS=/dev/harness-a TEST_FIO_NEXT=
[ "$rc" = 0 ] || { show; fail "run.sh with TEST_USER_SPACE=0 exited $rc, not 0"; }
why='tests a user-space program, run on the plain kernels (TEST_USER_SPACE=0: make check DEBUG=1)'
want="SKIP bench_planted: $why
SKIP check_device: $why
SKIP fio_planted: $why
PASS nvme_pass"
got=$(grep -E '^(PASS|FAIL|SKIP) ' "$tmp/out")
if [ "$got" != "$want" ]; then
	diff <(echo "$want") <(echo "$got") | sed 's/^/  /'
	fail "TEST_USER_SPACE=0: verdicts differ from the expected ones (-want +got above)"
fi
! ls "$tmp"/*.ran >/dev/null 2>&1 ||
	fail "TEST_USER_SPACE=0 ran $(cd "$tmp" && echo *.ran)"
echo "PASS $name"
