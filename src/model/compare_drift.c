// SPDX-License-Identifier: GPL-2.0-or-later
/* compare_drift: is an ab arm's statistic trending over its rounds?
 *
 * ABBA order cancels a drift linear in time between the arms, but not its
 * effect on the test: rounds that climb 169 -> 370 us spread each arm so
 * wide that a real difference drowns, or a step lands in one arm.  Two
 * separate runs cannot tell drift from the tweak at all (compare.c says
 * so).  The test: Spearman's rank correlation of each arm's round values
 * with their order, exact over the n! orders (n <= 8 rounds per arm). */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"
#include "stats.h"

#define EXACT_MAX 8

/* Average ranks (1-based) of x in r. */
static void ranks(const double *x, size_t n, double *r)
{
	for (size_t i = 0; i < n; i++) {
		size_t less = 0, eq = 0;
		for (size_t k = 0; k < n; k++) {
			less += x[k] < x[i];
			eq += x[k] == x[i];
		}
		r[i] = (double)less + ((double)eq + 1) / 2;
	}
}

/* Pearson correlation of ranks r with the order 1..n. */
static double rho_of(const double *r, size_t n)
{
	double mean = ((double)n + 1) / 2, sxy = 0, sxx = 0, syy = 0;

	for (size_t i = 0; i < n; i++) {
		double dx = (double)(i + 1) - mean, dy = r[i] - mean;
		sxy += dx * dy;
		sxx += dx * dx;
		syy += dy * dy;
	}
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}

void compare_spearman(const double *x, size_t n, double *rho, double *p)
{
	double r[EXACT_MAX], perm[EXACT_MAX];
	size_t c[EXACT_MAX] = { 0 }, i = 1, total = 1, extreme = 1;

	*rho = 0;
	*p = 1;
	if (n < 3)
		return;
	if (n > EXACT_MAX) {
		/* normal approximation of rho under independence */
		double rr[64];
		size_t m = n > 64 ? 64 : n;
		ranks(x, m, rr);
		*rho = rho_of(rr, m);
		*p = 2 * (1 - stats_norm_cdf(fabs(*rho) * sqrt((double)m - 1)));
		return;
	}
	ranks(x, n, r);
	*rho = rho_of(r, n);
	/* Heap's algorithm over the orders of the ranks (ties kept as they
	 * are): the share with |rho| at least the observed one. */
	memcpy(perm, r, n * sizeof(*r));
	while (i < n) {
		if (c[i] < i) {
			size_t k = i % 2 ? c[i] : 0;
			double t = perm[k];
			perm[k] = perm[i];
			perm[i] = t;
			total++;
			extreme += fabs(rho_of(perm, n)) >= fabs(*rho) - 1e-12;
			c[i]++;
			i = 1;
		} else {
			c[i] = 0;
			i++;
		}
	}
	*p = (double)extreme / (double)total;
}

int compare_drift_ab(struct compare_match *m, const struct comparison *c)
{
	double v[RECORDER_MAX_PHASES];

	m->ndrift = 0;
	for (size_t i = 0; i < m->nj; i++) {
		const struct compare_judgement *j = &m->j[i];
		bool on = false;
		for (size_t k = 0; k < c->opts.non; k++)
			on |= c->opts.on[k] == j->asked;
		if (!on)
			continue;
		for (int arm = 0; arm < 2; arm++) {
			const struct report_result *res = arm ? m->b : m->a;
			size_t n = compare_round_values(c->a, res, arm ? 'B' : 'A', j->stat, v,
							RECORDER_MAX_PHASES);
			double rho, p;
			if (n < COMPARE_DRIFT_MIN_ROUNDS || m->ndrift == COMPARE_MAX_DRIFT)
				continue;
			compare_spearman(v, n, &rho, &p);
			if (p > COMPARE_DRIFT_ALPHA)
				continue;
			if (!m->drift && !(m->drift = calloc(COMPARE_MAX_DRIFT, sizeof(*m->drift))))
				return -ENOMEM;
			struct compare_drift *d = &m->drift[m->ndrift++];
			d->arm = arm ? 'B' : 'A';
			d->stat = j->stat;
			d->rounds = n;
			d->first_ns = v[0];
			d->last_ns = v[n - 1];
			d->rho = rho;
			d->p = p;
		}
	}
	return 0;
}
