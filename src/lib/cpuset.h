/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpuset: CPU lists (the kernel's "0-3,8,10-11" syntax) and which CPUs this
 * process may use.  A fixed-size bitmap keeps it allocation-free. */
#ifndef RTSOAK_CPUSET_H
#define RTSOAK_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPUSET_MAX 4096

struct cpuset {
	uint64_t bits[CPUSET_MAX / 64];
};

static inline bool cpuset_has(const struct cpuset *s, int cpu)
{
	return cpu >= 0 && cpu < CPUSET_MAX && (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}

static inline void cpuset_set(struct cpuset *s, int cpu)
{
	s->bits[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}

void cpuset_clear(struct cpuset *s);
int cpuset_count(const struct cpuset *s);
/* Next CPU in the set at or after `from`, or -1. */
int cpuset_next(const struct cpuset *s, int from);
bool cpuset_empty(const struct cpuset *s);
void cpuset_and(struct cpuset *dst, const struct cpuset *a);
void cpuset_andnot(struct cpuset *dst, const struct cpuset *a);
/* First CPU in `s` not in `in`, or -1. */
int cpuset_first_missing(const struct cpuset *s, const struct cpuset *in);

/* Parse a cpulist.  Returns 0, or -EINVAL with the reason in err
 * ("'3-1' is a reversed range"), -ERANGE for a CPU >= CPUSET_MAX. */
int cpuset_parse(struct cpuset *s, const char *str, char *err, size_t errlen);
/* Format as a compact cpulist ("0-3,8"); "" for the empty set. */
void cpuset_format(const struct cpuset *s, char *buf, size_t len);

/* The kernel's online CPUs (/sys/devices/system/cpu/online). */
int cpuset_online(struct cpuset *s);
/* This process's affinity mask. */
int cpuset_allowed(struct cpuset *s);

#endif
