/* text: the terminal summary, one row per probe x CPU (then the all-CPU
 * aggregate), in microseconds as RT engineers read cyclictest output, but
 * with the percentiles cyclictest does not have.  Fits 80 columns; with
 * phases, each phase gets its own block under a heading. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "report.h"

/* "-": no samples; "?": the source did not record the statistic (an
 * imported cyclictest file has no missed count, no percentiles without -h). */
static void cell_us(FILE *out, bool has, bool unknown, uint64_t ns)
{
	if (!has)
		fprintf(out, " %8s", "-");
	else if (unknown)
		fprintf(out, " %8s", "?");
	else if (ns < 100000000ull)
		fprintf(out, " %8.1f", (double)ns / 1000.0);
	else
		fprintf(out, " %8.0f", (double)ns / 1000.0);
}

static void row(FILE *out, const struct report_result *res)
{
	char cpu[16];
	bool has = res->count > 0, pct = res->unknown & REPORT_UNKNOWN_PCT;

	if (res->cpu == REPORT_CPU_ALL)
		snprintf(cpu, sizeof(cpu), "all");
	else
		snprintf(cpu, sizeof(cpu), "%d", res->cpu);
	fprintf(out, "%-10s %4s %10llu", res->probe, cpu, (unsigned long long)res->count);
	cell_us(out, has, false, res->min);
	cell_us(out, has, pct, res->pct[0]);
	cell_us(out, has, pct, res->pct[2]);
	cell_us(out, has, pct, res->pct[4]);
	cell_us(out, has, false, res->max);
	if (res->unknown & REPORT_UNKNOWN_MISSED)
		fprintf(out, " %7s\n", "?");
	else
		fprintf(out, " %7llu\n", (unsigned long long)res->missed);
}

static bool has_phases(const struct report *r)
{
	for (size_t i = 0; i < r->nresults; i++)
		if (strcmp(r->results[i].phase, "all"))
			return true;
	return false;
}

/* Rows of one phase, per CPU then the aggregates, in report order. */
static void phase_rows(FILE *out, const struct report *r, const char *phase)
{
	for (size_t i = 0; i < r->nresults; i++)
		if (!strcmp(r->results[i].phase, phase))
			row(out, &r->results[i]);
	for (size_t i = 0; i < r->naggregates; i++)
		if (!strcmp(r->aggregates[i].phase, phase))
			row(out, &r->aggregates[i]);
}

/* Spikes and recurring patterns, one line per series that has spikes:
 * "timer cpu 1: 23 spikes > 512.0 us; every 20.000 s (+-0.4 ms), 67 %". */
static void spikes_print(const struct report *r, FILE *out)
{
	json_t *per = json_object_get(r->analysis, "periodicity");

	for (size_t i = 0; i < r->nseries; i++) {
		const struct report_series *rs = &r->series[i];
		json_t *a = json_array_get(per, i), *p;
		size_t k;

		if (!rs->threshold_ns || !rs->spikes_total)
			continue;
		fprintf(out, "spikes: %s cpu %d: %llu > %.1f us", rs->probe, rs->cpu,
			(unsigned long long)rs->spikes_total, (double)rs->threshold_ns / 1000.0);
		json_array_foreach (json_object_get(a, "patterns"), k, p)
			fprintf(out, "; every %.3f s (+-%.1f ms) at +%.3f s, %.0f %% of them",
				(double)json_integer_value(json_object_get(p, "period_ns")) / 1e9,
				(double)json_integer_value(json_object_get(p, "jitter_ns")) / 1e6,
				(double)json_integer_value(json_object_get(p, "phase_ns")) / 1e9,
				100 * json_number_value(json_object_get(p, "explained")));
		if (!json_array_size(json_object_get(a, "patterns")))
			fprintf(out, "; no periodic pattern");
		fputc('\n', out);
	}
}

void report_text_print(const struct report *r, FILE *out)
{
	fprintf(out, "%s %s: %s, %.1f s, %s%s\n", r->tool_name ? r->tool_name : "rtsoak",
		r->tool_version ? r->tool_version : "?", report_status_name(r->status),
		(double)r->duration_ns / 1e9,
		r->realtime ? "SCHED_FIFO" : "SCHED_OTHER (not real-time)",
		r->status == REPORT_RUNNING ? " (partial report)" : "");
	fprintf(out, "%-10s %4s %10s %8s %8s %8s %8s %8s %7s\n", "probe", "cpu", "count", "min",
		"p50", "p99", "p99.99", "max", "missed");
	fprintf(out, "%-10s %4s %10s %8s %8s %8s %8s %8s %7s\n", "", "", "", "(us)", "(us)", "(us)",
		"(us)", "(us)", "");
	if (!has_phases(r)) {
		phase_rows(out, r, "all");
	} else {
		/* Phases in first-seen order, then their union. */
		for (size_t i = 0; i < r->nresults; i++) {
			const char *ph = r->results[i].phase;
			bool seen = !strcmp(ph, "all");
			for (size_t j = 0; j < i && !seen; j++)
				seen = !strcmp(r->results[j].phase, ph);
			if (seen)
				continue;
			fprintf(out, "phase %s:\n", ph);
			phase_rows(out, r, ph);
		}
		fprintf(out, "all phases:\n");
		phase_rows(out, r, "all");
	}
	spikes_print(r, out);
	for (size_t i = 0; i < r->nwarnings; i++)
		fprintf(out, "warning: %s\n", r->warnings[i]);
}
