// SPDX-License-Identifier: GPL-2.0-or-later
/* slab: kernel slab allocator churn, tuned to make SLUB take its slow paths.
 *
 * Why it hurts latency: SLUB's fast paths are per-CPU and lock-free, but
 * two things push it onto slow paths that run with interrupts disabled:
 *  - An object freed on a CPU other than the one whose per-CPU slab it came
 *    from is a "remote" free: it goes to the slab page's freelist with a
 *    cmpxchg, and a slab that goes from full to partial this way is put on
 *    the freeing CPU's per-CPU partial list (put_cpu_partial()).  When that
 *    list exceeds the cache's cpu_partial limit it is flushed
 *    (__put_partials()) under the node's list_lock with IRQs off, and empty
 *    slabs are discarded back to the page allocator.
 *  - Allocating a batch and then freeing it all empties whole slabs at once,
 *    which again overflows per-CPU partial lists and frees slab pages.
 * Each worker pins itself, so both patterns are guaranteed rather than left
 * to the scheduler's placement.
 *
 * Workers, per load CPU k (the k-th CPU of cpus=, in order):
 *  - sender (modes all, cross): sends datagrams with sendmmsg() to the
 *    receiver on load CPU k+1 (mod n) over a unix datagram socket, and every
 *    UDP_EVERY-th batch also over UDP on 127.0.0.1 (loopback only).  The
 *    skbs are allocated on CPU k and freed by recvmsg() on the receiver's
 *    CPU: cross-CPU frees.  With a single load CPU the sender and receiver
 *    share that CPU (the frees are then local, but the wake-ups between the
 *    two tasks remain).  Unix datagrams are flow-controlled by the sender's
 *    send buffer (the receiver connects back, see recv_ctl()); UDP is paced
 *    by the receive queue's memory so that the sender does not just fill the
 *    queue and have the rest dropped.
 *  - receiver (modes all, cross): drains both sockets with recvmmsg(),
 *    waiting in poll() with a 50 ms timeout.
 *  - bulk (modes all, bulk): cycles of `batch` objects created then all
 *    closed: unix sockets, UDP sockets, pipes, eventfds, epoll instances (each
 *    a file, and inode, dentry, socket or pipe buffers as the kind has them);
 *    in mode all also a cycle of small files (see below), given no more
 *    time than the fd cycle before it took.  Closing is done
 *    with close_range() over runs of our own descriptors, so the __fput()s of
 *    a whole batch run back to back in task_work on return to user space.
 *  - files (mode files): cycles of `batch` small files created in the run's
 *    private directory in --workdir
 *    then unlinked (dentries, inodes, the file system's own objects).
 *  With free=next (the default) a bulk or files worker on load CPU k creates
 *  its batch there and moves to load CPU k+1 (mod n) to free it, then back:
 *  so the whole batch is freed remotely, every free takes __slab_free()
 *  (the object's slab is never the freeing CPU's own), and the emptied slabs
 *  pile onto that CPU's partial list.  Freed on the CPU that allocated them
 *  (free=own), most of these frees hit the CPU's own slab: the fast path,
 *  which is what any busy program (hackbench) already does.  The move costs
 *  two sched_setaffinity() calls per batch of `batch` objects; the stopper
 *  that migrates a running task runs on the CPU it leaves, in place of the
 *  worker that asked, for microseconds.  The workers' phases are not
 *  synchronized, so in mode bulk or files alone two of them often crowd one
 *  CPU (bench/HISTORY.md, 2026-12-01); in mode all each CPU keeps its sender
 *  and receiver.
 *
 * One op is one object allocated and freed: a datagram received, a
 * descriptor closed or a file unlinked.  Senders count no ops (their
 * datagrams are counted by the receivers), only errors.
 *
 * The UDP socket is created by the sender, which passes it to the receiver
 * with SCM_RIGHTS over a second abstract unix socket ("the offer"): so no
 * port number has to be agreed on, and either side can be restarted on its
 * own (a restarted sender makes a new offer; a restarted receiver gets one
 * when the sender sees its unix peer gone, and every second anyway). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <linux/sock_diag.h>

#include "load.h"
#include "util.h"

#define MS 1000000ull
/* Datagrams per sendmmsg()/recvmmsg(). */
#define VLEN 32
/* One UDP batch per this many unix batches.  UDP costs more per datagram
 * (the IP stack, and the NET_RX softirq on the sender's CPU) and, since
 * skb_consume_udp() hands skbs back to the CPU that allocated them
 * (skb_attempt_defer_free(), Linux 6.18), frees fewer slab objects per
 * datagram, and those in batches on the allocating CPU: unix datagrams
 * carry the cross-CPU frees, UDP adds that deferred-free path. */
#define UDP_EVERY 4
/* Bytes written into each small file. */
#define FILE_BYTES 64

enum mode { MODE_ALL, MODE_CROSS, MODE_BULK, MODE_FILES };
enum role { ROLE_SEND, ROLE_RECV, ROLE_BULK, ROLE_FILES };
enum kind { KIND_UNIX, KIND_UDP, KIND_PIPE, KIND_EVENTFD, KIND_EPOLL, KIND_FILE, KIND_MAX };

static const char *const mode_choices[] = { "all", "cross", "bulk", "files", NULL };
enum free_at { FREE_NEXT, FREE_OWN };
static const char *const free_choices[] = { "next", "own", NULL };

static const struct opt slab_options[] = {
	{ .name = "mode",
	  .type = OPT_CHOICE,
	  .def = "all",
	  .choices = mode_choices,
	  .help = "all: cross + bulk (with files); cross: cross-CPU datagrams; bulk: create/close "
		  "batches of fds; files: create/unlink batches of small files" },
	{ .name = "batch",
	  .type = OPT_INT,
	  .def = "1000",
	  .min = 10,
	  .max = 100000,
	  .help = "objects (fds or files) created before all are freed, per bulk cycle" },
	{ .name = "msgsize",
	  .type = OPT_SIZE,
	  .def = "256",
	  .min = 1,
	  .max = 65000,
	  .help = "datagram payload, bytes" },
	{ .name = "free",
	  .type = OPT_CHOICE,
	  .def = "next",
	  .choices = free_choices,
	  .help = "where bulk and files cycles free their batch: next: on the next load CPU "
		  "(cross-CPU frees, SLUB's slow path); own: on the CPU that allocated it" },
	{ .name = NULL },
};

/* The roles of the workers on one load CPU. */
static unsigned roles_of(const struct load_instance *inst, enum role roles[3])
{
	switch ((enum mode)load_opt_int(inst, "mode")) {
	case MODE_CROSS:
		roles[0] = ROLE_SEND;
		roles[1] = ROLE_RECV;
		return 2;
	case MODE_BULK:
		roles[0] = ROLE_BULK;
		return 1;
	case MODE_FILES:
		roles[0] = ROLE_FILES;
		return 1;
	case MODE_ALL:
		break;
	}
	roles[0] = ROLE_SEND;
	roles[1] = ROLE_RECV;
	roles[2] = ROLE_BULK;
	return 3;
}

static int slab_check(const struct load_instance *inst, char *err, size_t errlen)
{
	enum role roles[3];
	unsigned n = (unsigned)cpuset_count(&inst->cpus) * roles_of(inst, roles);

	if (n > LOAD_MAX_WORKERS) {
		snprintf(
		    err, errlen,
		    "slab: mode=%s needs %u workers, more than %d: give it fewer CPUs with cpus=",
		    load_opt_str(inst, "mode"), n, LOAD_MAX_WORKERS);
		return -EINVAL;
	}
	return 0;
}

/* Workers float (pinned = false) because a CPU may have several of them; each
 * pins itself to its CPU in slab_run. */
static unsigned slab_workers(const struct load_instance *inst, bool *pinned)
{
	enum role roles[3];

	*pinned = false;
	return (unsigned)cpuset_count(&inst->cpus) * roles_of(inst, roles);
}

/* The k-th CPU of the load's CPUs. */
static int nth_cpu(const struct cpuset *s, unsigned k)
{
	int c = cpuset_next(s, 0);

	while (c >= 0 && k--)
		c = cpuset_next(s, c + 1);
	return c;
}

/* ---- cross-CPU datagrams ---------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Abstract-namespace name of worker pair k's sender data socket ("tx"), or
 * receiver data ("rx") or control ("ctl") socket: no file is created, and
 * the file prefix (pid and load index) makes it unique to this run. */
static socklen_t pair_addr(const struct load_instance *inst, unsigned k, const char *what,
			   struct sockaddr_un *a)
{
	int n;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "%s-slab-%s%u", inst->file_prefix,
		     what, k);
	if (n < 0 || (size_t)n >= sizeof(a->sun_path) - 1)
		n = (int)sizeof(a->sun_path) - 2;
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* A nonblocking unix datagram socket bound to pair_addr(k, what), waiting
 * while a predecessor (a restarted worker's) still holds the name. */
static int bind_abstract(struct load_worker *w, unsigned k, const char *what)
{
	struct sockaddr_un a;
	socklen_t len = pair_addr(w->inst, k, what, &a);
	int fd;

	while (!*w->stop) {
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0) {
			load_count_error(w->ctr, errno);
			load_sleep(w, 100 * MS);
			continue;
		}
		if (bind(fd, (struct sockaddr *)&a, len) == 0)
			return fd;
		if (errno != EADDRINUSE)
			load_count_error(w->ctr, errno);
		close(fd);
		load_sleep(w, 10 * MS);
	}
	return -1;
}

static void fill_vec(struct mmsghdr *v, struct iovec *iov, void *buf, size_t len)
{
	memset(v, 0, sizeof(*v) * VLEN);
	for (int i = 0; i < VLEN; i++) {
		iov[i].iov_base = buf;
		iov[i].iov_len = len;
		v[i].msg_hdr.msg_iov = &iov[i];
		v[i].msg_hdr.msg_iovlen = 1;
	}
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

struct sender {
	int ux;	 /* unix datagram, bound to "tx", connected to the receiver's "rx" */
	int ctl; /* unix datagram, to pass `r` to the receiver's "ctl" */
	int r;	 /* the UDP socket the receiver reads; kept to see its queue */
	int s;	 /* UDP, connected to r */
	struct sockaddr_un rx, rxctl;
	socklen_t rxlen, rxctllen;
};

static int sender_setup(struct load_worker *w, struct sender *x, unsigned k, unsigned peer)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int rcvbuf = 1 << 20;

	x->rxlen = pair_addr(w->inst, peer, "rx", &x->rx);
	x->rxctllen = pair_addr(w->inst, peer, "ctl", &x->rxctl);
	x->ctl = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	x->r = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	x->s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (x->ctl < 0 || x->r < 0 || x->s < 0)
		return -errno;
	/* A bigger queue than the default lets the receiver drain long batches;
	 * the kernel caps it at net.core.rmem_max. */
	if (setsockopt(x->r, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) < 0)
		return -errno;
	if (bind(x->r, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(x->r, (struct sockaddr *)&a, &alen) < 0 ||
	    connect(x->s, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -errno;
	x->ux = bind_abstract(w, k, "tx");
	return 0;
}

/* Hand the receiver our UDP socket; receiving it is its cue to connect its
 * data socket back to ours.  False while the receiver is not there yet. */
static bool sender_offer(struct sender *x)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	char one = 'u';
	struct iovec iov = { .iov_base = &one, .iov_len = 1 };
	struct msghdr m = { .msg_name = &x->rxctl,
			    .msg_namelen = x->rxctllen,
			    .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &x->r, sizeof(int));
	return sendmsg(x->ctl, &m, MSG_DONTWAIT) == 1;
}

/* Room in the receiver's UDP queue?  Sending into a full queue would only
 * have the kernel drop (and free, on this CPU) what we send. */
static bool udp_room(struct sender *x)
{
	uint32_t mi[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mi);

	if (getsockopt(x->r, SOL_SOCKET, SO_MEMINFO, mi, &len) < 0)
		return true;
	return mi[SK_MEMINFO_RMEM_ALLOC] < mi[SK_MEMINFO_RCVBUF] / 2;
}

static int run_sender(struct load_worker *w, unsigned k, unsigned n)
{
	struct sender x = { .ux = -1, .ctl = -1, .r = -1, .s = -1 };
	size_t size = (size_t)load_opt_int(w->inst, "msgsize");
	struct mmsghdr v[VLEN];
	struct iovec iov[VLEN];
	uint64_t offered = 0;
	unsigned round = 0;
	bool linked = false, offer_ok = false;
	char *buf = calloc(1, size);
	int rc;

	if (!buf)
		return 1;
	while ((rc = sender_setup(w, &x, k, (k + 1) % n)) < 0 && !*w->stop) {
		load_count_error(w->ctr, -rc);
		close_fd(&x.ux), close_fd(&x.ctl), close_fd(&x.r), close_fd(&x.s);
		load_sleep(w, 100 * MS);
	}
	fill_vec(v, iov, buf, size);
	while (!*w->stop) {
		if (!linked) {
			/* Connect only once the offer is queued: then the
			 * receiver will connect back.  Until it has, connect()
			 * may also fail with EPERM (still connected to our dead
			 * predecessor); so offer again every 20 ms. */
			uint64_t t = now_ns();
			if (t - offered > 20 * MS) {
				offer_ok = sender_offer(&x);
				offered = t;
			}
			if (!offer_ok || connect(x.ux, (struct sockaddr *)&x.rx, x.rxlen) < 0) {
				load_sleep(w, 2 * MS);
				continue;
			}
			linked = true;
		} else if (now_ns() - offered > 1000 * MS) {
			/* Again now and then, in case an offer went to a
			 * receiver that died before taking it. */
			sender_offer(&x);
			offered = now_ns();
		}
		int sent = sendmmsg(x.ux, v, VLEN, MSG_DONTWAIT);
		if (sent < 0) {
			if (errno == ECONNREFUSED || errno == ENOTCONN || errno == EPERM ||
			    errno == ECONNRESET) {
				/* The receiver went away; its successor needs an
				 * offer to connect back to us. */
				linked = false;
				offered = 0;
				offer_ok = false;
				continue;
			}
			if (errno != EAGAIN && errno != EINTR) {
				load_count_error(w->ctr, errno);
				load_sleep(w, 10 * MS);
				continue;
			}
		}
		if (++round % UDP_EVERY == 0 && udp_room(&x) &&
		    sendmmsg(x.s, v, VLEN, MSG_DONTWAIT) < 0 && errno != EAGAIN &&
		    errno != ENOBUFS && errno != EINTR && errno != ECONNREFUSED) {
			load_count_error(w->ctr, errno);
			load_sleep(w, 10 * MS);
			continue;
		}
		if (sent < 0) {
			/* Our send buffer is full of datagrams the receiver has
			 * not freed yet. */
			struct pollfd p = { .fd = x.ux, .events = POLLOUT };
			if (poll(&p, 1, 50) < 0 && errno != EINTR)
				load_count_error(w->ctr, errno);
		}
	}
	close_fd(&x.ux), close_fd(&x.ctl), close_fd(&x.r), close_fd(&x.s);
	free(buf);
	return 0;
}

/* Take over the UDP socket a sender offered, and connect our data socket
 * back to the sender's.  A unix datagram socket whose receiver is connected
 * to it is not limited to net.unix.max_dgram_qlen (10) queued datagrams, only
 * by its send buffer, so the pair does not ping-pong every 10 datagrams. */
static void recv_ctl(struct load_worker *w, int ctl, int ux, int *udp, unsigned peer)
{
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct sockaddr_un tx;
	socklen_t txlen = pair_addr(w->inst, peer, "tx", &tx);
	char one;
	struct iovec iov = { .iov_base = &one, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	bool offer = false;

	for (;;) {
		m.msg_control = u.buf;
		m.msg_controllen = sizeof(u.buf);
		if (recvmsg(ctl, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) < 0) {
			if (errno != EAGAIN && errno != EINTR)
				load_count_error(w->ctr, errno);
			break;
		}
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < nfd; i++) {
				int fd;
				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				close_fd(udp);
				*udp = fd;
				offer = true;
			}
		}
	}
	/* Fails if the sender died meanwhile: its successor offers again. */
	if (offer)
		(void)connect(ux, (struct sockaddr *)&tx, txlen);
}

/* One recvmmsg(); returns the datagrams received. */
static int drain(struct load_worker *w, int fd, struct mmsghdr *v)
{
	uint64_t bytes = 0;
	int n;

	if (fd < 0)
		return 0;
	n = recvmmsg(fd, v, VLEN, MSG_DONTWAIT, NULL);
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			load_count_error(w->ctr, errno);
		return 0;
	}
	for (int i = 0; i < n; i++)
		bytes += v[i].msg_len;
	load_count(w->ctr, (uint64_t)n, bytes);
	return n;
}

static int run_receiver(struct load_worker *w, unsigned k, unsigned n)
{
	size_t size = (size_t)load_opt_int(w->inst, "msgsize");
	unsigned peer = (k + n - 1) % n, busy = 0;
	struct mmsghdr v[VLEN];
	struct iovec iov[VLEN];
	int ux, ctl, udp = -1;
	char *buf = malloc(size);

	if (!buf)
		return 1;
	/* Every datagram lands in the same buffer: only the freeing matters. */
	fill_vec(v, iov, buf, size);
	/* ctl first: a sender connects to rx only after an offer to ctl. */
	ctl = bind_abstract(w, k, "ctl");
	ux = bind_abstract(w, k, "rx");
	while (!*w->stop) {
		int got = drain(w, ux, v) + drain(w, udp, v);

		/* A busy data path never reaches poll(), so look for an offer
		 * now and then too. */
		if (got && (++busy & 63))
			continue;
		struct pollfd p[3] = { { .fd = ctl, .events = POLLIN },
				       { .fd = ux, .events = POLLIN },
				       { .fd = udp, .events = POLLIN } };
		if (!got && poll(p, 3, 50) < 0 && errno != EINTR)
			load_count_error(w->ctr, errno);
		if (got || p[0].revents)
			recv_ctl(w, ctl, ux, &udp, peer);
	}
	close_fd(&ux), close_fd(&ctl), close_fd(&udp);
	free(buf);
	return 0;
}

/* ---- bulk create-then-free ------------------------------------------- */

static void pin(struct load_worker *w, int cpu)
{
	cpu_set_t cs;

	CPU_ZERO(&cs);
	CPU_SET(cpu, &cs);
	if (sched_setaffinity(0, sizeof(cs), &cs) < 0)
		load_count_error(w->ctr, errno);
}

struct bulk {
	int *fds;
	unsigned n, batch;
	int own_cpu, free_cpu; /* allocate on own_cpu, free on free_cpu */
	int dfd;	       /* the run's private directory, for files */
	bool off[KIND_MAX];    /* the kernel lacks it (e.g. no IPv4) */
	char buf[FILE_BYTES];
};

/* Move to the CPU that frees the batch (free=next), or back. */
static void to_free_cpu(struct load_worker *w, const struct bulk *b)
{
	if (b->free_cpu != b->own_cpu)
		pin(w, b->free_cpu);
}

static void to_own_cpu(struct load_worker *w, const struct bulk *b)
{
	if (b->free_cpu != b->own_cpu)
		pin(w, b->own_cpu);
}

/* Close our descriptors: close_range() over each run of consecutive ones
 * (a run holds only ours), so one syscall frees a whole batch. */
static uint64_t close_all(struct bulk *b)
{
	uint64_t closed = 0;
	unsigned i = 0;

	while (i < b->n) {
		unsigned j = i + 1;
		while (j < b->n && b->fds[j] == b->fds[j - 1] + 1)
			j++;
#ifdef SYS_close_range
		if (syscall(SYS_close_range, (unsigned)b->fds[i], (unsigned)b->fds[j - 1], 0) ==
		    0) {
			closed += j - i;
			i = j;
			continue;
		}
#endif
		for (; i < j; i++)
			if (close(b->fds[i]) == 0 || errno != EBADF)
				closed++;
	}
	b->n = 0;
	return closed;
}

static void file_name(const struct load_worker *w, unsigned i, char *name, size_t len)
{
	snprintf(name, len, "%s-slab-%u-%u", w->inst->file_prefix, w->id, i);
}

/* Create one object of `kind`, appending its descriptors.  0 or -errno. */
static int create_one(struct bulk *b, enum kind kind)
{
	int fd, p[2];

	switch (kind) {
	case KIND_UNIX:
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		break;
	case KIND_UDP:
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		break;
	case KIND_PIPE:
		if (b->n + 2 > b->batch)
			return -ENOSPC;
		if (pipe2(p, O_CLOEXEC) < 0)
			return -errno;
		b->fds[b->n++] = p[0];
		b->fds[b->n++] = p[1];
		return 0;
	case KIND_EVENTFD:
		fd = eventfd(0, EFD_CLOEXEC);
		break;
	case KIND_EPOLL:
		fd = epoll_create1(EPOLL_CLOEXEC);
		break;
	default:
		return -EINVAL;
	}
	if (fd < 0)
		return -errno;
	b->fds[b->n++] = fd;
	return 0;
}

/* A cycle of small files: create `batch` (or as many as fit in `budget` ns,
 * if not 0), then unlink them all. */
static void files_cycle(struct load_worker *w, struct bulk *b, uint64_t budget)
{
	uint64_t end = budget ? now_ns() + budget : 0;
	char name[128];
	unsigned made = 0, gone = 0;
	bool backoff = false;

	while (made < b->batch) {
		if (made % 16 == 0 && (*w->stop || (end && made && now_ns() > end)))
			break;
		file_name(w, made, name, sizeof(name));
		/* O_EXCL | O_NOFOLLOW: only a file we create.  The directory is
		 * ours alone, so a name already there is a killed
		 * predecessor's: remove it and try once more. */
		int fd = openat(b->dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				0600);
		if (fd < 0 && errno == EEXIST && unlinkat(b->dfd, name, 0) == 0)
			fd = openat(b->dfd, name,
				    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			load_count_error(w->ctr, errno);
			backoff = true;
			break;
		}
		ssize_t n = write(fd, b->buf, sizeof(b->buf));
		int e = n < 0 ? errno : 0;
		made++;
		if (close(fd) < 0 && !e)
			e = errno;
		if (e || n != (ssize_t)sizeof(b->buf)) {
			load_count_error(w->ctr, e ? e : EIO);
			backoff = true;
			break;
		}
	}
	to_free_cpu(w, b);
	for (unsigned i = 0; i < made; i++) {
		file_name(w, i, name, sizeof(name));
		if (unlinkat(b->dfd, name, 0) == 0)
			gone++;
		else
			load_count_error(w->ctr, errno);
		if (gone == 256) {
			load_count(w->ctr, gone, 0);
			gone = 0;
		}
	}
	load_count(w->ctr, gone, 0);
	to_own_cpu(w, b);
	if (backoff)
		load_sleep(w, 10 * MS);
}

static void fd_cycle(struct load_worker *w, struct bulk *b, enum kind kind)
{
	int rc = 0;

	while (b->n < b->batch && !(b->n % 64 == 0 && *w->stop)) {
		if ((rc = create_one(b, kind)) < 0)
			break;
	}
	if (rc == -EAFNOSUPPORT || rc == -EPROTONOSUPPORT) {
		load_count_error(w->ctr, -rc);
		b->off[kind] = true;
	} else if (rc < 0 && rc != -ENOSPC) {
		/* EMFILE, ENFILE, ENOMEM, ENOBUFS: the machine is out of
		 * something; free what we have and give it a moment. */
		load_count_error(w->ctr, -rc);
	}
	/* The __fput()s run in task_work on return from close_range(), so on
	 * the free CPU too. */
	to_free_cpu(w, b);
	load_count(w->ctr, close_all(b), 0);
	to_own_cpu(w, b);
	if (rc < 0 && rc != -ENOSPC)
		load_sleep(w, 10 * MS);
}

static void raise_nofile(struct load_worker *w)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) < 0) {
		load_count_error(w->ctr, errno);
		return;
	}
	if (r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &r) < 0)
			load_count_error(w->ctr, errno);
	}
}

static int run_bulk(struct load_worker *w, bool fds, bool files, int own_cpu, int next_cpu)
{
	struct bulk b = { .batch = (unsigned)load_opt_int(w->inst, "batch"),
			  .dfd = -1,
			  .own_cpu = own_cpu,
			  .free_cpu = own_cpu };
	uint64_t fd_ns = 0;
	unsigned k = 0;

	if ((enum free_at)load_opt_int(w->inst, "free") == FREE_NEXT)
		b.free_cpu = next_cpu;
	memset(b.buf, 'x', sizeof(b.buf));
	if (fds) {
		raise_nofile(w);
		if (!(b.fds = calloc(b.batch, sizeof(int))))
			return 1;
	}
	/* The supervisor's descriptor, inherited: never a path through the
	 * shared workdir. */
	if (files)
		b.dfd = w->inst->dirfd;
	while (!*w->stop) {
		enum kind kind = (enum kind)(k++ % KIND_MAX);
		if (kind == KIND_FILE) {
			/* Mixed with fd cycles, a file cycle gets no more time than
			 * the last fd cycle took: creating a file can cost 100
			 * times what creating an fd does (300 us on one VM's ext4
			 * /tmp) and would otherwise crowd out the rest. */
			if (files)
				files_cycle(w, &b, fds ? fd_ns : 0);
		} else if (fds && !b.off[kind]) {
			uint64_t t0 = now_ns();
			fd_cycle(w, &b, kind);
			fd_ns = now_ns() - t0;
		}
	}
	free(b.fds);
	return 0;
}

static int slab_run(struct load_worker *w)
{
	const struct load_instance *inst = w->inst;
	enum mode mode = (enum mode)load_opt_int(inst, "mode");
	enum role roles[3];
	unsigned nroles = roles_of(inst, roles);
	unsigned n = (unsigned)cpuset_count(&inst->cpus);
	unsigned k = w->id / nroles;
	int cpu = nth_cpu(&inst->cpus, k), next = nth_cpu(&inst->cpus, (k + 1) % n);

	/* The whole point is which CPU allocates and which frees: pin. */
	pin(w, cpu);
	switch (roles[w->id % nroles]) {
	case ROLE_SEND:
		return run_sender(w, k, n);
	case ROLE_RECV:
		return run_receiver(w, k, n);
	case ROLE_BULK:
		return run_bulk(w, true, mode == MODE_ALL, cpu, next);
	case ROLE_FILES:
		return run_bulk(w, false, true, cpu, next);
	}
	return 1;
}

/* Remove files a killed worker left behind, in the private directory.  Only
 * names with our "-slab-" suffix: the prefix of load 1 is also a prefix of
 * load 10's. */
static void slab_stop(struct load_instance *inst)
{
	char mine[128];
	struct dirent *d;
	size_t len;
	DIR *dir;
	int fd;

	len = (size_t)snprintf(mine, sizeof(mine), "%s-slab-", inst->file_prefix);
	/* A description of our own: fdopendir on a dup would share (and move)
	 * the position of the descriptor the other loads use. */
	if (inst->dirfd < 0 ||
	    (fd = openat(inst->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	if (!(dir = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((d = readdir(dir)))
		if (!strncmp(d->d_name, mine, len))
			unlinkat(inst->dirfd, d->d_name, 0);
	closedir(dir);
}

static int slab_stats(const struct load_instance *inst, json_t *out)
{
	enum role roles[3];
	unsigned nroles = roles_of(inst, roles), n = (unsigned)cpuset_count(&inst->cpus);
	int bad = util_json_set(out, "workers_per_cpu", json_integer(nroles));

	if (roles[0] != ROLE_SEND)
		return bad;
	/* Which CPU allocates (sends) and which frees (receives). */
	json_t *pairs = json_array();
	bad |= !pairs;
	for (unsigned k = 0; !bad && k < n; k++) {
		char s[32];
		snprintf(s, sizeof(s), "%d->%d", nth_cpu(&inst->cpus, k),
			 nth_cpu(&inst->cpus, (k + 1) % n));
		bad |= util_json_push(pairs, json_string(s));
	}
	if (bad)
		json_decref(pairs);
	else
		bad |= util_json_set(out, "cross_cpu_pairs", pairs);
	bad |= util_json_set(out, "cross_cpu", json_boolean(n > 1));
	return bad;
}

const struct load_ops load_slab_ops = {
	.name = "slab",
	.summary = "kernel slab churn: datagrams allocated on one load CPU and freed on the next "
		   "(one load CPU: on itself), batches of fds and small files created on one and "
		   "freed on the next; op = one object freed (datagram received, fd closed, file "
		   "unlinked)",
	.options = slab_options,
	.check = slab_check,
	.workers = slab_workers,
	.run = slab_run,
	.stop = slab_stop,
	.stats = slab_stats,
};
