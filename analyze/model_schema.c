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

static const struct binding bindings[] = {
	{EV_FORK, M(f_parent), "parent_tgid"},
	{EV_FORK, M(f_child), "child_tgid"},
	{EV_FORK, M(f_cstart), "child_start_ns"},
	{EV_FORK, M(f_cns), "child_ns_pid"},
	{EV_EXEC, M(x_start), "start_ns"},
	{EV_EXEC, M(x_cg), "cgroup_id"},
	{EV_EXEC, M(x_tgid), "tgid"},
	{EV_EXEC, M(x_ppid), "ppid"},
	{EV_EXEC, M(x_nspid), "ns_pid"},
	{EV_EXEC, M(x_uid), "uid"},
	{EV_EXEC, M(x_euid), "euid"},
	{EV_EXEC, M(x_gid), "gid"},
	{EV_EXEC, M(x_egid), "egid"},
	{EV_EXEC, M(x_argc), "argc"},
	{EV_EXEC, M(x_argvsz), "argv_size"},
	{EV_EXEC, M(x_flags), "flags"},
	{EV_EXEC, M(x_comm), "comm"},
	{EV_EXEC, M(x_ut), "utime_ns"},
	{EV_EXEC, M(x_st), "stime_ns"},
	{EV_EXEC, M(x_fname), "filename"},
	{EV_EXEC, M(x_exe), "exe"},
	{EV_EXEC, M(x_script), "script"},
	{EV_EXEC, M(x_argv), "argv"},
	{EV_EXEC, M(x_cwd), "cwd"},
	{EV_EXEC, M(x_env), "env"},
	{EV_EXEC, M(x_memcg), "memcg_id"},
	{EV_CGROUP, M(c_id), "id"},
	{EV_CGROUP, M(c_hier), "hier"},
	{EV_CGROUP, M(c_flags), "flags"},
	{EV_CGROUP, M(c_mem), "mem_limit_bytes"},
	{EV_CGROUP, M(c_quota), "cpu_quota_us"},
	{EV_CGROUP, M(c_period), "cpu_period_us"},
	{EV_CGROUP, M(c_path), "path"},
	{EV_ATTACH, M(a_mtime), "mtime_ns"},
	{EV_ATTACH, M(a_size), "size"},
	{EV_ATTACH, M(a_flags), "flags"},
	{EV_ATTACH, M(a_name), "name"},
	{EV_ATTACH, M(a_data), "data"},
	{EV_EXEC_FAIL, M(xf_tgid), "tgid"},
	{EV_EXEC_FAIL, M(xf_err), "err"},
	{EV_EXEC_FAIL, M(xf_fname), "filename"},
	{EV_EXEC_FAIL, M(xf_pid), "pid"},
	{EV_PROC_STATE, M(s_start), "start_ns"},
	{EV_PROC_STATE, M(s_tgid), "tgid"},
	{EV_PROC_STATE, M(s_ppid), "ppid"},
	{EV_PROC_STATE, M(s_uid), "uid"},
	{EV_PROC_STATE, M(s_euid), "euid"},
	{EV_PROC_STATE, M(s_nspid), "ns_pid"},
	{EV_PROC_STATE, M(s_argc), "argc"},
	{EV_PROC_STATE, M(s_argvsz), "argv_size"},
	{EV_PROC_STATE, M(s_flags), "flags"},
	{EV_PROC_STATE, M(s_comm), "comm"},
	{EV_PROC_STATE, M(s_exe), "exe"},
	{EV_PROC_STATE, M(s_argv), "argv"},
	{EV_SAMPLE, M(sm_start), "start_ns"},
	{EV_SAMPLE, M(sm_tgid), "tgid"},
	{EV_SAMPLE, M(sm_ut), "utime_ns"},
	{EV_SAMPLE, M(sm_st), "stime_ns"},
	{EV_SAMPLE, M(sm_anon), "rss_anon_kib"},
	{EV_SAMPLE, M(sm_file), "rss_file_kib"},
	{EV_SAMPLE, M(sm_shmem), "rss_shmem_kib"},
	{EV_SAMPLE, M(sm_rb), "read_bytes"},
	{EV_SAMPLE, M(sm_wb), "write_bytes"},
	{EV_SAMPLE, M(sm_threads), "threads"},
	{EV_SAMPLE, M(sm_rchar), "rchar"},
	{EV_SAMPLE, M(sm_wchar), "wchar"},
	{EV_HOST_SAMPLE, M(h_user), "cpu_user_ns"},
	{EV_HOST_SAMPLE, M(h_nice), "cpu_nice_ns"},
	{EV_HOST_SAMPLE, M(h_sys), "cpu_system_ns"},
	{EV_HOST_SAMPLE, M(h_idle), "cpu_idle_ns"},
	{EV_HOST_SAMPLE, M(h_iow), "cpu_iowait_ns"},
	{EV_HOST_SAMPLE, M(h_irq), "cpu_irq_ns"},
	{EV_HOST_SAMPLE, M(h_soft), "cpu_softirq_ns"},
	{EV_HOST_SAMPLE, M(h_steal), "cpu_steal_ns"},
	{EV_HOST_SAMPLE, M(h_total), "mem_total_kib"},
	{EV_HOST_SAMPLE, M(h_avail), "mem_available_kib"},
	{EV_HOST_SAMPLE, M(h_used), "mem_used_kib"},
	{EV_HOST_SAMPLE, M(h_rd), "disk_read_bytes"},
	{EV_HOST_SAMPLE, M(h_wr), "disk_write_bytes"},
	{EV_HOST_SAMPLE, M(h_rx), "net_rx_bytes"},
	{EV_HOST_SAMPLE, M(h_tx), "net_tx_bytes"},
	{EV_HOST_SAMPLE, M(h_ncpus), "ncpus"},
	{EV_HOST_SAMPLE, M(h_load1), "load1_milli"},
	{EV_OOM_KILL, M(o_start), "start_ns"},
	{EV_OOM_KILL, M(o_tgid), "tgid"},
	{EV_OOM_KILL, M(o_anon), "rss_anon_kib"},
	{EV_OOM_KILL, M(o_file), "rss_file_kib"},
	{EV_OOM_KILL, M(o_shmem), "rss_shmem_kib"},
	{EV_OOM_KILL, M(o_memcg), "memcg_id"},
	{EV_OOM_KILL, M(o_trig), "trigger_tgid"},
	{EV_OOM_KILL, M(o_vm), "total_vm_kib"},
	{EV_OOM_KILL, M(o_uid), "uid"},
	{EV_OOM_KILL, M(o_adj), "oom_score_adj"},
	{EV_RELEASE, M(r_start), "start_ns"},
	{EV_RELEASE, M(r_tgid), "tgid"},
	{EV_RELEASE, M(r_ut), "utime_ns"},
	{EV_RELEASE, M(r_st), "stime_ns"},
	{EV_RELEASE, M(r_nvcsw), "nvcsw"},
	{EV_RELEASE, M(r_nivcsw), "nivcsw"},
	{EV_RELEASE, M(r_minflt), "min_flt"},
	{EV_RELEASE, M(r_majflt), "maj_flt"},
	{EV_SIGNAL, M(g_tstart), "target_start_ns"},
	{EV_SIGNAL, M(g_ttgid), "target_tgid"},
	{EV_SIGNAL, M(g_sstart), "sender_start_ns"},
	{EV_SIGNAL, M(g_stgid), "sender_tgid"},
	{EV_SIGNAL, M(g_sig), "sig"},
	{EV_SIGNAL, M(g_flags), "flags"},
	{EV_SIGNAL, M(g_comm), "sender_comm"},
	{EV_SIGNAL, M(g_code), "code"},
	{EV_SIGNAL, M(g_suid), "sender_uid"},
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

#define EX(mem, name, evmem, ty)                                                             \
	{M(mem), name, (uint16_t)(offsetof(struct ev_exit, evmem) - sizeof(struct ev_hdr)),   \
	 (uint16_t)sizeof(((struct ev_exit *)0)->evmem), ty}

static const struct exit_binding exit_bindings[] = {
	EX(e_start, "start_ns", start_ns, TZ_F_U64),
	EX(e_ut, "utime_ns", utime_ns, TZ_F_U64),
	EX(e_st, "stime_ns", stime_ns, TZ_F_U64),
	EX(e_rss, "maxrss_kib", maxrss_kib, TZ_F_U64),
	EX(e_rchar, "rchar", rchar, TZ_F_U64),
	EX(e_wchar, "wchar", wchar, TZ_F_U64),
	EX(e_syscr, "syscr", syscr, TZ_F_U64),
	EX(e_syscw, "syscw", syscw, TZ_F_U64),
	EX(e_rb, "read_bytes", read_bytes, TZ_F_U64),
	EX(e_wb, "write_bytes", write_bytes, TZ_F_U64),
	EX(e_cwb, "cancelled_write_bytes", cancelled_write_bytes, TZ_F_U64),
	EX(e_nvcsw, "nvcsw", nvcsw, TZ_F_U64),
	EX(e_nivcsw, "nivcsw", nivcsw, TZ_F_U64),
	EX(e_minflt, "min_flt", min_flt, TZ_F_U64),
	EX(e_majflt, "maj_flt", maj_flt, TZ_F_U64),
	EX(e_tgid, "tgid", tgid, TZ_F_U32),
	EX(e_ppid, "ppid", ppid, TZ_F_U32),
	EX(e_status, "status", status, TZ_F_U32),
	EX(e_code, "exit_code", exit_code, TZ_F_I32),
	EX(e_sig, "signal", signal, TZ_F_I32),
	EX(e_threads, "threads", threads, TZ_F_U32),
	EX(e_flags, "flags", flags, TZ_F_U32),
	EX(e_comm, "comm", comm, TZ_F_CHARS),
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
