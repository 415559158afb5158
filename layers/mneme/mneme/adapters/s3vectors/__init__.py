"""The Amazon S3 Vectors memory store."""
