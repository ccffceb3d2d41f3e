/* SPDX-License-Identifier: MIT */
/*
 * scenario.c -- boot banner, scenario selection, the scenarios themselves.
 *
 * A scenario is chosen at boot: the command line (QEMU -append) is searched
 * for "scenario=NAME".  Without one, EX_DEFAULT_SCENARIO (a build-time
 * string, default "hello") runs.  Every scenario ends by exiting QEMU with
 * an enum ex_status; the list at the end of the scenarios (EX_SCENARIO)
 * gives the status each one expects, which examples/boot.sh checks.
 */
#include "ex.h"

#ifndef EX_BOARD
#error "EX_BOARD (board name string) must be defined by the build"
#endif
#ifndef EX_DEFAULT_SCENARIO
#define EX_DEFAULT_SCENARIO "hello"
#endif
#ifndef EX_VARIANT
#define EX_VARIANT ""
#endif

/* Timer test: tick rate and the number of ticks to see during the
 * workload.  Ticks are counted until EX_TIMER_RUN, and at least
 * EX_TIMER_MIN must have arrived for a pass. */
#ifndef EX_TIMER_HZ
#define EX_TIMER_HZ 10000u
#endif
#define EX_TIMER_MIN 2000u
#define EX_TIMER_RUN 2500u
/* Workload rounds before giving up on the timer (a dead timer must not
 * hang the run until the 20 s timeout). */
#define EX_TIMER_MAX_ROUNDS 2000000u

static uint64_t addr_of(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* -------------------------------------------------------------------------
 * Banner.
 */

/* What the core made of [__sframe_start, __sframe_end) (ex_unwind_setup:
 * sfu_dump_sections): GNU ld gives one merged section followed by zero
 * padding (it reserves the pre-merge size), lld one complete section per
 * object.  *tail gets the bytes after the last section found, which are
 * all zero when the split succeeded.  Returns the number of sections. */
static size_t sframe_sections(size_t *tail)
{
    const sfu_section *last;

    ex_unwind_setup();
    *tail = (size_t)(__sframe_end - __sframe_start);
    if (ex_dump_state.err == SFU_E_FULL || ex_dump_state.nsecs == 0)
        return 0;
    last = &ex_dump_state.secs[ex_dump_state.nsecs - 1];
    *tail -= (size_t)(last->data - (const uint8_t *)__sframe_start) + last->size;
    return ex_dump_state.nsecs;
}

static void banner(const char *cmdline)
{
    size_t tail;

    ex_printf("\nsfu example firmware: %s (%s)%s%s\n", EX_BOARD, EX_ARCH,
              EX_VARIANT[0] ? ", " : "", EX_VARIANT);
#ifdef __clang__
    ex_printf("  compiler  %s\n", __VERSION__);
#else
    ex_printf("  compiler  gcc %s\n", __VERSION__);
#endif
    ex_printf("  .text     %p .. %p\n", (void *)__text_start, (void *)__text_end);
    ex_printf("  .sframe   %p .. %p (%llu bytes", (void *)__sframe_start, (void *)__sframe_end,
              (unsigned long long)(__sframe_end - __sframe_start));
    if (sframe_sections(&tail) > 0) {
        ex_printf(", version %u, flags 0x%x, %u FDEs in the first header)\n",
                  (unsigned)ex_dump_state.secs[0].version, (unsigned)ex_dump_state.secs[0].flags,
                  (unsigned)ex_dump_state.secs[0].num_fdes);
        ex_printf("            %u section(s) back to back, then %llu %s byte(s)\n", (unsigned)ex_dump_state.nsecs,
                  (unsigned long long)tail, ex_dump_state.err == SFU_OK ? "zero" : "UNREAD");
    } else {
        ex_printf(", NO SFrame section)\n");
    }
    ex_printf("  stacks    %p .. %p   ram %p .. %p\n", (void *)__stack_lo, (void *)__stack_hi,
              (void *)__ram_start, (void *)__ram_end);
    ex_printf("  cmdline   \"%s\"\n", cmdline);
    board_banner();
    ex_unwind_init();
}

/* -------------------------------------------------------------------------
 * hello: self-checks of the port on real hardware state.
 */
static unsigned checks_failed;
volatile uint64_t ex_probe_resume, ex_probe_code;

static void check(const char *name, bool ok)
{
    ex_printf("  check %-28s %s\n", name, ok ? "ok" : "FAIL");
    if (!ok)
        checks_failed++;
}

static EX_NOINLINE void scen_hello(void)
{
    sfu_regs r;
    volatile uint64_t word = 0x5f5f5f5f5f5f5f5full;
    sfu_regs t;
    void *ctx = (void *)(uintptr_t)ex_ram_ctx();
    size_t i;
    uint64_t got = 0, ram_end = addr_of(__ram_end);

    SFU_PORT_CAPTURE(&r);
    {
        size_t tail, n = sframe_sections(&tail);

        check("sframe header present", n > 0);
        check("sframe has FDEs", n > 0 && ex_dump_state.secs[0].num_fdes > 0);
        check("sframe: sections fill span", n > 0 && ex_dump_state.err == SFU_OK);
    }
    check("capture: pc in .text", r.pc >= addr_of(__text_start) && r.pc < addr_of(__text_end));
    check("capture: sp on the stack", r.sp >= addr_of(__stack_lo) && r.sp < addr_of(__stack_hi));
    check("capture: sp aligned", (r.sp & (SFU_PORT_STACK_ALIGN - 1u)) == 0);
    check("read: stack word", sfu_port_read(ctx, addr_of((const void *)&word), &got) == 0 &&
                                  got == word);
    check("read: unaligned refused", sfu_port_read(ctx, addr_of((const void *)&word) + 4, &got) != 0);
    check("read: address 0 refused", sfu_port_read(ctx, 0, &got) != 0);
    check("read: last ram word", sfu_port_read(ctx, ram_end - 8, &got) == 0);
    check("read: ram end refused", sfu_port_read(ctx, ram_end, &got) != 0);
    check("read: top of memory refused", sfu_port_read(ctx, UINT64_MAX - 7, &got) != 0);
#if EX_HAS_LR
    check("strip_ra: plain address kept", sfu_port_strip_ra(NULL, r.pc) == r.pc);
#endif
    check("trap: ordinary pc is no call site", sfu_port_trap(ctx, r.pc, r.sp, &t) == SFU_TRAP_NONE);
    for (i = 0; i < ex_dump.ntraps; i++)
        check("trap: layout checks out", sfu_layout_check(&ex_dump.traps[i], NULL) == SFU_OK);
    check("dump: description checks out", sfu_dump_check(&ex_dump, NULL) == SFU_OK);
    /* FP/SIMD is off on both boards (the vector code saves no FP
     * registers): the crash path must not need it. */
    ex_probe_code = UINT64_MAX;
    EX_PROBE_FP();
#if defined(__aarch64__)
    check("fp/simd off: FP instruction traps", ((ex_probe_code >> 26) & 0x3fu) == 0x07);
#else
    check("sse off: SSE instruction traps", ex_probe_code == 6);
#endif
#if EX_MMU_OFF
    /* Not a check: QEMU before 10 does not model alignment faults on
     * Device memory; the test suite knows which QEMU it ran. */
    ex_probe_code = UINT64_MAX;
    EX_PROBE_UNALIGNED((const volatile void *)((const volatile char *)&word + 1));
    ex_printf("hello: unaligned load from Device memory: %s (ESR 0x%llx)\n",
              ex_probe_code == UINT64_MAX ? "no fault" : "alignment fault",
              (unsigned long long)(ex_probe_code == UINT64_MAX ? 0 : ex_probe_code));
#endif
    ex_printf("hello: %u check(s) failed\n", checks_failed);
    board_exit(checks_failed ? EX_FAIL : EX_PASS);
}

/* -------------------------------------------------------------------------
 * The chain scenarios: all enter the same 6-deep chain and differ in what
 * happens at its bottom.
 */
static EX_NOINLINE void run_chain(enum ex_action act)
{
    int r = chain_a(0, act);

    /* Never reached: chain_f does not return. */
    ex_printf("chain returned %d\n", r);
    board_exit(EX_BUG);
}

/* Every crash ends with the record its dumps wrote, printed for
 * tools/sfu-crash (retained.c). */
static void scen_panic(void) { run_chain(EX_ACT_PANIC); }
static void scen_irqpanic(void) { run_chain(EX_ACT_IRQPANIC); }
static void scen_null(void) { run_chain(EX_ACT_NULL); }
static void scen_irqfault(void) { run_chain(EX_ACT_IRQFAULT); }
static void scen_udf(void) { run_chain(EX_ACT_UDF); }
static void scen_nullcall(void) { run_chain(EX_ACT_NULLCALL); }
static void scen_corrupt(void) { run_chain(EX_ACT_CORRUPT); }
static void scen_badfp(void) { run_chain(EX_ACT_BADFP); }
static void scen_loop(void) { run_chain(EX_ACT_LOOP); }
static void scen_badsp(void) { run_chain(EX_ACT_BADSP); }
static void scen_libgcc(void) { run_chain(EX_ACT_LIBGCC); }

/* irqnest: as irqpanic, the timer's handler raising a nested interrupt
 * instead (ex_tick). */
static volatile int watchdog_nests;
static void scen_irqnest(void)
{
    watchdog_nests = 1;
    run_chain(EX_ACT_IRQPANIC);
}

/* threads, overflow, retained: threads.c and retained.c. */
static void scen_threads(void) { ex_threads_scenario(); }
static void scen_overflow(void) { ex_overflow_scenario(); }
static void scen_retained(void) { ex_retained_scenario(); }
/* perturb: perturb.c. */
static void scen_perturb(void) { ex_perturb_scenario(); }

/* nested: the null fault, whose dump faults in the name lookup of its
 * fourth frame (dump.c). */
static void scen_nested(void)
{
    ex_inject_name_fault(4);
    run_chain(EX_ACT_NULL);
}

/* recipe: the README's step 1 (recipe.c), at the bottom of the demo
 * chain instead of panic(). */
static void scen_recipe(void)
{
    run_chain(EX_ACT_RECIPE);
}

/* -------------------------------------------------------------------------
 * timer: unwind the interrupted code on every tick of a deep workload, then
 * replay the workload without ticks.
 */
static volatile uint32_t ticks;
static volatile uint32_t ticks_in_text;
static volatile uint32_t ticks_on_stack;
static volatile uint64_t tick_min_sp = UINT64_MAX;
static volatile uint64_t tick_max_sp;
/* Per-tick traces (only while tracing is on: the timer scenario). */
static volatile bool tracing;
static volatile uint32_t traces_complete;
static volatile uint32_t traces_failed;
static volatile uint32_t trace_max_frames;
/* Failing traces printed in full: the first few are enough to debug. */
#define EX_TRACE_FAILS_SHOWN 3u
/* The interrupted PC of every failing trace, with its stop code, each PC
 * once (test/firmware checks where they are). */
#define EX_FAIL_PCS 32u
static uint64_t fail_pc[EX_FAIL_PCS];
static int fail_stop[EX_FAIL_PCS];
static uint32_t fail_npcs, fail_pcs_lost;

static void note_fail(uint64_t pc, int stop)
{
    uint32_t i;

    for (i = 0; i < fail_npcs; i++) {
        if (fail_pc[i] == pc && fail_stop[i] == stop)
            return;
    }
    if (fail_npcs == EX_FAIL_PCS) {
        fail_pcs_lost++;
        return;
    }
    fail_pc[fail_npcs] = pc;
    fail_stop[fail_npcs++] = stop;
}
/* Distinct interrupted PCs: open addressing, 0 = empty slot. */
#define EX_PC_SLOTS 4096u
static uint64_t pc_seen[EX_PC_SLOTS];
static uint32_t pcs_distinct;

volatile int ex_watchdog_armed;

static void note_pc(uint64_t pc)
{
    /* Fibonacci hashing into 12 bits, then linear probing. */
    uint32_t h = (uint32_t)((pc * 0x9e3779b97f4a7c15ull) >> 52);
    uint32_t n;

    for (n = 0; n < EX_PC_SLOTS; n++, h = (h + 1) % EX_PC_SLOTS) {
        if (pc_seen[h] == pc)
            return;
        if (pc_seen[h] == 0) {
            pc_seen[h] = pc;
            pcs_distinct++;
            return;
        }
    }
}

/* irqpanic: a panic raised inside the interrupt handler.  Not static, so
 * the compiler keeps its name (no .isra/.constprop clone). */
EX_NORETURN void tick_watchdog(const sfu_regs *r);

EX_NOINLINE EX_NORETURN void tick_watchdog(const sfu_regs *r)
{
    ex_printf("watchdog: tick %u interrupted pc %p sp %p\n", ticks, (void *)(uintptr_t)r->pc,
              (void *)(uintptr_t)r->sp);
    panic("watchdog fired in the timer interrupt handler");
}

/* irqfault: a fault inside the interrupt handler (a null load in a
 * frameless leaf), taken on whatever stack the handler runs on: the walk
 * crosses the fault's trap frame, then the interrupt's. */
volatile int ex_watchdog_faults;
EX_NOINLINE void tick_fault(const sfu_regs *r);

EX_NOINLINE void tick_fault(const sfu_regs *r)
{
    ex_printf("watchdog: tick %u interrupted pc %p; a null load in the handler\n", ticks,
              (void *)(uintptr_t)r->pc);
    (void)leaf_load(ex_null_ptr);
    panic("tick_fault: the null load did not fault");
}

/* irqnest: inside the timer's handler, the board unmasks interrupts and
 * raises one of higher priority (board_nested_irq), which preempts this
 * handler; the nested handler (ex_nested_irq) faults.  The walk crosses
 * the fault's trap frame, the nested interrupt's (on the same stack as
 * this handler), then the timer's, into leaf_spin. */
EX_NOINLINE EX_NORETURN void tick_nest(const sfu_regs *r);

EX_NOINLINE EX_NORETURN void tick_nest(const sfu_regs *r)
{
    const char *why;

    ex_printf("watchdog: tick %u interrupted pc %p; raising a nested interrupt\n", ticks,
              (void *)(uintptr_t)r->pc);
    why = board_nested_irq();
    ex_printf("irqnest: no nested interrupt: %s\n", why);
    board_exit(EX_FAIL);
}

EX_NOINLINE void ex_nested_irq(const sfu_regs *r)
{
    ex_printf("watchdog: the nested interrupt interrupted pc %p sp %p; a null load in its handler\n",
              (void *)(uintptr_t)r->pc, (void *)(uintptr_t)r->sp);
    (void)leaf_load(ex_null_ptr);
    panic("ex_nested_irq: the null load did not fault");
}

/* Unwind from here, through the trap frame, to board_main. */
static void trace_tick(const sfu_regs *tf)
{
    sfu_regs here;
    const char *why;
    unsigned frames;
    int stop;

    SFU_PORT_CAPTURE(&here);
    why = ex_check_trace(&here, tf, &frames, &stop);
    if (frames > trace_max_frames)
        trace_max_frames = frames;
    if (why == NULL) {
        traces_complete++;
        return;
    }
    traces_failed++;
    note_fail(tf->pc, stop);
    if (traces_failed <= EX_TRACE_FAILS_SHOWN) {
        ex_printf("timer: tick %u: trace check failed: %s\n", ticks, why);
        SFU_PORT_CAPTURE(&here);
        ex_dump_backtrace(&here, tf);
    }
}

void ex_tick(const sfu_regs *r)
{
    ticks++;
    if (ex_watchdog_armed && watchdog_nests)
        tick_nest(r);
    if (ex_watchdog_armed && ex_watchdog_faults)
        tick_fault(r);
    if (ex_watchdog_armed)
        tick_watchdog(r);
    if (r->pc >= addr_of(__text_start) && r->pc < addr_of(__text_end))
        ticks_in_text++;
    if (r->sp >= addr_of(__stack_lo) && r->sp < addr_of(__stack_hi))
        ticks_on_stack++;
    if (r->sp < tick_min_sp)
        tick_min_sp = r->sp;
    if (r->sp > tick_max_sp)
        tick_max_sp = r->sp;
    if (r->pc != 0)
        note_pc(r->pc);
    if (tracing)
        trace_tick(r);
    ex_perturb_tick();
    ex_sched_tick();
}

static EX_NOINLINE void scen_timer(void)
{
    uint64_t acc = 0, ref = 0;
    uint32_t rounds = 0, i, got;
    bool ok;

    ex_printf("timer: %u Hz, workload until %u ticks, every tick unwinds the interrupted code\n",
              EX_TIMER_HZ, EX_TIMER_RUN);
    tracing = true;
    board_timer_start(EX_TIMER_HZ);
    while (ticks < EX_TIMER_RUN && rounds < EX_TIMER_MAX_ROUNDS) {
        acc += work_run(rounds);
        rounds++;
    }
    board_timer_stop();
    tracing = false;
    got = ticks;

    /* Same rounds, no interrupts: any register the IRQ path failed to
     * restore shows up as a different sum. */
    for (i = 0; i < rounds; i++)
        ref += work_run(i);

    ex_printf("timer: %u ticks during %u workload rounds\n", got, rounds);
    ex_printf("timer: %u ticks in .text, %u on the stack, sp %p .. %p\n", ticks_in_text,
              ticks_on_stack, (void *)(uintptr_t)tick_min_sp, (void *)(uintptr_t)tick_max_sp);
    ex_printf("timer: %u distinct interrupted PCs, longest trace %u frames\n", pcs_distinct,
              trace_max_frames);
    ex_printf("timer: checksum with ticks %p, without %p\n", (void *)(uintptr_t)acc,
              (void *)(uintptr_t)ref);
    for (i = 0; i < fail_npcs; i++)
        ex_printf("timer: a failing trace interrupted pc %p, stopped with %s\n", (void *)(uintptr_t)fail_pc[i],
                  sfu_errname(fail_stop[i]));
    if (fail_pcs_lost != 0)
        ex_printf("timer: %u more failing traces at PCs not listed\n", fail_pcs_lost);
    ex_printf("timer: %u ticks, %u complete traces, %u failures\n", got, traces_complete,
              traces_failed);
    /* The traces are judged by who reads the summary (test/firmware: all
     * complete, or, for a producer known to leave epilogues without CFI,
     * failures only there); the status says whether the run itself held. */
    ok = got >= EX_TIMER_MIN && acc == ref && ticks_in_text == got && ticks_on_stack == got &&
         traces_complete + traces_failed == got;
    ex_printf("timer: %s\n", !ok ? "FAIL" : traces_failed ? "the run held; some traces failed (above)" : "PASS");
    board_exit(ok ? EX_PASS : EX_FAIL);
}

/* -------------------------------------------------------------------------
 * Selection.
 */
struct scenario {
    const char *name;
    void (*run)(void);
    enum ex_status expect;
    const char *what;
};

/*
 * The scenarios: the one list, one line each,
 *
 *   EX_SCENARIO(NAME, STATUS, RESETS, "what it does")
 *
 * NAME    chosen at boot with -append "scenario=NAME"; runs scen_NAME(),
 *         defined above
 * STATUS  the enum ex_status (ex.h) the image exits with when the scenario
 *         ends as it should
 * RESETS  1 if the scenario resets the board on purpose and boots again:
 *         examples/boot.sh then lets QEMU reboot (no -no-reboot); 0 for
 *         the others, where a reset is a failure
 *
 * examples/boot.sh reads these lines as text too (`boot.sh -L` lists them
 * for make and the scripts): keep each entry on one line, starting the
 * line.  A new scenario is its scen_NAME() and its line here, in this
 * file, and its line in test/firmware/expected.txt.
 */
static void scen_list(void);
#define EX_SCENARIO(name, status, resets, what) { #name, scen_##name, status, what },
static const struct scenario scenarios[] = {
EX_SCENARIO(hello,    EX_PASS,  0, "banner and port self-checks")
EX_SCENARIO(panic,    EX_PANIC, 0, "panic() at the bottom of a 6-deep chain")
EX_SCENARIO(null,     EX_FAULT, 0, "null-pointer load in a frameless leaf")
EX_SCENARIO(udf,      EX_FAULT, 0, "undefined instruction in a frameless leaf")
EX_SCENARIO(nullcall, EX_FAULT, 0, "call through a null function pointer")
EX_SCENARIO(timer,    EX_PASS,  0, "timer ticks during a deep workload, each one unwound")
EX_SCENARIO(irqpanic, EX_PANIC, 0, "panic in the timer interrupt handler")
EX_SCENARIO(irqfault, EX_FAULT, 0, "null-pointer load in the timer interrupt handler")
EX_SCENARIO(irqnest,  EX_FAULT, 0, "an interrupt nested in the timer's handler; its handler faults")
EX_SCENARIO(corrupt,  EX_PANIC, 0, "saved FP and RA overwritten, then panic")
EX_SCENARIO(badfp,    EX_PANIC, 0, "saved FP overwritten (RA intact), then panic")
EX_SCENARIO(loop,     EX_PANIC, 0, "frame record pointing at itself, then panic")
EX_SCENARIO(badsp,    EX_FAULT, 0, "SP pointed at unmapped memory, then a push")
EX_SCENARIO(recipe,   EX_PASS,  0, "the README's step 1 (recipe.c) at the bottom of the demo chain")
EX_SCENARIO(threads,  EX_PANIC, 0, "a thread in each state; one panics: every thread dumped")
EX_SCENARIO(overflow, EX_FAULT, 0, "a thread recurses into its stack's guard page")
EX_SCENARIO(nested,   EX_NESTED, 0, "a fault inside the fault's dump: one line, halt")
EX_SCENARIO(retained, EX_PASS,  1, "crash record kept across two warm resets")
EX_SCENARIO(libgcc,   EX_FAULT, 0, "libgcc's __udivmodti4 stores the remainder through a bad pointer")
EX_SCENARIO(perturb,  EX_PASS,  0, "every description with one field changed, walked over real contexts: none complete and wrong")
EX_SCENARIO(list,     EX_PASS,  0, "print this table")
};
#undef EX_SCENARIO
#define NSCENARIOS (sizeof scenarios / sizeof scenarios[0])

static void scen_list(void)
{
    size_t i;

    for (i = 0; i < NSCENARIOS; i++)
        ex_printf("  %-8s expect %d  %s\n", scenarios[i].name, (int)scenarios[i].expect,
                  scenarios[i].what);
    board_exit(EX_PASS);
}

/* Copy the value of "scenario=" from the command line into buf. */
static bool find_scenario(const char *cmdline, char *buf, size_t size)
{
    static const char key[] = "scenario=";
    const char *p = cmdline;

    while (*p) {
        size_t k = 0, n = 0;

        while (key[k] && p[k] == key[k])
            k++;
        if (!key[k] && (p == cmdline || p[-1] == ' ')) {
            p += k;
            while (*p && *p != ' ' && n + 1 < size)
                buf[n++] = *p++;
            buf[n] = '\0';
            return true;
        }
        p++;
    }
    return false;
}

EX_NORETURN void ex_main(void)
{
    const char *cmdline = board_cmdline();
    char name[32];
    size_t i;

    banner(cmdline);
    if (!find_scenario(cmdline, name, sizeof name)) {
        const char *d = EX_DEFAULT_SCENARIO;

        for (i = 0; d[i] && i + 1 < sizeof name; i++)
            name[i] = d[i];
        name[i] = '\0';
    }
    for (i = 0; i < NSCENARIOS; i++) {
        if (ex_streq(name, scenarios[i].name)) {
            ex_printf("scenario: %s -- %s (expect status %d)\n", name, scenarios[i].what,
                      (int)scenarios[i].expect);
            scenarios[i].run();
            ex_printf("scenario %s returned\n", name);
            board_exit(EX_BUG);
        }
    }
    ex_printf("scenario: unknown \"%s\"; known:\n", name);
    for (i = 0; i < NSCENARIOS; i++)
        ex_printf("  %s\n", scenarios[i].name);
    board_exit(EX_USAGE);
}
