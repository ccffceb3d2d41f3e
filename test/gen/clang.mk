# SPDX-License-Identifier: MIT
# clang.mk - clang-compiled code for the gen suite, built twice from the
# same C: by clang's integrated assembler (no SFrame; sfu-gen describes it
# from its .eh_frame) and by GNU as from clang's assembly
# (-fno-integrated-as -Wa,--gsframe: GNU as's SFrame of clang's code).
# Run inside the chroot of the toolchain (tools/toolchain.sh run SUITE make
# -f test/gen/clang.mk CLANG=... OUT=...), from the top of the repository.
#
#   OUT/<arch>/<name>-<opt>.ias.o   integrated assembler
#   OUT/<arch>/<name>-<opt>.gas.o   GNU as, --gsframe
#   OUT/<arch>/all-<opt>.{ias,gas}.elf  every object of that opt, linked by
#                                   GNU ld with test/common/image.ld
#
# CLANG: the clang to use (clang-22 in sid, clang-14 on the bookworm host).
CLANG ?= clang
OUT   ?= build/gen/clang
CDIR  := test/conformance/corpus
COMMON := test/common
NAMES := frames bigframe longfunc many realign regs
OPTS  := O0 O2 Os
ARCHES := x86_64 aarch64 aarch64-pac

TGT.x86_64      := --target=x86_64-linux-gnu
TGT.aarch64     := --target=aarch64-linux-gnu
TGT.aarch64-pac := --target=aarch64-linux-gnu -mbranch-protection=pac-ret+leaf
LD.x86_64       := ld
LD.aarch64      := aarch64-linux-gnu-ld
LD.aarch64-pac  := aarch64-linux-gnu-ld
AS.x86_64       := x86_64
AS.aarch64      := aarch64
AS.aarch64-pac  := aarch64

CFLAGS := -g0 -fasynchronous-unwind-tables -fno-stack-protector -ffreestanding -Wno-unknown-attributes \
	-Wno-unused-command-line-argument
GASFLAGS := -fno-integrated-as -Wa,--gsframe

RUN = run() { "$$@" >$@.log 2>&1 || { cat $@.log >&2; rm -f $@; exit 1; }; }; run

.PHONY: all
.SUFFIXES:
.DELETE_ON_ERROR:

# One object: arch, name, opt, kind (ias or gas).
define obj_rule
$(OUT)/$(1)/$(2)-$(3).$(4).o: $(CDIR)/$(2).c
	@mkdir -p $$(@D)
	@$$(RUN) $(CLANG) $(TGT.$(1)) -$(3) $(CFLAGS) $(FL.$(4)) -c $$< -o $$@
endef
FL.ias :=
FL.gas := $(GASFLAGS)

define arch_rules
$(OUT)/$(1)/start.ias.o: $(COMMON)/start-$(AS.$(1)).S
	@mkdir -p $$(@D)
	@$$(RUN) $(CLANG) $(TGT.$(1)) $(CFLAGS) -c $$< -o $$@
$(OUT)/$(1)/start.gas.o: $(COMMON)/start-$(AS.$(1)).S
	@mkdir -p $$(@D)
	@$$(RUN) $(CLANG) $(TGT.$(1)) $(CFLAGS) $(GASFLAGS) -c $$< -o $$@
$(foreach o,$(OPTS),$(foreach k,ias gas,$(foreach n,$(NAMES),$(eval $(call obj_rule,$(1),$(n),$(o),$(k))))))
$(foreach o,$(OPTS),$(foreach k,ias gas,$(eval $(call link_rules,$(1),$(o),$(k)))))
endef

define link_rules
ALL += $(OUT)/$(1)/all-$(2).$(3).elf $(foreach n,$(NAMES),$(OUT)/$(1)/$(n)-$(2).$(3).o)
$(OUT)/$(1)/all-$(2).$(3).elf: $(OUT)/$(1)/start.$(3).o $(foreach n,$(NAMES),$(OUT)/$(1)/$(n)-$(2).$(3).o) $(COMMON)/image.ld
	@$$(RUN) $(LD.$(1)) -nostdlib -static -T $(COMMON)/image.ld -o $$@ $$(filter %.o,$$^)
endef

$(foreach a,$(ARCHES),$(eval $(call arch_rules,$(a))))

all: $(ALL)
