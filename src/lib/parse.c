// SPDX-License-Identifier: GPL-2.0-or-later
/* parse: durations and integers, strictly: a 24-hour run must not start
 * with "--duration 24" silently meaning 24 seconds of something else, so
 * anything odd is an error, not a guess. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static const struct {
	const char *name;
	uint64_t ns;
} units[] = {
	{ "ns", 1ull },
	{ "us", 1000ull },
	{ "ms", 1000000ull },
	{ "s", 1000000000ull },
	{ "m", 60000000000ull },
	{ "h", 3600000000000ull },
	{ "d", 86400000000000ull },
};

int parse_duration(const char *s, uint64_t bare_unit_ns, uint64_t *out_ns, char *err, size_t errlen)
{
	const char *p = s;
	uint64_t whole = 0, unit = 0;
	long double frac = 0, scale = 1;
	int digits = 0;

	while (isdigit((unsigned char)*p)) {
		unsigned d = (unsigned)(*p++ - '0');
		if (whole > (UINT64_MAX - d) / 10)
			goto range;
		whole = whole * 10 + d;
		digits++;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			scale /= 10;
			frac += scale * (*p++ - '0');
			digits++;
		}
	}
	if (!digits)
		goto bad;
	if (*p == '\0') {
		unit = bare_unit_ns;
	} else {
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(p, units[i].name) == 0)
				unit = units[i].ns;
		if (!unit)
			goto bad;
	}
	if (whole > UINT64_MAX / unit)
		goto range;
	long double total = (long double)whole * unit + frac * unit;
	if (total >= 9.2e18L) /* stays below INT64_MAX: reports use signed JSON integers */
		goto range;
	*out_ns = (uint64_t)llroundl(total);
	if (*out_ns == 0) {
		snprintf(err, errlen, "'%s' is zero (expected a positive duration)", s);
		return -EINVAL;
	}
	return 0;
bad:
	snprintf(err, errlen,
		 "'%s' is not a duration (expected a number and a unit: ns, us, ms, s, m, h, d)",
		 s);
	return -EINVAL;
range:
	snprintf(err, errlen, "'%s' is too large", s);
	return -ERANGE;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err, size_t errlen)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s)) {
		snprintf(err, errlen, "'%s' is not a whole number (expected %llu to %llu)", s,
			 (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0') {
		snprintf(err, errlen, "'%s' is not a whole number (expected %llu to %llu)", s,
			 (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	if (errno == ERANGE || v < min || v > max) {
		snprintf(err, errlen, "%s is out of range (expected %llu to %llu)", s,
			 (unsigned long long)min, (unsigned long long)max);
		return -ERANGE;
	}
	*out = v;
	return 0;
}
