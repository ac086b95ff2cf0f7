/* SPDX-License-Identifier: BSD-2-Clause */
/* schema.c - the .tz schema, derived from bpf/events.h. */
#include <string.h>

#include "schema.h"

#define HDR sizeof(struct ev_hdr)
#define F(st, fld, ty, unit) {#fld, ty, offsetof(struct st, fld) - HDR, sizeof(((struct st *)0)->fld), unit}
#define FN(name, st, fld, ty, unit) {name, ty, offsetof(struct st, fld) - HDR, sizeof(((struct st *)0)->fld), unit}
#define BLOB(name, ty, idx) {name, ty, idx, 0, ""}
#define FIXED(st) (sizeof(struct st) - HDR)
#define NF(a) (uint16_t)(sizeof(a) / sizeof(a[0]))

static const struct tz_field fork_fields[] = {
	F(ev_fork, parent_tgid, TZ_F_U32, ""),
	F(ev_fork, caller_tgid, TZ_F_U32, ""),
	F(ev_fork, caller_pid, TZ_F_U32, ""),
	F(ev_fork, child_tgid, TZ_F_U32, ""),
	F(ev_fork, child_start_ns, TZ_F_U64, "ns"),
	F(ev_fork, child_ns_pid, TZ_F_U32, ""),
	F(ev_fork, flags, TZ_F_U32, ""),
};

static const struct tz_field exec_fields[] = {
	F(ev_exec, start_ns, TZ_F_U64, "ns"),
	F(ev_exec, cgroup_id, TZ_F_U64, ""),
	F(ev_exec, tgid, TZ_F_U32, ""),
	F(ev_exec, old_pid, TZ_F_U32, ""),
	F(ev_exec, ppid, TZ_F_U32, ""),
	F(ev_exec, ns_pid, TZ_F_U32, ""),
	F(ev_exec, uid, TZ_F_U32, ""),
	F(ev_exec, euid, TZ_F_U32, ""),
	F(ev_exec, gid, TZ_F_U32, ""),
	F(ev_exec, egid, TZ_F_U32, ""),
	F(ev_exec, argc, TZ_F_U32, "count"),
	F(ev_exec, argv_size, TZ_F_U32, "bytes"),
	F(ev_exec, argv_len, TZ_F_U32, "bytes"),
	F(ev_exec, filename_len, TZ_F_U16, "bytes"),
	F(ev_exec, exe_len, TZ_F_U16, "bytes"),
	F(ev_exec, script_len, TZ_F_U16, "bytes"),
	F(ev_exec, flags, TZ_F_U32, ""),
	F(ev_exec, comm, TZ_F_CHARS, ""),
	F(ev_exec, utime_ns, TZ_F_U64, "ns"),
	F(ev_exec, stime_ns, TZ_F_U64, "ns"),
	F(ev_exec, memcg_id, TZ_F_U64, ""),
	F(ev_exec, cwd_len, TZ_F_U16, "bytes"),
	F(ev_exec, env_len, TZ_F_U16, "bytes"),
	BLOB("filename", TZ_F_STR, 0),
	BLOB("exe", TZ_F_STR, 1),
	BLOB("script", TZ_F_STR, 2),
	BLOB("argv", TZ_F_STRV, 3),
	BLOB("cwd", TZ_F_STR, 4),
	BLOB("env", TZ_F_STRV, 5),
};

static const struct tz_field exec_fail_fields[] = {
	F(ev_exec_fail, tgid, TZ_F_U32, ""),
	F(ev_exec_fail, pid, TZ_F_U32, ""),
	F(ev_exec_fail, err, TZ_F_I32, "errno"),
	F(ev_exec_fail, filename_len, TZ_F_U16, "bytes"),
	BLOB("filename", TZ_F_STR, 0),
};

static const struct tz_field exit_fields[] = {
	F(ev_exit, start_ns, TZ_F_U64, "ns"),
	F(ev_exit, utime_ns, TZ_F_U64, "ns"),
	F(ev_exit, stime_ns, TZ_F_U64, "ns"),
	F(ev_exit, maxrss_kib, TZ_F_U64, "KiB"),
	F(ev_exit, rchar, TZ_F_U64, "bytes"),
	F(ev_exit, wchar, TZ_F_U64, "bytes"),
	F(ev_exit, syscr, TZ_F_U64, "count"),
	F(ev_exit, syscw, TZ_F_U64, "count"),
	F(ev_exit, read_bytes, TZ_F_U64, "bytes"),
	F(ev_exit, write_bytes, TZ_F_U64, "bytes"),
	F(ev_exit, cancelled_write_bytes, TZ_F_U64, "bytes"),
	F(ev_exit, nvcsw, TZ_F_U64, "count"),
	F(ev_exit, nivcsw, TZ_F_U64, "count"),
	F(ev_exit, min_flt, TZ_F_U64, "count"),
	F(ev_exit, maj_flt, TZ_F_U64, "count"),
	F(ev_exit, tgid, TZ_F_U32, ""),
	F(ev_exit, pid, TZ_F_U32, ""),
	F(ev_exit, ppid, TZ_F_U32, ""),
	F(ev_exit, status, TZ_F_U32, ""),
	F(ev_exit, exit_code, TZ_F_I32, ""),
	F(ev_exit, signal, TZ_F_I32, ""),
	F(ev_exit, threads, TZ_F_U32, "count"),
	F(ev_exit, flags, TZ_F_U32, ""),
	F(ev_exit, comm, TZ_F_CHARS, ""),
};

static const struct tz_field state_fields[] = {
	F(ev_proc_state, start_ns, TZ_F_U64, "ns"),
	F(ev_proc_state, tgid, TZ_F_U32, ""),
	F(ev_proc_state, ppid, TZ_F_U32, ""),
	F(ev_proc_state, uid, TZ_F_U32, ""),
	F(ev_proc_state, euid, TZ_F_U32, ""),
	F(ev_proc_state, ns_pid, TZ_F_U32, ""),
	F(ev_proc_state, argc, TZ_F_U32, "count"),
	F(ev_proc_state, argv_size, TZ_F_U32, "bytes"),
	F(ev_proc_state, argv_len, TZ_F_U32, "bytes"),
	F(ev_proc_state, exe_len, TZ_F_U16, "bytes"),
	F(ev_proc_state, flags, TZ_F_U32, ""),
	F(ev_proc_state, comm, TZ_F_CHARS, ""),
	BLOB("exe", TZ_F_STR, 0),
	BLOB("argv", TZ_F_STRV, 1),
};

static const struct tz_field drops_fields[] = {
	FN("fork", ev_drops, count[EV_DROP_FORK], TZ_F_U64, "count"),
	FN("exec", ev_drops, count[EV_DROP_EXEC], TZ_F_U64, "count"),
	FN("exec_fail", ev_drops, count[EV_DROP_EXEC_FAIL], TZ_F_U64, "count"),
	FN("exit", ev_drops, count[EV_DROP_EXIT], TZ_F_U64, "count"),
	FN("map_full", ev_drops, count[EV_DROP_MAP_FULL], TZ_F_U64, "count"),
	FN("argv_fault", ev_drops, count[EV_DROP_ARGV_FAULT], TZ_F_U64, "count"),
	FN("kevent", ev_drops, count[EV_DROP_KEVENT], TZ_F_U64, "count"),
};

static const struct tz_field sample_fields[] = {
	F(ev_sample, start_ns, TZ_F_U64, "ns"),
	F(ev_sample, utime_ns, TZ_F_U64, "ns"),
	F(ev_sample, stime_ns, TZ_F_U64, "ns"),
	F(ev_sample, rss_anon_kib, TZ_F_U64, "KiB"),
	F(ev_sample, rss_file_kib, TZ_F_U64, "KiB"),
	F(ev_sample, rss_shmem_kib, TZ_F_U64, "KiB"),
	F(ev_sample, rchar, TZ_F_U64, "bytes"),
	F(ev_sample, wchar, TZ_F_U64, "bytes"),
	F(ev_sample, read_bytes, TZ_F_U64, "bytes"),
	F(ev_sample, write_bytes, TZ_F_U64, "bytes"),
	F(ev_sample, tgid, TZ_F_U32, ""),
	F(ev_sample, threads, TZ_F_U32, "count"),
};

static const struct tz_field host_sample_fields[] = {
	F(ev_host_sample, cpu_user_ns, TZ_F_U64, "ns"),
	F(ev_host_sample, cpu_nice_ns, TZ_F_U64, "ns"),
	F(ev_host_sample, cpu_system_ns, TZ_F_U64, "ns"),
	F(ev_host_sample, cpu_idle_ns, TZ_F_U64, "ns"),
	F(ev_host_sample, cpu_iowait_ns, TZ_F_U64, "ns"),
	F(ev_host_sample, cpu_irq_ns, TZ_F_U64, "ns"),
	F(ev_host_sample, cpu_softirq_ns, TZ_F_U64, "ns"),
	F(ev_host_sample, cpu_steal_ns, TZ_F_U64, "ns"),
	F(ev_host_sample, mem_total_kib, TZ_F_U64, "KiB"),
	F(ev_host_sample, mem_available_kib, TZ_F_U64, "KiB"),
	F(ev_host_sample, mem_used_kib, TZ_F_U64, "KiB"),
	F(ev_host_sample, mem_cached_kib, TZ_F_U64, "KiB"),
	F(ev_host_sample, mem_free_kib, TZ_F_U64, "KiB"),
	F(ev_host_sample, swap_used_kib, TZ_F_U64, "KiB"),
	F(ev_host_sample, psi_cpu_some_us, TZ_F_U64, "us"),
	F(ev_host_sample, psi_cpu_full_us, TZ_F_U64, "us"),
	F(ev_host_sample, psi_mem_some_us, TZ_F_U64, "us"),
	F(ev_host_sample, psi_mem_full_us, TZ_F_U64, "us"),
	F(ev_host_sample, psi_io_some_us, TZ_F_U64, "us"),
	F(ev_host_sample, psi_io_full_us, TZ_F_U64, "us"),
	F(ev_host_sample, disk_read_bytes, TZ_F_U64, "bytes"),
	F(ev_host_sample, disk_write_bytes, TZ_F_U64, "bytes"),
	F(ev_host_sample, net_rx_bytes, TZ_F_U64, "bytes"),
	F(ev_host_sample, net_tx_bytes, TZ_F_U64, "bytes"),
	F(ev_host_sample, load1_milli, TZ_F_U32, "1/1000"),
	F(ev_host_sample, load5_milli, TZ_F_U32, "1/1000"),
	F(ev_host_sample, load15_milli, TZ_F_U32, "1/1000"),
	F(ev_host_sample, psi_cpu_some_avg10, TZ_F_U32, "1/100 %"),
	F(ev_host_sample, psi_cpu_full_avg10, TZ_F_U32, "1/100 %"),
	F(ev_host_sample, psi_mem_some_avg10, TZ_F_U32, "1/100 %"),
	F(ev_host_sample, psi_mem_full_avg10, TZ_F_U32, "1/100 %"),
	F(ev_host_sample, psi_io_some_avg10, TZ_F_U32, "1/100 %"),
	F(ev_host_sample, psi_io_full_avg10, TZ_F_U32, "1/100 %"),
	F(ev_host_sample, nr_running, TZ_F_U32, "count"),
	F(ev_host_sample, ncpus, TZ_F_U32, "count"),
	F(ev_host_sample, flags, TZ_F_U32, ""),
};

static const struct tz_field oom_kill_fields[] = {
	F(ev_oom_kill, start_ns, TZ_F_U64, "ns"),
	F(ev_oom_kill, memcg_id, TZ_F_U64, ""),
	F(ev_oom_kill, total_vm_kib, TZ_F_U64, "KiB"),
	F(ev_oom_kill, rss_anon_kib, TZ_F_U64, "KiB"),
	F(ev_oom_kill, rss_file_kib, TZ_F_U64, "KiB"),
	F(ev_oom_kill, rss_shmem_kib, TZ_F_U64, "KiB"),
	F(ev_oom_kill, tgid, TZ_F_U32, ""),
	F(ev_oom_kill, pid, TZ_F_U32, ""),
	F(ev_oom_kill, trigger_tgid, TZ_F_U32, ""),
	F(ev_oom_kill, trigger_pid, TZ_F_U32, ""),
	F(ev_oom_kill, uid, TZ_F_U32, ""),
	F(ev_oom_kill, oom_score_adj, TZ_F_I16, ""),
	F(ev_oom_kill, comm, TZ_F_CHARS, ""),
};

static const struct tz_field signal_fields[] = {
	F(ev_signal, target_start_ns, TZ_F_U64, "ns"),
	F(ev_signal, sender_start_ns, TZ_F_U64, "ns"),
	F(ev_signal, target_tgid, TZ_F_U32, ""),
	F(ev_signal, target_pid, TZ_F_U32, ""),
	F(ev_signal, sender_tgid, TZ_F_U32, ""),
	F(ev_signal, sender_pid, TZ_F_U32, ""),
	F(ev_signal, sig, TZ_F_I32, ""),
	F(ev_signal, code, TZ_F_I32, ""),
	F(ev_signal, sender_uid, TZ_F_U32, ""),
	F(ev_signal, flags, TZ_F_U32, ""),
	F(ev_signal, sender_comm, TZ_F_CHARS, ""),
};

static const struct tz_field release_fields[] = {
	F(ev_release, start_ns, TZ_F_U64, "ns"),
	F(ev_release, utime_ns, TZ_F_U64, "ns"),
	F(ev_release, stime_ns, TZ_F_U64, "ns"),
	F(ev_release, nvcsw, TZ_F_U64, "count"),
	F(ev_release, nivcsw, TZ_F_U64, "count"),
	F(ev_release, min_flt, TZ_F_U64, "count"),
	F(ev_release, maj_flt, TZ_F_U64, "count"),
	F(ev_release, tgid, TZ_F_U32, ""),
	F(ev_release, flags, TZ_F_U32, ""),
};

static const struct tz_field cgroup_fields[] = {
	F(ev_cgroup, id, TZ_F_U64, ""),
	F(ev_cgroup, mem_limit_bytes, TZ_F_U64, "bytes"),
	F(ev_cgroup, cpu_quota_us, TZ_F_U64, "us"),
	F(ev_cgroup, cpu_period_us, TZ_F_U64, "us"),
	F(ev_cgroup, hier, TZ_F_U32, ""),
	F(ev_cgroup, flags, TZ_F_U32, ""),
	F(ev_cgroup, path_len, TZ_F_U16, "bytes"),
	BLOB("path", TZ_F_STR, 0),
};

static const struct tz_field attach_fields[] = {
	F(ev_attach, mtime_ns, TZ_F_U64, "ns"),
	F(ev_attach, size, TZ_F_U64, "bytes"),
	F(ev_attach, data_len, TZ_F_U32, "bytes"),
	F(ev_attach, flags, TZ_F_U32, ""),
	F(ev_attach, name_len, TZ_F_U16, "bytes"),
	BLOB("name", TZ_F_STR, 0),
	BLOB("data", TZ_F_STR, 1),
};

static const struct tz_event_type types[] = {
	{EV_FORK, 1, "fork", FIXED(ev_fork), 0, NF(fork_fields), 0, fork_fields},
	{EV_EXEC, 2, "exec", FIXED(ev_exec), 0, NF(exec_fields), 6, exec_fields},
	{EV_EXEC_FAIL, 1, "exec_fail", FIXED(ev_exec_fail), 0, NF(exec_fail_fields), 1,
	 exec_fail_fields},
	{EV_EXIT, 1, "exit", FIXED(ev_exit), 0, NF(exit_fields), 0, exit_fields},
	{EV_PROC_STATE, 1, "proc_state", FIXED(ev_proc_state), TZ_TYPE_STATE, NF(state_fields), 2,
	 state_fields},
	{EV_DROPS, 2, "drops", FIXED(ev_drops), 0, NF(drops_fields), 0, drops_fields},
	{EV_SAMPLE, 1, "sample", FIXED(ev_sample), 0, NF(sample_fields), 0, sample_fields},
	{EV_HOST_SAMPLE, 1, "host_sample", FIXED(ev_host_sample), 0, NF(host_sample_fields), 0,
	 host_sample_fields},
	{EV_OOM_KILL, 1, "oom_kill", FIXED(ev_oom_kill), 0, NF(oom_kill_fields), 0, oom_kill_fields},
	{EV_SIGNAL, 1, "signal", FIXED(ev_signal), 0, NF(signal_fields), 0, signal_fields},
	{EV_RELEASE, 1, "release", FIXED(ev_release), 0, NF(release_fields), 0, release_fields},
	{EV_CGROUP, 1, "cgroup", FIXED(ev_cgroup), TZ_TYPE_STATE, NF(cgroup_fields), 1, cgroup_fields},
	{EV_ATTACH, 1, "attach", FIXED(ev_attach), 0, NF(attach_fields), 2, attach_fields},
};

const struct tz_event_type *tracer_schema(size_t *n)
{
	*n = sizeof(types) / sizeof(types[0]);
	return types;
}

int tracer_schema_register(tz_writer *w)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		int rc = tz_writer_add_type(w, &types[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int tracer_event_split(const void *rec, size_t size, const void **fixed, uint32_t *fixed_len,
		       struct tz_blob *blobs)
{
	const struct ev_hdr *h = rec;
	const char *base = rec;
	size_t need, tail[TRACER_MAX_BLOBS] = {0};
	int nb = 0, order[TRACER_MAX_BLOBS] = {0, 1, 2, 3, 4, 5};

	if (size < sizeof(*h) || h->size > size)
		return -1;
	size = h->size;
	switch (h->type) {
	case EV_FORK:
		need = sizeof(struct ev_fork);
		break;
	case EV_EXEC: {
		const struct ev_exec *e = rec;
		need = sizeof(*e);
		if (size < need)
			return -1;
		/* record order filename, exe, script, cwd, argv, env; blob 3
		 * is argv, 4 cwd */
		tail[0] = e->filename_len;
		tail[1] = e->exe_len;
		tail[2] = e->script_len;
		tail[3] = e->cwd_len;
		tail[4] = e->argv_len;
		tail[5] = e->env_len;
		order[3] = 4;
		order[4] = 3;
		nb = 6;
		break;
	}
	case EV_EXEC_FAIL: {
		const struct ev_exec_fail *e = rec;
		need = sizeof(*e);
		if (size < need)
			return -1;
		tail[0] = e->filename_len;
		nb = 1;
		break;
	}
	case EV_EXIT:
		need = sizeof(struct ev_exit);
		break;
	case EV_PROC_STATE: {
		const struct ev_proc_state *e = rec;
		need = sizeof(*e);
		if (size < need)
			return -1;
		tail[0] = e->exe_len;
		tail[1] = e->argv_len;
		nb = 2;
		break;
	}
	case EV_DROPS:
		need = sizeof(struct ev_drops);
		break;
	case EV_SAMPLE:
		need = sizeof(struct ev_sample);
		break;
	case EV_HOST_SAMPLE:
		need = sizeof(struct ev_host_sample);
		break;
	case EV_OOM_KILL:
		need = sizeof(struct ev_oom_kill);
		break;
	case EV_SIGNAL:
		need = sizeof(struct ev_signal);
		break;
	case EV_RELEASE:
		need = sizeof(struct ev_release);
		break;
	case EV_CGROUP: {
		const struct ev_cgroup *e = rec;
		need = sizeof(*e);
		if (size < need)
			return -1;
		tail[0] = e->path_len;
		nb = 1;
		break;
	}
	case EV_ATTACH: {
		const struct ev_attach *e = rec;
		need = sizeof(*e);
		if (size < need)
			return -1;
		tail[0] = e->name_len;
		tail[1] = e->data_len;
		nb = 2;
		break;
	}
	default:
		return -1;
	}
	if (size < need)
		return -1;
	size_t off = need;
	for (int i = 0; i < nb; i++) {
		if (tail[i] > size - off)
			return -1;
		blobs[order[i]].data = base + off;
		blobs[order[i]].len = (uint32_t)tail[i];
		off += tail[i];
	}
	*fixed = base + HDR;
	*fixed_len = (uint32_t)(need - HDR);
	return nb;
}

static int write_one(tz_writer *w, const void *rec, size_t size, int state)
{
	const struct ev_hdr *h = rec;
	const void *fixed;
	uint32_t fixed_len;
	struct tz_blob blobs[TRACER_MAX_BLOBS];
	int nb = tracer_event_split(rec, size, &fixed, &fixed_len, blobs);
	if (nb < 0)
		return TRACER_ERR_MALFORMED;
	if (state)
		return tz_writer_add_state(w, h->type, h->ts_ns, fixed, fixed_len, blobs,
					   (uint32_t)nb);
	return tz_writer_add(w, h->type, h->ts_ns, fixed, fixed_len, blobs, (uint32_t)nb);
}

int tracer_event_write(tz_writer *w, const void *rec, size_t size)
{
	return write_one(w, rec, size, 0);
}

int tracer_event_write_state(tz_writer *w, const void *rec, size_t size)
{
	return write_one(w, rec, size, 1);
}
