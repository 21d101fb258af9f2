/* json_read: rebuild the report model from an rtsoak-report/1 file.
 *
 * The reader checks what the model needs (types, ranges, histogram buckets
 * that match this build's layout) and names the first thing that is wrong,
 * with the file and the JSON path, so a damaged report gives one clear line
 * rather than a crash or a silently wrong comparison. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "cyclictest.h"
#include "report.h"

struct rd {
	const char *file;
	char *err;
	size_t errlen;
};

static int fail(struct rd *rd, const char *where, const char *what)
{
	snprintf(rd->err, rd->errlen, "%s: %s: %s", rd->file, where, what);
	return -EINVAL;
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

static int read_histogram(struct rd *rd, json_t *h, struct report_result *res, const char *where)
{
	size_t i;
	json_t *b;

	if (!json_is_array(h))
		return fail(rd, where, "histogram is not an array");
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
		res->hist->bucket[idx] += (uint64_t)json_integer_value(c);
	}
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
	if (!rc && histogram_total(res->hist) != res->count)
		return fail(rd, where, "histogram counts do not add up to count");
	return rc;
}

static int read_results(struct rd *rd, struct report *r, json_t *root, const char *key,
			bool aggregate)
{
	json_t *arr = json_object_get(root, key), *o;
	size_t i;
	int rc;

	if (!json_is_array(arr))
		return fail(rd, key, arr ? "is not an array" : "is missing");
	json_array_foreach (arr, i, o)
		if ((rc = read_result(rd, r, o, aggregate, i)))
			return rc;
	return 0;
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

#define COL(a, i) ((uint64_t)json_integer_value(json_array_get((a), (i))))

static int read_one_series(struct rd *rd, struct report *r, json_t *o, size_t k)
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
	if (!(c = get_column(rd, iv, "count", w2, n, UINT32_MAX, &rc)) ||
	    !(m = get_column(rd, iv, "max_ns", w2, n, INT64_MAX, &rc)) ||
	    !(sp = get_column(rd, iv, "spikes", w2, n, UINT32_MAX, &rc)) ||
	    !(mi = get_column(rd, iv, "missed", w2, n, UINT32_MAX, &rc)))
		return rc;
	rs->n = n;
	rs->v = calloc(n ? n : 1, sizeof(*rs->v));
	if (!rs->v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		rs->v[i] = (struct series_interval){ .max_ns = COL(m, i),
						     .count = (uint32_t)COL(c, i),
						     .spikes = (uint32_t)COL(sp, i),
						     .missed = (uint32_t)COL(mi, i) };
	snprintf(w2, sizeof(w2), "%s.spike_log", where);
	if ((rc = get_u64(rd, log, "threshold_ns", w2, true, &rs->threshold_ns, NULL)) ||
	    (rc = get_u64(rd, log, "threshold_at_ns", w2, true, &rs->threshold_at_ns, NULL)) ||
	    (rc = get_u64(rd, log, "total", w2, false, &rs->spikes_total, NULL)) ||
	    (rc = get_u64(rd, log, "logged", w2, false, &logged, NULL)) ||
	    (rc = get_u64(rd, log, "overwritten", w2, false, &rs->spikes_overwritten, NULL)) ||
	    (rc = get_u64(rd, log, "not_logged", w2, false, &rs->spikes_unlogged, NULL)))
		return rc;
	if (!(t = get_column(rd, log, "t_ns", w2, logged, INT64_MAX, &rc)) ||
	    !(lat = get_column(rd, log, "latency_ns", w2, logged, INT64_MAX, &rc)) ||
	    !(ph = get_column(rd, log, "phase", w2, logged, PROBE_MAX_PHASES - 1, &rc)))
		return rc;
	rs->nspikes = logged;
	rs->spikes = calloc(logged ? logged : 1, sizeof(*rs->spikes));
	if (!rs->spikes)
		return -ENOMEM;
	for (size_t i = 0; i < logged; i++)
		rs->spikes[i] = (struct series_spike){ .t_ns = COL(t, i),
						       .latency_ns = COL(lat, i),
						       .phase = (uint32_t)COL(ph, i) };
	return 0;
}

/* Optional sections (reports from before the time series have none). */
static int read_series(struct rd *rd, struct report *r, json_t *root)
{
	json_t *a = json_object_get(root, "series"), *o;
	json_t *an = json_object_get(root, "analysis");
	size_t i;
	int rc;

	if (an && !json_is_object(an))
		return fail(rd, "analysis", "is not an object");
	r->analysis = json_incref(an);
	if (!a)
		return 0;
	if (!json_is_array(a))
		return fail(rd, "series", "is not an array");
	json_array_foreach (a, i, o)
		if ((rc = read_one_series(rd, r, o, i)))
			return rc;
	return 0;
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
	if (report_status_parse(status, &r->status))
		return fail(rd, "run.status", "is not complete, interrupted, running or failed");
	if (!json_is_boolean(json_object_get(run, "realtime")))
		return fail(rd, "run.realtime", "is not a boolean");
	r->realtime = json_is_true(json_object_get(run, "realtime"));
	snprintf(r->start, sizeof(r->start), "%s", start);
	snprintf(r->end, sizeof(r->end), "%s", end);
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
	r->loads = json_incref(json_object_get(root, "loads"));
	r->phases = json_incref(json_object_get(root, "phases"));
	if (!json_is_array(r->loads) || !json_is_array(r->phases))
		return fail(rd, "loads/phases", "missing or not an array");
	/* Optional: reports from before --set and ab have neither. */
	r->tweaks = json_incref(json_object_get(root, "tweaks"));
	r->ab = json_incref(json_object_get(root, "ab"));
	if ((r->tweaks && !json_is_array(r->tweaks)) || (r->ab && !json_is_object(r->ab)))
		return fail(rd, "tweaks/ab", "not an array/object");
	if ((rc = read_results(rd, r, root, "results", false)) ||
	    (rc = read_results(rd, r, root, "aggregates", true)))
		return rc;
	return read_series(rd, r, root);
}

int report_json_read(const char *path, struct report *r, char *err, size_t errlen)
{
	struct rd rd = { .file = path, .err = err, .errlen = errlen };
	bool had_nan;
	json_t *root;
	int rc;

	memset(r, 0, sizeof(*r));
	/* One loader for both formats: cyclictest writes -nan for a thread
	 * without cycles, which is not JSON (it becomes null); rtsoak never
	 * writes a non-finite number, so a NaN in a file that is not
	 * cyclictest's is an error.  Duplicate keys are rejected: a report is
	 * machine-written, a duplicate means it was edited or corrupted. */
	root = cyclictest_load(path, &had_nan, err, errlen);
	if (!root)
		return -EINVAL;
	if (cyclictest_detect(root)) {
		rc = cyclictest_read(path, root, r, err, errlen); /* warns about NaN itself */
		json_decref(root);
		return rc;
	}
	if (had_nan) {
		snprintf(err, errlen, "%s: holds NaN or Infinity, which no rtsoak report does",
			 path);
		json_decref(root);
		return -EINVAL;
	}
	if (json_is_object(root) && !json_object_get(root, "schema")) {
		snprintf(
		    err, errlen,
		    "%s: neither an rtsoak report (no \"schema\") nor a cyclictest --json file",
		    path);
		json_decref(root);
		return -EINVAL;
	}
	rc = read_root(&rd, r, root);
	json_decref(root);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	if (rc)
		report_free(r);
	return rc;
}
