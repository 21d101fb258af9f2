// SPDX-License-Identifier: GPL-2.0-or-later
/* histogram: bucket bounds, merge and percentiles.  The hot-path part
 * (index, add) is inline in histogram.h. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"

uint64_t histogram_lower(unsigned i)
{
	if (i < HISTOGRAM_SUB_COUNT)
		return i;
	if (i >= HISTOGRAM_OVERFLOW)
		return HISTOGRAM_MAX_TRACKABLE;
	unsigned shift = (i - HISTOGRAM_SUB_COUNT) / HISTOGRAM_SUB_COUNT;
	unsigned sub = (i - HISTOGRAM_SUB_COUNT) % HISTOGRAM_SUB_COUNT;
	return ((uint64_t)HISTOGRAM_SUB_COUNT + sub) << shift;
}

uint64_t histogram_upper(unsigned i)
{
	if (i >= HISTOGRAM_OVERFLOW)
		return UINT64_MAX;
	return histogram_lower(i + 1);
}

void histogram_reset(struct histogram *h)
{
	memset(h, 0, sizeof(*h));
}

void histogram_merge(struct histogram *dst, const struct histogram *src)
{
	for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

uint64_t histogram_total(const struct histogram *h)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++)
		n += h->bucket[i];
	return n;
}

/* The nearest rank of percentile p among n > 0 samples, computed in long
 * double so that p99.999 of 10^12 samples still rounds the right way. */
static uint64_t nearest_rank(double p, uint64_t n)
{
	long double r = ceill((long double)p / 100.0L * (long double)n);

	return r < 1 ? 1 : (r > (long double)n ? n : (uint64_t)r);
}

/* The estimate for a sample in bucket i: its midpoint, clamped to [min, max]. */
static uint64_t bucket_estimate(unsigned i, uint64_t min, uint64_t max)
{
	uint64_t lo = histogram_lower(i), v;

	if (i >= HISTOGRAM_OVERFLOW)
		v = max;
	else
		v = lo + (histogram_upper(i) - lo - 1) / 2;
	if (v < min)
		v = min;
	if (v > max)
		v = max;
	return v;
}

/* Where a sample of bucket i lies for certain, within [min, max]. */
static void bucket_bounds(unsigned i, uint64_t min, uint64_t max, uint64_t *lo, uint64_t *hi)
{
	*lo = min;
	*hi = max;
	if (histogram_lower(i) > min)
		*lo = histogram_lower(i);
	if (i < HISTOGRAM_OVERFLOW && histogram_upper(i) - 1 < max)
		*hi = histogram_upper(i) - 1;
}

/* The bucket holding the sample of rank `rank` (1 <= rank <= total). */
static unsigned dense_rank_bucket(const struct histogram *h, uint64_t rank)
{
	uint64_t seen = 0;

	for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			return i;
	}
	return HISTOGRAM_OVERFLOW; /* not reached: seen == n >= rank */
}

static unsigned sparse_rank_bucket(const struct histogram_sparse *s, uint64_t rank)
{
	uint64_t seen = 0;

	for (size_t k = 0; k < s->n; k++) {
		seen += s->e[k].count;
		if (seen >= rank)
			return s->e[k].index;
	}
	return HISTOGRAM_OVERFLOW; /* not reached: seen == n >= rank */
}

/* The nearest rank of p among n samples in *rank, or, when no bucket
 * estimate is needed, the answer in *v: 0 when empty, and the extreme ranks
 * are known exactly (min, max). */
static bool percentile_exact(uint64_t n, double p, uint64_t min, uint64_t max, uint64_t *rank,
			     uint64_t *v)
{
	if (n == 0) {
		*v = 0;
		return true;
	}
	*rank = nearest_rank(p, n);
	*v = *rank == n ? max : min;
	return *rank == n || *rank == 1;
}

uint64_t histogram_percentile(const struct histogram *h, double p, uint64_t min, uint64_t max)
{
	uint64_t rank, v;

	if (percentile_exact(histogram_total(h), p, min, max, &rank, &v))
		return v;
	return bucket_estimate(dense_rank_bucket(h, rank), min, max);
}

uint64_t histogram_sparse_percentile(const struct histogram_sparse *s, double p, uint64_t min,
				     uint64_t max)
{
	uint64_t rank, v;

	if (percentile_exact(s->total, p, min, max, &rank, &v))
		return v;
	return bucket_estimate(sparse_rank_bucket(s, rank), min, max);
}

/* The extreme ranks, and an empty histogram: true when *lo, *hi are set. */
static bool rank_extreme(uint64_t n, uint64_t rank, uint64_t min, uint64_t max, uint64_t *lo,
			 uint64_t *hi)
{
	*lo = min;
	*hi = max;
	if (n == 0 || rank <= 1 || rank >= n) {
		if (rank >= n)
			*lo = max;
		else
			*hi = min;
		return true;
	}
	return false;
}

void histogram_rank_bounds(const struct histogram *h, uint64_t rank, uint64_t min, uint64_t max,
			   uint64_t *lo, uint64_t *hi)
{
	if (!rank_extreme(histogram_total(h), rank, min, max, lo, hi))
		bucket_bounds(dense_rank_bucket(h, rank), min, max, lo, hi);
}

void histogram_sparse_rank_bounds(const struct histogram_sparse *s, uint64_t rank, uint64_t min,
				  uint64_t max, uint64_t *lo, uint64_t *hi)
{
	if (!rank_extreme(s->total, rank, min, max, lo, hi))
		bucket_bounds(sparse_rank_bucket(s, rank), min, max, lo, hi);
}

struct histogram_sparse *histogram_sparse_alloc(size_t n)
{
	struct histogram_sparse *s;

	if (n > HISTOGRAM_BUCKETS)
		return NULL; /* more entries than buckets: never needed */
	s = malloc(sizeof(*s) + n * sizeof(s->e[0]));
	if (s)
		s->n = s->total = 0;
	return s;
}

struct histogram_sparse *histogram_sparse_from(const struct histogram *h)
{
	struct histogram_sparse *s;
	size_t n = 0;

	for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++)
		n += h->bucket[i] != 0;
	if (!(s = histogram_sparse_alloc(n)))
		return NULL;
	for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		if (__builtin_add_overflow(s->total, h->bucket[i], &s->total)) {
			free(s);
			return NULL;
		}
		s->e[s->n++] = (struct histogram_entry){ i, h->bucket[i] };
	}
	return s;
}

void histogram_sparse_add_to(const struct histogram_sparse *s, struct histogram *dst)
{
	for (size_t k = 0; k < s->n; k++)
		dst->bucket[s->e[k].index] += s->e[k].count;
}
