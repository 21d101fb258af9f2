// SPDX-License-Identifier: GPL-2.0-or-later
/* report: building and freeing the in-memory model. */
#include <config.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "util.h"

const double report_pct[REPORT_NPCT] = { 50, 90, 99, 99.9, 99.99, 99.999 };
const char *const report_pct_key[REPORT_NPCT] = {
	"p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "p99_999_ns",
};

static const char *const status_names[] = {
	[REPORT_COMPLETE] = "complete",	      /* ran to its end */
	[REPORT_INTERRUPTED] = "interrupted", /* by a signal */
	[REPORT_RUNNING] = "running",	      /* a checkpoint */
	[REPORT_FAILED] = "failed",	      /* a probe failed */
	[REPORT_DISTURBED] = "disturbed",     /* report_foreign_disturbs */
};

const char *report_status_name(enum report_status s)
{
	return status_names[s];
}

int report_status_parse(const char *name, enum report_status *out)
{
	for (unsigned i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if (strcmp(status_names[i], name) == 0) {
			*out = (enum report_status)i;
			return 0;
		}
	return -EINVAL;
}

bool report_foreign_disturbs(uint64_t foreign, uint64_t received)
{
	/* One stray wake-up in a hundred samples is no longer noise: the
	 * tail percentiles are made of fewer samples than that. */
	return foreign > 0 && (double)foreign * 100 > (double)received * REPORT_FOREIGN_PCT;
}

int report_warn(struct report *r, const char *fmt, ...)
{
	va_list ap;

	if (util_grow(&r->warnings, r->nwarnings, sizeof(*r->warnings)))
		return -ENOMEM;
	va_start(ap, fmt);
	int n = vasprintf(&r->warnings[r->nwarnings], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	r->nwarnings++;
	return 0;
}

struct report_result *report_add_result(struct report *r, bool aggregate, const char *probe,
					int cpu, const char *phase)
{
	struct report_result **arr = aggregate ? &r->aggregates : &r->results;
	size_t *n = aggregate ? &r->naggregates : &r->nresults;

	if (util_grow(arr, *n, sizeof(**arr)))
		return NULL;
	struct report_result *res = &(*arr)[*n];
	memset(res, 0, sizeof(*res));
	res->cpu = cpu;
	res->probe = strdup(probe);
	res->phase = strdup(phase);
	if (!res->probe || !res->phase) {
		free(res->probe);
		free(res->phase);
		return NULL;
	}
	(*n)++;
	return res;
}

int report_result_from_recorder(struct report_result *res, const struct recorder *rec)
{
	res->count = rec->count;
	res->missed = rec->missed;
	res->discarded = rec->discarded;
	res->discarded_known = true;
	free(res->hist);
	if (!(res->hist = histogram_sparse_from(&rec->hist)))
		return -ENOMEM;
	res->ntop = 0;
	free(res->top);
	res->top = NULL;
	if (rec->count == 0)
		return 0;
	res->min = rec->min;
	res->max = rec->max;
	res->max_at = rec->max_at;
	res->mean = recorder_mean(rec);
	res->stddev = recorder_stddev(rec);
	for (unsigned i = 0; i < REPORT_NPCT; i++)
		res->pct[i] = histogram_percentile(&rec->hist, report_pct[i], rec->min, rec->max);
	if (rec->top_n) {
		res->top = malloc(rec->top_n * sizeof(*res->top));
		if (!res->top)
			return -ENOMEM;
		res->ntop = recorder_top_sorted(rec, res->top);
	}
	return 0;
}

/* Rebuild a recorder from a result so that aggregates use the same merge
 * and statistics code as live data.  The sum of squares is not in the
 * model, so it is reconstructed from mean and stddev (exact enough for a
 * combined stddev). */
static void recorder_from_result(struct recorder *rec, const struct report_result *res)
{
	rec->count = res->count;
	rec->missed = res->missed;
	rec->discarded = res->discarded;
	/* Densified into the recorder: one at a time (report_build_aggregates). */
	histogram_reset(&rec->hist);
	if (res->hist) /* else an imported result without one (REPORT_UNKNOWN_PCT) */
		histogram_sparse_add_to(res->hist, &rec->hist);
	if (!res->count)
		return;
	rec->min = res->min;
	rec->max = res->max;
	rec->max_at = res->max_at;
	/* Saturated: a file's mean and stddev are checked against its min and
	 * max, not against what a sum over its count can hold (the fuzzer's
	 * 6.5e40 squared nanoseconds); a live recorder never gets near. */
	long double n = (long double)res->count, m = (long double)res->mean,
		    s = (long double)res->stddev;
	long double sum = m * n, sumsq = (s * s + m * m) * n;
	rec->sum = sum < 0x1p64L ? (uint64_t)sum : UINT64_MAX;
	rec->sumsq = sumsq < 0x1p128L ? (unsigned __int128)sumsq : ~(unsigned __int128)0;
}

int report_build_aggregates(struct report *r)
{
	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *a = &r->results[i];
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(r->results[j].probe, a->probe) &&
			       !strcmp(r->results[j].phase, a->phase);
		if (seen)
			continue;

		unsigned k = 0;
		for (size_t j = i; j < r->nresults; j++)
			if (r->results[j].ntop > k)
				k = r->results[j].ntop;
		json_t *counters = NULL;
		struct recorder *acc = recorder_alloc(k, -1);
		struct recorder *one = recorder_alloc(0, -1);
		struct report_result *agg = NULL;
		unsigned unknown = 0;
		bool discarded_known = true;
		int rc = -ENOMEM;

		if (!acc || !one)
			goto out;
		for (size_t j = i; j < r->nresults; j++) {
			const struct report_result *b = &r->results[j];
			if (strcmp(b->probe, a->probe) || strcmp(b->phase, a->phase))
				continue;
			if (b->counters) {
				const char *key;
				json_t *v;
				if (!counters && !(counters = json_object()))
					goto out;
				json_object_foreach (b->counters, key, v) {
					json_int_t cur =
					    json_integer_value(json_object_get(counters, key));
					/* a sum missing would be a count silently lost */
					if (util_json_set(
						counters, key,
						json_integer(cur + json_integer_value(v))))
						goto out;
				}
			}
			if (b->count)
				unknown |= b->unknown;
			discarded_known &= b->discarded_known;
			recorder_init(one, 0, NULL);
			recorder_from_result(one, b);
			recorder_merge(acc, one);
			for (unsigned t = 0; t < b->ntop; t++)
				if (b->top[t].latency_ns >= acc->top_floor)
					recorder_top_insert(acc, b->top[t].latency_ns,
							    b->top[t].t_ns);
		}
		agg = report_add_result(r, true, a->probe, REPORT_CPU_ALL, a->phase);
		if (!agg)
			goto out;
		rc = report_result_from_recorder(agg, acc);
		agg->unknown = unknown; /* what one CPU lacks, the sum lacks */
		agg->discarded_known = discarded_known;
		agg->counters = counters; /* the aggregate owns them now */
		counters = NULL;
	out:
		json_decref(counters);
		recorder_free(acc);
		recorder_free(one);
		if (rc)
			return rc;
	}
	return 0;
}

struct report_series *report_add_series(struct report *r, const char *probe, int cpu)
{
	struct report_series *s;

	if (util_grow(&r->series, r->nseries, sizeof(*r->series)))
		return NULL;
	s = &r->series[r->nseries];
	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	if (!(s->probe = strdup(probe)))
		return NULL;
	r->nseries++;
	return s;
}

int report_series_fill(struct report_series *rs, const struct series_interval *v, size_t n)
{
	if (!rs->st && !(rs->st = calloc(1, sizeof(*rs->st))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (series_store_append(rs->st, &v[i]))
			return -ENOMEM;
	rs->n = rs->st->n;
	return 0;
}

static int cpu_sort(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

size_t report_cpu_count(const struct report *r)
{
	int *v = malloc((r->nresults + 1) * sizeof(*v));
	size_t n = 0, k = 0;

	for (size_t i = 0; i < r->nresults; i++)
		if (r->results[i].cpu >= 0 && v)
			v[k++] = r->results[i].cpu;
		else if (r->results[i].cpu >= 0)
			n++; /* out of memory: every result counts, at worst too many */
	if (!v)
		return n;
	qsort(v, k, sizeof(*v), cpu_sort);
	for (size_t i = 0; i < k; i++)
		n += !i || v[i] != v[i - 1];
	free(v);
	return n;
}

bool report_result_worse(const struct report_result *a, const struct report_result *b)
{
	uint64_t pa = (a->unknown & REPORT_UNKNOWN_PCT) ? 0 : a->pct[3];
	uint64_t pb = (b->unknown & REPORT_UNKNOWN_PCT) ? 0 : b->pct[3];

	if (!a->count || !b->count)
		return a->count && !b->count   ? true
		       : !a->count && b->count ? false
					       : a->cpu < b->cpu;
	if (a->max != b->max)
		return a->max > b->max;
	if (pa != pb)
		return pa > pb;
	return a->cpu < b->cpu;
}

size_t report_worst_cpus(const struct report *r, const char *probe, const char *phase,
			 const struct report_result **out, size_t n)
{
	size_t total = 0, have = 0;

	/* An insertion into the n kept: O(results x n), n is small. */
	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *res = &r->results[i];
		size_t k;
		if (res->cpu < 0 || strcmp(res->probe, probe) || strcmp(res->phase, phase))
			continue;
		total++;
		if (have == n && (!n || !report_result_worse(res, out[n - 1])))
			continue;
		k = have < n ? have++ : n - 1;
		for (; k > 0 && report_result_worse(res, out[k - 1]); k--)
			out[k] = out[k - 1];
		out[k] = res;
	}
	return total;
}

static void result_free(struct report_result *res)
{
	json_decref(res->counters);
	free(res->probe);
	free(res->phase);
	free(res->top);
	free(res->hist);
}

void report_clear_results(struct report *r, size_t keep_warnings)
{
	for (size_t i = 0; i < r->nresults; i++)
		result_free(&r->results[i]);
	for (size_t i = 0; i < r->naggregates; i++)
		result_free(&r->aggregates[i]);
	free(r->results);
	free(r->aggregates);
	r->results = r->aggregates = NULL;
	r->nresults = r->naggregates = 0;
	for (size_t i = 0; i < r->nseries; i++) {
		free(r->series[i].probe);
		if (!r->series[i].borrowed) {
			if (r->series[i].st)
				series_store_free(r->series[i].st);
			free(r->series[i].st);
			free(r->series[i].spikes);
			free(r->series[i].quant);
		}
	}
	free(r->series);
	r->series = NULL;
	r->nseries = 0;
	json_decref(r->analysis);
	json_decref(r->tweaks);
	json_decref(r->ab);
	json_decref(r->attribution);
	json_decref(r->attribution_index);
	json_decref(r->series_log);
	json_decref(r->on_spike);
	r->on_spike = NULL;
	r->analysis = r->tweaks = r->ab = r->attribution = r->attribution_index = NULL;
	r->series_log = NULL;
	while (r->nwarnings > keep_warnings)
		free(r->warnings[--r->nwarnings]);
	json_decref(r->config);
	json_decref(r->periods);
	json_decref(r->loads);
	json_decref(r->phases);
	r->config = r->periods = r->loads = r->phases = NULL;
}

void report_free(struct report *r)
{
	report_clear_results(r, 0);
	free(r->warnings);
	for (int i = 0; i < r->argc; i++)
		free(r->argv[i]);
	free(r->argv);
	free(r->tool_name);
	free(r->tool_version);
	json_decref(r->system);
	json_decref(r->checks);
	memset(r, 0, sizeof(*r));
}

uint64_t report_on_spike_count(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v)
							       : 0;
}
