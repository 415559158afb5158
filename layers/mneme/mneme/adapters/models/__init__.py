"""The model clients: Bedrock, OpenAI-compatible, offline; the registry, the summarizer and the traced wrapper."""
