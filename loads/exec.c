// SPDX-License-Identifier: GPL-2.0-or-later
/* exec: any external command as a load, e.g. `exec:cmd=stress-ng --cpu 2`
 * or a kernel build (`exec:cmd=make -C /usr/src/linux -j4 >/dev/null`).
 *
 * One worker, floating over all load CPUs: the worker process forks
 * `/bin/sh -c CMD` and waits for it, so the command inherits its affinity
 * (all of the load's cpus=), its nice (default 10 for exec), SCHED_OTHER
 * and its process group, but not the signal dispositions and mask of the
 * worker (reset to the defaults before the exec).  The worker is a child
 * subreaper (PR_SET_CHILD_SUBREAPER): what the command leaves behind, even
 * a daemon that left the process group with setsid(), is reparented to the
 * worker, which kills and reaps every descendant when the command exits or
 * the load is stopped.  A command that daemonizes is therefore a command
 * that exited: its daemon goes with it and it is restarted like any other
 * (run it in the foreground).  If the worker itself is SIGKILLed, the
 * supervisor (a subreaper too) inherits the rest and kills it at the end.
 * The supervisor still kills the worker's whole process group on a stop.
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
 * restarted with back-off when it exits: the worker exits as the command
 * did (its code, or its signal again).  One op is one start of the
 * command, counted just before the fork (the counters are shared memory).
 * If execl() itself fails, the error is counted and the command's process
 * exits 127, as a shell does for a command it cannot run. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

/* In the command's process, before exec: what a command expects to
 * inherit from a shell, not what rtsoak's worker needed.  The supervisor
 * and the worker ignore SIGINT, SIGHUP and SIGUSR2 (Ctrl-C and the
 * checkpoint signal are rtsoak's), and an ignored signal stays ignored
 * across exec: a command would silently never see them. */
static void exec_child(const char *cmd, struct load_counters *ctr, pid_t worker)
{
	sigset_t none;
	int fd = open("/dev/null", O_RDONLY);

	if (fd < 0 || (fd != STDIN_FILENO && dup2(fd, STDIN_FILENO) < 0))
		load_count_error(ctr, errno);
	if (fd > STDIN_FILENO)
		close(fd);
	if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		load_count_error(ctr, errno);
	/* By the system call: glibc's sigaction() refuses its own signals
	 * (32, 33), which an ignoring parent leaves ignored all the same.  An
	 * all-zero kernel sigaction is SIG_DFL on every architecture. */
	for (int sig = 1; sig < NSIG; sig++) {
		static const unsigned long dfl[8];
		(void)syscall(SYS_rt_sigaction, sig, dfl, NULL, (size_t)(NSIG - 1) / 8);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Dies with its worker, as the command did when it was the worker
	 * (and not at all if the worker died before the prctl). */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != worker)
		_exit(127);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	load_count_error(ctr, errno);
	_exit(127);
}

/* The worker's exit as the command's: its code, or its signal again (with
 * no core: the command's crash is not ours to dump). */
static int exec_mirror(int status)
{
	if (WIFSIGNALED(status)) {
		struct rlimit none = { 0, 0 };
		setrlimit(RLIMIT_CORE, &none);
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}

static int exec_run(struct load_worker *w)
{
	const char *cmd = load_opt_str(w->inst, "cmd");
	int status = 0;
	pid_t pid, r;

	/* Whatever the command leaves behind (a daemon that setsid() out of
	 * the process group) is reparented to this worker, not to init. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		load_count_error(w->ctr, errno);
	if (*w->stop)
		return 0;
	load_count(w->ctr, 1, 0);
	pid_t worker = getpid();
	if ((pid = fork()) < 0) {
		load_count_error(w->ctr, errno);
		return 127;
	}
	if (pid == 0)
		exec_child(cmd, w->ctr, worker);
	/* Until the command exits or the supervisor stops us (SIGTERM to the
	 * group, which the command gets too); orphans are reaped meanwhile. */
	while (!*w->stop) {
		r = waitpid(-1, &status, 0);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			status = 0;
			break;
		}
	}
	load_kill_children();
	return *w->stop ? 0 : exec_mirror(status);
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
