/* SPDX-License-Identifier: MIT */
/*
 * dump.c -- the backtrace printed by panic() and the fault handler, and the
 * per-tick trace check of the timer scenarios, on the dump layer
 * (crash/sfu_dump.h; ex_dump: EX_DUMP in ex.h).
 *
 * The dump layer walks and prints (frames streamed, names from the
 * image's own symbol table, tools/sfu-symtab; the crash record written as
 * it walks); this file adds what the examples check around it: the
 * registers, whether a fault's walk reached the interrupted code, and a
 * name hook that faults on purpose for the nested scenario.
 */
#include "ex.h"

static uint64_t addr_of(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* -------------------------------------------------------------------------
 * The nested scenario's fault: the dump layer asks this hook for a frame's
 * name, and the Nth time it loads through a null pointer, as a corrupt
 * symbol table would make the lookup do.
 */
static volatile unsigned inject_countdown;

/* The description's name hook: the symbol table's names (a kernel would
 * give its kallsyms here), and the injected fault. */
const char *ex_name_hook(const struct sfu_dump *d, uint64_t addr, uint64_t *start, uint64_t *size)
{
    const struct sfu_sym *s;

    if (inject_countdown != 0 && --inject_countdown == 0)
        *start = (uint64_t)*ex_null_ptr;
    s = sfu_symtab_find(d->symtab, addr);
    if (s == NULL)
        return NULL;
    *start = s->addr;
    *size = s->size;
    return sfu_symtab_name(d->symtab, s);
}

void ex_inject_name_fault(unsigned nth)
{
    inject_countdown = nth;
}

/* -------------------------------------------------------------------------
 * Set-up line.
 */
void ex_unwind_init(void)
{
    uint32_t fdes = 0;
    size_t i;

    struct sfu_dump_why why;
    size_t n;
    int err;

    ex_unwind_setup();
    err = sfu_dump_check(&ex_dump, &why);
    n = err == SFU_E_FULL ? 0 : ex_dump_state.nsecs;
    for (i = 0; i < n; i++)
        fdes += ex_dump_state.secs[i].num_fdes;
    ex_printf("  unwind    sfu: %u SFrame section(s), version %u, %u FDEs%s; %u symbols\n", (unsigned)n,
              n ? (unsigned)ex_dump_state.secs[0].version : 0u, (unsigned)fdes,
              n && ex_dump_state.secs[0].pcrel ? " (PC-relative starts)" : "",
              ex_dump.symtab ? (unsigned)ex_dump.symtab->count : 0u);
    if (err != SFU_OK)
        ex_printf("  unwind    sfu_dump_check: %s (%s): %s: %s\n", sfu_strerror(err), sfu_errname(err),
                  why.part ? why.part : "?", why.rule ? why.rule : "?");
}

/* -------------------------------------------------------------------------
 * The dump.
 */

static bool crossed; /* the walk went through a trap frame */

/* The description's frame hook: whether the walk crossed a trap frame;
 * and the retained scenario's power cut in the middle of a dump (the
 * crash record is half written then: retained.c). */
void ex_frame_hook(const struct sfu_dump *d, unsigned n, const sfu_frame *f)
{
    (void)d;
    if (f->how == SFU_HOW_TRAP)
        crossed = true;
    if (ex_cut_at_frame != 0 && n == ex_cut_at_frame)
        board_reset();
}

void ex_dump_backtrace(const sfu_regs *r, const sfu_regs *interrupted)
{
    const struct ex_thread *t = ex_thread_current();

    ex_unwind_setup();
    crossed = false;
    /* In a thread, the walk is bounded by its stacks (the thread table's
     * .current: the dump finds them itself). */
    if (t != NULL)
        ex_thread_header(t);
    (void)sfu_dump_regs(&ex_dump, r);
    if (interrupted != NULL && !crossed) {
        sfu_dump_str(&ex_dump, "  (the walk did not reach the interrupted code: pc ");
        sfu_dump_hex(&ex_dump, interrupted->pc, 16);
        sfu_dump_str(&ex_dump, " sp ");
        sfu_dump_hex(&ex_dump, interrupted->sp, 16);
        sfu_dump_str(&ex_dump, ")\n");
    }
}

/* Walked with the cursor, frame by frame: no frame array on the (tick
 * handler's) stack. */
const char *ex_check_trace(const sfu_regs *r, const sfu_regs *interrupted, unsigned *nframes, int *stop)
{
    const struct sfu_sym *last = NULL;
    const char *why = NULL;
    unsigned traps = 0, n = 0;
    sfu_cursor c;
    int err;

    ex_unwind_setup();
    err = ex_dump_state.err;
    if (err == SFU_OK)
        err = sfu_cursor_init(&c, ex_dump_state.secs, ex_dump_state.nsecs, ex_ram_port(), r);
    while (err == SFU_OK) {
        last = sfu_symtab_find(ex_dump.symtab, c.regs.pc - (c.exact ? 0u : 1u));
        if (last == NULL && why == NULL)
            why = "a frame's PC is in no function of the symbol table";
        if (c.how == SFU_HOW_TRAP) {
            traps++;
            if (c.regs.pc != interrupted->pc || c.regs.sp != interrupted->sp)
                why = "the interrupted frame is not the trap frame's context";
        }
        n++;
        err = sfu_cursor_step(&c);
    }
    *nframes = n;
    *stop = err;
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
static void reg(const char *name, uint64_t v)
{
    sfu_dump_str(&ex_dump, name);
    sfu_dump_hex(&ex_dump, v, 16);
}

void ex_dump_regs(const sfu_regs *r)
{
    uint64_t top;

    reg("  pc ", r->pc);
    reg("  sp ", r->sp);
    reg("\n  fp ", r->fp);
#if EX_HAS_LR
    reg("  lr ", r->ra);
    if (sfu_port_strip_ra(NULL, r->ra) != r->ra) {
        reg(" (PAC stripped ", sfu_port_strip_ra(NULL, r->ra));
        sfu_dump_str(&ex_dump, ")");
    }
#endif
    sfu_dump_str(&ex_dump, "\n");
    /* The word at SP, through the checked read (of the running thread's
     * stacks, so never a guard page): the return address in a frameless
     * x86_64 leaf, and a test that refusals are reported. */
    if (sfu_port_read(ex_walk_port()->ctx, r->sp, &top) == 0) {
        reg("  [sp] ", top);
        sfu_dump_str(&ex_dump, "\n");
    } else {
        sfu_dump_str(&ex_dump, "  [sp] (read refused: sp outside RAM or unaligned)\n");
    }
}
