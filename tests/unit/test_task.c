/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_task.c - the task model (analyze/task.c) over hand-made models: each
 * adapter's matching rule (Snakemake local job + metadata join by exact
 * command and time, failed jobs and retries from the log, script: jobs,
 * cluster --rules / --target-jobs, jobs without a record named from their
 * bash -c image, Nextflow .command.run + header + trace.txt, --task REGEX
 * over every image, Slurm and container cgroup paths (SLURM_JOB_ID of the
 * first image), the child fallback), bad records noted and skipped, and
 * the numbers (CPU sum, combined peak RSS and its bounds, I/O,
 * failing member, limits); the path of tasks (taskpath.c) over a synthetic
 * DAG whose time order and dependency order differ.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "helper.h"

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
	struct tza_exec_ctx ec[NP], ec2[NP]; /* e's and ex[][1]'s */
	char argv[NP][256];
	struct tza_proc_res res[NP];
	struct tza_sample smp[NP][4];
	struct tza_exec ex[NP][2];
	char argv2[NP][256];
};

static void hand_init(struct hand *h)
{
	memset(h, 0, sizeof(*h));
	h->m.procs = h->v;
	h->m.roots = h->roots;
	h->m.t0_ns = 1000;
	h->m.t1_ns = 100000;
}

/* argv "a|b|c" into dst (256 bytes) as the kernel's "a\0b\0c\0"; returns
 * its length with the last NUL */
static uint32_t split_argv(char dst[256], const char *argv)
{
	size_t n = strlen(argv);
	assert_true(n < 256);
	memcpy(dst, argv, n + 1);
	for (size_t j = 0; j < n; j++)
		if (dst[j] == '|')
			dst[j] = 0;
	return (uint32_t)n + 1;
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
		e->argv = (uint8_t *)h->argv[i];
		e->argv_len = split_argv(h->argv[i], argv);
		h->ec[i].exe = (char *)exe;
		e->ctx = &h->ec[i];
		e->ts_ns = start;
		p->execs = e;
		p->nexecs = 1;
	}
	h->v[i] = p;
	return p;
}

/* Give p a second image (exec'd at ts) after its first: argv "a|b" */
static void hexec(struct hand *h, struct tza_proc *p, const char *exe, const char *argv,
		  uint64_t ts)
{
	uint32_t i = p->index;
	h->ex[i][0] = h->e[i];
	h->ex[i][1] = (struct tza_exec){.argv = (uint8_t *)h->argv2[i],
					.argv_len = split_argv(h->argv2[i], argv),
					.ctx = &h->ec2[i],
					.ts_ns = ts};
	h->ec2[i].exe = (char *)exe;
	p->execs = h->ex[i];
	p->nexecs = 2;
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
		    "\"input\": [\"in\", \"ref/x.fa\"], "
		    "\"starttime\": 1796131401.25, \"endtime\": 1796131401.5}"),
		/* the job's second output: its own record, the same content */
		ATT("/w/.snakemake/metadata/by9hLmlkeA==",
		    "{\"rule\": \"sort\", \"shellcmd\": \"\\n  sort in > o/a.txt\\n  \", "
		    "\"input\": [\"in\", \"ref/x.fa\"], "
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
	struct tza_task_input in = {.att = att, .natt = 6};
	struct tza_tasks *t;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 2);
	assert_int_equal(t->tasks[0].kind, TZA_TASK_SNAKEMAKE);
	assert_string_equal(t->tasks[0].name, "sort");
	assert_string_equal(t->tasks[0].id, "o/a.idx"); /* its smallest output */
	/* the dependency records: what it read, every output it wrote */
	assert_true(t->tasks[0].wf_io);
	assert_int_equal(t->tasks[0].wf_ninputs, 2);
	assert_string_equal(t->tasks[0].wf_inputs[1], "ref/x.fa");
	assert_int_equal(t->tasks[0].wf_noutputs, 2);
	assert_string_equal(t->tasks[0].wf_outputs[0], "o/a.idx");
	assert_string_equal(t->tasks[0].wf_outputs[1], "o/a.txt");
	assert_true(t->tasks[1].wf_io);
	assert_int_equal(t->tasks[1].wf_ninputs, 0);
	assert_int_equal(t->tasks[1].wf_noutputs, 1);
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

/* A cluster job (snakemake --target-jobs on a node) joins its metadata
 * record by its child shell's command: named and identified by the record,
 * with its inputs and outputs (the data edges across hosts); its attempt
 * stays the one its argv gives */
static void test_snakemake_cluster_record(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	struct tza_proc *w = hp(&h, NULL, "/bin/sh", "sh|worker.sh", 500, 95000, 10);
	struct tza_proc *js = hp(&h, w, "/bin/sh", "sh|jobscript.sh", 900, 9100, 5);
	struct tza_proc *j = hp(&h, js, "/usr/bin/python3.11",
				"python3|-m|snakemake|--snakefile|S|--target-jobs|branch:b=x|"
				"--attempt|2|--nocolor",
				1000, 9000, 40);
	struct tza_proc *sh = hp(&h, j, "/usr/bin/bash",
				 "/usr/bin/bash|-c|set -euo pipefail;  sleep 6; cat src.txt > b/x.txt",
				 2000, 8000, 10);
	hp(&h, sh, "/usr/bin/cat", "cat|src.txt", 7000, 7900, 5);
	static const struct tza_attachment att[] = {
		/* b/x.txt in base64 */
		ATT("/w/.snakemake/metadata/Yi94LnR4dA==",
		    "{\"rule\": \"branch\", \"shellcmd\": \"sleep 6; cat src.txt > b/x.txt\", "
		    "\"input\": [\"src.txt\"]}"),
	};
	struct tza_task_input in = {.att = att, .natt = 1};
	struct tza_tasks *t;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 1);
	assert_ptr_equal(t->tasks[0].root, j);
	assert_int_equal(t->tasks[0].kind, TZA_TASK_SNAKEMAKE);
	assert_string_equal(t->tasks[0].name, "branch");
	assert_string_equal(t->tasks[0].id, "b/x.txt");
	assert_string_equal(t->tasks[0].tag, "b=x");
	assert_int_equal(t->tasks[0].attempt, 2);
	assert_true(t->tasks[0].wf_io);
	assert_int_equal(t->tasks[0].wf_ninputs, 1);
	assert_string_equal(t->tasks[0].wf_inputs[0], "src.txt");
	assert_int_equal(t->tasks[0].wf_noutputs, 1);
	assert_string_equal(t->tasks[0].wf_outputs[0], "b/x.txt");
	tza_tasks_free(t);

	/* without the record: named by its argv as before, no data edges */
	in.natt = 0;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 1);
	assert_string_equal(t->tasks[0].name, "branch");
	assert_false(t->tasks[0].wf_io);
	tza_tasks_free(t);
}

/* Snakemake writes each output's record with its own starttime (ms
 * apart): a job's records are grouped by job_hash, and the smallest output
 * is its id whichever record is nearest in time */
static void test_snakemake_job_hash(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	struct tza_proc *smk = hp(&h, NULL, "/usr/bin/python3.11",
				  "/usr/bin/python3|/usr/bin/snakemake|-j|1", 1000, 90000, 50);
	hp(&h, smk, "/usr/bin/bash", "/usr/bin/bash|-c|set -euo pipefail;  touch m1 m2 m3", 2000,
	   5000, 10);
	static const struct tza_attachment att[] = {
		/* m3, m1, m2 in base64; m3's record is the nearest to nothing in
		 * particular: without a clock all tie on the job */
		ATT("/w/.snakemake/metadata/bTM=",
		    "{\"rule\": \"m\", \"shellcmd\": \"touch m1 m2 m3\", \"job_hash\": 77, "
		    "\"input\": [\"in\"], \"starttime\": 1796131401.001}"),
		ATT("/w/.snakemake/metadata/bTE=",
		    "{\"rule\": \"m\", \"shellcmd\": \"touch m1 m2 m3\", \"job_hash\": 77, "
		    "\"input\": [\"in\"], \"starttime\": 1796131401.003}"),
		ATT("/w/.snakemake/metadata/bTI=",
		    "{\"rule\": \"m\", \"shellcmd\": \"touch m1 m2 m3\", \"job_hash\": 77, "
		    "\"input\": [\"in\"], \"starttime\": 1796131401.002}"),
	};
	struct tza_task_input in = {.att = att, .natt = 3};
	struct tza_tasks *t;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 1);
	assert_string_equal(t->tasks[0].id, "m1");
	assert_true(t->tasks[0].wf_io);
	assert_int_equal(t->tasks[0].wf_noutputs, 3);
	assert_string_equal(t->tasks[0].wf_outputs[0], "m1");
	assert_int_equal(t->nnotes, 0);
	tza_tasks_free(t);
}

/* A workflow manager's head in cluster mode: its children submit jobs
 * (they ran on other nodes); they are no tasks. A plain command's children
 * are (the fallback). */
static void test_manager_no_fallback(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	struct tza_proc *smk = hp(&h, NULL, "/usr/bin/python3.11",
				  "/usr/bin/python3|/usr/bin/snakemake|--cluster|submit.sh", 1000,
				  90000, 50);
	hp(&h, smk, "/bin/sh", "/bin/sh|submit.sh|/w/.snakemake/tmp.x/job1.sh", 2000, 2100, 5);
	hp(&h, smk, "/bin/sh", "/bin/sh|submit.sh|/w/.snakemake/tmp.x/job2.sh", 3000, 3100, 5);
	struct tza_task_input in = {0};
	struct tza_tasks *t;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 0);
	tza_tasks_free(t);

	static struct hand h2;
	hand_init(&h2);
	struct tza_proc *sh = hp(&h2, NULL, "/bin/sh", "/bin/sh|run.sh", 1000, 90000, 50);
	hp(&h2, sh, "/usr/bin/sort", "sort|x", 2000, 2100, 5);
	assert_int_equal(tza_tasks_build_in(&h2.m, &in, &t), 0);
	assert_int_equal(t->n, 1);
	assert_int_equal(t->tasks[0].kind, TZA_TASK_CHILD);
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
	h.ec[run->index].cwd = "/w/work/ab/cdef1234567890";
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
	h.ec[r->index].cgroup_id = 1;
	struct tza_proc *j = hp(&h, r, "/usr/bin/srun", "srun|x", 2000, 8000, 10);
	h.ec[j->index].cgroup_id = 2;
	struct tza_proc *jc = hp(&h, j, "/usr/bin/x", "x", 2100, 7000, 100);
	h.ec[jc->index].cgroup_id = 2;
	struct tza_proc *d = hp(&h, r, "/usr/bin/sleep", "sleep|1", 3000, 4000, 5);
	h.ec[d->index].cgroup_id = 3;
	struct tza_proc *k = hp(&h, r, "/usr/bin/pause", "pause", 3500, 4000, 5);
	h.ec[k->index].cgroup_id = 4;
	struct tza_proc *w = hp(&h, r, "/usr/bin/true", "true", 3600, 4000, 5);
	h.ec[w->index].cgroup_id = 5;
	/* hybrid host: the v1 memory cgroup names the job */
	struct tza_proc *v1 = hp(&h, r, "/usr/bin/x", "x", 3700, 4000, 5);
	h.ec[v1->index].cgroup_id = 1;
	h.ec[v1->index].memcg_id = 6;
	/* v1 memory at the root, the v2 path names it */
	struct tza_proc *v2 = hp(&h, r, "/usr/bin/x", "x", 3800, 4000, 5);
	h.ec[v2->index].cgroup_id = 2;
	h.ec[v2->index].memcg_id = 7;
	/* only the recorded SLURM_JOB_ID */
	struct tza_proc *ev = hp(&h, r, "/usr/bin/x", "x", 3900, 4000, 5);
	static char env[] = "SLURM_JOB_ID=99\0OTHER=1";
	h.ec[ev->index].env = env;
	h.ec[ev->index].env_len = sizeof(env);
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

/* A member's own peak (tza_proc_own_rss_kib): its images from its first exec
 * on, not the copy of its parent it ran before (in the process peak) */
static void test_own_peak(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	struct tza_proc *r = hp(&h, NULL, "/usr/bin/python3", "python3|wf.py", 0, 10000, 1);
	struct tza_proc *a = hp(&h, r, "/usr/bin/bash", "bash|-c|x", 1000, 9000, 10);
	struct tza_proc *b = hp(&h, a, NULL, NULL, 2000, 2500, 10);
	struct tza_proc *c = hp(&h, a, "/usr/bin/env", "env|gzip", 3000, 8000, 10);
	/* a: forked at 1000 from the 900 KiB python, exec'd bash at 1500
	 * (sampled at 1200 in its copy: 800), then gzip at 3000: bash's peak
	 * 40 (prev_maxrss_kib), signal->maxrss then 900 (maxrss_before_kib) */
	h.e[a->index].ts_ns = 1500;
	hexec(&h, a, "/usr/bin/gzip", "gzip|-d", 3000);
	struct tza_exec *x = &a->execs[1];
	x->prev_maxrss_kib = 40;
	x->maxrss_before_kib = 900;
	x->byname_known = (1u << TZA_XB_prev_maxrss_kib) | (1u << TZA_XB_maxrss_before_kib);
	a->maxrss_kib = 30;
	h.smp[a->index][0] = (struct tza_sample){.ts_ns = 1200, .rss_kib = 800};
	h.smp[a->index][1] = (struct tza_sample){.ts_ns = 2000, .rss_kib = 35};
	h.res[a->index] =
	    (struct tza_proc_res){.samples = h.smp[a->index], .nsamples = 2, .nsamples_seen = 2};
	a->res = &h.res[a->index];
	/* b: a subshell that never exec'd: its whole peak */
	b->maxrss_kib = 5;
	/* c: env then gzip, from a recorder before exec schema v3 (no
	 * per-image peaks): its last image's */
	hexec(&h, c, "/usr/bin/gzip", "gzip", 3100);
	c->maxrss_kib = 20;

	assert_int_equal(tza_proc_peak_rss_kib(a), 900);
	assert_int_equal(tza_proc_own_rss_kib(a), 40);
	assert_int_equal(tza_proc_own_rss_kib(b), 5);
	assert_int_equal(tza_proc_own_rss_kib(c), 20);
	struct tza_task_input in = {0};
	struct tza_tasks *t;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 1);
	assert_ptr_equal(t->tasks[0].root, a);
	/* the 800 KiB sample before a's exec is not the task's; 35 sampled,
	 * raised to the largest own peak */
	assert_int_equal(t->tasks[0].exit_rss_max_kib, 40);
	assert_int_equal(t->tasks[0].exit_rss_sum_kib, 40 + 5 + 20);
	assert_int_equal(t->tasks[0].peak_rss_kib, 40);
	tza_tasks_free(t);

	/* still running: its largest sample (800, maxrss_kib) was its copy;
	 * the kept ones from its first exec on and its replaced images count */
	a->flags |= TZA_P_NO_EXIT | TZA_P_SAMPLED;
	a->maxrss_kib = 800;
	assert_int_equal(tza_proc_own_rss_kib(a), 40);
	h.smp[a->index][1].rss_kib = 60;
	assert_int_equal(tza_proc_own_rss_kib(a), 60);
}

/* ------------------------------------------------- the path of tasks */

/* A synthetic task: [start, end], reading ins and writing outs (NULL: no
 * workflow records), its root a child of parent */
struct ptask {
	const char *name;
	uint64_t start, end;
	const char *ins[3], *outs[2];
	int io;
};

struct pset {
	struct tza_tasks t;
	struct tza_task k[8];
	struct tza_proc root[8], parent;
	const char *ins[8][3], *outs[8][2];
};

static void pset_init(struct pset *s, const struct ptask *p, uint32_t n)
{
	memset(s, 0, sizeof(*s));
	s->t.tasks = s->k;
	s->t.n = n;
	for (uint32_t i = 0; i < n; i++) {
		struct tza_task *k = &s->k[i];
		s->root[i].pid = 200 + i;
		s->root[i].parent = &s->parent;
		k->index = i;
		k->name = k->key = k->id = p[i].name;
		k->root = &s->root[i];
		k->start_ns = p[i].start;
		k->end_ns = p[i].end;
		k->wf_io = (uint32_t)p[i].io;
		for (uint32_t j = 0; j < 3 && p[i].ins[j]; j++)
			s->ins[i][k->wf_ninputs++] = p[i].ins[j];
		for (uint32_t j = 0; j < 2 && p[i].outs[j]; j++)
			s->outs[i][k->wf_noutputs++] = p[i].outs[j];
		k->wf_inputs = s->ins[i];
		k->wf_outputs = s->outs[i];
	}
}

/* The path's task names joined by spaces */
static const char *path_names(const struct tza_task_path *tp)
{
	static char b[256];
	b[0] = 0;
	for (uint32_t i = 0; i < tp->n; i++) {
		if (i)
			strcat(b, " ");
		strcat(b, tp->steps[i].task->name);
	}
	return b;
}

/*
 * A diamond S -> {L, R} -> J, an independent long task X that ends late
 * (but not last), and an independent M that time alone would put between
 * R and J:
 *   S [0,10] -> s;  X [0,95];  L [10,60] s -> l;  R [12,30] s -> r;
 *   M [31,70] -> m;  J [80,100] l r -> j
 * By the records: S L J (J's inputs: L ended last, at 60; J waited 20).
 * Without them (by time, all siblings): S R M J (M ended last before J
 * started, R before M, S before R).
 */
static void test_task_path(void **st)
{
	(void)st;
	static const struct ptask dag[] = {
		{"S", 0, 10, {NULL}, {"s", NULL}, 1},
		{"X", 0, 95, {NULL}, {"x", NULL}, 1},
		{"L", 10, 60, {"s", NULL}, {"l", NULL}, 1},
		{"R", 12, 30, {"s", "ref", NULL}, {"r", NULL}, 1},
		{"M", 31, 70, {NULL}, {"m", NULL}, 1},
		{"J", 80, 100, {"r", "l", NULL}, {"j", "j.idx"}, 1},
	};
	static struct pset s;
	struct tza_task_path tp;
	pset_init(&s, dag, 6);
	assert_int_equal(tza_task_path(&s.t, &tp), 0);
	assert_string_equal(path_names(&tp), "S L J");
	assert_int_equal(tp.data_edges, 4); /* S->L, S->R, L->J, R->J */
	assert_int_equal(tp.time_edges, 0);
	assert_int_equal(tp.late, 0);
	assert_int_equal(tp.steps[0].edge, TZA_EDGE_NONE);
	assert_int_equal(tp.steps[0].wait_ns, 0);
	assert_int_equal(tp.steps[1].edge, TZA_EDGE_DATA);
	assert_int_equal(tp.steps[1].wait_ns, 0);
	assert_int_equal(tp.steps[2].wait_ns, 20);
	assert_int_equal(tp.wall_ns, 80);
	assert_int_equal(tp.wait_ns, 20);
	/* the identity: walls + waits = last end - first start */
	assert_int_equal(tp.wall_ns + tp.wait_ns, 100 - 0);
	tza_task_path_free(&tp);

	/* no records: by time among siblings */
	for (uint32_t i = 0; i < 6; i++)
		s.k[i].wf_io = 0;
	assert_int_equal(tza_task_path(&s.t, &tp), 0);
	assert_string_equal(path_names(&tp), "S R M J");
	assert_int_equal(tp.steps[2].edge, TZA_EDGE_TIME);
	assert_int_equal(tp.steps[2].wait_ns, 1);
	assert_int_equal(tp.steps[3].wait_ns, 10);
	assert_int_equal(tp.wall_ns, 87);
	assert_int_equal(tp.data_edges, 0);
	tza_task_path_free(&tp);

	/* the process tree: A precedes B only when A's root's parent is B's
	 * root's parent or its ancestor. M under its own shell sh: R -> M
	 * stays (R's parent is sh's parent), M -> J goes (sh is not J's
	 * ancestor), so J follows L */
	static struct tza_proc sh;
	sh.parent = &s.parent;
	s.root[4].parent = &sh;
	assert_int_equal(tza_task_path(&s.t, &tp), 0);
	assert_string_equal(path_names(&tp), "S L J");
	assert_int_equal(tp.steps[2].edge, TZA_EDGE_TIME);
	assert_int_equal(tp.steps[2].wait_ns, 20);
	tza_task_path_free(&tp);
	s.root[4].parent = &s.parent;

	/* mixed: J has no records, so its predecessors are by time (every
	 * task that ended by 80: M ended last); the others keep their data
	 * edges, and M, with records naming no input, has no predecessor */
	pset_init(&s, dag, 6);
	s.k[5].wf_io = 0;
	assert_int_equal(tza_task_path(&s.t, &tp), 0);
	assert_int_equal(tp.data_edges, 2);
	assert_string_equal(path_names(&tp), "M J");
	assert_int_equal(tp.steps[1].edge, TZA_EDGE_TIME);
	assert_int_equal(tp.steps[1].wait_ns, 10);
	tza_task_path_free(&tp);

	/* a data edge whose producer ended after the consumer started (a
	 * member outlived its job) is dropped and counted */
	pset_init(&s, dag, 6);
	s.k[2].end_ns = 85; /* L ends after J started */
	assert_int_equal(tza_task_path(&s.t, &tp), 0);
	assert_int_equal(tp.late, 1);
	assert_string_equal(path_names(&tp), "S R J");
	assert_int_equal(tp.steps[2].wait_ns, 50);
	tza_task_path_free(&tp);

	/* no tasks: an empty path */
	assert_int_equal(tza_task_path(NULL, &tp), 0);
	assert_int_equal(tp.n, 0);
	tza_task_path_free(&tp);
}

/*
 * The binding input, not the longest (snakemake -j 1, x first by
 * priority): X [0,30] -> x;  W [31,41] -> w;  J [42,43] reads x and w.
 * J was ready when W ended (41), so W binds it: the path is W J with a
 * wait of 1, though X J has more wall (30 + 1 against 10 + 1) and a wait of
 * 12 from X's end. W reads nothing: no predecessor, the path starts at it.
 * Without records (by time): X W J, each ready at the other's end.
 * Equal ends: the first in start order binds.
 */
static void test_task_path_binding(void **st)
{
	(void)st;
	static const struct ptask dag[] = {
		{"X", 0, 30, {NULL}, {"x", NULL}, 1},
		{"W", 31, 41, {NULL}, {"w", NULL}, 1},
		{"J", 42, 43, {"x", "w", NULL}, {"j", NULL}, 1},
	};
	static struct pset s;
	struct tza_task_path tp;
	pset_init(&s, dag, 3);
	assert_int_equal(tza_task_path(&s.t, &tp), 0);
	assert_string_equal(path_names(&tp), "W J");
	assert_int_equal(tp.data_edges, 2);
	assert_int_equal(tp.steps[1].edge, TZA_EDGE_DATA);
	assert_int_equal(tp.steps[1].wait_ns, 1);
	assert_int_equal(tp.wall_ns, 11);
	assert_int_equal(tp.wait_ns, 1);
	tza_task_path_free(&tp);

	/* the inputs in the other order: the same */
	s.ins[2][0] = "w";
	s.ins[2][1] = "x";
	assert_int_equal(tza_task_path(&s.t, &tp), 0);
	assert_string_equal(path_names(&tp), "W J");
	tza_task_path_free(&tp);

	/* by time: X W J */
	for (uint32_t i = 0; i < 3; i++)
		s.k[i].wf_io = 0;
	assert_int_equal(tza_task_path(&s.t, &tp), 0);
	assert_string_equal(path_names(&tp), "X W J");
	assert_int_equal(tp.steps[1].wait_ns, 1);
	assert_int_equal(tp.steps[2].wait_ns, 1);
	assert_int_equal(tp.wall_ns + tp.wait_ns, 43);
	tza_task_path_free(&tp);

	/* X and W end together: X, first in start order, binds J; and of
	 * two tasks that end last, the first in start order ends the path */
	pset_init(&s, dag, 3);
	s.k[0].end_ns = 41;
	s.k[1].start_ns = 20;
	assert_int_equal(tza_task_path(&s.t, &tp), 0);
	assert_string_equal(path_names(&tp), "X J");
	assert_int_equal(tp.steps[1].wait_ns, 1);
	tza_task_path_free(&tp);
	s.k[2].start_ns = 30;
	s.k[2].end_ns = 41; /* J, W and X end at 41; J's inputs end late */
	assert_int_equal(tza_task_path(&s.t, &tp), 0);
	assert_string_equal(path_names(&tp), "X");
	assert_int_equal(tp.late, 2);
	tza_task_path_free(&tp);
}

#define S_NS 1000000000ULL
#define SMK "/usr/bin/python3|/usr/bin/snakemake|-j|2"

/* Finding 1: jobs with the same command (wildcards) and commands that differ
 * only in spaces: each record once, by exact command and time */
static void test_snakemake_same_cmd(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	h.m.t1_ns = 20 * S_NS;
	struct tza_proc *smk = hp(&h, NULL, "/usr/bin/python3.11", SMK, 0, 20 * S_NS, 5000);
	struct tza_proc *j[5];
	const char *cmd[5] = {"set -euo pipefail;  sleep 0.4", "set -euo pipefail;  sleep 0.4",
			      "set -euo pipefail;  sleep 0.4", "set -euo pipefail;  sleep 0.5",
			      "set -euo pipefail;  sleep   0.5"};
	char a[5][64];
	for (int i = 0; i < 5; i++) {
		snprintf(a[i], sizeof(a[i]), "/usr/bin/bash|-c|%s", cmd[i]);
		/* j0, j1 run together; then j2, then j3, then j4 */
		uint64_t s0 = i < 2 ? S_NS : (uint64_t)(i + 1) * 2 * S_NS;
		j[i] = hp(&h, smk, "/usr/bin/bash", a[i], s0 + (uint64_t)i,
			  s0 + S_NS + (uint64_t)i * 100000000, 10);
	}
	/* records in another order than the jobs; epoch = boot + 1.7e9 s */
	static const struct tza_attachment att[] = {
		ATT("/w/.snakemake/metadata/ci5kb25l", /* r.done */
		    "{\"rule\": \"w\", \"shellcmd\": \"sleep 0.4\", \"starttime\": 1700000005.9, "
		    "\"endtime\": 1700000007.3}"),
		ATT("/w/.snakemake/metadata/eS50eHQ=", /* y.txt */
		    "{\"rule\": \"z\", \"shellcmd\": \"sleep   0.5\", \"starttime\": 1700000009.9, "
		    "\"endtime\": 1700000011.5}"),
		ATT("/w/.snakemake/metadata/cS5kb25l", /* q.done */
		    "{\"rule\": \"w\", \"shellcmd\": \"sleep 0.4\", \"starttime\": 1700000000.95, "
		    "\"endtime\": 1700000002.15}"),
		ATT("/w/.snakemake/metadata/eC50eHQ=", /* x.txt */
		    "{\"rule\": \"x\", \"shellcmd\": \"sleep 0.5\", \"starttime\": 1700000007.9, "
		    "\"endtime\": 1700000009.4}"),
		ATT("/w/.snakemake/metadata/cC5kb25l", /* p.done */
		    "{\"rule\": \"w\", \"shellcmd\": \"sleep 0.4\", \"starttime\": 1700000000.9, "
		    "\"endtime\": 1700000002.05}"),
		ATT("/w/.snakemake/log/x.snakemake.log",
		    "rule w:\n    output: p.done\n    jobid: 3\n    wildcards: s=p\n\n"
		    "rule w:\n    output: q.done\n    jobid: 4\n    wildcards: s=q\n\n"
		    "rule w:\n    output: r.done\n    jobid: 5\n    wildcards: s=r\n\n"),
	};
	struct tza_task_input in = {.att = att, .natt = 6, .has_realtime = 1,
				    .realtime_off_ns = 1700000000LL * (int64_t)S_NS};
	struct tza_tasks *t;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 5);
	/* j0 (1.0..2.0 s) is nearest p.done (0.9..2.05), j1 (1.0..2.1) q.done */
	static const char *const key[] = {"w s=p", "w s=q", "w s=r", "x x.txt", "z y.txt"};
	for (int i = 0; i < 5; i++) {
		assert_ptr_equal(j[i]->task, &t->tasks[i]);
		assert_string_equal(t->tasks[i].key, key[i]);
		assert_int_equal(t->tasks[i].attempt, 1);
	}
	assert_true(t->tasks[2].wf_start_s == 1700000005.9);
	assert_int_equal(t->nnotes, 0);
	tza_tasks_free(t);

	/* without a clock anchor: the earliest unused record of that command */
	in.has_realtime = 0;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	for (int i = 0; i < 5; i++)
		assert_string_equal(t->tasks[i].key, key[i]);
	tza_tasks_free(t);

	/* two jobs of two outputs each (a record per output), no clock: the
	 * second job gets the second job's records, not the first's other one */
	static const struct tza_attachment att2[] = {
		ATT("/w/.snakemake/metadata/YjI=", /* b2 */
		    "{\"rule\": \"w\", \"shellcmd\": \"sleep 0.4\", \"starttime\": 200.5}"),
		ATT("/w/.snakemake/metadata/YTI=", /* a2 */
		    "{\"rule\": \"w\", \"shellcmd\": \"sleep 0.4\", \"starttime\": 100.5}"),
		ATT("/w/.snakemake/metadata/YTE=", /* a1 */
		    "{\"rule\": \"w\", \"shellcmd\": \"sleep 0.4\", \"starttime\": 100.5}"),
		ATT("/w/.snakemake/metadata/YjE=", /* b1 */
		    "{\"rule\": \"w\", \"shellcmd\": \"sleep 0.4\", \"starttime\": 200.5}"),
	};
	struct tza_task_input in2 = {.att = att2, .natt = 4};
	assert_int_equal(tza_tasks_build_in(&h.m, &in2, &t), 0);
	assert_string_equal(t->tasks[0].key, "w a1");
	assert_string_equal(t->tasks[1].key, "w b1");
	assert_int_equal(t->tasks[0].wf_noutputs, 2); /* the job's outputs, its first first */
	assert_string_equal(t->tasks[0].wf_outputs[0], "a1");
	assert_string_equal(t->tasks[0].wf_outputs[1], "a2");
	assert_int_equal(t->tasks[1].wf_noutputs, 2);
	assert_true(has_note(t, "3 Snakemake job(s) without a .snakemake/metadata record"));
	tza_tasks_free(t);

	/* a record whose times do not overlap the job's life is not its */
	in.has_realtime = 1;
	in.realtime_off_ns = 1600000000LL * (int64_t)S_NS;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_string_equal(t->tasks[0].name, "sleep");
	assert_true(has_note(t, "5 Snakemake job(s) without a .snakemake/metadata record"));
	tza_tasks_free(t);
}

/* Findings 2 and 5: a failed job (no metadata record) from the log's Error
 * block; a retried job: attempt 1 (failed) and 2 (its record) */
static void test_snakemake_failed_retry(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	h.m.t1_ns = 20 * S_NS;
	struct tza_proc *smk = hp(&h, NULL, "/usr/bin/python3.11", SMK, 0, 20 * S_NS, 5000);
	struct tza_proc *bad =
		hp(&h, smk, "/usr/bin/bash",
		   "/usr/bin/bash|-c|set -euo pipefail;  python3 -c 'import sys; sys.exit(4)' > bad.txt",
		   S_NS, 2 * S_NS, 10);
	bad->exit_code = 4;
	bad->status = 4 << 8;
	struct tza_proc *f1 = hp(&h, smk, "/usr/bin/bash",
				 "/usr/bin/bash|-c|set -euo pipefail;  \n  flaky.sh > flaky.txt\n",
				 3 * S_NS, 4 * S_NS, 10);
	f1->exit_code = 1;
	f1->status = 1 << 8;
	struct tza_proc *f2 = hp(&h, smk, "/usr/bin/bash",
				 "/usr/bin/bash|-c|set -euo pipefail;  \n  flaky.sh > flaky.txt\n",
				 5 * S_NS, 6 * S_NS, 10);
	static const struct tza_attachment att[] = {
		ATT("/w/.snakemake/metadata/Zmxha3kudHh0", /* flaky.txt */
		    "{\"rule\": \"flaky\", \"shellcmd\": \"\\n  flaky.sh > flaky.txt\\n\", "
		    "\"starttime\": 1700000004.95, \"endtime\": 1700000006.1}"),
		ATT("/w/.snakemake/log/x.snakemake.log",
		    "[Tue Dec  1 14:47:19 2026]\nrule bad:\n    output: bad.txt\n    jobid: 2\n"
		    "    reason: Missing output files: bad.txt\n"
		    "    resources: tmpdir=/tmp, mem_mb=2000, mem_mib=1908\n\n"
		    "[Tue Dec  1 14:47:19 2026]\nrule flaky:\n    output: flaky.txt\n    jobid: 1\n"
		    "    threads: 2\n\n"
		    "[Tue Dec  1 14:47:21 2026]\nError in rule bad:\n    jobid: 2\n    output: bad.txt\n"
		    "    shell:\n        python3 -c 'import sys; sys.exit(4)' > bad.txt\n"
		    "        (one of the commands exited with non-zero exit code; note that "
		    "snakemake uses bash strict mode!)\n\n"
		    "Error in rule flaky:\n    jobid: 1\n    output: flaky.txt\n    shell:\n        \n"
		    "  flaky.sh > flaky.txt\n\n"
		    "        (one of the commands exited with non-zero exit code; note that "
		    "snakemake uses bash strict mode!)\n\n"
		    "rule flaky:\n    output: flaky.txt\n    jobid: 1\n    threads: 2\n\n"),
	};
	struct tza_task_input in = {.att = att, .natt = 2, .has_realtime = 1,
				    .realtime_off_ns = 1700000000LL * (int64_t)S_NS};
	struct tza_tasks *t;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 3);
	const struct tza_task *k = &t->tasks[0];
	assert_ptr_equal(k->root, bad);
	assert_string_equal(k->name, "bad");
	assert_string_equal(k->id, "bad.txt");
	assert_string_equal(k->key, "bad bad.txt");
	assert_int_equal(k->req_mem_bytes, 1908ULL << 20);
	assert_true(k->req_cpus == 1);
	assert_int_equal(k->attempt, 1);
	assert_true(tza_task_failed(k));
	k = &t->tasks[1];
	assert_ptr_equal(k->root, f1);
	assert_string_equal(k->key, "flaky flaky.txt");
	assert_int_equal(k->attempt, 1);
	assert_true(k->wf_start_s == 0); /* its record is the retry's */
	assert_true(k->req_cpus == 2);
	k = &t->tasks[2];
	assert_ptr_equal(k->root, f2);
	assert_string_equal(k->key, "flaky flaky.txt attempt 2");
	assert_int_equal(k->attempt, 2);
	assert_true(k->wf_start_s == 1700000004.95);
	assert_int_equal(t->nnotes, 0);
	tza_tasks_free(t);
}

/* Finding 4: a script: job named by its record (shellcmd null, by time and
 * the script's name), never by the temporary file; a cluster job's argv */
static void test_snakemake_script_cluster(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	h.m.t1_ns = 20 * S_NS;
	struct tza_proc *smk = hp(&h, NULL, "/usr/bin/python3.11", SMK, 0, 20 * S_NS, 5000);
	struct tza_proc *sc = hp(&h, smk, "/usr/bin/bash",
				 "/usr/bin/bash|-c|set -euo pipefail;  /usr/bin/python3.11 "
				 "/w/.snakemake/scripts/tmp1n_v1b0w.s.py",
				 S_NS, 2 * S_NS, 10);
	hexec(&h, sc, "/usr/bin/python3.11",
	      "/usr/bin/python3.11|/w/.snakemake/scripts/tmp1n_v1b0w.s.py", S_NS + 1000);
	struct tza_proc *cl = hp(&h, smk, "/usr/bin/python3.11",
				 "/usr/bin/python3.11|-m|snakemake|--target-jobs|crunch:s=c,t=1|"
				 "--attempt|2|--resources|mem_mb=500|mem_mib=477|runtime=3|--nocolor",
				 3 * S_NS, 4 * S_NS, 10);
	static const struct tza_attachment att[] = {
		/* another rule's script job, earlier: not this one's */
		ATT("/w/.snakemake/metadata/dC50eHQ=",
		    "{\"rule\": \"t\", \"shellcmd\": null, \"starttime\": 1700000000.5, "
		    "\"endtime\": 1700000001.5}"),
		ATT("/w/.snakemake/metadata/cy50eHQ=",
		    "{\"rule\": \"s\", \"shellcmd\": null, \"starttime\": 1700000000.9, "
		    "\"endtime\": 1700000002.1}"),
	};
	struct tza_task_input in = {.att = att, .natt = 2, .has_realtime = 1,
				    .realtime_off_ns = 1700000000LL * (int64_t)S_NS};
	struct tza_tasks *t;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 2);
	assert_ptr_equal(t->tasks[0].root, sc);
	assert_string_equal(t->tasks[0].key, "s s.txt");
	const struct tza_task *k = &t->tasks[1];
	assert_ptr_equal(k->root, cl);
	assert_string_equal(k->name, "crunch");
	assert_string_equal(k->tag, "s=c, t=1"); /* as the log writes wildcards */
	assert_int_equal(k->attempt, 2);
	assert_int_equal(k->req_mem_bytes, 477ULL << 20);
	assert_int_equal(k->req_time_ms, 3 * 60000);
	assert_string_equal(k->key, "crunch s=c, t=1 attempt 2");
	tza_tasks_free(t);

	/* without its record: the script's name, not the temporary file's */
	in.natt = 0;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_string_equal(t->tasks[0].name, "s.py");
	tza_tasks_free(t);
}

/* A cluster job without a shell (run:, script:) joins the record of its
 * rule that overlaps its life (a clock anchor needed): not another rule's
 * at the same time, nor its rule's other job's later */
static void test_snakemake_cluster_run(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	h.m.t1_ns = 20 * S_NS;
	struct tza_proc *w = hp(&h, NULL, "/bin/sh", "sh|worker.sh", 0, 20 * S_NS, 10);
	struct tza_proc *cl = hp(&h, w, "/usr/bin/python3.11",
				 "/usr/bin/python3.11|-m|snakemake|--target-jobs|r:i=1|--nocolor",
				 3 * S_NS, 4 * S_NS, 10);
	static const struct tza_attachment att[] = {
		ATT("/w/.snakemake/metadata/eC50eHQ=", /* x.txt: another rule */
		    "{\"rule\": \"x\", \"shellcmd\": null, \"starttime\": 1700000003.1, "
		    "\"endtime\": 1700000003.9}"),
		ATT("/w/.snakemake/metadata/cjIudHh0", /* r2.txt: r's job at 10 s */
		    "{\"rule\": \"r\", \"shellcmd\": null, \"starttime\": 1700000010.1, "
		    "\"endtime\": 1700000010.9}"),
		ATT("/w/.snakemake/metadata/cjEudHh0", /* r1.txt */
		    "{\"rule\": \"r\", \"shellcmd\": null, \"input\": [\"x.txt\"], "
		    "\"starttime\": 1700000003.2, \"endtime\": 1700000003.8}"),
	};
	struct tza_task_input in = {.att = att, .natt = 3, .has_realtime = 1,
				    .realtime_off_ns = 1700000000LL * (int64_t)S_NS};
	struct tza_tasks *t;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 1);
	assert_ptr_equal(t->tasks[0].root, cl);
	assert_string_equal(t->tasks[0].name, "r");
	assert_string_equal(t->tasks[0].id, "r1.txt");
	assert_true(t->tasks[0].wf_io);
	assert_int_equal(t->tasks[0].wf_ninputs, 1);
	assert_string_equal(t->tasks[0].wf_inputs[0], "x.txt");
	tza_tasks_free(t);

	/* without a clock anchor: no time to join by, the job keeps its argv's name */
	in.has_realtime = 0;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 1);
	assert_false(t->tasks[0].wf_io);
	assert_string_equal(t->tasks[0].name, "r");
	tza_tasks_free(t);
}

/* Finding 10: a job without a record is named from its bash -c image (not
 * the command bash exec'd last); finding 11: SLURM_JOB_ID from the first
 * image that has it, --task over earlier images */
static void test_unrecorded_images(void **st)
{
	(void)st;
	static struct hand h;
	hand_init(&h);
	struct tza_proc *smk = hp(&h, NULL, "/usr/bin/python3.11", SMK, 1000, 90000, 5000);
	struct tza_proc *g = hp(&h, smk, "/usr/bin/bash",
				"/usr/bin/bash|-c|set -euo pipefail;  seq 3 | awk 1 > data/a.txt; "
				"sleep 0.5",
				2000, 5000, 10);
	hexec(&h, g, "/usr/bin/sleep", "sleep|0.5", 3000);
	hp(&h, g, "/usr/bin/seq", "seq|3", 2100, 2200, 1);
	hp(&h, g, "/usr/bin/awk", "awk|1", 2100, 2300, 1);
	struct tza_proc *e = hp(&h, smk, "/usr/bin/bash",
				"/usr/bin/bash|-c|set -euo pipefail;  echo hi > x", 6000, 7000, 1);
	struct tza_task_input in = {0};
	struct tza_tasks *t;
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 2);
	assert_ptr_equal(t->tasks[0].root, g);
	assert_string_equal(t->tasks[0].name, "seq");
	assert_ptr_equal(t->tasks[1].root, e);
	assert_string_equal(t->tasks[1].name, "echo"); /* builtins only */
	tza_tasks_free(t);

	/* --task over an earlier image's argv */
	in.regex = "data/(.)\\.txt";
	assert_int_equal(tza_tasks_build_in(&h.m, &in, &t), 0);
	assert_int_equal(t->n, 1);
	assert_ptr_equal(t->tasks[0].root, g);
	assert_string_equal(t->tasks[0].name, "a");
	tza_tasks_free(t);

	/* SLURM_JOB_ID of the first image: the last ran under env -u */
	static struct hand h2;
	hand_init(&h2);
	struct tza_proc *r = hp(&h2, NULL, "/usr/bin/bash", "bash|run.sh", 1000, 9000, 1);
	struct tza_proc *j = hp(&h2, r, "/usr/bin/bash", "bash|-c|job", 2000, 8000, 1);
	static char env[] = "SLURM_JOB_ID=4242";
	h2.ec[j->index].env = env;
	h2.ec[j->index].env_len = sizeof(env);
	hexec(&h2, j, "/usr/bin/sleep", "sleep|1", 2500);
	struct tza_proc *jc = hp(&h2, j, "/usr/bin/true", "true", 2600, 2700, 1);
	in = (struct tza_task_input){0};
	assert_int_equal(tza_tasks_build_in(&h2.m, &in, &t), 0);
	assert_int_equal(t->n, 1);
	assert_int_equal(t->tasks[0].kind, TZA_TASK_SLURM);
	assert_ptr_equal(t->tasks[0].root, j);
	assert_string_equal(t->tasks[0].job, "4242");
	assert_ptr_equal(jc->task, &t->tasks[0]);
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

TEST_MAIN(NULL, NULL, cmocka_unit_test(test_snakemake_local),
	  cmocka_unit_test(test_snakemake_cluster), cmocka_unit_test(test_snakemake_cluster_record),
	  cmocka_unit_test(test_snakemake_job_hash), cmocka_unit_test(test_manager_no_fallback),
	  cmocka_unit_test(test_snakemake_cluster_run), cmocka_unit_test(test_nextflow),
	  cmocka_unit_test(test_generic_and_child), cmocka_unit_test(test_cgroups),
	  cmocka_unit_test(test_combined_peak), cmocka_unit_test(test_own_peak),
	  cmocka_unit_test(test_task_path), cmocka_unit_test(test_task_path_binding),
	  cmocka_unit_test(test_snakemake_same_cmd), cmocka_unit_test(test_snakemake_failed_retry),
	  cmocka_unit_test(test_snakemake_script_cluster), cmocka_unit_test(test_unrecorded_images),
	  cmocka_unit_test(test_group_failed))
