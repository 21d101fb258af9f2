// SPDX-License-Identifier: GPL-2.0-or-later
/* sysdelta: read /proc and sysfs counters and sum their differences. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysdelta.h"
#include "util.h"

/* /proc/interrupts and /proc/softirqs share a layout: a header of CPUn
 * names, then "NAME: count count ... [description]". */
static json_t *read_per_cpu_table(const char *path, bool describe)
{
	FILE *f = fopen(path, "re");
	json_t *out = json_object();
	int cpus[4096], ncpu = 0;
	char *line = NULL;
	size_t cap = 0;
	bool bad = false;

	if (!f || !out) {
		if (f)
			fclose(f);
		json_decref(out);
		return NULL;
	}
	if (getline(&line, &cap, f) > 0)
		for (char *p = line; (p = strstr(p, "CPU")) && ncpu < 4096; p += 3)
			cpus[ncpu++] = atoi(p + 3);
	int maxcpu = ncpu ? cpus[ncpu - 1] : -1;
	while (getline(&line, &cap, f) > 0) {
		char *p = line, *colon = strchr(line, ':'), *end;
		while (isspace((unsigned char)*p))
			p++;
		if (!colon)
			continue;
		*colon = '\0';
		char name[96];
		snprintf(name, sizeof(name), "%s", p);
		json_t *arr = json_array();
		p = colon + 1;
		int k = 0;
		for (int c = 0; c <= maxcpu; c++)
			json_array_append_new(arr, json_integer(0));
		for (; k < ncpu; k++) {
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p)
				break;
			json_array_set_new(arr, (size_t)cpus[k], json_integer((json_int_t)v));
			p = end;
		}
		if (k == 0) { /* ERR:, MIS: have one global number: not per CPU */
			json_decref(arr);
			continue;
		}
		/* Numbered IRQs are named by their action ("24 eth0-rx"), which
		 * is what a tuner recognises; named ones (LOC, RES) as they are. */
		if (describe && isdigit((unsigned char)name[0])) {
			char *desc = end, *last = NULL;
			for (char *tok = strtok(desc, " \t\n"); tok; tok = strtok(NULL, " \t\n"))
				last = tok;
			if (last) {
				size_t l = strlen(name);
				snprintf(name + l, sizeof(name) - l, " %s", last);
			}
		}
		/* an action is a driver's or a device's name (any bytes); the
		 * line may also have been cut inside a character */
		util_utf8_fix(name, strlen(name));
		if (util_json_set(out, name, arr))
			bad = true;
	}
	free(line);
	fclose(f);
	if (bad) { /* a row missing would be a count silently lost */
		json_decref(out);
		return NULL;
	}
	return out;
}

static json_t *read_cpu_time(json_t **ctxt)
{
	static const char *const fields[] = { "user",	"nice", "system",  "idle",
					      "iowait", "irq",	"softirq", "steal" };
	const unsigned wanted[] = { 3, 5, 6, 7 }; /* idle, irq, softirq, steal */
	FILE *f = fopen("/proc/stat", "re");
	json_t *out = json_object();
	long hz = sysconf(_SC_CLK_TCK);
	char line[512];

	if (!f || !out || hz <= 0) {
		if (f)
			fclose(f);
		json_decref(out);
		return NULL;
	}
	for (unsigned w = 0; w < 4; w++)
		json_object_set_new(out, fields[wanted[w]], json_array());
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = { 0 };
		int cpu;
		/* "cpuN ..." only: the first line ("cpu  ...") is the sum. */
		if (isdigit((unsigned char)line[3]) &&
		    sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 9) {
			for (unsigned w = 0; w < 4; w++) {
				json_t *arr = json_object_get(out, fields[wanted[w]]);
				while ((int)json_array_size(arr) < cpu + 1)
					json_array_append_new(arr, json_integer(0));
				json_array_set_new(
				    arr, (size_t)cpu,
				    json_integer(
					(json_int_t)(v[wanted[w]] *
						     (NSEC_PER_SEC / (unsigned long long)hz))));
			}
		} else if (!strncmp(line, "ctxt ", 5)) {
			*ctxt = json_integer((json_int_t)strtoull(line + 5, NULL, 10));
		}
	}
	fclose(f);
	return out;
}

static json_t *read_cpuidle(void)
{
	json_t *out = json_object();
	char path[256], buf[64];

	for (int cpu = 0; cpu < 4096; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
		if (access(path, F_OK))
			break;
		for (int st = 0; st < 32; st++) {
			char name[64];
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", cpu, st);
			if (util_read_file(path, name, sizeof(name)) < 0)
				break;
			util_utf8_fix(name, strlen(name)); /* a driver's name, a key */
			json_t *s = json_object_get(out, name);
			if (!s) {
				s = json_pack("{s:[], s:[]}", "usage", "time_us");
				json_object_set_new(out, name, s);
			}
			static const char *const keys[] = { "usage", "time_us" };
			static const char *const files[] = { "usage", "time" };
			for (int k = 0; k < 2; k++) {
				json_t *arr = json_object_get(s, keys[k]);
				snprintf(path, sizeof(path),
					 "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/%s", cpu,
					 st, files[k]);
				long long v =
				    util_read_file(path, buf, sizeof(buf)) > 0 ? atoll(buf) : 0;
				while ((int)json_array_size(arr) < cpu + 1)
					json_array_append_new(arr, json_integer(0));
				json_array_set_new(arr, (size_t)cpu, json_integer(v));
			}
		}
	}
	return out;
}

json_t *sysdelta_read(void)
{
	json_t *o = json_object(), *ctxt = NULL, *v;

	int bad = 0;

	if (!o)
		return NULL;
	/* a table that cannot be read is left out; one read that cannot be
	 * kept (out of memory) fails the snapshot */
	if ((v = read_per_cpu_table("/proc/interrupts", true)))
		bad |= util_json_set(o, "interrupts", v);
	if ((v = read_per_cpu_table("/proc/softirqs", false)))
		bad |= util_json_set(o, "softirqs", v);
	if ((v = read_cpu_time(&ctxt)))
		bad |= util_json_set(o, "cpu_time_ns", v);
	if ((v = read_cpuidle()))
		bad |= util_json_set(o, "cpuidle", v);
	if (ctxt)
		bad |= util_json_set(o, "context_switches", ctxt);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_int_t diff(const json_t *before, const json_t *after)
{
	json_int_t b = json_is_integer(before) ? json_integer_value(before) : 0;
	json_int_t a = json_integer_value(after);

	return a > b ? a - b : 0; /* counters only grow; a reset is not negative work */
}

int sysdelta_accumulate(json_t *acc, const json_t *before, const json_t *after)
{
	const char *key;
	json_t *a;

	json_object_foreach ((json_t *)after, key, a) {
		const json_t *b = before ? json_object_get(before, key) : NULL;
		json_t *c = json_object_get(acc, key);
		if (json_is_object(a)) {
			if (!c && util_json_set(acc, key, c = json_object()))
				return -ENOMEM;
			if (sysdelta_accumulate(c, b, a))
				return -ENOMEM;
		} else if (json_is_array(a)) {
			if (!c && util_json_set(acc, key, c = json_array()))
				return -ENOMEM;
			for (size_t i = 0; i < json_array_size(a); i++) {
				json_int_t d = diff(json_array_get(b, i), json_array_get(a, i));
				if (i >= json_array_size(c) && util_json_push(c, json_integer(0)))
					return -ENOMEM;
				json_int_t cur = json_integer_value(json_array_get(c, i));
				if (json_array_set_new(c, i, json_integer(cur + d)))
					return -ENOMEM;
			}
		} else if (json_is_integer(a)) {
			json_int_t cur = c ? json_integer_value(c) : 0;
			if (util_json_set(acc, key, json_integer(cur + diff(b, a))))
				return -ENOMEM;
		}
	}
	return 0;
}

static json_int_t array_sum(const json_t *arr)
{
	json_int_t s = 0;
	size_t i;
	json_t *v;

	json_array_foreach (arr, i, v)
		s += json_integer_value(v);
	return s;
}

json_t *sysdelta_summary(const json_t *acc, unsigned top)
{
	json_t *out = json_deep_copy(acc), *irqs = json_object_get(acc, "interrupts");

	if (!out || !irqs)
		return out;
	/* Keep the `top` sources by total count, in descending order. */
	json_t *kept = json_object(), *other = NULL;
	const char *key;
	json_t *v;
	for (unsigned k = 0; k < top; k++) {
		const char *best = NULL;
		json_int_t best_n = 0;
		json_object_foreach (irqs, key, v) {
			json_int_t n = array_sum(v);
			if (n > best_n && !json_object_get(kept, key)) {
				best = key;
				best_n = n;
			}
		}
		if (!best)
			break;
		json_object_set(kept, best, json_object_get(irqs, best));
	}
	json_object_foreach (irqs, key, v) {
		if (json_object_get(kept, key))
			continue;
		if (!other) {
			other = json_deep_copy(v);
			continue;
		}
		for (size_t i = 0; i < json_array_size(v) && i < json_array_size(other); i++)
			json_array_set_new(
			    other, i,
			    json_integer(json_integer_value(json_array_get(other, i)) +
					 json_integer_value(json_array_get(v, i))));
	}
	if (other)
		json_object_set_new(kept, "other", other);
	json_object_set_new(out, "interrupts", kept);
	return out;
}
