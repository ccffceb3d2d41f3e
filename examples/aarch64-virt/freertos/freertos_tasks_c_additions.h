/* SPDX-License-Identifier: MIT */
/* freertos_tasks_c_additions.h -- included by tasks.c at its end
 * (configINCLUDE_FREERTOS_TASK_C_ADDITIONS_H): sfu's description of the
 * tasks, where the lists and TCB_t are visible. */
#define SFU_FREERTOS_TASKS_C 1
#include "sfu_freertos.h"
