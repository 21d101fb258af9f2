// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the --loads option parser (load_instance_parse and
 * opt_value_parse): defaults, each option type with its range, the common
 * options nice= and cpus=, and every way a spec can be wrong.  The loads
 * are the real ones from loads/registry.c (cpu: INT and CHOICE, disk: SIZE,
 * spike: TIME, exec: STRING with no default). */
#include <config.h>

#include <errno.h>
#include <string.h>

#include "cpuset.h"
#include "load.h"
#include "tap.h"

static struct cpuset load_cpus; /* --load-cpus: CPU 0, online everywhere */
static char err[512];

/* Parse spec into *inst; the return code, with err set on failure. */
static int parse(struct load_instance *inst, const char *spec)
{
	err[0] = '\0';
	return load_instance_parse(inst, spec, &load_cpus, err, sizeof(err));
}

/* spec fails with code and a message that contains want. */
static int rejects(const char *spec, int code, const char *want)
{
	struct load_instance inst;
	int rc = parse(&inst, spec);

	load_instance_free(&inst);
	if (rc != code || !strstr(err, want)) {
		diag("'%s': rc %d, err '%s' (want %d, '%s')", spec, rc, err, code, want);
		return 0;
	}
	return 1;
}

/* spec parses and option name has the integer value want. */
static int int_is(const char *spec, const char *name, int64_t want)
{
	struct load_instance inst;
	int good = parse(&inst, spec) == 0 && load_opt_int(&inst, name) == want;

	if (!good)
		diag("'%s': err '%s'", spec, err);
	load_instance_free(&inst);
	return good;
}

static int formats(enum opt_type type, int64_t v, const char *want)
{
	char buf[32];

	opt_value_format(type, v, buf, sizeof(buf));
	return !strcmp(buf, want);
}

int main(void)
{
	struct load_instance inst;
	struct cpuset online;
	char text[300], cpus[64];
	json_t *j;
	int rc;

	tap_plan(45);
	cpuset_clear(&load_cpus);
	cpuset_set(&load_cpus, 0);
	cpuset_clear(&online);

	/* Defaults: every option from its table, nice 0, cpus = --load-cpus. */
	rc = parse(&inst, "cpu");
	ok(rc == 0 && inst.ops && !strcmp(inst.ops->name, "cpu"), "load_parse_name_alone");
	ok(rc == 0 && load_opt_int(&inst, "load") == 100 && !inst.val[0].given,
	   "load_parse_default_int");
	ok(rc == 0 && !strcmp(load_opt_str(&inst, "kind"), "int") && inst.val[1].i == 0,
	   "load_parse_default_choice");
	ok(rc == 0 && inst.nice == 0, "load_parse_default_nice_0");
	ok(rc == 0 && cpuset_count(&inst.cpus) == 1 && cpuset_has(&inst.cpus, 0),
	   "load_parse_default_cpus_are_load_cpus");
	ok(rc == 0 && !strcmp(inst.spec, "cpu") && inst.dirfd == -1, "load_parse_keeps_spec");
	load_instance_free(&inst);
	rc = parse(&inst, "exec:cmd=true");
	ok(rc == 0 && inst.nice == 10, "load_parse_exec_default_nice_10");
	load_instance_free(&inst);
	ok(rejects("exec", -EINVAL, "option 'cmd' is required"), "load_parse_required_option");

	/* INT */
	ok(int_is("cpu:load=50", "load", 50), "load_parse_int");
	ok(int_is("cpu:load=1", "load", 1) && int_is("cpu:load=100", "load", 100),
	   "load_parse_int_range_is_inclusive");
	ok(rejects("cpu:load=0", -ERANGE, "load=0 is out of range (expected 1 to 100)"),
	   "load_parse_int_below_min");
	ok(rejects("cpu:load=101", -ERANGE, "out of range"), "load_parse_int_above_max");
	ok(rejects("cpu:load=-5", -ERANGE, "out of range"), "load_parse_int_negative");
	ok(rejects("cpu:load=5x", -EINVAL, "load='5x' is not a whole number"),
	   "load_parse_int_not_a_number");
	ok(rejects("cpu:load=99999999999999999999", -EINVAL, "not a whole number"),
	   "load_parse_int_overflow");

	/* SIZE: powers of 1024, K/M/G/T with an optional B or iB */
	ok(int_is("disk:size=1G", "size", 1ll << 30), "load_parse_size_suffix");
	ok(int_is("disk:block=64KiB", "block", 65536) && int_is("disk:block=8kb", "block", 8192),
	   "load_parse_size_suffix_b_and_ib");
	ok(int_is("disk:block=4096", "block", 4096), "load_parse_size_bare_bytes");
	ok(rejects("disk:size=512K", -ERANGE, "size=512K is out of range (expected 1M to 1T)"),
	   "load_parse_size_below_min");
	ok(rejects("disk:size=12X", -EINVAL, "size='12X' is not a size"),
	   "load_parse_size_bad_suffix");
	ok(rejects("disk:size=1MBB", -EINVAL, "is not a size"), "load_parse_size_trailing_junk");

	/* TIME: a unit, or a bare number of ms */
	ok(int_is("spike:period=500ms", "period", 500000000), "load_parse_time_unit");
	ok(int_is("spike:period=3", "period", 3000000), "load_parse_time_bare_is_ms");
	ok(rejects("spike:burst=2s", -ERANGE, "burst=2s is out of range (expected 1us to 1s)"),
	   "load_parse_time_above_max");
	ok(rejects("spike:period=fast", -EINVAL, "spike: period:"), "load_parse_time_not_a_time");

	/* CHOICE */
	rc = parse(&inst, "cpu:kind=memory");
	ok(rc == 0 && !strcmp(load_opt_str(&inst, "kind"), "memory") && inst.val[1].i == 2 &&
	       inst.val[1].given,
	   "load_parse_choice_sets_text_and_index");
	load_instance_free(&inst);
	ok(rejects("cpu:kind=quantum", -EINVAL, "kind='quantum' is not one of: int, float, memory"),
	   "load_parse_choice_lists_choices");

	/* STRING: takes the rest of the spec, colons included */
	rc = parse(&inst, "exec:cmd=sleep 1; echo a:b=c");
	ok(rc == 0 && !strcmp(load_opt_str(&inst, "cmd"), "sleep 1; echo a:b=c"),
	   "load_parse_string_takes_the_rest");
	load_instance_free(&inst);
	rc = parse(&inst, "exec:nice=5:cmd=x");
	ok(rc == 0 && inst.nice == 5 && !strcmp(load_opt_str(&inst, "cmd"), "x"),
	   "load_parse_options_before_a_string");
	load_instance_free(&inst);

	/* Empty values */
	ok(rejects("cpu:load=", -EINVAL, "load='' is not a whole number"), "load_parse_empty_int");
	ok(rejects("cpu:kind=", -EINVAL, "kind='' is not one of"), "load_parse_empty_choice");
	ok(rejects("exec:cmd=", -EINVAL, "exec: cmd is empty"), "load_parse_empty_string");

	/* What is not an option */
	ok(rejects("cpu:bogus=1", -EINVAL,
		   "cpu: unknown option 'bogus' (options: nice, cpus, load, kind)"),
	   "load_parse_unknown_option");
	ok(rejects("cpu:load=10:load=20", -EINVAL, "option 'load' given twice"),
	   "load_parse_duplicate_option");
	ok(rejects("cpu:load", -EINVAL, "'load' is not opt=value") &&
	       rejects("cpu:load:kind=int", -EINVAL, "'load' is not opt=value"),
	   "load_parse_option_without_value");
	ok(rejects("quux:load=1", -EINVAL, "unknown load 'quux' (available: cpu"),
	   "load_parse_unknown_load");
	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	memcpy(text, "exec:cmd=", 9);
	ok(rejects(text, -EINVAL, "is too long"), "load_parse_spec_too_long");

	/* nice= */
	ok(rejects("cpu:nice=20", -EINVAL, "nice='20' is out of range (expected -20 to 19)") &&
	       rejects("cpu:nice=", -EINVAL, "nice='' is out of range"),
	   "load_parse_nice_range_and_empty");
	rc = parse(&inst, "cpu:nice=-20");
	ok(rc == 0 && inst.nice == -20, "load_parse_nice_lowest");
	load_instance_free(&inst);

	/* cpus=: the kernel's list syntax, online CPUs only */
	rc = parse(&inst, "cpu:cpus=0");
	cpuset_format(&inst.cpus, cpus, sizeof(cpus));
	ok(rc == 0 && !strcmp(cpus, "0"), "load_parse_cpus_single");
	load_instance_free(&inst);
	if (cpuset_online(&online) == 0 && cpuset_has(&online, 1)) {
		rc = parse(&inst, "cpu:cpus=1,0");
		cpuset_format(&inst.cpus, cpus, sizeof(cpus));
		ok(rc == 0 && !strcmp(cpus, "0-1"), "load_parse_cpus_list");
		load_instance_free(&inst);
	} else {
		ok(1, "# SKIP load_parse_cpus_list: CPU 1 is not online");
	}
	ok(rejects("cpu:cpus=4095", -EINVAL, "cpu: cpus: CPU 4095 is not online") ||
	       cpuset_has(&online, 4095),
	   "load_parse_cpus_offline");
	ok(rejects("cpu:cpus=1-0", -EINVAL, "cpu: cpus:") && rejects("cpu:cpus=", -EINVAL, "cpus"),
	   "load_parse_cpus_malformed_and_empty");

	/* The report's options: every option, nice and cpus. */
	rc = parse(&inst, "disk:size=2M:pattern=seq");
	j = rc ? NULL : load_instance_options_json(&inst);
	ok(j && json_integer_value(json_object_get(j, "size")) == 2 << 20 &&
	       json_integer_value(json_object_get(j, "block")) == 65536 &&
	       !strcmp(json_string_value(json_object_get(j, "pattern")), "seq") &&
	       json_integer_value(json_object_get(j, "nice")) == 0 &&
	       !strcmp(json_string_value(json_object_get(j, "cpus")), "0"),
	   "load_options_json_has_every_option");
	json_decref(j);
	load_instance_free(&inst);

	ok(formats(OPT_SIZE, 1 << 20, "1M") && formats(OPT_SIZE, 1536, "1536") &&
	       formats(OPT_TIME, 2000000000, "2s") && formats(OPT_TIME, 1500000, "1500us") &&
	       formats(OPT_INT, -3, "-3"),
	   "opt_value_format_as_people_type_it");
	return tap_done();
}
