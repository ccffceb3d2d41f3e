/* SPDX-License-Identifier: MIT */
/*
 * head.S -- aarch64-virt entry: EL2 -> EL1, stacks, BSS, MMU, PAC, C.
 *
 * QEMU loads the ELF and jumps to _start with the MMU off, all interrupts
 * masked, at the highest EL the machine has: EL1 for plain `-M virt`,
 * EL2 with `-M virt,virtualization=on`, EL3 with `secure=on` (not
 * supported here: without firmware the GIC and the timers would need
 * Secure-world setup).
 *
 * Stacks (see link.ld): the exception stack (SP_EL1) lies below the thread
 * stack (SP_EL0) in memory.  After boot everything runs in EL1t, on SP_EL0;
 * an exception switches to SP_EL1 (ARM ARM, "Exception entry": PSTATE.SP
 * is set to 1), so the handler still has a good stack when the thread
 * stack is corrupt; a walk crosses from one stack to the other at the
 * trap frame.
 */

/* Translation table descriptors (ARM ARM, "VMSAv8-64 translation table
 * format descriptors"), 4 KiB granule.  Lower attributes: AttrIndx[4:2],
 * SH[9:8], AF[10]; upper: PXN[53], UXN[54]. */
#define DESC_TABLE      0x3
#define DESC_BLOCK      0x1
#define ATTR_IDX_DEVICE (0 << 2)
#define ATTR_IDX_NORMAL (1 << 2)
#define SH_INNER        (3 << 8)
#define AF              (1 << 10)
#define PXN             (1 << 53)
#define UXN             (1 << 54)
#define DESC_PAGE       0x3
#define NORMAL_BLOCK    (DESC_BLOCK | ATTR_IDX_NORMAL | SH_INNER | AF | UXN)
#define NORMAL_PAGE     (DESC_PAGE | ATTR_IDX_NORMAL | SH_INNER | AF | UXN)
#define DEVICE_BLOCK    (DESC_BLOCK | ATTR_IDX_DEVICE | AF | PXN | UXN)

/* MAIR_EL1: Attr0 = Device-nGnRnE (0x00), Attr1 = Normal, inner/outer
 * write-back read/write-allocate (0xff). */
#define MAIR_VALUE      0xff00
/* TCR_EL1: T0SZ = 25 (39-bit VA, walks start at level 1), IRGN0/ORGN0 =
 * write-back (1), SH0 = inner shareable (3), TG0 = 4 KiB (0), EPD1 = 1 (no
 * TTBR1 walks), IPS = 40 bits (2).  TBI0 = 0: PAC bits reach bit 63. */
#define TCR_VALUE       (25 | (1 << 8) | (1 << 10) | (3 << 12) | (1 << 23) | (2 << 32))

/* SCTLR_EL1 bits (ARM ARM, SCTLR_EL1). */
#define SCTLR_M         (1 << 0)
#define SCTLR_C         (1 << 2)
#define SCTLR_SA        (1 << 3)
#define SCTLR_SA0       (1 << 4)
#define SCTLR_I         (1 << 12)
#define SCTLR_ENIA      (1 << 31)
/* RES1 bits of SCTLR_EL1 in ARMv8.0 (29, 28, 23, 22, 20, 11): a known
 * state with MMU and caches off. */
#define SCTLR_RESET     0x30d00800

/* HCR_EL2: RW (EL1 is AArch64), APK/API (do not trap PAC key and
 * instruction use by EL1 to EL2). */
#define HCR_VALUE       ((1 << 31) | (1 << 40) | (1 << 41))
/* SPSR for the ERET to EL1: D, A, I, F masked, M = EL1h. */
#define SPSR_EL1H_MASKED 0x3c5

/* Device region of the virt board mapped by the MMU: 2 MiB blocks 64..79
 * of the first GiB = 0x08000000 .. 0x09ffffff (GIC and PL011). */
#define DEV_FIRST_BLOCK 64
#define DEV_END_BLOCK   80

    .section .text.boot, "ax"
    .global _start
    .type _start, %function
_start:
    msr daifset, #0xf
    mrs x19, CurrentEL
    ubfx x19, x19, #2, #2           /* x19 = EL we were started at */
    cmp x19, #1
    b.eq at_el1
    cmp x19, #2
    b.eq from_el2
    /* EL3: report through semihosting (works at any EL) and stop. */
    b boot_unsupported_el

from_el2:
    ldr x0, =HCR_VALUE
    msr hcr_el2, x0
    /* EL1 may use the physical counter and timer (CNTHCTL_EL2.EL1PCTEN,
     * EL1PCEN); the virtual timer the board uses counts from 0. */
    mov x0, #3
    msr cnthctl_el2, x0
    msr cntvoff_el2, xzr
    /* No FP/SIMD or CP traps to EL2: CPTR_EL2 with only its RES1 bits
     * (13:12, 9:0 when HCR_EL2.E2H is 0). */
    mov x0, #0x33ff
    msr cptr_el2, x0
    msr hstr_el2, xzr
    ldr x0, =SCTLR_RESET
    msr sctlr_el1, x0
    mov x0, #SPSR_EL1H_MASKED
    msr spsr_el2, x0
    adr x0, at_el1
    msr elr_el2, x0
    eret

at_el1:
    /* EL1h: sp is SP_EL1, the exception stack. */
    ldr x0, =__exc_stack_end
    mov sp, x0
    ldr x0, =__stack_end
    msr sp_el0, x0
    ldr x0, =a64_vectors
    msr vbar_el1, x0
    isb

    /* BSS is 16-byte aligned at both ends (link.ld).  The MMU is off, so
     * these are Device accesses: aligned stores only. */
    ldr x0, =__bss_start
    ldr x1, =__bss_end
1:  cmp x0, x1
    b.hs 2f
    stp xzr, xzr, [x0], #16
    b 1b
2:
    ldr x0, =board_boot_el
    str x19, [x0]

    /* FP/SIMD stays off (CPACR_EL1.FPEN = 0: any FP or SIMD instruction
     * traps), as in a kernel that has not enabled it yet: the vector code
     * saves no FP registers, and the crash path must not need them. */
    msr cpacr_el1, xzr
#if EX_MMU_OFF
    /* The MMU stays off: every data access is Device-nGnRnE, where an
     * unaligned access faults (ARM ARM, "Alignment of data accesses"),
     * and address 0 is flash.  Only the SP alignment check is turned on. */
    mrs x0, sctlr_el1
    orr x0, x0, #(SCTLR_SA | SCTLR_SA0)
    msr sctlr_el1, x0
    isb
#else
    bl mmu_on
#endif
    bl pac_on

    /* From here on: EL1t, SP_EL0.  x29 = x30 = 0 marks the outermost
     * frame: board_main's saved frame record is {0, 0}, where both a
     * frame-pointer walk and the SFrame walk (RA == 0) stop. */
    msr spsel, #0
    mov x29, xzr
    mov x30, xzr
    b board_main
    .size _start, . - _start

/* Identity map: the first GiB through a level-2 table with only the
 * device blocks valid (so address 0, the flash, is unmapped and a null
 * pointer faults); the second GiB (RAM) through a level-2 table of 2 MiB
 * normal-memory blocks, except the image's block (0x40200000, 2 MiB),
 * which a level-3 table maps in 4 KiB pages, so board_guard can unmap the
 * guard page below a thread's stack (link.ld keeps the image inside it). */
/* Fill the 512 entries of the table at \table with \first + (i << \shift)
 * (x3, x5 scratch). */
.macro fill_table table, first, shift
    mov x3, #0
1:  lsl x5, x3, #\shift
    add x5, x5, \first
    str x5, [\table, x3, lsl #3]
    add x3, x3, #1
    cmp x3, #512
    b.lo 1b
.endm

    .type mmu_on, %function
mmu_on:
    ldr x0, =a64_pt_l1
    ldr x1, =a64_pt_l2
    orr x2, x1, #DESC_TABLE
    str x2, [x0, #0]
    ldr x6, =a64_pt_l2_ram
    orr x2, x6, #DESC_TABLE
    str x2, [x0, #8]
    ldr x4, =DEVICE_BLOCK
    mov x3, #DEV_FIRST_BLOCK
3:  lsl x5, x3, #21
    orr x5, x5, x4
    str x5, [x1, x3, lsl #3]
    add x3, x3, #1
    cmp x3, #DEV_END_BLOCK
    b.lo 3b

    /* RAM: 512 blocks of 2 MiB from 0x40000000; block 1 (0x40200000):
     * 512 pages of 4 KiB. */
    ldr x4, =(0x40000000 | NORMAL_BLOCK)
    fill_table x6, x4, 21
    ldr x7, =a64_pt_l3
    ldr x4, =(0x40200000 | NORMAL_PAGE)
    fill_table x7, x4, 12
    orr x2, x7, #DESC_TABLE
    str x2, [x6, #8]

    ldr x0, =MAIR_VALUE
    msr mair_el1, x0
    ldr x0, =TCR_VALUE
    msr tcr_el1, x0
    ldr x0, =a64_pt_l1
    msr ttbr0_el1, x0
    dsb ish
    tlbi vmalle1
    dsb ish
    isb
    mrs x0, sctlr_el1
    ldr x1, =(SCTLR_M | SCTLR_C | SCTLR_I | SCTLR_SA | SCTLR_SA0)
    orr x0, x0, x1
    msr sctlr_el1, x0
    isb
    ret
    .size mmu_on, . - mmu_on

/* Pointer authentication, if the CPU has it (ID_AA64ISAR1_EL1.APA/API,
 * ID_AA64ISAR2_EL1.APA3; ARM ARM, "Pointer authentication").  Done here,
 * before any C runs: a function built with pac-ret that signs its LR
 * before EnIA is set and authenticates after would fail.  The key is a
 * fixed value so runs are reproducible; a real product seeds it. */
    .type pac_on, %function
pac_on:
    mrs x0, id_aa64isar1_el1
    ubfx x1, x0, #4, #4
    ubfx x2, x0, #8, #4
    orr x1, x1, x2
    mrs x0, S3_0_C0_C6_2            /* ID_AA64ISAR2_EL1, RAZ before v8.7 */
    ubfx x2, x0, #12, #4
    orr x1, x1, x2
    cbz x1, 4f
    ldr x0, =0x5346555f50414331     /* APIAKeyLo_EL1 */
    msr S3_0_C2_C1_0, x0
    ldr x0, =0x5f6b65795f617069     /* APIAKeyHi_EL1 */
    msr S3_0_C2_C1_1, x0
    mrs x0, sctlr_el1
    orr x0, x0, #SCTLR_ENIA
    msr sctlr_el1, x0
    isb
    ldr x0, =board_pac_enabled
    mov x1, #1
    str x1, [x0]
4:  ret
    .size pac_on, . - pac_on

/* Semihosting SYS_EXIT_EXTENDED with status EX_BUG (5): no UART output
 * is attempted at an unexpected EL. */
boot_unsupported_el:
    adr x1, exit_block
    mov x0, #0x20
    hlt #0xf000
5:  wfi
    b 5b
    .balign 8
exit_block:
    .quad 0x20026                   /* ADP_Stopped_ApplicationExit */
    .quad 5

    .section .bss.pagetables, "aw", %nobits
    .balign 4096
    .global a64_pt_l1, a64_pt_l2, a64_pt_l2_ram, a64_pt_l3
a64_pt_l1:
    .space 4096
a64_pt_l2:
    .space 4096
a64_pt_l2_ram:
    .space 4096
a64_pt_l3:
    .space 4096

    .section .note.GNU-stack, "", %progbits
