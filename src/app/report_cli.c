// SPDX-License-Identifier: GPL-2.0-or-later
/* report_cli: `rtsoak report FILE.json [--text] [--html OUT] [--histogram-text OUT]
 * [--json OUT] [--prom OUT] [--rt-tests-json OUT] [--lava] [--color auto|always|never]
 * [--cpu-rows auto|all|worst]`: read a report (or a
 * cyclictest --json file) into the model and render it in each view asked for.
 * Without an output option it prints the terminal summary.  Given several
 * files it is the fleet view (fleet_cli.c): --text, --html and --json only. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "views.h"

static const char usage[] =
    "usage: rtsoak report FILE.json [--text] [--html OUT] [--histogram-text OUT]\n"
    "                    [--json OUT] [--prom OUT] [--rt-tests-json OUT] [--lava]\n"
    "                    [--color auto|always|never] [--cpu-rows auto|all|worst]\n"
    "       rtsoak report A.json B.json... [--text] [--html OUT] [--json OUT]\n"
    "  FILE.json: an rtsoak report or a cyclictest --json file.  OUT '-' is standard output.\n"
    "  --text: the terminal summary (the default when no output is asked for)\n"
    "  --html: one self-contained page with plots; --histogram-text: cyclictest -h layout;\n"
    "  --json: the report again (a round trip); --prom: the node_exporter textfile;\n"
    "  --rt-tests-json: the timer probe as cyclictest --json writes it;\n"
    "  --lava: LAVA result lines on standard output (result.txt / send-to-lava.sh).\n"
    "  --cpu-rows: the summary's per-CPU rows: all, or the 8 worst of each probe and phase\n"
    "  (worst); auto: the worst above 16 measured CPUs.\n"
    "  Several files: the fleet view, one row per report, worst first (--text, the default);\n"
    "  --html: the table and per host x CPU heat maps, linking each report's own NAME.html;\n"
    "  --json: the rows as rtsoak-fleet/1.\n";

/* The table that parses `rtsoak report`, prints its options and completes
 * them (cmdopt.h). */
const struct cmdopt report_cmdopts[] = {
	{ "text", 0, 't', NULL, "the terminal summary (the default when no output is asked for)",
	  CMDOPT_NONE, NULL },
	{ "html", 0, 'H', "OUT", "one self-contained page with plots", CMDOPT_FILE, NULL },
	{ "histogram-text", 0, 'T', "OUT", "the histograms in cyclictest's -h layout", CMDOPT_FILE,
	  NULL },
	{ "json", 0, 'j', "OUT", "the report again (a round trip)", CMDOPT_FILE, NULL },
	{ "prom", 0, 'p', "OUT", "the node_exporter textfile", CMDOPT_FILE, NULL },
	{ "rt-tests-json", 0, 'R', "OUT", "the timer probe as cyclictest --json writes it",
	  CMDOPT_FILE, NULL },
	{ "lava", 0, 'L', NULL, "LAVA result lines on standard output", CMDOPT_NONE, NULL },
	{ "color", 0, 'c', "WHEN", "colour in the summary: auto, always or never", CMDOPT_WORDS,
	  "auto always never" },
	{ "cpu-rows", 0, 'C', "WHICH",
	  "the summary's per-CPU rows: auto, all or worst\n(auto: the 8 worst above 16 CPUs)",
	  CMDOPT_WORDS, "auto all worst" },
	{ "help", 'h', 'h', NULL, "this help", CMDOPT_NONE, NULL },
	{ NULL, 0, 0, NULL, NULL, CMDOPT_NONE, NULL },
};

struct view {
	const char *opt;
	const char *path;
	int (*write)(const struct report *r, const char *path);
	bool rtsoak_only; /* the format cannot say "not recorded" */
	enum output_format fmt;
};

int report_main(int argc, char **argv)
{
	struct option opts[sizeof(report_cmdopts) / sizeof(report_cmdopts[0])];
	char shorts[8];
	struct view views[] = {
		{ "--json", NULL, report_json_write, true, OUTPUT_JSON },
		{ "--prom", NULL, report_prom_write, true, OUTPUT_PROM },
		{ "--html", NULL, report_html_write, false, OUTPUT_HTML },
		{ "--histogram-text", NULL, report_histogram_text_write, false, OUTPUT_TEXT },
		/* A cyclictest file is in that shape already. */
		{ "--rt-tests-json", NULL, rttests_json_write, true, OUTPUT_JSON },
		{ "--lava", NULL, lava_write, false, OUTPUT_TEXT },
	};
	const unsigned nviews = sizeof(views) / sizeof(views[0]);
	bool text = false, any = false, to_stdout = false;
	enum cli_color color = CLI_COLOR_AUTO;
	enum text_cpus cpu_rows = TEXT_CPUS_AUTO;
	const char *cpu_rows_arg = NULL;
	struct report r;
	int opt, rc;

	if (cmdopt_getopt(report_cmdopts, opts, sizeof(opts) / sizeof(opts[0]), shorts,
			  sizeof(shorts)))
		abort(); /* a bug: sized for the table */
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
		case 'p':
		case 'H':
		case 'T':
		case 'R':
			views[strchr("jpHTR", opt) - "jpHTR"].path = optarg;
			break;
		case 'L':
			views[5].path = "-"; /* always standard output */
			break;
		case 't':
			text = true;
			break;
		case 'C':
			if (!strcmp(optarg, "all"))
				cpu_rows = TEXT_CPUS_ALL;
			else if (!strcmp(optarg, "worst"))
				cpu_rows = TEXT_CPUS_WORST;
			else if (strcmp(optarg, "auto")) {
				rtsoak_error("report: --cpu-rows: '%s' is not auto, all or worst",
					     optarg);
				return EXIT_USAGE;
			}
			cpu_rows_arg = optarg;
			break;
		default:
			if ((rc = cli_report_option("report", opt, argv, usage, report_cmdopts,
						    &color)) >= 0)
				return rc;
			break;
		}
	}
	if (argc - optind < 1) {
		rtsoak_error("report: expected a report file (see rtsoak report --help)");
		return EXIT_USAGE;
	}
	if (argc - optind > 1) {
		if (cpu_rows_arg) {
			rtsoak_error("report: --cpu-rows takes one report (the fleet view has a "
				     "row per report)");
			return EXIT_USAGE;
		}
		/* The fleet view has its own outputs; the others describe one run. */
		for (unsigned i = 1; i < nviews; i++)
			if (views[i].path && i != 2) {
				rtsoak_error(
				    "report: %s takes one report; with %d files (the fleet "
				    "view) only --text, --html and --json",
				    views[i].opt, argc - optind);
				return EXIT_USAGE;
			}
		return fleet_cli_main(argv + optind, argc - optind, text, views[2].path,
				      views[0].path, color);
	}
	/* Output paths first: a typo must not cost a read of a 24-hour report. */
	for (unsigned i = 0; i < nviews; i++) {
		if (!views[i].path)
			continue;
		any = true;
		if (!strcmp(views[i].path, "-")) {
			if (to_stdout) {
				rtsoak_error("report: only one output can go to standard output");
				return EXIT_USAGE;
			}
			to_stdout = true;
		} else if (cli_output_writable("report", views[i].opt, views[i].path, views[i].fmt,
					       NULL) < 0) {
			return EXIT_USAGE;
		}
	}
	(void)output_stale();
	if ((rc = cli_report_read("report", argv[optind], &r)) >= 0)
		return rc;
	for (unsigned i = 0; i < nviews; i++) {
		if (!views[i].path)
			continue;
		/* rtsoak's own formats cannot say "not recorded": converting an
		 * imported file would invent zeros. */
		if (views[i].rtsoak_only && r.tool_name) {
			rtsoak_error(
			    "report: %s: %s is a %s file; --json, --prom and "
			    "--rt-tests-json take rtsoak reports only (compare, --html and "
			    "--text read it as it is)",
			    views[i].opt, argv[optind], r.tool_name);
			report_free(&r);
			return EXIT_USAGE;
		}
		if ((rc = views[i].write(&r, views[i].path)) == -ENOMSG) {
			rtsoak_error("report: %s: %s has no timer probe results (the cyclictest "
				     "shape holds only those)",
				     views[i].opt, argv[optind]);
			report_free(&r);
			return EXIT_USAGE;
		}
		if (rc == -ENODATA) {
			rtsoak_error(
			    "report: %s: %s has no histogram (a cyclictest file without -h)",
			    views[i].opt, argv[optind]);
			report_free(&r);
			return EXIT_USAGE;
		}
		if (rc < 0) {
			rtsoak_error("report: %s: cannot write '%s': %s", views[i].opt,
				     views[i].path, strerror(-rc));
			report_free(&r);
			/* The path was checked: this is the disk or the device. */
			return EXIT_ENV;
		}
	}
	if (text || !any) {
		/* The summary yields standard output to a view written there. */
		FILE *out = to_stdout ? stderr : stdout;
		report_text_print_cpus(&r, out, cli_color_wanted(color, out), cpu_rows);
	}
	report_free(&r);
	return EXIT_OK;
}
