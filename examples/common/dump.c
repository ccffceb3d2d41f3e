/*
 * dump.c -- the backtrace printed by panic() and the fault handler, and the
 * per-tick trace check of the timer scenarios: the only file of the
 * examples that calls the sfu core.
 *
 * The recipe, for anyone wiring sfu into their own firmware:
 *
 *   1. the section: sfu_section_split over [__sframe_start, __sframe_end)
 *      (linker/sframe.ld) -- GNU ld leaves one merged section followed by
 *      zero padding, lld one section per object; both are an array of
 *      sections to the core.  lld's unmerged sections need
 *      SFU_OPT_START_PCREL (the build defines EX_SFRAME_UNMERGED for them);
 *   2. the port: the checked read, PAC strip (aarch64) and trap-frame hook
 *      of port/<arch>/sfu_port_<arch>.h, the stack bounds from the linker;
 *   3. the registers: captured where the dump is asked for (panic(), the
 *      fault handler, the tick handler), so the walk starts in the handler
 *      and crosses the trap frame into the interrupted code;
 *   4. the walk: sfu_cursor_init, then sfu_cursor_step until it returns
 *      something other than SFU_OK; SFU_END is a complete trace.
 *
 * Names come from the image's own symbol table (examples/symtab.sh).
 */
#define SFU_IMPLEMENTATION
#define SFU_STATIC
#define SFU_ERROR_STRINGS 1
#define SFU_BIG 0       /* both boards are little-endian */
#define SFU_DEPTH_CAP 64 /* a firmware stack is never deeper; bounds the dump */
#include "sfu.h"

/* After sfu.h: the port header then also defines the core callbacks
 * (sfu_port_core_trap, sfu_port_core_strip_ra, sfu_port_core_regs). */
#include "ex.h"

#ifndef EX_SFRAME_UNMERGED
#define EX_SFRAME_UNMERGED 0 /* 1: lld image, per-object sections */
#endif

/* lld: one section per object (15 today); GNU ld: one. */
#define EX_MAX_SECTIONS 32u

static sfu_section secs[EX_MAX_SECTIONS];
static size_t nsecs;
static int secs_err = -1; /* -1: not split yet */
static sfu_port port;

static uint64_t addr_of(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* -------------------------------------------------------------------------
 * Symbols.
 */
const struct ex_sym *ex_sym_find(uint64_t addr)
{
    size_t lo = 0, hi = (size_t)ex_symtab_count;

    /* Last entry with ex_symtab[i].addr <= addr. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (ex_symtab[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    lo--;
    if (addr - ex_symtab[lo].addr >= ex_symtab[lo].size)
        return NULL;
    return &ex_symtab[lo];
}

/* -------------------------------------------------------------------------
 * Sections and port, set up once.
 */
static const char *err_name(int err)
{
    switch (err) {
#define EX__ERR_NAME(name, value, text) case name: return #name;
        SFU_ERRORS(EX__ERR_NAME)
#undef EX__ERR_NAME
    default:
        return "?";
    }
}

static void setup(void)
{
    if (secs_err >= 0)
        return;
    secs_err = sfu_section_split(secs, EX_MAX_SECTIONS, &nsecs, __sframe_start,
                                 (size_t)(__sframe_end - __sframe_start), addr_of(__sframe_start),
                                 EX_SFRAME_UNMERGED ? SFU_OPT_START_PCREL : 0u);
    port.read = sfu_port_read;
    port.strip_ra = sfu_port_core_strip_ra; /* aarch64 PAC; NULL on x86_64 */
    port.trap = sfu_port_core_trap;
    port.ctx = NULL; /* sfu_port_read: [__ram_start, __ram_end) */
    port.stack_lo = addr_of(__stack_lo);
    port.stack_hi = addr_of(__stack_hi);
}

void ex_unwind_init(void)
{
    uint32_t fdes = 0;
    size_t i;

    setup();
    for (i = 0; i < nsecs; i++)
        fdes += secs[i].num_fdes;
    ex_printf("  unwind    sfu: %u SFrame section(s), version %u, %u FDEs%s; %u symbols\n",
              (unsigned)nsecs, nsecs ? (unsigned)secs[0].version : 0u, (unsigned)fdes,
              EX_SFRAME_UNMERGED ? " (unmerged, PC-relative starts)" : "",
              (unsigned)ex_symtab_count);
    if (secs_err != SFU_OK)
        ex_printf("  unwind    sfu_section_split: %s (%s)\n", sfu_strerror(secs_err),
                  err_name(secs_err));
}

/* A walk starts with everything the capture gave: exact PC, and on
 * aarch64 the link register (valid in the first frame only). */
static int start(sfu_cursor *c, const struct sfu_port_regs *r)
{
    sfu_regs regs;

    setup();
    regs.pc = r->pc;
    regs.sp = r->sp;
    regs.fp = r->fp;
    regs.ra = r->ra;
    regs.dwarf = NULL;
    regs.ndwarf = 0;
    return sfu_cursor_init(c, secs, nsecs, &port, &regs);
}

/* The address to name a frame by: return addresses point after the call,
 * which may be the first byte of the next function (a call to a noreturn
 * function ends its caller); exact PCs (frame #0, interrupted frames) are
 * the instruction itself.  The same rule as tools/sfu-symbolize. */
static uint64_t lookup_pc(const sfu_cursor *c)
{
    return c->exact ? c->regs.pc : c->regs.pc - 1u;
}

static bool is_stub(const sfu_cursor *c)
{
    return c->how != SFU_HOW_TRAP && sfu_port_trap_at(NULL, c->regs.pc, c->regs.sp) != NULL;
}

static void print_frame(unsigned n, const sfu_cursor *c)
{
    const struct ex_sym *s = ex_sym_find(lookup_pc(c));
    uint64_t pc = c->regs.pc;

    ex_printf("  #%-2u 0x%016llx ", n, (unsigned long long)pc);
    if (s)
        ex_printf("%s+0x%llx/0x%x", ex_sym_name(s), (unsigned long long)(pc - s->addr),
                  (unsigned)s->size);
    else
        ex_printf("??");
    if (c->how == SFU_HOW_TRAP)
        ex_printf(" (interrupted)");
    else if (is_stub(c))
        ex_printf(" (exception)");
    ex_printf("\n");
}

void ex_dump_backtrace(const struct sfu_port_regs *r, const sfu_port_trap_frame *tf)
{
    sfu_cursor c;
    unsigned n = 0;
    bool crossed = false;
    int err;

    ex_printf("backtrace:\n");
    err = start(&c, r);
    if (err == SFU_OK && secs_err != SFU_OK)
        err = secs_err; /* no section: say why, rather than "no info" */
    while (err == SFU_OK) {
        print_frame(n++, &c);
        err = sfu_cursor_step(&c);
        if (err == SFU_OK && c.how == SFU_HOW_TRAP)
            crossed = true;
    }
    ex_printf("backtrace: %u frames, stopped: %s (%s)\n", n, sfu_strerror(err), err_name(err));
    if (tf != NULL && !crossed) {
        struct sfu_port_regs t;

        sfu_port_from_trap(tf, &t);
        ex_printf("  (the walk did not reach the interrupted code: pc %p sp %p)\n",
                  (void *)(uintptr_t)t.pc, (void *)(uintptr_t)t.sp);
    }
}

const char *ex_check_trace(const struct sfu_port_regs *r, const sfu_port_trap_frame *tf,
                           unsigned *frames)
{
    struct sfu_port_regs t;
    const struct ex_sym *last = NULL;
    const char *why = NULL;
    unsigned n = 0, traps = 0;
    sfu_cursor c;
    int err;

    sfu_port_from_trap(tf, &t);
    err = start(&c, r);
    if (err == SFU_OK && secs_err != SFU_OK)
        err = secs_err;
    while (err == SFU_OK) {
        last = ex_sym_find(lookup_pc(&c));
        if (last == NULL && why == NULL)
            why = "a frame's PC is in no function of the symbol table";
        if (c.how == SFU_HOW_TRAP) {
            traps++;
            if (c.regs.pc != t.pc || c.regs.sp != t.sp)
                why = "the interrupted frame is not the trap frame's context";
        }
        n++;
        err = sfu_cursor_step(&c);
    }
    *frames = n;
    if (err != SFU_END)
        return sfu_strerror(err);
    if (why != NULL)
        return why;
    if (traps != 1)
        return "the walk did not cross the trap frame exactly once";
    if (last == NULL || last->addr != (uint64_t)(uintptr_t)board_main)
        return "the last frame is not in board_main";
    return NULL;
}

/* -------------------------------------------------------------------------
 * Registers.
 */
void ex_dump_regs(const struct sfu_port_regs *r)
{
    uint64_t top;

    ex_printf("  pc %p  sp %p\n", (void *)(uintptr_t)r->pc, (void *)(uintptr_t)r->sp);
    ex_printf("  fp %p", (void *)(uintptr_t)r->fp);
#if EX_HAS_LR
    ex_printf("  lr %p", (void *)(uintptr_t)r->ra);
    if (sfu_port_strip_ra(r->ra) != r->ra)
        ex_printf(" (PAC stripped %p)", (void *)(uintptr_t)sfu_port_strip_ra(r->ra));
#endif
    ex_printf("\n");
    /* The word at SP, through the checked read: the return address in a
     * frameless x86_64 leaf, and a test that refusals are reported. */
    if (sfu_port_read(NULL, r->sp, &top) == 0)
        ex_printf("  [sp] %p\n", (void *)(uintptr_t)top);
    else
        ex_printf("  [sp] (read refused: sp outside RAM or unaligned)\n");
}
