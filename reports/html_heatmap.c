// SPDX-License-Identifier: GPL-2.0-or-later
/* html_heatmap: the per-CPU overview of the HTML report for machines with
 * many CPUs (issue 20): above REPORT_MANY_CPUS (16) measured CPUs, one line
 * per CPU in a plot is a tangle nobody reads, so the page opens with, per
 * probe,
 *
 *   - a CPU x statistic heat map: one row per CPU, its max, p99.9 and
 *     missed count over the whole run as numbers (µs, as in the summary
 *     table) on a colour that grows with the value;
 *   - a CPU x time heat map: one row per CPU, one cell per column of time,
 *     coloured by the largest interval maximum of the intervals it covers,
 *
 * and the plots below draw the REPORT_WORST_CPUS worst CPUs only
 * (html_many_cpus).
 *
 * Colours: HTML_HEATMAP_LEVELS steps of the page's heat colour (svg.c,
 * --heat), on the logarithm of the value from the smallest to the largest
 * non-zero value of the column (CPU x statistic) or of the map (CPU x time),
 * since latencies span decades and a linear scale paints all but the worst
 * cell white; a legend under each map gives each step's lower bound.  Zero
 * and "no samples" have no colour.  Colour is never the only carrier: each
 * cell states its exact value (data-ns, data-n) and a title, and the
 * statistics are printed in the cells.  Tables, not SVG: they print, read
 * in dark mode and need no script, as the per-phase table does.
 *
 * Time columns: at most HTML_HEATMAP_COLUMNS.  A column is g whole intervals
 * wide (g the least that fits the longest series in that many columns), so
 * an interval never straddles two, and a cell holds the largest maximum of
 * the intervals that start in it: the worst interval is never averaged away.
 * The map states its column width (data-width-ns) so that
 * tests/html_check.py can recompute every cell from the report. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "svg.h"
#include "html_internal.h"

/* The two maps side by side with rows of one fixed height, so that a CPU's
 * statistics and its strip over time line up; they wrap on a narrow window. */
const char html_heatmap_css[] =
    ".hm-pair{display:flex;flex-wrap:wrap;gap:0 2em;align-items:flex-start}"
    ".hm-pair>div{width:min-content}\n"
    "table.hm{font-size:.75em;margin:0;-webkit-print-color-adjust:exact;"
    "print-color-adjust:exact}\n"
    "table.hm tr{height:15px}table.hm th,table.hm td{padding:0 .5em;line-height:14px;"
    "white-space:nowrap}table.hm tbody th{font-weight:400}\n"
    "table.hm-time td{padding:0;width:5px;min-width:5px;border:0}\n"
    "table.hm-time thead th{padding:0 .3em;text-align:left;font-weight:400}\n"
    ".hm .q0{background:hsla(var(--heat),.07)}.hm .q1{background:hsla(var(--heat),.18)}"
    ".hm .q2{background:hsla(var(--heat),.3)}.hm .q3{background:hsla(var(--heat),.42)}"
    ".hm .q4{background:hsla(var(--heat),.54)}.hm .q5{background:hsla(var(--heat),.66)}"
    ".hm .q6{background:hsla(var(--heat),.8)}.hm .q7{background:hsla(var(--heat),.95)}\n"
    ".hm-legend{font-size:.75em;margin:.3em 0;-webkit-print-color-adjust:exact;"
    "print-color-adjust:exact}.hm-legend span{display:inline-block;padding:0 .4em;"
    "margin-right:2px}\n";

/* A log colour scale over the non-zero values of a column or a map. */
struct hm_scale {
	double lo, hi; /* the smallest and the largest non-zero value; lo 0: none */
};

static void scale_add(struct hm_scale *s, double v)
{
	if (!(v > 0))
		return;
	if (!s->lo || v < s->lo)
		s->lo = v;
	if (v > s->hi)
		s->hi = v;
}

static unsigned level(const struct hm_scale *s, double v)
{
	double t;

	if (!(s->hi > s->lo))
		return HTML_HEATMAP_LEVELS - 1;
	t = floor(log(v / s->lo) / log(s->hi / s->lo) * HTML_HEATMAP_LEVELS);
	if (!(t > 0))
		return 0;
	return t >= HTML_HEATMAP_LEVELS ? HTML_HEATMAP_LEVELS - 1 : (unsigned)t;
}

/* The lower bound of step k. */
static double level_lo(const struct hm_scale *s, unsigned k)
{
	if (!(s->hi > s->lo))
		return s->lo;
	return s->lo * pow(s->hi / s->lo, (double)k / HTML_HEATMAP_LEVELS);
}

/* "max: ≥ 1.2 ms ≥ 2.3 ms ...": the steps of a scale, each on its colour. */
static void legend(struct html_page *pg, const char *what, const struct hm_scale *s, bool latency)
{
	FILE *f = pg->f;
	unsigned steps = s->hi > s->lo ? HTML_HEATMAP_LEVELS : 1;

	fprintf(f, "<div class=\"hm-legend hm\" data-legend=\"%s\" data-steps=\"%u\">%s:", what,
		steps, what);
	if (!s->lo) {
		fputs(" nothing above zero</div>\n", f);
		return;
	}
	for (unsigned k = 0; k < steps; k++) {
		unsigned q = steps == 1 ? HTML_HEATMAP_LEVELS - 1 : k;
		double v = level_lo(s, k);
		fprintf(f, " <span class=\"q%u\">≥ ", q);
		if (latency)
			html_lat(pg, (uint64_t)llround(v));
		else
			fprintf(f, "%.3g", v);
		fputs("</span>", f);
	}
	fputs(latency ? " (log scale)</div>\n" : " (log scale; 0 uncoloured)</div>\n", f);
}

/* ------------------------------------------------ CPU x statistic -- */

/* The per-CPU results of the probe over the whole run, in report order;
 * NULL on ENOMEM. */
static const struct report_result **cpu_results(const struct report *r, const char *probe,
						size_t *n)
{
	const struct report_result **v = calloc(r->nresults + 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < r->nresults; i++)
		if (r->results[i].cpu >= 0 && !strcmp(r->results[i].probe, probe) &&
		    !strcmp(r->results[i].phase, "all"))
			v[(*n)++] = &r->results[i];
	return v;
}

static bool has_pct(const struct report_result *res)
{
	return res->count && !(res->unknown & REPORT_UNKNOWN_PCT);
}

static void stat_cell(struct html_page *pg, const struct report_result *res, const char *key,
		      const struct hm_scale *s, bool known, uint64_t ns)
{
	FILE *f = pg->f;

	if (!res->count) {
		fprintf(f, "<td data-stat=\"%s\" title=\"CPU %d: no samples\">–</td>", key,
			res->cpu);
		return;
	}
	if (!known) {
		fprintf(f, "<td data-stat=\"%s\" title=\"CPU %d: not recorded\">?</td>", key,
			res->cpu);
		return;
	}
	fputs("<td", f);
	if (ns)
		fprintf(f, " class=\"q%u\"", level(s, (double)ns));
	fprintf(f, " data-stat=\"%s\" data-ns=\"%" PRIu64 "\" title=\"CPU %d %s: %" PRIu64 " ns\">",
		key, ns, res->cpu, strcmp(key, "max_ns") ? "p99.9" : "max", ns);
	fprintf(f, "%.1f</td>", (double)ns / 1000.0);
}

static void put_stat_map(struct html_page *pg, const char *probe,
			 const struct report_result *const *v, size_t n)
{
	struct hm_scale smax = { 0, 0 }, sp = { 0, 0 }, sm = { 0, 0 };
	FILE *f = pg->f;

	for (size_t i = 0; i < n; i++) {
		if (!v[i]->count)
			continue;
		scale_add(&smax, (double)v[i]->max);
		if (has_pct(v[i]))
			scale_add(&sp, (double)v[i]->pct[3]);
		if (!(v[i]->unknown & REPORT_UNKNOWN_MISSED))
			scale_add(&sm, (double)v[i]->missed);
	}
	fputs("<table class=\"hm hm-stat\" data-probe=\"", f);
	html_esc(pg, probe);
	fprintf(f,
		"\" data-cpus=\"%zu\"><thead><tr><th class=\"l\">CPU</th><th>max (µs)</th>"
		"<th>p99.9 (µs)</th><th>missed</th></tr></thead><tbody>\n",
		n);
	for (size_t i = 0; i < n; i++) {
		const struct report_result *res = v[i];
		fprintf(f, "<tr data-cpu=\"%d\"><th class=\"l\">%d</th>", res->cpu, res->cpu);
		stat_cell(pg, res, "max_ns", &smax, true, res->max);
		stat_cell(pg, res, "p99_9_ns", &sp, has_pct(res), res->pct[3]);
		if (!res->count || (res->unknown & REPORT_UNKNOWN_MISSED)) {
			fprintf(f, "<td data-stat=\"missed\" title=\"CPU %d: %s\">%s</td>",
				res->cpu, res->count ? "not recorded" : "no samples",
				res->count ? "?" : "–");
		} else {
			fputs("<td", f);
			if (res->missed)
				fprintf(f, " class=\"q%u\"", level(&sm, (double)res->missed));
			fprintf(f,
				" data-stat=\"missed\" data-n=\"%" PRIu64 "\" title=\"CPU %d "
				"missed: %" PRIu64 "\">%" PRIu64 "</td>",
				res->missed, res->cpu, res->missed, res->missed);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	legend(pg, "max", &smax, true);
	legend(pg, "p99.9", &sp, true);
	legend(pg, "missed", &sm, false);
}

/* ----------------------------------------------------- CPU x time -- */

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

/* The probe's series with intervals, one per row of the CPU x statistic
 * map (res[m], so that a CPU's two rows line up; NULL where that CPU has no
 * series), and the columns: *width ns each (a whole number of the shortest
 * interval), *ncols of them (at most HTML_HEATMAP_COLUMNS) spanning the
 * longest series.  0 columns: nothing to map. */
static size_t time_columns(const struct report *r, const char *probe,
			   const struct report_result *const *res, size_t m,
			   const struct report_series **ss, uint64_t *width)
{
	uint64_t span = 0, ivl = 0, units, g;

	for (size_t k = 0; k < m; k++) {
		ss[k] = NULL;
		for (size_t i = 0; !ss[k] && i < r->nseries; i++) {
			const struct report_series *rs = &r->series[i];
			if (rs->cpu != res[k]->cpu || strcmp(rs->probe, probe) || !rs->n ||
			    !rs->interval_ns)
				continue;
			ss[k] = rs;
			span = mul_sat(rs->n, rs->interval_ns) > span
				   ? mul_sat(rs->n, rs->interval_ns)
				   : span;
			ivl = !ivl || rs->interval_ns < ivl ? rs->interval_ns : ivl;
		}
	}
	if (!ivl)
		return 0;
	units = span / ivl + (span % ivl != 0);
	g = units / HTML_HEATMAP_COLUMNS + (units % HTML_HEATMAP_COLUMNS != 0);
	*width = mul_sat(g ? g : 1, ivl);
	return (size_t)(span / *width + (span % *width != 0));
}

/* The column of interval k of a series: where it starts. */
static size_t column_of(const struct report_series *rs, size_t k, uint64_t width, size_t ncols)
{
	uint64_t c = mul_sat(k, rs->interval_ns) / width;

	return c >= ncols ? ncols - 1 : (size_t)c;
}

static int put_time_map(struct html_page *pg, const char *probe,
			const struct report_result *const *res, size_t m)
{
	const struct report *r = pg->r;
	const struct report_series **ss = calloc(m + 1, sizeof(*ss));
	uint64_t width = 1, *cell = NULL;
	size_t ncols = ss ? time_columns(r, probe, res, m, ss, &width) : 0;
	struct hm_scale s = { 0, 0 };
	bool *has = NULL;
	size_t group;
	FILE *f = pg->f;

	if (!ss)
		return -ENOMEM;
	if (!ncols) {
		free(ss);
		return 0;
	}
	/* Every cell's maximum first, for the scale: m x ncols, bounded by the
	 * series the report holds and HTML_HEATMAP_COLUMNS. */
	cell = calloc(m * ncols, sizeof(*cell));
	has = calloc(m * ncols, sizeof(*has));
	if (!cell || !has) {
		free(cell);
		free(has);
		free(ss);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m; i++) {
		struct series_cursor cur;
		struct series_interval ivs, *iv = &ivs;
		if (!ss[i])
			continue; /* a row without a series: empty cells */
		series_cursor_init(&cur, ss[i]->st, 0);
		for (size_t k = 0; series_cursor_next(&cur, iv); k++) {
			size_t c = i * ncols + column_of(ss[i], k, width, ncols);
			if (!iv->count)
				continue; /* an empty interval's max means nothing */
			if (!has[c] || iv->max_ns > cell[c])
				cell[c] = iv->max_ns;
			has[c] = true;
		}
	}
	for (size_t i = 0; i < m * ncols; i++)
		if (has[i])
			scale_add(&s, (double)cell[i]);
	fputs("<table class=\"hm hm-time\" data-probe=\"", f);
	html_esc(pg, probe);
	fprintf(f,
		"\" data-cpus=\"%zu\" data-columns=\"%zu\" data-width-ns=\"%" PRIu64
		"\"><thead><tr><th>CPU</th>",
		m, ncols, width);
	/* A time label every few columns: five across fit the narrowest map. */
	group = ncols < 5 ? 1 : (ncols + 4) / 5;
	/* In one unit across, as on the time plots' axis. */
	double per_unit;
	const char *unit = svg_time_unit(mul_sat(ncols, width), &per_unit);
	for (size_t c = 0; c < ncols; c += group)
		fprintf(f, "<th colspan=\"%zu\">+%.4g %s</th>",
			c + group > ncols ? ncols - c : group, (double)mul_sat(c, width) / per_unit,
			unit);
	fputs("</tr></thead><tbody>\n", f);
	for (size_t i = 0; i < m; i++) {
		int cpu = res[i]->cpu;
		if (ss[i])
			fprintf(f, "<tr data-cpu=\"%d\"><th>%d</th>", cpu, cpu);
		else
			fprintf(f, "<tr data-cpu=\"%d\"><th title=\"no time series\">%d</th>", cpu,
				cpu);
		for (size_t c = 0; c < ncols; c++) {
			uint64_t v = cell[i * ncols + c];
			char at[32], lat[32];
			if (!has[i * ncols + c]) {
				fputs("<td></td>", f);
				continue;
			}
			svg_runtime(at, sizeof(at), mul_sat(c, width));
			svg_latency(lat, sizeof(lat), v);
			fputs("<td", f);
			if (v)
				fprintf(f, " class=\"q%u\"", level(&s, (double)v));
			fprintf(f, " data-ns=\"%" PRIu64 "\" title=\"CPU %d %s: %s\"></td>", v, cpu,
				at, lat);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	legend(pg, "max per interval", &s, true);
	free(cell);
	free(has);
	free(ss);
	return 0;
}

/* --------------------------------------------------------- section -- */

/* "Worst CPUs by max: 54 (16.7 ms), 97 (13.3 ms), ...": the CPUs the plots
 * below draw. */
static void put_worst_line(struct html_page *pg, size_t p)
{
	FILE *f = pg->f;

	fputs("<p class=\"cap hm-worst\" data-probe=\"", f);
	html_esc(pg, pg->probes[p]);
	fputs("\" data-cpus=\"", f);
	for (size_t k = 0; k < pg->nworst[p]; k++)
		fprintf(f, "%s%d", k ? " " : "", pg->worst[p][k]->cpu);
	fputs("\">Worst CPUs by max (then p99.9), drawn in the plots below:", f);
	for (size_t k = 0; k < pg->nworst[p]; k++) {
		fprintf(f, "%s CPU %d (", k ? "," : "", pg->worst[p][k]->cpu);
		if (pg->worst[p][k]->count)
			html_lat(pg, pg->worst[p][k]->max);
		else
			fputs("no samples", f);
		fputc(')', f);
	}
	fputs(".</p>\n", f);
}

int html_heatmap_put(struct html_page *pg)
{
	const struct report *r = pg->r;
	FILE *f = pg->f;
	int rc = 0;

	if (!pg->many)
		return 0;
	fprintf(f,
		"<h2 id=\"overview\">Per-CPU overview</h2>\n<p class=\"cap\">%zu CPUs measured, "
		"more than %d: one row per CPU instead of one line each. Per probe, the whole "
		"run's max, p99.9 (µs) and missed count of each CPU, each column coloured on its "
		"own log scale; then each CPU's largest interval maximum over time, each cell "
		"the largest of the intervals it covers (so no spike is averaged away). Hover a "
		"cell for its exact value. The histogram, exceedance and time plots below draw "
		"the %d worst CPUs and all CPUs together.</p>\n",
		pg->ncpus, REPORT_MANY_CPUS, REPORT_WORST_CPUS);
	for (size_t p = 0; p < pg->nprobes && !rc; p++) {
		size_t n;
		const struct report_result **v = cpu_results(r, pg->probes[p], &n);
		if (!v)
			return -ENOMEM;
		if (!n) {
			free(v);
			continue;
		}
		fputs("<h3>", f);
		html_esc(pg, pg->probes[p]);
		fputs("</h3>\n", f);
		put_worst_line(pg, p);
		fputs("<div class=\"hm-pair\"><div>\n", f);
		put_stat_map(pg, pg->probes[p], v, n);
		fputs("</div><div>\n", f);
		rc = put_time_map(pg, pg->probes[p], v, n);
		free(v);
		fputs("</div></div>\n", f);
	}
	return rc;
}
