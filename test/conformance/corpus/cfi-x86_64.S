/* SPDX-License-Identifier: MIT */
/* x86_64 CFI that compiled C does not reach (or not reliably).  Each
   function is one construct; the comment says what SFrame should make of
   it.  Older assemblers skip some of these FDEs with a warning; the build
   records the warnings. */

	.text

/* RA undefined after a normal prologue: an FRE with zero data words in
   the middle of a function (V2 erratum 2, V3 outermost frame). */
	.globl	cfi_undefined_late
	.type	cfi_undefined_late, @function
cfi_undefined_late:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	nop
	.cfi_undefined rip
	nop
	hlt
	.cfi_endproc
	.size	cfi_undefined_late, . - cfi_undefined_late

/* A signal trampoline in the style of __restore_rt: the CFA is the
   saved context and the frame is flagged with .cfi_signal_frame (V3 has
   a signal bit in the FDE info byte). */
	.globl	cfi_sigreturn
	.type	cfi_sigreturn, @function
	nop
cfi_sigreturn:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa %rsp, 168
	.cfi_offset %rbp, -48
	movq	$15, %rax
	syscall
	.cfi_endproc
	.size	cfi_sigreturn, . - cfi_sigreturn

/* A signal frame with an ordinary CFA rule. */
	.globl	cfi_signal_plain
	.type	cfi_signal_plain, @function
cfi_signal_plain:
	.cfi_startproc
	.cfi_signal_frame
	subq	$8, %rsp
	.cfi_def_cfa_offset 16
	addq	$8, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	cfi_signal_plain, . - cfi_signal_plain

/* DRAP stack realignment as gcc emits it for a function with alloca and
   32-byte aligned locals: CFA = r10, then CFA = *(rbp - 8) through a
   DW_CFA_def_cfa_expression, and rbp saved by a DW_CFA_expression. */
	.globl	cfi_drap
	.type	cfi_drap, @function
cfi_drap:
	.cfi_startproc
	leaq	8(%rsp), %r10
	.cfi_def_cfa %r10, 0
	andq	$-32, %rsp
	pushq	-8(%r10)
	pushq	%rbp
	movq	%rsp, %rbp
	/* DW_CFA_expression rbp: DW_OP_breg6 0 */
	.cfi_escape 0x10,0x6,0x2,0x76,0
	pushq	%r10
	/* DW_CFA_def_cfa_expression: DW_OP_breg6 -8; DW_OP_deref */
	.cfi_escape 0xf,0x3,0x76,0x78,0x6
	subq	$96, %rsp
	leaq	-8(%rbp), %rsp
	popq	%r10
	.cfi_def_cfa %r10, 0
	popq	%rbp
	leaq	-8(%r10), %rsp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	cfi_drap, . - cfi_drap

/* CFA on a callee-saved register other than rsp/rbp. */
	.globl	cfi_cfa_r12
	.type	cfi_cfa_r12, @function
cfi_cfa_r12:
	.cfi_startproc
	pushq	%r12
	.cfi_def_cfa_offset 16
	.cfi_offset %r12, -16
	movq	%rsp, %r12
	.cfi_def_cfa_register %r12
	subq	$64, %rsp
	movq	%r12, %rsp
	.cfi_def_cfa_register %rsp
	popq	%r12
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	cfi_cfa_r12, . - cfi_cfa_r12

/* RA moved to a register (a hand-written leaf that pops its return
   address into r11 and jumps back through it). */
	.globl	cfi_ra_in_reg
	.type	cfi_ra_in_reg, @function
cfi_ra_in_reg:
	.cfi_startproc
	popq	%r11
	.cfi_def_cfa_offset 0
	.cfi_register %rip, %r11
	nop
	jmp	*%r11
	.cfi_endproc
	.size	cfi_ra_in_reg, . - cfi_ra_in_reg

/* rbp saved in another register rather than on the stack. */
	.globl	cfi_fp_in_reg
	.type	cfi_fp_in_reg, @function
cfi_fp_in_reg:
	.cfi_startproc
	movq	%rbp, %rax
	.cfi_register %rbp, %rax
	nop
	movq	%rax, %rbp
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	cfi_fp_in_reg, . - cfi_fp_in_reg

/* Two epilogues: .cfi_remember_state / .cfi_restore_state. */
	.globl	cfi_two_exits
	.type	cfi_two_exits, @function
cfi_two_exits:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%rbx
	.cfi_offset %rbx, -24
	testl	%edi, %edi
	je	1f
	.cfi_remember_state
	popq	%rbx
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
1:	.cfi_restore_state
	movl	$1, %eax
	popq	%rbx
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	cfi_two_exits, . - cfi_two_exits

/* rbp saved far below the CFA: a 2-byte FP data word with a small CFA
   offset first, then 4-byte words once the frame passes 32 KiB. */
	.globl	cfi_fp_far
	.type	cfi_fp_far, @function
cfi_fp_far:
	.cfi_startproc
	subq	$1000, %rsp
	.cfi_def_cfa_offset 1008
	movq	%rbp, 8(%rsp)
	.cfi_offset %rbp, -1000
	subq	$40000, %rsp
	.cfi_def_cfa_offset 41008
	addq	$40000, %rsp
	.cfi_def_cfa_offset 1008
	movq	8(%rsp), %rbp
	.cfi_restore %rbp
	addq	$1000, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	cfi_fp_far, . - cfi_fp_far

/* rbp-based CFA with a negative-looking frame: the CFA rule changes many
   times inside one function (push/pop sequences). */
	.globl	cfi_push_pop
	.type	cfi_push_pop, @function
cfi_push_pop:
	.cfi_startproc
	pushq	%r15
	.cfi_def_cfa_offset 16
	pushq	%r14
	.cfi_def_cfa_offset 24
	pushq	%r13
	.cfi_def_cfa_offset 32
	pushq	%r12
	.cfi_def_cfa_offset 40
	pushq	%rbx
	.cfi_def_cfa_offset 48
	popq	%rbx
	.cfi_def_cfa_offset 40
	popq	%r12
	.cfi_def_cfa_offset 32
	popq	%r13
	.cfi_def_cfa_offset 24
	popq	%r14
	.cfi_def_cfa_offset 16
	popq	%r15
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	cfi_push_pop, . - cfi_push_pop

/* A function with no CFI changes at all. */
	.globl	cfi_trivial
	.type	cfi_trivial, @function
cfi_trivial:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	cfi_trivial, . - cfi_trivial

/* A DW_CFA_val_offset on rbp: not a rule SFrame can express. */
	.globl	cfi_val_offset
	.type	cfi_val_offset, @function
cfi_val_offset:
	.cfi_startproc
	.cfi_val_offset %rbp, -16
	ret
	.cfi_endproc
	.size	cfi_val_offset, . - cfi_val_offset

	.section .note.GNU-stack, "", @progbits
