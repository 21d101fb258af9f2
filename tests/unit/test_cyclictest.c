// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the cyclictest importer: real cyclictest 2.40 files
 * (tests/data/cyclictest-*.json) map onto the report model with exactly
 * the statistics cyclictest recorded, everything else is marked unknown
 * and said in a warning, and damaged files are named.
 *
 * The fixtures are unedited output of cyclictest 2.40 (rt-tests 2.4) on a
 * 2-CPU VM:
 *   cyclictest-h.json    cyclictest -m -q -p95 -i1000 -l2000 -t2 -a -h 200 --json=...
 *   cyclictest-noh.json  cyclictest -m -q -p95 -i1000 -D 2 -t2 -a --json=...
 *   cyclictest-nan.json  cyclictest -q -p95 -i 1000000 -d 1500000 -t2 -a --json=...
 *                        stopped with SIGINT after 1.6 s, before thread 1's
 *                        first wake-up: write_stats prints its avg with
 *                        printf("%.2f", avg / cycles), 0.0 / 0 is a negative
 *                        NaN on x86, hence "avg": -nan, which is not JSON. */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cyclictest.h"
#include "report.h"
#include "tap.h"
#include "views.h"

static char dir[] = "/tmp/rtsoak-ct-XXXXXX";
static char data[512];

/* The fixtures live in the source tree: $top_srcdir (set by `make check`)
 * or relative to this file's own path. */
static bool find_data(void)
{
	const char *top = getenv("top_srcdir");
	char probe[600];

	if (top)
		snprintf(data, sizeof(data), "%s/tests/data", top);
	else {
		snprintf(data, sizeof(data), "%s", __FILE__);
		char *cut = strstr(data, "tests/unit/");
		if (!cut)
			return false;
		snprintf(cut, sizeof(data) - (size_t)(cut - data), "tests/data");
	}
	snprintf(probe, sizeof(probe), "%s/cyclictest-h.json", data);
	return access(probe, R_OK) == 0;
}

static const char *fixture(const char *name)
{
	static char path[4][600];
	static unsigned k;
	char *p = path[k++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", data, name);
	return p;
}

static const char *tmp(const char *name)
{
	static char path[4][128];
	static unsigned k;
	char *p = path[k++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	return p;
}

/* load + detect + read, as `rtsoak report` does. */
static int import(const char *path, struct report *r, char *err, size_t errlen)
{
	bool had_nan;
	json_t *root = cyclictest_load(path, &had_nan, err, errlen);
	int rc;

	memset(r, 0, sizeof(*r));
	if (!root)
		return -EINVAL;
	rc = cyclictest_read(path, root, r, err, errlen);
	json_decref(root);
	return rc;
}

static bool warned(const struct report *r, const char *a, const char *b)
{
	for (size_t i = 0; i < r->nwarnings; i++)
		if (strstr(r->warnings[i], a) && (!b || strstr(r->warnings[i], b)))
			return true;
	return false;
}

static const struct report_result *row_of(const struct report *r, int cpu)
{
	for (size_t i = 0; i < r->nresults; i++)
		if (r->results[i].cpu == cpu)
			return &r->results[i];
	return NULL;
}

/* The 1 us bucket that holds the sample of nearest rank ceil(p% of n), from
 * the fixture's own histogram; -1 when it is beyond the histogram. */
static long rank_bucket(json_t *hist, uint64_t n, double p)
{
	uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)n), seen = 0;

	for (long k = 0; k < 1000000; k++) {
		char key[24];
		snprintf(key, sizeof(key), "%ld", k);
		seen += (uint64_t)json_integer_value(json_object_get(hist, key));
		if (seen >= rank)
			return k;
	}
	return -1;
}

/* A percentile read from the model lies in the cyclictest bucket that
 * holds its rank (within the log-linear histogram's 0.4 %); among the
 * samples beyond the histogram it is the max's bucket (at most 0.4 % below
 * the max); at rank n it is the exact max. */
static bool pct_plausible(uint64_t v, json_t *hist, uint64_t n, double p, uint64_t max)
{
	long b = rank_bucket(hist, n, p);
	uint64_t lo = (uint64_t)b * 1000, hi = lo + 1000;

	if ((uint64_t)ceil(p / 100.0 * (double)n) >= n)
		return v == max;
	if (b < 0)
		return v <= max && v >= max - max / 256;
	return v >= lo - lo / 256 && v < hi + hi / 256;
}

static void test_h(void)
{
	struct report r;
	char err[512] = "";
	json_t *fx = json_load_file(fixture("cyclictest-h.json"), 0, NULL);
	json_t *threads = json_object_get(fx, "thread"), *t;
	const char *key;
	bool counts = true, minmax = true, means = true, bits = true, p50 = true, top = true;
	uint64_t total = 0, lo = UINT64_MAX, hi = 0;

	ok(import(fixture("cyclictest-h.json"), &r, err, sizeof(err)) == 0 && r.nresults == 2,
	   "cyclictest_h_reads_one_row_per_thread (%s)", err);
	if (r.nresults != 2) {
		json_decref(fx);
		return;
	}
	json_object_foreach (threads, key, t) {
		const struct report_result *res =
		    row_of(&r, (int)json_integer_value(json_object_get(t, "cpu")));
		uint64_t n = (uint64_t)json_integer_value(json_object_get(t, "cycles"));
		uint64_t mn = (uint64_t)json_integer_value(json_object_get(t, "min")) * 1000;
		uint64_t mx = (uint64_t)json_integer_value(json_object_get(t, "max")) * 1000;
		json_t *h = json_object_get(t, "histogram");
		long k = rank_bucket(h, n, 50);
		if (!res) {
			counts = false;
			continue;
		}
		total += n;
		lo = mn < lo ? mn : lo;
		hi = mx > hi ? mx : hi;
		counts &=
		    res->count == n && !strcmp(res->probe, "timer") && !strcmp(res->phase, "all");
		minmax &= res->min == mn && res->max == mx;
		means &= res->mean ==
			 (uint64_t)llround(json_number_value(json_object_get(t, "avg")) * 1000);
		bits &= res->hist &&
			res->unknown ==
			    (REPORT_UNKNOWN_STDDEV | REPORT_UNKNOWN_MAX_AT | REPORT_UNKNOWN_MISSED);
		p50 &= k >= 0 && res->pct[0] >= (uint64_t)k * 1000 &&
		       res->pct[0] < (uint64_t)(k + 1) * 1000;
		if (k < 0 || !p50)
			diag("thread %s: p50 %llu ns, median bucket %ld us", key,
			     (unsigned long long)res->pct[0], k);
		for (unsigned i = 0; i < REPORT_NPCT; i++)
			if (!pct_plausible(res->pct[i], h, n, report_pct[i], mx)) {
				diag("thread %s p%g: %llu ns", key, report_pct[i],
				     (unsigned long long)res->pct[i]);
				top = false;
			}
	}
	ok(counts, "cyclictest_h_count_is_cycles_per_cpu");
	ok(minmax, "cyclictest_h_min_max_are_us_times_1000");
	ok(means, "cyclictest_h_mean_is_avg_times_1000_rounded");
	ok(bits, "cyclictest_h_percentiles_known_stddev_missed_max_at_unknown");
	ok(p50, "cyclictest_h_p50_lies_in_the_bucket_holding_the_median");
	ok(top, "cyclictest_h_percentiles_in_their_bucket_or_the_max_beyond_the_histogram");
	ok(r.naggregates == 1 && r.aggregates[0].cpu == REPORT_CPU_ALL &&
	       r.aggregates[0].count == total && r.aggregates[0].min == lo &&
	       r.aggregates[0].max == hi && r.aggregates[0].hist &&
	       (r.aggregates[0].unknown & REPORT_UNKNOWN_STDDEV) &&
	       (r.aggregates[0].unknown & REPORT_UNKNOWN_MISSED) &&
	       !(r.aggregates[0].unknown & REPORT_UNKNOWN_PCT),
	   "cyclictest_h_aggregate_merges_cpus_and_keeps_unknown_bits");
	ok(warned(&r, "missed deadlines", "stddev") && !warned(&r, "no histogram", NULL) &&
	       warned(&r, "beyond the histogram (-h 200)", "upper bounds"),
	   "cyclictest_h_warns_what_is_unknown_and_the_overflows");

	/* Header and config from the same file. */
	const char *start = json_string_value(json_object_get(fx, "start_time"));
	char mon[4], want[40];
	int d, y, hh, mm, ss;
	sscanf(start, "%*[A-Za-z], %d %3s %d %d:%d:%d", &d, mon, &y, &hh, &mm, &ss);
	snprintf(want, sizeof(want), "%04d-%02d-%02dT%02d:%02d:%02d.000Z", y,
		 (int)(strstr("JanFebMarAprMayJunJulAugSepOctNovDec", mon) -
		       "JanFebMarAprMayJunJulAugSepOctNovDec") /
			 3 +
		     1,
		 d, hh, mm, ss);
	ok(r.tool_name && !strcmp(r.tool_name, "cyclictest") && r.tool_version &&
	       !strcmp(r.tool_version,
		       json_string_value(json_object_get(fx, "rt_test_version:"))) &&
	       r.argc > 3 && !strcmp(r.argv[0], "cyclictest") && r.status == REPORT_COMPLETE &&
	       !strcmp(r.start, want) && strcmp(r.end, r.start) >= 0 && r.realtime,
	   "cyclictest_header_maps_version_argv_status_and_times (%s)", r.start);
	/* -l2000 at -i1000 (with -h all threads share the interval): 2 s. */
	ok(r.duration_ns == 2000ull * 1000000, "cyclictest_h_duration_is_cycles_times_interval");
	json_t *c = r.config;
	ok(json_integer_value(json_object_get(c, "interval_ns")) == 1000000 &&
	       json_integer_value(json_object_get(c, "priority")) == 95 &&
	       !strcmp(json_string_value(json_object_get(c, "policy")), "SCHED_FIFO") &&
	       !strcmp(json_string_value(json_object_get(c, "cpus")), "0-1") &&
	       !strcmp(json_string_value(json_array_get(json_object_get(c, "probes"), 0)),
		       "timer") &&
	       json_array_size(json_object_get(c, "loads")) == 0 &&
	       json_integer_value(json_object_get(c, "loops")) == 2000 &&
	       !strcmp(json_string_value(json_object_get(c, "source")), "cyclictest") &&
	       !strcmp(json_string_value(json_object_get(c, "cmdline")),
		       json_string_value(json_object_get(fx, "cmdline:"))) &&
	       !json_object_get(c, "distance_ns"),
	   "cyclictest_config_uses_rtsoak_keys");
	ok(json_equal(json_object_get(json_object_get(r.system, "kernel"), "release"),
		      json_object_get(json_object_get(fx, "sysinfo"), "release")) &&
	       json_is_null(json_object_get(r.system, "realtime")),
	   "cyclictest_system_holds_the_uname_and_realtime_0_as_unknown");
	ok(json_array_size(r.phases) == 1 &&
	       !strcmp(json_string_value(json_object_get(json_array_get(r.phases, 0), "name")),
		       "all") &&
	       json_is_array(r.loads),
	   "cyclictest_has_one_phase_all");
	report_free(&r);
	json_decref(fx);
}

/* Rows under the header line up: every row as long as the header. */
/* The number of "?" cells in the row that starts with `start` (-1: no row). */
static int row_marks(const char *text, const char *start)
{
	const char *row = strstr(text, start), *p;
	int n = 0;

	if (!row)
		return -1;
	for (p = row + 1; *p && *p != '\n'; p++)
		n += *p == '?';
	return n;
}

static bool aligned(const char *text)
{
	const char *nl = strchr(strchr(text, '\n') + 1, '\n');
	size_t width = (size_t)(nl - strchr(text, '\n') - 1);

	for (const char *p = nl + 1; *p; p = strchr(p, '\n') + 1) {
		const char *e = strchr(p, '\n');
		if (!strncmp(p, "timer", 5) && (size_t)(e - p) != width)
			return false;
	}
	return true;
}

static void test_noh(void)
{
	struct report r;
	char err[512] = "", *text = NULL;
	size_t len;
	json_t *fx = json_load_file(fixture("cyclictest-noh.json"), 0, NULL);
	uint64_t c0 = (uint64_t)json_integer_value(json_object_get(
		     json_object_get(json_object_get(fx, "thread"), "0"), "cycles")),
		 c1 = (uint64_t)json_integer_value(json_object_get(
		     json_object_get(json_object_get(fx, "thread"), "1"), "cycles"));
	bool unknown = true;

	ok(import(fixture("cyclictest-noh.json"), &r, err, sizeof(err)) == 0 && r.nresults == 2,
	   "cyclictest_noh_reads (%s)", err);
	for (size_t i = 0; i < r.nresults; i++)
		unknown &= (r.results[i].unknown & REPORT_UNKNOWN_PCT) && !r.results[i].hist;
	ok(unknown && r.naggregates == 1 && (r.aggregates[0].unknown & REPORT_UNKNOWN_PCT) &&
	       !r.aggregates[0].hist,
	   "cyclictest_noh_percentiles_unknown_without_histogram");
	ok(warned(&r, "no histogram (-h)", "percentiles are unknown") &&
	       warned(&r, "missed deadlines", NULL),
	   "cyclictest_noh_warns_percentiles_unknown");
	/* Without -h thread 1 sleeps 1000 + 500 us; the longer-running thread counts. */
	uint64_t d0 = c0 * 1000000, d1 = c1 * 1500000;
	ok(r.duration_ns == (d0 > d1 ? d0 : d1) &&
	       json_integer_value(json_object_get(r.config, "distance_ns")) == 500000 &&
	       json_integer_value(json_object_get(r.config, "duration_ns")) == 2000000000,
	   "cyclictest_noh_duration_follows_the_slowest_thread");
	FILE *f = open_memstream(&text, &len);
	report_text_print(&r, f, false);
	fclose(f);
	diag("%s", text);
	/* p50, p99, p99.9, p99.99 and missed are unknown; min, max are not. */
	ok(row_marks(text, "\ntimer   0 ") == 5 && aligned(text),
	   "text_prints_question_marks_for_unknown_statistics_aligned");
	free(text);
	report_free(&r);
	json_decref(fx);

	ok(import(fixture("cyclictest-h.json"), &r, err, sizeof(err)) == 0, "cyclictest_h_reads");
	f = open_memstream(&text, &len);
	report_text_print(&r, f, false);
	fclose(f);
	/* With -h only missed is unknown. */
	ok(row_marks(text, "\ntimer   0 ") == 1 && aligned(text),
	   "text_prints_percentiles_and_unknown_missed_with_histogram");
	free(text);
	report_free(&r);
}

static void test_nan(void)
{
	struct report r;
	char err[512] = "";
	bool had_nan = false;
	json_t *root = cyclictest_load(fixture("cyclictest-nan.json"), &had_nan, err, sizeof(err));

	ok(root && had_nan &&
	       json_is_null(
		   json_object_get(json_object_get(json_object_get(root, "thread"), "1"), "avg")),
	   "cyclictest_load_turns_nan_into_null (%s)", root ? "" : err);
	ok(root && cyclictest_detect(root), "cyclictest_detect_accepts_the_nan_file");
	json_decref(root);
	ok(import(fixture("cyclictest-nan.json"), &r, err, sizeof(err)) == 0 && r.nresults == 2,
	   "cyclictest_nan_reads (%s)", err);
	const struct report_result *idle = row_of(&r, 1), *one = row_of(&r, 0);
	ok(idle && idle->count == 0 && (idle->unknown & REPORT_UNKNOWN_MEAN) && one &&
	       one->count == 1 && one->mean == 79000 && !(one->unknown & REPORT_UNKNOWN_MEAN),
	   "cyclictest_zero_cycles_is_an_empty_row_with_unknown_mean");
	ok(warned(&r, "NaN", "thread 1 avg") && warned(&r, "thread 1 recorded no cycles", NULL),
	   "cyclictest_nan_warning_names_the_field");
	ok(r.naggregates == 1 && r.aggregates[0].count == 1 &&
	       !(r.aggregates[0].unknown & REPORT_UNKNOWN_MEAN) && r.aggregates[0].mean == 79000,
	   "cyclictest_aggregate_ignores_rows_without_samples");
	report_free(&r);
}

static void test_load(void)
{
	char err[512] = "";
	bool had_nan = true;
	json_t *root;

	root = cyclictest_load(fixture("cyclictest-h.json"), &had_nan, err, sizeof(err));
	ok(root && !had_nan && cyclictest_detect(root), "cyclictest_load_reads_plain_json");
	json_decref(root);

	tap_spit(tmp("s.json"),
		 "{\"cmdline:\": \"x -nan \\\"inf\\\" nan\", \"v\": -inf, \"w\": NaN, \"u\": 1.5,\n"
		 " \"x\": [nan, +Infinity], \"y\": \"a\\\\\", \"z\": -nan}\n");
	root = cyclictest_load(tmp("s.json"), &had_nan, err, sizeof(err));
	ok(root && had_nan &&
	       !strcmp(json_string_value(json_object_get(root, "cmdline:")),
		       "x -nan \"inf\" nan") &&
	       json_is_null(json_object_get(root, "v")) &&
	       json_is_null(json_object_get(root, "w")) &&
	       json_real_value(json_object_get(root, "u")) == 1.5 &&
	       json_is_null(json_array_get(json_object_get(root, "x"), 1)) &&
	       !strcmp(json_string_value(json_object_get(root, "y")), "a\\") &&
	       json_is_null(json_object_get(root, "z")),
	   "cyclictest_load_replaces_nan_only_outside_strings (%s)", root ? "" : err);
	json_decref(root);

	char *h = tap_slurp(fixture("cyclictest-h.json"));
	h[300] = '\0';
	tap_spit(tmp("trunc.json"), h);
	free(h);
	root = cyclictest_load(tmp("trunc.json"), &had_nan, err, sizeof(err));
	ok(!root && strstr(err, tmp("trunc.json")) && strstr(err, "truncated"),
	   "cyclictest_load_names_truncated_file (%s)", err);
	tap_spit(tmp("bad.json"), "{\n  \"thread\": { x }\n}\n");
	root = cyclictest_load(tmp("bad.json"), &had_nan, err, sizeof(err));
	ok(!root && strstr(err, tmp("bad.json")) && strstr(err, "line 2"),
	   "cyclictest_load_names_line_of_bad_json (%s)", err);
	root = cyclictest_load(tmp("missing.json"), &had_nan, err, sizeof(err));
	ok(!root && strstr(err, tmp("missing.json")) && strstr(err, "No such file"),
	   "cyclictest_load_names_missing_file (%s)", err);

	json_t *rt = json_pack("{s:s, s:{}, s:{}}", "schema", "rtsoak-report/1", "tool", "thread");
	json_t *arr = json_pack("[i, i]", 1, 2);
	ok(!cyclictest_detect(rt) && !cyclictest_detect(arr) && !cyclictest_detect(NULL),
	   "cyclictest_detect_rejects_rtsoak_reports_and_non_objects");
	json_decref(rt);
	json_decref(arr);
}

/* The real -h fixture with one edit; returns the import's rc. */
static int edited(const char *from, const char *to, struct report *r, char *err, size_t errlen)
{
	char *text = tap_slurp(fixture("cyclictest-h.json")), *at = strstr(text, from);
	char *out = calloc(1, strlen(text) + strlen(to) + 1);

	memcpy(out, text, (size_t)(at - text));
	strcat(out, to);
	strcat(out, at + strlen(from));
	tap_spit(tmp("edited.json"), out);
	free(text);
	free(out);
	return import(tmp("edited.json"), r, err, errlen);
}

static void test_bad(void)
{
	struct report r;
	char err[512] = "";
	const char *f = tmp("edited.json");

	ok(edited("\"histogram\": {", "\"histogram\": {\n        \"abc\": 1,", &r, err,
		  sizeof(err)) == -EINVAL &&
	       strstr(err, f) && strstr(err, "'abc'"),
	   "cyclictest_rejects_histogram_key_abc (%s)", err);
	ok(r.nresults == 0 && !r.tool_name && !r.config, "cyclictest_error_leaves_report_empty");
	ok(edited("\"min\": ", "\"min\": -", &r, err, sizeof(err)) == -EINVAL && strstr(err, f) &&
	       strstr(err, "thread.0.min") && strstr(err, "negative"),
	   "cyclictest_rejects_negative_min (%s)", err);
	ok(edited("\"cycles\": 2000,", "", &r, err, sizeof(err)) == -EINVAL && strstr(err, f) &&
	       strstr(err, "no cycles"),
	   "cyclictest_rejects_thread_without_cycles (%s)", err);
	ok(edited("\"histogram\": {", "\"histogram\": {\n        \"5\": 1.5,", &r, err,
		  sizeof(err)) == -EINVAL &&
	       strstr(err, f) && strstr(err, "count of bucket 5"),
	   "cyclictest_rejects_non_integer_count (%s)", err);
	ok(edited("\"histogram\": {", "\"histogram\": {\n        \"5\": 100000,", &r, err,
		  sizeof(err)) == -EINVAL &&
	       strstr(err, f) && strstr(err, "more samples than"),
	   "cyclictest_rejects_histogram_larger_than_cycles (%s)", err);
	ok(edited("\"rt_test_version:\"", "\"version\"", &r, err, sizeof(err)) == -EINVAL &&
	       strstr(err, f) && strstr(err, "rt_test_version:"),
	   "cyclictest_rejects_missing_version (%s)", err);
	ok(edited("\"num_threads\": 2", "\"num_threads\": 3", &r, err, sizeof(err)) == -EINVAL &&
	       strstr(err, f) && strstr(err, "num_threads"),
	   "cyclictest_rejects_thread_count_mismatch (%s)", err);
	ok(edited("\"min\": ", "\"min\": 99999", &r, err, sizeof(err)) == -EINVAL &&
	       strstr(err, f) && strstr(err, "min is larger than max"),
	   "cyclictest_rejects_min_above_max (%s)", err);
	report_free(&r);
}

/* A small file in cyclictest's shape, for the cases real runs here cannot
 * produce (threads sharing a CPU, unpinned threads, -N, odd command lines). */
static int synth(const char *cmdline, const char *res, const char *threads, struct report *r,
		 char *err, size_t errlen)
{
	char text[4096];

	*err = '\0';
	snprintf(text, sizeof(text),
		 "{\n  \"file_version\": 1,\n  \"cmdline:\": \"%s\",\n"
		 "  \"rt_test_version:\": \"2.40\",\n"
		 "  \"start_time\": \"Tue, 01 Dec 2026 03:16:06 +0100\",\n"
		 "  \"end_time\": \"Tue, 01 Dec 2026 03:16:09 +0100\",\n"
		 "  \"return_code\": 0,\n  \"resolution_in_ns\": %s,\n  \"thread\": {%s}\n}\n",
		 cmdline, res, threads);
	tap_spit(tmp("synth.json"), text);
	return import(tmp("synth.json"), r, err, errlen);
}

#define T(n, cpu, cyc, mn, mx, avg, hist)                                             \
	"\"" #n "\": {\"histogram\": {" hist "}, \"cycles\": " #cyc ", \"min\": " #mn \
	", \"max\": " #mx ", \"avg\": " #avg ", \"cpu\": " #cpu ", \"node\": 0}"

static void test_synth(void)
{
	struct report r;
	char err[512] = "";

	ok(synth("cyclictest -t3 -p80 -i500", "0",
		 T(0, 1, 100, 5, 50, 10.00, ) "," T(1, 1, 300, 3, 30, 20.00, ) "," T(2, 0, 10, 7, 7,
										     7.00, ),
		 &r, err, sizeof(err)) == 0 &&
	       r.nresults == 2 && r.results[0].cpu == 0 && r.results[1].cpu == 1 &&
	       r.results[1].count == 400 && r.results[1].min == 3000 && r.results[1].max == 50000 &&
	       r.results[1].mean == 17500 && warned(&r, "threads 0, 1 ran on CPU 1", "merged"),
	   "cyclictest_threads_sharing_a_cpu_merge_into_one_row (%s)", err);
	/* No stamps parsed differently: +0100 is an hour ahead of UTC. */
	ok(!strcmp(r.start, "2026-12-01T02:16:06.000Z"), "cyclictest_start_time_offset_to_utc (%s)",
	   r.start);
	report_free(&r);

	ok(synth("cyclictest -t2", "0", T(0, -1, 10, 5, 9, 6.00, ) "," T(1, -1, 10, 5, 9, 6.00, ),
		 &r, err, sizeof(err)) == 0 &&
	       r.nresults == 2 && r.results[0].cpu == 0 && r.results[1].cpu == 1 &&
	       warned(&r, "threads 0, 1 did not say the CPU", NULL) && !r.realtime &&
	       !strcmp(json_string_value(json_object_get(r.config, "policy")), "SCHED_OTHER"),
	   "cyclictest_unpinned_threads_are_numbered_by_thread (%s)", err);
	report_free(&r);

	ok(synth("cyclictest -N -h 100 -t1", "1", T(0, 2, 4, 40, 70, 55.00, "\"40\": 1, \"70\": 1"),
		 &r, err, sizeof(err)) == 0 &&
	       r.results[0].min == 40 && r.results[0].max == 70 && r.results[0].mean == 55 &&
	       r.results[0].pct[0] == 70 &&
	       warned(&r, "beyond the histogram (-h 100)", "thread 0: 2 of 4"),
	   "cyclictest_nsecs_values_are_not_scaled (%s)", err);
	report_free(&r);

	ok(synth("cyclictest -h 10 -t1", "0", T(0, 0, 5, 20, 30, 25.00, ), &r, err, sizeof(err)) ==
		   0 &&
	       !(r.results[0].unknown & REPORT_UNKNOWN_PCT) && r.results[0].pct[0] == 30000,
	   "cyclictest_all_overflowed_histogram_gives_the_max (%s)", err);
	report_free(&r);

	ok(synth("cyclictest --inter=250 --priority 80 --policy=rr -d0 -t 2 --json=/x", "0",
		 T(0, 0, 10, 5, 9, 6.00, ) "," T(1, 1, 10, 5, 9, 6.00, ), &r, err,
		 sizeof(err)) == 0 &&
	       json_integer_value(json_object_get(r.config, "interval_ns")) == 250000 &&
	       json_integer_value(json_object_get(r.config, "priority")) == 80 &&
	       !strcmp(json_string_value(json_object_get(r.config, "policy")), "SCHED_RR") &&
	       !json_object_get(r.config, "distance_ns") && r.duration_ns == 2500000 && r.realtime,
	   "cyclictest_cmdline_parsed_like_getopt_long (%s)", err);
	report_free(&r);

	ok(synth("cyclictest -i 250 --policy", "0", T(0, 0, 10, 5, 9, 6.00, ), &r, err,
		 sizeof(err)) == 0 &&
	       !json_object_get(r.config, "policy") &&
	       warned(&r, "cmdline not understood", "'--policy' lacks its value"),
	   "cyclictest_option_without_its_value_is_not_understood (%s)", err);
	report_free(&r);

	ok(synth("cyclictest -Z 3 -i 250", "0", T(0, 0, 10, 5, 9, 6.00, ), &r, err, sizeof(err)) ==
		   0 &&
	       !json_object_get(r.config, "interval_ns") && r.duration_ns == 3000000000ull &&
	       warned(&r, "cmdline not understood", "'-Z'"),
	   "cyclictest_unknown_option_leaves_interval_unknown (%s)", err);
	report_free(&r);
}

int main(void)
{
	if (!find_data()) {
		printf("1..0 # SKIP fixtures not found (set top_srcdir)\n");
		return 0;
	}
	if (!mkdtemp(dir))
		return 1;
	tap_plan(50);
	test_h();
	test_noh();
	test_nan();
	test_load();
	test_bad();
	test_synth();
	const char *names[] = { "s.json", "trunc.json", "bad.json", "edited.json", "synth.json" };
	for (unsigned i = 0; i < 5; i++)
		unlink(tmp(names[i]));
	rmdir(dir);
	return tap_done();
}
