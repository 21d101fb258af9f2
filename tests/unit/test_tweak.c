// SPDX-License-Identifier: GPL-2.0-or-later
/* tweak: --set on real sysctl and sysfs files, the journal, and `rtsoak
 * restore` after a simulated crash.  Only harmless values are written: one
 * more than the current vmstat interval, printk rate limit or netdev budget
 * for a few milliseconds, or a file's current value (slab cpu_partial, THP).
 * Every scenario checks that the originals are back; journals live in a fresh
 * mktemp directory. */
#include <config.h>

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lock.h"
#include "tap.h"
#include "walk_ref.h"
#include "tweak.h"
#include "util.h"

#define STAT_INTERVAL "/proc/sys/vm/stat_interval"
#define RATELIMIT "/proc/sys/kernel/printk_ratelimit"
#define BUDGET "/proc/sys/net/core/netdev_budget"
#define THP "/sys/kernel/mm/transparent_hugepage/enabled"
#define PRINTK_TIME "/sys/module/printk/parameters/time"
#define SLAB_GLOB "/sys/kernel/slab/*/cpu_partial"

static const char *const tunables[] = { STAT_INTERVAL, RATELIMIT, BUDGET, THP, PRINTK_TIME };
#define NTUNABLES (sizeof(tunables) / sizeof(tunables[0]))
static char before[NTUNABLES][256];

static char dir[] = "/tmp/test_tweak-XXXXXX";
static char report[256], journal[300], err[1024];

static void get(const char *path, char *buf, size_t len)
{
	if (util_read_file(path, buf, len) < 0)
		buf[0] = '\0';
}

static bool holds(const char *path, const char *want)
{
	char buf[256];

	get(path, buf, sizeof(buf));
	return !strcmp(buf, want);
}

/* Every tunable as it was when the test started. */
static bool untouched(void)
{
	for (size_t i = 0; i < NTUNABLES; i++)
		if (*before[i] && !holds(tunables[i], before[i]))
			return false;
	return true;
}

static const char *plus1(const char *path)
{
	static char buf[4][32];
	static int k;
	char cur[64];

	get(path, cur, sizeof(cur));
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%ld", strtol(cur, NULL, 10) + 1);
	return buf[k];
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static bool one_line(void)
{
	return *err && !strchr(err, '\n');
}

static int add(struct tweak_set *ts, const char *path, const char *value)
{
	char spec[PATH_MAX + 64];

	snprintf(spec, sizeof(spec), "%s=%s", path, value);
	err[0] = '\0';
	return tweak_add(ts, spec, err, sizeof(err));
}

static bool add_fails(const char *spec, const char *want)
{
	struct tweak_set ts = { 0 };
	bool r;

	err[0] = '\0';
	r = tweak_add(&ts, spec, err, sizeof(err)) == -EINVAL && ts.n == 0 && one_line() &&
	    strstr(err, want);
	if (!r)
		diag("%s: %s", spec, err);
	tweak_set_free(&ts);
	return r;
}

static int set_journal(struct tweak_set *ts)
{
	err[0] = '\0';
	return tweak_set_journal(ts, report, false, err, sizeof(err));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_add(void)
{
	struct tweak_set ts = { 0 };
	char link[300], plain[300], spec[400];

	ok(add(&ts, STAT_INTERVAL, "2") == 0 && ts.n == 1 && !strcmp(ts.v[0].path, STAT_INTERVAL) &&
	       !strcmp(ts.v[0].value, "2") && !ts.v[0].original && !ts.v[0].applied,
	   "add_accepts_a_proc_sys_file");
	ok(add_fails(STAT_INTERVAL, "--set " STAT_INTERVAL ": expected PATH=VALUE"),
	   "add_rejects_a_spec_without_equals");
	ok(add_fails(STAT_INTERVAL "=", "--set " STAT_INTERVAL ": needs a value"),
	   "add_rejects_an_empty_value");
	ok(add_fails("proc/sys/vm/stat_interval=1", "needs an absolute path"),
	   "add_rejects_a_relative_path");
	ok(add_fails("/etc/hostname=x", "--set /etc/hostname: not under /sys or /proc/sys"),
	   "add_rejects_a_file_outside_sys_and_proc_sys");
	ok(add_fails("/proc/sysvipc/shm=1", "--set /proc/sysvipc/shm: not under /sys or /proc/sys"),
	   "add_rejects_a_proc_sys_lookalike");
	snprintf(plain, sizeof(plain), "%s/plain", dir);
	write_file(plain, "1\n");
	snprintf(spec, sizeof(spec), "%s=2", plain);
	ok(add_fails(spec, "not under /sys or /proc/sys"), "add_rejects_a_tmp_file");

	/* The resolved path is what is checked and recorded. */
	snprintf(link, sizeof(link), "%s/link-in", dir);
	ok(symlink(STAT_INTERVAL, link) == 0 && add(&ts, link, "2") == -EINVAL &&
	       strstr(err, "(-> " STAT_INTERVAL "): set twice"),
	   "add_rejects_a_file_set_twice_through_a_symlink");
	{
		struct tweak_set t2 = { 0 };

		ok(add(&t2, link, "2") == 0 && t2.n == 1 && !strcmp(t2.v[0].path, STAT_INTERVAL),
		   "add_follows_a_symlink_into_proc_sys_and_records_the_target");
		tweak_set_free(&t2);
	}
	snprintf(link, sizeof(link), "%s/link-out", dir);
	snprintf(spec, sizeof(spec), "%s=x", link);
	ok(symlink("/etc/hostname", link) == 0 &&
	       add_fails(spec, "(-> /etc/hostname): not under /sys or /proc/sys"),
	   "add_rejects_a_symlink_out_of_sys_naming_its_target");
	ok(add_fails("/proc/sys/vm/no_such_tunable=1",
		     "--set /proc/sys/vm/no_such_tunable: No such file or directory"),
	   "add_rejects_a_missing_file");
	ok(add_fails("/sys/kernel/slab/*/cpu_partal=0",
		     "--set /sys/kernel/slab/*/cpu_partal: matches no file"),
	   "add_rejects_a_glob_that_matches_nothing");
	ok(add_fails("/proc/sys/kernel/osrelease=1", "osrelease: read-only (mode 0444)"),
	   "add_rejects_a_read_only_file");
	ok(add_fails("/proc/sys/vm/drop_caches=1", "drop_caches: write-only"),
	   "add_rejects_a_write_only_file");
	ok(add_fails("/proc/sys/vm=1", "--set /proc/sys/vm: not a regular file"),
	   "add_rejects_a_directory");
	ok(add(&ts, STAT_INTERVAL, "3") == -EINVAL && one_line() &&
	       !strcmp(err, "--set " STAT_INTERVAL ": set twice"),
	   "add_rejects_a_file_set_twice");
	/* /proc/sys/vm/ holds compact_memory and drop_caches (write-only): all
	 * of it is refused. */
	ok(add(&ts, "/proc/sys/vm/*", "1") == -EINVAL && ts.n == 1 && strstr(err, "write-only"),
	   "add_keeps_nothing_of_a_glob_with_one_bad_match");
	ok(untouched(), "add_writes_nothing");
	tweak_set_free(&ts);
}

static void test_value_equal(void)
{
	ok(tweak_value_equal("madvise", "always [madvise] never\n") &&
	       tweak_value_equal("none", "[none] mq-deadline") &&
	       !tweak_value_equal("always", "always [madvise] never"),
	   "value_equal_compares_the_bracketed_selection");
	ok(tweak_value_equal("10", "010\n") && tweak_value_equal("+5", "5") &&
	       tweak_value_equal("4 4 1 7", "4\t4\t1\t7\n") &&
	       tweak_value_equal("18446744073709551615", "18446744073709551615") &&
	       !tweak_value_equal("5", "6") && !tweak_value_equal("1", "Y") &&
	       !tweak_value_equal("-1", "1"),
	   "value_equal_compares_numbers_and_tokens");
	ok(tweak_value_equal("1", "00000000,00000001") && tweak_value_equal("F", "0000000f") &&
	       tweak_value_equal("0,1,2,3", "0-3") && !tweak_value_equal("3", "0-1") &&
	       !tweak_value_equal("ff", "000000fe"),
	   "value_equal_compares_cpumasks_and_cpulists");
}

/* A child named "rtsoak" stands for a run that is still going. */
static pid_t fake_rtsoak(void)
{
	int p[2];
	char c;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_NAME, "rtsoak");
		(void)!write(p[1], "x", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	(void)!read(p[0], &c, 1);
	close(p[0]);
	return pid;
}

static void test_journal_path(void)
{
	struct tweak_set ts = { 0 };
	char cwd[PATH_MAX], want[PATH_MAX + 32], text[256];
	pid_t child;

	ok(set_journal(&ts) == 0 && !strcmp(ts.journal, journal),
	   "journal_lies_next_to_the_report");
	(void)!getcwd(cwd, sizeof(cwd));
	snprintf(want, sizeof(want), "%s/rtsoak.journal", cwd);
	ok(tweak_set_journal(&ts, "-", false, err, sizeof(err)) == 0 && !strcmp(ts.journal, want),
	   "journal_for_stdout_is_rtsoak_journal_in_the_working_directory");
	snprintf(want, sizeof(want), "%s/x.json.journal", cwd);
	ok(tweak_set_journal(&ts, "x.json", false, err, sizeof(err)) == 0 &&
	       !strcmp(ts.journal, want),
	   "journal_path_is_absolute");

	write_file(journal, "{\"schema\":\"rtsoak-journal/1\",\"pid\":1,\"tweaks\":[]}");
	snprintf(
	    want, sizeof(want),
	    "a journal from an earlier run is still present: %s (run `rtsoak restore %s`, or --force)",
	    journal, journal);
	ok(set_journal(&ts) == -EEXIST && !strcmp(err, want),
	   "a_stale_journal_stops_the_run_naming_it");
	ok(tweak_set_journal(&ts, report, true, err, sizeof(err)) == 0 && exists(journal),
	   "force_accepts_a_stale_journal");

	child = fake_rtsoak();
	snprintf(text, sizeof(text), "{\"schema\":\"rtsoak-journal/1\",\"pid\":%d,\"tweaks\":[]}",
		 (int)child);
	write_file(journal, text);
	ok(tweak_set_journal(&ts, report, true, err, sizeof(err)) == -EBUSY && one_line() &&
	       strstr(err, "still running"),
	   "a_running_rtsoaks_journal_stops_the_run_even_with_force");
	err[0] = '\0';
	ok(tweak_journal_restore(journal, stdout, err, sizeof(err)) == 3 &&
	       strstr(err, "still running") && exists(journal),
	   "restore_refuses_a_running_rtsoaks_journal");
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ok(tweak_journal_restore(journal, stdout, err, sizeof(err)) == 0 && !exists(journal),
	   "restore_takes_the_journal_once_its_rtsoak_is_gone");
	tweak_set_free(&ts);
}

static void test_round_trip(void)
{
	struct tweak_set ts = { 0 };
	const char *si = plus1(STAT_INTERVAL), *rl = plus1(RATELIMIT);
	json_t *j, *list, *r;
	bool good;

	ok(set_journal(&ts) == 0 && add(&ts, STAT_INTERVAL, si) == 0 &&
	       add(&ts, RATELIMIT, rl) == 0 && tweak_apply(&ts, err, sizeof(err)) == 0 &&
	       holds(STAT_INTERVAL, si) && holds(RATELIMIT, rl) && ts.v[0].applied &&
	       ts.v[1].applied,
	   "apply_sets_every_value");
	j = json_load_file(journal, 0, NULL);
	list = json_object_get(j, "tweaks");
	good = json_array_size(list) == 2 &&
	       json_integer_value(json_object_get(j, "pid")) == getpid() &&
	       !strcmp(json_string_value(json_object_get(j, "schema")), TWEAK_JOURNAL_SCHEMA) &&
	       !strcmp(json_string_value(json_object_get(j, "report")), report) &&
	       strlen(json_string_value(json_object_get(j, "created"))) == 24;
	for (size_t i = 0; good && i < 2; i++) {
		json_t *o = json_array_get(list, i);

		good = !strcmp(json_string_value(json_object_get(o, "path")), tunables[i]) &&
		       !strcmp(json_string_value(json_object_get(o, "original")), before[i]) &&
		       !strcmp(json_string_value(json_object_get(o, "value")), ts.v[i].value);
	}
	ok(good, "journal_holds_the_originals_while_applied");
	json_decref(j);
	r = tweak_report(&ts);
	ok(json_array_size(r) == 2 &&
	       !strcmp(json_string_value(json_object_get(json_array_get(r, 1), "path")),
		       RATELIMIT) &&
	       !strcmp(json_string_value(json_object_get(json_array_get(r, 1), "original")),
		       before[1]) &&
	       !strcmp(json_string_value(json_object_get(json_array_get(r, 1), "value")), rl),
	   "report_lists_path_original_and_value");
	json_decref(r);
	ok(tweak_restore(&ts, err, sizeof(err)) == 0 && untouched() && !ts.v[0].applied,
	   "restore_puts_the_originals_back");
	ok(!exists(journal), "restore_removes_the_journal");
	ok(tweak_restore(&ts, err, sizeof(err)) == 0 && untouched(), "restore_twice_is_harmless");
	tweak_set_free(&ts);
}

/* No journal on disk, no write: the journal's directory is gone. */
static void test_journal_first(void)
{
	struct tweak_set ts = { 0 };
	char sub[PATH_MAX], rep[PATH_MAX + 16];
	int rc;

	snprintf(sub, sizeof(sub), "%s/gone", dir);
	snprintf(rep, sizeof(rep), "%s/r.json", sub);
	mkdir(sub, 0755);
	rc = tweak_set_journal(&ts, rep, false, err, sizeof(err));
	rmdir(sub);
	ok(rc == 0 && add(&ts, STAT_INTERVAL, plus1(STAT_INTERVAL)) == 0 &&
	       tweak_apply(&ts, err, sizeof(err)) == -ENOENT && strstr(err, ts.journal) &&
	       untouched(),
	   "apply_writes_nothing_when_the_journal_cannot_be_written");
	tweak_set_free(&ts);
}

static void test_rejected_value(void)
{
	struct tweak_set ts = { 0 };

	ok(set_journal(&ts) == 0 && add(&ts, RATELIMIT, plus1(RATELIMIT)) == 0 &&
	       add(&ts, BUDGET, plus1(BUDGET)) == 0 && add(&ts, STAT_INTERVAL, "abc") == 0 &&
	       tweak_apply(&ts, err, sizeof(err)) == -EINVAL &&
	       !strcmp(err, STAT_INTERVAL ": write 'abc': Invalid argument"),
	   "apply_fails_naming_the_path_the_kernel_refuses");
	ok(untouched() && !ts.v[0].applied && !ts.v[1].applied,
	   "values_written_before_the_refused_one_are_restored");
	ok(!exists(journal), "a_failed_apply_removes_the_journal");
	tweak_set_free(&ts);
}

/* A bool module parameter takes "1" but shows "Y": the kernel did not keep
 * what was written, so it is an error (the user must write Y). */
static void test_readback_mismatch(void)
{
	struct tweak_set ts = { 0 };
	const char *b = before[4], *same = !strcmp(b, "Y") ? "1" : "0";
	char want[1024];

	if (strcmp(b, "Y") && strcmp(b, "N")) {
		ok(1, "# SKIP %s is missing or not a bool", PRINTK_TIME);
		return;
	}
	snprintf(want, sizeof(want), "%s: wrote '%s', reads back '%s'", PRINTK_TIME, same, b);
	ok(set_journal(&ts) == 0 && add(&ts, PRINTK_TIME, same) == 0 &&
	       tweak_apply(&ts, err, sizeof(err)) == -EINVAL && !strcmp(err, want) && untouched() &&
	       !exists(journal),
	   "apply_fails_when_the_value_reads_back_different");
	tweak_set_free(&ts);
}

static void test_crash(void)
{
	struct tweak_set ts = { 0 };
	const char *si = plus1(STAT_INTERVAL), *bu = plus1(BUDGET);
	char want[2048], *out = NULL;
	size_t outlen = 0;
	FILE *f;
	int rc;

	ok(set_journal(&ts) == 0 && add(&ts, STAT_INTERVAL, si) == 0 && add(&ts, BUDGET, bu) == 0 &&
	       tweak_apply(&ts, err, sizeof(err)) == 0 && holds(BUDGET, bu) && exists(journal),
	   "applied_tweaks_and_journal_before_the_crash");
	tweak_set_free(&ts); /* SIGKILL: nothing restored */
	f = open_memstream(&out, &outlen);
	rc = tweak_journal_restore(journal, f, err, sizeof(err));
	fclose(f);
	ok(rc == 0 && untouched(), "journal_restore_after_a_crash_puts_the_originals_back");
	snprintf(want, sizeof(want), "restored %s: '%s' -> '%s'\nrestored %s: '%s' -> '%s'\n",
		 BUDGET, bu, before[2], STAT_INTERVAL, si, before[0]);
	ok(out && !strcmp(out, want), "journal_restore_reports_each_path_in_reverse_order");
	if (out && strcmp(out, want))
		diag("got: %s", out);
	free(out);
	ok(!exists(journal), "journal_restore_removes_the_journal");
	err[0] = '\0';
	ok(tweak_journal_restore(journal, stdout, err, sizeof(err)) == 2 && strstr(err, journal) &&
	       strstr(err, "No such file or directory"),
	   "journal_restore_of_a_missing_journal_is_a_usage_error");
}

static void test_restore_idempotent(void)
{
	struct tweak_set ts = { 0 };
	char want[512], *out = NULL;
	size_t outlen = 0;
	FILE *f;
	int rc;

	ok(set_journal(&ts) == 0 && add(&ts, STAT_INTERVAL, plus1(STAT_INTERVAL)) == 0 &&
	       tweak_apply(&ts, err, sizeof(err)) == 0 &&
	       tweak_unapply(&ts, err, sizeof(err)) == 0 && untouched() && exists(journal),
	   "unapply_restores_and_keeps_the_journal");
	tweak_set_free(&ts);
	f = open_memstream(&out, &outlen);
	rc = tweak_journal_restore(journal, f, err, sizeof(err));
	fclose(f);
	snprintf(want, sizeof(want), "%s already '%s'\n", STAT_INTERVAL, before[0]);
	ok(rc == 0 && out && !strcmp(out, want) && !exists(journal) && untouched(),
	   "journal_restore_of_restored_values_writes_nothing_and_says_so");
	free(out);
}

static void test_bad_journals(void)
{
	char host[256], *out = NULL;
	size_t outlen = 0;
	FILE *f;
	int rc;

	write_file(journal, "{ not json");
	ok(tweak_journal_restore(journal, stdout, err, sizeof(err)) == 2 && one_line() &&
	       strstr(err, journal) && strstr(err, "not JSON"),
	   "journal_restore_rejects_a_file_that_is_not_json");
	write_file(journal, "{\"schema\":\"rtsoak-report/1\",\"tweaks\":[]}");
	ok(tweak_journal_restore(journal, stdout, err, sizeof(err)) == 2 && strstr(err, journal) &&
	       strstr(err, "not an rtsoak journal"),
	   "journal_restore_rejects_another_schema");
	get("/etc/hostname", host, sizeof(host));
	write_file(journal, "{\"schema\":\"rtsoak-journal/1\",\"pid\":1,\"tweaks\":"
			    "[{\"path\":\"/etc/hostname\",\"original\":\"pwned\"}]}");
	f = open_memstream(&out, &outlen);
	rc = tweak_journal_restore(journal, f, err, sizeof(err));
	fclose(f);
	ok(rc == 3 && out &&
	       !strcmp(out, "/etc/hostname: cannot restore: not under /sys or /proc/sys\n") &&
	       holds("/etc/hostname", host) && exists(journal),
	   "journal_restore_writes_nothing_outside_sys_and_keeps_the_journal");
	free(out);
	unlink(journal);
}

/* ab: apply and unapply per round through one journal. */
static void test_ab_cycle(void)
{
	struct tweak_set ts = { 0 };
	const char *si = plus1(STAT_INTERVAL);
	struct stat a, b;
	json_t *j;

	ok(set_journal(&ts) == 0 && add(&ts, STAT_INTERVAL, si) == 0 &&
	       tweak_apply(&ts, err, sizeof(err)) == 0 && stat(journal, &a) == 0 &&
	       tweak_unapply(&ts, err, sizeof(err)) == 0 && untouched() && exists(journal),
	   "ab_unapply_between_rounds_keeps_the_journal");
	ok(tweak_apply(&ts, err, sizeof(err)) == 0 && holds(STAT_INTERVAL, si) &&
	       stat(journal, &b) == 0 && a.st_ino == b.st_ino &&
	       a.st_mtim.tv_nsec == b.st_mtim.tv_nsec && !strcmp(ts.v[0].original, before[0]),
	   "ab_apply_again_keeps_the_first_journal");
	j = json_load_file(journal, 0, NULL);
	ok(!strcmp(json_string_value(json_object_get(
		       json_array_get(json_object_get(j, "tweaks"), 0), "original")),
		   before[0]) &&
	       tweak_unapply(&ts, err, sizeof(err)) == 0 && untouched() && exists(journal),
	   "ab_journal_keeps_the_true_original_across_rounds");
	json_decref(j);
	ok(tweak_restore(&ts, err, sizeof(err)) == 0 && !exists(journal) && untouched(),
	   "ab_final_restore_removes_the_journal");
	tweak_set_free(&ts);
}

static void test_bracketed(void)
{
	struct tweak_set ts = { 0 };
	char raw[256], sel[64] = "", after[256];
	const char *l, *r;
	json_t *j;

	get(THP, raw, sizeof(raw));
	l = strchr(raw, '[');
	r = l ? strchr(l, ']') : NULL;
	if (!r || (size_t)(r - l) >= sizeof(sel)) {
		ok(1, "# SKIP %s is missing or shows no selection", THP);
		ok(1, "# SKIP %s is missing or shows no selection", THP);
		return;
	}
	memcpy(sel, l + 1, (size_t)(r - l - 1));
	j = NULL;
	if (set_journal(&ts) == 0 && add(&ts, THP, sel) == 0 &&
	    tweak_apply(&ts, err, sizeof(err)) == 0)
		j = json_load_file(journal, 0, NULL);
	get(THP, after, sizeof(after));
	ok(j && ts.v[0].applied && !strcmp(ts.v[0].original, sel) && !strcmp(after, raw) &&
	       !strcmp(json_string_value(json_object_get(
			   json_array_get(json_object_get(j, "tweaks"), 0), "original")),
		       sel),
	   "a_bracketed_file_applies_and_journals_its_selection ('%s')", sel);
	json_decref(j);
	ok(tweak_restore(&ts, err, sizeof(err)) == 0 && holds(THP, raw) && !exists(journal),
	   "a_bracketed_file_restores");
	tweak_set_free(&ts);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_slab(void)
{
	struct tweak_set all = { 0 }, ts = { 0 };
	glob_t gl;
	char **real, cur[64];
	size_t unique = 0;
	uint64_t t0, t_add, t_apply, t_r0, t_restore;
	bool same = true, jok;
	json_t *j;

	if (glob(SLAB_GLOB, 0, NULL, &gl)) {
		for (int i = 0; i < 3; i++)
			ok(1, "# SKIP no %s (not SLUB, or no sysfs)", SLAB_GLOB);
		return;
	}
	real = calloc(gl.gl_pathc, sizeof(*real));
	for (size_t i = 0; i < gl.gl_pathc; i++)
		real[i] = realpath(gl.gl_pathv[i], NULL);
	qsort(real, gl.gl_pathc, sizeof(*real), cmp_str);
	for (size_t i = 0; i < gl.gl_pathc; i++)
		unique += !i || strcmp(real[i], real[i - 1]);

	t0 = util_now_ns(CLOCK_MONOTONIC);
	ok(add(&all, SLAB_GLOB, "0") == 0 && all.n == unique && unique > 0,
	   "the_slab_glob_collapses_merged_cache_aliases (%zu matches, %zu caches)", gl.gl_pathc,
	   unique);
	diag("tweak_add %s: %.2f ms", SLAB_GLOB, (util_now_ns(CLOCK_MONOTONIC) - t0) / 1e6);

	/* Each cache's current value: a real write that changes nothing. */
	t0 = util_now_ns(CLOCK_MONOTONIC);
	(void)set_journal(&ts);
	for (size_t i = 0; i < all.n; i++) {
		get(all.v[i].path, cur, sizeof(cur));
		if (add(&ts, all.v[i].path, cur) < 0)
			diag("%s", err);
	}
	t_add = util_now_ns(CLOCK_MONOTONIC);
	jok = tweak_apply(&ts, err, sizeof(err)) == 0;
	t_apply = util_now_ns(CLOCK_MONOTONIC);
	if (!jok)
		diag("apply: %s", err);
	j = json_load_file(journal, 0, NULL);
	jok = jok && ts.n == all.n && json_array_size(json_object_get(j, "tweaks")) == ts.n;
	json_decref(j);
	t_r0 = util_now_ns(CLOCK_MONOTONIC);
	jok = tweak_restore(&ts, err, sizeof(err)) == 0 && jok;
	t_restore = util_now_ns(CLOCK_MONOTONIC);
	ok(jok && !exists(journal), "the_slab_caches_apply_and_restore_through_a_full_journal");
	diag("%zu cpu_partial files at their current values: add %.2f ms, apply (originals, "
	     "journal, writes, read-backs) %.2f ms, restore %.2f ms, total %.2f ms",
	     ts.n, (t_add - t0) / 1e6, (t_apply - t_add) / 1e6, (t_restore - t_r0) / 1e6,
	     (t_restore - t0 - (t_r0 - t_apply)) / 1e6);
	for (size_t i = 0; i < ts.n; i++)
		same &= holds(ts.v[i].path, ts.v[i].value);
	ok(same, "every_cpu_partial_holds_its_value_afterwards");
	tweak_set_free(&ts);
	tweak_set_free(&all);
	for (size_t i = 0; i < gl.gl_pathc; i++)
		free(real[i]);
	free(real);
	globfree(&gl);
}

/* Locks and live-journal records live in /run/rtsoak.  test_crash leaves a
 * record on purpose (a simulated SIGKILL), and a record of a dead run refuses
 * every other run of the suite (they run in parallel): this test gets a /run
 * of its own, in a mount namespace of its own. */
static int private_run(void)
{
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") < 0)
		return -errno;
	return 0;
}

/* restore's output for `journal`, in a buffer (free it). */
static char *restore_out(int *rc)
{
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);

	err[0] = '\0';
	*rc = tweak_journal_restore(journal, f, err, sizeof(err));
	fclose(f);
	return out;
}

static void test_parse(void)
{
	static const char text[] =
	    "{\"schema\":\"rtsoak-journal/1\",\"pid\":42,\"report\":\"r\","
	    "\"tweaks\":[{\"path\":\"/a\",\"original\":\"1\",\"value\":\"2\"},"
	    "{\"path\":\"/b\",\"original\":\"x\"}]}TRAILING";
	struct tweak_journal j;
	char big[TWEAK_VALUE_MAX + 128];
	const char *text2;

	/* Not NUL-terminated where it ends: len is the end. */
	ok(tweak_journal_parse(text, sizeof(text) - 1 - strlen("TRAILING"), &j, err, sizeof(err)) ==
		   0 &&
	       j.pid == 42 && j.n == 2 && !strcmp(j.report, "r") && !strcmp(j.v[0].path, "/a") &&
	       !strcmp(j.v[0].original, "1") && !strcmp(j.v[0].value, "2") &&
	       !strcmp(j.v[1].path, "/b") && !j.v[1].value,
	   "parse_reads_a_journal_from_bytes");
	tweak_journal_free(&j);
	ok(tweak_journal_parse(text, sizeof(text) - 1, &j, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "not JSON") && one_line(),
	   "parse_rejects_trailing_bytes");
	tweak_journal_free(&j);
	text2 = "{\"schema\":\"x\\u001b[2J\",\"tweaks\":[]}";
	ok(tweak_journal_parse(text2, strlen(text2), &j, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "not an rtsoak journal (schema x\\x1b[2J") && !strchr(err, '\033'),
	   "parse_escapes_what_it_quotes_from_the_journal (%s)", err);
	tweak_journal_free(&j);
	snprintf(
	    big, sizeof(big),
	    "{\"schema\":\"rtsoak-journal/1\",\"tweaks\":[{\"path\":\"/a\",\"original\":\"%0*d\"}]}",
	    TWEAK_VALUE_MAX, 0);
	ok(tweak_journal_parse(big, strlen(big), &j, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "tweaks[0]"),
	   "parse_rejects_a_value_longer_than_a_page");
	tweak_journal_free(&j);
	text2 = "{\"schema\":\"rtsoak-journal/1\",\"pid\":\"1\",\"tweaks\":[]}";
	ok(tweak_journal_parse(text2, strlen(text2), &j, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "pid"),
	   "parse_rejects_a_pid_that_is_not_a_number");
	tweak_journal_free(&j);
}

/* A journal rtsoak did not write, or cannot trust, is refused and never
 * offered for restoring. */
static void test_untrusted_journals(void)
{
	struct tweak_set ts = { 0 };
	char *out;
	int rc;

	write_file(
	    journal,
	    "{\"schema\":\"rtsoak-journal/1\",\"pid\":1,\"tweaks\":[{\"path\":\"" STAT_INTERVAL
	    "\",\"original\":\"7\"}]}");
	ok(chown(journal, 65534, 65534) == 0, "(journal chowned to nobody)");
	out = restore_out(&rc);
	ok(rc == 3 && one_line() && strstr(err, "owned by uid 65534") && out && !*out &&
	       holds(STAT_INTERVAL, before[0]) && exists(journal),
	   "restore_refuses_a_journal_owned_by_another_user (%s)", err);
	free(out);
	ok(set_journal(&ts) == -EPERM && one_line() && strstr(err, "owned by uid 65534") &&
	       !strstr(err, "restore"),
	   "a_run_next_to_a_foreign_journal_stops_without_suggesting_restore (%s)", err);
	ok(chown(journal, 0, 0) == 0 && chmod(journal, 0666) == 0, "(journal made 0666)");
	out = restore_out(&rc);
	ok(rc == 3 && strstr(err, "mode 0666") && holds(STAT_INTERVAL, before[0]),
	   "restore_refuses_a_journal_others_can_write (%s)", err);
	free(out);
	unlink(journal);

	ok(mkfifo(journal, 0600) == 0, "(journal is a FIFO)");
	alarm(10); /* blocking in open() would hang here: let SIGALRM fail the test */
	out = restore_out(&rc);
	alarm(0);
	ok(rc == 2 && one_line() && strstr(err, "not a journal: a FIFO"),
	   "restore_of_a_fifo_fails_at_once (%s)", err);
	free(out);
	alarm(10);
	rc = set_journal(&ts);
	alarm(0);
	ok(rc == -EPERM && strstr(err, "a FIFO") && !strstr(err, "restore"),
	   "a_run_next_to_a_fifo_journal_stops_without_suggesting_restore");
	unlink(journal);

	ok(mkdir(journal, 0700) == 0, "(journal is a directory)");
	out = restore_out(&rc);
	ok(rc == 2 && strstr(err, "not a journal: a directory") && !strstr(err, "JSON"),
	   "restore_of_a_directory_says_so (%s)", err);
	free(out);
	ok(set_journal(&ts) == -EPERM && strstr(err, "a directory") && !strstr(err, "restore"),
	   "a_run_next_to_a_directory_journal_stops_without_suggesting_restore (%s)", err);
	rmdir(journal);

	{
		char target[PATH_MAX];

		snprintf(target, sizeof(target), "%s/real.journal", dir);
		write_file(target, "{\"schema\":\"rtsoak-journal/1\",\"tweaks\":[]}");
		ok(symlink(target, journal) == 0, "(journal is a symlink)");
		out = restore_out(&rc);
		ok(rc == 3 && strstr(err, "symbolic link") && exists(target),
		   "restore_does_not_follow_a_symlink (%s)", err);
		free(out);
		unlink(journal);
		unlink(target);
	}
	tweak_set_free(&ts);
}

static void test_deny(void)
{
	char cp[4096], *out;
	int rc;

	ok(add_fails("/proc/sys/kernel/core_pattern=|/tmp/x", "core_pattern: refused: names a "
							      "program"),
	   "add_refuses_core_pattern");
	ok((!exists("/proc/sys/kernel/modprobe") ||
	    add_fails("/proc/sys/kernel/modprobe=/tmp/x", "refused")) &&
	       (!exists("/proc/sys/kernel/poweroff_cmd") ||
		add_fails("/proc/sys/kernel/poweroff_cmd=/tmp/x", "refused")),
	   "add_refuses_modprobe_and_poweroff_cmd");
	ok(!exists("/proc/sys/fs/binfmt_misc/status") ||
	       add_fails("/proc/sys/fs/binfmt_misc/status=1", "refused"),
	   "add_refuses_binfmt_misc");
	ok(add_fails("/proc/sys/kernel/*_pattern=x", "refused"), "add_refuses_it_through_a_glob");
	/* SMT control: off and on are a latency A/B, forceoff cannot be set
	 * back before a reboot.  Nothing is written: tweak_add only checks. */
	{
		const char *smt = "/sys/devices/system/cpu/smt/control";
		struct tweak_set ts = { 0 };
		bool off = exists(smt) &&
			   tweak_add(&ts, "/sys/devices/system/cpu/smt/control=off", err,
				     sizeof(err)) == 0 &&
			   ts.n == 1;
		tweak_set_free(&ts);
		ok(!exists(smt) ||
		       (off &&
			add_fails("/sys/devices/system/cpu/smt/control=forceoff",
				  "control: refused: forceoff is one-way") &&
			add_fails("/sys/devices/system/cpu/smt/con*=forceoff", "one-way")),
		   "add_refuses_smt_forceoff_not_off (%s)", err);
	}
	/* One-way switches: no value of theirs could be put back (issue 28);
	 * the value asked for is the one they have, and never written. */
	{
		static const char *const oneway[] = {
			"/proc/sys/kernel/tainted",
			"/proc/sys/kernel/unprivileged_bpf_disabled",
			"/proc/sys/kernel/modules_disabled",
			"/proc/sys/kernel/kexec_load_disabled",
			"/proc/sys/kernel/kexec_load_limit_panic",
			"/proc/sys/kernel/kexec_load_limit_reboot",
			"/proc/sys/kernel/yama/ptrace_scope",
			"/sys/module/apparmor/parameters/lock_policy",
		};
		for (size_t i = 0; i < sizeof(oneway) / sizeof(oneway[0]); i++) {
			char spec[300], cur[64] = "0";
			/* Where this kernel has no such file, the deny list itself
			 * (what tweak_add consults once the path resolves). */
			if (!exists(oneway[i])) {
				const char *why = tweak_denied(oneway[i]);
				ok(why && strstr(why, "one-way"),
				   "denied_the_one_way_switch_%s (absent here: the list says '%s')",
				   strrchr(oneway[i], '/') + 1, why ? why : "nothing");
				continue;
			}
			get(oneway[i], cur, sizeof(cur));
			snprintf(spec, sizeof(spec), "%s=%s", oneway[i], cur);
			ok(add_fails(spec, "refused: ") && strstr(err, "one-way") &&
			       strstr(err, strrchr(oneway[i], '/') + 1),
			   "add_refuses_the_one_way_switch_%s (%s)", strrchr(oneway[i], '/') + 1,
			   err);
		}
	}
	{
		char link[300], spec[400];

		snprintf(link, sizeof(link), "%s/cp-link", dir);
		snprintf(spec, sizeof(spec), "%s=x", link);
		ok(symlink("/proc/sys/kernel/core_pattern", link) == 0 &&
		       add_fails(spec, "(-> /proc/sys/kernel/core_pattern): refused"),
		   "add_refuses_it_through_a_symlink");
		unlink(link);
	}

	get("/proc/sys/kernel/core_pattern", cp, sizeof(cp));
	write_file(journal,
		   "{\"schema\":\"rtsoak-journal/1\",\"pid\":1,\"tweaks\":["
		   "{\"path\":\"" STAT_INTERVAL "\",\"original\":\"77\"},"
		   "{\"path\":\"/proc/sys/kernel/core_pattern\",\"original\":\"|/tmp/evil\"}]}");
	chmod(journal, 0600);
	out = restore_out(&rc);
	ok(rc == 3 && one_line() && strstr(err, "core_pattern") &&
	       strstr(err, "refusing the whole journal") && out && !*out &&
	       holds("/proc/sys/kernel/core_pattern", cp) && holds(STAT_INTERVAL, before[0]) &&
	       exists(journal),
	   "restore_refuses_a_journal_naming_core_pattern_and_writes_nothing (%s)", err);
	free(out);
	unlink(journal);
}

/* Values and paths from a journal are printed escaped: a journal cannot
 * split a line or drive the terminal. */
static void test_restore_escapes(void)
{
	char text[1024], want[1024], *out;
	int rc;

	/* "V\n" holds V (whitespace-separated tokens): the "already" line
	 * quotes the journal's original as it is. */
	snprintf(text, sizeof(text),
		 "{\"schema\":\"rtsoak-journal/1\",\"pid\":1,\"tweaks\":["
		 "{\"path\":\"%s\",\"original\":\"%s\\n\"},"
		 "{\"path\":\"%s/x\\u001b[2J\",\"original\":\"1\"}]}",
		 STAT_INTERVAL, before[0], dir);
	write_file(journal, text);
	out = restore_out(&rc);
	snprintf(want, sizeof(want),
		 "%s/x\\x1b[2J: cannot restore: No such file or directory\n"
		 "%s already '%s\\n'\n",
		 dir, STAT_INTERVAL, before[0]);
	ok(rc == 3 && out && !strcmp(out, want) && untouched(),
	   "restore_escapes_paths_and_values_from_the_journal");
	if (out && strcmp(out, want))
		diag("got: %s", out);
	free(out);
	unlink(journal);
}

static void test_glob_limits(void)
{
	/* Fast: not an absolute time but at most 20 times a plain walk of as
	 * many entries of /sys, measured here (as test_sysinfo's bound on
	 * --record's globs); the unbounded glob takes hundreds of times it. */
	double ref = walk_ref_s("/sys", TWEAK_GLOB_ENTRIES);
	uint64_t t0 = util_now_ns(CLOCK_MONOTONIC), dt;
	bool r = add_fails("/sys/*/*/*/*/*/*/*/*=0", "(the limit)");

	dt = util_now_ns(CLOCK_MONOTONIC) - t0;
	ok(r && ref > 0 && dt / 1e9 <= 20 * ref,
	   "a_glob_bomb_fails_fast (%.0f ms, a walk of as many entries %.0f ms: %s)", dt / 1e6,
	   ref * 1e3, err);
	ok(add_fails("/sys/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*=0", "(the limit)"),
	   "a_deeper_glob_bomb_fails_too");
}

static void test_journal_mode(void)
{
	struct tweak_set ts = { 0 };
	struct stat st;
	mode_t old = umask(0);

	bool good = set_journal(&ts) == 0 && add(&ts, STAT_INTERVAL, plus1(STAT_INTERVAL)) == 0 &&
		    tweak_apply(&ts, err, sizeof(err)) == 0 && stat(journal, &st) == 0;

	ok(good && (st.st_mode & 07777) == 0600, "the_journal_is_0600_whatever_the_umask (%04o)",
	   good ? (unsigned)(st.st_mode & 07777) : 0);
	umask(old);
	ok(tweak_restore(&ts, err, sizeof(err)) == 0 && untouched() && !exists(journal),
	   "(restored)");
	tweak_set_free(&ts);
}

/* How many files in the run directory start with `prefix`. */
static int run_files(const char *prefix)
{
	glob_t gl;
	char pat[128];
	int n;

	snprintf(pat, sizeof(pat), LOCK_DIR_ROOT "/%s*", prefix);
	if (glob(pat, 0, NULL, &gl))
		return 0;
	n = (int)gl.gl_pathc;
	globfree(&gl);
	return n;
}

/* A child that takes the lock of `path` (tweak_lock of a set with that
 * file), says so on the pipe and waits until its stdin-pipe closes. */
static pid_t child_locking(const char *path, int *release)
{
	int ready[2], hold[2];
	char c;
	pid_t pid;

	if (pipe(ready) < 0 || pipe(hold) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct tweak_set ts = { 0 };
		char e[1024];

		prctl(PR_SET_NAME, "rtsoak");
		close(ready[0]);
		close(hold[1]);
		if (add(&ts, path, "1") == 0 &&
		    tweak_set_journal(&ts, "/tmp/child.json", true, e, sizeof(e)) == 0 &&
		    tweak_lock(&ts, e, sizeof(e)) == 0)
			(void)!write(ready[1], "x", 1);
		(void)!read(hold[0], &c, 1);
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	if (read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		close(hold[1]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(ready[0]);
	*release = hold[1];
	return pid;
}

static void test_locks(void)
{
	struct tweak_set ts = { 0 }, other = { 0 };
	char name[NAME_MAX + 1], want[512], longp[PATH_MAX], rep2[300], *out;
	struct lock l = { 0 };
	int release = -1, rc;
	pid_t child;

	ok(lock_name(LOCK_TWEAK, "/proc/sys/a%b/c", name, sizeof(name)) == 0 &&
	       !strcmp(name, "tweak-%2Fproc%2Fsys%2Fa%25b%2Fc"),
	   "lock_names_escape_slash_and_percent (%s)", name);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	ok(lock_name(LOCK_OUTPUT, longp, name, sizeof(name)) == 0 && strlen(name) <= NAME_MAX &&
	       !strchr(name, '/') && strstr(name, "%h"),
	   "a_long_path_gets_a_hashed_name_that_fits");

	/* Two runs tweaking one file: the second is refused, naming the first. */
	child = child_locking(STAT_INTERVAL, &release);
	ok(child > 0, "(a child holds the lock of " STAT_INTERVAL ")");
	snprintf(want, sizeof(want),
		 STAT_INTERVAL " is being tweaked by rtsoak pid %d (report /tmp/child.json)",
		 (int)child);
	ok(add(&ts, STAT_INTERVAL, plus1(STAT_INTERVAL)) == 0 && set_journal(&ts) == 0 &&
	       tweak_lock(&ts, err, sizeof(err)) == -EBUSY && !strcmp(err, want) && !ts.locks,
	   "a_second_run_tweaking_the_same_file_is_refused_naming_the_first (%s)", err);
	if (release >= 0)
		close(release);
	if (child > 0)
		waitpid(child, NULL, 0);
	ok(tweak_lock(&ts, err, sizeof(err)) == 0 && run_files("tweak-") == 1,
	   "the_lock_is_free_once_its_holder_is_gone");

	/* The live-journal record: there while the journal is, and a killed
	 * run's record stops runs with another report. */
	ok(tweak_apply(&ts, err, sizeof(err)) == 0 && run_files("journal-") == 1,
	   "apply_records_the_live_journal");
	tweak_set_free(&ts); /* SIGKILL */
	ok(run_files("tweak-") == 0 && run_files("journal-") == 1,
	   "a_dead_run_leaves_its_journal_record_but_no_tweak_lock");
	snprintf(rep2, sizeof(rep2), "%s/other.json", dir);
	snprintf(want, sizeof(want),
		 "the machine is still tweaked by a killed run: rtsoak restore %s first", journal);
	ok(tweak_set_journal(&other, rep2, false, err, sizeof(err)) == -EEXIST &&
	       !strcmp(err, want),
	   "a_run_with_another_report_is_refused_while_a_killed_run_left_the_machine_tweaked");
	ok(tweak_set_journal(&other, rep2, true, err, sizeof(err)) == 0 &&
	       strstr(err, "--force: starting anyway"),
	   "force_starts_anyway_with_a_warning");
	out = restore_out(&rc);
	ok(rc == 0 && untouched() && run_files("journal-") == 0 && !exists(journal),
	   "restore_removes_the_journal_record");
	free(out);
	ok(tweak_set_journal(&other, rep2, false, err, sizeof(err)) == 0, "then_runs_start_again");
	tweak_set_free(&other);

	/* A record whose journal is gone (removed by hand) is forgotten. */
	ok(set_journal(&ts) == 0 && add(&ts, STAT_INTERVAL, plus1(STAT_INTERVAL)) == 0 &&
	       tweak_apply(&ts, err, sizeof(err)) == 0 && tweak_unapply(&ts, err, sizeof(err)) == 0,
	   "(applied and put back, journal kept)");
	tweak_set_free(&ts);
	unlink(journal);
	ok(tweak_set_journal(&other, rep2, false, err, sizeof(err)) == 0 &&
	       run_files("journal-") == 0 && untouched(),
	   "a_record_without_its_journal_is_removed");
	tweak_set_free(&other);

	/* The run directory must be root's alone. */
	ok(chmod(LOCK_DIR_ROOT, 0777) == 0 &&
	       lock_take(&l, LOCK_OUTPUT, "/tmp/x.json", "/tmp/x.json", err, sizeof(err)) ==
		   -EPERM &&
	       strstr(err, "writable by group or others") && !l.held,
	   "an_open_run_directory_is_refused (%s)", err);
	chmod(LOCK_DIR_ROOT, 0700);
	ok(rename(LOCK_DIR_ROOT, "/run/rtsoak.real") == 0 && symlink("/tmp", LOCK_DIR_ROOT) == 0 &&
	       lock_take(&l, LOCK_OUTPUT, "/tmp/x.json", "/tmp/x.json", err, sizeof(err)) < 0 &&
	       strstr(err, "symbolic link") && !l.held,
	   "a_symlinked_run_directory_is_refused (%s)", err);
	unlink(LOCK_DIR_ROOT);
	rename("/run/rtsoak.real", LOCK_DIR_ROOT);
	ok(lock_take(&l, LOCK_OUTPUT, "/tmp/x.json", "/tmp/x.json", err, sizeof(err)) == 0 &&
	       run_files("output-") == 1,
	   "an_output_lock_is_a_file_in_the_run_directory");
	lock_release(&l);
	ok(run_files("output-") == 0 && !l.held, "release_removes_it");
}

int main(void)
{
	int rc;

	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root to write /proc/sys and /sys\n");
		return 0;
	}
	/* The same lock as tests/integration/lib.sh's tunables_lock: other
	 * tests write some of these tunables too. */
	int lfd = open("/tmp/rtsoak-test-tunables.lock",
		       O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lfd < 0 || flock(lfd, LOCK_EX) < 0) {
		printf("Bail out! cannot take /tmp/rtsoak-test-tunables.lock: %s\n",
		       strerror(errno));
		return 1;
	}
	if ((rc = private_run()) < 0) {
		printf("1..0 # SKIP no private /run (unshare, mount): %s\n", strerror(-rc));
		return 0;
	}
	for (size_t i = 0; i < 3; i++) {
		if (!exists(tunables[i])) {
			printf("1..0 # SKIP %s is missing\n", tunables[i]);
			return 0;
		}
	}
	for (size_t i = 0; i < NTUNABLES; i++)
		get(tunables[i], before[i], sizeof(before[i]));
	if (!mkdtemp(dir)) {
		printf("1..0 # SKIP mkdtemp: %s\n", strerror(errno));
		return 0;
	}
	snprintf(report, sizeof(report), "%s/r.json", dir);
	snprintf(journal, sizeof(journal), "%s.journal", report);

	tap_plan(115);
	test_add();
	test_value_equal();
	test_journal_path();
	test_round_trip();
	test_journal_first();
	test_rejected_value();
	test_readback_mismatch();
	test_crash();
	test_restore_idempotent();
	test_bad_journals();
	test_ab_cycle();
	test_bracketed();
	test_slab();
	test_parse();
	test_untrusted_journals();
	test_deny();
	test_restore_escapes();
	test_glob_limits();
	test_journal_mode();
	test_locks();
	ok(untouched(), "the_machine_is_left_as_found");

	/* A failed assertion must not leave the machine tweaked either. */
	for (size_t i = 0; i < NTUNABLES; i++) {
		if (*before[i] && !holds(tunables[i], before[i])) {
			FILE *f = fopen(tunables[i], "w");

			diag("putting %s back to %s", tunables[i], before[i]);
			if (f) {
				/* "always [madvise] never" takes "madvise" */
				const char *l = strchr(before[i], '['),
					   *r = l ? strchr(l, ']') : NULL;

				if (r)
					fprintf(f, "%.*s", (int)(r - l - 1), l + 1);
				else
					fputs(before[i], f);
				fclose(f);
			}
		}
	}
	{
		char cmd[PATH_MAX + 16];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		(void)!system(cmd);
	}
	return tap_done();
}
