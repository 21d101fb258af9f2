// SPDX-License-Identifier: GPL-2.0-or-later
/* registry: the one table of loads.  Adding a load touches its own file,
 * one line here and one line in Makefile.am. */
#include <string.h>

#include "load.h"

extern const struct load_ops load_cpu_ops, load_disk_ops, load_slab_ops, load_msg_ops,
    load_spike_ops, load_exec_ops;

const struct load_ops *const load_registry[] = {
	&load_cpu_ops,	 &load_disk_ops, &load_slab_ops, &load_msg_ops,
	&load_spike_ops, &load_exec_ops, NULL,
};

const struct load_ops *load_registry_find(const char *name)
{
	for (size_t i = 0; load_registry[i]; i++)
		if (strcmp(load_registry[i]->name, name) == 0)
			return load_registry[i];
	return NULL;
}
