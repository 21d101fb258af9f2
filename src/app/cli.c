// SPDX-License-Identifier: GPL-2.0-or-later
/* cli: the command line of `rtsoak run` and `rtsoak ab`: the usage text, the
 * getopt table (run_options and the probes' aliases), the defaults and the
 * getopt loop, one handler per option group, each checking its option's
 * value on the spot; then the checks that need every option
 * (cli_check.c).  Also what `rtsoak report` and `rtsoak compare` share:
 * --color, their common options, output paths and the report reader.  The
 * config echo is cli_echo.c, `rtsoak loads`/`probes` cli_list.c. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_internal.h"
#include "cmdopt.h"
#include "compare.h"
#include "parse.h"
#include "report.h"
#include "sysinfo.h"
#include "util.h"
#include "views.h"
#include <git_rev.h> /* made by make (Makefile.am), like config.h */

#define DEFAULT_INTERVAL_NS (1 * NSEC_PER_MSEC)
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

int cli_unknown_option(const char *cmd, const char *arg, const struct cmdopt *opts)
{
	char hint[96], a[128];
	bool near = *cmdopt_hint(opts, arg, hint, sizeof(hint));

	rtsoak_error("%s: unknown option '%s'%s%s%s", cmd, util_escape(arg, a, sizeof(a)),
		     near ? " (" : "", hint, near ? ")" : "");
	return EXIT_USAGE;
}

void cli_command_usage(FILE *out, const char *usage, const struct cmdopt *opts)
{
	fputs(usage, out);
	fputs("\nOptions:\n", out);
	cmdopt_usage(out, opts);
}

int cli_report_option(const char *cmd, int opt, char **argv, const char *usage,
		      const struct cmdopt *opts, enum cli_color *color)
{
	switch (opt) {
	case 'c':
		if (!cli_color_parse(optarg, color))
			return -1;
		rtsoak_error("%s: --color: '%s' is not auto, always or never", cmd, optarg);
		return EXIT_USAGE;
	case 'h':
		cli_command_usage(stdout, usage, opts);
		return EXIT_OK;
	case ':':
		rtsoak_error("%s: %s needs a value", cmd, argv[optind - 1]);
		return EXIT_USAGE;
	default:
		return cli_unknown_option(cmd, argv[optind - 1], opts);
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

enum {
	OPT_TOP = 256,
	OPT_HOUSEKEEPING,
	OPT_DMA,
	OPT_NO_RT,
	OPT_TRACE,
	OPT_TRACE_STACKS,
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
	OPT_PROM_KEEP,
	OPT_PROM_WINDOW,
	OPT_RUN_NAME,
	OPT_SET,
	OPT_FORCE,
	OPT_ROUNDS,
	OPT_ROUND_DURATION,
	OPT_FAIL_IF,
	OPT_FAIL_IF_RAW,
	OPT_VERDICT_ON,
	OPT_MIN_EFFECT,
	OPT_BRIEF,
	OPT_HTML,
	OPT_COLOR,
	OPT_WARMUP,
	OPT_SETTLE,
	OPT_ON_SPIKE,
	OPT_ON_SPIKE_INTERVAL,
	OPT_ALIAS, /* OPT_ALIAS + k: the k-th probe alias (alias_options) */
};

/* rtsoak run and ab: the one table that parses them, prints their --help
 * and completes them (cmdopt.h); the probes' aliases follow it
 * (cli_cmdopts). */
static const struct cmdopt run_options[] = {
	{ "cpus", 'c', 'c', "LIST",
	  "CPUs to measure, e.g. 0-3,8 (default: all online CPUs we may use)", CMDOPT_CPUS, NULL },
	{ "priority", 'p', 'p', "N", "SCHED_FIFO priority of the probes, 1-99 (default 95)",
	  CMDOPT_NONE, NULL },
	{ "interval", 'i', 'i', "T",
	  "wake-up period: ns, us, ms, s; a bare number is us (default 1ms)", CMDOPT_NONE, NULL },
	{ "duration", 'D', 'D', "T", "run time: s, m, h, d; a bare number is s (default 60s)",
	  CMDOPT_NONE, NULL },
	{ "loops", 'l', 'l', "N",
	  "stop each probe after N samples (instead of --duration;\nno warm-up)", CMDOPT_NONE,
	  NULL },
	{ "warmup", 0, OPT_WARMUP, "T",
	  "probes and loads run T before anything counts; --duration\nis the counted time after it "
	  "(default 1s; 0: none)",
	  CMDOPT_NONE, NULL },
	{ "probes", 'P', 'P', "LIST", "probes to run, comma-separated (default: timer,net)",
	  CMDOPT_PROBES, NULL },
	{ "output", 'o', 'o', "FILE",
	  "report path, '-' for stdout (default rtsoak-<UTC time>.json)", CMDOPT_FILE, NULL },
	{ "quiet", 'q', 'q', NULL, "no summary and no progress line", CMDOPT_NONE, NULL },
	{ "top", 0, OPT_TOP, "K", "keep the K largest samples per result (default 32)", CMDOPT_NONE,
	  NULL },
	{ "housekeeping", 0, OPT_HOUSEKEEPING, "LIST",
	  "CPUs for rtsoak's own main thread (default: unmeasured CPUs)", CMDOPT_CPUS, NULL },
	{ "dma-latency", 0, OPT_DMA, "US",
	  "hold /dev/cpu_dma_latency at US microseconds for the run", CMDOPT_NONE, NULL },
	{ "no-rt", 0, OPT_NO_RT, NULL,
	  "run as SCHED_OTHER when real-time scheduling is not allowed", CMDOPT_NONE, NULL },
	{ "trace", 0, OPT_TRACE, NULL,
	  "explain every spike from kernel events (rtsoak's own tracefs\ninstance on the measured "
	  "CPUs; see WHY WAS IT LATE in rtsoak(1))",
	  CMDOPT_NONE, NULL },
	{ "trace-stacks", 0, OPT_TRACE_STACKS, NULL,
	  "--trace, and the stack at every local-timer interrupt: where\na late timer IRQ came (the "
	  "end of an IRQs-off section)",
	  CMDOPT_NONE, NULL },
	{ "on-spike", 0, OPT_ON_SPIKE, "CMD",
	  "run /bin/sh -c CMD on the housekeeping CPUs when a spike is\nlogged, its context in "
	  "RTSOAK_* variables (see ON SPIKE in\nrtsoak(1); it runs as rtsoak's user)",
	  CMDOPT_NONE, NULL },
	{ "on-spike-interval", 0, OPT_ON_SPIKE_INTERVAL, "T",
	  "--on-spike: at most one command per T (default 1s; 0: no\nlimit but one at a time)",
	  CMDOPT_NONE, NULL },
	{ "record", 0, OPT_RECORD, "GLOB",
	  "add the contents of matching /sys or /proc files to the report", CMDOPT_FILE, NULL },
	{ "loads", 0, OPT_LOADS, "SPEC",
	  "loads to run: NAME[:opt=val...][,NAME...] (see rtsoak loads)", CMDOPT_LOADS, NULL },
	{ "load-cpus", 0, OPT_LOAD_CPUS, "LIST",
	  "CPUs the loads run on (default: every online CPU)", CMDOPT_CPUS, NULL },
	{ "workdir", 0, OPT_WORKDIR, "DIR", "where loads create files (default: $TMPDIR or /tmp)",
	  CMDOPT_DIR, NULL },
	{ "schedule", 0, OPT_SCHEDULE, "MODE",
	  "together (default): all loads all the time; rotate: phases\nidle, then each load alone, "
	  "cycling",
	  CMDOPT_WORDS, "together rotate" },
	{ "phase-duration", 0, OPT_PHASE, "T",
	  "length of one phase with --schedule rotate (default 30s)", CMDOPT_NONE, NULL },
	{ "checkpoint", 0, OPT_CHECKPOINT, "T",
	  "rewrite the report (status running) this often; 0: never\n(default 60s; SIGUSR1 forces one)",
	  CMDOPT_NONE, NULL },
	{ "series-interval", 0, OPT_SERIES_INTERVAL, "T",
	  "time-series resolution (default 1s, longer when --duration\nwould exceed --series-limit "
	  "intervals)",
	  CMDOPT_NONE, NULL },
	{ "series-limit", 0, OPT_SERIES_LIMIT, "N",
	  "intervals kept per result; beyond, pairs merge (default 100000)", CMDOPT_NONE, NULL },
	{ "spike-threshold", 0, OPT_SPIKE_THRESHOLD, "T|auto",
	  "log samples above T; a bare number is us (default auto:\n10 x the median of each result's "
	  "first 5 s)",
	  CMDOPT_WORDS, "auto" },
	{ "prom", 0, OPT_PROM, "FILE",
	  "write OpenMetrics text (node_exporter textfile) every second;\nremoved at the end unless "
	  "--prom-keep (then marked finished)",
	  CMDOPT_FILE, NULL },
	{ "prom-keep", 0, OPT_PROM_KEEP, NULL, "--prom: leave the file at the end, marked finished",
	  CMDOPT_NONE, NULL },
	{ "prom-window", 0, OPT_PROM_WINDOW, "T",
	  "--prom: span of rtsoak_latency_window_max_seconds (default 60s)", CMDOPT_NONE, NULL },
	{ "run-name", 0, OPT_RUN_NAME, "NAME",
	  "label run= of the --prom series (default: the report's name)", CMDOPT_NONE, NULL },
	{ "html", 0, OPT_HTML, "FILE", "also write the report as one self-contained HTML page",
	  CMDOPT_FILE, NULL },
	{ "color", 0, OPT_COLOR, "WHEN",
	  "colour in the summary: auto (a terminal, no NO_COLOR),\nalways or never", CMDOPT_WORDS,
	  "auto always never" },
	{ "set", 0, OPT_SET, "PATH=VALUE",
	  "write VALUE to a /sys or /proc/sys file (PATH may be a glob)\nfor the run; originals "
	  "journalled in REPORT.journal and\nrestored at the end (rtsoak restore after a crash)\n"
	  "(each file locked for the run; see SAFETY in rtsoak(1))",
	  CMDOPT_FILE, NULL },
	{ "force", 0, OPT_FORCE, NULL,
	  "start although an earlier or killed run's journal is still\npresent", CMDOPT_NONE,
	  NULL },
	{ "rounds", 0, OPT_ROUNDS, "N", "ab: rounds per arm, in ABBA order (default 5, at most 8)",
	  CMDOPT_NONE, NULL },
	{ "round-duration", 0, OPT_ROUND_DURATION, "T", "ab: length of one round (default 60s)",
	  CMDOPT_NONE, NULL },
	{ "settle", 0, OPT_SETTLE, "T",
	  "ab: nothing counts for T after each arm switch and at the\nfirst round's start (default a "
	  "tenth of the round, at\nmost 1s; 0: from the switch's end)",
	  CMDOPT_NONE, NULL },
	{ "fail-if", 0, OPT_FAIL_IF, "STAT>CHANGE",
	  "ab: exit 1 when B changes STAT significantly by more\n(e.g. p99>+10%: the 95 % CI of the "
	  "shift beyond +10 %)",
	  CMDOPT_NONE, NULL },
	{ "fail-if-raw", 0, OPT_FAIL_IF_RAW, "STAT>CHANGE",
	  "ab: the same on the plain values, no noise model", CMDOPT_NONE, NULL },
	{ "verdict-on", 0, OPT_VERDICT_ON, "STAT[,STAT]",
	  "ab: what the verdict judges (default p99,max)", CMDOPT_NONE, NULL },
	{ "min-effect", 0, OPT_MIN_EFFECT, "AMOUNT[,PCT%]",
	  "ab: smaller shifts are no practical difference\n(default 2us,5%: the larger of the two)",
	  CMDOPT_NONE, NULL },
	{ "brief", 0, OPT_BRIEF, NULL, "ab: print only the verdicts and the --fail-if results",
	  CMDOPT_NONE, NULL },
	{ "help", 'h', 'h', NULL, "this help", CMDOPT_NONE, NULL },
	{ "version", 'V', 'V', NULL, "print the version", CMDOPT_NONE, NULL },
	{ NULL, 0, 0, NULL, NULL, CMDOPT_NONE, NULL },
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
 * run's table is run_options followed by these, each with its probe
 * option's help. */
#define NRUN_OPTIONS (sizeof(run_options) / sizeof(run_options[0]) - 1)
static struct {
	const struct probe_ops *ops;
	const struct probe_alias *alias;
	char help[256];
	char words[128]; /* a choice's words, for the completion */
} alias_table[CLI_MAX_ALIASES];
static struct cmdopt all_cmdopts[NRUN_OPTIONS + CLI_MAX_ALIASES + 1];
static struct option all_options[NRUN_OPTIONS + CLI_MAX_ALIASES + 1];
static char all_shorts[2 * NRUN_OPTIONS + 2];

/* The metavariable of an alias's value, by its type. */
static const char *alias_metavar(const struct opt *o)
{
	switch (o->type) {
	case OPT_INT:
		return "N";
	case OPT_SIZE:
		return "SIZE";
	case OPT_TIME:
		return "T";
	case OPT_CHOICE:
		return "WORD";
	default:
		return "TEXT";
	}
}

const struct cmdopt *cli_cmdopts(void)
{
	static unsigned n;
	static bool done;

	if (done)
		return all_cmdopts;
	memcpy(all_cmdopts, run_options, NRUN_OPTIONS * sizeof(*run_options));
	for (unsigned i = 0; probe_registry[i]; i++)
		for (const struct probe_alias *a = probe_registry[i]->aliases; a && a->flag; a++) {
			const struct probe_ops *ops = probe_registry[i];
			const struct opt *o = &ops->options[opt_index(ops->options, a->option)];
			if (n == CLI_MAX_ALIASES)
				abort(); /* a bug: raise CLI_MAX_ALIASES */
			alias_table[n].ops = ops;
			alias_table[n].alias = a;
			snprintf(alias_table[n].help, sizeof(alias_table[n].help),
				 "%s probe: %s\n(the same as %s:%s=V)", ops->name, o->help,
				 ops->name, a->option);
			for (const char *const *w = o->type == OPT_CHOICE ? o->choices : NULL;
			     w && *w; w++)
				snprintf(alias_table[n].words + strlen(alias_table[n].words),
					 sizeof(alias_table[n].words) -
					     strlen(alias_table[n].words),
					 "%s%s", w == o->choices ? "" : " ", *w);
			all_cmdopts[NRUN_OPTIONS + n] = (struct cmdopt){
				a->flag,
				0,
				OPT_ALIAS + (int)n,
				alias_metavar(o),
				alias_table[n].help,
				o->type == OPT_CHOICE ? CMDOPT_WORDS : CMDOPT_NONE,
				alias_table[n].words,
			};
			n++;
		}
	all_cmdopts[NRUN_OPTIONS + n] = (struct cmdopt){ 0 };
	if (cmdopt_getopt(all_cmdopts, all_options, sizeof(all_options) / sizeof(all_options[0]),
			  all_shorts, sizeof(all_shorts)))
		abort(); /* a bug: the arrays are sized for the table */
	done = true;
	return all_cmdopts;
}

void cli_usage(FILE *out)
{
	fputs("usage: rtsoak [run] [OPTION]...\n"
	      "       rtsoak ab --set PATH=VALUE... [--rounds N] [--round-duration T] [OPTION]...\n"
	      "       rtsoak help [COMMAND]  (each command's own options: rtsoak help COMMAND)\n"
	      "\n"
	      "Measure wake-up latency of pinned SCHED_FIFO threads and write a JSON report.\n"
	      "\n",
	      out);
	cmdopt_usage(out, cli_cmdopts());
	fputs("\nExit status: 0 ok, 1 a declared limit failed, 2 usage or input error, 3 "
	      "environment error.\n",
	      out);
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

/* A time that may be zero (--warmup, --settle): "0", "0s", "0.0ms" are 0,
 * anything else a positive duration (a bare number in s). */
static int parse_time_or_zero(const char *arg, uint64_t *out, char *err, size_t errlen)
{
	size_t n = strspn(arg, "0.");
	char one[16];

	if (n && strspn(arg, "0123456789.") == n && strlen(arg + n) < sizeof(one) - 1) {
		/* Only zeros: zero when what follows is a unit (or nothing). */
		snprintf(one, sizeof(one), "1%s", arg + n);
		if (strchr(arg, '0') && !parse_duration(one, NSEC_PER_SEC, out, err, errlen)) {
			*out = 0;
			return 0;
		}
	}
	return parse_duration(arg, NSEC_PER_SEC, out, err, errlen) ? -EINVAL : 0;
}

/* What every run starts from, before its options. */
static void set_defaults(struct run_config *cfg, bool ab)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ab = ab;
	cfg->ab_rounds = AB_DEFAULT_ROUNDS;
	compare_opts_default(&cfg->ab_opts);
	cfg->round_ns = AB_DEFAULT_ROUND_NS;
	cfg->warmup_ns = DEFAULT_WARMUP_NS;
	cfg->priority = 95;
	cfg->interval_ns = DEFAULT_INTERVAL_NS;
	cfg->top_k = RECORDER_TOP_DEFAULT;
	cfg->dma_latency_us = -1;
	parse_probes(cfg, CLI_DEFAULT_PROBES);
	cfg->phase_ns = 30 * NSEC_PER_SEC;
	cfg->checkpoint_ns = 60 * NSEC_PER_SEC;
	cfg->series_limit = SERIES_LIMIT_DEFAULT;
	cfg->prom_window_ns = 60 * NSEC_PER_SEC;
	cfg->on_spike_interval_ns = 1 * NSEC_PER_SEC;
	const char *tmpdir = getenv("TMPDIR");
	snprintf(cfg->workdir, sizeof(cfg->workdir), "%s", tmpdir && *tmpdir ? tmpdir : "/tmp");
}

/* The option handlers below return -1 to go on, an exit code after a
 * one-line error (or after --help and --version), or NOT_MINE for an
 * option of another group. */
#define NOT_MINE (-2)
#define ERR_LEN 1024

/* A bad value: "--OPTION: why", exit 2. */
static int bad_value(const char *optname, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int bad_value(const char *optname, const char *fmt, ...)
{
	char err[ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, sizeof(err), fmt, ap);
	va_end(ap);
	rtsoak_error("%s: %s", optname, err);
	return EXIT_USAGE;
}

/* What is measured and how: CPUs, priority, period, length, probes. */
static int opt_measure(struct cli_parse *p, int opt, const char *optname)
{
	struct run_config *cfg = p->cfg;
	char err[ERR_LEN];
	uint64_t v;
	int rc;

	switch (opt) {
	case 'c':
		if ((rc = check_cpus(optname, optarg, &cfg->cpus)) >= 0)
			return rc;
		p->cpus_given = true;
		return -1;
	case 'p':
		if (parse_u64(optarg, 1, 99, &v, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		cfg->priority = (int)v;
		return -1;
	case 'i':
		if (parse_interval(optarg, &cfg->interval_ns, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		return -1;
	case 'D':
		if (parse_duration(optarg, NSEC_PER_SEC, &cfg->duration_ns, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		p->duration_given = true;
		return -1;
	case 'l':
		if (parse_u64(optarg, 1, UINT64_MAX / 2, &cfg->loops, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		return -1;
	case OPT_WARMUP:
		if (parse_time_or_zero(optarg, &cfg->warmup_ns, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		if (cfg->warmup_ns > MAX_WARMUP_NS)
			return bad_value(optname, "'%s' is longer than 1h", optarg);
		p->warmup_given = true;
		return -1;
	case 'P':
		return parse_probes(cfg, optarg);
	case OPT_TOP:
		if (parse_u64(optarg, 0, RECORDER_TOP_MAX, &v, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		cfg->top_k = (unsigned)v;
		return -1;
	case OPT_HOUSEKEEPING:
		if ((rc = check_cpus(optname, optarg, &cfg->housekeeping)) >= 0)
			return rc;
		cfg->housekeeping_given = true;
		return -1;
	case OPT_DMA:
		if (parse_u64(optarg, 0, 2000000000, &v, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		cfg->dma_latency_us = (int)v;
		return -1;
	case OPT_NO_RT:
		cfg->no_rt = true;
		return -1;
	case OPT_TRACE:
		cfg->trace = true;
		return -1;
	case OPT_TRACE_STACKS:
		cfg->trace = cfg->trace_stacks = true;
		return -1;
	default:
		return NOT_MINE;
	}
}

/* What the report holds and where it and its views go. */
static int opt_report(struct cli_parse *p, int opt, const char *optname)
{
	struct run_config *cfg = p->cfg;
	char err[ERR_LEN];
	int rc;

	switch (opt) {
	case 'o':
		if (!*optarg)
			return bad_value(optname, "the path is empty");
		if (snprintf(cfg->output, sizeof(cfg->output), "%s", optarg) >=
		    (int)sizeof(cfg->output))
			return bad_value(optname, "the path is too long");
		return -1;
	case 'q':
		cfg->quiet = true;
		return -1;
	case OPT_RECORD:
		if ((rc = sysinfo_record_check(optarg, err, sizeof(err))) < 0)
			return bad_value(optname, "%s", err);
		if (rc > 0) /* some files left out: say so, the run goes on */
			rtsoak_error("%s: warning: %s", optname, err);
		if (cfg->nrecord == CLI_MAX_RECORD)
			return bad_value(optname, "at most %d globs", CLI_MAX_RECORD);
		cfg->record[cfg->nrecord++] = optarg;
		return -1;
	case OPT_ON_SPIKE:
		/* Only blanks is no command: sh -c would run nothing, each time. */
		if (!optarg[strspn(optarg, " \t\n")])
			return bad_value(optname, "the command is empty");
		cfg->on_spike = optarg;
		return -1;
	case OPT_ON_SPIKE_INTERVAL:
		if (parse_time_or_zero(optarg, &cfg->on_spike_interval_ns, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		p->on_spike_interval_given = true;
		return -1;
	case OPT_CHECKPOINT:
		p->checkpoint_given = true;
		if (!strcmp(optarg, "0")) {
			cfg->checkpoint_ns = 0;
			return -1;
		}
		if (parse_duration(optarg, NSEC_PER_SEC, &cfg->checkpoint_ns, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		return -1;
	case OPT_SERIES_INTERVAL:
		if (parse_duration(optarg, NSEC_PER_SEC, &cfg->series_ns, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		if (cfg->series_ns < NSEC_PER_MSEC)
			return bad_value(optname, "'%s' is below the 1ms minimum", optarg);
		cfg->series_given = true;
		return -1;
	case OPT_SERIES_LIMIT:
		if (parse_u64(optarg, SERIES_LIMIT_MIN, 100000000, &cfg->series_limit, err,
			      sizeof(err)))
			return bad_value(optname, "%s", err);
		return -1;
	case OPT_SPIKE_THRESHOLD:
		cfg->spike_threshold = SERIES_THRESHOLD_AUTO;
		if (strcmp(optarg, "auto") != 0 &&
		    parse_duration(optarg, NSEC_PER_USEC, &cfg->spike_threshold, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		return -1;
	case OPT_PROM:
		if (!*optarg ||
		    snprintf(cfg->prom, sizeof(cfg->prom), "%s", optarg) >= (int)sizeof(cfg->prom))
			return bad_value(optname, "the path is empty or too long");
		return -1;
	case OPT_PROM_KEEP:
		cfg->prom_keep = true;
		return -1;
	case OPT_PROM_WINDOW:
		if (parse_duration(optarg, NSEC_PER_SEC, &cfg->prom_window_ns, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		if (cfg->prom_window_ns < NSEC_PER_MSEC)
			return bad_value(optname, "'%s' is below the 1ms minimum", optarg);
		p->prom_window_given = true;
		return -1;
	case OPT_RUN_NAME:
		p->run_name_given = true;
		/* A label value: any UTF-8 is legal, but a control character
		 * or an empty name is a mistake on the command line. */
		for (const char *c = optarg; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				return bad_value(optname, "control characters are not allowed");
		if (!*optarg || snprintf(cfg->run_name, sizeof(cfg->run_name), "%s", optarg) >=
				    (int)sizeof(cfg->run_name))
			return bad_value(optname, "empty or longer than %zu bytes",
					 sizeof(cfg->run_name) - 1);
		return -1;
	case OPT_HTML:
		if (snprintf(cfg->html, sizeof(cfg->html), "%s", optarg) >= (int)sizeof(cfg->html))
			return bad_value(optname, "path too long");
		return -1;
	case OPT_COLOR:
		if (cli_color_parse(optarg, &cfg->color))
			return bad_value(optname, "'%s' is not auto, always or never", optarg);
		return -1;
	default:
		return NOT_MINE;
	}
}

/* The loads and where and when they run; --loads is split here and parsed
 * by the checks, once --load-cpus and --workdir are known. */
static int opt_loads(struct cli_parse *p, int opt, const char *optname)
{
	struct run_config *cfg = p->cfg;
	char err[ERR_LEN];
	int rc;

	switch (opt) {
	case OPT_LOADS:
		return split_loads(p->specs, &p->nspecs, optarg);
	case OPT_LOAD_CPUS:
		if ((rc = check_cpus(optname, optarg, &cfg->load_cpus)) >= 0)
			return rc;
		p->load_cpus_given = true;
		return -1;
	case OPT_WORKDIR:
		if (snprintf(cfg->workdir, sizeof(cfg->workdir), "%s", optarg) >=
		    (int)sizeof(cfg->workdir))
			return bad_value(optname, "the path is too long");
		p->workdir_given = true;
		return -1;
	case OPT_SCHEDULE:
		if (strcmp(optarg, "together") && strcmp(optarg, "rotate"))
			return bad_value(optname, "'%s' is not together or rotate", optarg);
		cfg->rotate = !strcmp(optarg, "rotate");
		return -1;
	case OPT_PHASE:
		if (parse_duration(optarg, NSEC_PER_SEC, &cfg->phase_ns, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		p->phase_given = true;
		return -1;
	default:
		return NOT_MINE;
	}
}

/* --set and --force, and ab's own options. */
static int opt_tweaks(struct cli_parse *p, int opt, const char *optname)
{
	struct run_config *cfg = p->cfg;
	char err[ERR_LEN];
	uint64_t v;
	int rc;

	switch (opt) {
	case OPT_SET:
		if (cfg->nset == CLI_MAX_SET)
			return bad_value(optname, "at most %d", CLI_MAX_SET);
		if ((rc = tweak_add(&cfg->tweaks, optarg, err, sizeof(err))) < 0) {
			/* tweak_add names the option and path itself */
			rtsoak_error("%s", rc == -ENOMEM ? "out of memory" : err);
			return EXIT_USAGE;
		}
		cfg->set[cfg->nset++] = optarg;
		return -1;
	case OPT_FORCE:
		cfg->force = true;
		return -1;
	case OPT_FAIL_IF:
	case OPT_FAIL_IF_RAW: {
		struct compare_limit l;
		if (!cfg->ab)
			return bad_value(optname,
					 "only with rtsoak ab (rtsoak compare for two reports)");
		if (cfg->nfail_if == CLI_MAX_SET)
			return bad_value(optname, "at most %d", CLI_MAX_SET);
		if (compare_limit_parse(optarg, opt == OPT_FAIL_IF_RAW, &l, err, sizeof(err))) {
			rtsoak_error("ab: %s", err);
			return EXIT_USAGE;
		}
		cfg->fail_if_raw[cfg->nfail_if] = opt == OPT_FAIL_IF_RAW;
		cfg->fail_if[cfg->nfail_if++] = optarg;
		return -1;
	}
	case OPT_SETTLE:
		if (!cfg->ab)
			return bad_value(optname,
					 "only with rtsoak ab (rounds settle after a switch)");
		/* Against the round once every option is known (check_ab). */
		if (parse_time_or_zero(optarg, &cfg->settle_ns, err, sizeof(err)))
			return bad_value(optname, "%s", err);
		p->settle_given = true;
		p->settle_arg = optarg;
		return -1;
	case OPT_VERDICT_ON:
	case OPT_MIN_EFFECT:
	case OPT_BRIEF:
		if (!cfg->ab)
			return bad_value(optname, "only with rtsoak ab (and rtsoak compare)");
		if (opt == OPT_BRIEF) {
			cfg->ab_brief = true;
			return -1;
		}
		if ((opt == OPT_VERDICT_ON
			 ? compare_opts_verdict_on(&cfg->ab_opts, optarg, err, sizeof(err))
			 : compare_opts_min_effect(&cfg->ab_opts, optarg, err, sizeof(err)))) {
			rtsoak_error("ab: %s", err);
			return EXIT_USAGE;
		}
		return -1;
	case OPT_ROUNDS:
	case OPT_ROUND_DURATION:
		if (!cfg->ab)
			return bad_value(optname, "only with rtsoak ab");
		if (opt == OPT_ROUNDS) {
			if (parse_u64(optarg, 1, AB_MAX_ROUNDS, &v, err, sizeof(err)))
				return bad_value(optname, "%s", err);
			cfg->ab_rounds = (unsigned)v;
		} else if (parse_duration(optarg, NSEC_PER_SEC, &cfg->round_ns, err, sizeof(err))) {
			return bad_value(optname, "%s", err);
		}
		return -1;
	default:
		return NOT_MINE;
	}
}

/* cyclictest's -h US (--histogram) typed out of habit: "-h1000", or "-h"
 * then a number.  rtsoak's -h is --help, which would print the help and
 * exit 0 as if the run had been done; say so instead (exit 2).  After
 * getopt returned 'h' from "-h1000" optind still points at that word. */
static bool cyclictest_h(const struct cli_parse *p)
{
	const char *w = optind < p->argc ? p->argv[optind] : NULL;
	const char *h = w && w[0] == '-' && w[1] != '-' ? strchr(w, 'h') : NULL;
	bool value = h && h[1] >= '0' && h[1] <= '9';

	if (!value && w && !strcmp(p->argv[optind - 1], "-h"))
		value = *w && strspn(w, "0123456789") == strlen(w);
	if (value)
		rtsoak_error(
		    "-h takes no value: rtsoak has no -h US like cyclictest's --histogram, "
		    "the report always holds the histograms (see rtsoak help run)");
	return value;
}

/* --help, --version and getopt's errors: the last group takes every option. */
void cli_version(FILE *out)
{
	fprintf(out, "rtsoak %s", PACKAGE_VERSION);
	if (RTSOAK_GIT_REV[0])
		fprintf(out, " (git %s)", RTSOAK_GIT_REV);
	fputc('\n', out);
}

static int opt_other(struct cli_parse *p, int opt, const char *optname)
{
	(void)optname;
	switch (opt) {
	case 'h':
		if (cyclictest_h(p))
			return EXIT_USAGE;
		cli_usage(stdout);
		return EXIT_OK;
	case 'V':
		cli_version(stdout);
		return EXIT_OK;
	case ':':
		rtsoak_error("%s needs a value (see rtsoak --help)", p->argv[optind - 1]);
		return EXIT_USAGE;
	default: {
		char hint[96];
		const char *arg = p->argv[optind - 1];
		bool near = *cmdopt_hint(cli_cmdopts(), arg, hint, sizeof(hint));
		rtsoak_error("unknown option '%s' (%s)", arg, near ? hint : "see rtsoak help run");
		return EXIT_USAGE;
	}
	}
}

static int (*const option_groups[])(struct cli_parse *p, int opt, const char *optname) = {
	opt_measure, opt_report, opt_loads, opt_tweaks, opt_other,
};

/* The getopt loop: each option to its group's handler (a probe alias to
 * note_alias), stopping at the first error; then no argument may be left. */
static int parse_options(struct cli_parse *p)
{
	const struct cmdopt *options = cli_cmdopts();
	int opt, rc;

	optind = 1;
	opterr = 0; /* we print our own one-line errors */
	while ((opt = getopt_long(p->argc, p->argv, all_shorts, all_options, NULL)) != -1) {
		const struct cmdopt *o = cmdopt_by_val(options, opt);
		char optname[40];
		snprintf(optname, sizeof(optname), "--%s", o ? o->name : "?");

		rc = NOT_MINE;
		if (opt >= OPT_ALIAS)
			rc = note_alias(p->cfg, (unsigned)(opt - OPT_ALIAS), optname, optarg);
		for (unsigned g = 0; rc == NOT_MINE; g++)
			rc = option_groups[g](p, opt, optname);
		if (rc >= 0)
			return rc;
	}
	if (optind < p->argc) {
		rtsoak_error("unexpected argument '%s' (see rtsoak --help)", p->argv[optind]);
		return EXIT_USAGE;
	}
	return -1;
}

/* The whole command line: the defaults, the options, then the checks that
 * need all of them (cli_check.c). */
static int parse(struct run_config *cfg, int argc, char **argv, bool ab)
{
	struct cli_parse p = { .cfg = cfg, .argc = argc, .argv = argv };
	int rc;

	set_defaults(cfg, ab);
	if ((rc = parse_options(&p)) < 0 && (rc = cli_check_config(&p)) < 0) {
		cfg->argc = argc;
		cfg->argv = argv;
	}
	/* The --loads specs, on every way out: the loads keep their own. */
	for (unsigned i = 0; i < p.nspecs; i++)
		free(p.specs[i]);
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
