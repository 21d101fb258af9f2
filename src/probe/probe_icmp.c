// SPDX-License-Identifier: GPL-2.0-or-later
/* probe_icmp: ICMP echo round trip to any host (--probes icmp:target=HOST).
 *
 * What the ping users measure, from where rtsoak measures: each measured
 * CPU's pinned SCHED_FIFO probe thread sends one echo request per --interval
 * to HOST (a router, a switch, a machine without rtsoak) on its own socket,
 * with its own ICMP identifier and sequence, and blocks in recvmsg for the
 * reply.  With the kernel's software receive timestamp each round trip
 * splits like the net probe's loopback samples:
 *   icmp.stack  = kernel receive timestamp of the reply - send time: the
 *                 send call, the network both ways and the far host, up to
 *                 where the reply enters our receive path (what ping prints:
 *                 it times to the same kernel timestamp);
 *   icmp.wakeup = thread running - kernel receive timestamp: softirq, socket
 *                 queueing, the wake-up and the switch to the probe thread;
 *   icmp        = their sum = thread running - send time.
 * Send time and wake-up are CLOCK_MONOTONIC; the kernel timestamp is
 * CLOCK_REALTIME, converted with an offset measured before the run and again
 * about once a second, as in probe_net.c.  There is no sender thread here:
 * the family's first thread re-measures it (30 vDSO clock reads, under a
 * microsecond here) while it has no echo outstanding, just before it sleeps
 * (when echoes are always outstanding, a second overdue anyway).  A
 * part the conversion makes negative is clamped to 0, the other part gets
 * the whole total, and `clamped` counts it: the total never depends on the
 * offset.
 *
 * Sockets: an unprivileged ICMP datagram socket (SOCK_DGRAM, IPPROTO_ICMP or
 * IPPROTO_ICMPV6) where net.ipv4.ping_group_range admits our group -- the
 * kernel then picks the identifier (the socket's "port"), fills in the
 * checksum and delivers only this socket's replies -- else a raw socket
 * (CAP_NET_RAW).  Every raw socket sees every echo reply of the host, so
 * each raw socket takes echo replies only (ICMP_FILTER / ICMP6_FILTER) and
 * runs a classic BPF filter on its identifier: the other threads' replies
 * are dropped in the kernel instead of waking this thread.  configure opens
 * one socket of each kind in turn to choose; neither possible is exit 2.
 *
 * Each echo carries a 56-byte payload (ping's default size): a magic, the
 * thread's random token and the 64-bit sequence, whose low 16 bits are the
 * ICMP sequence.  Replies are matched by it to a ring of send times that
 * spans at least the timeout (see icmp_ring_size).
 *
 * Counters (the .counters hook, on each thread's phase-"all" results), with
 * one exact identity per thread:
 *     sent = received + late + lost + pending
 * sent: echo requests sent (a refused send is sent, counted in errors too,
 * and never answered); received: answered within the timeout (timeout=, 1 s), in the
 * statistics; late: answered after the timeout, not in the statistics; lost:
 * never answered, either pushed out of the send-time ring unanswered (older
 * than the ring, which spans at least the timeout) or unanswered at the end
 * and sent longer ago than the pending window; pending: unanswered at the
 * end but sent within twice the slowest answer seen (at most the timeout):
 * still in flight.  Outside the identity: duplicate (another answer to an
 * echo already answered), reordered (a sequence below the highest
 * answered), stale (an answer to an echo already pushed out of the ring,
 * i.e. already counted lost), foreign (an echo reply not ours: wrong length,
 * magic, token or sequence), errors (failed sends, ICMP errors such as host
 * unreachable reported on the connected socket).  socket_dgram / socket_raw
 * say which kind the thread used (1 or 0; summed in aggregates: how many
 * threads).  The split results add clamped and untimestamped (replies
 * without a kernel timestamp: total only), and on the results of the thread
 * that measures the clock offset, clock_offset_updates,
 * clock_offset_gap_ns and clock_offset_step_max_ns, as in probe_net.c.
 *
 * Hot path rules as in probe_timer.c: no locks, no allocation, no syscalls
 * in the loop but send, recvmsg, the sleep to the next send time and the
 * clock reads.  Every counter has one writer, its thread, and is stored
 * with relaxed atomics, because checkpoints read them while it runs. */
#include <config.h>

#include <errno.h>
#include <netdb.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/icmp.h>
#include <linux/net_tstamp.h>

#include "probe.h"
#include "probe_clock.h"
#include "util.h"

/* Longest a blocked receive lasts before looking at the stop flag again. */
#define ICMP_POLL_NS (100 * NSEC_PER_MSEC)
#define ICMP_OFFSET_PERIOD_NS NSEC_PER_SEC
#define ICMP_RING_MIN 16u
#define ICMP_RING_MAX 65536u
#define ICMP_MAGIC 0x49737472u /* "rtsI" in memory on little-endian */
#define ICMP4_ECHO_REPLY 0
#define ICMP4_ECHO_REQUEST 8
#define ICMP6_REPLY 129
#define ICMP6_REQUEST 128
/* A reply as read: a raw IPv4 socket returns the IP header (up to 60
 * bytes) first; room for a longer reply, which then shows as foreign. */
#define ICMP_RX_BUF 256

enum { ICMP_TOTAL, ICMP_STACK, ICMP_WAKEUP };

/* ------------------------------------------------------------ options -- */

static const struct opt icmp_options[] = {
	{ .name = "target",
	  .type = OPT_STRING,
	  .help = "HOST, IPv4 or IPv6 address or name ([V6ADDR] too); no port" },
	{ .name = "interval",
	  .type = OPT_TIME,
	  .optional = true,
	  .absent = "--interval",
	  .min = 1000,
	  .max = 3600 * (int64_t)NSEC_PER_SEC,
	  .bare_ns = NSEC_PER_USEC,
	  .help = "period of the echo requests of each thread (bare number: us)" },
	{ .name = "timeout",
	  .type = OPT_TIME,
	  .def = "1s",
	  .min = 1,
	  .max = 3600 * (int64_t)NSEC_PER_SEC,
	  .help = "an answer later than this counts as late (bare number: ms)" },
	{ .name = NULL },
};

/* The host of target=HOST or target=[V6ADDR] (brackets removed): ICMP has
 * no port, so HOST:PORT is refused rather than misread. */
static int icmp_parse_target(const char *arg, char *host, size_t hostlen, char *err, size_t errlen)
{
	const char *h = arg, *end = arg + strlen(arg), *colon;

	if (*h == '[') {
		h++;
		end = strchr(h, ']');
		if (!end || end[1]) {
			snprintf(err, errlen, "icmp: target '%s': %s", arg,
				 end ? "nothing may follow ']' (ICMP has no port)" : "missing ']'");
			return -EINVAL;
		}
	} else if ((colon = strchr(h, ':')) && !strchr(colon + 1, ':')) {
		/* one colon: HOST:PORT, not an IPv6 address */
		snprintf(err, errlen, "icmp: target '%s': ICMP has no port", h);
		return -EINVAL;
	}
	if (end == h || (size_t)(end - h) >= hostlen) {
		snprintf(err, errlen, "icmp: target '%s': %s host", arg,
			 end == h ? "empty" : "too long a");
		return -EINVAL;
	}
	memcpy(host, h, (size_t)(end - h));
	host[end - h] = '\0';
	return 0;
}

/* -------------------------------------------------------------- state -- */

struct icmp_ring {
	uint64_t seq; /* UINT64_MAX: empty */
	uint64_t send_ns;
	bool answered;	/* received or late: final */
	bool uncounted; /* sent in the warm-up or a settle time (probe_counts) */
};

/* The echo request as sent (ICMP header and 56-byte payload), and the
 * layout the reply echoes back. */
struct icmp_msg {
	uint8_t type, code;
	uint16_t cksum, id, seq;
	uint32_t magic, token;
	uint64_t seq64;
	uint8_t pad[40];
};

/* One probe thread's: allocated in its prepare, on its CPU, and linked into
 * the family's list so that the counters outlive the thread (the report is
 * built after cleanup); icmp_unconfigure frees them after the report. */
struct icmp_slot {
	struct icmp_slot *next;
	unsigned index; /* order of prepare; 0 measures the clock offset */
	int fd;
	bool raw;
	uint16_t id; /* network order, as in the header */
	uint32_t token;
	bool seen;
	uint64_t highest;
	uint64_t rtt_max; /* the slowest answer, late ones included */
	struct icmp_ring *ring;
	uint64_t ring_mask;
	/* counters: written by the thread only, read by the counters hook */
	uint64_t sent, received, late, lost, pending, duplicate, reordered, stale, foreign, errors;
	uint64_t untimestamped, clamped[3];
} __attribute__((aligned(64)));

struct icmp_conf {
	/* CLOCK_REALTIME - CLOCK_MONOTONIC: stored by slot 0, loaded by every
	 * thread once per timestamped reply. */
	int64_t offset_ns __attribute__((aligned(64)));
	uint64_t offset_updates, offset_gap_ns, offset_step_max_ns; /* slot 0's */

	/* Read-only once configured. */
	int family __attribute__((aligned(64)));
	int protocol; /* IPPROTO_ICMP or IPPROTO_ICMPV6 */
	bool raw;     /* socket kind chosen in configure */
	struct sockaddr_storage target;
	socklen_t target_len;
	char target_name[300]; /* as given, for messages */
	char address[INET6_ADDRSTRLEN];
	uint64_t timeout_ns;
	uint16_t id_base; /* raw sockets: thread i uses id_base + i */

	unsigned nslots;	 /* atomic: the next slot's index */
	struct icmp_slot *slots; /* atomic push in prepare */
};

static const char *const icmp_results[] = { "icmp", "icmp.stack", "icmp.wakeup", NULL };

/* One writer per counter; relaxed atomics so that a checkpoint's read is no
 * data race.  The same instructions as a plain increment on x86-64. */
static inline void icmp_add(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + v, __ATOMIC_RELAXED);
}

static inline uint64_t icmp_get(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* Slot 0 only: re-measure and publish; the largest change between two
 * measurements is an NTP step (or drift) the split rode through. */
static void icmp_offset_update(struct icmp_conf *c)
{
	uint64_t gap;
	int64_t off = probe_clock_offset(&gap);
	int64_t old = __atomic_load_n(&c->offset_ns, __ATOMIC_RELAXED);
	uint64_t step = (uint64_t)(off > old ? off - old : old - off);

	if (step > icmp_get(&c->offset_step_max_ns))
		__atomic_store_n(&c->offset_step_max_ns, step, __ATOMIC_RELAXED);
	__atomic_store_n(&c->offset_ns, off, __ATOMIC_RELAXED);
	icmp_add(&c->offset_updates, 1);
}

/* ---------------------------------------------------------- configure -- */

/* Which socket kind this process may open: datagram first (no privilege,
 * the kernel does the demultiplexing), then raw.  0, or -EINVAL with the
 * one line that says why neither works. */
static int icmp_choose_socket(struct icmp_conf *c, char *err, size_t errlen)
{
	char range[64] = "?";
	int fd, dgram_err, raw_err;

	fd = socket(c->family, SOCK_DGRAM | SOCK_CLOEXEC, c->protocol);
	if (fd >= 0) {
		(void)close(fd);
		c->raw = false;
		return 0;
	}
	dgram_err = errno;
	fd = socket(c->family, SOCK_RAW | SOCK_CLOEXEC, c->protocol);
	if (fd >= 0) {
		(void)close(fd);
		c->raw = true;
		return 0;
	}
	raw_err = errno;
	if (util_read_file("/proc/sys/net/ipv4/ping_group_range", range, sizeof(range)) < 0)
		snprintf(range, sizeof(range), "unreadable");
	for (char *p = range; *p; p++)
		if (*p == '\t')
			*p = ' ';
	snprintf(err, errlen,
		 "icmp: cannot open an ICMP socket: datagram: %s (net.ipv4.ping_group_range is "
		 "'%s', group %u), raw: %s (needs CAP_NET_RAW)",
		 strerror(dgram_err), range, (unsigned)getegid(), strerror(raw_err));
	return -EINVAL;
}

static int icmp_configure(struct probe_config *pc, const struct probe_env *env, char *err,
			  size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM };
	struct addrinfo *res = NULL;
	const char *target = probe_opt(pc, "target")->s;
	const struct opt_value *interval = probe_opt(pc, "interval");
	char host[256];
	struct icmp_conf *c;
	size_t size = (sizeof(*c) + 63) & ~(size_t)63;
	uint16_t base;
	int rc;

	(void)env;
	if ((rc = icmp_parse_target(target, host, sizeof(host), err, errlen)))
		return rc;
	/* The threads read their period as t->interval_ns (the session sets
	 * it from pc->interval_ns). */
	if (interval->given)
		pc->interval_ns = (uint64_t)interval->i;
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "icmp: target '%s': cannot resolve '%s': %s", target, host,
			 rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return -EINVAL;
	}
	if (res->ai_family != AF_INET && res->ai_family != AF_INET6) {
		freeaddrinfo(res);
		snprintf(err, errlen, "icmp: target '%s': not an IPv4 or IPv6 host", target);
		return -EINVAL;
	}
	c = aligned_alloc(64, size);
	if (!c) {
		freeaddrinfo(res);
		snprintf(err, errlen, "icmp: out of memory");
		return -ENOMEM;
	}
	memset(c, 0, size);
	memcpy(&c->target, res->ai_addr, res->ai_addrlen);
	c->target_len = res->ai_addrlen;
	c->family = res->ai_family;
	freeaddrinfo(res);
	c->protocol = c->family == AF_INET6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	c->timeout_ns = (uint64_t)probe_opt(pc, "timeout")->i;
	snprintf(c->target_name, sizeof(c->target_name), "%s", target);
	if (getnameinfo((struct sockaddr *)&c->target, c->target_len, c->address,
			sizeof(c->address), NULL, 0, NI_NUMERICHOST))
		snprintf(c->address, sizeof(c->address), "?");
	if ((rc = icmp_choose_socket(c, err, errlen))) {
		free(c);
		return rc;
	}
	/* Raw sockets share the host's identifier space with ping and other
	 * runs: a random base makes a collision unlikely, and the token tells
	 * our replies from a colliding one's. */
	if (getrandom(&base, sizeof(base), GRND_NONBLOCK) != (ssize_t)sizeof(base))
		base = (uint16_t)(getpid() ^ probe_mono_ns());
	c->id_base = base;
	pc->results = icmp_results;
	pc->conf = c;
	return 0;
}

/* ------------------------------------------------------------ prepare -- */

static int icmp_fail(struct probe_thread *t, int e, const char *what)
{
	snprintf(t->err, sizeof(t->err), "%.110s: %s", what, strerror(e));
	return -e;
}

/* Room for the replies of one timeout at one interval, and two more: an
 * entry is only reused after at least the timeout, so a ring miss is an
 * answer to an echo already counted lost.  Capped (1.5 MiB): with a
 * timeout of more than 65534 intervals, answers older than the ring are
 * stale though within the timeout. */
static uint64_t icmp_ring_size(uint64_t timeout_ns, uint64_t interval_ns)
{
	uint64_t n = timeout_ns / (interval_ns ? interval_ns : 1) + 2, size = ICMP_RING_MIN;

	while (size < n && size < ICMP_RING_MAX)
		size *= 2;
	return size;
}

/* Raw sockets: echo replies only, and only those with our identifier.
 * ICMP_FILTER / ICMP6_FILTER keep other ICMP types out; the BPF program
 * drops the other threads' (and other processes') replies before they are
 * queued, so they never wake this thread.  Without the BPF program the
 * identifier is checked in the loop (foreign). */
static int icmp_raw_filters(struct probe_thread *t, const struct icmp_conf *c,
			    const struct icmp_slot *s)
{
	const uint32_t id = ntohs(s->id);

	if (c->family == AF_INET) {
		struct icmp_filter f = { .data = ~(1u << ICMP4_ECHO_REPLY) };
		/* A raw IPv4 socket sees the IP header: X = its length. */
		struct sock_filter code[] = {
			BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),
			BPF_STMT(BPF_LD | BPF_B | BPF_IND, 0),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ICMP4_ECHO_REPLY, 0, 3),
			BPF_STMT(BPF_LD | BPF_H | BPF_IND, 4),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, id, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, 0xffff),
			BPF_STMT(BPF_RET | BPF_K, 0),
		};
		struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };
		if (setsockopt(s->fd, SOL_RAW, ICMP_FILTER, &f, sizeof(f)) < 0)
			return icmp_fail(t, errno, "ICMP_FILTER");
		(void)setsockopt(s->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
	} else {
		struct icmp6_filter f;
		/* A raw ICMPv6 socket starts at the ICMPv6 header. */
		struct sock_filter code[] = {
			BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ICMP6_REPLY, 0, 3),
			BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 4),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, id, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, 0xffff),
			BPF_STMT(BPF_RET | BPF_K, 0),
		};
		struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };
		ICMP6_FILTER_SETBLOCKALL(&f);
		ICMP6_FILTER_SETPASS(ICMP6_REPLY, &f);
		if (setsockopt(s->fd, IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof(f)) < 0)
			return icmp_fail(t, errno, "ICMP6_FILTER");
		(void)setsockopt(s->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
	}
	return 0;
}

static int icmp_set_rcvtimeo(int fd, uint64_t ns)
{
	struct timeval tv = { .tv_sec = (time_t)(ns / NSEC_PER_SEC),
			      .tv_usec = (suseconds_t)(ns % NSEC_PER_SEC / 1000) };

	if (tv.tv_sec == 0 && tv.tv_usec == 0)
		tv.tv_usec = 1; /* zero would mean "block forever" */
	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

static int icmp_prepare(struct probe_thread *t)
{
	struct icmp_conf *c = t->pc->conf;
	const uint64_t size = icmp_ring_size(c->timeout_ns, t->interval_ns);
	const uint64_t rcvtimeo = t->interval_ns < ICMP_POLL_NS ? t->interval_ns : ICMP_POLL_NS;
	struct icmp_slot *s = aligned_alloc(64, sizeof(*s));
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);
	int on = 1;

	if (!s)
		return icmp_fail(t, ENOMEM, "icmp state");
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->raw = c->raw;
	s->index = __atomic_fetch_add(&c->nslots, 1, __ATOMIC_RELAXED);
	s->next = __atomic_load_n(&c->slots, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&c->slots, &s->next, s, false, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
	t->priv = s;
	/* The token only tells our replies from strays: not a secret. */
	if (getrandom(&s->token, sizeof(s->token), GRND_NONBLOCK) != (ssize_t)sizeof(s->token))
		s->token = (uint32_t)(probe_mono_ns() ^ ((uint64_t)t->tid << 16));
	s->fd = socket(c->family, (c->raw ? SOCK_RAW : SOCK_DGRAM) | SOCK_CLOEXEC, c->protocol);
	if (s->fd < 0)
		return icmp_fail(t, errno, c->raw ? "raw ICMP socket" : "ICMP datagram socket");
	/* Connected: send() needs no address, the kernel reports ICMP errors
	 * (host unreachable) on the next receive, and a raw socket takes
	 * packets from the target only.  A datagram socket is bound to a
	 * free identifier here. */
	if (connect(s->fd, (const struct sockaddr *)&c->target, c->target_len) < 0) {
		char what[200];
		bool same = !strcmp(c->target_name, c->address);
		snprintf(what, sizeof(what), "cannot reach %.100s%s%s%s", c->target_name,
			 same ? "" : " (", same ? "" : c->address, same ? "" : ")");
		return icmp_fail(t, errno, what);
	}
	if (c->raw) {
		s->id = htons((uint16_t)(c->id_base + s->index));
		int rc = icmp_raw_filters(t, c, s);
		if (rc)
			return rc;
	} else {
		if (getsockname(s->fd, (struct sockaddr *)&local, &len) < 0)
			return icmp_fail(t, errno, "getsockname");
		s->id = local.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&local)->sin6_port
						    : ((struct sockaddr_in *)&local)->sin_port;
	}
	/* Waits for a reply at most one interval (see icmp_run). */
	if (icmp_set_rcvtimeo(s->fd, rcvtimeo) < 0)
		return icmp_fail(t, errno, "SO_RCVTIMEO");
	/* Without it the round trip is still measured; the split is not, and
	 * `untimestamped` counts the replies.  Kept on for the whole run:
	 * enabling flips a global static key in the kernel. */
	(void)setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
	/* Allocated and touched here, on the pinned thread: local memory,
	 * faulted in before the run. */
	s->ring = malloc(size * sizeof(*s->ring));
	if (!s->ring)
		return icmp_fail(t, ENOMEM, "send-time ring");
	for (uint64_t i = 0; i < size; i++)
		s->ring[i] = (struct icmp_ring){ .seq = UINT64_MAX };
	s->ring_mask = size - 1;
	if (s->index == 0) {
		/* Before the start barrier, whose lock publishes it. */
		__atomic_store_n(&c->offset_ns, probe_clock_offset(&c->offset_gap_ns),
				 __ATOMIC_RELAXED);
		c->offset_updates = 1;
	}
	return 0;
}

/* ---------------------------------------------------------------- run -- */

/* RFC 1071 checksum; raw IPv4 only (the kernel fills it in for datagram
 * sockets and for raw ICMPv6). */
static inline uint16_t icmp_checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2) {
		uint16_t w;
		memcpy(&w, b + i, 2);
		sum += w;
	}
	if (len & 1)
		sum += b[len - 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The kernel's receive time (CLOCK_REALTIME) from the control messages; 0
 * if there is none. */
static inline uint64_t icmp_rx_timestamp(struct msghdr *msg)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		struct timespec ts;
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			return probe_ts_ns(&ts);
		}
	}
	return 0;
}

/* Is this an echo reply of ours?  Its 64-bit sequence in *seq if so. */
static inline bool icmp_ours(const struct icmp_conf *c, const struct icmp_slot *s,
			     const uint8_t *buf, ssize_t len, int flags, uint64_t *seq)
{
	struct icmp_msg m;
	size_t off = 0;

	if (flags & MSG_TRUNC)
		return false;
	if (c->family == AF_INET && s->raw) {
		if (len < 20 || (buf[0] >> 4) != 4)
			return false;
		off = (size_t)(buf[0] & 0xf) * 4;
	}
	if (len < 0 || (size_t)len != off + sizeof(m))
		return false;
	memcpy(&m, buf + off, sizeof(m));
	if (m.type != (c->family == AF_INET ? ICMP4_ECHO_REPLY : ICMP6_REPLY) || m.code != 0 ||
	    m.magic != ICMP_MAGIC || m.token != s->token || m.seq != htons((uint16_t)m.seq64))
		return false;
	/* A datagram socket gets its own identifier only; a raw one checks. */
	if (s->raw && m.id != s->id)
		return false;
	*seq = m.seq64;
	return true;
}

/* Like net_remote_run (probe_net.c), whose schedule this keeps:
 *  - nothing unanswered: sleep to the next send time (absolute, like the
 *    timer probe);
 *  - something unanswered: block in recvmsg, at most SO_RCVTIMEO (the
 *    interval, capped at ICMP_POLL_NS, set once in prepare) -- a timeout per
 *    wait would be one more syscall per sample.  While replies are missing,
 *    sends follow the socket timeout (jiffy-grained) instead of the exact
 *    schedule; the slots skipped are counted as missed.
 * The receive time is read right after recvmsg returns: the round trip
 * includes this thread's wake-up, as a real request/response would. */
static int icmp_run(struct probe_thread *t)
{
	struct icmp_conf *c = t->pc->conf;
	struct icmp_slot *s = t->priv;
	const uint64_t interval = t->interval_ns, timeout = c->timeout_ns;
	const bool owner = s->index == 0, sum = c->family == AF_INET && c->raw;
	union {
		uint8_t b[ICMP_RX_BUF];
		uint64_t align;
	} in;
	union {
		struct cmsghdr align;
		char raw[CMSG_SPACE(3 * sizeof(struct timespec)) + 64];
	} cbuf;
	struct icmp_msg out;
	struct iovec iov = { .iov_base = &in, .iov_len = sizeof(in) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &cbuf };
	struct timespec ts;
	uint64_t next = t->start_ns + interval, now = t->start_ns, last_send = 0;
	uint64_t next_offset = t->start_ns + ICMP_OFFSET_PERIOD_NS;
	uint64_t nsent = 0, answered = 0;
	bool waiting = false; /* the newest echo is unanswered */

	memset(&out, 0, sizeof(out));
	out.type = c->family == AF_INET ? ICMP4_ECHO_REQUEST : ICMP6_REQUEST;
	out.id = s->id;
	out.magic = ICMP_MAGIC;
	out.token = s->token;
	for (;;) {
		if (__builtin_expect(probe_should_stop(t), 0))
			break;
		const bool sending = t->loops == 0 || nsent < t->loops;
		/* --loops N: N echoes sent, then wait for the answers up to the
		 * timeout. */
		if (!sending && (answered == nsent || now - last_send > timeout))
			break;
		/* Nothing in flight is when the offset may be re-measured;
		 * when replies are always outstanding, a second late anyway. */
		if (__builtin_expect(owner && now >= next_offset, 0) &&
		    (!waiting || now >= next_offset + ICMP_OFFSET_PERIOD_NS)) {
			icmp_offset_update(c);
			next_offset = now + ICMP_OFFSET_PERIOD_NS;
		}
		if (!waiting && sending) {
			ts.tv_sec = (time_t)(next / NSEC_PER_SEC);
			ts.tv_nsec = (long)(next % NSEC_PER_SEC);
			int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			if (__builtin_expect(rc != 0, 0)) {
				if (rc == EINTR)
					continue;
				return icmp_fail(t, rc, "clock_nanosleep");
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = probe_ts_ns(&ts);
		if (sending && now >= next) {
			struct icmp_ring *e = &s->ring[nsent & s->ring_mask];
			/* Pushed out unanswered: older than the timeout, lost. */
			if (__builtin_expect(e->seq != UINT64_MAX && !e->answered && !e->uncounted,
					     0))
				icmp_add(&s->lost, 1);
			/* Decided once, at the send (probe_counts): an echo of
			 * the warm-up or a settle time is not sent, lost or
			 * received as far as the counters go. */
			const bool counts = probe_counts(t, next);
			*e = (struct icmp_ring){ .seq = nsent,
						 .send_ns = now,
						 .uncounted = !counts };
			out.seq = htons((uint16_t)nsent);
			out.seq64 = nsent;
			if (sum) {
				out.cksum = 0;
				out.cksum = icmp_checksum(&out, sizeof(out));
			}
			/* A refused send still counts as sent: it is never
			 * answered, and `lost` says so. */
			if (__builtin_expect(send(s->fd, &out, sizeof(out), MSG_DONTWAIT) !=
						 (ssize_t)sizeof(out),
					     0) &&
			    counts)
				icmp_add(&s->errors, 1);
			if (counts)
				icmp_add(&s->sent, 1);
			nsent++;
			last_send = now;
			waiting = true;
			next += interval;
			if (__builtin_expect(now >= next, 0)) {
				uint64_t missed = (now - next) / interval + 1;
				if (counts)
					recorder_add_missed(t->rec[ICMP_TOTAL][probe_phase(t)],
							    missed);
				next += missed * interval;
			}
		}
		msg.msg_controllen = sizeof(cbuf);
		msg.msg_flags = 0;
		ssize_t len = recvmsg(s->fd, &msg, 0);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = probe_ts_ns(&ts);
		if (__builtin_expect(len < 0, 0)) {
			int e = errno;
			/* EINTR: the session's stop kick; EAGAIN: SO_RCVTIMEO. */
			if (e == EINTR || e == EAGAIN || e == EWOULDBLOCK)
				continue;
			/* ICMP errors of earlier echoes (host or route gone):
			 * the run goes on, `lost` grows. */
			if (e == ECONNREFUSED || e == EHOSTUNREACH || e == ENETUNREACH ||
			    e == EHOSTDOWN || e == ENETDOWN || e == ENOBUFS || e == ENOMEM ||
			    e == EPROTO || e == EMSGSIZE) {
				icmp_add(&s->errors, 1);
				continue;
			}
			return icmp_fail(t, e, "recvmsg");
		}
		uint64_t seq;
		if (__builtin_expect(
			!icmp_ours(c, s, in.b, len, msg.msg_flags, &seq) || seq >= nsent, 0)) {
			icmp_add(&s->foreign, 1);
			continue;
		}
		struct icmp_ring *e = &s->ring[seq & s->ring_mask];
		if (__builtin_expect(e->seq != seq, 0)) {
			icmp_add(&s->stale, 1); /* older than the ring: counted lost */
			continue;
		}
		/* Every counter of an uncounted echo stays out (probe_counts):
		 * its duplicates and reordering too. */
		if (__builtin_expect(e->answered, 0)) {
			if (!e->uncounted)
				icmp_add(&s->duplicate, 1);
			continue;
		}
		e->answered = true;
		answered++;
		if (seq == nsent - 1)
			waiting = false;
		if (__builtin_expect(s->seen && seq < s->highest, 0)) {
			if (!e->uncounted)
				icmp_add(&s->reordered, 1);
		} else {
			s->highest = seq;
			s->seen = true;
		}
		const uint64_t total = now - e->send_ns;
		if (total > s->rtt_max)
			s->rtt_max = total;
		if (__builtin_expect(e->uncounted, 0)) {
			probe_discard(t, probe_phase(t), 1);
			continue;
		}
		if (__builtin_expect(total > timeout, 0)) {
			icmp_add(&s->late, 1);
			continue;
		}
		icmp_add(&s->received, 1);
		const unsigned ph = probe_phase(t);
		const uint64_t at = now - t->t0_ns;
		probe_record(t, ICMP_TOTAL, ph, total, at);
		const uint64_t krx_rt = icmp_rx_timestamp(&msg);
		if (__builtin_expect(!krx_rt, 0)) {
			icmp_add(&s->untimestamped, 1);
			continue;
		}
		const int64_t off = __atomic_load_n(&c->offset_ns, __ATOMIC_RELAXED);
		const int64_t stack = (int64_t)krx_rt - off - (int64_t)e->send_ns;
		uint64_t st;
		/* The parts come from two clocks, the total from one: a kernel
		 * timestamp converted to outside [send, now] clamps that part
		 * and keeps stack + wakeup == total. */
		if (__builtin_expect(stack < 0, 0)) {
			icmp_add(&s->clamped[ICMP_STACK], 1);
			st = 0;
		} else if (__builtin_expect((uint64_t)stack > total, 0)) {
			icmp_add(&s->clamped[ICMP_WAKEUP], 1);
			st = total;
		} else {
			st = (uint64_t)stack;
		}
		probe_record(t, ICMP_STACK, ph, st, at);
		probe_record(t, ICMP_WAKEUP, ph, total - st, at);
	}
	/* Unanswered at the end but sent so recently that the answer may
	 * still come -- within twice the slowest answer seen, at most the
	 * timeout -- is pending; older is lost.  When nothing ever answered,
	 * nothing is pending: 100 % loss reads lost == sent. */
	const uint64_t window = 2 * s->rtt_max < timeout ? 2 * s->rtt_max : timeout;
	now = probe_mono_ns();
	for (uint64_t i = 0; i <= s->ring_mask; i++) {
		const struct icmp_ring *e = &s->ring[i];
		if (e->seq == UINT64_MAX || e->answered || e->uncounted)
			continue;
		icmp_add(now - e->send_ns <= window ? &s->pending : &s->lost, 1);
	}
	return 0;
}

static void icmp_cleanup(struct probe_thread *t)
{
	struct icmp_slot *s = t->priv;

	if (!s)
		return;
	if (s->fd >= 0)
		(void)close(s->fd);
	s->fd = -1;
	free(s->ring);
	s->ring = NULL; /* the slot stays: the report reads its counters */
}

/* After the report is built (probe_config_free): the slots and the conf. */
static void icmp_unconfigure(struct probe_config *pc)
{
	struct icmp_conf *c = pc->conf;

	for (struct icmp_slot *s = c->slots, *next; s; s = next) {
		next = s->next;
		free(s->ring);
		free(s);
	}
	free(c);
}

/* ----------------------------------------------------------- counters -- */

static void icmp_put(json_t *out, const char *key, uint64_t v)
{
	json_object_set_new(out, key, json_integer((json_int_t)v));
}

static void icmp_counters(const struct probe_thread *t, unsigned result, json_t *out)
{
	const struct icmp_conf *c = t->pc->conf;
	const struct icmp_slot *s = t->priv;

	if (!s)
		return;
	icmp_put(out, "sent", icmp_get(&s->sent));
	icmp_put(out, "received", icmp_get(&s->received));
	icmp_put(out, "lost", icmp_get(&s->lost));
	icmp_put(out, "late", icmp_get(&s->late));
	icmp_put(out, "pending", icmp_get(&s->pending));
	icmp_put(out, "duplicate", icmp_get(&s->duplicate));
	icmp_put(out, "reordered", icmp_get(&s->reordered));
	icmp_put(out, "stale", icmp_get(&s->stale));
	icmp_put(out, "foreign", icmp_get(&s->foreign));
	icmp_put(out, "errors", icmp_get(&s->errors));
	icmp_put(out, "socket_dgram", !s->raw);
	icmp_put(out, "socket_raw", s->raw);
	if (result == ICMP_TOTAL)
		return;
	icmp_put(out, "clamped", icmp_get(&s->clamped[result < 3 ? result : 0]));
	icmp_put(out, "untimestamped", icmp_get(&s->untimestamped));
	/* The family's values on one thread's results only: aggregates sum
	 * counters over CPUs, and a sum of one stays right. */
	if (s->index != 0)
		return;
	icmp_put(out, "clock_offset_updates", icmp_get(&c->offset_updates));
	icmp_put(out, "clock_offset_gap_ns", icmp_get(&c->offset_gap_ns));
	icmp_put(out, "clock_offset_step_max_ns", icmp_get(&c->offset_step_max_ns));
}

const struct probe_ops probe_icmp_ops = {
	.name = "icmp",
	.summary = "ICMP echo round trip to any host (icmp:target=HOST), split at the kernel's "
		   "receive timestamp (icmp.stack/icmp.wakeup)",
	.options = icmp_options,
	.results = icmp_results,
	.at_wakeup = true,
	.configure = icmp_configure,
	.unconfigure = icmp_unconfigure,
	.prepare = icmp_prepare,
	.run = icmp_run,
	.cleanup = icmp_cleanup,
	.counters = icmp_counters,
};
