# SPDX-License-Identifier: MIT
# sfu - SFrame stack unwinder.  `make help` lists the targets.

BUILD ?= build
HOSTCC ?= gcc
SANITIZE ?= -fsanitize=address,undefined -fno-sanitize-recover=all
HOST_CFLAGS ?= -std=c99 -O1 -g -Wall -Wextra -Wundef -Werror -D_DEFAULT_SOURCE
# The tools as a user runs them (make tools, make install): optimised,
# hardened as Debian builds its packages, no sanitizer.  HOST_CFLAGS and
# SANITIZE are the tests' builds of the same sources (build/sfu-*).
TOOL_CFLAGS ?= -std=c99 -O2 -Wall -Wextra -Wundef -D_DEFAULT_SOURCE -D_FORTIFY_SOURCE=2 -fstack-protector-strong
TOOL_LDFLAGS ?= -Wl,-z,relro,-z,now

# The core: sfu.h, the parts of its implementation it includes, sfu_format.h.
CORE_HDRS := $(sort $(wildcard core/*.h))
# The host tools read and write ELF with elfutils' libelf and read DWARF CFI
# with its libdw (Debian libelf-dev, libdw-dev: tools/toolchain.sh host-deps).
SFU_ELF_LIBS := -lelf -ldw

# The release, from core/sfu.h's SFU_VERSION_MAJOR/MINOR/PATCH.
sfu_version_part = $(shell sed -n 's/^.define SFU_VERSION_$(1) \([0-9][0-9]*\)$$/\1/p' core/sfu.h)
SFU_VERSION := $(call sfu_version_part,MAJOR).$(call sfu_version_part,MINOR).$(call sfu_version_part,PATCH)

# Where make install puts things: headers in $(PREFIX)/include/sfu, the
# linker fragments in $(PREFIX)/share/sfu, the tools in $(PREFIX)/bin, sfu.pc
# in $(PREFIX)/share/pkgconfig, the CMake package in
# $(PREFIX)/share/cmake/sfu, LICENSE and CHANGELOG.md in
# $(PREFIX)/share/doc/sfu (sfu is header-only: nothing depends on the
# machine, so nothing goes to lib/).  DESTDIR: a staging root put before
# every path written, never into the files (packaging).
PREFIX ?= /usr/local
DESTDIR ?=

# Quiet: one "  CC      file" line per step; V=1 prints the commands
# instead (examples/ does the same), make -s neither.
V ?= 0
Q := $(if $(filter 1,$(V)),,@)
say = $(if $(filter 1,$(V))$(findstring s,$(firstword -$(MAKEFLAGS))),,@printf '  %-7s %s\n' '$(1)' '$(2)')

.PHONY: help deps toolchains tools gen test run bench size fuzz clean install install-lib install-tools uninstall dist print-version print-tools print-tool-libs

help:
	@echo "make run         boot both QEMU boards: panic and fault dumps, interrupt panic, timer summaries"
	@echo "                 (make -C examples help: boot any image with any scenario, and more)"
	@echo "make test        install what is missing, then run every test suite"
	@echo "make bench       speed per frame: sfu against frame pointers, libgcc, libunwind (docs/measurements.md)"
	@echo "make size        bytes of the README's steps as linked, of the core, and the stack, beside a baseline commit"
	@echo "                 (SIZE_BASE_REV; docs/measurements.md and the README's figures)"
	@echo "make fuzz        run the libFuzzer harnesses for FUZZ_SECONDS each, FUZZ_JOBS at a time"
	@echo "make tools       build the host tools, optimised, into $(BUILD)/bin: $(SFU_TOOLS) $(SFU_SCRIPTS)"
	@echo "make gen         build $(BUILD)/bin/sfu-gen: .sframe from an ELF file's DWARF CFI"
	@echo "make install     headers, linker fragments, tools, sfu.pc, CMake package into PREFIX (/usr/local); DESTDIR"
	@echo "                 (make install-lib: all but the tools, no host libraries needed; make install-tools)"
	@echo "make uninstall   remove what make install put into PREFIX"
	@echo "make dist        $(BUILD)/sfu-$(SFU_VERSION).tar.gz, the release tarball"
	@echo "make toolchains  build the trixie (V2) and sid (V3) toolchain chroots"
	@echo "make clean       remove build/"
	@echo "V=1 prints the build commands"

# Debian packages on the host, then the two toolchain chroots (cached in
# /var/cache/sfu-chroots).  Both are no-ops when already there.
deps:
	@tools/toolchain.sh host-deps

toolchains: deps
	@tools/toolchain.sh ensure trixie sid

# ---- the host tools ----------------------------------------------------------
# One C file each, tools/NAME.c; SFU_TOOLS lists them.  A new tool is its
# name added there: make tools, make install, make dist and the install
# suite's --version/--help and ldd checks all follow the list.  NAME's
# libraries are in <NAME in capitals, - as _>_LIBS (SFU_GEN_LIBS), its
# extra compiler flags in ..._CFLAGS; both builds of a tool use them.
# Every tool answers --version and --help (tools/sfu_tool.h).
SFU_TOOLS := sfu-dump sfu-gen sfu-crash
# Shell scripts, tools/NAME, installed with the release stamped in.
SFU_SCRIPTS := sfu-symbolize sfu-symtab
# sfu-dump and sfu-crash (which writes core files) use ELF only (libelf);
# sfu-gen reads CFI too (libdw).
SFU_DUMP_LIBS ?= -lelf
SFU_GEN_LIBS ?= $(SFU_ELF_LIBS)
SFU_CRASH_LIBS ?= -lelf

# What a tool may include: over-approximated, a rebuild too many costs
# seconds.
TOOL_HDRS := $(wildcard core/*.h tools/*.h crash/*.h port/*.h port/*/*.h) Makefile
tool_var = $(subst -,_,$(shell echo '$(1)' | tr a-z A-Z))_$(2)

# sfu_tool NAME: the tests' build $(BUILD)/NAME (sanitizers, -Werror) and
# the product $(BUILD)/bin/NAME.
define sfu_tool
$(BUILD)/$(1): tools/$(1).c $(TOOL_HDRS)
	@mkdir -p $$(@D)
	$$(call say,CC,$$@)
	$$(Q)$$(HOSTCC) $$(HOST_CFLAGS) $$(SANITIZE) $$($(call tool_var,$(1),CFLAGS)) -Icore -Icrash \
		-o $$@ $$< $$($(call tool_var,$(1),LIBS))

$(BUILD)/bin/$(1): tools/$(1).c $(TOOL_HDRS)
	@mkdir -p $$(@D)
	$$(call say,CC,$$@)
	$$(Q)$$(HOSTCC) $$(TOOL_CFLAGS) $$($(call tool_var,$(1),CFLAGS)) -Icore -Icrash \
		-o $$@ $$< $$(TOOL_LDFLAGS) $$($(call tool_var,$(1),LIBS))
endef
$(foreach t,$(SFU_TOOLS),$(eval $(call sfu_tool,$(t))))

# A script carries @SFU_VERSION@ where the release goes; in the tree it
# reads core/sfu.h instead.
$(BUILD)/bin/%: tools/% core/sfu.h Makefile
	@mkdir -p $(@D)
	$(call say,GEN,$@)
	$(Q)sed 's/@SFU_VERSION@/$(SFU_VERSION)/g' $< >$@.tmp && chmod 755 $@.tmp && mv $@.tmp $@

tools: $(addprefix $(BUILD)/bin/,$(SFU_TOOLS) $(SFU_SCRIPTS))

gen: $(BUILD)/bin/sfu-gen

# For the install suite and scripts: the release; the tools; each C tool's
# libraries ("NAME: -lx -ly").
print-version:
	@echo $(SFU_VERSION)
print-tools:
	@echo $(SFU_TOOLS) $(SFU_SCRIPTS)
print-tool-libs:
	@$(foreach t,$(SFU_TOOLS),echo '$(t): $($(call tool_var,$(t),LIBS))';)

# ---- install -------------------------------------------------------------------
# core/, crash/, port/ and rtos/ go to include/sfu/ side by side, each
# keeping its folders, so the includes of the tree work unchanged:
# -I$(PREFIX)/include/sfu plays -Icore -Icrash -Iport -Irtos ("sfu.h",
# "sfu_dump.h", "sfu_port.h", "sfu_freertos.h"), and the ports' own "sfu.h"
# resolves there as in the tree.
INSTALL_HDRS := $(sort $(shell find core crash port rtos -name '*.h'))
hdr_dest = $(patsubst core/%,%,$(patsubst crash/%,%,$(patsubst port/%,%,$(patsubst rtos/%,%,$(1)))))
INSTALL_LDS := $(sort $(wildcard linker/*.ld))
I_BIN := $(DESTDIR)$(PREFIX)/bin
I_INC := $(DESTDIR)$(PREFIX)/include/sfu
I_LDS := $(DESTDIR)$(PREFIX)/share/sfu
I_PC := $(DESTDIR)$(PREFIX)/share/pkgconfig
I_CMAKE := $(DESTDIR)$(PREFIX)/share/cmake/sfu
# The license travels with the installed copy (MIT: the notice goes with
# every copy), and the changelog beside it.
I_DOC := $(DESTDIR)$(PREFIX)/share/doc/sfu
INSTALL_DOCS := LICENSE CHANGELOG.md
# The package files: packaging/*.in with the prefix and the release filled in
# (at install time: the prefix is the one of this install).
pkg_subst = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@SFU_VERSION@|$(SFU_VERSION)|g' \
	-e 's|@SFU_VERSION_MAJOR@|$(call sfu_version_part,MAJOR)|g' -e 's|@SFU_VERSION_MINOR@|$(call sfu_version_part,MINOR)|g'

# install-lib: what a firmware build uses (headers, linker fragments, package
# files, the license), no compiler for the host needed; install-tools: the
# host tools.  install: both.
install: install-lib install-tools

install-lib:
	$(call say,INSTALL,$(DESTDIR)$(PREFIX) (headers and package files))
	$(Q)install -d $(I_INC) $(I_LDS) $(I_PC) $(I_CMAKE) $(I_DOC)
	$(Q)install -m 644 $(INSTALL_DOCS) $(I_DOC)/
	$(Q)$(foreach h,$(INSTALL_HDRS),install -D -m 644 $(h) $(I_INC)/$(call hdr_dest,$(h)) &&) true
	$(Q)install -m 644 $(INSTALL_LDS) $(I_LDS)/
	$(Q)$(pkg_subst) packaging/sfu.pc.in >$(I_PC)/sfu.pc
	$(Q)$(foreach f,sfu-config sfu-config-version,$(pkg_subst) packaging/$(f).cmake.in >$(I_CMAKE)/$(f).cmake &&) true

install-tools: tools
	$(call say,INSTALL,$(I_BIN): $(SFU_TOOLS) $(SFU_SCRIPTS))
	$(Q)install -d $(I_BIN)
	$(Q)install -m 755 $(addprefix $(BUILD)/bin/,$(SFU_TOOLS) $(SFU_SCRIPTS)) $(I_BIN)/

# Only sfu's own folders are removed, and only when empty: never a
# PREFIX/include or share/pkgconfig that other packages share.
uninstall:
	$(call say,RM,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(addprefix $(I_BIN)/,$(SFU_TOOLS) $(SFU_SCRIPTS)) $(I_PC)/sfu.pc \
		$(addprefix $(I_INC)/,$(foreach h,$(INSTALL_HDRS),$(call hdr_dest,$(h)))) \
		$(addprefix $(I_LDS)/,$(notdir $(INSTALL_LDS))) $(I_CMAKE)/sfu-config.cmake $(I_CMAKE)/sfu-config-version.cmake \
		$(addprefix $(I_DOC)/,$(INSTALL_DOCS))
	$(Q)for d in $(sort $(filter-out $(I_INC)/,$(dir $(addprefix $(I_INC)/,$(foreach h,$(INSTALL_HDRS),$(call \
		hdr_dest,$(h))))))) $(I_INC) $(I_LDS) $(I_CMAKE) $(I_DOC); do rmdir "$$d" 2>/dev/null || true; done

# ---- the release tarball -------------------------------------------------------
# What a user needs to build, install and read: the library, its ports and
# linker fragments, the tools, the package files, the examples the README
# walks through, the docs.  Not the test suites (their corpora are most of
# the repository; a clone has them).  Files as git tracks them (in the work
# tree as it is), or, in an unpacked tarball, as they are; dated by the last
# commit, owned by root, sorted: the same tree makes the same tarball.
DIST := sfu-$(SFU_VERSION)
DIST_PATHS := LICENSE README.md CHANGELOG.md Makefile CMakeLists.txt .editorconfig core crash port rtos linker tools packaging \
	examples docs
DIST_FILES = $(if $(wildcard .git),$(shell git ls-files -- $(DIST_PATHS)),$(shell find $(DIST_PATHS) -type f 2>/dev/null))
DIST_DATE = $(or $(SOURCE_DATE_EPOCH),$(if $(wildcard .git),$(shell git log -1 --format=%ct)),0)

dist:
	@mkdir -p $(BUILD)
	$(call say,TAR,$(BUILD)/$(DIST).tar.gz)
	$(Q)tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@$(DIST_DATE) \
		--transform 's|^|$(DIST)/|' -cf - $(sort $(DIST_FILES)) | gzip -9n >$(BUILD)/$(DIST).tar.gz.tmp
	$(Q)mv $(BUILD)/$(DIST).tar.gz.tmp $(BUILD)/$(DIST).tar.gz

# The test suites, benchmarks and fuzzers live in the repository, not in
# the release tarball.
ifneq ($(wildcard test/run-all.sh),)
test: toolchains
	@test/run-all.sh

bench: toolchains
	@bash test/bench/run.sh

size: deps
	@bash test/size/run.sh

FUZZ_SECONDS ?= 180
FUZZ_JOBS ?= 1
fuzz: toolchains
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) bash test/fuzz/run-fuzz.sh

else
test bench size fuzz:
	@echo "make $@: the test suites are not in the release tarball; clone the repository for them" >&2; exit 2
endif

run: toolchains
	@$(MAKE) --no-print-directory -C examples run

clean:
	rm -rf $(BUILD)

# The test suites' host programs (test/*/run.sh ask make for them).
-include test/common/host.mk
