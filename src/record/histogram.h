/* SPDX-License-Identifier: GPL-2.0-or-later */
/* histogram: log-linear latency histogram (HdrHistogram-style).
 *
 * Values below 2^HISTOGRAM_SUB_BITS ns get one bucket each (exact).  Above
 * that every power-of-two range [2^m, 2^(m+1)) is split into
 * 2^HISTOGRAM_SUB_BITS equal sub-buckets, so a bucket is never wider than
 * 1/128 of its lower bound: the relative error of any value read back from
 * the histogram is below 0.4 % (midpoint) and always below 1 %.  The range
 * ends at 2^HISTOGRAM_TOP_BITS ns (~68.7 s); larger values land in one
 * overflow bucket, and the recorder keeps the exact max beside it.
 *
 * Indexing is a clz and two shifts: cheap enough for the probe hot path. */
#ifndef RTSOAK_HISTOGRAM_H
#define RTSOAK_HISTOGRAM_H

#include <stdint.h>
#include <stddef.h>

#define HISTOGRAM_SUB_BITS 7
#define HISTOGRAM_SUB_COUNT (1u << HISTOGRAM_SUB_BITS)
#define HISTOGRAM_TOP_BITS 36
/* exact buckets + one block of sub-buckets per octave + the overflow bucket */
#define HISTOGRAM_BUCKETS \
	(HISTOGRAM_SUB_COUNT + (HISTOGRAM_TOP_BITS - HISTOGRAM_SUB_BITS) * HISTOGRAM_SUB_COUNT + 1)
#define HISTOGRAM_OVERFLOW (HISTOGRAM_BUCKETS - 1)
#define HISTOGRAM_MAX_TRACKABLE ((uint64_t)1 << HISTOGRAM_TOP_BITS)

struct histogram {
	uint64_t bucket[HISTOGRAM_BUCKETS];
};

static inline unsigned histogram_index(uint64_t v)
{
	if (v < HISTOGRAM_SUB_COUNT)
		return (unsigned)v;
	if (v >= HISTOGRAM_MAX_TRACKABLE)
		return HISTOGRAM_OVERFLOW;
	unsigned m = 63u - (unsigned)__builtin_clzll(v); /* v in [2^m, 2^(m+1)) */
	unsigned shift = m - HISTOGRAM_SUB_BITS;
	return HISTOGRAM_SUB_COUNT + shift * HISTOGRAM_SUB_COUNT +
	       (unsigned)((v >> shift) & (HISTOGRAM_SUB_COUNT - 1));
}

static inline void histogram_add(struct histogram *h, uint64_t v)
{
	h->bucket[histogram_index(v)]++;
}

/* Bucket i covers [histogram_lower(i), histogram_upper(i)).  The overflow
 * bucket's upper bound is UINT64_MAX: callers that print it substitute the
 * exact max they know. */
uint64_t histogram_lower(unsigned i);
uint64_t histogram_upper(unsigned i);

void histogram_reset(struct histogram *h);
void histogram_merge(struct histogram *dst, const struct histogram *src);
uint64_t histogram_total(const struct histogram *h);

/* Nearest-rank percentile (p in (0,100]): the value of the sample of rank
 * ceil(p/100 * n), estimated as its bucket's midpoint and clamped to
 * [min, max], which the caller knows exactly.  Returns 0 when empty. */
uint64_t histogram_percentile(const struct histogram *h, double p, uint64_t min, uint64_t max);

/* Where the sample of rank `rank` (1-based) lies for certain: its bucket's
 * bounds [*lo, *hi], clamped to [min, max] (exact at ranks 1 and n).  For
 * confidence intervals, which must not be narrowed by a midpoint guess. */
void histogram_rank_bounds(const struct histogram *h, uint64_t rank, uint64_t min, uint64_t max,
			   uint64_t *lo, uint64_t *hi);

/* The report model's histogram: only the non-empty buckets, in ascending
 * bucket order, with their total.  A report holds one per result, and a
 * dense histogram (30 KiB) each would make reading a report with many
 * results cost gigabytes (issue 12); the probes' recorders keep the dense
 * one, which is what the hot path indexes.  Merges densify one at a time
 * (histogram_sparse_add_to). */
struct histogram_entry {
	uint32_t index;
	uint64_t count; /* > 0 */
};

struct histogram_sparse {
	size_t n;
	uint64_t total; /* the sum of the counts (no overflow: the builders check) */
	struct histogram_entry e[];
};

/* Room for n entries, n and total set to 0; NULL on ENOMEM. */
struct histogram_sparse *histogram_sparse_alloc(size_t n);
/* The non-empty buckets of h; NULL on ENOMEM or when h's total overflows 64 bits. */
struct histogram_sparse *histogram_sparse_from(const struct histogram *h);
/* dst += s. */
void histogram_sparse_add_to(const struct histogram_sparse *s, struct histogram *dst);
/* histogram_percentile() and histogram_rank_bounds() of the same buckets. */
uint64_t histogram_sparse_percentile(const struct histogram_sparse *s, double p, uint64_t min,
				     uint64_t max);
void histogram_sparse_rank_bounds(const struct histogram_sparse *s, uint64_t rank, uint64_t min,
				  uint64_t max, uint64_t *lo, uint64_t *hi);

#endif
