// SPDX-License-Identifier: GPL-2.0-or-later
/* compare_cli: `rtsoak compare A.json B.json [--json OUT] [--fail-if EXPR]...
 * [--fail-if-raw EXPR]... [--verdict-on STATS] [--min-effect E] [--brief]`,
 * `rtsoak compare A1.json A2.json ... vs B1.json ...` (several runs a side) and
 * `rtsoak compare AB.json` (an ab report judged again).
 * Exit 0, or 1 when a --fail-if limit is broken, 2 on bad input. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compare.h"
#include "output.h"
#include "util.h"
#include "views.h"

#define MAX_LIMITS 32

static const char usage[] =
    "usage: rtsoak compare A.json B.json [--fail-if STAT>CHANGE]... [--json OUT] [--html OUT]\n"
    "       rtsoak compare A1.json A2.json... vs B1.json B2.json... [options]\n"
    "                      [--fail-if-raw STAT>CHANGE]... [--verdict-on STAT[,STAT]...]\n"
    "                      [--min-effect AMOUNT[,PCT%]] [--brief] [--color auto|always|never]\n"
    "  A is the baseline, B the run under test; each file is an rtsoak report or a\n"
    "  cyclictest --json file.  STAT: count min mean p50 p90 p99 p99.9 p99.99 p99.999\n"
    "  max missed; CHANGE: +10%, -5%, +50us (B - A; trips when the 95 % interval of\n"
    "  the change lies beyond it; --fail-if-raw: when the plain change is larger).\n"
    "  --verdict-on: what the verdict judges (default p99,max); --min-effect: a\n"
    "  smaller shift is no practical difference (default 2us,5%, the larger).\n"
    "  Several runs a side (the word vs between them): every statistic is judged by\n"
    "  the runs' values, so the noise between runs is in the test (4 a side or more\n"
    "  can reach p < 0.05).  One file: an rtsoak ab report, its arms judged again.\n";

/* The table that parses `rtsoak compare`, prints its options and completes
 * them (cmdopt.h). */
const struct cmdopt compare_cmdopts[] = {
	{ "fail-if", 0, 'f', "STAT>CHANGE",
	  "exit 1 when the 95 % interval of B - A lies beyond CHANGE", CMDOPT_NONE, NULL },
	{ "fail-if-raw", 0, 'r', "STAT>CHANGE", "the same on the plain change, no noise model",
	  CMDOPT_NONE, NULL },
	{ "verdict-on", 0, 'v', "STAT[,STAT]", "what the verdict judges (default p99,max)",
	  CMDOPT_NONE, NULL },
	{ "min-effect", 0, 'm', "AMOUNT[,PCT%]",
	  "a smaller shift is no practical difference (default 2us,5%)", CMDOPT_NONE, NULL },
	{ "brief", 0, 'b', NULL, "print only the verdicts and the --fail-if results", CMDOPT_NONE,
	  NULL },
	{ "json", 0, 'j', "OUT", "the comparison as JSON ('-': standard output)", CMDOPT_FILE,
	  NULL },
	{ "html", 0, 'H', "OUT", "the comparison as one self-contained page", CMDOPT_FILE, NULL },
	{ "color", 0, 'c', "WHEN", "colour in the text: auto, always or never", CMDOPT_WORDS,
	  "auto always never" },
	{ "help", 'h', 'h', NULL, "this help", CMDOPT_NONE, NULL },
	{ NULL, 0, 0, NULL, NULL, CMDOPT_NONE, NULL },
};

/* Every limit must be checkable where both sides have samples: a CI gate
 * that silently passes on a file without percentiles would be a lie. */
static int limits_checkable(const struct comparison *c, const struct compare_limit *l, size_t nl)
{
	for (size_t i = 0; i < nl; i++)
		for (size_t k = 0; k < c->n; k++) {
			const struct compare_match *m = &c->m[k];
			bool ok;
			(void)compare_limit_broken(&l[i], m, &ok, NULL);
			if (ok || !m->a->count || !m->b->count)
				continue;
			rtsoak_error("compare: --fail-if %s: %s does not record %s", l[i].text,
				     (m->a->unknown ? c->path_a : c->path_b),
				     compare_stat_name[l[i].stat]);
			return -EINVAL;
		}
	return 0;
}

static int write_json(const struct comparison *c, const struct compare_limit *l, size_t nl,
		      const char *path)
{
	return json_document_write(compare_json(c, l, nl), path);
}

int compare_main(int argc, char **argv)
{
	struct option opts[sizeof(compare_cmdopts) / sizeof(compare_cmdopts[0])];
	char shorts[8];
	struct compare_limit limits[MAX_LIMITS];
	size_t nlimits = 0;
	const char *json_out = NULL, *html_out = NULL;
	enum cli_color color = CLI_COLOR_AUTO;
	struct report run[2 * COMPARE_MAX_RUNS];
	const struct report *side[2][COMPARE_MAX_RUNS];
	const char *path[2][COMPARE_MAX_RUNS];
	size_t nside[2] = { 0, 0 }, nread = 0;
	struct comparison c;
	char err[512];
	int opt, rc, exit_code = EXIT_OK;
	struct compare_opts copts;
	bool brief = false;

	compare_opts_default(&copts);

	if (cmdopt_getopt(compare_cmdopts, opts, sizeof(opts) / sizeof(opts[0]), shorts,
			  sizeof(shorts)))
		abort(); /* a bug: sized for the table */
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json_out = optarg;
			break;
		case 'f':
		case 'r':
			if (nlimits == MAX_LIMITS) {
				rtsoak_error("compare: at most %d --fail-if limits", MAX_LIMITS);
				return EXIT_USAGE;
			}
			if (compare_limit_parse(optarg, opt == 'r', &limits[nlimits++], err,
						sizeof(err))) {
				rtsoak_error("compare: %s", err);
				return EXIT_USAGE;
			}
			break;
		case 'v':
		case 'm':
			if ((opt == 'v'
				 ? compare_opts_verdict_on(&copts, optarg, err, sizeof(err))
				 : compare_opts_min_effect(&copts, optarg, err, sizeof(err)))) {
				rtsoak_error("compare: %s", err);
				return EXIT_USAGE;
			}
			break;
		case 'b':
			brief = true;
			break;
		case 'H':
			html_out = optarg;
			break;
		default:
			if ((rc = cli_report_option("compare", opt, argv, usage, compare_cmdopts,
						    &color)) >= 0)
				return rc;
			break;
		}
	}
	/* One file: an rtsoak ab report, judged again (other options, limits);
	 * "vs" between several files: runs a side. */
	int nfiles = argc - optind, vs = -1;
	for (int i = optind; i < argc; i++)
		if (!strcmp(argv[i], "vs")) {
			if (vs >= 0) {
				rtsoak_error("compare: 'vs' given twice (a file named vs: ./vs)");
				return EXIT_USAGE;
			}
			vs = i;
		}
	bool ab = nfiles == 1;
	if (vs >= 0 ? vs == optind || vs == argc - 1 : !ab && nfiles != 2) {
		rtsoak_error(
		    "compare: expected two files, A (baseline) and B, several runs a side "
		    "(A1 A2 ... vs B1 B2 ...), or one rtsoak ab report (usage: rtsoak compare "
		    "A.json B.json [--fail-if STAT>CHANGE]... [--json OUT])");
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		int s = vs >= 0 ? i > vs : i > optind;
		if (i == vs)
			continue;
		if (nside[s] == COMPARE_MAX_RUNS) {
			rtsoak_error("compare: at most %d runs a side", COMPARE_MAX_RUNS);
			return EXIT_USAGE;
		}
		path[s][nside[s]++] = argv[i];
	}
	if ((json_out &&
	     cli_output_writable("compare", "--json", json_out, OUTPUT_JSON, NULL) < 0) ||
	    (html_out && cli_output_writable("compare", "--html", html_out, OUTPUT_HTML, NULL) < 0))
		return EXIT_USAGE;
	if (json_out && html_out && !strcmp(json_out, "-") && !strcmp(html_out, "-")) {
		rtsoak_error("compare: --json and --html cannot both go to standard output");
		return EXIT_USAGE;
	}
	(void)output_stale();
	memset(&c, 0, sizeof(c));
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < nside[s]; i++) {
			if ((rc = cli_report_read("compare", path[s][i], &run[nread])) >= 0) {
				exit_code = rc;
				goto out;
			}
			side[s][i] = &run[nread++];
		}
	if (ab && !run[0].ab) {
		rtsoak_error("compare: %s is not an rtsoak ab report: give two files to compare",
			     path[0][0]);
		exit_code = EXIT_USAGE;
		goto out;
	}
	compare_opts_need(&copts, limits, nlimits);
	if ((ab ? compare_build_ab(&c, &run[0], path[0][0], &copts)
		: compare_build_runs(&c, side[0], path[0], nside[0], side[1], path[1], nside[1],
				     &copts)) < 0) {
		rtsoak_error("compare: out of memory");
		exit_code = EXIT_ENV;
		goto out;
	}
	if (limits_checkable(&c, limits, nlimits)) {
		exit_code = EXIT_USAGE;
		goto out;
	}
	/* The table goes to stderr when the JSON or the page takes stdout. */
	FILE *table = (json_out && !strcmp(json_out, "-")) || (html_out && !strcmp(html_out, "-"))
			  ? stderr
			  : stdout;
	compare_print(&c, limits, nlimits, table, cli_color_wanted(color, table), brief);
	if (json_out && (rc = write_json(&c, limits, nlimits, json_out)) < 0) {
		rtsoak_error("compare: --json: cannot write '%s': %s", json_out, strerror(-rc));
		exit_code = EXIT_ENV;
		goto out;
	}
	if (html_out && (rc = compare_html_write(&c, limits, nlimits, html_out)) < 0) {
		rtsoak_error("compare: --html: cannot write '%s': %s", html_out, strerror(-rc));
		exit_code = EXIT_ENV;
		goto out;
	}
	for (size_t i = 0; i < nlimits; i++)
		for (size_t k = 0; k < c.n; k++) {
			bool ok;
			if (compare_limit_broken(&limits[i], &c.m[k], &ok, NULL))
				exit_code = EXIT_LIMIT;
		}
out:
	compare_free(&c);
	while (nread)
		report_free(&run[--nread]);
	return exit_code;
}
