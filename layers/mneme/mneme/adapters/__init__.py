"""AWS adapters of the ports (botocore; OpenSearch through botocore-signed HTTP).

Clients are injected by the composition root."""
