/* text: the terminal summary, one row per probe x CPU (then the all-CPU
 * aggregate), in microseconds as RT engineers read cyclictest output, but
 * with the percentiles cyclictest does not have. */
#include <config.h>

#include <stdio.h>

#include "report.h"

static void cell_us(FILE *out, bool has, uint64_t ns)
{
	if (!has)
		fprintf(out, " %9s", "-");
	else if (ns < 1000000000ull)
		fprintf(out, " %9.1f", (double)ns / 1000.0);
	else
		fprintf(out, " %9.0f", (double)ns / 1000.0);
}

static void row(FILE *out, const struct report_result *res)
{
	char cpu[16];
	bool has = res->count > 0;

	if (res->cpu == REPORT_CPU_ALL)
		snprintf(cpu, sizeof(cpu), "all");
	else
		snprintf(cpu, sizeof(cpu), "%d", res->cpu);
	fprintf(out, "%-11s %4s %10llu", res->probe, cpu, (unsigned long long)res->count);
	cell_us(out, has, res->min);
	cell_us(out, has, res->pct[0]);
	cell_us(out, has, res->pct[2]);
	cell_us(out, has, res->pct[4]);
	cell_us(out, has, res->max);
	fprintf(out, " %7llu\n", (unsigned long long)res->missed);
}

void report_text_print(const struct report *r, FILE *out)
{
	fprintf(out, "rtsoak %s: %s, %.1f s, %s%s\n", r->tool_version ? r->tool_version : "?",
		report_status_name(r->status), (double)r->duration_ns / 1e9,
		r->realtime ? "SCHED_FIFO" : "SCHED_OTHER (not real-time)",
		r->status == REPORT_RUNNING ? " (partial report)" : "");
	fprintf(out, "%-11s %4s %10s %9s %9s %9s %9s %9s %7s\n", "probe", "cpu", "count", "min",
		"p50", "p99", "p99.99", "max", "missed");
	fprintf(out, "%-11s %4s %10s %9s %9s %9s %9s %9s %7s\n", "", "", "", "(us)", "(us)", "(us)",
		"(us)", "(us)", "");
	for (size_t i = 0; i < r->nresults; i++)
		row(out, &r->results[i]);
	for (size_t i = 0; i < r->naggregates; i++)
		row(out, &r->aggregates[i]);
	for (size_t i = 0; i < r->nwarnings; i++)
		fprintf(out, "warning: %s\n", r->warnings[i]);
}
