/* SPDX-License-Identifier: GPL-2.0-or-later */
/* svg: inline SVG plots and the page frame for the HTML views (html.c,
 * compare_html.c).
 *
 * A page must work offline and as an e-mail attachment, so everything is
 * inline: the stylesheet comes from svg_page_begin(), plots are <svg>
 * elements drawn here, colours come from CSS (light, dark and print) and
 * no plot needs JavaScript.
 *
 * Every plot states its scales on the <svg> element (data-x-scale,
 * data-y-scale: "log|lin LO HI P0 P1", data value LO at pixel P0) and its
 * lines carry what they were drawn from (data-series, data-buckets), so
 * that tests/html_check.py can check the geometry against the report
 * instead of trusting the page.  Coordinates are printed with one decimal
 * and non-finite numbers never reach the file (svg_num). */
#ifndef RTSOAK_SVG_H
#define RTSOAK_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

/* The view box of every plot and its plot area. */
#define SVG_W 960
#define SVG_H 330
#define SVG_LEFT 76
#define SVG_RIGHT 926
#define SVG_TOP 14
#define SVG_BOTTOM 282
#define SVG_COLUMNS (SVG_RIGHT - SVG_LEFT) /* pixel columns of the plot area */

/* Hue of "the foreground colour" (aggregates, "all CPUs"). */
#define SVG_FG (-1)

/* HTML and SVG text and attribute values: & < > " ' escaped, C0 controls
 * (which HTML forbids) replaced by U+FFFD. */
void svg_escape(FILE *f, const char *s);
/* Append ` name="value"` (escaped) to the string in buf: for the attrs of
 * svg_begin().  A value too long for buf is cut short, never the markup. */
void svg_attr(char *buf, size_t len, const char *name, const char *value);
/* A coordinate: one decimal, no trailing ".0", 0 for NaN or infinity. */
void svg_num(FILE *f, double v);
/* A latency for people: "950 ns", "812.3 µs", "3.34 ms", "1.234 s". */
void svg_latency(char *buf, size_t len, uint64_t ns);
/* A configured length as given: "200 ms", "1 s", else as a latency. */
void svg_span(char *buf, size_t len, uint64_t ns);
/* A run time for people: "+5.230 s", "+12.5 min", "+3.21 h". */
void svg_runtime(char *buf, size_t len, uint64_t ns);
/* The largest 1-2-5 multiple of a power of ten <= v (v > 0), and the
 * smallest >= v: axis ends that read well. */
double svg_floor125(double v);
double svg_ceil125(double v);
/* Distinct hues for series k (golden-angle steps: neighbours differ). */
int svg_hue(unsigned k);

enum svg_ticks {
	SVG_TICKS_LATENCY,  /* ns, labelled "10 µs", "1 ms" */
	SVG_TICKS_COUNT,    /* log decades, "1", "1k", "1M" */
	SVG_TICKS_FRACTION, /* log decades, "100 %", "0.1 %" */
	SVG_TICKS_RUNTIME,  /* ns since the start, in the unit of svg_time_unit() */
};

struct svg_axis {
	bool log;
	double lo, hi; /* data range; log: 0 < lo < hi */
	double p0, p1; /* pixels of lo and hi */
	enum svg_ticks ticks;
};

/* Pixel of data value v, clamped to the axis (log: v <= 0 is lo). */
double svg_px(const struct svg_axis *a, double v);

struct svg_plot {
	FILE *f;
	struct svg_axis x, y;
};

/* The unit a run time axis of this length is labelled in. */
const char *svg_time_unit(uint64_t span_ns, double *ns_per_unit);

/* Open a plot: <svg> with `attrs` (written as they are: built with
 * svg_attr), its scales, grid, ticks and axis titles (escaped here). */
void svg_begin(struct svg_plot *p, FILE *f, const char *attrs, const char *label,
	       const char *xtitle, const char *ytitle);
void svg_end(struct svg_plot *p);

/* A path's d="..." written point by point; a pen-up starts a new subpath. */
struct svg_path {
	FILE *f;
	size_t points;
	bool down;
};
void svg_path_begin(struct svg_path *pa, FILE *f);
void svg_path_to(struct svg_path *pa, double x, double y);
void svg_path_up(struct svg_path *pa);
void svg_path_end(struct svg_path *pa);

/* One line of a histogram or exceedance plot: a result with its samples. */
struct svg_series {
	const struct report_result *res;
	const char *key;   /* data-series: "0", "all", "A" */
	const char *label; /* legend and tooltip: "CPU 0", "all CPUs" */
	int hue;	   /* svg_hue() or SVG_FG */
	bool bold, dashed;
};

/* Can this result be drawn as a distribution (samples and a histogram)? */
bool svg_drawable(const struct report_result *res);

/* Latency histogram, OSADL style: one step line per series over the stored
 * buckets, log latency axis, log count axis.  Series that are not drawable
 * are skipped; returns how many were drawn (0: nothing written). */
size_t svg_histogram(FILE *f, const char *attrs, const char *label, const struct svg_series *s,
		     size_t n);
/* Exceedance 1 - F(x), "fraction of samples at or above x", from the same
 * buckets, with the stored percentiles and max marked when marks. */
size_t svg_exceedance(FILE *f, const char *attrs, const char *label, const struct svg_series *s,
		      size_t n, bool marks);
/* The HTML legend of a plot (swatches), for the drawable series. */
void svg_legend(FILE *f, const struct svg_series *s, size_t n);

/* The page frame: doctype, head with the inline stylesheet and title
 * (escaped), <body>; and its end. */
void svg_page_begin(FILE *f, const char *title);
/* The same with more rules after the page's own (NULL: none), for sections
 * only some pages have: other pages stay as they were. */
void svg_page_begin_css(FILE *f, const char *title, const char *extra_css);
void svg_page_end(FILE *f);

#endif
