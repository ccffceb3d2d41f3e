# SPDX-License-Identifier: MIT
# host.mk - the test suites' host programs, included by the Makefile: every
# one built with HOST_CFLAGS and SANITIZE, which the Makefile writes (not
# this file), rebuilt when a source or a header it may read changes.  The suites' scripts ask for them by name, from the top of the
# repository:
#
#   make -s --no-print-directory build/lookup/lookup-check
#
# The fuzz harnesses (clang, libFuzzer) go to FUZZ_OUT (test/fuzz/build.sh
# sets it): make FUZZ_OUT=build/fuzz/replay build/fuzz/replay/fuzz_gen.

# What any of them may include, and the flags' makefiles: over-approximated,
# a rebuild too many costs seconds.
TEST_HDRS := $(CORE_HDRS) $(wildcard test/common/*.h tools/*.h port/*.h port/*/*.h crash/*.h examples/*/trap_frame.h) \
	Makefile test/common/host.mk

HOSTCLANG ?= clang
UNIT_INC := -Icore -Iport/x86_64 -Icrash

# Unit tests, by gcc and by clang (test/unit/run.sh runs both).
$(BUILD)/unit/%-gcc: test/unit/%.c test/unit/ut.h $(TEST_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(SANITIZE) $(UNIT_INC) -o $@ $<

$(BUILD)/unit/%-clang: test/unit/%.c test/unit/ut.h $(TEST_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(HOSTCLANG) $(HOST_CFLAGS) $(SANITIZE) $(UNIT_INC) -o $@ $<

# test_ctx with the aarch64 port too: by the aarch64 cross compiler,
# static, no sanitizers (none for the cross target), run under
# qemu-aarch64 by test/unit/run.sh.
A64CC ?= aarch64-linux-gnu-gcc
$(BUILD)/unit/%-a64: test/unit/%.c test/unit/ut.h $(TEST_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(A64CC) $(HOST_CFLAGS) -static -Icore -Iport/aarch64 -Icrash -o $@ $<

# One source each, reading the core and tools/sfu_elf.h (reloc-check:
# tools/sfu_cfi.h and libdwfl).
$(BUILD)/lookup/lookup-check: test/lookup/lookup-check.c $(TEST_HDRS)
$(BUILD)/gen/gen-check: test/gen/gen-check.c $(TEST_HDRS)
$(BUILD)/gen/reloc-check: test/gen/reloc-check.c $(TEST_HDRS)
$(BUILD)/unwind/rows_check: test/unwind/rows_check.c $(TEST_HDRS)
$(BUILD)/unwind/core_v1_pcmask: test/unwind/core_v1_pcmask.c $(TEST_HDRS)
$(BUILD)/lookup/lookup-check $(BUILD)/gen/gen-check $(BUILD)/gen/reloc-check $(BUILD)/unwind/rows_check \
$(BUILD)/unwind/core_v1_pcmask:
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(SANITIZE) -o $@ $< $(SFU_ELF_LIBS)

# The core in seven configurations (test/fuzz/core_*.c, each SFU_STATIC),
# linked into the fuzz harnesses and the property tests.
FUZZ_CORES := $(addprefix test/fuzz/core_,$(addsuffix .c,default fpfb min cache v3be v1 general))
FUZZ_HDRS := $(wildcard test/fuzz/*.h) $(TEST_HDRS)

$(BUILD)/props/props: test/props/props.c $(FUZZ_CORES) $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(SANITIZE) -Icore -Itest/fuzz -o $@ $(filter %.c,$^)

# gen-check with the core reading GNU ld's .plt.got FDE as written
# (test/gen/run.sh, plt-got cases).
$(BUILD)/gen/gen-check-raw: test/gen/gen-check.c $(TEST_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(SANITIZE) -DSFU_FIX_LD_PLTGOT=0 -o $@ $< $(SFU_ELF_LIBS)

# Timed (CPU time against a well-formed section): optimized, no sanitizers.
$(BUILD)/props/linear: test/props/linear.c $(TEST_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(HOSTCC) -std=c99 -O2 -Wall -Wextra -Werror -Icore -o $@ $<

# libFuzzer harnesses: the sanitizers as everywhere, nothing recovers, -O2
# for speed.
FUZZ_CC ?= clang
FUZZ_SANITIZE := -fsanitize=fuzzer $(SANITIZE)
FUZZ_CFLAGS := -std=c99 -g -O2 $(FUZZ_SANITIZE) -fno-omit-frame-pointer -Wall -Wextra -Werror -Wno-unused-function \
	-Icore -Itest/fuzz

ifneq ($(FUZZ_OUT),)
$(FUZZ_OUT)/%: test/fuzz/%.c $(FUZZ_CORES) $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_CORES)
endif

# Can FUZZ_CC link a harness at all (libFuzzer and the sanitizers' run-time
# libraries installed)?  test/fuzz/build.sh asks before building, to say
# what to install.
.PHONY: fuzz-toolchain-check
fuzz-toolchain-check:
	@mkdir -p $(BUILD)/fuzz
	@printf '%s\n' '#include <stdint.h>' '#include <stddef.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' | \
		$(FUZZ_CC) $(FUZZ_SANITIZE) -x c -o $(BUILD)/fuzz/toolchain-check -
