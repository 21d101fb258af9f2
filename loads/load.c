// SPDX-License-Identifier: GPL-2.0-or-later
/* load: option access and helpers shared by every load, and the --loads
 * spec parser.  Options come from each load's table, so parsing, `rtsoak
 * loads` and the report's config echo all read the same data. */
#include <config.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "load.h"
#include "opt.h"
#include "util.h"

static const struct opt_value *value_of(const struct load_instance *inst, const char *name)
{
	int i = opt_index(inst->ops->options, name);

	if (i < 0) {
		fprintf(stderr, "rtsoak: bug: load '%s' has no option '%s'\n", inst->ops->name,
			name);
		abort();
	}
	return &inst->val[i];
}

int64_t load_opt_int(const struct load_instance *inst, const char *name)
{
	return value_of(inst, name)->i;
}

const char *load_opt_str(const struct load_instance *inst, const char *name)
{
	return value_of(inst, name)->s;
}

/* The parent pid from /proc/PID/stat: after the last ')' (a comm may hold
 * one), "S PPID ...".  -1 when the process is gone or unreadable. */
static pid_t parent_of(const char *pid)
{
	char path[64], buf[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *p = strrchr(buf, ')');
	int ppid;
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

/* SIGKILL every child of ours found in /proc; how many. */
static unsigned kill_found_children(pid_t me)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]) && parent_of(e->d_name) == me &&
		    !kill((pid_t)atoi(e->d_name), SIGKILL))
			n++;
	closedir(d);
	return n;
}

/* Whether /proc numbers processes as we do: in a pid namespace whose /proc is
 * the parent's, a pid read there is not ours to kill(). */
static bool proc_is_ours(pid_t me)
{
	char self[32];
	ssize_t n = readlink("/proc/self", self, sizeof(self) - 1);

	if (n <= 0)
		return false;
	self[n] = '\0';
	return atoi(self) == me;
}

void load_kill_children(void)
{
	pid_t me = getpid();
	bool scan = proc_is_ours(me);
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t r;
		while ((r = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (r < 0 && errno == ECHILD)
			return;
		/* A child found by none of the scans (forked just after it, or
		 * reparented to us from a grandchild killed meanwhile) is found
		 * by the next one; a child killed is reaped above.  The scans
		 * end because a SIGKILLed process forks no more.  A pid read in
		 * /proc is killed before it is reaped, so it is still our child
		 * (a zombie keeps its pid): never someone else's.  Bounded all
		 * the same (5 s): what cannot be found (a foreign /proc) is left
		 * to whoever reaps for us next. */
		if (!scan || !kill_found_children(me)) {
			struct timespec ts = { 0, 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 5)
			return;
	}
}

void load_sleep(const struct load_worker *w, uint64_t ns)
{
	/* Sleep in slices so that a stop request is seen within 50 ms. */
	while (ns && !*w->stop) {
		uint64_t slice = ns < 50000000ull ? ns : 50000000ull;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)slice };
		nanosleep(&ts, NULL);
		ns -= slice;
	}
}

void load_registry_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; load_registry[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					load_registry[i]->name);
}

/* The options every load has, outside its table: nice and cpus. */
static int common_option(void *ctx, const char *name, const char *val, char *err, size_t errlen)
{
	struct load_instance *inst = ctx;
	const char *who = inst->ops->name;

	if (!strcmp(name, "nice")) {
		char *end;
		long n = strtol(val, &end, 10);
		if (!*val || *end || n < -20 || n > 19) {
			snprintf(err, errlen, "%s: nice='%s' is out of range (expected -20 to 19)",
				 who, val);
			return -EINVAL;
		}
		inst->nice = (int)n;
		return 1;
	}
	if (!strcmp(name, "cpus")) {
		char why[200];
		struct cpuset online;
		int c;
		if (cpuset_parse(&inst->cpus, val, why, sizeof(why))) {
			snprintf(err, errlen, "%s: cpus: %s", who, why);
			return -EINVAL;
		}
		if (cpuset_online(&online) == 0 &&
		    (c = cpuset_first_missing(&inst->cpus, &online)) >= 0) {
			snprintf(err, errlen, "%s: cpus: CPU %d is not online", who, c);
			return -EINVAL;
		}
		return 1;
	}
	return 0;
}

int load_instance_parse(struct load_instance *inst, const char *spec,
			const struct cpuset *load_cpus, char *err, size_t errlen)
{
	char buf[sizeof(inst->spec)], names[256];
	const struct load_ops *ops;
	char *name, *rest;
	int rc;

	memset(inst, 0, sizeof(*inst));
	inst->dirfd = -1;
	if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf)) {
		snprintf(err, errlen, "load spec '%.40s...' is too long", spec);
		return -EINVAL;
	}
	snprintf(inst->spec, sizeof(inst->spec), "%s", spec);
	name = buf;
	rest = strchr(buf, ':');
	if (rest)
		*rest++ = '\0';
	if (!(ops = load_registry_find(name))) {
		load_registry_names(names, sizeof(names));
		snprintf(err, errlen, "unknown load '%s' (available: %s)", name, names);
		return -EINVAL;
	}
	inst->ops = ops;
	inst->cpus = *load_cpus;
	inst->nice = ops->default_nice;
	if ((rc = opt_parse_spec(ops->name, ops->options, rest, inst->val, "nice, cpus",
				 common_option, inst, err, errlen)))
		return rc;
	if (cpuset_empty(&inst->cpus)) {
		snprintf(err, errlen, "%s: no load CPU", ops->name);
		return -EINVAL;
	}
	if (ops->unavailable && ops->unavailable()) {
		snprintf(err, errlen, "%s: cannot run here: %s", ops->name, ops->unavailable());
		return -ENOTSUP;
	}
	return 0;
}

int load_instance_check(const struct load_instance *inst, char *err, size_t errlen)
{
	return inst->ops->check ? inst->ops->check(inst, err, errlen) : 0;
}

void load_instance_free(struct load_instance *inst)
{
	if (inst->ops)
		opt_values_free(inst->ops->options, inst->val);
	memset(inst->val, 0, sizeof(inst->val));
}

/* NULL when a value cannot be made (out of memory); a string option is
 * the user's (an exec command: any bytes), made valid UTF-8. */
json_t *load_instance_options_json(const struct load_instance *inst)
{
	json_t *o = json_object();
	char cpus[1024];
	int bad = !o;

	for (int i = 0; !bad && inst->ops->options && inst->ops->options[i].name; i++) {
		const struct opt *opt = &inst->ops->options[i];
		const struct opt_value *v = &inst->val[i];
		bool str = opt->type == OPT_CHOICE || opt->type == OPT_STRING;
		if (str && !v->s) /* not given, no default: no key */
			continue;
		bad |=
		    util_json_set(o, opt->name, str ? util_json_string(v->s) : json_integer(v->i));
	}
	cpuset_format(&inst->cpus, cpus, sizeof(cpus));
	if (!bad)
		bad |= util_json_set(o, "nice", json_integer(inst->nice)) |
		       util_json_set(o, "cpus", json_string(cpus));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- the run's private directory ------------------------------------ */

#define DIR_PREFIX "rtsoak-load-"
#define DIR_RANDOM 6 /* mkdtemp's XXXXXX */

int load_dir_create(struct load_dir *d, const char *workdir, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;
	int rc;

	d->wfd = d->fd = -1;
	d->name[0] = '\0';
	if (snprintf(path, sizeof(path), "%s/" DIR_PREFIX "%d-XXXXXX", workdir, (int)getpid()) >=
	    (int)sizeof(path)) {
		snprintf(err, errlen, "workdir '%s': name too long", workdir);
		return -ENAMETOOLONG;
	}
	if ((d->wfd = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot open workdir '%s': %s", workdir, strerror(errno));
		return rc;
	}
	/* mkdtemp: a fresh name, mkdir(0700) fails rather than reuse anything
	 * that is there (a planted directory or symlink). */
	if (!mkdtemp(path)) {
		rc = -errno;
		snprintf(err, errlen, "cannot create a private directory in '%s': %s", workdir,
			 strerror(errno));
		close(d->wfd);
		d->wfd = -1;
		return rc;
	}
	snprintf(d->name, sizeof(d->name), "%s", strrchr(path, '/') + 1);
	/* From now on only by descriptor: a path through the workdir could be
	 * redirected by whoever else may write there. */
	d->fd = openat(d->wfd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d->fd < 0 || fstat(d->fd, &st) < 0 || fchmod(d->fd, 0700) < 0) {
		rc = -errno;
		snprintf(err, errlen, "private directory %s/%s: %s", workdir, d->name,
			 strerror(errno));
		(void)!load_dir_remove(d); /* the error above is the one to report */
		return rc;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen, "private directory %s/%s is not ours (uid %u)", workdir,
			 d->name, (unsigned)st.st_uid);
		/* Not ours: leave it, and its contents, alone. */
		close(d->fd);
		close(d->wfd);
		d->fd = d->wfd = -1;
		return -EPERM;
	}
	return 0;
}

/* Unlink every entry of the directory open as fd, by name: unlinkat never
 * follows a symlink (it removes the link) and, without AT_REMOVEDIR, never
 * removes a directory, so nothing outside fd is touched.  Counts what went
 * in *removed; 0 or the -errno of the first failure. */
static int dir_empty(int fd, unsigned *removed)
{
	/* A description of its own: fdopendir on a dup would move the shared
	 * position of fd. */
	int own = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
	struct dirent *e;
	DIR *dir;

	if (own < 0) /* ENOENT: removed already, by the other process */
		return errno == ENOENT ? 0 : -errno;
	if (!(dir = fdopendir(own))) {
		rc = -errno;
		close(own);
		return rc;
	}
	while ((e = readdir(dir))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(fd, e->d_name, 0) == 0)
			(*removed)++;
		else if (errno != ENOENT && !rc)
			rc = -errno;
	}
	closedir(dir);
	return rc;
}

/* Remove the directory `name` in wfd if it is still the one open as fd. */
static int dir_rmdir(int wfd, const char *name, int fd)
{
	struct stat a, b;

	if (fstat(fd, &a) < 0)
		return -errno;
	if (fstatat(wfd, name, &b, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno; /* gone already */
	if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return 0; /* someone removed ours; this one is not */
	if (unlinkat(wfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int load_dir_remove(struct load_dir *d)
{
	unsigned removed = 0;
	int rc = 0, rc2;

	if (d->fd >= 0) {
		rc = dir_empty(d->fd, &removed);
		if ((rc2 = dir_rmdir(d->wfd, d->name, d->fd)) && !rc)
			rc = rc2;
		close(d->fd);
		d->fd = -1;
	}
	if (d->wfd >= 0) {
		close(d->wfd);
		d->wfd = -1;
	}
	return rc;
}

/* "rtsoak-load-<pid>-XXXXXX": the name mkdtemp gives a private directory. */
static bool private_dir_name(const char *name)
{
	const char *p = name + strlen(DIR_PREFIX);

	if (strncmp(name, DIR_PREFIX, strlen(DIR_PREFIX)) || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != '-' || strlen(p) != DIR_RANDOM)
		return false;
	for (; *p; p++)
		if (!isalnum((unsigned char)*p))
			return false;
	return true;
}

/* One leftover private directory: only if it really is a directory of ours
 * (checked on the opened descriptor, so a rename in between cannot swap
 * it), and only its entries, by name. */
static int clean_dir(int wfd, const char *name, unsigned *files)
{
	struct stat st;
	int fd = openat(wfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	rc = dir_empty(fd, files);
	if (!rc)
		rc = dir_rmdir(wfd, name, fd);
	close(fd);
	return rc;
}

/* Names start rtsoak-load-<pid>-: a pid no longer running was a run that was
 * killed (SIGKILL of rtsoak and its supervisor, power loss). */
int load_leftovers_clean(const char *workdir, char *msg, size_t msglen)
{
	int wfd = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), own;
	unsigned files = 0, dirs = 0, failed = 0;
	struct dirent *e;
	DIR *d;

	if (wfd < 0)
		return 0;
	if ((own = openat(wfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    !(d = fdopendir(own))) {
		if (own >= 0)
			close(own);
		close(wfd);
		return 0;
	}
	while ((e = readdir(d))) {
		struct stat st;
		int pid;
		if (sscanf(e->d_name, DIR_PREFIX "%d-", &pid) != 1 || pid <= 0)
			continue;
		if (pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		/* lstat: what the name itself is.  Somebody else's name, or a
		 * symlink, is not ours to remove or to follow. */
		if (fstatat(wfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_uid != geteuid())
			continue;
		if (S_ISDIR(st.st_mode) && private_dir_name(e->d_name)) {
			if (clean_dir(wfd, e->d_name, &files) == 0)
				dirs++;
			else
				failed++;
		} else if (S_ISREG(st.st_mode) && st.st_nlink == 1 &&
			   !private_dir_name(e->d_name)) {
			/* A plain file of a version before private directories.
			 * unlinkat removes only this name; one link: it is no
			 * other file's second name. */
			if (unlinkat(wfd, e->d_name, 0) == 0)
				files++;
			else if (errno != ENOENT)
				failed++;
		}
	}
	closedir(d);
	close(wfd);
	if (dirs)
		snprintf(msg, msglen,
			 "removed %u file(s) in %u private director%s left in %s by an earlier "
			 "run that was killed%s",
			 files, dirs, dirs == 1 ? "y" : "ies", workdir,
			 failed ? " (some could not be removed)" : "");
	else if (files || failed)
		snprintf(msg, msglen,
			 "removed %u file(s) left in %s by an earlier run that was killed%s", files,
			 workdir, failed ? " (some could not be removed)" : "");
	return (int)(files + dirs + failed);
}
