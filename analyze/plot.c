/* plot.c - gnuplot scripts with inline data for gantt, cpu, mem and io plots. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analyze.h"
#include "json.h"
#include "plot.h"
#include "report.h"
#include "textsafe.h"

#define NCOLORS 11
#define MAX_LANES 4
#define NBINS 400
#define XPAD_GANTT 0.09 /* gantt: room right of the last bar for labels */
#ifdef TZA_P_KTHREAD
#define KTHREAD_FLAG TZA_P_KTHREAD
#else
#define KTHREAD_FLAG 0
#endif

/* Red is kept for failures; grey for "other". */
static const char *const palette[NCOLORS] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#76b7b2", "#edc948", "#b07aa1",
	"#ff9da7", "#9c755f", "#17becf", "#bcbd22", "#8c6bb1",
};
#define OTHER_COLOR "#bab0ac"
#define FAIL_COLOR "#d62728"
#define HOST_COLOR "#c0392b" /* cpu plot: the host's busy cores beside the stack */
#define LOST_COLOR "#333333" /* open circle: exit lost, bar ends at the last event */

int tza_plot_fmt_of(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	if (!dot)
		return -1;
	if (!strcasecmp(dot, ".png"))
		return TZA_PLOT_PNG;
	if (!strcasecmp(dot, ".svg"))
		return TZA_PLOT_SVG;
	if (!strcasecmp(dot, ".pdf"))
		return TZA_PLOT_PDF;
	return -1;
}

/* A gnuplot double-quoted string of s's safe form (textsafe.h: control
 * bytes and invalid UTF-8 shown as \e, \xNN...), its backslashes and double
 * quotes escaped, cut at max bytes (never inside a character). (gnuplot 5.4
 * misparses runs of doubled single quotes, so single-quoted strings are not
 * used for data.) */
static void gp_str(FILE *f, const char *s, size_t max)
{
	char *d = tza_safe_dup(s);
	fputc('"', f);
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)(d ? d : "?"); *p; p++, n++) {
		if (n >= max && (*p & 0xc0) != 0x80) {
			fputs("...", f);
			break;
		}
		if (*p == '"' || *p == '\\')
			fputc('\\', f);
		if (*p < 0x20 || *p == 0x7f)
			fputc('?', f);
		else
			fputc(*p, f);
	}
	fputc('"', f);
	free(d);
}

/*
 * s as gp_str does (cut at max bytes), wrapped into lines of at most width
 * characters (UTF-8 continuation bytes not counted) at spaces, joined by
 * "\n": a centred title wider than the picture is cut at both edges. A
 * word longer than a line stays whole on its own line.
 */
static void gp_str_wrapped(FILE *f, const char *s, size_t max, size_t width)
{
	char *d = tza_safe_dup(s);
	s = d ? d : "?";
	char buf[2048];
	snprintf(buf, sizeof(buf), "%.*s%s", (int)(max < sizeof(buf) - 4 ? max : sizeof(buf) - 4),
		 s ? s : "", s && strlen(s) > max ? "..." : "");
	size_t col = 0, last_sp = 0; /* last space on this line (index + 1) */
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	for (size_t i = 0; buf[i]; i++) {
		if ((buf[i] & 0xc0) != 0x80)
			col++;
		if (buf[i] == ' ')
			last_sp = i + 1;
		if (col > width && last_sp) {
			buf[last_sp - 1] = '\n';
			col = 0;
			for (size_t k = last_sp; k <= i; k++)
				col += (buf[k] & 0xc0) != 0x80;
			last_sp = 0;
		}
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)buf; *p; p++) {
		if (*p == '\n') {
			fputs("\\n", f);
			continue;
		}
		if (*p == '"' || *p == '\\')
			fputc('\\', f);
		fputc(*p, f);
	}
	fputc('"', f);
	free(d);
}

/* ---------------------------------------------------------------- names */

/* String -> index map (open addressing, FNV-1a): groups by name in O(1). */
struct namemap {
	const char **keys;
	int *vals;
	size_t cap; /* power of two, at least twice the entries */
};

static int nm_init(struct namemap *nm, size_t entries)
{
	nm->cap = 16;
	while (nm->cap < 2 * entries + 2)
		nm->cap *= 2;
	nm->keys = calloc(nm->cap, sizeof(*nm->keys));
	nm->vals = calloc(nm->cap, sizeof(*nm->vals));
	return nm->keys && nm->vals ? 0 : -1;
}

static void nm_free(struct namemap *nm)
{
	free(nm->keys);
	free(nm->vals);
}

/* The index of key, or val (stored) when key is new. */
static int nm_get_or_add(struct namemap *nm, const char *key, int val)
{
	uint64_t h = 1469598103934665603ULL;
	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	for (size_t i = (size_t)h & (nm->cap - 1);; i = (i + 1) & (nm->cap - 1)) {
		if (!nm->keys[i]) {
			nm->keys[i] = key;
			nm->vals[i] = val;
			return val;
		}
		if (!strcmp(nm->keys[i], key))
			return nm->vals[i];
	}
}

/* ---------------------------------------------------------------- tools */

struct tool {
	const char *name;
	double cpu_s, wall_s;
	int color; /* palette index, or -1 = other */
	int first; /* index in order of first sight (ranking tie-break) */
};

struct ctx {
	struct tza_model *m;
	const struct tza_plot_opts *o;
	uint64_t t0, t1; /* window, ns */
	double span_s;
	struct tool *tools;
	size_t ntools;
	int *proc_tool; /* per process index: tools[] index */
	int ncolored;
};

static uint64_t p_start(const struct ctx *c, const struct tza_proc *p)
{
	return p->start_ns < c->t0 ? c->t0 : p->start_ns;
}

/* Its exit; its last event when the exit was lost (TZA_P_EXIT_LOST), or
 * UINT64_MAX while it runs. */
static uint64_t p_last(const struct tza_proc *p)
{
	if (p->flags & TZA_P_EXIT_LOST)
		return p->end_ns > p->start_ns ? p->end_ns : p->start_ns;
	return (p->flags & TZA_P_NO_EXIT) || !p->end_ns ? UINT64_MAX : p->end_ns;
}

static uint64_t p_end(const struct ctx *c, const struct tza_proc *p)
{
	uint64_t e = p_last(p);
	if (e > c->t1)
		e = c->t1;
	return e < p_start(c, p) ? p_start(c, p) : e;
}

/* Its exit was lost and its last event is in the window: the bar ends
 * there, marked (one that goes on past the window is drawn to its end) */
static int p_lost(const struct ctx *c, const struct tza_proc *p)
{
	return (p->flags & TZA_P_EXIT_LOST) && p_last(p) <= c->t1;
}

static int p_failed(const struct tza_proc *p)
{
	return !(p->flags & TZA_P_NO_EXIT) && (p->exit_code != 0 || p->signal != 0);
}

static int p_in_window(const struct ctx *c, const struct tza_proc *p)
{
	if (!c->o->all && (p->flags & (TZA_P_PRE_EXISTING | KTHREAD_FLAG)))
		return 0;
	return p->start_ns <= c->t1 && p_last(p) >= c->t0;
}

static int cmp_tool(const void *a, const void *b)
{
	const struct tool *x = a, *y = b;
	if (x->cpu_s != y->cpu_s)
		return x->cpu_s < y->cpu_s ? 1 : -1;
	if (x->wall_s != y->wall_s)
		return x->wall_s < y->wall_s ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Group processes by tool, rank by CPU time (then wall), colour the top ones. */
static int rank_tools(struct ctx *c)
{
	struct tza_model *m = c->m;
	c->proc_tool = calloc(m->nprocs ? m->nprocs : 1, sizeof(int));
	c->tools = calloc(m->nprocs ? m->nprocs : 1, sizeof(struct tool));
	if (!c->proc_tool || !c->tools)
		return -1;
	struct namemap nm;
	if (nm_init(&nm, m->nprocs) < 0) {
		nm_free(&nm);
		return -1;
	}
	for (uint32_t i = 0; i < m->nprocs; i++) {
		struct tza_proc *p = m->procs[i];
		const char *k = tza_proc_key(p, TZA_BY_TOOL);
		size_t j = (size_t)nm_get_or_add(&nm, k, (int)c->ntools);
		if (j == c->ntools)
			c->tools[c->ntools++].name = k;
		c->proc_tool[i] = (int)j;
		if (p_in_window(c, p)) {
			c->tools[j].cpu_s += (double)(p->utime_ns + p->stime_ns) / 1e9;
			c->tools[j].wall_s += (double)(p_end(c, p) - p_start(c, p)) / 1e9;
		}
	}
	for (size_t j = 0; j < c->ntools; j++)
		c->tools[j].first = (int)j; /* index before ranking */
	qsort(c->tools, c->ntools, sizeof(*c->tools), cmp_tool);
	int *moved = malloc(sizeof(int) * (c->ntools ? c->ntools : 1));
	if (!moved) {
		nm_free(&nm);
		return -1;
	}
	for (size_t j = 0; j < c->ntools; j++) {
		moved[c->tools[j].first] = (int)j;
		c->tools[j].color = j < NCOLORS ? (int)j : -1;
	}
	c->ncolored = c->ntools < NCOLORS ? (int)c->ntools : NCOLORS;
	/* the ranking moved the tools: map processes to their new index */
	for (uint32_t i = 0; i < m->nprocs; i++)
		c->proc_tool[i] = moved[c->proc_tool[i]];
	free(moved);
	nm_free(&nm);
	return 0;
}

int tza_plot_colors_json(FILE *f, struct tza_model *m)
{
	struct tza_plot_opts o = {0};
	struct ctx c = {.m = m, .o = &o, .t0 = m->t0_ns, .t1 = m->t1_ns};
	if (c.t1 <= c.t0)
		c.t1 = c.t0 + 1000000000ULL; /* as tza_plot_script */
	int rc = rank_tools(&c);
	if (rc == 0) {
		fputs("{\"other\":\"" OTHER_COLOR "\",\"fail\":\"" FAIL_COLOR "\",\"tools\":{", f);
		for (int j = 0; j < c.ncolored; j++) {
			if (j)
				fputc(',', f);
			tza_json_cstr(f, c.tools[j].name);
			fprintf(f, ":\"%s\"", palette[c.tools[j].color]);
		}
		fputs("}}", f);
	}
	free(c.tools);
	free(c.proc_tool);
	return rc;
}

static const char *tool_color(const struct ctx *c, int t)
{
	return c->tools[t].color >= 0 ? palette[c->tools[t].color] : OTHER_COLOR;
}

static unsigned long rgb_of(const char *hex)
{
	return strtoul(hex + 1, NULL, 16);
}

/* The other shade of a bar's colour: each channel at 72% (darker) */
static unsigned long shade_of(unsigned long rgb)
{
	unsigned long out = 0;
	for (int sh = 0; sh <= 16; sh += 8)
		out |= (((rgb >> sh) & 0xff) * 72 / 100) << sh;
	return out;
}

/* ---------------------------------------------------------------- common */

static double x_of(const struct ctx *c, uint64_t ns)
{
	double rel = (double)(ns - c->t0) / 1e9;
	if (c->o->wall && c->o->rt0_ns != INT64_MIN)
		return (double)c->o->rt0_ns / 1e9 + rel;
	return rel;
}

static void fmt_dur(char *buf, size_t n, double s)
{
	if (s < 1)
		snprintf(buf, n, "%.0f ms", s * 1e3);
	else if (s < 120)
		snprintf(buf, n, "%.1f s", s);
	else if (s < 7200)
		snprintf(buf, n, "%.1f min", s / 60);
	else
		snprintf(buf, n, "%.1f h", s / 3600);
}

/*
 * The terminal, title (kind_title, what was traced, host, date, span, count;
 * note on the next lines) and x axis. left_px, right_px: about how much of
 * the w pixels the row labels and a key at the right take: the title is
 * centred over the plot area between them, and wrapped to fit there.
 */
static void header(FILE *f, const struct ctx *c, unsigned w, unsigned h, const char *kind_title,
		   const char *note, double xpad, unsigned left_px, unsigned right_px)
{
	const struct tza_plot_opts *o = c->o;
	if (o->fmt == TZA_PLOT_PNG)
		fprintf(f, "set terminal pngcairo size %u,%u noenhanced font 'DejaVu Sans,9'\n", w, h);
	else if (o->fmt == TZA_PLOT_SVG)
		fprintf(f, "set terminal svg size %u,%u noenhanced font 'DejaVu Sans,9' background '#ffffff'\n", w, h);
	else
		fprintf(f, "set terminal pdfcairo size %.2fin,%.2fin noenhanced font 'DejaVu Sans,7'\n",
			w / 100.0, h / 100.0);
	fputs("set output ", f);
	gp_str(f, o->out, 4096);
	fputc('\n', f);

	char date[64] = "unknown date", dur[32];
	if (o->rt0_ns != INT64_MIN) {
		time_t t = (time_t)(o->rt0_ns / 1000000000LL);
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", &tm);
	}
	fmt_dur(dur, sizeof(dur), c->span_s);
	uint32_t n = 0;
	for (uint32_t i = 0; i < c->m->nprocs; i++)
		n += p_in_window(c, c->m->procs[i]) != 0;
	char title[1024];
	snprintf(title, sizeof(title), "%s: %s%s%s on %s, %s, %s, %u process%s%s", kind_title,
		 o->what ? "'" : "", o->what ? o->what : "", o->what ? "'" : "",
		 o->host ? o->host : "unknown host", date, dur, n, n == 1 ? "" : "es",
		 c->m->incomplete ? " (TRACE INCOMPLETE: drops or damage)" : "");
	/* centred over the plot area, not the picture; about 8 px a character
	 * at font 11 (PDF: more room at font 7) */
	double mid = ((double)left_px + (double)w - (double)right_px) / 2;
	double half = mid < (double)w - mid ? mid : (double)w - mid;
	size_t width = half > 170 ? (size_t)((2 * half - 20) / 8) : 40;
	fputs("set title ", f);
	gp_str_wrapped(f, title, sizeof(title), width);
	if (note) {
		fputs(" . \"\\n\" . ", f);
		gp_str_wrapped(f, note, 1024, width);
	}
	fputs(" font ',11'\n", f);
	fputs("set border 3\nset tics nomirror out\nset grid xtics lc rgb '#dddddd' lt 1\n", f);
	double x0 = x_of(c, c->t0), x1 = x_of(c, c->t1);
	if (x1 <= x0)
		x1 = x0 + 1;
	fprintf(f, "set xrange [%.6f:%.6f]\n", x0, x1 + (x1 - x0) * xpad);
	if (o->wall && o->rt0_ns != INT64_MIN) {
		fputs(c->span_s > 3 * 86400 ? "set format x '%m-%d %H:%M' timedate\n"
					     : "set format x '%H:%M:%S' timedate\n",
		      f);
		fputs("set xlabel 'wall-clock time (UTC)'\n", f);
	} else {
		fputs("set xlabel 'seconds from start'\n", f);
	}
}

/* ---------------------------------------------------------------- gantt */

struct row {
	const char *label;
	int tool;	    /* colour of the label's group, -1 mixed */
	uint32_t count;	    /* processes in the row */
	double wall_s;
	uint64_t lane_end[MAX_LANES];
	int nlanes;
	uint64_t first;
};

struct bar {
	uint32_t proc;
	int row, lane;
	uint64_t start; /* ns, for drawing order */
	double x0, x1;	/* as drawn (x units): its label's free space */
};

static int cmp_bar(const void *a, const void *b)
{
	const struct bar *x = a, *y = b;
	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/* Depth-first, children by start: the tree read top to bottom. */
static void dfs(struct ctx *c, struct tza_proc *p, uint32_t *order, uint32_t *n, unsigned depth)
{
	for (; p; p = p->next_sibling) {
		if (p_in_window(c, p))
			order[(*n)++] = p->index;
		if (p->first_child && depth < 100000)
			dfs(c, p->first_child, order, n, depth + 1);
	}
}

static int cmp_row_first(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int gantt(FILE *f, struct ctx *c)
{
	struct tza_model *m = c->m;
	const struct tza_plot_opts *o = c->o;
	unsigned max_rows = o->max_rows ? o->max_rows : 60;
	uint32_t *order = calloc(m->nprocs ? m->nprocs : 1, sizeof(*order));
	struct bar *bars = calloc(m->nprocs ? m->nprocs : 1, sizeof(*bars));
	struct row *rows = calloc((m->nprocs ? m->nprocs : 1) + 1, sizeof(*rows));
	char **labels = NULL;
	int rc = -1;
	if (!order || !bars || !rows)
		goto out;
	uint32_t n = 0;
	for (uint32_t i = 0; i < m->nroots; i++) {
		struct tza_proc *r = m->roots[i];
		/* roots are a list of tops, not siblings of each other */
		if (p_in_window(c, r))
			order[n++] = r->index;
		if (r->first_child)
			dfs(c, r->first_child, order, &n, 1);
	}
	/* any process not reached from a root (should not happen): append */
	if (n < m->nprocs) {
		char *seen = calloc(m->nprocs, 1);
		if (!seen)
			goto out;
		for (uint32_t i = 0; i < n; i++)
			seen[order[i]] = 1;
		for (uint32_t i = 0; i < m->nprocs && n < m->nprocs; i++)
			if (!seen[i] && p_in_window(c, m->procs[i]))
				order[n++] = i;
		free(seen);
	}

	int per_proc = n <= max_rows;
	int nrows = 0;
	labels = calloc(n + 1, sizeof(*labels));
	if (!labels)
		goto out;
	if (per_proc) {
		for (uint32_t i = 0; i < n; i++) {
			struct tza_proc *p = m->procs[order[i]];
			char buf[256];
			snprintf(buf, sizeof(buf), "%u %s", p->pid, tza_proc_key(p, o->by));
			labels[i] = strdup(buf);
			if (!labels[i])
				goto out;
			rows[i].label = labels[i];
			bars[i] = (struct bar){.proc = order[i], .row = (int)i};
			rows[i].nlanes = 1;
		}
		nrows = (int)n;
	} else {
		/* one row per group; the smallest groups share an "other" row */
		struct namemap groups;
		if (nm_init(&groups, n) < 0) {
			nm_free(&groups);
			goto out;
		}
		for (uint32_t i = 0; i < n; i++) {
			struct tza_proc *p = m->procs[order[i]];
			const char *k = tza_proc_key(p, o->by);
			int r = nm_get_or_add(&groups, k, nrows);
			if (r == nrows) {
				rows[nrows].label = k;
				rows[nrows].first = p_start(c, p);
				rows[nrows].tool = c->proc_tool[order[i]];
				nrows++;
			}
			rows[r].count++;
			rows[r].wall_s += (double)(p_end(c, p) - p_start(c, p)) / 1e9;
			if (rows[r].tool != c->proc_tool[order[i]])
				rows[r].tool = -1;
			bars[i] = (struct bar){.proc = order[i], .row = r};
		}
		nm_free(&groups);
		if ((unsigned)nrows > max_rows) {
			/* keep the max_rows-1 groups with the most wall time */
			double *w = malloc(sizeof(double) * (size_t)nrows);
			if (!w)
				goto out;
			for (int r = 0; r < nrows; r++)
				w[r] = rows[r].wall_s;
			for (unsigned keep = 0; keep < max_rows - 1; keep++) {
				int best = -1;
				for (int r = 0; r < nrows; r++)
					if (w[r] >= 0 && (best < 0 || w[r] > w[best]))
						best = r;
				w[best] = -1 - (double)keep; /* marks kept */
			}
			int *map = malloc(sizeof(int) * (size_t)nrows);
			struct row *nr = calloc(max_rows, sizeof(*nr));
			if (!map || !nr) {
				free(w);
				free(map);
				free(nr);
				goto out;
			}
			int k = 0;
			uint32_t other_groups = 0;
			int other = (int)max_rows - 1;
			nr[other].tool = -1;
			nr[other].first = UINT64_MAX;
			for (int r = 0; r < nrows; r++) {
				if (w[r] < 0) {
					nr[k] = rows[r];
					map[r] = k++;
				} else {
					map[r] = other;
					nr[other].count += rows[r].count;
					nr[other].wall_s += rows[r].wall_s;
					if (rows[r].first < nr[other].first)
						nr[other].first = rows[r].first;
					other_groups++;
				}
			}
			char buf[64];
			snprintf(buf, sizeof(buf), "other (%u groups)", other_groups);
			labels[n] = strdup(buf);
			if (!labels[n]) {
				free(w);
				free(map);
				free(nr);
				goto out;
			}
			nr[other].label = labels[n];
			for (uint32_t i = 0; i < n; i++)
				bars[i].row = map[bars[i].row];
			memcpy(rows, nr, sizeof(*nr) * max_rows);
			nrows = (int)max_rows;
			free(w);
			free(map);
			free(nr);
		}
		/* rows in order of first start, then lanes: earliest free lane */
		int *perm = malloc(sizeof(int) * (size_t)nrows);
		struct row *sorted = malloc(sizeof(*sorted) * (size_t)nrows);
		if (!perm || !sorted) {
			free(perm);
			free(sorted);
			goto out;
		}
		for (int r = 0; r < nrows; r++)
			rows[r].nlanes = r; /* remember the old index */
		memcpy(sorted, rows, sizeof(*sorted) * (size_t)nrows);
		qsort(sorted, (size_t)nrows, sizeof(*sorted), cmp_row_first);
		for (int r = 0; r < nrows; r++)
			perm[sorted[r].nlanes] = r;
		for (int r = 0; r < nrows; r++)
			sorted[r].nlanes = 0;
		memcpy(rows, sorted, sizeof(*sorted) * (size_t)nrows);
		free(sorted);
		for (uint32_t i = 0; i < n; i++)
			bars[i].row = perm[bars[i].row];
		free(perm);
		/* bars by start for lane packing */
		for (uint32_t i = 0; i < n; i++) {
			struct tza_proc *p = m->procs[bars[i].proc];
			struct row *r = &rows[bars[i].row];
			uint64_t s = p_start(c, p);
			int lane = -1;
			for (int l = 0; l < r->nlanes; l++)
				if (r->lane_end[l] <= s) {
					lane = l;
					break;
				}
			if (lane < 0) {
				if (r->nlanes < MAX_LANES) {
					lane = r->nlanes++;
				} else { /* all busy: the lane that frees first */
					lane = 0;
					for (int l = 1; l < MAX_LANES; l++)
						if (r->lane_end[l] < r->lane_end[lane])
							lane = l;
				}
			}
			uint64_t e = p_end(c, p);
			if (e > r->lane_end[lane])
				r->lane_end[lane] = e;
			bars[i].lane = lane;
		}
	}

	unsigned w = o->width ? o->width : 1400;
	unsigned h = o->height ? o->height
			       : 170 + (per_proc ? 16 : 26) * (unsigned)(nrows < 12 ? 12 : nrows);
	if (h > 4000)
		h = 4000;
	const char *note = per_proc ? "one bar per process, in tree order; colour = tool"
				    : "one row per group (up to 4 lanes for processes running at "
				      "the same time); colour = tool";
	/* the row labels: about 6 px a character at font 8, and the margins */
	size_t maxlab = 0;
	for (int r = 0; r < nrows; r++) {
		size_t l = strlen(rows[r].label) + (per_proc ? 0 : 6);
		if (l > maxlab)
			maxlab = l > 63 ? 63 : l;
	}
	header(f, c, w, h, "timeline", note, XPAD_GANTT, /* room for the labels */
	       (unsigned)(6 * maxlab + 50), 10);

	/* y axis: rows top to bottom */
	fprintf(f, "set yrange [%f:%f]\n", nrows - 0.4, -0.6); /* first row on top */
	fputs("set ytics scale 0 font ',8' (", f);
	for (int r = 0; r < nrows; r++) {
		char buf[320];
		if (per_proc || rows[r].count <= 1 || rows[r].label == labels[n]) /* "other" */
			snprintf(buf, sizeof(buf), "%s", rows[r].label);
		else
			snprintf(buf, sizeof(buf), "%s  x%u", rows[r].label, rows[r].count);
		if (r)
			fputs(", ", f);
		gp_str(f, buf, 60);
		fprintf(f, " %d", r);
	}
	fputs(")\n", f);
	fputs("set style fill solid 1.0 noborder\n", f);

	/*
	 * One pixel in x units, from the plot area's width: the picture less
	 * the row labels (maxlab) and the margins.
	 */
	double plot_px = (double)w - 6.0 * (double)maxlab - 60;
	if (plot_px < 200)
		plot_px = 200;
	double px = c->span_s * (1 + XPAD_GANTT) / plot_px;

	/*
	 * The key below, centred under the plot area: as many columns as fit
	 * its width (gnuplot's own estimate runs past the right edge and cuts
	 * the last column's marker). A column: its longest title (tool names
	 * cut at 30 bytes, the failure and exit-lost entries), the sample and
	 * the gaps, about 7.5 px a character at font 8.
	 */
	size_t keylen = strlen("non-zero exit or signal (") + 5;
	for (int t = 0; t < c->ncolored; t++) {
		size_t l = strlen(c->tools[t].name);
		l = l > 30 ? 33 : l;
		if (l > keylen)
			keylen = l;
	}
	if (keylen < strlen("exit lost: ends at its last event (") + 5)
		for (uint32_t i = 0; i < n; i++)
			if (p_lost(c, m->procs[bars[i].proc])) {
				keylen = strlen("exit lost: ends at its last event (") + 5;
				break;
			}
	unsigned keycols = (unsigned)(plot_px / (7.5 * (double)(keylen + 8)));
	fprintf(f, "set key outside below horizontal font ',8' maxcols %u\n",
		keycols ? keycols : 1);

	/*
	 * Bars by row, lane and start. Back-to-back bars of one lane never
	 * merge: each ends a pixel before the next one starts, and a bar that
	 * touches the one before it takes the other shade of its colour
	 * (shade_of), so each run stays visible. Only bars narrower than two
	 * pixels that touch are drawn as one (they cannot be told apart at
	 * that resolution, and a lane of 100,000 back-to-back processes then
	 * costs gnuplot a few hundred boxes; the row's xN counts them).
	 */
	struct bar *sorted = malloc(sizeof(*sorted) * (n ? n : 1));
	if (!sorted)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		sorted[i] = bars[i];
		sorted[i].start = p_start(c, m->procs[bars[i].proc]);
	}
	qsort(sorted, n, sizeof(*sorted), cmp_bar);
	fputs("$BARS << EOD\n", f);
	int shaded = 0;	    /* the last bar drawn in this lane took the other shade */
	double lane_end = 0; /* where it ended (undrawn: its process's end) */
	for (uint32_t i = 0; i < n;) {
		struct tza_proc *p = m->procs[sorted[i].proc];
		struct row *r = &rows[sorted[i].row];
		unsigned long rgb = rgb_of(tool_color(c, c->proc_tool[sorted[i].proc]));
		double x0 = x_of(c, p_start(c, p)), x1 = x_of(c, p_end(c, p));
		int first = !i || sorted[i - 1].row != sorted[i].row ||
			    sorted[i - 1].lane != sorted[i].lane;
		if (x1 - x0 < px)
			x1 = x0 + px;
		uint32_t j = i + 1;
		int tiny = x1 - x0 < 2 * px;
		for (; tiny && j < n && sorted[j].row == sorted[i].row &&
		       sorted[j].lane == sorted[i].lane;
		     j++) {
			struct tza_proc *q = m->procs[sorted[j].proc];
			double q0 = x_of(c, p_start(c, q)), q1 = x_of(c, p_end(c, q));
			if (q0 > x1 + px || q1 - q0 >= 2 * px ||
			    rgb_of(tool_color(c, c->proc_tool[sorted[j].proc])) != rgb)
				break;
			if (q1 < q0 + px)
				q1 = q0 + px;
			if (q1 > x1)
				x1 = q1;
		}
		double end = x1;
		/* a gap of a pixel before the next bar of the lane */
		if (j < n && sorted[j].row == sorted[i].row && sorted[j].lane == sorted[i].lane) {
			double q0 = x_of(c, p_start(c, m->procs[sorted[j].proc]));
			if (q0 < x1 + px)
				x1 = q0 - px > x0 + px / 2 ? q0 - px : x0 + px / 2;
		}
		shaded = !first && x0 < lane_end + px && !shaded;
		lane_end = end;
		for (uint32_t k = i; k < j; k++) {
			sorted[k].x0 = x0;
			sorted[k].x1 = x1;
		}
		double hgt = 0.8 / (r->nlanes ? r->nlanes : 1);
		double y0 = sorted[i].row - 0.4 + sorted[i].lane * hgt;
		double y1 = y0 + hgt * (r->nlanes > 1 ? 0.85 : 1.0);
		fprintf(f, "%.6f %.6f %.4f %.4f %lu\n", x0, x1, y0, y1,
			shaded ? shade_of(rgb) : rgb);
		i = j;
	}
	fputs("EOD\n", f);

	/*
	 * Long processes get a label after their bar (at most 40, the longest)
	 * where the text fits before the next bar of its row in any lane (the
	 * text is taller than a lane) and the plot's right edge: cut to fit
	 * ("..."), left out when fewer than 8 characters fit. About 6 px a
	 * character at font 7, plus the label's offset (past the failure or
	 * exit-lost marker when the bar has one).
	 */
	double thresh = c->span_s * (per_proc ? 0.03 : 0.06);
	double xmax = x_of(c, c->t1) + c->span_s * XPAD_GANTT;
	int nlab = 0;
	/* sorted[row_at[r] .. row_at[r + 1]) are row r's bars */
	uint32_t *row_at = calloc((size_t)nrows + 1, sizeof(*row_at));
	if (!row_at) {
		free(sorted);
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		row_at[sorted[i].row + 1] = i + 1;
	for (int r = 1; r <= nrows; r++)
		if (row_at[r] < row_at[r - 1])
			row_at[r] = row_at[r - 1];
	for (int pass = 0; pass < 2 && nlab < 40; pass++) {
		for (uint32_t i = 0; i < n && nlab < 40; i++) {
			struct tza_proc *p = m->procs[sorted[i].proc];
			double d = (double)(p_end(c, p) - p_start(c, p)) / 1e9;
			if (pass == 0 ? d < thresh * 4 : (d < thresh || d >= thresh * 4))
				continue;
			if (p->first_child) /* a wrapper waiting for its children: no label */
				continue;
			double xe = sorted[i].x1, room = xmax;
			for (uint32_t k = row_at[sorted[i].row]; k < row_at[sorted[i].row + 1]; k++) {
				if (k == i)
					continue;
				if (sorted[k].x1 > xe && sorted[k].x0 < room)
					room = sorted[k].x0 > xe ? sorted[k].x0 : xe;
			}
			/* a failed or exit-lost bar ends in its marker (about a
			 * character wide, centred on the end): the label after it */
			int marked = p_failed(p) || p_lost(c, p);
			double fit = (room - xe) / px / 6.0 - (marked ? 2.2 : 1);
			if (fit < 8)
				continue;
			struct row *r = &rows[sorted[i].row];
			double hgt = 0.8 / (r->nlanes ? r->nlanes : 1);
			double y = sorted[i].row - 0.4 + (sorted[i].lane + 0.5) * hgt;
			char txt[160], ds[32];
			fmt_dur(ds, sizeof(ds), d);
			const char *why = p_failed(p) ? "  (failed)" : p_lost(c, p) ? "  (exit lost)" : "";
			snprintf(txt, sizeof(txt), "%s  %s%s", tza_proc_key(p, TZA_BY_COMMAND), ds, why);
			size_t max = fit > 60 ? 60 : (size_t)fit;
			fputs("set label ", f);
			gp_str(f, txt, strlen(txt) > max ? max - 3 : max);
			fprintf(f, " at %.6f,%.4f left offset char %s,0 font ',7' front\n", xe, y,
				marked ? "1.6" : "0.4");
			nlab++;
		}
	}
	free(row_at);
	free(sorted);
	fputs("$FAIL << EOD\n", f);
	int nfail = 0, nrun = 0, nlost = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct tza_proc *p = m->procs[bars[i].proc];
		struct row *r = &rows[bars[i].row];
		double hgt = 0.8 / (r->nlanes ? r->nlanes : 1);
		double y = bars[i].row - 0.4 + (bars[i].lane + 0.5) * hgt;
		if (p_failed(p)) {
			fprintf(f, "%.6f %.4f\n", x_of(c, p_end(c, p)), y);
			nfail++;
		}
		if (p_lost(c, p))
			nlost++;
		else
			nrun += (p->flags & TZA_P_NO_EXIT) != 0;
	}
	fputs("EOD\n", f);
	if (!nfail) /* an empty datablock is an error in gnuplot */
		fputs("$FAIL << EOD\nNaN NaN\nEOD\n", f);
	/* exit lost: the bar ends at the last event, marked there (only when
	 * there are some, so other scripts stay as they were) */
	if (nlost) {
		fputs("$LOST << EOD\n", f);
		for (uint32_t i = 0; i < n; i++) {
			struct tza_proc *p = m->procs[bars[i].proc];
			struct row *r = &rows[bars[i].row];
			double hgt = 0.8 / (r->nlanes ? r->nlanes : 1);
			if (p_lost(c, p))
				fprintf(f, "%.6f %.4f\n", x_of(c, p_end(c, p)),
					bars[i].row - 0.4 + (bars[i].lane + 0.5) * hgt);
		}
		fputs("EOD\n", f);
	}

	fputs("plot $BARS using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 with boxxyerror lc rgb variable notitle", f);
	for (int t = 0; t < c->ncolored; t++) {
		fputs(", keyentry with boxes lc rgb '", f);
		fputs(palette[c->tools[t].color], f);
		fputs("' title ", f);
		gp_str(f, c->tools[t].name, 30);
	}
	if ((size_t)c->ncolored < c->ntools)
		fputs(", keyentry with boxes lc rgb '" OTHER_COLOR "' title 'other tools'", f);
	fprintf(f, ", $FAIL using 1:2 with points pt 2 ps 1.3 lw 2 lc rgb '" FAIL_COLOR
		   "' title 'non-zero exit or signal (%d)'", nfail);
	if (nlost)
		fprintf(f, ", $LOST using 1:2 with points pt 6 ps 1.3 lw 2 lc rgb '" LOST_COLOR
			   "' title 'exit lost: ends at its last event (%d)'", nlost);
	fputc('\n', f);
	if (nrun)
		fprintf(f, "# %d process%s still running at the end of the window\n", nrun,
			nrun == 1 ? "" : "es");
	if (nlost)
		fprintf(f, "# %d process%s whose exit was lost, drawn to the last event\n", nlost,
			nlost == 1 ? "" : "es");
	rc = 0;
out:
	if (rc)
		tza_err("plot: out of memory");
	if (labels)
		for (uint32_t i = 0; i <= n; i++)
			free(labels[i]);
	free(labels);
	free(order);
	free(bars);
	free(rows);
	return rc;
}

/* ---------------------------------------------------------------- series */

/* Add rate (per ns) * overlap to bins over [s, e); zero-length: a point mass. */
static void spread(double *bins, unsigned nb, const struct ctx *c, uint64_t s, uint64_t e,
		   double total)
{
	double bw = (double)(c->t1 - c->t0) / nb;
	if (bw <= 0)
		return;
	if (e <= s) {
		unsigned b = (unsigned)((double)(s - c->t0) / bw);
		bins[b < nb ? b : nb - 1] += total / bw;
		return;
	}
	double rate = total / (double)(e - s);
	unsigned b0 = (unsigned)((double)(s - c->t0) / bw), b1 = (unsigned)((double)(e - c->t0) / bw);
	if (b1 >= nb)
		b1 = nb - 1;
	for (unsigned b = b0; b <= b1 && b < nb; b++) {
		double lo = c->t0 + b * bw, hi = lo + bw;
		double ov = (e < hi ? (double)e : hi) - (s > lo ? (double)s : lo);
		if (ov > 0)
			bins[b] += rate * ov / bw;
	}
}

/* Same, but a level held over [s, e) (time-weighted average per bin). */
static void hold(double *bins, unsigned nb, const struct ctx *c, uint64_t s, uint64_t e, double v)
{
	spread(bins, nb, c, s, e, v * (double)(e - s));
}

/* spread v over [a, b] clipped to the window */
static void spread_clip(double *bins, unsigned nb, const struct ctx *c, uint64_t a, uint64_t b,
			double v)
{
	if (b < a || b < c->t0 || a > c->t1)
		return;
	uint64_t wa = a < c->t0 ? c->t0 : a, we = b > c->t1 ? c->t1 : b;
	spread(bins, nb, c, wa, we, b > a ? v * (double)(we - wa) / (double)(b - a) : v);
}

/* A cumulative counter of a sample (what: 0 CPU ns, 1 rchar, 2 wchar,
 * 3 read_bytes, 4 write_bytes). */
static double sample_val(const struct tza_sample *s, int what)
{
	switch (what) {
	case 0: return (double)(s->utime_ns + s->stime_ns);
	case 1: return (double)s->rchar;
	case 2: return (double)s->wchar;
	case 3: return (double)s->read_bytes;
	default: return (double)s->write_bytes;
	}
}

/*
 * A cumulative counter of p drawn from its samples: each increase spread
 * over the interval it happened in (start to first sample, between samples,
 * last sample to exit with the exit total). total: the exit value (ignored
 * when the process has not exited: drawn up to its last sample).
 */
static void spread_sampled(double *bins, unsigned nb, const struct ctx *c,
			   const struct tza_proc *p, int what, double total)
{
	uint64_t t = tza_proc_charged_from(p);
	double prev = 0;
	for (uint32_t i = 0; i < p->res->nsamples; i++) {
		double v = sample_val(&p->res->samples[i], what);
		if (v > prev)
			spread_clip(bins, nb, c, t, p->res->samples[i].ts_ns, v - prev);
		if (v > prev)
			prev = v;
		t = p->res->samples[i].ts_ns;
	}
	if (!(p->flags & TZA_P_NO_EXIT) && p->end_ns && total > prev)
		spread_clip(bins, nb, c, t, p->end_ns, total - prev);
}

/* RSS of p from its samples, in MiB: each sample's value held until the
 * next (samples are written on change); the first also back to the start. */
static void hold_sampled(double *bins, unsigned nb, const struct ctx *c, const struct tza_proc *p)
{
	uint64_t end = p_last(p) > c->t1 ? c->t1 : p_last(p);
	for (uint32_t i = 0; i < p->res->nsamples; i++) {
		uint64_t a = i ? p->res->samples[i].ts_ns : p->start_ns;
		uint64_t b = i + 1 < p->res->nsamples ? p->res->samples[i + 1].ts_ns : end;
		if (a < c->t0)
			a = c->t0;
		if (b > c->t1)
			b = c->t1;
		if (b > a)
			hold(bins, nb, c, a, b, p->res->samples[i].rss_kib / 1024.0);
	}
}

static int stacked(FILE *f, struct ctx *c)
{
	struct tza_model *m = c->m;
	const struct tza_plot_opts *o = c->o;
	int is_cpu = o->kind == TZA_PLOT_CPU;
	int ns = c->ncolored + ((size_t)c->ncolored < c->ntools); /* series: top tools + other */
	unsigned nb = NBINS;
	double *bins = calloc((size_t)nb * (size_t)(ns ? ns : 1), sizeof(double));
	if (!bins) {
		tza_err("plot: out of memory");
		return -1;
	}
	uint32_t running = 0, lost = 0, sampled = 0;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		struct tza_proc *p = m->procs[i];
		if (!p_in_window(c, p))
			continue;
		if (p->res->nsamples) {
			int t = c->proc_tool[i];
			int s = c->tools[t].color >= 0 ? c->tools[t].color : ns - 1;
			sampled++;
			if (is_cpu)
				spread_sampled(bins + (size_t)s * nb, nb, c, p, 0,
					       (double)(p->utime_ns + p->stime_ns));
			else
				hold_sampled(bins + (size_t)s * nb, nb, c, p);
			continue;
		}
		if ((p->flags & TZA_P_NO_EXIT) || !p->end_ns) {
			if (p->flags & TZA_P_EXIT_LOST)
				lost++;
			else
				running++;
			continue; /* no exit totals */
		}
		int t = c->proc_tool[i];
		int s = c->tools[t].color >= 0 ? c->tools[t].color : ns - 1;
		/* totals are over the whole life; the window keeps its share */
		uint64_t a = tza_proc_charged_from(p), e = p->end_ns;
		double frac = 1;
		uint64_t wa = a < c->t0 ? c->t0 : a, we = e > c->t1 ? c->t1 : e;
		if (e > a)
			frac = (double)(we - wa) / (double)(e - a);
		if (is_cpu)
			spread(bins + (size_t)s * nb, nb, c, wa, we,
			       (double)(p->utime_ns + p->stime_ns) * frac);
		else
			hold(bins + (size_t)s * nb, nb, c, wa, we, (double)p->maxrss_kib / 1024.0);
	}
	/* cpu bins are CPU-ns per ns = cores in use; mem bins are MiB */
	double peak = 0;
	double bw_s = (c->t1 - c->t0) / 1e9 / nb;
	/*
	 * CPU spread evenly over an interval (between two samples, or a whole
	 * life without samples) can put more cores in a bin than the machine
	 * has, when the process really ran in bursts. No bin is drawn above
	 * the CPU count: such a bin's series are scaled down together to it,
	 * and the note says how many bins and how much CPU time that removed.
	 */
	unsigned nclamped = 0;
	double clamped_s = 0;
	for (unsigned b = 0; is_cpu && o->ncpus && b < nb; b++) {
		double acc = 0;
		for (int s = 0; s < ns; s++)
			acc += bins[(size_t)s * nb + b];
		if (acc <= o->ncpus)
			continue;
		for (int s = 0; s < ns; s++)
			bins[(size_t)s * nb + b] *= o->ncpus / acc;
		nclamped++;
		clamped_s += (acc - o->ncpus) * bw_s;
	}
	fputs("$S << EOD\n", f);
	for (unsigned b = 0; b < nb; b++) {
		double x = x_of(c, c->t0) + (b + 0.5) * bw_s;
		fprintf(f, "%.6f 0", x);
		double acc = 0;
		for (int s = 0; s < ns; s++) {
			acc += bins[(size_t)s * nb + b];
			fprintf(f, " %.6g", acc);
		}
		if (acc > peak)
			peak = acc;
		fputc('\n', f);
	}
	fputs("EOD\n", f);
	free(bins);
	/* the host beside the recorded processes: its busy cores per bin */
	int host = is_cpu && m->nhost >= 2;
	if (host) {
		unsigned hc = m->host[m->nhost - 1].ncpus ? m->host[m->nhost - 1].ncpus : o->ncpus;
		fputs("$H << EOD\n", f);
		for (unsigned b = 0; b < nb; b++) {
			uint64_t a = c->t0 + (uint64_t)((double)(c->t1 - c->t0) * b / nb);
			uint64_t z = c->t0 + (uint64_t)((double)(c->t1 - c->t0) * (b + 1) / nb);
			double hb = tza_host_busy(m, a, z);
			if (hb < 0)
				continue;
			fprintf(f, "%.6f %.6g\n", x_of(c, c->t0) + (b + 0.5) * bw_s, hb * hc);
			if (hb * hc > peak)
				peak = hb * hc;
		}
		fputs("EOD\n", f);
	}

	const char *note = is_cpu ? "derived from exact exit totals: each process's CPU time spread "
				    "evenly over its lifetime (no periodic samples in this trace)"
				  : "derived from exit totals: each process's peak RSS held over its whole "
				    "lifetime (an upper bound; no periodic samples in this trace)";
	char nbuf[320];
	if (sampled)
		note = is_cpu ? "from periodic samples where present (CPU between samples spread "
				"evenly), else from exact exit totals spread over the lifetime"
			      : "from periodic samples where present (RSS held between samples), "
				"else each process's peak RSS held over its lifetime";
	if (running && lost) {
		snprintf(nbuf, sizeof(nbuf), "%s; %u still running and %u with a lost exit, not counted",
			 note, running, lost);
		note = nbuf;
	} else if (running || lost) {
		snprintf(nbuf, sizeof(nbuf), "%s; %u %s, not counted", note, running + lost,
			 running ? "still running" : "with a lost exit");
		note = nbuf;
	}
	char cbuf[480];
	if (nclamped) {
		snprintf(cbuf, sizeof(cbuf),
			 "%s; %u of %u bins held to %u CPUs (%.3g CPU-s spread there beyond the machine)",
			 note, nclamped, nb, o->ncpus, clamped_s);
		note = cbuf;
	}
	/* the key at the right: its longest title (tool names cut at 30 bytes,
	 * the host line), the sample, about 6.5 px a character at font 8 */
	size_t keylen = strlen("host: every process (host samples)");
	for (int t = 0; t < c->ncolored; t++) {
		size_t l = strlen(c->tools[t].name);
		l = l > 30 ? 33 : l;
		if (l > keylen)
			keylen = l;
	}
	header(f, c, o->width ? o->width : 1400, o->height ? o->height : 650,
	       is_cpu ? "CPU: cores in use by tool" : "memory: resident set by tool", note, 0, 70,
	       (unsigned)(6.5 * (double)(keylen + 6) + 20));
	double top = peak;
	if (is_cpu && o->ncpus && o->ncpus > top)
		top = o->ncpus;
	fprintf(f, "set yrange [0:%.6g]\n", top > 0 ? top * 1.12 : 1);
	fprintf(f, "set ylabel '%s'\n", is_cpu ? "cores in use" : "resident memory (MiB)");
	fputs("set key outside right top vertical font ',8'\nset style fill solid 0.85 noborder\n", f);
	fputs("plot ", f);
	for (int s = 0; s < ns; s++) {
		if (s)
			fputs(", ", f);
		const char *name = s < c->ncolored ? c->tools[s].name : "other tools";
		const char *col = s < c->ncolored ? palette[s] : OTHER_COLOR;
		fprintf(f, "$S using 1:%d:%d with filledcurves lc rgb '%s' title ", s + 2, s + 3, col);
		gp_str(f, name, 30);
	}
	if (!ns)
		fputs("$S using 1:2 with lines notitle", f);
	if (host)
		fputs(", $H using 1:2 with lines lw 2 lc rgb '" HOST_COLOR
		      "' title 'host: every process (host samples)'",
		      f);
	if (is_cpu && o->ncpus)
		fprintf(f, ", %u with lines dt 2 lw 2 lc rgb '#222222' title '%u CPUs'", o->ncpus,
			o->ncpus);
	fputc('\n', f);
	return 0;
}

static int io(FILE *f, struct ctx *c)
{
	struct tza_model *m = c->m;
	const struct tza_plot_opts *o = c->o;
	unsigned nb = NBINS;
	double *bins = calloc((size_t)nb * 4, sizeof(double));
	if (!bins) {
		tza_err("plot: out of memory");
		return -1;
	}
	uint32_t sampled = 0;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		struct tza_proc *p = m->procs[i];
		if (p_in_window(c, p) && p->res->nsamples) {
			const double tot[4] = {(double)p->rchar, (double)p->wchar,
					       (double)p->read_bytes, (double)p->write_bytes};
			for (int k = 0; k < 4; k++)
				spread_sampled(bins + (size_t)k * nb, nb, c, p, k + 1, tot[k]);
			sampled++;
			continue;
		}
		if (!p_in_window(c, p) || (p->flags & TZA_P_NO_EXIT) || !p->end_ns)
			continue;
		uint64_t a = tza_proc_charged_from(p), e = p->end_ns;
		uint64_t wa = a < c->t0 ? c->t0 : a, we = e > c->t1 ? c->t1 : e;
		double frac = e > a ? (double)(we - wa) / (double)(e - a) : 1;
		const double v[4] = {(double)p->rchar, (double)p->wchar, (double)p->read_bytes,
				     (double)p->write_bytes};
		for (int k = 0; k < 4; k++)
			spread(bins + (size_t)k * nb, nb, c, wa, we, v[k] * frac);
	}
	/* bins are bytes per ns: x 1e9 / 2^20 = MiB/s */
	double bw_s = (c->t1 - c->t0) / 1e9 / nb, peak = 0;
	fputs("$IO << EOD\n", f);
	for (unsigned b = 0; b < nb; b++) {
		fprintf(f, "%.6f", x_of(c, c->t0) + (b + 0.5) * bw_s);
		for (int k = 0; k < 4; k++) {
			double v = bins[(size_t)k * nb + b] * 1e9 / 1048576.0;
			if (v > peak)
				peak = v;
			fprintf(f, " %.6g", v);
		}
		fputc('\n', f);
	}
	fputs("EOD\n", f);
	free(bins);
	header(f, c, o->width ? o->width : 1400, o->height ? o->height : 650,
	       "I/O: bytes per second",
	       sampled ? "from periodic samples where present (bytes between samples spread "
			 "evenly), else from exact exit totals spread over the lifetime"
		       : "derived from exact exit totals: each process's bytes spread evenly over "
			 "its lifetime (no periodic samples in this trace)",
	       0, 70, (unsigned)(6.5 * (double)(strlen("write (syscalls, wchar)") + 6) + 20));
	fprintf(f, "set yrange [0:%.6g]\n", peak > 0 ? peak * 1.12 : 1);
	fputs("set ylabel 'MiB/s'\nset key outside right top vertical font ',8'\n", f);
	fputs("plot $IO using 1:2 with lines lw 2 lc rgb '#4e79a7' title 'read (syscalls, rchar)', "
	      "$IO using 1:3 with lines lw 2 lc rgb '#f28e2b' title 'write (syscalls, wchar)', "
	      "$IO using 1:4 with lines lw 1 dt 2 lc rgb '#1f3f77' title 'read from storage', "
	      "$IO using 1:5 with lines lw 1 dt 2 lc rgb '#a0520b' title 'written to storage'\n",
	      f);
	return 0;
}

int tza_plot_script(FILE *f, struct tza_model *m, const struct tza_plot_opts *o)
{
	struct ctx c = {.m = m, .o = o};
	c.t0 = o->from_ns ? o->from_ns : m->t0_ns;
	c.t1 = o->to_ns && o->to_ns != UINT64_MAX ? o->to_ns : m->t1_ns;
	if (c.t0 < m->t0_ns && !o->from_ns)
		c.t0 = m->t0_ns;
	if (c.t1 <= c.t0)
		c.t1 = c.t0 + 1000000000ULL; /* empty or one-instant trace: a 1 s frame */
	c.span_s = (double)(c.t1 - c.t0) / 1e9;
	int rc = -1;
	if (rank_tools(&c) < 0) {
		tza_err("plot: out of memory");
		goto out;
	}
	fputs("# tracer-analyze plot: gnuplot script with inline data\n", f);
	switch (o->kind) {
	case TZA_PLOT_GANTT:
		rc = gantt(f, &c);
		break;
	case TZA_PLOT_CPU:
	case TZA_PLOT_MEM:
		rc = stacked(f, &c);
		break;
	case TZA_PLOT_IO:
		rc = io(f, &c);
		break;
	}
	fputs("unset output\n", f);
out:
	free(c.tools);
	free(c.proc_tool);
	return rc;
}

/* ---------------------------------------------------------------- gnuplot */

static char *find_in_path(const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? strdup(name) : NULL;
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *e = strchr(path, ':');
		size_t n = e ? (size_t)(e - path) : strlen(path);
		char buf[4096];
		if (n && n + strlen(name) + 2 < sizeof(buf)) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, name);
			struct stat st;
			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
				return strdup(buf);
		}
		path += n + (e != NULL);
	}
	return NULL;
}

int tza_plot_run(const char *script, size_t len)
{
	const char *name = getenv("TRACER_GNUPLOT");
	char *bin = find_in_path(name && *name ? name : "gnuplot");
	if (!bin) {
		tza_err("plot: gnuplot not found%s%s%s: install it (Debian/Ubuntu: apt-get install "
			"gnuplot-nox)",
			name && *name ? " ('" : " in PATH", name && *name ? name : "",
			name && *name ? "')" : "");
		return -1;
	}
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0) {
		tza_err("plot: pipe: %s", strerror(errno));
		free(bin);
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		tza_err("plot: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		free(bin);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[0], 0);
		/* gnuplot's chatter must not land in our stdout (bundle captures it) */
		dup2(2, 1);
		execl(bin, "gnuplot", (char *)NULL);
		fprintf(stderr, "tracer-analyze: plot: cannot run '%s': %s\n", bin, strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	struct sigaction sa = {.sa_handler = SIG_IGN}, old;
	sigaction(SIGPIPE, &sa, &old);
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fds[1], script + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* gnuplot died: its status says why */
		off += (size_t)w;
	}
	close(fds[1]);
	sigaction(SIGPIPE, &old, NULL);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			tza_err("plot: waitpid: %s", strerror(errno));
			free(bin);
			return -1;
		}
	int rc = 0;
	if (WIFSIGNALED(st)) {
		tza_err("plot: '%s' was killed by signal %d", bin, WTERMSIG(st));
		rc = -1;
	} else if (WEXITSTATUS(st) != 0) {
		tza_err("plot: '%s' failed (exit %d; its messages are above)", bin, WEXITSTATUS(st));
		rc = -1;
	}
	free(bin);
	return rc;
}
