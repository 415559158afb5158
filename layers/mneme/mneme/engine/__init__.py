"""The run engine (SPEC §3–§10): orchestration over the ports. It knows no boto3."""
