// SPDX-License-Identifier: GPL-2.0-or-later
/* rt: privileges and real-time process set-up. */
#include <config.h>

#include <alloca.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef HAVE_NUMA
#include <numa.h>
#endif

#include "rt.h"
#include "util.h"

#if defined(__SANITIZE_ADDRESS__)
#define RT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RT_ASAN 1
#endif
#endif

int rt_check_fifo(int priority, char *err, size_t errlen)
{
	struct sched_param sp = { .sched_priority = priority }, other = { 0 };
	int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

	if (rc) {
		snprintf(
		    err, errlen,
		    "cannot use SCHED_FIFO priority %d: %s (run as root, grant CAP_SYS_NICE, "
		    "or raise RLIMIT_RTPRIO, e.g. 'ulimit -r %d'; --no-rt measures as SCHED_OTHER)",
		    priority, strerror(rc), priority);
		return -rc;
	}
	(void)pthread_setschedparam(pthread_self(), SCHED_OTHER, &other);
	return 0;
}

/* CAP_IPC_LOCK (bit 14) in the effective set, from /proc/self/status.
 * (Unused in AddressSanitizer builds, which never lock memory.) */
static __attribute__((unused)) bool has_ipc_lock(void)
{
	char line[256];
	unsigned long long caps = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps & (1ull << 14);
}

/* Set when rt_lock_memory() could lock only what existed (it returned 2). */
static bool lock_current_only;

int rt_lock_memory_again(void)
{
	/* Never after MCL_FUTURE: mlockall(MCL_CURRENT) would clear it. */
	if (!lock_current_only)
		return 0;
	return mlockall(MCL_CURRENT) ? -errno : 0;
}

int rt_lock_memory(char *err, size_t errlen)
{
#ifdef RT_ASAN
	(void)err;
	(void)errlen;
	return 1;
#else
	struct rlimit rl;
	int flags = MCL_CURRENT | MCL_FUTURE;

	/* A thread's first malloc() gives it an arena of its own (glibc allows
	 * 8 per core), and mlockall makes the arena's 132 KiB top pad resident:
	 * 66 MiB for the 512 probe threads of a 256-CPU timer+net run (issue
	 * 20).  Probe threads allocate only while they set up and tear down,
	 * never while they measure, so sharing the main arena costs no
	 * latency. */
	(void)mallopt(M_ARENA_MAX, 1);
	/* With a finite RLIMIT_MEMLOCK and no CAP_IPC_LOCK, MCL_FUTURE makes
	 * every allocation past the limit fail -- hours into a run, when a
	 * checkpoint grows.  Lock what exists now and again once the probes
	 * have allocated (rt_lock_memory_again); later housekeeping memory
	 * stays unlocked, which the probes never touch. */
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && !has_ipc_lock())
		flags = MCL_CURRENT;
	if (mlockall(flags) == 0) {
		if (flags & MCL_FUTURE)
			return 0;
		lock_current_only = true;
		snprintf(
		    err, errlen,
		    "RLIMIT_MEMLOCK is %llu KiB and there is no CAP_IPC_LOCK: memory is locked "
		    "after set-up, not what the housekeeping thread allocates later ('ulimit -l "
		    "unlimited' to lock everything)",
		    (unsigned long long)rl.rlim_cur / 1024);
		return 2;
	}
	int e = errno;
	snprintf(err, errlen,
		 "cannot lock memory (mlockall): %s (run as root, grant CAP_IPC_LOCK, or raise "
		 "RLIMIT_MEMLOCK, e.g. 'ulimit -l unlimited')",
		 strerror(e));
	return -e;
#endif
}

int rt_dma_latency_hold(int usec, char *err, size_t errlen)
{
	int32_t v = usec;
	int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, &v, sizeof(v)) != (ssize_t)sizeof(v)) {
		int e = errno;
		snprintf(err, errlen, "--dma-latency: cannot write /dev/cpu_dma_latency: %s%s",
			 strerror(e), e == EACCES || e == EPERM ? " (needs root)" : "");
		if (fd >= 0)
			close(fd);
		return -e;
	}
	return fd;
}

int rt_pin_self(const struct cpuset *set)
{
	size_t size = CPU_ALLOC_SIZE(CPUSET_MAX);
	cpu_set_t *cs = CPU_ALLOC(CPUSET_MAX);
	int rc;

	if (!cs)
		return -ENOMEM;
	CPU_ZERO_S(size, cs);
	for (int c = cpuset_next(set, 0); c >= 0; c = cpuset_next(set, c + 1))
		CPU_SET_S(c, size, cs);
	rc = pthread_setaffinity_np(pthread_self(), size, cs);
	CPU_FREE(cs);
	return -rc;
}

void rt_prefault_stack(size_t bytes)
{
	volatile unsigned char *buf = alloca(bytes);

	for (size_t i = 0; i < bytes; i += 4096)
		buf[i] = 0;
}

int rt_throttling(long *runtime_us, long *period_us)
{
	char buf[64];

	if (util_read_file("/proc/sys/kernel/sched_rt_runtime_us", buf, sizeof(buf)) < 0)
		return -ENOENT;
	*runtime_us = strtol(buf, NULL, 10);
	if (util_read_file("/proc/sys/kernel/sched_rt_period_us", buf, sizeof(buf)) < 0)
		return -ENOENT;
	*period_us = strtol(buf, NULL, 10);
	return 0;
}

int rt_thread_create(pthread_t *thread, int cpu, int priority, size_t stack, void *(*fn)(void *),
		     void *arg)
{
	struct sched_param sp = { .sched_priority = priority };
	size_t size = CPU_ALLOC_SIZE(CPUSET_MAX);
	cpu_set_t *cs = CPU_ALLOC(CPUSET_MAX);
	pthread_attr_t attr;
	int rc;

	if (!cs)
		return ENOMEM;
	CPU_ZERO_S(size, cs);
	CPU_SET_S(cpu, size, cs);
	/* Pinned and at its priority from its first instruction: no window in
	 * which it runs as SCHED_OTHER or on the wrong CPU. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, stack);
	pthread_attr_setaffinity_np(&attr, size, cs);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, priority ? SCHED_FIFO : SCHED_OTHER);
	pthread_attr_setschedparam(&attr, &sp);
	rc = pthread_create(thread, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	CPU_FREE(cs);
	return rc;
}

void rt_numa_warm(const struct cpuset *cpus)
{
#ifdef HAVE_NUMA
	/* libnuma fills its per-node CPU mask cache on first use without a
	 * lock: probe threads asking at once both allocate a node's mask and
	 * one is lost (LeakSanitizer saw it under load).  Once, here, on one
	 * thread, before any probe thread exists. */
	if (numa_available() < 0)
		return;
	for (int c = cpuset_next(cpus, 0); c >= 0; c = cpuset_next(cpus, c + 1))
		(void)numa_node_of_cpu(c);
#else
	(void)cpus;
#endif
}

void *rt_alloc_local(size_t size, int cpu, bool *on_numa)
{
	void *p = NULL;

	*on_numa = false;
	size = (size + 63) & ~(size_t)63;
#ifdef HAVE_NUMA
	if (cpu >= 0 && numa_available() >= 0) {
		int node = numa_node_of_cpu(cpu);
		if (node >= 0) {
			p = numa_alloc_onnode(size, node);
			*on_numa = p != NULL;
		}
	}
#else
	(void)cpu;
#endif
	if (!p && posix_memalign(&p, 64, size) != 0)
		return NULL;
	/* Touch every page now so the probe never takes a fault on it. */
	memset(p, 0, size);
	return p;
}

void rt_free_local(void *p, size_t size, bool on_numa)
{
	if (!p)
		return;
#ifdef HAVE_NUMA
	if (on_numa) {
		numa_free(p, (size + 63) & ~(size_t)63);
		return;
	}
#else
	(void)size;
	(void)on_numa;
#endif
	free(p);
}
