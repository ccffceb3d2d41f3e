/* SPDX-License-Identifier: MIT */
/*
 * board.c -- QEMU `-M pc` / `-M q35` (x86_64): 16550 UART on COM1, IDT and
 * TSS, 8259 PIC + 8254 PIT timer, isa-debug-exit, multiboot command line,
 * and the C side of the IDT stubs.
 */
#include "ex.h"
#include "board.h"

#define COM1 0x3f8u
#define DEBUG_EXIT_PORT 0xf4u

/* 8259A PIC ports and the vectors the IRQs are moved to (the BIOS leaves
 * them on 8-15, on top of CPU exceptions). */
#define PIC1_CMD 0x20u
#define PIC1_DATA 0x21u
#define PIC2_CMD 0xa0u
#define PIC2_DATA 0xa1u
#define PIC_EOI 0x20u
#define IRQ_BASE X86_IRQ_BASE
#define NVECTORS X86_NVECTORS

/* 8254 PIT: channel 0 drives IRQ 0 (edge, when OUT rises at terminal
 * count); input clock 1.193182 MHz. */
#define PIT_CH0 0x40u
#define PIT_CMD 0x43u
#define PIT_HZ 1193182u

/* Segment selectors from head.S's GDT. */
#define SEL_CODE 0x08u
#define SEL_TSS 0x18u

/* Set by head.S from EAX/EBX at entry. */
extern uint32_t x86_mb_magic, x86_mb_info;
extern uint64_t x86_gdt[];
extern const uint64_t x86_isr_table[NVECTORS];
/* IST stacks, from link.ld. */
extern char __ist1_end[], __ist2_end[];

static uint32_t unexpected_irqs;

static inline void outb(uint16_t port, uint8_t v)
{
    __asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t v)
{
    __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
    uint8_t v;

    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

/* -------------------------------------------------------------------------
 * 16550 UART.
 */
static void uart_init(void)
{
    outb(COM1 + 1, 0x00); /* IER: no UART interrupts, the port is polled */
    outb(COM1 + 3, 0x80); /* LCR.DLAB: divisor latch */
    outb(COM1 + 0, 0x01); /* 115200 baud */
    outb(COM1 + 1, 0x00);
    outb(COM1 + 3, 0x03); /* 8N1 */
    outb(COM1 + 2, 0xc7); /* FIFO on, cleared */
    outb(COM1 + 4, 0x03); /* DTR, RTS; OUT2 off keeps IRQ 4 quiet */
}

void board_putc(char c)
{
    while ((inb(COM1 + 5) & 0x20) == 0) /* LSR.THRE */
        ;
    outb(COM1, (uint8_t)c);
}

/* -------------------------------------------------------------------------
 * Exit, reset and command line.
 */

/* The last resort: an empty IDT, then an exception; the CPU shuts down
 * (QEMU resets, or exits 0 with -no-reboot). */
static EX_NORETURN void triple_fault(void)
{
    static const struct {
        uint16_t limit;
        uint64_t base;
    } __attribute__((packed)) empty = { 0, 0 };

    __asm__ volatile("lidt %0\n\tint3" : : "m"(empty));
    for (;;)
        __asm__ volatile("cli; hlt");
}
EX_NORETURN void board_exit(int status)
{
    /* isa-debug-exit: QEMU exits with (value << 1) | 1. */
    outl(DEBUG_EXIT_PORT, (uint32_t)status);
    /* Without the device the write is ignored: triple-fault instead (an
     * empty IDT, then an exception); with -no-reboot QEMU exits 0. */
    ex_printf("exit %d: no isa-debug-exit device, triple-faulting (QEMU exits 0)\n", status);
    triple_fault();
}

/* Warm reset: the reset control register at 0xCF9 (PIIX3 and ICH9 both
 * have it: 0x02 then 0x06, a hard reset), else the 8042 keyboard
 * controller's reset line (command 0xFE), else a triple fault.  RAM keeps
 * its contents; SeaBIOS and the multiboot loader run again. */
EX_NORETURN void board_reset(void)
{
    unsigned i;

    outb(0xcf9, 0x02);
    outb(0xcf9, 0x06);
    for (i = 0; i < 100000 && (inb(0x64) & 0x02); i++)
        ;
    outb(0x64, 0xfe);
    ex_printf("board_reset: no reset; triple-faulting\n");
    triple_fault();
}

/* Stack guards: head.S maps the first 2 MiB in 4 KiB pages (x86_pt);
 * clearing a page's entry makes any access to it a #PF. */
extern uint64_t x86_pt[512];

const char *board_guard(uint64_t addr)
{
    if ((addr & 0xfffu) != 0 || addr == 0 || addr >= 512u * 4096u)
        return NULL;
    x86_pt[addr >> 12] = 0;
    __asm__ volatile("invlpg (%0)" : : "r"((uintptr_t)addr) : "memory");
    return "unmapped page";
}

const char *board_cmdline(void)
{
    static char buf[256];
    size_t i = 0;

    /* Multiboot info (Multiboot Specification 0.6.96, "Boot information
     * format"): flags at +0, bit 2 = cmdline valid, cmdline address at
     * +16.  QEMU passes "<kernel path> <-append text>". */
    if (x86_mb_magic == 0x2badb002u && x86_mb_info != 0) {
        const volatile uint32_t *mbi = (const volatile uint32_t *)(uintptr_t)x86_mb_info;

        if (mbi[0] & 4u) {
            const volatile char *s = (const volatile char *)(uintptr_t)mbi[4];

            while (s[i] && i + 1 < sizeof buf) {
                buf[i] = s[i];
                i++;
            }
        }
    }
    buf[i] = '\0';
    return buf;
}

/* -------------------------------------------------------------------------
 * IDT and TSS (SDM Vol. 3A, "Interrupt Descriptor Table (IDT)" and "Task
 * Management in 64-bit Mode").
 */
struct idt_entry {
    uint16_t offset_lo;
    uint16_t selector;
    uint8_t ist;
    uint8_t type_attr; /* 0x8e: present, DPL 0, 64-bit interrupt gate */
    uint16_t offset_mid;
    uint32_t offset_hi;
    uint32_t reserved;
};

static struct idt_entry idt[256];

/* The 64-bit TSS as 32-bit words, to avoid a packed struct: RSP0-2 at
 * offset 4, IST1-7 at offset 0x24, I/O map base at 0x66. */
static uint32_t tss[26] __attribute__((aligned(16)));

static void tss_set64(unsigned byte_off, uint64_t v)
{
    tss[byte_off / 4] = (uint32_t)v;
    tss[byte_off / 4 + 1] = (uint32_t)(v >> 32);
}

/* Exceptions run on IST1, a stack of their own, so a fault on a corrupt
 * stack is still reported; #DF, NMI and #MC on IST2 so they survive a
 * fault on IST1.  A walk crosses from the IST stack to the interrupted one
 * at the trap frame; IRQs stay on the interrupted stack. */
static unsigned ist_for(unsigned vec)
{
    if (vec == 2 || vec == 8 || vec == 18)
        return 2;
    return vec < IRQ_BASE ? 1 : 0;
}

static void idt_init(void)
{
    struct {
        uint16_t limit;
        uint64_t base;
    } __attribute__((packed)) idtr;
    uint64_t base = (uint64_t)(uintptr_t)tss;
    unsigned v;

    tss_set64(0x24, (uint64_t)(uintptr_t)__ist1_end);
    tss_set64(0x2c, (uint64_t)(uintptr_t)__ist2_end);
    tss[0x64 / 4] = (uint32_t)sizeof tss << 16; /* I/O map base: none */
    /* 16-byte TSS descriptor: limit, base 0-23, type 9 (available 64-bit
     * TSS) with P, base 24-31, then base 32-63. */
    x86_gdt[3] = (sizeof tss - 1) | ((base & 0xffffffu) << 16) | (0x89ull << 40) |
                 (((base >> 24) & 0xffu) << 56);
    x86_gdt[4] = base >> 32;
    __asm__ volatile("ltr %w0" : : "r"(SEL_TSS));

    for (v = 0; v < NVECTORS; v++) {
        uint64_t a = x86_isr_table[v];

        idt[v].offset_lo = (uint16_t)a;
        idt[v].selector = SEL_CODE;
        idt[v].ist = (uint8_t)ist_for(v);
        idt[v].type_attr = 0x8e;
        idt[v].offset_mid = (uint16_t)(a >> 16);
        idt[v].offset_hi = (uint32_t)(a >> 32);
        idt[v].reserved = 0;
    }
    idtr.limit = sizeof idt - 1;
    idtr.base = (uint64_t)(uintptr_t)idt;
    __asm__ volatile("lidt %0" : : "m"(idtr));
}

/* -------------------------------------------------------------------------
 * PIC and PIT.
 */
static void pic_init(void)
{
    /* ICW1-4 (8259A data sheet): edge triggered, cascade, 8086 mode;
     * master on vectors 32-39, slave on 40-47, slave on master IRQ 2. */
    outb(PIC1_CMD, 0x11);
    outb(PIC2_CMD, 0x11);
    outb(PIC1_DATA, IRQ_BASE);
    outb(PIC2_DATA, IRQ_BASE + 8);
    outb(PIC1_DATA, 0x04);
    outb(PIC2_DATA, 0x02);
    outb(PIC1_DATA, 0x01);
    outb(PIC2_DATA, 0x01);
    outb(PIC1_DATA, 0xff); /* everything masked until the timer starts */
    outb(PIC2_DATA, 0xff);
}

static uint16_t pit_count;

/* Mode 0 (interrupt on terminal count) is one-shot: writing the count
 * starts it.  The tick handler re-arms it after ex_tick, so the interrupted
 * code always gets a full interval however long the tick takes (periodic
 * mode 2 would starve it once ticks are slower than the period). */
static void pit_arm(void)
{
    outb(PIT_CH0, (uint8_t)pit_count);
    outb(PIT_CH0, (uint8_t)(pit_count >> 8));
}

void board_timer_start(uint32_t hz)
{
    uint32_t div = PIT_HZ / hz;

    pit_count = (uint16_t)(div == 0 || div > 0xffff ? 0xffff : div);
    outb(PIT_CMD, 0x30); /* channel 0, lo/hi byte, mode 0, binary */
    pit_arm();
    outb(PIC1_DATA, 0xfe); /* unmask IRQ 0 only */
    __asm__ volatile("sti" : : : "memory");
}

void board_timer_stop(void)
{
    __asm__ volatile("cli" : : : "memory");
    outb(PIC1_DATA, 0xff);
}

/* irqnest: this board's only interrupt controller is the 8259 PIC, whose
 * IRQ 0 (the timer) is its highest priority (fully nested mode), so no
 * interrupt can preempt the timer's handler; the local APIC, which could
 * send one to itself at a higher vector, is not set up (test/firmware/
 * expected.txt: irqnest does not apply to x86_64). */
const char *board_nested_irq(void)
{
    return "the 8259 PIC's IRQ 0 (the timer) is its highest priority: nothing preempts its handler";
}

/* A spurious IRQ 7 / 15 has its in-service bit clear (OCW3 read ISR). */
static bool pic_spurious(unsigned irq)
{
    uint16_t cmd = irq < 8 ? PIC1_CMD : PIC2_CMD;

    outb(cmd, 0x0b);
    return (inb(cmd) & (1u << (irq & 7))) == 0;
}

/* Not static and never inlined: it is a frame of every tick's trace. */
EX_NOINLINE void handle_irq(unsigned irq, const sfu_regs *interrupted)
{
    if ((irq == 7 || irq == 15) && pic_spurious(irq)) {
        if (irq == 15)
            outb(PIC1_CMD, PIC_EOI); /* the master did see the cascade */
        return;
    }
    if (irq == 0) {
        ex_tick(interrupted);
        pit_arm();
    } else
        unexpected_irqs++;
    if (irq >= 8)
        outb(PIC2_CMD, PIC_EOI);
    outb(PIC1_CMD, PIC_EOI);
    /* Acknowledged: the scheduler may switch threads now (sched.c). */
    ex_preempt();
}

/* -------------------------------------------------------------------------
 * Exceptions.
 */
void x86_describe(struct ex_fault *f, uint64_t vector, const struct sfu_trap_layout *layout, uint64_t frame)
{
    f->what = vector < 32 ? "exception" : "unknown vector";
    f->note = NULL;
    f->layout = layout;
    f->frame = frame;
}

/* -------------------------------------------------------------------------
 * Banner and entry.
 */
void board_banner(void)
{
    uint32_t r[4], vendor[4];

    __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(0), "c"(0));
    vendor[0] = r[1];
    vendor[1] = r[3];
    vendor[2] = r[2];
    vendor[3] = 0;
    ex_printf("  cpu       %s, long mode, ring 0, page 0 unmapped\n", (const char *)vendor);
    ex_printf("  traps     IDT vectors 0-47, exceptions on IST1 (#DF/NMI/#MC on IST2)\n");
    ex_printf("  timer     8254 PIT channel 0 via 8259 PIC, IRQ 0 -> vector %u\n", IRQ_BASE);
    ex_printf("  boot      multiboot magic 0x%x, info at 0x%x\n", x86_mb_magic, x86_mb_info);
}

EX_NORETURN void board_main(void)
{
    EX_OUTERMOST();
    uart_init();
    idt_init();
    pic_init();
    ex_main();
}
