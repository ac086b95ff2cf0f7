#!/usr/bin/env python3
"""bench/floor.py - how many bytes per process a lossless encoding of a trace
cannot go below: the information in its nanosecond times and CPU times.

usage: bench/floor.py [--analyze PATH] TRACE

Reads TRACE with `tracer-analyze cat` (every event, in time order) and, for
each process with a fork, exec and exit event (and release, where the trace has it), takes the quantities
an encoder that predicts each value from everything before it (the previous
process, the process's own earlier events) still has to store: the gap
between consecutive forks, fork time - start_ns, exec - fork, exit - exec,
release - exit, and the CPU times as differences from the previous event of
the same process (exec's utime/stime, exit's minus exec's, release's minus
exit's). For each it estimates the entropy per value in bits with Vasicek's
m-spacing estimator (a standard non-parametric estimate of differential
entropy; the values are integers in ns, and spacings far above 1 ns, so it
is the discrete entropy at 1-ns resolution), a point mass at 0 counted as
its own symbol. The sum is an estimate of the bytes per process that no
lossless encoding of these fields can beat on average, however clever its
prediction (it leaves out every other field, string and the block overhead,
so the real floor is higher).
"""
import math, os, subprocess, sys, collections

def vasicek(xs):
    """differential entropy estimate in bits (m-spacing, m = round(sqrt(n)/2))"""
    xs = sorted(xs); n = len(xs)
    if n < 4:
        return 0.0
    m = max(1, int(round(math.sqrt(n) / 2)))
    s = 0.0
    for i in range(n):
        lo = xs[max(i - m, 0)]; hi = xs[min(i + m, n - 1)]
        s += math.log2(max(hi - lo, 1) * n / (2 * m))
    return s / n

def entropy(xs):
    """bits per value: P(0) as one symbol, the rest by vasicek"""
    n = len(xs)
    z = sum(1 for x in xs if x == 0); p = z / n
    h = 0.0
    if 0 < p < 1:
        h -= p * math.log2(p) + (1 - p) * math.log2(1 - p)
    nz = [x for x in xs if x != 0]
    if len(nz) >= 4:
        h += (1 - p) * max(vasicek(nz), 0.0)
    return h

def main():
    args = sys.argv[1:]
    ana = os.environ.get('TRACER_ANALYZE', 'tracer-analyze')
    if len(args) >= 2 and args[0] == '--analyze':
        ana = args[1]; args = args[2:]
    if len(args) != 1 or args[0].startswith('-'):
        sys.exit(__doc__.split('\n\n')[1])
    try:
        res = subprocess.run([ana, 'cat', '--abs', args[0]], stdout=subprocess.PIPE, check=False)
    except OSError as e:
        sys.exit(f"floor.py: cannot run {ana}: {e.strerror}")
    out = res.stdout
    if res.returncode not in (0, 1) or not out:
        sys.exit(f"floor.py: {args[0]}: tracer-analyze cat failed (exit {res.returncode})")
    P = collections.defaultdict(dict); forks = []
    for line in out.decode(errors='replace').splitlines():
        w = line.split(' ')
        if len(w) < 3:
            continue
        if not w[0].isdigit():
            continue
        ts = int(w[0]); kind = w[1]
        f = {}
        for kv in w[2:]:
            k, _, v = kv.partition('=')
            try:
                f[k] = int(v, 0)
            except ValueError:
                pass
        if kind == 'fork' and 'child_tgid' in f:
            p = P[f['child_tgid'], f['child_start_ns']]; p['fork'] = ts; p['start'] = f['child_start_ns']
            forks.append(ts)
        elif kind in ('exec', 'exit', 'release') and 'tgid' in f and 'start_ns' in f:
            p = P[f['tgid'], f['start_ns']]
            if kind in p:      # a second exec: keep the first
                continue
            p[kind] = ts; p[kind + '.u'] = f.get('utime_ns', 0); p[kind + '.s'] = f.get('stime_ns', 0)
    procs = [p for p in P.values() if all(k in p for k in ('fork', 'exec', 'exit'))]
    rel = [p for p in procs if 'release' in p]
    if len(procs) < 100:
        sys.exit(f"floor.py: {args[0]}: {len(procs)} processes with fork, exec and exit (need 100)")
    forks.sort()
    series = [
        ('fork - previous fork', [b - a for a, b in zip(forks, forks[1:])]),
        ('fork - start_ns', [p['fork'] - p['start'] for p in procs]),
        ('exec - fork', [p['exec'] - p['fork'] for p in procs]),
        ('exit - exec', [p['exit'] - p['exec'] for p in procs]),
        ('release - exit', [p['release'] - p['exit'] for p in rel]),
        ('exec utime', [p['exec.u'] for p in procs]),
        ('exec stime', [p['exec.s'] for p in procs]),
        ('exit utime - exec utime', [p['exit.u'] - p['exec.u'] for p in procs]),
        ('exit stime - exec stime', [p['exit.s'] - p['exec.s'] for p in procs]),
        ('release utime - exit utime', [p['release.u'] - p['exit.u'] for p in rel]),
        ('release stime - exit stime', [p['release.s'] - p['exit.s'] for p in rel]),
    ]
    # a trace older than the release event (tracer 0.3.x): those rows are left out
    series = [(n, xs) for n, xs in series if len(xs) >= 100]
    print(f"{args[0]}: {len(procs)} processes with fork, exec and exit, {len(rel)} of them with release\n")
    print("| quantity (ns) | median | share 0 | bits per process |")
    print("|---|---:|---:|---:|")
    tot = 0.0
    for name, xs in series:
        h = entropy(xs); tot += h
        med = sorted(xs)[len(xs) // 2]
        z = sum(1 for x in xs if x == 0) / len(xs)
        print(f"| {name} | {med:,} | {z:.0%} | {h:.1f} |")
    print(f"| **sum** | | | **{tot:.1f} bits = {tot / 8:.1f} bytes** |")

main()
