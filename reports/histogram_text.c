// SPDX-License-Identifier: GPL-2.0-or-later
/* histogram_text: one probe's histogram in cyclictest's -h text layout, so
 * that OSADL-style plotting scripts (rows = lines not starting with '#', the
 * first field the latency in us, one column per CPU; the worst case from the
 * "# Max Latencies:" line) plot an rtsoak run unchanged.
 *
 * The layout is cyclictest 2.x print_hist() byte for byte: "# Histogram",
 * rows "%06d " followed by one "%06lu" count per column joined by tabs, then
 * "# Total:" (" %09llu": samples in the rows, overflows not included), the
 * Min/Avg/Max lines (" %05lu", whole microseconds truncated, as cyclictest
 * computes them), "# Histogram Overflows:", "# Histogram Overflow at cycle
 * number:" with one "# Thread N:" line per column, and a blank line.  rtsoak
 * keeps no cycle numbers, so a thread line says " # 00037 others", which is
 * what cyclictest prints for overflows it did not log.  Its own notes follow
 * as "# rtsoak: ..." lines in the trailer, where cyclictest puts "# SMIs:"
 * and where every reader skips them; they avoid the words of the lines
 * scripts grep for.
 *
 * Which results: the timer probe's (else the first probe's), phase "all",
 * one column per CPU in CPU order; "# Thread N" is the Nth column.
 *
 * From log-linear buckets to 1 us rows, with every count kept: the min and
 * the top samples of each CPU (all known exactly) go to their own rows, as
 * cyclictest would put them; every other sample goes to the row of its
 * bucket's midpoint (clamped to [min, max]), the value the percentiles use
 * too.  That is within 256 ns of the truth below 131 us, where buckets are
 * at most 512 ns wide; above, buckets are wider than a row (1/256 to 1/128
 * of their value: 4 us at 1 ms), so their samples gather on every few-th
 * row, and the plot there is as coarse as the measurement.
 *
 * Rows: 0 up to the largest max of the columns, but at most HIST_ROWS_MAX, like
 * cyclictest's -h; samples beyond land in "# Histogram Overflows".  10 ms is
 * far above what an RT system should show, 10000 rows stay under 10 MB with
 * 128 CPUs, and past 10 ms a 1 us row is some 65 times finer than the bucket
 * that fed it anyway.  The max line holds the true max whatever the rows.
 * `rtsoak cyclictest -h US` asks for exactly US rows, as cyclictest prints
 * them (report_histogram_text_write_rows). */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "output.h"
#include "util.h"
#include "views.h"

#define HIST_ROWS_MAX 10000

struct hist_col {
	const struct report_result *res;
	uint64_t *rows;
	uint64_t total, overflow; /* in the rows, beyond them */
};

struct hist_text {
	const char *probe;
	bool fallback; /* no timer results: the first probe's */
	bool all_top;  /* every column with samples placed its top list exactly */
	unsigned ntop; /* the shortest such list */
	struct hist_col *col;
	size_t ncol;
	size_t nrows;
	bool rows_given; /* the caller's row count (cyclictest -h US), not the max's */
};

static int by_cpu(const void *a, const void *b)
{
	const struct hist_col *x = a, *y = b;

	return (x->res->cpu > y->res->cpu) - (x->res->cpu < y->res->cpu);
}

/* The rows of one result being filled (histogram_text_rows). */
struct rows {
	uint64_t *row;
	size_t n;
	uint64_t *total, *overflow;
};

static void put(struct rows *o, uint64_t ns, uint64_t n)
{
	uint64_t row = ns / 1000;

	if (row < o->n) {
		o->row[row] += n;
		*o->total += n;
	} else {
		*o->overflow += n;
	}
}

/* One exactly known sample: out of its bucket, onto its own row.  A sample
 * its bucket does not hold (a hand-edited report) is left out, so that the
 * rows always add up to the histogram. */
static void put_exact(struct rows *o, uint64_t *left, uint64_t ns)
{
	unsigned i = histogram_index(ns);

	if (!left[i])
		return;
	left[i]--;
	put(o, ns, 1);
}

/* Does the result know its largest samples (a cyclictest file does not)? */
static bool topped(const struct report_result *res)
{
	return res->ntop && !(res->unknown & REPORT_UNKNOWN_MAX_AT);
}

int histogram_text_rows(const struct report_result *res, uint64_t *rows, size_t nrows,
			uint64_t *total, uint64_t *overflow)
{
	struct rows o = { rows, nrows, total, overflow };
	uint64_t *left;

	if (!res->count || !res->hist)
		return 0;
	/* Densified for the put_exact() subtractions, one column at a time. */
	left = calloc(HISTOGRAM_BUCKETS, sizeof(*left));
	if (!left)
		return -ENOMEM;
	for (size_t k = 0; k < res->hist->n; k++)
		left[res->hist->e[k].index] = res->hist->e[k].count;
	if (topped(res)) {
		for (unsigned k = 0; k < res->ntop; k++)
			put_exact(&o, left, res->top[k].latency_ns);
	} else {
		put_exact(&o, left, res->max);
	}
	/* The min is a sample of its own unless the top list (or the max) is
	 * every sample there is. */
	if (res->count > (topped(res) ? res->ntop : 1))
		put_exact(&o, left, res->min);
	for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++) {
		uint64_t lo, mid;
		if (!left[i])
			continue;
		lo = histogram_lower(i);
		/* The overflow bucket's upper bound is UINT64_MAX: the clamp
		 * below puts its samples at max, the only value known there. */
		mid = lo + (histogram_upper(i) - lo) / 2;
		if (mid < res->min)
			mid = res->min;
		if (mid > res->max)
			mid = res->max;
		put(&o, mid, left[i]);
	}
	free(left);
	return 0;
}

static const char *pick_probe(const struct report *r, bool *fallback)
{
	const char *first = NULL;

	for (size_t i = 0; i < r->nresults; i++) {
		if (strcmp(r->results[i].phase, "all"))
			continue;
		if (!strcmp(r->results[i].probe, "timer"))
			return "timer";
		if (!first)
			first = r->results[i].probe;
	}
	*fallback = first != NULL;
	return first;
}

static void hist_text_free(struct hist_text *h)
{
	for (size_t i = 0; i < h->ncol; i++)
		free(h->col[i].rows);
	free(h->col);
}

/* -ENODATA: nothing to plot (no results, or a column with samples but no
 * histogram: a cyclictest file written without -h). */
static int hist_text_build(struct hist_text *h, const struct report *r, size_t rows)
{
	uint64_t maxrow = 0;
	bool seen_untopped = false;
	int rc;

	memset(h, 0, sizeof(*h));
	h->probe = pick_probe(r, &h->fallback);
	if (!h->probe)
		return -ENODATA;
	h->col = calloc(r->nresults, sizeof(*h->col));
	if (!h->col)
		return -ENOMEM;
	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *res = &r->results[i];
		if (strcmp(res->probe, h->probe) || strcmp(res->phase, "all"))
			continue;
		if (res->count && (!res->hist || (res->unknown & REPORT_UNKNOWN_PCT))) {
			hist_text_free(h);
			return -ENODATA;
		}
		h->col[h->ncol++].res = res;
		if (res->count && res->max / 1000 > maxrow)
			maxrow = res->max / 1000;
	}
	qsort(h->col, h->ncol, sizeof(*h->col), by_cpu);
	h->nrows = maxrow + 1 < HIST_ROWS_MAX ? (size_t)maxrow + 1 : HIST_ROWS_MAX;
	h->rows_given = rows > 0;
	if (rows)
		h->nrows = rows;
	h->all_top = false;
	h->ntop = RECORDER_TOP_MAX;
	for (size_t i = 0; i < h->ncol; i++) {
		struct hist_col *c = &h->col[i];
		if (!(c->rows = calloc(h->nrows, sizeof(*c->rows)))) {
			hist_text_free(h);
			return -ENOMEM;
		}
		if ((rc = histogram_text_rows(c->res, c->rows, h->nrows, &c->total, &c->overflow)) <
		    0) {
			hist_text_free(h);
			return rc;
		}
		if (!c->res->count)
			continue;
		if (!topped(c->res))
			seen_untopped = true;
		else if (c->res->ntop < h->ntop)
			h->ntop = c->res->ntop;
		h->all_top = !seen_untopped;
	}
	return 0;
}

static void trailer_line(FILE *f, const struct hist_text *h, const char *label,
			 uint64_t (*get)(const struct hist_col *c))
{
	fputs(label, f);
	for (size_t i = 0; i < h->ncol; i++)
		fprintf(f, " %05" PRIu64, get(&h->col[i]));
	fputc('\n', f);
}

/* The trailer's values: whole microseconds, truncated like cyclictest's
 * (its samples are truncated to us before anything is computed); 0 for a
 * CPU without samples, as cyclictest's average of no cycles. */
static uint64_t col_min(const struct hist_col *c)
{
	return c->res->count ? c->res->min / 1000 : 0;
}

static uint64_t col_avg(const struct hist_col *c)
{
	return c->res->count && !(c->res->unknown & REPORT_UNKNOWN_MEAN) ? c->res->mean / 1000 : 0;
}

static uint64_t col_max(const struct hist_col *c)
{
	return c->res->count ? c->res->max / 1000 : 0;
}

static uint64_t col_overflow(const struct hist_col *c)
{
	return c->overflow;
}

static int hist_text_fill(FILE *f, void *arg)
{
	const struct hist_text *h = arg;

	fputs("# Histogram\n", f);
	for (size_t row = 0; row < h->nrows; row++) {
		fprintf(f, "%06zu ", row);
		for (size_t i = 0; i < h->ncol; i++)
			fprintf(f, "%s%06" PRIu64, i ? "\t" : "", h->col[i].rows[row]);
		fputc('\n', f);
	}
	fputs("# Total:", f);
	for (size_t i = 0; i < h->ncol; i++)
		fprintf(f, " %09" PRIu64, h->col[i].total);
	fputc('\n', f);
	trailer_line(f, h, "# Min Latencies:", col_min);
	trailer_line(f, h, "# Avg Latencies:", col_avg);
	trailer_line(f, h, "# Max Latencies:", col_max);
	trailer_line(f, h, "# Histogram Overflows:", col_overflow);
	fputs("# Histogram Overflow at cycle number:\n", f);
	for (size_t i = 0; i < h->ncol; i++) {
		fprintf(f, "# Thread %zu:", i);
		if (h->col[i].overflow)
			fprintf(f, " # %05" PRIu64 " others", h->col[i].overflow);
		fputc('\n', f);
	}

	fprintf(f, "# rtsoak: %s probe%s, phase all; thread N is the Nth CPU measured: CPUs",
		h->probe, h->fallback ? " (the report has no timer results)" : "");
	for (size_t i = 0; i < h->ncol; i++)
		fprintf(f, " %d", h->col[i].res->cpu);
	fputc('\n', f);
	if (h->rows_given)
		fprintf(f, "# rtsoak: rows 0 to %zu us; later samples are overflows\n",
			h->nrows - 1);
	else
		fprintf(f, "# rtsoak: rows 0 to %zu us (at most %d); later samples are overflows\n",
			h->nrows - 1, HIST_ROWS_MAX);
	if (h->all_top)
		fprintf(
		    f,
		    "# rtsoak: the min and the %u largest samples of each CPU are on their own rows\n",
		    h->ntop);
	else
		fputs("# rtsoak: the min and the max of each CPU are on their own rows\n", f);
	fputs("# rtsoak: other samples are on the row of their bucket's midpoint, which is within"
	      " 0.26 us of them below 131 us, within 0.4 % above\n",
	      f);
	fputc('\n', f);
	/* the failed write's errno (ENOSPC on a full device), EIO if it left none */
	return ferror(f) ? (errno ? -errno : -EIO) : 0;
}

int report_histogram_text_write(const struct report *r, const char *path)
{
	return report_histogram_text_write_rows(r, path, 0);
}

int report_histogram_text_write_rows(const struct report *r, const char *path, size_t rows)
{
	struct hist_text h;
	int rc = hist_text_build(&h, r, rows);

	if (rc < 0)
		return rc;
	rc = output_write_with(path, hist_text_fill, &h);
	hist_text_free(&h);
	return rc;
}
