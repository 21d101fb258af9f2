// SPDX-License-Identifier: GPL-2.0-or-later
/* rttests_json: the report as the rt-tests 2.x --json file that cyclictest --json writes, so
 * that what reads those (Linaro test-definitions' parse_rt_tests_results.py, KernelCI's
 * rt-tests jobs, scripts written for cyclictest) reads an rtsoak run unchanged.
 *
 * The keys are cyclictest 2.40's, in its order and with its JSON types, checked against the
 * real one (tests/integration/report_rttests.sh): "file_version" 1, "cmdline:" and
 * "rt_test_version:" (the colons are part of the keys), "start_time", "end_time",
 * "return_code", "sysinfo" {sysname, nodename, release, version, machine, realtime},
 * "num_threads", "resolution_in_ns" 0 (microseconds) and "thread" {"0": {histogram, cycles,
 * min, max, avg, cpu, node}, ...}.  Nothing of rtsoak's own is added: consumers may check
 * the key set.
 *
 * What each holds here:
 *   cmdline:          the rtsoak command line of the run (its argv joined by spaces), not a
 *                     cyclictest one: no cyclictest ran
 *   rt_test_version:  "rtsoak VERSION"
 *   start/end_time    the run's, in UTC, cyclictest's "%a, %d %b %Y %T %z" with English names
 *                     whatever the locale ("" when the report has none)
 *   return_code       0 for a complete run, 1 for any other status (interrupted, failed, a
 *                     checkpoint of a running one), so that a parser's pass/fail line does
 *                     not pass a run that did not finish
 *   sysinfo           the snapshot's uname and hostname ("" where unknown); realtime 1 when
 *                     /sys/kernel/realtime said 1, else 0, as cyclictest writes
 *   thread N          the Nth timer result of phase "all" in CPU order (one thread per
 *                     measured CPU); other probes (net, ...) are not cyclictest data and are
 *                     left out
 *   cycles            the samples counted (warm-up and missed deadlines are not samples)
 *   min, max          whole microseconds, truncated, as cyclictest truncates each sample
 *   avg               the mean in microseconds with two decimals (%.2f, as cyclictest prints
 *                     it) but of the exact samples, so up to 1 us above what cyclictest's mean
 *                     of truncated samples would be; at most max (a run whose samples all lie
 *                     in max's microsecond)
 *   histogram         {"us": count} of the non-empty 1 us rows from 0 to the max, at most
 *                     RTTESTS_ROWS_MAX rows, placed as histogram_text.c places them (within
 *                     0.26 us below 131 us); samples beyond the rows are left out of it, and
 *                     cycles minus its total is the overflow count, as in cyclictest's file;
 *                     `rtsoak cyclictest` asks for cyclictest's rows: 0 to US-1 with -h US,
 *                     none ({}) without -h (rttests_json_write_rows); with -N min, max and
 *                     avg are in ns, resolution_in_ns 1, and the histogram is {} (1 ns rows
 *                     would be finer than the buckets: the front end refuses -N with -h)
 *   cpu               the CPU; node its NUMA node when the machine has one node, else -1
 *                     (cyclictest's "not bound to a node"): the report keeps no per-CPU node
 * A CPU without samples writes cycles 0, min 0, max 0 and avg 0.00 (cyclictest writes -nan,
 * which is not JSON). */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output.h"
#include "report.h"
#include "util.h"
#include "views.h"

/* 100 ms of 1 us rows: 800 KB for the one result being written; cyclictest -h users
 * rarely ask for more, and the log-linear buckets are 0.4 ms wide there anyway. */
#define RTTESTS_ROWS_MAX 100000

struct rt_out {
	const struct report *r;
	const struct report_result **t;
	size_t n;
	int node;   /* every thread's, or -1 */
	long rows;  /* histogram rows: -1 up to the max (RTTESTS_ROWS_MAX), else exactly these */
	bool nsecs; /* cyclictest -N: values in ns, resolution_in_ns 1 (and no histogram rows) */
};

static int by_cpu(const void *a, const void *b)
{
	const struct report_result *x = *(const struct report_result *const *)a;
	const struct report_result *y = *(const struct report_result *const *)b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* A JSON string (jansson's escaping, made valid UTF-8: an argv is any bytes), "" for NULL.
 * -ENOMEM, or 0 (write errors stay in the stream's error flag, which fill() returns). */
static int put_str(FILE *f, const char *s)
{
	json_t *j = util_json_string(s ? s : "");
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;

	json_decref(j);
	if (!text)
		return -ENOMEM;
	fputs(text, f);
	free(text);
	return 0;
}

static const char *sys_str(const struct report *r, const char *obj, const char *key)
{
	json_t *o = obj ? json_object_get(r->system, obj) : r->system;

	return json_string_value(json_object_get(o, key));
}

/* util_iso8601's "2026-12-02T05:18:05.757Z" as "Wed, 02 Dec 2026 05:18:05 +0000", or "". */
static void stamp(const char *iso, char *buf, size_t len)
{
	static const char *const wday[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	int y, m, d, hh, mm, ss;
	struct tm tm = { 0 };
	time_t t;

	*buf = '\0';
	if (sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &m, &d, &hh, &mm, &ss) != 6 || m < 1 ||
	    m > 12 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60)
		return;
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	tm.tm_hour = hh;
	tm.tm_min = mm;
	tm.tm_sec = ss;
	t = timegm(&tm);
	if (t == (time_t)-1 || !gmtime_r(&t, &tm))
		return;
	snprintf(buf, len, "%s, %02d %s %04d %02d:%02d:%02d +0000", wday[tm.tm_wday], tm.tm_mday,
		 mon[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static int put_thread(FILE *f, const struct rt_out *o, size_t i)
{
	const struct report_result *res = o->t[i];
	uint64_t max_us = res->count ? res->max / 1000 : 0, total = 0, overflow = 0;
	size_t nrows = max_us + 1 < RTTESTS_ROWS_MAX ? (size_t)max_us + 1 : RTTESTS_ROWS_MAX;
	uint64_t *rows;
	bool first = true;
	int rc;

	if (o->rows >= 0)
		nrows = (size_t)o->rows; /* cyclictest -h US: its rows; none without -h */
	rows = calloc(nrows ? nrows : 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	if (res->count && (rc = histogram_text_rows(res, rows, nrows, &total, &overflow)) < 0) {
		free(rows);
		return rc;
	}
	fprintf(f, "%s    \"%zu\": {\n      \"histogram\": {", i ? ",\n" : "", i);
	for (size_t k = 0; k < nrows; k++) {
		if (!rows[k])
			continue;
		fprintf(f, "%s\n        \"%zu\": %" PRIu64, first ? "" : ",", k, rows[k]);
		first = false;
	}
	free(rows);
	fputs(first ? "}" : "\n      }", f);
	/* cyclictest -N: min, max and avg in ns, which the report knows exactly */
	uint64_t unit = o->nsecs ? 1 : 1000, max = res->count ? res->max / unit : 0;
	double avg = res->count ? (double)res->mean / (double)unit : 0.0;
	if (avg > (double)max)
		avg = (double)max;
	fprintf(f,
		",\n      \"cycles\": %" PRIu64 ",\n      \"min\": %" PRIu64
		",\n      \"max\": %" PRIu64 ",\n      \"avg\": %.2f,\n      \"cpu\": %d,\n"
		"      \"node\": %d\n    }",
		res->count, res->count ? res->min / unit : 0, max, avg, res->cpu, o->node);
	return 0;
}

static int fill(FILE *f, void *arg)
{
	const struct rt_out *o = arg;
	const struct report *r = o->r;
	char start[64], end[64], *cmdline = NULL;
	size_t len = 0;
	FILE *cm = open_memstream(&cmdline, &len);
	json_t *rt = json_object_get(r->system, "realtime");
	int rc, bad = 0;

	if (!cm)
		return -ENOMEM;
	for (int i = 0; i < r->argc; i++)
		fprintf(cm, "%s%s", i ? " " : "", r->argv[i]);
	if (fclose(cm)) {
		free(cmdline);
		return -ENOMEM;
	}
	stamp(r->start, start, sizeof(start));
	stamp(r->end, end, sizeof(end));
	fputs("{\n  \"file_version\": 1,\n  \"cmdline:\": ", f);
	bad |= put_str(f, cmdline);
	free(cmdline);
	/* The version is the report's (tool.version, any string a file
	 * held): jansson's escaping, as every string here, never printf. */
	char *version = NULL;
	if (asprintf(&version, "rtsoak %s", r->tool_version ? r->tool_version : PACKAGE_VERSION) <
	    0)
		return -ENOMEM;
	fputs(",\n  \"rt_test_version:\": ", f);
	bad |= put_str(f, version);
	free(version);
	fputs(",\n  \"start_time\": ", f);
	bad |= put_str(f, start);
	fputs(",\n  \"end_time\": ", f);
	bad |= put_str(f, end);
	fprintf(f, ",\n  \"return_code\": %d,\n  \"sysinfo\": {\n    \"sysname\": ",
		r->status == REPORT_COMPLETE ? 0 : 1);
	bad |= put_str(f, sys_str(r, "kernel", "sysname"));
	fputs(",\n    \"nodename\": ", f);
	bad |= put_str(f, sys_str(r, NULL, "hostname"));
	fputs(",\n    \"release\": ", f);
	bad |= put_str(f, sys_str(r, "kernel", "release"));
	fputs(",\n    \"version\": ", f);
	bad |= put_str(f, sys_str(r, "kernel", "version"));
	fputs(",\n    \"machine\": ", f);
	bad |= put_str(f, sys_str(r, "kernel", "machine"));
	fprintf(f,
		",\n    \"realtime\": %d\n  },\n  \"num_threads\": %zu,\n"
		"  \"resolution_in_ns\": %d,\n  \"thread\": {\n",
		json_is_integer(rt) && json_integer_value(rt) == 1 ? 1 : 0, o->n, o->nsecs ? 1 : 0);
	for (size_t i = 0; i < o->n; i++)
		if ((rc = put_thread(f, o, i)) < 0)
			return rc;
	fputs("\n  }\n}\n", f);
	if (bad)
		return -ENOMEM;
	/* the failed write's errno (ENOSPC on a full device), EIO if it left none */
	return ferror(f) ? (errno ? -errno : -EIO) : 0;
}

/* The NUMA node of every CPU when the snapshot names a single one ("0"), else -1. */
static int only_node(const struct report *r)
{
	const char *s = json_string_value(json_object_get(r->system, "numa_nodes"));
	char *end;
	long n;

	if (!s || !*s)
		return -1;
	n = strtol(s, &end, 10);
	return *end || n < 0 || n > 65535 ? -1 : (int)n;
}

int rttests_json_write(const struct report *r, const char *path)
{
	return rttests_json_write_rows(r, path, -1, false);
}

int rttests_json_write_rows(const struct report *r, const char *path, long rows, bool nsecs)
{
	struct rt_out o = {
		.r = r, .node = only_node(r), .rows = nsecs ? 0 : rows, .nsecs = nsecs
	};
	int rc;

	if (!(o.t = calloc(r->nresults ? r->nresults : 1, sizeof(*o.t))))
		return -ENOMEM;
	for (size_t i = 0; i < r->nresults; i++)
		if (!strcmp(r->results[i].probe, "timer") && !strcmp(r->results[i].phase, "all"))
			o.t[o.n++] = &r->results[i];
	if (!o.n) {
		free(o.t);
		return -ENOMSG;
	}
	qsort(o.t, o.n, sizeof(*o.t), by_cpu);
	rc = output_write_with(path, fill, &o);
	free(o.t);
	return rc;
}
