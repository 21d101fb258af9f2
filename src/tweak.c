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
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuset.h"
#include "tweak.h"
#include "util.h"

#define WHY_MAX 512

__attribute__((format(printf, 3, 4))) static void set_err(char *err, size_t len, const char *fmt,
							  ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

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
		set_err(why, whylen, "%s", strerror(errno));
		return false;
	}
	if (!under(real, "/sys") && !under(real, "/proc/sys")) {
		set_err(why, whylen, "not under /sys or /proc/sys");
		return false;
	}
	if (stat(real, &st) < 0) {
		set_err(why, whylen, "%s", strerror(errno));
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		set_err(why, whylen, "not a regular file");
		return false;
	}
	/* root passes access(W_OK) on a 0444 sysfs file, yet the kernel has no
	 * store method for it: the mode bits are the real answer. */
	if (!(st.st_mode & 0222)) {
		set_err(why, whylen, "read-only (mode %04o)", (unsigned)(st.st_mode & 07777));
		return false;
	}
	if (!(st.st_mode & 0444)) {
		set_err(why, whylen, "write-only (mode %04o): its value cannot be restored",
			(unsigned)(st.st_mode & 07777));
		return false;
	}
	if (access(real, R_OK | W_OK) < 0) {
		set_err(why, whylen, "%s", strerror(errno));
		return false;
	}
	if ((rc = value_read(real, value, sizeof(value))) < 0) {
		set_err(why, whylen, "cannot read: %s", reason(-rc));
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
		set_err(err, len, "--set %s (-> %s): %s", p, real, why);
	else
		set_err(err, len, "--set %s: %s", p, why);
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
		set_err(err, errlen, "--set %s: out of memory", p);
		return -ENOMEM;
	}
	ts->n++;
	return 0;
}

int tweak_add(struct tweak_set *ts, const char *spec, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '='), *value;
	char pattern[PATH_MAX];
	const char *one[1] = { pattern };
	const char *const *paths = one;
	size_t npaths = 1, first = ts->n, plen;
	glob_t gl = { 0 };
	bool globbed = false;
	struct tweak *v;
	int rc = 0;

	if (!eq) {
		set_err(err, errlen, "--set %s: expected PATH=VALUE", spec);
		return -EINVAL;
	}
	plen = (size_t)(eq - spec);
	value = eq + 1;
	if (!plen) {
		set_err(err, errlen, "--set %s: needs a path (PATH=VALUE)", spec);
		return -EINVAL;
	}
	if (plen >= sizeof(pattern)) {
		set_err(err, errlen, "--set %.64s...: path too long", spec);
		return -EINVAL;
	}
	memcpy(pattern, spec, plen);
	pattern[plen] = '\0';
	if (pattern[0] != '/') {
		set_err(err, errlen, "--set %s: needs an absolute path", pattern);
		return -EINVAL;
	}
	if (!value[strspn(value, " \t")]) {
		set_err(err, errlen, "--set %s: needs a value (PATH=VALUE)", pattern);
		return -EINVAL;
	}
	if (strlen(value) >= TWEAK_VALUE_MAX) {
		set_err(err, errlen, "--set %s: value longer than %d bytes", pattern,
			TWEAK_VALUE_MAX - 1);
		return -EINVAL;
	}
	/* sysfs takes one value per write; a newline inside would be parsed
	 * (or ignored) differently by every attribute. */
	if (strchr(value, '\n')) {
		set_err(err, errlen, "--set %s: the value contains a newline", pattern);
		return -EINVAL;
	}
	/* A plain path is not globbed, so that a missing file says ENOENT. */
	if (strpbrk(pattern, "*?[")) {
		int g = glob(pattern, 0, NULL, &gl);

		globbed = true;
		if (g == GLOB_NOSPACE) {
			set_err(err, errlen, "--set %s: out of memory", pattern);
			globfree(&gl);
			return -ENOMEM;
		}
		if (g) {
			set_err(err, errlen, "--set %s: matches no file", pattern);
			globfree(&gl);
			return -EINVAL;
		}
		paths = (const char *const *)gl.gl_pathv;
		npaths = gl.gl_pathc;
	}
	if (!(v = realloc(ts->v, (ts->n + npaths) * sizeof(*v)))) {
		set_err(err, errlen, "--set %s: out of memory", pattern);
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
	if (globbed)
		globfree(&gl);
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

static pid_t journal_owner(const char *journal)
{
	json_t *root = json_load_file(journal, 0, NULL);
	pid_t pid = running_rtsoak(json_integer_value(json_object_get(root, "pid")));

	json_decref(root);
	return pid;
}

int tweak_set_journal(struct tweak_set *ts, const char *report_path, bool force, char *err,
		      size_t errlen)
{
	char cwd[PATH_MAX] = "", path[PATH_MAX];
	const char *base = strcmp(report_path, "-") ? report_path : "rtsoak";
	struct stat st;
	pid_t owner;
	int n;

	/* Moving it now would orphan the journal on disk. */
	if (ts->journal_written) {
		set_err(err, errlen, "journal %s: already written", ts->journal);
		return -EBUSY;
	}
	/* Absolute: the message tells the user what to pass to `rtsoak restore`
	 * from wherever they are. */
	if (base[0] != '/' && !getcwd(cwd, sizeof(cwd))) {
		set_err(err, errlen, "journal for %s: working directory: %s", report_path,
			strerror(errno));
		return -errno;
	}
	n = snprintf(path, sizeof(path), "%s%s%s.journal", cwd, *cwd ? "/" : "", base);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		set_err(err, errlen, "journal for %s: path too long", report_path);
		return -ENAMETOOLONG;
	}
	free(ts->journal);
	free(ts->report);
	ts->journal = strdup(path);
	ts->report = strdup(report_path);
	ts->journal_written = false;
	if (!ts->journal || !ts->report) {
		set_err(err, errlen, "journal: out of memory");
		return -ENOMEM;
	}
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		set_err(err, errlen, "journal %s: %s", path, strerror(errno));
		return -errno;
	}
	if ((owner = journal_owner(path))) {
		set_err(err, errlen,
			"the journal %s belongs to rtsoak pid %d, which is still running", path,
			(int)owner);
		return -EBUSY;
	}
	if (!force) {
		set_err(
		    err, errlen,
		    "a journal from an earlier run is still present: %s (run `rtsoak restore %s`, or --force)",
		    path, path);
		return -EEXIST;
	}
	/* --force: the values as they are now count as the originals.  Our
	 * tweak_apply overwrites the old journal (and forgets what it held);
	 * a run without tweaks leaves it. */
	return 0;
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
		set_err(err, errlen, "journal %s: cannot encode it (out of memory or not UTF-8)",
			ts->journal);
		return -EINVAL;
	}
	if ((rc = util_write_atomic(ts->journal, text, strlen(text))) < 0)
		set_err(err, errlen, "journal %s: %s", ts->journal, strerror(-rc));
	free(text);
	return rc;
}

static void fsync_dir_of(const char *path)
{
	char dir[PATH_MAX], *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

/* Without the fsync a power cut could bring the journal back: harmless (the
 * restore is idempotent) but it would stop the next run. */
static int journal_remove(const char *journal)
{
	if (unlink(journal) < 0 && errno != ENOENT)
		return -errno;
	fsync_dir_of(journal);
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
		set_err(why, whylen, "write '%s': %s", original, reason(-rc));
		return rc;
	}
	if ((rc = value_read(path, back, sizeof(back))) < 0) {
		set_err(why, whylen, "read back: %s", reason(-rc));
		return rc;
	}
	if (!normalised_equal(original, back)) {
		set_err(why, whylen, "wrote '%s', reads back '%s'", original, back);
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
			set_err(err, errlen, "%s: cannot restore: %s", t->path, why);
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
		set_err(err, errlen, "tweaks restored, but the journal %s stays: %s", ts->journal,
			strerror(-rc));
		return rc;
	}
	ts->journal_written = false;
	return 0;
}

int tweak_apply(struct tweak_set *ts, char *err, size_t errlen)
{
	char back[TWEAK_VALUE_MAX], why[WHY_MAX];
	int rc = 0;

	if (!ts->n)
		return 0;
	if (!ts->journal) {
		set_err(err, errlen, "tweaks: no journal set");
		return -EINVAL;
	}
	/* Originals are read once per journal: after tweak_unapply (ab rounds)
	 * the files hold them again anyway, and the journal must keep the
	 * values from before the very first write. */
	if (!ts->journal_written) {
		for (size_t i = 0; i < ts->n; i++) {
			struct tweak *t = &ts->v[i];

			if ((rc = value_read(t->path, back, sizeof(back))) < 0) {
				set_err(err, errlen, "%s: cannot read the original: %s", t->path,
					reason(-rc));
				return rc;
			}
			free(t->original);
			if (!(t->original = strdup(back))) {
				set_err(err, errlen, "%s: out of memory", t->path);
				return -ENOMEM;
			}
		}
		if ((rc = journal_write(ts, err, errlen)) < 0)
			return rc;
		ts->journal_written = true;
	}
	for (size_t i = 0; i < ts->n; i++) {
		struct tweak *t = &ts->v[i];

		if ((rc = value_write(t->path, t->value)) < 0) {
			set_err(err, errlen, "%s: write '%s': %s", t->path, t->value, reason(-rc));
			goto undo;
		}
		if ((rc = value_read(t->path, back, sizeof(back))) < 0) {
			set_err(err, errlen, "%s: read back: %s", t->path, reason(-rc));
			goto undo;
		}
		if (!tweak_value_equal(t->value, back)) {
			set_err(err, errlen, "%s: wrote '%s', reads back '%s'", t->path, t->value,
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

/* Exit codes, as in cli.h. */
enum { RESTORE_OK = 0, RESTORE_BAD_JOURNAL = 2, RESTORE_FAILED = 3 };

static int journal_check(const char *journal, json_t *root, char *err, size_t errlen)
{
	const char *schema = json_string_value(json_object_get(root, "schema"));
	json_t *list = json_object_get(root, "tweaks"), *o;
	size_t i;

	if (!schema || strcmp(schema, TWEAK_JOURNAL_SCHEMA)) {
		set_err(err, errlen, "%s: not an rtsoak journal (schema %s, expected %s)", journal,
			schema ? schema : "missing", TWEAK_JOURNAL_SCHEMA);
		return -EINVAL;
	}
	if (!json_is_array(list)) {
		set_err(err, errlen, "%s: \"tweaks\" is not an array", journal);
		return -EINVAL;
	}
	json_array_foreach (list, i, o) {
		if (!json_is_string(json_object_get(o, "path")) ||
		    !json_is_string(json_object_get(o, "original"))) {
			set_err(err, errlen,
				"%s: tweaks[%zu] needs \"path\" and \"original\" strings", journal,
				i);
			return -EINVAL;
		}
	}
	return 0;
}

int tweak_journal_restore(const char *journal, FILE *out, char *err, size_t errlen)
{
	char real[PATH_MAX], cur[TWEAK_VALUE_MAX], why[WHY_MAX];
	json_t *root, *list;
	json_error_t je;
	size_t failed = 0, n;
	pid_t owner;
	FILE *f;
	int rc;

	if (!(f = fopen(journal, "re"))) {
		set_err(err, errlen, "%s: %s", journal, strerror(errno));
		return RESTORE_BAD_JOURNAL;
	}
	root = json_loadf(f, 0, &je);
	fclose(f);
	if (!root) {
		set_err(err, errlen, "%s: not JSON: line %d: %s", journal, je.line, je.text);
		return RESTORE_BAD_JOURNAL;
	}
	if (journal_check(journal, root, err, errlen) < 0) {
		json_decref(root);
		return RESTORE_BAD_JOURNAL;
	}
	/* Restoring under a live run would change the machine mid-measurement;
	 * the run restores by itself when it ends. */
	if ((owner = running_rtsoak(json_integer_value(json_object_get(root, "pid"))))) {
		set_err(
		    err, errlen,
		    "%s belongs to rtsoak pid %d, which is still running (it restores when it ends: SIGTERM)",
		    journal, (int)owner);
		json_decref(root);
		return RESTORE_FAILED;
	}
	list = json_object_get(root, "tweaks");
	n = json_array_size(list);
	for (size_t i = n; i-- > 0;) {
		json_t *o = json_array_get(list, i);
		const char *path = json_string_value(json_object_get(o, "path"));
		const char *orig = json_string_value(json_object_get(o, "original"));

		if (!path_ok(path, real, why, sizeof(why)) ||
		    (rc = restore_one(real, orig, cur, sizeof(cur), why, sizeof(why))) < 0) {
			fprintf(out, "%s: cannot restore: %s\n", path, why);
			failed++;
		} else if (rc) {
			fprintf(out, "restored %s: '%s' -> '%s'\n", path, cur, orig);
		} else {
			fprintf(out, "%s already '%s'\n", path, orig);
		}
	}
	json_decref(root);
	fflush(out);
	if (failed) {
		set_err(err, errlen, "%s: %zu of %zu values not restored; the journal stays",
			journal, failed, n);
		return RESTORE_FAILED;
	}
	if ((rc = journal_remove(journal)) < 0) {
		set_err(err, errlen, "%s: every value restored, but the journal stays: %s", journal,
			strerror(-rc));
		return RESTORE_FAILED;
	}
	return RESTORE_OK;
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
	for (size_t i = 0; i < ts->n; i++)
		tweak_free(&ts->v[i]);
	free(ts->v);
	free(ts->journal);
	free(ts->report);
	memset(ts, 0, sizeof(*ts));
}
