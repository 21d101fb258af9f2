// SPDX-License-Identifier: GPL-2.0-or-later
/* fleet_json: the fleet view as rtsoak-fleet/1 JSON (docs/fleet-schema.json),
 * for scripts and dashboards: the rows of the terminal view in the same
 * order (worst first), each with its per-CPU cells of the heat map, and the
 * counts.  Latencies in nanoseconds as integers; what a report did not
 * record is null, never 0. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "output.h"
#include "util.h"
#include "views.h"

/* Paths and names are any bytes (a file name, a hostname): valid UTF-8, or
 * json_pack would fail the whole view. */
static json_t *str_or_null(const char *s)
{
	return s ? util_json_string(s) : json_null();
}

static json_t *ns_or_null(bool known, uint64_t ns)
{
	return known ? json_integer((json_int_t)ns) : json_null();
}

static json_t *row_json(const struct fleet_row *row)
{
	json_t *checks = row->checks_known ? json_array() : json_null(), *cpus = json_array();

	for (size_t i = 0; checks && i < row->nchecks; i++)
		if (json_array_append_new(checks, json_string(row->checks[i])))
			return NULL;
	for (size_t i = 0; cpus && i < row->ncpus; i++) {
		const struct fleet_cpu *c = &row->cpus[i];
		if (json_array_append_new(cpus,
					  json_pack("{s:i, s:I, s:o}", "cpu", c->cpu, "max_ns",
						    (json_int_t)c->max_ns, "p99_9_ns",
						    ns_or_null(c->p999_known, c->p999_ns))))
			return NULL;
	}
	json_t *worst = row->has_worst ? json_pack("{s:s, s:i, s:s, s:I, s:o}", "probe", row->probe,
						   "cpu", row->cpu, "phase", row->phase, "max_ns",
						   (json_int_t)row->max_ns, "p99_9_ns",
						   ns_or_null(row->p999_known, row->p999_ns))
				       : json_null();
	/* json_pack's "o" takes a NULL as an error and frees the rest. */
	return json_pack("{s:o, s:o, s:o, s:s, s:o, s:o, s:I, s:s, s:o, s:o, s:o, s:o, s:o}",
			 "file", str_or_null(row->file), "host", str_or_null(row->host), "host_id",
			 str_or_null(row->host_id), "tool", row->tool ? row->tool : "rtsoak",
			 "kernel", str_or_null(row->kernel), "preempt", str_or_null(row->preempt),
			 "duration_ns", (json_int_t)row->duration_ns, "status",
			 report_status_name(row->status), "worst", worst, "missed",
			 ns_or_null(row->missed_known, row->missed), "checks_not_pass", checks,
			 "html", str_or_null(row->href), "cpus", cpus);
}

json_t *fleet_json(const struct fleet *f)
{
	json_t *rows = json_array(), *worst = json_null();
	size_t hosts, unknown;

	for (size_t i = 0; rows && i < f->nrows; i++)
		if (json_array_append_new(rows, row_json(&f->rows[i]))) {
			json_decref(rows);
			return NULL;
		}
	if (f->nrows && f->rows[0].has_worst)
		worst = json_pack("{s:o, s:I}", "file", str_or_null(f->rows[0].file), "max_ns",
				  (json_int_t)f->rows[0].max_ns);
	fleet_hosts(f, &hosts, &unknown);
	return json_pack("{s:s, s:o, s:{s:I, s:I, s:I, s:o}}", "schema", FLEET_SCHEMA, "reports",
			 rows, "summary", "reports", (json_int_t)f->nrows, "hosts",
			 (json_int_t)hosts, "reports_without_host", (json_int_t)unknown, "worst",
			 worst);
}

int fleet_json_write(const struct fleet *f, const char *path)
{
	return json_document_write(fleet_json(f), path);
}
