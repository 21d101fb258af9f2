// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for a series' causes table (src/trace/attrib_agg.c): where the
 * timer IRQ came in for every spike of a cause (causes[].irq_at), counted
 * per kernel function, bounded per cause, written sorted.
 *
 * The spikes are made here (an attrib_result per spike, as attrib_analyse
 * leaves it); every expected count follows from the sequence fed in. */
#include <config.h>

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "attrib.h"
#include "attrib_agg.h"
#include "tap.h"

#define THR 100000ull

/* An attributed spike's result with nothing known yet: no split, no steal. */
static void result_ok(struct attrib_result *r)
{
	memset(r, 0, sizeof(*r));
	r->status = ATTRIB_OK;
	r->irq_ns = r->thread_ns = r->user_ns = r->steal_ns = r->steal_span_ns = UINT64_MAX;
}

/* One attributed spike of cause (kind) whose timer IRQ came in at. */
static void add(struct attrib_agg *a, const char *cause, enum attrib_kind kind, const char *at,
		uint64_t latency_ns)
{
	struct attrib_result r;

	result_ok(&r);
	snprintf(r.cause, sizeof(r.cause), "%s", cause);
	snprintf(r.irq_at, sizeof(r.irq_at), "%s", at);
	if (kind != AK_SILENT) {
		r.n = 1;
		r.c[0].kind = kind;
	}
	ok(attrib_agg_add(a, a->spikes * 1000000, latency_ns, THR, &r) == 0,
	   "add a spike of %s, irq_at \"%s\"", cause, at);
}

/* The causes[] entry of key in the series entry s. */
static json_t *cause_of(json_t *s, const char *key)
{
	json_t *c;
	size_t i;

	json_array_foreach (json_object_get(s, "causes"), i, c)
		if (!strcmp(json_string_value(json_object_get(c, "cause")), key))
			return c;
	return NULL;
}

/* c's irq_at and irq_at_other equal want (JSON text), exactly. */
static void check_at(json_t *c, const char *key, const char *want_at, json_int_t want_other)
{
	json_t *want = json_loads(want_at, 0, NULL);
	char *got = json_dumps(json_object_get(c, "irq_at"), JSON_COMPACT);

	ok(c && want && json_equal(json_object_get(c, "irq_at"), want), "%s: irq_at %s (got %s)",
	   key, want_at, got ? got : "none");
	ok(json_is_integer(json_object_get(c, "irq_at_other")) &&
	       json_integer_value(json_object_get(c, "irq_at_other")) == want_other,
	   "%s: irq_at_other %" JSON_INTEGER_FORMAT, key, want_other);
	free(got);
	json_decref(want);
}

/* A spike of a kworker that ran fn for fn_ns of ns, keyed as attrib_analyse
 * keys it ("work:FN"), at latency. */
static void add_work(struct attrib_agg *a, const char *comm, int32_t pid, const char *fn,
		     uint64_t fn_ns, uint64_t ns, uint64_t latency)
{
	struct attrib_result r;

	result_ok(&r);
	snprintf(r.cause, sizeof(r.cause), "work:%s", fn);
	r.n = 1;
	r.c[0] = (struct attrib_contrib){ .kind = AK_TASK,
					  .pid = pid,
					  .ns = ns,
					  .fn_kind = ATTRIB_FN_WORK,
					  .fn_ns = fn_ns,
					  .fn_more = ns - fn_ns };
	snprintf(r.c[0].name, sizeof(r.c[0].name), "%s", comm);
	snprintf(r.c[0].fn, sizeof(r.c[0].fn), "%s", fn);
	ok(attrib_agg_add(a, a->spikes * 1000000, latency, THR, &r) == 0,
	   "add a spike of %s running %s", comm, fn);
}

/* One work function on two kworkers is one cause (the key names the
 * function, not the kworker); each spike's contributor keeps its kworker
 * and what it ran, in the file. */
static void test_work(void)
{
	struct attrib_agg a;

	memset(&a, 0, sizeof(a));
	add_work(&a, "kworker/1:1", 40, "vmstat_update", 180000, 181000, THR + 90000);
	add_work(&a, "kworker/1:2", 77, "vmstat_update", 150000, 150000, THR + 60000);
	json_t *s = attrib_agg_json(&a, "timer", 1, "all", THR);
	json_t *c = cause_of(s, "work:vmstat_update");
	ok(s && c && json_array_size(json_object_get(s, "causes")) == 1 &&
	       json_integer_value(json_object_get(c, "spikes")) == 2 &&
	       !strcmp(json_string_value(json_object_get(c, "kind")), "task"),
	   "vmstat_update on kworker/1:1 and kworker/1:2: one cause of 2 spikes, kind task");
	json_t *want = json_loads("{\"name\": \"vmstat_update\", \"kind\": \"work\", "
				  "\"ns\": 180000, \"other_ns\": 1000}",
				  0, NULL);
	json_t *k = json_array_get(
	    json_object_get(json_array_get(json_object_get(s, "top"), 0), "contributors"), 0);
	ok(want && k && json_equal(json_object_get(k, "function"), want) &&
	       !strcmp(json_string_value(json_object_get(k, "name")), "kworker/1:1"),
	   "the worst spike's contributor: kworker/1:1 with its function {vmstat_update, work, "
	   "180000, 1000}");
	json_decref(want);
	ok(json_is_null(json_object_get(k, "irq_thread")), "a kworker is no threaded handler");
	json_decref(s);
	attrib_agg_free(&a);
}

/* A threaded IRQ handler's contributor: its IRQ, name and waker in the file. */
static void test_irq_thread(void)
{
	struct attrib_agg a;
	struct attrib_result r;

	memset(&a, 0, sizeof(a));
	result_ok(&r);
	snprintf(r.cause, sizeof(r.cause), "task:irq/27-virtio0- (FIFO 50)");
	r.n = 1;
	r.c[0] = (struct attrib_contrib){ .kind = AK_TASK,
					  .pid = 111,
					  .policy = 1,
					  .rt_priority = 50,
					  .ns = 11200,
					  .threaded = true,
					  .woke_known = true,
					  .irq = 27,
					  .woke = { .kind = AK_IRQ, .id = 27, .pid = -1 },
					  .woke_off_ns = -100 };
	snprintf(r.c[0].name, sizeof(r.c[0].name), "irq/27-virtio0-");
	snprintf(r.c[0].irq_name, sizeof(r.c[0].irq_name), "virtio0-requests");
	snprintf(r.c[0].woke.name, sizeof(r.c[0].woke.name), "virtio0-requests");
	ok(attrib_agg_add(&a, 0, THR + 1000, THR, &r) == 0, "add a threaded handler's spike");
	json_t *s = attrib_agg_json(&a, "timer", 0, "all", THR);
	json_t *k = json_array_get(
	    json_object_get(json_array_get(json_object_get(s, "top"), 0), "contributors"), 0);
	json_t *want = json_loads("{\"irq\": 27, \"name\": \"virtio0-requests\", \"woken_by\": "
				  "{\"kind\": \"irq\", \"name\": \"virtio0-requests\", \"id\": 27, "
				  "\"pid\": null, \"offset_ns\": -100}}",
				  0, NULL);
	ok(want && k && json_equal(json_object_get(k, "irq_thread"), want) &&
	       json_is_null(json_object_get(k, "function")),
	   "its irq_thread: IRQ 27, virtio0-requests, woken by its hard IRQ 100 ns before the "
	   "deadline; no function");
	json_decref(want);
	json_decref(s);
	attrib_agg_free(&a);
}

/* The other measured CPUs at a kept spike's deadline (top[].cpus): written
 * in the order given, each with known and its run queue as runnable is,
 * cpus_truncated; attrib_agg_keeps says which spikes would be kept. */
static void test_cpus(void)
{
	struct attrib_agg a;
	struct attrib_result r;

	memset(&a, 0, sizeof(a));
	result_ok(&r);
	snprintf(r.cause, sizeof(r.cause), "silent");
	r.ncpus = 2;
	r.cpus_more = true;
	r.cpus[0] =
	    (struct attrib_cpu_runq){ .cpu = 1, .known = true, .runq_more = true, .nrunq = 2 };
	r.cpus[0].runq[0] =
	    (struct attrib_task){ .pid = 310, .policy = 1, .rt_priority = 50, .running = true };
	snprintf(r.cpus[0].runq[0].name, sizeof(r.cpus[0].runq[0].name), "irq/45-nvme0q1");
	r.cpus[0].runq[1] = (struct attrib_task){ .pid = 301, .policy = 0, .rt_priority = -5 };
	snprintf(r.cpus[0].runq[1].name, sizeof(r.cpus[0].runq[1].name), "hog");
	r.cpus[1] = (struct attrib_cpu_runq){ .cpu = 3, .known = false };
	ok(attrib_agg_keeps(&a, THR + 1), "an empty series keeps any spike");
	ok(attrib_agg_add(&a, 0, THR + 1000, THR, &r) == 0, "add a spike with two other CPUs");
	json_t *s = attrib_agg_json(&a, "timer", 0, "all", THR);
	json_t *t = json_array_get(json_object_get(s, "top"), 0);
	json_t *want = json_loads(
	    "[{\"cpu\": 1, \"known\": true, \"runnable_truncated\": true, \"runnable\": ["
	    "{\"pid\": 310, \"name\": \"irq/45-nvme0q1\", \"policy\": \"FIFO\", \"priority\": 50, "
	    "\"running\": true}, {\"pid\": 301, \"name\": \"hog\", \"policy\": \"OTHER\", "
	    "\"priority\": -5, \"running\": false}]}, "
	    "{\"cpu\": 3, \"known\": false, \"runnable_truncated\": false, \"runnable\": []}]",
	    0, NULL);
	ok(want && t && json_equal(json_object_get(t, "cpus"), want) &&
	       json_is_true(json_object_get(t, "cpus_truncated")),
	   "top[].cpus: CPU 1 known (irq/45 on it, hog waiting, truncated), CPU 3 not known; "
	   "cpus_truncated");
	json_decref(want);
	json_decref(s);
	/* full: only a spike above the 16th largest is kept */
	for (unsigned i = 1; i < ATTRIB_AGG_TOP; i++)
		(void)attrib_agg_add(&a, i, THR + 1000 + i, THR, &r);
	ok(a.ntop == ATTRIB_AGG_TOP && !attrib_agg_keeps(&a, THR + 1000) &&
	       attrib_agg_keeps(&a, THR + 1001),
	   "a full series keeps only a spike above its smallest kept (%u kept)", a.ntop);
	attrib_agg_free(&a);
}

int main(void)
{
	struct attrib_agg a;
	static char fn[10][16];

	memset(&a, 0, sizeof(a));
	/* silent: 12 in the IRQs-off hold, 3 in __slab_free, 2 in kfree; 3
	 * that name no kernel function (no stack, user space, an entry the
	 * stack did not show): not counted, as the verdict does not say them. */
	for (int i = 0; i < 12; i++)
		add(&a, "silent", AK_SILENT, "rtsoak_irqoff_hold", THR + 200000);
	add(&a, "silent", AK_SILENT, "", THR + 200000);
	add(&a, "silent", AK_SILENT, "user", THR + 200000);
	add(&a, "silent", AK_SILENT, "?", THR + 200000);
	for (int i = 0; i < 3; i++) {
		if (i < 2)
			add(&a, "silent", AK_SILENT, "kfree", THR + 200000);
		add(&a, "silent", AK_SILENT, "__slab_free", THR + 200000);
	}
	/* a task: 10 functions, f<i> seen i + 1 times, interleaved (round r
	 * adds every f<i> with i >= r): the first 8 seen (f0 .. f7) are kept
	 * exactly, f8 (9) and f9 (10) go to irq_at_other: 19 */
	for (int i = 0; i < 10; i++)
		snprintf(fn[i], sizeof(fn[i]), "f%d", i);
	for (int r = 0; r < 10; r++)
		for (int i = r; i < 10; i++)
			add(&a, "task:t (FIFO 99)", AK_TASK, fn[i], THR + 10000);
	/* an IRQ whose spikes name no function: an empty tally */
	add(&a, "irq:eth0", AK_IRQ, "user", THR + 5000);
	add(&a, "irq:eth0", AK_IRQ, "", THR + 5000);
	/* ties: most spikes first, then by name, whatever the order seen */
	for (int i = 0; i < 2; i++)
		add(&a, "softirq:NET_RX", AK_SOFTIRQ, "zz_late", THR + 1000);
	for (int i = 0; i < 2; i++)
		add(&a, "softirq:NET_RX", AK_SOFTIRQ, "aa_early", THR + 1000);
	add(&a, "softirq:NET_RX", AK_SOFTIRQ, "mm_one", THR + 1000);
	/* a spike not attributed: no cause, so nothing counted */
	{
		struct attrib_result r;
		memset(&r, 0, sizeof(r));
		r.status = ATTRIB_LOST;
		snprintf(r.irq_at, sizeof(r.irq_at), "rtsoak_irqoff_hold");
		ok(attrib_agg_add(&a, 999000000, THR + 300000, THR, &r) == 0,
		   "add a spike whose events were lost");
	}

	json_t *s = attrib_agg_json(&a, "timer", 0, "all", THR);
	ok(s != NULL, "the series entry is made");
	ok(json_integer_value(json_object_get(s, "attributed")) == 20 + 55 + 2 + 5 &&
	       json_integer_value(json_object_get(s, "spikes")) == 20 + 55 + 2 + 5 + 1,
	   "82 attributed of 83 spikes");
	check_at(cause_of(s, "silent"), "silent",
		 "[{\"function\": \"rtsoak_irqoff_hold\", \"spikes\": 12},"
		 " {\"function\": \"__slab_free\", \"spikes\": 3},"
		 " {\"function\": \"kfree\", \"spikes\": 2}]",
		 0);
	check_at(cause_of(s, "task:t (FIFO 99)"), "task (overflow)",
		 "[{\"function\": \"f7\", \"spikes\": 8}, {\"function\": \"f6\", \"spikes\": 7},"
		 " {\"function\": \"f5\", \"spikes\": 6}, {\"function\": \"f4\", \"spikes\": 5},"
		 " {\"function\": \"f3\", \"spikes\": 4}, {\"function\": \"f2\", \"spikes\": 3},"
		 " {\"function\": \"f1\", \"spikes\": 2}, {\"function\": \"f0\", \"spikes\": 1}]",
		 19);
	check_at(cause_of(s, "irq:eth0"), "irq (none)", "[]", 0);
	check_at(cause_of(s, "softirq:NET_RX"), "softirq (ties by name)",
		 "[{\"function\": \"aa_early\", \"spikes\": 2},"
		 " {\"function\": \"zz_late\", \"spikes\": 2},"
		 " {\"function\": \"mm_one\", \"spikes\": 1}]",
		 0);
	ok(ATTRIB_AGG_IRQ_AT == 8 && a.ncause == 4 && a.cause[1].nat == ATTRIB_AGG_IRQ_AT,
	   "the table keeps 8 functions a cause, no more");
	json_decref(s);
	attrib_agg_free(&a);
	test_work();
	test_irq_thread();
	test_cpus();
	printf("1..%d\n", tap_n);
	return tap_done();
}
