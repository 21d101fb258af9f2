// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the report model: JSON write -> read -> write is exact,
 * empty results render null statistics, damaged files are named, and the
 * CPUs the views of many CPUs keep are the worst (report_worst_cpus). */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "tap.h"
#include "views.h"

static void build(struct report *r)
{
	struct recorder *rec = recorder_alloc(8, -1);

	memset(r, 0, sizeof(*r));
	r->tool_version = strdup("test");
	r->argv = calloc(3, sizeof(char *));
	r->argv[r->argc++] = strdup("rtsoak");
	r->argv[r->argc++] = strdup("--cpus=0");
	snprintf(r->start, sizeof(r->start), "2026-11-30T18:00:00.000Z");
	snprintf(r->end, sizeof(r->end), "2026-11-30T18:00:02.000Z");
	r->duration_ns = 2000000000;
	r->status = REPORT_INTERRUPTED;
	r->realtime = true;
	report_warn(r, "a warning with \"quotes\"");
	r->config = json_pack("{s:I}", "interval_ns", (json_int_t)1000000);
	r->system = json_pack("{s:s}", "cmdline", "quiet");
	for (uint64_t i = 0; i < 5000; i++)
		recorder_add(rec, (i * 7919) % 100000 + (i == 4321 ? 90000000000ull : 0), i * 1000);
	recorder_add_missed(rec, 2);
	report_result_from_recorder(report_add_result(r, false, "timer", 0, "all"), rec);
	recorder_init(rec, 8, (struct recorder_sample *)(rec + 1));
	report_result_from_recorder(report_add_result(r, false, "timer", 1, "all"), rec);
	report_build_aggregates(r);
	recorder_free(rec);
}

/* One result of (probe, cpu, phase) with the given max, p99.9 and samples. */
static void add(struct report *r, const char *probe, int cpu, const char *phase, uint64_t max,
		uint64_t p999, uint64_t count)
{
	struct report_result *res = report_add_result(r, false, probe, cpu, phase);

	res->count = count;
	res->max = max;
	res->pct[3] = p999;
}

/* report_cpu_count and report_worst_cpus: what both views of many CPUs rank by (issue 20). */
static void test_worst(void)
{
	const struct report_result *w[4];
	struct report r;
	size_t n;

	memset(&r, 0, sizeof(r));
	add(&r, "timer", 5, "all", 100, 10, 1);
	add(&r, "timer", 3, "all", 300, 10, 1);
	add(&r, "timer", 9, "all", 300, 20, 1); /* same max as CPU 3, larger p99.9 */
	add(&r, "timer", 7, "all", 0, 0, 0);	/* no samples: after any with */
	add(&r, "timer", 2, "all", 300, 20, 1); /* same max and p99.9 as CPU 9: lower CPU first */
	add(&r, "timer", 3, "idle", 999, 99, 1);
	add(&r, "net", 11, "all", 5000, 50, 1);
	ok(report_cpu_count(&r) == 6, "report_cpu_count_counts_distinct_cpus_of_every_probe (%zu)",
	   report_cpu_count(&r));
	n = report_worst_cpus(&r, "timer", "all", w, 4);
	ok(n == 5 && w[0]->cpu == 2 && w[1]->cpu == 9 && w[2]->cpu == 3 && w[3]->cpu == 5,
	   "report_worst_cpus_ranks_by_max_then_p999_then_cpu (%zu: %d %d %d %d)", n, w[0]->cpu,
	   w[1]->cpu, w[2]->cpu, w[3]->cpu);
	n = report_worst_cpus(&r, "timer", "all", w, 1);
	ok(n == 5 && w[0]->cpu == 2, "report_worst_cpus_keeps_n_and_counts_all");
	n = report_worst_cpus(&r, "timer", "idle", w, 4);
	ok(n == 1 && w[0]->cpu == 3 && w[0]->max == 999, "report_worst_cpus_of_one_phase_only");
	ok(report_worst_cpus(&r, "none", "all", w, 4) == 0 &&
	       report_worst_cpus(&r, "timer", "all", w, 0) == 5,
	   "report_worst_cpus_of_no_result_and_of_room_for_none");
	ok(!report_result_worse(&r.results[3], &r.results[0]) &&
	       report_result_worse(&r.results[0], &r.results[3]),
	   "report_result_without_samples_is_never_worse");
	report_free(&r);
}

int main(void)
{
	char dir[] = "/tmp/rtsoak-test-XXXXXX", a[128], b[128], bad[128], err[512];
	struct report r, back;

	tap_plan(19);
	if (!mkdtemp(dir))
		return 1;
	snprintf(a, sizeof(a), "%s/a.json", dir);
	snprintf(b, sizeof(b), "%s/b.json", dir);
	snprintf(bad, sizeof(bad), "%s/bad.json", dir);

	build(&r);
	ok(r.naggregates == 1 && r.aggregates[0].count == 5000 &&
	       r.aggregates[0].cpu == REPORT_CPU_ALL,
	   "report_aggregate_merges_cpus_of_one_probe");
	ok(r.results[0].max == 90000000000ull + 4321 * 7919 % 100000 &&
	       r.results[0].pct[REPORT_NPCT - 1] <= r.results[0].max,
	   "report_overflow_sample_keeps_exact_max");
	ok(report_json_write(&r, a) == 0, "report_json_write_succeeds");
	ok(report_json_read(a, &back, err, sizeof(err)) == 0, "report_json_read_reads_own_output");
	ok(back.nresults == 2 && back.results[1].count == 0 && back.status == REPORT_INTERRUPTED &&
	       back.nwarnings == 1 && back.argc == 2,
	   "report_json_read_rebuilds_the_model");
	ok(report_json_write(&back, b) == 0, "report_json_write_of_read_model");
	char *ta = tap_slurp(a), *tb = tap_slurp(b);
	ok(ta && tb && strcmp(ta, tb) == 0, "report_json_round_trip_is_byte_identical");
	ok(ta && strstr(ta, "\"min_ns\": null") && !strstr(ta, "NaN") && !strstr(ta, "nan"),
	   "report_empty_result_has_null_statistics");
	free(ta);
	free(tb);
	report_free(&back);

	tap_spit(bad, "{\"schema\": \"rtsoak-report/1\", ");
	ok(report_json_read(bad, &back, err, sizeof(err)) == -EINVAL && strstr(err, bad) &&
	       strstr(err, "line"),
	   "report_json_read_names_truncated_file (%s)", err);
	tap_spit(bad, "{\"schema\": \"rtsoak-report/99\"}");
	ok(report_json_read(bad, &back, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "unknown schema"),
	   "report_json_read_rejects_unknown_schema (%s)", err);
	tap_spit(bad, "[1, 2]");
	ok(report_json_read(bad, &back, err, sizeof(err)) == -EINVAL,
	   "report_json_read_rejects_non_object (%s)", err);
	ok(report_json_read("/nonexistent/x.json", &back, err, sizeof(err)) < 0 &&
	       strstr(err, "x.json"),
	   "report_json_read_names_missing_file (%s)", err);
	/* A count that disagrees with the histogram is corruption. */
	ta = tap_slurp(a);
	char *p = strstr(ta, "\"count\": 5000");
	memcpy(p, "\"count\": 5001", 13);
	tap_spit(bad, ta);
	free(ta);
	ok(report_json_read(bad, &back, err, sizeof(err)) == -EINVAL && strstr(err, "results[0]"),
	   "report_json_read_rejects_inconsistent_histogram (%s)", err);

	report_free(&r);
	unlink(a);
	unlink(b);
	unlink(bad);
	rmdir(dir);
	test_worst();
	return tap_done();
}
