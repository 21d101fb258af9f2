// SPDX-License-Identifier: GPL-2.0-or-later
/* compare_checks: which tuning checks changed status between A and B.
 *
 * A changed check is often the reason a run got worse (an IRQ moved onto the measured CPU, the
 * governor was reset by a reboot), so compare names them beside the verdicts.  Only the status
 * decides what is listed: an observed value that moved within the same status (an IRQ count) is
 * the run's, not a change of tuning. */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"

static const char *cstr(json_t *c, const char *key)
{
	return json_string_value(json_object_get(c, key));
}

/* The first entry of b with the id of a that no earlier entry of a took. */
static size_t pair(json_t *b, const char *id, const bool *used)
{
	size_t j;
	json_t *e;

	json_array_foreach (b, j, e) {
		const char *bid = cstr(e, "id");
		if (!used[j] && bid && !strcmp(bid, id))
			return j;
	}
	return (size_t)-1;
}

static void add(struct comparison *c, json_t *ea, json_t *eb)
{
	struct compare_check *k = &c->checks[c->nchecks++];

	k->id = cstr(ea ? ea : eb, "id");
	k->status_a = ea ? cstr(ea, "status") : NULL;
	k->status_b = eb ? cstr(eb, "status") : NULL;
	k->observed_a = ea ? cstr(ea, "observed") : NULL;
	k->observed_b = eb ? cstr(eb, "observed") : NULL;
}

int compare_checks_build(struct comparison *c)
{
	json_t *a = c->a->checks, *b = c->b->checks, *e;
	size_t na = json_array_size(a), nb = json_array_size(b), i;
	bool *used;

	/* A report from before the checks has none to compare: saying every check of the other
	 * side appeared would be wrong. */
	if (!json_is_array(a) || !json_is_array(b))
		return 0;
	c->checks_compared = true;
	if (!na && !nb)
		return 0;
	/* calloc(0) may return NULL: one more of each. */
	used = calloc(nb + 1, sizeof(*used));
	c->checks = calloc(na + nb + 1, sizeof(*c->checks));
	if (!used || !c->checks) {
		free(used);
		free(c->checks);
		c->checks = NULL;
		return -ENOMEM;
	}
	/* json_read.c made every id and status a string. */
	json_array_foreach (a, i, e) {
		const char *id = cstr(e, "id");
		size_t j = id ? pair(b, id, used) : (size_t)-1;
		if (!id)
			continue;
		if (j == (size_t)-1) {
			add(c, e, NULL);
			continue;
		}
		used[j] = true;
		json_t *f = json_array_get(b, j);
		const char *sa = cstr(e, "status"), *sb = cstr(f, "status");
		if (!sa || !sb || strcmp(sa, sb))
			add(c, e, f);
	}
	json_array_foreach (b, i, e)
		if (!used[i] && cstr(e, "id"))
			add(c, NULL, e);
	free(used);
	return 0;
}
