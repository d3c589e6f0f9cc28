"""Reporters: the same result data (audits, checks, refreshes, conformance runs, the
rule registry) as text, JSON, GitHub annotations and JUnit XML. ``base`` is the
lifecycle every reporter follows, ``registry`` the formats the CLI offers."""
