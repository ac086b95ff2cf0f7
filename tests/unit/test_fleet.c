/* SPDX-License-Identifier: BSD-2-Clause */
/* test_fleet.c - the processes already read from earlier host traces
 * (analyze/fleet.c, tza_fleet_seen): one process per (boot id, pid, start) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analyze/fleet.h"

/* hosts 0 and 2 are one boot (overlapping traces of one machine), 1 another,
 * 3 one whose boot id was not recorded (all zero), like 4 */
static struct tz_member mem[5];
static struct tza_hostsrc hs[5];
static struct tza_fleet fl = {.h = hs, .n = 5};

static void setup_fleet(void)
{
	memset(mem, 0, sizeof(mem));
	memset(mem[0].boot_id, 0xaa, 16);
	memset(mem[1].boot_id, 0xbb, 16);
	memset(mem[2].boot_id, 0xaa, 16);
	for (int i = 0; i < 5; i++)
		hs[i].me = &mem[i];
}

static void test_seen(void **state)
{
	(void)state;
	struct tza_fleet_seen s;
	setup_fleet();
	assert_int_equal(tza_fleet_seen_init(&s, 5), 0);
	/* host 0: 1000 processes, added in no order */
	for (uint32_t k = 0; k < 1000; k++) {
		uint32_t pid = (k * 7919) % 1000 + 100;
		assert_false(tza_fleet_seen_before(&s, &fl, 0, pid, 5000 + pid));
		assert_int_equal(tza_fleet_seen_add(&s, 0, pid, 5000 + pid), 0);
	}
	tza_fleet_seen_seal(&s, 0);
	/* host 1, another boot: the same (pid, start) is another process */
	assert_false(tza_fleet_seen_before(&s, &fl, 1, 150, 5150));
	assert_int_equal(tza_fleet_seen_add(&s, 1, 150, 5150), 0);
	tza_fleet_seen_seal(&s, 1);
	/* host 2, host 0's boot: its processes were seen; a pid reused later
	 * (another start) and another start of a pid are not */
	assert_true(tza_fleet_seen_before(&s, &fl, 2, 150, 5150));
	assert_true(tza_fleet_seen_before(&s, &fl, 2, 100, 5100));
	assert_true(tza_fleet_seen_before(&s, &fl, 2, 1099, 6099));
	assert_false(tza_fleet_seen_before(&s, &fl, 2, 150, 9999));
	assert_false(tza_fleet_seen_before(&s, &fl, 2, 151, 5150));
	assert_false(tza_fleet_seen_before(&s, &fl, 2, 1100, 6100));
	/* the start is compared before the pid: no mix of the two words */
	assert_false(tza_fleet_seen_before(&s, &fl, 2, 5150, 150));
	tza_fleet_seen_seal(&s, 2); /* nothing added: sealing is harmless */
	/* unknown boot ids never join: nothing proves one machine */
	assert_int_equal(tza_fleet_seen_add(&s, 3, 7, 70), 0);
	tza_fleet_seen_seal(&s, 3);
	assert_false(tza_fleet_seen_before(&s, &fl, 4, 7, 70));
	/* a host sees only the hosts before it */
	assert_false(tza_fleet_seen_before(&s, &fl, 0, 150, 5150));
	tza_fleet_seen_free(&s);
	tza_fleet_seen_free(&s); /* free twice: a no-op */
}

static void test_hex(void **state)
{
	(void)state;
	char out[33];
	const uint8_t b[16] = {0x00, 0x01, 0xab, 0xff, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7e};
	tza_fleet_hex16(out, b);
	assert_string_equal(out, "0001abff10000000000000000000007e");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seen),
		cmocka_unit_test(test_hex),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
