/* SPDX-License-Identifier: MIT */
/* core/sfu.h reduced: SFrame V2 and V3, little-endian, no FLEX FDEs, no
 * s390x, and the smallest useful depth cap. */
#define SFU_STATIC
#define SFU_IMPLEMENTATION
#define SFU_V1 0
#define SFU_BIG 0
#define SFU_S390X 0
#define SFU_FLEX 0
#define SFU_DEPTH_CAP 3
#include "sfu.h"
#include "wc_core.h"
WC_CORE_DEFINE(wc_core_min, "v23-le-noflex-cap3");
