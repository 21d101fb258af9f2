/* Unit tests for the report model: JSON write -> read -> write is exact,
 * empty results render null statistics, and damaged files are named. */
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

int main(void)
{
	char dir[] = "/tmp/rtsoak-test-XXXXXX", a[128], b[128], bad[128], err[512];
	struct report r, back;

	tap_plan(13);
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
	return tap_done();
}
