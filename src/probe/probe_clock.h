/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe_clock: the clock reads the probes share.  Inline ones for the hot
 * path; the CLOCK_REALTIME offset that turns the kernel's software receive
 * timestamps (SO_TIMESTAMPNS: CLOCK_REALTIME) into the probes' clock. */
#ifndef RTSOAK_PROBE_CLOCK_H
#define RTSOAK_PROBE_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "util.h"

static inline uint64_t probe_ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

static inline uint64_t probe_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return probe_ts_ns(&ts);
}

/* REALTIME - MONOTONIC from the back-to-back (MONOTONIC, REALTIME,
 * MONOTONIC) reads with the smallest gap of ten, i.e. the least disturbed
 * by an interrupt or preemption between them; *gap_ns is that gap (the
 * offset's error is at most half of it).  Not for the hot path: 30 reads. */
int64_t probe_clock_offset(uint64_t *gap_ns);

#endif
