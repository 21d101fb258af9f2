// SPDX-License-Identifier: GPL-2.0-or-later
/* series: the probe-side feed and the housekeeping side, with real
 * recorders, driven the way a probe drives them (series_note, then
 * recorder_add), including a concurrent producer and consumer. */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "recorder.h"
#include "series.h"
#include "tap.h"

#define MS 1000000ull

struct rig {
	struct recorder *rec[1];
	unsigned phase;
	struct series_feed *feed;
	struct series s;
};

static void rig_init(struct rig *g, uint64_t base_ns, uint64_t threshold, size_t limit)
{
	memset(g, 0, sizeof(*g));
	g->rec[0] = recorder_alloc(8, -1);
	g->feed = series_feed_alloc(-1, base_ns, threshold, g->rec, 1, &g->phase);
	series_init(&g->s, g->feed, base_ns, limit);
	if (threshold)
		series_set_threshold(&g->s, threshold, 0);
}

static void rig_free(struct rig *g)
{
	series_free(&g->s);
	series_feed_free(g->feed);
	recorder_free(g->rec[0]);
}

static void sample(struct rig *g, uint64_t lat, uint64_t t)
{
	series_note(g->feed, lat, t);
	recorder_add(g->rec[0], lat, t);
}

static uint64_t sum_count(const struct series *s, uint64_t *max, uint64_t *spikes, uint64_t *missed)
{
	uint64_t c = 0;

	struct series_cursor cur;
	struct series_interval v;

	*max = *spikes = *missed = 0;
	series_cursor_init(&cur, &s->st, 0);
	while (series_cursor_next(&cur, &v)) {
		c += v.count;
		*spikes += v.spikes;
		*missed += v.missed;
		if (v.max_ns > *max)
			*max = v.max_ns;
	}
	return c;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* 1 s of 100 us samples into 10 ms intervals with room for 16: the series
 * must coarsen three times and keep every total. */
static void test_merging(void)
{
	struct rig g;
	uint64_t x = 42, max, spikes, missed, nspikes = 0;

	rig_init(&g, 10 * MS, 50000, 16);
	for (uint64_t i = 0; i < 10000; i++) {
		uint64_t lat = 1000 + rnd(&x) % 60000;
		nspikes += lat > 50000;
		sample(&g, lat, i * 100000);
		if (i % 3 == 0)
			recorder_add_missed(g.rec[0], 1);
		if (i % 700 == 0)
			series_drain(&g.s);
	}
	ok(series_flush(&g.s) == 0, "flush after the probe stopped");
	uint64_t c = sum_count(&g.s, &max, &spikes, &missed);
	ok(c == g.rec[0]->count, "merged intervals keep the count (%llu vs %llu)",
	   (unsigned long long)c, (unsigned long long)g.rec[0]->count);
	ok(max == g.rec[0]->max, "the largest interval max is the result's max");
	ok(missed == g.rec[0]->missed, "missed deadlines add up (%llu)",
	   (unsigned long long)missed);
	ok(spikes == nspikes && g.s.spikes_total == nspikes, "spikes counted: %llu",
	   (unsigned long long)spikes);
	ok(g.s.st.n <= 16 && g.s.shift == 3 && series_interval_ns(&g.s) == 80 * MS,
	   "100 intervals into 16: interval 80 ms, %zu kept", g.s.st.n);
	ok(g.s.nspikes + g.s.spikes_overwritten + g.s.spikes_unlogged == nspikes,
	   "every spike is logged or counted as lost");
	rig_free(&g);
}

/* A quiet stretch leaves empty intervals, not a shifted series. */
static void test_gaps(void)
{
	struct rig g;

	rig_init(&g, 1000 * MS, 0, 100);
	sample(&g, 5000, 100 * MS);
	sample(&g, 7000, 5300 * MS);
	series_flush(&g.s);
	struct series_interval v0, v3, v5;
	series_store_get(&g.s.st, 0, &v0);
	series_store_get(&g.s.st, 3, &v3);
	series_store_get(&g.s.st, 5, &v5);
	ok(g.s.st.n == 6 && v0.count == 1 && v5.count == 1 && v3.count == 0 && v5.max_ns == 7000,
	   "samples at 0.1 s and 5.3 s land in intervals 0 and 5 (n=%zu)", g.s.st.n);
	ok(g.s.spikes_total == 0 && g.s.nspikes == 0, "no threshold: no spikes");
	rig_free(&g);
}

/* The spike ring overwrites its oldest entries when housekeeping is late
 * and the loss is counted; the intervals still count every spike. */
static void test_spike_overflow(void)
{
	struct rig g;
	const uint64_t n = 3000;

	rig_init(&g, 1000 * MS, 100, 100);
	for (uint64_t i = 0; i < n; i++)
		sample(&g, 1000 + i, i * 1000);
	series_flush(&g.s);
	ok(g.s.spikes_overwritten == n - SERIES_SPIKE_RING && g.s.nspikes == SERIES_SPIKE_RING,
	   "%llu spikes, ring %d: %llu overwritten, %zu logged", (unsigned long long)n,
	   SERIES_SPIKE_RING, (unsigned long long)g.s.spikes_overwritten, g.s.nspikes);
	ok(g.s.spikes[0].latency_ns == 1000 + n - SERIES_SPIKE_RING,
	   "the log keeps the newest entries");
	ok(g.s.spikes_total == n, "the intervals count all %llu spikes",
	   (unsigned long long)g.s.spikes_total);
	rig_free(&g);
}

/* Housekeeping a whole ring of intervals behind: the probe never waits,
 * the open interval absorbs the rest, nothing is lost. */
static void test_stall(void)
{
	struct rig g;
	uint64_t max, spikes, missed, total = 3 * SERIES_RING_MAX;

	rig_init(&g, 1 * MS, 0, 1000000);
	for (uint64_t i = 0; i < total; i++)
		sample(&g, 10, i * MS);
	ok(g.feed->stalls > 0, "a full interval ring is counted (%llu stalls)",
	   (unsigned long long)g.feed->stalls);
	series_flush(&g.s);
	ok(sum_count(&g.s, &max, &spikes, &missed) == total, "and no sample is lost");
	rig_free(&g);
}

/* The interval ring holds a minute of intervals, 16 to 1024 of them; at
 * 1 s intervals housekeeping may fall 64 intervals behind before one is
 * merged into the next, and then nothing is lost either. */
static void test_ring_len(void)
{
	static const struct {
		uint64_t base_ns, len;
	} want[] = { { 1 * MS, 1024 },	{ 10 * MS, 1024 },  { 100 * MS, 1024 },
		     { 1000 * MS, 64 }, { 60000 * MS, 16 }, { 3600000 * MS, 16 } };
	struct rig g;
	int good = 1;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		rig_init(&g, want[i].base_ns, 0, 1000000);
		good &= g.feed->ring_len == want[i].len;
		rig_free(&g);
	}
	ok(good, "the interval ring holds a minute: 1024 at 1 to 100 ms, 64 at 1 s, 16 from 1 min");

	uint64_t max, spikes, missed;
	rig_init(&g, 1000 * MS, 0, 1000000);
	for (uint64_t i = 0; i < 65; i++) /* closes 64 intervals, opens the 65th */
		sample(&g, 10, i * 1000 * MS);
	uint64_t before = g.feed->stalls;
	sample(&g, 10, 65 * 1000 * MS); /* a 65th closed one: no room */
	ok(before == 0 && g.feed->stalls == 1, "64 closed intervals fill it, the 65th stalls");
	series_flush(&g.s);
	ok(sum_count(&g.s, &max, &spikes, &missed) == 66 && g.s.st.n == 65,
	   "and no sample is lost (%zu intervals)", g.s.st.n);
	rig_free(&g);
}

/* The automatic threshold arrives later: spikes count from then on. */
static void test_late_threshold(void)
{
	struct rig g;

	rig_init(&g, 1000 * MS, 0, 100);
	for (uint64_t i = 0; i < 100; i++)
		sample(&g, i == 50 ? 90000 : 1000, i * MS);
	series_set_threshold(&g.s, 10000, 100 * MS);
	for (uint64_t i = 100; i < 200; i++)
		sample(&g, i == 150 ? 20000 : 1000, i * MS);
	series_flush(&g.s);
	ok(g.s.spikes_total == 1 && g.s.nspikes == 1 && g.s.spikes[0].t_ns == 150 * MS &&
	       g.s.spikes[0].latency_ns == 20000,
	   "only the spike after the threshold was set is counted");
	struct series_interval v0;
	series_store_get(&g.s.st, 0, &v0);
	ok(v0.max_ns == 90000, "the interval max still has the earlier one");
	rig_free(&g);
}

struct prod {
	struct rig *g;
	uint64_t n;
	int done;
};

static void *producer(void *arg)
{
	struct prod *p = arg;

	/* latency = t / 1000 + 200: every logged entry can be checked for a
	 * torn copy (its latency must match its time). */
	for (uint64_t i = 0; i < p->n; i++) {
		uint64_t t = i * 20000;
		sample(p->g, (i % 7 == 0) ? t / 1000 + 200 : 50, t);
	}
	__atomic_store_n(&p->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_concurrent(void)
{
	struct rig g;
	struct prod p = { &g, 2000000, 0 };
	pthread_t th;
	uint64_t max, spikes, missed;
	bool torn = false;

	rig_init(&g, 10 * MS, 100, 100000);
	pthread_create(&th, NULL, producer, &p);
	while (!__atomic_load_n(&p.done, __ATOMIC_ACQUIRE))
		series_drain(&g.s);
	pthread_join(th, NULL);
	series_flush(&g.s);
	ok(sum_count(&g.s, &max, &spikes, &missed) == p.n,
	   "concurrent drain: every sample counted once");
	for (size_t i = 0; i < g.s.nspikes; i++)
		torn |= g.s.spikes[i].latency_ns != g.s.spikes[i].t_ns / 1000 + 200;
	ok(!torn, "no torn spike entries (%zu logged, %llu overwritten)", g.s.nspikes,
	   (unsigned long long)g.s.spikes_overwritten);
	ok(g.s.nspikes + g.s.spikes_overwritten + g.s.spikes_unlogged == spikes,
	   "logged + overwritten + unlogged = spikes counted");
	rig_free(&g);
}

/* Per-interval quantiles (issue 30): housekeeping's snapshots of the
 * probe's histogram give each interval the quantiles of its own samples. */
static void test_quantiles(void)
{
	struct rig g;
	struct series_qwork *w = calloc(1, sizeof(*w));
	uint64_t base = 100 * MS;

	rig_init(&g, base, 0, 100);
	/* interval 0: 999 samples of 10 us and one of 500 us */
	for (uint64_t i = 0; i < 1000; i++)
		sample(&g, i == 500 ? 500000 : 10000, i * 100000);
	ok(series_quant_tick(&g.s, base, w) == 0 && g.s.nquant == 0,
	   "no snapshot before the interval's end + the lag");
	/* the same nearest rank as the report's percentiles: p99.9 of 1000
	 * is rank ceil(0.999 x 1000) in long double, which 99.9's binary
	 * fraction makes 1000, the 500 us sample, in both */
	int rc = series_quant_tick(&g.s, base + SERIES_QUANT_LAG_NS, w);
	uint64_t p999 = histogram_percentile(&g.rec[0]->hist, 99.9, 10000, 500000);
	ok(rc == 0 && g.s.nquant == 1 && g.s.quant[0].count == 1000 &&
	       g.s.quant[0].q[SERIES_Q50] == histogram_index(10000) &&
	       g.s.quant[0].q[SERIES_Q99] == histogram_index(10000) &&
	       g.s.quant[0].q[SERIES_Q99_9] == histogram_index(p999),
	   "interval 0: 1000 samples, p50 = p99 = 10 us, p99.9 as histogram_percentile (%llu ns)",
	   (unsigned long long)p999);
	/* interval 1: 100 samples, 2 of them 300 us: p99 is the 99th */
	for (uint64_t i = 0; i < 100; i++)
		sample(&g, i < 2 ? 300000 : 20000, base + 5 * MS + i * 900000);
	series_quant_tick(&g.s, 2 * base + SERIES_QUANT_LAG_NS, w);
	ok(g.s.nquant == 2 && g.s.quant[1].count == 100 &&
	       g.s.quant[1].q[SERIES_Q50] == histogram_index(20000) &&
	       g.s.quant[1].q[SERIES_Q99] == histogram_index(300000) &&
	       series_quant_ns(g.s.quant[1].q[SERIES_Q99]) / 1000 == 300,
	   "interval 1: its own samples only, p99 300 us (as a bucket midpoint: %llu ns)",
	   (unsigned long long)series_quant_ns(g.s.quant[1].q[SERIES_Q99]));
	/* housekeeping sleeps through intervals 2 and 3: 3 holds both */
	for (uint64_t i = 0; i < 50; i++)
		sample(&g, 30000, 2 * base + i * 4 * MS);
	series_quant_tick(&g.s, 4 * base + SERIES_QUANT_LAG_NS, w);
	ok(g.s.nquant == 4 && g.s.quant[2].count == 0 &&
	       g.s.quant[2].q[SERIES_Q50] == SERIES_QUANT_NONE && g.s.quant[3].count == 50,
	   "a snapshot late by an interval: the one before it has none, the late one all");
	/* the end: the open interval's samples by the flush */
	for (uint64_t i = 0; i < 7; i++)
		sample(&g, 40000, 4 * base + i * MS);
	ok(series_quant_flush(&g.s, w) == 0 && g.s.nquant == 5 && g.s.quant[4].count == 7 &&
	       series_quant_tick(&g.s, 9 * base, w) == 0 && g.s.nquant == 5,
	   "the flush closes the open interval, and nothing after it");
	rig_free(&g);

	/* beyond the limit (16 here): pairs merge, counts add, each quantile
	 * the larger of the two (an upper bound) */
	rig_init(&g, base, 0, 16);
	struct series_quant v = { 10, { 0, 0, 0 } };
	uint64_t total = 0;
	bool order = true;
	for (uint64_t j = 0; j < 40; j++) {
		v.q[0] = (uint16_t)(100 + j);
		v.q[1] = (uint16_t)(200 + (j % 2 ? 50 : 0));
		v.q[2] = (uint16_t)300;
		total += v.count;
		/* in the current intervals, as series_quant_tick computes them */
		if (series_quant_put(&g.s, j >> g.s.qshift, &v))
			order = false;
	}
	uint64_t sum = 0;
	for (size_t i = 0; i < g.s.nquant; i++)
		sum += g.s.quant[i].count;
	ok(order && g.s.quant_merged && g.s.nquant <= 16 &&
	       series_quant_interval_ns(&g.s) == 4 * base && sum == total &&
	       g.s.quant[0].q[0] == 103 && g.s.quant[0].q[1] == 250 && g.s.quant[0].count == 40,
	   "merged beyond the limit: %zu of %.1f s, counts kept, quantiles the larger (%u, %u)",
	   g.s.nquant, (double)series_quant_interval_ns(&g.s) / 1e9, g.s.quant[0].q[0],
	   g.s.quant[0].q[1]);
	ok(series_quant_put(&g.s, 0, &v) == -EINVAL, "an interval before the last: -EINVAL");
	rig_free(&g);
	free(w);
}

/* A late wake-up's missed deadlines go to the intervals they fall in: a
 * sample at 0.990 s (1 ms steps, 1 s intervals) whose wake-up came at
 * 3.0125 s slept through 2022 deadlines, 9 in interval 0, 1000 in 1, 1000
 * in 2 and 13 in 3; the next sample's interval (3) gets its max. */
static void test_missed_split(void)
{
	struct rig g;
	struct series_interval v[4];

	rig_init(&g, 1000 * MS, 0, 100);
	sample(&g, 4000, 990 * MS);
	series_missed(g.feed, g.rec[0], 991 * MS, MS, 2022);
	sample(&g, 6000, 3013 * MS);
	series_flush(&g.s);
	for (int i = 0; i < 4; i++)
		series_store_get(&g.s.st, i, &v[i]);
	ok(g.s.st.n == 4 && v[0].missed == 9 && v[1].missed == 1000 && v[2].missed == 1000 &&
	       v[3].missed == 13 && g.rec[0]->missed == 2022,
	   "missed by interval: %u %u %u %u of %llu (n=%zu)", v[0].missed, v[1].missed, v[2].missed,
	   v[3].missed, (unsigned long long)g.rec[0]->missed, g.s.st.n);
	ok(v[0].count == 1 && v[0].max_ns == 4000 && v[1].count == 0 && v[1].max_ns == 0 &&
	       v[3].count == 1 && v[3].max_ns == 6000,
	   "the samples keep their intervals and maxima (%llu, %llu)",
	   (unsigned long long)v[0].max_ns, (unsigned long long)v[3].max_ns);
	/* inside one interval: nothing closes */
	series_missed(g.feed, g.rec[0], 3014 * MS, MS, 5);
	ok(g.rec[0]->missed == 2027, "missed inside the open interval: counted, nothing closed");
	rig_free(&g);
}

int main(void)
{
	struct series s;

	tap_plan(33);
	test_quantiles();
	test_missed_split();
	test_merging();
	test_gaps();
	test_spike_overflow();
	test_stall();
	test_ring_len();
	test_late_threshold();
	test_concurrent();
	ok(series_init(&s, NULL, 0, 100) == -EINVAL && series_init(&s, NULL, 1, 2) == -EINVAL,
	   "series_init rejects a zero interval and a limit below the minimum");
	return tap_done();
}
