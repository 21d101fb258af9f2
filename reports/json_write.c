// SPDX-License-Identifier: GPL-2.0-or-later
/* json_write: render the report model as rtsoak-report/1 JSON.
 *
 * Rules (docs/report-schema.json): integers in ns with the unit in the
 * key, never NaN or Infinity, statistics null when a result has no sample,
 * histograms sparse as [lower_ns, upper_ns, count] with lower inclusive and
 * upper exclusive.  Built with jansson, never with printf, except for the
 * integer columns of the time series (put_series); the results are dumped
 * by jansson one at a time (put_results). */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "report.h"
#include "util.h"
#include "views.h"

/* jansson integers are signed 64-bit; our values stay below 2^63 (a
 * latency of 292 years), so the cast is safe. */
static json_t *ns(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *histogram_layout(void)
{
	return json_pack("{s:s, s:I, s:I, s:I}", "kind", "log-linear", "exact_below_ns",
			 (json_int_t)HISTOGRAM_SUB_COUNT, "sub_buckets_per_octave",
			 (json_int_t)HISTOGRAM_SUB_COUNT, "overflow_from_ns",
			 (json_int_t)HISTOGRAM_MAX_TRACKABLE);
}

/* Every value is checked (bad): a result with a key missing is not a
 * result, and the report fails to write rather than go out short. */
static json_t *result_json(const struct report_result *res)
{
	json_t *o = json_object(), *top = json_array(), *hist = json_array();
	bool has = res->count > 0;
	int bad = !o || !top || !hist;

	if (bad)
		goto fail;
	bad |= util_json_set(o, "probe", util_json_string(res->probe));
	bad |= util_json_set(
	    o, "cpu", res->cpu == REPORT_CPU_ALL ? json_string("all") : json_integer(res->cpu));
	bad |= util_json_set(o, "phase", util_json_string(res->phase));
	bad |= util_json_set(o, "count", ns(res->count));
	bad |= util_json_set(o, "missed", ns(res->missed));
	if (res->discarded_known)
		bad |= util_json_set(o, "discarded", ns(res->discarded));
	if (res->counters)
		bad |= json_object_set(o, "counters", res->counters);
	bad |= util_json_set(o, "min_ns", has ? ns(res->min) : json_null());
	bad |= util_json_set(o, "mean_ns", has ? ns(res->mean) : json_null());
	bad |= util_json_set(o, "stddev_ns", has ? ns(res->stddev) : json_null());
	bad |= util_json_set(o, "max_ns", has ? ns(res->max) : json_null());
	bad |= util_json_set(o, "max_at_ns", has ? ns(res->max_at) : json_null());
	for (unsigned i = 0; i < REPORT_NPCT; i++)
		bad |= util_json_set(o, report_pct_key[i], has ? ns(res->pct[i]) : json_null());
	for (unsigned i = 0; i < res->ntop; i++)
		bad |= util_json_push(top,
				      json_pack("{s:I, s:I}", "t_ns", (json_int_t)res->top[i].t_ns,
						"latency_ns", (json_int_t)res->top[i].latency_ns));
	for (size_t k = 0; res->hist && k < res->hist->n; k++) {
		unsigned i = res->hist->e[k].index;
		/* The overflow bucket has no upper bound of its own: the exact
		 * max closes it. */
		uint64_t up = i == HISTOGRAM_OVERFLOW ? res->max + 1 : histogram_upper(i);
		bad |= util_json_push(hist,
				      json_pack("[I, I, I]", (json_int_t)histogram_lower(i),
						(json_int_t)up, (json_int_t)res->hist->e[k].count));
	}
	bad |= util_json_set(o, "top", top);
	bad |= util_json_set(o, "histogram", hist);
	top = hist = NULL;
	if (!bad)
		return o;
fail:
	json_decref(o);
	json_decref(top);
	json_decref(hist);
	return NULL;
}

/* The results and the aggregates are written one result at a time
 * (put_results): on 256 CPUs their jansson tree and its text were about
 * 100 MB at every summary and at the end (issue 20).  In the head's tree
 * they are these strings (jansson escapes them as \u0001...); a report in
 * which one of them appears more than once (a string of the user's exactly
 * like it) is dumped whole instead. */
#define MARK_RESULTS "\x01rtsoak-results\x01"
#define MARK_AGGREGATES "\x01rtsoak-aggregates\x01"
#define MARK_RESULTS_JSON "\"\\u0001rtsoak-results\\u0001\""
#define MARK_AGGREGATES_JSON "\"\\u0001rtsoak-aggregates\\u0001\""

static json_t *results_json(const struct report_result *res, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++) {
		json_t *o = result_json(&res[i]);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* The mark in text if it is there exactly once, else NULL. */
static char *mark_once(char *text, const char *mark)
{
	char *at = strstr(text, mark);

	return at && !strstr(at + 1, mark) ? at : NULL;
}

/* An array of results at depth 1 of the root, byte for byte as jansson
 * would print it with `flags` (JSON_INDENT(2) or JSON_COMPACT): each
 * element dumped alone and, indented, moved two levels in. */
static int put_results(FILE *f, const struct report_result *res, size_t n, size_t flags)
{
	bool indent = !(flags & JSON_COMPACT);

	if (!n) {
		fputs("[]", f);
		return 0;
	}
	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		json_t *o = result_json(&res[i]);
		char *text = o ? json_dumps(o, flags) : NULL;

		json_decref(o);
		if (!text)
			return -ENOMEM;
		if (indent)
			fputs("\n    ", f);
		for (const char *p = text; *p; p++) {
			fputc(*p, f);
			if (*p == '\n' && indent)
				fputs("    ", f);
		}
		free(text);
		if (i + 1 < n)
			fputc(',', f);
	}
	fputs(indent ? "\n  ]" : "]", f);
	return 0;
}

/* Everything but the series. */
static json_t *head_json(const struct report *r, bool marks)
{
	json_t *root = json_object(), *argv = json_array(), *warnings = json_array();
	json_t *results = marks ? json_string(MARK_RESULTS) : results_json(r->results, r->nresults);
	json_t *aggregates =
	    marks ? json_string(MARK_AGGREGATES) : results_json(r->aggregates, r->naggregates);

	if (!root || !argv || !warnings || !results || !aggregates) {
		json_decref(root);
		json_decref(argv);
		json_decref(warnings);
		json_decref(results);
		json_decref(aggregates);
		return NULL;
	}
	int bad = 0;
	/* argv and the warnings carry what the user typed and names the
	 * system gave: made valid UTF-8, as every name in the model. */
	for (int i = 0; i < r->argc; i++)
		bad |= util_json_push(argv, util_json_string(r->argv[i]));
	for (size_t i = 0; i < r->nwarnings; i++)
		bad |= util_json_push(warnings, util_json_string(r->warnings[i]));

	bad |= util_json_set(root, "schema", json_string(REPORT_SCHEMA));
	/* tool.version as read from a report: util_json_string, not "s" */
	bad |= util_json_set(
	    root, "tool",
	    json_pack("{s:s, s:o, s:o}", "name", "rtsoak", "version",
		      util_json_string(r->tool_version ? r->tool_version : PACKAGE_VERSION), "argv",
		      argv));
	bad |= util_json_set(root, "run",
			     json_pack("{s:s, s:s, s:I, s:s, s:b, s:o}", "start", r->start, "end",
				       r->end, "duration_ns", (json_int_t)r->duration_ns, "status",
				       report_status_name(r->status), "realtime", r->realtime,
				       "warnings", warnings));
	if (!bad && r->series_until_ns) /* a checkpoint read with its series log */
		bad |= util_json_set(json_object_get(root, "run"), "series_until_ns",
				     json_integer((json_int_t)r->series_until_ns));
	/* Borrowed from the model, or empty ones of our own. */
	bad |= util_json_set(root, "config", r->config ? json_incref(r->config) : json_object());
	bad |= util_json_set(root, "system", r->system ? json_incref(r->system) : json_object());
	if (r->checks) /* as read or as the run found them: unchanged */
		bad |= json_object_set(root, "checks", r->checks);
	bad |= util_json_set(root, "loads", r->loads ? json_incref(r->loads) : json_array());
	bad |= util_json_set(root, "phases", r->phases ? json_incref(r->phases) : json_array());
	bad |= util_json_set(root, "histogram_layout", histogram_layout());
	bad |= util_json_set(root, "results", results);
	bad |= util_json_set(root, "aggregates", aggregates);
	bad |= util_json_set(root, "tweaks", r->tweaks ? json_incref(r->tweaks) : json_array());
	if (r->ab)
		bad |= json_object_set(root, "ab", r->ab);
	if (r->analysis)
		bad |= json_object_set(root, "analysis", r->analysis);
	if (r->attribution) /* as read or as the run built it: unchanged */
		bad |= json_object_set(root, "attribution", r->attribution);
	if (r->on_spike)
		bad |= json_object_set(root, "on_spike", r->on_spike);
	if (r->series_log) /* a checkpoint's summary: the series' columns are there */
		bad |= json_object_set(root, "series_log", r->series_log);
	if (bad) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* Write one column of series values as a JSON array. */
#define PUT_COLUMN(f, key, arr, n, field)                                                     \
	do {                                                                                  \
		fprintf(f, "\"%s\":[", key);                                                  \
		for (size_t i_ = 0; i_ < (n); i_++)                                           \
			fprintf(f, i_ ? ",%" PRIu64 : "%" PRIu64, (uint64_t)(arr)[i_].field); \
		fputc(']', f);                                                                \
	} while (0)

/* One column of the intervals, decoded in order from the store (a pass per
 * column: decoding is cheap next to printing). */
enum { COL_COUNT, COL_MAX, COL_SPIKES, COL_MISSED };

static void put_store_column(FILE *f, const char *key, const struct series_store *st, int col)
{
	struct series_cursor c;
	struct series_interval v;
	bool first = true;

	fprintf(f, "\"%s\":[", key);
	series_cursor_init(&c, st, 0);
	while (series_cursor_next(&c, &v)) {
		uint64_t x = col == COL_COUNT	 ? v.count
			     : col == COL_MAX	 ? v.max_ns
			     : col == COL_SPIKES ? v.spikes
						 : v.missed;
		fprintf(f, first ? "%" PRIu64 : ",%" PRIu64, x);
		first = false;
	}
	fputc(']', f);
}

static void put_u64_or_null(FILE *f, const char *key, bool has, uint64_t v)
{
	if (has)
		fprintf(f, "\"%s\":%" PRIu64 ",", key, v);
	else
		fprintf(f, "\"%s\":null,", key);
}

/* One series as one compact line.  Its columns are integers only, so they are
 * printed straight from the model: a jansson tree of a day's intervals would
 * cost ~45 bytes per value, ten times the series itself (docs/BENCHMARKS.md,
 * bench/memory.sh).  The probe name, the only string, goes through jansson. */
static int put_series(FILE *f, const struct report_series *rs, bool logged)
{
	json_t *probe = json_string(rs->probe);
	char *name = probe ? json_dumps(probe, JSON_ENCODE_ANY) : NULL;
	bool thr = rs->threshold_ns != 0;

	json_decref(probe);
	if (!name)
		return -ENOMEM;
	fprintf(f, "{\"probe\":%s,\"cpu\":%d,\"interval_ns\":%" PRIu64 ",\"stalls\":%" PRIu64 ",",
		name, rs->cpu, rs->interval_ns, rs->stalls);
	free(name);
	/* In a checkpoint's summary the columns are in the series log. */
	static const struct series_store none;
	const struct series_store *st = logged ? &none : rs->st;
	size_t nspikes = logged ? 0 : rs->nspikes;
	fprintf(f, "\"intervals\":{\"n\":%zu,", st->n);
	put_store_column(f, "count", st, COL_COUNT);
	fputc(',', f);
	put_store_column(f, "max_ns", st, COL_MAX);
	fputc(',', f);
	put_store_column(f, "spikes", st, COL_SPIKES);
	fputc(',', f);
	put_store_column(f, "missed", st, COL_MISSED);
	fputs("},\"spike_log\":{", f);
	put_u64_or_null(f, "threshold_ns", thr, rs->threshold_ns);
	put_u64_or_null(f, "threshold_at_ns", thr, rs->threshold_at_ns);
	fprintf(f,
		"\"total\":%" PRIu64 ",\"logged\":%zu,\"overwritten\":%" PRIu64
		",\"not_logged\":%" PRIu64 ",",
		rs->spikes_total, nspikes, rs->spikes_overwritten, rs->spikes_unlogged);
	PUT_COLUMN(f, "t_ns", rs->spikes, nspikes, t_ns);
	fputc(',', f);
	PUT_COLUMN(f, "latency_ns", rs->spikes, nspikes, latency_ns);
	fputc(',', f);
	PUT_COLUMN(f, "phase", rs->spikes, nspikes, phase);
	fputc('}', f);
	/* Per-interval quantiles (issue 30); in a summary they are in the log. */
	if (!logged && rs->nquant) {
		static const char *const key[SERIES_NQ] = { "p50_ns", "p99_ns", "p99_9_ns" };
		fprintf(f, ",\"quantiles\":{\"interval_ns\":%" PRIu64 ",\"merged\":%s,\"n\":%zu,",
			rs->quant_interval_ns, rs->quant_merged ? "true" : "false", rs->nquant);
		PUT_COLUMN(f, "count", rs->quant, rs->nquant, count);
		for (unsigned k = 0; k < SERIES_NQ; k++) {
			fprintf(f, ",\"%s\":[", key[k]);
			for (size_t i = 0; i < rs->nquant; i++)
				fprintf(f, i ? ",%" PRIu64 : "%" PRIu64,
					series_quant_ns(rs->quant[i].q[k]));
			fputc(']', f);
		}
		fputc('}', f);
	}
	fputc('}', f);
	return 0;
}

int json_document_write(json_t *root, const char *path)
{
	char *text = root ? json_dumps(root, JSON_INDENT(2)) : NULL;
	int rc;

	json_decref(root);
	if (!text)
		return -ENOMEM;
	size_t len = strlen(text);
	text[len] = '\n'; /* replace the NUL: the buffer is written by length */
	rc = output_write(path, text, len + 1);
	free(text);
	return rc;
}

/* jansson indents every array element onto its own line, which makes a
 * day of one-second intervals tens of megabytes.  The series go last, one
 * compact line per series, after the indented rest. */
static int put_report(FILE *f, void *arg)
{
	const struct report *r = arg;
	json_t *root = head_json(r, true);
	/* A checkpoint's summary is for rtsoak to read, and its size is
	 * budgeted (session_output.c): compact.  The final report is indented. */
	size_t flags = r->series_log ? JSON_COMPACT : JSON_INDENT(2);
	char *head = root ? json_dumps(root, flags) : NULL;
	char *text = head, *res, *agg;
	int rc = 0;

	json_decref(root);
	if (!head)
		return -ENOMEM;
	res = mark_once(head, MARK_RESULTS_JSON);
	agg = mark_once(head, MARK_AGGREGATES_JSON);
	if (!res || !agg || agg < res) {
		free(head);
		root = head_json(r, false);
		text = head = root ? json_dumps(root, flags) : NULL;
		json_decref(root);
		if (!head)
			return -ENOMEM;
	} else {
		/* the head up to each mark, and the results in its place */
		fwrite(text, 1, (size_t)(res - text), f);
		rc = put_results(f, r->results, r->nresults, flags);
		text = res + strlen(MARK_RESULTS_JSON);
		if (!rc) {
			fwrite(text, 1, (size_t)(agg - text), f);
			rc = put_results(f, r->aggregates, r->naggregates, flags);
		}
		text = agg + strlen(MARK_AGGREGATES_JSON);
	}
	size_t len = strlen(text);
	if (rc) {
		free(head);
		return rc;
	}
	if (r->nseries && len && text[len - 1] == '}') {
		/* Up to the closing brace (and the newline before it, indented). */
		size_t cut = len - 1 - (len > 1 && text[len - 2] == '\n');
		fprintf(f, "%.*s,\n  \"series\": [", (int)cut, text);
		for (size_t i = 0; !rc && i < r->nseries; i++) {
			fputs(i ? ",\n    " : "\n    ", f);
			rc = put_series(f, &r->series[i], r->series_log != NULL);
		}
		fputs("\n  ]\n}\n", f);
	} else {
		fprintf(f, "%s\n", text);
	}
	free(head);
	return rc;
}

int report_json_write(const struct report *r, const char *path)
{
	return output_write_with(path, put_report, (void *)r);
}

int report_json_write_new(const struct report *r, const char *dir, const char *prefix, char *path,
			  size_t len)
{
	return util_write_new(dir, prefix, ".json", put_report, (void *)r, path, len);
}
