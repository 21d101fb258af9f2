/* SPDX-License-Identifier: GPL-2.0-or-later */
/* load: the plug-in interface for load generators.
 *
 * A load is one `struct load_ops` in loads/registry.c's NULL-terminated
 * table.  Adding a load touches its own file (loads/<name>.c), one line of
 * that table and one line of Makefile.am.
 *
 * Process model (loads/supervisor.c): every load runs as child processes
 * of a small supervisor process that rtsoak forks before its probe threads
 * start, so forking and restarting loads never touches the measuring
 * process's memory map.  Each *worker* is one child process: in the load's
 * own process group, SCHED_OTHER at the load's `nice`, pinned (to one load
 * CPU, or to all of them), with PR_SET_PDEATHSIG so that it dies with its
 * supervisor.  A worker that exits while its load should run is restarted
 * with back-off; the report counts restarts and records exit statuses.
 *
 * Hooks run in three places:
 *   parent (rtsoak, before anything starts): .unavailable, .check
 *   supervisor: .start before the first worker forks, .stop after the last
 *     worker of the run is gone, then .stats (passed to rtsoak as JSON text)
 *   worker (child process): .run
 * Counters live in shared memory (struct load_counters) so the parent reads
 * them without any IPC. */
#ifndef RTSOAK_LOAD_H
#define RTSOAK_LOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "cpuset.h"
#include "opt.h"

#define LOAD_MAX_OPTIONS 16
#define LOAD_MAX_INSTANCES 16
#define LOAD_MAX_WORKERS 256

/* Per worker, in MAP_SHARED memory: written by the worker only, read by
 * rtsoak with relaxed atomics. */
struct load_counters {
	uint64_t ops;	 /* the load's unit of work (see its summary) */
	uint64_t bytes;	 /* for I/O loads, else 0 */
	uint64_t errors; /* operations that failed and were backed off */
	int last_errno;	 /* errno of the last error, 0 if none */
	int pad;
};

struct load_ops;

/* One --loads entry, e.g. "cpu:load=50:kind=float". */
struct load_instance {
	const struct load_ops *ops;
	unsigned index;				/* position in --loads */
	char spec[256];				/* as the user wrote it */
	struct opt_value val[LOAD_MAX_OPTIONS]; /* by position in ops->options */
	int nice;	    /* common option: nice=N (-20..19, default ops->default_nice) */
	struct cpuset cpus; /* common option cpus=LIST, default --load-cpus */
	char workdir[4096]; /* --workdir: holds the run's private directory */
	/* The run's private directory in workdir (struct load_dir), set by
	 * load_supervisor_start: every file a load creates is opened relative
	 * to dirfd with O_CREAT | O_EXCL | O_NOFOLLOW, never by a path through
	 * the shared workdir.  -1 before (in .check). */
	int dirfd;
	char dir_name[64];    /* its name in workdir, for messages */
	char file_prefix[64]; /* "rtsoak-load-<pid>-<index>": names of files and abstract sockets */
	int probe_priority;   /* the probes' SCHED_FIFO priority (0: --no-rt) */
	unsigned nworkers;
	struct load_counters *ctr; /* [nworkers], shared memory */
	void *priv;		   /* the load's own state (supervisor side) */
};

/* What a worker process gets. */
struct load_worker {
	const struct load_instance *inst;
	unsigned id; /* 0 .. nworkers-1 */
	int cpu;     /* the CPU it is pinned to, or -1: all of inst->cpus */
	struct load_counters *ctr;
	volatile sig_atomic_t *stop; /* set by SIGTERM: return from .run promptly */
};

struct load_ops {
	const char *name;
	const char *summary;	   /* one line; says what one "op" is */
	const struct opt *options; /* terminated by { .name = NULL } */
	/* nice=N when the spec does not say: 0 for a load, 10 for a command
	 * the user brings (exec), which should not starve the others. */
	int default_nice;
	/* NULL, or why this load cannot run on this machine (checked by
	 * `rtsoak loads` and before a run). */
	const char *(*unavailable)(void);
	/* Optional, in rtsoak before anything starts: check option values
	 * against each other and the machine.  0, or -EINVAL with a one-line
	 * reason (exit 2). */
	int (*check)(const struct load_instance *inst, char *err, size_t errlen);
	/* Optional: number of workers (default: one per CPU of inst->cpus,
	 * worker i pinned to the i-th CPU).  Return n and set *pinned = false
	 * for workers that float over all of inst->cpus. */
	unsigned (*workers)(const struct load_instance *inst, bool *pinned);
	/* Optional, supervisor, once before the first worker: create files
	 * (only with openat(inst->dirfd, ..., O_CREAT | O_EXCL | O_NOFOLLOW))
	 * etc. */
	int (*start)(struct load_instance *inst, char *err, size_t errlen);
	/* Worker: do the work until *w->stop; count each op in w->ctr.
	 * Returns the exit code of the worker process (0 ok). */
	int (*run)(struct load_worker *w);
	/* Optional, supervisor, after every worker of this load is gone:
	 * remove what .start made. */
	void (*stop)(struct load_instance *inst);
	/* Optional, supervisor, after .stop: extra facts for the report's
	 * load entry (e.g. disk: whether O_DIRECT was used).  Keep it small:
	 * it travels to rtsoak as at most 1 KiB of JSON text.  0, or nonzero
	 * when a value could not be added (out of memory): the report then
	 * says the details are incomplete rather than leave them out. */
	int (*stats)(const struct load_instance *inst, json_t *out);
};

/* NULL-terminated. */
extern const struct load_ops *const load_registry[];
const struct load_ops *load_registry_find(const char *name);

/* Option access for hooks, by name (aborts on a name not in the table:
 * that is a bug in the load, not bad input). */
int64_t load_opt_int(const struct load_instance *inst, const char *name);
const char *load_opt_str(const struct load_instance *inst, const char *name);

/* Count work from a worker (relaxed atomics: the parent reads live). */
static inline void load_count(struct load_counters *c, uint64_t ops, uint64_t bytes)
{
	__atomic_store_n(&c->ops, c->ops + ops, __ATOMIC_RELAXED);
	if (bytes)
		__atomic_store_n(&c->bytes, c->bytes + bytes, __ATOMIC_RELAXED);
}

static inline void load_count_error(struct load_counters *c, int err)
{
	__atomic_store_n(&c->errors, c->errors + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&c->last_errno, err, __ATOMIC_RELAXED);
}

/* Sleep up to `ns` unless stopped first; for back-off in workers. */
void load_sleep(const struct load_worker *w, uint64_t ns);

/* SIGKILL and reap every child of the calling process until none is left,
 * including what is reparented to it meanwhile: called by a process that is
 * a PR_SET_CHILD_SUBREAPER (the supervisor at the end of a run, an exec
 * worker when its command exits), it leaves no descendant behind, not even
 * one that left the process group with setsid() (a daemon).  Children are
 * found in /proc; where /proc is not of our pid namespace nothing is killed,
 * only reaped, and it gives up after 5 s (a process stuck in the kernel). */
void load_kill_children(void);

/* Parse one --loads entry ("cpu:load=50:kind=float") into inst, applying
 * defaults and the load's .unavailable.  0, or -errno with a one-line
 * reason naming the load, the option and the valid choices.  The caller
 * then fills workdir, file_prefix and probe_priority and calls
 * load_instance_check() (the load's .check sees the whole instance). */
int load_instance_parse(struct load_instance *inst, const char *spec,
			const struct cpuset *load_cpus, char *err, size_t errlen);
int load_instance_check(const struct load_instance *inst, char *err, size_t errlen);
void load_instance_free(struct load_instance *inst);
/* The effective options, for the report. */
json_t *load_instance_options_json(const struct load_instance *inst);
/* "cpu, disk, ..." */
void load_registry_names(char *buf, size_t len);
/* The run's private directory for load files, "<workdir>/rtsoak-load-<pid>-XXXXXX"
 * (mkdtemp: mode 0700, ours), so that nobody else can create, rename or
 * link anything in it: a shared workdir such as /tmp cannot redirect a
 * load's writes with planted symlinks. */
struct load_dir {
	int wfd;       /* the workdir, -1 when closed */
	int fd;	       /* the private directory, -1 when closed */
	char name[64]; /* its name in the workdir */
};

/* Make it.  0, or -errno with a one-line reason. */
int load_dir_create(struct load_dir *d, const char *workdir, char *err, size_t errlen)
    __attribute__((warn_unused_result));
/* Remove what is in it (by name, never following a symlink, never
 * recursing) and then the directory, and close it.  Safe to call twice and
 * from two processes.  0, or -errno of the first thing that could not be
 * removed. */
int load_dir_remove(struct load_dir *d) __attribute__((warn_unused_result));
/* Remove what a killed earlier run left in workdir: private directories
 * (and the plain files of versions before them) named with a pid that no
 * longer runs, that are ours (owner = our uid) and really directories
 * (lstat: a symlink is never followed).  Returns how many were found, with
 * a one-line account in msg. */
int load_leftovers_clean(const char *workdir, char *msg, size_t msglen);

#endif
