/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli: the command line of `rtsoak run`.  Everything a run needs is parsed
 * and checked here, before any thread starts or any file is written: a
 * 24-hour run must never be lost to a typo.  cli.c parses (the getopt loop),
 * cli_check.c checks once every option is known, cli_echo.c echoes the
 * result into the report, cli_list.c lists the loads and probes. */
#ifndef RTSOAK_CLI_H
#define RTSOAK_CLI_H

#include <limits.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "cmdopt.h"
#include "compare.h"
#include "cpuset.h"
#include "exit.h"
#include "load.h"
#include "output.h"
#include "probe.h"
#include "tweak.h"

struct report;

#define CLI_MAX_PROBES 8
#define CLI_DEFAULT_PROBES "timer,net"
#define CLI_MAX_ALIASES 32 /* every probe's command-line aliases together */
#define CLI_MAX_RECORD 64
#define CLI_MAX_SET 64
/* rtsoak ab: each round is a phase (PROBE_MAX_PHASES) */
#define AB_MAX_ROUNDS ((PROBE_MAX_PHASES - 1) / 2)
/* 5: with the default two judged statistics (p99, max), one moving alone needs
 * p < 0.025, which the exact rank test of 4 rounds per arm cannot reach (0.029) */
#define AB_DEFAULT_ROUNDS 5
#define AB_DEFAULT_ROUND_NS (60 * 1000000000ull)
/* --warmup: long enough for the loads' start-up, the probes' first page
 * and cache misses and a first CPU frequency ramp (the first wake-up of a
 * run was its worst, 14.6 ms: issue 15), short against a run. */
#define DEFAULT_WARMUP_NS (1 * 1000000000ull)
#define MAX_WARMUP_NS (3600 * 1000000000ull)
/* ab --settle default: a tenth of the round, at most this. */
#define AB_DEFAULT_SETTLE_MAX_NS (1 * 1000000000ull)

enum cli_color { CLI_COLOR_AUTO, CLI_COLOR_ALWAYS, CLI_COLOR_NEVER };

struct run_config {
	struct cpuset cpus;
	struct cpuset housekeeping; /* empty: leave the main thread unpinned */
	bool housekeeping_given;
	struct probe_config probes[CLI_MAX_PROBES];
	unsigned nprobes;
	int priority;
	uint64_t interval_ns;
	uint64_t duration_ns; /* 0: no time limit (only with --loops) */
	uint64_t loops;	      /* 0: until the duration ends */
	/* --warmup: the probes and loads run this long before time 0, and
	 * nothing counts; --duration is the counted time after it. */
	uint64_t warmup_ns;
	unsigned top_k;
	int dma_latency_us; /* -1: leave /dev/cpu_dma_latency alone */
	bool no_rt;
	bool trace;	   /* --trace: attribution from tracefs (session_trace.c) */
	bool trace_stacks; /* --trace-stacks (implies trace): stacks at local-timer IRQs */
	/* --on-spike CMD: /bin/sh -c CMD on the housekeeping CPUs for a logged
	 * spike (session_onspike.c); NULL: none.  Points into argv. */
	const char *on_spike;
	uint64_t on_spike_interval_ns; /* --on-spike-interval: at most one start per this */
	bool quiet;
	char output[PATH_MAX];	 /* "-" for stdout */
	struct lock output_lock; /* held for the run (lock.h); released by main */
	char html[PATH_MAX];	 /* --html: the page, written at the end; "" none */
	enum cli_color color;
	char *record[CLI_MAX_RECORD];
	unsigned nrecord;
	/* Loads (--loads, parsed after all options so that --load-cpus and
	 * --workdir apply wherever they stand). */
	struct load_instance loads[LOAD_MAX_INSTANCES];
	unsigned nloads;
	struct cpuset load_cpus;
	char workdir[PATH_MAX];
	bool rotate;		/* --schedule rotate */
	uint64_t phase_ns;	/* --phase-duration */
	uint64_t checkpoint_ns; /* --checkpoint: 0 never (and never with --output -) */
	uint64_t series_ns;	/* --series-interval (resolved: never 0 after parsing) */
	bool series_given;
	uint64_t series_limit;	  /* --series-limit: intervals kept per result */
	uint64_t spike_threshold; /* --spike-threshold: 0 auto (SERIES_AUTO_*) */
	char prom[PATH_MAX];	  /* --prom: OpenMetrics textfile; "" none */
	bool prom_keep;		  /* --prom-keep: leave it, marked finished, at the end */
	uint64_t prom_window_ns;  /* --prom-window: span of the windowed maximum */
	char run_name[128];	  /* --run-name (default: the report's file name): label run */
	/* Probe options given as command-line aliases (--net-interval T):
	 * applied to every --probes entry of that probe by configure_probes,
	 * the last value of each alias only. */
	struct {
		const struct probe_ops *ops;
		const struct probe_alias *alias;
		const char *value; /* in argv */
	} alias[CLI_MAX_ALIASES];
	unsigned nalias;
	/* What the probes see of the run (probe.h), filled from the above. */
	struct probe_env probe_env;
	/* --set PATH=VALUE: checked at parse time, journalled and applied by
	 * the session, restored on every way out. */
	struct tweak_set tweaks;
	char *set[CLI_MAX_SET]; /* as given, for the config echo */
	unsigned nset;
	bool force; /* --force: start despite an earlier run's journal */
	/* rtsoak ab: rounds per arm, ABBA order, tweaks only in B rounds. */
	bool ab;
	unsigned ab_rounds;
	uint64_t round_ns;
	/* ab --settle: nothing counts for this long after each arm switch
	 * (and at the start of the first round). */
	uint64_t settle_ns;
	char *fail_if[CLI_MAX_SET]; /* ab --fail-if(-raw), checked by compare_limit_parse */
	bool fail_if_raw[CLI_MAX_SET];
	unsigned nfail_if;
	struct compare_opts ab_opts; /* --verdict-on, --min-effect */
	bool ab_brief;		     /* --brief */
	int argc;
	char **argv;
};

/* Parse `rtsoak run` options (argv[0] is the subcommand or program name).
 * Returns -1 to go on, or an exit code after printing help/version (0) or a
 * one-line error (EXIT_USAGE). */
int cli_parse_run(struct run_config *cfg, int argc, char **argv);
/* The same for `rtsoak ab` (adds --rounds and --round-duration, needs --set). */
int cli_parse_ab(struct run_config *cfg, int argc, char **argv);
void cli_usage(FILE *out);
/* "rtsoak VERSION", with " (git REV)" when built from a git tree: the one
 * version line of `rtsoak version` and `rtsoak --version`. */
void cli_version(FILE *out);
/* The option tables (cmdopt.h) that parse each command, print its --help
 * and feed the completion: run and ab share one (the probes' aliases
 * included), report, compare and check have their own. */
const struct cmdopt *cli_cmdopts(void);
extern const struct cmdopt report_cmdopts[];
extern const struct cmdopt compare_cmdopts[];
extern const struct cmdopt check_cmdopts[];
/* The one-line error of an unknown option `arg` of command cmd, with a
 * did-you-mean hint when a name of opts is near; returns EXIT_USAGE. */
int cli_unknown_option(const char *cmd, const char *arg, const struct cmdopt *opts);
/* The effective configuration as the report's "config" object. */
json_t *cli_config_json(const struct run_config *cfg);
/* The commands of main.c's table that live in app/: each returns the exit
 * code.  `rtsoak report ...` (report_cli.c) and `rtsoak compare ...`
 * (compare_cli.c). */
int report_main(int argc, char **argv);
/* `rtsoak report A.json B.json ...`: the fleet view of several reports
 * (fleet_cli.c), given the options report_main parsed (NULL: not asked). */
int fleet_cli_main(char **files, int nfiles, bool text, const char *html, const char *json,
		   enum cli_color color);
/* rtsoak check: the tuning checks without measuring (app/check_cli.c). */
int check_cli_main(int argc, char **argv);
int compare_main(int argc, char **argv);
/* rtsoak cyclictest (and rtsoak run as `cyclictest`): cyclictest's command line, measured by
 * the timer probe, written as cyclictest writes it (app/cyclictest_cli.c); full_argv is the
 * command line as typed, which the report and the --json "cmdline:" record. */
int cyclictest_main(int argc, char **argv, int full_argc, char **full_argv);
extern const struct cmdopt cyclictest_cmdopts[];

/* `rtsoak loads`: every load, its options and whether it can run here. */
void cli_list_loads(FILE *out);
/* `rtsoak probes`: each probe, whether it can run here, its options. */
void cli_list_probes(FILE *out);
/* The completion data of the registries (`rtsoak __complete-spec`): "load
 * NAME", "loadopt NAME OPTION", "probe NAME", "probeopt NAME OPTION". */
void cli_list_complete(FILE *out);
/* --color auto|always|never.  auto: only on a terminal, and not when the
 * NO_COLOR environment variable is set and non-empty (no-color.org);
 * always and never are explicit and win over NO_COLOR. */
int cli_color_parse(const char *arg, enum cli_color *out);
bool cli_color_wanted(enum cli_color mode, FILE *out);

/* `rtsoak report` and `rtsoak compare`, which read reports and write views
 * of them, share these; cmd ("report", "compare") starts every error.
 *
 * The options both take, after each one's own cases: --color as 'c',
 * --help as 'h' (prints usage and the option lines of opts), and getopt_long's errors (':' a missing
 * value, anything else an unknown option; opterr = 0 and ":h" in its
 * optstring).  Returns -1 to go on, or the exit code (0 after the help,
 * EXIT_USAGE after a one-line error). */
int cli_report_option(const char *cmd, int opt, char **argv, const char *usage,
		      const struct cmdopt *opts, enum cli_color *color);
/* A command's --help: its usage text, then the option lines of its table. */
void cli_command_usage(FILE *out, const char *usage, const struct cmdopt *opts);
/* The path of output option opt ("--html"), checked before any input is
 * read or any run starts (a typo must not cost the read of a 24-hour
 * report): "-" (standard output), a file that can be written, or a device
 * or FIFO (written in place: says so once, with in_place appended when not
 * NULL).  A directory, socket, block device or missing directory is a
 * one-line error.  cmd NULL: `rtsoak run`, no prefix.  Notes the path for
 * output_stale (fmt: what it will hold).  Returns the enum output_kind, or
 * -1 after an error. */
int cli_output_writable(const char *cmd, const char *opt, const char *path, enum output_format fmt,
			const char *in_place);
/* Read a report or a cyclictest --json file.  Returns -1 when read, or the
 * exit code after a one-line error: EXIT_ENV out of memory, else
 * EXIT_USAGE. */
int cli_report_read(const char *cmd, const char *path, struct report *r);

#endif
