"""The other AWS services: botocore session, timed calls, SQS, S3, Step Functions, Secrets Manager, Lambda, sockets."""
