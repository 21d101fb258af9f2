// SPDX-License-Identifier: GPL-2.0-or-later
/* analysis: periodicity, worst intervals and top spikes (see analysis.h). */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "attribution.h"
#include "periodicity.h"
#include "util.h"

static json_t *ns(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* A result's sampling period: the timing precision of its spike times. */
static uint64_t probe_period(const struct report *r, const char *probe)
{
	json_int_t v = json_integer_value(json_object_get(r->periods, probe));

	if (v <= 0)
		v = json_integer_value(json_object_get(r->config, "interval_ns"));
	return v > 0 ? (uint64_t)v : 1000;
}

static json_t *series_id(const struct report_series *rs)
{
	return json_pack("{s:s, s:i}", "probe", rs->probe, "cpu", rs->cpu);
}

/* The culprit of each periodic pattern: the cause of most of its spikes.
 *
 * A spike belongs to pattern k by the search's own rule (periodicity.h,
 * halfwidth_s): its event time t is within halfwidth_s of the nearest point
 * of the pattern's grid, and no earlier pattern took it.  When the times are
 * those of the intervals that held spikes (an incomplete log), an interval
 * belongs by its midpoint and so do the logged spikes in it.  The pattern's
 * spikes are matched by t_ns to the attribution's spike_causes; "of" counts
 * all of them, attributed or not, so 19 of 20 says one was not explained.
 * No attributed spike: no culprit. */
struct pattern_events {
	const struct report_series *rs;
	bool complete; /* t[j] is spike j of the log; else interval src[j] */
	const double *t;
	const size_t *src;
	size_t n;
	double span;
	bool *taken;	   /* n: taken by an earlier pattern */
	bool *member;	   /* n: scratch */
	size_t *per_cause; /* ncauses: scratch */
};

static json_t *culprit_json(struct pattern_events *pe, json_t *as,
			    const struct attribution_spike *sc, size_t nsc,
			    const struct periodicity_pattern *p)
{
	json_t *causes = json_object_get(as, "causes");
	size_t ncauses = json_array_size(causes), of = 0, best = SIZE_MAX;

	for (size_t j = 0; j < pe->n; j++) {
		double t = pe->t[j], c = floor((t - p->phase_s) / p->period_s + 0.5);
		pe->member[j] = !pe->taken[j] && t >= 0 && t <= pe->span &&
				fabs(t - p->phase_s - c * p->period_s) <= p->halfwidth_s;
		if (pe->member[j])
			pe->taken[j] = true;
	}
	memset(pe->per_cause, 0, (ncauses ? ncauses : 1) * sizeof(*pe->per_cause));
	for (size_t i = 0; i < pe->rs->nspikes; i++) {
		const struct series_spike *sp = &pe->rs->spikes[i];
		bool in;
		if (pe->complete) {
			in = i < pe->n && pe->member[i];
		} else {
			/* the member intervals, by index: src is increasing */
			size_t iv = sp->t_ns / pe->rs->interval_ns, lo = 0, hi = pe->n;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (pe->src[mid] < iv)
					lo = mid + 1;
				else
					hi = mid;
			}
			in = lo < pe->n && pe->src[lo] == iv && pe->member[lo];
		}
		if (!in)
			continue;
		of++;
		long k = attribution_cause_at(sc, nsc, sp->t_ns);
		if (k >= 0 && (size_t)k < ncauses)
			pe->per_cause[k]++;
	}
	for (size_t k = 0; k < ncauses; k++)
		if (pe->per_cause[k] &&
		    (best == SIZE_MAX || pe->per_cause[k] > pe->per_cause[best]))
			best = k; /* ties: the earlier cause, the one with more excess latency */
	if (best == SIZE_MAX)
		return NULL;
	return json_pack("{s:O, s:I, s:I}", "cause",
			 json_object_get(json_array_get(causes, best), "cause"), "spikes",
			 (json_int_t)pe->per_cause[best], "of", (json_int_t)of);
}

/* Culprits for the found patterns into pats (an array of their objects),
 * when the series has attribution.  Returns 0 or -ENOMEM. */
static int culprits(const struct report *r, struct pattern_events *pe,
		    const struct periodicity_pattern *pat, int found, json_t *pats)
{
	json_t *as = attribution_series(r, pe->rs->probe, pe->rs->cpu, "all");
	size_t nsc = 0, ncauses = json_array_size(json_object_get(as, "causes"));
	struct attribution_spike *sc;
	int rc = -ENOMEM;

	if (!as || !found)
		return 0;
	sc = attribution_spikes(as, &nsc);
	pe->taken = calloc(pe->n ? pe->n : 1, sizeof(*pe->taken));
	pe->member = calloc(pe->n ? pe->n : 1, sizeof(*pe->member));
	pe->per_cause = calloc(ncauses ? ncauses : 1, sizeof(*pe->per_cause));
	if ((nsc == 0 && json_array_size(json_object_get(as, "spike_causes"))) || !pe->taken ||
	    !pe->member || !pe->per_cause)
		goto out;
	for (int i = 0; i < found; i++) {
		json_t *c = culprit_json(pe, as, sc, nsc, &pat[i]);
		if (c && json_object_set_new(json_array_get(pats, (size_t)i), "culprit", c))
			goto out;
	}
	rc = 0;
out:
	free(sc);
	free(pe->taken);
	free(pe->member);
	free(pe->per_cause);
	return rc;
}

static json_t *periodicity_json(const struct report *r, const struct report_series *rs)
{
	struct periodicity_pattern pat[ANALYSIS_MAX_PATTERNS];
	json_t *o = series_id(rs), *pats = json_array();
	bool complete = !rs->spikes_overwritten && !rs->spikes_unlogged;
	/* A checkpoint's series can reach past its statistics (serieslog.h). */
	double span = (double)(r->series_until_ns > r->duration_ns ? r->series_until_ns
								   : r->duration_ns) /
		      1e9,
	       resolution;
	const char *source;
	size_t n = 0, *src = NULL;
	double *t;
	int found;

	if (!o || !pats)
		goto fail;
	/* Spike times when the log holds every spike; otherwise the intervals
	 * that held spikes (coarser, but complete). */
	if (complete) {
		source = "spike log";
		resolution = (double)probe_period(r, rs->probe) / 1e9;
		t = malloc((rs->nspikes ? rs->nspikes : 1) * sizeof(*t));
		for (size_t i = 0; t && i < rs->nspikes; i++)
			t[n++] = (double)rs->spikes[i].t_ns / 1e9;
	} else {
		source = "intervals with spikes";
		resolution = (double)rs->interval_ns / 1e9;
		t = malloc((rs->n ? rs->n : 1) * sizeof(*t));
		src = malloc((rs->n ? rs->n : 1) * sizeof(*src));
		struct series_cursor c;
		struct series_interval iv;
		series_cursor_init(&c, rs->st, 0);
		for (size_t i = 0; t && src && series_cursor_next(&c, &iv); i++)
			if (iv.spikes) {
				src[n] = i;
				t[n++] = ((double)i + 0.5) * resolution;
			}
	}
	if (!t || (!complete && !src))
		goto fail_t;
	found = periodicity_find(t, n, span, resolution, pat, ANALYSIS_MAX_PATTERNS);
	if (found < 0)
		found = 0;
	for (int i = 0; i < found; i++)
		if (util_json_push(
			pats, json_pack("{s:I, s:I, s:I, s:f, s:i, s:i, s:i, s:f}", "period_ns",
					(json_int_t)llround(pat[i].period_s * 1e9), "jitter_ns",
					(json_int_t)llround(pat[i].jitter_s * 1e9), "phase_ns",
					(json_int_t)llround(pat[i].phase_s * 1e9), "explained",
					round(pat[i].explained * 1e4) / 1e4, "matched",
					(int)pat[i].matched, "cycles", (int)pat[i].cycles,
					"cycles_hit", (int)pat[i].cycles_hit, "log10_p",
					round(pat[i].log10_p * 100) / 100)))
			goto fail_t;
	struct pattern_events pe = { rs, complete, t, src, n, span, NULL, NULL, NULL };
	if (culprits(r, &pe, pat, found, pats))
		goto fail_t;
	free(t);
	free(src);
	/* every value checked: an entry with a key missing is an error */
	int bad = util_json_set(o, "source", json_string(source));
	bad |= util_json_set(o, "events", json_integer((json_int_t)n));
	bad |= util_json_set(o, "verdict",
			     json_string(!rs->threshold_ns ? "no spike threshold was set"
					 : found	   ? "periodic"
					 : n == 0	   ? "no spikes"
							   : "no periodic pattern"));
	if (bad)
		goto fail;
	if (util_json_set(o, "patterns", pats)) {
		json_decref(o);
		return NULL;
	}
	return o;
fail_t:
	free(t);
	free(src);
fail:
	json_decref(o);
	json_decref(pats);
	return NULL;
}

struct ref {
	const struct report_series *rs;
	size_t i; /* interval index */
	struct series_interval v;
};

static int ref_cmp(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	uint64_t mx = x->v.max_ns, my = y->v.max_ns;

	return mx < my ? 1 : mx > my ? -1 : 0;
}

/* Interval i (< rs->n); v: its values when the caller has them, else NULL. */
static json_t *interval_json(const struct report_series *rs, size_t i,
			     const struct series_interval *v)
{
	struct series_interval got;

	if (!v) {
		series_store_get(rs->st, i, &got);
		v = &got;
	}
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "index", (json_int_t)i, "start_ns",
			 (json_int_t)(i * rs->interval_ns), "end_ns",
			 (json_int_t)((i + 1) * rs->interval_ns), "count", (json_int_t)v->count,
			 "max_ns", (json_int_t)v->max_ns, "spikes", (json_int_t)v->spikes, "missed",
			 (json_int_t)v->missed);
}

/* The ANALYSIS_WORST_INTERVALS largest interval maxima over all series:
 * a partial selection keeps it O(n) in the number of intervals. */
static json_t *worst_intervals_json(const struct report *r)
{
	struct ref best[ANALYSIS_WORST_INTERVALS];
	unsigned nb = 0;
	json_t *a = json_array();

	for (size_t s = 0; s < r->nseries; s++) {
		struct series_cursor cur;
		struct ref c = { &r->series[s], 0, { 0 } };
		series_cursor_init(&cur, c.rs->st, 0);
		for (; series_cursor_next(&cur, &c.v); c.i++) {
			if (!c.v.count)
				continue;
			if (nb < ANALYSIS_WORST_INTERVALS) {
				best[nb++] = c;
			} else if (ref_cmp(&c, &best[nb - 1]) < 0) {
				best[nb - 1] = c;
			} else {
				continue;
			}
			qsort(best, nb, sizeof(*best), ref_cmp);
		}
	}
	for (unsigned k = 0; a && k < nb; k++) {
		json_t *o = series_id(best[k].rs),
		       *iv = interval_json(best[k].rs, best[k].i, &best[k].v);
		int bad = !o || !iv || json_object_update(o, iv);
		json_decref(iv);
		if (bad)
			json_decref(o);
		if (bad || util_json_push(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

struct top {
	const struct report_series *rs;
	const struct report_result *res;
	uint64_t t_ns, latency_ns;
};

static int top_cmp(const void *a, const void *b)
{
	const struct top *x = a, *y = b;

	if (x->latency_ns != y->latency_ns)
		return x->latency_ns < y->latency_ns ? 1 : -1;
	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

/* The phase a top sample belongs to: the per-phase result of the same
 * probe and CPU whose own top list holds it. */
static const char *top_phase(const struct report *r, const struct top *tp)
{
	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *res = &r->results[i];
		if (res->cpu != tp->rs->cpu || strcmp(res->probe, tp->rs->probe) ||
		    !strcmp(res->phase, "all"))
			continue;
		for (unsigned k = 0; k < res->ntop; k++)
			if (res->top[k].t_ns == tp->t_ns &&
			    res->top[k].latency_ns == tp->latency_ns)
				return res->phase;
	}
	return tp->res->phase;
}

static json_t *top_spikes_json(const struct report *r)
{
	struct top *all = NULL;
	size_t n = 0;
	json_t *a = json_array();

	for (size_t s = 0; s < r->nseries; s++) {
		const struct report_series *rs = &r->series[s];
		/* The series' result over the whole run: phase "all", or the
		 * only phase there is. */
		const struct report_result *res = NULL;
		for (size_t i = 0; i < r->nresults; i++)
			if (r->results[i].cpu == rs->cpu &&
			    !strcmp(r->results[i].probe, rs->probe) &&
			    (!res || !strcmp(r->results[i].phase, "all")))
				res = &r->results[i];
		if (!res || !res->ntop)
			continue;
		struct top *more = realloc(all, (n + res->ntop) * sizeof(*all));
		if (!more)
			goto fail;
		all = more;
		for (unsigned k = 0; k < res->ntop; k++)
			all[n++] =
			    (struct top){ rs, res, res->top[k].t_ns, res->top[k].latency_ns };
	}
	if (n)
		qsort(all, n, sizeof(*all), top_cmp);
	for (size_t k = 0; a && k < n && k < ANALYSIS_TOP_SPIKES; k++) {
		const struct top *tp = &all[k];
		size_t i = tp->t_ns / tp->rs->interval_ns;
		json_t *o = series_id(tp->rs);
		int bad = !o;
		if (o) {
			bad |= util_json_set(o, "t_ns", ns(tp->t_ns));
			bad |= util_json_set(o, "latency_ns", ns(tp->latency_ns));
			bad |= util_json_set(o, "phase", util_json_string(top_phase(r, tp)));
			bad |= util_json_set(o, "interval",
					     i < tp->rs->n ? interval_json(tp->rs, i, NULL)
							   : json_null());
		}
		if (bad)
			json_decref(o);
		if (bad || util_json_push(a, o))
			goto fail;
	}
	free(all);
	return a;
fail:
	free(all);
	json_decref(a);
	return NULL;
}

json_t *analysis_build(const struct report *r)
{
	json_t *o = json_object(), *per = json_array();

	if (!o || !per)
		goto fail;
	for (size_t s = 0; s < r->nseries; s++) {
		json_t *p = periodicity_json(r, &r->series[s]);
		if (!p || json_array_append_new(per, p))
			goto fail;
	}
	if (util_json_set(o, "periodicity", per)) {
		per = NULL;
		goto fail;
	}
	per = NULL;
	json_t *worst = worst_intervals_json(r), *top = top_spikes_json(r);
	if (!worst || !top) {
		json_decref(worst);
		json_decref(top);
		goto fail;
	}
	if (util_json_set(o, "worst_intervals", worst) | util_json_set(o, "top_spikes", top))
		goto fail;
	return o;
fail:
	json_decref(o);
	json_decref(per);
	return NULL;
}

/* Same pattern?  The fields a run wrote against those recomputed. */
static bool same_pattern(json_t *a, json_t *b)
{
	static const char *const keys[] = { "period_ns", "phase_ns", "matched", "cycles_hit" };

	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!json_equal(json_object_get(a, keys[i]), json_object_get(b, keys[i])))
			return false;
	return true;
}

int analysis_add_culprits(struct report *r)
{
	json_t *per = json_object_get(r->analysis, "periodicity"), *a;
	size_t i;

	if (!r->attribution)
		return 0;
	json_array_foreach (per, i, a) {
		json_t *pats = json_object_get(a, "patterns"), *p, *fresh, *fp;
		const struct report_series *rs = NULL;
		bool missing = false;
		size_t k;

		json_array_foreach (pats, k, p)
			missing = missing || !json_object_get(p, "culprit");
		/* analysis_build() writes entry i for series i: that one first */
		for (size_t s = 0; missing && !rs && s <= r->nseries; s++) {
			size_t j = s == 0 ? i : s - 1;
			if (j < r->nseries &&
			    r->series[j].cpu == json_integer_value(json_object_get(a, "cpu")) &&
			    !strcmp(r->series[j].probe,
				    json_string_value(json_object_get(a, "probe")) ?: ""))
				rs = &r->series[j];
		}
		if (!rs || !attribution_series(r, rs->probe, rs->cpu, "all"))
			continue;
		if (!(fresh = periodicity_json(r, rs)))
			return -ENOMEM;
		fp = json_object_get(fresh, "patterns");
		/* Only where this build finds the very patterns the file holds:
		 * another build's patterns get no culprit rather than a guess. */
		bool same = json_array_size(fp) == json_array_size(pats);
		json_array_foreach (pats, k, p)
			same = same && same_pattern(p, json_array_get(fp, k));
		json_array_foreach (pats, k, p) {
			json_t *c = json_object_get(json_array_get(fp, k), "culprit");
			if (same && c && !json_object_get(p, "culprit") &&
			    json_object_set(p, "culprit", c)) {
				json_decref(fresh);
				return -ENOMEM;
			}
		}
		json_decref(fresh);
	}
	return 0;
}
