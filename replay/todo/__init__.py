"""The todo domain, whole: the item model, its invariants (T1–T5), the policy
what-if (P1) and the standing-plan fold."""
