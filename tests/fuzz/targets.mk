# SPDX-License-Identifier: GPL-2.0
# The fuzz targets (tests/fuzz/fuzz.mk): one block each.

# device names: escaped and read back (tools/ddfctl/ifname.c)
FUZZ_TARGETS += ifname
FUZZ_SRCS_ifname := tests/fuzz/fuzz_ifname.c tests/fuzz/fuzz_tools.c
FUZZ_LIBS_ifname := $(FUZZ_CTL) $(FUZZ_CORE) -lmnl -lxdp -lbpf -lm
