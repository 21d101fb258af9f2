// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for cpulist parsing and formatting. */
#include <config.h>

#include <errno.h>
#include <string.h>

#include "cpuset.h"
#include "tap.h"

static int parses_to(const char *in, const char *want)
{
	struct cpuset s;
	char err[128], out[256];

	if (cpuset_parse(&s, in, err, sizeof(err)))
		return 0;
	cpuset_format(&s, out, sizeof(out));
	return strcmp(out, want) == 0;
}

static int rejects(const char *in, int code)
{
	struct cpuset s;
	char err[128] = "";

	return cpuset_parse(&s, in, err, sizeof(err)) == code && err[0];
}

int main(void)
{
	struct cpuset s;
	char err[128];

	tap_plan(16);
	ok(parses_to("0", "0"), "cpuset_single_cpu");
	ok(parses_to("0-3,8,10-11", "0-3,8,10-11"), "cpuset_ranges_and_singles");
	ok(parses_to("3,1,2", "1-3"), "cpuset_unordered_is_normalised");
	ok(parses_to("0-1,1-2", "0-2"), "cpuset_overlaps_merge");
	ok(parses_to("4095", "4095"), "cpuset_highest_cpu");
	ok(rejects("3-1", -EINVAL), "cpuset_rejects_reversed_range");
	ok(rejects("", -EINVAL), "cpuset_rejects_empty");
	ok(rejects("a", -EINVAL), "cpuset_rejects_letters");
	ok(rejects("1,", -EINVAL), "cpuset_rejects_trailing_comma");
	/* Every list's rule (the man page, SAFETY): no empty element anywhere. */
	ok(rejects(",1", -EINVAL), "cpuset_rejects_leading_comma");
	ok(rejects("1,,2", -EINVAL), "cpuset_rejects_doubled_comma");
	ok(rejects("-1", -EINVAL), "cpuset_rejects_negative");
	ok(rejects("1-", -EINVAL), "cpuset_rejects_open_range");
	ok(rejects("4096", -ERANGE), "cpuset_rejects_cpu_beyond_limit");
	cpuset_parse(&s, "1,5-6", err, sizeof(err));
	ok(cpuset_count(&s) == 3 && cpuset_next(&s, 2) == 5 && cpuset_has(&s, 6) &&
	       !cpuset_has(&s, 0),
	   "cpuset_count_next_has");
	struct cpuset online;
	ok(cpuset_online(&online) == 0 && cpuset_has(&online, 0), "cpuset_online_includes_cpu0");
	return tap_done();
}
