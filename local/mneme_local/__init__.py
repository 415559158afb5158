"""Embedded local twins of the AWS adapters (never shipped to Lambda)."""
