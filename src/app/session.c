/* session: set up, measure, stop, report.
 *
 * Order matters: everything that can fail because of the machine
 * (privileges, CPUs, /dev/cpu_dma_latency) is checked before the first
 * probe starts, and once probes run, every way out (end of duration,
 * --loops done, SIGINT/SIGTERM/SIGHUP) goes through the same stop and
 * report path, so an interrupted run still leaves a complete report.
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "analysis.h"
#include "compare.h"
#include "phase.h"
#include "probe.h"
#include "progress.h"
#include "report.h"
#include "rt.h"
#include "session.h"
#include "output.h"
#include "supervisor.h"
#include "sysinfo.h"
#include "util.h"
#include "views.h"

/* Signal used to kick probe threads out of clock_nanosleep at the end of a
 * run, so that a long --interval does not delay the report. */
#define SESSION_KICK_SIGNAL SIGUSR2
#define PROBE_STACK_SIZE (256 * 1024)
#define PROBE_STACK_PREFAULT (64 * 1024)
/* --prom rewrites the textfile this often: node_exporter reads it at each
 * scrape, and a second is finer than any scrape interval. */
#define PROM_EVERY_NS (1 * NSEC_PER_SEC)

struct session {
	struct run_config *cfg;
	struct probe_thread *threads;
	unsigned nthreads;
	/* Start gate: probes report ready, then wait for `go` (1: measure,
	 * -1: abort).  A mutex and a condvar, not a barrier, because the
	 * number of threads that will arrive is only known once they are all
	 * created. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned ready;
	int go;
	int stop;	   /* read by probes with relaxed atomics */
	unsigned finished; /* probes whose loop has returned */
	struct phase_plan phases;
	struct load_supervisor *sup;
	uint64_t t0;
	struct probe_family families[CLI_MAX_PROBES];
	bool family_started[CLI_MAX_PROBES];
	uint64_t start_rt; /* CLOCK_REALTIME at t0 */
	unsigned checkpoint_failures;
	int checkpoint_errno;
	uint64_t last_checkpoint; /* CLOCK_MONOTONIC of the last good one, 0: none */
	struct progress prog;
	struct series *series; /* per thread: its first result's */
	bool thresholds_set;
	uint64_t warmup_ns; /* --spike-threshold auto: set after this long */
	unsigned prom_failures;
	int prom_errno;
	bool tweak_failed; /* ab: a switch could not apply or restore the tweaks */
};

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

/* Open the gate: 1 to measure, -1 to send every probe home. */
static void open_gate(struct session *s, int go, uint64_t t0)
{
	pthread_mutex_lock(&s->lock);
	for (unsigned i = 0; i < s->nthreads; i++)
		s->threads[i].t0_ns = t0;
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

/* Rotate to the next phase: loads first, then the probes' attribution. */
static void switch_phase(struct session *s, struct report *r)
{
	unsigned next = (s->phases.current + 1) % s->phases.n;
	int rc;

	/* ab: tweaks change at the end of the old round, so the disturbance
	 * of the writes lands in A and B rounds alike (ABBA). */
	if (s->cfg->ab &&
	    phase_ab_arm(&s->phases, next) != phase_ab_arm(&s->phases, s->phases.current)) {
		char err[1024];
		if (phase_ab_arm(&s->phases, next) == 'B')
			rc = tweak_apply(&s->cfg->tweaks, err, sizeof(err));
		else
			rc = tweak_unapply(&s->cfg->tweaks, err, sizeof(err));
		if (rc < 0) {
			progress_done(&s->prog);
			rtsoak_error("ab: round %s: %s", s->phases.name[next], err);
			report_warn(r, "ab: round %s: %s; the run ended there",
				    s->phases.name[next], err);
			s->tweak_failed = true;
			return;
		}
	}
	rc = s->sup ? load_supervisor_phase(s->sup, next, 5000) : 0;
	uint64_t t = util_now_ns(CLOCK_MONOTONIC) - s->t0;

	if (rc)
		report_warn(r, "phase '%s' at %.3f s: the loads did not switch in time: %s",
			    s->phases.name[next], (double)t / 1e9, strerror(-rc));
	phase_switch(&s->phases, next, t);
}

static int build_report(struct report *r, struct session *s, bool live, bool full);

static void set_times(struct report *r, const struct session *s, uint64_t duration_ns)
{
	r->duration_ns = duration_ns;
	util_iso8601(s->start_rt, r->start, sizeof(r->start));
	util_iso8601(s->start_rt + duration_ns, r->end, sizeof(r->end));
}

/* The time series' housekeeping side: one per probe thread, fed by
 * its first result.  Called once the probes' feeds exist. */
static int series_start(struct session *s)
{
	const struct run_config *cfg = s->cfg;

	s->series = calloc(s->nthreads, sizeof(*s->series));
	if (!s->series)
		return -ENOMEM;
	for (unsigned i = 0; i < s->nthreads; i++)
		if (series_init(&s->series[i], s->threads[i].feed, cfg->series_ns,
				cfg->series_limit) < 0)
			return -EINVAL;
	/* --spike-threshold auto: after the first 5 s, or a quarter of a
	 * shorter run, so that short runs get one too. */
	s->warmup_ns = SERIES_AUTO_WARMUP_NS;
	if (cfg->duration_ns && cfg->duration_ns < 4 * SERIES_AUTO_WARMUP_NS)
		s->warmup_ns = cfg->duration_ns / 4;
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
	for (unsigned i = 0; i < s->nthreads; i++)
		(void)series_drain(&s->series[i]); /* ENOMEM: the ring keeps it for later */
	if (!s->thresholds_set && now - s->t0 >= s->warmup_ns)
		series_auto_thresholds(s, now - s->t0);
}

/* Lend the series to the report: it is written on this (housekeeping)
 * thread, the only one that changes them, and cleared or freed before they
 * change again.  A copy would double their memory at every checkpoint. */
static int add_series(struct report *r, struct session *s)
{
	for (unsigned i = 0; s->series && i < s->nthreads; i++) {
		const struct probe_thread *t = &s->threads[i];
		const struct series *se = &s->series[i];
		struct report_series *rs = report_add_series(r, t->pc->results[0], t->cpu);
		if (!rs)
			return -ENOMEM;
		rs->interval_ns = series_interval_ns(se);
		rs->n = se->n;
		rs->threshold_ns = se->threshold_ns;
		rs->threshold_at_ns = se->threshold_at_ns;
		rs->spikes_total = se->spikes_total;
		rs->spikes_overwritten = se->spikes_overwritten;
		rs->spikes_unlogged = se->spikes_unlogged;
		rs->stalls = __atomic_load_n(&se->feed->stalls, __ATOMIC_RELAXED);
		rs->nspikes = se->nspikes;
		rs->v = se->v;
		rs->spikes = se->spikes;
		rs->borrowed = true;
	}
	return 0;
}

/* What a failed checkpoint left on disk: the previous one only if it is
 * still there (its directory may be what went away). */
static const char *checkpoint_left(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct stat st;

	if (stat(path, &st) == 0)
		return "kept the previous one";
	if (errno != ENOENT)
		return "the previous one cannot be checked";
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
	if (stat(dir, &st) < 0)
		return "its directory is gone, and no checkpoint with it";
	return "no earlier checkpoint is on disk";
}

/* Build the live report once and write what is due: the checkpoint, so
 * that a run killed in hour 23 still leaves 22 hours on disk, and/or the
 * OpenMetrics textfile.  A failed checkpoint (disk full) keeps the previous
 * one (the write is atomic) and is retried at the next one. */
static void publish(struct session *s, struct report *r, bool json, bool prom)
{
	size_t keep = r->nwarnings;
	int rc, wrc;

	set_times(r, s, util_now_ns(CLOCK_MONOTONIC) - s->t0);
	r->status = REPORT_RUNNING;
	/* Series and analysis only go into the JSON: the textfile, rewritten
	 * every second, needs neither copy. */
	rc = build_report(r, s, true, json);
	if (json) {
		wrc = rc ? rc : report_json_write(r, s->cfg->output);
		if (!wrc) {
			s->last_checkpoint = util_now_ns(CLOCK_MONOTONIC);
		} else {
			progress_done(&s->prog);
			s->checkpoint_failures++;
			s->checkpoint_errno = -wrc;
			fprintf(stderr, "rtsoak: checkpoint of '%s' failed: %s (%s)\n",
				s->cfg->output, strerror(-wrc), checkpoint_left(s->cfg->output));
		}
	}
	if (prom) {
		wrc = rc ? rc : report_prom_write(r, s->cfg->prom);
		/* Once a second: say it the first time, count the rest. */
		if (wrc && !s->prom_failures++) {
			progress_done(&s->prog);
			fprintf(stderr, "rtsoak: --prom: cannot write '%s': %s (will retry)\n",
				s->cfg->prom, strerror(-wrc));
		}
		if (wrc)
			s->prom_errno = -wrc;
	}
	report_clear_results(r, keep);
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
		if (now >= next_checkpoint || now >= next_prom) {
			bool cp = now >= next_checkpoint, prom = now >= next_prom;
			publish(s, r, cp, prom);
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
		uint64_t wait =
		    until - now < 100 * NSEC_PER_MSEC ? until - now : 100 * NSEC_PER_MSEC;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)wait };
		int sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGUSR1) {
			if (can_checkpoint)
				publish(s, r, true, false);
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

static int add_result(struct report *r, const struct probe_thread *t, unsigned k, const char *phase,
		      const struct recorder *rec)
{
	struct report_result *res = report_add_result(r, false, t->pc->results[k], t->cpu, phase);

	if (!res || !rec || report_result_from_recorder(res, rec))
		return -ENOMEM;
	/* Counters are per thread, not per phase: they go on the union. */
	if (t->ops->counters && !strcmp(phase, "all")) {
		res->counters = json_object();
		if (!res->counters)
			return -ENOMEM;
		t->ops->counters(t, k, res->counters);
		/* A probe that sent and never heard back (net.rtt to a reflector
		 * that was never up) ran fine but measured nothing: say so. */
		json_int_t sent = json_integer_value(json_object_get(res->counters, "sent"));
		json_int_t received =
		    json_integer_value(json_object_get(res->counters, "received"));
		const char *to = strstr(t->pc->spec, "target=");
		if (k == 0 && sent > 0 && received == 0 &&
		    report_warn(r, "%s on CPU %d: 100 %% loss%s%s (%lld sent, none answered)",
				t->pc->results[k], t->cpu, to ? " to " : "", to ? to + 7 : "",
				(long long)sent) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* One result per (probe result, CPU, phase); with several phases also their
 * union as phase "all", built by the same merge as the aggregates. */
/* The recorder to report: the probe's own after the run, or a consistent
 * copy of it (into `scratch`) while the probe is still writing it. */
static const struct recorder *source(const struct recorder *rec, struct recorder *scratch)
{
	if (!scratch)
		return rec;
	recorder_snapshot(scratch, rec);
	return scratch;
}

static int build_results(struct report *r, struct session *s, bool live)
{
	const struct phase_plan *ph = &s->phases;
	struct recorder *scratch = live ? recorder_alloc(s->cfg->top_k, -1) : NULL;
	struct recorder *all = ph->n > 1 ? recorder_alloc(s->cfg->top_k, -1) : NULL;
	struct recorder *arm[2] = { NULL, NULL };
	int rc = -ENOMEM;

	if ((live && !scratch) || (ph->n > 1 && !all))
		goto out;
	/* ab: each arm's rounds merged, beside "all" */
	for (int a = 0; s->cfg->ab && a < 2; a++)
		if (!(arm[a] = recorder_alloc(s->cfg->top_k, -1)))
			goto out;
	for (unsigned i = 0; i < s->nthreads; i++) {
		struct probe_thread *t = &s->threads[i];
		for (unsigned k = 0; k < t->nrec; k++) {
			if (all)
				recorder_init(all, s->cfg->top_k,
					      (struct recorder_sample *)(all + 1));
			for (int a = 0; arm[0] && a < 2; a++)
				recorder_init(arm[a], s->cfg->top_k,
					      (struct recorder_sample *)(arm[a] + 1));
			for (unsigned p = 0; p < ph->n; p++) {
				const struct recorder *rec = source(t->rec[k][p], scratch);
				if ((rc = add_result(r, t, k, ph->name[p], rec)))
					goto out;
				if (all)
					recorder_merge(all, rec);
				if (arm[0])
					recorder_merge(arm[phase_ab_arm(ph, p) == 'B'], rec);
			}
			if (arm[0] && ((rc = add_result(r, t, k, "A", arm[0])) ||
				       (rc = add_result(r, t, k, "B", arm[1]))))
				goto out;
			if (all && (rc = add_result(r, t, k, "all", all)))
				goto out;
		}
	}
	rc = report_build_aggregates(r);
out:
	recorder_free(scratch);
	recorder_free(all);
	recorder_free(arm[0]);
	recorder_free(arm[1]);
	return rc;
}

static int build_report(struct report *r, struct session *s, bool live, bool full)
{
	struct run_config *cfg = s->cfg;
	json_t *names = json_array();

	for (unsigned p = 0; p < s->phases.n; p++)
		json_array_append_new(names, json_string(s->phases.name[p]));
	r->config = cli_config_json(cfg);
	if (!r->config || !names)
		return -ENOMEM;
	json_object_set_new(r->config, "phases", names);
	r->periods = json_incref(json_object_get(r->config, "probe_intervals_ns"));
	r->loads = json_array();
	for (unsigned i = 0; s->sup && i < cfg->nloads; i++)
		json_array_append_new(
		    r->loads,
		    load_supervisor_report(s->sup, i, phase_load_active_ns(&s->phases, i), s->t0));
	r->phases = phase_report(&s->phases, cfg);
	r->tweaks = tweak_report(&cfg->tweaks);
	if (!r->loads || !r->phases || !r->tweaks)
		return -ENOMEM;
	int rc = build_results(r, s, live);
	if (!rc && full)
		rc = add_series(r, s);
	if (!rc && full && !(r->analysis = analysis_build(r)))
		rc = -ENOMEM;
	return rc;
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
		fprintf(stderr, "rtsoak: %s\n", err);
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
	return 0;
}

/* ab --fail-if, checked by the command line parser already. */
static unsigned ab_limits(const struct run_config *cfg, struct compare_limit *lim)
{
	unsigned n = 0;

	for (unsigned i = 0; i < cfg->nfail_if; i++) {
		char err[256];
		if (compare_limit_parse(cfg->fail_if[i], &lim[n], err, sizeof(err)) == 0)
			n++;
	}
	return n;
}

/* rtsoak ab: the verdicts from the per-round values, into the report. */
static int ab_verdict(struct report *r, struct comparison *c, const struct run_config *cfg)
{
	struct compare_limit lim[CLI_MAX_SET];
	unsigned nlim = ab_limits(cfg, lim);
	json_t *order = json_array();

	if (!order || compare_build_ab(c, r, cfg->output) < 0) {
		json_decref(order);
		return -ENOMEM;
	}
	json_t *phases = json_object_get(r->config, "phases");
	size_t i;
	json_t *p;
	json_array_foreach (phases, i, p)
		json_array_append(order, p);
	r->ab = json_pack("{s:I, s:I, s:o, s:s, s:o}", "rounds_per_arm", (json_int_t)cfg->ab_rounds,
			  "round_duration_ns", (json_int_t)cfg->round_ns, "order", order,
			  "statistic", "p99", "comparison", compare_json(c, lim, nlim));
	return r->ab ? 0 : -ENOMEM;
}

int session_run(struct run_config *cfg)
{
	struct session s = {
		.cfg = cfg,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
	};
	const struct probe_thread *bad;
	struct report r = { 0 };
	struct sigaction sa = { .sa_handler = kick_handler };
	sigset_t block;
	int dma_fd = -1, rc, sig, failed;
	struct comparison ab = { 0 };
	bool restore_failed = false, write_failed = false, taken;
	uint64_t t0, end = 0;

	/* A shell starts background jobs with SIGINT ignored, and an ignored
	 * signal is discarded before sigtimedwait could see it: take SIGINT
	 * and SIGTERM back.  An ignored SIGHUP is left alone (nohup). */
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

	if ((rc = check_environment(cfg, &r, &dma_fd)) >= 0)
		goto out;
	/* Tweaks before the snapshot, so that it shows the tweaked system;
	 * ab starts with a baseline round and applies them at its B rounds. */
	if (!cfg->ab && (rc = apply_tweaks(cfg)) >= 0)
		goto out;
	pin_housekeeping(cfg, &r);
	cfg->probe_env.housekeeping = cfg->housekeeping; /* as decided: the probes see it */
	if (fill_header(&r, cfg) < 0) {
		rtsoak_error("out of memory while taking the system snapshot");
		rc = EXIT_ENV;
		goto out;
	}
	phase_plan_init(&s.phases, cfg);
	if (cfg->nloads && (rc = start_loads(&s, &r)) >= 0)
		goto out;

	rc = start_threads(&s);
	bad = wait_ready(&s);
	if (rc < 0 || bad) {
		if (bad)
			rtsoak_error("%s probe on CPU %d: %s", bad->ops->name, bad->cpu, bad->err);
		open_gate(&s, -1, 0);
		stop_threads(&s);
		rc = EXIT_ENV;
		goto out;
	}
	/* The probes' recorders and feeds exist now: lock them too when only
	 * MCL_CURRENT was possible (rt_lock_memory). */
	if ((rc = rt_lock_memory_again()) < 0)
		report_warn(&r, "could not lock the probes' memory after set-up: %s",
			    strerror(-rc));
	if (series_start(&s) < 0) {
		rtsoak_error("out of memory for the time series");
		open_gate(&s, -1, 0);
		stop_threads(&s);
		rc = EXIT_ENV;
		goto out;
	}
	/* The first phase's loads run before the first sample: measure them
	 * in their steady state, not their start-up. */
	if (s.sup && (rc = load_supervisor_phase(s.sup, 0, 5000)) < 0)
		report_warn(&r, "the loads did not start in time: %s", strerror(-rc));
	s.start_rt = util_now_ns(CLOCK_REALTIME);
	s.t0 = t0 = util_now_ns(CLOCK_MONOTONIC);
	phase_begin(&s.phases, 0, 0);
	open_gate(&s, 1, t0);
	progress_init(&s.prog, cfg->quiet, t0, cfg->duration_ns);

	if (start_families(&s, &r) < 0) {
		sig = 0;
		failed = 1;
		report_warn(&r, "a probe failed to start its shared part; see the log");
		stop_threads(&s);
	} else {
		sig = wait_for_end(&s, &r);
		/* The run ends when the probes are told to stop: joining them and
		 * the net sender can take a while on a busy machine, and that is
		 * not time the probes measured. */
		end = util_now_ns(CLOCK_MONOTONIC);
		progress_done(&s.prog);
		failed = stop_threads(&s);
	}
	stop_families(&s);
	for (unsigned i = 0; i < s.nthreads; i++)
		if (series_flush(&s.series[i]) < 0)
			report_warn(&r,
				    "out of memory: the time series of %s on CPU %d is incomplete",
				    s.threads[i].pc->results[0], s.threads[i].cpu);
	set_times(&r, &s, (end ? end : util_now_ns(CLOCK_MONOTONIC)) - t0);
	phase_end(&s.phases, r.duration_ns);
	failed |= s.tweak_failed;
	/* Loads stopped, the machine goes back to how it was before the
	 * report is written: a failure is in the report, the journal stays. */
	load_supervisor_stop(s.sup);
	for (unsigned i = 0; s.sup && i < cfg->nloads; i++) {
		char note[256];
		if (load_supervisor_warning(s.sup, i, note, sizeof(note)))
			report_warn(&r, "%s", note);
	}
	if (restore_tweaks(cfg) < 0) {
		report_warn(&r, "--set: %s", restore_err);
		restore_failed = true;
	}
	if (s.prom_failures)
		report_warn(&r, "%u write(s) of the --prom file '%s' failed (last: %s)",
			    s.prom_failures, cfg->prom, strerror(s.prom_errno));
	if (s.checkpoint_failures)
		report_warn(&r, "%u checkpoint(s) could not be written (last: %s)",
			    s.checkpoint_failures, strerror(s.checkpoint_errno));
	r.status = failed ? REPORT_FAILED : sig ? REPORT_INTERRUPTED : REPORT_COMPLETE;
	if (sig)
		report_warn(&r, "interrupted by %s", strsignal(sig));

	if (build_report(&r, &s, false, true) < 0 || (cfg->ab && ab_verdict(&r, &ab, cfg) < 0)) {
		rtsoak_error("out of memory while building the report");
		rc = EXIT_ENV;
		goto out;
	}
	taken = !strcmp(cfg->output, "-") || !strcmp(cfg->html, "-");
	if ((rc = report_json_write(&r, cfg->output)) < 0) {
		/* The directory was writable at start; it is not now (disk full,
		 * removed), or standard output is full.  Do not lose the run: try
		 * the temp directory, and exit 3 saying where it went. */
		char fallback[PATH_MAX];
		const char *tmp = getenv("TMPDIR");
		int frc;
		write_failed = true;
		snprintf(fallback, sizeof(fallback), "%s/rtsoak-%d.json",
			 tmp && *tmp ? tmp : "/tmp", (int)getpid());
		if ((frc = report_json_write(&r, fallback)) < 0) {
			rtsoak_error(
			    "--output: cannot write '%s': %s, nor %s: %s: the report is lost",
			    cfg->output, strerror(-rc), fallback, strerror(-frc));
			rc = EXIT_ENV;
			goto out;
		}
		rtsoak_error("--output: cannot write '%s': %s; the report is in %s instead",
			     cfg->output, strerror(-rc), fallback);
		snprintf(cfg->output, sizeof(cfg->output), "%s", fallback);
	}
	if (cfg->prom[0] && (rc = report_prom_write(&r, cfg->prom)) < 0) {
		rtsoak_error("--prom: cannot write '%s': %s", cfg->prom, strerror(-rc));
		write_failed = true;
	}
	if (cfg->html[0] && (rc = report_html_write(&r, cfg->html)) < 0) {
		rtsoak_error("--html: cannot write '%s': %s (the JSON report has everything)",
			     cfg->html, strerror(-rc));
		write_failed = true;
	}
	if (!cfg->quiet) {
		FILE *out = taken ? stderr : stdout;
		report_text_print(&r, out, cli_color_wanted(cfg->color, out));
		if (strcmp(cfg->output, "-"))
			fprintf(out, "report: %s\n", cfg->output);
		if (cfg->html[0] && strcmp(cfg->html, "-"))
			fprintf(out, "html: %s\n", cfg->html);
	}
	if (cfg->ab && !failed) {
		struct compare_limit lim[CLI_MAX_SET];
		unsigned nlim = ab_limits(cfg, lim);
		if (!cfg->quiet) {
			fputc('\n', stdout);
			compare_print(&ab, lim, nlim, stdout, cli_color_wanted(cfg->color, stdout));
		}
		rc = EXIT_OK;
		for (unsigned i = 0; i < nlim; i++)
			for (size_t k = 0; k < ab.n; k++) {
				bool ok;
				if (compare_limit_broken(&lim[i], &ab.m[k], &ok))
					rc = EXIT_LIMIT;
			}
		goto out;
	}
	rc = failed ? EXIT_ENV : EXIT_OK;
out:
	/* A report or view that did not reach its path is an environment
	 * failure, whatever the measurement said. */
	if (write_failed)
		rc = EXIT_ENV;
	/* Every way out restores (idempotent after the one above). */
	if (restore_tweaks(cfg) < 0 || restore_failed) {
		/* The report is written; the machine is not as it was. */
		rtsoak_error("--set: %s", restore_err);
		rc = EXIT_ENV;
	}
	load_supervisor_stop(s.sup);
	load_supervisor_free(s.sup);
	for (unsigned i = 0; i < cfg->nloads; i++)
		load_instance_free(&cfg->loads[i]);
	for (unsigned i = 0; i < cfg->nprobes; i++)
		probe_config_free(&cfg->probes[i]);
	phase_plan_free(&s.phases);
	if (dma_fd >= 0)
		close(dma_fd);
	free_threads(&s);
	compare_free(&ab);
	report_free(&r);
	return rc;
}
