/* SPDX-License-Identifier: MIT */
/* _start of the tests' bare-metal images (test/common/image.ld): the
   conformance corpus, the gen suite's clang images, the property-test
   images.  The return address column is undefined from the first
   instruction: this is the outermost frame, which SFrame V2 (erratum 2)
   and V3 encode as an FRE with no data words.  Nothing runs these images:
   they are read for their sections. */
	.section .text.start, "ax", @progbits
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip
	xorl	%ebp, %ebp
	leaq	__stack_top(%rip), %rsp
	call	test_entry
1:	hlt
	jmp	1b
	.cfi_endproc
	.size	_start, . - _start

/* What _start calls: a test's own test_entry, or, in images of one
   corpus object that nothing calls into, this one. */
	.text
	.weak	test_entry
	.type	test_entry, @function
test_entry:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	test_entry, . - test_entry

	.bss
	.balign	16
	.skip	4096
__stack_top:

	.section .note.GNU-stack, "", %progbits
