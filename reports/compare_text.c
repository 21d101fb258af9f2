/* compare_text: the comparison on the terminal (compare_print) and as
 * rtsoak-compare/1 JSON (compare_json).  Latencies in microseconds, as in
 * the run summary; changes in percent of A. */
#include <config.h>

#include <math.h>
#include <string.h>

#include "compare.h"

static const char *const verdict_name[] = { "no significant difference", "better", "worse",
					    "not tested" };
static const char *const method_name[] = { "intervals", "rounds", "order-statistics", "none" };

static bool is_latency(unsigned s)
{
	return s != COMPARE_COUNT && s != COMPARE_MISSED;
}

static void where(char *buf, size_t len, const struct compare_match *m)
{
	if (m->aggregate)
		snprintf(buf, len, "%s all CPUs (%s)", m->a->probe, m->a->phase);
	else
		snprintf(buf, len, "%s cpu %d (%s)", m->a->probe, m->a->cpu, m->a->phase);
}

static void side(FILE *out, const char *label, const char *path, const struct report *r)
{
	fprintf(out, "%s: %s  %s %s, %s, %.1f s, %s\n", label, path,
		r->tool_name ? r->tool_name : "rtsoak", r->tool_version ? r->tool_version : "?",
		r->start[0] ? r->start : "start unknown", (double)r->duration_ns / 1e9,
		report_status_name(r->status));
}

static void cell(FILE *out, bool known, unsigned s, uint64_t v)
{
	if (!known)
		fprintf(out, " %11s", "?");
	else if (is_latency(s))
		fprintf(out, " %11.1f", (double)v / 1000.0);
	else
		fprintf(out, " %11llu", (unsigned long long)v);
}

static void shift_text(char *buf, size_t len, const struct compare_match *m)
{
	if (m->verdict == COMPARE_UNTESTED) {
		snprintf(buf, len, "-");
		return;
	}
	if (m->ci)
		snprintf(buf, len, "%+.1f us (%+.1f .. %+.1f)", m->shift_ns / 1000.0,
			 m->lo_ns / 1000.0, m->hi_ns / 1000.0);
	else
		snprintf(buf, len, "%+.1f us (no interval)", m->shift_ns / 1000.0);
}

static void method_text(char *buf, size_t len, const struct compare_match *m)
{
	switch (m->method) {
	case COMPARE_BY_INTERVALS:
		snprintf(buf, len,
			 "by %zu vs %zu maxima of %.3g s (Mann-Whitney U p %.2g, Hodges-Lehmann "
			 "95 %% CI)",
			 m->na, m->nb, (double)m->unit_ns / 1e9, m->p);
		break;
	case COMPARE_BY_ROUNDS:
		snprintf(
		    buf, len,
		    "by %zu vs %zu rounds' p99 (Mann-Whitney U p %.2g, Hodges-Lehmann 95 %% CI)",
		    m->na, m->nb, m->p);
		break;
	case COMPARE_BY_ORDER:
		snprintf(buf, len, "by 95 %% order-statistic intervals of p99 (%zu vs %zu samples)",
			 m->na, m->nb);
		break;
	default:
		snprintf(buf, len, "not tested");
		break;
	}
}

static void match_print(FILE *out, const struct compare_match *m)
{
	char w[96], sh[96], how[200];

	where(w, sizeof(w), m);
	shift_text(sh, sizeof(sh), m);
	method_text(how, sizeof(how), m);
	fprintf(out, "\n%s: %s", w, verdict_name[m->verdict]);
	if (m->verdict != COMPARE_UNTESTED)
		fprintf(out, ", shift %s", sh);
	fprintf(out, "\n  %s\n", how);
	if (m->note[0])
		fprintf(out, "  note: %s\n", m->note);
	fprintf(out, "  %-8s %11s %11s %9s\n", "", "A", "B", "change");
	for (unsigned s = 0; s < COMPARE_NSTATS; s++) {
		const struct compare_value *v = &m->v[s];
		fprintf(out, "  %-8s", compare_stat_name[s]);
		cell(out, v->known, s, v->a);
		cell(out, v->known, s, v->b);
		if (v->known && v->a)
			fprintf(out, " %+8.1f%%", v->change_pct);
		else
			fprintf(out, " %9s", v->known && v->b ? "new" : "");
		fputc('\n', out);
	}
}

static void limits_print(FILE *out, const struct comparison *c, const struct compare_limit *l,
			 size_t nl)
{
	for (size_t i = 0; i < nl; i++) {
		unsigned broken = 0, unchecked = 0;
		for (size_t k = 0; k < c->n; k++) {
			bool ok;
			char w[96];
			if (!compare_limit_broken(&l[i], &c->m[k], &ok)) {
				unchecked += !ok;
				continue;
			}
			const struct compare_value *v = &c->m[k].v[l[i].stat];
			where(w, sizeof(w), &c->m[k]);
			if (!broken++)
				fprintf(out, "\n--fail-if %s: BROKEN\n", l[i].text);
			if (l[i].relative)
				fprintf(out, "  %s: %+.1f %%\n", w, v->change_pct);
			else if (is_latency(l[i].stat))
				fprintf(out, "  %s: %+.1f us\n", w,
					((double)v->b - (double)v->a) / 1000.0);
			else
				fprintf(out, "  %s: %+.0f\n", w, (double)v->b - (double)v->a);
		}
		if (!broken)
			fprintf(out, "\n--fail-if %s: holds for all %zu matched results", l[i].text,
				c->n - unchecked);
		if (unchecked)
			fprintf(out, "%s(%u without %s on both sides not checked)\n",
				broken ? "  " : " ", unchecked, compare_stat_name[l[i].stat]);
		else if (!broken)
			fputc('\n', out);
	}
}

void compare_print(const struct comparison *c, const struct compare_limit *limits, size_t nlimits,
		   FILE *out)
{
	size_t n = json_array_size(c->differences), i;
	json_t *d;

	side(out, "A", c->path_a, c->a);
	side(out, "B", c->path_b, c->b);
	for (i = 0; i < c->nwarnings; i++)
		fprintf(out, "warning: %s\n", c->warnings[i]);
	for (i = 0; i < c->n; i++)
		match_print(out, &c->m[i]);
	for (i = 0; i < c->nonly_a; i++)
		fprintf(out, "\nonly in A: %s", c->only_a[i]);
	for (i = 0; i < c->nonly_b; i++)
		fprintf(out, "\nonly in B: %s", c->only_b[i]);
	if (c->nonly_a || c->nonly_b)
		fputc('\n', out);

	fprintf(out, "\nwhat differs (%zu):\n", n);
	json_array_foreach (c->differences, i, d) {
		if (i == 40) {
			fprintf(out, "  ... and %zu more (--json lists all)\n", n - i);
			break;
		}
		char *a = json_dumps(json_object_get(d, "a"), JSON_COMPACT | JSON_ENCODE_ANY);
		char *b = json_dumps(json_object_get(d, "b"), JSON_COMPACT | JSON_ENCODE_ANY);
		fprintf(out, "  %s: %.60s -> %.60s\n",
			json_string_value(json_object_get(d, "what")), a ? a : "?", b ? b : "?");
		free(a);
		free(b);
	}
	if (!n)
		fprintf(out, "  nothing in the system snapshots or configurations\n");

	/* The verdicts once more, one line each, for reading at a glance. */
	fprintf(out, "\n%-30s %-26s %s\n", "result", "verdict", "shift (95 % CI)");
	for (i = 0; i < c->n; i++) {
		char w[96], sh[96];
		where(w, sizeof(w), &c->m[i]);
		shift_text(sh, sizeof(sh), &c->m[i]);
		fprintf(out, "%-30s %-26s %s\n", w, verdict_name[c->m[i].verdict], sh);
	}
	limits_print(out, c, limits, nlimits);
}

/* ------------------------------------------------------------ JSON -- */

static json_t *num_or_null(bool has, double v)
{
	return has && isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_json(const char *path, const struct report *r)
{
	return json_pack("{s:s, s:s, s:s?, s:s?, s:I, s:s}", "file", path, "tool",
			 r->tool_name ? r->tool_name : "rtsoak", "version", r->tool_version,
			 "start", r->start[0] ? r->start : NULL, "duration_ns",
			 (json_int_t)r->duration_ns, "status", report_status_name(r->status));
}

static json_t *match_json(const struct compare_match *m)
{
	json_t *o = json_object(), *stats = json_object();
	bool tested = m->verdict != COMPARE_UNTESTED;

	for (unsigned s = 0; s < COMPARE_NSTATS; s++) {
		const struct compare_value *v = &m->v[s];
		json_object_set_new(
		    stats, compare_stat_name[s],
		    json_pack("{s:o, s:o, s:o}", "a",
			      v->known ? json_integer((json_int_t)v->a) : json_null(), "b",
			      v->known ? json_integer((json_int_t)v->b) : json_null(), "change_pct",
			      num_or_null(v->known && v->a, v->change_pct)));
	}
	json_object_set_new(o, "probe", json_string(m->a->probe));
	json_object_set_new(o, "cpu", m->aggregate ? json_string("all") : json_integer(m->a->cpu));
	json_object_set_new(o, "phase", json_string(m->a->phase));
	json_object_set_new(o, "verdict", json_string(verdict_name[m->verdict]));
	json_object_set_new(o, "method", json_string(method_name[m->method]));
	json_object_set_new(o, "units_a", json_integer((json_int_t)m->na));
	json_object_set_new(o, "units_b", json_integer((json_int_t)m->nb));
	json_object_set_new(o, "unit_ns",
			    m->method == COMPARE_BY_INTERVALS ? json_integer((json_int_t)m->unit_ns)
							      : json_null());
	json_object_set_new(o, "shift_ns", num_or_null(tested, m->shift_ns));
	json_object_set_new(o, "ci_low_ns", num_or_null(tested && m->ci, m->lo_ns));
	json_object_set_new(o, "ci_high_ns", num_or_null(tested && m->ci, m->hi_ns));
	json_object_set_new(o, "p", num_or_null(tested && m->p >= 0, m->p));
	json_object_set_new(o, "note", m->note[0] ? json_string(m->note) : json_null());
	json_object_set_new(o, "stats", stats);
	return o;
}

static json_t *strs(char **v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

json_t *compare_json(const struct comparison *c, const struct compare_limit *limits, size_t nlimits)
{
	json_t *root = json_object(), *matches = json_array(), *lims = json_array();

	for (size_t i = 0; i < c->n; i++)
		json_array_append_new(matches, match_json(&c->m[i]));
	for (size_t i = 0; i < nlimits; i++) {
		json_t *broken = json_array();
		size_t unchecked = 0;
		for (size_t k = 0; k < c->n; k++) {
			bool ok;
			char w[96];
			if (compare_limit_broken(&limits[i], &c->m[k], &ok)) {
				where(w, sizeof(w), &c->m[k]);
				json_array_append_new(broken, json_string(w));
			}
			unchecked += !ok;
		}
		json_array_append_new(lims, json_pack("{s:s, s:o, s:I}", "expr", limits[i].text,
						      "broken_by", broken, "not_checked",
						      (json_int_t)unchecked));
	}
	json_object_set_new(root, "schema", json_string("rtsoak-compare/1"));
	json_object_set_new(root, "a", side_json(c->path_a, c->a));
	json_object_set_new(root, "b", side_json(c->path_b, c->b));
	json_object_set_new(root, "confidence", json_real(COMPARE_CONF));
	json_object_set_new(root, "warnings", strs(c->warnings, c->nwarnings));
	json_object_set_new(root, "matches", matches);
	json_object_set_new(root, "only_in_a", strs(c->only_a, c->nonly_a));
	json_object_set_new(root, "only_in_b", strs(c->only_b, c->nonly_b));
	json_object_set(root, "differences", c->differences);
	json_object_set_new(root, "limits", lims);
	return root;
}
