/* SPDX-License-Identifier: GPL-2.0-or-later */
/* series: what one result did over time, and its spikes.
 *
 * Two halves with one writer each, joined by single-producer rings:
 *
 *  - struct series_feed is the probe's side (NUMA-local, written only by
 *    the probe thread).  Per sample it costs one or two compares: the
 *    sample enters the slow path only when it beats the open interval's
 *    maximum or the spike threshold (`gate` is the smaller of the two) or
 *    when it falls past the open interval's end.  The slow path closes
 *    intervals into `ring` and logs spikes into `spike`.  It never waits:
 *    a full interval ring makes the open interval absorb the next one
 *    (counted in `stalls`), a full spike ring overwrites its oldest entry
 *    (the reader counts what it lost).
 *
 *  - struct series is the housekeeping thread's side: it drains the rings
 *    into the interval store (series_store.h: ~3 bytes an interval) and
 *    the spike log.  The store never holds more than `limit` intervals:
 *    when the run outlives that, neighbouring pairs are merged and the
 *    interval doubles (coarser, nothing dropped).  The spike log keeps the
 *    first SERIES_SPIKE_LOG spikes, grown as they come; later ones are
 *    still counted in the intervals.
 *
 * Time is the sample's time since the run's start, as given to
 * recorder_add(); base interval k covers [k * base_ns, (k + 1) * base_ns).
 * Memory per result: the feed (~64 KiB) plus at most `limit` encoded
 * intervals (~3 bytes each, at most 26) and SERIES_SPIKE_LOG spikes (24
 * bytes each).
 *
 * Per-interval quantiles (issue 30): compare judges p50 .. p99.9 per block
 * of intervals, so the series keeps each interval's p50, p99 and p99.9 too.
 * The probe does nothing more for them: it already keeps a histogram per
 * recorder, and the housekeeping thread reads the live buckets (each one
 * only grows, so a read without the sequence counter is never torn) just
 * after each quantile interval ends, keeps the last snapshot as a sparse
 * copy (its non-empty buckets) and takes the quantiles of the difference.
 * So a quantile interval holds the samples recorded between two snapshots:
 * those taken from its start to SERIES_QUANT_LAG_NS (or however late
 * housekeeping wakes) after its end, not exactly its own.  A quantile
 * interval is the series interval, or a power-of-two multiple of it of at
 * least SERIES_QUANT_MIN_NS (the housekeeping tick: finer would not be
 * honest).  At most SERIES_QUANT_LIMIT (or `limit`, if smaller) are kept,
 * 12 bytes each: beyond, neighbouring pairs merge, and a merged
 * quantile is the larger of the two (an upper bound of the pair's own:
 * if half of each half is at most m, half of the pair is), which
 * series.quant_merged and the report say. */
#ifndef RTSOAK_SERIES_H
#define RTSOAK_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "histogram.h"
#include "series_store.h"

struct recorder;

/* Closed intervals in flight (a power of two): room for a minute of them
 * (SERIES_RING_SPAN_NS) between housekeeping's drains, every 100 ms when
 * nothing holds it up; at least 16, at most 1024 (a second at 1 ms).
 * Sized per feed: 1024 in every feed was 24 KiB of 512 feeds' 33 MiB on
 * 256 CPUs at the default 1 s intervals (issue 20). */
#define SERIES_RING_MIN 16
#define SERIES_RING_MAX 1024
#define SERIES_RING_SPAN_NS (60 * 1000000000ull)
#define SERIES_SPIKE_RING 1024 /* spikes in flight; a power of two */
#define SERIES_SPIKE_LOG 16384 /* spikes kept per result */
#define SERIES_LIMIT_DEFAULT 100000
#define SERIES_LIMIT_MIN 16
#define SERIES_THRESHOLD_AUTO 0 /* --spike-threshold auto */
/* The automatic spike threshold: SERIES_AUTO_FACTOR x the median of the
 * result's first SERIES_AUTO_WARMUP_NS (a quarter of the run when that is
 * shorter than 20 s). */
#define SERIES_AUTO_FACTOR 10
#define SERIES_AUTO_WARMUP_NS (5 * 1000000000ull)

#define SERIES_QUANT_MIN_NS (100 * 1000000ull)
#define SERIES_QUANT_LIMIT 1024
#define SERIES_QUANT_LAG_NS 1000000ull
#define SERIES_QUANT_NONE 0xffffu /* no samples: no quantile */
enum { SERIES_Q50, SERIES_Q99, SERIES_Q99_9, SERIES_NQ };
extern const double series_quant_pct[SERIES_NQ]; /* 50, 99, 99.9 */

/* One quantile interval: the samples between two snapshots and the
 * histogram bucket (histogram.h) of each quantile, nearest rank. */
struct series_quant {
	uint32_t count; /* saturated; 0: no samples (q all SERIES_QUANT_NONE) */
	uint16_t q[SERIES_NQ];
};

/* The housekeeping thread's room for the snapshots: the live buckets
 * summed over the phases, and their difference from the last snapshot.
 * One for all series (60 KiB). */
struct series_qwork {
	struct histogram cum, delta;
};

struct series_spike {
	uint64_t t_ns, latency_ns;
	uint32_t phase;
};

struct series_slot {
	uint64_t idx; /* base interval index */
	struct series_interval v;
};

struct series_spike_slot {
	uint64_t seq; /* 2i + 1 while entry i is written, 2i + 2 when done */
	struct series_spike s;
};

struct series_feed {
	/* Read on every sample. */
	uint64_t gate;	   /* min(open interval's max, threshold) */
	uint64_t boundary; /* end of the open interval */
	/* Slow path only. */
	uint64_t base_ns, idx, imax;
	uint32_t ispikes;
	uint64_t count_base, missed_base;
	uint64_t threshold;	     /* UINT64_MAX until set; housekeeping stores it */
	uint64_t ring_len;	     /* ring[]'s entries */
	uint64_t stalls;	     /* intervals merged into the next: ring was full */
	struct recorder *const *rec; /* this result's recorders, one per phase */
	unsigned nphases;
	const unsigned *phase;
	size_t alloc_size;
	bool on_numa;
	uint64_t head __attribute__((aligned(64))); /* slots written (release) */
	uint64_t tail __attribute__((aligned(64))); /* slots read (release) */
	uint64_t spike_head __attribute__((aligned(64)));
	struct series_spike_slot spike[SERIES_SPIKE_RING];
	struct series_slot ring[]; /* ring_len */
};

struct series {
	struct series_feed *feed;
	uint64_t base_ns;
	unsigned shift; /* v[i] covers base intervals [i << shift, (i + 1) << shift) */
	size_t limit;
	struct series_store st; /* st.n intervals */
	struct series_spike *spikes;
	size_t nspikes;
	uint64_t spike_tail;
	uint64_t spikes_total;	     /* as counted in the intervals */
	uint64_t spikes_overwritten; /* lost in the ring */
	uint64_t spikes_unlogged;    /* the log was full */
	uint64_t threshold_ns;	     /* 0: not set (yet) */
	uint64_t threshold_at_ns;    /* when it was set */
	bool flushed;
	/* Per-interval quantiles: quant[j] covers base intervals
	 * [j << qshift, (j + 1) << qshift); qopen is the one the next snapshot
	 * closes.  prev: the last snapshot's non-empty buckets. */
	struct series_quant *quant;
	size_t nquant, quant_cap, quant_limit;
	unsigned qshift;
	uint64_t qopen;
	bool quant_merged;
	uint16_t *prev_idx;
	uint64_t *prev_cnt;
	size_t nprev, prev_cap;
	bool quant_flushed;
};

/* Allocate the probe's feed on `cpu`'s node (call from the probe thread
 * after pinning); rec[nphases] are the result's recorders, phase the
 * session's current phase.  threshold 0: set later by series_set_threshold.
 * NULL on ENOMEM. */
struct series_feed *series_feed_alloc(int cpu, uint64_t base_ns, uint64_t threshold,
				      struct recorder *const *rec, unsigned nphases,
				      const unsigned *phase);
void series_feed_free(struct series_feed *f);

void series_slow(struct series_feed *f, uint64_t latency, uint64_t t);

/* The per-sample hook: call it *before* recorder_add() with the same
 * arguments (the interval that closes must not count this sample). */
static inline void series_note(struct series_feed *f, uint64_t latency, uint64_t t)
{
	if (__builtin_expect(latency > __atomic_load_n(&f->gate, __ATOMIC_RELAXED), 0) ||
	    __builtin_expect(t >= f->boundary, 0))
		series_slow(f, latency, t);
}

/* n deadlines slept through, the first at run time `first` and then every
 * `step`, missed in recorder `r` (the feed's recorder of the current
 * phase): each is booked in the series interval its deadline falls in,
 * closing the open interval where they cross its end, rather than all in
 * the interval of the late sample before them.  Off the common path (only
 * after a late wake-up). */
void series_missed(struct series_feed *f, struct recorder *r, uint64_t first, uint64_t step,
		   uint64_t n);

/* Housekeeping side.  init allocates nothing; 0 or -EINVAL. */
int series_init(struct series *s, struct series_feed *feed, uint64_t base_ns, size_t limit);
/* Move closed intervals and logged spikes out of the feed.  0 or -ENOMEM
 * (then nothing is lost: the entries stay in the ring for the next try). */
int series_drain(struct series *s);
/* After the probe has stopped: close its open interval and drain it all. */
int series_flush(struct series *s);
/* Set the spike threshold from now on (relaxed store; the probe picks it
 * up at its next slow path, at the latest at the next interval). */
void series_set_threshold(struct series *s, uint64_t threshold_ns, uint64_t at_ns);
uint64_t series_interval_ns(const struct series *s);
void series_free(struct series *s);

/* Quantile interval length, and the run time at which the next snapshot is
 * due (its end + SERIES_QUANT_LAG_NS): the housekeeping wakes for it. */
uint64_t series_quant_interval_ns(const struct series *s);
uint64_t series_quant_due_ns(const struct series *s);
/* At run time now_ns: when a quantile interval has ended, snapshot the
 * recorders and store its quantiles (the intervals housekeeping slept
 * through have none: their samples go to the last).  0 or -ENOMEM (then
 * the samples go to the next one). */
int series_quant_tick(struct series *s, uint64_t now_ns, struct series_qwork *w);
/* After the probe has stopped: the open quantile interval's last snapshot. */
int series_quant_flush(struct series *s, struct series_qwork *w);
/* Add quantile interval j (not before the last one: -EINVAL), merging
 * pairs beyond the limit.  0, -EINVAL or -ENOMEM.  Used by tick, and tests. */
int series_quant_put(struct series *s, uint64_t j, const struct series_quant *v);
/* The quantiles of a histogram's samples as a series_quant. */
void series_quant_of(const struct histogram *h, struct series_quant *out);
/* A bucket's value in ns as the report gives it (its midpoint, as
 * histogram_percentile estimates); SERIES_QUANT_NONE: 0. */
uint64_t series_quant_ns(uint16_t bucket);

/* Add one closed interval (idx in base intervals, not before the last one
 * added: -EINVAL) to the store, merging pairs when idx falls beyond the
 * limit.  0, -EINVAL or -ENOMEM.  Used by drain, and by tests. */
int series_put(struct series *s, uint64_t idx, const struct series_interval *v);

#endif
