/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * task.h - the task model: what a workflow manager ran, as process subtrees.
 *
 * A task is a process (its root) and every descendant not claimed by a
 * nested task root, with a kind (the adapter that found it), a name (a
 * Snakemake rule, a Nextflow process, a Slurm job, a container, a --task
 * capture, a child's command) and an id unique in the trace. Adapters and
 * their exact matching rules: docs/tracer-analyze.md "Tasks". Everything is
 * derived from the model (argv, tree, exit totals, samples) and from the
 * records the recorder embedded (tza_model_attachments: .snakemake/metadata,
 * .command.run headers, trace.txt) and its cgroup table (tza_model_cgroup);
 * nothing is read from the analysing host.
 */
#ifndef TRACER_TASK_H
#define TRACER_TASK_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"

enum tza_task_kind {
	TZA_TASK_SNAKEMAKE = 1, /* a Snakemake job (local shell, or cluster --rules) */
	TZA_TASK_NEXTFLOW,	/* a Nextflow task (.command.run in a work dir) */
	TZA_TASK_SLURM,		/* a Slurm job/step (cgroup path) */
	TZA_TASK_CONTAINER,	/* a container / Kubernetes pod (cgroup path) */
	TZA_TASK_GENERIC,	/* --task REGEX */
	TZA_TASK_CHILD,		/* fallback: a direct child of the recorded command */
};

/* One task. Strings are owned by the task set (tza_tasks_free). */
struct tza_task {
	uint32_t kind;		/* enum tza_task_kind */
	uint32_t index;		/* position in tza_tasks.tasks (start order) */
	const char *name;	/* rule / process name / capture / command: --by rule */
	const char *id;		/* unique in the trace: Snakemake first output, Nextflow
				   hash "ab/cdef12", Slurm "job_M[/step_K]", container id,
				   else the root's "PID.START_NS" */
	const char *key;	/* --by task: "NAME ID"; Nextflow "NAME (TAG) HASH9"
				   (the hash's first 9 characters, "ab/cdef12");
				   Snakemake with wildcards "NAME WILDCARDS", a
				   retry (attempt > 1) "NAME WILDCARDS|ID attempt N" */
	const char *tag;	/* Nextflow tag, Snakemake wildcards ("s=a"), NULL */
	const char *job;	/* Slurm job id (cgroup path or SLURM_JOB_ID), NULL */
	const char *container;	/* container / pod id (cgroup path), NULL */
	struct tza_proc *root;	/* its root process (owned by the model) */

	/* Numbers (docs "Tasks"); times CLOCK_BOOTTIME ns */
	uint64_t start_ns;	/* root's start; clipped as its wall is counted
				   (tza_proc_span_start): a slice's window start
				   for a root that began before it */
	uint64_t end_ns;	/* latest member end (the trace's end while running) */
	uint64_t cpu_ns;	/* user + system over all members: exit totals, the
				   last sample of running members (TZA_P_SAMPLED) */
	/* Memory, KiB: each member's own, from its first exec on
	 * (model.h tza_proc_own_rss_kib): the copy of its parent's image a
	 * fork runs until it execs (the workflow manager's, the recorder's)
	 * is not the task's */
	uint64_t peak_rss_kib;	/* combined peak: max over time of the sum of the
				   members' sampled RSS (a member's samples before
				   its first exec left out), or the largest member
				   own peak when that is higher (short members fall
				   between samples) */
	uint64_t peak_rss_ns;	/* when (0: it is the exit peak's, time unknown) */
	uint64_t exit_rss_max_kib; /* largest member own peak: a lower bound of the
				      combined peak */
	uint64_t exit_rss_sum_kib; /* sum of the members' own peaks: an upper bound */
	uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes;
	uint64_t threads;	/* the members' threads, summed (each its exit
				   total): a bound of its cores (tza_task_cores) */
	uint32_t nprocs;	/* members */
	uint32_t running;	/* members without an exit at the trace's end */
	uint32_t rss_unknown;	/* members whose RSS is unknown (tza_proc_rss_known:
				   a slice's, no sample by its end): then the
				   combined peak (peak_rss_kib) is unknown, and
				   so is exit_rss_sum_kib; tza_task_rss_known */
	int32_t exit_code;	/* root's WEXITSTATUS, -1 signalled, -2 running */
	int32_t signal;		/* root's WTERMSIG or 0 */
	struct tza_proc *failed; /* first member (start order) that exited non-zero,
				    was signalled or OOM-killed; NULL (a member
				    may fail in a task that succeeds: `yes | head`) */
	uint32_t oom_killed;	/* members chosen by the OOM killer */
	/* limits it ran under (cgroup table; 0 = none or unknown) */
	uint64_t mem_limit_bytes, cpu_quota_us, cpu_period_us;

	/* From the workflow's records (0 / NULL when absent) */
	double wf_start_s, wf_end_s; /* Snakemake metadata starttime/endtime, epoch s */
	/* Snakemake: the files the job read (its metadata record's "input"
	 * list) and wrote (the records of its command: each names one output,
	 * base64 of the path), as Snakemake wrote them (relative to its working
	 * directory); owned by the set. wf_io: the records are known, so the
	 * job's dependency edges are (tza_task_path). */
	const char *const *wf_inputs, *const *wf_outputs;
	uint32_t wf_ninputs, wf_noutputs;
	uint32_t wf_io;
	const char *wf_dir;	/* the directory they are relative to (where
				   .snakemake/ is, as the recorder embedded it) */
	const char *hash;	/* Nextflow work dir hash "ab/cdef12..." */
	const char *native_id;	/* trace.txt native_id */
	const char *status;	/* trace.txt status (COMPLETED, FAILED...) */
	uint32_t attempt;	/* 1-based, 0 unknown: Nextflow trace.txt attempt;
				   Snakemake local job: its rank among the jobs of
				   its rule and output in start order (retries:),
				   cluster job: its argv's --attempt */
	double req_cpus;	/* requested cpus (Snakemake threads), 0 unknown */
	uint64_t req_mem_bytes;	/* requested memory, 0 unknown */
	uint64_t req_time_ms;	/* requested time (Snakemake runtime), 0 unknown */
};

/* The tasks of one model. */
struct tza_tasks {
	struct tza_task *tasks; /* in (start_ns, root pid) order */
	uint32_t n;
	char **notes;		/* one line each: a record ignored and why */
	uint32_t nnotes;
	void *priv;		/* string storage */
};

/* What the adapters read beside the model (tza_tasks_build fills it from the
 * model; tests pass synthetic ones). */
struct tza_task_input {
	const char *regex;	/* --task REGEX (extended, over argv joined by
				   spaces, exe and cwd), or NULL */
	const struct tza_attachment *att;
	uint32_t natt;
	/* the cgroup table: NULL when none */
	const struct tza_cgroup *(*cgroup)(const void *ctx, uint32_t hier, uint64_t id);
	const void *cgroup_ctx;
	/* CLOCK_REALTIME = CLOCK_BOOTTIME + realtime_off_ns (the trace's clock
	   anchor, tza_realtime) when has_realtime: joins Snakemake metadata
	   starttime/endtime (epoch s) with the processes' lives */
	int has_realtime;
	int64_t realtime_off_ns;
};

/*
 * Find the tasks of m and point every member's p->task at its task (NULL:
 * in no task). Returns 0 and *out (free with tza_tasks_free, before the
 * model), -1 with a one-line message in tza_err when regex does not compile,
 * -2 when out of memory. Bad records never fail: they are skipped with a note.
 */
int tza_tasks_build_in(struct tza_model *m, const struct tza_task_input *in,
		       struct tza_tasks **out);
/* The same with the model's attachments and cgroup table. */
int tza_tasks_build(struct tza_model *m, const char *regex, struct tza_tasks **out);
/* Free t, its tasks and strings (members' p->task then dangle: free the
 * model next, or clear them); NULL is fine. */
void tza_tasks_free(struct tza_tasks *t);

/* The task failed: its root exited non-zero or was signalled, or a member
 * was OOM-killed (a member's own failure alone, e.g. SIGPIPE, is not). */
int tza_task_failed(const struct tza_task *t);

/* The task's mean cores: cpu_ns over its wall (end_ns - start_ns), at most
 * its members' threads (a process's final CPU includes its exit path, after
 * its wall ends, which shows in a task of a few ms); 0 for a zero wall. The
 * one definition for a task: top/summary CORES and MAX and rightsize with a
 * task grouping (docs "Tasks"). */
double tza_task_cores(const struct tza_task *t);

/* t's combined peak RSS (peak_rss_kib) is known: 1, else 0 when a member's
 * RSS is unknown (rss_unknown), or when it is 0 with a member still
 * running (no exit, and no sample gave it a value), as views then show it:
 * "-", JSON null, export --tasks empty. A known 0 (every member exited with
 * a peak of 0 KiB) is a value: 0 */
static inline int tza_task_rss_known(const struct tza_task *t)
{
	return !t->rss_unknown && (t->peak_rss_kib || !t->running);
}

/* Epoch seconds of the year 5000: a workflow record's time (Snakemake
 * starttime/endtime, CLOCK_REALTIME s) at or past it, or not above 0, is
 * damage, not a time (a record's 1e300): joined by command alone, exported
 * empty */
#define TZA_WF_TIME_MAX 95617584000.0

/* Static name of a kind: "snakemake", "nextflow", "slurm", "container",
 * "generic", "child". */
const char *tza_task_kind_name(uint32_t kind);

/*
 * Command-line plumbing shared by the subcommands: --task REGEX sets the
 * generic adapter's pattern (once per run); tza_tasks_for(m) builds the
 * tasks of a loaded model (tza_load_ex calls it when a task grouping or
 * --task was asked) and tza_tasks_release(m) frees them (tza_unload).
 */
/* -1 with a one-line message when regex is not an extended regular expression */
int tza_task_set_regex(const char *regex);
/* Ask for tasks (a task grouping was chosen); tza_task_wanted: asked, by
 * this or by --task */
void tza_task_want(void);
int tza_task_wanted(void);
/* The set built for m by tza_tasks_for, or NULL; owned by the run. */
struct tza_tasks *tza_tasks_of(const struct tza_model *m);
/* Build m's tasks (with the --task pattern) and print their notes on
 * stderr: 0, or -1 with a one-line message (bad pattern, out of memory,
 * more than 4 models at once). */
int tza_tasks_for(struct tza_model *m);
/* Free the set built for m (NULL or none: nothing). */
void tza_tasks_release(const struct tza_model *m);

/* ------------------------------------------------- the path of tasks */

/* How a step of the task path follows its predecessor. */
enum tza_task_edge {
	TZA_EDGE_NONE = 0, /* the first step */
	TZA_EDGE_DATA,	   /* it read a file the predecessor wrote (workflow records) */
	TZA_EDGE_TIME,	   /* by time and the process tree (no records for one of them) */
	TZA_EDGE_ADJACENT, /* across hosts, by time alone (no records for the later) */
	TZA_EDGE_N
};
/* The edge's word in text and JSON: "data", "time", "adjacent"; `none`
 * for TZA_EDGE_NONE or a value out of range (NULL: JSON null; "-" in text). */
const char *tza_task_edge_name(enum tza_task_edge e, const char *none);

struct tza_task_step {
	const struct tza_task *task;
	uint64_t wait_ns;  /* its start minus its ready time, the end of its
			      predecessor (the one that ended last; 0 for the
			      first): scheduler delay, ready but not yet started */
	uint32_t edge;	   /* enum tza_task_edge */
};

/*
 * The critical path of tasks (docs/tracer-analyze.md "critical-path",
 * --by task|rule): a DAG over the tasks, an edge A -> B when
 *   - both have workflow records (wf_io): B read a file A wrote (one of
 *     B's wf_inputs is one of A's wf_outputs), and A ended (end_ns) at or
 *     before B started; a data edge whose A ended later (a member of A
 *     outlived its job) is dropped and counted in `late`;
 *   - else (either has none): A ended at or before B started, and A's
 *     root's parent is B's root's parent or one of its ancestors (the
 *     process that started A was still there to start B), or A's root has
 *     no parent;
 * always from an earlier task to a later one in start order (t->tasks), so
 * it is acyclic. A task is ready when the last of its predecessors ended
 * (its ready time); that one is its binding predecessor (ties: the first
 * in start order). The path ends at the task that ended last (ties: the
 * first in start order) and goes back from each step to its binding
 * predecessor until a task with none: the standard critical path of a
 * DAG as it was run. A step's wait is its start minus its ready time. As
 * every edge goes forward in time, sum(wall) + sum(wait) = last end -
 * first start exactly.
 */
struct tza_task_path {
	struct tza_task_step *steps; /* first to last (malloc'd) */
	uint32_t n;
	uint64_t wall_ns, wait_ns;    /* sums over the steps */
	uint32_t data_edges, time_edges; /* edges of the DAG, by kind */
	uint32_t late;		      /* data edges dropped (see above) */
};
/* Compute for t (NULL or no tasks: an empty path). 0, or -1 out of memory. */
int tza_task_path(const struct tza_tasks *t, struct tza_task_path *out);
/* Free p's steps and zero *p (p itself is the caller's). */
void tza_task_path_free(struct tza_task_path *p);

/*
 * The path-of-tasks solver behind tza_task_path, for any set of tasks on
 * one clock (taskpath_hosts.c: the tasks of several hosts on the wall
 * clock). Nodes are given in start order (start_ns ascending); an edge goes
 * from an earlier node to a later one only, so the DAG is acyclic. For each
 * pair a < b:
 *   - both io: a data edge when one of b's inputs is one of a's outputs;
 *     link(ctx, a, b, 1) says TZA_EDGE_DATA (kept) or TZA_EDGE_NONE (the
 *     writer ended too late: counted in `late`);
 *   - else link(ctx, a, b, 0) gives the edge's kind or TZA_EDGE_NONE.
 * The binding predecessors, the end task and the ties are tza_task_path's
 * (above).
 */
struct tza_tp_node {
	int64_t start_ns, end_ns;	     /* end >= start */
	const char *const *in, *const *out; /* workflow inputs, outputs (io) */
	uint32_t nin, nout;
	uint32_t io;			     /* the workflow's records name its files */
};
typedef uint32_t (*tza_tp_link)(const void *ctx, uint32_t a, uint32_t b, int data);
struct tza_tp_step {
	uint32_t node;	 /* index into the nodes */
	uint32_t edge;	 /* enum tza_task_edge from its predecessor */
	int64_t wait_ns; /* its start minus its binding predecessor's end (0
			    first; negative only when link allows it) */
};
struct tza_tp {
	struct tza_tp_step *steps; /* first to last (malloc'd) */
	uint32_t n;
	int64_t wall_ns, wait_ns;  /* sums over the steps */
	uint32_t edges[TZA_EDGE_N]; /* edges of the DAG by kind */
	uint32_t late;		    /* data edges link refused */
};
/* Solve over v[0..n): 0, or -1 out of memory (*out zeroed). Free with
 * free(out->steps). */
int tza_tp_solve(const struct tza_tp_node *v, uint32_t n, tza_tp_link link, const void *ctx,
		 struct tza_tp *out);

/* Print the notes (records ignored) to f, one "note: ..." line each. */
void tza_tasks_notes(FILE *f, const struct tza_tasks *t);

#endif /* TRACER_TASK_H */
