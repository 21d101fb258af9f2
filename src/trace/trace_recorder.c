// SPDX-License-Identifier: GPL-2.0-or-later
/* trace_recorder: per-CPU windows of kernel events (trace_recorder.h).
 *
 * Reading: each traced CPU's trace_pipe_raw, opened non-blocking
 * (tracefs_cpu_open), one sub-buffer page per read; kbuffer walks the page
 * and the event's common_type picks a converter set up at create with the
 * field offsets of that event's format.  Raw pages rather than
 * tracefs_iterate_raw_events: that one re-reads the formats, allocates per
 * call and blocks on an empty CPU; this costs one failed read() per idle
 * CPU and no allocation per event, and a page's "missed events" header is
 * exactly where a loss is.
 *
 * Windows: one ring of struct trace_ev per CPU, allocated at create, in
 * per-CPU time order (the kernel's ring is), trimmed to window_ms behind
 * the newest event and to max_events. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_TRACEFS
#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>
#endif

#include "trace_recorder.h"
#include "util.h"

#ifdef HAVE_TRACEFS

enum conv {
	C_NONE,
	C_SWITCH,
	C_WAKING,
	C_WAKEUP,
	C_IRQ_ENTRY,
	C_IRQ_EXIT,
	C_SOFTIRQ_ENTRY,
	C_SOFTIRQ_EXIT,
	C_VEC_ENTRY,
	C_VEC_EXIT,
	C_HRT_ENTRY,
	C_HRT_EXIT,
	C_IDLE,
	C_NMI,
	C_STACK,
	C_WORK_START,
	C_WORK_END,
	C_TIMER_ENTRY,
	C_TIMER_EXIT,
};

#define NFIELDS 7

/* The fields each converter reads, in order. */
static const char *const conv_fields[][NFIELDS] = {
	[C_SWITCH] = { "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid",
		       "next_prio" },
	[C_WAKING] = { "comm", "pid", "prio", "target_cpu" },
	[C_WAKEUP] = { "comm", "pid", "prio", "target_cpu" },
	[C_IRQ_ENTRY] = { "irq", "name" },
	[C_IRQ_EXIT] = { "irq" },
	[C_SOFTIRQ_ENTRY] = { "vec" },
	[C_SOFTIRQ_EXIT] = { "vec" },
	[C_VEC_ENTRY] = { "vector" },
	[C_VEC_EXIT] = { "vector" },
	[C_HRT_ENTRY] = { "hrtimer", "function" },
	[C_HRT_EXIT] = { "hrtimer" },
	[C_IDLE] = { "state" },
	[C_NMI] = { "handler", "delta_ns" },
	[C_STACK] = { "size", "caller" },
	[C_WORK_START] = { "work", "function" },
	[C_WORK_END] = { "work" },
	[C_TIMER_ENTRY] = { "timer", "function" },
	[C_TIMER_EXIT] = { "timer" },
};

struct evdef {
	enum conv conv;
	char vname[TEV_NAME_LEN]; /* irq_vectors: "local_timer" ... */
	const struct tep_format_field *f[NFIELDS];
};

struct cpu_ring {
	int cpu;
	int fd; /* trace_pipe_raw, O_CLOEXEC */
	struct tracefs_cpu *tcpu;
	struct trace_ev *ev;
	unsigned cap, head, n; /* ev[head] is the oldest of n */
	uint64_t base_seq;     /* sequence number of ev[head] */
	uint64_t hrt_open;     /* seq + 1 of an hrtimer_wakeup entry awaiting its waking, or 0 */
	uint64_t events, lost, lost_unknown, stats_base;
	uint64_t idle_entries; /* power:cpu_idle entries (not exits) consumed */
	uint64_t newest, drained_at;
	bool evicted; /* some event was dropped (time or count) */
	int32_t last_irq;
	char last_irq_name[TEV_NAME_LEN];
	/* the function of the last work item / timer callback started on
	 * this CPU, for its end, which carries no name of its own here */
	uint32_t last_work, last_timer;
	char last_work_fn[TEV_NAME_LEN], last_timer_fn[TEV_NAME_LEN];
};

struct ksym;

struct trace_recorder {
	struct trace_instance *ti;
	struct tep_handle *tep;
	struct kbuffer *kbuf;
	void *page;
	int page_size;
	unsigned max_pages;  /* per CPU per poll: a bound on one poll's time */
	unsigned poll_pages; /* the most pages one CPU gave in the last poll */
	uint64_t window_ns;
	unsigned ncpu;
	struct cpu_ring *cpus;
	struct evdef *defs; /* ndefs of them */
	unsigned ndefs;
	uint8_t def_of[65536]; /* common_type -> index + 1 into defs, 0 unknown */
	struct ksym *syms;     /* nsyms text symbols, by address */
	size_t nsyms;
	char *names;
	size_t memory;
	struct trace_stack_cost stack_cost;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A trace timestamp (the host's CLOCK_MONOTONIC, whatever time namespace
 * reads it) on this process's CLOCK_MONOTONIC, which the probes read: in a
 * time namespace they differ by its offset. */
static uint64_t to_mono(const struct trace_recorder *rec, unsigned long long ts)
{
	return (uint64_t)ts + (uint64_t)rec->ti->mono_offset_ns;
}

/* ---- set-up --------------------------------------------------------- */

static enum conv conv_of(const char *sys, const char *ev, char *vname)
{
	static const struct {
		const char *sys, *ev;
		enum conv conv;
	} fixed[] = {
		{ "sched", "sched_switch", C_SWITCH },
		{ "sched", "sched_waking", C_WAKING },
		{ "sched", "sched_wakeup", C_WAKEUP },
		{ "irq", "irq_handler_entry", C_IRQ_ENTRY },
		{ "irq", "irq_handler_exit", C_IRQ_EXIT },
		{ "irq", "softirq_entry", C_SOFTIRQ_ENTRY },
		{ "irq", "softirq_exit", C_SOFTIRQ_EXIT },
		{ "timer", "hrtimer_expire_entry", C_HRT_ENTRY },
		{ "timer", "hrtimer_expire_exit", C_HRT_EXIT },
		{ "power", "cpu_idle", C_IDLE },
		{ "nmi", "nmi_handler", C_NMI },
		{ "ftrace", "kernel_stack", C_STACK },
		{ "workqueue", "workqueue_execute_start", C_WORK_START },
		{ "workqueue", "workqueue_execute_end", C_WORK_END },
		{ "timer", "timer_expire_entry", C_TIMER_ENTRY },
		{ "timer", "timer_expire_exit", C_TIMER_EXIT },
	};
	size_t n = strlen(ev);

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!strcmp(sys, fixed[i].sys) && !strcmp(ev, fixed[i].ev))
			return fixed[i].conv;
	if (!strcmp(sys, "irq_vectors")) {
		if (n > 6 && !strcmp(ev + n - 6, "_entry")) {
			snprintf(vname, TEV_NAME_LEN, "%.*s", (int)(n - 6), ev);
			return C_VEC_ENTRY;
		}
		if (n > 5 && !strcmp(ev + n - 5, "_exit")) {
			snprintf(vname, TEV_NAME_LEN, "%.*s", (int)(n - 5), ev);
			return C_VEC_EXIT;
		}
	}
	return C_NONE;
}

/* The formats of the header page and of the enabled events only:
 * tracefs_local_events_system() would parse every event of the systems,
 * /proc/kallsyms, printk formats and saved cmdlines too, half a second and
 * ~20 MiB that a run mlockall()s. */
static int load_formats(struct trace_recorder *rec, char *err, size_t errlen)
{
	const int one = 1;
	enum tep_endian host = *(const char *)&one ? TEP_LITTLE_ENDIAN : TEP_BIG_ENDIAN;
	char *buf;
	int size = 0;

	rec->tep = tep_alloc();
	if (!rec->tep)
		return -ENOMEM;
	tep_set_long_size(rec->tep, (int)sizeof(long));
	tep_set_file_bigendian(rec->tep, host);
	tep_set_local_bigendian(rec->tep, host);
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || tep_parse_header_page(rec->tep, buf, (unsigned long)size, (int)sizeof(long))) {
		free(buf);
		util_errf(err, errlen, "tracefs: cannot read %s/events/header_page", rec->ti->root);
		return -EIO;
	}
	free(buf);
	for (unsigned i = 0; i < rec->ti->nevents; i++) {
		char sys[TRACE_EVNAME_LEN], *name;

		snprintf(sys, sizeof(sys), "%s", rec->ti->events[i]);
		name = strchr(sys, ':');
		if (!name)
			continue;
		*name++ = '\0';
		buf = tracefs_event_file_read(NULL, sys, name, "format", &size);
		if (!buf || tep_parse_event(rec->tep, buf, (unsigned long)size, sys)) {
			free(buf);
			util_errf(err, errlen, "tracefs: cannot parse the format of %s:%s", sys,
				  name);
			return -EIO;
		}
		free(buf);
	}
	return 0;
}

/* A converter for each enabled event we know; others (osnoise:*) are
 * read and skipped. */
static int setup_defs(struct trace_recorder *rec, char *err, size_t errlen)
{
	rec->defs = calloc(rec->ti->nevents + 1, sizeof(*rec->defs));
	if (!rec->defs)
		return -ENOMEM;
	rec->memory += (rec->ti->nevents + 1) * sizeof(*rec->defs);
	for (unsigned i = 0; i < rec->ti->nevents; i++) {
		char sys[TRACE_EVNAME_LEN], *name;
		struct evdef *d = &rec->defs[rec->ndefs];
		struct tep_event *e;

		snprintf(sys, sizeof(sys), "%s", rec->ti->events[i]);
		name = strchr(sys, ':');
		if (!name)
			continue;
		*name++ = '\0';
		d->conv = conv_of(sys, name, d->vname);
		if (d->conv == C_NONE)
			continue;
		e = tep_find_event_by_name(rec->tep, sys, name);
		if (!e || e->id < 0 || e->id > 65535) {
			util_errf(err, errlen, "tracefs: no format for the event %s:%s", sys, name);
			return -ENOENT;
		}
		for (int k = 0; k < NFIELDS && conv_fields[d->conv][k]; k++) {
			d->f[k] = tep_find_field(e, conv_fields[d->conv][k]);
			if (!d->f[k]) {
				util_errf(err, errlen, "tracefs: the event %s:%s has no field %s",
					  sys, name, conv_fields[d->conv][k]);
				return -ENOENT;
			}
		}
		rec->def_of[e->id] = (uint8_t)(++rec->ndefs);
	}
	return 0;
}

/* Function names for hrtimer and timer callbacks, work functions and NMI
 * handlers (the events carry a pointer the kernel prints with %ps): the text symbols
 * of /proc/kallsyms in a sorted table of our own, a few MiB (libtraceevent's
 * tep_parse_kallsyms keeps every symbol with two allocations each: ~40 MiB
 * of RSS, more than the whole run's budget). */
struct ksym {
	uint64_t addr;
	uint32_t name; /* offset into names */
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void load_kallsyms(struct trace_recorder *rec)
{
	size_t cap = 0, ncap = 0, nlen = 0;
	struct ksym *syms = NULL;
	char line[512], *names = NULL;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char type, name[256];
		size_t l;

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr ||
		    (type != 't' && type != 'T'))
			continue;
		l = strlen(name) + 1;
		if (rec->nsyms == cap) {
			struct ksym *ns =
			    realloc(syms, (cap = cap ? cap * 2 : 65536) * sizeof(*ns));

			if (!ns)
				goto fail;
			syms = ns;
		}
		if (nlen + l > ncap) {
			char *nn = realloc(names, ncap = ncap ? ncap * 2 : (1 << 21));

			if (!nn)
				goto fail;
			names = nn;
		}
		memcpy(names + nlen, name, l);
		syms[rec->nsyms].addr = addr;
		syms[rec->nsyms++].name = (uint32_t)nlen;
		nlen += l;
	}
	fclose(f);
	if (!rec->nsyms)
		goto none;
	qsort(syms, rec->nsyms, sizeof(*syms), ksym_cmp);
	/* Give back the slack of the doublings: a run mlockall()s it all. */
	{
		struct ksym *ts = realloc(syms, rec->nsyms * sizeof(*syms));
		char *tn = realloc(names, nlen);

		rec->syms = ts ? ts : syms;
		rec->names = tn ? tn : names;
	}
	rec->memory += rec->nsyms * sizeof(*syms) + nlen;
	return;
fail:
	fclose(f);
none:
	/* Without symbols names are shown as addresses: not fatal. */
	free(syms);
	free(names);
	rec->nsyms = 0;
}

static int read_overrun(struct trace_recorder *rec, int cpu, uint64_t *v)
{
	char file[64], *s, *p;
	unsigned long long o = 0, d = 0;
	int size = 0;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	s = tracefs_instance_file_read(rec->ti->inst, file, &size);
	if (!s)
		return errno ? -errno : -EIO;
	if ((p = strstr(s, "overrun:")))
		o = strtoull(p + 8, NULL, 10);
	if ((p = strstr(s, "dropped events:")))
		d = strtoull(p + 15, NULL, 10);
	free(s);
	*v = o + d;
	return 0;
}

/* The sub-buffer ("page") size of the instance's ring. */
static int subbuf_size(struct trace_recorder *rec)
{
	long long kb = 0;

	if (tracefs_file_exists(rec->ti->inst, "buffer_subbuf_size_kb") &&
	    tracefs_instance_file_read_number(rec->ti->inst, "buffer_subbuf_size_kb", &kb) == 0 &&
	    kb > 0 && kb <= 1024)
		return (int)kb * 1024;
	return (int)sysconf(_SC_PAGESIZE);
}

/* trace_pipe_raw opened by us rather than tracefs_cpu_open(), which does
 * not set O_CLOEXEC: a load worker forked and exec'd after this would hold
 * the instance busy (rmdir EBUSY) for as long as it lives, after a SIGKILL
 * of rtsoak too. */
static int open_cpu(struct trace_recorder *rec, struct cpu_ring *c, char *err, size_t errlen)
{
	char file[64], *path;
	int r;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", c->cpu);
	path = tracefs_instance_get_file(rec->ti->inst, file);
	if (!path)
		return -ENOMEM;
	c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
	r = c->fd < 0 ? -errno : 0;
	if (r)
		util_errf(err, errlen, "tracefs: cannot open %s: %s", path, strerror(-r));
	tracefs_put_tracing_file(path);
	if (r)
		return r;
	if (!rec->page_size)
		rec->page_size = subbuf_size(rec);
	c->tcpu = tracefs_cpu_alloc_fd(c->fd, rec->page_size, true);
	if (!c->tcpu) {
		r = errno ? -errno : -ENOMEM;
		util_errf(err, errlen, "tracefs: CPU %d's trace_pipe_raw: %s", c->cpu,
			  strerror(-r));
		return r;
	}
	return 0;
}

struct trace_recorder *trace_recorder_create(struct trace_instance *ti,
					     const struct trace_recorder_config *cfg, char *err,
					     size_t errlen)
{
	struct trace_recorder *rec;
	unsigned window_ms, max_events;
	int r = -ENOMEM, cpu;

	if (!ti || !ti->inst) {
		util_errf(err, errlen, "tracefs: no instance to record from");
		errno = EINVAL;
		return NULL;
	}
	window_ms = cfg && cfg->window_ms ? cfg->window_ms : TRACE_DEFAULT_WINDOW_MS;
	max_events = cfg && cfg->max_events ? cfg->max_events : TRACE_DEFAULT_MAX_EVENTS;
	rec = calloc(1, sizeof(*rec));
	if (!rec)
		goto nomem;
	rec->memory = sizeof(*rec);
	rec->ti = ti;
	rec->window_ns = (uint64_t)window_ms * 1000000ull;
	if ((r = load_formats(rec, err, errlen)))
		goto fail;
	rec->kbuf = tep_kbuffer(rec->tep);
	if (!rec->kbuf) {
		util_errf(err, errlen,
			  "tracefs: cannot set up a kbuffer for this kernel's ring buffer");
		r = -EIO;
		goto fail;
	}
	if ((r = setup_defs(rec, err, errlen))) {
		if (r == -ENOMEM)
			goto nomem;
		goto fail;
	}
	load_kallsyms(rec);
	rec->ncpu = (unsigned)cpuset_count(&ti->cpus);
	rec->cpus = calloc(rec->ncpu, sizeof(*rec->cpus));
	if (!rec->cpus)
		goto nomem;
	rec->memory += rec->ncpu * sizeof(*rec->cpus);
	for (unsigned i = 0; i < rec->ncpu; i++)
		rec->cpus[i].fd = -1;
	cpu = -1;
	for (unsigned i = 0; i < rec->ncpu; i++) {
		struct cpu_ring *c = &rec->cpus[i];

		cpu = cpuset_next(&ti->cpus, cpu + 1);
		c->cpu = cpu;
		c->cap = max_events;
		c->last_irq = -1;
		c->ev = calloc(max_events, sizeof(*c->ev));
		if (!c->ev)
			goto nomem;
		rec->memory += (size_t)max_events * sizeof(*c->ev);
		if ((r = open_cpu(rec, c, err, errlen)))
			goto fail;
		if (read_overrun(rec, cpu, &c->stats_base) < 0)
			c->stats_base = 0;
	}
	if (rec->page_size <= 0) {
		util_errf(err, errlen, "tracefs: cannot tell the ring buffer's page size");
		r = -EIO;
		goto fail;
	}
	rec->page = calloc(1, (size_t)rec->page_size);
	if (!rec->page)
		goto nomem;
	rec->memory += (size_t)rec->page_size;
	rec->max_pages =
	    (unsigned)(((uint64_t)ti->buffer_kb * 1024) / (unsigned)rec->page_size) + 1;
	/* Tracing starts now that its reader is ready: nothing recorded
	 * while the formats and symbols loaded, nothing lost for it. */
	if ((r = trace_instance_start(ti, err, errlen)))
		goto fail;
	return rec;
nomem:
	r = -ENOMEM;
	util_errf(err, errlen, "tracefs: out of memory for the recorder (%u events per CPU)",
		  max_events);
fail:
	trace_recorder_destroy(rec);
	errno = -r;
	return NULL;
}

void trace_recorder_destroy(struct trace_recorder *rec)
{
	if (!rec)
		return;
	for (unsigned i = 0; rec->cpus && i < rec->ncpu; i++) {
		if (rec->cpus[i].tcpu)
			tracefs_cpu_free_fd(rec->cpus[i].tcpu);
		if (rec->cpus[i].fd >= 0)
			close(rec->cpus[i].fd);
		free(rec->cpus[i].ev);
	}
	free(rec->cpus);
	free(rec->defs);
	free(rec->page);
	free(rec->syms);
	free(rec->names);
	if (rec->kbuf)
		kbuffer_free(rec->kbuf);
	if (rec->tep)
		tep_free(rec->tep);
	free(rec);
}

/* ---- consuming ------------------------------------------------------ */

static uint64_t field_u(const struct tep_format_field *f, const void *data, int size)
{
	const unsigned char *p = (const unsigned char *)data + f->offset;
	uint64_t v = 0;

	if (f->offset + f->size > size)
		return 0;
	switch (f->size) {
	case 1:
		return *p;
	case 2: {
		uint16_t x;

		memcpy(&x, p, 2);
		return x;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, p, 4);
		return x;
	}
	case 8:
		memcpy(&v, p, 8);
		return v;
	}
	return 0;
}

static int64_t field_s(const struct tep_format_field *f, const void *data, int size)
{
	uint64_t v = field_u(f, data, size);

	switch (f->size) {
	case 1:
		return (int8_t)v;
	case 2:
		return (int16_t)v;
	case 4:
		return (int32_t)v;
	}
	return (int64_t)v;
}

/* A char[N] field or a __data_loc string into dst (TEV_NAME_LEN). */
static void field_str(const struct tep_format_field *f, const void *data, int size, char *dst)
{
	const char *src = (const char *)data + f->offset;
	int len = f->size;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc = (uint32_t)field_u(f, data, size);
		int off = (int)(loc & 0xffff);

		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
		len = (int)(loc >> 16);
		src = (const char *)data + off;
		if (off + len > size)
			len = 0;
	} else if (f->offset + f->size > size) {
		len = 0;
	}
	if (len > TEV_NAME_LEN - 1)
		len = TEV_NAME_LEN - 1;
	len = (int)strnlen(src, (size_t)len);
	memcpy(dst, src, (size_t)len);
	dst[len] = '\0';
	/* A comm is any 15 bytes, cut wherever they end (a name of 8 "ä"
	 * loses half of the last one): valid UTF-8 before it is a name. */
	util_utf8_fix(dst, (size_t)len);
}

/* The name of the text symbol that contains addr, NULL when none does. */
static const char *sym_of(const struct trace_recorder *rec, uint64_t addr)
{
	size_t lo = 0, hi = rec->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rec->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && addr - rec->syms[lo - 1].addr < (1u << 20))
		return rec->names + rec->syms[lo - 1].name;
	return NULL;
}

/* The symbol that contains addr (a callback pointer: its start). */
static void func_name(struct trace_recorder *rec, uint64_t addr, char *dst)
{
	const char *s = sym_of(rec, addr);

	if (s)
		snprintf(dst, TEV_NAME_LEN, "%s", s);
	else
		snprintf(dst, TEV_NAME_LEN, "0x%llx", (unsigned long long)addr);
}

/* Where the interrupt came, from the stack a local_timer_entry trigger
 * recorded: the frames of the interrupt itself end at its entry stub
 * (asm_sysvec_apic_timer_interrupt), the next frame is the interrupted
 * context.  An interrupt held back by an IRQs-off section is taken the
 * moment they come back on, inside the unlock or restore helper: skip those
 * to the function that called it (the __slab_free of a
 * spin_unlock_irqrestore).  "user" when the stack ends at the stub (user
 * space was interrupted), "?" when the stub is not on it.  *frames: the
 * stack's depth. */
static bool irq_helper(const char *s)
{
	return !strncmp(s, "_raw_", 5) || !strncmp(s, "__raw_", 6) || strstr(s, "irqrestore") ||
	       strstr(s, "irq_restore") || strstr(s, "irq_enable") || strstr(s, "local_irq") ||
	       !strncmp(s, "native_restore_fl", 17) || !strncmp(s, "preempt_count", 13);
}

static void interrupted_at(const struct trace_recorder *rec, const void *data, int size,
			   const struct evdef *d, char *dst, uint32_t *frames)
{
	uint64_t n = field_u(d->f[0], data, size);
	const struct tep_format_field *f = d->f[1];
	bool past_stub = false, found_stub = false;

	snprintf(dst, TEV_NAME_LEN, "?");
	*frames = 0;
	if (f->offset < 0 || f->offset > size)
		return;
	/* the record holds what the kernel saved, whatever caller[8] says */
	uint64_t room = (uint64_t)(size - f->offset) / sizeof(uint64_t);
	if (n > room)
		n = room;
	*frames = (uint32_t)n;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t addr;
		const char *s;

		memcpy(&addr, (const char *)data + f->offset + i * sizeof(addr), sizeof(addr));
		s = sym_of(rec, addr);
		if (!past_stub) {
			if (s && !strncmp(s, "asm_", 4))
				past_stub = found_stub = true;
			continue;
		}
		if (s && irq_helper(s))
			continue;
		if (s)
			snprintf(dst, TEV_NAME_LEN, "%s", s);
		else
			snprintf(dst, TEV_NAME_LEN, "0x%llx", (unsigned long long)addr);
		return;
	}
	if (found_stub)
		snprintf(dst, TEV_NAME_LEN, "user");
}

/* The next slot of the ring, dropping the oldest when it is full. */
static struct trace_ev *ring_push(struct cpu_ring *c)
{
	struct trace_ev *e;

	if (c->n == c->cap) {
		c->head = (c->head + 1) % c->cap;
		c->n--;
		c->base_seq++;
		c->evicted = true;
	}
	e = &c->ev[(c->head + c->n) % c->cap];
	c->n++;
	return e;
}

static void ring_trim(struct cpu_ring *c, uint64_t window_ns)
{
	while (c->n > 1 && c->ev[c->head].ts + window_ns < c->newest) {
		c->head = (c->head + 1) % c->cap;
		c->n--;
		c->base_seq++;
		c->evicted = true;
	}
}

static struct trace_ev *ring_seq(struct cpu_ring *c, uint64_t seq)
{
	if (seq < c->base_seq || seq >= c->base_seq + c->n)
		return NULL;
	return &c->ev[(c->head + (seq - c->base_seq)) % c->cap];
}

static void blank(struct trace_ev *e, uint64_t ts, int cpu, unsigned type)
{
	e->ts = ts;
	e->type = (uint16_t)type;
	e->cpu = (uint16_t)cpu;
	e->pid = e->pid2 = e->prio = e->prio2 = -1;
	e->arg = 0;
	e->name[0] = e->name2[0] = '\0';
}

static void add_lost(struct cpu_ring *c, uint64_t ts, int missed)
{
	struct trace_ev *e = ring_push(c);

	blank(e, ts, c->cpu, TEV_LOST);
	if (missed > 0) {
		e->arg = (uint32_t)missed;
		c->lost += (uint64_t)missed;
	} else {
		e->arg = UINT32_MAX; /* the kernel did not say how many */
		c->lost_unknown++;
	}
}

/* One raw event into the ring; false when it is not one we convert. */
static bool convert(struct trace_recorder *rec, struct cpu_ring *c, const void *data, int size,
		    uint64_t ts)
{
	const struct evdef *d;
	struct trace_ev *e;
	uint16_t type;
	uint64_t seq;

	if (size < 2)
		return false;
	memcpy(&type, data, 2);
	if (!rec->def_of[type])
		return false;
	d = &rec->defs[rec->def_of[type] - 1];
	e = ring_push(c);
	seq = c->base_seq + c->n - 1;
	switch (d->conv) {
	case C_SWITCH:
		blank(e, ts, c->cpu, TEV_SWITCH);
		field_str(d->f[0], data, size, e->name2);
		e->pid2 = (int32_t)field_s(d->f[1], data, size);
		e->prio2 = (int32_t)field_s(d->f[2], data, size);
		e->arg = (uint32_t)field_u(d->f[3], data, size);
		field_str(d->f[4], data, size, e->name);
		e->pid = (int32_t)field_s(d->f[5], data, size);
		e->prio = (int32_t)field_s(d->f[6], data, size);
		break;
	case C_WAKING:
	case C_WAKEUP:
		blank(e, ts, c->cpu, d->conv == C_WAKING ? TEV_WAKING : TEV_WAKEUP);
		field_str(d->f[0], data, size, e->name);
		e->pid = (int32_t)field_s(d->f[1], data, size);
		e->prio = (int32_t)field_s(d->f[2], data, size);
		e->arg = (uint32_t)field_u(d->f[3], data, size);
		if (d->conv == C_WAKING && c->hrt_open) {
			/* The task an hrtimer_wakeup expiry woke: the waking
			 * inside that expiry, on this CPU. */
			struct trace_ev *h = ring_seq(c, c->hrt_open - 1);

			if (h && h->pid < 0)
				h->pid = e->pid;
			c->hrt_open = 0;
		}
		break;
	case C_IRQ_ENTRY:
		blank(e, ts, c->cpu, TEV_IRQ_ENTRY);
		e->arg = (uint32_t)field_u(d->f[0], data, size);
		field_str(d->f[1], data, size, e->name);
		c->last_irq = (int32_t)e->arg;
		memcpy(c->last_irq_name, e->name, TEV_NAME_LEN);
		break;
	case C_IRQ_EXIT:
		blank(e, ts, c->cpu, TEV_IRQ_EXIT);
		e->arg = (uint32_t)field_u(d->f[0], data, size);
		if ((int32_t)e->arg == c->last_irq)
			memcpy(e->name, c->last_irq_name, TEV_NAME_LEN);
		break;
	case C_SOFTIRQ_ENTRY:
	case C_SOFTIRQ_EXIT:
		blank(e, ts, c->cpu,
		      d->conv == C_SOFTIRQ_ENTRY ? TEV_SOFTIRQ_ENTRY : TEV_SOFTIRQ_EXIT);
		e->arg = (uint32_t)field_u(d->f[0], data, size);
		snprintf(e->name, TEV_NAME_LEN, "%s", trace_softirq_name(e->arg));
		break;
	case C_VEC_ENTRY:
	case C_VEC_EXIT:
		blank(e, ts, c->cpu, d->conv == C_VEC_ENTRY ? TEV_VECTOR_ENTRY : TEV_VECTOR_EXIT);
		e->arg = (uint32_t)field_u(d->f[0], data, size);
		memcpy(e->name, d->vname, TEV_NAME_LEN);
		break;
	case C_HRT_ENTRY:
		blank(e, ts, c->cpu, TEV_HRTIMER_ENTRY);
		e->arg = (uint32_t)field_u(d->f[0], data, size);
		func_name(rec, field_u(d->f[1], data, size), e->name);
		c->hrt_open = strcmp(e->name, "hrtimer_wakeup") == 0 ? seq + 1 : 0;
		break;
	case C_HRT_EXIT:
		blank(e, ts, c->cpu, TEV_HRTIMER_EXIT);
		e->arg = (uint32_t)field_u(d->f[0], data, size);
		c->hrt_open = 0;
		break;
	case C_IDLE:
		blank(e, ts, c->cpu, TEV_IDLE);
		e->arg = (uint32_t)field_u(d->f[0], data, size);
		c->idle_entries += e->arg != TEV_IDLE_EXIT;
		break;
	case C_NMI: {
		int64_t dns;

		blank(e, ts, c->cpu, TEV_NMI);
		func_name(rec, field_u(d->f[0], data, size), e->name);
		dns = field_s(d->f[1], data, size);
		e->arg = dns < 0 ? 0 : dns > UINT32_MAX ? UINT32_MAX : (uint32_t)dns;
		break;
	}
	case C_STACK: {
		const struct trace_ev *prev = c->n > 1 ? ring_seq(c, seq - 1) : NULL;

		blank(e, ts, c->cpu, TEV_STACK);
		interrupted_at(rec, data, size, d, e->name, &e->arg);
		if (prev && prev->type == TEV_VECTOR_ENTRY && !strcmp(prev->name, "local_timer") &&
		    ts >= prev->ts) {
			struct trace_stack_cost *k = &rec->stack_cost;
			k->n++;
			k->sum_ns += ts - prev->ts;
			if (ts - prev->ts > k->max_ns)
				k->max_ns = ts - prev->ts;
		}
		break;
	}
	case C_WORK_START:
	case C_TIMER_ENTRY: {
		bool work = d->conv == C_WORK_START;

		blank(e, ts, c->cpu, work ? TEV_WORK_START : TEV_TIMER_ENTRY);
		e->arg = (uint32_t)field_u(d->f[0], data, size);
		func_name(rec, field_u(d->f[1], data, size), e->name);
		*(work ? &c->last_work : &c->last_timer) = e->arg;
		memcpy(work ? c->last_work_fn : c->last_timer_fn, e->name, TEV_NAME_LEN);
		break;
	}
	case C_WORK_END:
	case C_TIMER_EXIT: {
		bool work = d->conv == C_WORK_END;

		blank(e, ts, c->cpu, work ? TEV_WORK_END : TEV_TIMER_EXIT);
		e->arg = (uint32_t)field_u(d->f[0], data, size);
		if (e->arg == (work ? c->last_work : c->last_timer))
			memcpy(e->name, work ? c->last_work_fn : c->last_timer_fn, TEV_NAME_LEN);
		break;
	}
	case C_NONE:
		break;
	}
	c->events++;
	return true;
}

static int poll_cpu(struct trace_recorder *rec, struct cpu_ring *c, char *err, size_t errlen)
{
	uint64_t start = now_ns();
	int added = 0;
	unsigned pages;

	for (pages = 0; pages < rec->max_pages; pages++) {
		unsigned long long ts;
		void *data;
		int n, missed;

		errno = 0;
		n = tracefs_cpu_read(c->tcpu, rec->page, true);
		if (n < 0 && errno != EAGAIN) {
			int r = errno ? -errno : -EIO;

			util_errf(err, errlen, "tracefs: reading CPU %d's trace_pipe_raw: %s",
				  c->cpu, strerror(-r));
			return r;
		}
		if (n <= 0) {
			c->drained_at = start;
			break;
		}
		if (kbuffer_load_subbuffer(rec->kbuf, rec->page) < 0)
			continue;
		data = kbuffer_read_event(rec->kbuf, &ts);
		/* Only the page's first event carries the missed count. */
		missed = kbuffer_missed_events(rec->kbuf);
		if (missed) {
			add_lost(c, to_mono(rec, data ? ts : kbuffer_timestamp(rec->kbuf)), missed);
			added++;
		}
		while (data) {
			uint64_t t = to_mono(rec, ts);

			if (convert(rec, c, data, kbuffer_event_size(rec->kbuf), t)) {
				added++;
				if (t > c->newest)
					c->newest = t;
			}
			data = kbuffer_next_event(rec->kbuf, &ts);
		}
		ring_trim(c, rec->window_ns);
	}
	if (pages > rec->poll_pages)
		rec->poll_pages = pages;
	return added;
}

int trace_recorder_poll(struct trace_recorder *rec, char *err, size_t errlen)
{
	int total = 0;

	rec->poll_pages = 0;
	for (unsigned i = 0; i < rec->ncpu; i++) {
		int r = poll_cpu(rec, &rec->cpus[i], err, errlen);

		if (r < 0)
			return r;
		total += r;
	}
	return total;
}

/* ---- queries -------------------------------------------------------- */

static const struct cpu_ring *ring_of(const struct trace_recorder *rec, int cpu)
{
	for (unsigned i = 0; i < rec->ncpu; i++)
		if (rec->cpus[i].cpu == cpu)
			return &rec->cpus[i];
	return NULL;
}

static const struct trace_ev *at(const struct cpu_ring *c, unsigned i)
{
	return &c->ev[(c->head + i) % c->cap];
}

uint64_t trace_recorder_horizon(const struct trace_recorder *rec, int cpu)
{
	const struct cpu_ring *c = ring_of(rec, cpu);
	uint64_t h;

	if (!c)
		return 0;
	h = c->newest;
	if (c->drained_at > 1000000 && c->drained_at - 1000000 > h)
		h = c->drained_at - 1000000;
	return h;
}

/* The index of the first event with ts >= from (the ring is in time order). */
static unsigned first_from(const struct cpu_ring *c, uint64_t from)
{
	unsigned lo = 0, hi = c->n;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (at(c, mid)->ts < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

long trace_recorder_window(const struct trace_recorder *rec, int cpu, uint64_t from, uint64_t to,
			   struct trace_ev *out, size_t max, struct trace_window_info *info)
{
	const struct cpu_ring *c = ring_of(rec, cpu);
	struct trace_window_info w = { 0 };
	unsigned lo;
	size_t n = 0;

	if (!c)
		return -EINVAL;
	lo = first_from(c, from);
	for (unsigned i = 0; i < lo; i++)
		if (at(c, i)->type == TEV_LOST)
			w.lost_before = true;
	for (unsigned i = lo; i < c->n && at(c, i)->ts <= to; i++) {
		const struct trace_ev *e = at(c, i);

		if (e->type == TEV_LOST)
			w.lost_inside = true;
		if (n < max) {
			/* Insertion keeps the copy sorted even if two nested
			 * events came out of the kernel a little out of order. */
			size_t k = n++;

			while (k > 0 && out[k - 1].ts > e->ts) {
				out[k] = out[k - 1];
				k--;
			}
			out[k] = *e;
		}
		w.total++;
	}
	w.oldest = c->n ? at(c, 0)->ts : 0;
	w.covered = !c->evicted || (c->n && at(c, 0)->ts <= from);
	w.complete = trace_recorder_horizon(rec, cpu) >= to;
	if (info)
		*info = w;
	return (long)n;
}

int trace_recorder_last(const struct trace_recorder *rec, int cpu, uint64_t before,
			enum trace_ev_type type, struct trace_ev *out)
{
	const struct cpu_ring *c = ring_of(rec, cpu);

	if (!c)
		return -EINVAL;
	unsigned lo = first_from(c, before);
	/* A bounded walk back: a CPU without a switch for that many events is
	 * busy in one task, which its window's IRQ frames say anyway. */
	for (unsigned i = lo, n = 0; i-- > 0 && n < TRACE_LAST_SCAN; n++) {
		const struct trace_ev *e = at(c, i);

		if (e->type == TEV_LOST)
			return 0; /* what ran after it is not known */
		/* an idle exit names no state: the entry before it does */
		if (e->type == type && !(type == TEV_IDLE && e->arg == TEV_IDLE_EXIT)) {
			*out = *e;
			return 1;
		}
	}
	return 0;
}

int trace_recorder_stats(struct trace_recorder *rec, int cpu, uint64_t *events, uint64_t *lost)
{
	struct cpu_ring *c = (struct cpu_ring *)ring_of(rec, cpu);
	uint64_t kernel = 0, mine;
	int r;

	if (!c)
		return -EINVAL;
	mine = c->lost + c->lost_unknown;
	r = read_overrun(rec, cpu, &kernel);
	if (r < 0)
		return r;
	kernel = kernel > c->stats_base ? kernel - c->stats_base : 0;
	*events = c->events;
	*lost = kernel > mine ? kernel : mine;
	return 0;
}

size_t trace_recorder_memory(const struct trace_recorder *rec)
{
	return rec->memory;
}

uint64_t trace_recorder_idle_entries(const struct trace_recorder *rec, int cpu)
{
	const struct cpu_ring *c = ring_of(rec, cpu);

	return c ? c->idle_entries : 0;
}

void trace_recorder_fill(const struct trace_recorder *rec, unsigned *pages, unsigned *ring)
{
	*pages = rec->poll_pages;
	*ring = rec->max_pages - 1;
}

void trace_recorder_stack_cost(const struct trace_recorder *rec, struct trace_stack_cost *out)
{
	*out = rec->stack_cost;
}

#else /* !HAVE_TRACEFS */

struct trace_recorder *trace_recorder_create(struct trace_instance *ti,
					     const struct trace_recorder_config *cfg, char *err,
					     size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", TRACE_NOT_BUILT);
	errno = ENOTSUP;
	return NULL;
}

void trace_recorder_destroy(struct trace_recorder *rec)
{
}

int trace_recorder_poll(struct trace_recorder *rec, char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", TRACE_NOT_BUILT);
	return -ENOTSUP;
}

long trace_recorder_window(const struct trace_recorder *rec, int cpu, uint64_t from, uint64_t to,
			   struct trace_ev *out, size_t max, struct trace_window_info *info)
{
	return -ENOTSUP;
}

int trace_recorder_last(const struct trace_recorder *rec, int cpu, uint64_t before,
			enum trace_ev_type type, struct trace_ev *out)
{
	return -ENOTSUP;
}

int trace_recorder_stats(struct trace_recorder *rec, int cpu, uint64_t *events, uint64_t *lost)
{
	return -ENOTSUP;
}

uint64_t trace_recorder_horizon(const struct trace_recorder *rec, int cpu)
{
	return 0;
}

size_t trace_recorder_memory(const struct trace_recorder *rec)
{
	return 0;
}

uint64_t trace_recorder_idle_entries(const struct trace_recorder *rec, int cpu)
{
	return 0;
}

void trace_recorder_fill(const struct trace_recorder *rec, unsigned *pages, unsigned *ring)
{
	*pages = *ring = 0;
}

void trace_recorder_stack_cost(const struct trace_recorder *rec, struct trace_stack_cost *out)
{
	memset(out, 0, sizeof(*out));
}

#endif
