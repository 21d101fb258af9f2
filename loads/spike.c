// SPDX-License-Identifier: GPL-2.0-or-later
/* spike: periodic real-time interference, like a daemon whose housekeeping
 * runs every N seconds at a high priority.
 *
 * One worker per load CPU (choose them with the common option cpus=LIST),
 * pinned.  Each worker switches itself to SCHED_FIFO and, every `period`,
 * busy-spins for `burst`.  The bursts start on absolute multiples of the
 * period on CLOCK_MONOTONIC, so they coincide on all CPUs and the period is
 * exact: a known-answer fixture for spike analysis.  The default priority
 * is one above the probes', so a probe that wakes during a burst cannot run
 * until the burst ends (the RT scheduler only lets a higher priority
 * preempt): its latency shows up as up to `burst` plus the spike worker's
 * own wake-up latency, once per period.  The spin is timed from the
 * worker's actual wake-up, so each burst is `burst` long even when that
 * wake-up is late.
 *
 * Sleeping uses a TFD_TIMER_ABSTIME timerfd (a hrtimer with no slack) waited
 * on with ppoll() and SIGTERM unblocked only there, so a stop request is
 * never lost between checking the flag and sleeping, without waking up in
 * between bursts (extra wake-ups would pollute the fixture).
 *
 * If sched_setscheduler() fails (no CAP_SYS_NICE, RT group scheduling
 * without an RT budget), the error is counted once per worker and the
 * bursts run as SCHED_OTHER: the report then shows errors and a much
 * smaller effect.  Bursts longer than the RT throttling budget
 * (kernel.sched_rt_runtime_us, 950 ms of every second by default) are cut
 * short by the kernel.
 *
 * One op is one burst. */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "load.h"
#include "util.h"

static const struct opt spike_options[] = {
	{ .name = "period",
	  .type = OPT_TIME,
	  .def = "2s",
	  .min = (int64_t)NSEC_PER_MSEC,
	  .max = (int64_t)(3600 * NSEC_PER_SEC),
	  .help = "time between burst starts (aligned to multiples of it on CLOCK_MONOTONIC)" },
	{ .name = "burst",
	  .type = OPT_TIME,
	  .def = "1ms",
	  .min = (int64_t)NSEC_PER_USEC,
	  .max = (int64_t)NSEC_PER_SEC,
	  .help = "busy-spin time per period at SCHED_FIFO" },
	{ .name = "priority",
	  .type = OPT_INT,
	  .def = "0",
	  .min = 0,
	  .max = 99,
	  .help = "SCHED_FIFO priority; 0: the probes' priority + 1 (1 with --no-rt), at most 99" },
	{ .name = NULL },
};

static int spike_priority(const struct load_instance *inst)
{
	int64_t p = load_opt_int(inst, "priority");

	if (p)
		return (int)p;
	if (inst->probe_priority <= 0)
		return 1;
	return inst->probe_priority >= 99 ? 99 : inst->probe_priority + 1;
}

static int spike_check(const struct load_instance *inst, char *err, size_t errlen)
{
	if (load_opt_int(inst, "burst") >= load_opt_int(inst, "period")) {
		snprintf(err, errlen, "spike: burst must be shorter than period");
		return -EINVAL;
	}
	return 0;
}

/* Sleep until absolute CLOCK_MONOTONIC t_ns.  0 at the deadline, 1 when
 * stopped, -errno on failure. */
static int sleep_until(const struct load_worker *w, int tfd, uint64_t t_ns)
{
	struct itimerspec its = { .it_value = { .tv_sec = (time_t)(t_ns / NSEC_PER_SEC),
						.tv_nsec = (long)(t_ns % NSEC_PER_SEC) } };
	struct pollfd pfd = { .fd = tfd, .events = POLLIN };
	sigset_t term, old, wait_mask;
	uint64_t expirations;
	int rc = 0;

	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL))
		return -errno;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	wait_mask = old;
	sigdelset(&wait_mask, SIGTERM);
	while (!*w->stop) {
		int n = ppoll(&pfd, 1, NULL, &wait_mask);
		if (n > 0) {
			if (read(tfd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
				rc = -errno;
			break;
		}
		if (n < 0 && errno != EINTR) {
			rc = -errno;
			break;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return *w->stop ? 1 : rc;
}

static int spike_run(struct load_worker *w)
{
	const uint64_t period = (uint64_t)load_opt_int(w->inst, "period");
	const uint64_t burst = (uint64_t)load_opt_int(w->inst, "burst");
	struct sched_param sp = { .sched_priority = spike_priority(w->inst) };
	int tfd, rc;

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		load_count_error(w->ctr, errno);

	while ((tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK)) < 0) {
		load_count_error(w->ctr, errno);
		load_sleep(w, NSEC_PER_SEC);
		if (*w->stop)
			return 0;
	}

	uint64_t now = util_now_ns(CLOCK_MONOTONIC);
	uint64_t next = (now / period + 1) * period;
	while (!*w->stop) {
		rc = sleep_until(w, tfd, next);
		if (rc > 0)
			break;
		if (rc < 0) {
			load_count_error(w->ctr, -rc);
			load_sleep(w, 100 * NSEC_PER_MSEC);
		} else {
			uint64_t end = util_now_ns(CLOCK_MONOTONIC) + burst;
			while (util_now_ns(CLOCK_MONOTONIC) < end && !*w->stop)
				;
			load_count(w->ctr, 1, 0);
		}
		now = util_now_ns(CLOCK_MONOTONIC);
		next += period;
		if (next <= now)
			next += (now - next) / period * period + period;
	}
	close(tfd);
	return 0;
}

static int spike_stats(const struct load_instance *inst, json_t *out)
{
	return util_json_set(out, "fifo_priority", json_integer(spike_priority(inst)));
}

const struct load_ops load_spike_ops = {
	.name = "spike",
	.summary = "periodic SCHED_FIFO busy bursts, aligned on all load CPUs; op = one burst",
	.options = spike_options,
	.check = spike_check,
	.run = spike_run,
	.stats = spike_stats,
};
