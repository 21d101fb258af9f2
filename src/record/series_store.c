// SPDX-License-Identifier: GPL-2.0-or-later
/* series_store: the compact interval encoding (see series_store.h). */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "series_store.h"
#include "util.h"

enum { SERIES_TAG_COUNT = 1, SERIES_TAG_SPIKES = 2, SERIES_TAG_MISSED = 4 };

static size_t put_varint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

static size_t get_varint(const unsigned char *p, uint64_t *v)
{
	uint64_t x = 0;
	size_t n = 0;
	unsigned shift = 0;

	do {
		x |= (uint64_t)(p[n] & 0x7f) << shift;
		shift += 7;
	} while (p[n++] & 0x80);
	*v = x;
	return n;
}

size_t series_store_encode(unsigned char *p, uint32_t *count, const struct series_interval *v)
{
	uint64_t max = v->max_ns > SERIES_MAX_NS_LIMIT ? SERIES_MAX_NS_LIMIT : v->max_ns;
	unsigned tag = (v->count != *count ? SERIES_TAG_COUNT : 0) |
		       (v->spikes ? SERIES_TAG_SPIKES : 0) | (v->missed ? SERIES_TAG_MISSED : 0);
	size_t n = put_varint(p, max << 1 | (tag != 0));

	if (tag) {
		p[n++] = (unsigned char)tag;
		if (tag & SERIES_TAG_COUNT) {
			int64_t d = (int64_t)v->count - (int64_t)*count;
			n += put_varint(p + n, (uint64_t)d << 1 ^ (uint64_t)(d >> 63));
		}
		if (tag & SERIES_TAG_SPIKES)
			n += put_varint(p + n, v->spikes);
		if (tag & SERIES_TAG_MISSED)
			n += put_varint(p + n, v->missed);
	}
	*count = v->count;
	return n;
}

static size_t decode(const unsigned char *p, uint32_t *count, struct series_interval *v)
{
	uint64_t x, d;
	size_t n = get_varint(p, &x);

	v->max_ns = x >> 1;
	v->spikes = v->missed = 0;
	if (x & 1) {
		unsigned tag = p[n++];
		if (tag & SERIES_TAG_COUNT) {
			n += get_varint(p + n, &d);
			*count = (uint32_t)((int64_t)*count + (int64_t)(d >> 1 ^ -(d & 1)));
		}
		if (tag & SERIES_TAG_SPIKES) {
			n += get_varint(p + n, &d);
			v->spikes = (uint32_t)d;
		}
		if (tag & SERIES_TAG_MISSED) {
			n += get_varint(p + n, &d);
			v->missed = (uint32_t)d;
		}
	}
	v->count = *count;
	return n;
}

/* A varint within p[0..avail) of at most `bits` bits: its length, 0 if not. */
static size_t get_varint_checked(const unsigned char *p, size_t avail, unsigned bits, uint64_t *v)
{
	uint64_t x = 0;
	size_t n = 0;

	for (unsigned shift = 0; n < avail && shift < 64; shift += 7) {
		uint64_t b = p[n] & 0x7f;
		if (shift && b >> (64 - shift))
			return 0; /* beyond 64 bits */
		x |= b << shift;
		if (!(p[n++] & 0x80))
			return bits < 64 && x >> bits ? 0 : (*v = x, n);
	}
	return 0;
}

size_t series_store_decode_checked(const unsigned char *p, size_t avail, uint32_t *count,
				   struct series_interval *v)
{
	uint64_t x, d;
	size_t n = get_varint_checked(p, avail, 64, &x), k;

	if (!n)
		return 0;
	v->max_ns = x >> 1;
	v->spikes = v->missed = 0;
	if (x & 1) {
		unsigned tag = n < avail ? p[n++] : 0;
		if (!tag || tag > 7)
			return 0; /* the flag promises something */
		if (tag & SERIES_TAG_COUNT) {
			if (!(k = get_varint_checked(p + n, avail - n, 33, &d)))
				return 0;
			n += k;
			int64_t c = (int64_t)*count + (int64_t)(d >> 1 ^ -(d & 1));
			if (c < 0 || c > UINT32_MAX)
				return 0;
			*count = (uint32_t)c;
		}
		if (tag & SERIES_TAG_SPIKES) {
			if (!(k = get_varint_checked(p + n, avail - n, 32, &d)))
				return 0;
			n += k;
			v->spikes = (uint32_t)d;
		}
		if (tag & SERIES_TAG_MISSED) {
			if (!(k = get_varint_checked(p + n, avail - n, 32, &d)))
				return 0;
			n += k;
			v->missed = (uint32_t)d;
		}
	}
	v->count = *count;
	return n;
}

/* Encode the tail into the last block, opening a new one when it does not
 * fit.  0 or -ENOMEM with nothing changed. */
static int seal_tail(struct series_store *st)
{
	unsigned char buf[SERIES_ENC_MAX];
	struct series_block *b = st->nblk ? st->blk[st->nblk - 1] : NULL;
	uint32_t count = b ? st->last_count : 0;
	size_t len = series_store_encode(buf, &count, &st->tail);

	if (!b || b->size - b->used < len) {
		uint32_t size = b ? b->size * 2 : SERIES_BLOCK_MIN;
		if (size > SERIES_BLOCK_MAX)
			size = SERIES_BLOCK_MAX;
		struct series_block *nb = malloc(sizeof(*nb) + size);
		if (!nb || util_grow(&st->blk, st->nblk, sizeof(*st->blk))) {
			free(nb);
			return -ENOMEM;
		}
		*nb = (struct series_block){ .first = st->n - 1, .size = size };
		st->blk[st->nblk++] = b = nb;
		count = 0; /* each block decodes on its own */
		len = series_store_encode(buf, &count, &st->tail);
	}
	memcpy(b->data + b->used, buf, len);
	b->used += (uint32_t)len;
	b->n++;
	st->last_count = count;
	return 0;
}

int series_store_append(struct series_store *st, const struct series_interval *v)
{
	int rc;

	if (st->n && (rc = seal_tail(st)))
		return rc;
	st->tail = *v;
	st->n++;
	return 0;
}

/* The block that holds encoded interval i (< n - 1). */
static size_t block_of(const struct series_store *st, size_t i)
{
	size_t lo = 0, hi = st->nblk;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (st->blk[mid]->first <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void series_cursor_init(struct series_cursor *c, const struct series_store *st, size_t from)
{
	struct series_interval skip;

	*c = (struct series_cursor){ .st = st, .i = from };
	if (!st->n || from + 1 >= st->n)
		return; /* at the tail or past the end */
	c->b = block_of(st, from);
	for (size_t k = st->blk[c->b]->first; k < from; k++)
		c->off += (uint32_t)decode(st->blk[c->b]->data + c->off, &c->count, &skip);
}

bool series_cursor_next(struct series_cursor *c, struct series_interval *out)
{
	const struct series_store *st = c->st;

	if (c->i >= st->n)
		return false;
	if (c->i + 1 == st->n) {
		*out = st->tail;
	} else {
		const struct series_block *b = st->blk[c->b];
		if (c->i - b->first == b->n) { /* the next block */
			b = st->blk[++c->b];
			c->off = 0;
			c->count = 0;
		}
		c->off += (uint32_t)decode(b->data + c->off, &c->count, out);
	}
	c->i++;
	return true;
}

void series_store_get(const struct series_store *st, size_t i, struct series_interval *out)
{
	struct series_cursor c;

	series_cursor_init(&c, st, i);
	if (!series_cursor_next(&c, out))
		*out = (struct series_interval){ 0 };
}

struct series_interval *series_store_decode(const struct series_store *st)
{
	/* calloc: the padding of each struct is zero, as in a copy of one. */
	struct series_interval *v = calloc(st->n ? st->n : 1, sizeof(*v));
	struct series_cursor c;

	if (!v)
		return NULL;
	series_cursor_init(&c, st, 0);
	for (size_t i = 0; series_cursor_next(&c, &v[i]); i++)
		;
	return v;
}

size_t series_store_bytes(const struct series_store *st)
{
	size_t bytes = st->nblk * sizeof(*st->blk);

	for (size_t i = 0; i < st->nblk; i++)
		bytes += sizeof(*st->blk[i]) + st->blk[i]->size;
	return bytes;
}

void series_store_free(struct series_store *st)
{
	for (size_t i = 0; i < st->nblk; i++)
		free(st->blk[i]);
	free(st->blk);
	memset(st, 0, sizeof(*st));
}
