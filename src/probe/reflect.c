// SPDX-License-Identifier: GPL-2.0-or-later
/* reflect: `rtsoak reflect`, a UDP echo server for the net probe's round
 * trip.
 *
 * It echoes rtsoak datagrams only (magic, version and length right, not
 * already an echo) and counts everything else as ignored: it must not turn
 * into a generic UDP amplifier, and must not echo another reflector's echo.
 * It runs pinned and SCHED_FIFO like a probe so that the round trip
 * measures the probe side, not a reflector sharing its CPU with the world.
 *
 * Default bind: "::" dual-stack (IPv4 and IPv6 clients), or 0.0.0.0 where
 * IPv6 is off; port NETMSG_DEFAULT_PORT. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cmdopt.h"
#include "cpuset.h"
#include "exit.h"
#include "netmsg.h"
#include "parse.h"
#include "reflect.h"
#include "rt.h"
#include "util.h"

#define REFLECT_DEFAULT_PRIORITY 90
/* A blocked receive looks at the stop flag at least this often: a signal
 * that lands between the check and recvmsg costs at most this long. */
#define REFLECT_POLL_US 100000

struct reflect_opts {
	const char *bind; /* NULL: dual-stack "::", else 0.0.0.0 */
	unsigned port;
	int cpu; /* -1: unpinned */
	int priority;
};

static volatile sig_atomic_t reflect_stop;

static void reflect_on_signal(int sig)
{
	reflect_stop = sig;
}

#define REFLECT_STR_(x) #x
#define REFLECT_STR(x) REFLECT_STR_(x)

/* The table that parses `rtsoak reflect`, prints its options and completes
 * them (cmdopt.h). */
const struct cmdopt reflect_cmdopts[] = {
	{ "bind", 'b', 'b', "ADDR", "local address (default :: for IPv4 and IPv6, else 0.0.0.0)",
	  CMDOPT_NONE, NULL },
	{ "port", 'P', 'P', "N", "UDP port (default " REFLECT_STR(NETMSG_DEFAULT_PORT) ")",
	  CMDOPT_NONE, NULL },
	{ "cpu", 'c', 'c', "N", "pin to CPU N (default: unpinned)", CMDOPT_CPUS, NULL },
	{ "priority", 'p', 'p', "P",
	  "SCHED_FIFO priority 1-99, 0 for SCHED_OTHER (default " REFLECT_STR(
	      REFLECT_DEFAULT_PRIORITY) ")",
	  CMDOPT_NONE, NULL },
	{ "help", 'h', 'h', NULL, "this help", CMDOPT_NONE, NULL },
	{ NULL, 0, 0, NULL, NULL, CMDOPT_NONE, NULL },
};

static void reflect_usage(FILE *out)
{
	fputs("usage: rtsoak reflect [--bind ADDR] [--port N] [--cpu N] [--priority P]\n"
	      "\n"
	      "Echo the net probe's datagrams (rtsoak run --probes net:target=HOST[:PORT]).\n"
	      "\n",
	      out);
	cmdopt_usage(out, reflect_cmdopts);
	fputs("\nRuns until SIGINT or SIGTERM, then prints what it served.\n", out);
}

static int reflect_parse(struct reflect_opts *o, int argc, char **argv)
{
	struct option opts[sizeof(reflect_cmdopts) / sizeof(reflect_cmdopts[0])];
	char shorts[16];
	char err[256];
	uint64_t v;
	int opt;

	*o = (struct reflect_opts){ .port = NETMSG_DEFAULT_PORT,
				    .cpu = -1,
				    .priority = REFLECT_DEFAULT_PRIORITY };
	if (cmdopt_getopt(reflect_cmdopts, opts, sizeof(opts) / sizeof(opts[0]), shorts,
			  sizeof(shorts)))
		abort(); /* a bug: sized for the table */
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			o->bind = optarg;
			break;
		case 'P':
			if (parse_u64(optarg, 1, 65535, &v, err, sizeof(err))) {
				rtsoak_error("reflect: --port: %s", err);
				return EXIT_USAGE;
			}
			o->port = (unsigned)v;
			break;
		case 'c': {
			struct cpuset online;
			if (parse_u64(optarg, 0, CPUSET_MAX - 1, &v, err, sizeof(err))) {
				rtsoak_error("reflect: --cpu: %s", err);
				return EXIT_USAGE;
			}
			if (cpuset_online(&online) == 0 && !cpuset_has(&online, (int)v)) {
				char list[256];
				cpuset_format(&online, list, sizeof(list));
				rtsoak_error("reflect: --cpu: CPU %d is not online (online: %s)",
					     (int)v, list);
				return EXIT_USAGE;
			}
			o->cpu = (int)v;
			break;
		}
		case 'p':
			if (parse_u64(optarg, 0, 99, &v, err, sizeof(err))) {
				rtsoak_error("reflect: --priority: %s", err);
				return EXIT_USAGE;
			}
			o->priority = (int)v;
			break;
		case 'h':
			reflect_usage(stdout);
			return EXIT_OK;
		case ':':
			rtsoak_error("reflect: %s needs a value", argv[optind - 1]);
			return EXIT_USAGE;
		default: {
			char hint[96];
			bool near =
			    *cmdopt_hint(reflect_cmdopts, argv[optind - 1], hint, sizeof(hint));
			rtsoak_error("reflect: unknown option '%s' (%s)", argv[optind - 1],
				     near ? hint : "see rtsoak reflect --help");
			return EXIT_USAGE;
		}
		}
	}
	if (optind < argc) {
		rtsoak_error("reflect: unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	return -1;
}

static void reflect_format(const struct sockaddr *sa, socklen_t len, char *buf, size_t buflen)
{
	char host[NI_MAXHOST], serv[NI_MAXSERV];

	if (getnameinfo(sa, len, host, sizeof(host), serv, sizeof(serv),
			NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(buf, buflen, "?");
		return;
	}
	snprintf(buf, buflen, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, serv);
}

/* The bound socket, or -(exit code) after printing why. */
static int reflect_open(const struct reflect_opts *o, char *where, size_t wherelen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM,
				  .ai_protocol = IPPROTO_UDP,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	char host[256], port[16];
	const char *h = o->bind;
	int fd, rc, e, off = 0;

	snprintf(port, sizeof(port), "%u", o->port);
	if (!h) {
		/* Dual stack: one socket serves both families. */
		h = "::";
		fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0 && errno == EAFNOSUPPORT)
			h = "0.0.0.0";
		else if (fd >= 0 &&
			 setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) < 0)
			h = "0.0.0.0";
		if (fd >= 0)
			close(fd);
	} else if (h[0] == '[' && h[strlen(h) - 1] == ']' && strlen(h) < sizeof(host) + 2) {
		snprintf(host, sizeof(host), "%.*s", (int)strlen(h) - 2, h + 1);
		h = host;
	}
	rc = getaddrinfo(h, port, &hints, &res);
	if (rc) {
		rtsoak_error("reflect: --bind: cannot resolve '%s': %s", h,
			     rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return -EXIT_USAGE;
	}
	reflect_format(res->ai_addr, res->ai_addrlen, where, wherelen);
	fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rtsoak_error("reflect: cannot open a UDP socket for %s: %s", where,
			     strerror(errno));
		freeaddrinfo(res);
		return -EXIT_ENV;
	}
	if (res->ai_family == AF_INET6 && !o->bind &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) < 0) {
		rtsoak_error("reflect: cannot make %s dual-stack: %s", where, strerror(errno));
		freeaddrinfo(res);
		close(fd);
		return -EXIT_ENV;
	}
	rc = bind(fd, res->ai_addr, res->ai_addrlen);
	e = errno;
	freeaddrinfo(res);
	if (rc == 0)
		return fd;
	close(fd);
	switch (e) {
	case EADDRINUSE:
		rtsoak_error("reflect: port %u is in use on %s", o->port, where);
		return -EXIT_USAGE;
	case EADDRNOTAVAIL:
		rtsoak_error("reflect: --bind: %s is not an address of this machine", where);
		return -EXIT_USAGE;
	case EACCES:
		rtsoak_error("reflect: cannot bind %s: %s (ports below 1024 need root or "
			     "CAP_NET_BIND_SERVICE)",
			     where, strerror(e));
		return -EXIT_ENV;
	default:
		rtsoak_error("reflect: cannot bind %s: %s", where, strerror(e));
		return -EXIT_USAGE;
	}
}

/* Pin and raise: a wrong CPU is bad input (2); missing RT privileges only
 * cost fidelity, so they are a warning. */
static int reflect_sched(const struct reflect_opts *o, char *policy, size_t policylen)
{
	struct sched_param sp = { .sched_priority = o->priority };
	char err[512];
	int rc;

	if (o->cpu >= 0) {
		struct cpuset one;
		cpuset_clear(&one);
		cpuset_set(&one, o->cpu);
		if ((rc = rt_pin_self(&one)) < 0) {
			rtsoak_error("reflect: --cpu: cannot run on CPU %d: %s", o->cpu,
				     strerror(-rc));
			return EXIT_USAGE;
		}
	}
	snprintf(policy, policylen, "SCHED_OTHER");
	if (o->priority > 0) {
		rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
		if (rc)
			rtsoak_error("reflect: warning: cannot use SCHED_FIFO priority %d: %s; "
				     "running as SCHED_OTHER",
				     o->priority, strerror(rc));
		else
			snprintf(policy, policylen, "SCHED_FIFO %d", o->priority);
	}
	rc = rt_lock_memory(err, sizeof(err));
	if (rc < 0)
		rtsoak_error("reflect: warning: %s", err);
	return -1;
}

int reflect_main(int argc, char **argv)
{
	struct reflect_opts o;
	struct sigaction sa = { .sa_handler = reflect_on_signal };
	struct timeval tv = { .tv_sec = 0, .tv_usec = REFLECT_POLL_US };
	char where[NI_MAXHOST + NI_MAXSERV + 8], policy[32];
	uint64_t served = 0, ignored = 0, errors = 0, t0;
	sigset_t unblock;
	int fd, rc;

	if ((rc = reflect_parse(&o, argc, argv)) >= 0)
		return rc;
	fd = reflect_open(&o, where, sizeof(where));
	if (fd < 0)
		return -fd;
	if ((rc = reflect_sched(&o, policy, sizeof(policy))) >= 0) {
		close(fd);
		return rc;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		rtsoak_error("reflect: SO_RCVTIMEO: %s", strerror(errno));
		close(fd);
		return EXIT_ENV;
	}
	/* No SA_RESTART: the signal must break recvmsg. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&unblock);
	sigaddset(&unblock, SIGINT);
	sigaddset(&unblock, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &unblock, NULL);

	char cpu[16] = "any";
	if (o.cpu >= 0)
		snprintf(cpu, sizeof(cpu), "%d", o.cpu);
	printf("rtsoak reflect: listening on %s, CPU %s, %s\n", where, cpu, policy);
	fflush(stdout);
	t0 = util_now_ns(CLOCK_MONOTONIC);
	while (!reflect_stop) {
		union {
			struct netmsg m;
			char raw[sizeof(struct netmsg) + 1];
		} buf;
		struct sockaddr_storage from;
		struct iovec iov = { .iov_base = &buf, .iov_len = sizeof(buf) };
		struct msghdr msg = {
			.msg_name = &from,
			.msg_namelen = sizeof(from),
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		ssize_t len = recvmsg(fd, &msg, 0);
		if (len < 0) {
			int e = errno;
			if (e == EINTR || e == EAGAIN || e == EWOULDBLOCK)
				continue;
			if (e == ENOMEM || e == ENOBUFS || e == ECONNREFUSED) {
				errors++;
				continue;
			}
			rtsoak_error("reflect: recvmsg: %s", strerror(e));
			close(fd);
			return EXIT_ENV;
		}
		if (!netmsg_valid(&buf.m, len, msg.msg_flags) ||
		    (be16toh(buf.m.flags) & NETMSG_F_REPLY)) {
			ignored++;
			continue;
		}
		buf.m.flags = htobe16(be16toh(buf.m.flags) | NETMSG_F_REPLY);
		if (sendto(fd, &buf.m, sizeof(buf.m), MSG_DONTWAIT, (struct sockaddr *)&from,
			   msg.msg_namelen) == (ssize_t)sizeof(buf.m))
			served++;
		else
			errors++;
	}
	double secs = (double)(util_now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
	close(fd);
	printf("rtsoak reflect: served %llu, ignored %llu, send errors %llu, %.3f s (%s)\n",
	       (unsigned long long)served, (unsigned long long)ignored, (unsigned long long)errors,
	       secs, strsignal(reflect_stop));
	return EXIT_OK;
}
