#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""cross_layer.py INFO_JSON CAT_TXT EXPORT_JSONL SUMMARY_JSON

The cross-layer check of issue 16 (docs/HACKING.md, "Adding an event or a
field"): every field of every event type that the recorder wrote into the
trace's schema (INFO_JSON: `tracer-analyze info --json`) must be surfaced by
the analyzer, in `export --format jsonl --samples --host-samples`
(EXPORT_JSONL) or `summary --json` (SUMMARY_JSON), or be named below as derived
from another field (a length of a string, a flag bit surfaced under its own
name) with the key it surfaces under. Where the trace holds such an event
(CAT_TXT: `tracer-analyze cat --abs --state`), its value is compared with what
the analyzer printed, converted to the printed unit.

A field written by the recorder and absent from SURFACED fails the test with
the event and field named: surface it (analyze/), then add it here. An exec
field absent from SURFACED is taken to be one export prints by name
(EV_EXEC_BYNAME in bpf/events.h): it must be in each execs[] entry under its
own name with the recorded value, or the test fails naming it.
"""
import json
import re
import sys

NS = 1e-9


def secs(v):  # ns -> the analyzer's seconds (9 decimals, exact)
    return round(v * NS, 9)


# How each field surfaces. Kinds:
#   ("proc", key[, fn])   the process's jsonl object (identity: tgid + start)
#   ("exec", key[, fn])   that process's execs[] entry (in order)
#   ("last", key[, fn])   its last execs[] entry (the process's object when it
#                         has no image)
#   ("fail", key[, fn])   its failed_execs[] entry (in order)
#   ("sample", key[, fn]) its samples[] entry (in order)
#   ("host", key[, fn])   a host_samples jsonl row (in order)
#   ("killed", key[, fn]) the target process's killed_by
#   ("oom", key[, fn])    the summary's oom_kills[] entry (in order)
#   ("cgroup", key[, fn]) the cgroup/memcg object of the execs naming it
#   ("attach", key[, fn]) the summary's attachments[] entry (in order)
#   ("drops", key)        the summary's drops
#   ("derived", why)      not printed itself: what it is part of
#   ("gap", where)        not surfaced yet (issue 16): listed, not failed; a
#                         field missing from this table fails
#   ("id", why)           the identity used to find the object above
# fn maps the recorded value to the printed one (None: equal).
def flag(bit):
    return lambda v: bool(v & bit)


SURFACED = {
    "fork": {
        "child_tgid": ("id", "pid"),
        "child_start_ns": ("id", "start"),
        "parent_tgid": ("proc", "ppid"),
        "caller_tgid": ("gap", "proc: forked_by (differs from ppid with CLONE_PARENT)"),
        "caller_pid": ("derived", "the calling thread of caller_tgid"),
        "child_ns_pid": ("proc", "ns_pid"),
        "flags": ("gap", "proc: vfork (EV_FORK_VFORK); CLONE_PARENT as forked_by"),
    },
    "exec": {
        "start_ns": ("id", "start"),
        "tgid": ("id", "pid"),
        "cgroup_id": ("exec", "cgroup", lambda v: {"id": v}),
        "memcg_id": ("exec", "memcg", lambda v: {"id": v} if v else None),
        "old_pid": ("gap", "exec: caller_tid (a thread other than the leader exec'd)"),
        "ppid": ("gap", "exec: ppid (the parent at that exec)"),
        "ns_pid": ("proc", "ns_pid"),  # a process's namespace pid never changes
        "uid": ("exec", "uid"),
        "euid": ("exec", "euid"),
        "gid": ("exec", "gid"),
        "egid": ("exec", "egid"),
        "argc": ("exec", "argc"),
        "argv_size": ("exec", "argv_size"),
        "argv_len": ("derived", "the bytes of argv as recorded (argv)"),
        "filename_len": ("derived", "the length of filename"),
        "exe_len": ("derived", "the length of exe"),
        "script_len": ("derived", "the length of script"),
        "cwd_len": ("derived", "the length of cwd"),
        "env_len": ("derived", "the bytes of env"),
        "flags": [("exec", "argv_truncated", flag(0x1)), ("exec", "deleted", flag(0x2)),
                  ("exec", "memfd", flag(0x4)), ("exec", "path_truncated", flag(0x10)),
                  ("exec", "cwd_truncated", flag(0x20)), ("exec", "env_truncated", flag(0x40))],
        "comm": ("exec", "comm"),
        "utime_ns": ("derived", "CPU before this exec: execs[].cpu_s of the image before"),
        "stime_ns": ("derived", "with utime_ns"),
        "filename": ("exec", "filename"),
        "exe": ("exec", "exe"),
        "script": ("exec", "script", lambda v: v or None),
        "argv": ("exec", "argv"),
        "cwd": ("exec", "cwd"),
        "env": ("exec", "env"),
    },
    "exec_fail": {
        "tgid": ("id", "pid"),
        "pid": ("fail", "tid"),
        "err": ("fail", "errno"),
        "filename_len": ("derived", "the length of filename"),
        "filename": ("fail", "filename"),
    },
    "exit": {
        "start_ns": ("id", "start"),
        "tgid": ("id", "pid"),
        "utime_ns": ("final", "utime_s", secs),
        "stime_ns": ("final", "stime_s", secs),
        # the last image's own peak; the process's (peak_rss_kib) is the
        # larger of it and the last exec's maxrss_before_kib
        "maxrss_kib": ("last", "peak_rss_kib"),
        "rchar": ("proc", "rchar"),
        "wchar": ("proc", "wchar"),
        "syscr": ("proc", "syscr"),
        "syscw": ("proc", "syscw"),
        "read_bytes": ("proc", "read_bytes"),
        "write_bytes": ("proc", "write_bytes"),
        "cancelled_write_bytes": ("proc", "cancelled_write_bytes"),
        "nvcsw": ("final", "vol_ctxt"),
        "nivcsw": ("final", "inv_ctxt"),
        "min_flt": ("final", "min_flt"),
        "maj_flt": ("final", "maj_flt"),
        "pid": ("derived", "the thread whose exit ended the group (its comm is comm)"),
        "ppid": ("proc", "exit_ppid"),
        "status": ("derived", "the wait status: exit_code, signal and core_dumped"),
        "exit_code": ("proc", "exit_code", lambda v: v if v >= 0 else None),
        "signal": ("proc", "signal", lambda v: v or None),
        "threads": ("proc", "threads"),
        "flags": [("proc", "core_dumped", flag(0x1)), ("proc", "exe_deleted", flag(0x4)),
                  ("proc", "io_exact", lambda v: not v & 0x8)],
        "comm": ("proc", "comm"),
    },
    "release": {
        "start_ns": ("id", "start"),
        "tgid": ("id", "pid"),
        "utime_ns": ("proc", "utime_s", secs),
        "stime_ns": ("proc", "stime_s", secs),
        "nvcsw": ("proc", "vol_ctxt"),
        "nivcsw": ("proc", "inv_ctxt"),
        "min_flt": ("proc", "min_flt"),
        "maj_flt": ("proc", "maj_flt"),
        "flags": ("derived", "none defined: always 0"),
    },
    "proc_state": {
        "start_ns": ("id", "start"),
        "tgid": ("id", "pid"),
        "ppid": ("proc", "ppid"),
        "uid": ("proc", "uid"),
        "euid": ("proc", "euid"),
        "ns_pid": ("proc", "ns_pid"),
        "argc": ("image", "argc"),
        "argv_size": ("image", "argv_size"),
        "argv_len": ("derived", "the bytes of argv as recorded (argv)"),
        "exe_len": ("derived", "the length of exe"),
        "flags": [("proc", "pre_existing", flag(0x1)), ("image", "argv_truncated", flag(0x4))],
        "comm": ("image", "comm"),
        "exe": ("image", "exe"),
        "argv": ("image", "argv"),
    },
    "sample": {
        "start_ns": ("id", "start"),
        "tgid": ("id", "pid"),
        "utime_ns": ("sample", "utime_s", secs),
        "stime_ns": ("sample", "stime_s", secs),
        "rss_anon_kib": ("derived", "with rss_file_kib and rss_shmem_kib: samples[].rss_kib"),
        "rss_file_kib": ("derived", "likewise"),
        "rss_shmem_kib": ("derived", "likewise"),
        "rchar": ("sample", "rchar"),
        "wchar": ("sample", "wchar"),
        "read_bytes": ("sample", "read_bytes"),
        "write_bytes": ("sample", "write_bytes"),
        "threads": ("sample", "threads"),
    },
    "signal": {
        "target_start_ns": ("id", "start"),
        "target_tgid": ("id", "pid"),
        "target_pid": ("derived", "the thread it was sent to (killed_by concerns the process)"),
        "sender_start_ns": ("derived", "the sender's identity, with sender_tgid"),
        "sender_tgid": ("killed", "pid"),
        "sender_pid": ("derived", "the sending thread of sender_tgid"),
        "sig": ("killed", "signal"),
        "code": ("derived", "the siginfo code: killed_by.cause"),
        "sender_uid": ("killed", "uid"),
        "flags": [("killed", "kernel", flag(0x2))],
        "sender_comm": ("killed", "comm"),
    },
    "oom_kill": {
        "start_ns": ("id", "start"),
        "tgid": ("id", "pid"),
        "pid": ("derived", "the victim's thread the OOM killer picked"),
        "memcg_id": ("oom", "memcg_id"),
        "total_vm_kib": ("oom", "total_vm_kib"),
        "rss_anon_kib": ("derived", "with rss_file_kib and rss_shmem_kib: oom_kills[].rss_kib"),
        "rss_file_kib": ("derived", "likewise"),
        "rss_shmem_kib": ("derived", "likewise"),
        "trigger_tgid": ("proc", "oom_trigger_pid"),
        "trigger_pid": ("derived", "the triggering thread of trigger_tgid"),
        "uid": ("oom", "uid"),
        "oom_score_adj": ("oom", "oom_score_adj"),
        "comm": ("oom", "name"),
    },
    "cgroup": {
        "id": ("id", "the cgroup id the execs name"),
        "hier": ("derived", "which object of an exec names it: cgroup (v2) or memcg (v1 memory)"),
        "mem_limit_bytes": ("cgroup", "mem_limit_bytes"),
        "cpu_quota_us": ("cgroup", "cpu_quota_us"),
        "cpu_period_us": ("cgroup", "cpu_period_us"),
        "flags": ("gap", "cgroup objects: path_truncated, unresolved"),
        "path_len": ("derived", "the length of path"),
        "path": ("cgroup", "path", lambda v: v or None),
    },
    "attach": {
        "mtime_ns": ("attach", "mtime_ns"),
        "size": ("attach", "size"),
        "data_len": ("attach", "bytes"),
        "flags": [("attach", "truncated", flag(0x1)), ("attach", "redacted", flag(0x2))],
        "name_len": ("derived", "the length of name"),
        "name": ("attach", "name"),
        "data": ("derived", "the file's bytes: cat --type attach, the task adapters"),
    },
}
# every slot of these: the summary's drops, a host_samples row
WHOLE = {"drops": "drops", "host_sample": "host"}


# ------------------------------------------------------------ cat parsing
TOKEN = re.compile(r'([a-z_0-9]+)=("(?:[^"\\]|\\.)*"|\[(?:"(?:[^"\\]|\\.)*"(?:, )?)*\](?:\.\.\.)?|-?0x[0-9a-f]+|-?[0-9]+)')
ESC = re.compile(rb'\\(x[0-9a-fA-F]{2}|u00[89][0-9a-fA-F]|.)')
SIMPLE = {b'\\': b'\\', b'"': b'"', b'n': b'\n', b't': b'\t', b'r': b'\r', b'e': b'\x1b'}


def unquote(q):
    def one(m):
        e = m.group(1)
        if e[:1] == b'x':
            return bytes([int(e[1:], 16)])
        if e[:1] == b'u':
            return chr(int(e[1:], 16)).encode()
        return SIMPLE[e]
    return ESC.sub(one, q[1:-1].encode('utf-8', 'surrogateescape')).decode('utf-8', 'surrogateescape')


def value(v):
    if v.startswith('"'):
        return unquote(v)
    if v.startswith('['):
        return [unquote(x) for x in re.findall(r'"(?:[^"\\]|\\.)*"', v)]
    return int(v, 16) if '0x' in v else int(v)


def parse_cat(path):
    evs = []
    for line in open(path, encoding='utf-8', errors='surrogateescape'):
        parts = line.split(' ', 2)
        if len(parts) < 3:
            continue
        ts, typ, rest = parts
        if typ == 'state:':
            typ, rest = rest.split(' ', 1)
        evs.append((int(ts), typ, {k: value(v) for k, v in TOKEN.findall(rest)}))
    return evs


# ------------------------------------------------------------ the check
def main():
    info = json.load(open(sys.argv[1]))
    evs = parse_cat(sys.argv[2])
    procs, hosts = {}, []
    for line in open(sys.argv[3]):
        o = json.loads(line)
        if 'id' in o:
            procs[o['id']] = o
        else:
            hosts.append(o)
    summ = json.load(open(sys.argv[4]))
    errors, checked, seen = [], {}, set()
    # an exec field named nowhere above is one of EV_EXEC_BYNAME (bpf/events.h):
    # export prints it in execs[] under its own name, as recorded
    for e in info['schema']:
        if e['name'] == 'exec':
            for f in e['fields']:
                SURFACED['exec'].setdefault(f['name'], ("exec", f['name']))

    # 1. every schema field is surfaced (or said derived, with the key)
    for e in info['schema']:
        name = e['name']
        if name in WHOLE:
            continue
        table = SURFACED.get(name)
        if table is None:
            errors.append(f"event type '{name}' (id {e['id']}) is written by the recorder but "
                          f"not surfaced by the analyzer: add it (docs/HACKING.md)")
            continue
        for f in e['fields']:
            if f['name'] not in table:
                errors.append(f"field {name}.{f['name']} is written by the recorder but not "
                              f"surfaced by the analyzer: add it (docs/HACKING.md)")
        for f in table:
            if f not in {x['name'] for x in e['fields']}:
                errors.append(f"field {name}.{f} is in this table but not in the trace's schema")

    def where(kind, ev, ctx):
        if kind in ('proc', 'final'):
            return ctx.get('proc')
        if kind == 'last':
            p = ctx.get('proc')
            return p['execs'][-1] if p and p['execs'] and not p['execs_omitted'] else p
        return ctx.get(kind)

    # 2. every recorded value is what the analyzer printed
    per = {}  # (type, tgid, start) -> count: the n-th exec/sample of a process
    cg_objs = {}
    for p in procs.values():
        for x in p['execs']:
            for k in ('cgroup', 'memcg'):
                if x.get(k):
                    cg_objs.setdefault(x[k]['id'], []).append(x[k])
    att_i = oom_i = host_i = 0
    firsts = {}
    COUNTED = {'utime_ns', 'stime_ns', 'rchar', 'wchar', 'read_bytes', 'write_bytes'}
    for ts, typ, f in evs:
        table = SURFACED.get(typ)
        if typ == 'drops':
            for k, v in f.items():
                got = summ['drops'].get(k)
                seen.add(('drops', k))
                if got is None:
                    errors.append(f"drop slot '{k}' is recorded but not in summary --json drops")
                elif got < v:
                    errors.append(f"drop slot '{k}': recorded {v}, summary --json says {got}")
                else:
                    checked[('drops', k)] = checked.get(('drops', k), 0) + 1
            continue
        if typ == 'host_sample':
            seen.update(('host_sample', k) for k in f)
            if host_i >= len(hosts):
                errors.append(f"host_sample at {ts}: no host_samples row {host_i}")
            else:
                row = hosts[host_i]
                for k, v in f.items():
                    if k not in row:
                        errors.append(f"host_sample.{k} is recorded but not in the host rows: {sorted(row)}")
                    elif row[k] != v:
                        errors.append(f"host_sample {host_i}.{k}: recorded {v}, printed {row[k]}")
                    else:
                        checked[('host_sample', k)] = checked.get(('host_sample', k), 0) + 1
            host_i += 1
            continue
        if table is None:
            continue
        ctx = {}
        if typ == 'fork':
            key = (f['child_tgid'], f['child_start_ns'])
        elif typ == 'signal':
            key = (f['target_tgid'], f['target_start_ns'])
        elif typ in ('cgroup', 'attach'):
            key = None
        elif typ == 'exec_fail':
            # the process of that pid alive then: the latest started before it
            cands = [int(i.split('.')[1]) for i, p in procs.items()
                     if p['pid'] == f['tgid'] and int(i.split('.')[1]) <= ts]
            key = (f['tgid'], max(cands)) if cands else None
            if key is None:
                errors.append(f"exec_fail at {ts}: no process {f['tgid']} started before it")
                continue
        else:
            key = (f['tgid'], f['start_ns'])
        if key:
            ctx['proc'] = procs.get(f"{key[0]}.{key[1]}")
            if ctx['proc'] is None:
                continue  # a process the model leaves out (e.g. the recorder's own)
        p = ctx.get('proc')
        n = per.get((typ, key), 0)
        per[(typ, key)] = n + 1
        if typ == 'exec' and p:
            xs = [x for x in p['execs'] if not x.get('from_snapshot')]
            ctx['exec'] = xs[n] if n < len(xs) and not p['execs_omitted'] else None
        if typ == 'proc_state' and p:
            ctx['image'] = p['execs'][0] if p['execs'] else None
        if typ == 'sample' and p:
            ss = p.get('samples') or []
            ctx['sample'] = ss[n] if n < len(ss) else None
            if p.get('pre_existing'):
                # counted from the recording's start: less its first sample
                # (docs/tracer-analyze.md, jsonl `pre_existing`)
                first = firsts.setdefault(key, dict(f))
                f = {k: (v - first[k] if k in COUNTED else v) for k, v in f.items()}
        if typ == 'exec_fail' and p:
            fs = p['failed_execs']
            ctx['fail'] = fs[n] if n < len(fs) and not p['failed_execs_omitted'] else None
        if typ == 'signal' and p:
            if not p.get('killed_by') or p['signal'] != f['sig']:
                continue  # not the fatal one
            ctx['killed'] = p['killed_by']
        if typ == 'oom_kill':
            ks = summ.get('oom_kills') or []
            ctx['oom'] = ks[oom_i] if oom_i < len(ks) else None
            oom_i += 1
        if typ == 'attach':
            at = summ.get('attachments') or []
            ctx['attach'] = at[att_i] if att_i < len(at) else None
            att_i += 1
        if typ == 'cgroup':
            objs = cg_objs.get(f['id'], [])
            if f.get('hier') == 2 or not objs:
                continue  # limits by path (v1 cpu), or no exec names it
            ctx['cgroup'] = objs[0]
        if typ == 'release' and p and p.get('cpu_final') is not True:
            errors.append(f"release of {key}: cpu_final is {p.get('cpu_final')}")
        for field, spec in table.items():
            specs = spec if isinstance(spec, list) else [spec]
            for s in specs:
                kind = s[0]
                if kind in ('derived', 'id', 'gap') or field not in f:
                    continue
                if kind == 'final' and p and p.get('cpu_final') is not False:
                    continue  # the release event's figure is printed
                obj = where(kind, f, ctx)
                if obj is None:
                    errors.append(f"{typ}.{field} at {ts}: no {kind} object to compare with")
                    continue
                fn = s[2] if len(s) > 2 and s[2] else (lambda v: v)
                want = fn(f[field])
                got = obj.get(s[1], KeyError)
                if isinstance(want, dict) and isinstance(got, dict):
                    got = {k: got.get(k) for k in want}
                if got is KeyError:
                    errors.append(f"{typ}.{field}: key '{s[1]}' missing from the {kind} object: {sorted(obj)}")
                elif got != want:
                    errors.append(f"{typ}.{field} at {ts}: recorded {f[field]!r} -> {want!r}, "
                                  f"printed {s[1]}={got!r}")
                else:
                    checked[(typ, field)] = checked.get((typ, field), 0) + 1
    # the drop slots and host fields in the schema: all seen and printed
    for e in info['schema']:
        if e['name'] in WHOLE:
            for fl in e['fields']:
                if (e['name'], fl['name']) not in seen:
                    errors.append(f"{e['name']}.{fl['name']}: not checked (no such event in the trace)")
    for k in info['drops']:
        if k != 'total' and k not in summ['drops']:
            errors.append(f"drop slot '{k}' (info) is not in summary --json drops")
    uniq = {}
    for m in errors:  # one line per distinct fault (the first event's text)
        k = re.sub(r' at [0-9]+:.*', '', m)
        k = re.sub(r' [0-9]+\.', '.', k)
        uniq.setdefault(k, m)
    gaps = [(t, fl, sp[1]) for t, tb in SURFACED.items() for fl, spec in tb.items()
            for sp in (spec if isinstance(spec, list) else [spec]) if sp[0] == 'gap'
            and any(e['name'] == t for e in info['schema'])]
    for t, fl, w in gaps:
        print(f"known gap: {t}.{fl} -> {w}")
    for m in list(uniq.values())[:60]:
        print("FAIL:", m)
    types = sorted({t for t, _ in checked})
    print(f"cross-layer: {sum(checked.values())} values of {len(checked)} fields "
          f"({', '.join(types)}) equal to what the analyzer printed; {len(uniq)} faults")
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
