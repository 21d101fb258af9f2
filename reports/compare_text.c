// SPDX-License-Identifier: GPL-2.0-or-later
/* compare_text: the comparison on the terminal (compare_print; its
 * rtsoak-compare/2 JSON is compare_json.c).  Latencies in microseconds, as
 * in the run summary; changes in percent of A.
 *
 * The answer comes first: the verdict table (one row per match: overall
 * verdict, method, why), drift warnings and the --fail-if results; then,
 * unless --brief, every match's statistics and what differs.
 * The terminal text keeps to 80 columns: the statistics table is 46 wide
 * with 12-column cells (exact counts up to 10^12, 60 s as "60000000.0" us),
 * the verdict table sizes its columns to its content, and the lines of
 * prose (why, verdict, method, note) wrap with a deeper indent rather than
 * run on; a statistic's verdict line breaks only between its parts
 * ("stat: verdict", ", shift +X us", " (lo .. hi)"), so that grep still
 * finds statistic, verdict and shift on one line.  Colour only when asked: the
 * verdict green (better) or red (worse), a broken --fail-if red, warnings
 * yellow after their plain "warning: " prefix. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attribution.h"
#include "compare.h"
#include "util.h"
#include "views.h"

#define TEXT_COLS 80
#define CELL_W 12

#define SGR_BOLD "1"
#define SGR_DIM "2"
#define SGR_RED "31"
#define SGR_GREEN "32"
#define SGR_YELLOW "33"

static bool is_latency(unsigned s)
{
	return s != COMPARE_COUNT && s != COMPARE_MISSED;
}

static void sgr(FILE *out, bool color, const char *code)
{
	if (color && code)
		fprintf(out, "\033[%sm", code);
}

static void sgr_off(FILE *out, bool color, const char *code)
{
	if (color && code)
		fputs("\033[0m", out);
}

static const char *verdict_color(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_BETTER:
		return SGR_GREEN;
	case COMPARE_WORSE:
		return SGR_RED;
	case COMPARE_UNTESTED:
	case COMPARE_NO_VERDICT:
		return SGR_DIM;
	case COMPARE_MIXED:
		return SGR_YELLOW;
	default:
		return NULL;
	}
}

/* A line filled part by part: a part that would pass TEXT_COLS starts a
 * continuation line at `indent` instead (its leading blank dropped).  Parts
 * are never split, and the column counts visible characters only. */
struct wrap {
	FILE *out;
	bool color;
	int col, indent;
};

static void wrap_part(struct wrap *w, const char *text, const char *code)
{
	int len = (int)strlen(text);

	/* a part too long for any line goes where it is: breaking would only
	 * leave a short line behind */
	if (w->col > w->indent && w->col + len > TEXT_COLS && w->indent + len <= TEXT_COLS) {
		fprintf(w->out, "\n%*s", w->indent, "");
		w->col = w->indent;
		while (*text == ' ') {
			text++;
			len--;
		}
	}
	sgr(w->out, w->color, code);
	fputs(text, w->out);
	sgr_off(w->out, w->color, code);
	w->col += len;
}

/* Prose: one part per clause (up to and with ", ", ": " or "; "), so that a line
 * breaks where a reader pauses and a phrase stays whole for grep. */
static void wrap_clauses_sgr(struct wrap *w, const char *text, const char *code)
{
	char part[256];

	while (*text) {
		const char *a = strstr(text, ", "), *b = strstr(text, ": "),
			   *c = strstr(text, "; ");
		const char *end;
		if (!a || (b && b < a))
			a = b;
		if (!a || (c && c < a))
			a = c;
		end = a ? a + 1 : text + strlen(text);
		snprintf(part, sizeof(part), "%.*s", (int)(end - text), text);
		wrap_part(w, part, code);
		text = end;
	}
}

static void wrap_clauses(struct wrap *w, const char *text)
{
	wrap_clauses_sgr(w, text, NULL);
}

static void wrap_end(struct wrap *w)
{
	fputc('\n', w->out);
	w->col = 0;
}

/* util_escape() into a new string (NULL for NULL or out of memory). */
static char *esc_dup(const char *s)
{
	char *buf = s ? malloc(4 * strlen(s) + 1) : NULL;

	return buf ? util_escape(s, buf, 4 * strlen(s) + 1) : NULL;
}

static void side(FILE *out, bool color, const char *label, const char *path, const struct report *r)
{
	sgr(out, color, SGR_BOLD);
	fprintf(out, "%s:", label);
	sgr_off(out, color, SGR_BOLD);
	fputc(' ', out);
	util_fputs_escaped(path, out);
	fputs("  ", out);
	util_fputs_escaped(r->tool_name ? r->tool_name : "rtsoak", out);
	fputc(' ', out);
	util_fputs_escaped(r->tool_version ? r->tool_version : "?", out);
	fputs(", ", out);
	util_fputs_escaped(r->start[0] ? r->start : "start unknown", out);
	fprintf(out, ", %.1f s, %s\n", (double)r->duration_ns / 1e9, report_status_name(r->status));
}

/* Several runs a side: the others on one line under the first, cut to 80
 * columns (the JSON lists them all). */
static void more_runs(FILE *out, const char *const *path, size_t n)
{
	char line[512], esc[4 * 64 + 1];
	size_t o;

	if (n < 2)
		return;
	o = (size_t)snprintf(line, sizeof(line), "   %zu runs, and", n);
	for (size_t i = 1; i < n && o < sizeof(line); i++) {
		util_escape(path[i], esc, sizeof(esc));
		int w = snprintf(line + o, sizeof(line) - o, " %s%s", esc, i + 1 < n ? "," : "");
		o += w > 0 ? (size_t)w : 0;
	}
	if (strlen(line) > 80)
		memcpy(line + 76, " ...", 5);
	fprintf(out, "%s\n", line);
}

static void cell(FILE *out, bool known, unsigned s, uint64_t v)
{
	if (!known)
		fprintf(out, " %*s", CELL_W, "?");
	else if (is_latency(s))
		fprintf(out, " %*.1f", CELL_W, (double)v / 1000.0);
	else
		fprintf(out, " %*llu", CELL_W, (unsigned long long)v);
}

/* The shift alone ("+50.0 us") and its interval (" (+37.9 .. +62.1)"), the
 * two parts a verdict line may break between. */
static void shift_parts(char *sh, size_t shlen, char *ci, size_t cilen,
			const struct compare_judgement *m)
{
	ci[0] = '\0';
	if (!compare_judgement_tested(m)) {
		snprintf(sh, shlen, "-");
		return;
	}
	snprintf(sh, shlen, "%+.1f us", m->shift_ns / 1000.0);
	if (m->ci)
		snprintf(ci, cilen, " (%+.1f .. %+.1f)", m->lo_ns / 1000.0, m->hi_ns / 1000.0);
	else
		snprintf(ci, cilen, " (no interval)");
}

/* How the verdict was reached, as a head and a parenthesis: the line breaks
 * between the two if it must. */
static void method_text(char *head, size_t hlen, char *paren, size_t plen,
			const struct compare_judgement *m)
{
	paren[0] = '\0';
	switch (m->method) {
	case COMPARE_BY_INTERVALS:
	case COMPARE_BY_BLOCKS:
		snprintf(head, hlen, "by %zu vs %zu %s of %.3g s", m->na, m->nb,
			 m->method == COMPARE_BY_BLOCKS ? "blocks' per-interval quantiles"
							: "maxima",
			 (double)m->unit_ns / 1e9);
		if (m->p >= 0)
			snprintf(paren, plen,
				 " (Mann-Whitney U p %.2g, Hodges-Lehmann 95 %% CI; blocks' IQR "
				 "%.1f us)",
				 m->p, m->spread_ns / 1000.0);
		break;
	case COMPARE_BY_ROUNDS:
		snprintf(head, hlen, "by %zu vs %zu rounds' %s", m->na, m->nb,
			 compare_stat_name[m->stat]);
		snprintf(paren, plen, " (Mann-Whitney U p %.2g, Hodges-Lehmann 95 %% CI)", m->p);
		break;
	case COMPARE_BY_RUNS:
		snprintf(head, hlen, "by %zu vs %zu runs' %s", m->na, m->nb,
			 compare_stat_name[m->stat]);
		snprintf(paren, plen, " (Mann-Whitney U p %.2g, Hodges-Lehmann 95 %% CI)", m->p);
		break;
	case COMPARE_BY_ORDER:
		snprintf(head, hlen, "by 95 %% order-statistic intervals of %s",
			 compare_stat_name[m->stat]);
		snprintf(paren, plen, " (%zu vs %zu samples)", m->na, m->nb);
		break;
	default:
		snprintf(head, hlen, "not tested");
		break;
	}
}

/* At most 9 columns: one decimal while it fits, then fewer digits (a count
 * of 2000 against 10^11 is +4999999900 %). */
static void change_text(char *buf, size_t len, double pct)
{
	if (fabs(pct) < 9999.95)
		snprintf(buf, len, "%+.1f%%", pct);
	else if (fabs(pct) < 9999999.5)
		snprintf(buf, len, "%+.0f%%", pct);
	else
		snprintf(buf, len, "%+.1e%%", pct);
}

/* How the causes of the spikes shifted (both runs traced): "  causes: silent
 * 62% -> 3%, rtsoak-spike/0 (FIFO 99) 0% -> 80%", the causes whose share of
 * the excess latency moved by more than ATTRIBUTION_SHIFT_POINTS or that
 * appeared or disappeared. */
static void causes_print(struct wrap *wr, const struct compare_match *m)
{
	char part[4500], label[1100], esc[1100 * 4];
	bool any = false;

	if (!m->traced_a && !m->traced_b)
		return;
	wrap_part(wr, "  causes: ", NULL);
	if (!m->traced_a || !m->traced_b) {
		wrap_part(wr, m->traced_a ? "only A was traced" : "only B was traced", NULL);
		wrap_end(wr);
		return;
	}
	for (size_t i = 0; i < m->ncauses; i++) {
		const struct compare_cause *c = &m->causes[i];
		if (!c->shifted)
			continue;
		util_escape(attribution_label(c->cause, label, sizeof(label)), esc, sizeof(esc));
		if (any)
			wrap_part(wr, ",", NULL); /* the comma stays at the end of a line */
		snprintf(part, sizeof(part), "%s%s %.0f%% -> %.0f%%", any ? " " : "", esc,
			 100 * c->share_a, 100 * c->share_b);
		wrap_part(wr, part, NULL);
		any = true;
	}
	if (!any) {
		snprintf(part, sizeof(part), "no share moved by more than %.0f points",
			 ATTRIBUTION_SHIFT_POINTS);
		wrap_part(wr, part, NULL);
	}
	wrap_end(wr);
}

/* One judged statistic: "  max: worse, shift +50.0 us (+37.9 .. +62.1)",
 * then how (and a note) on lines of their own. */
static void judgement_print(struct wrap *wr, const struct compare_judgement *j)
{
	char sh[64], ci[96], how[96], paren[96], part[160];

	shift_parts(sh, sizeof(sh), ci, sizeof(ci), j);
	method_text(how, sizeof(how), paren, sizeof(paren), j);
	wr->indent = 6;
	if (j->asked != j->stat)
		snprintf(part, sizeof(part), "  %s (for %s): ", compare_stat_name[j->stat],
			 compare_stat_name[j->asked]);
	else
		snprintf(part, sizeof(part), "  %s: ", compare_stat_name[j->stat]);
	wrap_part(wr, part, NULL);
	wrap_part(wr, compare_verdict_name[j->verdict], verdict_color(j->verdict));
	if (compare_judgement_tested(j)) {
		snprintf(part, sizeof(part), ", shift %s", sh);
		wrap_part(wr, part, NULL);
		wrap_part(wr, ci, NULL);
	}
	wrap_end(wr);
	if (j->method != COMPARE_BY_NOTHING) {
		snprintf(part, sizeof(part), "    %s", how);
		wrap_part(wr, part, NULL);
		wrap_part(wr, paren, NULL);
		wrap_end(wr);
	}
	if (j->note[0]) {
		wrap_part(wr, "    note: ", NULL);
		wrap_clauses(wr, j->note);
		wrap_end(wr);
	}
}

/* The reason beside its verdict: a no verdict's reason starts with the words
 * of the verdict itself ("no verdict: ..."), printed once. */
static const char *reason_after_verdict(const struct compare_match *m)
{
	const char *v = compare_verdict_name[m->verdict];
	size_t l = strlen(v);

	if (!strncmp(m->reason, v, l) && !strncmp(m->reason + l, ": ", 2))
		return m->reason + l + 2;
	return m->reason;
}

static void match_print(FILE *out, bool color, const struct compare_match *m)
{
	char w[96], part[160], pct[32];
	struct wrap wr = { out, color, 0, 4 };

	compare_where(w, sizeof(w), m);
	fputc('\n', out);
	snprintf(part, sizeof(part), "%s: ", w);
	wrap_part(&wr, part, NULL);
	wrap_part(&wr, compare_verdict_name[m->verdict], verdict_color(m->verdict));
	wrap_part(&wr, ": ", NULL);
	wrap_clauses(&wr, reason_after_verdict(m));
	wrap_end(&wr);
	for (size_t i = 0; i < m->nj; i++)
		judgement_print(&wr, &m->j[i]);
	wr.indent = 4;
	if (m->note[0] && m->method != COMPARE_BY_NOTHING) {
		wrap_part(&wr, "  note: ", NULL);
		wrap_clauses(&wr, m->note);
		wrap_end(&wr);
	}
	causes_print(&wr, m);
	fprintf(out, "  %-8s %*s %*s %9s\n", "", CELL_W, "A", CELL_W, "B", "change");
	for (unsigned s = 0; s < COMPARE_NSTATS; s++) {
		const struct compare_value *v = &m->v[s];
		fprintf(out, "  %-8s", compare_stat_name[s]);
		cell(out, v->known, s, v->a);
		cell(out, v->known, s, v->b);
		if (v->known && v->a) {
			change_text(pct, sizeof(pct), v->change_pct);
			fprintf(out, " %9s", pct);
		} else if (v->known && v->b) {
			fprintf(out, " %9s", "new");
		}
		fputc('\n', out);
	}
}

static void limits_print(FILE *out, bool color, const struct comparison *c,
			 const struct compare_limit *l, size_t nl)
{
	for (size_t i = 0; i < nl; i++) {
		unsigned broken = 0, unchecked = 0, no_evidence = 0;
		const char *opt = l[i].raw ? "--fail-if-raw" : "--fail-if";
		for (size_t k = 0; k < c->n; k++) {
			bool ok, ev;
			char w[96];
			if (!compare_limit_broken(&l[i], &c->m[k], &ok, &ev)) {
				unchecked += !ok;
				no_evidence += ok && !ev;
				continue;
			}
			const struct compare_value *v = &c->m[k].v[l[i].stat];
			const struct compare_judgement *j = compare_judged(&c->m[k], l[i].stat);
			compare_where(w, sizeof(w), &c->m[k]);
			if (!broken++) {
				fprintf(out, "\n%s %s: ", opt, l[i].text);
				sgr(out, color, SGR_BOLD ";" SGR_RED);
				fputs("BROKEN", out);
				sgr_off(out, color, SGR_RED);
				fputc('\n', out);
			}
			if (!l[i].raw && j)
				fprintf(out,
					"  %s: shift %+.1f us, 95 %% CI %+.1f .. %+.1f beyond it\n",
					w, j->shift_ns / 1000.0, j->lo_ns / 1000.0,
					j->hi_ns / 1000.0);
			else if (l[i].relative)
				fprintf(out, "  %s: %+.1f %%\n", w, v->change_pct);
			else if (is_latency(l[i].stat))
				fprintf(out, "  %s: %+.1f us\n", w,
					((double)v->b - (double)v->a) / 1000.0);
			else
				fprintf(out, "  %s: %+.0f\n", w, (double)v->b - (double)v->a);
		}
		if (!broken) {
			fprintf(out, "\n%s %s: ", opt, l[i].text);
			sgr(out, color, SGR_GREEN);
			fprintf(out, "holds for all %zu matched results", c->n - unchecked);
			sgr_off(out, color, SGR_GREEN);
		}
		if (unchecked)
			fprintf(out, "%s(%u without %s on both sides not checked)",
				broken ? "  " : " ", unchecked, compare_stat_name[l[i].stat]);
		if (no_evidence)
			fprintf(out,
				"%s(%u without a test of %s: no evidence either way; "
				"--fail-if-raw compares the plain values)",
				broken || unchecked ? "  " : " ", no_evidence,
				compare_stat_name[l[i].stat]);
		if (unchecked || no_evidence || !broken)
			fputc('\n', out);
	}
}

/* "  what: a -> b" when it fits 80 columns, else A and B on lines of their
 * own (a kernel command line does not fit beside another), cut with "...". */
static void difference_print(FILE *out, const char *what, const char *a, const char *b)
{
	const int room = TEXT_COLS - 7; /* "    A: " */

	if (2 + strlen(what) + 2 + strlen(a) + 4 + strlen(b) <= TEXT_COLS) {
		fprintf(out, "  %s: %s -> %s\n", what, a, b);
		return;
	}
	fprintf(out, "  %s:\n", what);
	fprintf(out, "    A: %.*s%s\n", (int)strlen(a) > room ? room - 3 : room, a,
		(int)strlen(a) > room ? "..." : "");
	fprintf(out, "    B: %.*s%s\n", (int)strlen(b) > room ? room - 3 : room, b,
		(int)strlen(b) > room ? "..." : "");
}

/* The header: A and B, or for ab the one report and its arms by their
 * tweaks, identical files collapsed to one line. */
static void header_print(FILE *out, bool color, const struct comparison *c)
{
	if (!c->ab) {
		side(out, color, "A", c->path_a, c->a);
		more_runs(out, c->paths_a, c->nruns_a);
		side(out, color, "B", c->path_b, c->b);
		more_runs(out, c->paths_b, c->nruns_b);
		return;
	}
	side(out, color, "ab", c->path_a, c->a);
	sgr(out, color, SGR_BOLD);
	fputs("A:", out);
	sgr_off(out, color, SGR_BOLD);
	fputs(" the tweaked files as found (baseline)\n", out);
	sgr(out, color, SGR_BOLD);
	fputs("B:", out);
	sgr_off(out, color, SGR_BOLD);
	if (!c->ntweak_lines)
		fputs(" no tweaks\n", out);
	else if (c->ntweak_lines == 1)
		fputc(' ', out);
	else
		fputc('\n', out);
	for (size_t i = 0; i < c->ntweak_lines && i < 20; i++) {
		char *e = esc_dup(c->tweak_lines[i]);
		fprintf(out, "%s%.*s\n", c->ntweak_lines == 1 ? "" : "  ", TEXT_COLS - 5,
			e ? e : "?");
		free(e);
	}
	if (c->ntweak_lines > 20)
		fprintf(out, "  ... and %zu more (--json lists all)\n", c->ntweak_lines - 20);
}

static void drift_print(FILE *out, bool color, const struct comparison *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct compare_match *m = &c->m[i];
		/* one line per arm, its first trending statistic (--json has all) */
		for (size_t k = 0; k < m->ndrift; k++) {
			const struct compare_drift *d = &m->drift[k];
			bool shown = false;
			for (size_t q = 0; q < k; q++)
				shown |= m->drift[q].arm == d->arm;
			if (shown)
				continue;
			struct wrap wr = { out, color, 0, 4 };
			char w[96], part[200];
			compare_where(w, sizeof(w), m);
			wrap_part(&wr, "drift: ", SGR_YELLOW);
			snprintf(part, sizeof(part), "%s: ", w);
			wrap_part(&wr, part, NULL);
			snprintf(part, sizeof(part),
				 "%c rounds %s %.1f -> %.1f us, rho %.2f, p %.2g: the verdict may "
				 "reflect drift, rerun with more rounds",
				 d->arm, compare_stat_name[d->stat], d->first_ns / 1000.0,
				 d->last_ns / 1000.0, d->rho, d->p);
			wrap_clauses(&wr, part);
			wrap_end(&wr);
		}
	}
}

/* One row per match: result, verdict, method, then why, wrapped under
 * itself (or on the next line when the columns leave no room). */
static void verdict_table(FILE *out, bool color, const struct comparison *c)
{
	int ww = (int)strlen("result"), vw = (int)strlen("verdict"), mw = (int)strlen("method");
	char part[300];
	size_t i;

	for (i = 0; i < c->n; i++) {
		char w[96];
		compare_where(w, sizeof(w), &c->m[i]);
		if ((int)strlen(w) > ww)
			ww = (int)strlen(w);
		if ((int)strlen(compare_verdict_name[c->m[i].verdict]) > vw)
			vw = (int)strlen(compare_verdict_name[c->m[i].verdict]);
		if ((int)strlen(compare_method_name[c->m[i].method]) > mw)
			mw = (int)strlen(compare_method_name[c->m[i].method]);
	}
	int why = ww + 2 + vw + 2 + mw + 2;
	if (why > 48)
		why = 4;
	fputc('\n', out);
	sgr(out, color, SGR_BOLD);
	fprintf(out, "verdict on %s", c->opts.on_text);
	sgr_off(out, color, SGR_BOLD);
	if (c->opts.min_effect_ns > 0 || c->opts.min_effect_pct > 0)
		fprintf(out, ", min effect %.1f us or %.0f %%\n", c->opts.min_effect_ns / 1000.0,
			c->opts.min_effect_pct);
	else
		fputs(", no min effect\n", out);
	sgr(out, color, SGR_BOLD);
	fprintf(out, "%-*s  %-*s  %-*s  %s", ww, "result", vw, "verdict", mw, "method", "why");
	sgr_off(out, color, SGR_BOLD);
	fputc('\n', out);
	for (i = 0; i < c->n; i++) {
		const struct compare_match *m = &c->m[i];
		struct wrap wr = { out, color, 0, why };
		char w[96];
		compare_where(w, sizeof(w), m);
		fprintf(out, "%-*s  ", ww, w);
		sgr(out, color, verdict_color(m->verdict));
		fprintf(out, "%-*s", vw, compare_verdict_name[m->verdict]);
		sgr_off(out, color, verdict_color(m->verdict));
		fprintf(out, "  %-*s  ", mw, compare_method_name[m->method]);
		wr.col = ww + 2 + vw + 2 + mw + 2;
		snprintf(part, sizeof(part), "%s", reason_after_verdict(m));
		wrap_clauses(&wr, part);
		wrap_end(&wr);
	}
}

/* A line of the checks block cut to 80 columns, "..." at the cut (whole UTF-8 characters). */
static void check_line_put(FILE *out, char *s)
{
	size_t n = strlen(s);

	if (n > 80) {
		n = 77;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		snprintf(s + n, 4, "...");
	}
	fputs(s, out);
	fputc('\n', out);
}

/* The checks whose status changed, one line each: id, status A -> B, observed A -> B. */
static void checks_print(FILE *out, const struct comparison *c)
{
	char line[1400], e[5][256];

	if (c->ab)
		return; /* one run, one set of checks */
	if (!c->checks_compared) {
		/* Neither side has checks (both from before them, cyclictest files): nothing to
		 * say, the output stays as it was. */
		if (c->a->checks || c->b->checks)
			fprintf(
			    out,
			    "\nchecks: not compared (%s has no checks: a report from before them)\n",
			    c->a->checks ? "B" : "A");
		return;
	}
	if (!c->nchecks) {
		fprintf(out, "\nchecks: no status changed (%zu in A, %zu in B)\n",
			json_array_size(c->a->checks), json_array_size(c->b->checks));
		return;
	}
	fprintf(out, "\nchecks: %zu changed status (status A -> B: observed A -> B)\n", c->nchecks);
	for (size_t i = 0; i < c->nchecks; i++) {
		const struct compare_check *k = &c->checks[i];
		util_escape(k->id ? k->id : "?", e[0], sizeof(e[0]));
		if (!k->status_a || !k->status_b) {
			const char *st = k->status_a ? k->status_a : k->status_b;
			const char *ob = k->status_a ? k->observed_a : k->observed_b;
			snprintf(line, sizeof(line), "  %-20s only in %s: %s: %s", e[0],
				 k->status_a ? "A" : "B", util_escape(st, e[1], sizeof(e[1])),
				 util_escape(ob ? ob : "", e[2], sizeof(e[2])));
		} else {
			snprintf(
			    line, sizeof(line), "  %-20s %s -> %s: %s -> %s", e[0],
			    util_escape(k->status_a, e[1], sizeof(e[1])),
			    util_escape(k->status_b, e[2], sizeof(e[2])),
			    util_escape(k->observed_a ? k->observed_a : "", e[3], sizeof(e[3])),
			    util_escape(k->observed_b ? k->observed_b : "", e[4], sizeof(e[4])));
		}
		check_line_put(out, line);
	}
}

void compare_print(const struct comparison *c, const struct compare_limit *limits, size_t nlimits,
		   FILE *out, bool color, bool brief)
{
	size_t n = json_array_size(c->differences), i;
	json_t *d;

	header_print(out, color, c);
	for (i = 0; i < c->nwarnings; i++) {
		struct wrap wr = { out, color, 0, 4 };
		char *e = esc_dup(c->warnings[i]);
		wrap_part(&wr, "warning: ", NULL);
		wrap_clauses_sgr(&wr, e ? e : "?", SGR_YELLOW);
		wrap_end(&wr);
		free(e);
	}
	verdict_table(out, color, c);
	drift_print(out, color, c);
	limits_print(out, color, c, limits, nlimits);
	if (brief)
		return;
	checks_print(out, c);

	fputs("\nstatistics (B - A; the shift is of the unit the method names)\n", out);
	for (i = 0; i < c->n; i++)
		match_print(out, color, &c->m[i]);
	for (i = 0; i < c->nonly_a; i++) {
		fputs("\nonly in A: ", out);
		util_fputs_escaped(c->only_a[i], out);
	}
	for (i = 0; i < c->nonly_b; i++) {
		fputs("\nonly in B: ", out);
		util_fputs_escaped(c->only_b[i], out);
	}
	if (c->nonly_a || c->nonly_b)
		fputc('\n', out);

	if (c->ab) {
		/* the tweaks are the difference, and the header listed them */
		fprintf(out, "\nwhat differs: the %zu tweaked file%s (above; --json lists each)\n",
			n, n == 1 ? "" : "s");
		return;
	}
	fprintf(out, "\nwhat differs (%zu):\n", n);
	json_array_foreach (c->differences, i, d) {
		if (i == 40) {
			fprintf(out, "  ... and %zu more (--json lists all)\n", n - i);
			break;
		}
		char *a = json_dumps(json_object_get(d, "a"), JSON_COMPACT | JSON_ENCODE_ANY);
		char *b = json_dumps(json_object_get(d, "b"), JSON_COMPACT | JSON_ENCODE_ANY);
		const char *what = json_string_value(json_object_get(d, "what"));
		/* The key path is raw; a and b are JSON, whose encoder leaves C1
		 * controls (U+0080..U+009F) raw: all three escaped. */
		char *ew = esc_dup(what), *ea = esc_dup(a), *eb = esc_dup(b);
		difference_print(out, ew ? ew : "?", ea ? ea : "?", eb ? eb : "?");
		free(ew);
		free(ea);
		free(eb);
		free(a);
		free(b);
	}
	if (!n)
		fprintf(out, "  nothing in the system snapshots or configurations\n");
}
