/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_analyze.c - libFuzzer target for the analyzer's model: any bytes the
 * reader accepts are built into a process model, the critical path and the
 * per-tool groups, and every process's keys and argv are written as JSON and
 * text; nothing may crash, loop or leak. The replay driver runs it over
 * tests/fuzz/corpus_analyze and tests/data/bad in `make test`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/json.h"
#include "analyze/model.h"
#include "analyze/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	tz_reader *r = NULL;
	struct tza_model *m = NULL;
	if (!null)
		null = fopen("/dev/null", "w");
	if (tz_reader_open_mem(&r, data, size, "fuzz.tz", NULL) < 0 ||
	    tza_model_build(r, 0, UINT64_MAX, &m) < 0) {
		tz_reader_free(r);
		return 0;
	}
	struct tza_crit c;
	struct tza_machine mi;
	struct tza_group *g = NULL;
	uint32_t ng = 0;
	tza_machine_get(r, &mi);
	if (tza_critpath(m, TZA_BY_COMMAND, &c) == 0) {
		if (tza_groups(m, TZA_BY_TOOL, &c, &mi, &g, &ng) == 0)
			free(g);
		tza_crit_free(&c);
	}
	for (uint32_t i = 0; i < m->nprocs && null; i++) {
		struct tza_proc *p = m->procs[i];
		const struct tza_exec *e = tza_proc_image_inherited(p);
		tza_json_cstr(null, tza_proc_key(p, TZA_BY_EXE));
		tza_json_cstr(null, tza_proc_key(p, TZA_BY_COMMAND));
		if (e) {
			tza_json_argv(null, e->argv, e->argv_len);
			tza_text_argv(null, e->argv, e->argv_len, 60);
			/* issue 17: cwd, env and the cgroup table */
			tza_json_cstr(null, e->ctx->cwd);
			tza_json_argv(null, (const uint8_t *)e->ctx->env, e->ctx->env_len);
			const struct tza_cgroup *cg =
				tza_model_cgroup(m, TZA_CG_V2, e->ctx->cgroup_id);
			if (cg)
				tza_json_cstr(null, cg->path);
			cg = tza_model_cgroup(m, TZA_CG_V1_MEMORY, e->ctx->memcg_id);
			if (cg)
				tza_json_cstr(null, cg->path);
		}
	}
	const struct tza_attachment *a;
	uint32_t na = tza_model_attachments(m, &a);
	for (uint32_t i = 0; i < na && null; i++) {
		tza_json_cstr(null, a[i].name);
		tza_json_str(null, a[i].data, (size_t)a[i].len);
	}
	tza_model_free(m);
	tz_reader_free(r);
	return 0;
}
