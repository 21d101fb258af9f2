/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_event: one kernel event as the trace subsystem keeps it.
 *
 * The recorder (trace_recorder.c) reads the per-CPU ring buffers of rtsoak's
 * own tracefs instance on the housekeeping thread and turns each raw event
 * it knows into one fixed-size `struct trace_ev` in a bounded per-CPU
 * window (the last N ms).  The analysis (attrib.c) reads windows of these
 * and nothing else, so it is testable on recorded streams: a fixture is a
 * text file of these records (trace_event_parse_line/format_line).
 *
 * Timestamps: the instance's trace_clock is "mono", so ts is
 * CLOCK_MONOTONIC in ns, the clock the probes read. */
#ifndef RTSOAK_TRACE_EVENT_H
#define RTSOAK_TRACE_EVENT_H

#include <stddef.h>
#include <stdint.h>

enum trace_ev_type {
	TEV_SWITCH,	   /* sched:sched_switch: pid2 (prev) -> pid (next) */
	TEV_WAKING,	   /* sched:sched_waking: pid woken, arg = target CPU */
	TEV_WAKEUP,	   /* sched:sched_wakeup: pid, arg = target CPU */
	TEV_IRQ_ENTRY,	   /* irq:irq_handler_entry: arg = irq, name = handler name */
	TEV_IRQ_EXIT,	   /* irq:irq_handler_exit: arg = irq, name as at entry if known */
	TEV_SOFTIRQ_ENTRY, /* irq:softirq_entry: arg = vector (0 HI .. 9 RCU) */
	TEV_SOFTIRQ_EXIT,  /* irq:softirq_exit: arg = vector */
	TEV_VECTOR_ENTRY,  /* irq_vectors:*_entry: arg = vector, name = "local_timer", ... */
	TEV_VECTOR_EXIT,   /* irq_vectors:*_exit: arg = vector, name as at entry */
	/* timer:hrtimer_expire_entry: name = function (symbol), pid = the task
	 * it wakes when it is hrtimer_wakeup and known, else -1; entry and
	 * exit: arg = low 32 bits of the hrtimer's address, to pair them */
	TEV_HRTIMER_ENTRY,
	TEV_HRTIMER_EXIT, /* timer:hrtimer_expire_exit */
	TEV_IDLE,	  /* power:cpu_idle: arg = state, TEV_IDLE_EXIT when leaving idle */
	TEV_NMI,	  /* nmi:nmi_handler: arg = handler duration in ns, name = handler */
	TEV_STACK, /* optional: stack at a local-timer IRQ, name = the interrupted function */
	TEV_LOST,  /* the ring overran on this CPU: events before ts may be missing */
	/* workqueue:workqueue_execute_start/end: a kworker runs one work item,
	 * name = its function (symbol), arg = low 32 bits of the work_struct's
	 * address, to pair them; the end names the function as the start did
	 * when the recorder saw that start, else "" */
	TEV_WORK_START,
	TEV_WORK_END,
	/* timer:timer_expire_entry/exit: a timer wheel callback runs (in the
	 * TIMER softirq, a thread's on PREEMPT_RT), name = its function, arg =
	 * low 32 bits of the timer_list's address; the exit as TEV_WORK_END */
	TEV_TIMER_ENTRY,
	TEV_TIMER_EXIT,
	TEV_NTYPES
};

#define TEV_IDLE_EXIT 0xffffffffu
#define TEV_NAME_LEN 24

/* prio/prio2 are the kernel's prio as sched_switch prints it: 0..98 for
 * SCHED_FIFO/RR (99 - rt_priority - 1, so FIFO 99 is 0), 100..139 for
 * SCHED_OTHER (120 + nice), -1 for a deadline task or unknown. */
struct trace_ev {
	uint64_t ts; /* CLOCK_MONOTONIC ns */
	uint16_t type;
	uint16_t cpu;
	int32_t pid;		  /* SWITCH: next; WAKING/WAKEUP: the woken task; else -1 */
	int32_t pid2;		  /* SWITCH: prev; else -1 */
	int32_t prio;		  /* SWITCH: next's; WAKING/WAKEUP: the woken's */
	int32_t prio2;		  /* SWITCH: prev's */
	uint32_t arg;		  /* see enum; SWITCH: prev_state (0: runnable, preempted) */
	char name[TEV_NAME_LEN];  /* SWITCH: next_comm; WAKING: comm; IRQ: handler; ... */
	char name2[TEV_NAME_LEN]; /* SWITCH: prev_comm */
};

/* "ts cpu type pid pid2 prio prio2 arg name name2": one line per event,
 * names with spaces as '_'... see trace_event.c.  parse: 0 or -EINVAL (a
 * '#' comment line is -EINVAL too: skip those first); format: no newline. */
int trace_event_parse_line(const char *line, struct trace_ev *ev);
void trace_event_format_line(const struct trace_ev *ev, char *buf, size_t len);
const char *trace_event_type_name(unsigned type);
/* "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
 * "HRTIMER", "RCU" */
const char *trace_softirq_name(unsigned vec);

#endif
