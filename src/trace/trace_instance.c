// SPDX-License-Identifier: GPL-2.0-or-later
/* trace_instance: rtsoak's own tracefs instance (trace_instance.h).
 *
 * What it must never do: change the top-level buffer (the machine's own
 * tracing, maybe someone's running trace-cmd), touch another tool's
 * instance, reuse an instance it did not create, mount over a file system
 * someone put at /sys/kernel/tracing, or leave a mount behind.  Every path
 * below is checked against those before it is written. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#ifdef HAVE_TRACEFS
#include <tracefs.h>
#endif

#include "lock.h"
#include "trace_instance.h"
#include "util.h"

#define TRACEFS_MAGIC_ 0x74726163
#define SYSFS_MAGIC_ 0x62656572

int trace_is_tracefs(const char *path)
{
	struct statfs sf;

	if (statfs(path, &sf) < 0)
		return -errno;
	return sf.f_type == TRACEFS_MAGIC_;
}

/* One small file into buf, trailing newline removed.  -errno. */
static int read_small(const char *root, const char *file, char *buf, size_t len, bool *truncated)
{
	char path[PATH_MAX + 128];
	ssize_t n, off = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", root, file);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	while ((size_t)off < len - 1 && (n = read(fd, buf + off, len - 1 - (size_t)off)) > 0)
		off += n;
	if (truncated && (size_t)off == len - 1) {
		char c;

		*truncated = read(fd, &c, 1) == 1;
	}
	close(fd);
	buf[off] = '\0';
	while (off > 0 && buf[off - 1] == '\n')
		buf[--off] = '\0';
	return 0;
}

int trace_top_snapshot(const char *root, struct trace_top_state *s)
{
	int r;

	memset(s, 0, sizeof(*s));
	if ((r = read_small(root, "tracing_on", s->tracing_on, sizeof(s->tracing_on), NULL)) ||
	    (r = read_small(root, "current_tracer", s->current_tracer, sizeof(s->current_tracer),
			    NULL)) ||
	    (r = read_small(root, "buffer_size_kb", s->buffer_size_kb, sizeof(s->buffer_size_kb),
			    NULL)) ||
	    (r = read_small(root, "trace_clock", s->trace_clock, sizeof(s->trace_clock), NULL)) ||
	    (r = read_small(root, "tracing_cpumask", s->tracing_cpumask, sizeof(s->tracing_cpumask),
			    NULL)) ||
	    (r = read_small(root, "set_event", s->set_event, sizeof(s->set_event), &s->truncated)))
		return r;
	return 0;
}

const char *trace_top_diff(const struct trace_top_state *a, const struct trace_top_state *b)
{
	if (strcmp(a->tracing_on, b->tracing_on))
		return "tracing_on";
	if (strcmp(a->current_tracer, b->current_tracer))
		return "current_tracer";
	if (strcmp(a->buffer_size_kb, b->buffer_size_kb))
		return "buffer_size_kb";
	if (strcmp(a->trace_clock, b->trace_clock))
		return "trace_clock";
	if (strcmp(a->tracing_cpumask, b->tracing_cpumask))
		return "tracing_cpumask";
	if (strcmp(a->set_event, b->set_event) || a->truncated != b->truncated)
		return "set_event";
	return NULL;
}

/* "rtsoak-<pid>-<16 lowercase hex digits>" exactly: the names create
 * makes (a decimal pid without leading zeros, then the random token). */
static bool own_name(const char *name)
{
	const char *p = name + 7;
	size_t digits = 0, hex = 0;

	if (strncmp(name, "rtsoak-", 7) != 0 || *p < '1' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++)
		digits++;
	if (digits > 10 || *p++ != '-')
		return false;
	for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++)
		hex++;
	return hex == 16 && !*p;
}

/* Remove one instance directory: the kernel frees its buffers on rmdir.
 * Its tracing is turned off first so that it stops costing anything even
 * if the rmdir fails (EBUSY: a reader still holds a file open). */
static int remove_instance(const char *root, const char *name)
{
	char path[PATH_MAX + 128];
	int fd;

	snprintf(path, sizeof(path), "%s/instances/%s/tracing_on", root, name);
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		if (write(fd, "0", 1) < 0) {
			/* best effort: the rmdir below is what matters */
		}
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/instances/%s", root, name);
	return rmdir(path) < 0 ? -errno : 0;
}

struct stale_arg {
	const char *root;
	char *err;
	size_t errlen;
	int removed, error;
};

/* A record nobody holds (its run is gone), held by us during the call:
 * its instance removed, then the record (1).  A record that names
 * something create never makes is kept and its name left alone. */
static int remove_stale(const char *name, void *arg)
{
	struct stale_arg *a = arg;
	int e;

	if (!own_name(name))
		return 0;
	e = remove_instance(a->root, name);
	if (e == -ENOENT)
		return 1;
	if (e) {
		a->error = e;
		util_errf(a->err, a->errlen, "cannot remove the stale instance %s/instances/%s: %s",
			  a->root, name, strerror(-e));
		return 0; /* the record stays: the next run tries again */
	}
	a->removed++;
	return 1;
}

int trace_instance_cleanup_stale(const char *root, char *err, size_t errlen)
{
	struct stale_arg a = { .root = root, .err = err, .errlen = errlen };
	char path[PATH_MAX + 128];
	struct stat st;
	int r;

	snprintf(path, sizeof(path), "%s/instances", root);
	if (stat(path, &st) < 0) {
		r = -errno;
		util_errf(err, errlen, "tracefs: %s: %s", path, strerror(-r));
		return r;
	}
	r = lock_stale_traces(remove_stale, &a);
	if (r < 0)
		return r;
	return a.error ? a.error : a.removed;
}

int trace_timens_offset(int64_t *mono_ns)
{
	char line[128];
	FILE *f;

	*mono_ns = 0;
	/* Absent: a kernel without time namespaces (or an old one). */
	f = fopen("/proc/self/timens_offsets", "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		long long sec, nsec;
		char clk[32];

		if (sscanf(line, "%31s %lld %lld", clk, &sec, &nsec) == 3 &&
		    (!strcmp(clk, "monotonic") || !strcmp(clk, "1")))
			*mono_ns = (int64_t)sec * 1000000000 + nsec;
	}
	fclose(f);
	return 0;
}

#ifdef HAVE_TRACEFS

/* Mounts this process made, so that one mount serves several instances and
 * the last destroy unmounts it. */
static int mount_refs;

/* root must be tracefs, or a directory of sysfs (the kernel's own mount
 * point, empty) that we mount tracefs on.  Anything else (a tmpfs, a
 * symlink someone else owns) is not ours to use or to hide. */
static int ensure_mounted(const char *root, bool *mounted, char *err, size_t errlen)
{
	struct statfs sf;
	struct stat st;
	int r;

	*mounted = false;
	if (lstat(root, &st) < 0) {
		r = -errno;
		util_errf(err, errlen, "tracefs: %s: %s (is tracefs in this kernel?)", root,
			  strerror(-r));
		return r == -ENOENT ? -ENODEV : r;
	}
	if (S_ISLNK(st.st_mode) && st.st_uid != 0) {
		util_errf(err, errlen,
			  "tracefs: %s is a symlink owned by uid %u, not root: refusing it", root,
			  (unsigned)st.st_uid);
		return -EPERM;
	}
	if (statfs(root, &sf) < 0) {
		r = -errno;
		util_errf(err, errlen, "tracefs: %s: %s", root, strerror(-r));
		return r;
	}
	if (sf.f_type == TRACEFS_MAGIC_)
		return 0;
	if (sf.f_type != SYSFS_MAGIC_) {
		util_errf(
		    err, errlen,
		    "tracefs: %s is not tracefs (file system 0x%lx) and not its empty mount point: "
		    "refusing to use or mount over it",
		    root, (unsigned long)sf.f_type);
		return -EPERM;
	}
	if (mount("nodev", root, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
		r = -errno;
		util_errf(err, errlen, "tracefs: cannot mount it at %s: %s", root, strerror(-r));
		return r == -ENODEV ? -ENODEV : r;
	}
	if (trace_is_tracefs(root) != 1) {
		umount2(root, 0);
		util_errf(err, errlen,
			  "tracefs: mounted at %s but it does not read back as tracefs", root);
		return -ENODEV;
	}
	*mounted = true;
	mount_refs++;
	return 0;
}

static void release_mount(struct trace_instance *ti, char *err, size_t errlen, int *r)
{
	if (!ti->mounted)
		return;
	ti->mounted = false;
	if (--mount_refs > 0)
		return;
	if (umount2(ti->root, 0) < 0 && !*r) {
		*r = -errno;
		util_errf(err, errlen, "tracefs: cannot unmount %s (mounted by rtsoak): %s",
			  ti->root, strerror(-*r));
	}
}

/* The events of issue 14: system, event.  Those missing on this kernel
 * are skipped; osnoise:* is added per event where the system exists. */
static const char *const wanted[][2] = {
	{ "sched", "sched_switch" },
	{ "sched", "sched_waking" },
	{ "sched", "sched_wakeup" },
	{ "irq", "irq_handler_entry" },
	{ "irq", "irq_handler_exit" },
	{ "irq", "softirq_entry" },
	{ "irq", "softirq_exit" },
	{ "irq_vectors", "local_timer_entry" },
	{ "irq_vectors", "local_timer_exit" },
	{ "irq_vectors", "reschedule_entry" },
	{ "irq_vectors", "reschedule_exit" },
	{ "irq_vectors", "call_function_entry" },
	{ "irq_vectors", "call_function_exit" },
	{ "irq_vectors", "call_function_single_entry" },
	{ "irq_vectors", "call_function_single_exit" },
	{ "irq_vectors", "irq_work_entry" },
	{ "irq_vectors", "irq_work_exit" },
	{ "irq_vectors", "x86_platform_ipi_entry" },
	{ "irq_vectors", "x86_platform_ipi_exit" },
	{ "irq_vectors", "thermal_apic_entry" },
	{ "irq_vectors", "thermal_apic_exit" },
	{ "irq_vectors", "error_apic_entry" },
	{ "irq_vectors", "error_apic_exit" },
	{ "irq_vectors", "spurious_apic_entry" },
	{ "irq_vectors", "spurious_apic_exit" },
	{ "timer", "hrtimer_expire_entry" },
	{ "timer", "hrtimer_expire_exit" },
	/* what a kworker runs, and which timer callbacks the TIMER softirq
	 * runs: neither is on the timer probe's own wake-up path (a kworker is
	 * interference, the wheel's expiry happens only in that softirq) */
	{ "workqueue", "workqueue_execute_start" },
	{ "workqueue", "workqueue_execute_end" },
	{ "timer", "timer_expire_entry" },
	{ "timer", "timer_expire_exit" },
	{ "power", "cpu_idle" },
	{ "nmi", "nmi_handler" },
};

static int enable_one(struct trace_instance *ti, const char *sys, const char *ev, char *err,
		      size_t errlen)
{
	if (!tracefs_event_file_exists(ti->inst, sys, ev, "enable"))
		return 0;
	if (ti->nevents >= TRACE_MAX_EVENTS)
		return 0;
	if (tracefs_event_file_write(ti->inst, sys, ev, "enable", "1") < 0) {
		int r = errno ? -errno : -EIO;

		util_errf(err, errlen, "tracefs: cannot enable %s:%s in instance %s: %s", sys, ev,
			  ti->name, strerror(-r));
		return r;
	}
	snprintf(ti->events[ti->nevents++], TRACE_EVNAME_LEN, "%s:%s", sys, ev);
	return 0;
}

static int enable_events(struct trace_instance *ti, const struct trace_instance_config *cfg,
			 char *err, size_t errlen)
{
	char **osn;
	int r;

	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		if (cfg->no_hrtimer && !strncmp(wanted[i][1], "hrtimer_", 8))
			continue;
		if (cfg->no_wakeup && !strcmp(wanted[i][1], "sched_wakeup"))
			continue;
		if ((r = enable_one(ti, wanted[i][0], wanted[i][1], err, errlen)))
			return r;
	}
	/* osnoise and timerlat events (osnoise:timerlat_sample, irq_noise...)
	 * where the kernel has the osnoise tracer. */
	osn = tracefs_system_events(ti->root, "osnoise");
	for (int i = 0; osn && osn[i]; i++)
		if ((r = enable_one(ti, "osnoise", osn[i], err, errlen))) {
			tracefs_list_free(osn);
			return r;
		}
	tracefs_list_free(osn);
	if (!ti->nevents) {
		util_errf(err, errlen,
			  "tracefs: none of the sched/irq/timer events exist in this kernel");
		return -ENOTSUP;
	}
	return 0;
}

static int write_file(struct trace_instance *ti, const char *file, const char *val, char *err,
		      size_t errlen)
{
	if (tracefs_instance_file_write(ti->inst, file, val) < 0) {
		int r = errno ? -errno : -EIO;

		util_errf(err, errlen, "tracefs: cannot write '%s' to %s of instance %s: %s", val,
			  file, ti->name, strerror(-r));
		return r;
	}
	return 0;
}

/* The stack at every local-timer interrupt of the measured CPUs that comes
 * in a task: where the CPU was when the interrupt came, so that an
 * interrupt delayed by an IRQs-off section names the function that turned
 * them back on.  Not in the idle task (common_pid 0): the stack of the idle
 * loop says nothing the idle exit does not (the kernel on this project's
 * VM records none there anyway), and an idle CPU's timer interrupt is the
 * timer probe's own routine wake-up, where unwinding would cost every
 * sample several microseconds.  A kernel that refuses the trigger's filter
 * gets the unfiltered trigger.  x86 only (irq_vectors); refused elsewhere
 * rather than silently recording nothing. */
static int enable_stacks(struct trace_instance *ti, char *err, size_t errlen)
{
	bool timer = false;

	for (unsigned i = 0; i < ti->nevents; i++)
		timer |= !strcmp(ti->events[i], "irq_vectors:local_timer_entry");
	if (!timer ||
	    !tracefs_event_file_exists(ti->inst, "irq_vectors", "local_timer_entry", "trigger") ||
	    !tracefs_event_file_exists(NULL, "ftrace", "kernel_stack", "format")) {
		util_errf(err, errlen,
			  "tracefs: --trace-stacks needs irq_vectors:local_timer_entry with "
			  "triggers and ftrace:kernel_stack, which this kernel does not have");
		return -ENOTSUP;
	}
	if (ti->nevents >= TRACE_MAX_EVENTS) {
		util_errf(err, errlen, "tracefs: too many events for --trace-stacks");
		return -E2BIG;
	}
	ti->stacks_filtered =
	    tracefs_event_file_write(ti->inst, "irq_vectors", "local_timer_entry", "trigger",
				     "stacktrace if common_pid != 0") >= 0;
	if (!ti->stacks_filtered &&
	    tracefs_event_file_write(ti->inst, "irq_vectors", "local_timer_entry", "trigger",
				     "stacktrace") < 0) {
		int r = errno ? -errno : -EIO;

		util_errf(err, errlen,
			  "tracefs: cannot set a stacktrace trigger on "
			  "irq_vectors:local_timer_entry in instance %s: %s",
			  ti->name, strerror(-r));
		return r;
	}
	ti->stacks = true;
	/* not enabled by a file of its own: recorded by the trigger; listed
	 * so that the recorder loads its format */
	snprintf(ti->events[ti->nevents++], TRACE_EVNAME_LEN, "ftrace:kernel_stack");
	return 0;
}

static int configure(struct trace_instance *ti, const struct trace_instance_config *cfg, char *err,
		     size_t errlen)
{
	char cpus[1024];
	int r;

	/* A new instance starts with tracing on: off until configured. */
	if ((r = write_file(ti, "tracing_on", "0", err, errlen)))
		return r;
	cpuset_format(&ti->cpus, cpus, sizeof(cpus));
	if (tracefs_instance_set_affinity(ti->inst, cpus) < 0) {
		r = errno ? -errno : -EINVAL;
		util_errf(err, errlen, "tracefs: cannot restrict instance %s to CPUs %s: %s",
			  ti->name, cpus, strerror(-r));
		return r;
	}
	/* The probes read CLOCK_MONOTONIC: the events must be on it. */
	if ((r = write_file(ti, "trace_clock", "mono", err, errlen)))
		return r;
	if (tracefs_instance_set_buffer_size(ti->inst, ti->buffer_kb, -1) < 0) {
		r = errno ? -errno : -ENOMEM;
		util_errf(err, errlen,
			  "tracefs: cannot size instance %s's buffer to %u KiB per CPU: %s",
			  ti->name, ti->buffer_kb, strerror(-r));
		return r;
	}
	if ((r = enable_events(ti, cfg, err, errlen)))
		return r;
	return ti->stacks ? enable_stacks(ti, err, errlen) : 0;
}

int trace_instance_start(struct trace_instance *ti, char *err, size_t errlen)
{
	char dir[PATH_MAX + 64];
	int r;

	if (!ti->inst) {
		util_errf(err, errlen, "tracefs: no instance to start");
		return -EINVAL;
	}
	if ((r = write_file(ti, "tracing_on", "1", err, errlen)))
		return r;
	/* As the kernel reads them back (it rounds the buffer size up to
	 * whole pages): what trace_instance_check compares against. */
	snprintf(dir, sizeof(dir), "%s/instances/%s", ti->root, ti->name);
	if ((r = read_small(dir, "buffer_size_kb", ti->want_kb, sizeof(ti->want_kb), NULL)) ||
	    (r = read_small(dir, "tracing_cpumask", ti->want_mask, sizeof(ti->want_mask), NULL)) ||
	    (r = read_small(dir, "set_event", ti->want_events, sizeof(ti->want_events), NULL))) {
		util_errf(err, errlen, "tracefs: cannot read back instance %s: %s", ti->name,
			  strerror(-r));
		return r;
	}
	ti->started = true;
	return 0;
}

/* The lines of a set_event listing. */
static unsigned count_lines(const char *s)
{
	unsigned n = *s != '\0';

	for (; *s; s++)
		n += *s == '\n' && s[1];
	return n;
}

_Static_assert(TRACE_MAX_EVENTS <= 64, "filter_refused is a mask of 64 events");

/* Each enabled event's filter as this run set it ("none" where it set
 * none): a filter someone adds or changes drops events silently, which the
 * attribution would take for a quiet CPU.  1 with `what` set, 0, -errno. */
static int filters_changed(const struct trace_instance *ti, const char *dir, char *what, size_t len)
{
	char file[TRACE_EVNAME_LEN + 32], got[TRACE_FILTER_LEN + 1], esc[160];

	for (unsigned i = 0; i < ti->nevents; i++) {
		const char *want = trace_instance_filter_of(ti, ti->events[i]), *colon;
		bool more = false;
		int r;

		colon = strchr(ti->events[i], ':');
		if (!colon || (ti->filter_refused & (1ull << i)))
			continue;
		snprintf(file, sizeof(file), "events/%.*s/%s/filter", (int)(colon - ti->events[i]),
			 ti->events[i], colon + 1);
		r = read_small(dir, file, got, sizeof(got), &more);
		if (r == -ENOENT) /* ftrace:kernel_stack has no filter */
			continue;
		if (r)
			return r;
		if (!more && !strcmp(got, want ? want : "none"))
			continue;
		util_errf(what, len, "the filter of %s in its instance %s was changed to '%s%s'",
			  ti->events[i], ti->name, util_escape(got, esc, sizeof(esc)),
			  more ? "..." : "");
		return 1;
	}
	return 0;
}

int trace_instance_check(const struct trace_instance *ti, char *what, size_t len)
{
	char dir[PATH_MAX + 64], on[16], clock[256], kb[64], mask[256], esc[128];
	char *events;
	struct stat st;
	int r;

	if (!ti->inst || !ti->started)
		return 0;
	snprintf(dir, sizeof(dir), "%s/instances/%s", ti->root, ti->name);
	if (lstat(dir, &st) < 0) {
		if (errno != ENOENT)
			return -errno;
		util_errf(what, len, "its instance %s was removed", ti->name);
		return 1;
	}
	events = malloc(sizeof(ti->want_events));
	if (!events)
		return -ENOMEM;
	if ((r = read_small(dir, "tracing_on", on, sizeof(on), NULL)) ||
	    (r = read_small(dir, "trace_clock", clock, sizeof(clock), NULL)) ||
	    (r = read_small(dir, "buffer_size_kb", kb, sizeof(kb), NULL)) ||
	    (r = read_small(dir, "tracing_cpumask", mask, sizeof(mask), NULL)) ||
	    (r = read_small(dir, "set_event", events, sizeof(ti->want_events), NULL))) {
		free(events);
		/* removed between the lstat and the read */
		if (r != -ENOENT)
			return r;
		util_errf(what, len, "its instance %s was removed", ti->name);
		return 1;
	}
	r = 1;
	if (strcmp(on, "1"))
		util_errf(what, len, "the tracing_on of its instance %s was set to %s", ti->name,
			  util_escape(on, esc, sizeof(esc)));
	else if (!strstr(clock, "[mono]"))
		util_errf(what, len, "the trace_clock of its instance %s was changed (%s)",
			  ti->name, util_escape(clock, esc, sizeof(esc)));
	else if (strcmp(kb, ti->want_kb))
		util_errf(what, len, "the buffer_size_kb of its instance %s was changed to %s",
			  ti->name, util_escape(kb, esc, sizeof(esc)));
	else if (strcmp(mask, ti->want_mask))
		util_errf(what, len, "the tracing_cpumask of its instance %s was changed to %s",
			  ti->name, util_escape(mask, esc, sizeof(esc)));
	else if (strcmp(events, ti->want_events))
		util_errf(what, len,
			  "the events of its instance %s were changed (%u enabled, %u at the "
			  "start)",
			  ti->name, count_lines(events), count_lines(ti->want_events));
	else
		r = filters_changed(ti, dir, what, len);
	free(events);
	return r;
}

static bool enabled(const struct trace_instance *ti, const char *event)
{
	for (unsigned i = 0; i < ti->nevents; i++)
		if (!strcmp(ti->events[i], event))
			return true;
	return false;
}

static int cmp_tid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* "FIELD is none of the tids": one clause per run of consecutive tids,
 * (FIELD < a || FIELD > b), or FIELD != a for a run of one; the runs hold
 * only the probes' own tids, so no other task can have a pid in them while
 * the probes live.  Without the '!' operator, which older kernels lack. */
static int not_tids(char *buf, size_t len, const char *field, const int32_t *sorted, size_t n)
{
	size_t off = 0, runs = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int w;

		while (j + 1 < n && sorted[j + 1] <= sorted[j] + 1)
			j++;
		if (++runs > TRACE_FILTER_RANGES)
			return -E2BIG;
		if (sorted[i] == sorted[j])
			w = snprintf(buf + off, len - off, "%s%s != %d", off ? " && " : "", field,
				     (int)sorted[i]);
		else
			w = snprintf(buf + off, len - off, "%s(%s < %d || %s > %d)",
				     off ? " && " : "", field, (int)sorted[i], field,
				     (int)sorted[j]);
		if (w < 0 || (size_t)w >= len - off)
			return -E2BIG;
		off += (size_t)w;
		i = j + 1;
	}
	return 0;
}

static int write_filter(struct trace_instance *ti, const char *event, const char *filter, char *err,
			size_t errlen)
{
	char sys[TRACE_EVNAME_LEN], *name;
	struct trace_filter *f;

	if (!enabled(ti, event))
		return 0;
	if (ti->nfilters == TRACE_MAX_FILTERS) {
		util_errf(err, errlen, "tracefs: too many filters");
		return -E2BIG;
	}
	snprintf(sys, sizeof(sys), "%s", event);
	name = strchr(sys, ':');
	*name++ = '\0';
	if (tracefs_event_file_write(ti->inst, sys, name, "filter", filter) < 0) {
		int r = errno ? -errno : -EIO;

		for (unsigned i = 0; i < ti->nevents; i++)
			if (!strcmp(ti->events[i], event))
				ti->filter_refused |= 1ull << i;
		util_errf(err, errlen,
			  "tracefs: cannot set the filter '%s' on %s in instance %s: %s", filter,
			  event, ti->name, strerror(-r));
		return r;
	}
	f = &ti->filters[ti->nfilters++];
	snprintf(f->event, sizeof(f->event), "%s", event);
	snprintf(f->filter, sizeof(f->filter), "%s", filter);
	return 0;
}

int trace_instance_filter_probes(struct trace_instance *ti, const int32_t *tids, size_t n,
				 char *err, size_t errlen)
{
	char next[TRACE_FILTER_LEN - 32], pid[TRACE_FILTER_LEN - 32], f[TRACE_FILTER_LEN];
	int32_t *sorted = NULL;
	int r = 0;

	if (!ti->inst) {
		util_errf(err, errlen, "tracefs: no instance to filter");
		return -EINVAL;
	}
	if (n) {
		sorted = malloc(n * sizeof(*sorted));
		if (!sorted)
			return -ENOMEM;
		memcpy(sorted, tids, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_tid);
		if ((r = not_tids(next, sizeof(next), "next_pid", sorted, n)) ||
		    (r = not_tids(pid, sizeof(pid), "pid", sorted, n))) {
			util_errf(err, errlen,
				  "tracefs: the probes' %zu threads make more than %d runs of "
				  "consecutive tids: their events are not filtered",
				  n, TRACE_FILTER_RANGES);
			free(sorted);
			return r;
		}
		free(sorted);
	}
	/* The exits are never used (attrib.c names the state being left from
	 * the entry before it); each is on the wake-up path of an idle CPU. */
	if ((r = write_filter(ti, "power:cpu_idle", "state != 4294967295", err, errlen)))
		return r;
	if (!n)
		return 0;
	snprintf(f, sizeof(f), "prev_pid != 0 || (%s)", next);
	if ((r = write_filter(ti, "sched:sched_switch", f, err, errlen)))
		return r;
	/* The probe's sched_waking stays: the one anchor of a wake-up from
	 * idle (its IRQ latency), and of the thread latency when a task woken
	 * with it runs first.  Its sched_wakeup (round trips enable it) adds
	 * nothing to that. */
	snprintf(f, sizeof(f), "common_pid != 0 || (%s)", pid);
	if ((r = write_filter(ti, "sched:sched_wakeup", f, err, errlen)))
		return r;
	if ((r = write_filter(ti, "irq_vectors:local_timer_entry", "common_pid != 0", err,
			      errlen)) ||
	    (r = write_filter(ti, "irq_vectors:local_timer_exit", "common_pid != 0", err, errlen)))
		return r;
	return 0;
}

const char *trace_instance_filter_of(const struct trace_instance *ti, const char *event)
{
	for (unsigned i = 0; i < ti->nfilters; i++)
		if (!strcmp(ti->filters[i].event, event))
			return ti->filters[i].filter;
	return NULL;
}

/* A name no one can predict: 64 random bits after the pid, so that runs
 * in different PID namespaces (which may share a pid) never meet, and a
 * name made beforehand is never ours. */
static int make_name(struct trace_instance *ti, char *err, size_t errlen)
{
	uint64_t token;

	if (getrandom(&token, sizeof(token), 0) != (ssize_t)sizeof(token)) {
		int r = -errno;

		util_errf(err, errlen, "tracefs: no random name for the instance: %s",
			  strerror(-r));
		return r;
	}
	snprintf(ti->name, sizeof(ti->name), "rtsoak-%d-%016llx", (int)getpid(),
		 (unsigned long long)token);
	return 0;
}

/* The owner record before the instance exists (lock.h, LOCK_TRACE): a run
 * that sees the instance sees the record.  A name whose record someone
 * holds (a cleaner checking it right now): another name. */
static int take_owner(struct trace_instance *ti, char *err, size_t errlen)
{
	char e[512];
	int r = -EBUSY;

	for (int tries = 0; tries < 4 && r == -EBUSY; tries++) {
		if ((r = make_name(ti, err, errlen)))
			return r;
		r = lock_take(&ti->owner, LOCK_TRACE, ti->name, NULL, e, sizeof(e));
	}
	if (r)
		util_errf(err, errlen,
			  "tracefs: cannot record the owner of instance %s (%s): refusing to make "
			  "an instance that no later run could tell from another tool's",
			  ti->name, e);
	return r;
}

int trace_instance_create(struct trace_instance *ti, const struct trace_instance_config *cfg,
			  char *err, size_t errlen)
{
	char path[PATH_MAX + 128];
	int r, stale;

	memset(ti, 0, sizeof(*ti));
	ti->owner.fd = -1;
	snprintf(ti->root, sizeof(ti->root), "%s", TRACE_ROOT);
	ti->cpus = cfg->cpus;
	ti->buffer_kb = cfg->buffer_kb ? cfg->buffer_kb : TRACE_DEFAULT_BUFFER_KB;
	ti->stacks = cfg->stacks; /* wanted; enable_stacks sets the trigger */
	if (cpuset_empty(&ti->cpus)) {
		util_errf(err, errlen, "tracefs: no CPU to trace");
		return -EINVAL;
	}
	if (geteuid() != 0) {
		util_errf(err, errlen, "tracefs: an instance needs root");
		return -EACCES;
	}
	if ((r = trace_timens_offset(&ti->mono_offset_ns))) {
		util_errf(err, errlen, "tracefs: cannot read /proc/self/timens_offsets: %s",
			  strerror(-r));
		return r;
	}
	if ((r = ensure_mounted(ti->root, &ti->mounted, err, errlen)))
		return r;
	/* libtracefs would look for a mount in /proc/mounts: tell it ours. */
	if (tracefs_set_tracing_dir(ti->root) < 0) {
		r = -errno;
		util_errf(err, errlen, "tracefs: %s: %s", ti->root, strerror(-r));
		goto fail;
	}
	stale = trace_instance_cleanup_stale(ti->root, err, errlen);
	if (stale < 0) {
		r = stale;
		goto fail;
	}
	ti->stale_removed = stale;
	if ((r = take_owner(ti, err, errlen)))
		goto fail;
	/* mkdir ourselves: EEXIST is the check that we never reuse an
	 * instance (tracefs_instance_create would quietly return it). */
	snprintf(path, sizeof(path), "%s/instances/%s", ti->root, ti->name);
	if (mkdir(path, 0750) < 0) {
		r = -errno;
		util_errf(err, errlen, "tracefs: cannot create instance %s: %s", path,
			  strerror(-r));
		lock_release(&ti->owner);
		goto fail;
	}
	ti->inst = tracefs_instance_alloc(ti->root, ti->name);
	if (!ti->inst) {
		r = errno ? -errno : -ENOMEM;
		util_errf(err, errlen, "tracefs: instance %s: %s", path, strerror(-r));
		rmdir(path);
		lock_release(&ti->owner);
		goto fail;
	}
	if ((r = configure(ti, cfg, err, errlen))) {
		char e2[8];

		trace_instance_destroy(ti, e2, sizeof(e2));
		return r;
	}
	return 0;
fail:
	release_mount(ti, err, errlen, &(int){ 1 });
	return r;
}

int trace_instance_destroy(struct trace_instance *ti, char *err, size_t errlen)
{
	int r = 0;

	if (ti->inst) {
		tracefs_instance_file_write(ti->inst, "tracing_on", "0");
		/* removing the instance drops its triggers too; taken off first
		 * so that nothing of ours fires while it goes */
		if (ti->stacks)
			tracefs_event_file_write(ti->inst, "irq_vectors", "local_timer_entry",
						 "trigger", "!stacktrace");
		if (tracefs_instance_destroy(ti->inst) < 0 && errno != ENOENT) {
			r = errno ? -errno : -EIO;
			util_errf(err, errlen,
				  "tracefs: cannot remove instance %s/instances/%s: %s", ti->root,
				  ti->name, strerror(-r));
		}
		tracefs_instance_free(ti->inst);
		ti->inst = NULL;
		ti->started = false;
		/* The record goes with the instance; an instance left behind
		 * keeps it, unheld, so that the next run removes both. */
		if (r)
			lock_abandon(&ti->owner);
		else
			lock_release(&ti->owner);
	}
	release_mount(ti, err, errlen, &r);
	return r;
}

#else /* !HAVE_TRACEFS */

int trace_instance_create(struct trace_instance *ti, const struct trace_instance_config *cfg,
			  char *err, size_t errlen)
{
	memset(ti, 0, sizeof(*ti));
	util_errf(err, errlen, "%s", TRACE_NOT_BUILT);
	return -ENOTSUP;
}

int trace_instance_start(struct trace_instance *ti, char *err, size_t errlen)
{
	util_errf(err, errlen, "%s", TRACE_NOT_BUILT);
	return -ENOTSUP;
}

int trace_instance_destroy(struct trace_instance *ti, char *err, size_t errlen)
{
	return 0;
}

int trace_instance_check(const struct trace_instance *ti, char *what, size_t len)
{
	return 0;
}

int trace_instance_filter_probes(struct trace_instance *ti, const int32_t *tids, size_t n,
				 char *err, size_t errlen)
{
	util_errf(err, errlen, "%s", TRACE_NOT_BUILT);
	return -ENOTSUP;
}

const char *trace_instance_filter_of(const struct trace_instance *ti, const char *event)
{
	return NULL;
}

#endif
