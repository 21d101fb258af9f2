/* SPDX-License-Identifier: GPL-2.0-or-later */
/* series_store: one series' intervals, compactly, for a whole day and more.
 *
 * A 256-CPU run with the timer and net probes keeps 512 series; a day of
 * one-second intervals is 44 million of them.  As 24-byte structs that is
 * 1 GB; issue 20 gives the whole run 256 MiB.  So the intervals are kept
 * encoded, ~3 bytes each for a typical interval, losslessly:
 *
 *   varint((max_ns << 1) | extra)         max_ns < 2^63 (the report's limit)
 *   if extra: a tag byte, then per bit set in it a varint:
 *     SERIES_TAG_COUNT   zigzag(count - the previous interval's count)
 *     SERIES_TAG_SPIKES  spikes
 *     SERIES_TAG_MISSED  missed
 *
 * so an interval with the same count as the one before and no spike or
 * missed deadline is its maximum alone (3 bytes for 16 us .. 1 ms).  The
 * bytes go into blocks that double from SERIES_BLOCK_MIN to
 * SERIES_BLOCK_MAX bytes (a short series wastes little, a long one is a
 * list of 4 KiB blocks, never one big realloc); each block starts a new
 * count delta, so any block decodes on its own and series_store_get() is
 * a binary search plus one block's decoding.
 *
 * The last interval stays unencoded (`tail`): series.c merges into it while
 * the run is coarser than its base interval, and the encoded part is
 * append-only.  One writer (the housekeeping thread); readers run on the
 * same thread or after it stopped. */
#ifndef RTSOAK_SERIES_STORE_H
#define RTSOAK_SERIES_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct series_interval {
	uint64_t max_ns; /* 0 when count is 0 */
	uint32_t count, spikes, missed;
};

#define SERIES_BLOCK_MIN 64
#define SERIES_BLOCK_MAX 4096
#define SERIES_MAX_NS_LIMIT ((uint64_t)INT64_MAX) /* max_ns above it is clamped */

struct series_block {
	uint64_t first;	     /* index of its first interval */
	uint32_t n;	     /* intervals in it */
	uint32_t used, size; /* bytes of data[] used / allocated */
	unsigned char data[];
};

struct series_store {
	struct series_block **blk;
	size_t nblk;
	size_t n;		     /* intervals, the tail included */
	struct series_interval tail; /* interval n - 1 when n > 0 */
	uint32_t last_count;	     /* the count delta's base in the last block */
};

/* The encoding of one interval, for the checkpoint journal too (journal.c):
 * v after an interval whose count was *count (0 at the start of a block or
 * a record), at most SERIES_ENC_MAX bytes into p; *count becomes v's.
 * decode_checked reads one from p[0..avail) and returns its length, or 0
 * when the bytes are not one (cut short, a varint too long, a value out of
 * range): a file's bytes are not trusted. */
#define SERIES_ENC_MAX 26 /* a 10-byte varint, the tag, three 5-byte varints */
size_t series_store_encode(unsigned char *p, uint32_t *count, const struct series_interval *v);
size_t series_store_decode_checked(const unsigned char *p, size_t avail, uint32_t *count,
				   struct series_interval *v);

/* Append one interval after the last.  0 or -ENOMEM (then unchanged). */
int series_store_append(struct series_store *st, const struct series_interval *v);
/* The last interval, to merge into (n > 0). */
static inline struct series_interval *series_store_last(struct series_store *st)
{
	return &st->tail;
}
/* Interval i (< n) into *out. */
void series_store_get(const struct series_store *st, size_t i, struct series_interval *out);
/* All n intervals as one malloc'ed array (NULL on ENOMEM; n == 0 gives a
 * 1-element array): for a view that needs them at random, one series at a
 * time. */
struct series_interval *series_store_decode(const struct series_store *st);
/* Bytes allocated for the encoded intervals (blocks and their index). */
size_t series_store_bytes(const struct series_store *st);
void series_store_free(struct series_store *st);

/* Sequential reading from interval `from`: next() gives each interval in
 * turn and returns false past the last. */
struct series_cursor {
	const struct series_store *st;
	size_t i, b;	/* next interval; its block */
	uint32_t off;	/* its byte offset in the block */
	uint32_t count; /* the previous interval's count (delta base) */
};
void series_cursor_init(struct series_cursor *c, const struct series_store *st, size_t from);
bool series_cursor_next(struct series_cursor *c, struct series_interval *out);

#endif
