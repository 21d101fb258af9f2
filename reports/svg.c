// SPDX-License-Identifier: GPL-2.0-or-later
/* svg: inline SVG plots and the page frame for the HTML views.
 *
 * Latency axes are logarithmic.  OSADL's plots use linear microseconds
 * because their range is bounded (a few hundred µs on a tuned RT box), but
 * a soak run's tail spans three or four decades (a 10 µs body, a 10 ms
 * worst case): on a linear axis the whole body would sit in the first
 * pixel columns.  The histogram's buckets are log-linear (a fixed fraction
 * of their lower bound wide), so on a log axis they are all about as wide:
 * the step line shows the stored buckets as they are, with no rebinning.
 * Count and exceedance axes are logarithmic too, so that one sample in the
 * tail is as visible as a million in the body. */
#include <config.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "svg.h"

/* A C1 control (U+0080..U+009F, UTF-8 C2 80..C2 9F) at p: a page sent to a
 * terminal (--html -) must not carry one raw, any more than ESC. */
static bool c1_at(const unsigned char *p)
{
	return p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
}

/* What character c becomes in HTML text and attribute values: controls
 * become U+FFFD, so nothing from a report acts on a terminal either. */
static const char *entity(unsigned char c, char one[2])
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&#39;";
	default:
		if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
			return "&#xFFFD;";
		one[0] = (char)c;
		one[1] = '\0';
		return one;
	}
}

void svg_escape(FILE *f, const char *s)
{
	char one[2];

	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
		fputs(c1_at(p) ? (p++, "&#xFFFD;") : entity(*p, one), f);
}

void svg_attr(char *buf, size_t len, const char *name, const char *value)
{
	size_t n = strlen(buf);
	int k = snprintf(buf + n, len - n, " %s=\"", name);
	char one[2];

	if (k < 0 || (size_t)k + 2 > len - n) {
		buf[n] = '\0';
		return;
	}
	n += (size_t)k;
	/* A value too long for buf is cut between characters, never inside
	 * an entity, and the quote still closes. */
	for (const unsigned char *p = (const unsigned char *)(value ? value : ""); *p; p++) {
		bool c1 = c1_at(p);
		const char *e = c1 ? "&#xFFFD;" : entity(*p, one);
		size_t el = strlen(e);
		if (n + el + 2 > len)
			break;
		p += c1;
		memcpy(buf + n, e, el);
		n += el;
	}
	buf[n++] = '"';
	buf[n] = '\0';
}

void svg_num(FILE *f, double v)
{
	long long t;

	/* Coordinates stay near the view box; anything else is a bug that
	 * must not put "nan" into the page. */
	if (!isfinite(v))
		v = 0;
	if (v > 1e7)
		v = 1e7;
	if (v < -1e7)
		v = -1e7;
	t = llround(v * 10);
	if (t < 0) {
		fputc('-', f);
		t = -t;
	}
	if (t % 10)
		fprintf(f, "%lld.%lld", t / 10, t % 10);
	else
		fprintf(f, "%lld", t / 10);
}

void svg_latency(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f µs", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
}

void svg_span(char *buf, size_t len, uint64_t ns)
{
	if (ns && ns % 1000000000 == 0)
		snprintf(buf, len, "%llu s", (unsigned long long)(ns / 1000000000));
	else if (ns && ns % 1000000 == 0)
		snprintf(buf, len, "%llu ms", (unsigned long long)(ns / 1000000));
	else if (ns && ns % 1000 == 0)
		snprintf(buf, len, "%llu µs", (unsigned long long)(ns / 1000));
	else
		svg_latency(buf, len, ns);
}

void svg_runtime(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000ull * 1000000000)
		snprintf(buf, len, "+%.3f s", (double)ns / 1e9);
	else if (ns < 600ull * 60 * 1000000000)
		snprintf(buf, len, "+%.2f min", (double)ns / 60e9);
	else
		snprintf(buf, len, "+%.3f h", (double)ns / 3600e9);
}

int svg_hue(unsigned k)
{
	/* 137.5° apart: any few consecutive CPUs get clearly different
	 * colours, and 64 still spread over the whole circle.  Start at blue. */
	return (int)(fmod(215.0 + 137.508 * k, 360.0));
}

const char *svg_time_unit(uint64_t span_ns, double *ns_per_unit)
{
	if (span_ns <= 600ull * 1000000000) {
		*ns_per_unit = 1e9;
		return "s";
	}
	if (span_ns <= 600ull * 60 * 1000000000) {
		*ns_per_unit = 60e9;
		return "min";
	}
	*ns_per_unit = 3600e9;
	return "h";
}

double svg_px(const struct svg_axis *a, double v)
{
	double t;

	if (a->log) {
		if (!(v > a->lo))
			return a->p0;
		t = (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo));
	} else {
		t = (v - a->lo) / (a->hi - a->lo);
	}
	if (!isfinite(t) || t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	return a->p0 + t * (a->p1 - a->p0);
}

/* ------------------------------------------------------------- axes -- */

static void tick_label(char *buf, size_t len, enum svg_ticks kind, double v, double unit)
{
	static const char *const count_suffix[] = { "", "k", "M", "G", "T", "P" };

	switch (kind) {
	case SVG_TICKS_LATENCY:
		if (v < 1e3)
			snprintf(buf, len, "%g ns", v);
		else if (v < 1e6)
			snprintf(buf, len, "%g µs", v / 1e3);
		else if (v < 1e9)
			snprintf(buf, len, "%g ms", v / 1e6);
		else
			snprintf(buf, len, "%g s", v / 1e9);
		break;
	case SVG_TICKS_COUNT: {
		int e = (int)lround(log10(v)), k = e / 3;
		if (k > 5)
			k = 5;
		snprintf(buf, len, "%g%s", pow(10, e - 3 * k), count_suffix[k]);
		break;
	}
	case SVG_TICKS_FRACTION: {
		int e = (int)lround(log10(v)) + 2; /* in percent */
		if (e >= 0)
			snprintf(buf, len, "%g %%", pow(10, e));
		else if (e >= -3)
			snprintf(buf, len, "%.*f %%", -e, pow(10, e));
		else
			snprintf(buf, len, "1e%d", e - 2);
		break;
	}
	case SVG_TICKS_RUNTIME:
		snprintf(buf, len, "%g", v / unit);
		break;
	}
}

/* Tick values of an axis, at most max of them. */
static size_t ticks(const struct svg_axis *a, double *out, size_t max, double unit)
{
	size_t n = 0;

	if (a->log) {
		/* 1-2-5 steps when the axis spans few decades, else decades. */
		bool fine = a->ticks == SVG_TICKS_LATENCY && log10(a->hi / a->lo) < 2.6;
		static const double m[] = { 1, 2, 5 };
		for (int e = (int)floor(log10(a->lo)) - 1; e <= (int)ceil(log10(a->hi)) && n < max;
		     e++)
			for (unsigned k = 0; k < (fine ? 3u : 1u) && n < max; k++) {
				double v = m[k] * pow(10, e);
				if (v >= a->lo * 0.999 && v <= a->hi * 1.001)
					out[n++] = v;
			}
		return n;
	}
	/* Linear: a 1-2-5 step in the axis unit giving 4 to 10 ticks. */
	double span = (a->hi - a->lo) / unit, step = pow(10, floor(log10(span / 5)));
	if (!(span > 0))
		return 0;
	if (span / step > 20)
		step *= 5;
	else if (span / step > 10)
		step *= 2;
	for (double v = ceil(a->lo / unit / step) * step; v <= a->hi / unit * 1.0001 && n < max;
	     v += step)
		out[n++] = v * unit;
	return n;
}

static void scale_attr(FILE *f, const char *name, const struct svg_axis *a)
{
	fprintf(f, " %s=\"%s %.17g %.17g %g %g\"", name, a->log ? "log" : "lin", a->lo, a->hi,
		a->p0, a->p1);
}

void svg_begin(struct svg_plot *p, FILE *f, const char *attrs, const char *label,
	       const char *xtitle, const char *ytitle)
{
	double tv[64], unit = 1;
	const char *uname = NULL;
	char buf[48];
	size_t n;

	p->f = f;
	if (p->x.ticks == SVG_TICKS_RUNTIME)
		uname = svg_time_unit((uint64_t)(p->x.hi - p->x.lo), &unit);
	fprintf(f, "<svg class=\"plot\" viewBox=\"0 0 %d %d\"%s", SVG_W, SVG_H, attrs);
	scale_attr(f, "data-x-scale", &p->x);
	scale_attr(f, "data-y-scale", &p->y);
	fputs(" role=\"img\" aria-label=\"", f);
	svg_escape(f, label);
	fputs("\">\n", f);

	/* Grid and tick labels. */
	n = ticks(&p->x, tv, 64, unit);
	for (size_t i = 0; i < n; i++) {
		double x = svg_px(&p->x, tv[i]);
		tick_label(buf, sizeof(buf), p->x.ticks, tv[i], unit);
		fprintf(f, "<path class=\"grid\" d=\"M");
		svg_num(f, x);
		fprintf(f, " %dV%d\"/><text class=\"tk\" x=\"", SVG_TOP, SVG_BOTTOM + 5);
		svg_num(f, x);
		fprintf(f, "\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", SVG_BOTTOM + 18, buf);
	}
	n = ticks(&p->y, tv, 64, unit);
	for (size_t i = 0; i < n; i++) {
		double y = svg_px(&p->y, tv[i]);
		tick_label(buf, sizeof(buf), p->y.ticks, tv[i], unit);
		fprintf(f, "<path class=\"grid\" d=\"M%d ", SVG_LEFT - 5);
		svg_num(f, y);
		fprintf(f, "H%d\"/><text class=\"tk\" x=\"%d\" y=\"", SVG_RIGHT, SVG_LEFT - 8);
		svg_num(f, y + 4);
		fprintf(f, "\" text-anchor=\"end\">%s</text>\n", buf);
	}
	fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
		SVG_LEFT, SVG_TOP, SVG_RIGHT - SVG_LEFT, SVG_BOTTOM - SVG_TOP);
	fprintf(f, "<text class=\"ax\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">",
		(SVG_LEFT + SVG_RIGHT) / 2, SVG_H - 8);
	svg_escape(f, xtitle);
	if (uname)
		fprintf(f, " (%s)", uname);
	fprintf(f,
		"</text>\n<text class=\"ax\" transform=\"translate(16 %d) rotate(-90)\" "
		"text-anchor=\"middle\">",
		(SVG_TOP + SVG_BOTTOM) / 2);
	svg_escape(f, ytitle);
	fputs("</text>\n", f);
}

void svg_end(struct svg_plot *p)
{
	fputs("</svg>\n", p->f);
}

/* ------------------------------------------------------------ paths -- */

void svg_path_begin(struct svg_path *pa, FILE *f)
{
	pa->f = f;
	pa->points = 0;
	pa->down = false;
	fputs(" d=\"", f);
}

void svg_path_to(struct svg_path *pa, double x, double y)
{
	/* After M, further pairs are implicit line-tos. */
	fputc(pa->down ? ' ' : 'M', pa->f);
	svg_num(pa->f, x);
	fputc(' ', pa->f);
	svg_num(pa->f, y);
	pa->down = true;
	pa->points++;
}

void svg_path_up(struct svg_path *pa)
{
	pa->down = false;
}

void svg_path_end(struct svg_path *pa)
{
	/* An empty d is valid SVG and draws nothing. */
	fputc('"', pa->f);
}

/* ----------------------------------------------------- distributions -- */

bool svg_drawable(const struct report_result *res)
{
	return res && res->count > 0 && res->hist && !(res->unknown & REPORT_UNKNOWN_PCT) &&
	       res->hist->total > 0;
}

/* A bucket's upper bound: the overflow bucket is closed by the exact max,
 * as in the JSON report. */
static uint64_t bucket_upper(const struct report_result *res, unsigned i)
{
	return i == HISTOGRAM_OVERFLOW ? res->max + 1 : histogram_upper(i);
}

double svg_floor125(double v)
{
	double d = pow(10, floor(log10(v))), m = v / d;
	return (m >= 5 ? 5 : m >= 2 ? 2 : 1) * d;
}

double svg_ceil125(double v)
{
	double d = pow(10, floor(log10(v))), m = v / d;
	return (m <= 1.0000001 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * d;
}

/* The latency axis over every drawable series' buckets. */
static bool latency_range(const struct svg_series *s, size_t n, double *lo, double *hi)
{
	bool any = false;

	*lo = INFINITY;
	*hi = 0;
	for (size_t k = 0; k < n; k++) {
		const struct report_result *res = s[k].res;
		if (!svg_drawable(res))
			continue;
		/* Drawable: at least one entry, in ascending bucket order. */
		double l = (double)histogram_lower(res->hist->e[0].index);
		*lo = fmin(*lo, l < 1 ? 1 : l);
		*hi = fmax(*hi, (double)bucket_upper(res, res->hist->e[res->hist->n - 1].index));
		any = true;
	}
	if (!any)
		return false;
	*lo = svg_floor125(*lo);
	*hi = svg_ceil125(*hi);
	if (*hi <= *lo * 2)
		*hi = svg_ceil125(*lo * 2.01);
	return true;
}

/* The o-th series to draw: bold ones (aggregates) first, so that the
 * thin per-CPU lines stay visible on top of them. */
static size_t draw_order(const struct svg_series *s, size_t n, size_t o)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < n; k++)
			if (s[k].bold == !pass && o-- == 0)
				return k;
	return 0;
}

static void series_attrs(FILE *f, const char *cls, const struct svg_series *s)
{
	fprintf(f, "<%s class=\"ln%s%s%s\"", cls, s->hue == SVG_FG ? " fg" : "",
		s->bold ? " b" : "", s->dashed ? " d" : "");
	if (s->hue != SVG_FG)
		fprintf(f, " style=\"--h:%d\"", s->hue);
	fputs(" data-series=\"", f);
	svg_escape(f, s->key);
	fputc('"', f);
}

static void series_title(FILE *f, const struct svg_series *s)
{
	char mx[32];

	svg_latency(mx, sizeof(mx), s->res->max);
	fputs("<title>", f);
	svg_escape(f, s->label);
	fprintf(f, ": %llu sample%s, max %s</title>", (unsigned long long)s->res->count,
		s->res->count == 1 ? "" : "s", mx);
}

size_t svg_histogram(FILE *f, const char *attrs, const char *label, const struct svg_series *s,
		     size_t n)
{
	struct svg_plot p = { 0 };
	uint64_t cmax = 0;
	size_t drawn = 0;
	double yb;

	if (!latency_range(s, n, &p.x.lo, &p.x.hi))
		return 0;
	for (size_t k = 0; k < n; k++)
		for (size_t e = 0; svg_drawable(s[k].res) && e < s[k].res->hist->n; e++)
			if (s[k].res->hist->e[e].count > cmax)
				cmax = s[k].res->hist->e[e].count;
	p.x = (struct svg_axis){ true, p.x.lo, p.x.hi, SVG_LEFT, SVG_RIGHT, SVG_TICKS_LATENCY };
	/* 0.5 at the bottom: a bucket of one sample stands clear of the axis. */
	p.y = (struct svg_axis){ true,	     0.5,     fmax(10, svg_ceil125((double)cmax * 1.5)),
				 SVG_BOTTOM, SVG_TOP, SVG_TICKS_COUNT };
	yb = SVG_BOTTOM;
	svg_begin(&p, f, attrs, label, "latency (log scale)", "samples per bucket (log scale)");
	for (size_t o = 0; o < n; o++) {
		size_t k = draw_order(s, n, o);
		const struct report_result *res = s[k].res;
		bool first = true, open = false;
		uint64_t prev_hi = 0;

		if (!svg_drawable(res))
			continue;
		series_attrs(f, "path", &s[k]);
		/* The stored buckets, [lower, upper, count] as in the JSON. */
		fputs(" data-buckets=\"", f);
		for (size_t e = 0; e < res->hist->n; e++) {
			unsigned i = res->hist->e[e].index;
			fprintf(f, "%s%llu,%llu,%llu", first ? "" : ";",
				(unsigned long long)histogram_lower(i),
				(unsigned long long)bucket_upper(res, i),
				(unsigned long long)res->hist->e[e].count);
			first = false;
		}
		/* A step line: each bucket is "V count H upper"; a gap of empty
		 * buckets drops to the baseline and moves on. */
		fputs("\" d=\"", f);
		for (size_t e = 0; e < res->hist->n; e++) {
			unsigned i = res->hist->e[e].index;
			uint64_t c = res->hist->e[e].count, lo = histogram_lower(i);
			if (!open || lo != prev_hi) {
				if (open) {
					fputc('V', f);
					svg_num(f, yb);
				}
				fputc('M', f);
				svg_num(f, svg_px(&p.x, (double)lo));
				fputc(' ', f);
				svg_num(f, yb);
				open = true;
			}
			fputc('V', f);
			svg_num(f, svg_px(&p.y, (double)c));
			fputc('H', f);
			prev_hi = bucket_upper(res, i);
			svg_num(f, svg_px(&p.x, (double)prev_hi));
		}
		fputc('V', f);
		svg_num(f, yb);
		fputs("\">", f);
		series_title(f, &s[k]);
		fputs("</path>\n", f);
		drawn++;
	}
	svg_end(&p);
	return drawn;
}

/* Is the percentile's rank below n (else it is the max, marked anyway)? */
static bool pct_resolved(double pct, uint64_t n)
{
	long double r = ceill((long double)pct / 100.0L * (long double)n);
	return r < (long double)n;
}

static void marker(FILE *f, const struct svg_plot *p, const struct svg_series *s, const char *stat,
		   const char *name, uint64_t ns, double frac)
{
	char v[32];

	svg_latency(v, sizeof(v), ns);
	fprintf(f, "<circle class=\"mk%s\"", s->hue == SVG_FG ? " fg" : "");
	if (s->hue != SVG_FG)
		fprintf(f, " style=\"--h:%d\"", s->hue);
	fputs(" data-series=\"", f);
	svg_escape(f, s->key);
	fprintf(f, "\" data-stat=\"%s\" data-ns=\"%llu\" cx=\"", stat, (unsigned long long)ns);
	svg_num(f, svg_px(&p->x, (double)ns));
	fputs("\" cy=\"", f);
	svg_num(f, svg_px(&p->y, frac));
	fputs("\" r=\"3.5\"><title>", f);
	svg_escape(f, s->label);
	fprintf(f, " %s: %s</title></circle>\n", name, v);
}

size_t svg_exceedance(FILE *f, const char *attrs, const char *label, const struct svg_series *s,
		      size_t n, bool marks)
{
	static const char *const pct_name[REPORT_NPCT] = { "p50",   "p90",    "p99",
							   "p99.9", "p99.99", "p99.999" };
	struct svg_plot p = { 0 };
	uint64_t nmax = 1;
	size_t drawn = 0;

	if (!latency_range(s, n, &p.x.lo, &p.x.hi))
		return 0;
	for (size_t k = 0; k < n; k++)
		if (svg_drawable(s[k].res) && s[k].res->hist->total > nmax)
			nmax = s[k].res->hist->total;
	p.x = (struct svg_axis){ true, p.x.lo, p.x.hi, SVG_LEFT, SVG_RIGHT, SVG_TICKS_LATENCY };
	/* Down to below one sample in the largest series: its last step, the
	 * max, sits one sample above the floor. */
	p.y = (struct svg_axis){ true,	  pow(10, floor(log10(0.5 / (double)nmax))),
				 1,	  SVG_BOTTOM,
				 SVG_TOP, SVG_TICKS_FRACTION };
	svg_begin(&p, f, attrs, label, "latency (log scale)",
		  "fraction of samples at or above (log)");
	for (size_t o = 0; o < n; o++) {
		size_t k = draw_order(s, n, o);
		const struct report_result *res = s[k].res;
		uint64_t total, left;
		bool first = true;

		if (!svg_drawable(res))
			continue;
		total = left = res->hist->total;
		series_attrs(f, "path", &s[k]);
		fprintf(f, " data-total=\"%llu\"", (unsigned long long)total);
		/* Exact at every bucket bound: from the upper bound of one
		 * non-empty bucket to that of the next, the fraction of samples
		 * at or above the latency is that of the next bucket and those
		 * after it.  So "M lower0 1", then per bucket "H upper V rest". */
		fputs(" d=\"", f);
		for (size_t e = 0; e < res->hist->n; e++) {
			unsigned i = res->hist->e[e].index;
			uint64_t c = res->hist->e[e].count;
			if (first) {
				fputc('M', f);
				svg_num(f, svg_px(&p.x, (double)histogram_lower(i)));
				fputc(' ', f);
				svg_num(f, svg_px(&p.y, 1));
				first = false;
			} else {
				fputc('V', f);
				svg_num(f, svg_px(&p.y, (double)left / (double)total));
			}
			fputc('H', f);
			svg_num(f, svg_px(&p.x, (double)bucket_upper(res, i)));
			left -= c;
		}
		fputs("\">", f);
		series_title(f, &s[k]);
		fputs("</path>\n", f);
		if (marks) {
			for (unsigned i = 0; i < REPORT_NPCT; i++)
				if (pct_resolved(report_pct[i], total))
					marker(f, &p, &s[k], report_pct_key[i], pct_name[i],
					       res->pct[i], 1 - report_pct[i] / 100);
			marker(f, &p, &s[k], "max_ns", "max", res->max, 1 / (double)total);
		}
		drawn++;
	}
	svg_end(&p);
	return drawn;
}

void svg_legend(FILE *f, const struct svg_series *s, size_t n)
{
	fputs("<div class=\"legend\">", f);
	for (size_t k = 0; k < n; k++) {
		if (!svg_drawable(s[k].res))
			continue;
		fprintf(f, "<span class=\"key\"><i class=\"sw%s%s\"",
			s[k].hue == SVG_FG ? " fg" : "", s[k].dashed ? " d" : "");
		if (s[k].hue != SVG_FG)
			fprintf(f, " style=\"--h:%d\"", s[k].hue);
		fputs("></i>", f);
		svg_escape(f, s[k].label);
		fputs("</span> ", f);
	}
	fputs("</div>\n", f);
}

/* ------------------------------------------------------------- page -- */

/* Colours are CSS variables so that one plot reads in light and dark mode
 * and in print; series colours are a hue per element (--h) and a lightness
 * per scheme (--l). */
static const char page_css[] =
    ":root{color-scheme:light dark;--bg:#fff;--fg:#1b1d21;--muted:#5f6670;--grid:#e6e8eb;"
    "--frame:#9aa0a6;--s:72%;--l:40%;--band:.14;--note-bg:#fff4d6;--note-fg:#4d3900;"
    "--bad:#b3261e;--good:#1e7b34;--th:#f1f3f5;--heat:0,80%,50%}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#15171a;--fg:#e4e6ea;--muted:#a0a7b0;"
    "--grid:#2b2f35;--frame:#5b6169;--l:66%;--band:.22;--note-bg:#3a2f0b;--note-fg:#ffe08a;"
    "--bad:#ff8a80;--good:#81c995;--th:#202328}}\n"
    "@media print{:root{--bg:#fff;--fg:#000;--muted:#333;--grid:#ddd;--frame:#777;--l:38%;"
    "--band:.16;--note-bg:#fff;--note-fg:#000;--bad:#000;--good:#000;--th:#eee}"
    "nav{display:none}figure,tr{break-inside:avoid}.note{border:1px solid #000}}\n"
    "body{background:var(--bg);color:var(--fg);margin:0 auto;max-width:1000px;padding:1em;"
    "font:15px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,\"Helvetica Neue\",Arial,"
    "sans-serif}\n"
    "h1{font-size:1.5em;margin:.2em 0 .3em}h2{font-size:1.2em;margin:1.6em 0 .4em;"
    "border-bottom:1px solid var(--grid)}h3{font-size:1em;margin:1.2em 0 .3em}\n"
    ".meta,.cap,figcaption,.muted{color:var(--muted)}.meta{margin:.2em 0}\n"
    ".note{background:var(--note-bg);color:var(--note-fg);padding:.6em .9em;"
    "border-radius:4px;margin:.8em 0;font-weight:600}\n"
    "nav{font-size:.9em;margin:.8em 0}nav a{margin-right:1em;color:inherit}\n"
    "table{border-collapse:collapse;margin:.4em 0;font-size:.9em}\n"
    "th,td{padding:.2em .6em;text-align:right;border-bottom:1px solid var(--grid);"
    "vertical-align:top}th{background:var(--th);font-weight:600}\n"
    "td.l,th.l{text-align:left}td.nw{white-space:nowrap}tbody th{text-align:left}\n"
    ".kv td,.kv th{text-align:left}.kv th{background:none;font-weight:600}\n"
    "td.worse{color:var(--bad);font-weight:600}td.better{color:var(--good);font-weight:600}\n"
    "td.noverdict{font-style:italic}\n"
    "td.heat{background:hsla(var(--heat),var(--a))}\n"
    "code,.mono{font-family:ui-monospace,\"SF Mono\",Menlo,Consolas,monospace;font-size:.9em;"
    "overflow-wrap:anywhere}\n"
    "details{margin:.5em 0}summary{cursor:pointer;font-weight:600}\n"
    "figure{margin:.8em 0}figcaption{font-size:.9em}\n"
    "svg.plot{display:block;width:100%;max-width:960px;height:auto}\n"
    "svg text{fill:var(--fg);font:12px system-ui,sans-serif}svg .tk{fill:var(--muted)}\n"
    "svg .grid{stroke:var(--grid);fill:none}svg .frame{fill:none;stroke:var(--frame)}\n"
    ".ln{fill:none;stroke:hsl(var(--h),var(--s),var(--l));stroke-width:1.3;"
    "stroke-linejoin:round}\n"
    ".ln.fg{stroke:var(--fg)}.ln.b{stroke-width:2.4}.ln.d{stroke-dasharray:7 4}\n"
    ".mk{fill:hsl(var(--h),var(--s),var(--l));stroke:var(--bg)}.mk.fg{fill:var(--fg)}\n"
    ".band{fill:hsl(var(--h),65%,55%);fill-opacity:var(--band)}\n"
    ".env{fill:hsl(var(--h),var(--s),var(--l));fill-opacity:.45;stroke:none}\n"
    ".sp{fill:none;stroke:hsl(var(--h),var(--s),var(--l));stroke-width:5;"
    "stroke-linecap:round;stroke-opacity:.6}\n"
    ".per{fill:none;stroke:hsl(var(--h),var(--s),var(--l));stroke-width:1.5}\n"
    ".legend{font-size:.85em;margin:.2em 0 .2em 4em}.key{white-space:nowrap;"
    "margin-right:.9em}\n"
    ".sw{display:inline-block;width:1.4em;height:0;vertical-align:middle;margin-right:.3em;"
    "border-top:3px solid;border-top-color:hsl(var(--h),var(--s),var(--l))}"
    ".sw.fg{border-top-color:var(--fg)}"
    ".sw.d{border-top-style:dashed}\n"
    ".sw.band{height:.8em;border:0;background:hsla(var(--h),65%,55%,.35)}\n";

void svg_page_begin(FILE *f, const char *title)
{
	svg_page_begin_css(f, title, NULL);
}

void svg_page_begin_css(FILE *f, const char *title, const char *extra_css)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>",
	      f);
	svg_escape(f, title);
	fprintf(f, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n", page_css,
		extra_css ? extra_css : "");
}

void svg_page_end(FILE *f)
{
	/* Optional: print every collapsed section too.  Without JavaScript
	 * the page is the same, only printed as shown. */
	fputs("<script>addEventListener('beforeprint',function(){"
	      "document.querySelectorAll('details').forEach(function(d){d.open=true})})"
	      "</script>\n</body>\n</html>\n",
	      f);
}
