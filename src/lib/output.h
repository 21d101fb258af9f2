/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output: every file rtsoak writes a report or a view into (-o, --html,
 * --prom, checkpoints, report and compare outputs) goes through here, so
 * that what the path names decides how it is written, and that is decided
 * before a run starts:
 *   "-"                          standard output
 *   a regular file or a new name atomic replace (util_write_atomic_with)
 *   a character device or FIFO   opened and written in place (no O_CREAT,
 *                                no O_TRUNC), not atomic: /dev/null stays
 *                                /dev/null, a FIFO stays a FIFO
 *   anything else                refused: a directory, a block device, a
 *                                socket, a dangling symlink
 * Symlinks are followed only when every link on the way is owned by root
 * or by the caller (the rule of fs.protected_symlinks, also outside sticky
 * directories), and a regular file reached through one is replaced under
 * its real path, so the link stays a link.  A link through /proc/PID/fd
 * (/dev/stdout, /dev/fd/N) names a file that is already open: it is
 * written in place, appending, never replaced. */
#ifndef RTSOAK_OUTPUT_H
#define RTSOAK_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum output_kind {
	OUTPUT_FILE,	 /* regular file or new name: atomic replace */
	OUTPUT_STDOUT,	 /* "-" */
	OUTPUT_IN_PLACE, /* character device, FIFO, an open file via /proc/PID/fd */
};

/* What a complete temp file of the target looks like (output_stale). */
enum output_format { OUTPUT_JSON, OUTPUT_HTML, OUTPUT_PROM, OUTPUT_TEXT };

/* Decide how `path` would be written now.  Returns the kind (>= 0), or
 * -errno with the reason as a phrase naming the path in why, e.g. "'/tmp'
 * is a directory: give a file name".  For OUTPUT_FILE it also checks that the directory takes a
 * new file; for OUTPUT_IN_PLACE that the node is writable (a FIFO is not
 * opened: that would wait for a reader).  what, when not NULL, gets the
 * node's type for the in-place notice ("a character device"). */
int output_check(const char *path, const char **what, char *why, size_t len)
    __attribute__((warn_unused_result));

/* Write what `fill` writes to a stream to `path`, as output_check decides
 * at this moment (a path can change during a run).  A FIFO blocks here
 * until a reader opens it.  Returns 0 or -errno (the first write error:
 * ENOSPC, EIO, ...). */
int output_write_with(const char *path, int (*fill)(FILE *f, void *arg), void *arg)
    __attribute__((warn_unused_result));
/* The same for a buffer. */
int output_write(const char *path, const char *data, size_t len)
    __attribute__((warn_unused_result));

/* Remember `path` (not "-") as a target of this command, for output_stale. */
void output_note_target(const char *path, enum output_format fmt);
/* Temp files (.rtsoak-PID-XXXXXX) that rtsoak processes no longer alive left
 * beside the noted targets (a kill -9 between writing and renaming): one
 * line each on stderr, with how to keep one that is a whole document newer
 * than its target.  Nothing is deleted.  Returns how many were found. */
unsigned output_stale(void);

/* A report at `path` (an rtsoak report whose run.status is "running": a
 * checkpoint) that no live run writes any more (the caller holds its output
 * lock, lock.h) is the data of a killed run, not a file to replace: move it
 * and the `ncomp` companions that exist (its series logs, full paths beside
 * it) into a new directory beside it, STEM.interrupted-YYYYMMDDTHHMMSSZ
 * (the report's last write, UTC; "-2", "-3", ... when that exists: an
 * earlier one is never written into), under their own names, so the moved
 * report still finds its series log.  Companions go first: a crash in
 * between leaves the report where the next run moves it again.  Returns 0
 * when nothing was to be moved, 1 + the companions moved with `moved`
 * naming the directory, or
 * -errno with `moved` saying what could not be done (nothing replaced). */
int output_keep_unfinished(const char *path, const char *const *comp, unsigned ncomp, char *moved,
			   size_t len) __attribute__((warn_unused_result));

#endif
