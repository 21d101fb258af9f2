// SPDX-License-Identifier: GPL-2.0-or-later
/* opt: table-driven "name=value" options (see opt.h). */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"
#include "parse.h"

int opt_index(const struct opt *opts, const char *name)
{
	for (int i = 0; opts && opts[i].name; i++)
		if (!strcmp(opts[i].name, name))
			return i;
	return -1;
}

/* "256M" -> bytes. */
static int parse_size(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;

	if (!isdigit((unsigned char)*s) || errno)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case '\0':
		break;
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1] && !(toupper((unsigned char)end[1]) == 'B' && !end[2]) &&
	    !(toupper((unsigned char)end[1]) == 'I' && toupper((unsigned char)end[2]) == 'B' &&
	      !end[3]))
		return -EINVAL;
	if (v > (unsigned long long)INT64_MAX >> shift)
		return -ERANGE;
	*out = (int64_t)(v << shift);
	return 0;
}

static void choices_text(const struct opt *o, const char *sep, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; o->choices && o->choices[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? sep : "", o->choices[i]);
}

void opt_value_format(enum opt_type type, int64_t v, char *buf, size_t len)
{
	static const char *const sizes[] = { "", "K", "M", "G", "T" };
	static const struct {
		const char *unit;
		int64_t ns;
	} times[] = { { "h", 3600000000000 },
		      { "s", 1000000000 },
		      { "ms", 1000000 },
		      { "us", 1000 },
		      { "ns", 1 } };
	unsigned i = 0;

	if (type == OPT_SIZE) {
		while (i < 4 && v && v % 1024 == 0) {
			v /= 1024;
			i++;
		}
		snprintf(buf, len, "%lld%s", (long long)v, sizes[i]);
	} else if (type == OPT_TIME) {
		while (v && v % times[i].ns)
			i++;
		snprintf(buf, len, "%lld%s", (long long)(v ? v / times[i].ns : 0), times[i].unit);
	} else {
		snprintf(buf, len, "%lld", (long long)v);
	}
}

const char *opt_type_name(enum opt_type type)
{
	static const char *const names[] = {
		[OPT_INT] = "int",	 [OPT_SIZE] = "size",	  [OPT_TIME] = "time",
		[OPT_CHOICE] = "choice", [OPT_STRING] = "string",
	};
	return names[type];
}

void opt_range_text(const struct opt *o, char *buf, size_t len)
{
	buf[0] = '\0';
	if (o->type == OPT_CHOICE) {
		choices_text(o, "|", buf, len);
	} else if (o->type != OPT_STRING) {
		char lo[32], hi[32];
		opt_value_format(o->type, o->min, lo, sizeof(lo));
		opt_value_format(o->type, o->max, hi, sizeof(hi));
		snprintf(buf, len, "%s..%s", lo, hi);
	}
}

void opt_list_line(FILE *out, const char *name, const char *type, const char *def,
		   const char *range, const char *help)
{
	fprintf(out, "  %-10s %-6s default %-8s %-24s %s\n", name, type, def, range, help);
}

void opt_list(FILE *out, const struct opt *opts)
{
	for (unsigned k = 0; opts && opts[k].name; k++) {
		const struct opt *o = &opts[k];
		char range[160];
		opt_range_text(o, range, sizeof(range));
		char absent[32];
		snprintf(absent, sizeof(absent), "(%s)", o->absent ? o->absent : "auto");
		opt_list_line(out, o->name, opt_type_name(o->type),
			      o->def	    ? o->def
			      : o->optional ? absent
					    : "(required)",
			      range, o->help);
	}
}

int opt_value_parse(const char *who, bool name_in_who, const struct opt *o, const char *text,
		    struct opt_value *v, char *err, size_t errlen)
{
	char why[200], what[300];
	uint64_t u;
	int rc = 0;

	/* "disk: size='x'" for a spec option, "--net-family: 'x'" for an alias. */
	if (name_in_who)
		snprintf(what, sizeof(what), "%s: '%s'", who, text);
	else
		snprintf(what, sizeof(what), "%s: %s='%s'", who, o->name, text);
	switch (o->type) {
	case OPT_INT:
		if (*text == '-') {
			char *end;
			errno = 0;
			long long x = strtoll(text, &end, 10);
			if (errno || *end || end == text + 1)
				rc = -EINVAL;
			v->i = x;
		} else {
			rc = parse_u64(text, 0, INT64_MAX, &u, why, sizeof(why));
			v->i = (int64_t)u;
		}
		if (rc) {
			snprintf(err, errlen, "%s is not a whole number (expected %lld to %lld)",
				 what, (long long)o->min, (long long)o->max);
			return -EINVAL;
		}
		break;
	case OPT_SIZE:
		if (parse_size(text, &v->i)) {
			snprintf(err, errlen,
				 "%s is not a size (expected e.g. 4096, 64K, 256M, 1G)", what);
			return -EINVAL;
		}
		break;
	case OPT_TIME:
		if (parse_duration(text, o->bare_ns ? o->bare_ns : 1000000ull, &u, why,
				   sizeof(why))) {
			if (name_in_who)
				snprintf(err, errlen, "%s: %s", who, why);
			else
				snprintf(err, errlen, "%s: %s: %s", who, o->name, why);
			return -EINVAL;
		}
		v->i = (int64_t)u;
		break;
	case OPT_CHOICE:
		for (int i = 0; o->choices[i]; i++)
			if (!strcmp(o->choices[i], text)) {
				v->i = i;
				v->s = (char *)o->choices[i];
				return 0;
			}
		choices_text(o, ", ", why, sizeof(why));
		snprintf(err, errlen, "%s is not one of: %s", what, why);
		return -EINVAL;
	case OPT_STRING:
		if (!*text) {
			if (name_in_who)
				snprintf(err, errlen, "%s: is empty", who);
			else
				snprintf(err, errlen, "%s: %s is empty", who, o->name);
			return -EINVAL;
		}
		free(v->s);
		v->s = strdup(text);
		return v->s ? 0 : -ENOMEM;
	}
	if (v->i < o->min || v->i > o->max) {
		char lo[32], hi[32];
		opt_value_format(o->type, o->min, lo, sizeof(lo));
		opt_value_format(o->type, o->max, hi, sizeof(hi));
		if (name_in_who)
			snprintf(err, errlen, "%s is out of range (expected %s to %s)", what, lo,
				 hi);
		else
			snprintf(err, errlen, "%s: %s=%s is out of range (expected %s to %s)", who,
				 o->name, text, lo, hi);
		return -ERANGE;
	}
	return 0;
}

/* Where a STRING value ends: at ":NAME=" for a NAME of the table. */
static char *string_end(const struct opt *opts, char *value)
{
	for (char *p = strchr(value, ':'); p; p = strchr(p + 1, ':')) {
		size_t len = strcspn(p + 1, "=:");
		for (int i = 0; opts && opts[i].name; i++)
			if (p[1 + len] == '=' && strlen(opts[i].name) == len &&
			    !strncmp(opts[i].name, p + 1, len))
				return p;
	}
	return NULL;
}

int opt_next(const char *who, const struct opt *opts, char **rest, char **name, char **value,
	     char *err, size_t errlen)
{
	char *opt = *rest, *eq = strchr(opt, '='), *next = strchr(opt, ':');

	if (!eq || (next && next < eq)) {
		snprintf(err, errlen, "%s: '%s' is not opt=value", who,
			 next ? (*next = '\0', opt) : opt);
		return -EINVAL;
	}
	*eq = '\0';
	int i = opt_index(opts, opt);
	if (i >= 0 && opts[i].type == OPT_STRING)
		next = opts[i].rest ? NULL : string_end(opts, eq + 1);
	if (next)
		*next++ = '\0';
	*name = opt;
	*value = eq + 1;
	*rest = next;
	return 0;
}

int opt_defaults(const char *who, const struct opt *opts, struct opt_value *vals, char *err,
		 size_t errlen)
{
	int rc;

	for (int i = 0; opts && opts[i].name; i++) {
		const struct opt *o = &opts[i];
		if (vals[i].given || o->optional)
			continue;
		if (!o->def) {
			snprintf(err, errlen, "%s: option '%s' is required (%s)", who, o->name,
				 o->help);
			return -EINVAL;
		}
		if ((rc = opt_value_parse(who, false, o, o->def, &vals[i], err, errlen)))
			return rc;
	}
	return 0;
}

int opt_parse_given(const char *who, const struct opt *opts, char *spec, struct opt_value *vals,
		    const char *extra,
		    int (*other)(void *ctx, const char *name, const char *value, char *err,
				 size_t errlen),
		    void *ctx, char *err, size_t errlen)
{
	char *rest = spec, *name, *value;
	int rc;

	while (rest && *rest) {
		if ((rc = opt_next(who, opts, &rest, &name, &value, err, errlen)))
			return rc;
		if (other && (rc = other(ctx, name, value, err, errlen)) != 0) {
			if (rc < 0)
				return rc;
			continue;
		}
		int i = opt_index(opts, name);
		if (i < 0) {
			char names[256];
			size_t off =
			    (size_t)snprintf(names, sizeof(names), "%s", extra ? extra : "");
			for (int k = 0; opts && opts[k].name && off < sizeof(names); k++)
				off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
							off ? ", " : "", opts[k].name);
			snprintf(err, errlen, "%s: unknown option '%s' (options: %s)", who, name,
				 off ? names : "none");
			return -EINVAL;
		}
		if (vals[i].given) {
			snprintf(err, errlen, "%s: option '%s' given twice", who, name);
			return -EINVAL;
		}
		if ((rc = opt_value_parse(who, false, &opts[i], value, &vals[i], err, errlen)))
			return rc;
		vals[i].given = true;
	}
	return 0;
}

int opt_parse_spec(const char *who, const struct opt *opts, char *spec, struct opt_value *vals,
		   const char *extra,
		   int (*other)(void *ctx, const char *name, const char *value, char *err,
				size_t errlen),
		   void *ctx, char *err, size_t errlen)
{
	int rc = opt_parse_given(who, opts, spec, vals, extra, other, ctx, err, errlen);

	return rc ? rc : opt_defaults(who, opts, vals, err, errlen);
}

void opt_values_free(const struct opt *opts, struct opt_value *vals)
{
	for (int i = 0; opts && opts[i].name; i++)
		if (opts[i].type == OPT_STRING) {
			free(vals[i].s);
			vals[i].s = NULL;
		}
}
