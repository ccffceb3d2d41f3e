# SPDX-License-Identifier: MIT
# unwind.mk - builds the live-stack test programs of one toolchain suite.
#
#   make -f test/unwind/unwind.mk SUITE=sid        (run inside that suite's
#                                                   chroot: tools/toolchain.sh)
#
# One program per (arch, opt) in build/unwind/$(SUITE)/$(ARCH)-$(OPT)/unwind,
# every object compiled with -Wa,--gsframe and .eh_frame kept, so the
# program carries both the SFrame section under test and the DWARF CFI its
# references (libgcc, libunwind) read.  x86_64 programs are dynamic (PIE,
# the suite's default); aarch64 programs are static, to run under
# qemu-aarch64 on the host.

SUITE ?= bookworm
OUT := build/unwind/$(SUITE)
SRC := test/unwind
SHAPES := sh_shapes sh_fp sh_nofp sh_noret sh_realign
HARNESS := ut_main ut_walk ut_where ut_verdict ut_signal ut_sync ut_async
HDRS := $(SRC)/ut.h $(SRC)/ut_harness.h $(wildcard core/*.h) port/host/sfu_port_host.h \
	port/x86_64/sfu_capture_x86_64.h port/aarch64/sfu_capture_aarch64.h

CONFIGS := x86_64-O0 x86_64-O2 aarch64-O0 aarch64-O2 aarch64-O2pac

# SUITE=clang: clang 22 (sid chroot), integrated assembler, no SFrame at
# all; run.sh adds a section made by tools/sfu-gen from the linked
# program's .eh_frame (UT_SFRAME_FILE).  Linked by the suite's gcc/ld.
ifeq ($(SUITE),clang)
CLANG_TGT_x86_64 := --target=x86_64-linux-gnu
CLANG_TGT_aarch64 := --target=aarch64-linux-gnu
endif

all: $(foreach c,$(CONFIGS),$(OUT)/$(c)/unwind)

arch = $(firstword $(subst -, ,$(1)))
opt = $(word 2,$(subst -, ,$(1)))
cc = $(if $(filter aarch64,$(call arch,$(1))),aarch64-linux-gnu-gcc,gcc)
optflags = $(if $(filter O2pac,$(call opt,$(1))),-O2 -mbranch-protection=pac-ret,-$(call opt,$(1)))

BASE := -g -fasynchronous-unwind-tables $(if $(filter clang,$(SUITE)),-Wno-unknown-attributes,-Wa,--gsframe) -Wall -Wextra -Werror -std=gnu11
ccompile = $(if $(filter clang,$(SUITE)),clang-22 $(CLANG_TGT_$(call arch,$(1))),$(call cc,$(1)))

# Per-file flags: the frame shape each file is about.
FLAGS_sh_shapes :=
FLAGS_sh_fp := -fno-omit-frame-pointer
FLAGS_sh_nofp := -fomit-frame-pointer
FLAGS_sh_noret := -falign-functions=1 $(if $(filter clang,$(SUITE)),,-fno-toplevel-reorder)
FLAGS_sh_realign_x86_64 := -mstackrealign
# libunwind as a second reference: every harness file sees UT_LIBUNWIND.
$(foreach h,$(HARNESS),$(eval FLAGS_$(h)_bookworm_x86_64 := -DUT_LIBUNWIND=1))

LIBS_x86_64 := -Wl,--push-state,--no-as-needed -lgcc_s -Wl,--pop-state
LIBS_bookworm_x86_64 := $(LIBS_x86_64) -lunwind
LIBS_aarch64 := -static

define config
$(OUT)/$(1)/%.o: $(SRC)/%.c $(HDRS) $(SRC)/unwind.mk
	@mkdir -p $$(@D)
	$(call ccompile,$(1)) $(call optflags,$(1)) $(BASE) $$(FLAGS_$$*) $$(FLAGS_$$*_$(call arch,$(1))) \
		$$(FLAGS_$$*_$(SUITE)_$(call arch,$(1))) -c $$< -o $$@

$(OUT)/$(1)/unwind: $(foreach o,$(HARNESS) $(SHAPES),$(OUT)/$(1)/$(o).o)
	$(call cc,$(1)) -o $$@ $$^ $$(or $$(LIBS_$(SUITE)_$(call arch,$(1))),$$(LIBS_$(call arch,$(1))))
endef
$(foreach c,$(CONFIGS),$(eval $(call config,$(c))))

# ---- bare images for the row-level check (rows_check.c) -------------------
# Byte orders and s390x: freestanding code linked with -nostdlib by the
# suite's own ld, one image per (target, opt).  s390x needs binutils >= 2.45
# (sid only).

ROWS_TARGETS_bookworm := x86_64 aarch64 aarch64be aarch64pac
ROWS_TARGETS_trixie := $(ROWS_TARGETS_bookworm)
ROWS_TARGETS_sid := $(ROWS_TARGETS_bookworm) s390x
ROWS_OPTS := O0 O2
rows_cc_x86_64 := gcc
rows_cc_aarch64 := aarch64-linux-gnu-gcc
rows_cc_aarch64be := aarch64-linux-gnu-gcc -mbig-endian
rows_cc_aarch64pac := aarch64-linux-gnu-gcc -mbranch-protection=pac-ret
rows_cc_s390x := s390x-linux-gnu-gcc
ROWS_CFLAGS := -g -fasynchronous-unwind-tables -Wa,--gsframe -ffreestanding -fno-stack-protector \
	-Wall -Wextra -Werror
ROWS_LDFLAGS := -nostdlib -static -Wl,-e,rows_entry
ROWS_FLAGS_rows_realign_x86_64 := -mstackrealign
ROWS_SRCS := rows_src rows_realign
ROWS_IMAGES := $(foreach t,$(ROWS_TARGETS_$(SUITE)),$(foreach o,$(ROWS_OPTS),$(OUT)/rows/$(t)-$(o).elf))

rows: $(ROWS_IMAGES)

define rows_image
$(OUT)/rows/$(1)-$(2)/%.o: $(SRC)/%.c $(SRC)/unwind.mk
	@mkdir -p $$(@D)
	$(rows_cc_$(1)) -$(2) $(ROWS_CFLAGS) $$(ROWS_FLAGS_$$*_$(1)) -c $$< -o $$@

$(OUT)/rows/$(1)-$(2).elf: $(foreach s,$(ROWS_SRCS),$(OUT)/rows/$(1)-$(2)/$(s).o)
	$(rows_cc_$(1)) -$(2) $(ROWS_LDFLAGS) -o $$@ $$^
endef
$(foreach t,$(ROWS_TARGETS_$(SUITE)),$(foreach o,$(ROWS_OPTS),$(eval $(call rows_image,$(t),$(o)))))

# objdump --sframe of the images of DUMP_FOR, with this chroot's objdump:
# bookworm's (2.40) for V1, sid's (2.47) for V2 and V3.
DUMP_FOR ?=
DUMPS := $(patsubst %.elf,%.txt,$(wildcard $(foreach s,$(DUMP_FOR),build/unwind/$(s)/rows/*.elf)))
dumps: $(DUMPS)
build/unwind/%.txt: build/unwind/%.elf
	objdump --sframe $< > $@.tmp && mv $@.tmp $@

.PHONY: all rows dumps
.DELETE_ON_ERROR:
