"""Privacy in the template: the private export bucket and its lifecycle, the privacy function behind its queue
with its hourly purge, who may touch the archives and the dead letters, and the retention parameters."""

from __future__ import annotations

import json
from typing import Any

from tests.support.sam_template import as_list, load_template, policy_statements, references, resources

CLASSES = ("Episodic", "Semantic", "Preference", "Procedural", "Document")


def _props(name: str) -> dict[str, Any]:
    props: dict[str, Any] = resources()[name]["Properties"]
    return props


def test_the_export_bucket_is_private_encrypted_and_unversioned() -> None:
    bucket = _props("ExportBucket")
    assert bucket["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert bucket["OwnershipControls"] == {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]}
    [rule] = bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert rule["ServerSideEncryptionByDefault"]["SSEAlgorithm"] in ("AES256", "aws:kms")
    assert "VersioningConfiguration" not in bucket  # an erasure's delete must not leave a version behind


def test_export_archives_expire_after_the_export_retention() -> None:
    [rule] = _props("ExportBucket")["LifecycleConfiguration"]["Rules"]
    assert rule["Status"] == "Enabled" and rule["Prefix"] == "exports/"
    assert rule["ExpirationInDays"] == {"Ref": "ExportRetentionDays"}
    assert rule["AbortIncompleteMultipartUpload"] == {"DaysAfterInitiation": 1}
    parameter = load_template()["Parameters"]["ExportRetentionDays"]
    assert parameter["MinValue"] >= 1  # S3 lifecycle expirations are whole days, at least one


def test_the_bucket_refuses_every_request_without_tls() -> None:
    policy = _props("ExportBucketPolicy")
    assert policy["Bucket"] == {"Ref": "ExportBucket"}
    [statement] = policy["PolicyDocument"]["Statement"]
    assert (statement["Effect"], statement["Principal"], statement["Action"]) == ("Deny", "*", "s3:*")
    assert statement["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    assert references(statement["Resource"]) == {"ExportBucket"}


def test_only_the_privacy_function_writes_or_deletes_archives_and_the_run_function_only_reads_them() -> None:
    grants: dict[str, set[str]] = {}
    for name, res in resources().items():
        if res["Type"] not in ("AWS::Serverless::Function", "AWS::Serverless::StateMachine"):
            continue
        for statement in policy_statements(name):
            if "ExportBucket" in references(statement["Resource"]):
                grants.setdefault(name, set()).update(as_list(statement["Action"]))
    privacy = {"s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload", "s3:ListBucket"}
    assert grants == {"RunFunction": {"s3:GetObject"}, "PrivacyFunction": privacy | {"s3:ListBucketMultipartUploads"}}


def test_the_privacy_function_lists_and_aborts_only_under_the_export_prefix() -> None:
    """An erasure lists the user's prefix (archives and uploads in progress), aborts and deletes under it."""
    statements = {s.get("Sid"): s for s in policy_statements("PrivacyFunction")}
    listing = statements["ListExports"]
    assert listing["Action"] == "s3:ListBucket" and listing["Resource"] == {"Fn::GetAtt": ["ExportBucket", "Arn"]}
    assert listing["Condition"] == {"StringLike": {"s3:prefix": "exports/*"}}
    assert statements["ListExportUploads"]["Action"] == "s3:ListBucketMultipartUploads"
    writes = statements["WriteAndDeleteExports"]
    assert "s3:AbortMultipartUpload" in writes["Action"]
    assert writes["Resource"] == {"Fn::Sub": "${ExportBucket.Arn}/exports/*"}


def test_only_the_privacy_function_may_take_messages_off_the_memory_dead_letter_queue() -> None:
    readers = {
        name
        for name, res in resources().items()
        if res["Type"] == "AWS::Serverless::Function"
        for statement in policy_statements(name)
        if "MemoryDLQ" in references(statement["Resource"])
    }
    assert readers == {"PrivacyFunction"}


def test_the_privacy_function_consumes_its_queue_one_job_at_a_time_and_purges_hourly() -> None:
    function = _props("PrivacyFunction")
    queue = _props("PrivacyQueue")
    assert queue["VisibilityTimeout"] >= 6 * function["Timeout"]
    assert queue["RedrivePolicy"]["deadLetterTargetArn"] == {"Fn::GetAtt": ["PrivacyDLQ", "Arn"]}
    jobs = function["Events"]["PrivacyJobs"]
    assert jobs["Type"] == "SQS" and jobs["Properties"]["BatchSize"] == 1
    assert jobs["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    purge = function["Events"]["PurgeExpiredMemories"]
    assert purge["Type"] == "ScheduleV2" and json.loads(purge["Properties"]["Input"]) == {"action": "purge"}
    assert function["Timeout"] == 900 and function["EphemeralStorage"]["Size"] >= 1024


def test_the_writer_reads_only_the_erasure_tombstones_of_the_main_table() -> None:
    [statement] = [s for s in policy_statements("WriterFunction") if s["Sid"] == "ReadErasureTombstones"]
    assert statement["Condition"] == {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["ERASURE#*"]}}


def test_the_memory_retention_by_class_reaches_every_function() -> None:
    variables = load_template()["Globals"]["Function"]["Environment"]["Variables"]
    for memory_class in CLASSES:
        parameter = f"RetentionDaysMemory{memory_class}"
        assert load_template()["Parameters"][parameter]["Default"] == 0
        assert variables[f"MNEME_RETENTION_DAYS_MEMORY_{memory_class.upper()}"] == {"Ref": parameter}


def test_the_run_function_hands_privacy_jobs_to_the_privacy_queue() -> None:
    env = _props("RunFunction")["Environment"]["Variables"]
    assert env["MNEME_PRIVACY_QUEUE_URL"] == {"Ref": "PrivacyQueue"}
    assert env["MNEME_EXPORT_BUCKET"] == {"Ref": "ExportBucket"}
    privacy = _props("PrivacyFunction")["Environment"]["Variables"]
    assert privacy["MNEME_MEMORY_DLQ_URL"] == {"Ref": "MemoryDLQ"}
