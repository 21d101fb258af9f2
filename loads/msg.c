// SPDX-License-Identifier: GPL-2.0-or-later
/* msg: hackbench-style scheduler load, run until stopped.
 *
 * `groups` groups, each of `tasks` sender and `tasks` receiver processes;
 * every sender writes `size`-byte messages to every receiver of its group
 * over AF_UNIX SOCK_STREAM socketpairs (hackbench's default), round robin,
 * forever.  Why it stresses the scheduler: a receiver blocks in read() until
 * a message arrives and a sender blocks in write() when the socket buffer is
 * full, so every message can be a wake-up (try_to_wake_up(), often to
 * another CPU: an IPI and a remote runqueue lock), and with 2 * tasks
 * runnable-or-nearly tasks per group the run queues are long, the load
 * balancer keeps migrating them, and context switches come at a rate of
 * hundreds of thousands per second: the path on which a real-time task's
 * wake-up must preempt whatever runs.
 *
 * One worker process per group, floating over the load CPUs like
 * hackbench's tasks.  The worker forks the group's tasks as processes, not
 * threads, because that is hackbench's default and what makes a context
 * switch also switch address spaces (switch_mm(), TLB flush or ASID change),
 * which is part of the cost this load is meant to put on the scheduler.  The
 * tasks inherit the worker's process group, nice and affinity, die with it
 * (PR_SET_PDEATHSIG) and are killed and reaped by it when it stops.  They
 * count the messages they receive straight into the worker's counters,
 * which are in MAP_SHARED memory, with atomic adds (several writers).
 *
 * One op is one message received. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "load.h"

#define MS 1000000ull
/* A receiver adds to the shared counters every this many messages: one
 * atomic per message would have up to 100 receivers bouncing one line. */
#define COUNT_EVERY 16

static const struct opt msg_options[] = {
	{ .name = "groups",
	  .type = OPT_INT,
	  .def = "2",
	  .min = 1,
	  .max = 64,
	  .help = "groups of senders and receivers (one worker process each)" },
	{ .name = "tasks",
	  .type = OPT_INT,
	  .def = "10",
	  .min = 1,
	  .max = 100,
	  .help = "senders, and as many receivers, per group" },
	{ .name = "size",
	  .type = OPT_SIZE,
	  .def = "100",
	  .min = 1,
	  .max = 65536,
	  .help = "message size, bytes" },
	{ .name = NULL },
};

static unsigned msg_workers(const struct load_instance *inst, bool *pinned)
{
	*pinned = false;
	return (unsigned)load_opt_int(inst, "groups");
}

struct group {
	unsigned tasks;
	size_t size;
	int *in;    /* [tasks] receiver j reads in[j] */
	int *out;   /* [tasks] every sender writes out[j] */
	pid_t *pid; /* [2 * tasks], 0: not running */
	unsigned npid;
};

static void close_pairs(struct group *g)
{
	for (unsigned j = 0; j < g->tasks; j++) {
		if (g->in[j] >= 0)
			close(g->in[j]);
		if (g->out[j] >= 0)
			close(g->out[j]);
		g->in[j] = g->out[j] = -1;
	}
}

static void flush_count(struct load_counters *c, uint64_t n, size_t size)
{
	__atomic_fetch_add(&c->ops, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&c->bytes, n * size, __ATOMIC_RELAXED);
}

static __attribute__((noreturn)) void receiver(struct load_worker *w, struct group *g, int fd,
					       char *buf)
{
	uint64_t n = 0;

	for (;;) {
		size_t got = 0;
		while (got < g->size) {
			ssize_t r = read(fd, buf + got, g->size - got);
			if (r > 0) {
				got += (size_t)r;
				continue;
			}
			if (r < 0 && errno == EINTR)
				continue;
			/* EOF or an error: the group is broken (the worker sees
			 * us exit and rebuilds it).  The exit code says why. */
			flush_count(w->ctr, n, g->size);
			_exit(r == 0 ? EPIPE : errno);
		}
		if (++n == COUNT_EVERY) {
			flush_count(w->ctr, n, g->size);
			n = 0;
		}
	}
}

static __attribute__((noreturn)) void sender(struct group *g, const char *buf)
{
	for (;;)
		for (unsigned j = 0; j < g->tasks; j++) {
			size_t done = 0;
			while (done < g->size) {
				/* MSG_NOSIGNAL: a dead receiver is EPIPE, not a
				 * SIGPIPE death. */
				ssize_t r =
				    send(g->out[j], buf + done, g->size - done, MSG_NOSIGNAL);
				if (r > 0)
					done += (size_t)r;
				else if (!(r < 0 && errno == EINTR))
					_exit(r < 0 ? errno : EIO);
			}
		}
}

/* Become task i of the group (i < tasks: receiver i, else a sender), once
 * the worker closes the write end of `go`. */
static __attribute__((noreturn)) void child(struct load_worker *w, struct group *g, unsigned i,
					    pid_t parent, const int go[2], char *buf)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	ssize_t r;
	char c;

	/* Die with the worker, even if it is SIGKILLed; and checking the parent
	 * after setting it closes the race with a worker that died first. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	/* The worker's SIGTERM handler only sets a flag the tasks never look at:
	 * a SIGTERM to the process group should end them outright. */
	sigaction(SIGTERM, &dfl, NULL);
	for (unsigned j = 0; j < g->tasks; j++) {
		if (i < g->tasks) {
			close(g->out[j]);
			if (j != i)
				close(g->in[j]);
		} else {
			close(g->in[j]);
		}
	}
	/* Like hackbench, wait until the whole group exists: forking is slow
	 * (milliseconds, on a VM) when it competes with tasks already at work. */
	close(go[1]);
	while ((r = read(go[0], &c, 1)) < 0 && errno == EINTR)
		;
	close(go[0]);
	if (i < g->tasks)
		receiver(w, g, g->in[i], buf);
	sender(g, buf);
}

static void kill_all(struct group *g)
{
	for (unsigned i = 0; i < g->npid; i++)
		if (g->pid[i] > 0)
			kill(g->pid[i], SIGKILL);
	for (unsigned i = 0; i < g->npid; i++)
		if (g->pid[i] > 0)
			while (waitpid(g->pid[i], NULL, 0) < 0 && errno == EINTR)
				;
	g->npid = 0;
}

/* Socketpairs, then the tasks: receivers first, so that no sender fills a
 * socket nobody reads yet for long.  0 or -errno (everything undone). */
static int start_group(struct load_worker *w, struct group *g, char *buf)
{
	pid_t self = getpid();
	int rc = 0, go[2];

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	for (unsigned j = 0; j < g->tasks; j++) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
			rc = -errno;
			close_pairs(g);
			close(go[0]);
			close(go[1]);
			return rc;
		}
		g->in[j] = sv[0];
		g->out[j] = sv[1];
	}
	for (unsigned i = 0; i < 2 * g->tasks && !*w->stop; i++) {
		pid_t p = fork();
		if (p == 0)
			child(w, g, i, self, go, buf);
		if (p < 0) {
			rc = -errno;
			break;
		}
		g->pid[g->npid++] = p;
	}
	/* The tasks hold what they use; ours would only keep dead peers'
	 * sockets open.  Closing `go` starts them. */
	close_pairs(g);
	close(go[0]);
	close(go[1]);
	if (rc < 0)
		kill_all(g);
	return rc;
}

static int msg_run(struct load_worker *w)
{
	struct group g = { .tasks = (unsigned)load_opt_int(w->inst, "tasks"),
			   .size = (size_t)load_opt_int(w->inst, "size") };
	char *buf = calloc(1, g.size);
	int rc;

	g.in = calloc(g.tasks, sizeof(int));
	g.out = calloc(g.tasks, sizeof(int));
	g.pid = calloc(2 * (size_t)g.tasks, sizeof(pid_t));
	if (!buf || !g.in || !g.out || !g.pid)
		return 1;
	for (unsigned j = 0; j < g.tasks; j++)
		g.in[j] = g.out[j] = -1;
	while (!*w->stop) {
		if (!g.npid && (rc = start_group(w, &g, buf)) < 0) {
			/* EAGAIN (no processes left), EMFILE, ENOMEM ... */
			load_count_error(w->ctr, -rc);
			load_sleep(w, 100 * MS);
			continue;
		}
		/* The tasks do the work; we only watch for one dying.  10 ms
		 * polls keep the reaction to a stop well inside 100 ms. */
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 10 * (long)MS };
		nanosleep(&ts, NULL);
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);
		if (p <= 0)
			continue;
		/* Reaped: never signal that pid again, it may be reused. */
		for (unsigned i = 0; i < g.npid; i++)
			if (g.pid[i] == p)
				g.pid[i] = 0;
		/* A SIGTERM to our process group kills the tasks too, and sets
		 * *w->stop before waitpid() returns to us: not an error. */
		if (*w->stop)
			break;
		/* A task died (killed, or its peer did): the group is broken.
		 * Count it (the errno its exit code carries; ECHILD for a
		 * signal) and start the group afresh. */
		load_count_error(w->ctr,
				 WIFEXITED(st) && WEXITSTATUS(st) ? WEXITSTATUS(st) : ECHILD);
		kill_all(&g);
		load_sleep(w, 100 * MS);
	}
	kill_all(&g);
	free(g.pid);
	free(g.out);
	free(g.in);
	free(buf);
	return 0;
}

const struct load_ops load_msg_ops = {
	.name = "msg",
	.summary = "hackbench-style groups of sender and receiver processes exchanging messages "
		   "over AF_UNIX stream socketpairs, until stopped; op = one message received",
	.options = msg_options,
	.workers = msg_workers,
	.run = msg_run,
};
