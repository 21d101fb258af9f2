/* rt: privileges and real-time process set-up. */
#include <config.h>

#include <alloca.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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

int rt_lock_memory(char *err, size_t errlen)
{
#ifdef RT_ASAN
	(void)err;
	(void)errlen;
	return 1;
#else
	if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0)
		return 0;
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
