/* SPDX-License-Identifier: MIT */
/* The core as a firmware build would compile it: one translation unit with
 * the bodies, every public function external (so none is dropped), built
 * by test/size/run.sh with bare-metal flags for each target and config. */
#define SFU_IMPLEMENTATION
#include "sfu.h"
