// SPDX-License-Identifier: GPL-2.0-or-later
/* sysinfo: record the machine state that decides RT latency (preemption model, isolation, idle
 * states, frequency governors, ...) beside every result, because a latency number without the
 * tuning that produced it can be neither compared nor reproduced.
 *
 * Everything is read from sysfs and procfs; nothing is changed and nothing is mounted.  A value
 * this kernel does not expose is JSON null rather than an error, so snapshots from different
 * machines keep one shape for compare.  The only failure is running out of memory, which every
 * builder reports by returning NULL; that NULL travels up through put() to sysinfo_snapshot(). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "check.h"
#include "sha256.h"
#include "sysinfo.h"
#include "util.h"

#define SYSCPU "/sys/devices/system/cpu/"
/* Enough for any sysfs attribute (one page) and a long /proc/cmdline, yet a --record glob that
 * hits a big file cannot bloat the report. */
#define READ_MAX (64 * 1024)
/* Far above NR_CPUS (8192 at most), so only a corrupt cpulist can hit it. */
#define CPU_LIMIT 65536u

/* jansson's set_new already drops v when o is NULL and fails when v is NULL, so chained builders
 * need no checks of their own: one OOM anywhere makes the final finish() return NULL. */
static int put(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v);
}

static json_t *finish(json_t *o, int bad)
{
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A file we cannot read is a null value; only ENOMEM aborts the snapshot. */
static json_t *missing(int err)
{
	return err == ENOMEM ? NULL : json_null();
}

static size_t rtrim(const char *s, size_t len)
{
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	return len;
}

/* sysinfo's reader of sysfs/procfs (util_read_fd): at most READ_MAX bytes, NUL-terminated, caller frees.  Values
 * we store lose only the newline the kernel appends, so they read back exactly as `cat` shows
 * them; trim drops all trailing whitespace, for values we parse.  NULL with errno set. */
static char *read_file(const char *path, size_t *lenp, int trim)
{
	/* O_NONBLOCK: a --record glob may match something like /proc/kmsg that blocks forever. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char *buf;
	ssize_t r = util_read_fd(fd, 0, READ_MAX, true, &buf);
	size_t len;

	close(fd);
	if (r < 0) {
		errno = (int)-r;
		return NULL;
	}
	len = (size_t)r;
	if (trim)
		len = rtrim(buf, len);
	else if (len && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	char *small = realloc(buf, len + 1); /* hand back the room the reader grew */
	if (lenp)
		*lenp = len;
	return small ? small : buf;
}

__attribute__((format(printf, 3, 0))) static char *vreadf(size_t *lenp, int trim, const char *fmt,
							  va_list ap)
{
	char path[PATH_MAX];
	int n = vsnprintf(path, sizeof(path), fmt, ap);

	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return read_file(path, lenp, trim);
}

__attribute__((format(printf, 1, 2))) static char *readf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *s = vreadf(NULL, 1, fmt, ap);
	va_end(ap);
	return s;
}

__attribute__((format(printf, 1, 2))) static int is_dir(const char *fmt, ...)
{
	char path[PATH_MAX];
	struct stat st;
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < sizeof(path) && !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Firmware strings (DMI, CPUID) are not promised to be UTF-8 and jansson rejects invalid UTF-8:
 * util_json_stringn masks the bad bytes rather than lose the whole value.  NULL only when out of
 * memory. */
static json_t *str_json(const char *s, size_t len)
{
	return util_json_stringn(s, len);
}

__attribute__((format(printf, 1, 2))) static json_t *file_str(const char *fmt, ...)
{
	size_t len;
	va_list ap;

	va_start(ap, fmt);
	char *s = vreadf(&len, 0, fmt, ap);
	va_end(ap);
	if (!s)
		return missing(errno);
	json_t *v = str_json(s, len);
	free(s);
	return v;
}

__attribute__((format(printf, 1, 2))) static json_t *file_int(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	char *s = vreadf(NULL, 1, fmt, ap);
	va_end(ap);
	if (!s)
		return missing(errno);
	char *end;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	json_t *v = (end == s || *end || errno) ? json_null() : json_integer(n);
	free(s);
	return v;
}

/* THP and sched/preempt list every choice and mark the active one: "always [madvise] never". */
static json_t *selected(const char *path, char open, char close)
{
	char *s = readf("%s", path);
	if (!s)
		return missing(errno);
	char *b = strchr(s, open), *e = b ? strchr(b, close) : NULL;
	json_t *v = e ? str_json(b + 1, (size_t)(e - b - 1)) : json_null();
	free(s);
	return v;
}

/* Sysfs names CPU sets only as cpulists ("0-3,8"); we need them as arrays to walk per-CPU dirs. */
static int cpulist_parse(const char *s, unsigned **out, size_t *np)
{
	unsigned *v = NULL;
	size_t n = 0, cap = 0;

	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;
		if (end == s)
			goto inval;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a)
				goto inval;
		}
		if (b >= CPU_LIMIT)
			goto inval;
		for (; a <= b; a++) {
			if (n == cap) {
				unsigned *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));
				if (!nv) {
					free(v);
					errno = ENOMEM;
					return -1;
				}
				v = nv;
			}
			v[n++] = (unsigned)a;
		}
		s = end + (*end == ',');
		if (*end && *end != ',')
			goto inval;
	}
	*out = v;
	*np = n;
	return 0;
inval:
	free(v);
	errno = EINVAL;
	return -1;
}

/* The inverse, for a sorted array; "" for an empty set, like the kernel's own lists. */
static char *cpulist_format(const unsigned *v, size_t n)
{
	char *s = malloc(n * 24 + 1), *p = s;

	if (!s)
		return NULL;
	*p = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		p += sprintf(p, j > i ? "%s%u-%u" : "%s%u", i ? "," : "", v[i], v[j]);
		i = j + 1;
	}
	return s;
}

/* uname(2) shows PREEMPT, PREEMPT_RT or PREEMPT_DYNAMIC but says nothing for the
 * none/voluntary models; the kernel's config tells them apart when the distribution
 * installs it in /boot (Debian does). */
static const char *preempt_from_boot_config(const struct utsname *u)
{
	char path[sizeof(u->release) + 16], line[256];
	const char *model = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/boot/config-%s", u->release);
	if (!(f = fopen(path, "re")))
		return NULL;
	while (!model && fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "CONFIG_PREEMPT_NONE=y\n"))
			model = "none";
		else if (!strcmp(line, "CONFIG_PREEMPT_VOLUNTARY=y\n"))
			model = "voluntary";
	}
	fclose(f);
	return model;
}

static json_t *preempt_info(const struct utsname *u)
{
	const char *ver = u ? u->version : "", *model = NULL;
	size_t vl = strlen(ver);
	char *rt = readf("/sys/kernel/realtime");

	if (!rt && errno == ENOMEM)
		return NULL;
	if ((rt && !strcmp(rt, "1")) || strstr(ver, "PREEMPT_RT"))
		model = "rt";
	else if (strstr(ver, "PREEMPT_DYNAMIC"))
		model = "dynamic";
	else if (strstr(ver, "PREEMPT ") || (vl >= 7 && !strcmp(ver + vl - 7, "PREEMPT")))
		model = "full";
	else if (u)
		model = preempt_from_boot_config(u);
	free(rt);

	json_t *o = json_object();
	int bad = put(o, "model", model ? json_string(model) : json_null());
	/* The effective mode and where it came from, as the preempt.model check finds it:
	 * debugfs when readable (we never mount it), else the kernel log's last "Dynamic
	 * Preempt:", the command line, the build's default (check_kernel.c). */
	struct check_ctx c;
	char src[160] = "", why[256];
	const char *mode = NULL;
	if (!check_ctx_open(&c, NULL, NULL, NULL, 0, 0, why, sizeof(why))) {
		mode = check_kernel_preempt_mode(&c, src, sizeof(src), why, sizeof(why));
		check_ctx_close(&c);
	}
	bad |= put(o, "active", mode ? json_string(mode) : json_null());
	bad |= put(o, "source", mode ? json_string(src) : json_null());
	return finish(o, bad);
}

static json_t *kernel_info(struct utsname *u)
{
	json_t *o = json_object();
	int bad = 0;

	bad |= put(o, "sysname", u ? str_json(u->sysname, strlen(u->sysname)) : json_null());
	bad |= put(o, "release", u ? str_json(u->release, strlen(u->release)) : json_null());
	bad |= put(o, "version", u ? str_json(u->version, strlen(u->version)) : json_null());
	bad |= put(o, "machine", u ? str_json(u->machine, strlen(u->machine)) : json_null());
	return finish(o, bad);
}

/* The first CPU's value of a /proc/cpuinfo field ("model name",
 * "microcode"); null where it has none. */
static json_t *cpuinfo_field(const char *key)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	if (!f)
		return missing(errno);
	char *line = NULL, *p;
	size_t cap = 0, klen = strlen(key);
	json_t *v = json_null();

	errno = 0;
	while (getline(&line, &cap, f) >= 0) {
		if (!strncmp(line, key, klen) && strchr(" \t:", line[klen]) &&
		    (p = strchr(line, ':'))) {
			p += 1 + strspn(p + 1, " \t");
			v = str_json(p, rtrim(p, strlen(p)));
			break;
		}
	}
	if (json_is_null(v) && errno == ENOMEM)
		v = NULL;
	free(line);
	fclose(f);
	return v;
}

/* Which machine: firmware names, and the machine id as a hash (a report
 * travels; systemd asks that the id itself not be disclosed), so that two
 * reports of one machine can be told from two of different ones. */
static json_t *machine_info(void)
{
	json_t *o = json_object();
	char *id = readf("/etc/machine-id");
	int bad = !o;

	if (!o) {
		free(id);
		return NULL;
	}
	bad |= put(o, "dmi_vendor", file_str("/sys/class/dmi/id/sys_vendor"));
	bad |= put(o, "dmi_product", file_str("/sys/class/dmi/id/product_name"));
	if (id) {
		char salted[128], hex[65];
		uint8_t d[32];
		int n = snprintf(salted, sizeof(salted), "rtsoak machine id %s", id);
		sha256(salted, n > 0 && (size_t)n < sizeof(salted) ? (size_t)n : 0, d);
		for (unsigned k = 0; k < 32; k++)
			snprintf(hex + 2 * k, 3, "%02x", d[k]);
		bad |= put(o, "machine_id_sha256", json_string(hex));
		free(id);
	} else {
		bad |= put(o, "machine_id_sha256", missing(errno));
	}
	return finish(o, bad);
}

/* SMT: the kernel's control and whether it is active, and each online
 * CPU's thread siblings (a measured CPU's sibling shares its core). */
static json_t *smt_info(const unsigned *cpus, size_t ncpu)
{
	json_t *o = json_object(), *sib = json_object();
	int bad = !o || !sib;

	if (bad) {
		json_decref(o);
		json_decref(sib);
		return NULL;
	}
	bad |= put(o, "control", file_str(SYSCPU "smt/control"));
	bad |= put(o, "active", file_int(SYSCPU "smt/active"));
	for (size_t i = 0; i < ncpu; i++) {
		char key[16];
		snprintf(key, sizeof(key), "%u", cpus[i]);
		bad |=
		    put(sib, key, file_str(SYSCPU "cpu%u/topology/thread_siblings_list", cpus[i]));
	}
	bad |= put(o, "thread_siblings", sib);
	return finish(o, bad);
}

static json_t *cpus_info(void)
{
	json_t *o = json_object(), *nohz = file_str(SYSCPU "nohz_full");
	int bad = 0;

	/* CONFIG_NO_HZ_FULL kernels booted without nohz_full= print the unset mask as "(null)",
	 * padded to the number of CPUs ("  (null)" with 8: make check-vm's guest). */
	if (json_is_string(nohz) &&
	    !strcmp(json_string_value(nohz) + strspn(json_string_value(nohz), " "), "(null)"))
		bad |= json_string_set(nohz, "");
	bad |= put(o, "online", file_str(SYSCPU "online"));
	bad |= put(o, "possible", file_str(SYSCPU "possible"));
	bad |= put(o, "isolated", file_str(SYSCPU "isolated"));
	bad |= put(o, "nohz_full", nohz);
	return finish(o, bad);
}

static json_t *idle_states(const unsigned *cpus, size_t n)
{
	json_t *a = json_array();
	unsigned *dis = malloc((n ? n : 1) * sizeof(*dis));
	size_t first = 0;
	int bad = !a || !dis;

	while (first < n && !is_dir(SYSCPU "cpu%u/cpuidle", cpus[first]))
		first++;
	for (unsigned i = 0;
	     !bad && first < n && is_dir(SYSCPU "cpu%u/cpuidle/state%u", cpus[first], i); i++) {
		unsigned c0 = cpus[first];
		size_t nd = 0;
		for (size_t c = 0; c < n; c++) {
			char *d = readf(SYSCPU "cpu%u/cpuidle/state%u/disable", cpus[c], i);
			if (d && !strcmp(d, "1"))
				dis[nd++] = cpus[c];
			bad |= !d && errno == ENOMEM;
			free(d);
		}
		char *list = cpulist_format(dis, nd);
		json_t *s = json_object();
		bad |= put(s, "index", json_integer(i));
		bad |= put(s, "name", file_str(SYSCPU "cpu%u/cpuidle/state%u/name", c0, i));
		bad |= put(s, "desc", file_str(SYSCPU "cpu%u/cpuidle/state%u/desc", c0, i));
		bad |=
		    put(s, "latency_us", file_int(SYSCPU "cpu%u/cpuidle/state%u/latency", c0, i));
		bad |= put(s, "residency_us",
			   file_int(SYSCPU "cpu%u/cpuidle/state%u/residency", c0, i));
		bad |= put(s, "disabled_cpus", list ? json_string(list) : NULL);
		free(list);
		bad |= json_array_append_new(a, finish(s, bad));
	}
	free(dis);
	return finish(a, bad);
}

static json_t *cpuidle_info(const unsigned *cpus, size_t n)
{
	json_t *o = json_object(), *gov = file_str(SYSCPU "cpuidle/current_governor");
	int bad = 0;

	if (json_is_null(gov))
		gov = file_str(SYSCPU "cpuidle/current_governor_ro");
	bad |= put(o, "driver", file_str(SYSCPU "cpuidle/current_driver"));
	bad |= put(o, "governor", gov);
	bad |= put(o, "states", idle_states(cpus, n));
	return finish(o, bad);
}

static json_t *cpufreq_info(const unsigned *cpus, size_t n)
{
	if (!is_dir(SYSCPU "cpu0/cpufreq"))
		return json_null();
	json_t *o = json_object(), *gov = json_object(), *epp = json_object(),
	       *driver = json_null();
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		if (!is_dir(SYSCPU "cpu%u/cpufreq", cpus[i]))
			continue;
		if (json_is_null(driver))
			driver = file_str(SYSCPU "cpu%u/cpufreq/scaling_driver", cpus[i]);
		char key[16];
		snprintf(key, sizeof(key), "%u", cpus[i]);
		bad |= put(gov, key, file_str(SYSCPU "cpu%u/cpufreq/scaling_governor", cpus[i]));
		/* intel_pstate and amd-pstate in active mode: the energy/performance
		 * preference the hardware follows (null where there is none) */
		bad |= put(epp, key,
			   file_str(SYSCPU "cpu%u/cpufreq/energy_performance_preference", cpus[i]));
	}
	bad |= put(o, "driver", driver);
	bad |= put(o, "governor_by_cpu", gov);
	bad |= put(o, "epp_by_cpu", epp);
	/* boost: acpi-cpufreq's switch, else intel_pstate's no_turbo (inverted) */
	json_t *boost = file_int(SYSCPU "cpufreq/boost");
	if (json_is_null(boost)) {
		json_t *nt = file_int(SYSCPU "intel_pstate/no_turbo");
		json_decref(boost);
		boost = json_is_integer(nt) ? json_integer(!json_integer_value(nt)) : json_null();
		json_decref(nt);
	}
	bad |= put(o, "boost", boost);
	return finish(o, bad);
}

static json_t *hypervisor(void)
{
	json_t *v = file_str("/sys/hypervisor/type"); /* Xen dom0/domU say so here */

	if (!json_is_null(v))
		return v;
#if defined(__x86_64__) || defined(__i386__)
	static const char *const names[][2] = {
		{ "KVMKVMKVM", "kvm" },		{ "Microsoft Hv", "hyperv" },
		{ "VMwareVMware", "vmware" },	{ "XenVMMXenVMM", "xen" },
		{ "TCGTCGTCGTCG", "qemu-tcg" },
	};
	unsigned a, b, c, d;
	char id[13];

	/* Leaf 0x40000000 is only defined when the "running under a hypervisor" bit is set. */
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
		return json_null();
	__cpuid(0x40000000, a, b, c, d);
	memcpy(id, &b, 4);
	memcpy(id + 4, &c, 4);
	memcpy(id + 8, &d, 4);
	id[12] = '\0'; /* KVM pads its signature with NULs */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(id, names[i][0]))
			return json_string(names[i][1]);
	return str_json(id, rtrim(id, strlen(id))); /* "bhyve bhyve " */
#else
	return json_null();
#endif
}

static json_t *slub_cpu_partial(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	if (!d)
		return missing(errno);
	json_t *o = json_object();
	struct dirent *de;
	struct stat st;
	int bad = 0;

	while (!bad && (de = readdir(d))) {
		/* Merged caches appear once as a directory and again as symlinks to it. */
		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			continue;
		char *v = readf("/sys/kernel/slab/%s/cpu_partial", de->d_name);
		if (!v) {
			bad |= errno == ENOMEM;
			continue;
		}
		json_int_t seen = json_integer_value(json_object_get(o, v));
		bad |= put(o, v, json_integer(seen + 1));
		free(v);
	}
	closedir(d);
	return finish(o, bad);
}

json_t *sysinfo_snapshot(void)
{
	struct utsname uts, *u = uname(&uts) ? NULL : &uts;
	unsigned *cpus = NULL;
	size_t ncpu = 0;
	char *online = readf(SYSCPU "online");
	int bad = !online && errno == ENOMEM;

	/* Without a readable online list there are no per-CPU dirs to walk: leave ncpu at 0. */
	if (online && cpulist_parse(online, &cpus, &ncpu))
		bad |= errno == ENOMEM;
	free(online);

	json_t *s = json_object(), *o;
	char host[256];
	bad |=
	    put(s, "hostname",
		gethostname(host, sizeof(host)) ? json_null() : str_json(host, strnlen(host, 255)));
	bad |= put(s, "kernel", kernel_info(u));
	bad |= put(s, "preempt", preempt_info(u));
	bad |= put(s, "realtime", file_int("/sys/kernel/realtime"));
	bad |= put(s, "cmdline", file_str("/proc/cmdline"));
	bad |= put(s, "cpu_model", cpuinfo_field("model name"));
	bad |= put(s, "microcode", cpuinfo_field("microcode"));
	bad |= put(s, "machine", machine_info());
	bad |= put(s, "smt", smt_info(cpus, ncpu));
	bad |= put(s, "cpus", cpus_info());
	bad |= put(s, "numa_nodes", file_str("/sys/devices/system/node/online"));

	/* Fill each small object before attaching it: put() consumes it even when it fails. */
	o = json_object();
	bad |= put(o, "current",
		   file_str("/sys/devices/system/clocksource/clocksource0/current_clocksource"));
	/* The kernel ends this list with a space before the newline: trim it. */
	char *avail = readf("/sys/devices/system/clocksource/clocksource0/available_clocksource");
	bad |= put(o, "available", avail ? str_json(avail, strlen(avail)) : missing(errno));
	free(avail);
	bad |= put(s, "clocksource", o);

	bad |= put(s, "cpuidle", cpuidle_info(cpus, ncpu));
	bad |= put(s, "cpufreq", cpufreq_info(cpus, ncpu));

	o = json_object();
	bad |= put(o, "runtime_us", file_int("/proc/sys/kernel/sched_rt_runtime_us"));
	bad |= put(o, "period_us", file_int("/proc/sys/kernel/sched_rt_period_us"));
	bad |= put(s, "sched_rt", o);

	bad |= put(s, "timer_migration", file_int("/proc/sys/kernel/timer_migration"));

	o = json_object();
	bad |= put(o, "enabled", selected("/sys/kernel/mm/transparent_hugepage/enabled", '[', ']'));
	bad |= put(o, "defrag", selected("/sys/kernel/mm/transparent_hugepage/defrag", '[', ']'));
	bad |= put(s, "transparent_hugepage", o);

	o = json_object();
	bad |= put(o, "hypervisor", hypervisor());
	bad |= put(o, "product", file_str("/sys/class/dmi/id/product_name"));
	bad |= put(o, "vendor", file_str("/sys/class/dmi/id/sys_vendor"));
	bad |= put(s, "virtualization", o);

	bad |= put(s, "slub_cpu_partial", slub_cpu_partial());
	bad |= put(s, "recorded", json_object());
	free(cpus);
	return finish(s, bad);
}

__attribute__((format(printf, 3, 4))) static int reject(char *err, size_t errlen, const char *fmt,
							...)
{
	va_list ap;

	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int under_sys_or_proc(const char *p)
{
	return !strncmp(p, "/sys/", 5) || !strncmp(p, "/proc/", 6);
}

/* --record copies files into a report that is written 0644 and shared, but rtsoak reads them
 * as root.  Never recorded, a glob matching any of them is refused: other processes' private
 * state (environment, command line, memory and its layout, open files, kernel stack, syscall
 * registers) and the kernel's (memory, symbol and module addresses, keys; /proc/kmsg would
 * also steal the log from syslog).  rtsoak's own process counts as another: its environment
 * may hold secrets too, and its command line is in the report's config already.  Addresses
 * defeat ASLR: a process's stat holds its code, stack, brk and argument/environment bounds and
 * its instruction and stack pointers (zeroed for other users' readers, not for root: proc(5)),
 * wchan a kernel function, timers each timer's sigev_value pointer, and the socket tables
 * under net/ each socket's kernel address (%pK: real for root under kptr_restrict 1). */
static const char *const record_deny_pid[] = {
	"environ",    "cmdline", "mem",		"maps",	   "smaps", "smaps_rollup", "numa_maps",
	"pagemap",    "auxv",	 "stack",	"syscall", "fd",    "fdinfo",	    "map_files",
	"mountstats", "io",	 "personality", "stat",	   "wchan", "timers",	    NULL,
};
static const char *const record_deny_proc[] = {
	"kcore",     "kmsg",	      "kallsyms",   "modules",	   "keys",
	"key-users", "kpagecount",    "kpageflags", "kpagecgroup", "vmallocinfo",
	"iomem",     "sysrq-trigger", NULL,
};
/* /proc/net/X and /proc/PID/net/X (the same tables): each row a socket's kernel address. */
static const char *const record_deny_net[] = {
	"tcp",	     "tcp6",	    "udp",   "udp6",  "udplite", "udplite6", "raw",
	"raw6",	     "icmp",	    "icmp6", "unix",  "netlink", "packet",   "sctp",
	"ip_mr_vif", "ip_mr_cache", "igmp",  "igmp6", NULL,
};

/* The first path component of s is one of list (s ends there or at a '/'). */
static int first_is(const char *s, const char *const *list)
{
	size_t len = strcspn(s, "/");

	for (unsigned i = 0; list[i]; i++)
		if (strlen(list[i]) == len && !strncmp(s, list[i], len))
			return 1;
	return 0;
}

/* After "/proc/": a pid directory ("123", "self", "thread-self"), then optionally
 * "task/<tid>/"; returns what follows, or NULL when p is not in a pid directory. */
static const char *skip_pid_dir(const char *p)
{
	size_t n = strspn(p, "0123456789");

	if (!n && !strncmp(p, "self/", 5))
		n = 4;
	else if (!n && !strncmp(p, "thread-self/", 12))
		n = 11;
	if (!n || p[n] != '/')
		return NULL;
	p += n + 1;
	if (!strncmp(p, "task/", 5) && (n = strspn(p + 5, "0123456789")) && p[5 + n] == '/')
		p += 5 + n + 1;
	return p;
}

/* Whether path (as globbed, or resolved) is on the deny list. */
static int record_denied(const char *path)
{
	const char *rest;

	if (strncmp(path, "/proc/", 6))
		return 0;
	rest = skip_pid_dir(path + 6);
	if (!strncmp(rest ? rest : path + 6, "net/", 4))
		return first_is((rest ? rest : path + 6) + 4, record_deny_net);
	if (rest)
		return first_is(rest, record_deny_pid);
	return first_is(path + 6, record_deny_proc) && !strchr(path + 6, '/');
}

/* A file its owner (or group) may read and other users may not is private by the kernel's
 * own account (tcp_fastopen_key, stable_secret, DMI serial numbers): left out of the report.
 * A file nobody may read (drop_caches, 0200) is no secret; it is recorded as null, as before. */
static int record_private(const struct stat *st)
{
	return (st->st_mode & (S_IRUSR | S_IRGRP)) && !(st->st_mode & S_IROTH);
}

/* A file whose directory hides it from other users (/proc/tty/driver is 0500: its serial
 * holds every port's counters and modem lines) is private as much as a 0600 one: the first
 * directory of `real` (resolved) that others may not search, into dir with its mode; 0 when
 * every one of them lets them through.  Reports are always 0644, so such a file is never
 * recorded. */
static int record_hidden_dir(const char *real, char *dir, size_t len, unsigned *mode)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s", real);
	for (char *slash = strchr(p + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		int bad = stat(p, &st) < 0 || !(st.st_mode & S_IXOTH);
		if (bad) {
			snprintf(dir, len, "%s", p);
			*mode = st.st_mode & 07777;
		}
		*slash = '/';
		if (bad)
			return 1;
	}
	return 0;
}

/* A file with a NUL byte (sysfs binary attributes: /sys/kernel/notes, a PCI config space) is
 * not text: a JSON string may hold it (\u0000), but no reader takes one, so a report that
 * recorded it could never be read again.  Such a file is refused by the check, left out by the
 * recording (a glob may match it later).  An unreadable file is not binary: it is null. */
static bool record_binary(const char *path)
{
	size_t len;
	char *s = read_file(path, &len, 0);
	bool bin = s && memchr(s, '\0', len);

	free(s);
	return bin;
}

/* The expansion of one glob is bounded: sysfs is full of symlink cycles, and "/sys/" followed
 * by eight "*" components read for 37 s and took 2 GB before failing.  glob() has no limit of
 * its own, so it reads directories through these, which count the entries (one glob at a time:
 * on the command line, then on the session's main thread). */
static unsigned long glob_entries_left;
static int glob_over;

static void *glob_opendir(const char *name)
{
	if (glob_over) {
		errno = E2BIG;
		return NULL;
	}
	return opendir(name);
}

static void *glob_readdir(void *d)
{
	if (glob_over)
		return NULL;
	if (!glob_entries_left) {
		glob_over = 1;
		return NULL;
	}
	glob_entries_left--;
	return readdir(d);
}

static void glob_closedir(void *d)
{
	closedir(d);
}

/* glob's prototypes take void * for the struct stat. */
static int glob_stat(const char *restrict path, void *restrict st)
{
	return stat(path, st);
}

static int glob_lstat(const char *restrict path, void *restrict st)
{
	return lstat(path, st);
}

/* Stop at the first directory after the budget ran out; other errors (EACCES) skip that
 * directory as plain glob() does. */
static int glob_error(const char *path, int err)
{
	(void)path;
	(void)err;
	return glob_over;
}

/* glob() within the limits: 0, GLOB_NOMATCH, -E2BIG (a limit; *what says which) or -ENOMEM. */
static int record_glob(const char *pattern, glob_t *g, const char **what)
{
	int rc;

	memset(g, 0, sizeof(*g));
	g->gl_opendir = glob_opendir;
	g->gl_readdir = glob_readdir;
	g->gl_closedir = glob_closedir;
	g->gl_lstat = glob_lstat;
	g->gl_stat = glob_stat;
	glob_entries_left = SYSINFO_RECORD_MAX_ENTRIES;
	glob_over = 0;
	rc = glob(pattern, GLOB_ALTDIRFUNC, glob_error, g);
	if (glob_over || (!rc && g->gl_pathc > SYSINFO_RECORD_MAX_FILES)) {
		*what = glob_over ? "directory entries read" : "files matched";
		rc = -E2BIG;
	} else if (rc == GLOB_NOSPACE) {
		rc = -ENOMEM;
	} else if (rc) {
		rc = GLOB_NOMATCH; /* GLOB_ABORTED only comes from glob_over */
	}
	if (rc)
		globfree(g); /* safe after any error: g started zeroed */
	return rc;
}

int sysinfo_record_check(const char *pattern, char *err, size_t errlen)
{
	const char *what = "";
	char secret[PATH_MAX] = "";
	unsigned mode = 0;
	int files = 0, readable = 0, withheld = 0;

	if (!under_sys_or_proc(pattern))
		return reject(err, errlen, "'%s' is outside /sys and /proc", pattern);
	for (const char *p = pattern; (p = strstr(p, "..")); p += 2)
		if ((p[-1] == '/') && (p[2] == '/' || !p[2]))
			return reject(err, errlen, "'%s' contains '..'", pattern);

	glob_t g;
	int rc = record_glob(pattern, &g, &what);
	if (rc == -E2BIG)
		return reject(
		    err, errlen, "'%s' expands too far (more than %d %s; narrow the glob)", pattern,
		    *what == 'd' ? SYSINFO_RECORD_MAX_ENTRIES : SYSINFO_RECORD_MAX_FILES, what);
	if (rc == -ENOMEM)
		return reject(err, errlen, "out of memory expanding '%s'", pattern);
	if (rc)
		return reject(err, errlen, "'%s' matches no file", pattern);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char real[PATH_MAX];
		struct stat st;
		if (stat(g.gl_pathv[i], &st) || !S_ISREG(st.st_mode))
			continue;
		/* "/proc/self/root/etc/x" or a ".?" that globbed ".." would leave the tree. */
		if (!realpath(g.gl_pathv[i], real) || !under_sys_or_proc(real)) {
			rc = reject(err, errlen, "'%s' matches '%s', outside /sys and /proc",
				    pattern, g.gl_pathv[i]);
			break;
		}
		/* Both names: "/proc/self/fd/3" resolves to the file it has open. */
		if (record_denied(g.gl_pathv[i]) || record_denied(real)) {
			rc = reject(err, errlen,
				    "'%s'%s%s%s is private to a process or the kernel "
				    "(never recorded: see SAFETY in rtsoak(1))",
				    pattern, strcmp(pattern, g.gl_pathv[i]) ? " matches '" : "",
				    strcmp(pattern, g.gl_pathv[i]) ? g.gl_pathv[i] : "",
				    strcmp(pattern, g.gl_pathv[i]) ? "', which" : "");
			break;
		}
		if (!record_private(&st) && record_binary(g.gl_pathv[i])) {
			rc = reject(
			    err, errlen,
			    "'%s'%s%s%s holds binary data (a NUL byte): a report cannot carry it "
			    "(see SAFETY in rtsoak(1))",
			    pattern, strcmp(pattern, g.gl_pathv[i]) ? " matches '" : "",
			    strcmp(pattern, g.gl_pathv[i]) ? g.gl_pathv[i] : "",
			    strcmp(pattern, g.gl_pathv[i]) ? "', which" : "");
			break;
		}
		files++;
		if (record_private(&st)) {
			if (!withheld++) {
				snprintf(secret, sizeof(secret), "%s", g.gl_pathv[i]);
				mode = st.st_mode & 07777;
			}
			continue;
		}
		char dir[PATH_MAX];
		unsigned dmode = 0;
		if (record_hidden_dir(real, dir, sizeof(dir), &dmode)) {
			if (!withheld++) {
				snprintf(secret, sizeof(secret), "%s", dir);
				mode = dmode;
			}
			continue;
		}
		readable += !access(g.gl_pathv[i], R_OK);
	}
	if (rc) {
		globfree(&g);
		return rc;
	}
	if (!files)
		rc = reject(err, errlen, "'%s' matches no file", pattern);
	else if (withheld == files)
		rc = reject(err, errlen,
			    "'%s' matches only files other users may not read (%s is %04o): "
			    "the report is world-readable",
			    pattern, secret, mode);
	else if (!readable)
		rc = reject(err, errlen, "'%s' matches no readable file", pattern);
	else if (withheld && err && errlen)
		snprintf(err, errlen,
			 "'%s': %d file%s other users may not read left out (e.g. %s, %04o)",
			 pattern, withheld, withheld == 1 ? "" : "s", secret, mode);
	globfree(&g);
	return rc ? rc : withheld;
}

int sysinfo_record(json_t *system, char *const *globs, size_t nglobs)
{
	json_t *rec = json_object_get(system, "recorded");

	if (!json_is_object(system))
		return -EINVAL;
	if (!json_is_object(rec) && put(system, "recorded", rec = json_object()))
		return -ENOMEM;
	for (size_t i = 0; i < nglobs; i++) {
		const char *what;
		glob_t g;
		int rc = record_glob(globs[i], &g, &what);
		/* vanished since sysinfo_record_check(), or grown past the limit: not recorded */
		if (rc == GLOB_NOMATCH || rc == -E2BIG)
			continue;
		if (rc)
			return rc;
		for (size_t j = 0; !rc && j < g.gl_pathc; j++) {
			char real[PATH_MAX], dir[PATH_MAX];
			unsigned dmode;
			struct stat st;
			size_t len;
			/* The same filter as the check: a glob matches new pids and files. */
			if (stat(g.gl_pathv[j], &st) || !S_ISREG(st.st_mode) ||
			    !realpath(g.gl_pathv[j], real) || !under_sys_or_proc(real) ||
			    record_denied(g.gl_pathv[j]) || record_denied(real) ||
			    record_private(&st) ||
			    record_hidden_dir(real, dir, sizeof(dir), &dmode))
				continue;
			char *s = read_file(g.gl_pathv[j], &len, 0);
			if (s && memchr(s, '\0', len)) { /* binary: record_binary() */
				free(s);
				continue;
			}
			json_t *v = s ? str_json(s, len) : missing(errno);
			free(s);
			rc = put(rec, g.gl_pathv[j], v) ? -ENOMEM : 0;
		}
		globfree(&g);
		if (rc)
			return rc;
	}
	return 0;
}
