/* sysinfo_standalone: throwaway driver for src/sysinfo.c while the rest of rtsoak is being
 * written.  Prints the snapshot (plus anything recorded from the globs given as arguments) as
 * JSON on stdout, and checks sysinfo_record_check() on known-good and known-bad globs.
 *
 *   gcc -std=gnu11 -D_GNU_SOURCE -Isrc src/sysinfo.c tests/unit/sysinfo_standalone.c \
 *       $(pkg-config --cflags --libs jansson) -o /tmp/si && /tmp/si [GLOB...] */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sysinfo.h"

static int failures;

static void expect(const char *glob, int want_ok, const char *want_err)
{
	char err[256] = "";
	int rc = sysinfo_record_check(glob, err, sizeof(err));

	if ((rc == 0) != want_ok || (want_err && strcmp(err, want_err)) || strchr(err, '\n')) {
		fprintf(stderr, "FAIL record_check(%s) = %d '%s'\n", glob, rc, err);
		failures++;
	} else {
		fprintf(stderr, "ok   record_check(%s) = %d%s%s\n", glob, rc, *err ? " " : "", err);
	}
}

int main(int argc, char **argv)
{
	expect("/proc/sys/kernel/sched_rt_*", 1, NULL);
	expect("/sys/kernel/mm/transparent_hugepage/enabled", 1, NULL);
	expect("/sys/nope*", 0, "'/sys/nope*' matches no file");
	expect("/etc/passwd", 0, "'/etc/passwd' is outside /sys and /proc");
	expect("sys/kernel/*", 0, "'sys/kernel/*' is outside /sys and /proc");
	expect("/sysfoo/x", 0, "'/sysfoo/x' is outside /sys and /proc");
	expect("/sys/../etc/passwd", 0, "'/sys/../etc/passwd' contains '..'");
	expect("/proc/self/root/etc/passwd", 0, NULL);
	expect("/sys/.?/etc/passwd", 0, NULL);
	expect("/sys/kernel", 0, "'/sys/kernel' matches no file");

	json_t *sys = sysinfo_snapshot();
	if (!sys) {
		fprintf(stderr, "FAIL sysinfo_snapshot() returned NULL\n");
		return 1;
	}
	int rc = sysinfo_record(sys, argv + 1, (size_t)(argc - 1));
	if (rc) {
		fprintf(stderr, "FAIL sysinfo_record: %s\n", strerror(-rc));
		failures++;
	}
	if (json_dumpf(sys, stdout, JSON_INDENT(2)) || putchar('\n') == EOF)
		failures++;
	json_decref(sys);
	return failures != 0;
}
