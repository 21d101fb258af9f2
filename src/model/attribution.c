// SPDX-License-Identifier: GPL-2.0-or-later
/* attribution: lookups into the report's attribution section (attribution.h). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribution.h"

#include <errno.h>

/* The index key: the probe's length first, so that no probe and phase
 * (any bytes but NUL) can make another pair's key. */
static int key_of(char *buf, size_t len, const char *probe, int cpu, const char *phase)
{
	int n = snprintf(buf, len, "%zu:%s:%d:%s", strlen(probe), probe, cpu, phase);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

#define KEY_MAX (2 * (REPORT_NAME_MAX + 1) + 48)

int attribution_set(struct report *r, json_t *a, size_t *dup)
{
	json_t *ix = json_object(), *s;
	char key[KEY_MAX];
	size_t i;

	if (!ix)
		return -ENOMEM;
	json_array_foreach (json_object_get(a, "series"), i, s) {
		const char *probe = json_string_value(json_object_get(s, "probe"));
		const char *phase = json_string_value(json_object_get(s, "phase"));
		if (!probe || !phase ||
		    key_of(key, sizeof(key), probe,
			   (int)json_integer_value(json_object_get(s, "cpu")), phase))
			continue; /* not an entry any lookup can name */
		if (json_object_get(ix, key)) {
			json_decref(ix);
			if (dup)
				*dup = i;
			return -EEXIST;
		}
		if (json_object_set(ix, key, s)) {
			json_decref(ix);
			return -ENOMEM;
		}
	}
	json_decref(r->attribution);
	json_decref(r->attribution_index);
	r->attribution = a ? json_incref(a) : NULL;
	r->attribution_index = a ? ix : NULL;
	if (!a)
		json_decref(ix);
	return 0;
}

json_t *attribution_series(const struct report *r, const char *probe, int cpu, const char *phase)
{
	char key[KEY_MAX];
	json_t *s;
	size_t i;

	if (r->attribution_index)
		return key_of(key, sizeof(key), probe, cpu, phase)
			   ? NULL
			   : json_object_get(r->attribution_index, key);
	json_array_foreach (json_object_get(r->attribution, "series"), i, s)
		if (json_integer_value(json_object_get(s, "cpu")) == cpu &&
		    !strcmp(json_string_value(json_object_get(s, "probe")) ?: "", probe) &&
		    !strcmp(json_string_value(json_object_get(s, "phase")) ?: "", phase))
			return s;
	return NULL;
}

const char *attribution_label(const char *cause, char *buf, size_t len)
{
	const char *colon = strchr(cause, ':');

	if (!colon)
		snprintf(buf, len, "%s", cause);
	else if (!strcmp(cause, "idle:?")) /* the state is not traced */
		snprintf(buf, len, "idle exit");
	else if (!strncmp(cause, "idle:", 5))
		snprintf(buf, len, "idle exit (state %s)", colon + 1);
	else if (!strncmp(cause, "task:", 5))
		snprintf(buf, len, "%s", colon + 1);
	else
		snprintf(buf, len, "%.*s %s", (int)(colon - cause), cause, colon + 1);
	return buf;
}

const char *attribution_kind(const char *cause, char *buf, size_t len)
{
	const char *colon = strchr(cause, ':');

	snprintf(buf, len, "%.*s", colon ? (int)(colon - cause) : (int)strlen(cause), cause);
	return buf;
}

static int spike_cmp(const void *x, const void *y)
{
	const struct attribution_spike *a = x, *b = y;

	return a->t_ns < b->t_ns ? -1 : a->t_ns > b->t_ns;
}

struct attribution_spike *attribution_spikes(json_t *series, size_t *n)
{
	json_t *sc = json_object_get(series, "spike_causes"), *e;
	struct attribution_spike *v;
	size_t i;

	*n = 0;
	if (!json_array_size(sc) || !(v = malloc(json_array_size(sc) * sizeof(*v))))
		return NULL;
	json_array_foreach (sc, i, e)
		v[i] =
		    (struct attribution_spike){ (uint64_t)json_integer_value(json_array_get(e, 0)),
						(size_t)json_integer_value(json_array_get(e, 1)) };
	qsort(v, i, sizeof(*v), spike_cmp);
	*n = i;
	return v;
}

long attribution_cause_at(const struct attribution_spike *v, size_t n, uint64_t t_ns)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].t_ns < t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].t_ns == t_ns ? (long)v[lo].cause : -1;
}
