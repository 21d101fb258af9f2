// SPDX-License-Identifier: GPL-2.0-or-later
/* lava: the report as LAVA test results, one line per (probe, CPU, statistic) of phase "all",
 * in the result.txt convention of Linaro's test-definitions: "NAME RESULT [MEASUREMENT UNITS]",
 * which their utils/send-to-lava.sh turns into `lava-test-case NAME --result RESULT
 * --measurement MEASUREMENT --units UNITS` calls (contrib/lava/rtsoak.yaml does the same).
 *
 * Names follow their rt-tests parser (parse_rt_tests_results.py: "t0-max-latency pass 23
 * us"), with the probe and the CPU instead of a thread number:
 *   <probe>-cpu<N>-min-latency pass 4.883 us
 *   <probe>-cpu<N>-avg-latency pass 21.812 us
 *   <probe>-cpu<N>-p99-latency pass 99.071 us
 *   <probe>-cpu<N>-max-latency pass 528.818 us
 *   <probe>-cpu<N>-missed pass 0 count
 * and a last line "rtsoak pass" (a complete run) or "rtsoak fail" (any other status), as that
 * parser ends with "<test> pass|fail" from the return code.  Latencies are the report's
 * integer nanoseconds written exactly as microseconds with three decimals; a statistic the
 * report does not know (no samples; missed or percentiles of an imported cyclictest file) is
 * "NAME skip" without a measurement.  Each statistic says "pass": it is a measurement, and
 * limits are judged by rtsoak run's --fail-if or by LAVA's own criteria.  Characters of a
 * probe name outside [A-Za-z0-9._-] become '_', so that a line stays four fields. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "report.h"
#include "views.h"

static void name(FILE *f, const struct report_result *res, const char *stat)
{
	for (const char *p = res->probe; *p; p++) {
		char c = *p;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		fputc(ok ? c : '_', f);
	}
	fprintf(f, "-cpu%d-%s", res->cpu, stat);
}

static void latency(FILE *f, const struct report_result *res, const char *stat, uint64_t ns,
		    bool known)
{
	name(f, res, stat);
	if (known && res->count)
		fprintf(f, "-latency pass %" PRIu64 ".%03" PRIu64 " us\n", ns / 1000, ns % 1000);
	else
		fputs("-latency skip\n", f);
}

static int fill(FILE *f, void *arg)
{
	const struct report *r = arg;
	unsigned p99 = 0;

	while (p99 + 1 < REPORT_NPCT && report_pct[p99] != 99)
		p99++;
	for (size_t i = 0; i < r->nresults; i++) {
		const struct report_result *res = &r->results[i];
		if (strcmp(res->phase, "all"))
			continue;
		latency(f, res, "min", res->min, true);
		latency(f, res, "avg", res->mean, !(res->unknown & REPORT_UNKNOWN_MEAN));
		latency(f, res, "p99", res->pct[p99], !(res->unknown & REPORT_UNKNOWN_PCT));
		latency(f, res, "max", res->max, true);
		name(f, res, "missed");
		if (res->unknown & REPORT_UNKNOWN_MISSED)
			fputs(" skip\n", f);
		else
			fprintf(f, " pass %" PRIu64 " count\n", res->missed);
	}
	fprintf(f, "rtsoak %s\n", r->status == REPORT_COMPLETE ? "pass" : "fail");
	/* the failed write's errno (ENOSPC on a full device), EIO if it left none */
	return ferror(f) ? (errno ? -errno : -EIO) : 0;
}

int lava_write(const struct report *r, const char *path)
{
	return output_write_with(path, fill, (void *)r);
}
