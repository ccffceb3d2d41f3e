# SPDX-License-Identifier: MIT
# corpus.mk - build the conformance corpus for one toolchain suite, and
# write the reference dumps.  Driven by build-corpus.sh, which runs it
# inside each suite's chroot (tools/toolchain.sh run SUITE make -f ...)
# from the top of the repository; paths here are relative to that.
#
#   make -f test/conformance/corpus.mk SUITE=trixie OUT=build/conformance build
#   make -f test/conformance/corpus.mk SUITES='trixie sid' OUT=... refs
#
# Layout: $(OUT)/<suite>/<arch>/<name>-<opt>.{o,elf} for C sources,
# <name>-asm.{o,elf} for assembly (built once: -O has no effect on it),
# all-<opt>.elf (every object of that opt in one image), ldr-<opt>.o
# (the same objects through `ld -r`), all-lld-<opt>.elf (the same linked
# by lld), plt-*.so (shared objects, for the linker-generated PLT FDEs).  Next to each file: FILE.log (compiler and
# linker messages), FILE.ref and FILE.refinfo (written by `refs`).

OUT   ?= build/conformance
SUITE ?= bookworm
CDIR  := test/conformance/corpus
# _start and the image layout, shared with test/gen and test/props.
COMMON := test/common
LDS   := $(COMMON)/image.ld
OPTS  := O0 O2 Os

# Every C source is built for every architecture, except pauth.c, which
# is AArch64 only.
CNAMES := frames bigframe longfunc many realign regs

ARCHES.bookworm := x86_64 aarch64 aarch64-pac aarch64_be
ARCHES.trixie   := x86_64 aarch64 aarch64-pac aarch64_be
ARCHES.sid      := x86_64 aarch64 aarch64-pac aarch64_be s390x
# LLVM's own SFrame: clang 22 (sid chroot), integrated assembler, x86_64
# only (LLVM 22 emits experimental SFrame V2 for x86_64 alone).
ARCHES.llvm     := x86_64
ARCHES := $(ARCHES.$(SUITE))

# Per architecture directory: compiler, extra flags, linker, the suffix
# of its assembly sources (and of test/common/start-*.S), the assembly
# sources besides _start, and the C sources.
CC.x86_64  := gcc
FL.x86_64  :=
LD.x86_64  := ld
AS.x86_64  := x86_64
ASM.x86_64 := cfi big nocfi emptysf
CN.x86_64  := $(CNAMES)

CC.aarch64  := aarch64-linux-gnu-gcc
FL.aarch64  :=
LD.aarch64  := aarch64-linux-gnu-ld
AS.aarch64  := aarch64
ASM.aarch64 := cfi big nocfi emptysf
CN.aarch64  := $(CNAMES) pauth

# Every C source with return-address signing on, leaf functions included.
# The assembly is the same as for aarch64 and not built again.
CC.aarch64-pac  := aarch64-linux-gnu-gcc
FL.aarch64-pac  := -mbranch-protection=pac-ret+leaf
LD.aarch64-pac  := aarch64-linux-gnu-ld
AS.aarch64-pac  := aarch64
ASM.aarch64-pac :=
CN.aarch64-pac  := $(CNAMES) pauth

CC.aarch64_be  := aarch64-linux-gnu-gcc
FL.aarch64_be  := -mbig-endian
LD.aarch64_be  := aarch64-linux-gnu-ld -EB
AS.aarch64_be  := aarch64
ASM.aarch64_be := cfi big nocfi emptysf
CN.aarch64_be  := $(CNAMES) pauth

CC.s390x  := s390x-linux-gnu-gcc
FL.s390x  :=
LD.s390x  := s390x-linux-gnu-ld
AS.s390x  := s390x
ASM.s390x :=
CN.s390x  := $(CNAMES)

# The llvm suite: clang 22's integrated assembler writes .sframe
# (-Wa,--gsframe -Wa,--allow-experimental-sframe).  Images are linked by
# lld 22, which concatenates the input sections like lld 14 (no
# reference); GNU ld cannot link LLVM's sections at all (2.47 refuses V2
# input, 2.44 the PCREL flag), so all-gnuld-<opt>.elf are kept as inputs
# only.  gcc-only attributes (noclone, optimize) are ignored by clang.
ifeq ($(SUITE),llvm)
CC.x86_64  := clang-22 --target=x86_64-linux-gnu -Wno-unknown-attributes -Wa,--allow-experimental-sframe
LD.x86_64  := ld.lld-22
ASM.x86_64 := cfi big nocfi
endif

# Flags common to everything.  -fasynchronous-unwind-tables is the
# default on these targets; it is spelled out because gas builds SFrame
# from the CFI directives it implies.  No stack protector: the images are
# linked without a C library.
CFLAGS := -g0 -fasynchronous-unwind-tables -fno-stack-protector \
	-ffreestanding -Wa,--gsframe
# Per-source extra flags (x86_64 only: realign.c also with -mstackrealign).
XFL.x86_64.realign := -mstackrealign
# The ELF type of .sframe as the suite's gas writes it (for emptysf-*.S):
# SHT_GNU_SFRAME from binutils 2.45 on (SFrame V2 erratum 1).
SHT.bookworm := @progbits
SHT.trixie   := @progbits
SHT.sid      := @0x6ffffff4
SHT.llvm     := @0x6ffffff4
ASFLAGS := -DSFRAME_SHT=$(SHT.$(SUITE))

LDFLAGS := -nostdlib -static -T $(LDS)

# Run a command, keep its messages in $@.log; show them and fail if the
# command fails.
RUN = run() { "$$@" >$@.log 2>&1 || { cat $@.log >&2; rm -f $@; exit 1; }; }; run

.PHONY: build lld refs
.SUFFIXES:
.DELETE_ON_ERROR:

define arch_rules
D.$(1) := $(OUT)/$(SUITE)/$(1)
COBJ.$(1) = $$(foreach n,$$(CN.$(1)),$$(D.$(1))/$$(n)-$$(2).o)
AOBJ.$(1) := $$(foreach n,$$(ASM.$(1)),$$(D.$(1))/$$(n)-asm.o)
START.$(1) := $$(D.$(1))/start-asm.o

TARGETS += $$(foreach o,$(OPTS),$$(foreach n,$$(CN.$(1)),$$(D.$(1))/$$(n)-$$(o).o $$(D.$(1))/$$(n)-$$(o).elf) \
	$$(D.$(1))/all-$$(o).elf $$(D.$(1))/ldr-$$(o).o) \
	$$(START.$(1)) $$(AOBJ.$(1)) $$(AOBJ.$(1):.o=.elf)

ifndef NOCOMPILE
$$(D.$(1))/%-asm.o: $(CDIR)/%-$$(AS.$(1)).S
	@mkdir -p $$(@D)
	@$$(RUN) $$(CC.$(1)) $$(FL.$(1)) $$(CFLAGS) $$(ASFLAGS) -c $$< -o $$@

$$(START.$(1)): $(COMMON)/start-$$(AS.$(1)).S
	@mkdir -p $$(@D)
	@$$(RUN) $$(CC.$(1)) $$(FL.$(1)) $$(CFLAGS) $$(ASFLAGS) -c $$< -o $$@
endif

$$(D.$(1))/%-asm.elf: $$(D.$(1))/%-asm.o $$(START.$(1)) $(LDS)
	@$$(RUN) $$(LD.$(1)) $$(LDFLAGS) -o $$@ $$(START.$(1)) $$<

$$(foreach o,$(OPTS),$$(eval $$(call opt_rules,$(1),$$(o))))
endef

define opt_rules
ifndef NOCOMPILE
$$(D.$(1))/%-$(2).o: $(CDIR)/%.c
	@mkdir -p $$(@D)
	@$$(RUN) $$(CC.$(1)) $$(FL.$(1)) $$(XFL.$(1).$$*) -$(2) $$(CFLAGS) -c $$< -o $$@
endif

$$(D.$(1))/%-$(2).elf: $$(D.$(1))/%-$(2).o $$(START.$(1)) $(LDS)
	@$$(RUN) $$(LD.$(1)) $$(LDFLAGS) -o $$@ $$(START.$(1)) $$<

$$(D.$(1))/all-$(2).elf: $$(START.$(1)) $$(call COBJ.$(1),,$(2)) $$(AOBJ.$(1)) $(LDS)
	@$$(RUN) $$(LD.$(1)) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^)

$$(D.$(1))/ldr-$(2).o: $$(START.$(1)) $$(call COBJ.$(1),,$(2)) $$(AOBJ.$(1))
	@$$(RUN) $$(LD.$(1)) -r -o $$@ $$^
endef

$(foreach a,$(ARCHES),$(eval $(call arch_rules,$(a))))

ifeq ($(SUITE),llvm)
# GNU ld (2.47) on LLVM's objects: kept to show what happens (the
# .sframe of the output is empty; ld says "unexpected SFrame format
# version 2").  Not an error for the build.
define gnuld_rules
TARGETS += $$(D.x86_64)/all-gnuld-$(1).elf
$$(D.x86_64)/all-gnuld-$(1).elf: $$(START.x86_64) $$(call COBJ.x86_64,,$(1)) $$(AOBJ.x86_64) $(LDS)
	@ld $$(LDFLAGS) -o $$@ $$(filter %.o,$$^) >$$@.log 2>&1 || true; test -f $$@
endef
$(foreach o,$(OPTS),$(eval $(call gnuld_rules,$(o))))
endif

# Shared objects: GNU ld writes SFrame FDEs for the PLT it creates (x86_64
# only so far; on AArch64 there is none, the object is kept anyway).
PLT.x86_64 := plt plt-ibt
PLT.aarch64 := plt
PLTFL.plt :=
PLTFL.plt-ibt := -z ibtplt
define plt_rules
TARGETS += $$(D.$(1))/plt-O2.o $$(foreach p,$$(PLT.$(1)),$$(D.$(1))/$$(p)-O2.so)
$$(D.$(1))/plt-O2.o: $(CDIR)/plt.c
	@mkdir -p $$(@D)
	@$$(RUN) $$(CC.$(1)) $$(FL.$(1)) -O2 -fPIC $$(CFLAGS) -c $$< -o $$@
$$(D.$(1))/%-O2.so: $$(D.$(1))/plt-O2.o
	@$$(RUN) $$(LD.$(1)) -shared $$(PLTFL.$$*) -o $$@ $$<
endef
$(foreach a,$(filter x86_64 aarch64,$(ARCHES)),$(eval $(call plt_rules,$(a))))

build: $(TARGETS)

# Images linked by LLVM lld, which does not know SFrame: it concatenates
# the input .sframe sections, each with its own header, in one output
# section (the core splits them: sfu_section_split).  lld is only
# on the host, so build-corpus.sh runs `lld` from the host for each suite
# after `build`, with NOCOMPILE=1: the objects are the suite's own and
# must not be rebuilt here by the host compiler.  There is no reference
# dump for them (objdump decodes the first header only); mkref.sh lists
# them as skipped.
LLD ?= ld.lld-14
LLDARCHES := $(filter x86_64 aarch64 aarch64-pac aarch64_be,$(ARCHES))
define lld_rules
LLDTARGETS += $$(D.$(1))/all-lld-$(2).elf
$$(D.$(1))/all-lld-$(2).elf: $$(START.$(1)) $$(call COBJ.$(1),,$(2)) $$(AOBJ.$(1)) $(LDS)
	@$$(RUN) $(LLD) $$(LDFLAGS) -o $$@ $$(filter %.o,$$^)
endef
$(foreach a,$(LLDARCHES),$(foreach o,$(OPTS),$(eval $(call lld_rules,$(a),$(o)))))

lld: $(LLDTARGETS)

# References: one FILE.refinfo per built file (and FILE.ref when the file
# has an .sframe section).  SUITES lists the suites whose files to do;
# bookworm's are V1 and go through normalize-v1.sh.
SUITES ?= $(SUITE)
REFFILES := $(foreach s,$(SUITES),$(sort $(wildcard $(OUT)/$(s)/*/*.o $(OUT)/$(s)/*/*.elf $(OUT)/$(s)/*/*.so)))
MKREF := test/conformance/mkref.sh
NORM := test/conformance/normalize-v1.sh

refs: $(REFFILES:=.refinfo)

$(OUT)/%.refinfo: $(OUT)/% $(MKREF) $(NORM)
	@sh $(MKREF) $<
