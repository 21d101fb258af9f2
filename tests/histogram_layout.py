# SPDX-License-Identifier: GPL-2.0-or-later
"""histogram_layout: rtsoak's log-linear histogram (src/histogram.h) for the
test scripts, one copy: exact below 128 ns, then 128 sub-buckets per octave,
one overflow bucket from 2^36 ns."""

SUB_BITS, TOP_BITS = 7, 36
SUB = 1 << SUB_BITS
OVERFLOW = SUB + (TOP_BITS - SUB_BITS) * SUB


def index(v):
    """histogram_index() of src/histogram.h."""
    if v < SUB:
        return v
    if v >= 1 << TOP_BITS:
        return OVERFLOW
    m = v.bit_length() - 1
    shift = m - SUB_BITS
    return SUB + shift * SUB + ((v >> shift) & (SUB - 1))


def lower(i):
    """histogram_lower(): the inclusive lower bound of bucket i."""
    if i < SUB:
        return i
    if i >= OVERFLOW:
        return 1 << TOP_BITS
    shift, sub = divmod(i - SUB, SUB)
    return (SUB + sub) << shift


def upper(i, maxv=None):
    """The exclusive upper bound; the overflow bucket is closed by max + 1,
    as the JSON writer does."""
    if i >= OVERFLOW and maxv is not None:
        return maxv + 1
    return lower(i + 1)
