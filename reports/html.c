// SPDX-License-Identifier: GPL-2.0-or-later
/* html: the report as one self-contained HTML page (`--html OUT`).
 *
 * The page answers, top down: how bad was it, where and when (headline);
 * the numbers (summary table); what the distribution looks like (histogram
 * and exceedance per probe); when it happened (time series with phases and
 * spikes, html_series.c); which load hurt which probe (per-phase table and
 * plot); where a network sample spent its time (net.stack against
 * net.wakeup); and, folded away, the system, loads, tweaks and warnings
 * (html_details.c).  Above REPORT_MANY_CPUS measured CPUs a per-CPU
 * overview of heat maps comes first (html_heatmap.c), the summary folds its
 * per-CPU rows under the all-CPU ones, and the plots draw the
 * REPORT_WORST_CPUS worst CPUs of each probe (html_drawn): 128 overlapping
 * lines show nothing, and 128 of each plot made a 7 MB page.  This file
 * writes the page in that order, and holds the lookups and text helpers its
 * sections share (html_internal.h).
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
#include "html_internal.h"
#include "output.h"
#include "util.h"
#include "views.h"

/* ----------------------------------------------------------- lookups -- */

void html_cpu_key(char *buf, size_t len, int cpu)
{
	if (cpu == REPORT_CPU_ALL)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%d", cpu);
}

void html_cpu_name(char *buf, size_t len, int cpu)
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
const struct report_result *html_result_at(const struct report *r, size_t i)
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

bool html_listed(const char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* A string from a path of object keys ("kernel", "release"), or NULL. */
const char *html_jstr(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);

	if (b)
		v = json_object_get(v, b);
	return json_string_value(v);
}

static int page_index(struct html_page *pg)
{
	const struct report *r = pg->r;
	size_t n = r->nresults + r->naggregates;

	pg->probes = calloc(n + 1, sizeof(*pg->probes));
	pg->phases = calloc(n + 1, sizeof(*pg->phases));
	if (!pg->probes || !pg->phases)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct report_result *res = html_result_at(r, i);
		if (!html_listed(pg->probes, pg->nprobes, res->probe))
			pg->probes[pg->nprobes++] = res->probe;
		if (strcmp(res->phase, "all") && !html_listed(pg->phases, pg->nphases, res->phase))
			pg->phases[pg->nphases++] = res->phase;
	}
	pg->ncpus = report_cpu_count(r);
	pg->many = pg->ncpus > REPORT_MANY_CPUS;
	if (!pg->many)
		return 0;
	pg->worst = calloc(pg->nprobes + 1, sizeof(*pg->worst));
	pg->nworst = calloc(pg->nprobes + 1, sizeof(*pg->nworst));
	if (!pg->worst || !pg->nworst)
		return -ENOMEM;
	for (size_t p = 0; p < pg->nprobes; p++) {
		size_t k =
		    report_worst_cpus(r, pg->probes[p], "all", pg->worst[p], REPORT_WORST_CPUS);
		pg->nworst[p] = k < REPORT_WORST_CPUS ? k : REPORT_WORST_CPUS;
	}
	return 0;
}

bool html_drawn(const struct html_page *pg, const char *probe, int cpu)
{
	if (!pg->many || cpu == REPORT_CPU_ALL)
		return true;
	for (size_t p = 0; p < pg->nprobes; p++) {
		if (strcmp(pg->probes[p], probe))
			continue;
		for (size_t k = 0; k < pg->nworst[p]; k++)
			if (pg->worst[p][k]->cpu == cpu)
				return true;
		return false;
	}
	return false;
}

/* A phase's hue, the same in the bands over time and in the per-phase plot;
 * away from the first CPUs' line colours. */
int html_phase_hue(const struct html_page *pg, const char *name)
{
	size_t j = 0;

	while (j < pg->nphases && strcmp(pg->phases[j], name ? name : ""))
		j++;
	return (svg_hue((unsigned)j) + 95) % 360;
}

/* ------------------------------------------------------------- text -- */

void html_esc(struct html_page *pg, const char *s)
{
	svg_escape(pg->f, s);
}

void html_lat(struct html_page *pg, uint64_t ns)
{
	char buf[32];

	svg_latency(buf, sizeof(buf), ns);
	fputs(buf, pg->f);
}

/* A latency cell in µs as in the terminal summary: "–" without samples,
 * "?" where the source did not record the statistic. */
static void cell_us(struct html_page *pg, const char *key, bool has, bool unknown, uint64_t ns)
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
void html_json(struct html_page *pg, json_t *v, int depth)
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
		html_esc(pg, json_string_value(v));
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
					html_json(pg, x, depth + 1);
			}
			return;
		}
		fputs("<ol start=\"0\">", f);
		json_array_foreach (v, i, x) {
			fputs("<li>", f);
			html_json(pg, x, depth + 1);
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
			html_esc(pg, key);
			fputs("</th><td>", f);
			html_json(pg, x, depth + 1);
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
				return html_jstr(p, "name", NULL);
		}
	return NULL;
}

static void put_banner(struct html_page *pg)
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
	case REPORT_DISTURBED:
		fputs("<p class=\"note\" id=\"status-banner\" data-status=\"disturbed\">"
		      "Disturbed: packets from outside rtsoak woke its probe threads often enough "
		      "to bend the results (see the warnings).</p>\n",
		      pg->f);
		break;
	case REPORT_COMPLETE:
		break;
	}
}

static void put_headline(struct html_page *pg)
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
	html_esc(pg, w->probe);
	fprintf(f, "\" data-cpu=\"%d\">Worst latency ", w->cpu);
	html_lat(pg, w->max);
	fputs(": ", f);
	html_esc(pg, w->probe);
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
			html_esc(pg, ph);
			fputc(')', f);
		}
	}
	fputs("</h1>\n", f);
}

static void put_meta(struct html_page *pg)
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
		html_esc(pg, r->start);
	}
	fputs(" · ", f);
	html_esc(pg, r->tool_name ? r->tool_name : "rtsoak");
	fputc(' ', f);
	html_esc(pg, r->tool_version ? r->tool_version : "?");
	if ((s = html_jstr(sys, "kernel", "release"))) {
		fputs(" · Linux ", f);
		html_esc(pg, s);
		if ((s = html_jstr(sys, "kernel", "machine"))) {
			fputc(' ', f);
			html_esc(pg, s);
		}
	}
	if (json_integer_value(json_object_get(sys, "realtime")) == 1)
		fputs(" · PREEMPT_RT", f);
	if ((s = html_jstr(sys, "preempt", "model"))) {
		fputs(" · preempt ", f);
		html_esc(pg, s);
		if ((s = html_jstr(sys, "preempt", "active"))) {
			fputs(" (active: ", f);
			html_esc(pg, s);
			fputc(')', f);
		}
	}
	fprintf(f, " · %s", r->realtime ? "SCHED_FIFO" : "not real-time (SCHED_OTHER)");
	if (json_is_integer(json_object_get(cfg, "priority")) && r->realtime)
		fprintf(f, " priority %" JSON_INTEGER_FORMAT,
			json_integer_value(json_object_get(cfg, "priority")));
	if ((s = html_jstr(cfg, "cpus", NULL))) {
		fputs(" · CPUs ", f);
		html_esc(pg, s);
	}
	if ((s = html_jstr(sys, "cpu_model", NULL))) {
		fputs(" · ", f);
		html_esc(pg, s);
	}
	if ((s = html_jstr(sys, "virtualization", "hypervisor"))) {
		fputs(" · virtual machine (", f);
		html_esc(pg, s);
		fputc(')', f);
	}
	fputs("</p>\n", f);
	if (r->argc) {
		fputs("<p class=\"meta\"><code>", f);
		for (int i = 0; i < r->argc; i++) {
			if (i)
				fputc(' ', f);
			html_esc(pg, r->argv[i]);
		}
		fputs("</code></p>\n", f);
	}
}

/* ---------------------------------------------------------- summary -- */

static void summary_row(struct html_page *pg, const struct report_result *res)
{
	FILE *f = pg->f;
	bool has = res->count > 0, pct = res->unknown & REPORT_UNKNOWN_PCT;
	char c[16];

	html_cpu_key(c, sizeof(c), res->cpu);
	fputs("<tr data-probe=\"", f);
	html_esc(pg, res->probe);
	fprintf(f, "\" data-cpu=\"%s\" data-phase=\"", c);
	html_esc(pg, res->phase);
	fputs("\"><td class=\"l\">", f);
	html_esc(pg, res->probe);
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

static void summary_phase(struct html_page *pg, const char *phase, bool heading, bool agg_only)
{
	const struct report *r = pg->r;

	fputs("<tbody>", pg->f);
	if (heading) {
		fputs("<tr><th class=\"l\" colspan=\"10\">", pg->f);
		if (strcmp(phase, "all")) {
			fputs("phase ", pg->f);
			html_esc(pg, phase);
		} else {
			fputs("whole run (all phases)", pg->f);
		}
		fputs("</th></tr>\n", pg->f);
	}
	for (size_t i = agg_only ? r->nresults : 0; i < r->nresults + r->naggregates; i++)
		if (!strcmp(html_result_at(r, i)->phase, phase))
			summary_row(pg, html_result_at(r, i));
	fputs("</tbody>\n", pg->f);
}

static void summary_table(struct html_page *pg, const char *id, bool agg_only)
{
	fprintf(pg->f,
		"<table id=\"%s\">\n<thead><tr><th class=\"l\">probe</th><th class=\"l\">CPU</th>"
		"<th>count</th><th>min (µs)</th><th>p50 (µs)</th><th>p99 (µs)</th><th>p99.9 (µs)"
		"</th><th>p99.99 (µs)</th><th>max (µs)</th><th>missed</th></tr></thead>\n",
		id);
	for (size_t j = 0; j < pg->nphases; j++)
		summary_phase(pg, pg->phases[j], true, agg_only);
	summary_phase(pg, "all", pg->nphases > 0, agg_only);
	fputs("</table>\n", pg->f);
}

static void put_summary(struct html_page *pg)
{
	FILE *f = pg->f;

	fputs("<h2 id=\"summary\">Summary</h2>\n", f);
	/* Many CPUs: hundreds of rows between the overview and the plots; the
	 * all-CPU rows stay in view, every CPU's are a click away. */
	if (pg->many) {
		summary_table(pg, "summary-all", true);
		fprintf(f, "<details id=\"summary-cpus\"><summary>Every CPU: %zu rows</summary>\n",
			pg->r->nresults + pg->r->naggregates);
	}
	summary_table(pg, "summary-table", false);
	if (pg->many)
		fputs("</details>\n", f);
	fputs("<p class=\"cap\">Latencies in µs; p99.9: 99.9 % of the samples were at "
	      "or below it (nearest rank, from the histogram, to within 0.4 %; min and max are "
	      "exact). “all” rows are all CPUs together. ",
	      f);
	fputs("“–”: no samples; “?”: the source did not record this statistic. missed: "
	      "deadlines that passed while the probe was late.</p>\n",
	      f);
}

/* ---------------------------------------------------- distributions -- */

/* The series of one probe in one phase: each CPU, then all CPUs. */
static size_t probe_series(struct html_page *pg, const char *probe, const char *phase,
			   struct svg_series *s, char (*keys)[16], char (*labels)[24])
{
	const struct report *r = pg->r;
	const struct report_result *agg;
	size_t n = 0;

	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *res = &r->results[i];
		if (strcmp(res->probe, probe) || strcmp(res->phase, phase) ||
		    !html_drawn(pg, probe, res->cpu))
			continue;
		html_cpu_key(keys[n], 16, res->cpu);
		html_cpu_name(labels[n], 24, res->cpu);
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

void html_plot_attrs(char *buf, size_t len, const char *plot, const char *probe)
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
static void figure_begin(struct html_page *pg, enum plot_kind kind, const char *plot,
			 const char *probe, const char *label, const struct svg_series *s, size_t n)
{
	char attrs[512];

	html_plot_attrs(attrs, sizeof(attrs), plot, probe);
	fputs("<figure>", pg->f);
	if (kind == PLOT_HISTOGRAM)
		svg_histogram(pg->f, attrs, label, s, n);
	else
		svg_exceedance(pg->f, attrs, label, s, n, kind == PLOT_EXCEEDANCE_MARKS);
	svg_legend(pg->f, s, n);
	fputs("<figcaption>", pg->f);
}

static void no_plot(struct html_page *pg, const char *probe, const struct svg_series *s, size_t n)
{
	bool unknown = false, samples = false;

	for (size_t k = 0; k < n; k++) {
		samples = samples || s[k].res->count;
		unknown = unknown || (s[k].res->count && (s[k].res->unknown & REPORT_UNKNOWN_PCT));
	}
	fputs("<p class=\"muted\">", pg->f);
	html_esc(pg, probe);
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

static void put_distribution(struct html_page *pg, const struct dist_plot *d, struct svg_series *s,
			     char (*keys)[16], char (*labels)[24])
{
	FILE *f = pg->f;

	for (size_t p = 0; p < pg->nprobes; p++) {
		size_t n = probe_series(pg, pg->probes[p], "all", s, keys, labels);
		char label[160];
		snprintf(label, sizeof(label), "%s: %s", pg->probes[p], d->label);
		fputs("<h3>", f);
		html_esc(pg, pg->probes[p]);
		fputs("</h3>\n", f);
		if (!any_drawable(s, n)) {
			no_plot(pg, pg->probes[p], s, n);
			continue;
		}
		figure_begin(pg, d->kind, d->plot, pg->probes[p], label, s, n);
		html_esc(pg, pg->probes[p]);
		fputs(d->caption, f);
	}
}

/* Pages of many CPUs draw the worst only: say so where the lines are. */
static void many_note(struct html_page *pg)
{
	if (pg->many)
		fprintf(pg->f,
			" <strong class=\"many\">%zu CPUs: the %d worst of each probe are drawn "
			"(by max, then p99.9); every CPU is in the <a href=\"#overview\">per-CPU "
			"overview</a>.</strong>",
			pg->ncpus, REPORT_WORST_CPUS);
}

static int put_distributions(struct html_page *pg)
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
	      "(a single late sample stays visible).",
	      f);
	many_note(pg);
	fputs("</p>\n", f);
	put_distribution(pg, &histogram, s, keys, labels);
	fputs("<h2 id=\"exceedance\">How often later than x</h2>\n<p class=\"cap\">The "
	      "fraction of samples at or above each latency (1 − F(x), log scale), per CPU "
	      "and for all CPUs: read p99 where the line crosses 1 %, p99.99 at 0.01 %. Steps "
	      "are exact at the bucket bounds; dots are the stored percentiles (those the "
	      "sample count resolves) and the max.",
	      f);
	many_note(pg);
	fputs("</p>\n", f);
	put_distribution(pg, &exceedance, s, keys, labels);
	free(s);
	free(keys);
	free(labels);
	return 0;
}

/* ------------------------------------------------------ worst moments -- */

static void put_worst(struct html_page *pg)
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
			html_lat(pg,
				 (uint64_t)json_integer_value(json_object_get(t, "latency_ns")));
			fputs("</td><td class=\"l\">", f);
			html_esc(pg, html_jstr(t, "probe", NULL));
			fprintf(f,
				"</td><td class=\"l\">%" JSON_INTEGER_FORMAT "</td><td>%s</td>"
				"<td class=\"l\">",
				json_integer_value(json_object_get(t, "cpu")), at);
			html_esc(pg, html_jstr(t, "phase", NULL));
			fputs("</td><td>", f);
			html_json(pg, json_object_get(in, "count"), 1);
			fputs("</td><td>", f);
			html_json(pg, json_object_get(in, "missed"), 1);
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
			html_lat(pg, (uint64_t)json_integer_value(json_object_get(t, "max_ns")));
			fputs("</td><td class=\"l\">", f);
			html_esc(pg, html_jstr(t, "probe", NULL));
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

/* The lead judgement of a match for the ab table: /2 stores one per
 * statistic ("judged"), the first the verdict was on; /1 kept the one
 * shift at the match itself. */
static const char *ab_str(json_t *o, const char *key, const char *def)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v ? v : def;
}

static json_t *ab_lead(json_t *m)
{
	json_t *j = json_array_get(json_object_get(m, "judged"), 0);

	return j ? j : m;
}

/* rtsoak ab: the verdicts of arm B against arm A as compare.c stored them
 * (rtsoak-compare/2 in the report, /1 in older ones), at the top of the
 * page: the answer before the detail. */
static void put_ab(struct html_page *pg)
{
	json_t *cmp = json_object_get(pg->r->ab, "comparison"), *m, *t;
	size_t i;
	FILE *f = pg->f;

	if (!json_array_size(json_object_get(cmp, "matches")))
		return;
	fputs("<h2 id=\"ab\">A/B verdicts</h2>\n<p class=\"cap\">Arm B (with the tweaks) against "
	      "arm A, by the rounds (",
	      f);
	html_json(pg, json_object_get(pg->r->ab, "order"), 1);
	fputs("); verdict on ", f);
	html_esc(pg, ab_str(pg->r->ab, "statistic", "p99"));
	fputs(". B sets:", f);
	json_array_foreach (pg->r->tweaks, i, t) {
		if (i == 20) {
			fprintf(f, " and %zu more", json_array_size(pg->r->tweaks) - i);
			break;
		}
		fputs(i ? ", " : " ", f);
		html_esc(pg, html_jstr(t, "path", NULL));
		fputs(" = ", f);
		html_json(pg, json_object_get(t, "value"), 1);
	}
	fputs(".</p>\n<table id=\"ab-table\"><thead><tr><th class=\"l\">probe</th>"
	      "<th class=\"l\">CPU</th><th class=\"l\">verdict (B vs A)</th><th class=\"l\">why"
	      "</th><th>shift of B (95 % CI)</th><th>p</th><th class=\"l\">method</th></tr>"
	      "</thead><tbody>\n",
	      f);
	json_array_foreach (json_object_get(cmp, "matches"), i, m) {
		json_t *lead = ab_lead(m), *d;
		json_t *sh = json_object_get(lead, "shift_ns"),
		       *lo = json_object_get(lead, "ci_low_ns");
		json_t *hi = json_object_get(lead, "ci_high_ns"), *p = json_object_get(lead, "p");
		const char *v = html_jstr(m, "verdict", NULL);
		size_t k;
		fputs("<tr><td class=\"l\">", f);
		html_esc(pg, html_jstr(m, "probe", NULL));
		fputs("</td><td class=\"l\">", f);
		html_json(pg, json_object_get(m, "cpu"), 1);
		fprintf(f, "</td><td class=\"l%s\">",
			!v		       ? ""
			: !strcmp(v, "worse")  ? " worse"
			: !strcmp(v, "better") ? " better"
					       : "");
		html_esc(pg, v);
		fputs("</td><td class=\"l\">", f);
		html_esc(pg, ab_str(m, "reason", ""));
		json_array_foreach (json_object_get(m, "drift"), k, d) {
			fputs("<br><span class=\"warning\">drift: ", f);
			html_esc(pg, ab_str(d, "arm", "?"));
			fputs(" rounds ", f);
			html_esc(pg, ab_str(d, "statistic", "?"));
			fprintf(f, " %.1f → %.1f µs, rho %.2f, p %.2g</span>",
				json_number_value(json_object_get(d, "first_ns")) / 1000,
				json_number_value(json_object_get(d, "last_ns")) / 1000,
				json_number_value(json_object_get(d, "rho")),
				json_number_value(json_object_get(d, "p")));
		}
		fputs("</td><td class=\"nw\">", f);
		if (lead != m) {
			html_esc(pg, ab_str(lead, "statistic", "?"));
			fputc(' ', f);
		}
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
		html_esc(pg, html_jstr(m, "method", NULL));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* --------------------------------------------------------- per phase -- */

static int put_phases(struct html_page *pg)
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
		html_esc(pg, pg->phases[j]);
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
			const struct report_result *res = html_result_at(r, i);
			if (strcmp(res->probe, probe) || !strcmp(res->phase, "all") ||
			    !res->count || !res->max)
				continue;
			lo = fmin(lo, (double)res->max);
			hi = fmax(hi, (double)res->max);
		}
		fputs("<h3>", f);
		html_esc(pg, probe);
		fprintf(f, "</h3>\n<table class=\"phase-table\" data-probe=\"");
		html_esc(pg, probe);
		fputs("\"><thead><tr><th class=\"l\">CPU</th>", f);
		for (size_t j = 0; j < pg->nphases; j++) {
			fputs("<th>", f);
			html_esc(pg, pg->phases[j]);
			fputs("</th>", f);
		}
		fputs("</tr></thead><tbody>\n", f);
		for (size_t i = 0; next_cpu_row(r, probe, &i, &cpu);) {
			char c[16];
			html_cpu_name(c, sizeof(c), cpu);
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
				html_esc(pg, pg->phases[j]);
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
			s[n++] =
			    (struct svg_series){ agg,		pg->phases[j],
						 pg->phases[j], html_phase_hue(pg, pg->phases[j]),
						 false,		false };
		}
		if (!any_drawable(s, n))
			continue;
		snprintf(label, sizeof(label), "%s: exceedance per phase, all CPUs", probe);
		figure_begin(pg, PLOT_EXCEEDANCE, "phases", probe, label, s, n);
		html_esc(pg, probe);
		fputs(
		    ", all CPUs: fraction of samples at or above each latency, one line per "
		    "phase: the line further right is the phase that hurts.</figcaption></figure>\n",
		    f);
	}
	free(s);
	return 0;
}

/* ------------------------------------------------------ network split -- */

static void split_cells(struct html_page *pg, const struct report_result *res)
{
	bool has = res && res->count, pct = res && (res->unknown & REPORT_UNKNOWN_PCT);

	cell_us(pg, "p50_ns", has, pct, has ? res->pct[0] : 0);
	cell_us(pg, "p99_ns", has, pct, has ? res->pct[2] : 0);
	cell_us(pg, "p99_9_ns", has, pct, has ? res->pct[3] : 0);
	cell_us(pg, "max_ns", has, false, has ? res->max : 0);
}

static void put_netsplit(struct html_page *pg)
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
		if (!html_listed(pg->probes, pg->nprobes, stack) ||
		    !html_listed(pg->probes, pg->nprobes, wakeup))
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
		html_esc(pg, net);
		fputs("\"><thead><tr><th class=\"l\" rowspan=\"2\">CPU</th>", f);
		for (unsigned k = 0; k < 3; k++) {
			fputs("<th colspan=\"4\">", f);
			html_esc(pg, names[k]);
			fputs("</th>", f);
		}
		fputs("</tr><tr>", f);
		for (unsigned k = 0; k < 3; k++)
			fputs("<th>p50</th><th>p99</th><th>p99.9</th><th>max (µs)</th>", f);
		fputs("</tr></thead><tbody>\n", f);
		for (size_t i = 0; next_cpu_row(r, net, &i, &cpu);) {
			char c[16];
			html_cpu_key(c, sizeof(c), cpu);
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

/* -------------------------------------------------------------- page -- */

static int put_page(struct html_page *pg)
{
	const struct report *r = pg->r;
	FILE *f = pg->f;
	char title[200];
	int rc;

	snprintf(title, sizeof(title), "%s report %s (%s)", r->tool_name ? r->tool_name : "rtsoak",
		 r->start, report_status_name(r->status));
	/* Each section's rules only on the pages that have it: older pages stay byte for byte. */
	char *css = NULL;
	if (r->attribution || r->checks || pg->many || r->on_spike) {
		size_t n = strlen(html_why_css) + strlen(html_checks_css) +
			   strlen(html_heatmap_css) + strlen(html_onspike_css) + 1;
		if (!(css = malloc(n)))
			return -ENOMEM;
		snprintf(css, n, "%s%s%s%s", r->attribution ? html_why_css : "",
			 r->checks ? html_checks_css : "", pg->many ? html_heatmap_css : "",
			 r->on_spike ? html_onspike_css : "");
	}
	svg_page_begin_css(f, title, css);
	free(css);
	put_banner(pg);
	put_headline(pg);
	put_ab(pg); /* an ab report: the verdicts above everything else */
	put_meta(pg);
	fputs("<nav>", f);
	if (pg->many)
		fputs("<a href=\"#overview\">Per CPU</a>", f);
	fputs("<a href=\"#summary\">Summary</a>", f);
	if (r->checks)
		fputs("<a href=\"#checks\">Checks</a>", f);
	fputs("<a href=\"#histograms\">Histograms</a><a href=\"#exceedance\">Exceedance</a>", f);
	if (r->nseries)
		fputs("<a href=\"#timeseries\">Over time</a>", f);
	if (r->attribution)
		fputs("<a href=\"#why\">Why late</a>", f);
	if (r->on_spike)
		fputs("<a href=\"#onspike\">On spike</a>", f);
	if (pg->nphases)
		fputs("<a href=\"#phases\">Per phase</a>", f);
	if (json_array_size(json_object_get(json_object_get(r->ab, "comparison"), "matches")))
		fputs("<a href=\"#ab\">A/B verdicts</a>", f);
	fputs("<a href=\"#details\">Details</a></nav>\n", f);
	/* Many CPUs: where it was bad, at a glance, before 128 rows of numbers. */
	if ((rc = html_heatmap_put(pg)))
		return rc;
	put_summary(pg);
	html_checks_put(pg); /* what is wrong with the machine, before the plots it may explain */
	if ((rc = put_distributions(pg)) || (rc = html_series_put(pg)))
		return rc;
	html_why_put(pg);
	html_onspike_put(pg); /* what the spikes set off, after why they came */
	put_worst(pg);
	if ((rc = put_phases(pg)))
		return rc;
	put_netsplit(pg);
	html_details_put(pg);
	svg_page_end(f);
	return pg->rc;
}

static int fill(FILE *f, void *arg)
{
	struct html_page pg = { .f = f, .r = arg };
	int rc = page_index(&pg);

	if (!rc)
		rc = put_page(&pg);
	free(pg.probes);
	free(pg.phases);
	free(pg.worst);
	free(pg.nworst);
	return rc;
}

int report_html_write(const struct report *r, const char *path)
{
	return output_write_with(path, fill, (void *)r);
}
