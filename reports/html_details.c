// SPDX-License-Identifier: GPL-2.0-or-later
/* html_details: the folded-away end of the HTML report ("Details"): the
 * warnings (open when there are any), the system snapshot, the loads with
 * their counters, the phases with their system counters, the tweaks, the
 * probes' counters, an ab report's rounds and the run configuration.
 *
 * These are the model's open-ended JSON objects, shown as they are
 * (html_json): the page adds no reading of its own that could disagree
 * with the report. */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "html_internal.h"

static void put_loads(struct html_page *pg)
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
				html_json(pg, v, 1);
			else
				fputs("–", f);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	json_array_foreach (pg->r->loads, i, l) {
		fputs("<h3>", f);
		html_esc(pg, html_jstr(l, "spec", NULL) ?: html_jstr(l, "name", NULL));
		fputs("</h3>", f);
		html_json(pg, l, 0);
	}
	fputs("</details>\n", f);
}

static void put_phase_details(struct html_page *pg)
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
		html_esc(pg, html_jstr(p, "name", NULL));
		fputs("</td><td class=\"l\">", f);
		html_json(pg, json_object_get(p, "loads"), 1);
		fputs("</td><td>", f);
		html_lat(pg, (uint64_t)json_integer_value(json_object_get(p, "time_ns")));
		fprintf(f, "</td><td>%zu</td></tr>\n",
			json_array_size(json_object_get(p, "occurrences")));
	}
	fputs("</tbody></table>\n", f);
	json_array_foreach (pg->r->phases, i, p) {
		fputs("<h3>phase ", f);
		html_esc(pg, html_jstr(p, "name", NULL));
		fputs(": system counters (per CPU where a list)</h3>", f);
		html_json(pg, json_object_get(p, "system"), 0);
	}
	fputs("</details>\n", f);
}

static void put_counters(struct html_page *pg)
{
	const struct report *r = pg->r;
	bool any = false;
	FILE *f = pg->f;

	for (size_t i = 0; i < r->nresults + r->naggregates; i++) {
		const struct report_result *res = html_result_at(r, i);
		char c[16];
		if (!res->counters)
			continue;
		if (!any)
			fputs("<details id=\"counters\"><summary>Probe counters</summary>\n", f);
		any = true;
		html_cpu_name(c, sizeof(c), res->cpu);
		fputs("<h3>", f);
		html_esc(pg, res->probe);
		fprintf(f, ", %s</h3>", c);
		html_json(pg, res->counters, 0);
	}
	if (any)
		fputs("</details>\n", f);
}

void html_details_put(struct html_page *pg)
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
			html_esc(pg, r->warnings[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	} else {
		fputs("<p class=\"muted\">None.</p>\n", f);
	}
	fputs("</details>\n<details id=\"system\"><summary>System snapshot</summary>\n", f);
	if (r->system)
		html_json(pg, r->system, 0);
	fputs("</details>\n", f);
	put_loads(pg);
	put_phase_details(pg);
	fprintf(f, "<details id=\"tweaks\"><summary>Tweaks (%zu)</summary>\n",
		json_array_size(r->tweaks));
	if (json_array_size(r->tweaks))
		html_json(pg, r->tweaks, 0);
	else
		fputs("<p class=\"muted\">None: the system was measured as configured.</p>\n", f);
	fputs("</details>\n", f);
	put_counters(pg);
	if (r->ab) {
		fputs(
		    "<details id=\"ab-details\"><summary>rtsoak ab: rounds and verdicts</summary>\n",
		    f);
		html_json(pg, r->ab, 0);
		fputs("</details>\n", f);
	}
	fputs("<details id=\"config\"><summary>Run configuration</summary>\n", f);
	fprintf(f, "<table class=\"kv\"><tr><th>status</th><td>%s</td></tr><tr><th>start</th><td>",
		report_status_name(r->status));
	html_esc(pg, r->start);
	fputs("</td></tr><tr><th>end</th><td>", f);
	html_esc(pg, r->end);
	fprintf(f, "</td></tr><tr><th>duration</th><td>%.3f s</td></tr></table>\n",
		(double)r->duration_ns / 1e9);
	if (r->config)
		html_json(pg, r->config, 0);
	fputs("</details>\n", f);
}
