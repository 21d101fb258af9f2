/* SPDX-License-Identifier: GPL-2.0-or-later */
/* views: what reports/ makes of the model (src/model/report.h, compare.h).
 *
 * Every output format is a view of the model: the run report as JSON
 * (json_write.c; json_read.c is the way back, so `rtsoak report` and
 * compare work on exactly what a run wrote), the terminal summary
 * (text.c), the Prometheus textfile (prom.c), the HTML page (html.c) and
 * the cyclictest -h layout (histogram_text.c), the rt-tests --json shape
 * (rttests_json.c) and LAVA result lines (lava.c); a comparison as a table
 * (compare_text.c), as rtsoak-compare/2 JSON (compare_json.c) and as an
 * HTML page (compare_html.c); many reports as the fleet overview in the
 * terminal (fleet_text.c), as a page (fleet_html.c) and as rtsoak-fleet/1
 * JSON (fleet_json.c).  Files are written through output.h. */
#ifndef RTSOAK_VIEWS_H
#define RTSOAK_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "compare.h"
#include "fleet.h"
#include "report.h"

/* The run report.  Each returns 0 or -errno. */
int report_json_write(const struct report *r, const char *path) __attribute__((warn_unused_result));
/* The report as a new 0600 file DIR/PREFIX<random>.json (util_write_new), `path` its name: a
 * run's fallback when its --output cannot be written. */
int report_json_write_new(const struct report *r, const char *dir, const char *prefix, char *path,
			  size_t len) __attribute__((warn_unused_result));
/* Write ROOT, indented, with a final newline, atomically (output.h), and drop the reference
 * (NULL: -ENOMEM, the builder failed).  0 or -errno. */
int json_document_write(json_t *root, const char *path) __attribute__((warn_unused_result));
/* The terminal summary's number formats: microseconds (one decimal below 100 ms, whole below
 * 10 s, then an exponent) and durations ("0.5 s" below a minute, H:MM:SS from one). */
void text_fmt_us(char *buf, size_t len, uint64_t ns);
void text_fmt_duration(char *buf, size_t len, uint64_t ns);
/* Prometheus text format 0.0.4 for node_exporter's textfile collector, written atomically (or
 * to stdout for "-") so that a scrape never sees half a file. */
int report_prom_write(const struct report *r, const char *path) __attribute__((warn_unused_result));
/* Read a report written by report_json_write (or a cyclictest --json file,
 * cyclictest.h).  On error returns -EINVAL (or -errno) with a one-line
 * reason in err. */
int report_json_read(const char *path, struct report *r, char *err, size_t errlen)
    __attribute__((warn_unused_result));
/* The terminal summary, aligned for 80 columns; ANSI colour when color. */
void report_text_print(const struct report *r, FILE *out, bool color);
/* Its per-CPU rows: every CPU, the worst REPORT_WORST_CPUS of each probe and phase, or
 * (AUTO, what report_text_print does) the worst above REPORT_MANY_CPUS measured CPUs. */
enum text_cpus { TEXT_CPUS_AUTO, TEXT_CPUS_ALL, TEXT_CPUS_WORST };
void report_text_print_cpus(const struct report *r, FILE *out, bool color, enum text_cpus cpus);
/* The tuning checks (the report's `checks`, or rtsoak check's): a line per check that did not
 * pass, cut to width columns (0: whole, with the expected value and the fix), and the counts. */
void report_checks_print(json_t *checks, FILE *out, size_t width, bool color);
/* One self-contained HTML page (inline SVG plots, no external resources),
 * written atomically, or to stdout for "-". */
int report_html_write(const struct report *r, const char *path) __attribute__((warn_unused_result));
/* The histogram in cyclictest -h text layout (1 us rows, one column per CPU,
 * the "# Min/Avg/Max Latencies" trailer), for OSADL-style plotting scripts. */
int report_histogram_text_write(const struct report *r, const char *path)
    __attribute__((warn_unused_result));
/* The same with rows 0 to rows-1 us whatever the max (cyclictest -h US: its US rows), or as
 * above for 0.  Samples beyond are the "# Histogram Overflows". */
int report_histogram_text_write_rows(const struct report *r, const char *path, size_t rows)
    __attribute__((warn_unused_result));
/* cyclictest -q's final lines, one per timer result of phase "all" in CPU order:
 * "T: 0 (PID) P:80 I:1000 C:   1000 Min:      3 Act:    5 Avg:    4 Max:     20" in
 * cyclictest's widths (cyclictest_text.c says what each field holds here); nsecs: -N's, in ns. */
void cyclictest_text_print(const struct report *r, FILE *out, int pid, int priority,
			   long interval_us, bool nsecs);
/* The 1 us rows of one result's histogram as histogram_text lays them out (its header comment
 * says how samples are placed): rows[0..nrows) are added to, *total gets what went into them,
 * *overflow what lay beyond.  0 or -ENOMEM. */
int histogram_text_rows(const struct report_result *res, uint64_t *rows, size_t nrows,
			uint64_t *total, uint64_t *overflow) __attribute__((warn_unused_result));
/* The timer probe's results (phase "all", a thread per CPU) in the rt-tests 2.x --json shape
 * that cyclictest --json writes (rttests_json.c says what each key holds).  -ENOMSG: the
 * report has no timer results; else 0 or -errno. */
int rttests_json_write(const struct report *r, const char *path)
    __attribute__((warn_unused_result));
/* The same with the histogram rows cyclictest -h US writes: 0 to rows-1 us (0: an empty
 * histogram, as cyclictest without -h), or up to the max for -1; nsecs: cyclictest -N's file
 * (values in ns, resolution_in_ns 1, an empty histogram). */
int rttests_json_write_rows(const struct report *r, const char *path, long rows, bool nsecs)
    __attribute__((warn_unused_result));
/* One result line per (probe, CPU, statistic) of phase "all" in the result.txt convention of
 * Linaro's test-definitions ("timer-cpu0-max-latency pass 23.456 us"; lava.c).  0 or -errno. */
int lava_write(const struct report *r, const char *path) __attribute__((warn_unused_result));

/* A comparison (compare_build): the verdicts first; brief: only them, the
 * drift warnings and the --fail-if results. */
void compare_print(const struct comparison *c, const struct compare_limit *limits, size_t nlimits,
		   FILE *out, bool color, bool brief);
/* A and B overlaid (histograms, CDF), the verdict table and the system
 * differences as one self-contained HTML page; "-" for stdout. */
int compare_html_write(const struct comparison *c, const struct compare_limit *limits,
		       size_t nlimits, const char *path) __attribute__((warn_unused_result));
/* rtsoak-compare/2 (docs/compare-schema.json); NULL when out of memory. */
json_t *compare_json(const struct comparison *c, const struct compare_limit *limits,
		     size_t nlimits);

/* The fleet (src/model/fleet.h), rows in their order (fleet_sort first):
 * a header, one aligned row per report and a line with the counts; ANSI
 * bold header when color. */
void fleet_text_print(const struct fleet *f, FILE *out, bool color);
/* One self-contained page: the table, each report linked to its own page
 * (fleet_row.href), and heat maps of max and p99.9 per host and CPU; "-"
 * for stdout.  0 or -errno. */
int fleet_html_write(const struct fleet *f, const char *path) __attribute__((warn_unused_result));
/* rtsoak-fleet/1 (docs/fleet-schema.json); NULL when out of memory. */
json_t *fleet_json(const struct fleet *f);
/* The same written to path ("-": stdout).  0 or -errno. */
int fleet_json_write(const struct fleet *f, const char *path) __attribute__((warn_unused_result));

#endif
