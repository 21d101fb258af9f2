// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the option tables probes and loads share (src/lib/opt.c)
 * and the probes' configuration (probe_registry.c): where a STRING value
 * ends (a host with a port, an IPv6 address, a command line), defaults and
 * optional options, and the command-line aliases (--net-interval) against
 * the real net probe's table. */
#include <config.h>

#include <errno.h>
#include <string.h>

#include "opt.h"
#include "probe.h"
#include "tap.h"

static const char *const colours[] = { "red", "blue", NULL };
static const struct opt table[] = {
	{ .name = "target", .type = OPT_STRING, .optional = true, .help = "host" },
	{ .name = "every",
	  .type = OPT_TIME,
	  .def = "1ms",
	  .min = 1000,
	  .max = 1000000000,
	  .bare_ns = 1000,
	  .help = "period" },
	{ .name = "colour", .type = OPT_CHOICE, .def = "red", .choices = colours, .help = "c" },
	{ .name = "cmd", .type = OPT_STRING, .optional = true, .rest = true, .help = "rest" },
	{ .name = NULL },
};

static char err[512];

/* Parse spec against table; vals filled, rc returned. */
static int parse(const char *spec, struct opt_value *vals)
{
	char buf[256];

	memset(vals, 0, 5 * sizeof(*vals));
	snprintf(buf, sizeof(buf), "%s", spec);
	err[0] = '\0';
	return opt_parse_spec("t", table, buf, vals, NULL, NULL, NULL, err, sizeof(err));
}

static const char *target_of(const char *spec, struct opt_value *v)
{
	return parse(spec, v) == 0 && v[0].given ? v[0].s : "(failed)";
}

int main(void)
{
	struct opt_value v[5];

	tap_plan(16);

	ok(!strcmp(target_of("target=host:9000", v), "host:9000"),
	   "a port stays in the host: ':9000' does not start an option");
	opt_values_free(table, v);
	ok(!strcmp(target_of("target=[::1]:9000:every=2ms", v), "[::1]:9000") && v[1].i == 2000000,
	   "a STRING ends where ':NAME=' names an option of the table (got %s, every %lld)", v[0].s,
	   (long long)v[1].i);
	opt_values_free(table, v);
	ok(!strcmp(target_of("every=5:target=fe80::1%eth0", v), "fe80::1%eth0") && v[1].i == 5000,
	   "an IPv6 address keeps its colons; a bare TIME is in bare_ns units (every %lld)",
	   (long long)v[1].i);
	opt_values_free(table, v);
	ok(parse("cmd=sleep 1:every=2ms", v) == 0 && !strcmp(v[3].s, "sleep 1:every=2ms") &&
	       v[1].i == 1000000,
	   "a `rest` STRING takes the rest of the spec, ':NAME=' included (got '%s')", v[3].s);
	opt_values_free(table, v);
	ok(parse("", v) == 0 && !v[0].given && v[0].s == NULL && v[1].i == 1000000 &&
	       !strcmp(v[2].s, "red"),
	   "defaults applied; an optional option stays absent");
	ok(parse("every=0", v) == -EINVAL && strstr(err, "every"), "zero is not a duration (%s)",
	   err);
	ok(parse("every=2s", v) == -ERANGE &&
	       !strcmp(err, "t: every=2s is out of range (expected 1us to 1s)"),
	   "out of range, in the units people type (%s)", err);
	ok(parse("colour=green", v) == -EINVAL &&
	       !strcmp(err, "t: colour='green' is not one of: red, blue"),
	   "a choice lists the choices (%s)", err);
	ok(parse("every=1ms:every=2ms", v) == -EINVAL && strstr(err, "given twice"),
	   "an option given twice is refused (%s)", err);
	ok(parse("nosuch=1", v) == -EINVAL &&
	       !strcmp(err, "t: unknown option 'nosuch' (options: target, every, colour, cmd)"),
	   "an unknown option lists the table (%s)", err);
	ok(parse("every", v) == -EINVAL && !strcmp(err, "t: 'every' is not opt=value"),
	   "a name without a value (%s)", err);

	/* The real net probe: spec, alias, conflict. */
	const struct probe_ops *net = probe_registry_find("net");
	struct probe_config pc = { .ops = net };
	const struct probe_alias *alias = NULL;
	for (const struct probe_alias *a = net->aliases; a && a->flag; a++)
		if (!strcmp(a->flag, "net-interval"))
			alias = a;
	snprintf(pc.spec, sizeof(pc.spec), "net:timeout=200ms");
	ok(alias && probe_config_parse(&pc, "timeout=200ms", err, sizeof(err)) == 0 &&
	       probe_config_alias(&pc, alias, "250", err, sizeof(err)) == 0 &&
	       probe_opt(&pc, "interval")->i == 250000 && probe_opt(&pc, "timeout")->i == 200000000,
	   "--net-interval 250 (bare: us) beside net:timeout=200ms (%s)", err);
	struct probe_config pc2 = { .ops = net };
	snprintf(pc2.spec, sizeof(pc2.spec), "net:interval=2ms");
	ok(probe_config_parse(&pc2, "interval=2ms", err, sizeof(err)) == 0 &&
	       probe_config_alias(&pc2, alias, "1ms", err, sizeof(err)) == -EINVAL &&
	       !strcmp(err, "--net-interval: 'net:interval=2ms' sets interval= itself"),
	   "an alias and the spec's own value: refused (%s)", err);
	struct probe_config pc3 = { .ops = net };
	ok(probe_config_parse(&pc3, NULL, err, sizeof(err)) == 0 &&
	       probe_config_alias(&pc3, alias, "0.5ms:x", err, sizeof(err)) == -EINVAL &&
	       strstr(err, "--net-interval: "),
	   "an alias's bad value names the alias (%s)", err);
	struct probe_env env = { .priority = 95, .interval_ns = 1000000 };
	cpuset_set(&env.cpus, 0);
	struct probe_config pc4 = { .ops = net };
	ok(probe_config_parse(&pc4, "target=127.0.0.1:9:interval=3ms", err, sizeof(err)) == 0 &&
	       probe_config_finish(&pc4, &env, err, sizeof(err)) == 0 &&
	       pc4.interval_ns == 3000000 && !strcmp(pc4.results[0], "net.rtt"),
	   "configure: a target makes the round trip, its interval is the results' period (%s)",
	   err);
	struct probe_config pc5 = { .ops = probe_registry_find("timer") };
	ok(probe_config_parse(&pc5, "x=1", err, sizeof(err)) == -EINVAL &&
	       !strcmp(err, "probe 'timer' takes no options"),
	   "a probe without a table takes no options (%s)", err);
	probe_config_free(&pc);
	probe_config_free(&pc2);
	probe_config_free(&pc3);
	probe_config_free(&pc4);
	return tap_done();
}
