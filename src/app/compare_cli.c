/* compare_cli: `rtsoak compare A.json B.json [--json OUT] [--fail-if EXPR]...`.
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
    "                      [--color auto|always|never]\n"
    "  A is the baseline, B the run under test; each file is an rtsoak report or a\n"
    "  cyclictest --json file.  STAT: count min mean p50 p90 p99 p99.9 p99.99 p99.999\n"
    "  max missed; CHANGE: +10%, -5%, +50us (B - A; trips when the change is larger).\n";

/* Every limit must be checkable where both sides have samples: a CI gate
 * that silently passes on a file without percentiles would be a lie. */
static int limits_checkable(const struct comparison *c, const struct compare_limit *l, size_t nl)
{
	for (size_t i = 0; i < nl; i++)
		for (size_t k = 0; k < c->n; k++) {
			const struct compare_match *m = &c->m[k];
			bool ok;
			(void)compare_limit_broken(&l[i], m, &ok);
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
	json_t *root = compare_json(c, l, nl);
	char *text = root ? json_dumps(root, JSON_INDENT(2)) : NULL;
	int rc;

	json_decref(root);
	if (!text)
		return -ENOMEM;
	size_t len = strlen(text);
	text[len] = '\n'; /* replace the NUL: the buffer is written by length */
	rc = output_write(path, text, len + 1);
	free(text);
	return rc;
}

int compare_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "fail-if", required_argument, NULL, 'f' },
		{ "html", required_argument, NULL, 'H' },
		{ "color", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct compare_limit limits[MAX_LIMITS];
	size_t nlimits = 0;
	const char *json_out = NULL, *html_out = NULL;
	enum cli_color color = CLI_COLOR_AUTO;
	struct report ra, rb;
	struct comparison c;
	char err[512];
	int opt, rc, exit_code = EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json_out = optarg;
			break;
		case 'f':
			if (nlimits == MAX_LIMITS) {
				rtsoak_error("compare: at most %d --fail-if limits", MAX_LIMITS);
				return EXIT_USAGE;
			}
			if (compare_limit_parse(optarg, &limits[nlimits++], err, sizeof(err))) {
				rtsoak_error("compare: %s", err);
				return EXIT_USAGE;
			}
			break;
		case 'H':
			html_out = optarg;
			break;
		default:
			if ((rc = cli_report_option("compare", opt, argv, usage, &color)) >= 0)
				return rc;
			break;
		}
	}
	if (argc - optind != 2) {
		rtsoak_error(
		    "compare: expected two files, A (baseline) and B (usage: rtsoak compare "
		    "A.json B.json [--fail-if STAT>CHANGE]... [--json OUT])");
		return EXIT_USAGE;
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
	if ((rc = cli_report_read("compare", argv[optind], &ra)) >= 0)
		return rc;
	if ((rc = cli_report_read("compare", argv[optind + 1], &rb)) >= 0) {
		report_free(&ra);
		return rc;
	}
	if (compare_build(&c, &ra, argv[optind], &rb, argv[optind + 1]) < 0) {
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
	compare_print(&c, limits, nlimits, table, cli_color_wanted(color, table));
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
			if (compare_limit_broken(&limits[i], &c.m[k], &ok))
				exit_code = EXIT_LIMIT;
		}
out:
	compare_free(&c);
	report_free(&ra);
	report_free(&rb);
	return exit_code;
}
