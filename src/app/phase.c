// SPDX-License-Identifier: GPL-2.0-or-later
/* phase: phase plan, boundaries and per-phase system deltas. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "phase.h"
#include "util.h"
#include "sysdelta.h"

#define PHASE_TOP_INTERRUPTS 10

void phase_plan_init(struct phase_plan *p, const struct run_config *cfg)
{
	memset(p, 0, sizeof(*p));
	p->rotate = cfg->rotate;
	p->phase_ns = cfg->phase_ns;
	if (cfg->ab) {
		/* One phase per round, in ABBA order (A B B A A B B A ...): a
		 * drift that is linear in time adds the same to both arms.  The
		 * loads run throughout (same mask: the supervisor keeps them). */
		unsigned seen[2] = { 0, 0 };
		p->rotate = true;
		p->phase_ns = cfg->round_ns;
		p->n = 2 * cfg->ab_rounds;
		for (unsigned i = 0; i < p->n; i++) {
			unsigned b = i % 4 == 1 || i % 4 == 2;
			snprintf(p->name[i], sizeof(p->name[0]), "%c%u", b ? 'B' : 'A', ++seen[b]);
			p->mask[i] = cfg->nloads ? (1u << cfg->nloads) - 1 : 0;
		}
	} else if (!cfg->rotate) {
		p->n = 1;
		snprintf(p->name[0], sizeof(p->name[0]), "all");
		p->mask[0] = cfg->nloads ? (1u << cfg->nloads) - 1 : 0;
	} else {
		p->n = cfg->nloads + 1;
		snprintf(p->name[0], sizeof(p->name[0]), "idle");
		for (unsigned i = 0; i < cfg->nloads; i++) {
			snprintf(p->name[i + 1], sizeof(p->name[0]), "%s", cfg->loads[i].spec);
			p->mask[i + 1] = 1u << i;
		}
	}
	for (unsigned i = 0; i < p->n; i++) {
		p->occurrences[i] = json_array();
		p->sys_acc[i] = json_object();
	}
}

char phase_ab_arm(const struct phase_plan *p, unsigned idx)
{
	char c = p->name[idx][0];
	return c == 'A' || c == 'B' ? c : 0;
}

static void open_at(struct phase_plan *p, uint64_t t_ns)
{
	json_decref(p->sys_last);
	p->sys_last = sysdelta_read();
	p->cur_start = t_ns;
	p->open = true;
}

static void close_at(struct phase_plan *p, unsigned cur, uint64_t t_ns)
{
	json_t *now;

	if (!p->open)
		return;
	p->open = false;
	now = sysdelta_read();
	/* NULL: out of memory (an unreadable table is only left out) */
	if (!now || !p->sys_last || sysdelta_accumulate(p->sys_acc[cur], p->sys_last, now))
		p->lost = true;
	json_decref(now);
	p->time_ns[cur] += t_ns - p->cur_start;
	if (util_json_push(p->occurrences[cur],
			   json_pack("[I, I]", (json_int_t)p->cur_start, (json_int_t)t_ns)))
		p->lost = true;
}

void phase_begin(struct phase_plan *p, unsigned idx, uint64_t t_ns)
{
	open_at(p, t_ns);
	__atomic_store_n(&p->current, idx, __ATOMIC_RELAXED);
}

void phase_end(struct phase_plan *p, uint64_t t_ns)
{
	close_at(p, p->current, t_ns);
}

void phase_switch(struct phase_plan *p, unsigned next, uint64_t t_ns)
{
	unsigned old = p->current;

	/* The probes' attribution moves first, at t_ns: reading the system
	 * counters below takes milliseconds (more under a sanitizer), and a
	 * sample in between would be counted in the old phase while its time
	 * falls in the new phase's occurrence, so that the headline and the
	 * phase bands disagreed about the worst sample of a switch. */
	__atomic_store_n(&p->current, next, __ATOMIC_RELAXED);
	close_at(p, old, t_ns);
	open_at(p, t_ns);
}

unsigned phase_at(const struct phase_plan *p, uint64_t t_ns)
{
	if (!p->open || t_ns >= p->cur_start)
		return p->current;
	for (unsigned k = 0; k < p->n; k++) {
		size_t i;
		json_t *occ;
		json_array_foreach (p->occurrences[k], i, occ) {
			uint64_t a = (uint64_t)json_integer_value(json_array_get(occ, 0));
			uint64_t b = (uint64_t)json_integer_value(json_array_get(occ, 1));
			if (t_ns >= a && t_ns < b)
				return k;
		}
	}
	return p->current;
}

/* The time phase k has been running in its open occurrence at now_ns (0
 * when it is not the open one): a live report counts it, or a run's only
 * phase would say 0 s until its end. */
static uint64_t open_ns(const struct phase_plan *p, unsigned k, uint64_t now_ns)
{
	if (!p->open || k != p->current || now_ns == PHASE_CLOSED || now_ns <= p->cur_start)
		return 0;
	return now_ns - p->cur_start;
}

uint64_t phase_load_active_ns(const struct phase_plan *p, unsigned i, uint64_t now_ns)
{
	uint64_t t = 0;

	for (unsigned k = 0; k < p->n; k++)
		if (p->mask[k] & (1u << i))
			t += p->time_ns[k] + open_ns(p, k, now_ns);
	return t;
}

/* NULL when out of memory (now or when an occurrence closed): every value
 * is checked, a phase is never silently missing from the report.  The
 * names the user gave are made valid UTF-8. */
json_t *phase_report(const struct phase_plan *p, const struct run_config *cfg, uint64_t now_ns)
{
	json_t *arr = json_array();
	int bad = !arr || p->lost;

	for (unsigned k = 0; !bad && k < p->n; k++) {
		json_t *loads = json_array();
		bad |= !loads;
		for (unsigned i = 0; !bad && i < cfg->nloads; i++)
			if (p->mask[k] & (1u << i))
				bad |= util_json_push(loads, util_json_string(cfg->loads[i].spec));
		uint64_t open = open_ns(p, k, now_ns);
		/* the open occurrence up to now, in a copy: the plan's list only
		 * gets it when it closes */
		json_t *occ = open ? json_copy(p->occurrences[k]) : json_incref(p->occurrences[k]);
		bad |= !occ;
		if (!bad && open)
			bad |= util_json_push(
			    occ, json_pack("[I, I]", (json_int_t)p->cur_start, (json_int_t)now_ns));
		if (bad) {
			json_decref(loads);
			json_decref(occ);
			break;
		}
		bad |= util_json_push(
		    arr, json_pack("{s:o, s:o, s:I, s:o, s:o}", "name",
				   util_json_string(p->name[k]), "loads", loads, "time_ns",
				   (json_int_t)(p->time_ns[k] + open), "occurrences", occ, "system",
				   sysdelta_summary(p->sys_acc[k], PHASE_TOP_INTERRUPTS)
				       ?: json_object()));
	}
	if (bad) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

int phase_never_ran(const struct phase_plan *p, unsigned from, char *name, size_t len)
{
	for (unsigned k = from; k < p->n; k++)
		if (!p->time_ns[k] && !json_array_size(p->occurrences[k])) {
			snprintf(name, len, "%s", p->name[k]);
			return (int)k;
		}
	return -1;
}

void phase_plan_free(struct phase_plan *p)
{
	for (unsigned i = 0; i < p->n; i++) {
		json_decref(p->occurrences[i]);
		json_decref(p->sys_acc[i]);
	}
	json_decref(p->sys_last);
	memset(p, 0, sizeof(*p));
}
