/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fleet_clock.h - how far the clocks of a run's hosts can be trusted when
 * their traces are put on one time axis (docs/tracer-analyze.md, "MANY
 * HOSTS": Clocks). Each trace's times are its host's CLOCK_BOOTTIME, turned
 * into wall-clock time by the trace's anchors (FORMAT.md [H7]); hosts are
 * compared by wall clock, which is as good as the hosts' clocks agreed.
 */
#ifndef TZA_FLEET_CLOCK_H
#define TZA_FLEET_CLOCK_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "tz.h"

/* One host's clock state as its recorder found it (metadata clock_sync and
 * clock_maxerror_us: the kernel's NTP state, adjtimex(2) read-only, see
 * docs/tracer-record.md). */
struct tza_host_clock {
	const char *hostname; /* for the note; borrowed */
	int sync;	      /* 1 synchronised, 0 not, -1 not recorded or unreadable */
	uint64_t maxerr_us;   /* the kernel's maximum error bound, us (sync == 1) */
};

/* Read r's clock state into *c (hostname left as it is). A clock_maxerror_us
 * that is not a strict decimal of at most 12 digits makes sync -1. */
void tza_host_clock_read(tz_reader *r, struct tza_host_clock *c);

/* Host trace r of a run (its name trace) on the run's time axis: its clock
 * state into *c (tza_host_clock_read, c->hostname = hostname, borrowed) and
 * in *rt its CLOCK_BOOTTIME boot_ns as epoch ns (its clock anchors). 0, or
 * -1 after "CMD: 'TRACE': no clock anchor..." when it has none. */
int tza_host_clock_anchor(const char *cmd, tz_reader *r, const char *trace, const char *hostname,
			  uint64_t boot_ns, struct tza_host_clock *c, int64_t *rt);

/*
 * The note on aligning n hosts by wall clock, into buf (size len, always
 * NUL-terminated), and *bound_us: 0 when one_clock (every trace has the same
 * boot id: one clock, exact); else, when every host was synchronised, the two
 * largest error bounds added (two clocks can be off in opposite directions);
 * else -1 (unknown), the note naming the hosts that were not synchronised or
 * have no clock state.
 */
void tza_clock_note(const struct tza_host_clock *c, size_t n, int one_clock, char *buf,
		    size_t len, int64_t *bound_us);

/* The opening of a cross-host text output: the run's makespan over its
 * ntraces host traces on nhosts hosts (tza_hosts_say) from r0 (wall ns) to
 * r1, the line how (how the hosts' parts are linked, no newline), and the
 * clocks' note, then an empty line. */
void tza_clock_text_head(FILE *o, size_t ntraces, size_t nhosts, int64_t r0, int64_t r1,
			 const char *how, const char *note);

/* The opening of a cross-host JSON object: {"multi_host":true,"order":ORDER,
 * "start":ISO of r0 (null when !have_start),"makespan_s":r1-r0,"clock":
 * {"bound_s" (null when bound_ns < 0),"note"} -- the object left open. */
void tza_clock_json_head(FILE *o, const char *order, int have_start, int64_t r0, int64_t r1,
			 int64_t bound_ns, const char *note);

#endif
