// SPDX-License-Identifier: GPL-2.0-or-later
/* fleet_html: the fleet view as one self-contained HTML page
 * (`rtsoak report A.json B.json ... --html OUT`).
 *
 * Top down: the worst overall (headline), the table of the terminal view
 * (one row per report, worst first, each file linked to that report's own
 * page where the CLI found one: fleet_row.href), and two heat maps, max and
 * p99.9, one row per report and one column per CPU of any report.  A map's
 * row is named by its host, and by host and file where several reports
 * share a hostname (or by the file where the host is not recorded).
 *
 * The colour of a cell is the page's heat colour (svg.c, td.heat) with an
 * opacity on a log scale between the smallest and the largest value of that
 * map: latencies of a fleet span decades, and a linear scale would paint
 * every cell but the worst white.  Each cell's title carries the exact value
 * (and data-ns the nanoseconds, for tests and scripts).  Every string from a
 * report is escaped (svg_escape); a link's path is percent-encoded first. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "output.h"
#include "svg.h"
#include "views.h"

/* A fleet's table is wide: the page takes the window.  The checks fold
 * into their count, so that ten ids do not make every row ten lines. */
static const char fleet_css[] =
    "body{max-width:none}#fleet-table td{white-space:nowrap}"
    "#fleet-table td.ck{text-align:left}#fleet-table td.ck summary{font-weight:400}"
    "#fleet-table td.ck code{overflow-wrap:normal}\n"
    "table.heat td{min-width:3.2em;font-size:.8em}table.heat td.none{color:var(--muted)}\n";

static void lat(FILE *f, uint64_t ns)
{
	char buf[48];

	svg_latency(buf, sizeof(buf), ns);
	svg_escape(f, buf);
}

/* A path as a URL path: unreserved bytes and '/' as they are, the rest as
 * %XX, so that '#', '?', '%' and spaces in a file name stay part of it; then
 * escaped for the attribute. */
static void put_href(FILE *f, const char *path)
{
	static const char ok[] = "-._~/";
	char buf[4];

	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr(ok, *p)) {
			fputc(*p, f);
		} else {
			snprintf(buf, sizeof(buf), "%%%02X", *p);
			fputs(buf, f);
		}
	}
}

static void td_text(FILE *f, const char *cls, const char *s)
{
	fprintf(f, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	svg_escape(f, s && *s ? s : "-");
	fputs("</td>", f);
}

static void put_headline(FILE *f, const struct fleet *fl)
{
	size_t hosts, unknown;

	fleet_hosts(fl, &hosts, &unknown);
	fprintf(f,
		"<h1 id=\"headline\" data-reports=\"%zu\" data-hosts=\"%zu\">%zu report%s, %zu "
		"host%s",
		fl->nrows, hosts, fl->nrows, fl->nrows == 1 ? "" : "s", hosts,
		hosts == 1 ? "" : "s");
	if (unknown)
		fprintf(f, " (%zu without one)", unknown);
	if (fl->nrows && fl->rows[0].has_worst) {
		const struct fleet_row *w = &fl->rows[0];
		fputs(": worst ", f);
		lat(f, w->max_ns);
		fputs(", ", f);
		svg_escape(f, w->probe);
		fprintf(f, " on CPU %d of ", w->cpu);
		svg_escape(f, w->host ? w->host : w->file);
	}
	fputs("</h1>\n", f);
}

static void put_row(FILE *f, const struct fleet_row *row)
{
	char buf[64];

	if (row->has_worst)
		fprintf(f, "<tr data-max-ns=\"%" PRIu64 "\" data-file=\"", row->max_ns);
	else
		fputs("<tr data-max-ns=\"none\" data-file=\"", f);
	svg_escape(f, row->file);
	fputs("\">", f);
	if (row->has_worst) {
		fputs("<td>", f);
		lat(f, row->max_ns);
		fputs("</td>", f);
		td_text(f, "l", row->probe);
		fprintf(f, "<td>%d</td>", row->cpu);
		td_text(f, "l", row->phase);
		fputs("<td>", f);
		if (row->p999_known)
			lat(f, row->p999_ns);
		else
			fputs("?", f);
		fputs("</td>", f);
	} else {
		fputs("<td>-</td><td class=\"l\">-</td><td>-</td><td class=\"l\">-</td><td>-</td>",
		      f);
	}
	if (row->missed_known)
		fprintf(f, "<td>%" PRIu64 "</td>", row->missed);
	else
		fputs("<td>?</td>", f);
	td_text(f, "l host", row->host);
	td_text(f, "l", row->kernel);
	td_text(f, "l", row->preempt);
	svg_runtime(buf, sizeof(buf), row->duration_ns);
	td_text(f, "l", buf + 1); /* "+5.230 s" without its sign */
	td_text(f, "l", report_status_name(row->status));
	fputs("<td class=\"ck\">", f);
	if (!row->checks_known)
		fputs("<span class=\"muted\">not recorded</span>", f);
	else if (!row->nchecks)
		fputs("-", f);
	else
		fprintf(f, "<details><summary>%zu: <code>", row->nchecks);
	for (size_t i = 0; i < row->nchecks; i++) {
		/* The first beside the count, the rest when unfolded, one a line. */
		fputs(i == 1 ? "</code>, ...</summary><code>" : i ? "</code><br><code>" : "", f);
		svg_escape(f, row->checks[i]);
	}
	if (row->nchecks)
		fputs(row->nchecks == 1 ? "</code></summary></details>" : "</code></details>", f);
	fputs("</td><td class=\"l\">", f);
	if (row->href) {
		fputs("<a href=\"", f);
		put_href(f, row->href);
		fputs("\">", f);
		svg_escape(f, row->file);
		fputs("</a>", f);
	} else {
		svg_escape(f, row->file);
	}
	fputs("</td></tr>\n", f);
}

static void put_table(FILE *f, const struct fleet *fl)
{
	fputs("<h2 id=\"reports\">Reports, worst first</h2>\n<table id=\"fleet-table\"><thead><tr>"
	      "<th>max</th><th class=\"l\">probe</th><th>CPU</th><th class=\"l\">phase</th>"
	      "<th>p99.9</th><th>missed</th><th class=\"l\">host</th><th class=\"l\">kernel</th>"
	      "<th class=\"l\">preempt</th><th class=\"l\">duration</th><th class=\"l\">status</th>"
	      "<th class=\"l\">checks not passed</th><th class=\"l\">report</th></tr></thead>"
	      "<tbody>\n",
	      f);
	for (size_t i = 0; i < fl->nrows; i++)
		put_row(f, &fl->rows[i]);
	fputs("</tbody></table>\n<p class=\"cap\">max: the largest latency of any CPU over the "
	      "whole run, of the probes' own results (not the parts of a split latency), with "
	      "its probe, CPU and the phase it fell in; p99.9 of the same CPU's result; missed "
	      "summed over CPUs; \"?\": not recorded by the source.</p>\n",
	      f);
}

static int int_sort(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/* Every CPU of any row, ascending and distinct.  NULL on ENOMEM. */
static int *cpu_union(const struct fleet *fl, size_t *n)
{
	size_t total = 0, k = 0;
	int *v;

	for (size_t i = 0; i < fl->nrows; i++)
		total += fl->rows[i].ncpus;
	if (!(v = malloc((total + 1) * sizeof(*v))))
		return NULL;
	for (size_t i = 0; i < fl->nrows; i++)
		for (size_t c = 0; c < fl->rows[i].ncpus; c++)
			v[k++] = fl->rows[i].cpus[c].cpu;
	qsort(v, k, sizeof(*v), int_sort);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!*n || v[*n - 1] != v[i])
			v[(*n)++] = v[i];
	return v;
}

static const struct fleet_cpu *cell_of(const struct fleet_row *row, int cpu)
{
	for (size_t i = 0; i < row->ncpus; i++)
		if (row->cpus[i].cpu == cpu)
			return &row->cpus[i];
	return NULL;
}

static bool cell_value(const struct fleet_cpu *c, bool p999, uint64_t *ns)
{
	if (!c || (p999 && !c->p999_known))
		return false;
	*ns = p999 ? c->p999_ns : c->max_ns;
	return true;
}

/* Does another row have the same hostname? */
static bool host_repeats(const struct fleet *fl, size_t i)
{
	for (size_t j = 0; j < fl->nrows; j++)
		if (j != i && fl->rows[j].host && !strcmp(fl->rows[j].host, fl->rows[i].host))
			return true;
	return false;
}

static void put_label(FILE *f, const struct fleet *fl, size_t i)
{
	const struct fleet_row *row = &fl->rows[i];

	if (!row->host) {
		svg_escape(f, row->file);
		return;
	}
	svg_escape(f, row->host);
	if (host_repeats(fl, i)) {
		fputs(" <span class=\"muted\">(", f);
		svg_escape(f, row->file);
		fputs(")</span>", f);
	}
}

static void put_map(FILE *f, const struct fleet *fl, const int *cpu, size_t ncpu, bool p999)
{
	const char *what = p999 ? "p99.9" : "max";
	uint64_t lo = UINT64_MAX, hi = 0, v;

	for (size_t i = 0; i < fl->nrows; i++)
		for (size_t c = 0; c < fl->rows[i].ncpus; c++)
			if (cell_value(&fl->rows[i].cpus[c], p999, &v) && v) {
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
	fprintf(f,
		"<h3>%s</h3>\n<table class=\"heat\" id=\"heat-%s\"><thead><tr><th class=\"l\">"
		"host</th>",
		what, p999 ? "p999" : "max");
	for (size_t c = 0; c < ncpu; c++)
		fprintf(f, "<th>%d</th>", cpu[c]);
	fputs("</tr></thead><tbody>\n", f);
	for (size_t i = 0; i < fl->nrows; i++) {
		const struct fleet_row *row = &fl->rows[i];
		fputs("<tr data-file=\"", f);
		svg_escape(f, row->file);
		fputs("\"><th class=\"l\">", f);
		put_label(f, fl, i);
		fputs("</th>", f);
		for (size_t c = 0; c < ncpu; c++) {
			char buf[48];
			if (!cell_value(cell_of(row, cpu[c]), p999, &v)) {
				fprintf(f,
					"<td class=\"none\" title=\"CPU %d: not measured\">"
					"</td>",
					cpu[c]);
				continue;
			}
			/* Opacity .08 .. .9 on log(v): the smallest cell still shows. */
			double t = hi > lo && v > 0
				       ? log((double)v / (double)lo) / log((double)hi / (double)lo)
				       : 1;
			svg_latency(buf, sizeof(buf), v);
			fprintf(f,
				"<td class=\"heat\" style=\"--a:%.2f\" data-ns=\"%" PRIu64
				"\" title=\"CPU %d: %s %" PRIu64 " ns\">",
				0.08 + 0.82 * (t < 0 ? 0 : t), v, cpu[c], what, v);
			svg_escape(f, buf);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static int put_maps(FILE *f, const struct fleet *fl)
{
	size_t ncpu = 0;
	int *cpu = cpu_union(fl, &ncpu);

	if (!cpu)
		return -ENOMEM;
	fputs("<h2 id=\"heat\">Per host and CPU</h2>\n<p class=\"cap\">One row per report, in the "
	      "order of the table, one column per CPU; the colour goes with the logarithm of "
	      "the latency, from the smallest to the largest cell of the map; hover for the "
	      "exact value.  Per CPU: the largest max, and the largest p99.9, of the probes on "
	      "it.</p>\n",
	      f);
	put_map(f, fl, cpu, ncpu, false);
	put_map(f, fl, cpu, ncpu, true);
	free(cpu);
	return 0;
}

static int fill(FILE *f, void *arg)
{
	const struct fleet *fl = arg;
	char title[64];
	int rc;

	snprintf(title, sizeof(title), "rtsoak fleet: %zu report%s", fl->nrows,
		 fl->nrows == 1 ? "" : "s");
	svg_page_begin_css(f, title, fleet_css);
	put_headline(f, fl);
	fputs("<nav><a href=\"#reports\">Reports</a><a href=\"#heat\">Per host and CPU</a></nav>\n",
	      f);
	put_table(f, fl);
	if ((rc = put_maps(f, fl)))
		return rc;
	svg_page_end(f);
	return 0;
}

int fleet_html_write(const struct fleet *f, const char *path)
{
	return output_write_with(path, fill, (void *)f);
}
