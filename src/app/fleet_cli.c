// SPDX-License-Identifier: GPL-2.0-or-later
/* fleet_cli: `rtsoak report A.json B.json ... [--text] [--html OUT] [--json OUT]`,
 * the fleet view (report_cli.c hands over when it is given more than one
 * file): one overview row per report (src/model/fleet.h), written by the
 * views of reports/fleet_*.c.
 *
 * The overview is all or nothing: output paths are checked before any
 * report is read, and every report is read before anything is written, so
 * a bad file costs one line naming it and no half overview.  Each report is
 * freed as soon as its row is taken: 200 reports of 2-hour runs never sit
 * in memory together (bench/fleet.sh).
 *
 * Each row links to the report's own page, `<name>.html` beside
 * `<name>.json`, when that file exists at the time of the overview: as a
 * path relative to the directory of the fleet page (of the current
 * directory when the page goes to standard output or there is none), so
 * the pages can be moved together. */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "fleet.h"
#include "report.h"
#include "views.h"

/* The directory of output path, resolved (malloc'd), or NULL. */
static char *dir_of(const char *path)
{
	char buf[PATH_MAX];
	const char *slash = path ? strrchr(path, '/') : NULL;

	if (!path || !strcmp(path, "-") || !slash)
		return realpath(".", NULL);
	if (slash == path)
		return realpath("/", NULL);
	snprintf(buf, sizeof(buf), "%.*s", (int)(slash - path), path);
	return realpath(buf, NULL);
}

/* `to` relative to directory `from`, both absolute and resolved: the
 * components after their common ones, behind one ".." per component of
 * `from` left.  NULL on ENOMEM. */
static char *relative(const char *from, const char *to)
{
	size_t common = 0, i = 0, ups = 0;
	char *out;

	/* The longest prefix ending at a component boundary of both. */
	while (from[i] && from[i] == to[i]) {
		i++;
		if (from[i] == '/' || (!from[i] && to[i] == '/'))
			common = i;
	}
	if (!strcmp(from, "/"))
		return strdup(to + 1);
	for (const char *p = from + common; *p; p++)
		ups += *p == '/';
	if (!(out = malloc(3 * ups + strlen(to) + 1)))
		return NULL;
	out[0] = '\0';
	for (size_t k = 0; k < ups; k++)
		strcat(out, "../");
	strcat(out, to + common + 1);
	return out;
}

/* The link of report file to its own page (NULL: no page beside it).
 * -ENOMEM, else 0. */
static int href_of(const char *file, const char *page_dir, char **href)
{
	char html[PATH_MAX], *real;
	size_t n = strlen(file);
	struct stat st;

	*href = NULL;
	if (n > 5 && !strcmp(file + n - 5, ".json"))
		n -= 5;
	if (snprintf(html, sizeof(html), "%.*s.html", (int)n, file) >= (int)sizeof(html))
		return 0;
	if (!page_dir || stat(html, &st) || !S_ISREG(st.st_mode) || !(real = realpath(html, NULL)))
		return 0;
	*href = relative(page_dir, real);
	free(real);
	return *href ? 0 : -ENOMEM;
}

int fleet_cli_main(char **files, int nfiles, bool text, const char *html, const char *json,
		   enum cli_color color)
{
	struct fleet fl = { 0 };
	char *page_dir;
	int rc = EXIT_OK;

	/* Output paths first: a typo must not cost the read of 200 reports. */
	if (html && json && !strcmp(html, "-") && !strcmp(json, "-")) {
		rtsoak_error("report: only one output can go to standard output");
		return EXIT_USAGE;
	}
	if ((html && strcmp(html, "-") &&
	     cli_output_writable("report", "--html", html, OUTPUT_HTML, NULL) < 0) ||
	    (json && strcmp(json, "-") &&
	     cli_output_writable("report", "--json", json, OUTPUT_JSON, NULL) < 0))
		return EXIT_USAGE;
	(void)output_stale();
	page_dir = dir_of(html);
	for (int i = 0; i < nfiles; i++) {
		struct report r;
		int e;
		if ((e = cli_report_read("report", files[i], &r)) >= 0) {
			rc = e;
			goto out;
		}
		e = fleet_add(&fl, &r, files[i]);
		report_free(&r);
		if (!e)
			e = href_of(files[i], page_dir, &fl.rows[fl.nrows - 1].href);
		if (e) {
			rtsoak_error("report: %s: %s", files[i], strerror(-e));
			rc = EXIT_ENV;
			goto out;
		}
	}
	fleet_sort(&fl);
	const char *path[2] = { html, json }, *opt[2] = { "--html", "--json" };
	for (int k = 0; k < 2; k++) {
		int e;
		if (!path[k])
			continue;
		e = k ? fleet_json_write(&fl, path[k]) : fleet_html_write(&fl, path[k]);
		if (e) {
			rtsoak_error("report: %s: cannot write '%s': %s", opt[k], path[k],
				     strerror(-e));
			rc = EXIT_ENV; /* the path was checked: the disk or the device */
			goto out;
		}
	}
	if (text || (!html && !json)) {
		/* The table yields standard output to a view written there. */
		bool to_stdout = (html && !strcmp(html, "-")) || (json && !strcmp(json, "-"));
		FILE *out = to_stdout ? stderr : stdout;
		fleet_text_print(&fl, out, cli_color_wanted(color, out));
		if (fflush(out) || ferror(out)) {
			rtsoak_error("report: cannot write the overview to standard %s: %s",
				     to_stdout ? "error" : "output", strerror(errno));
			rc = EXIT_ENV;
		}
	}
out:
	free(page_dir);
	fleet_free(&fl);
	return rc;
}
