// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_cli: the command-line value parsers on any string.  The first byte
 * picks the parser (and its bounds), the rest is the value:
 *
 *   0  parse_duration (bare unit ns, us, ms or s)     --duration, --interval, ...
 *   1  parse_u64 (bounds of --priority, --top, any)   --priority, --loops, ...
 *   2  cpuset_parse, then format and parse again      --cpus, --load-cpus
 *   3  load_instance_parse (one NAME:opt=val spec)    --loads
 *   4  compare_limit_parse (both forms), compare_opts_verdict_on and
 *      compare_opts_min_effect                        --fail-if(-raw), --verdict-on, --min-effect
 *   5  tweak_value_equal ("WANT\0READ")               --set read-back check
 *   6  probe_config_parse + an alias (each probe)     --probes NAME:opt=val, --net-*
 *
 * --set's PATH=VALUE spec itself is not fuzzed: tweak_add expands the path
 * as a glob over the real file system and checks every match, and has no
 * pure parsing part to call on its own.  load_instance_check is not called
 * either (it looks at the file system); load_instance_parse only reads
 * /sys/devices/system/cpu/online for a cpus= option. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "cpuset.h"
#include "harness.h"
#include "load.h"
#include "parse.h"
#include "probe.h"
#include "tweak.h"

#define FUZZ_CLI_MAX 4096

static void check_err(const char *what, int rc, const char *err)
{
	/* Every failure comes with its one-line reason. */
	if (rc < 0 && !err[0]) {
		fprintf(stderr, "fuzz_cli: %s failed (%d) without a reason\n", what, rc);
		abort();
	}
}

static void fuzz_duration(unsigned sel, const char *s)
{
	static const uint64_t bare[] = { 1, 1000, 1000000, 1000000000 };
	char err[256] = "";
	uint64_t ns = 0;
	int rc = parse_duration(s, bare[sel % 4], &ns, err, sizeof(err));

	check_err("parse_duration", rc, err);
	if (rc == 0 && ns == 0) {
		fprintf(stderr, "fuzz_cli: parse_duration('%s') accepted a zero duration\n", s);
		abort();
	}
}

static void fuzz_u64(unsigned sel, const char *s)
{
	static const uint64_t bounds[][2] = {
		{ 1, 99 }, { 1, 100000 }, { 0, UINT64_MAX }, { 1, UINT64_MAX }, { 4, 6 },
	};
	const uint64_t *b = bounds[sel % 5];
	char err[256] = "";
	uint64_t v = 0;
	int rc = parse_u64(s, b[0], b[1], &v, err, sizeof(err));

	check_err("parse_u64", rc, err);
	if (rc == 0 && (v < b[0] || v > b[1])) {
		fprintf(stderr, "fuzz_cli: parse_u64('%s') gave %ju outside its bounds\n", s,
			(uintmax_t)v);
		abort();
	}
}

static void fuzz_cpuset(const char *s)
{
	static char list[CPUSET_MAX * 6];
	struct cpuset a, b;
	char err[256] = "";
	int rc = cpuset_parse(&a, s, err, sizeof(err));

	check_err("cpuset_parse", rc, err);
	if (rc || cpuset_empty(&a))
		return;
	/* The compact form rtsoak prints must mean the same set. */
	cpuset_format(&a, list, sizeof(list));
	if (cpuset_parse(&b, list, err, sizeof(err)) || memcmp(&a, &b, sizeof(a))) {
		fprintf(stderr, "fuzz_cli: cpulist '%s' formats as '%s', which differs\n", s, list);
		abort();
	}
	(void)cpuset_count(&a);
	(void)cpuset_next(&a, cpuset_count(&a));
}

static void fuzz_load(const char *s)
{
	struct load_instance inst;
	struct cpuset cpus;
	char err[512] = "";
	int rc;

	cpuset_clear(&cpus);
	cpuset_set(&cpus, 0);
	rc = load_instance_parse(&inst, s, &cpus, err, sizeof(err));
	check_err("load_instance_parse", rc, err);
	if (rc == 0) {
		json_t *o = load_instance_options_json(&inst);
		json_decref(o);
	}
	load_instance_free(&inst);
}

/* A --probes entry's options against every probe's table (parse and
 * aliases only: configure would resolve host names). */
static void fuzz_probe(unsigned sel, const char *s)
{
	unsigned n = 0;

	while (probe_registry[n])
		n++;
	struct probe_config pc = { .ops = probe_registry[sel % n] };
	char err[512] = "";
	snprintf(pc.spec, sizeof(pc.spec), "%s:%s", pc.ops->name, s);
	int rc = probe_config_parse(&pc, s, err, sizeof(err));
	check_err("probe_config_parse", rc, err);
	if (rc == 0 && pc.ops->aliases && pc.ops->aliases[0].flag) {
		rc = probe_config_alias(&pc, &pc.ops->aliases[0], s, err, sizeof(err));
		check_err("probe_config_alias", rc, err);
	}
	if (rc == 0) {
		json_t *o = probe_config_options_json(&pc);
		json_decref(o);
	}
	probe_config_free(&pc);
}

static void fuzz_limit(const char *s)
{
	struct compare_opts o;
	char err[256] = "";

	/* --fail-if and --fail-if-raw */
	for (int raw = 0; raw < 2; raw++) {
		struct compare_limit l;
		int rc = compare_limit_parse(s, raw, &l, err, sizeof(err));

		check_err("compare_limit_parse", rc, err);
		if (rc == 0 && (unsigned)l.stat >= COMPARE_NSTATS) {
			fprintf(stderr, "fuzz_cli: --fail-if '%s' names statistic %d\n", s,
				(int)l.stat);
			abort();
		}
	}
	/* --verdict-on and --min-effect take the same kind of text */
	compare_opts_default(&o);
	err[0] = '\0';
	check_err("compare_opts_verdict_on", compare_opts_verdict_on(&o, s, err, sizeof(err)), err);
	err[0] = '\0';
	check_err("compare_opts_min_effect", compare_opts_min_effect(&o, s, err, sizeof(err)), err);
}

static void fuzz_value_equal(const char *s, size_t len)
{
	size_t n = strlen(s);
	const char *read = n < len ? s + n + 1 : "";

	(void)tweak_value_equal(s, read);
	(void)tweak_value_equal(read, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char s[FUZZ_CLI_MAX + 2];
	unsigned sel;
	size_t len;

	if (size < 1 || size - 1 > FUZZ_CLI_MAX)
		return 0;
	sel = data[0];
	len = size - 1;
	memcpy(s, data + 1, len);
	s[len] = s[len + 1] = '\0';
	switch (sel % 7) {
	case 0:
		fuzz_duration(sel / 7, s);
		break;
	case 1:
		fuzz_u64(sel / 7, s);
		break;
	case 2:
		fuzz_cpuset(s);
		break;
	case 3:
		fuzz_load(s);
		break;
	case 4:
		fuzz_limit(s);
		break;
	case 5:
		fuzz_value_equal(s, len);
		break;
	case 6:
		fuzz_probe(sel / 7, s);
		break;
	}
	return 0;
}
