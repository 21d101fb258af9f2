/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lock: what two runs must not share, and tweaks that outlive a killed run.
 *
 * Every lock is a file in the run directory (/run/rtsoak for root,
 * $XDG_RUNTIME_DIR/rtsoak for anyone else), one per locked thing, named after
 * the thing's absolute path with '/' and '%' escaped (so that no name can
 * leave the directory), and held with a POSIX record lock (fcntl F_SETLK)
 * for as long as the process lives.  A record lock belongs to the process:
 * the kernel drops it when the process dies, however it dies, so a file left
 * by a killed run is recognised as stale; and unlike flock it is not
 * inherited by fork, so the load supervisor and its workers never hold the
 * run's locks.  Holders write "pid", "kind", "path" and "report" lines into
 * the file, which name them in a refusal.
 *
 * Kinds: LOCK_OUTPUT (a report path), LOCK_TWEAK (a file --set writes) and
 * LOCK_JOURNAL, the system-wide record of a live journal: created before the
 * journal is written and removed only after the journal is, so a record
 * whose lock nobody holds is a run that died with the machine tweaked; and
 * LOCK_TRACE, the owner record of a tracefs instance (trace_instance.h):
 * taken before the instance is made and removed only after it is, so an
 * instance whose record nobody holds is a killed run's, and one without a
 * record is not rtsoak's to touch. */
#ifndef RTSOAK_LOCK_H
#define RTSOAK_LOCK_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define LOCK_DIR_ROOT "/run/rtsoak"

enum lock_kind { LOCK_OUTPUT, LOCK_TWEAK, LOCK_JOURNAL, LOCK_TRACE };

/* Zero-initialised: not held. */
struct lock {
	int fd; /* valid while held */
	bool held;
	char name[NAME_MAX + 1];
};

/* The run directory for this user, created (0700) if missing and checked on
 * every call: a directory (not a symlink), owned by the effective uid, not
 * writable by group or others.  Returns an open O_DIRECTORY descriptor;
 * -ENOENT (err says why) when this user has none: not root and no usable
 * XDG_RUNTIME_DIR, or no /run (or a read-only one) to create it in; another
 * -errno with err naming the directory when it is unsafe or cannot be made.
 * Without one, runs take no output locks and --set is refused (tweak_lock).
 * dir (optional) gets its path. */
int lock_dir_open(char *dir, size_t dirlen, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* Take the lock of `path` (absolute) for this process: 0; -EBUSY when
 * another live process holds it, with err naming it ("PATH is being tweaked
 * by rtsoak pid 1234 (report R)"); -ENOENT as lock_dir_open; another -errno
 * with err.  `report` is recorded for that message. */
int lock_take(struct lock *l, enum lock_kind kind, const char *path, const char *report, char *err,
	      size_t errlen) __attribute__((warn_unused_result));

/* Remove the lock file and drop the lock.  Idempotent. */
void lock_release(struct lock *l);

/* Drop the lock but leave the file, as a killed process would: a journal
 * record whose journal stays on disk. */
void lock_abandon(struct lock *l);

/* Call fn for every journal record whose lock nobody holds (its run is
 * gone), with the journal path it records and the record's file path.
 * fn returns 0 to go on, 1 to remove that record (its journal is gone), or
 * a negative value to stop, which lock_stale_journals then returns.  Output
 * and tweak lock files nobody holds (left by killed runs) are removed on the
 * way.  No run directory: 0, nothing called. */
int lock_stale_journals(int (*fn)(const char *journal, const char *record, void *arg), void *arg)
    __attribute__((warn_unused_result));

/* Call fn(name, arg) for every LOCK_TRACE record (the `path` it was taken
 * for: an instance name) whose lock nobody holds, holding that lock during
 * the call, so that no other run takes the record meanwhile.  fn returns 1
 * to remove the record, 0 to keep it, or a negative value to stop, which is
 * returned.  Records this process holds are never passed.  Returns how many
 * records were removed; 0 without a run directory. */
int lock_stale_traces(int (*fn)(const char *name, void *arg), void *arg)
    __attribute__((warn_unused_result));

/* Remove the records whose journal is the file (dev, ino): `rtsoak
 * restore` after removing that journal.  Records held by a live process
 * stay. */
void lock_forget_journal(dev_t dev, ino_t ino);

/* The path an output lock is taken for: the target resolved by realpath
 * when it exists, else its directory resolved plus its name, so that two
 * spellings of one file share one lock.  Returns 0; 1 when there is nothing
 * to lock (the target exists and is not a regular file: a device or FIFO is
 * written in place, and two runs writing /dev/null lose nothing); -errno. */
int lock_output_path(const char *target, char *out, size_t len) __attribute__((warn_unused_result));

/* The lock file's name for (kind, path): escaped, and hashed when too long
 * for a file name.  For tests.  Returns 0 or -ENAMETOOLONG. */
int lock_name(enum lock_kind kind, const char *path, char *name, size_t len)
    __attribute__((warn_unused_result));

#endif
