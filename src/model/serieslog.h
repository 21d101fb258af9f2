/* SPDX-License-Identifier: GPL-2.0-or-later */
/* serieslog: the series log of a running report (issue 20).
 *
 * A checkpoint used to rewrite the whole report: over a day at the default
 * 60 s that is ~720 times the final report, most of it the time series
 * written again and again.  Now a checkpoint appends what is new in the
 * series (intervals and logged spikes since the last one) to the series
 * log "<report>.series", fdatasync'd, and the JSON report at <report> (the
 * "summary": everything but the series' columns, with a "series_log"
 * member naming the log) is rewritten only as often as a byte budget allows
 * (session_output.c).  `rtsoak report` merges the two; the final report is
 * one self-contained JSON file again and the log is removed.
 *
 * File: the header "RTSOAKS1" and the run's 64-bit id (little-endian; the
 * summary names it, so the log of another run is refused), then records:
 * u32 length, u32 CRC-32 of those 4 bytes, u32 CRC-32 of the payload (all
 * little-endian), payload.  A record is one checkpoint, all series in
 * report order (varints):
 *
 *   type (1), t_ns (the run time of the checkpoint), nseries, per series:
 *     interval_ns, flags (1: reset, the series was coarsened and starts
 *     again), first (the index of the record's first interval: the last
 *     one logged, which it replaces, or 0 after a reset), m,
 *     nbytes, m intervals (series_store_encode, the count delta from 0),
 *     first_spike, nspikes, per spike: zigzag(t_ns - the previous one's, 0
 *     for the first), latency_ns, phase;
 *     stalls, spikes_total, spikes_overwritten, spikes_unlogged,
 *     threshold_ns, threshold_at_ns;
 *     and in records of type 2 (issue 30; the reader takes type 1 too) the
 *     per-interval quantiles: quant_interval_ns, flags (1: reset, 2:
 *     merged), first (the last one logged, which it replaces, or 0 after a
 *     reset), m, per entry: count, then the histogram bucket of p50, p99
 *     and p99.9 (0xffff: none).
 *
 * Each record sends a series' last logged interval again (pair merging may
 * have added to it since), so the log holds the series as they were at
 * the checkpoint, counters included.  A record is appended whole or, after
 * a crash, is the file's torn tail: the reader drops with a warning a last
 * record that is cut short, all zeros or fails its payload's CRC, and
 * refuses a log with a bad record before its end (its header's own CRC
 * tells a wrong length from a record cut short).  ("Journal"
 * in rtsoak is the --set tweak journal, tweak.c: another file.) */
#ifndef RTSOAK_SERIESLOG_H
#define RTSOAK_SERIESLOG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "report.h"

#define SERIESLOG_MAGIC "RTSOAKS1"
#define SERIESLOG_HEADER 16		 /* magic + id */
#define SERIESLOG_RECORD_HEAD 12	 /* length, its CRC, the payload's CRC */
#define SERIESLOG_SUFFIX ".series"	 /* <report>.series */
#define SERIESLOG_RECORD_MAX (1u << 30)	 /* a longer record is corrupt */
#define SERIESLOG_FILE_MAX (64ull << 30) /* the reader's limit */

struct serieslog_mark {
	size_t n, nspikes;    /* in the series log so far */
	uint64_t interval_ns; /* as in the series log: a change means a reset */
	size_t nquant;	      /* the same for the quantiles */
	uint64_t quant_interval_ns;
};

struct serieslog {
	int fd; /* -1: not open */
	char path[PATH_MAX];
	uint64_t id;
	uint64_t bytes; /* the file's length: the header and whole records */
	/* What the appends cost the disk: each dirties whole pages (a 1 KiB
	 * append and its fdatasync write a 4 KiB block), so the pages each
	 * append touched, summed.  The budget counts this, not bytes. */
	uint64_t disk_bytes;
	/* A lower bound of the bytes the logged series take in a JSON report
	 * (their digits and separators): the summary budget's yardstick. */
	uint64_t series_json;
	struct serieslog_mark *mark;
	size_t nseries;
};

void serieslog_init(struct serieslog *j);
/* "<report>.series" (gen even) or "<report>.series.1" (gen odd: the log
 * that replaces a broken one keeps the old one readable until the summary
 * names the new one) into out; -ENAMETOOLONG if it does not fit. */
int serieslog_path(const char *report, unsigned gen, char *out, size_t len);
/* Create a new series log for report with nseries series: a temporary file
 * renamed over <report>.series (never into what is there; -EEXIST when that
 * is not a regular file), its header fsync'd.  0 or -errno. */
int serieslog_open(struct serieslog *j, const char *report, unsigned gen, size_t nseries);
/* Append one checkpoint of r's series (nseries of them, in the order
 * serieslog_open was given) at run time t_ns, then fdatasync.  On failure the
 * file is cut back to its last whole record and -errno is returned (the
 * marks unmoved: the next append sends the same data again); when it
 * cannot be cut back, *broken is set and the log must not be appended to
 * again (the caller opens another generation). */
int serieslog_append(struct serieslog *j, const struct report *r, uint64_t t_ns, bool *broken);
/* The summary's "series_log" member; NULL on ENOMEM. */
json_t *serieslog_ref(const struct serieslog *j, uint64_t summary_at_ns);
/* Close; remove: unlink the file (the final report is written). */
void serieslog_close(struct serieslog *j, bool remove);

/* The reader's side: give r's series (read from a summary, with no
 * columns of their own) the logged intervals, spikes and counters.
 * report_path is the summary's path (the series log is named relative to its
 * directory), ref its "series_log" member.  0, -EINVAL (err says what is
 * wrong, in one line) or -ENOMEM. */
int serieslog_merge(struct report *r, const char *report_path, const json_t *ref, char *err,
		    size_t errlen);

#endif
