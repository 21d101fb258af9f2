/* cli: option parsing and validation for `rtsoak run`. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "parse.h"
#include "sysinfo.h"
#include "util.h"

#define DEFAULT_INTERVAL_NS (1 * NSEC_PER_MSEC)
#define DEFAULT_DURATION_NS (60 * NSEC_PER_SEC)
#define MIN_INTERVAL_NS (1 * NSEC_PER_USEC)
#define MAX_INTERVAL_NS (3600 * NSEC_PER_SEC)

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("rtsoak: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_usage(FILE *out)
{
	fputs(
	    "usage: rtsoak [run] [OPTION]...\n"
	    "       rtsoak sysinfo\n"
	    "       rtsoak report FILE.json [--json OUT]\n"
	    "       rtsoak probes | help | version\n"
	    "\n"
	    "Measure wake-up latency of pinned SCHED_FIFO threads and write a JSON report.\n"
	    "\n"
	    "  -c, --cpus LIST        CPUs to measure, e.g. 0-3,8 (default: all online CPUs we may use)\n"
	    "  -p, --priority N       SCHED_FIFO priority of the probes, 1-99 (default 95)\n"
	    "  -i, --interval T       wake-up period: ns, us, ms, s; a bare number is us (default 1ms)\n"
	    "  -D, --duration T       run time: s, m, h, d; a bare number is s (default 60s)\n"
	    "  -l, --loops N          stop each probe after N samples\n"
	    "  -P, --probes LIST      probes to run, comma-separated (default: timer)\n"
	    "  -o, --output FILE      report path, '-' for stdout (default rtsoak-<UTC time>.json)\n"
	    "  -q, --quiet            no summary on stdout\n"
	    "      --top K            keep the K largest samples per result (default 32)\n"
	    "      --housekeeping LIST  CPUs for rtsoak's own main thread (default: unmeasured CPUs)\n"
	    "      --dma-latency US   hold /dev/cpu_dma_latency at US microseconds for the run\n"
	    "      --no-rt            run as SCHED_OTHER when real-time scheduling is not allowed\n"
	    "      --record GLOB      add the contents of matching /sys or /proc files to the report\n"
	    "  -h, --help             this help\n"
	    "  -V, --version          print the version\n"
	    "\n"
	    "Exit status: 0 ok, 1 a declared limit failed, 2 usage or input error, 3 environment error.\n",
	    out);
}

enum {
	OPT_TOP = 256,
	OPT_HOUSEKEEPING,
	OPT_DMA,
	OPT_NO_RT,
	OPT_RECORD,
};

static const struct option run_options[] = {
	{ "cpus", required_argument, NULL, 'c' },
	{ "priority", required_argument, NULL, 'p' },
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'D' },
	{ "loops", required_argument, NULL, 'l' },
	{ "probes", required_argument, NULL, 'P' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "housekeeping", required_argument, NULL, OPT_HOUSEKEEPING },
	{ "dma-latency", required_argument, NULL, OPT_DMA },
	{ "no-rt", no_argument, NULL, OPT_NO_RT },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* A CPU list must parse and name only online CPUs. */
static int check_cpus(const char *opt, const char *arg, struct cpuset *set)
{
	struct cpuset online;
	char err[256], list[512];
	int c;

	if (cpuset_parse(set, arg, err, sizeof(err))) {
		cli_error("%s: %s", opt, err);
		return EXIT_USAGE;
	}
	if (cpuset_online(&online) < 0)
		return -1; /* cannot tell: the affinity check at start-up catches it */
	if ((c = cpuset_first_missing(set, &online)) >= 0) {
		cpuset_format(&online, list, sizeof(list));
		cli_error("%s: CPU %d is not online (online: %s)", opt, c, list);
		return EXIT_USAGE;
	}
	return -1;
}

static int parse_probes(struct run_config *cfg, const char *arg)
{
	char *copy = strdup(arg), *save = NULL;
	int rc = -1;

	if (!copy)
		return EXIT_ENV;
	cfg->nprobes = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct probe_ops *ops = probe_registry_find(tok);
		if (!ops) {
			char names[256] = "";
			for (unsigned i = 0; probe_registry[i]; i++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names),
					 "%s%s", i ? ", " : "", probe_registry[i]->name);
			cli_error("--probes: unknown probe '%s' (available: %s)", tok, names);
			rc = EXIT_USAGE;
			break;
		}
		if (ops->unavailable) {
			cli_error("--probes: probe '%s' cannot run here: %s", tok,
				  ops->unavailable);
			rc = EXIT_ENV;
			break;
		}
		for (unsigned i = 0; i < cfg->nprobes; i++)
			if (cfg->probes[i] == ops) {
				cli_error("--probes: '%s' is named twice", tok);
				rc = EXIT_USAGE;
			}
		if (rc >= 0)
			break;
		if (cfg->nprobes == CLI_MAX_PROBES) {
			cli_error("--probes: at most %d probes", CLI_MAX_PROBES);
			rc = EXIT_USAGE;
			break;
		}
		cfg->probes[cfg->nprobes++] = ops;
	}
	free(copy);
	if (rc < 0 && cfg->nprobes == 0) {
		cli_error("--probes: the list is empty (expected e.g. timer)");
		rc = EXIT_USAGE;
	}
	return rc;
}

static void default_output(char *buf, size_t len)
{
	char iso[40];

	util_iso8601(util_now_ns(CLOCK_REALTIME), iso, sizeof(iso));
	/* 2026-11-30T18:17:42.123Z -> rtsoak-20261130T181742Z.json */
	snprintf(buf, len, "rtsoak-%.4s%.2s%.2sT%.2s%.2s%.2sZ.json", iso, iso + 5, iso + 8,
		 iso + 11, iso + 14, iso + 17);
}

int cli_parse_run(struct run_config *cfg, int argc, char **argv)
{
	bool duration_given = false, cpus_given = false;
	char err[256];
	uint64_t v;
	int opt, rc;

	memset(cfg, 0, sizeof(*cfg));
	cfg->priority = 95;
	cfg->interval_ns = DEFAULT_INTERVAL_NS;
	cfg->top_k = RECORDER_TOP_DEFAULT;
	cfg->dma_latency_us = -1;
	cfg->probes[0] = &probe_timer_ops;
	cfg->nprobes = 1;

	optind = 1;
	opterr = 0; /* we print our own one-line errors */
	while ((opt = getopt_long(argc, argv, ":c:p:i:D:l:P:o:qhV", run_options, NULL)) != -1) {
		const char *name = NULL;
		for (const struct option *o = run_options; o->name; o++)
			if (o->val == opt)
				name = o->name;
		char optname[40];
		snprintf(optname, sizeof(optname), "--%s", name ? name : "?");

		switch (opt) {
		case 'c':
			if ((rc = check_cpus(optname, optarg, &cfg->cpus)) >= 0)
				return rc;
			cpus_given = true;
			break;
		case 'p':
			if (parse_u64(optarg, 1, 99, &v, err, sizeof(err)))
				goto bad;
			cfg->priority = (int)v;
			break;
		case 'i':
			if (parse_duration(optarg, NSEC_PER_USEC, &cfg->interval_ns, err,
					   sizeof(err)))
				goto bad;
			if (cfg->interval_ns < MIN_INTERVAL_NS ||
			    cfg->interval_ns > MAX_INTERVAL_NS) {
				snprintf(err, sizeof(err),
					 "'%s' is out of range (expected 1us to 1h)", optarg);
				goto bad;
			}
			break;
		case 'D':
			if (parse_duration(optarg, NSEC_PER_SEC, &cfg->duration_ns, err,
					   sizeof(err)))
				goto bad;
			duration_given = true;
			break;
		case 'l':
			if (parse_u64(optarg, 1, UINT64_MAX / 2, &cfg->loops, err, sizeof(err)))
				goto bad;
			break;
		case 'P':
			if ((rc = parse_probes(cfg, optarg)) >= 0)
				return rc;
			break;
		case 'o':
			if (!*optarg) {
				snprintf(err, sizeof(err), "the path is empty");
				goto bad;
			}
			if (snprintf(cfg->output, sizeof(cfg->output), "%s", optarg) >=
			    (int)sizeof(cfg->output)) {
				snprintf(err, sizeof(err), "the path is too long");
				goto bad;
			}
			break;
		case 'q':
			cfg->quiet = true;
			break;
		case OPT_TOP:
			if (parse_u64(optarg, 0, RECORDER_TOP_MAX, &v, err, sizeof(err)))
				goto bad;
			cfg->top_k = (unsigned)v;
			break;
		case OPT_HOUSEKEEPING:
			if ((rc = check_cpus(optname, optarg, &cfg->housekeeping)) >= 0)
				return rc;
			cfg->housekeeping_given = true;
			break;
		case OPT_DMA:
			if (parse_u64(optarg, 0, 2000000000, &v, err, sizeof(err)))
				goto bad;
			cfg->dma_latency_us = (int)v;
			break;
		case OPT_NO_RT:
			cfg->no_rt = true;
			break;
		case OPT_RECORD:
			if (sysinfo_record_check(optarg, err, sizeof(err)))
				goto bad;
			if (cfg->nrecord == CLI_MAX_RECORD) {
				snprintf(err, sizeof(err), "at most %d globs", CLI_MAX_RECORD);
				goto bad;
			}
			cfg->record[cfg->nrecord++] = optarg;
			break;
		case 'h':
			cli_usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("rtsoak %s\n", PACKAGE_VERSION);
			return EXIT_OK;
		case ':':
			cli_error("%s needs a value (see rtsoak --help)", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			cli_error("unknown option '%s' (see rtsoak --help)", argv[optind - 1]);
			return EXIT_USAGE;
		}
		continue;
	bad:
		cli_error("%s: %s", optname, err);
		return EXIT_USAGE;
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s' (see rtsoak --help)", argv[optind]);
		return EXIT_USAGE;
	}

	if (!duration_given)
		cfg->duration_ns = cfg->loops ? 0 : DEFAULT_DURATION_NS;
	if (!cpus_given) {
		struct cpuset online;
		if (cpuset_allowed(&cfg->cpus) == 0 && cpuset_online(&online) == 0)
			cpuset_and(&cfg->cpus, &online);
		if (cpuset_empty(&cfg->cpus)) {
			cli_error("--cpus: no online CPU is in this process's affinity mask");
			return EXIT_ENV;
		}
	}
	if (!cfg->output[0])
		default_output(cfg->output, sizeof(cfg->output));
	if (strcmp(cfg->output, "-") != 0 && (rc = util_check_writable(cfg->output)) < 0) {
		cli_error("--output: cannot create '%s': %s", cfg->output, strerror(-rc));
		return EXIT_USAGE;
	}
	cfg->argc = argc;
	cfg->argv = argv;
	return -1;
}

static json_t *cpus_json(const struct cpuset *s)
{
	char buf[1024];

	cpuset_format(s, buf, sizeof(buf));
	return json_string(buf);
}

json_t *cli_config_json(const struct run_config *cfg)
{
	json_t *probes = json_array(), *record = json_array();

	for (unsigned i = 0; i < cfg->nprobes; i++)
		json_array_append_new(probes, json_string(cfg->probes[i]->name));
	for (unsigned i = 0; i < cfg->nrecord; i++)
		json_array_append_new(record, json_string(cfg->record[i]));
	return json_pack(
	    "{s:o, s:o, s:s, s:i, s:I, s:o, s:o, s:o, s:i, s:o, s:b, s:s, s:o, s:s, s:o}", "cpus",
	    cpus_json(&cfg->cpus), "housekeeping_cpus",
	    cpuset_empty(&cfg->housekeeping) ? json_null() : cpus_json(&cfg->housekeeping),
	    "policy", cfg->no_rt ? "SCHED_OTHER" : "SCHED_FIFO", "priority", cfg->priority,
	    "interval_ns", (json_int_t)cfg->interval_ns, "duration_ns",
	    cfg->duration_ns ? json_integer((json_int_t)cfg->duration_ns) : json_null(), "loops",
	    cfg->loops ? json_integer((json_int_t)cfg->loops) : json_null(), "probes", probes,
	    "top_k", (int)cfg->top_k, "dma_latency_us",
	    cfg->dma_latency_us >= 0 ? json_integer(cfg->dma_latency_us) : json_null(), "no_rt",
	    cfg->no_rt, "output", cfg->output, "record", record, "clock", "CLOCK_MONOTONIC",
	    "phases", json_pack("[s]", "all"));
}
