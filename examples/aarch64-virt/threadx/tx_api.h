/* SPDX-License-Identifier: MIT */
/*
 * tx_api.h -- the part of ThreadX's API the example's ThreadX-shaped
 * kernel (threadx.c) has: its types as the ARMv8-A port's tx_port.h
 * (6.2.1) makes them (ULONG and UINT 32-bit) and TX_THREAD in tx_api.h's
 * (6.4.2) field order with the port's extension (tx_thread_fp_enable),
 * written here from their documented layout.
 */
#ifndef TX_API_H
#define TX_API_H

#include <stdint.h>

typedef void VOID;
typedef char CHAR;
typedef unsigned int UINT;
typedef unsigned int ULONG;
typedef int LONG;

#define TX_THREAD_ID ((ULONG)0x54485244)
#define TX_READY 0u
#define TX_COMPLETED 1u
#define TX_TERMINATED 2u
#define TX_SUSPENDED 3u
#define TX_SLEEP 4u
#define TX_QUEUE_SUSP 5u
#define TX_SEMAPHORE_SUSP 6u
#define TX_MUTEX_SUSP 13u

struct TX_TIMER_INTERNAL_STRUCT {
    ULONG tx_timer_internal_remaining_ticks;
    ULONG tx_timer_internal_re_initialize_ticks;
    VOID (*tx_timer_internal_timeout_function)(ULONG id);
    ULONG tx_timer_internal_timeout_param;
    struct TX_TIMER_INTERNAL_STRUCT *tx_timer_internal_active_next, *tx_timer_internal_active_previous;
    struct TX_TIMER_INTERNAL_STRUCT **tx_timer_internal_list_head;
    VOID *tx_timer_internal_extension_ptr; /* TX_TIMER_INTERNAL_EXTENSION */
};

typedef struct TX_THREAD_STRUCT {
    ULONG tx_thread_id;
    ULONG tx_thread_run_count;
    VOID *tx_thread_stack_ptr;
    VOID *tx_thread_stack_start;
    VOID *tx_thread_stack_end;
    ULONG tx_thread_stack_size;
    ULONG tx_thread_time_slice;
    ULONG tx_thread_new_time_slice;
    struct TX_THREAD_STRUCT *tx_thread_ready_next, *tx_thread_ready_previous;
    CHAR *tx_thread_name;
    UINT tx_thread_priority;
    UINT tx_thread_state;
    UINT tx_thread_delayed_suspend;
    UINT tx_thread_suspending;
    UINT tx_thread_preempt_threshold;
    VOID (*tx_thread_schedule_hook)(struct TX_THREAD_STRUCT *thread_ptr, ULONG id);
    VOID (*tx_thread_entry)(ULONG id);
    ULONG tx_thread_entry_parameter;
    struct TX_TIMER_INTERNAL_STRUCT tx_thread_timer;
    VOID (*tx_thread_suspend_cleanup)(struct TX_THREAD_STRUCT *thread_ptr, ULONG suspension_sequence);
    VOID *tx_thread_suspend_control_block;
    struct TX_THREAD_STRUCT *tx_thread_suspended_next, *tx_thread_suspended_previous;
    ULONG tx_thread_suspend_info;
    VOID *tx_thread_additional_suspend_info;
    UINT tx_thread_suspend_option;
    UINT tx_thread_suspend_status;
    struct TX_THREAD_STRUCT *tx_thread_created_next, *tx_thread_created_previous;
    ULONG tx_thread_fp_enable; /* TX_THREAD_EXTENSION_2 */
    VOID *tx_thread_filex_ptr;
    UINT tx_thread_user_priority;
    UINT tx_thread_user_preempt_threshold;
    UINT tx_thread_inherit_priority;
    UINT tx_thread_owned_mutex_count;
    struct TX_MUTEX_STRUCT *tx_thread_owned_mutex_list;
    VOID *tx_thread_stack_highest_ptr;
    VOID (*tx_thread_entry_exit_notify)(struct TX_THREAD_STRUCT *thread_ptr, UINT type);
    ULONG tx_thread_suspension_sequence;
} TX_THREAD;

/* A counting semaphore: the threads suspended on it (TX_SEMAPHORE_SUSP)
 * on a circular list through tx_thread_suspended_next, in their order of
 * suspension. */
#define TX_SEMAPHORE_ID ((ULONG)0x53454D41)
typedef struct TX_SEMAPHORE_STRUCT {
    ULONG tx_semaphore_id;
    CHAR *tx_semaphore_name;
    ULONG tx_semaphore_count;
    struct TX_THREAD_STRUCT *tx_semaphore_suspension_list;
    UINT tx_semaphore_suspended_count;
    struct TX_SEMAPHORE_STRUCT *tx_semaphore_created_next, *tx_semaphore_created_previous;
    VOID (*tx_semaphore_put_notify)(struct TX_SEMAPHORE_STRUCT *semaphore_ptr);
} TX_SEMAPHORE;

#endif
