/* SPDX-License-Identifier: GPL-2.0-or-later */
/* session: one `rtsoak run` from validated options to a written report. */
#ifndef RTSOAK_SESSION_H
#define RTSOAK_SESSION_H

#include "cli.h"

/* Run the measurement and write the report.  Returns an exit code. */
int session_run(struct run_config *cfg);

#endif
