"""Byte-exact output: JSON.stringify's text, and the goldens' normalization."""

from __future__ import annotations

from replay.jsjson import dumps, js_number, js_string
from replay.render.acp import dump_notification, normalize_line


def test_numbers_are_written_like_javascript() -> None:
    assert [js_number(v) for v in (1.0, -0.0, 0.1, 1e-7, 1e-6, 1.5e-6, 1e21, 1e20, 123e-20, 2**53, 2**60,
                                   -(2**64) - 1, 12345.6789, 5e-324, 1.7976931348623157e308)] == [
        "1", "0", "0.1", "1e-7", "0.000001", "0.0000015", "1e+21", "100000000000000000000", "1.23e-18",
        "9007199254740992", "1152921504606847000", "-18446744073709552000", "12345.6789", "5e-324",
        "1.7976931348623157e+308"]
    assert dumps([float("nan"), float("inf"), True, None, 3]) == "[null,null,true,null,3]"


def test_integer_like_keys_come_first_like_in_javascript_objects() -> None:
    assert dumps({"b": 1, "2": 2, "1": 3, "01": 4, "4294967294": 5, "4294967295": 6, "a": 7}) == (
        '{"1":3,"2":2,"4294967294":5,"b":1,"01":4,"4294967295":6,"a":7}')


def test_template_interpolation() -> None:
    assert [js_string(v) for v in ("x", None, True, 2.0, [1, None, "a"], {"a": 1})] == [
        "x", "null", "true", "2", "1,,a", "[object Object]"]


def test_dump_notification_is_compact_and_ordered() -> None:
    frame = {"jsonrpc": "2.0", "method": "session/update",
             "params": {"sessionId": "s", "update": {"sessionUpdate": "plan", "entries": []}}}
    assert dump_notification(frame) == (
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":'
        '{"sessionUpdate":"plan","entries":[]}}}')


def test_normalization_like_the_goldens() -> None:
    line = dump_notification({"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": "b0f1f758-dcf0-474e-851d-e62c11ec0a09", "update": {
            "sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "completed", "content": [
                {"type": "content", "content": {"type": "text", "text":
                    "<path>/private/tmp/w/a.txt</path> /tmp/w-backup /tmp/w "
                    "(Omitted 9 bytes. Full formatted result stored at: "
                    "/tmp/dsh-acp-snap-ee77dff02/session-fbfcf2f560a0/1bddd2b64176-bash.txt. Use read with "
                    "offset/limit) {{cwd}}/.spill/session-0123456789ab/0123456789ab-grep.txt "
                    "id 3F2504E0-4F89-11D3-9A0C-0305E82C3301"}}]}}})
    assert normalize_line(line, cwd="/tmp/w", session_id="b0f1f758-dcf0-474e-851d-e62c11ec0a09") == (
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{sessionId}}","update":'
        '{"sessionUpdate":"tool_call_update","toolCallId":"c","status":"completed","content":[{"type":"content",'
        '"content":{"type":"text","text":"<path>{{cwd}}/a.txt</path> {{cwd}}-backup {{cwd}} (Omitted 9 bytes. '
        'Full formatted result stored at: {{spillLocator:bash.txt}}. Use read with offset/limit) '
        '{{spillLocator:grep.txt}} id {{sessionId}}"}}]}}}')


def test_updated_at_is_tokenized_only_in_session_info_updates() -> None:
    info = ('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x","update":'
            '{"sessionUpdate":"session_info_update","title":"t","updatedAt":"2026-07-06T15:34:19.100Z"}}}')
    assert normalize_line(info, cwd=None, session_id="x") == (
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{sessionId}}","update":'
        '{"sessionUpdate":"session_info_update","title":"t","updatedAt":"{{updatedAt}}"}}}')
    other = ('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x","update":'
             '{"sessionUpdate":"tool_call","toolCallId":"c","title":"t","kind":"other","status":"in_progress",'
             '"rawInput":{"updatedAt":"2026"}}}}')
    assert normalize_line(other, cwd=None, session_id=None) == other
