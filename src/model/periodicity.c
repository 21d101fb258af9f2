// SPDX-License-Identifier: GPL-2.0-or-later
/* periodicity: recurring spikes.
 *
 * 1. Candidate periods come from the differences between events: events on
 *    a grid of period P produce many differences near P, 2P, 3P...  The
 *    differences to the next M events (all pairs when n is small) go into a
 *    histogram whose bins are as wide as the timing tolerance at that
 *    difference; bins standing out from their neighbourhood are candidates,
 *    and a mean shift over the raw differences of each gives its period and
 *    how well that is known.
 * 2. Each candidate is folded (t mod P) and, for each window width, the
 *    phase window holding the most distinct cycles is found; period and
 *    phase are then refined by a least-squares fit of the matched events
 *    against their cycle index.  A period too uncertain to fold the whole
 *    run without the grid drifting out of the window is either scanned
 *    (few events: trial periods a window's drift apart) or locked on (the
 *    fold starts on a middle segment and the fit is extended to twice the
 *    segment until it covers the run: long soaks).  The winner is polished
 *    by a local search and checked against its multiples and
 *    sub-multiples (resolve_harmonics()).
 * 3. Significance counts cycles hit, not events: under the null hypothesis
 *    the window of one cycle holds an event with probability at most its
 *    expected count q = n * 2h / span (Markov), whatever the clustering of
 *    the noise, and cycles are independent when noise bursts are shorter
 *    than a period.  Counting events instead lets a few bursts of 3 spikes
 *    that fall in the windows look like a period.  The tail of the binomial
 *    (cycles, q) is a valid bound also when the noise rate varies over the
 *    run (Hoeffding 1956: a Poisson-binomial tail above its mean is below
 *    the binomial one with the same mean).
 * 4. The search correction is a weighted Bonferroni: each octave of period
 *    gets an equal share of the false-alarm budget, and within its octave
 *    the p-value is multiplied by the number of independent (period, phase,
 *    width) cells: periods differing by 2h * P / span drift one window
 *    width apart over the run, and a cycle holds P / 2h phase windows.
 *    Equal shares per octave rather than per cell keep long periods (few
 *    cycles, few cells) detectable although short ones have far more cells.
 *    On uniform and bursty noise it is conservative: about 1 run in
 *    10 000 goes below 10^-3, and 1 in 2 000 below 10^-2 (measured on
 *    some 10^5 noise runs of 10 to 1000 events; the unit test repeats the
 *    cases that matter with fixed seeds).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "periodicity.h"

/* Differences examined per call: each event is paired with its next
 * max(16, budget / n) events, so every pair for n up to ~1400 events, and
 * n = 20 000 stays at a few tens of milliseconds. */
#define PAIR_BUDGET 1000000u
#define PAIR_MIN_NEXT 16u
/* Histogram bins are this wide relative to the difference (or one
 * resolution): a timer's differences fall in one or two bins. */
#define BIN_REL 0.003
/* Neighbourhood for the background level of a bin, and the part of it left
 * out because the peak itself may spill there. */
#define BG_REACH 12
#define BG_GAP 3
/* Window width ladder from PERIODICITY_WIDTH_MIN_REL to
 * PERIODICITY_WIDTH_MAX_REL: steps of 2, but of sqrt(2) below 1.5
 * resolutions.  Quantized times deviate from their grid by up to half a
 * resolution plus the jitter: with steps of 2 the window after 0.5
 * resolution would be 1.0, twice the noise for little more signal. */
#define MAX_WIDTHS 16
/* A locked grid more than this far from its candidate period is another
 * candidate's business (and would void the bound used for pruning). */
#define LOCK_DRIFT 0.05
/* Trial periods scanned per candidate (evaluate()): at most SCAN_MAX, and
 * at most SCAN_BUDGET events folded per candidate; the SCAN_KEEP best by
 * their densest window are evaluated in full. */
#define SCAN_MAX 256
#define SCAN_BUDGET 20000.0
#define SCAN_KEEP 2
/* Least improvement in log10 p for which polish() moves a fitted grid. */
#define POLISH_GAIN 0.3
/* Sub-harmonics of the best candidate tried as well: when a timer fires on
 * only some cycles, the differences may show 2P but hardly P. */
#define SUBHARMONICS 5
/* In-between cycles of a shorter period hit with a chance below 10^this:
 * the shorter period is the timer's (shorter_wins()). */
#define HARMONIC_LOG10_P (-2.0)
/* Points per octave for the numerical integral of the search cells. */
#define CELL_STEPS 64

struct fold {
	double x;   /* phase in [0, P) */
	uint32_t c; /* cycle index, offset so that c - 1 is still >= 0 */
};

struct cand {
	double p0;  /* candidate period */
	double dp0; /* its uncertainty */
	double z;   /* how far its bin stands out, for ordering */
};

struct score {
	double period, phase, h, jitter, log10_p;
	unsigned matched, cycles, hit;
	int valid;
};

struct work {
	double *t; /* sorted event times in [0, span], the ones still in play */
	size_t n;
	double span, res, pmin, pmax;
	uint32_t *cyc; /* per-cycle counts for the window search, all zero between uses */
	size_t ncyc;
	struct fold *fold;
	unsigned nbands;
	double *band_log10; /* log10(bands * cells in band): the search correction */
	double min_corr;    /* the smallest of them */
	/* candidate search scratch */
	uint32_t *hist;
	size_t nbins;
	double *diffs;
	int *owner;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int cmp_fold(const void *a, const void *b)
{
	const struct fold *x = a, *y = b;

	if (x->x != y->x)
		return x->x < y->x ? -1 : 1;
	return x->c < y->c ? -1 : x->c > y->c; /* total order: same result with any qsort */
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->z != y->z)
		return x->z > y->z ? -1 : 1;
	return x->p0 < y->p0 ? -1 : x->p0 > y->p0;
}

/* ln(k!) without lgamma(), which writes the global signgam (a data race
 * when two threads analyse at once): exact sum below 20, Stirling's series
 * above (error < 1e-12). */
static double log_factorial(double k)
{
	if (k < 20) {
		double s = 0;
		for (double i = 2; i <= k; i++)
			s += log(i);
		return s;
	}
	double k2 = k * k;
	return k * log(k) - k + 0.5 * log(2 * M_PI * k) + 1 / (12 * k) - 1 / (360 * k * k2) +
	       1 / (1260 * k * k2 * k2);
}

/* ln P(X >= c) for X ~ Binomial(C, p).  At or below the mean the tail is
 * not small and 0 (p-value 1) is returned, which errs on the safe side.
 * Above it the terms shrink by a ratio that itself decreases, so the rest
 * of the sum after a term is bounded by a geometric series. */
static double log_binom_tail(unsigned C, unsigned c, double p)
{
	if (c == 0 || p >= 1)
		return 0;
	if (c > C)
		return -1e300;
	if ((double)c <= (double)C * p)
		return 0;
	double first = log_factorial(C) - log_factorial(c) - log_factorial(C - c) + c * log(p) +
		       (C - c) * log1p(-p);
	double odds = p / (1 - p), sum = 1, term = 1;

	for (unsigned j = c; j < C; j++) {
		double r = (double)(C - j) / (j + 1) * odds;
		term *= r;
		sum += term;
		double rest = r < 1 ? term * r / (1 - r) : term * (C - j);
		if (rest < 1e-16 * sum)
			break;
		if (j - c > 100000) {
			sum += rest;
			break;
		}
	}
	double l = first + log(sum);
	return l < 0 ? l : 0;
}

/* Window half-widths tried at period P, narrowest first. */
static unsigned widths(double P, double res, double *h)
{
	double h0 = fmax(fmax(0.5 * res, PERIODICITY_WIDTH_MIN_REL * P), 1e-9 * P);
	double top = fmin(fmax(PERIODICITY_WIDTH_MAX_REL * P, res), 0.25 * P);
	unsigned k = 0;

	h[k++] = h0;
	while (k < MAX_WIDTHS) {
		double next = h[k - 1] * (h[k - 1] < 1.5 * res ? M_SQRT2 : 2);
		if (next > top * (1 + 1e-9))
			break;
		h[k] = next;
		k++;
	}
	return k;
}

static unsigned band_of(const struct work *w, double P)
{
	double b = floor(log2(P / w->pmin));

	if (!(b >= 0))
		return 0;
	return b >= w->nbands ? w->nbands - 1 : (unsigned)b;
}

/* Per octave of period: log10(number of octaves * independent cells in
 * it), the factor applied to a p-value found there.  Cells per unit of
 * period at width h: span / (2h P) distinguishable periods times
 * max(1, P / 2h) phases; summed over the widths tried. */
static int bands_init(struct work *w)
{
	double octaves = log2(w->pmax / w->pmin);

	w->nbands = octaves > 1 ? (unsigned)ceil(octaves - 1e-9) : 1;
	w->band_log10 = malloc(w->nbands * sizeof(*w->band_log10));
	if (!w->band_log10)
		return -ENOMEM;
	for (unsigned b = 0; b < w->nbands; b++) {
		double lo = w->pmin * exp2(b), hi = fmin(w->pmin * exp2(b + 1), w->pmax);
		double cells = 0;

		if (b == w->nbands - 1)
			hi = w->pmax;
		if (hi <= lo)
			hi = lo * 1.0001;
		/* trapezoid in ln P: dP = P d(ln P) */
		double step = log(hi / lo) / CELL_STEPS;
		for (unsigned i = 0; i <= CELL_STEPS; i++) {
			double P = lo * exp(step * i), h[MAX_WIDTHS], f = 0;
			unsigned nh = widths(P, w->res, h);
			for (unsigned j = 0; j < nh; j++)
				f += w->span / (2 * h[j] * P) * fmax(1, P / (2 * h[j]));
			cells += (i == 0 || i == CELL_STEPS ? 0.5 : 1) * f * P * step;
		}
		w->band_log10[b] = log10(w->nbands) + log10(fmax(cells, 1));
		if (b == 0 || w->band_log10[b] < w->min_corr)
			w->min_corr = w->band_log10[b];
	}
	return 0;
}

/* First index with t >= x. */
static size_t lower(const struct work *w, double x)
{
	size_t lo = 0, hi = w->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->t[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Least-squares accumulator for t = phase + k * P over matched events,
 * relative to the first one so that the sums stay well conditioned. */
struct acc {
	double k0, t0, n, sk, st, skk, skt, ss;
	unsigned distinct;
	double lastk;
};

/* Match events in [lo, hi) against the grid (P, phi) with half-width h. */
static void match(const struct work *w, size_t lo, size_t hi, double P, double phi, double h,
		  struct acc *a)
{
	memset(a, 0, sizeof(*a));
	for (size_t i = lo; i < hi; i++) {
		double k = floor((w->t[i] - phi) / P + 0.5), dev = w->t[i] - phi - k * P;

		if (!(fabs(dev) <= h))
			continue;
		if (a->n == 0) {
			a->k0 = k;
			a->t0 = w->t[i];
			a->lastk = k - 1;
		}
		double dk = k - a->k0, dt = w->t[i] - a->t0;
		a->n++;
		a->sk += dk;
		a->st += dt;
		a->skk += dk * dk;
		a->skt += dk * dt;
		a->ss += dev * dev;
		if (k != a->lastk)
			a->distinct++; /* times are sorted, so cycles come in order */
		a->lastk = k;
	}
}

static int fit(const struct acc *a, double *P, double *phi)
{
	if (a->distinct < 2)
		return -1;
	double mk = a->sk / a->n, mt = a->st / a->n;
	double vk = a->skk / a->n - mk * mk, ckt = a->skt / a->n - mk * mt;

	if (!(vk > 0))
		return -1;
	double p = ckt / vk, f = a->t0 + mt - p * (a->k0 + mk);
	if (!isfinite(p) || !isfinite(f) || !(p > 0))
		return -1;
	*P = p;
	*phi = f;
	return 0;
}

/* Refine (P, phi) by fitting the events in [a, b], then over a window
 * twice as long around it, until the whole run is covered: a period known
 * to 1e-4 drifts by a whole window over a long soak, but not over a
 * segment, and each fit makes it exact enough for the next segment. */
static int lock(const struct work *w, double *P, double *phi, double h, double a, double b)
{
	for (;;) {
		size_t lo = lower(w, a - h), hi = lower(w, nextafter(b + h, INFINITY));
		for (int it = 0; it < 2; it++) {
			struct acc acc;
			double p = *P, f = *phi;

			match(w, lo, hi, *P, *phi, h, &acc);
			if (fit(&acc, &p, &f))
				return -1;
			if (p < 0.5 * w->pmin || p > w->span)
				return -1;
			*P = p;
			*phi = f;
		}
		if (a <= 0 && b >= w->span)
			return 0;
		double len = b - a;
		a = fmax(0, a - len / 2);
		b = fmin(w->span, b + len / 2);
	}
}

/* Score the grid (P, phi) at half-width h over the whole run. */
static void score(const struct work *w, double P, double phi, double h, struct score *s)
{
	struct acc acc;

	phi -= floor(phi / P) * P;
	if (!(phi < P) || phi < 0)
		phi = 0;
	match(w, 0, w->n, P, phi, h, &acc);
	/* The most grid points any phase puts in [-h, span + h]: counting
	 * those of this phase would let a grid slip its last point out of
	 * the run by a hair and score one miss fewer. */
	double C = floor((w->span + 2 * h) / P) + 1;
	double q = fmin(1, (double)w->n * 2 * h / w->span);

	s->period = P;
	s->phase = phi;
	s->h = h;
	s->matched = (unsigned)acc.n;
	s->hit = acc.distinct;
	s->cycles = C > 0 ? (unsigned)C : 0;
	s->jitter = acc.n > 0 ? sqrt(acc.ss / acc.n) : 0;
	double l10 = log_binom_tail(s->cycles, s->hit, q) / M_LN10 + w->band_log10[band_of(w, P)];
	s->log10_p = l10 < 0 ? l10 : 0;
	s->valid = s->matched >= PERIODICITY_MIN_MATCHED && s->hit >= PERIODICITY_MIN_CYCLES &&
		   isfinite(s->jitter) && isfinite(s->log10_p);
}

static int better(const struct score *a, const struct score *b);
static void evaluate(struct work *w, const struct cand *cd, struct score *best);

/* The least-squares grid is not the one holding the most events in its
 * windows: quantized times (interval midpoints) sit up to half a
 * resolution off the grid, and a fit may leave those at the edge out.  A
 * local search over +-h in phase and +-2h of drift over the run keeps
 * the most significant grid, if clearly so (by POLISH_GAIN in
 * log10: not a tie broken by rounding) and not by observing fewer cycles
 * (when span / P is an integer, a hair longer period drops the last
 * grid point), then refits it by least squares
 * when that keeps the significance.  Only the winner is polished. */
static void polish(const struct work *w, struct score *best)
{
	double h[MAX_WIDTHS], P = best->period, phi = best->phase;
	unsigned nh = widths(P, w->res, h);
	struct score top = *best;

	top.log10_p -= POLISH_GAIN;
	for (unsigned j = 0; j < nh; j++) {
		if (h[j] < 0.49 * best->h || h[j] > 2.01 * best->h)
			continue;
		double dp = h[j] / (2.0 * (best->cycles + 1));
		for (int a = -4; a <= 4; a++)
			for (int b = -4; b <= 4; b++) {
				struct score s = { 0 };
				score(w, P + a * dp, phi + b * 0.25 * h[j], h[j], &s);
				/* a longer period may observe a cycle fewer: no gain */
				if (s.cycles >= best->cycles && better(&s, &top))
					top = s;
			}
	}
	if (!(top.log10_p < best->log10_p - POLISH_GAIN))
		return;
	struct acc acc;
	struct score refit = { 0 };
	match(w, 0, w->n, top.period, top.phase, top.h, &acc);
	if (fit(&acc, &P, &phi) == 0)
		score(w, P, phi, top.h, &refit);
	*best = refit.valid && refit.log10_p <= top.log10_p + 1e-9 ? refit : top;
}

/* Cycles and cycles hit of the grid (P, phi, h), by cycle index mod m. */
static void class_hits(const struct work *w, double P, double phi, double h, unsigned m,
		       unsigned *cyc, unsigned *hit)
{
	double kmin = ceil((-h - phi) / P), kmax = floor((w->span + h - phi) / P), last = kmin - 1;

	for (unsigned j = 0; j < m; j++)
		cyc[j] = hit[j] = 0;
	for (double k = kmin; k <= kmax; k++)
		cyc[(unsigned)(k - kmin) % m]++;
	for (size_t i = 0; i < w->n; i++) {
		double k = floor((w->t[i] - phi) / P + 0.5);
		if (fabs(w->t[i] - phi - k * P) <= h && k != last && k >= kmin && k <= kmax)
			hit[(unsigned)(k - kmin) % m]++;
		if (fabs(w->t[i] - phi - k * P) <= h)
			last = k;
	}
}

/* Maximum log-likelihood of `hit` of `cycles` Bernoulli trials. */
static double bern_ll(double hit, double cycles)
{
	double r = cycles > 0 ? hit / cycles : 0, ll = 0;

	if (hit > 0)
		ll += hit * log(r);
	if (cycles > hit)
		ll += (cycles - hit) * log1p(-r);
	return ll;
}

/* Is the grid of period P (cycles by class mod m, `own` the class kept by
 * the multiple m P) better explained as a timer on every cycle of P than
 * as a timer on every m-th cycle with noise on the others?  Each model
 * has one free parameter, the timer's per-cycle hit rate; the noise rate
 * q is known.  The per-cycle likelihoods are compared; the shorter period
 * also wins when each class of in-between cycles is hit beyond chance
 * (HARMONIC_LOG10_P), since a timer that happened to miss mostly odd
 * cycles is likelier than noise landing on its in-between grid points.
 * Each class, not their sum: for m = 4 a 20 s timer leaves three classes
 * of 5 s points, and two random spikes in one of them are no 5 s timer. */
static int shorter_wins(const struct work *w, double h, unsigned m, unsigned own,
			const unsigned *cyc, const unsigned *hit)
{
	double q = fmin(fmax((double)w->n * 2 * h / w->span, 1e-300), 1 - 1e-12);
	double hs = 0, cs = 0, ll_long = bern_ll(hit[own], cyc[own]);
	int each = 1;

	for (unsigned j = 0; j < m; j++) {
		hs += hit[j];
		cs += cyc[j];
		if (j != own) {
			ll_long += hit[j] * log(q) + (cyc[j] - hit[j]) * log1p(-q);
			if (!(log_binom_tail(cyc[j], hit[j], q) / M_LN10 < HARMONIC_LOG10_P))
				each = 0;
		}
	}
	return bern_ll(hs, cs) > ll_long || each;
}

static int evaluate_as(struct work *w, double P, double h, unsigned cycles, struct score *out)
{
	struct cand c = { P, h / (cycles + 1), 0 };
	struct score fresh = { 0 };

	evaluate(w, &c, &fresh);
	if (!fresh.valid || !(fresh.log10_p < PERIODICITY_LOG10_P_MAX))
		return 0;
	polish(w, &fresh);
	*out = fresh;
	return 1;
}

/* P or a multiple?  The overall significance cannot always tell: windows
 * scale with the period, so at P/2 they are half as wide, and one random
 * spike on an odd grid point then makes 10 s score better than a 20 s
 * timer; conversely, quantized times of a 20 s timer whose phase sits on an
 * interval boundary fall on two lattices one interval apart, and 40 s
 * (one lattice) scores as well as 20 s.  shorter_wins() settles it by
 * whether the in-between cycles look like the timer's or like noise.
 * Longer to shorter first, smallest m first (a real P/4 is reached through
 * P/2), then shorter to longer; the switch happens only when the other
 * period is itself found significant. */
static void resolve_harmonics(struct work *w, struct score *best)
{
	unsigned cyc[SUBHARMONICS], hit[SUBHARMONICS];

	for (int round = 0; round < 4; round++) {
		int moved = 0;

		for (unsigned m = 2; m <= SUBHARMONICS && !moved; m++) {
			double Ps = best->period / m;
			if (Ps < w->pmin)
				break;
			class_hits(w, Ps, best->phase, best->h, m, cyc, hit);
			/* the class of the grid points of best's own cycles:
			 * class j counts from the first grid point kmin */
			double kmin = ceil((-best->h - best->phase) / Ps);
			unsigned own = (unsigned)fmod(fmod(-kmin, m) + m, m);
			if (shorter_wins(w, best->h, m, own, cyc, hit))
				moved = evaluate_as(w, Ps, best->h, best->cycles * m, best);
		}
		for (unsigned m = 2; m <= SUBHARMONICS && !moved; m++) {
			unsigned r0 = 0;
			if (m * best->period > w->pmax)
				break;
			class_hits(w, best->period, best->phase, best->h, m, cyc, hit);
			for (unsigned j = 1; j < m; j++)
				if (hit[j] > hit[r0])
					r0 = j;
			if (!shorter_wins(w, best->h, m, r0, cyc, hit))
				moved = evaluate_as(w, m * best->period, best->h, best->cycles / m,
						    best);
		}
		if (!moved)
			return;
	}
}

static int better(const struct score *a, const struct score *b)
{
	if (!a->valid)
		return 0;
	if (!b->valid)
		return 1;
	if (a->log10_p != b->log10_p)
		return a->log10_p < b->log10_p;
	return a->matched > b->matched;
}

/* Densest phase window of half-width h in the sorted fold f[0..m) at
 * period P, by distinct cycles (then events): the window may wrap, so the
 * fold is walked twice, the second time shifted by one period and one
 * cycle.  Returns the window centre. */
static double densest(struct work *w, const struct fold *f, size_t m, double P, double h,
		      unsigned *hits)
{
	size_t e = 0, best_s = 0, best_e = 1;
	unsigned distinct = 0, events = 0, best_d = 0, best_n = 0;

#define FX(i) ((i) < m ? f[i].x : f[(i)-m].x + P)
#define FC(i) ((i) < m ? f[i].c : f[(i)-m].c - 1)
	for (size_t s = 0; s < m; s++) {
		while (e < s + m && FX(e) <= FX(s) + 2 * h) {
			if (w->cyc[FC(e)]++ == 0)
				distinct++;
			events++;
			e++;
		}
		if (distinct > best_d || (distinct == best_d && events > best_n)) {
			best_d = distinct;
			best_n = events;
			best_s = s;
			best_e = e;
		}
		if (--w->cyc[FC(s)] == 0)
			distinct--;
		events--;
	}
	for (size_t i = m; i < e; i++)
		w->cyc[FC(i)]--;
	double c = 0.5 * (FX(best_s) + FX(best_e - 1));
	*hits = best_d;
#undef FX
#undef FC
	return c - floor(c / P) * P;
}

/* The best log10_p any grid within LOCK_DRIFT of P could reach at
 * half-width h: every cycle hit (the tail is then q^cycles), the smallest
 * correction. */
static double best_case(const struct work *w, double P, double h)
{
	double q = (double)w->n * 2 * h / w->span;
	double cycles = floor((w->span + 2 * h) / ((1 - LOCK_DRIFT) * P)) + 1;

	return q < 1 ? cycles * log10(q) + w->min_corr : 0;
}

/* Skip what cannot beat the best so far, nor the threshold: a candidate's
 * work is dominated by dense noise that has no chance anyway. */
static double prune_limit(const struct score *best)
{
	return best->valid && best->log10_p < PERIODICITY_LOG10_P_MAX ? best->log10_p
								      : PERIODICITY_LOG10_P_MAX;
}

static void score_locked(const struct work *w, double P0, double P, double phi, double h,
			 struct score *s)
{
	if (fabs(P - P0) <= LOCK_DRIFT * P0)
		score(w, P, phi, h, s);
}

/* Fold the events lo .. lo + m - 1 at period P into w->fold, sorted by
 * phase. */
static int fold(struct work *w, double P, size_t lo, size_t m)
{
	if (m < PERIODICITY_MIN_CYCLES)
		return -1;
	double base = floor(w->t[lo] / P);
	for (size_t i = 0; i < m; i++) {
		double k = floor(w->t[lo + i] / P), x = w->t[lo + i] - k * P;
		if (x >= P) {
			x -= P;
			k++;
		}
		if (x < 0)
			x = 0;
		w->fold[i].x = x;
		w->fold[i].c = (uint32_t)(k - base + 1);
	}
	/* w->cyc covers span / pmin cycles (+ margin); the fold is in time
	 * order here, so its last entry has the highest cycle */
	if ((size_t)w->fold[m - 1].c + 1 >= w->ncyc)
		return -1;
	qsort(w->fold, m, sizeof(*w->fold), cmp_fold);
	return 0;
}

/* Try one candidate period P0 (give or take dp0) at every width; keep
 * the best grid in *best. */
static void evaluate_at(struct work *w, double P0, double dp0, struct score *best)
{
	double h[MAX_WIDTHS];
	unsigned nh = widths(P0, w->res, h);

	if (best_case(w, P0, h[0]) > prune_limit(best))
		return;
	/* The fold may cover as many cycles as the period's uncertainty allows
	 * before the grid drifts by half the narrowest window. */
	double T = P0 * h[0] / (2 * dp0);

	if (!(T >= fmin(w->span, 8 * P0)))
		T = fmin(w->span, 8 * P0);
	if (T > w->span)
		T = w->span;
	double a = 0.5 * (w->span - T), b = a + T;
	size_t lo = lower(w, a), hi = lower(w, nextafter(b, INFINITY)), m = hi - lo;

	if (fold(w, P0, lo, m))
		return;

	double prevP = 0, prevphi = 0;
	int prev = 0;
	for (unsigned j = 0; j < nh; j++) {
		struct score s1 = { 0 }, s2 = { 0 };

		if (best_case(w, P0, h[j]) > prune_limit(best))
			break; /* wider windows only do worse */
		unsigned hits;
		double P = P0, phi = densest(w, w->fold, m, P0, h[j], &hits);
		struct score su = { 0 };
		if (T >= w->span)
			score(w, P0, phi, h[j], &su);
		if (lock(w, &P, &phi, h[j], a, b) == 0)
			score_locked(w, P0, P, phi, h[j], &s1);
		/* the fold itself, unfitted, when clearly better: least
		 * squares may tilt a grid whose quantized events sit on two
		 * lattices one resolution apart */
		if (su.valid && (!s1.valid ||
				 (su.log10_p < s1.log10_p - POLISH_GAIN && su.cycles >= s1.cycles)))
			s1 = su;
		/* the grid locked at the previous width, often better at this
		 * one, unless it is the same grid */
		if (prev && !(s1.valid && fabs(s1.period - prevP) * s1.cycles < 0.25 * h[j] &&
			      fabs(s1.phase - prevphi) < 0.25 * h[j])) {
			P = prevP;
			phi = prevphi;
			if (lock(w, &P, &phi, h[j], 0, w->span) == 0)
				score_locked(w, P0, P, phi, h[j], &s2);
		}
		if (better(&s2, &s1))
			s1 = s2;
		prev = s1.valid;
		prevP = s1.period;
		prevphi = s1.phase;
		if (better(&s1, best))
			*best = s1;
	}
}

/* A candidate whose period is too uncertain to fold the whole run at once
 * (the grid would drift by more than half a window): when the events are
 * few, scan trial periods over +-2 dp0, spaced so that the drift between
 * neighbours over the run is one narrowest window; otherwise evaluate_at()
 * locks on from a segment.  Quantized times need the scan: a 20 s period
 * over 1 s intervals gives differences of 19, 20 and 21 s, and a period
 * known to +-0.2 s drifts 3 s over the run. */
static void evaluate(struct work *w, const struct cand *cd, struct score *best)
{
	double h[MAX_WIDTHS];

	widths(cd->p0, w->res, h);
	double spacing = h[0] * cd->p0 / w->span, nscan = ceil(4 * cd->dp0 / spacing);
	if (nscan <= 1 || nscan > SCAN_MAX || nscan * (double)w->n > SCAN_BUDGET) {
		evaluate_at(w, cd->p0, cd->dp0, best);
		return;
	}
	/* Screen the trials by their densest window alone (no fit), then
	 * evaluate the SCAN_KEEP most promising in full. */
	double keep_p[SCAN_KEEP], keep_v[SCAN_KEEP];
	unsigned nkeep = 0;
	spacing = 4 * cd->dp0 / nscan;
	for (double i = 0; i < nscan; i++) {
		double P = cd->p0 - 2 * cd->dp0 + (i + 0.5) * spacing, v = 0, C;
		unsigned nh = widths(P, w->res, h), hits;
		if (P < 0.5 * w->pmin || fold(w, P, 0, w->n))
			continue;
		C = floor(w->span / P) + 1;
		for (unsigned j = 0; j < nh; j++) {
			densest(w, w->fold, w->n, P, h[j], &hits);
			double l = log_binom_tail((unsigned)C, hits,
						  fmin(1, (double)w->n * 2 * h[j] / w->span));
			v = fmin(v, l);
		}
		/* insert into the kept list, sorted by v */
		unsigned k = nkeep < SCAN_KEEP ? nkeep++ : SCAN_KEEP;
		while (k > 0 && keep_v[k - 1] > v) {
			if (k < SCAN_KEEP) {
				keep_v[k] = keep_v[k - 1];
				keep_p[k] = keep_p[k - 1];
			}
			k--;
		}
		if (k < SCAN_KEEP) {
			keep_v[k] = v;
			keep_p[k] = P;
		}
	}
	for (unsigned k = 0; k < nkeep; k++)
		evaluate_at(w, keep_p[k], 0.5 * spacing, best);
}

/* The difference histogram's bin coordinate: linear (bins of one
 * resolution) below res / BIN_REL, logarithmic (bins of BIN_REL relative)
 * above. */
static double bin_coord(double d, double a)
{
	double ds = a / BIN_REL;

	return d <= ds ? d / a : ds / a + log(d / ds) / BIN_REL;
}

static double bin_inverse(double f, double a)
{
	double ds = a / BIN_REL;

	return f <= ds / a ? f * a : ds * exp((f - ds / a) * BIN_REL);
}

/* The log-spaced bins of candidate periods: bin of a difference d is
 * bin_coord(d, a) - f0; a spike is paired with its `next` followers. */
struct bins {
	double a, f0;
	size_t nb, next;
};

/* Histogram of the pairwise differences between pmin and pmax. */
static int pair_histogram(struct work *w, struct bins *b)
{
	size_t n = w->n;

	b->next = PAIR_BUDGET / (n ? n : 1);
	if (b->next < PAIR_MIN_NEXT)
		b->next = PAIR_MIN_NEXT;
	b->a = fmax(w->res, 1e-9 * w->pmin);
	b->f0 = bin_coord(w->pmin, b->a) - 0.5;
	b->nb = (size_t)(bin_coord(w->pmax, b->a) - b->f0) + 2;
	if (b->nb > w->nbins) {
		uint32_t *hist = realloc(w->hist, b->nb * sizeof(*hist));
		if (!hist)
			return -ENOMEM;
		w->hist = hist;
		int *owner = realloc(w->owner, b->nb * sizeof(*owner));
		if (!owner)
			return -ENOMEM;
		w->owner = owner;
		w->nbins = b->nb;
	}
	memset(w->hist, 0, b->nb * sizeof(*w->hist));
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n && j <= i + b->next; j++) {
			double d = w->t[j] - w->t[i];
			if (d < w->pmin)
				continue;
			if (d > w->pmax)
				break;
			size_t bin = (size_t)(bin_coord(d, b->a) - b->f0);
			if (bin < b->nb)
				w->hist[bin]++;
		}
	return 0;
}

/* Score each pair of adjacent bins against the mean of its neighbourhood
 * (a peak may straddle two bins): the bins with a positive score, best
 * first, in all[] (p0 holds the bin index for now).  -ENOMEM or the
 * count. */
static long score_bins(const struct work *w, const struct bins *b, struct cand *all)
{
	size_t nb = b->nb, na = 0;
	double *pre = malloc((nb + 1) * sizeof(*pre));

	if (!pre)
		return -ENOMEM;
	pre[0] = 0;
	for (size_t i = 0; i < nb; i++)
		pre[i + 1] = pre[i] + w->hist[i];
	for (size_t i = 0; i + 1 < nb; i++) {
		double s = (double)w->hist[i] + w->hist[i + 1];
		if (s < 2)
			continue;
		size_t l0 = i >= BG_REACH ? i - BG_REACH : 0, h1 = i + 1 + BG_REACH + 1;
		size_t g0 = i >= BG_GAP ? i - BG_GAP : 0, g1 = i + 1 + BG_GAP + 1;
		if (h1 > nb)
			h1 = nb;
		if (g1 > nb)
			g1 = nb;
		double cnt = (double)(h1 - l0) - (double)(g1 - g0);
		double bg = cnt > 0 ? (pre[h1] - pre[l0] - (pre[g1] - pre[g0])) / cnt : 0;
		double z = (s - 2 * bg) / sqrt(2 * bg + 1);
		if (z <= 0)
			continue;
		all[na].z = z;
		all[na].p0 = (double)i;
		all[na].dp0 = 0;
		na++;
	}
	free(pre);
	qsort(all, na, sizeof(*all), cmp_cand);
	return (long)na;
}

/* Top bins, at least BG_GAP apart; each owns bins i - 1 .. i + 2. */
static unsigned pick_peaks(struct work *w, const struct bins *b, const struct cand *all, size_t na,
			   struct cand *out)
{
	size_t nb = b->nb;
	unsigned nc = 0;

	for (size_t i = 0; i < nb; i++)
		w->owner[i] = -1;
	for (size_t k = 0; k < na && nc < PERIODICITY_CANDIDATES; k++) {
		size_t i = (size_t)all[k].p0, lo = i ? i - 1 : 0, hi = i + 3 < nb ? i + 3 : nb;
		int taken = 0;
		for (size_t x = lo; x < hi; x++)
			taken |= w->owner[x] >= 0;
		if (taken)
			continue;
		for (size_t x = lo; x < hi; x++)
			w->owner[x] = (int)nc;
		out[nc] = all[k];
		nc++;
	}
	return nc;
}

/* Each candidate's raw differences, bucketed by owner: candidate c's are
 * w->diffs[start[c] .. start[c + 1]). */
static int collect_diffs(struct work *w, const struct bins *b, unsigned nc, size_t *start)
{
	size_t fill[PERIODICITY_CANDIDATES], n = w->n;

	memset(start, 0, (PERIODICITY_CANDIDATES + 1) * sizeof(*start));
	for (size_t i = 0; i < b->nb; i++)
		if (w->owner[i] >= 0)
			start[w->owner[i] + 1] += w->hist[i];
	for (unsigned c = 0; c < nc; c++) {
		start[c + 1] += start[c];
		fill[c] = start[c];
	}
	double *diffs = realloc(w->diffs, (start[nc] ? start[nc] : 1) * sizeof(*diffs));
	if (!diffs)
		return -ENOMEM;
	w->diffs = diffs;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n && j <= i + b->next; j++) {
			double d = w->t[j] - w->t[i];
			if (d < w->pmin)
				continue;
			if (d > w->pmax)
				break;
			size_t bin = (size_t)(bin_coord(d, b->a) - b->f0);
			if (bin < b->nb && w->owner[bin] >= 0)
				diffs[fill[w->owner[bin]]++] = d;
		}
	return 0;
}

/* Mean shift: the mean of the differences within one bin width of the
 * estimate, until it settles on the peak.  The difference of two
 * quantized times (interval midpoints) is off by up to one resolution
 * either way: a period of 20.3 s, or of 20 s with its phase on an
 * interval boundary, spreads over the 19, 20 and 21 s bins; a window of
 * 1.5 resolutions either side averages them back. */
static void mean_shift(const struct work *w, const struct bins *b, const size_t *start,
		       struct cand *cand, unsigned c)
{
	const double *diffs = w->diffs;
	size_t i = (size_t)cand->p0;
	double lo_d = bin_inverse(i + b->f0, b->a), hi_d = bin_inverse(i + 2 + b->f0, b->a);
	double ctr = 0.5 * (lo_d + hi_d), mean = ctr, sd = 0, k = 0;

	for (int it = 0; it < 10; it++) {
		double hw = 1.01 * fmax(1.5 * w->res, BIN_REL * ctr), s = 0, ss = 0;
		k = 0;
		for (size_t x = start[c]; x < start[c + 1]; x++)
			if (fabs(diffs[x] - ctr) <= hw) {
				s += diffs[x] - ctr;
				ss += (diffs[x] - ctr) * (diffs[x] - ctr);
				k++;
			}
		if (k == 0)
			break;
		mean = ctr + s / k;
		sd = sqrt(fmax(0, ss / k - (s / k) * (s / k)));
		if (fabs(mean - ctr) < 1e-12 * ctr) {
			ctr = mean;
			break;
		}
		ctr = mean;
	}
	cand->p0 = ctr;
	/* the mean of k differences, and no better than one resolution over
	 * the chain of them */
	cand->dp0 = fmax(fmax(3 * sd / sqrt(k > 1 ? k : 1), w->res / (k > 1 ? k : 1)), 1e-9 * ctr);
}

/* Candidate periods: peaks of the histogram of pairwise differences,
 * each refined to the mean of the differences under it. */
static int candidates(struct work *w, struct cand *out, unsigned *nout)
{
	size_t start[PERIODICITY_CANDIDATES + 1];
	struct bins b;
	int rc;

	*nout = 0;
	if ((rc = pair_histogram(w, &b)))
		return rc;
	struct cand *all = malloc(b.nb * sizeof(*all));
	if (!all)
		return -ENOMEM;
	long na = score_bins(w, &b, all);
	unsigned nc = na > 0 ? pick_peaks(w, &b, all, (size_t)na, out) : 0;
	free(all);
	if (na < 0)
		return (int)na;
	if (nc == 0)
		return 0;
	if ((rc = collect_diffs(w, &b, nc, start)))
		return rc;
	for (unsigned c = 0; c < nc; c++)
		mean_shift(w, &b, start, &out[c], c);
	*nout = nc;
	return 0;
}

int periodicity_find(const double *t, size_t n, double span_s, double resolution_s,
		     struct periodicity_pattern *out, unsigned max_out)
{
	struct work w = { 0 };
	struct cand cands[PERIODICITY_CANDIDATES];
	int found = 0, rc;

	if ((n > 0 && !t) || (max_out > 0 && !out) || !isfinite(span_s) || !(span_s > 0) ||
	    !isfinite(resolution_s) || resolution_s < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(t[i]))
			return -EINVAL;
	if (n < 2 || max_out == 0)
		return 0;

	w.span = span_s;
	w.res = resolution_s;
	w.pmin = fmax(fmax(PERIODICITY_MIN_PERIOD_S, PERIODICITY_MIN_PERIOD_RES * resolution_s),
		      span_s / PERIODICITY_MAX_CYCLES);
	w.pmax = span_s * PERIODICITY_MAX_PERIOD_FRAC;
	if (!(w.pmin < w.pmax))
		return 0;

	w.t = malloc(n * sizeof(*w.t));
	w.fold = malloc(n * sizeof(*w.fold));
	w.ncyc = (size_t)(span_s / w.pmin) + 4;
	w.cyc = calloc(w.ncyc, sizeof(*w.cyc));
	rc = -ENOMEM;
	if (!w.t || !w.fold || !w.cyc || bands_init(&w))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (t[i] >= 0 && t[i] <= span_s)
			w.t[w.n++] = t[i];
	qsort(w.t, w.n, sizeof(*w.t), cmp_double);

	while ((unsigned)found < max_out && w.n >= PERIODICITY_MIN_MATCHED) {
		struct score best = { 0 };
		unsigned nc;

		rc = candidates(&w, cands, &nc);
		if (rc)
			goto out;
		for (unsigned c = 0; c < nc; c++)
			evaluate(&w, &cands[c], &best);
		if (best.valid) {
			/* the grid's period is known to about a window over
			 * the cycles observed: that uncertainty, divided */
			struct score top = best;
			for (unsigned k = 2; k <= SUBHARMONICS; k++) {
				struct cand sub = { top.period / k, top.h / (top.cycles + 1) / k,
						    0 };
				if (sub.p0 >= w.pmin)
					evaluate(&w, &sub, &best);
			}
			polish(&w, &best);
			resolve_harmonics(&w, &best);
		}
		if (!best.valid || !(best.log10_p < PERIODICITY_LOG10_P_MAX))
			break;

		struct periodicity_pattern *p = &out[found++];
		p->period_s = best.period;
		p->jitter_s = best.jitter;
		p->phase_s = best.phase;
		p->explained = (double)best.matched / (double)n;
		p->matched = best.matched;
		p->cycles = best.cycles;
		p->cycles_hit = best.hit;
		p->log10_p = best.log10_p;
		p->halfwidth_s = best.h;

		/* Take the pattern's events out and look again for the next. */
		size_t k = 0;
		for (size_t i = 0; i < w.n; i++) {
			double c = floor((w.t[i] - best.phase) / best.period + 0.5);
			if (!(fabs(w.t[i] - best.phase - c * best.period) <= best.h))
				w.t[k++] = w.t[i];
		}
		w.n = k;
	}
	rc = found;
out:
	free(w.t);
	free(w.fold);
	free(w.cyc);
	free(w.band_log10);
	free(w.hist);
	free(w.owner);
	free(w.diffs);
	return rc;
}
