/* SPDX-License-Identifier: MIT */
/* sfu_dump.h - the crash path, ready made: backtraces printed through one
 * output hook, with no printf, no libc, no heap and a bounded stack.
 *
 * USAGE
 *   Build with -I <sfu>/core -I <sfu>/port and, in the one file that holds
 *   sfu's code:
 *
 *       #define SFU_IMPLEMENTATION
 *       #include "sfu_dump.h"     // includes sfu_port.h, then sfu.h
 *
 *       void uart_putc(char c);
 *       static struct sfu_dump dump = SFU_DUMP_PUTC(dump, uart_putc, NULL, 0);
 *
 *   (reads: the linker script's [__ram_start, __ram_end); with a write
 *   hook and ranges of your own:
 *       static const struct sfu_port_range ram[] = { { lo, hi }, ... };
 *       static struct sfu_dump dump = SFU_DUMP_INIT(dump, out, ram, n, NULL, 0);)
 *
 *       ... in panic():  sfu_dump_stack(&dump);
 *
 *   Other files include it plainly (without SFU_IMPLEMENTATION) to call
 *   the functions.  It is stb style like core/sfu.h: declarations always,
 *   bodies with SFU_IMPLEMENTATION (the same define as the core's), every
 *   function static with SFU_STATIC.  If no port is included yet it
 *   includes port/sfu_port.h (the port of the CPU being compiled for).
 *
 * THE CRASH PATH IN ANY CPU STATE
 *   Every function here is compiled between SFU_CODEGEN_BEGIN and
 *   SFU_CODEGEN_END, like the core: general registers only, no unaligned
 *   access, whatever the flags of the file that includes it, and never
 *   inlined into the caller.  What the user writes around it is one static
 *   initializer (constant data: no code), the output hook and the calls.
 *   Nothing is copied as a struct at run time: a struct copy is what
 *   compilers turn into SSE / q-register moves (gcc 16 -O2 did so with
 *   `sfu_port port = SFU_PORT_INIT(...)` in a user's panic()).
 *
 * THE OUTPUT HOOK
 *   void write(const char *s, size_t n): write n bytes (n >= 1; no NUL, no
 *   CR: add one before '\n' in the hook if the console wants CR LF).  One
 *   hook, called with whole pieces (a name, a number's digits, a marker)
 *   rather than per character, so a hook that takes a lock or fills a FIFO
 *   pays per piece.  Or, with SFU_DUMP_PUTC, a console's void putc(char c),
 *   called once per byte (d->write NULL, d->putc set).  The hook runs
 *   on the crash path: it must not take a lock the crashed code may hold
 *   (poll the UART), and it is built with the flags of its own file.
 *
 * THE DUMP FORMAT (README "The dump format"; tools/sfu-symbolize reads it)
 *       backtrace:
 *         #0  0x0000000040081234 panic+0x24/0x90
 *         #1  0x0000000040080f10 chain_f+0x40/0x60
 *         #2  0x0000000040080a00 el1_sync+0x80/0x100 (exception)
 *         #3  0x0000000040081000 leaf_load+0x8/0x10 (interrupted)
 *       backtrace: 4 frames, stopped: outermost frame reached (SFU_END)
 *   ADDR: the PC, a return address unless the frame is #0 or marked
 *   (interrupted) / (user) (then exact; tools name a return address at
 *   ADDR - 1).  NAME+0xOFF/0xSIZE from the embedded symbol table or the
 *   name hook; "??" without one.  (exception): the vector code's call into
 *   its handler (the next frame is the trap frame's interrupted context);
 *   (user): the interrupted code ran at a lower privilege level (its PC
 *   is not looked up).  The last line always ends the dump with the
 *   reason the walk stopped, its text and its code: SFU_END is a complete
 *   trace.  If the .sframe section is refused, no walk is made: one line
 *   says so and the last line gives 0 frames and the section's error.
 *   The text and the code names are this header's own: SFU_ERROR_STRINGS
 *   is not needed.
 *
 * WHAT IS DUMPED
 *   sfu_dump_stack(d)            the caller's stack.  A function, not a
 *                                macro: the registers are captured inside
 *                                the dump (compiled with its flags, never
 *                                the caller's: a capture in the caller's
 *                                file fills a register block that gcc may
 *                                store with SSE), the dump's inner frame
 *                                is stepped over, and frame #0 is
 *                                sfu_dump_stack itself, #1 its caller (as
 *                                Linux's dump_stack() shows dump_stack_lvl).
 *   sfu_dump_regs(d, port, r)    from registers you have (a fault handler's
 *                                capture, a decoded trap frame)
 *   sfu_dump_trap(d, layout, f)  from a trap frame your vector code saved,
 *                                as a struct sfu_trap_layout describes it:
 *                                frame #0 is the interrupted instruction
 *   sfu_dump_thread_table(d, t) every thread of the kernel's thread array
 *                                or list, described once as data (struct
 *                                sfu_dump_table): the dump reads each
 *                                thread's fields and builds its port
 *   sfu_dump_threads(d, next, a) every thread the kernel's iterator gives:
 *                                a header line, then its dump from its
 *                                saved context, trap frame or registers,
 *                                bounded by its own stacks
 *   Each returns the stop code of its (last) walk: SFU_END or SFU_END_USER
 *   for a complete trace.
 *
 * STACK
 *   No frame array: frames are printed as the cursor finds them (one
 *   frame of look-ahead, to mark the vector code's call).  The worst case
 *   of the whole path (walk and formatting, the output hook excluded) is
 *   printed by `make size` ("stack: dump <arch> <bytes>"; 512 at most
 *   on aarch64 and x86_64, gcc -Os): the dump layer's own frames are a
 *   few registers each, the rest is the core's step and the port's
 *   callbacks.  The walk's cursor and the thread a threads dump is at
 *   are kept in struct sfu_dump, off the stack; the registers a walk
 *   starts from are built in that cursor, and each frame's record only
 *   in the (out of line) printing function.  So a struct sfu_dump runs
 *   one dump at a time: a dump started while another is under way on
 *   the same struct (an interrupt or a fault whose handler dumps, in the
 *   middle of a dump) walks nothing: it prints "dump refused: another
 *   dump is under way on this struct sfu_dump" and returns SFU_E_ARG,
 *   and the dump it interrupted goes on unharmed.  The flag is a plain
 *   store, not an atomic: two CPUs that may dump at once need one struct
 *   each (or a lock, as a panic handler's "first CPU in" guard gives).
 *
 * THE SYMBOL TABLE (optional on-target names)
 *   tools/sfu-symtab makes it from the linked image (two links: the first
 *   with an empty table, the second with the table of the first; nothing
 *   before the table moves, which the tool's check step verifies).  The
 *   table is one object, `sfu_symtab`, 8-byte aligned, in the image's
 *   byte order:
 *       offset 0   uint32 magic     SFU_SYMTAB_MAGIC
 *              4   uint32 count     functions
 *              8   uint32 names     bytes of the name pool
 *             12   uint32 reserved  0
 *             16   count x { uint64 addr; uint32 size; uint32 name; }
 *                  sorted by addr, not overlapping; name: offset in the pool
 *             16 + 16 * count      the name pool, NUL-terminated names
 *   A lookup checks the magic and bounds every name by the pool; a name
 *   is printed up to its NUL or SFU_DUMP_NAME_MAX bytes.  With
 *   SFU_DUMP_SYMTAB 1 the initializer points at `sfu_symtab`; or set
 *   d->symtab, or a name hook (d->name: a kernel's own kallsyms).
 *
 * CONFIGURATION (define before including; 0/1 knobs tested with #if)
 *   SFU_DUMP_SECTIONS        sections room in struct sfu_dump (lld leaves
 *                            one per object)                  (default 64)
 *   SFU_DUMP_LINKER_SFRAME   SFU_DUMP_INIT takes the section from
 *                            __sframe_start/__sframe_end (linker/sframe.ld);
 *                            0: set d->sframe/d->sframe_end    (default 1)
 *   SFU_DUMP_SFRAME_OPTS     sfu_section_split options: lld-linked images
 *                            with pre-V3 sections need SFU_OPT_START_PCREL
 *                            (without it they are refused, SFU_E_LINKED)
 *                                                              (default 0)
 *   SFU_DUMP_LINKER_TEXT     SFU_DUMP_INIT takes the code range from
 *                            __text_start/__text_end (linker/sframe.ld,
 *                            "Code bounds"): every function of the
 *                            sections is checked to lie in it, so a wrong
 *                            start option is refused (SFU_E_CODE_RANGE)
 *                            instead of walked; 0: no check, or set
 *                            d->text/d->text_end               (default 0)
 *   SFU_DUMP_SYMTAB          SFU_DUMP_INIT names frames from `sfu_symtab`
 *                            (tools/sfu-symtab)                (default 0)
 *   SFU_DUMP_NAME_MAX        longest name printed              (default 128)
 */
#ifndef SFU_DUMP_H
#define SFU_DUMP_H

#include "sfu_layout.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef SFU_DUMP_SECTIONS
#define SFU_DUMP_SECTIONS 64
#endif
#if SFU_DUMP_SECTIONS < 1 || SFU_DUMP_SECTIONS > 4096
#error "SFU_DUMP_SECTIONS must be between 1 and 4096"
#endif
#ifndef SFU_DUMP_LINKER_SFRAME
#define SFU_DUMP_LINKER_SFRAME 1
#endif
#if SFU_DUMP_LINKER_SFRAME != 0 && SFU_DUMP_LINKER_SFRAME != 1
#error "SFU_DUMP_LINKER_SFRAME must be 0 or 1"
#endif
#ifndef SFU_DUMP_SFRAME_OPTS
#define SFU_DUMP_SFRAME_OPTS 0
#endif
#if SFU_DUMP_SFRAME_OPTS != 0 && SFU_DUMP_SFRAME_OPTS != SFU_OPT_START_PCREL && SFU_DUMP_SFRAME_OPTS != SFU_OPT_START_SECREL
#error "SFU_DUMP_SFRAME_OPTS must be 0, SFU_OPT_START_PCREL or SFU_OPT_START_SECREL"
#endif
#ifndef SFU_DUMP_LINKER_TEXT
#define SFU_DUMP_LINKER_TEXT 0
#endif
#if SFU_DUMP_LINKER_TEXT != 0 && SFU_DUMP_LINKER_TEXT != 1
#error "SFU_DUMP_LINKER_TEXT must be 0 or 1"
#endif
#ifndef SFU_DUMP_SYMTAB
#define SFU_DUMP_SYMTAB 0
#endif
#if SFU_DUMP_SYMTAB != 0 && SFU_DUMP_SYMTAB != 1
#error "SFU_DUMP_SYMTAB must be 0 or 1"
#endif
#ifndef SFU_DUMP_NAME_MAX
#define SFU_DUMP_NAME_MAX 128
#endif
#if SFU_DUMP_NAME_MAX < 8 || SFU_DUMP_NAME_MAX > 4096
#error "SFU_DUMP_NAME_MAX must be between 8 and 4096"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the symbol table (format above) ------------------------------------ */

#define SFU_SYMTAB_MAGIC 0x31594d53u /* "SMY1" read little-endian */

struct sfu_sym {
    uint64_t addr;
    uint32_t size;
    uint32_t name;
};

struct sfu_symtab {
    uint32_t magic;
    uint32_t count;
    uint32_t names;
    uint32_t reserved;
    struct sfu_sym sym[]; /* count entries, then the name pool */
};

/* ---- the dump's description ----------------------------------------------- */

struct sfu_dump;

/* The output hook (see THE OUTPUT HOOK). */
typedef void (*sfu_dump_write_fn)(const char *s, size_t n);
/* Or a console's one-character output (SFU_DUMP_PUTC): called per byte. */
typedef void (*sfu_dump_putc_fn)(char c);

/* A name hook: the function holding addr, its start and size, or NULL. */
typedef const char *(*sfu_dump_name_fn)(const struct sfu_dump *d, uint64_t addr, uint64_t *start,
                                        uint64_t *size);

/* A frame hook: called with each frame after its line is printed (n: its
 * number), e.g. to keep the PCs for a crash record. */
typedef void (*sfu_dump_frame_fn)(const struct sfu_dump *d, unsigned n, const sfu_frame *f);

/* ---- threads ---------------------------------------------------------------- */

/* One thread, as the kernel's iterator describes it.  The dump clears
 * every field before each call; fill what you have.  The walk starts from
 * the first of these that is set:
 *   regs             registers the kernel keeps for the thread
 *   layout, context  the context its switch routine saved at `context`
 *                    (struct sfu_switch_layout; sfu_port_switch_regs)
 *   trap, frame      a trap frame at `frame` (a kernel that switches by
 *                    returning interrupt frames, an RTOS that keeps the
 *                    saved frame's address in its task control block)
 *   none of them     the running thread: its frame #0 is
 *                    sfu_dump_threads itself
 * port: the walk's port, normally the thread's own from
 * sfu_port_thread_init (bounds and reads: that thread's stacks only);
 * NULL: d->port.  Its ctx must be a struct sfu_port_ctx (the saved
 * context and the trap frame are read through its checks). */
struct sfu_dump_thread {
    uint64_t id;
    const char *name;  /* header line; NULL: none */
    const char *state; /* header line ("blocked", ...); NULL: none */
    const sfu_port *port;
    const sfu_regs *regs;
    const struct sfu_switch_layout *layout;
    uint64_t context;
    const struct sfu_trap_layout *trap;
    uint64_t frame;
};

/* The kernel's iterator: fill *t with thread number i (0, 1, ...) and
 * return true, or return false after the last.  Threads it skips (the
 * running one, already dumped) it simply does not return. */
typedef bool (*sfu_dump_next_fn)(void *arg, size_t i, struct sfu_dump_thread *t);

/* Everything a dump needs; one per kernel, static, made by SFU_DUMP_INIT
 * (constant data, no code).  The sections are split from [sframe,
 * sframe_end) by the first dump (or sfu_dump_sections) and kept.  A dump
 * keeps its walk in it (the cursor: off the stack), so it is not
 * reentrant: one dump at a time per struct sfu_dump (a second one started
 * meanwhile is refused with a line; see STACK above). */
struct sfu_dump {
    sfu_dump_write_fn write;      /* required */
    struct sfu_port_ctx ctx;      /* the memory a walk may read, the trap layouts */
    sfu_port port;                /* sfu_dump_stack's port: reads through ctx; stacks optional */
    const char *sframe, *sframe_end;
    unsigned opts;                /* sfu_section_split options */
    const char *text, *text_end;  /* the code range every function must lie in; NULL: no check */
    const struct sfu_symtab *symtab; /* NULL: no embedded names */
    sfu_dump_name_fn name;        /* NULL: names from symtab */
    sfu_dump_frame_fn frame;      /* NULL: none */
    void *user;                   /* for the hooks */
    /* Set by the first dump. */
    int secs_err;                 /* sfu_section_split's answer; -1 before */
    size_t nsecs;
    sfu_section secs[SFU_DUMP_SECTIONS];
    /* Added after the fields above (an initializer written for them keeps
     * its meaning). */
    sfu_dump_putc_fn putc;        /* used when write is NULL (SFU_DUMP_PUTC) */
    struct sfu_port_range linker_ram; /* SFU_DUMP_PUTC's RAM: the linker's */
    struct sfu_port_thread thread; /* the port of the thread a table dump is at
                                    * (sfu_dump_thread_table, sfu_dump_thread_port) */
    struct {                      /* where a table dump is: off the stack */
        const struct sfu_dump_table *t;
        size_t k;                 /* the next index */
        uint64_t at;              /* a list's next thread */
        int err;
    } tab;
    struct {                      /* the walk in progress, off the stack (a
                                   * dump is not reentrant: one at a time) */
        sfu_cursor c;             /* the walk's cursor */
        struct sfu_dump_thread t; /* the thread a threads dump is at */
        sfu_dump_next_fn next;    /* its iterator (NULL: the table's) */
        void *arg;
        const sfu_port *port;     /* the thread's port */
        const sfu_regs *regs;     /* the iterator's registers, or NULL */
        int last;                 /* the last walk's stop code */
        bool user;                /* its first frame ran in user mode */
    } w;
    volatile unsigned char busy;  /* a dump is under way on this struct */
};

#if SFU_DUMP_LINKER_SFRAME
/* linker/sframe.ld's symbols under names of our own, so that a user's
 * declaration of __sframe_start with another type does not clash. */
extern char sfu__dump_sframe_start[] __asm__("__sframe_start");
extern char sfu__dump_sframe_end[] __asm__("__sframe_end");
#define SFU__DUMP_SFRAME sfu__dump_sframe_start, .sframe_end = sfu__dump_sframe_end
#else
#define SFU__DUMP_SFRAME NULL, .sframe_end = NULL
#endif
#if SFU_DUMP_LINKER_TEXT
extern char sfu__dump_text_start[] __asm__("__text_start");
extern char sfu__dump_text_end[] __asm__("__text_end");
#define SFU__DUMP_TEXT sfu__dump_text_start, .text_end = sfu__dump_text_end
#else
#define SFU__DUMP_TEXT NULL, .text_end = NULL
#endif
#if SFU_DUMP_SYMTAB
extern const struct sfu_symtab sfu__dump_symtab __asm__("sfu_symtab");
#define SFU__DUMP_SYMTAB_PTR (&sfu__dump_symtab)
#else
#define SFU__DUMP_SYMTAB_PTR NULL
#endif

/* Static initializer of `struct sfu_dump self`: write the output hook,
 * ram[0..nram) the memory ranges stacks and trap frames lie in (struct
 * sfu_port_range), traps[0..ntraps) the vector code's layouts (NULL, 0
 * until step 2).  The walks of sfu_dump_stack have no stack bounds (set
 * self.port.stacks/nstacks to add them): reads stay inside ram. */
#define SFU_DUMP_INIT(self, write_fn, ram_, nram_, traps_, ntraps_)                                     \
    {                                                                                                   \
        .write = (write_fn), .ctx = { .ram = (ram_), .nram = (nram_), .traps = (traps_), .ntraps = (ntraps_) }, \
        .port = { .read = sfu_port_read, .strip_ra = SFU_PORT_STRIP_RA, .trap = sfu_port_trap,          \
                  .ctx = (void *)&(self).ctx, .stack_lo = 0, .stack_hi = 0, .stacks = NULL, .nstacks = 0 }, \
        .sframe = SFU__DUMP_SFRAME, .opts = SFU_DUMP_SFRAME_OPTS, .text = SFU__DUMP_TEXT,               \
        .symtab = SFU__DUMP_SYMTAB_PTR,                                                                 \
        .name = NULL, .frame = NULL, .user = NULL, .secs_err = -1, .nsecs = 0                           \
    }

/* The linker's RAM, [__ram_start, __ram_end), under names of our own (only
 * SFU_DUMP_PUTC refers to them). */
extern char sfu__dump_ram_start[] __asm__("__ram_start");
extern char sfu__dump_ram_end[] __asm__("__ram_end");

/* The short form of SFU_DUMP_INIT, for a console with a putc: the memory
 * a walk may read is the linker script's [__ram_start, __ram_end) (every
 * range your stacks and trap frames lie in must be inside it; otherwise
 * list the ranges with SFU_DUMP_INIT), the output one putc_fn(c) per
 * byte, traps[0..ntraps) as in SFU_DUMP_INIT. */
#define SFU_DUMP_PUTC(self, putc_fn, traps_, ntraps_)                                                       \
    {                                                                                                       \
        .write = NULL,                                                                                      \
        .ctx = { .ram = &(self).linker_ram, .nram = 1, .traps = (traps_), .ntraps = (ntraps_) },            \
        .port = { .read = sfu_port_read, .strip_ra = SFU_PORT_STRIP_RA, .trap = sfu_port_trap,              \
                  .ctx = (void *)&(self).ctx, .stack_lo = 0, .stack_hi = 0, .stacks = NULL, .nstacks = 0 }, \
        .sframe = SFU__DUMP_SFRAME, .opts = SFU_DUMP_SFRAME_OPTS, .text = SFU__DUMP_TEXT,                   \
        .symtab = SFU__DUMP_SYMTAB_PTR, .name = NULL, .frame = NULL, .user = NULL, .secs_err = -1,          \
        .nsecs = 0, .putc = (putc_fn),                                                                      \
        .linker_ram = { (uintptr_t)sfu__dump_ram_start, (uintptr_t)sfu__dump_ram_end }                     \
    }

/* ---- a thread table: the kernel's threads described once, as data ----------
 *
 * Most kernels keep their threads in an array or a linked list of one
 * struct.  Describe that struct once and sfu_dump_thread_table() walks it
 * itself: for each thread it reads the fields below, builds the thread's
 * port (its reads and bounds: the thread's own stacks and the shared ones,
 * as sfu_port_thread_init would) in the dump, prints the header line and
 * walks the thread from its saved context.  No per-thread set-up, no
 * iterator to write.
 *
 *   where     array: `count` structs of `size` bytes from `array`; or a
 *             list: `head` is the address of the variable holding the
 *             first thread's address, `next` the field holding the next
 *             one's (NULL ends it), `count` the most followed (a loop in
 *             the list cannot make the dump endless)
 *   context   the field holding the address of the thread's saved context,
 *             as `layout` describes it (struct sfu_switch_layout; one with
 *             trap layouts for an RTOS whose saved context is a trap frame)
 *   id, name  (optional) for the header line; no id: the thread's index
 *   state     (optional) an integer field; states[value] is the text of the
 *             header line, NULL for a slot not in use (a free TCB: not
 *             dumped); a value past nstates prints "?"
 *   stacks    up to SFU_DUMP_TABLE_STACKS per thread (its own, its own
 *             exception stack): the fields of the lowest and highest
 *             address, or with hi_is_size of the base and the size
 *             (SFU_DUMP_STACK, SFU_DUMP_STACK_SIZE); plus shared[0..nshared)
 *             every thread may trap onto (interrupt and exception stacks)
 *   current   (optional) the address of the kernel's pointer to the running
 *             thread: that thread is not dumped (its stack is the caller's:
 *             sfu_dump_stack shows it)
 *
 * Every field is named by SFU_DUMP_FIELD(type, member): its offset and size
 * (1, 2, 4 or 8 bytes; the address fields 4 or 8); a field left out is
 * zero, i.e. absent.  Fields are read through the dump's checked read (the
 * thread structs must lie in its RAM) as little-endian integers.  The
 * description is checked before anything is read (sfu_dump_table_check):
 * a bad one is refused with one line, never walked. */
#ifndef SFU_DUMP_TABLE_STACKS
#define SFU_DUMP_TABLE_STACKS 2
#endif
#ifndef SFU_DUMP_MAX_THREADS
#define SFU_DUMP_MAX_THREADS 4096
#endif

/* A field of the thread struct: offset + 1 (0: absent) and size. */
struct sfu_dump_field {
    uint16_t at;
    uint8_t size;
};
#define SFU_DUMP_FIELD(type, member) { (uint16_t)(offsetof(type, member) + 1u), (uint8_t)sizeof(((type *)0)->member) }

/* A stack of the thread: [lo, hi] from two fields, or [base, base + size]. */
struct sfu_dump_span {
    struct sfu_dump_field lo, hi;
    bool hi_is_size;
};
#define SFU_DUMP_STACK(type, lo, hi) { SFU_DUMP_FIELD(type, lo), SFU_DUMP_FIELD(type, hi), false }
#define SFU_DUMP_STACK_SIZE(type, base, size) { SFU_DUMP_FIELD(type, base), SFU_DUMP_FIELD(type, size), true }

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
};

/* The lines a description usually is, as designated initializers:
 *   SFU_DUMP_ARRAY(T, threads, n)            an array of n struct T
 *   SFU_DUMP_LIST(T, &head, next, max)       a list through T.next
 *   SFU_DUMP_SAVED(T, ctx, &layout)          the saved-context field
 *   SFU_DUMP_INFO(T, id, name, state, names) header fields; names an
 *                                            array (its length is taken)
 *   SFU_DUMP_STACKS(T, lo, hi)               one stack per thread
 *   SFU_DUMP_STACKS2(T, lo, hi, lo2, hi2)    two (its own, its exception
 *                                            stack) */
#define SFU_DUMP_ARRAY(T, array_, n) .array = (array_), .count = (n), .size = sizeof(T)
#define SFU_DUMP_LIST(T, head_, next_, max) .head = (head_), .count = (max), .size = sizeof(T), .next = SFU_DUMP_FIELD(T, next_)
#define SFU_DUMP_SAVED(T, ctx_, layout_) .context = SFU_DUMP_FIELD(T, ctx_), .layout = (layout_)
#define SFU_DUMP_INFO(T, id_, name_, state_, names_)                                               \
    .id = SFU_DUMP_FIELD(T, id_), .name = SFU_DUMP_FIELD(T, name_), .state = SFU_DUMP_FIELD(T, state_), \
    .states = (names_), .nstates = sizeof(names_) / sizeof((names_)[0])
#define SFU_DUMP_STACKS(T, lo, hi) .stacks = { SFU_DUMP_STACK(T, lo, hi) }
#define SFU_DUMP_STACKS2(T, lo, hi, lo2, hi2) .stacks = { SFU_DUMP_STACK(T, lo, hi), SFU_DUMP_STACK(T, lo2, hi2) }

/* ---- API ---------------------------------------------------------------- */

/* Print the backtrace of the caller (frame #0 is sfu_dump_stack itself).
 * Returns why the walk stopped, or the section's error. */
SFU_DEF int sfu_dump_stack(struct sfu_dump *d);

/* Print the backtrace that starts at regs, walked on port (NULL:
 * &d->port). */
SFU_DEF int sfu_dump_regs(struct sfu_dump *d, const sfu_port *port, const sfu_regs *regs);

/* Print the backtrace of the context interrupted by the trap frame at
 * frame, as layout describes it (NULL: d's first trap layout).  The frame
 * must pass the port's checked read (SFU_E_READ otherwise), and a
 * layout sfu_port_layout_check refuses gives SFU_E_ARG; a frame that says
 * user mode prints its one frame and ends with SFU_END_USER. */
SFU_DEF int sfu_dump_trap(struct sfu_dump *d, const struct sfu_trap_layout *layout, uint64_t frame);

/* Dump every thread next(arg, 0), next(arg, 1), ... gives: a header line
 *     thread ID NAME: STATE, stack 0xLO .. 0xHI[, 0xLO .. 0xHI ...]
 * then its backtrace.  Returns the last walk's stop code (SFU_OK if the
 * iterator gave no thread). */
SFU_DEF int sfu_dump_threads(struct sfu_dump *d, sfu_dump_next_fn next, void *arg);

/* Dump every thread of the table t (see "a thread table"): its header
 * line and its backtrace, each walk bounded by that thread's stacks.  A
 * description sfu_dump_table_check refuses prints one line ("thread table
 * refused: ...") and returns SFU_E_ARG; a list pointer that cannot be read
 * ends the dump with a line and SFU_E_READ; a thread whose stacks are
 * empty is refused alone (SFU_E_ARG on its line).  Else as
 * sfu_dump_threads. */
SFU_DEF int sfu_dump_thread_table(struct sfu_dump *d, const struct sfu_dump_table *t);

/* 0 if t can be used, else the first rule it breaks: 1 neither or both of
 * array and head, 2 size or count 0, or count over SFU_DUMP_MAX_THREADS, or
 * the array past the address space, 3 a field past the struct or of a size
 * it cannot have (context and a list's next required), 4 no layout, or one
 * sfu_port_switch_check refuses, 5 a state field without names, 6 no
 * stack, a stack with one field only, or more stacks than
 * SFU_PORT_THREAD_STACKS.  The text of rule n: sfu_dump_table_error(n). */
SFU_DEF int sfu_dump_table_check(const struct sfu_dump_table *t);
SFU_DEF const char *sfu_dump_table_error(int rule);

/* The port of one thread of t (thread: the address of its struct), built
 * in d (valid until the next table dump or call): bounds and reads are its
 * stacks, as in sfu_dump_thread_table; for sfu_dump_regs when a fault
 * handler dumps the running thread within its own stacks.  NULL if t is
 * refused or the thread's stacks are empty, and while a dump is under way
 * on d (its walk may be on that port: an interrupting handler gets NULL,
 * not the interrupted walk's bounds rewritten). */
SFU_DEF const sfu_port *sfu_dump_thread_port(struct sfu_dump *d, const struct sfu_dump_table *t, const void *thread);

/* Split the sections now (the first dump does it otherwise), and check
 * them against the code range if d has one (sfu_section_split_code):
 * SFU_OK or the error, which every dump then reports instead of
 * walking. */
SFU_DEF int sfu_dump_sections(struct sfu_dump *d);

/* Output through d's hook, for the lines around a dump: a string, a
 * number in hexadecimal ("0x" and at least `digits` digits, zero-padded;
 * 20 at most) or in decimal. */
SFU_DEF void sfu_dump_str(const struct sfu_dump *d, const char *s);
SFU_DEF void sfu_dump_hex(const struct sfu_dump *d, uint64_t v, unsigned digits);
SFU_DEF void sfu_dump_dec(const struct sfu_dump *d, uint64_t v);

/* One frame line and the stop line, as a dump prints them, for frames
 * kept elsewhere (a crash record read back after a reset): stub marks the
 * vector code's call "(exception)" (the frame after it came from a trap
 * frame, how == SFU_HOW_TRAP). */
SFU_DEF void sfu_dump_frame(const struct sfu_dump *d, unsigned n, const sfu_frame *f, bool stub);
SFU_DEF void sfu_dump_stop(const struct sfu_dump *d, unsigned n, int err);

/* The text and the name ("SFU_END") of an error code; "?" if unknown. */
SFU_DEF const char *sfu_dump_error_text(int err);
SFU_DEF const char *sfu_dump_error_name(int err);

/* The entry of t covering addr, or NULL (t NULL or not a table: NULL). */
SFU_DEF const struct sfu_sym *sfu_symtab_find(const struct sfu_symtab *t, uint64_t addr);
/* Its name, or NULL if the offset lies outside the pool. */
SFU_DEF const char *sfu_symtab_name(const struct sfu_symtab *t, const struct sfu_sym *s);

#ifdef __cplusplus
}
#endif

#endif /* SFU_DUMP_H */

/* ======================================================================== */
#ifdef SFU_IMPLEMENTATION
#ifndef SFU_DUMP_IMPLEMENTATION_DONE
#define SFU_DUMP_IMPLEMENTATION_DONE

#if defined(__GNUC__) || defined(__clang__)
#define SFU__DUMP_NOINLINE __attribute__((noinline))
#else
#define SFU__DUMP_NOINLINE
#endif
#ifdef SFU_STATIC
#define SFU__DUMP_FN SFU_DEF SFU__DUMP_NOINLINE
#else
#define SFU__DUMP_FN SFU__DUMP_NOINLINE
#endif

SFU_CODEGEN_BEGIN

/* ---- output ---------------------------------------------------------------- */

static SFU__DUMP_NOINLINE void sfu__dump_put(const struct sfu_dump *d, const char *s, size_t n)
{
    if (n != 0 && d->write != NULL)
        d->write(s, n);
    else if (d->write == NULL && d->putc != NULL)
        while (n--)
            d->putc(*s++);
}

static SFU__DUMP_NOINLINE void sfu__dump_strn(const struct sfu_dump *d, const char *s, size_t max)
{
    size_t n = 0;

    if (s == NULL)
        s = "(null)";
    while (n < max && s[n] != '\0')
        n++;
    sfu__dump_put(d, s, n);
}

SFU__DUMP_FN void sfu_dump_str(const struct sfu_dump *d, const char *s)
{
    sfu__dump_strn(d, s, (size_t)-1);
}

/* v in base 16 (with "0x") or 10, at least `digits` digits. */
static SFU__DUMP_NOINLINE void sfu__dump_num(const struct sfu_dump *d, uint64_t v, unsigned base, unsigned digits)
{
    char buf[22];
    size_t i = sizeof buf;

    do {
        unsigned dig = (unsigned)(v % base);

        buf[--i] = (char)(dig < 10 ? '0' + dig : 'a' + dig - 10);
        v /= base;
    } while ((v != 0 || sizeof buf - i < digits) && i > 2);
    if (base == 16) {
        buf[--i] = 'x';
        buf[--i] = '0';
    }
    sfu__dump_put(d, &buf[i], sizeof buf - i);
}

SFU__DUMP_FN void sfu_dump_hex(const struct sfu_dump *d, uint64_t v, unsigned digits)
{
    sfu__dump_num(d, v, 16, digits);
}

SFU__DUMP_FN void sfu_dump_dec(const struct sfu_dump *d, uint64_t v)
{
    sfu__dump_num(d, v, 10, 1);
}

SFU__DUMP_FN const char *sfu_dump_error_text(int err)
{
#if SFU_ERROR_STRINGS
    /* The core's own table is there: one copy of the texts. */
    return sfu_strerror(err);
#else
    switch (err) {
#define SFU__DUMP_ERRTEXT(name, value, text) \
    case name:                            \
        return text;
        SFU_ERRORS(SFU__DUMP_ERRTEXT)
#undef SFU__DUMP_ERRTEXT
    default:
        return "?";
    }
#endif
}

SFU__DUMP_FN const char *sfu_dump_error_name(int err)
{
    switch (err) {
#define SFU__DUMP_NAME(name, value, text) \
    case name:                            \
        return #name;
        SFU_ERRORS(SFU__DUMP_NAME)
#undef SFU__DUMP_NAME
    default:
        return "?";
    }
}

/* ---- symbols ----------------------------------------------------------------- */

SFU__DUMP_FN const struct sfu_sym *sfu_symtab_find(const struct sfu_symtab *t, uint64_t addr)
{
    uint32_t lo = 0, hi;

    if (t == NULL || t->magic != SFU_SYMTAB_MAGIC)
        return NULL;
    hi = t->count;
    /* The last entry whose start is <= addr. */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;

        if (t->sym[mid].addr <= addr)
            lo = mid + 1u;
        else
            hi = mid;
    }
    if (lo == 0 || addr - t->sym[lo - 1u].addr >= t->sym[lo - 1u].size)
        return NULL;
    return &t->sym[lo - 1u];
}

SFU__DUMP_FN const char *sfu_symtab_name(const struct sfu_symtab *t, const struct sfu_sym *s)
{
    if (t == NULL || s == NULL || s->name >= t->names)
        return NULL;
    return (const char *)&t->sym[t->count] + s->name;
}

/* The name of the function holding addr, and its start and size. */
static const char *sfu__dump_name(const struct sfu_dump *d, uint64_t addr, uint64_t *start, uint64_t *size,
                                   size_t *max)
{
    const struct sfu_sym *s;
    const char *name;

    *max = SFU_DUMP_NAME_MAX;
    if (d->name != NULL)
        return d->name(d, addr, start, size);
    s = sfu_symtab_find(d->symtab, addr);
    name = sfu_symtab_name(d->symtab, s);
    if (name == NULL)
        return NULL;
    if (d->symtab->names - s->name < *max)
        *max = d->symtab->names - s->name; /* never past the pool */
    *start = s->addr;
    *size = s->size;
    return name;
}

/* ---- frames ------------------------------------------------------------------ */

/* "  #N  0xADDR name+0xOFF/0xSIZE [marker]" (README "The dump format"). */
SFU__DUMP_FN void sfu_dump_frame(const struct sfu_dump *d, unsigned n, const sfu_frame *f, bool stub)
{
    uint64_t start = 0, size = 0;
    size_t max = 0;
    const char *name = NULL;

    /* The name first: a lookup that faults (a corrupt table) does so
     * before anything of this frame's line is out. */
    if (!(f->flags & SFU_FRAME_USER))
        name = sfu__dump_name(d, sfu_frame_lookup_pc(f), &start, &size, &max);
    sfu__dump_put(d, "  #", 3);
    sfu__dump_num(d, n, 10, 1);
    sfu__dump_put(d, "   ", n < 10 ? 2 : 1);
    sfu__dump_num(d, f->pc, 16, 16);
    sfu__dump_put(d, " ", 1);
    if (name != NULL) {
        sfu__dump_strn(d, name, max);
        sfu__dump_put(d, "+", 1);
        sfu__dump_num(d, f->pc - start, 16, 1);
        sfu__dump_put(d, "/", 1);
        sfu__dump_num(d, size, 16, 1);
    } else {
        sfu__dump_put(d, "??", 2);
    }
    /* How to look the address up: exact for #0, (interrupted), (user). */
    if (f->flags & SFU_FRAME_USER)
        sfu_dump_str(d, " (user)");
    else if (n > 0 && (f->flags & SFU_FRAME_EXACT))
        sfu_dump_str(d, " (interrupted)");
    else if (stub)
        sfu_dump_str(d, " (exception)");
    sfu__dump_put(d, "\n", 1);
}

/* "backtrace: N frames, stopped: TEXT (CODE)" */
SFU__DUMP_FN void sfu_dump_stop(const struct sfu_dump *d, unsigned n, int err)
{
    sfu_dump_str(d, "backtrace: ");
    sfu__dump_num(d, n, 10, 1);
    sfu_dump_str(d, n == 1 ? " frame, stopped: " : " frames, stopped: ");
    sfu_dump_str(d, sfu_dump_error_text(err));
    sfu_dump_str(d, " (");
    sfu_dump_str(d, sfu_dump_error_name(err));
    sfu_dump_str(d, ")\n");
}

SFU__DUMP_FN int sfu_dump_sections(struct sfu_dump *d)
{
    size_t n = 0;
    int err;

    if (d->secs_err >= 0)
        return d->secs_err;
    if (d->sframe == NULL || d->sframe_end < d->sframe || (d->text != NULL && d->text_end <= d->text))
        err = SFU_E_ARG;
    else if (d->text != NULL)
        err = sfu_section_split_code(d->secs, SFU_DUMP_SECTIONS, &n, d->sframe, (size_t)(d->sframe_end - d->sframe),
                                     (uint64_t)(uintptr_t)d->sframe, d->opts, (uint64_t)(uintptr_t)d->text,
                                     (uint64_t)(uintptr_t)d->text_end);
    else
        err = sfu_section_split(d->secs, SFU_DUMP_SECTIONS, &n, d->sframe, (size_t)(d->sframe_end - d->sframe),
                                (uint64_t)(uintptr_t)d->sframe, d->opts);
    d->nsecs = n;
    d->secs_err = err;
    return err;
}

/* Is the frame the vector code's call into its handler: a return address
 * at which the port recognises a trap frame?  Asked before the step (a
 * step that then refuses the frame, say for an interrupted SP off every
 * stack, still shows where the exception came in).  Out of line: its
 * register block is off the walk's stack. */
static SFU__DUMP_NOINLINE bool sfu__dump_is_stub(const sfu_port *port, uint64_t pc, uint64_t sp)
{
    sfu_regs t;

    t.pc = t.sp = t.fp = t.ra = 0;
    t.dwarf = NULL;
    t.ndwarf = 0;
    t.dwarf_map = NULL;
    return port->trap != NULL && port->trap(port->ctx, pc, sp, &t) != SFU_TRAP_NONE;
}

/* Print the cursor's frame n, and give it to the frame hook.  Its frame
 * record is built here, off the walk's stack. */
static SFU__DUMP_NOINLINE void sfu__dump_cursor_frame(struct sfu_dump *d, unsigned n, const sfu_cursor *c)
{
    sfu_frame f;

    f.pc = c->regs.pc;
    f.sp = c->regs.sp;
    f.cfa = c->cfa;
    f.how = c->how;
    f.flags = (uint8_t)((c->exact ? SFU_FRAME_EXACT : 0u) | (c->user ? SFU_FRAME_USER : 0u));
    sfu_dump_frame(d, n, &f, !c->exact && !c->user && sfu__dump_is_stub(c->port, f.pc, f.sp));
    if (d->frame != NULL)
        d->frame(d, n, &f);
}

/* A context that gives no registers: one line and the stop line. */
static SFU__DUMP_NOINLINE void sfu__dump_refused(struct sfu_dump *d, const char *what, uint64_t addr, int err)
{
    sfu_dump_str(d, what);
    sfu_dump_hex(d, addr, 16);
    sfu_dump_str(d, ": ");
    sfu_dump_str(d, sfu_dump_error_text(err));
    sfu_dump_str(d, "\nbacktrace:\n");
    sfu_dump_stop(d, 0, err);
}

/* The registers held by a trap frame at frame, read through port's
 * checks, into *r: SFU_TRAP_KERNEL or SFU_TRAP_USER, or -SFU_E_ARG (a
 * layout sfu_port_layout_check refuses), -SFU_E_READ (not readable). */
static int sfu__dump_trap_regs(const sfu_port *port, const struct sfu_trap_layout *l, uint64_t frame, sfu_regs *r)
{
    int kind;

    if (l == NULL || sfu_port_layout_check(l) != 0)
        return -SFU_E_ARG;
    if (!sfu_port_block_ok(port->ctx, frame, l->frame_size, l->frame_align))
        return -SFU_E_READ;
    kind = sfu_port_trap_regs(l, frame, r);
    /* A frame whose SP cannot be known is refused as an unreadable one:
     * the walk would start from a made-up SP. */
    return kind == SFU_TRAP_UNREADABLE ? -SFU_E_READ : kind;
}

/* "thread ID NAME: STATE, stack 0xLO .. 0xHI, ..." */
static void sfu__dump_thread_header(struct sfu_dump *d, const struct sfu_dump_thread *t, const sfu_port *port)
{
    size_t i;
    bool one = port->stack_lo != 0 || port->stack_hi != 0;

    sfu_dump_str(d, "thread ");
    sfu_dump_dec(d, t->id);
    if (t->name != NULL) {
        sfu_dump_str(d, " ");
        sfu__dump_strn(d, t->name, SFU_DUMP_NAME_MAX);
    }
    sfu_dump_str(d, ": ");
    sfu__dump_strn(d, t->state != NULL ? t->state : "?", SFU_DUMP_NAME_MAX);
    for (i = one ? 0 : 1; port->stacks != NULL && i <= port->nstacks; i++) {
        sfu_dump_str(d, i == 0 || (i == 1 && !one) ? ", stack " : ", ");
        sfu_dump_hex(d, i == 0 ? port->stack_lo : port->stacks[i - 1u].lo, 16);
        sfu_dump_str(d, " .. ");
        sfu_dump_hex(d, i == 0 ? port->stack_hi : port->stacks[i - 1u].hi, 16);
    }
    if (port->stacks == NULL && one) {
        sfu_dump_str(d, ", stack ");
        sfu_dump_hex(d, port->stack_lo, 16);
        sfu_dump_str(d, " .. ");
        sfu_dump_hex(d, port->stack_hi, 16);
    }
    sfu_dump_str(d, "\n");
}

/* ---- the thread table -------------------------------------------------------- */

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

SFU__DUMP_FN int sfu_dump_table_check(const struct sfu_dump_table *t)
{
    size_t i, n = 0;

    if (t == NULL || (t->array == NULL) == (t->head == NULL))
        return 1;
    if (t->size == 0 || t->count == 0 || t->count > SFU_DUMP_MAX_THREADS || t->size > 0xffffu ||
        (uint64_t)(uintptr_t)t->array > UINT64_MAX - (uint64_t)t->count * t->size)
        return 2;
    if (t->context.at == 0 || !sfu__dump_field_ok(t, t->context, true) ||
        (t->head != NULL && t->next.at == 0) || !sfu__dump_field_ok(t, t->next, true) ||
        !sfu__dump_field_ok(t, t->id, false) || !sfu__dump_field_ok(t, t->state, false) ||
        (t->name.at != 0 && t->name.size != sizeof(const char *)) || !sfu__dump_field_ok(t, t->name, true))
        return 3;
    for (i = 0; i < SFU_DUMP_TABLE_STACKS; i++) {
        const struct sfu_dump_span *s = &t->stacks[i];

        if (s->lo.at == 0 && s->hi.at == 0)
            continue;
        if (!sfu__dump_field_ok(t, s->lo, true) || !sfu__dump_field_ok(t, s->hi, true))
            return 3;
        if (s->lo.at == 0 || s->hi.at == 0)
            return 6;
        n++;
    }
    if (t->layout == NULL || sfu_port_switch_check(t->layout) != 0)
        return 4;
    if (t->state.at != 0 && (t->states == NULL || t->nstates == 0))
        return 5;
    if ((t->shared == NULL && t->nshared != 0) || n + t->nshared == 0 || t->nshared > SFU_PORT_THREAD_STACKS ||
        n + t->nshared > SFU_PORT_THREAD_STACKS)
        return 6;
    return 0;
}

SFU__DUMP_FN const char *sfu_dump_table_error(int rule)
{
    switch (rule) {
    case 0:
        return "usable";
    case 1:
        return "neither an array nor a list, or both";
    case 2:
        return "size or count 0, count over SFU_DUMP_MAX_THREADS, or the array past the address space";
    case 3:
        return "a field past the struct or of a size it cannot have (context, a list's next: required)";
    case 4:
        return "no switch layout, or one sfu_port_switch_check refuses";
    case 5:
        return "a state field without state names";
    case 6:
        return "no stack, a stack with one field only, or more than SFU_PORT_THREAD_STACKS stacks";
    default:
        return "?";
    }
}

/* Field f of the thread struct at obj, through the dump's checked read
 * (little-endian, zero-extended); false if absent or not readable. */
static SFU__DUMP_NOINLINE bool sfu__dump_field(const struct sfu_dump *d, uint64_t obj, struct sfu_dump_field f,
                                               uint64_t *v)
{
    uint64_t addr = obj + f.at - 1u, w = 0;

    if (f.at == 0 || (addr & (f.size - 1u)) != 0 ||
        sfu_port_read((void *)(uintptr_t)&d->ctx, addr & ~(uint64_t)7, &w) != 0)
        return false;
    w >>= 8u * (addr & 7u);
    *v = f.size == 8 ? w : w & ((UINT64_C(1) << (8u * f.size)) - 1u);
    return true;
}

/* The port of the thread struct at obj, in d->thread: its stacks, then the
 * shared ones.  false if a stack cannot be read or is empty. */
static SFU__DUMP_NOINLINE bool sfu__dump_table_port(struct sfu_dump *d, const struct sfu_dump_table *t, uint64_t obj)
{
    size_t i, n = 0;
    uint64_t lo = 0, hi = 0;

    for (i = 0; i < SFU_DUMP_TABLE_STACKS; i++) {
        const struct sfu_dump_span *s = &t->stacks[i];

        if (s->lo.at == 0)
            continue;
        if (!sfu__dump_field(d, obj, s->lo, &lo) || !sfu__dump_field(d, obj, s->hi, &hi) ||
            (s->hi_is_size && hi > UINT64_MAX - lo))
            return false;
        d->thread.stacks[n].lo = lo;
        d->thread.stacks[n].hi = s->hi_is_size ? lo + hi : hi;
        n++;
    }
    for (i = 0; i < t->nshared; i++, n++) {
        d->thread.stacks[n].lo = t->shared[i].lo;
        d->thread.stacks[n].hi = t->shared[i].hi;
    }
    return sfu_port_thread_init(&d->thread, &d->ctx, d->thread.stacks, n) == SFU_OK;
}

/* The next thread of the table to dump, into *dt: 1, or 2 if its stacks
 * are refused (dt->frame: its struct), or 0 after the last (a struct or a
 * list pointer that cannot be read: said, d->tab.err SFU_E_READ). */
static SFU__DUMP_NOINLINE int sfu__dump_table_next(struct sfu_dump *d, struct sfu_dump_thread *dt)
{
    const struct sfu_dump_table *t = d->tab.t;
    uint64_t obj = 0, v = 0, cur = 0;

    if (t->current != NULL)
        cur = *(const volatile uintptr_t *)t->current; /* the kernel's variable, as given */
    for (; d->tab.k < t->count; d->tab.k++) {
        obj = d->tab.at;
        if (t->array != NULL)
            obj = (uint64_t)(uintptr_t)t->array + (uint64_t)d->tab.k * t->size;
        else if (obj == 0)
            return 0;
        else if (d->tab.k + 1u == t->count)
            d->tab.at = 0;
        else if (!sfu__dump_field(d, obj, t->next, &d->tab.at))
            break;
        if (obj == cur)
            continue;
        if (t->state.at != 0) {
            if (!sfu__dump_field(d, obj, t->state, &v))
                break;
            if (v < t->nstates && t->states[v] == NULL)
                continue; /* a slot not in use */
            dt->state = v < t->nstates ? t->states[v] : "?";
        }
        dt->id = d->tab.k;
        if ((t->id.at != 0 && !sfu__dump_field(d, obj, t->id, &dt->id)) ||
            (t->name.at != 0 && !sfu__dump_field(d, obj, t->name, &v)) ||
            !sfu__dump_field(d, obj, t->context, &dt->context))
            break;
        if (t->name.at != 0)
            dt->name = (const char *)(uintptr_t)v;
        dt->layout = t->layout;
        dt->frame = obj;
        d->tab.k++;
        if (!sfu__dump_table_port(d, t, obj))
            return 2;
        dt->port = &d->thread.port;
        return 1;
    }
    if (d->tab.k >= t->count)
        return 0;
    sfu_dump_str(d, "thread table: the thread at ");
    sfu_dump_hex(d, obj, 16);
    sfu_dump_str(d, " cannot be read\n");
    d->tab.err = SFU_E_READ;
    return 0;
}

SFU__DUMP_FN const sfu_port *sfu_dump_thread_port(struct sfu_dump *d, const struct sfu_dump_table *t, const void *thread)
{
    if (d->busy || sfu_dump_table_check(t) != 0 || thread == NULL ||
        !sfu__dump_table_port(d, t, (uint64_t)(uintptr_t)thread))
        return NULL;
    return &d->thread.port;
}

/* Where a thread's walk starts (sfu__dump_thread_start). */
#define SFU__DUMP_REGS 0    /* *r filled */
#define SFU__DUMP_RUNNING 1 /* the running thread: capture (*given NULL) */
#define SFU__DUMP_DONE 2    /* no thread i */
#define SFU__DUMP_GIVEN 3   /* the iterator's own registers: *given */
#define SFU__DUMP_SAID 4    /* refused, and said so */

/* Thread i of the iterator (d->w.next, NULL: the table's): its header
 * line and where its walk starts (d->w.c.regs; or d->w.regs, the
 * iterator's own), its port (d->w.port) and whether its first frame ran
 * in user mode (d->w.user).  The thread's description is in d, off the
 * walk's stack. */
static SFU__DUMP_NOINLINE int sfu__dump_thread_start(struct sfu_dump *d, size_t i)
{
    struct sfu_dump_thread *t = &d->w.t;
    sfu_regs *r = &d->w.c.regs;
    int kind, more;
    uint64_t at;

    /* Field by field: a struct assignment may become memset. */
    t->id = 0;
    t->name = t->state = NULL;
    t->port = NULL;
    t->regs = NULL;
    t->layout = NULL;
    t->context = 0;
    t->trap = NULL;
    t->frame = 0;
    /* No iterator: a thread table's own (sfu_dump_thread_table). */
    more = d->w.next != NULL ? (int)d->w.next(d->w.arg, i, t) : sfu__dump_table_next(d, t);
    if (!more)
        return SFU__DUMP_DONE;
    if (t->port != NULL)
        d->w.port = t->port;
    sfu__dump_thread_header(d, t, d->w.port);
    if (more == 2) {
        sfu__dump_refused(d, "  stacks of the thread at ", t->frame, SFU_E_ARG);
        return SFU__DUMP_SAID;
    }
    if (t->regs != NULL) {
        d->w.regs = t->regs;
        return SFU__DUMP_GIVEN;
    }
    if (t->layout != NULL) {
        kind = sfu_port_switch_regs(d->w.port->ctx, t->layout, t->context, r);
        at = t->context;
        /* Switched out in user mode: its one frame, the user's, then
         * SFU_END_USER from the walk itself. */
        d->w.user = kind == SFU_END_USER;
        if (kind != SFU_OK && kind != SFU_END_USER) {
            sfu__dump_refused(d, "  saved context at ", at, kind);
            return SFU__DUMP_SAID;
        }
        sfu_dump_str(d, "  saved context at ");
    } else if (t->trap != NULL) {
        kind = sfu__dump_trap_regs(d->w.port, t->trap, t->frame, r);
        at = t->frame;
        if (kind < 0) {
            sfu__dump_refused(d, "  trap frame at ", at, -kind);
            return SFU__DUMP_SAID;
        }
        d->w.user = kind == SFU_TRAP_USER;
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
    return SFU__DUMP_REGS;
}

/* One walk, streamed: each frame is printed as the cursor stands on it.
 * It starts at regs; or, NULL regs, here, with this function's own frame
 * not shown (the first frame is its caller's: sfu_dump_stack's,
 * sfu_dump_threads'); or at the trap frame at `at` as trap describes it;
 * or, with iter, at thread number `at` of d->w.next (-1 if there is
 * none; port is then the thread's, or d's own).  The cursor is d's (d->w.c), off the stack, and the registers a
 * walk starts from are built in it (sfu_cursor_init copies them onto
 * themselves): the walk's own frame is a few registers. */
static SFU__DUMP_NOINLINE int sfu__dump_walk(struct sfu_dump *d, const sfu_port *port, const sfu_regs *regs,
                                             const struct sfu_trap_layout *trap, bool iter, uint64_t at)
{
    sfu_cursor *c = &d->w.c;
    unsigned n = 0;
    bool user = false, skip = false;
    int err;

    if (iter) {
        d->w.port = &d->port; /* unless the thread has its own */
        d->w.regs = NULL;
        d->w.user = false;
        err = sfu__dump_thread_start(d, (size_t)at);
        if (err == SFU__DUMP_DONE)
            return -1;
        if (err == SFU__DUMP_SAID)
            return SFU_E_READ;
        port = d->w.port;
        regs = err == SFU__DUMP_REGS ? &c->regs : d->w.regs;
        user = d->w.user;
    } else if (trap != NULL) {
        err = sfu__dump_trap_regs(port, trap, at, &c->regs);
        if (err < 0) {
            sfu__dump_refused(d, "  trap frame at ", at, -err);
            return -err;
        }
        user = err == SFU_TRAP_USER;
        regs = &c->regs;
    }
    if (regs == NULL) {
        /* Here; the frame shown first is the caller's. */
        SFU_PORT_CAPTURE(&c->regs);
        regs = &c->regs;
        skip = true;
    }
    sfu_dump_str(d, "backtrace:\n");
    err = sfu_dump_sections(d);
    if (err != SFU_OK) {
        /* A section that does not read right gives no walk at all: a
         * trace from it could look complete and be wrong. */
        sfu_dump_str(d, "  .sframe refused, no walk: ");
        sfu_dump_str(d, sfu_dump_error_text(err));
        sfu_dump_str(d, "\n");
    } else {
        err = sfu_cursor_init(c, d->secs, d->nsecs, port, regs);
    }
    if (err == SFU_OK) {
        c->user = user;
        /* Without SFrame for this file the skip fails: then this frame
         * is shown, and the reason the walk stops. */
        if (skip && sfu_cursor_step(c) == SFU_OK)
            c->how = SFU_HOW_START;
        do {
            sfu__dump_cursor_frame(d, n++, c);
            err = sfu_cursor_step(c);
        } while (err == SFU_OK);
    }
    sfu_dump_stop(d, n, err);
    return err;
}

/* One dump at a time on d (the walk and the thread it is at are kept in
 * d): false, and a line, if one is under way; it was interrupted by the
 * code that calls this one, and goes on unharmed when that returns.  A
 * plain flag: within one CPU an interrupt sees it set or runs to its end
 * before the interrupted dump sets it. */
static SFU__DUMP_NOINLINE bool sfu__dump_enter(struct sfu_dump *d)
{
    if (d->busy) {
        sfu_dump_str(d, "dump refused: another dump is under way on this struct sfu_dump\n");
        return false;
    }
    d->busy = 1;
    __asm__ volatile("" : : : "memory");
    return true;
}

static SFU__DUMP_NOINLINE int sfu__dump_leave(struct sfu_dump *d, int err)
{
    __asm__ volatile("" : : : "memory");
    d->busy = 0;
    return err;
}

SFU__DUMP_FN int sfu_dump_regs(struct sfu_dump *d, const sfu_port *port, const sfu_regs *regs)
{
    if (regs == NULL)
        return SFU_E_ARG;
    if (!sfu__dump_enter(d))
        return SFU_E_ARG;
    return sfu__dump_leave(d, sfu__dump_walk(d, port != NULL ? port : &d->port, regs, NULL, false, 0));
}

SFU__DUMP_FN int sfu_dump_stack(struct sfu_dump *d)
{
    int err;

    if (!sfu__dump_enter(d))
        return SFU_E_ARG;
    err = sfu__dump_walk(d, &d->port, NULL, NULL, false, 0);
    /* Not a tail call: this function's frame must be there, the first
     * frame of the dump (see WHAT IS DUMPED). */
    __asm__ volatile("" : : : "memory");
    return sfu__dump_leave(d, err);
}

SFU__DUMP_FN int sfu_dump_trap(struct sfu_dump *d, const struct sfu_trap_layout *layout, uint64_t frame)
{
    if (layout == NULL && d->ctx.ntraps > 0)
        layout = &d->ctx.traps[0];
    if (layout == NULL) {
        sfu__dump_refused(d, "  trap frame at ", frame, SFU_E_ARG);
        return SFU_E_ARG;
    }
    if (!sfu__dump_enter(d))
        return SFU_E_ARG;
    return sfu__dump_leave(d, sfu__dump_walk(d, &d->port, NULL, layout, false, frame));
}

/* Every thread d->w.next (NULL: the table) gives; the last walk's stop
 * code.  Inlined: no frame of its own under the walk, and the frame it
 * puts in its caller's holds d and the index only (the rest is in d). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline int sfu__dump_all(struct sfu_dump *d, sfu_dump_next_fn next, void *arg)
{
    uint64_t i;
    int err;

    d->w.next = next;
    d->w.arg = arg;
    d->w.last = SFU_OK;
    for (i = 0;; i++) {
        err = sfu__dump_walk(d, NULL, NULL, NULL, true, i);
        if (err < 0)
            return d->w.last;
        d->w.last = err;
    }
}

SFU__DUMP_FN int sfu_dump_threads(struct sfu_dump *d, sfu_dump_next_fn next, void *arg)
{
    if (next == NULL)
        return SFU_E_ARG;
    if (!sfu__dump_enter(d))
        return SFU_E_ARG;
    return sfu__dump_leave(d, sfu__dump_all(d, next, arg));
}

/* A table dump's start: t checked (a refused one said), its place in d. */
static SFU__DUMP_NOINLINE int sfu__dump_table_begin(struct sfu_dump *d, const struct sfu_dump_table *t)
{
    int rule = sfu_dump_table_check(t);

    if (rule != 0) {
        sfu_dump_str(d, "thread table refused: ");
        sfu_dump_str(d, sfu_dump_table_error(rule));
        sfu_dump_str(d, "\n");
        return SFU_E_ARG;
    }
    d->tab.t = t;
    d->tab.k = 0;
    /* The list's head variable is the user's own: read as it is. */
    d->tab.at = t->head != NULL ? (uint64_t)*(const volatile uintptr_t *)t->head : 0;
    d->tab.err = SFU_OK;
    return SFU_OK;
}

SFU__DUMP_FN int sfu_dump_thread_table(struct sfu_dump *d, const struct sfu_dump_table *t)
{
    int last;

    if (!sfu__dump_enter(d))
        return SFU_E_ARG;
    if (sfu__dump_table_begin(d, t) != SFU_OK)
        return sfu__dump_leave(d, SFU_E_ARG);
    /* No iterator: sfu__dump_thread_start takes the table's next, d->tab. */
    last = sfu__dump_all(d, NULL, NULL);
    return sfu__dump_leave(d, d->tab.err != SFU_OK ? d->tab.err : last);
}

SFU_CODEGEN_END

#endif /* SFU_DUMP_IMPLEMENTATION_DONE */
#endif /* SFU_IMPLEMENTATION */
