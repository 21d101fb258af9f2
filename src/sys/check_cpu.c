// SPDX-License-Identifier: GPL-2.0-or-later
/* check_cpu: the checks of the measured CPUs themselves: isolation (isolcpus and cpuset
 * partitions, nohz_full, rcu_nocbs), SMT siblings, idle states, frequency, the workqueue mask
 * (check.h; every read goes through the root prefix). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SYSCPU "/sys/devices/system/cpu/"

/* The measured CPUs that are not in s. */
static struct cpuset outside(const struct check_ctx *c, const struct cpuset *s)
{
	struct cpuset o = c->cpus;

	cpuset_andnot(&o, s);
	return o;
}

static void fmt_set(const struct cpuset *s, char *buf, size_t len)
{
	cpuset_format(s, buf, len);
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* Isolated cgroup v2 cpuset partitions one level below the root (where tuned, systemd's
 * AllowedCPUs and OpenShift put them). */
static void add_partitions(struct check_ctx *c, struct cpuset *iso, char *src, size_t len)
{
	DIR *d = check_opendir(c, "/sys/fs/cgroup");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char part[64];
		struct cpuset eff;
		char path[384];
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		if (check_readf(c, part, sizeof(part), "/sys/fs/cgroup/%s/cpuset.cpus.partition",
				de->d_name) < 0 ||
		    strcmp(part, "isolated"))
			continue;
		snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/cpuset.cpus.effective", de->d_name);
		if (check_read_cpulist(c, path, &eff))
			continue;
		for (int cpu = cpuset_next(&eff, 0); cpu >= 0; cpu = cpuset_next(&eff, cpu + 1))
			cpuset_set(iso, cpu);
		size_t l = strlen(src);
		snprintf(src + l, len - l, ", %s", path);
	}
	closedir(d);
}

void check_cpu_isolcpus(struct check_ctx *c, struct check_result *r)
{
	const char *path = SYSCPU "isolated";
	struct cpuset iso, out;
	char have[128], miss[128];
	int rc = check_read_cpulist(c, path, &iso);

	if (rc)
		return check_unreadable(r, path, rc);
	check_source(r, "%s", path);
	add_partitions(c, &iso, r->source, sizeof(r->source));
	out = outside(c, &iso);
	fmt_set(&iso, have, sizeof(have));
	cpuset_format(&c->cpus, r->cpus, sizeof(r->cpus));
	check_expect(r, "measured CPUs %s isolated", r->cpus);
	if (cpuset_empty(&out))
		return check_say(r, CHECK_PASS, "isolated: %s", have);
	fmt_set(&out, miss, sizeof(miss));
	check_set_cpus(r, &out);
	check_say(r, CHECK_WARN, "isolated: %s; not isolated: %s", have, miss);
}

void check_cpu_nohz_full(struct check_ctx *c, struct check_result *r)
{
	const char *path = SYSCPU "nohz_full";
	struct cpuset nohz, out;
	char have[128], miss[128], v[16];
	int rc = check_read_cpulist(c, path, &nohz);

	cpuset_format(&c->cpus, r->cpus, sizeof(r->cpus));
	check_expect(r, "nohz_full covers %s", r->cpus);
	check_source(r, "%s", path);
	if (rc == -ENOENT && check_config(c, "NO_HZ_FULL", v, sizeof(v)) == -ENOENT) {
		check_source(r, "%s (absent), %s", path, c->config_src);
		return check_say(r, CHECK_WARN, "kernel built without NO_HZ_FULL");
	}
	if (rc)
		return check_unreadable(r, path, rc);
	out = outside(c, &nohz);
	fmt_set(&nohz, have, sizeof(have));
	if (cpuset_empty(&out))
		return check_say(r, CHECK_PASS, "nohz_full: %s", have);
	fmt_set(&out, miss, sizeof(miss));
	check_set_cpus(r, &out);
	check_say(r, CHECK_WARN, "nohz_full: %s; ticking: %s", have, miss);
}

void check_cpu_rcu_nocbs(struct check_ctx *c, struct check_result *r)
{
	struct cpuset nocb, out, more;
	char list[1024], have[128], miss[128], v[16];
	int rc = check_cmdline(c, "rcu_nocbs", list, sizeof(list));
	const char *from = "rcu_nocbs=";

	cpuset_format(&c->cpus, r->cpus, sizeof(r->cpus));
	check_expect(r, "RCU callbacks of %s offloaded", r->cpus);
	check_source(r, "/proc/cmdline");
	if (rc != 0 && rc != -ENOENT)
		return check_unreadable(r, "/proc/cmdline", rc);
	cpuset_clear(&nocb);
	/* A bare rcu_nocbs, or RCU_NOCB_CPU_DEFAULT_ALL, offloads every CPU. */
	if ((!rc && !list[0]) ||
	    (check_config(c, "RCU_NOCB_CPU_DEFAULT_ALL", v, sizeof(v)) == 0 && !strcmp(v, "y"))) {
		nocb = c->online;
		from = !rc && !list[0] ? "rcu_nocbs" : "RCU_NOCB_CPU_DEFAULT_ALL";
	} else if (!rc && cpuset_parse(&nocb, list, NULL, 0)) {
		return check_say(r, CHECK_UNKNOWN, "cannot parse rcu_nocbs=%s", list);
	}
	/* nohz_full= implies rcu_nocbs= for its CPUs. */
	if (check_cmdline(c, "nohz_full", list, sizeof(list)) == 0 &&
	    !cpuset_parse(&more, list, NULL, 0)) {
		for (int cpu = cpuset_next(&more, 0); cpu >= 0; cpu = cpuset_next(&more, cpu + 1))
			cpuset_set(&nocb, cpu);
		from = rc ? "nohz_full=" : "rcu_nocbs= and nohz_full=";
	}
	out = outside(c, &nocb);
	fmt_set(&nocb, have, sizeof(have));
	if (cpuset_empty(&out))
		return check_say(r, CHECK_PASS, "offloaded (%s): %s", from, have);
	fmt_set(&out, miss, sizeof(miss));
	check_set_cpus(r, &out);
	if (check_config(c, "RCU_NOCB_CPU", v, sizeof(v)) == -ENOENT) {
		check_source(r, "/proc/cmdline, %s", c->config_src);
		return check_say(r, CHECK_WARN, "kernel built without RCU_NOCB_CPU");
	}
	check_say(r, CHECK_WARN, "offloaded: %s; not offloaded: %s", have, miss);
}

void check_cpu_smt(struct check_ctx *c, struct check_result *r)
{
	struct cpuset iso, bad, lone;
	char path[128], active[16] = "?", sib[128], where[CHECK_TEXT_MAX] = "";
	int rc = check_read_cpulist(c, SYSCPU "isolated", &iso);

	if (rc)
		cpuset_clear(&iso);
	cpuset_clear(&bad);
	cpuset_clear(&lone);
	if (check_read(c, SYSCPU "smt/active", active, sizeof(active)) < 0)
		snprintf(active, sizeof(active), "?");
	check_source(r, SYSCPU "cpuN/topology/thread_siblings_list");
	check_expect(r, "every sibling measured or isolated");
	for (int cpu = cpuset_next(&c->cpus, 0); cpu >= 0; cpu = cpuset_next(&c->cpus, cpu + 1)) {
		struct cpuset s;
		snprintf(path, sizeof(path), SYSCPU "cpu%d/topology/thread_siblings_list", cpu);
		if ((rc = check_read_cpulist(c, path, &s)))
			return check_unreadable(r, path, rc);
		cpuset_andnot(&s, &c->cpus);
		cpuset_andnot(&s, &iso);
		if (cpuset_empty(&s))
			continue;
		cpuset_set(&bad, cpu);
		fmt_set(&s, sib, sizeof(sib));
		size_t l = strlen(where);
		snprintf(where + l, sizeof(where) - l, "%scpu %d: %s", l ? ", " : "", cpu, sib);
	}
	if (cpuset_empty(&bad))
		return check_say(r, CHECK_PASS, "smt active %s; no unmeasured, unisolated sibling",
				 active);
	check_set_cpus(r, &bad);
	check_say(r, CHECK_WARN, "smt active %s; siblings neither measured nor isolated: %s",
		  active, where);
}

/* /dev/cpu_dma_latency reads as the current CPU latency limit (s32, µs): the governors keep
 * out every state whose exit latency is above it.  Opening it adds a request with the
 * default value, which changes nothing.  -errno when unreadable. */
static long long qos_limit(struct check_ctx *c)
{
	char *buf;
	ssize_t n;

	if (c->live) {
		FILE *f = fopen("/dev/cpu_dma_latency", "rbe");
		int32_t v;
		if (!f)
			return -errno;
		n = (ssize_t)fread(&v, 1, sizeof(v), f);
		fclose(f);
		return n == sizeof(v) ? v : -EIO;
	}
	n = check_read_alloc(c, "/dev/cpu_dma_latency", 64, &buf);
	if (n < 0)
		return n;
	int32_t v = 0;
	if (n == sizeof(v))
		memcpy(&v, buf, sizeof(v));
	free(buf);
	return n == sizeof(v) ? v : -EINVAL;
}

void check_cpu_idle(struct check_ctx *c, struct check_result *r)
{
	char driver[64], path[160], name[32], dis[8], deep[CHECK_TEXT_MAX] = "";
	long long budget = (long long)(c->interval_ns / 10 / 1000), qos = qos_limit(c), lat;
	struct cpuset bad;
	int rc = check_read(c, SYSCPU "cpuidle/current_driver", driver, sizeof(driver));

	if (budget < 1)
		budget = 1;
	check_expect(r, "no enabled state with exit latency > %lld us (a tenth of the interval)",
		     budget);
	check_source(r, SYSCPU "cpuN/cpuidle, /dev/cpu_dma_latency");
	if (rc >= 0 && !strcmp(driver, "none"))
		return check_say(r, CHECK_INFO,
				 "no cpuidle driver: the architecture's default idle (HLT on "
				 "x86), exit latency not reported");
	if (rc < 0)
		return check_unreadable(r, SYSCPU "cpuidle/current_driver", rc);
	cpuset_clear(&bad);
	for (int cpu = cpuset_next(&c->cpus, 0); cpu >= 0; cpu = cpuset_next(&c->cpus, cpu + 1)) {
		for (int i = 0; i < 64; i++) {
			snprintf(path, sizeof(path), SYSCPU "cpu%d/cpuidle/state%d/latency", cpu,
				 i);
			if ((rc = check_read_ll(c, path, &lat)) == -ENOENT)
				break;
			if (rc)
				return check_unreadable(r, path, rc);
			snprintf(path, sizeof(path), SYSCPU "cpu%d/cpuidle/state%d/disable", cpu,
				 i);
			if ((rc = check_read(c, path, dis, sizeof(dis))) < 0)
				return check_unreadable(r, path, rc);
			if (lat <= budget || strcmp(dis, "0") || (qos >= 0 && lat > qos))
				continue;
			if (check_readf(c, name, sizeof(name), SYSCPU "cpu%d/cpuidle/state%d/name",
					cpu, i) < 0)
				snprintf(name, sizeof(name), "state%d", i);
			cpuset_set(&bad, cpu);
			size_t l = strlen(deep);
			snprintf(deep + l, sizeof(deep) - l, "%scpu %d %s %lld us", l ? ", " : "",
				 cpu, name, lat);
		}
	}
	char q[64];
	if (qos >= 0)
		snprintf(q, sizeof(q), "cpu_dma_latency %lld us", qos);
	else
		snprintf(q, sizeof(q), "cpu_dma_latency unreadable");
	if (cpuset_empty(&bad))
		return check_say(r, CHECK_PASS,
				 "driver %s; %s; no state above the budget can be "
				 "entered",
				 driver, q);
	check_set_cpus(r, &bad);
	check_say(r, CHECK_WARN, "driver %s; %s; enabled: %s", driver, q, deep);
}

void check_cpu_freq(struct check_ctx *c, struct check_result *r)
{
	char gov[32], epp[32], path[160], what[CHECK_TEXT_MAX] = "", boost[16];
	struct cpuset bad;
	int seen = 0, rc;

	cpuset_clear(&bad);
	check_expect(r, "governor performance (EPP performance)");
	check_source(r, SYSCPU "cpuN/cpufreq");
	for (int cpu = cpuset_next(&c->cpus, 0); cpu >= 0; cpu = cpuset_next(&c->cpus, cpu + 1)) {
		snprintf(path, sizeof(path), SYSCPU "cpu%d/cpufreq/scaling_governor", cpu);
		if ((rc = check_read(c, path, gov, sizeof(gov))) == -ENOENT) {
			/* No cpufreq directory says "no cpufreq" only in a CPU directory we see. */
			snprintf(path, sizeof(path), SYSCPU "cpu%d", cpu);
			DIR *d = check_opendir(c, path);
			if (!d)
				return check_unreadable(r, path, errno);
			closedir(d);
			continue;
		}
		if (rc < 0)
			return check_unreadable(r, path, rc);
		seen++;
		rc = check_readf(c, epp, sizeof(epp),
				 SYSCPU "cpu%d/cpufreq/energy_performance_preference", cpu);
		bool bad_epp = rc >= 0 && strcmp(epp, "performance");
		if (!strcmp(gov, "performance") && !bad_epp)
			continue;
		cpuset_set(&bad, cpu);
		size_t l = strlen(what);
		snprintf(what + l, sizeof(what) - l, "%scpu %d %s%s%s", l ? ", " : "", cpu, gov,
			 rc >= 0 ? " epp " : "", rc >= 0 ? epp : "");
	}
	if (!seen)
		return check_say(r, CHECK_INFO,
				 "no cpufreq on the measured CPUs (a fixed clock, "
				 "or the firmware or host decides)");
	char nt[16];
	if (check_read(c, SYSCPU "cpufreq/boost", boost, sizeof(boost)) < 0) {
		if (check_read(c, SYSCPU "intel_pstate/no_turbo", nt, sizeof(nt)) >= 0)
			snprintf(boost, sizeof(boost), "%s", strcmp(nt, "1") ? "1" : "0");
		else
			snprintf(boost, sizeof(boost), "?");
	}
	if (cpuset_empty(&bad))
		return check_say(r, CHECK_PASS, "performance on every measured CPU; boost %s",
				 boost);
	check_set_cpus(r, &bad);
	check_say(r, CHECK_WARN, "%s; boost %s", what, boost);
}

void check_cpu_workqueue(struct check_ctx *c, struct check_result *r)
{
	const char *path = "/sys/devices/virtual/workqueue/cpumask";
	struct cpuset mask, on;
	char have[128];
	int rc = check_read_mask(c, path, &mask);

	if (rc)
		return check_unreadable(r, path, rc);
	check_source(r, "%s", path);
	check_expect(r, "no measured CPU in the mask");
	on = c->cpus;
	cpuset_and(&on, &mask);
	fmt_set(&mask, have, sizeof(have));
	if (cpuset_empty(&on))
		return check_say(r, CHECK_PASS, "unbound workqueues on %s", have);
	check_set_cpus(r, &on);
	check_say(r, CHECK_WARN, "unbound workqueues on %s", have);
}
