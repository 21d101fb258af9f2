/* text: the terminal summary, one row per probe x CPU (then the all-CPU
 * aggregate), in microseconds as RT engineers read cyclictest output, but
 * with the percentiles cyclictest does not have.  With phases, each phase
 * gets its own block under a heading.
 *
 * Layout: 63 columns plus the probe and CPU columns (at least 5 and 3
 * wide), so 80 columns hold probe names up to 13 characters ("net.wakeup"
 * is 10) with 4-digit CPUs; nothing is cut, a longer name widens its column
 * and every row with it:
 *
 *   probe cpu  count     min     p50     p99   p99.9  p99.99 missed     max
 *                       (us)    (us)    (us)    (us)    (us)           (us)
 *   timer   0   2000    33.7    43.6    67.8   121.6   179.6      0   179.6
 *
 * max is the last column, where cyclictest prints "Max:", and the one the eye
 * looks for; missed goes before it.  That order also keeps the fields that
 * scripts address by number ($3 count, $4 min, $9 missed) where they were
 * before p99.9 was added.
 *
 * Latencies are always microsecond numbers in 7 columns (awk and eyes read
 * one unit): one decimal below 100 ms ("99999.9"), whole microseconds below
 * 10 s ("9999999"), then two digits with an exponent ("5.9e+07" for a 59 s
 * stall: precision nobody needs there).  Counts are exact up to 999999, then
 * 3 significant digits with a decimal suffix ("3.60M", "86.4G"): a 24-hour
 * run at 1 us gives 8.64e10 samples, whose 11 digits nobody reads; the JSON
 * report has the exact numbers.
 *
 * Colour only when asked (cli_color_wanted): the title bold, the units row
 * dim, "?" and "-" dim, a non-zero missed count yellow, and max by how far it
 * stands out from the run: yellow from 3 x, red from 10 x the all-CPU p99
 * of its probe and phase (no colour when that p99 is unknown).  Lines that
 * scripts grep ("warning: ", "spikes: ", the rows) start with plain text
 * whatever the colour. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "report.h"

#define LAT_W 7
#define COUNT_W 6 /* "999999", "86.4G" */
#define MISSED_W 6

#define SGR_BOLD "1"
#define SGR_DIM "2"
#define SGR_RED "31"
#define SGR_GREEN "32"
#define SGR_YELLOW "33"

/* Column widths of this report: wide enough for every probe name and CPU
 * number, so that no row shifts the ones below it. */
struct text_layout {
	int probe_w, cpu_w;
	bool color;
};

static void sgr(FILE *out, bool color, const char *code)
{
	if (color && code)
		fprintf(out, "\033[%sm", code);
}

static void sgr_off(FILE *out, bool color)
{
	if (color)
		fputs("\033[0m", out);
}

static void fmt_us(char *buf, size_t len, uint64_t ns)
{
	double us = (double)ns / 1000.0;

	/* Thresholds on the rounded value, so that 99999.96 does not print as
	 * "100000.0" nor 9999999.7 as 8 digits. */
	if (us < 99999.95)
		snprintf(buf, len, "%.1f", us);
	else if (us < 9999999.5)
		snprintf(buf, len, "%.0f", us);
	else
		snprintf(buf, len, "%.1e", us);
}

static void fmt_count(char *buf, size_t len, uint64_t n)
{
	static const char unit[] = "kMGTPE";
	double v = (double)n;
	unsigned u = 0;

	if (n < 1000000) {
		snprintf(buf, len, "%llu", (unsigned long long)n);
		return;
	}
	v /= 1000.0;
	while (v >= 999.5 && u + 1 < sizeof(unit) - 1) {
		v /= 1000.0;
		u++;
	}
	snprintf(buf, len, "%.*f%c", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v, unit[u]);
}

/* One right-aligned cell; "?" and "-" dimmed, code (may be NULL) around the
 * value.  The padding is inside the colour: invisible, and the widths stay
 * those of the plain text. */
static void cell(FILE *out, const struct text_layout *L, int w, const char *text, const char *code)
{
	bool mark = !strcmp(text, "?") || !strcmp(text, "-");

	fputc(' ', out);
	if (mark)
		code = SGR_DIM;
	sgr(out, L->color, code);
	fprintf(out, "%*s", w, text);
	if (code)
		sgr_off(out, L->color);
}

/* "-": no samples; "?": the source did not record the statistic (an
 * imported cyclictest file has no missed count, no percentiles without -h). */
static void cell_us(FILE *out, const struct text_layout *L, bool has, bool unknown, uint64_t ns,
		    const char *code)
{
	char buf[32];

	if (!has)
		snprintf(buf, sizeof(buf), "-");
	else if (unknown)
		snprintf(buf, sizeof(buf), "?");
	else
		fmt_us(buf, sizeof(buf), ns);
	cell(out, L, LAT_W, buf, code);
}

static const struct report_result *aggregate_of(const struct report *r,
						const struct report_result *res)
{
	for (size_t i = 0; i < r->naggregates; i++)
		if (!strcmp(r->aggregates[i].probe, res->probe) &&
		    !strcmp(r->aggregates[i].phase, res->phase))
			return &r->aggregates[i];
	return NULL;
}

/* How much max stands out from the run: against the all-CPU p99, which one
 * bad CPU cannot drag up much.  A max of 3x p99 is a tail worth a look, 10x
 * a spike. */
static const char *max_color(const struct report *r, const struct report_result *res)
{
	const struct report_result *agg = aggregate_of(r, res);
	uint64_t ref;

	if (!agg || !agg->count || (agg->unknown & REPORT_UNKNOWN_PCT))
		return NULL;
	ref = agg->pct[2];
	if (!ref)
		return NULL;
	if (res->max >= 10 * ref)
		return SGR_RED;
	if (res->max >= 3 * ref)
		return SGR_YELLOW;
	return NULL;
}

static void row(FILE *out, const struct text_layout *L, const struct report *r,
		const struct report_result *res)
{
	char cpu[16], buf[32];
	bool has = res->count > 0, pct = res->unknown & REPORT_UNKNOWN_PCT;

	if (res->cpu == REPORT_CPU_ALL)
		snprintf(cpu, sizeof(cpu), "all");
	else
		snprintf(cpu, sizeof(cpu), "%d", res->cpu);
	fprintf(out, "%-*s %*s", L->probe_w, res->probe, L->cpu_w, cpu);
	fmt_count(buf, sizeof(buf), res->count);
	cell(out, L, COUNT_W, buf, NULL);
	cell_us(out, L, has, false, res->min, NULL);
	cell_us(out, L, has, pct, res->pct[0], NULL);
	cell_us(out, L, has, pct, res->pct[2], NULL);
	cell_us(out, L, has, pct, res->pct[3], NULL);
	cell_us(out, L, has, pct, res->pct[4], NULL);
	if (res->unknown & REPORT_UNKNOWN_MISSED)
		snprintf(buf, sizeof(buf), "?");
	else
		fmt_count(buf, sizeof(buf), res->missed);
	cell(out, L, MISSED_W, buf,
	     !(res->unknown & REPORT_UNKNOWN_MISSED) && res->missed ? SGR_YELLOW : NULL);
	cell_us(out, L, has, false, res->max, has ? max_color(r, res) : NULL);
	fputc('\n', out);
}

static void header(FILE *out, const struct text_layout *L)
{
	static const char *const lat[] = { "min", "p50", "p99", "p99.9", "p99.99" };

	sgr(out, L->color, SGR_BOLD);
	fprintf(out, "%-*s %*s %*s", L->probe_w, "probe", L->cpu_w, "cpu", COUNT_W, "count");
	for (unsigned i = 0; i < sizeof(lat) / sizeof(lat[0]); i++)
		fprintf(out, " %*s", LAT_W, lat[i]);
	fprintf(out, " %*s %*s", MISSED_W, "missed", LAT_W, "max");
	sgr_off(out, L->color);
	fputc('\n', out);
	/* The units under the latency columns only; no trailing blanks. */
	sgr(out, L->color, SGR_DIM);
	fprintf(out, "%*s", L->probe_w + 1 + L->cpu_w + 1 + COUNT_W, "");
	for (unsigned i = 0; i < sizeof(lat) / sizeof(lat[0]); i++)
		fprintf(out, " %*s", LAT_W, "(us)");
	fprintf(out, " %*s %*s", MISSED_W, "", LAT_W, "(us)");
	sgr_off(out, L->color);
	fputc('\n', out);
}

static bool has_phases(const struct report *r)
{
	for (size_t i = 0; i < r->nresults; i++)
		if (strcmp(r->results[i].phase, "all"))
			return true;
	return false;
}

/* Rows of one phase, per CPU then the aggregates, in report order. */
static void phase_rows(FILE *out, const struct text_layout *L, const struct report *r,
		       const char *phase)
{
	for (size_t i = 0; i < r->nresults; i++)
		if (!strcmp(r->results[i].phase, phase))
			row(out, L, r, &r->results[i]);
	for (size_t i = 0; i < r->naggregates; i++)
		if (!strcmp(r->aggregates[i].phase, phase))
			row(out, L, r, &r->aggregates[i]);
}

static void phase_heading(FILE *out, const struct text_layout *L, const char *phase)
{
	sgr(out, L->color, SGR_BOLD);
	if (phase)
		fprintf(out, "phase %s:", phase);
	else
		fputs("all phases:", out);
	sgr_off(out, L->color);
	fputc('\n', out);
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

/* "0.5 s" for short runs; H:MM:SS (as on the progress line) from a minute,
 * where tenths of a second no longer matter and 86400.0 s reads badly. */
static void fmt_duration(char *buf, size_t len, uint64_t ns)
{
	uint64_t s = (ns + 500000000ull) / 1000000000ull;

	if (ns < 60000000000ull)
		snprintf(buf, len, "%.1f s", (double)ns / 1e9);
	else
		snprintf(buf, len, "%llu:%02u:%02u", (unsigned long long)(s / 3600),
			 (unsigned)(s / 60 % 60), (unsigned)(s % 60));
}

/* "rtsoak 0.1.0: complete, 10.0 s, SCHED_FIFO", then what makes the numbers
 * suspect: a partial (checkpoint) report, a failed or interrupted run, no
 * real-time priority. */
static void title(FILE *out, const struct text_layout *L, const struct report *r)
{
	const char *status = NULL;
	char dur[48];

	switch (r->status) {
	case REPORT_COMPLETE:
		status = SGR_GREEN;
		break;
	case REPORT_INTERRUPTED:
		status = SGR_YELLOW;
		break;
	case REPORT_RUNNING:
	case REPORT_FAILED:
		status = SGR_RED;
		break;
	}
	fmt_duration(dur, sizeof(dur), r->duration_ns);
	sgr(out, L->color, SGR_BOLD);
	fprintf(out, "%s %s: ", r->tool_name ? r->tool_name : "rtsoak",
		r->tool_version ? r->tool_version : "?");
	sgr(out, L->color, status);
	fputs(report_status_name(r->status), out);
	sgr_off(out, L->color);
	sgr(out, L->color, SGR_BOLD);
	fprintf(out, ", %s, ", dur);
	if (r->realtime) {
		fputs("SCHED_FIFO", out);
	} else {
		sgr(out, L->color, SGR_YELLOW);
		fputs("SCHED_OTHER (not real-time)", out);
	}
	sgr_off(out, L->color);
	if (r->status == REPORT_RUNNING) {
		fputc(' ', out);
		sgr(out, L->color, SGR_BOLD ";" SGR_RED);
		fputs("(partial report)", out);
		sgr_off(out, L->color);
	}
	fputc('\n', out);
}

static int digits(int v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

void report_text_print(const struct report *r, FILE *out, bool color)
{
	struct text_layout L = { .probe_w = 5, .cpu_w = 3, .color = color };

	for (size_t i = 0; i < r->nresults + r->naggregates; i++) {
		const struct report_result *res =
		    i < r->nresults ? &r->results[i] : &r->aggregates[i - r->nresults];
		int w = (int)strlen(res->probe);
		if (w > L.probe_w)
			L.probe_w = w;
		if (res->cpu >= 0 && digits(res->cpu) > L.cpu_w)
			L.cpu_w = digits(res->cpu);
	}
	title(out, &L, r);
	header(out, &L);
	if (!has_phases(r)) {
		phase_rows(out, &L, r, "all");
	} else {
		/* Phases in first-seen order, then their union. */
		for (size_t i = 0; i < r->nresults; i++) {
			const char *ph = r->results[i].phase;
			bool seen = !strcmp(ph, "all");
			for (size_t j = 0; j < i && !seen; j++)
				seen = !strcmp(r->results[j].phase, ph);
			if (seen)
				continue;
			phase_heading(out, &L, ph);
			phase_rows(out, &L, r, ph);
		}
		phase_heading(out, &L, NULL);
		phase_rows(out, &L, r, "all");
	}
	spikes_print(r, out);
	/* The prefix stays plain for grep; the message carries the colour. */
	for (size_t i = 0; i < r->nwarnings; i++) {
		fputs("warning: ", out);
		sgr(out, color, SGR_YELLOW);
		fputs(r->warnings[i], out);
		sgr_off(out, color);
		fputc('\n', out);
	}
}
