# SPDX-License-Identifier: BSD-2-Clause
"""task_chain.py - the reference critical path of the task-path tests
(70_tasks_critpath.sh, 77_hosts_views.sh, 80_hosts_taskpath.sh), computed
from recorded task times apart from the analyzer. Import it with
PYTHONPATH=$TESTS_DIR/integration."""


def binding_chain(ts, start, end, linked=lambda a, b: True):
    """The critical path of ts (a list in start order) as it ran: a task's
    predecessors are the earlier tasks that ended by its start and are
    linked(a, b); it was ready when the last of them ended, and that one
    (ties: the first in the list) is its binding predecessor. The path ends
    at the task that ended last (ties: the first in the list) and goes back
    through binding predecessors. Returns the tasks, first to last."""
    pred = {}
    for i, b in enumerate(ts):
        pred[i] = None
        for j in range(i):
            a = ts[j]
            if end(a) <= start(b) and linked(a, b) and (
                    pred[i] is None or end(a) > end(ts[pred[i]])):
                pred[i] = j
    if not ts:
        return []
    last = 0
    for i in range(1, len(ts)):
        if end(ts[i]) > end(ts[last]):
            last = i
    chain = []
    while last is not None:
        chain.append(ts[last])
        last = pred[last]
    chain.reverse()
    return chain
