// SPDX-License-Identifier: GPL-2.0-or-later
/* cpuset: parse/format cpulists and read online and allowed CPUs. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpuset.h"
#include "util.h"

void cpuset_clear(struct cpuset *s)
{
	memset(s, 0, sizeof(*s));
}

int cpuset_count(const struct cpuset *s)
{
	int n = 0;

	for (size_t i = 0; i < CPUSET_MAX / 64; i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

int cpuset_next(const struct cpuset *s, int from)
{
	for (int c = from < 0 ? 0 : from; c < CPUSET_MAX; c++)
		if (cpuset_has(s, c))
			return c;
	return -1;
}

bool cpuset_empty(const struct cpuset *s)
{
	return cpuset_next(s, 0) < 0;
}

void cpuset_and(struct cpuset *dst, const struct cpuset *a)
{
	for (size_t i = 0; i < CPUSET_MAX / 64; i++)
		dst->bits[i] &= a->bits[i];
}

void cpuset_andnot(struct cpuset *dst, const struct cpuset *a)
{
	for (size_t i = 0; i < CPUSET_MAX / 64; i++)
		dst->bits[i] &= ~a->bits[i];
}

int cpuset_first_missing(const struct cpuset *s, const struct cpuset *in)
{
	for (int c = cpuset_next(s, 0); c >= 0; c = cpuset_next(s, c + 1))
		if (!cpuset_has(in, c))
			return c;
	return -1;
}

static int parse_cpu(const char **p, long *out, const char *whole, char *err, size_t errlen)
{
	char *end;

	if (!isdigit((unsigned char)**p)) {
		snprintf(err, errlen, "'%s' is not a CPU list (expected e.g. 0-3,8,10-11)", whole);
		return -EINVAL;
	}
	errno = 0;
	*out = strtol(*p, &end, 10);
	if (errno || *out >= CPUSET_MAX) {
		snprintf(err, errlen, "'%s' names a CPU above %d", whole, CPUSET_MAX - 1);
		return -ERANGE;
	}
	*p = end;
	return 0;
}

int cpuset_parse(struct cpuset *s, const char *str, char *err, size_t errlen)
{
	const char *p = str;
	int rc;

	cpuset_clear(s);
	if (!*str) {
		snprintf(err, errlen, "the CPU list is empty (expected e.g. 0-3,8,10-11)");
		return -EINVAL;
	}
	for (;;) {
		long a, b;
		if ((rc = parse_cpu(&p, &a, str, err, errlen)))
			return rc;
		b = a;
		if (*p == '-') {
			p++;
			if ((rc = parse_cpu(&p, &b, str, err, errlen)))
				return rc;
			if (b < a) {
				snprintf(err, errlen, "'%ld-%ld' is a reversed range", a, b);
				return -EINVAL;
			}
		}
		for (long c = a; c <= b; c++)
			cpuset_set(s, (int)c);
		if (*p == '\0')
			return 0;
		if (*p != ',' || p[1] == '\0') {
			snprintf(err, errlen, "'%s' is not a CPU list (expected e.g. 0-3,8,10-11)",
				 str);
			return -EINVAL;
		}
		p++;
	}
}

void cpuset_format(const struct cpuset *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int c = cpuset_next(s, 0); c >= 0 && off < len;) {
		int e = c;
		while (cpuset_has(s, e + 1))
			e++;
		int n = e == c ? snprintf(buf + off, len - off, "%s%d", off ? "," : "", c)
			       : snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "", c, e);
		if (n < 0)
			break;
		off += (size_t)n;
		c = cpuset_next(s, e + 1);
	}
}

int cpuset_online(struct cpuset *s)
{
	char buf[4096], err[128];

	if (util_read_file("/sys/devices/system/cpu/online", buf, sizeof(buf)) < 0) {
		/* No sysfs: fall back to what we may run on. */
		return cpuset_allowed(s);
	}
	return cpuset_parse(s, buf, err, sizeof(err));
}

int cpuset_allowed(struct cpuset *s)
{
	size_t size = CPU_ALLOC_SIZE(CPUSET_MAX);
	cpu_set_t *set = CPU_ALLOC(CPUSET_MAX);

	if (!set)
		return -ENOMEM;
	cpuset_clear(s);
	if (sched_getaffinity(0, size, set) < 0) {
		int e = errno;
		CPU_FREE(set);
		return -e;
	}
	for (int c = 0; c < CPUSET_MAX; c++)
		if (CPU_ISSET_S(c, size, set))
			cpuset_set(s, c);
	CPU_FREE(set);
	return 0;
}
