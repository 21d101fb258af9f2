// SPDX-License-Identifier: GPL-2.0-or-later
/* probe_net_remote: the net probe's round trip to an `rtsoak reflect`
 * (--probes net:target=HOST[:PORT]; see probe_net.c for the whole probe):
 * one connected socket per measured CPU, net.rtt on its own clock.  Hot
 * path rules as in probe_timer.c. */
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

#include <linux/net_tstamp.h>

#include "cpuset.h"
#include "netmsg.h"
#include "parse.h"
#include "probe_net.h"
#include "probe_net_internal.h"
#include "rt.h"
#include "util.h"

int probe_net_remote_prepare(struct probe_thread *t, struct probe_net_conf *c,
			     struct probe_net_slot *s)
{
	uint64_t n = c->timeout_ns / c->interval_ns + 2, size = NET_RING_MIN;
	uint64_t rcvtimeo = c->interval_ns < NET_POLL_NS ? c->interval_ns : NET_POLL_NS;

	/* Connected: the kernel drops datagrams from anyone but the target,
	 * and reports ICMP errors (reflector down) on the next receive. */
	if (connect(s->fd, (const struct sockaddr *)&c->target, c->target_len) < 0) {
		char what[128];
		snprintf(what, sizeof(what), "cannot reach %.100s", c->target_name);
		return probe_net_fail(t, errno, what);
	}
	/* Waits for a reply at most one interval, then it is time to send
	 * again; see net_remote_run. */
	if (probe_net_set_rcvtimeo(s->fd, rcvtimeo) < 0)
		return probe_net_fail(t, errno, "SO_RCVTIMEO");
	while (size < n && size < NET_RING_MAX)
		size *= 2;
	/* Allocated and touched here, on the pinned thread: local memory,
	 * faulted in before the run. */
	s->ring = malloc(size * sizeof(*s->ring));
	if (!s->ring)
		return probe_net_fail(t, ENOMEM, "send-time ring");
	for (uint64_t i = 0; i < size; i++)
		s->ring[i] = (struct probe_net_ring){ .seq = UINT64_MAX };
	s->ring_mask = size - 1;
	return 0;
}

/* ----------------------------------------------------------- round trip -- */

/* One thread, one connected socket.  The schedule is absolute like the
 * timer probe's, and a reply may arrive after the next send is due, so:
 *  - nothing unanswered: clock_nanosleep to the next send time;
 *  - something unanswered: block in recvmsg, at most SO_RCVTIMEO (the
 *    interval, capped at NET_POLL_NS, set once in prepare) -- changing the
 *    timeout per wait would be an extra syscall per sample, and ppoll would
 *    be one more syscall too.  The price: while replies are missing, sends
 *    follow the socket timeout (jiffy-grained) instead of the exact
 *    schedule; the slots skipped are counted as missed.
 * The reply's receive time is read right after recvmsg returns, so the RTT
 * includes this thread's wake-up, as a real request/response would. */
int probe_net_remote_run(struct probe_thread *t)
{
	const struct probe_net_conf *c = t->pc->conf;
	struct probe_net_slot *s = t->priv;
	const uint64_t interval = c->interval_ns, timeout = c->timeout_ns;
	union {
		struct netmsg m;
		char raw[sizeof(struct netmsg) + 1];
	} buf;
	struct netmsg out;
	struct iovec iov = { .iov_base = &buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct timespec ts;
	uint64_t next = t->start_ns + interval, now = t->start_ns, last_send = 0;
	uint64_t nsent = 0, answered = 0;
	bool waiting = false; /* the newest datagram is unanswered */

	for (;;) {
		if (__builtin_expect(probe_should_stop(t), 0))
			break;
		const bool sending = t->loops == 0 || nsent < t->loops;
		/* --loops N: N round trips attempted, then wait for the answers
		 * up to the timeout. */
		if (!sending && (answered == nsent || now - last_send > timeout))
			break;
		if (!waiting && sending) {
			ts.tv_sec = (time_t)(next / NSEC_PER_SEC);
			ts.tv_nsec = (long)(next % NSEC_PER_SEC);
			int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			if (__builtin_expect(rc != 0, 0)) {
				if (rc == EINTR)
					continue;
				return probe_net_fail(t, rc, "clock_nanosleep");
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = probe_ts_ns(&ts);
		if (sending && now >= next) {
			struct probe_net_ring *e = &s->ring[nsent & s->ring_mask];
			/* Decided once, at the send (probe_counts): an echo of
			 * the warm-up or a settle time is not sent, lost or
			 * received as far as the counters go. */
			const bool counts = probe_counts(t, next);
			netmsg_fill(&out, 0, s->token, nsent, now);
			*e = (struct probe_net_ring){ .seq = nsent,
						      .send_ns = now,
						      .uncounted = !counts };
			/* A refused send still counts as sent: it is never
			 * answered, and `lost` should say so. */
			if (__builtin_expect(send(s->fd, &out, sizeof(out), MSG_DONTWAIT) !=
						 (ssize_t)sizeof(out),
					     0))
				s->errors += counts;
			s->sent += counts;
			nsent++;
			last_send = now;
			waiting = true;
			next += interval;
			if (__builtin_expect(now >= next, 0)) {
				uint64_t missed = (now - next) / interval + 1;
				if (counts)
					recorder_add_missed(t->rec[0][probe_phase(t)], missed);
				next += missed * interval;
			}
		}
		msg.msg_flags = 0;
		ssize_t len = recvmsg(s->fd, &msg, 0);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = probe_ts_ns(&ts);
		if (__builtin_expect(len < 0, 0)) {
			int e = errno;
			if (e == EINTR || e == EAGAIN || e == EWOULDBLOCK)
				continue;
			/* ICMP errors of earlier sends (reflector gone, route
			 * lost): the run goes on, `lost` grows. */
			if (e == ECONNREFUSED || e == EHOSTUNREACH || e == ENETUNREACH ||
			    e == EHOSTDOWN || e == ENETDOWN || e == ENOBUFS || e == ENOMEM) {
				s->errors++;
				continue;
			}
			return probe_net_fail(t, e, "recvmsg");
		}
		if (__builtin_expect(
			!netmsg_ours(&buf.m, len, msg.msg_flags, s->token, NETMSG_F_REPLY), 0)) {
			s->foreign++;
			continue;
		}
		const uint64_t seq = netmsg_seq(&buf.m);
		if (__builtin_expect(seq >= nsent, 0)) {
			s->foreign++; /* never sent: not an echo of ours */
			continue;
		}
		struct probe_net_ring *e = &s->ring[seq & s->ring_mask];
		if (__builtin_expect(e->seq != seq, 0)) {
			/* Older than the ring, which spans the timeout; one of
			 * the warm-up (its send time before t0) is not ours to
			 * count. */
			if (netmsg_send_ns(&buf.m) >= t->t0_ns)
				s->late++;
			continue;
		}
		/* Every counter of an uncounted datagram stays out
		 * (probe_counts): its duplicates and reordering too. */
		if (__builtin_expect(e->answered, 0)) {
			s->duplicate += !e->uncounted;
			continue;
		}
		e->answered = true;
		answered++;
		if (seq == nsent - 1)
			waiting = false;
		if (__builtin_expect(s->seen && seq < s->highest, 0)) {
			s->reordered += !e->uncounted;
		} else {
			s->highest = seq;
			s->seen = true;
		}
		const uint64_t rtt = now - e->send_ns;
		if (rtt > s->rtt_max)
			s->rtt_max = rtt;
		if (__builtin_expect(e->uncounted, 0)) {
			probe_discard(t, probe_phase(t), 1);
			continue;
		}
		if (__builtin_expect(rtt > timeout, 0)) {
			s->late++;
			continue;
		}
		s->received++;
		probe_record(t, 0, probe_phase(t), rtt, now - t->t0_ns);
	}
	/* Unanswered at the end, but sent so recently that the answer may
	 * still come -- within twice the slowest answer seen, at most the
	 * timeout -- is pending, not lost.  When nothing ever answered,
	 * nothing is pending: 100 % loss reads lost == sent. */
	const uint64_t window = 2 * s->rtt_max < timeout ? 2 * s->rtt_max : timeout;
	now = probe_mono_ns();
	for (uint64_t i = 0; i <= s->ring_mask; i++) {
		const struct probe_net_ring *e = &s->ring[i];
		if (e->seq != UINT64_MAX && !e->answered && !e->uncounted &&
		    now - e->send_ns <= window)
			s->pending++;
	}
	return 0;
}
