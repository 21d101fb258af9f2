/* Unit tests for --record glob checks and the snapshot's shape (the full
 * schema check of a snapshot is tests/integration/sysinfo.sh). */
#include <config.h>

#include <errno.h>
#include <string.h>

#include "sysinfo.h"
#include "tap.h"

static int check(const char *glob, int want_ok, const char *want_err)
{
	char err[256] = "";
	int rc = sysinfo_record_check(glob, err, sizeof(err));

	if (want_ok)
		return rc == 0;
	return rc == -EINVAL && !strchr(err, '\n') && (!want_err || !strcmp(err, want_err));
}

int main(void)
{
	tap_plan(12);
	ok(check("/proc/sys/kernel/sched_rt_*", 1, NULL), "record_accepts_proc_glob");
	ok(check("/sys/kernel/mm/transparent_hugepage/enabled", 1, NULL),
	   "record_accepts_sys_file");
	ok(check("/sys/nope*", 0, "'/sys/nope*' matches no file"), "record_rejects_no_match");
	ok(check("/etc/passwd", 0, "'/etc/passwd' is outside /sys and /proc"),
	   "record_rejects_outside_sys_proc");
	ok(check("sys/kernel/*", 0, NULL), "record_rejects_relative_path");
	ok(check("/sysfoo/x", 0, NULL), "record_rejects_sys_prefix_lookalike");
	ok(check("/sys/../etc/passwd", 0, NULL), "record_rejects_dotdot");
	ok(check("/proc/self/root/etc/passwd", 0, NULL), "record_rejects_escape_through_proc_root");
	ok(check("/sys/kernel", 0, NULL), "record_rejects_directory");

	json_t *sys = sysinfo_snapshot();
	ok(sys && json_is_object(json_object_get(sys, "kernel")) &&
	       json_is_string(json_object_get(sys, "cmdline")),
	   "snapshot_has_kernel_and_cmdline");
	char *globs[] = { "/proc/sys/kernel/ostype" };
	ok(sys && sysinfo_record(sys, globs, 1) == 0 &&
	       !strcmp(json_string_value(json_object_get(json_object_get(sys, "recorded"),
							 "/proc/sys/kernel/ostype")),
		       "Linux"),
	   "record_stores_contents_without_newline");
	ok(sys && json_object_get(sys, "sched_rt") && json_object_get(sys, "slub_cpu_partial"),
	   "snapshot_has_rt_throttling_and_slub_keys");
	json_decref(sys);
	return tap_done();
}
