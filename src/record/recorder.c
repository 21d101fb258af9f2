// SPDX-License-Identifier: GPL-2.0-or-later
/* recorder: allocation, top-K heap, merge and derived statistics.  The
 * per-sample path is recorder_add() in recorder.h. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recorder.h"
#include "rt.h"
#include "util.h"

void recorder_init(struct recorder *r, unsigned top_k, struct recorder_sample *top_storage)
{
	size_t keep = r->alloc_size;
	bool on_numa = r->on_numa;

	memset(r, 0, sizeof(*r));
	r->alloc_size = keep;
	r->on_numa = on_numa;
	r->min = UINT64_MAX;
	r->top_k = top_k;
	r->top = top_storage;
	/* With K = 0 nothing may enter the heap. */
	r->top_floor = top_k ? 0 : UINT64_MAX;
}

struct recorder *recorder_alloc(unsigned top_k, int cpu)
{
	size_t size = sizeof(struct recorder) + (size_t)top_k * sizeof(struct recorder_sample);
	bool on_numa;
	struct recorder *r = rt_alloc_local(size, cpu, &on_numa);

	if (!r)
		return NULL;
	r->alloc_size = size;
	r->on_numa = on_numa;
	recorder_init(r, top_k, (struct recorder_sample *)(r + 1));
	return r;
}

void recorder_free(struct recorder *r)
{
	if (r)
		rt_free_local(r, r->alloc_size, r->on_numa);
}

static void top_sift_down(struct recorder_sample *h, unsigned n, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, s = i;
		if (l < n && h[l].latency_ns < h[s].latency_ns)
			s = l;
		if (l + 1 < n && h[l + 1].latency_ns < h[s].latency_ns)
			s = l + 1;
		if (s == i)
			return;
		struct recorder_sample tmp = h[i];
		h[i] = h[s];
		h[s] = tmp;
		i = s;
	}
}

void recorder_top_insert(struct recorder *r, uint64_t latency, uint64_t t)
{
	struct recorder_sample *h = r->top;

	if (r->top_n < r->top_k) {
		unsigned i = r->top_n++;
		h[i] = (struct recorder_sample){ .t_ns = t, .latency_ns = latency };
		while (i > 0 && h[(i - 1) / 2].latency_ns > h[i].latency_ns) {
			struct recorder_sample tmp = h[i];
			h[i] = h[(i - 1) / 2];
			h[(i - 1) / 2] = tmp;
			i = (i - 1) / 2;
		}
	} else if (latency > h[0].latency_ns) {
		h[0] = (struct recorder_sample){ .t_ns = t, .latency_ns = latency };
		top_sift_down(h, r->top_n, 0);
	}
	if (r->top_n == r->top_k)
		r->top_floor = h[0].latency_ns == UINT64_MAX ? UINT64_MAX : h[0].latency_ns + 1;
}

void recorder_merge(struct recorder *dst, const struct recorder *src)
{
	if (src->count) {
		if (src->min < dst->min)
			dst->min = src->min;
		if (src->max > dst->max || dst->count == 0) {
			dst->max = src->max;
			dst->max_at = src->max_at;
		}
	}
	dst->count += src->count;
	dst->missed += src->missed;
	dst->discarded += src->discarded;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	histogram_merge(&dst->hist, &src->hist);
	for (unsigned i = 0; i < src->top_n; i++)
		if (src->top[i].latency_ns >= dst->top_floor)
			recorder_top_insert(dst, src->top[i].latency_ns, src->top[i].t_ns);
}

uint64_t recorder_mean(const struct recorder *r)
{
	return r->count ? (r->sum + r->count / 2) / r->count : 0;
}

uint64_t recorder_stddev(const struct recorder *r)
{
	if (r->count < 2)
		return 0;
	/* Population stddev from the exact integer moments; long double
	 * (64-bit mantissa) keeps the subtraction from cancelling badly. */
	long double n = (long double)r->count, s = (long double)r->sum;
	long double var = ((long double)r->sumsq - s * s / n) / n;
	return var > 0 ? (uint64_t)llroundl(sqrtl(var)) : 0;
}

static int sample_cmp_desc(const void *a, const void *b)
{
	const struct recorder_sample *x = a, *y = b;

	if (x->latency_ns != y->latency_ns)
		return x->latency_ns < y->latency_ns ? 1 : -1;
	return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns;
}

unsigned recorder_top_sorted(const struct recorder *r, struct recorder_sample *out)
{
	memcpy(out, r->top, r->top_n * sizeof(*out));
	qsort(out, r->top_n, sizeof(*out), sample_cmp_desc);
	return r->top_n;
}

/* A copy taken while the writer was inside an update, or never paused:
 * make it agree with itself (recorder_add updates the histogram first, the
 * max before the top list, the count last). */
static void recorder_settle(struct recorder *r)
{
	r->count = histogram_total(&r->hist);
	uint64_t top = 0, top_at = 0;
	for (unsigned i = 0; i < r->top_n; i++)
		if (r->top[i].latency_ns > top) {
			top = r->top[i].latency_ns;
			top_at = r->top[i].t_ns;
		}
	if (r->top_n && top > r->max) {
		r->max = top;
		r->max_at = top_at;
	} else if (r->top_k && r->count && r->max > top) {
		recorder_top_insert(r, r->max, r->max_at);
	}
}

void recorder_snapshot(struct recorder *dst, const struct recorder *src)
{
	struct recorder_sample *storage = dst->top;
	unsigned cap = dst->top_k;
	size_t keep = dst->alloc_size;
	bool on_numa = dst->on_numa, settle = false;
	uint64_t give_up = 0;

	for (int tries = 0;; tries++) {
		uint64_t s1 = __atomic_load_n(&src->seq, __ATOMIC_ACQUIRE);
		if ((s1 & 1) && tries >= 1000) {
			/* The writer is inside an update and stays there: in a VM
			 * its vCPU can be stopped for milliseconds at any
			 * instruction, and a copy now would be torn (a new max not
			 * yet in the top list).  This is the housekeeping thread:
			 * wait for it, sleeping, for a bounded time. */
			uint64_t now = util_now_ns(CLOCK_MONOTONIC);
			if (!give_up)
				give_up = now + RECORDER_SNAPSHOT_WAIT_NS;
			if (now < give_up) {
				nanosleep(&(struct timespec){ .tv_nsec = 20000 }, NULL);
				continue;
			}
		} else if (s1 & 1) {
			continue;
		}
		memcpy(dst, src, sizeof(*dst));
		unsigned n = src->top_n < cap ? src->top_n : cap;
		memcpy(storage, src->top, n * sizeof(*storage));
		dst->top_n = n;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(s1 & 1) && __atomic_load_n(&src->seq, __ATOMIC_RELAXED) == s1)
			break;
		if (tries >= 1000) {
			/* The probe never paused (a sub-microsecond interval), or
			 * stayed inside one update for RECORDER_SNAPSHOT_WAIT_NS:
			 * settle for a copy that agrees with itself. */
			settle = true;
			break;
		}
	}
	dst->top = storage;
	dst->top_k = cap;
	dst->alloc_size = keep;
	dst->on_numa = on_numa;
	dst->top_floor = 0;
	if (settle)
		recorder_settle(dst);
}
