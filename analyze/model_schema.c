/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * model_schema.c - the model's fields bound by name through the file's own
 * schema (so traces from newer recorders still read): one table row per
 * field, {event type, struct fields member, schema name}.
 */
#include <endian.h>
#include <string.h>

#include "dropslot.h"
#include "model_int.h"

#define M(mem) ((uint16_t)offsetof(struct fields, mem))

/* One bound field: fields.<member> = type_id's field called name */
struct binding {
	uint16_t type_id; /* EV_* */
	uint16_t member;  /* offsetof(struct fields, ...) */
	const char *name; /* the schema's field name (record/schema.c) */
};

/* A row of the table: the schema name is the declared field's or blob's
 * (bpf/events.h), so a name the declaration lacks does not compile (a blob
 * is checked by its length field, NAME_len) */
#define FIELD(id, st, mem, name) {id, M(mem), &#name[0 * sizeof(((struct st *)0)->name)]}
#define BLOB(id, st, mem, name) {id, M(mem), &#name[0 * sizeof(((struct st *)0)->name##_len)]}

static const struct binding bindings[] = {
	FIELD(EV_FORK, ev_fork, f_parent, parent_tgid),
	FIELD(EV_FORK, ev_fork, f_child, child_tgid),
	FIELD(EV_FORK, ev_fork, f_cstart, child_start_ns),
	FIELD(EV_FORK, ev_fork, f_cns, child_ns_pid),
	FIELD(EV_EXEC, ev_exec, x_start, start_ns),
	FIELD(EV_EXEC, ev_exec, x_cg, cgroup_id),
	FIELD(EV_EXEC, ev_exec, x_tgid, tgid),
	FIELD(EV_EXEC, ev_exec, x_ppid, ppid),
	FIELD(EV_EXEC, ev_exec, x_nspid, ns_pid),
	FIELD(EV_EXEC, ev_exec, x_uid, uid),
	FIELD(EV_EXEC, ev_exec, x_euid, euid),
	FIELD(EV_EXEC, ev_exec, x_gid, gid),
	FIELD(EV_EXEC, ev_exec, x_egid, egid),
	FIELD(EV_EXEC, ev_exec, x_argc, argc),
	FIELD(EV_EXEC, ev_exec, x_argvsz, argv_size),
	FIELD(EV_EXEC, ev_exec, x_flags, flags),
	FIELD(EV_EXEC, ev_exec, x_comm, comm),
	FIELD(EV_EXEC, ev_exec, x_ut, utime_ns),
	FIELD(EV_EXEC, ev_exec, x_st, stime_ns),
	BLOB(EV_EXEC, ev_exec, x_fname, filename),
	BLOB(EV_EXEC, ev_exec, x_exe, exe),
	BLOB(EV_EXEC, ev_exec, x_script, script),
	BLOB(EV_EXEC, ev_exec, x_argv, argv),
	BLOB(EV_EXEC, ev_exec, x_cwd, cwd),
	BLOB(EV_EXEC, ev_exec, x_env, env),
	FIELD(EV_EXEC, ev_exec, x_memcg, memcg_id),
	FIELD(EV_CGROUP, ev_cgroup, c_id, id),
	FIELD(EV_CGROUP, ev_cgroup, c_hier, hier),
	FIELD(EV_CGROUP, ev_cgroup, c_flags, flags),
	FIELD(EV_CGROUP, ev_cgroup, c_mem, mem_limit_bytes),
	FIELD(EV_CGROUP, ev_cgroup, c_quota, cpu_quota_us),
	FIELD(EV_CGROUP, ev_cgroup, c_period, cpu_period_us),
	BLOB(EV_CGROUP, ev_cgroup, c_path, path),
	FIELD(EV_ATTACH, ev_attach, a_mtime, mtime_ns),
	FIELD(EV_ATTACH, ev_attach, a_size, size),
	FIELD(EV_ATTACH, ev_attach, a_flags, flags),
	BLOB(EV_ATTACH, ev_attach, a_name, name),
	BLOB(EV_ATTACH, ev_attach, a_data, data),
	FIELD(EV_EXEC_FAIL, ev_exec_fail, xf_tgid, tgid),
	FIELD(EV_EXEC_FAIL, ev_exec_fail, xf_err, err),
	BLOB(EV_EXEC_FAIL, ev_exec_fail, xf_fname, filename),
	FIELD(EV_EXEC_FAIL, ev_exec_fail, xf_pid, pid),
	FIELD(EV_PROC_STATE, ev_proc_state, s_start, start_ns),
	FIELD(EV_PROC_STATE, ev_proc_state, s_tgid, tgid),
	FIELD(EV_PROC_STATE, ev_proc_state, s_ppid, ppid),
	FIELD(EV_PROC_STATE, ev_proc_state, s_uid, uid),
	FIELD(EV_PROC_STATE, ev_proc_state, s_euid, euid),
	FIELD(EV_PROC_STATE, ev_proc_state, s_nspid, ns_pid),
	FIELD(EV_PROC_STATE, ev_proc_state, s_argc, argc),
	FIELD(EV_PROC_STATE, ev_proc_state, s_argvsz, argv_size),
	FIELD(EV_PROC_STATE, ev_proc_state, s_flags, flags),
	FIELD(EV_PROC_STATE, ev_proc_state, s_comm, comm),
	BLOB(EV_PROC_STATE, ev_proc_state, s_exe, exe),
	BLOB(EV_PROC_STATE, ev_proc_state, s_argv, argv),
	FIELD(EV_SAMPLE, ev_sample, sm_start, start_ns),
	FIELD(EV_SAMPLE, ev_sample, sm_tgid, tgid),
	FIELD(EV_SAMPLE, ev_sample, sm_ut, utime_ns),
	FIELD(EV_SAMPLE, ev_sample, sm_st, stime_ns),
	FIELD(EV_SAMPLE, ev_sample, sm_anon, rss_anon_kib),
	FIELD(EV_SAMPLE, ev_sample, sm_file, rss_file_kib),
	FIELD(EV_SAMPLE, ev_sample, sm_shmem, rss_shmem_kib),
	FIELD(EV_SAMPLE, ev_sample, sm_rb, read_bytes),
	FIELD(EV_SAMPLE, ev_sample, sm_wb, write_bytes),
	FIELD(EV_SAMPLE, ev_sample, sm_threads, threads),
	FIELD(EV_SAMPLE, ev_sample, sm_rchar, rchar),
	FIELD(EV_SAMPLE, ev_sample, sm_wchar, wchar),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_user, cpu_user_ns),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_nice, cpu_nice_ns),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_sys, cpu_system_ns),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_idle, cpu_idle_ns),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_iow, cpu_iowait_ns),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_irq, cpu_irq_ns),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_soft, cpu_softirq_ns),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_steal, cpu_steal_ns),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_total, mem_total_kib),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_avail, mem_available_kib),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_used, mem_used_kib),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_rd, disk_read_bytes),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_wr, disk_write_bytes),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_rx, net_rx_bytes),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_tx, net_tx_bytes),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_ncpus, ncpus),
	FIELD(EV_HOST_SAMPLE, ev_host_sample, h_load1, load1_milli),
	FIELD(EV_OOM_KILL, ev_oom_kill, o_start, start_ns),
	FIELD(EV_OOM_KILL, ev_oom_kill, o_tgid, tgid),
	FIELD(EV_OOM_KILL, ev_oom_kill, o_anon, rss_anon_kib),
	FIELD(EV_OOM_KILL, ev_oom_kill, o_file, rss_file_kib),
	FIELD(EV_OOM_KILL, ev_oom_kill, o_shmem, rss_shmem_kib),
	FIELD(EV_OOM_KILL, ev_oom_kill, o_memcg, memcg_id),
	FIELD(EV_OOM_KILL, ev_oom_kill, o_trig, trigger_tgid),
	FIELD(EV_OOM_KILL, ev_oom_kill, o_vm, total_vm_kib),
	FIELD(EV_OOM_KILL, ev_oom_kill, o_uid, uid),
	FIELD(EV_OOM_KILL, ev_oom_kill, o_adj, oom_score_adj),
	FIELD(EV_RELEASE, ev_release, r_start, start_ns),
	FIELD(EV_RELEASE, ev_release, r_tgid, tgid),
	FIELD(EV_RELEASE, ev_release, r_ut, utime_ns),
	FIELD(EV_RELEASE, ev_release, r_st, stime_ns),
	FIELD(EV_RELEASE, ev_release, r_nvcsw, nvcsw),
	FIELD(EV_RELEASE, ev_release, r_nivcsw, nivcsw),
	FIELD(EV_RELEASE, ev_release, r_minflt, min_flt),
	FIELD(EV_RELEASE, ev_release, r_majflt, maj_flt),
	FIELD(EV_SIGNAL, ev_signal, g_tstart, target_start_ns),
	FIELD(EV_SIGNAL, ev_signal, g_ttgid, target_tgid),
	FIELD(EV_SIGNAL, ev_signal, g_sstart, sender_start_ns),
	FIELD(EV_SIGNAL, ev_signal, g_stgid, sender_tgid),
	FIELD(EV_SIGNAL, ev_signal, g_sig, sig),
	FIELD(EV_SIGNAL, ev_signal, g_flags, flags),
	FIELD(EV_SIGNAL, ev_signal, g_comm, sender_comm),
	FIELD(EV_SIGNAL, ev_signal, g_code, code),
	FIELD(EV_SIGNAL, ev_signal, g_suid, sender_uid),
	/* the exec fields read by name only (EV_EXEC_BYNAME, bpf/events.h) */
#define XB_BIND(ty, name, unit, src) {EV_EXEC, M(xb_##name), #name},
	EV_EXEC_BYNAME(XB_BIND)
#undef XB_BIND
};

/* The exit type's fields: bound like the others, and each checked against
 * struct ev_exit (offset after the header, size, type): when all match, the
 * file has the recorder's own layout and model_exit_read copies the struct
 * in one go instead of reading field by field. */
struct exit_binding {
	uint16_t member; /* offsetof(struct fields, ...) */
	const char *name;
	uint16_t offset, size; /* the member of struct ev_exit, after ev_hdr */
	uint16_t type;	       /* TZ_F_* */
};

#define EX(mem, evmem, ty)                                                                     \
	{M(mem), #evmem, (uint16_t)(offsetof(struct ev_exit, evmem) - sizeof(struct ev_hdr)),  \
	 (uint16_t)sizeof(((struct ev_exit *)0)->evmem), ty}

static const struct exit_binding exit_bindings[] = {
	EX(e_start, start_ns, TZ_F_U64),
	EX(e_ut, utime_ns, TZ_F_U64),
	EX(e_st, stime_ns, TZ_F_U64),
	EX(e_rss, maxrss_kib, TZ_F_U64),
	EX(e_rchar, rchar, TZ_F_U64),
	EX(e_wchar, wchar, TZ_F_U64),
	EX(e_syscr, syscr, TZ_F_U64),
	EX(e_syscw, syscw, TZ_F_U64),
	EX(e_rb, read_bytes, TZ_F_U64),
	EX(e_wb, write_bytes, TZ_F_U64),
	EX(e_cwb, cancelled_write_bytes, TZ_F_U64),
	EX(e_nvcsw, nvcsw, TZ_F_U64),
	EX(e_nivcsw, nivcsw, TZ_F_U64),
	EX(e_minflt, min_flt, TZ_F_U64),
	EX(e_majflt, maj_flt, TZ_F_U64),
	EX(e_tgid, tgid, TZ_F_U32),
	EX(e_ppid, ppid, TZ_F_U32),
	EX(e_status, status, TZ_F_U32),
	EX(e_code, exit_code, TZ_F_I32),
	EX(e_sig, signal, TZ_F_I32),
	EX(e_threads, threads, TZ_F_U32),
	EX(e_flags, flags, TZ_F_U32),
	EX(e_comm, comm, TZ_F_CHARS),
};

#define NELEM(a) (sizeof(a) / sizeof(*(a)))

static const struct tz_field **slot(struct fields *f, uint16_t member)
{
	return (const struct tz_field **)((char *)f + member);
}

/* The exit type's fields, and whether they have struct ev_exit's layout */
static int bind_exit(tz_reader *r, struct fields *f)
{
	const struct tz_event_type *t = tz_reader_type_by_id(r, EV_EXIT);
	int native = t && t->fixed_size >= sizeof(struct ev_exit) - sizeof(struct ev_hdr);
	for (size_t i = 0; i < NELEM(exit_bindings); i++) {
		const struct exit_binding *x = &exit_bindings[i];
		const struct tz_field *fl = t ? tz_type_field(t, x->name) : NULL;
		*slot(f, x->member) = fl;
		native = native && fl && fl->offset == x->offset && fl->size == x->size &&
			 fl->type == x->type;
	}
	return native;
}

void model_bind_fields(tz_reader *r, struct fields *f)
{
	const struct tz_event_type *t = NULL;
	uint16_t tid = 0;
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < NELEM(bindings); i++) {
		const struct binding *x = &bindings[i];
		if (!i || x->type_id != tid) {
			tid = x->type_id;
			t = tz_reader_type_by_id(r, tid);
		}
		*slot(f, x->member) = t ? tz_type_field(t, x->name) : NULL;
	}
	f->e_native = bind_exit(r, f);
	t = tz_reader_type_by_id(r, EV_DROPS);
	for (int i = 0; i < TZA_NDROP_SLOTS; i++)
		f->d[tza_drop_slots[i].slot] = t ? tz_type_field(t, tza_drop_slots[i].name) : NULL;
}

void model_get_comm(const struct tz_event *ev, const struct tz_field *f, char out[16])
{
	memset(out, 0, 16);
	if (!f || (f->type != TZ_F_CHARS && f->type != TZ_F_BYTES) ||
	    (uint64_t)f->offset + f->size > ev->fixed_len || !f->size)
		return;
	memcpy(out, ev->fixed + f->offset, f->size < 15 ? f->size : 15);
}

void model_exit_read(const struct fields *f, const struct tz_event *ev, struct exit_in *x)
{
	if (f->e_native && ev->fixed_len >= sizeof(struct ev_exit) - sizeof(struct ev_hdr)) {
		/* the recorder's own layout: one copy, no per-field lookups */
		struct ev_exit e;
		memcpy((char *)&e + sizeof(e.hdr), ev->fixed, sizeof(e) - sizeof(e.hdr));
		x->start = le64toh(e.start_ns);
		x->ut = le64toh(e.utime_ns);
		x->st = le64toh(e.stime_ns);
		x->rss = le64toh(e.maxrss_kib);
		x->rchar = le64toh(e.rchar);
		x->wchar = le64toh(e.wchar);
		x->syscr = le64toh(e.syscr);
		x->syscw = le64toh(e.syscw);
		x->rb = le64toh(e.read_bytes);
		x->wb = le64toh(e.write_bytes);
		x->cwb = le64toh(e.cancelled_write_bytes);
		x->nvcsw = le64toh(e.nvcsw);
		x->nivcsw = le64toh(e.nivcsw);
		x->minflt = le64toh(e.min_flt);
		x->majflt = le64toh(e.maj_flt);
		x->tgid = le32toh(e.tgid);
		x->ppid = le32toh(e.ppid);
		x->status = le32toh(e.status);
		x->flags = le32toh(e.flags);
		x->threads = le32toh(e.threads);
		x->code = (int32_t)le32toh((uint32_t)e.exit_code);
		x->sig = (int32_t)le32toh((uint32_t)e.signal);
		x->has_code = 1;
		memcpy(x->comm, e.comm, 15);
		x->comm[15] = 0;
		return;
	}
	x->start = fu64(ev, f->e_start);
	x->ut = fu64(ev, f->e_ut);
	x->st = fu64(ev, f->e_st);
	x->rss = fu64(ev, f->e_rss);
	x->rchar = fu64(ev, f->e_rchar);
	x->wchar = fu64(ev, f->e_wchar);
	x->syscr = fu64(ev, f->e_syscr);
	x->syscw = fu64(ev, f->e_syscw);
	x->rb = fu64(ev, f->e_rb);
	x->wb = fu64(ev, f->e_wb);
	x->cwb = fu64(ev, f->e_cwb);
	x->nvcsw = fu64(ev, f->e_nvcsw);
	x->nivcsw = fu64(ev, f->e_nivcsw);
	x->minflt = fu64(ev, f->e_minflt);
	x->majflt = fu64(ev, f->e_majflt);
	x->tgid = u32(ev, f->e_tgid);
	x->ppid = u32(ev, f->e_ppid);
	x->status = u32(ev, f->e_status);
	x->flags = u32(ev, f->e_flags);
	x->threads = u32(ev, f->e_threads);
	x->has_code = f->e_code != NULL;
	x->code = (int32_t)fi64(ev, f->e_code);
	x->sig = (int32_t)fi64(ev, f->e_sig);
	model_get_comm(ev, f->e_comm, x->comm);
}
