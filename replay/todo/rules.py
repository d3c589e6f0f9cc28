"""Todo rules: the durable invariant, the T rules (config-independent: it never counts
``in_progress`` items), and the policy what-if P1, kept apart from it."""

from __future__ import annotations

from typing import Any

from replay.checker import Checker, Found
from replay.findings import Example, Rule, Severity
from replay.log.event import Event
from replay.output import show
from replay.todo.model import STATUSES, js_trim

T1 = Rule(
    "T1", "invariant", "todo", "todo/write's todos is a list",
    explanation="""A todo/write records the model's whole task list: its "todos" is a list of items.""",
    examples=[
        Example(
            "todos a string", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"todo/write","seq":1,"time":0,"data":{"todos":"read the code"}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: T1 error: todo/write "todos" must be a list of items, got "read the code"
                """),
        Example(
            "todos an object: nothing else is judged", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"todo/write","seq":1,"time":0,"data":{"todos":{"content":" x","status":"done"}}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: T1 error: todo/write "todos" must be a list of items, got {"content":" x","status":"done"}
                """),
    ],
    harness="""
        Loads the log and shows the plan as written. The todo tool never writes such a record; a
        development build with the todo invariant on refuses it when it is appended (the invariant
        does not re-check the history of a resumed session).""",
)

T2 = Rule(
    "T2", "invariant", "todo", "every todo item is an object",
    explanation="""
        Every item of a todo/write is an object ({"content": …, "status": …}). A JSON array passes
        this test, as it does in JavaScript, and then fails T3 and T5.""",
    examples=[
        Example(
            "an item that is a number", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"todo/write","seq":1,"time":0,"data":{"todos":[42]}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: T2 error: every todo/write item must be an object: todos[0] is 42
                """),
    ],
    harness="""
        Loads the log and shows the plan as written; a development build with the todo invariant on
        refuses such a record when it is appended.""",
)

T3 = Rule(
    "T3", "invariant", "todo", "every todo item's content is non-empty and already trimmed (JavaScript's trim)",
    explanation="""
        Every item's "content" is a non-empty string that is already trimmed, by JavaScript's trim:
        U+FEFF counts as whitespace, U+001C does not. The todo tool trims content before it writes it,
        so untrimmed content means the record did not come from the tool.""",
    examples=[
        Example(
            "content with a leading space", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"todo/write","seq":1,"time":0,"data":{"todos":[{"content":" read the code","status":"pending"}]}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,  # noqa: E501
            audit="""
                line 3: T3 error: every todo/write item needs non-empty, already trimmed content: todos[0] has leading or trailing whitespace in " read the code"
                """),  # noqa: E501
        Example(
            "content starting with U+FEFF (JavaScript's trim strips it)", bad_line=3,
            log=r"""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"todo/write","seq":1,"time":0,"data":{"todos":[{"content":"\ufeffread the code","status":"pending"}]}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,  # noqa: E501
            audit="""
                line 3: T3 error: every todo/write item needs non-empty, already trimmed content: todos[0] has leading or trailing whitespace in "\ufeffread the code"
                """),  # noqa: E501
    ],
    harness="""
        Loads the log and shows the item as written; a development build with the todo invariant on
        refuses such a record when it is appended.""",
)

T4 = Rule(
    "T4", "invariant", "todo", "no two todo items have the same content",
    explanation="""No two items of one todo/write have the same content (compared exactly, case included).""",
    examples=[
        Example(
            "the same content twice", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"todo/write","seq":1,"time":0,"data":{"todos":[{"content":"fix","status":"pending"},{"content":"fix","status":"completed"}]}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: T4 error: todo/write items must not repeat a content: "fix" (todos[0] and todos[1])
                """),
    ],
    harness="""
        Loads the log and shows both items; a development build with the todo invariant on refuses
        such a record when it is appended.""",
)

T5 = Rule(
    "T5", "invariant", "todo", "every todo item's status is pending, in_progress or completed",
    explanation="""
        Every item's "status" is "pending", "in_progress" or "completed". How many items are in
        progress is not an invariant (see P1).""",
    examples=[
        Example(
            "an unknown status", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"todo/write","seq":1,"time":0,"data":{"todos":[{"content":"fix","status":"done"}]}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: T5 error: a todo/write status must be pending, in_progress or completed: todos[0] has "done"
                """),
        Example(
            "many unknown statuses: the first five named", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"todo/write","seq":1,"time":0,"data":{"todos":[{"content":"task 0","status":"later"},{"content":"task 1","status":"later"},{"content":"task 2","status":"later"},{"content":"task 3","status":"later"},{"content":"task 4","status":"later"},{"content":"task 5","status":"later"},{"content":"task 6","status":"later"},{"content":"task 7","status":"later"}]}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,  # noqa: E501
            audit="""
                line 3: T5 error: a todo/write status must be pending, in_progress or completed: todos[0] has "later", todos[1] has "later", todos[2] has "later", todos[3] has "later", todos[4] has "later" and 3 more
                """),  # noqa: E501
    ],
    harness="""
        Loads the log and shows the item as written; a development build with the todo invariant on
        refuses such a record when it is appended.""",
)

P1 = Rule(
    "P1", "policy", "todo", "what-if: a one-in-progress deployment would have refused this todo/write",
    explanation="""
        A what-if, not an invariant: with --policy single, the audit reports each todo/write with more
        than one item in progress, which a deployment whose todo tool sets
        allowParallelInProgress=false would have refused. Logs written under a permissive policy stay
        valid after the policy is tightened.""",
    examples=[
        Example(
            "two items in progress", bad_line=3, policy="single",
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"todo/write","seq":1,"time":0,"data":{"todos":[{"content":"read","status":"in_progress"},{"content":"build","status":"in_progress"}]}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: P1 policy: 2 todo items are in_progress ("read", "build"): a deployment whose todo tool sets allowParallelInProgress=false would have refused this call
                """),  # noqa: E501
    ],
    harness="""
        Loads the log. Under such a policy the todo tool would have answered the call with an error
        result and written no todo/write.""",
)


_INTEREST = frozenset({"todo/write"})


MAX_LISTED = 5
"""Items a todo finding names before it says how many more there are."""


def _listed(parts: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``; past ``MAX_LISTED``, ``… and N more``."""
    shown = parts[:MAX_LISTED]
    more = len(parts) - len(shown)
    if more:
        return f"{', '.join(shown)} and {more} more"
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def todo_problems(todos: Any) -> list[tuple[Rule, str]]:
    """Every T-rule a ``todos`` value breaks, each rule once, as ``(rule, message)``
    in rule order; each message names every offending item (``todos[2]``).

    The harness stops at its first failure; the audit reports them all, so that
    fixing one problem never uncovers another. An item that is not an object (T2) is
    not judged further; a JSON array item passes T2 as it does in JavaScript and
    then has no content (T3) and no status (T5). Repeats (T4) are judged among the
    contents that pass T3.
    """
    if not isinstance(todos, list):
        return [(T1, f'todo/write "todos" must be a list of items, got {show(todos)}')]
    not_objects: list[str] = []
    bad_content: list[str] = []
    bad_status: list[str] = []
    first_of: dict[str, int] = {}
    repeats: dict[str, list[int]] = {}
    for i, item in enumerate(todos):
        if not isinstance(item, dict | list):
            not_objects.append(f"todos[{i}] is {show(item)}")
            continue
        content = item.get("content") if isinstance(item, dict) else None
        if not isinstance(content, str):
            bad_content.append(f"todos[{i}] has no text content ({show(content)})")
        elif content == "":
            bad_content.append(f"todos[{i}] has empty content")
        elif js_trim(content) != content:
            bad_content.append(f"todos[{i}] has leading or trailing whitespace in {show(content)}")
        elif content in first_of:
            repeats.setdefault(content, [first_of[content]]).append(i)
        else:
            first_of[content] = i
        status = item.get("status") if isinstance(item, dict) else None
        if status not in STATUSES:
            bad_status.append(f"todos[{i}] has {show(status)}")
    found: list[tuple[Rule, str]] = []
    if not_objects:
        found.append((T2, f"every todo/write item must be an object: {_listed(not_objects)}"))
    if bad_content:
        found.append((T3, f"every todo/write item needs non-empty, already trimmed content: {_listed(bad_content)}"))
    if repeats:
        dups = [f"{show(c)} (" + _listed([f"todos[{i}]" for i in where]) + ")" for c, where in repeats.items()]
        found.append((T4, f"todo/write items must not repeat a content: {_listed(dups)}"))
    if bad_status:
        found.append((T5, f"a todo/write status must be pending, in_progress or completed: {_listed(bad_status)}"))
    return found


def _todos(ev: Event) -> Any:
    data = ev.data
    return data.get("todos") if isinstance(data, dict) else None


class TodoChecker(Checker):
    """The T rules on every ``todo/write``: every rule that applies, each once."""

    interest = _INTEREST

    def event(self, ev: Event) -> Found:
        problems = todo_problems(_todos(ev))
        if not problems:
            return None
        return [rule.error(message, ev.line, ev.seq, ev.type) for rule, message in problems]


class SingleActivePolicy(Checker):
    """P1: what a deployment with ``allowParallelInProgress=false`` would have refused."""

    interest = _INTEREST

    def event(self, ev: Event) -> Found:
        todos = _todos(ev)
        if not isinstance(todos, list):
            return None
        active = [t.get("content") for t in todos if isinstance(t, dict) and t.get("status") == "in_progress"]
        if len(active) <= 1:
            return None
        return [P1.finding(Severity.POLICY,
                           f"{len(active)} todo items are in_progress ({', '.join(show(a) for a in active)}): a "
                           "deployment whose todo tool sets allowParallelInProgress=false would have refused "
                           "this call",
                           ev.line, ev.seq, ev.type)]
