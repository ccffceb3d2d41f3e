# examples/aarch64-virt/board.mk -- QEMU's aarch64 "virt" machine.
#
# All the build, the launcher (boot.sh) and the tests know about this board.
# examples/build.mk reads it; what each variable means is listed there.

arch := aarch64
srcs := head.S vectors.S board.c
lds := link.ld
# No FP/SIMD registers (the vectors do not save them), no out-of-line
# atomics helpers (no libgcc), no branch protection whatever the
# compiler's default (the pac variant turns it on).
flags := -mgeneral-regs-only -mno-outline-atomics -mbranch-protection=none
# The sfu core reads this board's ABI only (every file, for the same structs).
cflags := -DSFU_AMD64=0 -DSFU_S390X=0

# GICv2 explicitly (the only one board.c drives).  Semihosting carries the
# command line in (SYS_GET_CMDLINE) and the status out: SYS_EXIT_EXTENDED
# with ADP_Stopped_ApplicationExit makes QEMU exit with the status itself.
qemu := qemu-system-aarch64
qemu-machine := virt,gic-version=2
qemu-cpu := max
qemu-args := -m 128M -semihosting
qemu-exit := s

# Ways to boot it (boot.sh options): the first is the default, `make
# matrix` boots every image every way.  cortex-a57 has no FEAT_PAuth (the
# pac-ret instructions are NOPs); el2 enters at EL2 and head.S drops to EL1.
boots := max cortex-a57 el2
boot.max :=
boot.cortex-a57 := -c cortex-a57
boot.el2 := -M virt,gic-version=2,virtualization=on

# The C trap handler and the vector code that calls it, as the traces name
# them (test/firmware/expected.txt's @trap and @stub).
trap := a64_trap
stub := trap_common

variants := pac lld
pac.flags := -mbranch-protection=pac-ret
pac.title := pac-ret build
lld.link := lld
lld.title := linked by lld
