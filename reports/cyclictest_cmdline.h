/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cyclictest_cmdline: what a cyclictest command line says (internal to the
 * cyclictest importer, cyclictest_read.c).
 *
 * A cyclictest --json file records its interval, distance, -h range,
 * priority, policy, clock, loops and duration only as the "cmdline:" it was
 * started with.  The parser walks that line the way cyclictest's
 * getopt_long did, from a replica of cyclictest 2.x's option table, then
 * applies cyclictest's own defaulting (process_options()). */
#ifndef RTSOAK_CYCLICTEST_CMDLINE_H
#define RTSOAK_CYCLICTEST_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

enum ct_policy { CT_OTHER, CT_FIFO, CT_RR, CT_BATCH, CT_IDLE };

/* What the command line says, after cyclictest's own defaulting. */
struct ct_cmdline {
	bool parsed; /* false: nothing below is known */
	char why[96];
	char ignored[96]; /* long options this reader does not know */
	long interval_us, distance_us, hist, priority, loops, duration_s, clock;
	bool spread;
	enum ct_policy policy;
};

/* Fill *c from argv (argv[0] is the program, argv[argc] NULL) for a file of
 * nthreads threads.  A line cyclictest would have refused, or one this
 * parser cannot follow, leaves c->parsed false with the reason in c->why;
 * unknown long options (a newer cyclictest) are skipped and named in
 * c->ignored. */
void cyclictest_cmdline_parse(struct ct_cmdline *c, char **argv, int argc, size_t nthreads);

#endif
