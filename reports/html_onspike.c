// SPDX-License-Identifier: GPL-2.0-or-later
/* html_onspike: "On spike", the report page's account of `run --on-spike
 * CMD` (the report's on_spike section, src/app/session_onspike.c): the
 * command, what it did for the spikes (started, succeeded, failed, not
 * started, stopped at the end), the spikes it skipped with the rule that
 * skipped them, and the first failure.
 *
 * The command is the user's text, as any other string of the report
 * escaped: a page that shows it runs nothing of it.  The counts are also
 * on the section's elements (data-*), for tests/html_check.py. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>

#include "html_internal.h"
#include "report.h"

/* A script of several lines keeps them. */
const char html_onspike_css[] = "#onspike-command{white-space:pre-wrap}\n";

static void row(struct html_page *pg, const char *key, const char *what, uint64_t n,
		const char *why)
{
	fprintf(pg->f,
		"<tr data-count=\"%s\"><td class=\"l\">%s</td><td>%" PRIu64
		"</td><td class=\"l muted\">%s</td></tr>\n",
		key, what, n, why);
}

void html_onspike_put(struct html_page *pg)
{
	json_t *o = pg->r->on_spike, *sk, *ff;
	FILE *f = pg->f;
	char t[64];

	if (!json_is_object(o))
		return;
	uint64_t spikes = report_on_spike_count(o, "spikes"), ran = report_on_spike_count(o, "ran"),
		 interval = report_on_spike_count(o, "interval_ns");
	sk = json_object_get(o, "skipped");
	ff = json_object_get(o, "first_failure");
	fputs("<h2 id=\"onspike\">On spike</h2>\n<p class=\"cap\">The command run on a spike "
	      "(<code>--on-spike</code>) as <code>/bin/sh -c</code>, on the housekeeping CPUs, "
	      "with the spike in its environment (<code>RTSOAK_*</code>):</p>\n"
	      "<p><code id=\"onspike-command\">",
	      f);
	html_esc(pg, json_string_value(json_object_get(o, "command")) ?: "");
	fputs("</code></p>\n", f);
	fprintf(f,
		"<p class=\"cap\" id=\"onspike-count\" data-spikes=\"%" PRIu64
		"\" data-ran=\"%" PRIu64 "\" data-failed=\"%" PRIu64 "\">%" PRIu64
		" spike%s: the command started %" PRIu64 " time%s, one at a time",
		spikes, ran, report_on_spike_count(o, "failed"), spikes, spikes == 1 ? "" : "s",
		ran, ran == 1 ? "" : "s");
	if (interval) { /* 0: --on-spike-interval 0, no interval */
		fputs(" and at most once per ", f);
		html_lat(pg, interval);
	}
	fputc('.', f);
	if (json_is_true(json_object_get(o, "shared_cpus")))
		fputs(" Every CPU was measured: it ran on measured CPUs, below the probes.", f);
	fputs("</p>\n<table id=\"onspike-table\"><thead><tr><th class=\"l\">spikes</th>"
	      "<th>count</th><th class=\"l\">why</th></tr></thead><tbody>\n",
	      f);
	row(pg, "succeeded", "started, exit 0", report_on_spike_count(o, "succeeded"), "");
	row(pg, "failed", "started, failed", report_on_spike_count(o, "failed"),
	    "a non-zero exit or a signal rtsoak did not send");
	row(pg, "terminated", "started, stopped at the end", report_on_spike_count(o, "terminated"),
	    "still running after the run: SIGTERM to its process group");
	row(pg, "killed", "of those, killed", report_on_spike_count(o, "killed"),
	    "outlived SIGTERM: SIGKILL");
	if (report_on_spike_count(o, "running"))
		row(pg, "running", "started, running", report_on_spike_count(o, "running"),
		    "running as this checkpoint was written");
	row(pg, "not_started", "not started", report_on_spike_count(o, "not_started"),
	    "/bin/sh could not be started (the warnings say why)");
	row(pg, "skipped.running", "skipped: one at a time", report_on_spike_count(sk, "running"),
	    "a command ran, or waited for its spike's attribution");
	row(pg, "skipped.interval", "skipped: the interval", report_on_spike_count(sk, "interval"),
	    "within the interval of the last start");
	row(pg, "skipped.unlogged", "skipped: not logged", report_on_spike_count(sk, "unlogged"),
	    "counted, not logged (ring overrun or log full): no details to give");
	fputs("</tbody></table>\n", f);
	if (json_is_object(ff) && json_is_string(json_object_get(ff, "status"))) {
		fputs("<p id=\"onspike-failure\">The first failure: ", f);
		html_esc(pg, json_string_value(json_object_get(ff, "status")));
		snprintf(t, sizeof(t), "%.3f s", (double)report_on_spike_count(ff, "at_ns") / 1e9);
		fprintf(f, ", for the spike at %s into the run.</p>\n", t);
	}
}
