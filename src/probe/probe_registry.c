// SPDX-License-Identifier: GPL-2.0-or-later
/* probe_registry: the one table of probe families, and what every probe's
 * configuration goes through (options from its table, aliases, defaults,
 * the configure hook).  Adding a probe is its file, one line here and one
 * in Makefile.am. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "util.h"

const struct probe_ops *const probe_registry[] = {
	&probe_timer_ops,
	&probe_net_ops,
	&probe_icmp_ops,
	NULL,
};

const struct probe_ops *probe_registry_find(const char *name)
{
	for (unsigned i = 0; probe_registry[i]; i++)
		if (strcmp(probe_registry[i]->name, name) == 0)
			return probe_registry[i];
	return NULL;
}

void probe_registry_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; probe_registry[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					probe_registry[i]->name);
}

unsigned probe_config_result_count(const struct probe_config *pc)
{
	unsigned n = 0;

	while (pc->results[n])
		n++;
	return n;
}

int probe_config_parse(struct probe_config *pc, const char *opts, char *err, size_t errlen)
{
	const struct probe_ops *ops = pc->ops;
	char buf[sizeof(pc->spec)];

	if (!opts)
		return 0;
	if (!ops->options) {
		snprintf(err, errlen, "probe '%s' takes no options", ops->name);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", opts);
	/* The defaults come after the aliases (probe_config_finish). */
	return opt_parse_given(ops->name, ops->options, buf, pc->val, NULL, NULL, NULL, err,
			       errlen);
}

int probe_config_alias(struct probe_config *pc, const struct probe_alias *a, const char *value,
		       char *err, size_t errlen)
{
	int i = opt_index(pc->ops->options, a->option);
	char who[64];

	if (i < 0) {
		fprintf(stderr, "rtsoak: bug: probe '%s' aliases a missing option '%s'\n",
			pc->ops->name, a->option);
		abort();
	}
	snprintf(who, sizeof(who), "--%s", a->flag);
	if (pc->val[i].given) {
		/* Two values for one setting: neither may silently win. */
		snprintf(err, errlen, "%s: '%s' sets %s= itself", who, pc->spec, a->option);
		return -EINVAL;
	}
	int rc = opt_value_parse(who, true, &pc->ops->options[i], value, &pc->val[i], err, errlen);
	if (!rc)
		pc->val[i].given = true;
	return rc;
}

int probe_config_finish(struct probe_config *pc, const struct probe_env *env, char *err,
			size_t errlen)
{
	int rc;

	pc->results = pc->ops->results;
	pc->interval_ns = env->interval_ns;
	if ((rc = opt_defaults(pc->ops->name, pc->ops->options, pc->val, err, errlen)))
		return rc;
	return pc->ops->configure ? pc->ops->configure(pc, env, err, errlen) : 0;
}

const struct opt_value *probe_opt(const struct probe_config *pc, const char *name)
{
	int i = opt_index(pc->ops->options, name);

	if (i < 0) {
		fprintf(stderr, "rtsoak: bug: probe '%s' has no option '%s'\n", pc->ops->name,
			name);
		abort();
	}
	return &pc->val[i];
}

json_t *probe_config_options_json(const struct probe_config *pc)
{
	const struct opt *opts = pc->ops->options;
	json_t *o = json_object();
	int bad = !o;

	for (int i = 0; !bad && opts && opts[i].name; i++) {
		const struct opt_value *v = &pc->val[i];
		json_t *j;
		if (opts[i].optional && !v->given)
			j = json_null(); /* chosen at run time */
		else if (opts[i].type == OPT_CHOICE || opts[i].type == OPT_STRING)
			/* the user's (a remote host name: any bytes): valid UTF-8 */
			j = v->s ? util_json_string(v->s) : NULL;
		else
			j = json_integer(v->i);
		if (!j && (opts[i].type == OPT_CHOICE || opts[i].type == OPT_STRING) && !v->s)
			continue; /* no value, no default: no key, as before */
		bad |= util_json_set(o, opts[i].name, j);
	}
	if (bad) { /* out of memory: the config fails, never an option silently missing */
		json_decref(o);
		return NULL;
	}
	return o;
}

void probe_config_free(struct probe_config *pc)
{
	if (!pc->ops)
		return;
	if (pc->conf && pc->ops->unconfigure)
		pc->ops->unconfigure(pc);
	pc->conf = NULL;
	opt_values_free(pc->ops->options, pc->val);
}
