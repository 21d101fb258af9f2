/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmdopt: one table per subcommand declares its options (name, short
 * letter, value, metavariable, help line, what completes the value).  The
 * same table builds the getopt_long arrays that parse the command line,
 * prints the option lines of its --help, suggests the nearest option for a
 * typo and prints the completion data (`rtsoak __complete-spec`, turned
 * into rtsoak.bash at build time), so parsing, help and completion cannot
 * drift apart.  Knows nothing of rtsoak: the caller adds the load and
 * probe names. */
#ifndef RTSOAK_CMDOPT_H
#define RTSOAK_CMDOPT_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* What the shell completes for an option's value (or a positional). */
enum cmdopt_complete {
	CMDOPT_NONE,	/* free text: nothing offered */
	CMDOPT_FILE,	/* a path */
	CMDOPT_DIR,	/* a directory */
	CMDOPT_CPUS,	/* a CPU list: nothing offered (any list) */
	CMDOPT_LOADS,	/* load specs: names, then each load's name=value options */
	CMDOPT_PROBES,	/* probe specs: names, then each probe's options */
	CMDOPT_WORDS,	/* one of .words */
	CMDOPT_COMMAND, /* a subcommand name (rtsoak help CMD) */
};

struct cmdopt {
	const char *name;    /* long name without "--"; NULL ends the table */
	char letter;	     /* short option, or 0 */
	int val;	     /* what getopt_long returns: letter, or a value >= 256 */
	const char *metavar; /* NULL: the option takes no value */
	/* One line per '\n'; continuation lines are indented under the first. */
	const char *help;
	enum cmdopt_complete complete;
	const char *words; /* CMDOPT_WORDS: the choices, space-separated */
};

/* Fill `longs` (room for every entry and the terminator) and `shorts`
 * (":" first, so that a missing value is reported as ':'), from a table.
 * -ENOSPC when either is too small (a bug), else 0. */
int cmdopt_getopt(const struct cmdopt *opts, struct option *longs, size_t nlongs, char *shorts,
		  size_t nshorts) __attribute__((warn_unused_result));
/* The number of entries before the terminator. */
size_t cmdopt_count(const struct cmdopt *opts);
/* The entry getopt_long returned `val` for, or NULL. */
const struct cmdopt *cmdopt_by_val(const struct cmdopt *opts, int val);
/* The option lines of a --help: "  -c, --cpus LIST        help". */
void cmdopt_usage(FILE *out, const struct cmdopt *opts);
/* For an unknown option `arg` ("--duraton", "--duraton=5s", "-x"): the
 * nearest long name ("duration") when it is a near miss (a few letters
 * typed wrong, or a unique prefix of a longer name), else NULL. */
const char *cmdopt_suggest(const struct cmdopt *opts, const char *arg);
/* The same for a word among `names` (NULL-terminated): commands. */
const char *cmdopt_suggest_word(const char *const *names, const char *word);
/* "did you mean --duration?" for arg, or "" when nothing is near:
 * written to buf (the hint in an unknown option's one-line error). */
const char *cmdopt_hint(const struct cmdopt *opts, const char *arg, char *buf, size_t len);
/* The completion data of one command, one line per option:
 * "opt CMD --NAME VALUE-KIND [WORDS...]" and "opt CMD -L ..." for a short
 * letter; VALUE-KIND is "-" for a flag. */
void cmdopt_spec(FILE *out, const char *cmd, const struct cmdopt *opts);
/* The name of a completion kind in that data ("file", "loads", ...). */
const char *cmdopt_complete_name(enum cmdopt_complete c);

#endif
