/* compare: two report models -> per-result verdicts and what differs.
 *
 * "Did this tweak help?" is answered per (probe, cpu, phase) present in
 * both reports.  Latency samples are autocorrelated (one bad second holds
 * many late wake-ups) and max is a single sample, so the verdict never
 * rests on the samples themselves: its unit is a per-interval maximum from
 * the time series (thinned into blocks while they stay autocorrelated) or a
 * per-round value from `rtsoak ab`, tested with Mann-Whitney U and a
 * Hodges-Lehmann confidence interval for the shift.  Without a series the
 * fallback is an order-statistic confidence interval of p99 in each run,
 * which assumes independent samples: the report says which was used. */
#ifndef RTSOAK_COMPARE_H
#define RTSOAK_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "report.h"

#define COMPARE_CONF 0.95
#define COMPARE_ALPHA 0.05

enum compare_verdict {
	COMPARE_SAME,	  /* no significant difference */
	COMPARE_BETTER,	  /* B lower */
	COMPARE_WORSE,	  /* B higher */
	COMPARE_UNTESTED, /* not enough data (no samples, no histogram) */
};

enum compare_method {
	COMPARE_BY_INTERVALS, /* per-interval maxima of the time series */
	COMPARE_BY_ROUNDS,    /* per-round values (rtsoak ab) */
	COMPARE_BY_ORDER,     /* order-statistic CI of p99, samples taken as independent */
	COMPARE_BY_NOTHING,
};

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
/* As printed and in rtsoak-compare/1, indexed by enum compare_verdict / compare_method. */
extern const char *const compare_verdict_name[];
extern const char *const compare_method_name[];

struct compare_value {
	bool known; /* false: no samples, or the source did not record it */
	uint64_t a, b;
	double change_pct; /* (b - a) / a * 100; meaningful when known and a > 0 */
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

struct compare_match {
	const struct report_result *a, *b;
	bool aggregate;
	struct compare_value v[COMPARE_NSTATS];
	enum compare_verdict verdict;
	enum compare_method method;
	/* Shift of B against A in ns, its CI, p-value, and the units used. */
	double shift_ns, lo_ns, hi_ns, p;
	bool ci;
	size_t na, nb;
	uint64_t unit_ns; /* interval (or block) length for COMPARE_BY_INTERVALS */
	char note[160];	  /* why untested, or what the fallback assumed */
	/* The causes of both sides' attribution entries, A's order then B's
	 * new ones; traced_a/b: that side has an entry (rtsoak run --trace).
	 * Neither: no causes.  Per-CPU matches only. */
	bool traced_a, traced_b;
	struct compare_cause *causes;
	size_t ncauses;
};

/* --fail-if STAT>[+-]AMOUNT[%|unit]: trips when B - A exceeds the amount. */
struct compare_limit {
	enum compare_stat stat;
	bool relative; /* amount in % of A */
	double amount; /* % or ns, signed */
	char text[64]; /* as given */
};

struct comparison {
	const struct report *a, *b;
	const char *path_a, *path_b;
	struct compare_match *m;
	size_t n;
	char **only_a, **only_b; /* "probe cpu N phase" present on one side */
	size_t nonly_a, nonly_b;
	char **warnings; /* why the runs may not be comparable */
	size_t nwarnings;
	json_t *differences; /* [{"what": "system.kernel.release", "a": .., "b": ..}] */
};

/* Build the comparison (a and b stay owned by the caller and must outlive
 * it).  Returns 0 or -ENOMEM. */
int compare_build(struct comparison *c, const struct report *a, const char *path_a,
		  const struct report *b, const char *path_b);
/* rtsoak ab: arm A ("A") against arm B ("B") of one report, verdicts from
 * the per-round p99 of the rounds "A1".. and "B1"..; differences are the
 * report's tweaks. */
int compare_build_ab(struct comparison *c, const struct report *r, const char *path);
void compare_free(struct comparison *c);

/* Parse one --fail-if expression.  Returns 0 or -EINVAL with a reason. */
int compare_limit_parse(const char *text, struct compare_limit *out, char *err, size_t errlen);
/* Does match m break the limit?  *checkable false when a side lacks the
 * statistic. */
bool compare_limit_broken(const struct compare_limit *l, const struct compare_match *m,
			  bool *checkable);

/* The match's name for a person: "PROBE cpu N (PHASE)" or "PROBE all CPUs
 * (PHASE)", names escaped (util_escape: they come from files), cut to len. */
void compare_where(char *buf, size_t len, const struct compare_match *m);

#endif
