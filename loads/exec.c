// SPDX-License-Identifier: GPL-2.0-or-later
/* exec: any external command as a load, e.g. `exec:cmd=stress-ng --cpu 2`
 * or a kernel build (`exec:cmd=make -C /usr/src/linux -j4 >/dev/null`).
 *
 * One worker, floating over all load CPUs: the worker process becomes
 * `/bin/sh -c CMD`, so the command inherits its affinity (all of the load's
 * cpus=), its nice (default 10 for exec), SCHED_OTHER, PR_SET_PDEATHSIG and
 * its process group.  That process group is why the command and everything
 * it starts can be stopped as a whole: the supervisor kills the group, not
 * just the shell (Debian's dash forks even a lone `sleep 100` as a child,
 * so a kill of the worker's pid alone would orphan it).  Descendants that
 * leave the group (setsid, daemons) escape it and are not cleaned up.
 *
 * What it stresses is whatever the command does; the point is to reuse
 * existing stressors and real workloads (a kernel build mixes fork/exec,
 * page-cache and page-fault traffic, and short CPU bursts) without writing
 * them as loads.
 *
 * The command's stdin is /dev/null (it must not read the terminal rtsoak
 * runs in) and its stdout goes to stderr, so that `rtsoak -o -` still
 * writes a clean report to stdout; redirect inside CMD to silence it.
 *
 * Exit statuses are recorded by the supervisor, and the command is
 * restarted with back-off when it exits.  Because a successful execl()
 * never returns, one op is one start of the command, counted just before
 * execl() (the counters are shared memory, so the count survives the exec).
 * If execl() itself fails, the error is counted and the worker exits 127,
 * as a shell does for a command it cannot run. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "load.h"

static const struct opt exec_options[] = {
	{ .name = "cmd",
	  .type = OPT_STRING,
	  .def = NULL,
	  .help = "shell command line run with /bin/sh -c (takes the rest of the spec)",
	  .rest = true },
	{ .name = NULL },
};

static const char *exec_unavailable(void)
{
	return access("/bin/sh", X_OK) ? "/bin/sh is not executable" : NULL;
}

static int exec_check(const struct load_instance *inst, char *err, size_t errlen)
{
	const char *cmd = load_opt_str(inst, "cmd");

	while (cmd && isspace((unsigned char)*cmd))
		cmd++;
	if (!cmd || !*cmd) {
		snprintf(err, errlen, "exec: cmd is empty");
		return -EINVAL;
	}
	return 0;
}

static unsigned exec_workers(const struct load_instance *inst, bool *pinned)
{
	*pinned = false;
	return 1;
}

static int exec_run(struct load_worker *w)
{
	const char *cmd = load_opt_str(w->inst, "cmd");
	int fd = open("/dev/null", O_RDONLY);

	if (fd < 0 || (fd != STDIN_FILENO && dup2(fd, STDIN_FILENO) < 0))
		load_count_error(w->ctr, errno);
	if (fd > STDIN_FILENO)
		close(fd);
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		load_count_error(w->ctr, errno);
	if (*w->stop)
		return 0;
	load_count(w->ctr, 1, 0);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	load_count_error(w->ctr, errno);
	return 127;
}

const struct load_ops load_exec_ops = {
	.name = "exec",
	.summary = "an external command (/bin/sh -c CMD), restarted when it exits; op = one start",
	.options = exec_options,
	.default_nice = 10,
	.unavailable = exec_unavailable,
	.check = exec_check,
	.workers = exec_workers,
	.run = exec_run,
};
