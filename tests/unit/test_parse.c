// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for durations and bounded integers. */
#include <config.h>

#include <errno.h>

#include "parse.h"
#include "tap.h"

static int dur(const char *s, uint64_t bare, uint64_t want)
{
	uint64_t v = 0;
	char err[160];

	return parse_duration(s, bare, &v, err, sizeof(err)) == 0 && v == want;
}

static int dur_bad(const char *s)
{
	uint64_t v;
	char err[160] = "";

	return parse_duration(s, 1000, &v, err, sizeof(err)) < 0 && err[0];
}

int main(void)
{
	uint64_t v;
	char err[160];

	tap_plan(16);
	ok(dur("1ms", 1, 1000000), "parse_duration_ms");
	ok(dur("250us", 1, 250000), "parse_duration_us");
	ok(dur("100ns", 1, 100), "parse_duration_ns");
	ok(dur("2s", 1, 2000000000ull) && dur("5m", 1, 300000000000ull) &&
	       dur("24h", 1, 86400000000000ull) && dur("1d", 1, 86400000000000ull),
	   "parse_duration_s_m_h_d");
	ok(dur("1.5ms", 1, 1500000), "parse_duration_fraction");
	ok(dur("1000", 1000, 1000000), "parse_duration_bare_number_uses_default_unit");
	ok(dur_bad("0") && dur_bad("0ms"), "parse_duration_rejects_zero");
	ok(dur_bad("-1ms"), "parse_duration_rejects_negative");
	ok(dur_bad("ms") && dur_bad("1 ms") && dur_bad("1x") && dur_bad(""),
	   "parse_duration_rejects_malformed");
	ok(dur_bad("99999999999999999999s") && dur_bad("200000d"),
	   "parse_duration_rejects_overflow");
	ok(dur_bad("0.0000001ns"), "parse_duration_rejects_rounding_to_zero");
	ok(parse_u64("95", 1, 99, &v, err, sizeof(err)) == 0 && v == 95, "parse_u64_in_range");
	ok(parse_u64("0", 1, 99, &v, err, sizeof(err)) == -ERANGE, "parse_u64_below_min");
	ok(parse_u64("100", 1, 99, &v, err, sizeof(err)) == -ERANGE, "parse_u64_above_max");
	ok(parse_u64("9x", 1, 99, &v, err, sizeof(err)) == -EINVAL &&
	       parse_u64("-5", 1, 99, &v, err, sizeof(err)) == -EINVAL,
	   "parse_u64_rejects_junk_and_sign");
	ok(parse_u64("99999999999999999999999", 0, UINT64_MAX, &v, err, sizeof(err)) == -ERANGE,
	   "parse_u64_rejects_overflow");
	return tap_done();
}
