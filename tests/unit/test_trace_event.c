// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the fixture line format of the trace subsystem
 * (src/trace/trace_event.c): every type round-trips through
 * format/parse field for field, names come out as single tokens,
 * malformed lines are rejected rather than half read, and a real capture
 * (tests/data/trace/) reads and writes back unchanged. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "trace_event.h"

static int same(const struct trace_ev *a, const struct trace_ev *b)
{
	return a->ts == b->ts && a->type == b->type && a->cpu == b->cpu && a->pid == b->pid &&
	       a->pid2 == b->pid2 && a->prio == b->prio && a->prio2 == b->prio2 &&
	       a->arg == b->arg && strcmp(a->name, b->name) == 0 && strcmp(a->name2, b->name2) == 0;
}

static void round_trips(void)
{
	struct trace_ev ev, back;
	char line[256];
	int all = 1;

	for (unsigned t = 0; t < TEV_NTYPES; t++) {
		memset(&ev, 0, sizeof(ev));
		ev.ts = 18446744073709551615ull - t; /* the largest u64 survives */
		ev.type = (uint16_t)t;
		ev.cpu = (uint16_t)(t * 4097);
		ev.pid = t % 2 ? -1 : 2147483647;
		ev.pid2 = -2147483647 - 1;
		ev.prio = t % 3 ? 0 : 139;
		ev.prio2 = -1;
		ev.arg = t == TEV_IDLE ? TEV_IDLE_EXIT : t;
		snprintf(ev.name, sizeof(ev.name), "%s/%u", trace_event_type_name(t), t);
		if (t % 2)
			snprintf(ev.name2, sizeof(ev.name2), "kworker/u8:%u", t);
		trace_event_format_line(&ev, line, sizeof(line));
		if (trace_event_parse_line(line, &back) != 0 || !same(&ev, &back)) {
			diag("type %u: '%s' did not round-trip", t, line);
			all = 0;
		}
	}
	ok(all, "every type round-trips through format and parse, extremes included");

	memset(&ev, 0, sizeof(ev));
	ev.type = TEV_SWITCH;
	ev.ts = 1000;
	ev.pid = 812;
	ev.pid2 = 0;
	ev.prio = 0;
	ev.prio2 = 120;
	strcpy(ev.name, "rtsoak-spike/0");
	trace_event_format_line(&ev, line, sizeof(line));
	ok(strcmp(line, "1000 0 switch 812 0 0 120 0 rtsoak-spike/0 -") == 0,
	   "a switch formats as the documented line (got '%s')", line);
	ok(trace_event_parse_line("1000 0 switch 812 0 0 120 0 rtsoak-spike/0 -\n", &back) == 0 &&
	       back.name2[0] == '\0' && same(&ev, &back),
	   "an empty name is '-' and reads back empty; a trailing newline is accepted");
	ok(trace_event_parse_line("5\t1  idle -1 -1 -1 -1 4294967295 - -", &back) == 0 &&
	       back.type == TEV_IDLE && back.arg == TEV_IDLE_EXIT && back.cpu == 1,
	   "tabs and repeated blanks separate fields; idle exit is 4294967295");

	strcpy(ev.name, "a b\tc");
	strcpy(ev.name2, "x\ny");
	trace_event_format_line(&ev, line, sizeof(line));
	ok(trace_event_parse_line(line, &back) == 0 && strcmp(back.name, "a_b_c") == 0 &&
	       strcmp(back.name2, "x_y") == 0,
	   "blanks and control characters in names become '_' (got '%s')", line);
}

static void rejects(void)
{
	static const char *const bad[] = {
		"",
		"# input cpu=0 tid=1 deadline=2 wake=3 timer=1 steal=0",
		"1 0 switch 1 2 3 4 5 a",			   /* nine fields */
		"1 0 switch 1 2 3 4 5 a b c",			   /* eleven */
		"1 0 nosuch 1 2 3 4 5 a b",			   /* unknown type */
		"-1 0 switch 1 2 3 4 5 a b",			   /* negative ts */
		"18446744073709551616 0 switch 1 2 3 4 5 a b",	   /* ts beyond u64 */
		"1 65536 switch 1 2 3 4 5 a b",			   /* cpu beyond u16 */
		"1 0 switch 2147483648 2 3 4 5 a b",		   /* pid beyond int32 */
		"1 0 switch 1 2 3 4 4294967296 a b",		   /* arg beyond u32 */
		"1 0 switch 1 2 3 4 -5 a b",			   /* negative arg */
		"1x 0 switch 1 2 3 4 5 a b",			   /* trailing garbage */
		"1 0 switch 1 2 3 4 5 aaaaaaaaaaaaaaaaaaaaaaaa b", /* name of 24: no room for NUL */
		"1 0 switch 1 2 - 4 5 a b",			   /* '-' is not a number */
		"1 0 switch +1 2 3 4 5 a b",			   /* no sign but '-' */
	};
	struct trace_ev ev;
	char longline[400];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(trace_event_parse_line(bad[i], &ev) == -EINVAL, "rejected: '%s'", bad[i]);
	memset(longline, '1', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	ok(trace_event_parse_line(longline, &ev) == -EINVAL, "a line longer than 255 is rejected");
	ok(trace_event_parse_line("1 0 switch 1 2 3 4 5 aaaaaaaaaaaaaaaaaaaaaaa b", &ev) == 0 &&
	       strlen(ev.name) == 23,
	   "a name of 23 characters is the longest accepted");
}

/* The fixture of a real capture (tests/trace_capture), in the source tree:
 * $top_srcdir (set by `make check`) or relative to this file's path. */
static void real_capture(void)
{
	static const char name[] = "tests/data/trace/capture-fifo50-sleep1ms.events";
	char path[4096], line[8192], again[256], *cut;
	const char *top = getenv("top_srcdir");
	long events = 0, bad = 0, unsorted = 0, child = -1, fifo = 0, wake = 0;
	struct trace_ev ev;
	uint64_t last = 0;
	FILE *f;

	if (top) {
		snprintf(path, sizeof(path), "%s/%s", top, name);
	} else {
		snprintf(path, sizeof(path), "%s", __FILE__);
		if ((cut = strstr(path, "tests/unit/")))
			snprintf(cut, sizeof(path) - (size_t)(cut - path), "%s", name);
	}
	f = fopen(path, "r");
	if (!ok(f != NULL, "the real capture %s opens", name)) {
		for (int i = 0; i < 3; i++)
			ok(0, "(skipped: no fixture)");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#') {
			sscanf(line, "# child pid=%ld", &child);
			continue;
		}
		events++;
		if (trace_event_parse_line(line, &ev) != 0) {
			if (bad++ < 3)
				diag("does not parse: '%s'", line);
			continue;
		}
		trace_event_format_line(&ev, again, sizeof(again));
		if (strcmp(again, line) != 0 && bad++ < 3)
			diag("'%s' formats back as '%s'", line, again);
		if (ev.ts < last)
			unsorted++;
		last = ev.ts;
		fifo += ev.type == TEV_SWITCH && ev.pid == child && ev.prio == 49;
		wake += ev.type == TEV_HRTIMER_ENTRY && ev.pid == child &&
			!strcmp(ev.name, "hrtimer_wakeup");
	}
	fclose(f);
	ok(events > 100 && bad == 0,
	   "every one of its %ld events parses and formats back byte for byte", events);
	ok(unsorted == 0, "its events are in time order");
	ok(fifo >= 10 && wake >= 10,
	   "the FIFO 50 sleeper %ld is switched in at prio 49 (%ld) and woken by hrtimer_wakeup (%ld)",
	   child, fifo, wake);
}

static void names(void)
{
	ok(strcmp(trace_softirq_name(0), "HI") == 0 &&
	       strcmp(trace_softirq_name(3), "NET_RX") == 0 &&
	       strcmp(trace_softirq_name(9), "RCU") == 0 &&
	       strcmp(trace_softirq_name(10), "?") == 0,
	   "softirq names follow the kernel's vector order; out of range is '?'");
	ok(strcmp(trace_event_type_name(TEV_HRTIMER_ENTRY), "hrtimer_entry") == 0 &&
	       strcmp(trace_event_type_name(TEV_LOST), "lost") == 0 &&
	       strcmp(trace_event_type_name(TEV_NTYPES), "?") == 0,
	   "type names as the fixture format documents them");
}

int main(void)
{
	tap_plan(28);
	round_trips();
	rejects();
	real_capture();
	names();
	return tap_done();
}
