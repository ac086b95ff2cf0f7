/* SPDX-License-Identifier: BSD-2-Clause */
/* main.c - tracer-record's lifecycle: set up, launch COMMAND or take the
 * snapshot, drain, seal the .tz file, end as COMMAND ended.
 * docs/tracer-record.md; the rooms are listed in recorder.h. */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/tracer.h"
#include "command.h"
#include "recorder.h"
#include "sample.h"

static const struct rec_failure_kind rec_failures[] = {
    [REC_OK] = {0, 1, "recorded"},
    [REC_FAIL_SETUP] = {REC_EXIT_FAIL, 0, "set-up failed: nothing recorded, no file left"},
    [REC_FAIL_RUN] = {REC_EXIT_FAIL, 1, "recording stopped early: the file holds what was written"},
};

/*
 * Resolve COMMAND through PATH here, before the fork, the way execvp would,
 * so the recorded child does not show execvp's PATH misses as failed execs
 * of its own. Returns a malloc'd path, or NULL to leave it to execvp.
 */
static char *resolve_command(const char *cmd)
{
	const char *path = getenv("PATH");
	if (strchr(cmd, '/') || !*cmd)
		return NULL;
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	while (*path) {
		const char *end = strchrnul(path, ':');
		size_t dl = (size_t)(end - path);
		char *cand = NULL;
		if (asprintf(&cand, "%.*s%s%s", (int)dl, path, dl ? "/" : "", cmd) < 0)
			return NULL;
		struct stat st;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		path = *end ? end + 1 : end;
	}
	return NULL;
}

/* Start COMMAND held on a pipe; released once tracked. Returns 0 or -1. */
static int start_command(struct rec *r)
{
	char *resolved = resolve_command(r->o.cmd[0]);
	uint32_t self = (uint32_t)getpid();
	int release_fd;
	pid_t pid;

	/* the next process this one forks is tracked by the fork program */
	if (rec_track(r, self, 1, TRACKED_PARENT_ONLY)) {
		rec_err("cannot update the BPF map: %s", strerror(errno));
		free(resolved);
		return -1;
	}
	pid = rec_command_fork(r->o.cmd, resolved, &release_fd);
	free(resolved);
	rec_untrack(r, self);
	if (pid < 0) {
		rec_err("fork: %s", strerror(errno));
		return -1;
	}
	r->child = pid;
	if (rec_command_release(release_fd)) {
		rec_err("cannot release the command: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void rec_free(struct rec *r)
{
	rec_bpf_teardown(r);
	ptable_free(&r->pt);
	cgt_free(&r->cg);
	free(r->cgbuf);
	r->cgbuf = NULL;
	free(r->ebuf);
	r->ebuf = NULL;
	att_free(&r->att);
	env_names_free(&r->o.env);
	redact_free(&r->rd);
	free(r->rbuf);
	r->rbuf = NULL;
}

/*
 * The output's filesystem was full before anything was recorded: run
 * COMMAND unrecorded rather than not at all, and end as it ends.
 */
static void run_unrecorded(struct rec *r)
{
	char *resolved = resolve_command(r->o.cmd[0]);
	int release_fd, st;
	pid_t pid;

	rec_free(r);
	pid = rec_command_fork(r->o.cmd, resolved, &release_fd);
	free(resolved);
	if (pid < 0) {
		rec_err("fork: %s", strerror(errno));
		exit(REC_EXIT_FAIL);
	}
	if (rec_command_release(release_fd) || rec_command_wait(pid, &st))
		exit(REC_EXIT_FAIL);
	rec_exit_as(st);
}

/* The checks and tables that come before any BPF or file work. Returns 0,
 * or REC_EXIT_FAIL after a line. */
static int prepare(struct rec *r)
{
	struct stat st;

	if (lstat(r->o.output, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		/* with -f too: a directory, FIFO or device is never replaced */
		rec_err("'%s': not a regular file", r->o.output);
		return REC_EXIT_FAIL;
	}
	if (!r->o.force && lstat(r->o.output, &st) == 0) {
		rec_err("'%s': file exists (use -f to overwrite)", r->o.output);
		return REC_EXIT_FAIL;
	}
	if (r->o.redact && redact_init(&r->rd)) {
		rec_err("--redact: cannot compile the patterns");
		return REC_EXIT_FAIL;
	}
	if (ptable_init(&r->pt)) {
		rec_err("out of memory");
		return REC_EXIT_FAIL;
	}
	/* no mountinfo: no cgroup table (the ids are still recorded) */
	int cgrc = cgt_init(&r->cg, NULL);
	if (cgrc < 0 && r->o.verbose)
		rec_err("/proc/self/mountinfo: %s: no cgroup table", strerror(-cgrc));
	r->cgbuf = malloc(CGBUF_SIZE);
	return 0;
}

/*
 * libbpf parses the kernel's BTF (5 MB, some 10 MB with its indexes) while
 * it loads the BPF object and frees it after. That parse runs in a heap that
 * asks for transparent huge pages (a 2 MB fault instead of 512 small ones
 * where THP is "madvise"; a parse then took a median 40 ms of CPU instead
 * of 98; with one object, 143 ms of CPU up to COMMAND's release instead of
 * 232 under a load of 8), kept rather than unmapped and faulted in again
 * when freed.
 * Given back once the recording runs (setup_heap(0)).
 */
#define SETUP_HEAP (32u << 20)
#define HUGE_PAGE (2ul << 20)
static void setup_heap(int on)
{
	if (on) {
		mallopt(M_MMAP_THRESHOLD, 64 << 20);
		mallopt(M_TRIM_THRESHOLD, 256 << 20);
		char *p = malloc(SETUP_HEAP);
		if (p) {
			uintptr_t b = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
			uintptr_t e = ((uintptr_t)p + SETUP_HEAP) & ~(HUGE_PAGE - 1);
			/* a hint: ignored where THP is off */
			if (e > b)
				madvise((void *)b, e - b, MADV_HUGEPAGE);
			free(p);
		}
		return;
	}
	/* glibc's initial values */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	mallopt(M_TRIM_THRESHOLD, 128 * 1024);
	malloc_trim(0);
}

/* Set up, start COMMAND or take the snapshot, drain until the stop. */
static enum rec_failure record(struct rec *r, int argc, char **argv)
{
	/* before any BPF or file work (a pid above pid_max would otherwise
	 * fail as a map update) */
	if (r->o.mode == MODE_PID && kill((pid_t)r->o.pid, 0) && errno == ESRCH) {
		rec_err("-p %u: no such process", r->o.pid);
		return REC_FAIL_SETUP;
	}
	setup_heap(1);
	if (rec_bpf_setup(r) || rec_open_writer(r, argc, argv))
		return REC_FAIL_SETUP;
	rec_timing("writer opened");
	if (sample_start(r->sampler, r->w, r->o.verbose))
		return REC_FAIL_SETUP;
	rec_timing("sampler started");
	if (r->o.mode == MODE_FOLLOW) {
		if (start_command(r))
			return REC_FAIL_SETUP;
		rec_timing("command released");
	} else if (r->o.mode == MODE_PID && rec_track(r, r->o.pid, 1, 0)) {
		rec_err("cannot update the BPF map: %s", strerror(errno));
		return REC_FAIL_SETUP;
	} else if (rec_snapshot(r)) {
		return REC_FAIL_SETUP;
	} else {
		rec_timing("snapshot");
	}
	setup_heap(0);
	rec_btf_cache_build(r);
	if (r->o.verbose)
		rec_err("recording to '%s' (%s mode; failed execs %s)", r->o.output,
			rec_mode_names[r->o.mode],
			r->syscall_src
			    ? (strcmp(r->syscall_src, "raw_tp") ? "from syscalls:sys_exit_execve"
								: "from raw_syscalls:sys_exit")
			    : "not recorded, see --exec-failures");
	return rec_run(r) ? REC_FAIL_RUN : REC_OK;
}

/* The exit status the trace records and the recorder returns when it does
 * not end as COMMAND: COMMAND's code or 128 + its signal; stopped early by
 * a signal, 128 + that signal (follow mode) or 0. */
static int exit_status(const struct rec *r)
{
	if (r->child_reaped) {
		if (WIFEXITED(r->child_status))
			return WEXITSTATUS(r->child_status);
		if (WIFSIGNALED(r->child_status))
			return 128 + WTERMSIG(r->child_status);
		return 0;
	}
	/* stopped early by a signal: COMMAND is left running */
	if (rec_stop_sig)
		return r->o.mode == MODE_FOLLOW ? 128 + rec_stop_sig : 0;
	return 0;
}

/* Say what a stop left running; seal the file (or, when set-up failed,
 * remove it). Returns failed, or REC_FAIL_RUN when the close failed. */
static enum rec_failure finish(struct rec *r, enum rec_failure failed, int follow, int status)
{
	if (follow && !failed && !r->werr && !rec_tree_done(r)) {
		char why[64];
		if (rec_stop_sig)
			snprintf(why, sizeof(why), "stopped by SIG%s", sigabbrev_np(rec_stop_sig));
		else
			snprintf(why, sizeof(why), "stopped after --duration %g s", r->o.duration);
		rec_say_left_running(r, why);
	}
	if (!r->w)
		return failed;
	if (!rec_failures[failed].keep_file) {
		/* set-up failed: leave no file that looks like a trace */
		tz_writer_free(r->w);
		r->w = NULL;
		unlink(r->o.output);
	} else if (rec_close_writer(r, status) < 0 || r->werr) {
		failed = REC_FAIL_RUN;
	}
	return failed;
}

int main(int argc, char **argv)
{
	struct rec r = {0};
	enum rec_failure failed;
	int status, rc;

	rec_timing("main");
	/* first: the dispositions and mask COMMAND is to inherit */
	if (rec_signals_init()) {
		rec_err("pipe: %s", strerror(errno));
		return REC_EXIT_FAIL;
	}
	if (rec_parse_args(argc, argv, &r.o))
		return REC_EXIT_USAGE;
	if ((rc = prepare(&r)))
		return rc;
	rec_timing("options, tables");
	failed = record(&r, argc, argv);
	status = exit_status(&r);
	/* COMMAND started and the recorder is to end as it ends */
	int follow = r.o.mode == MODE_FOLLOW && r.child > 0 && failed != REC_FAIL_SETUP;
	failed = finish(&r, failed, follow, status);
	rec_timing("sealed");
	if (failed == REC_FAIL_SETUP)
		setup_heap(0);
	if (failed == REC_FAIL_SETUP && r.open_nospc && r.o.mode == MODE_FOLLOW)
		run_unrecorded(&r);
	rec_bpf_teardown(&r);
	rec_timing("detached");
	if (follow) {
		/* recording stopped on a failure (disk full): COMMAND goes on
		 * unharmed, the recorder stands in for it until it ends */
		if (failed && !r.child_reaped && rec_command_wait(r.child, &r.child_status) == 0)
			r.child_reaped = true;
		if (r.child_reaped) {
			rec_free(&r);
			rec_exit_as(r.child_status);
		}
	}
	rec_free(&r);
	return failed ? rec_failures[failed].exit_code : status;
}
