/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reflect: `rtsoak reflect`, the UDP echo end of the net probe's round-trip
 * mode (`--probes net:target=HOST[:PORT]`). */
#ifndef RTSOAK_REFLECT_H
#define RTSOAK_REFLECT_H

#include "cmdopt.h"

/* argv[0] is "reflect".  Runs until SIGINT or SIGTERM; returns the exit
 * code (0, 2 for bad input, 3 when the machine cannot do it). */
int reflect_main(int argc, char **argv);
/* Its option table (cmdopt.h): parsing, --help and completion. */
extern const struct cmdopt reflect_cmdopts[];

#endif
