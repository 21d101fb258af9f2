// SPDX-License-Identifier: GPL-2.0-or-later
/* test_cyclictest_text: the T: lines of `rtsoak cyclictest` (reports/cyclictest_text.c) in
 * cyclictest 2.4's print_stat() widths, one per timer result of phase "all" in CPU order,
 * other probes and phases left out; -N's nanoseconds and wider Act/Avg. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "tap.h"
#include "views.h"

static void result(struct report *r, const char *probe, int cpu, const char *phase, uint64_t count,
		   uint64_t min, uint64_t mean, uint64_t max)
{
	struct report_result *res = report_add_result(r, false, probe, cpu, phase);

	if (!res)
		abort();
	res->count = count;
	res->min = min;
	res->mean = mean;
	res->max = max;
}

/* What cyclictest_text_print writes for r. */
static char *lines(const struct report *r, bool nsecs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	cyclictest_text_print(r, f, 1234, 80, 1000, nsecs);
	fclose(f);
	return buf;
}

int main(void)
{
	struct report r;
	char *s;

	tap_plan(4);
	memset(&r, 0, sizeof(r));
	result(&r, "timer", 3, "all", 2000, 3100, 5900, 20999);
	result(&r, "net", 0, "all", 10, 1, 1, 1);
	result(&r, "timer", 1, "idle", 10, 1, 1, 1);
	result(&r, "timer", 1, "all", 1000, 2000, 4000, 1234567);
	result(&r, "timer", 2, "all", 0, 0, 0, 0);

	s = lines(&r, false);
	ok(!strcmp(
	       s,
	       "T: 0 ( 1234) P:80 I:1000 C:   1000 Min:      2 Act:    4 Avg:    4 Max:    1234\n"
	       "T: 1 ( 1234) P:80 I:1000 C:      0 Min:      0 Act:    0 Avg:    0 Max:       0\n"
	       "T: 2 ( 1234) P:80 I:1000 C:   2000 Min:      3 Act:    5 Avg:    5 Max:      20\n"),
	   "cyclictest_text_us_widths_cpu_order_timer_all_only");
	ok(strstr(s, "Max:    1234\n") != NULL,
	   "cyclictest_text_truncates_to_whole_us_as_cyclictest");
	free(s);

	s = lines(&r, true);
	ok(!strcmp(s, "T: 0 ( 1234) P:80 I:1000 C:   1000 Min:   2000 Act:    4000 Avg:    4000 "
		      "Max: 1234567\n"
		      "T: 1 ( 1234) P:80 I:1000 C:      0 Min:      0 Act:       0 Avg:       0 "
		      "Max:       0\n"
		      "T: 2 ( 1234) P:80 I:1000 C:   2000 Min:   3100 Act:    5900 Avg:    5900 "
		      "Max:   20999\n"),
	   "cyclictest_text_nsecs_widths");
	free(s);
	report_free(&r);

	memset(&r, 0, sizeof(r));
	s = lines(&r, false);
	ok(!strcmp(s, ""), "cyclictest_text_nothing_without_timer_results");
	free(s);
	report_free(&r);
	return tap_done();
}
