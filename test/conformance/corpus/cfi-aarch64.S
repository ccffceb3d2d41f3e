/* SPDX-License-Identifier: MIT */
/* AArch64 CFI that compiled C does not reach (or not reliably).  Each
   function is one construct.  Older assemblers skip some of these FDEs
   with a warning; the build records the warnings. */

	.text

/* RA undefined after a normal prologue (zero data words mid-function). */
	.globl	cfi_undefined_late
	.type	cfi_undefined_late, %function
cfi_undefined_late:
	.cfi_startproc
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	.cfi_def_cfa 29, 16
	nop
	.cfi_undefined x30
	nop
	brk	#0
	.cfi_endproc
	.size	cfi_undefined_late, . - cfi_undefined_late

/* A signal trampoline in the style of the kernel's rt_sigreturn stub:
   flagged with .cfi_signal_frame, CFA well above sp. */
	.globl	cfi_sigreturn
	.type	cfi_sigreturn, %function
	nop
cfi_sigreturn:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa sp, 4688
	.cfi_offset 29, -4456
	.cfi_offset 30, -4448
	mov	x8, #139
	svc	#0
	.cfi_endproc
	.size	cfi_sigreturn, . - cfi_sigreturn

/* A signal frame with an ordinary frame record. */
	.globl	cfi_signal_plain
	.type	cfi_signal_plain, %function
cfi_signal_plain:
	.cfi_startproc
	.cfi_signal_frame
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	ldp	x29, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	cfi_signal_plain, . - cfi_signal_plain

/* Return-address signing with the A key, spelled out (what
   -mbranch-protection=pac-ret emits): the FREs after paciasp carry the
   mangled-RA bit. */
	.globl	cfi_pac_a
	.type	cfi_pac_a, %function
cfi_pac_a:
	.cfi_startproc
	hint	#25		/* paciasp */
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	hint	#29		/* autiasp */
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	cfi_pac_a, . - cfi_pac_a

/* The same with the B key (.cfi_b_key_frame: pauth_key bit in the FDE). */
	.globl	cfi_pac_b
	.type	cfi_pac_b, %function
cfi_pac_b:
	.cfi_startproc
	.cfi_b_key_frame
	hint	#27		/* pacibsp */
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	hint	#31		/* autibsp */
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	cfi_pac_b, . - cfi_pac_b

/* CFA on a register other than sp/x29. */
	.globl	cfi_cfa_x9
	.type	cfi_cfa_x9, %function
cfi_cfa_x9:
	.cfi_startproc
	mov	x9, sp
	.cfi_def_cfa x9, 0
	sub	sp, sp, #64
	mov	sp, x9
	.cfi_def_cfa sp, 0
	ret
	.cfi_endproc
	.size	cfi_cfa_x9, . - cfi_cfa_x9

/* RA copied to another register (x30 is then free to be clobbered). */
	.globl	cfi_ra_in_reg
	.type	cfi_ra_in_reg, %function
cfi_ra_in_reg:
	.cfi_startproc
	mov	x9, x30
	.cfi_register x30, x9
	bl	cfi_leaf
	mov	x30, x9
	.cfi_restore x30
	ret
	.cfi_endproc
	.size	cfi_ra_in_reg, . - cfi_ra_in_reg

/* Only the link register saved (no frame record): RA tracked, FP not. */
	.globl	cfi_lr_only
	.type	cfi_lr_only, %function
cfi_lr_only:
	.cfi_startproc
	str	x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 30, -16
	bl	cfi_leaf
	ldr	x30, [sp], #16
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	cfi_lr_only, . - cfi_lr_only

/* A large frame: the frame record far below the CFA (4-byte words). */
	.globl	cfi_frame_far
	.type	cfi_frame_far, %function
cfi_frame_far:
	.cfi_startproc
	sub	sp, sp, #16, lsl #12
	.cfi_def_cfa_offset 65536
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 65552
	.cfi_offset 29, -65552
	.cfi_offset 30, -65544
	mov	x29, sp
	.cfi_def_cfa x29, 65552
	ldp	x29, x30, [sp], #16
	.cfi_def_cfa sp, 65536
	.cfi_restore 30
	.cfi_restore 29
	add	sp, sp, #16, lsl #12
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	cfi_frame_far, . - cfi_frame_far

/* Two epilogues: .cfi_remember_state / .cfi_restore_state. */
	.globl	cfi_two_exits
	.type	cfi_two_exits, %function
cfi_two_exits:
	.cfi_startproc
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	cbz	w0, 1f
	.cfi_remember_state
	ldp	x29, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
1:	.cfi_restore_state
	mov	w0, #1
	ldp	x29, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	cfi_two_exits, . - cfi_two_exits

	.globl	cfi_leaf
	.type	cfi_leaf, %function
cfi_leaf:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	cfi_leaf, . - cfi_leaf

	.section .note.GNU-stack, "", %progbits
