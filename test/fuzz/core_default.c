/* SPDX-License-Identifier: MIT */
/* core/sfu.h with every knob at its default. */
#define SFU_STATIC
#define SFU_IMPLEMENTATION
#include "sfu.h"
#include "wc_core.h"
WC_CORE_DEFINE(wc_core_default, "default");
