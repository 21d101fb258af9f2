// SPDX-License-Identifier: GPL-2.0-or-later
/* attrib_agg: the causes table of a series (see attrib_agg.h). */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attrib_agg.h"
#include "util.h"

static int cause_index(struct attrib_agg *a, const struct attrib_result *res)
{
	for (size_t i = 0; i < a->ncause; i++)
		if (!strcmp(a->cause[i].key, res->cause))
			return (int)i;
	if (a->ncause == a->cause_cap) {
		size_t cap = a->cause_cap ? 2 * a->cause_cap : 8;
		struct attrib_agg_cause *c = realloc(a->cause, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		a->cause = c;
		a->cause_cap = cap;
	}
	struct attrib_agg_cause *c = &a->cause[a->ncause];
	memset(c, 0, sizeof(*c));
	snprintf(c->key, sizeof(c->key), "%s", res->cause);
	c->kind = res->n ? res->c[0].kind : AK_SILENT;
	return (int)a->ncause++;
}

/* Count where the timer IRQ of one of c's spikes came in: kept while
 * there is room, the rest of the functions in one count. */
static void count_at(struct attrib_agg_cause *c, const char *irq_at)
{
	if (!attrib_irq_at_known(irq_at))
		return;
	for (unsigned k = 0; k < c->nat; k++)
		if (!strcmp(c->at[k].fn, irq_at)) {
			c->at[k].spikes++;
			return;
		}
	if (c->nat == ATTRIB_AGG_IRQ_AT) {
		c->at_other++;
		return;
	}
	snprintf(c->at[c->nat].fn, sizeof(c->at[c->nat].fn), "%s", irq_at);
	c->at[c->nat++].spikes = 1;
}

/* Keep the ATTRIB_AGG_TOP largest latencies. */
static void keep_top(struct attrib_agg *a, uint64_t t_ns, uint64_t latency_ns,
		     const struct attrib_result *res)
{
	unsigned at = a->ntop;

	if (!attrib_agg_keeps(a, latency_ns))
		return;
	if (a->ntop == ATTRIB_AGG_TOP) {
		at = ATTRIB_AGG_TOP - 1;
	} else {
		a->ntop++;
	}
	while (at > 0 && a->top[at - 1].latency_ns < latency_ns) {
		a->top[at] = a->top[at - 1];
		at--;
	}
	a->top[at] = (struct attrib_agg_top){ .t_ns = t_ns, .latency_ns = latency_ns, .res = *res };
}

bool attrib_agg_keeps(const struct attrib_agg *a, uint64_t latency_ns)
{
	return a->ntop < ATTRIB_AGG_TOP || latency_ns > a->top[ATTRIB_AGG_TOP - 1].latency_ns;
}

int attrib_agg_add(struct attrib_agg *a, uint64_t t_ns, uint64_t latency_ns, uint64_t threshold_ns,
		   const struct attrib_result *res)
{
	a->spikes++;
	switch (res->status) {
	case ATTRIB_LOST:
		a->lost++;
		return 0;
	case ATTRIB_NO_EVENTS:
		a->no_events++;
		return 0;
	case ATTRIB_NO_ANCHOR:
		a->no_anchor++;
		return 0;
	case ATTRIB_OK:
		break;
	}
	int i = cause_index(a, res);
	if (i >= 0 && a->nsc == a->sc_cap) {
		size_t cap = a->sc_cap ? 2 * a->sc_cap : 64;
		uint64_t(*sc)[2] = realloc(a->spike_causes, cap * sizeof(*sc));
		if (!sc)
			i = -ENOMEM;
		else {
			a->spike_causes = sc;
			a->sc_cap = cap;
		}
	}
	/* Out of memory: counted as not attributed, so that the counts the
	 * reader checks still add up (attributed = spike_causes = causes). */
	if (i < 0) {
		a->no_events++;
		return i;
	}
	a->attributed++;
	a->cause[i].spikes++;
	a->cause[i].excess_ns += latency_ns > threshold_ns ? latency_ns - threshold_ns : 0;
	count_at(&a->cause[i], res->irq_at);
	a->spike_causes[a->nsc][0] = t_ns;
	a->spike_causes[a->nsc][1] = (uint64_t)i;
	a->nsc++;
	keep_top(a, t_ns, latency_ns, res);
	return 0;
}

static json_t *ns_or_null(uint64_t v)
{
	return v == UINT64_MAX ? json_null() : json_integer((json_int_t)v);
}

static const char *policy_name(int policy)
{
	return policy == 1 ? "FIFO" : policy == 0 ? "OTHER" : "DL";
}

/* What c ran where the events name it: {name, kind (work, timer), ns,
 * other_ns}, null when they name nothing. */
static json_t *function_json(const struct attrib_contrib *c)
{
	if (c->fn_kind == ATTRIB_FN_NONE)
		return json_null();
	return json_pack("{s:o, s:s, s:I, s:I}", "name", util_json_string(c->fn), "kind",
			 c->fn_kind == ATTRIB_FN_WORK ? "work" : "timer", "ns",
			 (json_int_t)c->fn_ns, "other_ns", (json_int_t)c->fn_more);
}

/* A threaded IRQ handler: {irq, name, woken_by}, null for any other
 * contributor; woken_by {kind, name, id, pid, offset_ns} or null. */
static json_t *irq_thread_json(const struct attrib_contrib *c)
{
	const struct attrib_waker *w = &c->woke;
	bool has_id = w->kind == AK_IRQ || w->kind == AK_SOFTIRQ || w->kind == AK_VECTOR;
	json_t *by;

	if (!c->threaded)
		return json_null();
	by = !c->woke_known
		 ? json_null()
		 : json_pack("{s:s, s:o, s:o, s:o, s:I}", "kind", attrib_kind_name(w->kind), "name",
			     util_json_string(w->name), "id",
			     has_id ? json_integer(w->id) : json_null(), "pid",
			     w->kind == AK_TASK ? json_integer(w->pid) : json_null(), "offset_ns",
			     (json_int_t)c->woke_off_ns);
	if (!by)
		return NULL;
	return json_pack("{s:I, s:o, s:o}", "irq", (json_int_t)c->irq, "name",
			 c->irq_name[0] ? util_json_string(c->irq_name) : json_null(), "woken_by",
			 by);
}

/* Every value is checked: a NULL from json_pack (out of memory; a name that
 * is not UTF-8 cannot reach here, util_json_string masks it) makes the
 * whole entry NULL, an error of the report, never a cause silently missing
 * from a file whose counts then do not add up. */
static json_t *contributor_json(const struct attrib_contrib *c)
{
	bool has_id = c->kind == AK_IRQ || c->kind == AK_SOFTIRQ || c->kind == AK_VECTOR ||
		      c->kind == AK_IDLE_EXIT;
	bool task = c->kind == AK_TASK;
	json_t *o = json_pack("{s:s, s:o, s:o, s:I}", "kind", attrib_kind_name(c->kind), "name",
			      util_json_string(c->name), "id",
			      has_id ? json_integer(c->id) : json_null(), "ns", (json_int_t)c->ns);
	int bad = !o;

	if (o) {
		bad |= util_json_set(o, "pid", task ? json_integer(c->pid) : json_null());
		bad |= util_json_set(o, "policy",
				     task ? json_string(policy_name(c->policy)) : json_null());
		bad |=
		    util_json_set(o, "priority", task ? json_integer(c->rt_priority) : json_null());
		bad |= util_json_set(o, "function", function_json(c));
		bad |= util_json_set(o, "irq_thread", irq_thread_json(c));
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A run queue at the deadline: [{pid, name, policy, priority, running}]. */
static json_t *runq_json(const struct attrib_task *q, unsigned n)
{
	json_t *v = json_array();
	int bad = !v;

	for (unsigned i = 0; !bad && i < n; i++) {
		const struct attrib_task *k = &q[i];
		bad |= util_json_push(v, json_pack("{s:i, s:o, s:s, s:i, s:b}", "pid", (int)k->pid,
						   "name", util_json_string(k->name), "policy",
						   policy_name(k->policy), "priority",
						   k->rt_priority, "running", k->running));
	}
	if (bad) {
		json_decref(v);
		return NULL;
	}
	return v;
}

/* The other measured CPUs at the deadline: [{cpu, known, runnable,
 * runnable_truncated}], as the spike's own runnable. */
static json_t *cpus_json(const struct attrib_result *r)
{
	json_t *v = json_array();
	int bad = !v;

	for (unsigned i = 0; !bad && i < r->ncpus; i++) {
		const struct attrib_cpu_runq *c = &r->cpus[i];
		bad |=
		    util_json_push(v, json_pack("{s:i, s:b, s:o, s:b}", "cpu", c->cpu, "known",
						c->known, "runnable", runq_json(c->runq, c->nrunq),
						"runnable_truncated", c->runq_more));
	}
	if (bad) {
		json_decref(v);
		return NULL;
	}
	return v;
}

static json_t *top_json(const struct attrib_agg_top *t)
{
	json_t *contrib = json_array(), *tl = json_array();
	json_t *o = json_pack(
	    "{s:I, s:I, s:o, s:o, s:o, s:o, s:o}", "t_ns", (json_int_t)t->t_ns, "latency_ns",
	    (json_int_t)t->latency_ns, "irq_ns", ns_or_null(t->res.irq_ns), "thread_ns",
	    ns_or_null(t->res.thread_ns), "user_ns", ns_or_null(t->res.user_ns), "cause",
	    util_json_string(t->res.cause), "verdict", util_json_string(t->res.verdict));
	int bad = !o || !contrib || !tl;

	for (unsigned i = 0; !bad && i < t->res.n; i++)
		bad |= util_json_push(contrib, contributor_json(&t->res.c[i]));
	for (unsigned i = 0; !bad && i < t->res.nseg; i++) {
		const struct attrib_seg *g = &t->res.seg[i];
		bad |= util_json_push(
		    tl, json_pack("[I, I, o]", (json_int_t)g->off, (json_int_t)g->ns,
				  g->contrib < 0 ? json_null() : json_integer(g->contrib)));
	}
	if (!bad) {
		bad |= util_json_set(o, "contributors", contrib);
		bad |= util_json_set(o, "timeline", tl);
		contrib = tl = NULL;
		bad |= util_json_set(o, "timeline_truncated", json_boolean(t->res.seg_more));
		bad |= util_json_set(o, "steal_ns", ns_or_null(t->res.steal_ns));
		bad |= util_json_set(o, "steal_span_ns", ns_or_null(t->res.steal_span_ns));
		bad |= util_json_set(
		    o, "irq_at", *t->res.irq_at ? util_json_string(t->res.irq_at) : json_null());
		bad |= util_json_set(o, "runnable", runq_json(t->res.runq, t->res.nrunq));
		bad |= util_json_set(o, "runnable_truncated", json_boolean(t->res.runq_more));
		bad |= util_json_set(o, "cpus", cpus_json(&t->res));
		bad |= util_json_set(o, "cpus_truncated", json_boolean(t->res.cpus_more));
	}
	json_decref(contrib);
	json_decref(tl);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A cause's irq_at: [{function, spikes}], most spikes first (ties by
 * name, so that the file does not depend on the order seen).  NULL on
 * ENOMEM. */
static json_t *irq_at_json(const struct attrib_agg_cause *c)
{
	const struct attrib_agg_at *ord[ATTRIB_AGG_IRQ_AT];
	json_t *v = json_array();
	int bad = !v;

	for (unsigned k = 0; k < c->nat; k++) {
		unsigned j = k;

		while (j > 0 && (ord[j - 1]->spikes < c->at[k].spikes ||
				 (ord[j - 1]->spikes == c->at[k].spikes &&
				  strcmp(ord[j - 1]->fn, c->at[k].fn) > 0))) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = &c->at[k];
	}
	for (unsigned k = 0; !bad && k < c->nat; k++)
		bad |= util_json_push(v, json_pack("{s:o, s:I}", "function",
						   util_json_string(ord[k]->fn), "spikes",
						   (json_int_t)ord[k]->spikes));
	if (bad) {
		json_decref(v);
		return NULL;
	}
	return v;
}

static json_t *cause_json(const struct attrib_agg_cause *c, double share)
{
	json_t *o = json_pack("{s:o, s:s, s:I, s:I, s:f}", "cause", util_json_string(c->key),
			      "kind", attrib_kind_name(c->kind), "spikes", (json_int_t)c->spikes,
			      "excess_ns", (json_int_t)c->excess_ns, "share", share);
	int bad = !o;

	if (o) {
		bad |= util_json_set(o, "irq_at", irq_at_json(c));
		bad |= util_json_set(o, "irq_at_other", json_integer((json_int_t)c->at_other));
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int cmp_cause(const void *x, const void *y)
{
	const struct attrib_agg_cause *a = *(const struct attrib_agg_cause *const *)x;
	const struct attrib_agg_cause *b = *(const struct attrib_agg_cause *const *)y;

	if (a->excess_ns != b->excess_ns)
		return a->excess_ns > b->excess_ns ? -1 : 1;
	if (a->spikes != b->spikes)
		return a->spikes > b->spikes ? -1 : 1;
	return strcmp(a->key, b->key);
}

json_t *attrib_agg_json(const struct attrib_agg *a, const char *probe, int cpu, const char *phase,
			uint64_t threshold_ns)
{
	/* Sorted for the file; spike_causes index the sorted list. */
	const struct attrib_agg_cause **order = calloc(a->ncause ? a->ncause : 1, sizeof(*order));
	size_t *rank = calloc(a->ncause ? a->ncause : 1, sizeof(*rank));
	json_t *o = NULL, *causes = json_array(), *sc = json_array(), *top = json_array();
	uint64_t total = 0;
	int bad = 0;

	if (!order || !rank || !causes || !sc || !top)
		goto out;
	for (size_t i = 0; i < a->ncause; i++) {
		order[i] = &a->cause[i];
		total += a->cause[i].excess_ns;
	}
	qsort(order, a->ncause, sizeof(*order), cmp_cause);
	for (size_t i = 0; i < a->ncause; i++) {
		rank[order[i] - a->cause] = i;
		double share = total ? (double)order[i]->excess_ns / (double)total
				     : (double)order[i]->spikes / (double)a->attributed;
		bad |= util_json_push(causes, cause_json(order[i], share));
	}
	for (size_t i = 0; !bad && i < a->nsc; i++)
		bad |= util_json_push(sc, json_pack("[I, I]", (json_int_t)a->spike_causes[i][0],
						    (json_int_t)rank[a->spike_causes[i][1]]));
	for (unsigned i = 0; !bad && i < a->ntop; i++)
		bad |= util_json_push(top, top_json(&a->top[i]));
	if (bad)
		goto out;
	o = json_pack("{s:s, s:i, s:s, s:I, s:I, s:I, s:{s:I, s:I, s:I}}", "probe", probe, "cpu",
		      cpu, "phase", phase, "threshold_ns", (json_int_t)threshold_ns, "spikes",
		      (json_int_t)a->spikes, "attributed", (json_int_t)a->attributed,
		      "not_attributed", "events_lost", (json_int_t)a->lost, "no_events",
		      (json_int_t)a->no_events, "no_anchor", (json_int_t)a->no_anchor);
	if (o) {
		bad |= util_json_set(o, "causes", causes);
		bad |= util_json_set(o, "spike_causes", sc);
		bad |= util_json_set(o, "top", top);
		causes = sc = top = NULL;
		if (bad) {
			json_decref(o);
			o = NULL;
		}
	}
out:
	json_decref(causes);
	json_decref(sc);
	json_decref(top);
	free(order);
	free(rank);
	return o;
}

void attrib_agg_free(struct attrib_agg *a)
{
	free(a->cause);
	free(a->spike_causes);
	memset(a, 0, sizeof(*a));
}
