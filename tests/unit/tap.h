/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap.h: a minimal TAP producer shared by the unit tests (automake's
 * tap-driver reads it).  One behaviour per ok() line, named for it. */
#ifndef RTSOAK_TAP_H
#define RTSOAK_TAP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void tap_plan(int n)
{
	printf("1..%d\n", n);
}

/* The source file as the tree names it: an out-of-tree build passes the
 * compiler an absolute path, and "tests/unit/x.c:12" is what one opens. */
static inline const char *tap_where(const char *file)
{
	const char *p = strstr(file, "tests/");

	return p ? p : file;
}

/* ok(cond, fmt, ...): one TAP line; a failing check also says where it is
 * (jansson's habit), since one name can come from a helper or a loop.
 * Returns cond, so that a test can skip what depends on it. */
#define ok(cond, ...) tap_ok(__FILE__, __LINE__, (cond), __VA_ARGS__)

__attribute__((format(printf, 4, 5))) static inline int tap_ok(const char *file, int line, int cond,
							       const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond) {
		printf("# failed at %s:%d\n", tap_where(file), line);
		tap_failed++;
	}
	fflush(stdout);
	return cond;
}

__attribute__((format(printf, 1, 2))) static inline void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static inline int tap_done(void)
{
	return tap_failed ? 1 : 0;
}

/* A whole file as a NUL-terminated string (free() it), or NULL. */
static inline char *tap_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* A file with text as its content: a fixture the test makes. */
static inline void tap_spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* splitmix64: random test data that is the same on every run and every
 * libc, so that a failure reproduces from its seed. */
static uint64_t tap_rnd_state;

static inline void tap_rnd_seed(uint64_t seed)
{
	tap_rnd_state = seed;
}

static inline uint64_t tap_rnd(void)
{
	uint64_t z = (tap_rnd_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif
