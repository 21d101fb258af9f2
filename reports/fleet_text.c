// SPDX-License-Identifier: GPL-2.0-or-later
/* fleet_text: the fleet view in the terminal (`rtsoak report A.json B.json ...`):
 * a header, one aligned row per report, worst first (fleet_sort), and a
 * last line with the counts and the worst overall:
 *
 *   max_us probe cpu phase p99.9_us missed host  kernel  preempt duration status   checks   file
 *   2598.0 timer   1 all      2596.9      ? rig-b 6.12-rt rt      2.0 s    complete -        b.json
 *    428.8 timer   0 all       302.1      0 rig-a 6.12-rt rt      1.0 s    complete 1:irq.affinity a.json
 *   4 reports, 3 hosts; worst 2596.9 us: timer on CPU 1 of rig-b (b.json)
 *
 * The worst latency leads the row because the rows are sorted by it; the
 * columns that vary in length (checks, file) end it.  Latencies are
 * microseconds as in the single report's summary (text.c); "-" is nothing
 * recorded (no sample, no host), "?" a statistic the source did not record
 * (a cyclictest file has no missed count).  Every string from a report is
 * escaped (util_escape): a hostname must not drive the terminal. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "util.h"
#include "views.h"

enum col {
	C_MAX,
	C_PROBE,
	C_CPU,
	C_PHASE,
	C_P999,
	C_MISSED,
	C_HOST,
	C_KERNEL,
	C_PREEMPT,
	C_DURATION,
	C_STATUS,
	C_CHECKS,
	C_FILE,
	NCOL
};

static const char *const head[NCOL] = { "max_us", "probe",  "cpu",    "phase",	 "p99.9_us",
					"missed", "host",   "kernel", "preempt", "duration",
					"status", "checks", "file" };
/* Numbers right-aligned, names left. */
static const bool right[NCOL] = {
	[C_MAX] = true, [C_CPU] = true, [C_P999] = true, [C_MISSED] = true
};

/* An escaped field: names are at most REPORT_NAME_MAX, hostnames 255 and
 * paths PATH_MAX bytes, four times that escaped; a longer check list is
 * cut (the JSON view has all of it). */
#define FIELD 16400
#define CHECKS_W 40 /* columns of the checks list, but for the first id */

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

/* Column k of row into buf (escaped). */
static void field(const struct fleet_row *row, enum col k, char *buf, size_t len)
{
	switch (k) {
	case C_MAX:
		if (row->has_worst)
			text_fmt_us(buf, len, row->max_ns);
		else
			snprintf(buf, len, "-");
		return;
	case C_PROBE:
		util_escape(row->has_worst ? row->probe : "-", buf, len);
		return;
	case C_CPU:
		if (row->has_worst)
			snprintf(buf, len, "%d", row->cpu);
		else
			snprintf(buf, len, "-");
		return;
	case C_PHASE:
		util_escape(row->has_worst ? row->phase : "-", buf, len);
		return;
	case C_P999:
		if (!row->has_worst)
			snprintf(buf, len, "-");
		else if (!row->p999_known)
			snprintf(buf, len, "?");
		else
			text_fmt_us(buf, len, row->p999_ns);
		return;
	case C_MISSED:
		if (row->missed_known)
			snprintf(buf, len, "%llu", (unsigned long long)row->missed);
		else
			snprintf(buf, len, "?");
		return;
	case C_HOST:
		util_escape(or_dash(row->host), buf, len);
		return;
	case C_KERNEL:
		util_escape(or_dash(row->kernel), buf, len);
		return;
	case C_PREEMPT:
		util_escape(or_dash(row->preempt), buf, len);
		return;
	case C_DURATION:
		text_fmt_duration(buf, len, row->duration_ns);
		return;
	case C_STATUS:
		snprintf(buf, len, "%s", report_status_name(row->status));
		return;
	case C_CHECKS:
		/* "?": the report is older than the checks; "-": all pass.  The
		 * count, and the first ids that fit CHECKS_W (the JSON view has
		 * all): ten ids would push the file off every screen. */
		if (!row->checks_known || !row->nchecks) {
			snprintf(buf, len, "%s", !row->checks_known ? "?" : "-");
			return;
		}
		snprintf(buf, len, "%zu:", row->nchecks);
		for (size_t i = 0; i < row->nchecks; i++) {
			char id[4 * 64 + 1], more[32];
			util_escape(row->checks[i], id, sizeof(id));
			snprintf(more, sizeof(more), ",+%zu", row->nchecks - i - 1);
			if (i && strlen(buf) + 1 + strlen(id) +
					 (i + 1 < row->nchecks ? strlen(more) : 0) >
				     CHECKS_W) {
				snprintf(more, sizeof(more), ",+%zu", row->nchecks - i);
				util_catf(buf, len, "%s", more);
				return;
			}
			util_catf(buf, len, "%s%s", i ? "," : "", id);
		}
		return;
	case C_FILE:
		util_escape(row->file, buf, len);
		return;
	case NCOL:
		break;
	}
	snprintf(buf, len, "?");
}

static void sgr(FILE *out, bool color, const char *code)
{
	if (color)
		fprintf(out, "\033[%sm", code);
}

static void line(FILE *out, const int *w, char cells[NCOL][FIELD])
{
	for (int k = 0; k < NCOL; k++) {
		/* The last column unpadded: no trailing blanks. */
		if (k == NCOL - 1)
			fprintf(out, "%s", cells[k]);
		else
			fprintf(out, right[k] ? "%*s " : "%-*s ", w[k], cells[k]);
	}
}

void fleet_text_print(const struct fleet *f, FILE *out, bool color)
{
	static char cells[NCOL][FIELD]; /* 200 KiB: not on the stack */
	int w[NCOL];
	size_t hosts, unknown;

	for (int k = 0; k < NCOL; k++)
		w[k] = (int)strlen(head[k]);
	for (size_t i = 0; i < f->nrows; i++)
		for (int k = 0; k < NCOL; k++) {
			field(&f->rows[i], (enum col)k, cells[k], FIELD);
			int n = (int)strlen(cells[k]);
			if (n > w[k])
				w[k] = n;
		}
	for (int k = 0; k < NCOL; k++)
		snprintf(cells[k], FIELD, "%s", head[k]);
	sgr(out, color, "1");
	line(out, w, cells);
	sgr(out, color, "0");
	fputc('\n', out);
	for (size_t i = 0; i < f->nrows; i++) {
		for (int k = 0; k < NCOL; k++)
			field(&f->rows[i], (enum col)k, cells[k], FIELD);
		line(out, w, cells);
		fputc('\n', out);
	}
	fleet_hosts(f, &hosts, &unknown);
	fprintf(out, "%zu report%s, %zu host%s", f->nrows, f->nrows == 1 ? "" : "s", hosts,
		hosts == 1 ? "" : "s");
	if (unknown)
		fprintf(out, " (%zu report%s without one)", unknown, unknown == 1 ? "" : "s");
	if (f->nrows && f->rows[0].has_worst) {
		const struct fleet_row *r = &f->rows[0];
		for (int k = 0; k < NCOL; k++)
			field(r, (enum col)k, cells[k], FIELD);
		fprintf(out, "; worst %s us: %s on CPU %s of %s (%s)", cells[C_MAX], cells[C_PROBE],
			cells[C_CPU], cells[C_HOST], cells[C_FILE]);
	} else {
		fputs("; no samples", out);
	}
	fputc('\n', out);
}
