// SPDX-License-Identifier: GPL-2.0-or-later
/* compare: match two report models result by result, give each match a
 * verdict that respects noise (compare.h says how), and list what differs
 * between the two systems and configurations. */
#include <config.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribution.h"
#include "compare_internal.h"
#include "parse.h"
#include "stats.h"
#include "util.h"

const char *const compare_verdict_name[] = { "same",	 "better", "worse",
					     "untested", "mixed",  "no verdict" };
const char *const compare_method_name[] = {
	"intervals", "rounds", "order", "runs", "none", "blocks"
};

const char *const compare_stat_name[COMPARE_NSTATS] = {
	"count", "min", "mean", "p50", "p90", "p99", "p99.9", "p99.99", "p99.999", "max", "missed",
};

static int add_str(char ***v, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int add_str(char ***v, size_t *n, const char *fmt, ...)
{
	va_list ap;

	if (util_grow(v, *n, sizeof(**v)))
		return -ENOMEM;
	va_start(ap, fmt);
	int rc = vasprintf(&(*v)[*n], fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	(*n)++;
	return 0;
}

static void fill_values(struct compare_match *m)
{
	const struct report_result *a = m->a, *b = m->b;
	bool both = a->count > 0 && b->count > 0;
	unsigned unk = a->unknown | b->unknown;

	for (unsigned s = 0; s < COMPARE_NSTATS; s++) {
		struct compare_value *v = &m->v[s];
		switch (s) {
		case COMPARE_COUNT:
			v->known = true;
			v->a = a->count, v->b = b->count;
			break;
		case COMPARE_MISSED:
			v->known = !(unk & REPORT_UNKNOWN_MISSED);
			v->a = a->missed, v->b = b->missed;
			break;
		case COMPARE_MIN:
			v->known = both;
			v->a = a->min, v->b = b->min;
			break;
		case COMPARE_MAX:
			v->known = both;
			v->a = a->max, v->b = b->max;
			break;
		case COMPARE_MEAN:
			v->known = both && !(unk & REPORT_UNKNOWN_MEAN);
			v->a = a->mean, v->b = b->mean;
			break;
		default: /* the percentiles, in report_pct order */
			v->known = both && !(unk & REPORT_UNKNOWN_PCT);
			v->a = a->pct[s - COMPARE_P50];
			v->b = b->pct[s - COMPARE_P50];
			break;
		}
		v->change_pct =
		    v->known && v->a ? ((double)v->b - (double)v->a) / (double)v->a * 100.0 : 0;
	}
}

/* The causes of a per-CPU match from both sides' attribution. */
static int match_causes(struct compare_match *m, const struct report *ra, const struct report *rb)
{
	json_t *sa = attribution_series(ra, m->a->probe, m->a->cpu, m->a->phase);
	json_t *sb = attribution_series(rb, m->b->probe, m->b->cpu, m->b->phase);
	json_t *ca = json_object_get(sa, "causes"), *cb = json_object_get(sb, "causes"), *x;
	size_t i, n = 0;

	m->traced_a = sa != NULL;
	m->traced_b = sb != NULL;
	if (!sa && !sb)
		return 0;
	m->causes = calloc(json_array_size(ca) + json_array_size(cb) + 1, sizeof(*m->causes));
	if (!m->causes)
		return -ENOMEM;
	for (int side = 0; side < 2; side++)
		json_array_foreach (side ? cb : ca, i, x) {
			const char *key = json_string_value(json_object_get(x, "cause")) ?: "";
			size_t k = 0;
			while (k < n && strcmp(m->causes[k].cause, key))
				k++;
			struct compare_cause *cc = &m->causes[k];
			if (k == n)
				n++;
			cc->cause = key;
			double share = json_number_value(json_object_get(x, "share"));
			uint64_t spikes =
			    (uint64_t)json_integer_value(json_object_get(x, "spikes"));
			if (side) {
				cc->in_b = true;
				cc->share_b = share;
				cc->spikes_b = spikes;
			} else {
				cc->in_a = true;
				cc->share_a = share;
				cc->spikes_a = spikes;
			}
		}
	for (i = 0; i < n; i++) {
		struct compare_cause *cc = &m->causes[i];
		cc->shifted = sa && sb &&
			      (cc->in_a != cc->in_b ||
			       fabs(cc->share_b - cc->share_a) * 100 > ATTRIBUTION_SHIFT_POINTS);
	}
	m->ncauses = n;
	return 0;
}

static int add_match(struct comparison *c, const struct report_result *a,
		     const struct report_result *b, bool aggregate)
{
	struct compare_match *m;

	if (util_grow(&c->m, c->n, sizeof(*c->m)))
		return -ENOMEM;
	m = &c->m[c->n++];
	memset(m, 0, sizeof(*m));
	m->a = a;
	m->b = b;
	m->aggregate = aggregate;
	m->ab = c->ab;
	fill_values(m);
	if (!aggregate && !c->ab)
		return match_causes(m, c->a, c->b);
	return 0;
}

/* A probe's family: its name up to the first '.' (net for net.stack). */
static size_t family_len(const char *probe)
{
	return strcspn(probe, ".");
}

static bool has_series(const struct report *r, const char *probe)
{
	for (size_t i = 0; i < r->nseries; i++)
		if (!strcmp(r->series[i].probe, probe))
			return true;
	return false;
}

static int key_cmp(const struct report_result *a, const struct report_result *b)
{
	int c = (a->cpu > b->cpu) - (a->cpu < b->cpu);

	if (!c)
		c = strcmp(a->probe, b->probe);
	return c ? c : strcmp(a->phase, b->phase);
}

static int key_sort(const void *x, const void *y)
{
	const struct report_result *a = *(const struct report_result *const *)x,
				   *b = *(const struct report_result *const *)y;
	int c = key_cmp(a, b);

	return c ? c : (a > b) - (a < b);
}

/* v sorted by (cpu, probe, phase, position): matching is O(n log n), not
 * O(n^2), for reports with 10^5 results (bench/readers.sh). */
static const struct report_result **key_index(const struct report_result *v, size_t n)
{
	const struct report_result **ix = malloc((n + 1) * sizeof(*ix));

	if (!ix)
		return NULL;
	for (size_t i = 0; i < n; i++)
		ix[i] = &v[i];
	qsort(ix, n, sizeof(*ix), key_sort);
	return ix;
}

/* The first result of v with key's (probe, cpu, phase). */
static const struct report_result *find(const struct report_result **ix, size_t n,
					const struct report_result *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (key_cmp(ix[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !key_cmp(ix[lo], key) ? ix[lo] : NULL;
}

/* Several runs a side: every match judged by the values of the result with
 * its key in each run, found through one sorted index per run and kind. */
static int judge_replicates(struct comparison *c)
{
	size_t nr = c->nruns_a + c->nruns_b;
	const struct report_result ***ix = calloc(2 * nr, sizeof(*ix));
	const struct report_result *ra[COMPARE_MAX_RUNS], *rb[COMPARE_MAX_RUNS];
	int rc =
	    ix && c->nruns_a <= COMPARE_MAX_RUNS && c->nruns_b <= COMPARE_MAX_RUNS ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < nr; i++) {
		const struct report *r = i < c->nruns_a ? c->runs_a[i] : c->runs_b[i - c->nruns_a];
		if (!(ix[2 * i] = key_index(r->results, r->nresults)) ||
		    !(ix[2 * i + 1] = key_index(r->aggregates, r->naggregates)))
			rc = -ENOMEM;
	}
	for (size_t k = 0; !rc && k < c->n; k++) {
		struct compare_match *m = &c->m[k];
		for (size_t i = 0; i < nr; i++) {
			const struct report *r =
			    i < c->nruns_a ? c->runs_a[i] : c->runs_b[i - c->nruns_a];
			const struct report_result *f =
			    find(ix[2 * i + m->aggregate],
				 m->aggregate ? r->naggregates : r->nresults, m->a);
			if (i < c->nruns_a)
				ra[i] = f;
			else
				rb[i - c->nruns_a] = f;
		}
		rc = compare_judge_replicates(m, c, ra, c->nruns_a, rb, c->nruns_b);
	}
	for (size_t i = 0; ix && i < 2 * nr; i++)
		free(ix[i]);
	free(ix);
	return rc;
}

/* Which families may judge max by interval maxima: those whose every
 * matched result has a series in both runs.  Only a probe's first result
 * has one (net, not net.stack), and a family judged half by intervals and
 * half by order statistics would compare unlike verdicts side by side.
 * The distinct probe names are few: this is O(matches x names). */
static int judge_all(struct comparison *c)
{
	if (c->nruns_a > 1 || c->nruns_b > 1)
		return judge_replicates(c);

	const char **name = calloc(c->n + 1, sizeof(*name));
	bool *ok = calloc(c->n + 1, sizeof(*ok));
	size_t nname = 0;
	int rc = 0;

	if (!name || !ok) {
		free(name);
		free(ok);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n; i++) {
		const char *p = c->m[i].a->probe;
		size_t k = 0;
		while (k < nname && strcmp(name[k], p))
			k++;
		if (k == nname) {
			name[nname] = p;
			ok[nname++] = has_series(c->a, p) && has_series(c->b, p);
		}
	}
	struct stats_work work = { 0 };
	c->work = &work;
	for (size_t i = 0; !rc && i < c->n; i++) {
		const char *p = c->m[i].a->probe;
		size_t fl = family_len(p);
		bool intervals = true;
		for (size_t k = 0; k < nname; k++)
			if (family_len(name[k]) == fl && !strncmp(name[k], p, fl))
				intervals &= ok[k];
		rc = c->ab ? compare_judge_ab(&c->m[i], c)
			   : compare_judge_runs(&c->m[i], c, intervals);
		c->ndrift += c->m[i].ndrift > 0;
	}
	c->work = NULL;
	stats_work_free(&work);
	free(name);
	free(ok);
	return rc;
}

static int unmatched(char ***v, size_t *n, const struct report_result *r)
{
	if (r->cpu == REPORT_CPU_ALL)
		return add_str(v, n, "%s all CPUs (%s)", r->probe, r->phase);
	return add_str(v, n, "%s cpu %d (%s)", r->probe, r->cpu, r->phase);
}

static int match_all(struct comparison *c, bool aggregate)
{
	const struct report_result *va = aggregate ? c->a->aggregates : c->a->results;
	const struct report_result *vb = aggregate ? c->b->aggregates : c->b->results;
	size_t na = aggregate ? c->a->naggregates : c->a->nresults;
	size_t nb = aggregate ? c->b->naggregates : c->b->nresults;
	const struct report_result **ia = key_index(va, na), **ib = key_index(vb, nb);
	int rc = ia && ib ? 0 : -ENOMEM;

	for (size_t i = 0; !rc && i < na; i++) {
		const struct report_result *o = find(ib, nb, &va[i]);
		rc = o ? add_match(c, &va[i], o, aggregate)
		       : unmatched(&c->only_a, &c->nonly_a, &va[i]);
	}
	for (size_t i = 0; !rc && i < nb; i++)
		if (!find(ia, na, &vb[i]))
			rc = unmatched(&c->only_b, &c->nonly_b, &vb[i]);
	free(ia);
	free(ib);
	return rc;
}

/* ---------------------------------------------------- what differs -- */

/* Flatten an object into "prefix.key" -> scalar (arrays of scalars stay
 * whole: a list of probes is one value).  0, or -1 when one could not be
 * kept (out of memory): a difference silently missing is a wrong answer. */
static int flatten(json_t *flat, const char *prefix, json_t *v)
{
	const char *k;
	json_t *x;
	size_t i;
	char key[512];
	int bad = 0;

	if (json_is_object(v)) {
		json_object_foreach (v, k, x) {
			snprintf(key, sizeof(key), "%s.%s", prefix, k);
			/* a long key is cut, maybe inside a character */
			util_utf8_fix(key, strlen(key));
			bad |= flatten(flat, key, x);
		}
	} else if (json_is_array(v) && json_array_size(v) &&
		   (json_is_object(json_array_get(v, 0)) || json_is_array(json_array_get(v, 0)))) {
		json_array_foreach (v, i, x) {
			snprintf(key, sizeof(key), "%s[%zu]", prefix, i);
			util_utf8_fix(key, strlen(key));
			bad |= flatten(flat, key, x);
		}
	} else if (v) { /* a side without a system or config: nothing to list */
		bad |= json_object_set(flat, prefix, v);
	}
	return bad;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Config keys that say where output went, not what was measured; and the
 * snapshot's counters and process ids, which every run reads anew (an IRQ's
 * count since boot, a kernel thread's pid): what differs lists settings. */
static bool ignored(const char *key)
{
	static const char *const skip[] = { "config.output",
					    "config.prom",
					    "config.html",
					    "config.workdir",
					    "config.net_rx_timestamps",
					    NULL };
	for (int i = 0; skip[i]; i++)
		if (!strcmp(key, skip[i]))
			return true;
	if (!strncmp(key, "system.irqs[", 12) && ends_with(key, ".count_measured"))
		return true;
	return !strncmp(key, "system.kthreads[", 16) && ends_with(key, ".pid");
}

static int differences(struct comparison *c)
{
	json_t *fa = json_object(), *fb = json_object(), *d = json_array(), *x;
	const char *k;

	if (!fa || !fb || !d)
		goto nomem;
	if (flatten(fa, "system", c->a->system) | flatten(fb, "system", c->b->system) |
	    flatten(fa, "config", c->a->config) | flatten(fb, "config", c->b->config))
		goto nomem;
	json_object_foreach (fa, k, x) {
		json_t *y = json_object_get(fb, k);
		if (ignored(k) || (y && json_equal(x, y)))
			continue;
		/* A cyclictest file records little: what it does not say did not
		 * change, it is unknown (the warnings say so). */
		if (!y && c->b->tool_name)
			continue;
		if (util_json_push(d, json_pack("{s:s, s:O, s:O}", "what", k, "a", x, "b",
						y ? y : json_null())))
			goto nomem;
	}
	json_object_foreach (fb, k, x)
		if (!ignored(k) && !json_object_get(fa, k) && !c->a->tool_name &&
		    util_json_push(d, json_pack("{s:s, s:n, s:O}", "what", k, "a", "b", x)))
			goto nomem;
	json_decref(fa);
	json_decref(fb);
	c->differences = d;
	return 0;
nomem:
	json_decref(fa);
	json_decref(fb);
	json_decref(d);
	return -ENOMEM;
}

/* Warn where x and y measured different things (what they are: "A, B" or
 * "A run 2 (path), A run 1"). */
static int config_differs(struct comparison *c, const struct report *x, const struct report *y,
			  const char *what)
{
	static const char *const keys[] = { "probes", "cpus",	  "interval_ns", "loads",
					    "policy", "priority", NULL };
	int rc = 0;

	for (int i = 0; !rc && keys[i]; i++) {
		json_t *a = json_object_get(x->config, keys[i]);
		json_t *b = json_object_get(y->config, keys[i]);
		if (!a || !b || json_equal(a, b))
			continue;
		char *sa = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY);
		char *sb = json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY);
		rc = add_str(&c->warnings, &c->nwarnings,
			     "not comparable: %s differs (%s: %.80s, %.80s)", keys[i], what,
			     sa ? sa : "?", sb ? sb : "?");
		free(sa);
		free(sb);
	}
	return rc;
}

/* Runs that measured different things: a verdict still comes out, but the
 * reader should know.  Several runs a side: each against its side's first. */
static int comparability(struct comparison *c)
{
	int rc = config_differs(c, c->a, c->b, "A, B");

	for (int s = 0; s < 2; s++) {
		const struct report *const *run = s ? c->runs_b : c->runs_a;
		const char *const *path = s ? c->paths_b : c->paths_a;
		size_t n = s ? c->nruns_b : c->nruns_a;
		for (size_t i = 1; !rc && i < n; i++) {
			char what[160];
			snprintf(what, sizeof(what), "%c run %zu (%.100s), %c run 1", s ? 'B' : 'A',
				 i + 1, path[i], s ? 'B' : 'A');
			rc = config_differs(c, run[i], run[0], what);
		}
	}
	const struct report *side[2] = { c->a, c->b };
	const char *path[2] = { c->path_a, c->path_b };
	for (int i = 0; !rc && i < 2; i++) {
		if (side[i]->status == REPORT_RUNNING)
			rc = add_str(&c->warnings, &c->nwarnings,
				     "%s is a partial report (the run was still going at its last "
				     "checkpoint)",
				     path[i]);
		else if (side[i]->status != REPORT_COMPLETE)
			rc = add_str(&c->warnings, &c->nwarnings, "%s: the run was %s", path[i],
				     report_status_name(side[i]->status));
		if (!rc && side[i]->tool_name)
			rc = add_str(&c->warnings, &c->nwarnings,
				     "%s is a %s file: what it does not record is shown as '?'",
				     path[i], side[i]->tool_name);
	}
	return rc;
}

static void set_opts(struct comparison *c, const struct compare_opts *o)
{
	if (o)
		c->opts = *o;
	else
		compare_opts_default(&c->opts);
}

/* The comparison's own one-run "arrays": its a and b. */
static void one_run(struct comparison *c)
{
	c->runs_a = &c->a;
	c->runs_b = &c->b;
	c->paths_a = &c->path_a;
	c->paths_b = &c->path_b;
	c->nruns_a = c->nruns_b = 1;
}

int compare_build_runs(struct comparison *c, const struct report *const *a,
		       const char *const *path_a, size_t na, const struct report *const *b,
		       const char *const *path_b, size_t nb, const struct compare_opts *o)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->a = a[0];
	c->b = b[0];
	c->path_a = path_a[0];
	c->path_b = path_b[0];
	c->runs_a = a;
	c->runs_b = b;
	c->paths_a = path_a;
	c->paths_b = path_b;
	c->nruns_a = na;
	c->nruns_b = nb;
	set_opts(c, o);
	if ((rc = match_all(c, false)) || (rc = match_all(c, true)) || (rc = judge_all(c)) ||
	    (rc = differences(c)) || (rc = comparability(c)) || (rc = compare_checks_build(c)))
		return rc;
	if (na > 1 || nb > 1)
		return add_str(&c->warnings, &c->nwarnings,
			       "A and B are %zu and %zu separate runs, judged by the runs' values: "
			       "the noise between runs is in the test, a trend over time is not "
			       "(interleave them, A B A B ..., or use rtsoak ab)",
			       na, nb);
	/* Two runs one after the other: whatever changed between them in the
	 * meantime (temperature, other work, the page cache) is in the shift,
	 * and one run a side has no measure of how much runs differ: each
	 * run's own spread and drift stand in for it (issue 30), which a whole
	 * run's offset escapes. */
	return add_str(&c->warnings, &c->nwarnings,
		       "A and B are single runs: the noise between runs is not in the test "
		       "(each run's own spread and drift stand in for it, and what they cannot "
		       "separate is no verdict), and on a noisy machine a whole run's offset "
		       "can be the whole shift; give several runs a side (A1 A2 A3 A4 vs B1 B2 "
		       "B3 B4), or use rtsoak ab, which interleaves the arms' rounds and tests "
		       "for drift");
}

int compare_build(struct comparison *c, const struct report *a, const char *path_a,
		  const struct report *b, const char *path_b, const struct compare_opts *o)
{
	int rc = compare_build_runs(c, &a, &path_a, 1, &b, &path_b, 1, o);

	one_run(c); /* not the arguments' addresses, which die with this call */
	return rc;
}

/* ---------------------------------------------------------- ab -- */

/* The tweaks as a few lines: files that differ in one path component and
 * are set to the same value collapse into "N x /a/STAR/c: o1|o2|... -> v"
 * (STAR the '*' glob), sorted so that a group's files are neighbours:
 * O(n log n) for thousands of slab caches. */
struct tw {
	const char *path, *value;
	char *orig;
};

static int tw_cmp(const void *x, const void *y)
{
	const struct tw *a = x, *b = y;
	int c = strcmp(a->value, b->value);

	return c ? c : strcmp(a->path, b->path);
}

/* The path with component k replaced by '*' into buf, when a and b differ
 * in exactly that component (k < 0: find it); returns the component or -1. */
static int one_component(const char *a, const char *b, int k, char *buf, size_t len)
{
	int ca = 0, diff = -1;
	const char *pa = a, *pb = b;

	for (;;) {
		size_t la = strcspn(pa, "/"), lb = strcspn(pb, "/");
		if (la != lb || strncmp(pa, pb, la)) {
			if (diff >= 0)
				return -1;
			diff = ca;
		}
		if (!pa[la] || !pb[lb]) {
			if (pa[la] || pb[lb])
				return -1;
			break;
		}
		pa += la + 1;
		pb += lb + 1;
		ca++;
	}
	if (diff < 0 || (k >= 0 && diff != k))
		return -1;
	/* rebuild a with component diff as '*' */
	size_t o = 0;
	pa = a;
	for (int i = 0; o + 1 < len; i++) {
		size_t la = strcspn(pa, "/");
		int w = snprintf(buf + o, len - o, "%s%.*s", i ? "/" : "", i == diff ? 1 : (int)la,
				 i == diff ? "*" : pa);
		o += w > 0 ? (size_t)w : 0;
		if (!pa[la])
			break;
		pa += la + 1;
	}
	return diff;
}

static int tweak_lines(struct comparison *c, json_t *tweaks)
{
	size_t n = json_array_size(tweaks), i, k;
	struct tw *t = calloc(n + 1, sizeof(*t));
	json_t *x;
	int rc = 0;

	if (!t)
		return -ENOMEM;
	json_array_foreach (tweaks, i, x) {
		t[i].path = json_string_value(json_object_get(x, "path")) ?: "?";
		t[i].value = json_string_value(json_object_get(x, "value")) ?: "?";
		json_t *o = json_object_get(x, "original");
		t[i].orig = json_is_string(o) ? strdup(json_string_value(o))
					      : json_dumps(o, JSON_ENCODE_ANY | JSON_COMPACT);
	}
	qsort(t, n, sizeof(*t), tw_cmp);
	for (i = 0; !rc && i < n; i = k) {
		char pat[512], origs[160] = "";
		int comp = -1;
		size_t olen = 0, nor = 0;
		for (k = i + 1; k < n && !strcmp(t[k].value, t[i].value); k++) {
			char p2[512];
			int d = one_component(t[i].path, t[k].path, comp, p2, sizeof(p2));
			if (d < 0 || (comp >= 0 && strcmp(p2, pat)))
				break;
			comp = d;
			snprintf(pat, sizeof(pat), "%s", p2);
		}
		/* the distinct originals, a few of them */
		for (size_t q = i; q < k; q++) {
			const char *o = t[q].orig ? t[q].orig : "?";
			bool seen = false;
			for (size_t r = i; r < q && !seen; r++)
				seen = t[r].orig && !strcmp(t[r].orig, o);
			if (seen)
				continue;
			if (nor++ == 4 || olen + strlen(o) + 1 > 60) {
				snprintf(origs + olen, sizeof(origs) - olen, "|...");
				break;
			}
			olen += (size_t)snprintf(origs + olen, sizeof(origs) - olen, "%s%s",
						 olen ? "|" : "", o);
		}
		if (k - i > 1)
			rc = add_str(&c->tweak_lines, &c->ntweak_lines, "%zu x %s: %s -> %s", k - i,
				     pat, origs, t[i].value);
		else
			rc = add_str(&c->tweak_lines, &c->ntweak_lines, "%s: %s -> %s", t[i].path,
				     origs, t[i].value);
	}
	for (i = 0; i < n; i++)
		free(t[i].orig);
	free(t);
	return rc;
}

int compare_build_ab(struct comparison *c, const struct report *r, const char *path,
		     const struct compare_opts *o)
{
	json_t *t;
	size_t i;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	c->a = c->b = r;
	c->path_a = c->path_b = path;
	one_run(c);
	c->ab = true;
	/* Foreign packets may have bent one arm and not the other. */
	if (r->status == REPORT_DISTURBED &&
	    add_str(&c->warnings, &c->nwarnings, "%s: the run was disturbed (see its warnings)",
		    path) < 0)
		return -ENOMEM;
	set_opts(c, o);
	if (!(c->differences = json_array()))
		return -ENOMEM;
	for (int agg = 0; agg < 2 && !rc; agg++) {
		const struct report_result *v = agg ? r->aggregates : r->results;
		size_t n = agg ? r->naggregates : r->nresults;
		const struct report_result **ix = key_index(v, n);
		if (!ix)
			return -ENOMEM;
		for (i = 0; i < n && !rc; i++) {
			if (strcmp(v[i].phase, "A"))
				continue;
			struct report_result key = v[i];
			key.phase = "B";
			const struct report_result *b = find(ix, n, &key);
			if (b)
				rc = add_match(c, &v[i], b, agg);
		}
		free(ix);
	}
	if (!rc)
		rc = judge_all(c);
	/* What differs between the arms is the tweaks. */
	json_array_foreach (r->tweaks, i, t)
		if (!rc && util_json_push(c->differences,
					  json_pack("{s:s+, s:O, s:O}", "what", "tweak ",
						    json_string_value(json_object_get(t, "path")),
						    "a", json_object_get(t, "original"), "b",
						    json_object_get(t, "value"))))
			rc = -ENOMEM;
	return rc ? rc : tweak_lines(c, r->tweaks);
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void compare_free(struct comparison *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->m[i].causes);
		free(c->m[i].j);
		free(c->m[i].drift);
	}
	free(c->m);
	free_strs(c->only_a, c->nonly_a);
	free_strs(c->only_b, c->nonly_b);
	free_strs(c->warnings, c->nwarnings);
	free_strs(c->tweak_lines, c->ntweak_lines);
	json_decref(c->differences);
	free(c->checks);
	memset(c, 0, sizeof(*c));
}

/* ------------------------------------------------------- --fail-if -- */

int compare_limit_parse(const char *text, bool raw, struct compare_limit *out, char *err,
			size_t errlen)
{
	const char *gt = strchr(text, '>'), *amount;
	char name[16], perr[160];
	size_t len;
	double sign = 1;

	memset(out, 0, sizeof(*out));
	out->raw = raw;
	snprintf(out->text, sizeof(out->text), "%s", text);
	if (!gt || gt == text || (len = (size_t)(gt - text)) >= sizeof(name)) {
		snprintf(err, errlen,
			 "%s '%s': expected STAT>CHANGE, e.g. p99.9>+10%% or max>+50us",
			 raw ? "--fail-if-raw" : "--fail-if", text);
		return -EINVAL;
	}
	memcpy(name, text, len);
	name[len] = 0;
	for (out->stat = 0; out->stat < COMPARE_NSTATS; out->stat++)
		if (!strcmp(name, compare_stat_name[out->stat]))
			break;
	if (out->stat == COMPARE_NSTATS) {
		snprintf(err, errlen,
			 "%s '%s': unknown statistic '%s' (count, min, mean, p50, p90, "
			 "p99, p99.9, p99.99, p99.999, max, missed)",
			 raw ? "--fail-if-raw" : "--fail-if", text, name);
		return -EINVAL;
	}
	amount = gt + 1;
	if (*amount == '+' || *amount == '-')
		sign = *amount++ == '-' ? -1 : 1;
	len = strlen(amount);
	if (len && amount[len - 1] == '%') {
		char num[32], *end;
		if (len - 1 >= sizeof(num))
			goto bad;
		memcpy(num, amount, len - 1);
		num[len - 1] = 0;
		errno = 0;
		out->amount = strtod(num, &end);
		if (!len || end == num || *end || errno || !isfinite(out->amount) ||
		    out->amount < 0)
			goto bad;
		out->relative = true;
		out->amount *= sign;
		return 0;
	}
	if (out->stat == COMPARE_COUNT || out->stat == COMPARE_MISSED) {
		uint64_t v;
		if (parse_u64(amount, 0, UINT64_MAX, &v, perr, sizeof(perr)))
			goto bad;
		out->amount = sign * (double)v;
		return 0;
	}
	{
		uint64_t ns;
		/* A bare number is in microseconds, as everywhere on rtsoak's command line. */
		if (!strcmp(amount, "0"))
			ns = 0;
		else if (parse_duration(amount, 1000, &ns, perr, sizeof(perr)))
			goto bad;
		out->amount = sign * (double)ns;
	}
	return 0;
bad:
	snprintf(err, errlen,
		 "%s '%s': the change must be a signed amount with a unit or %%, e.g. "
		 "+10%%, -5%%, +50us, +1ms%s",
		 raw ? "--fail-if-raw" : "--fail-if", text,
		 out->stat == COMPARE_COUNT || out->stat == COMPARE_MISSED ? " (or a count)" : "");
	return -EINVAL;
}

bool compare_limit_broken(const struct compare_limit *l, const struct compare_match *m,
			  bool *checkable, bool *evidence)
{
	const struct compare_value *v = &m->v[l->stat];
	const struct compare_judgement *j;
	double change, limit;

	if (evidence)
		*evidence = false;
	*checkable = v->known;
	if (!*checkable)
		return false;
	/* count, min, mean and missed have no noise model here: raw. */
	if (l->raw || !compare_stat_judgeable(l->stat)) {
		if (evidence)
			*evidence = true;
		/* From zero, any rise is an infinite relative change. */
		if (l->relative && v->a == 0)
			return v->b > 0;
		change = l->relative ? v->change_pct : (double)v->b - (double)v->a;
		return change > l->amount;
	}
	/* With evidence: the whole confidence interval of the change lies
	 * beyond the limit, a % limit taken of A's typical unit value.  A
	 * statistic with no verdict (issue 30: one run a side cannot separate
	 * it) has no evidence either way, as an untested one. */
	j = compare_judged(m, l->stat);
	if (!j || j->verdict == COMPARE_UNTESTED || j->verdict == COMPARE_NO_VERDICT || !j->ci)
		return false;
	if (evidence)
		*evidence = true;
	limit = l->relative ? l->amount / 100.0 * j->ref_ns : l->amount;
	return j->lo_ns > limit;
}

void compare_where(char *buf, size_t len, const struct compare_match *m)
{
	char probe[4 * REPORT_NAME_MAX + 1], phase[4 * REPORT_NAME_MAX + 1];
	char all[sizeof(probe) + sizeof(phase) + 32];

	util_escape(m->a->probe, probe, sizeof(probe));
	util_escape(m->a->phase, phase, sizeof(phase));
	if (m->ab)
		snprintf(phase, sizeof(phase), "B vs A");
	if (m->aggregate)
		snprintf(all, sizeof(all), "%s all CPUs (%s)", probe, phase);
	else
		snprintf(all, sizeof(all), "%s cpu %d (%s)", probe, m->a->cpu, phase);
	/* Cut to the caller's room, as before. */
	size_t n = strlen(all) < len ? strlen(all) : len - 1;
	memcpy(buf, all, n);
	buf[n] = '\0';
}
