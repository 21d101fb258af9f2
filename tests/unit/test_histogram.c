// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the log-linear histogram. */
#include <config.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "tap.h"

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void) /* xorshift64: deterministic, no libc state */
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void histogram_relative_error_below_1pct(void)
{
	/* Every value from 1 ns to 60 s (sampled densely per octave) must fall
	 * in a bucket whose bounds contain it and whose width is < 1 % of its
	 * lower bound. */
	int bad = 0;
	uint64_t worst_v = 0;
	for (unsigned m = 0; m < 36 && !bad; m++)
		for (unsigned k = 0; k < 2000; k++) {
			uint64_t lo = (uint64_t)1 << m, v = lo + rnd() % lo;
			if (k == 0)
				v = lo;
			if (k == 1)
				v = 2 * lo - 1;
			unsigned i = histogram_index(v);
			uint64_t l = histogram_lower(i), u = histogram_upper(i);
			if (v < l || v >= u || (u - l - 1) * 100 > l) {
				bad = 1;
				worst_v = v;
				break;
			}
		}
	ok(!bad, "histogram_relative_error_below_1pct (1 ns .. 2^36 ns)%s", bad ? " FAILED" : "");
	if (bad)
		diag("value %llu", (unsigned long long)worst_v);
	ok(histogram_index(60000000000ull) < HISTOGRAM_OVERFLOW, "histogram_60s_is_not_overflow");
}

static void histogram_edge_values(void)
{
	ok(histogram_index(0) == 0 && histogram_lower(0) == 0 && histogram_upper(0) == 1,
	   "histogram_zero_has_its_own_bucket");
	ok(histogram_index(1) == 1 && histogram_upper(1) == 2, "histogram_one_is_exact");
	ok(histogram_index(127) == 127 && histogram_index(128) == 128 &&
	       histogram_lower(128) == 128,
	   "histogram_exact_range_joins_log_range");
	ok(histogram_index(HISTOGRAM_MAX_TRACKABLE - 1) == HISTOGRAM_OVERFLOW - 1,
	   "histogram_last_regular_bucket");
	ok(histogram_index(HISTOGRAM_MAX_TRACKABLE) == HISTOGRAM_OVERFLOW &&
	       histogram_index(UINT64_MAX) == HISTOGRAM_OVERFLOW,
	   "histogram_top_values_clamp_to_overflow");
	/* Buckets tile the range with no gap or overlap. */
	int tiles = 1;
	for (unsigned i = 0; i + 1 < HISTOGRAM_OVERFLOW; i++)
		if (histogram_upper(i) != histogram_lower(i + 1) ||
		    histogram_index(histogram_lower(i)) != i)
			tiles = 0;
	ok(tiles, "histogram_buckets_tile_the_range");
}

static void histogram_merge_adds_counts(void)
{
	struct histogram *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	for (uint64_t v = 0; v < 100000; v += 7) {
		histogram_add(a, v);
		histogram_add(b, v * 3);
	}
	uint64_t na = histogram_total(a), nb = histogram_total(b);
	struct histogram *c = calloc(1, sizeof(*c));
	*c = *a;
	histogram_merge(c, b);
	int same = histogram_total(c) == na + nb;
	for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++)
		if (c->bucket[i] != a->bucket[i] + b->bucket[i])
			same = 0;
	ok(same, "histogram_merge_adds_counts");
	free(a);
	free(b);
	free(c);
}

static void histogram_percentiles_match_sorted_reference(void)
{
	const size_t n = 200000;
	uint64_t *v = malloc(n * sizeof(*v));
	struct histogram *h = calloc(1, sizeof(*h));
	const double ps[] = { 1, 50, 90, 99, 99.9, 99.99, 99.999, 100 };
	uint64_t min = UINT64_MAX, max = 0;
	int good = 1;

	/* Log-uniform from ~50 ns to ~10 ms: like real latency tails. */
	for (size_t i = 0; i < n; i++) {
		unsigned shift = 6 + (unsigned)(rnd() % 18);
		v[i] = ((uint64_t)1 << shift) + rnd() % ((uint64_t)1 << shift);
		histogram_add(h, v[i]);
		if (v[i] < min)
			min = v[i];
		if (v[i] > max)
			max = v[i];
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		size_t rank = (size_t)__builtin_ceil(ps[k] / 100.0 * (double)n);
		uint64_t ref = v[(rank ? rank : 1) - 1];
		uint64_t got = histogram_percentile(h, ps[k], min, max);
		double err = got > ref ? (double)(got - ref) : (double)(ref - got);
		if (err > ref * 0.01 + 1) {
			good = 0;
			diag("p%g: histogram %llu, reference %llu", ps[k], (unsigned long long)got,
			     (unsigned long long)ref);
		}
	}
	ok(good, "histogram_percentiles_within_1pct_of_sorted_reference");
	ok(histogram_percentile(h, 100, min, max) == max, "histogram_p100_is_exact_max");
	histogram_reset(h);
	ok(histogram_percentile(h, 50, 0, 0) == 0 && histogram_total(h) == 0,
	   "histogram_empty_percentile_is_zero");
	histogram_add(h, 12345);
	ok(histogram_percentile(h, 99.999, 12345, 12345) == 12345,
	   "histogram_single_sample_percentile_is_exact");
	free(v);
	free(h);
}

/* The report model's sparse form gives what the dense one gives: the same
 * buckets, total, percentiles and rank bounds, and densifies back. */
static void histogram_sparse_matches_dense(void)
{
	struct histogram *h = calloc(1, sizeof(*h)), *back = calloc(1, sizeof(*back));
	uint64_t min = UINT64_MAX, max = 0;
	bool same = true;

	for (int i = 0; i < 200000; i++) {
		uint64_t v = rnd() % 5 ? 20000 + rnd() % 30000 : rnd() % (1ull << 38);
		histogram_add(h, v);
		min = v < min ? v : min;
		max = v > max ? v : max;
	}
	struct histogram_sparse *s = histogram_sparse_from(h);
	ok(s && s->total == histogram_total(h), "histogram_sparse_total_is_the_dense_total");
	for (size_t k = 1; s && k < s->n; k++)
		same &= s->e[k - 1].index < s->e[k].index && s->e[k].count > 0;
	ok(s && same, "histogram_sparse_entries_ascend_and_are_non_empty");
	same = s != NULL;
	for (double p = 0.5; s && p <= 100; p += 0.731)
		same &= histogram_sparse_percentile(s, p, min, max) ==
			histogram_percentile(h, p, min, max);
	for (uint64_t rank = 1; s && rank <= s->total; rank += 997) {
		uint64_t a, b, c, d;
		histogram_rank_bounds(h, rank, min, max, &a, &b);
		histogram_sparse_rank_bounds(s, rank, min, max, &c, &d);
		same &= a == c && b == d;
	}
	ok(same, "histogram_sparse_percentiles_and_rank_bounds_equal_dense");
	if (s)
		histogram_sparse_add_to(s, back);
	ok(s && !memcmp(h, back, sizeof(*h)), "histogram_sparse_densifies_back_exactly");
	free(s);
	free(h);
	free(back);
}

int main(void)
{
	tap_plan(17);
	histogram_relative_error_below_1pct();
	histogram_edge_values();
	histogram_merge_adds_counts();
	histogram_percentiles_match_sorted_reference();
	histogram_sparse_matches_dense();
	return tap_done();
}
