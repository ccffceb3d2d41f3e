/* SPDX-License-Identifier: MIT */
/* Fixtures for sfu-gen's bad-input and omission cases (x86_64, built by
   test/gen/run.sh with -DCASE=name).  Every case is one ordinary function
   plus one that carries the CFI under test. */
	.text
	.globl	good
	.type	good, @function
good:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	good, . - good

	.globl	bad
	.type	bad, @function
bad:
	.cfi_startproc
	nop
#if defined(CASE_unknown_op)
	.cfi_escape 0x3f			/* no such DW_CFA opcode */
#elif defined(CASE_window_save)
	.cfi_escape 0x2d			/* SPARC/aarch64 only */
#elif defined(CASE_restore_state)
	.cfi_escape 0x0b			/* DW_CFA_restore_state, nothing remembered */
#elif defined(CASE_leb_overflow)
	.cfi_escape 0x0e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f
#elif defined(CASE_expr_runs_past)
	.cfi_escape 0x0f, 0x7f, 0x77	/* DW_CFA_def_cfa_expression, length 127 */
#elif defined(CASE_cfa_expression)
	/* An expression SFrame cannot say: omitted, not an error. */
	.cfi_escape 0x0f, 0x05, 0x77, 0x08, 0x06, 0x23, 0x08	/* *(rsp+8) + 8 */
#elif defined(CASE_deref_cfa)
	/* CFA = *(rbp - 8): FLEX in V3, omitted in V2. */
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_escape 0x0f, 0x03, 0x76, 0x78, 0x06
#endif
	nop
	ret
	.cfi_endproc
	.size	bad, . - bad
	.section .note.GNU-stack,"",@progbits
