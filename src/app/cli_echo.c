// SPDX-License-Identifier: GPL-2.0-or-later
/* cli_echo: the effective configuration of a run as the report's "config"
 * object (cli_config_json), after cli_parse_run or cli_parse_ab resolved
 * every default: what was measured, how, and each probe's own options. */
#include <config.h>

#include <string.h>

#include "cli.h"

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

	for (unsigned i = 0; i < cfg->nprobes; i++)
		json_array_append_new(probes, json_string(cfg->probes[i].spec));
	for (unsigned i = 0; i < cfg->nrecord; i++)
		json_array_append_new(record, json_string(cfg->record[i]));
	for (unsigned i = 0; i < cfg->nloads; i++)
		json_array_append_new(loads, json_string(cfg->loads[i].spec));

	json_object_set_new(c, "cpus", cpus_json(&cfg->cpus));
	json_object_set_new(c, "housekeeping_cpus",
			    cpuset_empty(&cfg->housekeeping) ? json_null()
							     : cpus_json(&cfg->housekeeping));
	json_object_set_new(c, "policy", json_string(cfg->no_rt ? "SCHED_OTHER" : "SCHED_FIFO"));
	json_object_set_new(c, "priority", json_integer(cfg->priority));
	json_object_set_new(c, "interval_ns", json_integer((json_int_t)cfg->interval_ns));
	json_object_set_new(c, "duration_ns",
			    cfg->duration_ns ? json_integer((json_int_t)cfg->duration_ns)
					     : json_null());
	json_object_set_new(c, "loops",
			    cfg->loops ? json_integer((json_int_t)cfg->loops) : json_null());
	json_object_set_new(c, "warmup_ns", json_integer((json_int_t)cfg->warmup_ns));
	json_object_set_new(c, "probes", probes);
	json_object_set_new(c, "top_k", json_integer(cfg->top_k));
	json_object_set_new(c, "dma_latency_us",
			    cfg->dma_latency_us >= 0 ? json_integer(cfg->dma_latency_us)
						     : json_null());
	json_object_set_new(c, "no_rt", json_boolean(cfg->no_rt));
	json_object_set_new(c, "trace", json_boolean(cfg->trace));
	json_object_set_new(c, "trace_stacks", json_boolean(cfg->trace_stacks));
	json_object_set_new(c, "output", json_string(cfg->output));
	json_object_set_new(c, "record", record);
	json_object_set_new(c, "clock", json_string("CLOCK_MONOTONIC"));
	json_object_set_new(c, "loads", loads);
	json_object_set_new(c, "load_cpus", cpus_json(&cfg->load_cpus));
	json_object_set_new(c, "workdir", json_string(cfg->workdir));
	json_object_set_new(c, "schedule", json_string(cfg->rotate ? "rotate" : "together"));
	json_object_set_new(c, "checkpoint_ns",
			    cfg->checkpoint_ns && strcmp(cfg->output, "-")
				? json_integer((json_int_t)cfg->checkpoint_ns)
				: json_null());
	json_object_set_new(c, "series_interval_ns", json_integer((json_int_t)cfg->series_ns));
	json_object_set_new(c, "series_limit", json_integer((json_int_t)cfg->series_limit));
	json_object_set_new(c, "spike_threshold_ns",
			    cfg->spike_threshold ? json_integer((json_int_t)cfg->spike_threshold)
						 : json_string("auto"));
	json_object_set_new(c, "prom", cfg->prom[0] ? json_string(cfg->prom) : json_null());
	json_object_set_new(c, "prom_keep", json_boolean(cfg->prom_keep));
	json_object_set_new(c, "prom_window_ns", json_integer((json_int_t)cfg->prom_window_ns));
	json_object_set_new(c, "run_name", json_string(cfg->run_name));
	json_object_set_new(c, "html", cfg->html[0] ? json_string(cfg->html) : json_null());
	json_object_set_new(c, "phase_duration_ns",
			    cfg->rotate ? json_integer((json_int_t)cfg->phase_ns) : json_null());
	json_t *set = json_array();
	for (unsigned i = 0; i < cfg->nset; i++)
		json_array_append_new(set, json_string(cfg->set[i]));
	json_object_set_new(c, "set", set);
	json_object_set_new(c, "ab",
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
		if (pc->ops->options)
			json_object_set_new(popts, pc->spec, probe_config_options_json(pc));
		for (unsigned k = 0; pc->results && pc->results[k]; k++)
			json_object_set_new(periods, pc->results[k],
					    json_integer((json_int_t)pc->interval_ns));
	}
	json_object_set_new(c, "probe_options", popts);
	json_object_set_new(c, "probe_intervals_ns", periods);
	for (unsigned i = 0; i < cfg->nprobes; i++)
		if (cfg->probes[i].ops->echo)
			cfg->probes[i].ops->echo(&cfg->probes[i], c);
	return c;
}
