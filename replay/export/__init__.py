"""``replay export``: the sessions an audit reads, as tables (Parquet files or a DuckDB
database) and as OpenTelemetry traces."""
