# uringcmd: io_uring commands for block devices, sockets and NVMe passthrough
# on Linux 6.1. `make help` lists the targets; every one works from a clean
# clone on Debian 12, as root.

TOP       := $(abspath .)
BUILD     := $(TOP)/build
# KVER=6.12: the port to Linux 6.12 (patches-6.12/, drivers-nvme-6.12/,
# build/linux-6.12) for every target but those KVER_REFUSED lists; the
# programs keep 6.1's uapi headers (the same ABI). 6.1 is the default.
KVER      ?= 6.1
ifeq ($(KVER),6.12)
KTREE     := $(BUILD)/linux-6.12
KVER_CONFIG := kernel/6.12.config
# mutants and bench: made for the 6.1 series and its figures; repin and
# deb: 6.1's pin and packaging so far
KVER_REFUSED := repin mutants bench deb
ifneq ($(filter $(KVER_REFUSED),$(MAKECMDGOALS)),)
$(error KVER=6.12 does not work with $(filter $(KVER_REFUSED),$(MAKECMDGOALS)) yet: those are 6.1's)
endif
else ifeq ($(KVER),6.1)
KTREE     := $(BUILD)/linux
KVER_CONFIG :=
else
$(error KVER=$(KVER): the series exist for 6.1 and 6.12)
endif
export KVER
DEBUG     ?= 0
ifeq ($(DEBUG),1)
KOBJ      := $(KTREE)/obj-debug
KCONFIGS  := $(strip kernel/guest.config kernel/debug.config $(KVER_CONFIG))
PAIR_KCONFIGS := $(strip kernel/guest.config kernel/debug.config kernel/pair.config $(KVER_CONFIG))
# KASAN, lockdep and kmemleak under TCG: boots take minutes, commands 10-15x longer
GUEST_TIMEOUT ?= 3600
TEST_TIMEOUT  ?= 600
# uring_fuzz in make check: 40000 commands on this kernel (~3 min); the
# depth is make fuzz's (tests/fuzz/README.md: a 1,000,000-command campaign)
FUZZ_COUNT    ?= 40000
else
KOBJ      := $(KTREE)/obj
KCONFIGS  := $(strip kernel/guest.config $(KVER_CONFIG))
PAIR_KCONFIGS := $(strip kernel/guest.config kernel/pair.config $(KVER_CONFIG))
GUEST_TIMEOUT ?= 1200
TEST_TIMEOUT  ?= 120
FUZZ_COUNT    ?= 20000
endif
# make run boots the plain kernel once it is built (make check, make
# kernel), or when another goal of the same make builds it; until then, a
# smaller one with only what the demo needs (kernel/run.config), which a
# first build makes in about two thirds of the time. DEBUG=1: the debug
# kernel.
SUITE_GOALS := kernel check test shell fuzz checkpatch bisect warnings mutants
ifeq ($(filter 1,$(DEBUG))$(wildcard $(KOBJ)/arch/x86/boot/bzImage)$(filter $(SUITE_GOALS),$(MAKECMDGOALS)),)
RUN_KOBJ     := $(KTREE)/obj-run
RUN_KCONFIGS := $(strip kernel/run.config $(KVER_CONFIG))
else
RUN_KOBJ     := $(KOBJ)
RUN_KCONFIGS := $(KCONFIGS)
endif
# make pair's kernel: the suite's plus a NIC (kernel/pair.config), in a
# folder of its own (obj-pair, DEBUG=1 obj-debug-pair), so that the NIC
# changes neither the suite's kernels nor what CI's ccache holds for them.
PAIR_KOBJ := $(KOBJ)-pair
# KERNEL=path/to/bzImage: boot a kernel built elsewhere instead of building
# one (run-nvme.sh checks its config against kernel/guest.config, for make
# run against kernel/run.config, for make pair against guest.config and
# kernel/pair.config). The user-space programs still take the
# uapi headers of the patched tree in build/linux, which needs the tree
# (extract + git am) but no kernel build.
ifneq ($(KERNEL),)
BZIMAGE   := $(abspath $(KERNEL))
RUN_BZIMAGE := $(BZIMAGE)
PAIR_BZIMAGE := $(BZIMAGE)
BOOT_DEP  := given-kernel
RUN_DEP   := given-kernel
PAIR_DEP  := given-kernel
else
BZIMAGE   := $(KOBJ)/arch/x86/boot/bzImage
RUN_BZIMAGE := $(RUN_KOBJ)/arch/x86/boot/bzImage
PAIR_BZIMAGE := $(PAIR_KOBJ)/arch/x86/boot/bzImage
BOOT_DEP  := kernel
RUN_DEP   := run-kernel
PAIR_DEP  := pair-kernel
endif
# KVM=1: every guest of every target under KVM instead of TCG's emulation
# (qemu/run-nvme.sh honours UC_KVM in its environment). A host whose
# /dev/kvm cannot boot a guest (nested KVM on some) is told so in 30 s.
ifeq ($(KVM),1)
export UC_KVM := 1
endif
# QEMU=path/to/qemu-system-x86_64: every guest of every target under that
# QEMU instead of Debian 12's 7.2 in PATH (qemu/run-nvme.sh honours
# UC_QEMU); make qemu-fdp builds QEMU 10 into build/qemu-10 (QEMU_FDP).
# FDP=1 (make test, shell): one more controller whose namespace has
# Flexible Data Placement (run-nvme.sh --fdp), for a QEMU of 8.0 or newer;
# make check-fdp is make test with both, the FDP tests required.
QEMU_FDP  := $(BUILD)/qemu-10/bin/qemu-system-x86_64
ifneq ($(QEMU),)
export UC_QEMU := $(abspath $(QEMU))
endif
HEADERS   := $(BUILD)/headers
RUN_NVME  := qemu/run-nvme.sh -k $(BZIMAGE)

# The NVMe topology of make check's first boot (tests/check.sh), also used
# by make test and make shell: two namespaces, then one of each format in
# qemu/check-formats, and a poll queue.
FORMATS    := $(shell sed -n '/^[a-z]/p' qemu/check-formats)
GUEST_NVME := -n 2 $(foreach f,$(FORMATS),--ns $(f)) --qmp-agent --append nvme.poll_queues=1 \
	$(if $(filter 1,$(FDP)),--fdp)
GUEST_NS   := $(words 1 1 $(FORMATS))

# kernel/PINNED's packages are installed at the pinned version, the rest at
# whatever apt offers.
PINNED_PKGS  := $(shell sed -n 's/^\([^ ]*\) \([^ ]*\)$$/\1=\2/p' kernel/PINNED)
# linux-source-6.12 only for KVER=6.12
ifneq ($(KVER),6.12)
PINNED_PKGS  := $(filter-out linux-source-6.12=%,$(PINNED_PKGS))
endif
DEB_PACKAGES := build-essential bc bison flex libelf-dev \
	libssl-dev dwarves ccache sparse cpio kmod xz-utils file git \
	qemu-system-x86 qemu-utils liburing-dev libnvme-dev libcap-dev nvme-cli \
	iproute2 util-linux procps shellcheck rsync tmux \
	dpkg-dev libaio-dev libnuma-dev zlib1g-dev python3 gnuplot-nox linux-perf \
	fakeroot openssl \
	gcc-multilib liburing-dev:i386 libcap-dev:i386

# make run alone installs only what it needs (a shorter first apt-get): the
# kernel build, its headers (rsync), QEMU, the demo's liburing and libnvme
# and what the guest's init runs; any other goal, everything.
RUN_PACKAGES := build-essential bc bison flex libelf-dev libssl-dev ccache xz-utils file git \
	rsync qemu-system-x86 liburing-dev libnvme-dev iproute2 util-linux procps
ifeq ($(MAKECMDGOALS),run)
DEPS_PACKAGES := $(RUN_PACKAGES) $(filter linux-source-%,$(PINNED_PKGS))
else
DEPS_PACKAGES := $(DEB_PACKAGES) $(PINNED_PKGS)
endif
# make qemu-fdp (and check-fdp) builds QEMU 10: its build system and glib,
# and Debian's python venv and setuptools for meson (qemu/build-qemu.sh)
QEMU_PACKAGES := libglib2.0-dev ninja-build pkg-config python3-venv python3-setuptools
ifneq ($(filter qemu-fdp check-fdp,$(MAKECMDGOALS)),)
DEPS_PACKAGES += $(QEMU_PACKAGES)
endif

.PHONY: help deps repin tree kernel run-kernel pair-kernel given-kernel headers tests fio bench-progs bench fuzz \
	demo uc-nvme run test pair shell check check-device checkpatch bisect warnings mutants export-patches install uninstall \
	clean distclean

help:
	@echo 'make run             build, boot the guest and show the new commands at work'
	@echo 'make check           the test suite (DEBUG=1: on the KASAN/lockdep kernel)'
	@echo "make test T='PATTERN..'  only those tests (T='nvme_bdev_io block_query_*'):"
	@echo '                     one boot like make check'"'"'s first, no gates'
	@echo 'make pair            two guests: nvme-tcp from one to the other, the tests on'
	@echo '                     the remote head, the target stopped, killed and rebooted'
	@echo '                     and a link lost with commands in flight, on a kernel of'
	@echo '                     its own (build/linux/obj-pair, kernel/pair.config: a first'
	@echo '                     build 9-12 min; then ~3 min); the end of make check (6.1)'
	@echo "make shell           a root shell in the guest, with make check's namespaces"
	@echo '                     run, check, test, pair, shell: KERNEL=path/bzImage boots that'
	@echo '                     kernel instead of building one; DEBUG=1 the debug kernel'
	@echo '                     every target that boots: KVM=1 runs the guest under KVM'
	@echo '                     every target that boots: QEMU=path runs that QEMU;'
	@echo '                     test, shell: FDP=1 adds an FDP namespace (QEMU 8.0 on)'
	@echo 'make qemu-fdp        QEMU 10 from Debian 13'"'"'s source, x86_64 only, for NVMe'
	@echo '                     Flexible Data Placement (build/qemu-10; 4-6 min once)'
	@echo "make check-fdp       make qemu-fdp, then fio's uring-cmd-fdp.fio on an FDP"
	@echo "                     namespace under QEMU 10 (T='...' other tests; not in check)"
	@echo 'make check-device DEV=/dev/nvmeXnY  the tests on this machine'"'"'s kernel and that'
	@echo '                     namespace, destroying its data (CONFIRM=destroy-nvmeXnY)'
	@echo 'make deps            install what the rest needs (apt-get; idempotent)'
	@echo 'make repin           pin the newest linux-source-6.1 (if both series apply) and fio'
	@echo 'make tree            extract linux-source-6.1 into build/linux, apply both series'
	@echo 'make kernel          make tree, then build bzImage (build/linux/obj)'
	@echo 'make headers         uapi headers of the patched tree (build/headers)'
	@echo 'make tests           the test programs (build/tests)'
	@echo 'make demo            the programs make run shows (build/demo)'
	@echo "make uc-nvme         nvme-cli's verbs through io_uring, also on /dev/nvmeXnY"
	@echo '                     (build/tool/uc-nvme; uc-nvme help)'
	@echo 'make fio             fio 3.33 from Debian source with ioengine=uringcmd (build/fio);'
	@echo '                     FIO=$(FIO_NEXT): that release from Debian'"'"'s archive (build/fio-$(FIO_NEXT))'
	@echo '                     make check and the fio tests run with both'
	@echo 'make fio-next        make fio FIO=$(FIO_NEXT), the second fio make check builds'
	@echo 'make bench-progs     the benchmark programs (build/bench)'
	@echo 'make bench           time every path in 3 boots, count instructions in 2: RESULTS.md (~23 min)'
	@echo 'make fuzz N=.. SEED=..  uring_fuzz alone in a guest (DEBUG=1: on the debug kernel)'
	@echo 'make checkpatch      checkpatch.pl --strict over every patch'
	@echo 'make bisect          compile every commit of both series on its own'
	@echo 'make warnings        W=1 and sparse on the files both series touch, base vs tip'
	@echo "make mutants [MUTANTS='NN*']  does the suite catch a broken kernel? each bug"
	@echo '                     in tests/mutants/ built and tested alone (not in check)'
	@echo 'make deb [CONFIG=file]  the kernel as Debian packages for your own machine'
	@echo '                     (build/deb): your config (default /boot/config-$$(uname -r))'
	@echo '                     plus what the series needs; never installed here'
	@echo 'make export-patches  re-export both series from build/linux'
	@echo 'make install         the library headers (lib/) and uringcmd.pc under PREFIX'
	@echo '                     (/usr/local), DESTDIR honoured'
	@echo 'make uninstall       remove what make install put there'
	@echo 'make clean           remove build outputs but the kernel tree and ccache'
	@echo 'make distclean       remove build/ entirely (the kernel tree and its commits too)'
	@echo 'make help            this list'
	@echo 'KVER=6.12            the same targets on Linux 6.12 (make run KVER=6.12,'
	@echo '                     make check KVER=6.12); not mutants, bench, deb, repin' 
	@echo 'Each step prints one line when it starts and one when done; V=1 shows'
	@echo "the kernel build's own output instead."

# apt-get only when something is missing (or a pinned package is at another
# version), so this stays cheap to depend on. A pinned version apt no longer
# offers stops here, naming the command that moves the pin. A package list
# apt-get update cannot fetch (a mirror mid-sync) stops nothing by itself:
# the install fails if it needed that list. The first update runs before
# the i386 architecture is added: apt drops every new list of a repository
# when one of them fails, so a broken i386 list (bookworm-security's, seen
# 2026-12-06) must not cost the amd64 ones (linux-source-6.1) too.
deps:
	@missing=$$(for p in $(DEPS_PACKAGES); do \
		dpkg-query -W -f '$${Status} $${Version}\n' $${p%%=*} 2>/dev/null | \
		if [ "$${p#*=}" != "$$p" ]; then grep -qxF "install ok installed $${p#*=}"; \
		else grep -q '^install ok installed '; fi || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		t0=$$(date +%s); \
		echo "==> deps: installing with apt-get (a minute or two on a fresh machine):" $$missing >&2; \
		update() { apt-get update -qq || { stale=1; \
			echo "==> deps: apt-get update could not fetch every package list (above); going on with the lists apt has" >&2; }; }; \
		stale=; update && \
		case "$$missing" in *:i386*) \
			dpkg --print-foreign-architectures | grep -qx i386 || \
				{ dpkg --add-architecture i386 && update; } ;; \
		esac && \
		{ kernel/repin.sh check $$missing || \
			{ [ -z "$$stale" ] || echo "==> deps: (apt-get update failed above: if the mirror was mid-sync, try again before moving a pin)" >&2; false; }; } && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --allow-downgrades \
			--no-install-recommends $$missing >/dev/null && \
		echo "==> deps: installed in $$(( $$(date +%s) - t0 )) s" >&2; \
	fi

repin:
	@kernel/repin.sh

tree: deps
	@kernel/tree.sh prepare

kernel: tree
	@KSRC=$(KTREE) kernel/build.sh $(KOBJ) $(KCONFIGS)

run-kernel: tree
	@KSRC=$(KTREE) kernel/build.sh $(RUN_KOBJ) $(RUN_KCONFIGS)

pair-kernel: tree
	@KSRC=$(KTREE) kernel/build.sh $(PAIR_KOBJ) $(PAIR_KCONFIGS)

given-kernel:
	@[ -f "$(BZIMAGE)" ] || { echo "make: KERNEL=$(KERNEL): no such file" >&2; exit 1; }

# uapi headers of the patched tree, for the user-space programs: they need
# the tree but no kernel config or build (an object folder of their own).
headers: $(if $(filter 6.12,$(KVER)),deps,tree)
	@[ "$(KVER)" = 6.1 ] || KVER=6.1 kernel/tree.sh prepare
	@t0=$$(date +%s); first=; [ -d $(HEADERS)/include ] || first=1; \
	[ -z "$$first" ] || echo "==> headers: the patched tree's uapi headers into $(patsubst $(TOP)/%,%,$(HEADERS)) (under a minute)" >&2; \
	$(MAKE) -s -C $(BUILD)/linux O=$(BUILD)/headers-obj $(if $(filter -j%,$(MAKEFLAGS)),,-j$$(nproc)) \
		headers_install INSTALL_HDR_PATH=$(HEADERS) >/dev/null && \
	{ [ -z "$$first" ] || echo "==> headers: done in $$(( $$(date +%s) - t0 )) s" >&2; }

tests: headers uc-nvme
	@$(MAKE) -s -C tests O=$(BUILD)/tests HDRS=$(HEADERS)/include

# nvme-cli's verbs through io_uring (tool/uc-nvme.c), built against the
# patched tree's uapi like the tests, which compare it with nvme-cli.
uc-nvme: headers
	@$(MAKE) -s -C tool O=$(BUILD)/tool HDRS=$(HEADERS)/include

# fio from the Debian source of the installed version, the engine built in,
# and the engine alone for the system fio (fio-engine/README.md).
# FIO=$(FIO_NEXT) (kernel/PINNED's source:fio line): that release from
# Debian's archive (its sha256 there too), the engine built in, in
# build/fio-$(FIO_NEXT); make check and make test build both.
FIO       ?= 3.33
# the second fio: kernel/PINNED's source:fio line, its one place
FIO_NEXT  := $(shell $(TOP)/kernel/source.sh --pinned fio)
fio_dir = $(BUILD)/fio$(if $(filter-out 3.33,$(1)),-$(1))
fio: headers
	@FIO_RELEASE=$(FIO) fio-engine/build.sh $(call fio_dir,$(FIO)) $(HEADERS)/include

.PHONY: fio-next
fio-next: headers
	@FIO_RELEASE=$(FIO_NEXT) fio-engine/build.sh $(call fio_dir,$(FIO_NEXT)) $(HEADERS)/include

bench-progs: headers
	@$(MAKE) -s -C bench O=$(BUILD)/bench HDRS=$(HEADERS)/include

# Not part of check: it wants an idle machine and takes minutes.
bench: bench-progs fio
	@bench/bench.sh

demo: headers
	@$(MAKE) -s -C demo O=$(BUILD)/demo HDRS=$(HEADERS)/include

run: demo uc-nvme $(RUN_DEP)
	@qemu/run-nvme.sh -k $(RUN_BZIMAGE) --needs kernel/run.config --timeout $(GUEST_TIMEOUT) -- \
		demo/show.sh $(BUILD)/demo $(BUILD)/tool/uc-nvme

checkpatch: tree
	@tests/checkpatch.sh

bisect: kernel
	@kernel/bisect.sh

warnings: kernel
	@kernel/warnings.sh

# The mutation catalogue (tests/mutants/README.md): each mutant built alone
# in a worktree and its tests run in one boot; MUTANTS= picks some by
# name (not M=, which the kernel's make takes for a module folder).
mutants: tests kernel
	@tests/mutants/run.sh $(MUTANTS)

# A longer fuzzing campaign than make check's, with run.sh's kernel log
# checks; N commands, SEED to repeat a run.
fuzz: tests $(BOOT_DEP)
	@$(RUN_NVME) --null -n 2 --timeout $$(( $(GUEST_TIMEOUT) + $(or $(N),$(FUZZ_COUNT)) / 20 )) -- \
		env TEST_ONLY=uring_fuzz TEST_FABRICS=0 TEST_TIMEOUT=$$(( $(TEST_TIMEOUT) + $(or $(N),$(FUZZ_COUNT)) / 60 )) \
		TEST_FUZZ_COUNT=$(or $(N),$(FUZZ_COUNT)) $(if $(SEED),TEST_FUZZ_SEED=$(SEED)) \
		TEST_CQE_TIMEOUT_MS=$$(( $(TEST_TIMEOUT) * 250 )) \
		tests/run.sh $(BUILD)/tests /run/results/tests

# make check fuzzes with a fixed seed (a red run must be repeatable);
# make fuzz without SEED takes one from the clock.
FUZZ_SEED ?= 1803108662404538
# The second fio runs in the plain 6.1 check only: what differs between
# the fios is user space, which that run covers (tests/check.sh).
FIO_TWICE := $(if $(filter 1,$(DEBUG))$(filter 6.12,$(KVER)),,1)
# make pair at the end of the plain 6.1 run, on its own kernel (not with
# KERNEL=, which would have to carry kernel/pair.config's NIC as well)
CHECK_PAIR := $(if $(FIO_TWICE),$(if $(KERNEL),,1))
check: tests fio $(if $(FIO_TWICE),fio-next) bench-progs $(BOOT_DEP) $(if $(CHECK_PAIR),pair-kernel)
	@TEST_FUZZ_COUNT=$(FUZZ_COUNT) TEST_FUZZ_SEED=$(FUZZ_SEED) $(if $(FIO_TWICE),,TEST_FIO_NEXT=) $(if $(filter 1,$(DEBUG)),TEST_USER_SPACE=0) tests/check.sh --kernel $(BZIMAGE) --timeout $(GUEST_TIMEOUT) \
		--test-timeout $(TEST_TIMEOUT) $(if $(filter 1,$(DEBUG)),,--gates) $(if $(KERNEL),--given-kernel) \
		$(if $(CHECK_PAIR),--pair-kernel $(PAIR_BZIMAGE))

# Some tests in one boot of make check's first guest, without the gates:
# T is TEST_ONLY of tests/run.sh, shell patterns matched against the test
# names (without [dev]); its environment as tests/check.sh gives it. Logs:
# build/results/test/tests/NAME.log and .dmesg (FAIL lines name them).
test: tests $(BOOT_DEP) $(if $(findstring fio,$(T)),fio fio-next) $(if $(findstring bench,$(T)),bench-progs)
	@[ -n "$(T)" ] || { echo "make test: name the tests, e.g. make test T='nvme_bdev_io block_query_*'" >&2; exit 2; }
	@set -f; for pat in $(T); do \
		set +f; found=; for bin in $(BUILD)/tests/*; do \
			case $${bin##*/} in $$pat) found=1 ;; esac; done; \
		[ -n "$$found" ] || { echo "make test: '$$pat' matches no test in build/tests" >&2; exit 2; }; \
		set -f; done
	@rm -rf $(BUILD)/results/test
	@$(RUN_NVME) --timeout $(GUEST_TIMEOUT) $(GUEST_NVME) --results $(BUILD)/results/test -- \
		env TEST_ONLY='$(T)' TEST_TIMEOUT=$(TEST_TIMEOUT) TEST_CQE_TIMEOUT_MS=$$(( $(TEST_TIMEOUT) * 250 )) \
		TEST_FUZZ_COUNT=$(FUZZ_COUNT) TEST_FUZZ_SEED=$(or $(SEED),$(FUZZ_SEED)) \
		TEST_STRICT=1 TEST_RESULTS_HOST=$(BUILD)/results/test/tests \
		TEST_REQUIRE_NVME=1 TEST_NVME_NS_COUNT=$(GUEST_NS) $(if $(filter 1,$(FDP)),TEST_FDP=1) \
		$(if $(FDP_RUNTIME),FDP_RUNTIME=$(FDP_RUNTIME)) \
		tests/run.sh $(BUILD)/tests /run/results/tests

# QEMU 10 (Debian 13's source, kernel/PINNED's source:qemu line), for the
# FDP namespace Debian 12's QEMU 7.2 cannot emulate; not part of make
# check, whose users need no QEMU build; .ci/run runs make check-fdp after
# it: qemu/build-qemu.sh.
.PHONY: qemu-fdp
qemu-fdp: deps
	@qemu/build-qemu.sh $(BUILD)/qemu-10

# make test under QEMU 10 with the FDP namespace (FDP=1), the FDP tests
# required (TEST_FDP=1): fio_example_jobs runs fio's uring-cmd-fdp.fio
# there with both fios, and by default only that test; FDP_RUNTIME=1000
# runs the example with its own runtime (default 20 s a run).
.PHONY: check-fdp
check-fdp: qemu-fdp
	@$(MAKE) -s test QEMU=$(QEMU_FDP) FDP=1 T='$(or $(T),fio_example_jobs)'

# Two guests joined by two private links (qemu/run-pair.sh): nvmet-tcp in
# one, exporting its NVMe drive; the other connects over both links and
# runs the block-node tests and the faults (the target paused, stopped,
# killed and rebooted, a link lost) on the remote head. T as make test's
# (the faults: fabrics_pair). Logs: build/results/pair/. Its kernel is
# built on its own (PAIR_KOBJ), so that its NIC changes neither the
# suite's kernels nor what CI's ccache holds for them; make check's plain
# 6.1 run ends with it (CHECK_PAIR).
pair: tests $(PAIR_DEP)
	@qemu/run-pair.sh -k $(PAIR_BZIMAGE) --timeout $(GUEST_TIMEOUT) --results $(BUILD)/results/pair -- \
		TEST_TIMEOUT=$(TEST_TIMEOUT) TEST_CQE_TIMEOUT_MS=$$(( $(TEST_TIMEOUT) * 250 )) \
		TEST_STRICT=1 TEST_RESULTS_HOST=$(BUILD)/results/pair/tests $(if $(T),TEST_ONLY='$(T)')

# The suite on the running kernel (a machine with the series installed) and
# a namespace the user gives up: tests/check-device.sh says what it refuses.
# No QEMU; T as make test's.
check-device: tests
	@[ -n "$(DEV)" ] || { echo "make check-device: name the namespace, e.g. make check-device DEV=/dev/nvme0n1" >&2; exit 2; }
	@T='$(T)' CONFIRM='$(CONFIRM)' tests/check-device.sh '$(DEV)'

# bash on the guest's console, with the checkout mounted and the tests built;
# exit (or Ctrl-D) powers the guest off.
shell: tests $(BOOT_DEP)
	@$(RUN_NVME) $(GUEST_NVME) --results $(BUILD)/results/shell

# The user-space library (header-only): lib/Makefile; PREFIX and DESTDIR
# pass through.
install:
	@$(MAKE) -s -C lib install

uninstall:
	@$(MAKE) -s -C lib uninstall

export-patches:
	@kernel/tree.sh export

# The patched kernel as Debian packages (bindeb-pkg) for the user's own
# machine: CONFIG=file, else the running kernel's /boot/config-$(uname -r),
# plus kernel/deb.config; release VERSION-uringcmd; build/deb.
.PHONY: deb
deb: tree
	@kernel/deb.sh $(CONFIG)

clean:
	rm -rf $(BUILD)/tests $(BUILD)/demo $(BUILD)/tool $(BUILD)/results $(BUILD)/nvme $(BUILD)/nvme-pair \
		$(BUILD)/headers $(BUILD)/headers-obj

distclean:
	rm -rf $(BUILD)
