// SPDX-License-Identifier: GPL-2.0-or-later
/* main: the subcommand table and its dispatch, nothing else (src/main.c;
 * the commands live in src/app/ and src/probe/reflect.c). */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmdopt.h"
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

/* The commands that take no option but --help (restore, sysinfo, probes,
 * loads, version, help): their table, for the help and the completion. */
static const struct cmdopt help_only[] = {
	{ "help", 'h', 'h', NULL, "this help", CMDOPT_NONE, NULL },
	{ NULL, 0, 0, NULL, NULL, CMDOPT_NONE, NULL },
};

/* --help or -h among argv[1..] (it wins, as in the commands that parse
 * options with getopt). */
static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

static void print_usage(const char *synopsis)
{
	printf("usage: rtsoak %s\n\nOptions:\n", synopsis);
	cmdopt_usage(stdout, help_only);
}

/* rtsoak restore JOURNAL: put back what a crashed run changed. */
static int cmd_restore(int argc, char **argv)
{
	char err[1024] = "";
	int rc;

	if (wants_help(argc, argv)) {
		print_usage("restore JOURNAL  (the REPORT.journal a run with --set left)");
		return EXIT_OK;
	}
	if (argc != 2) {
		rtsoak_error("restore: expected one journal file (usage: rtsoak restore JOURNAL)");
		return EXIT_USAGE;
	}
	/* restore takes no option: `restore --force J` must not read a file
	 * named "--force" (a journal whose name starts with '-': ./-J). */
	if (argv[1][0] == '-' && argv[1][1]) {
		char arg[128], hint[96];
		bool near = *cmdopt_hint(help_only, argv[1], hint, sizeof(hint));
		rtsoak_error("restore: unknown option '%s' (%s)",
			     util_escape(argv[1], arg, sizeof(arg)),
			     near ? hint : "usage: rtsoak restore JOURNAL");
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
	char arg[128], synopsis[64], hint[96];

	if (wants_help(argc, argv)) {
		snprintf(synopsis, sizeof(synopsis), "%s  (takes no arguments)", cmd);
		print_usage(synopsis);
		return EXIT_OK;
	}
	if (argc < 2)
		return -1;
	/* "--hlep": a near miss of --help gets its hint. */
	util_escape(argv[1], arg, sizeof(arg));
	if (argv[1][0] == '-' && *cmdopt_hint(help_only, argv[1], hint, sizeof(hint)))
		rtsoak_error("%s: unexpected argument '%s' (%s)", cmd, arg, hint);
	else
		rtsoak_error("%s: unexpected argument '%s' (usage: rtsoak %s, no arguments)", cmd,
			     arg, cmd);
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
	cli_version(stdout);
	return EXIT_OK;
}

/* The subcommands, as git's cmd_struct: dispatch, the unknown-command
 * message and `rtsoak help`'s list all come from here.  A handler gets the
 * command's own argv (argv[0] is its name); run and ab also get the whole
 * command line, which the report records as typed. */
static int cmd_complete_spec(int argc, char **argv);

/* The subcommands, as git's cmd_struct: dispatch, the unknown-command
 * message, `rtsoak help`'s list, `rtsoak help CMD` and the completion data
 * all come from here.  opts is the option table that parses the command
 * (cmdopt.h; run and ab: cli_cmdopts(), built with the probes' aliases);
 * args what its positional arguments are, for the completion. */
static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	int (*fn_run)(int argc, char **argv, int full_argc, char **full_argv);
	const char *summary;
	const struct cmdopt *opts;
	enum cmdopt_complete args;
} commands[] = {
	{ "run", NULL, cmd_run, "measure wake-up latency and write a report (the default)", NULL,
	  CMDOPT_NONE },
	{ "ab", NULL, cmd_ab, "A/B rounds in ABBA order: with and without --set tweaks", NULL,
	  CMDOPT_NONE },
	{ "sysinfo", cmd_sysinfo, NULL, "print the system snapshot a report records", help_only,
	  CMDOPT_NONE },
	{ "check", check_cli_main, NULL, "check the real-time tuning of the machine (no measuring)",
	  check_cmdopts, CMDOPT_NONE },
	{ "report", report_main, NULL, "read a report (or cyclictest --json) and render views",
	  report_cmdopts, CMDOPT_FILE },
	{ "compare", compare_main, NULL, "compare two reports: verdicts, changes, --fail-if",
	  compare_cmdopts, CMDOPT_FILE },
	{ "restore", cmd_restore, NULL, "put back what a crashed run with --set changed", help_only,
	  CMDOPT_FILE },
	{ "probes", cmd_probes, NULL, "list the probes", help_only, CMDOPT_NONE },
	{ "loads", cmd_loads, NULL, "list the loads and their options", help_only, CMDOPT_NONE },
	{ "cyclictest", NULL, cyclictest_main,
	  "cyclictest's options and outputs, measured by rtsoak (also as a symlink)",
	  cyclictest_cmdopts, CMDOPT_NONE },
	{ "reflect", reflect_main, NULL, "UDP echo server for net:target= round trips",
	  reflect_cmdopts, CMDOPT_NONE },
	{ "help", cmd_help, NULL, "this help, or a command's: rtsoak help COMMAND", help_only,
	  CMDOPT_COMMAND },
	{ "version", cmd_version, NULL, "print the version", help_only, CMDOPT_NONE },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cmdopt *command_opts(const struct command *c)
{
	return c->opts ? c->opts : cli_cmdopts();
}

static const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* Why `name` is no command, as the end of a one-line error: the nearest
 * command when it is a near miss, else the list. */
static const char *command_hint(const char *name, char *buf, size_t len)
{
	const char *names[NCOMMANDS + 1];
	const char *near;

	for (size_t i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i].name;
	names[NCOMMANDS] = NULL;
	if ((near = cmdopt_suggest_word(names, name))) {
		snprintf(buf, len, "did you mean %s?", near);
		return buf;
	}
	snprintf(buf, len, "commands: ");
	for (size_t i = 0; i < NCOMMANDS; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "",
			 commands[i].name);
	return buf;
}

/* A command's handler, given its own argv. */
static int command_call(const struct command *c, int argc, char **argv, int full_argc,
			char **full_argv)
{
	if (c->fn_run)
		return c->fn_run(argc, argv, full_argc, full_argv);
	return c->fn(argc, argv);
}

/* rtsoak help [COMMAND]: the general help, or the command's own --help
 * (the same handler prints it, from the same table that parses it). */
static int cmd_help(int argc, char **argv)
{
	char arg[128], hint[256];

	if (wants_help(argc, argv)) {
		print_usage("help [COMMAND]  (COMMAND's options; without: the commands)");
		return EXIT_OK;
	}
	if (argc == 2 && command_find(argv[1])) {
		const struct command *c = command_find(argv[1]);
		char *help_argv[] = { argv[1], (char *)"--help", NULL };
		return command_call(c, 2, help_argv, 2, help_argv);
	}
	if (argc == 2 && argv[1][0] == '-' &&
	    *cmdopt_hint(help_only, argv[1], hint, sizeof(hint))) {
		rtsoak_error("help: unknown option '%s' (%s)",
			     util_escape(argv[1], arg, sizeof(arg)), hint);
		return EXIT_USAGE;
	}
	if (argc >= 2) {
		rtsoak_error("help: unexpected argument '%s' (%s)",
			     util_escape(argv[argc == 2 ? 1 : 2], arg, sizeof(arg)),
			     argc == 2 ? command_hint(argv[1], hint, sizeof(hint))
				       : "usage: rtsoak help [COMMAND]");
		return EXIT_USAGE;
	}
	cli_usage(stdout);
	puts("\nCommands (rtsoak help COMMAND or rtsoak COMMAND --help for each):");
	for (size_t i = 0; i < NCOMMANDS; i++)
		printf("  %-9s %s\n", commands[i].name, commands[i].summary);
	return EXIT_OK;
}

/* rtsoak __complete-spec (not listed): the data the build turns into the
 * bash completion (contrib/rtsoak.bash.in), from the tables above, the
 * commands' option tables and the load and probe registries. */
static int cmd_complete_spec(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		rtsoak_error("__complete-spec: takes no arguments");
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < NCOMMANDS; i++)
		printf("cmd %s\n", commands[i].name);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		cmdopt_spec(stdout, commands[i].name, command_opts(&commands[i]));
		if (commands[i].args != CMDOPT_NONE)
			printf("arg %s %s\n", commands[i].name,
			       cmdopt_complete_name(commands[i].args));
	}
	cli_list_complete(stdout);
	return EXIT_OK;
}

static int dispatch(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	const struct command *c;
	char hint[256], arg[128];

	/* No subcommand, or options first: `rtsoak` means `rtsoak run`.  A
	 * lone -h/--help is the general help; `-h 1000` (cyclictest's
	 * histogram) goes to run, which refuses it. */
	if (!cmd || cmd[0] == '-') {
		if (argc == 2 && (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")))
			return cmd_help(1, argv + 1);
		return cmd_run(argc, argv, argc, argv);
	}
	if ((c = command_find(cmd)))
		return command_call(c, argc - 1, argv + 1, argc, argv);
	if (!strcmp(cmd, "__complete-spec"))
		return cmd_complete_spec(argc - 1, argv + 1);
	rtsoak_error("unknown command '%s' (%s)", util_escape(cmd, arg, sizeof(arg)),
		     command_hint(cmd, hint, sizeof(hint)));
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
	const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;

	/* A symlink named cyclictest (issue 19): the whole command line is
	 * cyclictest's. */
	base = base ? base + 1 : argc > 0 ? argv[0] : "";
	if (!strcmp(base, "cyclictest"))
		return close_stdout(cyclictest_main(argc, argv, argc, argv));
	return close_stdout(dispatch(argc, argv));
}
