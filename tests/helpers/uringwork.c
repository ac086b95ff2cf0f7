/* SPDX-License-Identifier: BSD-2-Clause */
/* uringwork.c - threads the kernel creates inside a process (issue 15 point
 * 5): io_uring's io-wq workers (iou-wrk-N) and SQPOLL thread (iou-sqp-N),
 * which pass no fork tracepoint. Raw io_uring syscalls, no liburing.
 *
 *   uringwork MODE REPORT
 *   MODE wq      IOSQE_ASYNC reads, handed to io-wq workers: 4 of an empty
 *                pipe (they wait for data) and 4 of 16 MiB of /dev/zero
 *                (CPU spent in the workers)
 *        sqpoll  the same through an IORING_SETUP_SQPOLL ring
 *
 * One pthread is created and joined first. Before exiting, the process
 * appends to REPORT:
 *
 *   threads PID N TICKS
 *
 * N: the distinct thread ids seen in /proc/self/task during the run (main
 * thread, the pthread, every kernel-created thread); TICKS: utime + stime of
 * /proc/self/stat (clock ticks, every thread dead or alive) just before exit.
 * Exit status 0; 77 when io_uring is not available (disabled by sysctl).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define HELPER_DIE_EXIT exit
#include "helper.h"

#define NBLOCK 4	   /* reads that block on the pipe */
#define NZERO 4		   /* big reads of /dev/zero */
#define ZBYTES (16u << 20) /* bytes per /dev/zero read */
#define MAXT 256

static int tids[MAXT], ntids;

/* add the thread ids listed now; returns how many are listed */
static int scan_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		die("opendir /proc/self/task");
	while ((e = readdir(d))) {
		int tid = atoi(e->d_name), i;

		if (tid <= 0)
			continue;
		n++;
		for (i = 0; i < ntids && tids[i] != tid; i++)
			;
		if (i == ntids && ntids < MAXT)
			tids[ntids++] = tid;
	}
	closedir(d);
	return n;
}

static void *nop_thread(void *arg)
{
	scan_tasks();
	return arg;
}

struct ring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *sq_flags;
	struct io_uring_sqe *sqes;
	unsigned sqpoll;
};

static void ring_init(struct ring *r, unsigned flags)
{
	struct io_uring_params p;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	p.sq_thread_idle = 2000; /* ms */
	r->fd = (int)syscall(__NR_io_uring_setup, 16, &p);
	if (r->fd < 0) {
		if (errno == ENOSYS || errno == EPERM) {
			fprintf(stderr, "uringwork: io_uring unavailable: %s\n", strerror(errno));
			exit(77);
		}
		die("io_uring_setup");
	}
	r->sqpoll = flags & IORING_SETUP_SQPOLL;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		die("mmap ring");
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->sq_flags = (unsigned *)(sq + p.sq_off.flags);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
}

static void queue_read(struct ring *r, int fd, void *buf, unsigned len)
{
	unsigned tail = *r->sq_tail, i = tail & *r->sq_mask;
	struct io_uring_sqe *s = &r->sqes[i];

	memset(s, 0, sizeof(*s));
	s->opcode = IORING_OP_READ;
	s->fd = fd;
	s->addr = (unsigned long)buf;
	s->len = len;
	s->off = (__u64)-1; /* current position: a pipe or char device */
	s->flags = IOSQE_ASYNC;
	r->sq_array[i] = i;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
}

static void submit(struct ring *r, unsigned n, unsigned wait)
{
	unsigned flags = wait ? IORING_ENTER_GETEVENTS : 0;

	if (r->sqpoll) {
		if (__atomic_load_n(r->sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_NEED_WAKEUP)
			flags |= IORING_ENTER_SQ_WAKEUP;
		n = 0; /* the SQPOLL thread submits */
	}
	while (syscall(__NR_io_uring_enter, r->fd, n, wait, flags, NULL, 0) < 0)
		if (errno != EINTR)
			die("io_uring_enter");
}

static unsigned completed(struct ring *r)
{
	return __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE) - *r->cq_head;
}

int main(int argc, char **argv)
{
	static char pbuf[NBLOCK], *zbuf[NZERO];
	unsigned long long ut, st;
	struct ring r;
	pthread_t t;
	int pfd[2], zfd, rep, i, k, len;
	char b[2048], line[128], *c;
	ssize_t n;
	FILE *f;

	if (argc != 3 || (strcmp(argv[1], "wq") && strcmp(argv[1], "sqpoll"))) {
		fprintf(stderr, "usage: uringwork wq|sqpoll REPORT\n");
		return 2;
	}
	rep = open(argv[2], O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (rep < 0)
		die(argv[2]);
	scan_tasks();
	if (pthread_create(&t, NULL, nop_thread, NULL) || pthread_join(t, NULL))
		die("pthread");
	ring_init(&r, strcmp(argv[1], "sqpoll") ? 0 : IORING_SETUP_SQPOLL);
	if (pipe(pfd))
		die("pipe");
	zfd = open("/dev/zero", O_RDONLY);
	if (zfd < 0)
		die("/dev/zero");
	for (i = 0; i < NZERO; i++) {
		zbuf[i] = malloc(ZBYTES);
		if (!zbuf[i])
			die("malloc");
	}
	for (i = 0; i < NBLOCK; i++)
		queue_read(&r, pfd[0], &pbuf[i], 1);
	for (i = 0; i < NZERO; i++)
		queue_read(&r, zfd, zbuf[i], ZBYTES);
	submit(&r, NBLOCK + NZERO, 0);
	/* the blocked reads hold a worker each; the zero reads complete */
	for (k = 0; k < 500 && completed(&r) < NZERO; k++) {
		scan_tasks();
		nap_ms(10);
	}
	for (k = 0; k < 100; k++) {
		scan_tasks();
		nap_ms(10);
	}
	if (write(pfd[1], "abcd", NBLOCK) != NBLOCK)
		die("write pipe");
	for (k = 0; k < 500 && completed(&r) < NBLOCK + NZERO; k++) {
		scan_tasks();
		nap_ms(10);
	}
	if (completed(&r) < NBLOCK + NZERO) {
		fprintf(stderr, "uringwork: %u of %d reads completed\n", completed(&r),
			NBLOCK + NZERO);
		return 1;
	}
	scan_tasks();

	f = fopen("/proc/self/stat", "r");
	if (!f)
		die("/proc/self/stat");
	n = (ssize_t)fread(b, 1, sizeof(b) - 1, f);
	fclose(f);
	b[n > 0 ? n : 0] = 0;
	c = strrchr(b, ')');
	/* after ") ": state is field 3; utime and stime are fields 14 and 15 */
	if (!c ||
	    sscanf(c + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		die("parse /proc/self/stat");
	len = snprintf(line, sizeof(line), "threads %d %d %llu\n", getpid(), ntids, ut + st);
	if (write(rep, line, (size_t)len) != len)
		die("write report");
	return 0;
}
