"""AWS adapters of the ports (boto3, opensearch-py). Clients are injected by the composition root."""
