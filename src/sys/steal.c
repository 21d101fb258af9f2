// SPDX-License-Identifier: GPL-2.0-or-later
/* steal: per-CPU steal time from /proc/stat (steal.h). */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "steal.h"

int steal_read(uint64_t *ns, unsigned ncpu)
{
	FILE *f = fopen("/proc/stat", "re");
	long hz = sysconf(_SC_CLK_TCK);
	char line[512];
	bool any = false;

	if (!f)
		return -errno;
	if (hz <= 0) {
		fclose(f);
		return -EINVAL;
	}
	memset(ns, 0, ncpu * sizeof(*ns));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8];
		unsigned cpu;

		/* "cpuN user nice system idle iowait irq softirq steal ..."; the
		 * first line ("cpu  ...") is the sum.  A line longer than the
		 * buffer is cut: its rest does not start with "cpu". */
		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9)
			continue;
		any = true;
		if (cpu < ncpu)
			ns[cpu] = (uint64_t)v[7] * (1000000000ull / (unsigned long long)hz);
	}
	fclose(f);
	return any ? 0 : -ENODATA;
}
