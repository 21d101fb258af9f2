// SPDX-License-Identifier: GPL-2.0-or-later
/* session_onspike: `run --on-spike CMD`.  On the housekeeping tick, after
 * the series drained the probes' spike rings (and --trace explained what it
 * could), each newly logged spike either starts `/bin/sh -c CMD` or is
 * counted as skipped; the command's context is in its environment only
 * (RTSOAK_CPU, RTSOAK_PROBE, RTSOAK_LATENCY_NS, RTSOAK_AT_NS, RTSOAK_CAUSE,
 * ...), never in the command string: a cause names a task by its comm, which
 * any local user can set to anything.
 *
 * Nothing here runs on the probes' path: the probes log spikes as they did
 * (series.h), and all of this is the housekeeping thread's.
 *
 * The rules, in the order a spike meets them:
 *  - one command at a time: a spike that comes while one runs (or while one
 *    waits for its spike's attribution) is skipped ("running");
 *  - at most one start per --on-spike-interval (default 1 s): a spike
 *    before that is skipped ("interval");
 *  - a spike the series counted but could not log (its ring overran, or the
 *    log was full) has no details to give: skipped ("unlogged");
 *  - with --trace, the command waits for its spike's attribution, at most
 *    ONSPIKE_ATTRIB_WAIT_NS (the recorder's window: after it the events are
 *    gone and the spike is explained anyway); RTSOAK_ATTRIBUTION says which.
 *
 * The child is started with posix_spawn (glibc: clone(CLONE_VM|CLONE_VFORK)
 * then exec): no copy of the page tables and no copy-on-write faults in the
 * probes' locked memory, as fork() would make, and the housekeeping thread
 * waits only for the exec.  It inherits that thread's CPU affinity (the
 * housekeeping CPUs: session.c pins it), gets SCHED_OTHER priority 0, an
 * empty signal mask and default dispositions, its own process group (so
 * that the end of the run can stop the whole command, e.g. a perf it
 * started), /dev/null as stdin, rtsoak's stderr as stdout and stderr (never
 * into a report on stdout), and no other descriptor.  It is reaped with
 * waitpid(WNOHANG) on later ticks.  At the end of the run a command still
 * running gets ONSPIKE_END_WAIT_NS, then SIGTERM to its group, then after
 * ONSPIKE_TERM_WAIT_NS SIGKILL; the report counts both. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "session_internal.h"
#include "trace_event.h"
#include "util.h"

extern char **environ;

/* --trace: how long a command waits for its spike's attribution. */
#define ONSPIKE_ATTRIB_WAIT_NS (1000 * NSEC_PER_MSEC)
/* At the end of the run: how long a running command may go on before
 * SIGTERM, and after SIGTERM before SIGKILL. */
#define ONSPIKE_END_WAIT_NS (3000 * NSEC_PER_MSEC)
#define ONSPIKE_TERM_WAIT_NS (1000 * NSEC_PER_MSEC)
#define ONSPIKE_POLL_NS (20 * NSEC_PER_MSEC)
#define ONSPIKE_CAUSE_LEN 256 /* more than ATTRIB_CAUSE_LEN */
#define ONSPIKE_NVARS 13      /* the RTSOAK_* make_env puts */

enum onspike_skip { SKIP_RUNNING, SKIP_INTERVAL, SKIP_UNLOGGED, SKIP_N };
static const char *const skip_name[SKIP_N] = { "running", "interval", "unlogged" };

struct onspike_cursor {
	size_t next;	   /* the next logged spike of the series to look at */
	uint64_t unlogged; /* overwritten + not logged, as far as counted */
};

struct session_onspike {
	struct onspike_cursor *cur; /* per thread */
	unsigned n;
	uint64_t spikes; /* every spike seen */
	uint64_t skipped[SKIP_N];
	uint64_t skipped_since;	   /* since the last start: RTSOAK_SKIPPED */
	uint64_t ran, not_started; /* started; could not be started */
	uint64_t ok, failed, terminated, killed;
	char first_failure[32]; /* "exit 3", "signal 11"; "" none */
	uint64_t first_failure_at_ns;
	int start_errno; /* the first start failure's */
	bool stopping;	 /* the end's SIGTERM: its status is no failure */
	/* The spike that starts the next command, waiting for its attribution. */
	bool pending;
	unsigned pend_thread;
	size_t pend_k;
	uint64_t pend_until; /* CLOCK_MONOTONIC: start then at the latest */
	/* The running command (one at most). */
	pid_t child;
	uint64_t child_at_ns; /* its spike's time */
	uint64_t last_start;  /* CLOCK_MONOTONIC; 0: none yet */
	bool shared;	      /* no housekeeping CPU: it shares the measured ones */
};

/* A value fit for the environment of a shell, in place: valid UTF-8, and
 * no control character (C0, DEL, C1) that a script echoing it to a
 * terminal or a log would act on: each becomes '?'. */
static void clean_value(char *v)
{
	size_t n = strlen(v);

	(void)util_utf8_fix(v, n);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];
		if (c < 0x20 || c == 0x7f) {
			v[i] = '?';
		} else if (c == 0xc2 && i + 1 < n && (unsigned char)v[i + 1] >= 0x80 &&
			   (unsigned char)v[i + 1] <= 0x9f) {
			v[i] = '?';
			memmove(v + i + 1, v + i + 2, n - i - 1); /* with the NUL */
			n--;
		}
	}
}

static struct session_onspike *get(struct session *s, struct report *r)
{
	struct session_onspike *o = s->onspike;

	if (o || !s->cfg->on_spike || !s->series)
		return o;
	o = calloc(1, sizeof(*o));
	if (!o || !(o->cur = calloc(s->nthreads ? s->nthreads : 1, sizeof(*o->cur)))) {
		free(o);
		return NULL; /* tried again next tick */
	}
	o->n = s->nthreads;
	o->shared = cpuset_empty(&s->cfg->housekeeping);
	if (o->shared)
		report_warn(r,
			    "--on-spike: every CPU is measured, so the command runs on measured "
			    "CPUs (SCHED_OTHER, below the probes); give --housekeeping or leave a "
			    "CPU out of --cpus to keep it off them");
	s->onspike = o;
	return o;
}

static void record_status(struct session_onspike *o, int status)
{
	if (o->stopping) /* counted in terminated */
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		o->ok++;
		return;
	}
	o->failed++;
	if (o->first_failure[0])
		return;
	if (WIFEXITED(status))
		snprintf(o->first_failure, sizeof(o->first_failure), "exit %d",
			 WEXITSTATUS(status));
	else
		snprintf(o->first_failure, sizeof(o->first_failure), "signal %d",
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	o->first_failure_at_ns = o->child_at_ns;
}

/* Reap the command if it has ended; true when none runs (any more). */
static bool reap(struct session_onspike *o)
{
	int status;

	if (!o->child)
		return true;
	pid_t p = waitpid(o->child, &status, WNOHANG);
	if (p == 0)
		return false;
	if (p == o->child)
		record_status(o, status);
	else if (!o->stopping && !o->failed++) /* ECHILD: reaped by someone else */
		snprintf(o->first_failure, sizeof(o->first_failure), "unknown");
	o->child = 0;
	return true;
}

static int put(char **env, size_t *n, const char *name, const char *value)
{
	char *v;

	if (asprintf(&v, "%s=%s", name, value) < 0)
		return -1;
	clean_value(v + strlen(name) + 1);
	env[(*n)++] = v;
	return 0;
}

static int putu(char **env, size_t *n, const char *name, uint64_t value)
{
	char b[24];

	snprintf(b, sizeof(b), "%" PRIu64, value);
	return put(env, n, name, b);
}

/* The spike's variables, then rtsoak's environment without its own values
 * of those names (a caller's RTSOAK_CPU must not pass for the spike's);
 * NULL when out of memory. */
static char **make_env(const struct session *s, const struct session_onspike *o, unsigned i,
		       size_t k, int attributed, const char *cause)
{
	const struct probe_thread *t = &s->threads[i];
	const struct series *se = &s->series[i];
	const struct series_spike *sp = &se->spikes[k];
	size_t ne = 0, n = 0;
	char **env;
	int bad = 0;

	while (environ && environ[ne])
		ne++;
	env = calloc(ne + ONSPIKE_NVARS + 1, sizeof(*env));
	if (!env)
		return NULL;
	bad |= putu(env, &n, "RTSOAK_CPU", (uint64_t)t->cpu);
	bad |= put(env, &n, "RTSOAK_PROBE", t->pc->results[0]);
	bad |= putu(env, &n, "RTSOAK_LATENCY_NS", sp->latency_ns);
	bad |= putu(env, &n, "RTSOAK_AT_NS", sp->t_ns);
	bad |= putu(env, &n, "RTSOAK_MONOTONIC_NS", s->t0 + sp->t_ns);
	bad |= putu(env, &n, "RTSOAK_THRESHOLD_NS", se->threshold_ns);
	bad |=
	    put(env, &n, "RTSOAK_PHASE", sp->phase < s->phases.n ? s->phases.name[sp->phase] : "");
	bad |= put(env, &n, "RTSOAK_CAUSE", cause);
	char at[TEV_NAME_LEN];
	(void)session_trace_spike_irq_at(s, i, k, at, sizeof(at));
	bad |= put(env, &n, "RTSOAK_IRQ_AT", at);
	bad |= put(env, &n, "RTSOAK_ATTRIBUTION",
		   !s->trace	     ? "off"
		   : attributed > 0  ? "attributed"
		   : attributed == 0 ? "not attributed"
				     : "pending");
	bad |= put(env, &n, "RTSOAK_REPORT", s->cfg->output);
	bad |= putu(env, &n, "RTSOAK_SKIPPED", o->skipped_since);
	bad |= putu(env, &n, "RTSOAK_PID", (uint64_t)getpid());
	size_t own = n;
	for (size_t j = 0; !bad && j < ne; j++) {
		size_t len = strcspn(environ[j], "=");
		bool ours = false;
		for (size_t m = 0; m < own && !ours; m++)
			ours = !strncmp(env[m], environ[j], len) && env[m][len] == '=';
		if (!ours && !(env[n++] = strdup(environ[j])))
			bad = 1;
	}
	if (bad) {
		for (size_t j = 0; j < n; j++)
			free(env[j]);
		free(env);
		return NULL;
	}
	return env;
}

static void free_env(char **env)
{
	for (size_t j = 0; env && env[j]; j++)
		free(env[j]);
	free(env);
}

/* No descriptor but 0-2 in the child: rtsoak's report lock, its tracefs
 * and /dev/cpu_dma_latency files must not live on in a command that
 * outlives it (a held /dev/cpu_dma_latency would keep its setting). */
static int close_above_2(posix_spawn_file_actions_t *fa)
{
#ifdef HAVE_POSIX_SPAWN_FILE_ACTIONS_ADDCLOSEFROM_NP
	return posix_spawn_file_actions_addclosefrom_np(fa, 3);
#else
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int rc = 0;

	if (!d)
		return errno;
	while (!rc && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) > 2 && atoi(e->d_name) != dirfd(d))
			rc = posix_spawn_file_actions_addclose(fa, atoi(e->d_name));
	closedir(d);
	return rc;
#endif
}

/* Start the command for spike k of thread i.  0, or -errno (counted, said
 * once on stderr and in the report: a 24-hour soak goes on without it). */
static int start(struct session *s, struct session_onspike *o, unsigned i, size_t k, uint64_t now)
{
	char cause[ONSPIKE_CAUSE_LEN] = "";
	int attributed = session_trace_spike_cause(s, i, k, cause, sizeof(cause));
	char **env = make_env(s, o, i, k, attributed, cause);
	char *const argv[] = { "sh", "-c", (char *)s->cfg->on_spike, NULL };
	struct sched_param prio = { .sched_priority = 0 };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	pid_t pid = 0;
	int rc;

	o->last_start = now;
	if (!env) {
		rc = ENOMEM;
		goto out;
	}
	sigemptyset(&none);
	sigfillset(&all);
	if ((rc = posix_spawnattr_init(&at)))
		goto out;
	if ((rc = posix_spawn_file_actions_init(&fa))) {
		posix_spawnattr_destroy(&at);
		goto out;
	}
	rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
					       POSIX_SPAWN_SETSCHEDULER | POSIX_SPAWN_SETPGROUP);
	rc = rc ? rc : posix_spawnattr_setsigmask(&at, &none);
	rc = rc ? rc : posix_spawnattr_setsigdefault(&at, &all);
	rc = rc ? rc : posix_spawnattr_setschedpolicy(&at, SCHED_OTHER);
	rc = rc ? rc : posix_spawnattr_setschedparam(&at, &prio);
	rc = rc ? rc : posix_spawnattr_setpgroup(&at, 0);
	rc = rc ? rc : posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	rc = rc ? rc : posix_spawn_file_actions_adddup2(&fa, 2, 1);
	rc = rc ? rc : close_above_2(&fa);
	rc = rc ? rc : posix_spawn(&pid, "/bin/sh", &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
out:
	free_env(env);
	if (rc) {
		if (!o->not_started++) {
			o->start_errno = rc;
			rtsoak_error("--on-spike: cannot start /bin/sh: %s (the run goes on)",
				     strerror(rc));
		}
		return -rc;
	}
	o->ran++;
	o->skipped_since = 0;
	o->child = pid;
	o->child_at_ns = s->series[i].spikes[k].t_ns;
	return 0;
}

static void skip(struct session_onspike *o, enum onspike_skip why, uint64_t n)
{
	o->skipped[why] += n;
	o->skipped_since += n;
}

/* The spikes thread i's series logged since the last look: each one
 * becomes the pending command's spike or is skipped. */
static void look(struct session *s, struct session_onspike *o, unsigned i, uint64_t now,
		 bool running)
{
	const struct series *se = &s->series[i];
	struct onspike_cursor *c = &o->cur[i];
	uint64_t lost = se->spikes_overwritten + se->spikes_unlogged;
	uint64_t interval = s->cfg->on_spike_interval_ns;

	if (lost > c->unlogged) {
		o->spikes += lost - c->unlogged;
		skip(o, SKIP_UNLOGGED, lost - c->unlogged);
		c->unlogged = lost;
	}
	for (; c->next < se->nspikes; c->next++) {
		o->spikes++;
		if (running || o->pending) {
			skip(o, SKIP_RUNNING, 1);
		} else if (o->last_start && now - o->last_start < interval) {
			skip(o, SKIP_INTERVAL, 1);
		} else {
			o->pending = true;
			o->pend_thread = i;
			o->pend_k = c->next;
			o->pend_until = now + (s->trace ? ONSPIKE_ATTRIB_WAIT_NS : 0);
		}
	}
}

/* Start the pending command once its spike is explained (or waited for
 * long enough, or at the end: last). */
static void maybe_start(struct session *s, struct session_onspike *o, uint64_t now, bool last)
{
	char cause[8];

	if (!o->pending)
		return;
	if (!last && now < o->pend_until &&
	    session_trace_spike_cause(s, o->pend_thread, o->pend_k, cause, sizeof(cause)) < 0)
		return;
	o->pending = false;
	(void)start(s, o, o->pend_thread, o->pend_k, now);
}

void session_onspike_tick(struct session *s, struct report *r, uint64_t now)
{
	struct session_onspike *o = get(s, r);

	if (!o)
		return;
	bool running = !reap(o);
	for (unsigned i = 0; i < o->n && i < s->nthreads; i++)
		look(s, o, i, now, running);
	maybe_start(s, o, now, false);
}

static void nap(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / NSEC_PER_SEC),
			       .tv_nsec = (long)(ns % NSEC_PER_SEC) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Wait for the command until `until` (CLOCK_MONOTONIC); true when it ended. */
static bool wait_until(struct session_onspike *o, uint64_t until)
{
	for (;;) {
		if (reap(o))
			return true;
		uint64_t now = util_now_ns(CLOCK_MONOTONIC);
		if (now >= until)
			return false;
		nap(until - now < ONSPIKE_POLL_NS ? until - now : ONSPIKE_POLL_NS);
	}
}

void session_onspike_end(struct session *s, struct report *r)
{
	struct session_onspike *o = get(s, r);

	if (!o)
		return;
	/* The spikes the last drain found: the run is over, so a pending one
	 * starts now with what the attribution knows (the trace's last tick
	 * explained everything), and the rules stay the same. */
	uint64_t now = util_now_ns(CLOCK_MONOTONIC);
	bool running = !reap(o);
	for (unsigned i = 0; i < o->n && i < s->nthreads; i++)
		look(s, o, i, now, running);
	maybe_start(s, o, now, true);
	if (o->child && !wait_until(o, util_now_ns(CLOCK_MONOTONIC) + ONSPIKE_END_WAIT_NS)) {
		pid_t pid = o->child;
		o->stopping = true;
		(void)kill(-pid, SIGTERM);
		o->terminated++;
		if (!wait_until(o, util_now_ns(CLOCK_MONOTONIC) + ONSPIKE_TERM_WAIT_NS)) {
			int status;
			(void)kill(-pid, SIGKILL);
			o->killed++;
			if (waitpid(pid, &status, 0) == pid)
				record_status(o, status);
			o->child = 0;
		}
		report_warn(r,
			    "--on-spike: the command of the spike at %.3f s still ran %.0f s after "
			    "the run: %s",
			    (double)o->child_at_ns / 1e9, (double)ONSPIKE_END_WAIT_NS / 1e9,
			    o->killed ? "SIGTERM to its process group, then SIGKILL"
				      : "SIGTERM to its process group");
	}
	if (o->not_started)
		report_warn(r,
			    "--on-spike: %" PRIu64 " command(s) could not be started (first: %s)",
			    o->not_started, strerror(o->start_errno));
	if (o->failed)
		report_warn(r,
			    "--on-spike: %" PRIu64 " of %" PRIu64
			    " command(s) failed (the first: %s, for the spike at %.3f s)",
			    o->failed, o->ran, o->first_failure,
			    (double)o->first_failure_at_ns / 1e9);
}

json_t *session_onspike_json(const struct session *s)
{
	const struct session_onspike *o = s->onspike;
	static const struct session_onspike none;
	json_t *skipped = json_object(), *j;
	int bad = !skipped;

	if (!s->cfg->on_spike) {
		json_decref(skipped);
		return NULL;
	}
	if (!o)
		o = &none;
	for (int k = 0; !bad && k < SKIP_N; k++)
		bad |=
		    util_json_set(skipped, skip_name[k], json_integer((json_int_t)o->skipped[k]));
	if (bad) {
		json_decref(skipped);
		return NULL;
	}
	j = json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:b}",
		      "command", util_json_string(s->cfg->on_spike), "interval_ns",
		      (json_int_t)s->cfg->on_spike_interval_ns, "attribution_wait_ns",
		      (json_int_t)(s->cfg->trace ? ONSPIKE_ATTRIB_WAIT_NS : 0), "end_wait_ns",
		      (json_int_t)ONSPIKE_END_WAIT_NS, "spikes", (json_int_t)o->spikes, "ran",
		      (json_int_t)o->ran, "skipped", skipped, "not_started",
		      (json_int_t)o->not_started, "succeeded", (json_int_t)o->ok, "failed",
		      (json_int_t)o->failed, "running", (json_int_t)(o->child ? 1 : 0),
		      "terminated", (json_int_t)o->terminated, "killed", (json_int_t)o->killed,
		      "shared_cpus", o->shared);
	if (j && o->first_failure[0] &&
	    util_json_set(j, "first_failure",
			  json_pack("{s:s, s:I}", "status", o->first_failure, "at_ns",
				    (json_int_t)o->first_failure_at_ns))) {
		json_decref(j);
		return NULL;
	}
	return j;
}

void session_onspike_free(struct session *s)
{
	struct session_onspike *o = s->onspike;

	if (!o)
		return;
	/* A way out that skipped the end (an error before the report): the
	 * command is not left behind. */
	if (o->child) {
		int status;
		(void)kill(-o->child, SIGKILL);
		(void)waitpid(o->child, &status, 0);
	}
	free(o->cur);
	free(o);
	s->onspike = NULL;
}
