/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exit: rtsoak's exit codes (rtsoak(1), EXIT STATUS) and the one printer of
 * a bad-input or environment error, for every layer: a command, the
 * reflector and `rtsoak restore` end with the same codes and the same
 * "rtsoak: ..." line. */
#ifndef RTSOAK_EXIT_H
#define RTSOAK_EXIT_H

enum {
	EXIT_OK = 0,
	EXIT_LIMIT = 1, /* the run worked but a declared limit failed */
	EXIT_USAGE = 2, /* bad command line or input file */
	EXIT_ENV = 3,	/* the machine cannot do it: privileges, kernel features */
};

/* One line on stderr: "rtsoak: " fmt "\n", every control character of the
 * message escaped (util_escape): a name or a string from a file cannot act
 * on the terminal nor make a second line. */
void rtsoak_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
