/* SPDX-License-Identifier: MIT */
/* rtos_types.h - the RTOS types the rtos/ headers' tests build against,
 * as the RTOSes' headers lay them out (aarch64): ThreadX's TX_THREAD
 * (tx_api.h 6.4.2 with the ARMv8-A port's extension; the fields the
 * header reads at their offsets, the rest as padding) and FreeRTOS's
 * list types (list.h).  RTOS_TX_MOVED adds a field before tx_thread_name,
 * as a build option that moves it would. */
#ifndef RTOS_TYPES_H
#define RTOS_TYPES_H

#include <stdint.h>

typedef unsigned int ULONG;
typedef unsigned int UINT;
#define TX_THREAD_ID ((ULONG)0x54485244)
typedef struct TX_THREAD_STRUCT {
    ULONG tx_thread_id, tx_thread_run_count;
    void *tx_thread_stack_ptr, *tx_thread_stack_start, *tx_thread_stack_end;
    ULONG tx_thread_stack_size;
    unsigned char pad1[64 - 36];
#ifdef RTOS_TX_MOVED
    void *tx_thread_user_extension;
#endif
    char *tx_thread_name;
    UINT tx_thread_priority, tx_thread_state;
    unsigned char pad2[232 - 80];
    struct TX_THREAD_STRUCT *tx_thread_created_next, *tx_thread_created_previous;
    ULONG tx_thread_fp_enable;
} TX_THREAD;

typedef uint64_t StackType_t;
typedef uint64_t UBaseType_t;
typedef uint64_t TickType_t;
#define portSTACK_GROWTH (-1)
struct xLIST;
typedef struct xLIST_ITEM {
    TickType_t xItemValue;
    struct xLIST_ITEM *pxNext, *pxPrevious;
    void *pvOwner;
    struct xLIST *pxContainer;
} ListItem_t;
typedef struct xMINI_LIST_ITEM {
    TickType_t xItemValue;
    struct xLIST_ITEM *pxNext, *pxPrevious;
} MiniListItem_t;
typedef struct xLIST {
    UBaseType_t uxNumberOfItems;
    ListItem_t *pxIndex;
    MiniListItem_t xListEnd;
} List_t;

#endif
