/* probe: the measurement threads' plug-in interface.
 *
 * A probe family (timer, net) is one `struct probe_ops` in the
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

#include <jansson.h>

#include "recorder.h"
#include "series.h"

#define PROBE_MAX_RESULTS 4
/* idle + one phase per load in `--schedule rotate` (recorder.h) */
#define PROBE_MAX_PHASES RECORDER_MAX_PHASES

struct probe_thread;
struct probe_family;
struct run_config;

/* One entry of --probes ("timer", "net:target=host:port"), configured by
 * the CLI before anything starts. */
struct probe_config {
	const struct probe_ops *ops;
	char spec[256];		    /* as given */
	const char *const *results; /* result names; ops->results unless configure changed them */
	void *conf;		    /* the probe's parsed options */
};

struct probe_ops {
	const char *name;
	const char *summary;
	/* Non-NULL when this probe cannot run on this machine: why not. */
	const char *unavailable;
	/* Result names, NULL-terminated; the first is the probe's own name. */
	const char *const *results;
	/* Optional, in the CLI: parse this probe's options (the text after
	 * "name:", or NULL) against the run's settings; may set pc->results
	 * and pc->conf.  0, or -EINVAL with a one-line reason (exit 2). */
	int (*configure)(struct probe_config *pc, const char *opts, const struct run_config *cfg,
			 char *err, size_t errlen);
	/* Optional: set up sockets etc. on the probe thread before the start
	 * barrier.  Return 0 or -errno (message in t->err). */
	int (*prepare)(struct probe_thread *t);
	/* The measurement loop: runs from the start barrier until *t->stop
	 * or t->loops samples.  Returns 0 or -errno (message in t->err). */
	int (*run)(struct probe_thread *t);
	void (*cleanup)(struct probe_thread *t);
	/* Optional, housekeeping thread, right after the probes are released
	 * (t0): start what the probe's threads share, e.g. the net probe's
	 * sender thread.  0, or -errno with a message in err (the run fails). */
	int (*family_start)(struct probe_family *f, char *err, size_t errlen);
	/* Optional: after every probe thread has stopped. */
	void (*family_stop)(struct probe_family *f);
	/* Optional: extra counters of one thread's result for the report
	 * (net: sent, received, lost, ...), as integers into `out`. */
	void (*counters)(const struct probe_thread *t, unsigned result, json_t *out);
};

/* All threads of one --probes entry. */
struct probe_family {
	const struct probe_config *pc;
	const struct run_config *cfg;
	struct probe_thread **threads;
	unsigned n;
	uint64_t t0_ns;
	const int *stop;
	void *priv;
	char note[256]; /* set by family_start: becomes a report warning */
};

struct probe_thread {
	const struct probe_ops *ops;
	const struct probe_config *pc;
	const struct run_config *cfg;
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
	/* The time series and spike feed of the first result (timer, net,
	 * net.rtt): the net probe's split parts have none. */
	struct series_feed *feed;
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

/* Record one sample of result k in phase ph: for the first result the time
 * series and spike log first (see series_note), then the recorder.  `at` is
 * the sample's time since the run's start.  k is a constant at every call
 * site, so the test costs nothing. */
static inline void probe_record(struct probe_thread *t, unsigned k, unsigned ph, uint64_t latency,
				uint64_t at)
{
	if (k == 0)
		series_note(t->feed, latency, at);
	recorder_add(t->rec[k][ph], latency, at);
}

/* The registry: a NULL-terminated table. */
extern const struct probe_ops *const probe_registry[];
const struct probe_ops *probe_registry_find(const char *name);
/* How many results a configured probe records (pc->results). */
unsigned probe_config_result_count(const struct probe_config *pc);

extern const struct probe_ops probe_timer_ops;
extern const struct probe_ops probe_net_ops;
extern const struct probe_ops probe_icmp_ops;

#endif
