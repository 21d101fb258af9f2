// SPDX-License-Identifier: GPL-2.0-or-later
/* disk: block I/O with fsync, sequential and random, written then read back.
 *
 * Each worker owns one file, <file_prefix>-w<id>.dat in the run's private
 * directory (inst->dirfd, mode 0700: see load_dir_create), of
 * size/workers bytes (rounded down to whole blocks), and loops over passes:
 * a sequential pass writes every block in order then reads them all back;
 * a random pass writes as many randomly chosen blocks then reads as many.
 * pattern=mixed alternates the two, seq and rand do one kind only (rand
 * grows the file sequentially by a sixteenth before each pass until it is
 * full, and picks blocks among those written: a read from a hole returns
 * zeros without touching the device).  One op is one block written or read.
 * fsync runs after every FSYNC_EVERY bytes written (1 MiB, or every block
 * when a block is larger), in both kinds of pass, so that cache flushes are
 * a steady part of the load, as under a database's log.
 *
 * Why it disturbs real-time latency elsewhere:
 *   - O_DIRECT (iomap_dio_rw) bypasses the page cache, so every block is a
 *     request to the device: one completion interrupt and BLOCK_SOFTIRQ /
 *     blk-mq completion work per request on whatever CPU the device's IRQ
 *     affinity names, possibly a measured one.  Random blocks defeat request
 *     merging, so random passes make more interrupts per byte.
 *   - fsync makes the filesystem commit its journal (ext4: jbd2 kthread) and
 *     the block layer send a cache flush (REQ_PREFLUSH/FUA); the commit and
 *     the completions that wake the waiting task are kernel work we do not
 *     pin.  Without fsync, O_DIRECT data could sit in the device's volatile
 *     cache and buffered data in the page cache, and the interesting part
 *     (writeback and flush) would happen later or never.
 *   - When the filesystem refuses O_DIRECT the load falls back to buffered
 *     I/O: then fsync drives writeback of the dirty pages (the bio
 *     submission happens in our context), and POSIX_FADV_DONTNEED after each
 *     fsync and each read-back evicts the file's pages, so that reads go to
 *     the device too and the page cache holds little more than FSYNC_EVERY
 *     per worker.  The report says so: "o_direct": false with the reason.
 * Note: tmpfs accepts O_DIRECT since Linux 6.6 but its page cache *is* the
 * storage; the report's "filesystem" says where the I/O really went.
 *
 * Errors from the I/O itself (ENOSPC, EDQUOT, EIO, ...) are counted and
 * backed off (100 ms doubling to 2 s); ENOSPC shrinks the file to what
 * fitted, and the next pass tries to grow it again.  The worker never exits
 * because of them.
 *
 * Who frees the blocks: giving a file's blocks back can take time in
 * proportion to its size (ext4 without a journal, mounted -o discard, sends
 * the discards synchronously from the unlink: ext4_free_blocks ->
 * blkdev_issue_discard, about 0.4 ms per MiB, 100 ms for the default 256 MiB
 * on a virtio disk), more than the 100 ms a worker has to be gone after
 * SIGTERM.  So .start creates the files and keeps them open; workers
 * inherit those descriptors, and a worker on its way out only unlinks its
 * file's name (cheap while the supervisor holds the inode).  .stop then
 * removes any name still there and closes the descriptors, which is where
 * the blocks are freed.  A worker restarted later (a new phase, a crash)
 * carries on with the same, possibly nameless, file; and if everything is
 * killed, the kernel frees a nameless file when its last holder dies. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "exit.h"
#include "load.h"
#include "util.h"

#define DISK_ALIGN 4096u
#define DISK_MAX_WORKERS 64
#define FSYNC_EVERY (1u << 20)
#define BACKOFF_MIN_NS 100000000ull
#define BACKOFF_MAX_NS 2000000000ull

enum { PAT_MIXED, PAT_SEQ, PAT_RAND };

static const char *const pattern_choices[] = { "mixed", "seq", "rand", NULL };

static const struct opt disk_options[] = {
	{ .name = "size",
	  .type = OPT_SIZE,
	  .def = "256M",
	  .min = 1ll << 20,
	  .max = 1ll << 40,
	  .help = "total file size across all workers (the footprint on disk)" },
	{ .name = "block",
	  .type = OPT_SIZE,
	  .def = "64K",
	  .min = 4096,
	  .max = 16ll << 20,
	  .help = "bytes per read or write (one op); a multiple of 4K" },
	{ .name = "pattern",
	  .type = OPT_CHOICE,
	  .def = "mixed",
	  .choices = pattern_choices,
	  .help = "mixed: alternate sequential and random passes; seq; rand" },
	{ .name = "workers",
	  .type = OPT_INT,
	  .def = "1",
	  .min = 1,
	  .max = DISK_MAX_WORKERS,
	  .help = "processes, each with its own file, floating over the load CPUs" },
	{ .name = NULL },
};

/* Supervisor's state, in a MAP_SHARED page made by .start so that workers
 * (forked after it) can report a fallback and count fsyncs for .stats. */
struct disk_shared {
	int fd[DISK_MAX_WORKERS]; /* per worker; the same numbers in forked workers */
	int o_direct;		  /* what .start's probe found */
	char reason[128];
	char fs[32];
	unsigned fallbacks; /* workers that had to drop O_DIRECT while running */
	char fallback_reason[128];
	uint64_t fsyncs;
};

/* A worker's state. */
struct disk_io {
	const struct load_worker *w;
	struct disk_shared *sh;
	char name[128]; /* in inst->dirfd */
	int fd;
	bool direct;
	size_t block;
	uint64_t target; /* blocks the file should hold */
	uint64_t filled; /* blocks [0, filled) are written */
	uint64_t unsynced;
	uint64_t backoff_ns;
	uint64_t rng;
	uint64_t stamp;
	char *buf;
};

static uint64_t disk_rand(struct disk_io *d)
{
	/* xorshift64*: only needs to scatter block numbers */
	d->rng ^= d->rng >> 12;
	d->rng ^= d->rng << 25;
	d->rng ^= d->rng >> 27;
	return d->rng * 0x2545F4914F6CDD1Dull;
}

static bool stopped(const struct disk_io *d)
{
	return *d->w->stop;
}

static void io_error(struct disk_io *d, int err)
{
	load_count_error(d->w->ctr, err);
	load_sleep(d->w, d->backoff_ns);
	d->backoff_ns = d->backoff_ns * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : d->backoff_ns * 2;
}

/* The probe said yes but this I/O said EINVAL: carry on buffered rather than
 * fail every op.  The open file description is shared with the supervisor
 * and later workers, which should not try O_DIRECT again either. */
static void drop_direct(struct disk_io *d)
{
	int fl = fcntl(d->fd, F_GETFL);

	__atomic_fetch_add(&d->sh->fallbacks, 1, __ATOMIC_RELAXED);
	snprintf(d->sh->fallback_reason, sizeof(d->sh->fallback_reason),
		 "worker: O_DIRECT I/O of %zu bytes: %s", d->block, strerror(EINVAL));
	d->direct = false;
	if (fl < 0 || fcntl(d->fd, F_SETFL, fl & ~O_DIRECT) < 0)
		io_error(d, errno);
}

/* Buffered only: make the next reads go to the device (only clean pages
 * go: hence after fsync). */
static void drop_cache(struct disk_io *d)
{
	int rc;

	if (!d->direct && (rc = posix_fadvise(d->fd, 0, 0, POSIX_FADV_DONTNEED)))
		load_count_error(d->w->ctr, rc);
}

static void io_sync(struct disk_io *d)
{
	d->unsynced = 0;
	__atomic_fetch_add(&d->sh->fsyncs, 1, __ATOMIC_RELAXED);
	if (fsync(d->fd) < 0)
		io_error(d, errno);
	else
		drop_cache(d);
}

/* Give back what did not fit; the next pass tries to grow again. */
static void shrink(struct disk_io *d, uint64_t blk)
{
	if (blk < d->filled)
		d->filled = blk;
	if (ftruncate(d->fd, (off_t)(d->filled * d->block)) < 0)
		load_count_error(d->w->ctr, errno);
}

/* 0, or -1 when the writes of this pass should end. */
static int io_write(struct disk_io *d, uint64_t blk)
{
	ssize_t n;

	/* A distinct value in every 4 KiB so that a deduplicating or
	 * compressing backing store still has to store each block. */
	for (size_t off = 0; off < d->block; off += DISK_ALIGN)
		memcpy(d->buf + off, &(uint64_t){ d->stamp++ }, sizeof(uint64_t));
	n = pwrite(d->fd, d->buf, d->block, (off_t)(blk * d->block));
	if (n == (ssize_t)d->block) {
		load_count(d->w->ctr, 1, d->block);
		d->backoff_ns = BACKOFF_MIN_NS;
		if (blk == d->filled)
			d->filled++;
		d->unsynced += d->block;
		/* Not when stopping: the file is going away, and an fsync
		 * would only delay the exit. */
		if (d->unsynced >= FSYNC_EVERY && !stopped(d))
			io_sync(d);
		return 0;
	}
	/* A short write to a regular file means the space ran out. */
	int err = n < 0 ? errno : ENOSPC;
	if (err == EINVAL && d->direct) {
		drop_direct(d);
		return 0;
	}
	io_error(d, err);
	if (err == ENOSPC || err == EDQUOT)
		shrink(d, blk);
	/* Any error ends the writes of this pass, so that a filesystem gone
	 * read-only or a dying disk still gets the reads rather than one
	 * failed write per back-off. */
	return -1;
}

static void io_read(struct disk_io *d, uint64_t blk)
{
	ssize_t n = pread(d->fd, d->buf, d->block, (off_t)(blk * d->block));

	if (n == (ssize_t)d->block) {
		load_count(d->w->ctr, 1, d->block);
		d->backoff_ns = BACKOFF_MIN_NS;
		return;
	}
	int err = n < 0 ? errno : ENODATA; /* short: someone truncated the file */
	if (err == EINVAL && d->direct) {
		drop_direct(d);
		return;
	}
	io_error(d, err);
}

/* Write blocks [from, to) in order, then (read_back) read the file back. */
static void seq_pass(struct disk_io *d, uint64_t from, uint64_t to, bool read_back)
{
	for (uint64_t b = from; b < to && !stopped(d); b++)
		if (io_write(d, b) < 0)
			break;
	if (d->unsynced && !stopped(d))
		io_sync(d);
	if (!read_back)
		return;
	for (uint64_t b = 0; b < d->filled && !stopped(d); b++)
		io_read(d, b);
	drop_cache(d);
}

static void rand_pass(struct disk_io *d)
{
	for (uint64_t i = 0; i < d->filled && !stopped(d); i++)
		if (io_write(d, disk_rand(d) % d->filled) < 0)
			break;
	if (d->unsynced && !stopped(d))
		io_sync(d);
	for (uint64_t i = 0; i < d->filled && !stopped(d); i++)
		io_read(d, disk_rand(d) % d->filled);
	drop_cache(d);
}

static int disk_run(struct load_worker *w)
{
	const struct load_instance *inst = w->inst;
	struct disk_shared *sh = inst->priv;
	uint64_t size = (uint64_t)load_opt_int(inst, "size");
	int pattern = (int)load_opt_int(inst, "pattern");
	struct timespec now;
	struct disk_io d = {
		.w = w,
		.sh = sh,
		.fd = sh->fd[w->id],
		.block = (size_t)load_opt_int(inst, "block"),
		.backoff_ns = BACKOFF_MIN_NS,
	};
	int rc, fl = fcntl(d.fd, F_GETFL);
	struct stat st;
	void *buf = NULL;

	if (fl < 0) /* a bug: .start made it, and we inherited it */
		return 1;
	d.direct = fl & O_DIRECT;
	d.target = size / inst->nworkers / d.block;
	/* A restarted worker carries on with what its predecessor wrote
	 * (always a prefix of the file: passes that extend it are sequential). */
	if (fstat(d.fd, &st) == 0)
		d.filled = (uint64_t)st.st_size / d.block;
	else
		load_count_error(w->ctr, errno);
	if (d.filled > d.target)
		d.filled = d.target;
	snprintf(d.name, sizeof(d.name), "%s-w%u.dat", inst->file_prefix, w->id);
	clock_gettime(CLOCK_MONOTONIC, &now);
	d.rng = ((uint64_t)getpid() << 32) ^ (uint64_t)now.tv_nsec ^ ((uint64_t)w->id << 16) ^ 1;
	/* Aligned for O_DIRECT (and for the uint64_t fill below). */
	while ((rc = posix_memalign(&buf, DISK_ALIGN, d.block)) && !*w->stop)
		io_error(&d, rc);
	if (rc)
		return 0;
	d.buf = buf;
	for (size_t i = 0; i < d.block / sizeof(uint64_t); i++)
		((uint64_t *)(void *)d.buf)[i] = disk_rand(&d);

	while (!*w->stop) {
		if (pattern != PAT_RAND)
			seq_pass(&d, 0, d.target, true);
		/* rand grows its file a sixteenth per pass: random I/O from
		 * the start, and reads that never land in a hole. */
		if (pattern == PAT_RAND && d.filled < d.target) {
			uint64_t to = d.filled + (d.target + 15) / 16;
			seq_pass(&d, d.filled, to < d.target ? to : d.target, false);
		}
		if (pattern != PAT_SEQ && !stopped(&d))
			rand_pass(&d);
		/* Nothing fits: the write above backed off already, but an
		 * empty pass must not spin whatever the error was. */
		if (!d.filled && !stopped(&d))
			load_sleep(w, BACKOFF_MIN_NS);
	}
	/* Only the name: the supervisor's descriptor keeps the inode, so the
	 * blocks are freed in .stop, not on our way out. */
	if (unlinkat(inst->dirfd, d.name, 0) < 0 && errno != ENOENT)
		load_count_error(w->ctr, errno);
	free(d.buf);
	return 0;
}

static unsigned disk_workers(const struct load_instance *inst, bool *pinned)
{
	*pinned = false; /* disk I/O is not per-CPU */
	return (unsigned)load_opt_int(inst, "workers");
}

static int disk_check(const struct load_instance *inst, char *err, size_t errlen)
{
	int64_t size = load_opt_int(inst, "size"), block = load_opt_int(inst, "block");
	int64_t workers = load_opt_int(inst, "workers");
	struct stat st;

	if (block % DISK_ALIGN) {
		snprintf(err, errlen, "disk: block=%" PRId64 " is not a multiple of 4K (O_DIRECT)",
			 block);
		return -EINVAL;
	}
	if (block > size / workers) {
		snprintf(err, errlen,
			 "disk: block=%" PRId64 " is larger than size/workers=%" PRId64
			 " (each worker's file holds at least one block)",
			 block, size / workers);
		return -EINVAL;
	}
	/* rtsoak fills in workdir after parsing (and checks it itself); check
	 * it here when it is known. */
	if (!inst->workdir[0])
		return 0;
	if (stat(inst->workdir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "disk: workdir '%s' is not a directory", inst->workdir);
		return -EINVAL;
	}
	if (access(inst->workdir, W_OK | X_OK) < 0) {
		snprintf(err, errlen, "disk: cannot create files in '%s': %s", inst->workdir,
			 strerror(errno));
		return -EINVAL;
	}
	return 0;
}

/* The filesystem type of the mount that holds the directory open as dirfd
 * (the last mount of that device in mountinfo: a later one is mounted over
 * an earlier one). */
static void fs_name(int dirfd, char *out, size_t len)
{
	struct stat st;
	char line[4096];
	unsigned maj, min;
	FILE *f;

	snprintf(out, len, "unknown");
	if (fstat(dirfd, &st) < 0 || !(f = fopen("/proc/self/mountinfo", "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - "), type[32];
		if (sscanf(line, "%*d %*d %u:%u", &maj, &min) == 2 && maj == major(st.st_dev) &&
		    min == minor(st.st_dev) && sep && sscanf(sep + 3, "%31s", type) == 1)
			snprintf(out, len, "%s", type);
	}
	fclose(f);
}

/* Does the filesystem under workdir do O_DIRECT?  0 with sh->o_direct set,
 * or -errno when workdir cannot take files at all. */
static int probe_direct(const struct load_instance *inst, struct disk_shared *sh, char *err,
			size_t errlen)
{
	char name[128];
	struct statx sx;
	void *buf;
	int fd, rc;

	/* In our own fresh directory: nothing can be there, and O_EXCL |
	 * O_NOFOLLOW would refuse it if it were. */
	snprintf(name, sizeof(name), "%s-probe.dat", inst->file_prefix);
	fd = openat(inst->dirfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_DIRECT, 0600);
	if (fd < 0 && errno == EINVAL) {
		snprintf(sh->reason, sizeof(sh->reason), "%s: open with O_DIRECT: %s", sh->fs,
			 strerror(errno));
		return 0;
	}
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "disk: cannot create files in %s/%s: %s", inst->workdir,
			 inst->dir_name, strerror(errno));
		return rc;
	}
	sh->o_direct = 1;
	/* Some filesystems accept O_DIRECT and quietly do buffered I/O (ext4
	 * with data=journal): statx says so with a zero alignment. */
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
	    (sx.stx_mask & STATX_DIOALIGN)) {
		if (!sx.stx_dio_offset_align) {
			sh->o_direct = 0;
			snprintf(sh->reason, sizeof(sh->reason),
				 "%s: accepts O_DIRECT but does buffered I/O (statx)", sh->fs);
		} else if (sx.stx_dio_offset_align > DISK_ALIGN ||
			   sx.stx_dio_mem_align > DISK_ALIGN) {
			sh->o_direct = 0;
			snprintf(sh->reason, sizeof(sh->reason),
				 "%s: O_DIRECT needs %u-byte alignment, more than 4 KiB", sh->fs,
				 sx.stx_dio_offset_align);
		}
	}
	if (sh->o_direct && !(rc = posix_memalign(&buf, DISK_ALIGN, DISK_ALIGN))) {
		memset(buf, 0x5a, DISK_ALIGN);
		if (pwrite(fd, buf, DISK_ALIGN, 0) < 0 && errno == EINVAL) {
			sh->o_direct = 0;
			snprintf(sh->reason, sizeof(sh->reason),
				 "%s: 4 KiB aligned O_DIRECT write: %s", sh->fs, strerror(errno));
		}
		/* Other errors (ENOSPC, EIO) say nothing about O_DIRECT: the
		 * workers count them, and drop O_DIRECT if it says EINVAL. */
		free(buf);
	} else if (sh->o_direct) {
		sh->o_direct = 0;
		snprintf(sh->reason, sizeof(sh->reason), "probe buffer: %s", strerror(rc));
	}
	if (close(fd) < 0 || unlinkat(inst->dirfd, name, 0) < 0) {
		rc = -errno;
		snprintf(err, errlen, "disk: %s/%s/%s: %s", inst->workdir, inst->dir_name, name,
			 strerror(errno));
		return rc;
	}
	return 0;
}

static void close_files(struct load_instance *inst, struct disk_shared *sh)
{
	for (unsigned i = 0; i < inst->nworkers && i < DISK_MAX_WORKERS; i++)
		if (sh->fd[i] >= 0) {
			if (close(sh->fd[i]) < 0)
				fprintf(stderr, "rtsoak: disk: close: %s\n", strerror(errno));
			sh->fd[i] = -1;
		}
}

static int disk_start(struct load_instance *inst, char *err, size_t errlen)
{
	struct disk_shared *sh;
	char name[128];
	int rc;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		rc = -errno;
		snprintf(err, errlen, "disk: mmap: %s", strerror(errno));
		return rc;
	}
	for (unsigned i = 0; i < DISK_MAX_WORKERS; i++)
		sh->fd[i] = -1;
	inst->priv = sh;
	fs_name(inst->dirfd, sh->fs, sizeof(sh->fs));
	if ((rc = probe_direct(inst, sh, err, errlen)))
		return rc;
	/* CLOEXEC: an exec load's command must not hold our files.  O_EXCL |
	 * O_NOFOLLOW: a new file or nothing, never one that a name (or a
	 * symlink) already there points at. */
	for (unsigned i = 0; i < inst->nworkers && i < DISK_MAX_WORKERS; i++) {
		snprintf(name, sizeof(name), "%s-w%u.dat", inst->file_prefix, i);
		sh->fd[i] = openat(inst->dirfd, name,
				   O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC |
				       (sh->o_direct ? O_DIRECT : 0),
				   0600);
		if (sh->fd[i] < 0) {
			rc = -errno;
			snprintf(err, errlen, "disk: cannot create %s/%s/%s: %s", inst->workdir,
				 inst->dir_name, name, strerror(errno));
			return rc; /* .stop cleans up */
		}
	}
	return 0;
}

/* Our names only, in the private directory (the supervisor removes the
 * directory after every load's .stop). */
static void unlink_name(struct load_instance *inst, const char *name)
{
	if (unlinkat(inst->dirfd, name, 0) < 0 && errno != ENOENT)
		rtsoak_error("disk: cannot remove %s/%s/%s: %s", inst->workdir, inst->dir_name,
			     name, strerror(errno));
}

static void disk_stop(struct load_instance *inst)
{
	char name[128];

	for (unsigned i = 0; inst->dirfd >= 0 && i < inst->nworkers && i < DISK_MAX_WORKERS; i++) {
		snprintf(name, sizeof(name), "%s-w%u.dat", inst->file_prefix, i);
		unlink_name(inst, name);
	}
	/* Left only when open(O_DIRECT) failed after creating it. */
	snprintf(name, sizeof(name), "%s-probe.dat", inst->file_prefix);
	if (inst->dirfd >= 0)
		unlink_name(inst, name);
	/* Last: with the names gone this frees the blocks. */
	if (inst->priv)
		close_files(inst, inst->priv);
	/* The shared page stays mapped: .stats reads it next, and the
	 * supervisor exits soon after. */
}

static int disk_stats(const struct load_instance *inst, json_t *out)
{
	const struct disk_shared *sh = inst->priv;
	bool direct;
	int bad;

	if (!sh)
		return 0;
	direct = sh->o_direct && !sh->fallbacks;
	bad = util_json_set(out, "o_direct", json_boolean(direct));
	if (!direct)
		bad |= util_json_set(
		    out, "o_direct_reason",
		    util_json_string(sh->o_direct ? sh->fallback_reason : sh->reason));
	bad |= util_json_set(out, "filesystem", util_json_string(sh->fs));
	bad |= util_json_set(out, "fsyncs", json_integer((json_int_t)sh->fsyncs));
	return bad;
}

const struct load_ops load_disk_ops = {
	.name = "disk",
	.summary = "one op = one block written (fsync per MiB) or read back, O_DIRECT if possible",
	.options = disk_options,
	.check = disk_check,
	.workers = disk_workers,
	.start = disk_start,
	.run = disk_run,
	.stop = disk_stop,
	.stats = disk_stats,
};
