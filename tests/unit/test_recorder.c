// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the recorder: exact statistics, top-K, merge. */
#include <config.h>

#include <stdlib.h>

#include "recorder.h"
#include "tap.h"

int main(void)
{
	struct recorder *r = recorder_alloc(4, -1), *o = recorder_alloc(4, -1);
	struct recorder_sample top[8];
	const uint64_t data[] = { 10, 20, 30, 40, 1000, 5, 50, 999 };

	tap_plan(13);
	ok(r && o && ((uintptr_t)r % 64) == 0, "recorder_alloc_is_cache_line_aligned");
	ok(r->count == 0 && r->top_n == 0, "recorder_starts_empty");
	for (unsigned i = 0; i < 8; i++)
		recorder_add(r, data[i], 100 * (i + 1));
	ok(r->count == 8 && r->min == 5 && r->max == 1000 && r->max_at == 500,
	   "recorder_min_max_and_time_of_max_are_exact");
	ok(r->sum == 2154 && recorder_mean(r) == 269, "recorder_mean_of_known_data");
	/* population stddev (python3 statistics.pstdev): 421.835... -> 422 */
	ok(recorder_stddev(r) == 422, "recorder_stddev_of_known_data (got %llu)",
	   (unsigned long long)recorder_stddev(r));
	unsigned n = recorder_top_sorted(r, top);
	ok(n == 4 && top[0].latency_ns == 1000 && top[1].latency_ns == 999 &&
	       top[2].latency_ns == 50 && top[3].latency_ns == 40 && top[0].t_ns == 500,
	   "recorder_top_k_keeps_the_k_largest_with_times");
	recorder_add_missed(r, 3);
	ok(r->missed == 3, "recorder_counts_missed");

	/* A discarded sample (warm-up, settle) is in no statistic. */
	uint64_t seq = r->seq;
	recorder_add_discarded(r, 1);
	recorder_add_discarded(r, 2); /* a sample and the deadline it missed */
	ok(r->discarded == 3 && r->count == 8 && r->max == 1000 && r->sum == 2154 &&
	       r->seq == seq + 4,
	   "recorder_discarded_counts_outside_the_statistics_under_the_sequence");

	recorder_add(o, 2000, 7);
	recorder_add(o, 1, 8);
	recorder_add_discarded(o, 1);
	recorder_merge(r, o);
	ok(r->discarded == 4, "recorder_merge_sums_discarded");
	n = recorder_top_sorted(r, top);
	ok(r->count == 10 && r->min == 1 && r->max == 2000 && r->max_at == 7,
	   "recorder_merge_combines_extremes");
	ok(n == 4 && top[0].latency_ns == 2000 && top[3].latency_ns == 50,
	   "recorder_merge_keeps_k_largest_of_both");
	ok(histogram_total(&r->hist) == r->count, "recorder_histogram_total_equals_count");

	struct recorder *z = recorder_alloc(0, -1);
	recorder_add(z, UINT64_MAX / 2, 1);
	ok(z->top_n == 0 && z->max == UINT64_MAX / 2 && z->hist.bucket[HISTOGRAM_OVERFLOW] == 1,
	   "recorder_top_zero_and_overflow_keep_exact_max");
	recorder_free(r);
	recorder_free(o);
	recorder_free(z);
	return tap_done();
}
