/* SPDX-License-Identifier: MIT */
/* test_pltgot.c with SFU_FIX_LD_PLTGOT 0: ld's .plt.got rows as written
 * (CFA = SP + 16), everything else as with the fix. */
#define SFU_FIX_LD_PLTGOT 0
#include "test_pltgot.c"
