// SPDX-License-Identifier: GPL-2.0-or-later
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
 * Every series carries run="NAME" (--run-name, by default the report's file name without .json),
 * so that two runs on one host (a finished baseline kept beside a live run) never collide in
 * node_exporter, which drops both sets of a duplicated series.  Latency series carry probe, cpu
 * and phase labels, per CPU only: no cpu="all" aggregate, which sum() would count twice (PromQL
 * aggregates CPUs itself, and the histogram gives percentiles over any set of them).  phase="all"
 * is the union of the phases: filter it out before summing over phases. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "histogram.h"
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
	const char *run; /* the run label's value */
};

static void put_label(FILE *f, bool first, const char *name, const char *value);

/* A sample's name (SUFFIX: a histogram's or summary's _bucket, _sum, _count) and its first
 * label, run="...": the caller adds the others and the '}'. */
static void sample_suffix(struct out *o, const struct family *fam, const char *suffix)
{
	if (o->fam != fam)
		fprintf(o->f, "# HELP %s %s\n# TYPE %s %s\n", fam->name, fam->help, fam->name,
			fam->type);
	o->fam = fam;
	fprintf(o->f, "%s%s", fam->name, suffix);
	put_label(o->f, true, "run", o->run);
}

static void sample(struct out *o, const struct family *fam)
{
	sample_suffix(o, fam, "");
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
	put_label(f, false, "status", report_status_name(r->status));
	put_label(f, false, "version", r->tool_version ? r->tool_version : PACKAGE_VERSION);
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
	for (enum report_status s = REPORT_COMPLETE; s <= REPORT_DISTURBED; s++) {
		sample(o, &run_state);
		put_label(f, false, "state", report_status_name(s));
		fputc('}', f);
		put_count(f, r->status == s);
	}

	sample(o, &run_realtime);
	fputc('}', f);
	put_count(f, r->realtime);
	if (parse_iso8601(r->start, &ns) == 0) {
		sample(o, &run_start);
		fputc('}', f);
		put_seconds(f, ns);
	}
	sample(o, &run_duration);
	fputc('}', f);
	put_seconds(f, r->duration_ns);
	sample(o, &run_warnings);
	fputc('}', f);
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
		put_label(o->f, false, "phase", json_string_value(name));
		fputc('}', o->f);
		put_seconds(o->f, (uint64_t)json_integer_value(t));
	}
}

static void put_result_labels(FILE *f, const char *probe, int cpu, const char *phase)
{
	char num[16];

	snprintf(num, sizeof(num), "%d", cpu);
	put_label(f, false, "probe", probe);
	put_label(f, false, "cpu", num);
	put_label(f, false, "phase", phase);
}

/* The per-result families with one value each, taken from the result by offset. */
static const struct {
	struct family fam;
	size_t off;
	bool latency; /* only where count > 0, in seconds */
} result_fields[] = {
	{ { "rtsoak_latency_samples_total", "counter", "Latency samples taken" },
	  offsetof(struct report_result, count),
	  false },
	{ { "rtsoak_latency_missed_total", "counter",
	    "Deadlines that passed while the probe was late" },
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
	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *res = &r->results[i];
		uint64_t v = *(const uint64_t *)((const char *)res + result_fields[k].off);
		if (result_fields[k].latency && !res->count)
			continue;
		sample(o, &result_fields[k].fam);
		put_result_labels(o->f, res->probe, res->cpu, res->phase);
		fputc('}', o->f);
		if (result_fields[k].latency)
			put_seconds(o->f, v);
		else
			put_count(o->f, v);
	}
}

/* The sum for a histogram's and a summary's _sum: each bucket's midpoint times its count.  The
 * model keeps no exact sum (mean x count is rounded and could step back between rewrites, which
 * rate() takes for a counter reset); the midpoints only grow, and are within half a bucket
 * (under 1 %) of each sample. */
static uint64_t hist_sum_ns(const struct histogram_sparse *h)
{
	uint64_t sum = 0;

	for (size_t k = 0; k < h->n; k++) {
		uint64_t lo = histogram_lower(h->e[k].index), hi = histogram_upper(h->e[k].index);
		uint64_t mid = hi > lo && hi != UINT64_MAX ? lo + (hi - lo) / 2 : lo;
		sum += mid * h->e[k].count;
	}
	return sum;
}

/* Percentiles over the run so far (phase="all") or over a phase, as a Prometheus summary with
 * quantile="0.999" labels, _sum and _count: what dashboards read without computing anything.
 * Cumulative from the run's start; a window or a set of CPUs or hosts takes the histogram. */
static const struct family latency_summary = {
	"rtsoak_latency_quantiles_seconds", "summary",
	"Latency percentiles over the run or phase so far (from the report's histogram)"
};

static void summary_family(struct out *o, const struct report *r)
{
	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *res = &r->results[i];
		if (!res->count || !res->hist)
			continue;
		for (unsigned p = 0; p < REPORT_NPCT; p++) {
			sample(o, &latency_summary);
			put_result_labels(o->f, res->probe, res->cpu, res->phase);
			/* 99.9 -> "0.999": %g of the fraction prints it shortest */
			fprintf(o->f, ",quantile=\"%.10g\"}", report_pct[p] / 100);
			put_seconds(o->f, res->pct[p]);
		}
		sample_suffix(o, &latency_summary, "_sum");
		put_result_labels(o->f, res->probe, res->cpu, res->phase);
		fputc('}', o->f);
		put_seconds(o->f, hist_sum_ns(res->hist));
		sample_suffix(o, &latency_summary, "_count");
		put_result_labels(o->f, res->probe, res->cpu, res->phase);
		fputc('}', o->f);
		put_count(o->f, res->hist->total);
	}
}

/* Latency as a Prometheus histogram per (probe, cpu, phase), so that histogram_quantile() over
 * rate() of the buckets works per CPU, per host and summed over a fleet.  Bounds: 1-2-5 from
 * 1 us to 1 s, 19 of them and +Inf, fixed, so that every run and host sums.  A sample counts
 * under `le` when its bucket of the report's histogram (under 1 % wide) ends at or below le. */
static const struct family latency_hist = {
	"rtsoak_latency_seconds", "histogram",
	"Latency histogram per probe, CPU and phase (sum by CPU in PromQL)"
};
static const uint64_t prom_le_ns[] = {
	1000,	  2000,	     5000,	10000,	   20000,      50000,	 100000,
	200000,	  500000,    1000000,	2000000,   5000000,    10000000, 20000000,
	50000000, 100000000, 200000000, 500000000, 1000000000,
};

static void hist_sample(struct out *o, const char *suffix, const struct report_result *res)
{
	sample_suffix(o, &latency_hist, suffix);
	put_result_labels(o->f, res->probe, res->cpu, res->phase);
}

static void histogram_family(struct out *o, const struct report *r)
{
	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *res = &r->results[i];
		const struct histogram_sparse *h = res->hist;
		uint64_t below = 0;
		size_t e = 0;

		if (!h)
			continue;
		for (size_t k = 0; k < sizeof(prom_le_ns) / sizeof(prom_le_ns[0]); k++) {
			for (; e < h->n && histogram_upper(h->e[e].index) <= prom_le_ns[k] + 1; e++)
				below += h->e[e].count;
			char le[32];
			int n = snprintf(le, sizeof(le), "%" PRIu64 ".%09" PRIu64,
					 (uint64_t)(prom_le_ns[k] / NSEC_PER_SEC),
					 (uint64_t)(prom_le_ns[k] % NSEC_PER_SEC));
			while (n > 0 && le[n - 1] == '0') /* 0.000001, 1.0 -> "1" */
				le[--n] = '\0';
			if (n > 0 && le[n - 1] == '.')
				le[--n] = '\0';
			hist_sample(o, "_bucket", res);
			fprintf(o->f, ",le=\"%s\"}", le);
			put_count(o->f, below);
		}
		hist_sample(o, "_bucket", res);
		fputs(",le=\"+Inf\"}", o->f);
		put_count(o->f, h->total);
		hist_sample(o, "_sum", res);
		fputc('}', o->f);
		put_seconds(o->f, hist_sum_ns(h));
		hist_sample(o, "_count", res);
		fputc('}', o->f);
		put_count(o->f, h->total);
	}
}

/* "Worst in the last minute": the largest latency of the series intervals closed in the last
 * --prom-window (at least one interval), per probe and CPU.  A window, not the last interval
 * alone: Prometheus scrapes every 15-60 s, and a gauge of the last 1 s interval would show it
 * only one scrape in fifteen; with a window at least as long as the scrape interval, every
 * spike is seen by at least one scrape, and max_over_time() of the gauge is exact.  The series
 * are of the run's whole ("all") phase; the open interval is not in it yet.  Left out when the
 * window had no sample (a stopped probe is not a quiet one). */
static const struct family window_max = {
	"rtsoak_latency_window_max_seconds", "gauge",
	"Largest latency in the last rtsoak_latency_window_seconds of the run"
};
static const struct family window_len = {
	"rtsoak_latency_window_seconds", "gauge",
	"Span of rtsoak_latency_window_max_seconds: whole series intervals, at least one"
};

static uint64_t window_ns(const struct report *r)
{
	const json_t *w = json_object_get(r->config, "prom_window_ns");

	return json_is_integer(w) && json_integer_value(w) > 0 ? (uint64_t)json_integer_value(w)
							       : 60 * NSEC_PER_SEC;
}

static void window_families(struct out *o, const struct report *r)
{
	const uint64_t span = window_ns(r);

	for (unsigned pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < r->nseries; i++) {
			const struct report_series *se = &r->series[i];
			uint64_t max = 0, count = 0;
			size_t k;

			if (!se->n || !se->interval_ns)
				continue;
			k = span / se->interval_ns ? span / se->interval_ns : 1;
			if (k > se->n)
				k = se->n;
			struct series_cursor c;
			struct series_interval iv;
			series_cursor_init(&c, se->st, se->n - k);
			while (series_cursor_next(&c, &iv)) {
				count += iv.count;
				if (iv.max_ns > max)
					max = iv.max_ns;
			}
			if (!count)
				continue;
			sample(o, pass ? &window_len : &window_max);
			put_result_labels(o->f, se->probe, se->cpu, "all");
			fputc('}', o->f);
			put_seconds(o->f, pass ? k * se->interval_ns : max);
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
	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *res = &r->results[i];
		const char *key;
		json_t *v;

		json_object_foreach (res->counters, key, v) {
			if (!json_is_integer(v))
				continue;
			sample(o, &probe_stat);
			put_result_labels(o->f, res->probe, res->cpu, res->phase);
			put_label(o->f, false, "stat", key);
			fprintf(o->f, "} %" JSON_INTEGER_FORMAT "\n", json_integer_value(v));
		}
	}
}

/* run --on-spike CMD: what the command did, counters from the start of the run like the latency
 * samples (the report's on_spike section, src/app/session_onspike.c), so that rate() of the
 * failures or of the interval's skips can be alerted on.  Left out entirely without --on-spike;
 * with it every family is written, zeros included, so that the series exist before the first
 * spike.  No cpu label: the command is one per run, whatever CPU spiked. */
static const struct family onspike_runs = { "rtsoak_on_spike_runs_total", "counter",
					    "--on-spike: commands started" };
static const struct family onspike_failures = {
	"rtsoak_on_spike_failures_total", "counter",
	"--on-spike: commands that failed (a non-zero exit or a signal rtsoak did not send)"
};
static const struct family onspike_not_started = {
	"rtsoak_on_spike_not_started_total", "counter",
	"--on-spike: spikes whose command could not be started (no /bin/sh, out of memory)"
};
static const struct family onspike_skipped = {
	"rtsoak_on_spike_skipped_total", "counter",
	"--on-spike: spikes that started no command, by the rule that skipped them (running: one "
	"at a time, interval: --on-spike-interval, unlogged: no details to give)"
};

static void onspike_families(struct out *o, const struct report *r)
{
	static const char *const reasons[] = { "running", "interval", "unlogged" };
	static const struct {
		const struct family *fam;
		const char *key;
	} counts[] = { { &onspike_runs, "ran" },
		       { &onspike_failures, "failed" },
		       { &onspike_not_started, "not_started" } };
	json_t *os = r->on_spike;

	if (!json_is_object(os))
		return;
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		sample(o, counts[k].fam);
		fputc('}', o->f);
		put_count(o->f, report_on_spike_count(os, counts[k].key));
	}
	for (size_t k = 0; k < sizeof(reasons) / sizeof(reasons[0]); k++) {
		sample(o, &onspike_skipped);
		put_label(o->f, false, "reason", reasons[k]);
		fputc('}', o->f);
		put_count(o->f, report_on_spike_count(json_object_get(os, "skipped"), reasons[k]));
	}
}

/* The run label: config.run_name, or for reports before it the file name of config.output
 * without ".json" (what --run-name defaults to), or "" (an absent label to Prometheus). */
static void run_label(const struct report *r, char *buf, size_t len)
{
	const char *name = json_string_value(json_object_get(r->config, "run_name"));
	const char *out = json_string_value(json_object_get(r->config, "output"));

	if (name)
		snprintf(buf, len, "%s", name);
	else if (!out || !strcmp(out, "-"))
		snprintf(buf, len, "%s", "");
	else
		util_report_stem(out, buf, len);
}

int report_prom_write(const struct report *r, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	char run[256];
	struct out o = { open_memstream(&text, &len), NULL, run };
	int rc;

	run_label(r, run, sizeof(run));

	if (!o.f)
		return -ENOMEM;
	run_families(&o, r);
	phase_family(&o, r);
	for (unsigned k = 0; k < sizeof(result_fields) / sizeof(result_fields[0]); k++)
		result_field(&o, r, k);
	summary_family(&o, r);
	histogram_family(&o, r);
	window_families(&o, r);
	counters_family(&o, r);
	onspike_families(&o, r);
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
