"""`--dist loadgroup` (pyproject.toml's addopts) without its cost per test.

xdist 3.8's LoadGroupScheduling makes each test that has no `xdist_group` a work unit of its
own, and keeps every unit a worker ever had: each finished test counts the worker's pending
tests over all of them (`_pending_of`), and each unit sent looks its tests up with `list.index`
in the whole collection. Over the fast tier's ~5,200 units that is quadratic: ~10 s of the
controller's CPU, on the same two cores as the workers, which wait for it between tests.

Here a unit is dropped from the worker's books once all its tests have reported, and the
indexes come from a dict. Which tests run, on which worker and in what order is unchanged."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdist.scheduler import LoadGroupScheduling  # type: ignore[import-untyped]
from xdist.workermanage import WorkerController  # type: ignore[import-untyped]


class LeanLoadGroupScheduling(LoadGroupScheduling):  # type: ignore[misc]
    def __init__(self, config: Any, log: Any = None) -> None:
        super().__init__(config, log)
        self._where: dict[WorkerController, dict[str, int]] = {}

    def add_node_collection(self, node: WorkerController, collection: Sequence[str]) -> None:
        super().add_node_collection(node, collection)
        if node in self.registered_collections:
            self._where[node] = {nodeid: i for i, nodeid in enumerate(collection)}

    def _assign_work_unit(self, node: WorkerController) -> None:
        scope, work_unit = self.workqueue.popitem(last=False)
        self.assigned_work.setdefault(node, {})[scope] = work_unit
        where = self._where[node]
        node.send_runtest_some([where[nodeid] for nodeid, done in work_unit.items() if not done])

    def mark_test_complete(
        self, node: WorkerController, item_index: int, duration: float = 0
    ) -> None:
        nodeid = self.registered_collections[node][item_index]
        scope = self._split_scope(nodeid)
        units = self.assigned_work[node]
        unit = units[scope]
        unit[nodeid] = True
        if all(unit.values()):
            del units[scope]  # nothing of it is pending: `_pending_of` need not count it again
        self._reschedule(node)
