// SPDX-License-Identifier: GPL-2.0-or-later
/* session: one `rtsoak run` from validated options to a written report:
 * set-up, the probe threads, the housekeeping loop and the tear-down.  The
 * report and its outputs are session_output.c's, what `rtsoak ab` adds is
 * session_ab.c's; the state they share is `struct session`
 * (session_internal.h).
 *
 * Order matters: everything that can fail because of the machine
 * (privileges, CPUs, /dev/cpu_dma_latency) is checked before the first
 * probe starts, and once probes run, every way out (end of duration,
 * --loops done, SIGINT/SIGTERM/SIGHUP) goes through the same stop and
 * report path, so an interrupted run still leaves a complete report.
 * session_run reads as those steps: set_up, start_probes, measure,
 * wind_down, finish, tear_down.
 *
 * The main thread is the housekeeping thread: SCHED_OTHER, pinned away
 * from measured CPUs when there are others, and the only one that
 * receives the terminating signals (probe threads block them). */
#include <config.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exit.h"
#include "output.h"
#include "rt.h"
#include "session.h"
#include "session_internal.h"
#include "check.h"
#include "sysinfo.h"
#include "util.h"

/* Signal used to kick probe threads out of clock_nanosleep at the end of a
 * run, so that a long --interval does not delay the report. */
#define SESSION_KICK_SIGNAL SIGUSR2
/* --prom rewrites the textfile this often: node_exporter reads it at each
 * scrape, and a second is finer than any scrape interval. */
#define PROM_EVERY_NS (1 * NSEC_PER_SEC)

static void kick_handler(int sig)
{
	(void)sig; /* only there to interrupt clock_nanosleep */
}

static void *probe_main(void *arg)
{
	struct probe_thread *t = arg;
	struct session *s = (struct session *)t->priv;
	char name[16];
	sigset_t kick;
	int rc = 0;

	t->priv = NULL;
	t->tid = (pid_t)syscall(SYS_gettid);
	snprintf(name, sizeof(name), "rtsoak/%.3s/%d", t->ops->name, t->cpu);
	(void)pthread_setname_np(pthread_self(), name);
	sigemptyset(&kick);
	sigaddset(&kick, SESSION_KICK_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &kick, NULL);
	rt_prefault_stack(PROBE_STACK_PREFAULT);

	/* Allocate after pinning: the recorders land on this CPU's node. */
	for (unsigned i = 0; i < t->nrec && !rc; i++)
		for (unsigned p = 0; p < t->nphases && !rc; p++) {
			t->rec[i][p] = recorder_alloc(s->cfg->top_k, t->cpu);
			if (!t->rec[i][p]) {
				snprintf(t->err, sizeof(t->err), "cannot allocate the recorder");
				rc = -ENOMEM;
			}
		}
	if (!rc && !(t->feed = series_feed_alloc(t->cpu, s->cfg->series_ns, s->cfg->spike_threshold,
						 t->rec[0], t->nphases, t->phase))) {
		snprintf(t->err, sizeof(t->err), "cannot allocate the time series");
		rc = -ENOMEM;
	}
	if (!rc && t->ops->prepare)
		rc = t->ops->prepare(t);
	if (rc && !t->err[0])
		snprintf(t->err, sizeof(t->err), "set-up failed: %s", strerror(-rc));

	/* Everyone reports here, failed or not, so the session never hangs. */
	pthread_mutex_lock(&s->lock);
	s->ready++;
	pthread_cond_broadcast(&s->cond);
	while (!s->go)
		pthread_cond_wait(&s->cond, &s->lock);
	int go = s->go;
	pthread_mutex_unlock(&s->lock);
	if (!rc && go > 0)
		rc = t->ops->run(t);
	if (t->ops->cleanup)
		t->ops->cleanup(t);
	__atomic_add_fetch(&s->finished, 1, __ATOMIC_RELEASE);
	return (void *)(intptr_t)rc;
}

/* Open the gate: 1 to measure, -1 to send every probe home.  The probes
 * start at `start`; their samples count from t0 (start + the warm-up). */
static void open_gate(struct session *s, int go, uint64_t start, uint64_t t0)
{
	pthread_mutex_lock(&s->lock);
	for (unsigned i = 0; i < s->nthreads; i++) {
		s->threads[i].start_ns = start;
		s->threads[i].t0_ns = t0;
	}
	s->go = go;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

/* Wait until every created probe is ready; the first set-up error, if any. */
static const struct probe_thread *wait_ready(struct session *s)
{
	pthread_mutex_lock(&s->lock);
	while (s->ready < s->nthreads)
		pthread_cond_wait(&s->cond, &s->lock);
	pthread_mutex_unlock(&s->lock);
	for (unsigned i = 0; i < s->nthreads; i++)
		if (s->threads[i].err[0])
			return &s->threads[i];
	return NULL;
}

static int start_threads(struct session *s)
{
	struct run_config *cfg = s->cfg;
	unsigned ncpu = (unsigned)cpuset_count(&cfg->cpus), n = 0;
	int rc;

	rt_numa_warm(&cfg->cpus);
	s->threads = calloc((size_t)ncpu * cfg->nprobes, sizeof(*s->threads));
	if (!s->threads)
		return -ENOMEM;
	for (unsigned p = 0; p < cfg->nprobes; p++)
		for (int c = cpuset_next(&cfg->cpus, 0); c >= 0;
		     c = cpuset_next(&cfg->cpus, c + 1)) {
			struct probe_thread *t = &s->threads[n++];
			t->ops = cfg->probes[p].ops;
			t->pc = &cfg->probes[p];
			t->env = &cfg->probe_env;
			t->cpu = c;
			t->priority = cfg->no_rt ? 0 : cfg->priority;
			t->interval_ns = cfg->probes[p].interval_ns;
			t->loops = cfg->loops;
			t->stop = &s->stop;
			t->phase = &s->phases.current;
			t->nphases = s->phases.n;
			t->nrec = probe_config_result_count(t->pc);
			t->priv = s;
		}

	for (unsigned i = 0; i < n; i++) {
		struct probe_thread *t = &s->threads[i];
		rc = rt_thread_create(&t->thread, t->cpu, t->priority, PROBE_STACK_SIZE, probe_main,
				      t);
		if (rc) {
			rtsoak_error("cannot start the %s probe on CPU %d: %s", t->ops->name,
				     t->cpu, strerror(rc));
			return -rc;
		}
		s->nthreads++;
	}
	return 0;
}

/* Start what each probe family shares (e.g. the net probe's sender), once
 * its threads are measuring.  Returns 0, or -1 after printing why. */
static int start_families(struct session *s, struct report *r)
{
	struct run_config *cfg = s->cfg;
	char err[256];

	for (unsigned p = 0; p < cfg->nprobes; p++) {
		struct probe_family *f = &s->families[p];
		f->pc = &cfg->probes[p];
		f->env = &cfg->probe_env;
		f->t0_ns = s->t0;
		f->start_ns = s->threads[0].start_ns;
		f->count_from_ns = &s->count_from;
		f->stop = &s->stop;
		f->threads = calloc(s->nthreads, sizeof(*f->threads));
		if (!f->threads)
			return -1;
		for (unsigned i = 0; i < s->nthreads; i++)
			if (s->threads[i].pc == f->pc)
				f->threads[f->n++] = &s->threads[i];
		if (!f->pc->ops->family_start)
			continue;
		err[0] = '\0';
		if (f->pc->ops->family_start(f, err, sizeof(err)) < 0) {
			rtsoak_error("%s probe: %s", f->pc->ops->name,
				     err[0] ? err : "start failed");
			return -1;
		}
		s->family_started[p] = true;
		if (f->note[0]) {
			fprintf(stderr, "rtsoak: %s probe: %s\n", f->pc->ops->name, f->note);
			report_warn(r, "%s probe: %s", f->pc->ops->name, f->note);
		}
	}
	return 0;
}

static void stop_families(struct session *s)
{
	for (unsigned p = 0; p < s->cfg->nprobes; p++) {
		struct probe_family *f = &s->families[p];
		if (s->family_started[p] && f->pc->ops->family_stop)
			f->pc->ops->family_stop(f);
		s->family_started[p] = false;
		free(f->threads);
		f->threads = NULL;
	}
}

/* After a change of the stop flag, the counted time or the phase: each
 * probe thread's control word says the phase and PROBE_CTL_LOOK, stored
 * with release, so that the timer probe, whose common path checks only
 * that word, leaves it and sees the change (probe.h: probe_thread.ctl).
 * Only this thread stores the words; a probe only clears the flag. */
static void publish_phase(struct session *s, unsigned phase)
{
	const unsigned c = phase | PROBE_CTL_LOOK;

	for (unsigned i = 0; i < s->nthreads; i++)
		__atomic_store_n(&s->threads[i].ctl, c, __ATOMIC_RELEASE);
}

static void publish_ctl(struct session *s)
{
	publish_phase(s, s->phases.current);
}

/* From `at` (CLOCK_MONOTONIC) on, samples count: the session's copy and
 * each probe thread's (probe_counts). */
static void set_count_from(struct session *s, uint64_t at)
{
	__atomic_store_n(&s->count_from, at, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < s->nthreads; i++)
		__atomic_store_n(&s->threads[i].count_from_ns, at, __ATOMIC_RELAXED);
	publish_ctl(s);
}

/* Rotate to the next phase: ab's tweaks first (session_ab.c), then the
 * loads, then the probes' attribution. */
static void switch_phase(struct session *s, struct report *r)
{
	unsigned next = (s->phases.current + 1) % s->phases.n;
	uint64_t stop = util_now_ns(CLOCK_MONOTONIC) - s->t0;
	int rc;

	/* ab: nothing counts while the arms switch, nor for --settle after
	 * the switch, in either round: the tweaks' and the loads' transients
	 * belong to no arm. */
	if (s->cfg->ab)
		set_count_from(s, UINT64_MAX);
	if (s->cfg->ab && session_ab_switch(s, r, next) < 0)
		return;
	rc = s->sup ? load_supervisor_phase(s->sup, next, 5000) : 0;
	uint64_t t = util_now_ns(CLOCK_MONOTONIC) - s->t0;

	if (rc)
		report_warn(r, "phase '%s' at %.3f s: the loads did not switch in time: %s",
			    s->phases.name[next], (double)t / 1e9, strerror(-rc));
	/* The timer probe takes its phase from the control word: move it
	 * at t, before phase_switch reads the system counters (milliseconds,
	 * ~80 ms seen on a busy machine), or the wake-ups in between are
	 * booked to the old phase while their time is in the new one. */
	publish_phase(s, next);
	phase_switch(&s->phases, next, t);
	publish_ctl(s);
	if (s->cfg->ab) {
		set_count_from(s, s->t0 + t + s->cfg->settle_ns);
		session_ab_note_switch(s, r, next, stop, t);
	}
}

/* The time series' housekeeping side: one per probe thread, fed by
 * its first result.  Called once the probes' feeds exist. */
static int series_start(struct session *s)
{
	const struct run_config *cfg = s->cfg;

	s->series = calloc(s->nthreads, sizeof(*s->series));
	s->qwork = calloc(1, sizeof(*s->qwork));
	if (!s->series || !s->qwork)
		return -ENOMEM;
	for (unsigned i = 0; i < s->nthreads; i++)
		if (series_init(&s->series[i], s->threads[i].feed, cfg->series_ns,
				cfg->series_limit) < 0)
			return -EINVAL;
	/* --spike-threshold auto: after the first 5 s, or a quarter of a
	 * shorter run, so that short runs get one too. */
	s->auto_threshold_ns = SERIES_AUTO_WARMUP_NS;
	if (cfg->duration_ns && cfg->duration_ns < 4 * SERIES_AUTO_WARMUP_NS)
		s->auto_threshold_ns = cfg->duration_ns / 4;
	s->thresholds_set = cfg->spike_threshold != SERIES_THRESHOLD_AUTO;
	if (s->thresholds_set)
		for (unsigned i = 0; i < s->nthreads; i++)
			series_set_threshold(&s->series[i], cfg->spike_threshold, 0);
	return 0;
}

/* SERIES_AUTO_FACTOR x the median so far of each thread's first result,
 * over all phases; a result without samples yet is retried next time. */
static void series_auto_thresholds(struct session *s, uint64_t at_ns)
{
	struct recorder *scratch = recorder_alloc(s->cfg->top_k, -1);
	struct recorder *acc = recorder_alloc(s->cfg->top_k, -1);
	bool all = true;

	if (!scratch || !acc)
		goto out;
	for (unsigned i = 0; i < s->nthreads; i++) {
		const struct probe_thread *t = &s->threads[i];
		if (s->series[i].threshold_ns)
			continue;
		recorder_init(acc, s->cfg->top_k, (struct recorder_sample *)(acc + 1));
		for (unsigned p = 0; p < t->nphases; p++) {
			recorder_snapshot(scratch, t->rec[0][p]);
			recorder_merge(acc, scratch);
		}
		if (!acc->count) {
			all = false;
			continue;
		}
		uint64_t median = histogram_percentile(&acc->hist, 50, acc->min, acc->max);
		series_set_threshold(&s->series[i], SERIES_AUTO_FACTOR * median, at_ns);
	}
	s->thresholds_set = all;
out:
	recorder_free(scratch);
	recorder_free(acc);
}

/* Housekeeping tick: move what the probes closed into the series. */
static void series_tick(struct session *s, uint64_t now)
{
	for (unsigned i = 0; i < s->nthreads; i++) {
		(void)series_drain(&s->series[i]); /* ENOMEM: the ring keeps it for later */
		/* ENOMEM: the samples go to the next quantile interval */
		(void)series_quant_tick(&s->series[i], now - s->t0, s->qwork);
	}
	if (!s->thresholds_set && now - s->t0 >= s->auto_threshold_ns)
		series_auto_thresholds(s, now - s->t0);
}

/* Wait for the end of the run: duration, all probes done, or a signal;
 * switch phases on the way.  Returns the signal that ended it, or 0. */
static int wait_for_end(struct session *s, struct report *r)
{
	sigset_t set;
	uint64_t t0 = s->t0;
	uint64_t deadline = s->cfg->duration_ns ? t0 + s->cfg->duration_ns : UINT64_MAX;
	uint64_t next_switch = s->phases.rotate ? t0 + s->phases.phase_ns : UINT64_MAX;
	char why[PATH_MAX + 160];
	/* Only a file is checkpointed (SIGUSR1 too), and only a file or
	 * standard output gets the textfile every second: a FIFO would stall
	 * the run until read, and a device gets the final one only.  A path
	 * that cannot be written right now is still tried each time, and
	 * each failure counted. */
	int out_kind = output_check(s->cfg->output, NULL, why, sizeof(why));
	bool can_checkpoint = out_kind == OUTPUT_FILE || out_kind < 0;
	int prom_kind =
	    s->cfg->prom[0] ? output_check(s->cfg->prom, NULL, why, sizeof(why)) : OUTPUT_IN_PLACE;
	uint64_t every = s->cfg->checkpoint_ns;
	uint64_t next_checkpoint = can_checkpoint && every ? t0 + every : UINT64_MAX;
	uint64_t next_prom = prom_kind != OUTPUT_IN_PLACE ? t0 + PROM_EVERY_NS : UINT64_MAX;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	for (;;) {
		uint64_t now = util_now_ns(CLOCK_MONOTONIC);
		if (now >= deadline)
			return 0;
		if (__atomic_load_n(&s->finished, __ATOMIC_ACQUIRE) == s->nthreads)
			return 0;
		if (now >= next_switch) {
			switch_phase(s, r);
			if (s->tweak_failed)
				return 0;
			next_switch += s->phases.phase_ns;
			continue;
		}
		series_tick(s, now);
		session_trace_tick(s, false);
		session_onspike_tick(s, r, now);
		if (now >= next_checkpoint || now >= next_prom) {
			bool cp = now >= next_checkpoint, prom = now >= next_prom;
			session_output_publish(s, r, cp, prom, false);
			if (cp)
				next_checkpoint += every;
			if (prom)
				next_prom = now + PROM_EVERY_NS;
			continue;
		}
		progress_tick(&s->prog, now, s->threads, s->nthreads, s->last_checkpoint);
		/* Housekeeping tick: 100 ms keeps --loops runs prompt and costs
		 * nothing on the measured CPUs. */
		uint64_t until = deadline < next_switch ? deadline : next_switch;
		if (next_checkpoint < until)
			until = next_checkpoint;
		if (next_prom < until)
			until = next_prom;
		/* Just after a quantile interval's end: the snapshot's samples
		 * are then that interval's (series.h).  Half a probe interval
		 * later still, so that this wake-up falls between two of the
		 * probes' deadlines rather than on one (the end of an interval
		 * is on their grid). */
		uint64_t due =
		    s->nthreads ? t0 + series_quant_due_ns(&s->series[0]) + s->cfg->interval_ns / 2
				: UINT64_MAX;
		/* (one that passed is one whose snapshot failed: the next tick
		 * tries again, no wake-up for it) */
		if (due > now && due < until)
			until = due;
		/* --trace: the kernel's per-CPU buffers hold about a quarter of a
		 * second of a busy CPU's events; read them every 20 ms when they
		 * fill that fast (session_trace_tick_ns). */
		uint64_t tick = s->trace ? session_trace_tick_ns(s) : 100 * NSEC_PER_MSEC;
		/* The time again: the tick's work (the drains, the quantile
		 * snapshots, the trace buffers) took some, and a wait from the
		 * loop's first reading would switch phases (ab's rounds) late
		 * by as much, and by more when it passed `until` (the wait is
		 * then a whole tick). */
		now = util_now_ns(CLOCK_MONOTONIC);
		if (now >= until)
			continue;
		uint64_t wait = until - now < tick ? until - now : tick;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)wait };
		int sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGUSR1) {
			if (can_checkpoint)
				session_output_publish(s, r, true, false, true);
			continue;
		}
		if (sig > 0)
			return sig;
	}
}

static int stop_threads(struct session *s)
{
	int failed = 0;

	__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
	publish_ctl(s);
	for (unsigned i = 0; i < s->nthreads; i++)
		pthread_kill(s->threads[i].thread, SESSION_KICK_SIGNAL);
	for (unsigned i = 0; i < s->nthreads; i++) {
		void *ret;
		pthread_join(s->threads[i].thread, &ret);
		if (ret) {
			rtsoak_error("%s probe on CPU %d: %s", s->threads[i].ops->name,
				     s->threads[i].cpu, s->threads[i].err);
			failed = 1;
		}
	}
	return failed;
}

static void free_threads(struct session *s)
{
	if (!s->threads)
		return;
	for (unsigned i = 0; i < s->nthreads; i++) {
		for (unsigned k = 0; k < s->threads[i].nrec; k++)
			for (unsigned p = 0; p < s->threads[i].nphases; p++)
				recorder_free(s->threads[i].rec[k][p]);
		series_feed_free(s->threads[i].feed);
		if (s->series)
			series_free(&s->series[i]);
	}
	free(s->series);
	free(s->qwork);
	free(s->ab_switches);
	free(s->threads);
}

/* Pin the housekeeping (main) thread: the user's choice, or every allowed
 * CPU that is not measured; unpinned when all CPUs are measured. */
static void pin_housekeeping(struct run_config *cfg, struct report *r)
{
	struct cpuset hk;

	if (cfg->housekeeping_given) {
		hk = cfg->housekeeping;
	} else {
		if (cpuset_allowed(&hk) < 0)
			return;
		cpuset_andnot(&hk, &cfg->cpus);
	}
	if (cpuset_empty(&hk)) {
		cpuset_clear(&cfg->housekeeping);
		return;
	}
	if (rt_pin_self(&hk) < 0) {
		report_warn(r, "could not pin the housekeeping thread");
		cpuset_clear(&cfg->housekeeping);
		return;
	}
	cfg->housekeeping = hk;
}

static int check_environment(struct run_config *cfg, struct report *r, int *dma_fd)
{
	struct cpuset allowed;
	char err[512];
	long runtime, period;
	int c, rc;

	if (cpuset_allowed(&allowed) == 0 &&
	    (c = cpuset_first_missing(&cfg->cpus, &allowed)) >= 0) {
		char list[512];
		cpuset_format(&allowed, list, sizeof(list));
		rtsoak_error("--cpus: CPU %d is not in this process's affinity mask (allowed: %s)",
			     c, list);
		return EXIT_ENV;
	}
	if (cfg->no_rt) {
		report_warn(
		    r, "--no-rt: probes ran as SCHED_OTHER; latencies include the fair scheduler");
	} else if (rt_check_fifo(cfg->priority, err, sizeof(err)) < 0) {
		rtsoak_error("%s", err);
		return EXIT_ENV;
	}
	rc = rt_lock_memory(err, sizeof(err));
	if (rc == 2) {
		report_warn(r, "%s", err);
	} else if (rc == 1) {
		report_warn(r, "built with AddressSanitizer: memory not locked (mlockall skipped)");
	} else if (rc < 0) {
		if (!cfg->no_rt) {
			rtsoak_error("%s", err);
			return EXIT_ENV;
		}
		report_warn(r, "%s", err);
	}
	if (cfg->dma_latency_us >= 0) {
		*dma_fd = rt_dma_latency_hold(cfg->dma_latency_us, err, sizeof(err));
		if (*dma_fd < 0) {
			rtsoak_error("%s", err);
			return EXIT_ENV;
		}
	}
	if (!cfg->no_rt && rt_throttling(&runtime, &period) == 0 && runtime >= 0)
		report_warn(
		    r,
		    "RT throttling is on (sched_rt_runtime_us=%ld of %ld): SCHED_FIFO tasks get "
		    "at most that share of each period, which can delay probes under RT load",
		    runtime, period);
	return -1;
}

/* Fork the load supervisor (before any probe thread exists) and remove
 * what a killed earlier run left in the workdir. */
static int start_loads(struct session *s, struct report *r)
{
	struct run_config *cfg = s->cfg;
	char err[512] = "";
	int n = load_leftovers_clean(cfg->workdir, err, sizeof(err));

	if (n > 0) {
		rtsoak_error("%s", err);
		report_warn(r, "%s", err);
	}
	err[0] = '\0';
	if (load_supervisor_start(&s->sup, cfg->loads, cfg->nloads, s->phases.mask, s->phases.n,
				  &cfg->housekeeping, err, sizeof(err)) < 0) {
		rtsoak_error("--loads: %s", err);
		return EXIT_ENV;
	}
	return -1;
}

/* --set: journal, write, read back.  A value the kernel does not take is
 * an environment error (exit 3); everything written is restored. */
static int apply_tweaks(struct run_config *cfg)
{
	char err[1024];
	int rc = tweak_apply(&cfg->tweaks, err, sizeof(err));

	if (rc == 0)
		return -1;
	rtsoak_error("--set: %s", rc == -ENOMEM ? "out of memory" : err);
	return EXIT_ENV;
}

static char restore_err[1024];

static int restore_tweaks(struct run_config *cfg)
{
	return tweak_restore(&cfg->tweaks, restore_err, sizeof(restore_err));
}

/* The tuning checks (src/sys/check.c) of the machine as it is measured: after the tweaks and
 * with /dev/cpu_dma_latency held, so the report says what this run had.  They take a few ms
 * (rtsoak check on this 2-CPU guest: ~10 ms, the process scan and /proc/interrupts most).
 * A root that cannot be opened leaves the report without checks and says so. */
static int fill_checks(struct report *r, struct run_config *cfg)
{
	struct check_result *res = calloc(check_count ? check_count : 1, sizeof(*res));
	struct check_ctx ctx;
	char err[256];

	if (!res)
		return -ENOMEM;
	if (check_ctx_open(&ctx, NULL, &cfg->cpus, &cfg->housekeeping,
			   cfg->no_rt ? 0 : cfg->priority, cfg->interval_ns, err, sizeof(err))) {
		free(res);
		return report_warn(r, "tuning checks not run: %s", err) ? -ENOMEM : 0;
	}
	check_run(&ctx, res);
	/* the configuration the checks read, for the snapshot too */
	json_t *kc = check_config_json(&ctx), *kt = check_proc_kthreads_json(&ctx),
	       *irqs = check_irq_json(&ctx);
	check_ctx_close(&ctx);
	r->checks = check_json(res, check_count);
	free(res);
	if (!kc || json_object_set_new(r->system, "kernel_config", kc) ||
	    json_object_set_new(r->system, "kthreads", kt ? kt : json_null()) ||
	    json_object_set_new(r->system, "irqs", irqs ? irqs : json_null()))
		return -ENOMEM;
	return r->checks ? 0 : -ENOMEM;
}

static int fill_header(struct report *r, struct run_config *cfg)
{
	r->tool_version = strdup(PACKAGE_VERSION);
	r->argv = calloc((size_t)cfg->argc + 1, sizeof(*r->argv));
	if (!r->tool_version || !r->argv)
		return -ENOMEM;
	for (int i = 0; i < cfg->argc; i++)
		if (!(r->argv[r->argc++] = strdup(cfg->argv[i])))
			return -ENOMEM;
	r->realtime = !cfg->no_rt;
	r->system = sysinfo_snapshot();
	if (!r->system || sysinfo_record(r->system, cfg->record, cfg->nrecord) < 0)
		return -ENOMEM;
	return fill_checks(r, cfg);
}

/* A shell starts background jobs with SIGINT ignored, and an ignored
 * signal is discarded before sigtimedwait could see it: take SIGINT and
 * SIGTERM back.  An ignored SIGHUP is left alone (nohup). */
static void take_signals(void)
{
	struct sigaction sa = { .sa_handler = kick_handler };
	sigset_t block;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	/* Probe threads inherit this mask: only the main thread takes the
	 * terminating signals, and only via sigtimedwait. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGUSR1); /* "checkpoint now" */
	sigaddset(&block, SESSION_KICK_SIGNAL);
	pthread_sigmask(SIG_BLOCK, &block, NULL);
	sigaction(SESSION_KICK_SIGNAL, &sa, NULL);
}

/* Everything before the first probe thread: the environment checks, the
 * tweaks, the housekeeping pin, the report's header and system snapshot,
 * the phase plan and the loads.  Returns an exit code, or -1 to go on. */
static int set_up(struct session *s, struct report *r)
{
	struct run_config *cfg = s->cfg;
	int rc;

	if ((rc = check_environment(cfg, r, &s->dma_fd)) >= 0)
		return rc;
	/* Tweaks before the snapshot, so that it shows the tweaked system;
	 * ab starts with a baseline round and applies them at its B rounds. */
	if (!cfg->ab && (rc = apply_tweaks(cfg)) >= 0)
		return rc;
	pin_housekeeping(cfg, r);
	cfg->probe_env.housekeeping = cfg->housekeeping; /* as decided: the probes see it */
	if (fill_header(r, cfg) < 0) {
		rtsoak_error("out of memory while taking the system snapshot");
		return EXIT_ENV;
	}
	phase_plan_init(&s->phases, cfg);
	if (cfg->trace) {
		char err[512];
		if (session_trace_start(s, err, sizeof(err)) < 0) {
			rtsoak_error("--trace: %s", err);
			return EXIT_ENV;
		}
	}
	if (cfg->nloads && (rc = start_loads(s, r)) >= 0)
		return rc;
	return -1;
}

/* Create the probe threads and wait until each has set up; then the
 * housekeeping side of their series.  Returns an exit code (every thread
 * sent home), or -1 to go on. */
static int start_probes(struct session *s, struct report *r)
{
	const struct probe_thread *bad;
	int rc;

	rc = start_threads(s);
	bad = wait_ready(s);
	if (rc < 0 || bad) {
		if (bad)
			rtsoak_error("%s probe on CPU %d: %s", bad->ops->name, bad->cpu, bad->err);
		open_gate(s, -1, 0, 0);
		stop_threads(s);
		return EXIT_ENV;
	}
	/* The probes' recorders and feeds exist now: lock them too when only
	 * MCL_CURRENT was possible (rt_lock_memory). */
	if ((rc = rt_lock_memory_again()) < 0)
		report_warn(r, "could not lock the probes' memory after set-up: %s", strerror(-rc));
	if (series_start(s) < 0) {
		rtsoak_error("out of memory for the time series");
		open_gate(s, -1, 0, 0);
		stop_threads(s);
		return EXIT_ENV;
	}
	/* --trace: the timer probes' tids known, their own wake-ups from idle
	 * are left out of the instance; where that fails they are recorded,
	 * at the old cost, and the report says so. */
	if (session_trace_probes(s) < 0)
		report_warn(r,
			    "--trace: %s; the probes' own wake-ups are recorded, at a higher cost",
			    session_trace_filter_error(s));
	return -1;
}

/* --warmup: the probes and loads run, nothing counts (their samples have
 * negative times).  Only a terminating signal ends it early; --trace keeps
 * reading its buffers.  Returns the signal, or 0 at t0. */
static int wait_warmup(struct session *s)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	for (;;) {
		uint64_t now = util_now_ns(CLOCK_MONOTONIC);
		if (now >= s->t0)
			return 0;
		if (__atomic_load_n(&s->finished, __ATOMIC_ACQUIRE) == s->nthreads)
			return 0;
		session_trace_tick(s, false);
		uint64_t tick = s->trace ? session_trace_tick_ns(s) : 100 * NSEC_PER_MSEC;
		uint64_t wait = s->t0 - now < tick ? s->t0 - now : tick;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)wait };
		int sig = sigtimedwait(&set, NULL, &ts);
		if (sig > 0)
			return sig;
	}
}

/* Open the gate, run the housekeeping loop until the end, stop the probes:
 * sets s->sig, s->end and s->failed. */
static void measure(struct session *s, struct report *r)
{
	struct run_config *cfg = s->cfg;
	uint64_t start;
	int rc;

	/* The first phase's loads run before the first sample: measure them
	 * in their steady state, not their start-up. */
	if (s->sup && (rc = load_supervisor_phase(s->sup, 0, 5000)) < 0)
		report_warn(r, "the loads did not start in time: %s", strerror(-rc));
	/* Time 0 is the end of the warm-up: every time in the report, and
	 * --duration, count from there. */
	s->start_rt = util_now_ns(CLOCK_REALTIME) + cfg->warmup_ns;
	start = util_now_ns(CLOCK_MONOTONIC);
	s->t0 = start + cfg->warmup_ns;
	/* ab: the first round settles like every other (start-up in no arm). */
	set_count_from(s, s->t0 + (cfg->ab ? cfg->settle_ns : 0));
	open_gate(s, 1, start, s->t0);

	if (start_families(s, r) < 0) {
		s->sig = 0;
		s->failed = 1;
		report_warn(r, "a probe failed to start its shared part; see the log");
		stop_threads(s);
		phase_begin(&s->phases, 0, 0);
		return;
	}
	s->sig = wait_warmup(s);
	/* The phase (and its system counters) begins with the counted time. */
	phase_begin(&s->phases, 0, 0);
	progress_init(&s->prog, cfg->quiet, s->t0, cfg->duration_ns);
	if (!s->sig)
		s->sig = wait_for_end(s, r);
	/* The run ends when the probes are told to stop: joining them and
	 * the net sender can take a while on a busy machine, and that is
	 * not time the probes measured.  A run stopped in its warm-up lasted
	 * 0 s. */
	s->end = util_now_ns(CLOCK_MONOTONIC);
	if (s->end < s->t0)
		s->end = s->t0;
	progress_done(&s->prog);
	s->failed = stop_threads(s);
}

/* After the probes: their families and series closed, the run's times,
 * the loads stopped and the tweaks restored, and the report's status and
 * warnings. */
static void wind_down(struct session *s, struct report *r)
{
	struct run_config *cfg = s->cfg;

	stop_families(s);
	for (unsigned i = 0; i < s->nthreads; i++)
		if (series_flush(&s->series[i]) < 0 ||
		    series_quant_flush(&s->series[i], s->qwork) < 0)
			report_warn(r,
				    "out of memory: the time series of %s on CPU %d is incomplete",
				    s->threads[i].pc->results[0], s->threads[i].cpu);
	session_trace_tick(s, true);
	session_onspike_end(s, r);
	session_output_set_times(r, s, (s->end ? s->end : util_now_ns(CLOCK_MONOTONIC)) - s->t0);
	phase_end(&s->phases, r->duration_ns);
	/* --schedule rotate: a phase the run ended before (a --loops run, a
	 * signal) is in the report with no sample; say so, once for each. */
	if (cfg->rotate && !cfg->ab) {
		char name[sizeof(s->phases.name[0])];
		for (int k = phase_never_ran(&s->phases, 0, name, sizeof(name)); k >= 0;
		     k = phase_never_ran(&s->phases, (unsigned)k + 1, name, sizeof(name)))
			report_warn(r,
				    "phase '%s' never ran: the run ended before its turn (no "
				    "samples)",
				    name);
	}
	s->failed |= s->tweak_failed;
	/* Loads stopped, the machine goes back to how it was before the
	 * report is written: a failure is in the report, the journal stays. */
	load_supervisor_stop(s->sup);
	for (unsigned i = 0; s->sup && i < cfg->nloads; i++) {
		char note[256];
		if (load_supervisor_warning(s->sup, i, note, sizeof(note)))
			report_warn(r, "%s", note);
	}
	if (restore_tweaks(cfg) < 0) {
		report_warn(r, "--set: %s", restore_err);
		s->restore_failed = true;
	}
	session_output_note_failures(s, r);
	/* Complete or interrupted becomes disturbed when the results are built
	 * and a probe's counters say so (session_output.c, foreign_warning). */
	r->status = s->failed ? REPORT_FAILED : s->sig ? REPORT_INTERRUPTED : REPORT_COMPLETE;
	if (s->sig)
		report_warn(r, "interrupted by %s", strsignal(s->sig));
}

/* Build the final report (and ab's verdict), write and print it.  Returns
 * the exit code before tear_down's corrections. */
static int finish(struct session *s, struct report *r)
{
	struct run_config *cfg = s->cfg;

	if (session_output_build(r, s, false, true) < 0 ||
	    (cfg->ab && session_ab_verdict(s, r) < 0)) {
		rtsoak_error("out of memory while building the report");
		return EXIT_ENV;
	}
	if (session_output_write(s, r) < 0)
		return EXIT_ENV;
	if (cfg->ab && !s->failed)
		return session_ab_exit(&s->ab, cfg);
	return s->failed ? EXIT_ENV : EXIT_OK;
}

/* Every way out, from any step: the exit code corrected for the writes and
 * the restore, and everything released. */
static int tear_down(struct session *s, struct report *r, int rc)
{
	struct run_config *cfg = s->cfg;

	/* A report or view that did not reach its path is an environment
	 * failure, whatever the measurement said. */
	if (s->write_failed)
		rc = EXIT_ENV;
	/* Every way out restores (idempotent after the one in wind_down). */
	if (restore_tweaks(cfg) < 0 || s->restore_failed) {
		/* The report is written; the machine is not as it was. */
		rtsoak_error("--set: %s", restore_err);
		rc = EXIT_ENV;
	}
	if (session_trace_stop(s) < 0)
		rc = EXIT_ENV;
	session_onspike_free(s);
	load_supervisor_stop(s->sup);
	load_supervisor_free(s->sup);
	for (unsigned i = 0; i < cfg->nloads; i++)
		load_instance_free(&cfg->loads[i]);
	for (unsigned i = 0; i < cfg->nprobes; i++)
		probe_config_free(&cfg->probes[i]);
	phase_plan_free(&s->phases);
	if (s->dma_fd >= 0)
		close(s->dma_fd);
	free_threads(s);
	compare_free(&s->ab);
	serieslog_close(&s->log, false); /* still open: the final report did not replace it */
	report_free(r);
	return rc;
}

int session_run(struct run_config *cfg)
{
	struct session s = {
		.cfg = cfg,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
		.dma_fd = -1,
		.log = { .fd = -1 },
	};
	struct report r = { 0 };
	int rc;

	take_signals();
	if ((rc = set_up(&s, &r)) < 0 && (rc = start_probes(&s, &r)) < 0) {
		measure(&s, &r);
		wind_down(&s, &r);
		rc = finish(&s, &r);
	}
	return tear_down(&s, &r, rc);
}
