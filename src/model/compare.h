/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare: two report models -> per-result verdicts and what differs.
 *
 * "Did this tweak help?" is answered per (probe, cpu, phase) present in
 * both reports.  Latency samples are autocorrelated (one bad second holds
 * many late wake-ups) and max is a single sample, so the verdict never
 * rests on the samples themselves: its unit is a per-interval maximum from
 * the time series (thinned into blocks while they stay autocorrelated) or a
 * per-round value from `rtsoak ab`, tested with Mann-Whitney U and a
 * Hodges-Lehmann confidence interval for the shift.  p50, p99 and p99.9 of
 * two separate runs go the same way over the per-interval quantiles the
 * series keep (issue 30); the other percentiles, and everything without
 * them (a report before them, a cyclictest file, no series), by
 * order-statistic confidence intervals in each run, which assume
 * independent samples: the report says which was used.  One run a side
 * has no measure of the noise between runs, so a significant shift it
 * cannot separate from a run's own spread or drift is "no verdict"
 * (compare_verdict.c, separable).
 *
 * Each statistic gets its own verdict (compare_verdict.c): the typical
 * latency (p50, p99) and the tail (max, p99.9) can move apart, and the
 * overall verdict is mixed when they do.  A significant shift smaller than
 * --min-effect is no practical difference.  Drift over an ab arm's rounds
 * is tested by rank correlation (compare_drift.c). */
#ifndef RTSOAK_COMPARE_H
#define RTSOAK_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "report.h"
#include "stats.h"

#define COMPARE_CONF 0.95
#define COMPARE_ALPHA 0.05
/* A drift warning when the rank correlation of an arm's rounds with their
 * order has an exact two-sided p at most this: 4 rounds can show it (only
 * a monotone run, p 2/24), so 8 % of unchanged arms of 4 rounds warn. */
#define COMPARE_DRIFT_ALPHA 0.1
/* Fewer rounds per arm than this are not tested for drift. */
#define COMPARE_DRIFT_MIN_ROUNDS 4
/* The default --min-effect: a shift smaller than the larger of these is no
 * practical difference (2 us is above the timer probe's clock and wake-up
 * jitter on a quiet machine, 5 % keeps a 10 ms tail from calling 0.2 ms
 * noise a regression). */
#define COMPARE_MIN_EFFECT_NS 2000.0
#define COMPARE_MIN_EFFECT_PCT 5.0

/* Overall verdicts of a match, and verdicts of one statistic (never mixed). */
enum compare_verdict {
	COMPARE_SAME,	  /* no significant, or no practical, difference */
	COMPARE_BETTER,	  /* B lower */
	COMPARE_WORSE,	  /* B higher */
	COMPARE_UNTESTED, /* not enough data (no samples, no histogram, too few units) */
	COMPARE_MIXED,	  /* one judged statistic better, another worse */
	/* The evidence cannot separate A from B (issue 30): too few blocks, a
	 * run that drifts, or blocks that spread more than the shift; never
	 * better or worse.  Printed "no verdict". */
	COMPARE_NO_VERDICT,
};

enum compare_method {
	COMPARE_BY_INTERVALS, /* per-interval maxima of the time series */
	COMPARE_BY_ROUNDS,    /* per-round values (rtsoak ab) */
	COMPARE_BY_ORDER,     /* order-statistic CI of a percentile, samples taken as independent */
	COMPARE_BY_RUNS,      /* per-run values (several runs a side) */
	COMPARE_BY_NOTHING,
	COMPARE_BY_BLOCKS, /* per-interval quantiles of the time series, in blocks */
};

/* Fewer intervals (or blocks) a side than this: no verdict (issue 30). */
#define COMPARE_MIN_BLOCKS 6
/* A single run drifts when the rank correlation of its blocks with their
 * order has a two-sided p below this (compare_verdict.c, separable). */
#define COMPARE_RUN_DRIFT_ALPHA 0.05

/* The statistics a table row and a --fail-if limit can name. */
enum compare_stat {
	COMPARE_COUNT,
	COMPARE_MIN,
	COMPARE_MEAN,
	COMPARE_P50,
	COMPARE_P90,
	COMPARE_P99,
	COMPARE_P99_9,
	COMPARE_P99_99,
	COMPARE_P99_999,
	COMPARE_MAX,
	COMPARE_MISSED,
	COMPARE_NSTATS,
};

extern const char *const compare_stat_name[COMPARE_NSTATS]; /* "count", "p99.9", ... */
/* As printed and in rtsoak-compare/2, indexed by enum compare_verdict / compare_method:
 * "same", "better", "worse", "untested", "mixed"; "intervals", "rounds", "order", "runs", "none". */
extern const char *const compare_verdict_name[];
extern const char *const compare_method_name[];

/* Can compare judge this statistic with a noise model (the percentiles
 * and max; not count, min, mean or missed)? */
bool compare_stat_judgeable(enum compare_stat s);

struct compare_value {
	bool known; /* false: no samples, or the source did not record it */
	uint64_t a, b;
	double change_pct; /* (b - a) / a * 100; meaningful when known and a > 0 */
};

/* The verdict on one statistic of a match, with its own test.  Its unit:
 * per-interval maxima (max, with series), per-round values (rtsoak ab:
 * every statistic), or the order-statistic interval of a percentile in
 * each run.  Without a series max cannot be tested (one sample a run), so
 * a max asked for is judged as p99.9 there: `asked` is what the user
 * named, `stat` what was tested. */
struct compare_judgement {
	enum compare_stat asked, stat;
	enum compare_verdict verdict; /* SAME, BETTER, WORSE, UNTESTED or NO_VERDICT */
	enum compare_method method;
	/* Shift of B against A in ns, its CI, p-value (-1: none, the
	 * intervals decide), and the units used. */
	double shift_ns, lo_ns, hi_ns, p;
	bool ci;
	size_t na, nb;
	uint64_t unit_ns; /* interval (or block) length for COMPARE_BY_INTERVALS */
	bool significant; /* p < alpha and the CI excludes 0 */
	/* significant at alpha / k, k the --verdict-on statistics (Bonferroni): what
	 * lets one statistic move the overall verdict alone */
	bool strong;
	double ref_ns;	  /* A's typical unit value: the base of % effects and % limits */
	double effect_ns; /* the --min-effect that applied: max(ns, pct of ref_ns) */
	char note[112];	  /* why untested, no practical difference, or what a method assumed */
	/* Series methods (intervals, blocks): the larger of the two runs'
	 * interquartile range of their blocks, and the larger trend within a
	 * run (second half's median - first half's, drift_side 'A' or 'B',
	 * Spearman p; drift_p 1 and drift_ns 0: none significant). */
	double spread_ns, drift_ns, drift_p;
	char drift_side;
};

/* A trend over an arm's rounds (rtsoak ab). */
struct compare_drift {
	char arm; /* 'A' or 'B' */
	enum compare_stat stat;
	size_t rounds;
	double first_ns, last_ns; /* the first and the last round's value */
	double rho, p;		  /* Spearman's rank correlation with round order, exact p */
};

/* One cause of the attribution of a matched (probe, cpu, phase): its share
 * of the excess latency on each side (attribution.h). */
struct compare_cause {
	const char *cause; /* the key, borrowed from A's or B's attribution */
	bool in_a, in_b;   /* listed in that side's causes (else share 0) */
	double share_a, share_b;
	uint64_t spikes_a, spikes_b;
	/* both sides traced, and the share moved by more than
	 * ATTRIBUTION_SHIFT_POINTS or the cause appeared or disappeared */
	bool shifted;
};

#define COMPARE_MAX_JUDGED 8
#define COMPARE_MAX_RUNS 64 /* runs a side (compare A1 .. vs B1 ..) */
#define COMPARE_MAX_DRIFT (2 * COMPARE_MAX_JUDGED)

struct compare_match {
	const struct report_result *a, *b;
	bool aggregate;
	bool ab; /* arm B against arm A of one rtsoak ab report */
	struct compare_value v[COMPARE_NSTATS];
	/* The overall verdict from the --verdict-on statistics, and why in a
	 * few words ("p99 better, max worse"; "no practical difference: ...") */
	enum compare_verdict verdict;
	char reason[160];
	/* The match's method, one word: rounds (ab), intervals (max by
	 * interval maxima, percentiles by order statistics), order (no series:
	 * every statistic by order statistics), none. */
	enum compare_method method;
	char note[160]; /* why untested, or what the method assumed */
	/* malloc'd, nj of them (a report of 10^5 results has as many matches:
	 * no fixed arrays here, bench/readers.sh) */
	struct compare_judgement *j;
	size_t nj;
	struct compare_drift *drift; /* ab only; NULL when no arm drifts */
	size_t ndrift;
	/* The causes of both sides' attribution entries, A's order then B's
	 * new ones; traced_a/b: that side has an entry (rtsoak run --trace).
	 * Neither: no causes.  Per-CPU matches only. */
	bool traced_a, traced_b;
	struct compare_cause *causes;
	size_t ncauses;
};

/* What the verdict judges: --verdict-on and --min-effect. */
struct compare_opts {
	enum compare_stat on[COMPARE_MAX_JUDGED];
	size_t non;
	char on_text[64]; /* "p99,max" */
	double min_effect_ns, min_effect_pct;
	/* Further statistics to judge (a --fail-if names them); filled by
	 * compare_opts_need. */
	enum compare_stat extra[COMPARE_MAX_JUDGED];
	size_t nextra;
};

/* The documented defaults: --verdict-on p99,max --min-effect 2us,5%. */
void compare_opts_default(struct compare_opts *o);
/* --verdict-on STAT[,STAT]...: judgeable statistics only.  Returns 0 or
 * -EINVAL with a reason. */
int compare_opts_verdict_on(struct compare_opts *o, const char *text, char *err, size_t errlen)
    __attribute__((warn_unused_result));
/* --min-effect AMOUNT[,PCT%] (or PCT% alone, or 0): 0 or -EINVAL. */
int compare_opts_min_effect(struct compare_opts *o, const char *text, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* --fail-if STAT>[+-]AMOUNT[%|unit]: trips when B - A exceeds the amount
 * and, unless raw, the confidence interval of the change lies beyond it. */
struct compare_limit {
	enum compare_stat stat;
	bool relative; /* amount in % of A */
	bool raw;      /* --fail-if-raw: the plain values decide, no noise model */
	double amount; /* % or ns, signed */
	char text[64]; /* as given */
};

/* Judge the limits' statistics too (so that they have evidence). */
void compare_opts_need(struct compare_opts *o, const struct compare_limit *l, size_t nl);

/* A tuning check whose status differs between A and B (the reports' `checks`, matched by id;
 * a repeated id by its order).  Strings point into the reports; status NULL: the check is on the
 * other side only. */
struct compare_check {
	const char *id;
	const char *status_a, *status_b;
	const char *observed_a, *observed_b;
};

struct comparison {
	const struct report *a, *b; /* each side's first run */
	const char *path_a, *path_b;
	/* Every run of each side in the order given, a and b first; with more than one
	 * a side, every statistic is judged by its per-run values (method "runs"): the
	 * between-run noise is then in the test.  Borrowed from the caller. */
	const struct report *const *runs_a, *const *runs_b;
	const char *const *paths_a, *const *paths_b;
	size_t nruns_a, nruns_b;
	bool ab;
	struct compare_opts opts;
	struct compare_match *m;
	size_t n;
	char **only_a, **only_b; /* "probe cpu N phase" present on one side */
	size_t nonly_a, nonly_b;
	char **warnings; /* why the runs may not be comparable */
	size_t nwarnings;
	json_t *differences; /* [{"what": "system.kernel.release", "a": .., "b": ..}] */
	/* The tweaks of an ab report as a few lines, identical files
	 * collapsed ("235 x /sys/kernel/slab/STAR/cpu_partial: 6|8|... -> 0") */
	char **tweak_lines;
	size_t ntweak_lines;
	size_t ndrift; /* matches with a drift warning (ab) */
	/* The checks whose status changed, in A's order then B's only; none for ab (one run's
	 * checks) or when a side has no checks section (checks_compared false). */
	struct compare_check *checks;
	size_t nchecks;
	bool checks_compared;
	/* While judging: the rank tests' room, kept from one CPU to the next
	 * (stats_shift_in); NULL otherwise. */
	struct stats_work *work;
};

/* Build the comparison (a and b stay owned by the caller and must outlive
 * it); o NULL: the defaults.  Returns 0 or -ENOMEM. */
int compare_build(struct comparison *c, const struct report *a, const char *path_a,
		  const struct report *b, const char *path_b, const struct compare_opts *o)
    __attribute__((warn_unused_result));
/* Several runs a side (na, nb >= 1; the arrays must outlive c): matched by the
 * first run of each, judged by the runs' values of every matched result.  The
 * statistics table holds the runs' totals for count and missed and their median
 * run's value for every other statistic.  Returns 0 or -ENOMEM. */
int compare_build_runs(struct comparison *c, const struct report *const *a,
		       const char *const *path_a, size_t na, const struct report *const *b,
		       const char *const *path_b, size_t nb, const struct compare_opts *o)
    __attribute__((warn_unused_result));
/* rtsoak ab: arm A ("A") against arm B ("B") of one report, every
 * statistic judged by its per-round values of the rounds "A1".. and
 * "B1"..; drift tested within each arm; differences are the report's
 * tweaks. */
int compare_build_ab(struct comparison *c, const struct report *r, const char *path,
		     const struct compare_opts *o) __attribute__((warn_unused_result));
void compare_free(struct comparison *c);

/* Parse one --fail-if (raw false) or --fail-if-raw (raw true) expression.
 * Returns 0 or -EINVAL with a reason. */
int compare_limit_parse(const char *text, bool raw, struct compare_limit *out, char *err,
			size_t errlen);
/* Does match m break the limit?  *checkable false when a side lacks the
 * statistic.  A limit that needs evidence and has none (the statistic
 * untested) does not break; *evidence (may be NULL) says whether there was
 * a test to decide. */
bool compare_limit_broken(const struct compare_limit *l, const struct compare_match *m,
			  bool *checkable, bool *evidence);
/* Has j a shift to show (a test was made)?  Not when untested, nor when
 * no verdict for too few intervals (issue 30: p < 0 there). */
static inline bool compare_judgement_tested(const struct compare_judgement *j)
{
	return j->verdict != COMPARE_UNTESTED && (j->verdict != COMPARE_NO_VERDICT || j->p >= 0);
}
/* The judgement of stat in m (as tested, not as asked), or NULL. */
const struct compare_judgement *compare_judged(const struct compare_match *m,
					       enum compare_stat stat);

/* Spearman's rank correlation of x with 1..n (average ranks for ties) and
 * its two-sided p: exact by enumerating the orders for n <= 8, the normal
 * approximation above.  n < 3: rho 0, p 1. */
void compare_spearman(const double *x, size_t n, double *rho, double *p);
/* The same over all n values (exact up to 8, normal approximation above). */
void compare_trend(const double *x, size_t n, double *rho, double *p);

/* The match's name for a person: "PROBE cpu N (PHASE)" or "PROBE all CPUs
 * (PHASE)", names escaped (util_escape: they come from files), cut to len. */
void compare_where(char *buf, size_t len, const struct compare_match *m);

#endif
