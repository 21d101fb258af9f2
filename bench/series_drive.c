// SPDX-License-Identifier: GPL-2.0-or-later
/* series_drive: a synthetic driver of the recorder and series code, to
 * measure the live memory of a big, long run without its threads (issue
 * 20: a 256-CPU x 24 h run within 256 MiB RSS).  bench/series-memory.sh
 * runs it; `make bench-tools` builds it (not built by default, not part of
 * make check).
 *
 * It sets up what `rtsoak run` sets up per probe thread (session.c's
 * probe_main and series_start): a recorder per result and phase
 * (recorder_alloc), the series feed of the first result
 * (series_feed_alloc) and its housekeeping side (series_init,
 * series_set_threshold), for --cpus CPUs x the timer probe (one result) and
 * the local net probe (three: net, net.stack, net.wakeup).  Then it plays
 * both threads in turn for --intervals series intervals: per thread and
 * interval, --samples samples through what probe_record() does (series_note
 * on the first result, then recorder_add on each), time advanced
 * synthetically, and series_drain() of every series after each interval
 * (the housekeeping tick drains every 100 ms, so at a 1 s series interval it
 * drains after each), then series_flush().  Memory is locked the way rtsoak
 * locks it (rt_lock_memory: mlockall, so everything allocated is resident).
 *
 * Each thread's allocations are made by a real thread, created as rtsoak
 * creates a probe thread (rt_thread_create with the probes' stack size,
 * pinned, here to its CPU folded onto the online ones, SCHED_OTHER), which
 * then waits until the end: so the locked stacks and malloc's behaviour
 * with many threads (rt_lock_memory's single arena) are in the figure.
 *
 * What it leaves out: the net probe's sockets and sender, the report
 * built at each checkpoint and at the end, the loads, the trace recorder.
 *
 * Output: one `key value` line per figure, for the script to read. */
#include <config.h>

#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "recorder.h"
#include "rt.h"
#include "series.h"

#define NSEC_PER_SEC 1000000000ull
#define SERIES_DRIVE_RESULTS 4 /* PROBE_MAX_RESULTS */

struct series_drive_thread {
	int cpu;
	unsigned nrec;
	struct recorder *rec[SERIES_DRIVE_RESULTS][RECORDER_MAX_PHASES];
	struct series_feed *feed;
	struct series s;
	/* the thread that allocated the above, and what it needs */
	pthread_t tid;
	int setup_rc;
	const struct series_drive_opts *o;
	const unsigned *phase;
	long online;
};

struct series_drive_opts {
	unsigned cpus, phases, samples, top_k;
	uint64_t intervals, base_ns, limit, spike_every, latency_ns, threshold_ns;
	int lock;
};

/* A /proc/self/status field in KiB, -1 if absent. */
static long series_drive_status_kib(const char *field)
{
	char line[256];
	size_t len = strlen(field);
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':') {
			v = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static double series_drive_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void series_drive_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: series_drive [--cpus N] [--intervals M] [--samples K] [--series-interval-ns NS]\n"
	    "                    [--phases P] [--spike-every S] [--limit L] [--top-k K] [--no-lock]\n"
	    "  --cpus N        CPUs, each with a timer and a net probe thread (256)\n"
	    "  --intervals M   series intervals fed to each series (86400)\n"
	    "  --samples K     samples per thread and interval (2)\n"
	    "  --series-interval-ns NS  the series interval (1000000000, rtsoak's 1 s)\n"
	    "  --phases P      recorders per result (1: no --schedule rotate)\n"
	    "  --spike-every S one sample above the spike threshold every S intervals (60; 0: none)\n"
	    "  --limit L       --series-limit (100000)\n"
	    "  --top-k K       top samples kept per recorder (32)\n"
	    "  --no-lock       do not mlockall (RSS is then only what was touched)\n");
}

static int series_drive_parse(int argc, char **argv, struct series_drive_opts *o)
{
	static const struct option longopts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "intervals", required_argument, NULL, 'm' },
		{ "samples", required_argument, NULL, 'k' },
		{ "series-interval-ns", required_argument, NULL, 'i' },
		{ "phases", required_argument, NULL, 'p' },
		{ "spike-every", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'l' },
		{ "top-k", required_argument, NULL, 't' },
		{ "no-lock", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct series_drive_opts){
		.cpus = 256,
		.phases = 1,
		.samples = 2,
		.top_k = RECORDER_TOP_DEFAULT,
		.intervals = 86400,
		.base_ns = NSEC_PER_SEC,
		.limit = SERIES_LIMIT_DEFAULT,
		.spike_every = 60,
		.latency_ns = 50000,
		.lock = 1,
	};
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		unsigned long long v = 0;
		if (optarg) {
			char *end;
			v = strtoull(optarg, &end, 10);
			if (*end || end == optarg) {
				fprintf(stderr, "series_drive: not a number: '%s'\n", optarg);
				return 2;
			}
		}
		switch (c) {
		case 'c':
			o->cpus = (unsigned)v;
			break;
		case 'm':
			o->intervals = v;
			break;
		case 'k':
			o->samples = (unsigned)v;
			break;
		case 'i':
			o->base_ns = v;
			break;
		case 'p':
			o->phases = (unsigned)v;
			break;
		case 's':
			o->spike_every = v;
			break;
		case 'l':
			o->limit = v;
			break;
		case 't':
			o->top_k = (unsigned)v;
			break;
		case 'n':
			o->lock = 0;
			break;
		case 'h':
			series_drive_usage(stdout);
			exit(0);
		default:
			series_drive_usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !o->cpus || !o->intervals || !o->samples || !o->base_ns ||
	    !o->phases || o->phases > RECORDER_MAX_PHASES || o->limit < SERIES_LIMIT_MIN ||
	    o->top_k > RECORDER_TOP_MAX) {
		series_drive_usage(stderr);
		return 2;
	}
	/* rtsoak's automatic threshold is 10 x the median; the samples here
	 * sit near latency_ns, so that is where it would land. */
	o->threshold_ns = SERIES_AUTO_FACTOR * o->latency_ns;
	return 0;
}

/* What probe_main and series_start allocate for one probe thread.  The CPU
 * number given to the NUMA allocator is folded onto the online CPUs, so
 * that the allocations take the path they take on the big machine. */
static int series_drive_setup(struct series_drive_thread *t, int cpu, unsigned nrec,
			      const struct series_drive_opts *o, const unsigned *phase, long online)
{
	int node_cpu = online > 0 ? cpu % (int)online : -1;

	t->cpu = cpu;
	t->nrec = nrec;
	for (unsigned k = 0; k < nrec; k++)
		for (unsigned p = 0; p < o->phases; p++)
			if (!(t->rec[k][p] = recorder_alloc(o->top_k, node_cpu)))
				return -1;
	t->feed =
	    series_feed_alloc(node_cpu, o->base_ns, o->threshold_ns, t->rec[0], o->phases, phase);
	if (!t->feed || series_init(&t->s, t->feed, o->base_ns, o->limit) < 0)
		return -1;
	series_set_threshold(&t->s, o->threshold_ns, 0);
	return 0;
}

/* The threads wait here until the end, their stacks mapped. */
static pthread_mutex_t series_drive_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t series_drive_cond = PTHREAD_COND_INITIALIZER;
static unsigned series_drive_ready;
static bool series_drive_done;

/* A probe thread's start (session.c's probe_main): its stack touched, its
 * allocations made from the thread. */
static void *series_drive_thread_main(void *arg)
{
	struct series_drive_thread *t = arg;

	rt_prefault_stack(PROBE_STACK_PREFAULT);
	t->setup_rc = series_drive_setup(t, t->cpu, t->nrec, t->o, t->phase, t->online);
	pthread_mutex_lock(&series_drive_lock);
	series_drive_ready++;
	pthread_cond_broadcast(&series_drive_cond);
	while (!series_drive_done)
		pthread_cond_wait(&series_drive_cond, &series_drive_lock);
	pthread_mutex_unlock(&series_drive_lock);
	return NULL;
}

/* One interval's samples of one thread, the way probe_record() takes them:
 * the series first (result 0), then each result's recorder.  Latencies
 * wander a little around latency_ns (a xorshift, deterministic); one
 * sample every spike_every intervals is a spike. */
static void series_drive_feed(struct series_drive_thread *t, const struct series_drive_opts *o,
			      unsigned phase, uint64_t j, uint64_t *rng)
{
	for (unsigned i = 0; i < o->samples; i++) {
		uint64_t t_ns = j * o->base_ns + (i + 1) * (o->base_ns / (o->samples + 1));
		*rng ^= *rng << 13;
		*rng ^= *rng >> 7;
		*rng ^= *rng << 17;
		uint64_t lat = o->latency_ns / 2 + *rng % o->latency_ns;
		if (o->spike_every && i == 0 &&
		    j % o->spike_every == (uint64_t)t->cpu % o->spike_every)
			lat = 2 * o->threshold_ns;
		series_note(t->feed, lat, t_ns);
		for (unsigned k = 0; k < t->nrec; k++)
			recorder_add(t->rec[k][phase], lat, t_ns);
	}
}

int main(int argc, char **argv)
{
	struct series_drive_opts o;
	struct series_drive_thread *th;
	unsigned nthreads, phase = 0;
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	char err[256] = "";
	int rc;

	if ((rc = series_drive_parse(argc, argv, &o)))
		return rc;
	if (o.lock) {
		rc = rt_lock_memory(err, sizeof(err));
		if (rc < 0 || rc == 2)
			fprintf(stderr, "series_drive: %s\n", err);
		printf("locked %s\n", rc == 0 ? "all" : rc == 2 ? "current" : "no");
	} else {
		printf("locked no\n");
	}
	nthreads = 2 * o.cpus;
	th = calloc(nthreads, sizeof(*th));
	if (!th)
		return 1;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	long rss0 = series_drive_status_kib("VmRSS");
	/* Threads in rtsoak's order: every CPU's timer, then every CPU's net. */
	for (unsigned i = 0; i < nthreads; i++) {
		th[i].cpu = (int)(i % o.cpus);
		th[i].nrec = i < o.cpus ? 1 : 3;
		th[i].o = &o;
		th[i].phase = &phase;
		th[i].online = online;
		int cpu = online > 0 ? th[i].cpu % (int)online : 0;
		int trc = rt_thread_create(&th[i].tid, cpu, 0, PROBE_STACK_SIZE,
					   series_drive_thread_main, &th[i]);
		if (trc) {
			fprintf(stderr, "series_drive: cannot create thread %u: %s\n", i,
				strerror(trc));
			return 1;
		}
	}
	pthread_mutex_lock(&series_drive_lock);
	while (series_drive_ready < nthreads)
		pthread_cond_wait(&series_drive_cond, &series_drive_lock);
	pthread_mutex_unlock(&series_drive_lock);
	for (unsigned i = 0; i < nthreads; i++)
		if (th[i].setup_rc < 0) {
			fprintf(stderr, "series_drive: out of memory setting up thread %u\n", i);
			return 1;
		}
	if (o.lock && rc == 2)
		(void)rt_lock_memory_again();
	long rss_setup = series_drive_status_kib("VmRSS");
	/* The housekeeping thread's room for the quantile snapshots, as
	 * session.c's series_start allocates it. */
	struct series_qwork *qw = calloc(1, sizeof(*qw));
	if (!qw)
		return 1;
	double t0 = series_drive_now();
	for (uint64_t j = 0; j < o.intervals; j++) {
		for (unsigned i = 0; i < nthreads; i++)
			series_drive_feed(&th[i], &o, phase, j, &rng);
		/* housekeeping's tick just after the interval's end: the drain,
		 * then the per-interval quantiles (series_tick) */
		uint64_t now = (j + 1) * o.base_ns + SERIES_QUANT_LAG_NS;
		for (unsigned i = 0; i < nthreads; i++)
			if (series_drain(&th[i].s) < 0 ||
			    series_quant_tick(&th[i].s, now, qw) < 0) {
				fprintf(stderr, "series_drive: out of memory at interval %llu\n",
					(unsigned long long)j);
				return 1;
			}
	}
	for (unsigned i = 0; i < nthreads; i++)
		if (series_flush(&th[i].s) < 0 || series_quant_flush(&th[i].s, qw) < 0) {
			fprintf(stderr, "series_drive: out of memory in the flush\n");
			return 1;
		}
	double secs = series_drive_now() - t0;
	long rss_end = series_drive_status_kib("VmRSS");
	long hwm = series_drive_status_kib("VmHWM");
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);

	uint64_t n_min = UINT64_MAX, n_max = 0, logged = 0, with_log = 0, stalls = 0;
	uint64_t cap_bytes = 0, log_bytes = 0, quant_bytes = 0;
	for (unsigned i = 0; i < nthreads; i++) {
		const struct series *s = &th[i].s;
		if (s->st.n < n_min)
			n_min = s->st.n;
		if (s->st.n > n_max)
			n_max = s->st.n;
		logged += s->nspikes;
		with_log += s->spikes != NULL;
		/* util_grow's capacity: the next power of two. */
		size_t c = 1;
		while (c < s->nspikes)
			c *= 2;
		log_bytes += s->nspikes ? c * sizeof(*s->spikes) : 0;
		stalls += th[i].feed->stalls;
		cap_bytes += series_store_bytes(&s->st);
		quant_bytes += s->quant_cap * sizeof(*s->quant) +
			       s->prev_cap * (sizeof(*s->prev_idx) + sizeof(*s->prev_cnt));
	}
	uint64_t samples = (uint64_t)nthreads * o.intervals * o.samples;
	printf("cpus %u\n", o.cpus);
	printf("series %u\n", nthreads);
	printf("recorders %u\n", o.cpus * (1 + 3) * o.phases);
	printf("intervals %llu\n", (unsigned long long)o.intervals);
	printf("series_interval_ns %llu\n", (unsigned long long)o.base_ns);
	printf("samples %llu\n", (unsigned long long)samples);
	printf("series_n %llu-%llu\n", (unsigned long long)n_min, (unsigned long long)n_max);
	printf("interval_array_bytes %llu\n", (unsigned long long)cap_bytes);
	printf("quantile_bytes %llu\n", (unsigned long long)quant_bytes);
	printf("spike_logs %llu\n", (unsigned long long)with_log);
	printf("spikes_logged %llu\n", (unsigned long long)logged);
	printf("spike_log_bytes %llu\n", (unsigned long long)log_bytes);
	printf("stalls %llu\n", (unsigned long long)stalls);
	printf("feed_bytes %zu\n", sizeof(struct series_feed));
	printf("recorder_bytes %zu\n",
	       sizeof(struct recorder) + (size_t)o.top_k * sizeof(struct recorder_sample));
	printf("rss_start_kib %ld\n", rss0);
	printf("rss_setup_kib %ld\n", rss_setup);
	printf("rss_end_kib %ld\n", rss_end);
	printf("vmhwm_kib %ld\n", hwm);
	printf("maxrss_kib %ld\n", ru.ru_maxrss);
	printf("feed_seconds %.2f\n", secs);
	printf("bytes_per_interval %.1f\n",
	       (double)(hwm - rss_setup) * 1024.0 / (double)o.intervals);
	printf("bytes_per_series_interval %.2f\n",
	       (double)(hwm - rss_setup) * 1024.0 / ((double)o.intervals * nthreads));
	pthread_mutex_lock(&series_drive_lock);
	series_drive_done = true;
	pthread_cond_broadcast(&series_drive_cond);
	pthread_mutex_unlock(&series_drive_lock);
	for (unsigned i = 0; i < nthreads; i++)
		pthread_join(th[i].tid, NULL);
	for (unsigned i = 0; i < nthreads; i++) {
		for (unsigned k = 0; k < th[i].nrec; k++)
			for (unsigned p = 0; p < o.phases; p++)
				recorder_free(th[i].rec[k][p]);
		series_free(&th[i].s);
		series_feed_free(th[i].feed);
	}
	free(th);
	free(qw);
	return 0;
}
