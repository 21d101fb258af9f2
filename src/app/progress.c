// SPDX-License-Identifier: GPL-2.0-or-later
/* progress: the live status line and the periodic log line. */
#include <config.h>

#include <string.h>
#include <unistd.h>

#include "progress.h"
#include "util.h"

#define TTY_EVERY_NS (1 * NSEC_PER_SEC)
#define LOG_EVERY_NS (600 * NSEC_PER_SEC)

void progress_init(struct progress *p, bool quiet, uint64_t t0_ns, uint64_t duration_ns)
{
	memset(p, 0, sizeof(*p));
	p->out = quiet ? NULL : stderr;
	p->tty = !quiet && isatty(STDERR_FILENO);
	p->every_ns = p->tty ? TTY_EVERY_NS : LOG_EVERY_NS;
	p->t0_ns = t0_ns;
	p->next_ns = t0_ns + p->every_ns;
	p->duration_ns = duration_ns;
}

static void hms(uint64_t ns, char *buf, size_t len)
{
	uint64_t s = ns / NSEC_PER_SEC;

	snprintf(buf, len, "%llu:%02llu:%02llu", (unsigned long long)(s / 3600),
		 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
}

void progress_tick(struct progress *p, uint64_t now_ns, const struct probe_thread *threads,
		   unsigned n, uint64_t checkpoint_ns)
{
	char line[512], elapsed[32], left[48] = "";
	uint64_t samples = 0, missed = 0;
	size_t off;

	if (!p->out || now_ns < p->next_ns)
		return;
	p->next_ns = now_ns + p->every_ns;
	hms(now_ns - p->t0_ns, elapsed, sizeof(elapsed));
	if (p->duration_ns && now_ns - p->t0_ns < p->duration_ns) {
		char rest[32];
		hms(p->duration_ns - (now_ns - p->t0_ns), rest, sizeof(rest));
		snprintf(left, sizeof(left), ", %s left", rest);
	}
	/* Worst so far per probe result, over CPUs and phases. */
	char worst[320] = "";
	size_t woff = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct probe_thread *t = &threads[i];
		for (unsigned k = 0; k < t->nrec; k++)
			for (unsigned ph = 0; ph < t->nphases; ph++) {
				samples += __atomic_load_n(&t->rec[k][ph]->count, __ATOMIC_RELAXED);
				missed += __atomic_load_n(&t->rec[k][ph]->missed, __ATOMIC_RELAXED);
			}
	}
	for (unsigned i = 0; i < n; i++) {
		const struct probe_thread *t = &threads[i];
		/* First thread of each probe: report that probe's first result
		 * (timer, net) over all its threads. */
		if (i && threads[i - 1].pc == t->pc)
			continue;
		uint64_t max = 0;
		int cpu = -1;
		for (unsigned j = i; j < n && threads[j].pc == t->pc; j++)
			for (unsigned ph = 0; ph < threads[j].nphases; ph++) {
				const struct recorder *r = threads[j].rec[0][ph];
				uint64_t m = __atomic_load_n(&r->max, __ATOMIC_RELAXED);
				if (__atomic_load_n(&r->count, __ATOMIC_RELAXED) && m >= max) {
					max = m;
					cpu = threads[j].cpu;
				}
			}
		if (cpu >= 0 && woff < sizeof(worst))
			woff += (size_t)snprintf(worst + woff, sizeof(worst) - woff,
						 ", %s max %.1f us (cpu %d)", t->pc->results[0],
						 (double)max / 1000.0, cpu);
	}
	off = (size_t)snprintf(line, sizeof(line), "rtsoak: %s%s, %llu samples, %llu missed%s",
			       elapsed, left, (unsigned long long)samples,
			       (unsigned long long)missed, worst);
	if (checkpoint_ns && off < sizeof(line))
		snprintf(line + off, sizeof(line) - off, ", checkpoint %llus ago",
			 (unsigned long long)((now_ns - checkpoint_ns) / NSEC_PER_SEC));
	if (p->tty) {
		/* \r and clear-to-end: one line, redrawn in place. */
		fprintf(p->out, "\r%s\033[K", line);
		p->drawn = true;
	} else {
		fprintf(p->out, "%s\n", line);
	}
	fflush(p->out);
}

void progress_done(struct progress *p)
{
	if (p->drawn) {
		fputs("\r\033[K", p->out);
		fflush(p->out);
		p->drawn = false;
	}
}
