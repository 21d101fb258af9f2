// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtsoak_irqoff: injected ground truth for the lab (tests/lab/, docs/LAB.md).
 *
 * A kernel thread per online CPU ("rtsoak_irqoff/N", SCHED_FIFO 1) wakes
 * every period_us on its CPU and busy-waits hold_us in rtsoak_irqoff_hold()
 * with, by mode:
 *   irq      local interrupts off (local_irq_save): a timer that expires
 *            meanwhile is handled when the hold ends, as IRQ latency;
 *   preempt  preemption off (preempt_disable): the timer fires on time but
 *            the woken thread waits for the hold, as thread latency;
 *   softirq  the wait inside a tasklet (HI_SOFTIRQ) that the thread raises:
 *            on PREEMPT_RT it runs in a preemptible thread, elsewhere in
 *            softirq context;
 *   work     the thread queues a work item on its CPU (queue_work_on, the
 *            system workqueue): a kworker runs rtsoak_irqoff_work, which
 *            holds preemption off, so that a kworker delays a real-time
 *            task as vmstat_update and the like do;
 *   timer    the thread arms a timer_list for the next jiffy on its CPU:
 *            its callback rtsoak_irqoff_timer_fn runs in the TIMER softirq
 *            and holds preemption off.  On PREEMPT_RT the softirq runs in a
 *            thread (ktimers/N) that a real-time task would preempt: the
 *            hold keeps it from that, as a callback under a raw spinlock
 *            does (the softirq mode shows the preemptible case); elsewhere
 *            softirq context is not preemptible anyway.  A jiffy-aligned
 *            start: the holds meet a probe whose interval is no divisor of
 *            the tick's (docs/LAB.md).
 * The interrupts/preemption are switched off and on inside rtsoak_irqoff_hold
 * itself (noinline), so that the interrupt that was held back arrives with
 * that function on the stack: the name an attribution must find.
 *
 * Parameters (/sys/module/rtsoak_irqoff/parameters/): hold_us (at most
 * 1 s, and under period_us), period_us (0: off), mode, cpu (-1: every CPU)
 * take effect when written, the threads woken at once; holds (read-only)
 * counts every hold made.  The interface is
 * used by tests and benches outside this tree: keep it.
 *
 * The period is kept on an absolute schedule (next += period), so a period
 * incommensurate with the probe's interval walks through its phase: in an
 * instruction-timed machine a commensurate one would always meet the probe
 * at the same point (docs/LAB.md).
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

enum rtsoak_irqoff_mode { MODE_IRQ, MODE_PREEMPT, MODE_SOFTIRQ, MODE_WORK, MODE_TIMER };
static const char *const mode_names[] = { "irq", "preempt", "softirq", "work", "timer" };

static unsigned int hold_us = 100;
static unsigned int period_us;
static int mode = MODE_IRQ;
static int cpu = -1;
static atomic_long_t holds = ATOMIC_LONG_INIT(0);

static struct task_struct **threads;
static unsigned int nthreads;
/* bumped on every parameter write: a sleeping thread restarts its schedule */
static atomic_t generation = ATOMIC_INIT(0);
static DEFINE_PER_CPU(struct tasklet_struct, hold_tasklet);
static DEFINE_PER_CPU(struct work_struct, hold_work);
static DEFINE_PER_CPU(struct timer_list, hold_timer);
/* set while the module goes: no more work queued or timers armed */
static bool stopping;

/* Busy-wait ns with what mode switches off switched off around it. */
noinline void rtsoak_irqoff_hold(u64 ns, int how)
{
	unsigned long flags = 0;
	u64 t0;

	if (how == MODE_IRQ)
		local_irq_save(flags);
	else if (how == MODE_PREEMPT)
		preempt_disable();
	t0 = ktime_get_mono_fast_ns();
	while (ktime_get_mono_fast_ns() - t0 < ns)
		cpu_relax();
	atomic_long_inc(&holds);
	if (how == MODE_IRQ)
		local_irq_restore(flags);
	else if (how == MODE_PREEMPT)
		preempt_enable();
}
EXPORT_SYMBOL_GPL(rtsoak_irqoff_hold);

static void hold_tasklet_fn(unsigned long unused)
{
	rtsoak_irqoff_hold((u64)READ_ONCE(hold_us) * NSEC_PER_USEC, MODE_SOFTIRQ);
}

/* The work item's function, the name workqueue_execute_start gives: what
 * an attribution of a kworker must find.  noinline, so that it is a
 * symbol of its own. */
static noinline void rtsoak_irqoff_work(struct work_struct *w)
{
	rtsoak_irqoff_hold((u64)READ_ONCE(hold_us) * NSEC_PER_USEC, MODE_PREEMPT);
}

/* The timer callback, the name timer_expire_entry gives. */
static noinline void rtsoak_irqoff_timer_fn(struct timer_list *t)
{
	rtsoak_irqoff_hold((u64)READ_ONCE(hold_us) * NSEC_PER_USEC, MODE_PREEMPT);
}

static bool mine(unsigned int me)
{
	int want = READ_ONCE(cpu);

	return want < 0 || (unsigned int)want == me;
}

static int hold_thread(void *arg)
{
	unsigned int me = (unsigned long)arg;
	ktime_t next = 0;
	int gen = -1;

	while (!kthread_should_stop()) {
		unsigned int period = READ_ONCE(period_us);
		int g = atomic_read(&generation);

		if (!period || !mine(me)) {
			/* off: sleep until a parameter is written */
			set_current_state(TASK_INTERRUPTIBLE);
			if (atomic_read(&generation) == g && !kthread_should_stop())
				schedule();
			__set_current_state(TASK_RUNNING);
			gen = -1;
			continue;
		}
		if (g != gen) {
			/* a new schedule: the first hold one period from now */
			gen = g;
			next = ktime_add_us(ktime_get(), period);
		}
		set_current_state(TASK_INTERRUPTIBLE);
		if (atomic_read(&generation) != gen) {
			/* written since the top of the loop: its wake-up is gone */
			__set_current_state(TASK_RUNNING);
			continue;
		}
		schedule_hrtimeout_range(&next, 0, HRTIMER_MODE_ABS);
		if (kthread_should_stop())
			break;
		if (atomic_read(&generation) != gen)
			continue;	/* woken by a write: start over */
		if (ktime_before(ktime_get(), next))
			continue;	/* woken early otherwise: sleep on */
		next = ktime_add_us(next, period);
		if (!READ_ONCE(hold_us))
			continue;
		if (READ_ONCE(mode) == MODE_SOFTIRQ)
			tasklet_hi_schedule(this_cpu_ptr(&hold_tasklet));
		else if (READ_ONCE(mode) == MODE_WORK && !READ_ONCE(stopping))
			queue_work_on(me, system_wq, per_cpu_ptr(&hold_work, me));
		else if (READ_ONCE(mode) == MODE_TIMER && !READ_ONCE(stopping) &&
			 !timer_pending(per_cpu_ptr(&hold_timer, me)))
			/* pinned to this CPU (the thread is bound to it); not
			 * re-armed while pending, which with a period under a
			 * jiffy would push it back for ever */
			mod_timer(per_cpu_ptr(&hold_timer, me), jiffies + 1);
		else if (READ_ONCE(mode) != MODE_WORK && READ_ONCE(mode) != MODE_TIMER)
			rtsoak_irqoff_hold((u64)READ_ONCE(hold_us) * NSEC_PER_USEC,
					   READ_ONCE(mode));
	}
	return 0;
}

static void wake_all(void)
{
	unsigned int i;

	atomic_inc(&generation);
	for (i = 0; i < nthreads; i++)
		if (threads[i])
			wake_up_process(threads[i]);
}

/*
 * hold_us and period_us.  A hold is at most HOLD_MAX_US (interrupts off for
 * longer wakes the lockup detectors), and shorter than the period when both
 * are set: back-to-back holds would take the CPU for good.
 */
#define HOLD_MAX_US 1000000
static DEFINE_MUTEX(param_lock);

static int set_uint_wake(const char *val, const struct kernel_param *kp)
{
	unsigned int v, hold, period;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	mutex_lock(&param_lock);
	hold = kp->arg == &hold_us ? v : hold_us;
	period = kp->arg == &period_us ? v : period_us;
	/* at load (no threads yet) the parameters come in any order: init
	 * checks the pair */
	if (hold > HOLD_MAX_US || (threads && period && hold >= period)) {
		mutex_unlock(&param_lock);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	mutex_unlock(&param_lock);
	wake_all();
	return 0;
}

static int set_cpu(const char *val, const struct kernel_param *kp)
{
	int v, ret = kstrtoint(val, 0, &v);

	if (ret)
		return ret;
	if (v < -1 || v >= (int)nr_cpu_ids || (v >= 0 && !cpu_online(v)))
		return -EINVAL;
	WRITE_ONCE(cpu, v);
	wake_all();
	return 0;
}

static int set_mode(const char *val, const struct kernel_param *kp)
{
	size_t n = strcspn(val, "\n");
	int i;

	for (i = 0; i < ARRAY_SIZE(mode_names); i++) {
		if (strlen(mode_names[i]) == n && !strncmp(val, mode_names[i], n)) {
			WRITE_ONCE(mode, i);
			wake_all();
			return 0;
		}
	}
	return -EINVAL;
}

static int get_mode(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", mode_names[READ_ONCE(mode)]);
}

static int get_holds(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&holds));
}

static const struct kernel_param_ops uint_wake_ops = {
	.set = set_uint_wake, .get = param_get_uint,
};
static const struct kernel_param_ops cpu_ops = { .set = set_cpu, .get = param_get_int };
static const struct kernel_param_ops mode_ops = { .set = set_mode, .get = get_mode };
static const struct kernel_param_ops holds_ops = { .get = get_holds };

module_param_cb(hold_us, &uint_wake_ops, &hold_us, 0644);
MODULE_PARM_DESC(hold_us, "how long each hold busy-waits, in microseconds (at most 1 s, under period_us)");
module_param_cb(period_us, &uint_wake_ops, &period_us, 0644);
MODULE_PARM_DESC(period_us, "a hold every period_us microseconds on each chosen CPU (0: off)");
module_param_cb(mode, &mode_ops, NULL, 0644);
MODULE_PARM_DESC(mode, "irq (interrupts off), preempt (preemption off), softirq (in a tasklet), work (preemption off in a kworker's work item) or timer (preemption off in a timer callback)");
module_param_cb(cpu, &cpu_ops, &cpu, 0644);
MODULE_PARM_DESC(cpu, "the CPU that holds (-1: every online CPU)");
module_param_cb(holds, &holds_ops, NULL, 0444);
MODULE_PARM_DESC(holds, "holds made since the module was loaded (read-only)");

static void stop_threads(void)
{
	unsigned int i;

	WRITE_ONCE(stopping, true);
	for (i = 0; i < nthreads; i++)
		if (threads[i])
			kthread_stop(threads[i]);
	/* the threads are gone: nothing queues or arms any more; wait for
	 * what is pending or running */
	for_each_possible_cpu(i) {
		tasklet_kill(per_cpu_ptr(&hold_tasklet, i));
		cancel_work_sync(per_cpu_ptr(&hold_work, i));
		del_timer_sync(per_cpu_ptr(&hold_timer, i));
	}
	kfree(threads);
}

static int __init rtsoak_irqoff_init(void)
{
	unsigned int c;

	if (hold_us > HOLD_MAX_US || (period_us && hold_us >= period_us))
		return -EINVAL;

	/* a cpu= given at load must name an online CPU too */
	if (cpu < -1 || cpu >= (int)nr_cpu_ids || (cpu >= 0 && !cpu_online(cpu)))
		return -EINVAL;
	for_each_possible_cpu(c) {
		tasklet_init(per_cpu_ptr(&hold_tasklet, c), hold_tasklet_fn, 0);
		INIT_WORK(per_cpu_ptr(&hold_work, c), rtsoak_irqoff_work);
		timer_setup(per_cpu_ptr(&hold_timer, c), rtsoak_irqoff_timer_fn, TIMER_PINNED);
	}
	nthreads = nr_cpu_ids;
	threads = kcalloc(nthreads, sizeof(*threads), GFP_KERNEL);
	if (!threads)
		return -ENOMEM;
	/* CPU hotplug is not followed: the CPUs online at load hold */
	for_each_online_cpu(c) {
		struct task_struct *t = kthread_create(hold_thread, (void *)(unsigned long)c,
						       "rtsoak_irqoff/%u", c);

		if (IS_ERR(t)) {
			stop_threads();
			return PTR_ERR(t);
		}
		kthread_bind(t, c);
		sched_set_fifo_low(t);
		threads[c] = t;
		wake_up_process(t);
	}
	return 0;
}

static void __exit rtsoak_irqoff_exit(void)
{
	stop_threads();
}

module_init(rtsoak_irqoff_init);
module_exit(rtsoak_irqoff_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("rtsoak authors");
MODULE_DESCRIPTION("rtsoak lab: hold interrupts, preemption, a softirq, a work item or a timer callback for a known time");
