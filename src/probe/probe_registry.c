/* probe_registry: the one table of probe families.  Adding a probe is one
 * line here and one in Makefile.am. */
#include <string.h>

#include "probe.h"
#include "probe_net.h"

const struct probe_ops *const probe_registry[] = {
	&probe_timer_ops,
	&probe_net_ops,
	&probe_icmp_ops,
	NULL,
};

const struct probe_ops *probe_registry_find(const char *name)
{
	for (unsigned i = 0; probe_registry[i]; i++)
		if (strcmp(probe_registry[i]->name, name) == 0)
			return probe_registry[i];
	return NULL;
}

unsigned probe_config_result_count(const struct probe_config *pc)
{
	unsigned n = 0;

	while (pc->results[n])
		n++;
	return n;
}
