// SPDX-License-Identifier: GPL-2.0-or-later
/* check_kernel: the kernel-wide checks: preemption model (and where the answer came from), the
 * build configuration, RT throttling, timer migration, the watchdogs, the clocksource,
 * virtualisation, vulnerability mitigations, microcode (check.h). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* "none voluntary (full) lazy": the word in brackets, into buf. */
static bool selected(const char *s, char open, char close, char *buf, size_t len)
{
	const char *b = strchr(s, open), *e = b ? strchr(b, close) : NULL;

	if (!e)
		return false;
	snprintf(buf, len, "%.*s", (int)(e - b - 1), b + 1);
	return true;
}

/* The last "Dynamic Preempt: MODE" of the kernel log: the kernel prints it at boot and at
 * every change through debugfs (kernel/sched/core.c). */
static bool klog_mode(struct check_ctx *c, char *mode, size_t len)
{
	char *log = check_klog(c), *p, *last = NULL;

	if (!log)
		return false;
	for (p = log; (p = strstr(p, "Dynamic Preempt: ")); p++)
		last = p + strlen("Dynamic Preempt: ");
	if (last)
		snprintf(mode, len, "%.*s", (int)strcspn(last, " \n\r"), last);
	free(log);
	return last != NULL;
}

static const char *known_mode(const char *m)
{
	static const char *const modes[] = { "none", "voluntary", "full", "lazy", "rt" };

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(m, modes[i]))
			return modes[i];
	return NULL;
}

/* The model the build chose as a dynamic kernel's boot default. */
static const char *config_mode(struct check_ctx *c)
{
	char v[8];

	if (!check_config(c, "PREEMPT_RT", v, sizeof(v)))
		return "rt";
	if (!check_config(c, "PREEMPT_LAZY", v, sizeof(v)))
		return "lazy";
	if (!check_config(c, "PREEMPT", v, sizeof(v)))
		return "full";
	if (!check_config(c, "PREEMPT_VOLUNTARY", v, sizeof(v)))
		return "voluntary";
	if (!check_config(c, "PREEMPT_NONE", v, sizeof(v)))
		return "none";
	return NULL;
}

const char *check_kernel_preempt_mode(struct check_ctx *c, char *source, size_t srclen, char *why,
				      size_t whylen)
{
	char buf[256], ver[256];
	const char *m;
	int rc;

	why[0] = '\0';
	/* Only debugfs says the live mode of a dynamic kernel for sure; lockdown refuses it
	 * (EPERM) and rtsoak never mounts it. */
	rc = check_read(c, "/sys/kernel/debug/sched/preempt", buf, sizeof(buf));
	if (rc >= 0 && selected(buf, '(', ')', ver, sizeof(ver)) && (m = known_mode(ver))) {
		snprintf(source, srclen, "/sys/kernel/debug/sched/preempt");
		return m;
	}
	snprintf(why, whylen, "debugfs: %s", rc < 0 ? strerror(-rc) : "unparsed");
	if (check_read(c, "/sys/kernel/realtime", buf, sizeof(buf)) >= 0 && !strcmp(buf, "1")) {
		snprintf(source, srclen, "/sys/kernel/realtime");
		return "rt";
	}
	if ((rc = check_read(c, "/proc/sys/kernel/version", ver, sizeof(ver))) < 0) {
		snprintf(why + strlen(why), whylen - strlen(why), "; /proc/sys/kernel/version: %s",
			 strerror(-rc));
		return NULL;
	}
	if (strstr(ver, "PREEMPT_RT")) {
		snprintf(source, srclen, "/proc/sys/kernel/version");
		return "rt";
	}
	if (strstr(ver, "PREEMPT_DYNAMIC")) {
		if (klog_mode(c, buf, sizeof(buf)) && (m = known_mode(buf))) {
			snprintf(source, srclen, "kernel log (Dynamic Preempt:)");
			return m;
		}
		if (!check_cmdline(c, "preempt", buf, sizeof(buf)) && (m = known_mode(buf))) {
			snprintf(source, srclen, "/proc/cmdline preempt= (the boot mode)");
			return m;
		}
		if ((m = config_mode(c))) {
			snprintf(source, srclen, "%s (the build's boot default)", c->config_src);
			return m;
		}
		snprintf(why + strlen(why), whylen - strlen(why),
			 "; PREEMPT_DYNAMIC, no mode in the kernel log, cmdline or config");
		return NULL;
	}
	size_t vl = strlen(ver);
	if (strstr(ver, "PREEMPT ") || (vl >= 7 && !strcmp(ver + vl - 7, "PREEMPT"))) {
		snprintf(source, srclen, "/proc/sys/kernel/version");
		return "full";
	}
	if ((m = config_mode(c))) {
		snprintf(source, srclen, "%s", c->config_src);
		return m;
	}
	snprintf(why + strlen(why), whylen - strlen(why), "; no PREEMPT in the version, no config");
	return NULL;
}

void check_kernel_preempt(struct check_ctx *c, struct check_result *r)
{
	char why[256];
	const char *m =
	    check_kernel_preempt_mode(c, r->source, sizeof(r->source), why, sizeof(why));

	check_expect(r, "rt");
	if (!m)
		return check_say(r, CHECK_UNKNOWN, "unknown (%s)", why);
	if (!strcmp(m, "rt"))
		return check_say(r, CHECK_PASS, "rt");
	check_say(r, !strcmp(m, "full") || !strcmp(m, "lazy") ? CHECK_WARN : CHECK_FAIL, "%s", m);
}

void check_kernel_config(struct check_ctx *c, struct check_result *r)
{
	static const char *const opts[] = {
		"HZ",		"PREEMPT_RT",	 "PREEMPT_DYNAMIC", "NO_HZ_FULL",
		"RCU_NOCB_CPU", "CPU_ISOLATION", "SLUB_CPU_PARTIAL"
	};
	char v[32], *o = r->observed;
	bool rt, nohz;

	if (!c->config)
		return check_unreadable(r, "/proc/config.gz or /boot/config-RELEASE",
					c->config_err);
	check_source(r, "%s", c->config_src);
	check_expect(r, "PREEMPT_RT=y NO_HZ_FULL=y RCU_NOCB_CPU=y");
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		size_t l = strlen(o);
		snprintf(o + l, sizeof(r->observed) - l, "%s%s=%s", l ? " " : "", opts[i],
			 check_config(c, opts[i], v, sizeof(v)) ? "n" : v);
	}
	rt = !check_config(c, "PREEMPT_RT", v, sizeof(v));
	nohz = !check_config(c, "NO_HZ_FULL", v, sizeof(v)) &&
	       !check_config(c, "RCU_NOCB_CPU", v, sizeof(v));
	r->status = rt && nohz ? CHECK_PASS : CHECK_WARN;
}

void check_kernel_throttling(struct check_ctx *c, struct check_result *r)
{
	long long rt, period;
	int rc;

	check_source(r, "/proc/sys/kernel/sched_rt_runtime_us, sched_rt_period_us");
	check_expect(r, "sched_rt_runtime_us -1");
	if ((rc = check_read_ll(c, "/proc/sys/kernel/sched_rt_runtime_us", &rt)))
		return check_unreadable(r, "/proc/sys/kernel/sched_rt_runtime_us", rc);
	if ((rc = check_read_ll(c, "/proc/sys/kernel/sched_rt_period_us", &period)))
		return check_unreadable(r, "/proc/sys/kernel/sched_rt_period_us", rc);
	if (rt < 0)
		return check_say(r, CHECK_PASS, "off (sched_rt_runtime_us -1)");
	check_say(r, CHECK_WARN, "on: %lld of every %lld us", rt, period);
}

void check_kernel_timer_migration(struct check_ctx *c, struct check_result *r)
{
	const char *path = "/proc/sys/kernel/timer_migration";
	long long v;
	int rc = check_read_ll(c, path, &v);

	if (rc)
		return check_unreadable(r, path, rc);
	check_source(r, "%s", path);
	check_expect(r, "0");
	check_say(r, v ? CHECK_WARN : CHECK_PASS, "%lld", v);
}

void check_kernel_watchdog(struct check_ctx *c, struct check_result *r)
{
	long long nmi, soft;
	struct cpuset mask;
	int rc;

	check_source(r, "/proc/sys/kernel/nmi_watchdog, watchdog, watchdog_cpumask");
	check_expect(r, "nmi_watchdog 0; soft-lockup watchdog off on the measured CPUs");
	if ((rc = check_read_ll(c, "/proc/sys/kernel/nmi_watchdog", &nmi)))
		return check_unreadable(r, "/proc/sys/kernel/nmi_watchdog", rc);
	if ((rc = check_read_ll(c, "/proc/sys/kernel/watchdog", &soft)))
		return check_unreadable(r, "/proc/sys/kernel/watchdog", rc);
	if ((rc = check_read_cpulist(c, "/proc/sys/kernel/watchdog_cpumask", &mask)))
		return check_unreadable(r, "/proc/sys/kernel/watchdog_cpumask", rc);
	cpuset_and(&mask, &c->cpus);
	if (!soft)
		cpuset_clear(&mask);
	if (!nmi && cpuset_empty(&mask))
		return check_say(r, CHECK_PASS,
				 "nmi_watchdog %lld, watchdog %lld, not on measured "
				 "CPUs",
				 nmi, soft);
	if (nmi)
		cpuset_format(&c->cpus, r->cpus, sizeof(r->cpus));
	else
		check_set_cpus(r, &mask);
	check_say(r, CHECK_WARN, "nmi_watchdog %lld, watchdog %lld on %s", nmi, soft,
		  cpuset_empty(&mask) ? "no measured CPU" : "measured CPUs");
}

void check_kernel_clocksource(struct check_ctx *c, struct check_result *r)
{
	static const char *const good[] = { "tsc", "kvm-clock", "arch_sys_counter",
					    "hyperv_clocksource_tsc_page", "riscv_clocksource" };
	static const char *const slow[] = { "hpet", "acpi_pm", "jiffies", "pit",
					    "refined-jiffies" };
	const char *path = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
	char cur[64];
	int rc = check_read(c, path, cur, sizeof(cur));

	if (rc < 0)
		return check_unreadable(r, path, rc);
	check_source(r, "%s", path);
	check_expect(r, "tsc (or a paravirtual clock read in user space)");
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!strcmp(cur, good[i]))
			return check_say(r, CHECK_PASS, "%s", cur);
	for (size_t i = 0; i < sizeof(slow) / sizeof(slow[0]); i++)
		if (!strcmp(cur, slow[i]))
			return check_say(r, CHECK_FAIL, "%s", cur);
	check_say(r, CHECK_WARN, "%s", cur);
}

/* The first processor's block of /proc/cpuinfo holds what the checks need: 0, 1 when the
 * key is not there, -errno when the file is unreadable. */
static int cpuinfo_field(struct check_ctx *c, const char *key, char *buf, size_t len)
{
	char *text, *p;
	ssize_t n = check_read_alloc(c, "/proc/cpuinfo", 64 * 1024, &text);
	size_t kl = strlen(key);
	int rc = 1;

	if (n < 0)
		return (int)n;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (*p == '\n')
			break; /* the end of the first processor */
		if (strncmp(p, key, kl) || (p[kl] != ' ' && p[kl] != '\t' && p[kl] != ':'))
			continue;
		const char *v = strchr(p, ':');
		if (!v)
			continue;
		v += 1 + strspn(v + 1, " \t");
		snprintf(buf, len, "%.*s", (int)strcspn(v, "\n"), v);
		rc = 0;
		break;
	}
	free(text);
	return rc;
}

void check_kernel_virt(struct check_ctx *c, struct check_result *r)
{
	char flags[8192], type[64] = "", product[128] = "";
	int rc = cpuinfo_field(c, "flags", flags, sizeof(flags));
	bool guest = false;

	check_source(r, "/proc/cpuinfo (hypervisor flag), /sys/hypervisor/type, "
			"/sys/class/dmi/id/product_name");
	check_expect(r, "bare metal (a guest is measured with its host)");
	if (check_read(c, "/sys/hypervisor/type", type, sizeof(type)) >= 0 && type[0])
		guest = true;
	if (check_read(c, "/sys/class/dmi/id/product_name", product, sizeof(product)) < 0)
		product[0] = '\0';
	if (rc > 0 && !guest)
		return check_say(r, CHECK_UNKNOWN,
				 "no flags in /proc/cpuinfo (not x86): cannot tell");
	if (rc > 0) {
		flags[0] = '\0';
		rc = 0;
	}
	if (!rc) {
		for (char *s, *w = strtok_r(flags, " ", &s); w; w = strtok_r(NULL, " ", &s))
			guest |= !strcmp(w, "hypervisor");
	} else if (!guest) {
		return check_unreadable(r, "/proc/cpuinfo flags", rc);
	}
	if (!guest)
		return check_say(r, CHECK_PASS, "bare metal%s%s", product[0] ? ": " : "", product);
	check_say(r, CHECK_INFO, "a guest%s%s%s%s", type[0] ? " of " : "", type,
		  product[0] ? ": " : "", product);
}

void check_kernel_mitigations(struct check_ctx *c, struct check_result *r)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	char val[256], mit[160] = "", vuln[CHECK_TEXT_MAX] = "", arg[128];
	int nmit = 0, nvuln = 0, nna = 0;
	DIR *d = check_opendir(c, dir);
	struct dirent *de;

	if (!d)
		return check_unreadable(r, dir, errno);
	check_source(r, "%s, /proc/cmdline", dir);
	check_expect(r, "(a decision: listed only)");
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (check_readf(c, val, sizeof(val), "%s/%s", dir, de->d_name) < 0)
			continue;
		if (!strncmp(val, "Not affected", 12)) {
			nna++;
		} else if (!strncmp(val, "Vulnerable", 10) || strstr(val, "Vulnerable")) {
			size_t l = strlen(vuln);
			nvuln++;
			snprintf(vuln + l, sizeof(vuln) - l, "%s%s", l ? " " : "", de->d_name);
		} else {
			nmit++;
		}
	}
	closedir(d);
	if (check_cmdline(c, "mitigations", arg, sizeof(arg)))
		snprintf(arg, sizeof(arg), "default");
	snprintf(mit, sizeof(mit), "mitigations=%s", arg);
	check_say(r, CHECK_INFO, "%s; %d mitigated, %d (partly) vulnerable%s%s, %d not affected",
		  mit, nmit, nvuln, nvuln ? ": " : "", vuln, nna);
}

void check_kernel_microcode(struct check_ctx *c, struct check_result *r)
{
	char rev[64];
	int rc = cpuinfo_field(c, "microcode", rev, sizeof(rev));

	check_source(r, "/proc/cpuinfo (microcode)");
	check_expect(r, "(recorded only)");
	if (rc > 0)
		return check_say(r, CHECK_INFO, "not reported (a guest or not x86)");
	if (rc < 0)
		return check_unreadable(r, "/proc/cpuinfo", rc);
	check_say(r, CHECK_INFO, "revision %s", rev);
}
