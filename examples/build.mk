# examples/build.mk -- build and boot the bare-metal QEMU example images.
#
# Included by examples/Makefile, and meant to be included by the top-level
# Makefile as well: every variable and target here is prefixed EX_/ex-,
# every path is derived from this file's own location, so the include
# works from any directory.
#
# Interface (all variables can be overridden on the command line):
#
#   targets
#     ex-all           build the five images (below)
#     ex-run           the demo (demo.sh): boot both boards, show the panic
#                      and fault dumps, the timer summaries, a pac-ret dump
#                      and a symbolized one; fails if a boot misbehaved
#     ex-matrix        boot every image/CPU/scenario, print the serial
#                      output, one "ok <case>" / "FAIL <case>: <why>" line
#                      per boot; fails if any case failed
#     ex-check-sframe  check each image's .sframe with nm and objdump
#     ex-clean         remove $(EX_OUT)
#
#   images
#     $(EX_OUT)/aarch64-virt/sfu-aarch64-virt.elf          no PAC
#     $(EX_OUT)/aarch64-virt-pac/sfu-aarch64-virt-pac.elf  -mbranch-protection=pac-ret
#     $(EX_OUT)/x86_64-pc/sfu-x86_64-pc.elf
#     $(EX_OUT)/aarch64-virt-lld/sfu-aarch64-virt-lld.elf   linked by lld
#     $(EX_OUT)/x86_64-pc-lld/sfu-x86_64-pc-lld.elf         linked by lld
#
#   tools
#     CC_aarch64 LD_aarch64 OBJDUMP_aarch64 NM_aarch64 READELF_aarch64
#     CC_x86_64  LD_x86_64  OBJDUMP_x86_64  NM_x86_64  READELF_x86_64
#     LLD (default ld.lld-14) QEMU_aarch64 QEMU_x86_64
#     To build with a chroot toolchain, prefix the tools, e.g.
#       CC_x86_64="tools/toolchain.sh run trixie gcc"
#     (run from the repository root: the chroot bind-mounts $PWD).
#
#   knobs
#     EX_OUT        output directory             (default <repo>/build/examples)
#     EX_OPT        optimisation flags           (default -O2 -g)
#     EX_WERROR     warnings as errors           (default -Werror)
#     EX_SCENARIOS  scenarios ex-run boots       (default: all of them)
#     EX_TIMEOUT    seconds per QEMU boot        (default 20)
#     EX_DEFAULT_SCENARIO  what an image runs when -append names none
#                                                (default hello)

# Absolute paths, and every tool runs from the repository root: a chroot
# toolchain (tools/toolchain.sh run) bind-mounts only $PWD, at the same
# path, so port/ and linker/ must lie below the directory it runs in.
EX_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
EX_ROOT := $(abspath $(EX_DIR)/..)
EX_OUT ?= $(EX_ROOT)/build/examples

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
QEMU_aarch64 ?= qemu-system-aarch64
QEMU_x86_64 ?= qemu-system-x86_64

EX_OPT ?= -O2 -g
EX_WERROR ?= -Werror
EX_TIMEOUT ?= 20
EX_DEFAULT_SCENARIO ?= hello
EX_SCENARIOS ?= hello panic null udf timer irqpanic corrupt badfp loop badsp

# Flags every object gets.  -fasynchronous-unwind-tables keeps the CFI that
# gas turns into .sframe (-Wa,--gsframe); -fno-delete-null-pointer-checks
# keeps the deliberate null load a load.
# Pinned so the traces are the same function sequence with gcc 12, 14 and 16:
# -fno-optimize-sibling-calls keeps every caller in the trace (a tail call
# replaces the caller's frame), -fno-reorder-blocks-and-partition keeps
# cold paths inside their function (no "chain_f.cold" frames).
EX_CFLAGS := -std=gnu11 $(EX_OPT) -ffreestanding -nostdlib -fno-builtin \
	-fno-pic -fno-pie -fno-stack-protector -fasynchronous-unwind-tables \
	-fno-delete-null-pointer-checks -Wa,--gsframe \
	-fno-optimize-sibling-calls -fno-reorder-blocks-and-partition \
	-Wall -Wextra -Wundef $(EX_WERROR) -MMD -MP \
	-DEX_DEFAULT_SCENARIO='"$(EX_DEFAULT_SCENARIO)"'
EX_ASFLAGS := -Wa,--gsframe -MMD -MP

# Per architecture.  aarch64: no FP/SIMD registers (the vectors do not save
# them), no out-of-line atomics helpers (no libgcc).  x86_64: no red zone
# (interrupts push below RSP), no SSE, addresses below 2 GiB.
EX_CFLAGS_aarch64 := -mgeneral-regs-only -mno-outline-atomics
EX_CFLAGS_x86_64 := -m64 -mno-red-zone -mgeneral-regs-only -mcmodel=small \
	-fcf-protection=none
# The sfu core (unwind.c has its implementation) reads the image's own ABI only.
EX_SFU_aarch64 := -DSFU_AMD64=0 -DSFU_S390X=0
EX_SFU_x86_64 := -DSFU_AARCH64=0 -DSFU_S390X=0

# Files built without a frame pointer; every other C file keeps it.
EX_NOFP := chain_nofp.c leaf.c workload_nofp.c
# Files whose functions follow each other without padding (chain_e's
# return address is then the first byte of chain_b).
EX_PACKED := chain_nofp.c

EX_COMMON_SRCS := print.c mem.c scenario.c panic.c dump.c unwind.c chain_fp.c \
	chain_nofp.c chain_big.c leaf.c corrupt.c workload.c workload_nofp.c

# One RWX load segment is what a bare-metal image without page permissions
# is; the MMU setup maps all RAM RWX anyway.
EX_LDFLAGS := -nostdlib -static -z noexecstack --build-id=none --no-warn-rwx-segments \
	-L $(EX_ROOT)/linker
# lld: same scripts (it supports INCLUDE), no RWX warning to silence.
EX_LLDFLAGS := -nostdlib -static -z noexecstack --build-id=none -L $(EX_ROOT)/linker

# ex_image: $(1) image name, $(2) arch, $(3) board dir, $(4) extra CFLAGS,
# $(5) board sources, $(6) extra LDFLAGS, $(7) "lld" to link with $(LLD)
#
# Two links (symtab.sh): pass1.elf with an empty symbol table, then the
# image with the table made from pass1.elf's function symbols.  The table
# is in .ex_symtab, after .data, so code and .sframe do not move; the
# recipe checks that, and deletes the image if they did.
define ex_image
EX_IMAGES += $(EX_OUT)/$(1)/sfu-$(1).elf
EX_OBJS_$(1) := $$(addprefix $(EX_OUT)/$(1)/,$$(patsubst %.c,%.o,$$(patsubst %.S,%.o,$(5) $(EX_COMMON_SRCS))))
EX_ARCH_$(1) := $(2)
EX_LINK_$(1) = cd $(EX_ROOT) && $(if $(7),$$(LLD) $$(EX_LLDFLAGS),$$(LD_$(2)) $$(EX_LDFLAGS)) $(6) \
	-T $(EX_DIR)/$(3)/link.ld

$(EX_OUT)/$(1)/%.o: $(EX_DIR)/$(3)/%.S $(EX_DIR)/build.mk
	@mkdir -p $$(@D)
	cd $(EX_ROOT) && $$(CC_$(2)) $$(EX_ASFLAGS) $$(EX_CFLAGS_$(2)) $(4) -I $(EX_ROOT)/port/$(2) -c $$< -o $$@

$(EX_OUT)/$(1)/%.o: $(EX_DIR)/$(3)/%.c $(EX_DIR)/build.mk
	@mkdir -p $$(@D)
	cd $(EX_ROOT) && $$(CC_$(2)) $$(EX_CFLAGS) $$(EX_CFLAGS_$(2)) $(4) -fno-omit-frame-pointer \
		-I $(EX_DIR)/common -I $(EX_ROOT)/port/$(2) -I $(EX_ROOT)/core $$(EX_SFU_$(2)) \
		-DEX_BOARD='"$(3)"' -c $$< -o $$@

$(EX_OUT)/$(1)/%.o: $(EX_DIR)/common/%.c $(EX_DIR)/build.mk
	@mkdir -p $$(@D)
	cd $(EX_ROOT) && $$(CC_$(2)) $$(EX_CFLAGS) $$(EX_CFLAGS_$(2)) $(4) \
		$$(if $$(filter $$(notdir $$<),$(EX_NOFP)),-fomit-frame-pointer,-fno-omit-frame-pointer) \
		$$(if $$(filter mem.c,$$(notdir $$<)),-fno-tree-loop-distribute-patterns) \
		$$(if $$(filter $$(notdir $$<),$(EX_PACKED)),-falign-functions=1 -fno-toplevel-reorder) \
		-I $(EX_DIR)/common -I $(EX_ROOT)/port/$(2) -I $(EX_ROOT)/core $$(EX_SFU_$(2)) \
		-DEX_BOARD='"$(3)"' -c $$< -o $$@

# The symbol tables: assembly with no CFI, so no .sframe of their own.
$(EX_OUT)/$(1)/symtab0.S: $(EX_DIR)/symtab.sh
	@mkdir -p $$(@D)
	sh $(EX_DIR)/symtab.sh gen /dev/null $$@

$(EX_OUT)/$(1)/symtab%.o: $(EX_OUT)/$(1)/symtab%.S
	cd $(EX_ROOT) && $$(CC_$(2)) $$(EX_CFLAGS_$(2)) -c $$< -o $$@

$(EX_OUT)/$(1)/pass1.elf: $$(EX_OBJS_$(1)) $(EX_OUT)/$(1)/symtab0.o $(EX_DIR)/$(3)/link.ld $(EX_ROOT)/linker/sframe.ld
	$$(EX_LINK_$(1)) -o $$@ $$(EX_OBJS_$(1)) $(EX_OUT)/$(1)/symtab0.o

$(EX_OUT)/$(1)/symtab.list: $(EX_OUT)/$(1)/pass1.elf $(EX_DIR)/symtab.sh
	cd $(EX_ROOT) && NM='$$(NM_$(2))' sh $(EX_DIR)/symtab.sh list $$< > $$@.tmp && mv $$@.tmp $$@

$(EX_OUT)/$(1)/symtab1.S: $(EX_OUT)/$(1)/symtab.list
	sh $(EX_DIR)/symtab.sh gen $$< $$@

$(EX_OUT)/$(1)/sfu-$(1).elf: $$(EX_OBJS_$(1)) $(EX_OUT)/$(1)/symtab1.o $(EX_OUT)/$(1)/symtab.list
	$$(EX_LINK_$(1)) -Map $$@.map -o $$@.tmp $$(EX_OBJS_$(1)) $(EX_OUT)/$(1)/symtab1.o
	cd $(EX_ROOT) && NM='$$(NM_$(2))' sh $(EX_DIR)/symtab.sh check $(EX_OUT)/$(1)/symtab.list $$@.tmp
	mv $$@.tmp $$@

-include $$(EX_OBJS_$(1):.o=.d)
endef

$(eval $(call ex_image,aarch64-virt,aarch64,aarch64-virt,-mbranch-protection=none -DEX_VARIANT='""',head.S vectors.S board.c,))
$(eval $(call ex_image,aarch64-virt-pac,aarch64,aarch64-virt,-mbranch-protection=pac-ret -DEX_VARIANT='"pac-ret build"',head.S vectors.S board.c,))
$(eval $(call ex_image,x86_64-pc,x86_64,x86_64-pc,-DEX_VARIANT='""',head.S isr.S board.c,-z max-page-size=0x1000))
# The same, linked by lld: .sframe is then one section per object, back to
# back (linker/sframe.ld), the layout the core walks as an array.
$(eval $(call ex_image,aarch64-virt-lld,aarch64,aarch64-virt,-mbranch-protection=none -DEX_VARIANT='"linked by lld"' -DEX_SFRAME_UNMERGED=1,head.S vectors.S board.c,,lld))
$(eval $(call ex_image,x86_64-pc-lld,x86_64,x86_64-pc,-DEX_VARIANT='"linked by lld"' -DEX_SFRAME_UNMERGED=1,head.S isr.S board.c,-z max-page-size=0x1000,lld))

.PHONY: ex-all ex-run ex-matrix ex-check-sframe ex-clean

ex-all: $(EX_IMAGES)

ex-run: ex-all
	@cd $(EX_ROOT) && EX_TIMEOUT=$(EX_TIMEOUT) QEMU_aarch64='$(QEMU_aarch64)' QEMU_x86_64='$(QEMU_x86_64)' \
		sh $(EX_DIR)/demo.sh $(EX_OUT)

ex-matrix: ex-all
	@cd $(EX_ROOT) && EX_TIMEOUT=$(EX_TIMEOUT) QEMU_aarch64='$(QEMU_aarch64)' QEMU_x86_64='$(QEMU_x86_64)' \
		EX_SCENARIOS='$(EX_SCENARIOS)' sh $(EX_DIR)/run-all.sh $(EX_OUT)

ex-check-sframe: ex-all
	@cd $(EX_ROOT) && OBJDUMP_aarch64='$(OBJDUMP_aarch64)' NM_aarch64='$(NM_aarch64)' READELF_aarch64='$(READELF_aarch64)' \
		OBJDUMP_x86_64='$(OBJDUMP_x86_64)' NM_x86_64='$(NM_x86_64)' READELF_x86_64='$(READELF_x86_64)' \
		sh $(EX_DIR)/check-sframe.sh $(EX_OUT)

ex-clean:
	rm -rf $(EX_OUT)
