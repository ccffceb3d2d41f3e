/* SPDX-License-Identifier: MIT */
/* test_pltgot.c with SFU_COMPACT 0: every row through the general rules,
 * which must give the corrected .plt.got row too. */
#define SFU_COMPACT 0
#include "test_pltgot.c"
