/* SPDX-License-Identifier: MIT */
/* sfu_dump.h - the crash path, ready made: backtraces printed through one
 * output hook, with no printf, no libc, no heap and a bounded stack.
 *
 * USAGE
 *   Build with -I <sfu>/core -I <sfu>/crash -I <sfu>/port (or pkg-config,
 *   or CMake's sfu::sfu) and, in the one file that holds sfu's code:
 *
 *       #define SFU_IMPLEMENTATION
 *       #include "sfu_dump.h"
 *
 *       void board_putc(char c);
 *       static struct sfu_dump_state dump_state;         // zeroed: .bss
 *       static const struct sfu_dump dump = SFU_DUMP_PUTC(&dump_state, board_putc, NULL, 0);
 *
 *       ... in panic():  sfu_dump_stack(&dump);
 *
 *   The description (struct sfu_dump) is constant data: nothing of yours
 *   runs on the crash path but the output hook.  Its state is zeroed RAM
 *   the dumps keep their walk in.  SFU_DUMP_PUTC reads the linker
 *   script's [__ram_start, __ram_end); with a write hook and ranges of
 *   your own, SFU_DUMP_INIT.  Other files include it plainly (without
 *   SFU_IMPLEMENTATION) to call the functions; SFU_STATIC makes every
 *   function static, as in the core.  Every thread (step 3): include
 *   sfu_threads.h instead, which includes this file.
 *
 * THE API, BY TIER
 *   firmware   the description (SFU_DUMP_PUTC, SFU_DUMP_INIT; the trap
 *              layouts of sfu_layout.h; sfu_threads.h's thread table) and
 *              five calls: sfu_dump_stack (panic), sfu_dump_trap (a fault
 *              or interrupt handler given its trap frame), sfu_dump_regs
 *              (registers you have), sfu_dump_threads (every thread),
 *              sfu_dump_check (at boot: the description and the section,
 *              with the rule a mistake breaks).  sfu_dump_str/_hex/_dec
 *              print the lines around a dump through the same hook;
 *              sfu_dump_cause prints a fault's cause (a handler that
 *              walks from where it is), sfu_dump_message names a panic
 *              for the record.  The crash record: SFU_DUMP_RECORD in the
 *              description, sfu_dump_record_print at boot (sfu_record.h).
 *   kernel     for walks of your own: sfu_port_read, sfu_port_trap,
 *              sfu_port_trap_regs, sfu_port_switch_regs,
 *              sfu_port_thread_init (sfu_layout.h), sfu_dump_threads_iter
 *              (threads by an iterator), sfu_dump_frame / sfu_dump_stop
 *              (frames kept elsewhere), sfu_symtab_find / _name.
 *   core       sfu_section_split, sfu_backtrace, sfu_cursor_* (core/sfu.h).
 *
 * THE CRASH PATH IN ANY CPU STATE
 *   Every function here is compiled between SFU_CODEGEN_BEGIN and
 *   SFU_CODEGEN_END, like the core: general registers only, no unaligned
 *   access, whatever the flags of the file that includes it, and never
 *   inlined into the caller.  What the user writes around it is constant
 *   data, the output hook and the calls.  Nothing is copied as a struct at
 *   run time: a struct copy is what compilers turn into SSE / q-register
 *   moves.
 *
 * WHAT IT READS
 *   A dump built for one CPU reads that CPU's SFrame ABI and byte order
 *   only (the ABI and byte-order knobs of core/sfu.h default to the
 *   compiler's target here; the host tools still read every one), and
 *   FLEX FDEs only where a kernel's code has them (s390x; not aarch64 or
 *   x86_64, where only a stack-realigning function has one: SFU_FLEX 1
 *   reads them).
 *   Stack words only through the checked read of the description's
 *   memory.
 *
 * THE OUTPUT HOOK
 *   void write(const char *s, size_t n): write n bytes (n >= 1; no NUL, no
 *   CR: add one before '\n' in the hook if the console wants CR LF), called
 *   with whole pieces (a name, a number's digits); or, with SFU_DUMP_PUTC,
 *   a console's void putc(char c), called once per byte.  The hook runs
 *   on the crash path: it must not take a lock the crashed code may hold
 *   (poll the UART), and it is built with the flags of its own file.
 *
 * THE DUMP FORMAT (tools/sfu-symbolize reads it)
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
 *   trace.  With SFU_DUMP_SP 1 each frame's SP follows its name
 *   ("chain_f+0x40/0x60 sp 0x0000000040255cb0"; none where the walk does
 *   not know it).  sfu_dump_trap's first line is the fault's cause, when
 *   the layout names the syndrome words (port/sfu_fault.h):
 *       fault: data abort, read at 0x0000000000000000: level 2 translation fault (ESR 0x96000006, EC 0x25)
 *   A description or a section that does not pass the check
 *   gives no walk: one line says why ("dump refused, no walk: traps[1]:
 *   regs.pc: ...", ".sframe refused, no walk: ...") and the last line
 *   gives 0 frames and the code (SFU_E_DESC, the section's error).
 *
 * WHERE A TRACE ENDS
 *   A trace is complete (SFU_END, SFU_END_USER, SFU_END_NEVER_RAN:
 *   SFU_COMPLETE) only where its end is known (core/sfu.h, THE END OF A
 *   STACK): SFrame's outermost marker, a function of .entries
 *   (SFU_DUMP_ENTRIES), a return address of 0 at the top of a stack the
 *   description bounds (.stacks, a thread's stacks) within .top bytes, a
 *   zeroed trap frame there.  "return address 0 inside the stack
 *   (SFU_E_ZERO_RA)" is a trace that stopped on zeroed memory: a misread,
 *   never an end.  A frame that says user mode ends the walk only if its
 *   SP lies on none of the walk's stacks.  README step 1 names its C entry
 *   point; give the boot stack's bounds (.stacks) or your entries.
 *
 * STACK
 *   No frame array: frames are printed as the cursor finds them (one
 *   frame of look-ahead, to mark the vector code's call).  The worst case
 *   of the whole path (walk and formatting, the output hook excluded) is
 *   printed by `make size` ("stack: dump <arch> <bytes>").  The walk's
 *   cursor and port are kept in the state, off the stack, so one state
 *   runs one dump at a time: a dump started while another is under way on
 *   the same state (an interrupt or a fault whose handler dumps, in the
 *   middle of a dump) walks nothing: it prints "dump refused: another dump
 *   is under way on this struct sfu_dump_state" and returns SFU_E_ARG,
 *   and the dump it interrupted goes on unharmed.  The flag is a plain
 *   store, not an atomic: two CPUs that may dump at once need one state
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
 *   SFU_DUMP_SYMTAB 1 the initializers point at `sfu_symtab`; or give
 *   .symtab, or a name hook (.name: a kernel's own kallsyms).
 *
 * CONFIGURATION (define before including; 0/1 knobs tested with #if)
 *   SFU_DUMP_SECTIONS        sections the state holds: GNU ld merges every
 *                            input .sframe into one; lld leaves one per
 *                            object (a dump refuses more than room, and
 *                            says how many it found)        (default 1)
 *   SFU_DUMP_LINKER_SFRAME   the initializers take the section from
 *                            __sframe_start/__sframe_end (linker/sframe.ld);
 *                            0: give .sframe and .sframe_end  (default 1)
 *   SFU_DUMP_SFRAME_OPTS     sfu_section_split options: lld-linked images
 *                            with pre-V3 sections need SFU_OPT_START_PCREL
 *                            (without it they are refused, SFU_E_LINKED)
 *                                                              (default 0)
 *   SFU_DUMP_LINKER_TEXT     the initializers take the code range from
 *                            __text_start/__text_end (linker/sframe.ld,
 *                            "Code bounds"): every function of the
 *                            sections is checked to lie in it, so a wrong
 *                            start option is refused (SFU_E_CODE_RANGE)
 *                            instead of walked                 (default 0)
 *   SFU_DUMP_SYMTAB          names from an embedded symbol table: the
 *                            initializers point .symtab at `sfu_symtab`
 *                            (tools/sfu-symtab); 0: no table read (a
 *                            .symtab given is refused; a name hook
 *                            works either way)                 (default 0)
 *   SFU_DUMP_NAME_MAX        longest name printed              (default 128)
 *   SFU_DUMP_SP              each frame's SP after its name: 22 more
 *                            characters a line, for a value the record
 *                            keeps anyway (on for checking against a
 *                            debugger, as the examples do)   (default 0)
 *   SFU_DUMP_LINKER_BUILD_ID SFU_DUMP_RECORD takes the image's build-id
 *                            note from __build_id_start/__build_id_end
 *                            (linker/build-id.ld; weak: none without it)
 *                                                              (default 1)
 *   and, unless defined before (so where sfu_dump.h or sfu_threads.h is
 *   the first sfu header the file includes; a port or layout header
 *   included first brings core/sfu.h's own defaults, every ABI):
 *   SFU_ERROR_STRINGS 1 (the dump prints the
 *   core's error texts); SFU_AMD64 / SFU_AARCH64 / SFU_S390X and
 *   SFU_LITTLE / SFU_BIG: the compiler's target only, SFU_FLEX 0 unless
 *   s390x is read (WHAT IT READS).
 */
#ifndef SFU_DUMP_H
#define SFU_DUMP_H

/* The CPU the dump runs on: its ABI and byte order only, unless the user
 * chose (any of the knobs of a group defined: the group is the user's).
 * FLEX FDEs (V3 3.2) only where the code a kernel is built from has them:
 * s390x (its register rules); not aarch64 (GNU as 2.47 writes none there,
 * nor does sfu-gen for what gcc and clang emit) nor x86_64 (only a
 * function that realigns its stack, DRAP, has one: none in the examples'
 * kernels, and reading them costs the dump about 1.7 KB of .text).  A
 * FLEX FDE then stops the walk with SFU_E_FDE_TYPE, whose text names
 * SFU_FLEX: never a wrong row.  Define SFU_FLEX 1 to walk through such
 * functions. */
#if !defined(SFU_AMD64) && !defined(SFU_AARCH64) && !defined(SFU_S390X)
#if defined(__x86_64__)
#define SFU_AMD64 1
#define SFU_AARCH64 0
#define SFU_S390X 0
#elif defined(__aarch64__)
#define SFU_AMD64 0
#define SFU_AARCH64 1
#define SFU_S390X 0
#elif defined(__s390x__)
#define SFU_AMD64 0
#define SFU_AARCH64 0
#define SFU_S390X 1
#endif
#endif
#if !defined(SFU_FLEX) && defined(SFU_S390X) && !SFU_S390X
#define SFU_FLEX 0
#endif
#if !defined(SFU_LITTLE) && !defined(SFU_BIG) && defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SFU_LITTLE 1
#define SFU_BIG 0
#else
#define SFU_LITTLE 0
#define SFU_BIG 1
#endif
#endif
#ifndef SFU_ERROR_STRINGS
#define SFU_ERROR_STRINGS 1
#endif
/* The machine whose registers a crash record's blocks hold (sfu_crash.h):
 * the CPU the dump runs on, 0 for one the record has no layout for. */
#if defined(__aarch64__)
#define SFU__REC_MACHINE 183u /* SFU_CRASH_EM_AARCH64 */
#elif defined(__x86_64__)
#define SFU__REC_MACHINE 62u /* SFU_CRASH_EM_X86_64 */
#else
#define SFU__REC_MACHINE 0u
#endif

#include "sfu_layout.h"
#include "sfu_crash.h"

/* A port without a fault decoder (port/sfu_fault.h) prints no cause. */
#ifndef SFU_FAULT_LINE
#define SFU_FAULT_LINE 200u
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if !SFU_ERROR_STRINGS
#error "sfu_dump.h prints the core's error texts: SFU_ERROR_STRINGS must be 1 where it is included"
#endif

#ifndef SFU_DUMP_SECTIONS
#define SFU_DUMP_SECTIONS 1
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
#ifndef SFU_DUMP_LINKER_BUILD_ID
#define SFU_DUMP_LINKER_BUILD_ID 1
#endif
#if SFU_DUMP_LINKER_BUILD_ID != 0 && SFU_DUMP_LINKER_BUILD_ID != 1
#error "SFU_DUMP_LINKER_BUILD_ID must be 0 or 1"
#endif
#ifndef SFU_DUMP_SP
#define SFU_DUMP_SP 0
#endif
#if SFU_DUMP_SP != 0 && SFU_DUMP_SP != 1
#error "SFU_DUMP_SP must be 0 or 1"
#endif
/* Set by sfu_threads.h (not by hand): the implementation dumps threads. */
#ifndef SFU_DUMP_THREADS
#define SFU_DUMP_THREADS 0
#endif
#if SFU_DUMP_THREADS != 0 && SFU_DUMP_THREADS != 1
#error "SFU_DUMP_THREADS must be 0 or 1 (include sfu_threads.h instead of setting it)"
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

/* ---- the description and its state ----------------------------------------- */

struct sfu_dump;
struct sfu_dump_table; /* sfu_threads.h */

/* The output hook (see THE OUTPUT HOOK), or a console's one-character
 * output (SFU_DUMP_PUTC): called per byte. */
typedef void (*sfu_dump_write_fn)(const char *s, size_t n);
typedef void (*sfu_dump_putc_fn)(char c);

/* A name hook: the function holding addr, its start and size, or NULL. */
typedef const char *(*sfu_dump_name_fn)(const struct sfu_dump *d, uint64_t addr, uint64_t *start,
                                        uint64_t *size);

/* A frame hook: called with each frame after its line is printed (n: its
 * number). */
typedef void (*sfu_dump_frame_fn)(const struct sfu_dump *d, unsigned n, const sfu_frame *f);

/* The crash record's writer (sfu_record.h: sfu_dump_record_event), called
 * by every dump, once per walk and per frame. */
typedef void (*sfu_dump_record_fn)(const struct sfu_dump *d, unsigned ev, unsigned n, int err);

/* One thread, as an iterator (sfu_dump_threads_iter) or the thread table
 * describes it; see sfu_threads.h. */
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
    bool anonymous;    /* no id: the header line shows none */
    uint64_t name_at;  /* a name kept in the thread's memory (char name[N]),
                        * read through the checked read, at most name_max
                        * bytes up to its NUL; 0: none */
    size_t name_max;
};
typedef bool (*sfu_dump_next_fn)(void *arg, size_t i, struct sfu_dump_thread *t);

/* What sfu_dump_check found wrong: the part of the description ("traps",
 * "stacks", "sframe", "threads", "threads.stacks", "threads.layout",
 * ...), its index in that array ((size_t)-1: not an array), and the rule
 * it breaks, naming the field. */
struct sfu_dump_why {
    const char *part;
    size_t index;
    const char *rule;
};

/* Where the dumps of one description keep their walk: zeroed memory
 * (static: .bss), one per description, written only by the dumps.  After
 * sfu_dump_check, nsecs and secs[] are the sections found (read them,
 * never write them). */
struct sfu_dump_state {
    volatile unsigned char busy; /* a dump is under way */
    unsigned char ready;         /* checked: err, why and the sections set */
    unsigned char user;          /* the walk's first frame ran in user mode */
    int err;                     /* sfu_dump_check's answer */
    struct sfu_dump_why why;
    size_t nsecs;                /* sections (with SFU_E_FULL: found) */
    struct sfu_port_ctx base;    /* the description's memory and layouts */
    struct sfu_port_thread port; /* the walk's port: base, or a thread's */
    sfu_cursor c;                /* the walk */
    struct {                     /* a threads dump: where it is */
        const struct sfu_dump_table *t;
        sfu_dump_next_fn next;   /* an iterator's (NULL: the table's) */
        void *arg;
        size_t k;                /* the next index; threads visited */
        uint64_t at;             /* a list's next node */
        uint64_t first;          /* a ring's first node, or a list's head node */
        size_t list;             /* the head node of lists[] being walked */
        int err, last, stop;     /* stop: a thread's refusal code */
        const sfu_regs *regs;    /* the iterator's registers, or NULL */
        struct sfu_dump_thread cur; /* the thread it is at */
    } th;
    sfu_section secs[SFU_DUMP_SECTIONS];
    char line[SFU_FAULT_LINE];   /* the last fault's cause, as printed */
    struct {                     /* the crash record (sfu_record.h) */
        uint32_t end;            /* where the next block goes */
        uint32_t blk, first;     /* the open block, the walk's first */
        uint32_t fr;             /* where the open block's next frame goes */
        uint16_t nthreads, dropped;
        uint8_t crashed, nf, skip, state;
        uint8_t open;            /* this boot's dumps write one record */
        uint8_t pending;         /* a dump started one: headers at its first frame */
        uint8_t crash;           /* the walk under way is the crash's */
        uint8_t full, stopped;   /* no room for frames, for a block */
        uint8_t cause;           /* the next record is a fault's: */
        uint16_t flags;          /* its words (sfu_crash.h flags) */
        uint64_t code, addr, cause_frame;
        const char *msg;         /* a panic's text (sfu_dump_message) */
        const char *name, *state_text; /* the walk's thread */
        char namebuf[SFU_CRASH_T_NAME]; /* its name read from its memory */
    } rec;
};

/* Everything a dump needs, constant (see USAGE): made by SFU_DUMP_INIT or
 * SFU_DUMP_PUTC, or written out with designated initializers. */
struct sfu_dump {
    struct sfu_dump_state *state;    /* required */
    sfu_dump_write_fn write;         /* the output: write, or */
    sfu_dump_putc_fn putc;           /* one character at a time */
    const struct sfu_port_range *ram; /* the memory walks may read, nram */
    size_t nram;                     /* ranges; ram NULL: linker_ram */
    struct sfu_port_range linker_ram;
    const struct sfu_trap_layout *traps; /* the vector code (step 2: */
    size_t ntraps;                   /* SFU_DUMP_TRAPS gives these four) */
    sfu_port_trap_fn trap;           /* the trap callback: sfu_port_trap */
    int (*trap_check)(const struct sfu_trap_layout *l, const char **why); /* sfu_layout_check */
    const sfu_stack *stacks;         /* bounds of a walk in no thread of */
    size_t nstacks;                  /* .threads; none: the memory only */
    const char *sframe, *sframe_end; /* the span of the .sframe sections */
    const char *text, *text_end;     /* the code range every function must lie in; NULL: no check */
    const struct sfu_symtab *symtab; /* NULL: no embedded names */
    sfu_dump_name_fn name;           /* NULL: names from symtab */
    sfu_dump_frame_fn frame;         /* NULL: none */
    const struct sfu_dump_table *threads; /* every thread (sfu_threads.h) */
    void *user;                      /* for the hooks */
    volatile uint8_t *record;        /* the crash record's buffer, record_size */
    size_t record_size;              /* bytes (SFU_DUMP_RECORD gives these four) */
    sfu_dump_record_fn record_fn;    /* its writer: sfu_dump_record_event */
    const char *build_id, *build_id_end; /* the GNU build-id note (linker/build-id.ld) */
    const uint64_t *entries;         /* where stacks start (SFU_DUMP_ENTRIES): */
    size_t nentries;                 /* the first byte of each entry function */
    uint32_t top;                    /* bytes at a stack's top its start leaves
                                      * (sfu_port.top; 0: SFU_TOP_FRAME) */
};

/* The fields the knobs give the initializers, each with its comma (or
 * nothing), so that no field is set twice. */
#if SFU_DUMP_LINKER_SFRAME
/* linker/sframe.ld's symbols under names of our own, so that a user's
 * declaration of __sframe_start with another type does not clash. */
extern char sfu__dump_sframe_start[] __asm__("__sframe_start");
extern char sfu__dump_sframe_end[] __asm__("__sframe_end");
#define SFU__DUMP_SFRAME .sframe = sfu__dump_sframe_start, .sframe_end = sfu__dump_sframe_end,
#else
#define SFU__DUMP_SFRAME
#endif
#if SFU_DUMP_LINKER_TEXT
extern char sfu__dump_text_start[] __asm__("__text_start");
extern char sfu__dump_text_end[] __asm__("__text_end");
#define SFU__DUMP_TEXT .text = sfu__dump_text_start, .text_end = sfu__dump_text_end,
#else
#define SFU__DUMP_TEXT
#endif
#if SFU_DUMP_SYMTAB
extern const struct sfu_symtab sfu__dump_symtab __asm__("sfu_symtab");
#define SFU__DUMP_SYMTAB .symtab = &sfu__dump_symtab,
#else
#define SFU__DUMP_SYMTAB
#endif

/* The fields of a constant struct sfu_dump: state_ the address of its
 * zeroed struct sfu_dump_state, write_fn the output hook, ram[0..nram) the
 * memory ranges stacks and trap frames lie in (struct sfu_port_range),
 * traps[0..ntraps) the vector code's layouts (NULL, 0 until step 2: the
 * image then links no trap code; ntraps must be a constant); the knobs
 * add the section, the code range and the symbol table.  A whole
 * initializer, or its fields (SFU_DUMP_INIT_FIELDS) to add others after
 * them (.stacks, .threads, .name, ...):
 *     static const struct sfu_dump dump = {
 *         SFU_DUMP_INIT_FIELDS(&state, out, ram, 2, traps, 1), .threads = &t };
 */
#define SFU_DUMP_INIT(state_, write_fn, ram_, nram_, traps_, ntraps_) \
    { SFU_DUMP_INIT_FIELDS(state_, write_fn, ram_, nram_, traps_, ntraps_) }
#define SFU_DUMP_INIT_FIELDS(state_, write_fn, ram_, nram_, traps_, ntraps_)                               \
    SFU__DUMP_SFRAME SFU__DUMP_TEXT SFU__DUMP_SYMTAB .state = (state_), .write = (write_fn), .ram = (ram_), \
        .nram = (nram_), SFU_DUMP_TRAPS(traps_, ntraps_)

/* The linker's RAM, [__ram_start, __ram_end), under names of our own (only
 * SFU_DUMP_PUTC refers to them). */
extern char sfu__dump_ram_start[] __asm__("__ram_start");
extern char sfu__dump_ram_end[] __asm__("__ram_end");

/* The short form, for a console with a putc: the memory a walk may read is
 * the linker script's [__ram_start, __ram_end) (every range your stacks
 * and trap frames lie in must be inside it; otherwise list the ranges with
 * SFU_DUMP_INIT), the output one putc_fn(c) per byte, traps[0..ntraps) as
 * in SFU_DUMP_INIT.  A whole initializer, or its fields
 * (SFU_DUMP_PUTC_FIELDS) to add others after them:
 *     static const struct sfu_dump dump = SFU_DUMP_PUTC(&state, putc, NULL, 0); */
#define SFU_DUMP_PUTC(state_, putc_fn, traps_, ntraps_) { SFU_DUMP_PUTC_FIELDS(state_, putc_fn, traps_, ntraps_) }
#define SFU_DUMP_PUTC_FIELDS(state_, putc_fn, traps_, ntraps_)                                             \
    SFU__DUMP_SFRAME SFU__DUMP_TEXT SFU__DUMP_SYMTAB .state = (state_), .putc = (putc_fn),                 \
        .linker_ram = { (uintptr_t)sfu__dump_ram_start, (uintptr_t)sfu__dump_ram_end },                   \
        SFU_DUMP_TRAPS(traps_, ntraps_)

/* Where a whole trace ends (core/sfu.h, THE END OF A STACK): the
 * functions a stack starts in, an array of their addresses (the kernel's
 * C entry point, a thread trampoline):
 *     static const uint64_t entries[] = { (uintptr_t)kernel_main };
 *     static const struct sfu_dump dump = {
 *         SFU_DUMP_PUTC_FIELDS(&state, putc, NULL, 0), SFU_DUMP_ENTRIES(entries) };
 * Each must be the first byte of a function the sections describe (the
 * check says which is not: an assembly entry needs its few lines of CFI,
 * docs/kernel-styles.md). */
#define SFU_DUMP_ENTRIES(entries_) .entries = (entries_), .nentries = sizeof(entries_) / sizeof((entries_)[0])

/* The vector code's layouts traps[0..ntraps) (ntraps a constant), with the
 * trap callback that reads them and its check: with ntraps 0 neither, and
 * an image that gives none links no trap code. */
#define SFU_DUMP_TRAPS(traps_, ntraps_)                                                                   \
    .traps = (traps_), .ntraps = (ntraps_), .trap = (ntraps_) ? sfu_port_trap : (sfu_port_trap_fn)0,       \
    .trap_check = (ntraps_) ? sfu_layout_check : 0

/* The crash record (sfu_record.h): every dump also writes it into
 * buf_[0..size_) (RAM a reset keeps, to print it at the next boot with
 * sfu_dump_record_print; or any), with the image's build-id from the
 * linker (SFU_DUMP_LINKER_BUILD_ID).  An image that gives none links no
 * record code.  A field list, after the others:
 *     static const struct sfu_dump dump = {
 *         SFU_DUMP_PUTC_FIELDS(&state, putc, NULL, 0), SFU_DUMP_RECORD(rec, sizeof rec) }; */
#if SFU_DUMP_LINKER_BUILD_ID
/* linker/build-id.ld's symbols, weak: an image linked without the
 * fragment (or without --build-id) links, and its record names no image. */
extern const char sfu__dump_build_id_start[] __asm__("__build_id_start") __attribute__((weak));
extern const char sfu__dump_build_id_end[] __asm__("__build_id_end") __attribute__((weak));
#define SFU__DUMP_BUILD_ID , .build_id = sfu__dump_build_id_start, .build_id_end = sfu__dump_build_id_end
#else
#define SFU__DUMP_BUILD_ID
#endif
#define SFU_DUMP_RECORD(buf_, size_)                                                                      \
    .record = (buf_), .record_size = (size_), .record_fn = sfu_dump_record_event SFU__DUMP_BUILD_ID

/* ---- API ---------------------------------------------------------------- */

/* Print the backtrace of the caller (frame #0 is sfu_dump_stack itself).
 * Returns why the walk stopped, or why there was none. */
SFU_DEF int sfu_dump_stack(const struct sfu_dump *d);

/* Print the backtrace that starts at regs. */
SFU_DEF int sfu_dump_regs(const struct sfu_dump *d, const sfu_regs *regs);

/* Print the backtrace of the context interrupted by the trap frame at
 * frame, as layout describes it (NULL: the first of d's trap layouts whose
 * variant matches the frame; SFU_E_ARG if d has none).  The frame must
 * pass the checked read (SFU_E_READ otherwise; it is not read at all if
 * the description does not pass the check); a frame that says user mode
 * prints its one frame and ends with SFU_END_USER. */
SFU_DEF int sfu_dump_trap(const struct sfu_dump *d, const struct sfu_trap_layout *layout, uint64_t frame);

/* The cause of a synchronous exception, from its fault handler: the
 * line its trap frame's syndrome decodes to (the layout's fault words,
 * sfu_layout.h; layout NULL: the first of d's layouts whose variant
 * matches the frame), printed ("fault: data abort, read at 0x0: level 2
 * translation fault (ESR 0x96000006, EC 0x25)"), and kept for the crash
 * record of the dump that follows: a fault's record, whose crashed block
 * is the one that starts at this frame.  For a dump that walks from the
 * handler through the frame (sfu_dump_stack); sfu_dump_trap does this
 * itself.  SFU_OK; SFU_E_ARG if the layout names no fault word or the
 * frame's words are not a fault's (an interrupt); SFU_E_READ, SFU_E_DESC
 * as sfu_dump_trap. */
SFU_DEF int sfu_dump_cause(const struct sfu_dump *d, const struct sfu_trap_layout *layout, uint64_t frame);

/* A panic's text for the crash record of the dump that follows (its
 * message field, 63 bytes; msg must live until that dump). */
SFU_DEF void sfu_dump_message(const struct sfu_dump *d, const char *msg);

/* Check the whole description once (at boot; every dump does it before
 * its first walk): the output hook, the memory, each trap layout, the
 * stacks, the thread table, then the sections (split, and checked against
 * the code range if given).  SFU_OK, SFU_E_DESC (why: the rule broken, and
 * where), or the section's error (why->rule its text).  why may be NULL.
 * The answer is kept in the state: a dump of a description that does not
 * pass prints why and walks nothing. */
SFU_DEF int sfu_dump_check(const struct sfu_dump *d, struct sfu_dump_why *why);

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

/* The entry of t covering addr, or NULL (t NULL or not a table: NULL). */
SFU_DEF const struct sfu_sym *sfu_symtab_find(const struct sfu_symtab *t, uint64_t addr);
/* Its name, or NULL if the offset lies outside the pool. */
SFU_DEF const char *sfu_symtab_name(const struct sfu_symtab *t, const struct sfu_sym *s);

#if SFU_DUMP_THREADS
/* sfu_threads.h's, for the dump's own use: the table's rules (NULL: it
 * keeps them), and the port of the running thread of the table, in the
 * state (1; 0: no thread is running; -1: its stacks cannot be read). */
SFU_DEF const char *sfu__dump_table_rule(const struct sfu_dump_table *t, const char **part, size_t *index);
SFU_DEF int sfu__dump_current_port(const struct sfu_dump *d);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SFU_DUMP_H */

/* The crash record's writer (its declarations; its bodies after the
 * dump's). */
#ifndef SFU_RECORD_H
#include "sfu_record.h"
#endif

/* ======================================================================== */
#ifdef SFU_IMPLEMENTATION
#ifndef SFU_DUMP_IMPLEMENTATION_DONE
#define SFU_DUMP_IMPLEMENTATION_DONE

/* Out of line, as the core's (and so, without SFU_FAST, cold: compiled
 * for size). */
#define SFU__DUMP_NOINLINE SFU__NOINLINE
#ifdef SFU_STATIC
#define SFU__DUMP_FN SFU_DEF SFU__DUMP_NOINLINE
#else
#define SFU__DUMP_FN SFU__DUMP_NOINLINE
#endif

SFU_CODEGEN_BEGIN

/* Between stores a compiler would merge into a call to memset (gcc and
 * clang do, at -O2 and -Os, unless the file is built with -ffreestanding
 * or -fno-builtin, which many kernels do not pass): an empty asm that may
 * read the memory stored. */
#define SFU__DUMP_KEEP_STORES(p) __asm__ volatile("" : : "r"(p) : "memory")

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
#if !SFU_DUMP_SYMTAB
    (void)s;
    (void)name;
    return NULL; /* no table built in (the check refuses a .symtab) */
#else
    s = sfu_symtab_find(d->symtab, addr);
    name = sfu_symtab_name(d->symtab, s);
    if (name == NULL)
        return NULL;
    if (d->symtab->names - s->name < *max)
        *max = d->symtab->names - s->name; /* never past the pool */
    *start = s->addr;
    *size = s->size;
    return name;
#endif
}

/* ---- frames ------------------------------------------------------------------ */

/* "  #N  0xADDR name+0xOFF/0xSIZE [marker]" (THE DUMP FORMAT). */
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
#if SFU_DUMP_SP
    /* The frame's SP (THE DUMP FORMAT: after the name, before the marker);
     * none for a frame kept without it (0: a crash record's trace part). */
    if (f->sp != 0) {
        sfu__dump_put(d, " sp ", 4);
        sfu__dump_num(d, f->sp, 16, 16);
    }
#endif
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
    sfu_dump_str(d, sfu_strerror(err));
    sfu_dump_str(d, " (");
    sfu_dump_str(d, sfu_errname(err));
    sfu_dump_str(d, ")\n");
}

/* ---- the check ------------------------------------------------------------------ */

/* The description's rules, the sections aside: NULL if it keeps them,
 * else the rule it breaks, its part and index in *why. */
static const char *sfu__dump_rules(const struct sfu_dump *d, struct sfu_dump_why *why)
{
    const char *w = NULL;
    size_t i;

    why->index = (size_t)-1;
    why->part = "output";
    if (d->write == NULL && d->putc == NULL)
        return "no write or putc";
    why->part = "sframe";
    if (d->sframe == NULL || d->sframe_end < d->sframe)
        return "none, or sframe_end below it";
    why->part = "text";
#if !SFU_DUMP_LINKER_TEXT
    /* The code range is checked where the knob builds the check (its
     * size): a range given without it is refused, never ignored. */
    if (d->text != NULL)
        return "given, and SFU_DUMP_LINKER_TEXT 0 builds no check of it";
#endif
    if (d->text != NULL && d->text_end <= d->text)
        return "text_end not above text";
#if !SFU_DUMP_SYMTAB
    why->part = "symtab";
    if (d->symtab != NULL)
        return "given, and SFU_DUMP_SYMTAB 0 reads no table";
#endif
    why->part = "ram";
    if (d->ram == NULL && !(d->linker_ram.start < d->linker_ram.end))
        return "none (ram, or an empty linker_ram)";
    for (i = 0; d->ram != NULL && i < d->nram; i++) {
        why->index = i;
        if (!(d->ram[i].start < d->ram[i].end))
            return "start not below end";
    }
    why->index = (size_t)-1;
    why->part = "traps";
    if (d->ntraps != 0 && (d->traps == NULL || d->trap == NULL || d->trap_check == NULL))
        return "traps without trap and trap_check (SFU_DUMP_TRAPS)";
    for (i = 0; i < d->ntraps; i++) {
        why->index = i;
        if (d->trap_check(&d->traps[i], &w) != SFU_OK)
            return w;
    }
    why->index = (size_t)-1;
    why->part = "stacks";
    if (d->nstacks != 0 && d->stacks == NULL)
        return "missing, and nstacks is not 0";
    for (i = 0; i < d->nstacks; i++) {
        why->index = i;
        if (!(d->stacks[i].lo < d->stacks[i].hi))
            return "lo not below hi";
    }
    why->index = (size_t)-1;
    why->part = "record";
    if (d->record != NULL && d->record_fn == NULL)
        return "a buffer without its writer (SFU_DUMP_RECORD gives record_fn)";
    if (d->record != NULL &&
        d->record_size < SFU_CRASH_EXT_FIXED + SFU_CRASH_T_OFF_REGS + 8u * SFU_CRASH_MAX_REGS + SFU_CRASH_T_FRAME)
        return "record_size: below 805 bytes, a record of one frame with every register";
    if (d->record != NULL && sfu_crash_nregs(SFU__REC_MACHINE) == 0)
        return "this CPU's registers have no crash record layout (sfu_crash.h: aarch64, x86_64)";
    if (d->build_id_end < d->build_id)
        return "build_id_end below build_id";
    why->part = "entries";
    if (d->nentries != 0 && d->entries == NULL)
        return "missing, and nentries is not 0";
    for (i = 0; i < d->nentries; i++) {
        why->index = i;
        if (d->entries[i] == 0)
            return "0: no function starts at address 0";
    }
    why->index = (size_t)-1;
    why->part = "threads";
#if SFU_DUMP_THREADS
    if (d->threads != NULL)
        return sfu__dump_table_rule(d->threads, &why->part, &why->index);
#else
    if (d->threads != NULL)
        return "given, and the implementation has no sfu_threads.h";
#endif
    return NULL;
}

/* Each entry the first byte of a function of the sections found: the
 * index of the first that is not, or (size_t)-1. */
static SFU__DUMP_NOINLINE size_t sfu__dump_entries_rule(const struct sfu_dump *d)
{
    const struct sfu_dump_state *st = d->state;
    size_t i, k;
    sfu_fde f;
    bool ok;

    for (i = 0; i < d->nentries; i++) {
        ok = false;
        for (k = 0; k < st->nsecs && !ok; k++)
            ok = sfu_find_fde(&st->secs[k], d->entries[i], &f, NULL) == SFU_OK && f.start == d->entries[i];
        if (!ok)
            return i;
    }
    return (size_t)-1;
}

/* The check, kept in the state: the rules, then the sections. */
static SFU__DUMP_NOINLINE int sfu__dump_prepare(const struct sfu_dump *d)
{
    struct sfu_dump_state *st = d->state;
    size_t n = 0;
    int err = SFU_OK;

    if (st->ready)
        return st->err;
    st->why.rule = sfu__dump_rules(d, &st->why);
    if (st->why.rule != NULL) {
        err = SFU_E_DESC;
    } else {
        st->why.part = "sframe";
#if SFU_DUMP_LINKER_TEXT
        if (d->text != NULL)
            err = sfu_section_split_code(st->secs, SFU_DUMP_SECTIONS, &n, d->sframe,
                                         (size_t)(d->sframe_end - d->sframe), (uint64_t)(uintptr_t)d->sframe,
                                         SFU_DUMP_SFRAME_OPTS, (uint64_t)(uintptr_t)d->text,
                                         (uint64_t)(uintptr_t)d->text_end);
        else
#endif
            err = sfu_section_split(st->secs, SFU_DUMP_SECTIONS, &n, d->sframe, (size_t)(d->sframe_end - d->sframe),
                                    (uint64_t)(uintptr_t)d->sframe, SFU_DUMP_SFRAME_OPTS);
        /* More sections than room: say how many there are. */
        if (err == SFU_E_FULL)
            (void)sfu_section_count(&n, d->sframe, (size_t)(d->sframe_end - d->sframe),
                                    (uint64_t)(uintptr_t)d->sframe, SFU_DUMP_SFRAME_OPTS);
        st->why.rule = err == SFU_E_FULL ? "more sections than SFU_DUMP_SECTIONS" : sfu_strerror(err);
        if (err == SFU_OK)
            st->why.part = st->why.rule = NULL;
        st->nsecs = n;
        if (err == SFU_OK && (st->why.index = sfu__dump_entries_rule(d)) != (size_t)-1) {
            err = SFU_E_DESC;
            st->why.part = "entries";
            st->why.rule = "no function of the sections starts here (an assembly entry needs its CFI: "
                           "docs/kernel-styles.md)";
        }
    }
    st->nsecs = n;
    st->err = err;
    st->ready = 1;
    return err;
}

SFU__DUMP_FN int sfu_dump_check(const struct sfu_dump *d, struct sfu_dump_why *why)
{
    int err;

    if (d == NULL || d->state == NULL)
        return SFU_E_ARG;
    err = sfu__dump_prepare(d);
    if (why != NULL) {
        why->part = d->state->why.part;
        why->index = d->state->why.index;
        why->rule = d->state->why.rule;
    }
    return err;
}

/* The line of a description or a section the check refused. */
static SFU__DUMP_NOINLINE void sfu__dump_refusal(const struct sfu_dump *d)
{
    const struct sfu_dump_state *st = d->state;

    sfu_dump_str(d, st->err == SFU_E_DESC ? "  dump refused, no walk: " : "  .sframe refused, no walk: ");
    if (st->err == SFU_E_DESC) {
        sfu_dump_str(d, st->why.part);
        if (st->why.index != (size_t)-1) {
            sfu_dump_str(d, "[");
            sfu_dump_dec(d, st->why.index);
            sfu_dump_str(d, "]");
        }
        sfu_dump_str(d, ": ");
    }
    sfu_dump_str(d, st->why.rule);
    if (st->err == SFU_E_FULL) {
        sfu_dump_str(d, " (");
        sfu_dump_dec(d, st->nsecs);
        sfu_dump_str(d, " found)");
    }
    sfu_dump_str(d, "\n");
}

/* ---- the crash record's hook ------------------------------------------------------- */

/* The record's writer, where the description gives one (sfu_record.h):
 * one call per dump, per walk and per frame. */
static SFU__DUMP_NOINLINE void sfu__dump_rec(const struct sfu_dump *d, unsigned ev, unsigned n, int err)
{
    if (d->record_fn != NULL && d->record != NULL)
        d->record_fn(d, ev, n, err);
}

/* ---- the walk ------------------------------------------------------------------ */

/* The port of a walk in no thread: the description's memory, layouts and
 * stacks (in the state: the description stays constant). */
static SFU__DUMP_NOINLINE const sfu_port *sfu__dump_port(const struct sfu_dump *d)
{
    struct sfu_dump_state *st = d->state;
    sfu_port *p = &st->port.port;

    st->base.ram = d->ram != NULL ? d->ram : &d->linker_ram;
    st->base.nram = d->ram != NULL ? d->nram : 1;
    st->base.traps = d->traps;
    st->base.ntraps = d->ntraps;
    st->base.kernel = NULL;
    st->base.trap = d->trap;
    st->base.entries = d->entries;
    st->base.nentries = d->nentries;
    st->base.top = d->top;
    st->base.tcb = 0;
    st->base.live_sp = 0;
    p->read = sfu_port_read;
    p->strip_ra = SFU_PORT_STRIP_RA;
    p->trap = d->trap;
    p->ctx = &st->base;
    p->stack_lo = 0;
    p->stack_hi = 0;
    p->stacks = d->stacks;
    p->nstacks = d->nstacks;
    p->entries = d->entries;
    p->nentries = d->nentries;
    p->top = st->base.top;
    return p;
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
static SFU__DUMP_NOINLINE void sfu__dump_cursor_frame(const struct sfu_dump *d, unsigned n, const sfu_cursor *c)
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
    sfu__dump_rec(d, SFU_DUMP_REC_FRAME, n, SFU_OK);
}

/* A context that gives no registers: one line and the stop line.  A
 * zeroed one says so: nothing was ever saved in it (SFU_E_ZERO_RA, as a
 * return address of 0 inside a stack; SFU_END_NEVER_RAN where a thread
 * that never ran keeps it). */
static SFU__DUMP_NOINLINE void sfu__dump_refused(const struct sfu_dump *d, const char *what, uint64_t addr, int err,
                                                  const char *why)
{
    sfu_dump_str(d, what);
    sfu_dump_hex(d, addr, 16);
    sfu_dump_str(d, ": ");
    sfu_dump_str(d, why != NULL                 ? why
                    : err == SFU_E_ZERO_RA      ? "zeroed, nothing was ever saved in it"
                    : err == SFU_END_NEVER_RAN ? "zeroed at its stack's top: the thread never ran"
                                               : sfu_strerror(err));
    sfu_dump_str(d, "\nbacktrace:\n");
    sfu_dump_stop(d, 0, err);
    d->state->th.stop = err;
}

/* Does the frame the cursor reached follow a call, as a return address
 * must?  A word the walk misread as one (a function pointer on the stack,
 * an entry's address a thread's first context keeps, a stale value) often
 * is code, even a function's first byte, but seldom right after a call;
 * such a walk can rejoin the true chain and end complete with a frame that
 * never was.  The instruction before pc, read through the checked read
 * of the description's memory (a thread's walk reads only its stacks; the
 * code must lie in the description's RAM, as a kernel's text usually
 * does), must be a direct or an indirect call (the port decodes
 * both).  Exact PCs (the first frame, an interrupted one) and the
 * description's entries (a planted return address) are not return
 * addresses of a call; code that cannot be read is not judged. */
#define SFU__DUMP_CODE_LEN (SFU__PORT_ICALL_LEN > SFU__PORT_CALL_LEN ? SFU__PORT_ICALL_LEN : SFU__PORT_CALL_LEN)
static SFU__DUMP_NOINLINE bool sfu__dump_after_call(const struct sfu_dump *d, const sfu_cursor *c)
{
    uint8_t b[SFU__DUMP_CODE_LEN];
    uint64_t pc = c->regs.pc, to;
    size_t i;

    if (c->exact)
        return true;
    for (i = 0; d->entries != NULL && i < d->nentries; i++) {
        if (d->entries[i] == pc)
            return true;
    }
    if (!sfu__port_code_before(&d->state->base, NULL, pc, b, SFU__DUMP_CODE_LEN))
        return true; /* not judged */
    return sfu__port_call_target(b + SFU__DUMP_CODE_LEN - SFU__PORT_CALL_LEN, pc, &to) ||
           sfu__port_indirect_call(b, SFU__DUMP_CODE_LEN);
}

/* The frame loop every entry point shares: one walk, streamed, each frame
 * printed as the cursor stands on it, on the port sfu__dump_port (or a
 * thread's) left in the state.  It starts at regs (st->user: its first
 * frame ran in user mode); or, regs NULL, here, with this function's own
 * frame not shown (the first frame is its caller's: sfu_dump_stack's).
 * The cursor is the state's, off the stack, and the registers a walk
 * starts from may be built in it (sfu_cursor_init copies them onto
 * themselves): the loop's own frame is a few registers. */
static SFU__DUMP_NOINLINE int sfu__dump_walk(const struct sfu_dump *d, const sfu_regs *regs)
{
    struct sfu_dump_state *st = d->state;
    sfu_cursor *c = &st->c;
    unsigned n = 0;
    bool skip = false;
    int err;

    if (regs == NULL) {
        /* Here; the frame shown first is the caller's. */
        SFU_PORT_CAPTURE(&c->regs);
        regs = &c->regs;
        skip = true;
    }
    sfu_dump_str(d, "backtrace:\n");
    err = sfu__dump_prepare(d);
    if (err != SFU_OK) {
        /* A description or a section that does not pass gives no walk at
         * all: a trace from it could look complete and be wrong. */
        sfu__dump_refusal(d);
    } else {
        err = sfu_cursor_init(c, st->secs, st->nsecs, &st->port.port, regs);
    }
    if (err == SFU_OK) {
        c->user = st->user;
        /* Without SFrame for this file the skip fails: then this frame
         * is shown, and the reason the walk stops. */
        skip = skip && sfu_cursor_step(c) == SFU_OK;
        if (skip)
            c->how = SFU_HOW_START;
        /* The record's blocks start at the caller of sfu_dump_stack
         * (frame #0 shown is sfu_dump_stack itself, whose registers
         * beyond its PC and SP are the dump's). */
        sfu__dump_rec(d, SFU_DUMP_REC_WALK, skip ? 1u : 0u, SFU_OK);
        do {
            sfu__dump_cursor_frame(d, n++, c);
            err = sfu_cursor_step(c);
            if (err == SFU_OK && !sfu__dump_after_call(d, c))
                err = SFU_E_NOT_CALL;
        } while (err == SFU_OK);
    }
    sfu_dump_stop(d, n, err);
    sfu__dump_rec(d, SFU_DUMP_REC_END, n, err);
    return err;
}

/* One dump at a time on a state (the walk is kept in it): NULL, and a
 * line, if one is under way; it was interrupted by the code that calls
 * this one, and goes on unharmed when that returns.  A plain flag: within
 * one CPU an interrupt sees it set or runs to its end before the
 * interrupted dump sets it.  Else the walk's port, in the state. */
static SFU__DUMP_NOINLINE const sfu_port *sfu__dump_enter(const struct sfu_dump *d)
{
    struct sfu_dump_state *st = d->state;
    const sfu_port *port;

    if (st->busy) {
        sfu_dump_str(d, "dump refused: another dump is under way on this struct sfu_dump_state\n");
        return NULL;
    }
    st->busy = 1;
    __asm__ volatile("" : : : "memory");
    st->user = 0;
    st->rec.name = st->rec.state_text = NULL; /* the running thread's: the table's, or none */
    port = sfu__dump_port(d);
#if SFU_DUMP_THREADS
    /* In a thread of the table: bounded by its stacks (the port in the
     * state rebuilt for them). */
    if (d->threads != NULL && sfu__dump_prepare(d) == SFU_OK) {
        int k = sfu__dump_current_port(d);

        /* Said, never silently less bounded. */
        if (k < 0) {
            sfu_dump_str(d, "(the running thread's stacks cannot be read: this walk is bounded by the description's "
                            "memory only)\n");
            port = sfu__dump_port(d);
        }
    }
#endif
    return port;
}

static SFU__DUMP_NOINLINE int sfu__dump_leave(const struct sfu_dump *d, int err)
{
    __asm__ volatile("" : : : "memory");
    d->state->busy = 0;
    return err;
}

SFU__DUMP_FN int sfu_dump_stack(const struct sfu_dump *d)
{
    int err;

    if (sfu__dump_enter(d) == NULL)
        return SFU_E_ARG;
    sfu__dump_rec(d, SFU_DUMP_REC_OPEN, 0, SFU_OK);
    err = sfu__dump_walk(d, NULL);
    /* Not a tail call: this function's frame must be there, the first
     * frame of the dump (frame #0). */
    __asm__ volatile("" : : : "memory");
    return sfu__dump_leave(d, err);
}

SFU__DUMP_FN int sfu_dump_regs(const struct sfu_dump *d, const sfu_regs *regs)
{
    if (regs == NULL)
        return SFU_E_ARG;
    if (sfu__dump_enter(d) == NULL)
        return SFU_E_ARG;
    sfu__dump_rec(d, SFU_DUMP_REC_OPEN, 0, SFU_OK);
    return sfu__dump_leave(d, sfu__dump_walk(d, regs));
}

/* The layout of the trap frame at frame: layout, or (NULL) the first of
 * d's layouts that passes the check, whose frame is readable there and
 * whose variant matches it; NULL if none. */
static SFU__DUMP_NOINLINE const struct sfu_trap_layout *sfu__dump_trap_layout(const struct sfu_dump *d,
                                                                             const void *ctx,
                                                                             const struct sfu_trap_layout *l,
                                                                             uint64_t frame)
{
    size_t i;

    for (i = 0; l == NULL && i < d->ntraps; i++) {
        const struct sfu_trap_layout *t = &d->traps[i];

        if (sfu_layout_check(t, NULL) == SFU_OK &&
            sfu__port_block_ok(ctx, frame, t->frame.size, t->frame.align) &&
            sfu__port_variant(ctx, t, frame))
            l = t;
    }
    return l;
}

/* The fault words of the readable trap frame at frame, as l names them:
 * the line printed, and kept for the next record (SFU_OK); SFU_E_ARG if l
 * names none or they are no fault's. */
static SFU__DUMP_NOINLINE int sfu__dump_cause(const struct sfu_dump *d, const struct sfu_trap_layout *l, uint64_t frame)
{
    struct sfu_dump_state *st = d->state;
    unsigned known;
#ifdef SFU_PORT_FAULT_TEXT
    struct sfu_fault f;
#endif

    st->line[0] = '\0';
    if (l == NULL)
        return SFU_E_ARG;
    known = sfu_port_trap_fault(l, frame, &st->rec.code, &st->rec.addr);
#ifdef SFU_PORT_FAULT_TEXT
    if (!(known & SFU_FAULT_CODE) ||
        SFU_PORT_FAULT_TEXT(st->rec.code, st->rec.addr, known, st->line, sizeof st->line, &f) == 0 || f.signo == 0)
        return SFU_E_ARG;
    sfu_dump_str(d, "fault: ");
    sfu_dump_str(d, st->line);
    sfu_dump_str(d, "\n");
    st->rec.cause = 1;
    st->rec.cause_frame = frame;
    st->rec.flags = (uint16_t)((f.addr_valid ? SFU_CRASH_ADDR_VALID : 0u) | SFU_CRASH_CODE_KNOWN |
                               ((known & SFU_FAULT_ADDR) ? SFU_CRASH_ADDR_KNOWN : 0u));
    return SFU_OK;
#else
    (void)known;
    return SFU_E_ARG;
#endif
}

/* The core's rule for a context that ran in user mode (sfu__user_kind):
 * the port's half, then the sections' (an SFU_TRAP_KERNEL, SFU_TRAP_USER
 * or SFU_TRAP_PC_ZERO). */
static SFU__DUMP_NOINLINE int sfu__dump_user_kind(const struct sfu_dump_state *st, const sfu_port *port, uint64_t pc,
                                                  uint64_t sp)
{
    int kind = sfu__user_kind(port, pc, sp);

    if (kind == SFU_TRAP_USER && (sfu__fde_of(st->secs, st->nsecs, pc) || sfu__fde_of(st->secs, st->nsecs, pc - 1u)))
        kind = SFU_TRAP_KERNEL;
    return kind;
}

/* The registers held by a trap frame at frame, read through port's
 * checks, into *r: SFU_TRAP_KERNEL or SFU_TRAP_USER, or -SFU_E_DESC (a
 * layout sfu_layout_check refuses), -SFU_E_READ (not readable, no variant
 * matching). */
static SFU__DUMP_NOINLINE int sfu__dump_trap_regs(const struct sfu_dump *d, const sfu_port *port,
                                                  const struct sfu_trap_layout *l, uint64_t frame, sfu_regs *r)
{
    int kind;

    if (l == NULL && d->ntraps == 0)
        return -SFU_E_ARG; /* no layout given, none described */
    l = sfu__dump_trap_layout(d, port->ctx, l, frame);
    if (l == NULL)
        return -SFU_E_READ;
    if (sfu_layout_check(l, NULL) != SFU_OK)
        return -SFU_E_DESC;
    if (!sfu__port_block_ok(port->ctx, frame, l->frame.size, l->frame.align))
        return -SFU_E_READ;
    /* No call here: a frame whose SP is the call's (SFU_TRAP_SP_CALL) has
     * an SP that cannot be known, refused below. */
    kind = sfu__port_trap_regs_at(port->ctx, l, frame, 0, r);
    /* A frame whose SP cannot be known is refused as an unreadable one:
     * the walk would start from a made-up SP.  A user-mode frame whose SP
     * or PC is the kernel's is kernel code (the core's rule). */
    if (kind == SFU_TRAP_USER)
        kind = sfu__dump_user_kind(d->state, port, r->pc, r->sp);
    if (kind == SFU_TRAP_PC_ZERO)
        return -SFU_E_ZERO_RA;
    return kind == SFU_TRAP_UNREADABLE ? -SFU_E_READ : kind;
}

/* Where a trap dump's walk starts, in the state's cursor: SFU_OK (or a
 * description the check refuses: the walk says so, the frame not read),
 * else the frame's error, said.  A frame whose layout names a fault's
 * words: its cause first. */
static SFU__DUMP_NOINLINE int sfu__dump_trap_start(const struct sfu_dump *d, const struct sfu_trap_layout *layout,
                                                   uint64_t frame)
{
    struct sfu_dump_state *st = d->state;
    int kind;

    if (sfu__dump_prepare(d) != SFU_OK)
        return SFU_OK;
    kind = sfu__dump_trap_regs(d, &st->port.port, layout, frame, &st->c.regs);
    if (kind == SFU_TRAP_EMPTY)
        kind = -SFU_E_ZERO_RA; /* a frame of zeros: no context to walk */
    if (kind < 0) {
        sfu__dump_refused(d, "  trap frame at ", frame, -kind, NULL);
        return -kind;
    }
    st->user = kind == SFU_TRAP_USER;
    (void)sfu__dump_cause(d, sfu__dump_trap_layout(d, st->port.port.ctx, layout, frame), frame);
    return SFU_OK;
}

SFU__DUMP_FN int sfu_dump_trap(const struct sfu_dump *d, const struct sfu_trap_layout *layout, uint64_t frame)
{
    int err;

    if (sfu__dump_enter(d) == NULL)
        return SFU_E_ARG;
    err = sfu__dump_trap_start(d, layout, frame);
    if (err == SFU_OK) {
        sfu__dump_rec(d, SFU_DUMP_REC_OPEN, 0, SFU_OK);
        err = sfu__dump_walk(d, &d->state->c.regs);
    }
    return sfu__dump_leave(d, err);
}

SFU__DUMP_FN int sfu_dump_cause(const struct sfu_dump *d, const struct sfu_trap_layout *layout, uint64_t frame)
{
    const struct sfu_trap_layout *l;
    int err;

    if (sfu__dump_enter(d) == NULL)
        return SFU_E_ARG;
    err = sfu__dump_prepare(d);
    if (err == SFU_OK) {
        l = sfu__dump_trap_layout(d, d->state->port.port.ctx, layout, frame);
        err = l == NULL ? SFU_E_READ : sfu_layout_check(l, NULL) != SFU_OK ? SFU_E_DESC
            : !sfu__port_block_ok(d->state->port.port.ctx, frame, l->frame.size, l->frame.align) ? SFU_E_READ
                                                                                               : sfu__dump_cause(d, l, frame);
    }
    return sfu__dump_leave(d, err);
}

SFU__DUMP_FN void sfu_dump_message(const struct sfu_dump *d, const char *msg)
{
    if (d != NULL && d->state != NULL && !d->state->busy)
        d->state->rec.msg = msg;
}

SFU_CODEGEN_END

#endif /* SFU_DUMP_IMPLEMENTATION_DONE */
#endif /* SFU_IMPLEMENTATION */

#include "sfu_record.h"
