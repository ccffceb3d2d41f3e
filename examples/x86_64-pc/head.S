/* SPDX-License-Identifier: MIT */
/*
 * head.S -- x86_64-pc entry: multiboot v1 header, 32-bit protected mode,
 * identity-mapped page tables, long mode, C.
 *
 * QEMU's -kernel loads multiboot v1 images, but refuses a 64-bit ELF
 * ("Cannot load x86-64 image, give a 32bit one") unless the header sets
 * flag 16 and gives the load addresses itself (the "a.out kludge"); then
 * it copies the file bytes from the header's position on, as a flat
 * image, and ignores the ELF headers.  So the image is one 64-bit ELF
 * (for nm/objdump and the symbolizer) whose single PT_LOAD segment is laid
 * out exactly like memory (link.ld), and the header below tells QEMU where.
 *
 * State at start32 (Multiboot Specification 0.6.96, "Machine state"):
 * 32-bit protected mode, paging off, flat CS/DS, interrupts off, no stack,
 * EAX = 0x2BADB002, EBX = physical address of the multiboot info.
 */
#define MB_MAGIC        0x1badb002
/* Flags: 1 = give memory information, 16 = the address fields are valid. */
#define MB_FLAGS        0x00010002

#define CR0_PE          (1 << 0)
#define CR0_WP          (1 << 16)
#define CR0_PG          (1 << 31)
#define CR4_PAE         (1 << 5)
#define MSR_EFER        0xc0000080
#define EFER_LME        (1 << 8)
/* Page table entry bits (SDM Vol. 3A, "4-Level Paging"): present,
 * writable, and for a PD entry PS (2 MiB page). */
#define PTE_P           0x1
#define PTE_W           0x2
#define PTE_PS          0x80

#define DEBUG_EXIT_PORT 0xf4
#define COM1            0x3f8

    .section .multiboot, "a"
    .balign 4
mb_header:
    .long MB_MAGIC
    .long MB_FLAGS
    .long -(MB_MAGIC + MB_FLAGS)
    .long mb_header                 /* header_addr */
    .long __image_start             /* load_addr: file bytes start here */
    .long __load_end                /* load_end_addr: end of .data */
    .long __image_end               /* bss_end_addr: QEMU puts the
                                       multiboot info after this, so the
                                       stacks are included */
    .long start32                   /* entry_addr */

    .section .text.boot, "ax"
    .code32
    .global start32
start32:
    cli
    cld
    mov %eax, %esi
    mov %ebx, %ebp

    /* BSS (page tables included).  QEMU zeroes up to bss_end_addr, but
     * other loaders need not. */
    mov $__bss_start, %edi
    mov $__bss_end, %ecx
    sub %edi, %ecx
    shr $2, %ecx
    xor %eax, %eax
    rep stosl
    mov %esi, x86_mb_magic
    mov %ebp, x86_mb_info

    /* Long mode: CPUID 0x80000001 EDX bit 29 (SDM Vol. 2A, CPUID). */
    mov $0x80000000, %eax
    cpuid
    cmp $0x80000001, %eax
    jb no_long_mode
    mov $0x80000001, %eax
    cpuid
    bt $29, %edx
    jnc no_long_mode

    /* Identity map of the first GiB: PML4[0] -> PDPT[0] -> PD; PD[0]
     * points to a 4 KiB page table whose entry 0 is left not present, so
     * a null pointer takes a #PF; PD[1..511] are 2 MiB pages. */
    mov $x86_pdpt, %eax
    or $(PTE_P | PTE_W), %eax
    mov %eax, x86_pml4
    mov $x86_pd, %eax
    or $(PTE_P | PTE_W), %eax
    mov %eax, x86_pdpt
    mov $x86_pt, %eax
    or $(PTE_P | PTE_W), %eax
    mov %eax, x86_pd
    mov $1, %ecx
1:  mov %ecx, %eax
    shl $21, %eax
    or $(PTE_P | PTE_W | PTE_PS), %eax
    mov %eax, x86_pd(, %ecx, 8)
    mov %ecx, %eax
    shl $12, %eax
    or $(PTE_P | PTE_W), %eax
    mov %eax, x86_pt(, %ecx, 8)
    inc %ecx
    cmp $512, %ecx
    jb 1b

    /* SDM Vol. 3A, "Initializing IA-32e Mode": PAE, CR3, EFER.LME, then
     * paging on; a far jump into a 64-bit code segment completes it. */
    mov %cr4, %eax
    or $CR4_PAE, %eax
    mov %eax, %cr4
    mov $x86_pml4, %eax
    mov %eax, %cr3
    mov $MSR_EFER, %ecx
    rdmsr
    or $EFER_LME, %eax
    wrmsr
    mov %cr0, %eax
    or $(CR0_PG | CR0_WP | CR0_PE), %eax
    mov %eax, %cr0
    lgdt gdt_ptr
    ljmp $0x08, $start64

    /* No UART setup yet: QEMU's 16550 sends without it.  Exit status
     * EX_BUG (5), i.e. QEMU exits 11. */
no_long_mode:
    mov $no_lm_msg, %esi
2:  lodsb
    test %al, %al
    jz 3f
    mov $COM1, %dx
    out %al, %dx
    jmp 2b
3:  mov $5, %eax
    mov $DEBUG_EXIT_PORT, %dx
    out %eax, %dx
4:  hlt
    jmp 4b

    .code64
start64:
    mov $0x10, %ax
    mov %ax, %ds
    mov %ax, %es
    mov %ax, %ss
    xor %eax, %eax
    mov %ax, %fs
    mov %ax, %gs
    mov $__stack_end, %rsp
    /* Outermost frame: RBP = 0 and a return address of 0, where both a
     * frame-pointer walk and the SFrame walk (RA == 0) stop.  The push
     * leaves RSP as a call would (RSP + 8 16-aligned). */
    xor %ebp, %ebp
    push $0
    jmp board_main

    .section .rodata
no_lm_msg:
    .asciz "sfu example: this CPU has no long mode\r\n"

    .section .data
    .balign 16
    .global x86_gdt
x86_gdt:
    .quad 0
    .quad 0x00af9a000000ffff        /* 0x08: code, 64-bit (L=1), DPL 0 */
    .quad 0x00cf92000000ffff        /* 0x10: data, DPL 0 */
    .quad 0, 0                      /* 0x18: 64-bit TSS, set by board.c */
gdt_end:
    .balign 8
gdt_ptr:
    .word gdt_end - x86_gdt - 1
    .long x86_gdt

    .global x86_mb_magic, x86_mb_info
    .section .bss
    .balign 4
x86_mb_magic:
    .space 4
x86_mb_info:
    .space 4

    .section .bss.pagetables, "aw", @nobits
    .balign 4096
    .global x86_pml4, x86_pdpt, x86_pd, x86_pt
x86_pml4:
    .space 4096
x86_pdpt:
    .space 4096
x86_pd:
    .space 4096
x86_pt:
    .space 4096

    .section .note.GNU-stack, "", @progbits
