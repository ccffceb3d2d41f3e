/* SPDX-License-Identifier: MIT */
/* A PIE whose call to getpid goes through .plt.got: the function's
   address is also loaded from the GOT (GOTPCREL), so GNU ld gives it a
   non-lazy stub, `jmp *getpid@GOTPCREL(%rip)`, reached by `call`: the CFA
   there is SP+8. */
#include <unistd.h>

pid_t (*volatile pltgot_ptr)(void);

int main(void)
{
	pltgot_ptr = getpid; /* address taken through the GOT */
	return getpid() == pltgot_ptr() ? 0 : 1;
}
