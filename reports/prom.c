/* prom: render the report model as Prometheus text exposition for node_exporter's textfile
 * collector (`--prom FILE`), linted by `promtool check metrics`.
 *
 * Format: Prometheus text format 0.0.4, not OpenMetrics 1.0.  The textfile collector parses only
 * 0.0.4, and the two disagree on counters (OpenMetrics names the family without `_total` in
 * TYPE), so one file cannot be strict in both.  No `# EOF`: 0.0.4 parsers take it for a comment
 * (promtool 2.42 and node_exporter 1.5 both accept it), but completeness comes from the atomic
 * rename, not from a trailer.  No sample timestamps: the collector rejects them.
 *
 * Rules: base units (latencies in seconds, printed exactly from the integer ns), counters end in
 * `_total`, every family has HELP and TYPE and its samples together, a family without samples
 * is left out entirely, and statistics of a result without samples are left out rather than
 * written as NaN.  Everything comes from the model, no clock is read, so a report always gives
 * the same text.
 *
 * Latency series carry probe, cpu and phase labels; cpu="all" is the aggregate over CPUs (the
 * only place a percentile over all CPUs exists), so sums over CPUs must filter it out. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report.h"
#include "output.h"
#include "util.h"
#include "views.h"

struct family {
	const char *name, *type, *help;
};

/* The text so far and the family whose HELP and TYPE were written last: a family's first sample
 * writes them, so that a family with nothing to say (no result has a sample yet, no parsable
 * start time) leaves no empty header behind.  Families are written whole, one after another. */
struct out {
	FILE *f;
	const struct family *fam;
};

static void sample(struct out *o, const struct family *fam)
{
	if (o->fam != fam)
		fprintf(o->f, "# HELP %s %s\n# TYPE %s %s\n", fam->name, fam->help, fam->name,
			fam->type);
	o->fam = fam;
	fputs(fam->name, o->f);
}

/* Label values escape backslash, double quote and newline; nothing else is special. */
static void put_label(FILE *f, bool first, const char *name, const char *value)
{
	fprintf(f, "%s%s=\"", first ? "{" : ",", name);
	for (const char *p = value; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', f);
		if (*p == '\n')
			fputs("\\n", f);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* A config or system value as a label: strings as they are, numbers and booleans printed, and
 * null, missing or structured values as "" (which Prometheus treats as an absent label), so
 * that the label set stays the same whatever the machine could read. */
static void put_json_label(FILE *f, const char *name, const json_t *v)
{
	char buf[32] = "";

	if (json_is_string(v)) {
		put_label(f, false, name, json_string_value(v));
		return;
	}
	if (json_is_integer(v))
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, sizeof(buf), "%s", json_is_true(v) ? "true" : "false");
	put_label(f, false, name, buf);
}

/* Seconds from integer ns, exact: the decimal digits of ns / 1e9 with trailing zeros trimmed,
 * so a parser gets the double nearest to the true value (as %.9g would not for long runs). */
static void put_seconds(FILE *f, uint64_t ns)
{
	char frac[16];
	int n = snprintf(frac, sizeof(frac), "%09" PRIu64, (uint64_t)(ns % NSEC_PER_SEC));

	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	fprintf(f, " %" PRIu64, (uint64_t)(ns / NSEC_PER_SEC));
	if (n)
		fprintf(f, ".%s", frac);
	fputc('\n', f);
}

static void put_count(FILE *f, uint64_t v)
{
	fprintf(f, " %" PRIu64 "\n", v);
}

/* The model keeps the run's start only as util_iso8601's text (2026-11-30T18:17:42.123Z).
 * Returns 0 and the Unix time in ns, or -EINVAL for anything else (a hand-edited report). */
static int parse_iso8601(const char *s, uint64_t *ns)
{
	struct tm tm = { 0 };
	unsigned ms;
	int end = 0;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%3uZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms, &end) != 7 ||
	    s[end] != '\0' || end != 24)
		return -EINVAL;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	time_t t = timegm(&tm);
	if (t < 0)
		return -EINVAL;
	*ns = (uint64_t)t * NSEC_PER_SEC + ms * NSEC_PER_MSEC;
	return 0;
}

static const struct family run_info = {
	"rtsoak_run_info", "gauge",
	"rtsoak run: tool version, kernel and measurement setup (always 1)"
};
static const struct family run_state = { "rtsoak_run_state", "gauge",
					 "Run status: 1 for the current one, 0 for the others" };
static const struct family run_realtime = {
	"rtsoak_run_realtime", "gauge",
	"1 if the probes ran SCHED_FIFO, 0 if they ran without real-time priority"
};
static const struct family run_start = { "rtsoak_run_start_timestamp_seconds", "gauge",
					 "Start of the run, seconds since the Unix epoch" };
static const struct family run_duration = { "rtsoak_run_duration_seconds", "gauge",
					    "Time measured so far (the whole run once it ended)" };
static const struct family run_warnings = {
	"rtsoak_run_warnings", "gauge", "Warnings in the report (rtsoak report FILE lists them)"
};

static void run_families(struct out *o, const struct report *r)
{
	const json_t *sys = r->system, *cfg = r->config;
	FILE *f = o->f;
	uint64_t ns;

	sample(o, &run_info);
	put_label(f, true, "version", r->tool_version ? r->tool_version : PACKAGE_VERSION);
	put_json_label(f, "kernel", json_object_get(json_object_get(sys, "kernel"), "release"));
	put_json_label(f, "machine", json_object_get(json_object_get(sys, "kernel"), "machine"));
	put_json_label(f, "preempt", json_object_get(json_object_get(sys, "preempt"), "model"));
	put_json_label(f, "cpu_model", json_object_get(sys, "cpu_model"));
	put_json_label(f, "clocksource",
		       json_object_get(json_object_get(sys, "clocksource"), "current"));
	put_json_label(f, "policy", json_object_get(cfg, "policy"));
	put_json_label(f, "cpus", json_object_get(cfg, "cpus"));
	put_json_label(f, "schedule", json_object_get(cfg, "schedule"));
	fputc('}', f);
	put_count(f, 1);

	/* One-hot over every status, the Prometheus way to export an enum: an alert can match
	 * rtsoak_run_state{state="failed"} == 1, and a status that appears is a 0 -> 1 change,
	 * not a new series. */
	for (enum report_status s = REPORT_COMPLETE; s <= REPORT_FAILED; s++) {
		sample(o, &run_state);
		put_label(f, true, "state", report_status_name(s));
		fputc('}', f);
		put_count(f, r->status == s);
	}

	sample(o, &run_realtime);
	put_count(f, r->realtime);
	if (parse_iso8601(r->start, &ns) == 0) {
		sample(o, &run_start);
		put_seconds(f, ns);
	}
	sample(o, &run_duration);
	put_seconds(f, r->duration_ns);
	sample(o, &run_warnings);
	put_count(f, r->nwarnings);
}

/* Each phase's measured time, a counter like node_cpu_seconds_total{mode}: it only grows while
 * the run is in that phase, and a phase's samples_total over it is the phase's sample rate. */
static const struct family phase_seconds = { "rtsoak_phase_seconds_total", "counter",
					     "Time spent in each phase of the load schedule" };

static void phase_family(struct out *o, const struct report *r)
{
	size_t i;
	json_t *p;

	json_array_foreach (r->phases, i, p) {
		const json_t *name = json_object_get(p, "name"), *t = json_object_get(p, "time_ns");
		if (!json_is_string(name) || !json_is_integer(t) || json_integer_value(t) < 0)
			continue;
		sample(o, &phase_seconds);
		put_label(o->f, true, "phase", json_string_value(name));
		fputc('}', o->f);
		put_seconds(o->f, (uint64_t)json_integer_value(t));
	}
}

/* Results then aggregates, as one list: the same families cover both. */
static const struct report_result *result_at(const struct report *r, size_t i)
{
	return i < r->nresults ? &r->results[i] : &r->aggregates[i - r->nresults];
}

static void put_result_labels(FILE *f, const struct report_result *res)
{
	char cpu[16];

	snprintf(cpu, sizeof(cpu), "%d", res->cpu);
	put_label(f, true, "probe", res->probe);
	put_label(f, false, "cpu", res->cpu == REPORT_CPU_ALL ? "all" : cpu);
	put_label(f, false, "phase", res->phase);
}

/* The per-result families with one value each, taken from the result by offset. */
static const struct {
	struct family fam;
	size_t off;
	bool latency; /* only where count > 0, in seconds */
} result_fields[] = {
	{ { "rtsoak_latency_samples_total", "counter",
	    "Latency samples taken (cpu=\"all\": summed over CPUs)" },
	  offsetof(struct report_result, count),
	  false },
	{ { "rtsoak_latency_missed_total", "counter",
	    "Deadlines that passed while the probe was late (cpu=\"all\": summed over CPUs)" },
	  offsetof(struct report_result, missed),
	  false },
	{ { "rtsoak_latency_min_seconds", "gauge", "Smallest latency" },
	  offsetof(struct report_result, min),
	  true },
	{ { "rtsoak_latency_mean_seconds", "gauge", "Mean latency, rounded to the ns" },
	  offsetof(struct report_result, mean),
	  true },
	{ { "rtsoak_latency_stddev_seconds", "gauge", "Standard deviation of the latency" },
	  offsetof(struct report_result, stddev),
	  true },
	{ { "rtsoak_latency_max_seconds", "gauge", "Largest latency" },
	  offsetof(struct report_result, max),
	  true },
};

static void result_field(struct out *o, const struct report *r, unsigned k)
{
	for (size_t i = 0; i < r->nresults + r->naggregates; i++) {
		const struct report_result *res = result_at(r, i);
		uint64_t v = *(const uint64_t *)((const char *)res + result_fields[k].off);
		if (result_fields[k].latency && !res->count)
			continue;
		sample(o, &result_fields[k].fam);
		put_result_labels(o->f, res);
		fputc('}', o->f);
		if (result_fields[k].latency)
			put_seconds(o->f, v);
		else
			put_count(o->f, v);
	}
}

/* Percentiles as a gauge with a `percentile` label, not a summary: a summary needs _sum, which
 * the model does not keep (mean * count is rounded, and not monotonic across updates, so
 * rate() would see counter resets), and the textfile collector turns a missing _sum into 0.
 * The label is not named `quantile` because promtool reserves that for summaries. */
static const struct family percentile_seconds = {
	"rtsoak_latency_percentile_seconds", "gauge",
	"Latency percentile over the run or phase (from the histogram)"
};

static void percentile_family(struct out *o, const struct report *r)
{
	for (size_t i = 0; i < r->nresults + r->naggregates; i++) {
		const struct report_result *res = result_at(r, i);
		if (!res->count)
			continue;
		for (unsigned p = 0; p < REPORT_NPCT; p++) {
			char pct[16];
			snprintf(pct, sizeof(pct), "%g", report_pct[p]);
			sample(o, &percentile_seconds);
			put_result_labels(o->f, res);
			put_label(o->f, false, "percentile", pct);
			fputc('}', o->f);
			put_seconds(o->f, res->pct[p]);
		}
	}
}

/* Probe-specific counters (net: sent, received, lost, ...) as they are.  A gauge, because the
 * model does not say which are event counts and which are properties (sender_cpu) or
 * measurements (clock_offset_gap_ns, in ns as the key says).  Not named *_counter_*: promtool
 * rejects a type name inside a metric name. */
static const struct family probe_stat = {
	"rtsoak_probe_stat", "gauge",
	"Probe-specific counter as reported (a key ending in _ns is in nanoseconds)"
};

static void counters_family(struct out *o, const struct report *r)
{
	for (size_t i = 0; i < r->nresults + r->naggregates; i++) {
		const struct report_result *res = result_at(r, i);
		const char *key;
		json_t *v;

		json_object_foreach (res->counters, key, v) {
			if (!json_is_integer(v))
				continue;
			sample(o, &probe_stat);
			put_result_labels(o->f, res);
			put_label(o->f, false, "stat", key);
			fprintf(o->f, "} %" JSON_INTEGER_FORMAT "\n", json_integer_value(v));
		}
	}
}

int report_prom_write(const struct report *r, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	struct out o = { open_memstream(&text, &len), NULL };
	int rc;

	if (!o.f)
		return -ENOMEM;
	run_families(&o, r);
	phase_family(&o, r);
	for (unsigned k = 0; k < sizeof(result_fields) / sizeof(result_fields[0]); k++)
		result_field(&o, r, k);
	percentile_family(&o, r);
	counters_family(&o, r);
	/* open_memstream reports a failed allocation through the stream's error flag. */
	rc = ferror(o.f);
	if (fclose(o.f) || rc) {
		free(text);
		return -ENOMEM;
	}
	rc = output_write(path, text, len);
	free(text);
	return rc;
}
