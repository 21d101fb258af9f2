// SPDX-License-Identifier: GPL-2.0-or-later
/* floor_loader: loads bench/bpf/floor.bpf.c's programs (the skeleton),
 * attaches those named in PROGS ("sw,wk,lte,ltx,ci,hs"), drains the ring
 * every 100 ms until SIGTERM, then prints how many records it read.
 * Usage: floor_loader MODE PROGS */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int count(void *ctx, void *data, size_t n)
{
	(void)data;
	(void)n;
	(*(long *)ctx)++;
	return 0;
}

int main(int argc, char **argv)
{
	struct floor_bpf *s;
	struct bpf_program *p;
	struct ring_buffer *rb;
	char want[128];
	long n = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: floor_loader MODE PROGS\n");
		return 2;
	}
	s = floor_bpf__open();
	if (!s)
		return 1;
	s->rodata->mode = atoi(argv[1]);
	snprintf(want, sizeof(want), ",%s,", argv[2]);
	bpf_object__for_each_program(p, s->obj)
	{
		char me[32];

		snprintf(me, sizeof(me), ",%s,", bpf_program__name(p));
		bpf_program__set_autoload(p, strstr(want, me) != NULL);
	}
	if (floor_bpf__load(s) || floor_bpf__attach(s)) {
		fprintf(stderr, "floor_loader: cannot load or attach\n");
		return 1;
	}
	rb = ring_buffer__new(bpf_map__fd(s->maps.rb), count, &n, NULL);
	if (!rb)
		return 1;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	printf("attached\n");
	fflush(stdout);
	while (!stop) {
		ring_buffer__consume(rb);
		usleep(100000);
	}
	ring_buffer__consume(rb);
	fprintf(stderr, "records %ld\n", n);
	ring_buffer__free(rb);
	floor_bpf__destroy(s);
	return 0;
}
