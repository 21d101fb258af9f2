// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the comparison engine's matching (reports/compare.c):
 * results pair by (probe, cpu, phase) whatever their order, what one side
 * lacks lands in only_a / only_b, aggregates pair with aggregates, and the
 * verdict on clearly different interval maxima is worse one way and
 * better the other, no difference against itself, untested without
 * samples (the verdict on max alone: these results have no histogram, so
 * the default verdict on p99 and max is untested, which is checked too).
 * The reports are built in memory with report.h's own
 * constructors, plus tests/data/report-small.json read twice. */
#include <config.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "report.h"
#include "tap.h"
#include "views.h"

#define NINT 60 /* intervals per series: enough for the rank test, no blocks */

/* A result with count samples whose statistics all sit near lat_ns. */
static struct report_result *result(struct report *r, bool aggregate, const char *probe, int cpu,
				    const char *phase, uint64_t count, uint64_t lat_ns)
{
	struct report_result *res = report_add_result(r, aggregate, probe, cpu, phase);

	if (!res)
		abort();
	res->count = count;
	res->min = lat_ns / 2;
	res->mean = lat_ns;
	res->max = 2 * lat_ns;
	for (int i = 0; i < REPORT_NPCT; i++)
		res->pct[i] = lat_ns + (uint64_t)i;
	res->unknown = 0;
	return res;
}

/* A 1 s series for (probe, cpu): NINT intervals of 1000 samples whose
 * maxima are lat_ns plus independent noise of up to 10 %. */
static void series(struct report *r, const char *probe, int cpu, uint64_t lat_ns)
{
	struct report_series *s = report_add_series(r, probe, cpu);

	struct series_interval iv[NINT];

	if (!s)
		abort();
	s->interval_ns = 1000000000ull;
	for (size_t i = 0; i < NINT; i++)
		iv[i] = (struct series_interval){ .count = 1000,
						  .max_ns = lat_ns + tap_rnd() % (lat_ns / 10) };
	if (report_series_fill(s, iv, NINT))
		abort();
}

/* A: timer on CPUs 0 and 1 (phases idle and slab on CPU 0), net on CPU 0.
 * B: the same timer results in another order, no net, timer on CPU 2.
 * B's timer on CPU 0 is 5x slower, with a series to show it. */
static void build(struct report *a, struct report *b, uint64_t b_lat)
{
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	result(a, false, "timer", 0, "idle", 40000, 100000);
	result(a, false, "timer", 0, "slab", 40000, 300000);
	result(a, false, "timer", 1, "all", 40000, 100000);
	result(a, false, "net", 0, "all", 40000, 20000);
	result(a, true, "timer", REPORT_CPU_ALL, "all", 80000, 100000);
	result(a, true, "net", REPORT_CPU_ALL, "all", 40000, 20000);
	series(a, "timer", 0, 100000);
	series(a, "timer", 1, 100000);

	result(b, false, "timer", 2, "all", 40000, 100000);
	result(b, false, "timer", 1, "all", 40000, 100000);
	result(b, false, "timer", 0, "slab", 40000, b_lat + 200000);
	result(b, false, "timer", 0, "idle", 40000, b_lat);
	result(b, true, "timer", REPORT_CPU_ALL, "all", 120000, b_lat);
	series(b, "timer", 0, b_lat);
	series(b, "timer", 1, 100000);
	series(b, "timer", 2, 100000);
}

static const struct compare_match *match_of(const struct comparison *c, bool aggregate,
					    const char *probe, int cpu, const char *phase)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct report_result *x = c->m[i].a;
		if (c->m[i].aggregate == aggregate && x->cpu == cpu && !strcmp(x->probe, probe) &&
		    !strcmp(x->phase, phase))
			return &c->m[i];
	}
	return NULL;
}

static bool same_key(const struct report_result *x, const struct report_result *y)
{
	return x->cpu == y->cpu && !strcmp(x->probe, y->probe) && !strcmp(x->phase, y->phase);
}

/* Every match pairs a result of A's array with one of B's, of one key. */
static bool pairs_are_sound(const struct comparison *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct compare_match *m = &c->m[i];
		const struct report *a = c->a, *b = c->b;
		const struct report_result *va = m->aggregate ? a->aggregates : a->results;
		const struct report_result *vb = m->aggregate ? b->aggregates : b->results;
		size_t na = m->aggregate ? a->naggregates : a->nresults;
		size_t nb = m->aggregate ? b->naggregates : b->nresults;
		if (m->a < va || m->a >= va + na || m->b < vb || m->b >= vb + nb ||
		    !same_key(m->a, m->b))
			return false;
	}
	return true;
}

static bool lists(char **v, size_t n, const char *want)
{
	return n == 1 && !strcmp(v[0], want);
}

/* The fixtures live in the source tree: $top_srcdir (set by `make check`)
 * or relative to this file's own path. */
static bool find_small(char *path, size_t len)
{
	const char *top = getenv("top_srcdir");
	char *cut;

	if (top) {
		snprintf(path, len, "%s/tests/data/report-small.json", top);
		return true;
	}
	snprintf(path, len, "%s", __FILE__);
	if (!(cut = strstr(path, "tests/unit/")))
		return false;
	snprintf(cut, len - (size_t)(cut - path), "tests/data/report-small.json");
	return true;
}

int main(void)
{
	struct report a, b, s1, s2;
	struct comparison c;
	const struct compare_match *m;
	const struct compare_judgement *j;
	struct compare_opts on_max;
	char path[600], err[256];
	bool all_same = true;
	int rc;

	tap_plan(18);
	tap_rnd_seed(13);
	compare_opts_default(&on_max);
	if (compare_opts_verdict_on(&on_max, "max", err, sizeof(err)))
		abort();

	build(&a, &b, 500000);
	rc = compare_build(&c, &a, "a.json", &b, "b.json", &on_max);
	ok(rc == 0, "compare_build_succeeds");
	ok(pairs_are_sound(&c), "compare_match_pairs_one_key_a_with_b");
	m = match_of(&c, false, "timer", 0, "idle");
	ok(m && m->b == &b.results[3], "compare_match_finds_b_in_another_order");
	m = match_of(&c, false, "timer", 0, "slab");
	ok(m && m->b == &b.results[2], "compare_match_tells_phases_apart");
	ok(c.n == 4 && match_of(&c, false, "timer", 1, "all") &&
	       match_of(&c, true, "timer", REPORT_CPU_ALL, "all"),
	   "compare_match_results_and_aggregates_separately");
	ok(c.nonly_a == 2 && !strcmp(c.only_a[0], "net cpu 0 (all)") &&
	       !strcmp(c.only_a[1], "net all CPUs (all)"),
	   "compare_match_only_in_a");
	ok(lists(c.only_b, c.nonly_b, "timer cpu 2 (all)"), "compare_match_only_in_b");

	m = match_of(&c, false, "timer", 0, "idle");
	j = m ? compare_judged(m, COMPARE_MAX) : NULL;
	ok(m && m->method == COMPARE_BY_INTERVALS && m->verdict == COMPARE_WORSE && j &&
	       j->method == COMPARE_BY_INTERVALS && j->verdict == COMPARE_WORSE && j->p < 0.05 &&
	       j->lo_ns > 0,
	   "compare_verdict_worse_on_5x_interval_maxima");
	ok(m && m->v[COMPARE_MAX].known && m->v[COMPARE_MAX].a == 200000 &&
	       m->v[COMPARE_MAX].b == 1000000 && m->v[COMPARE_MAX].change_pct == 400.0,
	   "compare_values_and_change_in_percent");
	m = match_of(&c, false, "timer", 1, "all");
	ok(m && m->method == COMPARE_BY_INTERVALS && m->verdict == COMPARE_SAME,
	   "compare_verdict_same_on_like_maxima");
	compare_free(&c);

	rc = compare_build(&c, &b, "b.json", &a, "a.json", &on_max);
	m = match_of(&c, false, "timer", 0, "idle");
	j = m ? compare_judged(m, COMPARE_MAX) : NULL;
	ok(rc == 0 && m && m->verdict == COMPARE_BETTER && j && j->hi_ns < 0,
	   "compare_verdict_better_the_other_way");
	compare_free(&c);

	/* The default verdict is on p99 and max: these results have no
	 * histogram, so p99 cannot be tested; max, 5x worse, is the answer
	 * (a regression is not hidden behind what cannot be judged), and the
	 * reason names what was not tested. */
	rc = compare_build(&c, &a, "a.json", &b, "b.json", NULL);
	m = match_of(&c, false, "timer", 0, "idle");
	ok(rc == 0 && m && m->verdict == COMPARE_WORSE && strstr(m->reason, "max worse") &&
	       strstr(m->reason, "p99 not tested"),
	   "compare_default_verdict_worse_on_max_p99_not_tested (%s)", m ? m->reason : "-");
	compare_free(&c);

	/* No series for net: the order-statistic fallback, which needs a
	 * histogram; without one the match is untested and says why. */
	rc = compare_build(&c, &a, "a.json", &a, "a.json", NULL);
	m = match_of(&c, false, "net", 0, "all");
	ok(rc == 0 && m && m->verdict == COMPARE_UNTESTED && m->method == COMPARE_BY_NOTHING &&
	       strstr(m->note, "no histogram"),
	   "compare_untested_without_series_or_histogram");
	ok(c.nonly_a == 0 && c.nonly_b == 0 && c.n == 6, "compare_self_matches_everything");
	compare_free(&c);
	b.results[1].count = 0;
	rc = compare_build(&c, &a, "a.json", &b, "b.json", NULL);
	m = match_of(&c, false, "timer", 1, "all");
	ok(rc == 0 && m && m->verdict == COMPARE_UNTESTED && !strcmp(m->note, "no samples in B") &&
	       !m->v[COMPARE_MAX].known,
	   "compare_untested_without_samples");
	compare_free(&c);
	report_free(&a);
	report_free(&b);

	/* A real report against itself: every result matched, none better or
	 * worse. */
	if (!find_small(path, sizeof(path)) || report_json_read(path, &s1, err, sizeof(err)) ||
	    report_json_read(path, &s2, err, sizeof(err))) {
		for (int i = 0; i < 3; i++)
			ok(1, "# SKIP report-small.json not found (set top_srcdir): %s", err);
		return tap_done();
	}
	rc = compare_build(&c, &s1, path, &s2, path, NULL);
	ok(rc == 0 && c.n == s1.nresults + s1.naggregates && c.nonly_a == 0 && c.nonly_b == 0 &&
	       pairs_are_sound(&c),
	   "compare_report_small_matches_itself_whole");
	for (size_t i = 0; i < c.n; i++)
		if (c.m[i].verdict == COMPARE_BETTER || c.m[i].verdict == COMPARE_WORSE)
			all_same = false;
	ok(rc == 0 && all_same, "compare_report_small_no_verdict_against_itself");
	ok(rc == 0 && json_array_size(c.differences) == 0, "compare_report_small_no_differences");
	compare_free(&c);
	report_free(&s1);
	report_free(&s2);
	return tap_done();
}
