/* SPDX-License-Identifier: BSD-2-Clause */
/* drain.c - the drain loop: poll, write, tick, sample, stop; and what it
 * knows of the live processes (recorder.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "command.h"
#include "recorder.h"
#include "sample.h"
#include "tracer.skel.h"

/* Processes whose exit event was lost (drops, or -p: exited between the
 * snapshot and their tracking): forget the ones now gone. */
void rec_sweep_dead(struct rec *r)
{
	size_t pos = 0;
	for (struct pt_proc *p; (p = ptable_next(&r->pt, &pos));)
		if (kill((pid_t)p->tgid, 0) && errno == ESRCH) {
			ptable_del(&r->pt, p->tgid, 0);
			pos--; /* what moved into its slot is next */
		}
}

/*
 * Metadata alive_at_stop: the tgids of the tracked processes still alive at
 * the stop, space-separated (empty: none). A process of the trace without an
 * exit that is not listed lost its exit event (ring buffer full): the
 * analyzer says so instead of "still running".
 */
char *rec_alive_list(struct rec *r)
{
	size_t cap = 64, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	s[0] = 0;
	rec_sweep_dead(r);
	size_t pos = 0;
	for (struct pt_proc *p; (p = ptable_next(&r->pt, &pos));) {
		if (len + 12 > cap) {
			char *ns = realloc(s, cap *= 2);
			if (!ns) {
				free(s);
				return NULL;
			}
			s = ns;
		}
		len += (size_t)snprintf(s + len, cap - len, "%s%u", len ? " " : "", p->tgid);
	}
	return s;
}

/* COMMAND and every process it started have exited (follow mode) */
int rec_tree_done(struct rec *r) { return r->child_reaped && r->pt.count == 0; }

/*
 * How long the drain loop may sleep (ms): until the next 1 s tick, the next
 * samples, the end of --duration or of the stop grace, whichever comes
 * first. The BPF side wakes the loop when the ring holds a quarter of its
 * size, a signal or COMMAND's exit through the self-pipe. Waiting for
 * processes that are not our children (-p, COMMAND's descendants after
 * COMMAND itself exited, the stop grace) has no wake-up: their exits are
 * looked for every 100 ms.
 */
static int drain_timeout_ms(const struct rec *r, uint64_t now, uint64_t last_tick, uint64_t end)
{
	uint64_t due = last_tick + 1000000000ull, s = sample_next_ns(r->sampler), cap = 1000;

	if (s && s < due)
		due = s;
	if (end && end < due)
		due = end;
	if (r->o.mode == MODE_PID ||
	    (r->o.mode == MODE_FOLLOW && (r->child_reaped || rec_stop_sig)))
		cap = 100;
	if (due <= now)
		return 0;
	due = (due - now + 999999) / 1000000;
	return (int)(due < cap ? due : cap);
}

/*
 * Whether the drain loop stops now. A stop signal stops -a and -p at once;
 * with COMMAND, the loop goes on until COMMAND's processes have exited (a
 * Ctrl-C reached them too: their deaths are what the user wants recorded),
 * for at most --stop-grace, or until a second stop signal.
 */
static int should_stop(struct rec *r, uint64_t now, uint64_t *grace_end)
{
	if (!rec_stop_sig)
		return 0;
	if (r->o.mode != MODE_FOLLOW || rec_stop_count > 1)
		return 1;
	if (!*grace_end)
		*grace_end = now + (uint64_t)(r->o.stop_grace * 1e9);
	if (r->child_reaped)
		rec_sweep_dead(r);
	return rec_tree_done(r) || now >= *grace_end;
}

/* exited processes whose release (EV_RELEASE) is still to come although
 * they were reaped: /proc no longer has them, the kernel frees them after
 * an RCU grace period. With keys/starts (room for max): their tgids and
 * start times too, the first max of them. Returns how many. */
static size_t releases_pending(struct rec *r, uint32_t *keys, uint64_t *starts, size_t max)
{
	int fd = bpf_map__fd(r->skel->maps.exited);
	uint32_t key, next, *prev = NULL;
	size_t n = 0;
	char path[32];

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		snprintf(path, sizeof(path), "/proc/%u", key);
		if (access(path, F_OK) == 0) /* not reaped (a zombie is still there) */
			continue;
		uint64_t st;
		if (bpf_map_lookup_elem(fd, &key, &st)) /* released meanwhile */
			continue;
		if (n < max) {
			keys[n] = key;
			starts[n] = st;
		}
		n++;
	}
	return n;
}

/*
 * At the stop: the processes reaped lately (COMMAND itself, reaped by the
 * recorder, always) are freed by the kernel a grace period later, and only
 * then is their CPU final (EV_RELEASE). Wait for the releases of those
 * pending now (not of processes that exit while it waits: under a steady
 * stream of short processes, -a, there are always some, and waiting for
 * them made --duration 1 last 2 s), draining, for at most RELEASE_WAIT_MS
 * by the clock; a process not released by then keeps its exit's figures
 * (docs/tracer-record.md EXIT TIMING). Looked for every millisecond: a
 * grace period is a few ms, and the stop waits for it.
 */
#define RELEASE_WAIT_MS 1000
#define RELEASE_WAIT_MAX 4096 /* processes waited for by name; more: all */
static void wait_releases(struct rec *r)
{
	static uint32_t keys[RELEASE_WAIT_MAX];
	static uint64_t starts[RELEASE_WAIT_MAX];
	uint64_t end = rec_boot_ns() + RELEASE_WAIT_MS * 1000000ull;
	int fd = bpf_map__fd(r->skel->maps.exited);

	ring_buffer__consume(r->rb);
	size_t n = releases_pending(r, keys, starts, RELEASE_WAIT_MAX);
	if (n > RELEASE_WAIT_MAX)
		n = RELEASE_WAIT_MAX; /* the rest are waited for only as long as these */
	while (n) {
		/* drop the released ones: gone from the map, or its key is
		 * another process's now */
		for (size_t i = 0; i < n;) {
			uint64_t st;
			if (bpf_map_lookup_elem(fd, &keys[i], &st) || st != starts[i]) {
				keys[i] = keys[n - 1];
				starts[i] = starts[n - 1];
				n--;
			} else {
				i++;
			}
		}
		if (!n || rec_boot_ns() >= end)
			break;
		usleep(1000);
		ring_buffer__consume(r->rb);
	}
	ring_buffer__consume(r->rb);
	if (n && r->o.verbose)
		rec_err("%zu processes not released by the kernel within %d ms: their CPU is their "
			"exit's",
			n, RELEASE_WAIT_MS);
}

/* The status line's update, when one is due (status.h). */
static void status_update(struct rec *r, uint64_t now)
{
	if (!rec_status_due(&r->status, now))
		return;
	struct rec_status_facts f = {.now_ns = now,
				     .procs_seen = r->procs_seen,
				     .procs_live = r->pt.count,
				     .events = r->events};
	for (int i = 0; i < EV_DROP_SLOTS; i++)
		f.drops += r->drops[i];
	struct tz_writer_stats ws;
	tz_writer_stats(r->w, &ws);
	f.chunks = ws.chunks;
	struct stat st;
	if (!stat(r->o.output, &st))
		f.file_bytes = (uint64_t)st.st_size;
	rec_status_tick(&r->status, &f);
}

int rec_run(struct rec *r)
{
	uint64_t start = rec_boot_ns(), last_tick = start, grace_end = 0;
	uint64_t dur_ns = (uint64_t)(r->o.duration * 1e9);
	struct pollfd pf[2] = {
	    {.fd = ring_buffer__epoll_fd(r->rb), .events = POLLIN},
	    {.fd = rec_wake_fd(), .events = POLLIN},
	};
	r->procs_seen += r->pt.count;
	rec_status_init(&r->status, 2, r->o.progress, start);

	while (!r->werr && !should_stop(r, rec_boot_ns(), &grace_end)) {
		uint64_t end = dur_ns ? start + dur_ns : 0;
		if (grace_end && (!end || grace_end < end))
			end = grace_end;
		int n = poll(pf, 2, drain_timeout_ms(r, rec_boot_ns(), last_tick, end));

		if (n < 0 && errno != EINTR) {
			rec_err("poll: %s", strerror(errno));
			r->rb_err = 1;
			break;
		}
		if (n > 0 && (pf[1].revents & POLLIN))
			rec_wake_clear();
		/* whatever woke us (the BPF side only when the ring fills up) */
		n = ring_buffer__consume(r->rb);
		if (n < 0 && n != -EINTR) {
			rec_err("ring buffer: %s", strerror(-n));
			r->rb_err = 1;
			break;
		}
		if (r->o.mode == MODE_FOLLOW && !r->child_reaped) {
			pid_t w = waitpid(r->child, &r->child_status, WNOHANG);
			if (w == r->child) {
				r->child_reaped = true;
				rec_timing("command reaped");
			}
		}
		uint64_t now = rec_boot_ns();
		if (rec_usr1) {
			rec_usr1 = 0;
			ring_buffer__consume(r->rb);
			int rc = tz_writer_flush(r->w, 1);
			rec_note_write_error(r, rc);
			if (r->o.verbose && rc >= 0)
				rec_err("SIGUSR1: %llu events recorded so far, all sealed",
					(unsigned long long)r->events);
		}
		/* 100 ms early at most: the tick then shares the samples' wake-up */
		if (now - last_tick >= 900000000ull) {
			last_tick = now;
			rec_write_drops(r, 0);
			rec_note_write_error(r, tz_writer_flush(r->w, 0));
			/* -p: a process the start-up snapshot found may have
			 * exited before it was tracked (no exit event comes) */
			if (r->drops[EV_DROP_EXIT] || r->drops[EV_DROP_MAP_FULL] || r->child_reaped ||
			    r->o.mode == MODE_PID)
				rec_sweep_dead(r);
		}
		rec_note_write_error(r, sample_poll(r->sampler, r->w, now, 0));
		status_update(r, now);
		if (dur_ns && now - start >= dur_ns)
			break;
		if ((r->o.mode == MODE_FOLLOW && r->child_reaped) || r->o.mode == MODE_PID) {
			if (r->pt.count == 0) {
				ring_buffer__consume(r->rb);
				if (r->pt.count == 0)
					break;
			}
		}
	}
	rec_status_end(&r->status);
	if (r->rb_err)
		return -1;
	/* who is alive at the stop: taken before the last drain */
	r->alive_at_stop = rec_alive_list(r);
	rec_timing("drain loop ended");
	if (!r->werr && rec_stop_count < 2)
		wait_releases(r);
	ring_buffer__consume(r->rb);
	rec_timing("releases drained");
	if (!r->werr)
		rec_note_write_error(r, sample_poll(r->sampler, r->w, rec_boot_ns(), 1));
	return 0;
}

/*
 * One line naming what a stop left running (follow mode): the tracked
 * processes still alive, COMMAND first, at most 8 named.
 */
void rec_say_left_running(struct rec *r, const char *why)
{
	char line[512];
	size_t len = 0, n = 0, shown = 0;

	rec_sweep_dead(r);
	n = r->pt.count;
	if (!n && r->child_reaped)
		return;
	line[0] = 0;
	if (!r->child_reaped) {
		struct pt_proc *c = ptable_get(&r->pt, (uint32_t)r->child);
		len += (size_t)snprintf(line, sizeof(line), "%d (%.*s)", (int)r->child,
					c ? (int)strnlen(c->comm, EV_COMM_LEN) : 7,
					c ? c->comm : "command");
		shown++;
		if (c)
			n--;
	}
	size_t pos = 0;
	for (struct pt_proc *p; shown < 8 && (p = ptable_next(&r->pt, &pos));) {
		if (p->tgid == (uint32_t)r->child || len >= sizeof(line))
			continue;
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%u (%.*s)",
					shown ? ", " : "", p->tgid,
					(int)strnlen(p->comm, EV_COMM_LEN), p->comm);
		shown++;
		n--;
	}
	if (n && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, " and %zu more", n);
	rec_err("%s: left running: %s", why, line);
}
