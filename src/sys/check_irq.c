// SPDX-License-Identifier: GPL-2.0-or-later
/* check_irq: device interrupts that may land on the measured CPUs: /proc/interrupts for the
 * names and the counts per CPU, /proc/irq/N/effective_affinity_list for where each goes now
 * (check.h). */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util.h"

#define INTERRUPTS_MAX (4 * 1024 * 1024)

struct irq_seen {
	long irq;
	unsigned long long here;
	char name[28], cpus[32];
};

static int by_count(const void *a, const void *b)
{
	const struct irq_seen *x = a, *y = b;

	return x->here < y->here   ? 1
	       : x->here > y->here ? -1
				   : (x->irq > y->irq) - (x->irq < y->irq);
}

/* Column i of /proc/interrupts is CPU cols[i] (the header names online CPUs only). */
static int header_cpus(const char *line, int *cols, int max)
{
	int n = 0;

	for (const char *p = line; (p = strstr(p, "CPU")) && n < max; p += 3)
		cols[n++] = atoi(p + 3);
	return n;
}

/* One device IRQ of /proc/interrupts: its count on the measured CPUs since
 * boot, its handlers' names, where it goes now. */
struct irq_line {
	long irq;
	unsigned long long here;
	const char *name;
	struct cpuset eff;
};

/* Each device IRQ in turn to fn (NMI, LOC and the other per-CPU rows are
 * not routable), or what fn returned other than 0; -errno when a file
 * cannot be read, path then naming it.  *ncols_out: the CPU columns seen. */
static int irq_walk(struct check_ctx *c, int (*fn)(const struct irq_line *, void *), void *arg,
		    char *path, size_t pathlen, int *ncols_out)
{
	static int cols[CPUSET_MAX];
	char *text, *line, *save;
	int ncols = 0, rc = 0;
	ssize_t n = check_read_alloc(c, "/proc/interrupts", INTERRUPTS_MAX, &text);

	snprintf(path, pathlen, "/proc/interrupts");
	if (n < 0)
		return (int)n;
	for (line = strtok_r(text, "\n", &save); line && !rc; line = strtok_r(NULL, "\n", &save)) {
		char *p = line + strspn(line, " "), *end;
		struct irq_line l = { 0 };
		if (!ncols) {
			ncols = header_cpus(line, cols, CPUSET_MAX);
			continue;
		}
		l.irq = strtol(p, &end, 10);
		if (end == p || *end != ':')
			continue;
		p = end + 1;
		for (int i = 0; i < ncols; i++) {
			unsigned long long v = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
			if (cpuset_has(&c->cpus, cols[i]))
				l.here += v;
		}
		/* chip, hardware IRQ, then the handlers' names */
		for (int f = 0; f < 2; f++) {
			p += strspn(p, " ");
			p += strcspn(p, " ");
		}
		p += strspn(p, " ");
		util_utf8_fix(p, strlen(p)); /* a device's name: any bytes */
		l.name = *p ? p : "?";
		snprintf(path, pathlen, "/proc/irq/%ld/effective_affinity_list", l.irq);
		rc = check_read_cpulist(c, path, &l.eff);
		if (rc == -ENOENT) {
			snprintf(path, pathlen, "/proc/irq/%ld/smp_affinity_list", l.irq);
			rc = check_read_cpulist(c, path, &l.eff);
		}
		if (!rc)
			rc = fn(&l, arg);
	}
	free(text);
	*ncols_out = ncols;
	return rc;
}

struct affinity_walk {
	struct check_ctx *c;
	struct cpuset bad;
	struct irq_seen *seen;
	int nirq, max;
};

static int affinity_one(const struct irq_line *l, void *arg)
{
	struct affinity_walk *w = arg;
	struct cpuset eff = l->eff;

	cpuset_and(&eff, &w->c->cpus);
	if (cpuset_empty(&eff))
		return 0;
	for (int cpu = cpuset_next(&eff, 0); cpu >= 0; cpu = cpuset_next(&eff, cpu + 1))
		cpuset_set(&w->bad, cpu);
	if (w->nirq < w->max) {
		struct irq_seen *q = &w->seen[w->nirq];
		q->irq = l->irq;
		q->here = l->here;
		snprintf(q->name, sizeof(q->name), "%s", l->name);
		util_utf8_fix(q->name, strlen(q->name)); /* cut inside a character */
		cpuset_format(&eff, q->cpus, sizeof(q->cpus));
	}
	w->nirq++;
	return 0;
}

void check_irq_affinity(struct check_ctx *c, struct check_result *r)
{
	static struct irq_seen seen[4096];
	char list[CHECK_TEXT_MAX] = "", path[256];
	struct affinity_walk w = { c, { { 0 } }, seen, 0, (int)(sizeof(seen) / sizeof(seen[0])) };
	int ncols = 0, listed = 0, rc;

	cpuset_clear(&w.bad);
	rc = irq_walk(c, affinity_one, &w, path, sizeof(path), &ncols);
	if (rc)
		return check_unreadable(r, path, rc);
	check_source(r, "/proc/interrupts, /proc/irq/N/effective_affinity_list");
	check_expect(r, "no device interrupt routed to a measured CPU");
	/* The busiest on the measured CPUs first: those are the ones that cost. */
	int kept = w.nirq < w.max ? w.nirq : w.max;
	qsort(seen, (size_t)kept, sizeof(seen[0]), by_count);
	for (int i = 0; i < kept && i < 8; i++, listed++) {
		size_t l = strlen(list);
		snprintf(list + l, sizeof(list) - l, "%s%ld %s on %s (%llu)", l ? ", " : "",
			 seen[i].irq, seen[i].name, seen[i].cpus, seen[i].here);
	}
	if (!ncols)
		return check_say(r, CHECK_UNKNOWN, "no CPU header in /proc/interrupts");
	if (!w.nirq)
		return check_say(r, CHECK_PASS, "no device interrupt routed to a measured CPU");
	check_set_cpus(r, &w.bad);
	check_say(r, CHECK_WARN, "%d IRQs routed to measured CPUs (count there since boot): %s%s",
		  w.nirq, list, listed < w.nirq ? ", ..." : "");
}

static int json_one(const struct irq_line *l, void *arg)
{
	char cpus[256];

	cpuset_format(&l->eff, cpus, sizeof(cpus));
	return json_array_append_new(arg, json_pack("{s:I, s:s, s:s, s:I}", "irq",
						    (json_int_t)l->irq, "name", l->name, "affinity",
						    cpus, "count_measured", (json_int_t)l->here))
		   ? -ENOMEM
		   : 0;
}

json_t *check_irq_json(struct check_ctx *c)
{
	json_t *a = json_array();
	char path[256];
	int ncols;

	if (a && irq_walk(c, json_one, a, path, sizeof(path), &ncols)) {
		json_decref(a);
		return NULL;
	}
	return a;
}

/* ---------------------------------------------------- after the run -- */

struct fired {
	const char *name;
	int cpu;
	json_int_t n;
};

static int by_fired(const void *a, const void *b)
{
	const struct fired *x = a, *y = b;

	return (x->n < y->n) - (x->n > y->n);
}

int check_irq_fired(json_t *checks, json_t *phases, const struct cpuset *cpus)
{
	json_t *c = NULL, *ph, *irqs, *counts, *x, *sum = json_object();
	struct fired *v = NULL;
	size_t i, k, n = 0, cap = 0;
	const char *name;

	if (!sum)
		return -ENOMEM;
	json_array_foreach (checks, i, x)
		if (!strcmp(json_string_value(json_object_get(x, "id")) ?: "", "irq.affinity"))
			c = x;
	if (!c) {
		json_decref(sum);
		return 0;
	}
	/* name -> [count per CPU], over every phase: numbered (device) IRQs
	 * only ("36 virtio1-req.0"); LOC, RES, CAL are the CPU's own. */
	json_array_foreach (phases, i, ph) {
		irqs = json_object_get(json_object_get(ph, "system"), "interrupts");
		json_object_foreach (irqs, name, counts) {
			if (!isdigit((unsigned char)name[0]))
				continue;
			json_t *acc = json_object_get(sum, name);
			if (!acc && json_object_set_new(sum, name, acc = json_array())) {
				json_decref(sum);
				return -ENOMEM;
			}
			json_array_foreach (counts, k, x) {
				json_int_t was = json_integer_value(json_array_get(acc, k));
				while (json_array_size(acc) <= k)
					if (util_json_push(acc, json_integer(0))) {
						json_decref(sum);
						return -ENOMEM;
					}
				json_array_set_new(acc, k,
						   json_integer(was + json_integer_value(x)));
			}
		}
	}
	json_object_foreach (sum, name, counts) {
		json_array_foreach (counts, k, x) {
			if (!json_integer_value(x) || !cpuset_has(cpus, (int)k))
				continue;
			if (n == cap) {
				struct fired *m = realloc(v, (cap = cap * 2 + 16) * sizeof(*v));
				if (!m) {
					free(v);
					json_decref(sum);
					return -ENOMEM;
				}
				v = m;
			}
			v[n++] = (struct fired){ name, (int)k, json_integer_value(x) };
		}
	}
	if (n) /* qsort of NULL, even of 0 elements, is undefined */
		qsort(v, n, sizeof(*v), by_fired);
	/* Idempotent: every checkpoint rebuilds the report; what the last one
	 * added goes first.  The status is the check's own unless this raised it. */
	char text[CHECK_TEXT_MAX * 2];
	const char *was = json_string_value(json_object_get(c, "observed")) ?: "";
	const char *mark = strstr(was, "; during the run ");
	int len = snprintf(text, sizeof(text), "%.*s; ",
			   (int)(mark ? (size_t)(mark - was) : strlen(was)), was);
	if (!n)
		len +=
		    snprintf(text + len, sizeof(text) - (size_t)len,
			     "during the run none fired on a measured CPU (phases' top sources)");
	else
		len += snprintf(text + len, sizeof(text) - (size_t)len,
				"during the run %zu fired on measured CPUs:", n);
	for (size_t j = 0; j < n && j < 6 && len < (int)sizeof(text); j++)
		len += snprintf(text + len, sizeof(text) - (size_t)len, "%s %s on %d (%lld)",
				j ? "," : "", v[j].name, v[j].cpu, (long long)v[j].n);
	if (n > 6 && len < (int)sizeof(text))
		snprintf(text + len, sizeof(text) - (size_t)len, ", ...");
	int rc = json_object_set_new(c, "observed", json_string(text)) ? -ENOMEM : 0;
	if (!rc && n && !strcmp(json_string_value(json_object_get(c, "status")) ?: "", "pass"))
		rc = json_object_set_new(c, "status", json_string("warn")) ? -ENOMEM : 0;
	free(v);
	json_decref(sum);
	return rc;
}
