/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse: command-line values (durations with units, bounded integers).
 * Every parser returns 0 or -EINVAL/-ERANGE with a reason in err that
 * names the accepted form, for a one-line error message. */
#ifndef RTSOAK_PARSE_H
#define RTSOAK_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* A positive duration: a decimal number (fractions allowed, "1.5ms") and a
 * unit among ns, us, ms, s, m, h, d.  A bare number is in `bare_unit_ns`.
 * Zero, negative, malformed and overflowing values are rejected. */
int parse_duration(const char *s, uint64_t bare_unit_ns, uint64_t *out_ns, char *err,
		   size_t errlen);

/* An unsigned integer in [min, max]. */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err, size_t errlen);

#endif
