/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task_int.h - the task builder's private parts, shared by its rooms:
 *   task_match.c      which processes are task roots (the adapters)
 *   task_snakemake.c  the join with Snakemake's metadata and log
 *   task_nextflow.c   the join with Nextflow's trace.txt
 *   task.c            the driver, each task's numbers, the public calls
 * Not for callers outside: they use task.h.
 */
#ifndef TRACER_TASK_INT_H
#define TRACER_TASK_INT_H

#include <regex.h>
#include <stdarg.h>
#include <stdint.h>

#include "task.h"

/* Strings a task set owns (freed with it: tza_tasks_free); oom: an
 * allocation failed, the build fails */
struct store {
	char **s;
	size_t n, cap;
	int oom;
};

struct smk_rec {
	const char *cmd;    /* shellcmd, whitespace trimmed at both ends (store);
			       NULL for script:/run: jobs */
	const char *rule;   /* store */
	const char *output; /* store */
	const char *dir;    /* the workflow's directory: the record's path before
			       /.snakemake/metadata/ (store) */
	const char **input; /* the record's "input" list (store), NULL: none */
	uint32_t ninput;
	double start, end;
	int64_t job_hash; /* Snakemake's job_hash: the same in each output's record */
	int has_hash;
	int used, sib; /* sib: scratch, another output of the job being joined */
};

/* A block of a Snakemake log: a job's start ("rule NAME:") or its failure
 * ("Error in rule NAME:"); strings in the store */
struct smk_blk {
	int error;
	const char *rule, *jobid, *outputs, *wild, *threads, *res;
	const char *cmd; /* Error: the shell command, trimmed */
	int used;
};

struct cand {
	struct tza_proc *root;
	uint32_t kind;
	const char *name, *id; /* may be NULL until joined */
	const char *shellcmd;  /* Snakemake local job */
	const char *childcmd;  /* Snakemake cluster job: its first child shell's
				  CMD, to join its metadata record */
	const char *script;    /* its script: rule's NAME (tmpXXXX.NAME) */
	const char *jobid;     /* Snakemake log's */
	const char *workdir;   /* Nextflow */
	const char *job, *container;
	const struct smk_rec *rec; /* Snakemake metadata joined */
	const char **outputs;	   /* every record of the job (store) */
	uint32_t noutputs;
	const char *tag, *hash, *native_id, *status;
	uint32_t attempt;
	double req_cpus;
	uint64_t req_mem, req_time_ms;
};

struct build {
	struct tza_model *m;
	const struct tza_task_input *in;
	struct tza_tasks *t;
	struct store *st;
	regex_t re;
	int have_re;
	struct cand *c;
	uint32_t nc, capc;
	int32_t *tix; /* per p->index: candidate index, -1 none */
	struct smk_rec *smk;
	struct smk_blk *blk;
	uint32_t nblk;
};

enum pass { PASS_WORKFLOW, PASS_CGROUP, PASS_CHILD };

/* task.c */
/* Keep s (malloc'd; NULL sets oom) / a copy of s[0, n) in st, freed with
 * the task set; NULL: out of memory */
char *task_keep(struct store *st, char *s);
char *task_keepn(struct store *st, const char *s, size_t n);
/* A note for tza_tasks_notes (what a join could not match) */
void task_note(struct tza_tasks *t, struct store *st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* task_match.c: argv helpers (NULL: absent); the Slurm job and container
 * of p (malloc'd); the task roots of one pass (0, -1: out of memory) */
const char *task_arg_named(const struct tza_exec *e, const char *name);
const char *task_base(const char *s);
void task_cg_ids(const struct tza_task_input *in, const struct tza_proc *p, char **job,
		 char **ct);
int task_find_roots(struct build *b, enum pass pass);
int task_is_shell(const struct tza_exec *e);
char *task_trim_dup(const char *s, size_t n);

/* task_snakemake.c: the joins (failures to match become notes); a
 * --resources list into c's requests */
void task_join_snakemake(struct build *b);
void task_join_snakemake_log(struct build *b);
void task_smk_req(struct cand *c, const char *res);

/* task_nextflow.c: the join with trace.txt attachments */
void task_join_nextflow(struct build *b);

#endif
