/* SPDX-License-Identifier: MIT */
/* A zero-size .sframe section (some crt objects have one): objdump 2.40
   calls the object "file format not recognized" and objdump 2.47 prints
   "Can't get contents for section ''", so it has no reference; linked
   into an image it must add nothing to the merged section.  The section
   type is the one the suite's own gas gives .sframe (corpus.mk passes
   it): SHT_PROGBITS before binutils 2.45, SHT_GNU_SFRAME (0x6ffffff4)
   since - lld refuses to mix the two in one output section. */
#ifndef SFRAME_SHT
#error "SFRAME_SHT (the .sframe section type) comes from corpus.mk"
#endif
	.text
	.globl	emptysf_fn
	.type	emptysf_fn, %function
emptysf_fn:
	ret
	.size	emptysf_fn, . - emptysf_fn

	.section .sframe, "a", SFRAME_SHT

	.section .note.GNU-stack, "", %progbits
