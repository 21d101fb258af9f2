// SPDX-License-Identifier: GPL-2.0-or-later
/* compare_json: the comparison as rtsoak-compare/2 JSON
 * (docs/compare-schema.json), for `rtsoak compare --json` and the report of
 * `rtsoak ab`.  Latencies in nanoseconds as integers; a statistic a side
 * does not record is null.  /2 (issue 15): each match's overall verdict is
 * one of same, better, worse, mixed, untested, no verdict, with a verdict per judged
 * statistic under "judged" and ab's drift tests under "drift". */
#include <config.h>

#include <math.h>

#include "compare.h"
#include "util.h"
#include "views.h"

static json_t *num_or_null(bool has, double v)
{
	return has && isfinite(v) ? json_real(v) : json_null();
}

static json_t *side_json(const char *path, const struct report *r)
{
	/* the path is the user's (any bytes): valid UTF-8, or the side would be missing */
	return json_pack("{s:o, s:s, s:s?, s:s?, s:I, s:s}", "file", util_json_string(path), "tool",
			 r->tool_name ? r->tool_name : "rtsoak", "version", r->tool_version,
			 "start", r->start[0] ? r->start : NULL, "duration_ns",
			 (json_int_t)r->duration_ns, "status", report_status_name(r->status));
}

static json_t *judgement_json(const struct compare_judgement *j)
{
	bool series = j->method == COMPARE_BY_INTERVALS || j->method == COMPARE_BY_BLOCKS;
	bool test = compare_judgement_tested(j);
	json_t *o = json_pack(
	    "{s:s, s:s, s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:I, s:I, s:o, s:o, s:o}", "statistic",
	    compare_stat_name[j->stat], "asked", compare_stat_name[j->asked], "verdict",
	    compare_verdict_name[j->verdict], "method", compare_method_name[j->method],
	    "significant", test && j->significant, "shift_ns", num_or_null(test, j->shift_ns),
	    "ci_low_ns", num_or_null(test && j->ci, j->lo_ns), "ci_high_ns",
	    num_or_null(test && j->ci, j->hi_ns), "p", num_or_null(test && j->p >= 0, j->p),
	    "units_a", (json_int_t)j->na, "units_b", (json_int_t)j->nb, "unit_ns",
	    series ? json_integer((json_int_t)j->unit_ns) : json_null(), "min_effect_ns",
	    num_or_null(test, j->effect_ns), "note",
	    j->note[0] ? json_string(j->note) : json_null());
	/* the series methods' yardsticks (issue 30): what one run a side can
	 * and cannot separate */
	if (o && series && test) {
		char side[2] = { j->drift_side ? j->drift_side : 'A', 0 };
		bool drift = j->drift_p < 1;
		if (util_json_set(o, "spread_ns", json_real(j->spread_ns)) ||
		    util_json_set(o, "drift",
				  drift ? json_pack("{s:s, s:f, s:f}", "side", side, "change_ns",
						    j->drift_ns, "p", j->drift_p)
					: json_null())) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static json_t *match_json(const struct compare_match *m)
{
	json_t *o = json_object(), *stats = json_object(), *judged = json_array();
	int bad = !o || !stats || !judged;

	if (bad) {
		json_decref(o);
		json_decref(stats);
		json_decref(judged);
		return NULL;
	}

	for (unsigned s = 0; s < COMPARE_NSTATS; s++) {
		const struct compare_value *v = &m->v[s];
		bad |= util_json_set(
		    stats, compare_stat_name[s],
		    json_pack("{s:o, s:o, s:o}", "a",
			      v->known ? json_integer((json_int_t)v->a) : json_null(), "b",
			      v->known ? json_integer((json_int_t)v->b) : json_null(), "change_pct",
			      num_or_null(v->known && v->a, v->change_pct)));
	}
	for (size_t i = 0; i < m->nj; i++)
		bad |= util_json_push(judged, judgement_json(&m->j[i]));
	bad |= util_json_set(o, "probe", json_string(m->a->probe));
	bad |= util_json_set(o, "cpu", m->aggregate ? json_string("all") : json_integer(m->a->cpu));
	bad |= util_json_set(o, "phase", json_string(m->a->phase));
	bad |= util_json_set(o, "verdict", json_string(compare_verdict_name[m->verdict]));
	bad |= util_json_set(o, "reason", json_string(m->reason));
	bad |= util_json_set(o, "method", json_string(compare_method_name[m->method]));
	bad |= util_json_set(o, "note", m->note[0] ? json_string(m->note) : json_null());
	bad |= util_json_set(o, "judged", judged);
	if (m->ab) {
		json_t *drift = json_array();
		for (size_t i = 0; i < m->ndrift; i++) {
			const struct compare_drift *d = &m->drift[i];
			char arm[2] = { d->arm, 0 };
			bad |= util_json_push(
			    drift, json_pack("{s:s, s:s, s:I, s:f, s:f, s:f, s:f}", "arm", arm,
					     "statistic", compare_stat_name[d->stat], "rounds",
					     (json_int_t)d->rounds, "first_ns", d->first_ns,
					     "last_ns", d->last_ns, "rho", d->rho, "p", d->p));
		}
		bad |= util_json_set(o, "drift", drift);
	}
	bad |= util_json_set(o, "stats", stats);
	if (m->traced_a || m->traced_b) { /* only where a side was traced: old files unchanged */
		json_t *causes = json_array();
		for (size_t i = 0; i < m->ncauses; i++) {
			const struct compare_cause *c = &m->causes[i];
			bad |= util_json_push(
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
		bad |= util_json_set(o, "traced_a", json_boolean(m->traced_a));
		bad |= util_json_set(o, "traced_b", json_boolean(m->traced_b));
		bad |= util_json_set(o, "causes", causes);
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *strs(char **v, size_t n)
{
	json_t *a = json_array();
	int bad = !a;
	for (size_t i = 0; !bad && i < n; i++)
		bad |= util_json_push(a, util_json_string(v[i]));
	if (bad) {
		json_decref(a);
		return NULL;
	}
	return a;
}

static json_t *check_side(const char *status, const char *observed)
{
	if (!status)
		return json_null(); /* the check is on the other side only */
	return json_pack("{s:s, s:s}", "status", status, "observed", observed ? observed : "");
}

/* The checks whose status changed; absent where they were not compared (ab, or a side from
 * before the checks), so that an empty array always means "none changed". */
static json_t *checks_json(const struct comparison *c)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t i = 0; !bad && i < c->nchecks; i++) {
		const struct compare_check *k = &c->checks[i];
		bad |= util_json_push(a, json_pack("{s:s, s:o, s:o}", "id", k->id ? k->id : "", "a",
						   check_side(k->status_a, k->observed_a), "b",
						   check_side(k->status_b, k->observed_b)));
	}
	if (bad) {
		json_decref(a);
		return NULL;
	}
	return a;
}

json_t *compare_json(const struct comparison *c, const struct compare_limit *limits, size_t nlimits)
{
	json_t *root = json_object(), *matches = json_array(), *lims = json_array();
	/* every value checked: a view with a key missing is not written */
	int bad = !root || !matches || !lims;

	if (bad) {
		json_decref(root);
		json_decref(matches);
		json_decref(lims);
		return NULL;
	}

	for (size_t i = 0; i < c->n; i++)
		bad |= util_json_push(matches, match_json(&c->m[i]));
	for (size_t i = 0; i < nlimits; i++) {
		json_t *broken = json_array();
		size_t unchecked = 0, no_evidence = 0;
		for (size_t k = 0; k < c->n; k++) {
			bool ok, ev;
			char w[96];
			if (compare_limit_broken(&limits[i], &c->m[k], &ok, &ev)) {
				compare_where(w, sizeof(w), &c->m[k]);
				bad |= util_json_push(broken, json_string(w));
			}
			unchecked += !ok;
			no_evidence += ok && !ev;
		}
		bad |= util_json_push(
		    lims, json_pack("{s:s, s:b, s:o, s:I, s:I}", "expr", limits[i].text, "raw",
				    limits[i].raw, "broken_by", broken, "not_checked",
				    (json_int_t)unchecked, "no_evidence", (json_int_t)no_evidence));
	}
	json_t *on = json_array();
	for (size_t i = 0; i < c->opts.non; i++)
		bad |= util_json_push(on, json_string(compare_stat_name[c->opts.on[i]]));
	bad |= util_json_set(root, "schema", json_string("rtsoak-compare/2"));
	for (int s = 0; s < 2; s++) {
		json_t *o = s ? side_json(c->path_b, c->b) : side_json(c->path_a, c->a);
		size_t n = s ? c->nruns_b : c->nruns_a;
		if (n > 1) { /* several runs a side: each of them, the first again */
			json_t *runs = json_array();
			for (size_t i = 0; i < n; i++)
				bad |= util_json_push(runs,
						      s ? side_json(c->paths_b[i], c->runs_b[i])
							: side_json(c->paths_a[i], c->runs_a[i]));
			bad |= util_json_set(o, "runs", runs);
		}
		bad |= util_json_set(root, s ? "b" : "a", o);
	}
	bad |= util_json_set(root, "confidence", json_real(COMPARE_CONF));
	bad |= util_json_set(root, "verdict_on", on);
	bad |= util_json_set(
	    root, "min_effect",
	    json_pack("{s:f, s:f}", "ns", c->opts.min_effect_ns, "pct", c->opts.min_effect_pct));
	/* ab interleaves the arms and tests each for a trend; two runs cannot. */
	bad |= util_json_set(root, "drift_controlled", json_boolean(c->ab));
	bad |= util_json_set(root, "warnings", strs(c->warnings, c->nwarnings));
	bad |= util_json_set(root, "matches", matches);
	bad |= util_json_set(root, "only_in_a", strs(c->only_a, c->nonly_a));
	bad |= util_json_set(root, "only_in_b", strs(c->only_b, c->nonly_b));
	bad |= json_object_set(root, "differences", c->differences);
	if (c->checks_compared)
		bad |= util_json_set(root, "checks", checks_json(c));
	bad |= util_json_set(root, "limits", lims);
	if (bad) {
		json_decref(root);
		return NULL;
	}
	return root;
}
