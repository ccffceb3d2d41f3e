/* SPDX-License-Identifier: MIT */
/* core/sfu.h reduced to one version and one byte order (the folded
 * version and byte-order tests): V3, big-endian, aarch64 and s390x. */
#define SFU_STATIC
#define SFU_IMPLEMENTATION
#define SFU_V1 0
#define SFU_V2 0
#define SFU_LITTLE 0
#define SFU_AMD64 0
#include "sfu.h"
#include "wc_core.h"
WC_CORE_DEFINE(wc_core_v3be, "v3-be");
