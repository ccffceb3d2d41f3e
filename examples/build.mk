# SPDX-License-Identifier: MIT
# examples/build.mk -- how the example images are built.  examples/Makefile
# includes it and holds the targets; what a board is lives in its board.mk.
#
# Boards.  Every examples/<board>/board.mk is a board.  It sets these
# variables (lower case, so they never meet a user's CFLAGS or a
# command-line override); build.mk reads them into EX.<image>.<var> for each
# of the board's images, then clears them for the next board:
#
#   arch          port/<arch>, and which of CC_<arch> LD_<arch> ... build it
#   srcs          the board's sources, in its folder (.S and .c)
#   lds           the linker script, in its folder
#   flags         for every C and assembly file of the image
#   cflags        for every C file
#   safe-flags    for every C file: what keeps the image's code within the
#                 CPU state it runs in (-mgeneral-regs-only: FP is off;
#                 -mstrict-align: the MMU is off)
#   core-plain    1: the C file with the sfu core ($(EX_CORE)) is built
#                 without safe-flags, as a kernel's might be: the core must
#                 be safe by itself
#   core-flags    for the one C file with the sfu core ($(EX_CORE))
#   plain         C files (names) built without safe-flags, with the
#                 board's plain flags: the code a user writes for sfu
#                 (layouts, the step-1 file), which must be safe as written
#   ldflags       for the link
#   link          gnu (LD_<arch>, the default) or lld ($(LLD)); lld leaves
#                 one .sframe per object, so the C gets $(EX_LLD_DEFS)
#                 (-DEX_SFRAME_UNMERGED=1: SFU_OPT_START_PCREL)
#   sframe        who writes the image's .sframe: as (the default: the
#                 assembler, $(EX_GSFRAME), merged by the linker through
#                 linker/sframe.ld) or gen (tools/sfu-gen, from the linked
#                 image's .eh_frame, libgcc's included, embedded by a second
#                 link: sframe-gen.sh, linker/sframe-gen.ld)
#   title         the banner's words for the variant (-DEX_VARIANT)
#   qemu          the QEMU command (overridden by QEMU_<board>=..., or QEMU=...)
#   qemu-machine  -M;  qemu-cpu  -cpu (none if empty)
#   qemu-args     the board's other QEMU options
#   qemu-exit     QEMU's exit code when the image ends with status s, as a
#                 shell arithmetic expression
#   boots         names of the ways to boot the board, the first the default;
#                 boot.<name> holds the boot.sh options of each
#   trap, stub    the C trap handler and the vector code that calls it, as
#                 traces name them for a synchronous exception
#   irqtrap, irqstub  the same for an interrupt
#   variants      the board's image variants
#   like          test/firmware/expected.txt's lines for this variant name
#                 apply to the image too (a selector NAME it answers to):
#                 a variant that differs from that one where its lines do
#                 not tell
#   scenarios     the scenarios the tests boot on the image (empty: every
#                 one); the others are printed "not run" with the words of
#                 scenarios-why
#
# Images.  sfu-<board>.elf is the board's plain image; each variant V is
# sfu-<board>-V.elf, described by V.<var> for any of the variables above:
# for flags, cflags, core-flags, ldflags and qemu-args the variant's value
# is added to the board's, for the others it replaces it (V.srcs: other
# vector code; V.link := lld: linked by lld).  Each image gets its folder
# $(EX_OUT)/<image>/ with the objects, the .elf and image.env, the image's
# description as shell assignments (ex_board, ex_arch, ex_qemu, ...) for
# boot.sh and the tests.
#
# Every tool runs from the repository root with absolute paths: a chroot
# toolchain (tools/toolchain.sh run) bind-mounts only $PWD, at the same
# path, so port/ and linker/ must lie below the directory it runs in.

EX_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
EX_ROOT := $(abspath $(EX_DIR)/..)
EX_OUT ?= $(EX_ROOT)/build/examples

# Tools, per architecture.  A chroot toolchain is a prefix, e.g.
# CC_x86_64="tools/toolchain.sh run trixie gcc".
CC_aarch64 ?= aarch64-linux-gnu-gcc
LD_aarch64 ?= aarch64-linux-gnu-ld
OBJDUMP_aarch64 ?= aarch64-linux-gnu-objdump
NM_aarch64 ?= aarch64-linux-gnu-nm
READELF_aarch64 ?= aarch64-linux-gnu-readelf
CC_x86_64 ?= gcc
LD_x86_64 ?= ld
OBJDUMP_x86_64 ?= objdump
NM_x86_64 ?= nm
READELF_x86_64 ?= readelf
LLD ?= ld.lld-14
# libgcc, linked into every image (the libgcc scenario faults inside one of
# its routines): LIBGCC_<arch>, else the compiler's own
# (-print-libgcc-file-name; for clang, the GCC installation it finds).
LIBGCC_aarch64 ?=
LIBGCC_x86_64 ?=
# sframe = gen: the generator (the top-level Makefile builds build/sfu-gen).
SFU_GEN ?= $(EX_ROOT)/build/sfu-gen
# sframe = as: what makes the assembler write .sframe (LLVM's integrated
# assembler also wants -Wa,--allow-experimental-sframe).
EX_GSFRAME ?= -Wa,--gsframe
# The vector code of every board and variant: its CFI is a debugger's
# only (it marks the vector code's frame outermost, where the crash
# record's block of a handler ends: gdb stops there), assembled without
# EX_GSFRAME, in .debug_frame only, which sframe-gen.sh's sfu-gen does not
# read (--from eh): sfu crosses this code through its trap layouts.
EX_NOSFRAME := vectors.S isr.S kernel-entry.S kernel-isr.S rtos-entry.S rtos-isr.S \
	freertos-port.S threadx-port.S linux-entry.S
# Every image's sframe, or link (lld: objects whose SFrame GNU ld cannot
# link, such as LLVM's), whatever its board.mk says; empty: as it says.
EX_SFRAME ?=
EX_LINK ?=
# What the C of an lld image is told about its per-object sections (the
# sfu options: SFU_OPT_START_PCREL).  test/firmware sets it empty to build
# lld images with GNU ld's options and see sfu refuse them at set-up.
EX_LLD_DEFS ?= -DEX_SFRAME_UNMERGED=1 -DSFRAME_OPTS=SFU_OPT_START_PCREL

EX_OPT ?= -O2 -g
EX_WERROR ?= -Werror
EX_DEFAULT_SCENARIO ?= hello

# Quiet: one "  IMAGE   file" line per image built (its last link), the
# steps before it silent; V=1 prints every command instead, make -s neither.
# ex_say KIND,FILE: the line of a step; only IMAGE's is printed.
V ?= 0
EX_Q := $(if $(filter 1,$(V)),,@)
ex_say = $(if $(filter 1,$(V))$(findstring s,$(firstword -$(MAKEFLAGS))),,$(if $(filter IMAGE,$(1)),@printf \
	'  %-7s %s\n' '$(1)' '$(patsubst $(EX_ROOT)/%,%,$(2))'))

# ---------------------------------------------------------------------------
# What every image shares.

# Every object.  -fasynchronous-unwind-tables keeps the CFI that gas turns
# into .sframe (-Wa,--gsframe, added for sframe = as) and sfu-gen reads
# from .eh_frame; -fno-delete-null-pointer-checks keeps the
# deliberate null load a load.  Pinned so the traces are the same function
# sequence with gcc 12, 14 and 16: -fno-optimize-sibling-calls keeps every
# caller in the trace (a tail call replaces the caller's frame),
# -fno-reorder-blocks-and-partition keeps cold paths inside their function
# (no "chain_f.cold" frames).
EX_CFLAGS := -std=gnu11 $(EX_OPT) -ffreestanding -nostdlib -fno-builtin \
	-fno-pic -fno-pie -fno-stack-protector -fasynchronous-unwind-tables \
	-fno-delete-null-pointer-checks \
	-fno-optimize-sibling-calls -fno-reorder-blocks-and-partition \
	-Wall -Wextra -Wundef $(EX_WERROR) -MMD -MP \
	-DEX_DEFAULT_SCENARIO='"$(EX_DEFAULT_SCENARIO)"'
EX_ASFLAGS := -MMD -MP

# The common sources, in common/.
EX_SRCS := print.c mem.c scenario.c panic.c dump.c unwind.c recipe.c chain_fp.c \
	chain_nofp.c chain_big.c leaf.c corrupt.c workload.c workload_nofp.c \
	sched.c sched-sfu.c threads.c retained.c perturb.c
# The one file with the sfu core's implementation (gets core-flags).
EX_CORE := unwind.c
# Files built without a frame pointer; every other C file keeps it.
EX_NOFP := chain_nofp.c leaf.c workload_nofp.c
# Per-file flags, EX_FLAGS_<file>.  mem.c: the loops of memset/memcpy must
# not become calls to themselves.  chain_nofp.c: its functions follow each
# other without padding (chain_e's return address is then the first byte
# of chain_b).
EX_FLAGS_mem.c := -fno-tree-loop-distribute-patterns
EX_FLAGS_chain_nofp.c := -falign-functions=1 -fno-toplevel-reorder
# Options only gcc has, left out when CC_<arch> names clang, which needs
# none of them: it splits no cold code off (no PGO), emits functions in
# source order, and does not turn the loop of memset/memcpy into a call to
# itself.
EX_GCC_ONLY := -fno-reorder-blocks-and-partition -fno-toplevel-reorder -fno-tree-loop-distribute-patterns

# One RWX load segment is what a bare-metal image without page permissions
# is; the MMU setup maps all RAM RWX anyway.
EX_LDFLAGS := -nostdlib -static -z noexecstack --build-id=sha1 --no-warn-rwx-segments \
	-L $(EX_ROOT)/linker
# lld: same scripts (it supports INCLUDE), no RWX warning to silence.
EX_LLDFLAGS := -nostdlib -static -z noexecstack --build-id=sha1 -L $(EX_ROOT)/linker

# ---------------------------------------------------------------------------
# Reading the boards.

EX_BOARDS := $(patsubst $(EX_DIR)/%/board.mk,%,$(wildcard $(EX_DIR)/*/board.mk))
EX_VARS := arch srcs lds flags cflags safe-flags core-plain plain core-flags ldflags link sframe title \
	qemu qemu-machine qemu-cpu qemu-args qemu-exit boots trap stub irqtrap irqstub like scenarios scenarios-why
EX_ADDED := flags cflags safe-flags core-flags ldflags qemu-args
EX_IMAGES :=

# ex_get VARIANT,VAR: VAR of the variant's image (VARIANT empty: the plain one).
ex_get = $(if $(filter $(2),$(EX_ADDED)),$(strip $($(2)) $($(1).$(2))),$(if \
	$(filter undefined,$(origin $(1).$(2))),$($(2)),$($(1).$(2))))

define ex_nl


endef

# ex_image_vars BOARD,VARIANT,IMAGE: copy the image's variables, while its
# board.mk is loaded.  Derived: EX.<image>.pac, 1 if return addresses are
# signed (the last -mbranch-protection is pac-ret or standard).
define ex_image_vars
EX_IMAGES += $(3)
EX.$(3).board := $(1)
EX.$(3).variant := $(2)
$(foreach x,$(EX_VARS),EX.$(3).$(x) := $$(call ex_get,$(2),$(x))$(ex_nl))
$(foreach n,$(boots),EX.$(3).boot.$(n) := $$(boot.$(n))$(ex_nl))
EX.$(3).link := $$(or $$(EX_LINK),$$(EX.$(3).link),gnu)
EX.$(3).sframe := $$(or $$(EX_SFRAME),$$(EX.$(3).sframe),as)
EX.$(3).cc = $$(CC_$$(EX.$(3).arch))
EX.$(3).pac := $$(if $$(filter -mbranch-protection=pac-ret% -mbranch-protection=standard%,$$(lastword \
	$$(filter -mbranch-protection=%,$$(EX.$(3).flags)))),1,0)
endef

ex_image_vars_of = $(eval $(call ex_image_vars,$(1),$(2),$(1)$(if $(2),-$(2))))

# ex_board BOARD: load its board.mk, copy its images' variables, then
# clear what it set for the next board.
define ex_board
$(eval include $(EX_DIR)/$(1)/board.mk)
$(foreach v,- $(variants),$(call ex_image_vars_of,$(1),$(filter-out -,$(v))))
$(foreach v,$(variants),$(foreach x,$(EX_VARS),$(eval undefine $(v).$(x))))
$(foreach n,$(boots),$(eval undefine boot.$(n)))
$(foreach x,$(EX_VARS) variants,$(eval undefine $(x)))
endef

# ---------------------------------------------------------------------------
# The rules of one image.

ex_elf = $(EX_OUT)/$(1)/sfu-$(1).elf
ex_sq = '$(subst ','\'',$(1))'
ex_hash := \#

# ex_flags IMAGE: flags of every object of the image.
ex_flags = $(EX.$(1).flags) -DEX_VARIANT='"$(EX.$(1).title)"' $(if $(filter as,$(EX.$(1).sframe)),$(EX_GSFRAME)) \
	$(if $(filter lld,$(EX.$(1).link)),$(EX_LLD_DEFS))

# ex_for_cc IMAGE,FLAGS: FLAGS as the image's compiler takes them.
ex_for_cc = $(if $(findstring clang,$(CC_$(EX.$(1).arch))),$(filter-out $(EX_GCC_ONLY),$(2)),$(2))

# ex_cc IMAGE: compile the C file $< into $@.
ex_cc = cd $(EX_ROOT) && $(CC_$(EX.$(1).arch)) $(call ex_for_cc,$(1),$(EX_CFLAGS) $(call ex_flags,$(1)) \
	$(if $(filter $(<F),$(EX_NOFP)),-fomit-frame-pointer,-fno-omit-frame-pointer) $(EX_FLAGS_$(<F))) \
	-I $(EX_DIR)/common -I $(EX_ROOT)/port/$(EX.$(1).arch) -I $(EX_ROOT)/port -I $(EX_ROOT)/crash -I $(EX_ROOT)/core $(EX.$(1).cflags) \
	$(if $(or $(and $(filter $(<F),$(EX_CORE)),$(filter 1,$(EX.$(1).core-plain))),$(filter $(<F),$(EX.$(1).plain))),,$(EX.$(1).safe-flags)) \
	$(if $(filter $(<F),$(EX_CORE)),$(EX.$(1).core-flags)) -DEX_BOARD='"$(EX.$(1).board)"' -c $< -o $@

# ex_libgcc IMAGE: the libgcc archive its links end with (a shell word).
ex_libgcc = $(or $(LIBGCC_$(EX.$(1).arch)),"$$(cd $(EX_ROOT) && $(CC_$(EX.$(1).arch)) -print-libgcc-file-name)")

# ex_link IMAGE: the linker command, without inputs and output.
ex_link = cd $(EX_ROOT) && $(if $(filter lld,$(EX.$(1).link)),$(LLD) $(EX_LLDFLAGS),$(LD_$(EX.$(1).arch)) \
	$(EX_LDFLAGS)) $(EX.$(1).ldflags) -L $(EX_OUT)/$(1) -T $(EX_DIR)/$(EX.$(1).board)/$(EX.$(1).lds)

# ex_env IMAGE: image.env, the image's description for boot.sh and the tests.
EX_ENV_VARS := board variant arch cc link sframe pac core-plain qemu qemu-machine qemu-cpu qemu-args qemu-exit trap stub \
	irqtrap irqstub like scenarios scenarios-why
ex_env = $(ex_hash) Made by examples/build.mk from examples/$(EX.$(1).board)/board.mk; do not edit.$(ex_nl)$(subst \
	$(ex_nl) ,$(ex_nl),ex_image=$(1)$(ex_nl)$(foreach x,$(EX_ENV_VARS),ex_$(subst -,_,$(x))=$(call \
	ex_sq,$(EX.$(1).$(x)))$(ex_nl))ex_boots=$(call ex_sq,$(foreach n,$(EX.$(1).boots),$(strip $(n) $(EX.$(1).boot.$(n)))$(ex_nl))))

# ex_image IMAGE.  Two links (tools/sfu-symtab): pass1.elf with an empty symbol
# table, then the image with the table made from pass1.elf's function
# symbols.  The table is in .sfu_symtab, after .data, so code and .sframe do
# not move; the last step checks that and deletes the image if they did.
# sframe = gen (docs/sfu-gen-embed.md): the script places
# linker/sframe-gen.ld's section, empty in pass1.elf; sframe-gen.sh runs
# sfu-gen on pass1.elf (the section's size), pass2.elf is linked with those
# bytes (the final layout, wherever the section lands), sframe-gen.sh runs
# sfu-gen on pass2.elf for the address __sframe_start has there, and the
# image is pass2.elf's link with those bytes instead; the last step also
# checks that sfu-gen on the final image, at its __sframe_start, gives
# exactly the bytes the image holds there.
define ex_image
EX_OBJS.$(1) := $(addprefix $(EX_OUT)/$(1)/,$(addsuffix .o,$(basename $(EX.$(1).srcs) $(EX_SRCS))))
EX_DEPS.$(1) := $(EX_DIR)/build.mk $(EX_DIR)/$(EX.$(1).board)/board.mk

$(EX_OUT)/$(1)/:
	@mkdir -p $$@

$(EX_OUT)/$(1)/image.env: $$(EX_DEPS.$(1)) | $(EX_OUT)/$(1)/
	$$(call ex_say,GEN,$$@)
	$$(file >$$@,$$(call ex_env,$(1)))

# The line of the board's link.ld that places the unwind tables.
$(EX_OUT)/$(1)/ex-sframe.ld: $$(EX_DEPS.$(1)) | $(EX_OUT)/$(1)/
	$$(call ex_say,GEN,$$@)
	$$(file >$$@,INCLUDE $(if $(filter gen,$(EX.$(1).sframe)),sframe-gen.ld,sframe.ld))

$(EX_OUT)/$(1)/%.o: $(EX_DIR)/$(EX.$(1).board)/%.S $$(EX_DEPS.$(1)) | $(EX_OUT)/$(1)/
	$$(call ex_say,AS,$$@)
	$$(EX_Q)cd $(EX_ROOT) && $$(CC_$(EX.$(1).arch)) $$(EX_ASFLAGS) $$(if $$(filter $$(<F),$$(EX_NOSFRAME)),$$(filter-out \
		$$(EX_GSFRAME),$$(call ex_flags,$(1))),$$(call ex_flags,$(1))) -I $(EX_ROOT)/port/$(EX.$(1).arch) -c $$< -o $$@

$(EX_OUT)/$(1)/%.o: $(EX_DIR)/$(EX.$(1).board)/%.c $$(EX_DEPS.$(1)) | $(EX_OUT)/$(1)/
	$$(call ex_say,CC,$$@)
	$$(EX_Q)$$(call ex_cc,$(1))

$(EX_OUT)/$(1)/%.o: $(EX_DIR)/common/%.c $$(EX_DEPS.$(1)) | $(EX_OUT)/$(1)/
	$$(call ex_say,CC,$$@)
	$$(EX_Q)$$(call ex_cc,$(1))

# The symbol tables: assembly with no CFI, so no .sframe of their own.
$(EX_OUT)/$(1)/symtab0.S: $(EX_ROOT)/tools/sfu-symtab | $(EX_OUT)/$(1)/
	$$(call ex_say,SYMTAB,$$@)
	$$(EX_Q)sh $(EX_ROOT)/tools/sfu-symtab gen /dev/null $$@

$(EX_OUT)/$(1)/symtab%.o: $(EX_OUT)/$(1)/symtab%.S
	$$(call ex_say,AS,$$@)
	$$(EX_Q)cd $(EX_ROOT) && $$(CC_$(EX.$(1).arch)) $$(EX.$(1).flags) -c $$< -o $$@

$(EX_OUT)/$(1)/pass1.elf: $$(EX_OBJS.$(1)) $(EX_OUT)/$(1)/symtab0.o $(EX_DIR)/$(EX.$(1).board)/$(EX.$(1).lds) \
		$(EX_ROOT)/linker/sframe.ld $(EX_ROOT)/linker/sframe-gen.ld $(EX_OUT)/$(1)/ex-sframe.ld
	$$(call ex_say,LD,$$@)
	$$(EX_Q)$$(call ex_link,$(1)) -o $$@ $$(EX_OBJS.$(1)) $(EX_OUT)/$(1)/symtab0.o $$(call ex_libgcc,$(1))

$(EX_OUT)/$(1)/symtab.list: $(EX_OUT)/$(1)/pass1.elf $(EX_ROOT)/tools/sfu-symtab
	$$(call ex_say,SYMTAB,$$@)
	$$(EX_Q)cd $(EX_ROOT) && NM='$$(NM_$(EX.$(1).arch))' sh $(EX_ROOT)/tools/sfu-symtab list $$< > $$@.tmp && mv $$@.tmp $$@

$(EX_OUT)/$(1)/symtab1.S: $(EX_OUT)/$(1)/symtab.list
	$$(call ex_say,SYMTAB,$$@)
	$$(EX_Q)sh $(EX_ROOT)/tools/sfu-symtab gen $$< $$@

# sfu-gen's section as an object (sframe = gen): sframe0 for pass1.elf
# (its size), sframe for pass2.elf (its bytes; pass2.elf has the image's
# inputs with sframe0.o, so it has the image's layout).
$(EX_OUT)/$(1)/sframe0.S: $(EX_OUT)/$(1)/pass1.elf $(SFU_GEN) $(EX_DIR)/sframe-gen.sh
	$$(call ex_say,SFU-GEN,$$@)
	$$(EX_Q)cd $(EX_ROOT) && NM='$$(NM_$(EX.$(1).arch))' READELF='$$(READELF_$(EX.$(1).arch))' \
		SFU_GEN='$(SFU_GEN)' sh $(EX_DIR)/sframe-gen.sh gen $$< $$@

$(EX_OUT)/$(1)/pass2.elf: $$(EX_OBJS.$(1)) $(EX_OUT)/$(1)/symtab1.o $(EX_OUT)/$(1)/sframe0.o \
		$(EX_DIR)/$(EX.$(1).board)/$(EX.$(1).lds) $(EX_ROOT)/linker/sframe-gen.ld $(EX_OUT)/$(1)/ex-sframe.ld
	$$(call ex_say,LD,$$@)
	$$(EX_Q)$$(call ex_link,$(1)) -o $$@ $$(EX_OBJS.$(1)) $(EX_OUT)/$(1)/symtab1.o $(EX_OUT)/$(1)/sframe0.o \
		$$(call ex_libgcc,$(1))

$(EX_OUT)/$(1)/sframe.S: $(EX_OUT)/$(1)/pass2.elf $(SFU_GEN) $(EX_DIR)/sframe-gen.sh
	$$(call ex_say,SFU-GEN,$$@)
	$$(EX_Q)cd $(EX_ROOT) && NM='$$(NM_$(EX.$(1).arch))' READELF='$$(READELF_$(EX.$(1).arch))' \
		SFU_GEN='$(SFU_GEN)' sh $(EX_DIR)/sframe-gen.sh gen $$< $$@

$(EX_OUT)/$(1)/sframe0.o $(EX_OUT)/$(1)/sframe.o: %.o: %.S
	$$(call ex_say,AS,$$@)
	$$(EX_Q)cd $(EX_ROOT) && $$(CC_$(EX.$(1).arch)) $$(EX.$(1).flags) -c $$< -o $$@

EX_GEN.$(1) := $(if $(filter gen,$(EX.$(1).sframe)),$(EX_OUT)/$(1)/sframe.o)
$(call ex_elf,$(1)): $$(EX_OBJS.$(1)) $(EX_OUT)/$(1)/symtab1.o $(EX_OUT)/$(1)/symtab.list \
		$(EX_OUT)/$(1)/image.env $$(EX_GEN.$(1))
	$$(call ex_say,IMAGE,$$@)
	$$(EX_Q)$$(call ex_link,$(1)) -Map $$@.map -o $$@.tmp $$(EX_OBJS.$(1)) $(EX_OUT)/$(1)/symtab1.o \
		$$(EX_GEN.$(1)) $$(call ex_libgcc,$(1))
	$$(EX_Q)cd $(EX_ROOT) && NM='$$(NM_$(EX.$(1).arch))' sh $(EX_ROOT)/tools/sfu-symtab check $(EX_OUT)/$(1)/symtab.list $$@.tmp
	$$(if $$(EX_GEN.$(1)),$$(EX_Q)cd $(EX_ROOT) && NM='$$(NM_$(EX.$(1).arch))' READELF='$$(READELF_$(EX.$(1).arch))' \
		SFU_GEN='$(SFU_GEN)' sh $(EX_DIR)/sframe-gen.sh check $(EX_OUT)/$(1)/sframe.bin $$@.tmp || { rm -f $$@.tmp; exit 1; })
	$$(EX_Q)mv $$@.tmp $$@

-include $$(EX_OBJS.$(1):.o=.d)
endef

$(foreach b,$(EX_BOARDS),$(call ex_board,$(b)))
$(foreach i,$(EX_IMAGES),$(eval $(call ex_image,$(i))))

# The generator, for images with sframe = gen: the tests' build (sanitizers
# on: the firmware suite runs it on every gen image), by the top-level
# Makefile, quiet unless V=1.
ifeq ($(SFU_GEN),$(EX_ROOT)/build/sfu-gen)
$(SFU_GEN): $(EX_ROOT)/tools/sfu-gen.c $(wildcard $(EX_ROOT)/tools/*.h $(EX_ROOT)/core/*.h)
	@$(MAKE) --no-print-directory $(if $(filter 1,$(V)),,-s) -C $(EX_ROOT) build/sfu-gen
endif
