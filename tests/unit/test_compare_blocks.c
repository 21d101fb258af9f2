// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the block method of issue 30 (src/model/compare_verdict.c,
 * by_series and separable) on exact, hand-made series: p50, p99 and p99.9
 * judged per block of their per-interval quantiles, and the cases one run a
 * side cannot separate (too few intervals, a run that drifts, blocks that
 * spread more than the shift) are "no verdict", never better or worse. */
#include <config.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "report.h"
#include "tap.h"

#define US 1000.0

/* A deterministic jitter in [0, 1): the same sequence on both sides, so the
 * Hodges-Lehmann shift of two sides offset by d is d exactly. */
static double jitter(size_t i)
{
	return (double)((i * 7919u + 13u) % 101u) / 101.0;
}

/* n values of A around 100 us (4 us of jitter), B's the same + shift. */
static void shifted(double *va, double *vb, size_t n, double shift)
{
	for (size_t i = 0; i < n; i++) {
		va[i] = 100 * US + 4 * US * jitter(i);
		vb[i] = va[i] + shift;
	}
}

/* One run: timer on CPU 0, phase all, n quantile intervals of ivl ns whose
 * p50, p99 and p99.9 are all v[i] (the bucket of it), each of 1000
 * samples; its interval maxima twice that.  A histogram of the values, so
 * that the statistics the series do not hold go by order statistics. */
static void run(struct report *r, const double *v, size_t n, uint64_t ivl, bool quant)
{
	struct histogram *h = calloc(1, sizeof(*h));
	struct report_result *res;
	struct report_series *s;
	struct series_interval *iv = calloc(n ? n : 1, sizeof(*iv));
	uint64_t min = UINT64_MAX, max = 0;

	memset(r, 0, sizeof(*r));
	if (!h || !iv || !(res = report_add_result(r, false, "timer", 0, "all")) ||
	    !(s = report_add_series(r, "timer", 0)))
		abort();
	s->interval_ns = ivl;
	for (size_t i = 0; i < n; i++) {
		uint64_t x = (uint64_t)v[i];
		iv[i] = (struct series_interval){ .max_ns = 2 * x, .count = 1000 };
		for (int k = 0; k < 1000; k++)
			histogram_add(h, x);
		min = x < min ? x : min;
		max = 2 * x > max ? 2 * x : max;
	}
	if (report_series_fill(s, iv, n))
		abort();
	free(iv);
	if (quant) {
		if (!(s->quant = calloc(n ? n : 1, sizeof(*s->quant))))
			abort();
		s->nquant = n;
		s->quant_interval_ns = ivl;
		for (size_t i = 0; i < n; i++) {
			s->quant[i].count = 1000;
			for (int k = 0; k < SERIES_NQ; k++)
				s->quant[i].q[k] = (uint16_t)histogram_index((uint64_t)v[i]);
		}
	}
	res->count = 1000 * n;
	res->min = min;
	res->max = max;
	res->mean = min;
	for (int i = 0; i < REPORT_NPCT; i++)
		res->pct[i] = histogram_percentile(h, report_pct[i], min, max);
	if (!(res->hist = histogram_sparse_from(h)))
		abort();
	free(h);
}

static const struct compare_judgement *judge(struct comparison *c, struct report *a,
					     struct report *b, const char *on, enum compare_stat s)
{
	struct compare_opts o;
	char err[160];

	compare_opts_default(&o);
	if (compare_opts_verdict_on(&o, on, err, sizeof(err)) ||
	    compare_build(c, a, "a", b, "b", &o) || !c->n)
		abort();
	return compare_judged(&c->m[0], s);
}

static void done(struct comparison *c, struct report *a, struct report *b)
{
	compare_free(c);
	report_free(a);
	report_free(b);
}

int main(void)
{
	struct report a, b;
	struct comparison c;
	const struct compare_judgement *j;
	double va[256], vb[256], rho, p;

	tap_plan(15);

	/* --- a clear shift: A's p99 100..104 us, B's the same + 100 us, 20
	 * intervals a side of 1 s: worse by blocks, shift 100 us (the
	 * buckets' midpoints move it by < 1 %) */
	shifted(va, vb, 20, 100 * US);
	run(&a, va, 20, 1000000000ull, true);
	run(&b, vb, 20, 1000000000ull, true);
	j = judge(&c, &a, &b, "p99", COMPARE_P99);
	ok(j && j->verdict == COMPARE_WORSE && j->method == COMPARE_BY_BLOCKS && j->na == 20 &&
	       j->nb == 20 && j->unit_ns == 1000000000ull && fabs(j->shift_ns - 100 * US) < 1 * US,
	   "clear_shift_worse_by_blocks (%s, %s, %zu vs %zu, shift %.1f us)",
	   j ? compare_verdict_name[j->verdict] : "-", j ? compare_method_name[j->method] : "-",
	   j ? j->na : 0, j ? j->nb : 0, j ? j->shift_ns / US : 0);
	ok(c.m[0].verdict == COMPARE_WORSE && c.m[0].method == COMPARE_BY_INTERVALS,
	   "clear_shift_overall_worse (%s: %s)", compare_verdict_name[c.m[0].verdict],
	   c.m[0].reason);
	ok(j && j->spread_ns < 5 * US && j->drift_p == 1,
	   "clear_shift_spread_and_drift (IQR %.1f us, drift p %.2g)", j ? j->spread_ns / US : 0,
	   j ? j->drift_p : 0);
	done(&c, &a, &b);

	/* --- too few intervals: 5 a side, the same shift: no verdict */
	run(&a, va, 5, 1000000000ull, true);
	run(&b, vb, 5, 1000000000ull, true);
	j = judge(&c, &a, &b, "p99", COMPARE_P99);
	ok(j && j->verdict == COMPARE_NO_VERDICT && strstr(j->note, "fewer than 6 a side") &&
	       c.m[0].verdict == COMPARE_NO_VERDICT &&
	       !strncmp(c.m[0].reason, "no verdict: p99: 5 vs 5 intervals", 33),
	   "too_few_intervals_no_verdict (%s)", c.m[0].reason);
	done(&c, &a, &b);

	/* --- blocks that spread more than the shift: 200 intervals of 100 ms
	 * a side spread evenly over 0..400 us, B 60 us later: significant,
	 * but a run's IQR is ~200 us, so no verdict */
	for (size_t i = 0; i < 200; i++) {
		va[i % 256] = 50 * US + 400 * US * (double)((i * 37) % 200) / 200.0;
		vb[i % 256] = va[i % 256] + 60 * US;
	}
	run(&a, va, 200, 100000000ull, true);
	run(&b, vb, 200, 100000000ull, true);
	j = judge(&c, &a, &b, "p99", COMPARE_P99);
	ok(j && j->significant && j->verdict == COMPARE_NO_VERDICT && j->spread_ns > 150 * US &&
	       strstr(j->note, "spread by") && strstr(j->note, "more than the shift"),
	   "spread_over_shift_no_verdict (p %.2g, IQR %.1f us: %s)", j ? j->p : 1,
	   j ? j->spread_ns / US : 0, j ? j->note : "-");
	done(&c, &a, &b);

	/* --- a run that drifts: A flat at ~100 us, B climbs from 100 to 180
	 * us over its 40 intervals: the shift (~40 us) is as large as B's own
	 * change within its run, so no verdict, and the note says B drifts */
	for (size_t i = 0; i < 40; i++) {
		va[i] = 100 * US + 2 * US * jitter(i);
		vb[i] = 100 * US + 2 * US * (double)i + 2 * US * jitter(i + 7);
	}
	run(&a, va, 40, 1000000000ull, true);
	run(&b, vb, 40, 1000000000ull, true);
	j = judge(&c, &a, &b, "p99", COMPARE_P99);
	ok(j && j->significant && j->verdict == COMPARE_NO_VERDICT && j->drift_side == 'B' &&
	       j->drift_p < 0.01 && j->drift_ns > 30 * US && strstr(j->note, "B drifts by +"),
	   "drift_within_a_run_no_verdict (%s)", j ? j->note : "-");
	done(&c, &a, &b);

	/* --- a merged series (a longer run: 200 ms, its quantiles upper
	 * bounds) against one of 100 ms: the finer one onto the coarser grid
	 * (the larger of each pair), 20 vs 20 blocks */
	for (size_t i = 0; i < 40; i++)
		va[i] = 100 * US + 4 * US * jitter(i);
	for (size_t i = 0; i < 20; i++)
		vb[i] = 300 * US + 4 * US * jitter(i);
	run(&a, va, 40, 100000000ull, true);
	run(&b, vb, 20, 200000000ull, true);
	b.series[0].quant_merged = true;
	j = judge(&c, &a, &b, "p50", COMPARE_P50);
	ok(j && j->verdict == COMPARE_WORSE && j->na == 20 && j->nb == 20 &&
	       j->unit_ns == 200000000ull && strstr(j->note, "upper bounds"),
	   "merged_grid_aligned (%zu vs %zu of %.1f s: %s)", j ? j->na : 0, j ? j->nb : 0,
	   j ? (double)j->unit_ns / 1e9 : 0, j ? j->note : "-");
	done(&c, &a, &b);

	/* --- a report from before the quantiles: p99 falls back to order
	 * statistics and says so; max still by interval maxima */
	shifted(va, vb, 20, 100 * US);
	run(&a, va, 20, 1000000000ull, false);
	run(&b, vb, 20, 1000000000ull, true);
	j = judge(&c, &a, &b, "p99,max", COMPARE_P99);
	ok(j && j->method == COMPARE_BY_ORDER && strstr(j->note, "no per-interval quantiles") &&
	       compare_judged(&c.m[0], COMPARE_MAX)->method == COMPARE_BY_INTERVALS &&
	       strstr(c.m[0].note, "percentiles by order statistics"),
	   "no_quantiles_falls_back_to_order_and_says_so (%s | %s)", j ? j->note : "-",
	   c.m[0].note);
	done(&c, &a, &b);
	/* p90 is not kept per interval: order statistics, with the reason */
	run(&a, va, 20, 1000000000ull, true);
	run(&b, vb, 20, 1000000000ull, true);
	j = judge(&c, &a, &b, "p90", COMPARE_P90);
	ok(j && j->method == COMPARE_BY_ORDER && strstr(j->note, "not this"),
	   "p90_by_order_with_reason (%s)", j ? j->note : "-");
	done(&c, &a, &b);

	/* --- overall: p99 cannot be separated, max the same: no verdict,
	 * with p99's reason; --fail-if on it has no evidence either way */
	for (size_t i = 0; i < 200; i++) {
		va[i % 256] = 50 * US + 400 * US * (double)((i * 37) % 200) / 200.0;
		vb[i % 256] = va[i % 256] + 60 * US;
	}
	run(&a, va, 200, 100000000ull, true);
	run(&b, va, 200, 100000000ull, true); /* max identical */
	for (size_t i = 0; i < 200; i++)
		for (int k = 0; k < SERIES_NQ; k++)
			b.series[0].quant[i].q[k] = (uint16_t)histogram_index((uint64_t)vb[i]);
	j = judge(&c, &a, &b, "p99,max", COMPARE_P99);
	struct compare_limit lim;
	char err[160];
	bool chk, ev;
	ok(j && j->verdict == COMPARE_NO_VERDICT &&
	       compare_judged(&c.m[0], COMPARE_MAX)->verdict == COMPARE_SAME &&
	       c.m[0].verdict == COMPARE_NO_VERDICT &&
	       !strncmp(c.m[0].reason, "no verdict: p99: ", 17),
	   "overall_no_verdict_when_nothing_moved (%s: %s)", compare_verdict_name[c.m[0].verdict],
	   c.m[0].reason);
	ok(compare_limit_parse("p99>+10us", false, &lim, err, sizeof(err)) == 0 &&
	       !compare_limit_broken(&lim, &c.m[0], &chk, &ev) && chk && !ev,
	   "fail_if_on_no_verdict_has_no_evidence");
	/* (the results' own p99 are equal here: B - A = 0 > -1 us) */
	ok(compare_limit_parse("p99>-1us", true, &lim, err, sizeof(err)) == 0 &&
	       compare_limit_broken(&lim, &c.m[0], &chk, &ev) && ev,
	   "fail_if_raw_on_no_verdict_compares_the_plain_values");
	done(&c, &a, &b);

	/* --- the trend test over every block */
	for (size_t i = 0; i < 100; i++)
		va[i] = (double)i;
	compare_trend(va, 100, &rho, &p);
	ok(rho > 0.999 && p < 1e-12, "trend_monotone_100 (rho %.3f p %.2g)", rho, p);
	for (size_t i = 0; i < 100; i++)
		va[i] = (double)((i * 37) % 100);
	compare_trend(va, 100, &rho, &p);
	ok(fabs(rho) < 0.3 && p > 0.01, "trend_scrambled_100 (rho %.3f p %.2g)", rho, p);
	/* beyond 64 values: compare_spearman looks at the first 64, the
	 * trend at all (flat for 64, then a climb) */
	for (size_t i = 0; i < 200; i++)
		va[i] = i < 64 ? (double)((i * 37) % 64) : 100.0 + (double)i;
	compare_trend(va, 200, &rho, &p);
	ok(rho > 0.5 && p < 1e-6, "trend_sees_past_64 (rho %.3f p %.2g)", rho, p);
	return tap_done();
}
