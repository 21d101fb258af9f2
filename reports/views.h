/* views: what reports/ makes of the model (src/model/report.h, compare.h).
 *
 * Every output format is a view of the model: the run report as JSON
 * (json_write.c; json_read.c is the way back, so `rtsoak report` and
 * compare work on exactly what a run wrote), the terminal summary
 * (text.c), the Prometheus textfile (prom.c), the HTML page (html.c) and
 * the cyclictest -h layout (histogram_text.c); a comparison as a table
 * (compare_text.c), as rtsoak-compare/1 JSON (compare_json.c) and as an
 * HTML page (compare_html.c).  Files are written through output.h. */
#ifndef RTSOAK_VIEWS_H
#define RTSOAK_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "compare.h"
#include "report.h"

/* The run report.  Each returns 0 or -errno. */
int report_json_write(const struct report *r, const char *path) __attribute__((warn_unused_result));
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
/* One self-contained HTML page (inline SVG plots, no external resources),
 * written atomically, or to stdout for "-". */
int report_html_write(const struct report *r, const char *path) __attribute__((warn_unused_result));
/* The histogram in cyclictest -h text layout (1 us rows, one column per CPU,
 * the "# Min/Avg/Max Latencies" trailer), for OSADL-style plotting scripts. */
int report_histogram_text_write(const struct report *r, const char *path)
    __attribute__((warn_unused_result));

/* A comparison (compare_build). */
void compare_print(const struct comparison *c, const struct compare_limit *limits, size_t nlimits,
		   FILE *out, bool color);
/* A and B overlaid (histograms, CDF), the verdict table and the system
 * differences as one self-contained HTML page; "-" for stdout. */
int compare_html_write(const struct comparison *c, const struct compare_limit *limits,
		       size_t nlimits, const char *path) __attribute__((warn_unused_result));
/* rtsoak-compare/1 (docs/compare-schema.json); NULL when out of memory. */
json_t *compare_json(const struct comparison *c, const struct compare_limit *limits,
		     size_t nlimits);

#endif
