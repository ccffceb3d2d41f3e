/* SPDX-License-Identifier: MIT */
/* sfu_port.h - the bare-metal port of the CPU being compiled for.
 *
 * crash/sfu_layout.h includes it (-I <sfu>/port): it includes
 * port/<arch>/sfu_port_<arch>.h, which includes core/sfu.h.  A port holds
 * what differs per CPU only (the hooks crash/sfu_layout.h lists).
 */
#ifndef SFU_PORT_H
#define SFU_PORT_H

#if defined(__aarch64__)
#include "aarch64/sfu_port_aarch64.h"
#elif defined(__x86_64__)
#include "x86_64/sfu_port_x86_64.h"
#else
#error "sfu: no bare-metal port for this CPU (port/aarch64, port/x86_64); write one after crash/sfu_layout.h"
#endif

#endif /* SFU_PORT_H */
