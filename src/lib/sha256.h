/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sha256: FIPS 180-4 SHA-256 of a buffer, for identifiers the report must
 * not disclose (the machine id: a report names the machine by a hash of it,
 * as systemd asks applications to). */
#ifndef RTSOAK_SHA256_H
#define RTSOAK_SHA256_H

#include <stddef.h>
#include <stdint.h>

void sha256(const void *data, size_t len, uint8_t out[32]);

#endif
