/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats: the tests behind `rtsoak compare`.
 *
 * Latency samples are autocorrelated and heavy-tailed, so compare tests
 * per-interval maxima or per-round values, not samples, and only with
 * rank-based (distribution-free) methods: Mann-Whitney U for "is there a
 * shift", the Hodges-Lehmann estimate and its confidence interval for "how
 * large".  stats_quantile_ranks() is the fallback when only the samples'
 * order statistics are known.  Everything here is deterministic: the same
 * input gives the same output, bit for bit. */
#ifndef RTSOAK_STATS_H
#define RTSOAK_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The exact null distribution of U is used when there are no ties and both
 * samples are smaller than this (R's wilcox.test rule); its table takes
 * about min(na, nb) * na * nb * 4 bytes. */
#define STATS_EXACT_MAX 50

/* Two-sample location shift of b relative to a (b - a), rank based. */
struct stats_shift {
	size_t na, nb;
	double u; /* Mann-Whitney U statistic of b (number of pairs with b > a, ties count 1/2) */
	double p; /* two-sided p-value for "no shift" */
	double shift; /* Hodges-Lehmann estimate: median of all pairwise differences b_j - a_i */
	/* Confidence interval for the shift at the requested level,
	 * distribution-free: [D_(k), D_(na*nb+1-k)] of the sorted pairwise
	 * differences D, with k the largest rank such that P(U <= k - 1) <=
	 * (1 - conf) / 2 under the null (coverage >= conf; R's wilcox.test
	 * conf.int in the exact case). */
	double lo, hi;
	/* false if the samples are too small for the requested level, even
	 * without ties; then lo = hi = shift */
	bool ci;
	/* p and CI ranks from the exact null distribution (no ties, both
	 * samples below STATS_EXACT_MAX) rather than the normal approximation */
	bool exact;
};

/* a, b: the values (need not be sorted; not modified: the function sorts a
 * copy).  conf e.g. 0.95.  Every field of out is finite on success.
 * Returns 0, -EINVAL if na or nb is 0 or above UINT32_MAX, a or b or out is NULL, a value is
 * not finite (or the range of the differences is not), or conf is not in
 * (0, 1); -ENOMEM. */
int stats_shift(const double *a, size_t na, const double *b, size_t nb, double conf,
		struct stats_shift *out) __attribute__((warn_unused_result));

/* Room stats_shift_in() keeps from one call to the next: a comparison
 * tests every CPU, and fresh megabytes each time cost more in page faults
 * than the selection itself.  Zero-initialise; stats_work_free() at the
 * end. */
struct stats_work {
	void *mem;
	size_t size;
};

/* stats_shift() in w's room (grown as needed); na and nb at most
 * UINT32_MAX (else -EINVAL). */
int stats_shift_in(struct stats_work *w, const double *a, size_t na, const double *b, size_t nb,
		   double conf, struct stats_shift *out) __attribute__((warn_unused_result));
void stats_work_free(struct stats_work *w);

/* The k-th smallest of x[0..n-1] (1 <= k <= n, no NaN), in O(n) on
 * average.  Reorders x: it is left at x[k - 1], none larger before it,
 * none smaller after it. */
double stats_select(double *x, size_t n, size_t k);

/* Lag-1 autocorrelation of x (n >= 3; else 0; 0 for a constant series). */
double stats_autocorr1(const double *x, size_t n);

/* Merge consecutive values into blocks of `block` (the max of each block; a
 * trailing partial block is kept as its own block) in place; returns the
 * new length.  block 0 or 1 leaves x alone.  Used to thin out
 * autocorrelated interval maxima. */
size_t stats_block_max(double *x, size_t n, size_t block);

/* Ranks (1-based, lo <= hi) of the order statistics that bracket the
 * q-quantile of n independent samples with coverage >= conf:
 * P(X_(lo) <= x_q <= X_(hi)) >= conf.  Equal tails of (1 - conf) / 2 each,
 * except when one rank is already at 1 or n: then the other tail gets the
 * rest.  Exact binomial whenever n q (1 - q) <= 1e7 (a walk over the
 * probability mass, at most a few ms), normal approximation with
 * continuity and skewness (Cornish-Fisher) correction above.  When even (1, n) does not reach conf
 * (tiny n or extreme q), or q or conf is not in (0, 1), return lo = 1,
 * hi = n and *reached = false (n = 0: lo = hi = 0). */
void stats_quantile_ranks(uint64_t n, double q, double conf, uint64_t *lo, uint64_t *hi,
			  bool *reached);

/* Standard normal distribution function. */
double stats_norm_cdf(double z);
/* Its inverse, relative error ~1e-15 over (0, 1); -inf for p <= 0, +inf
 * for p >= 1, NaN for NaN. */
double stats_norm_quantile(double p);

#endif
