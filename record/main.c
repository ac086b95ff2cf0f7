/* SPDX-License-Identifier: BSD-2-Clause */
/* main.c - tracer-record's lifecycle: set up, launch COMMAND or take the
 * snapshot, drain, seal the .tz file, end as COMMAND ended.
 * docs/tracer-record.md; the rooms are listed in recorder.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/tracer.h"
#include "command.h"
#include "recorder.h"
#include "sample.h"

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

int main(int argc, char **argv)
{
	struct rec r = {0};
	struct stat st;
	int status = 0, failed = 0;

	/* first: the dispositions and mask COMMAND is to inherit */
	if (rec_signals_init()) {
		rec_err("pipe: %s", strerror(errno));
		return REC_EXIT_FAIL;
	}
	if (rec_parse_args(argc, argv, &r.o))
		return REC_EXIT_USAGE;
	if (lstat(r.o.output, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		/* with -f too: a directory, FIFO or device is never replaced */
		rec_err("'%s': not a regular file", r.o.output);
		return REC_EXIT_FAIL;
	}
	if (!r.o.force && lstat(r.o.output, &st) == 0) {
		rec_err("'%s': file exists (use -f to overwrite)", r.o.output);
		return REC_EXIT_FAIL;
	}
	if (r.o.redact && redact_init(&r.rd)) {
		rec_err("--redact: cannot compile the patterns");
		return REC_EXIT_FAIL;
	}
	if (ptable_init(&r.pt)) {
		rec_err("out of memory");
		return REC_EXIT_FAIL;
	}
	/* no mountinfo: no cgroup table (the ids are still recorded) */
	int cgrc = cgt_init(&r.cg, NULL);
	if (cgrc < 0 && r.o.verbose)
		rec_err("/proc/self/mountinfo: %s: no cgroup table", strerror(-cgrc));
	r.cgbuf = malloc(CGBUF_SIZE);

	/* before any BPF or file work (a pid above pid_max would otherwise
	 * fail as a map update) */
	if (r.o.mode == MODE_PID && kill((pid_t)r.o.pid, 0) && errno == ESRCH) {
		rec_err("-p %u: no such process", r.o.pid);
		failed = 1;
		goto out;
	}
	if (rec_bpf_setup(&r) || rec_open_writer(&r, argc, argv) ||
	    sample_start(r.sampler, r.w, r.o.verbose)) {
		failed = 1;
		goto out;
	}
	if (r.o.mode == MODE_FOLLOW) {
		if (start_command(&r))
			failed = 1;
	} else {
		if (r.o.mode == MODE_PID && rec_track(&r, r.o.pid, 1, 0)) {
			rec_err("cannot update the BPF map: %s", strerror(errno));
			failed = 1;
		} else if (rec_snapshot(&r)) {
			failed = 1;
		}
	}
	if (r.o.verbose && !failed)
		rec_err("recording to '%s' (%s mode; failed execs %s)", r.o.output, rec_mode_names[r.o.mode],
		    r.syscall_src ? (strcmp(r.syscall_src, "raw_tp") ? "from syscalls:sys_exit_execve"
								 : "from raw_syscalls:sys_exit")
				  : "not recorded, see --exec-failures");
	if (!failed && rec_run(&r))
		failed = 2;
out:
	if (r.child_reaped) {
		if (WIFEXITED(r.child_status))
			status = WEXITSTATUS(r.child_status);
		else if (WIFSIGNALED(r.child_status))
			status = 128 + WTERMSIG(r.child_status);
	} else if (rec_stop_sig) {
		/* stopped early by a signal: COMMAND is left running */
		status = r.o.mode == MODE_FOLLOW ? 128 + rec_stop_sig : 0;
	}
	int follow = r.o.mode == MODE_FOLLOW && r.child > 0 && failed != 1;
	if (follow && !failed && !r.werr && !rec_tree_done(&r)) {
		char why[64];
		if (rec_stop_sig)
			snprintf(why, sizeof(why), "stopped by SIG%s", sigabbrev_np(rec_stop_sig));
		else
			snprintf(why, sizeof(why), "stopped after --duration %g s", r.o.duration);
		rec_say_left_running(&r, why);
	}
	if (r.w) {
		if (failed == 1) {
			/* set-up failed: leave no file that looks like a trace */
			tz_writer_free(r.w);
			r.w = NULL;
			unlink(r.o.output);
		} else if (rec_close_writer(&r, status) < 0 || r.werr) {
			failed = 2;
		}
	}
	if (failed == 1 && r.open_nospc && r.o.mode == MODE_FOLLOW)
		run_unrecorded(&r);
	rec_bpf_teardown(&r);
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
	if (failed)
		return REC_EXIT_FAIL;
	return status;
}

