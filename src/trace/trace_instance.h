/* SPDX-License-Identifier: GPL-2.0-or-later */
/* trace_instance: rtsoak's own tracefs instance, instances/rtsoak-<pid>-<token>.
 *
 * The flight recorder of `run --trace` records into an instance of its own
 * so that the machine's tracing (the top-level buffer: tracing_on,
 * current_tracer, set_event, buffer_size_kb, trace_clock) and other tools'
 * instances are never touched.  Create mounts tracefs at /sys/kernel/tracing
 * when nothing is mounted there (and destroy unmounts only what create
 * mounted), removes the instances of rtsoak processes that are gone (a
 * SIGKILLed run leaves one behind), makes a new instance (never reuses an
 * existing one), restricts it to the measured CPUs with trace_clock "mono"
 * and enables the events of issue 14 that this kernel has; its tracing
 * stays off until trace_instance_start() (the recorder calls it once it is
 * ready to read).
 *
 *
 * Ownership: an instance's name alone proves nothing (anyone root can make
 * rtsoak-123, and a run in a PID namespace sees other pids).  Before it
 * makes an instance, create takes an owner record in the run directory
 * (lock.h, LOCK_TRACE: /run/rtsoak/trace-<name>, held with a record lock
 * for as long as the process lives, whatever its PID namespace), and the
 * name carries 64 random bits.  Only an instance whose record exists and
 * whose lock nobody holds is stale: one without a record (another tool's,
 * a hand-made one, an older rtsoak's) and one whose owner lives are never
 * touched.  A live run cannot be protected from root writing into its
 * instance, so trace_instance_check tells it when that happened.
 *
 * Without libtracefs (configure --with-tracefs) every function returns
 * -ENOTSUP with TRACE_NOT_BUILT as its message.
 *
 * Not thread-safe: create and destroy from one thread (the session's), the
 * recorder reads the instance from the housekeeping thread in between. */
#ifndef RTSOAK_TRACE_INSTANCE_H
#define RTSOAK_TRACE_INSTANCE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuset.h"
#include "lock.h"

#define TRACE_NOT_BUILT "rtsoak was built without tracefs support (configure --with-tracefs)"
#define TRACE_ROOT "/sys/kernel/tracing"
#define TRACE_DEFAULT_BUFFER_KB 2048u
#define TRACE_MAX_EVENTS 64
#define TRACE_EVNAME_LEN 64 /* "system:event" */

struct tracefs_instance;

struct trace_instance_config {
	struct cpuset cpus; /* the measured CPUs: the instance's tracing_cpumask */
	unsigned buffer_kb; /* ring buffer per CPU; 0: TRACE_DEFAULT_BUFFER_KB */
	/* --trace-stacks: a stacktrace trigger on irq_vectors:local_timer_entry,
	 * so that each local-timer interrupt that comes in a task records the
	 * stack it interrupted (the ftrace:kernel_stack event, added to events) */
	bool stacks;
	/* Leave out timer:hrtimer_expire_entry/exit: a run's timer probe fires
	 * them at every wake-up, and the analysis anchors on its sched_waking
	 * (docs/ARCHITECTURE.md, the flight recorder's cost) */
	bool no_hrtimer;
	/* Leave out sched:sched_wakeup: only round-trip probes need it */
	bool no_wakeup;
};

/* The filters trace_instance_filter_probes wrote, for the report. */
#define TRACE_MAX_FILTERS 8
#define TRACE_FILTER_LEN 1024
struct trace_filter {
	char event[TRACE_EVNAME_LEN]; /* "sched:sched_switch" */
	char filter[TRACE_FILTER_LEN];
};

struct trace_instance {
	struct tracefs_instance *inst;
	char name[48];	     /* "rtsoak-<pid>-<16 hex digits>" */
	char root[PATH_MAX]; /* where tracefs is mounted (TRACE_ROOT) */
	bool mounted;	     /* create mounted it: destroy unmounts it */
	struct cpuset cpus;
	unsigned buffer_kb;
	int stale_removed;    /* instances of dead rtsoak processes create removed */
	bool stacks;	      /* the stacktrace trigger is set */
	bool stacks_filtered; /* ... only for interrupts that come in a task */
	unsigned nevents;     /* the events enabled, "sched:sched_switch" ... */
	char events[TRACE_MAX_EVENTS][TRACE_EVNAME_LEN];
	struct lock owner; /* the owner record, held while the instance exists */
	/* CLOCK_MONOTONIC of this process's time namespace minus the trace
	 * clock's (the host's): /proc/self/timens_offsets, 0 outside one */
	int64_t mono_offset_ns;
	unsigned nfilters; /* trace_instance_filter_probes */
	struct trace_filter filters[TRACE_MAX_FILTERS];
	/* events[i] whose filter the kernel refused (bit i): their filter
	 * file holds the kernel's error, which trace_instance_check leaves */
	uint64_t filter_refused;
	/* What start left in the instance, for trace_instance_check. */
	bool started;
	char want_kb[64], want_mask[256], want_events[TRACE_MAX_EVENTS * TRACE_EVNAME_LEN];
};

/* Mount tracefs if needed, clean up stale instances, create and configure
 * rtsoak-<pid> (its tracing off).  0, or -errno with one line in err
 * (no "rtsoak: " prefix): -ENOTSUP not built in, -ENODEV no tracefs
 * (and it cannot be mounted), -EPERM a path that is not what it should be
 * (not tracefs, or a symlink not owned by root), -EEXIST the instance
 * exists, -EACCES not root...  On failure nothing is left behind. */
int trace_instance_create(struct trace_instance *ti, const struct trace_instance_config *cfg,
			  char *err, size_t errlen) __attribute__((warn_unused_result));
/* The instance's tracing_on to 1 (0 or -errno with err). */
int trace_instance_start(struct trace_instance *ti, char *err, size_t errlen)
    __attribute__((warn_unused_result));
/* Tracing off, the instance removed, tracefs unmounted if create mounted
 * it.  Safe to call twice and on a zeroed struct.  0 or -errno with err. */
int trace_instance_destroy(struct trace_instance *ti, char *err, size_t errlen);

/* Drop the timer probes' own routine events (issue 31): their threads
 * tids[0..n) exist now.  Each event a timer probe's wake-up from idle fires
 * costs it latency, recorded or not (a filtered event still costs a third
 * of a recorded one, docs/BENCHMARKS.md); what the filters keep is
 * everything that is not that wake-up:
 *   sched_switch       all but the switches from idle (prev_pid 0) to a probe
 *   sched_wakeup       all but a probe woken in idle's context (its timer
 *                      interrupt on an idle CPU; sched_waking keeps it)
 *   local_timer_entry/exit  those that interrupt a task (not the idle task)
 *   cpu_idle           the entries (the exits, state 4294967295, are unused)
 * so the probe's wake-up from idle leaves one event, its waking, and
 * anything else that ran, interrupted or was woken on the CPU is recorded
 * as before.  The analysis knows it (attrib.h, idle_unrecorded).  n == 0:
 * only cpu_idle's.
 * 0, or -errno with err (the filters already written stay: the instance
 * records more, never less).  Tids that are not consecutive make one range
 * each; more than TRACE_FILTER_RANGES ranges is -E2BIG (nothing written). */
#define TRACE_FILTER_RANGES 24
int trace_instance_filter_probes(struct trace_instance *ti, const int32_t *tids, size_t n,
				 char *err, size_t errlen) __attribute__((warn_unused_result));
/* The filter written on "system:event", or NULL. */
const char *trace_instance_filter_of(const struct trace_instance *ti, const char *event);

/* Has anyone changed the instance since start (tracing_on, trace_clock,
 * buffer_size_kb, tracing_cpumask, the events enabled) or removed it?
 * 0 no; 1 yes, with what in `what` (one clause: "its tracing_on was set to
 * 0"); -errno when it could not tell.  Reads six small files. */
int trace_instance_check(const struct trace_instance *ti, char *what, size_t len)
    __attribute__((warn_unused_result));

/* Remove the instances of rtsoak runs that are gone under a mounted
 * tracefs at root: those whose owner record (LOCK_TRACE) nobody holds;
 * records left without their instance go too.  Returns how many instances
 * it removed, or -errno with err. */
int trace_instance_cleanup_stale(const char *root, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* The monotonic offset of this process's time namespace in ns
 * (/proc/self/timens_offsets; 0 without time namespaces).  0 or -errno. */
int trace_timens_offset(int64_t *mono_ns) __attribute__((warn_unused_result));

/* The top-level buffer's settings, to prove they are left alone. */
struct trace_top_state {
	char tracing_on[16], current_tracer[64], buffer_size_kb[64], trace_clock[256];
	char tracing_cpumask[256];
	char set_event[16384];
	bool truncated; /* set_event did not fit */
};
/* Read them under root (a mounted tracefs).  0 or -errno. */
int trace_top_snapshot(const char *root, struct trace_top_state *s)
    __attribute__((warn_unused_result));
/* The name of the first file that differs, or NULL when they are equal. */
const char *trace_top_diff(const struct trace_top_state *a, const struct trace_top_state *b);

/* Is this file system tracefs (statfs), 1 yes, 0 no, -errno. */
int trace_is_tracefs(const char *path);

#endif
