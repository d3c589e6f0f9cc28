"""The session browser's strings (``replay view PATH -o DIR``): every label of the
index, the session pages and the rule pages, in the same two locales as the page
(``en``, ``zh``), interpolated by the same ``interpolate``; and the formats of
times, durations and counts the pages show."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from replay.render.web.locale import interpolate, strings


@dataclass(frozen=True, slots=True)
class SiteStrings:
    """One locale's labels of the site."""

    # the index
    index_title: str
    col_log: str
    col_title: str
    col_start: str
    col_duration: str
    col_turns: str
    col_calls: str
    col_input: str
    col_output: str
    col_cache_read: str
    col_reasoning: str
    col_models: str
    col_children: str
    col_plan: str
    col_status: str
    col_findings: str
    col_tools: str
    failed_apart: str
    """A call count's failures: ``{failed} failed``."""
    plan_done: str
    """``{done}/{total} done``."""
    status_ok: str
    status_warnings: str
    status_errors: str
    status_unreadable: str
    filter_label: str
    only_errors: str
    only_warnings: str
    model_label: str
    model_any: str
    shown: str
    """``{shown} of {total} sessions``."""
    page_previous: str
    page_next: str
    page_position: str
    """``rows {first}–{last} of {total}``."""
    page_all: str
    more_without_script: str
    """Under the first rows when scripts do not run: ``{count}`` more sessions."""
    totals_label: str
    total_sessions: str
    total_events: str
    total_tokens: str
    total_errors: str
    total_warnings: str
    total_policy: str
    chart_rules: str
    chart_days: str
    chart_tokens: str
    chart_empty: str
    chart_more: str
    """Under a chart that leaves rules out: ``+{count} more rules``."""
    chart_severity_bar: str
    """``{rule}: {count} {severity}|…s``."""
    chart_rule_bar: str
    """A bar's spoken name: ``{rule}: {count} findings``."""
    chart_day_bar: str
    """``{day}: {count} sessions``."""
    chart_token_bar: str
    """``{low} to {high} tokens: {count} sessions``."""
    passed_over: str
    """``{count}`` paths passed over by the search (a FIFO, a link out of the folder).
    This template and the others with a ``|`` hold a form for one and a form for the
    rest (``replay.words.by_count``)."""
    # a session page
    back: str
    fact_log: str
    fact_id: str
    fact_cwd: str
    fact_created: str
    fact_generation: str
    fact_models: str
    fact_duration: str
    fact_turns: str
    fact_steps: str
    fact_calls: str
    fact_tokens: str
    fact_events: str
    fact_status: str
    fact_parent: str
    fact_children: str
    unknown: str
    no_time: str
    timing_title: str
    timing_durations: str
    timing_tokens: str
    timing_step_tokens: str
    """``{input} in · {output} out``."""
    timing_more: str
    """``+{count} more steps`` (not drawn)."""
    slowest_steps: str
    slowest_calls: str
    step_label: str
    """``Turn {turn} · step {step}``."""
    """A time of 0 (goldens and synthetic logs zero their times)."""
    tokens_line: str
    """``{input} in · {output} out · {cache_read} cache read · {reasoning} reasoning``."""
    cache_write: str
    """Appended when a log counts them: `` · {cache_write} cache write``."""
    calls_line: str
    """``{total} ({done} done, {failed} failed, {interrupted} interrupted, {pending} pending)``."""
    turn_head: str
    """``Turn {turn}``."""
    turn_stats: str
    """``started {start} · {duration} · {reason}``."""
    turn_open: str
    """A turn the log leaves open (no ``turn/end``)."""
    turn_end: str
    """``Turn {turn} ended: {reason} · {duration}``."""
    step_head: str
    step_end: str
    """``Step {step} ended · {latency}``."""
    step_failed_attempts: str
    """`` · {count} failed attempt(s)``."""
    child_link: str
    """``Child session: {name}``."""
    child_missing: str
    stream: str
    """``{count} stream events (seq {first}–{last})``."""
    not_an_event: str
    """``line {line}: not read as an event``."""
    replaced: str
    """A surface replacement (a model-only copy): its type and this note."""
    banner_refuse: str
    banner_repair: str
    banner_unread: str
    findings_title: str
    findings_errors: str
    """A page's findings heading counts them: ``{count} error|{count} errors``."""
    findings_warnings: str
    findings_policy: str
    no_findings: str
    finding_at: str
    """``line {line}``."""
    rule_link: str
    """The spoken name of a finding's rule link: ``What rule {rule} checks``."""
    search_label: str
    search_previous: str
    search_next: str
    search_count: str
    """``{index} of {total}``."""
    search_none: str
    errors_only: str
    tool_label: str
    tool_any: str
    log_events: str
    expand_all: str
    collapse_all: str
    help_button: str
    help_title: str
    help_close: str
    key_search: str
    key_turns: str
    key_matches: str
    key_help: str
    key_sort: str
    rules_title: str
    rule_page_title: str
    rule_kind: str
    """``a {kind} rule of the {domain} domain``."""
    rule_harness: str
    rule_breaking: str
    """``Sessions of this archive that break it ({count})``."""
    rule_none_here: str
    rule_terminal: str
    rule_sessions: str
    rule_findings: str
    """``{count} sessions``, ``{count} findings`` (in the rules' index)."""
    """``Rule {rule}``."""
    no_page: str
    """A page that could not be drafted: ``{why}``."""
    ms: str
    seconds: str
    minutes: str
    hours: str
    utc: str

    def status(self, status: str) -> str:
        return {"ok": self.status_ok, "warnings": self.status_warnings, "errors": self.status_errors}.get(
            status, self.status_unreadable)

    def duration(self, ms: int | None) -> str:
        """A duration as people read it: ``850 ms``, ``4.2 s``, ``3 min 05 s``, ``2 h 04 min``."""
        if ms is None:
            return self.unknown
        sign, ms = ("-", -ms) if ms < 0 else ("", ms)
        if ms < 1000:
            text = interpolate(self.ms, n=ms)
        elif ms < 60_000:
            text = interpolate(self.seconds, n=f"{ms / 1000:.1f}")
        elif ms < 3_600_000:
            text = interpolate(self.minutes, m=ms // 60_000, s=f"{ms // 1000 % 60:02d}")
        else:
            text = interpolate(self.hours, h=ms // 3_600_000, m=f"{ms // 60_000 % 60:02d}")
        return sign + text

    def time(self, ms: int | None) -> str:
        """An event time (milliseconds since the epoch) in UTC, to the second; a time
        that is not a clock's (``recorded``) is no time, not 1970."""
        if ms is None:
            return self.unknown
        if not recorded(ms):
            return self.no_time
        try:
            stamp = time.gmtime(ms // 1000)
        except (OverflowError, OSError, ValueError):
            return self.unknown
        return f"{time.strftime('%Y-%m-%d %H:%M:%S', stamp)} {self.utc}"


EPOCH_DAY = 86_400_000
"""Milliseconds of the epoch's first day: a time in it is a count from zero (goldens and
synthetic logs zero their times, or count them from 0 or 1), not a time of 1970."""


def recorded(ms: int | None) -> bool:
    """Whether ``ms`` is a time a clock recorded: known and past the epoch's first day
    (``EPOCH_DAY``; a time before it is a count from zero, before 1970 is no clock's)."""
    return ms is not None and ms >= EPOCH_DAY


def _utc(ms: int | None) -> datetime | None:
    if not recorded(ms):  # none, or a count from zero: no time recorded
        return None
    assert ms is not None
    try:
        return datetime.fromtimestamp(ms / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def day_of(ms: int | None) -> str | None:
    """The UTC day of an event time, ``YYYY-MM-DD`` (``None``: none, or out of range)."""
    stamp = _utc(ms)
    return None if stamp is None else f"{stamp:%Y-%m-%d}"


def count(n: int) -> str:
    """A count with thousands separators: ``12,345``."""
    return f"{n:,}"


SITE_EN = SiteStrings(
    index_title="Sessions",
    col_log="Log",
    col_title="Title",
    col_start="Started",
    col_duration="Duration",
    col_turns="Turns",
    col_calls="Tool calls",
    col_input="Input tokens",
    col_output="Output tokens",
    col_cache_read="Cache-read tokens",
    col_reasoning="Reasoning tokens",
    col_models="Models",
    col_children="Children",
    col_plan="Plan",
    col_status="Audit",
    col_findings="Findings",
    col_tools="Tools",
    failed_apart="{failed} failed",
    plan_done="{done}/{total} done",
    status_ok="ok",
    status_warnings="warnings",
    status_errors="errors",
    status_unreadable="unreadable",
    filter_label="Filter by log or title",
    only_errors="Only sessions with errors",
    only_warnings="Only sessions with warnings",
    model_label="Model",
    model_any="Any model",
    shown="{shown} of {total} sessions",
    page_previous="Previous rows",
    page_next="Next rows",
    page_position="rows {first}–{last} of {total}",
    page_all="Show all rows",
    more_without_script="{count} more session is listed when the page's script runs.|"
                        "{count} more sessions are listed when the page's script runs.",
    totals_label="Totals",
    total_sessions="sessions",
    total_events="events",
    total_tokens="tokens",
    total_errors="errors",
    total_warnings="warnings",
    total_policy="policy findings",
    chart_rules="Findings by rule",
    chart_days="Sessions per day (UTC)",
    chart_tokens="Tokens per session",
    chart_empty="Nothing to show",
    chart_more="+{count} more rule|+{count} more rules",
    chart_severity_bar="{rule}: {count} {severity}|{rule}: {count} {severity}s",
    chart_rule_bar="{rule}: {count} finding|{rule}: {count} findings",
    chart_day_bar="{day}: {count} session|{day}: {count} sessions",
    chart_token_bar="{low} to {high} tokens: {count} session|{low} to {high} tokens: {count} sessions",
    passed_over="{count} path was passed over by the search (a FIFO, a link out of the folder, …).|"
                "{count} paths were passed over by the search (a FIFO, a link out of the folder, …).",
    back="All sessions",
    fact_log="Log",
    fact_id="Session id",
    fact_cwd="Working directory",
    fact_created="Created",
    fact_generation="Harness generation",
    fact_models="Models",
    fact_duration="Duration",
    fact_turns="Turns",
    fact_steps="Steps",
    fact_calls="Tool calls",
    fact_tokens="Tokens",
    fact_events="Events",
    fact_status="Audit",
    fact_parent="Parent session",
    fact_children="Child sessions",
    unknown="—",
    no_time="no time recorded",
    timing_title="Where the time and the tokens went",
    timing_durations="Duration of each step",
    timing_tokens="Tokens of each step (in and out)",
    timing_step_tokens="{input} in · {output} out",
    timing_more="+{count} more step, not drawn|+{count} more steps, not drawn",
    slowest_steps="Slowest steps",
    slowest_calls="Slowest tool calls",
    step_label="Turn {turn} · step {step}",
    tokens_line="{input} in · {output} out · {cache_read} cache read · {reasoning} reasoning",
    cache_write=" · {cache_write} cache write",
    calls_line="{total} ({done} done, {failed} failed, {interrupted} interrupted, {pending} pending)",
    turn_head="Turn {turn}",
    turn_stats="started {start} · {duration} · {reason}",
    turn_open="left open",
    turn_end="Turn {turn} ended: {reason} · {duration}",
    step_head="Step {step}",
    step_end="Step {step} ended · {latency}",
    step_failed_attempts=" · {count} failed attempt| · {count} failed attempts",
    child_link="Child session: {name}",
    child_missing="its child session is not in this archive",
    stream="{count} stream event (seq {first}–{last})|{count} stream events (seq {first}–{last})",
    not_an_event="line {line}: not read as an event",
    replaced="surface replacement (a model-only copy)",
    banner_refuse="Today's harness would refuse to load this log.",
    banner_repair="Today's harness would load this log after repairing or migrating it.",
    banner_unread="replay could not read this log whole.",
    findings_title="Findings",
    findings_errors="{count} error|{count} errors",
    findings_warnings="{count} warning|{count} warnings",
    findings_policy="{count} policy finding|{count} policy findings",
    no_findings="No findings.",
    finding_at="line {line}",
    rule_link="What rule {rule} checks",
    search_label="Search this session",
    search_previous="Previous match",
    search_next="Next match",
    search_count="{index} of {total}",
    search_none="No match",
    errors_only="Errors only",
    tool_label="Tool",
    tool_any="Every tool",
    log_events="Log events",
    expand_all="Expand all",
    collapse_all="Collapse all",
    help_button="Keyboard shortcuts",
    help_title="Keyboard shortcuts",
    help_close="Close",
    key_search="search",
    key_turns="next / previous turn",
    key_matches="next / previous match",
    key_help="this help",
    key_sort="sort by a column",
    rules_title="Audit rules",
    rule_page_title="Rule {rule}",
    rule_kind="A {kind} rule of the {domain} domain.",
    rule_harness="What today's harness does",
    rule_breaking="Sessions of this archive that break it ({count})",
    rule_none_here="No session of this archive breaks it.",
    rule_terminal="As {command} prints it, with its example audited",
    rule_sessions="{count} session|{count} sessions",
    rule_findings="{count} finding|{count} findings",
    no_page="replay could not draft this page ({why}); the audit's findings are above.",
    ms="{n} ms",
    seconds="{n} s",
    minutes="{m} min {s} s",
    hours="{h} h {m} min",
    utc="UTC",
)

SITE_ZH = SiteStrings(
    index_title="会话",
    col_log="日志",
    col_title="标题",
    col_start="开始时间",
    col_duration="时长",
    col_turns="轮次",
    col_calls="工具调用",
    col_input="输入令牌",
    col_output="输出令牌",
    col_cache_read="缓存读取令牌",
    col_reasoning="推理令牌",
    col_models="模型",
    col_children="子会话",
    col_plan="计划",
    col_status="审计",
    col_findings="发现",
    col_tools="工具",
    failed_apart="{failed} 次失败",
    plan_done="已完成 {done}/{total}",
    status_ok="正常",
    status_warnings="警告",
    status_errors="错误",
    status_unreadable="无法读取",
    filter_label="按日志或标题筛选",
    only_errors="只看有错误的会话",
    only_warnings="只看有警告的会话",
    model_label="模型",
    model_any="任意模型",
    shown="显示 {shown} / {total} 个会话",
    page_previous="上一页",
    page_next="下一页",
    page_position="第 {first}–{last} 行，共 {total} 行",
    page_all="显示全部",
    more_without_script="页面脚本运行后会列出其余 {count} 个会话。",
    totals_label="合计",
    total_sessions="个会话",
    total_events="个事件",
    total_tokens="个令牌",
    total_errors="个错误",
    total_warnings="个警告",
    total_policy="个策略发现",
    chart_rules="各规则的发现数",
    chart_days="每天的会话数（UTC）",
    chart_tokens="每个会话的令牌数",
    chart_empty="没有可显示的内容",
    chart_more="另有 {count} 条规则",
    chart_severity_bar="{rule}：{count} 个 {severity}",
    chart_rule_bar="{rule}：{count} 个发现",
    chart_day_bar="{day}：{count} 个会话",
    chart_token_bar="{low} 至 {high} 个令牌：{count} 个会话",
    passed_over="搜索时跳过了 {count} 个路径（FIFO、指向文件夹之外的链接等）。",
    back="全部会话",
    fact_log="日志",
    fact_id="会话 ID",
    fact_cwd="工作目录",
    fact_created="创建时间",
    fact_generation="Harness 版本",
    fact_models="模型",
    fact_duration="时长",
    fact_turns="轮次",
    fact_steps="步骤",
    fact_calls="工具调用",
    fact_tokens="令牌",
    fact_events="事件",
    fact_status="审计",
    fact_parent="父会话",
    fact_children="子会话",
    unknown="—",
    no_time="未记录时间",
    timing_title="时间与令牌的去向",
    timing_durations="每个步骤的时长",
    timing_tokens="每个步骤的令牌（输入与输出）",
    timing_step_tokens="输入 {input} · 输出 {output}",
    timing_more="另有 {count} 个步骤未画出",
    slowest_steps="最慢的步骤",
    slowest_calls="最慢的工具调用",
    step_label="第 {turn} 轮 · 第 {step} 步",
    tokens_line="输入 {input} · 输出 {output} · 缓存读取 {cache_read} · 推理 {reasoning}",
    cache_write=" · 缓存写入 {cache_write}",
    calls_line="{total}（完成 {done}，失败 {failed}，中断 {interrupted}，等待中 {pending}）",
    turn_head="第 {turn} 轮",
    turn_stats="开始于 {start} · {duration} · {reason}",
    turn_open="未结束",
    turn_end="第 {turn} 轮结束：{reason} · {duration}",
    step_head="步骤 {step}",
    step_end="步骤 {step} 结束 · {latency}",
    step_failed_attempts=" · {count} 次失败的尝试",
    child_link="子会话：{name}",
    child_missing="它的子会话不在此归档中",
    stream="{count} 个流事件（seq {first}–{last}）",
    not_an_event="第 {line} 行：无法读作事件",
    replaced="界面替换（仅供模型的副本）",
    banner_refuse="现在的 harness 会拒绝加载此日志。",
    banner_repair="现在的 harness 会在修复或迁移后加载此日志。",
    banner_unread="replay 无法完整读取此日志。",
    findings_title="发现",
    findings_errors="{count} 个错误",
    findings_warnings="{count} 个警告",
    findings_policy="{count} 个策略发现",
    no_findings="没有发现。",
    finding_at="第 {line} 行",
    rule_link="规则 {rule} 检查什么",
    search_label="在此会话中搜索",
    search_previous="上一个匹配",
    search_next="下一个匹配",
    search_count="第 {index} / {total} 个",
    search_none="没有匹配",
    errors_only="只看错误",
    tool_label="工具",
    tool_any="全部工具",
    log_events="日志事件",
    expand_all="全部展开",
    collapse_all="全部折叠",
    help_button="键盘快捷键",
    help_title="键盘快捷键",
    help_close="关闭",
    key_search="搜索",
    key_turns="下一轮 / 上一轮",
    key_matches="下一个 / 上一个匹配",
    key_help="显示此帮助",
    key_sort="按某列排序",
    rules_title="审计规则",
    rule_page_title="规则 {rule}",
    rule_kind="{domain} 领域的 {kind} 规则。",
    rule_harness="当前 harness 的处理方式",
    rule_breaking="本存档中违反它的会话（{count}）",
    rule_none_here="本存档中没有会话违反它。",
    rule_terminal="{command} 的输出（含审计过的示例）",
    rule_sessions="{count} 个会话",
    rule_findings="{count} 个发现",
    no_page="replay 无法生成此页面（{why}）；审计的发现见上方。",
    ms="{n} 毫秒",
    seconds="{n} 秒",
    minutes="{m} 分 {s} 秒",
    hours="{h} 小时 {m} 分",
    utc="UTC",
)

_BY_LOCALE: Mapping[str, SiteStrings] = {"en": SITE_EN, "zh": SITE_ZH}


def site_strings(locale: str) -> SiteStrings:
    """The site strings of ``locale``; ``ValueError`` for a locale ``strings`` refuses."""
    strings(locale)
    return _BY_LOCALE[locale]
