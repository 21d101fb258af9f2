/* probe_net: UDP wake-up latency, two ways.
 *
 * Loopback (`--probes net`, the default): one sender thread for the family,
 * on a housekeeping CPU, sends every measured CPU's receiver one datagram per
 * --net-interval; the receiver is the pinned SCHED_FIFO probe thread,
 * blocked in recvmsg on its own socket.  With the kernel's software receive
 * timestamp each sample splits into
 *   net.stack  = kernel receive timestamp - send time: the send syscall and
 *                loopback transmit, up to where the packet enters the
 *                receive path;
 *   net.wakeup = receiver running - kernel receive timestamp: softirq,
 *                socket queueing, the wake-up and the switch to the receiver;
 *   net        = their sum = receiver running - send time.
 * Send time and wake-up are CLOCK_MONOTONIC; the kernel timestamp is
 * CLOCK_REALTIME, converted with an offset the sender re-measures about once
 * a second (an NTP step during a 24 h run must not corrupt the split).  The
 * total never depends on that offset: when the conversion makes one part
 * negative, that part is clamped to 0, the other gets the whole total, and
 * `clamped` counts it.
 *
 * Round trip (`--probes net:target=HOST[:PORT]`): each probe thread sends to
 * an `rtsoak reflect` and records the round-trip time (net.rtt), both ends
 * of it read on its own CLOCK_MONOTONIC.
 *
 * Counters (the .counters hook, on each thread's phase-"all" results):
 * sent; received (in the statistics); late (answered after --net-timeout:
 * not in the statistics); pending (round trip: unanswered at the end but
 * sent within twice the slowest answer seen, up to --net-timeout;
 * loopback: queued after the receiver stopped); lost =
 * sent - received - late - pending, never negative; reordered (a sequence
 * below the highest seen); duplicate; foreign (not ours: wrong magic,
 * version, length or token; ignored); errors (failed sends and receives,
 * ICMP errors); clamped.  Loopback adds untimestamped (samples without a
 * kernel timestamp: total only) and, on the first measured CPU's results,
 * the family's sender_cpu, sender_on_measured_cpu, sender_missed and how
 * the clocks were converted (clock_offset_*).
 *
 * Hot path rules as in probe_timer.c: no locks, no allocation, no syscalls
 * but the receive (and in round-trip mode the send and the sleep) and the
 * clock reads.  Every counter has one writer: the sender writes `sent`, the
 * receiver everything else, and they are read after both have been joined. */
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
#include "rt.h"
#include "util.h"

/* Longest a blocked receive or the sender's sleep lasts before looking at
 * the stop flag again: bounds the end of a run when a stop kick is lost
 * between the flag check and the blocking call, or the interval is long. */
#define NET_POLL_NS (100 * NSEC_PER_MSEC)
/* Offset re-measurement period and the reads per measurement. */
#define NET_OFFSET_PERIOD_NS NSEC_PER_SEC
#define NET_OFFSET_READS 10
/* Round-trip send-time ring: at least the replies of one --net-timeout. */
#define NET_RING_MIN 16u
#define NET_RING_MAX 65536u
/* After the sender stops, how long to wait for datagrams still in flight. */
#define NET_DRAIN_TRIES 5
#define NET_DRAIN_WAIT_NS (10 * NSEC_PER_MSEC)
#define NET_SENDER_STACK (256 * 1024)

enum { NET_TOTAL, NET_STACK, NET_WAKEUP };

struct probe_net_ring {
	uint64_t seq; /* UINT64_MAX: empty */
	uint64_t send_ns;
	bool answered;
};

/* One measured CPU.  Fields are grouped by writer so that the sender's
 * stores never pull the receiver's hot cache line away from it. */
struct probe_net_slot {
	/* The probe thread's (the receiver): written by it only. */
	int fd;
	uint32_t token;
	bool seen; /* highest is valid */
	uint64_t highest;
	uint64_t rtt_max; /* round trip: the slowest answer, late ones included */
	uint64_t received, late, reordered, foreign, duplicate, pending, errors, untimestamped;
	uint64_t clamped[3];
	struct probe_net_ring *ring; /* round trip only */
	uint64_t ring_mask;
	/* Set by prepare, read by the sender: a line of its own. */
	struct sockaddr_storage addr __attribute__((aligned(64)));
	socklen_t addrlen;
	/* The sender's, on their own cache line; `done` is the receiver's one
	 * store when it stops (--loops), read by the sender before each send. */
	uint64_t sent __attribute__((aligned(64)));
	uint64_t seq;
	int done;
} __attribute__((aligned(64)));

/* Parsed options and the family's state.  Allocated in configure, so the
 * receivers can reach it before family_start (which runs after their start
 * gate opens), and kept for the life of the process, like the config. */
struct probe_net_conf {
	/* CLOCK_REALTIME - CLOCK_MONOTONIC, published by the sender with a
	 * relaxed store; every receiver loads it once per sample. */
	int64_t offset_ns __attribute__((aligned(64)));

	/* Read-only once configured. */
	bool remote __attribute__((aligned(64)));
	int family; /* AF_INET or AF_INET6 */
	struct sockaddr_storage target;
	socklen_t target_len;
	char target_name[300]; /* as given, for messages */
	uint64_t interval_ns, timeout_ns;
	int sender_priority; /* 0: SCHED_OTHER */
	int sender_cpu_opt;  /* --net-sender-cpu, or -1 */
	unsigned nslots;
	struct probe_net_slot *slots;

	/* The family's: written in family_start, by the sender, and in
	 * family_stop; read by the counters hook after the sender is joined. */
	pthread_t sender;
	bool sender_running; /* atomic: receivers' cleanup reads it */
	int sender_fd;
	int sender_cpu;
	bool sender_shares_cpu; /* no unmeasured CPU was left for it */
	uint64_t offset_gap_ns; /* clock read gap of the first offset: its error bound x 2 */
	uint64_t offset_updates, offset_step_max_ns, sender_missed;
	int sender_error;
};

static const char *const net_local_results[] = { "net", "net.stack", "net.wakeup", NULL };
static const char *const net_remote_results[] = { "net.rtt", NULL };

static inline uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

/* REALTIME - MONOTONIC from the back-to-back (MONOTONIC, REALTIME,
 * MONOTONIC) reads with the smallest gap, i.e. the least disturbed by an
 * interrupt or preemption between them. */
static int64_t net_clock_offset(uint64_t *gap_ns)
{
	int64_t best = 0;
	uint64_t best_gap = UINT64_MAX;

	for (int i = 0; i < NET_OFFSET_READS; i++) {
		struct timespec a, r, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &b);
		uint64_t gap = ts_ns(&b) - ts_ns(&a);
		if (gap < best_gap) {
			best_gap = gap;
			best = (int64_t)ts_ns(&r) - (int64_t)(ts_ns(&a) + gap / 2);
		}
	}
	*gap_ns = best_gap;
	return best;
}

/* ---------------------------------------------------------- configure -- */

/* HOST, HOST:PORT, [V6ADDR] or [V6ADDR]:PORT; a bare V6ADDR (several
 * colons) has no port. */
static int net_parse_target(const char *arg, char *host, size_t hostlen, unsigned *port, char *err,
			    size_t errlen)
{
	const char *h = arg, *end, *p = NULL;
	uint64_t v;

	if (*arg == '[') {
		h = arg + 1;
		end = strchr(h, ']');
		if (!end) {
			snprintf(err, errlen, "net: target '%s': missing ']'", arg);
			return -EINVAL;
		}
		if (end[1] == ':')
			p = end + 2;
		else if (end[1]) {
			snprintf(err, errlen, "net: target '%s': expected ':PORT' after ']'", arg);
			return -EINVAL;
		}
	} else {
		const char *colon = strchr(arg, ':');
		end = arg + strlen(arg);
		if (colon && !strchr(colon + 1, ':')) {
			end = colon;
			p = colon + 1;
		}
	}
	if (end == h || (size_t)(end - h) >= hostlen) {
		snprintf(err, errlen, "net: target '%s': %s host", arg,
			 end == h ? "empty" : "too long a");
		return -EINVAL;
	}
	memcpy(host, h, (size_t)(end - h));
	host[end - h] = '\0';
	*port = NETMSG_DEFAULT_PORT;
	if (p) {
		char perr[160];
		if (parse_u64(p, 1, 65535, &v, perr, sizeof(perr))) {
			snprintf(err, errlen, "net: target '%s': port %s", arg, perr);
			return -EINVAL;
		}
		*port = (unsigned)v;
	}
	return 0;
}

static int net_resolve(struct probe_net_conf *c, const char *arg, int family, char *err,
		       size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_protocol = IPPROTO_UDP };
	struct addrinfo *res = NULL;
	char host[256];
	unsigned port;
	int rc;

	if ((rc = net_parse_target(arg, host, sizeof(host), &port, err, errlen)))
		return rc;
	hints.ai_family = family == 6 ? AF_INET6 : family == 4 ? AF_INET : AF_UNSPEC;
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "net: target '%s': cannot resolve '%s'%s: %s", arg, host,
			 family ? (family == 6 ? " as IPv6" : " as IPv4") : "",
			 rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return -EINVAL;
	}
	memcpy(&c->target, res->ai_addr, res->ai_addrlen);
	c->target_len = res->ai_addrlen;
	c->family = res->ai_family;
	if (c->family == AF_INET6)
		((struct sockaddr_in6 *)&c->target)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)&c->target)->sin_port = htons((uint16_t)port);
	freeaddrinfo(res);
	snprintf(c->target_name, sizeof(c->target_name), "%s", arg);
	return 0;
}

static const char *const net_families[] = { "4", "6", NULL };

/* The options: --probes net:interval=500us, or their --net-* aliases. */
static const struct opt net_options[] = {
	{ .name = "target",
	  .type = OPT_STRING,
	  .optional = true,
	  .absent = "loopback",
	  .help = "HOST[:PORT] of an `rtsoak reflect`: round trip instead of loopback" },
	{ .name = "interval",
	  .type = OPT_TIME,
	  .def = "1ms",
	  .min = 1000,
	  .max = 3600 * (int64_t)NSEC_PER_SEC,
	  .bare_ns = NSEC_PER_USEC,
	  .help = "period of the datagrams (bare number: us)" },
	{ .name = "timeout",
	  .type = OPT_TIME,
	  .def = "1s",
	  .min = 1,
	  .max = 3600 * (int64_t)NSEC_PER_SEC,
	  .help = "an answer later than this counts as late (bare number: ms)" },
	{ .name = "family",
	  .type = OPT_CHOICE,
	  .choices = net_families,
	  .optional = true,
	  .help = "IP version (default: the target's; loopback: 4)" },
	{ .name = "priority",
	  .type = OPT_INT,
	  .optional = true,
	  .min = 1,
	  .max = 99,
	  .help = "SCHED_FIFO priority of the loopback sender (default: --priority - 1)" },
	{ .name = "sender-cpu",
	  .type = OPT_INT,
	  .optional = true,
	  .min = 0,
	  .max = CPUSET_MAX - 1,
	  .help = "CPU of the loopback sender (default: a housekeeping CPU)" },
	{ .name = NULL },
};

/* The command-line options scripts already use. */
static const struct probe_alias net_aliases[] = {
	{ "net-interval", "interval" },	    { "net-family", "family" },
	{ "net-timeout", "timeout" },	    { "net-priority", "priority" },
	{ "net-sender-cpu", "sender-cpu" }, { NULL, NULL },
};

/* An optional INT option: its value, or `none` when not given. */
static int net_opt_int(const struct probe_config *pc, const char *name, int none)
{
	const struct opt_value *v = probe_opt(pc, name);

	return v->given ? (int)v->i : none;
}

static int net_configure(struct probe_config *pc, const struct probe_env *env, char *err,
			 size_t errlen)
{
	size_t size = (sizeof(struct probe_net_conf) + 63) & ~(size_t)63;
	const struct opt_value *target = probe_opt(pc, "target");
	int family = net_opt_int(pc, "family", -1) < 0 ? 0 : probe_opt(pc, "family")->i ? 6 : 4;
	int priority = net_opt_int(pc, "priority", 0);
	int sender_cpu = net_opt_int(pc, "sender-cpu", -1);
	struct cpuset online;
	int rc = 0;

	if (sender_cpu >= 0 && cpuset_online(&online) == 0 && !cpuset_has(&online, sender_cpu)) {
		char list[512];
		cpuset_format(&online, list, sizeof(list));
		snprintf(err, errlen, "net: sender-cpu: CPU %d is not online (online: %s)",
			 sender_cpu, list);
		return -EINVAL;
	}
	struct probe_net_conf *c = aligned_alloc(64, size);
	if (!c) {
		snprintf(err, errlen, "net: out of memory");
		return -ENOMEM;
	}
	memset(c, 0, size);
	c->interval_ns = (uint64_t)probe_opt(pc, "interval")->i;
	c->timeout_ns = (uint64_t)probe_opt(pc, "timeout")->i;
	c->sender_cpu_opt = sender_cpu;
	c->sender_priority = env->no_rt		 ? 0
			     : priority		 ? priority
			     : env->priority > 1 ? env->priority - 1
						 : 1;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* The sanitizers' runtime locks spin with sched_yield(), which never
	 * lets a lower SCHED_FIFO priority run: a sender one below the probes,
	 * preempted on a measured CPU while holding such a lock, livelocks
	 * every probe that wants it (seen in CI: probes spinning for 600 s).
	 * At the probes' own priority, yield hands it the CPU.  Only in
	 * sanitizer builds: glibc's locks sleep on a futex instead. */
	if (!env->no_rt && !priority && c->sender_priority < env->priority)
		c->sender_priority = env->priority;
#endif
	c->sender_fd = -1;
	c->sender_cpu = -1;
	c->family = family == 6 ? AF_INET6 : AF_INET;
	if (target->given && !(rc = net_resolve(c, target->s, family, err, errlen)))
		c->remote = true;
	if (!rc) {
		c->nslots = (unsigned)cpuset_count(&env->cpus);
		size = ((size_t)c->nslots * sizeof(*c->slots) + 63) & ~(size_t)63;
		c->slots = aligned_alloc(64, size ? size : 64);
		if (!c->slots) {
			snprintf(err, errlen, "net: out of memory");
			rc = -ENOMEM;
		} else {
			memset(c->slots, 0, size);
		}
	}
	if (rc) {
		free(c);
		return rc;
	}
	pc->results = c->remote ? net_remote_results : net_local_results;
	pc->interval_ns = c->interval_ns;
	pc->conf = c;
	return 0;
}

static void net_unconfigure(struct probe_config *pc)
{
	struct probe_net_conf *c = pc->conf;

	free(c->slots);
	free(c);
}

/* The report's config keeps the keys of the --net-* options (readers and
 * scripts use them), null where chosen at run time. */
static void net_echo(const struct probe_config *pc, json_t *config)
{
	const struct probe_net_conf *c = pc->conf;
	int v;

	if (json_object_get(config, "net_interval_ns"))
		return; /* a second net entry: its own values are in probe_options */
	json_object_set_new(config, "net_interval_ns", json_integer((json_int_t)c->interval_ns));
	json_object_set_new(config, "net_timeout_ns", json_integer((json_int_t)c->timeout_ns));
	v = net_opt_int(pc, "family", -1);
	json_object_set_new(config, "net_family", v < 0 ? json_null() : json_integer(v ? 6 : 4));
	v = net_opt_int(pc, "priority", 0);
	json_object_set_new(config, "net_priority", v ? json_integer(v) : json_null());
	v = net_opt_int(pc, "sender-cpu", -1);
	json_object_set_new(config, "net_sender_cpu", v >= 0 ? json_integer(v) : json_null());
	if (!c->remote) /* loopback: the split uses kernel stamps */
		json_object_set_new(
		    config, "net_rx_timestamps",
		    json_string("software RX timestamps (SO_TIMESTAMPNS, CLOCK_REALTIME) "
				"converted to CLOCK_MONOTONIC with an offset measured at "
				"the start (best of 10 paired clock reads) and again every "
				"second; see the clock_offset_* counters"));
}

/* ------------------------------------------------------------ prepare -- */

/* The thread's slot: its CPU's rank among the measured CPUs. */
static struct probe_net_slot *net_slot(const struct probe_thread *t, struct probe_net_conf *c)
{
	unsigned rank = 0;

	for (int cpu = cpuset_next(&t->env->cpus, 0); cpu >= 0 && cpu < t->cpu;
	     cpu = cpuset_next(&t->env->cpus, cpu + 1))
		rank++;
	return rank < c->nslots ? &c->slots[rank] : NULL;
}

static int net_fail(struct probe_thread *t, int e, const char *what)
{
	snprintf(t->err, sizeof(t->err), "%.110s: %s", what, strerror(e));
	return -e;
}

static int net_set_rcvtimeo(int fd, uint64_t ns)
{
	struct timeval tv = { .tv_sec = (time_t)(ns / NSEC_PER_SEC),
			      .tv_usec = (suseconds_t)(ns % NSEC_PER_SEC / 1000) };

	if (tv.tv_sec == 0 && tv.tv_usec == 0)
		tv.tv_usec = 1; /* zero would mean "block forever" */
	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

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

static int net_prepare_local(struct probe_thread *t, struct probe_net_conf *c,
			     struct probe_net_slot *s)
{
	struct sockaddr_storage *a = &s->addr;

	memset(a, 0, sizeof(*a));
	if (c->family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)a;
		in6->sin6_family = AF_INET6;
		in6->sin6_addr = in6addr_loopback;
		s->addrlen = sizeof(*in6);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)a;
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		s->addrlen = sizeof(*in);
	}
	if (bind(s->fd, (struct sockaddr *)a, s->addrlen) < 0)
		return net_fail(t, errno,
				c->family == AF_INET6 ? "cannot bind to [::1]"
						      : "cannot bind to 127.0.0.1");
	if (getsockname(s->fd, (struct sockaddr *)a, &s->addrlen) < 0)
		return net_fail(t, errno, "getsockname");
	if (net_set_rcvtimeo(s->fd, NET_POLL_NS) < 0)
		return net_fail(t, errno, "SO_RCVTIMEO");
	/* Without them the total is still measured; the split is not, and
	 * `untimestamped` counts the samples. */
	(void)net_enable_timestamps(s->fd);
	return 0;
}

static int net_prepare_remote(struct probe_thread *t, struct probe_net_conf *c,
			      struct probe_net_slot *s)
{
	uint64_t n = c->timeout_ns / c->interval_ns + 2, size = NET_RING_MIN;
	uint64_t rcvtimeo = c->interval_ns < NET_POLL_NS ? c->interval_ns : NET_POLL_NS;

	/* Connected: the kernel drops datagrams from anyone but the target,
	 * and reports ICMP errors (reflector down) on the next receive. */
	if (connect(s->fd, (const struct sockaddr *)&c->target, c->target_len) < 0) {
		char what[128];
		snprintf(what, sizeof(what), "cannot reach %.100s", c->target_name);
		return net_fail(t, errno, what);
	}
	/* Waits for a reply at most one interval, then it is time to send
	 * again; see net_remote_run. */
	if (net_set_rcvtimeo(s->fd, rcvtimeo) < 0)
		return net_fail(t, errno, "SO_RCVTIMEO");
	while (size < n && size < NET_RING_MAX)
		size *= 2;
	/* Allocated and touched here, on the pinned thread: local memory,
	 * faulted in before the run. */
	s->ring = malloc(size * sizeof(*s->ring));
	if (!s->ring)
		return net_fail(t, ENOMEM, "send-time ring");
	for (uint64_t i = 0; i < size; i++)
		s->ring[i] = (struct probe_net_ring){ .seq = UINT64_MAX };
	s->ring_mask = size - 1;
	return 0;
}

static int net_prepare(struct probe_thread *t)
{
	struct probe_net_conf *c = t->pc->conf;
	struct probe_net_slot *s = net_slot(t, c);
	uint32_t token;

	if (!s) {
		snprintf(t->err, sizeof(t->err), "no slot for CPU %d (CPU list changed?)", t->cpu);
		return -EINVAL;
	}
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	/* The token only tells our datagrams from strays: not a secret. */
	if (getrandom(&token, sizeof(token), GRND_NONBLOCK) != (ssize_t)sizeof(token))
		token = (uint32_t)(mono_ns() ^ ((uint64_t)t->tid << 16));
	s->token = token;
	t->priv = s;
	s->fd = socket(c->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return net_fail(t, errno, "socket");
	return c->remote ? net_prepare_remote(t, c, s) : net_prepare_local(t, c, s);
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
			return ts_ns(&ts);
		}
	}
	return 0;
}

static int net_local_run(struct probe_thread *t)
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
			if (e == ENOMEM || e == ENOBUFS) {
				s->errors++;
				continue;
			}
			return net_fail(t, e, "recvmsg");
		}
		if (__builtin_expect(!netmsg_ours(&buf.m, len, msg.msg_flags, s->token, 0), 0)) {
			s->foreign++;
			continue;
		}
		const uint64_t now = ts_ns(&ts), sent = netmsg_send_ns(&buf.m);
		const uint64_t seq = netmsg_seq(&buf.m);
		if (__builtin_expect(s->seen && seq <= s->highest, 0)) {
			if (seq == s->highest) {
				s->duplicate++;
				continue;
			}
			s->reordered++;
		} else {
			s->highest = seq;
			s->seen = true;
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
static int net_remote_run(struct probe_thread *t)
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
	uint64_t next = t->t0_ns + interval, now = t->t0_ns, last_send = 0;
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
				return net_fail(t, rc, "clock_nanosleep");
			}
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts_ns(&ts);
		if (sending && now >= next) {
			struct probe_net_ring *e = &s->ring[nsent & s->ring_mask];
			netmsg_fill(&out, 0, s->token, nsent, now);
			*e = (struct probe_net_ring){ .seq = nsent, .send_ns = now };
			/* A refused send still counts as sent: it is never
			 * answered, and `lost` should say so. */
			if (__builtin_expect(send(s->fd, &out, sizeof(out), MSG_DONTWAIT) !=
						 (ssize_t)sizeof(out),
					     0))
				s->errors++;
			s->sent++;
			nsent++;
			last_send = now;
			waiting = true;
			next += interval;
			if (__builtin_expect(now >= next, 0)) {
				uint64_t missed = (now - next) / interval + 1;
				recorder_add_missed(t->rec[0][probe_phase(t)], missed);
				next += missed * interval;
			}
		}
		msg.msg_flags = 0;
		ssize_t len = recvmsg(s->fd, &msg, 0);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts_ns(&ts);
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
			return net_fail(t, e, "recvmsg");
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
			s->late++; /* older than the ring, which spans the timeout */
			continue;
		}
		if (__builtin_expect(e->answered, 0)) {
			s->duplicate++;
			continue;
		}
		e->answered = true;
		answered++;
		if (seq == nsent - 1)
			waiting = false;
		if (__builtin_expect(s->seen && seq < s->highest, 0)) {
			s->reordered++;
		} else {
			s->highest = seq;
			s->seen = true;
		}
		const uint64_t rtt = now - e->send_ns;
		if (rtt > s->rtt_max)
			s->rtt_max = rtt;
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
	now = mono_ns();
	for (uint64_t i = 0; i <= s->ring_mask; i++) {
		const struct probe_net_ring *e = &s->ring[i];
		if (e->seq != UINT64_MAX && !e->answered && now - e->send_ns <= window)
			s->pending++;
	}
	return 0;
}

static int net_run(struct probe_thread *t)
{
	const struct probe_net_conf *c = t->pc->conf;

	return c->remote ? net_remote_run(t) : net_local_run(t);
}

static void net_close(int *fd)
{
	if (*fd >= 0)
		(void)close(*fd);
	*fd = -1;
}

static void net_cleanup(struct probe_thread *t)
{
	struct probe_net_conf *c = t->pc->conf;
	struct probe_net_slot *s = t->priv;

	if (!s)
		return;
	free(s->ring);
	s->ring = NULL;
	/* While the sender runs it may still send here: family_stop joins it,
	 * drains what arrived after this receiver stopped, then closes. */
	if (c->remote || !__atomic_load_n(&c->sender_running, __ATOMIC_ACQUIRE))
		net_close(&s->fd);
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
	uint64_t next = f->t0_ns + interval, next_offset = f->t0_ns + NET_OFFSET_PERIOD_NS;
	struct netmsg m;
	struct timespec ts;

	(void)pthread_setname_np(pthread_self(), "rtsoak/net-tx");
	rt_prefault_stack(64 * 1024);
	while (!__atomic_load_n(f->stop, __ATOMIC_RELAXED)) {
		uint64_t now = mono_ns(), wake = next;
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
		now = mono_ns();
		if (now < next || __atomic_load_n(f->stop, __ATOMIC_RELAXED))
			continue;
		for (unsigned i = 0; i < f->n; i++) {
			struct probe_net_slot *s = net_thread_slot(f, i);
			if (__atomic_load_n(&s->done, __ATOMIC_RELAXED))
				continue;
			/* Stamped right before its own send, so one receiver's
			 * stack time does not include the others' sends. */
			netmsg_fill(&m, 0, s->token, s->seq, mono_ns());
			if (sendto(c->sender_fd, &m, sizeof(m), MSG_DONTWAIT,
				   (const struct sockaddr *)&s->addr,
				   s->addrlen) == (ssize_t)sizeof(m)) {
				s->sent++;
				s->seq++;
			}
			/* a failed send was not sent: not counted, not lost */
		}
		if (now >= next_offset) {
			uint64_t gap;
			int64_t off = net_clock_offset(&gap);
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
			c->sender_missed += missed;
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

static int net_family_start(struct probe_family *f, char *err, size_t errlen)
{
	struct probe_net_conf *c = f->pc->conf;
	int rc;

	if (c->remote)
		return 0; /* every thread sends for itself */
	c->sender_missed = c->offset_updates = c->offset_step_max_ns = 0;
	c->sender_error = 0;
	c->sender_cpu = net_sender_cpu(c, f->env, &c->sender_shares_cpu);
	c->sender_fd = socket(c->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (c->sender_fd < 0) {
		rc = errno;
		snprintf(err, errlen, "sender socket: %s", strerror(rc));
		return -rc;
	}
	/* Before the first datagram: published to the receivers by the send
	 * itself (a syscall and a wake-up order it). */
	__atomic_store_n(&c->offset_ns, net_clock_offset(&c->offset_gap_ns), __ATOMIC_RELAXED);
	c->offset_updates = 1;

	rc = rt_thread_create(&c->sender, c->sender_cpu, c->sender_priority, NET_SENDER_STACK,
			      net_sender_main, f);
	if (rc) {
		net_close(&c->sender_fd);
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

static void net_family_stop(struct probe_family *f)
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
		net_close(&net_thread_slot(f, i)->fd);
	net_close(&c->sender_fd);
}

/* ----------------------------------------------------------- counters -- */

static void net_put(json_t *out, const char *key, uint64_t v)
{
	json_object_set_new(out, key, json_integer((json_int_t)v));
}

static void net_counters(const struct probe_thread *t, unsigned result, json_t *out)
{
	const struct probe_net_conf *c = t->pc->conf;
	const struct probe_net_slot *s = t->priv;

	if (!s)
		return;
	/* Duplicates are extra copies, not more datagrams sent. */
	uint64_t accounted = s->received + s->late + s->pending;
	net_put(out, "sent", s->sent);
	net_put(out, "received", s->received);
	net_put(out, "lost", s->sent > accounted ? s->sent - accounted : 0);
	net_put(out, "late", s->late);
	net_put(out, "reordered", s->reordered);
	net_put(out, "foreign", s->foreign);
	net_put(out, "duplicate", s->duplicate);
	net_put(out, "pending", s->pending);
	net_put(out, "errors", s->errors);
	if (c->remote)
		return;
	net_put(out, "clamped", s->clamped[result < 3 ? result : 0]);
	if (result != NET_TOTAL)
		net_put(out, "untimestamped", s->untimestamped);
	/* The family's own values go on the first measured CPU's results only:
	 * aggregates sum counters over CPUs, and a sum of one stays right. */
	if (s != &c->slots[0])
		return;
	net_put(out, "sender_cpu", c->sender_cpu >= 0 ? (uint64_t)c->sender_cpu : 0);
	net_put(out, "sender_on_measured_cpu", c->sender_shares_cpu);
	net_put(out, "sender_missed", c->sender_missed);
	if (result == NET_TOTAL)
		return;
	/* How the kernel's CLOCK_REALTIME timestamps became CLOCK_MONOTONIC:
	 * offset measurements, the read gap of the first (its error is at most
	 * half of it) and the largest change between two (an NTP step). */
	net_put(out, "clock_offset_updates", c->offset_updates);
	net_put(out, "clock_offset_gap_ns", c->offset_gap_ns);
	net_put(out, "clock_offset_step_max_ns", c->offset_step_max_ns);
}

const struct probe_ops probe_net_ops = {
	.name = "net",
	.summary = "UDP wake-up latency: loopback (stack/wakeup split) or round trip to "
		   "`rtsoak reflect` (net:target=HOST[:PORT])",
	.options = net_options,
	.aliases = net_aliases,
	.results = net_local_results,
	.configure = net_configure,
	.unconfigure = net_unconfigure,
	.echo = net_echo,
	.prepare = net_prepare,
	.run = net_run,
	.cleanup = net_cleanup,
	.family_start = net_family_start,
	.family_stop = net_family_stop,
	.counters = net_counters,
};
