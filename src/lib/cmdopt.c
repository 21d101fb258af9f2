// SPDX-License-Identifier: GPL-2.0-or-later
/* cmdopt: a subcommand's option table as getopt_long arrays, --help lines,
 * near-miss suggestions and completion data (cmdopt.h says why one table
 * drives all four). */
#include <config.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "cmdopt.h"

/* Help text starts in this column; a longer option name pushes it right. */
#define HELP_COLUMN 25

size_t cmdopt_count(const struct cmdopt *opts)
{
	size_t n = 0;

	while (opts && opts[n].name)
		n++;
	return n;
}

int cmdopt_getopt(const struct cmdopt *opts, struct option *longs, size_t nlongs, char *shorts,
		  size_t nshorts)
{
	size_t n = cmdopt_count(opts), s = 0;

	if (nlongs < n + 1 || nshorts < 2)
		return -ENOSPC;
	shorts[s++] = ':';
	for (size_t i = 0; i < n; i++) {
		const struct cmdopt *o = &opts[i];
		longs[i] = (struct option){ o->name, o->metavar ? required_argument : no_argument,
					    NULL, o->val };
		if (!o->letter)
			continue;
		if (s + 3 > nshorts)
			return -ENOSPC;
		shorts[s++] = o->letter;
		if (o->metavar)
			shorts[s++] = ':';
	}
	longs[n] = (struct option){ NULL, 0, NULL, 0 };
	shorts[s] = '\0';
	return 0;
}

const struct cmdopt *cmdopt_by_val(const struct cmdopt *opts, int val)
{
	for (size_t i = 0; opts && opts[i].name; i++)
		if (opts[i].val == val)
			return &opts[i];
	return NULL;
}

void cmdopt_usage(FILE *out, const struct cmdopt *opts)
{
	for (size_t i = 0; opts && opts[i].name; i++) {
		const struct cmdopt *o = &opts[i];
		int w = fprintf(out, "  %c%c%s--%s%s%s", o->letter ? '-' : ' ',
				o->letter ? o->letter : ' ', o->letter ? ", " : "  ", o->name,
				o->metavar ? " " : "", o->metavar ? o->metavar : "");
		const char *h = o->help ? o->help : "";
		/* Two spaces at least between the name and its help. */
		fprintf(out, "%*s", w < HELP_COLUMN - 1 ? HELP_COLUMN - w : 2, "");
		for (const char *nl; (nl = strchr(h, '\n')); h = nl + 1)
			fprintf(out, "%.*s\n%*s", (int)(nl - h), h, HELP_COLUMN, "");
		fprintf(out, "%s\n", h);
	}
}

/* Edit distance (insert, delete, substitute, swap of neighbours), capped:
 * names are short, so a row of 64 is plenty. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb)
{
	size_t d[3][65];
	size_t *prev2 = d[0], *prev = d[1], *cur = d[2];

	if (la > 64 || lb > 64)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t v = prev[j - 1] + (a[i - 1] != b[j - 1]);
			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

/* The nearest of `n` names to word[0..len): a unique name it is a prefix
 * of, else the closest within a third of the word (at least 1, at most 2)
 * edits. */
static const char *nearest(const char *const *names, size_t n, const char *word, size_t len)
{
	const char *best = NULL, *prefix = NULL;
	size_t best_d = (size_t)-1, nprefix = 0;
	size_t limit = len / 3 < 1 ? 1 : len / 3 > 2 ? 2 : len / 3;

	if (!len)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t d = distance(word, len, names[i], strlen(names[i]));
		if (!strncmp(names[i], word, len)) {
			prefix = names[i];
			nprefix++;
		}
		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
	}
	if (best_d <= limit)
		return best;
	return nprefix == 1 ? prefix : NULL;
}

const char *cmdopt_suggest(const struct cmdopt *opts, const char *arg)
{
	const char *names[128];
	size_t n = 0, len;

	if (!arg || arg[0] != '-')
		return NULL;
	arg += arg[1] == '-' ? 2 : 1;
	len = strcspn(arg, "=");
	for (size_t i = 0; opts && opts[i].name && n < 128; i++)
		names[n++] = opts[i].name;
	return nearest(names, n, arg, len);
}

const char *cmdopt_suggest_word(const char *const *names, const char *word)
{
	size_t n = 0;

	while (names[n])
		n++;
	return word ? nearest(names, n, word, strlen(word)) : NULL;
}

const char *cmdopt_hint(const struct cmdopt *opts, const char *arg, char *buf, size_t len)
{
	const char *s = cmdopt_suggest(opts, arg);

	if (!len)
		return "";
	buf[0] = '\0';
	if (s)
		snprintf(buf, len, "did you mean --%s?", s);
	return buf;
}

const char *cmdopt_complete_name(enum cmdopt_complete c)
{
	static const char *const names[] = {
		[CMDOPT_NONE] = "text",	  [CMDOPT_FILE] = "file",	[CMDOPT_DIR] = "dir",
		[CMDOPT_CPUS] = "cpus",	  [CMDOPT_LOADS] = "loads",	[CMDOPT_PROBES] = "probes",
		[CMDOPT_WORDS] = "words", [CMDOPT_COMMAND] = "command",
	};

	return (size_t)c < sizeof(names) / sizeof(names[0]) && names[c] ? names[c] : "text";
}

static void spec_line(FILE *out, const char *cmd, const char *flag, const struct cmdopt *o)
{
	fprintf(out, "opt %s %s %s", cmd, flag,
		o->metavar ? cmdopt_complete_name(o->complete) : "-");
	if (o->metavar && o->complete == CMDOPT_WORDS && o->words)
		fprintf(out, " %s", o->words);
	fputc('\n', out);
}

void cmdopt_spec(FILE *out, const char *cmd, const struct cmdopt *opts)
{
	char flag[80];

	for (size_t i = 0; opts && opts[i].name; i++) {
		snprintf(flag, sizeof(flag), "--%s", opts[i].name);
		spec_line(out, cmd, flag, &opts[i]);
		if (opts[i].letter) {
			snprintf(flag, sizeof(flag), "-%c", opts[i].letter);
			spec_line(out, cmd, flag, &opts[i]);
		}
	}
}
