/*
 * test_task.c - the task model (analyze/task.c) over hand-made models: each
 * adapter's matching rule (Snakemake local job + metadata join, cluster
 * --rules, Nextflow .command.run + header + trace.txt, --task REGEX, Slurm
 * and container cgroup paths, the child fallback), bad records noted and
 * skipped, and the numbers (CPU sum, combined peak RSS and its bounds, I/O,
 * failing member, limits).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/model.h"
#include "analyze/report.h"
#include "analyze/task.h"

#define NP 16

static const struct tza_proc_res no_res;

/* A model made by hand: a tree of processes, one image each (or none). */
struct hand {
	struct tza_model m;
	struct tza_proc p[NP];
	struct tza_proc *v[NP], *roots[NP];
	struct tza_exec e[NP];
	char argv[NP][256];
	struct tza_proc_res res[NP];
	struct tza_sample smp[NP][4];
};

static void hand_init(struct hand *h)
{
	memset(h, 0, sizeof(*h));
	h->m.procs = h->v;
	h->m.roots = h->roots;
	h->m.t0_ns = 1000;
	h->m.t1_ns = 100000;
}

/* Add a process under parent (NULL: a root) running argv "a|b|c" (NULL: no
 * exec, it runs its parent's image) from start to end with cpu ns. */
static struct tza_proc *hp(struct hand *h, struct tza_proc *parent, const char *exe,
			   const char *argv, uint64_t start, uint64_t end, uint64_t cpu)
{
	uint32_t i = h->m.nprocs++;
	struct tza_proc *p = &h->p[i];
	p->pid = 100 + i;
	p->index = i;
	p->start_ns = start;
	p->end_ns = end;
	p->utime_ns = cpu / 2;
	p->stime_ns = cpu - cpu / 2;
	p->rchar = 10 * (i + 1);
	p->res = &no_res;
	p->parent = parent;
	if (parent) {
		p->ppid = parent->pid;
		struct tza_proc **k = &parent->first_child;
		while (*k)
			k = &(*k)->next_sibling;
		*k = p;
		parent->nchildren++;
		p->start_image = tza_proc_image_inherited(parent);
	} else {
		h->roots[h->m.nroots++] = p;
	}
	if (argv) {
		struct tza_exec *e = &h->e[i];
		size_t n = strlen(argv);
		memcpy(h->argv[i], argv, n + 1);
		for (size_t j = 0; j < n; j++)
			if (h->argv[i][j] == '|')
				h->argv[i][j] = 0;
		e->argv = (uint8_t *)h->argv[i];
		e->argv_len = (uint32_t)n + 1;
		e->exe = (char *)exe;
		e->ts_ns = start;
		p->execs = e;
		p->nexecs = 1;
	}
	h->v[i] = p;
	return p;
}

static int has_note(const struct tza_tasks *t, const char *s)
{
	for (uint32_t i = 0; i < t->nnotes; i++)
		if (strstr(t->notes[i], s))
			return 1;
	return 0;
}

#define ATT(n, s) {.name = (n), .data = (const uint8_t *)(s), .len = sizeof(s) - 1}

static void test_snakemake_local(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	struct tza_proc *smk =
		hp(&h, NULL, "/usr/bin/python3.11", "/usr/bin/python3|/usr/bin/snakemake|-j|2", 1000,
		   90000, 5000);
	struct tza_proc *a = hp(&h, smk, "/usr/bin/bash",
				"/usr/bin/bash|-c|set -euo pipefail;  \n  sort in > o/a.txt\n  ", 2000,
				5000, 100);
	struct tza_proc *a1 = hp(&h, a, "/usr/bin/sort", "sort|in", 2100, 4900, 700);
	struct tza_proc *b = hp(&h, smk, "/usr/bin/bash",
				"/usr/bin/bash|-c|set -euo pipefail;  sort in > o/b.txt", 2500,
				6000, 50);
	hp(&h, b, "/usr/bin/sort", "sort|in", 2600, 5900, 300);
	/* a shell not started by snakemake is no job */
	struct tza_proc *other =
		hp(&h, NULL, "/usr/bin/bash", "bash|-c|set -euo pipefail; true", 3000, 3100, 1);
	static const struct tza_attachment att[] = {
		/* o/a.txt, o/b.txt, o/c.txt in base64 */
		ATT("/w/.snakemake/metadata/by9hLnR4dA==",
		    "{\"rule\": \"sort\", \"shellcmd\": \"\\n  sort in > o/a.txt\\n  \", "
		    "\"starttime\": 1796131401.25, \"endtime\": 1796131401.5}"),
		ATT("/w/.snakemake/metadata/by9iLnR4dA==",
		    "{\"rule\": \"sort2\", \"shellcmd\": \"sort in > o/b.txt\"}"),
		ATT("/w/.snakemake/metadata/by9jLnR4dA==", "{\"rule\": \"x\", \"shellc"),
		ATT("/w/other/file", "ignored: not a metadata path"),
		ATT("/w/.snakemake/log/2026-12-01T133800.1.snakemake.log",
		    "Select jobs to execute...\n\n[Tue Dec  1 13:38:01 2026]\nrule sort:\n"
		    "    output: o/a.txt, o/a.idx\n    jobid: 1\n    wildcards: s=a\n"
		    "    threads: 2\n    resources: tmpdir=/tmp, mem_mb=300, mem_mib=287, runtime=5\n\n"
		    "rule sort2:\n    output: o/b.txt.gz\n    threads: 8\n\n"),
	};
	struct tza_task_input in = {.att = att, .natt = 5};
	struct tza_tasks *t;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 2);
	assert_int_equal(t->tasks[0].kind, TZA_TASK_SNAKEMAKE);
	assert_string_equal(t->tasks[0].name, "sort");
	assert_string_equal(t->tasks[0].id, "o/a.txt");
	assert_string_equal(t->tasks[0].key, "sort s=a");
	assert_string_equal(t->tasks[0].tag, "s=a");
	assert_true(t->tasks[0].req_cpus == 2);
	assert_int_equal(t->tasks[0].req_mem_bytes, 287ULL << 20);
	assert_int_equal(t->tasks[0].req_time_ms, 5 * 60000);
	/* o/b.txt.gz is not o/b.txt: the log's block is not this job's */
	assert_string_equal(t->tasks[1].key, "sort2 o/b.txt");
	assert_true(t->tasks[1].req_cpus == 0);
	assert_true(t->tasks[0].wf_start_s == 1796131401.25);
	assert_true(t->tasks[0].wf_end_s == 1796131401.5);
	assert_string_equal(t->tasks[1].name, "sort2");
	assert_int_equal(t->tasks[0].nprocs, 2);
	assert_int_equal(t->tasks[0].cpu_ns, 800);
	assert_int_equal(t->tasks[0].rchar, 20 + 30);
	assert_int_equal(t->tasks[0].start_ns, 2000);
	assert_int_equal(t->tasks[0].end_ns, 5000);
	assert_ptr_equal(a1->task, &t->tasks[0]);
	assert_null(smk->task);
	assert_null(other->task);
	assert_string_equal(tza_proc_key(a1, TZA_BY_RULE), "sort");
	assert_string_equal(tza_proc_key(a1, TZA_BY_TASK), "sort s=a");
	assert_string_equal(tza_proc_key(smk, TZA_BY_RULE), "(none)");
	assert_string_equal(tza_proc_key(a1, TZA_BY_JOB), "(none)");
	/* the cut record: one note naming the file */
	assert_int_equal(t->nnotes, 1);
	assert_true(has_note(t, "'/w/.snakemake/metadata/by9jLnR4dA==': not a JSON object"));
	tza_tasks_free(t);

	/* without records: the same jobs, named by their first command, one note */
	in.natt = 0;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 2);
	assert_string_equal(t->tasks[0].name, "sort");
	assert_string_equal(t->tasks[0].id, "101.2000");
	assert_true(has_note(t, "2 Snakemake job(s) without a .snakemake/metadata record"));
	tza_tasks_free(t);
}

static void test_snakemake_cluster(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	struct tza_proc *r = hp(&h, NULL, "/usr/bin/sbatch", "sbatch|job.sh", 1000, 9000, 1);
	struct tza_proc *j = hp(&h, r, "/usr/bin/python3.11",
				"python3|-m|snakemake|--snakefile|S|--allowed-rules|align|--nocolor",
				2000, 8000, 40);
	hp(&h, j, "/usr/bin/bwa", "bwa|mem|ref|r.fq", 3000, 7000, 400);
	struct tza_tasks *t;
	struct tza_task_input in = {0};
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 1);
	assert_string_equal(t->tasks[0].name, "align");
	assert_int_equal(t->tasks[0].cpu_ns, 440);
	assert_int_equal(t->nnotes, 0);
	tza_tasks_free(t);
}

static void test_nextflow(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	struct tza_proc *nf = hp(&h, NULL, "/usr/lib/jvm/bin/java", "java|nextflow.cli.Launcher",
				 1000, 90000, 9000);
	struct tza_proc *run =
		hp(&h, nf, "/usr/bin/bash", "/bin/bash|-ue|.command.run", 2000, 8000, 10);
	h.e[run->index].cwd = "/w/work/ab/cdef1234567890";
	/* a third: relative .command.run, no cwd recorded: from its .command.sh */
	struct tza_proc *run3 =
		hp(&h, nf, "/usr/bin/bash", "/bin/bash|-ue|.command.run", 1500, 1900, 3);
	hp(&h, run3, "/usr/bin/bash", "/bin/bash|-ue|/w/work/0a/99887766/.command.sh", 1600, 1800,
	   2);
	struct tza_proc *sh = hp(&h, run, "/usr/bin/bash",
				 "/bin/bash|-ue|/w/work/ab/cdef1234567890/.command.sh", 2100, 7900, 5);
	struct tza_proc *tool = hp(&h, sh, "/usr/bin/bwa", "bwa|mem", 2200, 7800, 1000);
	tool->exit_code = 1;
	tool->status = 1 << 8;
	struct tza_proc *run2 = hp(&h, nf, "/usr/bin/bash",
				   "/bin/bash|-ue|/w/work/ff/0011223344/.command.run", 9000, 9500, 3);
	static const struct tza_attachment att[] = {
		ATT("/w/work/ab/cdef1234567890/.command.run",
		    "#!/bin/bash\n# NEXTFLOW TASK: ALIGN (sample1)\nset -e\n"),
		ATT("/w/trace.txt",
		    "task_id\thash\tnative_id\tname\tstatus\texit\tattempt\tcpus\tmemory\ttime\n"
		    "1\tab/cdef12\t4242\tALIGN (sample1)\tCOMPLETED\t0\t2\t4\t2 GB\t1h 30m\n"
		    "2\tff/0011"),
	};
	struct tza_task_input in = {.att = att, .natt = 2};
	struct tza_tasks *t, *t2;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 3);
	assert_string_equal(t->tasks[0].hash, "0a/99887766");
	assert_ptr_equal(run3->task, &t->tasks[0]);
	const struct tza_task *k = &t->tasks[1];
	assert_int_equal(k->kind, TZA_TASK_NEXTFLOW);
	assert_string_equal(k->name, "ALIGN");
	assert_string_equal(k->tag, "sample1");
	assert_string_equal(k->hash, "ab/cdef1234567890");
	assert_string_equal(k->key, "ALIGN (sample1) ab/cdef12");
	assert_string_equal(k->native_id, "4242");
	assert_string_equal(k->status, "COMPLETED");
	assert_int_equal(k->attempt, 2);
	assert_true(k->req_cpus == 4);
	assert_int_equal(k->req_mem_bytes, 2ULL << 30);
	assert_int_equal(k->req_time_ms, 5400000);
	assert_int_equal(k->nprocs, 3);
	assert_int_equal(k->cpu_ns, 1015);
	assert_ptr_equal(k->failed, tool);
	assert_int_equal(k->exit_code, 0);
	/* a member's failure alone does not fail the task; its root's does */
	assert_false(tza_task_failed(k));

	/* the second: absolute .command.run, no header: hash, named by command */
	assert_string_equal(t->tasks[2].hash, "ff/0011223344");
	assert_ptr_equal(run2->task, &t->tasks[2]);
	assert_true(has_note(t, "2 Nextflow task(s) without a '# NEXTFLOW TASK:' header"));
	assert_true(has_note(t, "'/w/trace.txt': 1 row(s) without the header's 10 columns"));
	assert_int_equal(t->nnotes, 2);
	tza_tasks_free(t);
	run->exit_code = 1;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t2), 0);
	assert_true(tza_task_failed(&t2->tasks[1]));
	tza_tasks_free(t2);
}

static void test_generic_and_child(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	struct tza_proc *mk = hp(&h, NULL, "/usr/bin/make", "make|-j2", 1000, 9000, 10);
	struct tza_proc *s1 =
		hp(&h, mk, "/usr/bin/bash", "sh|-c|./step --sample=aa", 2000, 5000, 20);
	hp(&h, s1, "/w/step", "./step|--sample=aa", 2100, 4900, 300);
	struct tza_proc *s2 =
		hp(&h, mk, "/usr/bin/bash", "sh|-c|./step --sample=bb", 2500, 6000, 20);
	struct tza_proc *s2c = hp(&h, s2, "/w/step", "./step|--sample=bb", 2600, 5900, 200);
	struct tza_tasks *t;
	struct tza_task_input in = {.regex = "--sample=([a-z]+)"};
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 2); /* the outermost match: the shells */
	assert_int_equal(t->tasks[0].kind, TZA_TASK_GENERIC);
	assert_string_equal(t->tasks[0].name, "aa");
	assert_string_equal(t->tasks[1].name, "bb");
	assert_ptr_equal(s2c->task, &t->tasks[1]);
	assert_int_equal(t->tasks[1].cpu_ns, 220);
	assert_null(mk->task);
	tza_tasks_free(t);

	/* no adapter matches: each child of the recorded command */
	in.regex = NULL;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 2);
	assert_int_equal(t->tasks[0].kind, TZA_TASK_CHILD);
	assert_ptr_equal(t->tasks[0].root, s1);
	assert_int_equal(t->tasks[0].nprocs, 2);
	tza_tasks_free(t);

	/* a bad pattern is refused */
	in.regex = "(";
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), -1);
}

static const struct tza_cgroup cgs[] = {
	{.id = 1, .hier = TZA_CG_V2, .path = "/user.slice"},
	{.id = 2, .hier = TZA_CG_V2, .path = "/slurm/uid_0/job_77/step_0", .mem_limit_bytes = 1 << 30,
	 .cpu_quota_us = 200000, .cpu_period_us = 100000},
	{.id = 3,
	 .hier = TZA_CG_V2,
	 .path = "/system.slice/docker-0123456789abcdef0123456789abcdef"
		 "0123456789abcdef0123456789abcdef.scope"},
	{.id = 4,
	 .hier = TZA_CG_V2,
	 .path = "/kubepods.slice/kubepods-burstable.slice/"
		 "kubepods-burstable-pod1a2b3c4d_1111_2222_3333_444455556666.slice/x"},
	{.id = 5, .hier = TZA_CG_V2, .path = "/weird/layout"},
	{.id = 6, .hier = TZA_CG_V1_MEMORY, .path = "/slurm/uid_0/job_88", .mem_limit_bytes = 4096},
	{.id = 7, .hier = TZA_CG_V1_MEMORY, .path = "/"},
};

static const struct tza_cgroup *cg_lookup(const void *ctx, uint32_t hier, uint64_t id)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(cgs) / sizeof(cgs[0]); i++)
		if (cgs[i].hier == hier && cgs[i].id == id)
			return &cgs[i];
	return NULL;
}

static void test_cgroups(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	struct tza_proc *r = hp(&h, NULL, "/usr/bin/bash", "bash|run.sh", 1000, 9000, 1);
	r->cgroup_id = 1;
	struct tza_proc *j = hp(&h, r, "/usr/bin/srun", "srun|x", 2000, 8000, 10);
	j->cgroup_id = 2;
	struct tza_proc *jc = hp(&h, j, "/usr/bin/x", "x", 2100, 7000, 100);
	jc->cgroup_id = 2;
	struct tza_proc *d = hp(&h, r, "/usr/bin/sleep", "sleep|1", 3000, 4000, 5);
	d->cgroup_id = 3;
	struct tza_proc *k = hp(&h, r, "/usr/bin/pause", "pause", 3500, 4000, 5);
	k->cgroup_id = 4;
	struct tza_proc *w = hp(&h, r, "/usr/bin/true", "true", 3600, 4000, 5);
	w->cgroup_id = 5;
	/* hybrid host: the v1 memory cgroup names the job */
	struct tza_proc *v1 = hp(&h, r, "/usr/bin/x", "x", 3700, 4000, 5);
	v1->cgroup_id = 1;
	h.e[v1->index].memcg_id = 6;
	/* v1 memory at the root, the v2 path names it */
	struct tza_proc *v2 = hp(&h, r, "/usr/bin/x", "x", 3800, 4000, 5);
	v2->cgroup_id = 2;
	h.e[v2->index].memcg_id = 7;
	/* only the recorded SLURM_JOB_ID */
	struct tza_proc *ev = hp(&h, r, "/usr/bin/x", "x", 3900, 4000, 5);
	static char env[] = "SLURM_JOB_ID=99\0OTHER=1";
	h.e[ev->index].env = env;
	h.e[ev->index].env_len = sizeof(env);
	struct tza_task_input in = {.cgroup = cg_lookup};
	struct tza_tasks *t;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 6);
	assert_string_equal(t->tasks[3].job, "job_88");
	assert_int_equal(t->tasks[3].mem_limit_bytes, 4096);
	assert_string_equal(t->tasks[4].job, "job_77/step_0");
	assert_string_equal(t->tasks[5].job, "99");
	assert_int_equal(t->tasks[0].kind, TZA_TASK_SLURM);
	assert_string_equal(t->tasks[0].job, "job_77/step_0");
	assert_int_equal(t->tasks[0].nprocs, 2);
	assert_int_equal(t->tasks[0].mem_limit_bytes, 1 << 30);
	assert_int_equal(t->tasks[0].cpu_quota_us, 200000);
	assert_int_equal(t->tasks[1].kind, TZA_TASK_CONTAINER);
	assert_string_equal(t->tasks[1].container, "0123456789ab");
	assert_string_equal(t->tasks[2].container, "pod:1a2b3c4d-1111-2222-3333-444455556666");
	assert_string_equal(tza_proc_key(jc, TZA_BY_JOB), "job_77/step_0");
	assert_string_equal(tza_proc_key(d, TZA_BY_CONTAINER), "0123456789ab");
	assert_null(w->task); /* an unknown layout matches nothing */
	tza_tasks_free(t);
}

static void test_combined_peak(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	struct tza_proc *r = hp(&h, NULL, "/usr/bin/make", "make", 0, 10000, 1);
	struct tza_proc *a = hp(&h, r, "/usr/bin/bash", "bash|x.sh", 1000, 9000, 10);
	struct tza_proc *a1 = hp(&h, a, "/usr/bin/bwa", "bwa", 1000, 4000, 10);
	struct tza_proc *a2 = hp(&h, a, "/usr/bin/samtools", "samtools", 1500, 5000, 10);
	/* a1: 100 KiB at 1000, 50 at 3000, exits at 4000; a2: 200 at 2000, exits 5000 */
	h.smp[1][0] = (struct tza_sample){.ts_ns = 1000, .rss_kib = 10};
	h.smp[2][0] = (struct tza_sample){.ts_ns = 1000, .rss_kib = 100};
	h.smp[2][1] = (struct tza_sample){.ts_ns = 3000, .rss_kib = 50};
	h.smp[3][0] = (struct tza_sample){.ts_ns = 2000, .rss_kib = 200};
	uint32_t ns[] = {0, 1, 2, 1};
	for (uint32_t i = 1; i < 4; i++) {
		h.res[i].samples = h.smp[i];
		h.res[i].nsamples = h.res[i].nsamples_seen = ns[i];
		h.p[i].res = &h.res[i];
	}
	a->maxrss_kib = 12;
	a1->maxrss_kib = 120;
	a2->maxrss_kib = 230;
	struct tza_task_input in = {0};
	struct tza_tasks *t;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 1);
	assert_int_equal(t->tasks[0].peak_rss_kib, 10 + 100 + 200);
	assert_int_equal(t->tasks[0].peak_rss_ns, 2000);
	assert_int_equal(t->tasks[0].exit_rss_max_kib, 230);
	assert_int_equal(t->tasks[0].exit_rss_sum_kib, 12 + 120 + 230);
	assert_ptr_equal(a2->task, &t->tasks[0]);
	tza_tasks_free(t);

	/* a member's exit peak above every sampled sum is the floor */
	a2->maxrss_kib = 400;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->tasks[0].peak_rss_kib, 400);
	assert_int_equal(t->tasks[0].peak_rss_ns, 0);
	tza_tasks_free(t);
}

/* --by task/rule: a task fails when its root (the job) does; a member
 * exiting non-zero in a job that succeeds is only a member failure */
static void test_group_failed(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	struct tza_proc *mk = hp(&h, NULL, "/usr/bin/make", "make", 1000, 9000, 10);
	struct tza_proc *s1 = hp(&h, mk, "/usr/bin/bash", "bash|-c|a", 2000, 5000, 20);
	struct tza_proc *rl = hp(&h, s1, "/usr/bin/readlink", "readlink|x", 2100, 2200, 5);
	struct tza_proc *s2 = hp(&h, mk, "/usr/bin/bash", "bash|-c|b", 2500, 6000, 20);
	rl->exit_code = 1;
	struct tza_task_input in = {0};
	struct tza_tasks *t;
	struct tza_machine mi = {.ncpus = 2, .mem_kib = 1 << 20};
	struct tza_group *g;
	uint32_t ng;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 2);
	assert_false(tza_task_failed(&t->tasks[0]));
	assert_int_equal(tza_groups(&h.m, TZA_BY_TASK, NULL, &mi, &g, &ng), 0);
	uint64_t failed = 0, members = 0;
	for (uint32_t i = 0; i < ng; i++) {
		failed += g[i].failed;
		members += g[i].member_failures;
		assert_false(g[i].flags & TZA_G_FAILED);
	}
	assert_int_equal(failed, 0);
	assert_int_equal(members, 1);
	free(g);
	tza_tasks_free(t);

	/* the second job's shell exits 2: that task failed */
	s2->exit_code = 2;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_true(tza_task_failed(&t->tasks[1]));
	assert_int_equal(tza_groups(&h.m, TZA_BY_TASK, NULL, &mi, &g, &ng), 0);
	failed = members = 0;
	uint32_t flagged = 0;
	for (uint32_t i = 0; i < ng; i++) {
		failed += g[i].failed;
		members += g[i].member_failures;
		flagged += !!(g[i].flags & TZA_G_FAILED);
	}
	assert_int_equal(failed, 1);
	assert_int_equal(members, 2);
	assert_int_equal(flagged, 1);
	/* by process (tool): every failed process counts */
	free(g);
	assert_int_equal(tza_groups(&h.m, TZA_BY_TOOL, NULL, &mi, &g, &ng), 0);
	failed = 0;
	for (uint32_t i = 0; i < ng; i++)
		failed += g[i].failed;
	assert_int_equal(failed, 2);
	free(g);
	tza_tasks_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snakemake_local), cmocka_unit_test(test_snakemake_cluster),
		cmocka_unit_test(test_nextflow),	cmocka_unit_test(test_generic_and_child),
		cmocka_unit_test(test_cgroups),		cmocka_unit_test(test_combined_peak),
		cmocka_unit_test(test_group_failed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
