# sfu - SFrame stack unwinder.  `make help` lists the targets.

BUILD ?= build
HOSTCC ?= gcc
SANITIZE ?= -fsanitize=address,undefined -fno-sanitize-recover=all
HOST_CFLAGS ?= -std=c99 -O1 -g -Wall -Wextra -Wundef -Werror -D_DEFAULT_SOURCE

CORE_HDRS := core/sfu.h core/sfu_format.h

# Quiet: one "  CC      file" line per step; V=1 prints the commands
# instead (examples/ does the same), make -s neither.
V ?= 0
Q := $(if $(filter 1,$(V)),,@)
say = $(if $(filter 1,$(V))$(findstring s,$(firstword -$(MAKEFLAGS))),,@printf '  %-7s %s\n' '$(1)' '$(2)')

.PHONY: help deps toolchains tools gen test run bench size fuzz clean

help:
	@echo "make run         boot both QEMU boards: panic and fault dumps, interrupt panic, timer summaries"
	@echo "                 (make -C examples help: boot any image with any scenario, and more)"
	@echo "make test        install what is missing, then run every test suite"
	@echo "make bench       speed per frame: sfu against frame pointers, libgcc, libunwind"
	@echo "make size        code size and stack use of the core, against libgcc's unwinder"
	@echo "make fuzz        run the libFuzzer harnesses for FUZZ_SECONDS each, FUZZ_JOBS at a time"
	@echo "make tools       build tools/sfu-dump, tools/sfu-gen and tools/sfu-crash (host)"
	@echo "make gen         build tools/sfu-gen: .sframe from an ELF file's DWARF CFI"
	@echo "make toolchains  build the trixie (V2) and sid (V3) toolchain chroots"
	@echo "make clean       remove build/"
	@echo "V=1 prints the build commands"

# Debian packages on the host, then the two toolchain chroots (cached in
# /var/cache/sfu-chroots).  Both are no-ops when already there.
deps:
	@tools/toolchain.sh host-deps

toolchains: deps
	@tools/toolchain.sh ensure trixie sid

tools: $(BUILD)/sfu-dump $(BUILD)/sfu-gen $(BUILD)/sfu-crash

gen: $(BUILD)/sfu-gen

$(BUILD)/sfu-gen: tools/sfu-gen.c tools/sfu_cfi.h tools/sfu_elf.h core/sfu_format.h
	@mkdir -p $(BUILD)
	$(call say,CC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(SANITIZE) -o $@ tools/sfu-gen.c

$(BUILD)/sfu-crash: tools/sfu-crash.c port/common/sfu_crash.h $(CORE_HDRS)
	@mkdir -p $(BUILD)
	$(call say,CC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(SANITIZE) -Icore -Iport/common -o $@ tools/sfu-crash.c -lelf

$(BUILD)/sfu-dump: tools/sfu-dump.c tools/sfu_elf.h $(CORE_HDRS)
	@mkdir -p $(BUILD)
	$(call say,CC,$@)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) $(SANITIZE) -o $@ tools/sfu-dump.c

test: toolchains
	@test/run-all.sh

run: toolchains
	@$(MAKE) --no-print-directory -C examples run

bench: toolchains
	@bash test/bench/run.sh

size: deps
	@bash test/size/run.sh

FUZZ_SECONDS ?= 180
FUZZ_JOBS ?= 1
fuzz: toolchains
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) bash test/fuzz/run-fuzz.sh

clean:
	rm -rf $(BUILD)

# The test suites' host programs (test/*/run.sh ask make for them).
include test/common/host.mk
