/* SPDX-License-Identifier: GPL-2.0-or-later */
/* attrib_agg: the causes of one series' spikes (one probe result on one CPU
 * in one phase, or in all of them), gathered during the run on the
 * housekeeping thread and written as one entry of the report's
 * attribution.series (docs/report-schema.json):
 *   causes        each cause with the spikes it dominated and its share of
 *                 the excess latency (latency - threshold), largest first,
 *                 and where the timer IRQ came in for its spikes (irq_at);
 *   spike_causes  [t_ns, cause index] of every attributed spike, so that the
 *                 views and the periodicity culprit need only the file;
 *   top           the worst spikes with their split, verdict, contributors;
 *   not_attributed, by reason. */
#ifndef RTSOAK_ATTRIB_AGG_H
#define RTSOAK_ATTRIB_AGG_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "attrib.h"

#define ATTRIB_AGG_TOP 16
/* Functions whose count a cause keeps (irq_at): a kernel has a few places
 * that hold IRQs off long, and a 24-hour soak must not grow the table
 * with every rare one. */
#define ATTRIB_AGG_IRQ_AT 8

/* One function a cause's timer IRQs came in (attrib_result.irq_at). */
struct attrib_agg_at {
	char fn[TEV_NAME_LEN];
	uint64_t spikes;
};

struct attrib_agg_cause {
	char key[ATTRIB_CAUSE_LEN];
	enum attrib_kind kind;
	uint64_t spikes, excess_ns;
	/* The spikes of this cause with a kernel function for irq_at (not
	 * "", "user" or "?", as the verdict): the first ATTRIB_AGG_IRQ_AT
	 * distinct functions counted exactly, the spikes of any later one in
	 * at_other, so that listed + at_other is every spike with one. */
	struct attrib_agg_at at[ATTRIB_AGG_IRQ_AT];
	unsigned nat;
	uint64_t at_other;
};

struct attrib_agg_top {
	uint64_t t_ns, latency_ns;
	struct attrib_result res;
};

struct attrib_agg {
	uint64_t spikes, attributed, lost, no_events, no_anchor;
	struct attrib_agg_cause *cause;
	size_t ncause, cause_cap;
	uint64_t (*spike_causes)[2];
	size_t nsc, sc_cap;
	struct attrib_agg_top top[ATTRIB_AGG_TOP];
	unsigned ntop;
};

/* One spike: at t_ns since the run's start, latency_ns against threshold_ns,
 * with its analysis.  0 or -ENOMEM (then the spike is counted, not kept). */
int attrib_agg_add(struct attrib_agg *a, uint64_t t_ns, uint64_t latency_ns, uint64_t threshold_ns,
		   const struct attrib_result *res);
/* Whether a spike of latency_ns, attributed, would be kept among the
 * worst (top): the caller adds what only those carry (the other CPUs'
 * run queues, attrib_result.cpus) before attrib_agg_add, and spares the
 * work for the rest. */
bool attrib_agg_keeps(const struct attrib_agg *a, uint64_t latency_ns);
/* The series entry; NULL on ENOMEM. */
json_t *attrib_agg_json(const struct attrib_agg *a, const char *probe, int cpu, const char *phase,
			uint64_t threshold_ns);
void attrib_agg_free(struct attrib_agg *a);

#endif
