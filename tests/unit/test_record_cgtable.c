/* SPDX-License-Identifier: BSD-2-Clause */
/* test_record_cgtable.c - the recorder's cgroup table, --env filter and
 * attachments, on directory trees made by the test (no real cgroupfs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "helper.h"

#include "record/record.h"
#include "record/schema.h"

static char root[256];

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void dir(const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static uint64_t ino(const char *rel)
{
	char p[512];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(stat(p, &st), 0);
	return (uint64_t)st.st_ino;
}

static int setup(void **st)
{
	(void)st;
	snprintf(root, sizeof(root), "/tmp/test_cgtable.%d", (int)getpid());
	assert_int_equal(mkdir(root, 0755), 0);
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* a mountinfo naming root/v2 as cgroup2, root/mem as v1 memory (mounted
 * from a namespaced root "/ns"), root/cpu as v1 cpu,cpuacct; the v2 mount
 * point has an escaped space */
static void mountinfo(void)
{
	char mi[2048];
	snprintf(mi, sizeof(mi),
		 "30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
		 "31 30 0:28 / %s/cpu rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
		 "34 30 0:31 /ns %s/mem rw,relatime shared:9 - cgroup cgroup rw,memory\n"
		 "40 30 0:37 / %s/v2\\040x rw,relatime - cgroup2 cgroup2 rw\n",
		 root, root, root);
	put("mountinfo", mi);
}

static void test_cgtable(void **st)
{
	(void)st;
	struct cgtable t;
	char mi[512];
	uint8_t buf[sizeof(struct ev_cgroup) + EV_PATH_MAX];
	const struct ev_cgroup *e = (const struct ev_cgroup *)buf;

	dir("v2 x");
	dir("v2 x/slurm");
	dir("v2 x/slurm/job_7");
	put("v2 x/slurm/job_7/memory.max", "1048576\n");
	put("v2 x/slurm/job_7/cpu.max", "50000 100000\n");
	put("v2 x/slurm/memory.max", "max\n");
	put("v2 x/slurm/cpu.max", "max 100000\n");
	dir("mem");
	dir("mem/job_42");
	put("mem/job_42/memory.limit_in_bytes", "123453440\n");
	put("mem/memory.limit_in_bytes", "9223372036854771712\n");
	dir("cpu");
	mountinfo();
	snprintf(mi, sizeof(mi), "%s/mountinfo", root);
	assert_int_equal(cgt_init(&t, mi), 0);
	assert_true(cgt_memcg_v1(&t));

	/* v2: path below the mount, both limits */
	size_t n = cgt_note(&t, EV_CG_V2, ino("v2 x/slurm/job_7"), 5, buf, sizeof(buf));
	assert_int_equal(n, sizeof(struct ev_cgroup) + strlen("/slurm/job_7"));
	assert_int_equal(e->hdr.type, EV_CGROUP);
	assert_int_equal(e->hdr.size, n);
	assert_int_equal(e->hdr.ts_ns, 5);
	assert_memory_equal(buf + sizeof(*e), "/slurm/job_7", e->path_len);
	assert_int_equal(e->mem_limit_bytes, 1048576);
	assert_int_equal(e->cpu_quota_us, 50000);
	assert_int_equal(e->cpu_period_us, 100000);
	assert_int_equal(e->flags, 0);
	/* once per id */
	assert_int_equal(cgt_note(&t, EV_CG_V2, ino("v2 x/slurm/job_7"), 6, buf, sizeof(buf)), 0);
	/* "max": none */
	n = cgt_note(&t, EV_CG_V2, ino("v2 x/slurm"), 6, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(e->mem_limit_bytes, 0);
	assert_int_equal(e->cpu_quota_us, 0);
	assert_int_equal(e->cpu_period_us, 0);
	/* the mount itself is "/" */
	n = cgt_note(&t, EV_CG_V2, ino("v2 x"), 6, buf, sizeof(buf));
	assert_int_equal(e->path_len, 1);
	assert_int_equal(buf[sizeof(*e)], '/');
	/* a cgroup made after the first walk: found by the re-walk */
	uint64_t walks = t.h[EV_CG_V2].walks;
	dir("v2 x/late");
	n = cgt_note(&t, EV_CG_V2, ino("v2 x/late"), 7, buf, sizeof(buf));
	assert_int_equal(t.h[EV_CG_V2].walks, walks + 1);
	assert_memory_equal(buf + sizeof(*e), "/late", 5);
	/* an id nowhere: unresolved, empty path */
	n = cgt_note(&t, EV_CG_V2, 0x7fffffffffULL, 8, buf, sizeof(buf));
	assert_int_equal(n, sizeof(struct ev_cgroup));
	assert_int_equal(e->flags, EV_CGROUP_UNRESOLVED);
	/* v1 memory under a namespaced mount root: the root prefixed */
	n = cgt_note(&t, EV_CG_V1_MEMORY, ino("mem/job_42"), 9, buf, sizeof(buf));
	assert_int_equal(e->hier, EV_CG_V1_MEMORY);
	assert_memory_equal(buf + sizeof(*e), "/ns/job_42", e->path_len);
	assert_int_equal(e->path_len, strlen("/ns/job_42"));
	assert_int_equal(e->mem_limit_bytes, 123453440);
	/* v1 unlimited reads as none */
	n = cgt_note(&t, EV_CG_V1_MEMORY, ino("mem"), 9, buf, sizeof(buf));
	assert_int_equal(e->mem_limit_bytes, 0);
	assert_memory_equal(buf + sizeof(*e), "/ns", 3);
	/* the same id in another hierarchy is another entry; id 0 never */
	assert_int_equal(cgt_note(&t, EV_CG_V2, 0, 9, buf, sizeof(buf)), 0);
	/* a buffer too small: nothing */
	assert_int_equal(cgt_note(&t, EV_CG_V1_MEMORY, ino("mem/job_42") + 1000000, 9, buf, 8), 0);
	cgt_free(&t);

	/* pure v2 (no v1 memory mount), and no mountinfo at all */
	put("mountinfo", "40 30 0:37 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
	assert_int_equal(cgt_init(&t, mi), 0);
	assert_false(cgt_memcg_v1(&t));
	assert_int_equal(cgt_note(&t, EV_CG_V1_MEMORY, 5, 1, buf, sizeof(buf)), 0);
	cgt_free(&t);
	snprintf(mi, sizeof(mi), "%s/nonexistent", root);
	assert_true(cgt_init(&t, mi) < 0);
	assert_false(cgt_memcg_v1(&t));
	assert_int_equal(cgt_note(&t, EV_CG_V2, 1, 1, buf, sizeof(buf)), 0);
	cgt_free(&t);
}

static int cg_state_fn(void *ctx, tz_writer *w)
{
	return cgt_state(ctx, w, 77);
}

/* The table is re-stated in state blocks: the first CG_RESTATE_MAX entries,
 * each as written (its time the block's), none past the bound. */
static void test_cgtable_state(void **st)
{
	(void)st;
	struct cgtable t;
	char mi[512];
	uint8_t buf[sizeof(struct ev_cgroup) + EV_PATH_MAX];

	char p[512];
	for (int i = 0; i < 3; i++) { /* test_cgtable may have made the mounts */
		snprintf(p, sizeof(p), "%s/%s", root, i == 0 ? "v2 x" : i == 1 ? "mem" : "cpu");
		mkdir(p, 0755);
	}
	dir("v2 x/job_1");
	put("v2 x/job_1/memory.max", "1048576\n");
	mountinfo();
	snprintf(mi, sizeof(mi), "%s/mountinfo", root);
	assert_int_equal(cgt_init(&t, mi), 0);
	/* not an EV_CGROUP record: not kept */
	struct ev_hdr h = {.size = sizeof(struct ev_cgroup), .type = EV_DROPS};
	memcpy(buf, &h, sizeof(h));
	cgt_keep(&t, (const struct ev_cgroup *)buf);
	assert_int_equal(t.nkept, 0);
	assert_true(cgt_note(&t, EV_CG_V2, ino("v2 x/job_1"), 5, buf, sizeof(buf)) > 0);
	cgt_keep(&t, (const struct ev_cgroup *)buf);
	/* unresolved ids: entries too, up to the bound and past it */
	for (uint64_t id = 1; id <= CG_RESTATE_MAX + 10; id++) {
		assert_true(cgt_note(&t, EV_CG_V2, 0x7f00000000ULL + id, 6, buf, sizeof(buf)) > 0);
		cgt_keep(&t, (const struct ev_cgroup *)buf);
	}
	assert_int_equal(t.nkept, CG_RESTATE_MAX);

	struct tz_writer_opts wo = {.state_fn = cg_state_fn, .state_ctx = &t};
	tz_writer *w;
	assert_int_equal(tz_writer_open_mem(&w, &wo), 0);
	assert_int_equal(tracer_schema_register(w), 0);
	/* the first event opens a state block before its chunk */
	struct ev_drops d = {.hdr = {.size = sizeof(d), .type = EV_DROPS, .ts_ns = 100}};
	assert_int_equal(tracer_event_write(w, &d, sizeof(d)), 0);
	void *file;
	size_t len;
	assert_int_equal(tz_writer_mem_take(w, &file, &len), 0);
	tz_reader *r;
	assert_int_equal(tz_reader_open_mem(&r, file, len, "cg", NULL), 0);
	assert_int_equal(tz_reader_iter(r, 0, UINT64_MAX, TZ_IT_STATE), 0);
	const struct tz_event *ev;
	size_t n = 0;
	int rc;
	while ((rc = tz_reader_next(r, &ev)) > 0) {
		if (ev->type_id != EV_CGROUP)
			continue;
		assert_true(ev->flags & TZ_EVF_STATE);
		assert_int_equal(ev->ts_ns, 77);
		uint64_t id = tz_event_u64(ev, tz_type_field(ev->type, "id"));
		if (n == 0) {
			assert_int_equal(id, ino("v2 x/job_1"));
			assert_int_equal(tz_event_u64(ev, tz_type_field(ev->type, "mem_limit_bytes")),
					 1048576);
			const struct tz_field *f = tz_type_field(ev->type, "path");
			assert_int_equal(ev->blobs[f->offset].len, strlen("/job_1"));
			assert_memory_equal(ev->blobs[f->offset].data, "/job_1", strlen("/job_1"));
		} else {
			assert_int_equal(id, 0x7f00000000ULL + n);
		}
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, CG_RESTATE_MAX);
	tz_reader_free(r);
	free(file);
	cgt_free(&t);
	assert_int_equal(t.nkept, 0);
}

static void test_env_filter(void **st)
{
	(void)st;
	struct env_names s;
	assert_int_equal(env_names_parse("SLURM_JOB_ID,NXF_TASK_WORKDIR,A", &s), 0);
	assert_int_equal(s.n, 3);
	char env[] = "PATH=/bin\0SLURM_JOB_ID=42\0SLURM_JOB_IDX=no\0A=\0NOEQ\0"
		     "NXF_TASK_WORKDIR=/w/ab/cd\0A=cut";
	uint32_t n = env_filter(&s, env, sizeof(env) - 1);
	static const char want[] = "SLURM_JOB_ID=42\0A=\0NXF_TASK_WORKDIR=/w/ab/cd\0";
	assert_int_equal(n, sizeof(want) - 1);
	assert_memory_equal(env, want, n);
	assert_int_equal(env_filter(&s, env, 0), 0);
	env_names_free(&s);
	assert_int_equal(env_names_parse("A,,B", &s), -1);
	assert_int_equal(env_names_parse("", &s), -1);
	assert_int_equal(env_names_parse("A=B", &s), -1);
	assert_int_equal(env_names_parse("A B", &s), -1);
	assert_int_equal(s.n, 0);
}

struct got {
	int n;
	char name[8][256];
	size_t len[8];
	uint8_t data[8][64];
	uint32_t flags[8];
};

static int emit(void *ctx, const void *rec, uint32_t size)
{
	struct got *g = ctx;
	const void *fixed;
	uint32_t fl;
	struct tz_blob b[TRACER_MAX_BLOBS];
	const struct ev_attach *e = rec;
	assert_int_equal(e->hdr.size, size);
	assert_int_equal(tracer_event_split(rec, size, &fixed, &fl, b), 2);
	assert_true(g->n < 8);
	snprintf(g->name[g->n], sizeof(g->name[0]), "%.*s", (int)b[0].len,
		 (const char *)b[0].data);
	g->len[g->n] = b[1].len;
	memcpy(g->data[g->n], b[1].data, b[1].len < 64 ? b[1].len : 64);
	g->flags[g->n] = e->flags;
	g->n++;
	return 0;
}

static size_t mk_exec_cwd(void *buf, const char *cwd, const char *argv0)
{
	struct ev_exec *e = buf;
	memset(e, 0, sizeof(*e));
	size_t cl = strlen(cwd), al = strlen(argv0) + 1;
	memcpy((char *)buf + sizeof(*e), cwd, cl);
	memcpy((char *)buf + sizeof(*e) + cl, argv0, al);
	e->hdr.type = EV_EXEC;
	e->hdr.size = (uint32_t)(sizeof(*e) + cl + al);
	e->cwd_len = (uint16_t)cl;
	e->argv_len = e->argv_size = (uint32_t)al;
	return e->hdr.size;
}

static void test_attach(void **st)
{
	(void)st;
	struct attset s = {0};
	struct got g = {0};
	uint8_t rec[sizeof(struct ev_exec) + 1024];
	char wf[300], nf[300], p[400];
	struct timeval old[2] = {{1000, 0}, {1000, 0}};

	dir("wf");
	dir("wf/.snakemake");
	dir("wf/.snakemake/metadata");
	dir("wf/.snakemake/log");
	put("wf/.snakemake/metadata/YQ==", "{\"rule\": \"a\"}");
	put("wf/.snakemake/metadata/old", "stale");
	snprintf(p, sizeof(p), "%s/wf/.snakemake/metadata/old", root);
	assert_int_equal(utimes(p, old), 0);
	put("wf/.snakemake/log/1.snakemake.log", "one");
	put("wf/.snakemake/log/2.snakemake.log", "two");
	snprintf(p, sizeof(p), "%s/wf/.snakemake/log/1.snakemake.log", root);
	struct timeval older[2] = {{2000, 0}, {2000, 0}};
	assert_int_equal(utimes(p, older), 0);
	dir("nf");
	dir("nf/work");
	dir("nf/work/ab");
	dir("nf/work/ab/cdef0123");
	put("nf/work/ab/cdef0123/.command.run", "#!/bin/bash\n# NEXTFLOW TASK: ALIGN (1)\n");
	put("nf/work/ab/cdef0123/.exitcode", "0");
	put("nf/trace.txt", "task_id\thash\n1\tab/cdef01\n");
	dir("nf/pipeline_info");
	put("nf/pipeline_info/execution_trace_2026.txt", "task_id\n1\n");
	put("nf/notatrace.txt", "no");
	dir("plain");
	put("plain/trace.txt", "not nextflow's launch dir");

	snprintf(wf, sizeof(wf), "%s/wf", root);
	snprintf(nf, sizeof(nf), "%s/nf", root);
	att_note_exec(&s, rec, mk_exec_cwd(rec, wf, "/usr/bin/python3"));
	att_note_exec(&s, rec, mk_exec_cwd(rec, wf, "/usr/bin/bash")); /* same dir */
	att_note_exec(&s, rec, mk_exec_cwd(rec, nf, "/usr/local/bin/nextflow"));
	snprintf(p, sizeof(p), "%s/nf/work/ab/cdef0123", root);
	att_note_exec(&s, rec, mk_exec_cwd(rec, p, "bash"));
	snprintf(p, sizeof(p), "%s/plain", root);
	att_note_exec(&s, rec, mk_exec_cwd(rec, p, "bash"));
	att_note_exec(&s, rec, mk_exec_cwd(rec, "relative", "bash")); /* ignored */
	assert_int_equal(s.n, 4);

	struct att_ctx c = {.since_ns = 10000ULL * 1000000000ULL, .max_total = 1 << 20,
			    .ts_ns = 1, .emit = emit, .ctx = &g};
	assert_int_equal(att_collect(&s, &c), 0);
	/* wf: metadata YQ== (old is before the start), newest log only;
	 * nf: trace.txt, execution_trace; task dir: .command.run, .exitcode */
	assert_int_equal(g.n, 6);
	snprintf(p, sizeof(p), "%s/wf/.snakemake/metadata/YQ==", root);
	assert_string_equal(g.name[0], p);
	assert_memory_equal(g.data[0], "{\"rule\": \"a\"}", g.len[0]);
	snprintf(p, sizeof(p), "%s/wf/.snakemake/log/2.snakemake.log", root);
	assert_string_equal(g.name[1], p);
	snprintf(p, sizeof(p), "%s/nf/trace.txt", root);
	assert_string_equal(g.name[2], p);
	snprintf(p, sizeof(p), "%s/nf/pipeline_info/execution_trace_2026.txt", root);
	assert_string_equal(g.name[3], p);
	snprintf(p, sizeof(p), "%s/nf/work/ab/cdef0123/.command.run", root);
	assert_string_equal(g.name[4], p);
	assert_int_equal(g.flags[4], 0);
	assert_int_equal(s.files, 6);
	assert_int_equal(s.truncated, 0);

	/* the total bound cuts and flags */
	struct attset s2 = {0};
	struct got g2 = {0};
	att_note_exec(&s2, rec, mk_exec_cwd(rec, wf, "snakemake"));
	c.max_total = 5;
	c.ctx = &g2;
	assert_int_equal(att_collect(&s2, &c), 0);
	assert_int_equal(g2.n, 1); /* nothing left for the log */
	assert_int_equal(g2.len[0], 5);
	assert_int_equal(g2.flags[0], EV_ATTACH_TRUNCATED);
	assert_int_equal(s2.truncated, 1);
	att_free(&s2);
	att_free(&s);
}

TEST_MAIN(setup, teardown, cmocka_unit_test(test_cgtable), cmocka_unit_test(test_cgtable_state),
	  cmocka_unit_test(test_env_filter), cmocka_unit_test(test_attach))
