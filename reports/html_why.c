// SPDX-License-Identifier: GPL-2.0-or-later
/* html_why: "Why was it late", the attribution section of a traced run
 * (rtsoak run --trace) on the report page.
 *
 * Per probe, a plot with one horizontal stacked bar per CPU: each cause's
 * share of the excess latency (latency above the spike threshold, summed
 * over the spikes it dominated), as the report stores it.  A cause keeps
 * its colour in every row; the colour says its kind (tasks blue, softirqs
 * orange, IRQs red, vectors violet, NMIs pink, idle exits green, silent
 * gaps grey), the lightness tells causes of one kind apart.  Then the worst
 * spikes: when, how late, the split (IRQ latency, thread latency, return to
 * user) as a strip in proportion to the latency, the timeline (what held
 * the CPU when, from the deadline at the left to the wake-up at the right,
 * coloured by kind; the hatched gaps are the probe's own time), the verdict
 * and what ran.
 *
 * The plot states its scale like every other (data-x-scale: share 0..1
 * over the plot area; data-y-scale: rows), and each segment carries its
 * cause and share (data-cause, data-share), for tests/html_check.py. */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribution.h"
#include "html_internal.h"
#include "report.h"
#include "svg.h"

#define WHY_ROW 30		   /* pixels per CPU row */
#define WHY_BAR 20		   /* bar height */
#define WHY_TOP 10		   /* worst spikes shown per probe */
#define WHY_RIGHT (SVG_RIGHT - 56) /* bars end here: "123/456" right of them */

const char html_why_css[] =
    ".cz{fill:hsl(var(--h),var(--cs),var(--cl));stroke:var(--bg);stroke-width:1}\n"
    ".sw.cz{height:.8em;border:0;background:hsl(var(--h),var(--cs),var(--cl))}\n"
    ".split{display:inline-flex;width:9em;height:.7em;vertical-align:middle;"
    "background:repeating-linear-gradient(45deg,var(--grid) 0 3px,transparent 3px 6px);"
    "border:1px solid var(--frame)}.split i{display:block;height:100%}\n"
    ".split .irq{background:hsl(45,90%,50%)}.split .thr{background:hsl(185,60%,38%)}"
    ".split .usr{background:hsl(300,35%,55%)}\n"
    "td.why{text-align:left;max-width:28em}\n"
    ".tl{position:relative;display:inline-block;width:14em;height:.9em;vertical-align:middle;"
    "background:repeating-linear-gradient(45deg,var(--grid) 0 3px,transparent 3px 6px);"
    "border:1px solid var(--frame)}\n"
    ".tl i{position:absolute;top:0;bottom:0;min-width:1px;"
    "background:hsl(var(--h),var(--cs),var(--cl))}\n";

/* A string of the section, "" where it has none: json_read.c checked
 * every file's, but a run's own section is not read back first. */
static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key)) ?: "";
}

/* The entries of probe over the whole run. */
static bool whole_run_of(json_t *s, const char *probe)
{
	return !strcmp(str(s, "probe"), probe) && !strcmp(str(s, "phase"), "all");
}

/* Hue and saturation of a cause kind (the part of its key before ':'):
 * its class, 0 .. WHY_KINDS - 1 (the last: a kind this build does not know). */
#define WHY_KINDS 9
static unsigned kind_colour(const char *cause, int *hue, int *sat)
{
	static const struct {
		const char *kind;
		int hue, sat;
	} k[WHY_KINDS - 1] = { { "task", 215, 65 },	 { "softirq", 30, 85 }, { "irq", 0, 70 },
			       { "vector", 275, 55 },	 { "nmi", 325, 70 },	{ "idle", 125, 50 },
			       { "idle_exit", 125, 50 }, { "silent", 0, 0 } };
	char kind[32];

	attribution_kind(cause, kind, sizeof(kind));
	for (unsigned i = 0; i < WHY_KINDS - 1; i++)
		if (!strcmp(k[i].kind, kind)) {
			*hue = k[i].hue;
			*sat = k[i].sat;
			return i;
		}
	*hue = 55;
	*sat = 30;
	return WHY_KINDS - 1;
}

/* The distinct causes of one probe's rows, first seen first, each with its
 * colour: lightness steps per cause of the same kind. */
struct why_cause {
	const char *cause;
	int hue, sat, light;
};

struct why_causes {
	struct why_cause *v;
	size_t n;
	json_t *ix; /* cause -> its index in v: O(1) per segment */
};

static void colour_attrs(struct html_page *pg, const struct why_cause *c)
{
	fprintf(pg->f, " style=\"--h:%d;--cs:%d%%;--cl:%d%%\"", c->hue, c->sat, c->light);
}

static const struct why_cause *cause_of(const struct why_causes *wc, const char *cause)
{
	json_t *k = json_object_get(wc->ix, cause);

	return k ? &wc->v[json_integer_value(k)] : NULL;
}

static void causes_free(struct why_causes *wc)
{
	free(wc->v);
	json_decref(wc->ix);
}

static int collect_causes(const struct report *r, const char *probe, struct why_causes *wc)
{
	unsigned per_kind[WHY_KINDS] = { 0 };
	json_t *s, *c;
	size_t i, k, cap = 0;

	memset(wc, 0, sizeof(*wc));
	if (!(wc->ix = json_object()))
		return -ENOMEM;
	json_array_foreach (json_object_get(r->attribution, "series"), i, s) {
		if (!whole_run_of(s, probe))
			continue;
		json_array_foreach (json_object_get(s, "causes"), k, c) {
			const char *key = str(c, "cause");
			if (json_object_get(wc->ix, key))
				continue;
			if (wc->n == cap) {
				struct why_cause *m =
				    realloc(wc->v, (cap = cap * 2 + 8) * sizeof(*wc->v));
				if (!m)
					return -ENOMEM;
				wc->v = m;
			}
			if (json_object_set_new(wc->ix, key, json_integer((json_int_t)wc->n)))
				return -ENOMEM;
			struct why_cause *w = &wc->v[wc->n++];
			unsigned cls = kind_colour(key, &w->hue, &w->sat);
			w->cause = key;
			w->light = 42 + (int)(per_kind[cls]++ % 4) * 12; /* 42, 54, 66, 78 % */
		}
	}
	return 0;
}

/* Where the timer IRQ came in for a cause's spikes (irq_at, with
 * --trace-stacks): "; timer IRQ in rtsoak_irqoff_hold 55, __slab_free 2,
 * 1 in other functions"; nothing when the report names none. */
static void put_irq_at(struct html_page *pg, json_t *c)
{
	json_int_t other = json_integer_value(json_object_get(c, "irq_at_other"));
	json_t *e;
	size_t i;

	json_array_foreach (json_object_get(c, "irq_at"), i, e) {
		fputs(i ? ", " : "; timer IRQ in ", pg->f);
		html_esc(pg, str(e, "function"));
		fprintf(pg->f, " %" JSON_INTEGER_FORMAT,
			json_integer_value(json_object_get(e, "spikes")));
	}
	if (other > 0)
		fprintf(pg->f, "%s%" JSON_INTEGER_FORMAT " in other functions",
			i ? ", " : "; timer IRQ in ", other);
}

static void put_bar_row(struct html_page *pg, const struct svg_axis *x, json_t *s, double y,
			const struct why_causes *wc)
{
	FILE *f = pg->f;
	json_t *c;
	size_t k;
	double at = 0;
	char key[16], name[24];
	int cpu = (int)json_integer_value(json_object_get(s, "cpu"));

	html_cpu_key(key, sizeof(key), cpu);
	html_cpu_name(name, sizeof(name), cpu);
	fprintf(f, "<text x=\"%d\" y=\"", SVG_LEFT - 6);
	svg_num(f, y + WHY_BAR * 0.7);
	fprintf(f, "\" text-anchor=\"end\">%s</text>\n", name);
	json_array_foreach (json_object_get(s, "causes"), k, c) {
		const char *cause = str(c, "cause");
		const struct why_cause *w = cause_of(wc, cause);
		double share = json_number_value(json_object_get(c, "share"));
		double x0 = svg_px(x, at), x1 = svg_px(x, at + share);
		char label[1100], ex[32];
		at += share;
		fprintf(f, "<path class=\"cz\" data-series=\"%s\" data-cause=\"", key);
		html_esc(pg, cause);
		fprintf(f, "\" data-share=\"%.4f\"", share);
		if (w)
			colour_attrs(pg, w);
		/* absolute corners, as every plot's paths (tests/html_check.py) */
		const double cx[4] = { x0, x1, x1, x0 }, cy[4] = { y, y, y + WHY_BAR, y + WHY_BAR };
		fputs(" d=\"M", f);
		for (unsigned j = 0; j < 4; j++) {
			if (j)
				fputc(' ', f);
			svg_num(f, cx[j]);
			fputc(' ', f);
			svg_num(f, cy[j]);
		}
		svg_latency(ex, sizeof(ex),
			    (uint64_t)json_integer_value(json_object_get(c, "excess_ns")));
		fputs("Z\"><title>", f);
		html_esc(pg, attribution_label(cause, label, sizeof(label)));
		fprintf(f, ": %.1f %% of the excess latency (%s), %" JSON_INTEGER_FORMAT " spikes",
			100 * share, ex, json_integer_value(json_object_get(c, "spikes")));
		put_irq_at(pg, c);
		fputs("</title></path>\n", f);
	}
	fprintf(f, "<text class=\"tk\" x=\"%d\" y=\"", WHY_RIGHT + 6);
	svg_num(f, y + WHY_BAR * 0.7);
	fprintf(f, "\">%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT "</text>\n",
		json_integer_value(json_object_get(s, "attributed")),
		json_integer_value(json_object_get(s, "spikes")));
}

/* " (FIFO 99, pid 812)": a task's policy, priority and pid, as contributors
 * and run queues name it. */
static void put_task_of(struct html_page *pg, json_t *c)
{
	json_t *pid = json_object_get(c, "pid"), *prio = json_object_get(c, "priority");
	const char *pol = json_string_value(json_object_get(c, "policy"));

	fputs(" (", pg->f);
	if (pol) {
		html_esc(pg, pol);
		fputc(' ', pg->f);
	}
	if (json_is_integer(prio))
		fprintf(pg->f, "%" JSON_INTEGER_FORMAT ", ", json_integer_value(prio));
	if (json_is_integer(pid))
		fprintf(pg->f, "pid %" JSON_INTEGER_FORMAT, json_integer_value(pid));
	fputc(')', pg->f);
}

/* What ran instead of the probe: "rtsoak-spike/0 (FIFO 99, pid 812) 2.98 ms". */
static void put_contributors(struct html_page *pg, json_t *t)
{
	json_t *c;
	size_t i;
	char ns[32];

	json_array_foreach (json_object_get(t, "contributors"), i, c) {
		const char *kind = str(c, "kind"), *name = str(c, "name");
		json_t *id = json_object_get(c, "id");

		if (i)
			fputs("; ", pg->f);
		if (strcmp(kind, "task")) {
			html_esc(pg, kind);
			if (*name)
				fputc(' ', pg->f);
		}
		html_esc(pg, name);
		if (!strcmp(kind, "task"))
			put_task_of(pg, c);
		else if (json_is_integer(id))
			fprintf(pg->f, " (%" JSON_INTEGER_FORMAT ")", json_integer_value(id));
		svg_latency(ns, sizeof(ns), (uint64_t)json_integer_value(json_object_get(c, "ns")));
		fprintf(pg->f, " %s", ns);
	}
	if (!i)
		fputs("<span class=\"muted\">–</span>", pg->f);
}

/* One CPU's run queue at the deadline: "CPU 1: a (FIFO 50, pid 9) running,
 * b (OTHER 0, pid 12)"; an object with "runnable" (and "known", for the
 * other CPUs: not known is said, never shown as an empty queue). */
static void put_runq(struct html_page *pg, int cpu, json_t *o)
{
	json_t *k, *known = json_object_get(o, "known");
	size_t i;

	fprintf(pg->f, "<span class=\"runq\" data-cpu=\"%d\">CPU %d: ", cpu, cpu);
	if (known && !json_is_true(known)) {
		fputs("<span class=\"muted\">not known</span></span>", pg->f);
		return;
	}
	json_array_foreach (json_object_get(o, "runnable"), i, k) {
		if (i)
			fputs(", ", pg->f);
		html_esc(pg, str(k, "name"));
		put_task_of(pg, k);
		if (json_is_true(json_object_get(k, "running")))
			fputs(" running", pg->f);
	}
	if (!i)
		fputs("<span class=\"muted\">none seen</span>", pg->f);
	if (json_is_true(json_object_get(o, "runnable_truncated")))
		fputs(", …", pg->f);
	fputs("</span>", pg->f);
}

/* The run queues at the spike's deadline: its own CPU's, then every other
 * measured CPU's (top[].runnable, top[].cpus); "–" in reports without. */
static void put_runqs(struct html_page *pg, json_t *t, int cpu)
{
	json_t *c;
	size_t i;

	if (!json_is_array(json_object_get(t, "runnable"))) {
		fputs("<span class=\"muted\">–</span>", pg->f);
		return;
	}
	put_runq(pg, cpu, t);
	json_array_foreach (json_object_get(t, "cpus"), i, c) {
		fputs("<br>", pg->f);
		put_runq(pg, (int)json_integer_value(json_object_get(c, "cpu")), c);
	}
	if (json_is_true(json_object_get(t, "cpus_truncated")))
		fputs("<br>…", pg->f);
}

/* The split as a strip in proportion to the latency; unknown parts (null)
 * leave the hatched background showing. */
static void put_split(struct html_page *pg, json_t *t)
{
	static const char *const part[][3] = { { "irq_ns", "irq", "IRQ latency" },
					       { "thread_ns", "thr", "thread latency" },
					       { "user_ns", "usr", "return to user" } };
	double lat = (double)json_integer_value(json_object_get(t, "latency_ns"));
	FILE *f = pg->f;
	char buf[32];

	fputs("<span class=\"split\" title=\"", f);
	for (unsigned i = 0; i < 3; i++) {
		json_t *v = json_object_get(t, part[i][0]);
		if (json_is_integer(v))
			svg_latency(buf, sizeof(buf), (uint64_t)json_integer_value(v));
		else
			snprintf(buf, sizeof(buf), "unknown");
		fprintf(f, "%s%s %s", i ? ", " : "", part[i][2], buf);
	}
	fputs("\">", f);
	for (unsigned i = 0; i < 3; i++) {
		json_t *v = json_object_get(t, part[i][0]);
		if (!json_is_integer(v) || !(lat > 0))
			continue;
		double w = 100.0 * (double)json_integer_value(v) / lat;
		fprintf(f,
			"<i class=\"%s\" data-ns=\"%" JSON_INTEGER_FORMAT
			"\" style=\"width:%.1f%%\"></i>",
			part[i][1], json_integer_value(v), w > 100 ? 100 : w);
	}
	fputs("</span>", f);
}

/* The timeline strip: each segment positioned in time, coloured by its
 * contributor's kind, lightness by its rank among the contributors. */
static void put_timeline(struct html_page *pg, json_t *t)
{
	json_t *tl = json_object_get(t, "timeline"), *g;
	json_t *cs = json_object_get(t, "contributors");
	double lat = (double)json_integer_value(json_object_get(t, "latency_ns"));
	FILE *f = pg->f;
	size_t i;

	if (!json_is_array(tl) || !(lat > 0)) {
		fputs("<span class=\"muted\">–</span>", f);
		return;
	}
	fprintf(f, "<span class=\"tl\" data-latency-ns=\"%" JSON_INTEGER_FORMAT "\">",
		json_integer_value(json_object_get(t, "latency_ns")));
	json_array_foreach (tl, i, g) {
		json_int_t off = json_integer_value(json_array_get(g, 0));
		json_int_t ns = json_integer_value(json_array_get(g, 1));
		json_t *ix = json_array_get(g, 2);
		json_t *c =
		    json_is_integer(ix) ? json_array_get(cs, (size_t)json_integer_value(ix)) : NULL;
		const char *kind = c ? str(c, "kind") : "other";
		char key[300], a[32], d[32];
		int hue, sat;

		snprintf(key, sizeof(key), "%s:%s", kind, c ? str(c, "name") : "");
		kind_colour(key, &hue, &sat);
		fprintf(f,
			"<i data-off-ns=\"%" JSON_INTEGER_FORMAT
			"\" data-ns=\"%" JSON_INTEGER_FORMAT "\" data-kind=\"",
			off, ns);
		html_esc(pg, kind);
		fprintf(f,
			"\" style=\"left:%.2f%%;width:%.2f%%;--h:%d;--cs:%d%%;--cl:%d%%\" title=\"",
			100.0 * (double)off / lat, 100.0 * (double)ns / lat, hue, sat,
			42 + (int)(json_is_integer(ix) ? json_integer_value(ix) % 4 : 3) * 12);
		svg_latency(a, sizeof(a), (uint64_t)off);
		svg_latency(d, sizeof(d), (uint64_t)ns);
		fprintf(f, "+%s for %s: ", a, d);
		html_esc(pg, kind);
		if (c && *str(c, "name")) {
			fputc(' ', f);
			html_esc(pg, str(c, "name"));
		}
		fputs("\"></i>", f);
	}
	fputs("</span>", f);
	if (json_is_true(json_object_get(t, "timeline_truncated")))
		fputs(" <span class=\"muted\" title=\"more stretches than kept\">…</span>", f);
}

struct why_top {
	json_t *t;
	int cpu;
};

static int top_cmp(const void *x, const void *y)
{
	const struct why_top *a = x, *b = y;
	json_int_t la = json_integer_value(json_object_get(a->t, "latency_ns"));
	json_int_t lb = json_integer_value(json_object_get(b->t, "latency_ns"));

	if (la != lb)
		return la < lb ? 1 : -1;
	return (a->cpu > b->cpu) - (a->cpu < b->cpu);
}

static void put_top(struct html_page *pg, const char *probe)
{
	json_t *s, *t;
	size_t i, k, n = 0, cap = 0;
	struct why_top *v = NULL;
	FILE *f = pg->f;

	json_array_foreach (json_object_get(pg->r->attribution, "series"), i, s) {
		if (!whole_run_of(s, probe))
			continue;
		json_array_foreach (json_object_get(s, "top"), k, t) {
			if (n == cap) {
				struct why_top *m = realloc(v, (cap = cap * 2 + 16) * sizeof(*v));
				if (!m) {
					free(v);
					pg->rc = -ENOMEM;
					return;
				}
				v = m;
			}
			v[n++] =
			    (struct why_top){ t,
					      (int)json_integer_value(json_object_get(s, "cpu")) };
		}
	}
	if (!n) {
		free(v);
		return;
	}
	qsort(v, n, sizeof(*v), top_cmp);
	fputs("<table class=\"why-top\" data-probe=\"", f);
	html_esc(pg, probe);
	fputs("\"><thead><tr><th>at</th><th class=\"l\">CPU</th><th>latency</th>"
	      "<th class=\"l\">split: IRQ · thread · user</th>"
	      "<th class=\"l\">timeline: deadline → wake-up</th><th class=\"l\">verdict</th>"
	      "<th class=\"l\">contributors</th>"
	      "<th class=\"l\">run queues at the deadline</th></tr></thead><tbody>\n",
	      f);
	for (size_t j = 0; j < n && j < WHY_TOP; j++) {
		char at[32];
		t = v[j].t;
		svg_runtime(at, sizeof(at),
			    (uint64_t)json_integer_value(json_object_get(t, "t_ns")));
		fprintf(f,
			"<tr data-cpu=\"%d\" data-t-ns=\"%" JSON_INTEGER_FORMAT
			"\"><td class=\"nw\">%s</td>"
			"<td class=\"l\">%d</td><td>",
			v[j].cpu, json_integer_value(json_object_get(t, "t_ns")), at, v[j].cpu);
		html_lat(pg, (uint64_t)json_integer_value(json_object_get(t, "latency_ns")));
		fputs("</td><td class=\"l nw\">", f);
		put_split(pg, t);
		fputs("</td><td class=\"l nw\">", f);
		put_timeline(pg, t);
		fputs("</td><td class=\"why\">", f);
		html_esc(pg, str(t, "verdict"));
		fputs("</td><td class=\"why\">", f);
		put_contributors(pg, t);
		fputs("</td><td class=\"why\">", f);
		put_runqs(pg, t, v[j].cpu);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	free(v);
}

static void put_probe(struct html_page *pg, const char *probe)
{
	const struct report *r = pg->r;
	struct why_causes wc;
	size_t rows = 0, i;
	json_t *s;
	FILE *f = pg->f;
	char attrs[512], label[200], key[1100];

	if (collect_causes(r, probe, &wc)) {
		causes_free(&wc);
		pg->rc = -ENOMEM;
		return;
	}
	json_array_foreach (json_object_get(r->attribution, "series"), i, s)
		rows += whole_run_of(s, probe);
	if (!rows) {
		causes_free(&wc);
		return;
	}
	fputs("<h3>", f);
	html_esc(pg, probe);
	fputs("</h3>\n", f);
	if (wc.n) {
		int h = WHY_TOP + (int)rows * WHY_ROW + 8;
		struct svg_axis x = { false, 0, 1, SVG_LEFT, WHY_RIGHT, SVG_TICKS_FRACTION };
		html_plot_attrs(attrs, sizeof(attrs), "causes", probe);
		snprintf(label, sizeof(label), "%s: causes of the excess latency per CPU", probe);
		fprintf(f,
			"<figure><svg%s viewBox=\"0 0 %d %d\" width=\"100%%\" role=\"img\" "
			"data-x-scale=\"lin 0 1 %d %d\" data-y-scale=\"lin 0 %zu %d %zu\" "
			"aria-label=\"",
			attrs, SVG_W, h, SVG_LEFT, WHY_RIGHT, rows, WHY_TOP,
			WHY_TOP + rows * WHY_ROW);
		html_esc(pg, label);
		fputs("\">\n", f);
		size_t row = 0;
		json_array_foreach (json_object_get(r->attribution, "series"), i, s) {
			if (!whole_run_of(s, probe))
				continue;
			put_bar_row(pg, &x, s, WHY_TOP + (double)row++ * WHY_ROW, &wc);
		}
		fputs("</svg><div class=\"legend\">", f);
		for (size_t k = 0; k < wc.n; k++) {
			fputs("<span class=\"key\"><i class=\"sw cz\"", f);
			colour_attrs(pg, &wc.v[k]);
			fputs("></i>", f);
			html_esc(pg, attribution_label(wc.v[k].cause, key, sizeof(key)));
			fputs("</span> ", f);
		}
		fputs("</div><figcaption>", f);
		html_esc(pg, probe);
		fputs(": each bar is one CPU's excess latency (above the spike threshold) split by "
		      "the cause that dominated each spike; right: spikes attributed / logged. "
		      "Hover a segment for its share.</figcaption></figure>\n",
		      f);
	} else {
		fputs("<p class=\"muted\">", f);
		html_esc(pg, probe);
		fputs(": no spike was attributed.</p>\n", f);
	}
	causes_free(&wc);
	put_top(pg, probe);
}

void html_why_put(struct html_page *pg)
{
	if (!pg->r->attribution)
		return;
	fputs("<h2 id=\"why\">Why was it late</h2>\n<p class=\"cap\">From the kernel's events "
	      "around each logged spike (<code>--trace</code>): what the CPU did between the "
	      "deadline and the wake-up. A spike whose events were lost is not attributed, "
	      "never guessed.</p>\n",
	      pg->f);
	for (size_t p = 0; p < pg->nprobes; p++)
		put_probe(pg, pg->probes[p]);
}
