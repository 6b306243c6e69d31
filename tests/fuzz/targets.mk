# SPDX-License-Identifier: GPL-2.0
# The fuzz targets (tests/fuzz/fuzz.mk): one block each.

# device names: escaped and read back (tools/ddfctl/ifname.c)
FUZZ_TARGETS += ifname
FUZZ_SRCS_ifname := tests/fuzz/fuzz_ifname.c tests/fuzz/fuzz_tools.c
FUZZ_LIBS_ifname := $(FUZZ_CTL) $(FUZZ_CORE) -lmnl -lxdp -lbpf -lm

# restore's files, and save's lines of what they hold read back
# (tools/ddfctl/restore.c, state.c, parse*.c, print.c)
FUZZ_TARGETS += restore
FUZZ_SRCS_restore := tests/fuzz/fuzz_restore.c tests/fuzz/fuzz_rules.c \
		     tests/fuzz/fuzz_tools.c
FUZZ_LIBS_restore := $(FUZZ_CTL) $(FUZZ_CORE) -lmnl -lxdp -lbpf -lm

# command lines: rule add (saved and read back), replay's rule words,
# xdp's words, size (tools/ddfctl/parse*.c, xdp.c, size.c)
FUZZ_TARGETS += rule_words
FUZZ_SRCS_rule_words := tests/fuzz/fuzz_rule_words.c tests/fuzz/fuzz_rules.c \
			tests/fuzz/fuzz_tools.c
FUZZ_LIBS_rule_words := $(FUZZ_CTL) $(FUZZ_CORE) -lmnl -lxdp -lbpf -lm

# captures, alone and merged (tools/ddfctl/pcap_merge.c, pcapng_time.c,
# replay_pcapng.c)
FUZZ_TARGETS += pcap_merge
FUZZ_SRCS_pcap_merge := tests/fuzz/fuzz_pcap_merge.c tests/fuzz/fuzz_tools.c
FUZZ_LIBS_pcap_merge := $(FUZZ_CTL) $(FUZZ_CORE) -lmnl -lxdp -lbpf -lm

# the key over any frame and spec: fast path, general walk, reference,
# ignore words (ddf_core/ddf_key*.c, *.h)
FUZZ_TARGETS += key
FUZZ_SRCS_key := tests/fuzz/fuzz_key.c tests/core/user/key_string.c
FUZZ_LIBS_key := $(FUZZ_CORE) -lm
# frames up to a few NH chunks long (a long key's region)
FUZZ_ARGS_key := -max_len=4200

# the XDP frame reader of the module (nf_ddf/nf_ddf_xdp_frame.h) over a
# shim of the kernel's xdp_buff: a multi-buffer frame keys as whole
FUZZ_TARGETS += xdp
FUZZ_SRCS_xdp := tests/fuzz/fuzz_xdp.c
FUZZ_LIBS_xdp := $(FUZZ_CORE) -lm
FUZZ_CPPFLAGS_xdp := -Itests/fuzz/shim -Inf_ddf
FUZZ_ARGS_xdp := -max_len=4200

# the filter's parameters: the core's checks against the kernel's
# policy, sizing, the filter built (ddf_registry.h, ddf_size*.c)
FUZZ_TARGETS += spec
FUZZ_SRCS_spec := tests/fuzz/fuzz_spec.c
FUZZ_LIBS_spec := $(FUZZ_CORE) -lm
FUZZ_ARGS_spec := -timeout=10 -max_len=256

# apply's plan from one set of rules to another, run with undo
# (tools/ddfctl/state.c, restore.c)
FUZZ_TARGETS += apply
FUZZ_SRCS_apply := tests/fuzz/fuzz_apply.c tests/fuzz/fuzz_rules.c \
		   tests/fuzz/fuzz_tools.c
FUZZ_LIBS_apply := $(FUZZ_CTL) $(FUZZ_CORE) -lmnl -lxdp -lbpf -lm

# ddfctl advise over captures (tools/ddfctl/advise.c, advise_print.c,
# replay_link.c and the capture reader)
FUZZ_TARGETS += advise
FUZZ_SRCS_advise := tests/fuzz/fuzz_advise.c tests/fuzz/fuzz_tools.c
FUZZ_LIBS_advise := $(FUZZ_CTL) $(FUZZ_CORE) -lmnl -lxdp -lbpf -lm \
		    -Wl,--wrap=parse_rule_words,--wrap=getrandom

# the kernel's replies: decoded and printed as every command prints them
# (tools/ddfctl/nl.c, print.c, prom.c, state.c)
FUZZ_TARGETS += nl_reply
FUZZ_SRCS_nl_reply := tests/fuzz/fuzz_nl_reply.c tests/fuzz/fuzz_rules.c \
		      tests/fuzz/fuzz_tools.c
FUZZ_LIBS_nl_reply := $(FUZZ_CTL) $(FUZZ_CORE) -lmnl -lxdp -lbpf -lm \
		      -Wl,--wrap=xdp_mode_on,--wrap=xdp_attached

# make check-fuzz's runs of each target after its replay: about 7 s each,
# two at a time on a 2-core machine (the whole within its 2 minutes)
FUZZ_CHECK_RUNS_ifname := 600000
FUZZ_CHECK_RUNS_restore := 20000
FUZZ_CHECK_RUNS_rule_words := 20000
FUZZ_CHECK_RUNS_pcap_merge := 50000
FUZZ_CHECK_RUNS_key := 150000
FUZZ_CHECK_RUNS_xdp := 70000
FUZZ_CHECK_RUNS_spec := 4000
FUZZ_CHECK_RUNS_apply := 9000
FUZZ_CHECK_RUNS_advise := 12000
FUZZ_CHECK_RUNS_nl_reply := 60000
