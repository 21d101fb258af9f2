/* util: file and time helpers. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
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
	if ((size_t)snprintf(tmp, len, "%s/.rtsoak-XXXXXX", dir) >= len)
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

int util_write_atomic(const char *path, const char *data, size_t len)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	int fd = temp_in_dir_of(path, tmp, sizeof(tmp)), rc = 0;

	if (fd < 0)
		return fd;
	/* mkostemp makes 0600; a report is not a secret. */
	(void)fchmod(fd, 0644);
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, data + off, len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		off += (size_t)n;
	}
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
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
