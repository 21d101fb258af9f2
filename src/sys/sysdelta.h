/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysdelta: what the system did during a phase.  Counters that a tuner
 * reads to explain latency (interrupts and softirqs per CPU, irq/softirq/
 * steal/idle time, idle-state usage and residency, context switches) are
 * read at every phase boundary on the housekeeping thread, and the
 * differences are summed per phase. */
#ifndef RTSOAK_SYSDELTA_H
#define RTSOAK_SYSDELTA_H

#include <jansson.h>

/* Read every counter now: {"interrupts": {name: [per CPU]}, "softirqs":
 * {...}, "cpu_time_ns": {"irq": [...], ...}, "cpuidle": {state: {"usage":
 * [...], "time_us": [...]}}, "context_switches": N}.  Arrays are indexed by
 * CPU number.  NULL on ENOMEM; unreadable sources are left out. */
json_t *sysdelta_read(void);

/* acc += after - before, key by key and element by element.  Keys missing
 * from `before` (an IRQ registered mid-phase) count from zero. */
/* 0, or -ENOMEM (then acc is short: the caller fails the report). */
int sysdelta_accumulate(json_t *acc, const json_t *before, const json_t *after);

/* A report-sized copy of an accumulated delta: interrupts reduced to the
 * `top` sources by total count (the rest summed as "other"), and per-CPU
 * arrays kept as they are. */
json_t *sysdelta_summary(const json_t *acc, unsigned top);

#endif
