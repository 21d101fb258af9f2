// SPDX-License-Identifier: GPL-2.0-or-later
/* exit: the one error printer (exit.h). */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "exit.h"
#include "util.h"

void rtsoak_error(const char *fmt, ...)
{
	char fixed[1024], *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) { /* out of memory: the message cut rather than lost */
		msg = NULL;
		va_start(ap, fmt);
		vsnprintf(fixed, sizeof(fixed), fmt, ap);
		va_end(ap);
	}
	/* The message is one line whatever its arguments hold: a file's
	 * name or a string read from a file (a schema, a key) may carry a
	 * newline or an escape sequence that sets the terminal's title or
	 * clears its screen.  Every control character goes out escaped
	 * (util_escape's rule), so no caller has to remember it. */
	fputs("rtsoak: ", stderr);
	util_fputs_escaped(msg ? msg : fixed, stderr);
	fputc('\n', stderr);
	free(msg);
}
