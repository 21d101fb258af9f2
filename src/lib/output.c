// SPDX-License-Identifier: GPL-2.0-or-later
/* output: how each output path is written (see output.h). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exit.h"
#include "output.h"
#include "util.h"

/* The kernel's own limit on symlinks in one lookup. */
#define MAX_HOPS 40
#define MAX_TARGETS 16

struct target {
	enum output_kind kind;
	char real[PATH_MAX]; /* FILE: the name to replace; IN_PLACE: the name to open */
	bool append;	     /* IN_PLACE: an open regular file, reached through /proc */
	const char *what;    /* IN_PLACE: the node's type, for the notice */
};

static int join(char *out, size_t len, const char *link_path, const char *target)
{
	const char *slash = strrchr(link_path, '/');
	int n;

	if (target[0] == '/' || !slash)
		n = snprintf(out, len, "%s", target);
	else
		n = snprintf(out, len, "%.*s/%s", (int)(slash - link_path), link_path, target);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Follow the named path's own symlinks by hand: each one must be trusted
 * (root's or the caller's), and a /proc/PID/fd link stands for an open
 * file whose name readlink cannot give back (pipe:[123]), so the kernel
 * follows that one (stat). */
static int resolve(const char *path, struct target *t, char *why, size_t len)
{
	char cur[PATH_MAX], link[PATH_MAX];
	struct stat st;
	bool via_proc = false;
	unsigned hops;

	memset(t, 0, sizeof(*t));
	if (!strcmp(path, "-")) {
		t->kind = OUTPUT_STDOUT;
		return 0;
	}
	if ((size_t)snprintf(cur, sizeof(cur), "%s", path) >= sizeof(cur)) {
		snprintf(why, len, "'%s': %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	for (hops = 0;; hops++) {
		if (lstat(cur, &st) < 0) {
			int e = errno;
			if (e == ENOENT && hops) {
				snprintf(why, len, "'%s' is a symlink to nothing ('%s')", path,
					 cur);
				return -ENOENT;
			}
			if (e == ENOENT) {
				/* A new name: created by the atomic write. */
				t->kind = OUTPUT_FILE;
				snprintf(t->real, sizeof(t->real), "%s", cur);
				return 0;
			}
			snprintf(why, len, "cannot create '%s': %s", path, strerror(e));
			return -e;
		}
		if (!S_ISLNK(st.st_mode))
			break;
		if (hops == MAX_HOPS) {
			snprintf(why, len, "'%s': %s", path, strerror(ELOOP));
			return -ELOOP;
		}
		if (st.st_uid != 0 && st.st_uid != geteuid()) {
			/* Anyone could have planted it in a shared directory. */
			snprintf(why, len,
				 "'%s' goes through a symlink owned by uid %u ('%s'): not followed",
				 path, (unsigned)st.st_uid, cur);
			return -EPERM;
		}
		if (!strncmp(cur, "/proc/", 6)) {
			if (stat(cur, &st) < 0) {
				snprintf(why, len, "cannot write '%s': %s", path, strerror(errno));
				return -errno;
			}
			via_proc = true;
			break;
		}
		ssize_t n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0) {
			snprintf(why, len, "cannot write '%s': %s", path, strerror(errno));
			return -errno;
		}
		link[n] = '\0';
		char next[PATH_MAX];
		if (join(next, sizeof(next), cur, link) < 0) {
			snprintf(why, len, "'%s': %s", path, strerror(ENAMETOOLONG));
			return -ENAMETOOLONG;
		}
		memcpy(cur, next, sizeof(cur));
	}
	snprintf(t->real, sizeof(t->real), "%s", cur);
	if (S_ISREG(st.st_mode) && !via_proc) {
		/* Replace the file the link names, not the link. */
		t->kind = OUTPUT_FILE;
		return 0;
	}
	if (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		t->kind = OUTPUT_IN_PLACE;
		t->append = S_ISREG(st.st_mode);
		t->what =
		    S_ISREG(st.st_mode) ? "an open file (appended to)" : util_file_type(st.st_mode);
		return 0;
	}
	if (hops)
		snprintf(why, len, "'%s' leads to %s ('%s'): give a file name", path,
			 util_file_type(st.st_mode), cur);
	else
		snprintf(why, len, "'%s' is %s: give a file name", path,
			 util_file_type(st.st_mode));
	return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
}

int output_check(const char *path, const char **what, char *why, size_t len)
{
	struct target t;
	int rc = resolve(path, &t, why, len);

	if (rc < 0)
		return rc;
	if (what)
		*what = t.what;
	if (t.kind == OUTPUT_FILE && (rc = util_check_writable(t.real)) < 0) {
		snprintf(why, len, "cannot create '%s': %s", path, strerror(-rc));
		return rc;
	}
	if (t.kind == OUTPUT_IN_PLACE && faccessat(AT_FDCWD, t.real, W_OK, AT_EACCESS) < 0) {
		rc = -errno;
		snprintf(why, len, "cannot write '%s': %s", path, strerror(-rc));
		return rc;
	}
	return (int)t.kind;
}

/* The stream's first error: errno at the failed write, else EIO. */
static int finish(FILE *f, int rc)
{
	if (!rc && (fflush(f) != 0 || ferror(f)))
		rc = errno ? -errno : -EIO;
	return rc;
}

/* A terminating signal waiting for the housekeeping thread (a run blocks
 * them all and takes them with sigtimedwait): a user's Ctrl-C. */
static bool end_pending(void)
{
	sigset_t p;

	return sigpending(&p) == 0 &&
	       (sigismember(&p, SIGINT) || sigismember(&p, SIGTERM) || sigismember(&p, SIGHUP));
}

/* Open a character device or FIFO for writing.  A FIFO without a reader
 * would block in open() without a word, and at the end of a run no signal
 * could end the wait (they are blocked): say what it waits for, poll for a
 * reader every 100 ms, and give up with -EINTR on SIGINT, SIGTERM or SIGHUP
 * (a run's report then goes to its fallback).  Returns a blocking fd or
 * -errno. */
static int open_in_place(const char *path, const char *real, int flags)
{
	const struct timespec tick = { 0, 100 * 1000000L };
	bool said = false;
	int fd, rc;

	while ((fd = open(real, flags | O_NONBLOCK)) < 0 && errno == ENXIO) {
		if (!said)
			rtsoak_error("waiting for a reader of the FIFO '%s'", path);
		said = true;
		if (end_pending())
			return -EINTR;
		nanosleep(&tick, NULL);
	}
	if (fd < 0)
		return -errno;
	if (fcntl(fd, F_SETFL, flags & ~(O_WRONLY | O_CLOEXEC | O_NOCTTY)) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

int output_write_with(const char *path, int (*fill)(FILE *f, void *arg), void *arg)
{
	struct target t;
	char why[PATH_MAX + 128];
	int rc = resolve(path, &t, why, sizeof(why)), fd;
	sigset_t old;
	FILE *f;

	if (rc < 0)
		return rc;
	switch (t.kind) {
	case OUTPUT_STDOUT:
		errno = 0;
		util_sigpipe_block(&old);
		rc = finish(stdout, fill(stdout, arg));
		util_sigpipe_restore(&old);
		if (rc < 0) {
			/* The caller says it failed; what is left in the buffer
			 * cannot be written either, and main's final check of
			 * standard output must not say it a second time. */
			__fpurge(stdout);
			clearerr(stdout);
		}
		return rc;
	case OUTPUT_FILE:
		return util_write_atomic_with(t.real, fill, arg);
	case OUTPUT_IN_PLACE:
		break;
	}
	/* No O_CREAT, no O_TRUNC: the node stays what it is. */
	int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY | (t.append ? O_APPEND : 0);
	if ((fd = open_in_place(path, t.real, flags)) < 0)
		return fd;
	if (!(f = fdopen(fd, t.append ? "a" : "w"))) {
		rc = -errno;
		close(fd);
		return rc;
	}
	errno = 0;
	/* A reader that goes away early (head -c) gives EPIPE, not death:
	 * a run's report then goes to its fallback. */
	util_sigpipe_block(&old);
	rc = finish(f, fill(f, arg));
	if (fclose(f) != 0 && !rc)
		rc = errno ? -errno : -EIO;
	util_sigpipe_restore(&old);
	return rc;
}

int output_write(const char *path, const char *data, size_t len)
{
	struct util_buffer b = { data, len };

	return output_write_with(path, util_fill_buffer, &b);
}

/* ---------------------------------------------------------- stale temps -- */

static struct {
	char dir[PATH_MAX];
	char file[PATH_MAX];
	enum output_format fmt;
} targets[MAX_TARGETS];
static unsigned ntargets;

void output_note_target(const char *path, enum output_format fmt)
{
	struct target t;
	char why[PATH_MAX + 128];
	const char *slash;

	if (ntargets == MAX_TARGETS || resolve(path, &t, why, sizeof(why)) < 0 ||
	    t.kind != OUTPUT_FILE)
		return;
	snprintf(targets[ntargets].file, PATH_MAX, "%s", t.real);
	slash = strrchr(t.real, '/');
	if (!slash)
		snprintf(targets[ntargets].dir, PATH_MAX, ".");
	else if (slash == t.real)
		snprintf(targets[ntargets].dir, PATH_MAX, "/");
	else
		snprintf(targets[ntargets].dir, PATH_MAX, "%.*s", (int)(slash - t.real), t.real);
	targets[ntargets++].fmt = fmt;
}

/* ".rtsoak-PID-XXXXXX" (util.c's temp names) of a process that is gone.
 * Only that exact shape is looked at, so nothing else is ever printed. */
static int dead_pid(const char *name)
{
	const char *p = name + strlen(".rtsoak-");
	long pid = 0;

	if (strncmp(name, ".rtsoak-", 8) || *p < '1' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((pid = pid * 10 + (*p - '0')) > INT32_MAX)
			return 0;
	if (*p++ != '-' || strlen(p) != 6)
		return 0;
	for (const char *q = p; *q; q++)
		if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
		      (*q >= '0' && *q <= '9')))
			return 0;
	if ((pid_t)pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	return (int)pid;
}

/* A --set journal's temp (tweak.c writes it with util_write_atomic): whole
 * JSON too, but never a report to keep under the report's name. */
#define WHOLE_JOURNAL 10 /* no enum output_format */

/* Whether the file is a whole JSON document or HTML page, from its ends
 * only (cheap: a day's report is large): -1 neither. */
static int whole_format(int fd, off_t size)
{
	char head[128] = "", tail[16] = "";
	size_t h = 0, t = 0;
	ssize_t n;

	if (size < 2)
		return -1;
	if ((n = pread(fd, head, sizeof(head) - 1, 0)) <= 0)
		return -1;
	head[n] = '\0';
	off_t at = size > (off_t)sizeof(tail) - 1 ? size - (off_t)sizeof(tail) + 1 : 0;
	if ((n = pread(fd, tail, sizeof(tail) - 1, at)) <= 0)
		return -1;
	tail[n] = '\0';
	while (head[h] == ' ' || head[h] == '\n' || head[h] == '\t')
		h++;
	t = strlen(tail);
	while (t > 0 && (tail[t - 1] == ' ' || tail[t - 1] == '\n' || tail[t - 1] == '\t'))
		tail[--t] = '\0';
	if (head[h] == '{' && t > 0 && tail[t - 1] == '}')
		return strstr(head, "rtsoak-journal/") ? WHOLE_JOURNAL : OUTPUT_JSON;
	if (!strncmp(head + h, "<!DOCTYPE html>", 15) && t >= 7 && !strcmp(tail + t - 7, "</html>"))
		return OUTPUT_HTML;
	return -1;
}

static const char *whole_name(int fmt)
{
	return fmt == OUTPUT_JSON   ? "JSON document"
	       : fmt == OUTPUT_HTML ? "HTML page"
				    : "--set journal";
}

static void report_stale(const char *dir, const char *name, int pid)
{
	char path[PATH_MAX * 2], when[40];
	struct stat st, tst;
	int fd, fmt;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	fmt = whole_format(fd, st.st_size);
	close(fd);
	util_iso8601((uint64_t)st.st_mtim.tv_sec * NSEC_PER_SEC + (uint64_t)st.st_mtim.tv_nsec,
		     when, sizeof(when));
	const char *older = NULL;
	for (unsigned i = 0; fmt >= 0 && i < ntargets; i++) {
		if (strcmp(targets[i].dir, dir) || (int)targets[i].fmt != fmt)
			continue;
		bool newer = stat(targets[i].file, &tst) < 0 ||
			     st.st_mtim.tv_sec > tst.st_mtim.tv_sec ||
			     (st.st_mtim.tv_sec == tst.st_mtim.tv_sec &&
			      st.st_mtim.tv_nsec > tst.st_mtim.tv_nsec);
		if (!newer) {
			older = targets[i].file;
			continue;
		}
		/* A name of its own, not the target's: this command writes the
		 * target, and the advice must stay right after it did. */
		char keep[PATH_MAX + 32];
		const char *base = strrchr(targets[i].file, '/');
		const char *ext = strrchr(base ? base + 1 : targets[i].file, '.');
		if (!ext || ext == (base ? base + 1 : targets[i].file))
			ext = targets[i].file + strlen(targets[i].file);
		snprintf(keep, sizeof(keep), "%.*s-killed-%d%s", (int)(ext - targets[i].file),
			 targets[i].file, pid, ext);
		fprintf(
		    stderr,
		    "rtsoak: '%s' was left by a killed run (pid %d, %lld bytes, %s): it ends like "
		    "a whole %s and is newer than '%s': to keep it, mv '%s' '%s'\n",
		    path, pid, (long long)st.st_size, when, whole_name(fmt), targets[i].file, path,
		    keep);
		return;
	}
	if (fmt < 0)
		fprintf(
		    stderr,
		    "rtsoak: '%s' was left by a killed run (pid %d, %lld bytes, %s), not a whole "
		    "report: not removed\n",
		    path, pid, (long long)st.st_size, when);
	else
		fprintf(
		    stderr,
		    "rtsoak: '%s' was left by a killed run (pid %d, %lld bytes, %s), a whole %s%s%s%s: "
		    "not removed\n",
		    path, pid, (long long)st.st_size, when, whole_name(fmt),
		    older ? ", older than '" : "", older ? older : "", older ? "'" : "");
}

unsigned output_stale(void)
{
	unsigned found = 0;

	for (unsigned i = 0; i < ntargets; i++) {
		bool seen = false;
		for (unsigned k = 0; k < i; k++)
			seen |= !strcmp(targets[k].dir, targets[i].dir);
		if (seen)
			continue;
		DIR *d = opendir(targets[i].dir);
		struct dirent *e;
		if (!d)
			continue;
		while ((e = readdir(d))) {
			int pid = dead_pid(e->d_name);
			if (pid) {
				report_stale(targets[i].dir, e->d_name, pid);
				found++;
			}
		}
		closedir(d);
	}
	return found;
}

/* ------------------------------------------------------ killed runs -- */

/* The JSON string at *pp (just after its opening quote): its first bytes, raw, into out
 * (truncated; a longer one gets a byte more than any name compared with), *pp after the
 * closing quote.  False when the buffer ends inside it. */
static bool scan_string(const char **pp, const char *end, char *out, size_t len)
{
	const char *p = *pp;
	size_t n = 0;

	for (; p < end && *p != '"'; p++) {
		if (*p == '\\' && ++p == end)
			return false;
		if (n + 1 < len)
			out[n++] = *p;
	}
	out[n] = '\0';
	*pp = p + 1;
	return p < end;
}

/* Whether the open file is a checkpoint: an rtsoak report (its "schema" says so) whose
 * top-level "run" holds "status": "running".  Judged from the first MiB, scanned for
 * structure (strings, nesting) without building it, so that a day's report is not parsed
 * to start the next run; "run" follows only "schema" and "tool" (whose argv is the
 * command line), and "status" follows run.start and run.end. */
static bool running_report(int fd)
{
	const size_t max = 1 << 20;
	char *buf = malloc(max), key[32] = "", str[32];
	ssize_t n = buf ? pread(fd, buf, max, 0) : -1;
	const char *p = buf, *end = n > 0 ? buf + n : buf;
	unsigned depth = 0;
	bool schema = false, in_run = false, yes = false;

	while (p < end) {
		char c = *p++;
		if (c == '{' || c == '[') {
			in_run |= depth == 1 && c == '{' && !strcmp(key, "run");
			depth++;
		} else if (c == '}' || c == ']') {
			if (!depth-- || (in_run && depth == 1))
				break; /* "run" without a status */
		} else if (c == '"') {
			if (!scan_string(&p, end, str, sizeof(str)))
				break;
			const char *q = p;
			while (q < end && (*q == ' ' || *q == '\n' || *q == '\t' || *q == '\r'))
				q++;
			if (q < end && *q == ':') {
				memcpy(key, str, sizeof(key));
				p = q + 1;
				continue;
			}
			/* a value: the first one must be the schema's */
			if (depth == 1 && !strcmp(key, "schema"))
				schema = !strncmp(str, "rtsoak-report/", 14);
			if (!schema)
				break;
			if (in_run && depth == 2 && !strcmp(key, "status")) {
				yes = !strcmp(str, "running");
				break;
			}
		} else if (depth == 1 && !schema && c != ' ' && c != '\n' && c != '\t' &&
			   c != '\r') {
			break; /* a first member that is not the schema */
		}
	}
	free(buf);
	return yes;
}

/* mkdir DIR/STEM.interrupted-TS[-N] (never an existing one): 0 with the name in out. */
static int aside_dir(const char *real, time_t when, char *out, size_t len)
{
	const char *slash = strrchr(real, '/');
	const char *base = slash ? slash + 1 : real;
	size_t stem = strlen(base);
	char ts[32];
	struct tm tm;

	if (stem > 5 && !strcmp(base + stem - 5, ".json"))
		stem -= 5;
	gmtime_r(&when, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	for (unsigned k = 1; k <= 100; k++) {
		char n[16] = "";
		if (k > 1)
			snprintf(n, sizeof(n), "-%u", k);
		if ((size_t)snprintf(out, len, "%.*s%.*s.interrupted-%s%s",
				     slash ? (int)(base - real) : 0, real, (int)stem, base, ts,
				     n) >= len)
			return -ENAMETOOLONG;
		if (mkdir(out, 0755) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* rename `from` into dir under its own name: 1, or 0 when it is not there. */
static int move_into(const char *from, const char *dir, char *why, size_t len)
{
	const char *slash = strrchr(from, '/');
	char to[PATH_MAX * 2];
	struct stat st;

	if (lstat(from, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	snprintf(to, sizeof(to), "%s/%s", dir, slash ? slash + 1 : from);
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return 0; /* not a log: the run refuses it (cli_check) */
	if (rename(from, to) < 0) {
		int e = errno;
		snprintf(why, len, "cannot move '%s' into '%s': %s", from, dir, strerror(e));
		return -e;
	}
	return 1;
}

int output_keep_unfinished(const char *path, const char *const *comp, unsigned ncomp, char *moved,
			   size_t len)
{
	char why[PATH_MAX + 128], dir[PATH_MAX];
	struct target t;
	struct stat st;
	int fd, rc;

	moved[0] = '\0';
	if (resolve(path, &t, why, sizeof(why)) < 0 || t.kind != OUTPUT_FILE)
		return 0;
	fd = open(t.real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !running_report(fd)) {
		close(fd);
		return 0;
	}
	close(fd);
	if ((rc = aside_dir(t.real, st.st_mtim.tv_sec, dir, sizeof(dir))) < 0) {
		snprintf(moved, len, "cannot make a directory beside '%s' to keep it in: %s",
			 t.real, strerror(-rc));
		return rc;
	}
	int n = 1;
	for (unsigned i = 0; i < ncomp; i++) {
		if ((rc = move_into(comp[i], dir, moved, len)) < 0)
			return rc;
		n += rc;
	}
	if ((rc = move_into(t.real, dir, moved, len)) < 0)
		return rc;
	util_fsync_dir_of(t.real);
	snprintf(moved, len, "%s", dir);
	return n;
}
