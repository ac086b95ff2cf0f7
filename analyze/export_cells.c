/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * export_cells.c - the cells export's csv/tsv/jsonl writers share: csv/tsv
 * quoting, one cell of a row in any of the three formats, and the fleet
 * columns (export.h).
 */
#include <string.h>

#include "export.h"
#include "fleet.h"
#include "json.h"
#include "report.h"
#include "textsafe.h"

void tza_sv_quote(struct tza_line *l, const char *s, size_t len, int tsv)
{
	if (tsv) {
		for (size_t i = 0; i < len; i++) {
			switch (s[i]) {
			case '\t': tza_line_lit(l, "\\t"); break;
			case '\n': tza_line_lit(l, "\\n"); break;
			case '\r': tza_line_lit(l, "\\r"); break;
			case '\\': tza_line_lit(l, "\\\\"); break;
			default: tza_line_putc(l, s[i]);
			}
		}
		return;
	}
	size_t k = 0;
	while (k < len && s[k] != ',' && s[k] != '"' && s[k] != '\n' && s[k] != '\r')
		k++;
	if (k == len) {
		tza_line_put(l, s, len);
		return;
	}
	tza_line_putc(l, '"');
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			tza_line_putc(l, '"');
		tza_line_putc(l, s[i]);
	}
	tza_line_putc(l, '"');
}

/* One csv/tsv field of trace bytes: their safe form (textsafe.h: control
 * bytes and invalid UTF-8 escaped, \t \n \r \\ among them), then tza_sv_quote */
static void sv_field(struct tza_line *l, const char *s, size_t len, int tsv)
{
	struct tza_line e = {0};
	if (tza_safe_plain(s, len)) {
		tza_sv_quote(l, s, len, tsv);
		return;
	}
	tza_safe_line(&e, s, len);
	if (e.err)
		l->err = 1;
	else if (tsv) /* the safe form holds no tab or newline: a tsv field */
		tza_line_put(l, e.p, e.n);
	else
		tza_sv_quote(l, e.p, e.n, 0);
	tza_line_free(&e);
}

void tza_sv_str(struct tza_line *l, const char *s, int tsv)
{
	sv_field(l, s ? s : "", s ? strlen(s) : 0, tsv);
}

static void cell_sep(struct tza_cells *c, const char *name)
{
	if (c->kind == 0) {
		tza_line_puts(c->l, c->n++ ? ",\"" : "{\"");
		tza_line_puts(c->l, name);
		tza_line_lit(c->l, "\":");
	} else if (c->n++) {
		tza_line_putc(c->l, c->kind == 2 ? '\t' : ',');
	}
}

void tza_cell_str(struct tza_cells *c, const char *name, const char *v)
{
	cell_sep(c, name);
	if (c->kind)
		tza_sv_str(c->l, v, c->kind == 2);
	else if (v)
		tza_line_json_cstr(c->l, v);
	else
		tza_line_lit(c->l, "null");
}

void tza_cell_i64(struct tza_cells *c, const char *name, int has, int64_t v)
{
	cell_sep(c, name);
	if (has)
		tza_line_i64(c->l, v);
	else if (!c->kind)
		tza_line_lit(c->l, "null");
}

void tza_cell_num(struct tza_cells *c, const char *name, int has, double v, int decimals)
{
	cell_sep(c, name);
	if (has)
		tza_line_fixed(c->l, v, decimals);
	else if (!c->kind)
		tza_line_lit(c->l, "null");
}

void tza_xfleet_time(struct tza_cells *c, const struct tza_xfleet *x, const char *utc_key,
		     const char *ns_key, int has, uint64_t boot_ns, int header)
{
	char b[48];
	int64_t rt = 0;
	if (header) {
		tza_cell_str(c, "", utc_key);
		tza_cell_str(c, "", ns_key);
		return;
	}
	has = has && tza_realtime(x->r, boot_ns, &rt) == 0;
	const char *utc = has ? tza_fmt_utc(rt, b, sizeof(b)) : NULL;
	tza_cell_str(c, utc_key, utc && *utc ? utc : NULL);
	tza_cell_i64(c, ns_key, has, rt);
}

void tza_xfleet_time_json(struct tza_line *l, const struct tza_xfleet *x, const char *utc_key,
			  const char *ns_key, int has, uint64_t boot_ns)
{
	struct tza_cells c = {l, 0, 1};
	tza_xfleet_time(&c, x, utc_key, ns_key, has, boot_ns, 0);
}

void tza_xfleet_ids(struct tza_cells *c, const struct tza_xfleet *x, int header)
{
	static const char *const name[3] = {"host", "boot_id", "trace_uuid"};
	const char *v[3] = {x->host, *x->boot_id ? x->boot_id : NULL,
			    *x->trace_uuid ? x->trace_uuid : NULL};
	for (int i = 0; i < 3; i++)
		if (header)
			tza_cell_str(c, "", name[i]);
		else
			tza_cell_str(c, name[i], v[i]);
}

int tza_xfleet_init(struct tza_xfleet *x, tz_reader *r, const char *host, const uint8_t uuid[16],
		    const uint8_t boot[16], int kind)
{
	static const uint8_t zero[16];
	memset(x, 0, sizeof(*x));
	x->r = r;
	x->host = host && *host ? host : NULL;
	if (memcmp(boot, zero, 16))
		tza_fleet_hex16(x->boot_id, boot);
	if (memcmp(uuid, zero, 16))
		tza_fleet_hex16(x->trace_uuid, uuid);
	x->head = kind == 2 ? "host\tboot_id\ttrace_uuid" : "host,boot_id,trace_uuid";
	struct tza_cells c = {&x->pre, kind, 0};
	tza_xfleet_ids(&c, x, 0);
	return x->pre.err ? -1 : 0;
}
