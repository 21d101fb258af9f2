/* SPDX-License-Identifier: GPL-2.0-or-later */
/* analysis: what the time series and spike logs say about a run, derived
 * from the report model alone (so `rtsoak report` can show it for any file
 * and a checkpoint carries it too).
 *
 *  - periodicity: per series, recurring spikes (periodicity.h) found in
 *    the spike log, or in the intervals that held spikes when the log is
 *    incomplete, each with its culprit when the run was traced;
 *  - worst_intervals: the series intervals with the largest maxima;
 *  - top_spikes: the largest samples, each with the interval it fell in
 *    and its phase (whose system deltas are in phases[]; the system is not
 *    sampled per interval). */
#ifndef RTSOAK_ANALYSIS_H
#define RTSOAK_ANALYSIS_H

#include <jansson.h>

#include "report.h"

#define ANALYSIS_WORST_INTERVALS 10
#define ANALYSIS_TOP_SPIKES 10
#define ANALYSIS_MAX_PATTERNS 3

/* The "analysis" object, or NULL on ENOMEM.  With r->attribution, each
 * periodic pattern of a series with an attribution entry for phase "all"
 * carries its culprit (analysis.c, culprit_json: the rule). */
json_t *analysis_build(const struct report *r);

/* For a file read back: the culprits a report with attribution but without
 * them in its analysis lacks (an attribution section added later, or a run
 * that stored the analysis first), computed as analysis_build() does when
 * this build finds the same patterns as the file holds.  0 or -ENOMEM. */
int analysis_add_culprits(struct report *r) __attribute__((warn_unused_result));

#endif
