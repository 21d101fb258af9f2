/* SPDX-License-Identifier: GPL-2.0-or-later */
/* harness: what the libFuzzer harnesses of tests/fuzz share.
 *
 * A harness may write only inside its private temporary directory (made
 * once under $TMPDIR, removed at exit) and to /dev/null: the readers take
 * a path, and every view writes a path, so the input and the outputs are
 * files there.  Nothing here touches /sys or /proc. */
#ifndef RTSOAK_FUZZ_HARNESS_H
#define RTSOAK_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* libFuzzer's entry point, defined by each harness. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The private directory's path + "/" + name (a static buffer per call
 * site is not needed: the result lives until exit).  Aborts on failure:
 * a harness that cannot set itself up must not report "no crash". */
const char *harness_path(const char *name);
/* Write the input to harness_path("input.json") and return that path. */
const char *harness_input(const uint8_t *data, size_t size);
/* Check what a reader must refuse (min > max, decreasing percentiles, a
 * negative series CPU in an rtsoak report: abort), then render r in every view of the model, as `rtsoak report` and `rtsoak
 * compare A A` would: the text summary, HTML, the histogram text, the
 * analysis, the comparison with itself (text, JSON, HTML), and for
 * rtsoak's own reports (not imported ones, which the CLI refuses) the JSON
 * report and the Prometheus file; the JSON report must read back. */
void harness_views(const struct report *r);

#endif
