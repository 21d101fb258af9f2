// SPDX-License-Identifier: GPL-2.0-or-later
/* html_series: the time series figure of the HTML report ("Over time"),
 * one per probe: each CPU's maximum latency per interval as a line over
 * the run, its logged spikes as dots, recurring spikes (the analysis'
 * periodicity) as ticks along the top, each CPU's largest interval maximum
 * marked, and the load phases as shaded bands behind; then the recurring
 * patterns in words and a folded per-CPU table of what was drawn.
 *
 * A series can hold far more intervals, and a CPU far more spikes, than a
 * browser draws well (64 CPUs in one plot): beyond two intervals per pixel
 * column a line becomes a band from the lowest to the highest interval
 * maximum of each column, and beyond one spike per column only the highest
 * of each column is drawn, so no maximum disappears.  The caption says
 * so, and each line states what it was drawn from (data-n, data-columns),
 * which tests/html_check.py checks against the report.  Above
 * REPORT_MANY_CPUS CPUs only the worst CPUs' series are drawn (html_drawn),
 * on axes that span every series; every CPU is in the overview's time map. */
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
	/* One series decoded at a time: 24 bytes an interval, for a moment. */
	struct series_interval *v = series_store_decode(rs->st);
	size_t n = 0, best = SIZE_MAX;
	bool up = true;
	struct tpoint *pt;

	*down = rs->n > 2 * SVG_COLUMNS;
	if (!v || !(pt = calloc(*down ? SVG_COLUMNS + 1 : rs->n + 1, sizeof(*pt)))) {
		free(v);
		return -ENOMEM;
	}
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
	free(v);
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

static void put_phase_bands(struct html_page *pg, const struct tplot *tp)
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
				html_phase_hue(pg, html_jstr(p, "name", NULL)));
			html_esc(pg, html_jstr(p, "name", NULL));
			fputs("\" x=\"", f);
			svg_num(f, x0);
			fprintf(f, "\" y=\"%d\" width=\"", SVG_TOP);
			svg_num(f, x1 - x0);
			fprintf(f, "\" height=\"%d\"><title>phase ", SVG_BOTTOM - SVG_TOP);
			html_esc(pg, html_jstr(p, "name", NULL));
			fprintf(f, ": %s to %s</title></rect>\n", a, b);
		}
	}
}

/* Logged spikes as dots; beyond one per pixel column, the highest of each
 * column.  Returns how many were drawn. */
static size_t put_spikes(struct html_page *pg, const struct tplot *tp,
			 const struct report_series *rs, int hue, const char *key)
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
static void put_periods(struct html_page *pg, const struct tplot *tp, const json_t *per, int hue,
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

static void put_period_text(struct html_page *pg, const struct report_series *rs, const json_t *per)
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
		html_esc(pg, rs->probe);
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
static int put_one_series(struct html_page *pg, const struct tplot *tp,
			  const struct report_series *rs, int hue, struct tstat *st)
{
	struct tpoint *pt = NULL;
	size_t argmax, mi = SIZE_MAX;
	bool down;
	long n = series_points(tp, rs, &pt, &argmax, &down);
	char key[16], mx[32] = "", iv[32];
	FILE *f = pg->f;

	struct series_interval argmax_iv = { 0 };

	if (n < 0)
		return (int)n;
	if (argmax != SIZE_MAX)
		series_store_get(rs->st, argmax, &argmax_iv);
	html_cpu_key(key, sizeof(key), rs->cpu);
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
	fprintf(f, "><title>CPU %d: %zu interval%s of %s", rs->cpu, rs->n, rs->n == 1 ? "" : "s",
		iv);
	if (argmax != SIZE_MAX) {
		svg_latency(mx, sizeof(mx), argmax_iv.max_ns);
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
		    hue, key, argmax_iv.max_ns, (uint64_t)argmax * rs->interval_ns);
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

static void series_table(struct html_page *pg, const struct report_series *const *ss, size_t m,
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
		struct series_cursor c;
		struct series_interval v;
		series_cursor_init(&c, rs->st, 0);
		while (series_cursor_next(&c, &v))
			mx = v.max_ns > mx ? v.max_ns : mx;
		svg_span(iv, sizeof(iv), rs->interval_ns);
		fprintf(f, "<tr><td class=\"l\">%d</td><td>%zu</td><td>%s</td><td>%zu</td><td>",
			rs->cpu, rs->n, iv, st[i].points);
		html_lat(pg, mx);
		fputs("</td><td>", f);
		if (rs->threshold_ns)
			html_lat(pg, rs->threshold_ns);
		else
			fputs("not set", f);
		fprintf(f,
			"</td><td>%" PRIu64 "</td><td>%zu</td><td>%zu</td><td>%" PRIu64
			"</td><td class=\"l\">",
			rs->spikes_total, rs->nspikes, st[i].spikes_drawn, rs->stalls);
		html_esc(pg, per ? json_string_value(json_object_get(per, "verdict")) : "–");
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table></details>\n", f);
}

/* One probe's figure: its series, the range they span, and what was drawn
 * of them. */
struct tfigure {
	const char *probe;
	const struct report_series **ss; /* the probe's series, in report order */
	struct tstat *st;		 /* what was drawn of each */
	size_t m;
	struct tplot tp;
	uint64_t ymin, ymax;	  /* the lowest non-zero and the highest interval maximum */
	uint64_t ivl;		  /* the interval, as the last series has it */
	size_t intervals, spikes; /* over all its series */
	size_t points, drawn;	  /* vertices and spikes drawn */
	bool down, patterns;	  /* a series down-sampled; recurring spikes found */
};

/* The probe's series and their extent: the run time they cover (at least
 * the run's) and their interval maxima. */
static void series_scan(const struct html_page *pg, struct tfigure *fg)
{
	const struct report *r = pg->r;

	for (size_t i = 0; i < r->nseries; i++) {
		const struct report_series *rs = &r->series[i];
		if (strcmp(rs->probe, fg->probe))
			continue;
		/* The time axis spans every CPU's series, drawn or not. */
		if (rs->n * rs->interval_ns > fg->tp.span)
			fg->tp.span = rs->n * rs->interval_ns;
		if (!html_drawn(pg, rs->probe, rs->cpu))
			continue;
		fg->ss[fg->m++] = rs;
		struct series_cursor c;
		struct series_interval v;
		series_cursor_init(&c, rs->st, 0);
		while (series_cursor_next(&c, &v)) {
			if (!v.count)
				continue;
			if (v.max_ns > fg->ymax)
				fg->ymax = v.max_ns;
			if (v.max_ns && v.max_ns < fg->ymin)
				fg->ymin = v.max_ns;
		}
		fg->ivl = rs->interval_ns;
		fg->intervals += rs->n;
		fg->spikes += rs->nspikes;
		fg->down = fg->down || rs->n > 2 * SVG_COLUMNS;
		fg->patterns = fg->patterns ||
			       json_array_size(json_object_get(periodicity_of(r, rs), "patterns"));
	}
}

/* Run time across, log latency up from the lowest maximum to above the
 * highest, over at least a factor of two. */
static void series_axes(struct tfigure *fg)
{
	struct tplot *tp = &fg->tp;

	if (!tp->span)
		tp->span = 1;
	tp->p.x =
	    (struct svg_axis){ false, 0, (double)tp->span, SVG_LEFT, SVG_RIGHT, SVG_TICKS_RUNTIME };
	tp->p.y = (struct svg_axis){ true,
				     svg_floor125((double)fg->ymin),
				     svg_ceil125((double)fg->ymax * 1.05),
				     SVG_BOTTOM,
				     SVG_TOP,
				     SVG_TICKS_LATENCY };
	if (tp->p.y.hi < tp->p.y.lo * 2)
		tp->p.y.hi = svg_ceil125(tp->p.y.lo * 2.01);
}

/* The plot: phase bands behind, then each CPU's series.  Returns 0 or
 * -ENOMEM (the <svg> is closed either way). */
static int series_plot(struct html_page *pg, struct tfigure *fg, const char *iv)
{
	char attrs[512], label[200];
	int rc = 0;

	html_plot_attrs(attrs, sizeof(attrs), "timeseries", fg->probe);
	snprintf(label, sizeof(label), "%s: maximum latency per %s interval over time", fg->probe,
		 iv);
	fputs("<figure>", pg->f);
	svg_begin(&fg->tp.p, pg->f, attrs, label, "time since start",
		  "max per interval (log scale)");
	put_phase_bands(pg, &fg->tp);
	for (size_t i = 0; i < fg->m && !rc; i++) {
		rc = put_one_series(pg, &fg->tp, fg->ss[i], svg_hue((unsigned)i), &fg->st[i]);
		fg->points += fg->st[i].points;
		fg->drawn += fg->st[i].spikes_drawn;
	}
	svg_end(&fg->tp.p);
	return rc;
}

/* The legend: CPUs, then phases. */
static void series_legend(struct html_page *pg, const struct tfigure *fg)
{
	const struct report *r = pg->r;
	FILE *f = pg->f;

	fputs("<div class=\"legend\">", f);
	for (size_t i = 0; i < fg->m; i++)
		fprintf(f,
			"<span class=\"key\"><i class=\"sw\" style=\"--h:%d\"></i>CPU %d</span> ",
			svg_hue((unsigned)i), fg->ss[i]->cpu);
	if (json_array_size(r->phases) > 1) {
		json_t *p;
		size_t i;
		json_array_foreach (r->phases, i, p) {
			fprintf(
			    f,
			    "<span class=\"key\"><i class=\"sw band\" style=\"--h:%d\"></i>phase ",
			    html_phase_hue(pg, html_jstr(p, "name", NULL)));
			html_esc(pg, html_jstr(p, "name", NULL));
			fputs("</span> ", f);
		}
	}
	fputs("</div>\n", f);
}

/* What the figure shows, and what down-sampling left out; closes it. */
static void series_caption(struct html_page *pg, const struct tfigure *fg, const char *iv)
{
	FILE *f = pg->f;

	fputs("<figcaption>", f);
	html_esc(pg, fg->probe);
	fprintf(f,
		": the highest latency in each %s interval, per CPU; dots are logged spikes "
		"(above each CPU's spike threshold)",
		iv);
	if (json_array_size(pg->r->phases) > 1)
		fputs("; shaded bands are the load phases", f);
	if (fg->patterns)
		fputs("; ticks along the top mark recurring spikes", f);
	fputs(". The marked point is each CPU's largest interval maximum.", f);
	if (pg->many)
		fprintf(f,
			" <strong class=\"many\">The %zu worst of %zu CPUs (by max, then p99.9); "
			"every CPU is in the <a href=\"#overview\">per-CPU overview</a>.</strong>",
			fg->m, pg->ncpus);
	if (fg->down)
		fprintf(f,
			" <strong>Down-sampled to %zu points</strong> from %zu intervals: where a "
			"CPU has more than two intervals per pixel column, its line becomes a band "
			"from the lowest to the highest interval maximum of each column, so no "
			"maximum is lost.",
			fg->points, fg->intervals);
	if (fg->drawn < fg->spikes)
		fprintf(
		    f, " %zu of %zu logged spikes drawn: the highest of each pixel column per CPU.",
		    fg->drawn, fg->spikes);
	fputs("</figcaption></figure>\n", f);
}

/* One probe: its heading, the figure, the recurring spikes in words and
 * the per-CPU table. */
static int put_timeseries_probe(struct html_page *pg, const char *probe)
{
	const struct report *r = pg->r;
	struct tfigure fg = { .probe = probe,
			      .ss = calloc(r->nseries, sizeof(*fg.ss)),
			      .st = calloc(r->nseries, sizeof(*fg.st)),
			      .tp = { .span = r->duration_ns },
			      .ymin = UINT64_MAX };
	char iv[32];
	FILE *f = pg->f;
	int rc = 0;

	if (!fg.ss || !fg.st) {
		free(fg.ss);
		free(fg.st);
		return -ENOMEM;
	}
	series_scan(pg, &fg);
	fputs("<h3>", f);
	html_esc(pg, probe);
	fputs("</h3>\n", f);
	if (!fg.ymax || fg.ymin == UINT64_MAX) {
		fputs("<p class=\"muted\">", f);
		html_esc(pg, probe);
		fputs(": no interval holds a sample.</p>\n", f);
		goto out;
	}
	series_axes(&fg);
	svg_span(iv, sizeof(iv), fg.ivl);
	if ((rc = series_plot(pg, &fg, iv)))
		goto out;
	series_legend(pg, &fg);
	series_caption(pg, &fg, iv);
	/* Every CPU's recurring spikes in words, drawn or not: a periodic
	 * disturbance on a CPU that is not among the worst is still news. */
	bool listed = false;
	for (size_t i = 0; i < r->nseries; i++) {
		const json_t *per;
		if (strcmp(r->series[i].probe, probe) ||
		    !json_array_size(
			json_object_get(per = periodicity_of(r, &r->series[i]), "patterns")))
			continue;
		if (!listed)
			fputs("<ul class=\"periods\">\n", f);
		listed = true;
		put_period_text(pg, &r->series[i], per);
	}
	if (listed)
		fputs("</ul>\n", f);
	series_table(pg, fg.ss, fg.m, fg.st);
out:
	free(fg.ss);
	free(fg.st);
	return rc;
}

int html_series_put(struct html_page *pg)
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
		if (html_listed(done, nd, r->series[i].probe))
			continue;
		done[nd++] = r->series[i].probe;
		rc = put_timeseries_probe(pg, r->series[i].probe);
	}
	free(done);
	return rc;
}
