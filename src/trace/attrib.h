/* SPDX-License-Identifier: GPL-2.0-or-later */
/* attrib: why one wake-up was late, from the events of its CPU.
 *
 * Pure computation over a window of `struct trace_ev` (trace_event.h): no
 * tracefs, no clock, no allocation beyond the caller's structs, so that it
 * runs on the housekeeping thread during the run and in unit tests on
 * recorded windows alike.  The rules follow rtla's timerlat auto-analysis
 * (tools/tracing/rtla/src/timerlat_aa.c), applied to every spike instead of
 * one. */
#ifndef RTSOAK_ATTRIB_H
#define RTSOAK_ATTRIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_event.h"

#define ATTRIB_MAX_CONTRIB 8
#define ATTRIB_MAX_SEG 64
#define ATTRIB_VERDICT_LEN 224
#define ATTRIB_CAUSE_LEN 64

enum attrib_status {
	ATTRIB_OK,	  /* attributed: contributors and a verdict */
	ATTRIB_LOST,	  /* "not attributed: events lost" (a TEV_LOST in or before the window) */
	ATTRIB_NO_EVENTS, /* the window holds no event of this CPU (not traced yet / gone) */
	ATTRIB_NO_ANCHOR, /* the probe's own wake-up is not in the window */
};

enum attrib_kind {
	AK_IRQ,	      /* a hard IRQ handler: name, id = irq */
	AK_SOFTIRQ,   /* id = vector, name = "NET_RX" ... */
	AK_VECTOR,    /* an IPI / APIC vector (local_timer, reschedule, call_function, irq_work) */
	AK_NMI,	      /* NMI handler */
	AK_TASK,      /* a task that ran instead of the probe: name = comm, pid, policy, prio */
	AK_IDLE_EXIT, /* the CPU was idle at the deadline: id = idle state, ns = deadline -> exit */
	AK_SILENT,    /* no event at all: IRQs off, SMI or hypervisor */
	/* a round-trip probe (net, icmp) not woken yet: its datagram or echo
	 * on its way (the sender's CPU, the network stack, the peer); not
	 * this CPU's doing, whatever ran on it meanwhile */
	AK_TRANSIT,
	AK_NKINDS
};

/* What a contributor ran, where the events name a function: a kworker's
 * work item (workqueue_execute_start/end), a timer wheel callback
 * (timer_expire_entry/exit, in the TIMER softirq or a task). */
enum attrib_fn_kind {
	ATTRIB_FN_NONE,
	ATTRIB_FN_WORK,
	ATTRIB_FN_TIMER,
};

struct attrib_contrib {
	enum attrib_kind kind;
	char name[TEV_NAME_LEN];
	int32_t pid;	 /* AK_TASK */
	int policy;	 /* AK_TASK: 0 SCHED_OTHER, 1 SCHED_FIFO (RR/DL shown as FIFO/-1) */
	int rt_priority; /* AK_TASK: 1..99 for RT, else the nice value */
	uint32_t id;	 /* irq, vector, idle state */
	uint64_t ns;	 /* its time inside [deadline, wake] */
	/* The function it spent most of ns in (fn_ns of it), of fn_kind;
	 * fn_more: the time in other functions of a kind (several work items,
	 * several callbacks).  ATTRIB_FN_NONE, "" and 0 when the window shows
	 * none: the start of a work item that began before the window's first
	 * event is not seen, nor one that the recorder did not trace. */
	enum attrib_fn_kind fn_kind;
	char fn[TEV_NAME_LEN];
	uint64_t fn_ns, fn_more;
	/* AK_TASK: a threaded IRQ handler (PREEMPT_RT, threadirqs), whose comm
	 * is "irq/N-NAME" cut to 15 bytes: threaded, irq = N; irq_name the
	 * handler's whole name where the window holds an irq_handler_entry
	 * of N on this CPU, else "".  woke (woke_known): what this CPU was
	 * running at the task's last sched_waking by its own hard IRQ (AK_IRQ
	 * with id N) in the window up to the wake-up, else at its last
	 * sched_waking by anything (a task that released a lock it waited
	 * for, on PREEMPT_RT), woke_off_ns when, from
	 * the deadline (negative: before it); not known when the window holds
	 * no waking of it on this CPU (woken elsewhere, or before the window).
	 * All zero (false, "") for any other contributor. */
	bool threaded, woke_known;
	uint32_t irq;
	char irq_name[TEV_NAME_LEN];
	struct attrib_waker {
		enum attrib_kind kind;
		uint32_t id;
		int32_t pid; /* AK_TASK */
		char name[TEV_NAME_LEN];
	} woke;
	int64_t woke_off_ns;
};

/* One stretch of the timeline: from `off` ns after the deadline, for `ns`,
 * the CPU was contributor c[contrib] (-1: one beyond the ATTRIB_MAX_CONTRIB
 * kept).  The time the probe itself had the CPU, and stretches credited to
 * nobody, are the gaps between segments.  32-bit: a window longer than
 * 4.29 s saturates. */
struct attrib_seg {
	uint32_t off, ns;
	int8_t contrib;
};

struct attrib_input {
	int cpu;
	int32_t probe_tid; /* the probe thread (anchor: its wake-up and switch-in) */
	/* when it should have woken (timer: the programmed expiry; net.wakeup:
	 * the kernel's receive timestamp) */
	uint64_t deadline_ns;
	uint64_t wake_ns;	   /* when it read the clock after waking */
	bool timer;		   /* the timer probe: split at the hrtimer expiry */
	const struct trace_ev *ev; /* this CPU's events, sorted by ts, covering */
	size_t nev;		   /*   at least [deadline - ATTRIB_LOOKBACK_NS, wake] */
	uint64_t steal_ns;	   /* steal time of this CPU over the window, if known, else 0 */
	/* steal_ns was read over this span around the window (the readings
	 * are per housekeeping tick, in 10 ms units); 0: over the window */
	uint64_t steal_span_ns;
	bool steal_known; /* steal_ns was read (else unknown: no steal column) */
	/* The recorder leaves out this (timer) probe's own wake-up from idle:
	 * its switch-in from the idle task, its waking and its timer interrupt
	 * in the idle task's context (trace_instance_filter_probes).  A
	 * wake-up without any anchor, on a CPU the idle task held at its end,
	 * came from idle: attributed, with the split unknown (attrib.c). */
	bool idle_unrecorded;
	/* Why the window holds no cpu_idle entry before an idle stretch, when
	 * it holds none (the caller puts the CPU's last one first): the verdict
	 * of an unnamed idle exit says it. */
	enum attrib_idle_why {
		ATTRIB_IDLE_NOT_TRACED, /* none on this CPU: the kernel names no state */
		ATTRIB_IDLE_LOST,	/* events were lost since the last one */
		ATTRIB_IDLE_OLD,	/* the last one is older than the events held */
	} idle_why;
};

/* events before the deadline looked at (idle, running task) */
#define ATTRIB_LOOKBACK_NS 2000000ull
/* A stretch of [deadline, wake] with no event at all, longer than this,
 * where the CPU should have shown something (the probe on its way to user
 * space, or a task before the probe's timer IRQ came, which only IRQs off
 * can delay) is a silent gap: IRQs off, an SMI or the hypervisor. */
#define ATTRIB_SILENT_NS 20000ull

/* A task on the CPU's run queue, as the window's events show it. */
#define ATTRIB_MAX_RUNQ 8
struct attrib_task {
	int32_t pid;
	int policy, rt_priority; /* as attrib_contrib's */
	bool running;		 /* on the CPU (else runnable, waiting) */
	char name[TEV_NAME_LEN];
};

/* Another measured CPU at a spike's deadline (rtla's --dump-tasks dumps
 * every CPU): its run queue rebuilt from its own window of events up to
 * the deadline, as attrib_result.runq is for the spike's CPU.  known: that
 * CPU's window covered the moment (its events from the window's start to
 * the deadline are all held: nothing evicted, nothing lost, the recorder
 * has read past the deadline); when not, runq is empty. */
#define ATTRIB_MAX_CPUS 8
struct attrib_cpu_runq {
	int cpu;
	bool known;
	bool runq_more; /* as attrib_result.runq_more */
	unsigned nrunq;
	struct attrib_task runq[ATTRIB_MAX_RUNQ];
};

/* The input of attrib_runq_at: one other CPU's events. */
struct attrib_runq_input {
	int cpu;
	/* that CPU's events, sorted by ts, from the window's start (the
	 * CPU's last switch before it may lead) up to at least at_ns; events
	 * after at_ns, or of another CPU, are not looked at */
	const struct trace_ev *ev;
	size_t nev;
	uint64_t at_ns;	      /* the spike's deadline */
	uint64_t complete_ns; /* every event of the CPU up to this is in the recorder */
	bool covered;	      /* nothing from the window's start on was evicted */
};

struct attrib_result {
	enum attrib_status status;
	/* The split, each UINT64_MAX when its anchor is missing:
	 *   irq_ns    deadline -> the probe's hrtimer expiry (timer probe; where
	 *             the trace has no expiry, the waking it makes)
	 *   thread_ns expiry (or wake-up) -> switched in
	 *   user_ns   switched in -> wake_ns (return to user, clock read) */
	uint64_t irq_ns, thread_ns, user_ns;
	struct attrib_contrib c[ATTRIB_MAX_CONTRIB]; /* largest first */
	unsigned n;
	/* The dominant cause: c[0] when n > 0.  cause is the aggregation key
	 * ("task:rtsoak-spike/0 (FIFO 99)", "softirq:NET_RX", "idle:1",
	 * "irq:virtio0-input.0", "silent"), verdict the phrase for people.
	 * A task or softirq that spent at least half its time in one work
	 * function or timer callback is keyed by that function, "work:FN" or
	 * "timer:FN", whichever kworker or softirq ran it, so that one work
	 * function run by several kworkers is one cause. */
	char cause[ATTRIB_CAUSE_LEN];
	char verdict[ATTRIB_VERDICT_LEN];
	/* With stacks (--trace-stacks): the function the probe's timer
	 * interrupt came in (attrib.c says how it is chosen), "user" for user
	 * space; "" unknown (no stack: not recorded, the idle loop, another
	 * probe than the timer's). */
	char irq_at[TEV_NAME_LEN];
	/* the input's steal, for the record: UINT64_MAX when unknown */
	uint64_t steal_ns, steal_span_ns;
	/* What held the CPU when, from the deadline to the wake-up, in time
	 * order, adjacent stretches of one contributor merged; seg_more: the
	 * window had more stretches than kept (the rest is not shown). */
	struct attrib_seg seg[ATTRIB_MAX_SEG];
	unsigned nseg;
	bool seg_more;
	/* What the CPU was running at the deadline, and what else was
	 * runnable then (rtla's --dump-tasks, for every spike): the task on the
	 * CPU first, then by priority.  Only what the window's events show: a
	 * task switched in, switched out runnable (preempted) or woken onto
	 * this CPU since the window opened (2 ms before), and not switched out
	 * asleep since; a task runnable longer than that without an event, or
	 * woken from another CPU (its waking is traced there), is not known.
	 * runq_more: more than ATTRIB_MAX_RUNQ (the lowest priorities left
	 * out). */
	struct attrib_task runq[ATTRIB_MAX_RUNQ];
	unsigned nrunq;
	bool runq_more;
	/* The other measured CPUs at the deadline, in CPU order, as far as
	 * the caller filled them (attrib_runq_at for each; attrib_analyse
	 * leaves none): the first ATTRIB_MAX_CPUS, cpus_more when there were
	 * more. */
	struct attrib_cpu_runq cpus[ATTRIB_MAX_CPUS];
	unsigned ncpus;
	bool cpus_more;
};

/* 0 (out->status says whether it could be attributed) or -EINVAL for an
 * input that makes no sense (wake before deadline). */
int attrib_analyse(const struct attrib_input *in, struct attrib_result *out);
/* What another CPU ran and had runnable at in->at_ns, by the same
 * reconstruction as attrib_result.runq, into *out (out->known says whether
 * the window covered the moment).  Housekeeping only, like the rest. */
void attrib_runq_at(const struct attrib_runq_input *in, struct attrib_cpu_runq *out);
/* irq_at names a kernel function (not "", "user" or "?"): the verdict
 * says it, the causes table counts it. */
bool attrib_irq_at_known(const char *irq_at);
const char *attrib_kind_name(enum attrib_kind kind);

#endif
