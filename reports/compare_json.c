/* compare_json: the comparison as rtsoak-compare/1 JSON
 * (docs/compare-schema.json), for `rtsoak compare --json`.  Latencies in
 * nanoseconds as integers; a statistic a side does not record is null. */
#include <config.h>

#include <math.h>

#include "compare.h"
#include "views.h"

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
	json_object_set_new(o, "verdict", json_string(compare_verdict_name[m->verdict]));
	json_object_set_new(o, "method", json_string(compare_method_name[m->method]));
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
	if (m->traced_a || m->traced_b) { /* only where a side was traced: old files unchanged */
		json_t *causes = json_array();
		for (size_t i = 0; i < m->ncauses; i++) {
			const struct compare_cause *c = &m->causes[i];
			json_array_append_new(
			    causes,
			    json_pack(
				"{s:s, s:o, s:o, s:o, s:o, s:b}", "cause", c->cause, "share_a",
				m->traced_a ? json_real(c->share_a) : json_null(), "share_b",
				m->traced_b ? json_real(c->share_b) : json_null(), "spikes_a",
				m->traced_a ? json_integer((json_int_t)c->spikes_a) : json_null(),
				"spikes_b",
				m->traced_b ? json_integer((json_int_t)c->spikes_b) : json_null(),
				"shifted", c->shifted));
		}
		json_object_set_new(o, "traced_a", json_boolean(m->traced_a));
		json_object_set_new(o, "traced_b", json_boolean(m->traced_b));
		json_object_set_new(o, "causes", causes);
	}
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
				compare_where(w, sizeof(w), &c->m[k]);
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
