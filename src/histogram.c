/* histogram: bucket bounds, merge and percentiles.  The hot-path part
 * (index, add) is inline in histogram.h. */
#include <math.h>
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

uint64_t histogram_percentile(const struct histogram *h, double p, uint64_t min, uint64_t max)
{
	uint64_t n = histogram_total(h);

	if (n == 0)
		return 0;
	/* Nearest rank, computed in long double so that p99.999 of 10^12
	 * samples still rounds the right way. */
	long double r = ceill((long double)p / 100.0L * (long double)n);
	uint64_t rank = r < 1 ? 1 : (r > (long double)n ? n : (uint64_t)r);
	uint64_t seen = 0;

	/* The extreme ranks are known exactly: no bucket estimate. */
	if (rank == n)
		return max;
	if (rank == 1)
		return min;

	for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen < rank)
			continue;
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
	return max; /* not reached: seen == n >= rank */
}

void histogram_rank_bounds(const struct histogram *h, uint64_t rank, uint64_t min, uint64_t max,
			   uint64_t *lo, uint64_t *hi)
{
	uint64_t n = histogram_total(h), seen = 0;

	*lo = min;
	*hi = max;
	if (n == 0 || rank <= 1 || rank >= n) {
		if (rank >= n)
			*lo = max;
		else
			*hi = min;
		return;
	}
	for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen < rank)
			continue;
		if (histogram_lower(i) > min)
			*lo = histogram_lower(i);
		if (i < HISTOGRAM_OVERFLOW && histogram_upper(i) - 1 < max)
			*hi = histogram_upper(i) - 1;
		return;
	}
}
