/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_recorder: the flight recorder of `run --trace`.
 *
 * Consumes the per-CPU ring buffers of rtsoak's instance (trace_instance.h)
 * on the housekeeping thread: trace_recorder_poll() reads what is new on
 * every traced CPU without blocking (trace_pipe_raw opened O_NONBLOCK, one
 * read per sub-buffer page, an empty CPU costs one read() that returns
 * EAGAIN), converts each known event into a `struct trace_ev` and appends
 * it to that CPU's window: the last window_ms of events, at most max_events
 * of them, in memory allocated at create (no allocation per event).
 *
 * Lost events (the kernel's ring overwrote pages before they were read) are
 * counted per CPU and inserted as a TEV_LOST event where the loss is, so a
 * window that contains one is known to be incomplete.
 *
 * Not thread-safe: every call on one recorder from one thread (the
 * housekeeping thread), or serialised by the caller. */
#ifndef RTSOAK_TRACE_RECORDER_H
#define RTSOAK_TRACE_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_event.h"
#include "trace_instance.h"

#define TRACE_DEFAULT_WINDOW_MS 200u
#define TRACE_DEFAULT_MAX_EVENTS 16384u /* per CPU: 80 bytes each, 1.25 MiB */

struct trace_recorder;

struct trace_recorder_config {
	unsigned window_ms;  /* 0: TRACE_DEFAULT_WINDOW_MS */
	unsigned max_events; /* per CPU; 0: TRACE_DEFAULT_MAX_EVENTS */
};

/* Opens trace_pipe_raw of each CPU of ti->cpus (fds: one per CPU, plus
 * libtracefs's), parses the formats of the events ti enabled, loads
 * /proc/kallsyms (hrtimer and NMI handler names) and then turns the
 * instance's tracing on (trace_instance_start).  NULL with err on failure
 * (errno set).  Destroy it before trace_instance_destroy: an open
 * trace_pipe_raw keeps the instance busy. */
struct trace_recorder *trace_recorder_create(struct trace_instance *ti,
					     const struct trace_recorder_config *cfg, char *err,
					     size_t errlen) __attribute__((warn_unused_result));
void trace_recorder_destroy(struct trace_recorder *rec);

/* Read everything new on every traced CPU; returns the number of events
 * added (TEV_LOST included), 0 when there was nothing, or -errno (err says
 * what).  Returns promptly: it never waits for data. */
int trace_recorder_poll(struct trace_recorder *rec, char *err, size_t errlen)
    __attribute__((warn_unused_result));

struct trace_window_info {
	size_t total;	  /* events in [from, to] (copied: min(total, max)) */
	bool lost_inside; /* a TEV_LOST in [from, to] */
	bool lost_before; /* a TEV_LOST still held, before from: what led into the window */
			  /* (who ran, idle state) may be wrong */
	bool covered;	  /* nothing at or after from was evicted (window_ms, max_events) */
	bool complete;	  /* the horizon has passed to: nothing more will arrive for it */
	uint64_t oldest;  /* ts of the oldest event held, 0 when none */
};

/* Copy the events of `cpu` with from <= ts <= to, oldest first, into out
 * (at most max).  Returns how many were copied, or -EINVAL for a CPU that
 * is not traced.  info (may be NULL) says how far the window can be
 * trusted. */
long trace_recorder_window(const struct trace_recorder *rec, int cpu, uint64_t from, uint64_t to,
			   struct trace_ev *out, size_t max, struct trace_window_info *info);

/* The last event of `type` on `cpu` before `before`, still held, into
 * *out: 1, or 0 when there is none within TRACE_LAST_SCAN events back or a
 * TEV_LOST comes first; -EINVAL for a CPU not traced.  For TEV_IDLE the last
 * entry into an idle state (an exit, TEV_IDLE_EXIT, names none: the CPU
 * that left idle and went back without a new entry traced is in the state
 * it last entered).  The state of the CPU at a window's start: on an idle
 * CPU the switch into idle (TEV_SWITCH) and the entry into an idle state
 * (TEV_IDLE) lie a whole sleep before the wake-up, outside the analysis
 * window, and some kernels never trace the switch out of idle. */
#define TRACE_LAST_SCAN 8192u
int trace_recorder_last(const struct trace_recorder *rec, int cpu, uint64_t before,
			enum trace_ev_type type, struct trace_ev *out);

/* Events consumed on `cpu` since create (TEV_LOST not counted) and events
 * lost: the larger of what the pages reported missing and the kernel's own
 * count (per_cpu/cpuN/stats: overrun + dropped events since create; this
 * reads that file).  0 or -errno. */
int trace_recorder_stats(struct trace_recorder *rec, int cpu, uint64_t *events, uint64_t *lost)
    __attribute__((warn_unused_result));

/* Up to when `cpu`'s events are all consumed: the ts of the newest event
 * consumed, or, when the last poll found the CPU's buffer empty, the time
 * that poll started minus 1 ms (a slack for events being written then).
 * 0 before anything is known.  A spike's window [from, to] is complete
 * once the horizon is >= to. */
uint64_t trace_recorder_horizon(const struct trace_recorder *rec, int cpu);

/* power:cpu_idle entries (not exits) consumed on `cpu` since create: 0
 * where the kernel names no idle state there (no event fires). */
uint64_t trace_recorder_idle_entries(const struct trace_recorder *rec, int cpu);

/* How full the kernel's rings got: the most sub-buffer pages one CPU gave
 * in the last poll, and the pages of a CPU's ring (buffer_kb). */
void trace_recorder_fill(const struct trace_recorder *rec, unsigned *pages, unsigned *ring);

/* Memory the recorder allocated (rings and buffers), not counting
 * libtraceevent's parsed formats and symbols. */
size_t trace_recorder_memory(const struct trace_recorder *rec);

/* What recording the stacks (--trace-stacks) cost the measured CPUs: for
 * each stack that directly follows its local_timer_entry, the time from
 * that entry to the stack event (the unwinding, inside the interrupt, so
 * inside the probe's IRQ latency): how many, their sum and the largest. */
struct trace_stack_cost {
	uint64_t n, sum_ns, max_ns;
};
void trace_recorder_stack_cost(const struct trace_recorder *rec, struct trace_stack_cost *out);

#endif
