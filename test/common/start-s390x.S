/* SPDX-License-Identifier: MIT */
/* _start of the tests' bare-metal images (see start-x86_64.S). */
	.section .text.start, "ax", @progbits
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined %r14
	larl	%r15, stack_top
	aghi	%r15, -160
	brasl	%r14, test_entry
1:	j	1b
	.cfi_endproc
	.size	_start, . - _start

	.text
	.weak	test_entry
	.type	test_entry, @function
test_entry:
	.cfi_startproc
	br	%r14
	.cfi_endproc
	.size	test_entry, . - test_entry

	.bss
	.balign	16
	.skip	4096
stack_top:

	.section .note.GNU-stack, "", %progbits
