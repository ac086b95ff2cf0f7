/* SPDX-License-Identifier: BSD-2-Clause */
/* status.c - tracer-record's live status line (status.h). */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/numfmt.h"
#include "status.h"

#define PROG "tracer-record"

void rec_status_init(struct rec_status *s, int fd, enum rec_progress p, uint64_t t0_ns)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->t0_ns = t0_ns;
	int tty = isatty(fd);
	if (p == REC_PROGRESS_OFF)
		s->mode = REC_STATUS_OFF;
	else if (tty)
		s->mode = REC_STATUS_TTY;
	else
		s->mode = p == REC_PROGRESS_ON ? REC_STATUS_LINES : REC_STATUS_OFF;
}

static void size(char *b, size_t n, uint64_t v)
{
	if (v < 1024)
		snprintf(b, n, "%llu B", (unsigned long long)v);
	else if (v < 1024 * 1024)
		snprintf(b, n, "%.1f KiB", (double)v / 1024);
	else if (v < 1024ull * 1024 * 1024)
		snprintf(b, n, "%.1f MiB", (double)v / (1024 * 1024));
	else
		snprintf(b, n, "%.2f GiB", (double)v / (1024.0 * 1024 * 1024));
}

size_t rec_status_format(char *buf, size_t n, const struct rec_status_facts *f, uint64_t t0_ns,
			 uint64_t dt_ns, uint64_t dev)
{
	uint64_t el = f->now_ns > t0_ns ? (f->now_ns - t0_ns) / 1000000000ull : 0;
	char t[32], seen[32], live[32], rate[32], drops[32], sz[32], ch[32];
	if (el >= 3600)
		snprintf(t, sizeof(t), "%lluh%02llum%02llus", (unsigned long long)(el / 3600),
			 (unsigned long long)(el / 60 % 60), (unsigned long long)(el % 60));
	else if (el >= 60)
		snprintf(t, sizeof(t), "%llum%02llus", (unsigned long long)(el / 60),
			 (unsigned long long)(el % 60));
	else
		snprintf(t, sizeof(t), "%llus", (unsigned long long)el);
	numfmt_count(seen, sizeof(seen), f->procs_seen);
	numfmt_count(live, sizeof(live), f->procs_live);
	numfmt_count(rate, sizeof(rate),
		     dt_ns ? (uint64_t)((double)dev * 1e9 / (double)dt_ns + 0.5) : 0);
	numfmt_count(drops, sizeof(drops), f->drops);
	size(sz, sizeof(sz), f->file_bytes);
	numfmt_count(ch, sizeof(ch), f->chunks);
	int len = snprintf(buf, n, PROG ": %s  procs %s seen, %s live  %s ev/s  drops %s  %s  chunks %s",
			   t, seen, live, rate, drops, sz, ch);
	if (len < 0)
		return 0;
	return (size_t)len < n ? (size_t)len : n - 1;
}

static void put(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w <= 0)
			return; /* best effort (EINTR included: the next update redraws) */
		s += w;
		n -= (size_t)w;
	}
}

int rec_status_due(const struct rec_status *s, uint64_t now_ns)
{
	uint64_t since = s->last_ns ? s->last_ns : s->t0_ns;
	return s->mode != REC_STATUS_OFF && now_ns >= since + 1000000000ull;
}

/* TTY mode: keep the terminal's last row for the status (as apt does): a
 * scroll region of rows 1..rows-1, so COMMAND's output scrolls above the
 * line and never mixes with it. */
static void region(struct rec_status *s, unsigned rows)
{
	char b[64];
	int n;
	if (!s->rows) /* first time: make room below the cursor, then stay in the region */
		n = snprintf(b, sizeof(b), "\n\0337\033[1;%ur\0338\033[1A", rows - 1);
	else
		n = snprintf(b, sizeof(b), "\0337\033[1;%ur\0338", rows - 1);
	put(s->fd, b, (size_t)n);
	s->rows = rows;
}

void rec_status_tick(struct rec_status *s, const struct rec_status_facts *f)
{
	uint64_t since = s->last_ns ? s->last_ns : s->t0_ns;
	if (!rec_status_due(s, f->now_ns))
		return;
	char line[600]; /* prefix (TTY), the text, suffix or "\n" (LINES) */
	size_t tlen = rec_status_format(line + 32, 512, f, s->t0_ns, f->now_ns - since,
					f->events - s->last_events);
	s->last_ns = f->now_ns;
	s->last_events = f->events;
	if (s->mode == REC_STATUS_LINES) {
		line[32 + tlen] = '\n';
		put(s->fd, line + 32, tlen + 1);
		return;
	}
	struct winsize ws;
	if (ioctl(s->fd, TIOCGWINSZ, &ws) < 0 || ws.ws_row < 3 || ws.ws_col < 2)
		return; /* no size known, or too small a terminal: no line */
	if (tlen > (size_t)ws.ws_col - 1)
		tlen = (size_t)ws.ws_col - 1;
	if (ws.ws_row != s->rows)
		region(s, ws.ws_row);
	/* save the cursor, last row, erase it, the text, restore the cursor */
	char pre[32];
	int n = snprintf(pre, sizeof(pre), "\0337\033[%u;1H\033[2K", (unsigned)ws.ws_row);
	memcpy(line + 32 - n, pre, (size_t)n);
	memcpy(line + 32 + tlen, "\0338", 2);
	put(s->fd, line + 32 - n, (size_t)n + tlen + 2);
}

void rec_status_end(struct rec_status *s)
{
	if (s->mode == REC_STATUS_TTY && s->rows) {
		/* the whole screen scrolls again, the status row is erased */
		char b[64];
		int n = snprintf(b, sizeof(b), "\0337\033[r\033[%u;1H\033[2K\0338", s->rows);
		put(s->fd, b, (size_t)n);
	}
	s->rows = 0;
}
