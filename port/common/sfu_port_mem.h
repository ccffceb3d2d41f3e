/* sfu_port_mem.h - the checked memory read shared by the bare-metal ports.
 *
 * The core never dereferences an address it computed; it calls the port's
 * read.  A refusal is not an error in the port: the core turns it into
 * "memory read refused" and stops the walk.  Only 8-byte aligned words
 * inside one of the allowed ranges are read, so a corrupt CFA cannot make
 * the panic handler fault (aarch64: unaligned Device accesses and
 * translation faults; x86_64: #PF on unmapped pages, #GP on non-canonical
 * addresses).  A saved slot is always 8-aligned, so an unaligned address
 * means corrupt data even where the CPU would tolerate it.
 *
 * Included by port/<arch>/sfu_port_<arch>.h; freestanding (<stdint.h>,
 * <stddef.h>, <stdbool.h>).  With SFU_PORT_LINKER_RAM (default 1) a NULL
 * context means [__ram_start, __ram_end) from the linker script.
 */
#ifndef SFU_PORT_MEM_H
#define SFU_PORT_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef SFU_PORT_LINKER_RAM
#define SFU_PORT_LINKER_RAM 1
#endif

/* Half-open range [start, end). */
struct sfu_port_range {
    uint64_t start;
    uint64_t end;
};

/* Read context: the ranges the core may read.  Pass a pointer to one of
 * these as `ctx`, or NULL for the linker-declared RAM. */
struct sfu_port_mem {
    const struct sfu_port_range *ranges;
    size_t count;
};

enum {
    SFU_PORT_READ_OK = 0,
    SFU_PORT_READ_UNALIGNED = 1,
    SFU_PORT_READ_OUTSIDE = 2
};

#if SFU_PORT_LINKER_RAM
extern char __ram_start[];
extern char __ram_end[];
#endif

/* True if the 8 bytes at addr lie inside [start, end), without overflow. */
static inline bool sfu__port_in_range(uint64_t addr, uint64_t start, uint64_t end)
{
    return addr >= start && end >= 8 && addr <= end - 8;
}

static inline bool sfu__port_allowed(const void *ctx, uint64_t addr)
{
    const struct sfu_port_mem *mem = (const struct sfu_port_mem *)ctx;
    size_t i;

    if (mem == NULL) {
#if SFU_PORT_LINKER_RAM
        return sfu__port_in_range(addr, (uint64_t)(uintptr_t)__ram_start, (uint64_t)(uintptr_t)__ram_end);
#else
        return false;
#endif
    }
    for (i = 0; i < mem->count; i++) {
        if (sfu__port_in_range(addr, mem->ranges[i].start, mem->ranges[i].end))
            return true;
    }
    return false;
}

/* True if the size bytes at addr (a trap frame) are align-aligned and every
 * word of them may be read. */
static inline bool sfu_port_mem_block_ok(const void *ctx, uint64_t addr, uint64_t size, uint64_t align)
{
    uint64_t off;
    if ((addr & (align - 1u)) != 0 || addr > UINT64_MAX - size)
        return false;
    for (off = 0; off < size; off += 8u) {
        if (!sfu__port_allowed(ctx, addr + off))
            return false;
    }
    return true;
}

/* Read the 8-byte word at addr into *out.  Returns 0 on success, nonzero
 * (SFU_PORT_READ_*) when refused; *out is untouched then.  ctx is a
 * `struct sfu_port_mem *` or NULL.  Matches the core's read callback. */
static inline int sfu_port_mem_read(void *ctx, uint64_t addr, uint64_t *out)
{
    if ((addr & 7u) != 0)
        return SFU_PORT_READ_UNALIGNED;
    if (!sfu__port_allowed(ctx, addr))
        return SFU_PORT_READ_OUTSIDE;
    *out = *(const volatile uint64_t *)(uintptr_t)addr;
    return SFU_PORT_READ_OK;
}

#endif /* SFU_PORT_MEM_H */
