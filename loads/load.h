/* load: the plug-in interface for load generators (CPU, disk, slab churn,
 * messaging, periodic interference, external commands).
 *
 * A load is one `struct load_ops` in loads/registry.c's table.  This is the
 * seam the loads issue fills: the table is empty until then, and a run
 * measures the system as it is. */
#ifndef RTSOAK_LOAD_H
#define RTSOAK_LOAD_H

#include <stddef.h>

struct load_ops {
	const char *name;
	const char *summary;
	/* Non-NULL when this load cannot run on this machine: why not. */
	const char *unavailable;
};

/* NULL-terminated. */
extern const struct load_ops *const load_registry[];
const struct load_ops *load_registry_find(const char *name);

#endif
