/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe_net: UDP wake-up latency on loopback, or round trip to an
 * `rtsoak reflect` (--probes net:target=HOST[:PORT]).  See probe_net.c. */
#ifndef RTSOAK_PROBE_NET_H
#define RTSOAK_PROBE_NET_H

#include "probe.h"

extern const struct probe_ops probe_net_ops;

#endif
