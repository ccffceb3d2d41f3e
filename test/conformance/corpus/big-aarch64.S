/* SPDX-License-Identifier: MIT */
/* Long functions, so that FRE start offsets need 16 and 32 bits
   (SFRAME_FRE_TYPE_ADDR2, SFRAME_FRE_TYPE_ADDR4).  Bodies are nops. */

	.text

	.globl	big_255
	.type	big_255, %function
big_255:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	.rept	60
	nop
	.endr
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	big_255, . - big_255

	.globl	big_addr2
	.type	big_addr2, %function
big_addr2:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	.rept	100
	nop
	.endr
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	big_addr2, . - big_addr2

	.globl	big_addr4
	.type	big_addr4, %function
big_addr4:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	sub	sp, sp, #17, lsl #12
	.cfi_def_cfa_offset 69648
	.rept	17000
	nop
	.endr
	add	sp, sp, #17, lsl #12
	.cfi_def_cfa_offset 16
	.rept	100
	nop
	.endr
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	big_addr4, . - big_addr4

	.globl	big_addr4_early
	.type	big_addr4_early, %function
big_addr4_early:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	.rept	16500
	nop
	.endr
	.cfi_endproc
	.size	big_addr4_early, . - big_addr4_early

	.section .note.GNU-stack, "", %progbits
