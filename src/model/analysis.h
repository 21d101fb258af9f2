/* analysis: what the time series and spike logs say about a run, derived
 * from the report model alone (so `rtsoak report` can show it for any file
 * and a checkpoint carries it too).
 *
 *  - periodicity: per series, recurring spikes (periodicity.h) found in
 *    the spike log, or in the intervals that held spikes when the log is
 *    incomplete;
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

/* The "analysis" object, or NULL on ENOMEM. */
json_t *analysis_build(const struct report *r);

#endif
