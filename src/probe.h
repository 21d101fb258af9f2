/* probe: the measurement threads' plug-in interface.
 *
 * A probe family (timer, later net) is one `struct probe_ops` in the
 * registry table (probe_registry.c).  The session creates one
 * `struct probe_thread` per (probe, measured CPU), already pinned and at
 * its SCHED_FIFO priority when the hooks run.  A probe may produce more than
 * one result per thread (the net probe splits total/stack/wakeup), so it
 * names its results and gets one recorder for each. */
#ifndef RTSOAK_PROBE_H
#define RTSOAK_PROBE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "recorder.h"

#define PROBE_MAX_RESULTS 4
/* idle + one phase per load in `--schedule rotate` */
#define PROBE_MAX_PHASES 17

struct probe_thread;

struct probe_ops {
	const char *name;
	const char *summary;
	/* Non-NULL when this probe cannot run on this machine: why not. */
	const char *unavailable;
	/* Result names, NULL-terminated; the first is the probe's own name. */
	const char *const *results;
	/* Optional: set up sockets etc. on the probe thread before the start
	 * barrier.  Return 0 or -errno (message in t->err). */
	int (*prepare)(struct probe_thread *t);
	/* The measurement loop: runs from the start barrier until *t->stop
	 * or t->loops samples.  Returns 0 or -errno (message in t->err). */
	int (*run)(struct probe_thread *t);
	void (*cleanup)(struct probe_thread *t);
};

struct probe_thread {
	const struct probe_ops *ops;
	int cpu;
	int priority; /* 0: SCHED_OTHER (--no-rt) */
	uint64_t interval_ns;
	uint64_t loops;	 /* 0: until stop */
	uint64_t t0_ns;	 /* CLOCK_MONOTONIC start of the run, set before release */
	const int *stop; /* read with relaxed atomics; set by the session */
	/* The phase now running (index into rec[][x]); the session switches
	 * it, probes read it with a relaxed load once per sample. */
	const unsigned *phase;
	struct recorder *rec[PROBE_MAX_RESULTS][PROBE_MAX_PHASES];
	unsigned nrec, nphases;
	pthread_t thread;
	pid_t tid;  /* kernel thread id, for the report and for tests */
	void *priv; /* the probe's own state */
	char err[160];
};

static inline bool probe_should_stop(const struct probe_thread *t)
{
	return __atomic_load_n(t->stop, __ATOMIC_RELAXED) != 0;
}

static inline unsigned probe_phase(const struct probe_thread *t)
{
	return __atomic_load_n(t->phase, __ATOMIC_RELAXED);
}

/* The registry: a NULL-terminated table. */
extern const struct probe_ops *const probe_registry[];
const struct probe_ops *probe_registry_find(const char *name);
unsigned probe_result_count(const struct probe_ops *ops);

extern const struct probe_ops probe_timer_ops;

#endif
