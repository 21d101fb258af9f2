/* probe_timer: timer wake-up latency, the cyclictest measurement.
 *
 * Sleep until an absolute CLOCK_MONOTONIC deadline, read the clock on
 * wake-up, record (now - deadline).  Unlike cyclictest, a wake-up that lands
 * past later deadlines counts those deadlines as missed and re-aligns to the
 * first deadline still in the future, instead of silently shifting.
 *
 * Hot path rules: no locks, no allocation, no syscall other than
 * clock_nanosleep and clock_gettime. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "probe.h"

#define NSEC_PER_SEC 1000000000ull

static inline uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

static int timer_run(struct probe_thread *t)
{
	const uint64_t interval = t->interval_ns;
	uint64_t next = t->t0_ns + interval;
	struct timespec ts;

	for (uint64_t n = 0; t->loops == 0 || n < t->loops; n++) {
		ts.tv_sec = (time_t)(next / NSEC_PER_SEC);
		ts.tv_nsec = (long)(next % NSEC_PER_SEC);
		int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (__builtin_expect(probe_should_stop(t), 0))
			break;
		if (__builtin_expect(rc != 0, 0)) {
			if (rc == EINTR) {
				n--; /* woken by a signal, not by the timer: not a sample */
				continue;
			}
			snprintf(t->err, sizeof(t->err), "clock_nanosleep: %s", strerror(rc));
			return -rc;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t now = ts_ns(&ts);
		uint64_t lat = now - next;
		struct recorder *r = t->rec[0][probe_phase(t)];
		recorder_add(r, lat, next - t->t0_ns);
		next += interval;
		if (__builtin_expect(now >= next, 0)) {
			uint64_t missed = (now - next) / interval + 1;
			recorder_add_missed(r, missed);
			next += missed * interval;
		}
	}
	return 0;
}

static const char *const timer_results[] = { "timer", NULL };

const struct probe_ops probe_timer_ops = {
	.name = "timer",
	.summary = "timer wake-up latency: clock_nanosleep(TIMER_ABSTIME) on CLOCK_MONOTONIC",
	.results = timer_results,
	.run = timer_run,
};
