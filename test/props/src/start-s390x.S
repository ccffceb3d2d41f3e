/* Outermost frame of the test images (see start-x86_64.S). */
	.section .text.start, "ax", @progbits
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined %r14
	larl	%r15, stack_top
	aghi	%r15, -160
	brasl	%r14, entry
1:	j	1b
	.cfi_endproc
	.size	_start, . - _start

	.bss
	.balign	16
	.skip	8192
stack_top:
	.section .note.GNU-stack, "", @progbits
