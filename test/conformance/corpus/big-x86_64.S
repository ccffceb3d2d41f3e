/* SPDX-License-Identifier: MIT */
/* Long functions, so that FRE start offsets need 16 and 32 bits
   (SFRAME_FRE_TYPE_ADDR2, SFRAME_FRE_TYPE_ADDR4).  The bodies are nops
   laid down with .skip; the CFA changes after them. */

	.text

/* Just under 256 bytes: still ADDR1. */
	.globl	big_255
	.type	big_255, @function
big_255:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.skip	250, 0x90
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	big_255, . - big_255

/* Over 256 bytes: ADDR2. */
	.globl	big_addr2
	.type	big_addr2, @function
big_addr2:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.skip	300, 0x90
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	big_addr2, . - big_addr2

/* Over 64 KiB: ADDR4, with a frame that also needs 4-byte CFA words. */
	.globl	big_addr4
	.type	big_addr4, @function
big_addr4:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	subq	$70000, %rsp
	.cfi_def_cfa_offset 70016
	.skip	70000, 0x90
	addq	$70000, %rsp
	.cfi_def_cfa_offset 16
	.skip	300, 0x90
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	big_addr4, . - big_addr4

/* Over 64 KiB but all CFA changes in the first 256 bytes: the FRE type
   follows the function size, not the largest FRE offset used. */
	.globl	big_addr4_early
	.type	big_addr4_early, @function
big_addr4_early:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.skip	66000, 0x90
	.cfi_endproc
	.size	big_addr4_early, . - big_addr4_early

	.section .note.GNU-stack, "", @progbits
