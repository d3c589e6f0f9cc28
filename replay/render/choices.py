"""The choices a rendering takes, named once: the generations of the harness's ACP agent
a stream is rendered as (``replay.render.acp.profiles`` says what each is), and the
web renderer's locales (``replay.render.web.locale`` holds their strings). A leaf: the
command line reads its choice lists here without loading the renderers."""

from __future__ import annotations

from typing import Literal, get_args

Profile = Literal["2026-07", "2026-08"]
PROFILE_NAMES: tuple[Profile, ...] = get_args(Profile)
DEFAULT_PROFILE: Profile = "2026-07"

Locale = Literal["en", "zh"]
LOCALES: tuple[Locale, ...] = get_args(Locale)
DEFAULT_LOCALE: Locale = "en"

Surface = Literal["acp", "stdio", "web"]
SURFACES: tuple[Surface, ...] = get_args(Surface)
"""What ``replay render`` renders a log as."""
