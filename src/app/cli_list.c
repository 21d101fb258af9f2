// SPDX-License-Identifier: GPL-2.0-or-later
/* cli_list: `rtsoak loads` and `rtsoak probes`, each entry of the load and
 * probe registries with whether it can run here and its options; and the
 * same names for the shell completion (`rtsoak __complete-spec`), so that a
 * new load or probe completes without touching the script. */
#include <config.h>

#include <stdio.h>

#include "cli.h"

void cli_list_probes(FILE *out)
{
	for (unsigned i = 0; probe_registry[i]; i++) {
		const struct probe_ops *ops = probe_registry[i];
		const char *why = ops->unavailable ? ops->unavailable() : NULL;
		fprintf(out, "%s: %s\n", ops->name, ops->summary);
		fprintf(out, "  can run here: %s%s\n", why ? "no: " : "yes", why ? why : "");
		opt_list(out, ops->options);
		for (const struct probe_alias *a = ops->aliases; a && a->flag; a++)
			fprintf(out, "  --%s V: the same as %s:%s=V\n", a->flag, ops->name,
				a->option);
	}
}

void cli_list_loads(FILE *out)
{
	for (unsigned i = 0; load_registry[i]; i++) {
		const struct load_ops *ops = load_registry[i];
		const char *why = ops->unavailable ? ops->unavailable() : NULL;
		fprintf(out, "%s: %s\n", ops->name, ops->summary);
		fprintf(out, "  can run here: %s%s\n", why ? "no: " : "yes", why ? why : "");
		opt_list(out, ops->options);
		char nice[8];
		snprintf(nice, sizeof(nice), "%d", ops->default_nice);
		opt_list_line(out, "nice", "int", nice, "-20..19", "nice value of the workers");
		opt_list_line(out, "cpus", "cpus", "--load-cpus", "", "CPUs this load runs on");
	}
}

void cli_list_complete(FILE *out)
{
	for (unsigned i = 0; load_registry[i]; i++) {
		const struct load_ops *ops = load_registry[i];
		fprintf(out, "load %s\n", ops->name);
		for (const struct opt *o = ops->options; o && o->name; o++)
			fprintf(out, "loadopt %s %s\n", ops->name, o->name);
		/* Every load's common options (cli_list_loads). */
		fprintf(out, "loadopt %s nice\nloadopt %s cpus\n", ops->name, ops->name);
	}
	for (unsigned i = 0; probe_registry[i]; i++) {
		const struct probe_ops *ops = probe_registry[i];
		fprintf(out, "probe %s\n", ops->name);
		for (const struct opt *o = ops->options; o && o->name; o++)
			fprintf(out, "probeopt %s %s\n", ops->name, o->name);
	}
}
