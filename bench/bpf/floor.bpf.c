// SPDX-License-Identifier: GPL-2.0-or-later
/* floor.bpf.c: the BPF programs of bench/lab-bpf-floor.sh, which measures
 * in the lab what a flight recorder built on BPF would cost the timer
 * probe's wake-up (issue 31), before anyone builds one.
 *
 * Four modes (the loader's second argument):
 *  0 "dispatch": every program returns at once: the cost of a tracepoint
 *    with a BPF program attached, the floor of any BPF design;
 *  1 "record": every event written to a ring buffer, as the tracefs
 *    instance records it today;
 *  2 "gated": the design issue 31 suggests (rtla's timerlat.bpf.c does the
 *    same for its samples): the probe's own routine events (its timer
 *    interrupt, its idle exit, its waking, its switch-in) leave timestamps
 *    in per-CPU slots and nothing in the ring; at its switch-in, a wake-up
 *    later than LATE_NS after the deadline (taken at hrtimer_start, after
 *    the probe's sample, off its path) writes one record with those
 *    timestamps; every other task's waking and switch is recorded whole.
 *
 * The probe is recognised by its SCHED_FIFO priority (rtsoak's default,
 * 95): a bench, not the product. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile int mode = 0;
const volatile unsigned int probe_rtprio = 95;
const volatile __u64 late_ns = 20000;

struct rec {
	__u64 ts;
	__u32 type;
	__u32 cpu;
	__u32 a;
	__u32 b;
	__u64 t1, t2, t3;
};

struct slot {
	__u64 deadline;
	__u64 timer_ts;
	__u64 idle_ts;
	__u64 waking_ts;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} rb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct slot);
} slots SEC(".maps");

static __always_inline int emit(__u32 type, __u32 a, __u32 b, __u64 t1, __u64 t2, __u64 t3)
{
	struct rec *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);

	if (!r)
		return 0;
	r->ts = bpf_ktime_get_ns();
	r->type = type;
	r->cpu = bpf_get_smp_processor_id();
	r->a = a;
	r->b = b;
	r->t1 = t1;
	r->t2 = t2;
	r->t3 = t3;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

static __always_inline struct slot *slot(void)
{
	__u32 k = 0;

	return bpf_map_lookup_elem(&slots, &k);
}

static __always_inline bool is_probe(struct task_struct *p)
{
	return p->policy == 1 && p->rt_priority == probe_rtprio;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(sw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct slot *s;

	if (mode == 0)
		return 0;
	if (mode == 1)
		return emit(1, prev->pid, next->pid, 0, 0, 0);
	if (is_probe(prev))
		return 0;
	if (!is_probe(next))
		return emit(1, prev->pid, next->pid, 0, 0, 0);
	s = slot();
	if (!s || !s->deadline)
		return 0;
	if (bpf_ktime_get_ns() - s->deadline < late_ns)
		return 0;
	return emit(9, prev->pid, next->pid, s->timer_ts, s->idle_ts, s->waking_ts);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(wk, struct task_struct *p)
{
	struct slot *s;

	if (mode == 0)
		return 0;
	if (mode == 1 || !is_probe(p))
		return emit(2, p->pid, 0, 0, 0, 0);
	if (mode == 3)
		return 0;
	s = slot();
	if (s)
		s->waking_ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/local_timer_entry")
int BPF_PROG(lte, int vector)
{
	struct slot *s;

	if (mode == 0)
		return 0;
	if (mode == 1)
		return emit(3, vector, 0, 0, 0, 0);
	s = slot();
	if (s)
		s->timer_ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/local_timer_exit")
int BPF_PROG(ltx, int vector)
{
	if (mode == 1)
		return emit(4, vector, 0, 0, 0, 0);
	return 0;
}

SEC("tp_btf/cpu_idle")
int BPF_PROG(ci, unsigned int state, unsigned int cpu)
{
	struct slot *s;

	if (mode == 0)
		return 0;
	if (mode == 1)
		return emit(5, state, cpu, 0, 0, 0);
	/* lean: the exit is on the probe's path, the entry is not */
	if (mode == 3 && state == (unsigned int)-1)
		return 0;
	s = slot();
	if (s)
		s->idle_ts = bpf_ktime_get_ns();
	return 0;
}

/* Off the probe's path: it starts its timer after its sample. */
SEC("tp_btf/hrtimer_start")
int BPF_PROG(hs, struct hrtimer *t, enum hrtimer_mode m)
{
	struct slot *s;

	if (mode < 2 || !is_probe(bpf_get_current_task_btf()))
		return 0;
	s = slot();
	if (s)
		s->deadline = t->node.expires;
	return 0;
}
