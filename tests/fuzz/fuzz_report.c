// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_report: `rtsoak report FILE` on any bytes: the report reader
 * (reports/json_read.c, which hands cyclictest files to the importer), then
 * every view of the model it built (harness_views).  A report that reads
 * must render, and the JSON written from it must read back. */
#include <config.h>

#include "harness.h"
#include "report.h"
#include "views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report r;
	char err[512];

	if (report_json_read(harness_input(data, size), &r, err, sizeof(err)))
		return 0; /* rejected: r is freed already */
	harness_views(&r);
	report_free(&r);
	return 0;
}
