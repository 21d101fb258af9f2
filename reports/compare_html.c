// SPDX-License-Identifier: GPL-2.0-or-later
/* compare_html: `rtsoak compare A B --html OUT`, the comparison as one
 * self-contained page: the verdicts first (did B get better or worse, by
 * how much, how sure, per judged statistic), the --fail-if limits, the two
 * files and the warnings, A and B overlaid (histogram
 * and exceedance per probe over all CPUs, and per CPU), every statistic
 * side by side, and what differs between the two systems.
 *
 * Verdicts, shifts and intervals are compare.c's, printed as they are
 * (compare_text.c prints the same numbers for the terminal and JSON); the
 * overlays draw the stored histograms of both reports. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "svg.h"
#include "attribution.h"
#include "output.h"
#include "util.h"
#include "views.h"

/* Per-CPU overlays beyond this many CPUs of a probe would make the page
 * large and unreadable; the verdict table still lists every CPU. */
#define CPU_OVERLAYS_MAX 16

/* The same words as the terminal table and the JSON (compare_text.c), as CSS
 * classes (no blank). */
static const char *const verdict_class[] = { "same",	 "better", "worse",
					     "untested", "mixed",  "noverdict" };

/* Hues of A and B in every overlay. */
#define HUE_A 215
#define HUE_B 15

struct cpage {
	FILE *f;
	const struct comparison *c;
	const struct compare_limit *limits;
	size_t nlimits;
};

static void esc(struct cpage *cp, const char *s)
{
	svg_escape(cp->f, s);
}

static bool is_latency(unsigned s)
{
	return s != COMPARE_COUNT && s != COMPARE_MISSED;
}

static void where(char *buf, size_t len, const struct compare_match *m)
{
	const char *phase = m->ab ? "B vs A" : m->a->phase; /* ab: the arms, not phase A */

	if (m->aggregate)
		snprintf(buf, len, "%s all CPUs (%s)", m->a->probe, phase);
	else
		snprintf(buf, len, "%s cpu %d (%s)", m->a->probe, m->a->cpu, phase);
}

static void match_attrs(struct cpage *cp, const struct compare_match *m)
{
	FILE *f = cp->f;

	fputs(" data-probe=\"", f);
	esc(cp, m->a->probe);
	if (m->aggregate)
		fputs("\" data-cpu=\"all", f);
	else
		fprintf(f, "\" data-cpu=\"%d", m->a->cpu);
	fputs("\" data-phase=\"", f);
	esc(cp, m->a->phase);
	fputc('"', f);
}

/* Several runs a side: the others, named, under the first. */
static void more_runs(struct cpage *cp, const char *label, const char *const *path, size_t n)
{
	if (n < 2)
		return;
	fprintf(cp->f, "<p class=\"meta\" id=\"runs-%s\">%zu runs, and", label, n);
	for (size_t i = 1; i < n; i++) {
		fputs(i > 1 ? ", <code>" : " <code>", cp->f);
		esc(cp, path[i]);
		fputs("</code>", cp->f);
	}
	fputs("</p>\n", cp->f);
}

static void side_line(struct cpage *cp, const char *label, const char *path, const struct report *r)
{
	FILE *f = cp->f;

	fprintf(f, "<p class=\"meta\" id=\"side-%s\"><b>%s</b>: <code>", label, label);
	esc(cp, path);
	fputs("</code> · ", f);
	esc(cp, r->tool_name ? r->tool_name : "rtsoak");
	fputc(' ', f);
	esc(cp, r->tool_version ? r->tool_version : "?");
	fputs(" · ", f);
	esc(cp, r->start[0] ? r->start : "start unknown");
	fprintf(f, " · %.1f s · %s", (double)r->duration_ns / 1e9, report_status_name(r->status));
	if (json_string_value(json_object_get(json_object_get(r->system, "kernel"), "release"))) {
		fputs(" · Linux ", f);
		esc(cp, json_string_value(
			    json_object_get(json_object_get(r->system, "kernel"), "release")));
	}
	fputs("</p>\n", f);
}

static void put_head(struct cpage *cp)
{
	const struct comparison *c = cp->c;
	size_t worse = 0, better = 0, tested = 0, broken = 0, nover = 0;
	FILE *f = cp->f;

	for (size_t i = 0; i < c->n; i++) {
		worse += c->m[i].verdict == COMPARE_WORSE;
		better += c->m[i].verdict == COMPARE_BETTER;
		/* mixed counts in neither: the page says mixed in its row */
		tested += c->m[i].verdict != COMPARE_UNTESTED;
		nover += c->m[i].verdict == COMPARE_NO_VERDICT;
	}
	for (size_t l = 0; l < cp->nlimits; l++)
		for (size_t i = 0; i < c->n; i++) {
			bool ok;
			if (compare_limit_broken(&cp->limits[l], &c->m[i], &ok, NULL)) {
				broken++;
				break;
			}
		}
	for (unsigned s = 0; s < 2; s++) {
		const struct report *r = s ? c->b : c->a;
		if (r->status == REPORT_DISTURBED)
			fprintf(f,
				"<p class=\"note\" id=\"status-banner-%c\">%c is a disturbed run: "
				"packets from outside rtsoak woke its probe threads (see its "
				"warnings).</p>\n",
				s ? 'b' : 'a', s ? 'B' : 'A');
		else if (r->status != REPORT_COMPLETE)
			fprintf(f,
				"<p class=\"note\" id=\"status-banner-%c\">%c is %s report (status "
				"%s): it does not cover a whole run.</p>\n",
				s ? 'b' : 'a', s ? 'B' : 'A',
				r->status == REPORT_RUNNING ? "a partial" : "an incomplete",
				report_status_name(r->status));
	}
	fprintf(f,
		"<h1 id=\"headline\" data-worse=\"%zu\" data-better=\"%zu\" data-tested=\"%zu\" "
		"data-broken=\"%zu\">",
		worse, better, tested, broken);
	if (!c->n)
		fputs("Nothing to compare: no result is in both reports", f);
	else if (!tested)
		fprintf(f, "No verdict: none of the %zu matched results could be tested", c->n);
	else if (nover)
		fprintf(f,
			"B against A: worse in %zu, better in %zu, no verdict in %zu of %zu tested "
			"results",
			worse, better, nover, tested);
	else
		fprintf(f, "B against A: worse in %zu, better in %zu of %zu tested results", worse,
			better, tested);
	if (broken)
		fprintf(f, "; %zu --fail-if limit%s broken", broken, broken == 1 ? "" : "s");
	fputs("</h1>\n", f);
}

/* Below the verdicts: the two files, the warnings and the way round the page. */
static void put_sides(struct cpage *cp)
{
	const struct comparison *c = cp->c;
	FILE *f = cp->f;

	side_line(cp, "A", c->path_a, c->a);
	more_runs(cp, "A", c->paths_a, c->nruns_a);
	side_line(cp, "B", c->path_b, c->b);
	more_runs(cp, "B", c->paths_b, c->nruns_b);
	if (c->ab) { /* one ab report: the arms by their tweaks */
		fputs("<p class=\"meta\" id=\"arms\">rtsoak ab: A the tweaked files as found; B",
		      f);
		for (size_t i = 0; i < c->ntweak_lines; i++) {
			fputs(i ? "; " : " ", f);
			esc(cp, c->tweak_lines[i]);
		}
		fputs("</p>\n", f);
	}
	if (c->nwarnings) {
		fputs("<div class=\"note\" id=\"compare-warnings\"><ul>\n", f);
		for (size_t i = 0; i < c->nwarnings; i++) {
			fputs("<li class=\"warning\">", f);
			esc(cp, c->warnings[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul></div>\n", f);
	}
	fputs(
	    "<nav><a href=\"#verdicts\">Verdicts</a><a href=\"#overlays\">Overlays</a>"
	    "<a href=\"#stats\">All statistics</a><a href=\"#differences\">What differs</a></nav>\n",
	    f);
}

static void shift_cell(struct cpage *cp, const struct compare_judgement *m)
{
	FILE *f = cp->f;

	/* the statistic's own verdict first, coloured by the cell's class */
	fprintf(f, "<td class=\"nw %s\" data-col=\"shift-%s\" data-verdict=\"%s\">",
		verdict_class[m->verdict], compare_stat_name[m->asked],
		compare_verdict_name[m->verdict]);
	if (compare_judgement_tested(m))
		fprintf(f, "%s ", compare_verdict_name[m->verdict]);
	if (!compare_judgement_tested(m))
		fputs("–", f);
	else if (m->ci)
		fprintf(f, "%+.1f µs (%+.1f … %+.1f)", m->shift_ns / 1000.0, m->lo_ns / 1000.0,
			m->hi_ns / 1000.0);
	else
		fprintf(f, "%+.1f µs (no interval)", m->shift_ns / 1000.0);
	fputs("</td>", f);
}

static void method_cell(struct cpage *cp, const struct compare_match *m)
{
	FILE *f = cp->f;
	char u[32];

	fprintf(f, "<td class=\"l\" data-col=\"method\" data-method=\"%s\">",
		compare_method_name[m->method]);
	/* one line per judged statistic: what was tested, how */
	for (size_t i = 0; i < m->nj; i++) {
		const struct compare_judgement *j = &m->j[i];
		fputs(i ? "<br>" : "", f);
		fprintf(f, "%s: ", compare_stat_name[j->stat]);
		switch (j->method) {
		case COMPARE_BY_INTERVALS:
		case COMPARE_BY_BLOCKS:
			svg_span(u, sizeof(u), j->unit_ns);
			fprintf(f, "%zu vs %zu %s of %s blocks", j->na, j->nb,
				j->method == COMPARE_BY_BLOCKS ? "per-interval quantiles"
							       : "maxima",
				u);
			if (j->p >= 0)
				fprintf(f, ", Mann-Whitney U p %.2g", j->p);
			break;
		case COMPARE_BY_ROUNDS:
			fprintf(f, "%zu vs %zu rounds, Mann-Whitney U p %.2g", j->na, j->nb, j->p);
			break;
		case COMPARE_BY_RUNS:
			fprintf(f, "%zu vs %zu runs, Mann-Whitney U p %.2g", j->na, j->nb, j->p);
			break;
		case COMPARE_BY_ORDER:
			fprintf(f, "95 %% order-statistic intervals (%zu vs %zu samples)", j->na,
				j->nb);
			break;
		default:
			fputs("not tested", f);
			break;
		}
	}
	fputs("</td>", f);
}

static void put_verdicts(struct cpage *cp)
{
	const struct comparison *c = cp->c;
	FILE *f = cp->f;

	fputs("<h2 id=\"verdicts\">Verdicts</h2>\n<p class=\"cap\">Verdict on ", f);
	esc(cp, c->opts.on_text);
	fprintf(f,
		" (each with its own test; mixed when they disagree); a significant shift below "
		"%.1f µs or %.0f %% of A is no practical difference.</p>\n",
		c->opts.min_effect_ns / 1000.0, c->opts.min_effect_pct);
	fputs("<table id=\"verdict-table\"><thead><tr><th class=\"l\">result</th>"
	      "<th class=\"l\">verdict</th><th class=\"l\">why</th>",
	      f);
	for (size_t k = 0; k < c->opts.non; k++)
		fprintf(f, "<th>%s: shift of B (95 %% CI)</th>", compare_stat_name[c->opts.on[k]]);
	fputs("<th class=\"l\">method</th><th class=\"l\">note</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < c->n; i++) {
		const struct compare_match *m = &c->m[i];
		char w[160];
		where(w, sizeof(w), m);
		fputs("<tr", f);
		match_attrs(cp, m);
		fprintf(f, " data-verdict=\"%s\"><td class=\"l\">",
			compare_verdict_name[m->verdict]);
		esc(cp, w);
		fprintf(f, "</td><td class=\"l %s\" data-col=\"verdict\">%s</td>",
			verdict_class[m->verdict], compare_verdict_name[m->verdict]);
		fputs("<td class=\"l\" data-col=\"why\">", f);
		esc(cp, m->reason);
		fputs("</td>", f);
		for (size_t k = 0; k < c->opts.non; k++) {
			const struct compare_judgement *j = NULL;
			for (size_t q = 0; q < m->nj && !j; q++)
				if (m->j[q].asked == c->opts.on[k])
					j = &m->j[q];
			if (j)
				shift_cell(cp, j);
			else
				fputs("<td>–</td>", f);
		}
		method_cell(cp, m);
		fputs("<td class=\"l\">", f);
		esc(cp, m->note);
		for (size_t q = 0; q < m->nj; q++)
			if (m->j[q].note[0]) {
				fprintf(f, "<br>%s: ", compare_stat_name[m->j[q].stat]);
				esc(cp, m->j[q].note);
			}
		for (size_t q = 0; q < m->ndrift; q++) {
			const struct compare_drift *d = &m->drift[q];
			fprintf(f,
				"<br><span class=\"warning\" data-drift=\"%c\">drift: %c rounds %s "
				"%.1f → %.1f µs, rho %.2f, p %.2g: the verdict may reflect drift, "
				"rerun with more rounds</span>",
				d->arm, d->arm, compare_stat_name[d->stat], d->first_ns / 1000.0,
				d->last_ns / 1000.0, d->rho, d->p);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n<p class=\"cap\">The shift is B − A of the unit the method "
	      "names (not of single samples, which are autocorrelated); negative is better. "
	      "Rows are matched by probe, CPU and phase.</p>\n",
	      f);
	if (c->nonly_a || c->nonly_b) {
		fputs(
		    "<details id=\"unmatched\"><summary>Results in only one report</summary><ul>\n",
		    f);
		for (size_t i = 0; i < c->nonly_a; i++) {
			fputs("<li>only in A: ", f);
			esc(cp, c->only_a[i]);
			fputs("</li>\n", f);
		}
		for (size_t i = 0; i < c->nonly_b; i++) {
			fputs("<li>only in B: ", f);
			esc(cp, c->only_b[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul></details>\n", f);
	}
}

static void put_limits(struct cpage *cp)
{
	const struct comparison *c = cp->c;
	FILE *f = cp->f;

	if (!cp->nlimits)
		return;
	fputs("<h2 id=\"limits\">--fail-if</h2>\n<table id=\"limit-table\"><thead><tr>"
	      "<th class=\"l\">limit</th><th class=\"l\">result</th><th class=\"l\">broken by</th>"
	      "<th>not checked</th><th>no evidence</th></tr></thead><tbody>\n",
	      f);
	for (size_t l = 0; l < cp->nlimits; l++) {
		const struct compare_limit *lim = &cp->limits[l];
		size_t broken = 0, unchecked = 0, no_evidence = 0;
		for (size_t i = 0; i < c->n; i++) {
			bool ok, ev;
			broken += compare_limit_broken(lim, &c->m[i], &ok, &ev);
			unchecked += !ok;
			no_evidence += ok && !ev;
		}
		fputs("<tr data-limit=\"", f);
		esc(cp, lim->text);
		fprintf(f, "\" data-broken=\"%zu\"><td class=\"l\"><code>", broken);
		esc(cp, lim->text);
		fprintf(f, "</code>%s</td><td class=\"l %s\">%s</td><td class=\"l\">",
			lim->raw ? " (raw)" : "", broken ? "worse" : "better",
			broken ? "BROKEN" : "holds");
		for (size_t i = 0, k = 0; i < c->n; i++) {
			bool ok;
			const struct compare_value *v = &c->m[i].v[lim->stat];
			char w[160];
			const struct compare_judgement *j = compare_judged(&c->m[i], lim->stat);
			if (!compare_limit_broken(lim, &c->m[i], &ok, NULL))
				continue;
			where(w, sizeof(w), &c->m[i]);
			fputs(k++ ? "<br>" : "", f);
			esc(cp, w);
			if (!lim->raw && j)
				fprintf(f, ": shift %+.1f µs, 95 %% CI %+.1f … %+.1f",
					j->shift_ns / 1000.0, j->lo_ns / 1000.0, j->hi_ns / 1000.0);
			else if (lim->relative)
				fprintf(f, ": %+.1f %%", v->change_pct);
			else if (is_latency(lim->stat))
				fprintf(f, ": %+.1f µs", ((double)v->b - (double)v->a) / 1000.0);
			else
				fprintf(f, ": %+.0f", (double)v->b - (double)v->a);
		}
		fprintf(f, "</td><td>%zu</td><td>%zu</td></tr>\n", unchecked, no_evidence);
	}
	fputs("</tbody></table>\n", f);
}

/* A and B of one match, overlaid: histogram and exceedance. */
static void put_overlay(struct cpage *cp, const struct compare_match *m)
{
	char w[160], label[200], attrs[512], la[160], lb[160];
	struct svg_series s[2] = {
		{ m->a, "A", la, HUE_A, false, true },
		{ m->b, "B", lb, HUE_B, false, false },
	};
	FILE *f = cp->f;

	snprintf(la, sizeof(la), "A (%s)", cp->c->path_a);
	snprintf(lb, sizeof(lb), "B (%s)", cp->c->path_b);
	where(w, sizeof(w), m);
	fputs("<h3>", f);
	esc(cp, w);
	fputs("</h3>\n", f);
	if (!svg_drawable(m->a) && !svg_drawable(m->b)) {
		fputs("<p class=\"muted\">No histogram on either side: nothing to overlay.</p>\n",
		      f);
		return;
	}
	for (unsigned k = 0; k < 2; k++) {
		char cpu[16];
		if (m->aggregate)
			snprintf(cpu, sizeof(cpu), "all");
		else
			snprintf(cpu, sizeof(cpu), "%d", m->a->cpu);
		attrs[0] = '\0';
		svg_attr(attrs, sizeof(attrs), "data-plot",
			 k ? "compare-exceedance" : "compare-histogram");
		svg_attr(attrs, sizeof(attrs), "data-probe", m->a->probe);
		svg_attr(attrs, sizeof(attrs), "data-cpu", cpu);
		svg_attr(attrs, sizeof(attrs), "data-phase", m->a->phase);
		snprintf(label, sizeof(label), "%s: %s of A and B", w,
			 k ? "exceedance" : "histogram");
		fputs("<figure>", f);
		if (k)
			svg_exceedance(f, attrs, label, s, 2, true);
		else
			svg_histogram(f, attrs, label, s, 2);
		svg_legend(f, s, 2);
		fprintf(f, "<figcaption>%s</figcaption></figure>\n",
			k ? "Fraction of samples at or above each latency (log scales); dots are "
			    "the stored percentiles and the max. Right of A is worse."
			  : "Samples per stored histogram bucket (log scales). A dashed, B solid.");
	}
}

static void put_overlays(struct cpage *cp)
{
	const struct comparison *c = cp->c;
	FILE *f = cp->f;

	fputs("<h2 id=\"overlays\">A and B overlaid</h2>\n", f);
	/* All CPUs first (one per probe and phase), then each CPU. */
	for (size_t i = 0; i < c->n; i++)
		if (c->m[i].aggregate)
			put_overlay(cp, &c->m[i]);
	for (size_t i = 0; i < c->n; i++) {
		const struct compare_match *m = &c->m[i];
		size_t ncpu = 0, first = SIZE_MAX;
		if (m->aggregate)
			continue;
		/* Once per (probe, phase): how many CPUs it has. */
		for (size_t k = 0; k < c->n; k++)
			if (!c->m[k].aggregate && !strcmp(c->m[k].a->probe, m->a->probe) &&
			    !strcmp(c->m[k].a->phase, m->a->phase)) {
				ncpu++;
				first = first == SIZE_MAX ? k : first;
			}
		if (first != i)
			continue;
		fputs("<details class=\"per-cpu\"><summary>", f);
		esc(cp, m->a->probe);
		fputs(" (", f);
		esc(cp, m->a->phase);
		fprintf(f, ") per CPU (%zu)</summary>\n", ncpu);
		if (ncpu > CPU_OVERLAYS_MAX) {
			fprintf(f,
				"<p class=\"muted\">%zu CPUs: per-CPU overlays are left out (more "
				"than %d); the verdict table and the statistics below list every "
				"CPU.</p>\n",
				ncpu, CPU_OVERLAYS_MAX);
		} else {
			for (size_t k = i; k < c->n; k++)
				if (!c->m[k].aggregate && !strcmp(c->m[k].a->probe, m->a->probe) &&
				    !strcmp(c->m[k].a->phase, m->a->phase))
					put_overlay(cp, &c->m[k]);
		}
		fputs("</details>\n", f);
	}
}

static void stat_cell(struct cpage *cp, bool known, unsigned s, uint64_t v)
{
	if (!known)
		fputs("<td>?</td>", cp->f);
	else if (is_latency(s))
		fprintf(cp->f, "<td>%.1f</td>", (double)v / 1000.0);
	else
		fprintf(cp->f, "<td>%llu</td>", (unsigned long long)v);
}

static void put_stats(struct cpage *cp)
{
	const struct comparison *c = cp->c;
	FILE *f = cp->f;

	fputs("<h2 id=\"stats\">All statistics</h2>\n<details><summary>A, B and the change for "
	      "every matched result (latencies in µs)</summary>\n",
	      f);
	for (size_t i = 0; i < c->n; i++) {
		const struct compare_match *m = &c->m[i];
		char w[160];
		where(w, sizeof(w), m);
		fputs("<table class=\"stats\"", f);
		match_attrs(cp, m);
		fputs("><thead><tr><th class=\"l\">", f);
		esc(cp, w);
		fputs("</th><th>A</th><th>B</th><th>change</th></tr></thead><tbody>\n", f);
		for (unsigned s = 0; s < COMPARE_NSTATS; s++) {
			const struct compare_value *v = &m->v[s];
			fprintf(f, "<tr data-stat=\"%s\"><th class=\"l\">%s</th>",
				compare_stat_name[s], compare_stat_name[s]);
			stat_cell(cp, v->known, s, v->a);
			stat_cell(cp, v->known, s, v->b);
			if (v->known && v->a && isfinite(v->change_pct))
				fprintf(f, "<td>%+.1f %%</td>", v->change_pct);
			else
				fprintf(f, "<td>%s</td>", v->known && v->b ? "new" : "");
			fputs("</tr>\n", f);
		}
		fputs("</tbody></table>\n", f);
	}
	fputs("</details>\n", f);
}

static void put_value(struct cpage *cp, json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

	fputs("<td class=\"l mono\">", cp->f);
	if (json_is_string(v))
		esc(cp, json_string_value(v));
	else
		esc(cp, s ? s : "?");
	fputs("</td>", cp->f);
	free(s);
}

static void put_differences(struct cpage *cp)
{
	json_t *d;
	size_t i, n = json_array_size(cp->c->differences);
	FILE *f = cp->f;

	fprintf(f, "<h2 id=\"differences\">What differs (%zu)</h2>\n", n);
	if (!n) {
		fputs("<p class=\"muted\">Nothing in the system snapshots or configurations.</p>\n",
		      f);
		return;
	}
	fputs("<table id=\"difference-table\"><thead><tr><th class=\"l\">what</th>"
	      "<th class=\"l\">A</th><th class=\"l\">B</th></tr></thead><tbody>\n",
	      f);
	json_array_foreach (cp->c->differences, i, d) {
		fputs("<tr><td class=\"l\"><code>", f);
		esc(cp, json_string_value(json_object_get(d, "what")));
		fputs("</code></td>", f);
		put_value(cp, json_object_get(d, "a"));
		put_value(cp, json_object_get(d, "b"));
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* How the causes of the spikes shifted, for the matches where a side was
 * traced (rtsoak run --trace): every cause with its share of the excess
 * latency in A and in B, the shifts (more than ATTRIBUTION_SHIFT_POINTS,
 * or appeared / disappeared) marked.  Nothing on pages without attribution. */
static void put_causes(struct cpage *cp)
{
	const struct comparison *c = cp->c;
	FILE *f = cp->f;
	bool any = false;
	char w[300], label[1100];

	for (size_t i = 0; i < c->n && !any; i++)
		any = c->m[i].traced_a || c->m[i].traced_b;
	if (!any)
		return;
	fprintf(f,
		"<h2 id=\"causes\">How the causes shifted</h2>\n<p class=\"cap\">Each cause's "
		"share of the excess latency (above the spike threshold) in A and B, from the "
		"runs' attribution (--trace); marked: moved by more than %.0f points, or "
		"appeared or disappeared.</p>\n<table id=\"causes-table\"><thead><tr>"
		"<th class=\"l\">result</th><th class=\"l\">cause</th><th>A</th><th>B</th>"
		"<th>spikes A</th><th>spikes B</th></tr></thead><tbody>\n",
		ATTRIBUTION_SHIFT_POINTS);
	for (size_t i = 0; i < c->n; i++) {
		const struct compare_match *m = &c->m[i];
		if (!m->traced_a && !m->traced_b)
			continue;
		where(w, sizeof(w), m);
		if (!m->ncauses || !m->traced_a || !m->traced_b) {
			fputs("<tr><td class=\"l\">", f);
			esc(cp, w);
			fprintf(f, "</td><td class=\"l muted\" colspan=\"5\">%s</td></tr>\n",
				!m->traced_a   ? "only B was traced"
				: !m->traced_b ? "only A was traced"
					       : "no attributed spike in either");
			if (m->traced_a && m->traced_b)
				continue;
		}
		for (size_t k = 0; m->traced_a && m->traced_b && k < m->ncauses; k++) {
			const struct compare_cause *cc = &m->causes[k];
			fputs("<tr data-cause=\"", f);
			esc(cp, cc->cause);
			fprintf(f, "\" data-shifted=\"%s\"><td class=\"l\">",
				cc->shifted ? "1" : "0");
			esc(cp, w);
			fprintf(f, "</td><td class=\"l%s\">", cc->shifted ? " worse" : "");
			esc(cp, attribution_label(cc->cause, label, sizeof(label)));
			fprintf(f,
				"</td><td>%.1f %%</td><td>%.1f %%</td><td>%" PRIu64
				"</td><td>%" PRIu64 "</td></tr>\n",
				100 * cc->share_a, 100 * cc->share_b, cc->spikes_a, cc->spikes_b);
		}
	}
	fputs("</tbody></table>\n", f);
}

/* How bad a status is, to colour a change as the verdicts are: pass < info < unknown < warn <
 * fail (unknown above info: a check that cannot be read may hide a fault). */
static int check_rank(const char *st)
{
	static const char *const rank[] = { "pass", "info", "unknown", "warn", "fail" };

	for (int i = 0; st && i < 5; i++)
		if (!strcmp(st, rank[i]))
			return i;
	return 2;
}

static void check_cell(struct cpage *cp, const char *cls, const char *status, const char *obs)
{
	FILE *f = cp->f;

	fprintf(f, "<td class=\"l%s%s\">", cls ? " " : "", cls ? cls : "");
	if (!status) {
		fputs("<span class=\"muted\">not in this report</span></td>", f);
		return;
	}
	esc(cp, status);
	fputs("</td><td class=\"l\">", f);
	esc(cp, obs ? obs : "");
	fputs("</td>", f);
}

/* The tuning checks whose status changed (compare_checks.c), A and B side by side. */
static void put_checks(struct cpage *cp)
{
	const struct comparison *c = cp->c;
	FILE *f = cp->f;

	if (c->ab || !c->checks_compared)
		return;
	fputs("<h2 id=\"checks\">Tuning checks</h2>\n", f);
	if (!c->nchecks) {
		fputs("<p class=\"cap\" id=\"checks-count\" data-changed=\"0\">No check changed "
		      "status between A and B.</p>\n",
		      f);
		return;
	}
	fprintf(f,
		"<p class=\"cap\" id=\"checks-count\" data-changed=\"%zu\">%zu check%s changed "
		"status between A and B.</p>\n<table id=\"check-table\"><thead><tr>"
		"<th class=\"l\">check</th><th class=\"l\">A</th><th class=\"l\">observed in A</th>"
		"<th class=\"l\">B</th><th class=\"l\">observed in B</th></tr></thead><tbody>\n",
		c->nchecks, c->nchecks, c->nchecks == 1 ? "" : "s");
	for (size_t i = 0; i < c->nchecks; i++) {
		const struct compare_check *k = &c->checks[i];
		int ra = check_rank(k->status_a), rb = check_rank(k->status_b);
		const char *cls = !k->status_a || !k->status_b ? NULL
				  : rb > ra		       ? "worse"
				  : rb < ra		       ? "better"
							       : NULL;
		fputs("<tr data-check=\"", f);
		esc(cp, k->id ? k->id : "");
		fputs("\"><td class=\"l\"><code>", f);
		esc(cp, k->id ? k->id : "");
		fputs("</code></td>", f);
		check_cell(cp, NULL, k->status_a, k->observed_a);
		if (!k->status_a)
			fputs("<td></td>", f);
		check_cell(cp, cls, k->status_b, k->observed_b);
		if (!k->status_b)
			fputs("<td></td>", f);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static int fill(FILE *f, void *arg)
{
	struct cpage *cp = arg;
	char title[200];

	cp->f = f;
	snprintf(title, sizeof(title), "rtsoak compare: %s vs %s", cp->c->path_a, cp->c->path_b);
	svg_page_begin(f, title);
	put_head(cp);
	put_verdicts(cp);
	put_limits(cp);
	put_checks(cp);
	put_sides(cp);
	put_causes(cp);
	put_overlays(cp);
	put_stats(cp);
	put_differences(cp);
	svg_page_end(f);
	return 0;
}

int compare_html_write(const struct comparison *c, const struct compare_limit *limits,
		       size_t nlimits, const char *path)
{
	struct cpage cp = { NULL, c, limits, nlimits };

	return output_write_with(path, fill, &cp);
}
