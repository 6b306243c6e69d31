# SPDX-License-Identifier: GPL-2.0
# The fuzz targets (tests/fuzz/fuzz.mk builds and runs them): one block
# each, its sources beside the core built with the sanitizers.

# the key over any frame and spec: fast path, general walk, reference
FUZZ_TARGETS += key
FUZZ_SRCS_key := tests/fuzz/fuzz_key.c tests/core/user/key_string.c
FUZZ_LIBS_key := $(B)/fuzz/libddf_core_fuzz.a -lm
# frames up to a few NH chunks long (a long key's region)
FUZZ_ARGS_key := -max_len=4200

# the filter's parameters: the core's checks, sizing, the filter built
FUZZ_TARGETS += spec
FUZZ_SRCS_spec := tests/fuzz/fuzz_spec.c
FUZZ_LIBS_spec := $(B)/fuzz/libddf_core_fuzz.a -lm
FUZZ_ARGS_spec := -timeout=10 -max_len=256

# the XDP frame reader of the module over a shim of the kernel's xdp_buff
FUZZ_TARGETS += xdp
FUZZ_SRCS_xdp := tests/fuzz/fuzz_xdp.c
FUZZ_LIBS_xdp := $(B)/fuzz/libddf_core_fuzz.a -lm
FUZZ_CPPFLAGS_xdp := -Itests/fuzz/shim -Inf_ddf
FUZZ_ARGS_xdp := -max_len=4200
