/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sysinfo: a snapshot of what an RT tuner changes, taken once per run.
 *
 * The snapshot is kept as a jansson object rather than a C struct: it is
 * heterogeneous key/value data whose only consumers are the report writers
 * and (later) compare, which diffs it key by key.  Every value that cannot be
 * read on this machine is JSON null, never omitted, so two snapshots always
 * have the same shape. */
#ifndef RTSOAK_SYSINFO_H
#define RTSOAK_SYSINFO_H

#include <stddef.h>
#include <jansson.h>

/* Take the snapshot.  Never fails for a missing file (that value is null);
 * returns NULL only when out of memory. */
json_t *sysinfo_snapshot(void);

/* Limits of one --record glob's expansion (the man page, SAFETY): directory entries read while
 * expanding it (sysfs's symlinks make "/sys/x/x/x/x/x/x/x/x" with x = * explode) and files it
 * may match. */
#define SYSINFO_RECORD_MAX_ENTRIES 100000
#define SYSINFO_RECORD_MAX_FILES 10000

/* Check one --record glob before a run: it must be an absolute path under /sys or /proc (after
 * resolving ".."), stay within the limits above, match no file on the deny list (other
 * processes' environ, cmdline, memory and maps, /proc/kcore, ...: the man page, SAFETY) and
 * match at least one readable file that other users may read too.  Returns 0; or the number
 * of matching files only their owner or group may read (left out of the report) with a
 * one-line note in err; or -EINVAL with a one-line reason in err. */
int sysinfo_record_check(const char *glob, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* Add the contents of every file matching each glob to system["recorded"]
 * as {path: contents-with-trailing-newline-stripped}, leaving out what
 * sysinfo_record_check() refuses or leaves out (a glob may match new files
 * by now; one grown past the limits records nothing).  Returns 0 or -errno. */
int sysinfo_record(json_t *system, char *const *globs, size_t nglobs);

#endif
