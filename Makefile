# uringcmd: io_uring commands for block devices, sockets and NVMe passthrough
# on Linux 6.1. `make help` lists the targets; every one works from a clean
# clone on Debian 12, as root.

TOP       := $(abspath .)
BUILD     := $(TOP)/build
DEBUG     ?= 0
ifeq ($(DEBUG),1)
KOBJ      := $(BUILD)/linux/obj-debug
KCONFIGS  := kernel/guest.config kernel/debug.config
# KASAN, lockdep and kmemleak under TCG: boots take minutes, commands 10-15x longer
GUEST_TIMEOUT ?= 3600
TEST_TIMEOUT  ?= 600
# uring_fuzz in make check: 100000 commands on this kernel (~6 min)
FUZZ_COUNT    ?= 100000
else
KOBJ      := $(BUILD)/linux/obj
KCONFIGS  := kernel/guest.config
GUEST_TIMEOUT ?= 1200
TEST_TIMEOUT  ?= 120
FUZZ_COUNT    ?= 20000
endif
BZIMAGE   := $(KOBJ)/arch/x86/boot/bzImage
HEADERS   := $(BUILD)/headers
RUN_NVME  := qemu/run-nvme.sh -k $(BZIMAGE)

DEB_PACKAGES := linux-source-6.1 build-essential bc bison flex libelf-dev \
	libssl-dev dwarves ccache sparse cpio kmod xz-utils file git \
	qemu-system-x86 qemu-utils liburing-dev libnvme-dev libcap-dev nvme-cli fio \
	iproute2 util-linux procps shellcheck rsync \
	dpkg-dev libaio-dev libnuma-dev zlib1g-dev python3 gnuplot-nox \
	gcc-multilib liburing-dev:i386 libcap-dev:i386

.PHONY: help deps kernel headers tests fio bench-progs bench fuzz demo run check checkpatch bisect warnings \
	export-patches clean distclean

help:
	@echo 'make run             build, boot the guest and show the new commands at work'
	@echo 'make check           the test suite (DEBUG=1: on the KASAN/lockdep kernel)'
	@echo 'make deps            install what the rest needs (apt-get; idempotent)'
	@echo 'make kernel          extract linux-source-6.1, apply both series, build bzImage'
	@echo 'make fio             fio 3.33 from Debian source with ioengine=uringcmd (build/fio)'
	@echo 'make bench           benchmark every path in 3 boots, write RESULTS.md (~8 min)'
	@echo 'make fuzz N=.. SEED=..  uring_fuzz alone in a guest (DEBUG=1: on the debug kernel)'
	@echo 'make checkpatch      checkpatch.pl --strict over every patch'
	@echo 'make bisect          compile every commit of both series on its own'
	@echo 'make warnings        W=1 and sparse on the files both series touch, base vs tip'
	@echo 'make export-patches  re-export both series from build/linux'
	@echo 'make clean           remove build outputs but the kernel tree and ccache'

# apt-get only when something is missing, so this stays cheap to depend on.
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f '$${Status}\n' $$p 2>/dev/null | \
		grep -q '^install ok installed$$' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing $$missing"; \
		{ dpkg --print-foreign-architectures | grep -qx i386 || \
			dpkg --add-architecture i386; } && \
		apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $$missing >/dev/null; \
	fi

kernel: deps
	@kernel/tree.sh prepare
	@kernel/build.sh $(KOBJ) $(KCONFIGS)

# uapi headers of the patched tree, for the user-space programs.
headers: kernel
	@$(MAKE) -s -C $(BUILD)/linux O=$(KOBJ) headers_install \
		INSTALL_HDR_PATH=$(HEADERS) >/dev/null

tests: headers
	@$(MAKE) -s -C tests O=$(BUILD)/tests HDRS=$(HEADERS)/include

# fio from the Debian source of the installed version, the engine built in,
# and the engine alone for the system fio (fio-engine/README.md).
fio: headers
	@fio-engine/build.sh $(BUILD)/fio $(HEADERS)/include

bench-progs: headers
	@$(MAKE) -s -C bench O=$(BUILD)/bench HDRS=$(HEADERS)/include

# Not part of check: it wants an idle machine and takes minutes.
bench: bench-progs fio
	@bench/bench.sh

demo: headers
	@$(MAKE) -s -C demo O=$(BUILD)/demo HDRS=$(HEADERS)/include

run: demo
	@$(RUN_NVME) --timeout $(GUEST_TIMEOUT) -- demo/show.sh $(BUILD)/demo

checkpatch: kernel
	@tests/checkpatch.sh

bisect: kernel
	@kernel/bisect.sh

warnings: kernel
	@kernel/warnings.sh

# A longer fuzzing campaign than make check's, with run.sh's kernel log
# checks; N commands, SEED to repeat a run.
fuzz: tests
	@$(RUN_NVME) --null -n 2 --timeout $$(( $(GUEST_TIMEOUT) + $(or $(N),$(FUZZ_COUNT)) / 20 )) -- \
		env TEST_ONLY=uring_fuzz TEST_FABRICS=0 TEST_TIMEOUT=$$(( $(TEST_TIMEOUT) + $(or $(N),$(FUZZ_COUNT)) / 60 )) \
		TEST_FUZZ_COUNT=$(or $(N),$(FUZZ_COUNT)) $(if $(SEED),TEST_FUZZ_SEED=$(SEED)) \
		TEST_CQE_TIMEOUT_MS=$$(( $(TEST_TIMEOUT) * 250 )) \
		tests/run.sh $(BUILD)/tests /run/results/tests

# make check fuzzes with a fixed seed (a red run must be repeatable);
# make fuzz without SEED takes one from the clock.
FUZZ_SEED ?= 1803108662404538
check: tests fio bench-progs
	@TEST_FUZZ_COUNT=$(FUZZ_COUNT) TEST_FUZZ_SEED=$(FUZZ_SEED) tests/check.sh --kernel $(BZIMAGE) --timeout $(GUEST_TIMEOUT) \
		--test-timeout $(TEST_TIMEOUT) $(if $(filter 1,$(DEBUG)),,--gates)

export-patches:
	@kernel/tree.sh export

clean:
	rm -rf $(BUILD)/tests $(BUILD)/demo $(BUILD)/results $(BUILD)/nvme \
		$(BUILD)/headers

distclean:
	rm -rf $(BUILD)
