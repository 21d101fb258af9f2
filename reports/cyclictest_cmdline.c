// SPDX-License-Identifier: GPL-2.0-or-later
/* cyclictest_cmdline: a cyclictest command line (the "cmdline:" of a
 * --json file) read the way cyclictest 2.x's getopt_long reads it.
 *
 * The interval, and the rest the file does not record, is only in the
 * command line.  Walking it needs each option's argument kind, so that an
 * option's argument is never taken for an option: the table below is a
 * replica of cyclictest's long options and short letters, of which only a
 * few are read.  Numbers are read as cyclictest reads them (atoi: an int);
 * out of that range the line counts as unknown rather than wrapped.  After
 * the walk comes cyclictest's own defaulting (process_options()), in its
 * order. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cyclictest_cmdline.h"
#include "util.h"

/* cyclictest's defaults (src/cyclictest/cyclictest.c). */
#define CT_INTERVAL_US 1000
#define CT_DISTANCE_US 500

enum ct_opt {
	O_IGNORED,
	O_INTERVAL,
	O_DISTANCE,
	O_HIST,
	O_PRIO,
	O_SPREAD,
	O_POLICY,
	O_CLOCK,
	O_LOOPS,
	O_DURATION
};

/* cyclictest 2.x's options, long name and short letter, with their argument
 * kind: enough to walk a command line as getopt_long does, so that an
 * option's argument is never mistaken for an option.  Only the ones with an
 * id other than O_IGNORED are read. */
static const struct ct_option {
	const char *name;
	char letter;
	int arg; /* no_argument, required_argument, optional_argument */
	enum ct_opt id;
} ct_options[] = {
	{ "affinity", 'a', optional_argument, O_IGNORED },
	{ "aligned", 'A', optional_argument, O_IGNORED },
	{ "breaktrace", 'b', required_argument, O_IGNORED },
	{ "clock", 'c', required_argument, O_CLOCK },
	{ "default-system", 0, no_argument, O_IGNORED },
	{ "distance", 'd', required_argument, O_DISTANCE },
	{ "duration", 'D', required_argument, O_DURATION },
	{ "latency", 0, required_argument, O_IGNORED },
	{ "fifo", 'F', required_argument, O_IGNORED },
	{ "histogram", 'h', required_argument, O_HIST },
	{ "histofall", 'H', required_argument, O_HIST },
	{ "histfile", 0, required_argument, O_IGNORED },
	{ "interval", 'i', required_argument, O_INTERVAL },
	{ "json", 0, required_argument, O_IGNORED },
	{ "laptop", 0, no_argument, O_IGNORED },
	{ "loops", 'l', required_argument, O_LOOPS },
	{ "mainaffinity", 0, required_argument, O_IGNORED },
	{ "mlockall", 'm', no_argument, O_IGNORED },
	{ "refresh_on_max", 'M', no_argument, O_IGNORED },
	{ "nsecs", 'N', no_argument, O_IGNORED },
	{ "oscope", 'o', required_argument, O_IGNORED },
	{ "priority", 'p', required_argument, O_PRIO },
	{ "quiet", 'q', no_argument, O_IGNORED },
	{ "priospread", 0, no_argument, O_SPREAD },
	{ "relative", 'r', no_argument, O_IGNORED },
	{ "resolution", 'R', no_argument, O_IGNORED },
	{ "secaligned", 0, optional_argument, O_IGNORED },
	{ "system", 's', no_argument, O_IGNORED },
	{ "smi", 0, no_argument, O_IGNORED },
	{ "smp", 'S', no_argument, O_IGNORED },
	{ "spike", 0, required_argument, O_IGNORED },
	{ "spike-nodes", 0, required_argument, O_IGNORED },
	{ "threads", 't', optional_argument, O_IGNORED },
	{ "tracemark", 0, no_argument, O_IGNORED },
	{ "unbuffered", 'u', no_argument, O_IGNORED },
	{ "verbose", 'v', no_argument, O_IGNORED },
	{ "dbg_cyclictest", 0, no_argument, O_IGNORED },
	{ "policy", 0, required_argument, O_POLICY },
	{ "help", 0, no_argument, O_IGNORED },
	{ "posix_timers", 'x', no_argument, O_IGNORED },
};
#define CT_NOPTIONS (sizeof(ct_options) / sizeof(ct_options[0]))

static enum ct_policy policy_parse(const char *s)
{
	/* handlepolicy(): prefixes, anything else is SCHED_OTHER. */
	if (!strncasecmp(s, "batch", 5))
		return CT_BATCH;
	if (!strncasecmp(s, "idle", 4))
		return CT_IDLE;
	if (!strncasecmp(s, "fifo", 4))
		return CT_FIFO;
	if (!strncasecmp(s, "rr", 2))
		return CT_RR;
	return CT_OTHER;
}

/* parse_time_string(): seconds, or with an m, h or d suffix.  False when
 * the seconds do not fit or their nanoseconds would not (issue 12: "-D
 * 999999999999d" overflowed here, and again x 1e9 in config_of). */
static bool duration_parse(const char *s, long *out)
{
	long t, mult = 1;
	char *end;

	errno = 0;
	t = strtol(s, &end, 10);
	if (errno == ERANGE)
		return false;
	switch (*end) {
	case 'm':
	case 'M':
		mult = 60;
		break;
	case 'h':
	case 'H':
		mult = 3600;
		break;
	case 'd':
	case 'D':
		mult = 86400;
		break;
	}
	if (__builtin_mul_overflow(t, mult, out) || *out > INT64_MAX / (long)NSEC_PER_SEC ||
	    *out < -(INT64_MAX / (long)NSEC_PER_SEC))
		return false;
	return true;
}

/* Apply one option; false when its number is out of the range cyclictest
 * reads (an int: it uses atoi()), which leaves the command line unknown
 * rather than a wrapped or overflowed interval. */
static bool cmd_apply(struct ct_cmdline *c, enum ct_opt id, const char *v)
{
	long n = 0;

	if (v && id != O_POLICY && id != O_DURATION) {
		errno = 0;
		n = strtol(v, NULL, 10);
		if (errno == ERANGE || n > INT_MAX || n < INT_MIN)
			return false;
	}
	switch (id) {
	case O_INTERVAL:
		c->interval_us = n;
		break;
	case O_DISTANCE:
		c->distance_us = n;
		break;
	case O_HIST:
		c->hist = n;
		break;
	case O_PRIO:
		c->priority = n;
		if (c->policy != CT_FIFO && c->policy != CT_RR)
			c->policy = CT_FIFO;
		break;
	case O_SPREAD:
		c->spread = true;
		break;
	case O_POLICY:
		c->policy = policy_parse(v);
		break;
	case O_CLOCK:
		c->clock = n;
		break;
	case O_LOOPS:
		c->loops = n;
		break;
	case O_DURATION:
		return duration_parse(v, &c->duration_s);
	case O_IGNORED:
		break;
	}
	return true;
}

static const struct ct_option *long_option(const char *name, size_t len, bool *ambiguous)
{
	const struct ct_option *hit = NULL;

	*ambiguous = false;
	for (size_t i = 0; i < CT_NOPTIONS; i++) {
		if (strncmp(ct_options[i].name, name, len))
			continue;
		if (strlen(ct_options[i].name) == len)
			return &ct_options[i]; /* exact beats any abbreviation */
		if (hit)
			*ambiguous = true;
		hit = &ct_options[i];
	}
	return *ambiguous ? NULL : hit;
}

static const struct ct_option *short_option(char letter)
{
	for (size_t i = 0; i < CT_NOPTIONS; i++)
		if (ct_options[i].letter == letter)
			return &ct_options[i];
	return NULL;
}

/* Walk argv (argv[0] is the program, argv[argc] NULL) as getopt_long would.  An unknown
 * short option makes the rest unreadable (its argument could be glued to
 * it), so the whole line counts as not understood; an unknown long option
 * (a newer cyclictest) is skipped and named. */
void cyclictest_cmdline_parse(struct ct_cmdline *c, char **argv, int argc, size_t nthreads)
{
	*c = (struct ct_cmdline){
		.parsed = true, .interval_us = CT_INTERVAL_US, .distance_us = -1, .policy = CT_OTHER
	};
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			break;
		if (a[0] != '-' || !a[1])
			continue; /* an operand; cyclictest takes none */
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			bool amb;
			const struct ct_option *o = long_option(name, len, &amb);
			if (!o && amb) {
				snprintf(c->why, sizeof(c->why), "'--%.*s' is ambiguous", (int)len,
					 name);
				c->parsed = false;
				return;
			}
			if (!o) {
				/* a list too long for c->ignored ends in "..." */
				util_catf(c->ignored, sizeof(c->ignored), "%s--%.*s",
					  c->ignored[0] ? " " : "", (int)len, name);
				continue;
			}
			const char *v = eq ? eq + 1 : NULL;
			if (!v && o->arg == required_argument && (v = argv[i + 1]))
				i++;
			if (!v && o->arg == required_argument)
				goto novalue;
			if (!cmd_apply(c, o->id, v))
				goto range;
			continue;
		}
		for (const char *p = a + 1; *p; p++) {
			const struct ct_option *o = short_option(*p);
			if (!o) {
				snprintf(c->why, sizeof(c->why), "unknown option '-%c'", *p);
				c->parsed = false;
				return;
			}
			if (o->arg == no_argument) {
				(void)cmd_apply(c, o->id, NULL); /* no number: cannot fail */
				continue;
			}
			const char *v = p[1] ? p + 1 : NULL;
			if (!v && o->arg == required_argument && (v = argv[i + 1]))
				i++;
			if (!v && o->arg == required_argument)
				goto novalue;
			if (!cmd_apply(c, o->id, v))
				goto range;
			break;
		}
	}
	/* process_options()'s defaulting, in its order. */
	if (c->spread && c->priority == 0)
		c->priority = (long)nthreads + 1;
	if (c->priority && c->policy != CT_FIFO && c->policy != CT_RR)
		c->policy = CT_FIFO;
	if ((c->policy == CT_FIFO || c->policy == CT_RR) && c->priority == 0)
		c->priority = (long)nthreads + 1;
	if (c->distance_us == -1)
		c->distance_us = CT_DISTANCE_US;
	if (c->hist)
		c->distance_us = 0; /* "distance is ignored and set to 0, if histogram enabled" */
	if (c->interval_us <= 0) {
		snprintf(c->why, sizeof(c->why), "the interval is not a positive number");
		c->parsed = false;
	}
	return;
novalue: /* cyclictest itself would have refused this line */
	snprintf(c->why, sizeof(c->why), "'%s' lacks its value", argv[argc - 1]);
	c->parsed = false;
	return;
range:
	snprintf(c->why, sizeof(c->why), "a number in '%.40s' is out of range", argv[i]);
	c->parsed = false;
}
