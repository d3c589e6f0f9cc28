"""Folds over events: the surface/message history, tool calls and their results."""
