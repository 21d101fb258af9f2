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
 *   a suffix that only moves forward as b_j grows), and the k-th smallest
 *   is the smallest double d whose count reaches k: a bisection over the
 *   doubles themselves (their bit patterns, mapped to ordered integers),
 *   so at most 64 counts, fewer when the last few differences between
 *   the bounds are listed and sorted instead.  The result is exactly one
 *   of the differences, bit for bit what a brute-force sort would give;
 *   100 000 x 100 000 takes about 0.1 s.
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

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

/* A tail probability this close to its budget (relative) is taken as
 * equal: with conf = 0.9, 1 - conf is 0.09999999999999998, and an interval
 * whose coverage is exactly 90 % (3 vs 3: 1 - 2/20) should count. */
#define TAIL_FUZZ 1e-9

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
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

struct diffs {
	const double *a, *b; /* sorted ascending */
	size_t na, nb;
	double *buf; /* room for DIFFS_FEW(na + nb) differences */
};

/* When no more than this many differences are left between the bounds of
 * the bisection, they are listed and sorted: a few passes fewer than
 * bisecting to the last bit, and a sort of a small part of n. */
#define DIFFS_FEW(n) ((n) / 8 + 64)

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

/* Doubles <-> unsigned integers of the same order (finite values). */
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

/* The k-th smallest difference, 1 <= k <= na nb: the smallest double d with
 * diffs_count(d) >= k.  lo stays below it (count clo < k), hi at or above
 * (chi >= k).  Many equal differences may keep chi - clo large: then the
 * bisection ends on the last bit. */
static double diffs_kth(const struct diffs *s, uint64_t k)
{
	double dmin = s->b[0] - s->a[s->na - 1], dmax = s->b[s->nb - 1] - s->a[0];
	uint64_t lo = double_key(dmin) - 1, hi = double_key(dmax);
	uint64_t clo = 0, chi = (uint64_t)s->na * s->nb, few = DIFFS_FEW(s->na + s->nb);

	while (hi - lo > 1 && chi - clo > few) {
		uint64_t mid = lo + (hi - lo) / 2, c = diffs_count(s, key_double(mid));

		if (c >= k) {
			hi = mid;
			chi = c;
		} else {
			lo = mid;
			clo = c;
		}
	}
	if (hi - lo <= 1)
		return key_double(hi) + 0.0; /* + 0.0: no -0 */

	/* list the differences in (lo, hi]: in each row, the stretch between
	 * the suffixes that the two counts find */
	double dlo = key_double(lo), dhi = key_double(hi);
	size_t ihi = 0, ilo = 0, m = 0;

	for (size_t j = 0; j < s->nb; j++) {
		while (ihi < s->na && s->b[j] - s->a[ihi] > dhi)
			ihi++;
		while (ilo < s->na && s->b[j] - s->a[ilo] > dlo)
			ilo++;
		for (size_t i = ihi; i < ilo; i++)
			s->buf[m++] = s->b[j] - s->a[i];
	}
	qsort(s->buf, m, sizeof(*s->buf), cmp_double);
	return s->buf[k - clo - 1] + 0.0;
}

/* Median of the differences: the Hodges-Lehmann estimate. */
static double diffs_median(const struct diffs *s, uint64_t mn)
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

static int copy_sorted(const double *x, size_t n, double *out)
{
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return -EINVAL;
		out[i] = x[i];
	}
	qsort(out, n, sizeof(*out), cmp_double);
	return 0;
}

int stats_shift(const double *a, size_t na, const double *b, size_t nb, double conf,
		struct stats_shift *out)
{
	uint64_t mn, u2, k = 0;
	double *sa, *sb, ties, alpha = 1 - conf;
	int err;

	if (!a || !b || !out || na == 0 || nb == 0 || !(conf > 0 && conf < 1))
		return -EINVAL;
	if (__builtin_mul_overflow((uint64_t)na, (uint64_t)nb, &mn))
		return -EINVAL;
	sa = malloc((na + nb + DIFFS_FEW(na + nb)) * sizeof(*sa));
	if (!sa)
		return -ENOMEM;
	sb = sa + na;
	err = copy_sorted(a, na, sa);
	if (!err)
		err = copy_sorted(b, nb, sb);
	if (!err && (!isfinite(sb[nb - 1] - sa[0]) || !isfinite(sb[0] - sa[na - 1])))
		err = -EINVAL;
	if (err)
		goto out;

	memset(out, 0, sizeof(*out));
	out->na = na;
	out->nb = nb;
	u2 = mw_u2(sa, na, sb, nb, &ties);
	out->u = (double)u2 / 2;
	out->exact = ties == 0 && na < STATS_EXACT_MAX && nb < STATS_EXACT_MAX;

	if (out->exact) {
		double *cdf = exact_cdf(na, nb);
		uint64_t u = u2 / 2, tail = u <= mn - u ? u : mn - u;

		if (!cdf) {
			err = -ENOMEM;
			goto out;
		}
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

	struct diffs s = { sa, sb, na, nb, sb + nb };

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
out:
	free(sa);
	return err;
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
