// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit test of what src/trace/ says about itself without touching tracefs:
 * built without libtracefs (configure --with-tracefs=no) every entry point
 * returns -ENOTSUP with TRACE_NOT_BUILT as its one line; built with it,
 * the arguments are checked before anything is mounted or created. */
#include <config.h>

#include <errno.h>
#include <string.h>

#include "tap.h"
#include "trace_instance.h"
#include "trace_recorder.h"

int main(void)
{
	struct trace_instance_config cfg = { 0 };
	struct trace_instance ti;
	struct trace_recorder *rec;
	char err[256] = "";
	int r;

	tap_plan(3);
#ifdef HAVE_TRACEFS
	r = trace_instance_create(&ti, &cfg, err, sizeof(err));
	ok(r == -EINVAL && strstr(err, "no CPU to trace") && !ti.inst,
	   "no CPU: -EINVAL, '%s', nothing created", err);
	err[0] = '\0';
	rec = trace_recorder_create(NULL, NULL, err, sizeof(err));
	ok(!rec && strstr(err, "no instance"), "a recorder without an instance: NULL, '%s'", err);
	ok(trace_instance_destroy(&ti, err, sizeof(err)) == 0,
	   "destroying what was never created is a no-op");
#else
	cpuset_set(&cfg.cpus, 0);
	r = trace_instance_create(&ti, &cfg, err, sizeof(err));
	ok(r == -ENOTSUP && strcmp(err, TRACE_NOT_BUILT) == 0, "not built: -ENOTSUP, '%s'", err);
	err[0] = '\0';
	rec = trace_recorder_create(&ti, NULL, err, sizeof(err));
	ok(!rec && errno == ENOTSUP && strcmp(err, TRACE_NOT_BUILT) == 0,
	   "the recorder too: NULL, ENOTSUP, '%s'", err);
	ok(trace_recorder_poll(NULL, err, sizeof(err)) == -ENOTSUP &&
	       trace_recorder_window(NULL, 0, 0, 1, NULL, 0, NULL) == -ENOTSUP &&
	       trace_recorder_last(NULL, 0, 1, TEV_SWITCH, NULL) == -ENOTSUP,
	   "poll, window and last event: -ENOTSUP");
#endif
	return tap_done();
}
