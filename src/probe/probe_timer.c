// SPDX-License-Identifier: GPL-2.0-or-later
/* probe_timer: timer wake-up latency, the cyclictest measurement.
 *
 * Sleep until an absolute CLOCK_MONOTONIC deadline, read the clock on
 * wake-up, record (now - deadline).  Unlike cyclictest, a wake-up that lands
 * past later deadlines counts those deadlines as missed and re-aligns to the
 * first deadline still in the future, instead of silently shifting.
 *
 * Hot path rules: no locks, no allocation, no syscall other than
 * clock_nanosleep and clock_gettime (the vDSO outside valgrind). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

#define NSEC_PER_SEC 1000000000ull

static inline uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

static inline void ns_ts(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ns / NSEC_PER_SEC);
	ts->tv_nsec = (long)(ns % NSEC_PER_SEC);
}

/* The raw system call: glibc's clock_nanosleep() is a thread cancellation
 * point and spends ~45 instructions per call entering and leaving
 * asynchronous-cancel mode; probe threads are never cancelled.  Returns 0
 * or an errno value, like clock_nanosleep(). */
static inline int sleep_until(const struct timespec *ts)
{
	return syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, ts, NULL) ? errno : 0;
}

/* The next deadline, as ns and as a timespec advanced by addition (no
 * 64-bit division on the common path); past deadlines are skipped and
 * returned as missed. */
static inline uint64_t timer_advance(uint64_t *next, struct timespec *dl, uint64_t now,
				     uint64_t interval, time_t step_s, long step_ns)
{
	*next += interval;
	dl->tv_sec += step_s;
	dl->tv_nsec += step_ns;
	if (dl->tv_nsec >= (long)NSEC_PER_SEC) {
		dl->tv_nsec -= (long)NSEC_PER_SEC;
		dl->tv_sec++;
	}
	if (__builtin_expect(now >= *next, 0)) {
		uint64_t missed = (now - *next) / interval + 1;
		*next += missed * interval;
		ns_ts(*next, dl);
		return missed;
	}
	return 0;
}

/* The wake-up for deadline `at` did not count (warm-up, settle time), nor do
 * those of the `missed` deadlines it slept through that lie before the
 * counted time: they are discarded with it, so that discarded + count +
 * missed covers every deadline.  Those it missed in the counted time are
 * missed there, as a counted sample's would be.  Off the common path. */
static void timer_discard(struct probe_thread *t, unsigned ph, uint64_t at, uint64_t missed)
{
	const uint64_t from = __atomic_load_n(&t->count_from_ns, __ATOMIC_RELAXED);
	/* deadlines at + i x interval, i = 1..missed, before `from` */
	uint64_t before = from > at ? (from - at - 1) / t->interval_ns : 0;

	if (before > missed)
		before = missed;
	probe_discard(t, ph, 1 + before);
	if (missed > before)
		series_missed(t->feed, t->rec[0][ph], at + (before + 1) * t->interval_ns - t->t0_ns,
			      t->interval_ns, missed - before);
}

static int timer_run(struct probe_thread *t)
{
	const uint64_t interval = t->interval_ns;
	const long step_ns = (long)(interval % NSEC_PER_SEC);
	const time_t step_s = (time_t)(interval / NSEC_PER_SEC);
	/* The deadlines start at the release (start_ns); the warm-up's do
	 * not count (probe_counts). */
	uint64_t next = t->start_ns + interval, left = t->loops ? t->loops : UINT64_MAX;
	struct timespec dl, now_ts;

	/* The first wake-up looks at everything, whatever the session did. */
	__atomic_or_fetch(&t->ctl, PROBE_CTL_LOOK, __ATOMIC_RELAXED);
	ns_ts(next, &dl);
	while (left) {
		int rc = sleep_until(&dl);
		/* The clock first: nothing between the wake-up and its reading. */
		clock_gettime(CLOCK_MONOTONIC, &now_ts);
		unsigned c = probe_ctl(t);
		/* The common path checks one word: the sleep ended on time
		 * and nothing changed since a sample last counted (no stop,
		 * no new counted time, the same phase).  The warm-up and ab's
		 * settle times are spent off it, sample after sample, until
		 * a deadline counts. */
		if (__builtin_expect(rc != 0 || (c & PROBE_CTL_LOOK), 0)) {
			__atomic_thread_fence(__ATOMIC_ACQUIRE); /* pairs with publish_ctl */
			if (probe_should_stop(t))
				break;
			if (rc != 0) {
				if (rc == EINTR)
					continue; /* woken by a signal, not by the timer: not a sample */
				snprintf(t->err, sizeof(t->err), "clock_nanosleep: %s",
					 strerror(rc));
				return -rc;
			}
			/* Judged by its deadline: a late wake-up into the
			 * counted time does not bring a warm-up deadline with
			 * it.  Back to the common path only with the flag
			 * cleared before the last look at the stop flag and
			 * the counted time, so that a change after that look
			 * sets it again. */
			if (probe_counts(t, next)) {
				c = __atomic_and_fetch(&t->ctl, ~PROBE_CTL_LOOK, __ATOMIC_ACQUIRE);
				/* The flag just cleared may have been the stop's. */
				if (__builtin_expect(probe_should_stop(t), 0))
					break;
				if (__builtin_expect(!probe_counts(t, next), 0))
					c = __atomic_or_fetch(&t->ctl, PROBE_CTL_LOOK,
							      __ATOMIC_RELAXED);
			}
			if (c & PROBE_CTL_LOOK) {
				const uint64_t at = next;
				timer_discard(t, c & ~PROBE_CTL_LOOK, at,
					      timer_advance(&next, &dl, ts_ns(&now_ts), interval,
							    step_s, step_ns));
				continue;
			}
		}
		uint64_t now = ts_ns(&now_ts);
		const unsigned ph = c;
		probe_record(t, 0, ph, now - next, next - t->t0_ns);
		left--;
		uint64_t missed = timer_advance(&next, &dl, now, interval, step_s, step_ns);
		/* the deadlines after the sample's, each in its interval */
		if (__builtin_expect(missed != 0, 0))
			series_missed(t->feed, t->rec[0][ph], next - missed * interval - t->t0_ns,
				      interval, missed);
	}
	return 0;
}

static const char *const timer_results[] = { "timer", NULL };

const struct probe_ops probe_timer_ops = {
	.name = "timer",
	.summary = "timer wake-up latency: clock_nanosleep(TIMER_ABSTIME) on CLOCK_MONOTONIC",
	.results = timer_results,
	.hrtimer = true,
	.run = timer_run,
};
