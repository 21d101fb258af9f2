/* tweak: `--set PATH=VALUE` on sysfs and sysctl files for the length of a run.
 *
 * A tweak outlives the process that made it: if rtsoak is SIGKILLed the machine
 * stays tweaked.  So every original value is written to a journal (fsynced)
 * before the first write, `rtsoak restore JOURNAL` puts them back after a
 * crash, and a run refuses to start while an earlier run's journal is present.
 *
 * Life cycle in a run: tweak_add per --set and tweak_set_journal while the
 * command line is checked (nothing is written), tweak_apply before loads and
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

#define TWEAK_JOURNAL_SCHEMA "rtsoak-journal/1"
/* sysfs hands out at most a page per attribute. */
#define TWEAK_VALUE_MAX 4096

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
	bool journal_written; /* ours is on disk: originals must not be re-read */
};

/* Parse one "PATH=VALUE" (split at the first '='), expand PATH as a glob and
 * check every match: under /sys or /proc/sys after realpath, a regular file,
 * readable and writable.  Matches are appended in glob order; aliases within one
 * glob (merged slab caches are symlinks to one directory) collapse, but a file
 * given twice across --set options is an error.  Nothing is written.  Returns 0,
 * -EINVAL with a one-line reason naming the path in err ("--set PATH: matches
 * no file", "--set PATH: read-only (mode 0444)"), or -ENOMEM. */
int tweak_add(struct tweak_set *ts, const char *spec, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* The journal goes next to the report: "<report>.journal", or rtsoak.journal in
 * the working directory for report "-".  An existing journal means an earlier
 * run did not restore its tweaks: -EEXIST, unless force.  A journal owned by an
 * rtsoak that is still running is -EBUSY even with force.  Call it for every
 * run, with or without --set: a machine still tweaked by a crashed run is not
 * the machine the user thinks they measure. */
int tweak_set_journal(struct tweak_set *ts, const char *report_path, bool force, char *err,
		      size_t errlen) __attribute__((warn_unused_result));

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

/* `rtsoak restore JOURNAL`: write each original back (reverse order), one line
 * per path to `out`:
 *   restored PATH: 'V' -> 'ORIG'  |  PATH already 'ORIG'  |  PATH: cannot restore: REASON
 * and remove the journal when every path holds its original.  A journal path
 * must pass the same checks as --set (a journal is not a licence to write any
 * file as root).  Returns an exit code: 0; 2 for a bad journal (missing, not
 * JSON, wrong schema: err names the file); 3 when a path could not be restored
 * or the journal belongs to an rtsoak that is still running. */
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

/* Frees memory only: restores nothing and leaves the journal. */
void tweak_set_free(struct tweak_set *ts);

#endif
