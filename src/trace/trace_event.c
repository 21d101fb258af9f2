// SPDX-License-Identifier: GPL-2.0-or-later
/* trace_event: the names of the event types and the fixture line format
 * (trace_event.h).  Pure text handling, built with or without libtracefs, so
 * that the analysis tests read fixtures on any build.
 *
 * A line is "TS CPU TYPE PID PID2 PRIO PRIO2 ARG NAME NAME2", fields
 * separated by one or more blanks; TS and ARG unsigned decimal, CPU
 * 0..65535, PID..PRIO2 signed 32-bit decimal, TYPE a trace_event_type_name(),
 * names without blanks ('-' when empty; blanks in a name are written as '_',
 * so a name is not always read back byte for byte: comm "a b" comes back as
 * "a_b", and a name that is just "-" comes back empty). */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_event.h"
#include "util.h"

static const char *const type_names[TEV_NTYPES] = {
	[TEV_SWITCH] = "switch",
	[TEV_WAKING] = "waking",
	[TEV_WAKEUP] = "wakeup",
	[TEV_IRQ_ENTRY] = "irq_entry",
	[TEV_IRQ_EXIT] = "irq_exit",
	[TEV_SOFTIRQ_ENTRY] = "softirq_entry",
	[TEV_SOFTIRQ_EXIT] = "softirq_exit",
	[TEV_VECTOR_ENTRY] = "vector_entry",
	[TEV_VECTOR_EXIT] = "vector_exit",
	[TEV_HRTIMER_ENTRY] = "hrtimer_entry",
	[TEV_HRTIMER_EXIT] = "hrtimer_exit",
	[TEV_IDLE] = "idle",
	[TEV_NMI] = "nmi",
	[TEV_STACK] = "stack",
	[TEV_LOST] = "lost",
	[TEV_WORK_START] = "work_start",
	[TEV_WORK_END] = "work_end",
	[TEV_TIMER_ENTRY] = "timer_entry",
	[TEV_TIMER_EXIT] = "timer_exit",
};

/* The kernel's softirq_to_name[] (kernel/softirq.c), in vector order. */
static const char *const softirq_names[] = {
	"HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED",	 "HRTIMER", "RCU",
};

const char *trace_event_type_name(unsigned type)
{
	return type < TEV_NTYPES ? type_names[type] : "?";
}

const char *trace_softirq_name(unsigned vec)
{
	return vec < sizeof(softirq_names) / sizeof(softirq_names[0]) ? softirq_names[vec] : "?";
}

/* A name as one blank-free token. */
static void put_name(char *dst, size_t len, const char *name)
{
	size_t i, n = strnlen(name, TEV_NAME_LEN - 1);

	if (len < 2)
		return;
	if (n == 0) {
		dst[0] = '-';
		dst[1] = '\0';
		return;
	}
	if (n >= len)
		n = len - 1;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		/* Blanks and control characters would split or break the line. */
		dst[i] = (c <= ' ' || c == 0x7f) ? '_' : (char)c;
	}
	dst[n] = '\0';
}

void trace_event_format_line(const struct trace_ev *ev, char *buf, size_t len)
{
	char n1[TEV_NAME_LEN], n2[TEV_NAME_LEN];

	put_name(n1, sizeof(n1), ev->name);
	put_name(n2, sizeof(n2), ev->name2);
	snprintf(buf, len, "%llu %u %s %d %d %d %d %u %s %s", (unsigned long long)ev->ts,
		 (unsigned)ev->cpu, trace_event_type_name(ev->type), (int)ev->pid, (int)ev->pid2,
		 (int)ev->prio, (int)ev->prio2, (unsigned)ev->arg, n1, n2);
}

/* The next blank-separated token of *p, NUL-terminated in place. */
static char *next_token(char **p)
{
	char *s = *p, *t;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '\0')
		return NULL;
	t = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (*s)
		*s++ = '\0';
	*p = s;
	return t;
}

static int parse_u64(const char *s, unsigned long long max, unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno || *end || *v > max)
		return -EINVAL;
	return 0;
}

static int parse_i32(const char *s, int32_t *v)
{
	char *end;
	long long x;

	if (!((*s >= '0' && *s <= '9') || (*s == '-' && s[1] >= '0' && s[1] <= '9')))
		return -EINVAL;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || *end || x < INT32_MIN || x > INT32_MAX)
		return -EINVAL;
	*v = (int32_t)x;
	return 0;
}

static int parse_name(const char *s, char *dst)
{
	size_t n = strlen(s);

	if (n >= TEV_NAME_LEN)
		return -EINVAL;
	if (strcmp(s, "-") == 0)
		n = 0;
	memcpy(dst, s, n);
	memset(dst + n, 0, TEV_NAME_LEN - n);
	util_utf8_fix(dst, n); /* as trace_recorder does with the kernel's names */
	return 0;
}

int trace_event_parse_line(const char *line, struct trace_ev *ev)
{
	char buf[256], *p = buf, *tok[11];
	unsigned long long ts, cpu, arg;
	size_t n = strlen(line);
	int i, type = -1;

	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, line, n);
	buf[n] = '\0';
	for (i = 0; i < 11; i++)
		tok[i] = next_token(&p);
	/* Exactly ten fields, and not a comment. */
	if (!tok[9] || tok[10] || tok[0][0] == '#')
		return -EINVAL;
	for (i = 0; i < TEV_NTYPES; i++)
		if (strcmp(tok[2], type_names[i]) == 0)
			type = i;
	if (type < 0)
		return -EINVAL;
	memset(ev, 0, sizeof(*ev));
	if (parse_u64(tok[0], ULLONG_MAX, &ts) || parse_u64(tok[1], UINT16_MAX, &cpu) ||
	    parse_i32(tok[3], &ev->pid) || parse_i32(tok[4], &ev->pid2) ||
	    parse_i32(tok[5], &ev->prio) || parse_i32(tok[6], &ev->prio2) ||
	    parse_u64(tok[7], UINT32_MAX, &arg) || parse_name(tok[8], ev->name) ||
	    parse_name(tok[9], ev->name2))
		return -EINVAL;
	ev->ts = ts;
	ev->cpu = (uint16_t)cpu;
	ev->type = (uint16_t)type;
	ev->arg = (uint32_t)arg;
	return 0;
}
