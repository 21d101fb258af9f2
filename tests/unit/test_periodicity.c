// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for periodicity_find(): recurring spikes found, noise left
 * alone, edge cases. */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "periodicity.h"
#include "tap.h"

static double unif(void) /* [0, 1) */
{
	return (double)(tap_rnd() >> 11) * 0x1.0p-53;
}

/* Shuffle so that the function sees unsorted input, as a caller might. */
static void shuffle(double *t, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = tap_rnd() % i;
		double x = t[i - 1];
		t[i - 1] = t[j];
		t[j] = x;
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Every field finite and consistent: what every caller relies on. */
static int pattern_sane(const struct periodicity_pattern *p)
{
	return isfinite(p->period_s) && p->period_s > 0 && isfinite(p->jitter_s) &&
	       p->jitter_s >= 0 && isfinite(p->phase_s) && p->phase_s >= 0 &&
	       p->phase_s < p->period_s && isfinite(p->explained) && p->explained > 0 &&
	       p->explained <= 1 && p->cycles_hit <= p->cycles && p->cycles_hit <= p->matched &&
	       p->matched >= PERIODICITY_MIN_MATCHED && p->cycles_hit >= PERIODICITY_MIN_CYCLES &&
	       isfinite(p->log10_p) && p->log10_p < PERIODICITY_LOG10_P_MAX;
}

static int all_sane(const struct periodicity_pattern *p, int r)
{
	for (int i = 0; i < r; i++)
		if (!pattern_sane(&p[i]))
			return 0;
	return 1;
}

/* Distance between two phases on a circle of circumference P. */
static double phase_dist(double a, double b, double P)
{
	double d = fmod(fabs(a - b), P);
	return d < P - d ? d : P - d;
}

/* `per` events at phase + k * P (k drawn with probability hit_prob),
 * uniform jitter +-jit, plus `noise` uniform events; returns the count. */
static size_t gen(double *t, double span, double P, double phase, double jit, double hit_prob,
		  size_t noise)
{
	size_t m = 0;

	for (double g = phase; g <= span; g += P)
		if (hit_prob >= 1 || unif() < hit_prob) {
			double x = g + (2 * unif() - 1) * jit;
			if (x >= 0 && x <= span)
				t[m++] = x;
		}
	for (size_t i = 0; i < noise; i++)
		t[m++] = unif() * span;
	shuffle(t, m);
	return m;
}

static double t_buf[40000];

/* The case: a 20 s housekeeping period over a 5 minute run,
 * a third of the spikes random. */
static void find_20s_with_third_random(void)
{
	struct periodicity_pattern p[4];
	double phase = 7.3;

	tap_rnd_seed(1);
	size_t n = gen(t_buf, 300, 20, phase, 0.005, 1, 7);
	int r = periodicity_find(t_buf, n, 300, 0.001, p, 4);
	ok(r >= 1 && all_sane(p, r), "20 s period in 300 s with 1/3 random spikes: found (r=%d)",
	   r);
	if (r < 1)
		return;
	diag("period %.4f s jitter %.4f s phase %.4f s explained %.3f matched %u cycles %u/%u "
	     "log10_p %.1f",
	     p[0].period_s, p[0].jitter_s, p[0].phase_s, p[0].explained, p[0].matched,
	     p[0].cycles_hit, p[0].cycles, p[0].log10_p);
	ok(fabs(p[0].period_s - 20) < 0.2, "20 s: period within 1%% (%.4f)", p[0].period_s);
	ok(fabs(p[0].explained - 15.0 / n) < 0.1, "20 s: explained %.3f ~ %.3f", p[0].explained,
	   15.0 / n);
	ok(phase_dist(p[0].phase_s, phase, 20) < 0.01, "20 s: phase %.4f ~ %.4f", p[0].phase_s,
	   phase);
	ok(p[0].cycles_hit >= 13 && p[0].cycles >= 15 && p[0].cycles <= 16,
	   "20 s: cycles hit %u of %u", p[0].cycles_hit, p[0].cycles);
	ok(p[0].jitter_s <= 0.005, "20 s: jitter %.4f within the +-5 ms generated", p[0].jitter_s);
}

/* Same over many seeds, random phase; hit_prob < 1 skips cycles. */
static void find_20s_seeds(double hit_prob, unsigned seeds)
{
	unsigned found = 0, right = 0;
	double worst = -INFINITY;

	for (unsigned s = 0; s < seeds; s++) {
		struct periodicity_pattern p[4];
		tap_rnd_seed(100 + s);
		double phase = unif() * 20;
		/* a third of all events random */
		size_t per = 0;
		for (double g = phase; g <= 300; g += 20)
			per++;
		size_t noise = (size_t)(per * hit_prob / 2 + 0.5);
		size_t n = gen(t_buf, 300, 20, phase, 0.005, hit_prob, noise);
		int r = periodicity_find(t_buf, n, 300, 0.001, p, 4);
		if (r >= 1 && all_sane(p, r)) {
			found++;
			if (fabs(p[0].period_s - 20) < 0.2 &&
			    phase_dist(p[0].phase_s, phase, 20) < 0.01)
				right++;
			if (p[0].log10_p > worst)
				worst = p[0].log10_p;
		} else {
			diag("seed %u: r=%d n=%zu", s, r, n);
		}
	}
	ok(found == seeds && right == seeds,
	   "20 s period, %.0f%% of cycles hit, 1/3 random: found in %u/%u seeds, right period and "
	   "phase in %u (weakest log10_p %.1f)",
	   hit_prob * 100, found, seeds, right, worst);
}

/* The "must not invent one" requirement: uniform random times. */
static void noise_finds_nothing(size_t n, double span, unsigned seeds, double res)
{
	unsigned false_pos = 0;
	double tmax = 0;

	for (unsigned s = 0; s < seeds; s++) {
		struct periodicity_pattern p[4];
		tap_rnd_seed(1000 + s * 7919 + n);
		for (size_t i = 0; i < n; i++)
			t_buf[i] = unif() * span;
		double t0 = now();
		int r = periodicity_find(t_buf, n, span, res, p, 4);
		double dt = now() - t0;
		if (dt > tmax)
			tmax = dt;
		if (r != 0) {
			false_pos++;
			diag("seed %u: r=%d period %.4f hit %u/%u log10_p %.2f", s, r,
			     r > 0 ? p[0].period_s : 0, r > 0 ? p[0].cycles_hit : 0,
			     r > 0 ? p[0].cycles : 0, r > 0 ? p[0].log10_p : 0);
		}
	}
	ok(false_pos == 0, "uniform noise, n=%zu over %.0f s (res %g): no period in %u seeds (%u)",
	   n, span, res, seeds, false_pos);
	diag("slowest call %.1f ms", tmax * 1e3);
}

/* Bursts of 2-3 spikes within 10 ms at random times: clustered, not
 * periodic. */
static void bursts_find_nothing(size_t bursts, double span, unsigned seeds)
{
	unsigned false_pos = 0;

	for (unsigned s = 0; s < seeds; s++) {
		struct periodicity_pattern p[4];
		size_t m = 0;
		tap_rnd_seed(5000 + s);
		for (size_t b = 0; b < bursts; b++) {
			double c = unif() * span;
			unsigned k = 2 + (unif() < 0.5);
			for (unsigned j = 0; j < k; j++) {
				double x = c + unif() * 0.01;
				if (x <= span)
					t_buf[m++] = x;
			}
		}
		int r = periodicity_find(t_buf, m, span, 0.001, p, 4);
		if (r != 0) {
			false_pos++;
			diag("seed %u: r=%d period %.4f hit %u/%u matched %u log10_p %.2f", s, r,
			     r > 0 ? p[0].period_s : 0, r > 0 ? p[0].cycles_hit : 0,
			     r > 0 ? p[0].cycles : 0, r > 0 ? p[0].matched : 0,
			     r > 0 ? p[0].log10_p : 0);
		}
	}
	ok(false_pos == 0,
	   "bursty noise, %zu bursts of 2-3 over %.0f s: no period in %u seeds (%u)", bursts, span,
	   seeds, false_pos);
}

static int has_period(const struct periodicity_pattern *p, int r, double P, double tol)
{
	for (int i = 0; i < r; i++)
		if (fabs(p[i].period_s - P) <= tol)
			return 1;
	return 0;
}

/* 7 s and 30 s together over 10 minutes, plus noise: both reported. */
static void two_periods(void)
{
	unsigned both = 0, seeds = 10;

	for (unsigned s = 0; s < seeds; s++) {
		struct periodicity_pattern p[4];
		tap_rnd_seed(7000 + s);
		size_t m = gen(t_buf, 600, 7, unif() * 7, 0.003, 0.8, 0);
		m += gen(t_buf + m, 600, 30, unif() * 30, 0.003, 1, 20);
		shuffle(t_buf, m);
		int r = periodicity_find(t_buf, m, 600, 0.001, p, 4);
		if (r >= 2 && all_sane(p, r) && has_period(p, r, 7, 0.07) &&
		    has_period(p, r, 30, 0.3))
			both++;
		else
			diag("seed %u: r=%d first %.4f second %.4f", s, r,
			     r > 0 ? p[0].period_s : 0, r > 1 ? p[1].period_s : 0);
	}
	ok(both == seeds, "7 s and 30 s periods over 600 s: both found in %u/%u seeds", both,
	   seeds);
}

/* The self-disturbance bench: a 1 s period in spike times of 1 ms
 * resolution over a minute. */
static void one_second_period(void)
{
	unsigned good = 0, seeds = 10;

	for (unsigned s = 0; s < seeds; s++) {
		struct periodicity_pattern p[4];
		tap_rnd_seed(8000 + s);
		size_t m = gen(t_buf, 60, 1, unif(), 0.001, 0.8, 20);
		for (size_t i = 0; i < m; i++) /* 1 ms resolution */
			t_buf[i] = floor(t_buf[i] * 1000) / 1000 + 0.0005;
		int r = periodicity_find(t_buf, m, 60, 0.001, p, 4);
		if (r >= 1 && all_sane(p, r) && fabs(p[0].period_s - 1) < 0.001)
			good++;
		else
			diag("seed %u: r=%d period %.5f", s, r, r > 0 ? p[0].period_s : 0);
	}
	ok(good == seeds, "1 s period at 1 ms resolution over 60 s: found in %u/%u seeds", good,
	   seeds);
}

/* A per-interval time series turned into events: one per 1 s interval
 * with a spike, at the interval midpoint, resolution 1 s. */
static void coarse_series(double P)
{
	unsigned good = 0, seeds = 20;

	for (unsigned s = 0; s < seeds; s++) {
		struct periodicity_pattern p[4];
		unsigned char bad[300] = { 0 };
		size_t m = 0;
		tap_rnd_seed(9000 + s);
		double phase = unif() * P;
		for (double g = phase; g < 300; g += P)
			if (unif() < 0.8)
				bad[(int)(g + (2 * unif() - 1) * 0.05 + 300) % 300] = 1;
		for (int i = 0; i < 6; i++)
			bad[tap_rnd() % 300] = 1;
		for (int i = 0; i < 300; i++)
			if (bad[i])
				t_buf[m++] = i + 0.5;
		int r = periodicity_find(t_buf, m, 300, 1.0, p, 4);
		if (r >= 1 && all_sane(p, r) && fabs(p[0].period_s - P) <= 1.0)
			good++;
		else
			diag("seed %u: r=%d period %.4f", s, r, r > 0 ? p[0].period_s : 0);
	}
	ok(good == seeds,
	   "interval midpoints (1 s resolution), %.1f s period over 300 s: found within one "
	   "resolution in %u/%u seeds",
	   P, good, seeds);
}

/* An hour-long soak: the candidate period from the differences is not
 * exact enough to fold 180 cycles at once; the phase lock must get there. */
static void long_soak(double span, size_t noise)
{
	struct periodicity_pattern p[4];

	tap_rnd_seed(11);
	size_t m = gen(t_buf, span, 20.0037, 3.1, 0.005, 0.7, noise);
	double t0 = now();
	int r = periodicity_find(t_buf, m, span, 0.001, p, 4);
	double dt = now() - t0;
	ok(r >= 1 && all_sane(p, r) && fabs(p[0].period_s - 20.0037) < 1e-4 &&
	       phase_dist(p[0].phase_s, 3.1, p[0].period_s) < 0.01,
	   "20.0037 s period over %.0f s, 70%% of cycles, %zu random: period %.6f phase %.4f", span,
	   noise, r > 0 ? p[0].period_s : 0, r > 0 ? p[0].phase_s : 0);
	if (r > 0)
		diag("jitter %.4f explained %.3f cycles %u/%u log10_p %.1f; %.1f ms", p[0].jitter_s,
		     p[0].explained, p[0].cycles_hit, p[0].cycles, p[0].log10_p, dt * 1e3);
}

static void edge_cases(void)
{
	struct periodicity_pattern p[2];
	double one = 5, same[50], bad[3] = { 1, NAN, 3 }, out_of_span[40];

	memset(p, 0, sizeof(p));
	ok(periodicity_find(NULL, 0, 300, 0.001, p, 2) == 0, "n = 0: no pattern");
	ok(periodicity_find(&one, 1, 300, 0.001, p, 2) == 0, "n = 1: no pattern");
	for (int i = 0; i < 50; i++)
		same[i] = 10;
	ok(periodicity_find(same, 50, 300, 0.001, p, 2) == 0, "50 events at the same time: none");
	ok(periodicity_find(same, 50, 0, 0.001, p, 2) == -EINVAL, "span 0: -EINVAL");
	ok(periodicity_find(same, 50, -5, 0.001, p, 2) == -EINVAL, "negative span: -EINVAL");
	ok(periodicity_find(same, 50, NAN, 0.001, p, 2) == -EINVAL &&
	       periodicity_find(same, 50, INFINITY, 0.001, p, 2) == -EINVAL,
	   "span NaN or infinite: -EINVAL");
	ok(periodicity_find(same, 50, 300, -1, p, 2) == -EINVAL &&
	       periodicity_find(same, 50, 300, NAN, p, 2) == -EINVAL,
	   "negative or NaN resolution: -EINVAL");
	ok(periodicity_find(bad, 3, 300, 0.001, p, 2) == -EINVAL, "a NaN time: -EINVAL");
	ok(periodicity_find(NULL, 5, 300, 0.001, p, 2) == -EINVAL, "t NULL with n > 0: -EINVAL");
	tap_rnd_seed(3);
	size_t n = gen(t_buf, 300, 20, 4, 0.005, 1, 5);
	ok(periodicity_find(t_buf, n, 300, 0.001, NULL, 2) == -EINVAL,
	   "out NULL with max_out > 0: -EINVAL");
	ok(periodicity_find(t_buf, n, 300, 0.001, NULL, 0) == 0, "max_out 0: no pattern");
	/* two events, a short span, a resolution longer than the span */
	double two[2] = { 1, 2 };
	ok(periodicity_find(two, 2, 3, 0, p, 2) == 0 &&
	       periodicity_find(two, 2, 0.01, 0, p, 2) == 0 &&
	       periodicity_find(t_buf, n, 300, 500, p, 2) == 0,
	   "tiny inputs and a resolution beyond the span: no pattern, no crash");
	/* a perfect 20 s grid with outliers far outside the span: ignored,
	 * but they count in `explained` */
	size_t m = 0;
	for (int k = 0; k < 15; k++)
		out_of_span[m++] = 5 + 20 * k;
	for (int k = 0; k < 15; k++)
		out_of_span[m++] = -1000 - k * 3.7;
	int r = periodicity_find(out_of_span, m, 300, 0, p, 2);
	ok(r == 1 && all_sane(p, r) && fabs(p[0].period_s - 20) < 1e-9 &&
	       fabs(p[0].explained - 0.5) < 1e-12 && p[0].jitter_s < 1e-9 &&
	       fabs(p[0].phase_s - 5) < 1e-9,
	   "exact grid, events outside the span ignored: period %.9f explained %.3f phase %.6f",
	   r > 0 ? p[0].period_s : 0, r > 0 ? p[0].explained : 0, r > 0 ? p[0].phase_s : 0);
	/* a grid with phase ~0: the phase stays in [0, P) */
	m = 0;
	for (int k = 0; k < 15; k++)
		out_of_span[m++] = 20 * k + (k % 2 ? 1e-4 : 0);
	r = periodicity_find(out_of_span, m, 300, 0.001, p, 2);
	ok(r >= 1 && all_sane(p, r) && phase_dist(p[0].phase_s, 0, 20) < 1e-3,
	   "grid at phase 0: phase %.6f in [0, period)", r > 0 ? p[0].phase_s : -1);
}

static void input_untouched_and_deterministic(void)
{
	struct periodicity_pattern a[4], b[4];
	static double copy[40000];

	tap_rnd_seed(42);
	size_t n = gen(t_buf, 600, 7, 1.5, 0.003, 0.8, 0);
	n += gen(t_buf + n, 600, 30, 12, 0.003, 1, 30);
	shuffle(t_buf, n);
	memcpy(copy, t_buf, n * sizeof(*t_buf));
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	int ra = periodicity_find(t_buf, n, 600, 0.001, a, 4);
	ok(memcmp(copy, t_buf, n * sizeof(*t_buf)) == 0, "input array not modified");
	int rb = periodicity_find(t_buf, n, 600, 0.001, b, 4);
	ok(ra >= 1 && ra == rb && memcmp(a, b, sizeof(a)) == 0,
	   "same input, same result (%d patterns)", ra);
}

/* n = 20 000 must stay well under a second: timed, not asserted (the
 * machine running the tests may be slow or loaded). */
static void timing(void)
{
	struct periodicity_pattern p[4];
	double worst = 0;

	for (unsigned s = 0; s < 3; s++) {
		tap_rnd_seed(12000 + s);
		/* 15 periodic in dense noise; 720 of 1440 cycles of 2.5 s over
		 * an hour; 3000 of 4320 cycles of 20 s over a day */
		double span = s == 0 ? 300 : s == 1 ? 3600 : 86400;
		size_t n = s == 0   ? gen(t_buf, span, 20, 3, 0.005, 1, 20000 - 15)
			   : s == 1 ? gen(t_buf, span, 2.5, 0.1, 0.0002, 0.5, 20000 - 720)
				    : gen(t_buf, span, 20, 0.1, 0.005, 0.7, 20000 - 3000);
		double t0 = now();
		int r = periodicity_find(t_buf, n, span, 0.001, p, 4);
		double dt = now() - t0;
		if (dt > worst)
			worst = dt;
		diag("n=%zu: %d pattern(s)%s%.4f, %.1f ms", n, r, r > 0 ? ", first period " : "",
		     r > 0 ? p[0].period_s : 0, dt * 1e3);
	}
	ok(1, "n = 20 000: slowest call %.1f ms", worst * 1e3);
}

int main(void)
{
	tap_plan(44);
	find_20s_with_third_random();
	find_20s_seeds(1, 20);
	find_20s_seeds(0.7, 20);
	noise_finds_nothing(20, 300, 50, 0.001);
	noise_finds_nothing(100, 300, 50, 0.001);
	noise_finds_nothing(1000, 300, 50, 0.001);
	noise_finds_nothing(10000, 300, 5, 0.001);
	noise_finds_nothing(20, 3600, 50, 0.001);
	noise_finds_nothing(100, 3600, 50, 0.001);
	noise_finds_nothing(1000, 3600, 50, 0.001);
	noise_finds_nothing(10000, 3600, 5, 0.001);
	noise_finds_nothing(100, 300, 50, 0);
	noise_finds_nothing(100, 300, 50, 1.0);
	bursts_find_nothing(40, 300, 50);
	bursts_find_nothing(300, 300, 50);
	bursts_find_nothing(1000, 3600, 20);
	two_periods();
	one_second_period();
	coarse_series(20);
	coarse_series(20.4);
	long_soak(3600, 60);
	long_soak(86400, 1000);
	edge_cases();
	input_untouched_and_deterministic();
	timing();
	return tap_done();
}
