/* Outermost frame of the test images: the return address is undefined
 * from the first instruction (SFrame V2/V3: an FRE with no data words). */
	.section .text.start, "ax", @progbits
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip
	xorl	%ebp, %ebp
	leaq	stack_top(%rip), %rsp
	call	entry
1:	hlt
	jmp	1b
	.cfi_endproc
	.size	_start, . - _start

	.bss
	.balign	16
	.skip	8192
stack_top:
	.section .note.GNU-stack, "", @progbits
