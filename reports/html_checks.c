// SPDX-License-Identifier: GPL-2.0-or-later
/* html_checks: the tuning checks of the HTML report page (the report's `checks`, written at the
 * start of the run by src/sys/check.c), as a table near the top: what is wrong with the machine
 * is read before the plots it may explain.
 *
 * One row per check that did not pass, the worst first (fail, warn, unknown, info; the report's
 * order within each), and a count line with the passes: a passing check is only counted, as in
 * the terminal summary (text.c report_checks_print).  Every string is the report's, escaped. */
#include <config.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "html_internal.h"

/* The status classes colour the status cell; warn and unknown share the note's amber.  A
 * check's name is one word and stays whole (the page's code elements break anywhere, which
 * squeezed the column to a few letters a line: "preem / pt.mo / del"); the text columns wrap
 * instead, between words and, for a path or a list longer than the column, anywhere, so that
 * the table fits the page's width (800 px and up). */
const char html_checks_css[] =
    "tr.ck-fail td.st{color:var(--bad);font-weight:600}"
    "tr.ck-warn td.st,tr.ck-unknown td.st{color:var(--note-fg);background:var(--note-bg);"
    "font-weight:600}tr.ck-info td.st{color:var(--muted)}\n"
    "#checks-table{width:100%}#checks-table td{text-align:left;overflow-wrap:anywhere}"
    "#checks-table td.ck,#checks-table td.ck code{white-space:nowrap;overflow-wrap:normal}"
    "#checks-table td.ob{width:32%}#checks-table td.ex{width:16%}"
    "#checks-table td.fix{width:26%}\n";

/* In the order of the rows; pass last, never a row. */
static const char *const order[] = { "fail", "warn", "unknown", "info", "pass" };
#define NSTATUS (sizeof(order) / sizeof(order[0]))

static const char *cstr(json_t *c, const char *key)
{
	const char *s = json_string_value(json_object_get(c, key));

	return s ? s : "";
}

/* The status's index in order[]; json_read.c admits no other status, an unknown one
 * (a model built otherwise) is shown as unknown rather than dropped. */
static size_t status_at(json_t *c)
{
	const char *st = cstr(c, "status");

	for (size_t k = 0; k < NSTATUS; k++)
		if (!strcmp(st, order[k]))
			return k;
	return 2;
}

static void put_row(struct html_page *pg, json_t *c, size_t k)
{
	const char *why = cstr(c, "why"), *ref = cstr(c, "reference"), *src = cstr(c, "source");
	FILE *f = pg->f;

	fprintf(f, "<tr class=\"ck-%s\" data-check=\"", order[k]);
	html_esc(pg, cstr(c, "id"));
	fprintf(f, "\" data-status=\"%s\"><td class=\"st\">%s</td><td class=\"ck\"><code title=\"",
		order[k], order[k]);
	/* The why and its reference on hover, and again in the fix cell's details for print and
	 * touch screens, where a title does not show. */
	html_esc(pg, why);
	if (*ref) {
		fputs(" (", f);
		html_esc(pg, ref);
		fputc(')', f);
	}
	fputs("\">", f);
	html_esc(pg, cstr(c, "id"));
	fputs("</code></td><td class=\"nw\">", f);
	html_esc(pg, cstr(c, "cpus"));
	fputs("</td><td class=\"ob\">", f);
	html_esc(pg, cstr(c, "observed"));
	if (*src) {
		fputs("<div class=\"muted\">from ", f);
		html_esc(pg, src);
		fputs("</div>", f);
	}
	fputs("</td><td class=\"ex\">", f);
	html_esc(pg, cstr(c, "expected"));
	fputs("</td><td class=\"fix\">", f);
	html_esc(pg, cstr(c, "fix"));
	if (*why || *ref) {
		fputs("<details><summary>why</summary>", f);
		html_esc(pg, why);
		if (*ref) {
			fputs(" <span class=\"muted\">", f);
			html_esc(pg, ref);
			fputs("</span>", f);
		}
		fputs("</details>", f);
	}
	fputs("</td></tr>\n", f);
}

void html_checks_put(struct html_page *pg)
{
	json_t *checks = pg->r->checks, *c;
	size_t count[NSTATUS] = { 0 }, i, n = json_array_size(checks);
	FILE *f = pg->f;

	if (!json_is_array(checks))
		return; /* a report from before the checks: no section at all */
	json_array_foreach (checks, i, c)
		count[status_at(c)]++;
	fputs("<h2 id=\"checks\">Tuning checks</h2>\n", f);
	fprintf(f,
		"<p class=\"cap\" id=\"checks-count\" data-total=\"%zu\" data-pass=\"%zu\" "
		"data-info=\"%zu\" data-warn=\"%zu\" data-fail=\"%zu\" data-unknown=\"%zu\">",
		n, count[4], count[3], count[1], count[0], count[2]);
	if (!n) {
		fputs("The run recorded no checks.</p>\n", f);
		return;
	}
	fprintf(f,
		"%zu of %zu check%s pass%s (%zu fail, %zu warn, %zu unknown, %zu info), checked at "
		"the start of the run; hover over a check for why it matters.</p>\n",
		count[4], n, n == 1 ? "" : "s", n == 1 ? "es" : "", count[0], count[1], count[2],
		count[3]);
	if (count[4] == n)
		return;
	fputs("<table id=\"checks-table\"><thead><tr><th class=\"l\">status</th>"
	      "<th class=\"l\">check</th><th class=\"l\">CPUs</th><th class=\"l\">observed</th>"
	      "<th class=\"l\">expected</th><th class=\"l\">fix</th></tr></thead><tbody>\n",
	      f);
	for (size_t k = 0; k + 1 < NSTATUS; k++)
		json_array_foreach (checks, i, c)
			if (status_at(c) == k)
				put_row(pg, c, k);
	fputs("</tbody></table>\n", f);
}
