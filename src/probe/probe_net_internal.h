/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe_net_internal: what the net probe's three files share (probe_net.c:
 * options, configure, prepare, counters and the ops; probe_net_local.c: the
 * loopback receivers and the sender thread; probe_net_remote.c: the round
 * trip to a reflector).  Only they include it. */
#ifndef RTSOAK_PROBE_NET_INTERNAL_H
#define RTSOAK_PROBE_NET_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "probe.h"
#include "probe_clock.h"
#include "util.h"

/* Longest a blocked receive or the sender's sleep lasts before looking at
 * the stop flag again: bounds the end of a run when a stop kick is lost
 * between the flag check and the blocking call, or the interval is long. */
#define NET_POLL_NS (100 * NSEC_PER_MSEC)
/* Offset re-measurement period (probe_clock_offset: the reads). */
#define NET_OFFSET_PERIOD_NS NSEC_PER_SEC
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
	bool uncounted; /* sent in the warm-up or a settle time (probe_counts) */
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

	/* The sender's socket, bound to loopback by the first receiver's
	 * prepare (under sender_lock: the receivers prepare in parallel) so
	 * that every receiver can connect() to its address: the kernel then
	 * drops any other source's datagram before it wakes a receiver. */
	pthread_mutex_t sender_lock;
	int sender_fd;
	struct sockaddr_storage sender_addr;
	socklen_t sender_addrlen;

	/* The family's: written in family_start, by the sender, and in
	 * family_stop; read by the counters hook after the sender is joined. */
	pthread_t sender;
	bool sender_running; /* atomic: receivers' cleanup reads it */
	int sender_cpu;
	bool sender_shares_cpu; /* no unmeasured CPU was left for it */
	uint64_t offset_gap_ns; /* clock read gap of the first offset: its error bound x 2 */
	uint64_t offset_updates, offset_step_max_ns, sender_missed;
	uint64_t sender_missed_uncounted; /* slots skipped in the warm-up or a settle time */
	int sender_error;
};

/* A failed step of prepare: its message in t->err, -e. */
int probe_net_fail(struct probe_thread *t, int e, const char *what);
/* SO_RCVTIMEO of ns (never 0: that would block forever). */
int probe_net_set_rcvtimeo(int fd, uint64_t ns);
void probe_net_close(int *fd);

/* Loopback (probe_net_local.c): bind the receiver, its loop, and the
 * family's sender thread (family_start/family_stop). */
int probe_net_local_prepare(struct probe_thread *t, struct probe_net_conf *c,
			    struct probe_net_slot *s);
int probe_net_local_run(struct probe_thread *t);
int probe_net_local_start(struct probe_family *f, char *err, size_t errlen);
void probe_net_local_stop(struct probe_family *f);

/* Round trip (probe_net_remote.c): connect and size the send-time ring,
 * then the send/receive loop. */
int probe_net_remote_prepare(struct probe_thread *t, struct probe_net_conf *c,
			     struct probe_net_slot *s);
int probe_net_remote_run(struct probe_thread *t);

#endif
