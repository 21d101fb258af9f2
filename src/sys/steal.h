/* SPDX-License-Identifier: GPL-2.0-or-later */
/* steal: the hypervisor's steal time of each CPU (/proc/stat), for the
 * attribution of a silent gap: time the vCPU was runnable and its host ran
 * something else.  The kernel keeps it in ns but /proc/stat shows it in
 * USER_HZ ticks (10 ms here), so a reading is that coarse. */
#ifndef RTSOAK_STEAL_H
#define RTSOAK_STEAL_H

#include <stdint.h>

/* ns[cpu] = the steal time of each CPU below ncpu in ns (0 for a CPU
 * /proc/stat does not list).  0, or -errno when /proc/stat cannot be read
 * or has no steal column. */
int steal_read(uint64_t *ns, unsigned ncpu) __attribute__((warn_unused_result));

#endif
