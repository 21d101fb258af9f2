/* cli: option parsing and validation for `rtsoak run`. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "compare.h"
#include "parse.h"
#include "report.h"
#include "sysinfo.h"
#include "util.h"
#include "views.h"

#define DEFAULT_INTERVAL_NS (1 * NSEC_PER_MSEC)
#define DEFAULT_DURATION_NS (60 * NSEC_PER_SEC)
#define MIN_INTERVAL_NS (1 * NSEC_PER_USEC)
#define MAX_INTERVAL_NS (3600 * NSEC_PER_SEC)

int cli_color_parse(const char *arg, enum cli_color *out)
{
	static const char *const names[] = { "auto", "always", "never" };

	for (int i = 0; i < 3; i++)
		if (!strcmp(arg, names[i])) {
			*out = (enum cli_color)i;
			return 0;
		}
	return -EINVAL;
}

bool cli_color_wanted(enum cli_color mode, FILE *out)
{
	const char *no = getenv("NO_COLOR");

	if (mode != CLI_COLOR_AUTO)
		return mode == CLI_COLOR_ALWAYS;
	return isatty(fileno(out)) && !(no && *no);
}

int cli_report_option(const char *cmd, int opt, char **argv, const char *usage,
		      enum cli_color *color)
{
	switch (opt) {
	case 'c':
		if (!cli_color_parse(optarg, color))
			return -1;
		rtsoak_error("%s: --color: '%s' is not auto, always or never", cmd, optarg);
		return EXIT_USAGE;
	case 'h':
		fputs(usage, stdout);
		return EXIT_OK;
	case ':':
		rtsoak_error("%s: %s needs a value", cmd, argv[optind - 1]);
		return EXIT_USAGE;
	default:
		rtsoak_error("%s: unknown option '%s'", cmd, argv[optind - 1]);
		return EXIT_USAGE;
	}
}

int cli_output_writable(const char *cmd, const char *opt, const char *path, enum output_format fmt,
			const char *in_place)
{
	char why[PATH_MAX + 160];
	const char *what = NULL;
	int kind = output_check(path, &what, why, sizeof(why));

	if (kind < 0) {
		rtsoak_error("%s%s%s: %s", cmd ? cmd : "", cmd ? ": " : "", opt, why);
		return -1;
	}
	/* Said once, before the run: the write itself is not atomic. */
	if (kind == OUTPUT_IN_PLACE)
		rtsoak_error("%s%s%s: '%s' is %s: written in place, not atomically%s",
			     cmd ? cmd : "", cmd ? ": " : "", opt, path, what,
			     in_place ? in_place : "");
	output_note_target(path, fmt);
	return kind;
}

int cli_report_read(const char *cmd, const char *path, struct report *r)
{
	char err[512];
	int rc = report_json_read(path, r, err, sizeof(err));

	if (rc >= 0)
		return -1;
	rtsoak_error("%s: %s", cmd, err);
	return rc == -ENOMEM ? EXIT_ENV : EXIT_USAGE;
}

void cli_usage(FILE *out)
{
	fputs(
	    "usage: rtsoak [run] [OPTION]...\n"
	    "       rtsoak sysinfo\n"
	    "       rtsoak reflect [--bind ADDR] [--port N] [--cpu N] [--priority P]\n"
	    "       rtsoak ab --set PATH=VALUE... [--rounds N] [--round-duration T] [OPTION]...\n"
	    "       rtsoak report FILE.json [--text] [--html OUT] [--histogram-text OUT]\n"
	    "                            [--json OUT] [--prom OUT] [--color WHEN]\n"
	    "       rtsoak compare A.json B.json [--fail-if STAT>CHANGE]... [--json OUT] [--html OUT]\n"
	    "       rtsoak restore JOURNAL\n"
	    "       rtsoak probes | loads | help | version\n"
	    "\n"
	    "Measure wake-up latency of pinned SCHED_FIFO threads and write a JSON report.\n"
	    "\n"
	    "  -c, --cpus LIST        CPUs to measure, e.g. 0-3,8 (default: all online CPUs we may use)\n"
	    "  -p, --priority N       SCHED_FIFO priority of the probes, 1-99 (default 95)\n"
	    "  -i, --interval T       wake-up period: ns, us, ms, s; a bare number is us (default 1ms)\n"
	    "  -D, --duration T       run time: s, m, h, d; a bare number is s (default 60s)\n"
	    "  -l, --loops N          stop each probe after N samples (instead of --duration)\n"
	    "  -P, --probes LIST      probes to run, comma-separated (default: timer,net)\n"
	    "  -o, --output FILE      report path, '-' for stdout (default rtsoak-<UTC time>.json)\n"
	    "  -q, --quiet            no summary and no progress line\n"
	    "      --top K            keep the K largest samples per result (default 32)\n"
	    "      --housekeeping LIST  CPUs for rtsoak's own main thread (default: unmeasured CPUs)\n"
	    "      --dma-latency US   hold /dev/cpu_dma_latency at US microseconds for the run\n"
	    "      --no-rt            run as SCHED_OTHER when real-time scheduling is not allowed\n"
	    "      --record GLOB      add the contents of matching /sys or /proc files to the report\n"
	    "      --loads SPEC       loads to run: NAME[:opt=val...][,NAME...] (see rtsoak loads)\n"
	    "      --load-cpus LIST   CPUs the loads run on (default: every online CPU)\n"
	    "      --workdir DIR      where loads create files (default: $TMPDIR or /tmp)\n"
	    "      --schedule MODE    together (default): all loads all the time; rotate: phases\n"
	    "                         idle, then each load alone, cycling\n"
	    "      --phase-duration T length of one phase with --schedule rotate (default 30s)\n"
	    "      --checkpoint T     rewrite the report (status running) this often; 0: never\n"
	    "                         (default 60s; SIGUSR1 forces one)\n"
	    "      --series-interval T  time-series resolution (default 1s, longer when --duration\n"
	    "                         would exceed --series-limit intervals)\n"
	    "      --series-limit N   intervals kept per result; beyond, pairs merge (default 100000)\n"
	    "      --spike-threshold T|auto  log samples above T; a bare number is us (default auto:\n"
	    "                         10 x the median of each result's first 5 s)\n"
	    "      --prom FILE        write OpenMetrics text (node_exporter textfile) every second\n"
	    "      --html FILE        also write the report as one self-contained HTML page\n"
	    "      --color WHEN       colour in the summary: auto (a terminal, no NO_COLOR),\n"
	    "                         always or never\n"
	    "      --net-interval T   net probe: datagram period; a bare number is us (default 1ms)\n"
	    "      --net-family 4|6   net probe: IP version (default 4 on loopback, else the target's)\n"
	    "      --net-timeout T    net probe: later answers are late; a bare number is ms (default 1s)\n"
	    "      --net-priority N   net probe: the sender's SCHED_FIFO priority (default --priority - 1)\n"
	    "      --net-sender-cpu N net probe: CPU of the sender (default: a housekeeping CPU)\n"
	    "      --set PATH=VALUE   write VALUE to a /sys or /proc/sys file (PATH may be a glob)\n"
	    "                         for the run; originals journalled in REPORT.journal and\n"
	    "                         restored at the end (rtsoak restore after a crash)\n"
	    "                         (each file locked for the run; see SAFETY in rtsoak(1))\n"
	    "      --force            start although an earlier or killed run's journal is still\n"
	    "                         present\n"
	    "      --rounds N         ab: rounds per arm, in ABBA order (default 4, at most 8)\n"
	    "      --round-duration T ab: length of one round (default 60s)\n"
	    "      --fail-if STAT>CHANGE  ab: exit 1 when B changes STAT by more (e.g. p99>+10%)\n"
	    "  -h, --help             this help\n"
	    "  -V, --version          print the version\n"
	    "\n"
	    "Exit status: 0 ok, 1 a declared limit failed, 2 usage or input error, 3 environment error.\n",
	    out);
}

enum {
	OPT_TOP = 256,
	OPT_HOUSEKEEPING,
	OPT_DMA,
	OPT_NO_RT,
	OPT_RECORD,
	OPT_LOADS,
	OPT_LOAD_CPUS,
	OPT_WORKDIR,
	OPT_SCHEDULE,
	OPT_PHASE,
	OPT_CHECKPOINT,
	OPT_SERIES_INTERVAL,
	OPT_SERIES_LIMIT,
	OPT_SPIKE_THRESHOLD,
	OPT_PROM,
	OPT_SET,
	OPT_FORCE,
	OPT_ROUNDS,
	OPT_ROUND_DURATION,
	OPT_FAIL_IF,
	OPT_HTML,
	OPT_COLOR,
	OPT_ALIAS, /* OPT_ALIAS + k: the k-th probe alias (alias_options) */
};

static const struct option run_options[] = {
	{ "cpus", required_argument, NULL, 'c' },
	{ "priority", required_argument, NULL, 'p' },
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'D' },
	{ "loops", required_argument, NULL, 'l' },
	{ "probes", required_argument, NULL, 'P' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "housekeeping", required_argument, NULL, OPT_HOUSEKEEPING },
	{ "dma-latency", required_argument, NULL, OPT_DMA },
	{ "no-rt", no_argument, NULL, OPT_NO_RT },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "loads", required_argument, NULL, OPT_LOADS },
	{ "load-cpus", required_argument, NULL, OPT_LOAD_CPUS },
	{ "workdir", required_argument, NULL, OPT_WORKDIR },
	{ "schedule", required_argument, NULL, OPT_SCHEDULE },
	{ "phase-duration", required_argument, NULL, OPT_PHASE },
	{ "checkpoint", required_argument, NULL, OPT_CHECKPOINT },
	{ "series-interval", required_argument, NULL, OPT_SERIES_INTERVAL },
	{ "series-limit", required_argument, NULL, OPT_SERIES_LIMIT },
	{ "spike-threshold", required_argument, NULL, OPT_SPIKE_THRESHOLD },
	{ "prom", required_argument, NULL, OPT_PROM },
	{ "set", required_argument, NULL, OPT_SET },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "round-duration", required_argument, NULL, OPT_ROUND_DURATION },
	{ "fail-if", required_argument, NULL, OPT_FAIL_IF },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* A CPU list must parse and name only online CPUs. */
static int check_cpus(const char *opt, const char *arg, struct cpuset *set)
{
	struct cpuset online;
	char err[256], list[512];
	int c;

	if (cpuset_parse(set, arg, err, sizeof(err))) {
		rtsoak_error("%s: %s", opt, err);
		return EXIT_USAGE;
	}
	if (cpuset_online(&online) < 0)
		return -1; /* cannot tell: the affinity check at start-up catches it */
	if ((c = cpuset_first_missing(set, &online)) >= 0) {
		cpuset_format(&online, list, sizeof(list));
		rtsoak_error("%s: CPU %d is not online (online: %s)", opt, c, list);
		return EXIT_USAGE;
	}
	return -1;
}

/* A leading, trailing or doubled comma: an element left out, most likely by
 * a typo or an empty shell variable ("timer,$EXTRA"). */
static bool list_has_empty(const char *list)
{
	size_t n = strlen(list);

	return n && (list[0] == ',' || list[n - 1] == ',' || strstr(list, ",,"));
}

/* --probes LIST: names (with options after ':') only; each probe's
 * configure hook runs after every option is known (configure_probes). */
static int parse_probes(struct run_config *cfg, const char *arg)
{
	char *copy = strdup(arg), *save = NULL;
	int rc = -1;

	if (!copy)
		return EXIT_ENV;
	/* strtok_r would skip an empty element, so "timer," would run only
	 * timer where --cpus 0, is an error: reject it the same way. */
	if (*arg && list_has_empty(arg)) {
		rtsoak_error("--probes: '%s' has an empty element (expected e.g. timer,net)", arg);
		free(copy);
		return EXIT_USAGE;
	}
	cfg->nprobes = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t len = strcspn(tok, ":");
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)len, tok);
		const struct probe_ops *ops = probe_registry_find(name);
		if (!ops) {
			char names[256];
			probe_registry_names(names, sizeof(names));
			rtsoak_error("--probes: unknown probe '%s' (available: %s)", name, names);
			rc = EXIT_USAGE;
			break;
		}
		if (ops->unavailable && ops->unavailable()) {
			rtsoak_error("--probes: probe '%s' cannot run here: %s", name,
				     ops->unavailable());
			rc = EXIT_ENV;
			break;
		}
		for (unsigned i = 0; i < cfg->nprobes; i++)
			if (!strcmp(cfg->probes[i].spec, tok)) {
				rtsoak_error("--probes: '%s' is named twice", tok);
				rc = EXIT_USAGE;
			}
		if (rc >= 0)
			break;
		if (cfg->nprobes == CLI_MAX_PROBES) {
			rtsoak_error("--probes: at most %d probes", CLI_MAX_PROBES);
			rc = EXIT_USAGE;
			break;
		}
		struct probe_config *pc = &cfg->probes[cfg->nprobes++];
		pc->ops = ops;
		snprintf(pc->spec, sizeof(pc->spec), "%s", tok);
	}
	free(copy);
	if (rc < 0 && cfg->nprobes == 0) {
		rtsoak_error("--probes: the list is empty (expected e.g. timer)");
		rc = EXIT_USAGE;
	}
	return rc;
}

/* The probes' command-line aliases (--net-interval), in registry order: the
 * getopt table is run_options followed by these. */
static struct {
	const struct probe_ops *ops;
	const struct probe_alias *alias;
} alias_table[CLI_MAX_ALIASES];
static struct option all_options[sizeof(run_options) / sizeof(run_options[0]) + CLI_MAX_ALIASES];

static const struct option *cli_options(void)
{
	static unsigned n;
	size_t base = sizeof(run_options) / sizeof(run_options[0]) - 1;

	if (n)
		return all_options;
	memcpy(all_options, run_options, base * sizeof(*run_options));
	for (unsigned i = 0; probe_registry[i]; i++)
		for (const struct probe_alias *a = probe_registry[i]->aliases; a && a->flag; a++) {
			if (n == CLI_MAX_ALIASES)
				abort(); /* a bug: raise CLI_MAX_ALIASES */
			alias_table[n].ops = probe_registry[i];
			alias_table[n].alias = a;
			all_options[base + n] =
			    (struct option){ a->flag, required_argument, NULL, OPT_ALIAS + (int)n };
			n++;
		}
	all_options[base + n] = (struct option){ NULL, 0, NULL, 0 };
	return all_options;
}

/* --net-interval T: checked now (one line at the option, as for every
 * other), applied in configure_probes to each entry of its probe. */
static int note_alias(struct run_config *cfg, unsigned k, const char *optname, const char *value)
{
	const struct probe_ops *ops = alias_table[k].ops;
	const struct probe_alias *a = alias_table[k].alias;
	const struct opt *o = &ops->options[opt_index(ops->options, a->option)];
	struct opt_value scratch = { 0 };
	char err[512];
	int rc = opt_value_parse(optname, true, o, value, &scratch, err, sizeof(err));

	if (o->type == OPT_STRING)
		free(scratch.s);
	if (rc) {
		rtsoak_error("%s", err);
		return EXIT_USAGE;
	}
	unsigned i = 0;
	while (i < cfg->nalias && cfg->alias[i].alias != a)
		i++;
	cfg->alias[i].ops = ops;
	cfg->alias[i].alias = a;
	cfg->alias[i].value = value;
	if (i == cfg->nalias)
		cfg->nalias++;
	return -1;
}

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

/* Split --loads at commas that start a new load: "cpu:cpus=0,2,disk" is
 * cpu on CPUs 0 and 2, then disk.  A comma followed by a registered load
 * name (then ':', ',' or the end) starts a new spec; any other comma is
 * part of the value before it. */
static int split_loads(char **specs, unsigned *n, const char *arg)
{
	const char *start = arg;

	for (const char *p = arg;; p++) {
		bool cut = *p == '\0';
		if (*p == ',') {
			const char *name = p + 1;
			size_t len = strcspn(name, ":,");
			for (unsigned i = 0; load_registry[i] && !cut; i++)
				cut = strlen(load_registry[i]->name) == len &&
				      !strncmp(load_registry[i]->name, name, len);
		}
		if (!cut)
			continue;
		/* An empty spec (",cpu", "cpu,,disk", "cpu,"): as for --probes;
		 * a string value cannot end in a comma either. */
		if (p == start || p[-1] == ',') {
			rtsoak_error("--loads: '%s' %s (expected e.g. cpu,disk)", arg,
				     *arg ? "has an empty element" : "is empty");
			return EXIT_USAGE;
		}
		if (*n == LOAD_MAX_INSTANCES) {
			rtsoak_error("--loads: at most %d loads", LOAD_MAX_INSTANCES);
			return EXIT_USAGE;
		}
		if (!(specs[(*n)++] = strndup(start, (size_t)(p - start))))
			return EXIT_ENV;
		if (*p == '\0')
			return -1;
		start = p + 1;
	}
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

void cli_list_probes(FILE *out)
{
	for (unsigned i = 0; probe_registry[i]; i++) {
		const struct probe_ops *ops = probe_registry[i];
		const char *why = ops->unavailable ? ops->unavailable() : NULL;
		fprintf(out, "%s: %s\n", ops->name, ops->summary);
		fprintf(out, "  can run here: %s%s\n", why ? "no: " : "yes", why ? why : "");
		opt_list(out, ops->options);
		for (const struct probe_alias *a = ops->aliases; a && a->flag; a++)
			fprintf(out, "  --%s V: the same as %s:%s=V\n", a->flag, ops->name,
				a->option);
	}
}

void cli_list_loads(FILE *out)
{
	for (unsigned i = 0; load_registry[i]; i++) {
		const struct load_ops *ops = load_registry[i];
		const char *why = ops->unavailable ? ops->unavailable() : NULL;
		fprintf(out, "%s: %s\n", ops->name, ops->summary);
		fprintf(out, "  can run here: %s%s\n", why ? "no: " : "yes", why ? why : "");
		opt_list(out, ops->options);
		char nice[8];
		snprintf(nice, sizeof(nice), "%d", ops->default_nice);
		opt_list_line(out, "nice", "int", nice, "-20..19", "nice value of the workers");
		opt_list_line(out, "cpus", "cpus", "--load-cpus", "", "CPUs this load runs on");
	}
}

/* A period (--interval, --net-interval): a bare number is in us, as in
 * cyclictest; 1 us to 1 h. */
static int parse_interval(const char *arg, uint64_t *out, char *err, size_t errlen)
{
	if (parse_duration(arg, NSEC_PER_USEC, out, err, errlen))
		return -EINVAL;
	if (*out < MIN_INTERVAL_NS || *out > MAX_INTERVAL_NS) {
		snprintf(err, errlen, "'%s' is out of range (expected 1us to 1h)", arg);
		return -ERANGE;
	}
	return 0;
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
static int check_ignored(const struct run_config *cfg, bool duration_given, unsigned nspecs,
			 bool load_cpus_given, bool workdir_given, bool phase_given,
			 bool checkpoint_given)
{
	const char *why = NULL;

	if (!cfg->ab && duration_given && cfg->loops)
		why = "--duration and --loops: give one (a run ends after its duration, or after "
		      "N samples per probe)";
	else if (load_cpus_given && !nspecs)
		why = "--load-cpus: only loads use it, and there is no --loads";
	else if (workdir_given && !nspecs)
		why = "--workdir: only loads use it, and there is no --loads";
	else if (phase_given && !cfg->rotate)
		why = "--phase-duration: only --schedule rotate has phases";
	else if (checkpoint_given && cfg->checkpoint_ns && !strcmp(cfg->output, "-"))
		why = "--checkpoint: a report on standard output (--output -) has no checkpoints";
	if (!why)
		return -1;
	rtsoak_error("%s", why);
	return EXIT_USAGE;
}

/* rtsoak ab: the run's length is its rounds; phases are the rounds. */
static int check_ab(struct run_config *cfg, bool duration_given)
{
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
	cfg->duration_ns = 2ull * cfg->ab_rounds * cfg->round_ns;
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
	rc = tweak_set_journal(&cfg->tweaks, cfg->output, cfg->force, err, sizeof(err));
	if (!rc && err[0])
		rtsoak_error("warning: %s", err);
	if (!rc && (rc = tweak_lock(&cfg->tweaks, err, sizeof(err))) == 0)
		return -1;
	rtsoak_error("%s", rc == -ENOMEM ? "out of memory" : err);
	lock_release(&cfg->output_lock);
	return EXIT_ENV;
}

/* The whole command line; the --loads specs it splits off are the caller's
 * to free, on every way out (parse). */
static int parse_all(struct run_config *cfg, int argc, char **argv, bool ab, char **specs,
		     unsigned *nspecs_out)
{
	bool duration_given = false, cpus_given = false, load_cpus_given = false;
	bool workdir_given = false, phase_given = false, checkpoint_given = false;
	unsigned nspecs = 0;
	char err[1024];
	uint64_t v;
	int opt, rc;

	memset(cfg, 0, sizeof(*cfg));
	cfg->ab = ab;
	cfg->ab_rounds = AB_DEFAULT_ROUNDS;
	cfg->round_ns = AB_DEFAULT_ROUND_NS;
	cfg->priority = 95;
	cfg->interval_ns = DEFAULT_INTERVAL_NS;
	cfg->top_k = RECORDER_TOP_DEFAULT;
	cfg->dma_latency_us = -1;
	parse_probes(cfg, CLI_DEFAULT_PROBES);
	cfg->phase_ns = 30 * NSEC_PER_SEC;
	cfg->checkpoint_ns = 60 * NSEC_PER_SEC;
	cfg->series_limit = SERIES_LIMIT_DEFAULT;
	const char *tmpdir = getenv("TMPDIR");
	snprintf(cfg->workdir, sizeof(cfg->workdir), "%s", tmpdir && *tmpdir ? tmpdir : "/tmp");

	optind = 1;
	opterr = 0; /* we print our own one-line errors */
	const struct option *options = cli_options();
	while ((opt = getopt_long(argc, argv, ":c:p:i:D:l:P:o:qhV", options, NULL)) != -1) {
		const char *name = NULL;
		for (const struct option *o = options; o->name; o++)
			if (o->val == opt)
				name = o->name;
		char optname[40];
		snprintf(optname, sizeof(optname), "--%s", name ? name : "?");

		if (opt >= OPT_ALIAS) {
			if ((rc = note_alias(cfg, (unsigned)(opt - OPT_ALIAS), optname, optarg)) >=
			    0)
				return rc;
			continue;
		}
		switch (opt) {
		case 'c':
			if ((rc = check_cpus(optname, optarg, &cfg->cpus)) >= 0)
				return rc;
			cpus_given = true;
			break;
		case 'p':
			if (parse_u64(optarg, 1, 99, &v, err, sizeof(err)))
				goto bad;
			cfg->priority = (int)v;
			break;
		case 'i':
			if (parse_interval(optarg, &cfg->interval_ns, err, sizeof(err)))
				goto bad;
			break;
		case 'D':
			if (parse_duration(optarg, NSEC_PER_SEC, &cfg->duration_ns, err,
					   sizeof(err)))
				goto bad;
			duration_given = true;
			break;
		case 'l':
			if (parse_u64(optarg, 1, UINT64_MAX / 2, &cfg->loops, err, sizeof(err)))
				goto bad;
			break;
		case 'P':
			if ((rc = parse_probes(cfg, optarg)) >= 0)
				return rc;
			break;
		case 'o':
			if (!*optarg) {
				snprintf(err, sizeof(err), "the path is empty");
				goto bad;
			}
			if (snprintf(cfg->output, sizeof(cfg->output), "%s", optarg) >=
			    (int)sizeof(cfg->output)) {
				snprintf(err, sizeof(err), "the path is too long");
				goto bad;
			}
			break;
		case 'q':
			cfg->quiet = true;
			break;
		case OPT_TOP:
			if (parse_u64(optarg, 0, RECORDER_TOP_MAX, &v, err, sizeof(err)))
				goto bad;
			cfg->top_k = (unsigned)v;
			break;
		case OPT_HOUSEKEEPING:
			if ((rc = check_cpus(optname, optarg, &cfg->housekeeping)) >= 0)
				return rc;
			cfg->housekeeping_given = true;
			break;
		case OPT_DMA:
			if (parse_u64(optarg, 0, 2000000000, &v, err, sizeof(err)))
				goto bad;
			cfg->dma_latency_us = (int)v;
			break;
		case OPT_NO_RT:
			cfg->no_rt = true;
			break;
		case OPT_RECORD:
			if ((rc = sysinfo_record_check(optarg, err, sizeof(err))) < 0)
				goto bad;
			if (rc > 0) /* some files left out: say so, the run goes on */
				rtsoak_error("%s: warning: %s", optname, err);
			if (cfg->nrecord == CLI_MAX_RECORD) {
				snprintf(err, sizeof(err), "at most %d globs", CLI_MAX_RECORD);
				goto bad;
			}
			cfg->record[cfg->nrecord++] = optarg;
			break;
		case OPT_LOADS:
			rc = split_loads(specs, &nspecs, optarg);
			*nspecs_out = nspecs;
			if (rc >= 0)
				return rc;
			break;
		case OPT_LOAD_CPUS:
			if ((rc = check_cpus(optname, optarg, &cfg->load_cpus)) >= 0)
				return rc;
			load_cpus_given = true;
			break;
		case OPT_WORKDIR:
			if (snprintf(cfg->workdir, sizeof(cfg->workdir), "%s", optarg) >=
			    (int)sizeof(cfg->workdir)) {
				snprintf(err, sizeof(err), "the path is too long");
				goto bad;
			}
			workdir_given = true;
			break;
		case OPT_SCHEDULE:
			if (strcmp(optarg, "together") && strcmp(optarg, "rotate")) {
				snprintf(err, sizeof(err), "'%s' is not together or rotate",
					 optarg);
				goto bad;
			}
			cfg->rotate = !strcmp(optarg, "rotate");
			break;
		case OPT_CHECKPOINT:
			checkpoint_given = true;
			if (!strcmp(optarg, "0")) {
				cfg->checkpoint_ns = 0;
				break;
			}
			if (parse_duration(optarg, NSEC_PER_SEC, &cfg->checkpoint_ns, err,
					   sizeof(err)))
				goto bad;
			break;
		case OPT_SERIES_INTERVAL:
			if (parse_duration(optarg, NSEC_PER_SEC, &cfg->series_ns, err, sizeof(err)))
				goto bad;
			if (cfg->series_ns < NSEC_PER_MSEC) {
				snprintf(err, sizeof(err), "'%s' is below the 1ms minimum", optarg);
				goto bad;
			}
			cfg->series_given = true;
			break;
		case OPT_SERIES_LIMIT:
			if (parse_u64(optarg, SERIES_LIMIT_MIN, 100000000, &cfg->series_limit, err,
				      sizeof(err)))
				goto bad;
			break;
		case OPT_SPIKE_THRESHOLD:
			cfg->spike_threshold = SERIES_THRESHOLD_AUTO;
			if (strcmp(optarg, "auto") != 0 &&
			    parse_duration(optarg, NSEC_PER_USEC, &cfg->spike_threshold, err,
					   sizeof(err)))
				goto bad;
			break;
		case OPT_PROM:
			if (!*optarg || snprintf(cfg->prom, sizeof(cfg->prom), "%s", optarg) >=
					    (int)sizeof(cfg->prom)) {
				snprintf(err, sizeof(err), "the path is empty or too long");
				goto bad;
			}
			break;
		case OPT_PHASE:
			if (parse_duration(optarg, NSEC_PER_SEC, &cfg->phase_ns, err, sizeof(err)))
				goto bad;
			phase_given = true;
			break;
		case OPT_HTML:
			if (snprintf(cfg->html, sizeof(cfg->html), "%s", optarg) >=
			    (int)sizeof(cfg->html)) {
				snprintf(err, sizeof(err), "path too long");
				goto bad;
			}
			break;
		case OPT_COLOR:
			if (cli_color_parse(optarg, &cfg->color)) {
				snprintf(err, sizeof(err), "'%s' is not auto, always or never",
					 optarg);
				goto bad;
			}
			break;
		case OPT_SET:
			if (cfg->nset == CLI_MAX_SET) {
				snprintf(err, sizeof(err), "at most %d", CLI_MAX_SET);
				goto bad;
			}
			if ((rc = tweak_add(&cfg->tweaks, optarg, err, sizeof(err))) < 0) {
				/* tweak_add names the option and path itself */
				rtsoak_error("%s", rc == -ENOMEM ? "out of memory" : err);
				return EXIT_USAGE;
			}
			cfg->set[cfg->nset++] = optarg;
			break;
		case OPT_FORCE:
			cfg->force = true;
			break;
		case OPT_FAIL_IF: {
			struct compare_limit l;
			if (!cfg->ab) {
				snprintf(err, sizeof(err),
					 "only with rtsoak ab (rtsoak compare for two reports)");
				goto bad;
			}
			if (cfg->nfail_if == CLI_MAX_SET) {
				snprintf(err, sizeof(err), "at most %d", CLI_MAX_SET);
				goto bad;
			}
			if (compare_limit_parse(optarg, &l, err, sizeof(err))) {
				rtsoak_error("ab: %s", err);
				return EXIT_USAGE;
			}
			cfg->fail_if[cfg->nfail_if++] = optarg;
			break;
		}
		case OPT_ROUNDS:
		case OPT_ROUND_DURATION:
			if (!cfg->ab) {
				snprintf(err, sizeof(err), "only with rtsoak ab");
				goto bad;
			}
			if (opt == OPT_ROUNDS) {
				if (parse_u64(optarg, 1, AB_MAX_ROUNDS, &v, err, sizeof(err)))
					goto bad;
				cfg->ab_rounds = (unsigned)v;
			} else if (parse_duration(optarg, NSEC_PER_SEC, &cfg->round_ns, err,
						  sizeof(err))) {
				goto bad;
			}
			break;
		case 'h':
			cli_usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("rtsoak %s\n", PACKAGE_VERSION);
			return EXIT_OK;
		case ':':
			rtsoak_error("%s needs a value (see rtsoak --help)", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			rtsoak_error("unknown option '%s' (see rtsoak --help)", argv[optind - 1]);
			return EXIT_USAGE;
		}
		continue;
	bad:
		rtsoak_error("%s: %s", optname, err);
		return EXIT_USAGE;
	}
	if (optind < argc) {
		rtsoak_error("unexpected argument '%s' (see rtsoak --help)", argv[optind]);
		return EXIT_USAGE;
	}
	if ((rc = check_ignored(cfg, duration_given, nspecs, load_cpus_given, workdir_given,
				phase_given, checkpoint_given)) >= 0)
		return rc;

	if (cfg->ab && (rc = check_ab(cfg, duration_given)) >= 0)
		return rc;
	if (!duration_given && !cfg->ab)
		cfg->duration_ns = cfg->loops ? 0 : DEFAULT_DURATION_NS;
	if (!cpus_given) {
		struct cpuset online;
		if (cpuset_allowed(&cfg->cpus) == 0 && cpuset_online(&online) == 0)
			cpuset_and(&cfg->cpus, &online);
		if (cpuset_empty(&cfg->cpus)) {
			rtsoak_error("--cpus: no online CPU is in this process's affinity mask");
			return EXIT_ENV;
		}
	}
	if (!load_cpus_given && cpuset_online(&cfg->load_cpus) < 0)
		cpuset_allowed(&cfg->load_cpus);
	if (nspecs && ((rc = check_workdir(cfg->workdir)) >= 0 ||
		       (rc = parse_loads(cfg, specs, nspecs)) >= 0))
		return rc;
	if ((rc = configure_probes(cfg)) >= 0)
		return rc;
	if (cfg->rotate && cfg->nloads == 0) {
		rtsoak_error("--schedule rotate: needs --loads (phases are idle and each load)");
		return EXIT_USAGE;
	}
	if (!cfg->output[0])
		default_output(cfg->output, sizeof(cfg->output));
	/* What each output is decides how it is written (output.h), and a
	 * directory or a socket is refused here, not after the run. */
	if ((rc = cli_output_writable(NULL, "--output", cfg->output, OUTPUT_JSON,
				      cfg->checkpoint_ns ? "; no checkpoints" : NULL)) < 0)
		return EXIT_USAGE;
	/* A checkpoint is only safe as an atomic replace: a device would get
	 * a stream of reports, a FIFO would stall the run until read. */
	if (rc != OUTPUT_FILE)
		cfg->checkpoint_ns = 0;
	if (cfg->html[0] && cli_output_writable(NULL, "--html", cfg->html, OUTPUT_HTML, NULL) < 0)
		return EXIT_USAGE;
	if (cfg->prom[0] && cli_output_writable(NULL, "--prom", cfg->prom, OUTPUT_PROM,
						"; only at the end of the run") < 0)
		return EXIT_USAGE;
	/* Before the run, not after it: what a killed run left is the
	 * user's to keep. */
	(void)output_stale();
	if ((rc = take_locks(cfg)) >= 0)
		return rc;
	if (!cfg->series_given) {
		/* 1 s, or coarser when the run would not fit in the limit: a
		 * whole number of seconds, so intervals line up with the clock. */
		uint64_t fit = cfg->duration_ns / cfg->series_limit + 1;
		cfg->series_ns = NSEC_PER_SEC;
		if (fit > NSEC_PER_SEC)
			cfg->series_ns = (fit + NSEC_PER_SEC - 1) / NSEC_PER_SEC * NSEC_PER_SEC;
	}
	cfg->argc = argc;
	cfg->argv = argv;
	return -1;
}

static int parse(struct run_config *cfg, int argc, char **argv, bool ab)
{
	char *specs[LOAD_MAX_INSTANCES];
	unsigned nspecs = 0;
	int rc = parse_all(cfg, argc, argv, ab, specs, &nspecs);

	for (unsigned i = 0; i < nspecs; i++)
		free(specs[i]);
	return rc;
}

int cli_parse_run(struct run_config *cfg, int argc, char **argv)
{
	return parse(cfg, argc, argv, false);
}

int cli_parse_ab(struct run_config *cfg, int argc, char **argv)
{
	return parse(cfg, argc, argv, true);
}

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
	json_object_set_new(c, "probes", probes);
	json_object_set_new(c, "top_k", json_integer(cfg->top_k));
	json_object_set_new(c, "dma_latency_us",
			    cfg->dma_latency_us >= 0 ? json_integer(cfg->dma_latency_us)
						     : json_null());
	json_object_set_new(c, "no_rt", json_boolean(cfg->no_rt));
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
	json_object_set_new(c, "html", cfg->html[0] ? json_string(cfg->html) : json_null());
	json_object_set_new(c, "phase_duration_ns",
			    cfg->rotate ? json_integer((json_int_t)cfg->phase_ns) : json_null());
	json_t *set = json_array();
	for (unsigned i = 0; i < cfg->nset; i++)
		json_array_append_new(set, json_string(cfg->set[i]));
	json_object_set_new(c, "set", set);
	json_object_set_new(c, "ab",
			    cfg->ab ? json_pack("{s:I, s:I}", "rounds_per_arm",
						(json_int_t)cfg->ab_rounds, "round_duration_ns",
						(json_int_t)cfg->round_ns)
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
