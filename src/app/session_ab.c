// SPDX-License-Identifier: GPL-2.0-or-later
/* session_ab: what `rtsoak ab` adds to a run.  Its phases are the rounds
 * (phase.c names them A1, B1, B2, A2, ... in ABBA order); here the tweaks
 * are applied at the switch into a B round and restored at the switch back,
 * the verdict of B against A is built from the per-round values into the
 * report (every statistic by its rounds, drift within each arm), and the
 * comparison is printed and its --fail-if limits (with evidence, or raw)
 * give the exit status. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "exit.h"
#include "session_internal.h"
#include "tweak.h"
#include "views.h"

/* ab: tweaks change at the end of the old round, so the disturbance of the
 * writes lands in A and B rounds alike (ABBA).  Called before the switch to
 * phase `next`; returns 0, or -1 when the tweaks could not be applied or
 * restored (said, and in the report: the run ends there). */
int session_ab_switch(struct session *s, struct report *r, unsigned next)
{
	char err[1024];
	int rc;

	if (phase_ab_arm(&s->phases, next) == phase_ab_arm(&s->phases, s->phases.current))
		return 0;
	if (phase_ab_arm(&s->phases, next) == 'B')
		rc = tweak_apply(&s->cfg->tweaks, err, sizeof(err));
	else
		rc = tweak_unapply(&s->cfg->tweaks, err, sizeof(err));
	if (rc < 0) {
		progress_done(&s->prog);
		rtsoak_error("ab: round %s: %s", s->phases.name[next], err);
		report_warn(r, "ab: round %s: %s; the run ended there", s->phases.name[next], err);
		s->tweak_failed = true;
		return -1;
	}
	return 0;
}

/* ab: a switch into round `next` began (counting stopped) at run time
 * `start` and ended at `end`.  The time between is in no arm's counts but
 * in the ending round's occurrence (phases[]), so the report keeps it
 * (ab.switches), and a switch that takes a tenth of a round or more (a
 * journal's fsync on a busy disk, a slow sysfs write) is a warning: that
 * round counted that much less. */
void session_ab_note_switch(struct session *s, struct report *r, unsigned next, uint64_t start,
			    uint64_t end)
{
	uint64_t(*a)[2] = realloc(s->ab_switches, (s->nab_switches + 1) * sizeof(*a));

	if (!a)
		s->ab_switches_lost = true;
	else {
		s->ab_switches = a;
		a[s->nab_switches][0] = start;
		a[s->nab_switches][1] = end;
		s->nab_switches++;
	}
	if ((end - start) * 10 >= s->cfg->round_ns)
		report_warn(r,
			    "ab: the switch to round %s at %.3f s took %.0f ms, a tenth of a round "
			    "or more: the round before it counted that much less",
			    s->phases.name[next], (double)start / 1e9, (double)(end - start) / 1e6);
}

/* ab.switches: [start, end] of each switch, in run time. */
static json_t *ab_switches_json(const struct session *s)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && i < s->nab_switches; i++)
		if (json_array_append_new(a, json_pack("[I, I]", (json_int_t)s->ab_switches[i][0],
						       (json_int_t)s->ab_switches[i][1])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* ab --fail-if and --fail-if-raw, checked by the command line parser already. */
static unsigned ab_limits(const struct run_config *cfg, struct compare_limit *lim)
{
	unsigned n = 0;

	for (unsigned i = 0; i < cfg->nfail_if; i++) {
		char err[256];
		if (compare_limit_parse(cfg->fail_if[i], cfg->fail_if_raw[i], &lim[n], err,
					sizeof(err)) == 0)
			n++;
	}
	return n;
}

/* rtsoak ab: the verdicts from the per-round values, into the report. */
int session_ab_verdict(struct session *s, struct report *r)
{
	const struct run_config *cfg = s->cfg;
	struct comparison *c = &s->ab;
	struct compare_limit lim[CLI_MAX_SET];
	unsigned nlim = ab_limits(cfg, lim);
	struct compare_opts opts = cfg->ab_opts;
	json_t *order = json_array();

	compare_opts_need(&opts, lim, nlim);
	if (!order || compare_build_ab(c, r, cfg->output, &opts) < 0) {
		json_decref(order);
		return -ENOMEM;
	}
	json_t *phases = json_object_get(r->config, "phases");
	size_t i;
	json_t *p;
	json_array_foreach (phases, i, p)
		json_array_append(order, p);
	if (s->ab_switches_lost)
		report_warn(r, "out of memory: ab.switches is incomplete");
	r->ab =
	    json_pack("{s:I, s:I, s:o, s:o*, s:s, s:o}", "rounds_per_arm",
		      (json_int_t)cfg->ab_rounds, "round_duration_ns", (json_int_t)cfg->round_ns,
		      "order", order, "switches", ab_switches_json(s), "statistic", opts.on_text,
		      "comparison", compare_json(c, lim, nlim));
	return r->ab ? 0 : -ENOMEM;
}

/* rtsoak ab after a run without failure: print the comparison (unless
 * --quiet) and check its --fail-if limits.  Returns the exit code. */
int session_ab_exit(const struct comparison *c, const struct run_config *cfg)
{
	struct compare_limit lim[CLI_MAX_SET];
	unsigned nlim = ab_limits(cfg, lim);
	int rc;

	if (!cfg->quiet) {
		fputc('\n', stdout);
		compare_print(c, lim, nlim, stdout, cli_color_wanted(cfg->color, stdout),
			      cfg->ab_brief);
	}
	rc = EXIT_OK;
	for (unsigned i = 0; i < nlim; i++)
		for (size_t k = 0; k < c->n; k++) {
			bool ok;
			if (compare_limit_broken(&lim[i], &c->m[k], &ok, NULL))
				rc = EXIT_LIMIT;
		}
	return rc;
}
