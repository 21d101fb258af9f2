// SPDX-License-Identifier: GPL-2.0-or-later
/* series_store: the compact interval encoding gives back exactly what went
 * in (every field at its extremes, across block boundaries, read in order
 * from any start and one at a time), keeps a typical day at ~3 bytes an
 * interval, and series_put refuses to go back in time. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "series_store.h"
#include "tap.h"

#define N 20000

/* Values that stress the encoding: zeros, the largest of each field, count
 * jumps both ways, and ordinary intervals in between. */
static struct series_interval pick(void)
{
	static const uint64_t maxes[] = { 0,	   1,	    127,
					  128,	   16383,   16384,
					  1048575, 1048576, (uint64_t)INT64_MAX };
	static const uint32_t u32s[] = { 0, 1, 127, 128, 65535, UINT32_MAX - 1, UINT32_MAX };
	uint64_t r = tap_rnd();

	if (r % 4)
		return (struct series_interval){ .max_ns = 10000 + tap_rnd() % 90000,
						 .count = 1000 + (uint32_t)(r % 3) - 1 };
	return (struct series_interval){ .max_ns = maxes[tap_rnd() % 9],
					 .count = u32s[tap_rnd() % 7],
					 .spikes = u32s[tap_rnd() % 7],
					 .missed = u32s[tap_rnd() % 7] };
}

static bool same(const struct series_interval *a, const struct series_interval *b)
{
	return a->max_ns == b->max_ns && a->count == b->count && a->spikes == b->spikes &&
	       a->missed == b->missed;
}

static void test_round_trip(void)
{
	struct series_interval *want = malloc(N * sizeof(*want)), got;
	struct series_store st = { 0 };
	struct series_cursor c;
	size_t bad = 0, n = 0, at_bad = 0, starts_bad = 0;
	int rc = 0;

	tap_rnd_seed(20);
	for (size_t i = 0; want && i < N; i++) {
		want[i] = pick();
		rc |= series_store_append(&st, &want[i]);
	}
	ok(want && !rc && st.n == N, "%d intervals appended", N);
	ok(st.nblk > 10, "they span %zu blocks", st.nblk);
	series_cursor_init(&c, &st, 0);
	while (series_cursor_next(&c, &got))
		bad += n >= N || !same(&got, &want[n]), n++;
	ok(n == N && !bad, "read in order: %zu intervals, %zu differ", n, bad);
	for (size_t k = 0; k < 200; k++) {
		size_t i = k < 3 ? (size_t[]){ 0, N - 2, N - 1 }[k] : tap_rnd() % N;
		series_store_get(&st, i, &got);
		at_bad += !same(&got, &want[i]);
		/* and a cursor started there reads on to the end */
		series_cursor_init(&c, &st, i);
		size_t j = i;
		while (series_cursor_next(&c, &got))
			starts_bad += !same(&got, &want[j]), j++;
		starts_bad += j != N;
	}
	ok(!at_bad, "200 intervals read one at a time, block edges and the tail included");
	ok(!starts_bad, "200 cursors started anywhere read on to the end exactly");
	/* The block boundaries themselves. */
	bad = 0;
	for (size_t b = 0; b < st.nblk; b++)
		for (long d = -1; d <= 1; d++) {
			size_t i = (size_t)((long)st.blk[b]->first + d);
			if (i >= N)
				continue;
			series_store_get(&st, i, &got);
			bad += !same(&got, &want[i]);
		}
	ok(!bad, "the intervals either side of every block start");
	struct series_interval *all = series_store_decode(&st);
	bad = !all;
	for (size_t i = 0; all && i < N; i++)
		bad += !same(&all[i], &want[i]);
	ok(!bad, "decode gives the whole array back");
	free(all);
	series_store_free(&st);
	ok(st.n == 0 && !st.blk && series_store_bytes(&st) == 0, "free leaves an empty store");
	free(want);
}

/* What the encoding is for: a typical interval (a maximum of 16 us to
 * 1 ms, the same count as the one before, no spike, no missed deadline)
 * costs 3 bytes, and the blocks waste little. */
static void test_size(void)
{
	struct series_store st = { 0 };
	int rc = 0;

	tap_rnd_seed(3);
	for (size_t i = 0; i < 86400; i++) {
		struct series_interval v = { .max_ns = 16384 + tap_rnd() % (1048576 - 16384),
					     .count = 1000 };
		rc |= series_store_append(&st, &v);
	}
	double per = (double)series_store_bytes(&st) / (double)st.n;
	ok(!rc && per >= 3.0 && per < 3.2, "a day of typical intervals: %.2f bytes each", per);
	series_store_free(&st);
	struct series_interval one = { .max_ns = 5, .count = 1 };
	ok(!series_store_append(&st, &one) && series_store_bytes(&st) == 0 && st.n == 1,
	   "a single interval is the unencoded tail: no block yet");
	ok(!series_store_append(&st, &one) && st.nblk == 1 && st.blk[0]->size == SERIES_BLOCK_MIN,
	   "the first block is the smallest (%u bytes)", SERIES_BLOCK_MIN);
	series_store_free(&st);
}

static void test_empty_and_tail(void)
{
	struct series_store st = { 0 };
	struct series_cursor c;
	struct series_interval v, a = { .max_ns = 10, .count = 2 },
				  b = { .max_ns = 30, .count = 1 };

	series_cursor_init(&c, &st, 0);
	ok(!series_cursor_next(&c, &v), "an empty store reads nothing");
	struct series_interval *all = series_store_decode(&st);
	ok(all != NULL, "decode of an empty store is a valid (1-element) array");
	free(all);
	series_store_append(&st, &a);
	series_store_append(&st, &a);
	series_store_last(&st)->max_ns = 40; /* what series_put's merge does */
	series_store_last(&st)->count += b.count;
	series_store_get(&st, 1, &v);
	ok(v.max_ns == 40 && v.count == 3, "the last interval is merged into in place");
	series_store_append(&st, &b);
	series_store_get(&st, 1, &v);
	ok(v.max_ns == 40 && v.count == 3, "and keeps the merge once encoded");
	series_cursor_init(&c, &st, 3);
	ok(!series_cursor_next(&c, &v), "a cursor past the end reads nothing");
	series_store_free(&st);
}

/* series_put keeps the store's promise: append-only, in order. */
static void test_put_order(void)
{
	struct series s;
	struct series_interval v = { .max_ns = 100, .count = 1 }, got;

	series_init(&s, NULL, 1000, 16);
	ok(!series_put(&s, 5, &v) && s.st.n == 6, "interval 5 first: 0..4 are empty");
	ok(!series_put(&s, 5, &v) && s.st.n == 6, "interval 5 again merges into it");
	series_store_get(&s.st, 5, &got);
	ok(got.count == 2 && got.max_ns == 100, "merged: count 2");
	ok(series_put(&s, 3, &v) == -EINVAL && s.st.n == 6, "going back to interval 3: -EINVAL");
	int rc = series_put(&s, 40, &v);
	ok(!rc && s.shift == 2 && s.st.n == 11,
	   "interval 40 past the limit of 16: four base intervals each, %zu kept", s.st.n);
	series_store_get(&s.st, 1, &got);
	ok(got.count == 2 && got.max_ns == 100, "base interval 5 is now in interval 1");
	series_free(&s);
}

int main(void)
{
	tap_plan(22);
	test_round_trip();
	test_size();
	test_empty_and_tail();
	test_put_order();
	return tap_done();
}
