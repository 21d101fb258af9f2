// SPDX-License-Identifier: GPL-2.0-or-later
/* probe_net_local: the net probe on loopback (see probe_net.c for the
 * whole probe): each measured CPU's receiver blocked in recvmsg, the split
 * at the kernel's receive timestamp, and the family's one sender thread on a
 * housekeeping CPU with its CLOCK_REALTIME offset measurements.  Hot path
 * rules as in probe_timer.c. */
#include <config.h>

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/net_tstamp.h>

#include "cpuset.h"
#include "netmsg.h"
#include "parse.h"
#include "probe_net.h"
#include "probe_net_internal.h"
#include "rt.h"
#include "util.h"

/* Software RX timestamps, CLOCK_REALTIME: SO_TIMESTAMPNS, else
 * SO_TIMESTAMPING.  Enabling them flips a global static key in the kernel,
 * so they stay on for the whole run: toggling would itself cause latency. */
static bool net_enable_timestamps(int fd)
{
	int on = 1, flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;

	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) == 0)
		return true;
	return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) == 0;
}

/* The loopback address of the family, port 0 (any). */
static void net_loopback(int family, struct sockaddr_storage *a, socklen_t *len)
{
	memset(a, 0, sizeof(*a));
	if (family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)a;
		in6->sin6_family = AF_INET6;
		in6->sin6_addr = in6addr_loopback;
		*len = sizeof(*in6);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)a;
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		*len = sizeof(*in);
	}
}

/* The sender's socket, made once for the family by whichever receiver
 * prepares first: bound to loopback, so that the receivers can connect to
 * its address (and it is no longer reachable from other interfaces, as an
 * autobound socket on the wildcard address was).  It never reads: a filter
 * that accepts nothing keeps anyone else's datagrams from queueing on it. */
static int net_sender_socket(struct probe_thread *t, struct probe_net_conf *c)
{
	struct sock_filter drop[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_fprog prog = { .len = 1, .filter = drop };
	const char *what = NULL;
	int fd, e = 0;

	pthread_mutex_lock(&c->sender_lock);
	if (c->sender_fd >= 0)
		goto out;
	net_loopback(c->family, &c->sender_addr, &c->sender_addrlen);
	if ((fd = socket(c->family, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
		e = errno;
		what = "sender socket";
	} else if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0) {
		e = errno;
		what = "sender socket filter";
	} else if (bind(fd, (struct sockaddr *)&c->sender_addr, c->sender_addrlen) < 0 ||
		   getsockname(fd, (struct sockaddr *)&c->sender_addr, &c->sender_addrlen) < 0) {
		e = errno;
		what = c->family == AF_INET6 ? "cannot bind the sender to [::1]"
					     : "cannot bind the sender to 127.0.0.1";
	}
	if (e && fd >= 0)
		(void)close(fd);
	else if (!e)
		c->sender_fd = fd;
out:
	pthread_mutex_unlock(&c->sender_lock);
	return e ? probe_net_fail(t, e, what) : 0;
}

int probe_net_local_prepare(struct probe_thread *t, struct probe_net_conf *c,
			    struct probe_net_slot *s)
{
	struct sockaddr_storage *a = &s->addr;
	char junk[1];
	int rc;

	if ((rc = net_sender_socket(t, c)))
		return rc;
	net_loopback(c->family, a, &s->addrlen);
	if (bind(s->fd, (struct sockaddr *)a, s->addrlen) < 0)
		return probe_net_fail(t, errno,
				      c->family == AF_INET6 ? "cannot bind to [::1]"
							    : "cannot bind to 127.0.0.1");
	/* Connected to the sender: the kernel delivers only the sender's
	 * datagrams to this socket and drops anyone else's (a local user
	 * flooding the port shown by `ss -uln`) in the sender's context,
	 * before this measured thread is woken.  Without it every stray
	 * datagram would wake the SCHED_FIFO receiver on the measured CPU. */
	if (connect(s->fd, (const struct sockaddr *)&c->sender_addr, c->sender_addrlen) < 0)
		return probe_net_fail(t, errno, "cannot connect to the sender");
	if (getsockname(s->fd, (struct sockaddr *)a, &s->addrlen) < 0)
		return probe_net_fail(t, errno, "getsockname");
	/* Whatever reached the port between bind and connect: before the
	 * measurement, it woke nobody; not ours, so not kept either. */
	while (recv(s->fd, junk, sizeof(junk), MSG_DONTWAIT | MSG_TRUNC) >= 0)
		;
	if (probe_net_set_rcvtimeo(s->fd, NET_POLL_NS) < 0)
		return probe_net_fail(t, errno, "SO_RCVTIMEO");
	/* Without them the total is still measured; the split is not, and
	 * `untimestamped` counts the samples. */
	(void)net_enable_timestamps(s->fd);
	return 0;
}
/* ---------------------------------------------------- loopback receiver -- */

/* The kernel's receive time (CLOCK_REALTIME) from the control messages; 0
 * if there is none. */
static inline uint64_t net_rx_timestamp(struct msghdr *msg)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		struct timespec ts;
		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		/* SCM_TIMESTAMPNS: one timespec; SCM_TIMESTAMPING: three, the
		 * software one first. */
		if (cm->cmsg_type == SCM_TIMESTAMPNS || cm->cmsg_type == SCM_TIMESTAMPING) {
			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			return probe_ts_ns(&ts);
		}
	}
	return 0;
}

int probe_net_local_run(struct probe_thread *t)
{
	const struct probe_net_conf *c = t->pc->conf;
	struct probe_net_slot *s = t->priv;
	const uint64_t timeout = c->timeout_ns;
	union {
		struct netmsg m;
		char raw[sizeof(struct netmsg) + 1]; /* a longer datagram shows as longer */
	} buf;
	union {
		struct cmsghdr align;
		char raw[CMSG_SPACE(3 * sizeof(struct timespec)) + CMSG_SPACE(sizeof(int)) + 64];
	} cbuf;
	struct iovec iov = { .iov_base = &buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &cbuf };
	struct timespec ts;
	uint64_t n = 0;

	while (t->loops == 0 || n < t->loops) {
		if (__builtin_expect(probe_should_stop(t), 0))
			break;
		msg.msg_controllen = sizeof(cbuf);
		msg.msg_flags = 0;
		ssize_t len = recvmsg(s->fd, &msg, 0);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (__builtin_expect(len < 0, 0)) {
			int e = errno;
			/* EINTR: the session's stop kick; EAGAIN: SO_RCVTIMEO, so
			 * a lost kick costs at most NET_POLL_NS. */
			if (e == EINTR || e == EAGAIN || e == EWOULDBLOCK)
				continue;
			/* ICMP errors queued on the connected socket (forged:
			 * it never sends) must not end the run either. */
			if (e == ENOMEM || e == ENOBUFS || e == ECONNREFUSED || e == EHOSTUNREACH ||
			    e == ENETUNREACH) {
				s->errors++;
				continue;
			}
			return probe_net_fail(t, e, "recvmsg");
		}
		if (__builtin_expect(!netmsg_ours(&buf.m, len, msg.msg_flags, s->token, 0), 0)) {
			s->foreign++;
			continue;
		}
		const uint64_t now = probe_ts_ns(&ts), sent = netmsg_send_ns(&buf.m);
		const uint64_t seq = netmsg_seq(&buf.m);
		/* Not counted by the sender (warm-up, settle): no counter of
		 * ours counts it either, duplicates and reordering included. */
		const bool uncounted = buf.m.zero != 0;
		if (__builtin_expect(s->seen && seq <= s->highest, 0)) {
			if (seq == s->highest) {
				s->duplicate += !uncounted;
				continue;
			}
			s->reordered += !uncounted;
		} else {
			s->highest = seq;
			s->seen = true;
		}
		if (__builtin_expect(uncounted, 0)) {
			/* Late or not: not in the statistics either. */
			probe_discard(t, probe_phase(t), 1);
			continue;
		}
		uint64_t total = 0;
		if (__builtin_expect(now >= sent, 1))
			total = now - sent;
		else /* cannot happen on one clock: count it if it does */
			s->clamped[NET_TOTAL]++;
		if (__builtin_expect(total > timeout, 0)) {
			s->late++;
			continue;
		}
		s->received++;
		const unsigned ph = probe_phase(t);
		const uint64_t at = now - t->t0_ns;
		probe_record(t, NET_TOTAL, ph, total, at);
		uint64_t krx_rt = net_rx_timestamp(&msg);
		if (__builtin_expect(!krx_rt, 0)) {
			s->untimestamped++; /* no split for this one */
		} else {
			int64_t off = __atomic_load_n(&c->offset_ns, __ATOMIC_RELAXED);
			int64_t krx = (int64_t)krx_rt - off;
			int64_t stack = krx - (int64_t)sent;
			uint64_t st, wk;
			/* The parts come from two clocks; the total from one.  When the
			 * conversion puts the kernel timestamp outside [send, now], clamp
			 * that part and keep stack + wakeup == total. */
			if (__builtin_expect(stack < 0, 0)) {
				s->clamped[NET_STACK]++;
				st = 0;
			} else if (__builtin_expect((uint64_t)stack > total, 0)) {
				s->clamped[NET_WAKEUP]++;
				st = total;
			} else {
				st = (uint64_t)stack;
			}
			wk = total - st;
			probe_record(t, NET_STACK, ph, st, at);
			probe_record(t, NET_WAKEUP, ph, wk, at);
		}
		n++;
	}
	/* --loops done: the sender stops sending here (and the end-of-run
	 * drain picks up whatever was already on its way). */
	__atomic_store_n(&s->done, 1, __ATOMIC_RELAXED);
	return 0;
}

/* ------------------------------------------------------------ sender -- */

static struct probe_net_slot *net_thread_slot(const struct probe_family *f, unsigned i)
{
	return f->threads[i]->priv;
}

static void *net_sender_main(void *arg)
{
	const struct probe_family *f = arg;
	struct probe_net_conf *c = f->pc->conf;
	const uint64_t interval = c->interval_ns;
	uint64_t next = f->start_ns + interval, next_offset = f->start_ns + NET_OFFSET_PERIOD_NS;
	struct netmsg m;
	struct timespec ts;

	(void)pthread_setname_np(pthread_self(), "rtsoak/net-tx");
	rt_prefault_stack(64 * 1024);
	while (!__atomic_load_n(f->stop, __ATOMIC_RELAXED)) {
		uint64_t now = probe_mono_ns(), wake = next;
		/* Sleep in pieces of at most NET_POLL_NS so that a long
		 * interval does not hold up the end of the run. */
		if (wake > now + NET_POLL_NS)
			wake = now + NET_POLL_NS;
		ts.tv_sec = (time_t)(wake / NSEC_PER_SEC);
		ts.tv_nsec = (long)(wake % NSEC_PER_SEC);
		int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (rc && rc != EINTR) {
			c->sender_error = rc;
			break;
		}
		now = probe_mono_ns();
		if (now < next || __atomic_load_n(f->stop, __ATOMIC_RELAXED))
			continue;
		/* The slot's time decides, here, once: a datagram of the
		 * warm-up or a settle time is marked, not counted sent, and its
		 * receiver discards it (probe_counts). */
		const bool counts = next >= __atomic_load_n(f->count_from_ns, __ATOMIC_RELAXED);
		for (unsigned i = 0; i < f->n; i++) {
			struct probe_net_slot *s = net_thread_slot(f, i);
			if (__atomic_load_n(&s->done, __ATOMIC_RELAXED))
				continue;
			/* Stamped right before its own send, so one receiver's
			 * stack time does not include the others' sends. */
			netmsg_fill(&m, 0, s->token, s->seq, probe_mono_ns());
			if (!counts)
				m.zero = NETMSG_UNCOUNTED; /* our own receiver: host order */
			if (sendto(c->sender_fd, &m, sizeof(m), MSG_DONTWAIT,
				   (const struct sockaddr *)&s->addr,
				   s->addrlen) == (ssize_t)sizeof(m)) {
				s->sent += counts;
				s->seq++;
			}
			/* a failed send was not sent: not counted, not lost */
		}
		if (now >= next_offset) {
			uint64_t gap;
			int64_t off = probe_clock_offset(&gap);
			int64_t old = __atomic_load_n(&c->offset_ns, __ATOMIC_RELAXED);
			uint64_t step = (uint64_t)(off > old ? off - old : old - off);
			if (step > c->offset_step_max_ns)
				c->offset_step_max_ns = step;
			__atomic_store_n(&c->offset_ns, off, __ATOMIC_RELAXED);
			c->offset_updates++;
			next_offset = now + NET_OFFSET_PERIOD_NS;
		}
		next += interval;
		if (now >= next) {
			uint64_t missed = (now - next) / interval + 1;
			/* Each skipped slot by its own time, like a sent one: in
			 * the counted time missed, before it missed uncounted
			 * (no datagram, so no receiver counts it discarded). */
			const uint64_t from = __atomic_load_n(f->count_from_ns, __ATOMIC_RELAXED);
			uint64_t before = from > next ? (from - next + interval - 1) / interval : 0;
			if (before > missed)
				before = missed;
			c->sender_missed_uncounted += before;
			c->sender_missed += missed - before;
			next += missed * interval;
		}
	}
	return NULL;
}

/* --net-sender-cpu; else the first housekeeping CPU (the session has pinned
 * its own thread there by now); else the first CPU we may use that is not
 * measured; else the first measured one, which the counters then flag. */
static int net_sender_cpu(const struct probe_net_conf *c, const struct probe_env *env, bool *shared)
{
	struct cpuset allowed, online, free_cpus;
	int cpu;

	*shared = false;
	if (c->sender_cpu_opt >= 0) {
		*shared = cpuset_has(&env->cpus, c->sender_cpu_opt);
		return c->sender_cpu_opt;
	}
	if ((cpu = cpuset_next(&env->housekeeping, 0)) >= 0)
		return cpu;
	if (cpuset_allowed(&allowed) == 0 && cpuset_online(&online) == 0) {
		free_cpus = allowed;
		cpuset_and(&free_cpus, &online);
		cpuset_andnot(&free_cpus, &env->cpus);
		if ((cpu = cpuset_next(&free_cpus, 0)) >= 0)
			return cpu;
	}
	*shared = true;
	cpu = cpuset_next(&env->cpus, 0);
	return cpu >= 0 ? cpu : 0;
}

int probe_net_local_start(struct probe_family *f, char *err, size_t errlen)
{
	struct probe_net_conf *c = f->pc->conf;
	int rc;

	if (c->remote)
		return 0; /* every thread sends for itself */
	c->sender_missed = c->sender_missed_uncounted = c->offset_updates = c->offset_step_max_ns =
	    0;
	c->sender_error = 0;
	c->sender_cpu = net_sender_cpu(c, f->env, &c->sender_shares_cpu);
	if (c->sender_fd < 0) { /* made by the receivers' prepare */
		snprintf(err, errlen, "sender socket: not open");
		return -EBADF;
	}
	/* Before the first datagram: published to the receivers by the send
	 * itself (a syscall and a wake-up order it). */
	__atomic_store_n(&c->offset_ns, probe_clock_offset(&c->offset_gap_ns), __ATOMIC_RELAXED);
	c->offset_updates = 1;

	rc = rt_thread_create(&c->sender, c->sender_cpu, c->sender_priority, NET_SENDER_STACK,
			      net_sender_main, f);
	if (rc) {
		probe_net_close(&c->sender_fd);
		snprintf(err, errlen, "cannot start the sender on CPU %d at %s %d: %s",
			 c->sender_cpu, c->sender_priority ? "SCHED_FIFO" : "SCHED_OTHER",
			 c->sender_priority, strerror(rc));
		return -rc;
	}
	__atomic_store_n(&c->sender_running, true, __ATOMIC_RELEASE);
	f->priv = c;
	if (c->sender_shares_cpu)
		snprintf(f->note, sizeof(f->note),
			 "the sender runs on measured CPU %d (no unmeasured CPU left; "
			 "--net-sender-cpu to choose): it disturbs that CPU's results",
			 c->sender_cpu);
	return 0;
}

/* Count what is still queued on a receiver's socket: datagrams that arrived
 * after it stopped measuring are pending, not lost. */
static void net_drain(struct probe_net_slot *s)
{
	union {
		struct netmsg m;
		char raw[sizeof(struct netmsg) + 1];
	} buf;
	ssize_t len;

	while ((len = recv(s->fd, &buf, sizeof(buf), MSG_DONTWAIT)) >= 0) {
		if (netmsg_ours(&buf.m, len, 0, s->token, 0))
			s->pending++;
		else
			s->foreign++;
	}
}

void probe_net_local_stop(struct probe_family *f)
{
	struct probe_net_conf *c = f->pc->conf;

	if (c->remote || !__atomic_load_n(&c->sender_running, __ATOMIC_ACQUIRE))
		return;
	pthread_join(c->sender, NULL);
	__atomic_store_n(&c->sender_running, false, __ATOMIC_RELEASE);
	if (c->sender_error)
		fprintf(stderr, "rtsoak: net probe: the sender stopped early: %s\n",
			strerror(c->sender_error));
	/* Loopback delivers within the send call, but on a busy or PREEMPT_RT
	 * machine the softirq may run a little later: wait a few ms. */
	for (int tries = 0; tries < NET_DRAIN_TRIES; tries++) {
		bool missing = false;
		for (unsigned i = 0; i < f->n; i++) {
			struct probe_net_slot *s = net_thread_slot(f, i);
			if (s->fd < 0)
				continue;
			net_drain(s);
			missing |= s->sent > s->received + s->late + s->pending;
		}
		if (!missing)
			break;
		struct timespec ts = { 0, (long)NET_DRAIN_WAIT_NS };
		nanosleep(&ts, NULL);
	}
	for (unsigned i = 0; i < f->n; i++)
		probe_net_close(&net_thread_slot(f, i)->fd);
	probe_net_close(&c->sender_fd);
}
