"""The HTTP API (SPEC §10) on the Powertools HTTP resolver: routes, validation, the one error mapping."""
