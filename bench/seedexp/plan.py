"""What the fake agent does and says: tasks, tools and answers, fixed by the seed."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass

COLS, ROWS = 120, 32
PROMPT = "Do you want to proceed?"

REQUESTS = [
    "fix the flaky cache test",
    "why does the build fail on main?",
    "add a --dry-run flag to the deploy script",
    "rename UserStore to AccountStore everywhere",
    "bump the linter and fix what it finds",
    "write a test for the retry helper",
    "can you make the logs less noisy?",
    "update the changelog for 2.4",
]

TOOLS = [
    ("Run the test suite", "npm test -- --grep cache", "41 passing (3s)"),
    ("Rebuild the project", "make clean && make -j4", "built 212 objects"),
    ("Search for the old name", "rg -n UserStore src", "37 matches in 12 files"),
    ("Apply the rename", "sed -i s/UserStore/AccountStore/g src/*.ts", "12 files changed"),
    ("Run the linter", "npx eslint --fix src", "0 problems"),
    ("Check the deploy script", "bash -n scripts/deploy.sh && echo ok", "ok"),
    ("Show recent commits", "git log --oneline -20", "20 commits"),
    ("Install dependencies", "npm ci", "added 812 packages in 5s"),
]

ANSWERS = [
    "Done: the cache test now waits for the server before it asserts.",
    "The build failed on a missing generated file; it is rebuilt and committed now.",
    "Added --dry-run; it prints every step and changes nothing.",
    "Renamed in 12 files; the tests pass.",
    "The linter is bumped and its 4 findings are fixed.",
    "Done. Want me to also run the full suite on CI?",
    "The logs are quieter now. Should I do the same for the worker?",
    "Updated. Do you want a release tag as well?",
]

VERBS = ["Pondering", "Reticulating", "Newspapering", "Considering", "Brewing", "Crunching"]


@dataclass(frozen=True)
class Step:
    kind: str  # think | tool
    seconds: float
    title: str = ""
    command: str = ""
    result: str = ""
    ask: bool = False  # a permission dialog before the tool runs


@dataclass(frozen=True)
class Task:
    request: str
    steps: tuple[Step, ...]
    answer: str


def make_plan(seed: int, tasks: int) -> list[Task]:
    rng = random.Random(seed)
    plan = []
    for _ in range(tasks):
        steps = [Step("think", rng.uniform(1.0, 3.0))]
        for _ in range(rng.randint(1, 3)):
            title, command, result = rng.choice(TOOLS)
            steps.append(
                Step("tool", rng.uniform(0.5, 6.0), title, command, result, rng.random() < 0.45)
            )
            steps.append(Step("think", rng.uniform(0.5, 2.0)))
        plan.append(Task(rng.choice(REQUESTS), tuple(steps), rng.choice(ANSWERS)))
    return plan


def plan_to_json(plan: list[Task]) -> str:
    return json.dumps([asdict(t) for t in plan], indent=1)


def plan_from_json(text: str) -> list[Task]:
    return [
        Task(t["request"], tuple(Step(**s) for s in t["steps"]), t["answer"])
        for t in json.loads(text)
    ]
