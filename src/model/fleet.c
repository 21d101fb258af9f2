// SPDX-License-Identifier: GPL-2.0-or-later
/* fleet: one row per report for the fleet view (fleet.h).
 *
 * Which results count: the per-CPU results of each probe's primary
 * result.  A probe that splits its latency into parts (net into net.stack
 * and net.wakeup, icmp likewise) reports the parts beside the whole; a
 * part is a piece of the whole's samples, never a latency of its own, so
 * its max cannot be the worst and its missed count would count the whole's
 * misses twice.  Parts are known by their name's last component (".stack",
 * ".wakeup": src/probe/probe_net.c, probe_icmp.c); "net.rtt" is a probe of
 * its own.  Aggregates (all CPUs) are left out: they name no CPU and their
 * max is one of the per-CPU ones. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "util.h"

static bool is_part(const char *probe)
{
	const char *dot = strrchr(probe, '.');

	return dot && (!strcmp(dot, ".stack") || !strcmp(dot, ".wakeup"));
}

unsigned fleet_p999_index(void)
{
	unsigned i = 0;

	while (i < REPORT_NPCT && report_pct[i] != 99.9)
		i++;
	return i;
}

/* A string from a path of object keys (b may be NULL), or NULL. */
static const char *jstr(json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);

	return json_string_value(b ? json_object_get(v, b) : v);
}

static int dup_or_null(char **dst, const char *s)
{
	*dst = NULL;
	if (s && !(*dst = strdup(s)))
		return -ENOMEM;
	return 0;
}

static int preempt_of(struct fleet_row *row, json_t *system)
{
	const char *model = jstr(system, "preempt", "model"),
		   *active = jstr(system, "preempt", "active");
	size_t n;

	if (!model || !active || !strcmp(model, active))
		return dup_or_null(&row->preempt, model ? model : active);
	/* A PREEMPT_DYNAMIC kernel runs one of its modes: both matter. */
	n = strlen(model) + strlen(active) + 2;
	if (!(row->preempt = malloc(n)))
		return -ENOMEM;
	snprintf(row->preempt, n, "%s/%s", model, active);
	return 0;
}

static int checks_of(struct fleet_row *row, json_t *checks)
{
	size_t i, n = 0;
	json_t *c;

	row->checks_known = json_is_array(checks);
	if (!row->checks_known)
		return 0;
	if (!(row->checks = calloc(json_array_size(checks) + 1, sizeof(*row->checks))))
		return -ENOMEM;
	json_array_foreach (checks, i, c) {
		const char *st = jstr(c, "status", NULL), *id = jstr(c, "id", NULL);
		if (!st || (strcmp(st, "warn") && strcmp(st, "fail")))
			continue;
		if (!(row->checks[n] = strdup(id ? id : "?")))
			return -ENOMEM;
		row->nchecks = ++n;
	}
	return 0;
}

static struct fleet_cpu *cpu_slot(struct fleet_row *row, int cpu)
{
	size_t lo = 0, hi = row->ncpus;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (row->cpus[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < row->ncpus && row->cpus[lo].cpu == cpu)
		return &row->cpus[lo];
	/* Reports list results by CPU in ascending order: mostly an append. */
	memmove(&row->cpus[lo + 1], &row->cpus[lo], (row->ncpus - lo) * sizeof(*row->cpus));
	row->ncpus++;
	row->cpus[lo] = (struct fleet_cpu){ .cpu = cpu };
	return &row->cpus[lo];
}

/* The worst, the missed sum and the heat map cells from the primary
 * per-CPU results of phase "all". */
static void results_of(struct fleet_row *row, const struct report *r,
		       const struct report_result **worst)
{
	unsigned p = fleet_p999_index();

	row->missed_known = true;
	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *res = &r->results[i];
		if (strcmp(res->phase, "all") || is_part(res->probe))
			continue;
		if (res->unknown & REPORT_UNKNOWN_MISSED)
			row->missed_known = false;
		else
			row->missed += res->missed;
		if (!res->count)
			continue;
		struct fleet_cpu *c = cpu_slot(row, res->cpu);
		bool pct = !(res->unknown & REPORT_UNKNOWN_PCT) && p < REPORT_NPCT;
		if (res->max > c->max_ns)
			c->max_ns = res->max;
		if (pct && (!c->p999_known || res->pct[p] > c->p999_ns)) {
			c->p999_ns = res->pct[p];
			c->p999_known = true;
		}
		/* Ties go to the first in the report: the same as the HTML headline. */
		if (!*worst || res->max > (*worst)->max)
			*worst = res;
	}
}

/* The phase of the worst: the per-phase result of the same probe and CPU
 * with the largest max (the first of equal ones); "all" without phases. */
static const char *phase_of(const struct report *r, const struct report_result *w)
{
	const struct report_result *best = NULL;

	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *res = &r->results[i];
		if (res->cpu != w->cpu || !strcmp(res->phase, "all") ||
		    strcmp(res->probe, w->probe) || !res->count)
			continue;
		if (!best || res->max > best->max)
			best = res;
	}
	return best ? best->phase : w->phase;
}

int fleet_add(struct fleet *f, const struct report *r, const char *file)
{
	struct fleet_row *row;
	const struct report_result *worst = NULL;
	size_t ncpu = 0;
	int rc;

	if (util_grow(&f->rows, f->nrows, sizeof(*f->rows)))
		return -ENOMEM;
	row = &f->rows[f->nrows];
	memset(row, 0, sizeof(*row));
	row->order = f->nrows++; /* freed with the fleet whatever fails below */
	row->duration_ns = r->duration_ns;
	row->status = r->status;
	for (size_t i = 0; i < r->nresults; i++)
		ncpu += !strcmp(r->results[i].phase, "all");
	if (!(row->cpus = calloc(ncpu + 1, sizeof(*row->cpus))))
		return -ENOMEM;
	if ((rc = dup_or_null(&row->file, file)) ||
	    (rc = dup_or_null(&row->host, jstr(r->system, "hostname", NULL))) ||
	    (rc = dup_or_null(&row->host_id, jstr(r->system, "machine", "machine_id_sha256"))) ||
	    (rc = dup_or_null(&row->tool, r->tool_name)) ||
	    (rc = dup_or_null(&row->kernel, jstr(r->system, "kernel", "release"))) ||
	    (rc = preempt_of(row, r->system)) || (rc = checks_of(row, r->checks)))
		return rc;
	results_of(row, r, &worst);
	if (!worst)
		return 0;
	row->has_worst = true;
	row->cpu = worst->cpu;
	row->max_ns = worst->max;
	row->p999_known =
	    !(worst->unknown & REPORT_UNKNOWN_PCT) && fleet_p999_index() < REPORT_NPCT;
	row->p999_ns = row->p999_known ? worst->pct[fleet_p999_index()] : 0;
	if ((rc = dup_or_null(&row->probe, worst->probe)) ||
	    (rc = dup_or_null(&row->phase, phase_of(r, worst))))
		return rc;
	return 0;
}

static int row_cmp(const void *x, const void *y)
{
	const struct fleet_row *a = x, *b = y;
	int c;

	if (a->has_worst != b->has_worst)
		return a->has_worst ? -1 : 1;
	if (a->has_worst && a->max_ns != b->max_ns)
		return a->max_ns > b->max_ns ? -1 : 1;
	if ((c = strcmp(a->file, b->file)))
		return c;
	return (a->order > b->order) - (a->order < b->order);
}

void fleet_sort(struct fleet *f)
{
	/* qsort is not stable: the last key (order) makes every pair differ. */
	qsort(f->rows, f->nrows, sizeof(*f->rows), row_cmp);
}

static int str_sort(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Rows that record both, by hostname: a report without a machine id
 * (older, or imported) is of the host whose hostname it shares. */
static int named_sort(const void *x, const void *y)
{
	const struct fleet_row *a = *(const struct fleet_row *const *)x,
			       *b = *(const struct fleet_row *const *)y;

	return strcmp(a->host, b->host);
}

static const char *id_of_host(const struct fleet_row **named, size_t n, const char *host)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(named[mid]->host, host) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(named[lo]->host, host) ? named[lo]->host_id : NULL;
}

void fleet_hosts(const struct fleet *f, size_t *hosts, size_t *unknown)
{
	const char **key = malloc((f->nrows + 1) * sizeof(*key));
	const struct fleet_row **named = malloc((f->nrows + 1) * sizeof(*named));
	size_t n = 0, nnamed = 0;

	*hosts = *unknown = 0;
	if (!key || !named) { /* out of memory: every row its own host, an upper bound */
		for (size_t i = 0; i < f->nrows; i++)
			*unknown += !f->rows[i].host_id && !f->rows[i].host;
		*hosts = f->nrows - *unknown;
		free(key);
		free(named);
		return;
	}
	for (size_t i = 0; i < f->nrows; i++)
		if (f->rows[i].host && f->rows[i].host_id)
			named[nnamed++] = &f->rows[i];
	qsort(named, nnamed, sizeof(*named), named_sort);
	for (size_t i = 0; i < f->nrows; i++) {
		const struct fleet_row *row = &f->rows[i];
		const char *k = row->host_id;
		if (!k && row->host && !(k = id_of_host(named, nnamed, row->host)))
			k = row->host;
		if (k)
			key[n++] = k;
		else
			++*unknown;
	}
	/* A machine id is 64 hex digits and a hostname of that shape is
	 * implausible: one key space is enough. */
	qsort(key, n, sizeof(*key), str_sort);
	for (size_t i = 0; i < n; i++)
		*hosts += !i || strcmp(key[i], key[i - 1]);
	free(key);
	free(named);
}

void fleet_free(struct fleet *f)
{
	for (size_t i = 0; i < f->nrows; i++) {
		struct fleet_row *row = &f->rows[i];
		free(row->file);
		free(row->host);
		free(row->host_id);
		free(row->tool);
		free(row->kernel);
		free(row->preempt);
		free(row->href);
		free(row->probe);
		free(row->phase);
		for (size_t k = 0; k < row->nchecks; k++)
			free(row->checks[k]);
		free(row->checks);
		free(row->cpus);
	}
	free(f->rows);
	f->rows = NULL;
	f->nrows = 0;
}
