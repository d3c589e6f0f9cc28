"""The rule engine: findings per log, every rule owned by its domain."""
