/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tzdecode FILE - print the "expected decoding" of a .tz file in the plain
 * form of tests/data/conformance/README.md: what the file is, its counters,
 * every block as the verify walk finds it, every event in time order (state
 * and unknown-type events included) and the process table rebuilt by
 * analyze/model.c. The conformance test diffs it against NAME.expect; a
 * third-party reader produces the same text from docs/FORMAT.md and
 * docs/EVENTS.md. Exit 0 whenever the decoding was printed (damage is part
 * of the decoding), 2 on a usage or memory error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/model.h"
#include "bpf/events.h"
#include "tz.h"

static const char *err_name(int e)
{
	static const char *n[] = {"OK",		  "IO",	      "NOMEM",	 "INVAL",     "MAGIC",
				  "VERSION",	  "INCOMPAT", "CORRUPT", "TRUNCATED", "CHECKSUM",
				  "ZSTD",	  "LIMIT",    "STATE",	 "NOSPC",     "EXISTS",
				  "UNKNOWN_TYPE", "SEQ",      "MULTI"};
	return e <= 0 && -e < (int)(sizeof(n) / sizeof(n[0])) ? n[-e] : "?";
}

/* bytes 0x20..0x7e but '"' and '\' as they are, everything else \xHH */
static void quote(const uint8_t *p, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
			putchar(p[i]);
		else
			printf("\\x%02x", p[i]);
	}
	putchar('"');
}

/* NUL-terminated strings; an unterminated last one is printed, then '+' */
static void argv_list(const uint8_t *p, size_t n)
{
	putchar('[');
	size_t i = 0;
	while (i < n) {
		const uint8_t *z = memchr(p + i, 0, n - i);
		size_t len = z ? (size_t)(z - (p + i)) : n - i;
		if (i)
			putchar(',');
		quote(p + i, len);
		i += len + (z != NULL);
		if (!z)
			putchar('+');
	}
	putchar(']');
}

static void field(const struct tz_event *ev, const struct tz_field *f)
{
	uint32_t len;
	const uint8_t *b;
	struct tz_blob bl;
	printf(" %s=", f->name);
	switch (f->type) {
	case TZ_F_I8:
	case TZ_F_I16:
	case TZ_F_I32:
	case TZ_F_I64:
		printf("%" PRId64, tz_event_i64(ev, f));
		break;
	case TZ_F_CHARS:
		b = tz_event_bytes(ev, f, &len);
		if (!b)
			len = 0;
		const uint8_t *z = b ? memchr(b, 0, len) : NULL;
		quote(b, z ? (size_t)(z - b) : len);
		break;
	case TZ_F_BYTES:
		b = tz_event_bytes(ev, f, &len);
		for (uint32_t i = 0; b && i < len; i++)
			printf("%02x", b[i]);
		if (!b || !len)
			putchar('-');
		break;
	case TZ_F_STR:
		bl = tz_event_blob(ev, f);
		quote(bl.data, bl.len);
		break;
	case TZ_F_STRV:
		bl = tz_event_blob(ev, f);
		argv_list(bl.data, bl.len);
		break;
	default:
		printf("%" PRIu64, tz_event_u64(ev, f));
	}
}

static const char *ftype(unsigned t)
{
	static const char *n[] = {"?",	 "u8",	"u16",	 "u32",	  "u64", "i8",	"i16",
				  "i32", "i64", "chars", "bytes", "str", "strv"};
	return t < sizeof(n) / sizeof(n[0]) ? n[t] : "?";
}

static int block_cb(void *ctx, const struct tz_block_info *b)
{
	(void)ctx;
	printf("block: %" PRIu64 " %s seq=%" PRIu64 " size=%" PRIu64, b->offset, b->what, b->seq,
	       b->size);
	if (b->type == 3 || b->type == 4)
		printf(" events=%" PRIu64 " ts=%" PRIu64 "..%" PRIu64, b->events, b->min_ts_ns,
		       b->max_ts_ns);
	printf(" %s\n", b->status ? err_name(b->status) : "ok");
	return 0;
}

static void proc_line(const struct tza_proc *p)
{
	char id[TZA_ID_MAX], pid[TZA_ID_MAX];
	printf("proc: %s parent=%s ppid=%u start=%" PRIu64, tza_proc_id(p, id),
	       p->parent ? tza_proc_id(p->parent, pid) : "-", p->ppid, p->start_ns);
	if (p->flags & TZA_P_EXITED_BEFORE) /* a zombie at the start: not lost */
		printf(" end=%" PRIu64 " exited_before", p->end_ns);
	else if (p->flags & TZA_P_NO_EXIT)
		printf(" end=- %s", p->flags & TZA_P_EXIT_LOST ? "lost" : "running");
	else if (p->signal)
		printf(" end=%" PRIu64 " signal=%d%s", p->end_ns, p->signal,
		       p->core_dumped ? "+core" : "");
	else
		printf(" end=%" PRIu64 " exit=%d", p->end_ns, p->exit_code);
	const struct tza_exec *e = tza_proc_image(p);
	printf(" execs=%" PRIu64 " comm=", (uint64_t)p->nexecs + p->res->nexecs_omitted);
	quote((const uint8_t *)p->comm, strnlen(p->comm, sizeof(p->comm)));
	printf(" exe=");
	if (e && e->ctx->exe)
		quote((const uint8_t *)e->ctx->exe, strlen(e->ctx->exe));
	else
		putchar('-');
	printf(" argv=");
	if (e)
		argv_list(e->argv, e->argv_len);
	else
		putchar('-');
	static const struct {
		uint32_t bit;
		const char *name;
	} fl[] = {{TZA_P_PRE_EXISTING, "pre_existing"},	    {TZA_P_NO_FORK, "no_fork"},
		  {TZA_P_FROM_STATE, "from_state"},	    {TZA_P_REPARENTED, "reparented"},
		  {TZA_P_ARGV_TRUNCATED, "argv_truncated"}, {TZA_P_KTHREAD, "kthread"},
		  {TZA_P_RELEASED, "cpu_final"}};
	printf(" flags=");
	int any = 0;
	for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++)
		if (p->flags & fl[i].bit)
			printf("%s%s", any++ ? "," : "", fl[i].name);
	if (!any)
		putchar('-');
	putchar('\n');
}

/* Images with the issue-17 fields (cwd, env, v1 memory cgroup), the peak
 * RSS of processes with exec version 3's fields, the cgroup table and the
 * attachments (README lines 11-14) */
static void extra_lines(const struct tza_model *m)
{
	char id[TZA_ID_MAX];
	for (uint32_t i = 0; i < m->nprocs; i++) {
		const struct tza_proc *p = m->procs[i];
		for (uint32_t k = 0; k < p->nexecs; k++) {
			const struct tza_exec *e = &p->execs[k];
			if (!e->ctx->cwd && !e->ctx->env_len && !e->ctx->memcg_id)
				continue;
			printf("image: %s %u cwd=", tza_proc_id(p, id), k);
			if (e->ctx->cwd)
				quote((const uint8_t *)e->ctx->cwd, strlen(e->ctx->cwd));
			else
				putchar('-');
			printf("%s memcg=%" PRIu64 " env=",
			       e->flags & EV_EXEC_CWD_TRUNCATED ? "+" : "", e->ctx->memcg_id);
			argv_list((const uint8_t *)e->ctx->env, e->ctx->env_len);
			putchar('\n');
		}
	}
	for (uint32_t i = 0; i < m->nprocs; i++) {
		const struct tza_proc *p = m->procs[i];
		uint32_t k = 0;
		while (k < p->nexecs && !(p->execs[k].byname_known & (1u << TZA_XB_prev_maxrss_kib)))
			k++;
		if (k == p->nexecs)
			continue;
		printf("rss: %s peak=%" PRIu64 " images=[", tza_proc_id(p, id),
		       tza_proc_peak_rss_kib(p));
		for (k = 0; k < p->nexecs; k++) {
			int64_t r = tza_exec_peak_rss_kib(p, k);
			if (k)
				putchar(',');
			if (r < 0)
				putchar('-');
			else
				printf("%" PRId64, r);
		}
		puts("]");
	}
	const struct tza_cgroup *cg;
	uint32_t ncg = tza_model_cgroups(m, &cg);
	for (uint32_t i = 0; i < ncg; i++) {
		printf("cgroup: %u %" PRIu64 " path=", cg[i].hier, cg[i].id);
		quote((const uint8_t *)cg[i].path, strlen(cg[i].path));
		printf(" mem=%" PRIu64 " quota=%" PRIu64 " period=%" PRIu64 " flags=%u\n",
		       cg[i].mem_limit_bytes, cg[i].cpu_quota_us, cg[i].cpu_period_us, cg[i].flags);
	}
	const struct tza_attachment *a;
	uint32_t na = tza_model_attachments(m, &a);
	for (uint32_t i = 0; i < na; i++) {
		printf("attach: ");
		quote((const uint8_t *)a[i].name, strlen(a[i].name));
		printf(" len=%" PRIu64 " size=%" PRIu64 " flags=%u mtime=%" PRIu64 " data=", a[i].len,
		       a[i].size, a[i].flags, a[i].mtime_ns);
		quote(a[i].data, a[i].len);
		putchar('\n');
	}
}

/* Where a trace's bytes come from: a path, or member i of a container. */
struct src {
	const char *path;
	tz_multi *mt;
	size_t i;
};

static int src_open(const struct src *o, tz_reader **r)
{
	return o->mt ? tz_multi_reader(o->mt, o->i, r) : tz_reader_open(r, o->path, NULL);
}

/* One trace's decoding (the whole file, or one member); r is open. */
static void decode(const struct src *o, tz_reader *r)
{
	int rc;
	printf("open: ok\n");
	const struct tz_info *in = tz_reader_info(r);
	printf("file: version=%u.%u ring=%d footer=%d unfinished=%d\n", in->major, in->minor,
	       in->ring, in->has_footer, in->unfinished);
	size_t nm = tz_reader_meta_count(r);
	for (size_t i = 0; i < nm; i++) {
		const char *k, *v;
		if (tz_reader_meta_at(r, i, &k, &v) == 0) {
			printf("meta: %s=", k);
			quote((const uint8_t *)v, strlen(v));
			putchar('\n');
		}
	}
	size_t nt = tz_reader_type_count(r);
	for (size_t i = 0; i < nt; i++) {
		const struct tz_event_type *t = tz_reader_type_at(r, i);
		printf("type: %u %s version=%u fixed=%u state=%d", t->id, t->name, t->version,
		       t->fixed_size, !!(t->flags & TZ_TYPE_STATE));
		for (uint16_t j = 0; j < t->nfields; j++)
			printf(" %s:%s@%u+%u", t->fields[j].name, ftype(t->fields[j].type),
			       t->fields[j].offset, t->fields[j].size);
		putchar('\n');
	}

	/* every block, every event: chunk damage is counted as it is met */
	tz_reader *rv = NULL;
	if (src_open(o, &rv) == 0) {
		int bad = tz_reader_verify(rv, block_cb, NULL);
		printf("verify: %s\n", bad < 0 ? err_name(bad) : bad ? "damaged" : "ok");
	}
	tz_reader_free(rv);
	rc = tz_reader_iter(r, 0, UINT64_MAX, TZ_IT_STATE | TZ_IT_UNKNOWN);
	const struct tz_event *ev;
	while (rc == 0 && (rc = tz_reader_next(r, &ev)) > 0) {
		int64_t wall;
		printf("event: %" PRIu64, ev->ts_ns);
		if (tz_reader_realtime(r, ev->ts_ns, &wall) == 0)
			printf(" %" PRId64, wall);
		else
			printf(" -");
		printf(" %s", ev->flags & TZ_EVF_STATE ? "state " : "");
		if (!ev->type) {
			printf("#%u fixed_len=%u nblobs=%u\n", ev->type_id, ev->fixed_len,
			       ev->nblobs);
			rc = 0;
			continue;
		}
		printf("%s", ev->type->name);
		for (uint16_t j = 0; j < ev->type->nfields; j++)
			field(ev, &ev->type->fields[j]);
		putchar('\n');
		rc = 0;
	}
	if (rc < 0)
		printf("iter: %s\n", err_name(rc));
	printf("counts: chunks=%" PRIu64 " state_blocks=%" PRIu64 " events=%" PRIu64
	       " dropped=%" PRIu64 " corrupt_blocks=%" PRIu64 " duplicate_blocks=%" PRIu64
	       " torn_tail_bytes=%" PRIu64 "\n",
	       in->chunks, in->state_blocks, in->events, in->dropped, in->corrupt_blocks,
	       in->duplicate_blocks, in->torn_tail_bytes);

	tz_reader *rm = NULL;
	struct tza_model *m = NULL;
	if (src_open(o, &rm) == 0 &&
	    tza_model_build_ex(rm, 0, UINT64_MAX, TZA_MB_SERIAL, &m) == 0) {
		for (uint32_t i = 0; i < m->nprocs; i++)
			proc_line(m->procs[i]);
		extra_lines(m);
	} else {
		printf("model: error\n");
	}
	tza_model_free(m);
	tz_reader_free(rm);
}

static void hex16(const uint8_t *b)
{
	for (int i = 0; i < 16; i++)
		printf("%02x", b[i]);
}

/* A multi-host trace (FORMAT.md 18): the container's walk, then each
 * member's decoding; a later copy of a uuid is listed, not decoded ([X3]). */
static void decode_multi(const char *path, int salvage)
{
	tz_multi *mt = NULL;
	const struct tz_reader_opts so = {.flags = TZ_R_SALVAGE};
	int rc = tz_multi_open(&mt, path, salvage ? &so : NULL);
	if (rc < 0) {
		printf("multi: %s\n", err_name(rc));
		tz_multi_free(mt);
		return;
	}
	printf("multi: members=%zu damage=%" PRIu64 "\n", tz_multi_count(mt),
	       tz_multi_damage(mt));
	for (size_t i = 0; i < tz_multi_count(mt); i++) {
		const struct tz_member *me = tz_multi_member(mt, i);
		struct src o = {path, mt, i};
		tz_reader *r = NULL;
		printf("member: %zu offset=%" PRIu64 " len=%" PRIu64 " uuid=", i, me->off, me->len);
		hex16(me->uuid);
		printf(" boot_id=");
		hex16(me->boot_id);
		printf(" flags=%u cut=%d duplicate_of=%d source=", me->flags, me->cut, me->dup_of);
		quote((const uint8_t *)me->source, strlen(me->source));
		printf(" hostname=");
		quote((const uint8_t *)me->hostname, strlen(me->hostname));
		if (salvage)
			printf(" salvaged=%d", me->salvaged);
		putchar('\n');
		if (me->dup_of >= 0)
			continue;
		rc = src_open(&o, &r);
		if (rc < 0)
			printf("open: %s\n", err_name(rc));
		else
			decode(&o, r);
		tz_reader_free(r);
		printf("end member: %zu\n", i);
	}
	tz_multi_free(mt);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: tzdecode FILE\n");
		return 2;
	}
	tz_reader *r = NULL;
	struct src o = {argv[1], NULL, 0};
	int rc = tz_reader_open(&r, argv[1], NULL);
	printf("tz-decoding 1\n");
	const char *base = strrchr(argv[1], '/');
	base = base ? base + 1 : argv[1];
	if (!strncmp(base, "salvage-", 8)) { /* a recoverer's reading, FORMAT.md [X5] */
		printf("open: SALVAGE\n");
		decode_multi(argv[1], 1);
	} else if (rc == TZ_ERR_MULTI) {
		printf("open: MULTI\n");
		decode_multi(argv[1], 0);
	} else if (rc < 0) {
		printf("open: %s\n", err_name(rc));
	} else {
		decode(&o, r);
	}
	tz_reader_free(r);
	return 0;
}
