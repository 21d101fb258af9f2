/* main: the subcommand table and its dispatch, nothing else (src/main.c;
 * the commands live in src/app/ and src/probe/reflect.c). */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "probe.h"
#include "reflect.h"
#include "session.h"
#include "sysinfo.h"
#include "util.h"

static int cmd_run(int argc, char **argv, int full_argc, char **full_argv)
{
	static struct run_config cfg; /* large (output path, cpusets): not on the stack */
	int rc = cli_parse_run(&cfg, argc, argv);

	if (rc >= 0)
		return rc;
	/* The report records the command line as typed. */
	cfg.argc = full_argc;
	cfg.argv = full_argv;
	rc = session_run(&cfg);
	/* The report is written: the locks go (a journal left on disk keeps
	 * its record). */
	tweak_set_free(&cfg.tweaks);
	lock_release(&cfg.output_lock);
	return rc;
}

/* rtsoak ab: a run whose phases are A and B rounds (cli_parse_ab). */
static int cmd_ab(int argc, char **argv, int full_argc, char **full_argv)
{
	static struct run_config cfg;
	int rc = cli_parse_ab(&cfg, argc, argv);

	if (rc >= 0)
		return rc;
	cfg.argc = full_argc;
	cfg.argv = full_argv;
	rc = session_run(&cfg);
	tweak_set_free(&cfg.tweaks);
	lock_release(&cfg.output_lock);
	return rc;
}

/* rtsoak restore JOURNAL: put back what a crashed run changed. */
static int cmd_restore(int argc, char **argv)
{
	char err[1024] = "";
	int rc;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			puts("usage: rtsoak restore JOURNAL  (the REPORT.journal a run with --set "
			     "left)");
			return EXIT_OK;
		}
	if (argc != 2) {
		rtsoak_error("restore: expected one journal file (usage: rtsoak restore JOURNAL)");
		return EXIT_USAGE;
	}
	/* restore takes no option: `restore --force J` must not read a file
	 * named "--force" (a journal whose name starts with '-': ./-J). */
	if (argv[1][0] == '-' && argv[1][1]) {
		char arg[128];
		rtsoak_error("restore: unknown option '%s' (usage: rtsoak restore JOURNAL)",
			     util_escape(argv[1], arg, sizeof(arg)));
		return EXIT_USAGE;
	}
	rc = tweak_journal_restore(argv[1], stdout, err, sizeof(err));
	if (rc != EXIT_OK && err[0])
		rtsoak_error("restore: %s", err);
	return rc;
}

/* The commands that take no argument but -h/--help.  Anything else
 * is an error rather than ignored: `rtsoak loads --bogus` exiting 0 would
 * hide a typo (issue 12, item 9).  Returns -1 to go on, or the exit code. */
static int no_arguments(int argc, char **argv, const char *cmd)
{
	char arg[128];

	/* --help wins, as in the commands that parse options (getopt). */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: rtsoak %s  (takes no arguments)\n", cmd);
			return EXIT_OK;
		}
	if (argc < 2)
		return -1;
	rtsoak_error("%s: unexpected argument '%s' (usage: rtsoak %s, no arguments)", cmd,
		     util_escape(argv[1], arg, sizeof(arg)), cmd);
	return EXIT_USAGE;
}

static int cmd_sysinfo(int argc, char **argv)
{
	json_t *sys;

	int rc = no_arguments(argc, argv, "sysinfo");

	if (rc >= 0)
		return rc;
	sys = sysinfo_snapshot();
	if (!sys) {
		rtsoak_error("sysinfo: out of memory");
		return EXIT_ENV;
	}
	json_dumpf(sys, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(sys);
	return EXIT_OK;
}

static int cmd_probes(int argc, char **argv)
{
	int rc = no_arguments(argc, argv, "probes");

	if (rc >= 0)
		return rc;
	cli_list_probes(stdout);
	return EXIT_OK;
}

static int cmd_loads(int argc, char **argv)
{
	int rc = no_arguments(argc, argv, "loads");

	if (rc >= 0)
		return rc;
	cli_list_loads(stdout);
	return EXIT_OK;
}

static int cmd_help(int argc, char **argv);

static int cmd_version(int argc, char **argv)
{
	int rc = no_arguments(argc, argv, "version");

	if (rc >= 0)
		return rc;
	printf("rtsoak %s\n", PACKAGE_VERSION);
	return EXIT_OK;
}

/* The subcommands, as git's cmd_struct: dispatch, the unknown-command
 * message and `rtsoak help`'s list all come from here.  A handler gets the
 * command's own argv (argv[0] is its name); run and ab also get the whole
 * command line, which the report records as typed. */
static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	int (*fn_run)(int argc, char **argv, int full_argc, char **full_argv);
	const char *summary;
} commands[] = {
	{ "run", NULL, cmd_run, "measure wake-up latency and write a report (the default)" },
	{ "ab", NULL, cmd_ab, "A/B rounds in ABBA order: with and without --set tweaks" },
	{ "sysinfo", cmd_sysinfo, NULL, "print the system snapshot a report records" },
	{ "check", check_cli_main, NULL,
	  "check the real-time tuning of the machine (no measuring)" },
	{ "report", report_main, NULL, "read a report (or cyclictest --json) and render views" },
	{ "compare", compare_main, NULL, "compare two reports: verdicts, changes, --fail-if" },
	{ "restore", cmd_restore, NULL, "put back what a crashed run with --set changed" },
	{ "probes", cmd_probes, NULL, "list the probes" },
	{ "loads", cmd_loads, NULL, "list the loads and their options" },
	{ "reflect", reflect_main, NULL, "UDP echo server for net:target= round trips" },
	{ "help", cmd_help, NULL, "this help" },
	{ "version", cmd_version, NULL, "print the version" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static int cmd_help(int argc, char **argv)
{
	int rc = no_arguments(argc, argv, "help");

	if (rc >= 0)
		return rc;
	cli_usage(stdout);
	puts("\nCommands (rtsoak COMMAND --help for each):");
	for (size_t i = 0; i < NCOMMANDS; i++)
		printf("  %-9s %s\n", commands[i].name, commands[i].summary);
	return EXIT_OK;
}

static int dispatch(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	char list[256] = "";

	/* No subcommand, or options first: `rtsoak` means `rtsoak run`. */
	if (!cmd || cmd[0] == '-') {
		if (cmd && (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")))
			return cmd_help(1, argv + 1);
		return cmd_run(argc, argv, argc, argv);
	}
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const struct command *c = &commands[i];
		if (strcmp(cmd, c->name))
			continue;
		if (c->fn_run)
			return c->fn_run(argc - 1, argv + 1, argc, argv);
		return c->fn(argc - 1, argv + 1);
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 commands[i].name);
	rtsoak_error("unknown command '%s' (commands: %s)", cmd, list);
	return EXIT_USAGE;
}

/* Standard output is buffered: a full disk, /dev/full or a broken device
 * shows up only when it is flushed, after the command has decided it
 * succeeded.  Every command's output is checked here, once. */
static int close_stdout(int rc)
{
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		rtsoak_error("cannot write standard output: %s", strerror(errno ? errno : EIO));
		return rc == EXIT_OK || rc == EXIT_LIMIT ? EXIT_ENV : rc;
	}
	return rc;
}

int main(int argc, char **argv)
{
	return close_stdout(dispatch(argc, argv));
}
