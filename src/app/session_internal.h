/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session_internal: the run's state, shared by the files of one
 * `rtsoak run`: session.c (set-up, probes, housekeeping loop, tear-down),
 * session_output.c (the report and its outputs), session_ab.c (the ab
 * command's rounds), session_trace.c (--trace) and session_onspike.c
 * (--on-spike).  Nothing outside them includes it. */
#ifndef RTSOAK_SESSION_INTERNAL_H
#define RTSOAK_SESSION_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "compare.h"
#include "phase.h"
#include "probe.h"
#include "progress.h"
#include "report.h"
#include "series.h"
#include "serieslog.h"
#include "supervisor.h"

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
	uint64_t t0; /* CLOCK_MONOTONIC of time 0: the end of the warm-up */
	/* CLOCK_MONOTONIC: samples before this do not count (probe_counts):
	 * t0, or in ab the current round's settle end, UINT64_MAX while the
	 * arms switch.  The master copy (the net sender's); each probe thread
	 * has its own (session.c: set_count_from). */
	uint64_t count_from;
	struct probe_family families[CLI_MAX_PROBES];
	bool family_started[CLI_MAX_PROBES];
	uint64_t start_rt; /* CLOCK_REALTIME at t0 */
	unsigned checkpoint_failures;
	int checkpoint_errno;
	uint64_t last_checkpoint; /* CLOCK_MONOTONIC of the last good one, 0: none */
	/* The checkpoints' series log and the summary's budget
	 * (session_output.c: checkpoint_series). */
	struct serieslog log;
	unsigned log_gen;	/* its generation: a broken log is replaced by the next */
	unsigned log_named_gen; /* the generation the summary on disk names, */
	bool log_named;		/* if one does */
	uint64_t summary_bytes; /* the summaries written, in bytes */
	uint64_t summary_first; /* the first one's size: budget's allowance */
	uint64_t summary_last;	/* the last one's size: the next one's estimate */
	struct progress prog;
	struct series *series;	    /* per thread: its first result's */
	struct series_qwork *qwork; /* the quantile snapshots' room (series.h) */
	bool thresholds_set;
	uint64_t auto_threshold_ns; /* --spike-threshold auto: set this long after t0 */
	unsigned prom_failures;
	int prom_errno;
	bool tweak_failed; /* ab: a switch could not apply or restore the tweaks */
	/* ab: each switch's [start, end] in run time: counting stopped at its
	 * start; the tweaks and the loads had switched, and the new round
	 * begun, at its end (report: ab.switches) */
	uint64_t (*ab_switches)[2];
	unsigned nab_switches;
	bool ab_switches_lost; /* out of memory: some are missing */
	/* Carried from one step of session_run to the next. */
	int dma_fd;	      /* /dev/cpu_dma_latency held open, -1: none */
	int sig;	      /* the signal that ended the run, 0: none */
	int failed;	      /* a probe (or an ab switch) failed */
	uint64_t end;	      /* CLOCK_MONOTONIC when the probes were told to stop, 0: not yet */
	bool restore_failed;  /* --set: the restore after the run failed */
	bool write_failed;    /* the report or a view did not reach its path */
	struct comparison ab; /* ab: B against A by the rounds */
	struct session_trace *trace;	 /* --trace (session_trace.c), NULL without */
	struct session_onspike *onspike; /* --on-spike (session_onspike.c), NULL without */
};

/* session_output.c */
void session_output_set_times(struct report *r, const struct session *s, uint64_t duration_ns);
/* forced: SIGUSR1, the summary is written whatever the budget. */
void session_output_publish(struct session *s, struct report *r, bool json, bool prom, bool forced);
int session_output_build(struct report *r, struct session *s, bool live, bool full)
    __attribute__((warn_unused_result));
void session_output_note_failures(const struct session *s, struct report *r);
int session_output_write(struct session *s, struct report *r) __attribute__((warn_unused_result));

/* session_trace.c: --trace.  start before the probes (0 or -errno with
 * one line in err: the run stops with exit 3); tick on every housekeeping
 * tick (last: the probes have stopped, explain everything left); json for
 * the report's attribution section (NULL without --trace); stop on every
 * way out (removes the instance; -1 when it could not, said on stderr). */
int session_trace_start(struct session *s, char *err, size_t errlen)
    __attribute__((warn_unused_result));
/* Once the probe threads exist (their tids known), before they measure:
 * the timer probes' own routine events filtered out of the instance.  0, or
 * -errno when they could not be (the run goes on recording them: the caller
 * warns with session_trace_filter_error). */
int session_trace_probes(struct session *s);
const char *session_trace_filter_error(const struct session *s);
void session_trace_tick(struct session *s, bool last);
/* With --trace: spike k of thread i's series as the attribution saw it:
 * 1 attributed (its cause key, e.g. "task:rtsoak-spike/0 (FIFO 96)", in
 * buf), 0 explained but not attributed (events lost, no anchor: buf
 * empty), -1 not explained yet or no --trace. */
int session_trace_spike_cause(const struct session *s, unsigned i, size_t k, char *buf, size_t len);
/* With --trace: where the timer IRQ came in for spike k of thread i
 * (attrib_result.irq_at: a kernel function, "user", "?" or "" as in the
 * report's top[].irq_at; "" when not attributed) into buf; false (buf "")
 * when not explained yet, or explained more than 64 spikes of its thread
 * ago. */
bool session_trace_spike_irq_at(const struct session *s, unsigned i, size_t k, char *buf,
				size_t len);
/* With --trace: how long the housekeeping thread may wait before the next
 * tick (20 or 100 ms, by how fast the last read found the rings filling). */
uint64_t session_trace_tick_ns(const struct session *s);
json_t *session_trace_json(struct session *s);
/* Someone changed or removed the run's instance: true with what and when. */
bool session_trace_disturbed(const struct session *s, char *what, size_t len);
int session_trace_stop(struct session *s) __attribute__((warn_unused_result));

/* session_onspike.c: --on-spike.  tick on every housekeeping tick of the
 * measured time, after the series' drain and the trace's tick (their
 * spikes and attributions); end once after the last of both (the spikes
 * left, then the bounded wait for a running command); json for the
 * report's on_spike section (NULL without --on-spike, or out of memory);
 * free on every way out (kills a command still running). */
void session_onspike_tick(struct session *s, struct report *r, uint64_t now);
void session_onspike_end(struct session *s, struct report *r);
json_t *session_onspike_json(const struct session *s);
void session_onspike_free(struct session *s);

/* session_ab.c */
int session_ab_switch(struct session *s, struct report *r, unsigned next)
    __attribute__((warn_unused_result));
void session_ab_note_switch(struct session *s, struct report *r, unsigned next, uint64_t start,
			    uint64_t end);
int session_ab_verdict(struct session *s, struct report *r) __attribute__((warn_unused_result));
int session_ab_exit(const struct comparison *c, const struct run_config *cfg)
    __attribute__((warn_unused_result));

#endif
