#!/bin/bash
# Boot a guest kernel in QEMU with an emulated NVMe controller, on the host's
# root filesystem shared read-only over 9p, run one command in it and return
# that command's exit status and output; without a command, a root shell.
# shellcheck disable=SC2054 # qemu's options are comma-separated on purpose
set -eu

usage() {
	cat <<'USAGE'
usage: qemu/run-nvme.sh [options] [--] COMMAND [ARG...]
       qemu/run-nvme.sh [options]

Runs COMMAND as root in a fresh guest; its output is this script's output and
its exit status this script's status. The checkout is mounted at the same path
in the guest and is the working directory. Without COMMAND (and on a
terminal): an interactive root shell there; exit or Ctrl-D powers the guest
off, and the shell's last status is this script's (Ctrl-A x kills QEMU).

The kernel's config must have the =y options of kernel/guest.config, or
of the fragments --needs names (but those of a fragment's last part, how
the guest kernel is built): checked in the .config of the kernel's build folder (PATH/../../../.config, or a .config
beside PATH, or /boot/config-V for /boot/vmlinuz-V) before booting, else
in /proc/config.gz in the guest.

  -k, --kernel PATH     bzImage to boot (default: build/linux/obj/arch/x86/boot/bzImage)
  -n, --namespaces N    namespaces on the controller (default 1; 0 and no
                        --ns: no NVMe controller)
      --size MB         size of each namespace (default 256)
      --null            back namespaces with null-co (read-zeroes) instead of
                        image files under build/nvme/
      --images DIR      the namespaces' image files in DIR instead of
                        build/nvme/ (a second guest's own; an image that is
                        there keeps its data across boots)
      --null-last       back only the last namespace with null-co (a floor
                        for benchmarks beside file-backed ones)
      --null-latency NS null-co namespaces complete each read or write NS
                        ns after it starts (QEMU's latency-ns, timed by the
                        host's clock); default 0
      --ns PROPS        one more namespace after the -n ones, formatted by
                        QEMU's nvme-ns properties PROPS, comma-separated:
                        logical_block_size, physical_block_size, ms, mset,
                        pi, pif, pil, zoned, zoned.zone_size,
                        zoned.zone_capacity, zoned.max_open,
                        zoned.max_active, discard_granularity; shared=on
                        (with --subsys: both controllers reach it, a second
                        head node); and size=MB for its image (default:
                        --size). Repeatable; its image is made anew each
                        boot. Example:
                        --ns ms=8,pi=1 --ns zoned=on,zoned.zone_size=8M
      --fdp             one more NVMe controller, after the others (nvme1 in
                        the guest, its namespace /dev/nvme1n1), in an
                        nvme-subsys of its own with Flexible Data Placement:
                        8 reclaim unit handles, one reclaim group, 64 GiB
                        reclaim units (none fills up in a test), and one
                        namespace of --size MB that writes through all 8
                        (fdp.ruhs=0-7; placement identifiers 0 to 7). Needs
                        QEMU 8.0 or newer (--qemu): Debian 12's 7.2 has no
                        FDP
      --qemu PATH       the qemu-system-x86_64 to run (default: the one in
                        PATH, Debian 12's QEMU 7.2; UC_QEMU in the
                        environment, as make's QEMU= sets it, does the
                        same); make qemu-fdp builds QEMU 10 into
                        build/qemu-10/bin/
      --subsys          two controllers in one nvme-subsys sharing namespace 1
                        (multipath: its block node is the head node, the
                        paths are nvmeXcYn1; other namespaces are private)
      --mdts N          controller MDTS, as a power of two of 4 KiB (QEMU: 7)
      --queues N        I/O queue pairs (max_ioqpairs)
      --qmp PATH        QMP socket at PATH, for fault injection (device_del)
      --pidfile PATH    QEMU writes its process id to PATH (for a SIGKILL)
      --udp-link LPORT:PPORT
                        a virtio-net NIC (ethN in the guest, the N-th of
                        these, QEMU device id nicN for set_link) whose
                        frames go as UDP datagrams from 127.0.0.1:LPORT to
                        127.0.0.1:PPORT, where another guest's --udp-link
                        PPORT:LPORT takes them: a private link between two
                        QEMUs, nothing of the host's network. Repeatable
      --qmp-agent       let the guest send QMP commands: it writes one into
                        $UC_RESULTS/qmp/req.NAME and finds QEMU's answer in
                        resp.NAME (qemu/qmp-agent.py); namespace devices
                        are nvme0-ns1, nvme0-ns2, ...
      --timeout SECS    kill a guest still running after SECS (default 900;
                        a shell: none)
      --needs FRAGMENT  a config fragment (a path) whose options the
                        kernel must have (default kernel/guest.config, what
                        the tests need; make run: kernel/run.config, what
                        the demo needs). Repeatable: every one's options
                        (make pair: guest.config and kernel/pair.config)
      --any-config      boot even if the kernel's config lacks options
      --kvm             use KVM (default: TCG; UC_KVM=1 in the environment,
                        as make's KVM=1 sets it, does the same). A guest
                        that prints nothing in UC_KVM_BOOT_WAIT seconds
                        (30) is ended, and the message says to run without
                        it (nested KVM hangs on some hosts)
      --icount          count instructions instead of time: one vCPU,
                        single-threaded TCG, -icount shift=0,sleep=off, so
                        the guest's clock advances 1 ns per retired
                        instruction (bench/icount.sh); not with --kvm
      --icount-sleep    as --icount, but sleep=on: while the guest idles its
                        clock follows the host's, up to its next timer,
                        instead of jumping to that timer at once; time spent
                        running is still one instruction a ns. For commands
                        the host completes: a wait of a few us then rarely
                        meets a timer tick (sleep=off: one or more each)
      --mem MB          guest memory (default 2048)
      --cpus N          guest CPUs (default 2)
      --results DIR     writable share, /run/results in the guest (default: a
                        new folder under build/results/)
      --append ARGS     more kernel command line
  -h, --help            this text

Exit status: COMMAND's; 124 if the guest timed out; 125 on a usage or setup
error; 126 if the guest died without reporting a status (panic, crash).
USAGE
}

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=$top/build/linux/obj/arch/x86/boot/bzImage
namespaces=1 size=256 null=0 fmt_ns=() subsys=0 mdts='' queues='' qmp='' qmp_agent=0 timeout=''
images=$top/build/nvme pidfile='' links=() null_latency=0 fdp=0
# make's QEMU=path (UC_QEMU in the environment of every recipe): as --qemu
qemu=${UC_QEMU:-qemu-system-x86_64}
any_config=0 needs=()
accel=tcg mem=2048 cpus=2 results='' icount=0 append=
# make's KVM=1 (UC_KVM=1 in the environment of every recipe): as --kvm
[ "${UC_KVM:-0}" != 1 ] || accel=kvm

die() { printf 'run-nvme.sh: %s\n' "$*" >&2; exit 125; }

while [ $# -gt 0 ]; do
	case $1 in
	-k|--kernel) kernel=$2; shift ;;
	-n|--namespaces) namespaces=$2; shift ;;
	--size) size=$2; shift ;;
	--ns) fmt_ns+=("$2"); shift ;;
	--null) null=1 ;;
	--images) images=$2; shift ;;
	--pidfile) pidfile=$2; shift ;;
	--udp-link) links+=("$2"); shift ;;
	--null-last) null=last ;;
	--null-latency) null_latency=$2; shift ;;
	--subsys) subsys=1 ;;
	--fdp) fdp=1 ;;
	--qemu) qemu=$2; shift ;;
	--mdts) mdts=$2; shift ;;
	--queues) queues=$2; shift ;;
	--qmp) qmp=$2; shift ;;
	--qmp-agent) qmp_agent=1 ;;
	--timeout) timeout=$2; shift ;;
	--needs) needs+=("$2"); shift ;;
	--any-config) any_config=1 ;;
	--kvm) accel=kvm ;;
	--icount) icount=1 ;;
	--icount-sleep) icount=sleep ;;
	--mem) mem=$2; shift ;;
	--cpus) cpus=$2; shift ;;
	--results) results=$2; shift ;;
	--append) append=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) usage >&2; die "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
interactive=0
if [ $# = 0 ]; then
	if [ ! -t 0 ] || [ ! -t 1 ]; then
		die "no command given, and no terminal for a shell (stdin and stdout must be one)"
	fi
	interactive=1
fi
timeout=${timeout:-$((interactive ? 0 : 900))}
[ ${#needs[@]} -gt 0 ] || needs=("$top/kernel/guest.config")
# the fragments as messages name them: relative to the checkout
# ("kernel/guest.config needs", "kernel/guest.config and kernel/pair.config need")
needs_names=$(for f in "${needs[@]}"; do printf '%s\n' "${f#"$top/"}"; done | sed '$!s/$/ and/' | paste -sd ' ' -)
[ ${#needs[@]} = 1 ] && needs_names+=' needs' || needs_names+=' need'

check_setup() {
	command -v "$qemu" >/dev/null ||
		die "$qemu not found (run 'make deps'; QEMU 10: 'make qemu-fdp')"
	if [ "$fdp" = 1 ]; then
		local v
		v=$("$qemu" --version | sed -n '1s/.* version \([0-9.]*\).*/\1/p')
		if [ "${v%%.*}" -lt 8 ] 2>/dev/null || [ -z "$v" ]; then
			die "--fdp: $qemu is QEMU ${v:-of no version it says}, and NVMe Flexible Data Placement came with QEMU 8.0: 'make qemu-fdp' builds QEMU 10, then --qemu build/qemu-10/bin/qemu-system-x86_64"
		fi
	fi
	[ -r "$kernel" ] || die "no kernel at $kernel (run 'make kernel')"
	local frag
	for frag in "${needs[@]}"; do
		[ -f "$frag" ] || die "--needs $frag: no such config fragment"
	done
	file -b "$kernel" 2>/dev/null | grep -q 'Linux kernel x86 boot' ||
		die "$kernel is not an x86 bzImage"
	if [ "$icount" != 0 ] && [ "$accel" = kvm ]; then
		die "--icount is TCG's instruction counter: not with --kvm (or UC_KVM=1)"
	fi
	if [ "$accel" = kvm ] && [ ! -w /dev/kvm ]; then
		die "--kvm given but /dev/kvm is not usable"
	fi
	for n in "$namespaces" "$size" "$timeout" "$mem" "$cpus" "$null_latency" ${mdts:+"$mdts"} ${queues:+"$queues"}; do
		case $n in
		''|*[!0-9]*) die "'$n' is not a number" ;;
		esac
	done
	[ "$namespaces" -ge 1 ] || [ ${#fmt_ns[@]} = 0 ] ||
		die "--ns needs at least one namespace before it (-n)"
	local link
	for link in ${links[@]+"${links[@]}"}; do
		[[ $link =~ ^[0-9]+:[0-9]+$ ]] || die "--udp-link $link: want LPORT:PPORT"
	done
	[ "$any_config" = 1 ] || check_config
	local spec prop props
	for spec in ${fmt_ns[@]+"${fmt_ns[@]}"}; do
		IFS=, read -r -a props <<<"$spec"
		for prop in "${props[@]}"; do
			case ${prop%%=*} in
			logical_block_size|physical_block_size|ms|mset|pi|pif|pil|\
			zoned|zoned.zone_size|zoned.zone_capacity|zoned.max_open|\
			zoned.max_active|discard_granularity) ;;
			shared) [ "$prop" = shared=on ] || die "--ns $spec: shared=on is the only value" ;;
			size) case ${prop#size=} in ''|*[!0-9]*) die "--ns $spec: size is in MB" ;; esac ;;
			*) die "--ns $spec: '${prop%%=*}' is not a namespace format property" ;;
			esac
			[ "$prop" != "${prop#*=}" ] || die "--ns $spec: '$prop' has no value"
		done
	done
}

# The options the --needs fragments set to y above their "How this guest
# kernel is built" line, one a line, but those that kernel/debug.config
# turns off again (the transports that are only built, RDMA and FC, which
# no test boots) and those the kernel version's fragment drops (make's
# KVER=6.12: kernel/6.12.config).
wanted_options() {
	local drop=("$top/kernel/debug.config")
	[ "${KVER:-6.1}" = 6.1 ] || [ ! -f "$top/kernel/$KVER.config" ] ||
		drop+=("$top/kernel/$KVER.config")
	local frag
	for frag in "${needs[@]}"; do
		sed -n '/^# ---- How this guest kernel is built/q
			s/^\(CONFIG_[A-Za-z0-9_]*\)=y$/\1/p' "$frag"
	done | grep -vxF -f <(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=n$/\1/p' "${drop[@]}")
}

# The kernel's .config: in its build folder (OBJ/arch/x86/boot/bzImage),
# beside it, or /boot's config-VERSION beside vmlinuz-VERSION; none: the
# guest checks /proc/config.gz (guest_config_check).
kernel_config() {
	local dir c name
	dir=$(dirname "$kernel") name=$(basename "$kernel")
	for c in "$dir/../../../.config" "$dir/.config" "$dir/config-${name#vmlinuz-}"; do
		[ -f "$c" ] && { realpath -s "$c"; return 0; }
	done
	return 1
}

check_config() {
	local config missing opt
	config=$(kernel_config) || return 0
	missing=$(wanted_options | while IFS= read -r opt; do
		grep -qx "$opt=y" "$config" || printf ' %s' "$opt"
	done)
	[ -z "$missing" ] ||
		die "$kernel lacks what $needs_names (in $config):$missing (--any-config boots it anyway)"
}

# The same check in the guest when the host found no .config, if the kernel
# has /proc/config.gz (CONFIG_IKCONFIG_PROC); the guest booted, so what is
# missing is what the tests use rather than what the boot needs.
guest_config_check() {
	[ "$any_config" = 0 ] || return 0
	! kernel_config >/dev/null || return 0
	printf 'uc_kernel=%q uc_needs=%q uc_wanted=%q\n' "$kernel" "$needs_names" "$(wanted_options | tr '\n' ' ')"
	cat <<-'EOF'
	if [ -r /proc/config.gz ]; then
		config=$(zcat /proc/config.gz) missing=
		for opt in $uc_wanted; do
			grep -qx "$opt=y" <<<"$config" || missing="$missing $opt"
		done
		[ -z "$missing" ] || { echo "run-nvme.sh: $uc_kernel lacks what $uc_needs (in /proc/config.gz):$missing (--any-config boots it anyway)"; exit 125; }
	fi
	EOF
}

# --ns PROPS: QEMU's properties without size=, and the image size in MB.
fmt_props() { # spec
	local prop out='' props
	IFS=, read -r -a props <<<"$1"
	for prop in "${props[@]}"; do
		case $prop in size=*) ;; *) out+=,$prop ;; esac
	done
	printf '%s\n' "$out"
}
fmt_size() { # spec
	local prop mb=$size props
	IFS=, read -r -a props <<<"$1"
	for prop in "${props[@]}"; do
		case $prop in size=*) mb=${prop#size=} ;; esac
	done
	printf '%s\n' "$mb"
}

# Namespaces: sparse images under build/nvme/ (--images), or null-co.
nvme_args() {
	local ctrl=nvme0 i dev=nvme private=
	local extra=${mdts:+,mdts=$mdts}${queues:+,max_ioqpairs=$queues} lat=
	[ "$null_latency" = 0 ] || lat=,latency-ns=$null_latency

	if [ "$subsys" = 1 ]; then
		qargs+=(-device nvme-subsys,id=subsys0,nqn=uringcmd-subsys)
		# QEMU wants one serial for every controller of a subsystem.
		qargs+=(-device "$dev,id=nvme0,serial=uringcmd0,subsys=subsys0$extra")
		qargs+=(-device "$dev,id=nvme1,serial=uringcmd0,subsys=subsys0$extra")
	else
		qargs+=(-device "$dev,id=nvme0,serial=uringcmd0$extra")
	fi
	# QEMU shares every namespace of a subsystem unless told otherwise.
	[ "$subsys" = 1 ] && private=,shared=off
	mkdir -p "$images"
	for i in $(seq 1 "$namespaces"); do
		if [ "$null" = 1 ] || { [ "$null" = last ] && [ "$i" = "$namespaces" ]; }; then
			qargs+=(-blockdev "driver=null-co,node-name=ns$i,size=$((size << 20)),read-zeroes=on$lat")
		else
			local img=$images/ns$i.img
			truncate -s "${size}M" "$img"
			qargs+=(-blockdev "driver=file,node-name=ns$i-file,filename=$img,cache.direct=off,discard=unmap")
			qargs+=(-blockdev "driver=raw,node-name=ns$i,file=ns$i-file,discard=unmap")
		fi
		if [ "$subsys" = 1 ] && [ "$i" = 1 ]; then
			qargs+=(-device "nvme-ns,id=$ctrl-ns$i,drive=ns$i,nsid=$i,bus=$ctrl,shared=on")
		else
			qargs+=(-device "nvme-ns,id=$ctrl-ns$i,drive=ns$i,nsid=$i,bus=$ctrl$private")
		fi
	done
	# Formatted namespaces: fresh images, so no block keeps data or
	# protection information written under another format.
	local spec img
	for spec in ${fmt_ns[@]+"${fmt_ns[@]}"}; do
		i=$((i + 1))
		img=$images/ns$i.img
		rm -f "$img"
		truncate -s "$(fmt_size "$spec")M" "$img"
		qargs+=(-blockdev "driver=file,node-name=ns$i-file,filename=$img,cache.direct=off,discard=unmap")
		qargs+=(-blockdev "driver=raw,node-name=ns$i,file=ns$i-file,discard=unmap")
		# shared=on instead of the subsystem's shared=off
		case ,$spec, in
		*,shared=on,*) qargs+=(-device "nvme-ns,id=$ctrl-ns$i,drive=ns$i,nsid=$i,bus=$ctrl$(fmt_props "$spec")") ;;
		*) qargs+=(-device "nvme-ns,id=$ctrl-ns$i,drive=ns$i,nsid=$i,bus=$ctrl$private$(fmt_props "$spec")") ;;
		esac
	done
}

# --fdp: a controller of its own (so that the others' device names and
# namespaces stay as they are), in a subsystem with FDP enabled
# (hw/nvme/subsys.c's fdp.* properties), and one namespace with
# placement handles 0 to 7 on reclaim unit handles 0 to 7 (hw/nvme/ns.c's
# fdp.ruhs). Its image is made anew each boot.
fdp_args() {
	local img=$images/fdp.img
	mkdir -p "$images"
	rm -f "$img"
	truncate -s "${size}M" "$img"
	qargs+=(-device nvme-subsys,id=fdpsubsys,nqn=uringcmd-fdp,fdp=on,fdp.runs=64G,fdp.nrg=1,fdp.nruh=8)
	qargs+=(-device "nvme,id=nvmefdp,serial=uringcmdfdp,subsys=fdpsubsys")
	qargs+=(-blockdev "driver=file,node-name=fdp-file,filename=$img,cache.direct=off,discard=unmap")
	qargs+=(-blockdev "driver=raw,node-name=fdp,file=fdp-file,discard=unmap")
	qargs+=(-device "nvme-ns,id=nvmefdp-ns1,drive=fdp,nsid=1,bus=nvmefdp,fdp.ruhs=0-7")
}

# --udp-link: one virtio-net NIC each, its MAC made of its local port (the
# two ends of a link differ) and its number
link_args() {
	local i=0 link lport
	for link in ${links[@]+"${links[@]}"}; do
		lport=${link%%:*}
		qargs+=(-netdev "socket,id=net$i,udp=127.0.0.1:${link#*:},localaddr=127.0.0.1:$lport")
		qargs+=(-device "virtio-net-pci,id=nic$i,netdev=net$i,mac=$(printf '52:54:00:%02x:%02x:%02x' \
			$(( (lport >> 8) & 255 )) $((lport & 255)) "$i")")
		i=$((i + 1))
	done
}

share() { # tag path [readonly]
	qargs+=(-fsdev "local,id=$1,path=$2,security_model=none,multidevs=remap${3:+,readonly=on}")
	qargs+=(-device "virtio-9p-pci,fsdev=$1,mount_tag=$1")
}

write_command() {
	local cwd=$top
	case $PWD/ in "$top"/*) cwd=$PWD ;; esac
	{
		printf 'cd %q || exit 125\n' "$cwd"
		printf 'export UC_RESULTS=/run/results\n'
		guest_config_check
		if [ "$interactive" = 1 ]; then
			# guest-init.sh gives the command /dev/null as stdin and a raw
			# ttyS1: make ttyS1 a terminal again, sized like this one, and
			# the shell's controlling terminal (job control, Ctrl-C).
			local rows cols
			read -r rows cols < <(stty size)
			printf 'stty -F /dev/ttyS1 sane rows %s cols %s\n' "$rows" "$cols"
			printf 'export TERM=%q\n' "${TERM:-vt100}"
			printf 'exec setsid -w -c bash -i </dev/ttyS1 >/dev/ttyS1 2>&1\n'
		else
			printf 'exec'
			printf ' %q' "$@"
			printf '\n'
		fi
	} >"$results/cmd.sh"
}

check_setup
if [ -z "$results" ]; then
	mkdir -p "$top/build/results"
	results=$(mktemp -d "$top/build/results/run.XXXXXX")
fi
mkdir -p "$results"
results=$(cd "$results" && pwd)
rm -f "$results/rc" "$results/console.log"
write_command "$@"

# --icount: one vCPU on one TCG thread, 1 ns of guest time per instruction
# (sleep=off: an idle guest's clock jumps to its next timer; --icount-sleep,
# sleep=on: it follows the host's clock there)
[ "$icount" = 0 ] || cpus=1
qargs=(-machine q35 -m "$mem" -smp "$cpus" -nodefaults -no-user-config
	-display none -no-reboot -monitor none)
if [ "$accel" = kvm ]; then
	qargs+=(-accel kvm -cpu host)
elif [ "$icount" != 0 ]; then
	qargs+=(-accel tcg,thread=single -icount "shift=0,sleep=$([ "$icount" = sleep ] && echo on || echo off)" -cpu max)
else
	qargs+=(-accel tcg,thread=multi -cpu max)
fi
qargs+=(-kernel "$kernel")
# ttyS0: kernel console, to a file; ttyS1: the command's output, to stdout.
# A shell: Ctrl-A x kills QEMU (mux=on gives the stdio chardev its escapes).
mux=
[ "$interactive" = 0 ] || mux=,mux=on
qargs+=(-serial "file:$results/console.log" -chardev "stdio,id=out,signal=off$mux" -serial chardev:out)
qargs+=(-device virtio-rng-pci)
if [ "$qmp_agent" = 1 ] && [ -z "$qmp" ]; then
	qmp=$results/qmp.sock
fi
[ -n "$qmp" ] && qargs+=(-qmp "unix:$qmp,server=on,wait=off")
share root / ro
share checkout "$top" ro
share results "$results"
[ "$namespaces" = 0 ] || nvme_args
[ "$fdp" = 0 ] || fdp_args
link_args
[ -z "$pidfile" ] || qargs+=(-pidfile "$pidfile")
qargs+=(-append "console=ttyS0 root=root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,cache=loose,msize=512000 ro init=$top/qemu/guest-init.sh panic=-1 loglevel=4 uringcmd.top=$top $append")

# Under KVM a kernel prints its first console line within a second or two;
# a guest silent for UC_KVM_BOOT_WAIT seconds (30) is one that nested KVM
# hangs before it prints anything: end it and say what to use instead.
kvm_boot_wait=${UC_KVM_BOOT_WAIT:-30}
kvm_watch() { # qemu-pid
	local i
	rm -f "$results/kvm-silent"
	for ((i = 0; i < kvm_boot_wait; i++)); do
		sleep 1
		[ ! -s "$results/console.log" ] || return 0
		kill -0 "$1" 2>/dev/null || return 0
	done
	touch "$results/kvm-silent"
	kill "$1" 2>/dev/null || true
}

agent=
if [ "$qmp_agent" = 1 ]; then
	rm -rf "$results/qmp"
	mkdir "$results/qmp"
	python3 "$top/qemu/qmp-agent.py" "$qmp" "$results/qmp" &
	agent=$!
fi

status=0
if [ "$interactive" = 1 ]; then
	printf 'run-nvme.sh: booting %s; exit or Ctrl-D ends the guest, Ctrl-A x kills it\n' \
		"$kernel" >&2
	# QEMU puts this terminal in raw mode (signal=off: Ctrl-C goes to the
	# guest); --foreground keeps it in the terminal's foreground group.
	timeout --foreground -k 10 "$timeout" "$qemu" "${qargs[@]}" || status=$?
	stty sane 2>/dev/null || true
else
	boot_t0=$(date +%s)
	printf '==> boot: %s under QEMU %s, console in %s\n' "${kernel##*/}" \
		"$([ "$accel" = kvm ] && echo KVM || echo "TCG$([ "$icount" = 0 ] || echo " with icount$([ "$icount" != sleep ] || echo ' (sleep=on)'), one vCPU") (a minute to boot, more on a debug kernel)")" \
		"$results/console.log" >&2
	timeout -k 10 "$timeout" "$qemu" "${qargs[@]}" </dev/null &
	qemu_pid=$!
	[ "$accel" != kvm ] || kvm_watch "$qemu_pid"
	wait "$qemu_pid" || status=$?
	printf '==> boot: guest done in %s s\n' "$(( $(date +%s) - boot_t0 ))" >&2
fi
if [ -f "$results/kvm-silent" ]; then
	printf 'run-nvme.sh: the guest printed nothing in %s s under KVM: /dev/kvm is there, but a guest does not boot with it (nested KVM hangs on some hosts). Run without KVM=1 (or --kvm): QEMU then emulates the CPU (TCG, the default), slower but everywhere.\n' \
		"$kvm_boot_wait" >&2
	exit 125
fi
if [ -n "$agent" ]; then
	kill "$agent" 2>/dev/null || true
	wait "$agent" 2>/dev/null || true
fi
if [ -f "$results/rc" ]; then
	exit "$(cat "$results/rc")"
fi
if [ "$status" = 124 ] || [ "$status" = 137 ]; then
	printf 'run-nvme.sh: guest timed out after %ss and was killed; console: %s\n' \
		"$timeout" "$results/console.log" >&2
	tail -n 30 "$results/console.log" >&2 || true
	exit 124
fi
if [ "$interactive" = 1 ] && [ "$status" = 0 ]; then
	printf 'run-nvme.sh: QEMU was ended (Ctrl-A x) before the shell exited\n' >&2
	exit 126
fi
if [ ! -s "$results/console.log" ]; then
	printf 'run-nvme.sh: qemu could not start the guest (status %s)\n' "$status" >&2
	exit 125
fi
printf 'run-nvme.sh: guest died without an exit status (qemu status %s); console: %s\n' \
	"$status" "$results/console.log" >&2
tail -n 30 "$results/console.log" >&2 || true
exit 126
