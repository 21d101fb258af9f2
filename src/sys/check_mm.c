// SPDX-License-Identifier: GPL-2.0-or-later
/* check_mm: memory-management checks: transparent hugepages, KSM, SLUB's per-CPU partial
 * slabs (check.h). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define THP "/sys/kernel/mm/transparent_hugepage/"

static bool active(const char *s, char *buf, size_t len)
{
	const char *b = strchr(s, '['), *e = b ? strchr(b, ']') : NULL;

	if (!e)
		return false;
	snprintf(buf, len, "%.*s", (int)(e - b - 1), b + 1);
	return true;
}

void check_mm_thp(struct check_ctx *c, struct check_result *r)
{
	char en[128], df[128], a[32], b[32];
	int rc;

	check_source(r, THP "enabled, defrag");
	check_expect(r, "enabled madvise or never; defrag not always");
	if ((rc = check_read(c, THP "enabled", en, sizeof(en))) < 0)
		return check_unreadable(r, THP "enabled", rc);
	if ((rc = check_read(c, THP "defrag", df, sizeof(df))) < 0)
		return check_unreadable(r, THP "defrag", rc);
	if (!active(en, a, sizeof(a)) || !active(df, b, sizeof(b)))
		return check_say(r, CHECK_UNKNOWN, "cannot parse '%s' / '%s'", en, df);
	check_say(r, !strcmp(a, "always") || !strcmp(b, "always") ? CHECK_WARN : CHECK_PASS,
		  "enabled %s, defrag %s", a, b);
}

void check_mm_ksm(struct check_ctx *c, struct check_result *r)
{
	const char *path = "/sys/kernel/mm/ksm/run";
	long long v;
	char cfg[8];
	int rc = check_read_ll(c, path, &v);

	check_source(r, "%s", path);
	check_expect(r, "0");
	/* No KSM file is a pass only where the config says the kernel has no KSM. */
	if (rc == -ENOENT && check_config(c, "KSM", cfg, sizeof(cfg)) == -ENOENT) {
		check_source(r, "%s (absent), %s", path, c->config_src);
		return check_say(r, CHECK_PASS, "kernel built without KSM");
	}
	if (rc)
		return check_unreadable(r, path, rc);
	check_say(r, v == 1 ? CHECK_WARN : CHECK_PASS, "%lld%s", v,
		  v == 1 ? " (ksmd merging)" : "");
}

void check_mm_slub(struct check_ctx *c, struct check_result *r)
{
	const char *dir = "/sys/kernel/slab";
	long long v, max = 0;
	int caches = 0, on = 0, files = 0;
	char path[512], cfg[8];
	DIR *d;
	struct dirent *de;

	check_source(r, "%s/*/cpu_partial", dir);
	check_expect(r, "(depends on the load: listed only)");
	if (c->config && check_config(c, "SLUB_CPU_PARTIAL", cfg, sizeof(cfg)) == -ENOENT) {
		check_source(r, "%s", c->config_src);
		return check_say(r, CHECK_PASS, "kernel built without SLUB_CPU_PARTIAL");
	}
	if (!(d = check_opendir(c, dir)))
		return check_unreadable(r, dir, errno);
	while ((de = readdir(d))) {
		/* Merged caches appear once as a directory and again as symlinks to it. */
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		caches++;
		snprintf(path, sizeof(path), "%s/%s/cpu_partial", dir, de->d_name);
		if (check_read_ll(c, path, &v))
			continue;
		files++;
		on += v > 0;
		max = v > max ? v : max;
	}
	closedir(d);
	if (!caches)
		return check_say(r, CHECK_UNKNOWN, "no cache in %s", dir);
	if (!files)
		return check_say(r, CHECK_INFO, "no cpu_partial in %d caches (gone on this kernel)",
				 caches);
	if (!on)
		return check_say(r, CHECK_PASS, "0 in all %d caches", files);
	check_say(r, CHECK_INFO, "non-zero in %d of %d caches (up to %lld)", on, files, max);
}
