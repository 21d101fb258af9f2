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
 * bytes each). */
#ifndef RTSOAK_SERIES_H
#define RTSOAK_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Add one closed interval (idx in base intervals, not before the last one
 * added: -EINVAL) to the store, merging pairs when idx falls beyond the
 * limit.  0, -EINVAL or -ENOMEM.  Used by drain, and by tests. */
int series_put(struct series *s, uint64_t idx, const struct series_interval *v);

#endif
