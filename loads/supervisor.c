// SPDX-License-Identifier: GPL-2.0-or-later
/* supervisor: fork, supervise and restart load workers; see supervisor.h.
 *
 * The supervisor is single-threaded and event-driven: it sleeps in ppoll()
 * on the command pipe with SIGCHLD and SIGTERM unblocked only there, so
 * every child exit and every request is handled in the same loop.  A worker
 * that exits while its load should run is restarted after a back-off that
 * doubles from 100 ms to 5 s and resets once a worker has lived 10 s. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exit.h"
#include "rt.h"
#include "supervisor.h"
#include "util.h"

#define BACKOFF_MIN_NS (100 * NSEC_PER_MSEC)
#define BACKOFF_MAX_NS (5 * NSEC_PER_SEC)
#define BACKOFF_RESET_NS (10 * NSEC_PER_SEC)
#define STOP_GRACE_NS (1 * NSEC_PER_SEC)
#define CMD_STOP 0xff

struct exit_record {
	uint64_t t_ns; /* CLOCK_MONOTONIC */
	int status;    /* as from waitpid */
};

/* Shared with rtsoak (MAP_SHARED): written by the supervisor. */
struct sup_shared {
	uint64_t restarts[LOAD_MAX_INSTANCES];
	uint64_t exits[LOAD_MAX_INSTANCES];
	struct exit_record exit_log[LOAD_MAX_INSTANCES][SUPERVISOR_EXIT_LOG];
	char start_error[LOAD_MAX_INSTANCES][160];
	char stats[LOAD_MAX_INSTANCES][1024]; /* JSON text from .stats */
	struct load_counters ctr[LOAD_MAX_WORKERS];
};

struct worker_slot {
	pid_t pid; /* 0: not running */
	int cpu;
	uint64_t started_ns;
	uint64_t restart_at; /* 0: no restart pending */
	uint64_t backoff_ns;
};

struct load_supervisor {
	pid_t pid;
	int cmd_fd, ack_fd; /* rtsoak's ends */
	struct sup_shared *sh;
	struct load_instance *inst;
	unsigned n;
	/* supervisor side */
	uint32_t masks[SUPERVISOR_MAX_PHASES];
	unsigned nphases;
	uint32_t running; /* instances whose workers should run now */
	struct worker_slot *slots[LOAD_MAX_INSTANCES];
	bool pinned[LOAD_MAX_INSTANCES];
	/* The run's private directory for load files: made here, before the
	 * fork, so that rtsoak and the supervisor (and through it every
	 * worker) hold it, and whichever outlives the other removes it. */
	struct load_dir dir;
	char workdir[4096];
};

static volatile sig_atomic_t worker_stop, sup_term;

static void worker_on_term(int sig)
{
	(void)sig;
	worker_stop = 1;
}

static void sup_on_signal(int sig)
{
	/* SIGCHLD only interrupts ppoll; SIGTERM means rtsoak died
	 * (PR_SET_PDEATHSIG) or wants us gone. */
	if (sig == SIGTERM)
		sup_term = 1;
}

/* In the new worker process: become what load.h promises, then run. */
static void worker_main(struct load_supervisor *s, unsigned i, unsigned w, int cpu)
{
	struct load_instance *inst = &s->inst[i];
	struct sigaction sa = { .sa_handler = worker_on_term };
	struct sched_param sp = { 0 };
	sigset_t none;
	struct cpuset one;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* "rtsoak-cpu/3": what top and ps show, so a user sees which load is
	 * which (an exec load's command replaces it with its own name). */
	char comm[16];
	snprintf(comm, sizeof(comm), "rtsoak-%s/%u", inst->ops->name, w);
	(void)prctl(PR_SET_NAME, comm);
	sigemptyset(&none);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGINT, SIG_IGN); /* Ctrl-C is rtsoak's to handle */
	signal(SIGHUP, SIG_IGN);
	sigprocmask(SIG_SETMASK, &none, NULL);
	close(s->cmd_fd);
	/* A load must not read the terminal or fill rtsoak's summary with its
	 * output; its errors still reach stderr. */
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	sched_setscheduler(0, SCHED_OTHER, &sp);
	setpriority(PRIO_PROCESS, 0, inst->nice);
	if (cpu >= 0) {
		cpuset_clear(&one);
		cpuset_set(&one, cpu);
		rt_pin_self(&one);
	} else {
		rt_pin_self(&inst->cpus);
	}
	struct load_worker lw = {
		.inst = inst,
		.id = w,
		.cpu = cpu,
		.ctr = inst->ctr + w,
		.stop = &worker_stop,
	};
	_exit(inst->ops->run(&lw));
}

static void spawn(struct load_supervisor *s, unsigned i, unsigned w)
{
	struct worker_slot *ws = &s->slots[i][w];
	pid_t pid = fork();

	if (pid == 0)
		worker_main(s, i, w, ws->cpu);
	if (pid < 0) {
		ws->restart_at = util_now_ns(CLOCK_MONOTONIC) + BACKOFF_MAX_NS;
		return;
	}
	setpgid(pid, pid); /* also here: no race with an early killpg */
	ws->pid = pid;
	ws->started_ns = util_now_ns(CLOCK_MONOTONIC);
	ws->restart_at = 0;
}

/* TERM the worker's whole process group, give it a grace period, then
 * KILL; reap it.  The group kill also takes an exec load's descendants. */
static void stop_workers(struct load_supervisor *s, unsigned i)
{
	struct load_instance *inst = &s->inst[i];
	uint64_t deadline = util_now_ns(CLOCK_MONOTONIC) + STOP_GRACE_NS;
	bool any;

	for (unsigned w = 0; w < inst->nworkers; w++) {
		s->slots[i][w].restart_at = 0;
		if (s->slots[i][w].pid > 0)
			killpg(s->slots[i][w].pid, SIGTERM);
	}
	do {
		any = false;
		for (unsigned w = 0; w < inst->nworkers; w++) {
			struct worker_slot *ws = &s->slots[i][w];
			if (ws->pid <= 0)
				continue;
			if (waitpid(ws->pid, NULL, WNOHANG) == ws->pid) {
				killpg(ws->pid, SIGKILL); /* stragglers in its group */
				ws->pid = 0;
			} else {
				any = true;
			}
		}
		if (any) {
			struct timespec ts = { 0, 5 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	} while (any && util_now_ns(CLOCK_MONOTONIC) < deadline);
	for (unsigned w = 0; w < inst->nworkers; w++) {
		struct worker_slot *ws = &s->slots[i][w];
		if (ws->pid > 0) {
			killpg(ws->pid, SIGKILL);
			waitpid(ws->pid, NULL, 0);
			ws->pid = 0;
		}
	}
}

static void reap(struct load_supervisor *s)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (unsigned i = 0; i < s->n; i++)
			for (unsigned w = 0; w < s->inst[i].nworkers; w++) {
				struct worker_slot *ws = &s->slots[i][w];
				if (ws->pid != pid)
					continue;
				uint64_t now = util_now_ns(CLOCK_MONOTONIC);
				killpg(pid, SIGKILL);
				ws->pid = 0;
				uint64_t k = s->sh->exits[i]++;
				s->sh->exit_log[i][k % SUPERVISOR_EXIT_LOG] =
				    (struct exit_record){ .t_ns = now, .status = status };
				if (!(s->running & (1u << i)))
					continue;
				if (now - ws->started_ns > BACKOFF_RESET_NS)
					ws->backoff_ns = 0;
				ws->backoff_ns =
				    ws->backoff_ns ? ws->backoff_ns * 2 : BACKOFF_MIN_NS;
				if (ws->backoff_ns > BACKOFF_MAX_NS)
					ws->backoff_ns = BACKOFF_MAX_NS;
				ws->restart_at = now + ws->backoff_ns;
			}
	}
}

static void apply_phase(struct load_supervisor *s, uint32_t want)
{
	for (unsigned i = 0; i < s->n; i++)
		if ((s->running & (1u << i)) && !(want & (1u << i)))
			stop_workers(s, i);
	for (unsigned i = 0; i < s->n; i++)
		if (!(s->running & (1u << i)) && (want & (1u << i)))
			for (unsigned w = 0; w < s->inst[i].nworkers; w++) {
				s->slots[i][w].backoff_ns = 0;
				spawn(s, i, w);
			}
	s->running = want;
}

static void restart_due(struct load_supervisor *s, uint64_t *next)
{
	uint64_t now = util_now_ns(CLOCK_MONOTONIC);

	*next = UINT64_MAX;
	for (unsigned i = 0; i < s->n; i++)
		for (unsigned w = 0; w < s->inst[i].nworkers; w++) {
			struct worker_slot *ws = &s->slots[i][w];
			if (!ws->restart_at || ws->pid)
				continue;
			if (ws->restart_at <= now) {
				s->sh->restarts[i]++;
				spawn(s, i, w);
			} else if (ws->restart_at < *next) {
				*next = ws->restart_at;
			}
		}
}

/* Every way out of a run, in rtsoak or the supervisor: only our private
 * directory's contents, then the directory. */
static void remove_dir(struct load_supervisor *s)
{
	char name[sizeof(s->dir.name)];
	int rc;

	snprintf(name, sizeof(name), "%s", s->dir.name);
	if ((rc = load_dir_remove(&s->dir)) < 0)
		rtsoak_error("loads: cannot remove %s/%s: %s", s->workdir, name, strerror(-rc));
}

static void finish(struct load_supervisor *s)
{
	apply_phase(s, 0);
	load_kill_children();
	for (unsigned i = 0; i < s->n; i++) {
		struct load_instance *inst = &s->inst[i];
		if (inst->ops->stop)
			inst->ops->stop(inst);
	}
	remove_dir(s);
	for (unsigned i = 0; i < s->n; i++) {
		struct load_instance *inst = &s->inst[i];
		if (inst->ops->stats) {
			json_t *o = json_object();
			char *text =
			    o && !inst->ops->stats(inst, o) ? json_dumps(o, JSON_COMPACT) : NULL;
			/* what cannot be said whole is said to be missing */
			const char *v = text && strlen(text) < sizeof(s->sh->stats[i])
					    ? text
					    : "{\"incomplete\":true}";
			memcpy(s->sh->stats[i], v, strlen(v) + 1);
			free(text);
			json_decref(o);
		}
	}
}

static void supervisor_main(struct load_supervisor *s, int cmd_rd, int ack_wr,
			    const struct cpuset *pin)
{
	struct sigaction sa = { .sa_handler = sup_on_signal };
	sigset_t block, wait_mask;
	char ok = 0;

	prctl(PR_SET_PDEATHSIG, SIGTERM);
	/* What a SIGKILLed worker leaves behind comes to us, not to init, and
	 * finish() kills it: no load process outlives the run. */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
	(void)prctl(PR_SET_NAME, "rtsoak-loads");
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigprocmask(SIG_SETMASK, NULL, &wait_mask);
	sigdelset(&wait_mask, SIGCHLD);
	sigdelset(&wait_mask, SIGTERM);
	munlockall(); /* nothing here is real-time */
	if (!cpuset_empty(pin))
		rt_pin_self(pin);

	for (unsigned i = 0; i < s->n; i++) {
		struct load_instance *inst = &s->inst[i];
		char err[160] = "";
		if (inst->ops->start && inst->ops->start(inst, err, sizeof(err))) {
			snprintf(s->sh->start_error[i], sizeof(s->sh->start_error[i]), "%s",
				 err[0] ? err : "start failed");
			ok = 1;
		}
	}
	if (write(ack_wr, &ok, 1) != 1 || ok) {
		finish(s);
		_exit(1);
	}

	for (;;) {
		uint64_t next, now;
		unsigned char cmd;
		struct pollfd pfd = { .fd = cmd_rd, .events = POLLIN };

		restart_due(s, &next);
		now = util_now_ns(CLOCK_MONOTONIC);
		uint64_t wait = next == UINT64_MAX ? NSEC_PER_SEC : next > now ? next - now : 0;
		struct timespec ts = { .tv_sec = (time_t)(wait / NSEC_PER_SEC),
				       .tv_nsec = (long)(wait % NSEC_PER_SEC) };
		int rc = ppoll(&pfd, 1, &ts, &wait_mask);
		reap(s);
		if (sup_term)
			break;
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0 || !(pfd.revents & (POLLIN | POLLHUP)))
			continue;
		ssize_t got = read(cmd_rd, &cmd, 1);
		if (got <= 0 || cmd == CMD_STOP)
			break; /* EOF: rtsoak is gone */
		if (cmd < s->nphases)
			apply_phase(s, s->masks[cmd]);
		if (write(ack_wr, &cmd, 1) != 1)
			break;
	}
	finish(s);
	_exit(0);
}

int load_supervisor_start(struct load_supervisor **out, struct load_instance *inst, unsigned n,
			  const uint32_t *phase_masks, unsigned nphases, const struct cpuset *pin,
			  char *err, size_t errlen)
{
	struct load_supervisor *s = calloc(1, sizeof(*s));
	int cmd[2] = { -1, -1 }, ack[2] = { -1, -1 };
	unsigned total = 0;
	char ok;

	if (!s)
		return -ENOMEM;
	s->dir.fd = s->dir.wfd = -1;
	s->inst = inst;
	s->n = n;
	s->nphases = nphases;
	memcpy(s->masks, phase_masks, nphases * sizeof(*phase_masks));
	s->sh =
	    mmap(NULL, sizeof(*s->sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->sh == MAP_FAILED) {
		free(s);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++) {
		bool pinned = true;
		inst[i].nworkers = inst[i].ops->workers ? inst[i].ops->workers(&inst[i], &pinned)
							: (unsigned)cpuset_count(&inst[i].cpus);
		if (total + inst[i].nworkers > LOAD_MAX_WORKERS) {
			snprintf(err, errlen, "%s: too many workers (at most %d in all)",
				 inst[i].ops->name, LOAD_MAX_WORKERS);
			load_supervisor_free(s);
			return -EINVAL;
		}
		inst[i].ctr = &s->sh->ctr[total];
		total += inst[i].nworkers;
		s->pinned[i] = pinned;
		s->slots[i] =
		    calloc(inst[i].nworkers ? inst[i].nworkers : 1, sizeof(struct worker_slot));
		if (!s->slots[i]) {
			load_supervisor_free(s);
			return -ENOMEM;
		}
		int cpu = -1;
		for (unsigned w = 0; w < inst[i].nworkers; w++) {
			if (pinned) {
				cpu = cpuset_next(&inst[i].cpus, cpu + 1);
				if (cpu < 0)
					cpu = cpuset_next(&inst[i].cpus, 0);
			}
			s->slots[i][w].cpu = pinned ? cpu : -1;
		}
	}
	if (n) {
		char why[512];
		int rc;
		snprintf(s->workdir, sizeof(s->workdir), "%s", inst[0].workdir);
		if ((rc = load_dir_create(&s->dir, s->workdir, why, sizeof(why))) < 0) {
			snprintf(err, errlen, "loads: %s", why);
			load_supervisor_free(s);
			return rc;
		}
		for (unsigned i = 0; i < n; i++) {
			inst[i].dirfd = s->dir.fd;
			snprintf(inst[i].dir_name, sizeof(inst[i].dir_name), "%s", s->dir.name);
		}
	}
	if (pipe2(cmd, O_CLOEXEC) || pipe2(ack, O_CLOEXEC)) {
		snprintf(err, errlen, "loads: pipe: %s", strerror(errno));
		load_supervisor_free(s);
		return -errno;
	}
	fflush(NULL);
	s->pid = fork();
	if (s->pid < 0) {
		snprintf(err, errlen, "loads: fork: %s", strerror(errno));
		close(cmd[0]);
		close(cmd[1]);
		close(ack[0]);
		close(ack[1]);
		load_supervisor_free(s);
		return -EAGAIN;
	}
	if (s->pid == 0) {
		close(cmd[1]);
		close(ack[0]);
		s->cmd_fd = cmd[0];
		supervisor_main(s, cmd[0], ack[1], pin);
	}
	close(cmd[0]);
	close(ack[1]);
	s->cmd_fd = cmd[1];
	s->ack_fd = ack[0];
	*out = s;
	if (read(s->ack_fd, &ok, 1) != 1 || ok) {
		for (unsigned i = 0; i < n; i++)
			if (s->sh->start_error[i][0]) {
				const char *e = s->sh->start_error[i];
				size_t len = strlen(inst[i].ops->name);
				/* "disk: ..." already names its load. */
				bool named = !strncmp(e, inst[i].ops->name, len) && e[len] == ':';
				snprintf(err, errlen, "%s%s%s", named ? "" : inst[i].ops->name,
					 named ? "" : ": ", e);
				break;
			}
		if (!err[0])
			snprintf(err, errlen, "loads: the supervisor failed to start");
		load_supervisor_stop(s);
		return -EIO;
	}
	return 0;
}

/* One command byte to the supervisor.  When it is gone already (it failed to
 * start, or was killed) the write fails with EPIPE: it must not kill rtsoak
 * with SIGPIPE before it has said why, so SIGPIPE is blocked around the
 * write and a pending one is taken back. */
static int cmd_write(struct load_supervisor *s, unsigned char cmd)
{
	sigset_t old;
	ssize_t n;
	int err;

	util_sigpipe_block(&old);
	n = write(s->cmd_fd, &cmd, 1);
	err = errno;
	util_sigpipe_restore(&old);
	return n == 1 ? 0 : n < 0 ? -err : -EIO;
}

int load_supervisor_phase(struct load_supervisor *s, unsigned p, unsigned timeout_ms)
{
	unsigned char cmd = (unsigned char)p, ack;
	struct pollfd pfd = { .fd = s->ack_fd, .events = POLLIN };

	if (s->pid <= 0 || cmd_write(s, cmd) < 0)
		return -EPIPE;
	if (poll(&pfd, 1, (int)timeout_ms) <= 0)
		return -ETIMEDOUT;
	if (read(s->ack_fd, &ack, 1) != 1 || ack != cmd)
		return -EPIPE;
	return 0;
}

void load_supervisor_stop(struct load_supervisor *s)
{
	unsigned char cmd = CMD_STOP;
	uint64_t deadline;

	if (!s || s->pid <= 0)
		return;
	(void)!cmd_write(s, cmd);
	/* Each load gets its grace period; then the supervisor goes. */
	deadline = util_now_ns(CLOCK_MONOTONIC) + (s->n + 2) * STOP_GRACE_NS + 5 * NSEC_PER_SEC;
	while (waitpid(s->pid, NULL, WNOHANG) == 0) {
		if (util_now_ns(CLOCK_MONOTONIC) > deadline) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, NULL, 0);
			break;
		}
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	s->pid = 0;
	close(s->cmd_fd);
	close(s->ack_fd);
	/* Normally the supervisor removed it; not if it was killed. */
	remove_dir(s);
}

static json_t *exit_json(const struct exit_record *e, uint64_t t0)
{
	char what[48];

	if (WIFEXITED(e->status))
		snprintf(what, sizeof(what), "exit %d", WEXITSTATUS(e->status));
	else if (WIFSIGNALED(e->status))
		snprintf(what, sizeof(what), "signal %d (%s)", WTERMSIG(e->status),
			 strsignal(WTERMSIG(e->status)));
	else
		snprintf(what, sizeof(what), "status %d", e->status);
	return json_pack("{s:I, s:s}", "t_ns", (json_int_t)(e->t_ns > t0 ? e->t_ns - t0 : 0),
			 "status", what);
}

json_t *load_supervisor_report(const struct load_supervisor *s, unsigned i, uint64_t active_ns,
			       uint64_t t0_ns)
{
	const struct load_instance *inst = &s->inst[i];
	uint64_t ops = 0, bytes = 0, errors = 0;
	int last_errno = 0;
	json_t *exits = json_array(), *extra = NULL;
	char cpus[1024];

	for (unsigned w = 0; w < inst->nworkers; w++) {
		ops += __atomic_load_n(&inst->ctr[w].ops, __ATOMIC_RELAXED);
		bytes += __atomic_load_n(&inst->ctr[w].bytes, __ATOMIC_RELAXED);
		errors += __atomic_load_n(&inst->ctr[w].errors, __ATOMIC_RELAXED);
		if (inst->ctr[w].last_errno)
			last_errno = inst->ctr[w].last_errno;
	}
	uint64_t nexits = s->sh->exits[i];
	uint64_t first = nexits > SUPERVISOR_EXIT_LOG ? nexits - SUPERVISOR_EXIT_LOG : 0;
	int bad = !exits;
	for (uint64_t k = first; !bad && k < nexits; k++)
		bad |= util_json_push(
		    exits, exit_json(&s->sh->exit_log[i][k % SUPERVISOR_EXIT_LOG], t0_ns));
	if (bad) { /* NULL: an error of the report, not a load missing from it */
		json_decref(exits);
		return NULL;
	}
	cpuset_format(&inst->cpus, cpus, sizeof(cpus));
	if (s->sh->stats[i][0])
		extra = json_loads(s->sh->stats[i], 0, NULL);
	/* A restart means a worker died while it should have run: louder than
	 * errors a load counted and backed off from, quieter than no start. */
	const char *status = s->sh->start_error[i][0] ? "failed"
			     : s->sh->restarts[i]     ? "restarted"
			     : errors		      ? "errors"
						      : "ok";
	/* the spec is the user's (an exec command: any bytes): valid UTF-8 */
	json_t *o = json_pack(
	    "{s:s, s:o, s:o, s:s, s:I, s:I, s:I, s:f, s:I, s:o, s:I, s:I, s:o, s:s, s:o}", "name",
	    inst->ops->name, "spec", util_json_string(inst->spec), "options",
	    load_instance_options_json(inst), "cpus", cpus, "workers", (json_int_t)inst->nworkers,
	    "ops", (json_int_t)ops, "bytes", (json_int_t)bytes, "ops_per_sec",
	    active_ns ? (double)ops * 1e9 / (double)active_ns : 0.0, "errors", (json_int_t)errors,
	    "last_error", last_errno ? json_string(strerror(last_errno)) : json_null(), "restarts",
	    (json_int_t)s->sh->restarts[i], "exits_total", (json_int_t)nexits, "exits", exits,
	    "status", status, "details", extra ? extra : json_object());
	return o;
}

bool load_supervisor_warning(const struct load_supervisor *s, unsigned i, char *buf, size_t len)
{
	uint64_t restarts = s->sh->restarts[i], nexits = s->sh->exits[i];
	char last[64] = "";

	if (!restarts)
		return false;
	if (nexits) {
		int st = s->sh->exit_log[i][(nexits - 1) % SUPERVISOR_EXIT_LOG].status;
		if (WIFEXITED(st))
			snprintf(last, sizeof(last), " (exit status %d)", WEXITSTATUS(st));
		else if (WIFSIGNALED(st))
			snprintf(last, sizeof(last), " (killed by signal %d, %s)", WTERMSIG(st),
				 strsignal(WTERMSIG(st)));
	}
	/* Two loads of one kind: say which (by position, not by the spec,
	 * which can be long). */
	char which[48] = "";
	for (unsigned k = 0; k < s->n; k++)
		if (k != i && s->inst[k].ops == s->inst[i].ops)
			snprintf(which, sizeof(which), " (--loads entry %u)", i + 1);
	snprintf(buf, len, "load %s%s: restarted %llu time%s%s", s->inst[i].ops->name, which,
		 (unsigned long long)restarts, restarts == 1 ? "" : "s", last);
	return true;
}

void load_supervisor_free(struct load_supervisor *s)
{
	if (!s)
		return;
	remove_dir(s);
	for (unsigned i = 0; i < s->n; i++)
		free(s->slots[i]);
	if (s->sh && s->sh != MAP_FAILED)
		munmap(s->sh, sizeof(*s->sh));
	free(s);
}
