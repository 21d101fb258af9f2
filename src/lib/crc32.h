/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crc32: CRC-32 (IEEE 802.3, as zlib's crc32() and `gzip` compute it), for
 * the checkpoint journal's records: a torn or corrupted record must be told
 * from a whole one, and zlib is optional in this build. */
#ifndef RTSOAK_CRC32_H
#define RTSOAK_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* crc32_update(0, p, n) is the CRC of p[0..n); feeding the data in pieces,
 * each call given the previous result, gives the same. */
uint32_t crc32_update(uint32_t crc, const void *p, size_t n);

#endif
