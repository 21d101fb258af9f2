/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netmsg: the one datagram of the net probe, shared by the probe (both its
 * loopback sender and its round-trip mode) and `rtsoak reflect`.
 *
 * 32 bytes, every field big-endian, so a reflector on another machine (or
 * another architecture) can check and echo it.  Only the thread that wrote
 * seq and send_ns interprets them again, after the echo.
 *
 * A reflector echoes only datagrams with the right magic, version and length
 * and without NETMSG_F_REPLY, and sets that flag on the echo: two reflectors
 * tricked (by a forged source address) into talking to each other drop the
 * first echo instead of ping-ponging forever. */
#ifndef RTSOAK_NETMSG_H
#define RTSOAK_NETMSG_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* The reflector's default UDP port (`rtsoak reflect --port`, and the port of
 * `--probes net:target=HOST` when none is given).  Unassigned by IANA. */
#define NETMSG_DEFAULT_PORT 47120
#define NETMSG_MAGIC 0x72744e31u /* "rtN1" */
#define NETMSG_VERSION 1
/* Set by the reflector on its echo. */
#define NETMSG_F_REPLY 0x0001u
/* In `zero`, only between the loopback sender and its receivers (never on
 * the wire to a reflector): sent in the warm-up or an ab settle time, so
 * the receiver discards it, as the sender did not count it sent. */
#define NETMSG_UNCOUNTED 1u

struct netmsg {
	uint32_t magic;
	uint16_t version;
	uint16_t flags;
	uint32_t token; /* chosen per probe thread: tells our datagrams from a stranger's */
	uint32_t zero;	/* keeps seq 8-byte aligned; NETMSG_UNCOUNTED on loopback */
	uint64_t seq;
	uint64_t send_ns; /* the sender's CLOCK_MONOTONIC at send */
};

_Static_assert(sizeof(struct netmsg) == 32, "the wire format is 32 bytes");

static inline void netmsg_fill(struct netmsg *m, uint16_t flags, uint32_t token, uint64_t seq,
			       uint64_t send_ns)
{
	m->magic = htobe32(NETMSG_MAGIC);
	m->version = htobe16(NETMSG_VERSION);
	m->flags = htobe16(flags);
	m->token = htobe32(token);
	m->zero = 0;
	m->seq = htobe64(seq);
	m->send_ns = htobe64(send_ns);
}

/* Is this an rtsoak datagram at all: length (len is recvmsg's return, with
 * MSG_TRUNC in msg_flags for a longer one), magic and version. */
static inline bool netmsg_valid(const struct netmsg *m, ssize_t len, int msg_flags)
{
	return len == (ssize_t)sizeof(*m) && !(msg_flags & MSG_TRUNC) &&
	       m->magic == htobe32(NETMSG_MAGIC) && m->version == htobe16(NETMSG_VERSION);
}

/* Valid, and sent by the thread owning `token`, with exactly `flags`. */
static inline bool netmsg_ours(const struct netmsg *m, ssize_t len, int msg_flags, uint32_t token,
			       uint16_t flags)
{
	return netmsg_valid(m, len, msg_flags) && m->token == htobe32(token) &&
	       m->flags == htobe16(flags);
}

static inline uint64_t netmsg_seq(const struct netmsg *m)
{
	return be64toh(m->seq);
}

static inline uint64_t netmsg_send_ns(const struct netmsg *m)
{
	return be64toh(m->send_ns);
}

#endif
