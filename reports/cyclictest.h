/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cyclictest: read cyclictest --json files (rt-tests 2.x) into the report
 * model, so that `rtsoak report` and `rtsoak compare` take them beside
 * rtsoak's own reports.
 *
 * cyclictest records less than rtsoak: no missed deadlines, no stddev, no
 * time of the max, and percentiles only with -h.  The reader marks each
 * such statistic with a REPORT_UNKNOWN_* bit and says so in a warning;
 * it never fills in a guess. */
#ifndef RTSOAK_CYCLICTEST_H
#define RTSOAK_CYCLICTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "report.h"

/* True if root looks like a cyclictest --json file: an object with
 * "rt_test_version:" (the colon is part of cyclictest's key) or with
 * "thread" and "num_threads", and no rtsoak "schema". */
bool cyclictest_detect(json_t *root);

/* Fill r (memset 0 by the caller) from a parsed cyclictest file.  Returns
 * 0, -EINVAL with a one-line reason in err naming `path`, or -ENOMEM.  On
 * error r is freed again (report_free), so the caller may free it once
 * more or not at all. */
int cyclictest_read(const char *path, json_t *root, struct report *r, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* Load `path` as cyclictest JSON, tolerating the non-JSON tokens cyclictest
 * prints for a thread without cycles (-nan; also nan, inf, -inf) by turning
 * them into null before parsing (only outside strings); sets *had_nan.
 * Returns the root, or NULL with err filled (file missing, not a regular
 * file, larger than REPORT_FILE_MAX, not JSON with line/column, truncated)
 * and errno ENOMEM when memory ran out, EINVAL otherwise. */
json_t *cyclictest_load(const char *path, bool *had_nan, char *err, size_t errlen);

/* cyclictest_load() in two steps, for a reader that parses the text piece
 * by piece (json_read.c): the file's text with NaN and inf turned into
 * null, NUL-terminated, *len bytes (free() it), or NULL as above; then
 * the text parsed whole (NULL with err set and errno ENOMEM or EINVAL). */
char *cyclictest_load_text(const char *path, size_t *len, bool *had_nan, char *err, size_t errlen);
json_t *cyclictest_parse_text(const char *path, const char *text, size_t len, char *err,
			      size_t errlen);

/* cyclictest_load_text() in two steps, for a reader that replaces NaN only
 * when it has to (json_read.c: a NaN is not JSON, so a file read without
 * error has none, and a 175 MB report is not copied for nothing).  The
 * file's text as it is, NUL-terminated, *len bytes (free() it), or NULL
 * as cyclictest_load_text; then, in place of *text, the text with every
 * non-finite number outside strings turned into null (*had_nan: there
 * was one; else *text is left as it is).  0, or -ENOMEM with err set. */
char *cyclictest_load_raw(const char *path, size_t *len, char *err, size_t errlen);
int cyclictest_unnan(const char *path, char **text, size_t *len, bool *had_nan, char *err,
		     size_t errlen) __attribute__((warn_unused_result));

#endif
