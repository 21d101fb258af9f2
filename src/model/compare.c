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
#include "compare.h"
#include "parse.h"
#include "stats.h"
#include "util.h"

const char *const compare_verdict_name[] = { "no significant difference", "better", "worse",
					     "not tested" };
const char *const compare_method_name[] = { "intervals", "rounds", "order-statistics", "none" };

const char *const compare_stat_name[COMPARE_NSTATS] = {
	"count", "min", "mean", "p50", "p90", "p99", "p99.9", "p99.99", "p99.999", "max", "missed",
};

/* Fewer units than this per side cannot carry a rank test. */
#define MIN_UNITS 5
/* Thinning stops when a side would have fewer blocks than this. */
#define MIN_BLOCKS 10

static int add_str(char ***v, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int add_str(char ***v, size_t *n, const char *fmt, ...)
{
	char **a = realloc(*v, (*n + 1) * sizeof(**v));
	va_list ap;

	if (!a)
		return -ENOMEM;
	*v = a;
	va_start(ap, fmt);
	int rc = vasprintf(&a[*n], fmt, ap);
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

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

static const struct report_series *find_series(const struct report *r, const char *probe, int cpu)
{
	for (size_t i = 0; i < r->nseries; i++)
		if (r->series[i].cpu == cpu && !strcmp(r->series[i].probe, probe))
			return &r->series[i];
	return NULL;
}

static size_t config_phases(const struct report *r)
{
	return json_array_size(json_object_get(r->config, "phases"));
}

/* The per-interval maxima behind a match, in *out (malloc'd), or 0 when
 * there is no usable series.  An aggregate takes the largest over its
 * CPUs' series interval by interval.  Intervals with fewer than half the
 * median sample count (the partial last one, a stall) are left out: their
 * max is biased low. */
static size_t interval_maxima(const struct report *r, const struct report_result *res,
			      uint64_t *interval_ns, double **out)
{
	const struct report_series *one[1], **ser = one;
	size_t nser = 0, n = SIZE_MAX, k = 0;
	double *max = NULL;
	uint64_t *cnt = NULL;

	*out = NULL;
	/* Series span every phase: they stand for a phase's result only when
	 * it is "all" or the run had a single phase. */
	if (strcmp(res->phase, "all") && config_phases(r) > 1)
		return 0;
	if (res->cpu != REPORT_CPU_ALL) {
		if (!(one[0] = find_series(r, res->probe, res->cpu)))
			return 0;
		nser = 1;
	} else {
		ser = calloc(r->nseries ? r->nseries : 1, sizeof(*ser));
		if (!ser)
			return 0;
		for (size_t i = 0; i < r->nseries; i++)
			if (!strcmp(r->series[i].probe, res->probe))
				ser[nser++] = &r->series[i];
	}
	for (size_t i = 0; i < nser; i++) {
		if (ser[i]->interval_ns != ser[0]->interval_ns)
			nser = 0; /* CPUs merged differently: no common grid */
		else if (ser[i]->n < n)
			n = ser[i]->n;
	}
	if (!nser || !n || n == SIZE_MAX || !(max = calloc(n, sizeof(*max))) ||
	    !(cnt = calloc(n, sizeof(*cnt))))
		goto out;
	for (size_t i = 0; i < nser; i++)
		for (size_t j = 0; j < n; j++) {
			if ((double)ser[i]->v[j].max_ns > max[j])
				max[j] = (double)ser[i]->v[j].max_ns;
			cnt[j] += ser[i]->v[j].count;
		}
	/* median count, by a sorted copy */
	uint64_t *sorted = malloc(n * sizeof(*sorted)), med;
	if (!sorted)
		goto out;
	memcpy(sorted, cnt, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	med = sorted[n / 2];
	free(sorted);
	for (size_t j = 0; j < n; j++)
		if (cnt[j] && 2 * cnt[j] >= med)
			max[k++] = max[j];
	*interval_ns = ser[0]->interval_ns;
	*out = max;
	max = NULL;
out:
	free(max);
	free(cnt);
	if (ser != one)
		free(ser);
	return *out ? k : 0;
}

static void set_verdict(struct compare_match *m, const struct stats_shift *st)
{
	m->shift_ns = st->shift;
	m->lo_ns = st->lo;
	m->hi_ns = st->hi;
	m->p = st->p;
	m->ci = st->ci;
	m->na = st->na;
	m->nb = st->nb;
	m->verdict = COMPARE_SAME;
	/* Significant only when the rank test rejects and the interval for the
	 * shift excludes zero: the two agree except at the boundary. */
	if (st->ci && st->p < COMPARE_ALPHA && st->lo > 0)
		m->verdict = COMPARE_WORSE;
	else if (st->ci && st->p < COMPARE_ALPHA && st->hi < 0)
		m->verdict = COMPARE_BETTER;
}

/* Verdict from interval maxima.  Returns 1 when it applied, 0 when the
 * series do not allow it, -ENOMEM. */
static int by_intervals(struct compare_match *m, const struct report *ra, const struct report *rb)
{
	double *a, *b;
	uint64_t ia = 0, ib = 0;
	size_t na = interval_maxima(ra, m->a, &ia, &a);
	size_t nb = interval_maxima(rb, m->b, &ib, &b);
	size_t block = 1;
	double r1 = 0;
	struct stats_shift st;
	int rc = 0;

	if (na < MIN_UNITS || nb < MIN_UNITS)
		goto out;
	/* Different series intervals (a longer run merged pairs): bring the
	 * finer one onto the coarser grid when one is a multiple of the other. */
	if (ia != ib) {
		uint64_t big = ia > ib ? ia : ib, small = ia > ib ? ib : ia;
		if (big % small)
			goto out;
		if (ia < ib)
			na = stats_block_max(a, na, big / small);
		else
			nb = stats_block_max(b, nb, big / small);
		if (na < MIN_UNITS || nb < MIN_UNITS)
			goto out;
	}
	/* Thin out while neighbouring maxima are still correlated: a rank
	 * test over dependent units claims more certainty than it has. */
	for (;;) {
		double ra1 = fabs(stats_autocorr1(a, na)), rb1 = fabs(stats_autocorr1(b, nb));
		size_t nmin = na < nb ? na : nb;
		r1 = ra1 > rb1 ? ra1 : rb1;
		if (r1 <= 2.0 / sqrt((double)nmin) || nmin / 2 < MIN_BLOCKS)
			break;
		na = stats_block_max(a, na, 2);
		nb = stats_block_max(b, nb, 2);
		block *= 2;
	}
	if ((rc = stats_shift(a, na, b, nb, COMPARE_CONF, &st)) < 0)
		goto out;
	set_verdict(m, &st);
	m->method = COMPARE_BY_INTERVALS;
	m->unit_ns = (ia > ib ? ia : ib) * block;
	if (block > 1)
		snprintf(m->note, sizeof(m->note),
			 "maxima of %zu-interval blocks (neighbouring intervals were correlated)",
			 block);
	if (r1 > 2.0 / sqrt((double)(na < nb ? na : nb)))
		snprintf(m->note, sizeof(m->note),
			 "interval maxima still correlated (lag-1 %.2f): the test is optimistic",
			 r1);
	rc = 1;
out:
	free(a);
	free(b);
	return rc;
}

/* Fallback: p99's order-statistic confidence interval in each run.  The
 * shift's interval is the conservative difference of the two. */
static void by_order(struct compare_match *m)
{
	const struct report_result *a = m->a, *b = m->b;
	uint64_t lo[2], hi[2], rlo, rhi;
	bool reached[2];
	const struct report_result *side[2] = { a, b };

	m->method = COMPARE_BY_ORDER;
	for (int i = 0; i < 2; i++) {
		const struct report_result *s = side[i];
		if (!s->count || !s->hist || (s->unknown & REPORT_UNKNOWN_PCT)) {
			m->method = COMPARE_BY_NOTHING;
			m->verdict = COMPARE_UNTESTED;
			snprintf(m->note, sizeof(m->note), "%s: %s", i ? "B" : "A",
				 !s->count ? "no samples" : "no histogram (percentiles unknown)");
			return;
		}
		stats_quantile_ranks(s->count, 0.99, COMPARE_CONF, &rlo, &rhi, &reached[i]);
		uint64_t dummy;
		histogram_sparse_rank_bounds(s->hist, rlo, s->min, s->max, &lo[i], &dummy);
		histogram_sparse_rank_bounds(s->hist, rhi, s->min, s->max, &dummy, &hi[i]);
	}
	m->shift_ns = (double)b->pct[2] - (double)a->pct[2];
	m->lo_ns = (double)lo[1] - (double)hi[0];
	m->hi_ns = (double)hi[1] - (double)lo[0];
	m->ci = reached[0] && reached[1];
	m->p = -1; /* no p-value: the intervals decide */
	m->na = a->count;
	m->nb = b->count;
	m->verdict = !m->ci	     ? COMPARE_SAME
		     : lo[1] > hi[0] ? COMPARE_WORSE
		     : hi[1] < lo[0] ? COMPARE_BETTER
				     : COMPARE_SAME;
	snprintf(m->note, sizeof(m->note),
		 "no time series: p99 intervals from order statistics, which take samples as "
		 "independent (they are not): optimistic");
	if (!m->ci)
		snprintf(m->note, sizeof(m->note), "too few samples for a 95 %% interval of p99");
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
	struct compare_match *v = realloc(c->m, (c->n + 1) * sizeof(*v)), *m;
	int rc;

	if (!v)
		return -ENOMEM;
	c->m = v;
	m = &v[c->n++];
	memset(m, 0, sizeof(*m));
	m->a = a;
	m->b = b;
	m->aggregate = aggregate;
	fill_values(m);
	if (!aggregate && (rc = match_causes(m, c->a, c->b)))
		return rc;
	if (!a->count || !b->count) {
		m->verdict = COMPARE_UNTESTED;
		m->method = COMPARE_BY_NOTHING;
		snprintf(m->note, sizeof(m->note), "no samples in %s",
			 !a->count && !b->count ? "either"
			 : !a->count		? "A"
						: "B");
		return 0;
	}
	rc = by_intervals(m, c->a, c->b);
	if (rc < 0)
		return rc;
	if (rc == 0)
		by_order(m);
	return 0;
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
 * whole: a list of probes is one value). */
static void flatten(json_t *flat, const char *prefix, json_t *v)
{
	const char *k;
	json_t *x;
	size_t i;
	char key[512];

	if (json_is_object(v)) {
		json_object_foreach (v, k, x) {
			snprintf(key, sizeof(key), "%s.%s", prefix, k);
			flatten(flat, key, x);
		}
	} else if (json_is_array(v) && json_array_size(v) &&
		   (json_is_object(json_array_get(v, 0)) || json_is_array(json_array_get(v, 0)))) {
		json_array_foreach (v, i, x) {
			snprintf(key, sizeof(key), "%s[%zu]", prefix, i);
			flatten(flat, key, x);
		}
	} else {
		json_object_set(flat, prefix, v);
	}
}

/* Config keys that say where output went, not what was measured. */
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
	return false;
}

static int differences(struct comparison *c)
{
	json_t *fa = json_object(), *fb = json_object(), *d = json_array(), *x;
	const char *k;

	if (!fa || !fb || !d)
		goto nomem;
	flatten(fa, "system", c->a->system);
	flatten(fb, "system", c->b->system);
	flatten(fa, "config", c->a->config);
	flatten(fb, "config", c->b->config);
	json_object_foreach (fa, k, x) {
		json_t *y = json_object_get(fb, k);
		if (ignored(k) || (y && json_equal(x, y)))
			continue;
		/* A cyclictest file records little: what it does not say did not
		 * change, it is unknown (the warnings say so). */
		if (!y && c->b->tool_name)
			continue;
		json_array_append_new(
		    d, json_pack("{s:s, s:O, s:O}", "what", k, "a", x, "b", y ? y : json_null()));
	}
	json_object_foreach (fb, k, x)
		if (!ignored(k) && !json_object_get(fa, k) && !c->a->tool_name)
			json_array_append_new(d,
					      json_pack("{s:s, s:n, s:O}", "what", k, "a", "b", x));
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

/* Runs that measured different things: a verdict still comes out, but the
 * reader should know. */
static int comparability(struct comparison *c)
{
	static const char *const keys[] = { "probes", "cpus",	  "interval_ns", "loads",
					    "policy", "priority", NULL };
	int rc = 0;

	for (int i = 0; !rc && keys[i]; i++) {
		json_t *a = json_object_get(c->a->config, keys[i]);
		json_t *b = json_object_get(c->b->config, keys[i]);
		if (!a || !b || json_equal(a, b))
			continue;
		char *sa = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY);
		char *sb = json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY);
		rc = add_str(&c->warnings, &c->nwarnings,
			     "not comparable: %s differs (A %.80s, B %.80s)", keys[i],
			     sa ? sa : "?", sb ? sb : "?");
		free(sa);
		free(sb);
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

int compare_build(struct comparison *c, const struct report *a, const char *path_a,
		  const struct report *b, const char *path_b)
{
	int rc;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->b = b;
	c->path_a = path_a;
	c->path_b = path_b;
	if ((rc = match_all(c, false)) || (rc = match_all(c, true)) || (rc = differences(c)) ||
	    (rc = comparability(c)))
		return rc;
	return 0;
}

/* ---------------------------------------------------------- ab -- */

static bool is_round_of(const char *phase, char arm)
{
	return phase[0] == arm && phase[1] >= '1' && phase[1] <= '9';
}

/* p99 of each round of one arm, for (probe, cpu) of res. */
static size_t round_values(const struct report *r, const struct report_result *res, char arm,
			   double *out, size_t max)
{
	const struct report_result *v = res->cpu == REPORT_CPU_ALL ? r->aggregates : r->results;
	size_t n = res->cpu == REPORT_CPU_ALL ? r->naggregates : r->nresults, k = 0;

	for (size_t i = 0; i < n && k < max; i++)
		if (v[i].cpu == res->cpu && !strcmp(v[i].probe, res->probe) &&
		    is_round_of(v[i].phase, arm) && v[i].count &&
		    !(v[i].unknown & REPORT_UNKNOWN_PCT))
			out[k++] = (double)v[i].pct[2];
	return k;
}

/* Per-round p99 of the B rounds against the A rounds: rounds, not
 * samples, are the independent units of an A/B experiment. */
static int by_rounds(struct compare_match *m, const struct report *r)
{
	double a[RECORDER_MAX_PHASES], b[RECORDER_MAX_PHASES];
	size_t na = round_values(r, m->a, 'A', a, RECORDER_MAX_PHASES);
	size_t nb = round_values(r, m->b, 'B', b, RECORDER_MAX_PHASES);
	struct stats_shift st;
	int rc;

	m->method = COMPARE_BY_ROUNDS;
	if (na < 2 || nb < 2) {
		m->verdict = COMPARE_UNTESTED;
		snprintf(m->note, sizeof(m->note), "fewer than 2 rounds with samples per arm");
		return 0;
	}
	if ((rc = stats_shift(a, na, b, nb, COMPARE_CONF, &st)) < 0)
		return rc;
	set_verdict(m, &st);
	snprintf(m->note, sizeof(m->note), "per-round p99%s",
		 na < 4 || nb < 4 ? "; fewer than 4 rounds per arm can never reach p < 0.05" : "");
	return 0;
}

int compare_build_ab(struct comparison *c, const struct report *r, const char *path)
{
	json_t *t;
	size_t i;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	c->a = c->b = r;
	c->path_a = c->path_b = path;
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
			struct compare_match *mv;
			if (!b)
				continue;
			if (!(mv = realloc(c->m, (c->n + 1) * sizeof(*mv)))) {
				free(ix);
				return -ENOMEM;
			}
			c->m = mv;
			memset(&mv[c->n], 0, sizeof(*mv));
			mv[c->n].a = &v[i];
			mv[c->n].b = b;
			mv[c->n].aggregate = agg;
			fill_values(&mv[c->n]);
			rc = by_rounds(&mv[c->n++], r);
		}
		free(ix);
	}
	/* What differs between the arms is the tweaks. */
	json_array_foreach (r->tweaks, i, t)
		json_array_append_new(c->differences,
				      json_pack("{s:s+, s:O, s:O}", "what", "tweak ",
						json_string_value(json_object_get(t, "path")), "a",
						json_object_get(t, "original"), "b",
						json_object_get(t, "value")));
	return rc;
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void compare_free(struct comparison *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->m[i].causes);
	free(c->m);
	free_strs(c->only_a, c->nonly_a);
	free_strs(c->only_b, c->nonly_b);
	free_strs(c->warnings, c->nwarnings);
	json_decref(c->differences);
	memset(c, 0, sizeof(*c));
}

/* ------------------------------------------------------- --fail-if -- */

int compare_limit_parse(const char *text, struct compare_limit *out, char *err, size_t errlen)
{
	const char *gt = strchr(text, '>'), *amount;
	char name[16], perr[160];
	size_t len;
	double sign = 1;

	memset(out, 0, sizeof(*out));
	snprintf(out->text, sizeof(out->text), "%s", text);
	if (!gt || gt == text || (len = (size_t)(gt - text)) >= sizeof(name)) {
		snprintf(err, errlen,
			 "--fail-if '%s': expected STAT>CHANGE, e.g. p99.9>+10%% or max>+50us",
			 text);
		return -EINVAL;
	}
	memcpy(name, text, len);
	name[len] = 0;
	for (out->stat = 0; out->stat < COMPARE_NSTATS; out->stat++)
		if (!strcmp(name, compare_stat_name[out->stat]))
			break;
	if (out->stat == COMPARE_NSTATS) {
		snprintf(err, errlen,
			 "--fail-if '%s': unknown statistic '%s' (count, min, mean, p50, p90, "
			 "p99, p99.9, p99.99, p99.999, max, missed)",
			 text, name);
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
		 "--fail-if '%s': the change must be a signed amount with a unit or %%, e.g. "
		 "+10%%, -5%%, +50us, +1ms%s",
		 text,
		 out->stat == COMPARE_COUNT || out->stat == COMPARE_MISSED ? " (or a count)" : "");
	return -EINVAL;
}

bool compare_limit_broken(const struct compare_limit *l, const struct compare_match *m,
			  bool *checkable)
{
	const struct compare_value *v = &m->v[l->stat];
	double change;

	*checkable = v->known;
	if (!*checkable)
		return false;
	/* From zero, any rise is an infinite relative change. */
	if (l->relative && v->a == 0)
		return v->b > 0;
	change = l->relative ? v->change_pct : (double)v->b - (double)v->a;
	return change > l->amount;
}

void compare_where(char *buf, size_t len, const struct compare_match *m)
{
	char probe[4 * REPORT_NAME_MAX + 1], phase[4 * REPORT_NAME_MAX + 1];
	char all[sizeof(probe) + sizeof(phase) + 32];

	util_escape(m->a->probe, probe, sizeof(probe));
	util_escape(m->a->phase, phase, sizeof(phase));
	if (m->aggregate)
		snprintf(all, sizeof(all), "%s all CPUs (%s)", probe, phase);
	else
		snprintf(all, sizeof(all), "%s cpu %d (%s)", probe, m->a->cpu, phase);
	/* Cut to the caller's room, as before. */
	size_t n = strlen(all) < len ? strlen(all) : len - 1;
	memcpy(buf, all, n);
	buf[n] = '\0';
}
