/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_record_samples.c - the host sampler's /proc parsers (record/sample.h)
 * on fixed texts, exact values, plus one live read of this machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/sample.h"

static void t_stat(void **state)
{
	(void)state;
	struct ev_host_sample h;
	memset(&h, 0, sizeof(h));
	assert_int_equal(host_parse_stat("cpu  100 2 30 4000 5 6 7 8 0 0\ncpu0 1 2 3 4\n", 100, &h),
			 0);
	assert_int_equal(h.cpu_user_ns, 1000000000ull);
	assert_int_equal(h.cpu_nice_ns, 20000000ull);
	assert_int_equal(h.cpu_system_ns, 300000000ull);
	assert_int_equal(h.cpu_idle_ns, 40000000000ull);
	assert_int_equal(h.cpu_iowait_ns, 50000000ull);
	assert_int_equal(h.cpu_irq_ns, 60000000ull);
	assert_int_equal(h.cpu_softirq_ns, 70000000ull);
	assert_int_equal(h.cpu_steal_ns, 80000000ull);
	/* 250 Hz: a tick is 4 ms, no rounding loss on large counts */
	assert_int_equal(host_parse_stat("cpu  123456789 0 0 0\n", 250, &h), 0);
	assert_int_equal(h.cpu_user_ns, 123456789ull * 4000000ull);
	assert_int_equal(host_parse_stat("intr 1 2 3\n", 100, &h), -1);
	assert_int_equal(host_parse_stat("cpu  1 2\n", 100, &h), -1);
}

static void t_meminfo(void **state)
{
	(void)state;
	struct ev_host_sample h;
	memset(&h, 0, sizeof(h));
	const char *mi = "MemTotal:       24684096 kB\n"
			 "MemFree:        19884752 kB\n"
			 "MemAvailable:   22814216 kB\n"
			 "Buffers:          100000 kB\n"
			 "Cached:          3000000 kB\n"
			 "SwapCached:            0 kB\n"
			 "SReclaimable:     231004 kB\n"
			 "SwapTotal:       2000000 kB\n"
			 "SwapFree:        1500000 kB\n";
	assert_int_equal(host_parse_meminfo(mi, &h), 0);
	assert_int_equal(h.mem_total_kib, 24684096);
	assert_int_equal(h.mem_free_kib, 19884752);
	assert_int_equal(h.mem_available_kib, 22814216);
	assert_int_equal(h.mem_cached_kib, 3231004);
	assert_int_equal(h.mem_used_kib, 24684096 - 19884752 - 100000 - 3000000 - 231004);
	assert_int_equal(h.swap_used_kib, 500000);
	/* no MemAvailable (old kernels): free stands in */
	memset(&h, 0, sizeof(h));
	assert_int_equal(host_parse_meminfo("MemTotal: 100 kB\nMemFree: 40 kB\n", &h), 0);
	assert_int_equal(h.mem_available_kib, 40);
	assert_int_equal(h.mem_used_kib, 60);
	assert_int_equal(host_parse_meminfo("Cached: 5 kB\n", &h), -1);
}

static void t_loadavg(void **state)
{
	(void)state;
	struct ev_host_sample h;
	memset(&h, 0, sizeof(h));
	assert_int_equal(host_parse_loadavg("1.05 0.50 12.25 3/412 9999\n", &h), 0);
	assert_int_equal(h.load1_milli, 1050);
	assert_int_equal(h.load5_milli, 500);
	assert_int_equal(h.load15_milli, 12250);
	assert_int_equal(h.nr_running, 3);
	assert_int_equal(host_parse_loadavg("garbage\n", &h), -1);
}

static void t_psi(void **state)
{
	(void)state;
	__u32 sa = 0, fa = 0;
	__u64 st = 0, ft = 0;
	int full = -1;
	assert_int_equal(host_parse_psi("some avg10=1.23 avg60=0.50 avg300=0.00 total=123456\n"
					"full avg10=100.00 avg60=0.00 avg300=0.00 total=42\n",
					&sa, &st, &fa, &ft, &full),
			 0);
	assert_int_equal(sa, 123);
	assert_int_equal(st, 123456);
	assert_int_equal(fa, 10000);
	assert_int_equal(ft, 42);
	assert_int_equal(full, 1);
	/* cpu on older kernels: no full line */
	assert_int_equal(host_parse_psi("some avg10=0.07 avg60=0.00 avg300=0.00 total=9\n", &sa,
					&st, &fa, &ft, &full),
			 0);
	assert_int_equal(sa, 7);
	assert_int_equal(full, 0);
	assert_int_equal(host_parse_psi("nothing here\n", &sa, &st, &fa, &ft, &full), -1);
}

static int only_sda_ctx;
static int only_sda(void *ctx, const char *name)
{
	assert_ptr_equal(ctx, &only_sda_ctx);
	return !strcmp(name, "sda");
}

static void t_diskstats_netdev(void **state)
{
	(void)state;
	struct ev_host_sample h;
	memset(&h, 0, sizeof(h));
	const char *ds = "   8       0 sda 100 0 2000 50 300 0 4000 70 0 100 120 0 0 0 0\n"
			 "   8       1 sda1 90 0 1800 40 290 0 3900 60 0 90 100 0 0 0 0\n"
			 "   7       0 loop0 5 0 10 1 0 0 0 0 0 1 1 0 0 0 0\n";
	assert_int_equal(host_parse_diskstats(ds, only_sda, &only_sda_ctx, &h), 0);
	assert_int_equal(h.disk_read_bytes, 2000 * 512);
	assert_int_equal(h.disk_write_bytes, 4000 * 512);
	assert_int_equal(host_parse_diskstats(ds, NULL, NULL, &h), 0);
	assert_int_equal(h.disk_read_bytes, (2000 + 1800 + 10) * 512);
	const char *nd =
	    "Inter-|   Receive                                                |  Transmit\n"
	    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
	    "errs drop fifo colls carrier compressed\n"
	    "    lo: 5000 10 0 0 0 0 0 0 5000 10 0 0 0 0 0 0\n"
	    "  eth0: 123456 100 0 0 0 0 0 0 654321 90 0 0 0 0 0 0\n"
	    "  wlan0:1 2 0 0 0 0 0 0 3 4 0 0 0 0 0 0\n";
	assert_int_equal(host_parse_netdev(nd, &h), 0);
	assert_int_equal(h.net_rx_bytes, 123457);
	assert_int_equal(h.net_tx_bytes, 654324);
}

/* this machine, now: plausible and consistent */
static void t_live(void **state)
{
	(void)state;
	struct ev_host_sample h;
	struct host_sampler *hs = host_sample_new();
	assert_non_null(hs);
	assert_int_equal(host_sample_read(hs, &h, 77), 0);
	assert_int_equal(h.hdr.type, EV_HOST_SAMPLE);
	assert_int_equal(h.hdr.size, sizeof(h));
	assert_int_equal(h.hdr.ts_ns, 77);
	assert_true(h.mem_total_kib > 0);
	assert_true(h.mem_available_kib <= h.mem_total_kib);
	assert_true(h.mem_used_kib < h.mem_total_kib);
	assert_true(h.cpu_user_ns + h.cpu_system_ns + h.cpu_idle_ns > 0);
	assert_int_equal(h.ncpus, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	if (access("/proc/pressure/cpu", R_OK) == 0)
		assert_true(h.flags & EV_HOST_PSI);

	/* again, from the files kept open (read from offset 0) and the disk
	 * names looked up once: the same totals, counters that only grow */
	struct ev_host_sample h2;
	assert_int_equal(host_sample_read(hs, &h2, 78), 0);
	assert_int_equal(h2.mem_total_kib, h.mem_total_kib);
	assert_true(h2.cpu_user_ns + h2.cpu_system_ns + h2.cpu_idle_ns >=
		    h.cpu_user_ns + h.cpu_system_ns + h.cpu_idle_ns);
	assert_true(h2.disk_read_bytes >= h.disk_read_bytes);
	assert_true(h2.net_rx_bytes >= h.net_rx_bytes);
	assert_int_equal(h2.flags, h.flags);
	host_sample_free(hs);
	/* a second handle opens its own files */
	hs = host_sample_new();
	assert_non_null(hs);
	assert_int_equal(host_sample_read(hs, &h2, 79), 0);
	assert_int_equal(h2.mem_total_kib, h.mem_total_kib);
	host_sample_free(hs);
	host_sample_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(t_stat),
	    cmocka_unit_test(t_meminfo),
	    cmocka_unit_test(t_loadavg),
	    cmocka_unit_test(t_psi),
	    cmocka_unit_test(t_diskstats_netdev),
	    cmocka_unit_test(t_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
