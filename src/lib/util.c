// SPDX-License-Identifier: GPL-2.0-or-later
/* util: file, time and escaping helpers (util.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

ssize_t util_read_fd(int fd, size_t hint, size_t max, bool cut, char **out)
{
	/* The most data ever held: max, or one byte more to tell "longer than
	 * max".  Room for hint + 1 bytes at first, so that a file of the size
	 * fstat said reaches EOF without growing; + 1 for the NUL throughout. */
	size_t limit = cut ? max : max + 1;
	size_t room = hint ? hint + 1 : 4096, n = 0;
	char *buf;

	*out = NULL;
	if (room > limit)
		room = limit;
	if (!(buf = malloc(room + 1)))
		return -ENOMEM;
	while (n < limit) {
		if (n == room) {
			size_t grow = room > limit / 2 ? limit : 2 * room;
			char *p = realloc(buf, grow + 1);
			if (!p) {
				free(buf);
				return -ENOMEM;
			}
			buf = p;
			room = grow;
		}
		ssize_t got = read(fd, buf + n, room - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;
			free(buf);
			return -e;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n > max) {
		free(buf);
		return -EFBIG;
	}
	buf[n] = '\0';
	*out = buf;
	return (ssize_t)n;
}

int util_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	char *text;

	if (fd < 0)
		return -errno;
	n = util_read_fd(fd, 0, len - 1, true, &text);
	close(fd);
	if (n < 0)
		return (int)n;
	memcpy(buf, text, (size_t)n + 1);
	free(text);
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return (int)n;
}

int util_grow(void *arr, size_t n, size_t size)
{
	void **p = arr;

	if (n && (n & (n - 1)))
		return 0; /* not a power of two: there is room */
	size_t cap = n ? n * 2 : 1;
	if (cap < n || cap > SIZE_MAX / size)
		return -ENOMEM;
	void *grown = realloc(*p, cap * size);
	if (!grown)
		return -ENOMEM;
	*p = grown;
	return 0;
}

uint64_t util_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

void util_iso8601(uint64_t realtime_ns, char *buf, size_t len)
{
	time_t sec = (time_t)(realtime_ns / NSEC_PER_SEC);
	unsigned ms = (unsigned)(realtime_ns % NSEC_PER_SEC / NSEC_PER_MSEC);
	struct tm tm;
	char tmp[32];

	gmtime_r(&sec, &tm);
	strftime(tmp, sizeof(tmp), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03uZ", tmp, ms);
}

/* dirname() may modify its argument and return static storage: copy. */
static void dir_of(const char *path, char *dir, size_t len)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(dir, len, "%s", dirname(tmp));
}

unsigned util_digits(uint64_t v)
{
	unsigned d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

int util_temp_in_dir_of(const char *path, char *tmp, size_t len)
{
	char dir[PATH_MAX];
	int fd;

	dir_of(path, dir, sizeof(dir));
	/* The pid in the name lets a later run tell a temp file of a killed
	 * run (output_stale) from one being written right now. */
	if ((size_t)snprintf(tmp, len, "%s/.rtsoak-%d-XXXXXX", dir, (int)getpid()) >= len)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int util_check_writable(const char *path)
{
	char tmp[PATH_MAX];
	int fd = util_temp_in_dir_of(path, tmp, sizeof(tmp));

	if (fd < 0)
		return fd;
	close(fd);
	unlink(tmp);
	return 0;
}

/* fill() into f, then flushed, synced and closed: 0 or the first error.  A
 * full disk shows up here at the latest, as the buffer is flushed. */
static int fill_sync_close(FILE *f, int (*fill)(FILE *f, void *arg), void *arg)
{
	int rc;

	errno = 0;
	rc = fill(f, arg);
	if (!rc && (fflush(f) != 0 || ferror(f)))
		rc = errno ? -errno : -EIO;
	if (!rc && fsync(fileno(f)) < 0)
		rc = -errno;
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	return rc;
}

int util_write_atomic_mode(const char *path, int (*fill)(FILE *f, void *arg), void *arg,
			   mode_t mode)
{
	char tmp[PATH_MAX];
	int fd = util_temp_in_dir_of(path, tmp, sizeof(tmp)), rc = 0;
	FILE *f;

	if (fd < 0)
		return fd;
	/* mkostemp makes 0600, whatever the umask. */
	if (mode != 0600 && fchmod(fd, mode) < 0) {
		rc = -errno;
		close(fd);
		unlink(tmp);
		return rc;
	}
	if (!(f = fdopen(fd, "w"))) {
		rc = -errno;
		close(fd);
		unlink(tmp);
		return rc;
	}
	rc = fill_sync_close(f, fill, arg);
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc) {
		unlink(tmp);
		return rc;
	}
	/* Make the rename itself durable. */
	util_fsync_dir_of(path);
	return 0;
}

/* Ten characters of [A-Za-z0-9] from getrandom (the clock and a counter
 * when it has none yet): about 59 bits nobody can guess. */
static void random_chars(char out[11])
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned counter;
	unsigned char b[10];

	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != (ssize_t)sizeof(b)) {
		uint64_t v = util_now_ns(CLOCK_REALTIME) ^ ((uint64_t)getpid() << 32) ^ counter++;
		for (unsigned i = 0; i < sizeof(b); i++, v = v * 6364136223846793005ull + 1)
			b[i] = (unsigned char)(v >> 56);
	}
	for (unsigned i = 0; i < sizeof(b); i++)
		out[i] = set[b[i] % (sizeof(set) - 1)];
	out[10] = '\0';
}

/* The directory open: root's or ours, and if others may write into it, sticky. */
static int safe_dir(const char *dir)
{
	struct stat st;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (dfd < 0)
		return -errno;
	if (fstat(dfd, &st) < 0) {
		rc = -errno;
		close(dfd);
		return rc;
	}
	if ((st.st_uid != 0 && st.st_uid != geteuid()) ||
	    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
		close(dfd);
		return -EPERM;
	}
	return dfd;
}

int util_write_new(const char *dir, const char *prefix, const char *suffix,
		   int (*fill)(FILE *f, void *arg), void *arg, char *path, size_t len)
{
	char name[NAME_MAX + 1], rnd[11];
	int dfd = safe_dir(dir), fd = -1, rc = 0;
	FILE *f;

	if (dfd < 0)
		return dfd;
	for (unsigned tries = 0; fd < 0 && tries < 100; tries++) {
		random_chars(rnd);
		if ((size_t)snprintf(name, sizeof(name), "%s%s%s", prefix, rnd, suffix) >=
			sizeof(name) ||
		    (size_t)snprintf(path, len, "%s/%s", dir, name) >= len) {
			close(dfd);
			return -ENAMETOOLONG;
		}
		/* O_EXCL: a name someone planted (a FIFO, a symlink) is skipped,
		 * never opened. */
		fd = openat(dfd, name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST) {
			rc = -errno;
			close(dfd);
			return rc;
		}
	}
	if (fd < 0) {
		close(dfd);
		return -EEXIST;
	}
	/* 0600 whatever the umask took away from it. */
	if (fchmod(fd, 0600) < 0 || !(f = fdopen(fd, "w"))) {
		rc = -errno;
		close(fd);
		goto out;
	}
	rc = fill_sync_close(f, fill, arg);
out:
	if (rc)
		unlinkat(dfd, name, 0);
	else
		(void)fsync(dfd);
	close(dfd);
	return rc;
}

void util_fsync_dir_of(const char *path)
{
	char dir[PATH_MAX];
	int fd;

	dir_of(path, dir, sizeof(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

int util_write_atomic_with(const char *path, int (*fill)(FILE *f, void *arg), void *arg)
{
	return util_write_atomic_mode(path, fill, arg, 0644);
}

int util_fill_buffer(FILE *f, void *arg)
{
	const struct util_buffer *b = arg;

	return fwrite(b->data, 1, b->len, f) == b->len ? 0 : errno ? -errno : -EIO;
}

int util_write_atomic(const char *path, const char *data, size_t len)
{
	struct util_buffer b = { data, len };

	return util_write_atomic_with(path, util_fill_buffer, &b);
}

/* The escape of the character at *pp into tmp (or a constant), *pp moved
 * past it: util_escape's one rule, for a buffer and for a stream. */
static const char *escape_one(const unsigned char **pp, char tmp[8])
{
	const unsigned char *p = (*pp)++;

	if (*p == '\n')
		return "\\n";
	if (*p == '\t')
		return "\\t";
	if (*p == '\r')
		return "\\r";
	if (*p < 0x20 || *p == 0x7f) {
		snprintf(tmp, 8, "\\x%02x", *p);
		return tmp;
	}
	if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
		snprintf(tmp, 8, "\\u%04x", p[1]);
		(*pp)++;
		return tmp;
	}
	tmp[0] = (char)*p;
	tmp[1] = '\0';
	return tmp;
}

char *util_escape(const char *s, char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0;
	char tmp[8];

	if (!len)
		return buf;
	while (*p) {
		const unsigned char *at = p;
		const char *put = escape_one(&p, tmp);
		size_t n = strlen(put);

		if (o + n >= len) {
			/* Never end on half a UTF-8 character: when the byte
			 * that does not fit continues one, drop its start. */
			if ((*at & 0xc0) == 0x80)
				while (o > 0 && ((unsigned char)buf[--o] & 0xc0) == 0x80)
					;
			break;
		}
		memcpy(buf + o, put, n);
		o += n;
	}
	buf[o] = '\0';
	return buf;
}

void util_fputs_escaped(const char *s, FILE *out)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char tmp[8];

	while (*p)
		fputs(escape_one(&p, tmp), out);
}

void util_sigpipe_block(sigset_t *old)
{
	sigset_t pipe_set;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, old);
}

void util_sigpipe_restore(const sigset_t *old)
{
	struct timespec zero = { 0, 0 };
	sigset_t pipe_set;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	if (!sigismember(old, SIGPIPE))
		while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE)
			;
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

const char *util_file_type(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISLNK(m)  ? "a symbolic link"
	       : S_ISREG(m)  ? "a regular file"
			     : "not a file";
}

void util_errf(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

void util_catf(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 4 >= len)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - used)
		snprintf(buf + len - 4, 4, "...");
}

void util_report_stem(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t n = strlen(name);

	if (n > 5 && !strcmp(name + n - 5, ".json"))
		n -= 5;
	snprintf(buf, len, "%.*s", (int)n, name);
}

/* The length of the UTF-8 character at p (n bytes left) as jansson accepts
 * it (RFC 3629: no overlong form, no surrogate, nothing above U+10FFFF), 0
 * when the bytes there are not one. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len = p[0] < 0x80		    ? 1
		     : p[0] >= 0xc2 && p[0] <= 0xdf ? 2
		     : (p[0] & 0xf0) == 0xe0	    ? 3
		     : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
						    : 0;

	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return len;
}

size_t util_utf8_fix(char *s, size_t len)
{
	unsigned char *p = (unsigned char *)s;
	size_t fixed = 0;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_len(p + i, len - i);

		if (n) {
			i += n;
			continue;
		}
		p[i++] = '?';
		fixed++;
	}
	return fixed;
}

json_t *util_json_stringn(const char *s, size_t len)
{
	json_t *v = json_stringn(s, len);

	if (v) /* valid already: the common case costs no copy */
		return v;
	char *copy = malloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, s, len);
	util_utf8_fix(copy, len);
	v = json_stringn(copy, len);
	free(copy);
	return v;
}

json_t *util_json_string(const char *s)
{
	return util_json_stringn(s, strlen(s));
}

int util_json_set(json_t *o, const char *key, json_t *v)
{
	return v && !json_object_set_new(o, key, v) ? 0 : -1;
}

int util_json_push(json_t *a, json_t *v)
{
	return v && !json_array_append_new(a, v) ? 0 : -1;
}

bool util_json_oom(const json_error_t *e)
{
	return json_error_code(e) == json_error_out_of_memory || (e->line == -1 && !e->text[0]);
}
