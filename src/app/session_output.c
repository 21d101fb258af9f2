// SPDX-License-Identifier: GPL-2.0-or-later
/* session_output: what one `rtsoak run` writes.  The live report built at
 * each checkpoint and --prom rewrite during the run, the final report from
 * the probes' recorders, its JSON with a fallback to the temp directory,
 * the --prom and --html views, the text summary, and the warnings that say
 * which writes failed; a write that fails reaches the exit status
 * (session.c's tear-down, through session.write_failed). */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit.h"
#include "analysis.h"
#include "attribution.h"
#include "check.h"
#include "session_internal.h"
#include "util.h"
#include "views.h"

void session_output_set_times(struct report *r, const struct session *s, uint64_t duration_ns)
{
	r->duration_ns = duration_ns;
	util_iso8601(s->start_rt, r->start, sizeof(r->start));
	util_iso8601(s->start_rt + duration_ns, r->end, sizeof(r->end));
}

/* Lend the series to the report: it is written on this (housekeeping)
 * thread, the only one that changes them, and cleared or freed before they
 * change again.  A copy would double their memory at every checkpoint. */
static int add_series(struct report *r, struct session *s)
{
	for (unsigned i = 0; s->series && i < s->nthreads; i++) {
		const struct probe_thread *t = &s->threads[i];
		const struct series *se = &s->series[i];
		struct report_series *rs = report_add_series(r, t->pc->results[0], t->cpu);
		if (!rs)
			return -ENOMEM;
		rs->interval_ns = series_interval_ns(se);
		rs->n = se->st.n;
		rs->threshold_ns = se->threshold_ns;
		rs->threshold_at_ns = se->threshold_at_ns;
		rs->spikes_total = se->spikes_total;
		rs->spikes_overwritten = se->spikes_overwritten;
		rs->spikes_unlogged = se->spikes_unlogged;
		rs->stalls = __atomic_load_n(&se->feed->stalls, __ATOMIC_RELAXED);
		rs->nspikes = se->nspikes;
		rs->st = (struct series_store *)&se->st;
		rs->spikes = se->spikes;
		rs->quant = se->quant;
		rs->nquant = se->nquant;
		rs->quant_interval_ns = series_quant_interval_ns(se);
		rs->quant_merged = se->quant_merged;
		rs->borrowed = true;
	}
	return 0;
}

/* What a failed checkpoint left on disk: the previous one only if it is
 * still there (its directory may be what went away). */
static const char *checkpoint_left(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct stat st;

	if (stat(path, &st) == 0)
		return "kept the previous one";
	if (errno != ENOENT)
		return "the previous one cannot be checked";
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
	if (stat(dir, &st) < 0)
		return "its directory is gone, and no checkpoint with it";
	return "no earlier checkpoint is on disk";
}

static void checkpoint_failed(struct session *s, const char *what, int err)
{
	progress_done(&s->prog);
	s->checkpoint_failures++;
	s->checkpoint_errno = err;
	rtsoak_error("checkpoint of '%s' failed: %s: %s (%s)", s->cfg->output, what, strerror(err),
		     checkpoint_left(s->cfg->output));
}

/* The checkpoint's series: what is new since the last one, appended to the
 * series log (serieslog.h), a new log opened at the first checkpoint and
 * after a broken one.  Returns whether the summary is due: always for a new
 * log (no summary names it yet) and on SIGUSR1, else when the budget allows
 * it.  The budget keeps what a run writes within twice its final report:
 * the summaries so far, the next one (estimated as the last one's size) and
 * the log (the pages its appends wrote) must stay within 3/4 of the JSON the
 * logged series will take in the final report plus the first summary's size
 * (which the final report's rest outgrows); 3/4, because a small machine's
 * appends are mostly page rounding.  So the series are on disk at every
 * checkpoint, the statistics as often as that allows: here every 4th or
 * 5th at 1 ms intervals and 1 s checkpoints, about hourly at 1 s intervals
 * and 60 s (docs/BENCHMARKS.md, checkpoint-io.sh). */
static bool checkpoint_series(struct session *s, struct report *r, uint64_t t, bool forced,
			      int *err)
{
	size_t keep = r->nwarnings;
	bool broken = false;
	int rc;

	*err = 0;
	if (s->log.fd < 0) {
		/* Never over the log the summary on disk names: it stays
		 * readable until the next summary names this one. */
		unsigned gen = s->log_named ? s->log_named_gen + 1 : 0;
		if ((rc = serieslog_open(&s->log, s->cfg->output, gen, s->nthreads)) < 0) {
			*err = rc == -EEXIST ? ENOTSUP : -rc;
			return false;
		}
		s->log_gen = gen;
	}
	rc = add_series(r, s);
	if (!rc)
		rc = serieslog_append(&s->log, r, t, &broken);
	report_clear_results(r, keep);
	if (broken)
		serieslog_close(&s->log, false);
	if (rc) {
		*err = -rc;
		return false;
	}
	s->last_checkpoint = util_now_ns(CLOCK_MONOTONIC);
	return forced || !s->log_named || s->log_named_gen != s->log_gen ||
	       s->summary_bytes + s->summary_last + s->log.disk_bytes <=
		   s->log.series_json / 4 * 3 + s->summary_first;
}

/* Remove the log the summary on disk named, when it is not the open one:
 * after a summary names the open one, and after the final report. */
static void drop_named_log(struct session *s)
{
	char old[PATH_MAX];

	if (s->log_named && s->log_named_gen % 2 != s->log_gen % 2 &&
	    !serieslog_path(s->cfg->output, s->log_named_gen, old, sizeof(old)) && unlink(old) == 0)
		util_fsync_dir_of(old);
}

/* The summary named the open log: the budget counts it, and the log it
 * replaced (a broken one) can go. */
static void summary_written(struct session *s)
{
	struct stat st;

	if (stat(s->cfg->output, &st) == 0) {
		s->summary_last = (uint64_t)st.st_size;
		s->summary_bytes += (uint64_t)st.st_size;
		if (!s->summary_first)
			s->summary_first = (uint64_t)st.st_size;
	}
	drop_named_log(s);
	s->log_named = true;
	s->log_named_gen = s->log_gen;
}

/* Build the live report and write what is due: the checkpoint, so that a
 * run killed in hour 23 still leaves 22 hours on disk, and/or the
 * OpenMetrics textfile.  A checkpoint appends the series to the series log
 * and rewrites the summary when due (checkpoint_series); without series
 * (none recorded) the whole report is the checkpoint, as before.  A failed
 * checkpoint (disk full) keeps the previous one (the log is cut back to its
 * last whole record, the summary written atomically) and is retried at the
 * next one. */
void session_output_publish(struct session *s, struct report *r, bool json, bool prom, bool forced)
{
	size_t keep = r->nwarnings;
	uint64_t t = util_now_ns(CLOCK_MONOTONIC) - s->t0;
	int rc, wrc, err = 0;

	session_output_set_times(r, s, t);
	r->status = REPORT_RUNNING;
	if (json && s->series) {
		json = checkpoint_series(s, r, t, forced, &err);
		if (err)
			checkpoint_failed(s, "its series log", err);
	}
	if (!json && !prom)
		return;
	/* The analysis only goes into the JSON, and only without a series log:
	 * the textfile, rewritten every second, does not need it, and with a
	 * log the reader derives it from the merged series (serieslog_merge),
	 * which reach further than any summary's.  It reads every interval,
	 * so a summary's housekeeping time would grow with the run. */
	rc = session_output_build(r, s, true, json && !s->series);
	if (json) {
		if (!rc && s->series && s->log.fd >= 0 &&
		    !(r->series_log = serieslog_ref(&s->log, t)))
			rc = -ENOMEM;
		wrc = rc ? rc : report_json_write(r, s->cfg->output);
		if (!wrc && s->series)
			summary_written(s);
		else if (!wrc)
			s->last_checkpoint = util_now_ns(CLOCK_MONOTONIC);
		else
			checkpoint_failed(s, "its summary", -wrc);
	}
	if (prom) {
		wrc = rc ? rc : report_prom_write(r, s->cfg->prom);
		/* Once a second: say it the first time, count the rest. */
		if (wrc && !s->prom_failures++) {
			progress_done(&s->prog);
			rtsoak_error("--prom: cannot write '%s': %s (will retry)", s->cfg->prom,
				     strerror(-wrc));
		}
		if (wrc)
			s->prom_errno = -wrc;
	}
	report_clear_results(r, keep);
}

/* Packets that were not the probe's own reached its thread anyway (a
 * local user flooding a port, a spoofed source): each one woke the
 * SCHED_FIFO thread on the measured CPU for nothing.  Any is a warning;
 * enough of them (report_foreign_disturbs) make the final report's status
 * disturbed -- a checkpoint stays running, a failed run failed. */
static int foreign_warning(struct report *r, const struct probe_thread *t, json_t *counters)
{
	json_int_t foreign = json_integer_value(json_object_get(counters, "foreign"));
	json_int_t received = json_integer_value(json_object_get(counters, "received"));

	if (foreign <= 0)
		return 0;
	bool bent =
	    report_foreign_disturbs((uint64_t)foreign, received > 0 ? (uint64_t)received : 0);
	if (bent && (r->status == REPORT_COMPLETE || r->status == REPORT_INTERRUPTED))
		r->status = REPORT_DISTURBED;
	return report_warn(r,
			   "%s on CPU %d: %lld foreign packet(s) woke the probe thread (not from "
			   "its own sender or target; each one measured nothing) for %lld "
			   "sample(s): %s %d %% of them%s",
			   t->pc->results[0], t->cpu, (long long)foreign, (long long)received,
			   bent ? "more than" : "at most", REPORT_FOREIGN_PCT,
			   bent ? ", the results are disturbed" : "");
}

static int add_result(struct report *r, const struct probe_thread *t, unsigned k, const char *phase,
		      const struct recorder *rec)
{
	struct report_result *res = report_add_result(r, false, t->pc->results[k], t->cpu, phase);

	if (!res || !rec || report_result_from_recorder(res, rec))
		return -ENOMEM;
	/* Counters are per thread, not per phase: they go on the union. */
	if (t->ops->counters && !strcmp(phase, "all")) {
		res->counters = json_object();
		if (!res->counters)
			return -ENOMEM;
		t->ops->counters(t, k, res->counters);
		/* A probe that sent and never heard back (net.rtt to a reflector
		 * that was never up) ran fine but measured nothing: say so. */
		json_int_t sent = json_integer_value(json_object_get(res->counters, "sent"));
		json_int_t received =
		    json_integer_value(json_object_get(res->counters, "received"));
		const char *to = strstr(t->pc->spec, "target=");
		if (k == 0 && sent > 0 && received == 0 &&
		    report_warn(r, "%s on CPU %d: 100 %% loss%s%s (%lld sent, none answered)",
				t->pc->results[k], t->cpu, to ? " to " : "", to ? to + 7 : "",
				(long long)sent) < 0)
			return -ENOMEM;
		if (k == 0 && foreign_warning(r, t, res->counters) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The recorder to report: the probe's own after the run, or a consistent
 * copy of it (into `scratch`) while the probe is still writing it. */
static const struct recorder *source(const struct recorder *rec, struct recorder *scratch)
{
	if (!scratch)
		return rec;
	recorder_snapshot(scratch, rec);
	return scratch;
}

/* One result per (probe result, CPU, phase); with several phases also their
 * union as phase "all", built by the same merge as the aggregates. */
static int build_results(struct report *r, struct session *s, bool live)
{
	const struct phase_plan *ph = &s->phases;
	struct recorder *scratch = live ? recorder_alloc(s->cfg->top_k, -1) : NULL;
	struct recorder *all = ph->n > 1 ? recorder_alloc(s->cfg->top_k, -1) : NULL;
	struct recorder *arm[2] = { NULL, NULL };
	int rc = -ENOMEM;

	if ((live && !scratch) || (ph->n > 1 && !all))
		goto out;
	/* ab: each arm's rounds merged, beside "all" */
	for (int a = 0; s->cfg->ab && a < 2; a++)
		if (!(arm[a] = recorder_alloc(s->cfg->top_k, -1)))
			goto out;
	for (unsigned i = 0; i < s->nthreads; i++) {
		struct probe_thread *t = &s->threads[i];
		for (unsigned k = 0; k < t->nrec; k++) {
			if (all)
				recorder_init(all, s->cfg->top_k,
					      (struct recorder_sample *)(all + 1));
			for (int a = 0; arm[0] && a < 2; a++)
				recorder_init(arm[a], s->cfg->top_k,
					      (struct recorder_sample *)(arm[a] + 1));
			for (unsigned p = 0; p < ph->n; p++) {
				const struct recorder *rec = source(t->rec[k][p], scratch);
				if ((rc = add_result(r, t, k, ph->name[p], rec)))
					goto out;
				if (all)
					recorder_merge(all, rec);
				if (arm[0])
					recorder_merge(arm[phase_ab_arm(ph, p) == 'B'], rec);
			}
			if (arm[0] && ((rc = add_result(r, t, k, "A", arm[0])) ||
				       (rc = add_result(r, t, k, "B", arm[1]))))
				goto out;
			if (all && (rc = add_result(r, t, k, "all", all)))
				goto out;
		}
	}
	rc = report_build_aggregates(r);
out:
	recorder_free(scratch);
	recorder_free(all);
	recorder_free(arm[0]);
	recorder_free(arm[1]);
	return rc;
}

int session_output_build(struct report *r, struct session *s, bool live, bool full)
{
	struct run_config *cfg = s->cfg;
	json_t *names = json_array();
	/* a live report's open phase counts up to the report's time */
	const uint64_t now = live ? r->duration_ns : PHASE_CLOSED;

	int bad = !names;

	/* every value checked: out of memory is an error, not a key missing */
	for (unsigned p = 0; !bad && p < s->phases.n; p++)
		bad |= util_json_push(names, util_json_string(s->phases.name[p]));
	r->config = cli_config_json(cfg);
	if (!r->config || bad) {
		json_decref(names);
		return -ENOMEM;
	}
	if (util_json_set(r->config, "phases", names))
		return -ENOMEM;
	r->periods = json_incref(json_object_get(r->config, "probe_intervals_ns"));
	r->loads = json_array();
	for (unsigned i = 0; r->loads && s->sup && i < cfg->nloads; i++)
		if (util_json_push(r->loads,
				   load_supervisor_report(
				       s->sup, i, phase_load_active_ns(&s->phases, i, now), s->t0)))
			return -ENOMEM;
	r->phases = phase_report(&s->phases, cfg, now);
	r->tweaks = tweak_report(&cfg->tweaks);
	if (!r->loads || !r->phases || !r->tweaks)
		return -ENOMEM;
	/* The IRQ check learns what fired on the measured CPUs meanwhile. */
	if (r->checks && check_irq_fired(r->checks, r->phases, &cfg->cpus) < 0)
		return -ENOMEM;
	/* Before the analysis: periodic patterns name their culprit from it. */
	if (s->trace) {
		json_t *a = session_trace_json(s);
		int arc = a ? attribution_set(r, a, NULL) : -ENOMEM;
		json_decref(a); /* attribution_set holds its own reference */
		if (arc < 0)
			return -ENOMEM;
		char what[512];
		if (session_trace_disturbed(s, what, sizeof(what)))
			report_warn(r, "--trace: %s", what);
	}
	if (cfg->on_spike && !(r->on_spike = session_onspike_json(s)))
		return -ENOMEM;
	int rc = build_results(r, s, live);
	/* Lent, not copied: the textfile's windowed maximum reads them too. */
	if (!rc)
		rc = add_series(r, s);
	if (!rc && full && !(r->analysis = analysis_build(r)))
		rc = -ENOMEM;
	return rc;
}

/* The writes that failed during the run (each said once on stderr at the
 * time), counted in the final report. */
void session_output_note_failures(const struct session *s, struct report *r)
{
	if (s->prom_failures)
		report_warn(r, "%u write(s) of the --prom file '%s' failed (last: %s)",
			    s->prom_failures, s->cfg->prom, strerror(s->prom_errno));
	if (s->checkpoint_failures)
		report_warn(r, "%u checkpoint(s) could not be written (last: %s)",
			    s->checkpoint_failures, strerror(s->checkpoint_errno));
}

/* The report that could not reach `output` (err), to a new file of its own
 * in $TMPDIR, else /tmp: a name nobody could predict, created O_EXCL and
 * 0600 (util_write_new), so a FIFO or symlink another user planted in a
 * shared temp directory is never opened and nobody else reads root's
 * report; a TMPDIR someone else owns is passed over.  The message names the
 * file that holds it, and `output` is set to it for the summary's
 * "report:" line.  0, or -1 when the report is lost (said). */
static int write_fallback(struct report *r, char *output, int err)
{
	const char *tmp = getenv("TMPDIR");
	const char *dirs[2] = { tmp && *tmp ? tmp : "/tmp", "/tmp" };
	char prefix[32], path[PATH_MAX];
	int frc = -ENOENT;

	snprintf(prefix, sizeof(prefix), "rtsoak-%d-", (int)getpid());
	for (unsigned i = 0; i < 2; i++) {
		if (i && !strcmp(dirs[0], dirs[1]))
			break;
		frc = report_json_write_new(r, dirs[i], prefix, path, sizeof(path));
		if (!frc) {
			rtsoak_error("--output: cannot write '%s': %s; the report is in %s instead",
				     output, strerror(err), path);
			snprintf(output, PATH_MAX, "%s", path);
			return 0;
		}
	}
	rtsoak_error("--output: cannot write '%s': %s, nor a new file in %s%s%s: %s: the report "
		     "is lost",
		     output, strerror(err), dirs[0], strcmp(dirs[0], dirs[1]) ? " or " : "",
		     strcmp(dirs[0], dirs[1]) ? dirs[1] : "", strerror(-frc));
	return -1;
}

/* The JSON report to --output, or to the temp directory when that fails
 * (cfg->output then names where it went).  Returns 0, or -1 when it reached
 * neither (said on stderr). */
static int write_json(struct session *s, struct report *r)
{
	struct run_config *cfg = s->cfg;
	int rc;

	if ((rc = report_json_write(r, cfg->output)) == 0) {
		/* The report holds every series: the checkpoints' logs go. */
		char named[PATH_MAX];
		if (s->log_named &&
		    !serieslog_path(cfg->output, s->log_named_gen, named, sizeof(named)) &&
		    unlink(named) == 0)
			util_fsync_dir_of(named);
		serieslog_close(&s->log, true);
	} else {
		/* The directory was writable at start; it is not now (disk full,
		 * removed), or standard output is full.  Do not lose the run: try
		 * the temp directory, and exit 3 saying where it went. */
		s->write_failed = true;
		if (write_fallback(r, cfg->output, -rc) < 0)
			return -1;
	}
	return 0;
}

/* The textfile at the end: removed, so that a finished run never shadows or outlives a live one
 * in node_exporter (its series end; the report has the final numbers), or with --prom-keep
 * written once more, marked finished (rtsoak_run_state, status).  Only a regular file is
 * removed, never what a symbolic link points to or a device: those get the final text. */
static int prom_final(const struct run_config *cfg, const struct report *r)
{
	char why[PATH_MAX + 160];
	struct stat st;

	if (!cfg->prom_keep && output_check(cfg->prom, NULL, why, sizeof(why)) == OUTPUT_FILE) {
		if (lstat(cfg->prom, &st) < 0)
			return errno == ENOENT ? 0 : -errno;
		if (S_ISREG(st.st_mode))
			return unlink(cfg->prom) < 0 && errno != ENOENT ? -errno : 0;
	}
	return report_prom_write(r, cfg->prom);
}

/* Write the final report and its views, then print the text summary: on
 * standard error when standard output carries the JSON or the HTML (as
 * asked, before any fallback moved the JSON).  A view that fails sets
 * write_failed and the others are still written.  Returns 0, or -1 when the
 * report is lost (nothing else written or printed). */
int session_output_write(struct session *s, struct report *r)
{
	struct run_config *cfg = s->cfg;
	bool taken = !strcmp(cfg->output, "-") || !strcmp(cfg->html, "-");
	int rc;

	if (write_json(s, r) < 0)
		return -1;
	if (cfg->prom[0] && (rc = prom_final(cfg, r)) < 0) {
		rtsoak_error("--prom: cannot %s '%s': %s", cfg->prom_keep ? "write" : "remove",
			     cfg->prom, strerror(-rc));
		s->write_failed = true;
	}
	if (cfg->html[0] && (rc = report_html_write(r, cfg->html)) < 0) {
		rtsoak_error("--html: cannot write '%s': %s (the JSON report has everything)",
			     cfg->html, strerror(-rc));
		s->write_failed = true;
	}
	if (!cfg->quiet) {
		FILE *out = taken ? stderr : stdout;
		report_text_print(r, out, cli_color_wanted(cfg->color, out));
		if (strcmp(cfg->output, "-"))
			fprintf(out, "report: %s\n", cfg->output);
		if (cfg->html[0] && strcmp(cfg->html, "-"))
			fprintf(out, "html: %s\n", cfg->html);
	}
	return 0;
}
