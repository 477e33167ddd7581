"""How a script's neutral tool calls become one agent's own: the tool's name and its arguments.

Most agents are found out from the request itself: each request lists the tools the agent
offers, with a JSON schema of their arguments, so the server picks the tool of a kind by its
name (`bash`, `run_shell_command`, `Shell`, `Execute`, `run_commands`, ...) and fills its
arguments from the schema's property names (`command`/`cmd`/`commands`, `path`/`filePath`/
`file_path`, `old_string`/`oldString`, ...). An adapter whose agent needs something else
declares it in its `Dialect`: a fixed `ToolShape` per kind, and whether a request without a
tools list is a side request (titles, summaries) or a real turn (aider, which has no tools)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]


@dataclass(frozen=True)
class ToolShape:
    """A tool call the agent understands: its tool name, and its arguments built from the
    script's neutral ones (command, description, path (made absolute), old, new, content, plan,
    question, header, options)."""

    name: str
    args: Callable[[Json], Json]
    # A property the offered tool's schema must have for this shape to apply (releases of one
    # agent that take other arguments for the same tool); otherwise the schema search builds
    # the call. None: always.
    when: str | None = None

    def applies(self, offered: Mapping[str, Json]) -> bool:
        schema = offered.get(self.name)
        if self.when is None or schema is None:
            return True
        props = schema.get("properties")
        return isinstance(props, dict) and self.when in props


@dataclass(frozen=True)
class Dialect:
    """What the fake server needs to know about one agent beyond the protocol (which the URL
    path tells)."""

    # Forced shapes per tool kind (bash, read, edit, write, plan, question); kinds not named
    # here are found among the tools of the request.
    tools: Mapping[str, ToolShape] = field(default_factory=dict)
    # Chat completions: True = tool calls are fenced blocks in the answer text and every
    # request is a turn (aider). False = a request without a `tools` list is a side request
    # (a session title, a summary) and gets `side_text`, never the script's turn.
    tools_in_text: bool = False
    side_text: str = "Working on the task"
    # Tools that mark a side request when they are all the request offers (Grok Build names
    # its session with a request that offers only `session_title`).
    side_tools: frozenset[str] = frozenset()


# Tool names per kind, compared without case, `_` or `-`. First match in the request wins, in
# the order the agent lists its tools.
KIND_NAMES: dict[str, tuple[str, ...]] = {
    "bash": (
        "bash",
        "shell",
        "runshellcommand",
        "execute",
        "executecommand",
        "runcommands",
        "runcommand",
        "execcommand",
        "shellcommand",
        "runterminalcommand",
        "runterminalcmd",
        "terminal",
        "launchprocess",
    ),
    "read": ("read", "readfile", "view", "viewfile", "readfiles", "cat"),
    "edit": (
        "edit",
        "editor",
        "editfile",
        "replace",
        "strreplace",
        "strreplacefile",
        "searchreplace",
        "replaceinfile",
        "strreplacebasededittool",
        "strreplaceeditor",
    ),
    "write": ("write", "writefile", "create", "createfile", "writetofile", "editor"),
    "plan": ("exitplanmode", "exitspecmode", "plan", "submitplan"),
    "question": (
        "askuserquestion",
        "askuser",
        "askquestion",
        "question",
        "askfollowupquestion",
        "ask",
    ),
}

# The script's neutral argument names, and the property names agents use for them.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "command": ("command", "cmd", "commands", "script", "commandline"),
    "description": (
        "description",
        "summary",
        "explanation",
        "reason",
        "justification",
        "purpose",
        "title",
    ),
    "path": (
        "path",
        "filepath",
        "absolutepath",
        "filename",
        "file",
        "targetfile",
        "paths",
        "filepaths",
    ),
    "old": ("oldstring", "oldstr", "old", "search", "oldtext", "find"),
    "new": ("newstring", "newstr", "new", "replace", "newtext", "replacement"),
    "content": ("content", "contents", "filetext", "text", "filecontent", "data"),
    "plan": ("plan",),
    "question": ("question", "questionnaire", "prompt", "message"),
    "header": ("header",),
    "options": ("options", "choices"),
}
# Enum values chosen for a required property the script says nothing about (risk levels,
# modes): the harmless one.
PREFERRED_ENUM = ("low", "safe", "none", "false", "user")


def squash(name: str) -> str:
    return re.sub(r"[_\-\s.]", "", name).lower()


def offered_tools(body: Json) -> dict[str, Json]:
    """name -> JSON schema of the arguments, for the tools of a chat completions
    (`{type: function, function: {name, parameters}}`), Responses (`{type: function, name,
    parameters}`) or Anthropic Messages (`{name, input_schema}`) request, in the agent's order."""
    out: dict[str, Json] = {}
    for t in body.get("tools") or []:
        if not isinstance(t, dict):
            continue
        inner = t.get("function")
        fn: Json = inner if isinstance(inner, dict) else t
        name = fn.get("name")
        if not name:
            continue
        schema = fn.get("parameters") or fn.get("input_schema") or fn.get("inputSchema") or {}
        out[str(name)] = schema if isinstance(schema, dict) else {}
    return out


def find_tool(kind: str, offered: Mapping[str, Json]) -> str | None:
    """The offered tool of this kind: by name, the first known name that the agent offers."""
    by_squash = {squash(name): name for name in offered}
    for candidate in KIND_NAMES.get(kind, (kind,)):
        if candidate in by_squash:
            return by_squash[candidate]
    return None


def _neutral_for(prop: str) -> str | None:
    key = squash(prop)
    for neutral, names in SYNONYMS.items():
        if key in names:
            return neutral
    return None


def _default(schema: Json, text: str) -> Any:
    """A value for a required property the script has nothing for."""
    if schema.get("enum"):
        enum = list(schema["enum"])
        for preferred in PREFERRED_ENUM:
            if preferred in enum:
                return preferred
        return enum[0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return 0
    if kind == "array":
        return []
    if kind == "object":
        return {}
    return text


def build_args(kind: str, neutral: Json, schema: Json) -> Json:
    """The agent's arguments for a tool of `kind`, from the property names its schema declares.
    Properties the script says nothing about are filled only when required; a schema without
    properties gets the neutral names. A nested object, or an array of objects, whose own
    properties take script values gets one such object (Pi's `edits: [{oldText, newText}]`,
    Kimi's `edit: {old, new}`)."""
    props = schema.get("properties")
    if not isinstance(props, dict) or not props:
        return dict(neutral)
    if kind == "write" and "content" in neutral:
        # One editor tool for both (Cline's `editor`): a new file replaces nothing with content.
        neutral = {"new": neutral["content"], **neutral}
    return _Filler(kind, neutral, schema).fill(schema)


class _Filler:
    """Fills one schema (and the sub-schemas it refers to) from the script's values."""

    def __init__(self, kind: str, neutral: Json, root: Json) -> None:
        self.kind = kind
        self.neutral = neutral
        self.root = root
        self.text = str(neutral.get("description") or f"{kind} as asked")

    def resolve(self, sub: Any) -> Json:
        """`$ref` into the root's `$defs`; of `anyOf`/`oneOf`, the first object alternative
        (else the first that is not null)."""
        if not isinstance(sub, dict):
            return {}
        ref = sub.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target: Any = self.root
            for part in ref[2:].split("/"):
                target = target.get(part, {}) if isinstance(target, dict) else {}
            return self.resolve({**target, **{k: v for k, v in sub.items() if k != "$ref"}})
        alternatives = sub.get("anyOf") or sub.get("oneOf")
        if isinstance(alternatives, list) and "type" not in sub and "properties" not in sub:
            options = [self.resolve(a) for a in alternatives]
            for alt in options:
                if alt.get("type") == "object" or "properties" in alt:
                    return {**alt, "description": sub.get("description", "")}
            for alt in options:
                if alt.get("type") != "null":
                    return alt
        return sub

    def fill(self, schema: Json) -> Json:
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        required = set(schema.get("required") or [])
        out: Json = {}
        for prop, raw in props.items():
            sub = self.resolve(raw)
            name = _neutral_for(prop)
            nested = self.nested(sub)
            if name == "options" and name in self.neutral:
                out[prop] = _options(self.neutral[name], self.resolve(sub.get("items")))
            elif name is not None and name in self.neutral and nested is None:
                value = self.neutral[name]
                if sub.get("type") == "array" and not isinstance(value, list):
                    value = [value]
                out[prop] = value
            elif nested is not None:
                out[prop] = nested
            elif prop in required:
                out[prop] = _default(sub, self.text)
        return out

    def nested(self, sub: Json) -> Any:
        """One object (or a list of one) when `sub` is an object schema, or an array of them,
        whose properties take at least one script value; None otherwise."""
        is_array = sub.get("type") == "array"
        obj = self.resolve(sub.get("items")) if is_array else sub
        props = obj.get("properties")
        if not isinstance(props, dict) or obj.get("type", "object") != "object":
            return None
        if not any((_neutral_for(p) or "") in self.neutral for p in props):
            return None
        value = self.fill(obj)
        return [value] if is_array else value


def _options(options: list[tuple[str, str]], items: Json) -> list[Any]:
    """A question's (label, description) choices as the schema wants them: objects with a
    label (and a description), or plain strings."""
    props = items.get("properties")
    if not isinstance(props, dict):
        return [label for label, _ in options]
    label_key = next((k for k in props if squash(k) in ("label", "title", "name", "value")), None)
    desc_key = next((k for k in props if squash(k) in ("description", "detail")), None)
    out: list[Any] = []
    for label, desc in options:
        item: Json = {label_key or "label": label}
        if desc_key:
            item[desc_key] = desc
        out.append(item)
    return out


def shape_call(
    kind: str, neutral: Json, offered: Mapping[str, Json], dialect: Dialect
) -> tuple[str, Json] | None:
    """(tool name, arguments) for a neutral call, or None when the agent offers no such tool."""
    forced = dialect.tools.get(kind)
    if forced is not None and forced.applies(offered):
        return forced.name, forced.args(neutral)
    name = find_tool(kind, offered)
    if name is None:
        return None
    return name, build_args(kind, neutral, offered[name])
