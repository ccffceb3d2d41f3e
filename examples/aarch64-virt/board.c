/* SPDX-License-Identifier: MIT */
/*
 * board.c -- QEMU `-M virt` (aarch64): PL011 UART, GICv2, generic timer,
 * semihosting exit and command line, and the C side of the vectors.
 *
 * Addresses are those of QEMU's virt board (hw/arm/virt.c memory map):
 * flash at 0, GIC distributor 0x08000000, GIC CPU interface 0x08010000,
 * PL011 0x09000000, RAM from 0x40000000.
 */
#include "ex.h"
#include "board.h"

#define UART_BASE 0x09000000u
#define GICD_BASE 0x08000000u
#define GICC_BASE 0x08010000u

/* PL011 (PrimeCell UART TRM): data register, flag register (TXFF = transmit
 * FIFO full), control register. */
#define UART_DR 0x000
#define UART_FR 0x018
#define UART_CR 0x030
#define UART_FR_TXFF (1u << 5)

/* GICv2 (IHI 0048B): distributor and CPU interface registers used. */
#define GICD_CTLR 0x000
#define GICD_ISENABLER 0x100
#define GICD_IPRIORITYR 0x400
#define GICD_SGIR 0xf00
#define GICC_CTLR 0x000
#define GICC_PMR 0x004
#define GICC_BPR 0x008
#define GICC_IAR 0x00c
#define GICC_EOIR 0x010
#define GIC_SPURIOUS 1020u

/* EL1 virtual timer interrupt: PPI 11 = INTID 27 on virt (the DTB's
 * "arm,armv8-timer" node lists it). */
#define TIMER_INTID 27u
#define TIMER_PRIO 0x80u

/* The nested interrupt (irqnest): SGI 1, sent to this CPU only (GICD_SGIR
 * TargetListFilter 0b10), at a priority above the timer's.  With the
 * binary point at 3 the group priority is bits [7:4] (GICv2, "Priority
 * grouping"): 0x40 is group 4, the timer's 0x80 group 8, so the SGI
 * preempts the timer's handler once the handler unmasks IRQs; both are
 * above the mask (PMR 0xf0). */
#define NEST_SGI 1u
#define NEST_PRIO 0x40u
#define GIC_BPR 3u
#define SGIR_SELF (2u << 24)
/* How long board_nested_irq waits for the SGI: QEMU takes it a few
 * instructions after the write. */
#define NEST_WAIT 1000000u

/* Semihosting (Arm "Semihosting for AArch32 and AArch64"): HLT #0xF000,
 * operation in w0, parameter block address in x1. */
#define SYS_GET_CMDLINE 0x15u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define HLT_F000 0xd45e0000u

/* PSCI (DEN 0022): SYSTEM_OFF, the exit of last resort; SYSTEM_RESET, a
 * warm reset that keeps RAM (QEMU resets the machine, reloads the image's
 * segments and boots it again). */
#define PSCI_SYSTEM_OFF 0x84000008u
#define PSCI_SYSTEM_RESET 0x84000009u

/* Set by head.S. */
uint64_t board_boot_el;
uint64_t board_pac_enabled;

static bool semihosting_off;
static void psci(uint64_t fn);
static uint64_t timer_interval;
static uint32_t unexpected_irqs;
static volatile int nested_taken;

static inline void w32(uintptr_t addr, uint32_t v)
{
    *(volatile uint32_t *)addr = v;
}

static inline uint32_t r32(uintptr_t addr)
{
    return *(volatile uint32_t *)addr;
}

#define READ_SYSREG(name)                                                   \
    ({                                                                      \
        uint64_t v__;                                                       \
        __asm__ volatile("mrs %0, " #name : "=r"(v__));                     \
        v__;                                                                \
    })
#define WRITE_SYSREG(name, v) __asm__ volatile("msr " #name ", %0" : : "r"((uint64_t)(v)))

/* -------------------------------------------------------------------------
 * Semihosting.
 */
static uint64_t semihost(uint32_t op, void *block)
{
    register uint64_t x0 __asm__("x0") = op;
    register uint64_t x1 __asm__("x1") = (uint64_t)(uintptr_t)block;

    if (semihosting_off)
        return (uint64_t)-1;
    __asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
    return x0;
}

const char *board_cmdline(void)
{
    static char buf[256];
    uint64_t block[2] = { (uint64_t)(uintptr_t)buf, sizeof buf - 1 };

    /* QEMU answers with "<kernel path> <-append text>" when no
     * -semihosting-config arg= is given. */
    if (semihost(SYS_GET_CMDLINE, block) != 0)
        buf[0] = '\0';
    buf[sizeof buf - 1] = '\0';
    return buf;
}

EX_NORETURN void board_exit(int status)
{
    uint64_t block[2] = { ADP_STOPPED_APPLICATION_EXIT, (uint64_t)status };

    semihost(SYS_EXIT_EXTENDED, block);
    /* Only reached without -semihosting: power off, losing the status.
     * QEMU's PSCI conduit is HVC, or SMC when EL2 exists. */
    ex_printf("exit %d: semihosting is off, PSCI SYSTEM_OFF (QEMU exits 0)\n", status);
    psci(PSCI_SYSTEM_OFF);
    for (;;)
        __asm__ volatile("wfi");
}

/* PSCI call: QEMU's conduit is HVC, or SMC when the machine has EL2 (we
 * were started there). */
static void psci(uint64_t fn)
{
    register uint64_t x0 __asm__("x0") = fn;

    if (board_boot_el == 2)
        __asm__ volatile("smc #0" : "+r"(x0) : : "memory");
    else
        __asm__ volatile("hvc #0" : "+r"(x0) : : "memory");
}

EX_NORETURN void board_reset(void)
{
    psci(PSCI_SYSTEM_RESET);
    ex_printf("board_reset: PSCI SYSTEM_RESET returned\n");
    board_exit(EX_BUG);
}

/* -------------------------------------------------------------------------
 * Stack guards.  With the MMU on, the guard page's level-3 entry (head.S
 * maps the image's 2 MiB in 4 KiB pages) is made invalid: any access
 * takes a translation fault.  With the MMU off there are no pages, so a
 * hardware watchpoint (ARM ARM D2, "Watchpoint exceptions") covers the
 * guard page instead, as ESP-IDF guards stack ends: a store there takes a
 * watchpoint exception (EC 0x35) before it happens.  Debug exceptions from
 * EL1 need the OS lock clear, MDSCR_EL1.KDE and MDE, and PSTATE.D clear,
 * which new threads do (switch.S).
 */
#if EX_MMU_OFF
/* DBGWCR<n>_EL1: E, PAC = 0b01 (EL1), LSC = 0b10 (stores), BAS = 0xff,
 * MASK = 12 (a 4 KiB region, aligned). */
#define WCR_GUARD (1u | (1u << 1) | (2u << 3) | (0xffu << 5) | (12u << 24))
static unsigned watchpoints_used;

static bool set_watchpoint(unsigned n, uint64_t addr)
{
    switch (n) {
    case 0: WRITE_SYSREG(dbgwvr0_el1, addr); WRITE_SYSREG(dbgwcr0_el1, WCR_GUARD); break;
    case 1: WRITE_SYSREG(dbgwvr1_el1, addr); WRITE_SYSREG(dbgwcr1_el1, WCR_GUARD); break;
    case 2: WRITE_SYSREG(dbgwvr2_el1, addr); WRITE_SYSREG(dbgwcr2_el1, WCR_GUARD); break;
    case 3: WRITE_SYSREG(dbgwvr3_el1, addr); WRITE_SYSREG(dbgwcr3_el1, WCR_GUARD); break;
    default: return false;
    }
    return true;
}

const char *board_guard(uint64_t addr)
{
    /* ID_AA64DFR0_EL1.WRPs: watchpoints - 1. */
    unsigned wrps = (unsigned)((READ_SYSREG(id_aa64dfr0_el1) >> 20) & 0xfu) + 1u;

    if ((addr & 0xfffu) != 0 || watchpoints_used >= wrps || !set_watchpoint(watchpoints_used, addr))
        return NULL;
    watchpoints_used++;
    WRITE_SYSREG(oslar_el1, 0); /* OS lock off (set at reset) */
    WRITE_SYSREG(mdscr_el1, READ_SYSREG(mdscr_el1) | (1u << 15) | (1u << 13)); /* MDE, KDE */
    __asm__ volatile("isb" : : : "memory");
    return "watchpoint";
}
#else
extern uint64_t a64_pt_l3[512];
#define L3_BASE 0x40200000u

const char *board_guard(uint64_t addr)
{
    if ((addr & 0xfffu) != 0 || addr < L3_BASE || addr - L3_BASE >= 512u * 4096u)
        return NULL;
    /* Valid to invalid needs no break-before-make; the TLB must forget
     * the old entry. */
    a64_pt_l3[(addr - L3_BASE) >> 12] = 0;
    __asm__ volatile("dsb ishst\n\ttlbi vaae1is, %0\n\tdsb ish\n\tisb" : : "r"(addr >> 12) : "memory");
    return "unmapped page";
}
#endif

/* -------------------------------------------------------------------------
 * UART.
 */
void board_putc(char c)
{
    while (r32(UART_BASE + UART_FR) & UART_FR_TXFF)
        ;
    w32(UART_BASE + UART_DR, (uint8_t)c);
}

static void uart_init(void)
{
    /* QEMU's PL011 transmits without setup; enable UART and TX anyway so
     * the code is right on a board where the firmware left it off. */
    w32(UART_BASE + UART_CR, (1u << 0) | (1u << 8) | (1u << 9));
}

/* -------------------------------------------------------------------------
 * GIC and timer.
 */
static void gic_init(void)
{
    w32(GICD_BASE + GICD_CTLR, 0);
    /* Priorities (a byte-addressed array): the timer PPI's, and the
     * nested-interrupt SGI's above it.  Whether SGIs can be disabled is
     * IMPLEMENTATION DEFINED (GICv2, GICD_ISENABLERn): enable it anyway.
     * Only irqnest ever sends the SGI. */
    *(volatile uint8_t *)(uintptr_t)(GICD_BASE + GICD_IPRIORITYR + TIMER_INTID) = TIMER_PRIO;
    *(volatile uint8_t *)(uintptr_t)(GICD_BASE + GICD_IPRIORITYR + NEST_SGI) = NEST_PRIO;
    w32(GICD_BASE + GICD_ISENABLER, (1u << TIMER_INTID) | (1u << NEST_SGI));
    w32(GICD_BASE + GICD_CTLR, 1);
    w32(GICC_BASE + GICC_PMR, 0xf0);
    /* Its reset value is IMPLEMENTATION DEFINED, and preemption needs the
     * timer and the SGI in different groups: 3 makes bits [7:4] the group
     * priority, bits every GICv2 implements (16 levels at least). */
    w32(GICC_BASE + GICC_BPR, GIC_BPR);
    w32(GICC_BASE + GICC_CTLR, 1);
}

void board_timer_start(uint32_t hz)
{
    uint64_t freq = READ_SYSREG(cntfrq_el0);

    timer_interval = freq / hz ? freq / hz : 1;
    WRITE_SYSREG(cntv_tval_el0, timer_interval);
    WRITE_SYSREG(cntv_ctl_el0, 1); /* ENABLE, IMASK clear */
    __asm__ volatile("isb\n\tmsr daifclr, #2" : : : "memory");
}

void board_timer_stop(void)
{
    __asm__ volatile("msr daifset, #2" : : : "memory");
    WRITE_SYSREG(cntv_ctl_el0, 0);
    __asm__ volatile("isb" : : : "memory");
}

/* Called in the timer's handler: the one place an interrupt handler here
 * runs with IRQs unmasked, and they are masked again before the timer's
 * EOI (handle_irq).  Not static and never inlined: the nested
 * interrupt's trace shows it as the interrupted frame. */
EX_NOINLINE const char *board_nested_irq(void)
{
    uint32_t n;

    nested_taken = 0;
    __asm__ volatile("msr daifclr, #2\n\tisb" : : : "memory");
    /* Not through w32: QEMU 10 and later take the SGI right after the
     * store, and a PC in an inlined helper is a frame of its own to a
     * debugger (the crash record's core), not to sfu. */
    *(volatile uint32_t *)(uintptr_t)(GICD_BASE + GICD_SGIR) = SGIR_SELF | NEST_SGI;
    for (n = 0; n < NEST_WAIT && !nested_taken; n++)
        __asm__ volatile("" : : : "memory");
    __asm__ volatile("msr daifset, #2" : : : "memory");
    return nested_taken ? "the nested interrupt's handler returned"
                        : "SGI 1 was not taken while the timer's handler ran";
}

/* Not static and never inlined: it is a frame of every tick's trace. */
EX_NOINLINE void handle_irq(const sfu_regs *interrupted)
{
    uint32_t iar = r32(GICC_BASE + GICC_IAR);
    uint32_t id = iar & 0x3ffu;

    if (id >= GIC_SPURIOUS)
        return; /* spurious: no EOI (GICv2 spec, "Spurious interrupts") */
    if (id == NEST_SGI) {
        nested_taken = 1;
        ex_nested_irq(interrupted);
    } else if (id == TIMER_INTID) {
        ex_tick(interrupted);
        /* Re-arm after the tick: TVAL counts from now, so the interrupted
         * code always gets a full interval, however long ex_tick takes
         * (a backtrace per tick under -singlestep takes longer than
         * 100 us, and re-arming first would starve the workload). */
        WRITE_SYSREG(cntv_tval_el0, timer_interval);
    } else {
        unexpected_irqs++;
    }
    w32(GICC_BASE + GICC_EOIR, iar);
    /* Acknowledged: the scheduler may switch threads now (sched.c). */
    ex_preempt();
}

/* -------------------------------------------------------------------------
 * Synchronous exceptions and the rest.
 */

/* HLT #0xF000 without -semihosting is undefined: remember that, so the
 * caller skips it and board_exit falls back to PSCI. */
bool a64_semihosting_trap(uint64_t esr, uint64_t elr)
{
    if (((esr >> 26) & 0x3fu) != 0x00 || *(const volatile uint32_t *)(uintptr_t)elr != HLT_F000)
        return false;
    semihosting_off = true;
    return true;
}

void a64_describe(struct ex_fault *f, unsigned kind, const struct sfu_trap_layout *layout, uint64_t frame)
{
    unsigned group = kind >> 2, type = kind & 3u;

    f->what = group >= 2   ? "exception from a lower EL (no EL0 code exists)"
            : type == 0    ? "synchronous exception"
            : type == 2    ? "FIQ (unexpected)"
            : type == 3    ? "SError"
                           : "IRQ";
    f->note = group == 1 ? "taken on SP_EL1: the fault is in boot code or in a handler" : NULL;
    f->layout = layout;
    f->frame = frame;
}

/* -------------------------------------------------------------------------
 * Banner and entry.
 */
void board_banner(void)
{
    uint64_t midr = READ_SYSREG(midr_el1);
    uint64_t el = (READ_SYSREG(CurrentEL) >> 2) & 3u;

    ex_printf("  cpu       MIDR 0x%llx, running at EL%llu (entered at EL%llu), SP_EL0 threads\n",
              (unsigned long long)midr, (unsigned long long)el,
              (unsigned long long)board_boot_el);
    ex_printf("  pac       %s\n",
              board_pac_enabled ? "SCTLR_EL1.EnIA set (CPU has FEAT_PAuth)" : "off (no FEAT_PAuth)");
    ex_printf("  timer     CNTFRQ %llu Hz, virtual timer INTID %u via GICv2\n",
              (unsigned long long)READ_SYSREG(cntfrq_el0), TIMER_INTID);
}

EX_NORETURN void board_main(void)
{
    EX_OUTERMOST();
    uart_init();
    gic_init();
    ex_main();
}
