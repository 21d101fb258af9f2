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
	return root;
}

int report_json_write(const struct report *r, const char *path)
{
	json_t *root = report_json(r);
	char *text;
	int rc;

	if (!root)
		return -ENOMEM;
	text = json_dumps(root, JSON_INDENT(2));
	json_decref(root);
	if (!text)
		return -ENOMEM;
	/* A trailing newline: the file is also read by people and by cat. */
	size_t len = strlen(text);
	char *out = realloc(text, len + 2);
	if (!out) {
		free(text);
		return -ENOMEM;
	}
	out[len++] = '\n';
	out[len] = '\0';
	if (strcmp(path, "-") == 0)
		rc = fwrite(out, 1, len, stdout) == len && fflush(stdout) == 0 ? 0 : -EIO;
	else
		rc = util_write_atomic(path, out, len);
	free(out);
	return rc;
}
