/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util: small helpers for every layer (src/lib/): the one file reader, atomic writes, time, escaping. */
#ifndef RTSOAK_UTIL_H
#define RTSOAK_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>

#define NSEC_PER_USEC 1000ull
#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC 1000000000ull

/* The one file reader: fd to its end into a malloc'd, NUL-terminated buffer
 * (*out, free() it; NULL on error).  hint: the size fstat gave, or 0.
 * More than max bytes is -EFBIG, or with cut the first max bytes (sysfs and
 * procfs files have no honest size).  Returns the length or -errno
 * (-ENOMEM); EINTR is retried. */
ssize_t util_read_fd(int fd, size_t hint, size_t max, bool cut, char **out)
    __attribute__((warn_unused_result));
/* Read a small text file into buf (at most len - 1 bytes), strip one
 * trailing newline.  Returns the length, or -errno. */
int util_read_file(const char *path, char *buf, size_t len) __attribute__((warn_unused_result));

uint64_t util_now_ns(clockid_t clk);

/* Format a CLOCK_REALTIME instant as ISO-8601 UTC with milliseconds,
 * e.g. 2026-11-30T18:17:42.123Z. */
void util_iso8601(uint64_t realtime_ns, char *buf, size_t len);

/* Write `len` bytes to `path` atomically: a temp file in the same directory,
 * fsync, rename, fsync of the directory.  On failure the old file (if any) is
 * untouched and the temp file removed.  Returns 0 or -errno. */
int util_write_atomic(const char *path, const char *data, size_t len)
    __attribute__((warn_unused_result));
/* The same for content written by `fill` to a stream (returns 0 or -errno), so
 * that a large report need not be built in memory first. */
int util_write_atomic_with(const char *path, int (*fill)(FILE *f, void *arg), void *arg)
    __attribute__((warn_unused_result));

/* Room for element n of *arr (elements of size bytes, n of them in use):
 * the capacity is implied, the next power of two at or above n, so an array
 * grown one append at a time is copied O(log n) times, not n times (20 000
 * results read one realloc each took minutes under ASan).  Returns 0 or
 * -ENOMEM with *arr untouched. */
int util_grow(void *arr, size_t n, size_t size) __attribute__((warn_unused_result));

/* A new file in `dir` that nobody else can have prepared: named
 * PREFIX + 10 random characters + SUFFIX and created with O_CREAT|O_EXCL|
 * O_NOFOLLOW, mode 0600, so never an existing node, a planted FIFO or what a
 * symlink names; filled, fsync'd, the directory fsync'd.  The directory
 * itself must be root's or the caller's, and writable by others only with
 * the sticky bit (-EPERM otherwise: another user could take the file away).
 * `path` gets the file's name (dir/name).  0 or -errno, nothing left. */
int util_write_new(const char *dir, const char *prefix, const char *suffix,
		   int (*fill)(FILE *f, void *arg), void *arg, char *path, size_t len)
    __attribute__((warn_unused_result));

/* util_write_atomic_with with the file's mode: 0644 for reports and views
 * (nothing private: rtsoak(1), SAFETY), 0600 for --set journals. */
int util_write_atomic_mode(const char *path, int (*fill)(FILE *f, void *arg), void *arg,
			   mode_t mode) __attribute__((warn_unused_result));
/* The decimal digits of v (1 for 0): a column's width, a number's JSON. */
unsigned util_digits(uint64_t v);
/* A new temporary file (mode 0600, close-on-exec) in the directory of path,
 * named .rtsoak-PID-XXXXXX (output_stale() knows the pattern); its name in
 * tmp.  The fd or -errno. */
int util_temp_in_dir_of(const char *path, char *tmp, size_t len);
/* fsync the directory that holds path (best effort), so that a rename or an
 * unlink in it survives a power cut. */
void util_fsync_dir_of(const char *path);
/* A fill function for a buffer: arg is a struct util_buffer. */
struct util_buffer {
	const char *data;
	size_t len;
};
int util_fill_buffer(FILE *f, void *arg);

/* "a directory", "a FIFO", "a character device", "a block device", "a
 * socket", "a symbolic link", "a regular file", for messages that say what a
 * path is instead of what was expected. */
const char *util_file_type(mode_t m);

/* snprintf into an error buffer that may be NULL or empty. */
void util_errf(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Check that a file could be created at `path` (its directory exists and is
 * writable) by creating and removing a temp file there.  Returns 0 or -errno. */
int util_check_writable(const char *path) __attribute__((warn_unused_result));

/* A write into a pipe or FIFO whose reader may be gone must fail with EPIPE,
 * not kill rtsoak with SIGPIPE before it has said why (and, in a run, before
 * the report has gone to its fallback): block SIGPIPE in this thread around
 * the write, then restore the mask, taking back a SIGPIPE that the write
 * raised meanwhile unless it was blocked before. */
void util_sigpipe_block(sigset_t *old);
void util_sigpipe_restore(const sigset_t *old);

/* Copy `s` into buf (always terminated, truncated to fit) with every control
 * character a terminal would act on escaped: C0 controls and DEL as \n, \t,
 * \r or \xNN, and the C1 controls U+0080..U+009F (UTF-8 C2 80..C2 9F) as
 * \u00NN; a backslash stays a backslash.  For every string that comes from a
 * file or the system and is printed to a terminal (report, compare, restore):
 * a report must not be able to set a window title or clear the screen.
 * Returns buf. */
char *util_escape(const char *s, char *buf, size_t len);
/* The same, whole (no length limit), onto a stream; its errors show in
 * ferror(out). */
void util_fputs_escaped(const char *s, FILE *out);

/* Append printf output to the string in buf (len bytes): a text that does
 * not fit ends in "..." (lists in messages: "ignored: --a --b ..."). */
void util_catf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A report's name: PATH's file name without ".json" (the --prom run label's default). */
void util_report_stem(const char *path, char *buf, size_t len);

/* Make s (len bytes) valid UTF-8 in place: every byte that does not belong
 * to a whole, valid character (a comm the kernel cut to 15 bytes in the
 * middle of a character, a firmware string in Latin-1) becomes '?'; valid
 * characters stay.  jansson refuses a string that is not UTF-8 (json_pack
 * then returns NULL), and a reader refuses a file that has one: every name
 * the kernel or a user supplies passes here before it enters the model.
 * Returns the number of bytes replaced. */
size_t util_utf8_fix(char *s, size_t len);
/* json_stringn / json_string of s made valid UTF-8 (util_utf8_fix on a
 * copy): NULL only when out of memory. */
json_t *util_json_stringn(const char *s, size_t len);
json_t *util_json_string(const char *s);
/* json_object_set_new / json_array_append_new that also fail (-1) on a NULL
 * value, the failure of the json_pack or json_string that made it: a writer
 * ORs the results and turns any failure into an error, never a silently
 * missing key.  v is always consumed. */
int util_json_set(json_t *o, const char *key, json_t *v) __attribute__((warn_unused_result));
int util_json_push(json_t *a, json_t *v) __attribute__((warn_unused_result));
/* Did json_loadb fail for want of memory rather than on the text?  jansson
 * says json_error_out_of_memory for some allocations, but a failed insert
 * into an object or array while parsing returns NULL with the error as it
 * was initialised (line -1, no text): that is no syntax error either. */
bool util_json_oom(const json_error_t *e);

#endif
