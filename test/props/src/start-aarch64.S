/* Outermost frame of the test images (see start-x86_64.S). */
	.section .text.start, "ax", %progbits
	.globl	_start
	.type	_start, %function
_start:
	.cfi_startproc
	.cfi_undefined x30
	mov	x29, #0
	adrp	x0, stack_top
	add	sp, x0, :lo12:stack_top
	bl	entry
1:	wfi
	b	1b
	.cfi_endproc
	.size	_start, . - _start

	.bss
	.balign	16
	.skip	8192
stack_top:
	.section .note.GNU-stack, "", %progbits
