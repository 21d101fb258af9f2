// SPDX-License-Identifier: GPL-2.0-or-later
/* check_cli: `rtsoak check [--cpus LIST] [--housekeeping LIST] [--interval T] [--priority N]
 * [--json] [--fail-on warn|fail] [--list-md] [--root DIR]`: the tuning checks of
 * src/sys/check.c on the machine as it stands, without measuring (issue 16). */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "parse.h"
#include "util.h"
#include "views.h"

#define CHECK_DEFAULT_PRIORITY 95		   /* rtsoak run's --priority */
#define CHECK_DEFAULT_INTERVAL_NS (1000 * 1000ull) /* rtsoak run's --interval */

static const char usage[] =
    "usage: rtsoak check [--cpus LIST] [--housekeeping LIST] [--interval T] [--priority N]\n"
    "                    [--json] [--fail-on warn|fail] [--list-md] [--root DIR]\n"
    "  Evaluate the machine's real-time tuning for measuring on LIST (default: every online\n"
    "  CPU), without measuring: one line per check that did not pass, then the counts.\n"
    "  --json: every check as JSON (id, status, cpus, observed, expected, source, why,\n"
    "  reference, fix); --fail-on: exit 1 when a check is at that level or worse;\n"
    "  --interval/--priority: the run's, for the idle budget and the kernel threads;\n"
    "  --list-md: the table of checks (docs/checks.md); --root: read DIR/sys, DIR/proc, ...\n"
    "  instead of the machine's (fixture trees for tests).\n";

/* The table that parses `rtsoak check`, prints its options and completes
 * them (cmdopt.h). */
const struct cmdopt check_cmdopts[] = {
	{ "cpus", 0, 'c', "LIST", "the CPUs a run would measure (default: every online CPU)",
	  CMDOPT_CPUS, NULL },
	{ "housekeeping", 0, 'k', "LIST", "the run's housekeeping CPUs", CMDOPT_CPUS, NULL },
	{ "interval", 0, 'i', "T", "the run's wake-up period (the idle budget; default 1ms)",
	  CMDOPT_NONE, NULL },
	{ "priority", 0, 'p', "N", "the run's priority (the kernel threads; default 95)",
	  CMDOPT_NONE, NULL },
	{ "json", 0, 'j', NULL, "every check as JSON", CMDOPT_NONE, NULL },
	{ "fail-on", 0, 'f', "LEVEL", "exit 1 when a check is at LEVEL (warn or fail) or worse",
	  CMDOPT_WORDS, "warn fail" },
	{ "list-md", 0, 'm', NULL, "the table of checks (docs/checks.md)", CMDOPT_NONE, NULL },
	{ "root", 0, 'r', "DIR", "read DIR/sys, DIR/proc, ... instead of the machine's", CMDOPT_DIR,
	  NULL },
	{ "help", 'h', 'h', NULL, "this help", CMDOPT_NONE, NULL },
	{ NULL, 0, 0, NULL, NULL, CMDOPT_NONE, NULL },
};

static int parse_cpus(const char *opt, const char *arg, struct cpuset *s)
{
	char err[256];

	if (!cpuset_parse(s, arg, err, sizeof(err)) && !cpuset_empty(s))
		return -1;
	rtsoak_error("check: %s: %s", opt, err[0] ? err : "empty CPU list");
	return EXIT_USAGE;
}

int check_cli_main(int argc, char **argv)
{
	struct option opts[sizeof(check_cmdopts) / sizeof(check_cmdopts[0])];
	char shorts[8];
	static struct check_result res[CHECK_MAX];
	struct cpuset cpus, hk;
	struct check_ctx ctx;
	uint64_t interval = CHECK_DEFAULT_INTERVAL_NS, prio = CHECK_DEFAULT_PRIORITY;
	const char *root = NULL;
	bool json = false, list_md = false;
	int fail_on = -1, opt, rc;
	char err[256];

	cpuset_clear(&cpus);
	cpuset_clear(&hk);
	if (cmdopt_getopt(check_cmdopts, opts, sizeof(opts) / sizeof(opts[0]), shorts,
			  sizeof(shorts)))
		abort(); /* a bug: sized for the table */
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if ((rc = parse_cpus("--cpus", optarg, &cpus)) >= 0)
				return rc;
			break;
		case 'k':
			if ((rc = parse_cpus("--housekeeping", optarg, &hk)) >= 0)
				return rc;
			break;
		case 'i':
			if (parse_duration(optarg, NSEC_PER_USEC, &interval, err, sizeof(err)) ||
			    !interval) {
				rtsoak_error("check: --interval: %s",
					     interval ? err : "must be > 0");
				return EXIT_USAGE;
			}
			break;
		case 'p':
			if (parse_u64(optarg, 0, 99, &prio, err, sizeof(err))) {
				rtsoak_error("check: --priority: %s", err);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'f':
			if (strcmp(optarg, "warn") && strcmp(optarg, "fail")) {
				char a[64];
				rtsoak_error("check: --fail-on: '%s' is not warn or fail",
					     util_escape(optarg, a, sizeof(a)));
				return EXIT_USAGE;
			}
			fail_on = !strcmp(optarg, "warn") ? CHECK_WARN : CHECK_FAIL;
			break;
		case 'm':
			list_md = true;
			break;
		case 'r':
			root = optarg;
			break;
		case 'h':
			cli_command_usage(stdout, usage, check_cmdopts);
			return EXIT_OK;
		case ':':
			rtsoak_error("check: %s needs a value", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			return cli_unknown_option("check", argv[optind - 1], check_cmdopts);
		}
	}
	if (optind < argc) {
		char a[128];
		rtsoak_error("check: unexpected argument '%s' (see rtsoak check --help)",
			     util_escape(argv[optind], a, sizeof(a)));
		return EXIT_USAGE;
	}
	if (list_md)
		return check_list_md(stdout) ? EXIT_ENV : EXIT_OK;
	if (check_ctx_open(&ctx, root, &cpus, &hk, (int)prio, interval, err, sizeof(err))) {
		rtsoak_error("check: %s", err);
		return root ? EXIT_USAGE : EXIT_ENV;
	}
	check_run(&ctx, res);
	check_ctx_close(&ctx);

	json_t *a = check_json(res, check_count);
	if (!a) {
		rtsoak_error("check: out of memory");
		return EXIT_ENV;
	}
	rc = EXIT_OK;
	if (json) {
		json_t *doc = json_pack("{s:s, s:o}", "schema", "rtsoak-checks/1", "checks", a);
		if (!doc || json_dumpf(doc, stdout, JSON_INDENT(2)))
			rc = EXIT_ENV;
		putchar('\n');
		json_decref(doc);
	} else {
		report_checks_print(a, stdout, 0, false);
		json_decref(a);
	}
	for (size_t i = 0; fail_on >= 0 && i < check_count; i++)
		if (res[i].status != CHECK_UNKNOWN && res[i].status != CHECK_INFO &&
		    (int)res[i].status >= fail_on)
			rc = EXIT_LIMIT;
	return rc;
}
