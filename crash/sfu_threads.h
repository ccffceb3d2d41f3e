/* SPDX-License-Identifier: MIT */
/* sfu_threads.h - every thread's backtrace (step 3): the kernel's threads
 * described once, as data, and dumped by sfu_dump_threads.
 *
 * USAGE
 *   Include it instead of sfu_dump.h (it includes sfu_dump.h) in the file
 *   with SFU_IMPLEMENTATION, and give the description its table:
 *
 *       #define SFU_IMPLEMENTATION
 *       #include "sfu_threads.h"
 *
 *       static const struct sfu_dump_table threads = {
 *           SFU_DUMP_ARRAY(struct thread, thread_array, MAX_THREADS),
 *           SFU_DUMP_SAVED(struct thread, ctx, &switch_layout),
 *           SFU_DUMP_INFO(struct thread, id, name, state, state_names),
 *           SFU_DUMP_STACKS(struct thread, stack_lo, stack_hi),
 *           .current = &current_thread,
 *       };
 *       static struct sfu_dump_state dump_state;
 *       static const struct sfu_dump dump = {
 *           SFU_DUMP_PUTC_FIELDS(&dump_state, board_putc, traps, 1), .threads = &threads };
 *
 *       ... in panic():  sfu_dump_stack(&dump); sfu_dump_threads(&dump);
 *
 *   An image that dumps no thread links none of this.  With a table, every
 *   dump of the running thread (sfu_dump_stack, _trap, _regs) is bounded
 *   by that thread's stacks (the table's .current and .stacks), as every
 *   other thread's walk is by its own.
 *
 * A THREAD TABLE
 *   Most kernels keep their threads in an array or a linked list of one
 *   struct.  Describe that struct once and sfu_dump_threads walks it
 *   itself: for each thread it reads the fields below, builds the thread's
 *   port (its reads and bounds: the thread's own stacks and the shared
 *   ones) in the dump's state, prints the header line
 *       thread ID NAME: STATE, stack 0xLO .. 0xHI[, 0xLO .. 0xHI ...]
 *   and walks the thread from its saved context.
 *
 *   where     one of:
 *             array  `count` structs of `size` bytes from `array`
 *                    (SFU_DUMP_ARRAY);
 *             ptrs   an array of `count` pointers to them, NULL for a free
 *                    slot (`struct task_struct *task[NR_TASKS]`:
 *                    SFU_DUMP_PTRS);
 *             head   a list: the address of the variable holding the first
 *                    thread's address, `next` the field holding the next
 *                    one's, NULL ending it, `count` the most followed
 *                    (SFU_DUMP_LIST); with `ring` a circular list that
 *                    ends where it comes back to its first thread
 *                    (ThreadX's created list: SFU_DUMP_RING), no count to
 *                    keep up to date;
 *             lists  circular lists through a node kept in each struct,
 *                    each closed by a head node of its own (FreeRTOS's
 *                    state lists, Linux's list_head), each with the state
 *                    its threads are in: `link` the node's field, `next`
 *                    the field of the node's next pointer, which points at
 *                    the next node (SFU_DUMP_LISTS)
 *             A ring or lists follow at most `count` threads (0:
 *             SFU_DUMP_MAX_THREADS), and say so if there are more; a list
 *             pointer is read through the checked read, the head variable
 *             and a pointer array as they are (the user named them).
 *   context   the field holding the address of the thread's saved context,
 *             as `layout` describes it (struct sfu_switch_layout; one with
 *             trap layouts for an RTOS whose saved context is a trap
 *             frame): SFU_DUMP_SAVED; or, with `context_in`, the context
 *             kept in the struct itself (Linux's thread.cpu_context:
 *             SFU_DUMP_SAVED_IN).  A context that lies outside the
 *             thread's stacks is read in the description's memory.
 *   id, name  (optional) for the header line.  No id field: the header
 *             shows no number (a list position is no identity); a name
 *             field holding a pointer (`name`), or a name kept in the
 *             struct, `char name[N]` (`name_in`, SFU_DUMP_NAME_IN: read
 *             through the checked read, N bytes at most)
 *   state     (optional) an integer field; states[value] is the text of the
 *             header line, NULL for a slot not in use (a free TCB: not
 *             dumped); a value past nstates prints "?" (lists: each list's
 *             state instead)
 *   stacks    up to SFU_DUMP_TABLE_STACKS per thread (its own, its own
 *             exception stack): the fields of the lowest and highest
 *             address (SFU_DUMP_STACK), the base and a size field
 *             (SFU_DUMP_STACK_SIZE), or one field and a size every thread
 *             shares: its top (SFU_DUMP_STACK_TOP) or its base
 *             (SFU_DUMP_STACK_BASE, Linux's task->stack and THREAD_SIZE);
 *             plus shared[0..nshared) every thread may trap onto
 *             (interrupt and exception stacks)
 *   current   (optional) the address of the kernel's pointer to the running
 *             thread: that thread is not dumped (its stack is the caller's:
 *             sfu_dump_stack shows it), and the other dumps are bounded by
 *             its stacks
 *
 *   Each thread's walk reads its own control block where a layout says
 *   "the TCB" (sfu_layout.h, THE THREAD'S CONTROL BLOCK: its FP flag, not
 *   the running thread's).  A thread whose saved context is all zeros
 *   never ran: at the top of its stack that is its whole dump ("never
 *   ran", SFU_END_NEVER_RAN), elsewhere a misread (SFU_E_ZERO_RA).
 *
 *   Every field is named by SFU_DUMP_FIELD(type, member): its offset and
 *   size (1, 2, 4 or 8 bytes; the address fields 4 or 8); a field left out
 *   is zero, i.e. absent.  Fields are read through the dump's checked read
 *   (the thread structs must lie in its memory) as little-endian integers.
 *   sfu_dump_check checks the table with the rest of the description:
 *   a bad one is refused with one line naming the field, never walked.
 *
 * Kernels whose threads are in no table keep an iterator
 * (sfu_dump_threads_iter).
 *
 * CONFIGURATION
 *   SFU_DUMP_TABLE_STACKS    stacks a table names per thread (1-8)  (default 2)
 *   SFU_DUMP_MAX_THREADS     most threads a table may hold (1-65536)
 *                                                                (default 4096)
 */
#ifndef SFU_THREADS_H
#define SFU_THREADS_H

#if defined(SFU_IMPLEMENTATION) && defined(SFU_DUMP_IMPLEMENTATION_DONE) && !SFU_DUMP_THREADS
#error "include sfu_threads.h before sfu_dump.h (or instead of it) in the file with SFU_IMPLEMENTATION"
#endif
#ifndef SFU_DUMP_THREADS
#define SFU_DUMP_THREADS 1
#endif
#include "sfu_dump.h"

#ifndef SFU_DUMP_TABLE_STACKS
#define SFU_DUMP_TABLE_STACKS 2
#endif
#if SFU_DUMP_TABLE_STACKS < 1 || SFU_DUMP_TABLE_STACKS > 8
#error "SFU_DUMP_TABLE_STACKS must be between 1 and 8"
#endif
#ifndef SFU_DUMP_MAX_THREADS
#define SFU_DUMP_MAX_THREADS 4096
#endif
#if SFU_DUMP_MAX_THREADS < 1 || SFU_DUMP_MAX_THREADS > 65536
#error "SFU_DUMP_MAX_THREADS must be between 1 and 65536"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A field of the thread struct: offset + 1 (0: absent) and size. */
struct sfu_dump_field {
    uint16_t at;
    uint8_t size;
};
#define SFU_DUMP_FIELD(type, member) { (uint16_t)(offsetof(type, member) + 1u), (uint8_t)sizeof(((type *)0)->member) }

/* A stack of the thread (kind): [lo, hi] from two fields (LO_HI); [base,
 * base + size] from a base and a size field (BASE_SIZE); [top - size,
 * top] or [base, base + size] from one field (lo) and the size every
 * thread's stack has (TOP, BASE). */
enum sfu_dump_span_kind { SFU_DUMP_SPAN_LO_HI = 0, SFU_DUMP_SPAN_BASE_SIZE, SFU_DUMP_SPAN_TOP, SFU_DUMP_SPAN_BASE };
struct sfu_dump_span {
    struct sfu_dump_field lo, hi;
    uint8_t kind;
    uint64_t size;
};
#define SFU_DUMP_STACK(type, lo, hi) { SFU_DUMP_FIELD(type, lo), SFU_DUMP_FIELD(type, hi), SFU_DUMP_SPAN_LO_HI, 0 }
#define SFU_DUMP_STACK_SIZE(type, base, size)                                                        \
    { SFU_DUMP_FIELD(type, base), SFU_DUMP_FIELD(type, size), SFU_DUMP_SPAN_BASE_SIZE, 0 }
#define SFU_DUMP_STACK_TOP(type, top, size_) { SFU_DUMP_FIELD(type, top), { 0, 0 }, SFU_DUMP_SPAN_TOP, (size_) }
#define SFU_DUMP_STACK_BASE(type, base, size_) { SFU_DUMP_FIELD(type, base), { 0, 0 }, SFU_DUMP_SPAN_BASE, (size_) }

/* One list of SFU_DUMP_LISTS: its head node, and the state of the
 * threads on it. */
struct sfu_dump_list {
    const void *head;
    const char *state;
};

struct sfu_dump_table {
    const void *array;       /* the threads, an array; or NULL and: */
    const void *head;        /* the address of the list's head pointer */
    size_t count;            /* the array's length; a list's most threads */
    size_t size;             /* sizeof the thread struct */
    struct sfu_dump_field next; /* a list's next pointer */
    struct sfu_dump_field context;
    const struct sfu_switch_layout *layout;
    struct sfu_dump_field id, name, state;
    const char *const *states;
    size_t nstates;
    struct sfu_dump_span stacks[SFU_DUMP_TABLE_STACKS];
    const sfu_stack *shared;
    size_t nshared;
    const void *current;     /* the address of the running-thread pointer */
    const void *const *ptrs; /* an array of count thread pointers */
    bool ring;               /* the list from head is circular */
    const struct sfu_dump_list *lists; /* lists with head nodes, nlists */
    size_t nlists;
    struct sfu_dump_field link;       /* the node the lists link, in the struct */
    struct sfu_dump_field name_in;    /* a name kept in the struct (char[N]) */
    struct sfu_dump_field context_in; /* a saved context kept in the struct */
};

/* The lines a description usually is, as designated initializers:
 *   SFU_DUMP_ARRAY(T, threads, n)            an array of n struct T
 *   SFU_DUMP_PTRS(T, task, n)                an array of n pointers to T
 *   SFU_DUMP_LIST(T, &head, next, max)       a list through T.next
 *   SFU_DUMP_RING(T, &head, next)            a circular list through T.next
 *   SFU_DUMP_LISTS(T, node, node.next, lists) circular lists through the
 *                                            node T.node, each closed by
 *                                            a head node: lists an array
 *                                            of struct sfu_dump_list
 *   SFU_DUMP_SAVED(T, ctx, &layout)          the saved-context field
 *   SFU_DUMP_SAVED_IN(T, ctx, &layout)       the context kept in T
 *   SFU_DUMP_INFO(T, id, name, state, names) header fields; names an
 *                                            array (its length is taken)
 *   SFU_DUMP_ID(T, id), SFU_DUMP_NAME(T, name), SFU_DUMP_NAME_IN(T, name),
 *   SFU_DUMP_STATE(T, state, names)          the same one at a time
 *                                            (a name pointer's text is
 *                                            read through the checked
 *                                            read, like every word of the
 *                                            kernel's memory: names kept
 *                                            in flash need its range in
 *                                            the description's RAM list,
 *                                            else "?")
 *   SFU_DUMP_STACKS(T, lo, hi)               one stack per thread
 *   SFU_DUMP_STACKS2(T, lo, hi, lo2, hi2)    two (its own, its exception
 *                                            stack)
 *   .stacks = { SFU_DUMP_STACK_TOP(T, top, size) } and the other spans */
#define SFU_DUMP_ARRAY(T, array_, n) .array = (array_), .count = (n), .size = sizeof(T)
#define SFU_DUMP_PTRS(T, ptrs_, n) .ptrs = (const void *const *)(ptrs_), .count = (n), .size = sizeof(T)
#define SFU_DUMP_LIST(T, head_, next_, max) .head = (head_), .count = (max), .size = sizeof(T), .next = SFU_DUMP_FIELD(T, next_)
#define SFU_DUMP_RING(T, head_, next_) .head = (head_), .ring = true, .size = sizeof(T), .next = SFU_DUMP_FIELD(T, next_)
#define SFU_DUMP_LISTS(T, node_, next_, lists_)                                                   \
    .lists = (lists_), .nlists = sizeof(lists_) / sizeof((lists_)[0]), .size = sizeof(T),          \
    .link = SFU_DUMP_FIELD(T, node_), .next = SFU_DUMP_FIELD(T, next_)
#define SFU_DUMP_SAVED(T, ctx_, layout_) .context = SFU_DUMP_FIELD(T, ctx_), .layout = (layout_)
#define SFU_DUMP_SAVED_IN(T, ctx_, layout_) .context_in = SFU_DUMP_FIELD(T, ctx_), .layout = (layout_)
#define SFU_DUMP_INFO(T, id_, name_, state_, names_)                                               \
    .id = SFU_DUMP_FIELD(T, id_), .name = SFU_DUMP_FIELD(T, name_), .state = SFU_DUMP_FIELD(T, state_), \
    .states = (names_), .nstates = sizeof(names_) / sizeof((names_)[0])
#define SFU_DUMP_ID(T, id_) .id = SFU_DUMP_FIELD(T, id_)
#define SFU_DUMP_NAME(T, name_) .name = SFU_DUMP_FIELD(T, name_)
#define SFU_DUMP_NAME_IN(T, name_) .name_in = SFU_DUMP_FIELD(T, name_)
#define SFU_DUMP_STATE(T, state_, names_)                                                          \
    .state = SFU_DUMP_FIELD(T, state_), .states = (names_), .nstates = sizeof(names_) / sizeof((names_)[0])
#define SFU_DUMP_STACKS(T, lo, hi) .stacks = { SFU_DUMP_STACK(T, lo, hi) }
#define SFU_DUMP_STACKS2(T, lo, hi, lo2, hi2) .stacks = { SFU_DUMP_STACK(T, lo, hi), SFU_DUMP_STACK(T, lo2, hi2) }

/* Dump every thread of d->threads but the running one: its header line
 * and its backtrace, each walk bounded by that thread's stacks.  A list
 * pointer that cannot be read ends the dump with a line and SFU_E_READ; a
 * thread whose stacks are empty is refused alone (SFU_E_ARG on its line).
 * Returns the last walk's stop code (SFU_OK if there was no thread to
 * dump), SFU_E_ARG without a table. */
SFU_DEF int sfu_dump_threads(const struct sfu_dump *d);

/* Dump every thread next(arg, 0), next(arg, 1), ... gives: the header
 * line, then its backtrace from the first of these that is set:
 *   regs             registers the kernel keeps for the thread
 *   layout, context  the context its switch routine saved at `context`
 *   trap, frame      a trap frame at `frame`
 *   none of them     the running thread: its frame #0 is
 *                    sfu_dump_threads_iter itself
 * port: the walk's port, normally the thread's own (sfu_port_thread_init:
 * that thread's stacks only); NULL: the description's.  Its ctx must be a
 * struct sfu_port_ctx (the saved context and the trap frame are read
 * through its checks).  The dump clears every field before each call;
 * the iterator fills what it has and returns true, or false after the
 * last.  Returns the last walk's stop code (SFU_OK if it gave none). */
SFU_DEF int sfu_dump_threads_iter(const struct sfu_dump *d, sfu_dump_next_fn next, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* SFU_THREADS_H */

/* ======================================================================== */
#ifdef SFU_IMPLEMENTATION
#ifndef SFU_THREADS_IMPLEMENTATION_DONE
#define SFU_THREADS_IMPLEMENTATION_DONE

SFU_CODEGEN_BEGIN

/* A field f is absent, or fits the struct, with a size it can have (an
 * address: 4 or 8 bytes), at an offset that is a multiple of it. */
static bool sfu__dump_field_ok(const struct sfu_dump_table *t, struct sfu_dump_field f, bool addr)
{
    if (f.at == 0)
        return f.size == 0;
    if (f.size != 8 && f.size != 4 && (addr || (f.size != 1 && f.size != 2)))
        return false;
    return (f.at - 1u) % f.size == 0 && (size_t)(f.at - 1u) + f.size <= t->size;
}

/* A field f of any size inside the struct (a node, a name, a context kept
 * in it): absent, or inside. */
static bool sfu__dump_member_ok(const struct sfu_dump_table *t, struct sfu_dump_field f)
{
    return f.at == 0 ? f.size == 0 : f.size != 0 && (size_t)(f.at - 1u) + f.size <= t->size;
}

/* Where the table's threads are: its rule, NULL if it keeps it. */
static const char *sfu__dump_where_rule(const struct sfu_dump_table *t)
{
    size_t i;

    if ((t->array != NULL) + (t->ptrs != NULL) + (t->head != NULL) + (t->lists != NULL) != 1)
        return "none of array, ptrs, head and lists, or more than one";
    if (t->ring && t->head == NULL)
        return "ring: only with a head (SFU_DUMP_RING)";
    if (t->count > SFU_DUMP_MAX_THREADS || (t->count == 0 && !t->ring && t->lists == NULL))
        return "count: 0 or over SFU_DUMP_MAX_THREADS (a ring and lists may leave it 0)";
    if ((uint64_t)(uintptr_t)t->array > UINT64_MAX - (uint64_t)t->count * t->size)
        return "array: runs past the end of the address space";
    if ((t->head != NULL || t->lists != NULL) && t->next.at == 0)
        return "next: missing for a list";
    if (t->lists != NULL && t->nlists == 0)
        return "lists: nlists is 0";
    if (t->lists != NULL && t->link.at == 0)
        return "link: missing for lists (the node each struct keeps)";
    if (!sfu__dump_member_ok(t, t->link))
        return "link: past the struct";
    if (t->link.at != 0 && (t->next.at < t->link.at || t->next.at + t->next.size > t->link.at + t->link.size))
        return "next: not a field of the link node";
    for (i = 0; t->lists != NULL && i < t->nlists; i++) {
        if (t->lists[i].head == NULL || ((uintptr_t)t->lists[i].head & 7u) != 0)
            return "lists[].head: missing or not 8-byte aligned";
    }
    return NULL;
}

SFU__DUMP_FN const char *sfu__dump_table_rule(const struct sfu_dump_table *t, const char **part, size_t *index)
{
    const char *w = NULL;
    size_t i, n = 0;

    *part = "threads";
    *index = (size_t)-1;
    if (t->size == 0 || t->size > 0xffffu)
        return "size: 0 or over 65535";
    if ((w = sfu__dump_where_rule(t)) != NULL)
        return w;
    if ((t->context.at == 0) == (t->context_in.at == 0))
        return "context: neither context nor context_in, or both";
    if (!sfu__dump_field_ok(t, t->context, true))
        return "context: past the struct, or not a 4- or 8-byte field at its alignment";
    if (!sfu__dump_member_ok(t, t->context_in) || (t->context_in.at != 0 && (t->context_in.at - 1u) % 8u != 0))
        return "context_in: past the struct, or not at a multiple of 8 in it";
    if (!sfu__dump_field_ok(t, t->next, true))
        return "next: past the struct, or not a 4- or 8-byte field at its alignment";
    if (!sfu__dump_field_ok(t, t->id, false))
        return "id: past the struct, or not a 1-, 2-, 4- or 8-byte field at its alignment";
    if (!sfu__dump_field_ok(t, t->state, false))
        return "state: past the struct, or not a 1-, 2-, 4- or 8-byte field at its alignment";
    if ((t->name.at != 0 && t->name.size != sizeof(const char *)) || !sfu__dump_field_ok(t, t->name, true))
        return "name: not a pointer field inside the struct (a name kept in it, char name[N]: name_in, "
               "SFU_DUMP_NAME_IN)";
    if (!sfu__dump_member_ok(t, t->name_in) || (t->name.at != 0 && t->name_in.at != 0))
        return "name_in: past the struct, or given with name";
    for (i = 0; i < SFU_DUMP_TABLE_STACKS; i++) {
        const struct sfu_dump_span *s = &t->stacks[i];

        if (s->lo.at == 0 && s->hi.at == 0 && s->kind == SFU_DUMP_SPAN_LO_HI)
            continue;
        *part = "threads.stacks";
        *index = i;
        if (!sfu__dump_field_ok(t, s->lo, true) || !sfu__dump_field_ok(t, s->hi, true))
            return "stacks: a field past the struct, or not a 4- or 8-byte field at its alignment";
        if (s->kind > SFU_DUMP_SPAN_BASE)
            return "stacks: kind not one of SFU_DUMP_SPAN_*";
        if (s->kind <= SFU_DUMP_SPAN_BASE_SIZE && (s->lo.at == 0 || s->hi.at == 0))
            return "stacks: one field of the two only";
        if (s->kind >= SFU_DUMP_SPAN_TOP && (s->lo.at == 0 || s->hi.at != 0 || s->size == 0))
            return "stacks: a top or a base needs its field and a size, and no second field";
        n++;
    }
    *part = "threads.layout";
    *index = (size_t)-1;
    if (sfu_switch_check(t->layout, &w) != SFU_OK) {
        /* A trap layout of the switch: which one, and its own rule. */
        for (i = 0; t->layout != NULL && t->layout->traps != NULL && i < t->layout->ntraps; i++) {
            const char *r = sfu__frame_check(&t->layout->traps[i]);

            if (r != NULL) {
                *part = "threads.layout.traps";
                *index = i;
                return r;
            }
        }
        return w; /* "no switch layout", or its rule */
    }
    *part = "threads";
    if (t->state.at != 0 && (t->states == NULL || t->nstates == 0))
        return "state: a field without state names";
    if ((t->shared == NULL && t->nshared != 0) || n + t->nshared == 0)
        return "stacks: none, neither the thread's nor shared ones";
    if (n + t->nshared > SFU_PORT_THREAD_STACKS)
        return "stacks: more than SFU_PORT_THREAD_STACKS, the thread's and the shared ones";
    return NULL;
}

/* The crash record's copy of a name kept in a thread's memory (at
 * most max bytes, 0: the record's room), read through the checked read
 * like the header's: a name is a pointer the kernel's memory gives, never
 * read directly.  Only when the description has a record. */
static SFU__DUMP_NOINLINE void sfu__dump_rec_name(const struct sfu_dump *d, uint64_t at, size_t max);

/* The word (size bytes, 8 at most) at addr, through the dump's checked
 * read (little-endian, zero-extended); false if not readable or not at a
 * multiple of size. */
static SFU__DUMP_NOINLINE bool sfu__dump_word(const struct sfu_dump *d, uint64_t addr, unsigned size, uint64_t *v)
{
    uint64_t w = 0;

    if ((addr & (size - 1u)) != 0 || sfu_port_read((void *)(uintptr_t)&d->state->base, addr & ~(uint64_t)7, &w) != 0)
        return false;
    w >>= 8u * (addr & 7u);
    *v = size == 8 ? w : w & ((UINT64_C(1) << (8u * size)) - 1u);
    return true;
}

static SFU__DUMP_NOINLINE void sfu__dump_rec_name(const struct sfu_dump *d, uint64_t at, size_t max)
{
    struct sfu_dump_state *st = d->state;
    uint64_t w = 0;
    size_t i;

    if (d->record == NULL || at == 0)
        return;
    if (max == 0 || max > SFU_CRASH_T_NAME - 1u)
        max = SFU_CRASH_T_NAME - 1u;
    for (i = 0; i < max && sfu__dump_word(d, at + i, 1, &w) && w != 0; i++)
        st->rec.namebuf[i] = (char)w;
    st->rec.namebuf[i] = '\0';
    st->rec.name = st->rec.namebuf;
}

/* Field f of the thread struct at obj, through the dump's checked read;
 * false if absent or not readable. */
static bool sfu__dump_field(const struct sfu_dump *d, uint64_t obj, struct sfu_dump_field f, uint64_t *v)
{
    return f.at != 0 && sfu__dump_word(d, obj + f.at - 1u, f.size, v);
}

/* The port of the thread struct at obj, in the state: its stacks, then
 * the shared ones; the walk's control block is the struct.  false if a
 * stack cannot be read or is empty. */
static SFU__DUMP_NOINLINE bool sfu__dump_table_port(const struct sfu_dump *d, const struct sfu_dump_table *t,
                                                    uint64_t obj)
{
    struct sfu_port_thread *pt = &d->state->port;
    size_t i, n = 0;
    uint64_t lo = 0, hi = 0;

    for (i = 0; i < SFU_DUMP_TABLE_STACKS; i++) {
        const struct sfu_dump_span *s = &t->stacks[i];

        if (s->lo.at == 0)
            continue;
        if (!sfu__dump_field(d, obj, s->lo, &lo))
            return false;
        if (s->kind <= SFU_DUMP_SPAN_BASE_SIZE && !sfu__dump_field(d, obj, s->hi, &hi))
            return false;
        if (s->kind == SFU_DUMP_SPAN_TOP) {
            hi = lo;
            lo = hi - s->size;
            if (s->size > hi)
                return false;
        } else if (s->kind != SFU_DUMP_SPAN_LO_HI) {
            if (s->kind == SFU_DUMP_SPAN_BASE)
                hi = s->size;
            if (hi > UINT64_MAX - lo)
                return false;
            hi += lo;
        }
        pt->stacks[n].lo = lo;
        pt->stacks[n].hi = hi;
        n++;
    }
    for (i = 0; i < t->nshared; i++, n++) {
        pt->stacks[n].lo = t->shared[i].lo;
        pt->stacks[n].hi = t->shared[i].hi;
    }
    if (sfu_port_thread_init(pt, &d->state->base, pt->stacks, n) != SFU_OK)
        return false;
    pt->ctx.tcb = obj;
    return true;
}

/* The running thread of the table, by its .current pointer (the kernel's
 * variable, read as given): its port in the state (1; 0: none running;
 * -1: its stacks cannot be read).  Only for a table that passes the check
 * (a dump checks before it walks). */
SFU__DUMP_FN int sfu__dump_current_port(const struct sfu_dump *d)
{
    const struct sfu_dump_table *t = d->threads;
    const char *part;
    size_t index;
    uint64_t cur, v = 0;

    if (t->current == NULL || sfu__dump_table_rule(t, &part, &index) != NULL)
        return 0;
    cur = (uint64_t)*(const volatile uintptr_t *)t->current;
    if (cur == 0)
        return 0;
    /* Its name, for the crash record's block (read as the header line
     * reads a thread's). */
    if (t->name.at != 0 && sfu__dump_field(d, cur, t->name, &v))
        sfu__dump_rec_name(d, v, 0);
    else if (t->name_in.at != 0)
        sfu__dump_rec_name(d, cur + t->name_in.at - 1u, t->name_in.size);
    return sfu__dump_table_port(d, t, cur) ? 1 : -1;
}

/* The struct of the table's next thread into *obj (its state text, for
 * lists, into *state): 1, 0 after the last, -1 if a list pointer cannot
 * be read (*obj: where it was). */
static SFU__DUMP_NOINLINE int sfu__dump_table_obj(const struct sfu_dump *d, uint64_t *obj, const char **state)
{
    struct sfu_dump_state *st = d->state;
    const struct sfu_dump_table *t = st->th.t;
    size_t max = t->count ? t->count : SFU_DUMP_MAX_THREADS;
    uint64_t link = t->link.at ? t->link.at - 1u : 0u, next = 0;

    for (;;) {
        if (st->th.k >= max) {
            /* A ring or lists with more threads than they may follow:
             * said, never silently fewer. */
            if ((t->ring || t->lists != NULL) && st->th.at != 0 && st->th.at != st->th.first) {
                sfu_dump_str(d, "thread table: more than ");
                sfu_dump_dec(d, max);
                sfu_dump_str(d, " threads (count, SFU_DUMP_MAX_THREADS), or a loop in the list\n");
            }
            return 0;
        }
        if (t->array != NULL) {
            *obj = (uint64_t)(uintptr_t)t->array + (uint64_t)st->th.k++ * t->size;
            return 1;
        }
        if (t->ptrs != NULL) {
            /* The kernel's array, named by the user: read as it is. */
            *obj = (uint64_t)(uintptr_t)*(const void *const volatile *)&t->ptrs[st->th.k++];
            if (*obj != 0)
                return 1;
            continue;
        }
        if (t->lists != NULL && st->th.at == st->th.first) {
            /* The next list: from its head node's next pointer. */
            if (st->th.list >= t->nlists)
                return 0;
            st->th.first = (uint64_t)(uintptr_t)t->lists[st->th.list++].head;
            *obj = st->th.first;
            if (!sfu__dump_word(d, st->th.first + (t->next.at - 1u - link), t->next.size, &st->th.at))
                return -1;
            continue;
        }
        if (st->th.at == 0 || (t->ring && st->th.k != 0 && st->th.at == st->th.first))
            return 0;
        /* The node at th.at, in the struct at th.at - link (a plain
         * list's last one followed: its next pointer is not read). */
        *obj = st->th.at - link;
        if ((t->ring || t->lists != NULL || st->th.k + 1u < max) &&
            !sfu__dump_word(d, *obj + t->next.at - 1u, t->next.size, &next))
            return -1;
        st->th.k++;
        st->th.at = next;
        if (t->lists != NULL)
            *state = t->lists[st->th.list - 1u].state;
        return 1;
    }
}

/* The next thread of the table to dump, into *dt: 1, or 2 if its stacks
 * are refused (dt->frame: its struct), or 0 after the last (a struct or a
 * list pointer that cannot be read: said, th.err SFU_E_READ). */
static SFU__DUMP_NOINLINE int sfu__dump_table_next(const struct sfu_dump *d, struct sfu_dump_thread *dt)
{
    struct sfu_dump_state *st = d->state;
    const struct sfu_dump_table *t = st->th.t;
    uint64_t obj = 0, v = 0, cur = 0;
    const char *state = NULL;
    int more;

    if (t->current != NULL)
        cur = *(const volatile uintptr_t *)t->current; /* the kernel's variable, as given */
    while ((more = sfu__dump_table_obj(d, &obj, &state)) == 1) {
        if (obj == cur)
            continue;
        if (t->state.at != 0 && state == NULL) {
            if (!sfu__dump_field(d, obj, t->state, &v))
                break;
            if (v < t->nstates && t->states[v] == NULL)
                continue; /* a slot not in use */
            state = v < t->nstates ? t->states[v] : "?";
        }
        dt->state = state;
        dt->anonymous = t->id.at == 0;
        if ((t->id.at != 0 && !sfu__dump_field(d, obj, t->id, &dt->id)) ||
            (t->name.at != 0 && !sfu__dump_field(d, obj, t->name, &v)) ||
            (t->context.at != 0 && !sfu__dump_field(d, obj, t->context, &dt->context)))
            break;
        if (t->name.at != 0 && v != 0) { /* a pointer in the kernel's memory: read checked */
            dt->name_at = v;
            dt->name_max = SFU_DUMP_NAME_MAX;
        }
        if (t->name_in.at != 0) {
            dt->name_at = obj + t->name_in.at - 1u;
            dt->name_max = t->name_in.size;
        }
        if (t->context_in.at != 0)
            dt->context = obj + t->context_in.at - 1u;
        dt->layout = t->layout;
        dt->frame = obj;
        if (!sfu__dump_table_port(d, t, obj))
            return 2;
        dt->port = &st->port.port;
        return 1;
    }
    if (more == 0)
        return 0;
    sfu_dump_str(d, "thread table: the thread at ");
    sfu_dump_hex(d, obj, 16);
    sfu_dump_str(d, " cannot be read\n");
    st->th.err = SFU_E_READ;
    return 0;
}

/* A name kept in the thread's memory: at most max bytes up to its NUL,
 * through the checked read ("?" where it cannot be read). */
static SFU__DUMP_NOINLINE void sfu__dump_name_at(const struct sfu_dump *d, uint64_t at, size_t max)
{
    uint64_t w = 0;
    size_t i;
    char c;

    if (max > SFU_DUMP_NAME_MAX)
        max = SFU_DUMP_NAME_MAX;
    for (i = 0; i < max; i++) {
        if (!sfu__dump_word(d, at + i, 1, &w)) {
            sfu__dump_put(d, "?", 1);
            return;
        }
        c = (char)w;
        if (c == '\0')
            return;
        sfu__dump_put(d, &c, 1);
    }
}

/* "thread ID NAME: STATE, stack 0xLO .. 0xHI, ..." (no ID without one;
 * port NULL: its stacks were refused, none shown) */
static void sfu__dump_thread_header(const struct sfu_dump *d, const struct sfu_dump_thread *t, const sfu_port *port)
{
    size_t i;
    bool one = port != NULL && (port->stack_lo != 0 || port->stack_hi != 0);

    sfu_dump_str(d, "thread");
    if (!t->anonymous) {
        sfu_dump_str(d, " ");
        sfu_dump_dec(d, t->id);
    }
    if (t->name != NULL) {
        sfu_dump_str(d, " ");
        sfu__dump_strn(d, t->name, SFU_DUMP_NAME_MAX);
    } else if (t->name_at != 0) {
        sfu_dump_str(d, " ");
        sfu__dump_name_at(d, t->name_at, t->name_max);
    }
    sfu_dump_str(d, ": ");
    sfu__dump_strn(d, t->state != NULL ? t->state : "?", SFU_DUMP_NAME_MAX);
    for (i = one ? 0 : 1; port != NULL && port->stacks != NULL && i <= port->nstacks; i++) {
        sfu_dump_str(d, i == 0 || (i == 1 && !one) ? ", stack " : ", ");
        sfu_dump_hex(d, i == 0 ? port->stack_lo : port->stacks[i - 1u].lo, 16);
        sfu_dump_str(d, " .. ");
        sfu_dump_hex(d, i == 0 ? port->stack_hi : port->stacks[i - 1u].hi, 16);
    }
    if (one && port->stacks == NULL) {
        sfu_dump_str(d, ", stack ");
        sfu_dump_hex(d, port->stack_lo, 16);
        sfu_dump_str(d, " .. ");
        sfu_dump_hex(d, port->stack_hi, 16);
    }
    sfu_dump_str(d, "\n");
}

/* Does a block ending at end lie where a stack of port starts: its end
 * at most the port's top bytes below the stack's top (core/sfu.h, THE END
 * OF A STACK)? */
static bool sfu__dump_at_top(const sfu_port *port, uint64_t end)
{
    sfu_stack st;
    uint64_t top = port->top ? port->top : (uint64_t)SFU_TOP_FRAME;

    return sfu__port_stack(port, end, &st) && st.hi - end <= top;
}

/* Where a thread's walk starts (sfu__dump_thread_start). */
#define SFU__DUMP_REGS 0    /* the state's cursor registers filled */
#define SFU__DUMP_RUNNING 1 /* the running thread: capture */
#define SFU__DUMP_DONE 2    /* no thread i */
#define SFU__DUMP_GIVEN 3   /* the iterator's own registers: th.regs */
#define SFU__DUMP_SAID 4    /* refused, and said so */

/* Thread i of the iterator (th.next, NULL: the table's): its header line,
 * where its walk starts (th.regs; NULL: the running thread), its port in
 * the state (the thread's, or a copy of the iterator's) and whether its
 * first frame ran in user mode (st->user). */
static SFU__DUMP_NOINLINE int sfu__dump_thread_start(const struct sfu_dump *d, size_t i)
{
    struct sfu_dump_state *st = d->state;
    struct sfu_dump_thread *t = &st->th.cur;
    sfu_regs *r = &st->c.regs;
    const sfu_port *port;
    int kind, more;
    uint64_t at;

    /* Field by field, and never merged into one memset call (clang does
     * merge the stores unless the file is built with -ffreestanding): a
     * struct assignment or an initializer would be one. */
    t->id = 0;
    t->name = t->state = NULL;
    t->port = NULL;
    SFU__DUMP_KEEP_STORES(t);
    t->regs = NULL;
    t->layout = NULL;
    t->context = 0;
    SFU__DUMP_KEEP_STORES(t);
    t->trap = NULL;
    t->frame = 0;
    SFU__DUMP_KEEP_STORES(t);
    t->anonymous = false;
    t->name_at = 0;
    t->name_max = 0;
    st->th.regs = NULL;
    st->user = 0;
    port = sfu__dump_port(d);
    more = st->th.next != NULL ? (int)st->th.next(st->th.arg, i, t) : sfu__dump_table_next(d, t);
    if (!more)
        return SFU__DUMP_DONE;
    /* The walk's port is the state's: the iterator's copied in. */
    if (t->port != NULL && t->port != port) {
        st->port.port.read = t->port->read;
        st->port.port.strip_ra = t->port->strip_ra;
        st->port.port.trap = t->port->trap;
        st->port.port.ctx = t->port->ctx;
        st->port.port.stack_lo = t->port->stack_lo;
        st->port.port.stack_hi = t->port->stack_hi;
        st->port.port.stacks = t->port->stacks;
        st->port.port.nstacks = t->port->nstacks;
        st->port.port.entries = t->port->entries;
        st->port.port.nentries = t->port->nentries;
        st->port.port.top = t->port->top;
    }
    sfu__dump_thread_header(d, t, more == 2 ? NULL : port);
    /* The record's block of this thread: its name and state. */
    st->rec.name = t->name; /* the iterator's own (its code's pointer) */
    if (t->name == NULL)
        sfu__dump_rec_name(d, t->name_at, t->name_max);
    st->rec.state_text = t->state;
    if (more == 2) {
        sfu__dump_refused(d, "  stacks of the thread at ", t->frame, SFU_E_ARG, NULL);
        return SFU__DUMP_SAID;
    }
    if (t->regs != NULL) {
        st->th.regs = t->regs;
        return SFU__DUMP_GIVEN;
    }
    if (t->layout != NULL) {
        kind = sfu_port_switch_regs(port->ctx, t->layout, t->context, r);
        at = t->context;
        /* Switched out in user mode: its one frame, the user's, then
         * SFU_END_USER from the walk itself (an SP on the thread's
         * stacks is the kernel's: walked on). */
        if (kind == SFU_END_USER) {
            int k = sfu__dump_user_kind(st, port, r->pc, r->sp);

            st->user = k == SFU_TRAP_USER;
            if (k == SFU_TRAP_PC_ZERO)
                kind = SFU_E_ZERO_RA;
        }
        /* Zeroed: never saved.  A thread that never ran keeps it at its
         * stack's top (r->sp: its end); anywhere else it is a misread. */
        if (kind == SFU_END_NEVER_RAN && !sfu__dump_at_top(port, r->sp))
            kind = SFU_E_ZERO_RA;
        /* SFU_E_DESC: a context no variant matches, the rule it breaks
         * named by the layout (the description was checked at boot, so
         * the code is not the layout's own). */
        if (kind != SFU_OK && kind != SFU_END_USER) {
            sfu__dump_refused(d, "  saved context at ", at, kind, kind == SFU_E_DESC ? t->layout->unmatched : NULL);
            return SFU__DUMP_SAID;
        }
        sfu_dump_str(d, "  saved context at ");
    } else if (t->trap != NULL) {
        kind = sfu__dump_trap_regs(d, port, t->trap, t->frame, r);
        at = t->frame;
        if (kind == SFU_TRAP_EMPTY)
            kind = sfu__dump_at_top(port, r->sp) ? -SFU_END_NEVER_RAN : -SFU_E_ZERO_RA;
        if (kind < 0) {
            sfu__dump_refused(d, "  trap frame at ", at, -kind, NULL);
            return SFU__DUMP_SAID;
        }
        st->user = kind == SFU_TRAP_USER;
        sfu_dump_str(d, "  trap frame at ");
    } else {
        return SFU__DUMP_RUNNING;
    }
    sfu_dump_hex(d, at, 16);
    sfu_dump_str(d, ": pc ");
    sfu_dump_hex(d, r->pc, 16);
    sfu_dump_str(d, " sp ");
    sfu_dump_hex(d, r->sp, 16);
    sfu_dump_str(d, "\n");
    st->th.regs = r;
    return SFU__DUMP_REGS;
}

/* Every thread th.next (NULL: the table) gives; the last walk's stop
 * code.  Inlined: the walk of a thread that is running is sfu__dump_walk's
 * capture, whose first frame shown is the public function's. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline int sfu__dump_all(const struct sfu_dump *d)
{
    size_t i;
    int how;

    d->state->th.last = SFU_OK;
    for (i = 0;; i++) {
        how = sfu__dump_thread_start(d, i);
        if (how == SFU__DUMP_DONE)
            return d->state->th.last;
        /* th.regs: where the walk starts (NULL: the running thread,
         * captured by the walk). */
        d->state->th.last = how == SFU__DUMP_SAID ? d->state->th.stop : sfu__dump_walk(d, d->state->th.regs);
    }
}

/* A description the check refuses: "threads:" and its line, nothing
 * read; else SFU_OK. */
static SFU__DUMP_NOINLINE int sfu__dump_threads_check(const struct sfu_dump *d)
{
    int err = sfu__dump_prepare(d);

    if (err != SFU_OK) {
        sfu_dump_str(d, "threads:\n");
        sfu__dump_refusal(d);
    }
    return err;
}

SFU__DUMP_FN int sfu_dump_threads_iter(const struct sfu_dump *d, sfu_dump_next_fn next, void *arg)
{
    struct sfu_dump_state *st;
    int err;

    if (next == NULL)
        return SFU_E_ARG;
    if (sfu__dump_enter(d) == NULL)
        return SFU_E_ARG;
    err = sfu__dump_threads_check(d);
    if (err != SFU_OK)
        return sfu__dump_leave(d, err);
    sfu__dump_rec(d, SFU_DUMP_REC_THREADS, 0, SFU_OK);
    st = d->state;
    st->th.next = next;
    st->th.arg = arg;
    st->th.t = NULL;
    err = sfu__dump_all(d);
    __asm__ volatile("" : : : "memory");
    return sfu__dump_leave(d, err);
}

SFU__DUMP_FN int sfu_dump_threads(const struct sfu_dump *d)
{
    struct sfu_dump_state *st;
    const struct sfu_dump_table *t = d->threads;
    int err;

    if (t == NULL) {
        sfu_dump_str(d, "threads: none described (no .threads in the description)\n");
        return SFU_E_ARG;
    }
    if (sfu__dump_enter(d) == NULL)
        return SFU_E_ARG;
    st = d->state;
    err = sfu__dump_threads_check(d);
    if (err != SFU_OK)
        return sfu__dump_leave(d, err);
    sfu__dump_rec(d, SFU_DUMP_REC_THREADS, 0, SFU_OK);
    st->th.next = NULL;
    st->th.t = t;
    st->th.k = 0;
    st->th.list = 0;
    /* The list's head variable is the user's own: read as it is; a ring
     * ends at its first node again, lists at their head nodes. */
    st->th.at = t->head != NULL ? (uint64_t)*(const volatile uintptr_t *)t->head : 0;
    st->th.first = st->th.at;
    st->th.err = SFU_OK;
    err = sfu__dump_all(d);
    __asm__ volatile("" : : : "memory");
    return sfu__dump_leave(d, st->th.err != SFU_OK ? st->th.err : err);
}

SFU_CODEGEN_END

#endif /* SFU_THREADS_IMPLEMENTATION_DONE */
#endif /* SFU_IMPLEMENTATION */
