/* SPDX-License-Identifier: GPL-2.0-or-later */
/* attribution: the report's "attribution" section as the views read it.
 *
 * `rtsoak run --trace` explains every logged spike from the kernel's events
 * (src/trace/) and the run stores the result as JSON in r->attribution
 * (docs/report-schema.json): per (probe, CPU, phase) the causes table, the
 * cause of every attributed spike ([t_ns, index into causes]) and the
 * worst spikes in detail.  The model and the views never include src/trace/:
 * they read the JSON, so `rtsoak report` of an old file shows the same.
 * reports/json_read.c checks the section before anything here reads it
 * (types, ranges, indices), so these lookups trust its shape. */
#ifndef RTSOAK_ATTRIBUTION_H
#define RTSOAK_ATTRIBUTION_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "report.h"

/* A cause whose share of the excess latency moved by more than this many
 * percentage points between two runs is a shift compare reports. */
#define ATTRIBUTION_SHIFT_POINTS 5.0

/* Give r the attribution section a (a reference is taken; NULL: none) and
 * index its series entries by (probe, cpu, phase), so that the views' and
 * compare's lookups stay O(1) for files with many.  -EEXIST when two
 * entries share a key (entry index in *dup), -ENOMEM. */
int attribution_set(struct report *r, json_t *a, size_t *dup) __attribute__((warn_unused_result));

/* The series entry of (probe, cpu, phase), or NULL. */
json_t *attribution_series(const struct report *r, const char *probe, int cpu, const char *phase);

/* A cause key for people: "task:rtsoak-spike/0 (FIFO 99)" -> "rtsoak-spike/0
 * (FIFO 99)", "softirq:NET_RX" -> "softirq NET_RX", "idle:1" -> "idle 1",
 * anything else as it is.  Not escaped (the caller escapes for its
 * medium).  Returns buf. */
const char *attribution_label(const char *cause, char *buf, size_t len);

/* The kind of a cause key ("task", "softirq", ...: the part before ':',
 * or the whole key, "silent"), into buf. */
const char *attribution_kind(const char *cause, char *buf, size_t len);

/* The spike causes of a series entry sorted by t_ns, for attribution_cause_at();
 * n in *n.  NULL (out of memory or none): *n is 0. */
struct attribution_spike {
	uint64_t t_ns;
	size_t cause;
};
struct attribution_spike *attribution_spikes(json_t *series, size_t *n);
/* The index into causes of the spike at t_ns, or -1 when it was not
 * attributed. */
long attribution_cause_at(const struct attribution_spike *v, size_t n, uint64_t t_ns);

#endif
