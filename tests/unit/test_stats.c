// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for stats: Mann-Whitney U and its exact distribution,
 * Hodges-Lehmann shift and interval against hand computations and brute
 * force, coverage under the null, quantile ranks against exact binomial
 * sums, normal helpers, autocorrelation and blocks. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats.h"
#include "tap.h"

static double unif(void) /* (0, 1) */
{
	return ((double)(tap_rnd() >> 11) + 0.5) * 0x1.0p-53;
}

/* Skewed like latencies: exponential with the given mean. */
static double expo(double mean)
{
	return -mean * log(unif());
}

static double gauss(void) /* Box-Muller, one of the pair */
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

static int near(double x, double want, double tol)
{
	return fabs(x - want) <= tol;
}

static int all_finite(const struct stats_shift *s)
{
	return isfinite(s->u) && isfinite(s->p) && isfinite(s->shift) && isfinite(s->lo) &&
	       isfinite(s->hi) && s->p >= 0 && s->p <= 1 && s->lo <= s->shift && s->shift <= s->hi;
}

/* All differences b_j - a_i, sorted: the brute force the selection must
 * reproduce bit for bit.  Returns a malloc'ed array of na * nb. */
static double *brute_diffs(const double *a, size_t na, const double *b, size_t nb)
{
	double *d = malloc(na * nb * sizeof(*d));

	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			d[i * nb + j] = b[j] - a[i];
	qsort(d, na * nb, sizeof(*d), cmp_double);
	return d;
}

static double brute_median(const double *d, size_t mn)
{
	return mn % 2 ? d[mn / 2] : (d[mn / 2 - 1] + d[mn / 2]) / 2;
}

/* ---- normal helpers ---- */

static void norm_known_values(void)
{
	ok(near(stats_norm_quantile(0.975), 1.959963984540054, 1e-12) &&
	       near(stats_norm_quantile(0.025), -1.959963984540054, 1e-12),
	   "norm_quantile(0.975) = 1.959963985 (%.12f)", stats_norm_quantile(0.975));
	/* values from R's qnorm / pnorm */
	ok(stats_norm_quantile(0.5) == 0 &&
	       near(stats_norm_quantile(0.05), -1.6448536269514722, 1e-12) &&
	       near(stats_norm_quantile(1e-10), -6.361340902404056, 1e-11) &&
	       near(stats_norm_quantile(1e-300), -37.0470962993612, 1e-9) &&
	       near(stats_norm_cdf(1.0), 0.8413447460685429, 1e-15) &&
	       near(stats_norm_cdf(-8.0) / 6.22096057427178e-16, 1, 1e-12),
	   "norm_quantile and norm_cdf match tabulated values, also in the far tail");
	ok(stats_norm_quantile(0) == -INFINITY && stats_norm_quantile(1) == INFINITY &&
	       isnan(stats_norm_quantile(NAN)),
	   "norm_quantile(0) = -inf, (1) = +inf, NaN stays NaN");
}

/* The error of x = quantile(p), from the round trip: (cdf(x) - p) / pdf(x).
 * (cdf(x) / p itself can only be as good as |x| ulps of x: 3e-13 at
 * p = 1e-300.) */
static void norm_round_trip(void)
{
	double worst = 0;
	int sym = 1;

	for (double p = 1e-300; p <= 0.5; p *= 1.01) {
		double x = stats_norm_quantile(p);
		double dx = (stats_norm_cdf(x) - p) / (exp(-x * x / 2) / sqrt(2 * M_PI));
		double e = fabs(dx) / fmax(1, fabs(x));
		if (e > worst)
			worst = e;
		/* 1 - p rounds; 1 - (1 - p) is exact */
		if (stats_norm_quantile(1 - p) != -stats_norm_quantile(1 - (1 - p)))
			sym = 0;
	}
	ok(worst < 2e-15 && sym,
	   "norm_quantile(p) within %.1e relative of the root of norm_cdf(x) = p over "
	   "[1e-300, 0.5], and quantile(1 - p) = -quantile(p)",
	   worst);
}

/* ---- exact small samples, computed by hand ---- */

static void shift_4v4_separated(void)
{
	const double a[] = { 3, 1, 4, 2 }, b[] = { 8, 5, 7, 6 };
	struct stats_shift s;

	/* All 16 pairs have b > a: U = 16.  Of the C(8, 4) = 70 equally likely
	 * arrangements only {5,6,7,8} reaches 16 and only {1,2,3,4} reaches 0:
	 * p = 2 / 70.  The differences 1..7 occur 1,2,3,4,3,2,1 times; the
	 * 8th and 9th are 4, so HL = 4.  P(U <= 0) = 1/70 <= 0.025 <
	 * P(U <= 1) = 2/70: k = 1, the interval is [D_1, D_16] = [1, 7]. */
	int r = stats_shift(a, 4, b, 4, 0.95, &s);
	ok(r == 0 && s.exact && s.u == 16 && near(s.p, 2.0 / 70, 1e-15),
	   "4 vs 4 fully separated: U = 16, exact p = 2/70 (%.6f)", s.p);
	ok(r == 0 && s.shift == 4 && s.ci && s.lo == 1 && s.hi == 7,
	   "4 vs 4 fully separated: HL shift 4, 95%% interval [1, 7] (%g, [%g, %g])", s.shift, s.lo,
	   s.hi);
	/* At 90 %: P(U <= 1) = 2/70 <= 0.05 < P(U <= 2) = 4/70, k = 2. */
	r = stats_shift(a, 4, b, 4, 0.90, &s);
	ok(r == 0 && s.ci && s.lo == 2 && s.hi == 6,
	   "4 vs 4 at 90%%: interval [D_2, D_15] = [2, 6]");
	r = stats_shift(b, 4, a, 4, 0.95, &s);
	ok(r == 0 && s.u == 0 && near(s.p, 2.0 / 70, 1e-15) && s.shift == -4 && s.lo == -7 &&
	       s.hi == -1,
	   "4 vs 4 reversed: U = 0, same p, shift -4, interval [-7, -1]");
}

static void shift_r_example(void)
{
	/* R's ?wilcox.test example: wilcox.test(x, y, alternative = "g")
	 * gives W = 35, p = 0.1272; two-sided exact p = 2 * 382/3003
	 * (enumerated), and with conf.int = TRUE the estimate 0.305 and the
	 * interval [-0.15, 0.76] (k = 9, coverage 0.960). */
	const double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
	const double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	struct stats_shift s;
	int r = stats_shift(y, 5, x, 10, 0.95, &s);

	ok(r == 0 && s.exact && s.u == 35 && near(s.p, 764.0 / 3003, 1e-13),
	   "R example (5 vs 10): U = 35, exact two-sided p = 764/3003 (%.10f)", s.p);
	ok(r == 0 && s.ci && near(s.shift, 0.305, 1e-12) && near(s.lo, -0.15, 1e-12) &&
	       near(s.hi, 0.76, 1e-12),
	   "R example: HL 0.305, 95%% interval [-0.15, 0.76] (%g, [%g, %g])", s.shift, s.lo, s.hi);
}

static void shift_7v6(void)
{
	/* a's below each b: 1 -> 0, 2 -> 0, 5 -> 1, 7 -> 1, 8 -> 1, 12 -> 2, so
	 * U = 5; enumerated over the C(13, 6) = 1716 arrangements,
	 * P(U <= 5) = 19/1716, p = 19/858; HL = -13. */
	const double a[] = { 3, 9, 14, 20, 21, 30, 31 }, b[] = { 1, 2, 5, 7, 8, 12 };
	struct stats_shift s;
	int r = stats_shift(a, 7, b, 6, 0.95, &s);

	ok(r == 0 && s.exact && s.u == 5 && near(s.p, 19.0 / 858, 1e-14) && s.shift == -13,
	   "7 vs 6: U = 5, exact p = 19/858, HL -13 (U %g, p %.6f)", s.u, s.p);
}

/* Exact p-values and interval ends against enumeration of every
 * arrangement, for all sizes up to 8 x 8: an independent check of the
 * counting recurrence.  At 90 %, 3 vs 3 sits on the boundary: P(U <= 0) =
 * 1/20 = exactly (1 - conf) / 2, which must give an interval (coverage
 * exactly 90 %) although 1 - 0.9 rounds below 0.1. */
static void shift_exact_vs_enumeration(void)
{
	double a[8], b[8], worst = 0;
	int bad = 0, cases = 0;

	tap_rnd_seed(7);
	for (size_t m = 1; m <= 8; m++) {
		for (size_t n = 1; n <= 8; n++) {
			size_t N = m + n, mn = m * n;
			double cnt[65] = { 0 }, total = 0;

			/* b takes the positions of the set bits: U counts, for
			 * each, the a's (clear bits) below it */
			for (unsigned mask = 0; mask < 1u << N; mask++) {
				if ((size_t)__builtin_popcount(mask) != n)
					continue;
				unsigned u = 0, below = 0;
				for (unsigned i = 0; i < N; i++)
					if (mask >> i & 1)
						u += below;
					else
						below++;
				cnt[u]++;
				total++;
			}
			for (size_t i = 0; i < m; i++)
				a[i] = round(expo(100) * 1000) / 1000 + 0.0001 * i;
			for (size_t j = 0; j < n; j++)
				b[j] = round(expo(130) * 1000) / 1000 + 0.00005 * j;
			struct stats_shift s;
			if (stats_shift(a, m, b, n, 0.9, &s) != 0 || !s.exact) {
				bad++;
				continue;
			}
			double le = 0, ge = 0;
			for (size_t u = 0; u <= mn; u++) {
				if (u <= s.u)
					le += cnt[u];
				if (u >= s.u)
					ge += cnt[u];
			}
			double p = fmin(1, 2 * fmin(le, ge) / total);
			if (fabs(s.p - p) > worst)
				worst = fabs(s.p - p);
			/* k: largest with P(U <= k - 1) <= 0.05 */
			size_t k = 0;
			double cum = cnt[0];
			while (cum / total <= 0.05)
				cum += cnt[++k];
			double *d = brute_diffs(a, m, b, n);
			if (s.shift != brute_median(d, mn) || s.ci != (k >= 1) ||
			    (k >= 1 && (s.lo != d[k - 1] || s.hi != d[mn - k])))
				bad++;
			free(d);
			cases++;
		}
	}
	ok(bad == 0 && worst < 1e-14,
	   "exact p, HL and 90%% interval match enumeration for all %d sizes up to 8 x 8 "
	   "(worst p error %.1e)",
	   cases, worst);
}

/* The largest exact table (C(98, 49) = 2.5e28 arrangements: counts far
 * beyond 2^53) against big-integer sums of the same recurrence (Python):
 * a = 0..48, b = a + s + 1/2, so U = sum_j min(49, j + s + 1). */
static void shift_exact_largest(void)
{
	static const struct {
		double s, u, p;
	} want[] = { { 10, 1660, 0.0009595747152989213 }, { 20, 1995, 2.6341334724382003e-09 } };
	double a[50], b[50];
	struct stats_shift s;
	int good = 1;

	for (size_t c = 0; c < 2; c++) {
		for (int i = 0; i < 49; i++) {
			a[i] = i;
			b[i] = i + want[c].s + 0.5;
		}
		good &= stats_shift(a, 49, b, 49, 0.95, &s) == 0 && s.exact && s.u == want[c].u &&
			near(s.p / want[c].p, 1, 1e-12);
	}
	a[49] = 49;
	ok(good && stats_shift(a, 50, b, 49, 0.95, &s) == 0 && !s.exact,
	   "49 vs 49 is exact (p = 9.595747e-4 and 2.634133e-9 to 1e-12), 50 vs 49 is not");
}

static void shift_tiny(void)
{
	const double a[] = { 1, 2 }, b[] = { 3, 4 };
	struct stats_shift s;
	int r = stats_shift(a, 2, b, 2, 0.95, &s);

	/* P(U = 4) = 1/6: p = 1/3, and no interval can reach 95 %. */
	ok(r == 0 && s.exact && near(s.p, 1.0 / 3, 1e-15) && !s.ci && s.lo == s.shift &&
	       s.hi == s.shift && s.shift == 2,
	   "2 vs 2: p = 1/3, no 95%% interval (lo = hi = shift = 2)");
	r = stats_shift(a, 1, b, 1, 0.5, &s);
	ok(r == 0 && s.p == 1 && s.shift == 2 && !s.ci && all_finite(&s),
	   "1 vs 1: p = 1, shift = the difference, no interval");
}

static void shift_ties(void)
{
	/* R's paired-test data (depression scale), here as two samples: b
	 * has 1.06 and 1.29 twice, so no exact test.  By hand: U = 23;
	 * ties: two groups of 2, sum(t^3 - t) = 12, var = 81/12 * (19 -
	 * 12/306) = 127.985; |23 - 40.5| - 0.5 = 17, p = erfc(17/sqrt(var)/
	 * sqrt(2)) = 0.132919.  HL -0.56; k = floor(40.5 - 1.96 * 11.313 +
	 * 0.5) = 18: interval [D_18, D_64] = [-1.183, 0.37]. */
	const double a[] = { 1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30 };
	const double b[] = { 0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29 };
	struct stats_shift s;
	int r = stats_shift(a, 9, b, 9, 0.95, &s);

	ok(r == 0 && !s.exact && s.u == 23 && near(s.p, 0.13291945818531886, 1e-12),
	   "ties: normal approximation with tie-corrected variance, U = 23, p = 0.132919 (%.6f)",
	   s.p);
	ok(r == 0 && s.ci && near(s.shift, -0.56, 1e-12) && near(s.lo, -1.183, 1e-12) &&
	       near(s.hi, 0.37, 1e-12),
	   "ties: HL -0.56, interval [-1.183, 0.37] from normal ranks (%g, [%g, %g])", s.shift,
	   s.lo, s.hi);

	/* A tie across the samples counts 1/2. */
	const double c[] = { 1, 2, 3 }, d[] = { 2, 4 };
	r = stats_shift(c, 3, d, 2, 0.95, &s);
	ok(r == 0 && s.u == 4.5 && !s.exact && all_finite(&s),
	   "a tie between samples counts 1/2 in U");
}

static void shift_identical(void)
{
	double a[30], b[30];
	struct stats_shift s;

	tap_rnd_seed(11);
	for (int i = 0; i < 30; i++)
		a[i] = b[29 - i] = expo(1000);
	int r = stats_shift(a, 30, b, 30, 0.95, &s);
	ok(r == 0 && s.p >= 0.99 && s.shift == 0 && s.ci && s.lo < 0 && s.hi > 0,
	   "identical samples: p = %g, shift 0, interval [%g, %g] contains 0", s.p, s.lo, s.hi);

	for (int i = 0; i < 30; i++)
		a[i] = b[i] = 25000;
	r = stats_shift(a, 20, b, 30, 0.95, &s);
	ok(r == 0 && s.p == 1 && s.shift == 0 && s.ci && s.lo == 0 && s.hi == 0 && all_finite(&s),
	   "all values equal: p = 1, shift 0, interval [0, 0]");
	r = stats_shift(a, 3, b, 3, 0.95, &s);
	ok(r == 0 && s.p == 1 && s.shift == 0 && !s.ci && s.lo == 0 && s.hi == 0,
	   "all equal, 3 vs 3: p = 1, no interval, nothing infinite");
}

static void shift_invalid(void)
{
	const double a[] = { 1, 2, 3 }, bad[] = { 1, NAN, 3 }, inf[] = { 1, INFINITY };
	double b[] = { 9, 7, 8 };
	struct stats_shift s;

	ok(stats_shift(a, 0, b, 3, 0.95, &s) == -EINVAL &&
	       stats_shift(a, 3, b, 0, 0.95, &s) == -EINVAL &&
	       stats_shift(a, 3, b, 3, 0, &s) == -EINVAL &&
	       stats_shift(a, 3, b, 3, 1, &s) == -EINVAL &&
	       stats_shift(a, 3, b, 3, NAN, &s) == -EINVAL &&
	       stats_shift(a, 3, bad, 3, 0.95, &s) == -EINVAL &&
	       stats_shift(inf, 2, b, 3, 0.95, &s) == -EINVAL &&
	       stats_shift(NULL, 3, b, 3, 0.95, &s) == -EINVAL &&
	       stats_shift(a, 3, b, 3, 0.95, NULL) == -EINVAL,
	   "-EINVAL for empty samples, conf outside (0, 1), non-finite values, NULL");
	ok(stats_shift(a, 3, b, 3, 0.95, &s) == 0 && b[0] == 9 && b[1] == 7 && b[2] == 8,
	   "input left unsorted (the function sorts a copy)");
}

/* ---- selection against brute force ---- */

/* k for the normal ranks without ties, as documented in stats.c */
static size_t normal_k(size_t m, size_t n, double conf)
{
	double mn = (double)m * n, sd = sqrt(mn * (m + n + 1) / 12);
	return (size_t)floor(mn / 2 + stats_norm_quantile((1 - conf) / 2) * sd + 0.5);
}

static void shift_selection_brute(void)
{
	enum { NA = 300, NB = 257 };
	static double a[NA], b[NB];
	struct stats_shift s;
	int good = 1;

	/* non-integer values: no ties to end a selection early */
	tap_rnd_seed(300);
	for (int i = 0; i < NA; i++)
		a[i] = expo(1000) + 10000;
	for (int j = 0; j < NB; j++)
		b[j] = expo(1200) + 10020;
	double *d = brute_diffs(a, NA, b, NB);
	size_t mn = (size_t)NA * NB, k = normal_k(NA, NB, 0.95);
	int r = stats_shift(a, NA, b, NB, 0.95, &s);
	ok(r == 0 && !s.exact && s.shift == brute_median(d, mn) && s.lo == d[k - 1] &&
	       s.hi == d[mn - k],
	   "300 x 257 doubles: HL and interval ends (k = %zu) equal the brute force exactly", k);
	free(d);

	/* integer ns with many ties, odd and even mn, many sizes */
	for (int rep = 0; rep < 200 && good; rep++) {
		size_t m = 1 + tap_rnd() % 60, n = 1 + tap_rnd() % 60;
		for (size_t i = 0; i < m; i++)
			a[i] = floor(expo(8)) * 1000;
		for (size_t j = 0; j < n; j++)
			b[j] = floor(expo(8)) * 1000 - (rep % 3) * 1000;
		d = brute_diffs(a, m, b, n);
		r = stats_shift(a, m, b, n, 0.95, &s);
		/* the interval ends are differences, the shift their median */
		good = r == 0 && s.shift == brute_median(d, m * n) && all_finite(&s) &&
		       (!s.ci || (bsearch(&s.lo, d, m * n, sizeof(*d), cmp_double) &&
				  bsearch(&s.hi, d, m * n, sizeof(*d), cmp_double)));
		free(d);
	}
	ok(good, "200 random tied samples up to 60 x 60: HL equals the brute-force median, the "
		 "interval ends are differences");
}

/* Past the selection's listing threshold: its sampling rounds, the ties
 * that stall them (integer ns), a sample of one value.  Exact against the
 * brute force: the shift is the median of the differences, the interval
 * ends are D_(k) and D_(mn + 1 - k) for one k (the normal k when nothing
 * ties). */
static void shift_selection_rounds(void)
{
	enum { NA = 1500, NB = 1300 };
	static double a[NA], b[NB];
	static const char *what[] = { "doubles", "integer ns", "few values", "one value in a" };
	static const double confs[] = { 0.5, 0.9, 0.95, 0.999999 };
	size_t mn = (size_t)NA * NB;
	char bad[160] = "";

	for (int c = 0; c < 4 && !bad[0]; c++) {
		tap_rnd_seed(1500 + c);
		for (int i = 0; i < NA; i++)
			a[i] = c == 0	? expo(1000) + 10000
			       : c == 1 ? 20000 + floor(expo(300))
			       : c == 2 ? floor(expo(2)) * 1000
					: 5000;
		for (int j = 0; j < NB; j++)
			b[j] = c == 0	? expo(1200) + 10020
			       : c == 1 ? 20040 + floor(expo(300))
			       : c == 2 ? floor(expo(2)) * 1000
					: 5000 + j % 3;
		double *d = brute_diffs(a, NA, b, NB);
		for (size_t q = 0; q < sizeof(confs) / sizeof(confs[0]) && !bad[0]; q++) {
			struct stats_shift s;
			size_t k = 0;
			int r = stats_shift(a, NA, b, NB, confs[q], &s);

			/* the k whose D_(k), D_(mn + 1 - k) are the ends */
			if (r == 0 && s.ci)
				for (size_t i = 0; i < mn && !k; i++)
					if (d[i] == s.lo && d[mn - 1 - i] == s.hi)
						k = i + 1;
			if (r != 0 || s.shift != brute_median(d, mn) || !s.ci || !k ||
			    (c == 0 && k != normal_k(NA, NB, confs[q])))
				snprintf(bad, sizeof(bad),
					 "%s at %g: HL %g (brute %g), [%g, %g], k %zu", what[c],
					 confs[q], s.shift, brute_median(d, mn), s.lo, s.hi, k);
		}
		free(d);
	}
	ok(!bad[0],
	   "1500 x 1300 (doubles, integer ns, few values, one value): HL and interval ends "
	   "equal the brute force exactly%s%s",
	   bad[0] ? ": " : "", bad);
}

/* stats_select against a sort: every k of small arrays with ties, a few of
 * a large one, and the partition it leaves. */
static void select_vs_sort(void)
{
	enum { BIG = 100001 };
	double *x = malloc(BIG * sizeof(*x)), *y = malloc(BIG * sizeof(*y));
	int good = 1;

	tap_rnd_seed(7);
	for (int rep = 0; rep < 300 && good; rep++) {
		size_t n = 1 + tap_rnd() % 40;
		for (size_t i = 0; i < n; i++)
			y[i] = rep % 2 ? floor(expo(3)) : gauss();
		qsort(y, n, sizeof(*y), cmp_double);
		for (size_t k = 1; k <= n && good; k++) {
			for (size_t i = 0; i < n; i++)
				x[i] =
				    y[(i * 7 + rep) % n]; /* a shuffle when 7 and n are coprime */
			if (n % 7 == 0)
				for (size_t i = 0; i < n; i++)
					x[i] = y[n - 1 - i];
			good = stats_select(x, n, k) == y[k - 1];
		}
	}
	for (size_t i = 0; i < BIG; i++)
		x[i] = y[i] = floor(expo(50));
	qsort(y, BIG, sizeof(*y), cmp_double);
	const size_t ks[] = { 1, 2, BIG / 2, BIG / 2 + 1, BIG - 1, BIG };
	for (size_t t = 0; t < sizeof(ks) / sizeof(ks[0]) && good; t++) {
		double v = stats_select(x, BIG, ks[t]);
		good = v == y[ks[t] - 1] && x[ks[t] - 1] == v;
		for (size_t i = 0; i < BIG && good; i++)
			good = i < ks[t] - 1 ? x[i] <= v : x[i] >= v;
	}
	ok(good, "stats_select gives the k-th of a sort (300 small arrays, every k; 100 001 "
		 "values with ties) and leaves none larger before it, none smaller after");
	free(x);
	free(y);
}

static void shift_recovery(void)
{
	enum { N = 2000 };
	static double a[N], b[N];
	struct stats_shift s;

	/* integer ns like real interval maxima: base 20 us, exponential tail
	 * of mean 100 ns; HL's standard error here is about 1.8 ns */
	tap_rnd_seed(2000);
	for (int i = 0; i < N; i++) {
		a[i] = 20000 + floor(expo(100));
		b[i] = 20000 + floor(expo(100)) + 50;
	}
	int r = stats_shift(a, N, b, N, 0.95, &s);
	ok(r == 0 && near(s.shift, 50, 6) && s.lo <= 50 && s.hi >= 50 && s.p < 1e-6,
	   "2000 vs 2000 shifted by 50: HL %g, interval [%g, %g], p %.1e", s.shift, s.lo, s.hi,
	   s.p);
}

/* ---- coverage under the null ---- */

static void coverage(size_t n, int tied, uint64_t seed)
{
	enum { REPS = 400 };
	double a[100], b[100];
	int cover = 0, reject = 0, fine = 1;

	tap_rnd_seed(seed);
	for (int rep = 0; rep < REPS; rep++) {
		struct stats_shift s;
		for (size_t i = 0; i < n; i++) {
			a[i] = tied ? floor(expo(3)) : expo(1000);
			b[i] = tied ? floor(expo(3)) : expo(1000);
		}
		if (stats_shift(a, n, b, n, 0.95, &s) != 0 || !s.ci || !all_finite(&s)) {
			fine = 0;
			continue;
		}
		cover += s.lo <= 0 && s.hi >= 0;
		reject += s.p < 0.05;
	}
	double c = 100.0 * cover / REPS, rj = 100.0 * reject / REPS;
	if (tied)
		ok(fine && c >= 90 && rj <= 9,
		   "no shift, %zu vs %zu with ties: 95%% interval covers 0 in %.1f%%, p < 0.05 in "
		   "%.1f%%",
		   n, n, c, rj);
	else
		ok(fine && c >= 90 && c <= 99 && rj <= 9,
		   "no shift, %zu vs %zu (%s): 95%% interval covers 0 in %.1f%%, p < 0.05 in %.1f%%",
		   n, n, n < STATS_EXACT_MAX ? "exact" : "normal", c, rj);
}

/* ---- large ---- */

static void shift_large(void)
{
	enum { N = 100000 };
	double *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	struct stats_shift s;

	tap_rnd_seed(100000);
	for (int i = 0; i < N; i++) {
		a[i] = 15000 + floor(expo(2000));
		b[i] = 15000 + floor(expo(2000)) - 50;
	}
	/* The reference: the best of 3 sorts of the 2N values (qsort with this
	 * file's comparison), the machine's speed at this now. */
	double *c = malloc(2 * N * sizeof(*c)), ref = 0;
	for (int k = 0; c && k < 3; k++) {
		memcpy(c, a, N * sizeof(*c));
		memcpy(c + N, b, N * sizeof(*c));
		double t = now();
		qsort(c, 2 * N, sizeof(*c), cmp_double);
		t = now() - t;
		if (k == 0 || t < ref)
			ref = t;
	}
	free(c);
	double t0 = now();
	int r = stats_shift(a, N, b, N, 0.95, &s);
	double dt1 = now() - t0;
	for (int i = 0; i < N; i++) { /* non-integer: no ties */
		a[i] += unif();
		b[i] += unif();
	}
	struct stats_shift t;
	t0 = now();
	int r2 = stats_shift(a, N, b, N, 0.95, &t);
	double dt2 = now() - t0;
	diag("100 000 x 100 000: %.0f ms (integer ns), %.0f ms (doubles); a sort of the 200 000 "
	     "values %.1f ms",
	     dt1 * 1e3, dt2 * 1e3, ref * 1e3);
	/* HL's standard error here is about 5 ns.  Completes: within 100 sorts
	 * of the values (~4 here; the pairwise differences, 10^10 of them,
	 * would take thousands). */
	ok(r == 0 && r2 == 0 && near(s.shift, -50, 15) && s.lo <= -50 && s.hi >= -50 &&
	       near(t.shift, -50, 15) && s.p < 1e-6 && all_finite(&s) && all_finite(&t) &&
	       ref > 0 && dt1 <= 100 * ref && dt2 <= 100 * ref,
	   "100 000 x 100 000 completes: HL %g, interval [%g, %g] (%.0f ms, %.0f sorts of the values)",
	   s.shift, s.lo, s.hi, dt1 * 1e3, dt1 / ref);
	free(a);
	free(b);
}

/* ---- quantile ranks ---- */

static double lpmf(uint64_t n, double q, uint64_t k)
{
	return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma((double)(n - k) + 1) + k * log(q) +
	       (double)(n - k) * log1p(-q);
}

/* P(K <= j) and P(K >= h) for K ~ Binomial(n, q), summed term by term. */
static double binom_cdf(uint64_t n, double q, int64_t j)
{
	double s = 0;
	for (int64_t k = 0; k <= j; k++)
		s += exp(lpmf(n, q, (uint64_t)k));
	return s;
}

static double binom_sf(uint64_t n, double q, uint64_t h)
{
	double s = 0;
	for (uint64_t k = h; k <= n; k++)
		s += exp(lpmf(n, q, k));
	return s;
}

static void quantile_median_100(void)
{
	uint64_t lo, hi;
	bool reached;

	/* Brute force: lo is the largest with P(K <= lo - 1) <= 0.025, hi
	 * the smallest with P(K >= hi) <= 0.025 (K ~ Bin(100, 0.5)). */
	uint64_t blo = 1, bhi = 100;
	while (binom_cdf(100, 0.5, (int64_t)blo) <= 0.025)
		blo++;
	while (binom_sf(100, 0.5, bhi - 1) <= 0.025)
		bhi--;
	stats_quantile_ranks(100, 0.5, 0.95, &lo, &hi, &reached);
	ok(reached && lo == blo && hi == bhi && lo == 40 && hi == 61,
	   "median of 100 at 95%%: ranks [%" PRIu64 ", %" PRIu64 "] = brute force [40, 61]", lo,
	   hi);
}

static void quantile_sweep(void)
{
	static const double qs[] = { 0.01, 0.1, 0.5, 0.9, 0.99, 0.999 };
	int bad = 0, cases = 0, unreached = 0;

	for (uint64_t n = 1; n <= 300; n++) {
		for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
			uint64_t lo, hi;
			bool reached;
			double q = qs[i];

			stats_quantile_ranks(n, q, 0.95, &lo, &hi, &reached);
			double tlo = binom_cdf(n, q, (int64_t)lo - 1), thi = binom_sf(n, q, hi);
			double full = binom_cdf(n, q, 0) + binom_sf(n, q, n);
			cases++;
			if (lo < 1 || hi > n || lo > hi) {
				bad++;
			} else if (!reached) {
				/* only when (1, n) itself misses */
				unreached++;
				bad += !(lo == 1 && hi == n && full > 0.05 - 1e-12);
			} else {
				bad += !(tlo + thi <= 0.05 + 1e-12);
				/* equal tails unless one end is at 1 or n */
				if (lo > 1 && hi < n)
					bad += !(tlo <= 0.025 + 1e-12 &&
						 binom_cdf(n, q, (int64_t)lo) > 0.025 - 1e-12 &&
						 thi <= 0.025 + 1e-12 &&
						 binom_sf(n, q, hi - 1) > 0.025 - 1e-12);
			}
		}
	}
	ok(bad == 0,
	   "n = 1..300, 6 quantiles: coverage >= 95%% whenever reached, tails equal "
	   "and tight (%d cases, %d unreachable)",
	   cases, unreached);
}

static void quantile_large(void)
{
	uint64_t lo, hi, n = 1000000;
	bool reached;
	double q = 0.999, mean = n * q, sd = sqrt(mean * (1 - q));

	stats_quantile_ranks(n, q, 0.95, &lo, &hi, &reached);
	double cov_normal =
	    stats_norm_cdf((hi - 0.5 - mean) / sd) - stats_norm_cdf((lo - 0.5 - mean) / sd);
	double tlo = binom_cdf(n, q, (int64_t)lo - 1), thi = binom_sf(n, q, hi);
	ok(reached && cov_normal >= 0.95 && tlo <= 0.025 && thi <= 0.025 &&
	       binom_cdf(n, q, (int64_t)lo) > 0.025 && binom_sf(n, q, hi - 1) > 0.025,
	   "p99.9 of 10^6 at 95%%: ranks [%" PRIu64 ", %" PRIu64
	   "], coverage %.4f (normal) %.4f (exact), tails tight",
	   lo, hi, cov_normal, 1 - tlo - thi);

	/* the normal branch: symmetric around the median, as the formula
	 * with continuity correction gives */
	n = 1000000000000ull;
	stats_quantile_ranks(n, 0.5, 0.95, &lo, &hi, &reached);
	mean = n * 0.5;
	sd = sqrt(mean * 0.5);
	double want = floor(mean - 1.959963984540054 * sd - 0.5) + 1;
	ok(reached && lo == (uint64_t)want && hi == n + 1 - lo,
	   "median of 10^12 (normal approximation): lo = %" PRIu64 ", hi = n + 1 - lo", lo);
}

static void quantile_unreachable(void)
{
	uint64_t lo, hi;
	bool reached;

	stats_quantile_ranks(5, 0.99, 0.95, &lo, &hi, &reached);
	ok(!reached && lo == 1 && hi == 5, "p99 of 5 samples: not reached, ranks [1, 5]");
	/* 0.99^300 = 0.049: hi must be n, and lo gets the remaining 0.001 */
	stats_quantile_ranks(300, 0.99, 0.95, &lo, &hi, &reached);
	double cov = 1 - binom_cdf(300, 0.99, (int64_t)lo - 1) - binom_sf(300, 0.99, hi);
	ok(reached && hi == 300 && cov >= 0.95 && binom_cdf(300, 0.99, (int64_t)lo) > 0.001,
	   "p99 of 300: upper rank at n, the lower tail takes the rest (lo %" PRIu64
	   ", coverage %.4f)",
	   lo, cov);
	stats_quantile_ranks(0, 0.5, 0.95, &lo, &hi, &reached);
	ok(!reached && lo == 0 && hi == 0, "n = 0: ranks [0, 0], not reached");
}

/* ---- autocorrelation and blocks ---- */

static void autocorr(void)
{
	enum { N = 100000 };
	static double x[N];
	double v = 0;

	tap_rnd_seed(70);
	for (int i = 0; i < N; i++)
		x[i] = v = 0.7 * v + gauss();
	double r = stats_autocorr1(x, N);
	ok(near(r, 0.7, 0.02), "AR(1) with phi = 0.7: lag-1 autocorrelation %.4f", r);
	for (int i = 0; i < 1000; i++)
		x[i] = i % 2 ? 1 : -1;
	r = stats_autocorr1(x, 1000);
	ok(r < -0.99 && r >= -1, "alternating +-1: lag-1 autocorrelation %.4f", r);
	for (int i = 0; i < 10; i++)
		x[i] = 42;
	ok(stats_autocorr1(x, 10) == 0 && stats_autocorr1(x, 2) == 0,
	   "constant series and n < 3: autocorrelation 0");
}

static void block_max(void)
{
	double x[] = { 1, 5, 2, 7, 3, 0, 4 }, y[] = { 1, 5, 2, 7, 3, 0, 4 };
	size_t n = stats_block_max(x, 7, 3);

	ok(n == 3 && x[0] == 5 && x[1] == 7 && x[2] == 4,
	   "block_max by 3: {1,5,2 | 7,3,0 | 4} -> {5, 7, 4}, partial block kept");
	size_t n1 = stats_block_max(y, 7, 1), n0 = stats_block_max(y, 7, 0);
	size_t nb = stats_block_max(y, 7, 100);
	ok(n1 == 7 && n0 == 7 && nb == 1 && y[0] == 7 && stats_block_max(y, 0, 3) == 0,
	   "block_max by 0 or 1 keeps everything, by more than n gives the max, empty stays empty");
}

int main(void)
{
	tap_plan(44);
	norm_known_values();
	norm_round_trip();
	shift_4v4_separated();
	shift_r_example();
	shift_7v6();
	shift_exact_vs_enumeration();
	shift_exact_largest();
	shift_tiny();
	shift_ties();
	shift_identical();
	shift_invalid();
	shift_selection_brute();
	shift_selection_rounds();
	select_vs_sort();
	shift_recovery();
	coverage(30, 0, 1030);
	coverage(80, 0, 1080);
	coverage(40, 1, 1040);
	shift_large();
	quantile_median_100();
	quantile_sweep();
	quantile_large();
	quantile_unreachable();
	autocorr();
	block_max();
	return tap_done();
}
