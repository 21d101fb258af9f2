// SPDX-License-Identifier: GPL-2.0-or-later
/* cyclictest_read: import a cyclictest --json file (rt-tests 2.x) into the
 * report model.
 *
 * What the file holds (rt_write_json + cyclictest's write_stats, checked
 * against the output of cyclictest 2.40): "file_version", "cmdline:" and
 * "rt_test_version:" (the colons are part of the keys), "start_time" and
 * "end_time" (local time with its offset, 1 s resolution), "return_code",
 * "sysinfo" (uname and /sys/kernel/realtime), "num_threads",
 * "resolution_in_ns" (1 with -N: every value below is in ns, not us) and
 * "thread": {"0": {...}, ...}, each with "histogram" (with -h a sparse
 * {"<us>": count} of 1 us buckets; empty or absent without -h), "cycles",
 * "min", "max", "avg" (printf %.2f of sum / cycles, so -nan when cycles is
 * 0), "cpu" and "node".
 *
 * What it does not hold, and the model marks unknown: missed deadlines,
 * stddev, the time of the max, percentiles without -h.  The histogram's
 * overflow count is not written either; it is cycles minus the
 * histogram's total.  The interval is only in the command line, which is
 * therefore parsed the way cyclictest's getopt_long parses it
 * (cyclictest_cmdline.c). */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cpuset.h"
#include "cyclictest.h"
#include "cyclictest_cmdline.h"
#include "util.h"

/* The model's name of each policy (config "policy"), as rtsoak writes it. */
static const char *const ct_policy_name[] = { "SCHED_OTHER", "SCHED_FIFO", "SCHED_RR",
					      "SCHED_BATCH", "SCHED_IDLE" };

struct ct_thread {
	uint64_t cycles, min, max; /* min and max in ns, meaningful when cycles > 0 */
	long double sum_ns;	   /* avg x cycles */
	bool avg_known, cpu_known;
	bool null_min, null_max, null_avg;
	int cpu;
	json_t *hist;	  /* the histogram object, NULL if none */
	uint64_t in_hist; /* samples it holds; cycles - in_hist overflowed */
};

struct ct {
	const char *file;
	char *err;
	size_t errlen;
	struct report *r;
	uint64_t scale; /* ns per unit of the file: 1000, or 1 with -N */
	struct ct_cmdline cmd;
	struct ct_thread *t;
	size_t n;
};

static int fail(struct ct *ct, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct ct *ct, const char *where, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(ct->err, ct->errlen, "%s: %s: %s", ct->file, where, what);
	return -EINVAL;
}

/* ---------------------------------------------------------- loading -- */

/* Length of a non-finite number as printf writes it ([+-]nan, [+-]inf,
 * [+-]infinity, any case) at p, or 0.  It must stand alone: not inside a
 * longer word or number. */
static size_t nonfinite_len(const char *p, size_t left, char prev)
{
	static const char *const words[] = { "infinity", "inf", "nan" };
	size_t s = (*p == '-' || *p == '+') ? 1 : 0;
	char c0 = left > s ? (char)(p[s] | 0x20) : 0;

	/* The common case, every byte outside strings: one compare. */
	if (c0 != 'i' && c0 != 'n')
		return 0;
	if (isalnum((unsigned char)prev) || prev == '.' || prev == '_')
		return 0;
	for (unsigned i = 0; i < 3; i++) {
		size_t w = strlen(words[i]);
		if (left < s + w || strncasecmp(p + s, words[i], w))
			continue;
		char next = left > s + w ? p[s + w] : '\0';
		if (isalnum((unsigned char)next) || next == '.' || next == '_')
			return 0;
		return s + w;
	}
	return 0;
}

/* What ends a run of plain bytes outside strings: a quote, and what a
 * non-finite number can start with (nonfinite_len is 0 anywhere else). */
static bool unnan_stop(unsigned char c)
{
	return c == '"' || c == '-' || c == '+' || (c | 0x20) == 'n' || (c | 0x20) == 'i';
}

/* in with every non-finite number outside strings replaced by null, into
 * out, or only measured when out is NULL: the length it takes, and the
 * replacements in *replaced.  A line keeps its number, so parse errors
 * still point at the right line (the column may be off by one after a
 * replaced "nan"). */
static size_t unnan(const char *in, size_t len, char *out, unsigned *replaced)
{
	size_t o = 0, i = 0, from = 0;

	*replaced = 0;
	while (i < len) {
		size_t k;
		if (!unnan_stop((unsigned char)in[i])) {
			i++;
			continue;
		}
		if (in[i] == '"') {
			/* to the closing quote, past escaped characters */
			for (i++; i < len && in[i] != '"'; i++)
				if (in[i] == '\\')
					i++;
			i++;
			continue;
		}
		if (!(k = nonfinite_len(in + i, len - i, i ? in[i - 1] : ' '))) {
			i++;
			continue;
		}
		if (out) {
			memcpy(out + o, in + from, i - from);
			memcpy(out + o + (i - from), "null", 4);
		}
		o += i - from + 4;
		i += k;
		from = i;
		(*replaced)++;
	}
	if (from < len && out)
		memcpy(out + o, in + from, len - from);
	return o + (from < len ? len - from : 0);
}

/* A big file in one read into 2 MiB pages: page by page (4 KiB), a VM
 * took 0.5 s to fault in a 175 MB report, with huge pages 0.03 to 0.3 s
 * (issue 20).  The buffer is aligned for them, and malloc's, so free()
 * frees it.  NULL: not read here (no memory, a read error, the file grew),
 * for util_read_fd to read it again from the start and say what is wrong. */
#define SLURP_HUGE_FROM (8u << 20)
#define SLURP_HUGE_PAGE (2u << 20)
static char *slurp_huge(int fd, size_t size, size_t *len)
{
	size_t room = (size + 2 + SLURP_HUGE_PAGE - 1) & ~((size_t)SLURP_HUGE_PAGE - 1), n = 0;
	char *buf = aligned_alloc(SLURP_HUGE_PAGE, room);

	if (!buf)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(buf, room, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
#endif
	/* Up to one byte more than fstat said, to see a file that grew. */
	while (n <= size) {
		ssize_t got = read(fd, buf + n, size + 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got == 0)
				break;
			free(buf);
			return NULL;
		}
		n += (size_t)got;
	}
	if (n > size) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The whole file, which must be a regular file of at most REPORT_FILE_MAX
 * bytes.  Opened non-blocking so that a FIFO (or a device) named as a
 * report is refused at once instead of blocking in open() (issue 12).
 * NULL with err set and errno ENOMEM (out of memory) or EINVAL. */
static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	ssize_t got;
	char *buf;

	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		errno = EINVAL;
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	if ((uint64_t)st.st_size > REPORT_FILE_MAX) {
		snprintf(err, errlen, "%s: larger than the readers' limit of %llu bytes", path,
			 (unsigned long long)REPORT_FILE_MAX);
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	if ((size_t)st.st_size >= SLURP_HUGE_FROM &&
	    (buf = slurp_huge(fd, (size_t)st.st_size, len))) {
		close(fd);
		return buf;
	}
	if (lseek(fd, 0, SEEK_SET) < 0)
		got = -errno;
	else
		got = util_read_fd(fd, (size_t)st.st_size, REPORT_FILE_MAX, false, &buf);
	close(fd);
	if (got >= 0) {
		*len = (size_t)got;
		return buf;
	}
	if (got == -EFBIG)
		snprintf(err, errlen, "%s: grew past the readers' size limit", path);
	else if (got == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	else
		snprintf(err, errlen, "%s: read error: %s", path, strerror((int)-got));
	errno = got == -ENOMEM ? ENOMEM : EINVAL;
	return NULL;
}

char *cyclictest_load_raw(const char *path, size_t *lenp, char *err, size_t errlen)
{
	size_t len, blank = 0;
	char *text = slurp(path, &len, err, errlen);

	if (!text)
		return NULL; /* errno set */
	while (blank < len && isspace((unsigned char)text[blank]))
		blank++;
	if (blank == len) {
		snprintf(err, errlen, "%s: empty file", path);
		free(text);
		errno = EINVAL;
		return NULL;
	}
	*lenp = len;
	return text;
}

int cyclictest_unnan(const char *path, char **textp, size_t *lenp, bool *had_nan, char *err,
		     size_t errlen)
{
	unsigned replaced;
	/* Measured first: most files have none, and need no copy. */
	size_t clen = unnan(*textp, *lenp, NULL, &replaced);
	char *clean;

	*had_nan = replaced > 0;
	if (!replaced)
		return 0;
	if (!(clean = malloc(clen + 1))) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	unnan(*textp, *lenp, clean, &replaced);
	clean[clen] = '\0';
	free(*textp);
	*textp = clean;
	*lenp = clen;
	return 0;
}

char *cyclictest_load_text(const char *path, size_t *lenp, bool *had_nan, char *err, size_t errlen)
{
	char *text = cyclictest_load_raw(path, lenp, err, errlen);

	*had_nan = false;
	if (!text)
		return NULL; /* errno set */
	if (cyclictest_unnan(path, &text, lenp, had_nan, err, errlen)) {
		free(text);
		errno = ENOMEM;
		return NULL;
	}
	return text;
}

json_t *cyclictest_parse_text(const char *path, const char *clean, size_t clen, char *err,
			      size_t errlen)
{
	json_error_t jerr;
	json_t *root;

	/* cyclictest never writes a key twice; a duplicate means an edited file. */
	root = json_loadb(clean, clen, JSON_REJECT_DUPLICATES, &jerr);
	errno = EINVAL;
	if (!root) {
		if (util_json_oom(&jerr)) {
			snprintf(err, errlen, "%s: out of memory", path);
			errno = ENOMEM;
		} else if (jerr.position >= (int)clen) {
			/* jansson stops at the end of the input when it is cut short. */
			snprintf(err, errlen,
				 "%s: truncated: the JSON ends at line %d before it is complete",
				 path, jerr.line);
		} else {
			snprintf(err, errlen, "%s: not valid JSON at line %d, column %d: %s", path,
				 jerr.line, jerr.column, jerr.text);
		}
	}
	return root;
}

json_t *cyclictest_load(const char *path, bool *had_nan, char *err, size_t errlen)
{
	size_t len;
	char *text = cyclictest_load_text(path, &len, had_nan, err, errlen);
	json_t *root;

	if (!text)
		return NULL;
	root = cyclictest_parse_text(path, text, len, err, errlen);
	int saved = errno;
	free(text);
	errno = saved;
	return root;
}

bool cyclictest_detect(json_t *root)
{
	if (!json_is_object(root) || json_object_get(root, "schema"))
		return false;
	return json_is_string(json_object_get(root, "rt_test_version:")) ||
	       json_is_string(json_object_get(root, "rt_test_version")) ||
	       (json_is_object(json_object_get(root, "thread")) &&
		json_is_integer(json_object_get(root, "num_threads")));
}

/* --------------------------------------------------------------- header -- */

/* start_time / end_time: strftime("%a, %d %b %Y %T %z") in local time, e.g.
 * "Tue, 01 Dec 2026 02:16:49 +0000".  Parsed by hand: strptime's %a and %b
 * follow the reader's locale, cyclictest's are English. */
static int stamp_parse(const char *s, time_t *out)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	const char *comma = s ? strchr(s, ',') : NULL, *m;
	char mon[4], sign;
	int day, year, hh, mm, ss, off, end = 0;
	struct tm tm = { 0 };

	if (!comma ||
	    sscanf(comma + 1, " %2d %3[A-Za-z] %4d %2d:%2d:%2d %c%4d%n", &day, mon, &year, &hh, &mm,
		   &ss, &sign, &off, &end) != 8 ||
	    comma[1 + end] != '\0' || (sign != '+' && sign != '-') || strlen(mon) != 3 ||
	    !(m = strstr(months, mon)) || (m - months) % 3 || day < 1 || day > 31 || hh > 23 ||
	    mm > 59 || ss > 60 || off < 0 || off % 100 > 59)
		return -EINVAL;
	tm.tm_year = year - 1900;
	tm.tm_mon = (int)(m - months) / 3;
	tm.tm_mday = day;
	tm.tm_hour = hh;
	tm.tm_min = mm;
	tm.tm_sec = ss;
	long offset = (off / 100) * 3600L + (off % 100) * 60L;
	*out = timegm(&tm) - (sign == '+' ? offset : -offset);
	return *out < 0 ? -EINVAL : 0;
}

static const char *get_string(json_t *o, const char *key, const char *alt)
{
	json_t *v = json_object_get(o, key);

	if (!v && alt)
		v = json_object_get(o, alt);
	return json_string_value(v);
}

/* argv from the command line split on spaces: cyclictest joined its argv
 * with single spaces, so an argument that held one is split (best effort).
 * NULL-terminated like main()'s, which cyclictest_cmdline_parse relies on. */
static int argv_split(struct report *r, const char *cmdline)
{
	char *copy = strdup(cmdline ? cmdline : ""), *save = NULL, *tok;
	size_t n = 0;

	if (!copy)
		return -ENOMEM;
	for (const char *p = copy; *p; p++)
		n += *p == ' ';
	r->argv = calloc(n + 2, sizeof(*r->argv));
	if (!r->argv) {
		free(copy);
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (!(r->argv[r->argc++] = strdup(tok))) {
			free(copy);
			return -ENOMEM;
		}
	free(copy);
	return 0;
}

/* ------------------------------------------------------------- threads -- */

/* A non-negative integer statistic in the file's unit, as ns.  null (a NaN
 * or inf in the file) is accepted where `nullable`, with *isnull set. */
static int get_value(struct ct *ct, json_t *t, const char *key, const char *where, bool nullable,
		     uint64_t *out, bool *isnull)
{
	json_t *v = json_object_get(t, key);
	char path[64];

	snprintf(path, sizeof(path), "%s.%s", where, key);
	*out = 0;
	if (isnull)
		*isnull = json_is_null(v);
	if (nullable && json_is_null(v))
		return 0;
	if (!json_is_integer(v))
		return fail(ct, path, v ? "is not an integer" : "is missing");
	if (json_integer_value(v) < 0)
		return fail(ct, path, "is negative (%" JSON_INTEGER_FORMAT ")",
			    json_integer_value(v));
	if ((uint64_t)json_integer_value(v) > INT64_MAX / ct->scale)
		return fail(ct, path, "is out of range");
	*out = (uint64_t)json_integer_value(v) * ct->scale;
	return 0;
}

/* A bucket key: the latency in whole units (us, or ns with -N), digits only. */
static bool bucket_parse(const char *key, uint64_t *k)
{
	size_t len = strlen(key);

	if (!len || len > 15)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)key[i]))
			return false;
	*k = strtoull(key, NULL, 10);
	return true;
}

static int read_histogram(struct ct *ct, struct ct_thread *th, json_t *h, const char *where)
{
	char path[64];
	const char *key;
	json_t *v;
	uint64_t k;

	snprintf(path, sizeof(path), "%s.histogram", where);
	if (!h || json_is_null(h))
		return 0;
	if (!json_is_object(h))
		return fail(ct, path, "is not an object");
	json_object_foreach (h, key, v) {
		if (!bucket_parse(key, &k))
			return fail(ct, path, "key '%.20s' is not a latency in whole %s", key,
				    ct->scale == 1 ? "ns" : "us");
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return fail(ct, path, "count of bucket %s is not a non-negative integer",
				    key);
		uint64_t c = (uint64_t)json_integer_value(v);
		if (c > th->cycles - th->in_hist)
			return fail(ct, path,
				    "holds more samples than the thread's cycles (%" PRIu64 ")",
				    th->cycles);
		th->in_hist += c;
	}
	th->hist = json_object_size(h) ? h : NULL;
	return 0;
}

static int read_thread(struct ct *ct, json_t *threads, size_t i)
{
	struct ct_thread *th = &ct->t[i];
	char where[32], key[24];
	json_t *t, *cpu, *avg;
	uint64_t cycles;
	int rc;

	snprintf(key, sizeof(key), "%zu", i);
	snprintf(where, sizeof(where), "thread.%zu", i);
	t = json_object_get(threads, key);
	if (!json_is_object(t))
		return fail(ct, where,
			    t ? "is not an object"
			      : "is missing (threads must be numbered 0..n-1)");
	/* cycles is a count, not a latency: read it unscaled. */
	json_t *c = json_object_get(t, "cycles");
	if (!json_is_integer(c) || json_integer_value(c) < 0)
		return fail(ct, where,
			    c ? "cycles is not a non-negative integer" : "has no cycles");
	cycles = th->cycles = (uint64_t)json_integer_value(c);
	if ((rc = get_value(ct, t, "min", where, cycles == 0, &th->min, &th->null_min)) ||
	    (rc = get_value(ct, t, "max", where, cycles == 0, &th->max, &th->null_max)))
		return rc;
	if (th->null_min || th->null_max) { /* only a thread without cycles may have NaN there */
		th->min = th->max = 0;
	} else if (cycles && th->min > th->max) {
		return fail(ct, where, "min is larger than max");
	}
	avg = json_object_get(t, "avg");
	th->null_avg = json_is_null(avg);
	if (!th->null_avg) {
		if (!json_is_number(avg))
			return fail(ct, where, avg ? "avg is not a number" : "has no avg");
		double a = json_number_value(avg);
		if (a < 0)
			return fail(ct, where, "avg is negative (%g)", a);
		if (a * (double)ct->scale > 9e18)
			return fail(ct, where, "avg is out of range");
		/* sum / cycles printed with %.2f: between min and max, give or
		 * take the rounding.  Beyond, the file was edited, and the mean
		 * times the cycles could pass what a recorder's sum holds. */
		if (cycles && !th->null_min && !th->null_max &&
		    (a * (double)ct->scale < (double)th->min - 0.01 * (double)ct->scale ||
		     a * (double)ct->scale > (double)th->max + 0.01 * (double)ct->scale))
			return fail(ct, where, "avg %g is outside min..max", a);
		th->avg_known = true;
		th->sum_ns = (long double)a * ct->scale * cycles;
	}
	cpu = json_object_get(t, "cpu");
	if (json_is_integer(cpu) && json_integer_value(cpu) >= CPUSET_MAX)
		return fail(ct, where, "cpu %" JSON_INTEGER_FORMAT " is out of range",
			    json_integer_value(cpu));
	if (cpu && !json_is_null(cpu) && !json_is_integer(cpu))
		return fail(ct, where, "cpu is not an integer");
	/* -1: the thread was not pinned (older versions without -a). */
	th->cpu_known = json_is_integer(cpu) && json_integer_value(cpu) >= 0;
	th->cpu = th->cpu_known ? (int)json_integer_value(cpu) : (int)i;
	return read_histogram(ct, th, json_object_get(t, "histogram"), where);
}

/* Does this thread's row get percentiles?  With a non-empty histogram, or
 * with -h on the command line (then an empty one means every sample
 * overflowed). */
static bool has_hist(const struct ct *ct, const struct ct_thread *th)
{
	return th->hist || (ct->cmd.parsed && ct->cmd.hist > 0);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Each histogram bucket k holds the samples in [k, k + 1) units; they go in
 * at the bucket's middle, k * 1000 + 500 ns, which the log-linear buckets
 * (never wider than 512 ns below 131 us) keep inside the same microsecond,
 * so a percentile lands in the cyclictest bucket that really holds it.  With
 * -N the buckets are 1 ns wide and exact.  Overflowed samples (at least the
 * histogram's range) go in at the thread's max, the only value known for
 * them: percentiles among them are upper bounds. */
static void add_histogram(const struct ct *ct, struct histogram *h, const struct ct_thread *th)
{
	const char *key;
	json_t *v;
	uint64_t k;

	json_object_foreach (th->hist, key, v)
		if (bucket_parse(key, &k))
			h->bucket[histogram_index(k * ct->scale + ct->scale / 2)] +=
			    (uint64_t)json_integer_value(v);
	h->bucket[histogram_index(th->max)] += th->cycles - th->in_hist;
}

/* One "timer" result per CPU: threads that shared a CPU (-t 4 on two CPUs)
 * are merged, since results are keyed by (probe, cpu, phase).  Whether the
 * mean and percentiles are known is decided by the threads with samples;
 * a CPU without any keeps what its idle threads say (-nan avg: unknown). */
static int build_result(struct ct *ct, int cpu)
{
	struct report_result *res = report_add_result(ct->r, false, "timer", cpu, "all");
	long double sum = 0;
	bool first = true;
	unsigned unk = 0, idle_unk = 0;

	if (!res)
		return -ENOMEM;
	for (size_t i = 0; i < ct->n; i++) {
		const struct ct_thread *th = &ct->t[i];
		if (th->cpu != cpu)
			continue;
		unsigned u = (th->avg_known ? 0 : REPORT_UNKNOWN_MEAN) |
			     (has_hist(ct, th) ? 0 : REPORT_UNKNOWN_PCT);
		if (__builtin_add_overflow(res->count, th->cycles, &res->count))
			return fail(ct, "thread",
				    "the cycles of the threads on CPU %d add up past 2^64", cpu);
		if (!th->cycles) {
			idle_unk |= u;
			continue;
		}
		unk |= u;
		sum += th->sum_ns;
		res->min = first || th->min < res->min ? th->min : res->min;
		res->max = th->max > res->max ? th->max : res->max;
		first = false;
	}
	res->unknown = REPORT_UNKNOWN_STDDEV | REPORT_UNKNOWN_MAX_AT | REPORT_UNKNOWN_MISSED |
		       (res->count ? unk : idle_unk);
	if (res->count && !(res->unknown & REPORT_UNKNOWN_MEAN))
		res->mean = (uint64_t)llroundl(sum / (long double)res->count);
	if (res->unknown & REPORT_UNKNOWN_PCT)
		return 0;
	/* Dense while the threads are added (one result at a time), sparse in the model. */
	struct histogram *dense = calloc(1, sizeof(*dense));
	if (!dense)
		return -ENOMEM;
	for (size_t i = 0; i < ct->n; i++)
		if (ct->t[i].cpu == cpu && ct->t[i].cycles)
			add_histogram(ct, dense, &ct->t[i]);
	/* The same nearest-rank percentiles rtsoak computes for its own results. */
	for (unsigned i = 0; res->count && i < REPORT_NPCT; i++)
		res->pct[i] = histogram_percentile(dense, report_pct[i], res->min, res->max);
	res->hist = histogram_sparse_from(dense);
	free(dense);
	return res->hist ? 0 : -ENOMEM;
}

/* report_build_aggregates() merges results through recorders, which know
 * nothing of unknown statistics: the aggregate's stddev would be the
 * spread of the CPUs' means, and its missed 0.  An aggregate is unknown
 * wherever a result with samples is.  A histogram that is only zeros
 * stood in for a missing one during the merge: drop it now. */
static void fix_aggregates(struct report *r)
{
	for (size_t a = 0; a < r->naggregates; a++) {
		struct report_result *agg = &r->aggregates[a];
		agg->unknown |=
		    REPORT_UNKNOWN_STDDEV | REPORT_UNKNOWN_MAX_AT | REPORT_UNKNOWN_MISSED;
		for (size_t i = 0; i < r->nresults; i++)
			if (r->results[i].count && !strcmp(r->results[i].probe, agg->probe) &&
			    !strcmp(r->results[i].phase, agg->phase))
				agg->unknown |= r->results[i].unknown;
		agg->stddev = agg->max_at = agg->missed = 0;
		if (agg->unknown & REPORT_UNKNOWN_MEAN)
			agg->mean = 0;
	}
	for (size_t i = 0; i < r->nresults + r->naggregates; i++) {
		struct report_result *res =
		    i < r->nresults ? &r->results[i] : &r->aggregates[i - r->nresults];
		if (res->unknown & REPORT_UNKNOWN_PCT) {
			free(res->hist);
			res->hist = NULL;
			memset(res->pct, 0, sizeof(res->pct));
		}
	}
}

/* -------------------------------------------------------------- model -- */

static json_t *system_of(json_t *root)
{
	json_t *si = json_object_get(root, "sysinfo"), *sys = json_object(), *kernel;
	static const char *const uname_keys[] = { "sysname", "release", "version", "machine" };

	if (!sys || !json_is_object(si))
		return sys;
	/* The same keys as rtsoak's snapshot (sysinfo.c), so that compare
	 * lines them up. */
	if (!(kernel = json_object()) || json_object_set_new(sys, "kernel", kernel))
		goto nomem;
	for (unsigned i = 0; i < 4; i++) {
		json_t *v = json_object_get(si, uname_keys[i]);
		if (json_is_string(v) && json_object_set(kernel, uname_keys[i], v))
			goto nomem;
	}
	if (json_is_string(json_object_get(si, "nodename")) &&
	    json_object_set(sys, "hostname", json_object_get(si, "nodename")))
		goto nomem;
	/* cyclictest writes 0 both for /sys/kernel/realtime = 0 and for no such
	 * file (every non-RT kernel); rtsoak writes null for the latter.  Only 1
	 * says something for certain. */
	json_t *rt = json_object_get(si, "realtime");
	if (json_is_integer(rt) &&
	    json_object_set_new(sys, "realtime",
				json_integer_value(rt) == 1 ? json_integer(1) : json_null()))
		goto nomem;
	return sys;
nomem:
	json_decref(sys);
	return NULL;
}

static json_t *config_of(const struct ct *ct, const char *cmdline)
{
	const struct ct_cmdline *c = &ct->cmd;
	json_t *cfg = json_object();
	struct cpuset cpus;
	char list[1024];
	int bad = 0;

	if (!cfg)
		return NULL;
	cpuset_clear(&cpus);
	for (size_t i = 0; i < ct->n; i++)
		cpuset_set(&cpus, ct->t[i].cpu);
	cpuset_format(&cpus, list, sizeof(list));
	bad |= json_object_set_new(cfg, "source", json_string("cyclictest"));
	if (cmdline)
		bad |= json_object_set_new(cfg, "cmdline", json_string(cmdline));
	bad |= json_object_set_new(cfg, "cpus", json_string(list));
	bad |= json_object_set_new(cfg, "probes", json_pack("[s]", "timer"));
	bad |= json_object_set_new(cfg, "loads", json_array());
	bad |= json_object_set_new(cfg, "phases", json_pack("[s]", "all"));
	if (c->parsed) {
		/* Thread i sleeps interval + i * distance: interval_ns is thread 0's. */
		bad |= json_object_set_new(cfg, "interval_ns",
					   json_integer((json_int_t)c->interval_us * 1000));
		if (c->distance_us && ct->n > 1)
			bad |= json_object_set_new(cfg, "distance_ns",
						   json_integer((json_int_t)c->distance_us * 1000));
		bad |= json_object_set_new(cfg, "policy", json_string(ct_policy_name[c->policy]));
		bad |= json_object_set_new(cfg, "priority", json_integer(c->priority));
		bad |= json_object_set_new(
		    cfg, "duration_ns",
		    c->duration_s > 0 ? json_integer((json_int_t)c->duration_s * 1000000000)
				      : json_null());
		bad |= json_object_set_new(cfg, "loops",
					   c->loops > 0 ? json_integer(c->loops) : json_null());
		if (c->clock == 0 || c->clock == 1)
			bad |= json_object_set_new(
			    cfg, "clock",
			    json_string(c->clock ? "CLOCK_REALTIME" : "CLOCK_MONOTONIC"));
	}
	if (bad) {
		json_decref(cfg);
		return NULL;
	}
	return cfg;
}

static int header(struct ct *ct, json_t *root, const char *version, const char *cmdline)
{
	struct report *r = ct->r;
	const char *slash;
	time_t start, end;
	bool timed;
	int rc;

	if (!(r->tool_name = strdup("cyclictest")) || !(r->tool_version = strdup(version)))
		return -ENOMEM;
	if ((rc = argv_split(r, cmdline)))
		return rc;
	cyclictest_cmdline_parse(&ct->cmd, r->argv, r->argc, ct->n);
	if (!cmdline) {
		snprintf(ct->cmd.why, sizeof(ct->cmd.why), "the file has no cmdline");
		ct->cmd.parsed = false;
	} else if (r->argc && (!strcmp(r->argv[0], "rtsoak") ||
			       ((slash = strrchr(r->argv[0], '/')) && !strcmp(slash, "/rtsoak")))) {
		/* rtsoak report --rt-tests-json writes the run's own command line: read as
		 * cyclictest's options, --duration 2s would be -D and --cpus unknown. */
		snprintf(ct->cmd.why, sizeof(ct->cmd.why),
			 "an rtsoak command line, from rtsoak report --rt-tests-json");
		ct->cmd.parsed = false;
	}
	/* cyclictest has no partial state: a file is written once, at the end. */
	r->status = REPORT_COMPLETE;
	r->realtime = ct->cmd.parsed && (ct->cmd.policy == CT_FIFO || ct->cmd.policy == CT_RR);
	timed = !stamp_parse(get_string(root, "start_time", NULL), &start) &&
		!stamp_parse(get_string(root, "end_time", NULL), &end) && end >= start;
	if (timed) {
		/* The model's format has milliseconds; cyclictest's are whole seconds. */
		util_iso8601((uint64_t)start * NSEC_PER_SEC, r->start, sizeof(r->start));
		util_iso8601((uint64_t)end * NSEC_PER_SEC, r->end, sizeof(r->end));
	}
	/* The measured time is the longest-running thread's cycles x its
	 * interval (thread i sleeps interval + i * distance), when the command
	 * line tells the interval; else the whole seconds between the stamps,
	 * which include start-up.  With -r (relative timers) each cycle is
	 * longer by its latency: a slight underestimate. */
	if (ct->cmd.parsed) {
		for (size_t i = 0; i < ct->n; i++) {
			long iv = ct->cmd.interval_us + (long)i * ct->cmd.distance_us;
			uint64_t d;
			if (iv > 0 &&
			    !__builtin_mul_overflow(ct->t[i].cycles, (uint64_t)iv * NSEC_PER_USEC,
						    &d) &&
			    d > r->duration_ns)
				r->duration_ns = d;
		}
	} else if (timed) {
		r->duration_ns = (uint64_t)(end - start) * NSEC_PER_SEC;
	}
	r->config = config_of(ct, cmdline);
	r->system = system_of(root);
	r->loads = json_array();
	r->phases = r->duration_ns ? json_pack("[{s:s, s:[], s:I}]", "name", "all", "loads",
					       "time_ns", (json_int_t)r->duration_ns)
				   : json_pack("[{s:s, s:[]}]", "name", "all", "loads");
	if (!r->config || !r->system || !r->loads || !r->phases)
		return -ENOMEM;
	return 0;
}

/* ------------------------------------------------------------ warnings -- */

static const char *threads(const char *list)
{
	return strchr(list, ',') ? "threads" : "thread";
}

static int warnings(struct ct *ct, json_t *root)
{
	struct report *r = ct->r;
	char nan[256] = "", idle[128] = "", over[256] = "", nocpu[128] = "", range[48] = "";
	bool nohist = false;
	int bad = 0;

	for (size_t i = 0; i < r->nresults; i++)
		nohist |= r->results[i].count && (r->results[i].unknown & REPORT_UNKNOWN_PCT);
	if (nohist)
		bad |= report_warn(r, "cyclictest file: no histogram (-h), so percentiles are "
				      "unknown; missed deadlines, stddev and the time of the max "
				      "are unknown too: cyclictest does not record them");
	else
		bad |= report_warn(r, "cyclictest file: missed deadlines, stddev and the time of "
				      "the max are unknown: cyclictest does not record them");
	for (size_t i = 0; i < ct->n; i++) {
		const struct ct_thread *th = &ct->t[i];
		if (th->null_min || th->null_max || th->null_avg)
			util_catf(nan, sizeof(nan), "%sthread %zu%s%s%s", *nan ? ", " : "", i,
				  th->null_min ? " min" : "", th->null_max ? " max" : "",
				  th->null_avg ? " avg" : "");
		if (!th->cycles)
			util_catf(idle, sizeof(idle), "%s%zu", *idle ? ", " : "", i);
		if (th->cycles && th->in_hist < th->cycles && has_hist(ct, th))
			util_catf(over, sizeof(over), "%sthread %zu: %" PRIu64 " of %" PRIu64,
				  *over ? ", " : "", i, th->cycles - th->in_hist, th->cycles);
		if (!th->cpu_known)
			util_catf(nocpu, sizeof(nocpu), "%s%zu", *nocpu ? ", " : "", i);
	}
	if (*nan)
		bad |= report_warn(r,
				   "cyclictest file: NaN or inf (not JSON, read as null) in %s: "
				   "those statistics are unknown",
				   nan);
	if (*idle)
		bad |= report_warn(r, "cyclictest file: %s %s recorded no cycles", threads(idle),
				   idle);
	if (*over) {
		if (ct->cmd.parsed && ct->cmd.hist)
			snprintf(range, sizeof(range), " (-h %ld)", ct->cmd.hist);
		bad |= report_warn(r,
				   "cyclictest file: samples beyond the histogram%s count at "
				   "their thread's max, so percentiles among them are upper "
				   "bounds (%s)",
				   range, over);
	}
	if (*nocpu)
		bad |= report_warn(r,
				   "cyclictest file: %s %s did not say the CPU (not pinned): "
				   "rows are numbered by thread instead",
				   threads(nocpu), nocpu);
	for (size_t i = 0; i < r->nresults; i++) {
		char list[128] = "";
		unsigned n = 0;
		for (size_t k = 0; k < ct->n; k++)
			if (ct->t[k].cpu == r->results[i].cpu)
				util_catf(list, sizeof(list), "%s%zu", n++ ? ", " : "", k);
		if (n > 1)
			bad |= report_warn(r,
					   "cyclictest file: threads %s ran on CPU %d: merged "
					   "into one row",
					   list, r->results[i].cpu);
	}
	if (!ct->cmd.parsed)
		bad |= report_warn(r,
				   "cyclictest file: cmdline not understood (%s): interval, "
				   "priority, policy and duration unknown",
				   ct->cmd.why);
	else if (*ct->cmd.ignored)
		bad |= report_warn(
		    r, "cyclictest file: cmdline options unknown to rtsoak, ignored: %s",
		    ct->cmd.ignored);
	json_t *rc = json_object_get(root, "return_code");
	if (json_is_integer(rc) && json_integer_value(rc) != 0)
		bad |= report_warn(
		    r, "cyclictest file: cyclictest's return_code is %" JSON_INTEGER_FORMAT,
		    json_integer_value(rc));
	return bad ? -ENOMEM : 0;
}

/* ---------------------------------------------------------------- read -- */

static int read_file(struct ct *ct, json_t *root)
{
	json_t *threads = json_object_get(root, "thread"), *nt, *res;
	const char *version, *cmdline;
	int *cpus, rc;
	size_t ncpus = 0;

	if (!json_is_object(root))
		return fail(ct, "top level", "is not a JSON object");
	if (!(version = get_string(root, "rt_test_version:", "rt_test_version")))
		return fail(ct, "top level",
			    "no \"rt_test_version:\" string (not a cyclictest --json file?)");
	if (!json_is_object(threads))
		return fail(ct, "thread", threads ? "is not an object" : "is missing");
	if (!(ct->n = json_object_size(threads)))
		return fail(ct, "thread", "holds no threads");
	if (ct->n > REPORT_THREADS_MAX)
		return fail(ct, "thread", "holds more than the readers' limit of %d threads",
			    REPORT_THREADS_MAX);
	nt = json_object_get(root, "num_threads");
	if (nt && (!json_is_integer(nt) || (size_t)json_integer_value(nt) != ct->n))
		return fail(ct, "num_threads", "does not match the %zu entr%s of thread", ct->n,
			    ct->n == 1 ? "y" : "ies");
	res = json_object_get(root, "resolution_in_ns");
	if (res &&
	    (!json_is_integer(res) || json_integer_value(res) < 0 || json_integer_value(res) > 1))
		return fail(ct, "resolution_in_ns", "is neither 0 (us) nor 1 (ns)");
	ct->scale = json_integer_value(res) == 1 ? 1 : NSEC_PER_USEC;
	cmdline = get_string(root, "cmdline:", "cmdline");

	if (!(ct->t = calloc(ct->n, sizeof(*ct->t))))
		return -ENOMEM;
	for (size_t i = 0; i < ct->n; i++)
		if ((rc = read_thread(ct, threads, i)))
			return rc;
	if ((rc = header(ct, root, version, cmdline)))
		return rc;

	if (!(cpus = malloc(ct->n * sizeof(*cpus))))
		return -ENOMEM;
	for (size_t i = 0; i < ct->n; i++)
		cpus[i] = ct->t[i].cpu;
	qsort(cpus, ct->n, sizeof(*cpus), cmp_int);
	for (size_t i = 0; i < ct->n; i++)
		if (!i || cpus[i] != cpus[i - 1])
			cpus[ncpus++] = cpus[i];
	rc = 0;
	for (size_t i = 0; i < ncpus && !rc; i++)
		rc = build_result(ct, cpus[i]);
	free(cpus);
	if (rc || (rc = report_build_aggregates(ct->r)))
		return rc;
	fix_aggregates(ct->r);
	return warnings(ct, root);
}

int cyclictest_read(const char *path, json_t *root, struct report *r, char *err, size_t errlen)
{
	struct ct ct = { .file = path, .err = err, .errlen = errlen, .r = r, .scale = 1000 };
	int rc = read_file(&ct, root);

	free(ct.t);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	if (rc)
		report_free(r);
	return rc;
}
