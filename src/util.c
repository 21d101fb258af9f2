/* util: file and time helpers. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

int util_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	close(fd);
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return (int)n;
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

static int temp_in_dir_of(const char *path, char *tmp, size_t len)
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
	int fd = temp_in_dir_of(path, tmp, sizeof(tmp));

	if (fd < 0)
		return fd;
	close(fd);
	unlink(tmp);
	return 0;
}

int util_write_atomic_with(const char *path, int (*fill)(FILE *f, void *arg), void *arg)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	int fd = temp_in_dir_of(path, tmp, sizeof(tmp)), rc = 0;
	FILE *f;

	if (fd < 0)
		return fd;
	/* mkostemp makes 0600; a report is not a secret. */
	(void)fchmod(fd, 0644);
	if (!(f = fdopen(fd, "w"))) {
		rc = -errno;
		close(fd);
		unlink(tmp);
		return rc;
	}
	errno = 0;
	rc = fill(f, arg);
	/* A full disk shows up here at the latest, as the buffer is flushed. */
	if (!rc && (fflush(f) != 0 || ferror(f)))
		rc = errno ? -errno : -EIO;
	if (!rc && fsync(fileno(f)) < 0)
		rc = -errno;
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc) {
		unlink(tmp);
		return rc;
	}
	/* Make the rename itself durable. */
	dir_of(path, dir, sizeof(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	return 0;
}

struct buffer {
	const char *data;
	size_t len;
};

static int fill_buffer(FILE *f, void *arg)
{
	const struct buffer *b = arg;

	return fwrite(b->data, 1, b->len, f) == b->len ? 0 : errno ? -errno : -EIO;
}

int util_write_atomic(const char *path, const char *data, size_t len)
{
	struct buffer b = { data, len };

	return util_write_atomic_with(path, fill_buffer, &b);
}

char *util_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return buf;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		char tmp[8];
		const char *put = tmp;

		if (*p == '\n')
			put = "\\n";
		else if (*p == '\t')
			put = "\\t";
		else if (*p == '\r')
			put = "\\r";
		else if (*p < 0x20 || *p == 0x7f)
			snprintf(tmp, sizeof(tmp), "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			snprintf(tmp, sizeof(tmp), "\\u%04x", *++p);
		else {
			tmp[0] = (char)*p;
			tmp[1] = '\0';
		}
		size_t n = strlen(put);
		if (o + n >= len) {
			/* Never end on half a UTF-8 character: when the byte
			 * that does not fit continues one, drop its start. */
			if ((*p & 0xc0) == 0x80)
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
