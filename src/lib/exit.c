// SPDX-License-Identifier: GPL-2.0-or-later
/* exit: the one error printer (exit.h). */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>

#include "exit.h"

void rtsoak_error(const char *fmt, ...)
{
	va_list ap;

	fputs("rtsoak: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
