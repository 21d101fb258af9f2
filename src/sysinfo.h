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

/* Check one --record glob before a run: it must be an absolute path under
 * /sys or /proc (after resolving "..") and match at least one readable
 * file.  Returns 0, or -EINVAL with a one-line reason in err. */
int sysinfo_record_check(const char *glob, char *err, size_t errlen);

/* Add the contents of every file matching each glob to system["recorded"]
 * as {path: contents-with-trailing-newline-stripped}. Returns 0 or -errno. */
int sysinfo_record(json_t *system, char *const *globs, size_t nglobs);

#endif
