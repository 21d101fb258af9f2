/* SPDX-License-Identifier: GPL-2.0-or-later */
/* supervisor: the process that runs the loads' worker processes.
 *
 * rtsoak forks it once, before the probe threads exist, so that starting
 * and restarting workers never forks the measuring process (a fork of a
 * multi-threaded, mlocked process would copy its page tables and flush TLBs
 * on the measured CPUs).  rtsoak talks to it through a pipe each way and a
 * MAP_SHARED block that also holds every worker's counters. */
#ifndef RTSOAK_SUPERVISOR_H
#define RTSOAK_SUPERVISOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "load.h"

#define SUPERVISOR_MAX_PHASES (LOAD_MAX_INSTANCES + 1)
#define SUPERVISOR_EXIT_LOG 8

struct load_supervisor;

/* Fork the supervisor for `n` parsed instances.  phase_masks[p] says which
 * instances run in phase p (bit i = instance i).  Instances get their
 * shared counters here.  The supervisor runs every .start before it
 * answers; a failing .start is returned as -errno with its message.
 * `pin` (may be empty) is where the supervisor itself runs. */
int load_supervisor_start(struct load_supervisor **out, struct load_instance *inst, unsigned n,
			  const uint32_t *phase_masks, unsigned nphases, const struct cpuset *pin,
			  char *err, size_t errlen) __attribute__((warn_unused_result));

/* Switch to phase p: stop the workers of loads not in it, start the
 * others, and return once they are forked (or after timeout_ms). */
int load_supervisor_phase(struct load_supervisor *s, unsigned p, unsigned timeout_ms);

/* Stop every worker, run .stop and .stats, and reap the supervisor.  Safe
 * to call twice. */
void load_supervisor_stop(struct load_supervisor *s);

/* The report's entry for instance i; `active_ns` is how long it was meant
 * to run (for operations per second); exit times are given since t0_ns
 * (CLOCK_MONOTONIC, the probes' start). */
json_t *load_supervisor_report(const struct load_supervisor *s, unsigned i, uint64_t active_ns,
			       uint64_t t0_ns);

/* After load_supervisor_stop: true with a line for the report's warnings
 * ("load exec: restarted 4 times (exit status 1)") when instance i's
 * workers had to be restarted, false when there is nothing to say. */
bool load_supervisor_warning(const struct load_supervisor *s, unsigned i, char *buf, size_t len);

void load_supervisor_free(struct load_supervisor *s);

#endif
