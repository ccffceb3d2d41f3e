/* SPDX-License-Identifier: MIT */
/*
 * ex.h -- what the two example boards share.
 *
 * The examples are split in two:
 *   examples/<board>/   boot code, vectors, UART, timer, exit  (board_*)
 *   examples/common/    output, scenarios, demo call chains, panic and
 *                       fault reports                           (ex_*)
 * A board calls ex_main() once it can print, take exceptions and exit;
 * everything after that is common.
 *
 * Freestanding: no C library.  <stdarg.h> is a compiler header and is
 * available under -ffreestanding; the ports themselves do not use it.
 */
#ifndef EX_H
#define EX_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ex_port.h"
#include "sfu_crash.h"

#define EX_NORETURN __attribute__((noreturn))
#define EX_NOINLINE __attribute__((noinline))

/* -------------------------------------------------------------------------
 * Exit status of an image: what happened, the same numbers on both boards.
 * The status QEMU returns differs per board (qemu-exit in each board's
 * board.mk, which examples/boot.sh applies):
 *
 *   status        aarch64-virt (semihosting)   x86_64-pc (isa-debug-exit)
 *   EX_PASS  0    0                            1
 *   EX_FAIL  1    1                            3
 *   EX_PANIC 2    2                            5
 *   EX_FAULT 3    3                            7
 *   EX_USAGE 4    4                            9
 *   EX_BUG   5    5                            11
 *   EX_NESTED 6   6                            13
 *
 * x86_64: QEMU's isa-debug-exit exits with (value << 1) | 1, so it can
 * never produce 0; 0 from qemu-system-x86_64 means the guest reset or
 * triple-faulted (with -no-reboot) or shut down some other way.
 * aarch64: if semihosting is off, the board falls back to PSCI SYSTEM_OFF
 * and QEMU exits 0 whatever the status was.
 * Both: 124 is `timeout` killing a hung QEMU.
 */
enum ex_status {
    EX_PASS = 0,  /* the scenario ran to its expected end */
    EX_FAIL = 1,  /* a self-check failed (too few ticks, bad checksum) */
    EX_PANIC = 2, /* panic() was called */
    EX_FAULT = 3, /* a CPU exception reached the fault handler */
    EX_USAGE = 4, /* unknown scenario name */
    EX_BUG = 5,   /* board trouble: unexpected vector, lower EL... */
    EX_NESTED = 6 /* a fault (or panic) while a panic or fault was being
                   * reported: one line, then halt */
};

/* -------------------------------------------------------------------------
 * Board hooks: each examples/<board>/board.c defines these.
 */
void board_putc(char c);
EX_NORETURN void board_exit(int status);
/* The boot command line ("" if none): x86 multiboot cmdline, aarch64
 * semihosting SYS_GET_CMDLINE.  Either way QEMU's -append ends up in it. */
const char *board_cmdline(void);
/* Print board-specific lines of the boot banner (CPU mode, EL, ...). */
void board_banner(void);
/* Periodic timer interrupt at about `hz` per second; each tick calls
 * ex_tick() with the interrupted registers.  stop masks it again. */
void board_timer_start(uint32_t hz);
void board_timer_stop(void);
/* From the timer's handler (the irqnest scenario): unmask interrupts,
 * raise one of higher priority than the timer's, whose handler calls
 * ex_nested_irq() with the interrupted registers, and wait for it; mask
 * again before returning.  Returns why no nested interrupt came (the
 * board has none above the timer's, or it was not taken in time). */
const char *board_nested_irq(void);
/* Warm reset (aarch64 PSCI SYSTEM_RESET, x86 port 0xCF9 then the 8042):
 * RAM keeps its contents, the image boots again. */
EX_NORETURN void board_reset(void);
/* Make the page at addr (4 KiB, aligned) a stack guard: an access faults.
 * Returns how ("unmapped page", "watchpoint") or NULL if it cannot. */
const char *board_guard(uint64_t addr);
/* The board's context switch (switch.S): push the callee-saved registers
 * and the resume PC on the current stack, store that context's address in
 * *save, and resume the context at next; returns when something switches
 * back to *save.  Interrupts must be masked.  ex_switch_layout describes
 * the context to sfu (thread.c); board_thread_context builds a new
 * thread's first one at the top of its stack (exc_hi: the top of its own
 * exception stack, where the board has one) and returns its address: the
 * switch then enters entry(arg) with a zero return address (outermost). */
void ex_switch(uint64_t *save, uint64_t next);
int board_switch_begin(uint64_t *save, uint64_t next, uint64_t *next_slot);
extern const struct sfu_switch_layout ex_switch_layout;
uint64_t board_thread_context(uint64_t stack_hi, uint64_t exc_hi, void (*entry)(void *), void *arg);
/* Linker symbols of both boards: the whole stack area (exception stacks
 * below the thread stack), .text, the SFrame section (linker/sframe.ld)
 * and the RAM the port's checked read allows.  __exc_stacks_lo/hi: the
 * exception stacks threads share (x86_64 IST; empty on aarch64, where
 * each thread has its own).  __retained_start/end: RAM no loader and no
 * boot code writes, which keeps a crash record across a warm reset. */
extern char __stack_lo[], __stack_hi[];
extern char __exc_stacks_lo[], __exc_stacks_hi[];
extern char __retained_start[], __retained_end[];
extern char __text_start[], __text_end[];
extern char __sframe_start[], __sframe_end[];
extern char __ram_start[], __ram_end[];

/* -------------------------------------------------------------------------
 * Output (print.c): a small printf for the panic path.  Conversions: %s %c
 * %d %i %u %x %X %p %%, flags '0' and '-', a width, length l/ll/z.  %p
 * prints 0x and 16 hex digits.  No floating point.
 */
void ex_putc(char c);
void ex_puts(const char *s);
void ex_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ex_vprintf(const char *fmt, va_list ap);

/* String helpers for the command line (no libc). */
size_t ex_strlen(const char *s);
bool ex_streq(const char *a, const char *b);

/* -------------------------------------------------------------------------
 * Scenarios (scenario.c).  ex_main parses "scenario=NAME" from the command
 * line and runs it; every scenario ends in board_exit.
 */
EX_NORETURN void ex_main(void);

/* -------------------------------------------------------------------------
 * Panic and faults (panic.c, dump.c).
 */
EX_NORETURN void panic(const char *msg);

/* A CPU exception, as the board's trap code hands it over: its trap frame
 * and the layout that describes it (sfu decodes its cause from them:
 * sfu_dump_cause), the interrupted registers, and which vector it came
 * through. */
struct ex_fault {
    const char *what; /* the vector: "synchronous exception", "SError", ... */
    sfu_regs regs;    /* the interrupted context, from the trap frame */
    uint64_t frame;   /* the trap frame */
    const struct sfu_trap_layout *layout; /* its layout (with its fault words) */
    const char *note; /* a line more for the report, or NULL */
};
EX_NORETURN void ex_fault(const struct ex_fault *f);

/* Probes (the hello scenario): an instruction expected to fault.  While
 * ex_probe_resume is nonzero, the trap code does not report the next
 * synchronous exception: ex_probe_take records its syndrome (ESR_EL1, or
 * the x86 vector) in ex_probe_code, disarms, and resumes at the address
 * (ex_port.h's EX_PROBE_* arm it with the address after the instruction). */
extern volatile uint64_t ex_probe_resume, ex_probe_code;
static inline bool ex_probe_take(uint64_t code, uint64_t *pc)
{
    if (ex_probe_resume == 0)
        return false;
    ex_probe_code = code;
    *pc = ex_probe_resume;
    ex_probe_resume = 0;
    return true;
}

/* Timer tick from the board's IRQ handler, with the interrupted context. */
void ex_tick(const sfu_regs *interrupted);
/* The interrupt board_nested_irq raised, from the board's IRQ handler. */
void ex_nested_irq(const sfu_regs *interrupted);

/* The board's vector code, described for the trap callback (sfu_port_trap):
 * each vector layout's trap code (examples/<board>/) defines the layouts,
 * and with them the image's dump description, EX_DUMP below. */
extern const struct sfu_trap_layout ex_trap_layouts[];

/* The C entry point of both boards (head.S jumps to it with a zero return
 * address): the last frame of every complete trace of the boot stack,
 * named as an entry in the dump's description (EX_DUMP); a thread's
 * traces end at ex_thread_start (switch.S), which calls its entry. */
EX_NORETURN void board_main(void);
void ex_thread_start(void);

/* -------------------------------------------------------------------------
 * sfu (unwind.c, the sfu translation unit): the dump's description
 * (crash/sfu_dump.h) of this image, constant: output through ex_putc, the
 * RAM, the board's trap layouts, the boot stack's bounds, the functions
 * stacks start in (where a whole trace ends), the thread table
 * (sched-sfu.c), the embedded symbol table, the name and frame hooks
 * (dump.c).  The trap code defines it with its layouts and entries:
 * EX_DUMP(layouts, entries).  ex_unwind_setup checks it once
 * (sfu_dump_check: the sections split, every entry a function's start).
 */
extern const struct sfu_dump ex_dump;
extern struct sfu_dump_state ex_dump_state;
extern const struct sfu_port_range ex_ram[1];
extern const sfu_stack ex_boot_stack[1];
extern const struct sfu_dump_table ex_thread_table;
void ex_write(const char *s, size_t n);
const char *ex_name_hook(const struct sfu_dump *d, uint64_t addr, uint64_t *start, uint64_t *size);
void ex_frame_hook(const struct sfu_dump *d, unsigned n, const sfu_frame *f);
/* The crash record: the retained RAM, [__retained_start, +16 KiB) of both
 * boards' link.ld, which no loader and no boot code writes, so the record
 * every dump writes there is read back after a warm reset (retained.c). */
#define EX_RECORD_SIZE 16384u
#define EX_DUMP(layouts, entries)                                                                              \
    const struct sfu_dump ex_dump = { SFU_DUMP_INIT_FIELDS(&ex_dump_state, ex_write, ex_ram, 1, layouts,     \
                                                           sizeof(layouts) / sizeof((layouts)[0])),           \
                                      .stacks = ex_boot_stack, .nstacks = 1, .threads = &ex_thread_table,     \
                                      .name = ex_name_hook, .frame = ex_frame_hook, SFU_DUMP_ENTRIES(entries),   \
                                      SFU_DUMP_RECORD((uint8_t *)__retained_start, EX_RECORD_SIZE) }
/* The same fields but the layouts and the thread table, for an image
 * described by a ready-made rtos/ header, whose fields follow them
 * (SFU_FREERTOS_FIELDS): what a user's own description line gives there
 * (README step 1's, SFU_FREERTOS_DUMP), the examples' output, hooks and
 * record.  (sfu_dump.h's initializer parts without its SFU_DUMP_TRAPS,
 * which the header's fields set.)  EX_DUMP_RTOS_OWN_FIELDS: the same
 * without the entries, for a header whose traces end at an entry of its
 * own too (SFU_THREADX_FIELDS, then its entries). */
extern const uint64_t ex_boot_entries[1];
#define EX_DUMP_RTOS_OWN_FIELDS                                                                               \
    SFU__DUMP_SFRAME SFU__DUMP_TEXT SFU__DUMP_SYMTAB .state = &ex_dump_state, .write = ex_write, .ram = ex_ram, \
        .nram = 1, .stacks = ex_boot_stack, .nstacks = 1, .name = ex_name_hook, .frame = ex_frame_hook,         \
        SFU_DUMP_RECORD((uint8_t *)__retained_start, EX_RECORD_SIZE)
#define EX_DUMP_RTOS_FIELDS EX_DUMP_RTOS_OWN_FIELDS, SFU_DUMP_ENTRIES(ex_boot_entries)
void ex_unwind_setup(void);
/* Ports for the examples' own walks and reads (the crash record, the
 * reports): the image's RAM and trap layouts, bounded by the boot stack;
 * the same RAM as a port context. */
const sfu_port *ex_ram_port(void);
const struct sfu_port_ctx *ex_ram_ctx(void);

/* -------------------------------------------------------------------------
 * Threads (sched.c): a round-robin preemptive scheduler on the board's
 * timer.  Each thread has a guard page, its stack, and (aarch64) its own
 * exception stack, and an sfu port bounded by those stacks.
 */
#define EX_MAX_THREADS 8u
#define EX_GUARD_SIZE 4096u
#define EX_THREAD_STACK 16384u
/* BLOCKED: for good (nothing wakes it); SLEEPING: until a tick
 * (ex_thread_sleep); WAITING: on a semaphore, until a tick at most
 * (ex_sem_wait); EXITED: it ended itself (ex_thread_exit); KILLED: another
 * thread ended it (ex_thread_kill).  An exited or killed thread keeps its
 * stack and its last saved context (the pool is static); a kernel that
 * frees them says so in its own state (board_thread_state). */
enum ex_thread_state {
    EX_THREAD_FREE,
    EX_THREAD_READY,
    EX_THREAD_RUNNING,
    EX_THREAD_BLOCKED,
    EX_THREAD_PREEMPTED,
    EX_THREAD_SLEEPING,
    EX_THREAD_WAITING,
    EX_THREAD_EXITED,
    EX_THREAD_KILLED
};
#define EX_THREAD_NSTATES 9u
struct ex_thread {
    const char *name;
    unsigned id;               /* 1, 2, ... */
    volatile uint8_t state;    /* enum ex_thread_state (PREEMPTED: ready, last
                                * left from the timer interrupt) */
    uint64_t ctx;              /* its saved context (ex_switch); 0 while it runs */
    sfu_stack stack;           /* its own stack */
    sfu_stack exc;             /* the exception stack(s) it traps onto */
    uint64_t guard;            /* the guard page below the stack */
    const char *guarded;       /* board_guard's answer */
    uint64_t wake;             /* SLEEPING, WAITING: the tick it wakes at */
};
/* A counting semaphore (ex_sem_wait). */
struct ex_sem {
    volatile unsigned count;
};
/* The thread slots (a free one: EX_THREAD_FREE), the running thread (NULL
 * before ex_sched_start), and the states' names (sched-sfu.c). */
extern struct ex_thread ex_threads[EX_MAX_THREADS];
extern struct ex_thread *ex_current;
extern const char *const ex_state_names[EX_THREAD_NSTATES];
/* A new ready thread running entry(arg), which must never return (it
 * ends with ex_thread_exit; where board_entry_returns() says so, by
 * returning). */
struct ex_thread *ex_thread_create(const char *name, void (*entry)(void *), void *arg);
/* Leave the boot context for the first thread, for good. */
EX_NORETURN void ex_sched_start(void);
/* The running thread blocks (for good, here: nothing wakes it). */
void ex_thread_block(void);
/* The running thread sleeps for ticks timer ticks. */
void ex_thread_sleep(uint64_t ticks);
/* The running thread takes s, waiting at most ticks for it: 1 taken, 0
 * timed out. */
int ex_sem_wait(struct ex_sem *s, uint64_t ticks);
/* The running thread ends; another thread ends t (not the running one). */
EX_NORETURN void ex_thread_exit(void);
void ex_thread_kill(struct ex_thread *t);
/* Ticks of the timer since the scheduler started. */
extern volatile uint64_t ex_ticks;
/* The boards' hooks (weak defaults in sched.c): t's state changed to
 * BLOCKED, SLEEPING, WAITING, EXITED or KILLED (before the switch away from
 * it, if it is the running thread), or back to READY from SLEEPING or
 * WAITING (interrupts masked): a kernel-shaped board moves t where its
 * kernel keeps such a thread.  board_entry_returns: nonzero where a
 * thread's start takes its entry's return (ThreadX's shell entry). */
void board_thread_state(struct ex_thread *t);
int board_entry_returns(void);
/* From ex_tick: preempt at the end of this interrupt.  From the board's
 * IRQ handler, after the interrupt is acknowledged: switch if asked. */
void ex_sched_tick(void);
void ex_preempt(void);
/* The running thread, NULL before ex_sched_start. */
struct ex_thread *ex_thread_current(void);
/* A thread's port, bounded by its stacks (unwind.c; valid until the
 * next call), NULL if its stacks are empty. */
const sfu_port *ex_thread_port(const struct ex_thread *t);
/* The port a walk of the running context uses: its thread's, or ex_ram_port(). */
const sfu_port *ex_walk_port(void);
/* The thread whose guard page holds addr, or NULL. */
const struct ex_thread *ex_thread_guard_hit(uint64_t addr);
/* Print "thread N NAME: state, stack lo .. hi" for t. */
void ex_thread_header(const struct ex_thread *t);
/* Dump every thread but the running one, each from its saved context. */
void ex_dump_threads(void);

/* Scenario bodies (threads.c, retained.c, perturb.c); the perturb
 * scenario's walks from the timer interrupt (ex_tick calls it). */
EX_NORETURN void ex_threads_scenario(void);
EX_NORETURN void ex_perturb_scenario(void);
void ex_perturb_tick(void);
EX_NORETURN void ex_overflow_scenario(void);
EX_NORETURN void ex_retained_scenario(void);
/* The end of every crash report (retained.c): the crash record every dump
 * wrote, printed for tools/sfu-crash in its wire form; in the retained
 * scenario, the reset instead. */
void ex_crash_record_end(void);
/* The retained scenario's second boot: the dump's frame hook resets the
 * board at this frame (a power cut in the middle of the record's write);
 * 0: never. */
extern volatile unsigned ex_cut_at_frame;

/* -------------------------------------------------------------------------
 * The dump (dump.c), on crash/sfu_dump.h.
 */
/* pc sp fp (lr) of regs, and the word at sp through the checked read. */
void ex_dump_regs(const sfu_regs *regs);

/* Set up sfu (ex_unwind_setup) and print one line about the sections. */
void ex_unwind_init(void);

/* Walk the stack from regs (captured by the caller, so frame #0 is the
 * caller) and print it (sfu_dump_regs: "backtrace:", one line per frame,
 *     #N 0xADDR function+0xOFF/0xSIZE [(exception)|(interrupted)|(user)]
 * then "backtrace: N frames, stopped: <reason> (<CODE>)"), on the running
 * thread's port.  interrupted, if not NULL, is the context of the trap
 * the walk is expected to pass through (a fault): the dump says whether
 * it did. */
void ex_dump_backtrace(const sfu_regs *regs, const sfu_regs *interrupted);

/* Walk from regs without printing and check the trace: it crosses a trap
 * frame exactly once, into the context `interrupted`; every frame's PC is
 * inside a function of the symbol table; the last frame is in board_main;
 * the walk stopped at the outermost frame (SFU_END).  Returns NULL if all
 * hold, else what went wrong; *frames gets the number of frames, *stop
 * the walk's stop code. */
const char *ex_check_trace(const sfu_regs *regs, const sfu_regs *interrupted, unsigned *frames, int *stop);

/* The nested scenario: the Nth frame name looked up from now faults, as
 * a corrupt symbol table would (dump.c's name hook). */
void ex_inject_name_fault(unsigned nth);

/* -------------------------------------------------------------------------
 * Demo call chains (chain_*.c, leaf.c, corrupt.c, workload*.c).
 */
enum ex_action {
    EX_ACT_PANIC,   /* panic() at the bottom of the chain */
    EX_ACT_NULL,    /* load through a null pointer in a leaf */
    EX_ACT_UDF,     /* undefined instruction in a leaf */
    EX_ACT_NULLCALL, /* call through a null function pointer */
    EX_ACT_CORRUPT, /* smash saved frame records, then panic */
    EX_ACT_BADFP,   /* smash only the saved FP, then panic */
    EX_ACT_LOOP,    /* make a frame record point at itself, then panic */
    EX_ACT_BADSP,   /* point SP at unmapped memory and use it */
    EX_ACT_IRQPANIC, /* start the timer and spin in a leaf until a tick panics */
    EX_ACT_IRQFAULT, /* the same, the tick faulting (a null load) instead */
    EX_ACT_LIBGCC,  /* libgcc's __udivmodti4 stores through a bad pointer */
    EX_ACT_RECIPE   /* the README's step 1 (recipe.c): backtrace_here(), then exit */
};
/* recipe.c: the README's step 1, as written. */
void backtrace_here(void);

/* chain_fp.c (frame pointers) -> chain_nofp.c (-fomit-frame-pointer) ->
 * chain_big.c (large frame) -> chain_fp.c -> chain_nofp.c -> chain_big.c
 * (noreturn) -> the action. */
int chain_a(int depth, enum ex_action act);
int chain_d(int depth, enum ex_action act);
int chain_b(int depth, enum ex_action act);
int chain_e(int depth, enum ex_action act);
int chain_c(int depth, enum ex_action act);
EX_NORETURN void chain_f(int depth, enum ex_action act);

/* leaf.c, compiled with -fomit-frame-pointer: leaves with no frame. */
int leaf_load(const volatile int *p);
void leaf_udf(void);
/* Set *armed, then spin (at most n rounds) until an interrupt ends it. */
void leaf_spin(volatile int *armed, uint32_t n);
/* Set *flag, then spin for good (a thread that only the timer preempts). */
EX_NORETURN void leaf_park(volatile int *flag);
/* Set by leaf_spin for the irqpanic scenario: the next tick panics. */
extern volatile int ex_watchdog_armed;
/* Set by the irqfault scenario: the watchdog's tick faults instead. */
extern volatile int ex_watchdog_faults;
extern const volatile int *volatile ex_null_ptr;
extern void (*volatile ex_null_fn)(void);

/* corrupt.c */
EX_NORETURN void corrupt_records(int depth);
EX_NORETURN void corrupt_fp(int depth);
EX_NORETURN void corrupt_loop(int depth);
EX_NORETURN void corrupt_sp(void);

/* workload.c / workload_nofp.c: deterministic mixed-depth work. */
uint64_t work_run(uint64_t seed);
uint64_t work_fp_1(uint64_t x, unsigned depth);
uint64_t work_fp_2(uint64_t x, unsigned depth);
uint64_t work_nofp_1(uint64_t x, unsigned depth);
uint64_t work_nofp_2(uint64_t x, unsigned depth);
uint64_t work_big(uint64_t x, unsigned depth);
uint64_t work_leaf(uint64_t x);

#endif /* EX_H */
