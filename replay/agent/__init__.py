"""The keyless agent loop: a minimal, real event-sourced loop that writes the
harness's log format. The model is a recorded log or a script, never a network
service; the tools run for real."""
