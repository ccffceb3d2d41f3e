/* SPDX-License-Identifier: MIT */
/* core/sfu.h reduced to SFrame V1 (gcc 12 era), both byte orders, amd64
 * and aarch64, no FLEX. */
#define SFU_STATIC
#define SFU_IMPLEMENTATION
#define SFU_V2 0
#define SFU_V3 0
#define SFU_S390X 0
#define SFU_FLEX 0
#include "sfu.h"
#include "wc_core.h"
WC_CORE_DEFINE(wc_core_v1, "v1");
