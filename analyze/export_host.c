/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * export_host.c - `export --host`: host samples, columns from the schema.
 */
#include <stdint.h>
#include <string.h>

#include "tz.h"
#include "analyze.h"
#include "export.h"
#include "json.h"
#include "model.h"
#include "report.h"
#include "textsafe.h"

static const struct tz_event_type *host_type(tz_reader *r)
{
	for (size_t i = 0, n = tz_reader_type_count(r); i < n; i++) {
		const struct tz_event_type *t = tz_reader_type_at(r, i);
		if (t && !strcmp(t->name, "host_sample"))
			return t;
	}
	return NULL;
}

static int is_signed(uint8_t ft)
{
	return ft >= TZ_F_I8 && ft <= TZ_F_I64;
}

static int is_int(uint8_t ft)
{
	return ft >= TZ_F_U8 && ft <= TZ_F_I64;
}

/* the bytes of a text field: a fixed char array up to its NUL, or a blob */
static struct tz_blob text_of(const struct tz_event *ev, const struct tz_field *f)
{
	if (f->type == TZ_F_STR || f->type == TZ_F_STRV)
		return tz_event_blob(ev, f);
	struct tz_blob b = {"", 0};
	if (f->offset < ev->fixed_len) {
		uint32_t n = ev->fixed_len - f->offset < f->size ? ev->fixed_len - f->offset : f->size;
		const uint8_t *p = ev->fixed + f->offset;
		const void *z = f->type == TZ_F_CHARS ? memchr(p, 0, n) : NULL;
		b.data = p;
		b.len = z ? (uint32_t)((const uint8_t *)z - p) : n;
	}
	return b;
}

static void header(struct tza_line *l, const struct tz_event_type *t, char sep,
		   const struct tza_xfleet *x)
{
	if (x) {
		tza_line_puts(l, x->head);
		tza_line_putc(l, sep);
	}
	tza_line_lit(l, "t_s");
	tza_line_putc(l, sep);
	tza_line_lit(l, "t_utc");
	if (x) {
		tza_line_putc(l, sep);
		tza_line_lit(l, "t_epoch_ns");
	}
	for (uint16_t i = 0; t && i < t->nfields; i++) {
		tza_line_putc(l, sep);
		tza_line_puts(l, t->fields[i].name);
	}
	tza_line_putc(l, '\n');
}

static void row(struct tza_line *l, struct tza_model *m, const struct tz_event *ev, int kind,
		const struct tza_xfleet *x)
{
	const struct tz_event_type *t = ev->type;
	char sep = kind == 2 ? '\t' : ',', b[48];
	int64_t rt;
	const char *utc = tza_realtime(m->reader, ev->ts_ns, &rt) < 0
				  ? NULL
				  : tza_fmt_utc(rt, b, sizeof(b));
	if (x)
		tza_line_put(l, x->pre.p, x->pre.n);
	if (kind == 0) {
		tza_line_puts(l, x ? ",\"t_s\":" : "{\"t_s\":");
		tza_line_json_secs(l, (int64_t)(ev->ts_ns - m->t0_ns));
		tza_line_lit(l, ",\"t_utc\":");
		tza_line_json_cstr(l, utc);
		if (x)
			tza_line_lit(l, ",\"t_epoch_ns\":");
	} else {
		if (x)
			tza_line_putc(l, sep);
		tza_line_fixed(l, (double)(int64_t)(ev->ts_ns - m->t0_ns) / 1e9, 9);
		tza_line_putc(l, sep);
		if (utc)
			tza_line_puts(l, utc);
		if (x)
			tza_line_putc(l, sep);
	}
	if (x && utc)
		tza_line_i64(l, rt);
	else if (x && kind == 0)
		tza_line_lit(l, "null");
	for (uint16_t i = 0; i < t->nfields; i++) {
		const struct tz_field *f = &t->fields[i];
		if (kind == 0) {
			tza_line_putc(l, ',');
			tza_line_json_cstr(l, f->name);
			tza_line_putc(l, ':');
		} else {
			tza_line_putc(l, sep);
		}
		if (is_int(f->type)) {
			if (is_signed(f->type))
				tza_line_i64(l, tz_event_i64(ev, f));
			else
				tza_line_u64(l, tz_event_u64(ev, f));
			continue;
		}
		struct tz_blob s = text_of(ev, f);
		if (kind == 0)
			tza_line_json_str(l, s.data, s.len);
		else
			tza_safe_line_quoted(l, s.data, s.len);
	}
	if (kind == 0)
		tza_line_putc(l, '}');
	tza_line_putc(l, '\n');
}

int tza_export_host(FILE *f, struct tza_model *m, int kind, const struct tza_xfleet *x,
		    struct tza_line *head)
{
	tz_reader *r = m->reader;
	const struct tz_event_type *t = host_type(r);
	struct tza_line l = {0};
	int bad = 0;
	if (kind) {
		header(&l, t, kind == 2 ? '\t' : ',', x);
		/* a trace without host samples has no rows to misalign */
		if (t && head->n && (head->n != l.n || memcmp(head->p, l.p, l.n))) {
			tza_line_free(&l);
			return -2;
		}
		if (!head->n) {
			tza_line_put(head, l.p, l.n);
			bad |= tza_line_write(&l, f) || head->err;
		}
		l.n = 0;
	}
	if (t && tz_reader_iter(r, 0, UINT64_MAX, 0) == 0) {
		const struct tz_event *ev;
		int rc;
		while ((rc = tz_reader_next(r, &ev)) > 0) {
			if (ev->type != t)
				continue;
			row(&l, m, ev, kind, x);
			bad |= tza_line_write(&l, f);
		}
		bad |= rc < 0;
	}
	tza_line_free(&l);
	return bad ? -1 : 0;
}
