/* json_write: render the report model as rtsoak-report/1 JSON.
 *
 * Rules (docs/report-schema.json): integers in ns with the unit in the
 * key, never NaN or Infinity, statistics null when a result has no sample,
 * histograms sparse as [lower_ns, upper_ns, count] with lower inclusive and
 * upper exclusive.  Built with jansson, never with printf. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "util.h"

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

static json_t *result_json(const struct report_result *res)
{
	json_t *o = json_object(), *top = json_array(), *hist = json_array();
	bool has = res->count > 0;

	if (!o || !top || !hist)
		goto fail;
	json_object_set_new(o, "probe", json_string(res->probe));
	json_object_set_new(
	    o, "cpu", res->cpu == REPORT_CPU_ALL ? json_string("all") : json_integer(res->cpu));
	json_object_set_new(o, "phase", json_string(res->phase));
	json_object_set_new(o, "count", ns(res->count));
	json_object_set_new(o, "missed", ns(res->missed));
	if (res->counters)
		json_object_set(o, "counters", res->counters);
	json_object_set_new(o, "min_ns", has ? ns(res->min) : json_null());
	json_object_set_new(o, "mean_ns", has ? ns(res->mean) : json_null());
	json_object_set_new(o, "stddev_ns", has ? ns(res->stddev) : json_null());
	json_object_set_new(o, "max_ns", has ? ns(res->max) : json_null());
	json_object_set_new(o, "max_at_ns", has ? ns(res->max_at) : json_null());
	for (unsigned i = 0; i < REPORT_NPCT; i++)
		json_object_set_new(o, report_pct_key[i], has ? ns(res->pct[i]) : json_null());
	for (unsigned i = 0; i < res->ntop; i++)
		json_array_append_new(top,
				      json_pack("{s:I, s:I}", "t_ns", (json_int_t)res->top[i].t_ns,
						"latency_ns", (json_int_t)res->top[i].latency_ns));
	json_object_set_new(o, "top", top);
	for (unsigned i = 0; res->hist && i < HISTOGRAM_BUCKETS; i++) {
		uint64_t c = res->hist->bucket[i];
		if (!c)
			continue;
		/* The overflow bucket has no upper bound of its own: the exact
		 * max closes it. */
		uint64_t up = i == HISTOGRAM_OVERFLOW ? res->max + 1 : histogram_upper(i);
		json_array_append_new(hist, json_pack("[I, I, I]", (json_int_t)histogram_lower(i),
						      (json_int_t)up, (json_int_t)c));
	}
	json_object_set_new(o, "histogram", hist);
	return o;
fail:
	json_decref(o);
	json_decref(top);
	json_decref(hist);
	return NULL;
}

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

/* An array of n values taken from a struct array by `get`. */
#define COLUMN(arr, n, expr)                                   \
	({                                                     \
		json_t *col_ = json_array();                   \
		for (size_t i_ = 0; col_ && i_ < (n); i_++) {  \
			__typeof__(&(arr)[0]) e = &(arr)[i_];  \
			json_array_append_new(col_, ns(expr)); \
		}                                              \
		col_;                                          \
	})

static json_t *series_json(const struct report_series *rs)
{
	json_t *o = json_object();
	bool thr = rs->threshold_ns != 0;

	json_object_set_new(o, "probe", json_string(rs->probe));
	json_object_set_new(o, "cpu", json_integer(rs->cpu));
	json_object_set_new(o, "interval_ns", ns(rs->interval_ns));
	json_object_set_new(o, "stalls", ns(rs->stalls));
	json_object_set_new(o, "intervals",
			    json_pack("{s:I, s:o, s:o, s:o, s:o}", "n", (json_int_t)rs->n, "count",
				      COLUMN(rs->v, rs->n, e->count), "max_ns",
				      COLUMN(rs->v, rs->n, e->max_ns), "spikes",
				      COLUMN(rs->v, rs->n, e->spikes), "missed",
				      COLUMN(rs->v, rs->n, e->missed)));
	json_object_set_new(
	    o, "spike_log",
	    json_pack("{s:o, s:o, s:I, s:I, s:I, s:I, s:o, s:o, s:o}", "threshold_ns",
		      thr ? ns(rs->threshold_ns) : json_null(), "threshold_at_ns",
		      thr ? ns(rs->threshold_at_ns) : json_null(), "total",
		      (json_int_t)rs->spikes_total, "logged", (json_int_t)rs->nspikes,
		      "overwritten", (json_int_t)rs->spikes_overwritten, "not_logged",
		      (json_int_t)rs->spikes_unlogged, "t_ns",
		      COLUMN(rs->spikes, rs->nspikes, e->t_ns), "latency_ns",
		      COLUMN(rs->spikes, rs->nspikes, e->latency_ns), "phase",
		      COLUMN(rs->spikes, rs->nspikes, e->phase)));
	return o;
}

json_t *report_json(const struct report *r)
{
	json_t *root = json_object(), *argv = json_array(), *warnings = json_array();
	json_t *results = results_json(r->results, r->nresults);
	json_t *aggregates = results_json(r->aggregates, r->naggregates);

	if (!root || !argv || !warnings || !results || !aggregates) {
		json_decref(root);
		json_decref(argv);
		json_decref(warnings);
		json_decref(results);
		json_decref(aggregates);
		return NULL;
	}
	for (int i = 0; i < r->argc; i++)
		json_array_append_new(argv, json_string(r->argv[i]));
	for (size_t i = 0; i < r->nwarnings; i++)
		json_array_append_new(warnings, json_string(r->warnings[i]));

	json_object_set_new(root, "schema", json_string(REPORT_SCHEMA));
	json_object_set_new(root, "tool",
			    json_pack("{s:s, s:s, s:o}", "name", "rtsoak", "version",
				      r->tool_version ? r->tool_version : PACKAGE_VERSION, "argv",
				      argv));
	json_object_set_new(root, "run",
			    json_pack("{s:s, s:s, s:I, s:s, s:b, s:o}", "start", r->start, "end",
				      r->end, "duration_ns", (json_int_t)r->duration_ns, "status",
				      report_status_name(r->status), "realtime", r->realtime,
				      "warnings", warnings));
	/* Borrowed from the model, or empty ones of our own. */
	json_object_set_new(root, "config", r->config ? json_incref(r->config) : json_object());
	json_object_set_new(root, "system", r->system ? json_incref(r->system) : json_object());
	json_object_set_new(root, "loads", r->loads ? json_incref(r->loads) : json_array());
	json_object_set_new(root, "phases", r->phases ? json_incref(r->phases) : json_array());
	json_object_set_new(root, "histogram_layout", histogram_layout());
	json_object_set_new(root, "results", results);
	json_object_set_new(root, "aggregates", aggregates);
	if (r->analysis)
		json_object_set(root, "analysis", r->analysis);
	if (r->nseries) {
		json_t *series = json_array();
		for (size_t i = 0; series && i < r->nseries; i++)
			json_array_append_new(series, series_json(&r->series[i]));
		json_object_set_new(root, "series", series);
	}
	return root;
}

/* jansson indents every array element onto its own line, which makes a
 * day of one-second intervals tens of megabytes.  The series go last, one
 * compact line per series, spliced into the indented text.  Returns the
 * text (malloc'd, newline-terminated) or NULL. */
static char *dump_report(json_t *root)
{
	json_t *series = json_incref(json_object_get(root, "series"));
	char *text, *out = NULL;
	size_t len, cap;
	FILE *f;

	json_object_del(root, "series");
	text = json_dumps(root, JSON_INDENT(2));
	if (!text || !(f = open_memstream(&out, &cap))) {
		free(text);
		json_decref(series);
		return NULL;
	}
	len = strlen(text);
	if (series && len && text[len - 1] == '}') {
		size_t i;
		json_t *s;
		fprintf(f, "%.*s,\n  \"series\": [", (int)(len - 2), text);
		json_array_foreach (series, i, s) {
			char *one = json_dumps(s, JSON_COMPACT);
			fprintf(f, "%s\n    %s", i ? "," : "", one ? one : "null");
			free(one);
		}
		fputs("\n  ]\n}\n", f);
	} else {
		fprintf(f, "%s\n", text);
	}
	free(text);
	json_decref(series);
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

int report_json_write(const struct report *r, const char *path)
{
	json_t *root = report_json(r);
	char *out;
	size_t len;
	int rc;

	if (!root)
		return -ENOMEM;
	out = dump_report(root);
	json_decref(root);
	if (!out)
		return -ENOMEM;
	len = strlen(out);
	if (strcmp(path, "-") == 0)
		rc = fwrite(out, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : -EIO;
	else
		rc = util_write_atomic(path, out, len);
	free(out);
	return rc;
}
