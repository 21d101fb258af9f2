// SPDX-License-Identifier: GPL-2.0-or-later
/* attrib: why one wake-up was late, from the events of its CPU (attrib.h).
 *
 * Two passes over the window:
 *   anchors: the probe's hrtimer expiry (timer probe; its sched_waking where
 *     the trace has no hrtimer events), its sched_waking and its last
 *     switch-in before the clock read give the split; a wake-up from idle
 *     that the recorder left out (idle_unrecorded) has none, and is
 *     attributed without the split;
 *   sweep: every nanosecond of [deadline, wake] goes to what the CPU was
 *     doing then: the innermost open IRQ / vector / softirq frame, else the
 *     idle state being left, else a silent gap, else the task on the CPU
 *     (the probe's own time goes nowhere).  Time inside a nested IRQ thus
 *     counts for the IRQ and never for the task or frame it interrupted.
 * The contributor with the most time is the verdict, as rtla's timerlat
 * auto-analysis names its dominant interference, but for every spike. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "attrib.h"
#include "util.h"

#define ATTRIB_ACC 64  /* distinct contributors kept while sweeping */
#define ATTRIB_DEPTH 8 /* IRQ nesting: task < softirq < vector/irq < irq */
#define ATTRIB_FNS 4   /* functions (work, timer callbacks) counted per contributor */
#define ATTRIB_IRQW 8  /* wakings of threaded IRQ handlers kept while sweeping */
#define ATTRIB_RQ 32   /* tasks of the run queue followed while sweeping */
#define NONE UINT64_MAX

static bool mine(const struct attrib_input *in, const struct trace_ev *e);
static bool is_exit(unsigned type);

/* A work item or timer callback running (its start seen, not its end):
 * fn NULL when none. */
struct running {
	const char *fn;
	enum attrib_fn_kind kind;
	uint32_t arg; /* its work_struct's / timer_list's address, low 32 bits */
};

/* A run queue as a CPU's events show it (attrib_result.runq,
 * attrib_cpu_runq): the first ATTRIB_RQ tasks seen, more when there were
 * others.  rq_event keeps it, for the spike's CPU and any other alike. */
struct runq {
	struct rq_task {
		int32_t pid, prio;
		const char *comm;
		bool running;
	} t[ATTRIB_RQ];
	unsigned n;
	bool more;
};

struct frame {
	enum attrib_kind kind;
	uint32_t id;
	const char *name;
	struct running fn; /* a timer callback inside the TIMER softirq */
};

/* A contributor's time per function, while sweeping. */
struct fn_acc {
	const char *fn;
	enum attrib_fn_kind kind;
	uint64_t ns;
};

struct sweep {
	const struct attrib_input *in;
	uint64_t lo, hi;    /* [deadline, wake] */
	uint64_t irq_start; /* the probe's timer IRQ began (NONE: unknown) */
	struct attrib_contrib acc[ATTRIB_ACC];
	unsigned nacc;
	/* each acc's time per function: the first ATTRIB_FNS distinct ones,
	 * the time of any later one in fn_other */
	struct fn_acc fns[ATTRIB_ACC][ATTRIB_FNS];
	uint64_t fn_other[ATTRIB_ACC];
	/* the timeline, contrib = index into acc until the end */
	struct attrib_seg seg[ATTRIB_MAX_SEG];
	unsigned nseg;
	bool seg_more;
	struct frame stack[ATTRIB_DEPTH];
	unsigned depth;
	/* the task on the CPU, from sched_switch */
	bool known;
	int32_t pid, prio;
	const char *comm;
	/* the last wakings of threaded IRQ handlers (comm "irq/..."), with
	 * what this CPU ran then: ATTRIB_IRQW of them, the oldest replaced */
	struct irq_waking {
		int32_t pid;
		uint64_t ts;
		bool own; /* by its own hard IRQ */
		struct attrib_waker by;
	} irqw[ATTRIB_IRQW];
	unsigned nirqw;
	const struct trace_ev *prev; /* the event before the one being stepped */
	/* the run queue as the events show it (attrib_result.runq) */
	struct runq rq;
	bool rq_taken;
	/* a work item or callback run in task context (a kworker's), by task
	 * fn_pid: it goes on when that task is switched back in */
	struct running task_fn;
	int32_t fn_pid;
	/* power:cpu_idle: the state the CPU is in or last left, when an
	 * entry named it (idle_named) */
	bool idle_named;
	uint32_t idle_state;
	/* a switch the trace does not hold (see fix_plan): after event
	 * fix_after the task is fix->pid2 */
	size_t fix_after;
	const struct trace_ev *fix;
	/* the probe's own switch-in from idle, which some kernels never
	 * trace (see idle_switch_in): at virt_ns (NONE: none) */
	uint64_t virt_ns;
	int32_t virt_prio;
	/* a round-trip probe whose wake-up is not on this CPU's trace: a task
	 * of lower priority than the probe (probe_prio) could only run
	 * because the probe was not runnable yet, so its time is transit */
	bool no_wake;
	int32_t probe_prio;
};

/* The switch-in of a probe woken on an idle CPU, where the trace holds none.
 * Some kernels (this project's 6.18 VM) never emit sched_switch with the
 * idle task as prev: the idle loop calls the scheduler where tracepoints
 * do not fire.  The idle task then leaves the CPU to the probe as soon as
 * the interrupt that woke it returns: the exit of the outermost frame open
 * at the waking, or the waking itself outside any.  NONE when the CPU was
 * not idle then or that exit is not in the window. */
static uint64_t idle_switch_in(const struct attrib_input *in, const struct trace_ev *woke)
{
	int32_t cur = -1;
	unsigned depth = 0;
	bool after = false;

	for (size_t i = 0; i < in->nev; i++) {
		const struct trace_ev *e = &in->ev[i];

		if (!mine(in, e))
			continue;
		if (!after && e > woke) {
			if (cur != 0)
				return NONE;
			if (!depth)
				return woke->ts;
			after = true;
		}
		if (e->type == TEV_SWITCH) {
			if (after)
				return NONE; /* something else was switched in first */
			cur = e->pid;
			depth = 0;
		} else if (e->type == TEV_IRQ_ENTRY || e->type == TEV_SOFTIRQ_ENTRY ||
			   e->type == TEV_VECTOR_ENTRY) {
			depth++;
		} else if (is_exit(e->type) && depth && --depth == 0 && after) {
			return e->ts;
		}
	}
	return !after && cur == 0 && !depth ? woke->ts : NONE;
}

static const char *const softirq_names[] = { "HI",	 "TIMER",   "NET_TX", "NET_RX",	 "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED",  "HRTIMER", "RCU" };

static const char *softirq_name(uint32_t vec)
{
	return vec < sizeof(softirq_names) / sizeof(softirq_names[0]) ? softirq_names[vec] : "?";
}

const char *attrib_kind_name(enum attrib_kind kind)
{
	static const char *const names[AK_NKINDS] = {
		[AK_IRQ] = "irq",	[AK_SOFTIRQ] = "softirq", [AK_VECTOR] = "vector",
		[AK_NMI] = "nmi",	[AK_TASK] = "task",	  [AK_IDLE_EXIT] = "idle",
		[AK_SILENT] = "silent", [AK_TRANSIT] = "transit",
	};

	return (unsigned)kind < AK_NKINDS ? names[kind] : "?";
}

/* The kernel prio sched_switch prints -> policy and priority: prio =
 * 99 - rt_priority for FIFO/RR (FIFO 99 is 0, FIFO 50 is 49), 120 + nice for
 * OTHER, -1 for deadline tasks. */
static void task_policy(int32_t prio, int *policy, int *rt_priority)
{
	if (prio < 0) {
		*policy = -1;
		*rt_priority = 0;
	} else if (prio < 100) {
		*policy = 1;
		*rt_priority = 99 - prio;
	} else {
		*policy = 0;
		*rt_priority = prio - 120;
	}
}

/* [a, b) of the timeline went to acc[i] (i < 0: one not kept). */
static void seg_note(struct sweep *s, int i, uint64_t a, uint64_t b)
{
	uint64_t d = s->in->deadline_ns;
	struct attrib_seg *last = s->nseg ? &s->seg[s->nseg - 1] : NULL;

	/* 32 bits from the deadline: what lies beyond 4.29 s is not shown */
	if (a - d >= UINT32_MAX) {
		s->seg_more = true;
		return;
	}
	uint32_t off = (uint32_t)(a - d);
	uint32_t ns = b - a > UINT32_MAX - off ? UINT32_MAX - off : (uint32_t)(b - a);
	if (last && last->contrib == i && (uint64_t)last->off + last->ns == off) {
		last->ns += ns;
		return;
	}
	if (s->nseg == ATTRIB_MAX_SEG) {
		s->seg_more = true;
		return;
	}
	s->seg[s->nseg++] = (struct attrib_seg){ off, ns, (int8_t)i };
}

/* ns of acc[i]'s time went to the function fn runs (none: nothing). */
static void fn_note(struct sweep *s, unsigned i, const struct running *fn, uint64_t ns)
{
	struct fn_acc *f = s->fns[i];

	if (!fn || !fn->fn)
		return;
	for (unsigned k = 0; k < ATTRIB_FNS; k++) {
		if (!f[k].fn) {
			f[k] = (struct fn_acc){ fn->fn, fn->kind, ns };
			return;
		}
		if (f[k].kind == fn->kind && !strcmp(f[k].fn, fn->fn)) {
			f[k].ns += ns;
			return;
		}
	}
	s->fn_other[i] += ns;
}

/* b - a ns of [a, b) to a contributor: found or new, and on the timeline;
 * fn: the work item or timer callback it was running then, if known. */
static void add(struct sweep *s, enum attrib_kind kind, uint32_t id, int32_t pid, const char *name,
		const struct running *fn, uint64_t a, uint64_t b)
{
	struct attrib_contrib *c;
	unsigned i;

	for (i = 0; i < s->nacc; i++) {
		c = &s->acc[i];
		if (c->kind != kind)
			continue;
		if (kind == AK_SILENT || (kind == AK_TASK && c->pid == pid) ||
		    (kind != AK_TASK && c->id == id && !strcmp(c->name, name))) {
			c->ns += b - a;
			fn_note(s, i, fn, b - a);
			seg_note(s, (int)i, a, b);
			return;
		}
	}
	/* More distinct contributors than kept: the rest are the smallest
	 * slices of a crowded window; dropping them keeps the analysis bounded. */
	if (s->nacc == ATTRIB_ACC) {
		seg_note(s, -1, a, b);
		return;
	}
	seg_note(s, (int)s->nacc, a, b);
	c = &s->acc[s->nacc++];
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->id = id;
	c->pid = pid;
	c->ns = b - a;
	fn_note(s, s->nacc - 1, fn, b - a);
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "");
	if (kind == AK_TASK)
		task_policy(s->prio, &c->policy, &c->rt_priority);
}

/* [a, b) of the CPU's time, clipped to [deadline, wake], to whatever held
 * the CPU then. */
static void credit(struct sweep *s, uint64_t a, uint64_t b)
{
	const struct frame *f;

	if (a < s->lo)
		a = s->lo;
	if (b > s->hi)
		b = s->hi;
	if (b <= a)
		return;
	if (s->depth) {
		f = &s->stack[s->depth - 1];
		add(s, f->kind, f->id, -1, f->name, &f->fn, a, b);
		return;
	}
	/* what the task on the CPU was running, if it is the one that began it */
	const struct running *fn =
	    s->known && s->task_fn.fn && s->pid == s->fn_pid ? &s->task_fn : NULL;
	/* The idle task outside IRQs is never a task that delays the probe:
	 * in an idle state, or on its way out of one (after cpu_idle's exit,
	 * before it switches to the probe), the time is the exit from idle;
	 * named by the state it is in or just left when an entry named it,
	 * else unnamed (where the window has no power:cpu_idle event at all:
	 * this VM emits none most of the time). */
	if (s->known && s->pid == 0) {
		add(s, AK_IDLE_EXIT, s->idle_named ? s->idle_state : TEV_IDLE_EXIT, -1, "idle",
		    NULL, a, b);
		return;
	}
	/* No event for a long stretch where something should have shown: the
	 * probe itself on its way to user space, nobody known, or a task
	 * before the probe's timer IRQ came (a task cannot delay a hard IRQ but
	 * with IRQs off): IRQs off, an SMI or the hypervisor. */
	if (b - a > ATTRIB_SILENT_NS && (!s->known || s->pid == s->in->probe_tid ||
					 (s->irq_start != NONE && b <= s->irq_start))) {
		add(s, AK_SILENT, 0, s->known && s->pid != s->in->probe_tid ? s->pid : -1,
		    s->known && s->pid != s->in->probe_tid ? s->comm : "", fn, a, b);
		return;
	}
	if (s->known && s->pid != s->in->probe_tid) {
		if (s->no_wake && s->probe_prio >= 0 && s->prio > s->probe_prio)
			add(s, AK_TRANSIT, 0, -1, "transit", NULL, a, b);
		else
			add(s, AK_TASK, 0, s->pid, s->comm, fn, a, b);
	}
}

static void push(struct sweep *s, enum attrib_kind kind, uint32_t id, const char *name)
{
	/* Deeper than any real nesting: entries whose exits were not traced;
	 * keep the newest. */
	if (s->depth == ATTRIB_DEPTH) {
		memmove(s->stack, s->stack + 1, sizeof(s->stack[0]) * (ATTRIB_DEPTH - 1));
		s->depth--;
	}
	s->stack[s->depth++] = (struct frame){ kind, id, name, { NULL, ATTRIB_FN_NONE, 0 } };
}

/* An exit: close its frame (and any above it whose exits were missed).
 * An exit with no entry in the window: the frame was open since before the
 * window's first event, so at least the time since the previous event was
 * its. */
static void pop(struct sweep *s, enum attrib_kind kind, uint32_t id, const char *name,
		uint64_t since, uint64_t ts)
{
	unsigned i = s->depth;

	while (i > 0 && !(s->stack[i - 1].kind == kind && s->stack[i - 1].id == id))
		i--;
	if (i == 0) {
		struct frame save[ATTRIB_DEPTH];
		unsigned depth = s->depth;

		memcpy(save, s->stack, sizeof(save));
		s->stack[0] = (struct frame){ kind, id, name, { NULL, ATTRIB_FN_NONE, 0 } };
		s->depth = 1;
		credit(s, since, ts);
		memcpy(s->stack, save, sizeof(save));
		s->depth = depth;
		return;
	}
	s->depth = i - 1;
}

static bool is_exit(unsigned type)
{
	return type == TEV_IRQ_EXIT || type == TEV_SOFTIRQ_EXIT || type == TEV_VECTOR_EXIT;
}

static bool frame_open(const struct sweep *s, enum attrib_kind kind, uint32_t id)
{
	for (unsigned i = 0; i < s->depth; i++)
		if (s->stack[i].kind == kind && s->stack[i].id == id)
			return true;
	return false;
}

static enum attrib_kind exit_kind(unsigned type)
{
	return type == TEV_IRQ_EXIT ? AK_IRQ : type == TEV_SOFTIRQ_EXIT ? AK_SOFTIRQ : AK_VECTOR;
}

/* pid is on the run queue (running: on the CPU), or leaves it (!add). */
static void rq_note(struct runq *q, int32_t pid, int32_t prio, const char *comm, bool add,
		    bool running)
{
	unsigned i;

	if (pid <= 0) /* the idle task is no task of the queue */
		return;
	for (i = 0; i < q->n && q->t[i].pid != pid; i++)
		;
	if (!add) {
		if (i < q->n)
			q->t[i] = q->t[--q->n];
		return;
	}
	if (running) /* one task on the CPU: the one before is not any more */
		for (unsigned k = 0; k < q->n; k++)
			q->t[k].running = false;
	if (i == q->n) {
		if (q->n == ATTRIB_RQ) {
			q->more = true;
			return;
		}
		q->n++;
	}
	q->t[i] = (struct rq_task){ pid, prio, comm ? comm : "", running };
}

/* The run queue as it starts: before the first switch of the window (first
 * NULL: none) its prev held the CPU. */
static void rq_start(struct runq *q, const struct trace_ev *first)
{
	memset(q, 0, sizeof(*q));
	if (first)
		rq_note(q, first->pid2, first->prio2, first->name2, true, true);
}

/* One event of `cpu` on its run queue: a switch puts the next on the CPU
 * and keeps the prev queued only when it was preempted (prev_state
 * TASK_RUNNING, maybe with TASK_REPORT_MAX: "R+"), else it sleeps; a waking
 * or wakeup whose target (arg) is this CPU queues the woken.  Any other
 * event leaves it as it is. */
static void rq_event(struct runq *q, const struct trace_ev *e, int cpu)
{
	switch (e->type) {
	case TEV_SWITCH:
		rq_note(q, e->pid2, e->prio2, e->name2, (e->arg & 0xff) == 0, false);
		rq_note(q, e->pid, e->prio, e->name, true, true);
		break;
	case TEV_WAKING:
	case TEV_WAKEUP:
		if (e->arg == (uint32_t)cpu)
			rq_note(q, e->pid, e->prio, e->name, true, false);
		break;
	default:
		break;
	}
}

/* The run queue q into out (at most ATTRIB_MAX_RUNQ, *nout of them; *more
 * when some were left out): the task on the CPU first, then by the
 * kernel's prio (lower runs first), then pid. */
static void rq_take(const struct runq *q, struct attrib_task *out, unsigned *nout, bool *more)
{
	unsigned ord[ATTRIB_RQ], n = 0;

	for (unsigned i = 0; i < q->n; i++) {
		const struct rq_task *t = &q->t[i];
		unsigned k = n++;

		while (k > 0) {
			const struct rq_task *u = &q->t[ord[k - 1]];
			if (u->running > t->running ||
			    (u->running == t->running &&
			     (u->prio < t->prio || (u->prio == t->prio && u->pid < t->pid))))
				break;
			ord[k] = ord[k - 1];
			k--;
		}
		ord[k] = i;
	}
	*nout = 0;
	*more = q->more || n > ATTRIB_MAX_RUNQ;
	for (unsigned i = 0; i < n && i < ATTRIB_MAX_RUNQ; i++) {
		const struct rq_task *t = &q->t[ord[i]];
		struct attrib_task *o = &out[(*nout)++];

		memset(o, 0, sizeof(*o));
		o->pid = t->pid;
		o->running = t->running;
		task_policy(t->prio, &o->policy, &o->rt_priority);
		snprintf(o->name, sizeof(o->name), "%s", t->comm);
	}
}

/* The spike's own CPU at its deadline (attrib_result.runq). */
static void sweep_take_rq(struct sweep *s, struct attrib_result *out)
{
	s->rq_taken = true;
	rq_take(&s->rq, out->runq, &out->nrunq, &out->runq_more);
}

void attrib_runq_at(const struct attrib_runq_input *in, struct attrib_cpu_runq *out)
{
	const struct trace_ev *first = NULL;
	struct runq q;
	size_t i, end = 0;

	memset(out, 0, sizeof(*out));
	out->cpu = in->cpu;
	/* Covered: nothing evicted, the recorder read past the moment and no
	 * event was lost up to it (what ran after a loss is not known). */
	out->known = in->covered && in->complete_ns >= in->at_ns;
	for (i = 0; i < in->nev && in->ev[i].ts <= in->at_ns; i++) {
		const struct trace_ev *e = &in->ev[i];

		if (e->cpu != (unsigned)in->cpu)
			continue;
		if (e->type == TEV_LOST)
			out->known = false;
		if (e->type == TEV_SWITCH && !first)
			first = e;
		end = i + 1;
	}
	if (!out->known)
		return;
	/* As attrib_analyse does up to the deadline: the events at it count. */
	rq_start(&q, first);
	for (i = 0; i < end; i++)
		if (in->ev[i].cpu == (unsigned)in->cpu)
			rq_event(&q, &in->ev[i], in->cpu);
	rq_take(&q, out->runq, &out->nrunq, &out->runq_more);
}

/* A threaded IRQ handler woken: by what this CPU ran then, the hard IRQ
 * that just ended, else the innermost frame or the task.  A waking by its
 * own hard IRQ is kept over later ones by anything else: on PREEMPT_RT the
 * thread also sleeps on the locks it takes (rtmutexes), and the task that
 * releases one wakes it again; the IRQ that made it run is the answer. */
static void note_irq_waking(struct sweep *s, const struct trace_ev *e)
{
	struct irq_waking *w = NULL;
	unsigned i, irq = 0;
	int n = 0;
	bool own = s->prev && s->prev->type == TEV_IRQ_EXIT &&
		   sscanf(e->name, "irq/%u-%n", &irq, &n) == 1 && n && s->prev->arg == irq;

	for (i = 0; i < s->nirqw && !w; i++)
		if (s->irqw[i].pid == e->pid)
			w = &s->irqw[i];
	if (w && !own && w->own)
		return;
	if (!w && s->nirqw < ATTRIB_IRQW)
		w = &s->irqw[s->nirqw++];
	if (!w) { /* full: the oldest waking goes */
		w = &s->irqw[0];
		for (i = 1; i < ATTRIB_IRQW; i++)
			if (s->irqw[i].ts < w->ts)
				w = &s->irqw[i];
	}
	memset(w, 0, sizeof(*w));
	w->pid = e->pid;
	w->ts = e->ts;
	w->own = own;
	/* The kernel wakes the thread after the hard handler's
	 * irq_handler_exit (__handle_irq_event_percpu: IRQ_WAKE_THREAD), still
	 * in the interrupt: an exit just before the waking is the waker. */
	if (s->prev && s->prev->type == TEV_IRQ_EXIT) {
		w->by.kind = AK_IRQ;
		w->by.id = s->prev->arg;
		w->by.pid = -1;
		snprintf(w->by.name, sizeof(w->by.name), "%s", s->prev->name);
	} else if (s->depth) {
		const struct frame *f = &s->stack[s->depth - 1];

		w->by.kind = f->kind;
		w->by.id = f->id;
		w->by.pid = -1;
		snprintf(w->by.name, sizeof(w->by.name), "%s", f->name ? f->name : "");
	} else if (s->known) {
		w->by.kind = AK_TASK;
		w->by.pid = s->pid;
		snprintf(w->by.name, sizeof(w->by.name), "%s", s->comm ? s->comm : "");
	} else {
		w->by.kind = AK_NKINDS; /* who ran is not known */
	}
}

/* A threaded IRQ handler's IRQ and name, and what woke it (attrib.h). */
static void irq_thread(const struct sweep *s, struct attrib_contrib *c)
{
	const struct attrib_input *in = s->in;
	unsigned irq;
	int n = 0;

	if (c->kind != AK_TASK || sscanf(c->name, "irq/%u-%n", &irq, &n) != 1 || !n)
		return;
	c->threaded = true;
	c->irq = irq;
	for (size_t i = 0; i < in->nev; i++)
		if (mine(in, &in->ev[i]) && in->ev[i].type == TEV_IRQ_ENTRY && in->ev[i].arg == irq)
			snprintf(c->irq_name, sizeof(c->irq_name), "%s", in->ev[i].name);
	for (unsigned i = 0; i < s->nirqw; i++)
		if (s->irqw[i].pid == c->pid && s->irqw[i].by.kind != AK_NKINDS) {
			c->woke_known = true;
			c->woke = s->irqw[i].by;
			c->woke_off_ns = (int64_t)(s->irqw[i].ts - in->deadline_ns);
		}
}

static void step(struct sweep *s, const struct trace_ev *e, uint64_t *t)
{
	if (e->type == TEV_NMI) {
		/* nmi_handler fires at the handler's end with its duration. */
		uint64_t start = e->arg < e->ts - *t ? e->ts - e->arg : *t;
		struct frame f = { AK_NMI, 0, e->name, { NULL, ATTRIB_FN_NONE, 0 } };

		credit(s, *t, start);
		push(s, f.kind, f.id, f.name);
		credit(s, start, e->ts);
		s->depth--;
		*t = e->ts;
		return;
	}
	if (is_exit(e->type) && !frame_open(s, exit_kind(e->type), e->arg)) {
		pop(s, exit_kind(e->type), e->arg,
		    e->type == TEV_SOFTIRQ_EXIT ? softirq_name(e->arg) : e->name, *t, e->ts);
		*t = e->ts;
		return;
	}
	credit(s, *t, e->ts);
	*t = e->ts;
	switch (e->type) {
	case TEV_SWITCH:
		rq_event(&s->rq, e, s->in->cpu);
		/* A switch runs in task context: any frame still open lost its
		 * exit. */
		s->depth = 0;
		s->known = true;
		s->pid = e->pid;
		s->prio = e->prio;
		s->comm = e->name;
		break;
	case TEV_IRQ_ENTRY:
		push(s, AK_IRQ, e->arg, e->name);
		break;
	case TEV_SOFTIRQ_ENTRY:
		push(s, AK_SOFTIRQ, e->arg, softirq_name(e->arg));
		break;
	case TEV_VECTOR_ENTRY:
		push(s, AK_VECTOR, e->arg, e->name);
		break;
	case TEV_IRQ_EXIT:
	case TEV_SOFTIRQ_EXIT:
	case TEV_VECTOR_EXIT:
		pop(s, exit_kind(e->type), e->arg, e->name, e->ts, e->ts);
		break;
	case TEV_IDLE:
		if (e->arg != TEV_IDLE_EXIT) {
			s->idle_state = e->arg;
			s->idle_named = true;
		}
		break;
	case TEV_WAKING:
	case TEV_WAKEUP:
		if (e->type == TEV_WAKING && !strncmp(e->name, "irq/", 4))
			note_irq_waking(s, e);
		rq_event(&s->rq, e, s->in->cpu); /* woken onto this CPU: runnable here */
		break;
	case TEV_WORK_START:
	case TEV_TIMER_ENTRY: {
		/* Inside the innermost frame (a callback of the TIMER softirq),
		 * else the task's (a kworker's work, a callback in a thread
		 * without softirq events). */
		struct running r = { e->name,
				     e->type == TEV_WORK_START ? ATTRIB_FN_WORK : ATTRIB_FN_TIMER,
				     e->arg };
		if (s->depth) {
			s->stack[s->depth - 1].fn = r;
		} else if (s->known) {
			s->task_fn = r;
			s->fn_pid = s->pid;
		}
		break;
	}
	case TEV_WORK_END:
	case TEV_TIMER_EXIT: {
		enum attrib_fn_kind k = e->type == TEV_WORK_END ? ATTRIB_FN_WORK : ATTRIB_FN_TIMER;
		struct running *r = s->depth ? &s->stack[s->depth - 1].fn : NULL;

		if (r && r->fn && r->kind == k && r->arg == e->arg)
			r->fn = NULL;
		else if (s->task_fn.fn && s->task_fn.kind == k && s->task_fn.arg == e->arg)
			s->task_fn.fn = NULL;
		break;
	}
	default:
		break;
	}
}

/* The function acc[i] spent the most time in (the first of equals), the
 * time in the others beside it. */
static void fn_result(const struct sweep *s, unsigned i, struct attrib_contrib *c)
{
	const struct fn_acc *f = s->fns[i], *top = NULL;
	uint64_t all = s->fn_other[i];

	for (unsigned k = 0; k < ATTRIB_FNS && f[k].fn; k++) {
		all += f[k].ns;
		if (!top || f[k].ns > top->ns)
			top = &f[k];
	}
	if (!top)
		return;
	c->fn_kind = top->kind;
	snprintf(c->fn, sizeof(c->fn), "%s", top->fn);
	c->fn_ns = top->ns;
	c->fn_more = all - top->ns;
}

/* The untraced switch-in from idle (idle_switch_in), at its time. */
static void virt_switch(struct sweep *s, uint64_t *t)
{
	if (*t < s->virt_ns) {
		credit(s, *t, s->virt_ns);
		*t = s->virt_ns;
	}
	s->depth = 0;
	s->known = true;
	s->pid = s->in->probe_tid;
	s->prio = s->virt_prio;
	s->comm = "";
	s->virt_ns = NONE;
}

static bool mine(const struct attrib_input *in, const struct trace_ev *e)
{
	return e->cpu == (unsigned)in->cpu && e->ts <= in->wake_ns;
}

/* After the switch at index `at` to pid `cur`: the next switch's prev
 * should be `cur`.  When it is not, a switch is missing from the trace
 * (this is routine where the kernel traces nothing of the idle task's own
 * context, its switches out included: 6.18 on Firecracker does so), and
 * the prev ran from a moment the trace does not show.  The kernel switches
 * as soon as the IRQ that woke the task returns, so the missing switch is
 * put at the end of the outermost IRQ frame around the prev's last
 * wake-up; a task not woken in between (it was runnable) at the switch
 * itself. */
static void fix_plan(struct sweep *s, size_t at, int32_t cur)
{
	const struct attrib_input *in = s->in;
	size_t i, next, end = at;
	unsigned depth = 0;
	bool armed = false;

	s->fix = NULL;
	for (next = at + 1; next < in->nev; next++)
		if (mine(in, &in->ev[next]) && in->ev[next].type == TEV_SWITCH)
			break;
	if (next == in->nev || in->ev[next].pid2 == cur)
		return;
	/* The probe's own switch-in from idle, which the recorder leaves out:
	 * the idle task holds the CPU until the probe's first recorded switch
	 * (its wake-up from idle is the exit from idle, as in from_idle). */
	if (in->idle_unrecorded && cur == 0 && in->ev[next].pid2 == in->probe_tid)
		return;
	for (i = at + 1; i < next; i++) {
		const struct trace_ev *e = &in->ev[i];

		if (!mine(in, e))
			continue;
		if (e->type == TEV_IRQ_ENTRY || e->type == TEV_SOFTIRQ_ENTRY ||
		    e->type == TEV_VECTOR_ENTRY) {
			depth++;
		} else if (is_exit(e->type) && depth) {
			if (!--depth && armed) {
				end = i;
				armed = false;
			}
		} else if ((e->type == TEV_WAKING || e->type == TEV_WAKEUP) &&
			   e->pid == in->ev[next].pid2) {
			end = i;
			armed = depth > 0;
		}
	}
	s->fix = &in->ev[next];
	s->fix_after = end;
}

/* Where the IRQ around event `at` began: the last vector entry before it
 * not closed since, else the event itself. */
static uint64_t vector_open_at(const struct attrib_input *in, const struct trace_ev *at)
{
	uint64_t vec_open = NONE;

	for (size_t i = 0; i < in->nev && &in->ev[i] < at; i++) {
		const struct trace_ev *e = &in->ev[i];

		if (!mine(in, e))
			continue;
		if (e->type == TEV_VECTOR_ENTRY)
			vec_open = e->ts;
		else if (e->type == TEV_VECTOR_EXIT)
			vec_open = NONE;
	}
	return vec_open != NONE ? vec_open : at->ts;
}

/* The probe's hrtimer expiry: the last hrtimer_expire_entry in [deadline,
 * wake] that names the probe, or whose next wake-up (before the timer's
 * exit) is the probe's.  The last: the probe arms one timer at a time, so
 * the one that ended this sleep is the last before the clock read; after a
 * long stall the probe wakes for each missed deadline in turn, and the
 * window of a later one holds the expiries of the earlier ones too.
 * *irq_start: where the IRQ around it began. */
static const struct trace_ev *find_expiry(const struct attrib_input *in, uint64_t *irq_start)
{
	const struct trace_ev *found = NULL;

	for (size_t i = 0; i < in->nev; i++) {
		const struct trace_ev *e = &in->ev[i];

		if (!mine(in, e))
			continue;
		if (e->type != TEV_HRTIMER_ENTRY || e->ts < in->deadline_ns)
			continue;
		bool hit = e->pid == in->probe_tid;
		for (size_t j = i + 1; !hit && e->pid < 0 && j < in->nev; j++) {
			const struct trace_ev *n = &in->ev[j];

			if (!mine(in, n))
				continue;
			if (n->type == TEV_HRTIMER_EXIT || n->type == TEV_HRTIMER_ENTRY)
				break;
			if (n->type == TEV_WAKING || n->type == TEV_WAKEUP) {
				hit = n->pid == in->probe_tid;
				break;
			}
		}
		if (hit)
			found = e;
	}
	if (found)
		*irq_start = vector_open_at(in, found);
	return found;
}

/* The task on the CPU after the window's last switch: the idle task (0),
 * another, or -1 when the window holds no switch. */
static int32_t last_task(const struct attrib_input *in)
{
	int32_t cur = -1;

	for (size_t i = 0; i < in->nev; i++)
		if (mine(in, &in->ev[i]) && in->ev[i].type == TEV_SWITCH)
			cur = in->ev[i].pid;
	return cur;
}

static void fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 10000)
		snprintf(buf, len, "%.1f µs", (double)ns / 1e3);
	else if (ns < 1000000)
		snprintf(buf, len, "%.0f µs", (double)ns / 1e3);
	else
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
}

/* The stack recorded at the interrupt that carried the probe's expiry: the
 * first after that interrupt's entry, up to the expiry (the trigger fires at
 * local_timer_entry, so its stack follows that event). */
static const char *stack_at(const struct attrib_input *in, uint64_t irq_start, uint64_t expiry)
{
	for (size_t i = 0; i < in->nev; i++) {
		const struct trace_ev *e = &in->ev[i];

		if (mine(in, e) && e->type == TEV_STACK && e->ts >= irq_start && e->ts <= expiry)
			return e->name;
	}
	return NULL;
}

/* "12.00 ms", or "10.00 ms in the 41 ms around it" when steal was read
 * over a span wider than the window: /proc/stat is that coarse. */
static void steal_str(const struct attrib_input *in, char *buf, size_t len)
{
	char span[32];

	fmt_ns(buf, len, in->steal_ns);
	if (in->steal_span_ns) {
		size_t l = strlen(buf);
		fmt_ns(span, sizeof(span), in->steal_span_ns);
		snprintf(buf + l, len - l, " in the %s around it", span);
	}
}

/* What c ran, for the verdict: "rtsoak_irqoff_work 200 µs", and " of its
 * 210 µs" when it ran more than that function (d: its whole time). */
static void fn_str(const struct attrib_contrib *c, const char *d, char *buf, size_t len)
{
	char f[32];

	fmt_ns(f, sizeof(f), c->fn_ns);
	if (c->fn_ns < c->ns)
		snprintf(buf, len, "%s %s of its %s", c->fn, f, d);
	else
		snprintf(buf, len, "%s %s", c->fn, f);
}

static const char *fn_kind_name(enum attrib_fn_kind k)
{
	return k == ATTRIB_FN_WORK ? "work" : k == ATTRIB_FN_TIMER ? "timer" : "";
}

/* A threaded IRQ handler, after the verdict: "; the threaded handler of
 * IRQ 36 (virtio1-req.0), woken by its hard IRQ 12 µs before the
 * deadline". */
static void irq_thread_str(const struct attrib_contrib *c, char *v, size_t len)
{
	size_t l = strlen(v);
	char when[64], d[32];

	if (!c->threaded)
		return;
	snprintf(v + l, len - l, "; the threaded handler of IRQ %u", c->irq);
	if (c->irq_name[0]) {
		l = strlen(v);
		snprintf(v + l, len - l, " (%s)", c->irq_name);
	}
	if (!c->woke_known)
		return;
	fmt_ns(d, sizeof(d),
	       c->woke_off_ns < 0 ? (uint64_t)-c->woke_off_ns : (uint64_t)c->woke_off_ns);
	snprintf(when, sizeof(when), "%s %s the deadline", d,
		 c->woke_off_ns < 0 ? "before" : "after");
	l = strlen(v);
	if (c->woke.kind == AK_IRQ && c->woke.id == c->irq)
		snprintf(v + l, len - l, ", woken by its hard IRQ %s", when);
	else if (c->woke.kind == AK_TASK)
		snprintf(v + l, len - l, ", woken by %s[%d] %s", c->woke.name, c->woke.pid, when);
	else
		snprintf(v + l, len - l, ", woken in %s %s %s", attrib_kind_name(c->woke.kind),
			 c->woke.name, when);
}

static void describe(const struct attrib_input *in, int32_t probe_prio, struct attrib_result *out)
{
	const struct attrib_contrib *c = &out->c[0];
	char d[32], st[80], fd[96];
	const char *pol = c->policy == 1 ? "FIFO" : c->policy == 0 ? "OTHER" : "DL";

	if (!out->n) {
		snprintf(out->cause, sizeof(out->cause), "none");
		snprintf(out->verdict, sizeof(out->verdict), "nothing else ran on the CPU");
		return;
	}
	fmt_ns(d, sizeof(d), c->ns);
	/* a kworker's work, a timer callback: "ran vmstat_update 180 µs" */
	if (c->fn_kind != ATTRIB_FN_NONE)
		fn_str(c, d, fd, sizeof(fd));
	else
		snprintf(fd, sizeof(fd), "%s", d);
	switch (c->kind) {
	case AK_TASK:
		if (c->policy == 1)
			snprintf(out->cause, sizeof(out->cause), "task:%s (FIFO %d)", c->name,
				 c->rt_priority);
		else
			snprintf(out->cause, sizeof(out->cause), "task:%s (%s)", c->name, pol);
		/* Only a higher priority preempts: anything else ran because
		 * the probe could not run yet (preemption off, or not woken). */
		if (c->policy == 1 && probe_prio >= 0 && 99 - c->rt_priority < probe_prio)
			snprintf(out->verdict, sizeof(out->verdict),
				 "preempted by %s[%d] (FIFO %d) %s %s", c->name, c->pid,
				 c->rt_priority, c->fn_kind ? "running" : "for", fd);
		else if (c->policy == 1)
			snprintf(out->verdict, sizeof(out->verdict),
				 "%s[%d] (FIFO %d) ran %s before the probe", c->name, c->pid,
				 c->rt_priority, fd);
		else if (c->policy == 0)
			snprintf(out->verdict, sizeof(out->verdict),
				 "%s[%d] (OTHER, nice %d) ran %s before the probe", c->name, c->pid,
				 c->rt_priority, fd);
		else
			snprintf(out->verdict, sizeof(out->verdict),
				 "%s[%d] (%s) ran %s before the probe", c->name, c->pid, pol, fd);
		irq_thread_str(c, out->verdict, sizeof(out->verdict));
		break;
	case AK_SOFTIRQ:
		snprintf(out->cause, sizeof(out->cause), "softirq:%s", c->name);
		if (c->fn_kind == ATTRIB_FN_TIMER)
			snprintf(out->verdict, sizeof(out->verdict),
				 "softirq %s %s: timer callback %s", c->name, d, fd);
		else if (c->fn_kind != ATTRIB_FN_NONE)
			snprintf(out->verdict, sizeof(out->verdict), "softirq %s %s: %s %s",
				 c->name, d, fn_kind_name(c->fn_kind), fd);
		else
			snprintf(out->verdict, sizeof(out->verdict), "softirq %s %s", c->name, d);
		break;
	case AK_IRQ:
		snprintf(out->cause, sizeof(out->cause), "irq:%s", c->name);
		snprintf(out->verdict, sizeof(out->verdict), "irq %s (irq %u) %s", c->name, c->id,
			 d);
		break;
	case AK_VECTOR:
		snprintf(out->cause, sizeof(out->cause), "vector:%s", c->name);
		snprintf(out->verdict, sizeof(out->verdict), "vector %s %s", c->name, d);
		break;
	case AK_NMI:
		snprintf(out->cause, sizeof(out->cause), "nmi:%s", c->name);
		snprintf(out->verdict, sizeof(out->verdict), "NMI %s %s", c->name, d);
		break;
	case AK_IDLE_EXIT:
		/* A halted vCPU whose timer fired waits for the host: steal
		 * says how much of the exit was the hypervisor's. */
		steal_str(in, st, sizeof(st));
		if (c->id == TEV_IDLE_EXIT)
			snprintf(out->cause, sizeof(out->cause), "idle:?");
		else
			snprintf(out->cause, sizeof(out->cause), "idle:%u", c->id);
		if (c->id == TEV_IDLE_EXIT)
			snprintf(
			    out->verdict, sizeof(out->verdict), "exit from idle %s (%s%s%s)", d,
			    in->idle_why == ATTRIB_IDLE_LOST ? "idle state unknown: events lost "
							       "before it"
			    : in->idle_why == ATTRIB_IDLE_OLD
				? "idle state unknown: entered before the events held"
				: "idle state not traced",
			    in->steal_ns ? "; steal +" : "", in->steal_ns ? st : "");
		else
			snprintf(out->verdict, sizeof(out->verdict),
				 "exit from idle state %u %s%s%s%s", c->id, d,
				 in->steal_ns ? " (steal +" : "", in->steal_ns ? st : "",
				 in->steal_ns ? ")" : "");
		break;
	case AK_TRANSIT:
		snprintf(out->cause, sizeof(out->cause), "transit");
		snprintf(out->verdict, sizeof(out->verdict),
			 "not woken for %s: the datagram was on its way (the sender's CPU, the "
			 "network stack or the peer), not delayed on this CPU",
			 d);
		break;
	case AK_SILENT:
	default:
		snprintf(out->cause, sizeof(out->cause), "silent");
		steal_str(in, st, sizeof(st));
		if (in->steal_ns && in->steal_ns * 2 >= c->ns)
			snprintf(out->verdict, sizeof(out->verdict),
				 "silent %s: no events (hypervisor: steal +%s)", d, st);
		else if (in->steal_ns)
			snprintf(out->verdict, sizeof(out->verdict),
				 "silent %s: no events (IRQs off, SMI or hypervisor; steal +%s)", d,
				 st);
		else
			snprintf(out->verdict, sizeof(out->verdict),
				 "silent %s: no events (IRQs off, SMI or hypervisor)", d);
		/* Who had the CPU: the culprit if IRQs were off, innocent if
		 * the vCPU did not run; either way where to look next. */
		if (c->pid >= 0) {
			size_t l = strlen(out->verdict);

			snprintf(out->verdict + l, sizeof(out->verdict) - l, ", %s[%d] on the CPU",
				 c->name, c->pid);
		}
		/* in a work item or callback: the place to look */
		if (c->fn_kind != ATTRIB_FN_NONE) {
			size_t l = strlen(out->verdict);

			snprintf(out->verdict + l, sizeof(out->verdict) - l, " in %s %s",
				 fn_kind_name(c->fn_kind), c->fn);
		}
		break;
	}
	/* Keyed by the function when it took at least half the time: the
	 * same work on any kworker, the same callback in any softirq, one
	 * cause. */
	if (c->fn_kind != ATTRIB_FN_NONE && (c->kind == AK_TASK || c->kind == AK_SOFTIRQ) &&
	    c->fn_ns * 2 >= c->ns)
		snprintf(out->cause, sizeof(out->cause), "%s:%s", fn_kind_name(c->fn_kind), c->fn);
}

static void not_attributed(struct attrib_result *out, enum attrib_status st, const char *why)
{
	out->status = st;
	snprintf(out->verdict, sizeof(out->verdict), "not attributed: %s", why);
}

int attrib_analyse(const struct attrib_input *in, struct attrib_result *out)
{
	const struct trace_ev *exp, *waking = NULL, *sw = NULL, *first_sw = NULL, *woke;
	const struct trace_ev *on_cpu = NULL;
	uint64_t from, switch_in, irq_start = NONE, t = 0, lookback;
	int32_t probe_prio;
	struct sweep s;
	size_t i, near = 0;

	if (!in || !out || (in->nev && !in->ev) || in->wake_ns < in->deadline_ns)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->irq_ns = out->thread_ns = out->user_ns = NONE;
	out->steal_ns = in->steal_known ? in->steal_ns : NONE;
	out->steal_span_ns = in->steal_known ? in->steal_span_ns : NONE;
	lookback = in->deadline_ns > ATTRIB_LOOKBACK_NS ? in->deadline_ns - ATTRIB_LOOKBACK_NS : 0;

	/* Never guess: a ring overrun on this CPU up to the wake-up may have
	 * taken any of the events the answer depends on. */
	for (i = 0; i < in->nev; i++)
		if (mine(in, &in->ev[i]) && in->ev[i].type == TEV_LOST) {
			not_attributed(out, ATTRIB_LOST, "events lost");
			return 0;
		}
	for (i = 0; i < in->nev; i++)
		if (mine(in, &in->ev[i]) && (in->ev[i].ts >= lookback || in->idle_unrecorded))
			near++;
	/* Where the probe's wake-up from idle is not recorded, a window with
	 * no event is an idle CPU where nothing happened: the state before it
	 * (the CPU's last switch, its idle state, put first by the caller)
	 * says the trace was there. */
	if (!near) {
		not_attributed(out, ATTRIB_NO_EVENTS, "no events");
		return 0;
	}

	/* The anchors: expiry (timer probe), sched_waking (the last of each
	 * before the wake, as find_expiry says why), the switch-in. */
	exp = in->timer ? find_expiry(in, &irq_start) : NULL;
	for (i = 0; i < in->nev; i++) {
		const struct trace_ev *e = &in->ev[i];

		/* sched_waking is traced on the waker's CPU: for a round trip
		 * often another one, so sched_wakeup (on the target) counts too. */
		if (mine(in, e) && e->ts >= in->deadline_ns &&
		    (e->type == TEV_WAKING || (!in->timer && e->type == TEV_WAKEUP && !waking)) &&
		    e->pid == in->probe_tid)
			waking = e;
	}
	/* The timer probe's wake-up: its hrtimer expiry, or where the trace
	 * has no hrtimer events (a run's recorder enables none), the waking
	 * that expiry makes (hrtimer_wakeup), inside the same interrupt. */
	if (in->timer && !exp && waking) {
		exp = waking;
		irq_start = vector_open_at(in, waking);
	}
	if (exp) {
		const char *at = stack_at(in, irq_start, exp->ts);
		if (at)
			snprintf(out->irq_at, sizeof(out->irq_at), "%s", at);
	}
	woke = in->timer ? exp : waking;
	from = woke ? woke->ts : in->deadline_ns;
	/* The last switch-in after the wake-up; or none when the probe was
	 * still on the CPU as its timer fired (it wakes itself before it is
	 * switched out: an expired deadline while catching up after a stall):
	 * then it was "switched in" at the wake-up, the last switch involving
	 * it before then being a switch-in. */
	for (i = 0; i < in->nev; i++) {
		const struct trace_ev *e = &in->ev[i];

		if (!mine(in, e) || e->type != TEV_SWITCH)
			continue;
		if (e->pid == in->probe_tid && e->ts >= from)
			sw = e;
		if (e->ts <= from && (e->pid == in->probe_tid || e->pid2 == in->probe_tid))
			on_cpu = e->pid == in->probe_tid ? e : NULL;
	}
	if (exp)
		out->irq_ns = exp->ts - in->deadline_ns;
	/* No switch-in: a wake-up from idle whose switch-in the recorder left
	 * out (with the local-timer interrupt in the idle task's context that
	 * woke the probe).  The idle task held the CPU after the window's last
	 * switch, so the probe came from idle: what the trace holds from the
	 * deadline on is interference as ever, the rest the exit from idle, of
	 * which the probe's own wake-up after its waking is a part the trace
	 * cannot separate (no thread and user split). */
	bool from_idle = !sw && !(woke && on_cpu) && in->idle_unrecorded && last_task(in) == 0;
	uint64_t virt = !sw && woke && !on_cpu && !from_idle ? idle_switch_in(in, woke) : NONE;
	if (!sw && !(woke && on_cpu) && virt == NONE && !from_idle) {
		not_attributed(out, ATTRIB_NO_ANCHOR, "the probe's switch-in is not in the window");
		return 0;
	}
	switch_in = sw ? sw->ts : virt != NONE ? virt : from;
	probe_prio = sw ? sw->prio : on_cpu ? on_cpu->prio : waking ? waking->prio : -1;
	if (woke && !from_idle)
		out->thread_ns = switch_in - woke->ts;
	if (!from_idle)
		out->user_ns = in->wake_ns - switch_in;

	/* The sweep, from the window's first event so that the task on the
	 * CPU, the open frames and the idle state are known at the deadline.
	 * Before the first switch the task is that switch's prev. */
	memset(&s, 0, sizeof(s));
	s.in = in;
	s.lo = in->deadline_ns;
	s.hi = in->wake_ns;
	s.irq_start = irq_start;
	s.virt_ns = sw ? NONE : virt;
	s.virt_prio = probe_prio;
	s.probe_prio = probe_prio;
	/* A round trip: until its wake-up the probe was not runnable, its
	 * datagram on the way; what this CPU did meanwhile delayed nothing. */
	if (!in->timer && waking && waking->ts > in->deadline_ns) {
		add(&s, AK_TRANSIT, 0, -1, "transit", NULL, in->deadline_ns, waking->ts);
		s.lo = waking->ts;
	} else if (!in->timer) {
		s.no_wake = true;
	}
	for (i = 0; i < in->nev; i++) {
		const struct trace_ev *e = &in->ev[i];

		if (!mine(in, e))
			continue;
		if (e->type == TEV_SWITCH && !first_sw)
			first_sw = e;
	}
	if (first_sw) {
		s.known = true;
		s.pid = first_sw->pid2;
		s.prio = first_sw->prio2;
		s.comm = first_sw->name2;
	}
	rq_start(&s.rq, first_sw);
	for (i = 0; i < in->nev; i++) {
		const struct trace_ev *e = &in->ev[i];

		if (!mine(in, e))
			continue;
		/* Nothing at all between the deadline and the first event:
		 * that stretch is the CPU's too, in the state the first
		 * events show. */
		if (!t)
			t = e->ts < in->deadline_ns ? e->ts : in->deadline_ns;
		if (s.virt_ns != NONE && e->ts > s.virt_ns)
			virt_switch(&s, &t);
		/* the run queue as it was at the deadline */
		if (!s.rq_taken && e->ts > in->deadline_ns)
			sweep_take_rq(&s, out);
		step(&s, e, &t);
		s.prev = e;
		if (e->type == TEV_SWITCH)
			fix_plan(&s, i, e->pid);
		if (s.fix && i == s.fix_after) {
			s.pid = s.fix->pid2;
			s.prio = s.fix->prio2;
			s.comm = s.fix->name2;
			s.fix = NULL;
		}
	}
	if (s.virt_ns != NONE)
		virt_switch(&s, &t);
	if (!s.rq_taken)
		sweep_take_rq(&s, out);
	credit(&s, t, in->wake_ns);

	/* Largest first; ties in the order found.  An index sort, so that
	 * the timeline's segments can be renumbered. */
	unsigned ord[ATTRIB_ACC];
	int8_t map[ATTRIB_ACC];
	for (unsigned a = 0; a < s.nacc; a++) {
		unsigned b = a;

		while (b > 0 && s.acc[ord[b - 1]].ns < s.acc[a].ns) {
			ord[b] = ord[b - 1];
			b--;
		}
		ord[b] = a;
	}
	for (unsigned a = 0; a < s.nacc; a++)
		map[a] = -1;
	for (unsigned a = 0; a < s.nacc && out->n < ATTRIB_MAX_CONTRIB; a++) {
		map[ord[a]] = (int8_t)out->n;
		out->c[out->n] = s.acc[ord[a]];
		fn_result(&s, ord[a], &out->c[out->n]);
		irq_thread(&s, &out->c[out->n++]);
	}
	for (unsigned k = 0; k < s.nseg; k++) {
		out->seg[k] = s.seg[k];
		out->seg[k].contrib = s.seg[k].contrib < 0 ? -1 : map[s.seg[k].contrib];
	}
	/* Renumbered, two neighbours may both be "not kept" now: one. */
	unsigned w = 0;
	for (unsigned k = 0; k < s.nseg; k++) {
		struct attrib_seg *g = &out->seg[k];
		if (w && out->seg[w - 1].contrib == g->contrib &&
		    (uint64_t)out->seg[w - 1].off + out->seg[w - 1].ns == g->off)
			out->seg[w - 1].ns += g->ns;
		else
			out->seg[w++] = *g;
	}
	out->nseg = w;
	out->seg_more = s.seg_more;
	out->status = ATTRIB_OK;
	describe(in, probe_prio, out);
	/* Where the kernel was when the timer interrupt finally came: an
	 * IRQs-off section ends there (the interrupt is taken as they come
	 * back on), a task that could not be preempted was there.  Only a
	 * kernel function says something; user space and idle do not. */
	if (attrib_irq_at_known(out->irq_at)) {
		size_t l = strlen(out->verdict);
		char d[32];

		/* when it came (the entry), not when its expiry ran: recording
		 * the stack is part of the interrupt */
		fmt_ns(d, sizeof(d), irq_start > in->deadline_ns ? irq_start - in->deadline_ns : 0);
		snprintf(out->verdict + l, sizeof(out->verdict) - l,
			 "; the timer IRQ came in %s, %s after the deadline", out->irq_at, d);
	}
	/* The names are valid UTF-8 (trace_recorder), but snprintf may
	 * have cut one in the middle of a character at the end. */
	util_utf8_fix(out->cause, strlen(out->cause));
	util_utf8_fix(out->verdict, strlen(out->verdict));
	return 0;
}

bool attrib_irq_at_known(const char *irq_at)
{
	return *irq_at && strcmp(irq_at, "user") && strcmp(irq_at, "?");
}
