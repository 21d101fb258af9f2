/* SPDX-License-Identifier: GPL-2.0-or-later */
/* recorder: everything one probe measures on one CPU.
 *
 * Single writer: only the probe thread that owns a recorder calls
 * recorder_add().  Other threads take a consistent copy while it runs
 * with recorder_snapshot(): every update is wrapped in a sequence counter
 * (odd while writing), the reader retries when it changed under it, and
 * the writer never waits.  Other threads read `count` with a relaxed atomic load
 * while the run is live and everything else after the probe has stopped.
 * Nothing here takes a lock or allocates after recorder_alloc(). */
#ifndef RTSOAK_RECORDER_H
#define RTSOAK_RECORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "histogram.h"

/* A result has one recorder per phase: idle + one phase per load in
 * `--schedule rotate`, or the rounds of `rtsoak ab`.  The report model, its
 * readers and the comparison are bound by the same number. */
#define RECORDER_MAX_PHASES 17
#define RECORDER_TOP_DEFAULT 32
#define RECORDER_TOP_MAX 4096

struct recorder_sample {
	uint64_t t_ns; /* since the run's start */
	uint64_t latency_ns;
};

struct recorder {
	uint64_t seq;	 /* odd while an update is in progress */
	uint64_t count;	 /* samples recorded; read live with __atomic loads */
	uint64_t missed; /* deadlines that passed while we were late */
	/* Samples taken but not counted: the warm-up at the start of the run
	 * and, in ab, the settle time after each arm switch (probe_counts). */
	uint64_t discarded;
	uint64_t min, max, max_at;
	uint64_t sum;
	unsigned __int128 sumsq; /* exact: 60 s squared overflows 64 bits */
	/* Top-K as a min-heap on latency: a sample enters only when it reaches
	 * top_floor, so the common case costs one compare. */
	uint64_t top_floor;
	unsigned top_k, top_n;
	struct recorder_sample *top;
	size_t alloc_size; /* for numa_free() */
	bool on_numa;
	struct histogram hist;
} __attribute__((aligned(64)));

/* Allocate a zeroed, pre-faulted recorder with room for top_k samples,
 * on the NUMA node of `cpu` when built with libnuma (first-touch by the
 * calling thread otherwise: call it from the probe thread after pinning).
 * Returns NULL on ENOMEM. */
struct recorder *recorder_alloc(unsigned top_k, int cpu);
void recorder_free(struct recorder *r);
void recorder_init(struct recorder *r, unsigned top_k, struct recorder_sample *top_storage);

void recorder_top_insert(struct recorder *r, uint64_t latency, uint64_t t);

static inline void recorder_write_begin(struct recorder *r)
{
	__atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE); /* x86: a compiler barrier only */
}

static inline void recorder_write_end(struct recorder *r)
{
	__atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELEASE);
}

static inline void recorder_add(struct recorder *r, uint64_t latency, uint64_t t)
{
	recorder_write_begin(r);
	histogram_add(&r->hist, latency);
	r->sum += latency;
	r->sumsq += (unsigned __int128)latency * latency;
	if (latency < r->min)
		r->min = latency;
	if (latency > r->max) {
		r->max = latency;
		r->max_at = t;
	}
	if (__builtin_expect(latency >= r->top_floor, 0))
		recorder_top_insert(r, latency, t);
	__atomic_store_n(&r->count, r->count + 1, __ATOMIC_RELAXED);
	recorder_write_end(r);
}

static inline void recorder_add_missed(struct recorder *r, uint64_t n)
{
	recorder_write_begin(r);
	__atomic_store_n(&r->missed, r->missed + n, __ATOMIC_RELAXED);
	recorder_write_end(r);
}

/* n samples (or deadlines missed) that do not count: no statistic sees
 * them, only this count does. */
static inline void recorder_add_discarded(struct recorder *r, uint64_t n)
{
	recorder_write_begin(r);
	__atomic_store_n(&r->discarded, r->discarded + n, __ATOMIC_RELAXED);
	recorder_write_end(r);
}

/* Copy a live recorder into dst (allocated with at least src's top_k),
 * consistent as of one moment.  Waits (sleeping) up to
 * RECORDER_SNAPSHOT_WAIT_NS for a writer stopped inside an update; gives up
 * on a writer that never pauses after a bounded number of tries; either
 * way then makes the copy self-consistent instead (count from the
 * histogram, the max in the top list). */
#define RECORDER_SNAPSHOT_WAIT_NS 200000000ull
void recorder_snapshot(struct recorder *dst, const struct recorder *src);

/* Fold src into dst (for aggregates over CPUs).  dst's top list keeps the
 * K largest of both. */
void recorder_merge(struct recorder *dst, const struct recorder *src);

/* Statistics, valid only when count > 0. */
uint64_t recorder_mean(const struct recorder *r);
uint64_t recorder_stddev(const struct recorder *r);

/* Copy the top list out sorted by latency, largest first; returns n. */
unsigned recorder_top_sorted(const struct recorder *r, struct recorder_sample *out);

#endif
