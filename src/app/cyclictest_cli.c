// SPDX-License-Identifier: GPL-2.0-or-later
/* cyclictest_cli: `rtsoak cyclictest [cyclictest options]`, and rtsoak run
 * through a symlink named cyclictest (issue 19): rt-tests 2.x cyclictest's
 * command line, measured by rtsoak's timer probe, written as cyclictest
 * writes it (the -q lines, the -h/-H histogram text, --json in rt-tests
 * layout) with rtsoak's own report beside them (--rtsoak-output).
 *
 * The options become an `rtsoak run` command line (timer probe only, no
 * warm-up: cyclictest has none), which cli_parse_run checks as any run's,
 * so that the two cannot differ in what they accept or how they measure.
 * The views are then written from the report read back from its file,
 * through the same code as `rtsoak report --rt-tests-json` and
 * `--histogram-text`.
 *
 * An option rtsoak cannot honour is refused, exit 2, naming it, before
 * anything is measured: a script that asked for --smi or a priority spread
 * must not get numbers that look as if it had them.  The mapping is the
 * table in rtsoak(1), CYCLICTEST FRONT END. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cpuset.h"
#include "parse.h"
#include "report.h"
#include "session.h"
#include "util.h"
#include "views.h"

/* cyclictest 2.4's HIST_MAX: -h and -H beyond are cut to it. */
#define CT_HIST_MAX 1000000

enum {
	CO_DEFAULT_SYSTEM = 256,
	CO_HISTFILE,
	CO_JSON,
	CO_LATENCY,
	CO_MAINAFFINITY,
	CO_POLICY,
	CO_PRIOSPREAD,
	CO_RTSOAK_OUTPUT,
	CO_HELP,
	/* cyclictest's long-only options that rtsoak refuses */
	CO_LAPTOP,
	CO_SECALIGNED,
	CO_SMI,
	CO_SPIKE,
	CO_SPIKE_NODES,
	CO_TRACEMARK,
	CO_DBG,
};

#define REFUSED "not supported by rtsoak: exit 2"

/* cyclictest 2.4's options (its --help), each honoured or refused; -a and -t take an optional
 * value, also as the next word ("-t 2"), as cyclictest reads them (fixed up in parse()). */
const struct cmdopt cyclictest_cmdopts[] = {
	{ "affinity", 'a', 'a', NULL,
	  "[CPUSET] measure these CPUs (rtsoak --cpus); without CPUSET\nthread N on CPU N",
	  CMDOPT_NONE, NULL },
	{ "threads", 't', 't', NULL,
	  "[NUM] NUM threads: the first NUM CPUs of -a (or of the\nallowed CPUs); without NUM one "
	  "per CPU",
	  CMDOPT_NONE, NULL },
	{ "smp", 'S', 'S', NULL, "-a -t: every allowed CPU, one priority", CMDOPT_NONE, NULL },
	{ "priority", 'p', 'p', "PRIO", "SCHED_FIFO priority 1-99 (rtsoak --priority)", CMDOPT_NONE,
	  NULL },
	{ "policy", 0, CO_POLICY, "NAME", "fifo (rtsoak's); other, normal, batch, idle, rr: exit 2",
	  CMDOPT_WORDS, "fifo other normal batch idle rr" },
	{ "priospread", 0, CO_PRIOSPREAD, NULL, "one thread only (rtsoak: one priority)",
	  CMDOPT_NONE, NULL },
	{ "interval", 'i', 'i', "INTV", "wake-up period in us (rtsoak --interval; default 1000)",
	  CMDOPT_NONE, NULL },
	{ "distance", 'd', 'd', "DIST",
	  "0 only with several threads and no -h (rtsoak wakes every\nthread at the same period)",
	  CMDOPT_NONE, NULL },
	{ "loops", 'l', 'l', "LOOPS", "samples per thread (rtsoak --loops; 0: endless)",
	  CMDOPT_NONE, NULL },
	{ "duration", 'D', 'D', "TIME", "run time, s or m, h, d (rtsoak --duration; 0: endless)",
	  CMDOPT_NONE, NULL },
	{ "histogram", 'h', 'h', "US",
	  "print the histogram, rows 0 to US-1 us, at the end\n(cyclictest -h text)", CMDOPT_NONE,
	  NULL },
	{ "histofall", 'H', 'H', "US", "-h (one thread only: cyclictest's summary column)",
	  CMDOPT_NONE, NULL },
	{ "histfile", 0, CO_HISTFILE, "PATH", "write the histogram there instead of stdout",
	  CMDOPT_FILE, NULL },
	{ "json", 0, CO_JSON, "FILE", "write the results as cyclictest --json (rt-tests layout)",
	  CMDOPT_FILE, NULL },
	{ "rtsoak-output", 0, CO_RTSOAK_OUTPUT, "FILE",
	  "also keep rtsoak's own report there (rtsoak --output)", CMDOPT_FILE, NULL },
	{ "mainaffinity", 0, CO_MAINAFFINITY, "CPUSET",
	  "the main thread's CPUs (rtsoak --housekeeping)", CMDOPT_CPUS, NULL },
	{ "latency", 0, CO_LATENCY, "PM_QOS",
	  "/dev/cpu_dma_latency value (rtsoak --dma-latency;\ndefault 0)", CMDOPT_NONE, NULL },
	{ "default-system", 0, CO_DEFAULT_SYSTEM, NULL, "leave /dev/cpu_dma_latency alone",
	  CMDOPT_NONE, NULL },
	{ "mlockall", 'm', 'm', NULL, "accepted: rtsoak always locks its memory", CMDOPT_NONE,
	  NULL },
	{ "quiet", 'q', 'q', NULL, "print only the summary at the end (rtsoak never prints more)",
	  CMDOPT_NONE, NULL },
	{ "nanosleep", 'n', 'n', NULL, "accepted: clock_nanosleep is rtsoak's timer", CMDOPT_NONE,
	  NULL },
	{ "refresh_on_max", 'M', 'M', NULL, "accepted: rtsoak prints no live lines", CMDOPT_NONE,
	  NULL },
	{ "unbuffered", 'u', 'u', NULL, "accepted: rtsoak prints no live lines", CMDOPT_NONE,
	  NULL },
	{ "clock", 'c', 'c', "CLOCK", "0 (CLOCK_MONOTONIC, rtsoak's); 1: exit 2", CMDOPT_NONE,
	  NULL },
	{ "nsecs", 'N', 'N', NULL, "values in ns (the T: lines, --json); with -h: exit 2",
	  CMDOPT_NONE, NULL },
	{ "aligned", 'A', 'A', "USEC", REFUSED, CMDOPT_NONE, NULL },
	{ "breaktrace", 'b', 'b', "USEC", REFUSED " (rtsoak run --trace explains spikes)",
	  CMDOPT_NONE, NULL },
	{ "fifo", 'F', 'F', "PATH", REFUSED, CMDOPT_FILE, NULL },
	{ "laptop", 0, CO_LAPTOP, NULL, REFUSED, CMDOPT_NONE, NULL },
	{ "oscope", 'o', 'o', "RED", REFUSED, CMDOPT_NONE, NULL },
	{ "relative", 'r', 'r', NULL, REFUSED " (absolute timer only)", CMDOPT_NONE, NULL },
	{ "resolution", 'R', 'R', NULL, REFUSED, CMDOPT_NONE, NULL },
	{ "secaligned", 0, CO_SECALIGNED, NULL, REFUSED, CMDOPT_NONE, NULL },
	{ "system", 's', 's', NULL, REFUSED, CMDOPT_NONE, NULL },
	{ "spike", 0, CO_SPIKE, "TRIGGER", REFUSED, CMDOPT_NONE, NULL },
	{ "spike-nodes", 0, CO_SPIKE_NODES, "NUM", REFUSED, CMDOPT_NONE, NULL },
	{ "smi", 0, CO_SMI, NULL, REFUSED, CMDOPT_NONE, NULL },
	{ "tracemark", 0, CO_TRACEMARK, NULL, REFUSED, CMDOPT_NONE, NULL },
	{ "verbose", 'v', 'v', NULL, REFUSED, CMDOPT_NONE, NULL },
	{ "dbg_cyclictest", 0, CO_DBG, NULL, REFUSED, CMDOPT_NONE, NULL },
	{ "posix_timers", 'x', 'x', NULL, REFUSED, CMDOPT_NONE, NULL },
	{ "help", 0, CO_HELP, NULL, "this help", CMDOPT_NONE, NULL },
	{ NULL, 0, 0, NULL, NULL, CMDOPT_NONE, NULL },
};

static const char usage[] =
    "usage: rtsoak cyclictest [cyclictest options]\n"
    "       cyclictest [cyclictest options]  (rtsoak through a symlink of that name)\n"
    "  rt-tests 2.x cyclictest's command line, measured by rtsoak's timer probe and\n"
    "  written as cyclictest writes it: the final T: lines (or the -h/-H histogram)\n"
    "  on stdout, --json in rt-tests layout; --rtsoak-output keeps rtsoak's report.\n"
    "  Options rtsoak cannot honour exit 2, naming them; see CYCLICTEST FRONT END\n"
    "  in rtsoak(1) for the mapping.\n";

/* What the command line says, in cyclictest's terms. */
struct ct_opts {
	const char *affinity; /* -a CPUSET, NULL */
	bool affinity_given;  /* -a with or without CPUSET */
	long threads;	      /* -1: one per CPU (-t, -S); 0: not given (1) */
	bool smp;
	uint64_t priority;
	bool policy_fifo; /* --policy fifo */
	bool priospread;
	uint64_t interval_us;
	int64_t distance_us; /* -1: not given */
	uint64_t loops;
	const char *duration; /* NULL or "0": endless */
	uint64_t hist;	      /* -h/-H US, 0 none */
	bool histofall;
	const char *histfile, *json, *rtsoak_output, *mainaffinity;
	long latency; /* -1: --default-system */
	bool quiet;
	bool nsecs; /* -N */
};

/* A one-line usage error: "cyclictest: OPTION: why". */
static int ct_bad(const char *opt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ct_bad(const char *opt, const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	rtsoak_error("cyclictest: %s: %s", opt, why);
	return EXIT_USAGE;
}

/* An integer value of option `opt` in [min, max], or the one-line error. */
static int ct_number(const char *opt, const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char err[256];

	if (parse_u64(v, min, max, out, err, sizeof(err)))
		return ct_bad(opt, "%s", err);
	return -1;
}

/* The option as typed, for the refusals: "--smi" or "-b". */
static const char *opt_name(const struct cmdopt *o, char *buf, size_t len)
{
	if (o->letter)
		snprintf(buf, len, "-%c", o->letter);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

/* -a and -t take an optional value; as cyclictest does, a following word that is a number
 * (-t 2) or, for -a, a CPU list (-a 1-3) is that value. */
static const char *optional_value(int argc, char **argv, bool cpulist)
{
	const char *v;

	if (optarg)
		return optarg;
	if (optind >= argc)
		return NULL;
	v = argv[optind];
	if (v[0] < '0' || v[0] > '9')
		return NULL;
	if (!cpulist && strspn(v, "0123456789") != strlen(v))
		return NULL;
	optind++;
	return v;
}

static int parse_one(struct ct_opts *c, int opt, int argc, char **argv)
{
	const struct cmdopt *o = cmdopt_by_val(cyclictest_cmdopts, opt);
	char name[64];
	uint64_t v;
	int rc;

	switch (opt) {
	case 'a':
		c->affinity_given = true;
		c->affinity = optional_value(argc, argv, true);
		return -1;
	case 't':
		c->threads = -1;
		if ((optarg = (char *)optional_value(argc, argv, false))) {
			if ((rc = ct_number("-t", optarg, 1, CPUSET_MAX, &v)) >= 0)
				return rc;
			c->threads = (long)v;
		}
		return -1;
	case 'S':
		c->smp = true;
		c->threads = -1;
		return -1;
	case 'p':
		if ((rc = ct_number("-p", optarg, 0, 99, &c->priority)) >= 0)
			return rc;
		return -1;
	case CO_POLICY:
		if (strcmp(optarg, "fifo"))
			return ct_bad("--policy",
				      "'%s' is not supported by rtsoak, whose timer probe runs "
				      "SCHED_FIFO only (--policy fifo)",
				      optarg);
		c->policy_fifo = true;
		return -1;
	case CO_PRIOSPREAD:
		c->priospread = true;
		return -1;
	case 'i':
		return ct_number("-i", optarg, 1, 1000000000, &c->interval_us);
	case 'd':
		if ((rc = ct_number("-d", optarg, 0, 1000000000, &v)) >= 0)
			return rc;
		c->distance_us = (int64_t)v;
		return -1;
	case 'l':
		return ct_number("-l", optarg, 0, UINT64_MAX / 2, &c->loops);
	case 'D': {
		uint64_t ns;
		char err[256];
		if (strcmp(optarg, "0") &&
		    parse_duration(optarg, NSEC_PER_SEC, &ns, err, sizeof(err)))
			return ct_bad("-D", "%s", err);
		c->duration = optarg;
		return -1;
	}
	case 'H':
		c->histofall = true;
		/* fall through */
	case 'h':
		if ((rc = ct_number(opt == 'h' ? "-h" : "-H", optarg, 1, UINT64_MAX / 2,
				    &c->hist)) >= 0)
			return rc;
		if (c->hist > CT_HIST_MAX)
			c->hist = CT_HIST_MAX; /* as cyclictest cuts it */
		return -1;
	case CO_HISTFILE:
		c->histfile = optarg;
		return -1;
	case CO_JSON:
		c->json = optarg;
		return -1;
	case CO_RTSOAK_OUTPUT:
		c->rtsoak_output = optarg;
		return -1;
	case CO_MAINAFFINITY:
		c->mainaffinity = optarg;
		return -1;
	case CO_LATENCY:
		if ((rc = ct_number("--latency", optarg, 0, 2000000000, &v)) >= 0)
			return rc;
		c->latency = (long)v;
		return -1;
	case CO_DEFAULT_SYSTEM:
		c->latency = -1;
		return -1;
	case 'q':
		c->quiet = true;
		return -1;
	case 'N':
		c->nsecs = true;
		return -1;
	case 'm': /* rtsoak mlockall()s every run */
	case 'n': /* clock_nanosleep(TIMER_ABSTIME) is the timer probe */
	case 'M': /* no live lines to delay or flush */
	case 'u':
		return -1;
	case 'c':
		if (strcmp(optarg, "0"))
			return ct_bad("-c",
				      "clock '%s' is not supported by rtsoak, which measures "
				      "CLOCK_MONOTONIC only (-c 0)",
				      optarg);
		return -1;
	case CO_HELP:
		cli_command_usage(stdout, usage, cyclictest_cmdopts);
		return EXIT_OK;
	case ':':
		rtsoak_error("cyclictest: %s needs a value", argv[optind - 1]);
		return EXIT_USAGE;
	case '?':
		return cli_unknown_option("cyclictest", argv[optind - 1], cyclictest_cmdopts);
	default:
		return ct_bad(
		    o ? opt_name(o, name, sizeof(name)) : "?",
		    "not supported by rtsoak's cyclictest front end (see CYCLICTEST FRONT "
		    "END in rtsoak(1))");
	}
}

/* The cyclictest options.  -1 to go on, or the exit code. */
static int parse(struct ct_opts *c, int argc, char **argv)
{
	struct option longs[64];
	char shorts[128];
	int opt, rc;

	*c = (struct ct_opts){ .interval_us = 1000, .distance_us = -1 };
	if (cmdopt_getopt(cyclictest_cmdopts, longs, 64, shorts, sizeof(shorts)))
		return EXIT_USAGE; /* the table outgrew the arrays: a bug */
	/* -a and -t: optional values (getopt's "a::"), as cyclictest declares them. */
	for (size_t i = 0; longs[i].name; i++)
		if (longs[i].val == 'a' || longs[i].val == 't')
			longs[i].has_arg = optional_argument;
	char fixed[sizeof(shorts) + 8], *f = fixed;
	for (const char *s = shorts; *s; s++) {
		*f++ = *s;
		if (*s == 'a' || *s == 't') {
			*f++ = ':';
			*f++ = ':';
		}
	}
	*f = '\0';
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, fixed, longs, NULL)) != -1)
		if ((rc = parse_one(c, opt, argc, argv)) >= 0)
			return rc;
	if (optind < argc)
		return ct_bad(argv[optind], "unexpected argument (cyclictest takes no operands)");
	return -1;
}

/* The CPUs to measure, cyclictest's threads mapped one per CPU: -a CPUSET's first N (its
 * round-robin order), -a alone CPUs 0..N-1, else the first N allowed CPUs.  -1 to go on. */
static int measured_cpus(const struct ct_opts *c, char *buf, size_t len, long *nthreads)
{
	struct cpuset pool, cpus;
	char err[256];
	long n = c->threads ? c->threads : 1;
	int cpu = -1;

	cpuset_clear(&cpus);
	if (c->affinity_given && c->smp)
		rtsoak_error("cyclictest: warning: -a ignored due to --smp"); /* as cyclictest */
	if (c->affinity && !c->smp) {
		if (cpuset_parse(&pool, c->affinity, err, sizeof(err)))
			return ct_bad("-a", "%s", err);
	} else if (c->affinity_given && !c->smp && n > 0) {
		cpuset_clear(&pool); /* thread N on CPU N */
		for (long i = 0; i < n && i < CPUSET_MAX; i++)
			cpuset_set(&pool, (int)i);
	} else if (cpuset_allowed(&pool) < 0) {
		rtsoak_error("cyclictest: cannot read this process's CPU affinity: %s",
			     strerror(errno));
		return EXIT_ENV;
	}
	if (n < 0)
		n = cpuset_count(&pool);
	if (n > cpuset_count(&pool))
		return ct_bad("-t", "%ld threads on %d CPUs: rtsoak measures one thread per CPU", n,
			      cpuset_count(&pool));
	for (long i = 0; i < n; i++) {
		cpu = cpuset_next(&pool, cpu + 1);
		cpuset_set(&cpus, cpu);
	}
	/* in cyclictest's terms rather than as rtsoak's --cpus (which checks it again) */
	if (cpuset_online(&pool) == 0 && (cpu = cpuset_first_missing(&cpus, &pool)) >= 0) {
		char online[256];
		cpuset_format(&pool, online, sizeof(online));
		return ct_bad("-a", "CPU %d is not online (online: %s)", cpu, online);
	}
	cpuset_format(&cpus, buf, len);
	*nthreads = n;
	return -1;
}

/* What cyclictest would do that rtsoak cannot, as a refusal; -1 when none. */
static int unhonourable(const struct ct_opts *c, long nthreads)
{
	if (nthreads > 1 && c->priospread)
		return ct_bad("--priospread",
			      "rtsoak runs every thread at one priority; drop it or "
			      "measure one thread");
	if (nthreads > 1 && c->histofall)
		return ct_bad("-H", "the summary column of several threads is not supported by "
				    "rtsoak; use -h");
	/* Without -h, cyclictest gives thread N the interval I + N*DIST (default 500 us). */
	if (nthreads > 1 && !c->hist && c->distance_us != 0)
		return ct_bad("-d",
			      "rtsoak wakes every thread at the same interval, cyclictest "
			      "%ld us apart: give -d 0 (or -h US)",
			      c->distance_us < 0 ? 500L : (long)c->distance_us);
	if (!c->priority && !c->policy_fifo && !c->priospread)
		return ct_bad("-p", "without -p cyclictest measures SCHED_OTHER threads; rtsoak's "
				    "timer probe runs SCHED_FIFO: give -p PRIO");
	if (c->nsecs && c->hist)
		return ct_bad("-N", "with -h: cyclictest's 1 ns rows are finer than rtsoak's "
				    "histogram buckets; drop -N or -h");
	if (c->loops && c->duration && strcmp(c->duration, "0"))
		return ct_bad("-l", "with -D: cyclictest stops at whichever comes first, rtsoak "
				    "after one of them: give -l or -D");
	if (c->histfile && !c->hist)
		return ct_bad("--histfile", "needs -h US (or -H US)");
	return -1;
}

/* The rtsoak run command line, and the run. */
struct ct_run {
	char *argv[40];
	int argc;
	char cpus[256], prio[16], intv[32], loops[32], latency[32], out[PATH_MAX];
	bool temp_output;
};

static void add(struct ct_run *run, const char *a, const char *b)
{
	run->argv[run->argc++] = (char *)a;
	if (b)
		run->argv[run->argc++] = (char *)b;
	run->argv[run->argc] = NULL;
}

/* A path for the report when --rtsoak-output is not given: a new file in $TMPDIR, removed
 * at the end.  -1 to go on, or the exit code. */
static int temp_report(struct ct_run *run)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(run->out, sizeof(run->out), "%s/rtsoak-cyclictest-XXXXXX.json",
		 dir && *dir ? dir : "/tmp");
	if ((fd = mkstemps(run->out, 5)) < 0) {
		rtsoak_error("cyclictest: cannot create %s: %s", run->out, strerror(errno));
		return EXIT_ENV;
	}
	close(fd);
	run->temp_output = true;
	return -1;
}

/* The views cyclictest would have written, from the report in `path`. */
static int write_views(const struct ct_opts *c, const char *path, int priority)
{
	struct report r;
	int rc, status = EXIT_OK;

	if ((rc = cli_report_read("cyclictest", path, &r)) >= 0)
		return rc;
	if (c->json && (rc = rttests_json_write_rows(&r, c->json, (long)c->hist, c->nsecs)) < 0) {
		rtsoak_error("cyclictest: --json %s: %s", c->json, strerror(-rc));
		status = EXIT_ENV;
	}
	if (c->hist) {
		const char *to = c->histfile ? c->histfile : "-";
		fflush(stdout);
		if ((rc = report_histogram_text_write_rows(&r, to, (size_t)c->hist)) < 0) {
			rtsoak_error("cyclictest: histogram %s: %s", to, strerror(-rc));
			status = EXIT_ENV;
		}
	}
	if (!c->hist || c->histfile)
		cyclictest_text_print(&r, stdout, (int)getpid(), priority, (long)c->interval_us,
				      c->nsecs);
	report_free(&r);
	return status;
}

int cyclictest_main(int argc, char **argv, int full_argc, char **full_argv)
{
	static struct run_config cfg; /* large: not on the stack */
	struct ct_opts c;
	struct ct_run run = { 0 };
	long nthreads = 1;
	int rc, priority;

	if ((rc = parse(&c, argc, argv)) >= 0)
		return rc;
	if ((rc = measured_cpus(&c, run.cpus, sizeof(run.cpus), &nthreads)) >= 0)
		return rc;
	if ((rc = unhonourable(&c, nthreads)) >= 0)
		return rc;
	/* process_options()'s defaulting: a policy or spread without -p is nthreads + 1. */
	priority = c.priority ? (int)c.priority : (int)nthreads + 1;
	if (priority > 99)
		return ct_bad("-p", "the default priority %d (threads + 1) is above 99: give -p",
			      priority);
	if (c.json && cli_output_writable("cyclictest", "--json", c.json, OUTPUT_JSON, NULL) < 0)
		return EXIT_USAGE;
	if (c.histfile &&
	    cli_output_writable("cyclictest", "--histfile", c.histfile, OUTPUT_TEXT, NULL) < 0)
		return EXIT_USAGE;

	add(&run, "cyclictest", NULL);
	add(&run, "--probes", "timer");
	add(&run, "--cpus", run.cpus);
	snprintf(run.prio, sizeof(run.prio), "%d", priority);
	add(&run, "--priority", run.prio);
	snprintf(run.intv, sizeof(run.intv), "%luus", (unsigned long)c.interval_us);
	add(&run, "--interval", run.intv);
	add(&run, "--warmup", "0");
	add(&run, "--checkpoint", "0");
	add(&run, "--quiet", NULL);
	add(&run, "--color", "never");
	if (c.loops) {
		snprintf(run.loops, sizeof(run.loops), "%llu", (unsigned long long)c.loops);
		add(&run, "--loops", run.loops);
	}
	if (c.duration && strcmp(c.duration, "0"))
		add(&run, "--duration", c.duration);
	else if (!c.loops)
		add(&run, "--duration", "3650d"); /* cyclictest's endless: until a signal */
	if (c.mainaffinity)
		add(&run, "--housekeeping", c.mainaffinity);
	if (c.latency >= 0) {
		snprintf(run.latency, sizeof(run.latency), "%ld", c.latency);
		add(&run, "--dma-latency", run.latency);
	}
	if (c.rtsoak_output)
		snprintf(run.out, sizeof(run.out), "%s", c.rtsoak_output);
	else if ((rc = temp_report(&run)) >= 0)
		return rc;
	add(&run, "--output", run.out);

	if ((rc = cli_parse_run(&cfg, run.argc, run.argv)) >= 0)
		goto out;
	if (c.latency >= 0)
		printf("# /dev/cpu_dma_latency set to %ldus\n", c.latency);
	fflush(stdout);
	/* The report records the command line as typed, as cyclictest's "cmdline:". */
	cfg.argc = full_argc;
	cfg.argv = full_argv;
	rc = session_run(&cfg);
	tweak_set_free(&cfg.tweaks);
	lock_release(&cfg.output_lock);
	if (rc == EXIT_OK || rc == EXIT_LIMIT) {
		int views = write_views(&c, run.out, priority);
		if (views != EXIT_OK)
			rc = views;
	}
out:
	if (run.temp_output)
		unlink(run.out);
	return rc;
}
