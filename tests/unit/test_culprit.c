// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the periodicity culprit (src/model/analysis.c): a pattern's
 * spikes are those the search itself matched (within its window of the
 * grid, not taken by an earlier pattern), so on a complete log "of" is the
 * pattern's matched count and two patterns sharing spikes count each spike
 * once; the culprit is the cause of most of them by spike_causes; with an
 * incomplete log the spikes of the pattern's intervals count; no
 * attribution (or none for phase "all", or no attributed spike of the
 * pattern): no culprit; analysis_add_culprits() on a file's analysis gives
 * what analysis_build() gives.  The report is built in memory. */
#include <config.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "report.h"
#include "tap.h"

#define S 1000000000ull
#define SPAN (100 * S)
#define MAXSP 64
#define IV (S / 10) /* 100 ms intervals */

/* Grid A: every 10 s from 3 s (cause 0, task:A); grid B: every 7.3 s from
 * 3 s (cause 1, irq:B), which meets A at 3 s (that spike is B's cause);
 * noise (cause 2, silent).  A's spike at 43 s is not attributed. */
static const double noise_s[] = { 8.3, 36.7, 51.1, 77.9 };

static uint64_t jitter(unsigned k)
{
	return (uint64_t)(k % 3) * 200000; /* 0, 0.2, 0.4 ms */
}

static bool on_grid(uint64_t t, double phase, double period)
{
	double x = (double)t / 1e9, k = floor((x - phase) / period + 0.5);
	return fabs(x - phase - k * period) < 0.01;
}

static int spike_cmp(const void *a, const void *b)
{
	const struct series_spike *x = a, *y = b;
	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

/* The report; complete: the spike log holds every spike. */
static void build(struct report *r, bool complete, bool attribution, const char *phase)
{
	struct report_series *rs;
	size_t n = 0;

	memset(r, 0, sizeof(*r));
	r->duration_ns = SPAN;
	r->config = json_pack("{s:I}", "interval_ns", (json_int_t)1000);
	rs = report_add_series(r, "timer", 0);
	if (!r->config || !rs)
		abort();
	rs->interval_ns = IV;
	struct series_interval *v = calloc(SPAN / IV, sizeof(*v));
	rs->spikes = calloc(MAXSP, sizeof(*rs->spikes));
	if (!v || !rs->spikes)
		abort();
	rs->threshold_ns = 100000;
	for (unsigned k = 0; k < 10; k++)
		rs->spikes[n++].t_ns = 3 * S + k * 10 * S + jitter(k);
	for (unsigned k = 0; k < 14; k++) {
		uint64_t t = 3 * S + k * 7300000000ull + jitter(k);
		if (!on_grid(t, 3, 10))
			rs->spikes[n++].t_ns = t;
	}
	for (unsigned k = 0; k < sizeof(noise_s) / sizeof(noise_s[0]); k++)
		rs->spikes[n++].t_ns = (uint64_t)(noise_s[k] * 1e9);
	qsort(rs->spikes, n, sizeof(*rs->spikes), spike_cmp);
	rs->nspikes = n;
	rs->spikes_total = n;
	for (size_t i = 0; i < n; i++) {
		rs->spikes[i].latency_ns = 500000;
		v[rs->spikes[i].t_ns / IV].spikes++;
		v[rs->spikes[i].t_ns / IV].count = 1000;
	}
	if (report_series_fill(rs, v, SPAN / IV))
		abort();
	free(v);
	if (!complete)
		rs->spikes_overwritten = 1; /* the analysis falls back to the intervals */
	if (!attribution)
		return;
	json_t *sc = json_array();
	for (size_t i = 0; i < n; i++) {
		uint64_t t = rs->spikes[i].t_ns;
		int cause = on_grid(t, 3, 7.3) ? 1 : on_grid(t, 3, 10) ? 0 : 2;
		if (cause == 0 && t / S == 43)
			continue; /* not attributed */
		json_array_append_new(sc, json_pack("[I, i]", (json_int_t)t, cause));
	}
	r->attribution =
	    json_pack("{s:[{s:s, s:i, s:s, s:[{s:s}, {s:s}, {s:s}], s:o}]}", "series", "probe",
		      "timer", "cpu", 0, "phase", phase, "causes", "cause", "task:A", "cause",
		      "irq:B", "cause", "silent", "spike_causes", sc);
	if (!r->attribution)
		abort();
}

static json_t *patterns(json_t *analysis)
{
	return json_object_get(json_array_get(json_object_get(analysis, "periodicity"), 0),
			       "patterns");
}

static json_t *pattern_of(json_t *pats, double period_s)
{
	json_t *p;
	size_t i;

	json_array_foreach (pats, i, p)
		if (fabs((double)json_integer_value(json_object_get(p, "period_ns")) / 1e9 -
			 period_s) < 0.05)
			return p;
	return NULL;
}

static json_int_t cget(json_t *p, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(p, "culprit"), key));
}

static const char *ccause(json_t *p)
{
	return json_string_value(json_object_get(json_object_get(p, "culprit"), "cause")) ?: "";
}

int main(void)
{
	struct report r;
	json_t *an, *a, *b;

	tap_plan(14);

	/* Complete log: both grids found, each spike counted once. */
	build(&r, true, true, "all");
	an = analysis_build(&r);
	a = pattern_of(patterns(an), 10);
	b = pattern_of(patterns(an), 7.3);
	if (!ok(a && b, "the 10 s and the 7.3 s grids are found (%zu patterns)",
		json_array_size(patterns(an))))
		return 1;
	ok(!strcmp(ccause(a), "task:A") && !strcmp(ccause(b), "irq:B"),
	   "each pattern's culprit is the cause of most of its spikes (%s, %s)", ccause(a),
	   ccause(b));
	ok(cget(a, "of") == json_integer_value(json_object_get(a, "matched")) &&
	       cget(b, "of") == json_integer_value(json_object_get(b, "matched")),
	   "of is the pattern's matched spikes: the search's own membership (%lld/%lld, %lld/%lld)",
	   (long long)cget(a, "of"), (long long)json_integer_value(json_object_get(a, "matched")),
	   (long long)cget(b, "of"), (long long)json_integer_value(json_object_get(b, "matched")));
	ok(cget(a, "of") + cget(b, "of") == 23,
	   "the spike on both grids counts in one pattern only (%lld + %lld of 23)",
	   (long long)cget(a, "of"), (long long)cget(b, "of"));
	/* A's own spikes are 9 (3 s is B's cause), one of them not attributed. */
	ok(cget(a, "spikes") == 8, "the 10 s culprit holds its 8 attributed spikes (%lld)",
	   (long long)cget(a, "spikes"));
	ok(cget(b, "spikes") == cget(b, "of"),
	   "the 7.3 s culprit holds all of its spikes (%lld of %lld)", (long long)cget(b, "spikes"),
	   (long long)cget(b, "of"));

	/* The same culprits for a file whose analysis came without them. */
	json_t *att = r.attribution;
	r.attribution = NULL;
	json_t *plain = analysis_build(&r);
	ok(plain && !json_object_get(json_array_get(patterns(plain), 0), "culprit"),
	   "without attribution no pattern has a culprit");
	r.attribution = att;
	r.analysis = plain;
	ok(!analysis_add_culprits(&r) && json_equal(r.analysis, an),
	   "analysis_add_culprits() adds what analysis_build() computes");
	/* Another build's patterns (here: a period that differs) get none. */
	json_object_set_new(json_array_get(patterns(r.analysis), 0), "period_ns",
			    json_integer(12345));
	json_object_del(json_array_get(patterns(r.analysis), 0), "culprit");
	ok(!analysis_add_culprits(&r) &&
	       !json_object_get(json_array_get(patterns(r.analysis), 0), "culprit"),
	   "patterns this build does not find again get no culprit");
	json_decref(an);
	report_free(&r);

	/* Only a per-phase entry: no culprit (the culprit is the whole run's). */
	build(&r, true, true, "load");
	an = analysis_build(&r);
	ok(an && !json_object_get(json_array_get(patterns(an), 0), "culprit"),
	   "attribution without phase \"all\": no culprit");
	json_decref(an);
	report_free(&r);

	/* No attributed spike in a pattern: no culprit for it. */
	build(&r, true, true, "all");
	json_array_clear(json_object_get(
	    json_array_get(json_object_get(r.attribution, "series"), 0), "spike_causes"));
	an = analysis_build(&r);
	ok(an && json_array_size(patterns(an)) &&
	       !json_object_get(json_array_get(patterns(an), 0), "culprit"),
	   "a pattern none of whose spikes was attributed has no culprit");
	json_decref(an);
	report_free(&r);

	/* Incomplete log: the pattern's intervals, and the logged spikes in them. */
	build(&r, false, true, "all");
	an = analysis_build(&r);
	json_t *per = json_array_get(json_object_get(an, "periodicity"), 0);
	a = pattern_of(patterns(an), 10);
	b = pattern_of(patterns(an), 7.3);
	ok(!strcmp(json_string_value(json_object_get(per, "source")), "intervals with spikes") &&
	       a && b,
	   "incomplete log: the grids are found in the intervals with spikes");
	ok(a && b && !strcmp(ccause(a), "task:A") && !strcmp(ccause(b), "irq:B"),
	   "incomplete log: the same culprits");
	/* One spike per interval here: the pattern's intervals are its spikes. */
	ok(a && b && cget(a, "of") == json_integer_value(json_object_get(a, "matched")) &&
	       cget(b, "of") == json_integer_value(json_object_get(b, "matched")),
	   "incomplete log: of counts the logged spikes of the pattern's intervals");
	json_decref(an);
	report_free(&r);
	return tap_failed ? 1 : 0;
}
