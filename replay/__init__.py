"""replay: load, audit, replay and snapshot-test deepseek-harness session logs."""

__version__ = "0.1.0"
