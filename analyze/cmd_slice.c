/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * cmd_slice.c - cut a time window into a new self-contained .tz. Processes
 * alive at the window's start are written as EV_PROC_STATE events at that
 * instant, encoded with the input's own schema. The whole input is read
 * once into a model (samples kept) so processes crossing the window's edges
 * are charged only what they used inside it (docs/tracer-analyze.md, slice).
 */
#include <getopt.h> /* optind */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/events.h"
#include "common/cmp.h"
#include "common/vec.h"
#include "dropslot.h"
#include "fleet.h"
#include "options.h"
#include "report.h"
#include "slice.h"

static const struct tza_cmd_spec slice_spec = {
    .name = "slice",
    .synopsis = "usage: tracer-analyze slice [--from T] [--to T] [--allow-empty] [-f] -o OUT IN\n"
		"       tracer-analyze slice [--from T] [--to T] [--allow-empty] [-f] IN OUT\n"
		"\n"
		"Write the events of IN between --from and --to (inclusive) into a new trace\n"
		"OUT with IN's metadata and schema, plus one proc_state event at --from for\n"
		"every process alive then (so the slice's tree is complete), the drop\n"
		"counters reached by then, IN's cgroup table and its attachments (they\n"
		"describe the run, not a time). Processes crossing the window's edges are\n"
		"charged only what they used inside it: their CPU and I/O counters in OUT\n"
		"count from --from (interpolated between samples, else spread evenly over\n"
		"the life), and one sample at --to says what each process still alive then\n"
		"had used by then.\n"
		"Times are seconds from the trace start (90, 1m30s, 250ms) or wall clock\n"
		"(2026-11-29T10:00:00, local; Z for UTC).\n"
		"IN a multi-host trace or a directory of traces: OUT is a multi-host trace,\n"
		"every host sliced over one wall-clock window (seconds from the run's first\n"
		"event); a host with nothing in it is left out (docs: MANY HOSTS).\n"
		"\n",
    .examples =
	"  tracer-analyze slice --from 10m --to 20m -o part.tz run.tz\n"
	"  tracer-analyze slice --from 10m --to 20m run.tz part.tz\n"
	"  tracer-analyze slice --from 2026-11-29T10:00:00 --to 2026-11-29T10:05:00 run.tz x.tz\n",
    .col = 21,
};

static void put(uint8_t *fixed, uint32_t size, const struct tz_event_type *t, const char *name,
		uint64_t v)
{
	const struct tz_field *f = tz_type_field(t, name);
	if (!f || f->type < TZ_F_U8 || f->type > TZ_F_I64 || f->offset + f->size > size)
		return;
	for (uint32_t i = 0; i < f->size; i++)
		fixed[f->offset + i] = (uint8_t)(v >> (8 * i));
}

static void put_chars(uint8_t *fixed, uint32_t size, const struct tz_event_type *t,
		      const char *name, const char *s, size_t n)
{
	const struct tz_field *f = tz_type_field(t, name);
	if (!f || f->type != TZ_F_CHARS || f->offset + f->size > size)
		return;
	memcpy(fixed + f->offset, s, n < f->size ? n : f->size);
}

static int put_blob(struct tz_blob *blobs, uint32_t nblobs, const struct tz_event_type *t,
		    const char *name, const void *data, uint32_t len)
{
	const struct tz_field *f = tz_type_field(t, name);
	if (!f || (f->type != TZ_F_STR && f->type != TZ_F_STRV) || f->offset >= nblobs)
		return 0;
	blobs[f->offset] = (struct tz_blob){data, len};
	return 1;
}

/* One proc_state event at ts for p (alive then), in the input's layout. */
static int write_state(tz_writer *w, const struct tz_event_type *t, struct tza_proc *p,
		       uint64_t ts)
{
	uint8_t fixed[1024];
	struct tz_blob blobs[16];
	uint32_t size = t->fixed_size < sizeof(fixed) ? t->fixed_size : sizeof(fixed);
	uint32_t nb = t->nblobs < 16 ? t->nblobs : 16;
	const struct tza_exec *e = tza_proc_image_inherited(p);
	memset(fixed, 0, sizeof(fixed));
	memset(blobs, 0, sizeof(blobs));
	uint32_t exe_len = e && e->ctx->exe ? (uint32_t)strlen(e->ctx->exe) : 0;
	uint32_t argv_len = e ? e->argv_len : 0;
	put(fixed, size, t, "start_ns", p->start_ns);
	put(fixed, size, t, "tgid", p->pid);
	put(fixed, size, t, "ppid", p->ppid);
	put(fixed, size, t, "uid", tza_proc_uid(p));
	put(fixed, size, t, "euid", tza_proc_euid(p));
	put(fixed, size, t, "ns_pid", p->ns_pid);
	put(fixed, size, t, "argc", e ? e->argc : 0);
	put(fixed, size, t, "argv_size", e ? e->argv_size : 0);
	put(fixed, size, t, "argv_len", argv_len);
	put(fixed, size, t, "exe_len", exe_len);
	put(fixed, size, t, "flags",
	    ((p->flags & TZA_P_PRE_EXISTING) ? EV_STATE_PRE_EXISTING : 0) |
		    ((p->flags & TZA_P_KTHREAD) ? EV_STATE_KTHREAD : 0) |
		    ((p->flags & TZA_P_ARGV_TRUNCATED) ? EV_STATE_ARGV_TRUNCATED : 0) |
		    ((p->flags & TZA_P_EXITED_BEFORE) ? EV_STATE_EXITED : 0));
	put_chars(fixed, size, t, "comm", p->comm, strnlen(p->comm, sizeof(p->comm)));
	put_blob(blobs, nb, t, "exe", e ? e->ctx->exe : NULL, exe_len);
	put_blob(blobs, nb, t, "argv", e ? e->argv : NULL, argv_len);
	return tz_writer_add(w, t->id, ts, fixed, size, blobs, nb);
}

/* (hier, id) of a cgroup event already copied: keys in *k (n of them). 1 when
 * seen, 0 when added, -1 out of memory. The table is bounded by the
 * recorder's (one entry per id), so a linear look-up is enough. */
static int cg_seen(uint64_t **k, size_t *n, size_t *cap, uint64_t key)
{
	for (size_t i = 0; i < *n; i++)
		if ((*k)[i] == key)
			return 1;
	if (VEC_ROOM(*k, *n, *cap, 64))
		return -1;
	(*k)[(*n)++] = key;
	return 0;
}

/*
 * The facts about the run that the window's events may lack, at `from`
 * (clamped into the window): every cgroup entry of the input (EV_CGROUP,
 * first per (hier, id), state blocks included: a wrapped ring has them only
 * there) that the window's own events do not carry, and every attachment
 * (EV_ATTACH, written at the stop) outside [from, to]. Returns the events
 * written or a negative tz_err.
 */
static int64_t copy_run_facts(tz_reader *r, tz_writer *w, uint64_t from, uint64_t to)
{
	const struct tz_event *ev;
	uint64_t *keys = NULL;
	size_t nk = 0, capk = 0;
	int64_t n = 0;
	int rc = tz_reader_iter(r, 0, UINT64_MAX, TZ_IT_STATE);
	while (rc >= 0 && (rc = tz_reader_next(r, &ev)) > 0) {
		if (!ev->type || (ev->type_id != EV_CGROUP && ev->type_id != EV_ATTACH))
			continue;
		int inside = !(ev->flags & TZ_EVF_STATE) && ev->ts_ns >= from && ev->ts_ns <= to;
		if (ev->type_id == EV_CGROUP) {
			uint64_t key = tz_event_u64(ev, tz_type_field(ev->type, "id")) << 2 |
				       (tz_event_u64(ev, tz_type_field(ev->type, "hier")) & 3);
			int sn = cg_seen(&keys, &nk, &capk, key);
			if (sn < 0) {
				rc = TZ_ERR_NOMEM;
				break;
			}
			if (sn || inside) /* a later copy, or the slice has it */
				continue;
		} else if (inside) {
			continue;
		}
		uint64_t ts = ev->ts_ns < from ? from : ev->ts_ns > to ? to : ev->ts_ns;
		rc = tz_writer_add(w, ev->type_id, ts, ev->fixed, ev->fixed_len, ev->blobs,
				   ev->nblobs);
		n++;
	}
	free(keys);
	return rc < 0 ? rc : n;
}

/* The drop counters reached at `from` as one drops event, every slot */
static int write_drops(tz_writer *w, const struct tz_event_type *t, const uint64_t *drops,
		       uint64_t ts)
{
	uint8_t fixed[1024];
	uint32_t size = t->fixed_size < sizeof(fixed) ? t->fixed_size : sizeof(fixed);
	int any = 0;
	memset(fixed, 0, sizeof(fixed));
	for (int i = 0; i < TZA_NDROP_SLOTS; i++) {
		uint64_t v = drops[tza_drop_slots[i].slot];
		put(fixed, size, t, tza_drop_slots[i].name, v);
		any |= v != 0;
	}
	return any ? tz_writer_add(w, t->id, ts, fixed, size, NULL, 0) : 0;
}

/* The slice's drops_* metadata: the counters reached by its end (what the
 * recorder writes at its stop), total as the recorder counts it. */
static void meta_drops(tz_writer *w, const uint64_t *drops)
{
	char k[64], v[32];
	for (int i = 0; i < TZA_NDROP_SLOTS; i++) {
		snprintf(k, sizeof(k), "drops_%s", tza_drop_slots[i].name);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)drops[tza_drop_slots[i].slot]);
		tz_writer_set_meta(w, k, v);
	}
	snprintf(v, sizeof(v), "%llu", (unsigned long long)tza_drops_lost(drops));
	tz_writer_set_meta(w, "drops_total", v);
}

/*
 * Clipping (docs/tracer-analyze.md, slice). The cumulative counters a slice rebases at
 * its start, in every event that carries them (rebased_type): the first
 * NSAMPLED are in samples too (EV_SAMPLE), and are taken linear between
 * (start, 0), the samples and (exit, total); the others are in the exit
 * event only (and release's switches and faults), and spread evenly over the
 * life.
 */
static const char *const ctr_names[] = {
	"utime_ns", "stime_ns", "rchar", "wchar", "read_bytes", "write_bytes", "syscr", "syscw",
	"cancelled_write_bytes", "nvcsw", "nivcsw", "min_flt", "maj_flt"};
#define NCTR 13
#define NSAMPLED 6

/* A process that crossed the window's start: its counters there */
struct clip {
	uint32_t pid;
	uint64_t start_ns;
	uint64_t base[NCTR];
};

static uint64_t exit_ctr(const struct tza_proc *p, int k)
{
	const uint64_t v[NCTR] = {p->utime_ns,	  p->stime_ns,	 p->rchar,	p->wchar,
				  p->read_bytes,  p->write_bytes, p->syscr,	p->syscw,
				  p->cancelled_write_bytes, p->nvcsw, p->nivcsw, p->min_flt,
				  p->maj_flt};
	return v[k];
}

static uint64_t sample_ctr(const struct tza_sample *x, int k)
{
	const uint64_t v[NSAMPLED] = {x->utime_ns,   x->stime_ns,    x->rchar,
				      x->wchar,	     x->read_bytes,  x->write_bytes};
	return v[k];
}

/* Counter k of p at time t (p's samples kept): see above; past the last
 * point it stays there (a process without an exit and without samples: 0). */
static uint64_t ctr_at(const struct tza_proc *p, int k, uint64_t t)
{
	int ended = !(p->flags & TZA_P_NO_EXIT) && p->end_ns;
	uint32_t ns = k < NSAMPLED ? p->res->nsamples : 0;
	uint64_t t0 = tza_proc_charged_from(p), c0 = 0; /* a slice's slice: its start */
	for (uint32_t i = 0; i <= ns; i++) {
		uint64_t t1, c1;
		if (i < ns) {
			t1 = p->res->samples[i].ts_ns;
			c1 = sample_ctr(&p->res->samples[i], k);
		} else if (ended) {
			t1 = p->end_ns;
			c1 = exit_ctr(p, k);
		} else {
			break;
		}
		if (c1 < c0)
			c1 = c0;
		if (t <= t1) {
			if (t <= t0 || t1 <= t0)
				return t <= t0 ? c0 : c1;
			return c0 + (uint64_t)((double)(c1 - c0) * (double)(t - t0) /
					       (double)(t1 - t0));
		}
		t0 = t1;
		c0 = c1;
	}
	return c0;
}

static int cmp_clip(const void *a, const void *b)
{
	const struct clip *x = a, *y = b;
	CMP_RET(x->pid, y->pid);
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

/* Alive at t in the whole recording's model */
static int alive_at(const struct tza_model *m, const struct tza_proc *p, uint64_t t)
{
	return p->start_ns <= t && tza_proc_end(m, p) > t;
}

/* The processes of all that crossed `from`, sorted for find_clip; NULL with
 * *n = 0 when none; -1 when out of memory. */
static int make_clips(const struct tza_model *all, uint64_t from, struct clip **out, size_t *n)
{
	struct clip *v = NULL;
	size_t k = 0;
	*out = NULL;
	*n = 0;
	for (uint32_t i = 0; i < all->nprocs; i++) {
		const struct tza_proc *p = all->procs[i];
		if (p->start_ns >= from || !alive_at(all, p, from))
			continue;
		if (k % 64 == 0) {
			struct clip *nv = realloc(v, (k + 64) * sizeof(*v));
			if (!nv) {
				free(v);
				return -1;
			}
			v = nv;
		}
		v[k].pid = p->pid;
		v[k].start_ns = p->start_ns;
		for (int c = 0; c < NCTR; c++)
			v[k].base[c] = ctr_at(p, c, from);
		k++;
	}
	if (k)
		qsort(v, k, sizeof(*v), cmp_clip);
	*out = v;
	*n = k;
	return 0;
}

static const struct clip *find_clip(const struct clip *v, size_t n, uint32_t pid, uint64_t start)
{
	struct clip key = {.pid = pid, .start_ns = start};
	return n ? bsearch(&key, v, n, sizeof(*v), cmp_clip) : NULL;
}

/* Whether events of type id carry cumulative counters of one process (tgid,
 * start_ns) that a slice rebases: exit and release (totals), sample (so far),
 * exec (its CPU before the exec: utime_ns, stime_ns) */
static int rebased_type(uint32_t id)
{
	return id == EV_EXIT || id == EV_SAMPLE || id == EV_RELEASE || id == EV_EXEC;
}

/* ev (an exit, release, sample or exec of a process that crossed the start)
 * with its counters counted from the start, added to w */
static int add_rebased(tz_writer *w, const struct tz_event *ev, const struct clip *c)
{
	uint8_t fixed[4096];
	uint32_t size = ev->fixed_len;
	if (size > sizeof(fixed)) /* no layout of ours is near this: keep it whole */
		return tz_writer_add(w, ev->type_id, ev->ts_ns, ev->fixed, ev->fixed_len,
				     ev->blobs, ev->nblobs);
	memcpy(fixed, ev->fixed, size);
	for (int k = 0; k < NCTR; k++) {
		const struct tz_field *f = tz_type_field(ev->type, ctr_names[k]);
		if (!f)
			continue;
		uint64_t v = tz_event_u64(ev, f);
		put(fixed, size, ev->type, ctr_names[k], v > c->base[k] ? v - c->base[k] : 0);
	}
	return tz_writer_add(w, ev->type_id, ev->ts_ns, fixed, size, ev->blobs, ev->nblobs);
}

/* One sample at `to` for every process of all alive then whose use by then
 * is known (exit totals later, or samples): what it used in the window. */
static int write_end_samples(tz_writer *w, const struct tz_event_type *t,
			     const struct tza_model *all, const struct clip *cv, size_t nc,
			     uint64_t to, uint64_t *nout)
{
	uint8_t fixed[1024];
	uint32_t size = t->fixed_size < sizeof(fixed) ? t->fixed_size : sizeof(fixed);
	for (uint32_t i = 0; i < all->nprocs; i++) {
		const struct tza_proc *p = all->procs[i];
		int ended = !(p->flags & TZA_P_NO_EXIT) && p->end_ns;
		if (!alive_at(all, p, to) || (!ended && !p->res->nsamples))
			continue;
		const struct clip *c = find_clip(cv, nc, p->pid, p->start_ns);
		const struct tza_sample *last = NULL;
		for (uint32_t j = 0; j < p->res->nsamples && p->res->samples[j].ts_ns <= to; j++)
			last = &p->res->samples[j];
		memset(fixed, 0, sizeof(fixed));
		put(fixed, size, t, "start_ns", p->start_ns);
		put(fixed, size, t, "tgid", p->pid);
		for (int k = 0; k < NSAMPLED; k++) {
			uint64_t v = ctr_at(p, k, to), b = c ? c->base[k] : 0;
			put(fixed, size, t, ctr_names[k], v > b ? v - b : 0);
		}
		/* its RSS and threads now: its last sample's (the model keeps
		 * their sum, written as anon), else unknown: threads 0, which no
		 * live process has, RSS 0 (what readers before this knew to
		 * show), read back as unknown (model_finish.c settle) */
		put(fixed, size, t, "rss_anon_kib", last ? last->rss_kib : 0);
		put(fixed, size, t, "threads", last ? last->threads : 0);
		int rc = tz_writer_add(w, t->id, to, fixed, size, NULL, 0);
		if (rc < 0)
			return rc;
		(*nout)++;
	}
	return 0;
}

/* One slice being made: the command line, the input and what was read and
 * written. */
struct slice_job {
	const char *in, *out;
	const char *label; /* OUT in the closing line (out unless a member) */
	int force, allow_empty;
	int quiet_empty; /* an empty window: TZA_SLICE_EMPTY, no message */
	tz_reader *r;
	const struct tz_info *info;
	uint64_t from, to;	  /* the window, CLOCK_BOOTTIME ns, inclusive */
	struct tza_model *pre;	  /* up to from - 1: the processes alive at from */
	struct tza_model *all;	  /* the whole recording, samples kept */
	struct clip *cv;	  /* the processes crossing from, by (pid, start) */
	size_t nc;
	uint64_t drops[EV_DROP_SLOTS]; /* the slice's drop counters so far */
	uint64_t nstate, nev, skipped; /* states at from, events copied, unknown types */
};

/* Parse argv into j (in, out, force, allow_empty) and the --from/--to
 * texts. Returns -1 to go on, else the exit code (help or usage error). */
static int slice_options(int argc, char **argv, struct slice_job *j, const char **from_s,
			 const char **to_s)
{
	const char *o_out = NULL;
	const struct tza_option opts[] = {
		OPT_STRING(0, "from", "T", from_s, "window start (default: trace start)"),
		OPT_STRING(0, "to", "T", to_s, "window end (default: trace end)"),
		OPT_FLAG(0, "allow-empty", &j->allow_empty,
			 "write OUT also when no process was alive and no event\n"
			 "happened in the window (otherwise an error, exit 1)"),
		OPT_STRING('o', "output", "OUT", &o_out,
			   "write OUT (as the second operand does: IN OUT)"),
		OPT_FLAG('f', "force", &j->force, "overwrite OUT if it exists"),
		OPT_END_TRACE,
	};
	int rc = tza_options_parse(&slice_spec, opts, argc, argv);
	if (rc >= 0)
		return rc;
	return tza_in_out(&slice_spec, argc, argv, o_out, &j->in, &j->out);
}

/* Open j->in and check it whole, the window its first to last event.
 * Returns -1 to go on, else the exit code (j->r is then freed by the
 * caller). */
static int slice_open_in(struct slice_job *j)
{
	j->r = tza_open(j->in, NULL);
	if (!j->r || tza_check_whole(j->r, j->in, 0) < 0)
		return TZA_EXIT_FAIL;
	j->info = tz_reader_info(j->r);
	j->from = j->info->first_ts_ns;
	j->to = j->info->last_ts_ns;
	return -1;
}

/* slice_open_in, then the window of --from and --to. Returns -1 to go on,
 * else the exit code (j->r is then freed by the caller). */
static int slice_open(struct slice_job *j, const char *from_s, const char *to_s)
{
	int rc = slice_open_in(j);
	if (rc >= 0)
		return rc;
	if ((from_s && tza_parse_time(j->r, "--from", from_s, &j->from) < 0) ||
	    (to_s && tza_parse_time(j->r, "--to", to_s, &j->to) < 0))
		return TZA_EXIT_USAGE;
	if (j->to < j->from) {
		tza_err("slice: --to is before --from");
		return TZA_EXIT_USAGE;
	}
	return -1;
}

/* Read j->pre, j->all and the clips. Returns 0, or < 0 (message printed). */
static int slice_models(struct slice_job *j)
{
	/* processes alive at `from`: from the newest state block before it on */
	const struct tz_event *ev;
	uint64_t s0 = 0;
	int rc = tz_reader_iter(j->r, j->from, j->to, TZ_IT_STATE);
	/* (the state block the reader gives first is the one written before the
	 * window's first chunk: its time may be after `from` when that chunk
	 * holds older events; the model is then built from the file's start) */
	if (rc >= 0 && (rc = tz_reader_next(j->r, &ev)) > 0 && (ev->flags & TZ_EVF_STATE) &&
	    ev->ts_ns < j->from)
		s0 = ev->ts_ns;
	if (rc >= 0 && j->from > j->info->first_ts_ns)
		rc = tza_model_read(j->in, j->r, s0, j->from - 1, TZA_MB_LIFETIME, &j->pre);
	/* the whole recording, samples kept: what crossing processes used
	 * before the window and by its end */
	if (rc >= 0)
		rc = tza_model_read(j->in, j->r, 0, UINT64_MAX, TZA_MB_SAMPLES | TZA_MB_LIFETIME,
				    &j->all);
	if (rc >= 0 && make_clips(j->all, j->from, &j->cv, &j->nc) < 0)
		rc = TZ_ERR_NOMEM;
	if (rc < 0) {
		const char *msg = tz_reader_errmsg(j->r);
		tza_err("%s", msg && *msg ? msg : tz_strerror(rc));
	}
	return rc < 0 ? rc : 0;
}

/* OUT's metadata (IN's, then where the slice comes from) and IN's types. */
static int slice_head(tz_writer *w, const struct slice_job *j)
{
	for (size_t i = 0; i < tz_reader_meta_count(j->r); i++) {
		const char *k, *v;
		if (tz_reader_meta_at(j->r, i, &k, &v) == 0)
			tz_writer_set_meta(w, k, v);
	}
	char b[64];
	tz_writer_set_meta(w, "slice_of", j->in);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)j->from);
	tz_writer_set_meta(w, "slice_from_boottime_ns", b);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)j->to);
	tz_writer_set_meta(w, "slice_to_boottime_ns", b);
	int64_t rt;
	if (tza_realtime(j->r, j->from, &rt) == 0) { /* keep the recording's wall clock */
		snprintf(b, sizeof(b), "%lld", (long long)(rt - (int64_t)j->from));
		tz_writer_set_meta(w, "realtime_offset_ns", b);
	}
	int rc = 0;
	for (size_t i = 0; i < tz_reader_type_count(j->r) && rc >= 0; i++)
		rc = tz_writer_add_type(w, tz_reader_type_at(j->r, i));
	return rc;
}

/* What OUT holds at `from`: a state per process alive then, the drop
 * counters reached by then, the run's cgroup table and attachments.
 * Returns 0 or a writer error (< 0). */
static int slice_prelude(tz_writer *w, struct slice_job *j)
{
	const struct tz_event_type *st = tz_reader_type_by_id(j->r, EV_PROC_STATE);
	const struct tz_event_type *dt = tz_reader_type_by_id(j->r, EV_DROPS);
	int rc;
	if (j->pre && st) {
		for (uint32_t i = 0; i < j->pre->nprocs; i++) {
			struct tza_proc *p = j->pre->procs[i];
			if (!(p->flags & TZA_P_NO_EXIT))
				continue;
			if ((rc = write_state(w, st, p, j->from)) < 0)
				return rc;
			j->nstate++;
		}
	}
	if (j->pre)
		memcpy(j->drops, j->pre->drops, sizeof(j->drops));
	if (dt && (rc = write_drops(w, dt, j->drops, j->from)) < 0)
		return rc;
	int64_t nfacts = copy_run_facts(j->r, w, j->from, j->to);
	return nfacts < 0 ? (int)nfacts : 0;
}

/* Copy the window's events, the counters of processes crossing `from`
 * rebased. Returns 0, or < 0 with *werr set when the writer failed (else
 * the reader did). */
static int slice_events(tz_writer *w, struct slice_job *j, int *werr)
{
	const struct tz_event *ev;
	int rc = tz_reader_iter(j->r, j->from, j->to, 0);
	while (rc >= 0 && (rc = tz_reader_next(j->r, &ev)) > 0) {
		if (!ev->type) {
			j->skipped++;
			continue;
		}
		if (ev->type_id == EV_DROPS) /* cumulative: the last one is the slice's */
			for (int i = 0; i < TZA_NDROP_SLOTS; i++)
				j->drops[tza_drop_slots[i].slot] = tz_event_u64(
					ev, tz_type_field(ev->type, tza_drop_slots[i].name));
		const struct clip *cl = NULL;
		if (rebased_type(ev->type_id) && j->nc)
			cl = find_clip(j->cv, j->nc,
				       (uint32_t)tz_event_u64(ev, tz_type_field(ev->type, "tgid")),
				       tz_event_u64(ev, tz_type_field(ev->type, "start_ns")));
		if (cl)
			rc = add_rebased(w, ev, cl);
		else
			rc = tz_writer_add(w, ev->type_id, ev->ts_ns, ev->fixed, ev->fixed_len,
					   ev->blobs, ev->nblobs);
		if (rc < 0) {
			*werr = 1;
			return rc;
		}
		j->nev++;
	}
	return rc < 0 ? rc : 0;
}

/* Whether the window holds nothing worth a file: no event in it, and no
 * process alive or past the trace's end (message printed unless
 * --allow-empty). */
static int slice_refuse_empty(const struct slice_job *j)
{
	if (j->nev || (j->nstate && j->from <= j->info->last_ts_ns) || j->allow_empty)
		return 0;
	if (j->quiet_empty)
		return 1;
	char a[40], b2[40];
	tza_err("'%s': slice: nothing between --from %s and --to %s (no event, no process "
		"alive); '%s' not written (--allow-empty writes it)",
		j->in, tza_fmt_dur(a, sizeof(a), j->from - j->info->first_ts_ns),
		tza_fmt_dur(b2, sizeof(b2), j->to - j->info->first_ts_ns), j->out);
	return 1;
}

/* Write OUT from an open, checked j. Returns TZA_EXIT_OK or TZA_EXIT_FAIL
 * (message printed, OUT removed). */
static int slice_write(struct slice_job *j)
{
	tz_writer *w = NULL;
	struct tz_writer_opts wo;
	memset(&wo, 0, sizeof(wo));
	wo.flags = j->force ? TZ_W_OVERWRITE : 0;
	wo.name = j->label; /* a host of a run: its hidden file shown as OUT[i] */
	int rc = tz_writer_open(&w, j->out, &wo), werr = 0;
	if (rc < 0) {
		if (rc == TZ_ERR_EXISTS)
			tza_err("'%s': file exists (use -f to overwrite)", j->out);
		else
			tza_err("%s", w ? tz_writer_errmsg(w) : tz_strerror(rc));
		tz_writer_free(w);
		return TZA_EXIT_FAIL;
	}
	if ((rc = slice_head(w, j)) < 0 || (rc = slice_prelude(w, j)) < 0)
		goto werr;
	if ((rc = slice_events(w, j, &werr)) < 0 && werr)
		goto werr;
	if (rc < 0) {
		const char *msg = tz_reader_errmsg(j->r);
		tza_err("%s", msg && *msg ? msg : tz_strerror(rc));
		goto fail;
	}
	if (tza_check_whole(j->r, j->in, 1) < 0)
		goto fail;
	if (slice_refuse_empty(j)) {
		tz_writer_free(w);
		unlink(j->out);
		return j->quiet_empty ? TZA_SLICE_EMPTY : TZA_EXIT_FAIL;
	}
	const struct tz_event_type *smt = tz_reader_type_by_id(j->r, EV_SAMPLE);
	uint64_t nend = 0;
	if (smt && (rc = write_end_samples(w, smt, j->all, j->cv, j->nc, j->to, &nend)) < 0)
		goto werr;
	/* a reader knows crossing processes' counters count from the start */
	tz_writer_set_meta(w, "slice_counters", "window");
	/* and so do the CPU-before fields of their exec events (rebased_type),
	 * unless IN is a slice written before they were (its whole-life ones
	 * cannot be told from window ones) */
	if (!tz_reader_meta_get(j->r, "slice_counters") ||
	    tz_reader_meta_get(j->r, "slice_exec_cpu"))
		tz_writer_set_meta(w, "slice_exec_cpu", "window");
	meta_drops(w, j->drops);
	struct tz_writer_stats ws; /* every event the file holds */
	tz_writer_stats(w, &ws);
	if ((rc = tz_writer_close(w)) < 0) {
		tza_err("'%s': %s", j->out, tz_strerror(rc));
		unlink(j->out);
		return TZA_EXIT_FAIL;
	}
	/* what the file holds (info's count): the window's events, a state
	 * record per process alive at the start, an end sample per process
	 * alive at the end, and the run's tables (cgroups, drops) */
	fprintf(stderr,
		"tracer-analyze: '%s': %llu event%s written: %llu in the window, %llu process%s "
		"alive at the start, %llu end sample%s, %llu more (cgroups, drops)%s\n",
		j->label ? j->label : j->out, (unsigned long long)ws.events, tza_plural(ws.events),
		(unsigned long long)j->nev, (unsigned long long)j->nstate,
		j->nstate == 1 ? "" : "es", (unsigned long long)nend, tza_plural(nend),
		(unsigned long long)(ws.events > j->nev + j->nstate + nend
					 ? ws.events - j->nev - j->nstate - nend
					 : 0),
		j->skipped ? " (events of unknown types skipped)" : "");
	return TZA_EXIT_OK;
werr:
	/* the writer's detail names the file already */
	if (tz_writer_errmsg(w)[0])
		tza_err("%s", tz_writer_errmsg(w));
	else
		tza_err("'%s': %s", j->label ? j->label : j->out, tz_strerror(rc));
fail:
	tz_writer_free(w);
	unlink(j->out);
	return TZA_EXIT_FAIL;
}

static void slice_free(struct slice_job *j)
{
	free(j->cv);
	tza_model_free(j->all);
	tza_model_free(j->pre);
	tz_reader_free(j->r);
}

int tza_slice_write(const struct tza_slice_req *q)
{
	struct slice_job j = {.in = q->in,
			      .out = q->out,
			      .label = q->label,
			      .force = q->force,
			      .allow_empty = q->allow_empty,
			      .quiet_empty = q->quiet_empty};
	int ret = slice_open_in(&j);
	if (ret < 0) {
		if (q->have_from)
			j.from = q->from;
		if (q->have_to)
			j.to = q->to;
		ret = slice_models(&j) < 0 ? TZA_EXIT_FAIL : slice_write(&j);
	}
	slice_free(&j);
	return ret;
}

int cmd_slice(int argc, char **argv)
{
	struct slice_job j = {0};
	const char *from_s = NULL, *to_s = NULL;
	int ret = slice_options(argc, argv, &j, &from_s, &to_s);
	if (ret >= 0)
		return ret;
	if (tza_refuse_dir(j.out, "an output file"))
		return TZA_EXIT_FAIL;
	if (tza_refuse_out_is_in("slice", j.out, j.in))
		return TZA_EXIT_FAIL;
	if (tza_fleet_wanted((char **)&j.in, 1))
		return tza_slice_hosts(j.in, j.out, j.force, j.allow_empty, from_s, to_s);
	ret = slice_open(&j, from_s, to_s);
	if (ret < 0)
		ret = slice_models(&j) < 0 ? TZA_EXIT_FAIL : slice_write(&j);
	slice_free(&j);
	return ret;
}
