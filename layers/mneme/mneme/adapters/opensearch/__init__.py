"""The OpenSearch k-NN memory store over a botocore-signed HTTP client."""
