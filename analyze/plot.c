/* SPDX-License-Identifier: BSD-2-Clause */
/* plot.c - what every plot shares: palette, tool ranking, gnuplot strings, the
 * title and x axis, tza_plot_script and the gnuplot driver (plot_int.h). */
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
#include "common/vec.h"
#include "json.h"
#include "plot.h"
#include "report.h"
#include "textsafe.h"

#include "plot_int.h"

const char *const plot_palette[PLOT_NCOLORS] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#76b7b2", "#edc948", "#b07aa1",
	"#ff9da7", "#9c755f", "#17becf", "#bcbd22", "#8c6bb1",
};

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
void plot_gp_str(FILE *f, const char *s, size_t max)
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

int plot_nm_init(struct plot_namemap *nm, size_t entries)
{
	nm->cap = 16;
	while (nm->cap < 2 * entries + 2)
		nm->cap *= 2;
	nm->keys = calloc(nm->cap, sizeof(*nm->keys));
	nm->vals = calloc(nm->cap, sizeof(*nm->vals));
	return nm->keys && nm->vals ? 0 : -1;
}

void plot_nm_free(struct plot_namemap *nm)
{
	free(nm->keys);
	free(nm->vals);
}

int plot_nm_get_or_add(struct plot_namemap *nm, const char *key, int val)
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

struct plot_tool *plot_tool_find(struct plot_tool **tools, size_t *n, size_t *cap,
				 const char *name)
{
	for (size_t t = 0; t < *n; t++)
		if (!strcmp((*tools)[t].name, name))
			return &(*tools)[t];
	if (VEC_ROOM(*tools, *n, *cap, 64))
		return NULL;
	struct plot_tool *t = &(*tools)[*n];
	*t = (struct plot_tool){.name = strdup(name), .first = (int)*n, .color = -1};
	if (!t->name)
		return NULL;
	(*n)++;
	return t;
}

int plot_cmp_tool(const void *a, const void *b)
{
	const struct plot_tool *x = a, *y = b;
	if (x->cpu_s != y->cpu_s)
		return x->cpu_s < y->cpu_s ? 1 : -1;
	if (x->wall_s != y->wall_s)
		return x->wall_s < y->wall_s ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Group processes by tool, rank by CPU time (then wall), colour the top ones. */
int plot_rank_tools(struct plot_ctx *c)
{
	struct tza_model *m = c->m;
	c->proc_tool = calloc(m->nprocs ? m->nprocs : 1, sizeof(int));
	c->tools = calloc(m->nprocs ? m->nprocs : 1, sizeof(struct plot_tool));
	if (!c->proc_tool || !c->tools)
		return -1;
	struct plot_namemap nm;
	if (plot_nm_init(&nm, m->nprocs) < 0) {
		plot_nm_free(&nm);
		return -1;
	}
	for (uint32_t i = 0; i < m->nprocs; i++) {
		struct tza_proc *p = m->procs[i];
		const char *k = tza_proc_key(p, TZA_BY_TOOL);
		size_t j = (size_t)plot_nm_get_or_add(&nm, k, (int)c->ntools);
		if (j == c->ntools)
			c->tools[c->ntools++].name = k;
		c->proc_tool[i] = (int)j;
		if (plot_p_in_window(c, p)) {
			c->tools[j].cpu_s += (double)(p->utime_ns + p->stime_ns) / 1e9;
			c->tools[j].wall_s += (double)(plot_p_end(c, p) - plot_p_start(c, p)) / 1e9;
		}
	}
	for (size_t j = 0; j < c->ntools; j++)
		c->tools[j].first = (int)j; /* index before ranking */
	qsort(c->tools, c->ntools, sizeof(*c->tools), plot_cmp_tool);
	int *moved = malloc(sizeof(int) * (c->ntools ? c->ntools : 1));
	if (!moved) {
		plot_nm_free(&nm);
		return -1;
	}
	for (size_t j = 0; j < c->ntools; j++) {
		moved[c->tools[j].first] = (int)j;
		c->tools[j].color = j < PLOT_NCOLORS ? (int)j : -1;
	}
	c->ncolored = c->ntools < PLOT_NCOLORS ? (int)c->ntools : PLOT_NCOLORS;
	/* the ranking moved the tools: map processes to their new index */
	for (uint32_t i = 0; i < m->nprocs; i++)
		c->proc_tool[i] = moved[c->proc_tool[i]];
	free(moved);
	plot_nm_free(&nm);
	return 0;
}

int plot_ctx_init(struct plot_ctx *c, struct tza_model *m, const struct tza_plot_opts *o)
{
	*c = (struct plot_ctx){.m = m, .o = o};
	c->t0 = o->from_ns ? o->from_ns : m->t0_ns;
	c->t1 = o->to_ns && o->to_ns != UINT64_MAX ? o->to_ns : m->t1_ns;
	if (c->t0 < m->t0_ns && !o->from_ns)
		c->t0 = m->t0_ns;
	if (c->t1 <= c->t0)
		c->t1 = c->t0 + 1000000000ULL; /* empty or one-instant trace: a 1 s frame */
	c->span_s = (double)(c->t1 - c->t0) / 1e9;
	return plot_rank_tools(c);
}

void plot_ctx_free(struct plot_ctx *c)
{
	free(c->tools);
	free(c->proc_tool);
	c->tools = NULL;
	c->proc_tool = NULL;
}

int tza_plot_colors_json(FILE *f, struct tza_model *m)
{
	static const struct tza_plot_opts whole; /* the model's whole range */
	struct plot_ctx c;
	int rc = plot_ctx_init(&c, m, &whole);
	if (rc == 0) {
		fputs("{\"other\":\"" PLOT_OTHER_COLOR "\",\"fail\":\"" PLOT_FAIL_COLOR "\",\"tools\":{", f);
		for (int j = 0; j < c.ncolored; j++) {
			if (j)
				fputc(',', f);
			tza_json_cstr(f, c.tools[j].name);
			fprintf(f, ":\"%s\"", plot_palette[c.tools[j].color]);
		}
		fputs("}}", f);
	}
	plot_ctx_free(&c);
	return rc;
}

const char *plot_tool_color(const struct plot_ctx *c, int t)
{
	return c->tools[t].color >= 0 ? plot_palette[c->tools[t].color] : PLOT_OTHER_COLOR;
}

/* ---------------------------------------------------------------- common */

void plot_fmt_dur(char *buf, size_t n, double s)
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
void plot_terminal(FILE *f, const struct tza_plot_opts *o, unsigned w, unsigned h)
{
	if (o->fmt == TZA_PLOT_PNG)
		fprintf(f, "set terminal pngcairo size %u,%u noenhanced font 'DejaVu Sans,9'\n", w, h);
	else if (o->fmt == TZA_PLOT_SVG)
		fprintf(f, "set terminal svg size %u,%u noenhanced font 'DejaVu Sans,9' background '#ffffff'\n", w, h);
	else
		fprintf(f, "set terminal pdfcairo size %.2fin,%.2fin noenhanced font 'DejaVu Sans,7'\n",
			w / 100.0, h / 100.0);
	fputs("set output ", f);
	plot_gp_str(f, o->out, 4096);
	fputc('\n', f);
}

void plot_fmt_date(char *buf, size_t n, int64_t rt_ns)
{
	snprintf(buf, n, "unknown date");
	if (rt_ns != INT64_MIN) {
		time_t t = (time_t)(rt_ns / 1000000000LL);
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm);
	}
}

void plot_title(FILE *f, const char *title, const char *note, unsigned w, unsigned left_px,
		unsigned right_px)
{
	/* centred over the plot area, not the picture; about 8 px a character
	 * at font 11 (PDF: more room at font 7) */
	double mid = ((double)left_px + (double)w - (double)right_px) / 2;
	double half = mid < (double)w - mid ? mid : (double)w - mid;
	size_t width = half > 170 ? (size_t)((2 * half - 20) / 8) : 40;
	fputs("set title ", f);
	gp_str_wrapped(f, title, 1024, width);
	if (note) {
		fputs(" . \"\\n\" . ", f);
		gp_str_wrapped(f, note, 1024, width);
	}
	fputs(" font ',11'\n", f);
}

void plot_xaxis(FILE *f, const struct tza_plot_opts *o, double x0, double x1, double xpad,
		double span_s)
{
	fputs("set border 3\nset tics nomirror out\nset grid xtics lc rgb '#dddddd' lt 1\n", f);
	if (x1 <= x0)
		x1 = x0 + 1;
	fprintf(f, "set xrange [%.6f:%.6f]\n", x0, x1 + (x1 - x0) * xpad);
	if (o->wall && o->rt0_ns != INT64_MIN) {
		fputs(span_s > 3 * 86400 ? "set format x '%m-%d %H:%M' timedate\n"
					 : "set format x '%H:%M:%S' timedate\n",
		      f);
		fputs("set xlabel 'wall-clock time (UTC)'\n", f);
	} else {
		fputs("set xlabel 'seconds from start'\n", f);
	}
}

void plot_header(FILE *f, const struct plot_ctx *c, unsigned w, unsigned h, const char *kind_title,
		 const char *note, double xpad, unsigned left_px, unsigned right_px)
{
	const struct tza_plot_opts *o = c->o;
	plot_terminal(f, o, w, h);
	char date[64], dur[32];
	plot_fmt_date(date, sizeof(date), o->rt0_ns);
	plot_fmt_dur(dur, sizeof(dur), c->span_s);
	uint32_t n = 0;
	for (uint32_t i = 0; i < c->m->nprocs; i++)
		n += plot_p_in_window(c, c->m->procs[i]) != 0;
	char title[1024];
	snprintf(title, sizeof(title), "%s: %s%s%s on %s, %s, %s, %u process%s%s", kind_title,
		 o->what ? "'" : "", o->what ? o->what : "", o->what ? "'" : "",
		 o->host ? o->host : "unknown host", date, dur, n, n == 1 ? "" : "es",
		 c->m->incomplete ? " (TRACE INCOMPLETE: drops or damage)" : "");
	plot_title(f, title, note, w, left_px, right_px);
	plot_xaxis(f, o, plot_x(c, c->t0), plot_x(c, c->t1), xpad, c->span_s);
}

int tza_plot_script(FILE *f, struct tza_model *m, const struct tza_plot_opts *o)
{
	struct plot_ctx c;
	int rc = -1;
	if (plot_ctx_init(&c, m, o) < 0) {
		tza_err("plot: out of memory");
		goto out;
	}
	fputs("# tracer-analyze plot: gnuplot script with inline data\n", f);
	switch (o->kind) {
	case TZA_PLOT_GANTT:
		rc = plot_gantt(f, &c);
		break;
	case TZA_PLOT_CPU:
	case TZA_PLOT_MEM:
		rc = plot_stacked(f, &c);
		break;
	case TZA_PLOT_IO:
		rc = plot_io(f, &c);
		break;
	}
	fputs("unset output\n", f);
out:
	plot_ctx_free(&c);
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
