/* SPDX-License-Identifier: GPL-2.0-or-later */
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

#include "cpuset.h"
#include "opt.h"
#include "recorder.h"
#include "series.h"

#define PROBE_MAX_RESULTS 4
#define PROBE_MAX_OPTIONS 12
/* idle + one phase per load in `--schedule rotate` (recorder.h) */
#define PROBE_MAX_PHASES RECORDER_MAX_PHASES

/* A probe thread's stack (session.c; bench/series_drive.c's threads
 * too): mlockall makes all of it resident, so 256 KiB
 * each was 128 MiB of a 256-CPU timer+net run (issue 20).  Measured by
 * scanning the stacks after runs of the timer, net and icmp probes: 7.8
 * to 8.7 KiB used, glibc's thread descriptor and TLS at the top and the
 * kick signal's frame included; 64 KiB leaves 7 times that.  ASan's
 * redzones make every frame several times bigger. */
#ifdef __SANITIZE_ADDRESS__
#define PROBE_STACK_SIZE (256 * 1024)
#else
#define PROBE_STACK_SIZE (64 * 1024)
#endif
/* touched at the thread's start (rt_prefault_stack): below the guard page
 * whatever the frames above it */
#define PROBE_STACK_PREFAULT (32 * 1024)

struct probe_thread;
struct probe_family;

/* What a probe knows of the run it is part of: the measured and the
 * housekeeping CPUs, the probes' priority and period.  The command layer
 * fills it (probes never see its run_config). */
struct probe_env {
	struct cpuset cpus;	    /* measured: one thread per probe on each */
	struct cpuset housekeeping; /* where the session's own thread runs */
	int priority;		    /* the probes' SCHED_FIFO priority */
	bool no_rt;		    /* --no-rt: SCHED_OTHER, priority unused */
	uint64_t interval_ns;	    /* --interval */
};

/* One entry of --probes ("timer", "net:target=host:port"), configured by
 * the CLI before anything starts. */
struct probe_config {
	const struct probe_ops *ops;
	char spec[256];		    /* as given */
	const char *const *results; /* result names; ops->results unless configure changed them */
	/* ops->options parsed from the spec and the aliases, defaults applied
	 * (an `optional` option not given is !given with .i = 0). */
	struct opt_value val[PROBE_MAX_OPTIONS];
	/* The period of its samples, the timing precision of its spike
	 * times (the report's config.probe_intervals_ns): env->interval_ns
	 * unless configure sets another. */
	uint64_t interval_ns;
	void *conf; /* the probe's parsed options */
};

/* A long command-line option that sets one of a probe's options for every
 * --probes entry of that probe: --net-interval T is net:interval=T. */
struct probe_alias {
	const char *flag;   /* without the dashes: "net-interval" */
	const char *option; /* a name in ops->options */
};

struct probe_ops {
	const char *name;
	const char *summary;
	/* Its options ("net:interval=2ms"), terminated by { .name = NULL },
	 * or NULL: parsed by probe_config_parse into pc->val[]. */
	const struct opt *options;
	/* Command-line aliases of options, terminated by { .flag = NULL }. */
	const struct probe_alias *aliases;
	/* Optional: NULL, or why this probe cannot run on this machine
	 * (checked by `rtsoak probes` and before a run). */
	const char *(*unavailable)(void);
	/* Result names, NULL-terminated; the first is the probe's own name. */
	const char *const *results;
	/* How a spike of the first result is explained (--trace): the
	 * sample's time (probe_record's `at`) is the start of its latency
	 * window, a deadline, or with at_wakeup its end, the wake-up (round
	 * trips: the window is [at - latency, at]).  hrtimer: the window
	 * starts at the expiry of the probe thread's own hrtimer, which
	 * splits it into IRQ and thread latency. */
	bool at_wakeup;
	bool hrtimer;
	/* Optional, in the CLI once every option is known: check pc->val[]
	 * against each other, the machine and env (resolve a host, check a
	 * CPU); may set pc->results, pc->interval_ns and pc->conf.  0, or
	 * -EINVAL with a one-line reason (exit 2). */
	int (*configure)(struct probe_config *pc, const struct probe_env *env, char *err,
			 size_t errlen);
	/* Optional: what the report's config says of this probe's settings
	 * beyond its options (e.g. which RX timestamps a split uses), into
	 * the config object itself. */
	void (*echo)(const struct probe_config *pc, json_t *config);
	/* Optional: release pc->conf (after the run, or after a failed
	 * configure of a later probe). */
	void (*unconfigure)(struct probe_config *pc);
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
	const struct probe_env *env;
	struct probe_thread **threads;
	unsigned n;
	uint64_t t0_ns;		       /* the run's origin: the end of the warm-up */
	uint64_t start_ns;	       /* when its threads were released: t0_ns - warm-up */
	const uint64_t *count_from_ns; /* the session's: see probe_thread */
	const int *stop;
	void *priv;
	char note[256]; /* set by family_start: becomes a report warning */
};

struct probe_thread {
	/* The timer probe's one check per sample (probe_ctl): the phase now
	 * running, and PROBE_CTL_LOOK, which the session sets (release) with
	 * each change of *stop, count_from_ns or the phase (session.c:
	 * publish_ctl) and the probe clears when it goes back to its common
	 * path.  While it is set the probe reads them all, every sample.
	 * First: its address is the thread's, one register fewer in the
	 * probe's loop (bench/instructions.sh). */
	unsigned ctl;
	const struct probe_ops *ops;
	const struct probe_config *pc;
	const struct probe_env *env;
	int cpu;
	int priority; /* 0: SCHED_OTHER (--no-rt) */
	uint64_t interval_ns;
	uint64_t loops; /* 0: until stop */
	/* CLOCK_MONOTONIC of the run's origin (time 0 of every sample), set
	 * before release: the end of the warm-up.  The probe starts at
	 * start_ns (t0_ns - warm-up); its samples before t0_ns do not
	 * count. */
	uint64_t t0_ns;
	uint64_t start_ns;
	/* Samples whose time (CLOCK_MONOTONIC) is before this do not count
	 * (probe_counts): t0_ns after the warm-up; in ab, after each arm
	 * switch, the switch's end + --settle (UINT64_MAX while it happens).
	 * A copy per thread, in its own struct, so the check is one compare
	 * with memory; the session stores each, the probe loads its own,
	 * both relaxed. */
	uint64_t count_from_ns;
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

/* The control word (probe_thread.ctl), read relaxed: once PROBE_CTL_LOOK
 * is seen, an acquire fence orders the reads of what it announced. */
#define PROBE_CTL_LOOK 0x100u /* above every phase (PROBE_MAX_PHASES) */
_Static_assert(PROBE_MAX_PHASES <= PROBE_CTL_LOOK, "a phase fits below PROBE_CTL_LOOK");
static inline unsigned probe_ctl(const struct probe_thread *t)
{
	return __atomic_load_n(&t->ctl, __ATOMIC_RELAXED);
}

/* Does a sample whose deciding time is `when` (CLOCK_MONOTONIC) count?
 * One compare with the thread's count_from_ns: the warm-up and the settle
 * times are the session's to set.  The time is the one that decides the
 * sample's fate once: the timer's deadline, a datagram's send slot (the
 * sender decides and the receiver obeys, so a datagram is never counted
 * sent but discarded received). */
static inline bool probe_counts(const struct probe_thread *t, uint64_t when)
{
	return when >= __atomic_load_n(&t->count_from_ns, __ATOMIC_RELAXED);
}

/* n samples (or deadlines) that do not count: counted as discarded in each
 * of the thread's results (a split result is discarded with its parent). */
static inline void probe_discard(struct probe_thread *t, unsigned ph, uint64_t n)
{
	for (unsigned k = 0; k < t->nrec; k++)
		recorder_add_discarded(t->rec[k][ph], n);
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
/* Parse a --probes entry's options (the text after "name:", NULL for
 * none) into pc->val[]: every option by name, once; the defaults are
 * applied later, by probe_config_finish.  0, or -EINVAL with a one-line
 * reason naming the probe. */
int probe_config_parse(struct probe_config *pc, const char *opts, char *err, size_t errlen);
/* An alias's value (--net-interval 2ms) for an entry whose probe has
 * that alias: refused when the entry sets the same option itself. */
int probe_config_alias(struct probe_config *pc, const struct probe_alias *a, const char *value,
		       char *err, size_t errlen);
/* Defaults, then the probe's configure hook. */
int probe_config_finish(struct probe_config *pc, const struct probe_env *env, char *err,
			size_t errlen);
/* The options as the report's config.probe_options holds them. */
json_t *probe_config_options_json(const struct probe_config *pc);
/* An option's value by name (aborts on a name not in the table: a bug). */
const struct opt_value *probe_opt(const struct probe_config *pc, const char *name);
void probe_config_free(struct probe_config *pc);
/* "timer, net, icmp" */
void probe_registry_names(char *buf, size_t len);

extern const struct probe_ops probe_timer_ops;
extern const struct probe_ops probe_net_ops;
extern const struct probe_ops probe_icmp_ops;

#endif
