// SPDX-License-Identifier: GPL-2.0-or-later
/* json_read: rebuild the report model from an rtsoak-report/1 file.
 *
 * The reader checks what the model needs (types, ranges, histogram buckets
 * that match this build's layout) and names the first thing that is wrong,
 * with the file and the JSON path, so a damaged report gives one clear line
 * rather than a crash or a silently wrong comparison. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "analysis.h"
#include "attribution.h"
#include "cyclictest.h"
#include "serieslog.h"
#include "report.h"
#include "util.h"
#include "views.h"

/* The big arrays, parsed one element at a time (split_top). */
enum { BIG_RESULTS, BIG_AGGREGATES, BIG_SERIES, BIG_N };
static const char *const big_key[BIG_N] = { "results", "aggregates", "series" };

struct rd {
	const char *file;
	char *err;
	size_t errlen;
	const char *text; /* the file's text */
	size_t len;
	size_t dropped; /* text[0, dropped) given back (drop_read): not to be read again */
	struct {
		size_t start, end; /* '[' .. past ']' */
		bool set;
	} span[BIG_N];
};

static int fail(struct rd *rd, const char *where, const char *what)
{
	snprintf(rd->err, rd->errlen, "%s: %s: %s", rd->file, where, what);
	return -EINVAL;
}

/* ------------------------------------------- piece-by-piece parsing -- */

/* A report's results, aggregates and series are most of it: as one
 * jansson tree (~45 B per value) a 32 MB report with 10^5 results cost
 * 300 MB.  So the top level is split by hand, everything but those three
 * arrays goes through jansson, and their elements are parsed and read one
 * at a time (docs/BENCHMARKS.md, bench/readers.sh).  Anything unusual the
 * splitter meets (a syntax error, an escaped top-level key, a duplicate)
 * makes it give up with -EAGAIN: then the whole text is parsed in one
 * piece as before, and jansson says what is wrong. */

static size_t skip_ws(const char *t, size_t len, size_t p)
{
	while (p < len && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r'))
		p++;
	return p;
}

/* Past the closing quote of the string that opens at t[p], or 0. */
static size_t string_end(const char *t, size_t len, size_t p, bool *escaped)
{
	for (p++; p < len; p++) {
		if (t[p] == '"')
			return p + 1;
		if (t[p] == '\\') {
			*escaped = true;
			p++;
		}
	}
	return 0;
}

/* Past the end of the array at t[p], by brackets and strings alone (its
 * elements are checked when they are parsed), or 0 when the text ends. */
static size_t skip_array(const char *t, size_t len, size_t p)
{
	size_t depth = 0;
	bool esc;

	for (; p < len; p++) {
		char c = t[p];
		if (c == '"') {
			if (!(p = string_end(t, len, p, &esc)))
				return 0;
			p--;
		} else if (c == '[' || c == '{') {
			depth++;
		} else if ((c == ']' || c == '}') && --depth == 0) {
			return p + 1;
		}
	}
	return 0;
}

/* One JSON value at t[p] (parsed by jansson), its end in *end. */
static json_t *value_at(struct rd *rd, size_t p, size_t limit, size_t *end, int *rc)
{
	json_error_t e;
	json_t *v =
	    json_loadb(rd->text + p, limit - p,
		       JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &e);

	if (!v) {
		*rc = util_json_oom(&e) ? -ENOMEM : -EAGAIN;
		return NULL;
	}
	*end = p + (size_t)e.position;
	return v;
}

/* The top level, but the big arrays, as an object in *rootp; their spans in rd. */
static int split_top(struct rd *rd, json_t **rootp)
{
	const char *t = rd->text;
	size_t len = rd->len, p = skip_ws(t, len, 0), q;
	json_t *root;
	int rc = -EAGAIN;

	*rootp = NULL;
	if (p >= len || t[p] != '{' || !(root = json_object()))
		return p < len && t[p] == '{' ? -ENOMEM : -EAGAIN;
	p = skip_ws(t, len, p + 1);
	if (p < len && t[p] == '}')
		goto end;
	for (;;) {
		bool esc = false;
		if (p >= len || t[p] != '"' || !(q = string_end(t, len, p, &esc)) || esc)
			goto out;
		size_t keylen = q - p - 2;
		char *key = strndup(t + p + 1, keylen);
		if (!key) {
			rc = -ENOMEM;
			goto out;
		}
		int big = -1;
		for (int k = 0; k < BIG_N; k++)
			if (!strcmp(key, big_key[k]))
				big = k;
		p = skip_ws(t, len, q);
		bool raw = strlen(key) != keylen; /* a NUL byte */
		for (size_t k = 0; k < keylen && !raw; k++)
			raw = (unsigned char)key[k] < 0x20;
		if (raw || json_object_get(root, key) || (big >= 0 && rd->span[big].set) ||
		    p >= len || t[p] != ':') {
			free(key);
			goto out;
		}
		p = skip_ws(t, len, p + 1);
		if (big >= 0 && p < len && t[p] == '[') {
			if (!(q = skip_array(t, len, p))) {
				free(key);
				goto out;
			}
			rd->span[big].start = p;
			rd->span[big].end = q;
			rd->span[big].set = true;
			p = q;
		} else {
			json_t *v = value_at(rd, p, len, &p, &rc);
			/* set_new fails on a key that is not UTF-8: jansson's to say */
			if (!v || json_object_set_new(root, key, v)) {
				free(key);
				goto out;
			}
		}
		free(key);
		p = skip_ws(t, len, p);
		if (p < len && t[p] == ',') {
			p = skip_ws(t, len, p + 1);
			continue;
		}
		if (p < len && t[p] == '}')
			break;
		goto out;
	}
end:
	if (skip_ws(t, len, p + 1) != len)
		goto out;
	*rootp = root;
	return 0;
out:
	json_decref(root);
	return rc;
}

/* The elements of one big array: from the tree, or parsed from the text
 * one at a time. */
struct elems {
	json_t *arr;   /* tree: the array */
	size_t i, n;   /* elements given so far; the tree's size */
	size_t p, end; /* text: where the next ',' or ']' is expected */
	bool stream;
};

/* Does root (or the text) have the array at key?  0: e is set; 1: absent;
 * -EINVAL: there but not an array. */
static int elems_open(struct rd *rd, json_t *root, int big, struct elems *e)
{
	memset(e, 0, sizeof(*e));
	if (rd->span[big].set) {
		e->stream = true;
		e->p = skip_ws(rd->text, rd->span[big].end, rd->span[big].start + 1);
		e->end = rd->span[big].end;
		return 0;
	}
	e->arr = json_object_get(root, big_key[big]);
	if (!e->arr)
		return 1;
	if (!json_is_array(e->arr))
		return fail(rd, big_key[big], "is not an array");
	e->n = json_array_size(e->arr);
	return 0;
}

/* Is there a next element?  1: yes (stream: e->p at its start, past the
 * comma), 0: the end, -EAGAIN: a syntax error, for the whole-text parse. */
static int elems_step(struct rd *rd, struct elems *e)
{
	const char *t = rd->text;

	if (!e->stream)
		return e->i < e->n;
	if (e->p >= e->end)
		return -EAGAIN;
	if (t[e->p] == ']')
		return e->p + 1 == e->end ? 0 : -EAGAIN;
	if (e->i && t[e->p] != ',')
		return -EAGAIN;
	if (e->i)
		e->p = skip_ws(t, e->end, e->p + 1);
	return 1;
}

/* The stream's element at e->p ended at end (read without jansson): step past it. */
static void elems_done(struct rd *rd, struct elems *e, size_t end)
{
	e->p = skip_ws(rd->text, e->end, end);
	e->i++;
}

/* The element elems_step found, in *out (a reference: json_decref it); 1,
 * or -errno (-EAGAIN: a syntax error). */
static int elems_take(struct rd *rd, struct elems *e, json_t **out)
{
	int rc = -EAGAIN;

	if (!e->stream) {
		*out = json_incref(json_array_get(e->arr, e->i++));
		return 1;
	}
	if (!(*out = value_at(rd, e->p, e->end, &e->p, &rc)))
		return rc;
	elems_done(rd, e, e->p);
	return 1;
}

/* 1 with the next element in *out (a reference: json_decref it), 0 at the end, or -errno
 * (-EAGAIN: a syntax error, for the whole-text parse to name). */
static int elems_next(struct rd *rd, struct elems *e, json_t **out)
{
	int rc;

	*out = NULL;
	if ((rc = elems_step(rd, e)) <= 0)
		return rc;
	return elems_take(rd, e, out);
}

static int get_u64(struct rd *rd, json_t *o, const char *key, const char *where, bool nullable,
		   uint64_t *out, bool *present)
{
	json_t *v = json_object_get(o, key);
	char path[160];

	snprintf(path, sizeof(path), "%s.%s", where, key);
	if (present)
		*present = v && !json_is_null(v);
	if (nullable && (!v || json_is_null(v))) {
		*out = 0;
		return 0;
	}
	if (!json_is_integer(v))
		return fail(rd, path, v ? "is not an integer" : "is missing");
	if (json_integer_value(v) < 0)
		return fail(rd, path, "is negative");
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_str(struct rd *rd, json_t *o, const char *key, const char *where, const char **out)
{
	json_t *v = json_object_get(o, key);
	char path[160];

	snprintf(path, sizeof(path), "%s.%s", where, key);
	if (!json_is_string(v))
		return fail(rd, path, v ? "is not a string" : "is missing");
	*out = json_string_value(v);
	return 0;
}

static int cmp_entry(const void *x, const void *y)
{
	const struct histogram_entry *a = x, *b = y;

	return (a->index > b->index) - (a->index < b->index);
}

/* Sparse, like the file: the model keeps only the entries there are. */
static int read_histogram(struct rd *rd, json_t *h, struct report_result *res, const char *where)
{
	char path[96];
	size_t i, n;
	json_t *b;

	snprintf(path, sizeof(path), "%s.histogram", where);
	if (!json_is_array(h))
		return fail(rd, where, "histogram is not an array");
	if ((n = json_array_size(h)) > HISTOGRAM_BUCKETS)
		return fail(rd, path, "has more entries than the layout has buckets (limit 3713)");
	if (!(res->hist = histogram_sparse_alloc(n)))
		return -ENOMEM;
	json_array_foreach (h, i, b) {
		json_t *lo = json_array_get(b, 0), *up = json_array_get(b, 1),
		       *c = json_array_get(b, 2);
		if (!json_is_array(b) || json_array_size(b) != 3 || !json_is_integer(lo) ||
		    !json_is_integer(up) || !json_is_integer(c) || json_integer_value(lo) < 0 ||
		    json_integer_value(c) < 0)
			return fail(rd, where,
				    "histogram entry is not [lower_ns, upper_ns, count]");
		uint64_t lower = (uint64_t)json_integer_value(lo);
		unsigned idx = histogram_index(lower);
		if (histogram_lower(idx) != lower)
			return fail(rd, where,
				    "histogram bucket does not match the log-linear layout");
		uint64_t count = (uint64_t)json_integer_value(c);
		/* A sum that wraps past 2^64 could equal count again. */
		if (__builtin_add_overflow(res->hist->total, count, &res->hist->total))
			return fail(rd, path, "counts add up past 2^64");
		if (count)
			res->hist->e[res->hist->n++] = (struct histogram_entry){ idx, count };
	}
	/* The writer's order is ascending and one entry per bucket; an edited
	 * file may differ, which the dense reader used to absorb: sort and merge. */
	qsort(res->hist->e, res->hist->n, sizeof(res->hist->e[0]), cmp_entry);
	n = 0;
	for (i = 0; i < res->hist->n; i++) {
		if (n && res->hist->e[n - 1].index == res->hist->e[i].index)
			res->hist->e[n - 1].count += res->hist->e[i].count; /* no overflow: total */
		else
			res->hist->e[n++] = res->hist->e[i];
	}
	res->hist->n = n;
	return 0;
}

static int read_result(struct rd *rd, struct report *r, json_t *o, bool aggregate, size_t n)
{
	char where[64];
	const char *probe, *phase;
	json_t *cpu = json_object_get(o, "cpu"), *top = json_object_get(o, "top");
	int cpuno, rc;
	bool has;

	snprintf(where, sizeof(where), "%s[%zu]", aggregate ? "aggregates" : "results", n);
	if (!json_is_object(o))
		return fail(rd, where, "is not an object");
	if ((rc = get_str(rd, o, "probe", where, &probe)) ||
	    (rc = get_str(rd, o, "phase", where, &phase)))
		return rc;
	if (strlen(probe) > REPORT_NAME_MAX || strlen(phase) > REPORT_NAME_MAX)
		return fail(rd, where, "probe or phase is longer than the limit of 255 bytes");
	if (json_is_integer(cpu) && json_integer_value(cpu) >= 0 && json_integer_value(cpu) < 65536)
		cpuno = (int)json_integer_value(cpu);
	else if (json_is_string(cpu) && !strcmp(json_string_value(cpu), "all"))
		cpuno = REPORT_CPU_ALL;
	else
		return fail(rd, where, "cpu is neither a CPU number nor \"all\"");

	struct report_result *res = report_add_result(r, aggregate, probe, cpuno, phase);
	if (!res)
		return -ENOMEM;
	if ((rc = get_u64(rd, o, "count", where, false, &res->count, NULL)) ||
	    (rc = get_u64(rd, o, "missed", where, false, &res->missed, NULL)) ||
	    (rc = get_u64(rd, o, "discarded", where, true, &res->discarded,
			  &res->discarded_known)) ||
	    (rc = get_u64(rd, o, "max_ns", where, true, &res->max, &has)))
		return rc;
	if (has != (res->count > 0))
		return fail(rd, where, "max_ns must be null exactly when count is 0");
	if ((rc = get_u64(rd, o, "min_ns", where, true, &res->min, NULL)) ||
	    (rc = get_u64(rd, o, "mean_ns", where, true, &res->mean, NULL)) ||
	    (rc = get_u64(rd, o, "stddev_ns", where, true, &res->stddev, NULL)) ||
	    (rc = get_u64(rd, o, "max_at_ns", where, true, &res->max_at, NULL)))
		return rc;
	for (unsigned i = 0; i < REPORT_NPCT; i++)
		if ((rc = get_u64(rd, o, report_pct_key[i], where, true, &res->pct[i], NULL)))
			return rc;
	/* What no run writes: the views and compare would show nonsense. */
	if (res->count && res->min > res->max)
		return fail(rd, where, "min_ns is larger than max_ns");
	/* A mean rounds a value between min and max; a spread of values no
	 * larger than max cannot have a larger standard deviation. */
	if (res->count && (res->mean < res->min || res->mean > res->max))
		return fail(rd, where, "mean_ns is outside min_ns..max_ns");
	if (res->count && res->stddev > res->max)
		return fail(rd, where, "stddev_ns is larger than max_ns");
	for (unsigned i = 0; res->count && i < REPORT_NPCT; i++) {
		uint64_t below = i ? res->pct[i - 1] : res->min;
		char msg[96];
		if (res->pct[i] >= below && res->pct[i] <= res->max)
			continue;
		if (res->pct[i] > res->max)
			snprintf(msg, sizeof(msg), "%s is larger than max_ns", report_pct_key[i]);
		else /* percentiles never decrease */
			snprintf(msg, sizeof(msg), "%s is smaller than %s", report_pct_key[i],
				 i ? report_pct_key[i - 1] : "min_ns");
		return fail(rd, where, msg);
	}
	json_t *counters = json_object_get(o, "counters");
	if (counters) {
		const char *key;
		json_t *v;
		if (!json_is_object(counters))
			return fail(rd, where, "counters is not an object");
		json_object_foreach (counters, key, v)
			if (!json_is_integer(v))
				return fail(rd, where, "counters holds a non-integer");
		res->counters = json_incref(counters);
	}
	if (!json_is_array(top))
		return fail(rd, where, "top is not an array");
	if (json_array_size(top) > RECORDER_TOP_MAX)
		return fail(rd, where, "top holds more than the limit of 4096 samples");
	res->ntop = (unsigned)json_array_size(top);
	res->top = calloc(res->ntop ? res->ntop : 1, sizeof(*res->top));
	if (!res->top)
		return -ENOMEM;
	for (unsigned i = 0; i < res->ntop; i++) {
		json_t *s = json_array_get(top, i);
		if ((rc = get_u64(rd, s, "t_ns", where, false, &res->top[i].t_ns, NULL)) ||
		    (rc =
			 get_u64(rd, s, "latency_ns", where, false, &res->top[i].latency_ns, NULL)))
			return rc;
	}
	rc = read_histogram(rd, json_object_get(o, "histogram"), res, where);
	if (!rc && res->hist->total != res->count)
		return fail(rd, where, "histogram counts do not add up to count");
	return rc;
}

/* The results' sampling periods (report.h).  Reports before 0.1.0's
 * probe option tables have no config.probe_intervals_ns: their config had
 * one period for the net probe's results (net_interval_ns, the net*
 * names) and interval_ns for the rest; the view of such a file keeps
 * meaning what it meant. */
static int read_periods(struct rd *rd, struct report *r)
{
	json_t *p = json_object_get(r->config, "probe_intervals_ns"), *v;
	const char *key;

	if (p) {
		if (!json_is_object(p))
			return fail(rd, "config.probe_intervals_ns", "is not an object");
		json_object_foreach (p, key, v)
			if (!json_is_integer(v) || json_integer_value(v) <= 0)
				return fail(rd, "config.probe_intervals_ns",
					    "holds a value that is not a positive integer");
		r->periods = json_incref(p);
		return 0;
	}
	json_t *legacy = json_object_get(r->config, "net_interval_ns");
	if (!json_is_integer(legacy) || json_integer_value(legacy) <= 0)
		return 0;
	if (!(r->periods = json_object()))
		return -ENOMEM;
	for (size_t i = 0; i < r->nresults; i++)
		if (!strncmp(r->results[i].probe, "net", 3) &&
		    json_object_set_new(r->periods, r->results[i].probe, json_incref(legacy)))
			return -ENOMEM;
	return 0;
}

static int read_results(struct rd *rd, struct report *r, json_t *root, int big, bool aggregate)
{
	const char *key = big_key[big];
	struct elems e;
	json_t *o;
	int rc = elems_open(rd, root, big, &e);

	if (rc)
		return rc > 0 ? fail(rd, key, "is missing") : rc;
	if (e.n > REPORT_RESULTS_MAX)
		return fail(rd, key, "holds more than the readers' limit of 1000000 entries");
	while ((rc = elems_next(rd, &e, &o)) > 0) {
		if (e.i > REPORT_RESULTS_MAX)
			rc = fail(rd, key, "holds more than the readers' limit of 1000000 entries");
		else
			rc = read_result(rd, r, o, aggregate, e.i - 1);
		json_decref(o);
		if (rc)
			return rc;
	}
	return rc;
}

/* An array of n unsigned integers (each at most max) from o[key]. */
static json_t *get_column(struct rd *rd, json_t *o, const char *key, const char *where, size_t n,
			  uint64_t max, int *rc)
{
	json_t *a = json_object_get(o, key), *v;
	char path[160];
	size_t i;

	snprintf(path, sizeof(path), "%s.%s", where, key);
	*rc = 0;
	if (!json_is_array(a) || json_array_size(a) != n) {
		*rc = fail(rd, path, "is not an array of the stated length");
		return NULL;
	}
	json_array_foreach (a, i, v)
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    (uint64_t)json_integer_value(v) > max) {
			*rc = fail(rd, path, "holds a value that is not a count in range");
			return NULL;
		}
	return a;
}

/* A series' columns as plain numbers, however they were read: the fast
 * path parses into them, the jansson path copies its checked arrays into
 * them, and fill_series / fill_spikes build the model from them alone.
 * Kept across the series of a report, so one buffer serves them all. */
struct cols {
	uint64_t *iv; /* count, max_ns, spikes, missed: n each */
	uint64_t *sp; /* t_ns, latency_ns, phase: logged each */
	size_t iv_cap, sp_cap;
};

static int cols_room(uint64_t **buf, size_t *cap, size_t n)
{
	/* Never NULL, even for no values: the columns are pointers into the
	 * buffer, and NULL + 0 is undefined (UBSan says so, tests/fuzz). */
	if (!n)
		n = 1;
	if (n <= *cap)
		return 0;
	uint64_t *p = realloc(*buf, n * sizeof(**buf));
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = n;
	return 0;
}

static void column_copy(json_t *a, uint64_t *out)
{
	size_t i;
	json_t *v;

	json_array_foreach (a, i, v)
		out[i] = (uint64_t)json_integer_value(v);
}

/* The model's intervals of rs from checked columns (count, spikes and
 * missed at most UINT32_MAX, max at most INT64_MAX). */
static int fill_series(struct report_series *rs, const uint64_t *count, const uint64_t *max,
		       const uint64_t *spikes, const uint64_t *missed, size_t n)
{
	if (!rs->st && !(rs->st = calloc(1, sizeof(*rs->st))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct series_interval v = { .max_ns = max[i],
					     .count = (uint32_t)count[i],
					     .spikes = (uint32_t)spikes[i],
					     .missed = (uint32_t)missed[i] };
		if (series_store_append(rs->st, &v))
			return -ENOMEM;
	}
	rs->n = rs->st->n;
	return 0;
}

/* The model's spike log of rs from checked columns (phase below RECORDER_MAX_PHASES). */
static int fill_spikes(struct report_series *rs, const uint64_t *t, const uint64_t *latency,
		       const uint64_t *phase, size_t n)
{
	rs->nspikes = n;
	rs->spikes = calloc(n ? n : 1, sizeof(*rs->spikes));
	if (!rs->spikes)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		rs->spikes[i] = (struct series_spike){ .t_ns = t[i],
						       .latency_ns = latency[i],
						       .phase = (uint32_t)phase[i] };
	return 0;
}

/* The model's per-interval quantiles of rs from checked columns (count at
 * most UINT32_MAX; a quantile in ns goes back to its histogram bucket, which
 * the writer gave as the bucket's midpoint). */
static int fill_quant(struct report_series *rs, uint64_t interval, bool merged,
		      const uint64_t *count, const uint64_t *const q[SERIES_NQ], size_t n)
{
	rs->quant = calloc(n ? n : 1, sizeof(*rs->quant));
	if (!rs->quant)
		return -ENOMEM;
	rs->nquant = n;
	rs->quant_interval_ns = interval;
	rs->quant_merged = merged;
	for (size_t i = 0; i < n; i++) {
		rs->quant[i].count = (uint32_t)count[i];
		for (unsigned k = 0; k < SERIES_NQ; k++)
			rs->quant[i].q[k] = count[i] ? (uint16_t)histogram_index(q[k][i])
						     : (uint16_t)SERIES_QUANT_NONE;
	}
	return 0;
}

static const char *const quant_key[SERIES_NQ] = { "p50_ns", "p99_ns", "p99_9_ns" };

/* The optional "quantiles" member of a series (issue 30). */
static int read_quant(struct rd *rd, struct report_series *rs, json_t *qo, const char *where,
		      struct cols *cl)
{
	char w2[96];
	uint64_t n, ivl;
	json_t *c, *col[SERIES_NQ], *merged = json_object_get(qo, "merged");
	int rc;

	snprintf(w2, sizeof(w2), "%s.quantiles", where);
	if (!json_is_object(qo) || !json_is_boolean(merged))
		return fail(rd, w2, "is not an object with interval_ns, merged, n and columns");
	if ((rc = get_u64(rd, qo, "interval_ns", w2, false, &ivl, NULL)) ||
	    (rc = get_u64(rd, qo, "n", w2, false, &n, NULL)))
		return rc;
	if (!ivl)
		return fail(rd, w2, "interval_ns is 0");
	if (n > REPORT_INTERVALS_MAX)
		return fail(rd, w2, "n is above the readers' limit of 200000000 intervals");
	if (!(c = get_column(rd, qo, "count", w2, n, UINT32_MAX, &rc)))
		return rc;
	for (unsigned k = 0; k < SERIES_NQ; k++)
		if (!(col[k] = get_column(rd, qo, quant_key[k], w2, n, INT64_MAX, &rc)))
			return rc;
	if (cols_room(&cl->iv, &cl->iv_cap, 4 * n))
		return -ENOMEM;
	const uint64_t *q[SERIES_NQ] = { cl->iv + n, cl->iv + 2 * n, cl->iv + 3 * n };
	column_copy(c, cl->iv);
	for (unsigned k = 0; k < SERIES_NQ; k++)
		column_copy(col[k], (uint64_t *)q[k]);
	return fill_quant(rs, ivl, json_is_true(merged), cl->iv, q, n);
}

static int read_one_series(struct rd *rd, struct report *r, json_t *o, size_t k, struct cols *cl)
{
	char where[64], w2[80];
	const char *probe;
	json_t *iv = json_object_get(o, "intervals");
	json_t *log = json_object_get(o, "spike_log"), *c, *m, *sp, *mi, *t, *lat, *ph;
	uint64_t n, logged, cpuno;
	int rc;

	snprintf(where, sizeof(where), "series[%zu]", k);
	if (!json_is_object(o) || !json_is_object(iv) || !json_is_object(log))
		return fail(rd, where, "is not an object with intervals and spike_log");
	if ((rc = get_str(rd, o, "probe", where, &probe)) ||
	    (rc = get_u64(rd, o, "cpu", where, false, &cpuno, NULL)))
		return rc;
	if (strlen(probe) > REPORT_NAME_MAX)
		return fail(rd, where, "probe is longer than the limit of 255 bytes");
	/* 2^32 - 1 would be CPU -1 as an int. */
	if (cpuno >= 65536)
		return fail(rd, where, "cpu is not a CPU number (0..65535)");
	struct report_series *rs = report_add_series(r, probe, (int)cpuno);
	if (!rs)
		return -ENOMEM;
	snprintf(w2, sizeof(w2), "%s.intervals", where);
	if ((rc = get_u64(rd, o, "interval_ns", where, false, &rs->interval_ns, NULL)) ||
	    (rc = get_u64(rd, o, "stalls", where, false, &rs->stalls, NULL)) ||
	    (rc = get_u64(rd, iv, "n", w2, false, &n, NULL)))
		return rc;
	if (!rs->interval_ns)
		return fail(rd, where, "interval_ns is 0");
	if (n > REPORT_INTERVALS_MAX)
		return fail(rd, w2, "n is above the readers' limit of 200000000 intervals");
	if (!(c = get_column(rd, iv, "count", w2, n, UINT32_MAX, &rc)) ||
	    !(m = get_column(rd, iv, "max_ns", w2, n, INT64_MAX, &rc)) ||
	    !(sp = get_column(rd, iv, "spikes", w2, n, UINT32_MAX, &rc)) ||
	    !(mi = get_column(rd, iv, "missed", w2, n, UINT32_MAX, &rc)))
		return rc;
	if (cols_room(&cl->iv, &cl->iv_cap, 4 * n)) /* n: the arrays' real length */
		return -ENOMEM;
	column_copy(c, cl->iv);
	column_copy(m, cl->iv + n);
	column_copy(sp, cl->iv + 2 * n);
	column_copy(mi, cl->iv + 3 * n);
	if ((rc = fill_series(rs, cl->iv, cl->iv + n, cl->iv + 2 * n, cl->iv + 3 * n, n)))
		return rc;
	snprintf(w2, sizeof(w2), "%s.spike_log", where);
	if ((rc = get_u64(rd, log, "threshold_ns", w2, true, &rs->threshold_ns, NULL)) ||
	    (rc = get_u64(rd, log, "threshold_at_ns", w2, true, &rs->threshold_at_ns, NULL)) ||
	    (rc = get_u64(rd, log, "total", w2, false, &rs->spikes_total, NULL)) ||
	    (rc = get_u64(rd, log, "logged", w2, false, &logged, NULL)) ||
	    (rc = get_u64(rd, log, "overwritten", w2, false, &rs->spikes_overwritten, NULL)) ||
	    (rc = get_u64(rd, log, "not_logged", w2, false, &rs->spikes_unlogged, NULL)))
		return rc;
	if (logged > REPORT_INTERVALS_MAX)
		return fail(rd, w2, "logged is above the readers' limit of 200000000 spikes");
	if (!(t = get_column(rd, log, "t_ns", w2, logged, INT64_MAX, &rc)) ||
	    !(lat = get_column(rd, log, "latency_ns", w2, logged, INT64_MAX, &rc)) ||
	    !(ph = get_column(rd, log, "phase", w2, logged, RECORDER_MAX_PHASES - 1, &rc)))
		return rc;
	if (cols_room(&cl->sp, &cl->sp_cap, 3 * logged))
		return -ENOMEM;
	column_copy(t, cl->sp);
	column_copy(lat, cl->sp + logged);
	column_copy(ph, cl->sp + 2 * logged);
	if ((rc = fill_spikes(rs, cl->sp, cl->sp + logged, cl->sp + 2 * logged, logged)))
		return rc;
	json_t *qo = json_object_get(o, "quantiles");
	return qo ? read_quant(rd, rs, qo, where, cl) : 0;
}

/* ---------------------------------------------- series, the fast path -- */

/* A day of one-second intervals is 345 600 integers per series: as a
 * jansson tree each costs an allocation and ~45 bytes, which made reading
 * a 128-CPU day take 7.5 s (issue 20).  The writer prints every series in
 * one shape (json_write.c, put_series):
 *
 *   {"probe":"timer","cpu":0,"interval_ns":N,"stalls":N,"intervals":{"n":N,
 *    "count":[..],"max_ns":[..],"spikes":[..],"missed":[..]},"spike_log":
 *    {"threshold_ns":N|null,"threshold_at_ns":N|null,"total":N,"logged":N,
 *    "overwritten":N,"not_logged":N,"t_ns":[..],"latency_ns":[..],"phase":[..]}}
 *
 * on one line, without blanks.  An element in exactly that shape, every
 * value in range, is read here by hand; anything else (another key order,
 * a blank, an escape, a fraction, a sign, a value out of range, a column of
 * the wrong length) gives -EAGAIN and the element goes through jansson and
 * read_one_series as before: the same model, or the same error message. */

struct scan {
	const char *t;
	size_t p, end;
};

/* The bytes lit at s->p, stepped over. */
static bool scan_lit(struct scan *s, const char *lit)
{
	size_t l = strlen(lit);

	if (s->end - s->p < l || memcmp(s->t + s->p, lit, l))
		return false;
	s->p += l;
	return true;
}

/* The unsigned integer at s->p, at most max.  No digit, a leading zero
 * (not JSON) or more than 19 digits (which could wrap) is not one. */
static inline bool scan_u64(struct scan *s, uint64_t max, uint64_t *out)
{
	const char *t = s->t;
	size_t p = s->p, end = s->end;
	uint64_t v = 0;

	while (p < end && (unsigned)(t[p] - '0') <= 9)
		v = v * 10 + (uint64_t)(t[p++] - '0');
	if (p == s->p || p - s->p > 19 || (t[s->p] == '0' && p - s->p > 1) || v > max)
		return false;
	s->p = p;
	*out = v;
	return true;
}

/* lead (a comma, the key, the colon), then an integer of at most max; or
 * null (0) when nullable. */
static bool scan_field(struct scan *s, const char *lead, uint64_t max, bool nullable, uint64_t *out)
{
	if (!scan_lit(s, lead))
		return false;
	if (nullable && scan_lit(s, "null")) {
		*out = 0;
		return true;
	}
	return scan_u64(s, max, out);
}

/* lead (ending in '['), then exactly n integers of at most max, and ']'. */
static bool scan_column(struct scan *s, const char *lead, size_t n, uint64_t max, uint64_t *out)
{
	if (!scan_lit(s, lead))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!scan_u64(s, max, &out[i]) || s->p >= s->end ||
		    s->t[s->p] != (i + 1 < n ? ',' : ']'))
			return false;
		s->p++;
	}
	return n || scan_lit(s, "]");
}

/* The series element at e->p: 0 (in the model, e past it), -EAGAIN (not
 * the writer's shape or not valid: r untouched, for jansson), -ENOMEM. */
static int series_fast(struct rd *rd, struct report *r, struct elems *e, struct cols *cl)
{
	struct scan s = { .t = rd->text, .p = e->p, .end = e->end };
	char probe[REPORT_NAME_MAX + 1];
	uint64_t cpu, interval, stalls, n, thr, thr_at, total, logged, over, unlogged;
	size_t q;

	if (!scan_lit(&s, "{\"probe\":\""))
		return -EAGAIN;
	/* Printable ASCII only: escapes and UTF-8 are jansson's to check. */
	for (q = s.p; q < s.end && s.t[q] != '"'; q++)
		if (s.t[q] < 0x20 || s.t[q] > 0x7e || s.t[q] == '\\')
			return -EAGAIN;
	if (q >= s.end || q - s.p > REPORT_NAME_MAX)
		return -EAGAIN;
	memcpy(probe, s.t + s.p, q - s.p);
	probe[q - s.p] = '\0';
	s.p = q + 1;
	if (!scan_field(&s, ",\"cpu\":", 65535, false, &cpu) ||
	    !scan_field(&s, ",\"interval_ns\":", INT64_MAX, false, &interval) || !interval ||
	    !scan_field(&s, ",\"stalls\":", INT64_MAX, false, &stalls) ||
	    !scan_field(&s, ",\"intervals\":{\"n\":", REPORT_INTERVALS_MAX, false, &n))
		return -EAGAIN;
	/* Each value takes two bytes at least ("0,"): an n the text cannot
	 * hold is not allocated for. */
	if (n > (s.end - s.p) / 8)
		return -EAGAIN;
	if (cols_room(&cl->iv, &cl->iv_cap, 4 * n))
		return -ENOMEM;
	uint64_t *c = cl->iv, *m = c + n, *sp = m + n, *mi = sp + n;
	if (!scan_column(&s, ",\"count\":[", n, UINT32_MAX, c) ||
	    !scan_column(&s, ",\"max_ns\":[", n, INT64_MAX, m) ||
	    !scan_column(&s, ",\"spikes\":[", n, UINT32_MAX, sp) ||
	    !scan_column(&s, ",\"missed\":[", n, UINT32_MAX, mi) ||
	    !scan_field(&s, "},\"spike_log\":{\"threshold_ns\":", INT64_MAX, true, &thr) ||
	    !scan_field(&s, ",\"threshold_at_ns\":", INT64_MAX, true, &thr_at) ||
	    !scan_field(&s, ",\"total\":", INT64_MAX, false, &total) ||
	    !scan_field(&s, ",\"logged\":", REPORT_INTERVALS_MAX, false, &logged) ||
	    !scan_field(&s, ",\"overwritten\":", INT64_MAX, false, &over) ||
	    !scan_field(&s, ",\"not_logged\":", INT64_MAX, false, &unlogged) ||
	    logged > (s.end - s.p) / 6)
		return -EAGAIN;
	if (cols_room(&cl->sp, &cl->sp_cap, 3 * logged))
		return -ENOMEM;
	uint64_t *t = cl->sp, *lat = t + logged, *ph = lat + logged;
	if (!scan_column(&s, ",\"t_ns\":[", logged, INT64_MAX, t) ||
	    !scan_column(&s, ",\"latency_ns\":[", logged, INT64_MAX, lat) ||
	    !scan_column(&s, ",\"phase\":[", logged, RECORDER_MAX_PHASES - 1, ph) ||
	    !scan_lit(&s, "}"))
		return -EAGAIN;
	/* Optional: the per-interval quantiles, into the columns' room after
	 * the spikes' (json_write.c writes merged as true or false). */
	uint64_t qivl = 0, qn = 0, *qc = NULL;
	const uint64_t *qq[SERIES_NQ] = { NULL, NULL, NULL };
	bool qmerged = false, quant = scan_lit(&s, ",\"quantiles\":{\"interval_ns\":");
	if (quant) {
		if (!scan_u64(&s, INT64_MAX, &qivl) || !qivl || !scan_lit(&s, ",\"merged\":"))
			return -EAGAIN;
		qmerged = scan_lit(&s, "true");
		if ((!qmerged && !scan_lit(&s, "false")) ||
		    !scan_field(&s, ",\"n\":", REPORT_INTERVALS_MAX, false, &qn) ||
		    qn > (s.end - s.p) / 8)
			return -EAGAIN;
		if (cols_room(&cl->sp, &cl->sp_cap, 3 * logged + 4 * qn))
			return -ENOMEM;
		t = cl->sp, lat = t + logged, ph = lat + logged; /* the room may have moved */
		qc = ph + logged;
		uint64_t *qv[SERIES_NQ] = { qc + qn, qc + 2 * qn, qc + 3 * qn };
		if (!scan_column(&s, ",\"count\":[", qn, UINT32_MAX, qc) ||
		    !scan_column(&s, ",\"p50_ns\":[", qn, INT64_MAX, qv[0]) ||
		    !scan_column(&s, ",\"p99_ns\":[", qn, INT64_MAX, qv[1]) ||
		    !scan_column(&s, ",\"p99_9_ns\":[", qn, INT64_MAX, qv[2]) || !scan_lit(&s, "}"))
			return -EAGAIN;
		for (unsigned k = 0; k < SERIES_NQ; k++)
			qq[k] = qv[k];
	}
	if (!scan_lit(&s, "}"))
		return -EAGAIN;

	struct report_series *rs = report_add_series(r, probe, (int)cpu);
	int rc;
	if (!rs)
		return -ENOMEM;
	rs->interval_ns = interval;
	rs->stalls = stalls;
	rs->threshold_ns = thr;
	rs->threshold_at_ns = thr_at;
	rs->spikes_total = total;
	rs->spikes_overwritten = over;
	rs->spikes_unlogged = unlogged;
	if ((rc = fill_series(rs, c, m, sp, mi, n)) || (rc = fill_spikes(rs, t, lat, ph, logged)) ||
	    (quant && (rc = fill_quant(rs, qivl, qmerged, qc, qq, qn))))
		return rc;
	elems_done(rd, e, s.p);
	return 0;
}

/* The series are most of the text and come last (json_write.c): once read
 * into the model, what lies before them is not needed, so the text's
 * pages are given back as the model grows, and a 175 MB report is not
 * held twice, as text and as model, at the end (issue 20).  Only whole
 * 2 MiB pages of a buffer aligned for them (cyclictest_load_raw's for a
 * big file), so that huge pages are not split and nothing outside the
 * buffer is touched.  The pages read as zeros afterwards: report_json_read
 * reads the file again before anything would look at them. */
#define DROP_CHUNK (2u << 20)
static void drop_read(struct rd *rd, size_t upto)
{
	size_t to = upto & ~((size_t)DROP_CHUNK - 1);

	if ((uintptr_t)rd->text % DROP_CHUNK || to < rd->dropped + 4 * (size_t)DROP_CHUNK)
		return;
	/* Advice: if it is not taken, the pages stay, and the text is intact. */
	if (!madvise((char *)rd->text + rd->dropped, to - rd->dropped, MADV_DONTNEED))
		rd->dropped = to;
}

/* Optional sections (reports from before the time series have none). */
static int read_series(struct rd *rd, struct report *r, json_t *root)
{
	json_t *an = json_object_get(root, "analysis"), *o;
	struct cols cl = { 0 };
	struct elems e;
	int rc;

	if (an && !json_is_object(an))
		return fail(rd, "analysis", "is not an object");
	r->analysis = json_incref(an);
	if ((rc = elems_open(rd, root, BIG_SERIES, &e)))
		return rc > 0 ? 0 : rc;
	if (e.n > REPORT_SERIES_MAX)
		return fail(rd, "series", "holds more than the readers' limit of 65536 series");
	while ((rc = elems_step(rd, &e)) > 0) {
		size_t k = e.i;
		if (e.stream && k < REPORT_SERIES_MAX &&
		    (rc = series_fast(rd, r, &e, &cl)) != -EAGAIN) {
			if (rc)
				break;
			drop_read(rd, e.p);
			continue;
		}
		if ((rc = elems_take(rd, &e, &o)) < 0)
			break;
		if (k >= REPORT_SERIES_MAX)
			rc = fail(rd, "series",
				  "holds more than the readers' limit of 65536 series");
		else
			rc = read_one_series(rd, r, o, k, &cl);
		json_decref(o);
		if (rc)
			break;
		if (e.stream)
			drop_read(rd, e.p);
	}
	free(cl.iv);
	free(cl.sp);
	return rc;
}

/* ----------------------------------------------------------- checks -- */

/* Optional (reports before issue 16 have none): an array of objects whose string members the
 * views print; kept as read, so a round trip writes it back unchanged. */
static int read_checks(struct rd *rd, struct report *r, json_t *root)
{
	static const char *const keys[] = { "id",     "status", "cpus",	     "observed", "expected",
					    "source", "why",	"reference", "fix" };
	json_t *cs = json_object_get(root, "checks"), *c;
	char where[64];
	size_t i;

	if (!cs)
		return 0;
	if (!json_is_array(cs))
		return fail(rd, "checks", "is not an array");
	if (json_array_size(cs) > REPORT_CHECKS_MAX)
		return fail(rd, "checks", "more than the limit of 1024 entries");
	json_array_foreach (cs, i, c) {
		snprintf(where, sizeof(where), "checks[%zu]", i);
		if (!json_is_object(c))
			return fail(rd, where, "is not an object");
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!json_is_string(json_object_get(c, keys[k]))) {
				snprintf(where, sizeof(where), "checks[%zu].%s", i, keys[k]);
				return fail(rd, where, "missing or not a string");
			}
		const char *st = json_string_value(json_object_get(c, "status"));
		if (strcmp(st, "pass") && strcmp(st, "info") && strcmp(st, "warn") &&
		    strcmp(st, "fail") && strcmp(st, "unknown")) {
			snprintf(where, sizeof(where), "checks[%zu].status", i);
			return fail(rd, where, "is not pass, info, warn, fail or unknown");
		}
	}
	r->checks = json_incref(cs);
	return 0;
}

/* ------------------------------------------------------ attribution -- */

/* What one attribution entry may hold, beyond the readers' other limits:
 * causes are few per series (one per distinct task, IRQ, ...), the per-spike
 * records are the worst few. */
#define ATTRIB_CAUSES_MAX 65536
#define ATTRIB_TOP_MAX RECORDER_TOP_MAX
#define ATTRIB_CONTRIB_MAX 64
/* top[].cpus: the other measured CPUs of a spike (8 written, a margin) */
#define ATTRIB_CPUS_MAX 64
#define ATTRIB_TIMELINE_MAX 4096
#define ATTRIB_TEXT_MAX 1024 /* bytes of a cause, verdict or tracer string */
#define ATTRIB_IRQ_AT_MAX 64 /* functions of a cause's irq_at (rtsoak keeps 8) */

/* A string of at most max bytes at o[key] (path where.key); nullable: null
 * is allowed (*out NULL). */
static int get_text(struct rd *rd, json_t *o, const char *key, const char *where, size_t max,
		    bool nullable, const char **out)
{
	json_t *v = json_object_get(o, key);
	char path[200];

	snprintf(path, sizeof(path), "%s.%s", where, key);
	*out = NULL;
	if (nullable && json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return fail(rd, path, v ? "is not a string" : "is missing");
	if (json_string_length(v) > max || strlen(json_string_value(v)) != json_string_length(v))
		return fail(rd, path,
			    max == REPORT_NAME_MAX
				? "is longer than the limit of 255 bytes or holds NUL"
				: "is longer than the limit of 1024 bytes or holds NUL");
	*out = json_string_value(v);
	return 0;
}

static int get_array(struct rd *rd, json_t *o, const char *key, const char *where, size_t max,
		     const char *limit, json_t **out)
{
	json_t *v = json_object_get(o, key);
	char path[200];

	snprintf(path, sizeof(path), "%s.%s", where, key);
	if (!json_is_array(v))
		return fail(rd, path, v ? "is not an array" : "is missing");
	if (json_array_size(v) > max)
		return fail(rd, path, limit);
	*out = v;
	return 0;
}

static int get_object(struct rd *rd, json_t *o, const char *key, const char *where, json_t **out)
{
	json_t *v = json_object_get(o, key);
	char path[200];

	snprintf(path, sizeof(path), "%s.%s", where, key);
	if (!json_is_object(v))
		return fail(rd, path, v ? "is not an object" : "is missing");
	*out = v;
	return 0;
}

static int get_cpu(struct rd *rd, json_t *o, const char *where, uint64_t *cpu)
{
	int rc = get_u64(rd, o, "cpu", where, false, cpu, NULL);
	char path[200];

	snprintf(path, sizeof(path), "%s.cpu", where);
	if (!rc && *cpu >= 65536)
		return fail(rd, path, "is not a CPU number (0..65535)");
	return rc;
}

static int read_tracer(struct rd *rd, json_t *at)
{
	const char *where = "attribution.tracer", *s;
	json_t *t, *ev, *v;
	uint64_t u;
	size_t i;
	int rc;

	if ((rc = get_object(rd, at, "tracer", "attribution", &t)) ||
	    (rc = get_text(rd, t, "instance", where, ATTRIB_TEXT_MAX, false, &s)) ||
	    (rc = get_text(rd, t, "clock", where, ATTRIB_TEXT_MAX, false, &s)) ||
	    (rc = get_u64(rd, t, "buffer_kb", where, false, &u, NULL)) ||
	    (rc = get_u64(rd, t, "window_ms", where, false, &u, NULL)) ||
	    (rc = get_array(rd, t, "events", where, REPORT_LIST_MAX,
			    "holds more than the limit of 65536 entries", &ev)))
		return rc;
	json_array_foreach (ev, i, v)
		if (!json_is_string(v))
			return fail(rd, "attribution.tracer.events", "holds a non-string");
	if (!json_is_boolean(json_object_get(t, "stacks")))
		return fail(rd, "attribution.tracer.stacks", "is not a boolean");
	if (json_object_get(t, "stack_cost")) {
		const char *w = "attribution.tracer.stack_cost";
		if ((rc = get_object(rd, t, "stack_cost", where, &v)) ||
		    (rc = get_u64(rd, v, "stacks", w, false, &u, NULL)) ||
		    (rc = get_u64(rd, v, "mean_ns", w, false, &u, NULL)) ||
		    (rc = get_u64(rd, v, "max_ns", w, false, &u, NULL)))
			return rc;
	}
	return 0;
}

static int read_attrib_cpus(struct rd *rd, json_t *at)
{
	json_t *cpus, *c;
	char where[64];
	uint64_t u;
	size_t i;
	int rc;

	if ((rc = get_array(rd, at, "cpus", "attribution", 65536,
			    "holds more than the limit of 65536 CPUs", &cpus)))
		return rc;
	json_array_foreach (cpus, i, c) {
		snprintf(where, sizeof(where), "attribution.cpus[%zu]", i);
		if (!json_is_object(c))
			return fail(rd, where, "is not an object");
		if ((rc = get_cpu(rd, c, where, &u)) ||
		    (rc = get_u64(rd, c, "events", where, false, &u, NULL)) ||
		    (rc = get_u64(rd, c, "lost", where, false, &u, NULL)))
			return rc;
	}
	return 0;
}

static int read_cause_list(struct rd *rd, json_t *causes, const char *where, uint64_t attributed,
			   json_t *seen, json_t *fns);

/* causes[]: each {cause, kind, spikes, excess_ns, share, and in reports
 * since they have it irq_at, irq_at_other}, distinct keys, largest excess
 * first; their spikes add up to attributed. */
static int read_causes(struct rd *rd, json_t *s, const char *where, uint64_t attributed,
		       json_t **out)
{
	json_t *causes, *seen, *fns;
	int rc;

	if ((rc = get_array(rd, s, "causes", where, ATTRIB_CAUSES_MAX,
			    "holds more than the limit of 65536 causes", &causes)))
		return rc;
	/* the keys so far, the functions of one cause: repeats found in O(n) */
	seen = json_object();
	fns = json_object();
	rc = seen && fns ? read_cause_list(rd, causes, where, attributed, seen, fns) : -ENOMEM;
	json_decref(seen);
	json_decref(fns);
	if (!rc)
		*out = causes;
	return rc;
}

/* A cause's irq_at (optional: reports before it have none): [{function,
 * spikes}], distinct non-empty functions, most spikes first, and
 * irq_at_other (optional); together no more than the cause's spikes (the
 * rest had no kernel function to name).  fns: scratch, emptied here. */
static int read_irq_at(struct rd *rd, json_t *c, const char *w, uint64_t spikes, json_t *fns)
{
	char path[200];
	json_t *at, *e;
	const char *fn;
	uint64_t n, sum = 0, prev = UINT64_MAX;
	size_t i;
	int rc;

	if (json_object_get(c, "irq_at_other") &&
	    (rc = get_u64(rd, c, "irq_at_other", w, false, &sum, NULL)))
		return rc;
	if (json_object_get(c, "irq_at")) {
		if ((rc = get_array(rd, c, "irq_at", w, ATTRIB_IRQ_AT_MAX,
				    "holds more than the limit of 64 functions", &at)))
			return rc;
		json_object_clear(fns);
		json_array_foreach (at, i, e) {
			snprintf(path, sizeof(path), "%s.irq_at[%zu]", w, i);
			if (!json_is_object(e))
				return fail(rd, path, "is not an object");
			if ((rc = get_text(rd, e, "function", path, REPORT_NAME_MAX, false, &fn)) ||
			    (rc = get_u64(rd, e, "spikes", path, false, &n, NULL)))
				return rc;
			if (!*fn)
				return fail(rd, path, "function is empty");
			if (!n)
				return fail(rd, path, "spikes is 0");
			if (n > prev)
				return fail(rd, path, "is not sorted by spikes, most first");
			prev = n;
			if (json_object_get(fns, fn))
				return fail(rd, path, "function is listed twice");
			if (json_object_set_new(fns, fn, json_true()))
				return -ENOMEM;
			if (n > spikes || sum > spikes - n) /* no wrap-around */
				return fail(
				    rd, w,
				    "irq_at and irq_at_other count more spikes than the cause has");
			sum += n;
		}
	}
	if (sum > spikes)
		return fail(rd, w, "irq_at and irq_at_other count more spikes than the cause has");
	return 0;
}

static int read_cause_list(struct rd *rd, json_t *causes, const char *where, uint64_t attributed,
			   json_t *seen, json_t *fns)
{
	char w[120], path[160];
	json_t *c;
	uint64_t sum = 0, prev = UINT64_MAX, spikes, excess;
	const char *key, *kind;
	size_t i;
	int rc;

	json_array_foreach (causes, i, c) {
		snprintf(w, sizeof(w), "%s.causes[%zu]", where, i);
		if (!json_is_object(c))
			return fail(rd, w, "is not an object");
		if ((rc = get_text(rd, c, "cause", w, ATTRIB_TEXT_MAX, false, &key)) ||
		    (rc = get_text(rd, c, "kind", w, REPORT_NAME_MAX, false, &kind)) ||
		    (rc = get_u64(rd, c, "spikes", w, false, &spikes, NULL)) ||
		    (rc = get_u64(rd, c, "excess_ns", w, false, &excess, NULL)) ||
		    (rc = read_irq_at(rd, c, w, spikes, fns)))
			return rc;
		json_t *sh = json_object_get(c, "share");
		snprintf(path, sizeof(path), "%s.share", w);
		if (!json_is_number(sh) || !(json_number_value(sh) >= 0) ||
		    !(json_number_value(sh) <= 1))
			return fail(rd, path, "is not a number in 0..1");
		if (!*key)
			return fail(rd, w, "cause is empty");
		if (excess > prev)
			return fail(rd, w, "causes are not sorted by excess_ns, largest first");
		prev = excess;
		if (json_object_get(seen, key))
			return fail(rd, w, "cause is listed twice");
		if (json_object_set_new(seen, key, json_true()))
			return -ENOMEM;
		sum += spikes;
		if (spikes > attributed || sum > attributed)
			break; /* no wrap-around: too many already */
	}
	if (sum != attributed) {
		snprintf(path, sizeof(path), "%s.causes", where);
		return fail(rd, path, "spikes do not add up to attributed");
	}
	return 0;
}

/* spike_causes: attributed pairs [t_ns, index < number of causes], as many
 * per cause as it dominated. */
static int read_spike_causes(struct rd *rd, json_t *s, const char *where, json_t *causes,
			     uint64_t attributed)
{
	size_t n = json_array_size(causes), i;
	uint64_t *per = calloc(n ? n : 1, sizeof(*per));
	char path[160];
	json_t *sc, *e;
	int rc;

	if (!per)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s.spike_causes", where);
	if ((rc = get_array(rd, s, "spike_causes", where, REPORT_INTERVALS_MAX,
			    "holds more than the readers' limit of 200000000 spikes", &sc)))
		goto out;
	rc = -EINVAL;
	if (json_array_size(sc) != attributed) {
		fail(rd, path, "does not hold one entry per attributed spike");
		goto out;
	}
	json_array_foreach (sc, i, e) {
		json_t *t = json_array_get(e, 0), *k = json_array_get(e, 1);
		if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_integer(t) ||
		    !json_is_integer(k) || json_integer_value(t) < 0 || json_integer_value(k) < 0) {
			fail(rd, path, "holds an entry that is not [t_ns, cause index]");
			goto out;
		}
		if ((uint64_t)json_integer_value(k) >= n) {
			char msg[96];
			snprintf(msg, sizeof(msg),
				 "entry %zu: cause index %" JSON_INTEGER_FORMAT
				 " is out of range (%zu cause%s)",
				 i, json_integer_value(k), n, n == 1 ? "" : "s");
			fail(rd, path, msg);
			goto out;
		}
		per[json_integer_value(k)]++;
	}
	for (i = 0; i < n; i++) {
		uint64_t want;
		get_u64(rd, json_array_get(causes, i), "spikes", where, false, &want, NULL);
		if (per[i] != want) {
			char msg[96];
			snprintf(msg, sizeof(msg),
				 "holds %" PRIu64 " spike%s of cause %zu, which has %" PRIu64,
				 per[i], per[i] == 1 ? "" : "s", i, want);
			fail(rd, path, msg);
			goto out;
		}
	}
	rc = 0;
out:
	free(per);
	return rc;
}

static int get_u64_or_null(struct rd *rd, json_t *o, const char *key, const char *where)
{
	char path[200];
	json_t *v = json_object_get(o, key);
	uint64_t u;

	snprintf(path, sizeof(path), "%s.%s", where, key);
	if (!v)
		return fail(rd, path, "is missing");
	return get_u64(rd, o, key, where, true, &u, NULL);
}

static int read_contributors(struct rd *rd, json_t *t, const char *where)
{
	json_t *cs, *c, *v;
	char w[200], path[240];
	const char *s;
	uint64_t u;
	size_t i;
	int rc;

	if ((rc = get_array(rd, t, "contributors", where, ATTRIB_CONTRIB_MAX,
			    "holds more than the limit of 64 contributors", &cs)))
		return rc;
	json_array_foreach (cs, i, c) {
		snprintf(w, sizeof(w), "%s.contributors[%zu]", where, i);
		if (!json_is_object(c))
			return fail(rd, w, "is not an object");
		if ((rc = get_text(rd, c, "kind", w, REPORT_NAME_MAX, false, &s)) ||
		    (rc = get_text(rd, c, "name", w, REPORT_NAME_MAX, false, &s)) ||
		    (rc = get_text(rd, c, "policy", w, REPORT_NAME_MAX, true, &s)) ||
		    (rc = get_u64(rd, c, "ns", w, false, &u, NULL)) ||
		    (rc = get_u64_or_null(rd, c, "id", w)))
			return rc;
		/* pid and priority: integers (a nice value is negative) or null */
		static const char *const ints[] = { "pid", "priority" };
		for (unsigned k = 0; k < 2; k++) {
			v = json_object_get(c, ints[k]);
			snprintf(path, sizeof(path), "%s.%s", w, ints[k]);
			if (!json_is_integer(v) && !json_is_null(v))
				return fail(rd, path,
					    v ? "is not an integer or null" : "is missing");
		}
		/* function (reports since it existed): what it ran, or null */
		v = json_object_get(c, "function");
		snprintf(path, sizeof(path), "%s.function", w);
		if (v && !json_is_null(v) &&
		    (!json_is_object(v) ||
		     (rc = get_text(rd, v, "name", path, REPORT_NAME_MAX, false, &s)) ||
		     (rc = get_text(rd, v, "kind", path, REPORT_NAME_MAX, false, &s)) ||
		     (rc = get_u64(rd, v, "ns", path, false, &u, NULL)) ||
		     (rc = get_u64(rd, v, "other_ns", path, false, &u, NULL))))
			return rc ? rc : fail(rd, path, "is not an object or null");
		/* irq_thread (reports since it existed): a threaded handler, or null */
		v = json_object_get(c, "irq_thread");
		snprintf(path, sizeof(path), "%s.irq_thread", w);
		if (v && !json_is_null(v)) {
			json_t *by = json_object_get(v, "woken_by");
			char bp[300];

			snprintf(bp, sizeof(bp), "%s.woken_by", path);
			if (!json_is_object(v))
				return fail(rd, path, "is not an object or null");
			if ((rc = get_u64(rd, v, "irq", path, false, &u, NULL)) ||
			    (rc = get_text(rd, v, "name", path, REPORT_NAME_MAX, true, &s)))
				return rc;
			if (!by)
				return fail(rd, bp, "is missing");
			if (!json_is_null(by) &&
			    (!json_is_object(by) ||
			     (rc = get_text(rd, by, "kind", bp, REPORT_NAME_MAX, false, &s)) ||
			     (rc = get_text(rd, by, "name", bp, REPORT_NAME_MAX, false, &s)) ||
			     (rc = get_u64_or_null(rd, by, "id", bp)) ||
			     !json_is_integer(json_object_get(by, "offset_ns")) ||
			     !(json_is_integer(json_object_get(by, "pid")) ||
			       json_is_null(json_object_get(by, "pid")))))
				return rc ? rc
					  : fail(rd, bp,
						 "is not an object with kind, name, id, pid and "
						 "offset_ns");
		}
	}
	return 0;
}

/* top[].runnable (reports since it existed): the run queue at the
 * deadline, each task with its pid, name, policy, priority and whether it
 * was on the CPU. */
static int read_runnable(struct rd *rd, json_t *t, const char *where)
{
	json_t *rq, *k, *v;
	char w[240], path[280];
	const char *s;
	size_t i;
	int rc;

	if (!json_object_get(t, "runnable"))
		return 0;
	if ((rc = get_array(rd, t, "runnable", where, ATTRIB_CONTRIB_MAX,
			    "holds more than the limit of 64 tasks", &rq)))
		return rc;
	json_array_foreach (rq, i, k) {
		snprintf(w, sizeof(w), "%s.runnable[%zu]", where, i);
		if (!json_is_object(k))
			return fail(rd, w, "is not an object");
		if ((rc = get_text(rd, k, "name", w, REPORT_NAME_MAX, false, &s)) ||
		    (rc = get_text(rd, k, "policy", w, REPORT_NAME_MAX, false, &s)))
			return rc;
		static const char *const ints[] = { "pid", "priority" };
		for (unsigned n = 0; n < 2; n++) {
			v = json_object_get(k, ints[n]);
			snprintf(path, sizeof(path), "%s.%s", w, ints[n]);
			if (!json_is_integer(v))
				return fail(rd, path, v ? "is not an integer" : "is missing");
		}
		snprintf(path, sizeof(path), "%s.running", w);
		if (!json_is_boolean(json_object_get(k, "running")))
			return fail(rd, path, "is not a boolean");
	}
	return 0;
}

/* top[].cpus (reports since it existed): each other measured CPU at the
 * deadline, its number, whether its window covered the moment, and its
 * run queue as top[].runnable's (empty when not known). */
static int read_cpus(struct rd *rd, json_t *t, const char *where)
{
	json_t *cpus, *c, *v;
	char w[240], path[280];
	size_t i;
	int rc;

	if (!json_object_get(t, "cpus"))
		return 0;
	if ((rc = get_array(rd, t, "cpus", where, ATTRIB_CPUS_MAX,
			    "holds more than the limit of 64 CPUs", &cpus)))
		return rc;
	json_array_foreach (cpus, i, c) {
		snprintf(w, sizeof(w), "%s.cpus[%zu]", where, i);
		if (!json_is_object(c))
			return fail(rd, w, "is not an object");
		v = json_object_get(c, "cpu");
		snprintf(path, sizeof(path), "%s.cpu", w);
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return fail(rd, path, v ? "is not a CPU number" : "is missing");
		static const char *const flags[] = { "known", "runnable_truncated" };
		for (unsigned n = 0; n < 2; n++) {
			v = json_object_get(c, flags[n]);
			snprintf(path, sizeof(path), "%s.%s", w, flags[n]);
			if (!json_is_boolean(v))
				return fail(rd, path, v ? "is not a boolean" : "is missing");
		}
		snprintf(path, sizeof(path), "%s.runnable", w);
		if (!json_object_get(c, "runnable"))
			return fail(rd, path, "is missing");
		if ((rc = read_runnable(rd, c, w)))
			return rc;
	}
	v = json_object_get(t, "cpus_truncated");
	if (v && !json_is_boolean(v)) {
		snprintf(path, sizeof(path), "%s.cpus_truncated", where);
		return fail(rd, path, "is not a boolean");
	}
	return 0;
}

/* top[].timeline (reports since it existed): [off_ns, ns, contributor
 * index or null] in time order, not overlapping, inside the latency, each
 * index naming one of the spike's contributors: what the views draw. */
static int read_timeline(struct rd *rd, json_t *t, const char *where)
{
	json_t *tl, *g, *v;
	char w[240];
	uint64_t lat = json_integer_value(json_object_get(t, "latency_ns")), end = 0;
	size_t nc = json_array_size(json_object_get(t, "contributors")), i;
	int rc;

	if (!json_object_get(t, "timeline"))
		return 0;
	if ((rc = get_array(rd, t, "timeline", where, ATTRIB_TIMELINE_MAX,
			    "holds more than the limit of 4096 segments", &tl)))
		return rc;
	json_array_foreach (tl, i, g) {
		json_t *off = json_array_get(g, 0), *ns = json_array_get(g, 1);
		snprintf(w, sizeof(w), "%s.timeline[%zu]", where, i);
		v = json_array_get(g, 2);
		if (!json_is_array(g) || json_array_size(g) != 3 || !json_is_integer(off) ||
		    !json_is_integer(ns) || json_integer_value(off) < 0 ||
		    json_integer_value(ns) < 0 || !(json_is_null(v) || json_is_integer(v)))
			return fail(rd, w, "is not [offset_ns, ns, contributor index or null]");
		if (json_is_integer(v) &&
		    (json_integer_value(v) < 0 || (size_t)json_integer_value(v) >= nc))
			return fail(rd, w, "names a contributor the spike does not list");
		uint64_t a = (uint64_t)json_integer_value(off),
			 n = (uint64_t)json_integer_value(ns);
		if (a < end || n > lat || a > lat - n)
			return fail(rd, w,
				    "overlaps the segment before it or lies outside the latency");
		end = a + n;
	}
	v = json_object_get(t, "timeline_truncated");
	if (!json_is_boolean(v)) {
		snprintf(w, sizeof(w), "%s.timeline_truncated", where);
		return fail(rd, w, v ? "is not a boolean" : "is missing");
	}
	return 0;
}

static int read_attrib_top(struct rd *rd, json_t *s, const char *where)
{
	json_t *top, *t;
	char w[160];
	const char *str;
	uint64_t u;
	size_t i;
	int rc;

	if ((rc = get_array(rd, s, "top", where, ATTRIB_TOP_MAX,
			    "holds more than the limit of 4096 spikes", &top)))
		return rc;
	json_array_foreach (top, i, t) {
		snprintf(w, sizeof(w), "%s.top[%zu]", where, i);
		if (!json_is_object(t))
			return fail(rd, w, "is not an object");
		if ((rc = get_u64(rd, t, "t_ns", w, false, &u, NULL)) ||
		    (rc = get_u64(rd, t, "latency_ns", w, false, &u, NULL)) ||
		    (rc = get_u64_or_null(rd, t, "irq_ns", w)) ||
		    (rc = get_u64_or_null(rd, t, "thread_ns", w)) ||
		    (rc = get_u64_or_null(rd, t, "user_ns", w)) ||
		    (rc = get_text(rd, t, "cause", w, ATTRIB_TEXT_MAX, true, &str)) ||
		    (rc = get_text(rd, t, "verdict", w, ATTRIB_TEXT_MAX, false, &str)) ||
		    (rc = read_contributors(rd, t, w)) || (rc = read_timeline(rd, t, w)) ||
		    (rc = read_runnable(rd, t, w)) || (rc = read_cpus(rd, t, w)) ||
		    (json_object_get(t, "steal_ns") &&
		     ((rc = get_u64_or_null(rd, t, "steal_ns", w)) ||
		      (rc = get_u64_or_null(rd, t, "steal_span_ns", w)))) ||
		    (json_object_get(t, "irq_at") &&
		     (rc = get_text(rd, t, "irq_at", w, REPORT_NAME_MAX, true, &str))))
			return rc;
	}
	return 0;
}

static int read_attrib_series(struct rd *rd, json_t *s, size_t k)
{
	static const char *const reasons[] = { "events_lost", "no_events", "no_anchor" };
	char where[64];
	const char *probe, *phase;
	uint64_t cpu, u, spikes, attributed, lost = 0;
	json_t *na, *causes;
	int rc;

	snprintf(where, sizeof(where), "attribution.series[%zu]", k);
	if (!json_is_object(s))
		return fail(rd, where, "is not an object");
	if ((rc = get_text(rd, s, "probe", where, REPORT_NAME_MAX, false, &probe)) ||
	    (rc = get_cpu(rd, s, where, &cpu)) ||
	    (rc = get_text(rd, s, "phase", where, REPORT_NAME_MAX, false, &phase)) ||
	    (rc = get_u64(rd, s, "threshold_ns", where, false, &u, NULL)) ||
	    (rc = get_u64(rd, s, "spikes", where, false, &spikes, NULL)) ||
	    (rc = get_u64(rd, s, "attributed", where, false, &attributed, NULL)) ||
	    (rc = get_object(rd, s, "not_attributed", where, &na)))
		return rc;
	char w2[96];
	snprintf(w2, sizeof(w2), "%s.not_attributed", where);
	for (unsigned j = 0; j < 3; j++) {
		if ((rc = get_u64(rd, na, reasons[j], w2, false, &u, NULL)))
			return rc;
		lost += u;
	}
	if (attributed > spikes || lost != spikes - attributed)
		return fail(rd, where, "attributed and not_attributed do not add up to spikes");
	if ((rc = read_causes(rd, s, where, attributed, &causes)) ||
	    (rc = read_spike_causes(rd, s, where, causes, attributed)))
		return rc;
	return read_attrib_top(rd, s, where);
}

/* Optional: only runs with --trace have it. */
static int read_attribution(struct rd *rd, struct report *r, json_t *root)
{
	json_t *at = json_object_get(root, "attribution"), *series, *s;
	size_t i;
	int rc;

	if (!at)
		return 0;
	if (!json_is_object(at))
		return fail(rd, "attribution", "is not an object");
	if ((rc = read_tracer(rd, at)) || (rc = read_attrib_cpus(rd, at)) ||
	    (rc = get_array(rd, at, "series", "attribution", REPORT_RESULTS_MAX,
			    "holds more than the readers' limit of 1000000 entries", &series)))
		return rc;
	json_array_foreach (series, i, s)
		if ((rc = read_attrib_series(rd, s, i)))
			return rc;
	/* The index finds entries that repeat a key, in O(n). */
	if ((rc = attribution_set(r, at, &i)) == -EEXIST) {
		char where[64];
		snprintf(where, sizeof(where), "attribution.series[%zu]", i);
		return fail(rd, where, "repeats the probe, cpu and phase of an earlier entry");
	}
	return rc;
}

static int read_root(struct rd *rd, struct report *r, json_t *root)
{
	json_t *tool = json_object_get(root, "tool"), *run = json_object_get(root, "run");
	json_t *argv = json_object_get(tool, "argv"), *warnings = json_object_get(run, "warnings");
	const char *schema, *version, *start, *end, *status;
	json_t *v;
	size_t i;
	int rc;

	if (!json_is_object(root))
		return fail(rd, "top level", "is not a JSON object");
	if ((rc = get_str(rd, root, "schema", "report", &schema)))
		return rc;
	if (strcmp(schema, REPORT_SCHEMA) != 0) {
		char msg[128];
		snprintf(msg, sizeof(msg), "unknown schema '%.60s' (this build reads %s)", schema,
			 REPORT_SCHEMA);
		return fail(rd, "schema", msg);
	}
	if (!json_is_object(tool) || !json_is_object(run) || !json_is_array(argv) ||
	    !json_is_array(warnings))
		return fail(rd, "tool/run", "missing or malformed");
	if ((rc = get_str(rd, tool, "version", "tool", &version)) ||
	    (rc = get_str(rd, run, "start", "run", &start)) ||
	    (rc = get_str(rd, run, "end", "run", &end)) ||
	    (rc = get_str(rd, run, "status", "run", &status)) ||
	    (rc = get_u64(rd, run, "duration_ns", "run", false, &r->duration_ns, NULL)))
		return rc;
	/* Optional: a checkpoint read with its series log, written out again. */
	if (json_object_get(run, "series_until_ns") &&
	    (rc = get_u64(rd, run, "series_until_ns", "run", false, &r->series_until_ns, NULL)))
		return rc;
	if (report_status_parse(status, &r->status))
		return fail(rd, "run.status",
			    "is not complete, interrupted, running, failed or disturbed");
	if (!json_is_boolean(json_object_get(run, "realtime")))
		return fail(rd, "run.realtime", "is not a boolean");
	r->realtime = json_is_true(json_object_get(run, "realtime"));
	snprintf(r->start, sizeof(r->start), "%s", start);
	snprintf(r->end, sizeof(r->end), "%s", end);
	if (json_array_size(argv) > REPORT_LIST_MAX || json_array_size(warnings) > REPORT_LIST_MAX)
		return fail(rd, "tool.argv/run.warnings", "more than the limit of 65536 entries");
	r->tool_version = strdup(version);
	r->argv = calloc(json_array_size(argv) + 1, sizeof(*r->argv));
	if (!r->tool_version || !r->argv)
		return -ENOMEM;
	json_array_foreach (argv, i, v) {
		if (!json_is_string(v))
			return fail(rd, "tool.argv", "holds a non-string");
		if (!(r->argv[r->argc++] = strdup(json_string_value(v))))
			return -ENOMEM;
	}
	json_array_foreach (warnings, i, v) {
		if (!json_is_string(v))
			return fail(rd, "run.warnings", "holds a non-string");
		if (report_warn(r, "%s", json_string_value(v)))
			return -ENOMEM;
	}
	r->config = json_incref(json_object_get(root, "config"));
	r->system = json_incref(json_object_get(root, "system"));
	if (!json_is_object(r->config) || !json_is_object(r->system))
		return fail(rd, "config/system", "missing or not an object");
	if ((rc = read_checks(rd, r, root)))
		return rc;
	r->loads = json_incref(json_object_get(root, "loads"));
	r->phases = json_incref(json_object_get(root, "phases"));
	if (!json_is_array(r->loads) || !json_is_array(r->phases))
		return fail(rd, "loads/phases", "missing or not an array");
	/* Optional: reports from before --set and ab have neither. */
	r->tweaks = json_incref(json_object_get(root, "tweaks"));
	r->ab = json_incref(json_object_get(root, "ab"));
	if ((r->tweaks && !json_is_array(r->tweaks)) || (r->ab && !json_is_object(r->ab)))
		return fail(rd, "tweaks/ab", "not an array/object");
	/* Optional: run --on-spike.  Only the text summary reads it, each
	 * member checked there (an integer or left out). */
	r->on_spike = json_incref(json_object_get(root, "on_spike"));
	if (r->on_spike && !json_is_object(r->on_spike))
		return fail(rd, "on_spike", "not an object");
	if ((rc = read_results(rd, r, root, BIG_RESULTS, false)) ||
	    (rc = read_results(rd, r, root, BIG_AGGREGATES, true)) || (rc = read_periods(rd, r)) ||
	    (rc = read_series(rd, r, root)) || (rc = read_attribution(rd, r, root)))
		return rc;
	/* A checkpoint's summary: its series' columns are in the series log. */
	json_t *sl = json_object_get(root, "series_log");
	if (sl && (rc = serieslog_merge(r, rd->file, sl, rd->err, rd->errlen)))
		return rc;
	return analysis_add_culprits(r);
}

/* Could the text hold a NaN that nothing has parsed?  Not once jansson has
 * parsed all of it; after the splitter, the big arrays' spans may not have
 * been (a cyclictest file's are not read at all). */
static bool unparsed_span(const struct rd *rd, bool whole)
{
	for (int k = 0; !whole && k < BIG_N; k++)
		if (rd->span[k].set)
			return true;
	return false;
}

/* The whole text again, when drop_read gave part of it back: 0, or -errno
 * with err set (the file may have changed since: what is read now is what
 * is judged). */
static int reload(struct rd *rd, char **text, const char *path, char *err, size_t errlen)
{
	if (!rd->dropped)
		return 0;
	free(*text);
	rd->dropped = 0;
	if (!(*text = cyclictest_load_raw(path, &rd->len, err, errlen)))
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	return 0;
}

int report_json_read(const char *path, struct report *r, char *err, size_t errlen)
{
	struct rd rd = { .file = path, .err = err, .errlen = errlen };
	bool had_nan = false, nan_checked = false, whole = false;
	json_t *root = NULL;
	char *text;
	int rc;

	memset(r, 0, sizeof(*r));
	/* One loader for both formats: cyclictest writes -nan for a thread
	 * without cycles, which is not JSON (it becomes null); rtsoak never
	 * writes a non-finite number, so a NaN in a file that is not
	 * cyclictest's is an error.  A NaN outside strings fails every parse,
	 * so the text is read as it is, and only a failed read looks for NaN
	 * and, when there is one, starts again with NaN as null: a report
	 * that reads is not scanned or copied for it (issue 20).  Duplicate
	 * keys are rejected: a report is machine-written, a duplicate means
	 * it was edited or corrupted. */
	text = cyclictest_load_raw(path, &rd.len, err, errlen);
	if (!text)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
again:
	rd.text = text;
	if (whole) {
		/* The splitter gave up: the whole text as one tree, and jansson's
		 * word on what is wrong with it. */
		memset(rd.span, 0, sizeof(rd.span));
		root = cyclictest_parse_text(path, text, rd.len, err, errlen);
		if (!root) {
			rc = errno == ENOMEM ? -ENOMEM : -EINVAL;
			goto out;
		}
	} else if ((rc = split_top(&rd, &root)) == -EAGAIN) {
		whole = true;
		goto again;
	} else if (rc) {
		free(text);
		snprintf(err, errlen, "%s: out of memory", path);
		return rc;
	}
	if (cyclictest_detect(root)) { /* no big arrays: root is the whole file */
		if (!nan_checked && unparsed_span(&rd, whole)) {
			/* a NaN there would be missed: looked for first */
			nan_checked = true;
			rc = cyclictest_unnan(path, &text, &rd.len, &had_nan, err, errlen);
			if (rc || had_nan) {
				json_decref(root);
				root = NULL;
				if (rc)
					goto out;
				goto again;
			}
		}
		free(text);
		rc = cyclictest_read(path, root, r, err, errlen); /* warns about NaN itself */
		json_decref(root);
		return rc;
	}
	rc = -EINVAL;
	if (had_nan)
		snprintf(err, errlen, "%s: holds NaN or Infinity, which no rtsoak report does",
			 path);
	else if (json_is_object(root) && !json_object_get(root, "schema"))
		snprintf(
		    err, errlen,
		    "%s: neither an rtsoak report (no \"schema\") nor a cyclictest --json file",
		    path);
	else
		rc = read_root(&rd, r, root);
	json_decref(root);
	root = NULL;
	if (rc == -EAGAIN && !whole) { /* a syntax error inside a big array */
		report_free(r);
		whole = true;
		if (!(rc = reload(&rd, &text, path, err, errlen)))
			goto again;
		return rc; /* text freed */
	}
out:
	if (rc == -EINVAL && !nan_checked) {
		/* This error may be a NaN's: with NaN as null, from the start. */
		int e = reload(&rd, &text, path, err, errlen);
		if (e) {
			report_free(r);
			return e; /* text freed */
		}
		e = cyclictest_unnan(path, &text, &rd.len, &had_nan, err, errlen);
		nan_checked = true;
		if (e)
			rc = e;
		else if (had_nan) {
			report_free(r);
			whole = false;
			goto again;
		}
	}
	free(text);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	if (rc)
		report_free(r);
	return rc;
}
