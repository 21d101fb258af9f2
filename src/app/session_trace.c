// SPDX-License-Identifier: GPL-2.0-or-later
/* session_trace: `run --trace` in the session.  Before the probes start:
 * rtsoak's own tracefs instance on the measured CPUs and its recorder
 * (src/trace).  Every housekeeping tick: the recorder reads what is new,
 * and each logged spike whose events are all in is explained
 * (attrib_analyse) and counted in its series' causes, per phase and in
 * "all".  At the end: the spikes still waiting, then the report's
 * attribution section; on every way out the instance is removed.
 *
 * All of it runs on the housekeeping thread: the probes' hot path does not
 * know tracing is on.  What it costs (CPU time of the polls and analyses,
 * the recorder's memory) is in the section's tracer object. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "attrib.h"
#include "attrib_agg.h"
#include "session_internal.h"
#include "steal.h"
#include "trace_instance.h"
#include "trace_recorder.h"
#include "util.h"

/* Events after the wake-up that must be in before a spike is explained
 * (its own switch-in and clock read are just before it). */
#define SESSION_TRACE_AFTER_NS (200 * NSEC_PER_USEC)
/* How much longer a spike waits for the other measured CPUs' events to be
 * in up to its deadline (their run queues, attrib_result.cpus): an empty
 * CPU's horizon lags its poll by 1 ms, so a spike just before a poll would
 * find the others not known; the next poll brings them.  Bounded, so that
 * a CPU that never catches up delays nothing by more than a few ticks
 * (its entry then says not known). */
#define SESSION_TRACE_OTHERS_NS (200 * NSEC_PER_MSEC)
/* Per CPU: longer than any housekeeping stall short of a checkpoint of a
 * huge report, so that a spike's events are still held when it is drained. */
#define SESSION_TRACE_WINDOW_MS 1000u
#define SESSION_TRACE_EVENTS 65536u
/* How often the housekeeping thread reads the buffers: every 100 ms, as
 * without --trace, while that keeps each CPU's ring under a quarter full
 * at the rate the last read found and no CPU's steal grows (a steal
 * reading brackets a spike's window: 10 ms units); else every 20 ms.  The
 * thread's wake-ups disturb a measured CPU it shares (the lab's only one,
 * any run of every CPU), and with --trace what it does there is traced. */
#define SESSION_TRACE_SLOW_NS (100 * NSEC_PER_MSEC)
#define SESSION_TRACE_FAST_NS (20 * NSEC_PER_MSEC)
/* How often the housekeeping thread makes sure that nobody changed the
 * instance (and once more at the end): six small reads. */
#define SESSION_TRACE_CHECK_NS (1000 * NSEC_PER_MSEC)
/* Steal readings kept per CPU, one per tick: 2.5 s at 20 ms, more than the
 * window, so that a spike explained late still finds its brackets. */
#define SESSION_STEAL_READINGS 128u

/* A CPU's steal time at each housekeeping tick (CLOCK_MONOTONIC ns). */
struct steal_ring {
	uint64_t ts[SESSION_STEAL_READINGS], ns[SESSION_STEAL_READINGS];
	unsigned head, n; /* ts[head] is the oldest of n */
};

/* Where the timer IRQ came in (attrib_result.irq_at) for a thread's last
 * SESSION_TRACE_AT_RING explained spikes, by spike index: only --on-spike
 * asks (RTSOAK_IRQ_AT), for the spike it waits for, at the tick that
 * explains it; the report keeps irq_at for the worst spikes and counts
 * per cause only. */
#define SESSION_TRACE_AT_RING 64u
struct spike_at {
	size_t k; /* spike index + 1: 0 is an empty slot */
	char fn[TEV_NAME_LEN];
};

struct session_trace {
	struct trace_instance ti;
	struct trace_recorder *rec;
	size_t *next;		/* per thread: the next spike of s->series[i] to explain */
	struct spike_at *at;	/* per thread: SESSION_TRACE_AT_RING of them */
	struct attrib_agg *agg; /* per thread: [phases.n + 1], the last one "all" */
	unsigned nagg;		/* per thread */
	size_t nthr;		/* threads the session will make: probes x measured CPUs */
	/* The timer probes' wake-ups from idle are filtered out of the
	 * instance (session_trace_probes): attrib_input.idle_unrecorded */
	bool filtered;
	char filter_err[256]; /* why they are not, when that failed */
	struct trace_ev *buf; /* one window */
	uint64_t cpu_ns;      /* housekeeping CPU time in polls and analyses */
	uint64_t polls;
	struct steal_ring *steal; /* per CPU below nsteal; NULL: no steal column */
	uint64_t *steal_now;
	unsigned nsteal;
	int poll_errno;
	char poll_err[200];
	uint64_t checked_at; /* CLOCK_MONOTONIC of the last trace_instance_check */
	uint64_t polled_at;  /* ... of the last poll */
	uint64_t tick_ns;    /* until the next: SESSION_TRACE_SLOW_NS or _FAST_NS */
	bool stealing;	     /* the last steal reading grew on some CPU */
	char disturbed[512]; /* what the first check that failed found, and when */
};

static uint64_t thread_cpu_ns(void)
{
	return util_now_ns(CLOCK_THREAD_CPUTIME_ID);
}

int session_trace_start(struct session *s, char *err, size_t errlen)
{
	struct session_trace *tr = calloc(1, sizeof(*tr));
	/* No hrtimer events (the timer probe is anchored on its sched_waking);
	 * sched_wakeup only for a round trip, whose waking may be on another
	 * CPU (session_trace_probes says why the rest is filtered). */
	struct trace_instance_config ic = { .cpus = s->cfg->cpus,
					    .buffer_kb = 0,
					    .stacks = s->cfg->trace_stacks,
					    .no_hrtimer = true,
					    .no_wakeup = true };
	struct trace_recorder_config rc = { .window_ms = SESSION_TRACE_WINDOW_MS,
					    .max_events = SESSION_TRACE_EVENTS };
	int rv;

	if (!tr) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->trace = tr;
	for (unsigned p = 0; p < s->cfg->nprobes; p++)
		if (!s->cfg->probes[p].ops->hrtimer)
			ic.no_wakeup = false;
	/* Before the threads exist: as many as start_threads makes. */
	tr->nthr = (size_t)s->cfg->nprobes * (size_t)cpuset_count(&s->cfg->cpus);
	tr->nagg = s->phases.n + 1;
	tr->next = calloc(tr->nthr ? tr->nthr : 1, sizeof(*tr->next));
	tr->agg = calloc((tr->nthr ? tr->nthr : 1) * tr->nagg, sizeof(*tr->agg));
	tr->buf = malloc(SESSION_TRACE_EVENTS * sizeof(*tr->buf));
	tr->at = calloc((tr->nthr ? tr->nthr : 1) * SESSION_TRACE_AT_RING, sizeof(*tr->at));
	if (!tr->next || !tr->agg || !tr->buf || !tr->at) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* Steal per CPU, to tell the hypervisor's share of a silent gap. */
	for (int c = cpuset_next(&s->cfg->cpus, 0); c >= 0; c = cpuset_next(&s->cfg->cpus, c + 1))
		tr->nsteal = (unsigned)c + 1;
	tr->steal = calloc(tr->nsteal, sizeof(*tr->steal));
	tr->steal_now = calloc(tr->nsteal, sizeof(*tr->steal_now));
	if (!tr->steal || !tr->steal_now) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((rv = trace_instance_create(&tr->ti, &ic, err, errlen)))
		return rv;
	tr->rec = trace_recorder_create(&tr->ti, &rc, err, errlen);
	if (!tr->rec)
		return errno ? -errno : -EIO;
	return 0;
}

int session_trace_probes(struct session *s)
{
	struct session_trace *tr = s->trace;
	int32_t *tids;
	size_t n = 0;
	int rc;

	if (!tr || !tr->rec)
		return 0;
	tids = calloc(s->nthreads ? s->nthreads : 1, sizeof(*tids));
	if (!tids) {
		snprintf(tr->filter_err, sizeof(tr->filter_err), "out of memory");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < s->nthreads; i++)
		if (s->threads[i].ops->hrtimer && s->threads[i].tid > 0)
			tids[n++] = s->threads[i].tid;
	rc = trace_instance_filter_probes(&tr->ti, tids, n, tr->filter_err, sizeof(tr->filter_err));
	free(tids);
	/* The switch-ins from idle are left out once sched_switch's filter is
	 * in, whatever failed after it. */
	tr->filtered = n > 0 && trace_instance_filter_of(&tr->ti, "sched:sched_switch");
	return rc;
}

const char *session_trace_filter_error(const struct session *s)
{
	return s->trace && s->trace->filter_err[0] ? s->trace->filter_err : "unknown error";
}

/* One reading of every CPU's steal, at now. */
static void steal_tick(struct session_trace *tr, uint64_t now)
{
	if (!tr->steal)
		return;
	if (steal_read(tr->steal_now, tr->nsteal) < 0) {
		free(tr->steal); /* no steal column: unknown, not 0 */
		tr->steal = NULL;
		return;
	}
	tr->stealing = false;
	for (unsigned c = 0; c < tr->nsteal; c++) {
		struct steal_ring *r = &tr->steal[c];
		unsigned at = (r->head + r->n) % SESSION_STEAL_READINGS;
		if (r->n && tr->steal_now[c] >
				r->ns[(at + SESSION_STEAL_READINGS - 1) % SESSION_STEAL_READINGS])
			tr->stealing = true;
		if (r->n == SESSION_STEAL_READINGS)
			r->head = (r->head + 1) % SESSION_STEAL_READINGS;
		else
			r->n++;
		r->ts[at] = now;
		r->ns[at] = tr->steal_now[c];
	}
}

/* The steal of cpu from the last reading at or before `from` to the first
 * at or after `to`, and that span; false when either is not held. */
static bool steal_over(const struct session_trace *tr, int cpu, uint64_t from, uint64_t to,
		       uint64_t *steal, uint64_t *span)
{
	const struct steal_ring *r;
	bool lo = false, hi = false;
	unsigned a = 0, b = 0;

	if (!tr->steal || cpu < 0 || (unsigned)cpu >= tr->nsteal)
		return false;
	r = &tr->steal[cpu];
	for (unsigned k = 0; k < r->n; k++) {
		unsigned i = (r->head + k) % SESSION_STEAL_READINGS;
		if (r->ts[i] <= from) {
			a = i;
			lo = true;
		}
		if (r->ts[i] >= to && !hi) {
			b = i;
			hi = true;
		}
	}
	if (!lo || !hi || r->ns[b] < r->ns[a])
		return false;
	*steal = r->ns[b] - r->ns[a];
	*span = r->ts[b] - r->ts[a];
	return true;
}

/* What every other measured CPU ran and had runnable at a kept spike's
 * deadline (rtla's --dump-tasks): each one's window up to the deadline,
 * led by its last switch before it, through the same run-queue rebuild
 * as the spike's own CPU (attrib_runq_at).  The first ATTRIB_MAX_CPUS of
 * them; tr->buf is free again once the spike's own analysis is done. */
static void other_cpus(struct session *s, int cpu, uint64_t deadline, struct attrib_result *res)
{
	struct session_trace *tr = s->trace;
	uint64_t from = deadline > ATTRIB_LOOKBACK_NS ? deadline - ATTRIB_LOOKBACK_NS : 0;

	for (int c = cpuset_next(&s->cfg->cpus, 0); c >= 0; c = cpuset_next(&s->cfg->cpus, c + 1)) {
		struct trace_window_info info = { 0 };
		struct attrib_runq_input in = { .cpu = c, .at_ns = deadline, .ev = tr->buf };

		if (c == cpu)
			continue;
		if (res->ncpus == ATTRIB_MAX_CPUS) {
			res->cpus_more = true;
			break;
		}
		size_t lead = trace_recorder_last(tr->rec, c, from, TEV_SWITCH, tr->buf) == 1;
		long n = trace_recorder_window(tr->rec, c, from, deadline, tr->buf + lead,
					       SESSION_TRACE_EVENTS - lead, &info);
		in.nev = n >= 0 ? (size_t)n + lead : 0;
		/* all of the window copied, none of it lost or evicted */
		in.covered = n >= 0 && info.covered && !info.lost_inside && info.total == (size_t)n;
		in.complete_ns = trace_recorder_horizon(tr->rec, c);
		attrib_runq_at(&in, &res->cpus[res->ncpus++]);
	}
}

/* Explain spike k of thread i's series: its window from the recorder,
 * then the analysis, then the counts of its phase and of "all". */
static void explain(struct session *s, unsigned i, size_t k, const struct series_spike *sp)
{
	struct session_trace *tr = s->trace;
	const struct probe_thread *t = &s->threads[i];
	const struct series *se = &s->series[i];
	struct attrib_input in = { .cpu = t->cpu,
				   .probe_tid = t->tid,
				   .timer = t->ops->hrtimer,
				   .idle_unrecorded = t->ops->hrtimer && tr->filtered };
	struct trace_window_info info = { .covered = true };
	struct attrib_result res;

	if (t->ops->at_wakeup) {
		in.wake_ns = s->t0 + sp->t_ns;
		in.deadline_ns = in.wake_ns - sp->latency_ns;
	} else {
		in.deadline_ns = s->t0 + sp->t_ns;
		in.wake_ns = in.deadline_ns + sp->latency_ns;
	}
	uint64_t from =
	    in.deadline_ns > ATTRIB_LOOKBACK_NS ? in.deadline_ns - ATTRIB_LOOKBACK_NS : 0;
	/* The CPU's state as the window opens: who held it (its last switch
	 * before the window) and its idle state (the last power:cpu_idle entry),
	 * first in the buffer in time order.  On an idle CPU both lie a whole
	 * sleep back, and the switch out of idle is never traced here. */
	size_t lead = 0;
	struct trace_ev idle;
	lead += trace_recorder_last(tr->rec, t->cpu, from, TEV_SWITCH, &tr->buf[lead]) == 1;
	bool idle_known = trace_recorder_last(tr->rec, t->cpu, from, TEV_IDLE, &idle) == 1;
	if (idle_known) {
		if (lead && tr->buf[0].ts > idle.ts) {
			tr->buf[1] = tr->buf[0];
			tr->buf[0] = idle;
		} else {
			tr->buf[lead] = idle;
		}
		lead++;
	}
	long n = trace_recorder_window(tr->rec, t->cpu, from, in.wake_ns + SESSION_TRACE_AFTER_NS,
				       tr->buf + lead, SESSION_TRACE_EVENTS - lead, &info);
	/* No idle entry held before the window: why, for an idle exit that no
	 * entry inside the window names either. */
	if (!idle_known)
		in.idle_why = !trace_recorder_idle_entries(tr->rec, t->cpu) ? ATTRIB_IDLE_NOT_TRACED
			      : info.lost_before			    ? ATTRIB_IDLE_LOST
									    : ATTRIB_IDLE_OLD;
	in.ev = tr->buf;
	/* the lead events too when the window holds none: an idle CPU's,
	 * where the probe's own wake-up is not recorded */
	in.nev = n >= 0 ? (size_t)n + lead : 0;
	in.steal_known =
	    steal_over(tr, t->cpu, in.deadline_ns, in.wake_ns, &in.steal_ns, &in.steal_span_ns);
	if (!in.steal_known)
		in.steal_ns = in.steal_span_ns = 0;
	if (n < 0) { /* a CPU the recorder does not trace: cannot happen */
		memset(&res, 0, sizeof(res));
		res.status = ATTRIB_NO_EVENTS;
	} else if (attrib_analyse(&in, &res) < 0) {
		memset(&res, 0, sizeof(res));
		res.status = ATTRIB_NO_ANCHOR;
	}
	/* Never a guess from part of a window: events overwritten in the
	 * kernel's ring, or evicted from ours before the spike was drained. */
	if (res.status == ATTRIB_OK && (info.lost_inside || !info.covered))
		res.status = ATTRIB_LOST;
	uint64_t thr = se->threshold_ns;
	unsigned ph = phase_at(&s->phases, sp->t_ns);
	struct attrib_agg *a = &tr->agg[(size_t)i * tr->nagg];
	if (res.status == ATTRIB_OK && (attrib_agg_keeps(&a[ph], sp->latency_ns) ||
					attrib_agg_keeps(&a[tr->nagg - 1], sp->latency_ns)))
		other_cpus(s, t->cpu, in.deadline_ns, &res);
	(void)attrib_agg_add(&a[ph], sp->t_ns, sp->latency_ns, thr, &res);
	(void)attrib_agg_add(&a[tr->nagg - 1], sp->t_ns, sp->latency_ns, thr, &res);
	struct spike_at *slot =
	    &tr->at[(size_t)i * SESSION_TRACE_AT_RING + k % SESSION_TRACE_AT_RING];
	slot->k = k + 1;
	snprintf(slot->fn, sizeof(slot->fn), "%s", res.status == ATTRIB_OK ? res.irq_at : "");
}

/* Explain what is ready: every logged spike whose events are all in (or
 * every one, at the end). */
static void explain_ready(struct session *s, bool all)
{
	struct session_trace *tr = s->trace;

	/* how far every measured CPU's events are in */
	uint64_t every = UINT64_MAX;
	for (int c = cpuset_next(&s->cfg->cpus, 0); c >= 0; c = cpuset_next(&s->cfg->cpus, c + 1)) {
		uint64_t h = trace_recorder_horizon(tr->rec, c);
		every = h < every ? h : every;
	}
	for (unsigned i = 0; i < s->nthreads && i < tr->nthr && s->series; i++) {
		const struct series *se = &s->series[i];
		uint64_t horizon = trace_recorder_horizon(tr->rec, s->threads[i].cpu);
		while (tr->next[i] < se->nspikes) {
			const struct series_spike *sp = &se->spikes[tr->next[i]];
			bool at_wakeup = s->threads[i].ops->at_wakeup;
			uint64_t wake = s->t0 + sp->t_ns + (at_wakeup ? 0 : sp->latency_ns);
			uint64_t deadline = s->t0 + sp->t_ns - (at_wakeup ? sp->latency_ns : 0);
			if (!all && (horizon < wake + SESSION_TRACE_AFTER_NS ||
				     (every < deadline && horizon < wake + SESSION_TRACE_AFTER_NS +
									SESSION_TRACE_OTHERS_NS)))
				break;
			explain(s, i, tr->next[i], sp);
			tr->next[i]++;
		}
	}
}

/* Root can write into our instance (another tool, a run of an older
 * rtsoak cleaning up by name): the attribution after that is partial, so
 * the first change found is kept for the report's warnings.  Not fixed
 * up: whoever did it may be doing it on purpose. */
static void check_instance(struct session *s, bool last)
{
	struct session_trace *tr = s->trace;
	uint64_t now = util_now_ns(CLOCK_MONOTONIC);
	char what[300], when[48];

	if (tr->disturbed[0] || (!last && now - tr->checked_at < SESSION_TRACE_CHECK_NS))
		return;
	tr->checked_at = now;
	if (trace_instance_check(&tr->ti, what, sizeof(what)) <= 0)
		return;
	/* when it was found (at most a check period after it happened), on
	 * the report's time axis */
	if (last)
		snprintf(when, sizeof(when), "found at its end");
	else if (now < s->t0)
		snprintf(when, sizeof(when), "found in the warm-up");
	else
		snprintf(when, sizeof(when), "found %.1f s in", (double)(now - s->t0) / 1e9);
	snprintf(tr->disturbed, sizeof(tr->disturbed),
		 "%s during the run (%s): the attribution after that may be incomplete", what,
		 when);
}

void session_trace_tick(struct session *s, bool last)
{
	struct session_trace *tr = s->trace;

	if (!tr || !tr->rec)
		return;
	uint64_t c0 = thread_cpu_ns(), now = util_now_ns(CLOCK_MONOTONIC);
	char err[200];
	int rc = trace_recorder_poll(tr->rec, err, sizeof(err));
	tr->polls++;
	steal_tick(tr, now);
	unsigned pages, ring;
	trace_recorder_fill(tr->rec, &pages, &ring);
	uint64_t since = tr->polled_at ? now - tr->polled_at : 0;
	tr->tick_ns = since && !tr->stealing &&
			      (uint64_t)pages * SESSION_TRACE_SLOW_NS <= (uint64_t)ring / 4 * since
			  ? SESSION_TRACE_SLOW_NS
			  : SESSION_TRACE_FAST_NS;
	tr->polled_at = now;
	if (rc < 0 && !tr->poll_errno) {
		tr->poll_errno = -rc; /* said once, in the report */
		snprintf(tr->poll_err, sizeof(tr->poll_err), "%s", err);
	}
	explain_ready(s, last);
	check_instance(s, last);
	tr->cpu_ns += thread_cpu_ns() - c0;
}

int session_trace_spike_cause(const struct session *s, unsigned i, size_t k, char *buf, size_t len)
{
	const struct session_trace *tr = s->trace;

	if (!tr || !tr->rec || i >= tr->nthr || !s->series || k >= s->series[i].nspikes ||
	    tr->next[i] <= k)
		return -1;
	/* The "all" entry's spike_causes, in the order explained: the
	 * latest spikes last, and only attributed ones have an entry. */
	const struct attrib_agg *a = &tr->agg[(size_t)i * tr->nagg + tr->nagg - 1];
	uint64_t t = s->series[i].spikes[k].t_ns;
	for (size_t j = a->nsc; j-- > 0;) {
		if (a->spike_causes[j][0] == t) {
			snprintf(buf, len, "%s", a->cause[a->spike_causes[j][1]].key);
			return 1;
		}
		if (a->spike_causes[j][0] < t)
			break;
	}
	snprintf(buf, len, "%s", "");
	return 0;
}

bool session_trace_spike_irq_at(const struct session *s, unsigned i, size_t k, char *buf,
				size_t len)
{
	const struct session_trace *tr = s->trace;

	snprintf(buf, len, "%s", "");
	if (!tr || i >= tr->nthr)
		return false;
	const struct spike_at *slot =
	    &tr->at[(size_t)i * SESSION_TRACE_AT_RING + k % SESSION_TRACE_AT_RING];
	if (slot->k != k + 1)
		return false;
	snprintf(buf, len, "%s", slot->fn);
	return true;
}

uint64_t session_trace_tick_ns(const struct session *s)
{
	return s->trace && s->trace->tick_ns ? s->trace->tick_ns : SESSION_TRACE_FAST_NS;
}

bool session_trace_disturbed(const struct session *s, char *what, size_t len)
{
	if (!s->trace || !s->trace->disturbed[0])
		return false;
	snprintf(what, len, "%s", s->trace->disturbed);
	return true;
}

/* Every value checked: NULL when one could not be made (out of memory), an
 * error of the report rather than an entry silently missing from it. */
static json_t *tracer_json(const struct session *s)
{
	const struct session_trace *tr = s->trace;
	json_t *events = json_array();
	int bad = !events;

	for (unsigned i = 0; !bad && i < tr->ti.nevents; i++)
		bad |= util_json_push(events, json_string(tr->ti.events[i]));
	if (bad) {
		json_decref(events);
		return NULL;
	}
	json_t *filters = json_object();
	for (unsigned i = 0; filters && !bad && i < tr->ti.nfilters; i++)
		bad |= util_json_set(filters, tr->ti.filters[i].event,
				     json_string(tr->ti.filters[i].filter));
	if (bad || !filters) {
		json_decref(events);
		json_decref(filters);
		return NULL;
	}
	struct trace_stack_cost k;
	trace_recorder_stack_cost(tr->rec, &k);
	json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:o, s:o, s:b, s:I, s:I, s:I}", "instance",
			      tr->ti.name, "clock", "mono", "buffer_kb", (int)tr->ti.buffer_kb,
			      "window_ms", (int)SESSION_TRACE_WINDOW_MS, "events", events,
			      "filters", filters, "stacks", tr->ti.stacks, "polls",
			      (json_int_t)tr->polls, "housekeeping_cpu_ns", (json_int_t)tr->cpu_ns,
			      "memory_bytes", (json_int_t)trace_recorder_memory(tr->rec));
	/* what the stacks added to each local-timer interrupt: the report
	 * says how much of the IRQ latency is the measurement's own */
	if (o && tr->ti.stacks &&
	    util_json_set(o, "stack_cost",
			  json_pack("{s:I, s:I, s:I}", "stacks", (json_int_t)k.n, "mean_ns",
				    (json_int_t)(k.n ? k.sum_ns / k.n : 0), "max_ns",
				    (json_int_t)k.max_ns))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *session_trace_json(struct session *s)
{
	struct session_trace *tr = s->trace;
	json_t *cpus = json_array(), *series = json_array(), *o;
	int bad = !cpus || !series;

	if (!tr || !tr->rec || bad) {
		json_decref(cpus);
		json_decref(series);
		return NULL;
	}
	for (int c = cpuset_next(&s->cfg->cpus, 0); c >= 0; c = cpuset_next(&s->cfg->cpus, c + 1)) {
		uint64_t ev = 0, lost = 0;
		if (trace_recorder_stats(tr->rec, c, &ev, &lost) == 0)
			bad |= util_json_push(cpus,
					      json_pack("{s:i, s:I, s:I}", "cpu", c, "events",
							(json_int_t)ev, "lost", (json_int_t)lost));
	}
	for (unsigned i = 0; !bad && i < s->nthreads && i < tr->nthr; i++) {
		const struct probe_thread *t = &s->threads[i];
		const struct attrib_agg *a = &tr->agg[(size_t)i * tr->nagg];
		uint64_t thr = s->series ? s->series[i].threshold_ns : 0;
		/* One phase named "all" (no rotation) is the "all" entry itself. */
		bool single = s->phases.n == 1 && !strcmp(s->phases.name[0], "all");
		for (unsigned p = 0; !single && p < s->phases.n; p++)
			if (a[p].spikes)
				bad |= util_json_push(
				    series, attrib_agg_json(&a[p], t->pc->results[0], t->cpu,
							    s->phases.name[p], thr));
		bad |= util_json_push(series, attrib_agg_json(&a[tr->nagg - 1], t->pc->results[0],
							      t->cpu, "all", thr));
	}
	if (bad) {
		json_decref(cpus);
		json_decref(series);
		return NULL;
	}
	o = json_pack("{s:o, s:o, s:o}", "tracer", tracer_json(s), "cpus", cpus, "series", series);
	if (o && tr->poll_errno && util_json_set(o, "error", util_json_string(tr->poll_err))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int session_trace_stop(struct session *s)
{
	struct session_trace *tr = s->trace;
	char err[256];
	int rc = 0;

	if (!tr)
		return 0;
	if (tr->rec)
		trace_recorder_destroy(tr->rec);
	tr->rec = NULL;
	/* An instance left behind is tracing state not put back: say so and
	 * let the exit status show it (the next run removes it). */
	if (trace_instance_destroy(&tr->ti, err, sizeof(err))) {
		rtsoak_error("--trace: %s", err);
		rc = -1;
	}
	for (size_t i = 0; tr->agg && i < tr->nthr * tr->nagg; i++)
		attrib_agg_free(&tr->agg[i]);
	free(tr->agg);
	free(tr->steal);
	free(tr->steal_now);
	free(tr->next);
	free(tr->at);
	free(tr->buf);
	free(tr);
	s->trace = NULL;
	return rc;
}
