/* SPDX-License-Identifier: MIT */
/*
 * perturb.c -- the perturb scenario: every trap, switch and thread
 * description of this image, each field of it changed in turn, walked over
 * the image's real contexts.  The property: every walk with a changed
 * description is the true trace (the walk with the right description) or
 * not reported complete.  A description that does not fit must never give
 * a wrong trace that says it is whole.
 *
 * The contexts, all real: threads in every state (blocked in the switch,
 * preempted by the timer interrupt with its trap frame on the stack, ready
 * and never run), the running thread's own stack, and an interrupt's trap
 * frame (the walk from inside the timer handler through the vector code
 * into the interrupted code).  The descriptions: a copy of ex_dump in RAM
 * per change, with its trap layouts, the thread table's switch layout (and
 * its trap layouts) and the thread table copied, one field changed:
 *   trap layout   frame.size, .off, .from, .ref_off; sp.from, .at, .add,
 *                 .on_live;
 *                 select.from, .at, .mask, .value; regs.pc, regs.mode,
 *                 each regs.reg[] (+-8, and the PC, mode, frame pointer
 *                 and link register left out);
 *   switch layout size, sp.from, .at, .add, regs.pc, .mode, each .reg[];
 *   thread table  the context field, each stack field, the next pointer
 *                 and the link node (+-8 bytes), the struct's size (+-8),
 *                 a stack's size (+-16).
 * An offset moves by PT_D bytes (default 8; build with -DPT_D=16 or 32
 * to probe farther: at 16 the aarch64 plain image has two walks that read
 * the saved LR as the interrupted PC, a trace one frame short that no
 * rule can tell from one interrupted just after a return).
 * Which descriptions: the image's own (ex_dump, its trap layouts, its
 * thread table and that table's switch layout): an image that describes
 * its kernel in another way is covered by booting this scenario on it
 * (expected.txt: every image), nothing to list here.
 * Every walk goes through the dump layer as a user's does (sfu_dump_threads,
 * sfu_dump_stack), its frames taken by the frame hook and its stop code
 * from the output.  The scenario prints one line,
 *     perturb: N walks, C complete and equal, I incomplete, W complete and wrong
 * and every complete-and-wrong walk before it (test/firmware/run.sh wants
 * W = 0), then exits with EX_PASS (EX_FAIL if W > 0 or nothing was walked).
 */
#include "ex.h"

void *memset(void *dst, int c, size_t n); /* mem.c */

#define PT_FRAMES 48u   /* frames kept per walk */
#define PT_WALKS 8u     /* walks per description */
#define PT_TRAPS 8u     /* trap layouts of a description */
#ifndef PT_D
#define PT_D 8
#endif
#define PT_KEY_RUNNING 1u
#define PT_KEY_IRQ 2u

/* One walk: whose (the hash of its thread's header line, or PT_KEY_*),
 * its frames' PCs and its stop code. */
struct pt_walk {
    uint32_t key;
    int stop;
    unsigned n;
    uint64_t pc[PT_FRAMES];
};
struct pt_walks {
    unsigned n;
    struct pt_walk w[PT_WALKS];
};

/* The walks of the true description and of the one being tried, and
 * where the output hook puts what it parses. */
static struct pt_walks truth_threads, truth_running, truth_irq, got;
static struct pt_walk *cur;
static uint32_t cur_key;
static char line[160];
static unsigned line_n;

/* The counts. */
static unsigned long n_walks, n_equal, n_incomplete, n_wrong, n_descs;

/* ---- the dump's hooks: parse what it prints ------------------------------ */

static uint32_t hash_str(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    size_t i;

    for (i = 0; i < n && s[i]; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h | 0x100u; /* never a PT_KEY_* */
}

/* The stop code named at the end of a "backtrace: N frames, stopped:
 * TEXT (CODE)" line. */
static int stop_of(const char *l)
{
    const char *p = l, *open = NULL;
    int i;

    for (; *p; p++) {
        if (*p == '(')
            open = p + 1;
    }
    if (open == NULL)
        return -1;
    for (i = 0; i < SFU_ERROR_COUNT; i++) {
        const char *name = sfu_errname(i);
        size_t k = 0;

        while (name[k] && open[k] == name[k])
            k++;
        if (name[k] == '\0' && open[k] == ')')
            return i;
    }
    return -1;
}

/* Does s start with p? */
static bool starts(const char *s, const char *p)
{
    while (*p && *s == *p)
        s++, p++;
    return *p == '\0';
}

static void pt_line(void)
{
    line[line_n] = '\0';
    if (starts(line, "thread ") && !starts(line, "thread table")) {
        size_t k = 0;

        while (line[k] && line[k] != ':')
            k++;
        cur_key = hash_str(line, k);
    } else if (ex_streq(line, "backtrace:")) {
        if (got.n < PT_WALKS) {
            cur = &got.w[got.n++];
            cur->key = cur_key;
            cur->stop = -1;
            cur->n = 0;
        } else {
            cur = NULL;
        }
    } else if (starts(line, "backtrace: ") && cur != NULL) {
        cur->stop = stop_of(line);
        cur = NULL;
    }
    line_n = 0;
}

static void pt_write(const char *s, size_t n)
{
    for (; n; n--, s++) {
        if (*s == '\n')
            pt_line();
        else if (line_n + 1 < sizeof line)
            line[line_n++] = *s;
    }
}

static void pt_frame(const struct sfu_dump *d, unsigned n, const sfu_frame *f)
{
    (void)d;
    if (cur != NULL && n < PT_FRAMES) {
        cur->pc[n] = f->pc;
        cur->n = n + 1;
    }
}

/* ---- the description copy --------------------------------------------------- */

static struct sfu_dump_state pt_state;
static struct sfu_dump desc;
static struct sfu_trap_layout traps[PT_TRAPS], sw_traps[PT_TRAPS];
static struct sfu_switch_layout sw;
static struct sfu_dump_table table;

/* The right description, copied into RAM, the dump's output and frames
 * to this file's hooks. */
static void desc_reset(void)
{
    size_t i;

    desc = ex_dump;
    desc.state = &pt_state;
    desc.write = pt_write;
    desc.putc = NULL;
    desc.frame = pt_frame;
    desc.name = NULL;
    for (i = 0; i < ex_dump.ntraps && i < PT_TRAPS; i++)
        traps[i] = ex_dump.traps[i];
    desc.traps = traps;
    table = *ex_dump.threads; /* the image's table (an RTOS's own, or sched-sfu.c's) */
    sw = *ex_dump.threads->layout;
    for (i = 0; i < sw.ntraps && i < PT_TRAPS; i++)
        sw_traps[i] = sw.traps[i];
    /* The switch's trap layouts are the description's own, or its own. */
    if (sw.ntraps != 0)
        sw.traps = ex_dump.threads->layout->traps == ex_dump.traps ? traps : sw_traps;
    table.layout = &sw;
    desc.threads = &table;
}

/* ---- the changes ------------------------------------------------------------ */

/* A field changed: an SFU_AT offset (16 bits) moved by +-8 or left out, a
 * signed offset moved, a byte set to another value. */
static bool at_field(uint16_t *f, unsigned k, bool may_drop)
{
    uint16_t v = *f;

    if (v == 0)
        return false;
    switch (k) {
    case 0: *f = (uint16_t)(v + PT_D); return true;
    case 1: if (v <= PT_D) return false; *f = (uint16_t)(v - PT_D); return true;
    case 2: if (!may_drop) return false; *f = 0; return true;
    }
    return false;
}

/* The k-th change of a trap layout l (how many there are: k past the
 * last answers -1); 1 if made, 0 if this one does not apply. */
#define PT_TRAP_CHANGES (3 * (8 + SFU_PORT_NREGS + 4))
static int trap_change(struct sfu_trap_layout *l, unsigned k)
{
    unsigned field = k / 3, how = k % 3, r;

    if (k >= PT_TRAP_CHANGES)
        return -1;
    switch (field) {
    case 0: /* frame.size */
        if (how == 2)
            return 0;
        l->frame.size = (uint16_t)(how == 0 ? l->frame.size + PT_D : l->frame.size - PT_D);
        return 1;
    case 1: /* frame.off */
        if (how == 2)
            return 0;
        l->frame.off += how == 0 ? PT_D : -PT_D;
        return 1;
    case 2: /* frame.from: each other source */
        l->frame.from = (uint8_t)((l->frame.from + 1u + how) % 4u);
        if (l->frame.from != SFU_TRAP_FRAME_SP && l->frame.ref == NULL)
            l->frame.ref = (const void *)&ex_current;
        return 1;
    case 3: /* frame.ref_off */
        if (l->frame.from < SFU_TRAP_FRAME_PTR || how == 2)
            return 0;
        l->frame.ref_off = (int16_t)(l->frame.ref_off + (how == 0 ? PT_D : -PT_D));
        return 1;
    case 4: /* sp.from: three other rules of the five (SFU_TRAP_SP_*) */
        l->sp.from = (uint8_t)((l->sp.from + 1u + how) % 5u);
        if (l->sp.from == SFU_TRAP_SP_SAVED && l->sp.at == 0)
            l->sp.at = l->regs.reg[SFU_PORT_DWARF_FP];
        if (l->sp.from == SFU_TRAP_SP_VAR && l->sp.var == NULL)
            l->sp.var = (const void *)&ex_current;
        return 1;
    case 5: /* sp.at, sp.add */
        if (l->sp.from == SFU_TRAP_SP_SAVED)
            return at_field(&l->sp.at, how, true) ? 1 : 0;
        if ((l->sp.from != SFU_TRAP_SP_END && l->sp.from != SFU_TRAP_SP_CALL) || how == 2)
            return 0;
        l->sp.add += how == 0 ? PT_D : -PT_D;
        return 1;
    case 6: /* the select word: where, and which value */
        if (l->select.mask == 0)
            return 0;
        if (how == 2) {
            l->select.value ^= l->select.mask & (0u - l->select.mask); /* its lowest bit */
            return 1;
        }
        return at_field(&l->select.at, how, false) ? 1 : 0;
    case 7: /* the select word's source, or no select at all */
        if (l->select.mask == 0)
            return 0;
        if (how == 2) {
            l->select.mask = 0;
            return 1;
        }
        l->select.from = (uint8_t)((l->select.from + 1u + how) % 3u);
        if (l->select.from != SFU_SELECT_FRAME && l->select.ref == NULL)
            l->select.ref = (const void *)&ex_current;
        return 1;
    case 8: /* regs.pc */
        return at_field(&l->regs.pc, how, true) ? 1 : 0;
    case 9: /* regs.mode: moved, left out, or given where there was none */
        if (l->regs.mode == 0) {
            if (how != 0)
                return 0;
            l->regs.mode = (uint16_t)(l->regs.pc + 8u);
            return 1;
        }
        return at_field(&l->regs.mode, how, true) ? 1 : 0;
    case 10: /* the frame's alignment */
        if (how != 0)
            return 0;
        l->frame.align = (uint16_t)(l->frame.align * 2u);
        return 1;
    case 11: /* sp.on_live: turned on where it is off, off where on */
        if (how != 0)
            return 0;
        l->sp.on_live ^= 1u;
        return 1;
    default: /* each register */
        r = field - 12u;
        return at_field(&l->regs.reg[r], how, r == SFU_PORT_DWARF_FP || (int)r == SFU_PORT_DWARF_RA) ? 1 : 0;
    }
}

/* The k-th change of a switch layout s (no trap layouts). */
#define PT_SWITCH_CHANGES (3 * (4 + SFU_PORT_NREGS))
static int switch_change(struct sfu_switch_layout *s, unsigned k)
{
    unsigned field = k / 3, how = k % 3;

    if (k >= PT_SWITCH_CHANGES)
        return -1;
    switch (field) {
    case 0: /* size */
        if (how == 2)
            return 0;
        s->size = (uint16_t)(how == 0 ? s->size + PT_D : s->size - PT_D);
        return 1;
    case 1: /* the SP rule */
        if (s->sp.from == SFU_TRAP_SP_SAVED)
            return at_field(&s->sp.at, how, true) ? 1 : 0;
        if (how == 2) {
            s->sp.from = SFU_TRAP_SP_SAVED;
            s->sp.at = s->regs.reg[SFU_PORT_DWARF_FP];
            return 1;
        }
        s->sp.add += how == 0 ? PT_D : -PT_D;
        return 1;
    case 2:
        return at_field(&s->regs.pc, how, true) ? 1 : 0;
    case 3:
        if (s->regs.mode == 0) {
            if (how != 0)
                return 0;
            s->regs.mode = (uint16_t)(s->regs.pc + 8u);
            return 1;
        }
        return at_field(&s->regs.mode, how, true) ? 1 : 0;
    default:
        return at_field(&s->regs.reg[field - 4u], how, field - 4u == SFU_PORT_DWARF_FP) ? 1 : 0;
    }
}

/* The k-th change of the thread table: its context field, each stack
 * field, the list's next pointer and the lists' link node moved by +-8
 * bytes; the struct's size (an array's stride) +-8; a stack's size (a
 * stack given by its top or base) +-16 bytes. */
#define PT_TABLE_FIELDS (4 + 3 * SFU_DUMP_TABLE_STACKS)
#define PT_TABLE_CHANGES (2 * PT_TABLE_FIELDS)
static int table_change(struct sfu_dump_table *t, unsigned k)
{
    unsigned field = k / 2, how = k % 2;
    struct sfu_dump_field *f;

    if (k >= PT_TABLE_CHANGES)
        return -1;
    if (field == 0) {
        f = t->context.at != 0 ? &t->context : &t->context_in;
    } else if (field == 1) {
        f = &t->next;
    } else if (field == 2) {
        f = &t->link;
    } else if (field == 3) {
        if (t->size <= PT_D)
            return 0;
        t->size = how == 0 ? t->size + PT_D : t->size - PT_D;
        return 1;
    } else {
        struct sfu_dump_span *sp = &t->stacks[(field - 4u) / 3u];

        switch ((field - 4u) % 3u) {
        case 0: f = &sp->lo; break;
        case 1: f = &sp->hi; break;
        default:
            if (sp->size <= 16u)
                return 0;
            sp->size = how == 0 ? sp->size + 16u : sp->size - 16u;
            return 1;
        }
    }
    if (f->at == 0 || (how == 1 && f->at <= PT_D))
        return 0;
    f->at = (uint16_t)(how == 0 ? f->at + PT_D : f->at - PT_D);
    return 1;
}

/* ---- the walks ------------------------------------------------------------- */

/* Every walk of the description being tried: from the timer interrupt,
 * the walk through its trap frame; else each thread of the table, and the
 * running thread.  EX_NOINLINE, called from one place for every
 * description, the truth included: its frame and the return address into
 * its caller are the same in every walk. */
static EX_NOINLINE void walk(bool irq, struct pt_walks *a, struct pt_walks *b)
{
    memset(&pt_state, 0, sizeof pt_state);
    got.n = 0;
    cur = NULL;
    cur_key = irq ? PT_KEY_IRQ : 0;
    if (irq) {
        (void)sfu_dump_stack(&desc);
        *a = got;
        return;
    }
    (void)sfu_dump_threads(&desc);
    *a = got;
    got.n = 0;
    cur_key = PT_KEY_RUNNING;
    (void)sfu_dump_stack(&desc);
    *b = got;
}

static void try_all(bool irq);

/* The same frame: the same PC; or, for the return address into try_all,
 * the same function (the compiler may give its one call a second copy). */
static bool same_pc(uint64_t a, uint64_t b)
{
    const struct sfu_sym *fa, *fb;

    if (a == b)
        return true;
    fa = sfu_symtab_find(ex_dump.symtab, a - 1u);
    fb = sfu_symtab_find(ex_dump.symtab, b - 1u);
    return fa != NULL && fa == fb && fa->addr == (uint64_t)(uintptr_t)try_all;
}

static bool same_walk(const struct pt_walk *a, const struct pt_walk *b)
{
    unsigned i;

    if (a->n != b->n)
        return false;
    for (i = 0; i < a->n; i++) {
        if (!same_pc(a->pc[i], b->pc[i]))
            return false;
    }
    return true;
}

/* A walk's PCs on one line, for a complete-and-wrong one. */
static void print_pcs(const char *what, const struct pt_walk *w)
{
    unsigned i;

    ex_printf("perturb: %s", what);
    for (i = 0; i < w->n; i++)
        ex_printf(" %p", (void *)(uintptr_t)w->pc[i]);
    ex_printf("\n");
}

/* Count the walks of one changed description against the truth. */
static void judge(const char *what, unsigned k, const struct pt_walks *truth, const struct pt_walks *tried)
{
    unsigned i, j;

    for (i = 0; i < truth->n; i++) {
        const struct pt_walk *t = &truth->w[i], *w = NULL;

        for (j = 0; j < tried->n && w == NULL; j++) {
            if (tried->w[j].key == t->key)
                w = &tried->w[j];
        }
        n_walks++;
        if (w == NULL || !SFU_COMPLETE(w->stop)) {
            n_incomplete++;
        } else if (SFU_COMPLETE(t->stop) && same_walk(t, w)) {
            n_equal++;
        } else {
            unsigned d = 0;

            while (d < w->n && d < t->n && same_pc(w->pc[d], t->pc[d]))
                d++;
            n_wrong++;
            ex_printf("perturb: complete and wrong: %s change %u, walk %u: %u frames, %s; the truth %u frames, %s; "
                      "frame #%u: %p, the truth's %p\n",
                      what, k, i, w->n, sfu_errname(w->stop), t->n, sfu_errname(t->stop), d,
                      (void *)(uintptr_t)(d < w->n ? w->pc[d] : 0), (void *)(uintptr_t)(d < t->n ? t->pc[d] : 0));
            print_pcs("  the walk: ", w);
            print_pcs("  the truth:", t);
        }
    }
    /* A walk the truth has not (a thread it does not list). */
    for (j = 0; j < tried->n; j++) {
        bool known = false;

        for (i = 0; i < truth->n && !known; i++)
            known = truth->w[i].key == tried->w[j].key;
        if (known)
            continue;
        n_walks++;
        if (!SFU_COMPLETE(tried->w[j].stop)) {
            n_incomplete++;
        } else {
            n_wrong++;
            ex_printf("perturb: complete and wrong: %s change %u, a walk of a thread the truth has not\n", what, k);
        }
    }
}

/* Try every change of every part, with walk(): the truth first. */
enum pt_part { PT_TRAP, PT_SWITCH, PT_SWITCH_TRAP, PT_TABLE };
static const char *const part_names[] = { "trap layout", "switch layout", "switch's trap layout", "thread table" };

/* The k-th change of part `part` (its idx-th layout), made in the
 * description copy: 1, 0 if it does not apply, -1 past the last. */
static int change(unsigned part, unsigned idx, unsigned k)
{
    switch (part) {
    case PT_TRAP: return trap_change(&traps[idx], k);
    case PT_SWITCH_TRAP: return trap_change(&sw_traps[idx], k);
    case PT_SWITCH: return switch_change(&sw, k);
    default: return table_change(&table, k);
    }
}

/* How many layouts of part `part` this image's description has. */
static unsigned layouts_of(unsigned part)
{
    const struct sfu_switch_layout *l = ex_dump.threads->layout;

    switch (part) {
    case PT_TRAP: return (unsigned)ex_dump.ntraps;
    case PT_SWITCH_TRAP: return l->traps != ex_dump.traps ? (unsigned)l->ntraps : 0u;
    case PT_SWITCH: return l->ntraps == 0 ? 1u : 0u;
    default: return 1u;
    }
}

/* Every change of every part, each walked (from the interrupt, or from
 * the thread), the truth first: part PT_TRUTH, no change. */
#define PT_TRUTH 99u
static void try_all(bool irq)
{
    static struct pt_walks a, b;
    unsigned part = PT_TRUTH, idx = 0, k = 0, next_part = PT_TRAP;
    int made = 1;

    for (;;) {
        desc_reset();
        if (part != PT_TRUTH) {
            made = change(part, idx, k);
            if (made < 0) {
                /* The next layout of this part, or the next part. */
                k = 0;
                if (++idx >= layouts_of(part) || idx >= PT_TRAPS) {
                    idx = 0;
                    do
                        part = next_part++;
                    while (part <= PT_TABLE && layouts_of(part) == 0);
                    if (part > PT_TABLE)
                        return;
                }
                continue;
            }
            k++;
            if (made == 0)
                continue;
            n_descs++;
        }
        walk(irq, &a, &b);
        if (part == PT_TRUTH) {
            if (irq) {
                truth_irq = a;
            } else {
                truth_threads = a;
                truth_running = b;
            }
            do
                part = next_part++;
            while (part <= PT_TABLE && layouts_of(part) == 0);
            continue;
        }
        if (irq) {
            judge(part_names[part], k - 1u, &truth_irq, &a);
        } else {
            judge(part_names[part], k - 1u, &truth_threads, &a);
            judge(part_names[part], k - 1u, &truth_running, &b);
        }
    }
}

/* ---- the scenario ------------------------------------------------------------- */

static volatile int sleeper_blocked, spinner_parked, irq_armed;
static struct ex_thread *pt_sleeper_t, *pt_spinner_t;

EX_NOINLINE void pt_sleeper_wait(void);
EX_NOINLINE EX_NORETURN void pt_sleeper(void *arg);
EX_NOINLINE EX_NORETURN void pt_spinner(void *arg);
EX_NOINLINE EX_NORETURN void pt_fresh(void *arg);
EX_NOINLINE void pt_work(void);
EX_NOINLINE EX_NORETURN void pt_main(void *arg);

EX_NOINLINE void pt_sleeper_wait(void)
{
    sleeper_blocked = 1;
    ex_thread_block();
}

EX_NOINLINE EX_NORETURN void pt_sleeper(void *arg)
{
    (void)arg;
    for (;;)
        pt_sleeper_wait();
}

EX_NOINLINE EX_NORETURN void pt_spinner(void *arg)
{
    (void)arg;
    leaf_park(&spinner_parked);
}

EX_NOINLINE EX_NORETURN void pt_fresh(void *arg)
{
    (void)arg;
    panic("perturb: the fresh thread ran");
}

/* The timer's hook (ex_tick): every description walked from inside the
 * interrupt, through its trap frame, into pt_work's spin. */
void ex_perturb_tick(void)
{
    if (!irq_armed)
        return;
    try_all(true);
    irq_armed = 0;
}

EX_NOINLINE void pt_work(void)
{
    /* Armed, then interrupted: the walks run in the handler, which
     * disarms. */
    irq_armed = 1;
    while (irq_armed)
        __asm__ volatile("");
}

/* Is every walk of the truth complete?  A truth that is not would make
 * every changed description look harmless (said, then the scenario
 * fails). */
static bool truth_complete(void)
{
    const struct pt_walks *all[3] = { &truth_threads, &truth_running, &truth_irq };
    bool ok = true;
    unsigned i, j;

    for (i = 0; i < 3; i++) {
        for (j = 0; j < all[i]->n; j++) {
            if (!SFU_COMPLETE(all[i]->w[j].stop)) {
                ex_printf("perturb: the truth's walk %u of %u is incomplete: %u frames, %s\n", j, i, all[i]->w[j].n,
                          sfu_errname(all[i]->w[j].stop));
                ok = false;
            }
        }
    }
    return ok;
}

EX_NOINLINE EX_NORETURN void pt_main(void *arg)
{
    (void)arg;
    /* Until the sleeper is blocked and the spinner parked for good: their
     * contexts then stay as they are. */
    while (!sleeper_blocked || pt_sleeper_t->state != EX_THREAD_BLOCKED || !spinner_parked ||
           pt_spinner_t->state != EX_THREAD_PREEMPTED)
        __asm__ volatile("");
    pt_work();
    board_timer_stop();
    EX_IRQ_OFF();
    /* A thread that never runs: the timer is off. */
    (void)ex_thread_create("fresh", pt_fresh, NULL);
    try_all(false);
    ex_printf("perturb: %lu descriptions tried, %u threads, %u running, %u interrupt walks in the truth\n", n_descs,
              truth_threads.n, truth_running.n, truth_irq.n);
    ex_printf("perturb: %lu walks, %lu complete and equal, %lu incomplete, %lu complete and wrong\n", n_walks, n_equal,
              n_incomplete, n_wrong);
    board_exit(n_wrong == 0 && n_walks > 0 && truth_threads.n >= 3 && truth_irq.n == 1 && truth_complete()
                   ? EX_PASS
                   : EX_FAIL);
}

EX_NORETURN void ex_perturb_scenario(void)
{
    pt_sleeper_t = ex_thread_create("sleeper", pt_sleeper, NULL);
    pt_spinner_t = ex_thread_create("spinner", pt_spinner, NULL);
    (void)ex_thread_create("main", pt_main, NULL);
    board_timer_start(1000);
    ex_sched_start();
}
