// SPDX-License-Identifier: GPL-2.0-or-later
/* series: the probe's slow path and the housekeeping side (see series.h). */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "recorder.h"
#include "rt.h"
#include "series.h"
#include "util.h"

static uint32_t sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static void interval_merge(struct series_interval *dst, const struct series_interval *src)
{
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	dst->count = sat32((uint64_t)dst->count + src->count);
	dst->spikes = sat32((uint64_t)dst->spikes + src->spikes);
	dst->missed = sat32((uint64_t)dst->missed + src->missed);
}

struct series_feed *series_feed_alloc(int cpu, uint64_t base_ns, uint64_t threshold,
				      struct recorder *const *rec, unsigned nphases,
				      const unsigned *phase)
{
	uint64_t len = SERIES_RING_MIN;
	bool on_numa;
	struct series_feed *f;

	if (!base_ns)
		return NULL;
	while (len < SERIES_RING_MAX && len * base_ns < SERIES_RING_SPAN_NS)
		len *= 2;
	size_t size = sizeof(*f) + len * sizeof(f->ring[0]);
	f = rt_alloc_local(size, cpu, &on_numa);
	if (!f)
		return NULL;
	f->alloc_size = size;
	f->ring_len = len;
	f->on_numa = on_numa;
	f->base_ns = base_ns;
	f->boundary = base_ns;
	f->threshold = threshold ? threshold : UINT64_MAX;
	f->gate = 0; /* the first sample opens the interval's maximum */
	f->rec = rec;
	f->nphases = nphases;
	f->phase = phase;
	return f;
}

void series_feed_free(struct series_feed *f)
{
	if (f)
		rt_free_local(f, f->alloc_size, f->on_numa);
}

/* Samples and missed deadlines so far, over all phases: the probe thread
 * is the only writer of these recorders, so plain reads are exact. */
static void feed_totals(const struct series_feed *f, uint64_t *count, uint64_t *missed)
{
	*count = *missed = 0;
	for (unsigned p = 0; p < f->nphases; p++) {
		*count += f->rec[p]->count;
		*missed += f->rec[p]->missed;
	}
}

static void feed_open_values(const struct series_feed *f, uint64_t count, uint64_t missed,
			     struct series_interval *v)
{
	v->max_ns = f->imax;
	v->count = sat32(count - f->count_base);
	v->spikes = f->ispikes;
	v->missed = sat32(missed - f->missed_base);
}

/* t has passed the open interval's end: hand it to housekeeping and open
 * the one t falls in (intervals without samples in between are simply
 * absent; housekeeping fills them with zeros). */
static void feed_close(struct series_feed *f, uint64_t t)
{
	uint64_t next = t / f->base_ns, count, missed;
	uint64_t head = f->head;

	f->boundary = (next + 1) * f->base_ns;
	if (head - __atomic_load_n(&f->tail, __ATOMIC_ACQUIRE) >= f->ring_len) {
		/* Housekeeping is ring_len intervals behind: keep
		 * accumulating into the open interval rather than wait. */
		f->stalls++;
		return;
	}
	feed_totals(f, &count, &missed);
	struct series_slot *slot = &f->ring[head & (f->ring_len - 1)];
	slot->idx = f->idx;
	feed_open_values(f, count, missed, &slot->v);
	__atomic_store_n(&f->head, head + 1, __ATOMIC_RELEASE);
	f->idx = next;
	f->imax = 0;
	f->ispikes = 0;
	f->count_base = count;
	f->missed_base = missed;
}

/* One entry per spike; the ring overwrites its oldest entry, and each
 * entry carries a sequence number so that the reader can tell. */
static void feed_log_spike(struct series_feed *f, uint64_t latency, uint64_t t)
{
	uint64_t i = f->spike_head;
	struct series_spike_slot *slot = &f->spike[i & (SERIES_SPIKE_RING - 1)];

	__atomic_store_n(&slot->seq, 2 * i + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&slot->s.t_ns, t, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->s.latency_ns, latency, __ATOMIC_RELAXED);
	__atomic_store_n(&slot->s.phase, __atomic_load_n(f->phase, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&slot->seq, 2 * i + 2, __ATOMIC_RELEASE);
	__atomic_store_n(&f->spike_head, i + 1, __ATOMIC_RELEASE);
}

void series_slow(struct series_feed *f, uint64_t latency, uint64_t t)
{
	if (t >= f->boundary)
		feed_close(f, t);
	if (latency > f->imax)
		f->imax = latency;
	uint64_t thr = __atomic_load_n(&f->threshold, __ATOMIC_RELAXED);
	if (latency > thr) {
		f->ispikes++;
		feed_log_spike(f, latency, t);
	}
	__atomic_store_n(&f->gate, f->imax < thr ? f->imax : thr, __ATOMIC_RELAXED);
}

void series_missed(struct series_feed *f, struct recorder *r, uint64_t first, uint64_t step,
		   uint64_t n)
{
	while (n && step && first + (n - 1) * step >= f->boundary) {
		/* those before the open interval's end, then close it at the
		 * first one after (feed_close moves the end past it) */
		uint64_t before = first >= f->boundary ? 0 : (f->boundary - first - 1) / step + 1;
		if (before) {
			recorder_add_missed(r, before);
			n -= before;
			first += before * step;
		}
		feed_close(f, first);
		/* as series_slow leaves it: a new interval's max (0) is still
		 * to be seen, so the next sample takes the slow path */
		uint64_t thr = __atomic_load_n(&f->threshold, __ATOMIC_RELAXED);
		__atomic_store_n(&f->gate, f->imax < thr ? f->imax : thr, __ATOMIC_RELAXED);
	}
	if (n)
		recorder_add_missed(r, n);
}

int series_init(struct series *s, struct series_feed *feed, uint64_t base_ns, size_t limit)
{
	if (!base_ns || limit < SERIES_LIMIT_MIN)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->feed = feed;
	s->base_ns = base_ns;
	s->limit = limit;
	s->quant_limit = limit < SERIES_QUANT_LIMIT ? limit : SERIES_QUANT_LIMIT;
	while ((base_ns << s->qshift) < SERIES_QUANT_MIN_NS && s->qshift < 40)
		s->qshift++;
	return 0;
}

/* Merge neighbouring pairs: half as many intervals, each twice as long.
 * The store is rebuilt (its encoding is append-only): for a moment it is
 * there twice, at ~3 bytes an interval.  0 or -ENOMEM (then unchanged). */
static int series_coarsen(struct series *s)
{
	struct series_store half = { 0 };
	struct series_cursor c;
	struct series_interval a, b;

	series_cursor_init(&c, &s->st, 0);
	while (series_cursor_next(&c, &a)) {
		if (series_cursor_next(&c, &b))
			interval_merge(&a, &b);
		if (series_store_append(&half, &a)) {
			series_store_free(&half);
			return -ENOMEM;
		}
	}
	series_store_free(&s->st);
	s->st = half;
	s->shift++;
	return 0;
}

int series_put(struct series *s, uint64_t idx, const struct series_interval *v)
{
	static const struct series_interval none;
	uint64_t j;
	int rc;

	while ((j = idx >> s->shift) >= s->limit)
		if ((rc = series_coarsen(s)))
			return rc;
	if (s->st.n && j + 1 < s->st.n)
		return -EINVAL;
	/* Intervals without samples in between are zeros (one byte each). */
	while (s->st.n <= j)
		if ((rc = series_store_append(&s->st, &none)))
			return rc;
	interval_merge(series_store_last(&s->st), v);
	s->spikes_total += v->spikes;
	return 0;
}

static int drain_spikes(struct series *s)
{
	struct series_feed *f = s->feed;
	uint64_t head = __atomic_load_n(&f->spike_head, __ATOMIC_ACQUIRE);

	for (uint64_t i = s->spike_tail; i < head; i++) {
		if (head - i > SERIES_SPIKE_RING) {
			s->spikes_overwritten += head - SERIES_SPIKE_RING - i;
			i = head - SERIES_SPIKE_RING;
		}
		const struct series_spike_slot *slot = &f->spike[i & (SERIES_SPIKE_RING - 1)];
		uint64_t seq = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
		struct series_spike sp = {
			.t_ns = __atomic_load_n(&slot->s.t_ns, __ATOMIC_RELAXED),
			.latency_ns = __atomic_load_n(&slot->s.latency_ns, __ATOMIC_RELAXED),
			.phase = __atomic_load_n(&slot->s.phase, __ATOMIC_RELAXED),
		};
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		/* Rewritten before or while we read it: the probe lapped us. */
		if (seq != 2 * i + 2 || __atomic_load_n(&slot->seq, __ATOMIC_RELAXED) != seq) {
			s->spikes_overwritten++;
			continue;
		}
		if (s->nspikes >= SERIES_SPIKE_LOG) {
			s->spikes_unlogged++;
			continue;
		}
		/* Grown as spikes come: most series see few, and a log
		 * allocated whole cost 384 KiB each (docs/BENCHMARKS.md). */
		if (util_grow(&s->spikes, s->nspikes, sizeof(*s->spikes))) {
			s->spike_tail = i;
			return -ENOMEM;
		}
		s->spikes[s->nspikes++] = sp;
	}
	s->spike_tail = head;
	return 0;
}

int series_drain(struct series *s)
{
	struct series_feed *f = s->feed;
	uint64_t head = __atomic_load_n(&f->head, __ATOMIC_ACQUIRE), tail = f->tail;
	int rc = 0;

	for (; tail < head; tail++) {
		const struct series_slot *slot = &f->ring[tail & (f->ring_len - 1)];
		if ((rc = series_put(s, slot->idx, &slot->v)) < 0)
			break;
	}
	__atomic_store_n(&f->tail, tail, __ATOMIC_RELEASE);
	return rc ? rc : drain_spikes(s);
}

int series_flush(struct series *s)
{
	struct series_feed *f = s->feed;
	struct series_interval v;
	uint64_t count, missed;
	int rc;

	if (s->flushed)
		return 0;
	if ((rc = series_drain(s)) < 0)
		return rc;
	feed_totals(f, &count, &missed);
	feed_open_values(f, count, missed, &v);
	if (v.count || v.missed) {
		if ((rc = series_put(s, f->idx, &v)) < 0)
			return rc;
	}
	s->flushed = true;
	return 0;
}

void series_set_threshold(struct series *s, uint64_t threshold_ns, uint64_t at_ns)
{
	if (!threshold_ns)
		threshold_ns = 1;
	s->threshold_ns = threshold_ns;
	s->threshold_at_ns = at_ns;
	__atomic_store_n(&s->feed->threshold, threshold_ns, __ATOMIC_RELAXED);
	/* Let the probe notice at its next sample, not its next interval. */
	__atomic_store_n(&s->feed->gate, 0, __ATOMIC_RELAXED);
}

uint64_t series_interval_ns(const struct series *s)
{
	return s->base_ns << s->shift;
}

void series_free(struct series *s)
{
	series_store_free(&s->st);
	free(s->spikes);
	s->spikes = NULL;
	s->nspikes = 0;
	free(s->quant);
	free(s->prev_idx);
	free(s->prev_cnt);
	s->quant = NULL;
	s->prev_idx = NULL;
	s->prev_cnt = NULL;
	s->nquant = s->quant_cap = s->nprev = s->prev_cap = 0;
}

/* ------------------------------------------------ per-interval quantiles -- */

const double series_quant_pct[SERIES_NQ] = { 50, 99, 99.9 };

uint64_t series_quant_ns(uint16_t bucket)
{
	if (bucket == SERIES_QUANT_NONE)
		return 0;
	if (bucket >= HISTOGRAM_OVERFLOW)
		return histogram_lower(HISTOGRAM_OVERFLOW);
	uint64_t lo = histogram_lower(bucket);
	return lo + (histogram_upper(bucket) - lo - 1) / 2;
}

uint64_t series_quant_interval_ns(const struct series *s)
{
	return s->base_ns << s->qshift;
}

uint64_t series_quant_due_ns(const struct series *s)
{
	return (s->qopen + 1) * series_quant_interval_ns(s) + SERIES_QUANT_LAG_NS;
}

/* series_quant_of over buckets [lo, hi] only (the rest empty). */
static void quant_of_range(const struct histogram *h, unsigned lo, unsigned hi,
			   struct series_quant *out)
{
	uint64_t total = 0, rank[SERIES_NQ], seen = 0;
	unsigned k = 0;

	for (unsigned b = lo; b <= hi && b < HISTOGRAM_BUCKETS; b++)
		total += h->bucket[b];

	out->count = sat32(total);
	for (unsigned i = 0; i < SERIES_NQ; i++) {
		/* nearest rank, as histogram_percentile */
		long double r =
		    ceill((long double)series_quant_pct[i] / 100.0L * (long double)total);
		rank[i] = r < 1 ? 1 : (uint64_t)r;
		out->q[i] = SERIES_QUANT_NONE;
	}
	if (!total)
		return;
	for (unsigned b = lo; b <= hi && b < HISTOGRAM_BUCKETS && k < SERIES_NQ; b++) {
		seen += h->bucket[b];
		while (k < SERIES_NQ && seen >= rank[k])
			out->q[k++] = (uint16_t)b;
	}
}

void series_quant_of(const struct histogram *h, struct series_quant *out)
{
	quant_of_range(h, 0, HISTOGRAM_BUCKETS - 1, out);
}

/* Two neighbours as one: counts add, each quantile the larger (an upper
 * bound of the pair's own quantile). */
static void quant_merge(struct series_quant *dst, const struct series_quant *src)
{
	if (!src->count)
		return;
	if (!dst->count) {
		*dst = *src;
		return;
	}
	dst->count = sat32((uint64_t)dst->count + src->count);
	for (unsigned i = 0; i < SERIES_NQ; i++)
		if (src->q[i] > dst->q[i])
			dst->q[i] = src->q[i];
}

static const struct series_quant quant_none = {
	0, { SERIES_QUANT_NONE, SERIES_QUANT_NONE, SERIES_QUANT_NONE }
};

static void quant_coarsen(struct series *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nquant; i += 2) {
		struct series_quant v = s->quant[i];
		if (i + 1 < s->nquant)
			quant_merge(&v, &s->quant[i + 1]);
		s->quant[n++] = v;
	}
	s->nquant = n;
	s->qshift++;
	s->qopen >>= 1;
	s->quant_merged = true;
}

int series_quant_put(struct series *s, uint64_t j, const struct series_quant *v)
{
	/* j is in the quantile intervals of when it was taken; each merge
	 * halves it */
	while (j >= s->quant_limit) {
		quant_coarsen(s);
		j >>= 1;
	}
	if (s->nquant && j + 1 < s->nquant)
		return -EINVAL;
	if (j >= s->quant_cap) {
		size_t cap = s->quant_cap ? s->quant_cap : 16;
		while (cap <= j)
			cap *= 2;
		if (cap > s->quant_limit)
			cap = s->quant_limit;
		struct series_quant *q = realloc(s->quant, cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		s->quant = q;
		s->quant_cap = cap;
	}
	while (s->nquant <= j)
		s->quant[s->nquant++] = quant_none;
	quant_merge(&s->quant[j], v);
	return 0;
}

/* The recorders' live buckets summed over the phases into w->cum, their
 * difference from the last snapshot into w->delta, and w->cum kept as the
 * new last snapshot.  0 or -ENOMEM (then the last snapshot stays). */
static int quant_snapshot(struct series *s, struct series_qwork *w, struct series_quant *out)
{
	const struct series_feed *f = s->feed;
	unsigned lo = HISTOGRAM_BUCKETS, hi = 0;
	size_t k = 0, nz = 0;

	/* Only the buckets between the recorders' min and max can hold
	 * samples (a sample past max read here is counted next time): a
	 * quarter of the histogram or less, on a real machine. */
	for (unsigned p = 0; f && p < f->nphases; p++) {
		const struct recorder *r = f->rec[p];
		if (!__atomic_load_n(&r->count, __ATOMIC_ACQUIRE))
			continue;
		unsigned a = histogram_index(__atomic_load_n(&r->min, __ATOMIC_RELAXED));
		unsigned b = histogram_index(__atomic_load_n(&r->max, __ATOMIC_RELAXED));
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	if (s->nprev) { /* within the range by now; but a torn min is no reason to lose them */
		lo = s->prev_idx[0] < lo ? s->prev_idx[0] : lo;
		hi = s->prev_idx[s->nprev - 1] > hi ? s->prev_idx[s->nprev - 1] : hi;
	}
	if (lo > hi) { /* no samples yet */
		quant_of_range(&w->delta, 1, 0, out);
		return 0;
	}
	memset(&w->cum.bucket[lo], 0, (hi - lo + 1) * sizeof(w->cum.bucket[0]));
	for (unsigned p = 0; f && p < f->nphases; p++) {
		const struct recorder *r = f->rec[p];
		if (!__atomic_load_n(&r->count, __ATOMIC_RELAXED))
			continue;
		/* Not under the recorder's sequence counter: a bucket only
		 * grows, and a sample counted a moment late falls in the next
		 * quantile interval. */
		for (unsigned i = lo; i <= hi; i++)
			w->cum.bucket[i] += __atomic_load_n(&r->hist.bucket[i], __ATOMIC_RELAXED);
	}
	for (unsigned i = lo; i <= hi; i++) {
		uint64_t prev = k < s->nprev && s->prev_idx[k] == i ? s->prev_cnt[k++] : 0;
		uint64_t c = w->cum.bucket[i];
		w->delta.bucket[i] = c > prev ? c - prev : 0;
		nz += c != 0;
	}
	if (nz > s->prev_cap) {
		size_t cap = nz + 32 < HISTOGRAM_BUCKETS ? nz + 32 : HISTOGRAM_BUCKETS;
		uint16_t *pi = realloc(s->prev_idx, cap * sizeof(*pi));
		if (pi)
			s->prev_idx = pi;
		uint64_t *pc = pi ? realloc(s->prev_cnt, cap * sizeof(*pc)) : NULL;
		if (!pc)
			return -ENOMEM;
		s->prev_cnt = pc;
		s->prev_cap = cap;
	}
	s->nprev = 0;
	for (unsigned i = lo; i <= hi; i++)
		if (w->cum.bucket[i]) {
			s->prev_idx[s->nprev] = (uint16_t)i;
			s->prev_cnt[s->nprev++] = w->cum.bucket[i];
		}
	quant_of_range(&w->delta, lo, hi, out);
	return 0;
}

int series_quant_tick(struct series *s, uint64_t now_ns, struct series_qwork *w)
{
	uint64_t qi = series_quant_interval_ns(s), j = now_ns / qi;
	struct series_quant v;
	int rc;

	if (s->quant_flushed || j <= s->qopen || now_ns < j * qi + SERIES_QUANT_LAG_NS)
		return 0;
	if ((rc = quant_snapshot(s, w, &v)) < 0)
		return rc;
	/* What housekeeping slept through (j - 1 > qopen) is in this one:
	 * the intervals before it have none. */
	uint64_t at = j - 1;
	if ((rc = series_quant_put(s, at, &v)) < 0)
		return rc;
	/* put may have merged pairs: j in the new intervals */
	s->qopen = now_ns / series_quant_interval_ns(s);
	return 0;
}

int series_quant_flush(struct series *s, struct series_qwork *w)
{
	struct series_quant v;
	int rc;

	if (s->quant_flushed)
		return 0;
	if ((rc = quant_snapshot(s, w, &v)) < 0)
		return rc;
	if (v.count && (rc = series_quant_put(s, s->qopen, &v)) < 0)
		return rc;
	s->quant_flushed = true;
	return 0;
}
