/* SPDX-License-Identifier: BSD-2-Clause */
/* fleet_clock.c - the clocks of a run's hosts (fleet_clock.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "fleet.h"
#include "fleet_clock.h"
#include "json.h"
#include "report.h"
#include "textsafe.h"

void tza_host_clock_read(tz_reader *r, struct tza_host_clock *c)
{
	const char *cs = tz_reader_meta_get(r, "clock_sync");
	const char *me = tz_reader_meta_get(r, "clock_maxerror_us");
	c->sync = !cs ? -1 : !strcmp(cs, "synchronised") ? 1 : 0;
	c->maxerr_us = 0;
	/* a strict decimal of at most 12 digits (us: 31 years), else unsaid */
	if (c->sync == 1 && (!me || !*me || strlen(me) > 12 || me[strspn(me, "0123456789")]))
		c->sync = -1;
	else if (c->sync == 1)
		c->maxerr_us = strtoull(me, NULL, 10);
}

/* Append " NAME" for every host whose sync is want. */
int tza_host_clock_anchor(const char *cmd, tz_reader *r, const char *trace, const char *hostname,
			  uint64_t boot_ns, struct tza_host_clock *c, int64_t *rt)
{
	c->hostname = hostname;
	tza_host_clock_read(r, c);
	if (tz_reader_realtime(r, boot_ns, rt)) {
		tza_err("%s: '%s': no clock anchor: its times cannot be put beside the other hosts'",
			cmd, trace);
		return -1;
	}
	return 0;
}

static size_t names(char *buf, size_t len, size_t off, const struct tza_host_clock *c, size_t n,
		    int want)
{
	for (size_t i = 0; i < n && off < len; i++)
		if (c[i].sync == want)
			off += (size_t)snprintf(buf + off, len - off, " %s", c[i].hostname);
	return off;
}

void tza_clock_note(const struct tza_host_clock *c, size_t n, int one_clock, char *buf,
		    size_t len, int64_t *bound_us)
{
	uint64_t a = 0, b = 0;
	size_t unsync = 0, unsaid = 0, off;
	*bound_us = -1;
	if (one_clock) {
		snprintf(buf, len, "one host (the same boot id): times compare exactly");
		*bound_us = 0;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		unsync += c[i].sync == 0;
		unsaid += c[i].sync < 0;
		if (c[i].sync == 1 && c[i].maxerr_us >= a) {
			b = a;
			a = c[i].maxerr_us;
		} else if (c[i].sync == 1 && c[i].maxerr_us > b) {
			b = c[i].maxerr_us;
		}
	}
	if (!unsync && !unsaid) {
		*bound_us = (int64_t)(a + b);
		snprintf(buf, len,
			 "hosts aligned by their wall clocks, each synchronised (adjtimex): they "
			 "agree within %.3f ms (the two largest error bounds added)",
			 (double)(a + b) / 1e3);
		return;
	}
	off = (size_t)snprintf(buf, len,
			       "hosts aligned by their wall clocks; how far apart they "
			       "were is unknown: ");
	if (unsync && off < len) {
		off += (size_t)snprintf(buf + off, len - off, "not synchronised (adjtimex):");
		off = names(buf, len, off, c, n, 0);
	}
	if (unsaid && off < len) {
		off += (size_t)snprintf(buf + off, len - off, "%sno clock state in the trace:",
					unsync ? "; " : "");
		names(buf, len, off, c, n, -1);
	}
}

void tza_clock_json_head(FILE *o, const char *order, int have_start, int64_t r0, int64_t r1,
			 int64_t bound_ns, const char *note)
{
	char t[64];
	fputs("{\"multi_host\":true,\"order\":", o);
	tza_json_cstr(o, order);
	fputs(",\"start\":", o);
	if (have_start)
		tza_json_cstr(o, tza_fmt_utc(r0, t, sizeof(t)));
	else
		fputs("null", o);
	tza_json_key_secs(o, "makespan_s", r1 - r0);
	fputs(",\"clock\":{\"bound_s\":", o);
	if (bound_ns >= 0)
		tza_json_secs(o, bound_ns);
	else
		fputs("null", o);
	tza_json_key_cstr(o, "note", note);
	fputc('}', o);
}

void tza_clock_text_head(FILE *o, size_t ntraces, size_t nhosts, int64_t r0, int64_t r1,
			 const char *how, const char *note)
{
	char b1[32], t0[64];
	fprintf(o, "run makespan %s over ", tza_fmt_dur(b1, sizeof(b1), (uint64_t)(r1 - r0)));
	tza_hosts_say(o, ntraces, nhosts);
	fprintf(o,
		", from %s (the first host's root start: its "
		"recorded command, docs: critical-path) to the last one's end\n",
		tza_fmt_utc(r0, t0, sizeof(t0)));
	tza_safe_puts(o, how);
	fputs("\nclocks: ", o);
	tza_safe_puts(o, note);
	fputs("\n\n", o);
}
