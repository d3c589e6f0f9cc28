"""The request/header: it names its provider and model (C3)."""

from __future__ import annotations

from replay.checker import event_error
from replay.findings import Example, Finding, Rule
from replay.log.event import Event
from replay.log.values import is_nonempty_str
from replay.output import show

C3 = Rule(
    "C3", "format", "session", "each request/header names its provider and model",
    explanation="""
        A request/header records what the model was asked with: its config names a non-empty provider
        and model, a reasoningEffort (when set) is a non-empty string, and adapterDefaults may only
        mark reasoningEffort or maxTokens as true, each also set in the config.""",
    examples=[
        Example(
            "a request/header without a model", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"request/header","seq":1,"time":0,"data":{"header":{"config":{"provider":"deepseek-official"}},"reason":"initial"}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: C3 error: request/header does not name the model: config.provider and config.model must be non-empty strings
                """),  # noqa: E501
        Example(
            "an empty provider", bad_line=3,
            log="""
                {"type":"session","version":0,"id":"s1","createdAt":0,"cwd":"/work","delegationDepth":0}
                {"type":"turn/start","seq":0,"time":0,"data":{"turn":1}}
                {"type":"request/header","seq":1,"time":0,"data":{"header":{"config":{"provider":"","model":"m"}},"reason":"initial"}}
                {"type":"turn/end","seq":2,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
                """,
            audit="""
                line 3: C3 error: request/header does not name the model: config.provider and config.model must be non-empty strings
                """),  # noqa: E501
    ],
    harness="""Refuses the log: the request/header "lacks provider/model".""",
)

_ADAPTER_KEYS = frozenset({"reasoningEffort", "maxTokens"})


def header_problems(ev: Event, out: list[Finding]) -> None:
    """C3: what the request/header's config and adapterDefaults must say."""
    data = ev.data
    header = data.get("header") if isinstance(data, dict) else None
    config = header.get("config") if isinstance(header, dict) else None
    prefix = "request/header "
    if not isinstance(config, dict) or not is_nonempty_str(config.get("provider")) \
            or not is_nonempty_str(config.get("model")):
        out.append(event_error(C3, ev, prefix + "does not name the model: config.provider and config.model "
                          "must be non-empty strings"))
        return
    if "reasoningEffort" in config and not is_nonempty_str(config["reasoningEffort"]):
        out.append(event_error(C3, ev, prefix + "has a config.reasoningEffort that is not a non-empty string: "
                          f"{show(config['reasoningEffort'])}"))
    if isinstance(header, dict) and "adapterDefaults" in header:
        defaults = header["adapterDefaults"]
        ok = isinstance(defaults, dict) and defaults.keys() <= _ADAPTER_KEYS and all(
            v is True and k in config for k, v in defaults.items())
        if not ok:
            out.append(event_error(C3, ev, prefix + f"has adapterDefaults {show(defaults)}, but they may only "
                              "mark reasoningEffort or maxTokens as true, each set in the config"))
