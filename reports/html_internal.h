/* SPDX-License-Identifier: GPL-2.0-or-later */
/* html_internal: what the files of the HTML report page share, inside
 * reports/ only (the page's one entry point, report_html_write, is in
 * views.h).
 *
 * html.c builds the page top down and owns the helpers below; the time
 * series figure (html_series.c) and the folded-away details
 * (html_details.c) are sections of their own, each written into the same
 * struct html_page. */
#ifndef RTSOAK_HTML_INTERNAL_H
#define RTSOAK_HTML_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "report.h"

/* The page being written. */
struct html_page {
	FILE *f;
	const struct report *r;
	const char **probes; /* result names in report order */
	size_t nprobes;
	const char **phases; /* phase names in first-seen order, "all" left out */
	size_t nphases;
	int rc; /* first error (-ENOMEM) */
	/* More than REPORT_MANY_CPUS measured CPUs (ncpus): the page has the
	 * per-CPU overview (html_heatmap.c) and its plots draw, per probe, the
	 * nworst[p] worst CPUs worst[p][] (report_worst_cpus, phase "all"). */
	bool many;
	size_t ncpus;
	const struct report_result *(*worst)[REPORT_WORST_CPUS];
	size_t *nworst;
};

/* The overview's colour steps and its most time columns (html_heatmap.c). */
#define HTML_HEATMAP_LEVELS 8
#define HTML_HEATMAP_COLUMNS 120

/* A CPU as a data-cpu/data-series key ("0", "all") and for people ("CPU 0",
 * "all CPUs"). */
void html_cpu_key(char *buf, size_t len, int cpu);
void html_cpu_name(char *buf, size_t len, int cpu);
/* Result i of the per-CPU results followed by the aggregates. */
const struct report_result *html_result_at(const struct report *r, size_t i);
/* Is s one of the n strings of v? */
bool html_listed(const char **v, size_t n, const char *s);
/* A string from a path of object keys ("kernel", "release"; b may be NULL),
 * or NULL. */
const char *html_jstr(json_t *o, const char *a, const char *b);
/* Is this CPU's line in the plots of probe?  Every CPU's, unless many. */
bool html_drawn(const struct html_page *pg, const char *probe, int cpu);
/* A phase's hue, the same in the bands over time and in the per-phase plot. */
int html_phase_hue(const struct html_page *pg, const char *name);

/* Text into the page: a string escaped (svg_escape), a latency for people
 * (svg_latency), any JSON value from the model (objects as key/value
 * tables, arrays of scalars inline, null as "unreadable"). */
void html_esc(struct html_page *pg, const char *s);
void html_lat(struct html_page *pg, uint64_t ns);
void html_json(struct html_page *pg, json_t *v, int depth);

/* The attributes of a plot's <svg>: data-plot and data-probe. */
void html_plot_attrs(char *buf, size_t len, const char *plot, const char *probe);

/* "Over time": each probe's maxima per interval, spikes, recurring spikes
 * and phase bands (html_series.c).  Returns 0 or -ENOMEM. */
int html_series_put(struct html_page *pg);
/* "Why was it late": per probe a causes bar per CPU and the worst spikes
 * with their split, verdict and contributors, from the attribution section
 * (html_why.c); nothing without one.  html_why_css: its stylesheet rules,
 * on pages that have the section. */
void html_why_put(struct html_page *pg);
extern const char html_why_css[];
/* "Tuning checks": the report's checks that did not pass as a table, and a count line with the
 * passes (html_checks.c); nothing for a report without checks.  html_checks_css: its rules, on
 * pages that have the section. */
void html_checks_put(struct html_page *pg);
extern const char html_checks_css[];
/* "On spike": the report's on_spike section (run --on-spike CMD): the
 * command (escaped), its counts, the skipped spikes by reason, the first
 * failure (html_onspike.c); nothing without one.  html_onspike_css: its
 * rules, on pages that have it. */
void html_onspike_put(struct html_page *pg);
extern const char html_onspike_css[];
/* "Per-CPU overview" on pages of more than REPORT_MANY_CPUS CPUs, per probe:
 * the worst CPUs, a CPU x statistic (max, p99.9, missed) heat map and a CPU x
 * time heat map of interval maxima (html_heatmap.c); nothing otherwise.
 * html_heatmap_css: its rules, on pages that have it.  0 or -ENOMEM. */
int html_heatmap_put(struct html_page *pg);
extern const char html_heatmap_css[];
/* "Details": warnings, system snapshot, loads, phases, tweaks, probe
 * counters, ab rounds and the run configuration, folded (html_details.c). */
void html_details_put(struct html_page *pg);

#endif
