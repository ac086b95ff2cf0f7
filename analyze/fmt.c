/* SPDX-License-Identifier: BSD-2-Clause */
/* fmt.c - text formatting of durations, sizes, counts and argv (report.h). */
#include <inttypes.h>
#include <string.h>

#include "common/numfmt.h"
#include "json.h"
#include "report.h"

/* ---------------------------------------------------------- formatting */

#define SEC 1000000000ULL

const char *tza_fmt_dur(char *buf, size_t size, uint64_t ns)
{
	if (ns >= 3600 * SEC)
		snprintf(buf, size, "%lluh%02llum%02llus", (unsigned long long)(ns / (3600 * SEC)),
			 (unsigned long long)(ns / (60 * SEC) % 60),
			 (unsigned long long)(ns / SEC % 60));
	else if (ns >= 60 * SEC)
		snprintf(buf, size, "%llum%02llus", (unsigned long long)(ns / (60 * SEC)),
			 (unsigned long long)(ns / SEC % 60));
	else if (ns >= SEC)
		snprintf(buf, size, "%.3fs", (double)ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, size, "%.1fms", (double)ns / 1e6);
	else
		snprintf(buf, size, "%lluus", (unsigned long long)(ns / 1000));
	return buf;
}

const char *tza_fmt_sdur(char *buf, size_t size, int64_t ns)
{
	if (ns >= 0)
		return tza_fmt_dur(buf, size, (uint64_t)ns);
	buf[0] = '-';
	tza_fmt_dur(buf + 1, size - 1, -(uint64_t)ns);
	return buf;
}

const char *tza_fmt_bytes(char *buf, size_t size, uint64_t b)
{
	static const char *const u[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
	if (b < 1024) {
		snprintf(buf, size, "%llu B", (unsigned long long)b);
		return buf;
	}
	double v = (double)b / 1024;
	int i = 0;
	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	snprintf(buf, size, "%.1f %s", v, u[i]);
	return buf;
}

const char *tza_fmt_count(char *buf, size_t size, uint64_t n) { return numfmt_count(buf, size, n); }

double tza_secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* bytes a word may hold and stay unquoted: [A-Za-z0-9] and "_./:=+,@%^-" */
static const uint8_t safe_tab[256] = {
	['_'] = 1, ['.'] = 1, ['/'] = 1, [':'] = 1, ['='] = 1, ['+'] = 1, [','] = 1,
	['@'] = 1, ['%'] = 1, ['^'] = 1, ['-'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
	['7'] = 1, ['8'] = 1, ['9'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1,
	['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
	['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
	['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
	['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
	['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1,
	['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
};

static int safe_char(uint8_t c)
{
	return safe_tab[c];
}

/* shell-quoted form of one argument appended to a line (see tza_text_arg) */
static void line_text_arg(struct tza_line *l, const uint8_t *s, size_t len);

size_t tza_text_arg(FILE *f, const uint8_t *s, size_t len)
{
	struct tza_line l = {0};
	size_t out;

	line_text_arg(&l, s, len);
	if (l.err) { /* out of memory: the bytes as they are, never nothing */
		tza_line_free(&l);
		fwrite(s, 1, len, f);
		return len;
	}
	out = l.n;
	tza_line_write(&l, f);
	tza_line_free(&l);
	return out;
}

void tza_text_argv(FILE *f, const uint8_t *argv, uint32_t len, size_t max)
{
	size_t out = 0;
	for (uint32_t i = 0, n; i < len; i += n + 1) {
		n = tza_argv_arglen(argv + i, len - i);
		if (i) {
			fputc(' ', f);
			out++;
		}
		if (max && out + n > max) {
			/* as much of this word as fits, cut on a character boundary */
			size_t room = out < max ? max - out : 0;
			if (room >= 8 || !out) {
				if (room > n)
					room = n;
				while (room > 0 && room < n && (argv[i + room] & 0xc0) == 0x80)
					room--;
				tza_text_arg(f, argv + i, room);
			}
			fputs("...", f);
			return;
		}
		out += tza_text_arg(f, argv + i, n);
	}
}

/* a C1 control (U+0080..U+009F) encoded in n UTF-8 bytes at s */
static int is_c1(const uint8_t *s, int n)
{
	return n == 2 && s[0] == 0xc2 && s[1] < 0xa0;
}

/* tza_text_argv (no limit) appending to a line; tza_text_arg writes the same */
static void line_text_arg(struct tza_line *l, const uint8_t *s, size_t len)
{
	size_t i;
	int plain = len > 0, printable = 1;
	for (i = 0; i < len; i++) {
		if (!s[i] || !safe_char(s[i]))
			plain = 0;
		if (s[i] < 0x20 || s[i] == 0x7f || s[i] == '\'')
			printable = 0;
		else if (s[i] >= 0x80) {
			int n = tza_utf8_len(s + i, len - i);
			if (!n || is_c1(s + i, n))
				printable = 0;
			else
				i += (size_t)n - 1;
		}
	}
	if (plain) {
		tza_line_put(l, s, len);
		return;
	}
	if (printable) {
		tza_line_putc(l, '\'');
		tza_line_put(l, s, len);
		tza_line_putc(l, '\'');
		return;
	}
	static const char hex[] = "0123456789abcdef";
	tza_line_lit(l, "$'");
	for (i = 0; i < len; i++) {
		uint8_t c = s[i];
		if (c == '\n') {
			tza_line_lit(l, "\\n");
		} else if (c == '\t') {
			tza_line_lit(l, "\\t");
		} else if (c == '\\' || c == '\'') {
			tza_line_putc(l, '\\');
			tza_line_putc(l, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			char x[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
			tza_line_put(l, x, 4);
		} else if (c >= 0x80) {
			int n = tza_utf8_len(s + i, len - i);
			if (!n || is_c1(s + i, n)) { /* C1: both bytes as \xHH */
				char x[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
				tza_line_put(l, x, 4);
			} else {
				tza_line_put(l, s + i, (size_t)n);
				i += (size_t)n - 1;
			}
		} else {
			tza_line_putc(l, (char)c);
		}
	}
	tza_line_putc(l, '\'');
}

void tza_line_text_argv(struct tza_line *l, const uint8_t *argv, uint32_t len)
{
	for (uint32_t i = 0, n; i < len; i += n + 1) {
		n = tza_argv_arglen(argv + i, len - i);
		if (i)
			tza_line_putc(l, ' ');
		line_text_arg(l, argv + i, n);
	}
}

const char *tza_cut_text(char *buf, size_t size, const struct tz_info *in)
{
	char a[32], b[32], e[32];
	size_t n = 0;
	if (!in->torn_tail_bytes)
		return NULL;
	if (in->torn_tail_what)
		n = (size_t)snprintf(buf, size,
				     "the file ends inside %s %" PRIu64 " at offset %" PRIu64
				     " (%s of its %s bytes",
				     in->torn_tail_what, in->torn_tail_seq, in->torn_tail_offset,
				     tza_fmt_count(a, sizeof(a), in->torn_tail_bytes),
				     tza_fmt_count(b, sizeof(b), in->torn_tail_block_bytes));
	else
		n = (size_t)snprintf(buf, size,
				     "the file ends inside a block at offset %" PRIu64
				     " (%s bytes, its header cut",
				     in->torn_tail_offset,
				     tza_fmt_count(a, sizeof(a), in->torn_tail_bytes));
	if (in->torn_tail_events && n < size)
		n += (size_t)snprintf(buf + n, size - n, "; its %s event%s lost",
				      tza_fmt_count(e, sizeof(e), in->torn_tail_events),
				      tza_plural(in->torn_tail_events));
	if (n < size)
		snprintf(buf + n, size - n, "): cut or still being written");
	return buf;
}

const char *tza_tail_text(char *buf, size_t size, const struct tz_info *in)
{
	char a[32];
	if (!in->tail_bytes)
		return NULL;
	int n = snprintf(buf, size, "%s byte%s at offset %" PRIu64,
			 tza_fmt_count(a, sizeof(a), in->tail_bytes), tza_plural(in->tail_bytes),
			 in->tail_offset);
	if (n < 0 || (size_t)n >= size)
		return buf;
	if (in->tail_after_footer)
		snprintf(buf + n, size - (size_t)n,
			 " after the footer (appended to the closed trace; truncated to %" PRIu64
			 " bytes it is whole again)",
			 in->tail_offset);
	else if (in->torn_tail_bytes)
		snprintf(buf + n, size - (size_t)n, ": the block the file ends inside");
	else
		snprintf(buf + n, size - (size_t)n,
			 " that are no block (zeros, as a power loss leaves, or damaged bytes)");
	return buf;
}

void tza_print_recovered_loss(FILE *f, tz_reader *r)
{
	uint64_t n = 0, u = 0, off = 0, ev = 0;
	tz_reader_meta_u64(r, "recovered_damaged_blocks", &n);
	tz_reader_meta_u64(r, "recovered_unfinished", &u);
	const char *blk = tz_reader_meta_get(r, "recovered_cut_block");
	int cut = blk && !tz_reader_meta_u64(r, "recovered_cut_offset", &off);
	if (!n) { /* unfinished only: nothing left out, what was never sealed is missing */
		fputs("recovered from an unfinished file: what its recorder had not sealed was "
		      "not in it", f);
		return;
	}
	fprintf(f, "recover left out %" PRIu64 " damaged block%s of its input", n, tza_plural(n));
	if (cut) {
		fprintf(f, ", which ended inside %s at offset %" PRIu64, blk, off);
		if (!tz_reader_meta_u64(r, "recovered_cut_events", &ev) && ev)
			fprintf(f, " (its %" PRIu64 " event%s lost)", ev, tza_plural(ev));
	} else if (u) {
		fputs(", unfinished: what its recorder had not sealed was not in it", f);
	}
}
