/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_model.c - the process model, tool grouping, critical path and group
 * flags on synthetic traces written with the real writer and read back with
 * the real reader (tests/unit/analyze_synth.h). Cases of CASES.md that concern
 * the analyzer: C01 C02 C07 C08 C09 C10 C11 C14, plus pid reuse, orphans,
 * parent cycles.
 *
 * `test_model --write DIR` writes the synthetic traces as .tz files for the
 * integration tests (tests/integration/4*.sh) instead of running the tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <time.h>
#include <malloc.h>
#include <math.h>

#include <cmocka.h>

#include "analyze_synth.h"
#include "synth_model.h"
#include "analyze/model.h"
#include "analyze/model_int.h"
#include "analyze/report.h"
#include "analyze/dropslot.h"

/* The recording's start (metadata start_boottime_ns), boot-clock ns; the
 * value's text is kept in f (synth_meta keeps the pointer). */
static void fx_meta_start(struct fx *f, uint64_t ns)
{
	snprintf(f->start, sizeof(f->start), "%llu", (unsigned long long)ns);
	synth_meta(&f->s, "start_boottime_ns", f->start);
}

static void test_pipeline_tree(void **st)
{
	struct fx *f = *st;
	scen_pipeline(&f->s);
	struct tza_model *m = fx_build(f, 0);
	assert_int_equal(m->nprocs, 9);
	assert_int_equal(m->nroots, 1);
	assert_false(m->incomplete);
	struct tza_proc *root = m->roots[0];
	assert_int_equal(root->pid, 100);
	assert_int_equal(root->nchildren, 3);
	assert_int_equal(root->first_child->pid, 101);
	assert_int_equal(root->first_child->next_sibling->pid, 102);
	assert_int_equal(root->first_child->next_sibling->next_sibling->pid, 108);
	assert_int_equal(by_pid(m, 102, 0)->nchildren, 5);
	assert_string_equal(tza_proc_key(by_pid(m, 101, 0), TZA_BY_TOOL), "prep.py");
	assert_string_equal(tza_proc_key(root, TZA_BY_TOOL), "pipeline.sh");
	assert_string_equal(tza_proc_key(by_pid(m, 102, 0), TZA_BY_TOOL), "stage2.sh");
	assert_string_equal(tza_proc_key(by_pid(m, 108, 0), TZA_BY_COMMAND), "samtools index");
	assert_string_equal(tza_proc_key(by_pid(m, 108, 0), TZA_BY_EXE), "/usr/bin/samtools");
	char idb[TZA_ID_MAX];
	assert_string_equal(tza_proc_id(by_pid(m, 103, 0), idb), "103.1001250000000");
	assert_null(tza_model_find(m, "0103.1001250000000")); /* canonical spelling only */
	assert_ptr_equal(tza_model_find(m, "103.1001250000000"), by_pid(m, 103, 0));
	assert_ptr_equal(tza_model_find(m, "100.1000000000000"), root);
	assert_null(tza_model_find(m, "103.1001250000001"));
	assert_null(tza_model_find(m, "103"));
	assert_null(tza_model_find(m, "x"));
	assert_int_equal(by_pid(m, 103, 0)->end_ns - by_pid(m, 103, 0)->start_ns, 5 * SEC_NS);
}

static void test_critical_path(void **st)
{
	struct fx *f = *st;
	struct tza_crit c;
	scen_pipeline(&f->s);
	fx_build(f, 0);
	assert_int_equal(critpath_sum(f->b.m, TZA_BY_TOOL, &c), 8 * SEC_NS);
	assert_string_equal(c.by_tool[0].tool, "serial_step");
	assert_int_equal(c.by_tool[0].ns, 5 * SEC_NS);
	assert_string_equal(c.by_tool[1].tool, "samtools");
	assert_int_equal(c.by_tool[1].ns, 1500 * MS);
	assert_string_equal(c.by_tool[2].tool, "prep.py");
	assert_int_equal(c.by_tool[2].ns, 1000 * MS);
	/* root: (0,0.1] (1.1,1.2] (6.3,6.4] (7.9,8.0]; stage2: (1.2,1.25] (6.25,6.3] */
	assert_string_equal(c.by_tool[3].tool, "pipeline.sh");
	assert_int_equal(c.by_tool[3].ns, 400 * MS);
	assert_string_equal(c.by_tool[4].tool, "stage2.sh");
	assert_int_equal(c.by_tool[4].ns, 100 * MS);
	assert_int_equal(c.ntools, 5);
	assert_int_equal(c.npath, 5);
	uint32_t want[] = {100, 101, 102, 103, 108};
	for (int i = 0; i < 5; i++)
		assert_int_equal(c.path[i]->pid, want[i]);
	tza_crit_free(&c);
}

static void test_top_flags(void **st)
{
	struct fx *f = *st;
	struct tza_crit c;
	struct tza_machine mi;
	struct tza_group *g;
	uint32_t ng;
	scen_pipeline(&f->s);
	fx_build(f, 0);
	tza_machine_get(f->b.r, &mi);
	assert_int_equal(mi.ncpus, 8);
	assert_int_equal(mi.mem_kib, 16777216);
	assert_int_equal(tza_critpath(f->b.m, TZA_BY_TOOL, &c), 0);
	assert_int_equal(tza_groups(f->b.m, TZA_BY_TOOL, &c, &mi, &g, &ng), 0);
	assert_int_equal(ng, 6);
	/* sorted by CPU: serial_step 5 s, par_step 4 x 1 s, samtools 1.4 s, ... */
	assert_string_equal(g[0].key, "serial_step");
	assert_int_equal(g[0].cpu_ns, 5 * SEC_NS);
	assert_int_equal(g[0].critical_ns, 5 * SEC_NS);
	assert_true(g[0].flags & TZA_G_SERIAL);
	assert_string_equal(g[1].key, "par_step");
	assert_int_equal(g[1].count, 4);
	assert_int_equal(g[1].wall_ns, 4 * SEC_NS);
	assert_int_equal(g[1].first_ns, T0 + 1300 * MS);
	assert_int_equal(g[1].last_ns, T0 + 2300 * MS);
	assert_int_equal(g[1].critical_ns, 0);
	assert_int_equal(g[1].flags, 0);
	assert_string_equal(g[2].key, "samtools");
	assert_false(g[2].flags & TZA_G_SERIAL); /* 1.5 s on the path: under 20% */
	assert_int_equal(g[2].rchar, 300000000);
	free(g);
	tza_crit_free(&c);
}

/* `bwa mem | samtools sort`: the shell waits for sort, bwa sets the pace */
static void test_critical_path_pipe(void **st)
{
	struct fx *f = *st;
	struct tza_crit c;
	s_fork(&f->s, T0, 1, 20);
	s_exec(&f->s, T0 + 10, 20, T0, 1, "/usr/bin/bash", NULL, "bash|align.sh", "bash");
	s_proc(&f->s, 20, 21, T0 + MS, T0 + 10 * SEC_NS, "/usr/bin/bwa", "bwa|mem|ref.fa|r.fq",
	       "bwa", (struct exit_vals){.utime = 18 * SEC_NS});
	s_proc(&f->s, 20, 22, T0 + 2 * MS, T0 + 10500 * MS, "/usr/bin/samtools",
	       "samtools|sort|-o|x.bam", "samtools", (struct exit_vals){.utime = SEC_NS});
	/* a background job forked at the same time but idle is no partner */
	s_proc(&f->s, 20, 23, T0 + 3 * MS, T0 + 10400 * MS, "/usr/bin/sleep", "sleep|10", "sleep",
	       (struct exit_vals){0});
	s_exit(&f->s, T0 + 11 * SEC_NS, 20, T0, 1, "bash", (struct exit_vals){0});
	fx_build(f, 0);
	assert_int_equal(critpath_sum(f->b.m, TZA_BY_COMMAND, &c), 11 * SEC_NS);
	/* sort's own time (2 ms, 10.5 s] goes to bwa while bwa ran: (2 ms, 10 s] */
	assert_string_equal(c.by_tool[0].tool, "bwa mem");
	assert_int_equal(c.by_tool[0].ns, 10 * SEC_NS - 2 * MS);
	assert_string_equal(c.by_tool[1].tool, "align.sh");
	assert_int_equal(c.by_tool[1].ns, 500 * MS + 2 * MS);
	assert_string_equal(c.by_tool[2].tool, "samtools sort");
	assert_int_equal(c.by_tool[2].ns, 500 * MS);
	assert_int_equal(c.npath, 3); /* bash, bwa, samtools; not sleep */
	assert_int_equal(c.path[1]->pid, 21);
	tza_crit_free(&c);
}

/* C07: the same events in a shuffled order give the identical model */
static void c07_scenario(struct synth *s)
{
	struct exit_vals v = {.utime = 2 * MS, .rss_kib = 1000};
	s_fork(s, T0, 1, 1000);
	s_exec(s, T0 + 10, 1000, T0, 1, "/opt/parent", NULL, "parent", "parent");
	uint64_t t = T0 + MS;
	for (uint32_t i = 0; i < 200; i++) {
		uint32_t c = 2000 + 3 * i;
		s_fork(s, t, 1000, c);
		s_exec(s, t + 1000, c, t, 1000, "/opt/child", NULL, "child", "child");
		s_proc(s, c, c + 1, t + 2000, t + 50000, "/bin/true", "true|g1", "true", v);
		s_proc(s, c, c + 2, t + 3000, t + 60000, "/bin/true", "true|g2", "true", v);
		s_exit(s, t + 100000, c, t, 1000, "child", v);
		t += 100000 + 7;
	}
	s_exit(s, t + MS, 1000, T0, 1, "parent", v);
}

static char *dump(struct tza_model *m)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	for (uint32_t i = 0; i < m->nprocs; i++) {
		struct tza_proc *p = m->procs[i];
		char i1[TZA_ID_MAX], i2[TZA_ID_MAX];
		fprintf(f, "%s %s %u %llu %llu %u %s %u\n", tza_proc_id(p, i1),
			p->parent ? tza_proc_id(p->parent, i2) : "-",
			p->nchildren, (unsigned long long)p->end_ns,
			(unsigned long long)tza_proc_cpu(p), p->nexecs,
			tza_proc_key(p, TZA_BY_TOOL), p->flags);
	}
	fclose(f);
	return out;
}

static void test_c07_shuffled(void **st)
{
	(void)st;
	struct synth s = {0};
	struct built a, b;
	c07_scenario(&s);
	build_model(&s, NULL, 0, &a);
	size_t *order = malloc(s.n * sizeof(*order));
	for (size_t i = 0; i < s.n; i++)
		order[i] = s.n - 1 - i; /* reversed */
	srand(7);
	for (size_t i = s.n - 1; i > 0; i--) { /* then shuffled */
		size_t j = (size_t)rand() % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	build_model(&s, order, 0, &b);
	assert_int_equal(a.m->nprocs, 601);
	assert_int_equal(a.m->nroots, 1);
	assert_int_equal(a.m->roots[0]->nchildren, 200);
	char *da = dump(a.m), *db = dump(b.m);
	assert_string_equal(da, db);
	/* no child before its parent */
	for (uint32_t i = 0; i < b.m->nprocs; i++)
		if (b.m->procs[i]->parent)
			assert_true(b.m->procs[i]->parent->index < i);
	free(da);
	free(db);
	free(order);
	unbuild(&a);
	unbuild(&b);
	synth_free(&s);
}

static void test_pid_reuse(void **st)
{
	struct fx *f = *st;
	s_fork(&f->s, T0, 1, 10);
	s_exec(&f->s, T0 + 1, 10, T0, 1, "/usr/bin/bash", NULL, "bash|x.sh", "bash");
	s_proc(&f->s, 10, 200, T0 + MS, T0 + 2 * MS, "/usr/bin/a", "a", "a", f->v);
	s_proc(&f->s, 10, 200, T0 + 3 * MS, T0 + 9 * MS, "/usr/bin/b", "b", "b", f->v);
	s_proc(&f->s, 200, 201, T0 + 4 * MS, T0 + 5 * MS, "/usr/bin/c", "c", "c", f->v);
	s_exit(&f->s, T0 + 10 * MS, 10, T0, 1, "bash", f->v);
	fx_build(f, 0);
	struct tza_proc *a1 = by_pid(f->b.m, 200, 0), *a2 = by_pid(f->b.m, 200, 1);
	assert_non_null(a1);
	assert_non_null(a2);
	{
		char i1[TZA_ID_MAX], i2[TZA_ID_MAX];
		assert_string_not_equal(tza_proc_id(a1, i1), tza_proc_id(a2, i2));
	}
	assert_string_equal(tza_proc_key(a1, TZA_BY_TOOL), "a");
	assert_string_equal(tza_proc_key(a2, TZA_BY_TOOL), "b");
	assert_int_equal(a1->nchildren, 0);
	assert_int_equal(a2->nchildren, 1);
	assert_int_equal(a2->first_child->pid, 201);
	assert_int_equal(f->b.m->nprocs, 4);
	assert_false(f->b.m->incomplete);
}

static void test_reparented_orphan(void **st)
{
	struct fx *f = *st;
	s_fork(&f->s, T0, 1, 300);
	s_exec(&f->s, T0 + 1, 300, T0, 1, "/usr/bin/dash", NULL, "sh|-c|sleep 5 &", "sh");
	s_fork(&f->s, T0 + MS, 300, 301);
	s_exec(&f->s, T0 + 2 * MS, 301, T0 + MS, 300, "/usr/bin/sleep", NULL, "sleep|5", "sleep");
	s_exit(&f->s, T0 + 3 * MS, 300, T0, 1, "sh", f->v);
	s_exit(&f->s, T0 + 5 * SEC_NS, 301, T0 + MS, 1, "sleep", f->v); /* reparented to init */
	fx_build(f, 0);
	struct tza_proc *o = by_pid(f->b.m, 301, 0);
	assert_non_null(o->parent);
	assert_int_equal(o->parent->pid, 300);
	assert_int_equal(o->ppid, 300);
	assert_int_equal(o->exit_ppid, 1);
	assert_true(o->flags & TZA_P_REPARENTED);
	assert_false(by_pid(f->b.m, 300, 0)->flags & TZA_P_REPARENTED);
	/* the critical path waits for the root only: the orphan is not on it */
	struct tza_crit c;
	assert_int_equal(tza_critpath(f->b.m, TZA_BY_TOOL, &c), 0);
	assert_int_equal(c.makespan_ns, 3 * MS);
	assert_int_equal(c.npath, 1);
	tza_crit_free(&c);
}

/* C09: env with failed PATH lookups, then sleep: two images, three failures */
static void test_c09_exec_chain(void **st)
{
	struct fx *f = *st;
	s_fork(&f->s, T0, 1, 400);
	s_exec(&f->s, T0 + 10, 400, T0, 1, "/usr/bin/env", NULL,
	       "env|PATH=/nx1:/nx2:/nx3:/usr/bin|sleep|0", "env");
	s_exec_fail(&f->s, T0 + 20, 400, ENOENT, "/nx1/sleep");
	s_exec_fail(&f->s, T0 + 30, 400, ENOENT, "/nx2/sleep");
	s_exec_fail(&f->s, T0 + 40, 400, ENOENT, "/nx3/sleep");
	s_exec(&f->s, T0 + 50, 400, T0, 1, "/usr/bin/sleep", NULL, "sleep|0", "sleep");
	s_exit(&f->s, T0 + MS, 400, T0, 1, "sleep", f->v);
	fx_build(f, 0);
	assert_int_equal(f->b.m->nprocs, 1);
	struct tza_proc *p = f->b.m->procs[0];
	assert_int_equal(p->nexecs, 2);
	assert_string_equal(p->execs[0].ctx->exe, "/usr/bin/env");
	assert_string_equal(p->execs[1].ctx->exe, "/usr/bin/sleep");
	assert_int_equal(p->nfailed, 3);
	assert_string_equal(p->failed[2].filename, "/nx3/sleep");
	assert_int_equal(p->failed[2].err, ENOENT);
	assert_int_equal(f->b.m->nexecs, 2);
	assert_int_equal(f->b.m->nfailed_execs, 3);
	assert_string_equal(tza_proc_key(p, TZA_BY_TOOL), "sleep");
	assert_string_equal(tza_proc_key(p, TZA_BY_EXE), "/usr/bin/sleep");
}

/* C01 threads folded; C02 exit status and signals */
static void test_c01_c02(void **st)
{
	struct fx *f = *st;
	s_proc(&f->s, 1, 500, T0, T0 + MS, "/opt/threads", "threads|50", "threads",
	       (struct exit_vals){.threads = 51});
	s_proc(&f->s, 1, 501, T0, T0 + MS, "/opt/x", "x", "x", (struct exit_vals){.code = 77});
	s_proc(&f->s, 1, 502, T0, T0 + MS, "/opt/x", "x", "x", (struct exit_vals){.sig = 9});
	s_proc(&f->s, 1, 503, T0, T0 + MS, "/opt/x", "x", "x",
	       (struct exit_vals){.sig = 11, .core = 1});
	s_proc(&f->s, 1, 504, T0, T0 + MS, "/opt/x", "x", "x", (struct exit_vals){.code = 259});
	fx_build(f, 0);
	assert_int_equal(f->b.m->nprocs, 5);
	struct tza_proc *t = by_pid(f->b.m, 500, 0);
	assert_int_equal(t->threads, 51);
	assert_int_equal(t->nchildren, 0);
	assert_int_equal(by_pid(f->b.m, 501, 0)->exit_code, 77);
	assert_int_equal(by_pid(f->b.m, 501, 0)->signal, 0);
	assert_int_equal(by_pid(f->b.m, 502, 0)->signal, 9);
	assert_int_equal(by_pid(f->b.m, 502, 0)->exit_code, -1);
	assert_false(by_pid(f->b.m, 502, 0)->core_dumped);
	assert_int_equal(by_pid(f->b.m, 503, 0)->signal, 11);
	assert_true(by_pid(f->b.m, 503, 0)->core_dumped);
	assert_int_equal(by_pid(f->b.m, 504, 0)->exit_code, 3);
	assert_true(tza_proc_failed(by_pid(f->b.m, 502, 0)));
	assert_false(tza_proc_failed(t));
}

/* C10 shebang scripts grouped by script; C11 comm is not an identity */
static void test_c10_c11(void **st)
{
	struct fx *f = *st;
	struct exit_vals v1 = {.utime = SEC_NS}, v2 = {.utime = 2 * SEC_NS};
	s_fork(&f->s, T0, 1, 600);
	s_exec(&f->s, T0 + 10, 600, T0, 1, "/usr/bin/dash", "./run.sh", "/bin/sh|./run.sh|a|b",
	       "run.sh");
	s_exit(&f->s, T0 + SEC_NS, 600, T0, 1, "run.sh", v1);
	s_fork(&f->s, T0, 1, 601);
	s_exec(&f->s, T0 + 10, 601, T0, 1, "/usr/bin/dash", "./other.sh", "/bin/sh|./other.sh",
	       "other.sh");
	s_exit(&f->s, T0 + SEC_NS, 601, T0, 1, "other.sh", v1);
	/* #!/usr/bin/env python3: env (script flag) then python3 */
	s_fork(&f->s, T0, 1, 602);
	s_exec(&f->s, T0 + 10, 602, T0, 1, "/usr/bin/env", "./p.py", "/usr/bin/env|python3|./p.py",
	       "p.py");
	s_exec(&f->s, T0 + 20, 602, T0, 1, "/usr/bin/python3.11", NULL, "python3|./p.py",
	       "python3");
	s_exit(&f->s, T0 + SEC_NS, 602, T0, 1, "python3", v1);
	s_proc(&f->s, 1, 603, T0, T0 + SEC_NS, "/opt/cross/x86_64-linux-gnu-as", "as",
	       "x86_64-linux-gn", v1);
	s_proc(&f->s, 1, 604, T0, T0 + 2 * SEC_NS, "/opt/cross/x86_64-linux-gnu-ld", "ld",
	       "x86_64-linux-gn", v2);
	s_fork(&f->s, T0, 1, 605);
	s_exec(&f->s, T0 + 10, 605, T0, 1, "/opt/burner", NULL, "burner", "burner");
	s_exit(&f->s, T0 + SEC_NS, 605, T0, 1, "renamed", v1);
	fx_build(f, 0);
	struct tza_proc *r = by_pid(f->b.m, 600, 0);
	assert_string_equal(r->execs[0].ctx->script, "./run.sh");
	assert_string_equal(r->execs[0].ctx->exe, "/usr/bin/dash");
	assert_string_equal(tza_proc_key(r, TZA_BY_TOOL), "run.sh");
	assert_string_equal(tza_proc_key(by_pid(f->b.m, 601, 0), TZA_BY_TOOL), "other.sh");
	assert_string_equal(tza_proc_key(by_pid(f->b.m, 602, 0), TZA_BY_TOOL), "p.py");
	struct tza_crit c;
	struct tza_machine mi = {2, 0};
	struct tza_group *g;
	uint32_t ng;
	assert_int_equal(tza_critpath(f->b.m, TZA_BY_EXE, &c), 0);
	assert_int_equal(tza_groups(f->b.m, TZA_BY_EXE, &c, &mi, &g, &ng), 0);
	int seen = 0;
	for (uint32_t i = 0; i < ng; i++) {
		if (!strcmp(g[i].key, "/opt/cross/x86_64-linux-gnu-as")) {
			assert_int_equal(g[i].cpu_ns, SEC_NS);
			seen++;
		}
		if (!strcmp(g[i].key, "/opt/cross/x86_64-linux-gnu-ld")) {
			assert_int_equal(g[i].cpu_ns, 2 * SEC_NS);
			seen++;
		}
	}
	assert_int_equal(seen, 2);
	free(g);
	tza_crit_free(&c);
	struct tza_proc *ren = by_pid(f->b.m, 605, 0);
	assert_string_equal(ren->comm, "renamed");
	assert_string_equal(ren->execs[0].ctx->comm, "burner");
	assert_string_equal(tza_proc_key(ren, TZA_BY_TOOL), "burner");
}

/* docs/EVENTS.md [E14]: an exec or exit with an empty comm keeps the known one */
static void test_comm_empty_keeps(void **st)
{
	struct fx *f = *st;
	struct exit_vals v = {.utime = SEC_NS};
	s_fork(&f->s, T0, 1, 700);
	s_exec(&f->s, T0 + 10, 700, T0, 1, "/usr/bin/make", NULL, "make", "make");
	s_exec(&f->s, T0 + 20, 700, T0, 1, "/usr/bin/sh", NULL, "sh|-c|true", "");
	s_exit(&f->s, T0 + SEC_NS, 700, T0, 1, "", v);
	fx_build(f, 0);
	struct tza_proc *p = by_pid(f->b.m, 700, 0);
	assert_int_equal(p->nexecs, 2);
	assert_string_equal(p->comm, "make");
	assert_string_equal(p->execs[1].ctx->comm, "");
	assert_string_equal(p->execs[1].ctx->exe, "/usr/bin/sh");
}

/* C14: a pre-existing shell from the snapshot, its 200 children under it once */
static void test_c14_pre_existing(void **st)
{
	struct fx *f = *st;
	uint64_t born = T0 - 5 * SEC_NS;
	s_state(&f->s, T0, 700, born, 1, "/usr/bin/dash",
		"sh|-c|sleep 2; for i in $(seq 200); do /bin/true; done", EV_STATE_PRE_EXISTING,
		"sh");
	for (uint32_t i = 0; i < 200; i++)
		s_proc(&f->s, 700, 1000 + i, T0 + (i + 1) * MS, T0 + (i + 1) * MS + 500000,
		       "/usr/bin/true", "/bin/true", "true", f->v);
	/* a late state block repeats the living shell: no duplicate; and one
	 * written before the writer saw a child's exit does not revive it */
	s_state(&f->s, T0 + SEC_NS, 700, born, 1, "/usr/bin/dash", "sh", EV_STATE_PRE_EXISTING,
		"sh");
	s_state(&f->s, T0 + SEC_NS, 1000, T0 + MS, 700, "/usr/bin/true", "/bin/true", 0, "true");
	fx_build(f, 0);
	assert_int_equal(f->b.m->nprocs, 201);
	assert_int_equal(f->b.m->nroots, 1);
	struct tza_proc *sh = f->b.m->roots[0];
	assert_int_equal(sh->pid, 700);
	assert_true(sh->flags & TZA_P_PRE_EXISTING);
	assert_true(sh->flags & TZA_P_NO_EXIT);
	assert_int_equal(sh->nchildren, 200);
	assert_int_equal(sh->nexecs, 1);
	assert_true(sh->execs[0].flags & TZA_EXEC_FROM_STATE);
	/* pre-existing is not "argv cut" (EV_EXEC_ARGV_TRUNCATED shares its bit) */
	assert_false(sh->flags & TZA_P_ARGV_TRUNCATED);
	assert_false(sh->execs[0].flags & EV_EXEC_ARGV_TRUNCATED);
	assert_false(f->b.m->incomplete);
	assert_int_equal(f->b.m->orphans, 0);
}

/* A process known only from a state block (ring mode) whose argv was cut is
 * not pre-existing; a pre-existing one whose argv was cut has both flags. */
static void test_state_argv_truncated(void **st)
{
	struct fx *f = *st;
	s_state(&f->s, T0, 700, T0 - SEC_NS, 1, "/usr/bin/dash", "sh", EV_STATE_PRE_EXISTING, "sh");
	s_state(&f->s, T0 + SEC_NS, 710, T0 + 10 * MS, 700, "/usr/bin/python3", "python3|-c|x",
		EV_STATE_ARGV_TRUNCATED, "python3");
	s_state(&f->s, T0 + SEC_NS, 720, T0 - SEC_NS, 700, "/usr/bin/python3", "python3|-c|y",
		EV_STATE_PRE_EXISTING | EV_STATE_ARGV_TRUNCATED, "python3");
	fx_build(f, 0);
	struct tza_proc *p = by_pid(f->b.m, 710, 0), *q = by_pid(f->b.m, 720, 0);
	assert_non_null(p);
	assert_non_null(q);
	assert_false(p->flags & TZA_P_PRE_EXISTING);
	assert_true(p->flags & TZA_P_FROM_STATE);
	assert_true(p->flags & TZA_P_ARGV_TRUNCATED);
	assert_true(p->execs[0].flags & EV_EXEC_ARGV_TRUNCATED);
	assert_true(q->flags & TZA_P_PRE_EXISTING);
	assert_true(q->flags & TZA_P_ARGV_TRUNCATED);
	assert_false(by_pid(f->b.m, 700, 0)->flags & TZA_P_ARGV_TRUNCATED);
}

/* A process's last known credentials (tza_proc_uid, tza_proc_euid, read
 * from its last image since issue 22 item 2): a state block's, also one that
 * gave it no image (a kernel thread: neither exe nor argv), then its exec's */
static void push_state_cred(struct synth *s, uint64_t ts, uint32_t tgid, const char *exe,
			    const char *argv, uint32_t uid, uint32_t euid)
{
	char buf[sizeof(struct ev_proc_state) + 256];
	struct ev_proc_state *e = (struct ev_proc_state *)buf;
	memset(e, 0, sizeof(*e));
	size_t n = strlen(exe);
	memcpy(buf + sizeof(*e), exe, n);
	uint32_t al = *argv ? synth_argv(argv, buf + sizeof(*e) + n) : 0;
	e->hdr = (struct ev_hdr){(uint32_t)(sizeof(*e) + n + al), EV_PROC_STATE, 0, ts};
	e->start_ns = T0 - SEC_NS;
	e->tgid = e->ns_pid = tgid;
	e->ppid = 2;
	e->uid = uid;
	e->euid = euid;
	e->argv_size = e->argv_len = al;
	e->exe_len = (uint16_t)n;
	e->flags = EV_STATE_PRE_EXISTING;
	strcpy(e->comm, "x");
	synth_push(s, buf, e->hdr.size);
}

static void test_state_credentials(void **st)
{
	struct fx *f = *st;
	push_state_cred(&f->s, T0, 800, "", "", 1234, 4321);
	push_state_cred(&f->s, T0, 810, "/usr/bin/dash", "sh", 77, 78);
	push_state_cred(&f->s, T0, 820, "/usr/bin/dash", "sh", 55, 56);
	push_state_cred(&f->s, T0, 830, "", "", 0, 0);
	s_exec(&f->s, T0 + SEC_NS, 810, T0 - SEC_NS, 2, "/usr/bin/make", NULL, "make", "make");
	s_exec(&f->s, T0 + 2 * SEC_NS, 840, T0 + SEC_NS, 2, "/usr/bin/make", NULL, "make|-j",
	       "make");
	s_exec(&f->s, T0 + 2 * SEC_NS, 850, T0 + SEC_NS, 2, "/usr/bin/make", NULL, "make|-k",
	       "make");
	fx_build(f, 0);
	struct tza_proc *k = by_pid(f->b.m, 800, 0), *a = by_pid(f->b.m, 810, 0),
			*b = by_pid(f->b.m, 820, 0), *z = by_pid(f->b.m, 830, 0);
	assert_non_null(k);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(z);
	assert_int_equal(k->nexecs, 0);
	assert_int_equal(tza_proc_uid(k), 1234);
	assert_int_equal(tza_proc_euid(k), 4321);
	assert_int_equal(z->nexecs, 0);
	assert_int_equal(tza_proc_uid(z), 0);
	assert_ptr_equal(z->res, &tza_res_none); /* root's zeros take no block */
	assert_int_equal(a->nexecs, 2);
	assert_int_equal(a->execs[0].ctx->uid, 77);
	assert_int_equal(tza_proc_uid(a), 1000); /* s_exec's */
	assert_int_equal(tza_proc_euid(a), 1000);
	assert_int_equal(tza_proc_uid(b), 55);
	assert_int_equal(tza_proc_euid(b), 56);
	/* equal images (an exec storm's) share one context */
	struct tza_proc *m1 = by_pid(f->b.m, 840, 0), *m2 = by_pid(f->b.m, 850, 0);
	assert_non_null(m1);
	assert_non_null(m2);
	assert_ptr_equal(m1->execs[0].ctx, m2->execs[0].ctx);
	assert_ptr_not_equal(m1->execs[0].ctx, a->execs[0].ctx);
	assert_string_equal(m1->execs[0].ctx->exe, "/usr/bin/make");
}

/* fault 7: a process that started before the recording (metadata
 * start_boottime_ns) and exited before the snapshot saw it is pre-existing,
 * not incomplete data; one started after it without a fork still is */
static void test_exited_during_attach(void **st)
{
	struct fx *f = *st;
	fx_meta_start(f, T0 + 100 * MS);
	/* the first event precedes the recorder's start: the start is the
	 * metadata's, not the first event's */
	s_state(&f->s, T0, 700, T0 - 9 * SEC_NS, 1, "/usr/bin/dash", "sh", EV_STATE_PRE_EXISTING,
		"sh");
	s_exit(&f->s, T0 + 80 * MS, 820, T0 + 60 * MS, 600, "cron",
	       f->v); /* exited during attach */
	s_fork(&f->s, T0 + 200 * MS, 700, 701);
	s_exit(&f->s, T0 + 300 * MS, 701, T0 + 200 * MS, 700, "sh", f->v);
	fx_build(f, 0);
	struct tza_proc *p = by_pid(f->b.m, 820, 0);
	assert_true(p->flags & TZA_P_PRE_EXISTING);
	assert_false(p->flags & (TZA_P_NO_FORK | TZA_P_ORPHAN));
	assert_false(f->b.m->incomplete);
	assert_int_equal(f->b.m->no_fork, 0);
	assert_int_equal(f->b.m->orphans, 0);
	unbuild(&f->b);

	/* the same with a process started after the recording's start */
	s_exit(&f->s, T0 + 400 * MS, 830, T0 + 150 * MS, 600, "lost", f->v);
	fx_build(f, 0);
	assert_true(by_pid(f->b.m, 820, 0)->flags & TZA_P_PRE_EXISTING);
	p = by_pid(f->b.m, 830, 0);
	assert_true(p->flags & TZA_P_NO_FORK);
	assert_false(p->flags & TZA_P_PRE_EXISTING);
	assert_true(f->b.m->incomplete);
	assert_int_equal(f->b.m->no_fork, 1);
}

/* issue 23: a pre-existing process's counters count from the recording's
 * start: with a sample (the sampler's first pass), that sample is subtracted
 * from its exit totals and its samples; without one, pro-rata by the share
 * of its life after the start; a process started in the recording is
 * untouched, and a model built with TZA_MB_LIFETIME keeps whole-life totals */
static void test_pre_existing_from_start(void **st)
{
	struct fx *f = *st;
	uint64_t t_start = T0 + 10 * SEC_NS; /* the recording's start */
	fx_meta_start(f, t_start);
	/* 700: 3 h of CPU before the recording; sampled at its first pass,
	 * then 2 s more by its exit */
	s_state(&f->s, t_start, 700, T0, 1, "/usr/bin/burn", "burn", EV_STATE_PRE_EXISTING, "burn");
	s_state(&f->s, t_start, 800, T0, 1, "/usr/bin/idle", "idle", EV_STATE_PRE_EXISTING, "idle");
	s_sample_cpu(&f->s, t_start + 50 * MS, 700, T0, 10800 * SEC_NS, 100);
	s_sample_cpu(&f->s, t_start + SEC_NS, 700, T0, 10801 * SEC_NS, 100);
	struct exit_vals v = {.utime = 10802 * SEC_NS, .rchar = 5000};
	s_exit(&f->s, t_start + 2 * SEC_NS, 700, T0, 1, "burn", v);
	/* 800: no sample; alive 10 s before the start and 10 s after: half */
	struct exit_vals w = {.utime = 4 * SEC_NS, .stime = 2 * SEC_NS, .wchar = 1000};
	s_exit(&f->s, t_start + 10 * SEC_NS, 800, T0, 1, "idle", w);
	/* 900: started in the recording */
	s_fork(&f->s, t_start + SEC_NS, 1, 900);
	struct exit_vals x = {.utime = 3 * SEC_NS};
	s_exit(&f->s, t_start + 5 * SEC_NS, 900, t_start + SEC_NS, 1, "job", x);
	fx_build(f, TZA_MB_SAMPLES);
	struct tza_proc *p = by_pid(f->b.m, 700, 0);
	assert_true(p->flags & TZA_P_PRE_EXISTING);
	assert_true(p->flags & TZA_P_CLIPPED);
	assert_int_equal(tza_proc_charged_from(p), t_start + 50 * MS);
	assert_int_equal(p->utime_ns, 2 * SEC_NS);
	assert_int_equal(p->res->nsamples, 2);
	assert_int_equal(p->res->samples[0].utime_ns, 0);
	assert_int_equal(p->res->samples[1].utime_ns, SEC_NS);
	assert_int_equal(p->res->first.utime_ns, 10800 * SEC_NS); /* as the file has it */
	assert_int_equal(tza_proc_cpu_in(p, t_start, t_start + 2 * SEC_NS), 2 * SEC_NS);
	/* samples carry no syscall count: pro-rata over its life */
	assert_true(p->syscr < 10);
	p = by_pid(f->b.m, 800, 0);
	assert_true(p->flags & TZA_P_CLIPPED);
	assert_int_equal(tza_proc_charged_from(p), t_start);
	assert_int_equal(p->utime_ns, 2 * SEC_NS);
	assert_int_equal(p->stime_ns, SEC_NS);
	assert_int_equal(p->wchar, 500);
	p = by_pid(f->b.m, 900, 0);
	assert_false(p->flags & (TZA_P_CLIPPED | TZA_P_PRE_EXISTING));
	assert_int_equal(p->utime_ns, 3 * SEC_NS);
	assert_int_equal(tza_proc_charged_from(p), p->start_ns);
	tza_model_free(f->b.m);
	assert_int_equal(tza_model_build_ex(f->b.r, 0, UINT64_MAX, TZA_MB_LIFETIME, &f->b.m), 0);
	p = by_pid(f->b.m, 700, 0);
	assert_false(p->flags & TZA_P_CLIPPED);
	assert_int_equal(p->utime_ns, 10802 * SEC_NS);
	assert_int_equal(by_pid(f->b.m, 800, 0)->utime_ns, 4 * SEC_NS);
}

/* fault 6: with the recorder's alive_at_stop list, a process without an
 * exit that was not alive at the stop lost its exit: exit_lost, ends at its
 * last event, no wall time summed; a listed one is still running; in a
 * slice the list says nothing */
static void test_exit_lost(void **st)
{
	struct fx *f = *st;
	synth_meta(&f->s, "alive_at_stop", "700 9999");
	s_fork(&f->s, T0, 1, 700);
	s_exec(&f->s, T0 + MS, 700, T0, 1, "/usr/bin/bash", NULL, "bash|job.sh", "bash");
	s_fork(&f->s, T0 + 2 * MS, 700, 710); /* its exit is lost */
	s_exec(&f->s, T0 + 3 * MS, 710, T0 + 2 * MS, 700, "/usr/bin/true", NULL, "true", "true");
	s_fork(&f->s, T0 + 4 * MS, 700, 720);
	s_exit(&f->s, T0 + 5 * MS, 720, T0 + 4 * MS, 700, "bash", f->v);
	s_fork(&f->s, T0 + 600 * SEC_NS, 1, 730); /* the trace ends much later */
	s_exit(&f->s, T0 + 601 * SEC_NS, 730, T0 + 600 * SEC_NS, 1, "x", f->v);
	fx_build(f, 0);
	struct tza_proc *run = by_pid(f->b.m, 700, 0), *lost = by_pid(f->b.m, 710, 0);
	assert_true(run->flags & TZA_P_NO_EXIT);
	assert_false(run->flags & TZA_P_EXIT_LOST);
	assert_true(lost->flags & TZA_P_NO_EXIT);
	assert_true(lost->flags & TZA_P_EXIT_LOST);
	assert_int_equal(lost->end_ns, T0 + 3 * MS);
	assert_int_equal(tza_proc_end(f->b.m, lost), T0 + 3 * MS);
	assert_int_equal(tza_proc_end(f->b.m, run), T0 + 601 * SEC_NS);
	assert_false(by_pid(f->b.m, 720, 0)->flags & TZA_P_EXIT_LOST);
	assert_int_equal(f->b.m->exit_lost, 1);
	assert_true(f->b.m->incomplete);
	struct tza_crit c;
	struct tza_machine mi = {.ncpus = 2};
	struct tza_group *g;
	uint32_t ng;
	assert_int_equal(tza_critpath(f->b.m, TZA_BY_TOOL, &c), 0);
	assert_int_equal(tza_groups(f->b.m, TZA_BY_TOOL, &c, &mi, &g, &ng), 0);
	int seen = 0;
	for (uint32_t i = 0; i < ng; i++)
		if (!strcmp(g[i].key, "true")) {
			assert_int_equal(g[i].count, 1);
			assert_int_equal(g[i].wall_ns, 0);
			seen = 1;
		}
	assert_true(seen);
	assert_int_equal(c.proc_ns[lost->index], 0); /* never on the critical path */
	free(g);
	tza_crit_free(&c);
	unbuild(&f->b);

	/* a slice of it: no exit lost */
	synth_meta(&f->s, "slice_of", "orig.tz");
	fx_build(f, 0);
	assert_false(by_pid(f->b.m, 710, 0)->flags & TZA_P_EXIT_LOST);
	assert_int_equal(f->b.m->exit_lost, 0);
	fx_reset(f);

	/* without the list (older recorders, recovered files): running */
	s_fork(&f->s, T0, 1, 710);
	fx_build(f, 0);
	assert_false(by_pid(f->b.m, 710, 0)->flags & TZA_P_EXIT_LOST);
	assert_true(by_pid(f->b.m, 710, 0)->flags & TZA_P_NO_EXIT);
}

/* issue 23: a zombie in the start-up snapshot (EV_STATE_EXITED) exited
 * before the recording: not running, not an exit lost, the model complete;
 * without the flag (older recorders) and reaped during the recording it
 * reads as an exit lost, as before */
static void test_exited_before(void **st)
{
	struct fx *f = *st;
	fx_meta_start(f, T0 + 100 * MS);
	synth_meta(&f->s, "alive_at_stop", "600 602");
	s_state(&f->s, T0 + 100 * MS, 600, T0 - 9 * SEC_NS, 1, "/usr/bin/python3", "python3",
		EV_STATE_PRE_EXISTING, "python3");
	s_state(&f->s, T0 + 100 * MS, 601, T0 - 8 * SEC_NS, 600, "", "",
		EV_STATE_PRE_EXISTING | EV_STATE_EXITED, "python3");
	s_fork(&f->s, T0 + 2 * SEC_NS, 600, 602);
	fx_build(f, 0);
	struct tza_proc *z = by_pid(f->b.m, 601, 0);
	assert_true(z->flags & TZA_P_EXITED_BEFORE);
	assert_true(z->flags & TZA_P_PRE_EXISTING);
	assert_int_equal(f->b.m->exited_before, 1);
	assert_int_equal(f->b.m->exit_lost, 0);
	assert_false(f->b.m->incomplete);
	assert_int_equal(tza_proc_end(f->b.m, z), T0 + 100 * MS); /* not the trace's end */
	fx_reset(f);

	/* the same zombie from an older recorder (no flag), reaped meanwhile */
	fx_meta_start(f, T0 + 100 * MS);
	synth_meta(&f->s, "alive_at_stop", "600 602");
	s_state(&f->s, T0 + 100 * MS, 601, T0 - 8 * SEC_NS, 600, "", "", EV_STATE_PRE_EXISTING,
		"python3");
	s_fork(&f->s, T0 + 2 * SEC_NS, 600, 602);
	fx_build(f, 0);
	assert_false(by_pid(f->b.m, 601, 0)->flags & TZA_P_EXITED_BEFORE);
	assert_int_equal(f->b.m->exit_lost, 1);
	assert_true(f->b.m->incomplete);
}

/* issue 23: the recorded command (parent: metadata recorder_pid) is never an
 * orphan, even in an incomplete trace where only its state is left; another
 * root with an unknown parent still is */
static void test_command_not_orphan(void **st)
{
	struct fx *f = *st;
	synth_meta(&f->s, "recorder_pid", "500");
	s_state(&f->s, T0, 700, T0 - SEC_NS, 500, "/usr/bin/dash", "sh|-c|x", 0, "sh");
	s_exit(&f->s, T0 + 2 * MS, 710, T0 + MS, 600, "lost", f->v); /* no fork */
	s_exit(&f->s, T0 + 3 * MS, 700, T0 - SEC_NS, 500, "sh", f->v);
	fx_build(f, 0);
	assert_true(f->b.m->incomplete);
	assert_false(by_pid(f->b.m, 700, 0)->flags & TZA_P_ORPHAN);
	assert_true(by_pid(f->b.m, 710, 0)->flags & TZA_P_ORPHAN);
	assert_int_equal(f->b.m->orphans, 1);
}

/* C08: drops make the model incomplete and name orphaned pids */
static void test_c08_drops(void **st)
{
	struct fx *f = *st;
	s_fork(&f->s, T0, 50, 800);
	s_exec(&f->s, T0 + 1, 800, T0, 50, "/usr/bin/bash", NULL, "bash|job.sh", "bash");
	/* 801's fork was dropped: first seen at its exec; its parent 799 unknown */
	s_exec(&f->s, T0 + 2 * MS, 801, T0 + MS, 799, "/usr/bin/true", NULL, "true", "true");
	s_exit(&f->s, T0 + 3 * MS, 801, T0 + MS, 799, "true", f->v);
	s_drops(&f->s, T0 + 4 * MS, 3, 0, 1);
	s_exit(&f->s, T0 + 5 * MS, 800, T0, 50, "bash", f->v);
	fx_build(f, 0);
	assert_true(f->b.m->incomplete);
	assert_int_equal(f->b.m->drops[EV_DROP_FORK], 3);
	assert_int_equal(f->b.m->drops[EV_DROP_EXIT], 1);
	assert_int_equal(f->b.m->orphans, 1);
	struct tza_proc *o = by_pid(f->b.m, 801, 0);
	assert_true(o->flags & TZA_P_ORPHAN);
	assert_true(o->flags & TZA_P_NO_FORK);
	assert_false(by_pid(f->b.m, 800, 0)->flags & TZA_P_ORPHAN);
	assert_int_equal(f->b.m->no_fork, 1);
}

/* a subshell forked before its parent exec'd onward runs the parent's image
 * of that time, not the parent's final image */
static void test_inherited_image(void **st)
{
	struct fx *f = *st;
	s_fork(&f->s, T0, 1, 950);
	s_exec(&f->s, T0 + 10, 950, T0, 1, "/usr/bin/bash", NULL, "bash|/shims/python3|x.py",
	       "bash");
	s_fork(&f->s, T0 + MS, 950, 951); /* $(...) subshell of the shim: no exec */
	s_exit(&f->s, T0 + 2 * MS, 951, T0 + MS, 950, "bash", f->v);
	s_exec(&f->s, T0 + 3 * MS, 950, T0, 1, "/usr/bin/python3.11", NULL, "python3|x.py",
	       "python3");
	s_fork(&f->s, T0 + 4 * MS, 950, 952); /* forked by python: python's image */
	s_exit(&f->s, T0 + 5 * MS, 952, T0 + 4 * MS, 950, "python3", f->v);
	s_exit(&f->s, T0 + 6 * MS, 950, T0, 1, "python3", f->v);
	fx_build(f, 0);
	assert_string_equal(tza_proc_key(by_pid(f->b.m, 950, 0), TZA_BY_TOOL), "x.py");
	assert_string_equal(tza_proc_key(by_pid(f->b.m, 951, 0), TZA_BY_TOOL), "python3");
	assert_string_equal(tza_proc_key(by_pid(f->b.m, 951, 0), TZA_BY_EXE), "/usr/bin/bash");
	assert_string_equal(tza_proc_key(by_pid(f->b.m, 952, 0), TZA_BY_EXE),
			    "/usr/bin/python3.11");
	assert_null(tza_proc_image(by_pid(f->b.m, 951, 0)));
}

/* exec chains are named by their first image not passed through
 * (docs/tracer-analyze.md "Exec chains") */
static void test_exec_chain_names(void **st)
{
	(void)st;
	static const struct {
		const char *exe1, *script1, *argv1, *exe2, *argv2, *want;
	} cases[] = {
		{"/usr/bin/env", NULL, "env|X=1|true", "/usr/bin/true", "true", "true"},
		{"/usr/bin/nice", NULL, "nice|-n|1|true", "/usr/bin/true", "true", "true"},
		{"/usr/bin/dash", NULL, "sh|-c|exec true", "/usr/bin/true", "true", "true"},
		{"/usr/bin/dash", "/usr/bin/zcat", "/bin/sh|/usr/bin/zcat|a.gz", "/usr/bin/gzip",
		 "gzip|-cd|a.gz", "zcat"},
		{"/usr/bin/bash", "/work/run.sh", "/bin/bash|/work/run.sh", "/usr/bin/sleep",
		 "sleep|1", "run.sh"},
		{"/usr/bin/bash", "/shims/python3", "bash|/shims/python3|x.py", "/usr/bin/python3.11",
		 "python3|x.py", "x.py"},
		{"/usr/bin/gzip", NULL, "gzip|-d", "/usr/bin/true", "true", "gzip"},
		{"/usr/bin/launcher", NULL, "launcher", "memfd:job", "job", "job"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct synth s = {0};
		struct built b;
		struct exit_vals v = {0};
		s_fork(&s, T0, 1, 960);
		s_exec(&s, T0 + MS, 960, T0, 1, cases[i].exe1, cases[i].script1, cases[i].argv1, "a");
		s_exec(&s, T0 + 2 * MS, 960, T0, 1, cases[i].exe2, NULL, cases[i].argv2, "b");
		s_exit(&s, T0 + 3 * MS, 960, T0, 1, "b", v);
		build_model(&s, NULL, 0, &b);
		struct tza_proc *p = by_pid(b.m, 960, 0);
		assert_string_equal(tza_proc_key(p, TZA_BY_TOOL), cases[i].want);
		assert_string_equal(tza_proc_key(p, TZA_BY_EXE), cases[i].exe2); /* final image */
		/* wall per image tiles the process */
		assert_int_equal(tza_exec_wall_ns(p, 0, b.m->t1_ns), MS);
		assert_int_equal(tza_exec_wall_ns(p, 1, b.m->t1_ns), MS);
		unbuild(&b);
		synth_free(&s);
	}
}

/* a chain of n forks without exec under one exec'd root: build the model
 * and group every process by tool (what export and summary do); returns
 * the start_image walk's steps it took and checks every process inherits
 * the root's image */
static uint64_t chain_steps(uint32_t n)
{
	struct synth s = {0};
	struct built b;
	s_fork(&s, T0, 1, 100);
	s_exec(&s, T0 + 10, 100, T0, 1, "/usr/bin/deep", NULL, "deep|x", "deep");
	for (uint32_t i = 0; i < n; i++)
		s_fork(&s, T0 + 1000 * (i + 1), 100 + i, 101 + i);
	size_t len = 0;
	memset(&b, 0, sizeof(b));
	b.buf = synth_file(&s, NULL, &len);
	assert_non_null(b.buf);
	uint64_t steps0 = tza_imgwalk_steps;
	assert_int_equal(tz_reader_open_mem(&b.r, b.buf, len, "synth.tz", NULL), 0);
	assert_int_equal(tza_model_build(b.r, 0, UINT64_MAX, &b.m), 0);
	assert_int_equal(b.m->nprocs, n + 1);
	for (uint32_t i = 0; i < b.m->nprocs; i++) {
		const struct tza_exec *e = tza_proc_image_inherited(b.m->procs[i]);
		assert_non_null(e);
		assert_string_equal(e->ctx->exe, "/usr/bin/deep");
		assert_string_equal(tza_proc_key(b.m->procs[i], TZA_BY_TOOL), "deep");
	}
	uint64_t steps = tza_imgwalk_steps - steps0;
	unbuild(&b);
	synth_free(&s);
	return steps;
}

/* fault 3: a 100k-deep fork chain costs linear work (it was quadratic:
 * every process walked all its ancestors): the walk pushes each process
 * once, counted, not timed (a loaded machine must not fail it) */
static void test_deep_chain_linear(void **st)
{
	(void)st;
	assert_int_equal(chain_steps(10000), 10001);
	assert_int_equal(chain_steps(100000), 100001);
}

/* heap bytes in use (what the model holds once built; peak RSS would count
 * the synthetic event list freed just before) */
static long heap_kib(void)
{
	return (long)(mallinfo2().uordblks / 1024);
}

/* one process with n failed execs: the heap the built model holds */
static long failed_growth_kib(uint32_t n, struct built *b, struct synth *s)
{
	struct exit_vals v = {0};
	size_t len = 0;
	memset(s, 0, sizeof(*s));
	s_fork(s, T0, 1, 300);
	for (uint32_t i = 0; i < n; i++)
		s_exec_fail(s, T0 + 1 + i, 300, ENOENT, "/no/such/file/at/all");
	s_exit(s, T0 + n + 10, 300, T0, 1, "loop", v);
	memset(b, 0, sizeof(*b));
	b->buf = synth_file(s, NULL, &len);
	assert_non_null(b->buf);
	for (size_t i = 0; i < s->n; i++) /* the list is not needed any more */
		free(s->v[i].buf);
	s->n = 0;
	assert_int_equal(tz_reader_open_mem(&b->r, b->buf, len, "synth.tz", NULL), 0);
	long before = heap_kib();
	assert_int_equal(tza_model_build(b->r, 0, UINT64_MAX, &b->m), 0);
	return heap_kib() - before;
}

/* fault 4: a process's failed execs and images are capped (first
 * TZA_KEEP_HEAD and last TZA_KEEP_TAIL kept in order, the rest counted):
 * 1M failed execs cost about what 1k do */
static void test_failed_exec_cap(void **st)
{
	(void)st;
	struct synth s;
	struct built b;
	long small = failed_growth_kib(1000, &b, &s);
	unbuild(&b);
	synth_free(&s);
	long big = failed_growth_kib(1000000, &b, &s);
	printf("model growth: 1k failed execs %ld KiB, 1M %ld KiB\n", small, big);
	assert_true(big < small + 8192);
	struct tza_proc *p = by_pid(b.m, 300, 0);
	assert_int_equal(b.m->nfailed_execs, 1000000);
	assert_int_equal(p->nfailed, TZA_KEEP_HEAD + TZA_KEEP_TAIL);
	assert_int_equal(p->res->nfailed_omitted, 1000000 - TZA_KEEP_HEAD - TZA_KEEP_TAIL);
	for (uint32_t i = 0; i < TZA_KEEP_HEAD; i++)
		assert_int_equal(p->failed[i].ts_ns, T0 + 1 + i);
	for (uint32_t i = 0; i < TZA_KEEP_TAIL; i++)
		assert_int_equal(p->failed[TZA_KEEP_HEAD + i].ts_ns,
				 T0 + 1 + 1000000 - TZA_KEEP_TAIL + i);
	assert_string_equal(p->failed[TZA_KEEP_HEAD + TZA_KEEP_TAIL - 1].filename,
			    "/no/such/file/at/all");
	assert_int_equal(p->failed[0].err, ENOENT);
	unbuild(&b);
	synth_free(&s);

	/* images: 1000 execs, the final image is the last one */
	struct exit_vals v = {0};
	char exe[64];
	memset(&s, 0, sizeof(s));
	s_fork(&s, T0, 1, 310);
	for (uint32_t i = 0; i < 1000; i++) {
		snprintf(exe, sizeof(exe), "/bin/step%u", i);
		s_exec(&s, T0 + 10 + i, 310, T0, 1, exe, NULL, "step", "step");
	}
	s_exit(&s, T0 + 2000, 310, T0, 1, "step", v);
	build_model(&s, NULL, 0, &b);
	p = by_pid(b.m, 310, 0);
	assert_int_equal(b.m->nexecs, 1000);
	assert_int_equal(p->nexecs, TZA_KEEP_HEAD + TZA_KEEP_TAIL);
	assert_int_equal(p->res->nexecs_omitted, 1000 - TZA_KEEP_HEAD - TZA_KEEP_TAIL);
	assert_string_equal(p->execs[TZA_KEEP_HEAD - 1].ctx->exe, "/bin/step63");
	assert_string_equal(p->execs[TZA_KEEP_HEAD].ctx->exe, "/bin/step936");
	assert_string_equal(tza_proc_image(p)->ctx->exe, "/bin/step999");
	unbuild(&b);
	synth_free(&s);
}

/* fault 10 (C12c): the exit's EV_EXIT_EXE_DELETED marks the process and its
 * final image (not an earlier one); a fork that never exec'd is marked
 * without touching its parent's image */
static void test_exit_exe_deleted(void **st)
{
	struct fx *f = *st;
	struct exit_vals vd = {.flags = EV_EXIT_EXE_DELETED};
	s_fork(&f->s, T0, 1, 400);
	s_exec(&f->s, T0 + 10, 400, T0, 1, "/usr/bin/bash", NULL, "bash|x.sh", "bash");
	s_fork(&f->s, T0 + MS, 400, 401);
	s_exec(&f->s, T0 + 2 * MS, 401, T0 + MS, 400, "/usr/bin/env", NULL, "env|mysleep|2", "env");
	s_exec(&f->s, T0 + 3 * MS, 401, T0 + MS, 400, "/tmp/mysleep", NULL, "mysleep|2", "mysleep");
	s_fork(&f->s, T0 + 4 * MS, 400, 402); /* subshell, exits after a deletion */
	s_exit(&f->s, T0 + 5 * MS, 402, T0 + 4 * MS, 400, "bash", vd);
	s_exit(&f->s, T0 + 9 * MS, 401, T0 + MS, 400, "mysleep", vd);
	s_exit(&f->s, T0 + 10 * MS, 400, T0, 1, "bash", f->v);
	fx_build(f, 0);
	struct tza_proc *p = by_pid(f->b.m, 401, 0), *sub = by_pid(f->b.m, 402, 0);
	assert_true(p->flags & TZA_P_EXE_DELETED);
	assert_true(tza_proc_image(p)->flags & EV_EXEC_EXE_DELETED);
	assert_false(p->execs[0].flags & EV_EXEC_EXE_DELETED);
	assert_true(sub->flags & TZA_P_EXE_DELETED);
	assert_false(by_pid(f->b.m, 400, 0)->flags & TZA_P_EXE_DELETED);
	assert_false(tza_proc_image(by_pid(f->b.m, 400, 0))->flags & EV_EXEC_EXE_DELETED);
	char exe[64];
	fx_reset(f);

	/* capped images: the flag lands on the newest, wherever the ring is */
	s_fork(&f->s, T0, 1, 410);
	for (uint32_t i = 0; i < 200; i++) {
		snprintf(exe, sizeof(exe), "/bin/step%u", i);
		s_exec(&f->s, T0 + 10 + i, 410, T0, 1, exe, NULL, "step", "step");
	}
	s_exit(&f->s, T0 + 2000, 410, T0, 1, "step", vd);
	fx_build(f, 0);
	p = by_pid(f->b.m, 410, 0);
	assert_string_equal(tza_proc_image(p)->ctx->exe, "/bin/step199");
	assert_true(tza_proc_image(p)->flags & EV_EXEC_EXE_DELETED);
	for (uint32_t i = 0; i + 1 < p->nexecs; i++)
		assert_false(p->execs[i].flags & EV_EXEC_EXE_DELETED);
}

/* EV_RELEASE: the final figures replace the exit's, for that instance only,
 * never lower, once */
static void test_release(void **st)
{
	struct fx *f = *st;
	struct exit_vals v = {.utime = 100 * MS, .stime = 10 * MS};
	s_fork(&f->s, T0, 1, 500);
	s_fork(&f->s, T0 + MS, 500, 501);
	s_fork(&f->s, T0 + 2 * MS, 500, 502);
	s_fork(&f->s, T0 + 3 * MS, 500, 503);
	s_exit(&f->s, T0 + 10 * MS, 501, T0 + MS, 500, "a", v);
	s_exit(&f->s, T0 + 11 * MS, 502, T0 + 2 * MS, 500, "b", v);
	/* 501: its release, then a second one (ignored) */
	s_release(&f->s, T0 + 20 * MS, 501, T0 + MS, 101 * MS, 14 * MS, 4, 5);
	s_release(&f->s, T0 + 21 * MS, 501, T0 + MS, 200 * MS, 14 * MS, 4, 5);
	/* 502: lower than its exit (not its release), then another start */
	s_release(&f->s, T0 + 22 * MS, 502, T0 + 2 * MS, 50 * MS, 10 * MS, 4, 5);
	s_release(&f->s, T0 + 23 * MS, 502, T0 + 9 * MS, 300 * MS, 10 * MS, 4, 5);
	/* 503: still running (a release without an exit is not applied) */
	s_release(&f->s, T0 + 24 * MS, 503, T0 + 3 * MS, 300 * MS, 10 * MS, 4, 5);
	s_exit(&f->s, T0 + 30 * MS, 500, T0, 1, "sh", v);
	fx_build(f, 0);
	struct tza_proc *a = by_pid(f->b.m, 501, 0), *bb = by_pid(f->b.m, 502, 0),
			*c = by_pid(f->b.m, 503, 0);
	assert_int_equal(a->utime_ns, 101 * MS);
	assert_int_equal(a->stime_ns, 14 * MS);
	assert_int_equal(a->nvcsw, 4);
	assert_int_equal(a->nivcsw, 5);
	assert_true(a->flags & TZA_P_RELEASED);
	assert_int_equal(bb->utime_ns, 100 * MS);
	assert_int_equal(bb->nvcsw, 3);
	assert_false(bb->flags & TZA_P_RELEASED);
	assert_false(c->flags & TZA_P_RELEASED);
	assert_false(by_pid(f->b.m, 500, 0)->flags & TZA_P_RELEASED);
	/* 107.5 ms of final CPU in a 9 ms life: one thread, at most 1 core */
	struct tza_crit cr;
	struct tza_machine mi;
	struct tza_group *g;
	uint32_t ng, found = 0;
	tza_machine_get(f->b.r, &mi);
	assert_int_equal(tza_critpath(f->b.m, TZA_BY_TOOL, &cr), 0);
	assert_int_equal(tza_groups(f->b.m, TZA_BY_TOOL, &cr, &mi, &g, &ng), 0);
	for (uint32_t i = 0; i < ng; i++) {
		assert_true(g[i].max_cores <= 1.0); /* every process has one thread */
		found += g[i].max_cores == 1.0;	    /* 501 among them, capped */
	}
	assert_true(found >= 1);
	free(g);
	tza_crit_free(&cr);
}

/* crafted parent cycle and self-parent: the model is built, no loop */
static void test_parent_cycle(void **st)
{
	struct fx *f = *st;
	s_state(&f->s, T0, 900, T0 - SEC_NS, 901, "/a", "a", 0, "a");
	s_state(&f->s, T0, 901, T0 - SEC_NS, 900, "/b", "b", 0, "b");
	s_state(&f->s, T0, 902, T0 - SEC_NS, 902, "/c", "c", 0, "c");
	s_fork(&f->s, T0 + 1, 903, 903);
	fx_build(f, 0);
	assert_int_equal(f->b.m->nprocs, 4);
	assert_true(f->b.m->nroots >= 2);
	for (uint32_t i = 0; i < f->b.m->nprocs; i++) {
		uint32_t n = 0;
		for (struct tza_proc *p = f->b.m->procs[i]; p; p = p->parent)
			assert_true(++n <= f->b.m->nprocs);
	}
	struct tza_crit c;
	assert_int_equal(tza_critpath(f->b.m, TZA_BY_TOOL, &c), 0);
	tza_crit_free(&c);
}

/* random events over a small pid space (crafted traces): the model is built,
 * acyclic, children start no earlier than... anything; analyses terminate and
 * the critical path still sums to the makespan */
static void test_random_events(void **st)
{
	struct fx *f = *st;
	srand(12345);
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 400; i++) {
			uint32_t pid = 1 + (uint32_t)rand() % 12, pp = (uint32_t)rand() % 14;
			uint64_t ts = T0 + (uint64_t)(rand() % 1000) * MS;
			uint64_t start = T0 + (uint64_t)(rand() % 1000) * MS;
			switch (rand() % 6) {
			case 0:
				s_fork(&f->s, ts, pp, pid);
				break;
			case 1:
				s_exec(&f->s, ts, pid, rand() % 2 ? start : ts, pp, "/usr/bin/python3",
				       rand() % 2 ? "/x/s.py" : NULL, "python3|-m|mod|\xff", "py");
				break;
			case 2:
				s_exec_fail(&f->s, ts, pid, ENOENT, "/nx");
				break;
			case 3:
				s_exit(&f->s, ts, pid, rand() % 2 ? start : 0, pp, "x",
				       (struct exit_vals){.utime = (uint64_t)(rand() % 1000) * MS,
							  .sig = rand() % 3 ? 0 : 9});
				break;
			case 4:
				s_state(&f->s, ts, pid, start, pp, "/bin/sh", "sh",
					rand() % 2 ? EV_STATE_PRE_EXISTING : 0, "sh");
				break;
			default:
				s_drops(&f->s, ts, (uint64_t)(rand() % 3), 0, 0);
			}
		}
		struct tza_model *m = fx_build(f, 0);
		for (uint32_t i = 0; i < m->nprocs; i++) {
			uint32_t n = 0;
			for (struct tza_proc *p = m->procs[i]; p; p = p->parent)
				assert_true(++n <= m->nprocs);
			assert_non_null(tza_proc_key(m->procs[i], TZA_BY_COMMAND));
		}
		uint32_t kids = 0;
		for (uint32_t i = 0; i < m->nprocs; i++)
			kids += m->procs[i]->nchildren;
		assert_int_equal(kids + m->nroots, m->nprocs);
		struct tza_crit c;
		struct tza_machine mi = {2, 1000};
		struct tza_group *g;
		uint32_t ng;
		critpath_sum(m, TZA_BY_TOOL, &c);
		assert_int_equal(tza_groups(m, TZA_BY_EXE, &c, &mi, &g, &ng), 0);
		free(g);
		tza_crit_free(&c);
		fx_reset(f);
	}
}

/* ------------------------------------------------ traces for the CLI tests */

/* Issue 15 points 8 and 10: a process still running at the end is counted
 * up to its last sample; the recorded processes' peak memory together. */
static void test_running_sampled(void **st)
{
	struct fx *f = *st;
	s_proc(&f->s, 1, 200, T0, T0 + 4 * SEC_NS, "/bin/a", "a", "a",
	       (struct exit_vals){.utime = 3 * SEC_NS, .rss_kib = 1000});
	s_sample_cpu(&f->s, T0 + SEC_NS, 200, T0, SEC_NS / 2, 100);
	s_sample_cpu(&f->s, T0 + 2 * SEC_NS, 200, T0, 3 * SEC_NS / 2, 300);
	s_fork(&f->s, T0 + 3 * SEC_NS / 2, 1, 201);
	s_sample_cpu(&f->s, T0 + 2 * SEC_NS, 201, T0 + 3 * SEC_NS / 2, SEC_NS / 5, 500);
	s_sample_cpu(&f->s, T0 + 3 * SEC_NS, 201, T0 + 3 * SEC_NS / 2, SEC_NS, 200);
	s_proc(&f->s, 1, 202, T0 + 4 * SEC_NS, T0 + 5 * SEC_NS, "/bin/c", "c", "c",
	       (struct exit_vals){0});
	fx_build(f, TZA_MB_SAMPLES);
	struct tza_proc *a = NULL, *r = NULL;
	for (uint32_t i = 0; i < f->b.m->nprocs; i++) {
		if (f->b.m->procs[i]->pid == 200)
			a = f->b.m->procs[i];
		if (f->b.m->procs[i]->pid == 201)
			r = f->b.m->procs[i];
	}
	assert_non_null(a);
	assert_non_null(r);
	assert_int_equal(a->flags & TZA_P_SAMPLED, 0);
	assert_int_equal(r->flags & (TZA_P_NO_EXIT | TZA_P_SAMPLED | TZA_P_EXIT_LOST),
			 TZA_P_NO_EXIT | TZA_P_SAMPLED);
	assert_int_equal(tza_proc_cpu(r), SEC_NS);
	assert_int_equal(r->maxrss_kib, 500);
	/* CPU inside windows: linear between the samples, the exit total last */
	assert_true(fabs(tza_proc_cpu_in(r, T0, T0 + 5 * SEC_NS) - 1e9) < 1);
	assert_true(fabs(tza_proc_cpu_in(a, T0 + SEC_NS, T0 + 2 * SEC_NS) - 1e9) < 1);
	assert_true(fabs(tza_proc_cpu_in(a, T0 + 2 * SEC_NS, T0 + 4 * SEC_NS) - 1.5e9) < 1);
	/* peak together: a's 300 + r's 500 KiB at 2 s */
	uint64_t kib, t;
	assert_int_equal(tza_procs_peak_rss(f->b.m, &kib, &t), 0);
	assert_int_equal(kib, 800);
	assert_int_equal(t, T0 + 2 * SEC_NS);
}

static int write_file(const char *dir, const char *name, struct synth *s)
{
	char path[4096];
	size_t len;
	void *buf = synth_file(s, NULL, &len);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	int bad = !buf || !f || fwrite(buf, 1, len, f) != len;
	if (f && fclose(f))
		bad = 1;
	if (bad)
		fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
	free(buf);
	synth_free(s); /* the next scenario starts empty, written or not */
	return bad;
}

static int write_all(const char *dir)
{
	struct synth s = {0};
	int bad = 0;
	scen_pipeline(&s);
	bad |= write_file(dir, "pipeline.tz", &s);

	/* C05 hostile argv, pid reuse, a reparented orphan, failures, 2,000 trues */
	struct exit_vals v = {.utime = 100000, .rss_kib = 900};
	synth_meta(&s, "hostname", "synth");
	synth_meta(&s, "kernel", "6.18.0-synth");
	synth_meta(&s, "recorder_version", "0.1.0");
	synth_meta(&s, "recorder_cmdline", "tracer-record -- bash edge.sh");
	synth_meta(&s, "cpus", "2");
	synth_meta(&s, "memory_kib", "4000000");
	s_fork(&s, T0, 40, 10);
	s_exec(&s, T0 + 1000, 10, T0, 40, "/usr/bin/bash", NULL, "bash|edge.sh", "bash");
	s_fork(&s, T0 + MS, 10, 11);
	s_exec(&s, T0 + 2 * MS, 11, T0 + MS, 10, "/usr/bin/printf", NULL,
	       "printf|a b||x\ny|\xff\xfe|\x01|q\"uote\\|end", "printf");
	s_exit(&s, T0 + 3 * MS, 11, T0 + MS, 10, "printf", v);
	s_proc(&s, 10, 12, T0 + 4 * MS, T0 + 5 * MS, "/usr/bin/a", "a", "a", v);
	s_proc(&s, 10, 12, T0 + 6 * MS, T0 + 7 * MS, "/usr/bin/b", "b", "b", v);
	s_fork(&s, T0 + 8 * MS, 10, 13);
	s_exec(&s, T0 + 9 * MS, 13, T0 + 8 * MS, 10, "/usr/bin/env", NULL, "env|sleep|9", "env");
	s_exec_fail(&s, T0 + 9 * MS + 10, 13, ENOENT, "/nx/sleep");
	s_exec(&s, T0 + 9 * MS + 20, 13, T0 + 8 * MS, 10, "/usr/bin/sleep", NULL, "sleep|9", "sleep");
	for (uint32_t i = 0; i < 2000; i++)
		s_proc(&s, 10, 100 + i, T0 + 10 * MS + i * 100000, T0 + 10 * MS + i * 100000 + 50000,
		       "/usr/bin/true", "true", "true", (struct exit_vals){.utime = 10000});
	s_proc(&s, 10, 14, T0 + 300 * MS, T0 + 301 * MS, "/opt/crash", "crash", "crash",
	       (struct exit_vals){.sig = 11, .core = 1});
	s_proc(&s, 10, 15, T0 + 302 * MS, T0 + 303 * MS, "/opt/fail", "fail", "fail",
	       (struct exit_vals){.code = 3});
	s_exit(&s, T0 + 400 * MS, 10, T0, 40, "bash", v);
	s_exit(&s, T0 + 9 * SEC_NS, 13, T0 + 8 * MS, 1, "sleep", v);
	bad |= write_file(dir, "edge.tz", &s);

	/* drops: an incomplete tree */
	synth_meta(&s, "hostname", "synth");
	synth_meta(&s, "kernel", "6.18.0-synth");
	synth_meta(&s, "cpus", "2");
	synth_meta(&s, "memory_kib", "4000000");
	s_fork(&s, T0, 50, 800);
	s_exec(&s, T0 + 1, 800, T0, 50, "/usr/bin/bash", NULL, "bash|job.sh", "bash");
	s_exec(&s, T0 + 2 * MS, 801, T0 + MS, 799, "/usr/bin/true", NULL, "true", "true");
	s_exit(&s, T0 + 3 * MS, 801, T0 + MS, 799, "true", v);
	s_drops(&s, T0 + 4 * MS, 3, 0, 1);
	s_exit(&s, T0 + 5 * MS, 800, T0, 50, "bash", v);
	bad |= write_file(dir, "drops.tz", &s);

	/* slice clipping (issue 15 point 9): root 299 (0..12 s); 300 burns one
	 * core 0..10 s with samples each second (rchar 1 MB/s); 301 uses 4 s
	 * of CPU in 0..10 s without samples; 302 from 1 s, running at the end,
	 * half a core from 1 s (samples each second from 2 s) */
	synth_meta(&s, "hostname", "synth");
	synth_meta(&s, "cpus", "2");
	s_fork(&s, T0, 1, 299);
	s_exec(&s, T0 + 1000, 299, T0, 1, "/usr/bin/dash", NULL, "sh|clip.sh", "sh");
	s_proc(&s, 299, 300, T0 + 1000, T0 + 10 * SEC_NS, "/opt/burn", "burn", "burn",
	       (struct exit_vals){.utime = 10 * SEC_NS - 1000, .rchar = 10000000});
	s_proc(&s, 299, 301, T0 + 1000, T0 + 10 * SEC_NS, "/opt/nosample", "nosample",
	       "nosample", (struct exit_vals){.utime = 4 * SEC_NS});
	s_fork(&s, T0 + SEC_NS, 299, 302);
	s_exec(&s, T0 + SEC_NS + 1000, 302, T0 + SEC_NS, 299, "/opt/half", NULL, "half", "half");
	for (uint64_t k = 1; k <= 11; k++) {
		if (k < 10) {
			struct ev_sample e;
			memset(&e, 0, sizeof(e));
			e.hdr = (struct ev_hdr){sizeof(e), EV_SAMPLE, 0, T0 + k * SEC_NS};
			e.start_ns = T0 + 1000;
			e.tgid = 300;
			e.utime_ns = k * SEC_NS - 1000;
			e.rchar = k * 1000000;
			e.rss_anon_kib = 1024;
			e.threads = 1;
			synth_push(&s, &e, sizeof(e));
		}
		if (k >= 2)
			s_sample_cpu(&s, T0 + k * SEC_NS, 302, T0 + SEC_NS, (k - 1) * SEC_NS / 2, 2048);
	}
	s_exit(&s, T0 + 12 * SEC_NS, 299, T0, 1, "sh", (struct exit_vals){0});
	bad |= write_file(dir, "clip.tz", &s);

	/* unknown RSS (84_rss_unknown.sh slices it at 2..5 s): root 299
	 * (0..12 s, no samples); big 0..10 s, 4 MiB in samples each second;
	 * three workers from 4.5 s to 8 s without samples (in the slice: RSS
	 * unknown); mixed: one from 1 s with 1 MiB samples, two from 4.5 s
	 * without; zero 2.5..3 s, an exit peak of 0 KiB; spike: 10 ms of wall,
	 * 30 ms of CPU on one thread (its exit path's), at 6 s */
	synth_meta(&s, "hostname", "synth");
	synth_meta(&s, "cpus", "2");
	synth_meta(&s, "memory_kib", "4000000");
	s_fork(&s, T0, 1, 299);
	s_exec(&s, T0 + 1000, 299, T0, 1, "/usr/bin/dash", NULL, "sh|rss.sh", "sh");
	s_fork(&s, T0 + 2000, 299, 310);
	s_exec(&s, T0 + 3000, 310, T0 + 2000, 299, "/opt/big", NULL, "big", "big");
	s_fork(&s, T0 + SEC_NS, 299, 320);
	s_exec(&s, T0 + SEC_NS + 1000, 320, T0 + SEC_NS, 299, "/opt/mixed", NULL, "mixed", "mixed");
	for (uint64_t k = 1; k <= 9; k++) {
		s_sample_cpu(&s, T0 + k * SEC_NS, 310, T0 + 2000, k * SEC_NS / 2, 4096);
		if (k >= 2)
			s_sample_cpu(&s, T0 + k * SEC_NS, 320, T0 + SEC_NS, (k - 1) * SEC_NS / 4, 1024);
	}
	s_proc(&s, 299, 330, T0 + 2500 * MS, T0 + 3000 * MS, "/opt/zero", "zero", "zero",
	       (struct exit_vals){0});
	for (uint32_t i = 0; i < 3; i++)
		s_proc(&s, 299, 311 + i, T0 + 4500 * MS + i * MS, T0 + 8 * SEC_NS, "/opt/worker",
		       "worker", "worker", (struct exit_vals){.utime = SEC_NS, .rss_kib = 900});
	for (uint32_t i = 0; i < 2; i++)
		s_proc(&s, 299, 321 + i, T0 + 4500 * MS + i * MS, T0 + 8 * SEC_NS, "/opt/mixed",
		       "mixed", "mixed", (struct exit_vals){.utime = SEC_NS, .rss_kib = 700});
	s_proc(&s, 299, 340, T0 + 6 * SEC_NS, T0 + 6010 * MS, "/opt/spike", "spike", "spike",
	       (struct exit_vals){.utime = 30 * MS, .rss_kib = 500});
	s_exit(&s, T0 + 9 * SEC_NS, 320, T0 + SEC_NS, 299, "mixed",
	       (struct exit_vals){.utime = 2 * SEC_NS, .rss_kib = 1100});
	s_exit(&s, T0 + 10 * SEC_NS, 310, T0 + 2000, 299, "big",
	       (struct exit_vals){.utime = 5 * SEC_NS, .rss_kib = 4200});
	s_exit(&s, T0 + 12 * SEC_NS, 299, T0, 1, "sh", (struct exit_vals){0});
	bad |= write_file(dir, "rss.tz", &s);

	/* tasks whose combined peak is not their largest process's (85_views_agree.sh,
	 * --task 'wide|narrow|nil'): root 499 (0..10 s); wide (1..6.5 s) runs
	 * three leaves 1.1..6 s of 1 MiB each in samples at 2..5 s (combined 3
	 * MiB, one process 1 MiB); narrow one process of 2 MiB (1..6 s, samples
	 * at 2..5 s); nil 7..7.5 s with an exit peak of 0 KiB (known, 0) */
	synth_meta(&s, "hostname", "synth");
	synth_meta(&s, "cpus", "2");
	synth_meta(&s, "memory_kib", "4000000");
	s_fork(&s, T0, 1, 499);
	s_exec(&s, T0 + 1000, 499, T0, 1, "/usr/bin/dash", NULL, "sh|tasks.sh", "sh");
	s_fork(&s, T0 + SEC_NS, 499, 500);
	s_exec(&s, T0 + SEC_NS + 1000, 500, T0 + SEC_NS, 499, "/opt/wide", NULL, "wide", "wide");
	s_fork(&s, T0 + SEC_NS, 499, 510);
	s_exec(&s, T0 + SEC_NS + 1000, 510, T0 + SEC_NS, 499, "/opt/narrow", NULL, "narrow", "narrow");
	for (uint32_t i = 0; i < 3; i++) {
		s_fork(&s, T0 + 1100 * MS, 500, 501 + i);
		s_exec(&s, T0 + 1100 * MS + 1000, 501 + i, T0 + 1100 * MS, 500, "/opt/leaf", NULL,
		       "leaf", "leaf");
	}
	for (uint64_t k = 2; k <= 5; k++) {
		for (uint32_t i = 0; i < 3; i++)
			s_sample_cpu(&s, T0 + k * SEC_NS, 501 + i, T0 + 1100 * MS, (k - 1) * SEC_NS / 10, 1024);
		s_sample_cpu(&s, T0 + k * SEC_NS, 510, T0 + SEC_NS, (k - 1) * SEC_NS / 10, 2048);
	}
	for (uint32_t i = 0; i < 3; i++)
		s_exit(&s, T0 + 6 * SEC_NS, 501 + i, T0 + 1100 * MS, 500, "leaf",
		       (struct exit_vals){.utime = SEC_NS / 2, .rss_kib = 1024});
	s_exit(&s, T0 + 6 * SEC_NS, 510, T0 + SEC_NS, 499, "narrow",
	       (struct exit_vals){.utime = SEC_NS / 2, .rss_kib = 2048});
	s_exit(&s, T0 + 6500 * MS, 500, T0 + SEC_NS, 499, "wide",
	       (struct exit_vals){.utime = MS, .rss_kib = 100});
	s_proc(&s, 499, 520, T0 + 7 * SEC_NS, T0 + 7500 * MS, "/opt/nil", "nil", "nil",
	       (struct exit_vals){0});
	s_exit(&s, T0 + 10 * SEC_NS, 499, T0, 1, "sh", (struct exit_vals){0});
	bad |= write_file(dir, "tasks.tz", &s);

	/* one trace per drop slot: 5 drops in that slot only, at 2 s (EV_DROPS
	 * and, as the recorder writes them at its stop, every drops_* key) */
	static char keys[TZA_NDROP_SLOTS][32];
	for (int i = 0; i < TZA_NDROP_SLOTS; i++)
		snprintf(keys[i], sizeof(keys[i]), "drops_%s", tza_drop_slots[i].name);
	for (int i = 0; i < TZA_NDROP_SLOTS; i++) {
		char name[64];
		struct ev_drops e;
		synth_meta(&s, "hostname", "synth");
		synth_meta(&s, "cpus", "2");
		for (int k = 0; k < TZA_NDROP_SLOTS; k++)
			synth_meta(&s, keys[k], k == i ? "5" : "0");
		s_proc(&s, 50, 900, T0, T0 + 4 * SEC_NS, "/usr/bin/bash", "bash|job.sh", "bash", v);
		memset(&e, 0, sizeof(e));
		e.hdr = (struct ev_hdr){sizeof(e), EV_DROPS, 0, T0 + 2 * SEC_NS};
		e.count[tza_drop_slots[i].slot] = 5;
		synth_push(&s, &e, sizeof(e));
		snprintf(name, sizeof(name), "drop-%s.tz", tza_drop_slots[i].name);
		bad |= write_file(dir, name, &s);
	}
	return bad;
}

/* issue 17: an exec record laid out as the BPF program writes it (cwd before
 * argv, env last) reads back as cwd, env and memcg_id; the cgroup table keeps
 * the first entry of a (hier, id); attachments keep their bytes exactly */
static void push_exec17(struct synth *s, uint64_t ts, uint32_t tgid, const char *cwd,
			const char *env, uint32_t env_len, uint64_t cg, uint64_t memcg)
{
	static char buf[sizeof(struct ev_exec) + 1024];
	struct ev_exec *e = (struct ev_exec *)buf;
	memset(buf, 0, sizeof(buf));
	char *t = buf + sizeof(*e);
	const char *exe = "/usr/bin/make";
	size_t fl = strlen(exe), cl = strlen(cwd);
	memcpy(t, exe, fl);
	t += fl;
	memcpy(t, exe, fl);
	t += fl;
	memcpy(t, cwd, cl);
	t += cl;
	memcpy(t, "make\0", 5);
	t += 5;
	memcpy(t, env, env_len);
	t += env_len;
	e->hdr = (struct ev_hdr){(uint32_t)(t - buf), EV_EXEC, 0, ts};
	e->start_ns = T0; /* the fork's (s_fork at T0) */
	e->tgid = e->old_pid = tgid;
	e->ppid = 1;
	e->argc = 1;
	e->argv_size = e->argv_len = 5;
	e->filename_len = e->exe_len = (uint16_t)fl;
	e->cwd_len = (uint16_t)cl;
	e->env_len = (uint16_t)env_len;
	e->cgroup_id = cg;
	e->memcg_id = memcg;
	strcpy(e->comm, "make");
	synth_push(s, buf, e->hdr.size);
}

static void push_cgroup(struct synth *s, uint64_t ts, uint32_t hier, uint64_t id, const char *path,
			uint64_t mem)
{
	char buf[sizeof(struct ev_cgroup) + 256];
	struct ev_cgroup *e = (struct ev_cgroup *)buf;
	size_t n = strlen(path);
	memset(e, 0, sizeof(*e));
	memcpy(buf + sizeof(*e), path, n);
	e->hdr = (struct ev_hdr){(uint32_t)(sizeof(*e) + n), EV_CGROUP, 0, ts};
	e->id = id;
	e->hier = hier;
	e->mem_limit_bytes = mem;
	e->path_len = (uint16_t)n;
	synth_push(s, buf, e->hdr.size);
}

static void push_attach(struct synth *s, uint64_t ts, const char *name, const void *data,
			uint32_t len, uint32_t flags)
{
	char buf[sizeof(struct ev_attach) + 512];
	struct ev_attach *e = (struct ev_attach *)buf;
	size_t n = strlen(name);
	memset(e, 0, sizeof(*e));
	memcpy(buf + sizeof(*e), name, n);
	memcpy(buf + sizeof(*e) + n, data, len);
	e->hdr = (struct ev_hdr){(uint32_t)(sizeof(*e) + n + len), EV_ATTACH, 0, ts};
	e->mtime_ns = 1796000000000000000ULL;
	e->size = len;
	e->data_len = len;
	e->flags = flags;
	e->name_len = (uint16_t)n;
	synth_push(s, buf, e->hdr.size);
}

static void test_issue17_fields(void **st)
{
	struct fx *f = *st;
	static const char env[] = "SLURM_JOB_ID=42\0NXF_TASK_WORKDIR=/w/ab/cd\0";
	static const uint8_t bin[] = {'{', 0, 0xff, '\n', '}'};
	s_fork(&f->s, T0, 1, 500);
	push_exec17(&f->s, T0 + 10, 500, "/home/run/dir", env, sizeof(env) - 1, 7, 77);
	push_cgroup(&f->s, T0 + 10, TZA_CG_V2, 7, "/", 0);
	push_cgroup(&f->s, T0 + 10, TZA_CG_V1_MEMORY, 77, "/slurm/uid_0/job_42/step_0", 1 << 20);
	push_cgroup(&f->s, T0 + 11, TZA_CG_V1_MEMORY, 77, "/later", 5); /* ignored */
	push_cgroup(&f->s, T0 + 12, TZA_CG_V1_MEMORY, 3, "/a", 0);
	s_exit(&f->s, T0 + 20, 500, T0, 1, "make", (struct exit_vals){0});
	push_attach(&f->s, T0 + 30, "/home/run/dir/.snakemake/metadata/YQ==", bin, sizeof(bin),
		    EV_ATTACH_TRUNCATED);
	push_attach(&f->s, T0 + 30, "", "x", 1, 0); /* nameless: ignored */
	fx_build(f, 0);
	struct tza_proc *p = by_pid(f->b.m, 500, 0);
	assert_non_null(p);
	assert_int_equal(p->nexecs, 1);
	const struct tza_exec *e = &p->execs[0];
	assert_string_equal(e->ctx->cwd, "/home/run/dir");
	assert_string_equal(e->ctx->exe, "/usr/bin/make");
	assert_int_equal(e->argv_len, 5);
	assert_memory_equal(e->argv, "make", 5);
	assert_int_equal(e->ctx->env_len, sizeof(env) - 1);
	assert_memory_equal(e->ctx->env, env, sizeof(env) - 1);
	assert_int_equal(e->ctx->memcg_id, 77);
	const struct tza_cgroup *c = tza_model_cgroup(f->b.m, TZA_CG_V1_MEMORY, e->ctx->memcg_id);
	assert_non_null(c);
	assert_string_equal(c->path, "/slurm/uid_0/job_42/step_0");
	assert_int_equal(c->mem_limit_bytes, 1 << 20);
	c = tza_model_cgroup(f->b.m, TZA_CG_V2, 7);
	assert_non_null(c);
	assert_string_equal(c->path, "/");
	assert_null(tza_model_cgroup(f->b.m, TZA_CG_V2, 77));
	assert_null(tza_model_cgroup(f->b.m, TZA_CG_V1_CPU, 7));
	const struct tza_cgroup *all;
	assert_int_equal(tza_model_cgroups(f->b.m, &all), 3);
	assert_int_equal(all[1].id, 3); /* ordered by (hier, id) */
	const struct tza_attachment *a;
	assert_int_equal(tza_model_attachments(f->b.m, &a), 1);
	assert_string_equal(a[0].name, "/home/run/dir/.snakemake/metadata/YQ==");
	assert_int_equal(a[0].len, sizeof(bin));
	assert_memory_equal(a[0].data, bin, sizeof(bin));
	assert_int_equal(a[0].flags, TZA_ATT_TRUNCATED);
	assert_int_equal(a[0].mtime_ns, 1796000000000000000ULL);
	fx_reset(f);
	/* a trace without them: NULL, 0 and empty tables */
	s_fork(&f->s, T0, 1, 600);
	s_exec(&f->s, T0 + 10, 600, T0, 1, "/usr/bin/true", NULL, "true", "true");
	fx_build(f, 0);
	p = by_pid(f->b.m, 600, 0);
	assert_null(p->execs[0].ctx->cwd);
	assert_null(p->execs[0].ctx->env);
	assert_int_equal(p->execs[0].ctx->memcg_id, 0);
	assert_int_equal(tza_model_cgroups(f->b.m, &all), 0);
	assert_int_equal(tza_model_attachments(f->b.m, &a), 0);
	assert_null(tza_model_cgroup(f->b.m, TZA_CG_V2, 0));
}

/* model_schema.c's binding table against the recorder's own schema: every
 * member of struct fields is bound (a misspelt name or a member left out of
 * the table reads NULL), and the exit type is the recorder's layout. */
static void test_bind_every_field(void **st)
{
	struct fx *f = *st;
	struct fields fl;
	s_fork(&f->s, T0, 1, 500);
	fx_build(f, 0);
	model_bind_fields(f->b.r, &fl);
	const struct tz_field *const *v = (const struct tz_field *const *)&fl;
	size_t d0 = offsetof(struct fields, d) / sizeof(*v), d1 = d0 + EV_DROP_SLOTS;
	for (size_t i = 0; i < offsetof(struct fields, e_native) / sizeof(*v); i++) {
		if (i >= d0 && i < d1)
			continue;
		if (!v[i])
			fail_msg("struct fields member %zu (pointer index) is not bound", i);
	}
	for (int i = 0; i < TZA_NDROP_SLOTS; i++)
		assert_non_null(fl.d[tza_drop_slots[i].slot]);
	assert_int_equal(fl.e_native, 1);
	assert_string_equal(fl.x_memcg->name, "memcg_id");
	assert_string_equal(fl.e_code->name, "exit_code");
	assert_string_equal(fl.g_comm->name, "sender_comm");
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write"))
		return write_all(argv[2]);
	const struct CMUnitTest tests[] = {
	    FX_TEST(test_pipeline_tree),
	    FX_TEST(test_critical_path),
	    FX_TEST(test_top_flags),
	    cmocka_unit_test(test_c07_shuffled),
	    FX_TEST(test_critical_path_pipe),
	    FX_TEST(test_pid_reuse),
	    FX_TEST(test_reparented_orphan),
	    FX_TEST(test_c09_exec_chain),
	    FX_TEST(test_c01_c02),
	    FX_TEST(test_state_argv_truncated),
	    FX_TEST(test_state_credentials),
	    FX_TEST(test_c10_c11),
	    FX_TEST(test_comm_empty_keeps),
	    FX_TEST(test_c14_pre_existing),
	    FX_TEST(test_c08_drops),
	    FX_TEST(test_parent_cycle),
	    FX_TEST(test_inherited_image),
	    cmocka_unit_test(test_exec_chain_names),
	    cmocka_unit_test(test_deep_chain_linear),
	    cmocka_unit_test(test_failed_exec_cap),
	    FX_TEST(test_exit_exe_deleted),
	    FX_TEST(test_exited_during_attach),
	    FX_TEST(test_exit_lost),
	    FX_TEST(test_exited_before),
	    FX_TEST(test_command_not_orphan),
	    FX_TEST(test_running_sampled),
	    FX_TEST(test_random_events),
	    FX_TEST(test_release),
	    FX_TEST(test_pre_existing_from_start),
	    FX_TEST(test_issue17_fields),
	    FX_TEST(test_bind_every_field),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
