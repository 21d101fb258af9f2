/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fleet: the overview of many reports (`rtsoak report A.json B.json ...`),
 * one row per report, built from the model of each (report.h).
 *
 * A row keeps only what the views show: the host, the kernel, the run's
 * state, its worst latency and where, and per CPU the worst max and p99.9
 * for the heat map.  The caller reads a report, adds its row and frees the
 * report before reading the next, so a fleet of 2-hour reports costs one
 * report plus a few numbers per report (docs/BENCHMARKS.md, bench/fleet.sh). */
#ifndef RTSOAK_FLEET_H
#define RTSOAK_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

#define FLEET_SCHEMA "rtsoak-fleet/1" /* docs/fleet-schema.json */

/* One CPU of a report: over the whole-run ("all") primary results on it,
 * the largest max and the largest p99.9 (each the worst of its own). */
struct fleet_cpu {
	int cpu;
	uint64_t max_ns, p999_ns;
	bool p999_known; /* false: no result on it recorded percentiles */
};

struct fleet_row {
	char *file;    /* as given */
	char *host;    /* system.hostname; NULL: not recorded */
	char *host_id; /* system.machine.machine_id_sha256; NULL: not recorded */
	char *tool;    /* NULL: rtsoak; else the importer's ("cyclictest") */
	char *kernel;  /* system.kernel.release; NULL: not recorded */
	char *preempt; /* "rt", "dynamic/full" (model/active when they differ); NULL */
	char *href;    /* the report's own page, relative to the fleet page; NULL: none */
	uint64_t duration_ns;
	enum report_status status;
	/* The worst latency: the largest max of the primary per-CPU results of
	 * phase "all" (fleet.c says which are primary), its probe and CPU, and
	 * the phase whose per-phase result holds it ("all" without phases). */
	bool has_worst; /* false: no primary result has a sample */
	char *probe, *phase;
	int cpu;
	uint64_t max_ns, p999_ns; /* p99.9 of the same per-CPU "all" result */
	bool p999_known;
	uint64_t missed; /* summed over the primary per-CPU "all" results */
	bool missed_known;
	/* Ids of the checks whose status is warn or fail, in report order;
	 * checks_known false: the report has no checks section. */
	char **checks;
	size_t nchecks;
	bool checks_known;
	struct fleet_cpu *cpus; /* ascending by cpu */
	size_t ncpus;
	size_t order; /* position on the command line: the last tie-break */
};

struct fleet {
	struct fleet_row *rows;
	size_t nrows;
};

/* The row of report r read from file; it copies what it keeps, so r may be
 * freed right after.  0 or -ENOMEM. */
int fleet_add(struct fleet *f, const struct report *r, const char *file)
    __attribute__((warn_unused_result));
/* Worst first: by the worst latency, rows without samples last, then by
 * file name, then by command-line position (a file given twice). */
void fleet_sort(struct fleet *f);
/* How many distinct hosts the rows name (by machine id where recorded,
 * else by hostname) and how many rows name none. */
void fleet_hosts(const struct fleet *f, size_t *hosts, size_t *unknown);
/* The index of 99.9 in report_pct (REPORT_NPCT: none). */
unsigned fleet_p999_index(void);
void fleet_free(struct fleet *f);

#endif
