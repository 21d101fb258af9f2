/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_internal: what the files of `rtsoak run`'s command line share.
 * cli.c parses the options (getopt loop, one handler per option group) into
 * struct run_config and notes here what the checks after it need to know;
 * cli_check.c checks and completes the whole configuration once every option
 * is known.  cli_echo.c (the report's config object) and cli_list.c (`rtsoak
 * loads`, `rtsoak probes`) need only cli.h.  Nothing outside cli*.c includes
 * it. */
#ifndef RTSOAK_CLI_INTERNAL_H
#define RTSOAK_CLI_INTERNAL_H

#include <stdbool.h>

#include "cli.h"
#include "load.h"

/* One parse of a command line: the options seen, and the --loads specs
 * split off them (parsed by the checks, after --load-cpus and --workdir
 * wherever they stand; the caller frees them on every way out). */
struct cli_parse {
	struct run_config *cfg;
	int argc;
	char **argv;
	bool duration_given;
	bool cpus_given;
	bool load_cpus_given;
	bool workdir_given;
	bool phase_given;
	bool checkpoint_given;
	bool prom_window_given, run_name_given;
	bool warmup_given;
	bool settle_given;
	bool on_spike_interval_given;
	const char *settle_arg; /* --settle as given, for the message */
	char *specs[LOAD_MAX_INSTANCES];
	unsigned nspecs;
};

/* cli_check.c: after the getopt loop, in this order: options that would
 * change nothing, ab's rules, the defaults that depend on other options
 * (duration, CPUs), the workdir and the loads, the probes, the outputs, the
 * locks and the series interval.  Returns -1 to go on, or the exit code
 * after a one-line error. */
int cli_check_config(struct cli_parse *p) __attribute__((warn_unused_result));

#endif
