/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_critpath.c - critical path and serial_bottleneck under load (fault 5
 * of the breaker report): the pipeline-partner rule is relative (a loaded
 * machine's busiest stage gets the share though it never reaches half a
 * core), the "machine mostly idle" test uses host samples when the trace has
 * them, and a sleeper on the path is no serial bottleneck.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "helper.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function" /* the shared scenarios */
#include "analyze_synth.h"
#pragma GCC diagnostic pop
#include "synth_model.h"
#include "analyze/model.h"
#include "analyze/report.h"

/* a host sample at ts: busy and idle CPU ns since boot over all CPUs */
static void host(struct synth *s, uint64_t ts, uint64_t busy, uint64_t idle, uint32_t ncpus)
{
	s_host(s, ts, busy, idle, 16777216, 1048576, 0, ncpus, 0);
}

/* f's trace on a machine of cpus CPUs: pid forked by pid 1 at T0, exec of
 * exe (argv "a|b", comm) 10 ns later */
static void root_start(struct fx *f, const char *cpus, uint32_t pid, const char *exe,
		       const char *argv, const char *comm)
{
	synth_meta(&f->s, "cpus", cpus);
	s_fork(&f->s, T0, 1, pid);
	s_exec(&f->s, T0 + 10, pid, T0, 1, exe, NULL, argv, comm);
}

/* The group of key among b's groups by `by` over the critical path c
 * (tza_groups, asserted to succeed): a copy (its key is the model's). */
static struct tza_group group_of(const struct built *b, enum tza_by by, const struct tza_crit *c,
				 const char *key)
{
	struct tza_group *g, x = {0};
	uint32_t ng;
	assert_int_equal(tza_groups(b->m, by, c, &b->mi, &g, &ng), 0);
	for (uint32_t i = 0; i < ng; i++)
		if (!strcmp(g[i].key, key)) {
			x = g[i];
			free(g);
			return x;
		}
	fail_msg("no group %s", key);
	return x;
}

/* the demo on a loaded 2-CPU machine: bwa mem at 0.4 cores (under the old
 * absolute half-core floor), samtools sort at 0.05; the shell waits for
 * sort, but bwa sets the pace */
static void test_pipe_loaded(void **st)
{
	struct fx *f = *st;
	struct tza_crit c;
	root_start(f, "2", 20, "/usr/bin/bash", "bash|align.sh", "bash");
	s_proc(&f->s, 20, 21, T0 + MS, T0 + 10 * SEC_NS, "/usr/bin/bwa", "bwa|mem|ref.fa|r.fq",
	       "bwa", (struct exit_vals){.utime = 4 * SEC_NS});
	s_proc(&f->s, 20, 22, T0 + 2 * MS, T0 + 10500 * MS, "/usr/bin/samtools",
	       "samtools|sort|-o|x.bam", "samtools", (struct exit_vals){.utime = 525 * MS});
	s_exit(&f->s, T0 + 11 * SEC_NS, 20, T0, 1, "bash", (struct exit_vals){0});
	fx_build(f, TZA_MB_SAMPLES);
	assert_int_equal(critpath_sum(f->b.m, TZA_BY_COMMAND, &c), 11 * SEC_NS);
	assert_string_equal(c.by_tool[0].tool, "bwa mem");
	assert_int_equal(c.by_tool[0].ns, 10 * SEC_NS - 2 * MS);
	assert_string_equal(c.by_tool[2].tool, "samtools sort");
	assert_int_equal(c.by_tool[2].ns, 500 * MS);
	/* sort: 0.05 cores, 0.5 s on the path: no serial bottleneck */
	assert_int_equal(group_of(&f->b, TZA_BY_COMMAND, &c, "samtools sort").flags, 0);
	tza_crit_free(&c);
}

/* an orchestrator (Snakemake) forks a shell job (2 s, mostly waiting) and,
 * 5 ms later, a short solver (cbc: 100 ms at a whole core): the solver is
 * no pipeline partner of the job and stays off the path; the job's own
 * pipeline (zcat | grep, forked together, living together) is joined */
static void test_pipe_helper(void **st)
{
	struct fx *f = *st;
	struct tza_crit c;
	root_start(f, "2", 20, "/usr/bin/python3", "python3|/usr/bin/snakemake", "snakemake");
	s_proc(&f->s, 20, 21, T0 + MS, T0 + 2001 * MS, "/usr/bin/bash",
	       "bash|-c|zcat x | grep y; sleep 1", "bash", (struct exit_vals){.utime = 10 * MS});
	s_proc(&f->s, 20, 22, T0 + 6 * MS, T0 + 106 * MS, "/usr/bin/cbc", "cbc|x.mps", "cbc",
	       (struct exit_vals){.utime = 100 * MS});
	s_proc(&f->s, 21, 23, T0 + 10 * MS, T0 + 900 * MS, "/usr/bin/gzip", "gzip|-cd|x", "gzip",
	       (struct exit_vals){.utime = 800 * MS});
	s_proc(&f->s, 21, 24, T0 + 11 * MS, T0 + 1000 * MS, "/usr/bin/grep", "grep|y", "grep",
	       (struct exit_vals){.utime = 50 * MS});
	s_exit(&f->s, T0 + 2100 * MS, 20, T0, 1, "snakemake", (struct exit_vals){0});
	fx_build(f, TZA_MB_SAMPLES);
	assert_int_equal(tza_critpath(f->b.m, TZA_BY_TOOL, &c), 0);
	for (uint32_t i = 0; i < c.npath; i++)
		if (!strcmp(tza_proc_key(c.path[i], TZA_BY_TOOL), "cbc"))
			fail_msg("the solver is on the path: %llu ns",
				 (unsigned long long)c.proc_ns[c.path[i]->index]);
	int gz = 0;
	for (uint32_t i = 0; i < c.npath; i++)
		gz |= !strcmp(tza_proc_key(c.path[i], TZA_BY_TOOL), "gzip");
	assert_true(gz); /* the real pipeline's busy stage is joined */
	tza_crit_free(&c);
}

/* one 1-core step of 6 s in a 7 s run on 8 CPUs: the traced processes use
 * one core, so it is a serial bottleneck on an idle machine; with host
 * samples saying the machine was 100% busy, it is not. */
static void serial_case(int host_busy, int with_host, uint32_t *flags, double *machine)
{
	struct synth s = {0};
	struct built b;
	struct tza_crit c;
	synth_meta(&s, "cpus", "8");
	uint64_t busy0 = 100 * SEC_NS, idle0 = 700 * SEC_NS;
	if (with_host)
		host(&s, T0 - 500 * MS, busy0, idle0, 8);
	s_fork(&s, T0, 1, 30);
	s_exec(&s, T0 + 10, 30, T0, 1, "/usr/bin/bash", NULL, "bash|run.sh", "bash");
	s_proc(&s, 30, 31, T0 + 500 * MS, T0 + 6500 * MS, "/usr/bin/step", "step", "step",
	       (struct exit_vals){.utime = 6 * SEC_NS});
	/* 8 s of samples: all 8 CPUs busy, or only the step's one */
	uint64_t b8 = host_busy ? 64 * SEC_NS : 8 * SEC_NS;
	if (with_host)
		host(&s, T0 + 7500 * MS, busy0 + b8, idle0 + 64 * SEC_NS - b8, 8);
	s_exit(&s, T0 + 7 * SEC_NS, 30, T0, 1, "bash", (struct exit_vals){0});
	build_model(&s, NULL, TZA_MB_SAMPLES, &b);
	assert_int_equal(tza_critpath(b.m, TZA_BY_TOOL, &c), 0);
	struct tza_group x = group_of(&b, TZA_BY_TOOL, &c, "step");
	assert_int_equal(x.critical_ns, 6 * SEC_NS);
	*flags = x.flags;
	*machine = x.machine_cores;
	tza_crit_free(&c);
	unbuild(&b);
	synth_free(&s);
}

static void test_serial_host_samples(void **st)
{
	(void)st;
	uint32_t f;
	double mc;
	serial_case(0, 0, &f, &mc); /* no host samples: the traced CPU, 1 core of 8 */
	assert_int_equal(f, TZA_G_SERIAL);
	assert_true(mc > 0.99 && mc < 1.01);
	serial_case(0, 1, &f, &mc); /* host samples: 1 of 8 busy */
	assert_int_equal(f, TZA_G_SERIAL);
	assert_true(mc > 0.99 && mc < 1.01);
	serial_case(1, 1, &f, &mc); /* host samples: all 8 busy (untraced load) */
	assert_int_equal(f, 0);
	assert_true(mc > 7.99 && mc < 8.01);
}

/* a sleeper holding the path (5 s of a 6 s run, no CPU) waits, it does not
 * compute: no serial_bottleneck */
static void test_sleeper_not_serial(void **st)
{
	struct fx *f = *st;
	struct tza_crit c;
	root_start(f, "8", 40, "/usr/bin/bash", "bash|wait.sh", "bash");
	s_proc(&f->s, 40, 41, T0 + 500 * MS, T0 + 5500 * MS, "/usr/bin/sleep", "sleep|5", "sleep",
	       (struct exit_vals){.utime = MS});
	s_exit(&f->s, T0 + 6 * SEC_NS, 40, T0, 1, "bash", (struct exit_vals){0});
	fx_build(f, TZA_MB_SAMPLES);
	assert_int_equal(tza_critpath(f->b.m, TZA_BY_TOOL, &c), 0);
	assert_string_equal(c.by_tool[0].tool, "sleep");
	assert_int_equal(c.by_tool[0].ns, 5 * SEC_NS);
	assert_int_equal(group_of(&f->b, TZA_BY_TOOL, &c, "sleep").flags, 0);
	tza_crit_free(&c);
}

TEST_MAIN(NULL, NULL, FX_TEST(test_pipe_loaded), FX_TEST(test_pipe_helper),
	  cmocka_unit_test(test_serial_host_samples), FX_TEST(test_sleeper_not_serial))
