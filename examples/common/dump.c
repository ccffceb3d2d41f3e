/* SPDX-License-Identifier: MIT */
/*
 * dump.c -- the backtrace printed by panic() and the fault handler, and the
 * per-tick trace check of the timer scenarios.
 *
 * The recipe, for anyone wiring sfu into their own firmware:
 *
 *   1. the sections and the port, set up once (unwind.c): sfu_section_split
 *      over [__sframe_start, __sframe_end) (linker/sframe.ld), the checked
 *      read and the RAM it may read, the vector code's trap frame layout
 *      (the board's), the stack bounds from the linker;
 *   2. the registers: captured where the dump is asked for (panic(), the
 *      fault handler, the tick handler), so the walk starts in the handler
 *      and crosses the trap frame into the interrupted code;
 *   3. the walk: sfu_backtrace into an array of frames; SFU_END is a
 *      complete trace;
 *   4. the names: each frame's sfu_frame_lookup_pc (the return address
 *      minus one, or the exact PC) in a symbol table.
 *
 * Names come from the image's own symbol table (examples/symtab.sh).
 */
#include "ex.h"

static uint64_t addr_of(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* -------------------------------------------------------------------------
 * Symbols.
 */
volatile unsigned ex_inject_lookup_fault;

const struct ex_sym *ex_sym_find(uint64_t addr)
{
    size_t lo = 0, hi = (size_t)ex_symtab_count;

    /* The nested scenario makes the Nth lookup fault, as a corrupt symbol
     * table would. */
    if (ex_inject_lookup_fault != 0 && --ex_inject_lookup_fault == 0)
        lo = (size_t)*ex_null_ptr;

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

void ex_unwind_init(void)
{
    uint32_t fdes = 0;
    size_t i;

    ex_unwind_setup();
    for (i = 0; i < ex_nsecs; i++)
        fdes += ex_secs[i].num_fdes;
    ex_printf("  unwind    sfu: %u SFrame section(s), version %u, %u FDEs%s; %u symbols\n",
              (unsigned)ex_nsecs, ex_nsecs ? (unsigned)ex_secs[0].version : 0u, (unsigned)fdes,
              ex_secs[0].pcrel ? " (PC-relative starts)" : "", (unsigned)ex_symtab_count);
    if (ex_secs_err != SFU_OK)
        ex_printf("  unwind    sfu_section_split: %s (%s)\n", sfu_strerror(ex_secs_err),
                  err_name(ex_secs_err));
}

/* The walk: frames[0] is where regs were captured. */
static int walk(const sfu_port *port, const sfu_regs *regs, sfu_frame *frames, size_t *n)
{
    ex_unwind_setup();
    *n = 0;
    if (ex_secs_err != SFU_OK)
        return ex_secs_err; /* no section: say why, rather than "no info" */
    return sfu_backtrace(ex_secs, ex_nsecs, port, regs, frames, SFU_DEPTH_CAP, n);
}

/* Is this frame the vector code's call into C (a return address there)? */
static bool is_stub(const sfu_port *port, const sfu_frame *f)
{
    const struct sfu_trap_layout *l;

    return !(f->flags & SFU_FRAME_EXACT) && sfu_port_trap_find(port->ctx, f->pc, f->sp, &l) != 0;
}

/* The function to name a frame by. */
static const struct ex_sym *lookup(const sfu_frame *f)
{
    return ex_sym_find(sfu_frame_lookup_pc(f));
}

void ex_print_frame(unsigned n, const sfu_frame *f, bool stub)
{
    const struct ex_sym *s = (f->flags & SFU_FRAME_USER) ? NULL : lookup(f);

    ex_printf("  #%-2u 0x%016llx ", n, (unsigned long long)f->pc);
    if (s)
        ex_printf("%s+0x%llx/0x%x", ex_sym_name(s), (unsigned long long)(f->pc - s->addr),
                  (unsigned)s->size);
    else
        ex_printf("??");
    /* The markers say how to look the address up (README, "The dump"):
     * exact for #0, (interrupted) and (user), minus one for the rest. */
    if (f->flags & SFU_FRAME_USER)
        ex_printf(" (user)");
    else if (n > 0 && (f->flags & SFU_FRAME_EXACT))
        ex_printf(" (interrupted)");
    else if (stub)
        ex_printf(" (exception)");
    ex_printf("\n");
}

void ex_print_stop(size_t n, int err)
{
    ex_printf("backtrace: %u frames, stopped: %s (%s)\n", (unsigned)n, sfu_strerror(err), err_name(err));
}

/* The last dump's frames (static: the crash path's stack stays small). */
sfu_frame ex_last_frames[SFU_DEPTH_CAP];
size_t ex_last_nframes;
int ex_last_stop;

void ex_dump_walk(const sfu_port *port, const sfu_regs *r, const sfu_regs *interrupted)
{
    sfu_frame *frames = ex_last_frames;
    size_t n, i;
    bool crossed = false;
    int err;

    ex_printf("backtrace:\n");
    ex_last_nframes = 0;
    err = walk(port, r, frames, &n);
    ex_last_nframes = n;
    ex_last_stop = err;
    for (i = 0; i < n; i++) {
        ex_print_frame((unsigned)i, &frames[i], is_stub(port, &frames[i]));
        if (frames[i].how == SFU_HOW_TRAP)
            crossed = true;
    }
    ex_print_stop(n, err);
    if (interrupted != NULL && !crossed)
        ex_printf("  (the walk did not reach the interrupted code: pc %p sp %p)\n",
                  (void *)(uintptr_t)interrupted->pc, (void *)(uintptr_t)interrupted->sp);
}

void ex_dump_backtrace(const sfu_regs *r, const sfu_regs *interrupted)
{
    const struct ex_thread *t = ex_thread_current();

    /* In a thread, the walk is bounded by its stacks (sched.c). */
    if (t != NULL)
        ex_thread_header(t);
    ex_dump_walk(ex_walk_port(), r, interrupted);
}

const char *ex_check_trace(const sfu_regs *r, const sfu_regs *interrupted, unsigned *nframes)
{
    sfu_frame frames[SFU_DEPTH_CAP];
    const struct ex_sym *last = NULL;
    const char *why = NULL;
    unsigned traps = 0;
    size_t n, i;
    int err;

    err = walk(&ex_port, r, frames, &n);
    for (i = 0; i < n; i++) {
        last = ex_sym_find(sfu_frame_lookup_pc(&frames[i]));
        if (last == NULL && why == NULL)
            why = "a frame's PC is in no function of the symbol table";
        if (frames[i].how == SFU_HOW_TRAP) {
            traps++;
            if (frames[i].pc != interrupted->pc || frames[i].sp != interrupted->sp)
                why = "the interrupted frame is not the trap frame's context";
        }
    }
    *nframes = (unsigned)n;
    if (err != SFU_END)
        return sfu_strerror(err);
    if (why != NULL)
        return why;
    if (traps != 1)
        return "the walk did not cross the trap frame exactly once";
    if (last == NULL || last->addr != addr_of((const void *)board_main))
        return "the last frame is not in board_main";
    return NULL;
}

/* -------------------------------------------------------------------------
 * Registers.
 */
void ex_dump_regs(const sfu_regs *r)
{
    uint64_t top;

    ex_printf("  pc %p  sp %p\n", (void *)(uintptr_t)r->pc, (void *)(uintptr_t)r->sp);
    ex_printf("  fp %p", (void *)(uintptr_t)r->fp);
#if EX_HAS_LR
    ex_printf("  lr %p", (void *)(uintptr_t)r->ra);
    if (sfu_port_strip_ra(NULL, r->ra) != r->ra)
        ex_printf(" (PAC stripped %p)", (void *)(uintptr_t)sfu_port_strip_ra(NULL, r->ra));
#endif
    ex_printf("\n");
    /* The word at SP, through the checked read (of the running thread's
     * stacks, so never a guard page): the return address in a frameless
     * x86_64 leaf, and a test that refusals are reported. */
    if (sfu_port_read(ex_walk_port()->ctx, r->sp, &top) == 0)
        ex_printf("  [sp] %p\n", (void *)(uintptr_t)top);
    else
        ex_printf("  [sp] (read refused: sp outside RAM or unaligned)\n");
}
