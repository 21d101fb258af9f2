/* SPDX-License-Identifier: GPL-2.0-or-later */
/* periodicity: find recurring spikes in a list of event times.
 *
 * A soak run logs its spikes (samples above a threshold) with their times;
 * a daemon whose housekeeping runs every 20 s shows up as spikes on a 20 s
 * grid, usually mixed with unrelated ones and missing on some cycles.
 * periodicity_find() reports each such grid with its jitter, the share of
 * the spikes it explains and its phase, or nothing when the times are
 * compatible with chance. */
#ifndef RTSOAK_PERIODICITY_H
#define RTSOAK_PERIODICITY_H

#include <stddef.h>

/* A pattern is reported when, under the null hypothesis "events at random
 * times", the chance of seeing a grid at least this good anywhere in the
 * searched periods, phases and window widths is below 10^this. */
#define PERIODICITY_LOG10_P_MAX (-3.0)
/* ... and when it matches at least this many events ... */
#define PERIODICITY_MIN_MATCHED 4
/* ... spread over at least this many distinct cycles: one burst is not a
 * period. */
#define PERIODICITY_MIN_CYCLES 3
/* Shortest period searched: this, or PERIODICITY_MIN_PERIOD_RES times the
 * resolution when that is longer (a period must span at least two time
 * steps to be seen), or span / PERIODICITY_MAX_CYCLES for very long runs
 * (bounds the work and memory per period). */
#define PERIODICITY_MIN_PERIOD_S 0.05
#define PERIODICITY_MIN_PERIOD_RES 2.0
#define PERIODICITY_MAX_CYCLES 1000000.0
/* Longest period searched, as a fraction of the span: at least three cycles
 * are needed to tell a period from a coincidence. */
#define PERIODICITY_MAX_PERIOD_FRAC (1.0 / 3.0)
/* Window half-widths tried around each grid point: from the larger of half
 * the resolution and PERIODICITY_WIDTH_MIN_REL * period, doubling (steps of
 * sqrt(2) below 1.5 resolutions) up to PERIODICITY_WIDTH_MAX_REL * period
 * (or one resolution), at most a quarter period.  Tight windows make exact
 * timers stand out, wide ones catch sloppy timers (timer slack, rounded
 * expiries). */
#define PERIODICITY_WIDTH_MIN_REL 0.001
#define PERIODICITY_WIDTH_MAX_REL 0.04
/* Candidate periods tried per pattern found (plus their sub-multiples):
 * bounds the work per call. */
#define PERIODICITY_CANDIDATES 32

struct periodicity_pattern {
	double period_s;  /* refined period (least-squares fit of the matched events) */
	double jitter_s;  /* RMS deviation of the matched events from the fitted grid */
	double phase_s;	  /* in [0, period_s): grid points at phase_s + k * period_s */
	double explained; /* matched / n: fraction of all input events this pattern explains */
	unsigned matched; /* events within the window of a grid point */
	/* cycles observed: the most grid points a window-wide band around
	 * [0, span_s] can hold, i.e. whole periods in the span + 1 */
	unsigned cycles;
	unsigned cycles_hit; /* distinct cycles holding at least one matched event */
	/* significance after correction for the search, <= 0, below
	 * PERIODICITY_LOG10_P_MAX (more negative = stronger) */
	double log10_p;
	/* The window half-width of the grid: event t is one of the pattern's
	 * when |t - phase_s - k * period_s| <= halfwidth_s for the nearest grid
	 * point k, and no pattern found before it took t (the search removes a
	 * pattern's events before it looks for the next). */
	double halfwidth_s;
};

/* Find recurring events.
 *
 * t: event times in seconds since the run start, in any order; not
 * modified (the function sorts a copy).  n events, observed over
 * [0, span_s]; events outside that interval are ignored by the search but
 * count in n for `explained`.  resolution_s (>= 0): the timing precision
 * of the events, e.g. the interval length when the times are interval
 * midpoints of a time series; it widens the windows and the shortest
 * period searched.
 *
 * Finds up to max_out patterns, strongest first; after accepting a pattern,
 * its matched events are removed and the search repeats on the rest.
 *
 * Returns the number of patterns written to out (0: no periodic pattern,
 * also for n < 2 or max_out == 0), -EINVAL when span_s is not a positive
 * finite number, resolution_s is negative or not finite, a time is not
 * finite, or t (n > 0) or out (max_out > 0) is NULL; -ENOMEM.  The result
 * depends only on the arguments (no random state), and every field written
 * is finite. */
int periodicity_find(const double *t, size_t n, double span_s, double resolution_s,
		     struct periodicity_pattern *out, unsigned max_out);

#endif
