/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check: the tuning checks of `rtsoak check` and of every run's report (issue 16).
 *
 * Each check reads the machine (through a root prefix, so that tests can point it at a fake
 * /sys + /proc tree) and says pass, warn, fail, info or unknown for the measured CPUs, with the
 * value it saw, the one it expected, why it matters (with a reference) and the fix.  Nothing is
 * written and nothing is mounted.  A file that cannot be read makes its check unknown with the
 * reason, never pass.  The table (check.c) is the documentation too: `rtsoak check --list-md`
 * prints it as docs/checks.md. */
#ifndef RTSOAK_CHECK_H
#define RTSOAK_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <jansson.h>

#include "cpuset.h"

enum check_status { CHECK_PASS, CHECK_INFO, CHECK_WARN, CHECK_FAIL, CHECK_UNKNOWN };

/* One process or kernel thread, as the placement checks see it (/proc/PID/stat, status). */
struct check_proc {
	int pid;
	char comm[32];
	bool kthread;
	int policy; /* SCHED_OTHER, SCHED_FIFO, ... */
	int rt_priority;
	struct cpuset allowed;
};

/* What every check may use: the root it reads, the CPUs of the run, what several checks share
 * (the process list, the kernel configuration), read once by check_run(). */
struct check_ctx {
	int rootfd; /* the root prefix, O_PATH | O_DIRECTORY */
	bool live;  /* the root is "/": uname, cpuid and the kernel log are this machine's */
	struct cpuset cpus;	    /* measured */
	struct cpuset housekeeping; /* empty: the online CPUs that are not measured */
	int priority;		    /* the probes' SCHED_FIFO priority (0: not real-time) */
	uint64_t interval_ns;	    /* the run's sampling interval: the idle-exit budget */
	struct cpuset online;
	int online_err;
	struct check_proc *procs;
	size_t nprocs;
	int procs_err;
	char *config; /* the kernel's .config text, NUL-terminated; NULL: config_err */
	int config_err;
	const char *config_src;
};

#define CHECK_TEXT_MAX 512

struct check_result {
	const struct check_def *def;
	enum check_status status;
	char cpus[64]; /* the CPUs concerned, a cpulist ("" when the check is global) */
	char observed[CHECK_TEXT_MAX];
	char expected[160];
	char source[160]; /* where the answer came from (files, the kernel log) */
};

struct check_def {
	const char *id;
	const char *why; /* one sentence */
	const char *ref; /* a kernel document or source path */
	const char *fix;
	void (*run)(struct check_ctx *c, struct check_result *r);
};

extern const struct check_def check_table[];
extern const size_t check_count;
/* At least check_count (a compile-time check in check.c): results fit in
 * struct check_result res[CHECK_MAX]. */
#define CHECK_MAX 64

/* Open root (NULL: "/") and fill in the CPUs; cpus empty means every online CPU.  Returns 0 or
 * -errno with a line in err. */
int check_ctx_open(struct check_ctx *c, const char *root, const struct cpuset *cpus,
		   const struct cpuset *housekeeping, int priority, uint64_t interval_ns, char *err,
		   size_t errlen) __attribute__((warn_unused_result));
void check_ctx_close(struct check_ctx *c);

/* Run every check of the table into res (check_count entries). */
void check_run(struct check_ctx *c, struct check_result *res);

const char *check_status_name(enum check_status s);
/* The results as the report's `checks` array (docs/report-schema.json); NULL when out of
 * memory. */
json_t *check_json(const struct check_result *res, size_t n);
/* The table as a Markdown document (docs/checks.md).  Returns 0 or -EIO. */
int check_list_md(FILE *out) __attribute__((warn_unused_result));

/* ---- for the check_*.c files ---- */

/* Read the file at path (absolute, under the root) into buf (at most len - 1 bytes), trailing
 * whitespace dropped.  Only a regular file, never through a symlink at its last component;
 * bounded.  Returns the length or -errno. */
int check_read(struct check_ctx *c, const char *path, char *buf, size_t len)
    __attribute__((warn_unused_result));
int check_readf(struct check_ctx *c, char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), warn_unused_result));
/* lstat(2) of path under the root (its last component not followed). 0 or -errno. */
int check_lstat(struct check_ctx *c, const char *path, struct stat *st)
    __attribute__((warn_unused_result));
/* The same into a malloc'd buffer of at most max bytes (cut there). */
ssize_t check_read_alloc(struct check_ctx *c, const char *path, size_t max, char **out)
    __attribute__((warn_unused_result));
/* Open a directory under the root (not through a final symlink); NULL with errno. */
void *check_opendir(struct check_ctx *c, const char *path);
/* The kernel log (klogctl on the live machine; ROOT/dev/kmsg as a plain file in a fixture):
 * malloc'd text or NULL with errno. */
char *check_klog(struct check_ctx *c);
/* Read the process list once (the first check that needs it); 0 or -errno. */
int check_procs_load(struct check_ctx *c);
/* A kernel config option's value ("y", "m", "1000") into buf; 0, -ENOENT when not set, or
 * -ENODATA (or another -errno) when there is no config to read. */
int check_config(struct check_ctx *c, const char *name, char *buf, size_t len);
/* The configuration options a tuner asks about, for the snapshot (after
 * check_run, which reads the configuration): {"source": where from,
 * "options": {"HZ": "250", "PREEMPT_RT": null (not set), ...}}, or
 * {"source": null, "error": why} without one.  NULL on ENOMEM. */
json_t *check_config_json(struct check_ctx *c);

void check_say(struct check_result *r, enum check_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void check_expect(struct check_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void check_source(struct check_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* unknown: "cannot read PATH: strerror". */
void check_unreadable(struct check_result *r, const char *path, int err);
void check_set_cpus(struct check_result *r, const struct cpuset *s);
/* A cpulist file ("0-3") or hex mask file ("f,ffffffff") into s; 0 or -errno. */
int check_read_cpulist(struct check_ctx *c, const char *path, struct cpuset *s);
int check_read_mask(struct check_ctx *c, const char *path, struct cpuset *s);
/* A bounded integer file; 0 or -errno (-EINVAL when it is no number). */
int check_read_ll(struct check_ctx *c, const char *path, long long *v);
/* The value of "key=" on the kernel command line (or "" for a bare "key"): 0, -ENOENT when
 * the key is not there, -ENODATA (or another -errno) when the command line is unreadable. */
int check_cmdline(struct check_ctx *c, const char *key, char *buf, size_t len);

/* The check functions, one file per topic. */
void check_cpu_isolcpus(struct check_ctx *c, struct check_result *r);
void check_cpu_nohz_full(struct check_ctx *c, struct check_result *r);
void check_cpu_rcu_nocbs(struct check_ctx *c, struct check_result *r);
void check_cpu_smt(struct check_ctx *c, struct check_result *r);
void check_cpu_idle(struct check_ctx *c, struct check_result *r);
void check_cpu_freq(struct check_ctx *c, struct check_result *r);
void check_cpu_workqueue(struct check_ctx *c, struct check_result *r);
void check_irq_affinity(struct check_ctx *c, struct check_result *r);
/* For the snapshot: every device IRQ with its handlers' names, where it goes
 * now (effective affinity) and its count on the measured CPUs since boot;
 * NULL on ENOMEM or when /proc/interrupts cannot be read. */
json_t *check_irq_json(struct check_ctx *c);
/* After a run: irq.affinity in `checks` (the report's section) learns which
 * device interrupts fired on the measured CPUs during it, from the phases'
 * interrupt counts (the report's phases[].system.interrupts: each phase's
 * top sources by name, a count per CPU).  A pass becomes a warn when one
 * did.  0, or -ENOMEM. */
int check_irq_fired(json_t *checks, json_t *phases, const struct cpuset *cpus);
void check_proc_irqbalance(struct check_ctx *c, struct check_result *r);
void check_proc_kthreads(struct check_ctx *c, struct check_result *r);
/* For the snapshot: the kernel threads that matter on the measured CPUs
 * (the per-CPU ksoftirqd/, ktimers/, rcuc/, rcub/, irq/ ones and every
 * real-time one allowed there): [{comm, pid, policy, priority, cpus}];
 * NULL on ENOMEM or when the process list cannot be read. */
json_t *check_proc_kthreads_json(struct check_ctx *c);
void check_proc_stalld(struct check_ctx *c, struct check_result *r);
void check_proc_tuned(struct check_ctx *c, struct check_result *r);
void check_kernel_preempt(struct check_ctx *c, struct check_result *r);
void check_kernel_config(struct check_ctx *c, struct check_result *r);
void check_kernel_throttling(struct check_ctx *c, struct check_result *r);
void check_kernel_timer_migration(struct check_ctx *c, struct check_result *r);
void check_kernel_watchdog(struct check_ctx *c, struct check_result *r);
void check_kernel_clocksource(struct check_ctx *c, struct check_result *r);
void check_kernel_virt(struct check_ctx *c, struct check_result *r);
void check_kernel_mitigations(struct check_ctx *c, struct check_result *r);
void check_kernel_microcode(struct check_ctx *c, struct check_result *r);
void check_mm_thp(struct check_ctx *c, struct check_result *r);
void check_mm_ksm(struct check_ctx *c, struct check_result *r);
void check_mm_slub(struct check_ctx *c, struct check_result *r);

/* The effective preemption mode and where it came from ("rt", "full", "lazy", "voluntary",
 * "none"; NULL: unknown, *why says why), for the check and the snapshot. */
const char *check_kernel_preempt_mode(struct check_ctx *c, char *source, size_t srclen, char *why,
				      size_t whylen);

#endif
