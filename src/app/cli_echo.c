// SPDX-License-Identifier: GPL-2.0-or-later
/* cli_echo: the effective configuration of a run as the report's "config"
 * object (cli_config_json), after cli_parse_run or cli_parse_ab resolved
 * every default: what was measured, how, and each probe's own options. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util.h"

static json_t *cpus_json(const struct cpuset *s)
{
	char buf[1024];

	cpuset_format(s, buf, sizeof(buf));
	return json_string(buf);
}

json_t *cli_config_json(const struct run_config *cfg)
{
	json_t *c = json_object(), *probes = json_array(), *record = json_array();
	json_t *loads = json_array();
	/* Every value checked: a config with a key silently missing (a path
	 * that is not UTF-8 was) is not the run's.  What the user typed is
	 * made valid UTF-8 (util_json_string), as every name in the model. */
	int bad = !c || !probes || !record || !loads;

	if (bad) {
		json_decref(c);
		json_decref(probes);
		json_decref(record);
		json_decref(loads);
		return NULL;
	}

	for (unsigned i = 0; i < cfg->nprobes; i++)
		bad |= util_json_push(probes, util_json_string(cfg->probes[i].spec));
	for (unsigned i = 0; i < cfg->nrecord; i++)
		bad |= util_json_push(record, util_json_string(cfg->record[i]));
	for (unsigned i = 0; i < cfg->nloads; i++)
		bad |= util_json_push(loads, util_json_string(cfg->loads[i].spec));

	bad |= util_json_set(c, "cpus", cpus_json(&cfg->cpus));
	bad |= util_json_set(c, "housekeeping_cpus",
			     cpuset_empty(&cfg->housekeeping) ? json_null()
							      : cpus_json(&cfg->housekeeping));
	bad |= util_json_set(c, "policy", json_string(cfg->no_rt ? "SCHED_OTHER" : "SCHED_FIFO"));
	bad |= util_json_set(c, "priority", json_integer(cfg->priority));
	bad |= util_json_set(c, "interval_ns", json_integer((json_int_t)cfg->interval_ns));
	bad |= util_json_set(c, "duration_ns",
			     cfg->duration_ns ? json_integer((json_int_t)cfg->duration_ns)
					      : json_null());
	bad |= util_json_set(c, "loops",
			     cfg->loops ? json_integer((json_int_t)cfg->loops) : json_null());
	bad |= util_json_set(c, "warmup_ns", json_integer((json_int_t)cfg->warmup_ns));
	bad |= util_json_set(c, "probes", probes);
	bad |= util_json_set(c, "top_k", json_integer(cfg->top_k));
	bad |= util_json_set(c, "dma_latency_us",
			     cfg->dma_latency_us >= 0 ? json_integer(cfg->dma_latency_us)
						      : json_null());
	bad |= util_json_set(c, "no_rt", json_boolean(cfg->no_rt));
	bad |= util_json_set(c, "trace", json_boolean(cfg->trace));
	bad |= util_json_set(c, "trace_stacks", json_boolean(cfg->trace_stacks));
	bad |= util_json_set(c, "output", util_json_string(cfg->output));
	bad |= util_json_set(c, "record", record);
	bad |= util_json_set(c, "clock", json_string("CLOCK_MONOTONIC"));
	bad |= util_json_set(c, "loads", loads);
	bad |= util_json_set(c, "load_cpus", cpus_json(&cfg->load_cpus));
	bad |= util_json_set(c, "workdir", util_json_string(cfg->workdir));
	bad |= util_json_set(c, "schedule", json_string(cfg->rotate ? "rotate" : "together"));
	bad |= util_json_set(c, "checkpoint_ns",
			     cfg->checkpoint_ns && strcmp(cfg->output, "-")
				 ? json_integer((json_int_t)cfg->checkpoint_ns)
				 : json_null());
	bad |= util_json_set(c, "series_interval_ns", json_integer((json_int_t)cfg->series_ns));
	bad |= util_json_set(c, "series_limit", json_integer((json_int_t)cfg->series_limit));
	bad |= util_json_set(c, "spike_threshold_ns",
			     cfg->spike_threshold ? json_integer((json_int_t)cfg->spike_threshold)
						  : json_string("auto"));
	bad |= util_json_set(c, "prom", cfg->prom[0] ? util_json_string(cfg->prom) : json_null());
	bad |= util_json_set(c, "prom_keep", json_boolean(cfg->prom_keep));
	bad |= util_json_set(c, "prom_window_ns", json_integer((json_int_t)cfg->prom_window_ns));
	bad |= util_json_set(c, "run_name", util_json_string(cfg->run_name));
	bad |= util_json_set(c, "html", cfg->html[0] ? util_json_string(cfg->html) : json_null());
	bad |= util_json_set(c, "phase_duration_ns",
			     cfg->rotate ? json_integer((json_int_t)cfg->phase_ns) : json_null());
	json_t *set = json_array();
	for (unsigned i = 0; i < cfg->nset; i++)
		bad |= util_json_push(set, util_json_string(cfg->set[i]));
	bad |= util_json_set(c, "set", set);
	bad |= util_json_set(c, "ab",
			     cfg->ab ? json_pack("{s:I, s:I, s:I}", "rounds_per_arm",
						 (json_int_t)cfg->ab_rounds, "round_duration_ns",
						 (json_int_t)cfg->round_ns, "settle_ns",
						 (json_int_t)cfg->settle_ns)
				     : json_null());
	/* Each entry's effective options and its results' sampling periods
	 * (the timing precision of their spike times), then what the probes
	 * add themselves. */
	json_t *popts = json_object(), *periods = json_object();
	for (unsigned i = 0; i < cfg->nprobes; i++) {
		const struct probe_config *pc = &cfg->probes[i];
		if (pc->ops->options) {
			/* the spec as a key: valid UTF-8 as in "probes" */
			char *key = strdup(pc->spec);
			if (key)
				util_utf8_fix(key, strlen(key));
			bad |= key ? util_json_set(popts, key, probe_config_options_json(pc))
				   : util_json_set(popts, "", NULL);
			free(key);
		}
		for (unsigned k = 0; pc->results && pc->results[k]; k++)
			bad |= util_json_set(periods, pc->results[k],
					     json_integer((json_int_t)pc->interval_ns));
	}
	bad |= util_json_set(c, "probe_options", popts);
	bad |= util_json_set(c, "probe_intervals_ns", periods);
	for (unsigned i = 0; i < cfg->nprobes; i++)
		if (cfg->probes[i].ops->echo)
			cfg->probes[i].ops->echo(&cfg->probes[i], c);
	if (bad) {
		json_decref(c);
		return NULL;
	}
	return c;
}
