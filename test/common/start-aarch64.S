/* SPDX-License-Identifier: MIT */
/* _start of the tests' bare-metal images (see start-x86_64.S). */
	.section .text.start, "ax", %progbits
	.globl	_start
	.type	_start, %function
_start:
	.cfi_startproc
	.cfi_undefined x30
	mov	x29, #0
	adrp	x0, stack_top
	add	x0, x0, :lo12:stack_top
	mov	sp, x0
	bl	test_entry
1:	wfi
	b	1b
	.cfi_endproc
	.size	_start, . - _start

	.text
	.weak	test_entry
	.type	test_entry, %function
test_entry:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	test_entry, . - test_entry

	.bss
	.balign	16
	.skip	4096
stack_top:

	.section .note.GNU-stack, "", %progbits
