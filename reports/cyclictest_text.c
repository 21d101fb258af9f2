// SPDX-License-Identifier: GPL-2.0-or-later
/* cyclictest_text: the lines cyclictest -q prints when it ends, for `rtsoak
 * cyclictest` (src/app/cyclictest_cli.c), so that scripts which grep or
 * split them ("T: 0 (1234) P:80 I:1000 C:   1000 Min: ...  Max: ...") read an
 * rtsoak run unchanged.
 *
 * The widths are cyclictest 2.4's print_stat(): "T:%2d (%5d) P:%2d I:%ld
 * C:%7lu Min:%7ld Act:%5ld Avg:%5ld Max:%8ld" (with -N, in ns: Act:%8ld
 * Avg:%8ld).  What differs, because the
 * report does not hold it:
 *   (PID)  rtsoak's process id, not the measuring thread's
 *   Act    the last sample is not kept: the mean, as Avg
 *   Avg    the mean of the exact samples, truncated to whole microseconds
 * One line per timer result of phase "all" in CPU order, numbered from 0 as
 * cyclictest numbers its threads. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "views.h"

void cyclictest_text_print(const struct report *r, FILE *out, int pid, int priority,
			   long interval_us, bool nsecs)
{
	uint64_t unit = nsecs ? 1 : 1000;
	int last = -1; /* CPU order without sorting: the next larger CPU each time */
	unsigned n = 0;

	for (;;) {
		const struct report_result *next = NULL;
		for (size_t i = 0; i < r->nresults; i++) {
			const struct report_result *res = &r->results[i];
			if (strcmp(res->probe, "timer") || strcmp(res->phase, "all") ||
			    res->cpu <= last)
				continue;
			if (!next || res->cpu < next->cpu)
				next = res;
		}
		if (!next)
			return;
		last = next->cpu;
		uint64_t mean = next->count ? next->mean / unit : 0;
		int w = nsecs ? 8 : 5; /* cyclictest -N widens Act and Avg */
		fprintf(out,
			"T:%2u (%5d) P:%2d I:%ld C:%7" PRIu64 " Min:%7" PRIu64 " Act:%*" PRIu64
			" Avg:%*" PRIu64 " Max:%8" PRIu64 "\n",
			n++, pid, priority, interval_us, next->count,
			next->count ? next->min / unit : 0, w, mean, w, mean,
			next->count ? next->max / unit : 0);
	}
}
