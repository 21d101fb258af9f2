// SPDX-License-Identifier: GPL-2.0-or-later
/* trace_tool: the programs tests/tools/trace_window.py runs to capture a
 * real tracefs window for the attribution fixtures (tests/data/trace/).
 * Not part of rtsoak; built by the script with cc.
 *
 *   trace_tool probe CPU PRIO PERIOD_US COUNT   SCHED_FIFO PRIO on CPU, sleeps to
 *       absolute deadlines with clock_nanosleep; prints "deadline wake tid" per
 *       wake-up (CLOCK_MONOTONIC ns) at the end, so logging costs nothing in the loop
 *   trace_tool hog CPU PRIO BURST_US PERIOD_US SECONDS   SCHED_FIFO PRIO on CPU:
 *       spins BURST_US every PERIOD_US (comm "attrib-hog")
 *   trace_tool flood CPU SECONDS   UDP to 127.0.0.1 from CPU (SCHED_OTHER): the
 *       loopback receive runs NET_RX on the sender's CPU
 *   trace_tool spin CPU SECONDS   a SCHED_OTHER nice 19 spinner on CPU (comm
 *       "attrib-spin"): keeps the CPU out of idle, whose switches this VM does not record
 *   trace_tool read INSTANCE   the instance's events as fixture lines (ns
 *       timestamps: the text `trace` file prints microseconds only)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pin(int cpu, int prio)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(3);
	}
	if (prio > 0) {
		struct sched_param sp = { .sched_priority = prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("sched_setscheduler");
			exit(3);
		}
	}
}

static void ts_of(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ns / 1000000000ull);
	ts->tv_nsec = (long)(ns % 1000000000ull);
}

static int probe(int cpu, int prio, long period_us, long count)
{
	uint64_t *log = calloc((size_t)count * 2, sizeof(*log));
	uint64_t next;
	struct timespec ts;
	long i;

	if (!log)
		return 3;
	pin(cpu, prio);
	mlockall(MCL_CURRENT | MCL_FUTURE);
	next = now_ns() + 10000000ull;
	for (i = 0; i < count; i++) {
		next += (uint64_t)period_us * 1000ull;
		ts_of(next, &ts);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		log[2 * i] = next;
		log[2 * i + 1] = now_ns();
	}
	for (i = 0; i < count; i++)
		printf("%llu %llu %d\n", (unsigned long long)log[2 * i],
		       (unsigned long long)log[2 * i + 1], gettid());
	return 0;
}

static int hog(int cpu, int prio, long burst_us, long period_us, long seconds)
{
	uint64_t end, next = now_ns() + 5000000ull;
	struct timespec ts;

	prctl(PR_SET_NAME, "attrib-hog");
	pin(cpu, prio);
	end = next + (uint64_t)seconds * 1000000000ull;
	printf("hog %d\n", gettid());
	fflush(stdout);
	while (next < end) {
		ts_of(next, &ts);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		while (now_ns() < next + (uint64_t)burst_us * 1000ull)
			;
		next += (uint64_t)period_us * 1000ull;
	}
	return 0;
}

static int flood(int cpu, long seconds)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	char buf[1400] = { 0 };
	uint64_t end;
	int rx, tx;

	prctl(PR_SET_NAME, "attrib-flood");
	pin(cpu, 0);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(rx, (struct sockaddr *)&a, &alen)) {
		perror("socket");
		return 3;
	}
	printf("flood %d port %d\n", gettid(), ntohs(a.sin_port));
	fflush(stdout);
	end = now_ns() + (uint64_t)seconds * 1000000000ull;
	while (now_ns() < end) {
		for (int i = 0; i < 64; i++)
			sendto(tx, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&a, sizeof(a));
		while (recv(rx, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			;
	}
	return 0;
}

static int spin(int cpu, long seconds)
{
	uint64_t end = now_ns() + (uint64_t)seconds * 1000000000ull;

	prctl(PR_SET_NAME, "attrib-spin");
	pin(cpu, 0);
	if (nice(19) < 0)
		perror("nice");
	while (now_ns() < end)
		;
	return 0;
}

/* ---- read: raw events -> fixture lines (the format of BRIEF-TRACE.md) ---- */

static struct tep_handle *tep;

static unsigned long long field(struct tep_event *e, struct tep_record *r, const char *name)
{
	unsigned long long v = 0;

	tep_get_field_val(NULL, e, name, r, &v, 0);
	return v;
}

static void str_field(struct tep_event *e, struct tep_record *r, const char *name, char *out,
		      size_t len)
{
	struct tep_format_field *f = tep_find_field(e, name);
	const char *s = NULL;
	int n = 0;

	out[0] = 0;
	if (!f)
		return;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned long long off = 0;

		tep_read_number_field(f, r->data, &off);
		s = (const char *)r->data + (off & 0xffff);
		n = (int)(off >> 16);
	} else {
		s = (const char *)r->data + f->offset;
		n = f->size;
	}
	snprintf(out, len, "%.*s", n, s);
}

static void func_name(unsigned long long addr, char *out, size_t len)
{
	const char *s = tep_find_function(tep, addr);

	if (s)
		snprintf(out, len, "%s", s);
	else
		snprintf(out, len, "0x%llx", addr);
}

static void clean(char *s)
{
	if (!*s) {
		strcpy(s, "-");
		return;
	}
	for (; *s; s++)
		if (*s == ' ' || *s == '\t')
			*s = '_';
}

static void emit(unsigned long long ts, int cpu, const char *type, long pid, long pid2, long prio,
		 long prio2, unsigned long long arg, char *name, char *name2)
{
	name[23] = 0;
	name2[23] = 0;
	clean(name);
	clean(name2);
	printf("%llu %d %s %ld %ld %ld %ld %llu %s %s\n", ts, cpu, type, pid, pid2, prio, prio2,
	       arg, name, name2);
}

static int on_event(struct tep_event *e, struct tep_record *r, int cpu, void *ctx)
{
	char n1[64] = "", n2[64] = "";
	const char *ev = e->name;
	size_t l = strlen(ev);

	(void)ctx;
	if (r->missed_events)
		emit(r->ts, cpu, "lost", -1, -1, -1, -1, 0, n1, n2);
	if (!strcmp(ev, "sched_switch")) {
		str_field(e, r, "next_comm", n1, sizeof(n1));
		str_field(e, r, "prev_comm", n2, sizeof(n2));
		emit(r->ts, cpu, "switch", (long)(int)field(e, r, "next_pid"),
		     (long)(int)field(e, r, "prev_pid"), (long)(int)field(e, r, "next_prio"),
		     (long)(int)field(e, r, "prev_prio"), field(e, r, "prev_state") & 0xffffffffu, n1,
		     n2);
	} else if (!strcmp(ev, "sched_waking") || !strcmp(ev, "sched_wakeup")) {
		str_field(e, r, "comm", n1, sizeof(n1));
		emit(r->ts, cpu, ev[9] == 'i' ? "waking" : "wakeup", (long)(int)field(e, r, "pid"), -1,
		     (long)(int)field(e, r, "prio"), -1, field(e, r, "target_cpu"), n1, n2);
	} else if (!strcmp(ev, "irq_handler_entry")) {
		str_field(e, r, "name", n1, sizeof(n1));
		emit(r->ts, cpu, "irq_entry", -1, -1, -1, -1, field(e, r, "irq"), n1, n2);
	} else if (!strcmp(ev, "irq_handler_exit")) {
		emit(r->ts, cpu, "irq_exit", -1, -1, -1, -1, field(e, r, "irq"), n1, n2);
	} else if (!strcmp(ev, "softirq_entry") || !strcmp(ev, "softirq_exit")) {
		emit(r->ts, cpu, ev[8] == 'e' && ev[9] == 'n' ? "softirq_entry" : "softirq_exit", -1,
		     -1, -1, -1, field(e, r, "vec"), n1, n2);
	} else if (!strcmp(e->system, "irq_vectors") && l > 6 && !strcmp(ev + l - 6, "_entry")) {
		snprintf(n1, sizeof(n1), "%.*s", (int)(l - 6), ev);
		emit(r->ts, cpu, "vector_entry", -1, -1, -1, -1, field(e, r, "vector"), n1, n2);
	} else if (!strcmp(e->system, "irq_vectors") && l > 5 && !strcmp(ev + l - 5, "_exit")) {
		snprintf(n1, sizeof(n1), "%.*s", (int)(l - 5), ev);
		emit(r->ts, cpu, "vector_exit", -1, -1, -1, -1, field(e, r, "vector"), n1, n2);
	} else if (!strcmp(ev, "hrtimer_expire_entry")) {
		func_name(field(e, r, "function"), n1, sizeof(n1));
		emit(r->ts, cpu, "hrtimer_entry", -1, -1, -1, -1, 0, n1, n2);
	} else if (!strcmp(ev, "hrtimer_expire_exit")) {
		emit(r->ts, cpu, "hrtimer_exit", -1, -1, -1, -1, 0, n1, n2);
	} else if (!strcmp(ev, "cpu_idle")) {
		emit(r->ts, cpu, "idle", -1, -1, -1, -1, field(e, r, "state") & 0xffffffffu, n1, n2);
	} else if (!strcmp(ev, "nmi_handler")) {
		func_name(field(e, r, "handler"), n1, sizeof(n1));
		emit(r->ts, cpu, "nmi", -1, -1, -1, -1, field(e, r, "delta_ns"), n1, n2);
	}
	return 0;
}

static int read_instance(const char *name)
{
	const char *systems[] = { "sched", "irq", "irq_vectors", "timer", "power", "nmi", NULL };
	struct tracefs_instance *inst = tracefs_instance_alloc(NULL, name);

	if (!inst) {
		perror("tracefs_instance_alloc");
		return 3;
	}
	tep = tracefs_local_events_system(NULL, systems);
	if (!tep) {
		perror("tracefs_local_events_system");
		return 3;
	}
	tracefs_load_cmdlines(NULL, tep);
	if (tracefs_iterate_raw_events(tep, inst, NULL, 0, on_event, NULL) < 0) {
		perror("tracefs_iterate_raw_events");
		return 3;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "probe"))
		return probe(atoi(argv[2]), atoi(argv[3]), atol(argv[4]), atol(argv[5]));
	if (argc == 7 && !strcmp(argv[1], "hog"))
		return hog(atoi(argv[2]), atoi(argv[3]), atol(argv[4]), atol(argv[5]),
			   atol(argv[6]));
	if (argc == 4 && !strcmp(argv[1], "flood"))
		return flood(atoi(argv[2]), atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "spin"))
		return spin(atoi(argv[2]), atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "read"))
		return read_instance(argv[2]);
	fprintf(stderr, "usage: see the comment at the top of trace_tool.c\n");
	return 2;
}
