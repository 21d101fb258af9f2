// SPDX-License-Identifier: GPL-2.0-or-later
/* cli_check: the checks after parsing, once every option is known (an
 * option's meaning may depend on one given after it): options that would
 * change nothing, ab's rules, the defaults that depend on other options,
 * the workdir, the loads and the probes configured, the outputs writable,
 * the locks taken.  Each step prints one line and returns the exit code, or
 * -1 to go on; the first error ends the parse, so their order is the order
 * of the messages. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_internal.h"
#include "trace_instance.h"
#include "lock.h"
#include "serieslog.h"
#include "util.h"

#define DEFAULT_DURATION_NS (60 * NSEC_PER_SEC)

static void fill_probe_env(struct run_config *cfg)
{
	struct probe_env *env = &cfg->probe_env;

	env->cpus = cfg->cpus;
	env->housekeeping = cfg->housekeeping;
	env->priority = cfg->priority;
	env->no_rt = cfg->no_rt;
	env->interval_ns = cfg->interval_ns;
}

static int configure_probes(struct run_config *cfg)
{
	char err[512];

	fill_probe_env(cfg);
	/* An alias without its probe: silently ignoring it would let a run
	 * measure something else than what the command line says. */
	for (unsigned k = 0; k < cfg->nalias; k++) {
		bool used = false;
		for (unsigned i = 0; i < cfg->nprobes && !used; i++)
			used = cfg->probes[i].ops == cfg->alias[k].ops;
		if (!used) {
			const char *name = cfg->alias[k].ops->name;
			rtsoak_error("--%s: only the %s probe uses it, and --probes has no %s",
				     cfg->alias[k].alias->flag, name, name);
			return EXIT_USAGE;
		}
	}
	for (unsigned i = 0; i < cfg->nprobes; i++) {
		struct probe_config *pc = &cfg->probes[i];
		const char *colon = strchr(pc->spec, ':');
		int rc = probe_config_parse(pc, colon ? colon + 1 : NULL, err, sizeof(err));
		for (unsigned k = 0; !rc && k < cfg->nalias; k++)
			if (cfg->alias[k].ops == pc->ops)
				rc = probe_config_alias(pc, cfg->alias[k].alias,
							cfg->alias[k].value, err, sizeof(err));
		if (!rc)
			rc = probe_config_finish(pc, &cfg->probe_env, err, sizeof(err));
		if (rc) {
			rtsoak_error("--probes: %s", err);
			return EXIT_USAGE;
		}
	}
	return -1;
}

static int check_workdir(const char *dir)
{
	char probe[PATH_MAX + 16];
	struct stat st;
	int rc;

	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		rtsoak_error("--workdir: '%s' is not a directory", dir);
		return EXIT_USAGE;
	}
	snprintf(probe, sizeof(probe), "%s/x", dir);
	if ((rc = util_check_writable(probe)) < 0) {
		rtsoak_error("--workdir: cannot create files in '%s': %s", dir, strerror(-rc));
		return EXIT_USAGE;
	}
	return -1;
}

static int parse_loads(struct run_config *cfg, char **specs, unsigned n)
{
	char err[512];
	int rc;

	for (unsigned i = 0; i < n; i++) {
		struct load_instance *inst = &cfg->loads[i];
		rc = load_instance_parse(inst, specs[i], &cfg->load_cpus, err, sizeof(err));
		if (rc) {
			rtsoak_error("--loads: %s", err);
			return rc == -ENOTSUP ? EXIT_ENV : EXIT_USAGE;
		}
		inst->index = i;
		inst->probe_priority = cfg->no_rt ? 0 : cfg->priority;
		snprintf(inst->workdir, sizeof(inst->workdir), "%s", cfg->workdir);
		snprintf(inst->file_prefix, sizeof(inst->file_prefix), "rtsoak-load-%d-%u",
			 (int)getpid(), i);
		if (load_instance_check(inst, err, sizeof(err))) {
			rtsoak_error("--loads: %s", err);
			return EXIT_USAGE;
		}
		cfg->nloads++;
	}
	return -1;
}

static void default_output(char *buf, size_t len)
{
	char iso[40];

	util_iso8601(util_now_ns(CLOCK_REALTIME), iso, sizeof(iso));
	/* 2026-11-30T18:17:42.123Z -> rtsoak-20261130T181742Z.json */
	snprintf(buf, len, "rtsoak-%.4s%.2s%.2sT%.2s%.2s%.2sZ.json", iso, iso + 5, iso + 8,
		 iso + 11, iso + 14, iso + 17);
}

/* An option that would change nothing is an error, not ignored: the run
 * would measure something else than what the command line says (as
 * --net-* without the net probe).  ab has its own checks (check_ab). */
static int check_ignored(const struct run_config *cfg, const struct cli_parse *p)
{
	const char *why = NULL;

	if (!cfg->ab && p->duration_given && cfg->loops)
		why = "--duration and --loops: give one (a run ends after its duration, or after "
		      "N samples per probe)";
	else if (cfg->loops && p->warmup_given && cfg->warmup_ns)
		why = "--warmup with --loops: a --loops run counts its first N samples (give "
		      "--duration for a warm-up)";
	else if (p->load_cpus_given && !p->nspecs)
		why = "--load-cpus: only loads use it, and there is no --loads";
	else if (p->workdir_given && !p->nspecs)
		why = "--workdir: only loads use it, and there is no --loads";
	else if (p->phase_given && !cfg->rotate)
		why = "--phase-duration: only --schedule rotate has phases";
	else if (p->checkpoint_given && cfg->checkpoint_ns && !strcmp(cfg->output, "-"))
		why = "--checkpoint: a report on standard output (--output -) has no checkpoints";
	else if (!cfg->prom[0] && (cfg->prom_keep || p->prom_window_given || p->run_name_given))
		why = cfg->prom_keep ? "--prom-keep: there is no --prom file to keep"
		      : p->prom_window_given
			  ? "--prom-window: only the --prom series have a window"
			  : "--run-name: only the --prom series carry it (label run)";
	else if (p->on_spike_interval_given && !cfg->on_spike)
		why = "--on-spike-interval: there is no --on-spike command";
	if (!why)
		return -1;
	rtsoak_error("%s", why);
	return EXIT_USAGE;
}

/* rtsoak ab: the run's length is its rounds; phases are the rounds; each
 * round settles for a while after its switch (by default a tenth of it, at
 * most AB_DEFAULT_SETTLE_MAX_NS), which must leave something to count. */
static int check_ab(struct run_config *cfg, const struct cli_parse *p)
{
	bool duration_given = p->duration_given;

	if (!cfg->nset) {
		rtsoak_error("ab: needs --set PATH=VALUE (what the B rounds change)");
		return EXIT_USAGE;
	}
	if (duration_given || cfg->loops) {
		rtsoak_error("ab: %s: the run lasts 2 x --rounds x --round-duration",
			     duration_given ? "--duration" : "--loops");
		return EXIT_USAGE;
	}
	if (cfg->rotate) {
		rtsoak_error(
		    "ab: --schedule rotate: the rounds are the phases (loads run throughout)");
		return EXIT_USAGE;
	}
	if (!p->settle_given) {
		cfg->settle_ns = cfg->round_ns / 10;
		if (cfg->settle_ns > AB_DEFAULT_SETTLE_MAX_NS)
			cfg->settle_ns = AB_DEFAULT_SETTLE_MAX_NS;
	} else if (cfg->settle_ns >= cfg->round_ns) {
		rtsoak_error(
		    "--settle: '%s' is not shorter than a round (--round-duration %.3g s): "
		    "nothing would count",
		    p->settle_arg, (double)cfg->round_ns / 1e9);
		return EXIT_USAGE;
	}
	cfg->duration_ns = 2ull * cfg->ab_rounds * cfg->round_ns;
	return -1;
}

/* A checkpoint of a run that is gone (killed, or the machine crashed: its
 * output lock, held above, is free) is moved aside with its series logs,
 * never replaced: with the soak unit enabled, the boot after a crash would
 * otherwise start a run that replaces the soak in its first minute.  Moved,
 * not refused, so that such a unit starts again.  Returns -1 or the exit
 * code (3: it could not be moved; nothing was replaced). */
static int keep_unfinished(const struct run_config *cfg)
{
	char logs[2][PATH_MAX], moved[2 * PATH_MAX + 128];
	const char *comp[2] = { logs[0], logs[1] };
	int rc;

	if (!strcmp(cfg->output, "-") || serieslog_path(cfg->output, 0, logs[0], PATH_MAX) ||
	    serieslog_path(cfg->output, 1, logs[1], PATH_MAX))
		return -1;
	rc = output_keep_unfinished(cfg->output, comp, 2, moved, sizeof(moved));
	if (rc < 0) {
		rtsoak_error("--output: '%s' holds a run that did not finish (status running) and "
			     "%s: move it away or remove it",
			     cfg->output, moved);
		return EXIT_ENV;
	}
	if (rc > 0)
		rtsoak_error("'%s' held a run that did not finish (status running, its writer "
			     "gone): moved%s into '%s/'",
			     cfg->output, rc > 1 ? " with its series log" : "", moved);
	return -1;
}

/* The report path and the tweaked files are this run's alone, and a machine
 * still tweaked by a crashed run is not the machine the user thinks they
 * measure (lock.h, tweak.h): checked for every run, with --set or not.  The
 * locks are held until the process ends.  Returns -1 or the exit code. */
static int take_locks(struct run_config *cfg)
{
	char err[3 * PATH_MAX], path[PATH_MAX];
	int rc;

	if (strcmp(cfg->output, "-") && lock_output_path(cfg->output, path, sizeof(path)) == 0 &&
	    (rc = lock_take(&cfg->output_lock, LOCK_OUTPUT, path, path, err, sizeof(err))) < 0 &&
	    rc != -ENOENT) {
		rtsoak_error("%s", err);
		return EXIT_ENV;
	}
	if ((rc = keep_unfinished(cfg)) >= 0) {
		lock_release(&cfg->output_lock);
		return rc;
	}
	rc = tweak_set_journal(&cfg->tweaks, cfg->output, cfg->force, err, sizeof(err));
	if (!rc && err[0])
		rtsoak_error("warning: %s", err);
	if (!rc && (rc = tweak_lock(&cfg->tweaks, err, sizeof(err))) == 0)
		return -1;
	rtsoak_error("%s", rc == -ENOMEM ? "out of memory" : err);
	lock_release(&cfg->output_lock);
	return EXIT_ENV;
}

/* Without --cpus: every online CPU this process may use; the loads, without
 * --load-cpus, every online CPU. */
static int resolve_cpus(struct run_config *cfg, const struct cli_parse *p)
{
	if (!p->cpus_given) {
		struct cpuset online;
		if (cpuset_allowed(&cfg->cpus) == 0 && cpuset_online(&online) == 0)
			cpuset_and(&cfg->cpus, &online);
		if (cpuset_empty(&cfg->cpus)) {
			rtsoak_error("--cpus: no online CPU is in this process's affinity mask");
			return EXIT_ENV;
		}
	}
	if (!p->load_cpus_given && cpuset_online(&cfg->load_cpus) < 0)
		cpuset_allowed(&cfg->load_cpus);
	return -1;
}

/* The run label of the --prom series: the report's file name without
 * ".json" (distinct for runs started apart: the default name holds the start
 * time), or that default's name for a report on standard output. */
static void default_run_name(struct run_config *cfg)
{
	char def[64];
	const char *name = cfg->output;

	if (!strcmp(name, "-")) {
		default_output(def, sizeof(def));
		name = def;
	}
	util_report_stem(name, cfg->run_name, sizeof(cfg->run_name));
}

static int check_outputs(struct run_config *cfg)
{
	int rc;

	if (!cfg->output[0])
		default_output(cfg->output, sizeof(cfg->output));
	if (!cfg->run_name[0])
		default_run_name(cfg);
	/* What each output is decides how it is written (output.h), and a
	 * directory or a socket is refused here, not after the run. */
	if ((rc = cli_output_writable(NULL, "--output", cfg->output, OUTPUT_JSON,
				      cfg->checkpoint_ns ? "; no checkpoints" : NULL)) < 0)
		return EXIT_USAGE;
	/* A checkpoint is only safe as an atomic replace: a device would get
	 * a stream of reports, a FIFO would stall the run until read. */
	if (rc != OUTPUT_FILE)
		cfg->checkpoint_ns = 0;
	/* A checkpoint (periodic or SIGUSR1) replaces the series log beside
	 * the report by a rename: never a device, a directory or a FIFO that
	 * happens to have its name. */
	for (unsigned gen = 0; rc == OUTPUT_FILE && gen < 2; gen++) {
		char log[PATH_MAX];
		struct stat st;
		if (serieslog_path(cfg->output, gen, log, sizeof(log))) {
			rtsoak_error("--output: '%s' is too long for its series log's name",
				     cfg->output);
			return EXIT_USAGE;
		}
		if (lstat(log, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
			rtsoak_error("--output: '%s' (its checkpoints' series log) exists and is "
				     "not a regular file",
				     log);
			return EXIT_USAGE;
		}
	}
	if (cfg->html[0] && cli_output_writable(NULL, "--html", cfg->html, OUTPUT_HTML, NULL) < 0)
		return EXIT_USAGE;
	if (cfg->prom[0] && cli_output_writable(NULL, "--prom", cfg->prom, OUTPUT_PROM,
						"; only at the end of the run") < 0)
		return EXIT_USAGE;
	/* Before the run, not after it: what a killed run left is the
	 * user's to keep. */
	(void)output_stale();
	return -1;
}

/* Without --series-interval: 1 s, or coarser when the run would not fit in
 * the limit: a whole number of seconds, so intervals line up with the
 * clock. */
static void resolve_series(struct run_config *cfg)
{
	if (cfg->series_given)
		return;
	uint64_t fit = cfg->duration_ns / cfg->series_limit + 1;
	cfg->series_ns = NSEC_PER_SEC;
	if (fit > NSEC_PER_SEC)
		cfg->series_ns = (fit + NSEC_PER_SEC - 1) / NSEC_PER_SEC * NSEC_PER_SEC;
}

/* --schedule rotate with a --duration too short for every phase to get its turn: the last
 * phases would be in the report with no sample, a question the run was asked and cannot
 * answer.  Refused before anything runs (a --loops run, or one ended early, only says so at
 * the end: session.c). */
static int check_rotate_covers(const struct run_config *cfg, const struct cli_parse *p)
{
	unsigned nphases = cfg->nloads + 1;
	uint64_t covered;

	if (!cfg->rotate || cfg->ab || !cfg->duration_ns || !cfg->phase_ns)
		return -1;
	covered = (cfg->duration_ns + cfg->phase_ns - 1) / cfg->phase_ns;
	if (covered >= nphases)
		return -1;
	rtsoak_error("--schedule rotate: --duration %.9gs%s gives %llu of the %u phases (idle and "
		     "each load, %.9gs each) a turn: make it at least %.9gs, or shorten "
		     "--phase-duration",
		     (double)cfg->duration_ns / 1e9, p->duration_given ? "" : " (the default)",
		     (unsigned long long)covered, nphases, (double)cfg->phase_ns / 1e9,
		     (double)cfg->phase_ns * nphases / 1e9);
	return EXIT_USAGE;
}

int cli_check_config(struct cli_parse *p)
{
	struct run_config *cfg = p->cfg;
	int rc;

	if ((rc = check_ignored(cfg, p)) >= 0)
		return rc;
	if (cfg->ab && (rc = check_ab(cfg, p)) >= 0)
		return rc;
	if (!p->duration_given && !cfg->ab)
		cfg->duration_ns = cfg->loops ? 0 : DEFAULT_DURATION_NS;
	/* --loops: N samples from the first, no warm-up unless asked (and
	 * asking is refused above). */
	if (cfg->loops && !p->warmup_given)
		cfg->warmup_ns = 0;
	if ((rc = resolve_cpus(cfg, p)) >= 0)
		return rc;
	if (p->nspecs && ((rc = check_workdir(cfg->workdir)) >= 0 ||
			  (rc = parse_loads(cfg, p->specs, p->nspecs)) >= 0))
		return rc;
	if ((rc = configure_probes(cfg)) >= 0)
		return rc;
	if (cfg->rotate && cfg->nloads == 0) {
		rtsoak_error("--schedule rotate: needs --loads (phases are idle and each load)");
		return EXIT_USAGE;
	}
	if ((rc = check_rotate_covers(cfg, p)) >= 0)
		return rc;
#ifndef HAVE_TRACEFS
	/* Before anything is measured, not at the set-up. */
	if (cfg->trace) {
		rtsoak_error("%s: %s", cfg->trace_stacks ? "--trace-stacks" : "--trace",
			     TRACE_NOT_BUILT);
		return EXIT_ENV;
	}
#endif
	if ((rc = check_outputs(cfg)) >= 0 || (rc = take_locks(cfg)) >= 0)
		return rc;
	resolve_series(cfg);
	return -1;
}
