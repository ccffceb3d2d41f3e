/* SPDX-License-Identifier: MIT */
/*
 * retained.c -- a crash record that survives the reset (the retained
 * scenario), in the format of crash/sfu_crash.h.
 *
 * [__retained_start, __retained_end) is RAM outside every loaded segment,
 * BSS and stack (link.ld), which neither QEMU's loader nor the firmware's
 * boot code writes, so it keeps its contents across a warm reset:
 *
 *   +0    boot block: 'B' 'O' 'O' 'T', the boot counter, its complement
 *   +64   the crash record: the extended form (sfu_crash_ext_write: the
 *         registers the walk started from, its frames, the stack window up
 *         to the last CFA, the build-id), within the rest of the region
 *
 * Boot 1: no record; the boot counter starts at 1; a panic at the bottom
 *         of the demo chain dumps as usual, writes the record, resets.
 * Boot 2: the record is found: "previous crash" with its backtrace,
 *         symbolized by this image, and its raw bytes (for tools/sfu-crash,
 *         which also makes an ELF core file of them for gdb:
 *         sfu-crash --core CORE IMAGE --log LOG); cleared.  Then half a
 *         record is written, as if
 *         the power failed in the middle of writing one, and the board
 *         resets again.
 * Boot 3: the half-written record is found, reported as corrupt (not as
 *         a trace), cleared; status 0.
 */
#include "ex.h"

#define BOOT_MAGIC 0x544f4f42u /* "BOOT" */
#define RECORD_OFF 64u

volatile int ex_retain_armed;

static volatile uint32_t *boot_block(void)
{
    return (volatile uint32_t *)(uintptr_t)__retained_start;
}

static volatile uint8_t *record(void)
{
    return (volatile uint8_t *)(uintptr_t)__retained_start + RECORD_OFF;
}

static size_t record_room(void)
{
    return (size_t)(__retained_end - __retained_start) - RECORD_OFF;
}

/* This boot's number: 1 on a cold start (no valid boot block), else one
 * more than the last. */
static uint32_t boot_number(void)
{
    volatile uint32_t *b = boot_block();
    uint32_t n = (b[0] == BOOT_MAGIC && b[2] == ~b[1]) ? b[1] + 1u : 1u;

    b[0] = BOOT_MAGIC;
    b[1] = n;
    b[2] = ~n;
    return n;
}

static uint32_t this_boot;

/* The GNU build-id note's descriptor (link.ld keeps the note loaded
 * between __build_id_start and __build_id_end), or NULL. */
extern const char __build_id_start[], __build_id_end[];

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const uint8_t *build_id(unsigned *len)
{
    const uint8_t *p = (const uint8_t *)__build_id_start;
    size_t n = (size_t)(__build_id_end - __build_id_start);

    /* namesz 4, descsz, type NT_GNU_BUILD_ID (3), "GNU\0", descriptor */
    if (n < 16 || le32(p) != 4 || le32(p + 8) != 3 || p[12] != 'G' || p[13] != 'N' || p[14] != 'U' || p[15] != 0 ||
        le32(p + 4) > SFU_CRASH_ID_MAX || 16u + le32(p + 4) > n)
        return NULL;
    *len = le32(p + 4);
    return p + 16;
}

#if defined(__aarch64__)
#define EX_CRASH_MACHINE SFU_CRASH_EM_AARCH64
#else
#define EX_CRASH_MACHINE SFU_CRASH_EM_X86_64
#endif

/* The recorded scenarios (panic, null, irqpanic, threads, overflow: set
 * by scenario.c): the crash's extended record is written to the retained
 * RAM as the retained scenario writes it, and printed as hex lines, with
 * what it holds, for tools/sfu-crash --log (and --core); the run then
 * goes on as it would without it (the other threads' dumps, the exit). */
volatile int ex_record_armed;

/* The threads the record holds beside the running one (threads.c
 * registers them as it creates them). */
static const struct ex_thread *rec_threads[EX_MAX_THREADS];
static unsigned rec_nthreads;

void ex_record_thread(const struct ex_thread *t)
{
    if (rec_nthreads < EX_MAX_THREADS)
        rec_threads[rec_nthreads++] = t;
}

/* Static, not on the crash path's stack (the fault handler's, the
 * exception stack): the blocks, and the other threads' walks. */
static struct sfu_crash_thread rec_t[2u + EX_MAX_THREADS];
static sfu_frame rec_frames[EX_MAX_THREADS][SFU_DEPTH_CAP];

/* One thread's block: the registers its walk started from (r), its
 * frames.  A walk that crossed a trap frame starts the block at the
 * interrupted code instead (the trap frame's registers, read again
 * through the port's trap callback as the walk read them, and the frames
 * from the interrupted one): a debugger unwinds the code that was
 * interrupted, not the handler's way through the vector code, which has
 * no unwind tables.  (The version-1 part keeps the whole trace.) */
static size_t block(struct sfu_crash_thread *t, const char *name, unsigned state, const sfu_port *port,
                    const sfu_regs *r, const sfu_frame *f, size_t n, int stop)
{
    sfu_regs tr;
    size_t k, first = 0;

    for (k = 1; k < n; k++) {
        if (f[k].how != SFU_HOW_TRAP)
            continue;
        tr.pc = tr.sp = tr.fp = tr.ra = 0;
        tr.dwarf = NULL;
        tr.ndwarf = 0;
        tr.dwarf_map = NULL;
        if (port->trap != NULL && port->trap(port->ctx, f[k - 1].pc, f[k - 1].sp, &tr) == SFU_TRAP_KERNEL &&
            tr.pc == f[k].pc && tr.sp == f[k].sp) {
            first = k;
            r = &tr;
        }
        break;
    }
    sfu_crash_regs_from(t, EX_CRASH_MACHINE, r);
    t->name = name;
    t->state = state;
    t->frames = f + first;
    t->nframes = n - first;
    t->stop = stop;
    return first;
}

/* The other threads: each from its saved context, walked on its own port
 * (as the dump of every thread walks them).  Returns the blocks added. */
static size_t other_threads(struct sfu_crash_thread *out)
{
    const struct ex_thread *cur = ex_thread_current();
    size_t i, m = 0, n;
    sfu_regs r;
    int stop;

    for (i = 0; i < rec_nthreads; i++) {
        const struct ex_thread *th = rec_threads[i];

        const sfu_port *port;

        if (th == cur || th->state == EX_THREAD_FREE || (port = ex_thread_port(th)) == NULL ||
            sfu_port_switch_regs(port->ctx, &ex_switch_layout, th->ctx, &r) != SFU_OK)
            continue;
        n = 0;
        stop = sfu_backtrace(ex_dump_state.secs, ex_dump_state.nsecs, port, &r, rec_frames[m], SFU_DEPTH_CAP, &n);
        if (n == 0)
            continue;
        (void)block(&out[m], th->name,
              th->state == EX_THREAD_BLOCKED ? SFU_CRASH_T_BLOCKED : SFU_CRASH_T_READY, port, &r,
              rec_frames[m], n, stop);
        m++;
    }
    return m;
}

/* Write the extended record of this crash: the crashed thread's block
 * (start: the registers its walk started from, ex_last_frames its frames)
 * and, in the recorded scenarios, every other thread's; *used gets its
 * size.  A panic in a handler (irqpanic: the walk crossed a trap frame)
 * is two blocks of the same name: the handler's frames down to the C trap
 * handler (the crash; not the vector code's frame, which has no unwind
 * tables: gdb would unwind it again and again), then the interrupted code
 * (running).  false if it
 * could not be written (then the PC-only one is). */
static bool write_extended(const struct sfu_crash *c, const sfu_regs *start, size_t *used)
{
    const struct ex_thread *th = ex_thread_current();
    const char *name = th != NULL ? th->name : "main";
    struct sfu_crash_ext x;
    unsigned idlen = 0;
    size_t first;
    int st;

    first = block(&rec_t[1], name, SFU_CRASH_T_CRASHED, ex_walk_port(), start, ex_last_frames, ex_last_nframes,
                  ex_last_stop);
    x.threads = rec_t + 1;
    x.nthreads = 1;
    if (first > 1 && c->kind == SFU_CRASH_PANIC) {
        sfu_crash_regs_from(&rec_t[0], EX_CRASH_MACHINE, start);
        rec_t[0].name = name;
        rec_t[0].state = SFU_CRASH_T_CRASHED;
        rec_t[0].frames = ex_last_frames;
        rec_t[0].nframes = first - 1u; /* not the vector code's (no CFI: gdb loops there) */
        rec_t[0].stop = ex_last_stop;
        rec_t[1].state = SFU_CRASH_T_RUNNING;
        x.threads = rec_t;
        x.nthreads = 2;
    }
    x.nthreads += ex_record_armed ? other_threads(rec_t + 2) : 0u;
    x.machine = EX_CRASH_MACHINE;
    x.id = build_id(&idlen);
    x.idlen = x.id != NULL ? idlen : 0;
    x.crashed = 0;
    /* The windows of every thread: the image's port (its RAM); each
     * window lies on the stacks its thread's own walk was bounded by. */
    x.port = ex_ram_port();
#if defined(__aarch64__)
    /* pac-ret builds: the debugger strips the signed return addresses in
     * the window with the bits the port strips. */
    x.pac = sfu_crash_pac_mask(sfu_port_strip_ra, NULL);
#else
    x.pac = 0;
#endif
    st = sfu_crash_ext_write(c, &x, record(), record_room(), used);
    if (st != SFU_CRASH_W_OK) {
        ex_printf("retained: no extended record (%s)\n",
                  st == SFU_CRASH_W_BUDGET ? "the retained RAM cannot hold the first frame" : "write failed");
        return false;
    }
    return true;
}

static void print_bytes(size_t n);

/* What the record just written holds, a line per thread: the sizes the
 * README quotes (registers, frames, window). */
static void print_contents(size_t used)
{
    struct sfu_crash_info info;
    struct sfu_crash_tinfo ti;
    unsigned i;

    if (sfu_crash_info_read(record(), record_room(), &info) != SFU_CRASH_VALID)
        return;
    ex_printf("crash record: extended, %u bytes (%u of headers), %u thread(s)\n", (unsigned)used,
              SFU_CRASH_EXT_FIXED, (unsigned)info.nthreads);
    for (i = 0; i < info.nthreads && sfu_crash_thread_read(record(), &info, i, &ti); i++) {
        ex_printf("crash record: thread %u %s%s: %u registers (%u bytes), %u frames (%u bytes), stack window "
                  "%u of %u bytes, %u whole frames\n",
                  i + 1u, ti.name, i == info.crashed ? " (crashed)" : "", (unsigned)sfu__crash_popcount(ti.valid),
                  8u * (unsigned)sfu__crash_popcount(ti.valid), (unsigned)ti.nframes,
                  SFU_CRASH_T_FRAME * (unsigned)ti.nframes, (unsigned)ti.kept, (unsigned)ti.wanted,
                  (unsigned)ti.whole);
    }
}

/* From panic() or ex_fault(), after the dump: the dump's frames into the
 * record; then, in the retained scenario, the reset; in the recorded
 * ones, the record printed.  start: the registers the walk started from;
 * interrupted: unused (a fault's trap frame is found again from the
 * walk). */
void ex_retain_crash(unsigned kind, const char *what, uint64_t pc, uint64_t code, uint64_t addr, bool addr_valid,
                     const sfu_regs *start, const sfu_regs *interrupted)
{
    struct sfu_crash c;
    size_t used = 0;

    (void)interrupted;
    sfu_crash_init(&c, this_boot, kind, what, pc);
    c.code = code;
    c.addr = addr;
    c.flags = addr_valid ? SFU_CRASH_ADDR_VALID : 0;
    sfu_crash_frames(&c, ex_last_frames, ex_last_nframes, ex_last_stop);
    if (write_extended(&c, start, &used)) {
        if (!ex_retain_armed) {
            print_contents(used);
            print_bytes(used);
            return;
        }
        print_contents(used);
        ex_printf("retained: extended crash record written (%u bytes at %p), resetting\n", (unsigned)used,
                  (void *)record());
        board_reset();
    }
    if (!sfu_crash_write(&c, record(), record_room())) {
        ex_printf("retained: no room for the crash record\n");
        return;
    }
    if (!ex_retain_armed) {
        print_bytes(SFU_CRASH_SIZE);
        return;
    }
    ex_printf("retained: crash record written (%u bytes at %p, %u frames), resetting\n", SFU_CRASH_SIZE,
              (void *)record(), (unsigned)c.nframes);
    board_reset();
}

/* The record's first n bytes as hex, 16 a line, for tools/sfu-crash --log. */
static void print_bytes(size_t n)
{
    const volatile uint8_t *p = record();
    size_t i;

    for (i = 0; i < n; i++) {
        if (i % 16u == 0)
            ex_printf("  crash record +%03x:", (unsigned)i);
        ex_printf(" %02x", p[i]);
        if (i % 16u == 15u || i + 1u == n)
            ex_printf("\n");
    }
}

static void print_previous(const struct sfu_crash *c)
{
    sfu_frame f, next;
    unsigned i;

    ex_printf("previous crash: boot %u (this is boot %u): %s \"%s\" at pc %p\n", (unsigned)c->boot,
              (unsigned)this_boot, c->kind == SFU_CRASH_PANIC ? "panic" : "fault", c->msg,
              (void *)(uintptr_t)c->pc);
    if (c->flags & SFU_CRASH_ADDR_VALID)
        ex_printf("  fault address %p  code 0x%llx\n", (void *)(uintptr_t)c->addr, (unsigned long long)c->code);
    {
        struct sfu_crash_info info;
        size_t n = sfu_crash_info_read(record(), record_room(), &info) == SFU_CRASH_VALID ? info.total
                                                                                          : SFU_CRASH_SIZE;

        ex_printf("crash record: %u bytes at %p\n", (unsigned)n, (void *)record());
        print_bytes(n);
    }
    /* The trace, named by this image (the one that crashed: a warm reset
     * boots the same one).  A frame reached through a trap frame makes the
     * one before it the vector code's call. */
    ex_printf("backtrace:\n");
    for (i = 0; i < c->nframes; i++) {
        sfu_crash_frame(c, i, &f);
        sfu_crash_frame(c, i + 1u, &next);
        ex_print_frame(i, &f, i + 1u < c->nframes && next.how == SFU_HOW_TRAP);
    }
    ex_print_stop(c->nframes, c->stop);
}

EX_NORETURN void ex_retained_scenario(void)
{
    struct sfu_crash c;
    int st;

    this_boot = boot_number();
    ex_printf("retained: boot %u, crash record at %p\n", (unsigned)this_boot, (void *)record());
    st = sfu_crash_read(record(), record_room(), &c);
    switch (st) {
    case SFU_CRASH_EMPTY:
        ex_printf("retained: no crash record; crashing on purpose\n");
        ex_retain_armed = 1;
        (void)chain_a(0, EX_ACT_PANIC);
        break;
    case SFU_CRASH_VALID:
        print_previous(&c);
        sfu_crash_clear(record(), record_room());
        ex_printf("retained: record cleared; writing half a record and resetting, as a power cut "
                  "in the middle of the write would\n");
        c.boot = this_boot;
        (void)sfu_crash_write_upto(&c, record(), record_room(), SFU_CRASH_SIZE / 2u);
        board_reset();
    case SFU_CRASH_CORRUPT:
        ex_printf("retained: previous crash record is corrupt (checksum mismatch): not shown\n");
        print_bytes(SFU_CRASH_SIZE);
        sfu_crash_clear(record(), record_room());
        ex_printf("retained: record cleared\n");
        board_exit(EX_PASS);
    default:
        ex_printf("retained: crash record of an unknown version or shape: not shown\n");
        sfu_crash_clear(record(), record_room());
        board_exit(EX_FAIL);
    }
    ex_printf("retained: the chain returned\n");
    board_exit(EX_BUG);
}
