// SPDX-License-Identifier: GPL-2.0-or-later
/* tweak: sysfs and sysctl values set for a run, journalled and restored.
 *
 * What is read is normalised (trimmed; "always [madvise] never" -> "madvise")
 * so that an original can be written back as it is, and a read-back is
 * compared with what was written by meaning, not bytes (tweak_value_equal):
 * the kernel reformats numbers, cpumasks and cpulists.  Every write is a single
 * write(2) of the whole value, because sysfs parses what one write delivers;
 * a value the kernel refuses or stores differently is an error, never a
 * silently different experiment. */
#include <config.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuset.h"
#include "exit.h"
#include "tweak.h"
#include "util.h"

#define WHY_MAX 512

__attribute__((format(printf, 3, 4))) static void add_err(char *err, size_t len, const char *fmt,
							  ...)
{
	size_t used;
	va_list ap;

	if (!err || !len)
		return;
	used = strnlen(err, len);
	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(err + used, len - used, fmt, ap);
	va_end(ap);
}

static const char *reason(int e)
{
	if (e == EFBIG)
		return "longer than a page";
	if (e == EILSEQ)
		return "not a text file";
	return strerror(e);
}

static char *trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
	return s;
}

/* Files such as transparent_hugepage/enabled or queue/scheduler list every
 * choice and bracket the current one; only that one can be written back. */
static void select_bracketed(char *s)
{
	const char *p = s, *sel = NULL;
	size_t len = 0;
	int nsel = 0;

	while (*p) {
		const char *q;

		while (isspace((unsigned char)*p))
			p++;
		for (q = p; *q && !isspace((unsigned char)*q); q++)
			;
		if (q - p >= 3 && p[0] == '[' && q[-1] == ']') {
			nsel++;
			sel = p + 1;
			len = (size_t)(q - p - 2);
		}
		p = q;
	}
	if (nsel == 1) {
		memmove(s, sel, len);
		s[len] = '\0';
	}
}

static void normalise(char *s)
{
	select_bracketed(trim(s));
}

/* The whole file, normalised.  -EFBIG rather than a truncated original: it
 * would be written back truncated. */
static int value_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		char extra;
		ssize_t r = n + 1 < len ? read(fd, buf + n, len - 1 - n) : read(fd, &extra, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		if (n + 1 >= len) {
			close(fd);
			return -EFBIG;
		}
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (strlen(buf) != n)
		return -EILSEQ;
	normalise(buf);
	return 0;
}

static int value_write(const char *path, const char *value)
{
	size_t len = strlen(value);
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	do
		n = write(fd, value, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		rc = -errno;
	else if ((size_t)n != len)
		rc = -EIO; /* the kernel took part of the value */
	/* procfs and sysfs report nothing here today; a FUSE-backed file could. */
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

static bool decimal(const char *s, size_t len, bool *neg, unsigned long long *mag)
{
	char buf[32], *end;
	const char *p = buf;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*neg = *p == '-';
	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	errno = 0;
	*mag = strtoull(p, &end, 10);
	if (errno || *end)
		return false;
	if (!*mag)
		*neg = false;
	return true;
}

static bool token_equal(const char *a, size_t la, const char *b, size_t lb)
{
	unsigned long long ma, mb;
	bool na, nb;

	if (la == lb && !memcmp(a, b, la))
		return true;
	return decimal(a, la, &na, &ma) && decimal(b, lb, &nb, &mb) && na == nb && ma == mb;
}

/* "4 4 1 7" holds "4\t4\t1\t7"; "010" holds "10". */
static bool tokens_equal(const char *a, const char *b)
{
	static const char ws[] = " \t\n\v\f\r";

	for (;;) {
		size_t la, lb;

		a += strspn(a, ws);
		b += strspn(b, ws);
		if (!*a || !*b)
			return !*a && !*b;
		la = strcspn(a, ws);
		lb = strcspn(b, ws);
		if (!token_equal(a, la, b, lb))
			return false;
		a += la;
		b += lb;
	}
}

/* cpumask files print 32-bit groups with leading zeros: "00000000,00000001". */
static bool hexmask(const char *s, char *out, size_t len)
{
	size_t n = 0;
	bool any = false;

	for (; *s; s++) {
		if (*s == ',')
			continue;
		if (!isxdigit((unsigned char)*s))
			return false;
		any = true;
		if (!n && *s == '0')
			continue;
		if (n + 1 >= len)
			return false;
		out[n++] = (char)tolower((unsigned char)*s);
	}
	if (any && !n)
		out[n++] = '0';
	out[n] = '\0';
	return any;
}

static bool cpulist_equal(const char *a, const char *b)
{
	struct cpuset *sa = malloc(2 * sizeof(*sa)), *sb = sa + 1;
	char e[64];
	bool eq;

	if (!sa)
		return false;
	eq = !cpuset_parse(sa, a, e, sizeof(e)) && !cpuset_parse(sb, b, e, sizeof(e)) &&
	     !memcmp(sa, sb, sizeof(*sa));
	free(sa);
	return eq;
}

/* Both sides normalised. */
static bool normalised_equal(const char *want, const char *got)
{
	char ma[TWEAK_VALUE_MAX], mb[TWEAK_VALUE_MAX];

	if (!strcmp(want, got) || tokens_equal(want, got))
		return true;
	if (hexmask(want, ma, sizeof(ma)) && hexmask(got, mb, sizeof(mb)) && !strcmp(ma, mb))
		return true;
	return *want && cpulist_equal(want, got);
}

bool tweak_value_equal(const char *want, const char *read)
{
	char *w = strdup(want), *r = strdup(read);
	bool eq = false;

	if (w && r) {
		normalise(r);
		eq = normalised_equal(trim(w), r);
	}
	free(w);
	free(r);
	return eq;
}

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/';
}

/* Files under /sys and /proc/sys that hand root's execution (or the
 * machine's security policy, or what it boots) to whatever value is written,
 * or that cannot be set back: rtsoak never writes them, whatever a --set or a
 * journal says.  Matched with fnmatch(3) without FNM_PATHNAME ('*' crosses
 * '/') against the path after realpath.  The man page (SAFETY) lists them. */
static const struct {
	const char *pattern;
	const char *why;
} deny[] = {
	{ "/proc/sys/kernel/core_pattern", "names a program the kernel runs as root on a crash" },
	{ "/proc/sys/kernel/modprobe", "names the program the kernel runs to load modules" },
	{ "/proc/sys/kernel/hotplug", "names a program the kernel runs on device events" },
	{ "/sys/kernel/uevent_helper", "names a program the kernel runs on device events" },
	{ "/proc/sys/kernel/poweroff_cmd", "names the program the kernel runs to power off" },
	{ "/proc/sys/kernel/reboot_cmd", "names the program the kernel runs to reboot" },
	{ "/proc/sys/fs/binfmt_misc/*", "registers interpreters the kernel runs for executables" },
	{ "/proc/sys/kernel/usermodehelper/*",
	  "sets the capabilities of the programs the kernel runs" },
	{ "/sys/fs/cgroup/*release_agent", "names a program the kernel runs as root" },
	{ "/sys/kernel/security/*", "loads security policy (LSMs, IMA, lockdown)" },
	{ "/sys/fs/selinux/*", "loads or switches the SELinux policy" },
	{ "/sys/firmware/efi/efivars/*", "EFI variables choose what the machine boots" },
	{ "/sys/firmware/efi/vars/*", "EFI variables choose what the machine boots" },
	{ "/sys/module/firmware_class/parameters/path",
	  "names where the kernel loads device firmware from" },
	/* One-way switches (the kernel's sysctl documentation, kernel.rst
	 * and Yama.rst): a value written cannot be set back, so neither the
	 * run's end nor `rtsoak restore` could undo it.  Refused whatever the
	 * value, also where only some values are one-way: none of them is a
	 * latency setting. */
	{ "/proc/sys/kernel/modules_disabled", "a one-way switch: it cannot be set back" },
	{ "/proc/sys/kernel/kexec_load_disabled", "a one-way switch: it cannot be set back" },
	{ "/proc/sys/kernel/kexec_load_limit_panic", "a one-way limit: it can only be decreased" },
	{ "/proc/sys/kernel/kexec_load_limit_reboot", "a one-way limit: it can only be decreased" },
	{ "/proc/sys/kernel/tainted", "one-way: a taint flag written cannot be cleared" },
	{ "/proc/sys/kernel/unprivileged_bpf_disabled",
	  "a one-way switch: once 1, it cannot be set back" },
	{ "/proc/sys/kernel/yama/ptrace_scope", "a one-way switch: once 3, it cannot be set back" },
	{ "/sys/module/apparmor/parameters/*",
	  "AppArmor's switches (one-way: lock_policy cannot be set back)" },
	{ "/sys/power/state", "an action (suspend), not a setting" },
};

/* Values that cannot be set back where the file itself is a latency
 * setting with values that can (SMT off and on again is an A/B an RT
 * engineer runs): only the one-way value is refused (a value with a
 * newline, which sysfs_streq would also take, is refused before). */
static const struct {
	const char *path, *value, *why;
} deny_value[] = {
	{ "/sys/devices/system/cpu/smt/control", "forceoff",
	  "forceoff is one-way: SMT stays off until a reboot (off can be set back)" },
};

static const char *value_denied(const char *real, const char *value)
{
	for (size_t i = 0; i < sizeof(deny_value) / sizeof(deny_value[0]); i++)
		if (!strcmp(real, deny_value[i].path) && !strcmp(value, deny_value[i].value))
			return deny_value[i].why;
	return NULL;
}

const char *tweak_denied(const char *real)
{
	for (size_t i = 0; i < sizeof(deny) / sizeof(deny[0]); i++)
		if (!fnmatch(deny[i].pattern, real, 0))
			return deny[i].why;
	return NULL;
}

static bool deny_err(const char *real, char *why, size_t whylen)
{
	const char *d = tweak_denied(real);

	if (d)
		util_errf(why, whylen,
			  "refused: %s (rtsoak never writes it: see SAFETY in rtsoak(1))", d);
	return d != NULL;
}

/* Whether `path` may be tweaked: resolves it into `real` ("" if it cannot) and
 * says why not in `why`.  The same rules guard `rtsoak restore`: a journal
 * must not be a way to make root write any file. */
static bool path_ok(const char *path, char *real, char *why, size_t whylen)
{
	struct stat st;
	char value[TWEAK_VALUE_MAX];
	int rc;

	if (!realpath(path, real)) {
		real[0] = '\0';
		util_errf(why, whylen, "%s", strerror(errno));
		return false;
	}
	if (!under(real, "/sys") && !under(real, "/proc/sys")) {
		util_errf(why, whylen, "not under /sys or /proc/sys");
		return false;
	}
	if (deny_err(real, why, whylen))
		return false;
	if (stat(real, &st) < 0) {
		util_errf(why, whylen, "%s", strerror(errno));
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		util_errf(why, whylen, "not a regular file");
		return false;
	}
	/* root passes access(W_OK) on a 0444 sysfs file, yet the kernel has no
	 * store method for it: the mode bits are the real answer. */
	if (!(st.st_mode & 0222)) {
		util_errf(why, whylen, "read-only (mode %04o)", (unsigned)(st.st_mode & 07777));
		return false;
	}
	if (!(st.st_mode & 0444)) {
		util_errf(why, whylen, "write-only (mode %04o): its value cannot be restored",
			  (unsigned)(st.st_mode & 07777));
		return false;
	}
	if (access(real, R_OK | W_OK) < 0) {
		util_errf(why, whylen, "%s", strerror(errno));
		return false;
	}
	if ((rc = value_read(real, value, sizeof(value))) < 0) {
		util_errf(why, whylen, "cannot read: %s", reason(-rc));
		return false;
	}
	return true;
}

static void tweak_free(struct tweak *t)
{
	free(t->path);
	free(t->value);
	free(t->original);
}

/* "--set P: why", or "--set P (-> REAL): why" when a symlink led elsewhere. */
static void add_path_err(char *err, size_t len, const char *p, const char *real, const char *why)
{
	if (*real && strcmp(p, real))
		util_errf(err, len, "--set %s (-> %s): %s", p, real, why);
	else
		util_errf(err, len, "--set %s: %s", p, why);
}

static int add_one(struct tweak_set *ts, size_t first, const char *p, const char *value, char *err,
		   size_t errlen)
{
	char real[PATH_MAX], why[WHY_MAX];
	struct tweak *t;

	if (!path_ok(p, real, why, sizeof(why))) {
		add_path_err(err, errlen, p, real, why);
		return -EINVAL;
	}
	const char *d = value_denied(real, value);
	if (d) {
		util_errf(why, sizeof(why),
			  "refused: %s (rtsoak never writes it: see SAFETY in rtsoak(1))", d);
		add_path_err(err, errlen, p, real, why);
		return -EINVAL;
	}
	for (size_t j = 0; j < ts->n; j++) {
		if (strcmp(ts->v[j].path, real))
			continue;
		if (j >= first)
			return 0; /* an alias within this glob: the same file */
		add_path_err(err, errlen, p, real, "set twice");
		return -EINVAL;
	}
	t = &ts->v[ts->n];
	memset(t, 0, sizeof(*t));
	if (!(t->path = strdup(real)) || !(t->value = strdup(value))) {
		tweak_free(t);
		util_errf(err, errlen, "--set %s: out of memory", p);
		return -ENOMEM;
	}
	ts->n++;
	return 0;
}

/* The bounded expansion of a --set pattern: glob(3)'s rules (a component
 * with * ? [ or \\ is matched against each entry of its directory with
 * FNM_PERIOD; other components are taken as they are), walked depth first
 * while counting what it reads, then sorted as glob sorts.  sysfs symlinks
 * lead back up the tree, so an unbounded walk of /sys/x/x/x/... never ends in
 * practice; this one stops at TWEAK_GLOB_ENTRIES entries read or
 * TWEAK_GLOB_MATCHES matches. */
struct walk {
	char **v;
	size_t n, cap, entries;
};

static int walk_add(struct walk *w, const char *path)
{
	if (w->n == TWEAK_GLOB_MATCHES)
		return -EOVERFLOW;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		char **v = realloc(w->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->v = v;
		w->cap = cap;
	}
	if (!(w->v[w->n] = strdup(path)))
		return -ENOMEM;
	w->n++;
	return 0;
}

static void walk_free(struct walk *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	memset(w, 0, sizeof(*w));
}

/* path (length plen, a PATH_MAX buffer) is what matched so far; rest is the
 * pattern still to match. */
static int walk(struct walk *w, char *path, size_t plen, const char *rest)
{
	char comp[NAME_MAX + 1];
	const char *next;
	struct stat st;
	struct dirent *e;
	size_t clen;
	bool last;
	DIR *d;
	int rc = 0;

	while (*rest == '/')
		rest++;
	clen = strcspn(rest, "/");
	next = rest + clen;
	while (*next == '/')
		next++;
	last = !*next;
	if (clen > NAME_MAX)
		return 0; /* no name is that long: no match */
	memcpy(comp, rest, clen);
	comp[clen] = '\0';
	if (!strpbrk(comp, "*?[\\")) {
		if (plen + 1 + clen >= PATH_MAX)
			return 0;
		path[plen] = '/';
		memcpy(path + plen + 1, comp, clen + 1);
		if (!last)
			rc = walk(w, path, plen + 1 + clen, next);
		else if (lstat(path, &st) == 0)
			rc = walk_add(w, path);
		path[plen] = '\0';
		return rc;
	}
	if (!(d = opendir(plen ? path : "/")))
		return 0; /* not a directory, or unreadable: glob(3) skips it too */
	while (!rc && (e = readdir(d))) {
		size_t nlen = strlen(e->d_name);

		if (++w->entries > TWEAK_GLOB_ENTRIES) {
			rc = -E2BIG;
			break;
		}
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    fnmatch(comp, e->d_name, FNM_PERIOD) || plen + 1 + nlen >= PATH_MAX)
			continue;
		path[plen] = '/';
		memcpy(path + plen + 1, e->d_name, nlen + 1);
		rc = last ? walk_add(w, path) : walk(w, path, plen + 1 + nlen, next);
		path[plen] = '\0';
	}
	closedir(d);
	return rc;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tweak_glob(const char *pattern, char ***paths)
{
	struct walk w = { 0 };
	char buf[PATH_MAX] = "";
	int rc = walk(&w, buf, 0, pattern);

	*paths = NULL;
	if (rc < 0) {
		walk_free(&w);
		return rc;
	}
	if (w.n)
		qsort(w.v, w.n, sizeof(*w.v), cmp_path);
	*paths = w.v;
	return (int)w.n;
}

int tweak_add(struct tweak_set *ts, const char *spec, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '='), *value;
	char pattern[PATH_MAX];
	const char *one[1] = { pattern };
	const char *const *paths = one;
	size_t npaths = 1, first = ts->n, plen;
	char **matches = NULL;
	struct tweak *v;
	int rc = 0;

	if (!eq) {
		util_errf(err, errlen, "--set %s: expected PATH=VALUE", spec);
		return -EINVAL;
	}
	plen = (size_t)(eq - spec);
	value = eq + 1;
	if (!plen) {
		util_errf(err, errlen, "--set %s: needs a path (PATH=VALUE)", spec);
		return -EINVAL;
	}
	if (plen >= sizeof(pattern)) {
		util_errf(err, errlen, "--set %.64s...: path too long", spec);
		return -EINVAL;
	}
	memcpy(pattern, spec, plen);
	pattern[plen] = '\0';
	if (pattern[0] != '/') {
		util_errf(err, errlen, "--set %s: needs an absolute path", pattern);
		return -EINVAL;
	}
	if (!value[strspn(value, " \t")]) {
		util_errf(err, errlen, "--set %s: needs a value (PATH=VALUE)", pattern);
		return -EINVAL;
	}
	if (strlen(value) >= TWEAK_VALUE_MAX) {
		util_errf(err, errlen, "--set %s: value longer than %d bytes", pattern,
			  TWEAK_VALUE_MAX - 1);
		return -EINVAL;
	}
	/* sysfs takes one value per write; a newline inside would be parsed
	 * (or ignored) differently by every attribute. */
	if (strchr(value, '\n')) {
		util_errf(err, errlen, "--set %s: the value contains a newline", pattern);
		return -EINVAL;
	}
	/* A plain path is not globbed, so that a missing file says ENOENT. */
	if (strpbrk(pattern, "*?[")) {
		rc = tweak_glob(pattern, &matches);
		if (rc == -ENOMEM) {
			util_errf(err, errlen, "--set %s: out of memory", pattern);
			goto out;
		}
		if (rc == -EOVERFLOW) {
			util_errf(err, errlen, "--set %s: matches more than %d files (the limit)",
				  pattern, TWEAK_GLOB_MATCHES);
			rc = -EINVAL;
			goto out;
		}
		if (rc == -E2BIG) {
			util_errf(
			    err, errlen,
			    "--set %s: expanding it reads more than %d directory entries (the "
			    "limit): make the pattern narrower",
			    pattern, TWEAK_GLOB_ENTRIES);
			rc = -EINVAL;
			goto out;
		}
		if (!rc) {
			util_errf(err, errlen, "--set %s: matches no file", pattern);
			rc = -EINVAL;
			goto out;
		}
		paths = (const char *const *)matches;
		npaths = (size_t)rc;
		rc = 0;
	}
	if (ts->n + npaths > TWEAK_MAX) {
		util_errf(err, errlen,
			  "--set %s: more than %d files to tweak in one run (the limit)", pattern,
			  TWEAK_MAX);
		rc = -EINVAL;
		goto out;
	}
	if (!(v = realloc(ts->v, (ts->n + npaths) * sizeof(*v)))) {
		util_errf(err, errlen, "--set %s: out of memory", pattern);
		rc = -ENOMEM;
		goto out;
	}
	ts->v = v;
	for (size_t i = 0; i < npaths && !rc; i++)
		rc = add_one(ts, first, paths[i], value, err, errlen);
	/* All of a --set or none of it. */
	while (rc && ts->n > first)
		tweak_free(&ts->v[--ts->n]);
out:
	if (matches)
		for (size_t i = 0; i < npaths; i++)
			free(matches[i]);
	free(matches);
	return rc;
}

/* The pid of an rtsoak that is still running, or 0: then the journal is in
 * use, not left over.  A dead pid may have been reused by something else,
 * hence the name check. */
static pid_t running_rtsoak(json_int_t pid)
{
	char path[64], buf[512], *l, *r;

	if (pid <= 0 || pid > INT_MAX || pid == getpid())
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (util_read_file(path, buf, sizeof(buf)) < 0)
		return 0;
	/* "PID (COMM) STATE ...": COMM may itself hold ')' */
	l = strchr(buf, '(');
	r = strrchr(buf, ')');
	if (!l || !r || r < l || r[1] != ' ' || !r[2] || r[2] == 'Z' || r[2] == 'X')
		return 0;
	*r = '\0';
	if (strcmp(l + 1, "rtsoak") && strcmp(l + 1, "lt-rtsoak"))
		return 0;
	return (pid_t)pid;
}

void tweak_journal_free(struct tweak_journal *j)
{
	for (size_t i = 0; i < j->n; i++) {
		free(j->v[i].path);
		free(j->v[i].original);
		free(j->v[i].value);
	}
	free(j->v);
	free(j->report);
	memset(j, 0, sizeof(*j));
}

/* A copy of the string member `key` of o, or NULL (then *bad says whether it
 * was there but not a string or too long). */
static char *member(json_t *o, const char *key, size_t max, bool *bad)
{
	json_t *m = json_object_get(o, key);
	char *s;

	*bad = false;
	if (!m || json_is_null(m))
		return NULL;
	if (!json_is_string(m) || json_string_length(m) >= max) {
		*bad = true;
		return NULL;
	}
	s = strdup(json_string_value(m));
	if (!s)
		*bad = true;
	return s;
}

int tweak_journal_parse(const char *text, size_t len, struct tweak_journal *j, char *err,
			size_t errlen)
{
	char esc[128];
	json_error_t je;
	json_t *root, *list, *o, *pid;
	const char *schema;
	bool bad;
	size_t i;
	int rc = -EINVAL;

	memset(j, 0, sizeof(*j));
	if (!(root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je))) {
		if (util_json_oom(&je)) { /* no syntax error: jansson's memory */
			util_errf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		util_escape(je.text, esc, sizeof(esc));
		util_errf(err, errlen, "not JSON: line %d: %s", je.line, esc);
		return -EINVAL;
	}
	schema = json_string_value(json_object_get(root, "schema"));
	list = json_object_get(root, "tweaks");
	pid = json_object_get(root, "pid");
	if (!schema || strcmp(schema, TWEAK_JOURNAL_SCHEMA)) {
		util_escape(schema ? schema : "missing", esc, sizeof(esc));
		util_errf(err, errlen, "not an rtsoak journal (schema %s, expected %s)", esc,
			  TWEAK_JOURNAL_SCHEMA);
		goto out;
	}
	if (pid && !json_is_integer(pid)) {
		util_errf(err, errlen, "\"pid\" is not an integer");
		goto out;
	}
	j->pid = json_integer_value(pid);
	if (!json_is_array(list)) {
		util_errf(err, errlen, "\"tweaks\" is not an array");
		goto out;
	}
	if (json_array_size(list) > TWEAK_MAX) {
		util_errf(err, errlen, "more than %d tweaks", TWEAK_MAX);
		goto out;
	}
	j->report = member(root, "report", PATH_MAX, &bad);
	if (bad) {
		util_errf(err, errlen, "\"report\" is not a path");
		goto out;
	}
	if (!(j->v = calloc(json_array_size(list) + 1, sizeof(*j->v)))) {
		rc = -ENOMEM;
		util_errf(err, errlen, "out of memory");
		goto out;
	}
	json_array_foreach (list, i, o) {
		struct tweak_journal_entry *t = &j->v[j->n++];
		bool b1, b2, b3;

		t->path = member(o, "path", PATH_MAX, &b1);
		t->original = member(o, "original", TWEAK_VALUE_MAX, &b2);
		t->value = member(o, "value", TWEAK_VALUE_MAX, &b3);
		if (!t->path || !t->original || b1 || b2 || b3) {
			util_errf(err, errlen,
				  "tweaks[%zu] needs \"path\" and \"original\" strings (a path, "
				  "values shorter than %d bytes)",
				  i, TWEAK_VALUE_MAX);
			goto out;
		}
	}
	rc = 0;
out:
	json_decref(root);
	return rc;
}

/* Read a journal without trusting it: never follow a symlink, never block
 * (a FIFO), only a regular file owned by the effective uid and writable by
 * nobody else (a journal is an order to write files as root).  Returns 0;
 * -EPERM when it is not to be trusted; another -errno when it cannot be read
 * or is not a journal (err says why, naming the file; escaped). */
static int journal_load(const char *journal, struct tweak_journal *j, struct stat *st, char *err,
			size_t errlen)
{
	char name[PATH_MAX], why[WHY_MAX], *text;
	int fd, rc;
	ssize_t got;
	size_t n;

	memset(j, 0, sizeof(*j));
	util_escape(journal, name, sizeof(name));
	fd = open(journal, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		if (errno == ELOOP)
			util_errf(err, errlen,
				  "%s: a symbolic link: not following it (give the journal "
				  "itself)",
				  name);
		else if (errno == ENXIO)
			util_errf(err, errlen, "%s: not a regular file (a socket?)", name);
		else
			util_errf(err, errlen, "%s: %s", name, strerror(errno));
		return rc == -ELOOP ? -EPERM : rc;
	}
	if (fstat(fd, st) < 0) {
		rc = -errno;
		util_errf(err, errlen, "%s: %s", name, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st->st_mode)) {
		util_errf(err, errlen, "%s: not a journal: %s", name, util_file_type(st->st_mode));
		rc = -EINVAL;
		goto out;
	}
	if (st->st_uid != geteuid()) {
		util_errf(
		    err, errlen,
		    "%s: owned by uid %u, not %u: not a journal rtsoak can trust (another user "
		    "could have written it)",
		    name, (unsigned)st->st_uid, (unsigned)geteuid());
		rc = -EPERM;
		goto out;
	}
	if (st->st_mode & 022) {
		util_errf(err, errlen,
			  "%s: writable by group or others (mode %04o): not a journal rtsoak can "
			  "trust",
			  name, (unsigned)(st->st_mode & 07777));
		rc = -EPERM;
		goto out;
	}
	if (st->st_size > TWEAK_JOURNAL_MAX) {
		util_errf(err, errlen, "%s: larger than %d bytes: not a journal", name,
			  TWEAK_JOURNAL_MAX);
		rc = -EFBIG;
		goto out;
	}
	got = util_read_fd(fd, (size_t)st->st_size, (size_t)st->st_size, false, &text);
	if (got == -ENOMEM) {
		util_errf(err, errlen, "%s: out of memory", name);
		rc = -ENOMEM;
		goto out;
	}
	if (got == -EFBIG) {
		util_errf(err, errlen, "%s: grew while being read", name);
		rc = -EINVAL;
		goto out;
	}
	if (got < 0) {
		rc = (int)got;
		util_errf(err, errlen, "%s: %s", name, strerror((int)-got));
		goto out;
	}
	n = (size_t)got;
	rc = tweak_journal_parse(text, n, j, why, sizeof(why));
	free(text);
	if (rc < 0)
		util_errf(err, errlen, "%s: %s", name, why);
out:
	close(fd);
	return rc;
}

/* A journal path normalised as tweak_set_journal makes it: the directory
 * resolved (when it exists), so that the live-journal record of one journal
 * has one name whatever the spelling of the report path. */
static int journal_path(const char *report_path, char *path, size_t len)
{
	const char *base = strcmp(report_path, "-") ? report_path : "rtsoak";
	const char *slash = strrchr(base, '/');
	char dir[PATH_MAX], real[PATH_MAX];
	int n;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == base)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - base), base);
	if (!realpath(dir, real)) {
		/* Absolute anyway: the message tells the user what to pass to
		 * `rtsoak restore` from wherever they are. */
		char cwd[PATH_MAX];

		if (base[0] == '/')
			snprintf(real, sizeof(real), "%s", dir);
		else if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		else if ((size_t)snprintf(real, sizeof(real), "%s/%.*s", cwd,
					  (int)(sizeof(real) - 2 - strnlen(cwd, sizeof(real))),
					  dir) >= sizeof(real))
			return -ENAMETOOLONG;
	}
	n = snprintf(path, len, "%s%s%s.journal", real, strcmp(real, "/") ? "/" : "",
		     slash ? slash + 1 : base);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

struct scan {
	const char *own;
	bool force;
	char *err;
	size_t errlen;
	int found; /* 0, or -EEXIST / -EPERM: the first stale record found */
};

/* A record of a run that died: its journal still there means the machine is
 * still tweaked (unless someone restored it by hand and left the journal). */
static int scan_one(const char *journal, const char *record, void *arg)
{
	struct scan *sc = arg;
	struct tweak_journal j;
	struct stat st;
	char why[WHY_MAX], name[PATH_MAX], rec[PATH_MAX];
	int rc;

	if (!strcmp(journal, sc->own))
		return 0; /* tweak_set_journal looks at our own */
	if (lstat(journal, &st) < 0 && errno == ENOENT)
		return 1; /* restored (or removed) without us: the record goes */
	rc = journal_load(journal, &j, &st, why, sizeof(why));
	if (!rc && running_rtsoak(j.pid)) {
		tweak_journal_free(&j);
		return 0; /* an older rtsoak that keeps no record: it is alive */
	}
	tweak_journal_free(&j);
	if (sc->found)
		return 0;
	util_escape(journal, name, sizeof(name));
	util_escape(record, rec, sizeof(rec));
	if (rc == 0) {
		sc->found = -EEXIST;
		util_errf(sc->err, sc->errlen,
			  "the machine is still tweaked by a killed run: rtsoak restore %s first%s",
			  name, sc->force ? " (--force: starting anyway)" : "");
	} else {
		sc->found = -EPERM;
		util_errf(
		    sc->err, sc->errlen,
		    "a killed run may have left the machine tweaked, but its journal is not to "
		    "be trusted (%s): check by hand, then remove %s%s",
		    why, rec, sc->force ? " (--force: starting anyway)" : "");
	}
	return 0;
}

int tweak_set_journal(struct tweak_set *ts, const char *report_path, bool force, char *err,
		      size_t errlen)
{
	char path[PATH_MAX], name[PATH_MAX], why[WHY_MAX];
	struct scan sc = { .force = force, .err = err, .errlen = errlen };
	struct tweak_journal j;
	struct stat st;
	size_t plen;
	pid_t owner;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	/* Moving it now would orphan the journal on disk. */
	if (ts->journal_written) {
		util_errf(err, errlen, "journal %s: already written", ts->journal);
		return -EBUSY;
	}
	if ((rc = journal_path(report_path, path, sizeof(path))) < 0) {
		util_errf(err, errlen, "journal for %s: %s", report_path,
			  rc == -ENAMETOOLONG ? "path too long" : strerror(-rc));
		return rc;
	}
	free(ts->journal);
	free(ts->report);
	free(ts->report_abs);
	ts->journal = strdup(path);
	ts->report = strdup(report_path);
	plen = strlen(path) - strlen(".journal");
	ts->report_abs = strcmp(report_path, "-") ? strndup(path, plen) : strdup("-");
	ts->journal_written = false;
	if (!ts->journal || !ts->report || !ts->report_abs) {
		util_errf(err, errlen, "journal: out of memory");
		return -ENOMEM;
	}
	util_escape(path, name, sizeof(name));
	if (lstat(path, &st) == 0) {
		rc = journal_load(path, &j, &st, why, sizeof(why));
		owner = rc ? 0 : running_rtsoak(j.pid);
		tweak_journal_free(&j);
		if (owner) {
			util_errf(err, errlen,
				  "the journal %s belongs to rtsoak pid %d, which is still running",
				  name, (int)owner);
			return -EBUSY;
		}
		/* --force: the values as they are now count as the originals.
		 * Our tweak_apply overwrites the old journal (and forgets what
		 * it held); a run without tweaks leaves it. */
		if (rc == -ENOMEM) {
			util_errf(err, errlen, "journal: out of memory");
			return rc;
		}
		if (rc && !force) {
			/* Not ours to restore: never suggest it. */
			util_errf(err, errlen,
				  "%s; it is in the way of this run's journal: remove or move it "
				  "(or --force)",
				  why);
			return -EPERM;
		}
		if (!rc && !force) {
			util_errf(err, errlen,
				  "a journal from an earlier run is still present: %s (run `rtsoak "
				  "restore %s`, or --force)",
				  name, name);
			return -EEXIST;
		}
	} else if (errno != ENOENT) {
		util_errf(err, errlen, "journal %s: %s", name, strerror(errno));
		return -errno;
	}
	sc.own = ts->journal;
	if ((rc = lock_stale_journals(scan_one, &sc)) < 0)
		return rc;
	return force ? 0 : sc.found;
}

int tweak_lock(struct tweak_set *ts, char *err, size_t errlen)
{
	struct rlimit rl;
	int rc = 0;
	size_t i;

	if (!ts->n || ts->locks)
		return 0;
	if (!(ts->locks = calloc(ts->n, sizeof(*ts->locks)))) {
		util_errf(err, errlen, "--set: out of memory");
		return -ENOMEM;
	}
	/* One open lock file per tweaked file, for the whole run: make room
	 * (a glob over the slab caches is hundreds of files). */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < ts->n + 256 &&
	    rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max < ts->n + 256 ? rl.rlim_max : ts->n + 256;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (i = 0; i < ts->n && !rc; i++)
		rc = lock_take(&ts->locks[i], LOCK_TWEAK, ts->v[i].path, ts->report_abs, err,
			       errlen);
	if (rc == -ENOENT) {
		char why[WHY_MAX];

		snprintf(why, sizeof(why), "%s", err);
		util_errf(err, errlen, "--set: %s: two runs could tweak the same file unnoticed",
			  why);
	}
	if (rc) {
		for (size_t k = 0; k < i; k++)
			lock_release(&ts->locks[k]);
		free(ts->locks);
		ts->locks = NULL;
	}
	return rc;
}

/* Atomic as every report is, but 0600: a journal lists what this machine
 * runs with, and nobody else needs it (rtsoak(1), SAFETY). */
static int journal_file_write(const char *path, const char *text, size_t len)
{
	struct util_buffer b = { text, len };

	return util_write_atomic_mode(path, util_fill_buffer, &b, 0600);
}

static int journal_write(struct tweak_set *ts, char *err, size_t errlen)
{
	json_t *root = json_object(), *list = json_array();
	char created[40], *text = NULL;
	int bad = !root || !list, rc;

	util_iso8601(util_now_ns(CLOCK_REALTIME), created, sizeof(created));
	bad |= json_object_set_new(root, "schema", json_string(TWEAK_JOURNAL_SCHEMA));
	bad |= json_object_set_new(root, "pid", json_integer(getpid()));
	bad |= json_object_set_new(root, "created", json_string(created));
	bad |= json_object_set_new(root, "report", json_string(ts->report ? ts->report : "-"));
	for (size_t i = 0; !bad && i < ts->n; i++) {
		json_t *o = json_object();

		/* json_string() refuses invalid UTF-8: bad, not a crash. */
		bad |= json_array_append_new(list, o);
		bad |= json_object_set_new(o, "path", json_string(ts->v[i].path));
		bad |= json_object_set_new(o, "original", json_string(ts->v[i].original));
		bad |= json_object_set_new(o, "value", json_string(ts->v[i].value));
	}
	bad |= json_object_set(root, "tweaks", list);
	if (!bad)
		text = json_dumps(root, JSON_INDENT(2));
	json_decref(list);
	json_decref(root);
	if (!text) {
		util_errf(err, errlen, "journal %s: cannot encode it (out of memory or not UTF-8)",
			  ts->journal);
		return -EINVAL;
	}
	if ((rc = journal_file_write(ts->journal, text, strlen(text))) < 0)
		util_errf(err, errlen, "journal %s: %s", ts->journal, strerror(-rc));
	free(text);
	return rc;
}

/* Without the fsync a power cut could bring the journal back: harmless (the
 * restore is idempotent) but it would stop the next run. */
static int journal_remove(const char *journal)
{
	if (unlink(journal) < 0 && errno != ENOENT)
		return -errno;
	util_fsync_dir_of(journal);
	return 0;
}

/* Make `path` hold `original` again.  `cur` gets what it held before.
 * Returns 1 when written, 0 when it held the original already, or -errno with
 * the reason in why. */
static int restore_one(const char *path, const char *original, char *cur, size_t curlen, char *why,
		       size_t whylen)
{
	char back[TWEAK_VALUE_MAX];
	int rc = value_read(path, cur, curlen);

	if (!rc && normalised_equal(original, cur))
		return 0;
	if (rc < 0)
		snprintf(cur, curlen, "?"); /* unreadable now: write anyway */
	if ((rc = value_write(path, original)) < 0) {
		util_errf(why, whylen, "write '%s': %s", original, reason(-rc));
		return rc;
	}
	if ((rc = value_read(path, back, sizeof(back))) < 0) {
		util_errf(why, whylen, "read back: %s", reason(-rc));
		return rc;
	}
	if (!normalised_equal(original, back)) {
		util_errf(why, whylen, "wrote '%s', reads back '%s'", original, back);
		return -EINVAL;
	}
	return 1;
}

int tweak_unapply(struct tweak_set *ts, char *err, size_t errlen)
{
	char cur[TWEAK_VALUE_MAX], why[WHY_MAX];
	int rc = 0, failed = 0;

	/* Every file with an original, not only those marked applied: a write
	 * that failed or read back wrong may still have changed the value. */
	for (size_t i = ts->n; i-- > 0;) {
		struct tweak *t = &ts->v[i];
		int r;

		if (!t->original)
			continue;
		r = restore_one(t->path, t->original, cur, sizeof(cur), why, sizeof(why));
		if (r >= 0) {
			t->applied = false;
			continue;
		}
		if (!failed++) {
			rc = r;
			util_errf(err, errlen, "%s: cannot restore: %s", t->path, why);
		}
	}
	if (failed > 1)
		add_err(err, errlen, " (and %d more)", failed - 1);
	return rc;
}

int tweak_restore(struct tweak_set *ts, char *err, size_t errlen)
{
	int rc = tweak_unapply(ts, err, errlen);

	if (!ts->journal_written)
		return rc;
	if (rc) {
		add_err(err, errlen, "; the journal stays: %s", ts->journal);
		return rc;
	}
	if ((rc = journal_remove(ts->journal)) < 0) {
		util_errf(err, errlen, "tweaks restored, but the journal %s stays: %s", ts->journal,
			  strerror(-rc));
		return rc;
	}
	ts->journal_written = false;
	/* Only now: the record must outlive the journal, never the other way. */
	lock_release(&ts->record);
	return 0;
}

int tweak_apply(struct tweak_set *ts, char *err, size_t errlen)
{
	char back[TWEAK_VALUE_MAX], why[WHY_MAX];
	int rc = 0;

	if (!ts->n)
		return 0;
	if (!ts->journal) {
		util_errf(err, errlen, "tweaks: no journal set");
		return -EINVAL;
	}
	/* Originals are read once per journal: after tweak_unapply (ab rounds)
	 * the files hold them again anyway, and the journal must keep the
	 * values from before the very first write. */
	if (!ts->journal_written) {
		for (size_t i = 0; i < ts->n; i++) {
			struct tweak *t = &ts->v[i];

			if ((rc = value_read(t->path, back, sizeof(back))) < 0) {
				util_errf(err, errlen, "%s: cannot read the original: %s", t->path,
					  reason(-rc));
				return rc;
			}
			free(t->original);
			if (!(t->original = strdup(back))) {
				util_errf(err, errlen, "%s: out of memory", t->path);
				return -ENOMEM;
			}
		}
		/* The record first: a run killed between the two leaves a record
		 * without a journal (removed by the next run), never a journal
		 * nobody knows of. */
		if ((rc = lock_take(&ts->record, LOCK_JOURNAL, ts->journal, ts->report_abs, err,
				    errlen)) < 0 &&
		    rc != -ENOENT)
			return rc;
		if ((rc = journal_write(ts, err, errlen)) < 0) {
			lock_release(&ts->record);
			return rc;
		}
		ts->journal_written = true;
	}
	for (size_t i = 0; i < ts->n; i++) {
		struct tweak *t = &ts->v[i];

		if ((rc = value_write(t->path, t->value)) < 0) {
			util_errf(err, errlen, "%s: write '%s': %s", t->path, t->value,
				  reason(-rc));
			goto undo;
		}
		if ((rc = value_read(t->path, back, sizeof(back))) < 0) {
			util_errf(err, errlen, "%s: read back: %s", t->path, reason(-rc));
			goto undo;
		}
		if (!tweak_value_equal(t->value, back)) {
			util_errf(err, errlen, "%s: wrote '%s', reads back '%s'", t->path, t->value,
				  back);
			rc = -EINVAL;
			goto undo;
		}
		t->applied = true;
	}
	return 0;
undo:
	if (tweak_restore(ts, why, sizeof(why)) < 0)
		add_err(err, errlen, "; then %s", why);
	return rc;
}

int tweak_journal_restore(const char *journal, FILE *out, char *err, size_t errlen)
{
	char real[PATH_MAX], cur[TWEAK_VALUE_MAX], why[WHY_MAX];
	char ep[PATH_MAX], ec[TWEAK_VALUE_MAX * 4], eo[TWEAK_VALUE_MAX * 4];
	struct tweak_journal j;
	struct stat st;
	size_t failed = 0;
	pid_t owner;
	int rc;

	if ((rc = journal_load(journal, &j, &st, err, errlen)) < 0) {
		tweak_journal_free(&j);
		return rc == -EPERM ? EXIT_ENV : EXIT_USAGE;
	}
	/* Restoring under a live run would change the machine mid-measurement;
	 * the run restores by itself when it ends. */
	if ((owner = running_rtsoak(j.pid))) {
		util_errf(
		    err, errlen,
		    "%s belongs to rtsoak pid %d, which is still running (it restores when it ends: SIGTERM)",
		    journal, (int)owner);
		tweak_journal_free(&j);
		return EXIT_ENV;
	}
	/* rtsoak never journals a file on the deny list: this journal was not
	 * written by it, and none of it is to be acted on. */
	for (size_t i = 0; i < j.n; i++) {
		const char *d = realpath(j.v[i].path, real) ? tweak_denied(real) : NULL;

		if (d || (d = tweak_denied(j.v[i].path))) {
			util_escape(j.v[i].path, ep, sizeof(ep));
			util_errf(err, errlen,
				  "%s names %s, which rtsoak never writes (%s): refusing the whole "
				  "journal",
				  journal, ep, d);
			tweak_journal_free(&j);
			return EXIT_ENV;
		}
	}
	for (size_t i = j.n; i-- > 0;) {
		const char *path = j.v[i].path, *orig = j.v[i].original;

		util_escape(path, ep, sizeof(ep));
		util_escape(orig, eo, sizeof(eo));
		if (!path_ok(path, real, why, sizeof(why)) ||
		    (rc = restore_one(real, orig, cur, sizeof(cur), why, sizeof(why))) < 0) {
			util_escape(why, ec, sizeof(ec));
			fprintf(out, "%s: cannot restore: %s\n", ep, ec);
			failed++;
		} else if (rc) {
			util_escape(cur, ec, sizeof(ec));
			fprintf(out, "restored %s: '%s' -> '%s'\n", ep, ec, eo);
		} else {
			fprintf(out, "%s already '%s'\n", ep, eo);
		}
	}
	fflush(out);
	if (failed) {
		util_errf(err, errlen, "%s: %zu of %zu values not restored; the journal stays",
			  journal, failed, j.n);
		tweak_journal_free(&j);
		return EXIT_ENV;
	}
	tweak_journal_free(&j);
	if ((rc = journal_remove(journal)) < 0) {
		util_errf(err, errlen, "%s: every value restored, but the journal stays: %s",
			  journal, strerror(-rc));
		return EXIT_ENV;
	}
	lock_forget_journal(st.st_dev, st.st_ino);
	return EXIT_OK;
}

json_t *tweak_report(const struct tweak_set *ts)
{
	json_t *list = json_array();
	int bad = !list;

	for (size_t i = 0; !bad && i < ts->n; i++) {
		const struct tweak *t = &ts->v[i];
		json_t *o = json_object();

		bad |= json_array_append_new(list, o);
		bad |= json_object_set_new(o, "path", json_string(t->path));
		bad |= json_object_set_new(o, "original",
					   t->original ? json_string(t->original) : json_null());
		bad |= json_object_set_new(o, "value", json_string(t->value));
	}
	if (bad) {
		json_decref(list);
		return NULL;
	}
	return list;
}

void tweak_set_free(struct tweak_set *ts)
{
	if (ts->locks)
		for (size_t i = 0; i < ts->n; i++)
			lock_release(&ts->locks[i]);
	free(ts->locks);
	if (ts->journal_written)
		lock_abandon(&ts->record);
	else
		lock_release(&ts->record);
	for (size_t i = 0; i < ts->n; i++)
		tweak_free(&ts->v[i]);
	free(ts->v);
	free(ts->journal);
	free(ts->report);
	free(ts->report_abs);
	memset(ts, 0, sizeof(*ts));
}
