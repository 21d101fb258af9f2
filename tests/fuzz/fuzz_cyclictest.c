// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_cyclictest: the cyclictest --json importer (reports/cyclictest_read.c)
 * on any bytes, as `rtsoak report` reaches it: the tolerant loader (NaN
 * tokens), the detection, the import, then every view of the model. */
#include <config.h>

#include <stdbool.h>

#include "cyclictest.h"
#include "harness.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = harness_input(data, size);
	struct report r = { 0 };
	bool had_nan;
	char err[512];
	json_t *root;
	int rc;

	root = cyclictest_load(path, &had_nan, err, sizeof(err));
	if (!root)
		return 0;
	if (!cyclictest_detect(root)) {
		json_decref(root);
		return 0;
	}
	rc = cyclictest_read(path, root, &r, err, sizeof(err));
	json_decref(root);
	if (rc)
		return 0; /* rejected: r is freed already */
	harness_views(&r);
	report_free(&r);
	return 0;
}
