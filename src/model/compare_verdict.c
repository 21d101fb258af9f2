// SPDX-License-Identifier: GPL-2.0-or-later
/* compare_verdict: the verdict of one match, statistic by statistic, and
 * the overall verdict from them (compare.h says which unit each method
 * tests).
 *
 * Why per statistic: RT sign-off is about the tail, and a tweak can lower
 * p99 while it raises the worst case (the cyclictest file whose p99 fell
 * 31 % while its max rose 36-fold).  One headline verdict over p99 hid
 * that; now the typical latency and the tail are judged apart and the
 * overall verdict is better or worse only when they do not disagree.
 *
 * Why a minimum effect: with many units a rank test finds a 0.1 us shift
 * "significant"; nobody tunes a kernel for that, so a shift below
 * --min-effect is "no practical difference". */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"
#include "parse.h"
#include "stats.h"

/* Thinning stops when a side would have fewer blocks than this. */
#define MIN_BLOCKS 10

bool compare_stat_judgeable(enum compare_stat s)
{
	return s >= COMPARE_P50 && s <= COMPARE_MAX;
}

void compare_opts_default(struct compare_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->on[o->non++] = COMPARE_P99;
	o->on[o->non++] = COMPARE_MAX;
	snprintf(o->on_text, sizeof(o->on_text), "p99,max");
	o->min_effect_ns = COMPARE_MIN_EFFECT_NS;
	o->min_effect_pct = COMPARE_MIN_EFFECT_PCT;
}

static int stat_lookup(const char *name, size_t len, enum compare_stat *out)
{
	for (unsigned s = 0; s < COMPARE_NSTATS; s++)
		if (strlen(compare_stat_name[s]) == len &&
		    !strncmp(name, compare_stat_name[s], len)) {
			*out = s;
			return 0;
		}
	return -EINVAL;
}

int compare_opts_verdict_on(struct compare_opts *o, const char *text, char *err, size_t errlen)
{
	const char *p = text;

	o->non = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		enum compare_stat s;
		if (stat_lookup(p, len, &s) || !compare_stat_judgeable(s)) {
			snprintf(err, errlen,
				 "--verdict-on '%s': '%.*s' is not a statistic compare can judge "
				 "(p50, p90, p99, p99.9, p99.99, p99.999, max)",
				 text, (int)(len > 20 ? 20 : len), p);
			return -EINVAL;
		}
		bool dup = false;
		for (size_t i = 0; i < o->non; i++)
			dup |= o->on[i] == s;
		if (!dup)
			o->on[o->non++] = s;
		if (!p[len])
			break;
		p += len + 1;
	}
	/* as parsed, not as typed: the report's ab.statistic has a pattern */
	o->on_text[0] = 0;
	for (size_t i = 0, l = 0; i < o->non; i++, l = strlen(o->on_text))
		snprintf(o->on_text + l, sizeof(o->on_text) - l, "%s%s", i ? "," : "",
			 compare_stat_name[o->on[i]]);
	return 0;
}

int compare_opts_min_effect(struct compare_opts *o, const char *text, char *err, size_t errlen)
{
	char part[32], perr[160];
	const char *p = text;
	double ns = 0, pct = 0;

	for (;;) {
		size_t len = strcspn(p, ",");
		if (!len || len >= sizeof(part))
			goto bad;
		memcpy(part, p, len);
		part[len] = 0;
		if (part[len - 1] == '%') {
			char *end;
			part[len - 1] = 0;
			errno = 0;
			pct = strtod(part, &end);
			if (end == part || *end || errno || !isfinite(pct) || pct < 0 || pct > 1000)
				goto bad;
		} else {
			uint64_t v;
			if (strcmp(part, "0") && parse_duration(part, 1000, &v, perr, sizeof(perr)))
				goto bad;
			ns = strcmp(part, "0") ? (double)v : 0;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	o->min_effect_ns = ns;
	o->min_effect_pct = pct;
	return 0;
bad:
	snprintf(err, errlen,
		 "--min-effect '%s': expected an amount, a percentage or both, e.g. 2us,5%%, "
		 "10us, 3%% or 0",
		 text);
	return -EINVAL;
}

void compare_opts_need(struct compare_opts *o, const struct compare_limit *l, size_t nl)
{
	for (size_t i = 0; i < nl; i++) {
		bool have = false;
		if (l[i].raw || !compare_stat_judgeable(l[i].stat))
			continue;
		for (size_t k = 0; k < o->nextra; k++)
			have |= o->extra[k] == l[i].stat;
		if (!have && o->nextra < COMPARE_MAX_JUDGED)
			o->extra[o->nextra++] = l[i].stat;
	}
}

const struct compare_judgement *compare_judged(const struct compare_match *m,
					       enum compare_stat stat)
{
	for (size_t i = 0; i < m->nj; i++)
		if (m->j[i].stat == stat && m->j[i].asked == stat)
			return &m->j[i];
	return NULL;
}

static double median(const double *x, size_t n)
{
	double *s = n ? malloc(n * sizeof(*s)) : NULL, v;

	if (!s)
		return n ? x[0] : 0;
	memcpy(s, x, n * sizeof(*s));
	for (size_t i = 1; i < n; i++) { /* n is small where this runs twice */
		double t = s[i];
		size_t k = i;
		while (k && s[k - 1] > t) {
			s[k] = s[k - 1];
			k--;
		}
		s[k] = t;
	}
	v = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return v;
}

/* The median of a day of interval maxima: by selection, not a sort. */
static double median_big(const double *x, size_t n)
{
	double *s, v;

	if (n < 64)
		return median(x, n);
	if (!(s = malloc(n * sizeof(*s))))
		return x[0];
	memcpy(s, x, n * sizeof(*s));
	v = stats_select(s, n, n / 2 + 1);
	if (n % 2 == 0) /* and the largest below it, which selection left there */
		v = (v + stats_select(s, n / 2, n / 2)) / 2;
	free(s);
	return v;
}

/* Significance and practical size decide a statistic's verdict. */
static void decide(struct compare_judgement *j, const struct compare_opts *o)
{
	double rel = o->min_effect_pct / 100.0 * fabs(j->ref_ns);

	j->effect_ns = o->min_effect_ns > rel ? o->min_effect_ns : rel;
	j->verdict = COMPARE_SAME;
	if (j->p >= 0) /* by_order, without a p, set it from its wider intervals */
		j->strong = j->significant && j->p <= COMPARE_ALPHA / (double)(o->non ? o->non : 1);
	if (!j->significant)
		return;
	if (fabs(j->shift_ns) < j->effect_ns) {
		snprintf(j->note, sizeof(j->note),
			 "no practical difference: %+.1f us is significant but below the minimum "
			 "effect %.1f us",
			 j->shift_ns / 1000.0, j->effect_ns / 1000.0);
		return;
	}
	j->verdict = j->lo_ns > 0 ? COMPARE_WORSE : COMPARE_BETTER;
}

/* w: room kept from one test to the next (stats_shift_in), or NULL. */
static int rank_test(struct compare_judgement *j, const double *a, size_t na, const double *b,
		     size_t nb, struct stats_work *w)
{
	struct stats_shift st;
	int rc = w ? stats_shift_in(w, a, na, b, nb, COMPARE_CONF, &st)
		   : stats_shift(a, na, b, nb, COMPARE_CONF, &st);

	if (rc < 0)
		return rc;
	j->shift_ns = st.shift;
	j->lo_ns = st.lo;
	j->hi_ns = st.hi;
	j->p = st.p;
	j->ci = st.ci;
	j->na = st.na;
	j->nb = st.nb;
	/* Significant only when the rank test rejects and the interval for the
	 * shift excludes zero: the two agree except at the boundary. */
	j->significant = st.ci && st.p < COMPARE_ALPHA && (st.lo > 0 || st.hi < 0);
	return 0;
}

/* ---------------------------------------------------- by intervals -- */

static const struct report_series *find_series(const struct report *r, const char *probe, int cpu)
{
	for (size_t i = 0; i < r->nseries; i++)
		if (r->series[i].cpu == cpu && !strcmp(r->series[i].probe, probe))
			return &r->series[i];
	return NULL;
}

/* The per-interval values behind a result, in *out (malloc'd), or 0 when
 * there is no usable series: col SERIES_NQ the maxima, col k < SERIES_NQ
 * the quantile series_quant_pct[k] (series.h; none in reports before them).
 * An aggregate takes the largest over its CPUs' series interval by
 * interval (for a quantile: the worst CPU's, an upper bound of the
 * aggregate's own).  Intervals with fewer than half the median sample count
 * (the partial last one, a stall) are left out: their max is biased low and
 * their quantiles rest on few samples.  *merged: a quantile series had
 * merged pairs (its values are upper bounds). */
static size_t interval_values(const struct report *r, const struct report_result *res, int col,
			      uint64_t *interval_ns, bool *merged, double **out)
{
	const struct report_series *one[1], **ser = one;
	size_t nser = 0, n = SIZE_MAX, k = 0;
	double *max = NULL;
	uint64_t *cnt = NULL;
	bool quant = col < SERIES_NQ;

	*out = NULL;
	*merged = false;
	/* Series span every phase: they stand for a phase's result only when
	 * it is "all" or the run had a single phase. */
	if (strcmp(res->phase, "all") && json_array_size(json_object_get(r->config, "phases")) > 1)
		return 0;
	if (res->cpu != REPORT_CPU_ALL) {
		if (!(one[0] = find_series(r, res->probe, res->cpu)))
			return 0;
		nser = 1;
	} else {
		ser = calloc(r->nseries ? r->nseries : 1, sizeof(*ser));
		if (!ser)
			return 0;
		for (size_t i = 0; i < r->nseries; i++)
			if (!strcmp(r->series[i].probe, res->probe))
				ser[nser++] = &r->series[i];
	}
	for (size_t i = 0; i < nser; i++) {
		uint64_t ivl = quant ? ser[i]->quant_interval_ns : ser[i]->interval_ns;
		uint64_t ivl0 = quant ? ser[0]->quant_interval_ns : ser[0]->interval_ns;
		size_t ni = quant ? ser[i]->nquant : ser[i]->n;
		*merged |= quant && ser[i]->quant_merged;
		if (ivl != ivl0 || (quant && !ni))
			nser = 0; /* CPUs merged differently (no common grid), or no quantiles */
		else if (ni < n)
			n = ni;
	}
	if (!nser || !n || n == SIZE_MAX || !(max = calloc(n, sizeof(*max))) ||
	    !(cnt = calloc(n, sizeof(*cnt))))
		goto out;
	for (size_t i = 0; i < nser; i++) {
		if (quant) {
			for (size_t j = 0; j < n; j++) {
				const struct series_quant *q = &ser[i]->quant[j];
				double v = q->count ? (double)series_quant_ns(q->q[col]) : 0;
				if (v > max[j])
					max[j] = v;
				cnt[j] += q->count;
			}
			continue;
		}
		struct series_cursor c;
		struct series_interval iv;
		series_cursor_init(&c, ser[i]->st, 0);
		for (size_t j = 0; j < n && series_cursor_next(&c, &iv); j++) {
			if ((double)iv.max_ns > max[j])
				max[j] = (double)iv.max_ns;
			cnt[j] += iv.count;
		}
	}
	/* median count, by selection in a copy (counts are far below 2^53,
	 * exact as doubles) */
	double *sel = malloc(n * sizeof(*sel)), med;
	if (!sel)
		goto out;
	for (size_t j = 0; j < n; j++)
		sel[j] = (double)cnt[j];
	med = stats_select(sel, n, n / 2 + 1);
	free(sel);
	for (size_t j = 0; j < n; j++)
		if (cnt[j] && 2 * (double)cnt[j] >= med)
			max[k++] = max[j];
	*interval_ns = quant ? ser[0]->quant_interval_ns : ser[0]->interval_ns;
	*out = max;
	max = NULL;
out:
	free(max);
	free(cnt);
	if (ser != one)
		free(ser);
	return *out ? k : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The interquartile range of x (n >= 1): the spread of a run's blocks. */
static double iqr(const double *x, size_t n)
{
	double *s = malloc(n * sizeof(*s)), v;

	if (!s)
		return 0;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	/* linear interpolation between order statistics (type 7) */
	double lo = 0.25 * (double)(n - 1), hi = 0.75 * (double)(n - 1);
	size_t l = (size_t)lo, h = (size_t)hi;
	double ql = s[l] + (lo - (double)l) * (l + 1 < n ? s[l + 1] - s[l] : 0);
	double qh = s[h] + (hi - (double)h) * (h + 1 < n ? s[h + 1] - s[h] : 0);
	v = qh - ql;
	free(s);
	return v;
}

struct rank_of {
	double v;
	size_t i;
};

static int cmp_rank_of(const void *a, const void *b)
{
	const struct rank_of *x = a, *y = b;
	return (x->v > y->v) - (x->v < y->v);
}

/* Spearman's rho of x with its order and its two-sided p: exact up to 8
 * values (compare_spearman), else the normal approximation over all of
 * them (compare_spearman's looks at the first 64 only, enough for ab's
 * rounds, not for a day's blocks). */
void compare_trend(const double *x, size_t n, double *rho, double *p)
{
	struct rank_of *r;
	double *rk;

	if (n <= 8) {
		compare_spearman(x, n, rho, p);
		return;
	}
	*rho = 0;
	*p = 1;
	r = malloc(n * sizeof(*r));
	rk = malloc(n * sizeof(*rk));
	if (!r || !rk)
		goto out;
	for (size_t i = 0; i < n; i++)
		r[i] = (struct rank_of){ x[i], i };
	qsort(r, n, sizeof(*r), cmp_rank_of);
	for (size_t i = 0; i < n;) { /* average ranks for ties */
		size_t e = i;
		while (e + 1 < n && r[e + 1].v == r[i].v)
			e++;
		for (size_t k = i; k <= e; k++)
			rk[r[k].i] = (double)(i + e) / 2 + 1;
		i = e + 1;
	}
	double mr = ((double)n + 1) / 2, sxy = 0, sxx = 0, syy = 0;
	for (size_t i = 0; i < n; i++) {
		double dx = rk[i] - mr, dy = (double)i + 1 - mr;
		sxy += dx * dy;
		sxx += dx * dx;
		syy += dy * dy;
	}
	if (sxx > 0 && syy > 0) {
		*rho = sxy / sqrt(sxx * syy);
		*p = 2 * (1 - stats_norm_cdf(fabs(*rho) * sqrt((double)n - 1)));
	}
out:
	free(r);
	free(rk);
}

/* What a single run's blocks cannot separate (issue 30): a verdict of
 * better or worse stands only when neither run drifts by half the shift or
 * more (a trend of its blocks, Spearman p < COMPARE_RUN_DRIFT_ALPHA: the
 * difference may be when the runs were taken) and the shift is larger
 * than the spread of a run's blocks (their interquartile range: one run a
 * side cannot measure how much a second run would differ, and within a
 * run its blocks differ by this much).  Else "no verdict" with the reason
 * in the note. */
static void separable(struct compare_judgement *j, const double *a, size_t na, const double *b,
		      size_t nb)
{
	const double *side[2] = { a, b };
	size_t n[2] = { na, nb };

	j->spread_ns = 0;
	for (int s = 0; s < 2; s++) {
		double q = iqr(side[s], n[s]);
		if (q > j->spread_ns)
			j->spread_ns = q;
	}
	j->drift_p = 1;
	j->drift_ns = 0;
	for (int s = 0; s < 2; s++) {
		double rho, p, first, last;
		size_t h = n[s] / 2;
		compare_trend(side[s], n[s], &rho, &p);
		first = median(side[s], h);
		last = median(side[s] + n[s] - h, h);
		if (p < COMPARE_RUN_DRIFT_ALPHA && fabs(last - first) > fabs(j->drift_ns)) {
			j->drift_ns = last - first;
			j->drift_p = p;
			j->drift_side = s ? 'B' : 'A';
		}
	}
	if (j->verdict != COMPARE_BETTER && j->verdict != COMPARE_WORSE)
		return;
	if (j->drift_p < COMPARE_RUN_DRIFT_ALPHA && 2 * fabs(j->drift_ns) >= fabs(j->shift_ns)) {
		j->verdict = COMPARE_NO_VERDICT;
		snprintf(j->note, sizeof(j->note),
			 "no verdict: %c drifts by %+.1f us within its run (Spearman p %.2g), half "
			 "the shift %+.1f us or more",
			 j->drift_side, j->drift_ns / 1000.0, j->drift_p, j->shift_ns / 1000.0);
	} else if (fabs(j->shift_ns) <= j->spread_ns) {
		j->verdict = COMPARE_NO_VERDICT;
		snprintf(j->note, sizeof(j->note),
			 "no verdict: a run's blocks spread by %.1f us (IQR), more than the shift "
			 "%+.1f us",
			 j->spread_ns / 1000.0, j->shift_ns / 1000.0);
	}
}

/* max by interval maxima (col SERIES_NQ), a percentile by its per-interval
 * quantiles (col k): blocks of intervals, merged while neighbours are still
 * correlated, by Mann-Whitney U and a Hodges-Lehmann interval, then what
 * one run a side cannot separate (separable).  Returns 1 when it applied
 * (the verdict is decided), 0 when the series do not have the values (the
 * caller falls back), -ENOMEM. */
static int by_series(struct compare_judgement *j, const struct compare_match *m,
		     const struct comparison *c, int col)
{
	double *a, *b;
	uint64_t ia = 0, ib = 0;
	bool ma, mb;
	size_t na = interval_values(c->a, m->a, col, &ia, &ma, &a);
	size_t nb = interval_values(c->b, m->b, col, &ib, &mb, &b);
	size_t block = 1;
	double r1 = 0;
	int rc = 0;
	const char *what = col < SERIES_NQ ? "quantile" : "maxima";

	if (!a || !b)
		goto out;
	j->method = col < SERIES_NQ ? COMPARE_BY_BLOCKS : COMPARE_BY_INTERVALS;
	/* Different series intervals (a longer run merged pairs): bring the
	 * finer one onto the coarser grid when one is a multiple of the other. */
	if (ia != ib) {
		uint64_t big = ia > ib ? ia : ib, small = ia > ib ? ib : ia;
		if (big % small)
			goto out;
		if (ia < ib)
			na = stats_block_max(a, na, big / small);
		else
			nb = stats_block_max(b, nb, big / small);
	}
	j->unit_ns = ia > ib ? ia : ib;
	j->na = na;
	j->nb = nb;
	if (na < COMPARE_MIN_BLOCKS || nb < COMPARE_MIN_BLOCKS) {
		j->verdict = COMPARE_NO_VERDICT;
		j->p = -1;
		snprintf(j->note, sizeof(j->note),
			 "no verdict: %zu vs %zu intervals with samples, fewer than %d a side "
			 "(a longer run, or a finer --series-interval)",
			 na, nb, COMPARE_MIN_BLOCKS);
		rc = 1;
		goto out;
	}
	/* Thin out while neighbouring values are still correlated: a rank
	 * test over dependent units claims more certainty than it has.  A
	 * block's value is the largest of its intervals' (for a quantile an
	 * upper bound of the block's own, as a merged series keeps). */
	for (;;) {
		double ra1 = fabs(stats_autocorr1(a, na)), rb1 = fabs(stats_autocorr1(b, nb));
		size_t nmin = na < nb ? na : nb;
		r1 = ra1 > rb1 ? ra1 : rb1;
		if (r1 <= 2.0 / sqrt((double)nmin) || nmin / 2 < MIN_BLOCKS)
			break;
		na = stats_block_max(a, na, 2);
		nb = stats_block_max(b, nb, 2);
		block *= 2;
	}
	if ((rc = rank_test(j, a, na, b, nb, c->work)) < 0)
		goto out;
	j->ref_ns = median_big(a, na);
	j->unit_ns *= block;
	if (block > 1)
		snprintf(j->note, sizeof(j->note),
			 "%s of %zu-interval blocks (neighbouring intervals were correlated)", what,
			 block);
	if (r1 > 2.0 / sqrt((double)(na < nb ? na : nb)))
		snprintf(j->note, sizeof(j->note),
			 "interval %s still correlated (lag-1 %.2f): the test is optimistic", what,
			 r1);
	if ((ma || mb) && !j->note[0])
		snprintf(j->note, sizeof(j->note),
			 "a long run's merged intervals: their %s are upper bounds",
			 compare_stat_name[j->stat]);
	decide(j, &c->opts);
	separable(j, a, na, b, nb);
	rc = 1;
out:
	free(a);
	free(b);
	return rc;
}

/* ------------------------------------------------------- by order -- */

/* A percentile's order-statistic confidence interval in each run; the
 * shift's interval is the conservative difference of the two. */
static void order_bounds(const struct report_result *s, double q, double conf, uint64_t *lo,
			 uint64_t *hi, bool *reached)
{
	uint64_t rlo, rhi, dummy;

	stats_quantile_ranks(s->count, q, conf, &rlo, &rhi, reached);
	histogram_sparse_rank_bounds(s->hist, rlo, s->min, s->max, lo, &dummy);
	histogram_sparse_rank_bounds(s->hist, rhi, s->min, s->max, &dummy, hi);
}

/* k: the --verdict-on statistics; the intervals again at 1 - alpha / k
 * decide whether this one is strong (decide()). */
static void by_order(struct compare_judgement *j, const struct compare_match *m, size_t k_on)
{
	const struct report_result *side[2] = { m->a, m->b };
	unsigned k = j->stat - COMPARE_P50;
	double q = report_pct[k] / 100.0;
	uint64_t lo[2], hi[2];
	bool reached[2];

	j->method = COMPARE_BY_ORDER;
	j->p = -1; /* no p-value: the intervals decide */
	for (int i = 0; i < 2; i++) {
		const struct report_result *s = side[i];
		if (!s->count || !s->hist || (s->unknown & REPORT_UNKNOWN_PCT)) {
			j->method = COMPARE_BY_NOTHING;
			j->verdict = COMPARE_UNTESTED;
			snprintf(j->note, sizeof(j->note), "%s: %s", i ? "B" : "A",
				 !s->count ? "no samples" : "no histogram (percentiles unknown)");
			return;
		}
		order_bounds(s, q, COMPARE_CONF, &lo[i], &hi[i], &reached[i]);
	}
	j->shift_ns = (double)m->b->pct[k] - (double)m->a->pct[k];
	j->lo_ns = (double)lo[1] - (double)hi[0];
	j->hi_ns = (double)hi[1] - (double)lo[0];
	j->ci = reached[0] && reached[1];
	j->na = m->a->count;
	j->nb = m->b->count;
	j->ref_ns = (double)m->a->pct[k];
	j->significant = j->ci && (lo[1] > hi[0] || hi[1] < lo[0]);
	j->strong = j->significant;
	if (j->significant && k_on > 1) {
		uint64_t slo[2], shi[2];
		bool sr[2];
		for (int i = 0; i < 2; i++)
			order_bounds(side[i], q, 1 - COMPARE_ALPHA / (double)k_on, &slo[i], &shi[i],
				     &sr[i]);
		j->strong = sr[0] && sr[1] && (slo[1] > shi[0] || shi[1] < slo[0]);
	}
	if (!j->ci) {
		j->verdict = COMPARE_UNTESTED;
		snprintf(j->note, sizeof(j->note), "too few samples for a 95 %% interval of %s",
			 compare_stat_name[j->stat]);
	}
}

/* ------------------------------------------------------ by rounds -- */

static bool round_of(const char *phase, char arm, unsigned *num)
{
	char *end;
	unsigned long v;

	if (phase[0] != arm || phase[1] < '1' || phase[1] > '9')
		return false;
	v = strtoul(phase + 1, &end, 10);
	if (*end || v > 1000)
		return false;
	*num = (unsigned)v;
	return true;
}

static uint64_t stat_value(const struct report_result *x, enum compare_stat s)
{
	return s == COMPARE_MAX ? x->max : x->pct[s - COMPARE_P50];
}

size_t compare_round_values(const struct report *r, const struct report_result *res, char arm,
			    enum compare_stat stat, double *out, size_t max)
{
	const struct report_result *v = res->cpu == REPORT_CPU_ALL ? r->aggregates : r->results;
	size_t n = res->cpu == REPORT_CPU_ALL ? r->naggregates : r->nresults, k = 0;
	unsigned num[RECORDER_MAX_PHASES];

	for (size_t i = 0; i < n && k < max && k < RECORDER_MAX_PHASES; i++) {
		unsigned rn;
		if (v[i].cpu != res->cpu || strcmp(v[i].probe, res->probe) ||
		    !round_of(v[i].phase, arm, &rn) || !v[i].count ||
		    (stat != COMPARE_MAX && (v[i].unknown & REPORT_UNKNOWN_PCT)))
			continue;
		/* in round order, whatever the order of the results */
		size_t at = k;
		while (at && num[at - 1] > rn) {
			num[at] = num[at - 1];
			out[at] = out[at - 1];
			at--;
		}
		num[at] = rn;
		out[at] = (double)stat_value(&v[i], stat);
		k++;
	}
	return k;
}

/* The rank test over per-unit values (rounds of ab, runs of a several-run
 * compare): untested below 2 units a side, and a note below 4, where no
 * arrangement reaches p < 0.05.  what/side name them in the notes. */
static int by_units(struct compare_judgement *j, enum compare_method method, const double *a,
		    size_t na, const double *b, size_t nb, const char *what, const char *side)
{
	int rc;

	j->method = method;
	j->na = na;
	j->nb = nb;
	if (na < 2 || nb < 2) {
		j->verdict = COMPARE_UNTESTED;
		snprintf(j->note, sizeof(j->note), "fewer than 2 %s with samples %s", what, side);
		return 0;
	}
	if ((rc = rank_test(j, a, na, b, nb, NULL)) < 0)
		return rc;
	j->ref_ns = median(a, na);
	if (na < 4 || nb < 4)
		snprintf(j->note, sizeof(j->note), "fewer than 4 %s %s can never reach p < 0.05",
			 what, side);
	return 0;
}

/* Rounds, not samples, are the independent units of an A/B experiment:
 * every statistic of every result is judged by its per-round values. */
static int by_rounds(struct compare_judgement *j, const struct compare_match *m,
		     const struct report *r)
{
	double a[RECORDER_MAX_PHASES], b[RECORDER_MAX_PHASES];
	size_t na = compare_round_values(r, m->a, 'A', j->stat, a, RECORDER_MAX_PHASES);
	size_t nb = compare_round_values(r, m->b, 'B', j->stat, b, RECORDER_MAX_PHASES);

	return by_units(j, COMPARE_BY_ROUNDS, a, na, b, nb, "rounds", "per arm");
}

/* -------------------------------------------------------- by runs -- */

/* A run's value of stat for its matched result r (NULL: the run has no such
 * result); false when it has none (no samples, percentiles not recorded). */
static bool run_value(const struct report_result *r, enum compare_stat s, double *out)
{
	if (!r || !r->count || (s != COMPARE_MAX && (r->unknown & REPORT_UNKNOWN_PCT)))
		return false;
	*out = (double)stat_value(r, s);
	return true;
}

static size_t run_values(const struct report_result *const *r, size_t n, enum compare_stat s,
			 double *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += run_value(r[i], s, &out[k]);
	return k;
}

/* Several runs a side: the runs, not the samples, are the independent
 * units, as rounds are in ab; one run's samples say nothing of how much the
 * next run differs, which on a shared machine is most of the noise. */
static int by_runs(struct compare_judgement *j, const struct report_result *const *ra, size_t na,
		   const struct report_result *const *rb, size_t nb)
{
	double a[COMPARE_MAX_RUNS], b[COMPARE_MAX_RUNS];
	size_t ka = run_values(ra, na, j->stat, a), kb = run_values(rb, nb, j->stat, b);

	return by_units(j, COMPARE_BY_RUNS, a, ka, b, kb, "runs", "a side");
}

/* The statistics table of a match of several runs: totals for count and
 * missed, the median run's value for the rest (what the verdict judges). */
static void runs_values(struct compare_match *m, const struct report_result *const *ra, size_t na,
			const struct report_result *const *rb, size_t nb)
{
	for (unsigned s = 0; s < COMPARE_NSTATS; s++) {
		struct compare_value *v = &m->v[s];
		bool known[2] = { false, false };
		uint64_t val[2] = { 0, 0 };
		for (int side = 0; side < 2; side++) {
			const struct report_result *const *r = side ? rb : ra;
			size_t n = side ? nb : na, k = 0;
			double x[COMPARE_MAX_RUNS];
			bool total = s == COMPARE_COUNT || s == COMPARE_MISSED;
			known[side] = total;
			for (size_t i = 0; i < n; i++) {
				if (!r[i])
					continue;
				if (total) {
					val[side] +=
					    s == COMPARE_COUNT ? r[i]->count : r[i]->missed;
					known[side] &= s == COMPARE_COUNT ||
						       !(r[i]->unknown & REPORT_UNKNOWN_MISSED);
					continue;
				}
				if (!r[i]->count)
					continue;
				if (s == COMPARE_MIN)
					x[k++] = (double)r[i]->min;
				else if (s == COMPARE_MEAN &&
					 !(r[i]->unknown & REPORT_UNKNOWN_MEAN))
					x[k++] = (double)r[i]->mean;
				else if (s != COMPARE_MEAN)
					k += run_value(r[i], s, &x[k]);
			}
			if (!total && k) {
				known[side] = true;
				val[side] = (uint64_t)llround(median(x, k));
			}
		}
		v->known = known[0] && known[1];
		v->a = val[0];
		v->b = val[1];
		v->change_pct =
		    v->known && v->a ? ((double)v->b - (double)v->a) / (double)v->a * 100.0 : 0;
	}
}

/* ------------------------------------------------------- overall -- */

/* The statistics to judge: the --verdict-on ones, p50, p99 and max (always
 * shown) and what a --fail-if needs, at most COMPARE_MAX_JUDGED. */
static size_t wanted(const struct compare_opts *o, enum compare_stat *out)
{
	static const enum compare_stat shown[] = { COMPARE_P50, COMPARE_P99, COMPARE_MAX };
	size_t n = 0;

	for (size_t i = 0; i < o->non + 3 + o->nextra; i++) {
		enum compare_stat s = i < o->non       ? o->on[i]
				      : i < o->non + 3 ? shown[i - o->non]
						       : o->extra[i - o->non - 3];
		bool dup = false;
		for (size_t k = 0; k < n; k++)
			dup |= out[k] == s;
		if (!dup && n < COMPARE_MAX_JUDGED)
			out[n++] = s;
	}
	/* shown in the statistics' order: p50, p99, ..., max */
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k && out[k - 1] > out[k]; k--) {
			enum compare_stat t = out[k];
			out[k] = out[k - 1];
			out[k - 1] = t;
		}
	return n;
}

static bool verdict_on(const struct compare_opts *o, enum compare_stat s)
{
	for (size_t i = 0; i < o->non; i++)
		if (o->on[i] == s)
			return true;
	return false;
}

static void add_name(char *buf, size_t len, const struct compare_judgement *j)
{
	size_t l = strlen(buf);

	if (j->asked != j->stat)
		snprintf(buf + l, len - l, "%s%s (for %s)", l ? ", " : "",
			 compare_stat_name[j->stat], compare_stat_name[j->asked]);
	else
		snprintf(buf + l, len - l, "%s%s", l ? ", " : "", compare_stat_name[j->stat]);
}

/* Where max stood in for by p99.9 (no series) and the one sample each run
 * has moved against the verdict by more than the minimum effect, say so:
 * one sample has no test, but a reader deciding on "better" must see that
 * the worst case rose (the cyclictest file of issue 15: max 290 us ->
 * 10.7 ms). */
static void max_caveat(struct compare_match *m, const struct compare_opts *o)
{
	const struct compare_value *v = &m->v[COMPARE_MAX];
	bool stand_in = false;
	double d;

	for (size_t i = 0; i < m->nj; i++)
		stand_in |= m->j[i].asked == COMPARE_MAX && m->j[i].stat != COMPARE_MAX &&
			    verdict_on(o, COMPARE_MAX);
	if (!stand_in || !v->known || (m->verdict != COMPARE_BETTER && m->verdict != COMPARE_SAME))
		return;
	d = (double)v->b - (double)v->a;
	if (d <= o->min_effect_ns || d <= o->min_effect_pct / 100.0 * (double)v->a)
		return;
	size_t l = strlen(m->reason);
	snprintf(m->reason + l, sizeof(m->reason) - l,
		 "; but max %+.0f %% (one sample a run: no test)", v->change_pct);
}

/* better/worse when the judged statistics agree, or one moves and the
 * others are the same; mixed when they disagree; untested when one of
 * them could not be tested (a verdict that skipped the tail would be the
 * headline the issue found wrong); same otherwise. */
static void overall(struct compare_match *m, const struct compare_opts *o)
{
	char better[96] = "", worse[96] = "", untested[96] = "", small[128] = "", nover[96] = "";
	const struct compare_judgement *why_not = NULL; /* the first no verdict */
	size_t ntested = 0, nmoved = 0, nstrong = 0;
	double effect = 0, p_min = 1;
	bool by_p = false;

	for (size_t i = 0; i < m->nj; i++) {
		const struct compare_judgement *j = &m->j[i];
		if (!verdict_on(o, j->asked))
			continue;
		if (j->verdict == COMPARE_BETTER || j->verdict == COMPARE_WORSE) {
			nmoved++;
			nstrong += j->strong;
			if (j->p >= 0) {
				by_p = true;
				p_min = j->p < p_min ? j->p : p_min;
			}
		}
		switch (j->verdict) {
		case COMPARE_BETTER:
			add_name(better, sizeof(better), j);
			break;
		case COMPARE_WORSE:
			add_name(worse, sizeof(worse), j);
			break;
		case COMPARE_UNTESTED:
			add_name(untested, sizeof(untested), j);
			continue;
		case COMPARE_NO_VERDICT:
			/* tested: it counts for the Bonferroni rule below */
			add_name(nover, sizeof(nover), j);
			if (!why_not)
				why_not = j;
			break;
		default:
			if (j->significant) {
				size_t l;
				add_name(small, sizeof(small), j);
				l = strlen(small);
				snprintf(small + l, sizeof(small) - l, " %+.1f us",
					 j->shift_ns / 1000.0);
				effect = j->effect_ns;
			}
			break;
		}
		ntested++;
	}
	/* k statistics each tested at alpha would cry wolf up to k x alpha of
	 * the time.  So a statistic that moves while another tested one does
	 * not must be significant at alpha / k (Bonferroni); all of them moving
	 * needs nothing more (each at alpha: no likelier than one).  Together:
	 * at most alpha + alpha^k. */
	if (nmoved && nmoved < ntested && !nstrong) {
		m->verdict = COMPARE_NO_VERDICT;
		if (by_p)
			snprintf(m->reason, sizeof(m->reason),
				 "no verdict: %s %s alone at p %.2g, short of the %.3g that %zu "
				 "judged statistics need",
				 better[0] ? better : worse, better[0] ? "better" : "worse", p_min,
				 COMPARE_ALPHA / (double)(o->non ? o->non : 1), o->non);
		else
			snprintf(m->reason, sizeof(m->reason),
				 "no verdict: %s %s alone, short of the %.1f %% intervals that %zu "
				 "judged statistics need",
				 better[0] ? better : worse, better[0] ? "better" : "worse",
				 100 * (1 - COMPARE_ALPHA / (double)(o->non ? o->non : 1)), o->non);
		max_caveat(m, o);
		return;
	}
	/* What could not be tested or separated, after the verdict */
	char open_[200] = "";
	if (untested[0] || nover[0])
		snprintf(open_, sizeof(open_), "; %s%s%s%s%s", untested,
			 untested[0] ? " not tested" : "", untested[0] && nover[0] ? ", " : "",
			 nover, nover[0] ? " no verdict" : "");
	/* A statistic that moved is the answer even when another could not
	 * be tested or separated (a regression of p99 is not hidden behind an
	 * untestable max); with nothing moved, one that could not be
	 * separated leaves it open, and so does an untested one. */
	if (better[0] && worse[0]) {
		m->verdict = COMPARE_MIXED;
		snprintf(m->reason, sizeof(m->reason), "%s better, %s worse%s", better, worse,
			 open_);
	} else if (better[0] || worse[0]) {
		m->verdict = better[0] ? COMPARE_BETTER : COMPARE_WORSE;
		snprintf(m->reason, sizeof(m->reason), "%s %s%s", better[0] ? better : worse,
			 better[0] ? "better" : "worse", open_);
	} else if (why_not) {
		m->verdict = COMPARE_NO_VERDICT;
		/* its note starts "no verdict: " */
		const char *n = why_not->note;
		if (!strncmp(n, "no verdict: ", 12))
			n += 12;
		snprintf(m->reason, sizeof(m->reason), "no verdict: %s: %s",
			 compare_stat_name[why_not->stat], n);
	} else if (untested[0]) {
		m->verdict = COMPARE_UNTESTED;
		snprintf(m->reason, sizeof(m->reason), "%s not tested", untested);
	} else if (small[0]) {
		m->verdict = COMPARE_SAME;
		snprintf(m->reason, sizeof(m->reason),
			 "no practical difference: %s < min effect %.1f us", small,
			 effect / 1000.0);
	} else {
		m->verdict = ntested ? COMPARE_SAME : COMPARE_UNTESTED;
		snprintf(m->reason, sizeof(m->reason), "%s",
			 ntested ? "no significant difference" : "nothing to judge");
	}
	max_caveat(m, o);
}

/* Room for the judgements of m: n of them, zeroed. */
static int judgements(struct compare_match *m, size_t n)
{
	free(m->j);
	m->nj = 0;
	if (!(m->j = calloc(n ? n : 1, sizeof(*m->j))))
		return -ENOMEM;
	m->nj = n;
	return 0;
}

static int untested_match(struct compare_match *m, const struct compare_opts *o)
{
	enum compare_stat s[COMPARE_MAX_JUDGED];

	if (judgements(m, wanted(o, s)))
		return -ENOMEM;
	for (size_t i = 0; i < m->nj; i++) {
		struct compare_judgement *j = &m->j[i];
		j->asked = j->stat = s[i];
		j->verdict = COMPARE_UNTESTED;
		j->method = COMPARE_BY_NOTHING;
		j->p = -1; /* the match's note says why */
	}
	m->verdict = COMPARE_UNTESTED;
	m->method = COMPARE_BY_NOTHING;
	snprintf(m->reason, sizeof(m->reason), "%s", m->note);
	return 0;
}

/* 1 when a side has no samples (m is then untested), 0, or -ENOMEM. */
static int no_samples(struct compare_match *m, const struct compare_opts *o)
{
	if (m->a->count && m->b->count)
		return 0;
	snprintf(m->note, sizeof(m->note), "no samples in %s",
		 !m->a->count && !m->b->count ? "either"
		 : !m->a->count		      ? "A"
					      : "B");
	return untested_match(m, o) ? -ENOMEM : 1;
}

/* The series column that holds stat per interval (interval_values), or -1. */
static int series_col(enum compare_stat s)
{
	switch (s) {
	case COMPARE_P50:
		return SERIES_Q50;
	case COMPARE_P99:
		return SERIES_Q99;
	case COMPARE_P99_9:
		return SERIES_Q99_9;
	case COMPARE_MAX:
		return SERIES_NQ;
	default:
		return -1;
	}
}

int compare_judge_runs(struct compare_match *m, const struct comparison *c, bool intervals)
{
	enum compare_stat s[COMPARE_MAX_JUDGED];
	size_t by_max = 0, by_blocks = 0, n_order = 0, applied = 0;
	int rc;

	if ((rc = no_samples(m, &c->opts)))
		return rc < 0 ? rc : 0;
	if (judgements(m, wanted(&c->opts, s)))
		return -ENOMEM;
	for (size_t i = 0; i < m->nj; i++) {
		struct compare_judgement *j = &m->j[i];
		int col = series_col(s[i]);
		j->asked = j->stat = s[i];
		j->p = -1;
		if (intervals && col >= 0 && (rc = by_series(j, m, c, col)) < 0)
			return rc;
		if (intervals && col >= 0 && rc == 1) {
			/* the match's method: what tested something (a series
			 * too short for any test says so in its no verdict) */
			by_max += col == SERIES_NQ && compare_judgement_tested(j);
			by_blocks += col < SERIES_NQ && compare_judgement_tested(j);
			applied++;
			continue;
		}
		/* One sample a run: the tail by its nearest percentile. */
		if (s[i] == COMPARE_MAX)
			j->stat = COMPARE_P99_9;
		by_order(j, m, c->opts.non);
		n_order += j->method == COMPARE_BY_ORDER;
		if (j->verdict != COMPARE_UNTESTED)
			decide(j, &c->opts);
		/* Why order statistics, for this statistic (the match's note says
		 * it for all of them) */
		if (intervals && j->method == COMPARE_BY_ORDER && !j->note[0])
			snprintf(j->note, sizeof(j->note), "%s",
				 col >= 0 ? "no per-interval quantiles in the series (a report "
					    "before them): order statistics, optimistic"
					  : "the series keep p50, p99, p99.9 and max per interval, "
					    "not this: order statistics, optimistic");
	}
	/* series that were too short for any test still name the method
	 * (their no verdict says why), unless order statistics tested */
	m->method = by_max || by_blocks ? COMPARE_BY_INTERVALS
		    : n_order		? COMPARE_BY_ORDER
		    : applied		? COMPARE_BY_INTERVALS
					: COMPARE_BY_NOTHING;
	if (m->method == COMPARE_BY_NOTHING)
		snprintf(m->note, sizeof(m->note), "%s", m->j[0].note);
	else if (m->method == COMPARE_BY_ORDER)
		snprintf(m->note, sizeof(m->note),
			 "%s: order statistics, which take samples as independent (they are "
			 "not): optimistic",
			 intervals
			     ? "no usable series (too few intervals, or one phase of several)"
			     : "not every result of this probe has a time series in both runs");
	else if (!n_order)
		snprintf(m->note, sizeof(m->note),
			 "max by interval maxima, percentiles by per-interval quantiles, in blocks "
			 "of intervals: one run a side, so a run's own spread is the yardstick");
	else if (by_blocks)
		snprintf(m->note, sizeof(m->note),
			 "max by interval maxima, p50/p99/p99.9 by per-interval quantiles; the "
			 "others by order statistics (optimistic)");
	else
		snprintf(m->note, sizeof(m->note),
			 "max by interval maxima; percentiles by order statistics, which take "
			 "samples as independent: optimistic (no per-interval quantiles: a report "
			 "before them)");
	overall(m, &c->opts);
	return 0;
}

int compare_judge_replicates(struct compare_match *m, const struct comparison *c,
			     const struct report_result *const *ra, size_t na,
			     const struct report_result *const *rb, size_t nb)
{
	enum compare_stat s[COMPARE_MAX_JUDGED];
	int rc;

	runs_values(m, ra, na, rb, nb);
	if (!m->v[COMPARE_COUNT].a || !m->v[COMPARE_COUNT].b) {
		snprintf(m->note, sizeof(m->note), "no samples in %s",
			 !m->v[COMPARE_COUNT].a && !m->v[COMPARE_COUNT].b ? "any run"
			 : !m->v[COMPARE_COUNT].a			  ? "A's runs"
									  : "B's runs");
		return untested_match(m, &c->opts);
	}
	if (judgements(m, wanted(&c->opts, s)))
		return -ENOMEM;
	m->method = COMPARE_BY_RUNS;
	for (size_t i = 0; i < m->nj; i++) {
		struct compare_judgement *j = &m->j[i];
		j->asked = j->stat = s[i];
		j->p = -1;
		if ((rc = by_runs(j, ra, na, rb, nb)) < 0)
			return rc;
		if (j->verdict != COMPARE_UNTESTED)
			decide(j, &c->opts);
	}
	snprintf(m->note, sizeof(m->note), "every statistic by its per-run values");
	overall(m, &c->opts);
	return 0;
}

int compare_judge_ab(struct compare_match *m, const struct comparison *c)
{
	enum compare_stat s[COMPARE_MAX_JUDGED];
	int rc;

	if ((rc = no_samples(m, &c->opts)))
		return rc < 0 ? rc : 0;
	if (judgements(m, wanted(&c->opts, s)))
		return -ENOMEM;
	m->method = COMPARE_BY_ROUNDS;
	for (size_t i = 0; i < m->nj; i++) {
		struct compare_judgement *j = &m->j[i];
		j->asked = j->stat = s[i];
		j->p = -1;
		if ((rc = by_rounds(j, m, c->a)) < 0)
			return rc;
		if (j->verdict != COMPARE_UNTESTED)
			decide(j, &c->opts);
	}
	snprintf(m->note, sizeof(m->note), "every statistic by its per-round values");
	overall(m, &c->opts);
	return compare_drift_ab(m, c);
}
