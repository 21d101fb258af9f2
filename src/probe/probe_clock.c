// SPDX-License-Identifier: GPL-2.0-or-later
/* probe_clock: see probe_clock.h. */
#include <config.h>

#include "probe_clock.h"

#define PROBE_CLOCK_READS 10

int64_t probe_clock_offset(uint64_t *gap_ns)
{
	int64_t best = 0;
	uint64_t best_gap = UINT64_MAX;

	for (int i = 0; i < PROBE_CLOCK_READS; i++) {
		struct timespec a, r, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &b);
		uint64_t gap = probe_ts_ns(&b) - probe_ts_ns(&a);
		if (gap < best_gap) {
			best_gap = gap;
			best = (int64_t)probe_ts_ns(&r) - (int64_t)(probe_ts_ns(&a) + gap / 2);
		}
	}
	*gap_ns = best_gap;
	return best;
}
