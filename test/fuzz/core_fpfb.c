/* SPDX-License-Identifier: MIT */
/* core/sfu.h with the frame-pointer fallback and a small depth cap. */
#define SFU_STATIC
#define SFU_IMPLEMENTATION
#define SFU_FP_FALLBACK 1
#define SFU_DEPTH_CAP 24
#include "sfu.h"
#include "wc_core.h"
WC_CORE_DEFINE(wc_core_fpfb, "fp-fallback");
