/* SPDX-License-Identifier: MIT */
/* A function without CFI: gas writes no .sframe section for this object
   (build-corpus.sh records it as skipped), and in the images the function
   is a gap between FDEs, where a lookup must report "no unwind info". */
	.text
	.globl	nocfi_fn
	.type	nocfi_fn, @function
nocfi_fn:
	nop
	ret
	.size	nocfi_fn, . - nocfi_fn

	.section .note.GNU-stack, "", @progbits
