"""The todo domain, whole: the item model, its invariants (the T rules), the policy
what-if (P1) and the standing-plan fold."""
