// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_journal: the --set journal parser (tweak_journal_parse) on any bytes.
 *
 * `rtsoak restore` reads a file that a killed run left, as root: its parser
 * is split from the code that checks paths and writes /sys and /proc, so
 * this harness exercises everything a journal's bytes can reach without
 * writing anything.  What a successful parse promises is checked here: every
 * entry has a path and an original, the entry count is within the parser's
 * limit, and every string it hands on is a C string no longer than the
 * input (no read past it). */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tweak.h"

/* tweak_journal_parse's documented bound (src/sys/tweak.h). */
#define FUZZ_JOURNAL_MAX_ENTRIES 4096

static void bad(const char *what)
{
	fprintf(stderr, "fuzz_journal: %s\n", what);
	abort();
}

static void check_string(const char *s, size_t size, const char *what)
{
	if (s && strlen(s) > size)
		bad(what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tweak_journal j;
	char err[512] = "";
	int rc = tweak_journal_parse((const char *)data, size, &j, err, sizeof(err));

	if (rc < 0 && !err[0] && rc != -ENOMEM)
		bad("a refusal without its one-line reason");
	if (rc < 0 && strchr(err, '\n'))
		bad("a reason of more than one line");
	if (rc == 0) {
		if (j.n > FUZZ_JOURNAL_MAX_ENTRIES)
			bad("more entries than the parser's limit");
		if (j.n && !j.v)
			bad("entries without an array");
		check_string(j.report, size, "report longer than the input");
		for (size_t i = 0; i < j.n; i++) {
			if (!j.v[i].path || !j.v[i].original)
				bad("an entry without path or original");
			check_string(j.v[i].path, size, "path longer than the input");
			check_string(j.v[i].original, size, "original longer than the input");
			check_string(j.v[i].value, size, "value longer than the input");
		}
	}
	tweak_journal_free(&j);
	return 0;
}
