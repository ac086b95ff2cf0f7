# SPDX-License-Identifier: BSD-2-Clause
"""task_chain.py - the reference longest chain of the task-path tests
(77_hosts_views.sh, 80_hosts_taskpath.sh), computed from recorded task times
apart from the analyzer. Import it with PYTHONPATH=$TESTS_DIR/integration."""


def longest_chain(ts, start, end, linked=lambda a, b: True):
    """The chain of ts (a list in start order) with the longest sum of walls
    (end - start) into the task that ended last: a task follows another that
    ended by its start when linked(a, b). Returns the tasks, first to last."""
    best, pred = {}, {}
    for i, b in enumerate(ts):
        best[i], pred[i] = end(b) - start(b), None
        for j in range(i):
            a = ts[j]
            if end(a) <= start(b) and linked(a, b):
                v = best[j] + end(b) - start(b)
                if v > best[i]:
                    best[i], pred[i] = v, j
    last = max(range(len(ts)), key=lambda i: (end(ts[i]), best[i]))
    chain = []
    while last is not None:
        chain.append(ts[last])
        last = pred[last]
    chain.reverse()
    return chain
