"""The ports: every external system mneme talks to, as a small Protocol, one module per concern."""
