// SPDX-License-Identifier: GPL-2.0-or-later
/* serieslog: the series log's writer and reader (see serieslog.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis.h"
#include "crc32.h"
#include "serieslog.h"
#include "util.h"

/* Type 2 (issue 30) is type 1 with each series' quantiles after its
 * counters; the reader takes both. */
enum {
	SERIESLOG_CHECKPOINT = 1,
	SERIESLOG_CHECKPOINT_Q = 2,
	SERIESLOG_RESET = 1,
	SERIESLOG_MERGED = 2
};

/* ------------------------------------------------------------ bytes -- */

struct lbuf {
	unsigned char *p;
	size_t n, cap;
};

static int lbuf_room(struct lbuf *b, size_t more)
{
	if (b->cap - b->n >= more)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap - b->n < more)
		cap *= 2;
	unsigned char *p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

static int put_u64(struct lbuf *b, uint64_t v)
{
	if (lbuf_room(b, 10))
		return -ENOMEM;
	while (v >= 0x80) {
		b->p[b->n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b->p[b->n++] = (unsigned char)v;
	return 0;
}

static void le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* ----------------------------------------------------------- writer -- */

void serieslog_init(struct serieslog *j)
{
	memset(j, 0, sizeof(*j));
	j->fd = -1;
}

int serieslog_path(const char *report, unsigned gen, char *out, size_t len)
{
	return (size_t)snprintf(out, len, "%s%s%s", report, SERIESLOG_SUFFIX,
				gen % 2 ? ".1" : "") >= len
		   ? -ENAMETOOLONG
		   : 0;
}

static uint64_t new_id(void)
{
	uint64_t id = 0;

	if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != (ssize_t)sizeof(id))
		id = util_now_ns(CLOCK_REALTIME) ^ ((uint64_t)getpid() << 40);
	return id ? id : 1;
}

static int write_all(int fd, const unsigned char *p, size_t n, uint64_t at)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)at);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
		at += (uint64_t)w;
	}
	return 0;
}

int serieslog_open(struct serieslog *j, const char *report, unsigned gen, size_t nseries)
{
	char tmp[PATH_MAX];
	unsigned char head[SERIESLOG_HEADER];
	struct stat st;
	int fd, rc;

	serieslog_close(j, false);
	if ((rc = serieslog_path(report, gen, j->path, sizeof(j->path))))
		return rc;
	/* Replaced by a rename, never written into; but not a device, a
	 * directory or anything else that is not ours to replace. */
	if (lstat(j->path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return -EEXIST;
	if (!(j->mark = calloc(nseries ? nseries : 1, sizeof(*j->mark))))
		return -ENOMEM;
	j->nseries = nseries;
	if ((fd = util_temp_in_dir_of(j->path, tmp, sizeof(tmp))) < 0)
		return fd;
	j->id = new_id();
	memcpy(head, SERIESLOG_MAGIC, 8);
	le32(head + 8, (uint32_t)j->id);
	le32(head + 12, (uint32_t)(j->id >> 32));
	rc = fchmod(fd, 0644) < 0 ? -errno : write_all(fd, head, sizeof(head), 0);
	if (!rc && fsync(fd) < 0)
		rc = -errno;
	if (!rc && rename(tmp, j->path) < 0)
		rc = -errno;
	if (rc) {
		close(fd);
		unlink(tmp);
		return rc;
	}
	util_fsync_dir_of(j->path);
	j->fd = fd;
	j->bytes = SERIESLOG_HEADER;
	j->disk_bytes = 4096;
	j->series_json = 0;
	return 0;
}

/* One series' part of a record; *json grows by the JSON its new data take. */
static int put_series(struct lbuf *b, struct serieslog_mark *mk, const struct report_series *rs,
		      uint64_t *json)
{
	bool reset = mk->interval_ns && mk->interval_ns != rs->interval_ns;
	/* From the last interval logged: pair merging may have added to it. */
	size_t first = reset || !mk->n ? 0 : mk->n - 1, m = rs->n > first ? rs->n - first : 0;
	unsigned char enc[SERIES_ENC_MAX];
	struct series_cursor c;
	struct series_interval v;
	uint32_t count = 0;
	int rc = 0;

	rc |= put_u64(b, rs->interval_ns);
	rc |= put_u64(b, reset ? SERIESLOG_RESET : 0);
	rc |= put_u64(b, first);
	rc |= put_u64(b, m);
	/* The intervals' bytes, measured first: their length goes before them. */
	size_t nbytes = 0;
	if (m) {
		series_cursor_init(&c, rs->st, first);
		for (size_t i = 0; i < m && series_cursor_next(&c, &v); i++)
			nbytes += series_store_encode(enc, &count, &v);
	}
	rc |= put_u64(b, nbytes);
	if (rc || lbuf_room(b, nbytes))
		return -ENOMEM;
	count = 0;
	if (m) {
		series_cursor_init(&c, rs->st, first);
		for (size_t i = 0; i < m && series_cursor_next(&c, &v); i++) {
			b->n += series_store_encode(b->p + b->n, &count, &v);
			/* The final report's JSON of the new ones (after a reset
			 * the old count stays: coarsening is rare, log2 a run). */
			if (first + i >= mk->n || reset)
				*json += util_digits(v.count) + util_digits(v.max_ns) +
					 util_digits(v.spikes) + util_digits(v.missed) + 4;
		}
	}
	size_t sfirst = reset ? 0 : mk->nspikes;
	size_t nsp = rs->nspikes > sfirst ? rs->nspikes - sfirst : 0;
	uint64_t t = 0;
	rc |= put_u64(b, sfirst);
	rc |= put_u64(b, nsp);
	for (size_t i = sfirst; i < sfirst + nsp; i++) {
		const struct series_spike *sp = &rs->spikes[i];
		int64_t d = (int64_t)(sp->t_ns - t);
		rc |= put_u64(b, (uint64_t)d << 1 ^ (uint64_t)(d >> 63));
		rc |= put_u64(b, sp->latency_ns);
		rc |= put_u64(b, sp->phase);
		t = sp->t_ns;
		*json += util_digits(sp->t_ns) + util_digits(sp->latency_ns) +
			 util_digits(sp->phase) + 3;
	}
	rc |= put_u64(b, rs->stalls);
	rc |= put_u64(b, rs->spikes_total);
	rc |= put_u64(b, rs->spikes_overwritten);
	rc |= put_u64(b, rs->spikes_unlogged);
	rc |= put_u64(b, rs->threshold_ns);
	rc |= put_u64(b, rs->threshold_at_ns);
	/* The quantiles, from the last one logged again (a merge may add to
	 * it), or all of them when their interval changed. */
	bool qreset = mk->quant_interval_ns && mk->quant_interval_ns != rs->quant_interval_ns;
	size_t qfirst = qreset || !mk->nquant ? 0 : mk->nquant - 1;
	size_t qm = rs->nquant > qfirst ? rs->nquant - qfirst : 0;
	rc |= put_u64(b, rs->quant_interval_ns);
	rc |=
	    put_u64(b, (qreset ? SERIESLOG_RESET : 0) | (rs->quant_merged ? SERIESLOG_MERGED : 0));
	rc |= put_u64(b, qfirst);
	rc |= put_u64(b, qm);
	for (size_t i = qfirst; i < qfirst + qm; i++) {
		const struct series_quant *q = &rs->quant[i];
		rc |= put_u64(b, q->count);
		for (unsigned k = 0; k < SERIES_NQ; k++) {
			rc |= put_u64(b, q->q[k]);
			if (i >= mk->nquant || qreset)
				*json += util_digits(series_quant_ns(q->q[k])) + 1;
		}
		if (i >= mk->nquant || qreset)
			*json += util_digits(q->count) + 1;
	}
	if (rc)
		return -ENOMEM;
	mk->n = first + m;
	mk->nspikes = sfirst + nsp;
	mk->interval_ns = rs->interval_ns;
	mk->nquant = qfirst + qm;
	mk->quant_interval_ns = rs->quant_interval_ns;
	return 0;
}

int serieslog_append(struct serieslog *j, const struct report *r, uint64_t t_ns, bool *broken)
{
	struct lbuf b = { 0 };
	struct serieslog_mark *saved;
	uint64_t json = 0;
	int rc = 0;

	if (j->fd < 0)
		return -EBADF;
	if (r->nseries != j->nseries)
		return -EINVAL;
	/* The marks move only once the record is on disk. */
	if (!(saved = malloc((j->nseries ? j->nseries : 1) * sizeof(*saved))))
		return -ENOMEM;
	memcpy(saved, j->mark, j->nseries * sizeof(*saved));
	rc = lbuf_room(&b, SERIESLOG_RECORD_HEAD) ? -ENOMEM : 0;
	b.n = SERIESLOG_RECORD_HEAD; /* filled in below */
	if (!rc)
		rc = put_u64(&b, SERIESLOG_CHECKPOINT_Q) | put_u64(&b, t_ns) |
		     put_u64(&b, j->nseries);
	for (size_t k = 0; !rc && k < j->nseries; k++)
		rc = put_series(&b, &j->mark[k], &r->series[k], &json);
	if (!rc && b.n - SERIESLOG_RECORD_HEAD > SERIESLOG_RECORD_MAX)
		rc = -EFBIG;
	/* Still the file at its path (not even a link to it: the reader
	 * follows none)?  An open file whose directory was removed, or that
	 * was renamed away, takes writes that no reader will ever see. */
	struct stat at, ours;
	if (!rc && (lstat(j->path, &at) < 0 || fstat(j->fd, &ours) < 0 ||
		    at.st_ino != ours.st_ino || at.st_dev != ours.st_dev)) {
		rc = -ENOENT;
		*broken = true;
	}
	if (!rc) {
		le32(b.p, (uint32_t)(b.n - SERIESLOG_RECORD_HEAD));
		le32(b.p + 4, crc32_update(0, b.p, 4));
		le32(b.p + 8,
		     crc32_update(0, b.p + SERIESLOG_RECORD_HEAD, b.n - SERIESLOG_RECORD_HEAD));
		rc = write_all(j->fd, b.p, b.n, j->bytes);
		if (!rc && fdatasync(j->fd) < 0)
			rc = -errno;
		/* What was written of it goes again, after the last whole one. */
		if (rc && !*broken &&
		    (ftruncate(j->fd, (off_t)j->bytes) < 0 || fdatasync(j->fd) < 0))
			*broken = true;
	}
	if (rc) {
		memcpy(j->mark, saved, j->nseries * sizeof(*saved));
	} else {
		uint64_t page = 4096;
		j->disk_bytes += (j->bytes + b.n + page - 1) / page * page - j->bytes / page * page;
		j->bytes += b.n;
		j->series_json += json;
	}
	free(saved);
	free(b.p);
	return rc;
}

json_t *serieslog_ref(const struct serieslog *j, uint64_t summary_at_ns)
{
	const char *slash = strrchr(j->path, '/');
	char id[20];

	snprintf(id, sizeof(id), "%016" PRIx64, j->id);
	/* the file is named after --output (any bytes): valid UTF-8 */
	return json_pack("{s:o, s:s, s:I, s:I}", "file",
			 util_json_string(slash ? slash + 1 : j->path), "id", id, "bytes",
			 (json_int_t)j->bytes, "summary_at_ns", (json_int_t)summary_at_ns);
}

void serieslog_close(struct serieslog *j, bool remove)
{
	if (j->fd >= 0) {
		close(j->fd);
		if (remove && unlink(j->path) == 0)
			util_fsync_dir_of(j->path);
	}
	free(j->mark);
	j->mark = NULL;
	j->nseries = 0;
	j->fd = -1;
}

/* ----------------------------------------------------------- reader -- */

struct lrd {
	const unsigned char *p;
	size_t n, off;
	bool bad;
};

static uint64_t get_u64(struct lrd *d, unsigned bits)
{
	uint64_t x = 0;

	for (unsigned shift = 0; !d->bad && shift < 64; shift += 7) {
		if (d->off >= d->n) {
			d->bad = true;
			break;
		}
		uint64_t b = d->p[d->off] & 0x7f;
		if (shift && b >> (64 - shift)) {
			d->bad = true;
			break;
		}
		x |= b << shift;
		if (!(d->p[d->off++] & 0x80)) {
			if (bits < 64 && x >> bits)
				d->bad = true;
			return d->bad ? 0 : x;
		}
	}
	d->bad = true;
	return 0;
}

/* The quantiles' part of a series entry (type 2). */
static const char *apply_quant(struct lrd *d, struct report_series *rs, size_t *cap)
{
	uint64_t ivl = get_u64(d, 63), flags = get_u64(d, 2), first = get_u64(d, 63);
	uint64_t m = get_u64(d, 63);

	if (d->bad)
		return "a series' quantiles are cut short or out of range";
	if (flags & SERIESLOG_RESET)
		rs->nquant = 0;
	if (!m && !rs->nquant)
		return ""; /* none yet (ivl is the series', which may not have any) */
	if (!ivl || (first != rs->nquant && !(rs->nquant && first == rs->nquant - 1)))
		return "a series' quantiles continue from another point than where they stopped";
	/* each entry takes 4 bytes at least */
	if (m > (d->n - d->off) / 4 || first + m > REPORT_INTERVALS_MAX)
		return "a series' quantiles run past the record";
	if (first + m > *cap) {
		size_t c = *cap ? *cap : 64;
		while (c < first + m)
			c *= 2;
		struct series_quant *q = realloc(rs->quant, c * sizeof(*q));
		if (!q)
			return NULL;
		rs->quant = q;
		*cap = c;
	}
	for (uint64_t i = 0; i < m; i++) {
		struct series_quant *q = &rs->quant[first + i];
		q->count = (uint32_t)get_u64(d, 32);
		for (unsigned k = 0; k < SERIES_NQ; k++) {
			uint64_t b = get_u64(d, 16);
			if (b >= HISTOGRAM_BUCKETS && b != SERIES_QUANT_NONE)
				d->bad = true;
			q->q[k] = (uint16_t)b;
		}
	}
	if (d->bad)
		return "a series' quantile is cut short or out of range";
	rs->nquant = first + m;
	rs->quant_interval_ns = ivl;
	rs->quant_merged = flags & SERIESLOG_MERGED;
	return "";
}

/* Apply one series' part of a record to rs; a string for what is wrong. */
static const char *apply_series(struct lrd *d, struct report_series *rs, size_t *cap_spikes,
				size_t *cap_quant, bool quant)
{
	uint64_t ivl = get_u64(d, 63), flags = get_u64(d, 1), first = get_u64(d, 63);
	uint64_t m = get_u64(d, 63), nbytes = get_u64(d, 63);
	struct series_interval v;
	uint32_t count = 0;

	if (d->bad || !ivl)
		return "a series entry is cut short or out of range";
	if (!rs->st && !(rs->st = calloc(1, sizeof(*rs->st))))
		return NULL;
	if (flags & SERIESLOG_RESET) {
		series_store_free(rs->st);
		rs->n = 0;
		rs->nspikes = 0;
	}
	/* From its last interval again (which it replaces), or after it. */
	if (first != rs->n && !(rs->n && first == rs->n - 1))
		return "a series continues from another point than where it stopped";
	bool again = first != rs->n;
	if (nbytes > d->n - d->off || m > nbytes || rs->n + m > REPORT_INTERVALS_MAX ||
	    (again && !m))
		return "a series' intervals run past the record";
	const unsigned char *p = d->p + d->off, *end = p + nbytes;
	for (uint64_t i = 0; i < m; i++) {
		size_t k = series_store_decode_checked(p, (size_t)(end - p), &count, &v);
		if (!k)
			return "an interval is not a valid encoding";
		if (again && i == 0)
			*series_store_last(rs->st) = v;
		else if (series_store_append(rs->st, &v))
			return NULL; /* ENOMEM: the caller checks */
		p += k;
	}
	if (p != end)
		return "a series' intervals do not fill their bytes";
	d->off += nbytes;
	rs->n = rs->st->n;
	rs->interval_ns = ivl;
	uint64_t sfirst = get_u64(d, 63), nsp = get_u64(d, 63), t = 0;
	if (d->bad || sfirst != rs->nspikes || nsp > d->n - d->off ||
	    rs->nspikes + nsp > REPORT_INTERVALS_MAX)
		return "a spike log continues from another point than where it stopped";
	if (rs->nspikes + nsp > *cap_spikes) {
		size_t cap = *cap_spikes ? *cap_spikes : 64;
		while (cap < rs->nspikes + nsp)
			cap *= 2;
		struct series_spike *sp = realloc(rs->spikes, cap * sizeof(*sp));
		if (!sp)
			return NULL;
		rs->spikes = sp;
		*cap_spikes = cap;
	}
	for (uint64_t i = 0; i < nsp; i++) {
		uint64_t z = get_u64(d, 64);
		t += z >> 1 ^ -(z & 1);
		uint64_t lat = get_u64(d, 63), ph = get_u64(d, 32);
		if (d->bad || t > INT64_MAX || ph >= RECORDER_MAX_PHASES)
			return "a spike is cut short or out of range";
		rs->spikes[rs->nspikes++] =
		    (struct series_spike){ .t_ns = t, .latency_ns = lat, .phase = (uint32_t)ph };
	}
	rs->stalls = get_u64(d, 63);
	rs->spikes_total = get_u64(d, 63);
	rs->spikes_overwritten = get_u64(d, 63);
	rs->spikes_unlogged = get_u64(d, 63);
	rs->threshold_ns = get_u64(d, 63);
	rs->threshold_at_ns = get_u64(d, 63);
	if (d->bad)
		return "a series' counters are cut short or out of range";
	return quant ? apply_quant(d, rs, cap_quant) : "";
}

/* One record's payload; "" when applied, else what is wrong (NULL: ENOMEM). */
static const char *apply_record(struct report *r, const unsigned char *p, size_t n, size_t *caps,
				uint64_t *t_ns)
{
	struct lrd d = { p, n, 0, false };
	uint64_t type = get_u64(&d, 63), t = get_u64(&d, 63), ns = get_u64(&d, 63);

	if (d.bad || (type != SERIESLOG_CHECKPOINT && type != SERIESLOG_CHECKPOINT_Q))
		return "a record of an unknown type";
	if (ns != r->nseries)
		return "a record's series do not match the report's";
	for (size_t k = 0; k < ns; k++) {
		const char *why = apply_series(&d, &r->series[k], &caps[2 * k], &caps[2 * k + 1],
					       type == SERIESLOG_CHECKPOINT_Q);
		if (!why || *why)
			return why;
	}
	if (d.off != d.n)
		return "a record has bytes after its last series";
	*t_ns = t;
	return "";
}

static int log_fail(char *err, size_t len, const char *file, const char *lname, const char *what)
{
	snprintf(err, len, "%s: series log '%s': %s", file, lname, what);
	return -EINVAL;
}

/* The series log's bytes: a regular file, read whole (NULL: err says why). */
static unsigned char *load(const char *path, size_t *len, int *rc)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	unsigned char *buf = NULL;
	struct stat st;
	size_t got = 0;

	*rc = -errno;
	if (fd < 0)
		return NULL;
	*rc = -EINVAL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > SERIESLOG_FILE_MAX)
		goto out;
	*rc = -ENOMEM;
	if (!(buf = malloc((size_t)st.st_size + 1)))
		goto out;
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break; /* shorter than it was: what was read */
		got += (size_t)k;
	}
	*len = got;
	*rc = 0;
out:
	close(fd);
	if (*rc) {
		free(buf);
		buf = NULL;
	}
	return buf;
}

int serieslog_merge(struct report *r, const char *report_path, const json_t *ref, char *err,
		    size_t errlen)
{
	const char *lname = json_string_value(json_object_get(ref, "file"));
	const char *idhex = json_string_value(json_object_get(ref, "id"));
	char path[PATH_MAX], *end = NULL;
	const char *slash = strrchr(report_path, '/');
	size_t len = 0, *caps = NULL, torn = 0;
	unsigned char *buf;
	uint64_t id, t_ns = 0;
	int rc;

	if (!json_is_object(ref) || !lname || !idhex)
		return log_fail(err, errlen, report_path, "?",
				"the report's \"series_log\" is not {file, id}");
	/* A name in the report's own directory, nothing else. */
	if (!*lname || strchr(lname, '/') || !strcmp(lname, ".") || !strcmp(lname, "..") ||
	    strlen(lname) > NAME_MAX)
		return log_fail(err, errlen, report_path, lname,
				"not a file name in the report's directory");
	errno = 0;
	id = strtoull(idhex, &end, 16);
	if (errno || !end || *end || strlen(idhex) != 16)
		return log_fail(err, errlen, report_path, lname,
				"the report's series log id is not 16 hex digits");
	if ((size_t)snprintf(path, sizeof(path), "%.*s%s",
			     slash ? (int)(slash - report_path) + 1 : 0, report_path,
			     lname) >= sizeof(path))
		return log_fail(err, errlen, report_path, lname, "path too long");
	if (!(buf = load(path, &len, &rc))) {
		if (rc == -ENOMEM)
			return rc;
		return log_fail(
		    err, errlen, report_path, lname,
		    rc == -EINVAL  ? "not a regular file of a sane size"
		    : rc == -ELOOP ? "a symbolic link: not followed"
		    : rc == -ENOENT
			? "missing: a checkpoint's series are in it (it is removed only "
			  "when the final report is written)"
			: strerror(-rc));
	}
	rc = -EINVAL;
	if (len < SERIESLOG_HEADER || memcmp(buf, SERIESLOG_MAGIC, 8)) {
		log_fail(err, errlen, report_path, lname,
			 "not an rtsoak series log (no RTSOAKS1 header)");
		goto out;
	}
	if (get_le(buf + 8, 8) != id) {
		char what[96];
		snprintf(what, sizeof(what),
			 "belongs to another run (id %016" PRIx64 ", the report's %s)",
			 get_le(buf + 8, 8), idhex);
		log_fail(err, errlen, report_path, lname, what);
		goto out;
	}
	for (size_t k = 0; k < r->nseries; k++) {
		struct report_series *rs = &r->series[k];
		if (rs->n || rs->nspikes || rs->nquant) {
			log_fail(
			    err, errlen, report_path, lname,
			    "the report's series have columns of their own besides the series log's");
			goto out;
		}
	}
	if (!(caps = calloc(2 * r->nseries + 1, sizeof(*caps)))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t off = SERIESLOG_HEADER; off < len;) {
		const unsigned char *h = buf + off;
		size_t left = len - off;
		uint64_t n = left >= SERIESLOG_RECORD_HEAD ? get_le(h, 4) : 0;
		bool head = left >= SERIESLOG_RECORD_HEAD &&
			    crc32_update(0, h, 4) == get_le(h + 4, 4) && n <= SERIESLOG_RECORD_MAX;
		/* A crash tears the last append only: its header cut short or
		 * not written (zeros, as a file extended but never filled
		 * reads), or its payload cut short or not all written. */
		bool zeros = true;
		for (size_t i = 0; zeros && i < left; i++)
			zeros = !h[i];
		if (!head && (left < SERIESLOG_RECORD_HEAD || zeros)) {
			torn = left;
			break;
		}
		const char *bad =
		    !head			       ? "its header is corrupt"
		    : n > left - SERIESLOG_RECORD_HEAD ? NULL /* cut short: torn */
		    : crc32_update(0, h + SERIESLOG_RECORD_HEAD, (size_t)n) != get_le(h + 8, 4)
			? "corrupt (CRC mismatch)"
			: "";
		if (!bad || (*bad && head && off + SERIESLOG_RECORD_HEAD + n == len)) {
			torn = left;
			break;
		}
		if (*bad) {
			char what[160];
			snprintf(what, sizeof(what),
				 "the record at byte %zu is %s and more follow: not used", off,
				 bad);
			log_fail(err, errlen, report_path, lname, what);
			goto out;
		}
		const char *why =
		    apply_record(r, h + SERIESLOG_RECORD_HEAD, (size_t)n, caps, &t_ns);
		if (!why) {
			rc = -ENOMEM;
			goto out;
		}
		if (*why) {
			char what[160];
			snprintf(what, sizeof(what), "the record at byte %zu: %s", off, why);
			log_fail(err, errlen, report_path, lname, what);
			goto out;
		}
		off += SERIESLOG_RECORD_HEAD + (size_t)n;
	}
	rc = 0;
	if (torn &&
	    report_warn(r,
			"series log '%s': an incomplete record at its end (%zu bytes) "
			"was dropped (the run stopped while writing it): the series end at the "
			"checkpoint before",
			lname, torn) < 0)
		rc = -ENOMEM;
	uint64_t at = r->duration_ns;
	if (t_ns > at)
		r->series_until_ns = t_ns;
	/* Derived from the series, which now reach further than the summary's:
	 * the summary leaves it out (session_output.c). */
	if (!rc && !r->analysis && !(r->analysis = analysis_build(r)))
		rc = -ENOMEM;
	if (!rc && t_ns > at &&
	    report_warn(r,
			"a checkpoint of an unfinished run: its statistics cover the first %.1f s, "
			"its time series %.1f s (the series are logged at every checkpoint, the "
			"statistics rewritten within an I/O budget)",
			(double)at / 1e9, (double)t_ns / 1e9) < 0)
		rc = -ENOMEM;
out:
	free(caps);
	free(buf);
	return rc;
}
