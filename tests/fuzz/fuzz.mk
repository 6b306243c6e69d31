# SPDX-License-Identifier: GPL-2.0
# Coverage-guided fuzzing (libFuzzer, clang) of the parsers of untrusted
# bytes: included by the Makefile. The targets are listed in
# tests/fuzz/targets.mk, one block each:
#
#   FUZZ_TARGETS += NAME
#   FUZZ_SRCS_NAME := tests/fuzz/fuzz_NAME.c <more .c built with it>
#   FUZZ_LIBS_NAME := $(FUZZ_CORE) $(FUZZ_CTL) -l... -Wl,...
#   FUZZ_CPPFLAGS_NAME := -I... (optional: its sources' own)
#   FUZZ_ARGS_NAME := -max_len=N ... (optional: libFuzzer's, every run)
#
# $(FUZZ_CORE) is ddf_core and $(FUZZ_CTL) ddfctl's sources but ddfctl.c,
# each compiled from the same sources and with the same flags as the
# Makefile's builds, plus the sanitizers and libFuzzer's instrumentation.
# The same objects again with clang's source-based coverage and without
# the sanitizers make the coverage build (make fuzz-coverage).
#
# tests/fuzz/corpus/NAME/ holds a target's seeds (small, minimised with
# -merge=1), tests/fuzz/regress/NAME/ the inputs that found a defect.

FUZZ_CC ?= clang
FUZZ_DIR := $(B)/fuzz
FUZZ_COV_DIR := $(B)/fuzz-cov
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	    -fno-omit-frame-pointer
FUZZ_COV := -fprofile-instr-generate -fcoverage-mapping
# the project's flags (the Makefile's CFLAGS: -ffp-contract=off forced)
# at -O1, where ASan's reports keep their lines
FUZZ_CFLAGS := -O1 -g $(filter-out -O%,$(CFLAGS)) \
	       -Wno-missing-field-initializers \
	       -Wno-gnu-variable-sized-type-not-at-end
FUZZ_CPPFLAGS := $(CPPFLAGS) $(CORE_CPPFLAGS) -Iuapi -Itools/ddfctl \
		 -I$(B)/xdp -Itests/fuzz
FUZZ_CORE := $(FUZZ_DIR)/libddf_core_fuzz.a
FUZZ_CTL := $(FUZZ_DIR)/libddfctl_fuzz.a
FUZZ_CTL_SRCS := $(filter-out %/ddfctl.c,$(CTL_SRCS))

include tests/fuzz/targets.mk

# make fuzz: seconds per target. make check-fuzz: after the replay, each
# target's FUZZ_CHECK_RUNS_NAME runs (targets.mk: about 7 s each here)
# from one seed, so that a check fails on every machine or on none; a
# slower machine stops at FUZZ_CHECK_TIME seconds, a prefix of the same
# runs.
FUZZ_TIME ?= 60
FUZZ_CHECK_TIME ?= 20
FUZZ_CHECK_SEED ?= 1
FUZZ_JOBS ?= $(shell nproc)
# each run's CPU time (user + system s), for the summary, where GNU time is
FUZZ_TIMER = $(if $(wildcard /usr/bin/time),/usr/bin/time -f '%U %S' \
	-o $(FUZZ_DIR)/run/$*.cpu)

# One build of the libraries and targets: $(1) its directory, $(2) its
# compile flags, $(3) its link flags. $(1)/flags changes with the flags
# (as $(B)/cflags does for the Makefile's builds): all is built again.
define fuzz-build
fuzz-flags-$(1) := $(FUZZ_CC) $(FUZZ_CFLAGS) $(2) $(FUZZ_CPPFLAGS) $(3)
ifneq ($$(fuzz-flags-$(1)),$$(shell cat $(1)/flags 2>/dev/null))
$(1)/flags: FORCE
endif
$(1)/flags:
	@mkdir -p $$(@D)
	@echo '$$(fuzz-flags-$(1))' >$$@
$(1)/core/%.o: ddf_core/%.c $(CORE_HDRS) $(1)/flags
	@mkdir -p $$(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(2) $(FUZZ_CPPFLAGS) -c $$< -o $$@
$(1)/core/ddf_apbbf_il.o: ddf_core/ddf_apbbf.c
$(1)/libddf_core_fuzz.a: $(patsubst ddf_core/%.c,$(1)/core/%.o,$(CORE_SRCS))
	rm -f $$@
	ar rcs $$@ $$^
$(1)/ddfctl/%.o: tools/ddfctl/%.c $(CTL_HDRS) $(1)/flags
	@mkdir -p $$(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(2) $(FUZZ_CPPFLAGS) -c $$< -o $$@
$(1)/libddfctl_fuzz.a: $(patsubst tools/ddfctl/%.c,$(1)/ddfctl/%.o,$(FUZZ_CTL_SRCS))
	rm -f $$@
	ar rcs $$@ $$^
$(foreach t,$(FUZZ_TARGETS),
$(1)/fuzz_$(t): $(FUZZ_SRCS_$(t)) $(wildcard tests/fuzz/*.h) \
		$(filter %.a,$(subst $(FUZZ_DIR)/,$(1)/,$(FUZZ_LIBS_$(t)))) \
		$(CORE_HDRS) $(CTL_HDRS) $(1)/flags
	@mkdir -p $$(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(2) -fsanitize=fuzzer $(FUZZ_CPPFLAGS) \
		$(FUZZ_CPPFLAGS_$(t)) $(FUZZ_SRCS_$(t)) \
		$(subst $(FUZZ_DIR)/,$(1)/,$(FUZZ_LIBS_$(t))) $(3) -o $$@
)
endef

# the libraries with libFuzzer's instrumentation but not its main()
$(eval $(call fuzz-build,$(FUZZ_DIR),$(FUZZ_SAN) -fsanitize=fuzzer-no-link,$(FUZZ_SAN)))
$(eval $(call fuzz-build,$(FUZZ_COV_DIR),$(FUZZ_COV),$(FUZZ_COV)))

FUZZ_BINS := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGETS))
.PHONY: fuzz fuzz-bins check-fuzz fuzz-coverage
fuzz-bins: $(FUZZ_BINS)

# make fuzz [FUZZ_TIME=secs] [FUZZ_TARGETS=...]: each target for FUZZ_TIME
# seconds, FUZZ_JOBS at once, new inputs into $(B)/fuzz/work/NAME/ (kept
# from run to run), what fails into $(B)/fuzz/findings/NAME/; then a
# summary line per target (tests/fuzz/summary.sh). Runs of other targets
# may go on beside it: only its own targets' logs are cleared.
fuzz: $(FUZZ_BINS)
	@rm -f $(foreach t,$(FUZZ_TARGETS),$(FUZZ_DIR)/run/$(t).log \
		$(FUZZ_DIR)/run/$(t).cpu)
	@$(MAKE) --no-print-directory -j$(FUZZ_JOBS) \
		$(patsubst %,fuzz-run-%,$(FUZZ_TARGETS)); \
	rc=$$?; tests/fuzz/summary.sh $(FUZZ_DIR) $(FUZZ_TARGETS) && \
		exit $$rc

fuzz-run-%: $(FUZZ_DIR)/fuzz_%
	@mkdir -p $(FUZZ_DIR)/run $(FUZZ_DIR)/work/$* $(FUZZ_DIR)/findings/$*
	@echo "fuzz: $* for $(FUZZ_TIME) s"
	@$(FUZZ_TIMER) nice -n 10 $< -max_total_time=$(FUZZ_TIME) \
		-print_final_stats=1 $(FUZZ_ARGS_$*) \
		-close_fd_mask=3 -artifact_prefix=$(FUZZ_DIR)/findings/$*/ \
		$(FUZZ_DIR)/work/$* tests/fuzz/corpus/$* \
		$(wildcard tests/fuzz/regress/$*) >$(FUZZ_DIR)/run/$*.log 2>&1

# make check-fuzz: every seed and regression input run once (plain runs,
# no fuzzing), then each target fuzzed from its corpus into a scratch
# directory, FUZZ_CHECK_RUNS_NAME runs from FUZZ_CHECK_SEED.
check-fuzz: $(patsubst %,fuzz-check-%,$(FUZZ_TARGETS))
	@echo "check-fuzz: $(words $(FUZZ_TARGETS)) targets passed"

fuzz-check-%: $(FUZZ_DIR)/fuzz_%
	@tests/fuzz/check.sh $< $* $(or $(FUZZ_CHECK_RUNS_$*),20000) \
		$(FUZZ_CHECK_TIME) $(FUZZ_CHECK_SEED) $(FUZZ_DIR) $(FUZZ_ARGS_$*)

# make fuzz-coverage: each target's corpus and regressions run by the
# coverage build; line and branch coverage per file of the code they
# reach, in $(B)/fuzz-cov/report.txt (and NAME.txt per target).
fuzz-coverage: $(patsubst %,$(FUZZ_COV_DIR)/fuzz_%,$(FUZZ_TARGETS))
	@tests/fuzz/coverage.sh $(FUZZ_COV_DIR) $(FUZZ_TARGETS)
