/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report: the one in-memory model of a run's results (src/model/).
 *
 * Every output format is a view of this model (reports/views.h: json_write.c,
 * text.c, prom.c, html.c, histogram_text.c), and reports/json_read.c
 * rebuilds it from a JSON file, so `rtsoak report
 * FILE` and compare work on exactly what a run wrote.  Statistics are
 * stored as computed at the end of the run, not recomputed on read, so a
 * read/write round trip is exact.
 *
 * The system snapshot and the config echo are jansson objects: both are
 * open-ended key/value data whose consumers only render or diff them. */
#ifndef RTSOAK_REPORT_H
#define RTSOAK_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "histogram.h"
#include "recorder.h"
#include "series.h"

#define REPORT_SCHEMA "rtsoak-report/1"

/* What the readers (reports/json_read.c, reports/cyclictest_read.c) accept,
 * so that a big or hostile file costs bounded memory and time: beyond any
 * of these a file is refused (exit 2) with a line naming the limit
 * (rtsoak(1), SAFETY, Readers).  Memory is O(file size) within them. */
#define REPORT_FILE_MAX (1ull << 30)   /* bytes of one file */
#define REPORT_RESULTS_MAX 1000000     /* results; aggregates likewise */
#define REPORT_SERIES_MAX 65536	       /* series */
#define REPORT_INTERVALS_MAX 200000000 /* intervals, and logged spikes, per series */
#define REPORT_NAME_MAX 255	       /* bytes of a probe or phase name */
#define REPORT_LIST_MAX 65536	       /* argv entries; warnings */
#define REPORT_CHECKS_MAX 1024	       /* entries of checks */
#define REPORT_THREADS_MAX 4096	       /* threads of a cyclictest file */
#define REPORT_CPU_ALL (-1)

enum report_status {
	REPORT_COMPLETE,
	REPORT_INTERRUPTED,
	REPORT_RUNNING,
	REPORT_FAILED,
	/* Finished (or interrupted), but something outside rtsoak woke its
	 * probe threads often enough to bend the results: see
	 * report_foreign_disturbs.  Last, so the others keep their values. */
	REPORT_DISTURBED,
};

/* The percentiles every result carries, in order. */
#define REPORT_NPCT 6
extern const double report_pct[REPORT_NPCT];
extern const char *const report_pct_key[REPORT_NPCT]; /* "p50_ns", ... "p99_999_ns" */

struct report_result {
	char *probe;
	int cpu; /* REPORT_CPU_ALL in aggregates */
	char *phase;
	uint64_t count, missed;
	/* Samples taken in the warm-up or an ab settle time, in no statistic
	 * (rtsoak run --warmup, ab --settle); known only from rtsoak runs
	 * that count them (older reports and cyclictest files do not). */
	uint64_t discarded;
	bool discarded_known;
	/* The statistics below mean something only when count > 0; the JSON
	 * writer renders them as null otherwise. */
	uint64_t min, max, max_at, mean, stddev;
	uint64_t pct[REPORT_NPCT];
	struct recorder_sample *top;
	unsigned ntop;
	/* Only the non-empty buckets (histogram.h); NULL when the source has
	 * no histogram (REPORT_UNKNOWN_PCT). */
	struct histogram_sparse *hist;
	/* Probe-specific integer counters (net: sent, received, lost, ...), on
	 * the phase "all" results and summed in aggregates; NULL if none. */
	json_t *counters;
	/* REPORT_UNKNOWN_* bits: statistics the source did not record (a
	 * cyclictest file without -h has no percentiles).  rtsoak's own
	 * reports know everything: 0. */
	unsigned unknown;
};

#define REPORT_UNKNOWN_PCT (1u << 0)	/* pct[] and hist */
#define REPORT_UNKNOWN_STDDEV (1u << 1) /* stddev */
#define REPORT_UNKNOWN_MAX_AT (1u << 2) /* max_at and top[] */
#define REPORT_UNKNOWN_MISSED (1u << 3) /* missed */
#define REPORT_UNKNOWN_MEAN (1u << 4)	/* mean (cyclictest wrote -nan) */

/* One result's time series and spike log (series.h), for the first
 * result of each probe (timer, net, net.rtt) on each CPU. */
struct report_series {
	char *probe;
	int cpu;
	uint64_t interval_ns;
	/* The intervals, compactly (series_store.h): read them in order with a
	 * series_cursor, one with series_store_get().  n == st->n. */
	struct series_store *st;
	size_t n;
	uint64_t threshold_ns, threshold_at_ns; /* 0: no threshold was set */
	uint64_t spikes_total, spikes_overwritten, spikes_unlogged, stalls;
	struct series_spike *spikes;
	size_t nspikes;
	/* Per-interval quantiles (series.h): quant[j] covers run time
	 * [j * quant_interval_ns, (j + 1) * quant_interval_ns); quant_merged:
	 * pairs were merged, each quantile is then the larger of its parts'
	 * (an upper bound).  nquant 0: none (reports before them, cyclictest). */
	struct series_quant *quant;
	size_t nquant;
	uint64_t quant_interval_ns;
	bool quant_merged;
	bool borrowed; /* st, spikes and quant belong to the running session: not freed here */
};

struct report {
	char *tool_name; /* NULL: rtsoak; "cyclictest" for an imported file */
	char *tool_version;
	char **argv;
	int argc;
	char start[40], end[40]; /* ISO-8601 UTC */
	uint64_t duration_ns;
	/* A checkpoint's series read with its series log can reach past the
	 * statistics (duration_ns): how far, 0 when they do not (serieslog.h). */
	uint64_t series_until_ns;
	enum report_status status;
	bool realtime;
	char **warnings;
	size_t nwarnings;
	json_t *config;
	/* Result name -> the period of its samples in ns: the timing precision
	 * of its spike times (config.probe_intervals_ns; for older reports the
	 * JSON reader derives it).  NULL: config.interval_ns for every result. */
	json_t *periods;
	json_t *system;
	/* The tuning checks at the start of the run ([{id, status, cpus, observed, expected,
	 * source, why, reference, fix}], src/sys/check.h); NULL in reports before them. */
	json_t *checks;
	json_t *loads;	/* [{name, spec, options, ops, restarts, ...}] */
	json_t *phases; /* [{name, loads, time_ns, occurrences, system}] */
	struct report_result *results;
	size_t nresults;
	struct report_result *aggregates;
	size_t naggregates;
	struct report_series *series;
	size_t nseries;
	json_t *analysis; /* analysis.c: derived from the above */
	json_t *tweaks;	  /* --set: [{path, original, value}] */
	json_t *ab;	  /* rtsoak ab: rounds, order and the verdicts (compare.c) */
	/* rtsoak run --trace: why the spikes were late, per (probe, CPU,
	 * phase) (docs/report-schema.json; attribution.h reads it).  NULL in
	 * reports without it; json_read.c checks it before anything reads it. */
	json_t *attribution;
	/* attribution.h's index of its series entries by (probe, cpu, phase),
	 * built by attribution_set(); NULL: lookups search the list. */
	json_t *attribution_index;
	/* run --on-spike: the commands started for spikes and the ones skipped
	 * (docs/report-schema.json: on_spike).  NULL in reports without it. */
	json_t *on_spike;
	/* A checkpoint's summary (session_output.c): the "series_log" member that
	 * names the series log holding the series' columns (serieslog.h), which the
	 * writer then leaves empty.  NULL in every other report, and in what
	 * the reader returns: it merges the series log in. */
	json_t *series_log;
};

const char *report_status_name(enum report_status s);
int report_status_parse(const char *name, enum report_status *out);

/* Foreign packets (a probe's `foreign` counter: not its own, each one a
 * wake-up of its SCHED_FIFO thread that measured nothing) that make a run
 * disturbed: more than REPORT_FOREIGN_PCT % of the thread's samples
 * (`received`).  Any at all is a warning. */
#define REPORT_FOREIGN_PCT 1
bool report_foreign_disturbs(uint64_t foreign, uint64_t received);

/* Append a warning (printf-style).  Returns 0 or -ENOMEM. */
int report_warn(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append an empty result and return it (NULL on ENOMEM); it owns copies of
 * probe and phase, and no histogram yet (hist NULL). */
struct report_result *report_add_result(struct report *r, bool aggregate, const char *probe,
					int cpu, const char *phase);
/* Fill a result's statistics from a recorder. */
int report_result_from_recorder(struct report_result *res, const struct recorder *rec);
/* Append an empty series (NULL on ENOMEM); it owns a copy of probe. */
struct report_series *report_add_series(struct report *r, const char *probe, int cpu);
/* Give rs a store of its own holding v[0..n) (the readers', tests').  0 or
 * -ENOMEM. */
int report_series_fill(struct report_series *rs, const struct series_interval *v, size_t n);
/* Build one aggregate per (probe, phase) over all CPUs of r->results.
 * top lists are merged (the K largest over CPUs, K = the largest ntop). */
int report_build_aggregates(struct report *r);
/* Many CPUs (issue 20): above REPORT_MANY_CPUS measured CPUs 128 rows or
 * 128 overlapping lines are unreadable, so the terminal summary keeps the
 * REPORT_WORST_CPUS worst CPUs of each probe and phase (and the aggregates),
 * and the HTML page adds a per-CPU heat map overview and draws the worst
 * CPUs' lines only (rtsoak(1), OUTPUT).  Both views rank with
 * report_worst_cpus, so they name the same CPUs. */
#define REPORT_MANY_CPUS 16
#define REPORT_WORST_CPUS 8
/* The distinct CPUs of the per-CPU results (aggregates not counted). */
size_t report_cpu_count(const struct report *r);
/* Is a worse than b?  By max, then p99.9 (unknown counts as 0), then the
 * lower CPU number; a result without samples is better than any with. */
bool report_result_worse(const struct report_result *a, const struct report_result *b);
/* The per-CPU results of (probe, phase), worst first (report_result_worse):
 * at most n into out.  Returns how many there are in all (may exceed n). */
size_t report_worst_cpus(const struct report *r, const char *probe, const char *phase,
			 const struct report_result **out, size_t n);
/* Drop what build_report adds (results, aggregates, config, loads, phases,
 * warnings after the first keep_warnings): a checkpoint builds them, writes,
 * and clears them again, keeping the run's header. */
/* A count of the on_spike section (o: it or one of its objects): 0 when
 * left out or not a non-negative count, as a hand-edited report may have
 * it (the views show what they can; json_read.c checks a file's section). */
uint64_t report_on_spike_count(json_t *o, const char *key);
void report_clear_results(struct report *r, size_t keep_warnings);
void report_free(struct report *r);

#endif
