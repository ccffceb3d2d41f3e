/* SPDX-License-Identifier: MIT */
/* crash_tu.c - the whole crash path in one translation unit, every piece
 * emitted: the core (SFU_IMPLEMENTATION), the port of the CPU compiled for
 * (-I port), the dump and every thread (crash/sfu_threads.h), the layouts'
 * callbacks and the crash record (crash/sfu_crash.h, all static inline:
 * called below so that they are compiled; the record the dump writes,
 * crash/sfu_record.h, its option in the description), the fault
 * decoders (the ports').  The only undefined symbol it
 * may leave is the output hook, tu_write.  test/freestanding builds it by
 * every compiler at -O0/-O2/-Os with and without -ffreestanding (no C
 * library call); test/codegen disassembles it (no FP/SIMD register). */
#define SFU_IMPLEMENTATION
#define SFU_PORT_LINKER_RAM 0
#define SFU_DUMP_LINKER_SFRAME 0
#define SFU_DUMP_LINKER_BUILD_ID 0 /* the description gives its note: no linker symbol */
#define SFU_DUMP_SP 1
#include "sfu_threads.h"
#include "sfu_crash.h"

void tu_write(const char *s, size_t n);

static const struct sfu_port_range tu_ram[] = { { 0x1000, 0x2000 } };
static const struct sfu_trap_layout tu_traps[] = { { .call = { .start = (const void *)0x100, .end = (const void *)0x200 },
                                                     .frame = { .size = 0x110, .align = 16 },
                                                     .sp = { .at = SFU_AT(0x100) },
                                                     .regs = { .pc = SFU_AT(0x108), .reg = { 0 } } } };
struct sfu_dump_state tu_state;
/* The crash record (crash/sfu_record.h): every dump writes it. */
uint8_t tu_record_buf[4096];
static const char tu_note[36] = { 4 };
const struct sfu_dump tu_dump = { SFU_DUMP_INIT_FIELDS(&tu_state, tu_write, tu_ram, 1, tu_traps, 1),
                                  SFU_DUMP_RECORD(tu_record_buf, sizeof tu_record_buf), .build_id = tu_note,
                                  .build_id_end = tu_note + sizeof tu_note };

/* The callers below are the test's, compiled as the crash path is (the
 * record's functions are static inline: inlined into them). */
SFU_CODEGEN_BEGIN

int tu_dump_all(void);
int tu_dump_all(void)
{
    struct sfu_dump_why why;

    sfu_dump_message(&tu_dump, "tu");
    return sfu_dump_stack(&tu_dump) + sfu_dump_trap(&tu_dump, NULL, 0) + sfu_dump_threads(&tu_dump) +
           sfu_dump_check(&tu_dump, &why) + sfu_dump_cause(&tu_dump, NULL, 0) + sfu_dump_record_print(&tu_dump);
}

void tu_wire(void);
void tu_wire(void)
{
    sfu_dump_record_wire(&tu_dump);
}

int tu_record(uint8_t *dst, const sfu_frame *f, size_t n);
int tu_record(uint8_t *dst, const sfu_frame *f, size_t n)
{
    struct sfu_crash c;

    sfu_crash_init(&c, 1, SFU_CRASH_PANIC, "x", 0);
    sfu_crash_frames(&c, f, n, SFU_END);
    sfu_crash_write(&c, dst, SFU_CRASH_SIZE);
    return sfu_crash_read(dst, SFU_CRASH_SIZE, &c);
}

int tu_ext(uint8_t *dst, size_t budget, const sfu_port *p, const sfu_regs *r, const sfu_frame *f, size_t n);
int tu_ext(uint8_t *dst, size_t budget, const sfu_port *p, const sfu_regs *r, const sfu_frame *f, size_t n)
{
    struct sfu_crash c;
    struct sfu_crash_thread t;
    struct sfu_crash_ext x;
    size_t used;

    sfu_crash_init(&c, 1, SFU_CRASH_PANIC, "x", 0);
    sfu_crash_frames(&c, f, n, SFU_END);
    sfu_crash_regs_from(&t, SFU_CRASH_EM_AARCH64, r);
    t.name = "main";
    t.state = SFU_CRASH_T_CRASHED;
    t.frames = f;
    t.nframes = n;
    t.stop = SFU_END;
    x.machine = SFU_CRASH_EM_AARCH64;
    x.id = dst;
    x.idlen = 20;
    x.threads = &t;
    x.nthreads = 1;
    x.crashed = 0;
    x.port = p;
    x.pac = sfu_crash_pac_mask(p->strip_ra, p->ctx);
    return sfu_crash_ext_write(&c, &x, dst, budget, &used);
}

int tu_thread(struct sfu_port_thread *t, const sfu_stack *s, const struct sfu_switch_layout *l, sfu_regs *r);
int tu_thread(struct sfu_port_thread *t, const sfu_stack *s, const struct sfu_switch_layout *l, sfu_regs *r)
{
    if (sfu_port_thread_init(t, NULL, s, 2))
        return 1;
    return sfu_port_switch_regs(t->port.ctx, l, s[0].lo, r);
}

int tu_trap(struct sfu_port_ctx *c, uint64_t pc, uint64_t sp, sfu_regs *r);
int tu_trap(struct sfu_port_ctx *c, uint64_t pc, uint64_t sp, sfu_regs *r)
{
    return sfu_port_trap(c, pc, sp, r);
}

SFU_CODEGEN_END
