// SPDX-License-Identifier: GPL-2.0-or-later
/* serieslog: what the checkpoints append is what the reader merges back,
 * record by record (a grown last interval, a reset after coarsening, spike
 * logs, per-interval quantiles); a torn last record is dropped with a warning wherever it was cut;
 * a corrupt record before the end, another run's log, a name that leaves
 * the report's directory and a symbolic link are refused with one line. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serieslog.h"
#include "tap.h"

#define NS 3

static char dir[] = "/tmp/test_serieslog.XXXXXX";
static char report_path[PATH_MAX];

/* The live report: NS series grown between checkpoints. */
static void grow(struct report *r, size_t intervals, size_t spikes)
{
	for (size_t k = 0; k < r->nseries; k++) {
		struct report_series *rs = &r->series[k];
		for (size_t i = 0; i < intervals; i++) {
			struct series_interval v = { .max_ns = 1000 + tap_rnd() % 900000,
						     .count = 1000 + (uint32_t)(tap_rnd() % 3),
						     .spikes = tap_rnd() % 50 == 0,
						     .missed = tap_rnd() % 97 == 0 };
			if (report_series_fill(rs, &v, 1))
				abort();
			rs->spikes_total += v.spikes;
		}
		/* what pair merging does to the last interval */
		series_store_last(rs->st)->max_ns += 7;
		rs->spikes = realloc(rs->spikes, (rs->nspikes + spikes + 1) * sizeof(*rs->spikes));
		for (size_t i = 0; i < spikes; i++) {
			uint64_t t = rs->nspikes ? rs->spikes[rs->nspikes - 1].t_ns : 0;
			rs->spikes[rs->nspikes++] =
			    (struct series_spike){ .t_ns = t + tap_rnd() % 5000000,
						   .latency_ns = 100000 + tap_rnd() % 1000,
						   .phase = (uint32_t)(tap_rnd() % 3) };
		}
		/* the per-interval quantiles, one for every ten intervals (a
		 * quantile interval of at least 100 ms), the last one grown as
		 * a merge into it does */
		size_t nq = intervals / 10;
		rs->quant = realloc(rs->quant, (rs->nquant + nq + 1) * sizeof(*rs->quant));
		if (rs->nquant) {
			rs->quant[rs->nquant - 1].count += 5;
			rs->quant[rs->nquant - 1].q[SERIES_Q99_9] += 1;
		}
		for (size_t i = 0; i < nq; i++) {
			struct series_quant *q = &rs->quant[rs->nquant++];
			q->count = tap_rnd() % 7 ? 10000 + (uint32_t)(tap_rnd() % 30) : 0;
			for (int j = 0; j < SERIES_NQ; j++)
				q->q[j] = q->count ? (uint16_t)(1000 + 50 * j + tap_rnd() % 40)
						   : SERIES_QUANT_NONE;
		}
		rs->quant_interval_ns = 10 * rs->interval_ns;
		rs->stalls += k;
		rs->threshold_ns = 50000;
		rs->threshold_at_ns = 5000000000ull;
	}
}

static void live_init(struct report *r)
{
	memset(r, 0, sizeof(*r));
	for (int k = 0; k < NS; k++) {
		struct report_series *rs = report_add_series(r, k == 2 ? "net" : "timer", k % 2);
		rs->interval_ns = 1000000;
		rs->st = calloc(1, sizeof(*rs->st));
	}
}

/* A summary as the reader has it: the series without columns. */
static void summary_init(struct report *r)
{
	live_init(r);
	r->duration_ns = 1000000000;
}

static bool iv_eq(const struct series_interval *a, const struct series_interval *b)
{
	return a->max_ns == b->max_ns && a->count == b->count && a->spikes == b->spikes &&
	       a->missed == b->missed;
}

static bool sp_eq(const struct series_spike *a, const struct series_spike *b)
{
	return a->t_ns == b->t_ns && a->latency_ns == b->latency_ns && a->phase == b->phase;
}

/* Same series, intervals, spikes and counters (field by field: the
 * structs have padding). */
static bool same(const struct report *a, const struct report *b)
{
	if (a->nseries != b->nseries)
		return false;
	for (size_t k = 0; k < a->nseries; k++) {
		const struct report_series *x = &a->series[k], *y = &b->series[k];
		struct series_interval *vx = series_store_decode(x->st),
				       *vy = series_store_decode(y->st);
		bool eq = x->n == y->n && x->st->n == x->n && y->st->n == y->n &&
			  x->interval_ns == y->interval_ns && x->nspikes == y->nspikes &&
			  x->stalls == y->stalls && x->spikes_total == y->spikes_total &&
			  x->threshold_ns == y->threshold_ns &&
			  x->threshold_at_ns == y->threshold_at_ns;
		for (size_t i = 0; eq && i < x->n; i++)
			eq = iv_eq(&vx[i], &vy[i]);
		for (size_t i = 0; eq && i < x->nspikes; i++)
			eq = sp_eq(&x->spikes[i], &y->spikes[i]);
		eq = eq && x->nquant == y->nquant && x->quant_interval_ns == y->quant_interval_ns &&
		     x->quant_merged == y->quant_merged;
		for (size_t i = 0; eq && i < x->nquant; i++)
			eq = x->quant[i].count == y->quant[i].count &&
			     !memcmp(x->quant[i].q, y->quant[i].q, sizeof(x->quant[i].q));
		free(vx);
		free(vy);
		if (!eq) {
			diag("series %zu differs", k);
			return false;
		}
	}
	return true;
}

static int merge(struct report *into, const json_t *ref, char *err, size_t len)
{
	summary_init(into);
	return serieslog_merge(into, report_path, ref, err, len);
}

/* A copy of the live report's series (its state at a checkpoint). */
static void snapshot(struct report *to, const struct report *from)
{
	live_init(to);
	for (size_t k = 0; k < from->nseries; k++) {
		struct report_series *d = &to->series[k];
		const struct report_series *s = &from->series[k];
		struct series_interval *v = series_store_decode(s->st);
		report_series_fill(d, v, s->n);
		free(v);
		d->interval_ns = s->interval_ns;
		d->spikes = malloc((s->nspikes + 1) * sizeof(*d->spikes));
		memcpy(d->spikes, s->spikes, s->nspikes * sizeof(*d->spikes));
		d->nspikes = s->nspikes;
		d->quant = malloc((s->nquant + 1) * sizeof(*d->quant));
		memcpy(d->quant, s->quant, s->nquant * sizeof(*d->quant));
		d->nquant = s->nquant;
		d->quant_interval_ns = s->quant_interval_ns;
		d->quant_merged = s->quant_merged;
		d->stalls = s->stalls;
		d->spikes_total = s->spikes_total;
		d->spikes_overwritten = s->spikes_overwritten;
		d->spikes_unlogged = s->spikes_unlogged;
		d->threshold_ns = s->threshold_ns;
		d->threshold_at_ns = s->threshold_at_ns;
	}
}

int main(void)
{
	struct report live, got, at2;
	struct serieslog log;
	char err[512];
	bool broken = false;
	int rc = 0;

	tap_plan(18);
	tap_rnd_seed(7);
	if (!mkdtemp(dir))
		abort();
	snprintf(report_path, sizeof(report_path), "%s/r.json", dir);
	serieslog_init(&log);
	live_init(&live);
	ok(serieslog_open(&log, report_path, 0, NS) == 0 && log.bytes == SERIESLOG_HEADER,
	   "a new log: its header only");
	grow(&live, 200, 4);
	rc |= serieslog_append(&log, &live, 1000000000, &broken);
	grow(&live, 300, 6);
	rc |= serieslog_append(&log, &live, 2000000000, &broken);
	snapshot(&at2, &live);
	uint64_t len2 = log.bytes;
	/* Coarsened: half as many intervals, each twice as long. */
	for (size_t k = 0; k < live.nseries; k++) {
		struct report_series *rs = &live.series[k];
		struct series_interval *v = series_store_decode(rs->st);
		series_store_free(rs->st);
		rs->n = 0;
		for (size_t i = 0; i + 1 < 500; i += 2)
			report_series_fill(rs, &v[i], 1);
		free(v);
		rs->interval_ns *= 2;
		/* the quantiles too, pairs merged: upper bounds */
		size_t n = 0;
		for (size_t i = 0; i < rs->nquant; i += 2)
			rs->quant[n++] = rs->quant[i];
		rs->nquant = n;
		rs->quant_merged = true;
	}
	grow(&live, 10, 2);
	rc |= serieslog_append(&log, &live, 3000000000ull, &broken);
	ok(!rc && !broken, "three checkpoints appended (%llu bytes)",
	   (unsigned long long)log.bytes);
	json_t *ref = serieslog_ref(&log, 1000000000);
	int mrc = merge(&got, ref, err, sizeof(err));
	ok(mrc == 0 && same(&got, &live),
	   "merged: every series as at the last checkpoint, after a grown last interval and a reset");
	ok(got.series_until_ns == 3000000000ull && got.nwarnings == 1 &&
	       strstr(got.warnings[0], "statistics cover the first 1.0 s, its time series 3.0 s"),
	   "the series reach past the statistics, and the report says so");
	report_free(&got);

	/* Torn: the last record cut at every length, and its bytes garbled. */
	size_t bad_cut = 0, bad_flip = 0;
	for (uint64_t cut = len2; cut < log.bytes; cut++) {
		if (truncate(log.path, (off_t)cut) == 0) {
			int m = merge(&got, ref, err, sizeof(err));
			bad_cut += m || !same(&got, &at2) ||
				   (cut > len2 && (got.nwarnings < 1 ||
						   !strstr(got.warnings[0], "incomplete record")));
			report_free(&got);
		}
	}
	ok(!bad_cut,
	   "the last record cut at each of its %llu lengths: the series as at checkpoint 2",
	   (unsigned long long)(log.bytes - len2));
	/* Put it back whole, by appending again: the marks say where. */
	serieslog_close(&log, false);
	serieslog_init(&log);
	json_decref(ref);

	/* Corruption in the middle is refused; the same in the last record is a torn tail. */
	struct report fresh;
	live_init(&fresh);
	ok(serieslog_open(&log, report_path, 0, NS) == 0, "a new log over the old one");
	grow(&fresh, 100, 5);
	rc = serieslog_append(&log, &fresh, 1000000000, &broken);
	uint64_t one = log.bytes;
	grow(&fresh, 100, 5);
	rc |= serieslog_append(&log, &fresh, 2000000000, &broken);
	ref = serieslog_ref(&log, 1000000000);
	int fd = open(log.path, O_RDWR);
	for (uint64_t at = SERIESLOG_HEADER; at < log.bytes; at += 7) {
		unsigned char c, x;
		if (pread(fd, &c, 1, (off_t)at) != 1)
			abort();
		x = c ^ 0x5a;
		if (pwrite(fd, &x, 1, (off_t)at) != 1)
			abort();
		int m = merge(&got, ref, err, sizeof(err));
		/* A header's length has a CRC of its own: a wrong length or
		 * length CRC is corruption wherever it is, not a record cut
		 * short; a wrong payload CRC is a payload that fails it. */
		bool wrong = at < one + 8 ? m != -EINVAL || !strstr(err, "corrupt")
					  : m != 0 || got.nwarnings < 1 ||
						!strstr(got.warnings[0], "incomplete record");
		if (wrong)
			diag("byte %llu of %llu (records at 16, %llu): %d %s",
			     (unsigned long long)at, (unsigned long long)log.bytes,
			     (unsigned long long)one, m,
			     m		     ? err
			     : got.nwarnings ? got.warnings[0]
					     : "no warning");
		bad_flip += wrong;
		report_free(&got);
		if (pwrite(fd, &c, 1, (off_t)at) != 1)
			abort();
	}
	close(fd);
	ok(!rc && !bad_flip,
	   "a garbled byte in the first of two records or a length is refused, in the last "
	   "payload or its CRC dropped as torn (%zu wrong)",
	   bad_flip);
	/* Zeros where the last record should be: a file extended, never filled. */
	if (ftruncate(log.fd, (off_t)(log.bytes + 5000)) < 0)
		abort();
	ok(merge(&got, ref, err, sizeof(err)) == 0 && same(&got, &fresh) && got.nwarnings >= 1 &&
	       strstr(got.warnings[0], "incomplete record"),
	   "5000 zero bytes after the last record: a torn append, dropped");
	report_free(&got);
	if (ftruncate(log.fd, (off_t)log.bytes) < 0)
		abort();
	ok(merge(&got, ref, err, sizeof(err)) == 0 && same(&got, &fresh),
	   "unharmed, it merges whole again");
	report_free(&got);

	/* What the summary names. */
	json_t *other = json_deep_copy(ref);
	json_object_set_new(other, "id", json_string("0123456789abcdef"));
	ok(merge(&got, other, err, sizeof(err)) == -EINVAL && strstr(err, "belongs to another run"),
	   "another run's id: refused (%s)", err);
	report_free(&got);
	json_object_set(other, "id", json_object_get(ref, "id"));
	json_object_set_new(other, "file", json_string("../r.json.series"));
	ok(merge(&got, other, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "not a file name in the report's directory"),
	   "a name with a slash: refused (%s)", err);
	report_free(&got);
	json_object_set_new(other, "file", json_string("missing.series"));
	ok(merge(&got, other, err, sizeof(err)) == -EINVAL && strstr(err, "missing"),
	   "a missing log: refused, saying where the series are (%s)", err);
	report_free(&got);
	char link[PATH_MAX];
	snprintf(link, sizeof(link), "%s/link.series", dir);
	ok(symlink(log.path, link) == 0, "a symbolic link to the log");
	json_object_set_new(other, "file", json_string("link.series"));
	ok(merge(&got, other, err, sizeof(err)) == -EINVAL && strstr(err, "not followed"),
	   "is not followed (%s)", err);
	report_free(&got);
	unlink(link);
	json_decref(other);

	/* A summary whose series have columns of their own is not merged into. */
	summary_init(&got);
	struct series_interval v1 = { .max_ns = 1, .count = 1 };
	report_series_fill(&got.series[0], &v1, 1);
	ok(serieslog_merge(&got, report_path, ref, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "columns of their own"),
	   "series with columns of their own: refused");
	report_free(&got);

	/* A log path that is a directory is not replaced. */
	serieslog_close(&log, true);
	struct stat st;
	ok(stat(log.path, &st) < 0 && errno == ENOENT, "close with remove: the log is gone");
	ok(mkdir(log.path, 0700) == 0 && serieslog_open(&log, report_path, 0, NS) == -EEXIST,
	   "a directory where the log goes: -EEXIST, left alone");
	ok(serieslog_open(&log, report_path, 1, NS) == 0 && strstr(log.path, ".series.1"),
	   "generation 1 is another name (%s)", log.path);
	serieslog_close(&log, true);
	rmdir(log.path);
	char zero[PATH_MAX];
	serieslog_path(report_path, 0, zero, sizeof(zero));
	rmdir(zero);
	json_decref(ref);
	report_free(&live);
	report_free(&fresh);
	report_free(&at2);
	snprintf(link, sizeof(link), "%s/r.json.series", dir);
	unlink(link);
	rmdir(dir);
	return tap_done();
}
