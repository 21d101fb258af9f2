/* html: the report as one self-contained HTML page (`--html OUT`).
 *
 * The page answers, top down: how bad was it, where and when (headline);
 * the numbers (summary table); what the distribution looks like (histogram
 * and exceedance per probe); when it happened (time series with phases and
 * spikes); which load hurt which probe (per-phase table and plot); where a
 * network sample spent its time (net.stack against net.wakeup); and, folded
 * away, the system, loads, tweaks and warnings.
 *
 * Every number is the report's own: percentiles, maxima and histogram
 * buckets as stored (the page never re-derives a statistic that could
 * disagree with the JSON or the terminal summary).  Plots that would be too
 * large for a browser are down-sampled per pixel column keeping each
 * column's minimum and maximum, so no maximum disappears, and the caption
 * says so.  Every string from the report is escaped (svg_escape). */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "svg.h"
#include "output.h"
#include "util.h"
#include "views.h"

struct page {
	FILE *f;
	const struct report *r;
	const char **probes; /* result names in report order */
	size_t nprobes;
	const char **phases; /* phase names in first-seen order, "all" left out */
	size_t nphases;
	int rc; /* first error (-ENOMEM) */
};

/* ----------------------------------------------------------- lookups -- */

static void cpu_key(char *buf, size_t len, int cpu)
{
	if (cpu == REPORT_CPU_ALL)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%d", cpu);
}

static void cpu_name(char *buf, size_t len, int cpu)
{
	if (cpu == REPORT_CPU_ALL)
		snprintf(buf, len, "all CPUs");
	else
		snprintf(buf, len, "CPU %d", cpu);
}

static const struct report_result *find(const struct report *r, const char *probe, int cpu,
					const char *phase)
{
	const struct report_result *v = cpu == REPORT_CPU_ALL ? r->aggregates : r->results;
	size_t n = cpu == REPORT_CPU_ALL ? r->naggregates : r->nresults;

	for (size_t i = 0; i < n; i++)
		if (v[i].cpu == cpu && !strcmp(v[i].probe, probe) && !strcmp(v[i].phase, phase))
			return &v[i];
	return NULL;
}

/* Result i of the per-CPU results followed by the aggregates. */
static const struct report_result *result_at(const struct report *r, size_t i)
{
	return i < r->nresults ? &r->results[i] : &r->aggregates[i - r->nresults];
}

/* The rows of a per-CPU table of one probe over the whole run: each CPU in
 * report order, then all CPUs where the report has them.  Sets *cpu to the
 * next row at or after position *i and moves *i past it; false after the
 * last row. */
static bool next_cpu_row(const struct report *r, const char *probe, size_t *i, int *cpu)
{
	for (; *i <= r->nresults; ++*i) {
		const struct report_result *row = *i < r->nresults ? &r->results[*i] : NULL;
		if (row && (strcmp(row->probe, probe) || strcmp(row->phase, "all")))
			continue;
		if (!row && !find(r, probe, REPORT_CPU_ALL, "all"))
			continue;
		*cpu = row ? row->cpu : REPORT_CPU_ALL;
		++*i;
		return true;
	}
	return false;
}

static bool listed(const char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* A string from a path of object keys ("kernel", "release"), or NULL. */
static const char *jstr(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);

	if (b)
		v = json_object_get(v, b);
	return json_string_value(v);
}

static int page_index(struct page *pg)
{
	const struct report *r = pg->r;
	size_t n = r->nresults + r->naggregates;

	pg->probes = calloc(n + 1, sizeof(*pg->probes));
	pg->phases = calloc(n + 1, sizeof(*pg->phases));
	if (!pg->probes || !pg->phases)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct report_result *res = result_at(r, i);
		if (!listed(pg->probes, pg->nprobes, res->probe))
			pg->probes[pg->nprobes++] = res->probe;
		if (strcmp(res->phase, "all") && !listed(pg->phases, pg->nphases, res->phase))
			pg->phases[pg->nphases++] = res->phase;
	}
	return 0;
}

/* A phase's hue, the same in the bands over time and in the per-phase plot;
 * away from the first CPUs' line colours. */
static int phase_hue(const struct page *pg, const char *name)
{
	size_t j = 0;

	while (j < pg->nphases && strcmp(pg->phases[j], name ? name : ""))
		j++;
	return (svg_hue((unsigned)j) + 95) % 360;
}

/* ------------------------------------------------------------- text -- */

static void esc(struct page *pg, const char *s)
{
	svg_escape(pg->f, s);
}

static void lat(struct page *pg, uint64_t ns)
{
	char buf[32];

	svg_latency(buf, sizeof(buf), ns);
	fputs(buf, pg->f);
}

/* A latency cell in µs as in the terminal summary: "–" without samples,
 * "?" where the source did not record the statistic. */
static void cell_us(struct page *pg, const char *key, bool has, bool unknown, uint64_t ns)
{
	fprintf(pg->f, "<td data-stat=\"%s\">", key);
	if (!has)
		fputs("–", pg->f);
	else if (unknown)
		fputs("?", pg->f);
	else
		fprintf(pg->f, "%.1f", (double)ns / 1000.0);
	fputs("</td>", pg->f);
}

/* Any JSON value from the model (system snapshot, config, loads): objects
 * as key/value tables, arrays of scalars inline, null as "unreadable". */
static void put_json(struct page *pg, json_t *v, int depth)
{
	FILE *f = pg->f;
	const char *key;
	json_t *x;
	size_t i;
	bool flat = true;

	if (!v) { /* not in the report at all (an imported file) */
		fputs("<span class=\"muted\">–</span>", f);
		return;
	}
	switch (json_typeof(v)) {
	case JSON_NULL:
		fputs("<span class=\"muted\">null</span>", f);
		return;
	case JSON_TRUE:
		fputs("true", f);
		return;
	case JSON_FALSE:
		fputs("false", f);
		return;
	case JSON_INTEGER:
		fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return;
	case JSON_REAL:
		if (isfinite(json_real_value(v)))
			fprintf(f, "%.6g", json_real_value(v));
		else
			fputs("<span class=\"muted\">null</span>", f);
		return;
	case JSON_STRING:
		fputs("<span class=\"mono\">", f);
		esc(pg, json_string_value(v));
		fputs("</span>", f);
		return;
	case JSON_ARRAY:
		if (!json_array_size(v)) {
			fputs("<span class=\"muted\">none</span>", f);
			return;
		}
		json_array_foreach (v, i, x)
			flat = flat && !json_is_object(x) && !json_is_array(x);
		if (flat || depth > 6) {
			json_array_foreach (v, i, x) {
				if (i)
					fputs(", ", f);
				if (json_is_object(x) || json_is_array(x))
					fputs("…", f);
				else
					put_json(pg, x, depth + 1);
			}
			return;
		}
		fputs("<ol start=\"0\">", f);
		json_array_foreach (v, i, x) {
			fputs("<li>", f);
			put_json(pg, x, depth + 1);
			fputs("</li>", f);
		}
		fputs("</ol>", f);
		return;
	case JSON_OBJECT:
		if (!json_object_size(v)) {
			fputs("<span class=\"muted\">none</span>", f);
			return;
		}
		fputs("<table class=\"kv\">", f);
		json_object_foreach (v, key, x) {
			fputs("<tr><th>", f);
			esc(pg, key);
			fputs("</th><td>", f);
			put_json(pg, x, depth + 1);
			fputs("</td></tr>", f);
		}
		fputs("</table>", f);
		return;
	}
}

/* --------------------------------------------------------- headline -- */

/* The phase a run time falls in, from the phases' occurrences. */
static const char *phase_at(const struct report *r, uint64_t t)
{
	json_t *p, *occ;
	size_t i, k;

	if (json_array_size(r->phases) < 2)
		return NULL;
	json_array_foreach (r->phases, i, p)
		json_array_foreach (json_object_get(p, "occurrences"), k, occ) {
			json_int_t s = json_integer_value(json_array_get(occ, 0));
			json_int_t e = json_integer_value(json_array_get(occ, 1));
			if ((json_int_t)t >= s && (json_int_t)t < e)
				return jstr(p, "name", NULL);
		}
	return NULL;
}

static void put_banner(struct page *pg)
{
	const struct report *r = pg->r;
	char d[32];

	svg_runtime(d, sizeof(d), r->duration_ns);
	switch (r->status) {
	case REPORT_RUNNING:
		fprintf(pg->f,
			"<p class=\"note\" id=\"status-banner\" data-status=\"running\">Partial "
			"report: this is a checkpoint of a run that was still going (or never "
			"finished). It covers the first %s; the final numbers may be worse.</p>\n",
			d + 1);
		break;
	case REPORT_INTERRUPTED:
		fprintf(pg->f,
			"<p class=\"note\" id=\"status-banner\" data-status=\"interrupted\">"
			"Interrupted: the run was stopped after %s, before its planned end.</p>\n",
			d + 1);
		break;
	case REPORT_FAILED:
		fputs("<p class=\"note\" id=\"status-banner\" data-status=\"failed\">The run "
		      "failed: the results are incomplete (see the warnings).</p>\n",
		      pg->f);
		break;
	case REPORT_COMPLETE:
		break;
	}
}

static void put_headline(struct page *pg)
{
	const struct report *r = pg->r;
	const struct report_result *w = NULL;
	FILE *f = pg->f;

	/* The worst sample of any result: per CPU, over the whole run. */
	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *res = &r->results[i];
		if (res->count && (!w || res->max > w->max))
			w = res;
	}
	if (!w) {
		fputs("<h1 id=\"headline\" data-worst-ns=\"none\">No samples: no probe recorded a "
		      "single sample, so there is nothing to plot</h1>\n",
		      f);
		return;
	}
	fprintf(f, "<h1 id=\"headline\" data-worst-ns=\"%" PRIu64 "\" data-probe=\"", w->max);
	esc(pg, w->probe);
	fprintf(f, "\" data-cpu=\"%d\">Worst latency ", w->cpu);
	lat(pg, w->max);
	fputs(": ", f);
	esc(pg, w->probe);
	fprintf(f, " on CPU %d", w->cpu);
	if (w->unknown & REPORT_UNKNOWN_MAX_AT) {
		fputs(" (when is not recorded)", f);
	} else {
		/* By the sample's time, as the phase bands of the plots show it:
		 * a sample at a switch can be counted in the phase before
		 * (the probes move on once the loads have), and the headline
		 * must not name another phase than the band it is drawn in. */
		const char *ph = phase_at(r, w->max_at);
		if (!ph && strcmp(w->phase, "all"))
			ph = w->phase;
		char t[32];
		svg_runtime(t, sizeof(t), w->max_at);
		fprintf(f, " at %s", t);
		if (ph) {
			fputs(" (phase ", f);
			esc(pg, ph);
			fputc(')', f);
		}
	}
	fputs("</h1>\n", f);
}

static void put_meta(struct page *pg)
{
	const struct report *r = pg->r;
	json_t *sys = r->system, *cfg = r->config;
	const char *s;
	char d[32];
	FILE *f = pg->f;

	svg_runtime(d, sizeof(d), r->duration_ns);
	fprintf(f, "<p class=\"meta\" id=\"run\">%s, %s", report_status_name(r->status), d + 1);
	if (r->start[0]) {
		fputs(" from ", f);
		esc(pg, r->start);
	}
	fputs(" · ", f);
	esc(pg, r->tool_name ? r->tool_name : "rtsoak");
	fputc(' ', f);
	esc(pg, r->tool_version ? r->tool_version : "?");
	if ((s = jstr(sys, "kernel", "release"))) {
		fputs(" · Linux ", f);
		esc(pg, s);
		if ((s = jstr(sys, "kernel", "machine"))) {
			fputc(' ', f);
			esc(pg, s);
		}
	}
	if (json_integer_value(json_object_get(sys, "realtime")) == 1)
		fputs(" · PREEMPT_RT", f);
	if ((s = jstr(sys, "preempt", "model"))) {
		fputs(" · preempt ", f);
		esc(pg, s);
		if ((s = jstr(sys, "preempt", "active"))) {
			fputs(" (active: ", f);
			esc(pg, s);
			fputc(')', f);
		}
	}
	fprintf(f, " · %s", r->realtime ? "SCHED_FIFO" : "not real-time (SCHED_OTHER)");
	if (json_is_integer(json_object_get(cfg, "priority")) && r->realtime)
		fprintf(f, " priority %" JSON_INTEGER_FORMAT,
			json_integer_value(json_object_get(cfg, "priority")));
	if ((s = jstr(cfg, "cpus", NULL))) {
		fputs(" · CPUs ", f);
		esc(pg, s);
	}
	if ((s = jstr(sys, "cpu_model", NULL))) {
		fputs(" · ", f);
		esc(pg, s);
	}
	if ((s = jstr(sys, "virtualization", "hypervisor"))) {
		fputs(" · virtual machine (", f);
		esc(pg, s);
		fputc(')', f);
	}
	fputs("</p>\n", f);
	if (r->argc) {
		fputs("<p class=\"meta\"><code>", f);
		for (int i = 0; i < r->argc; i++) {
			if (i)
				fputc(' ', f);
			esc(pg, r->argv[i]);
		}
		fputs("</code></p>\n", f);
	}
}

/* ---------------------------------------------------------- summary -- */

static void summary_row(struct page *pg, const struct report_result *res)
{
	FILE *f = pg->f;
	bool has = res->count > 0, pct = res->unknown & REPORT_UNKNOWN_PCT;
	char c[16];

	cpu_key(c, sizeof(c), res->cpu);
	fputs("<tr data-probe=\"", f);
	esc(pg, res->probe);
	fprintf(f, "\" data-cpu=\"%s\" data-phase=\"", c);
	esc(pg, res->phase);
	fputs("\"><td class=\"l\">", f);
	esc(pg, res->probe);
	fprintf(f, "</td><td class=\"l\">%s</td><td data-stat=\"count\">%" PRIu64 "</td>", c,
		res->count);
	cell_us(pg, "min_ns", has, false, res->min);
	cell_us(pg, "p50_ns", has, pct, res->pct[0]);
	cell_us(pg, "p99_ns", has, pct, res->pct[2]);
	cell_us(pg, "p99_9_ns", has, pct, res->pct[3]);
	cell_us(pg, "p99_99_ns", has, pct, res->pct[4]);
	cell_us(pg, "max_ns", has, false, res->max);
	if (res->unknown & REPORT_UNKNOWN_MISSED)
		fputs("<td data-stat=\"missed\">?</td>", f);
	else
		fprintf(f, "<td data-stat=\"missed\">%" PRIu64 "</td>", res->missed);
	fputs("</tr>\n", f);
}

static void summary_phase(struct page *pg, const char *phase, bool heading)
{
	const struct report *r = pg->r;

	fputs("<tbody>", pg->f);
	if (heading) {
		fputs("<tr><th class=\"l\" colspan=\"10\">", pg->f);
		if (strcmp(phase, "all")) {
			fputs("phase ", pg->f);
			esc(pg, phase);
		} else {
			fputs("whole run (all phases)", pg->f);
		}
		fputs("</th></tr>\n", pg->f);
	}
	for (size_t i = 0; i < r->nresults + r->naggregates; i++)
		if (!strcmp(result_at(r, i)->phase, phase))
			summary_row(pg, result_at(r, i));
	fputs("</tbody>\n", pg->f);
}

static void put_summary(struct page *pg)
{
	FILE *f = pg->f;

	fputs("<h2 id=\"summary\">Summary</h2>\n<table id=\"summary-table\">\n<thead><tr>"
	      "<th class=\"l\">probe</th><th class=\"l\">CPU</th><th>count</th><th>min (µs)</th>"
	      "<th>p50 (µs)</th><th>p99 (µs)</th><th>p99.9 (µs)</th><th>p99.99 (µs)</th>"
	      "<th>max (µs)</th><th>missed</th></tr></thead>\n",
	      f);
	for (size_t j = 0; j < pg->nphases; j++)
		summary_phase(pg, pg->phases[j], true);
	summary_phase(pg, "all", pg->nphases > 0);
	fputs("</table>\n<p class=\"cap\">Latencies in µs; p99.9: 99.9 % of the samples were at "
	      "or below it (nearest rank, from the histogram, to within 0.4 %; min and max are "
	      "exact). “all” rows are all CPUs together. ",
	      f);
	fputs("“–”: no samples; “?”: the source did not record this statistic. missed: "
	      "deadlines that passed while the probe was late.</p>\n",
	      f);
}

/* ---------------------------------------------------- distributions -- */

/* The series of one probe in one phase: each CPU, then all CPUs. */
static size_t probe_series(struct page *pg, const char *probe, const char *phase,
			   struct svg_series *s, char (*keys)[16], char (*labels)[24])
{
	const struct report *r = pg->r;
	const struct report_result *agg;
	size_t n = 0;

	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *res = &r->results[i];
		if (strcmp(res->probe, probe) || strcmp(res->phase, phase))
			continue;
		cpu_key(keys[n], 16, res->cpu);
		cpu_name(labels[n], 24, res->cpu);
		s[n] = (struct svg_series){ res,   keys[n], labels[n], svg_hue((unsigned)n),
					    false, false };
		n++;
	}
	if ((agg = find(r, probe, REPORT_CPU_ALL, phase))) {
		s[n] = (struct svg_series){ agg, "all", "all CPUs", SVG_FG, true, false };
		n++;
	}
	return n;
}

static void plot_attrs(char *buf, size_t len, const char *plot, const char *probe)
{
	buf[0] = '\0';
	svg_attr(buf, len, "data-plot", plot);
	svg_attr(buf, len, "data-probe", probe);
}

static bool any_drawable(const struct svg_series *s, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (svg_drawable(s[k].res))
			return true;
	return false;
}

enum plot_kind { PLOT_HISTOGRAM, PLOT_EXCEEDANCE, PLOT_EXCEEDANCE_MARKS };

/* The series of one probe as a figure: the plot and its legend, then an
 * open <figcaption> for the caller's words, which close the figure. */
static void figure_begin(struct page *pg, enum plot_kind kind, const char *plot, const char *probe,
			 const char *label, const struct svg_series *s, size_t n)
{
	char attrs[512];

	plot_attrs(attrs, sizeof(attrs), plot, probe);
	fputs("<figure>", pg->f);
	if (kind == PLOT_HISTOGRAM)
		svg_histogram(pg->f, attrs, label, s, n);
	else
		svg_exceedance(pg->f, attrs, label, s, n, kind == PLOT_EXCEEDANCE_MARKS);
	svg_legend(pg->f, s, n);
	fputs("<figcaption>", pg->f);
}

static void no_plot(struct page *pg, const char *probe, const struct svg_series *s, size_t n)
{
	bool unknown = false, samples = false;

	for (size_t k = 0; k < n; k++) {
		samples = samples || s[k].res->count;
		unknown = unknown || (s[k].res->count && (s[k].res->unknown & REPORT_UNKNOWN_PCT));
	}
	fputs("<p class=\"muted\">", pg->f);
	esc(pg, probe);
	fputs(unknown	? ": the source file has no histogram (cyclictest without -h), so there "
			  "is no distribution to plot.</p>\n"
	      : samples ? ": no histogram to plot.</p>\n"
			: ": no samples, nothing to plot.</p>\n",
	      pg->f);
}

/* A kind of distribution plot, drawn by put_distribution() for each probe
 * over the whole run: each CPU and all CPUs. */
struct dist_plot {
	enum plot_kind kind;
	const char *plot;    /* data-plot */
	const char *label;   /* the plot's label, after "PROBE: " */
	const char *caption; /* after the probe's name */
};

static void put_distribution(struct page *pg, const struct dist_plot *d, struct svg_series *s,
			     char (*keys)[16], char (*labels)[24])
{
	FILE *f = pg->f;

	for (size_t p = 0; p < pg->nprobes; p++) {
		size_t n = probe_series(pg, pg->probes[p], "all", s, keys, labels);
		char label[160];
		snprintf(label, sizeof(label), "%s: %s", pg->probes[p], d->label);
		fputs("<h3>", f);
		esc(pg, pg->probes[p]);
		fputs("</h3>\n", f);
		if (!any_drawable(s, n)) {
			no_plot(pg, pg->probes[p], s, n);
			continue;
		}
		figure_begin(pg, d->kind, d->plot, pg->probes[p], label, s, n);
		esc(pg, pg->probes[p]);
		fputs(d->caption, f);
	}
}

static int put_distributions(struct page *pg)
{
	static const struct dist_plot histogram = {
		PLOT_HISTOGRAM, "histogram", "latency histogram per CPU",
		": samples per histogram bucket. Buckets double in width at each power of two "
		"(2.05 µs, 4.1 µs, 8.2 µs, ...), so counts step up there. Hover a line for its "
		"count and max.</figcaption></figure>\n"
	};
	static const struct dist_plot exceedance = {
		PLOT_EXCEEDANCE_MARKS, "exceedance", "fraction of samples at or above a latency",
		": exceedance per CPU; dots p50 … p99.999 and max.</figcaption></figure>\n"
	};
	const struct report *r = pg->r;
	size_t cap = r->nresults + 1;
	struct svg_series *s = calloc(cap, sizeof(*s));
	char(*keys)[16] = calloc(cap, sizeof(*keys));
	char(*labels)[24] = calloc(cap, sizeof(*labels));
	FILE *f = pg->f;

	if (!s || !keys || !labels) {
		free(s);
		free(keys);
		free(labels);
		return -ENOMEM;
	}
	fputs("<h2 id=\"histograms\">Latency histograms</h2>\n<p class=\"cap\">One line per CPU "
	      "and one for all CPUs together (bold), over the whole run: the stored "
	      "log-linear buckets, each 1/128 of its lower bound wide, on a log latency axis "
	      "(a tail that spans microseconds to milliseconds stays readable) and log counts "
	      "(a single late sample stays visible).</p>\n",
	      f);
	put_distribution(pg, &histogram, s, keys, labels);
	fputs("<h2 id=\"exceedance\">How often later than x</h2>\n<p class=\"cap\">The "
	      "fraction of samples at or above each latency (1 − F(x), log scale), per CPU "
	      "and for all CPUs: read p99 where the line crosses 1 %, p99.99 at 0.01 %. Steps "
	      "are exact at the bucket bounds; dots are the stored percentiles (those the "
	      "sample count resolves) and the max.</p>\n",
	      f);
	put_distribution(pg, &exceedance, s, keys, labels);
	free(s);
	free(keys);
	free(labels);
	return 0;
}

/* ------------------------------------------------------ time series -- */

/* One vertex of a series line, or one pixel column of a down-sampled
 * series: y the highest interval maximum in it, y2 the lowest. */
struct tpoint {
	double x, y, y2;
	bool up;  /* starts a new subpath: empty intervals (columns) before it */
	bool max; /* the series' largest interval maximum is here */
};

struct tplot {
	struct svg_plot p;
	uint64_t span;
};

static size_t column_of(const struct tplot *tp, double t)
{
	double c = t / (double)tp->span * SVG_COLUMNS;

	if (!(c > 0))
		return 0;
	return c >= SVG_COLUMNS ? SVG_COLUMNS - 1 : (size_t)c;
}

/* A series as points: every non-empty interval's max at its middle, or,
 * beyond two intervals per pixel column (*down), one point per column with
 * the highest and the lowest maximum in it, so that no maximum is lost and
 * the series' max is always a vertex.  Empty intervals (columns) break the
 * line.  Returns the count, or -ENOMEM. */
static long series_points(const struct tplot *tp, const struct report_series *rs,
			  struct tpoint **out, size_t *argmax, bool *down)
{
	const struct series_interval *v = rs->v;
	size_t n = 0, best = SIZE_MAX;
	bool up = true;
	struct tpoint *pt;

	*down = rs->n > 2 * SVG_COLUMNS;
	if (!(pt = calloc(*down ? SVG_COLUMNS + 1 : rs->n + 1, sizeof(*pt))))
		return -ENOMEM;
	/* Strict: the first of equal maxima, in the series as in its column. */
	for (size_t k = 0; k < rs->n; k++)
		if (v[k].count && (best == SIZE_MAX || v[k].max_ns > v[best].max_ns))
			best = k;
	*argmax = best;
	for (size_t k = 0; k < rs->n;) {
		double mid = ((double)k + 0.5) * (double)rs->interval_ns;
		if (!*down) {
			if (v[k].count) {
				double y = svg_px(&tp->p.y, (double)v[k].max_ns);
				pt[n++] =
				    (struct tpoint){ svg_px(&tp->p.x, mid), y, y, up, k == best };
			}
			up = !v[k].count;
			k++;
			continue;
		}
		size_t col = column_of(tp, mid), e = k, lo = SIZE_MAX, hi = SIZE_MAX;
		for (;
		     e < rs->n && column_of(tp, ((double)e + 0.5) * (double)rs->interval_ns) == col;
		     e++) {
			if (!v[e].count)
				continue;
			if (lo == SIZE_MAX || v[e].max_ns < v[lo].max_ns)
				lo = e;
			if (hi == SIZE_MAX || v[e].max_ns > v[hi].max_ns)
				hi = e;
		}
		if (hi != SIZE_MAX) {
			/* Whole pixels: a page of 64 such series stays small. */
			pt[n++] = (struct tpoint){ SVG_LEFT + (double)col,
						   round(svg_px(&tp->p.y, (double)v[hi].max_ns)),
						   round(svg_px(&tp->p.y, (double)v[lo].max_ns)),
						   up, hi == best };
		}
		up = hi == SIZE_MAX;
		k = e > k ? e : k + 1;
	}
	*out = pt;
	return (long)n;
}

/* A down-sampled series as a band per run of columns: along the columns'
 * highest maxima, one pixel further, and back along their lowest (at least
 * a pixel below, so that a run of equal values stays visible).  A filled
 * band costs a browser far less than a line zig-zagging through every
 * column, which matters with 64 CPUs in one plot.  Returns the vertices. */
static void band_point(FILE *f, char cmd, double x, double y)
{
	fputc(cmd, f);
	svg_num(f, x);
	fputc(' ', f);
	svg_num(f, y);
}

static size_t put_band(FILE *f, const struct tpoint *pt, size_t n)
{
	size_t vertices = 0;

	for (size_t s = 0; s < n;) {
		size_t e = s + 1;
		while (e < n && !pt[e].up)
			e++;
		for (size_t i = s; i < e; i++)
			band_point(f, i == s ? 'M' : ' ', pt[i].x, pt[i].y);
		band_point(f, ' ', pt[e - 1].x + 1, pt[e - 1].y);
		band_point(f, ' ', pt[e - 1].x + 1, fmax(pt[e - 1].y2, pt[e - 1].y + 1));
		for (size_t i = e; i-- > s;)
			band_point(f, ' ', pt[i].x, fmax(pt[i].y2, pt[i].y + 1));
		fputc('Z', f);
		vertices += 2 * (e - s) + 2;
		s = e;
	}
	return vertices;
}

static const json_t *periodicity_of(const struct report *r, const struct report_series *rs)
{
	json_t *a;
	size_t i;

	json_array_foreach (json_object_get(r->analysis, "periodicity"), i, a)
		if (!strcmp(json_string_value(json_object_get(a, "probe")) ?: "", rs->probe) &&
		    json_integer_value(json_object_get(a, "cpu")) == rs->cpu)
			return a;
	return NULL;
}

static void put_phase_bands(struct page *pg, const struct tplot *tp)
{
	json_t *p, *occ;
	size_t i, k;
	FILE *f = pg->f;

	if (json_array_size(pg->r->phases) < 2)
		return;
	json_array_foreach (pg->r->phases, i, p) {
		json_array_foreach (json_object_get(p, "occurrences"), k, occ) {
			json_int_t s = json_integer_value(json_array_get(occ, 0));
			json_int_t e = json_integer_value(json_array_get(occ, 1));
			double x0 = svg_px(&tp->p.x, (double)s), x1 = svg_px(&tp->p.x, (double)e);
			char a[32], b[32];
			svg_runtime(a, sizeof(a), (uint64_t)(s > 0 ? s : 0));
			svg_runtime(b, sizeof(b), (uint64_t)(e > 0 ? e : 0));
			fprintf(f, "<rect class=\"band\" style=\"--h:%d\" data-phase=\"",
				phase_hue(pg, jstr(p, "name", NULL)));
			esc(pg, jstr(p, "name", NULL));
			fputs("\" x=\"", f);
			svg_num(f, x0);
			fprintf(f, "\" y=\"%d\" width=\"", SVG_TOP);
			svg_num(f, x1 - x0);
			fprintf(f, "\" height=\"%d\"><title>phase ", SVG_BOTTOM - SVG_TOP);
			esc(pg, jstr(p, "name", NULL));
			fprintf(f, ": %s to %s</title></rect>\n", a, b);
		}
	}
}

/* Logged spikes as dots; beyond one per pixel column, the highest of each
 * column.  Returns how many were drawn. */
static size_t put_spikes(struct page *pg, const struct tplot *tp, const struct report_series *rs,
			 int hue, const char *key)
{
	size_t *best = NULL, drawn = 0;
	bool down = rs->nspikes > SVG_COLUMNS;
	FILE *f = pg->f;

	if (!rs->nspikes)
		return 0;
	if (down) {
		if (!(best = malloc(SVG_COLUMNS * sizeof(*best)))) {
			pg->rc = -ENOMEM;
			return 0;
		}
		for (size_t c = 0; c < SVG_COLUMNS; c++)
			best[c] = SIZE_MAX;
		for (size_t i = 0; i < rs->nspikes; i++) {
			size_t c = column_of(tp, (double)rs->spikes[i].t_ns);
			if (best[c] == SIZE_MAX ||
			    rs->spikes[i].latency_ns > rs->spikes[best[c]].latency_ns)
				best[c] = i;
		}
	}
	fprintf(f, "<path class=\"sp\" style=\"--h:%d\" data-series=\"%s\" data-spikes=\"%zu\"",
		hue, key, rs->nspikes);
	for (size_t i = 0; i < (down ? SVG_COLUMNS : rs->nspikes); i++)
		drawn += !down || best[i] != SIZE_MAX;
	fprintf(f, " data-drawn=\"%zu\" d=\"", drawn);
	for (size_t i = 0; i < (down ? SVG_COLUMNS : rs->nspikes); i++) {
		size_t s = down ? best[i] : i;
		if (s == SIZE_MAX)
			continue;
		double x = svg_px(&tp->p.x, (double)rs->spikes[s].t_ns);
		double y = svg_px(&tp->p.y, (double)rs->spikes[s].latency_ns);
		fputc('M', f);
		svg_num(f, down ? round(x) : x);
		fputc(' ', f);
		svg_num(f, down ? round(y) : y);
		fputs("h0", f);
	}
	fputs("\"/>\n", f);
	free(best);
	return drawn;
}

/* Recurring spikes (analysis.periodicity) as ticks along the top. */
static void put_periods(struct page *pg, const struct tplot *tp, const json_t *per, int hue,
			const char *key)
{
	json_t *pat;
	size_t i;
	FILE *f = pg->f;

	json_array_foreach (json_object_get(per, "patterns"), i, pat) {
		json_int_t period = json_integer_value(json_object_get(pat, "period_ns"));
		json_int_t phase = json_integer_value(json_object_get(pat, "phase_ns"));
		if (period <= 0 || phase < 0 || (uint64_t)phase > tp->span ||
		    (tp->span - (uint64_t)phase) / (uint64_t)period > SVG_COLUMNS / 3)
			continue; /* too dense to draw: the caption says it */
		fprintf(f,
			"<path class=\"per\" style=\"--h:%d\" data-series=\"%s\" "
			"data-period-ns=\"%" JSON_INTEGER_FORMAT "\" d=\"",
			hue, key, period);
		for (uint64_t t = (uint64_t)phase; t <= tp->span; t += (uint64_t)period) {
			fputc('M', f);
			svg_num(f, svg_px(&tp->p.x, (double)t));
			fprintf(f, " %dv10", SVG_TOP);
		}
		fputs("\"/>\n", f);
	}
}

static void put_period_text(struct page *pg, const struct report_series *rs, const json_t *per)
{
	json_t *pat;
	size_t i;
	FILE *f = pg->f;

	json_array_foreach (json_object_get(per, "patterns"), i, pat) {
		char p[32], j[32], ph[32];
		svg_runtime(p, sizeof(p),
			    (uint64_t)json_integer_value(json_object_get(pat, "period_ns")));
		svg_latency(j, sizeof(j),
			    (uint64_t)json_integer_value(json_object_get(pat, "jitter_ns")));
		svg_runtime(ph, sizeof(ph),
			    (uint64_t)json_integer_value(json_object_get(pat, "phase_ns")));
		fputs("<li>", f);
		esc(pg, rs->probe);
		fprintf(
		    f,
		    " CPU %d: spikes recur every %s (± %s) from %s: %.0f %% of %" JSON_INTEGER_FORMAT
		    " spikes, in %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT
		    " periods (log10 p %.1f)</li>\n",
		    rs->cpu, p + 1, j, ph,
		    100 * json_number_value(json_object_get(pat, "explained")),
		    json_integer_value(json_object_get(per, "events")),
		    json_integer_value(json_object_get(pat, "cycles_hit")),
		    json_integer_value(json_object_get(pat, "cycles")),
		    json_number_value(json_object_get(pat, "log10_p")));
	}
}

struct tstat {
	size_t points; /* vertices drawn */
	size_t spikes_drawn;
	bool down;
};

/* One series: line, spikes, periods, and the max as a marker on its vertex. */
static int put_one_series(struct page *pg, const struct tplot *tp, const struct report_series *rs,
			  int hue, struct tstat *st)
{
	struct tpoint *pt = NULL;
	size_t argmax, mi = SIZE_MAX;
	bool down;
	long n = series_points(tp, rs, &pt, &argmax, &down);
	char key[16], mx[32] = "", iv[32];
	FILE *f = pg->f;

	if (n < 0)
		return (int)n;
	cpu_key(key, sizeof(key), rs->cpu);
	for (long i = 0; i < n; i++)
		if (pt[i].max)
			mi = (size_t)i;
	fprintf(f,
		"<path class=\"%s\" style=\"--h:%d\" data-series=\"%s\" data-n=\"%zu\" "
		"data-columns=\"%ld\"",
		down ? "env" : "ln", hue, key, rs->n, n);
	if (down) {
		fputs(" d=\"", f);
		st->points = put_band(f, pt, (size_t)n);
		fputc('"', f);
	} else {
		struct svg_path pa;
		svg_path_begin(&pa, f);
		for (long i = 0; i < n; i++) {
			if (pt[i].up)
				svg_path_up(&pa);
			svg_path_to(&pa, pt[i].x, pt[i].y);
		}
		svg_path_end(&pa);
		st->points = pa.points;
	}
	st->down = down;
	svg_span(iv, sizeof(iv), rs->interval_ns);
	fprintf(f, "><title>CPU %d: %zu intervals of %s", rs->cpu, rs->n, iv);
	if (argmax != SIZE_MAX) {
		svg_latency(mx, sizeof(mx), rs->v[argmax].max_ns);
		fprintf(f, ", max %s", mx);
	}
	fputs("</title></path>\n", f);
	st->spikes_drawn = put_spikes(pg, tp, rs, hue, key);
	put_periods(pg, tp, periodicity_of(pg->r, rs), hue, key);
	if (mi != SIZE_MAX) {
		char at[32];
		svg_runtime(at, sizeof(at), argmax * rs->interval_ns);
		fprintf(
		    f,
		    "<circle class=\"mk\" style=\"--h:%d\" data-series=\"%s\" data-role=\"max\" "
		    "data-ns=\"%" PRIu64 "\" data-t-ns=\"%" PRIu64 "\" cx=\"",
		    hue, key, rs->v[argmax].max_ns, (uint64_t)argmax * rs->interval_ns);
		svg_num(f, pt[mi].x);
		fputs("\" cy=\"", f);
		svg_num(f, pt[mi].y);
		fprintf(
		    f,
		    "\" r=\"4\"><title>CPU %d: max %s in the interval from %s</title></circle>\n",
		    rs->cpu, mx, at);
	}
	free(pt);
	return 0;
}

static void series_table(struct page *pg, const struct report_series *const *ss, size_t m,
			 const struct tstat *st)
{
	FILE *f = pg->f;

	fputs("<details><summary>Per CPU: intervals, points drawn, spikes</summary>\n<table>"
	      "<thead><tr><th class=\"l\">CPU</th><th>intervals</th><th>interval</th>"
	      "<th>points drawn</th><th>max</th><th>spike threshold</th><th>spikes</th>"
	      "<th>logged</th><th>drawn</th><th>ring stalls</th><th class=\"l\">recurring?"
	      "</th></tr></thead><tbody>\n",
	      f);
	for (size_t i = 0; i < m; i++) {
		const struct report_series *rs = ss[i];
		const json_t *per = periodicity_of(pg->r, rs);
		char iv[32];
		uint64_t mx = 0;
		for (size_t k = 0; k < rs->n; k++)
			mx = rs->v[k].max_ns > mx ? rs->v[k].max_ns : mx;
		svg_span(iv, sizeof(iv), rs->interval_ns);
		fprintf(f, "<tr><td class=\"l\">%d</td><td>%zu</td><td>%s</td><td>%zu</td><td>",
			rs->cpu, rs->n, iv, st[i].points);
		lat(pg, mx);
		fputs("</td><td>", f);
		if (rs->threshold_ns)
			lat(pg, rs->threshold_ns);
		else
			fputs("not set", f);
		fprintf(f,
			"</td><td>%" PRIu64 "</td><td>%zu</td><td>%zu</td><td>%" PRIu64
			"</td><td class=\"l\">",
			rs->spikes_total, rs->nspikes, st[i].spikes_drawn, rs->stalls);
		esc(pg, per ? json_string_value(json_object_get(per, "verdict")) : "–");
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></details>\n", f);
}

static int put_timeseries_probe(struct page *pg, const char *probe)
{
	const struct report *r = pg->r;
	const struct report_series **ss = calloc(r->nseries, sizeof(*ss));
	struct tstat *st = calloc(r->nseries, sizeof(*st));
	struct tplot tp = { .span = r->duration_ns };
	uint64_t ymin = UINT64_MAX, ymax = 0, ivl = 0;
	size_t m = 0, points = 0, intervals = 0, spikes = 0, drawn = 0;
	bool down = false, patterns = false;
	char attrs[512], label[200], iv[32];
	FILE *f = pg->f;
	int rc = 0;

	if (!ss || !st) {
		free(ss);
		free(st);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nseries; i++) {
		const struct report_series *rs = &r->series[i];
		if (strcmp(rs->probe, probe))
			continue;
		ss[m++] = rs;
		if (rs->n * rs->interval_ns > tp.span)
			tp.span = rs->n * rs->interval_ns;
		for (size_t k = 0; k < rs->n; k++) {
			if (!rs->v[k].count)
				continue;
			if (rs->v[k].max_ns > ymax)
				ymax = rs->v[k].max_ns;
			if (rs->v[k].max_ns && rs->v[k].max_ns < ymin)
				ymin = rs->v[k].max_ns;
		}
		ivl = rs->interval_ns;
		intervals += rs->n;
		spikes += rs->nspikes;
		down = down || rs->n > 2 * SVG_COLUMNS;
		patterns =
		    patterns || json_array_size(json_object_get(periodicity_of(r, rs), "patterns"));
	}
	fputs("<h3>", f);
	esc(pg, probe);
	fputs("</h3>\n", f);
	if (!ymax || ymin == UINT64_MAX) {
		fputs("<p class=\"muted\">", f);
		esc(pg, probe);
		fputs(": no interval holds a sample.</p>\n", f);
		goto out;
	}
	if (!tp.span)
		tp.span = 1;
	tp.p.x =
	    (struct svg_axis){ false, 0, (double)tp.span, SVG_LEFT, SVG_RIGHT, SVG_TICKS_RUNTIME };
	tp.p.y = (struct svg_axis){
		true,	 svg_floor125((double)ymin), svg_ceil125((double)ymax * 1.05), SVG_BOTTOM,
		SVG_TOP, SVG_TICKS_LATENCY
	};
	if (tp.p.y.hi < tp.p.y.lo * 2)
		tp.p.y.hi = svg_ceil125(tp.p.y.lo * 2.01);
	plot_attrs(attrs, sizeof(attrs), "timeseries", probe);
	svg_span(iv, sizeof(iv), ivl);
	snprintf(label, sizeof(label), "%s: maximum latency per %s interval over time", probe, iv);
	fputs("<figure>", f);
	svg_begin(&tp.p, f, attrs, label, "time since start", "max per interval (log scale)");
	put_phase_bands(pg, &tp);
	for (size_t i = 0; i < m && !rc; i++) {
		rc = put_one_series(pg, &tp, ss[i], svg_hue((unsigned)i), &st[i]);
		points += st[i].points;
		drawn += st[i].spikes_drawn;
	}
	svg_end(&tp.p);
	if (rc)
		goto out;
	/* The legend: CPUs, then phases. */
	fputs("<div class=\"legend\">", f);
	for (size_t i = 0; i < m; i++)
		fprintf(f,
			"<span class=\"key\"><i class=\"sw\" style=\"--h:%d\"></i>CPU %d</span> ",
			svg_hue((unsigned)i), ss[i]->cpu);
	if (json_array_size(r->phases) > 1) {
		json_t *p;
		size_t i;
		json_array_foreach (r->phases, i, p) {
			fprintf(
			    f,
			    "<span class=\"key\"><i class=\"sw band\" style=\"--h:%d\"></i>phase ",
			    phase_hue(pg, jstr(p, "name", NULL)));
			esc(pg, jstr(p, "name", NULL));
			fputs("</span> ", f);
		}
	}
	fputs("</div>\n<figcaption>", f);
	esc(pg, probe);
	fprintf(f,
		": the highest latency in each %s interval, per CPU; dots are logged spikes "
		"(above each CPU's spike threshold)",
		iv);
	if (json_array_size(r->phases) > 1)
		fputs("; shaded bands are the load phases", f);
	if (patterns)
		fputs("; ticks along the top mark recurring spikes", f);
	fputs(". The marked point is each CPU's largest interval maximum.", f);
	if (down)
		fprintf(f,
			" <strong>Down-sampled to %zu points</strong> from %zu intervals: where a "
			"CPU has more than two intervals per pixel column, its line becomes a band "
			"from the lowest to the highest interval maximum of each column, so no "
			"maximum is lost.",
			points, intervals);
	if (drawn < spikes)
		fprintf(
		    f, " %zu of %zu logged spikes drawn: the highest of each pixel column per CPU.",
		    drawn, spikes);
	fputs("</figcaption></figure>\n", f);
	if (patterns) {
		fputs("<ul class=\"periods\">\n", f);
		for (size_t i = 0; i < m; i++)
			put_period_text(pg, ss[i], periodicity_of(r, ss[i]));
		fputs("</ul>\n", f);
	}
	series_table(pg, ss, m, st);
out:
	free(ss);
	free(st);
	return rc;
}

static int put_timeseries(struct page *pg)
{
	const struct report *r = pg->r;
	const char **done = calloc(r->nseries + 1, sizeof(*done));
	size_t nd = 0;
	int rc = 0;

	if (!done)
		return -ENOMEM;
	if (r->nseries)
		fputs("<h2 id=\"timeseries\">Over time</h2>\n", pg->f);
	for (size_t i = 0; i < r->nseries && !rc; i++) {
		if (listed(done, nd, r->series[i].probe))
			continue;
		done[nd++] = r->series[i].probe;
		rc = put_timeseries_probe(pg, r->series[i].probe);
	}
	free(done);
	return rc;
}

/* ------------------------------------------------------ worst moments -- */

static void put_worst(struct page *pg)
{
	json_t *top = json_object_get(pg->r->analysis, "top_spikes");
	json_t *wi = json_object_get(pg->r->analysis, "worst_intervals");
	json_t *t;
	size_t i;
	FILE *f = pg->f;

	if (!json_array_size(top) && !json_array_size(wi))
		return;
	fputs("<h2 id=\"worst\">Worst moments</h2>\n", f);
	if (json_array_size(top)) {
		fputs("<table id=\"top-spikes\"><thead><tr><th>latency</th><th class=\"l\">probe"
		      "</th><th class=\"l\">CPU</th><th>at</th><th class=\"l\">phase</th>"
		      "<th>samples in its interval</th><th>missed there</th></tr></thead><tbody>\n",
		      f);
		json_array_foreach (top, i, t) {
			json_t *in = json_object_get(t, "interval");
			char at[32];
			svg_runtime(at, sizeof(at),
				    (uint64_t)json_integer_value(json_object_get(t, "t_ns")));
			fputs("<tr><td>", f);
			lat(pg, (uint64_t)json_integer_value(json_object_get(t, "latency_ns")));
			fputs("</td><td class=\"l\">", f);
			esc(pg, jstr(t, "probe", NULL));
			fprintf(f,
				"</td><td class=\"l\">%" JSON_INTEGER_FORMAT "</td><td>%s</td>"
				"<td class=\"l\">",
				json_integer_value(json_object_get(t, "cpu")), at);
			esc(pg, jstr(t, "phase", NULL));
			fputs("</td><td>", f);
			put_json(pg, json_object_get(in, "count"), 1);
			fputs("</td><td>", f);
			put_json(pg, json_object_get(in, "missed"), 1);
			fputs("</td></tr>\n", f);
		}
		fputs("</tbody></table>\n<p class=\"cap\">The largest logged samples over all "
		      "series, with the phase they fell in (its system counters are under "
		      "Phases below).</p>\n",
		      f);
	}
	if (json_array_size(wi)) {
		fputs("<details><summary>Worst intervals</summary><table><thead><tr><th>max</th>"
		      "<th class=\"l\">probe</th><th class=\"l\">CPU</th><th>from</th><th>to</th>"
		      "<th>samples</th><th>spikes</th><th>missed</th></tr></thead><tbody>\n",
		      f);
		json_array_foreach (wi, i, t) {
			char a[32], b[32];
			svg_runtime(a, sizeof(a),
				    (uint64_t)json_integer_value(json_object_get(t, "start_ns")));
			svg_runtime(b, sizeof(b),
				    (uint64_t)json_integer_value(json_object_get(t, "end_ns")));
			fputs("<tr><td>", f);
			lat(pg, (uint64_t)json_integer_value(json_object_get(t, "max_ns")));
			fputs("</td><td class=\"l\">", f);
			esc(pg, jstr(t, "probe", NULL));
			fprintf(f,
				"</td><td class=\"l\">%" JSON_INTEGER_FORMAT
				"</td><td>%s</td><td>%s"
				"</td><td>%" JSON_INTEGER_FORMAT "</td><td>%" JSON_INTEGER_FORMAT
				"</td><td>%" JSON_INTEGER_FORMAT "</td></tr>\n",
				json_integer_value(json_object_get(t, "cpu")), a, b,
				json_integer_value(json_object_get(t, "count")),
				json_integer_value(json_object_get(t, "spikes")),
				json_integer_value(json_object_get(t, "missed")));
		}
		fputs("</tbody></table></details>\n", f);
	}
}

/* --------------------------------------------------------------- ab -- */

/* rtsoak ab: the verdicts of arm B against arm A as compare.c stored them
 * (rtsoak-compare/1 in the report), above the per-phase detail. */
static void put_ab(struct page *pg)
{
	json_t *cmp = json_object_get(pg->r->ab, "comparison"), *m, *t;
	size_t i;
	FILE *f = pg->f;

	if (!json_array_size(json_object_get(cmp, "matches")))
		return;
	fputs("<h2 id=\"ab\">A/B verdicts</h2>\n<p class=\"cap\">Arm B (with the tweaks) against "
	      "arm A, by the rounds (",
	      f);
	put_json(pg, json_object_get(pg->r->ab, "order"), 1);
	fputs("). B sets:", f);
	json_array_foreach (pg->r->tweaks, i, t) {
		fputs(i ? ", " : " ", f);
		esc(pg, jstr(t, "path", NULL));
		fputs(" = ", f);
		put_json(pg, json_object_get(t, "value"), 1);
	}
	fputs(".</p>\n<table id=\"ab-table\"><thead><tr><th class=\"l\">probe</th>"
	      "<th class=\"l\">CPU</th><th class=\"l\">verdict</th><th>shift of B (95 % CI)</th>"
	      "<th>p</th><th class=\"l\">method</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach (json_object_get(cmp, "matches"), i, m) {
		json_t *sh = json_object_get(m, "shift_ns"), *lo = json_object_get(m, "ci_low_ns");
		json_t *hi = json_object_get(m, "ci_high_ns"), *p = json_object_get(m, "p");
		const char *v = jstr(m, "verdict", NULL);
		fputs("<tr><td class=\"l\">", f);
		esc(pg, jstr(m, "probe", NULL));
		fputs("</td><td class=\"l\">", f);
		put_json(pg, json_object_get(m, "cpu"), 1);
		fprintf(f, "</td><td class=\"l%s\">",
			!v		       ? ""
			: !strcmp(v, "worse")  ? " worse"
			: !strcmp(v, "better") ? " better"
					       : "");
		esc(pg, v);
		fputs("</td><td class=\"nw\">", f);
		if (json_is_number(sh) && json_is_number(lo) && json_is_number(hi))
			fprintf(f, "%+.1f µs (%+.1f … %+.1f)", json_number_value(sh) / 1000,
				json_number_value(lo) / 1000, json_number_value(hi) / 1000);
		else if (json_is_number(sh))
			fprintf(f, "%+.1f µs", json_number_value(sh) / 1000);
		else
			fputs("–", f);
		if (json_is_number(p) && isfinite(json_number_value(p)))
			fprintf(f, "</td><td>%.2g</td><td class=\"l\">", json_number_value(p));
		else
			fputs("</td><td>–</td><td class=\"l\">", f);
		esc(pg, jstr(m, "method", NULL));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* --------------------------------------------------------- per phase -- */

static int put_phases(struct page *pg)
{
	const struct report *r = pg->r;
	struct svg_series *s;
	FILE *f = pg->f;

	if (!pg->nphases)
		return 0;
	if (!(s = calloc(pg->nphases, sizeof(*s))))
		return -ENOMEM;
	fputs("<h2 id=\"phases\">Which load hurts which probe</h2>\n<p class=\"cap\">Each cell: "
	      "p99 / max in µs of that CPU in that phase; the shading grows with the max "
	      "(log scale, within each table). Phases:",
	      f);
	for (size_t j = 0; j < pg->nphases; j++) {
		fputs(j ? ", " : " ", f);
		esc(pg, pg->phases[j]);
	}
	fputs(".</p>\n", f);
	for (size_t p = 0; p < pg->nprobes; p++) {
		const char *probe = pg->probes[p];
		double lo = INFINITY, hi = 0;
		char label[160];
		size_t n = 0;
		int cpu;

		/* The shading's range: the maxima in this table. */
		for (size_t i = 0; i < r->nresults + r->naggregates; i++) {
			const struct report_result *res = result_at(r, i);
			if (strcmp(res->probe, probe) || !strcmp(res->phase, "all") ||
			    !res->count || !res->max)
				continue;
			lo = fmin(lo, (double)res->max);
			hi = fmax(hi, (double)res->max);
		}
		fputs("<h3>", f);
		esc(pg, probe);
		fprintf(f, "</h3>\n<table class=\"phase-table\" data-probe=\"");
		esc(pg, probe);
		fputs("\"><thead><tr><th class=\"l\">CPU</th>", f);
		for (size_t j = 0; j < pg->nphases; j++) {
			fputs("<th>", f);
			esc(pg, pg->phases[j]);
			fputs("</th>", f);
		}
		fputs("</tr></thead><tbody>\n", f);
		for (size_t i = 0; next_cpu_row(r, probe, &i, &cpu);) {
			char c[16];
			cpu_name(c, sizeof(c), cpu);
			fprintf(f, "<tr><th class=\"l\">%s</th>", c);
			for (size_t j = 0; j < pg->nphases; j++) {
				const struct report_result *res =
				    find(r, probe, cpu, pg->phases[j]);
				double a = 0.04;
				if (!res || !res->count) {
					fputs("<td>–</td>", f);
					continue;
				}
				if (hi > lo && res->max)
					a += 0.5 * (log((double)res->max) - log(lo)) /
					     (log(hi) - log(lo));
				else if (res->max)
					a = 0.3;
				fputs("<td class=\"heat\" style=\"--a:", f);
				fprintf(f, "%.2f", isfinite(a) ? a : 0.04);
				fputs("\" data-phase=\"", f);
				esc(pg, pg->phases[j]);
				fputs("\">", f);
				if (res->unknown & REPORT_UNKNOWN_PCT)
					fputs("?", f);
				else
					fprintf(f, "%.1f", (double)res->pct[2] / 1000.0);
				fprintf(f, " / %.1f</td>", (double)res->max / 1000.0);
			}
			fputs("</tr>\n", f);
		}
		fputs("</tbody></table>\n", f);

		/* All CPUs per phase, overlaid. */
		for (size_t j = 0; j < pg->nphases; j++) {
			const struct report_result *agg =
			    find(r, probe, REPORT_CPU_ALL, pg->phases[j]);
			if (!agg)
				continue;
			s[n++] = (struct svg_series){ agg,	     pg->phases[j],
						      pg->phases[j], phase_hue(pg, pg->phases[j]),
						      false,	     false };
		}
		if (!any_drawable(s, n))
			continue;
		snprintf(label, sizeof(label), "%s: exceedance per phase, all CPUs", probe);
		figure_begin(pg, PLOT_EXCEEDANCE, "phases", probe, label, s, n);
		esc(pg, probe);
		fputs(
		    ", all CPUs: fraction of samples at or above each latency, one line per "
		    "phase: the line further right is the phase that hurts.</figcaption></figure>\n",
		    f);
	}
	free(s);
	return 0;
}

/* ------------------------------------------------------ network split -- */

static void split_cells(struct page *pg, const struct report_result *res)
{
	bool has = res && res->count, pct = res && (res->unknown & REPORT_UNKNOWN_PCT);

	cell_us(pg, "p50_ns", has, pct, has ? res->pct[0] : 0);
	cell_us(pg, "p99_ns", has, pct, has ? res->pct[2] : 0);
	cell_us(pg, "p99_9_ns", has, pct, has ? res->pct[3] : 0);
	cell_us(pg, "max_ns", has, false, has ? res->max : 0);
}

static void put_netsplit(struct page *pg)
{
	const struct report *r = pg->r;
	FILE *f = pg->f;
	bool heading = false;

	for (size_t p = 0; p < pg->nprobes; p++) {
		const char *net = pg->probes[p];
		char stack[128], wakeup[128], label[160];
		struct svg_series s[3];
		const char *names[3] = { net, stack, wakeup };
		size_t n = 0;
		int cpu;

		snprintf(stack, sizeof(stack), "%s.stack", net);
		snprintf(wakeup, sizeof(wakeup), "%s.wakeup", net);
		if (!listed(pg->probes, pg->nprobes, stack) ||
		    !listed(pg->probes, pg->nprobes, wakeup))
			continue;
		if (!heading)
			fputs(
			    "<h2 id=\"netsplit\">Network split</h2>\n<p class=\"cap\">Each "
			    "network sample splits at the kernel's receive timestamp: "
			    "<b>stack</b> from the send call to where the packet enters the "
			    "receive path; <b>wake-up</b> from there until the receiving thread "
			    "ran (softirq, socket queue, wake-up, context switch). Percentiles of "
			    "the parts do not add up to those of the whole.</p>\n",
			    f);
		heading = true;
		fputs("<table class=\"netsplit\" data-probe=\"", f);
		esc(pg, net);
		fputs("\"><thead><tr><th class=\"l\" rowspan=\"2\">CPU</th>", f);
		for (unsigned k = 0; k < 3; k++) {
			fputs("<th colspan=\"4\">", f);
			esc(pg, names[k]);
			fputs("</th>", f);
		}
		fputs("</tr><tr>", f);
		for (unsigned k = 0; k < 3; k++)
			fputs("<th>p50</th><th>p99</th><th>p99.9</th><th>max (µs)</th>", f);
		fputs("</tr></thead><tbody>\n", f);
		for (size_t i = 0; next_cpu_row(r, net, &i, &cpu);) {
			char c[16];
			cpu_key(c, sizeof(c), cpu);
			fprintf(f, "<tr data-cpu=\"%s\"><th class=\"l\">%s</th>", c, c);
			for (unsigned k = 0; k < 3; k++)
				split_cells(pg, find(r, names[k], cpu, "all"));
			fputs("</tr>\n", f);
		}
		fputs("</tbody></table>\n", f);
		for (unsigned k = 0; k < 3; k++) {
			const struct report_result *agg = find(r, names[k], REPORT_CPU_ALL, "all");
			if (agg)
				s[n++] = (struct svg_series){ agg,	names[k],
							      names[k], k ? svg_hue(k * 2) : SVG_FG,
							      k == 0,	false };
		}
		if (!any_drawable(s, n))
			continue;
		snprintf(label, sizeof(label), "%s: total, stack and wake-up, all CPUs", net);
		figure_begin(pg, PLOT_EXCEEDANCE_MARKS, "netsplit", net, label, s, n);
		fputs("All CPUs: fraction of samples at or above each latency, for the "
		      "whole and its two parts.</figcaption></figure>\n",
		      f);
	}
}

/* ----------------------------------------------------------- details -- */

static void put_loads(struct page *pg)
{
	static const char *const cols[] = { "name",	"spec",	       "cpus",	 "workers",
					    "ops",	"ops_per_sec", "errors", "last_error",
					    "restarts", "exits_total", "status" };
	json_t *l;
	size_t i;
	FILE *f = pg->f;

	fprintf(f, "<details id=\"loads\"><summary>Loads (%zu)</summary>\n",
		json_array_size(pg->r->loads));
	if (!json_array_size(pg->r->loads)) {
		fputs("<p class=\"muted\">No loads: the system was measured as it was.</p>"
		      "</details>\n",
		      f);
		return;
	}
	fputs("<table><thead><tr>", f);
	for (unsigned c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		fprintf(f, "<th class=\"l\">%s</th>", cols[c]);
	fputs("</tr></thead><tbody>\n", f);
	json_array_foreach (pg->r->loads, i, l) {
		fputs("<tr>", f);
		for (unsigned c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
			json_t *v = json_object_get(l, cols[c]);
			fputs("<td class=\"l\">", f);
			if (v)
				put_json(pg, v, 1);
			else
				fputs("–", f);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	json_array_foreach (pg->r->loads, i, l) {
		fputs("<h3>", f);
		esc(pg, jstr(l, "spec", NULL) ?: jstr(l, "name", NULL));
		fputs("</h3>", f);
		put_json(pg, l, 0);
	}
	fputs("</details>\n", f);
}

static void put_phase_details(struct page *pg)
{
	json_t *p;
	size_t i;
	FILE *f = pg->f;

	if (!json_array_size(pg->r->phases))
		return;
	fprintf(f,
		"<details id=\"phase-details\"><summary>Phases (%zu): loads, time and system "
		"counters</summary>\n<table><thead><tr><th class=\"l\">phase</th><th class=\"l\">"
		"loads</th><th>time</th><th>occurrences</th></tr></thead><tbody>\n",
		json_array_size(pg->r->phases));
	json_array_foreach (pg->r->phases, i, p) {
		fputs("<tr><td class=\"l\">", f);
		esc(pg, jstr(p, "name", NULL));
		fputs("</td><td class=\"l\">", f);
		put_json(pg, json_object_get(p, "loads"), 1);
		fputs("</td><td>", f);
		lat(pg, (uint64_t)json_integer_value(json_object_get(p, "time_ns")));
		fprintf(f, "</td><td>%zu</td></tr>\n",
			json_array_size(json_object_get(p, "occurrences")));
	}
	fputs("</tbody></table>\n", f);
	json_array_foreach (pg->r->phases, i, p) {
		fputs("<h3>phase ", f);
		esc(pg, jstr(p, "name", NULL));
		fputs(": system counters (per CPU where a list)</h3>", f);
		put_json(pg, json_object_get(p, "system"), 0);
	}
	fputs("</details>\n", f);
}

static void put_counters(struct page *pg)
{
	const struct report *r = pg->r;
	bool any = false;
	FILE *f = pg->f;

	for (size_t i = 0; i < r->nresults + r->naggregates; i++) {
		const struct report_result *res = result_at(r, i);
		char c[16];
		if (!res->counters)
			continue;
		if (!any)
			fputs("<details id=\"counters\"><summary>Probe counters</summary>\n", f);
		any = true;
		cpu_name(c, sizeof(c), res->cpu);
		fputs("<h3>", f);
		esc(pg, res->probe);
		fprintf(f, ", %s</h3>", c);
		put_json(pg, res->counters, 0);
	}
	if (any)
		fputs("</details>\n", f);
}

static void put_details(struct page *pg)
{
	const struct report *r = pg->r;
	FILE *f = pg->f;

	fputs("<h2 id=\"details\">Details</h2>\n", f);
	fprintf(f, "<details id=\"warnings\"%s><summary>Warnings (%zu)</summary>\n",
		r->nwarnings ? " open" : "", r->nwarnings);
	if (r->nwarnings) {
		fputs("<ul>\n", f);
		for (size_t i = 0; i < r->nwarnings; i++) {
			fputs("<li class=\"warning\">", f);
			esc(pg, r->warnings[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	} else {
		fputs("<p class=\"muted\">None.</p>\n", f);
	}
	fputs("</details>\n<details id=\"system\"><summary>System snapshot</summary>\n", f);
	if (r->system)
		put_json(pg, r->system, 0);
	fputs("</details>\n", f);
	put_loads(pg);
	put_phase_details(pg);
	fprintf(f, "<details id=\"tweaks\"><summary>Tweaks (%zu)</summary>\n",
		json_array_size(r->tweaks));
	if (json_array_size(r->tweaks))
		put_json(pg, r->tweaks, 0);
	else
		fputs("<p class=\"muted\">None: the system was measured as configured.</p>\n", f);
	fputs("</details>\n", f);
	put_counters(pg);
	if (r->ab) {
		fputs(
		    "<details id=\"ab-details\"><summary>rtsoak ab: rounds and verdicts</summary>\n",
		    f);
		put_json(pg, r->ab, 0);
		fputs("</details>\n", f);
	}
	fputs("<details id=\"config\"><summary>Run configuration</summary>\n", f);
	fprintf(f, "<table class=\"kv\"><tr><th>status</th><td>%s</td></tr><tr><th>start</th><td>",
		report_status_name(r->status));
	esc(pg, r->start);
	fputs("</td></tr><tr><th>end</th><td>", f);
	esc(pg, r->end);
	fprintf(f, "</td></tr><tr><th>duration</th><td>%.3f s</td></tr></table>\n",
		(double)r->duration_ns / 1e9);
	if (r->config)
		put_json(pg, r->config, 0);
	fputs("</details>\n", f);
}

/* -------------------------------------------------------------- page -- */

static int put_page(struct page *pg)
{
	const struct report *r = pg->r;
	FILE *f = pg->f;
	char title[200];
	int rc;

	snprintf(title, sizeof(title), "%s report %s (%s)", r->tool_name ? r->tool_name : "rtsoak",
		 r->start, report_status_name(r->status));
	svg_page_begin(f, title);
	put_banner(pg);
	put_headline(pg);
	put_meta(pg);
	fputs("<nav><a href=\"#summary\">Summary</a><a href=\"#histograms\">Histograms</a>"
	      "<a href=\"#exceedance\">Exceedance</a>",
	      f);
	if (r->nseries)
		fputs("<a href=\"#timeseries\">Over time</a>", f);
	if (pg->nphases)
		fputs("<a href=\"#phases\">Per phase</a>", f);
	if (json_array_size(json_object_get(json_object_get(r->ab, "comparison"), "matches")))
		fputs("<a href=\"#ab\">A/B verdicts</a>", f);
	fputs("<a href=\"#details\">Details</a></nav>\n", f);
	put_summary(pg);
	put_ab(pg);
	if ((rc = put_distributions(pg)) || (rc = put_timeseries(pg)))
		return rc;
	put_worst(pg);
	if ((rc = put_phases(pg)))
		return rc;
	put_netsplit(pg);
	put_details(pg);
	svg_page_end(f);
	return pg->rc;
}

static int fill(FILE *f, void *arg)
{
	struct page pg = { .f = f, .r = arg };
	int rc = page_index(&pg);

	if (!rc)
		rc = put_page(&pg);
	free(pg.probes);
	free(pg.phases);
	return rc;
}

int report_html_write(const struct report *r, const char *path)
{
	return output_write_with(path, fill, (void *)r);
}
