// SPDX-License-Identifier: GPL-2.0-or-later
/* stats: Mann-Whitney U, Hodges-Lehmann shift, order-statistic ranks.
 *
 * Shift (stats_shift):
 * - U counts the pairs with b > a (ties 1/2) in one merge of the sorted
 *   samples.  Without ties and with small samples its null distribution is
 *   computed exactly (counting recurrence below); otherwise U is taken as
 *   normal with the tie-corrected variance
 *       na nb / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1)))
 *   and a continuity correction of 1/2 towards the mean.
 * - The Hodges-Lehmann estimate and the interval are order statistics of
 *   the na * nb differences D = b_j - a_i, which may be 10^10: they are
 *   never listed.  With both samples sorted, the number of differences
 *   <= d is counted in O(na + nb) (for each b_j, the a_i close enough form
 *   a suffix that only moves forward as b_j grows).  The k-th smallest is
 *   selected in rounds (diffs_kth): a random sample of the differences
 *   still in play gives two bounds just either side of where the k-th
 *   should be, one counting pass says which stretch holds it, and about
 *   30 times fewer differences are left; the last few tens of thousands
 *   are listed and selected among.  The result is exactly one of the
 *   differences, bit for bit what a brute-force sort would give; the
 *   random draws (a fixed seed) change only the number of rounds.
 *   86 400 x 86 400 (a day of 1 s interval maxima) takes about 15 ms
 *   here, against 95 ms for a bisection over the doubles' bit patterns
 *   (docs/BENCHMARKS.md, bench/huge-report.sh).
 * - Interval ranks (Hollander & Wolfe; R's wilcox.test(conf.int = TRUE) in
 *   the exact case): for the true shift t, the number of differences below
 *   t has the null distribution of U, so P(t < D_(k)) = P(U <= k - 1), and
 *   likewise above D_(na nb + 1 - k).  k is the largest rank with
 *   P(U <= k - 1) <= (1 - conf) / 2, from the exact distribution or from
 *   the normal one with continuity correction:
 *       k = floor(na nb / 2 - z sqrt(var) + 1/2).
 *   (R takes the same ranks in the exact case; with the normal
 *   approximation it inverts the z statistic by root finding instead.)
 *   When k < 1, or when even untied samples of these sizes could not reach
 *   conf (2 / C(na + nb, na) > 1 - conf), there is no interval.
 *
 * Quantile ranks: the number K of samples below x_q is Binomial(n, q);
 * X_(lo) <= x_q <= X_(hi) iff lo <= K <= hi - 1. */
#include <config.h>

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* A tail probability this close to its budget (relative) is taken as
 * equal: with conf = 0.9, 1 - conf is 0.09999999999999998, and an interval
 * whose coverage is exactly 90 % (3 vs 3: 1 - 2/20) should count. */
#define TAIL_FUZZ 1e-9

/* Doubles <-> unsigned integers of the same order (finite values; -0
 * sorts just before +0, which compare equal anyway). */
static uint64_t double_key(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static double key_double(uint64_t k)
{
	uint64_t u = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
	double x;

	memcpy(&x, &u, sizeof(x));
	return x;
}

/* x[0..n-1] (finite) sorted ascending: an LSD radix sort of the ordered
 * bit patterns, a byte a pass, skipping the bytes all keys share; tmp has
 * room for 2 n keys.  qsort() with a comparison function was 40 % of a
 * 86 400 x 86 400 shift. */
static void sort_doubles(double *x, size_t n, uint64_t *tmp)
{
	static_assert(sizeof(double) == sizeof(uint64_t), "doubles are 64-bit");
	uint64_t *k = tmp, *t = tmp + n;
	size_t count[8][256] = { { 0 } };

	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++) {
		k[i] = double_key(x[i]);
		for (unsigned d = 0; d < 8; d++)
			count[d][(k[i] >> (8 * d)) & 255]++;
	}
	for (unsigned d = 0; d < 8; d++) {
		size_t *c = count[d], sum = 0;

		if (c[(k[0] >> (8 * d)) & 255] == n)
			continue;
		for (unsigned v = 0; v < 256; v++) {
			size_t here = c[v];
			c[v] = sum;
			sum += here;
		}
		for (size_t i = 0; i < n; i++)
			t[c[(k[i] >> (8 * d)) & 255]++] = k[i];
		uint64_t *swap = k;
		k = t;
		t = swap;
	}
	for (size_t i = 0; i < n; i++)
		x[i] = key_double(k[i]);
}

/* ---- standard normal ---- */

double stats_norm_cdf(double z)
{
	return 0.5 * erfc(-z * M_SQRT1_2);
}

/* Acklam's rational approximation (relative error 1.15e-9) for the lower
 * half, then one Halley step on erfc, which is accurate in the far tail;
 * the upper half by symmetry, since 1 - p is exact for p >= 1/2. */
static double norm_quantile_lower(double p)
{
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
				    -2.759285104469687e+02, 1.383577518672690e+02,
				    -3.066479806614716e+01, 2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
				    -1.556989798598866e+02, 6.680131188771972e+01,
				    -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
				    -2.400758277161838e+00, -2.549732539343734e+00,
				    4.374664141464968e+00,  2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01,
				    2.445134137142996e+00, 3.754408661907416e+00 };
	double x, e, u;

	if (p < 0.02425) {
		double q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else {
		double q = p - 0.5, r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	e = stats_norm_cdf(x) - p;
	u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

double stats_norm_quantile(double p)
{
	if (isnan(p))
		return p;
	if (p <= 0)
		return -INFINITY;
	if (p >= 1)
		return INFINITY;
	if (p > 0.5)
		return -norm_quantile_lower(1 - p);
	return norm_quantile_lower(p);
}

/* ---- exact null distribution of U ---- */

/* P(U <= c) for c = 0 .. floor(m n / 2) (the lower half; the distribution is
 * symmetric about m n / 2), no ties.  Counting recurrence: of the
 * arrangements of m + n values, the largest belongs to the first sample
 * (beating all n of the second) or to the second, so
 *     f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u).
 * One table row per n' <= n (the smaller sample), updated in place for
 * m' = 1 .. m; counts in doubles are exact up to 2^53 and then keep 16
 * digits, as every term is positive.  Returns a malloc'ed array or NULL. */
static double *exact_cdf(size_t m, size_t n)
{
	if (n > m) {
		size_t t = m;
		m = n;
		n = t;
	}
	size_t half = m * n / 2, w = half + 1;
	double *f = calloc((n + 1) * w, sizeof(*f));
	double *cdf;

	if (!f)
		return NULL;
	for (size_t j = 0; j <= n; j++)
		f[j * w] = 1; /* m' = 0: one arrangement, U = 0 */
	for (size_t i = 1; i <= m; i++) {
		for (size_t j = 1; j <= n; j++) {
			double *row = f + j * w, *prev = f + (j - 1) * w;
			size_t top = i * j < half ? i * j : half;

			/* descending u: row[u - j] is still the m' - 1 value */
			for (size_t u = top + 1; u-- > 0;)
				row[u] = (u >= j ? row[u - j] : 0) + prev[u];
		}
	}
	cdf = malloc(w * sizeof(*cdf));
	if (!cdf) {
		free(f);
		return NULL;
	}
	/* total C(m + n, n) from the symmetric halves: below the middle
	 * twice, the middle (m n even) once */
	const double *row = f + n * w;
	double sum = 0, total;

	for (size_t u = 0; u < w; u++)
		cdf[u] = sum += row[u];
	total = (m * n) % 2 ? 2 * sum : 2 * sum - row[half];
	for (size_t u = 0; u < w; u++)
		cdf[u] /= total;
	free(f);
	return cdf;
}

/* ---- the k-th smallest pairwise difference ---- */

/* Row j holds the differences b_j - a_i, non-increasing in i (rounding is
 * monotone).  The selection keeps bounds lo < D_(k) <= hi and, per row, the
 * stretch [top[j], bot[j]) of the differences between them (the
 * candidates); both ends only move forward as j grows. */
struct diffs {
	const double *a, *b; /* sorted ascending */
	size_t na, nb;
	uint32_t *top, *bot, *pos1, *pos2; /* nb each; pos*: a count's stretch ends */
	uint64_t *keys;			   /* 2 DIFFS_SAMPLE: sort_doubles() room */
	double *buf;			   /* DIFFS_BUF(na + nb) differences */
};

/* A sample of this many candidates picks the next bounds; when no more
 * than DIFFS_FEW are left they are listed and the k-th is selected among
 * them (a listing costs about what a round does). */
#ifndef DIFFS_SAMPLE /* tests/unit/test_stats_tight: a tiny one, to miss often */
#define DIFFS_SAMPLE 8192
#endif
#define DIFFS_FEW(n) ((n) / 8 + 4 * DIFFS_SAMPLE)
#define DIFFS_BUF(n) DIFFS_FEW(n)
/* The bounds are the sample's order statistics this many standard
 * deviations (binomial: of the number of sampled candidates below the
 * k-th), plus one, either side of where the k-th should fall: they miss
 * it about once in 370 rounds, which costs one round more. */
#ifndef DIFFS_MARGIN
#define DIFFS_MARGIN 3.0
#endif

/* Number of pairs with b_j - a_i <= d, the difference computed exactly as
 * the brute force would (not as a_i >= b_j - d, which rounds
 * differently).  For each b_j the pairs that count are a suffix of a,
 * starting at i, and i never moves back as b_j grows. */
static uint64_t diffs_count(const struct diffs *s, double d)
{
	uint64_t c = 0;
	size_t i = 0;

	for (size_t j = 0; j < s->nb; j++) {
		while (i < s->na && s->b[j] - s->a[i] > d)
			i++;
		c += s->na - i;
	}
	return c;
}

/* The same for d within the bounds (lo < d <= hi): each row's suffix starts
 * within its candidates, so only they are walked, and pos[j] keeps where. */
static uint64_t diffs_count_within(const struct diffs *s, double d, uint32_t *pos)
{
	uint64_t c = 0;
	size_t i = 0;

	for (size_t j = 0; j < s->nb; j++) {
		if (i < s->top[j])
			i = s->top[j];
		while (i < s->bot[j] && s->b[j] - s->a[i] > d)
			i++;
		pos[j] = (uint32_t)i;
		c += s->na - i;
	}
	return c;
}

/* The smallest difference above d (d below the maximum): in each row the
 * one just before the suffix that diffs_count() finds. */
static double diffs_next_above(const struct diffs *s, double d)
{
	double best = INFINITY;
	size_t i = 0;

	for (size_t j = 0; j < s->nb; j++) {
		while (i < s->na && s->b[j] - s->a[i] > d)
			i++;
		if (i > 0 && s->b[j] - s->a[i - 1] < best)
			best = s->b[j] - s->a[i - 1];
	}
	return best;
}

/* splitmix64: a fixed seed, so a comparison repeats itself exactly (the
 * result never depends on it, only the number of rounds). */
static uint64_t diffs_random(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A uniform draw from [0, n). */
static uint64_t diffs_below(uint64_t *rng, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)diffs_random(rng) * n) >> 64);
}

/* m of the n candidates into buf, sorted: the candidates taken row by row
 * are cut into m equal strata and one is drawn from each (every candidate
 * equally likely, the sample spread over all of them), in one pass over
 * the rows, without a search. */
static size_t diffs_sample(const struct diffs *s, uint64_t n, uint64_t *rng)
{
	size_t m = n < DIFFS_SAMPLE ? (size_t)n : DIFFS_SAMPLE, t = 0;
	uint64_t c = 0, start = 0, end = n / m; /* the stratum of draw t */
	uint64_t want = diffs_below(rng, end);

	for (size_t j = 0; j < s->nb && t < m; j++) {
		uint64_t len = s->bot[j] - s->top[j];

		while (t < m && want < c + len) {
			s->buf[t++] = s->b[j] - s->a[s->top[j] + (want - c)];
			start = end;
			end = (uint64_t)((unsigned __int128)n * (t + 1) / m);
			want = start + diffs_below(rng, end - start);
		}
		c += len;
	}
	sort_doubles(s->buf, m, s->keys);
	return m;
}

static void swap_pos(uint32_t **x, uint32_t **y)
{
	uint32_t *t = *x;

	*x = *y;
	*y = t;
}

/* Hoare's FIND (Wirth's form), the pivot the median of the ends and the
 * middle. */
double stats_select(double *x, size_t n, size_t k)
{
	ptrdiff_t l = 0, r = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k - 1;

	while (l < r) {
		double u = x[l], v = x[l + (r - l) / 2], w = x[r];
		double p = u < v ? (v < w ? v : u < w ? w : u) : (u < w ? u : v < w ? w : v);
		ptrdiff_t i = l, j = r;

		do {
			while (x[i] < p)
				i++;
			while (p < x[j])
				j--;
			if (i <= j) {
				double t = x[i];
				x[i++] = x[j];
				x[j--] = t;
			}
		} while (i <= j);
		if (j < kk)
			l = i;
		if (kk < i)
			r = j;
	}
	return x[kk];
}

/* The k-th smallest difference, 1 <= k <= na nb, exactly (one of the
 * differences, bit for bit what a brute-force sort gives).  Each round
 * draws a sample of the candidates, takes two of its order statistics
 * around where the k-th should be, counts the differences up to each
 * (one pass over the candidates) and keeps the stretch that holds the
 * k-th: about 30 times fewer candidates per round, so 86 400 x 86 400
 * differences are down to a listing in 3 rounds, or to one tied value
 * in 4 (a bisection over the doubles' bits took 30 to 40 passes).  Many equal differences can
 * stall a round at hi: then hi is tested for being the k-th itself. */
static double diffs_kth(struct diffs *s, uint64_t k)
{
	uint64_t clo = 0, chi = (uint64_t)s->na * s->nb, rng = 0x5eed;
	uint64_t few = DIFFS_FEW(s->na + s->nb);
	double lo = -INFINITY, hi = s->b[s->nb - 1] - s->a[0];

	for (size_t j = 0; j < s->nb; j++) {
		s->top[j] = 0;
		s->bot[j] = s->na;
	}
	while (chi - clo > few) {
		uint64_t n = chi - clo;

		if (nextafter(lo, INFINITY) == hi)
			return hi + 0.0; /* no other double in (lo, hi] */
		size_t m = diffs_sample(s, n, &rng);
		double q = (double)(k - clo) / (double)n, at = q * (double)m;
		double w = DIFFS_MARGIN * sqrt((double)m * q * (1 - q)) + 1;
		/* 1-based ranks in the sample; outside it, no bound there */
		double r1 = floor(at - w), r2 = ceil(at + w);
		bool has1 = r1 >= 1, has2 = r2 <= (double)m;
		double p1 = has1 ? s->buf[(size_t)r1 - 1] : lo,
		       p2 = has2 ? s->buf[(size_t)r2 - 1] : hi;

		/* One value fills the stretch (ties, as integer nanoseconds
		 * give): bound it from below as well, so that if it is the
		 * k-th it is the only candidate left. */
		if (has1 && has2 && p1 == p2) {
			p1 = nextafter(p2, -INFINITY);
			has1 = p1 > lo;
		}
		uint64_t c1 = has1 ? diffs_count_within(s, p1, s->pos1) : clo;
		uint64_t c2 = has2 ? diffs_count_within(s, p2, s->pos2) : chi;

		if (has1 && c1 >= k) {
			hi = p1;
			chi = c1;
			swap_pos(&s->top, &s->pos1);
		} else if (has2 && c2 < k) {
			lo = p2;
			clo = c2;
			swap_pos(&s->bot, &s->pos2);
		} else {
			if (has1) {
				lo = p1;
				clo = c1;
				swap_pos(&s->bot, &s->pos1);
			}
			if (has2) {
				hi = p2;
				chi = c2;
				swap_pos(&s->top, &s->pos2);
			}
		}
		if (chi - clo > n / 2) {
			/* Stalled: most candidates equal hi, or an unlucky
			 * sample.  Is hi the k-th?  If not, none equal to it is. */
			double below = nextafter(hi, -INFINITY);
			uint64_t c;

			if (!(below > lo))
				return hi + 0.0; /* no other double in (lo, hi] */
			c = diffs_count_within(s, below, s->pos1);
			if (c < k)
				return hi + 0.0; /* + 0.0: no -0 */
			hi = below;
			chi = c;
			swap_pos(&s->top, &s->pos1);
		}
	}

	/* list the candidates: in each row, its stretch */
	size_t m = 0;

	for (size_t j = 0; j < s->nb; j++)
		for (size_t i = s->top[j]; i < s->bot[j]; i++)
			s->buf[m++] = s->b[j] - s->a[i];
	return stats_select(s->buf, m, (size_t)(k - clo)) + 0.0;
}

/* Median of the differences: the Hodges-Lehmann estimate. */
static double diffs_median(struct diffs *s, uint64_t mn)
{
	uint64_t k = (mn + 1) / 2;
	double x = diffs_kth(s, k), y;

	if (mn % 2)
		return x;
	y = diffs_count(s, x) > k ? x : diffs_next_above(s, x);
	return (x + y) / 2 + 0.0;
}

/* ---- Mann-Whitney / Hodges-Lehmann ---- */

/* U (doubled, to stay an integer) and the tie term sum (t^3 - t) / (N (N - 1))
 * of the combined sample, in one merge. */
static uint64_t mw_u2(const double *a, size_t na, const double *b, size_t nb, double *ties)
{
	uint64_t u2 = 0;
	size_t i = 0, j = 0;
	double nn = (double)(na + nb) * (double)(na + nb - 1);

	*ties = 0;
	while (i < na || j < nb) {
		double v = j == nb || (i < na && a[i] <= b[j]) ? a[i] : b[j];
		size_t ia = i, jb = j;

		while (i < na && a[i] == v)
			i++;
		while (j < nb && b[j] == v)
			j++;
		/* each b equal to v beats the ia smaller a's, ties with i - ia */
		u2 += (uint64_t)(j - jb) * (2 * ia + (i - ia));
		double t = (double)(i - ia + j - jb);
		if (t > 1)
			*ties += t * (t - 1) / nn * (t + 1); /* exactly N + 1 if all tie */
	}
	return u2;
}

static int copy_sorted(const double *x, size_t n, double *out, uint64_t *tmp)
{
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return -EINVAL;
		out[i] = x[i];
	}
	sort_doubles(out, n, tmp);
	return 0;
}

/* The workspace for na x nb: the sorted samples and the listing (doubles),
 * the radix sort's keys, the four position arrays; NULL: out of memory. */
static void *work_room(struct stats_work *w, size_t na, size_t nb)
{
	size_t nkeys = na > nb ? na : nb;

	if (nkeys < DIFFS_SAMPLE)
		nkeys = DIFFS_SAMPLE;
	size_t need = (na + nb + DIFFS_BUF(na + nb)) * sizeof(double) +
		      2 * nkeys * sizeof(uint64_t) + 4 * nb * sizeof(uint32_t);
	if (w->size < need) {
		free(w->mem);
		w->size = 0;
		if (!(w->mem = malloc(need)))
			return NULL;
		w->size = need;
	}
	return w->mem;
}

void stats_work_free(struct stats_work *w)
{
	free(w->mem);
	w->mem = NULL;
	w->size = 0;
}

int stats_shift(const double *a, size_t na, const double *b, size_t nb, double conf,
		struct stats_shift *out)
{
	struct stats_work w = { 0 };
	int rc = stats_shift_in(&w, a, na, b, nb, conf, out);

	stats_work_free(&w);
	return rc;
}

int stats_shift_in(struct stats_work *w, const double *a, size_t na, const double *b, size_t nb,
		   double conf, struct stats_shift *out)
{
	uint64_t mn, u2, k = 0;
	double *sa, *sb, ties, alpha = 1 - conf;
	size_t nkeys = na > nb ? na : nb;
	uint64_t *keys;
	uint32_t *pos;
	int err;

	if (!w || !a || !b || !out || na == 0 || nb == 0 || na > UINT32_MAX || nb > UINT32_MAX ||
	    !(conf > 0 && conf < 1))
		return -EINVAL;
	if (__builtin_mul_overflow((uint64_t)na, (uint64_t)nb, &mn))
		return -EINVAL;
	if (!(sa = work_room(w, na, nb)))
		return -ENOMEM;
	if (nkeys < DIFFS_SAMPLE)
		nkeys = DIFFS_SAMPLE;
	sb = sa + na;
	keys = (uint64_t *)(sb + nb + DIFFS_BUF(na + nb));
	pos = (uint32_t *)(keys + 2 * nkeys);
	err = copy_sorted(a, na, sa, keys);
	if (!err)
		err = copy_sorted(b, nb, sb, keys);
	if (!err && (!isfinite(sb[nb - 1] - sa[0]) || !isfinite(sb[0] - sa[na - 1])))
		err = -EINVAL;
	if (err)
		return err;

	memset(out, 0, sizeof(*out));
	out->na = na;
	out->nb = nb;
	u2 = mw_u2(sa, na, sb, nb, &ties);
	out->u = (double)u2 / 2;
	out->exact = ties == 0 && na < STATS_EXACT_MAX && nb < STATS_EXACT_MAX;

	if (out->exact) {
		double *cdf = exact_cdf(na, nb);
		uint64_t u = u2 / 2, tail = u <= mn - u ? u : mn - u;

		if (!cdf)
			return -ENOMEM;
		/* two-sided: twice the smaller tail; P(U >= u) = P(U <= mn - u) */
		out->p = fmin(1, 2 * cdf[tail]);
		while (k <= mn / 2 && cdf[k] <= alpha / 2 * (1 + TAIL_FUZZ))
			k++; /* now P(U <= k - 1) <= alpha / 2 < P(U <= k) */
		free(cdf);
	} else {
		double mean = (double)mn / 2, n1 = (double)(na + nb) + 1;
		double var = (double)mn / 12 * (n1 - ties);
		double z = -stats_norm_quantile(alpha / 2);

		if (var > 0) {
			double sd = sqrt(var), dev = fmax(fabs(out->u - mean) - 0.5, 0);
			double kk = floor(mean - z * sd + 0.5);

			out->p = fmin(1, erfc(dev / sd * M_SQRT1_2));
			k = kk >= 1 ? (uint64_t)kk : 0;
		} else {
			/* all values equal: no evidence of a shift, and every
			 * difference is 0 */
			out->p = 1;
			k = (mn + 1) / 2;
		}
	}

	struct diffs s = { .a = sa,
			   .b = sb,
			   .na = na,
			   .nb = nb,
			   .top = pos,
			   .bot = pos + nb,
			   .pos1 = pos + 2 * nb,
			   .pos2 = pos + 3 * nb,
			   .keys = keys,
			   .buf = sb + nb };

	out->shift = diffs_median(&s, mn);
	out->ci = k >= 1;
	if (!out->exact && out->ci) {
		/* Ties shrink the variance and so widen k, but no rank test
		 * on samples this small reaches conf: the smallest two-sided
		 * p they can give is 2 / C(na + nb, na). */
		double lchoose =
		    lgamma((double)(na + nb) + 1) - lgamma((double)na + 1) - lgamma((double)nb + 1);

		out->ci = log(2 / alpha) <= lchoose + TAIL_FUZZ;
	}
	if (out->ci) {
		out->lo = diffs_kth(&s, k);
		out->hi = diffs_kth(&s, mn + 1 - k);
	} else {
		out->lo = out->hi = out->shift;
	}
	return 0;
}

/* ---- autocorrelation and blocks ---- */

double stats_autocorr1(const double *x, size_t n)
{
	double mean = 0, num = 0, den = 0;

	if (n < 3)
		return 0;
	for (size_t i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mean;

		den += d * d;
		if (i + 1 < n)
			num += d * (x[i + 1] - mean);
	}
	if (!(den > 0))
		return 0;
	return fmax(-1, fmin(1, num / den));
}

size_t stats_block_max(double *x, size_t n, size_t block)
{
	size_t m = 0;

	if (block <= 1)
		return n;
	for (size_t i = 0; i < n; i += block) {
		size_t end = n - i > block ? i + block : n;
		double v = x[i];

		for (size_t j = i + 1; j < end; j++)
			if (x[j] > v)
				v = x[j];
		x[m++] = v; /* m <= i: never overwrites an unread value */
	}
	return m;
}

/* ---- quantile ranks ---- */

/* Beyond this variance n q (1 - q) the binomial is normal to within a
 * skewness of 3e-4, and the exact walk (about 80 standard deviations)
 * would pass 250 000 terms. */
#define QUANTILE_EXACT_VAR 1e7
/* Terms this far below the mode's probability are dropped: n of them are
 * still far below any tail budget (1 - conf > 1e-16). */
#define QUANTILE_NEGLIGIBLE 1e-290

/* The largest j with P(K <= j) <= budget for K ~ Binomial(n, q), exactly,
 * -1 when P(K = 0) > budget.  The probabilities are walked from the mode
 * (scaled to 1: no lgamma, whose absolute error at n = 10^12 is already
 * 10^-2) down to where they are negligible, and then back up accumulating
 * the lower tail; the total normalises. */
static int64_t binom_lower_exact(uint64_t n, double q, double budget)
{
	double r = q / (1 - q), total = 1, t = 1, cum;
	uint64_t mode = (uint64_t)floor(((double)n + 1) * q), k;

	if (mode > n)
		mode = n;
	for (k = mode; k < n && t > QUANTILE_NEGLIGIBLE; k++) {
		t *= (double)(n - k) / (double)(k + 1) * r;
		total += t;
	}
	t = 1;
	for (k = mode; k > 0; k--) {
		double next = t * (double)k / (double)(n - k + 1) / r;

		if (next <= QUANTILE_NEGLIGIBLE)
			break;
		t = next;
		total += t;
	}
	/* t is now P(K = k) * total, the lowest term kept */
	for (cum = t;; k++) {
		if (cum > budget * total)
			return (int64_t)k - 1;
		if (k == n)
			return (int64_t)n;
		t *= (double)(n - k) / (double)(k + 1) * r;
		cum += t;
	}
}

/* Normal approximation with continuity correction, P(K <= j) ~
 * Phi((j + 1/2 - nq) / sd), and the first Cornish-Fisher term for the
 * skewness (1 - 2q) / sd: that term is worth half a rank at q -> 0 or 1
 * whatever n is, so without it the rank could be one off. */
static int64_t binom_lower_normal(uint64_t n, double q, double budget)
{
	double mean = (double)n * q, sd = sqrt(mean * (1 - q));
	double z = stats_norm_quantile(budget), skew = (1 - 2 * q) / sd;
	double j = floor(mean + (z + (z * z - 1) * skew / 6) * sd - 0.5);

	if (j < -1)
		return -1;
	if (j > (double)n)
		return (int64_t)n;
	return (int64_t)j;
}

static int64_t binom_lower(uint64_t n, double q, double budget)
{
	if (budget <= 0)
		return -1;
	budget *= 1 + TAIL_FUZZ;
	if ((double)n * q * (1 - q) <= QUANTILE_EXACT_VAR)
		return binom_lower_exact(n, q, budget);
	return binom_lower_normal(n, q, budget);
}

void stats_quantile_ranks(uint64_t n, double q, double conf, uint64_t *lo, uint64_t *hi,
			  bool *reached)
{
	double alpha = 1 - conf, p0, pn;
	int64_t jl, jh;

	*lo = n ? 1 : 0;
	*hi = n;
	*reached = false;
	if (n == 0 || !(q > 0 && q < 1) || !(conf > 0 && conf < 1))
		return;
	/* (1, n) covers unless all samples fall on one side of x_q */
	p0 = exp((double)n * log1p(-q));
	pn = exp((double)n * log(q));
	if (p0 + pn > alpha * (1 + TAIL_FUZZ))
		return;
	/* lo = jl + 1 (P(K <= lo - 1) <= budget); hi = n - jh with jh from
	 * the mirrored count n - K ~ Binomial(n, 1 - q) */
	jl = binom_lower(n, q, alpha / 2);
	jh = binom_lower(n, 1 - q, alpha / 2);
	if (jl < 0)
		jh = binom_lower(n, 1 - q, alpha - p0);
	else if (jh < 0)
		jl = binom_lower(n, q, alpha - pn);
	*lo = jl < 0 ? 1 : (uint64_t)jl + 1;
	*hi = jh < 0 ? n : n - (uint64_t)jh;
	if (*lo > n)
		*lo = n;
	if (*hi < *lo)
		*hi = *lo;
	*reached = true;
}
