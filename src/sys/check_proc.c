// SPDX-License-Identifier: GPL-2.0-or-later
/* check_proc: the checks made from the process list (read once by check_ctx_open from
 * /proc/PID/stat and status): kernel threads on the measured CPUs, irqbalance, stalld, tuned
 * (check.h). */
#include <config.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "util.h"

/* Real and effective uid 0, from /proc/PID/status. */
static bool runs_as_root(struct check_ctx *c, int pid)
{
	char status[4096], *s;
	unsigned ruid, euid;

	if (check_readf(c, status, sizeof(status), "/proc/%d/status", pid) <= 0 ||
	    !(s = strstr(status, "\nUid:")))
		return false;
	return sscanf(s + strlen("\nUid:"), "%u %u", &ruid, &euid) == 2 && !ruid && !euid;
}

/* Root's, and writable by nobody else. */
static bool root_only(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Whether the process is the daemon `name` and not just named so: any user can name a process
 * "stalld" (comm is the executable's name, or prctl(PR_SET_NAME)) and so make the stalld check
 * pass or the irqbalance check warn.  The daemon is root's (real and effective uid 0) and runs
 * an executable called `name` (/proc/PID/exe) that root owns, in directories that root owns,
 * none of them writable by anyone else (a package's /usr/sbin/stalld).  An executable
 * replaced since it started (" (deleted)": a package upgrade) is judged by its directories.
 * Where the exe link cannot be read (an unprivileged `rtsoak check`), uid 0 alone decides: only
 * root can start a process of root's.  A `script` (tuned is Python) runs its interpreter: any
 * name, the same ownership. */
static bool genuine(struct check_ctx *c, const struct check_proc *p, const char *name, bool script)
{
	static const char deleted[] = " (deleted)";
	char link[64], exe[4096], *base;
	struct stat st;
	ssize_t n;

	if (!runs_as_root(c, p->pid))
		return false;
	snprintf(link, sizeof(link), "proc/%d/exe", p->pid);
	n = readlinkat(c->rootfd, link, exe, sizeof(exe) - 1);
	if (n < 0 && (errno == EACCES || errno == EPERM) && c->live && geteuid())
		return true;
	if (n <= 0 || (size_t)n >= sizeof(exe) - 1)
		return false;
	exe[n] = '\0';
	bool gone = (size_t)n > strlen(deleted) && !strcmp(exe + n - strlen(deleted), deleted);
	if (gone)
		exe[n - strlen(deleted)] = '\0';
	if (exe[0] != '/' || !(base = strrchr(exe, '/')) || (!script && strcmp(base + 1, name)))
		return false;
	if (!gone && (check_lstat(c, exe, &st) || !S_ISREG(st.st_mode) || !root_only(&st)))
		return false;
	/* every directory up to the root, the root too */
	do {
		*base = '\0';
		if (check_lstat(c, exe[0] ? exe : "/", &st) || !S_ISDIR(st.st_mode) ||
		    !root_only(&st))
			return false;
	} while ((base = strrchr(exe, '/')));
	return true;
}

/* The daemon `name` (genuine() above); *impostor: the pid of a process only named so (0 if
 * none), which the check mentions. */
static const struct check_proc *find(struct check_ctx *c, const char *name, bool script,
				     int *impostor)
{
	*impostor = 0;
	for (size_t i = 0; i < c->nprocs; i++) {
		const struct check_proc *p = &c->procs[i];
		if (p->kthread || strcmp(p->comm, name))
			continue;
		if (genuine(c, p, name, script))
			return p;
		if (!*impostor)
			*impostor = p->pid;
	}
	return NULL;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool allowed_on(const struct check_ctx *c, const struct check_proc *p)
{
	struct cpuset s = p->allowed;

	cpuset_and(&s, &c->cpus);
	return !cpuset_empty(&s);
}

static const char *policy_name(int policy)
{
	return policy == SCHED_FIFO ? "fifo" : policy == SCHED_RR ? "rr" : "other";
}

static const char *const percpu[] = { "ksoftirqd/", "ktimers/", "rcuc/", "rcub/", "irq/" };

/* A kernel thread the checks and the snapshot look at: per-CPU by name or
 * real-time, allowed on a measured CPU, not a stop-class or idle-injection
 * thread (migration/N, idle_inject/N show as FIFO 99 and cannot be moved). */
static bool kthread_of_interest(const struct check_ctx *c, const struct check_proc *p, bool *rt)
{
	bool named = false;

	*rt = p->policy == SCHED_FIFO || p->policy == SCHED_RR;
	if (!p->kthread || !allowed_on(c, p))
		return false;
	if (starts(p->comm, "migration/") || starts(p->comm, "idle_inject/"))
		return false;
	for (size_t k = 0; k < sizeof(percpu) / sizeof(percpu[0]); k++)
		named |= starts(p->comm, percpu[k]);
	return named || *rt;
}

json_t *check_proc_kthreads_json(struct check_ctx *c)
{
	json_t *a;

	if (check_procs_load(c) || !(a = json_array()))
		return NULL;
	for (size_t i = 0; i < c->nprocs; i++) {
		const struct check_proc *p = &c->procs[i];
		char cpus[256];
		bool rt;
		if (!kthread_of_interest(c, p, &rt))
			continue;
		cpuset_format(&p->allowed, cpus, sizeof(cpus));
		if (json_array_append_new(a, json_pack("{s:o, s:i, s:s, s:i, s:s}", "comm",
						       util_json_string(p->comm), "pid", p->pid,
						       "policy", policy_name(p->policy), "priority",
						       rt ? p->rt_priority : 0, "cpus", cpus))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

void check_proc_kthreads(struct check_ctx *c, struct check_result *r)
{
	char seen[CHECK_TEXT_MAX] = "", above[CHECK_TEXT_MAX] = "";
	int nseen = 0, nabove = 0;
	struct cpuset bad;

	if (check_procs_load(c))
		return check_unreadable(r, "/proc", c->procs_err);
	cpuset_clear(&bad);
	check_source(r, "/proc/PID/stat, /proc/PID/status (kernel threads)");
	if (c->priority > 0)
		check_expect(r, "no real-time kernel thread at priority >= %d on a measured CPU",
			     c->priority);
	else
		check_expect(r, "(the run is not real-time: listed only)");
	for (size_t i = 0; i < c->nprocs; i++) {
		const struct check_proc *p = &c->procs[i];
		bool rt;
		if (!kthread_of_interest(c, p, &rt))
			continue;
		size_t l = strlen(seen);
		nseen++;
		if (l + 40 < sizeof(seen))
			snprintf(seen + l, sizeof(seen) - l, "%s%s %s%s%.0d", l ? ", " : "",
				 p->comm, policy_name(p->policy), rt ? " " : "",
				 rt ? p->rt_priority : 0);
		if (rt && c->priority > 0 && p->rt_priority >= c->priority) {
			l = strlen(above);
			nabove++;
			for (int cpu = cpuset_next(&p->allowed, 0); cpu >= 0;
			     cpu = cpuset_next(&p->allowed, cpu + 1))
				if (cpuset_has(&c->cpus, cpu))
					cpuset_set(&bad, cpu);
			if (l + 40 < sizeof(above))
				snprintf(above + l, sizeof(above) - l, "%s%s fifo %d",
					 l ? ", " : "", p->comm, p->rt_priority);
		}
	}
	if (nabove) {
		check_set_cpus(r, &bad);
		return check_say(r, CHECK_WARN, "%d at or above priority %d: %s", nabove,
				 c->priority, above);
	}
	check_say(r, CHECK_PASS, "%d kernel threads of note on measured CPUs%s%s", nseen,
		  nseen ? ": " : "", seen);
}

/* "; pid N is only named so" for a check's observation, "" when no process was. */
static const char *note(int impostor, char *buf, size_t len)
{
	if (impostor)
		snprintf(buf, len, "; pid %d has the name but is not root's daemon", impostor);
	else
		buf[0] = '\0';
	return buf;
}

/* irqbalance's own configuration: a banned list that covers the measured CPUs makes it
 * harmless. */
static int banned(struct check_ctx *c, struct cpuset *s, const char **from)
{
	static const char *const files[] = { "/etc/default/irqbalance",
					     "/etc/sysconfig/irqbalance" };
	char buf[8192];

	for (size_t i = 0; i < 2; i++) {
		if (check_read(c, files[i], buf, sizeof(buf)) < 0)
			continue;
		for (char *save, *l = strtok_r(buf, "\n", &save); l;
		     l = strtok_r(NULL, "\n", &save)) {
			l += strspn(l, " \t");
			if (!starts(l, "IRQBALANCE_BANNED_CPULIST="))
				continue;
			l += strlen("IRQBALANCE_BANNED_CPULIST=");
			l += strspn(l, "\"'");
			l[strcspn(l, "\"' #")] = '\0';
			*from = files[i];
			return cpuset_parse(s, l, NULL, 0) ? -EINVAL : 0;
		}
	}
	return -ENOENT;
}

void check_proc_irqbalance(struct check_ctx *c, struct check_result *r)
{
	const struct check_proc *p;
	const char *from = NULL;
	struct cpuset ban, out;
	char nb[96];
	int fake;

	if (check_procs_load(c))
		return check_unreadable(r, "/proc", c->procs_err);
	check_source(r, "/proc/PID/stat, status, exe");
	check_expect(r, "irqbalance not running, or banned from the measured CPUs");
	if (!(p = find(c, "irqbalance", false, &fake)))
		return check_say(r, CHECK_PASS, "irqbalance not running%s",
				 note(fake, nb, sizeof(nb)));
	if (!banned(c, &ban, &from)) {
		check_source(r, "/proc/PID/stat, status, exe, %s", from);
		out = c->cpus;
		cpuset_andnot(&out, &ban);
		if (cpuset_empty(&out))
			return check_say(r, CHECK_PASS, "irqbalance (pid %d) banned from them",
					 p->pid);
	}
	cpuset_format(&c->cpus, r->cpus, sizeof(r->cpus));
	check_say(r, CHECK_WARN, "irqbalance running (pid %d)%s", p->pid,
		  from ? "; its banned list leaves measured CPUs out" : "");
}

void check_proc_stalld(struct check_ctx *c, struct check_result *r)
{
	const struct check_proc *p;
	long long rt = 0;
	char nb[96];
	int rc, fake;

	if (check_procs_load(c))
		return check_unreadable(r, "/proc", c->procs_err);
	check_source(r, "/proc/PID/stat, status, exe, /proc/sys/kernel/sched_rt_runtime_us");
	check_expect(r, "stalld running when RT throttling is off");
	if ((p = find(c, "stalld", false, &fake)))
		return check_say(r, CHECK_PASS, "stalld running (pid %d)", p->pid);
	note(fake, nb, sizeof(nb));
	rc = check_read_ll(c, "/proc/sys/kernel/sched_rt_runtime_us", &rt);
	if (!rc && rt < 0)
		return check_say(r, CHECK_WARN, "stalld not running and RT throttling off%s", nb);
	check_say(r, CHECK_INFO, "stalld not running (RT throttling %s)%s", rc ? "unknown" : "on",
		  nb);
}

void check_proc_tuned(struct check_ctx *c, struct check_result *r)
{
	char prof[128];
	int fake;
	const struct check_proc *p = check_procs_load(c) ? NULL : find(c, "tuned", true, &fake);
	int rc = check_read(c, "/etc/tuned/active_profile", prof, sizeof(prof));

	check_source(r, "/etc/tuned/active_profile, /proc/PID/stat, status, exe");
	check_expect(r, "a realtime or cpu-partitioning profile, where tuned is used");
	if (rc == -ENOENT && !p)
		return check_say(r, CHECK_INFO, "tuned not installed or no profile");
	if (rc < 0)
		return check_unreadable(r, "/etc/tuned/active_profile", rc);
	if ((strstr(prof, "realtime") || strstr(prof, "cpu-partitioning")) && p)
		return check_say(r, CHECK_PASS, "tuned running, profile %s", prof);
	check_say(r, CHECK_INFO, "tuned %s, profile %s", p ? "running" : "not running",
		  prof[0] ? prof : "(none)");
}
