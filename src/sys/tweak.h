/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tweak: `--set PATH=VALUE` on sysfs and sysctl files for the length of a run.
 *
 * A tweak outlives the process that made it: if rtsoak is SIGKILLed the machine
 * stays tweaked.  So every original value is written to a journal (fsynced)
 * before the first write, `rtsoak restore JOURNAL` puts them back after a
 * crash, and a run refuses to start while an earlier run's journal is present.
 *
 * Life cycle in a run: tweak_add per --set, tweak_set_journal and tweak_lock
 * while the command line is checked (nothing is written), tweak_apply before loads and
 * probes start, tweak_restore on every way out.  `rtsoak ab` alternates
 * tweak_apply / tweak_unapply through the same journal and calls tweak_restore
 * once at the very end.  None of this is async-signal-safe: call it from the
 * normal flow (after sigtimedwait), never from a signal handler. */
#ifndef RTSOAK_TWEAK_H
#define RTSOAK_TWEAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "lock.h"

#define TWEAK_JOURNAL_SCHEMA "rtsoak-journal/1"
/* sysfs hands out at most a page per attribute. */
#define TWEAK_VALUE_MAX 4096
/* A --set pattern is expanded by a bounded walk (sysfs is full of symlinks
 * back up the tree, and glob(3) follows them: /sys/x/x/x/x/x/x/x/x took 37 s
 * and 2 GB): at most this many matches, and at most TWEAK_GLOB_ENTRIES
 * directory entries read while expanding it; beyond either, tweak_add fails
 * at once. */
#define TWEAK_GLOB_MATCHES 4096
#define TWEAK_GLOB_ENTRIES 65536
/* That bounded expansion, for every sysfs glob (--record could use it): the
 * matches of `pattern` (glob(3) rules, FNM_PERIOD, sorted) into *paths (free
 * each and the array).  Returns how many (0: none, *paths NULL), -EOVERFLOW
 * beyond TWEAK_GLOB_MATCHES, -E2BIG beyond TWEAK_GLOB_ENTRIES, -ENOMEM. */
int tweak_glob(const char *pattern, char ***paths) __attribute__((warn_unused_result));

/* Files one run may tweak (each holds a lock, an open file, for the run). */
#define TWEAK_MAX 4096
/* A journal is read whole; one for TWEAK_MAX files of a page each is far
 * smaller. */
#define TWEAK_JOURNAL_MAX (16 * 1024 * 1024)

struct tweak {
	char *path;	/* resolved (realpath), absolute */
	char *value;	/* wanted during the run, as given */
	char *original; /* read before the first write, normalised; NULL until then */
	bool applied;	/* currently holds value (written and read back) */
};

/* Zero-initialise; free with tweak_set_free. */
struct tweak_set {
	struct tweak *v;
	size_t n;
	char *journal;	      /* absolute path, set by tweak_set_journal */
	char *report;	      /* the report path, as given: recorded in the journal */
	char *report_abs;     /* absolute ("-" for stdout): named in the locks */
	bool journal_written; /* ours is on disk: originals must not be re-read */
	struct lock *locks;   /* one per v[], taken by tweak_lock */
	struct lock record;   /* the live-journal record (lock.h), from tweak_apply */
};

/* A journal as read, before anything is checked against the machine. */
struct tweak_journal_entry {
	char *path;
	char *original;
	char *value; /* NULL when the journal has none */
};

struct tweak_journal {
	long long pid; /* 0 when missing */
	char *report;  /* NULL when missing */
	struct tweak_journal_entry *v;
	size_t n;
};

/* Why the resolved path `real` is on the deny list (a file rtsoak never
 * writes: SAFETY in rtsoak(1)), or NULL.  tweak_add refuses it with this. */
const char *tweak_denied(const char *real);

/* Parse one "PATH=VALUE" (split at the first '='), expand PATH as a glob (the
 * bounded walk above; sorted) and check every match: under /sys or /proc/sys
 * after realpath, not on the deny list (files that name a program the kernel
 * runs as root, load security policy, choose what boots, or cannot be set
 * back: rtsoak(1), SAFETY), a regular file, readable and writable.  Matches are appended in glob order; aliases within one
 * glob (merged slab caches are symlinks to one directory) collapse, but a file
 * given twice across --set options is an error.  Nothing is written.  Returns 0,
 * -EINVAL with a one-line reason naming the path in err ("--set PATH: matches
 * no file", "--set PATH: read-only (mode 0444)"), or -ENOMEM. */
int tweak_add(struct tweak_set *ts, const char *spec, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* The journal goes next to the report: "<report>.journal" (the directory
 * resolved by realpath), or rtsoak.journal in the working directory for
 * report "-".  An existing journal means an earlier run did not restore its
 * tweaks: -EEXIST, unless force; one that rtsoak cannot trust (not a regular
 * file, not ours, writable by others, not a journal) is -EPERM unless force,
 * and the message never suggests restoring it.  A journal owned by an rtsoak
 * that is still running is -EBUSY even with force.  Then every live-journal
 * record of a run that died (lock.h): its journal still there is -EEXIST
 * ("the machine is still tweaked by a killed run: rtsoak restore J first"),
 * or -EPERM when that journal cannot be trusted; with force the run goes on
 * and err holds a warning (returns 0 with err non-empty).  Records whose
 * journal is gone are removed.  Call it for every run, with or without
 * --set: a machine still tweaked by a crashed run is not the machine the
 * user thinks they measure. */
int tweak_set_journal(struct tweak_set *ts, const char *report_path, bool force, char *err,
		      size_t errlen) __attribute__((warn_unused_result));

/* Lock every file of the set for this process (lock.h), after
 * tweak_set_journal: -EBUSY when another run tweaks one of them (err names
 * it, its pid and report), -ENOENT when this user has no run directory for
 * locks, other -errno.  Nothing is held on failure.  No tweaks: 0. */
int tweak_lock(struct tweak_set *ts, char *err, size_t errlen) __attribute__((warn_unused_result));

/* Read every original, write the journal (atomic, fsynced), then write each
 * value in order and read it back.  On failure everything is restored, the
 * journal removed (unless a restore failed too: then err says so and names
 * it), and -errno returned: -EINVAL when the kernel did not take the value
 * ("PATH: write 'V': Invalid argument", "PATH: wrote 'V', reads back 'W'").
 * After tweak_unapply it may be called again: the originals and the journal
 * stay as first recorded.  No tweaks: does nothing. */
int tweak_apply(struct tweak_set *ts, char *err, size_t errlen) __attribute__((warn_unused_result));

/* Put the originals back in reverse order and read them back; a file that
 * already holds its original is not written.  Keeps the journal.  Goes on
 * after an error; returns 0 or the first error (err names the path). */
int tweak_unapply(struct tweak_set *ts, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* tweak_unapply, then remove the journal.  If a value could not be restored,
 * the journal stays and err says so, naming it.  Idempotent. */
int tweak_restore(struct tweak_set *ts, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* Parse a journal's bytes (need not be terminated) into j: schema, "tweaks"
 * an array of objects with string "path" and "original" (and optional
 * "value"), values shorter than TWEAK_VALUE_MAX, at most TWEAK_MAX entries.
 * No file-system access at all: a fuzz target.  Returns 0, -EINVAL with a
 * one-line reason in err (not naming any file: "not JSON: line 1: ...",
 * "not an rtsoak journal (schema X, expected Y)", ...), or -ENOMEM.  j is
 * valid for tweak_journal_free either way. */
int tweak_journal_parse(const char *text, size_t len, struct tweak_journal *j, char *err,
			size_t errlen) __attribute__((warn_unused_result));
void tweak_journal_free(struct tweak_journal *j);

/* `rtsoak restore JOURNAL`: write each original back (reverse order), one line
 * per path to `out` (paths and values escaped: util_escape):
 *   restored PATH: 'V' -> 'ORIG'  |  PATH already 'ORIG'  |  PATH: cannot restore: REASON
 * and remove the journal and its live-journal record when every path holds
 * its original.  The journal is opened without following a symlink and
 * without blocking, and must be a regular file owned by the effective uid and
 * not writable by group or others; a journal path must pass the same checks
 * as --set, and one on the deny list refuses the whole journal (rtsoak never
 * writes such a journal: it is forged).  Returns an exit code: 0; 2 for a bad
 * journal (missing, not a regular file, not JSON, wrong schema: err names the
 * file); 3 when the journal is not trusted (owner, mode, symlink, deny list),
 * a path could not be restored, or the journal belongs to an rtsoak that is
 * still running. */
int tweak_journal_restore(const char *journal, FILE *out, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* [{"path", "original", "value"}] for the report ("original" null before apply). */
json_t *tweak_report(const struct tweak_set *ts);

/* Does a file that reads `read` hold `want`?  After trimming: equal strings,
 * the bracketed selection ("always [madvise] never" holds "madvise"), equal
 * whitespace-separated tokens or decimal integers ("4 4 1 7" / "4\t4\t1\t7",
 * "010" / "10"), equal hex cpumasks ("1" / "00000000,00000001") or equal
 * cpulists ("0,1,2,3" / "0-3"). */
bool tweak_value_equal(const char *want, const char *read);

/* Restores nothing and leaves the journal; releases the locks of tweak_lock,
 * and drops the live-journal record's lock but leaves the record while the
 * journal is on disk (as a killed run would). */
void tweak_set_free(struct tweak_set *ts);

#endif
