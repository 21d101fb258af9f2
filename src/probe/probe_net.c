// SPDX-License-Identifier: GPL-2.0-or-later
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
 * version, length or token; ignored, but the session warns and may call the
 * run disturbed: every receiver is connected to its sender or target, so
 * the kernel drops other sources' datagrams and only a forged source gets
 * here); errors (failed sends and receives,
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
#include "probe_net_internal.h"
#include "rt.h"
#include "util.h"

static const char *const net_local_results[] = { "net", "net.stack", "net.wakeup", NULL };
static const char *const net_remote_results[] = { "net.rtt", NULL };

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
	pthread_mutex_init(&c->sender_lock, NULL);
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
		pthread_mutex_destroy(&c->sender_lock);
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

	/* Open when a receiver's prepare bound it but the sender never
	 * started (another probe failed to set up). */
	probe_net_close(&c->sender_fd);
	pthread_mutex_destroy(&c->sender_lock);
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

int probe_net_fail(struct probe_thread *t, int e, const char *what)
{
	snprintf(t->err, sizeof(t->err), "%.110s: %s", what, strerror(e));
	return -e;
}

int probe_net_set_rcvtimeo(int fd, uint64_t ns)
{
	struct timeval tv = { .tv_sec = (time_t)(ns / NSEC_PER_SEC),
			      .tv_usec = (suseconds_t)(ns % NSEC_PER_SEC / 1000) };

	if (tv.tv_sec == 0 && tv.tv_usec == 0)
		tv.tv_usec = 1; /* zero would mean "block forever" */
	return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
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
		token = (uint32_t)(probe_mono_ns() ^ ((uint64_t)t->tid << 16));
	s->token = token;
	t->priv = s;
	s->fd = socket(c->family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return probe_net_fail(t, errno, "socket");
	return c->remote ? probe_net_remote_prepare(t, c, s) : probe_net_local_prepare(t, c, s);
}

static int net_run(struct probe_thread *t)
{
	const struct probe_net_conf *c = t->pc->conf;

	return c->remote ? probe_net_remote_run(t) : probe_net_local_run(t);
}

void probe_net_close(int *fd)
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
		probe_net_close(&s->fd);
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
	net_put(out, "sender_missed_uncounted", c->sender_missed_uncounted);
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
	.at_wakeup = true,
	.configure = net_configure,
	.unconfigure = net_unconfigure,
	.echo = net_echo,
	.prepare = net_prepare,
	.run = net_run,
	.cleanup = net_cleanup,
	.family_start = probe_net_local_start,
	.family_stop = probe_net_local_stop,
	.counters = net_counters,
};
