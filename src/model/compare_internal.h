/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare_internal: what compare.c (matching, differences) and
 * compare_verdict.c / compare_drift.c (the verdicts) share.  Included by
 * src/model/compare*.c only. */
#ifndef RTSOAK_COMPARE_INTERNAL_H
#define RTSOAK_COMPARE_INTERNAL_H

#include "compare.h"

/* Judge every statistic the options need for m of two separate runs;
 * intervals: the match's probe family has series on both sides (else
 * every statistic of the family goes by order statistics, so that one
 * probe's results share one method).  Then the overall verdict.
 * Returns 0 or -ENOMEM. */
int compare_judge_runs(struct compare_match *m, const struct comparison *c, bool intervals)
    __attribute__((warn_unused_result));
/* The same for several runs a side: ra[i] is run i's result matched with m
 * (NULL where that run has none); also sets m's statistics table. */
int compare_judge_replicates(struct compare_match *m, const struct comparison *c,
			     const struct report_result *const *ra, size_t na,
			     const struct report_result *const *rb, size_t nb)
    __attribute__((warn_unused_result));
/* The same for arm B against arm A of an ab report, by the rounds. */
int compare_judge_ab(struct compare_match *m, const struct comparison *c)
    __attribute__((warn_unused_result));
/* The per-round values of stat for (probe, cpu) of res in one arm, in
 * round order; returns how many (at most max). */
size_t compare_round_values(const struct report *r, const struct report_result *res, char arm,
			    enum compare_stat stat, double *out, size_t max);
/* The drift tests of an ab match (compare_drift.c).  Returns 0 or -ENOMEM. */
int compare_drift_ab(struct compare_match *m, const struct comparison *c)
    __attribute__((warn_unused_result));
/* The checks whose status changed between c->a and c->b (compare_checks.c).  Returns 0 or
 * -ENOMEM. */
int compare_checks_build(struct comparison *c) __attribute__((warn_unused_result));

#endif
