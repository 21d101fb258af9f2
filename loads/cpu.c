// SPDX-License-Identifier: GPL-2.0-or-later
/* cpu: busy work on every load CPU, with a duty cycle.
 *
 * One worker per load CPU, pinned.  Each period of about 10 ms (timed on
 * CLOCK_MONOTONIC, jittered by +-1 ms, see period_len()) the worker
 * computes for load% of it and sleeps with clock_nanosleep(TIMER_ABSTIME)
 * for the rest; at load=100 it never sleeps.
 *
 * Why this stresses a real-time system:
 *  - kind=int and kind=float keep the CPU out of idle, so a probe's wake-up
 *    has to preempt a running CFS task (wake-up preemption, a context switch
 *    with its FPU state, the task's cache footprint) instead of leaving idle;
 *    on SMT siblings and shared hosts it also competes for the physical
 *    core's execution units.  Below load=100 the CPU enters and leaves idle
 *    every period, so a probe may also meet cpuidle exit latency and NO_HZ
 *    tick restarts.
 *  - kind=memory streams reads and writes over a buffer four times the
 *    last-level cache: it evicts the probes' code and data from the shared
 *    LLC and saturates the memory controller, so a probe's first touches
 *    after a wake-up miss all the way to DRAM behind the streaming traffic.
 *    The first pass also page-faults the whole buffer in (page zeroing in
 *    the kernel, compaction for the transparent huge pages it asks for with
 *    MADV_HUGEPAGE).
 *
 * One op is one inner batch: int 4096 xorshift-multiply rounds, float 2048
 * sqrt + fused multiply-add rounds, memory one 64 KiB chunk read and
 * written back (also counted as 64 KiB in bytes).  Each batch takes a few
 * to a few tens of microseconds (memory: longer while the first pass
 * faults in huge pages), so the duty cycle overshoots by at most that. */
#include <config.h>

#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "load.h"
#include "util.h"

#define CPU_PERIOD_NS (10 * NSEC_PER_MSEC)
#define CPU_JITTER_NS (1 * NSEC_PER_MSEC)
#define INT_ROUNDS 4096
#define FLOAT_ROUNDS 2048
#define MEM_CHUNK (64u * 1024u)
#define MEM_MIN (32ull << 20)

enum cpu_kind { KIND_INT, KIND_FLOAT, KIND_MEMORY };

static const char *const cpu_kinds[] = { "int", "float", "memory", NULL };

static const struct opt cpu_options[] = {
	{ .name = "load",
	  .type = OPT_INT,
	  .def = "100",
	  .min = 1,
	  .max = 100,
	  .help = "percent of each ~10 ms period spent busy" },
	{ .name = "kind",
	  .type = OPT_CHOICE,
	  .def = "int",
	  .choices = cpu_kinds,
	  .help = "int: integer ALU; float: sqrt and FMA; memory: stream a buffer 4x the LLC" },
	{ .name = NULL },
};

/* Keeps the compiler from discarding the computations. */
static volatile uint64_t cpu_sink;
static volatile double cpu_fsink;

/* The highest-level cache's size as sysfs reports it for CPU 0, else as
 * glibc reads it from CPUID (VMs often hide the sysfs cache directory),
 * else 0.  *src says which. */
static uint64_t llc_bytes(const char **src)
{
	static const int sc[] = { _SC_LEVEL4_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE,
				  _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL1_DCACHE_SIZE };
	uint64_t best = 0;
	int best_level = -1;
	glob_t g;

	if (glob("/sys/devices/system/cpu/cpu0/cache/index*", 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			char path[4200], buf[64], *end;
			int level;
			unsigned long long v;

			snprintf(path, sizeof(path), "%s/level", g.gl_pathv[i]);
			if (util_read_file(path, buf, sizeof(buf)) <= 0)
				continue;
			level = atoi(buf);
			snprintf(path, sizeof(path), "%s/size", g.gl_pathv[i]);
			if (util_read_file(path, buf, sizeof(buf)) <= 0)
				continue;
			v = strtoull(buf, &end, 10);
			if (*end == 'K')
				v <<= 10;
			else if (*end == 'M')
				v <<= 20;
			if (level > best_level || (level == best_level && v > best)) {
				best_level = level;
				best = v;
			}
		}
		globfree(&g);
	}
	if (best) {
		*src = "sysfs";
		return best;
	}
	for (size_t i = 0; i < sizeof(sc) / sizeof(sc[0]); i++) {
		long v = sysconf(sc[i]);
		if (v > 0) {
			*src = "cpuid";
			return (uint64_t)v;
		}
	}
	*src = "unknown";
	return 0;
}

/* 4x the LLC, at least 32 MiB, a whole number of chunks; but all workers
 * together at most half the RAM, so that a machine whose CPUID reports an
 * odd LLC does not start swapping or OOM-killing instead of measuring. */
static uint64_t mem_buffer_bytes(const struct load_instance *inst, uint64_t *llc, const char **src)
{
	uint64_t want, cap;
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	unsigned n = inst->nworkers ? inst->nworkers : 1;

	*llc = llc_bytes(src);
	want = *llc * 4 < MEM_MIN ? MEM_MIN : *llc * 4;
	if (pages > 0 && psz > 0) {
		cap = (uint64_t)pages * (uint64_t)psz / 2 / n;
		if (want > cap)
			want = cap < MEM_MIN ? MEM_MIN : cap;
	}
	return (want + MEM_CHUNK - 1) / MEM_CHUNK * MEM_CHUNK;
}

static void work_int(uint64_t *state)
{
	uint64_t x = *state;

	/* A serial dependency chain: every round waits for the previous one. */
	for (int i = 0; i < INT_ROUNDS; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		x *= 0x2545f4914f6cdd1dull;
	}
	*state = x;
	cpu_sink = x;
}

static void work_float(double *a, double *b)
{
	double x = *a, y = *b;

	/* sqrt occupies the divide/sqrt unit, the FMA chain the FP pipes. */
	for (int i = 0; i < FLOAT_ROUNDS; i++) {
		x = sqrt(x * 1.000001 + 0.5);
		y = fma(y, 0.999999, x);
	}
	*a = x;
	*b = y > 1e12 ? 1.0 : y;
	cpu_fsink = x + y;
}

static void work_memory(uint64_t *p, uint64_t salt)
{
	/* Read-modify-write: every line is loaded and dirtied, so it costs a
	 * read and a write-back of DRAM bandwidth. */
	for (size_t i = 0; i < MEM_CHUNK / sizeof(*p); i++)
		p[i] = p[i] * 3 + salt;
}

/* 10 ms +- 1 ms, uniformly.  An exact 10 ms period beats against the
 * scheduler tick (4 ms at HZ=250), and tick-sampled CPU accounting
 * (/proc/stat without VIRT_CPU_ACCOUNTING) then reports a duty cycle off
 * by up to +-10 points, depending on the phase the worker started in. */
static uint64_t period_len(uint64_t *rng)
{
	*rng ^= *rng << 13;
	*rng ^= *rng >> 7;
	*rng ^= *rng << 17;
	return CPU_PERIOD_NS - CPU_JITTER_NS + *rng % (2 * CPU_JITTER_NS + 1);
}

static int sleep_until(uint64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / NSEC_PER_SEC),
			       .tv_nsec = (long)(t_ns % NSEC_PER_SEC) };

	/* EINTR means SIGTERM: the caller sees *w->stop. */
	return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int cpu_run(struct load_worker *w)
{
	const int64_t load = load_opt_int(w->inst, "load");
	const enum cpu_kind kind = (enum cpu_kind)load_opt_int(w->inst, "kind");
	uint64_t x = 0x9e3779b97f4a7c15ull ^ ((uint64_t)w->id << 32 | (uint64_t)getpid());
	double fa = 1.0 + w->id, fb = 0.5;
	uint64_t *buf = NULL, buf_bytes = 0, off = 0, llc;
	const char *src;

	if (kind == KIND_MEMORY) {
		buf_bytes = mem_buffer_bytes(w->inst, &llc, &src);
		while (!*w->stop) {
			buf = mmap(NULL, buf_bytes, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (buf != MAP_FAILED) {
				/* Huge pages: freeing 4 KiB pages of a multi-GiB
				 * buffer on exit takes hundreds of ms, far beyond
				 * the 100 ms a worker has to stop.  The cache and
				 * DRAM traffic are the same either way. */
				if (madvise(buf, buf_bytes, MADV_HUGEPAGE) && errno != EINVAL)
					load_count_error(w->ctr, errno);
				break;
			}
			buf = NULL;
			load_count_error(w->ctr, errno);
			load_sleep(w, NSEC_PER_SEC);
		}
	}

	uint64_t rng = x | 1;
	uint64_t start = util_now_ns(CLOCK_MONOTONIC); /* of the current period */
	uint64_t len = period_len(&rng);
	uint64_t busy_end = start + len * (uint64_t)load / 100;
	while (!*w->stop) {
		switch (kind) {
		case KIND_INT:
			work_int(&x);
			load_count(w->ctr, 1, 0);
			break;
		case KIND_FLOAT:
			work_float(&fa, &fb);
			load_count(w->ctr, 1, 0);
			break;
		case KIND_MEMORY:
			work_memory(buf + off / sizeof(*buf), x++);
			off = off + MEM_CHUNK >= buf_bytes ? 0 : off + MEM_CHUNK;
			load_count(w->ctr, 1, MEM_CHUNK);
			break;
		}
		if (load == 100)
			continue;
		uint64_t now = util_now_ns(CLOCK_MONOTONIC);
		if (now < busy_end)
			continue;
		/* The busy part is timed from the actual wake-up, so that timer
		 * slack and wake-up latency come out of the idle part.  A period
		 * we were preempted through is not made up for, but still gets
		 * its idle part. */
		uint64_t next = start + len;
		if (next <= now)
			next = now + len - len * (uint64_t)load / 100;
		int rc = sleep_until(next);
		if (rc && rc != EINTR) {
			load_count_error(w->ctr, rc);
			load_sleep(w, CPU_PERIOD_NS);
		}
		start = next;
		len = period_len(&rng);
		busy_end = util_now_ns(CLOCK_MONOTONIC) + len * (uint64_t)load / 100;
	}
	if (buf && munmap(buf, buf_bytes))
		load_count_error(w->ctr, errno);
	return 0;
}

static int cpu_stats(const struct load_instance *inst, json_t *out)
{
	uint64_t llc;
	const char *src;
	int bad = util_json_set(out, "period_ns", json_integer((json_int_t)CPU_PERIOD_NS)) |
		  util_json_set(out, "period_jitter_ns", json_integer((json_int_t)CPU_JITTER_NS));

	if (load_opt_int(inst, "kind") != KIND_MEMORY)
		return bad;
	bad |= util_json_set(out, "buffer_bytes",
			     json_integer((json_int_t)mem_buffer_bytes(inst, &llc, &src)));
	bad |= util_json_set(out, "llc_bytes", json_integer((json_int_t)llc));
	bad |= util_json_set(out, "llc_source", util_json_string(src));
	return bad;
}

const struct load_ops load_cpu_ops = {
	.name = "cpu",
	.summary =
	    "busy work per load CPU at a duty cycle (~10 ms periods); op = one batch (int: 4096 rounds, "
	    "float: 2048 rounds, memory: 64 KiB read+written)",
	.options = cpu_options,
	.run = cpu_run,
	.stats = cpu_stats,
};
