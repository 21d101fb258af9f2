/* SPDX-License-Identifier: GPL-2.0-or-later */
/* progress: what a person watching a long run sees.  On a terminal, one
 * status line on stderr, redrawn at most once a second; otherwise (a pipe,
 * journald) a plain log line every 10 minutes.  --quiet silences both.  It
 * runs on the housekeeping thread and reads the recorders with relaxed
 * loads: a display may be a sample behind, it never stops a probe. */
#ifndef RTSOAK_PROGRESS_H
#define RTSOAK_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "probe.h"

struct progress {
	FILE *out;
	bool tty;
	uint64_t every_ns, next_ns;
	uint64_t t0_ns, duration_ns; /* duration 0: --loops, no known end */
	bool drawn;		     /* a status line is on screen */
};

void progress_init(struct progress *p, bool quiet, uint64_t t0_ns, uint64_t duration_ns);
/* Draw if it is time; `checkpoint_ns` is the last checkpoint (0: none). */
void progress_tick(struct progress *p, uint64_t now_ns, const struct probe_thread *threads,
		   unsigned n, uint64_t checkpoint_ns);
/* Clear the status line before other output. */
void progress_done(struct progress *p);

#endif
