// SPDX-License-Identifier: GPL-2.0-or-later
/* lock: lock files in the run directory (lock.h says what and why).
 *
 * Everything is opened relative to a descriptor of the run directory that
 * was checked after opening it (O_NOFOLLOW, fstat), so nothing here follows a
 * symlink or leaves the directory: names never hold '/'.
 *
 * A lock file is removed by its holder while it still holds the lock; a
 * process that opened the file just before then locks an unlinked inode, so
 * after every successful lock the name is looked up again and must still be
 * the inode locked (else: retry).  Closing any descriptor of a file drops
 * this process's record locks on it, so this file never opens a lock the
 * process holds a second time (the registry below). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lock.h"
#include "util.h"

#define CONTENT_MAX (4 * PATH_MAX + 256)
/* A holder that is not alive (and not out of sight in another PID
 * namespace) is a process between open and write, or one checking a
 * record: worth a short wait, never a refusal on its account. */
#define BUSY_RETRIES 100
#define BUSY_WAIT_NS (10 * 1000 * 1000L)

static const char *const prefix[] = {
	[LOCK_OUTPUT] = "output-",
	[LOCK_TWEAK] = "tweak-",
	[LOCK_JOURNAL] = "journal-",
	[LOCK_TRACE] = "trace-",
};
static const char *const kind_name[] = {
	[LOCK_OUTPUT] = "output",
	[LOCK_TWEAK] = "tweak",
	[LOCK_JOURNAL] = "journal",
	[LOCK_TRACE] = "trace",
};

/* Locks this process holds. */
static struct lock **held;
static size_t nheld, capheld;

static int check_dir(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		util_errf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		util_errf(err, errlen, "%s: not a directory: refusing to keep locks there", path);
		return -ENOTDIR;
	}
	if (st.st_uid != geteuid()) {
		util_errf(err, errlen, "%s: owned by uid %u, not %u: refusing to keep locks there",
			  path, (unsigned)st.st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	if (st.st_mode & 022) {
		util_errf(
		    err, errlen,
		    "%s: writable by group or others (mode %04o): refusing to keep locks there",
		    path, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* mkdir (0700) and open `name` in `at`, refusing a symlink. */
static int open_subdir(int at, const char *name, const char *path, char *err, size_t errlen)
{
	int fd, rc;

	if (mkdirat(at, name, 0700) < 0 && errno != EEXIST) {
		rc = -errno;
		util_errf(err, errlen, "no run directory for locks (cannot create %s: %s)", path,
			  strerror(errno));
		/* No /run, or a read-only one (a chroot, a minimal container):
		 * the same as having none, not an unsafe one. */
		return rc == -ENOENT || rc == -EROFS ? -ENOENT : rc;
	}
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		if (errno == ELOOP || errno == ENOTDIR)
			util_errf(err, errlen,
				  "%s: not a directory (a symbolic link?): refusing it", path);
		else
			util_errf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	if ((rc = check_dir(fd, path, err, errlen)) < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int lock_dir_open(char *dir, size_t dirlen, char *err, size_t errlen)
{
	const char *xdg;
	char path[PATH_MAX];
	int xfd, fd;
	struct stat st;

	if (geteuid() == 0) {
		if (dir)
			snprintf(dir, dirlen, "%s", LOCK_DIR_ROOT);
		return open_subdir(AT_FDCWD, LOCK_DIR_ROOT, LOCK_DIR_ROOT, err, errlen);
	}
	/* Not root: the per-user runtime directory, when it is the user's own
	 * (the XDG spec says 0700). */
	xdg = getenv("XDG_RUNTIME_DIR");
	if (!xdg || xdg[0] != '/' ||
	    (size_t)snprintf(path, sizeof(path), "%s/rtsoak", xdg) >= sizeof(path)) {
		util_errf(err, errlen, "no run directory for locks (not root, no XDG_RUNTIME_DIR)");
		return -ENOENT;
	}
	xfd = open(xdg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (xfd < 0 || fstat(xfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		if (xfd >= 0)
			close(xfd);
		util_errf(err, errlen,
			  "no run directory for locks (XDG_RUNTIME_DIR %s is not a 0700 directory "
			  "of this user)",
			  xdg);
		return -ENOENT;
	}
	fd = open_subdir(xfd, "rtsoak", path, err, errlen);
	close(xfd);
	if (fd >= 0 && dir)
		snprintf(dir, dirlen, "%s", path);
	return fd;
}

/* FNV-1a: only to shorten names that would not fit; a collision makes two
 * paths share one lock (a refusal too many, never one too few). */
static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

int lock_name(enum lock_kind kind, const char *path, char *name, size_t len)
{
	char esc[3 * PATH_MAX + 1];
	size_t o = 0, plen = strlen(prefix[kind]);

	/* '%' first, so that the escape is reversible and names of two
	 * different paths never meet; '/' so that no name leaves the
	 * directory; control bytes so that `ls` shows what it is. */
	for (const unsigned char *p = (const unsigned char *)path; *p && o + 4 < sizeof(esc); p++) {
		if (*p == '/' || *p == '%' || *p < 0x20 || *p == 0x7f)
			o += (size_t)snprintf(esc + o, sizeof(esc) - o, "%%%02X", *p);
		else
			esc[o++] = (char)*p;
	}
	esc[o] = '\0';
	if (len > NAME_MAX + 1)
		len = NAME_MAX + 1;
	if (plen + o < len) {
		memcpy(name, prefix[kind], plen);
		memcpy(name + plen, esc, o + 1);
		return 0;
	}
	/* "%h" cannot come out of the escape above (it writes only hex after a '%'). */
	if (len < plen + 19 + 1)
		return -ENAMETOOLONG;
	o = len - plen - 19 - 1;
	memcpy(name, prefix[kind], plen);
	memcpy(name + plen, esc, o);
	snprintf(name + plen + o, len - plen - o, "%%h%016llx", (unsigned long long)fnv1a(path));
	return 0;
}

/* "\\" and "\n" escaped: one value per line. */
static void put_value(char *buf, size_t len, size_t *o, const char *key, const char *v)
{
	*o += (size_t)snprintf(buf + *o, *o < len ? len - *o : 0, "%s ", key);
	for (; v && *v && *o + 3 < len; v++) {
		if (*v == '\\' || *v == '\n') {
			buf[(*o)++] = '\\';
			buf[(*o)++] = *v == '\n' ? 'n' : '\\';
		} else {
			buf[(*o)++] = *v;
		}
	}
	if (*o + 1 < len)
		buf[(*o)++] = '\n';
	if (*o < len)
		buf[*o] = '\0';
}

/* The value of line `key` in `content`, unescaped into out; false if none. */
static bool get_value(const char *content, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key), o = 0;
	const char *p = content;

	for (;;) {
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			break;
		if (!(p = strchr(p, '\n')))
			return false;
		p++;
	}
	for (p += klen + 1; *p && *p != '\n' && o + 1 < len; p++) {
		if (*p == '\\' && (p[1] == 'n' || p[1] == '\\')) {
			out[o++] = p[1] == 'n' ? '\n' : '\\';
			p++;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	return true;
}

static void read_content(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
}

static bool alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

static int record_lock(int fd, int cmd, short type, pid_t *holder)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };

	if (fcntl(fd, cmd, &fl) < 0)
		return -errno;
	/* A holder outside our PID namespace reads back as pid 0: held all
	 * the same (-1), never "nobody" (issue 28). */
	if (holder)
		*holder = fl.l_type == F_UNLCK ? 0 : fl.l_pid > 0 ? fl.l_pid : -1;
	return 0;
}

/* Is `fd` still what `name` names in the directory? */
static bool still_named(int dfd, const char *name, int fd)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && fstatat(dfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static bool is_held(const char *name)
{
	for (size_t i = 0; i < nheld; i++)
		if (!strcmp(held[i]->name, name))
			return true;
	return false;
}

static int remember(struct lock *l)
{
	if (nheld == capheld) {
		size_t cap = capheld ? 2 * capheld : 16;
		struct lock **v = realloc(held, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		held = v;
		capheld = cap;
	}
	held[nheld++] = l;
	return 0;
}

static void forget(struct lock *l)
{
	for (size_t i = 0; i < nheld; i++) {
		if (held[i] == l) {
			held[i] = held[--nheld];
			return;
		}
	}
}

static void busy_err(char *err, size_t errlen, enum lock_kind kind, const char *path,
		     const char *content, pid_t holder)
{
	char rep[PATH_MAX], pidtext[32], e1[PATH_MAX], e2[PATH_MAX];
	long pid = holder;

	if (get_value(content, "pid", pidtext, sizeof(pidtext)))
		pid = strtol(pidtext, NULL, 10);
	if (!get_value(content, "report", rep, sizeof(rep)))
		snprintf(rep, sizeof(rep), "?");
	util_escape(path, e1, sizeof(e1));
	util_escape(rep, e2, sizeof(e2));
	switch (kind) {
	case LOCK_TWEAK:
		util_errf(err, errlen, "%s is being tweaked by rtsoak pid %ld (report %s)", e1, pid,
			  e2);
		break;
	case LOCK_OUTPUT:
		util_errf(err, errlen, "%s is the report of rtsoak pid %ld, which is still running",
			  e1, pid);
		break;
	case LOCK_JOURNAL:
		util_errf(err, errlen, "the journal %s is in use by rtsoak pid %ld (report %s)", e1,
			  pid, e2);
		break;
	case LOCK_TRACE:
		util_errf(err, errlen, "the tracefs instance %s is in use by rtsoak pid %ld", e1,
			  pid);
		break;
	}
}

int lock_take(struct lock *l, enum lock_kind kind, const char *path, const char *report, char *err,
	      size_t errlen)
{
	char name[NAME_MAX + 1], content[CONTENT_MAX];
	struct timespec wait = { 0, BUSY_WAIT_NS };
	int dfd, fd = -1, rc;
	size_t o = 0;

	if (l->held)
		return 0;
	if (lock_name(kind, path, name, sizeof(name)) < 0) {
		util_errf(err, errlen, "%s: name too long for a lock", path);
		return -ENAMETOOLONG;
	}
	if (is_held(name)) {
		util_errf(err, errlen, "%s: locked twice by this run", path);
		return -EALREADY;
	}
	if ((dfd = lock_dir_open(NULL, 0, err, errlen)) < 0)
		return dfd;
	for (int tries = 0;; tries++) {
		struct stat st;
		pid_t holder = 0;

		fd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			rc = -errno;
			util_errf(err, errlen, "lock for %s: %s", path, strerror(errno));
			goto out;
		}
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    st.st_nlink != 1) {
			util_errf(err, errlen, "lock for %s: %s is not a lock file rtsoak made",
				  path, name);
			rc = -EPERM;
			goto out;
		}
		if ((rc = record_lock(fd, F_SETLK, F_WRLCK, NULL)) == 0) {
			if (still_named(dfd, name, fd))
				break;
			/* Removed by its holder before we got it: a new one. */
			close(fd);
			continue;
		}
		if (rc != -EAGAIN && rc != -EACCES) {
			util_errf(err, errlen, "lock for %s: %s", path, strerror(-rc));
			goto out;
		}
		read_content(fd, content, sizeof(content));
		(void)record_lock(fd, F_GETLK, F_WRLCK, &holder);
		if (tries < BUSY_RETRIES && holder != -1 && !alive(holder)) {
			close(fd);
			nanosleep(&wait, NULL);
			continue;
		}
		busy_err(err, errlen, kind, path, content, holder);
		rc = -EBUSY;
		goto out;
	}
	snprintf(content, sizeof(content), "pid %d\n", (int)getpid());
	o = strlen(content);
	put_value(content, sizeof(content), &o, "kind", kind_name[kind]);
	put_value(content, sizeof(content), &o, "path", path);
	put_value(content, sizeof(content), &o, "report", report ? report : "-");
	if (ftruncate(fd, 0) < 0 || pwrite(fd, content, o, 0) != (ssize_t)o) {
		rc = errno ? -errno : -EIO;
		util_errf(err, errlen, "lock for %s: %s", path, strerror(-rc));
		unlinkat(dfd, name, 0);
		goto out;
	}
	l->fd = fd;
	snprintf(l->name, sizeof(l->name), "%s", name);
	if ((rc = remember(l)) < 0) {
		util_errf(err, errlen, "lock for %s: out of memory", path);
		unlinkat(dfd, name, 0);
		goto out;
	}
	l->held = true;
	fd = -1;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	close(dfd);
	return rc;
}

void lock_release(struct lock *l)
{
	int dfd;

	if (!l->held)
		return;
	/* Unlinked while still locked: see the top of this file. */
	dfd = lock_dir_open(NULL, 0, NULL, 0);
	if (dfd >= 0) {
		if (still_named(dfd, l->name, l->fd))
			unlinkat(dfd, l->name, 0);
		close(dfd);
	}
	lock_abandon(l);
}

void lock_abandon(struct lock *l)
{
	if (!l->held)
		return;
	forget(l);
	close(l->fd);
	l->fd = -1;
	l->held = false;
}

/* Remove a record that nobody holds, taking it first so that no run that
 * is creating it right now loses it. */
static void remove_stale(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return;
	if (record_lock(fd, F_SETLK, F_WRLCK, NULL) == 0 && still_named(dfd, name, fd))
		unlinkat(dfd, name, 0);
	close(fd);
}

/* Each journal record nobody holds: fn(journal, record file, arg) with the
 * record open in fd (not locked); with `clean`, lock files nobody holds are
 * removed on the way. */
static int each_stale(int dfd, const char *dir, bool clean,
		      int (*fn)(int dfd, int fd, const char *name, const char *journal,
				const char *record, void *arg),
		      void *arg)
{
	char content[CONTENT_MAX], journal[PATH_MAX], record[PATH_MAX + NAME_MAX + 2];
	int dup_fd = dup(dfd), rc = 0;
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return 0;
	}
	while (!rc && (e = readdir(d))) {
		bool is_record =
		    !strncmp(e->d_name, prefix[LOCK_JOURNAL], strlen(prefix[LOCK_JOURNAL]));
		pid_t holder = 1;
		int fd;

		/* A trace record nobody holds names an instance to remove
		 * first: lock_stale_traces' work, not a stale lock's. */
		if (e->d_name[0] == '.' || is_held(e->d_name) ||
		    !strncmp(e->d_name, prefix[LOCK_TRACE], strlen(prefix[LOCK_TRACE])))
			continue;
		fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* Asking takes no lock: a run creating this record right now
		 * is not disturbed. */
		if (record_lock(fd, F_GETLK, F_WRLCK, &holder) < 0 || holder) {
			close(fd);
			continue;
		}
		if (!is_record) {
			/* The lock of a killed run: it protects nothing now. */
			close(fd);
			if (clean)
				remove_stale(dfd, e->d_name);
			continue;
		}
		read_content(fd, content, sizeof(content));
		if (get_value(content, "path", journal, sizeof(journal))) {
			snprintf(record, sizeof(record), "%s/%s", dir, e->d_name);
			rc = fn(dfd, fd, e->d_name, journal, record, arg);
		}
		close(fd);
	}
	closedir(d);
	return rc;
}

struct stale_arg {
	int (*fn)(const char *journal, const char *record, void *arg);
	void *arg;
};

static int call_stale(int dfd, int fd, const char *name, const char *journal, const char *record,
		      void *arg)
{
	struct stale_arg *a = arg;
	int rc = a->fn(journal, record, a->arg);

	(void)fd;
	if (rc == 1) {
		remove_stale(dfd, name);
		rc = 0;
	}
	return rc;
}

int lock_stale_journals(int (*fn)(const char *journal, const char *record, void *arg), void *arg)
{
	struct stale_arg a = { fn, arg };
	char dir[PATH_MAX];
	int dfd = lock_dir_open(dir, sizeof(dir), NULL, 0), rc;

	if (dfd < 0)
		return 0;
	rc = each_stale(dfd, dir, true, call_stale, &a);
	close(dfd);
	return rc;
}

int lock_stale_traces(int (*fn)(const char *name, void *arg), void *arg)
{
	char content[CONTENT_MAX], name[PATH_MAX];
	size_t plen = strlen(prefix[LOCK_TRACE]);
	int dfd = lock_dir_open(NULL, 0, NULL, 0), dup_fd, rc = 0, removed = 0;
	struct dirent *e;
	DIR *d;

	if (dfd < 0)
		return 0;
	dup_fd = dup(dfd);
	d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		close(dfd);
		return 0;
	}
	while (rc >= 0 && (e = readdir(d))) {
		struct stat st;
		int fd;

		if (strncmp(e->d_name, prefix[LOCK_TRACE], plen) || is_held(e->d_name))
			continue;
		fd = openat(dfd, e->d_name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* Taken, not asked (F_GETLK): a holder in another PID
		 * namespace reads back as pid 0, and while we hold it no run
		 * can take it; a live holder's record is simply skipped. */
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    record_lock(fd, F_SETLK, F_WRLCK, NULL) < 0 ||
		    !still_named(dfd, e->d_name, fd)) {
			close(fd);
			continue;
		}
		read_content(fd, content, sizeof(content));
		/* Without its path: a run killed before it wrote the record,
		 * so before it made anything the record would name. */
		rc = get_value(content, "path", name, sizeof(name)) ? fn(name, arg) : 1;
		if (rc == 1 && unlinkat(dfd, e->d_name, 0) == 0)
			removed++;
		close(fd);
	}
	closedir(d);
	close(dfd);
	return rc < 0 ? rc : removed;
}

struct forget_arg {
	dev_t dev;
	ino_t ino;
};

static int forget_one(int dfd, int fd, const char *name, const char *journal, const char *record,
		      void *arg)
{
	struct forget_arg *a = arg;
	struct stat st;

	(void)fd;
	(void)record;
	/* Its journal is gone (removed just now), or it is this one. */
	if (lstat(journal, &st) < 0 ? errno == ENOENT : st.st_dev == a->dev && st.st_ino == a->ino)
		remove_stale(dfd, name);
	return 0;
}

void lock_forget_journal(dev_t dev, ino_t ino)
{
	struct forget_arg a = { dev, ino };
	int dfd = lock_dir_open(NULL, 0, NULL, 0);

	if (dfd < 0)
		return;
	(void)each_stale(dfd, "", false, forget_one, &a);
	close(dfd);
}

int lock_output_path(const char *target, char *out, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(target, '/'), *base = slash ? slash + 1 : target;
	struct stat st;

	if (stat(target, &st) == 0) {
		if (!S_ISREG(st.st_mode))
			return 1;
		if (!realpath(target, real))
			return -errno;
		return (size_t)snprintf(out, len, "%s", real) < len ? 0 : -ENAMETOOLONG;
	}
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == target)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - target), target);
	if (!realpath(dir, real))
		return -errno;
	if ((size_t)snprintf(out, len, "%s%s%s", real, strcmp(real, "/") ? "/" : "", base) >= len)
		return -ENAMETOOLONG;
	return 0;
}
