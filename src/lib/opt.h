/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opt: "name=value" options declared in a table, shared by the loads
 * (--loads cpu:load=50) and the probes (--probes icmp:target=HOST).  One
 * table per plug-in drives parsing, defaults, the listing (`rtsoak loads`,
 * `rtsoak probes`) and the report's config echo, so the three cannot
 * disagree. */
#ifndef RTSOAK_OPT_H
#define RTSOAK_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_type {
	OPT_INT,    /* a whole number in [min, max] */
	OPT_SIZE,   /* bytes, with optional K, M, G, T suffix (powers of 1024) */
	OPT_TIME,   /* ns; a duration with a unit (ns, us, ms, s, m, h); bare: see bare_ns */
	OPT_CHOICE, /* one of choices[] */
	OPT_STRING, /* free text; see rest */
};

struct opt {
	const char *name;
	enum opt_type type;
	const char *def;	    /* default as text; NULL: must be given (unless optional) */
	int64_t min, max;	    /* INT, SIZE, TIME */
	const char *const *choices; /* CHOICE: NULL-terminated */
	const char *help;
	/* TIME: the unit of a bare number in ns; 0 means ms. */
	uint64_t bare_ns;
	/* STRING: takes the rest of the spec, ':' included (a command line).
	 * Otherwise a STRING ends where ":NAME=" starts for an option NAME of
	 * the same table, so "target=[::1]:9000:interval=2ms" splits after
	 * the port. */
	bool rest;
	/* No default and not required: absent means "chosen at run time";
	 * `absent` says what that is in listings (NULL: "auto"). */
	bool optional;
	const char *absent;
};

/* A parsed value: .i for INT/SIZE/TIME, .s for CHOICE/STRING (CHOICE also
 * sets .i to the index in choices[]).  .given: on the command line. */
struct opt_value {
	int64_t i;
	char *s;
	bool given;
};

/* Index of `name` in a table terminated by { .name = NULL }, or -1. */
int opt_index(const struct opt *opts, const char *name);
/* Parse `text` as option o.  Messages read "WHO: NAME='text' is ..."; with
 * name_in_who (a command-line alias such as --net-family) "WHO: 'text' is
 * ...".  0, -EINVAL, -ERANGE or -ENOMEM (STRING). */
int opt_value_parse(const char *who, bool name_in_who, const struct opt *o, const char *text,
		    struct opt_value *v, char *err, size_t errlen);
/* 1048576 (SIZE) -> "1M", 2000000000 (TIME) -> "2s": as people type them. */
void opt_value_format(enum opt_type type, int64_t v, char *buf, size_t len);
/* "int", "size", ...: for listings. */
const char *opt_type_name(enum opt_type type);
/* The range column of a listing: "1..100", "a|b", "" for strings. */
void opt_range_text(const struct opt *o, char *buf, size_t len);

/* A listing (`rtsoak loads`, `rtsoak probes`): one line per option with
 * its type, default, range and help. */
void opt_list(FILE *out, const struct opt *opts);
void opt_list_line(FILE *out, const char *name, const char *type, const char *def,
		   const char *range, const char *help);

/* Split the next "NAME=VALUE" off `*rest` (modified in place: NUL
 * terminators are written); *rest moves past it, NULL at the end.
 * 0, or -EINVAL with "WHO: 'x' is not opt=value". */
int opt_next(const char *who, const struct opt *opts, char **rest, char **name, char **value,
	     char *err, size_t errlen);

/* Parse "a=1:b=2" (NULL or "" for none) against a table into vals[] (one
 * per table entry), then fill the defaults.  Names not in the table are
 * refused listing the table's names after `extra` (e.g. "nice, cpus"
 * for options the caller handles, or NULL); a hook `other` may take them
 * first (return 1: taken, 0: not ours, <0: error with err set).  A name
 * given twice is refused.  0 or -errno, a one-line reason in err. */
int opt_parse_spec(const char *who, const struct opt *opts, char *spec, struct opt_value *vals,
		   const char *extra,
		   int (*other)(void *ctx, const char *name, const char *value, char *err,
				size_t errlen),
		   void *ctx, char *err, size_t errlen);
/* The same without the defaults (a caller that has more values to add
 * first, e.g. the probes' command-line aliases). */
int opt_parse_given(const char *who, const struct opt *opts, char *spec, struct opt_value *vals,
		    const char *extra,
		    int (*other)(void *ctx, const char *name, const char *value, char *err,
				 size_t errlen),
		    void *ctx, char *err, size_t errlen);
/* Apply defaults to every value not given (and check required ones). */
int opt_defaults(const char *who, const struct opt *opts, struct opt_value *vals, char *err,
		 size_t errlen);
void opt_values_free(const struct opt *opts, struct opt_value *vals);

#endif
