// SPDX-License-Identifier: GPL-2.0-or-later
/* trace_capture: the flight recorder on its own, for tests, fixtures and
 * the recorder bench.
 *
 *   trace_capture [options] [-- command args...]
 *     --cpus LIST      CPUs to trace (default 0); the window printed is the
 *                      first one's (--print-cpu to choose)
 *     --ms T           without a command: record T ms (default 100)
 *     --buffer-kb N    instance buffer per CPU (default the recorder's)
 *     --window-ms N    window kept (default 10000 here: the whole capture)
 *     --max-events N   per CPU (default 1000000 here)
 *     --poll-ms N      poll period (default 10)
 *     --stats          one "# stats ..." line on stderr: events, lost, polls,
 *                      CPU time of the polls, memory
 *     --quiet          print no events
 *     --stacks         the stack at every local-timer interrupt (--trace-stacks)
 *   trace_capture --top        the top-level settings (trace_top_snapshot)
 *   trace_capture --cleanup    remove stale rtsoak instances (their owner gone), print how many
 *
 * Prints "# capture ..." comments (instance, events enabled, stale
 * instances removed) and then the window of the chosen CPU, one
 * trace_event_format_line() per event.  Exit 0, 3 for an environment error
 * (one line on stderr), 2 for usage. */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpuset.h"
#include "trace_event.h"
#include "trace_instance.h"
#include "trace_recorder.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: trace_capture [--cpus LIST] [--ms T] [--buffer-kb N] [--window-ms N] "
		"[--max-events N] [--poll-ms N] [--print-cpu N] [--stats] [--quiet] "
		"[-- command...] | --top | --cleanup\n");
	return 2;
}

static int top(void)
{
	struct trace_top_state s;
	int r = trace_top_snapshot(TRACE_ROOT, &s);

	if (r) {
		fprintf(stderr, "trace_capture: %s: %s\n", TRACE_ROOT, strerror(-r));
		return 3;
	}
	printf("tracing_on=%s\ncurrent_tracer=%s\nbuffer_size_kb=%s\ntrace_clock=%s\n"
	       "tracing_cpumask=%s\nset_event=%s%s\n",
	       s.tracing_on, s.current_tracer, s.buffer_size_kb, s.trace_clock, s.tracing_cpumask,
	       s.set_event, s.truncated ? " (truncated)" : "");
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

int main(int argc, char **argv)
{
	struct trace_recorder_config rc = { .window_ms = 10000, .max_events = 1000000 };
	struct trace_instance_config ic = { 0 };
	unsigned ms = 100, poll_ms = 10;
	bool stats = false, quiet = false;
	int print_cpu = -1, i, status = 0, rv = 0;
	char err[512], line[256];
	struct trace_instance ti;
	struct trace_recorder *rec;
	struct trace_window_info wi;
	uint64_t t0, t1, polls = 0, poll_cpu = 0, max_poll_cpu = 0, nev = 0, last = 0, max_gap = 0;
	struct trace_ev *out;
	pid_t child = 0;
	long n;

	cpuset_set(&ic.cpus, 0);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--top"))
			return top();
		if (!strcmp(a, "--cleanup")) {
			int r = trace_instance_cleanup_stale(TRACE_ROOT, err, sizeof(err));

			if (r < 0) {
				fprintf(stderr, "trace_capture: %s\n", err);
				return 3;
			}
			printf("%d\n", r);
			return 0;
		}
		if (!strcmp(a, "--"))
			break;
		if (!strcmp(a, "--stats")) {
			stats = true;
			continue;
		}
		if (!strcmp(a, "--quiet")) {
			quiet = true;
			continue;
		}
		if (!strcmp(a, "--stacks")) {
			ic.stacks = true;
			continue;
		}
		if (i + 1 >= argc)
			return usage();
		if (!strcmp(a, "--cpus")) {
			if (cpuset_parse(&ic.cpus, argv[++i], err, sizeof(err))) {
				fprintf(stderr, "trace_capture: --cpus: %s\n", err);
				return 2;
			}
		} else if (!strcmp(a, "--ms")) {
			ms = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(a, "--buffer-kb")) {
			ic.buffer_kb = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(a, "--window-ms")) {
			rc.window_ms = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(a, "--max-events")) {
			rc.max_events = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(a, "--poll-ms")) {
			poll_ms = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(a, "--print-cpu")) {
			print_cpu = atoi(argv[++i]);
		} else {
			return usage();
		}
	}
	if (print_cpu < 0)
		print_cpu = cpuset_next(&ic.cpus, 0);

	if (trace_instance_create(&ti, &ic, err, sizeof(err))) {
		fprintf(stderr, "trace_capture: %s\n", err);
		return 3;
	}
	rec = trace_recorder_create(&ti, &rc, err, sizeof(err));
	if (!rec) {
		fprintf(stderr, "trace_capture: %s\n", err);
		trace_instance_destroy(&ti, err, sizeof(err));
		return 3;
	}
	printf("# capture instance=%s cpu=%d buffer_kb=%u stale_removed=%d mounted=%d\n", ti.name,
	       print_cpu, ti.buffer_kb, ti.stale_removed, ti.mounted);
	printf("# events");
	for (unsigned k = 0; k < ti.nevents; k++)
		printf(" %s", ti.events[k]);
	printf("\n");
	fflush(stdout);

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = mono_ns();
	if (i < argc - 1) {
		child = fork();
		if (child == 0) {
			execvp(argv[i + 1], argv + i + 1);
			fprintf(stderr, "trace_capture: %s: %s\n", argv[i + 1], strerror(errno));
			_exit(127);
		}
		printf("# child pid=%d\n", (int)child);
		fflush(stdout);
	}
	for (;;) {
		uint64_t c0;
		int r;

		if (child > 0) {
			if (waitpid(child, &status, WNOHANG) == child)
				break;
		} else if (mono_ns() - t0 >= (uint64_t)ms * 1000000ull) {
			break;
		}
		if (stop)
			break;
		usleep(poll_ms * 1000);
		if (last && mono_ns() - last > max_gap)
			max_gap = mono_ns() - last;
		last = mono_ns();
		c0 = thread_cpu_ns();
		r = trace_recorder_poll(rec, err, sizeof(err));
		c0 = thread_cpu_ns() - c0;
		polls++;
		poll_cpu += c0;
		if (c0 > max_poll_cpu)
			max_poll_cpu = c0;
		if (r < 0) {
			fprintf(stderr, "trace_capture: %s\n", err);
			rv = 3;
			break;
		}
		nev += (uint64_t)r;
	}
	t1 = mono_ns();
	/* What was written up to t1 is in the buffers: read it all. */
	while (!rv && trace_recorder_horizon(rec, print_cpu) < t1) {
		int r = trace_recorder_poll(rec, err, sizeof(err));

		if (r < 0) {
			fprintf(stderr, "trace_capture: %s\n", err);
			rv = 3;
			break;
		}
		nev += (uint64_t)r;
		if (r == 0)
			usleep(1000);
	}
	if (!rv) {
		out = calloc(rc.max_events, sizeof(*out));
		n = out ? trace_recorder_window(rec, print_cpu, t0, t1, out, rc.max_events, &wi)
			: -1;
		if (n < 0) {
			fprintf(stderr, "trace_capture: no window for CPU %d\n", print_cpu);
			rv = 3;
		} else {
			uint64_t events = 0, lost = 0;

			if (trace_recorder_stats(rec, print_cpu, &events, &lost) < 0)
				events = lost = 0;
			printf("# window from=%llu to=%llu events=%ld total=%zu lost=%llu "
			       "lost_inside=%d lost_before=%d oldest=%llu covered=%d complete=%d\n",
			       (unsigned long long)t0, (unsigned long long)t1, n, wi.total,
			       (unsigned long long)lost, wi.lost_inside, wi.lost_before,
			       (unsigned long long)wi.oldest, wi.covered, wi.complete);
			for (long k = 0; !quiet && k < n; k++) {
				trace_event_format_line(&out[k], line, sizeof(line));
				puts(line);
			}
			if (stats) {
				struct rusage ru;

				getrusage(RUSAGE_SELF, &ru);
				fprintf(stderr,
					"# stats seconds=%.3f events=%llu lost=%llu polls=%llu "
					"poll_cpu_ms=%.3f max_poll_us=%.1f max_gap_ms=%.1f "
					"recorder_bytes=%zu maxrss_kb=%ld\n",
					(double)(t1 - t0) / 1e9, (unsigned long long)nev,
					(unsigned long long)lost, (unsigned long long)polls,
					(double)poll_cpu / 1e6, (double)max_poll_cpu / 1e3,
					(double)max_gap / 1e6, trace_recorder_memory(rec),
					ru.ru_maxrss);
			}
		}
		free(out);
	}
	trace_recorder_destroy(rec);
	if (trace_instance_destroy(&ti, err, sizeof(err))) {
		fprintf(stderr, "trace_capture: %s\n", err);
		rv = 3;
	}
	if (child > 0 && !rv && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		rv = 1;
	return rv;
}
