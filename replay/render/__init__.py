"""Renderers: pure functions from events to what a surface shows (acp, stdio, web)."""
