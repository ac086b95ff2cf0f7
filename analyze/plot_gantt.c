/* SPDX-License-Identifier: BSD-2-Clause */
/* plot_gantt.c - the gantt drawn from its layout (plot_layout.c): bars, labels, marks, key. */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "common/cmp.h"
#include "plot_int.h"

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

static int cmp_bar(const void *a, const void *b)
{
	const struct plot_bar *x = a, *y = b;
	CMP_RET(x->row, y->row);
	CMP_RET(x->lane, y->lane);
	CMP_RET(x->start, y->start);
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/* ---------------------------------------------------------------- drawing */

/* The y position of bar b's lane: its middle (mid), else its bottom. */
static double lane_y(const struct plot_ctx *c, const struct plot_gantt_layout *g,
		     const struct plot_bar *b, double mid)
{
	const struct plot_row *r = &g->rows[b->row];
	double hgt = 0.8 / (r->nlanes ? r->nlanes : 1);
	return c->row0 + b->row - 0.4 + (b->lane + mid) * hgt;
}

/* The row labels of g as gnuplot ytics entries (rows from c->row0), each
 * but the first (first: 1) after ", ". */
static void gantt_ytics(FILE *f, const struct plot_ctx *c, const struct plot_gantt_layout *g,
			int first)
{
	for (int r = 0; r < g->nrows; r++) {
		const struct plot_row *row = &g->rows[r];
		char buf[320];
		if (g->per_proc || row->count <= 1 || row->label == g->labels[g->n]) /* "other" */
			snprintf(buf, sizeof(buf), "%s", row->label);
		else
			snprintf(buf, sizeof(buf), "%s  x%u", row->label, row->count);
		if (r || !first)
			fputs(", ", f);
		plot_gp_str(f, buf, 60);
		fprintf(f, " %d", c->row0 + r);
	}
}

/* Title, x axis and the row labels (y axis) of a w-pixel picture. Returns
 * the longest row label's length (capped at 63), its room is left of the
 * plot area. */
static size_t gantt_axes(FILE *f, const struct plot_ctx *c, const struct plot_gantt_layout *g,
			 unsigned w)
{
	int per_proc = g->per_proc, nrows = g->nrows;
	unsigned h = c->o->height ? c->o->height
				  : 170 + (per_proc ? 16 : 26) * (unsigned)(nrows < 12 ? 12 : nrows);
	if (h > 4000)
		h = 4000;
	const char *note = per_proc ? "one bar per process, in tree order; colour = tool"
				    : "one row per group (up to 4 lanes for processes running at "
				      "the same time); colour = tool";
	/* the row labels: about 6 px a character at font 8, and the margins */
	size_t maxlab = 0;
	for (int r = 0; r < nrows; r++) {
		size_t l = strlen(g->rows[r].label) + (per_proc ? 0 : 6);
		if (l > maxlab)
			maxlab = l > 63 ? 63 : l;
	}
	plot_header(f, c, w, h, "timeline", note, PLOT_XPAD_GANTT, /* room for the labels */
		    (unsigned)(6 * maxlab + 50), 10);

	/* y axis: rows top to bottom */
	fprintf(f, "set yrange [%f:%f]\n", nrows - 0.4, -0.6); /* first row on top */
	fputs("set ytics scale 0 font ',8' (", f);
	gantt_ytics(f, c, g, 1);
	fputs(")\n", f);
	fputs("set style fill solid 1.0 noborder\n", f);
	return maxlab;
}

/*
 * The key below, centred under the plot area: as many columns as fit
 * its width (gnuplot's own estimate runs past the right edge and cuts
 * the last column's marker). A column: its longest title (tool names
 * cut at 30 bytes, the failure and exit-lost entries), the sample and
 * the gaps, about 7.5 px a character at font 8.
 */
void plot_gantt_key(FILE *f, const struct plot_ctx *c, int any_lost, double plot_px)
{
	size_t keylen = strlen("non-zero exit or signal (") + 5;
	for (int t = 0; t < c->ncolored; t++) {
		size_t l = strlen(c->tools[t].name);
		l = l > 30 ? 33 : l;
		if (l > keylen)
			keylen = l;
	}
	if (any_lost && keylen < strlen("exit lost: ends at its last event (") + 5)
		keylen = strlen("exit lost: ends at its last event (") + 5;
	unsigned keycols = (unsigned)(plot_px / (7.5 * (double)(keylen + 8)));
	fprintf(f, "set key outside below horizontal font ',8' maxcols %u\n",
		keycols ? keycols : 1);
}

/*
 * $BARS's lines: the bars sorted[0..n) (by row, lane and start; their x0, x1 set
 * here as drawn), px: one pixel in x units. Back-to-back bars of one lane
 * never merge: each ends a pixel before the next one starts, and a bar that
 * touches the one before it takes the other shade of its colour
 * (shade_of), so each run stays visible. Only bars narrower than two
 * pixels that touch are drawn as one (they cannot be told apart at
 * that resolution, and a lane of 100,000 back-to-back processes then
 * costs gnuplot a few hundred boxes; the row's xN counts them).
 */
static void gantt_boxes(FILE *f, const struct plot_ctx *c, const struct plot_gantt_layout *g,
			struct plot_bar *sorted, double px)
{
	struct tza_model *m = c->m;
	uint32_t n = g->n;
	int shaded = 0;	    /* the last bar drawn in this lane took the other shade */
	double lane_end = 0; /* where it ended (undrawn: its process's end) */
	for (uint32_t i = 0; i < n;) {
		struct tza_proc *p = m->procs[sorted[i].proc];
		const struct plot_row *r = &g->rows[sorted[i].row];
		unsigned long rgb = rgb_of(plot_tool_color(c, c->proc_tool[sorted[i].proc]));
		double x0 = plot_x(c, plot_p_start(c, p)), x1 = plot_x(c, plot_p_end(c, p));
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
			double q0 = plot_x(c, plot_p_start(c, q)), q1 = plot_x(c, plot_p_end(c, q));
			if (q0 > x1 + px || q1 - q0 >= 2 * px ||
			    rgb_of(plot_tool_color(c, c->proc_tool[sorted[j].proc])) != rgb)
				break;
			if (q1 < q0 + px)
				q1 = q0 + px;
			if (q1 > x1)
				x1 = q1;
		}
		double end = x1;
		/* a gap of a pixel before the next bar of the lane */
		if (j < n && sorted[j].row == sorted[i].row && sorted[j].lane == sorted[i].lane) {
			double q0 = plot_x(c, plot_p_start(c, m->procs[sorted[j].proc]));
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
		double y0 = c->row0 + sorted[i].row - 0.4 + sorted[i].lane * hgt;
		double y1 = y0 + hgt * (r->nlanes > 1 ? 0.85 : 1.0);
		fprintf(f, "%.6f %.6f %.4f %.4f %lu\n", x0, x1, y0, y1,
			shaded ? shade_of(rgb) : rgb);
		i = j;
	}
}

/* The room (x units) right of sorted[i]'s end before the next bar of its
 * row in any lane (the text is taller than a lane) or xmax; row_at[r] ..
 * row_at[r + 1] are row r's bars in sorted[]. */
static double label_room(const struct plot_bar *sorted, const uint32_t *row_at, uint32_t i,
			 double xmax)
{
	double xe = sorted[i].x1, room = xmax;
	for (uint32_t k = row_at[sorted[i].row]; k < row_at[sorted[i].row + 1]; k++) {
		if (k == i)
			continue;
		if (sorted[k].x1 > xe && sorted[k].x0 < room)
			room = sorted[k].x0 > xe ? sorted[k].x0 : xe;
	}
	return room;
}

/*
 * Long processes get a label after their bar (at most 40, the longest)
 * where the text fits before the next bar of its row in any lane (the
 * text is taller than a lane) and the plot's right edge: cut to fit
 * ("..."), left out when fewer than 8 characters fit. About 6 px a
 * character at font 7, plus the label's offset (past the failure or
 * exit-lost marker when the bar has one). xmax: the plot's right edge (x
 * units). 0, or -1 out of memory.
 */
static int gantt_labels(FILE *f, const struct plot_ctx *c, const struct plot_gantt_layout *g,
			const struct plot_bar *sorted, double px, double xmax)
{
	uint32_t n = g->n;
	double thresh = c->span_s * (g->per_proc ? 0.03 : 0.06);
	int nlab = 0;
	/* sorted[row_at[r] .. row_at[r + 1]) are row r's bars */
	uint32_t *row_at = calloc((size_t)g->nrows + 1, sizeof(*row_at));
	if (!row_at)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		row_at[sorted[i].row + 1] = i + 1;
	for (int r = 1; r <= g->nrows; r++)
		if (row_at[r] < row_at[r - 1])
			row_at[r] = row_at[r - 1];
	for (int pass = 0; pass < 2 && nlab < 40; pass++) {
		for (uint32_t i = 0; i < n && nlab < 40; i++) {
			struct tza_proc *p = c->m->procs[sorted[i].proc];
			double d = (double)(plot_p_end(c, p) - plot_p_start(c, p)) / 1e9;
			if (pass == 0 ? d < thresh * 4 : (d < thresh || d >= thresh * 4))
				continue;
			if (p->first_child) /* a wrapper waiting for its children: no label */
				continue;
			double xe = sorted[i].x1, room = label_room(sorted, row_at, i, xmax);
			/* a failed or exit-lost bar ends in its marker (about a
			 * character wide, centred on the end): the label after it */
			int marked = plot_p_failed(p) || plot_p_lost(c, p);
			double fit = (room - xe) / px / 6.0 - (marked ? 2.2 : 1);
			if (fit < 8)
				continue;
			double y = lane_y(c, g, &sorted[i], 0.5);
			char txt[160], ds[32];
			plot_fmt_dur(ds, sizeof(ds), d);
			const char *why = plot_p_failed(p)	 ? "  (failed)"
					  : plot_p_lost(c, p) ? "  (exit lost)"
							      : "";
			snprintf(txt, sizeof(txt), "%s  %s%s", tza_proc_key(p, TZA_BY_COMMAND), ds, why);
			size_t max = fit > 60 ? 60 : (size_t)fit;
			fputs("set label ", f);
			plot_gp_str(f, txt, strlen(txt) > max ? max - 3 : max);
			fprintf(f, " at %.6f,%.4f left offset char %s,0 font ',7' front\n", xe, y,
				marked ? "1.6" : "0.4");
			nlab++;
		}
	}
	free(row_at);
	return 0;
}

/* Markers and counts of the failed, still running and exit-lost bars. */
struct gantt_marks {
	int nfail, nrun, nlost;
};

/* The lines of $FAIL (crosses at the failed bars' ends; into fail) and of
 * $LOST (circles at the exit-lost bars' last events; into lost, which may
 * be NULL when there are none: k->nlost says), counted into *k. */
static void gantt_mark_rows(FILE *fail, FILE *lost, const struct plot_ctx *c,
			    const struct plot_gantt_layout *g, struct gantt_marks *k)
{
	for (uint32_t i = 0; i < g->n; i++) {
		struct tza_proc *p = c->m->procs[g->bars[i].proc];
		if (plot_p_failed(p)) {
			k->nfail++;
			if (fail)
				fprintf(fail, "%.6f %.4f\n", plot_x(c, plot_p_end(c, p)),
					lane_y(c, g, &g->bars[i], 0.5));
		}
		if (plot_p_lost(c, p)) {
			k->nlost++;
			if (lost)
				fprintf(lost, "%.6f %.4f\n", plot_x(c, plot_p_end(c, p)),
					lane_y(c, g, &g->bars[i], 0.5));
		} else {
			k->nrun += (p->flags & TZA_P_NO_EXIT) != 0;
		}
	}
}

/* $FAIL and, when there are some, $LOST (gantt_mark_rows). */
static struct gantt_marks gantt_markers(FILE *f, const struct plot_ctx *c,
					const struct plot_gantt_layout *g)
{
	struct gantt_marks k = {0}, none = {0};
	fputs("$FAIL << EOD\n", f);
	gantt_mark_rows(f, NULL, c, g, &k);
	fputs("EOD\n", f);
	if (!k.nfail) /* an empty datablock is an error in gnuplot */
		fputs("$FAIL << EOD\nNaN NaN\nEOD\n", f);
	/* exit lost: the bar ends at the last event, marked there (only when
	 * there are some, so other scripts stay as they were) */
	if (k.nlost) {
		fputs("$LOST << EOD\n", f);
		gantt_mark_rows(NULL, f, c, g, &none);
		fputs("EOD\n", f);
	}
	return k;
}

/* The plot command: bars, the key's tools, the markers; then comments. */
void plot_gantt_cmd(FILE *f, const struct plot_ctx *c, int nfail, int nrun, int nlost)
{
	struct gantt_marks k = {.nfail = nfail, .nrun = nrun, .nlost = nlost};
	fputs("plot $BARS using (($1+$2)/2):(($3+$4)/2):1:2:3:4:5 with boxxyerror lc rgb variable notitle", f);
	for (int t = 0; t < c->ncolored; t++) {
		fputs(", keyentry with boxes lc rgb '", f);
		fputs(plot_palette[c->tools[t].color], f);
		fputs("' title ", f);
		plot_gp_str(f, c->tools[t].name, 30);
	}
	if ((size_t)c->ncolored < c->ntools)
		fputs(", keyentry with boxes lc rgb '" PLOT_OTHER_COLOR "' title 'other tools'", f);
	fprintf(f, ", $FAIL using 1:2 with points pt 2 ps 1.3 lw 2 lc rgb '" PLOT_FAIL_COLOR
		   "' title 'non-zero exit or signal (%d)'", k.nfail);
	if (k.nlost)
		fprintf(f, ", $LOST using 1:2 with points pt 6 ps 1.3 lw 2 lc rgb '" PLOT_LOST_COLOR
			   "' title 'exit lost: ends at its last event (%d)'", k.nlost);
	fputc('\n', f);
	if (k.nrun)
		fprintf(f, "# %d process%s still running at the end of the window\n", k.nrun,
			k.nrun == 1 ? "" : "es");
	if (k.nlost)
		fprintf(f, "# %d process%s whose exit was lost, drawn to the last event\n", k.nlost,
			k.nlost == 1 ? "" : "es");
}

int plot_gantt(FILE *f, struct plot_ctx *c)
{
	struct plot_gantt_layout g;
	struct plot_bar *sorted = NULL;
	int rc = -1;
	if (plot_gantt_layout(c, &g) < 0) {
		tza_err("plot: out of memory");
		return -1;
	}
	unsigned w = c->o->width ? c->o->width : 1400;
	size_t maxlab = gantt_axes(f, c, &g, w);
	/*
	 * One pixel in x units, from the plot area's width: the picture less
	 * the row labels (maxlab) and the margins.
	 */
	double plot_px = (double)w - 6.0 * (double)maxlab - 60;
	if (plot_px < 200)
		plot_px = 200;
	double px = c->span_s * (1 + PLOT_XPAD_GANTT) / plot_px;
	int any_lost = 0;
	for (uint32_t i = 0; i < g.n && !any_lost; i++)
		any_lost = plot_p_lost(c, c->m->procs[g.bars[i].proc]);
	plot_gantt_key(f, c, any_lost, plot_px);

	sorted = malloc(sizeof(*sorted) * (g.n ? g.n : 1));
	if (!sorted)
		goto out;
	for (uint32_t i = 0; i < g.n; i++) {
		sorted[i] = g.bars[i];
		sorted[i].start = plot_p_start(c, c->m->procs[g.bars[i].proc]);
	}
	qsort(sorted, g.n, sizeof(*sorted), cmp_bar);
	fputs("$BARS << EOD\n", f);
	gantt_boxes(f, c, &g, sorted, px);
	fputs("EOD\n", f);
	if (gantt_labels(f, c, &g, sorted, px, plot_x(c, c->t1) + c->span_s * PLOT_XPAD_GANTT) < 0)
		goto out;
	struct gantt_marks k = gantt_markers(f, c, &g);
	plot_gantt_cmd(f, c, k.nfail, k.nrun, k.nlost);
	rc = 0;
out:
	if (rc)
		tza_err("plot: out of memory");
	free(sorted);
	plot_gantt_layout_free(&g);
	return rc;
}

int plot_gantt_band(struct plot_ctx *c, const struct plot_gantt_layout *g, double px, double xmax,
		    struct plot_band_out *b)
{
	struct plot_bar *sorted = malloc(sizeof(*sorted) * (g->n ? g->n : 1));
	if (!sorted)
		return -1;
	for (uint32_t i = 0; i < g->n; i++) {
		sorted[i] = g->bars[i];
		sorted[i].start = plot_p_start(c, c->m->procs[g->bars[i].proc]);
	}
	qsort(sorted, g->n, sizeof(*sorted), cmp_bar);
	gantt_ytics(b->ytics, c, g, 0);
	gantt_boxes(b->bars, c, g, sorted, px);
	int rc = gantt_labels(b->labels, c, g, sorted, px, xmax);
	struct gantt_marks k = {0};
	gantt_mark_rows(b->fail, b->lost, c, g, &k);
	b->nfail += k.nfail;
	b->nlost += k.nlost;
	b->nrun += k.nrun;
	free(sorted);
	return rc;
}
