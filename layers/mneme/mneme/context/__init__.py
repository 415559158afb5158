"""Context assembly (SPEC §3, §4): the exact model request from configuration, history and memory hits."""
