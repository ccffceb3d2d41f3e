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
TEST_HDRS := $(CORE_HDRS) $(wildcard test/common/*.h test/unit/*.h tools/*.h port/*.h port/*/*.h crash/*.h rtos/*.h examples/*/trap_frame.h) \
	Makefile test/common/host.mk

HOSTCLANG ?= clang
UNIT_INC := -Icore -Iport -Iport/x86_64 -Icrash

# The core's two shapes (SFU_FAST in core/sfu.h): the small one at -Os, the
# fast one at -O2, each level after HOST_CFLAGS' own, which it overrides.
# unit, fuzz, props and lookup build their programs in both (as FILE-Os
# and FILE-O2) and name their cases with the shape; the pairs of compiler
# and shape each suite builds are in its run.sh.
SHAPES := Os O2
SHAPE_Os := -Os -DSFU_FAST=0
SHAPE_O2 := -O2 -DSFU_FAST=1

# Unit tests, by gcc and by clang, in either shape (test/unit/run.sh says
# which pairs it runs).
define unit_shape
$(BUILD)/unit/%-gcc-$(1): test/unit/%.c test/unit/ut.h $(TEST_HDRS)
	@mkdir -p $$(@D)
	$$(call say,CC,$$@)
	$$(Q)$$(HOSTCC) $$(HOST_CFLAGS) $$(SHAPE_$(1)) $$(SANITIZE) $$(UNIT_INC) -o $$@ $$<

$(BUILD)/unit/%-clang-$(1): test/unit/%.c test/unit/ut.h $(TEST_HDRS)
	@mkdir -p $$(@D)
	$$(call say,CC,$$@)
	$$(Q)$$(HOSTCLANG) $$(HOST_CFLAGS) $$(SHAPE_$(1)) $$(SANITIZE) $$(UNIT_INC) -o $$@ $$<
endef
$(foreach s,$(SHAPES),$(eval $(call unit_shape,$(s))))

# test_ctx with the aarch64 port too: by the aarch64 cross compiler,
# static, no sanitizers (none for the cross target), run under
# qemu-aarch64 by test/unit/run.sh.
A64CC ?= aarch64-linux-gnu-gcc
$(BUILD)/unit/%-a64: test/unit/%.c test/unit/ut.h $(TEST_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(A64CC) $(HOST_CFLAGS) -static -Icore -Iport/aarch64 -Icrash -Irtos -o $@ $<

# One source each, reading the core and tools/sfu_elf.h (reloc-check:
# tools/sfu_cfi.h and libdwfl).
$(BUILD)/gen/gen-check: test/gen/gen-check.c $(TEST_HDRS)
$(BUILD)/gen/reloc-check: test/gen/reloc-check.c $(TEST_HDRS)
$(BUILD)/unwind/rows_check: test/unwind/rows_check.c $(TEST_HDRS)
$(BUILD)/unwind/core_v1_pcmask: test/unwind/core_v1_pcmask.c $(TEST_HDRS)
$(BUILD)/gen/gen-check $(BUILD)/gen/reloc-check $(BUILD)/unwind/rows_check $(BUILD)/unwind/core_v1_pcmask:
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(SANITIZE) -o $@ $< $(SFU_ELF_LIBS)

# lookup-check in both shapes (test/lookup/run.sh runs both).
$(BUILD)/lookup/lookup-check-%: test/lookup/lookup-check.c $(TEST_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(SHAPE_$*) $(SANITIZE) -o $@ $< $(SFU_ELF_LIBS)

# The core in seven configurations (test/fuzz/core_*.c, each SFU_STATIC),
# linked into the fuzz harnesses and the property tests.
FUZZ_CORES := $(addprefix test/fuzz/core_,$(addsuffix .c,default fpfb min cache v3be v1 general))
FUZZ_HDRS := $(wildcard test/fuzz/*.h) $(TEST_HDRS)

# The property tests in both shapes, by gcc: one object per file, so that
# make -j2 builds two at a time.
define props_shape
$(BUILD)/props/$(1)/%.o: test/fuzz/%.c $(FUZZ_HDRS)
	@mkdir -p $$(@D)
	$$(call say,CC,$$@)
	$$(Q)$$(HOSTCC) $$(HOST_CFLAGS) $$(SHAPE_$(1)) $$(SANITIZE) -Icore -Itest/fuzz -c -o $$@ $$<

$(BUILD)/props/$(1)/props.o: test/props/props.c $(FUZZ_HDRS)
	@mkdir -p $$(@D)
	$$(call say,CC,$$@)
	$$(Q)$$(HOSTCC) $$(HOST_CFLAGS) $$(SHAPE_$(1)) $$(SANITIZE) -Icore -Itest/fuzz -c -o $$@ $$<

$(BUILD)/props/props-$(1): $(BUILD)/props/$(1)/props.o $(patsubst test/fuzz/%.c,$(BUILD)/props/$(1)/%.o,$(FUZZ_CORES))
	$$(call say,LD,$$@)
	$$(Q)$$(HOSTCC) $$(SANITIZE) -o $$@ $$^
endef
$(foreach s,$(SHAPES),$(eval $(call props_shape,$(s))))

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
# for speed; FUZZ_SHAPE=Os or O2 builds them in that shape of the core
# (test/fuzz/build.sh).  The seven cores are compiled once into FUZZ_OUT
# and linked into each harness.
FUZZ_CC ?= clang
FUZZ_SHAPE ?=
FUZZ_SANITIZE := -fsanitize=fuzzer $(SANITIZE)
FUZZ_CFLAGS := -std=c99 -g -O2 $(FUZZ_SANITIZE) -fno-omit-frame-pointer -Wall -Wextra -Werror -Wno-unused-function \
	-Icore -Itest/fuzz $(SHAPE_$(FUZZ_SHAPE))

ifneq ($(FUZZ_OUT),)
FUZZ_CORE_OBJS := $(patsubst test/fuzz/%.c,$(FUZZ_OUT)/%.o,$(FUZZ_CORES))
$(FUZZ_OUT)/core_%.o: test/fuzz/core_%.c $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FUZZ_OUT)/%: test/fuzz/%.c $(FUZZ_CORE_OBJS) $(FUZZ_HDRS)
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_CORE_OBJS)
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
