/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rt: real-time set-up of the process: SCHED_FIFO permission, memory
 * locking, /dev/cpu_dma_latency, thread pinning.  Each function says what
 * failed and how to fix it, because the person reading the error is often
 * not root on the machine they are tuning. */
#ifndef RTSOAK_RT_H
#define RTSOAK_RT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"

/* Can this process create SCHED_FIFO threads at `priority`?  Tries it on
 * the calling thread and restores SCHED_OTHER.  0 or -errno + message. */
int rt_check_fifo(int priority, char *err, size_t errlen);

/* mlockall(MCL_CURRENT | MCL_FUTURE), after limiting malloc to one arena
 * (each thread's own would be resident).  0 or -errno + message.  Skipped
 * (returns 1) in AddressSanitizer builds, whose terabytes of shadow memory
 * cannot be locked.  Returns 2 with a message when RLIMIT_MEMLOCK is finite
 * and CAP_IPC_LOCK missing: then only MCL_CURRENT, and the caller locks
 * again with rt_lock_memory_again() once the probes have allocated. */
int rt_lock_memory(char *err, size_t errlen);
int rt_lock_memory_again(void);

/* Open /dev/cpu_dma_latency and write `usec`; the returned fd must stay open
 * for the request to hold.  fd, or -errno + message. */
int rt_dma_latency_hold(int usec, char *err, size_t errlen);

/* Pin the calling thread to `set`.  0 or -errno. */
int rt_pin_self(const struct cpuset *set);

/* Create a thread pinned to `cpu`, SCHED_FIFO at `priority` (0:
 * SCHED_OTHER), with a `stack`-byte stack.  0 or an errno value, like
 * pthread_create(). */
int rt_thread_create(pthread_t *thread, int cpu, int priority, size_t stack, void *(*fn)(void *),
		     void *arg);

/* Touch `bytes` of stack so that the probe never faults on it. */
void rt_prefault_stack(size_t bytes);

/* Allocate `size` zeroed, pre-faulted bytes, 64-byte aligned, on the NUMA
 * node of `cpu` when built with libnuma and cpu >= 0 (first touch by the
 * calling thread otherwise: call it from the probe thread after pinning).
 * *on_numa says which allocator to give it back to.  NULL on ENOMEM. */
void *rt_alloc_local(size_t size, int cpu, bool *on_numa);
/* Fill libnuma's per-node caches for these CPUs from one thread, before
 * threads allocate with rt_alloc_local at the same time. */
void rt_numa_warm(const struct cpuset *cpus);
void rt_free_local(void *p, size_t size, bool on_numa);

/* Read /proc/sys/kernel/sched_rt_runtime_us and _period_us; 0 or -errno. */
int rt_throttling(long *runtime_us, long *period_us);

#endif
