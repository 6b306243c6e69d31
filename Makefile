# SPDX-License-Identifier: GPL-2.0
# ddf: userspace build (core library, tools, tests) and the test lanes.
# The kernel modules are built by Kbuild (see tests/qemu/ for the VM lanes).

CC      ?= gcc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter
# Every operation of the sizing rounds on its own, so that the same rule
# words give the same shape on every CPU: GCC fuses a * b + c into one
# rounding where the CPU has a fused multiply-add (arm64, s390x), which
# moves a shape's boundary by an ulp. Whatever CFLAGS are given, in every
# build of the core and the tools (make check-core checks it).
override CFLAGS += -ffp-contract=off
CORE_CPPFLAGS := -Iddf_core -Iddf_core/env/user
B       := build
# the VM lanes and benchmarks take their binaries from the same directory
export DDF_BUILD := $(abspath $(B))

CORE_SRCS := $(wildcard ddf_core/*.c)
CORE_OBJS := $(patsubst ddf_core/%.c,$(B)/core/%.o,$(CORE_SRCS))
CORE_HDRS := $(wildcard ddf_core/*.h ddf_core/env/user/*.h)

TEST_SRCS := tests/core/runner.c $(wildcard tests/core/shared/*.c) \
	     $(wildcard tests/core/user/*.c)
TEST_HDRS := $(wildcard tests/core/*.h tests/core/*/*.h)

# The robustness suites' tools (see below).
ROBUST_BINS := $(patsubst tests/robust/%.c,$(B)/robust/%,$(wildcard tests/robust/*.c))

BENCH_SRCS := $(wildcard tools/ddfbench/*.c)
BENCH_HDRS := $(wildcard tools/ddfbench/*.h)

.PHONY: all check check-user check-core check-freestanding setup clean help demo \
	demo-filters
all: $(B)/libddf_core.a $(B)/ddfbench $(B)/ddf_core_tests $(B)/ddfctl \
	$(B)/ddfpkt $(B)/ddfxsk $(B)/replay.pcap $(B)/replay-port1.pcap \
	$(B)/libxt_ddf.so $(B)/ddf_spangen $(B)/examples/ddf_vxlan.bpf.o \
	$(B)/examples/ddf_xdp_judge.bpf.o $(B)/xdprace.so $(ROBUST_BINS)

help:
	@echo "make                 build the core library, ddfbench and the tests"
	@echo "make demo            nf_ddf in Debian's 6.12 under QEMU: duplicated"
	@echo "                     traffic with no rule, then through a drop rule"
	@echo "make demo-filters    size a filter and measure its accuracy"
	@echo "make modules         nf_ddf.ko for KVER (default: the running kernel)"
	@echo "make modules-arm64   nf_ddf.ko cross-built for Debian's arm64 kernels"
	@echo "                     (ARM64_KVER; default 6.1 and 6.12) in build/arm64/"
	@echo "make install         module, ddfctl, ddfbench, libxt_ddf.so, man pages,"
	@echo "                     the headers of the netlink family and of the XDP kfunc"
	@echo "                     (DESTDIR, PREFIX=/usr/local, KVER); make uninstall"
	@echo "make dkms-src        the module's sources to /usr/src for dkms install"
	@echo "make deb             Debian packages ddf-dkms, ddf-tools and ddf-dev in"
	@echo "                     build/deb/"
	@echo "make check-packages  install them with apt, check DKMS's build, purge;"
	@echo "                     then check-packages-vm"
	@echo "make check-packages-vm  them in a Debian 12 VM with systemd: rules and"
	@echo "                     XDP restored by ddf.service after a reboot"
	@echo "                     (DDF_PKG_RELEASES=\"bookworm trixie\": Debian 13 too)"
	@echo "make check-packages-vm-trixie  the same in Debian 13: its own make deb,"
	@echo "                     DKMS for its 6.12 and backports' kernel, signed"
	@echo "make check           run every test lane (installs what it needs)"
	@echo "make check-user      check-freestanding, -core, -tools, -deb and -fuzz side by"
	@echo "                     side (CHECK_JOBS, default nproc)"
	@echo "make check-core      userspace tests of ddf_core (threads: also TSan)"
	@echo "make check-freestanding  compile each ddf_core/*.c with no libc"
	@echo "make check-tools     ddfctl's grammar, sizing and messages (no kernel)"
	@echo "make check-deb       lint make deb's packages and check what they ship"
	@echo "make check-fuzz      every fuzz target's corpus and regressions replayed,"
	@echo "                     then each fuzzed briefly: the same runs from one"
	@echo "                     seed (FUZZ_CHECK_SEED, default 1) on any machine"
	@echo "make fuzz            every fuzz target for FUZZ_TIME s (default 60), in"
	@echo "                     parallel (FUZZ_JOBS), a summary line per target"
	@echo "make fuzz-coverage   line and branch coverage of the code the fuzz"
	@echo "                     targets' corpora reach, per file"
	@echo "make check-vm        the QEMU lanes: stock kernels and the debug kernel"
	@echo "make check-vm-newest the stock lane's scripts on Debian 13's 6.12 and"
	@echo "                     its backports' newest kernel (not in check)"
	@echo "make check-vm-sid    the same on Debian unstable's kernel (not in check)"
	@echo "make check-kcsan     a KCSAN kernel: churn and traffic on 2 CPUs (long)"
	@echo "make check-arm64     nf_ddf and the tools cross-built for Debian's arm64"
	@echo "                     6.1 and 6.12, booted under qemu-system-aarch64"
	@echo "make check-host-debian13  make demo, check-user and check-vm-stock"
	@echo "                     in a fresh Debian 13 root (mmdebstrap; DDF_HOST_STEPS)"
	@echo "make check-cross     the core's tests, replay and sizing built for arm64"
	@echo "                     and big-endian s390x, run under qemu-user (CROSS_ARCHS)"
	@echo "make soak            the debug lane with the robustness suites made long"
	@echo "make soak-key        the key's fast path against its general walk, 10^8 frames"
	@echo "make vm-shell        a shell in a VM with nf_ddf loaded (LANE=debug|stock)"
	@echo "make bench-tune      apbbf's tune memory and speed shapes timed side by side"
	@echo "make bench-kernel    ddf against nft in one VM boot (build/bench/; not in check)"
	@echo "make bench-smoke     a few seconds of the same (no rule, nft counter, apbbf)"
	@echo "make bench-key       instructions per frame of the key alone (callgrind)"
	@echo "make bench-time      the userspace packet path on the clock, 64 to 1500 bytes"
	@echo "make key-adoption BASE=REV  every capture replayed by ddfctl as built at"
	@echo "                     git revision REV and as built here, decision by decision"
	@echo "make bench           the papers' tables, every filter's speed and error"
	@echo "                     rate against memory (build/bench/; not in check)"

# The core's objects follow the compiler and its flags: $(B)/cflags changes
# when they do, so an existing build tree takes a new flag too.
CFLAGS_NOW := $(CC) $(CPPFLAGS) $(CFLAGS)
ifneq ($(CFLAGS_NOW),$(shell cat $(B)/cflags 2>/dev/null))
$(B)/cflags: FORCE
endif
$(B)/cflags:
	@mkdir -p $(@D)
	@echo '$(CFLAGS_NOW)' >$@
.PHONY: FORCE

$(B)/core/%.o: ddf_core/%.c $(CORE_HDRS) $(B)/cflags
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CORE_CPPFLAGS) -c $< -o $@

# the interleaved APBBF is ddf_apbbf.c compiled with another layout
$(B)/core/ddf_apbbf_il.o $(B)/test-core/ddf_apbbf_il.o: ddf_core/ddf_apbbf.c

$(B)/libddf_core.a: $(CORE_OBJS)
	rm -f $@
	ar rcs $@ $^

# The tests' own build of the core, with ddf_age.h's pause points (which
# the interleaving suite drives); nothing else links it.
TEST_CPPFLAGS := $(CORE_CPPFLAGS) -DDDF_AGE_PAUSE_POINTS
TEST_CORE_OBJS := $(patsubst ddf_core/%.c,$(B)/test-core/%.o,$(CORE_SRCS))
$(B)/test-core/%.o: ddf_core/%.c $(CORE_HDRS) $(B)/cflags
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TEST_CPPFLAGS) -c $< -o $@

$(B)/ddf_core_tests: $(TEST_SRCS) $(TEST_HDRS) $(TEST_CORE_OBJS)
	$(CC) $(CFLAGS) $(TEST_CPPFLAGS) -Itests/core -pthread \
		$(TEST_SRCS) $(TEST_CORE_OBJS) -lm -o $@

$(B)/ddfbench: $(BENCH_SRCS) $(BENCH_HDRS) $(B)/libddf_core.a
	$(CC) $(CFLAGS) $(CORE_CPPFLAGS) -pthread $(BENCH_SRCS) \
		$(B)/libddf_core.a -lm -o $@

# ddfctl, the rule tool (libmnl), and its tests: no kernel needed (-n).
CTL_SRCS := $(wildcard tools/ddfctl/*.c)
CTL_HDRS := $(wildcard tools/ddfctl/*.h) uapi/linux/ddf.h \
	    $(B)/xdp/ddf_xdp.skel.h
# libpcap is loaded by pcap_load.c when a command reads a capture
CTL_LIBS := -lmnl -lxdp -lbpf -lm
.PHONY: check-tools

# ddf's XDP program (clang's BPF target), built into ddfctl as a libbpf
# skeleton: ddfctl xdp attach loads it. BPF takes the byte order of the
# CPU that runs ddfctl (CC's: a cross build for s390x gets bpfeb); the
# kernel's UAPI headers it includes are this machine's, whose types are
# the same on every architecture.
BPF_TARGET := $(if $(shell echo __BYTE_ORDER__ | $(CC) -E -P -x c - \
	2>/dev/null | grep 4321),bpfeb,bpfel)
# -target bpf has no <asm/types.h>: the host's, by gcc's multiarch or
# dpkg's (as examples/xdp/ does). Asked when a recipe runs, not when this
# file is read: on a fresh machine gcc comes with make setup, which make
# demo runs first.
BPF_MULTIARCH = $(or $(shell gcc -print-multiarch 2>/dev/null),$(shell \
	dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null))
BPF_CC = clang -O2 -g -Wall -Iuapi -I/usr/include/$(BPF_MULTIARCH)
$(B)/xdp/ddf_xdp.bpf.o: tools/xdp/ddf_xdp.bpf.c uapi/linux/ddf.h \
		uapi/ddf/bpf_ddf.h
	@mkdir -p $(dir $@)
	$(BPF_CC) -target $(BPF_TARGET) -c $< -o $@

# The kfunc's example (examples/xdp/), by its own Makefile against the
# tree's headers: the VMs load it beside ddf's program (tests/netns/kfunc.sh).
$(B)/examples/ddf_vxlan.bpf.o: examples/xdp/ddf_vxlan.bpf.c \
		examples/xdp/Makefile uapi/linux/ddf.h uapi/ddf/bpf_ddf.h
	$(MAKE) --no-print-directory -C examples/xdp \
		DDF_INCLUDE=$(abspath uapi) OUT=$(abspath $(@D))

# The example under the name of ddf's own program: a user's program that
# ddfctl must not take for ddf's (tests/netns/xdpfind.sh).
$(B)/examples/ddf_xdp_judge.bpf.o: examples/xdp/ddf_vxlan.bpf.c \
		uapi/linux/ddf.h uapi/ddf/bpf_ddf.h
	@mkdir -p $(dir $@)
	$(BPF_CC) -target $(BPF_TARGET) -Dddf_vxlan=ddf_xdp_judge -c $< -o $@

ifeq ($(BPF_TARGET),bpfel)
$(B)/xdp/ddf_xdp.skel.h: $(B)/xdp/ddf_xdp.bpf.o
	bpftool gen skeleton $< name ddf_xdp >$@.tmp && mv $@.tmp $@
else
# bpftool reads objects of this machine's byte order only: the skeleton of
# the little-endian twin, with the big-endian object's bytes in it
$(B)/xdp/ddf_xdp-le.bpf.o: tools/xdp/ddf_xdp.bpf.c uapi/linux/ddf.h \
		uapi/ddf/bpf_ddf.h
	@mkdir -p $(dir $@)
	$(BPF_CC) -target bpfel -c $< -o $@
$(B)/xdp/ddf_xdp.skel.h: $(B)/xdp/ddf_xdp.bpf.o $(B)/xdp/ddf_xdp-le.bpf.o
	bpftool gen skeleton $(B)/xdp/ddf_xdp-le.bpf.o name ddf_xdp >$@.le
	scripts/skel-object.py $@.le $< >$@.tmp && mv $@.tmp $@
endif

$(B)/ddfctl: $(CTL_SRCS) $(CTL_HDRS) $(B)/libddf_core.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CORE_CPPFLAGS) -Iuapi -I$(B)/xdp \
		$(CTL_SRCS) $(LDFLAGS) $(B)/libddf_core.a $(CTL_LIBS) -o $@

$(B)/ddfctl_msg_tests: tests/tools/test_ddfctl_msg.c tests/tools/check.h \
		tests/tools/rule_reply.c tests/tools/rule_reply.h \
		$(CTL_SRCS) $(CTL_HDRS) $(B)/libddf_core.a
	$(CC) $(CFLAGS) $(CORE_CPPFLAGS) -Iuapi -Itools/ddfctl -I$(B)/xdp $< \
		tests/tools/rule_reply.c $(filter-out %/ddfctl.c,$(CTL_SRCS)) \
		$(B)/libddf_core.a $(CTL_LIBS) -o $@

# save then restore over generated states of the rules' devices
$(B)/ddfctl_save_tests: tests/tools/test_save_states.c \
		tests/tools/port_states.c tests/tools/port_states.h \
		tests/tools/rule_reply.c tests/tools/rule_reply.h \
		$(CTL_SRCS) $(CTL_HDRS) $(B)/libddf_core.a
	$(CC) $(CFLAGS) $(CORE_CPPFLAGS) -Iuapi -Itools/ddfctl -I$(B)/xdp $< \
		tests/tools/port_states.c tests/tools/rule_reply.c \
		$(filter-out %/ddfctl.c,$(CTL_SRCS)) $(B)/libddf_core.a \
		$(CTL_LIBS) -o $@

# ddfctl -o prometheus over crafted replies (tests/tools/test_prom.sh)
$(B)/ddfctl_prom_tests: tests/tools/test_prom.c tests/tools/check.h \
		tests/tools/rule_reply.c tests/tools/rule_reply.h \
		$(CTL_SRCS) $(CTL_HDRS) $(B)/libddf_core.a
	$(CC) $(CFLAGS) $(CORE_CPPFLAGS) -Iuapi -Itools/ddfctl -I$(B)/xdp $< \
		tests/tools/rule_reply.c $(filter-out %/ddfctl.c,$(CTL_SRCS)) \
		$(B)/libddf_core.a $(CTL_LIBS) -o $@

# ddfctl -j's printers over names of every byte (tests/tools/test_json.sh)
$(B)/ddfctl_json_tests: tests/tools/test_json.c tests/tools/rule_reply.c \
		tests/tools/rule_reply.h $(CTL_SRCS) $(CTL_HDRS) \
		$(B)/libddf_core.a
	$(CC) $(CFLAGS) $(CORE_CPPFLAGS) -Iuapi -Itools/ddfctl -I$(B)/xdp $< \
		tests/tools/rule_reply.c $(filter-out %/ddfctl.c,$(CTL_SRCS)) \
		$(B)/libddf_core.a $(CTL_LIBS) -o $@

# ddfctl under ASan and UBSan (check-tools): restore and apply, and the XDP
# load they make for each attachment in one process, with libbpf's load
# and open_memstream() failing as a test says (tests/tools/test_xdp_load.c).
ASAN_CFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	       -fno-omit-frame-pointer
$(B)/asan/ddfctl: $(CTL_SRCS) $(CTL_HDRS) $(B)/libddf_core.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(ASAN_CFLAGS) $(CORE_CPPFLAGS) -Iuapi \
		-I$(B)/xdp $(CTL_SRCS) $(LDFLAGS) $(B)/libddf_core.a \
		$(CTL_LIBS) -o $@

$(B)/asan/ddfctl_xdp_tests: tests/tools/test_xdp_load.c tests/tools/check.h \
		$(CTL_SRCS) $(CTL_HDRS) $(B)/libddf_core.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASAN_CFLAGS) $(CORE_CPPFLAGS) -Iuapi -Itools/ddfctl \
		-I$(B)/xdp $< $(filter-out %/ddfctl.c,$(CTL_SRCS)) \
		$(B)/libddf_core.a $(CTL_LIBS) \
		-Wl,--wrap=open_memstream,--wrap=bpf_object__load_skeleton -o $@

# replay's reader over crafted captures, under ASan and UBSan
# (tests/tools/test_replay_times.sh)
$(B)/asan/ddfctl_pcap_times: tests/tools/pcap_times.c $(CTL_SRCS) \
		$(CTL_HDRS) $(B)/libddf_core.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASAN_CFLAGS) $(CORE_CPPFLAGS) -Iuapi -Itools/ddfctl \
		-I$(B)/xdp $< $(filter-out %/ddfctl.c,$(CTL_SRCS)) \
		$(B)/libddf_core.a $(CTL_LIBS) -o $@

# libFuzzer's targets over every parser of untrusted bytes: make fuzz,
# check-fuzz, fuzz-coverage (tests/fuzz/fuzz.mk)
include tests/fuzz/fuzz.mk

# ddfpkt, the integration scripts' packet tool: plain libc, copied into the
# VMs' initramfs next to ddfctl.
$(B)/ddfpkt: tests/netns/ddfpkt.c tests/lib/wire.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/lib $< -o $@

# ddfxsk, the integration scripts' AF_XDP capture: libxdp's xsk API, as
# capture tools open their sockets; copied into the VMs' initramfs.
$(B)/ddfxsk: tests/netns/ddfxsk.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -lxdp -lbpf -o $@

# xdprace.so, preloaded, puts another XDP program on a device just before
# the process detaches one (tests/netns/xdpshare.sh); copied into the VMs.
$(B)/xdprace.so: tests/netns/xdprace.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -fPIC $< -ldl -lbpf -o $@

# ddf_spangen writes what a mirror port delivers and what a family netdev
# rule keeps of it (tests/netns/span.sh); libpcap, copied into the VMs.
$(B)/ddf_spangen: tests/netns/spangen.c tests/lib/wire.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/lib $< -lpcap -o $@

# The robustness suites' tools (tests/robust/*.c): libc and libmnl, copied
# into the VMs' initramfs as /usr/bin/<name>.
$(B)/robust/%: tests/robust/%.c uapi/linux/ddf.h tests/lib/wire.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Iuapi -Itests/lib $< -lmnl -o $@

# ddf_craft (tests/robust/adversarial.sh) links the core: the key hash,
# the sizing and the block mapping of the rules it attacks.
$(B)/robust/ddf_craft: tests/robust/ddf_craft.c $(B)/libddf_core.a $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(CORE_CPPFLAGS) $< $(B)/libddf_core.a -lm -o $@

# libxt_ddf.so, the iptables extension of the match "ddf" (libxtables):
# XTABLES_LIBDIR=$(B):<the stock xtables directory> iptables -m ddf ...
$(B)/libxt_ddf.so: tools/xtables/libxt_ddf.c uapi/linux/netfilter/xt_ddf.h \
		uapi/linux/ddf.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -Iuapi -fPIC -shared $< $(LDFLAGS) \
		-lxtables -o $@

# ddf_pcapgen writes captures with duplicates at known places: the replay
# tests' and, as build/replay.pcap, the one the VMs replay (initramfs.sh).
$(B)/ddf_pcapgen: tests/tools/pcapgen.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -lpcap -o $@

# ddf_advisegen: two ports' captures with copies of known delays and
# differences, for ddfctl advise (tests/tools/test_advise.sh)
$(B)/ddf_advisegen: tests/tools/advisegen.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -lpcap -o $@

$(B)/replay.pcap: $(B)/ddf_pcapgen
	$(B)/ddf_pcapgen mixed $@ >/dev/null

# the same records as two capture ports see them (tests/netns/replay.sh)
$(B)/replay-port1.pcap: $(B)/ddf_pcapgen
	$(B)/ddf_pcapgen ports $@ $(B)/replay-port2.pcap >/dev/null

check-tools: $(B)/ddfctl $(B)/ddfbench $(B)/ddfctl_msg_tests \
		$(B)/ddfctl_save_tests \
		$(B)/ddf_pcapgen $(B)/ddf_advisegen $(B)/robust/ddf_craft \
		$(B)/ddfctl_prom_tests $(B)/ddfctl_json_tests $(B)/asan/ddfctl \
		$(B)/asan/ddfctl_xdp_tests $(B)/asan/ddfctl_pcap_times
	$(B)/ddfctl_msg_tests
	$(B)/ddfctl_save_tests
	tests/tools/test_ddfctl.sh $(B)
	tests/tools/test_prom.sh $(B)
	tests/tools/test_json.sh $(B)
	tests/tools/test_example_multiarch.sh
	tests/tools/test_setup_names.sh
	tests/tools/test_asan.sh $(B)
	tests/tools/test_replay.sh $(B)
	tests/tools/test_replay_merge.sh $(B)
	tests/tools/test_replay_editcap.sh $(B)
	tests/tools/test_replay_times.sh $(B)
	tests/tools/test_advise.sh $(B)
	tests/tools/test_ynl_spec.sh $(B)
	DDF_BUILD=$(abspath $(B)) tests/robust/adversarial.sh offline
	tests/tools/test_install.sh $(B)
	tests/tools/test_units.sh $(B)
	tests/tools/test_docs.sh $(B)
	tests/tools/test_completion.sh $(B)
	tests/ddfbench/options.sh $(B)

setup:
	@scripts/setup-debian.sh

# The module at work: built for Debian's stock 6.12, which boots under
# QEMU (tests/qemu/run.sh demo, tests/demo/demo.sh); setup installs that
# kernel's image and headers (scripts/packages-vm.txt).
demo: setup all
	@tests/qemu/run.sh demo

# What a 1M-packet window at a one-in-a-million false-positive rate costs,
# and what a filter really does on a stream.
demo-filters: setup $(B)/ddfbench
	$(B)/ddfbench size --filter apbbf --window 1000000 --fpr 1e-6
	$(B)/ddfbench size --filter qqhtd --window 1000000 --fpr 1e-6
	$(B)/ddfbench accuracy --filter apbbf --window 100000 --fpr 1e-3 \
		--inserts 1000000 --probes 1000000

check: setup kernel-background check-user check-vm

# The userspace checks side by side: most of their time is one process at
# a time, so on a 2-core machine one core would idle. Each target's output
# is printed whole when it ends.
CHECK_JOBS ?= $(shell nproc)
check-user:
	@$(MAKE) --no-print-directory -j$(CHECK_JOBS) --output-sync=target \
		check-freestanding check-core check-tools check-deb check-fuzz

# On a cold machine the debug kernel builds while the other checks run, and
# so do the roots of the stock lane's kernels (tests/qemu/kroot.sh).
.PHONY: kernel-background
kernel-background:
	@tests/qemu/kernel.sh --background
	@tests/qemu/kroot.sh --background

check-core: $(B)/ddf_core_tests $(B)/tsan/ddf_core_tests
	@tests/core/fp_contract.sh $(CC) $(CPPFLAGS) $(CFLAGS) $(CORE_CPPFLAGS) \
		-Iuapi
	$(B)/ddf_core_tests
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
		$(B)/tsan/ddf_core_tests $(TSAN_SUITES)

# The suites with threads again under ThreadSanitizer: a race fails them.
TSAN_SUITES := ddf_concurrency ddf_tickets ddf_interleave ddf_qht_concurrent \
	       ddf_window_rates ddf_a2_rates ddf_bdbf_rates
$(B)/tsan/ddf_core_tests: $(TEST_SRCS) $(TEST_HDRS) $(CORE_SRCS) $(CORE_HDRS) \
		$(B)/cflags
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -O1 -fsanitize=thread $(TEST_CPPFLAGS) -Itests/core \
		-pthread $(TEST_SRCS) $(CORE_SRCS) -lm -o $@

# Each core file must build with no libc and reference nothing but mem*,
# and each core header on its own (it includes what it uses: the headers
# depend one way, from ddf_key.c down to ddf_env.h);
# NH and the key with NH's portable product too, on this target and, where
# the compiler builds for it, on 32-bit x86, which has no unsigned __int128.
NH_M32 := $(shell echo 'int x;' | $(CC) -m32 -x c -c - -o /dev/null \
	2>/dev/null && echo -m32)
check-freestanding:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; bad=0; \
	for f in $(CORE_SRCS); do \
		$(CC) -std=gnu11 -O2 -ffreestanding -fno-builtin -nostdlib \
			$(CORE_CPPFLAGS) -c $$f -o $$tmp/o.o; \
		und=$$(nm -u $$tmp/o.o | awk '{print $$2}' | \
			grep -vE '^(memcpy|memset|memmove|memcmp)$$' || true); \
		if [ -n "$$und" ]; then echo "$$f needs: $$und"; bad=1; fi; \
	done; \
	for f in ddf_core/ddf_nh.c ddf_core/ddf_key.c; do \
		for v in -DDDF_NH_PORTABLE $(NH_M32); do \
			$(CC) -std=gnu11 -O2 -ffreestanding -fno-builtin \
				-nostdlib -fno-pic $$v $(CORE_CPPFLAGS) -c $$f \
				-o $$tmp/o.o; \
			und=$$(nm -u $$tmp/o.o | awk '{print $$2}' | \
				grep -vE '^(memcpy|memset|memmove|memcmp)$$' || true); \
			if [ -n "$$und" ]; then echo "$$f ($$v) needs: $$und"; \
				bad=1; fi; \
		done; \
	done; \
	for h in $(filter ddf_core/%,$(filter-out ddf_core/env/%,$(CORE_HDRS))); do \
		echo "#include \"$${h#ddf_core/}\"" | $(CC) -std=gnu11 \
			-ffreestanding -Werror=implicit-function-declaration \
			$(CORE_CPPFLAGS) -fsyntax-only -x c - || \
			{ echo "$$h does not build alone"; bad=1; }; \
	done; \
	sys=$$(grep -rnE '^\s*#\s*include\s*<' ddf_core --include='*.[ch]' | \
		grep -v '^ddf_core/env/' || true); \
	if [ -n "$$sys" ]; then echo "system headers outside env/:"; \
		echo "$$sys"; bad=1; fi; \
	[ $$bad = 0 ] && echo "freestanding: $(words $(CORE_SRCS)) files OK;" \
		"NH's portable product$(if $(NH_M32), and -m32) OK;" \
		"each header alone OK"; \
	exit $$bad

clean:
	rm -rf $(B)

# ---- Installation: make install / uninstall, DKMS ----
# make [modules|install|uninstall] [KVER=release] [DESTDIR=dir] [PREFIX=/usr/local]
# The module builds in a copy of its sources (build/kmod/KVER), so that the
# tree stays clean and one build per kernel can coexist.
KVER     ?= $(shell uname -r)
KDIR     ?= /lib/modules/$(KVER)/build
PREFIX   ?= /usr/local
DESTDIR  ?=
XTLIBDIR ?= $(or $(shell pkg-config --variable=xtlibdir xtables 2>/dev/null),\
		 /usr/lib/$(shell $(CC) -print-multiarch)/xtables)
DDF_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
# copy-ksrc DIR: what Kbuild needs (module, core, ABI, KUnit suites).
define copy-ksrc
	rm -rf $(1) && mkdir -p $(1)/tests
	mkdir -p $(1)/scripts
	cp -a Kbuild dkms.conf nf_ddf ddf_core uapi $(1)/
	cp -a scripts/module-btf.sh $(1)/scripts/
	cp -a tests/core tests/kunit $(1)/tests/
endef
KBUILD_DIR := $(B)/kmod/$(KVER)
BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
# systemd/*.service name /usr/sbin/ddfctl: installed, they name PREFIX's.
# /etc/ddf/ddf.rules and /etc/default/ddf are installed where absent and
# uninstalled as installed: an edited one is the operator's.
UNIT_SED := sed 's|/usr/sbin/ddfctl|$(PREFIX)/sbin/ddfctl|g'

.PHONY: modules install install-modules install-tools install-dev uninstall \
	dkms-src
modules:
	@test -e $(KDIR)/Makefile || { echo "no kernel headers in $(KDIR):" \
		"apt install linux-headers-$(KVER), or give KVER= or KDIR="; exit 1; }
	$(call copy-ksrc,$(KBUILD_DIR))
	$(MAKE) -C $(KDIR) M=$(abspath $(KBUILD_DIR)) modules
	scripts/module-btf.sh $(KDIR) $(KBUILD_DIR)/nf_ddf.ko

# nf_ddf.ko for Debian's arm64 kernels, cross-built here: ARM64_KVER (the
# releases; default every one of tests/qemu/sysroot.sh's arm64 root:
# Debian's 6.1 and 6.12) into $(B)/arm64/RELEASE/, with their BTF
ARM64_KVER ?=
.PHONY: modules-arm64
modules-arm64:
	@DDF_EXTRA_PKGS="gcc-aarch64-linux-gnu mmdebstrap" scripts/setup-debian.sh
	@set -e; root=$$(tests/qemu/sysroot.sh arm64); \
	rels="$(ARM64_KVER)"; \
	[ -n "$$rels" ] || rels=$$(ls "$$root/lib/modules"); \
	for r in $$rels; do \
		tree=$$(. tests/qemu/lib.sh && arm64_tree "$$root" "$$r" \
			"$(abspath $(B))/arm64/kbuild-$$r"); \
		d=$(B)/arm64/$$r; \
		DDF_BOOT_DIR=$$root/boot OBJCOPY=aarch64-linux-gnu-objcopy \
			$(MAKE) --no-print-directory modules KVER=$$r \
			KDIR=$$tree KBUILD_DIR=$$d DEB_HOST_ARCH=arm64 \
			DEB_HOST_GNU_TYPE=aarch64-linux-gnu; \
		echo "modules-arm64: $$d/nf_ddf.ko ($$(modinfo -F vermagic $$d/nf_ddf.ko))"; \
	done

install: install-modules install-tools install-dev

# depmod for the running system only: a DESTDIR is someone else's tree.
install-modules: modules
	install -D -m 644 $(KBUILD_DIR)/nf_ddf.ko \
		$(DESTDIR)/lib/modules/$(KVER)/extra/nf_ddf.ko
	$(if $(DESTDIR),,depmod -a $(KVER))

# libxt_ddf's section is a fragment of iptables-extensions(8); installed
# alone as libxt_ddf(8).
install-tools: $(B)/ddfctl $(B)/ddfbench $(B)/libxt_ddf.so
	install -D -m 755 $(B)/ddfctl $(DESTDIR)$(PREFIX)/sbin/ddfctl
	install -D -m 755 $(B)/ddfbench $(DESTDIR)$(PREFIX)/bin/ddfbench
	install -D -m 644 $(B)/libxt_ddf.so $(DESTDIR)$(XTLIBDIR)/libxt_ddf.so
	install -D -m 644 tools/ddfctl/ddfctl.8 \
		$(DESTDIR)$(PREFIX)/share/man/man8/ddfctl.8
	install -D -m 644 tools/ddfbench/ddfbench.1 \
		$(DESTDIR)$(PREFIX)/share/man/man1/ddfbench.1
	install -D -m 644 docs/ddf.7 $(DESTDIR)$(PREFIX)/share/man/man7/ddf.7
	mkdir -p $(DESTDIR)$(PREFIX)/share/man/man8
	{ echo '.TH LIBXT_DDF 8 "" "ddf $(DDF_VERSION)" "iptables extension"'; \
	  echo '.SH NAME'; echo 'libxt_ddf \- the iptables match ddf'; \
	  echo '.SH DESCRIPTION'; echo '.SS ddf'; \
	  cat tools/xtables/libxt_ddf.man; } \
		>$(DESTDIR)$(PREFIX)/share/man/man8/libxt_ddf.8
	install -D -m 644 tools/ddfctl/ddfctl.bash \
		$(DESTDIR)$(BASH_COMPLETION_DIR)/ddfctl
	mkdir -p $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	for u in ddf.service ddf-metrics.service ddf-metrics.timer; do \
		$(UNIT_SED) systemd/$$u >$(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$u || \
			exit 1; \
	done
	test -e $(DESTDIR)$(SYSCONFDIR)/ddf/ddf.rules || install -D -m 644 \
		systemd/ddf.rules $(DESTDIR)$(SYSCONFDIR)/ddf/ddf.rules
	test -e $(DESTDIR)$(SYSCONFDIR)/default/ddf || install -D -m 644 \
		systemd/ddf.default $(DESTDIR)$(SYSCONFDIR)/default/ddf

# The headers for programs of one's own: the netlink family's, and the XDP
# kfunc's for BPF programs (docs/ddf-xdp.7; package ddf-dev).
INCLUDEDIR ?= $(PREFIX)/include
install-dev:
	install -D -m 644 uapi/linux/ddf.h $(DESTDIR)$(INCLUDEDIR)/linux/ddf.h
	install -D -m 644 uapi/ddf/bpf_ddf.h \
		$(DESTDIR)$(INCLUDEDIR)/ddf/bpf_ddf.h
	install -D -m 644 docs/ddf-xdp.7 \
		$(DESTDIR)$(PREFIX)/share/man/man7/ddf-xdp.7

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/extra/nf_ddf.ko \
		$(DESTDIR)$(PREFIX)/sbin/ddfctl $(DESTDIR)$(PREFIX)/bin/ddfbench \
		$(DESTDIR)$(XTLIBDIR)/libxt_ddf.so \
		$(DESTDIR)$(PREFIX)/share/man/man8/ddfctl.8 \
		$(DESTDIR)$(PREFIX)/share/man/man1/ddfbench.1 \
		$(DESTDIR)$(PREFIX)/share/man/man8/libxt_ddf.8 \
		$(DESTDIR)$(PREFIX)/share/man/man7/ddf.7 \
		$(DESTDIR)$(PREFIX)/share/man/man7/ddf-xdp.7 \
		$(DESTDIR)$(INCLUDEDIR)/linux/ddf.h \
		$(DESTDIR)$(INCLUDEDIR)/ddf/bpf_ddf.h \
		$(DESTDIR)$(BASH_COMPLETION_DIR)/ddfctl \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR)/ddf.service \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR)/ddf-metrics.service \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR)/ddf-metrics.timer
	for f in ddf/ddf.rules:ddf.rules default/ddf:ddf.default; do \
		cmp -s systemd/$${f#*:} $(DESTDIR)$(SYSCONFDIR)/$${f%:*} && \
			rm -f $(DESTDIR)$(SYSCONFDIR)/$${f%:*}; \
	done; rmdir $(DESTDIR)$(SYSCONFDIR)/ddf 2>/dev/null || true
	rmdir $(DESTDIR)$(INCLUDEDIR)/ddf 2>/dev/null || true
	$(if $(DESTDIR),,depmod -a $(KVER))

# The module's sources where dkms looks for them; then
# dkms install ddf/$(DDF_VERSION).
dkms-src:
	$(call copy-ksrc,$(DESTDIR)/usr/src/ddf-$(DDF_VERSION))

# ---- Debian packages (debian/): make deb ----
# build/deb/ddf-dkms_VERSION_all.deb (the module's sources for DKMS),
# build/deb/ddf-tools_VERSION_ARCH.deb and build/deb/ddf-dev_VERSION_all.deb
# (the headers for programs of one's own), built in a copy of the tree
# (scripts/build-deb.sh); VERSION is dkms.conf's. check-deb lints them and
# checks what they ship; check-packages installs them on this machine with
# apt, checks DKMS's build, purges them and checks that nothing is left
# (it changes the machine's packages: not part of check), then runs
# check-packages-vm.
.PHONY: deb check-deb check-packages
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB_FILES := $(B)/deb/ddf-dkms_$(DDF_VERSION)_all.deb \
	     $(B)/deb/ddf-tools_$(DDF_VERSION)_$(DEB_ARCH).deb \
	     $(B)/deb/ddf-dev_$(DDF_VERSION)_all.deb
# what goes into them: built again when one of these changes
DEB_INPUTS := $(shell find debian nf_ddf ddf_core uapi tools systemd \
		tests/core tests/kunit examples -type f 2>/dev/null) Kbuild \
	      dkms.conf Makefile docs/ddf.7 docs/ddf-xdp.7 scripts/build-deb.sh \
	      scripts/module-btf.sh
deb: $(DEB_FILES)
$(DEB_FILES) &: $(DEB_INPUTS)
	@scripts/build-deb.sh $(B)/deb

check-deb: deb
	tests/tools/test_deb.sh $(B)/deb
	tests/tools/test_deb_example.sh $(B)/deb

check-packages: deb $(B)/ddfpkt
	@rc=0; tests/tools/test_deb_install.sh $(B)/deb || rc=1; \
	tests/qemu/packages.sh bookworm $(B)/deb || rc=1; exit $$rc

# The packages in a Debian VM with systemd (tests/qemu/packages.sh), for
# each release of DDF_PKG_RELEASES (bookworm, trixie): apt install into its
# root filesystem (built once, cached like the kernels), DKMS's build for
# each of its kernels (on trixie, signed with DKMS's key), ddf.service
# restoring a rule with XDP after a real reboot. bookworm installs make
# deb's packages; trixie builds its own in a Debian 13 root.
# DDF_DEBS=DIR: packages built elsewhere, for every release.
# check-packages-vm-trixie: Debian 13 alone.
.PHONY: check-packages-vm check-packages-vm-trixie
DDF_PKG_RELEASES ?= bookworm
check-packages-vm: $(B)/ddfpkt \
		$(if $(DDF_DEBS),,$(if $(filter bookworm,$(DDF_PKG_RELEASES)),deb))
	@rc=0; for r in $(DDF_PKG_RELEASES); do \
		case $$r in bookworm) d=$(or $(DDF_DEBS),$(B)/deb) ;; \
		*) d="$(DDF_DEBS)" ;; esac; \
		tests/qemu/packages.sh $$r $$d || rc=1; \
	done; exit $$rc
check-packages-vm-trixie:
	@$(MAKE) --no-print-directory check-packages-vm DDF_PKG_RELEASES=trixie

# ---- QEMU lanes: real kernels, KUnit, network namespaces (tests/qemu/) ----
# Each lane ends with "check-vm-<lane>: N passed, N failed". The debug kernel
# is built once and cached outside the tree (see tests/qemu/README.md).
.PHONY: check-vm check-vm-stock check-vm-debug vm-shell tcpdump-tests
# tcpdump's test captures (a cache outside the tree), which the debug lane's
# robust/malformed.sh replays: a failed fetch is that suite's to report.
tcpdump-tests:
	-@scripts/fetch-tcpdump-tests.sh >/dev/null

# The lanes copy $(B)/ddfctl, $(B)/ddfpkt and the rest of "all" into the VMs;
# the kernel-path benchmark's smoke run goes with them.
# The benchmark's smoke run (one VM, its counts exact under -icount) goes
# beside the stock lane, whose two VMs leave about half of the CPUs idle
# (their scripts wait on traffic and captures); its report follows theirs.
check-vm: all tcpdump-tests
	@rc=0; \
	DDF_VM_DIR=$(abspath $(B))/vm-bench tests/bench/run.sh smoke \
		>$(B)/bench-smoke.log 2>&1 & bench=$$!; \
	tests/qemu/run.sh stock || rc=1; \
	wait $$bench || rc=1; cat $(B)/bench-smoke.log; \
	tests/qemu/run.sh debug || rc=1; exit $$rc

check-vm-stock: all
	@tests/qemu/run.sh stock

# The stock lane's scripts on Debian 13's kernels, its 6.12 and its
# backports' newest (7.3 today), and on unstable's (7.2 today), fetched
# from Debian's archive as the stock lane's are (tests/qemu/kernels.txt).
# Not in check: its time would go over check's (see the README's lanes).
.PHONY: check-vm-newest check-vm-sid
check-vm-newest: all
	@tests/qemu/run.sh newest

check-vm-sid: all
	@tests/qemu/run.sh sid

check-vm-debug: all tcpdump-tests
	@tests/qemu/run.sh debug

# Data races: a KCSAN kernel (built once, cached like the debug kernel), 2
# vCPUs, rule churn and traffic from both CPUs. Long: not part of check.
.PHONY: check-kcsan
check-kcsan: setup all
	@tests/qemu/run.sh kcsan

# The core and replay on other CPUs (tests/cross/run.sh): ddf_core_tests
# and ddfctl cross-built for CROSS_ARCHS against Debian's libraries of
# each, run under qemu-user; replay must decide as here, record by record,
# and sizing give the same shapes, bit for bit (tests/cross/size.sh).
CROSS_ARCHS ?= arm64 s390x
CROSS_PKGS := gcc-aarch64-linux-gnu gcc-s390x-linux-gnu qemu-user-static \
	      mmdebstrap
# Debian's arm64 kernels (6.1 and 6.12) under qemu-system-aarch64 (TCG):
# nf_ddf and the tools cross-built for them, the stock lane's scripts
# (tests/qemu/run.sh arm64; not in check: see the README's lanes)
ARM64_PKGS := gcc-aarch64-linux-gnu qemu-system-arm mmdebstrap
.PHONY: check-arm64
check-arm64: setup all tcpdump-tests
	@DDF_EXTRA_PKGS="$(ARM64_PKGS)" scripts/setup-debian.sh
	@tests/qemu/run.sh arm64

# The README's commands on a fresh Debian 13 machine, this one being Debian
# 12: a trixie root made by mmdebstrap (cached), this machine's /proc, /sys
# and /dev mounted in it, a clone of HEAD, and there make demo, check-user
# and check-vm-stock (tests/qemu/host.sh; not in check: see the README).
.PHONY: check-host-debian13
check-host-debian13: setup
	@tests/qemu/host.sh trixie

# The core's sizing over a grid and its shape boundaries (tests/cross/size.sh)
$(B)/ddf_size_grid: tests/cross/size_grid.c $(B)/libddf_core.a $(CORE_HDRS)
	$(CC) $(CFLAGS) $(CORE_CPPFLAGS) $< $(B)/libddf_core.a -o $@

.PHONY: check-cross
check-cross: $(B)/ddfctl $(B)/ddf_pcapgen $(B)/ddf_spangen \
		$(B)/robust/ddf_craft $(B)/ddf_size_grid tcpdump-tests
	@DDF_EXTRA_PKGS="$(CROSS_PKGS)" scripts/setup-debian.sh
	@tests/cross/run.sh $(CROSS_ARCHS)

# The robustness suites (tests/robust/, debug lane) at their long sizes.
.PHONY: soak
soak: setup all tcpdump-tests
	@DDF_SOAK=1 DDF_TEST_TIMEOUT=3600 DDF_VM_TIMEOUT_DEBUG=10800 \
		tests/qemu/run.sh debug

# The key's fast path against its general walk over 10^8 frames (check-core
# drives 10^6): DDF_KEYDIFF_SEED=S repeats a run.
.PHONY: soak-key
soak-key: $(B)/ddf_core_tests
	DDF_KEYDIFF_FRAMES=$(or $(DDF_KEYDIFF_FRAMES),100000000) \
		$(B)/ddf_core_tests ddf_key_diff

# A shell in the VM with nf_ddf loaded: make vm-shell [LANE=debug|stock]
vm-shell: all
	@tests/qemu/run.sh shell $(or $(LANE),debug)

# ---- The kernel-path benchmark (tests/bench/): check runs its smoke run ----
.PHONY: bench-kernel bench-smoke
$(B)/ddf_hotpath: tests/bench/hotpath.c tests/bench/bench_frame.h $(CORE_HDRS) $(B)/libddf_core.a
	$(CC) $(CFLAGS) $(CORE_CPPFLAGS) $< $(B)/libddf_core.a -lm -o $@

# The key alone (ddf_key_hash_link() over Ethernet frames): instructions
# per frame under callgrind, build/bench/callgrind-key.jsonl.
$(B)/ddf_keypath: tests/bench/keypath.c tests/bench/bench_frame.h $(CORE_HDRS) $(B)/libddf_core.a
	$(CC) $(CFLAGS) $(CORE_CPPFLAGS) $< $(B)/libddf_core.a -o $@

.PHONY: bench-key
bench-key: $(B)/ddf_keypath
	@mkdir -p $(B)/bench
	tests/bench/callgrind-key.sh $(B) $(B)/bench/callgrind-key.jsonl

# The userspace packet path on the clock (key packet, apbbf at a 10^6
# window): nanoseconds per packet at 64, 512 and 1500 bytes, median of 5.
.PHONY: bench-time
bench-time: $(B)/ddf_hotpath
	tests/bench/time.sh $(B)

# The shapes of tune memory and tune speed beside the other rules tune
# speed could have had, interleaved in one process (docs/tuning.md).
$(B)/ddf_tune: tests/bench/tune.c $(CORE_HDRS) $(B)/libddf_core.a
	$(CC) $(CFLAGS) $(CORE_CPPFLAGS) $< $(B)/libddf_core.a -lm -o $@

.PHONY: bench-tune
bench-tune: $(B)/ddf_tune
	@for f in 1e-3 1e-6 1e-9; do for w in 10000 100000 1000000 10000000; do \
		$(B)/ddf_tune $$f $$w || exit 1; done; done

# The adoption test of a change to the key: every capture replayed by
# ddfctl as built at git revision BASE (unpacked into $(B)/key-base) and
# as built here, decision by decision (scripts/key-adoption.sh); not in
# check.
.PHONY: key-adoption
key-adoption: $(B)/ddfctl $(B)/ddf_pcapgen $(B)/ddf_spangen $(B)/robust/ddf_craft
	@test -n "$(BASE)" || { echo "make key-adoption BASE=REV: the git revision to compare with"; exit 2; }
	rm -rf $(B)/key-base && mkdir -p $(B)/key-base
	git archive $(BASE) | tar -x -C $(B)/key-base
	$(MAKE) --no-print-directory -C $(B)/key-base build/ddfctl
	scripts/key-adoption.sh $(B)/key-base/build/ddfctl $(B)/ddfctl $(B)

# BENCH=xdp: the veth XDP rows alone (alone, behind libxdp's dispatcher)
bench-kernel: setup all $(B)/ddf_hotpath
	@tests/bench/run.sh $(or $(BENCH),full)

# A few seconds of traffic: no rule, the nft counter, one ddf rule.
bench-smoke: all
	@tests/bench/run.sh smoke

# ---- The papers' tables, every filter's speed and accuracy (userspace) ----
# tests/reproduce/bench.sh: ddfbench reproduce all, speed --all and
# accuracy --all, then JSON, Markdown and gnuplot PNGs in build/bench/.
.PHONY: bench
bench: setup $(B)/ddfbench
	@tests/reproduce/bench.sh full
