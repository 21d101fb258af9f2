/* SPDX-License-Identifier: GPL-2.0-or-later */
/* walk_ref.h: the machine's speed at walking a tree now, as the reference
 * that a unit test's bound on a directory walk is a ratio of (a loaded
 * machine or a sanitizer build stretches both alike; an absolute time
 * would fail there, or pass an unbounded walk on a fast machine). */
#ifndef RTSOAK_WALK_REF_H
#define RTSOAK_WALK_REF_H

#include <ftw.h>
#include <sys/stat.h>
#include <time.h>

static long walk_ref_left;

static int walk_ref_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path, (void)st, (void)flag, (void)f;
	return --walk_ref_left > 0 ? 0 : 1;
}

/* The best of 3 wall times (s) of visiting n entries of dir with nftw (no
 * symlink followed, no stat of each entry beyond nftw's own); 0 when the
 * walk failed. */
static inline double walk_ref_s(const char *dir, long n)
{
	double best = 0;

	for (int i = 0; i < 3; i++) {
		struct timespec t0, t1;

		walk_ref_left = n;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (nftw(dir, walk_ref_one, 32, FTW_PHYS) < 0)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double s =
		    (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (i == 0 || s < best)
			best = s;
	}
	return best;
}

#endif
