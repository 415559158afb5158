"""The DynamoDB-shaped stores over an item table (main and audit tables), and the DynamoDB backend."""
