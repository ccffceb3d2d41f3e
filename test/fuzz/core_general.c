/* SPDX-License-Identifier: MIT */
/* core/sfu.h with every row applied through the general rules
 * (SFU_COMPACT 0): the reference the compact rows are checked against. */
#define SFU_STATIC
#define SFU_IMPLEMENTATION
#define SFU_COMPACT 0
#include "sfu.h"
#include "wc_core.h"
WC_CORE_DEFINE(wc_core_general, "general-rules");
