/* Entry point of the corpus images.  The return address column is
   undefined from the first instruction: this is the outermost frame, which
   SFrame V2 (erratum 2) and V3 encode as an FRE with no data words. */
	.section .text.start, "ax", @progbits
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip
	xorl	%ebp, %ebp
	leaq	__stack_top(%rip), %rsp
	call	corpus_entry
1:	hlt
	jmp	1b
	.cfi_endproc
	.size	_start, . - _start

/* What _start calls.  Images link one corpus object and nothing calls
   into it, so this only has to exist. */
	.text
	.weak	corpus_entry
	.type	corpus_entry, @function
corpus_entry:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	corpus_entry, . - corpus_entry

	.bss
	.balign	16
	.skip	4096
__stack_top:

	.section .note.GNU-stack, "", %progbits
