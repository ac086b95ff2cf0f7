/* SPDX-License-Identifier: BSD-2-Clause */
/* cmd_summary.c - what ran, what it cost, what was lost, what held it back. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "dropslot.h"
#include "fleet.h"
#include "follow.h"
#include "json.h"
#include "options.h"
#include "report.h"
#include "summary.h"
#include "task.h"
#include "textsafe.h"

static const struct tza_cmd_spec summary_spec = {
    .name = "summary",
    .synopsis =
	"usage: tracer-analyze summary [--by KEY] [--task REGEX] [-n N] [--json] FILE...\n"
	"       tracer-analyze summary --follow [--interval SEC] [--by KEY] [--task REGEX]\n"
	"                              [-n N] FILE\n"
	"\n"
	"Host, recorder, wall-clock start and end, duration; counts of processes,\n"
	"execs, failed execs, non-zero exits and signals; what was lost (always one\n"
	"line: recorder drops per slot, damage; \"tree incomplete\" naming each loss\n"
	"and the orphaned pids only when something was lost; a file still being\n"
	"written, a flight recorder that overwrote its oldest data and processes that\n"
	"exited before recording are said as such); the top tools by self CPU; the\n"
	"critical path's top contributors; the CPU utilisation: the recorded\n"
	"processes' (CPU-seconds in the window / (duration x CPUs), processes still\n"
	"running counted up to their last sample), or the host's from its samples\n"
	"for whole-machine (-a) recordings, the other beside it; peak memory of the\n"
	"host and of the recorded processes together.\n"
	"\n"
	"Several hosts: give each host's trace (or a directory of them, or their\n"
	"'tracer-analyze merge'): the run first (hosts, wall-clock span, totals,\n"
	"each host's share, the top tools across hosts), then each host's summary.\n"
	"A process seen by two traces of one host (same boot id) counts once.\n"
	"\n",
    .examples = "  tracer-analyze summary trace.tz\n"
		"  tracer-analyze summary --json trace.tz | jq .counts\n"
		"  tracer-analyze summary --follow run.tz  # while tracer-record -o run.tz runs\n"
		"  tracer-analyze summary node1.tz node2.tz node3.tz   # one run, three hosts\n",
    .col = 19,
};

static const char *meta(tz_reader *r, const char *k)
{
	const char *keys[] = {k, NULL};
	return tza_meta_any(r, keys);
}

/* The one-line loss statement, always printed: "lost       none", or what
 * was lost (recorder drops by slot, events lost before the writer, corrupt
 * blocks, lost exits). */
static void print_lost(FILE *f, const struct tza_model *m, uint64_t drops_total)
{
	int k = 0;
	fputs("lost       ", f);
	if (drops_total) {
		fprintf(f, "%llu event%s dropped by the recorder (", (unsigned long long)drops_total,
			tza_plural(drops_total));
		tza_drops_list(f, m->drops);
		fputc(')', f);
		k++;
	}
	if (m->dropped_chunks)
		fprintf(f, "%s%llu before the writer", k++ ? ", " : "",
			(unsigned long long)m->dropped_chunks);
	const struct tz_info *in = tz_reader_info(m->reader);
	/* a cut last block is said as what it is, not as a corrupt one */
	uint64_t corrupt = m->corrupt_blocks - (in->torn_tail_bytes && m->corrupt_blocks ? 1 : 0);
	if (corrupt)
		fprintf(f, "%s%llu corrupt block%s", k++ ? ", " : "", (unsigned long long)corrupt,
			tza_plural(corrupt));
	if (m->exit_lost)
		fprintf(f, "%s%llu exit%s", k++ ? ", " : "", (unsigned long long)m->exit_lost,
			m->exit_lost == 1 ? "" : "s");
	if (in->torn_tail_bytes && !in->live) {
		char cut[256];
		fprintf(f, "%s%s", k++ ? ", " : "", tza_cut_text(cut, sizeof(cut), in));
	} else if (in->unfinished && !in->live) {
		fprintf(f, "%sthe events not sealed when the recorder died (unfinished file)",
			k++ ? ", " : "");
	}
	if (m->recovered_lossy) {
		fputs(k++ ? ", " : "", f);
		tza_print_recovered_loss(f, m->reader);
	}
	uint64_t unw = 0;
	const char *u = tz_reader_meta_get(m->reader, "events_unwritten");
	if (u && (unw = strtoull(u, NULL, 10)))
		fprintf(f, "%s%llu recorded but not written", k++ ? ", " : "",
			(unsigned long long)unw);
	fputs(k ? "\n" : "none\n", f);
	/* recording ended before the recorded processes did: say why (the
	 * recorder's stop_reason: a write error, a signal) */
	const char *why = tz_reader_meta_get(m->reader, "stop_reason");
	const char *mode = tz_reader_meta_get(m->reader, "mode");
	int failure = why && (!strcmp(why, "disk full") || !strcmp(why, "write error") ||
			      !strcmp(why, "ring buffer error"));
	/* -a ends on a signal by design: only a failure is news there */
	if (why && *why && (failure || !mode || strcmp(mode, "system")))
		fprintf(f, "stopped    %s: recording ended early, later events were not recorded\n",
			why);
}

/* What made the model incomplete (m->incomplete), causes that are not 0
 * only, "; "-separated, no newline. */
static void print_damage(FILE *f, const struct tza_model *m, const struct tz_info *in,
			 uint64_t drops_total)
{
	const char *sep = "";
	if (drops_total) {
		fprintf(f, "%llu event%s dropped by the recorder (", (unsigned long long)drops_total,
			tza_plural(drops_total));
		tza_drops_list(f, m->drops);
		fputc(')', f);
		sep = "; ";
	}
	if (m->dropped_chunks) {
		fprintf(f, "%s%llu event%s lost before the writer", sep,
			(unsigned long long)m->dropped_chunks, tza_plural(m->dropped_chunks));
		sep = "; ";
	}
	uint64_t corrupt = m->corrupt_blocks - (in->torn_tail_bytes && m->corrupt_blocks ? 1 : 0);
	if (corrupt) {
		fprintf(f, "%s%llu corrupt block%s", sep, (unsigned long long)corrupt,
			tza_plural(corrupt));
		if (m->duplicate_blocks)
			fprintf(f, " (%llu duplicate, skipped)",
				(unsigned long long)m->duplicate_blocks);
		sep = "; ";
	}
	if (m->no_fork) {
		fprintf(f, "%s%llu process%s seen without %s fork", sep,
			(unsigned long long)m->no_fork, m->no_fork == 1 ? "" : "es",
			m->no_fork == 1 ? "its" : "their");
		sep = "; ";
	}
	if (m->exit_lost) {
		fprintf(f, "%s%llu exit%s lost", sep, (unsigned long long)m->exit_lost,
			m->exit_lost == 1 ? "" : "s");
		sep = "; ";
	}
	if (in->ring && m->from_state && !m->ring_wrapped) {
		fprintf(f, "%s%llu process%s known only from state blocks", sep,
			(unsigned long long)m->from_state, m->from_state == 1 ? "" : "es");
		sep = "; ";
	}
	if (in->torn_tail_bytes && !in->live) {
		char cut[256];
		fprintf(f, "%s%s", sep, tza_cut_text(cut, sizeof(cut), in));
		sep = "; ";
	} else if (in->unfinished && !in->live) {
		fprintf(f, "%sunfinished file: the recorder stopped without closing it, what it "
			   "had not sealed is lost", sep);
		sep = "; ";
	}
	if (m->recovered_lossy) {
		fputs(sep, f);
		tza_print_recovered_loss(f, m->reader);
		sep = "; ";
	}
	if (!*sep) /* every model cause is listed above: keep the banner honest */
		fputs("damaged (see 'tracer-analyze verify')", f);
}

/* an OOM victim's name: its image's file name, else its comm */
/* the recorded process whose allocation ran the OOM killer that chose p:
 * its pid alive at that time; NULL when not recorded */
static const struct tza_proc *oom_trigger(const struct tza_model *m, const struct tza_proc *p)
{
	uint32_t pid = p->res->oom_trigger_pid;
	for (uint32_t i = 0; pid && i < m->nprocs; i++) {
		const struct tza_proc *t = m->procs[i];
		if (t->pid == pid && t->start_ns <= p->res->oom_ns &&
		    p->res->oom_ns <= tza_proc_end(m, t))
			return t;
	}
	return NULL;
}

static const char *victim_name(const struct tza_proc *p)
{
	const struct tza_exec *img = tza_proc_image_inherited(p);
	if (img && img->ctx->exe) {
		const char *b = strrchr(img->ctx->exe, '/');
		return b ? b + 1 : img->ctx->exe;
	}
	return p->comm;
}


/* JSON: file, host, recorder, start/end, duration, counts */
static void json_head(FILE *f, struct tza_summary *s)
{
	const struct tza_model *m = s->m;
	tz_reader *r = s->r;
	fputs("{\"file\":", f);
	tza_json_cstr(f, s->path);
	fputs(",\"host\":{\"hostname\":", f);
	tza_json_cstr(f, meta(r, "hostname"));
	tza_json_key_cstr(f, "kernel", meta(r, "kernel"));
	if (s->mi.ncpus) /* null: unknown (absent or out of range) */
		fprintf(f, ",\"cpus\":%u", s->mi.ncpus);
	else
		fputs(",\"cpus\":null", f);
	fprintf(f, ",\"memory_kib\":%llu},\"recorder\":{\"version\":",
		(unsigned long long)s->mi.mem_kib);
	tza_json_cstr(f, meta(r, "recorder_version"));
	tza_json_key_cstr(f, "cmdline", meta(r, "recorder_cmdline"));
	tza_json_key_cstr(f, "command", meta(r, "command"));
	tza_json_key_cstr(f, "mode", meta(r, "mode"));
	tza_json_key_cstr(f, "traced", tza_trace_what(r, s->m, s->whatb, sizeof(s->whatb)));
	fprintf(f, ",\"exec_failures\":%s,\"stop_reason\":", s->xf_recorded ? "true" : "false");
	tza_json_cstr(f, meta(r, "stop_reason"));
	const char *unw = meta(r, "events_unwritten");
	fprintf(f, ",\"events_unwritten\":%s},\"start\":",
		unw && *unw && strspn(unw, "0123456789") == strlen(unw) ? unw : "null");
	tza_json_cstr(f, s->ws);
	tza_json_key_cstr(f, "end", s->we);
	tza_json_key_secs(f, "duration_s", (int64_t)s->duration);
	fprintf(f,
		",\"counts\":{\"events\":%llu,\"processes\":%u,\"pre_existing\":%llu,"
		"\"execs\":%llu,\"failed_execs\":%llu,\"nonzero_exits\":%llu,"
		"\"signaled\":%llu,\"sigkill\":%llu,\"core_dumps\":%llu,\"running\":%llu},",
		(unsigned long long)m->nevents, m->nprocs, (unsigned long long)s->cnt.pre,
		(unsigned long long)m->nexecs, (unsigned long long)m->nfailed_execs,
		(unsigned long long)s->cnt.nz, (unsigned long long)s->cnt.sig,
		(unsigned long long)s->cnt.kill9, (unsigned long long)s->cnt.core,
		(unsigned long long)s->cnt.running);
}

/* JSON: the workflow managers' files embedded at the stop (EV_ATTACH), as
 * "attachments": name, size and mtime of the file then, bytes kept */
static void json_attachments(FILE *f, const struct tza_model *m)
{
	const struct tza_attachment *a;
	uint32_t n = tza_model_attachments(m, &a);
	fputs("],\"attachments\":[", f);
	for (uint32_t i = 0; i < n; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		tza_json_cstr(f, a[i].name);
		fprintf(f,
			",\"size\":%llu,\"mtime_ns\":%llu,\"bytes\":%llu,\"truncated\":%s,"
			"\"redacted\":%s}",
			(unsigned long long)a[i].size, (unsigned long long)a[i].mtime_ns,
			(unsigned long long)a[i].len, a[i].flags & TZA_ATT_TRUNCATED ? "true" : "false",
			a[i].flags & TZA_ATT_REDACTED ? "true" : "false");
	}
}

/* JSON: what was lost (incomplete .. orphaned_pids), signal senders, OOM kills */
static void json_loss(FILE *f, const struct tza_summary *s)
{
	const struct tza_model *m = s->m;
	fprintf(f,
		"\"incomplete\":%s,\"live\":%s,\"unfinished\":%s,\"ring_wrapped\":%s,"
		"\"overwritten_s\":",
		m->incomplete ? "true" : "false", m->live ? "true" : "false",
		s->in->unfinished && !m->live ? "true" : "false",
		m->ring_wrapped ? "true" : "false");
	if (m->ring_wrapped && m->overwritten_ns)
		tza_json_secs(f, (int64_t)m->overwritten_ns);
	else
		fputs("null", f);
	fprintf(f, ",\"exited_before\":%llu,\"drops\":{", (unsigned long long)m->exited_before);
	for (int i = 0; i < TZA_NDROP_SLOTS; i++)
		fprintf(f, "\"%s\":%llu,", tza_drop_slots[i].name,
			(unsigned long long)m->drops[tza_drop_slots[i].slot]);
	fprintf(f,
		"\"total\":%llu,\"chunks_dropped_events\":%llu},\"corrupt_blocks\":%llu,"
		"\"no_fork\":%llu,\"from_state\":%llu,\"exit_lost\":%llu,\"orphaned_pids\":[",
		(unsigned long long)s->drops_total, (unsigned long long)m->dropped_chunks,
		(unsigned long long)m->corrupt_blocks, (unsigned long long)m->no_fork,
		(unsigned long long)m->from_state, (unsigned long long)m->exit_lost);
	int first = 1;
	for (uint32_t i = 0; i < m->nprocs; i++)
		if (m->procs[i]->flags & TZA_P_ORPHAN) {
			fprintf(f, "%s%u", first ? "" : ",", m->procs[i]->pid);
			first = 0;
		}
	fprintf(f,
		"],\"signal_senders\":{\"kernel\":%llu,\"self\":%llu,\"other\":%llu,"
		"\"kernel_causes\":{",
		(unsigned long long)s->cnt.by_kernel, (unsigned long long)s->cnt.by_self,
		(unsigned long long)s->cnt.by_other);
	for (int i = 0; i < 8; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", tza_kernel_causes[i],
			(unsigned long long)s->cnt.kcause[i]);
	fputs("}},\"oom_kills\":[", f);
	first = 1;
	for (uint32_t i = 0; i < m->nprocs; i++) {
		const struct tza_proc *p = m->procs[i];
		if (!p->res->oom_killed)
			continue;
		char idb[TZA_ID_MAX];
		fprintf(f, "%s{\"id\":", first ? "" : ",");
		tza_json_cstr(f, tza_proc_id(p, idb));
		fprintf(f, ",\"pid\":%u,\"name\":", p->pid);
		tza_json_cstr(f, victim_name(p));
		fprintf(f,
			",\"rss_kib\":%llu,\"total_vm_kib\":%llu,\"uid\":%u,\"oom_score_adj\":%d,"
			"\"memcg_id\":%llu,\"t_s\":",
			(unsigned long long)p->res->oom_rss_kib,
			(unsigned long long)p->res->oom_total_vm_kib, p->res->oom_uid,
			p->res->oom_score_adj, (unsigned long long)p->res->oom_memcg_id);
		tza_json_secs(f, (int64_t)(p->res->oom_ns - m->t0_ns));
		fputc('}', f);
		first = 0;
	}
	json_attachments(f, m);
}

/* JSON: a number, or null when not known */
static void json_num_or_null(FILE *f, int known, double v)
{
	if (known)
		tza_json_num(f, v);
	else
		fputs("null", f);
}

/* JSON: host samples, CPU, memory */
static void json_usage(FILE *f, const struct tza_summary *s)
{
	const struct tza_model *m = s->m;
	if (m->nhost_samples) {
		fprintf(f,
			"],\"host_samples\":{\"samples\":%llu,\"mem_total_kib\":%llu,"
			"\"peak_mem_used_kib\":%llu,\"peak_mem_t_s\":",
			(unsigned long long)m->nhost_samples,
			(unsigned long long)m->host_mem_total_kib,
			(unsigned long long)m->host_peak_mem_used_kib);
		tza_json_secs(f, (int64_t)(m->host_peak_mem_ns - m->t0_ns));
		fprintf(f, ",\"process_samples\":%llu}", (unsigned long long)m->nsamples);
	} else {
		fputs("],\"host_samples\":null", f);
	}
	fputs(",\"cpu\":{\"cpu_s\":", f);
	tza_json_secs(f, (int64_t)s->cpu_used);
	fputs(",\"utilisation\":", f);
	json_num_or_null(f, s->mi.ncpus || s->by_host, s->util);
	fprintf(f, ",\"basis\":\"%s\",\"procs_utilisation\":", s->by_host ? "host" : "procs");
	json_num_or_null(f, s->mi.ncpus != 0, s->procs_util);
	fputs(",\"host_utilisation\":", f);
	json_num_or_null(f, s->host_util >= 0, s->host_util);
	fprintf(f,
		",\"running_sampled\":%llu},\"procs_memory\":", (unsigned long long)s->cnt.sampled);
	if (s->mem_kib) {
		fprintf(f, "{\"peak_rss_kib\":%llu,\"peak_t_s\":", (unsigned long long)s->mem_kib);
		tza_json_secs(f, (int64_t)(s->mem_ns - m->t0_ns));
		fputc('}', f);
	} else {
		fputs("null", f);
	}
}

/* JSON: the top tools and the critical path, closing the object */
static void json_tables(FILE *f, const struct tza_summary *s)
{
	fputs(",\"top_tools\":[", f);
	for (uint32_t i = 0; i < s->nshow; i++) {
		const struct tza_group *x = &s->g[i];
		fputs(i ? ",{\"tool\":" : "{\"tool\":", f);
		tza_json_cstr(f, x->key);
		fprintf(f, ",\"count\":%llu,\"wall_s\":", (unsigned long long)x->count);
		tza_json_secs(f, (int64_t)x->wall_ns);
		tza_json_key_secs(f, "cpu_s", (int64_t)x->cpu_ns);
		tza_json_key_num(f, "mean_cores", tza_group_cores(x));
		if (x->rss_known)
			fprintf(f, ",\"peak_rss_kib\":%llu", (unsigned long long)x->peak_rss_kib);
		else /* every process's RSS unknown (a slice's) */
			fputs(",\"peak_rss_kib\":null", f);
		fprintf(f,
			",\"read_bytes\":%llu,\"write_bytes\":%llu,"
			"\"rchar\":%llu,\"wchar\":%llu}",
			(unsigned long long)x->read_bytes,
			(unsigned long long)x->write_bytes, (unsigned long long)x->rchar,
			(unsigned long long)x->wchar);
	}
	fputs("],\"critical_path\":{\"makespan_s\":", f);
	tza_json_secs(f, (int64_t)s->cr.makespan_ns);
	fputs(",\"by_tool\":[", f);
	for (uint32_t i = 0; i < s->nc; i++) {
		fputs(i ? ",{\"tool\":" : "{\"tool\":", f);
		tza_json_cstr(f, s->cr.by_tool[i].tool);
		tza_json_key_secs(f, "seconds", (int64_t)s->cr.by_tool[i].ns);
		fputc('}', f);
	}
	fputs("]}}\n", f);
}

static void summary_json(FILE *f, struct tza_summary *s)
{
	json_head(f, s);
	json_loss(f, s);
	json_usage(f, s);
	json_tables(f, s);
}

/* "N CPUs", or "unknown CPUs" */
static const char *ncpu_text(char *b, size_t n, unsigned ncpus)
{
	if (ncpus)
		snprintf(b, n, "%u CPU%s", ncpus, ncpus == 1 ? "" : "s");
	else
		snprintf(b, n, "unknown CPUs");
	return b;
}

/* Text: trace, host, recorder, traced, start/end/duration, lost, status */
static void text_head(FILE *f, struct tza_summary *s)
{
	const struct tza_model *m = s->m;
	tz_reader *r = s->r;
	char b[4][40], ncpu[40], sh[TZA_SAFE_BUF], sk[TZA_SAFE_BUF];
	const char *host = meta(r, "hostname"), *kern = meta(r, "kernel");
	fprintf(f, "trace      %s: %s event%s, %llu chunk%s, %s\n", s->path,
		tza_fmt_count(b[0], 40, m->nevents), tza_plural(m->nevents),
		(unsigned long long)s->in->chunks, tza_plural(s->in->chunks),
		tza_fmt_bytes(b[1], 40, s->in->file_size));
	ncpu_text(ncpu, sizeof(ncpu), s->mi.ncpus);
	fprintf(f, "host       %s, Linux %s, %s, %s memory\n",
		tza_safe_str(sh, sizeof(sh), host ? host : "?"),
		tza_safe_str(sk, sizeof(sk), kern ? kern : "?"), ncpu,
		s->mi.mem_kib ? tza_fmt_bytes(b[2], 40, s->mi.mem_kib * 1024) : "unknown");
	const char *ver = meta(r, "recorder_version"), *cl = meta(r, "recorder_cmdline");
	fprintf(f, "recorder   tracer-record %s: %s\n",
		tza_safe_str(sh, sizeof(sh), ver ? ver : "?"),
		tza_safe_str(sk, sizeof(sk), cl ? cl : "?"));
	const char *what = tza_trace_what(r, s->m, s->whatb, sizeof(s->whatb));
	if (what)
		fprintf(f, "traced     %s\n", tza_safe_str(sk, sizeof(sk), what));
	fprintf(f, "start      %s\nend        %s\nduration   %s\n", s->ws ? s->ws : "?",
		s->we ? s->we : "?", tza_fmt_dur(b[3], 40, s->duration));
	print_lost(f, m, s->drops_total);
	if (m->live)
		fputs("status     still being written (the recorder is running): events "
		      "not sealed yet are not in this file, not lost\n",
		      f);
	if (m->ring_wrapped)
		fprintf(f,
			"flight recorder: the oldest %s were overwritten (the ring keeps "
			"the newest data; the first remaining event is that long after "
			"the recording started)\n",
			m->overwritten_ns ? tza_fmt_dur(b[2], 40, m->overwritten_ns)
					  : "data (time unknown)");
}

/* Text: the damage banner with the orphans, and the notes and warnings */
static void text_damage(FILE *f, const struct tza_summary *s)
{
	const struct tza_model *m = s->m;
	if (m->incomplete) {
		fputs("\n*** TREE INCOMPLETE: ", f);
		print_damage(f, m, s->in, s->drops_total);
		fputs(" ***\n", f);
		if (m->orphans) {
			fprintf(f, "orphaned pids (parent not in the trace):");
			uint64_t k = 0;
			for (uint32_t i = 0; i < m->nprocs && k < 50; i++)
				if (m->procs[i]->flags & TZA_P_ORPHAN) {
					fprintf(f, " %u", m->procs[i]->pid);
					k++;
				}
			fprintf(f, "%s\n", m->orphans > 50 ? " ..." : "");
		}
	}
	if (m->from_state)
		fprintf(f,
			"note: %llu process%s known only from state blocks (%s): "
			"their earlier history is not in the trace\n",
			(unsigned long long)m->from_state, m->from_state == 1 ? " is" : "es are",
			m->ring_wrapped ? "the flight recorder overwrote it"
			: s->in->ring	? "not explained by a wrap of the ring"
					: "a slice or a partial file");
	if (m->drops[EV_DROP_ARGV_FAULT])
		fprintf(f, "note: %llu exec%s an empty argv (argv unreadable)\n",
			(unsigned long long)m->drops[EV_DROP_ARGV_FAULT],
			m->drops[EV_DROP_ARGV_FAULT] == 1 ? " has" : "s have");
	uint64_t secrets = s->cnt.secrets;
	if (secrets)
		fprintf(f,
			"warning: %llu exec%s arguments that look like credentials "
			"(password=, token=, keys): share with 'tracer-analyze bundle "
			"--redact', record with 'tracer-record --redact'\n",
			(unsigned long long)secrets, secrets == 1 ? " has" : "s have");
}

/* Text: processes, execs, exits, signal senders */
static void text_counts(FILE *f, const struct tza_summary *s)
{
	const struct tza_model *m = s->m;
	const struct tza_summary_counts *c = &s->cnt;
	char b[8][40];
	fprintf(f, "\nprocesses  %s (%s pre-existing, %s still running", /* exit_lost */
		tza_fmt_count(b[0], 40, m->nprocs), tza_fmt_count(b[1], 40, c->pre),
		tza_fmt_count(b[2], 40, c->running));
	if (m->exit_lost)
		fprintf(f, ", %s exit%s lost", tza_fmt_count(b[0], 40, m->exit_lost),
			tza_plural(m->exit_lost));
	if (m->exited_before)
		fprintf(f, ", %s exited before recording",
			tza_fmt_count(b[0], 40, m->exited_before));
	fputs(")\n", f);
	if (s->xf_recorded)
		fprintf(f, "execs      %s, failed execs %s\n", tza_fmt_count(b[1], 40, m->nexecs),
			tza_fmt_count(b[2], 40, m->nfailed_execs));
	else
		fprintf(f,
			"execs      %s, failed execs not recorded (tracer-record "
			"--exec-failures)\n",
			tza_fmt_count(b[1], 40, m->nexecs));
	fprintf(f, "exits      %s non-zero, %s killed by a signal (%s SIGKILL, %s core dumps)\n",
		tza_fmt_count(b[4], 40, c->nz), tza_fmt_count(b[5], 40, c->sig),
		tza_fmt_count(b[6], 40, c->kill9), tza_fmt_count(b[7], 40, c->core));
	if (c->by_kernel + c->by_self + c->by_other) {
		fprintf(f, "signals    %s sent by the kernel",
			tza_fmt_count(b[4], 40, c->by_kernel));
		for (int i = 0, n = 0; i < 8; i++)
			if (c->kcause[i])
				fprintf(f, "%s%s %s", n++ ? ", " : " (",
					tza_fmt_count(b[5], 40, c->kcause[i]), tza_kernel_causes[i]);
		fprintf(f, "%s, %s by the process itself, %s by another process\n",
			c->by_kernel ? ")" : "", tza_fmt_count(b[6], 40, c->by_self),
			tza_fmt_count(b[7], 40, c->by_other));
	}
}

/* Text: CPU utilisation and memory */
static void text_usage(FILE *f, const struct tza_summary *s)
{
	const struct tza_model *m = s->m;
	char b[8][40], ncpu[40];
	double cpu_s = s->cpu_used / 1e9;
	unsigned ncpus = s->mi.ncpus;
	ncpu_text(ncpu, sizeof(ncpu), ncpus);
	tza_fmt_dur(b[3], 40, s->duration);
	if (s->by_host && ncpus)
		fprintf(f,
			"cpu        %.3f CPU-s in %s on %s: %.1f%% utilisation of the host "
			"(host samples; recorded processes %.1f%%)\n",
			cpu_s, b[3], ncpu, 100 * s->util, 100 * s->procs_util);
	else if (ncpus && s->host_util >= 0)
		fprintf(f,
			"cpu        %.3f CPU-s in %s on %s: %.1f%% utilisation by the "
			"recorded processes (host %.1f%% busy, host samples)\n",
			cpu_s, b[3], ncpu, 100 * s->util, 100 * s->host_util);
	else if (ncpus)
		fprintf(f, "cpu        %.3f CPU-s in %s on %s: %.1f%% utilisation\n", cpu_s, b[3],
			ncpu, 100 * s->util);
	else
		fprintf(f, "cpu        %.3f CPU-s in %s (CPU count unknown: no utilisation)\n",
			cpu_s, b[3]);
	if (s->cnt.sampled)
		fprintf(f,
			"           %s still running at the end: CPU, memory and I/O "
			"counted up to %s last sample\n",
			tza_fmt_count(b[0], 40, s->cnt.sampled),
			s->cnt.sampled == 1 ? "its" : "their");
	if (m->nhost_samples)
		fprintf(
		    f,
		    "memory     host peak %s used of %s at %s (%llu host, %llu process samples)\n",
		    tza_fmt_bytes(b[4], 40, m->host_peak_mem_used_kib * 1024),
		    tza_fmt_bytes(b[5], 40, m->host_mem_total_kib * 1024),
		    tza_fmt_dur(b[6], 40, m->host_peak_mem_ns - m->t0_ns),
		    (unsigned long long)m->nhost_samples, (unsigned long long)m->nsamples);
	if (s->mem_kib)
		fprintf(f,
			"%s recorded processes together peak %s resident at %s "
			"(sum of their sampled RSS)\n",
			m->nhost_samples ? "          " : "memory    ",
			tza_fmt_bytes(b[4], 40, s->mem_kib * 1024),
			tza_fmt_dur(b[5], 40, s->mem_ns > m->t0_ns ? s->mem_ns - m->t0_ns : 0));
	if (s->mem_kib && s->mem_unknown) /* a slice's: the sum is a lower bound */
		fprintf(f,
			"           %llu process%s with RSS unknown (a slice's end) not in it: "
			"at least that\n",
			(unsigned long long)s->mem_unknown, s->mem_unknown == 1 ? "" : "es");
}

/* Text: each OOM kill, with whose allocation ran the OOM killer */
static void text_oom(FILE *f, const struct tza_model *m)
{
	char b[2][40], sk[TZA_SAFE_BUF];
	if (!m->noom_kills)
		return;
	fprintf(f, "OOM kills  %llu\n", (unsigned long long)m->noom_kills);
	for (uint32_t i = 0; i < m->nprocs; i++) {
		const struct tza_proc *p = m->procs[i];
		if (!p->res->oom_killed)
			continue;
		fprintf(f, "  %s (pid %u): %s resident at %s, memory cgroup %llu",
			tza_safe_str(sk, sizeof(sk), victim_name(p)), p->pid,
			tza_fmt_bytes(b[0], 40, p->res->oom_rss_kib * 1024),
			tza_fmt_dur(b[1], 40, p->res->oom_ns - m->t0_ns),
			(unsigned long long)p->res->oom_memcg_id);
		const struct tza_proc *t = oom_trigger(m, p);
		if (p->res->oom_trigger_pid == p->pid)
			fputs(", its own allocation", f);
		else if (t)
			fprintf(f, ", on an allocation by %s (pid %u)",
				tza_safe_str(sk, sizeof(sk), victim_name(t)), t->pid);
		else if (p->res->oom_trigger_pid)
			fprintf(f, ", on an allocation by pid %u", p->res->oom_trigger_pid);
		fputc('\n', f);
	}
}

/* Text: the top tools and the critical path's contributors */
static void text_tables(FILE *f, const struct tza_summary *s, enum tza_by by)
{
	char b[6][40], sk[TZA_SAFE_BUF];
	if (s->nshow) {
		int w = tza_key_width(&s->g[0].key, sizeof(*s->g), s->nshow);
		fprintf(f, "\ntop tools by self CPU:\n  %-*s %7s %10s %10s %6s %9s %9s %9s\n", w,
			tza_by_header(by), "COUNT", "WALL", "CPU", "CORES", "PEAK RSS", "RCHAR",
			"WCHAR");
		for (uint32_t i = 0; i < s->nshow; i++) {
			const struct tza_group *x = &s->g[i];
			fputs("  ", f);
			tza_put_key(f, x->key, w);
			fprintf(f, " %7s %10s %10s %6.2f %9s %9s %9s\n",
				tza_fmt_count(b[0], 40, x->count),
				tza_fmt_dur(b[1], 40, x->cores_wall_ns), tza_fmt_dur(b[2], 40, x->cpu_ns),
				tza_group_cores(x),
				x->rss_known ? tza_fmt_bytes(b[3], 40, x->peak_rss_kib * 1024) : "-",
				tza_fmt_bytes(b[4], 40, x->rchar),
				tza_fmt_bytes(b[5], 40, x->wchar));
		}
	}
	if (s->nc) {
		const struct tza_crit *cr = &s->cr;
		fprintf(f, "\ncritical path (makespan %s):\n",
			tza_fmt_dur(b[0], 40, cr->makespan_ns));
		for (uint32_t i = 0; i < s->nc; i++)
			fprintf(f, "  %10s %5.1f%%  %s\n", tza_fmt_dur(b[1], 40, cr->by_tool[i].ns),
				cr->makespan_ns
				    ? 100.0 * (double)cr->by_tool[i].ns / (double)cr->makespan_ns
				    : 0.0,
				tza_safe_str(sk, sizeof(sk), cr->by_tool[i].tool));
	}
}

static void summary_text(FILE *f, struct tza_summary *s, enum tza_by by)
{
	text_head(f, s);
	text_damage(f, s);
	text_counts(f, s);
	text_usage(f, s);
	text_oom(f, s->m);
	text_tables(f, s, by);
}

/* The whole output of summary for path on f; info, when given, receives
 * the reader's facts (summary --follow: unfinished, live, chunks). */
void tza_summary_print(FILE *f, struct tza_summary *s, enum tza_by by, int json)
{
	if (json)
		summary_json(f, s);
	else
		summary_text(f, s, by);
}

static int summary_once(FILE *f, const char *path, enum tza_by by, uint64_t limit, int json,
			struct tz_info *info)
{
	struct tza_summary s;
	if (tza_summary_compute(path, by, limit, !json, &s, info) != TZA_EXIT_OK)
		return TZA_EXIT_FAIL;
	if (json)
		summary_json(f, &s);
	else
		summary_text(f, &s, by);
	tza_summary_free(&s);
	return TZA_EXIT_OK;
}

/* summary --follow's refresh (follow.h) */
struct summary_args {
	enum tza_by by;
	uint64_t limit;
};
static int summary_refresh(FILE *f, const char *path, void *arg, struct tz_info *info)
{
	const struct summary_args *a = arg;
	return summary_once(f, path, a->by, a->limit, 0, info);
}

int cmd_summary(int argc, char **argv)
{
	enum tza_by by = TZA_BY_TOOL;
	uint64_t limit = 10, interval_ms = 2000;
	int json = 0, follow = 0;
	const struct tza_option opts[] = {
		OPT_BY(&by, "group tools by exe, tool (default) or command\n"
			    "or task, rule, job, container (docs: Tasks)"),
		OPT_TASK("a task per outermost process matching REGEX"),
		OPT_U64('n', "limit", "N", &limit, 0, 1000000,
			"tools and critical-path entries to list (default 10,\n"
			"0 = all, as in top and diff)"),
		OPT_FLAG('j', "json", &json, "one JSON object (keys: docs/tracer-analyze.md)"),
		OPT_FOLLOW(&follow,
			 "a trace being written: the summary of its sealed chunks\n"
			 "again every --interval, as top --follow does, until the\n"
			 "recorder closes the file (the last one is the whole\n"
			 "trace's; damaged: the error and exit code of summary\n"
			 "without --follow), or the writer is gone (a cut file: the\n"
			 "same error and exit code, unless --partial), or q or Ctrl-C (the\n"
			 "newest 1-3 s are in no sealed chunk yet; kill -USR1 the\n"
			 "recorder to seal now)"),
		OPT_INTERVAL(&interval_ms, "seconds between summaries with --follow (default 2)"),
		OPT_END_TRACE,
	};
	int rc = tza_options_parse(&summary_spec, opts, argc, argv);
	if (rc >= 0)
		return rc;
	const char *path;
	rc = tza_follow_operands("summary", follow, argc, argv, &path);
	if (rc == TZA_FOLLOW_HOSTS)
		return tza_summary_hosts(stdout, argv + optind, argc - optind, by, limit, json);
	if (rc != TZA_FOLLOW_ONE)
		return rc;
	if (follow && json) {
		tza_err("summary: --follow shows text; --json is not followed (run summary --json "
			"again)");
		return TZA_EXIT_USAGE;
	}
	if (follow)
		return tza_follow("summary", path, interval_ms, summary_refresh,
				  &(struct summary_args){.by = by, .limit = limit});
	return summary_once(stdout, path, by, limit, json, NULL);
}

