// SPDX-License-Identifier: GPL-2.0-or-later
/* check: the table of tuning checks, the runner, the results as JSON and as Markdown, and the
 * one way the checks read the machine (check.h).
 *
 * Reading is safe as root by construction: every path is resolved inside the root prefix with
 * openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), so a fixture tree cannot send a read
 * outside itself and /proc's magic links are never followed; the last component is opened
 * O_NOFOLLOW | O_NONBLOCK and must be a regular file (no FIFO or device can block or be
 * consumed), and every read is bounded (util_read_fd).  /sys has symlinks in the middle of
 * paths (/sys/class/...), which openat2 follows within the root; the checks name files by
 * their /sys/devices paths where they can. */
#include <config.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#include "check.h"
#include "util.h"

#define CHECK_READ_MAX (256 * 1024)
/* A distribution's .config is 100-300 KiB. */
#define CHECK_CONFIG_MAX (2 * 1024 * 1024)
#define CHECK_PROCS_MAX 65536
#define PF_KTHREAD 0x00200000

#define DOC "Documentation/"

const struct check_def check_table[] = {
	{ "preempt.model",
	  "Only PREEMPT_RT makes interrupt handlers, softirqs and most spin-locked sections "
	  "preemptible, so a lower preemption model adds whole kernel sections to the latency.",
	  "kernel/Kconfig.preempt; " DOC "core-api/real-time/",
	  "boot a PREEMPT_RT kernel "
	  "(or at least preempt=full on a PREEMPT_DYNAMIC kernel)",
	  check_kernel_preempt },
	{ "kernel.config",
	  "The kernel's build options decide what tuning can do at all: HZ sets the tick, "
	  "NO_HZ_FULL and RCU_NOCB_CPU make isolation possible, PREEMPT_RT the preemption.",
	  DOC "timers/no_hz.rst; kernel/Kconfig.preempt",
	  "build with PREEMPT_RT, NO_HZ_FULL and "
	  "RCU_NOCB_CPU",
	  check_kernel_config },
	{ "isolation.isolcpus",
	  "A measured CPU the scheduler may balance onto runs other tasks, so their run time "
	  "shows up as latency.",
	  DOC "admin-guide/kernel-parameters.txt (isolcpus); " DOC "admin-guide/cgroup-v2.rst "
	      "(cpuset.cpus.partition)",
	  "boot with isolcpus=domain,managed_irq,LIST or make an isolated cpuset partition",
	  check_cpu_isolcpus },
	{ "isolation.nohz_full",
	  "Without nohz_full the scheduler tick interrupts a measured CPU every 1/HZ s even "
	  "with one task on it.",
	  DOC "timers/no_hz.rst", "boot with nohz_full=LIST (the measured CPUs)",
	  check_cpu_nohz_full },
	{ "isolation.rcu_nocbs",
	  "RCU callbacks run on the CPU that queued them unless it is offloaded, in softirq "
	  "context on a measured CPU.",
	  DOC "admin-guide/kernel-parameters.txt (rcu_nocbs); " DOC "RCU/",
	  "boot with rcu_nocbs=LIST (nohz_full= implies it)", check_cpu_rcu_nocbs },
	{ "irq.affinity",
	  "A device interrupt delivered to a measured CPU runs its handler there, ahead of any "
	  "task.",
	  DOC "core-api/irq/irq-affinity.rst",
	  "write the housekeeping CPUs to /proc/irq/N/smp_affinity_list (or isolcpus=managed_irq)",
	  check_irq_affinity },
	{ "irq.balance",
	  "irqbalance moves interrupts every 10 s and, unless told to, onto measured CPUs too.",
	  "irqbalance(1) (IRQBALANCE_BANNED_CPULIST)",
	  "stop irqbalance, or set IRQBALANCE_BANNED_CPULIST to the measured CPUs",
	  check_proc_irqbalance },
	{ "kthread.placement",
	  "Per-CPU kernel threads (ksoftirqd, ktimers, rcuc, irq/*) run on a measured CPU, and a "
	  "real-time one at or above the measured priority preempts the measured task.",
	  DOC "admin-guide/kernel-per-CPU-kthreads.rst",
	  "give the measured task a priority above them, or move the unbound ones to "
	  "housekeeping CPUs (taskset, tuna)",
	  check_proc_kthreads },
	{ "timer.migration",
	  "With timer migration on, timers of idle CPUs are moved to busy ones, which can be "
	  "the measured CPUs.",
	  DOC "admin-guide/sysctl/kernel.rst (timer_migration)", "sysctl kernel.timer_migration=0",
	  check_kernel_timer_migration },
	{ "rt.throttling",
	  "RT throttling stops real-time tasks for the rest of each period once they used "
	  "sched_rt_runtime_us, which a busy real-time load reaches.",
	  DOC "scheduler/sched-rt-group.rst",
	  "sysctl kernel.sched_rt_runtime_us=-1 (with stalld to keep the machine alive)",
	  check_kernel_throttling },
	{ "cpuidle.exit_latency",
	  "A wake-up from an idle state takes its exit latency, so an enabled state deeper than "
	  "the budget (a tenth of the interval) adds that to every sample.",
	  DOC "admin-guide/pm/cpuidle.rst; " DOC "power/pm_qos_interface.rst",
	  "disable the deep states (cpuidle/stateN/disable) or hold /dev/cpu_dma_latency "
	  "(rtsoak run does, --dma-latency)",
	  check_cpu_idle },
	{ "cpufreq.governor",
	  "A frequency governor other than performance changes the clock under load and each "
	  "change stalls the CPU.",
	  DOC "admin-guide/pm/cpufreq.rst; " DOC "admin-guide/pm/intel_pstate.rst",
	  "cpupower frequency-set -g performance (and EPP performance)", check_cpu_freq },
	{ "smt.siblings",
	  "An SMT sibling shares the core's pipeline and caches, so work on it slows the "
	  "measured CPU.",
	  DOC "admin-guide/hw-vuln/core-scheduling.rst",
	  "measure or isolate the siblings too, or turn SMT off (nosmt)", check_cpu_smt },
	{ "mm.thp",
	  "Transparent hugepages set to always make page faults compact memory and khugepaged "
	  "collapse pages, both with long stalls.",
	  DOC "admin-guide/mm/transhuge.rst",
	  "echo madvise (or never) > /sys/kernel/mm/transparent_hugepage/enabled and defrag",
	  check_mm_thp },
	{ "mm.ksm",
	  "KSM's ksmd scans and merges pages, which breaks copy-on-write in the measured task "
	  "later.",
	  DOC "admin-guide/mm/ksm.rst", "echo 0 > /sys/kernel/mm/ksm/run", check_mm_ksm },
	{ "slub.cpu_partial",
	  "SLUB's per-CPU partial slabs make an occasional allocation or free drain a list with "
	  "interrupts off; the latency cost depends on the load.",
	  "mm/slub.c (cpu_partial); " DOC "ABI/testing/sysfs-kernel-slab",
	  "build without SLUB_CPU_PARTIAL, or write 0 to /sys/kernel/slab/*/cpu_partial",
	  check_mm_slub },
	{ "workqueue.cpumask",
	  "Unbound workqueue items run on any CPU of the workqueue cpumask, measured ones "
	  "included.",
	  DOC "core-api/workqueue.rst (cpumask)",
	  "write the housekeeping CPUs' mask to /sys/devices/virtual/workqueue/cpumask",
	  check_cpu_workqueue },
	{ "watchdog.nmi",
	  "The NMI watchdog's perf interrupt and the soft-lockup watchdog's hrtimer fire on "
	  "every CPU they cover.",
	  DOC "admin-guide/lockup-watchdogs.rst",
	  "sysctl kernel.nmi_watchdog=0 and kernel.watchdog_cpumask=HOUSEKEEPING (or nowatchdog)",
	  check_kernel_watchdog },
	{ "clocksource",
	  "Reading the clock is part of every sample: tsc and paravirtual clocks read in "
	  "nanoseconds from user space, hpet and acpi_pm take microseconds and a system call.",
	  DOC "admin-guide/kernel-parameters.txt (clocksource, tsc=reliable)",
	  "make tsc reliable (tsc=reliable, a stable TSC) and select it",
	  check_kernel_clocksource },
	{ "virt.guest",
	  "A guest's latency includes the host's: its scheduling of the vCPU, its interrupts "
	  "and exits.",
	  DOC "virt/kvm/", "measure on the host too, or pin and isolate the vCPUs there",
	  check_kernel_virt },
	{ "stalld",
	  "Without RT throttling, a kernel thread starved by a busy real-time task on its CPU "
	  "waits forever unless stalld boosts it.",
	  "https://gitlab.com/rt-linux-tools/stalld",
	  "run stalld when RT throttling is off and real-time tasks spin", check_proc_stalld },
	{ "tuned",
	  "tuned's realtime and cpu-partitioning profiles apply most of these settings together "
	  "and keep them across boots.",
	  "https://github.com/redhat-performance/tuned (profiles/realtime)",
	  "tuned-adm profile realtime (isolated_cores= in realtime-variables.conf)",
	  check_proc_tuned },
	{ "mitigations",
	  "CPU vulnerability mitigations add work on kernel entry and exit and on context "
	  "switches; turning them off trades security for latency.",
	  DOC "admin-guide/hw-vuln/",
	  "a decision, not a fix: mitigations=off only where the security cost is accepted",
	  check_kernel_mitigations },
	{ "microcode",
	  "Microcode revisions change mitigations and errata, so the revision belongs beside "
	  "the numbers it produced.",
	  DOC "arch/x86/microcode.rst", "keep the microcode package current",
	  check_kernel_microcode },
};
const size_t check_count = sizeof(check_table) / sizeof(check_table[0]);
_Static_assert(sizeof(check_table) / sizeof(check_table[0]) <= CHECK_MAX,
	       "CHECK_MAX: room for every check's result");

static const char *const status_names[] = { "pass", "info", "warn", "fail", "unknown" };

const char *check_status_name(enum check_status s)
{
	return (unsigned)s < 5 ? status_names[s] : "unknown";
}

/* ------------------------------------------------------------ reading -- */

static int open_in_root(struct check_ctx *c, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC | O_NOFOLLOW),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	const char *rel = path;
	long fd;

	while (*rel == '/')
		rel++;
	if (!*rel)
		rel = ".";
	fd = syscall(SYS_openat2, c->rootfd, rel, &how, sizeof(how));
	return fd < 0 ? -errno : (int)fd;
}

int check_lstat(struct check_ctx *c, const char *path, struct stat *st)
{
	int fd = open_in_root(c, path, O_PATH);
	int rc;

	if (fd < 0)
		return fd;
	rc = fstat(fd, st) ? -errno : 0;
	close(fd);
	return rc;
}

ssize_t check_read_alloc(struct check_ctx *c, const char *path, size_t max, char **out)
{
	int fd = open_in_root(c, path, O_RDONLY | O_NONBLOCK);
	struct stat st;
	ssize_t n;

	*out = NULL;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL; /* a FIFO or device could block or be consumed */
	}
	n = util_read_fd(fd, 0, max, true, out);
	close(fd);
	return n;
}

int check_read(struct check_ctx *c, const char *path, char *buf, size_t len)
{
	char *text;
	ssize_t n = check_read_alloc(c, path, len - 1, &text);

	if (n < 0)
		return (int)n;
	while (n > 0 && isspace((unsigned char)text[n - 1]))
		n--;
	memcpy(buf, text, (size_t)n);
	buf[n] = '\0';
	free(text);
	return (int)n;
}

int check_readf(struct check_ctx *c, char *buf, size_t len, const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return check_read(c, path, buf, len);
}

void *check_opendir(struct check_ctx *c, const char *path)
{
	int fd = open_in_root(c, path, O_RDONLY | O_DIRECTORY);
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	if (!(d = fdopendir(fd))) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return d;
}

char *check_klog(struct check_ctx *c)
{
	char *text = NULL;

	if (!c->live) {
		/* A fixture's kernel log is a plain file. */
		ssize_t n = check_read_alloc(c, "/dev/kmsg", CHECK_CONFIG_MAX, &text);
		if (n < 0)
			errno = (int)-n;
		return n < 0 ? NULL : text;
	}
	/* klogctl reads the ring without consuming it (unlike /proc/kmsg). */
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size <= 0)
		return NULL;
	if (size > 64 * 1024 * 1024)
		size = 64 * 1024 * 1024;
	if (!(text = malloc((size_t)size + 1)))
		return NULL;
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, text, size);
	if (n < 0) {
		int e = errno;
		free(text);
		errno = e;
		return NULL;
	}
	text[n] = '\0';
	return text;
}

static int read_config(struct check_ctx *c)
{
	char rel[128], path[192];
	ssize_t n;

#ifdef HAVE_ZLIB
	int fd = open_in_root(c, "/proc/config.gz", O_RDONLY | O_NONBLOCK);
	if (fd >= 0) {
		struct stat st;
		gzFile gz = !fstat(fd, &st) && S_ISREG(st.st_mode) ? gzdopen(fd, "rb") : NULL;
		if (!gz) {
			close(fd);
		} else {
			char *buf = malloc(CHECK_CONFIG_MAX + 1);
			int got = buf ? gzread(gz, buf, CHECK_CONFIG_MAX) : -1;
			gzclose(gz);
			if (got > 0) {
				buf[got] = '\0';
				c->config = buf;
				c->config_src = "/proc/config.gz";
				return 0;
			}
			free(buf);
		}
	}
#endif
	if (check_read(c, "/proc/sys/kernel/osrelease", rel, sizeof(rel)) <= 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "/boot/config-%s", rel);
	n = check_read_alloc(c, path, CHECK_CONFIG_MAX, &c->config);
	if (n < 0)
		return (int)n;
	c->config_src = "/boot/config-RELEASE";
	return 0;
}

int check_config(struct check_ctx *c, const char *name, char *buf, size_t len)
{
	size_t nl = strlen(name);

	if (!c->config)
		return c->config_err == -ENOENT ? -ENODATA : c->config_err; /* not "not set" */
	for (const char *p = c->config; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "CONFIG_", 7) || strncmp(p + 7, name, nl) || p[7 + nl] != '=')
			continue;
		const char *v = p + 8 + nl;
		size_t vl = strcspn(v, "\n");
		if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"')
			v++, vl -= 2;
		snprintf(buf, len, "%.*s", (int)vl, v);
		return 0;
	}
	return -ENOENT; /* "# CONFIG_X is not set", or absent: not set */
}

json_t *check_config_json(struct check_ctx *c)
{
	static const char *const names[] = {
		"HZ",
		"PREEMPT_RT",
		"PREEMPT_DYNAMIC",
		"PREEMPT",
		"PREEMPT_LAZY",
		"NO_HZ_FULL",
		"RCU_NOCB_CPU",
		"CPU_ISOLATION",
		"SLUB_CPU_PARTIAL",
		"HIGH_RES_TIMERS",
		"IRQ_FORCED_THREADING",
		"CPU_IDLE",
		"CPU_FREQ",
		"NUMA",
		"TRANSPARENT_HUGEPAGE",
		"KSM",
		"LOCKDEP",
		"DEBUG_PREEMPT",
		"KASAN",
		"SCHED_DEBUG",
	};
	json_t *o = json_object(), *opts = json_object();
	char v[64];
	int bad = !o || !opts;

	if (!bad && !c->config) {
		json_decref(opts);
		bad |= json_object_set_new(o, "source", json_null());
		bad |= json_object_set_new(
		    o, "error",
		    json_string(strerror(c->config_err < 0 ? -c->config_err : ENODATA)));
		return bad ? (json_decref(o), NULL) : o;
	}
	for (size_t i = 0; !bad && i < sizeof(names) / sizeof(names[0]); i++)
		bad |= json_object_set_new(
		    opts, names[i],
		    check_config(c, names[i], v, sizeof(v)) ? json_null() : json_string(v));
	if (!bad)
		bad |= json_object_set_new(o, "source", json_string(c->config_src ?: "?"));
	if (!bad) {
		bad |= json_object_set_new(o, "options", opts);
		opts = NULL;
	}
	json_decref(opts);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The fields of /proc/PID/stat after the command name: state is field 3, flags 9,
 * rt_priority 40, policy 41. */
static int read_proc(struct check_ctx *c, int pid, struct check_proc *p)
{
	char buf[1024], *e, *s, *f;
	unsigned long long flags = 0;
	int field = 3;

	if (check_readf(c, buf, sizeof(buf), "/proc/%d/stat", pid) <= 0)
		return -1;
	if (!(s = strchr(buf, '(')) || !(e = strrchr(buf, ')')))
		return -1;
	snprintf(p->comm, sizeof(p->comm), "%.*s", (int)(e - s - 1), s + 1);
	util_utf8_fix(p->comm, strlen(p->comm)); /* any 15 bytes, cut anywhere: a name */
	p->pid = pid;
	p->policy = p->rt_priority = 0;
	for (f = strtok_r(e + 1, " ", &s); f; f = strtok_r(NULL, " ", &s), field++) {
		if (field == 9)
			flags = strtoull(f, NULL, 10);
		else if (field == 40)
			p->rt_priority = atoi(f);
		else if (field == 41)
			p->policy = atoi(f);
	}
	p->kthread = flags & PF_KTHREAD;
	cpuset_clear(&p->allowed);
	char status[4096];
	if (check_readf(c, status, sizeof(status), "/proc/%d/status", pid) > 0 &&
	    (s = strstr(status, "\nCpus_allowed_list:"))) {
		s += strlen("\nCpus_allowed_list:");
		s += strspn(s, " \t");
		s[strcspn(s, "\n")] = '\0';
		if (cpuset_parse(&p->allowed, s, NULL, 0))
			cpuset_clear(&p->allowed);
	}
	return 0;
}

static int read_procs(struct check_ctx *c)
{
	DIR *d = check_opendir(c, "/proc");
	struct dirent *de;
	size_t cap = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)) && c->nprocs < CHECK_PROCS_MAX) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (c->nprocs == cap) {
			struct check_proc *np =
			    realloc(c->procs, (cap = cap ? 2 * cap : 256) * sizeof(*np));
			if (!np) {
				closedir(d);
				return -ENOMEM;
			}
			c->procs = np;
		}
		/* A process that exited meanwhile is simply not there. */
		if (!read_proc(c, atoi(de->d_name), &c->procs[c->nprocs]))
			c->nprocs++;
	}
	closedir(d);
	return c->nprocs ? 0 : -ENOENT;
}

int check_procs_load(struct check_ctx *c)
{
	if (c->procs_err == 1)
		c->procs_err = read_procs(c);
	return c->procs_err;
}

int check_read_cpulist(struct check_ctx *c, const char *path, struct cpuset *s)
{
	char buf[4096];
	int n = check_read(c, path, buf, sizeof(buf));

	cpuset_clear(s);
	if (n < 0)
		return n;
	/* An empty set is an empty file; CONFIG_NO_HZ_FULL kernels booted without nohz_full=
	 * say "(null)", padded to the number of CPUs ("  (null)" with 8). */
	if (!buf[0] || !strcmp(buf + strspn(buf, " "), "(null)"))
		return 0;
	return cpuset_parse(s, buf, NULL, 0) ? -EINVAL : 0;
}

int check_read_mask(struct check_ctx *c, const char *path, struct cpuset *s)
{
	char buf[4096];
	int n = check_read(c, path, buf, sizeof(buf)), cpu = 0;

	cpuset_clear(s);
	if (n < 0)
		return n;
	/* "ffffffff,00000003": the lowest CPUs are at the end. */
	for (int i = n - 1; i >= 0; i--) {
		if (buf[i] == ',')
			continue;
		if (!isxdigit((unsigned char)buf[i]))
			return -EINVAL;
		int v = isdigit((unsigned char)buf[i]) ? buf[i] - '0'
						       : tolower((unsigned char)buf[i]) - 'a' + 10;
		for (int b = 0; b < 4; b++, cpu++)
			if ((v >> b) & 1 && cpu < CPUSET_MAX)
				cpuset_set(s, cpu);
	}
	return 0;
}

int check_read_ll(struct check_ctx *c, const char *path, long long *v)
{
	char buf[64], *end;
	int n = check_read(c, path, buf, sizeof(buf));

	if (n < 0)
		return n;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	return end == buf || *end || errno ? -EINVAL : 0;
}

int check_cmdline(struct check_ctx *c, const char *key, char *buf, size_t len)
{
	char line[4096];
	size_t kl = strlen(key);
	int n = check_read(c, "/proc/cmdline", line, sizeof(line)), rc = -ENOENT;

	if (n < 0)
		return n == -ENOENT ? -ENODATA : n; /* no command line is not "no such key" */
	/* The last one wins, as in the kernel's parser; "--" ends the kernel's part. */
	for (char *s, *w = strtok_r(line, " ", &s); w; w = strtok_r(NULL, " ", &s)) {
		if (!strcmp(w, "--"))
			break;
		if (!strncmp(w, key, kl) && (w[kl] == '=' || !w[kl])) {
			snprintf(buf, len, "%s", w[kl] ? w + kl + 1 : "");
			rc = 0;
		}
	}
	return rc;
}

/* ------------------------------------------------------------ results -- */

__attribute__((format(printf, 3, 0))) static void vset(char *dst, size_t len, const char *fmt,
						       va_list ap)
{
	vsnprintf(dst, len, fmt, ap);
}

void check_say(struct check_result *r, enum check_status s, const char *fmt, ...)
{
	va_list ap;

	r->status = s;
	va_start(ap, fmt);
	vset(r->observed, sizeof(r->observed), fmt, ap);
	va_end(ap);
}

void check_expect(struct check_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(r->expected, sizeof(r->expected), fmt, ap);
	va_end(ap);
}

void check_source(struct check_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vset(r->source, sizeof(r->source), fmt, ap);
	va_end(ap);
}

void check_unreadable(struct check_result *r, const char *path, int err)
{
	check_say(r, CHECK_UNKNOWN, "cannot read %s: %s", path, strerror(err < 0 ? -err : err));
	check_source(r, "%s", path);
}

void check_set_cpus(struct check_result *r, const struct cpuset *s)
{
	cpuset_format(s, r->cpus, sizeof(r->cpus));
}

int check_ctx_open(struct check_ctx *c, const char *root, const struct cpuset *cpus,
		   const struct cpuset *housekeeping, int priority, uint64_t interval_ns, char *err,
		   size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->rootfd = open(root ? root : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (c->rootfd < 0) {
		int e = errno;
		util_errf(err, errlen, "cannot open root '%s': %s", root, strerror(e));
		return -e;
	}
	c->live = !root || !strcmp(root, "/");
	c->priority = priority;
	c->interval_ns = interval_ns;
	c->online_err = check_read_cpulist(c, "/sys/devices/system/cpu/online", &c->online);
	if (cpus && !cpuset_empty(cpus))
		c->cpus = *cpus;
	else
		c->cpus = c->online;
	if (cpuset_empty(&c->cpus)) {
		util_errf(err, errlen, "no CPU to check: cannot read the online CPUs (%s)",
			  strerror(-c->online_err));
		close(c->rootfd);
		return -ENODATA;
	}
	if (housekeeping && !cpuset_empty(housekeeping)) {
		c->housekeeping = *housekeeping;
	} else {
		c->housekeeping = c->online;
		cpuset_andnot(&c->housekeeping, &c->cpus);
	}
	c->config_err = read_config(c);
	c->procs_err = 1; /* not read yet: check_procs_load */
	return 0;
}

void check_ctx_close(struct check_ctx *c)
{
	if (c->rootfd >= 0)
		close(c->rootfd);
	c->rootfd = -1;
	free(c->config);
	free(c->procs);
	c->config = NULL;
	c->procs = NULL;
}

void check_run(struct check_ctx *c, struct check_result *res)
{
	for (size_t i = 0; i < check_count; i++) {
		struct check_result *r = &res[i];
		memset(r, 0, sizeof(*r));
		r->def = &check_table[i];
		r->status = CHECK_UNKNOWN;
		check_table[i].run(c, r);
	}
}

/* Kernel and firmware strings are not promised to be UTF-8, which jansson refuses: mask the
 * bad bytes of such a value rather than lose it (util_json_string). */
static json_t *str_json(const char *s)
{
	return util_json_string(s);
}

json_t *check_json(const struct check_result *res, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++) {
		const struct check_result *r = &res[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:s, s:s, s:s}", "id",
				      r->def->id, "status", check_status_name(r->status), "cpus",
				      r->cpus, "observed", str_json(r->observed), "expected",
				      str_json(r->expected), "source", str_json(r->source), "why",
				      r->def->why, "reference", r->def->ref, "fix", r->def->fix);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

int check_list_md(FILE *out)
{
	fputs("# rtsoak's tuning checks\n\n"
	      "Generated by `rtsoak check --list-md` from the table in src/sys/check.c: do not "
	      "edit.\n"
	      "Every check runs in `rtsoak check` and at the start of every `rtsoak run` (the "
	      "report's\n`checks`). A status is pass, info, warn, fail or unknown; a file that "
	      "cannot be read\nmakes its check unknown, never pass.\n\n"
	      "| id | why | reference | fix |\n| --- | --- | --- | --- |\n",
	      out);
	for (size_t i = 0; i < check_count; i++) {
		const struct check_def *d = &check_table[i];
		fprintf(out, "| `%s` | %s | %s | %s |\n", d->id, d->why, d->ref, d->fix);
	}
	return ferror(out) ? -EIO : 0;
}
