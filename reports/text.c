// SPDX-License-Identifier: GPL-2.0-or-later
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
 * Above REPORT_MANY_CPUS (16) measured CPUs the per-CPU rows of each probe
 * and phase are cut to the REPORT_WORST_CPUS (8) worst, worst first (by max,
 * then p99.9: report_worst_cpus, the CPUs the HTML page draws), with one
 * "not shown: " line saying how many are left out and their largest max;
 * the aggregates stay.  128 rows per probe and phase scroll the worst CPU
 * out of sight, and the aggregate already holds every CPU's samples.
 * --cpu-rows all|worst forces either layout (TEXT_CPUS_*).
 *
 * Colour only when asked (cli_color_wanted): the title bold, the units row
 * dim, "?" and "-" dim, a non-zero missed count yellow, and max by how far it
 * stands out from the run: yellow from 3 x, red from 10 x the all-CPU p99
 * of its probe and phase (no colour when that p99 is unknown).  Lines that
 * scripts grep ("warning: ", "spikes: ", the rows) start with plain text
 * whatever the colour. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribution.h"
#include "report.h"
#include "util.h"
#include "views.h"

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
	/* Aggregates sorted by (probe, phase, position), for aggregate_of()
	 * in O(log n) per row; NULL (out of memory): a linear search. */
	const struct report_result **agg;
};

/* Names (probe, phase) are at most REPORT_NAME_MAX bytes (json_read.c):
 * escaped they fit 4 times that. */
#define NAME_BUF (4 * 256 + 1)

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

void text_fmt_us(char *buf, size_t len, uint64_t ns)
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
		text_fmt_us(buf, sizeof(buf), ns);
	cell(out, L, LAT_W, buf, code);
}

static int agg_cmp(const struct report_result *a, const struct report_result *b)
{
	int c = strcmp(a->probe, b->probe);

	return c ? c : strcmp(a->phase, b->phase);
}

static int agg_sort(const void *x, const void *y)
{
	const struct report_result *a = *(const struct report_result *const *)x,
				   *b = *(const struct report_result *const *)y;
	int c = agg_cmp(a, b);

	return c ? c : (a > b) - (a < b);
}

static const struct report_result *aggregate_of(const struct report *r, const struct text_layout *L,
						const struct report_result *res)
{
	if (L->agg) { /* the first of equal keys, as the linear search finds */
		size_t lo = 0, hi = r->naggregates;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (agg_cmp(L->agg[mid], res) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < r->naggregates && !agg_cmp(L->agg[lo], res) ? L->agg[lo] : NULL;
	}
	for (size_t i = 0; i < r->naggregates; i++)
		if (!strcmp(r->aggregates[i].probe, res->probe) &&
		    !strcmp(r->aggregates[i].phase, res->phase))
			return &r->aggregates[i];
	return NULL;
}

/* How much max stands out from the run: against the all-CPU p99, which one
 * bad CPU cannot drag up much.  A max of 3x p99 is a tail worth a look, 10x
 * a spike. */
static const char *max_color(const struct report *r, const struct text_layout *L,
			     const struct report_result *res)
{
	const struct report_result *agg = aggregate_of(r, L, res);
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
	char cpu[16], buf[32], probe[NAME_BUF];
	bool has = res->count > 0, pct = res->unknown & REPORT_UNKNOWN_PCT;

	if (res->cpu == REPORT_CPU_ALL)
		snprintf(cpu, sizeof(cpu), "all");
	else
		snprintf(cpu, sizeof(cpu), "%d", res->cpu);
	fprintf(out, "%-*s %*s", L->probe_w, util_escape(res->probe, probe, sizeof(probe)),
		L->cpu_w, cpu);
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
	cell_us(out, L, has, false, res->max, has ? max_color(r, L, res) : NULL);
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
	if (phase) {
		fputs("phase ", out);
		util_fputs_escaped(phase, out);
		fputc(':', out);
	} else
		fputs("all phases:", out);
	sgr_off(out, L->color);
	fputc('\n', out);
}

/* Width of the lines that hold to it (the causes line). */
#define TEXT_COLUMNS 80
#define CAUSE_BUF (4 * 1024 + 1) /* an escaped cause key (json_read.c: 1024 bytes) */

/* A cause for people, escaped: "rtsoak-spike/0 (FIFO 99)", "softirq NET_RX". */
static const char *cause_text(const char *cause, char *buf, size_t len)
{
	char plain[1100];

	return util_escape(attribution_label(cause ? cause : "?", plain, sizeof(plain)), buf, len);
}

/* The culprit of a pattern: ": rtsoak-spike/0 (FIFO 99) preempted, 19 of 20". */
static void culprit_print(FILE *out, json_t *c)
{
	const char *cause = json_string_value(json_object_get(c, "cause"));
	char buf[CAUSE_BUF], kind[32];

	if (!cause)
		return;
	fprintf(out, ": %s%s, %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT,
		cause_text(cause, buf, sizeof(buf)),
		!strcmp(attribution_kind(cause, kind, sizeof(kind)), "task") ? " preempted" : "",
		json_integer_value(json_object_get(c, "spikes")),
		json_integer_value(json_object_get(c, "of")));
}

/* s cut to at most w bytes with "..." (not inside a UTF-8 sequence). */
static void cut(char *s, size_t w)
{
	size_t n = strlen(s);

	if (n <= w)
		return;
	n = w > 3 ? w - 3 : 0;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	snprintf(s + n, 4, "...");
}

/* Where the timer IRQ came in for the spikes of cause c, its function
 * most of them name (the report's irq_at, escaped): "; timer IRQ in
 * rtsoak_irqoff_hold 57"; "" when the report names none. */
static void irq_at_text(json_t *c, char *buf, size_t len)
{
	json_t *top = json_array_get(json_object_get(c, "irq_at"), 0);
	const char *fn = json_string_value(json_object_get(top, "function"));
	char esc[4 * 256 + 1]; /* an escaped name (json_read.c: 255 bytes) */

	*buf = '\0';
	if (fn && *fn)
		snprintf(buf, len, "; timer IRQ in %s %" JSON_INTEGER_FORMAT,
			 util_escape(fn, esc, sizeof(esc)),
			 json_integer_value(json_object_get(top, "spikes")));
}

/* The causes of a series after "  causes:" into line (TEXT_COLUMNS + 1
 * bytes), leaving room for tail: as many as fit whole, then "+N more";
 * the first with_at of them with where their timer IRQ came in, each where
 * that still fits; with cut, the first one's name cut ("...") when not even
 * it fits.  The number of causes shown, -1 when nothing fits. */
static int causes_fit(char *line, json_t *causes, const char *tail, bool cut_first, size_t with_at)
{
	size_t n = json_array_size(causes), shown = 0, room = TEXT_COLUMNS - strlen(tail);

	snprintf(line, TEXT_COLUMNS + 1, "  causes:");
	if (!n) {
		strcat(line, " none");
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *c = json_array_get(causes, i);
		char label[CAUSE_BUF], item[CAUSE_BUF + 1200], more[32] = "", nums[48];
		char at[1100] = "";
		size_t used = strlen(line);
		json_int_t spikes = json_integer_value(json_object_get(c, "spikes"));
		double pct = 100 * json_number_value(json_object_get(c, "share"));

		cause_text(json_string_value(json_object_get(c, "cause")), label, sizeof(label));
		snprintf(nums, sizeof(nums), " %.0f%% (%" JSON_INTEGER_FORMAT ")", pct, spikes);
		if (i + 1 < n)
			snprintf(more, sizeof(more), ", +%zu more", n - i - 1);
		if (i < with_at)
			irq_at_text(c, at, sizeof(at));
		snprintf(item, sizeof(item), "%s %s %.0f%% (%" JSON_INTEGER_FORMAT "%s)",
			 i ? "," : "", label, pct, spikes, at);
		if (*at && used + strlen(item) + strlen(more) > room)
			snprintf(item, sizeof(item), "%s %s%s", i ? "," : "", label, nums);
		if (used + strlen(item) + strlen(more) <= room) {
			strcat(line, item);
			shown++;
			continue;
		}
		if (shown) { /* the rest as a count: room was kept for it */
			snprintf(more, sizeof(more), ", +%zu more", n - shown);
			strcat(line, more);
			return (int)shown;
		}
		size_t fixed = 1 + strlen(nums) + strlen(more);
		if (!cut_first || used + fixed + 4 > room)
			return -1;
		cut(label, room - used - fixed);
		snprintf(item, sizeof(item), " %s%s%s", label, nums, more);
		strcat(line, item);
		return 1;
	}
	return (int)shown;
}

/* causes_fit with where the timer IRQs came in for as many of the causes
 * it shows as fit, first first, never at the cost of a cause shown. */
static int causes_fit_at(char *line, json_t *causes, const char *tail, bool cut_first)
{
	int shown = causes_fit(line, causes, tail, cut_first, 0);

	for (int k = shown; k > 0; k--) {
		char l2[TEXT_COLUMNS + 1];
		if (causes_fit(l2, causes, tail, cut_first, (size_t)k) == shown) {
			memcpy(line, l2, sizeof(l2));
			break;
		}
	}
	return shown;
}

/* Why the spikes of a series were late, beside its spikes: line, within
 * TEXT_COLUMNS: "  causes: rtsoak-spike/0 (FIFO 99) 95% (19), softirq NET_RX
 * 3% (1); 1 not attributed (events lost)", with the function the timer IRQ
 * came in for most of a cause's spikes where the report has it and it fits
 * ("silent 100% (57; timer IRQ in rtsoak_irqoff_hold 57)").  Causes that do
 * not fit are counted ("+2 more"); when not even the first fits whole, the
 * reasons for the spikes not attributed go first, then the first cause's
 * name is cut. */
static void causes_print(FILE *out, json_t *as)
{
	static const char *const reason[][2] = { { "events_lost", "events lost" },
						 { "no_events", "no events" },
						 { "no_anchor", "no anchor" } };
	json_t *causes = json_object_get(as, "causes"), *na = json_object_get(as, "not_attributed");
	char tail[160] = "", brief[64] = "", line[TEXT_COLUMNS + 1];
	json_int_t missing = 0;
	unsigned nreasons = 0;

	for (unsigned i = 0; i < 3; i++) {
		json_int_t k = json_integer_value(json_object_get(na, reason[i][0]));
		missing += k;
		nreasons += k > 0;
	}
	if (missing) {
		snprintf(brief, sizeof(brief), "; %" JSON_INTEGER_FORMAT " not attributed",
			 missing);
		snprintf(tail, sizeof(tail), "%s (", brief);
		for (unsigned i = 0, first = 1; i < 3; i++) {
			json_int_t k = json_integer_value(json_object_get(na, reason[i][0]));
			if (!k)
				continue;
			if (nreasons > 1)
				util_catf(tail, sizeof(tail), "%s%" JSON_INTEGER_FORMAT " %s",
					  first ? "" : ", ", k, reason[i][1]);
			else
				util_catf(tail, sizeof(tail), "%s", reason[i][1]);
			first = 0;
		}
		util_catf(tail, sizeof(tail), ")");
	}
	if (causes_fit_at(line, causes, tail, false) < 0) {
		snprintf(tail, sizeof(tail), "%s", brief);
		if (causes_fit_at(line, causes, tail, true) < 0)
			snprintf(line, sizeof(line), "  causes: +%zu", json_array_size(causes));
	}
	fputs(line, out);
	fputs(tail, out);
	fputc('\n', out);
}

/* Spikes and recurring patterns, one line per series that has spikes:
 * "timer cpu 1: 23 spikes > 512.0 us; every 20.000 s (+-0.4 ms), 67 %",
 * with each pattern's culprit when the run was traced, and then the
 * causes line of the series' attribution. */
static bool worst_of(const struct report *r, const struct report_series *rs, const char **probe,
		     const struct report_result **worst, size_t *nworst)
{
	if (!*probe || strcmp(*probe, rs->probe)) {
		*probe = rs->probe;
		*nworst = report_worst_cpus(r, rs->probe, "all", worst, REPORT_WORST_CPUS);
		*nworst = *nworst < REPORT_WORST_CPUS ? *nworst : REPORT_WORST_CPUS;
	}
	for (size_t k = 0; k < *nworst; k++)
		if (worst[k]->cpu == rs->cpu)
			return true;
	return false;
}

/* compact: only the series of the CPUs the table shows (phase "all") and
 * those with a recurring pattern, and a line counting the others. */
static void spikes_print(const struct report *r, FILE *out, bool compact)
{
	json_t *per = json_object_get(r->analysis, "periodicity");
	const struct report_result *worst[REPORT_WORST_CPUS];
	const char *probe = NULL;
	size_t nworst = 0, hidden = 0;

	for (size_t i = 0; i < r->nseries; i++) {
		const struct report_series *rs = &r->series[i];
		json_t *a = json_array_get(per, i), *p, *as;
		size_t k;

		if (!rs->threshold_ns || !rs->spikes_total)
			continue;
		if (compact && !json_array_size(json_object_get(a, "patterns")) &&
		    !worst_of(r, rs, &probe, worst, &nworst)) {
			hidden++;
			continue;
		}
		fputs("spikes: ", out);
		util_fputs_escaped(rs->probe, out);
		fprintf(out, " cpu %d: %llu > %.1f us", rs->cpu,
			(unsigned long long)rs->spikes_total, (double)rs->threshold_ns / 1000.0);
		json_array_foreach (json_object_get(a, "patterns"), k, p) {
			fprintf(out, "; every %.3f s (+-%.1f ms) at +%.3f s, %.0f %% of them",
				(double)json_integer_value(json_object_get(p, "period_ns")) / 1e9,
				(double)json_integer_value(json_object_get(p, "jitter_ns")) / 1e6,
				(double)json_integer_value(json_object_get(p, "phase_ns")) / 1e9,
				100 * json_number_value(json_object_get(p, "explained")));
			culprit_print(out, json_object_get(p, "culprit"));
		}
		if (!json_array_size(json_object_get(a, "patterns")))
			fprintf(out, "; no periodic pattern");
		fputc('\n', out);
		if ((as = attribution_series(r, rs->probe, rs->cpu, "all")))
			causes_print(out, as);
	}
	if (hidden)
		fprintf(
		    out,
		    "not shown: spikes of %zu series, none recurring; rtsoak report --cpu-rows all\n",
		    hidden);
}

/* "0.5 s" for short runs; H:MM:SS (as on the progress line) from a minute,
 * where tenths of a second no longer matter and 86400.0 s reads badly. */
void text_fmt_duration(char *buf, size_t len, uint64_t ns)
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
	case REPORT_DISTURBED:
		status = SGR_RED;
		break;
	}
	text_fmt_duration(dur, sizeof(dur), r->duration_ns);
	sgr(out, L->color, SGR_BOLD);
	util_fputs_escaped(r->tool_name ? r->tool_name : "rtsoak", out);
	fputc(' ', out);
	util_fputs_escaped(r->tool_version ? r->tool_version : "?", out);
	fputs(": ", out);
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

/* Result positions sorted by (phase, position): each phase's rows are
 * one run of it, in report order. */
static const struct report *sort_r;

static int by_phase(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int c = strcmp(sort_r->results[a].phase, sort_r->results[b].phase);

	return c ? c : (a > b) - (a < b);
}

struct phase_run {
	size_t first, start, end; /* first result of the phase; its run in the order */
};

static int by_first(const void *x, const void *y)
{
	const struct phase_run *a = x, *b = y;

	return (a->first > b->first) - (a->first < b->first);
}

static int agg_phase_sort(const void *x, const void *y)
{
	const struct report_result *a = *(const struct report_result *const *)x,
				   *b = *(const struct report_result *const *)y;
	int c = strcmp(a->phase, b->phase);

	return c ? c : (a > b) - (a < b);
}

/* r's aggregates sorted by agg_phase_sort (free() it; NULL on ENOMEM). */
static const struct report_result **aggs_by_phase(const struct report *r)
{
	const struct report_result **aggs = malloc((r->naggregates + 1) * sizeof(*aggs));

	if (!aggs)
		return NULL;
	for (size_t i = 0; i < r->naggregates; i++)
		aggs[i] = &r->aggregates[i];
	qsort(aggs, r->naggregates, sizeof(*aggs), agg_phase_sort);
	return aggs;
}

/* The aggregates of one phase, in report order, from aggs sorted by
 * agg_phase_sort. */
static void agg_rows(FILE *out, const struct text_layout *L, const struct report *r,
		     const struct report_result **aggs, const char *phase)
{
	size_t lo = 0, hi = r->naggregates;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(aggs[mid]->phase, phase) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < r->naggregates && !strcmp(aggs[lo]->phase, phase); lo++)
		row(out, L, r, aggs[lo]);
}

/* Phases in first-seen order, then their union ("all"), in O(n log n):
 * a report may hold 10^5 results (bench/readers.sh).  False when out of
 * memory, for the quadratic way. */
static bool phases_sorted(FILE *out, const struct text_layout *L, const struct report *r)
{
	size_t *ord = malloc(r->nresults * sizeof(*ord)), nruns = 0, all = SIZE_MAX;
	struct phase_run *run = malloc(r->nresults * sizeof(*run));
	const struct report_result **aggs = aggs_by_phase(r);

	if (!ord || !run || !aggs) {
		free(ord);
		free(run);
		free(aggs);
		return false;
	}
	for (size_t i = 0; i < r->nresults; i++)
		ord[i] = i;
	sort_r = r;
	qsort(ord, r->nresults, sizeof(*ord), by_phase);
	for (size_t i = 0; i < r->nresults; i++) {
		if (i && !strcmp(r->results[ord[i]].phase, r->results[ord[i - 1]].phase)) {
			run[nruns - 1].end = i + 1;
			continue;
		}
		run[nruns++] = (struct phase_run){ ord[i], i, i + 1 };
	}
	qsort(run, nruns, sizeof(*run), by_first);
	for (size_t k = 0; k < nruns; k++) {
		const char *ph = r->results[run[k].first].phase;
		if (!strcmp(ph, "all")) {
			all = k;
			continue;
		}
		phase_heading(out, L, ph);
		for (size_t i = run[k].start; i < run[k].end; i++)
			row(out, L, r, &r->results[ord[i]]);
		agg_rows(out, L, r, aggs, ph);
	}
	phase_heading(out, L, NULL);
	for (size_t i = all == SIZE_MAX ? 0 : run[all].start; all != SIZE_MAX && i < run[all].end;
	     i++)
		row(out, L, r, &r->results[ord[i]]);
	agg_rows(out, L, r, aggs, "all");
	free(ord);
	free(run);
	free(aggs);
	return true;
}

/* ------------------------------------------------------- many CPUs -- */

/* For the compact layout: each result's phase and probe as the position of
 * the first result with the same name (first-seen order), and results
 * sorted by (phase, "all" last, probe, worst first). */
static size_t *first_phase, *first_probe;

static int by_phase_name(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int c = strcmp(sort_r->results[a].phase, sort_r->results[b].phase);

	return c ? c : (a > b) - (a < b);
}

static int by_probe_name(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int c = strcmp(sort_r->results[a].probe, sort_r->results[b].probe);

	return c ? c : (a > b) - (a < b);
}

static int by_block_rank(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	const struct report_result *ra = &sort_r->results[a], *rb = &sort_r->results[b];
	bool alla = !strcmp(ra->phase, "all"), allb = !strcmp(rb->phase, "all");

	if (alla != allb)
		return alla - allb;
	if (first_phase[a] != first_phase[b])
		return first_phase[a] < first_phase[b] ? -1 : 1;
	if (first_probe[a] != first_probe[b])
		return first_probe[a] < first_probe[b] ? -1 : 1;
	if (report_result_worse(ra, rb))
		return -1;
	if (report_result_worse(rb, ra))
		return 1;
	return (a > b) - (a < b);
}

/* first[i]: the first position holding result i's name, from ord sorted by
 * (name, position). */
static void first_seen(size_t *ord, size_t n, size_t *first, int (*cmp)(const void *, const void *),
		       bool probe)
{
	qsort(ord, n, sizeof(*ord), cmp);
	for (size_t i = 0, head = 0; i < n; i++) {
		const struct report_result *a = &sort_r->results[ord[i]],
					   *b = &sort_r->results[ord[head]];
		if (strcmp(probe ? a->probe : a->phase, probe ? b->probe : b->phase))
			head = i;
		first[ord[i]] = ord[head];
	}
}

/* "not shown: 120 timer CPUs (max <= 812.3 us); rtsoak report --cpu-rows all": the
 * command in full, since the summary at the end of a run prints it too. */
static void not_shown(FILE *out, const struct text_layout *L, const struct report_result *next,
		      size_t hidden)
{
	char probe[NAME_BUF], mx[32];

	sgr(out, L->color, SGR_DIM);
	fprintf(out, "not shown: %zu %s CPUs", hidden,
		util_escape(next->probe, probe, sizeof(probe)));
	if (next->count) {
		text_fmt_us(mx, sizeof(mx), next->max);
		fprintf(out, " (max <= %s us)", mx);
	} else {
		fputs(" (no samples)", out);
	}
	fputs("; rtsoak report --cpu-rows all", out);
	sgr_off(out, L->color);
	fputc('\n', out);
}

/* The compact layout: per phase (first-seen order, "all" last) and probe
 * (first-seen order) the REPORT_WORST_CPUS worst rows and a "not shown"
 * line, then the phase's aggregates.  O(n log n).  False when out of
 * memory, for the full layout. */
static bool compact_rows(FILE *out, const struct text_layout *L, const struct report *r,
			 bool phases)
{
	size_t n = r->nresults, *ord = malloc((n + 1) * sizeof(*ord));
	const struct report_result **aggs = aggs_by_phase(r);
	bool all_seen = false;

	first_phase = malloc((n + 1) * sizeof(*first_phase));
	first_probe = malloc((n + 1) * sizeof(*first_probe));
	if (!ord || !aggs || !first_phase || !first_probe) {
		free(ord);
		free(aggs);
		free(first_phase);
		free(first_probe);
		return false;
	}
	sort_r = r;
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	first_seen(ord, n, first_phase, by_phase_name, false);
	first_seen(ord, n, first_probe, by_probe_name, true);
	qsort(ord, n, sizeof(*ord), by_block_rank);
	for (size_t i = 0; i < n;) {
		const char *ph = r->results[ord[i]].phase;
		size_t pe = i;
		while (pe < n && first_phase[ord[pe]] == first_phase[ord[i]])
			pe++;
		all_seen = all_seen || !strcmp(ph, "all");
		if (phases)
			phase_heading(out, L, strcmp(ph, "all") ? ph : NULL);
		for (size_t j = i; j < pe;) {
			size_t e = j;
			while (e < pe && first_probe[ord[e]] == first_probe[ord[j]])
				e++;
			/* Only CPUs are cut: a result of no CPU is shown whatever. */
			size_t shown = 0, cpus = 0;
			for (size_t k = j; k < e; k++)
				cpus += r->results[ord[k]].cpu >= 0;
			for (size_t k = j; k < e; k++) {
				const struct report_result *res = &r->results[ord[k]];
				if (res->cpu >= 0 && shown >= REPORT_WORST_CPUS)
					continue;
				shown += res->cpu >= 0;
				row(out, L, r, res);
			}
			if (cpus > shown) {
				size_t k = j;
				for (size_t s = 0; k < e; k++)
					if (r->results[ord[k]].cpu >= 0 && s++ == shown)
						break;
				not_shown(out, L, &r->results[ord[k]], cpus - shown);
			}
			j = e;
		}
		agg_rows(out, L, r, aggs, ph);
		i = pe;
	}
	if (!all_seen) {
		if (phases)
			phase_heading(out, L, NULL);
		agg_rows(out, L, r, aggs, "all");
	}
	free(ord);
	free(aggs);
	free(first_phase);
	free(first_probe);
	first_phase = first_probe = NULL;
	return true;
}

/* One line per check that did not pass (width 0: whole, with the expected value and the fix;
 * else cut to width columns), then the counts. */
void report_checks_print(json_t *checks, FILE *out, size_t width, bool color)
{
	static const char *const names[] = { "pass", "info", "warn", "fail", "unknown" };
	unsigned count[5] = { 0 };
	size_t i;
	json_t *c;

	if (!json_is_array(checks))
		return;
	json_array_foreach (checks, i, c) {
		const char *st = json_string_value(json_object_get(c, "status"));
		const char *id = json_string_value(json_object_get(c, "id"));
		const char *cpus = json_string_value(json_object_get(c, "cpus"));
		const char *obs = json_string_value(json_object_get(c, "observed"));
		const char *exp = json_string_value(json_object_get(c, "expected"));
		const char *fix = json_string_value(json_object_get(c, "fix"));
		char line[2048], e1[512], e2[160], e3[64];
		unsigned k = 0;
		while (k < 4 && (!st || strcmp(st, names[k])))
			k++;
		count[k]++;
		if (k == 0)
			continue;
		snprintf(line, sizeof(line), "%-7s %-20s %s%s%s%s", names[k],
			 util_escape(id ? id : "?", e3, sizeof(e3)), cpus && *cpus ? "[" : "",
			 cpus && *cpus ? util_escape(cpus, e2, sizeof(e2)) : "",
			 cpus && *cpus ? "] " : "", util_escape(obs ? obs : "", e1, sizeof(e1)));
		if (!width && exp && *exp)
			util_catf(line, sizeof(line), "; expected %s",
				  util_escape(exp, e1, sizeof(e1)));
		if (!width && fix && *fix)
			util_catf(line, sizeof(line), "; fix: %s",
				  util_escape(fix, e1, sizeof(e1)));
		if (width)
			cut(line, width);
		const char *code = k == 3 ? SGR_RED : k == 2 || k == 4 ? SGR_YELLOW : NULL;
		if (code)
			sgr(out, color, code);
		fputs(line, out);
		if (code)
			sgr_off(out, color);
		fputc('\n', out);
	}
	fprintf(out, "checks: %u pass, %u info, %u warn, %u fail, %u unknown\n", count[0], count[1],
		count[2], count[3], count[4]);
}

/* run --on-spike: "on-spike: ran 3 for 40 spikes (skipped 30 by the
 * interval, 7 while one ran), 1 failed (first: exit 1 at 2.300 s)". */
static void on_spike_print(FILE *out, json_t *o)
{
	json_t *sk = json_object_get(o, "skipped"), *ff = json_object_get(o, "first_failure");
	uint64_t running = report_on_spike_count(sk, "running"),
		 interval = report_on_spike_count(sk, "interval"),
		 unlogged = report_on_spike_count(sk, "unlogged");
	const char *sep = " (skipped ";

	if (!json_is_object(o))
		return;
	fprintf(out, "on-spike: ran %" PRIu64 " for %" PRIu64 " spike(s)",
		report_on_spike_count(o, "ran"), report_on_spike_count(o, "spikes"));
	if (interval) {
		fprintf(out, "%s%" PRIu64 " by the interval", sep, interval);
		sep = ", ";
	}
	if (running) {
		fprintf(out, "%s%" PRIu64 " while one ran", sep, running);
		sep = ", ";
	}
	if (unlogged) {
		fprintf(out, "%s%" PRIu64 " not logged", sep, unlogged);
		sep = ", ";
	}
	if (strcmp(sep, " (skipped "))
		fputc(')', out);
	fprintf(out, ", %" PRIu64 " failed", report_on_spike_count(o, "failed"));
	if (json_is_object(ff) && json_is_string(json_object_get(ff, "status"))) {
		fputs(" (first: ", out);
		util_fputs_escaped(json_string_value(json_object_get(ff, "status")), out);
		fprintf(out, " at %.3f s)", (double)report_on_spike_count(ff, "at_ns") / 1e9);
	}
	if (report_on_spike_count(o, "not_started"))
		fprintf(out, ", %" PRIu64 " not started", report_on_spike_count(o, "not_started"));
	if (report_on_spike_count(o, "terminated"))
		fprintf(out, ", %" PRIu64 " stopped at the end",
			report_on_spike_count(o, "terminated"));
	fputc('\n', out);
}

void report_text_print(const struct report *r, FILE *out, bool color)
{
	report_text_print_cpus(r, out, color, TEXT_CPUS_AUTO);
}

void report_text_print_cpus(const struct report *r, FILE *out, bool color, enum text_cpus cpus)
{
	struct text_layout L = { .probe_w = 5, .cpu_w = 3, .color = color };
	const struct report_result **agg = malloc((r->naggregates + 1) * sizeof(*agg));
	char name[NAME_BUF];

	for (size_t i = 0; agg && i < r->naggregates; i++)
		agg[i] = &r->aggregates[i];
	if (agg)
		qsort(agg, r->naggregates, sizeof(*agg), agg_sort);
	L.agg = agg;
	for (size_t i = 0; i < r->nresults + r->naggregates; i++) {
		const struct report_result *res =
		    i < r->nresults ? &r->results[i] : &r->aggregates[i - r->nresults];
		int w = (int)strlen(util_escape(res->probe, name, sizeof(name)));
		if (w > L.probe_w)
			L.probe_w = w;
		if (res->cpu >= 0 && (int)util_digits((uint64_t)res->cpu) > L.cpu_w)
			L.cpu_w = (int)util_digits((uint64_t)res->cpu);
	}
	title(out, &L, r);
	header(out, &L);
	if (cpus == TEXT_CPUS_AUTO)
		cpus = report_cpu_count(r) > REPORT_MANY_CPUS ? TEXT_CPUS_WORST : TEXT_CPUS_ALL;
	if (cpus == TEXT_CPUS_WORST && compact_rows(out, &L, r, has_phases(r))) {
		/* printed */
	} else if (!has_phases(r)) {
		phase_rows(out, &L, r, "all");
	} else if (!phases_sorted(out, &L, r)) {
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
	free(agg);
	spikes_print(r, out, cpus == TEXT_CPUS_WORST);
	report_checks_print(r->checks, out, 80, color);
	if (r->on_spike)
		on_spike_print(out, r->on_spike);
	/* The prefix stays plain for grep; the message carries the colour. */
	for (size_t i = 0; i < r->nwarnings; i++) {
		fputs("warning: ", out);
		sgr(out, color, SGR_YELLOW);
		util_fputs_escaped(r->warnings[i], out);
		sgr_off(out, color);
		fputc('\n', out);
	}
}
