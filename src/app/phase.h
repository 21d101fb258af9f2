/* SPDX-License-Identifier: GPL-2.0-or-later */
/* phase: which loads run when, and what the system did meanwhile.
 *
 * `--schedule together` has one phase, "all", with every load.  `rotate`
 * has "idle" (no load), then one phase per load named by its spec, cycled
 * every --phase-duration.  `rtsoak ab` has one phase per round, "A1",
 * "B1", "B2", "A2", ..., with every load in each.  The probes read `current` once per sample and
 * record into that phase's recorder, so a single run answers "which load
 * hurts which CPU".  A boundary is taken when the supervisor has stopped
 * the old phase's workers and forked the new one's; it is timestamped on
 * the probes' clock (ns since the run's start). */
#ifndef RTSOAK_PHASE_H
#define RTSOAK_PHASE_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "cli.h"
#include "probe.h"

struct phase_plan {
	unsigned n;
	char name[PROBE_MAX_PHASES][280];
	uint32_t mask[PROBE_MAX_PHASES]; /* bit i: load instance i runs */
	bool rotate;
	uint64_t phase_ns;
	/* live state, housekeeping thread only (except `current`) */
	unsigned current; /* read by the probes */
	bool open;
	uint64_t cur_start;
	uint64_t time_ns[PROBE_MAX_PHASES];
	json_t *occurrences[PROBE_MAX_PHASES]; /* [[start_ns, end_ns], ...] */
	json_t *sys_acc[PROBE_MAX_PHASES];
	json_t *sys_last;
	bool lost; /* an occurrence could not be kept (out of memory): phase_report fails */
};

void phase_plan_init(struct phase_plan *p, const struct run_config *cfg);
/* rtsoak ab: 'A' or 'B' for the round phase idx ("A1", "B2", ...). */
char phase_ab_arm(const struct phase_plan *p, unsigned idx);
/* Enter phase idx at t_ns (since start): snapshot the system counters. */
void phase_begin(struct phase_plan *p, unsigned idx, uint64_t t_ns);
/* Leave the current phase at t_ns: close its occurrence, sum the deltas. */
void phase_end(struct phase_plan *p, uint64_t t_ns);
/* phase_end + phase_begin(next) at t_ns, with the probes' attribution moved
 * to `next` before anything slow (the system counters) is read. */
void phase_switch(struct phase_plan *p, unsigned next, uint64_t t_ns);
/* The phase whose occurrence holds t_ns (since start): the current one
 * from its start on, else a closed occurrence; the current one if none. */
unsigned phase_at(const struct phase_plan *p, uint64_t t_ns);
/* now_ns for a report at the end, when no phase is open any more. */
#define PHASE_CLOSED UINT64_MAX
/* How long load instance i was scheduled to run, by now_ns (since start: a
 * live report counts the open occurrence up to it; PHASE_CLOSED: none). */
uint64_t phase_load_active_ns(const struct phase_plan *p, unsigned i, uint64_t now_ns);
/* The report's "phases" array as of now_ns (the open occurrence up to it). */
json_t *phase_report(const struct phase_plan *p, const struct run_config *cfg, uint64_t now_ns);
/* After phase_end: the first phase from `from` on that never ran (no occurrence: the run
 * ended before its turn), its name in `name`; -1 when every one ran. */
int phase_never_ran(const struct phase_plan *p, unsigned from, char *name, size_t len);
void phase_plan_free(struct phase_plan *p);

#endif
