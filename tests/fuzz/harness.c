// SPDX-License-Identifier: GPL-2.0-or-later
/* harness: the private directory, the input file and the views that the
 * libFuzzer harnesses share (harness.h). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "compare.h"
#include "harness.h"
#include "views.h"

static char dir[4096];
static FILE *devnull;

static void harness_cleanup(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	/* Only what this process made: the directory is ours (mkdtemp). */
	while (d && (e = readdir(d))) {
		char p[sizeof(dir) + 256];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void harness_setup(void)
{
	const char *tmp = getenv("TMPDIR");

	if (dir[0])
		return;
	snprintf(dir, sizeof(dir), "%s/rtsoak-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("harness: mkdtemp");
		abort();
	}
	atexit(harness_cleanup);
	devnull = fopen("/dev/null", "w");
	if (!devnull) {
		perror("harness: /dev/null");
		abort();
	}
}

const char *harness_path(const char *name)
{
	static char paths[16][sizeof(dir) + 64];
	static const char *names[16];
	unsigned i;

	harness_setup();
	for (i = 0; i < 16 && names[i]; i++)
		if (!strcmp(names[i], name))
			return paths[i];
	if (i == 16)
		abort();
	names[i] = name;
	snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, name);
	return paths[i];
}

const char *harness_input(const uint8_t *data, size_t size)
{
	const char *path = harness_path("input.json");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd)) {
		perror("harness: writing the input");
		abort();
	}
	return path;
}

/* A view may refuse a model (-ENODATA: no histogram); anything else but
 * success is a write error in our own directory, which is not expected. */
static void harness_check_write(const char *view, int rc)
{
	if (rc < 0 && rc != -ENODATA) {
		fprintf(stderr, "harness: %s: %s\n", view, strerror(-rc));
		abort();
	}
}

static void harness_compare(const struct report *r)
{
	struct compare_limit limit;
	struct comparison c;
	char err[256];
	json_t *j;

	if (compare_limit_parse("p99>+10%", false, &limit, err, sizeof(err)))
		abort();
	memset(&c, 0, sizeof(c));
	if (compare_build(&c, r, "a.json", r, "b.json", NULL) < 0) {
		compare_free(&c);
		return; /* ENOMEM */
	}
	compare_print(&c, &limit, 1, devnull, true, false);
	j = compare_json(&c, &limit, 1);
	json_decref(j);
	harness_check_write("compare --html",
			    compare_html_write(&c, &limit, 1, harness_path("compare.html")));
	compare_free(&c);
}

/* What the reader must have refused (issue 12, item 10), for rtsoak's own
 * reports; a cyclictest file is taken as cyclictest wrote it. */
static void harness_check_results(const struct report_result *v, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		const struct report_result *res = &v[i];
		bool bad = false;

		if (!res->count)
			continue;
		if (res->min > res->max) {
			fprintf(stderr, "harness: %s[%zu]: accepted min_ns %ju > max_ns %ju\n",
				what, i, (uintmax_t)res->min, (uintmax_t)res->max);
			bad = true;
		}
		for (unsigned k = 1; k < REPORT_NPCT && !(res->unknown & REPORT_UNKNOWN_PCT); k++)
			if (res->pct[k] < res->pct[k - 1]) {
				fprintf(stderr, "harness: %s[%zu]: accepted %s %ju < %s %ju\n",
					what, i, report_pct_key[k], (uintmax_t)res->pct[k],
					report_pct_key[k - 1], (uintmax_t)res->pct[k - 1]);
				bad = true;
			}
		if (bad)
			abort();
	}
}

static void harness_check_model(const struct report *r)
{
	if (r->tool_name)
		return;
	harness_check_results(r->results, r->nresults, "results");
	harness_check_results(r->aggregates, r->naggregates, "aggregates");
	for (size_t i = 0; i < r->nseries; i++)
		if (r->series[i].cpu < 0) {
			fprintf(stderr, "harness: series[%zu]: accepted cpu %d\n", i,
				r->series[i].cpu);
			abort();
		}
}

void harness_views(const struct report *r)
{
	json_t *an;

	harness_check_model(r);
	report_text_print(r, devnull, false);
	report_text_print(r, devnull, true);
	harness_check_write("--html", report_html_write(r, harness_path("out.html")));
	harness_check_write("--histogram-text",
			    report_histogram_text_write(r, harness_path("out.hist")));
	an = analysis_build(r);
	json_decref(an);
	harness_compare(r);
	if (r->tool_name)
		return; /* the CLI takes --json and --prom for rtsoak reports only */
	harness_check_write("--prom", report_prom_write(r, harness_path("out.prom")));
	harness_check_write("--json", report_json_write(r, harness_path("out.json")));

	/* What rtsoak writes, rtsoak must read. */
	struct report back;
	char err[512];

	if (report_json_read(harness_path("out.json"), &back, err, sizeof(err))) {
		fprintf(stderr, "harness: the report written again does not read back: %s\n", err);
		abort();
	}
	report_free(&back);
}
