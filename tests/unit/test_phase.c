// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the phase plan (src/phase.c): the ABBA order of
 * `rtsoak ab` for every allowed number of rounds, the phases of
 * `--schedule together` and `rotate` with their load masks, and the
 * boundaries a run takes (time per phase, occurrences, load time, the
 * report's "phases" array). */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "phase.h"
#include "tap.h"

static struct run_config cfg;

/* The names of the plan's phases, space-separated. */
static const char *names(const struct phase_plan *p)
{
	static char buf[PROBE_MAX_PHASES * 8];
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < p->n && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? " " : "",
					p->name[i]);
	return buf;
}

/* The ABBA order written out independently of phase.c: rounds come in
 * blocks of four, A B B A, numbered per arm. */
static const char *const abba[] = {
	NULL,
	"A1 B1",
	"A1 B1 B2 A2",
	"A1 B1 B2 A2 A3 B3",
	"A1 B1 B2 A2 A3 B3 B4 A4",
	"A1 B1 B2 A2 A3 B3 B4 A4 A5 B5",
	"A1 B1 B2 A2 A3 B3 B4 A4 A5 B5 B6 A6",
	"A1 B1 B2 A2 A3 B3 B4 A4 A5 B5 B6 A6 A7 B7",
	"A1 B1 B2 A2 A3 B3 B4 A4 A5 B5 B6 A6 A7 B7 B8 A8",
};

static void two_loads(void)
{
	cfg.nloads = 2;
	snprintf(cfg.loads[0].spec, sizeof(cfg.loads[0].spec), "cpu:load=50");
	snprintf(cfg.loads[1].spec, sizeof(cfg.loads[1].spec), "slab");
}

static int arms_match_names(const struct phase_plan *p)
{
	for (unsigned i = 0; i < p->n; i++)
		if (phase_ab_arm(p, i) != p->name[i][0])
			return 0;
	return 1;
}

int main(void)
{
	struct phase_plan p;
	int order_ok = 1, arms_ok = 1, masks_ok = 1;
	json_t *rep, *ph;

	tap_plan(21);

	/* rtsoak ab: 2N phases in ABBA order, every load in every round. */
	memset(&cfg, 0, sizeof(cfg));
	two_loads();
	cfg.ab = true;
	cfg.round_ns = 120000000000ull;
	for (unsigned n = 1; n <= 8; n++) {
		cfg.ab_rounds = n;
		phase_plan_init(&p, &cfg);
		if (p.n != 2 * n || strcmp(names(&p), abba[n])) {
			diag("%u rounds: '%s', want '%s'", n, names(&p), abba[n]);
			order_ok = 0;
		}
		arms_ok &= arms_match_names(&p);
		for (unsigned i = 0; i < p.n; i++)
			masks_ok &= p.mask[i] == 3;
		phase_plan_free(&p);
	}
	ok(order_ok, "phase_ab_abba_order_for_1_to_8_rounds");
	ok(arms_ok, "phase_ab_arm_is_the_name's_letter");
	ok(masks_ok, "phase_ab_every_load_in_every_round");
	cfg.ab_rounds = 4;
	phase_plan_init(&p, &cfg);
	ok(p.rotate && p.phase_ns == cfg.round_ns, "phase_ab_switches_every_round");
	phase_plan_free(&p);

	/* --schedule together: one phase, "all", with every load. */
	memset(&cfg, 0, sizeof(cfg));
	two_loads();
	phase_plan_init(&p, &cfg);
	ok(p.n == 1 && !strcmp(p.name[0], "all") && p.mask[0] == 3 && !p.rotate,
	   "phase_together_is_one_phase_all");
	ok(phase_ab_arm(&p, 0) == 0, "phase_together_has_no_arm");
	phase_plan_free(&p);
	cfg.nloads = 0;
	phase_plan_init(&p, &cfg);
	ok(p.n == 1 && p.mask[0] == 0, "phase_no_loads_is_all_with_none");
	phase_plan_free(&p);

	/* --schedule rotate: idle, then each load alone, named by its spec. */
	memset(&cfg, 0, sizeof(cfg));
	two_loads();
	cfg.rotate = true;
	cfg.phase_ns = 300000000000ull;
	phase_plan_init(&p, &cfg);
	ok(p.n == 3 && !strcmp(names(&p), "idle cpu:load=50 slab"),
	   "phase_rotate_idle_then_each_load");
	ok(p.mask[0] == 0 && p.mask[1] == 1 && p.mask[2] == 2, "phase_rotate_one_load_per_phase");
	ok(p.rotate && p.phase_ns == cfg.phase_ns && phase_ab_arm(&p, 0) == 0,
	   "phase_rotate_switches_every_phase_duration");

	/* A run that ended in its first phase: the others never ran. */
	{
		struct phase_plan q;
		char name[sizeof(q.name[0])] = "";
		phase_plan_init(&q, &cfg);
		int before = phase_never_ran(&q, 0, name, sizeof(name));
		phase_begin(&q, 0, 0);
		phase_end(&q, 40);
		int first = phase_never_ran(&q, 0, name, sizeof(name));
		char first_name[sizeof(name)];
		snprintf(first_name, sizeof(first_name), "%s", name);
		int second = phase_never_ran(&q, (unsigned)first + 1, name, sizeof(name));
		int none = phase_never_ran(&q, (unsigned)second + 1, name, sizeof(name));
		ok(before == 0 && first == 1 && !strcmp(first_name, "cpu:load=50") && second == 2 &&
		       !strcmp(name, "slab") && none == -1,
		   "phase_never_ran_names_each_phase_without_an_occurrence (%d %d %d %d)", before,
		   first, second, none);
		phase_plan_free(&q);
	}

	/* Boundaries: idle 0-100, cpu 100-250, slab 250-260, idle 260-300. */
	phase_end(&p, 5);
	ok(!p.open && p.time_ns[0] == 0 && json_array_size(p.occurrences[0]) == 0,
	   "phase_end_before_begin_is_a_no_op");
	phase_begin(&p, 0, 0);
	ok(p.open && p.current == 0, "phase_begin_sets_current");
	phase_end(&p, 100);
	phase_begin(&p, 1, 100);
	ok(p.current == 1, "phase_begin_switches_current");
	{ /* a live report at 180, the cpu phase open since 100 */
		json_t *live = phase_report(&p, &cfg, 180);
		json_t *cpu = json_array_get(live, 1), *occ = json_object_get(cpu, "occurrences");
		ok(json_integer_value(json_object_get(cpu, "time_ns")) == 80 &&
		       json_array_size(occ) == 1 &&
		       json_integer_value(json_array_get(json_array_get(occ, 0), 0)) == 100 &&
		       json_integer_value(json_array_get(json_array_get(occ, 0), 1)) == 180 &&
		       json_integer_value(json_object_get(json_array_get(live, 0), "time_ns")) ==
			   100 &&
		       phase_load_active_ns(&p, 0, 180) == 80 &&
		       json_array_size(p.occurrences[1]) == 0,
		   "phase_report_live_counts_the_open_occurrence_up_to_now (the plan unchanged)");
		json_decref(live);
	}
	phase_switch(&p, 2, 250); /* what a run does: the same as end + begin */
	ok(p.current == 2 && p.open && p.cur_start == 250 &&
	       json_array_size(p.occurrences[1]) == 1 &&
	       json_integer_value(json_array_get(json_array_get(p.occurrences[1], 0), 1)) == 250,
	   "phase_switch_closes_the_old_occurrence_and_moves_current");
	phase_switch(&p, 0, 260);
	phase_end(&p, 300);
	phase_end(&p, 400); /* closed already: nothing counts */
	ok(p.time_ns[0] == 140 && p.time_ns[1] == 150 && p.time_ns[2] == 10,
	   "phase_time_is_the_sum_of_occurrences");
	ok(json_array_size(p.occurrences[0]) == 2 &&
	       json_integer_value(json_array_get(json_array_get(p.occurrences[0], 1), 0)) == 260 &&
	       json_integer_value(json_array_get(json_array_get(p.occurrences[0], 1), 1)) == 300,
	   "phase_occurrences_are_start_end_pairs");
	ok(phase_load_active_ns(&p, 0, PHASE_CLOSED) == 150 &&
	       phase_load_active_ns(&p, 1, PHASE_CLOSED) == 10,
	   "phase_load_active_is_its_phases_time");

	rep = phase_report(&p, &cfg, PHASE_CLOSED);
	ph = json_array_get(rep, 1);
	ok(json_array_size(rep) == 3 &&
	       !strcmp(json_string_value(json_object_get(ph, "name")), "cpu:load=50") &&
	       json_integer_value(json_object_get(ph, "time_ns")) == 150 &&
	       json_array_size(json_object_get(ph, "occurrences")) == 1 &&
	       json_is_object(json_object_get(ph, "system")),
	   "phase_report_has_name_time_occurrences_system");
	ok(json_array_size(json_object_get(json_array_get(rep, 0), "loads")) == 0 &&
	       !strcmp(json_string_value(json_array_get(json_object_get(ph, "loads"), 0)),
		       "cpu:load=50") &&
	       json_array_size(json_object_get(ph, "loads")) == 1,
	   "phase_report_lists_the_phase's_loads");
	json_decref(rep);
	phase_plan_free(&p);
	return tap_done();
}
