"""Formatters: the same findings as text, JSON, GitHub annotations (and JUnit)."""
