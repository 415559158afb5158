"""Memory rules (SPEC §5): namespaces, the security filter, policies, ranking and auto-write."""
