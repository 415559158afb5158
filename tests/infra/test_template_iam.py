"""Least privilege: every IAM statement the template writes, its actions and its resources."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.sam_template import (
    as_list,
    load_template,
    policy_statements,
    policy_templates,
    references,
    resources,
    sub_text,
)

MACHINE_ARN = "arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:stateMachine:${AWS::StackName}-agent-run"
EXECUTIONS_ARN = "arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:execution:${AWS::StackName}-agent-run:*"
LIVE_CONNECTIONS_ARN = (
    "arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${LiveApi}/live/POST/@connections/*"
)
SYNC_RULE = "StepFunctionsGetEventsForStepFunctionsExecutionRule"
SYNC_RULE_ARN = "arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:rule/" + SYNC_RULE
MODEL_ACTIONS = {"bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"}
DOMAIN_ACTIONS = {"es:ESHttpGet", "es:ESHttpHead", "es:ESHttpPost", "es:ESHttpPut", "es:ESHttpDelete"}
COLLECTION = {"Fn::GetAtt": ["MemoryCollection", "Arn"]}
EXPORTS = "${ExportBucket.Arn}/exports/*"
#: appending to a user's audit chain: the records and the head (PutItem), the head read, the records a retry
#: stored already (never UpdateItem or DeleteItem: records change only by an erasure's redaction, a PutItem)
AUDIT_CHAIN = {"dynamodb:PutItem", "dynamodb:GetItem", "dynamodb:BatchGetItem"}

# Actions AWS authorizes only on "*" (no resource-level permissions exist for them).
STAR_ONLY = {
    # reranking: the Bedrock user guide's rerank-prereq policy grants bedrock:Rerank on "*" (the model itself is
    # invoked under bedrock:InvokeModel, scoped to foundation models)
    "bedrock:Rerank",
    # task tokens are not resources
    "states:SendTaskSuccess",
    "states:SendTaskFailure",
    # X-Ray and CloudWatch metrics
    "xray:PutTraceSegments",
    "xray:PutTelemetryRecords",
    "xray:GetSamplingRules",
    "xray:GetSamplingTargets",
    "cloudwatch:PutMetricData",
    # CloudWatch Logs log delivery of Step Functions (the state machine's Logging)
    "logs:CreateLogDelivery",
    "logs:GetLogDelivery",
    "logs:UpdateLogDelivery",
    "logs:DeleteLogDelivery",
    "logs:ListLogDeliveries",
    "logs:PutResourcePolicy",
    "logs:DescribeResourcePolicies",
    "logs:DescribeLogGroups",
    # AWS Marketplace subscriptions (no resource types; Subscribe alone has a condition key, used below)
    "aws-marketplace:Subscribe",
    "aws-marketplace:Unsubscribe",
    "aws-marketplace:ViewSubscriptions",
}

# Sid -> (actions, resources as written; Fn::Sub shown by its template string)
EXPECTED: dict[str, dict[str, tuple[set[str], list[Any]]]] = {
    "RunFunction": {
        "AuditAppendAndQuery": (
            AUDIT_CHAIN | {"dynamodb:Query"},
            [{"Fn::GetAtt": ["AuditTable", "Arn"]}, "${AuditTable.Arn}/index/*"],
        ),
        "PresignExportDownloads": ({"s3:GetObject"}, [EXPORTS]),
        "StartAgentRun": ({"states:StartExecution"}, [MACHINE_ARN]),
        "StopAgentRuns": ({"states:DescribeExecution", "states:StopExecution"}, [EXECUTIONS_ARN]),
        "PushToLiveConnections": ({"execute-api:ManageConnections"}, [LIVE_CONNECTIONS_ARN]),
        "AnswerApprovalTokens": ({"states:SendTaskSuccess", "states:SendTaskFailure"}, ["*"]),
        "BedrockInvokeInRegion": (
            MODEL_ACTIONS,
            [
                "arn:${AWS::Partition}:bedrock:${AWS::Region}::foundation-model/*",
                "arn:${AWS::Partition}:bedrock:${AWS::Region}:${AWS::AccountId}:inference-profile/*",
                "arn:${AWS::Partition}:bedrock:${AWS::Region}:${AWS::AccountId}:application-inference-profile/*",
            ],
        ),
        "BedrockInvokeThroughInferenceProfiles": (
            MODEL_ACTIONS,
            ["arn:${AWS::Partition}:bedrock:*::foundation-model/*"],
        ),
        "SubscribeToNamedModels": ({"aws-marketplace:Subscribe"}, ["*"]),
        "ModelSubscriptions": ({"aws-marketplace:Unsubscribe", "aws-marketplace:ViewSubscriptions"}, ["*"]),
        "InvokeExternalTools": (
            {"lambda:InvokeFunction"},
            ["arn:${AWS::Partition}:lambda:${AWS::Region}:${AWS::AccountId}:function:${ToolFunctionNamePrefix}*"],
        ),
        "ApplyGuardrails": ({"bedrock:ApplyGuardrail"}, [{"Ref": "GuardrailArns"}]),
        "RerankMemory": ({"bedrock:Rerank"}, ["*"]),  # Rerank has no resource type
        "ReadModelApiKeys": ({"secretsmanager:GetSecretValue"}, [{"Ref": "OpenAIApiKeySecretArns"}]),
        "ReadMcpSecrets": (
            {"secretsmanager:GetSecretValue"},
            ["arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:${AWS::StackName}/mcp/*"],
        ),
        "MemoryCollection": ({"aoss:APIAccessAll"}, [COLLECTION]),
        "ExistingMemoryCollection": ({"aoss:APIAccessAll"}, [{"Ref": "OpenSearchResourceArn"}]),
        "ExistingMemoryDomain": (DOMAIN_ACTIONS, ["${OpenSearchResourceArn}/*"]),
        # issue 32: MemoryBackend=s3vectors, this function's vector actions on the stack's index only
        "MemoryVectorIndex": (
            {
                "s3vectors:QueryVectors",
                "s3vectors:GetVectors",
                "s3vectors:ListVectors",
                "s3vectors:PutVectors",
                "s3vectors:DeleteVectors",
            },
            [{"Ref": "MemoryVectorIndex"}],
        ),
    },
    "WriterFunction": {
        "AuditAppend": (AUDIT_CHAIN, [{"Fn::GetAtt": ["AuditTable", "Arn"]}]),
        "ReadErasureTombstones": (
            {"dynamodb:GetItem", "dynamodb:BatchGetItem"},
            [{"Fn::GetAtt": ["MainTable", "Arn"]}],
        ),
        "BedrockEmbed": (
            {"bedrock:InvokeModel"},
            ["arn:${AWS::Partition}:bedrock:${AWS::Region}::foundation-model/${EmbeddingModelId}"],
        ),
        "BedrockExtractInRegion": (
            {"bedrock:InvokeModel"},
            [
                "arn:${AWS::Partition}:bedrock:${AWS::Region}::foundation-model/*",
                "arn:${AWS::Partition}:bedrock:${AWS::Region}:${AWS::AccountId}:inference-profile/*",
            ],
        ),
        "BedrockExtractThroughInferenceProfiles": (
            {"bedrock:InvokeModel"},
            ["arn:${AWS::Partition}:bedrock:*::foundation-model/*"],
        ),
        # issue 31 (AWS review): the writer's main-table statements are each limited to their key prefixes
        "MemoryJournal": (
            {"dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:Query"},
            [{"Fn::GetAtt": ["MainTable", "Arn"]}],
        ),
        # issue 35.3: the revisions of what it writes, appended only
        "MemoryRevisions": ({"dynamodb:BatchWriteItem"}, [{"Fn::GetAtt": ["MainTable", "Arn"]}]),
        "ChargeRunUsage": ({"dynamodb:GetItem", "dynamodb:PutItem"}, [{"Fn::GetAtt": ["MainTable", "Arn"]}]),
        "MemoryCollection": ({"aoss:APIAccessAll"}, [COLLECTION]),
        "ExistingMemoryCollection": ({"aoss:APIAccessAll"}, [{"Ref": "OpenSearchResourceArn"}]),
        "ExistingMemoryDomain": (DOMAIN_ACTIONS, ["${OpenSearchResourceArn}/*"]),
        # issue 32: MemoryBackend=s3vectors, this function's vector actions on the stack's index only
        "MemoryVectorIndex": (
            {"s3vectors:QueryVectors", "s3vectors:GetVectors", "s3vectors:PutVectors"},
            [{"Ref": "MemoryVectorIndex"}],
        ),
        # issue 31.2: extraction with an openai-compatible agent's model reads its key, the allowlist only
        "ReadModelApiKeys": ({"secretsmanager:GetSecretValue"}, [{"Ref": "OpenAIApiKeySecretArns"}]),
    },
    "PrivacyFunction": {
        "AuditChainAndRedact": (
            AUDIT_CHAIN | {"dynamodb:Query"},
            [{"Fn::GetAtt": ["AuditTable", "Arn"]}, "${AuditTable.Arn}/index/*"],
        ),
        "WriteAndDeleteExports": ({"s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"}, [EXPORTS]),
        # issue 31.7: an erasure lists the user's prefix (the ListBucket statement carries an s3:prefix condition)
        "ListExports": ({"s3:ListBucket"}, [{"Fn::GetAtt": ["ExportBucket", "Arn"]}]),
        "ListExportUploads": ({"s3:ListBucketMultipartUploads"}, [{"Fn::GetAtt": ["ExportBucket", "Arn"]}]),
        "PurgeDeadLetters": ({"sqs:ReceiveMessage", "sqs:DeleteMessage"}, [{"Fn::GetAtt": ["MemoryDLQ", "Arn"]}]),
        "MemoryCollection": ({"aoss:APIAccessAll"}, [COLLECTION]),
        "ExistingMemoryCollection": ({"aoss:APIAccessAll"}, [{"Ref": "OpenSearchResourceArn"}]),
        "ExistingMemoryDomain": (DOMAIN_ACTIONS, ["${OpenSearchResourceArn}/*"]),
        # issue 32: MemoryBackend=s3vectors, this function's vector actions on the stack's index only
        "MemoryVectorIndex": (
            {"s3vectors:QueryVectors", "s3vectors:GetVectors", "s3vectors:ListVectors", "s3vectors:DeleteVectors"},
            [{"Ref": "MemoryVectorIndex"}],
        ),
    },
    "AgentRunStateMachine": {
        "InvokeRunFunction": ({"lambda:InvokeFunction"}, [{"Fn::GetAtt": ["RunFunction", "Arn"]}]),
        "StartChildExecutions": ({"states:StartExecution"}, [MACHINE_ARN]),
        "WatchChildExecutions": ({"states:DescribeExecution", "states:StopExecution"}, [EXECUTIONS_ARN]),
        "SyncIntegrationRule": ({"events:PutTargets", "events:PutRule", "events:DescribeRule"}, [SYNC_RULE_ARN]),
        "LogDelivery": (
            {a for a in STAR_ONLY if a.startswith("logs:")},
            ["*"],
        ),
    },
}

POLICY_OWNERS = sorted(
    name
    for name, res in resources().items()
    if res["Type"] in ("AWS::Serverless::Function", "AWS::Serverless::StateMachine")
)


def _actions(statement: dict[str, Any]) -> set[str]:
    return set(as_list(statement["Action"]))


def _resources(statement: dict[str, Any]) -> list[Any]:
    return [sub_text(r) for r in as_list(statement["Resource"])]


def test_the_template_declares_no_raw_iam_resources() -> None:
    # every permission goes through a function's or the state machine's Policies (tested below)
    kinds = {res["Type"] for res in resources().values()}
    assert not kinds & {"AWS::IAM::Role", "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"}


@pytest.mark.parametrize("owner", POLICY_OWNERS)
def test_each_statement_has_exactly_the_expected_actions_and_resources(owner: str) -> None:
    statements = policy_statements(owner)
    found = {s["Sid"]: (_actions(s), _resources(s)) for s in statements}
    assert len(found) == len(statements), "every statement has a distinct Sid"
    assert all(s["Effect"] == "Allow" and "NotAction" not in s and "NotResource" not in s for s in statements)
    assert found == EXPECTED.get(owner, {})


@pytest.mark.parametrize("owner", POLICY_OWNERS)
def test_a_star_resource_only_for_actions_aws_allows_only_on_star(owner: str) -> None:
    for statement in policy_statements(owner):
        if "*" in _resources(statement):
            assert _actions(statement) <= STAR_ONLY, statement["Sid"]
        for action in _actions(statement):
            assert not action.endswith("*") or action in STAR_ONLY, f"wildcard action {action}"


def test_the_cross_region_model_statement_only_works_through_an_inference_profile() -> None:
    (statement,) = [s for s in policy_statements("RunFunction") if s["Sid"] == "BedrockInvokeThroughInferenceProfiles"]
    condition = statement["Condition"]["StringLike"]["bedrock:InferenceProfileArn"]
    assert sub_text(condition) == "arn:${AWS::Partition}:bedrock:${AWS::Region}:${AWS::AccountId}:*inference-profile/*"


def test_policy_templates_are_scoped_to_this_stacks_tables_and_queue() -> None:
    assert sorted(policy_templates("RunFunction"), key=str) == sorted(
        [
            ("DynamoDBCrudPolicy", {"TableName": {"Ref": "MainTable"}}),
            ("SQSSendMessagePolicy", {"QueueName": {"Fn::GetAtt": ["MemoryQueue", "QueueName"]}}),
            ("SQSSendMessagePolicy", {"QueueName": {"Fn::GetAtt": ["PrivacyQueue", "QueueName"]}}),
        ],
        key=str,
    )
    assert sorted(policy_templates("PrivacyFunction"), key=str) == sorted(
        [
            ("DynamoDBCrudPolicy", {"TableName": {"Ref": "MainTable"}}),
            ("SQSSendMessagePolicy", {"QueueName": {"Fn::GetAtt": ["PrivacyQueue", "QueueName"]}}),
        ],
        key=str,
    )
    assert policy_templates("WriterFunction") == []  # the SQS event source adds the poller policy
    assert policy_templates("AgentRunStateMachine") == []


def test_the_audit_table_is_writable_only_by_the_three_functions() -> None:
    # Given every statement and policy template that names the audit table
    grants: dict[str, set[str]] = {}
    for owner in POLICY_OWNERS:
        for statement in policy_statements(owner):
            if "AuditTable" in references(statement["Resource"]):
                grants.setdefault(owner, set()).update(_actions(statement))
        for name, args in policy_templates(owner):
            assert "AuditTable" not in references(args), f"{owner} uses {name} on the audit table"
    # Then only the functions hold it, none may update or delete a record (an erasure redacts with PutItem)
    assert grants == {
        "RunFunction": AUDIT_CHAIN | {"dynamodb:Query"},
        "WriterFunction": AUDIT_CHAIN,
        "PrivacyFunction": AUDIT_CHAIN | {"dynamodb:Query"},
    }


def test_no_policy_refers_to_the_state_machine_itself() -> None:
    # the machine's ARN is built from its fixed name: a Ref would be a circular dependency
    for owner in POLICY_OWNERS:
        assert "AgentRunStateMachine" not in references(resources()[owner]["Properties"].get("Policies", []))
    run_env = resources()["RunFunction"]["Properties"]["Environment"]["Variables"]
    assert sub_text(run_env["MNEME_STATE_MACHINE_ARN"]) == MACHINE_ARN
    name = resources()["AgentRunStateMachine"]["Properties"]["Name"]
    assert MACHINE_ARN.endswith(":stateMachine:" + sub_text(name))


def test_the_data_access_policy_names_exactly_the_three_function_roles() -> None:
    policy = resources()["MemoryDataAccessPolicy"]["Properties"]["Policy"]["Fn::Sub"]
    assert policy[1] == {
        "RunRoleArn": {"Fn::GetAtt": ["RunFunctionRole", "Arn"]},
        "WriterRoleArn": {"Fn::GetAtt": ["WriterFunctionRole", "Arn"]},
        "PrivacyRoleArn": {"Fn::GetAtt": ["PrivacyFunctionRole", "Arn"]},
    }
    assert load_template()["Globals"]["Function"].get("Policies") is None


def test_the_run_function_subscribes_only_to_the_named_marketplace_models() -> None:
    # aws-marketplace:ProductId is the one condition key AWS documents, and only for Subscribe
    (statement,) = [s for s in policy_statements("RunFunction") if s["Sid"] == "SubscribeToNamedModels"]
    assert statement["Condition"] == {
        "ForAnyValue:StringEquals": {"aws-marketplace:ProductId": {"Ref": "MarketplaceProductIds"}}
    }
    (others,) = [s for s in policy_statements("RunFunction") if s["Sid"] == "ModelSubscriptions"]
    assert "aws-marketplace:Subscribe" not in _actions(others)


def test_marketplace_permissions_exist_only_with_product_ids_and_only_for_the_run_function() -> None:
    policies = resources()["RunFunction"]["Properties"]["Policies"]
    inline = [p for p in policies if isinstance(p, dict) and "Statement" in p]
    wrapped = [s["Fn::If"] for p in inline for s in p["Statement"] if isinstance(s, dict) and "Fn::If" in s]
    marketplace = [w for w in wrapped if w[1].get("Sid") in ("SubscribeToNamedModels", "ModelSubscriptions")]
    assert [(w[0], w[2]) for w in marketplace] == [("HasMarketplaceProducts", {"Ref": "AWS::NoValue"})] * 2
    assert load_template()["Conditions"]["HasMarketplaceProducts"] == {
        "Fn::Not": [{"Fn::Equals": [{"Fn::Join": ["", {"Ref": "MarketplaceProductIds"}]}, ""]}]
    }
    for owner in POLICY_OWNERS:
        if owner != "RunFunction":
            assert not any(a.startswith("aws-marketplace:") for s in policy_statements(owner) for a in _actions(s))


@pytest.mark.parametrize(
    ("sid", "parameter", "condition"),
    [
        ("ApplyGuardrails", "GuardrailArns", "HasGuardrails"),
        ("ReadModelApiKeys", "OpenAIApiKeySecretArns", "HasModelApiKeySecrets"),
    ],
)
def test_guardrails_and_model_key_secrets_are_granted_only_as_listed(sid: str, parameter: str, condition: str) -> None:
    # the statement exists only when its parameter lists ARNs (default: none), and names exactly those ARNs
    template = load_template()
    assert template["Parameters"][parameter] == {
        **template["Parameters"][parameter],
        "Type": "CommaDelimitedList",
        "Default": "",
    }
    assert template["Conditions"][condition] == {
        "Fn::Not": [{"Fn::Equals": [{"Fn::Join": ["", {"Ref": parameter}]}, ""]}]
    }
    policies = resources()["RunFunction"]["Properties"]["Policies"]
    guarded = [
        entry["Fn::If"]
        for policy in policies
        if isinstance(policy, dict) and "Statement" in policy
        for entry in policy["Statement"]
        if isinstance(entry, dict) and "Fn::If" in entry and entry["Fn::If"][1].get("Sid") == sid
    ]
    assert guarded == [[condition, guarded[0][1], {"Ref": "AWS::NoValue"}]]
    assert guarded[0][1]["Resource"] == {"Ref": parameter}


def test_the_writer_gets_the_openai_settings_and_reads_only_the_allowed_key_secrets() -> None:
    # issue 31.2: extraction jobs of openai-compatible agents need the endpoint settings and the key on the writer
    variables = resources()["WriterFunction"]["Properties"]["Environment"]["Variables"]
    run = resources()["RunFunction"]["Properties"]["Environment"]["Variables"]
    names = ("MNEME_OPENAI_BASE_URL", "MNEME_OPENAI_ENDPOINTS", "MNEME_OPENAI_API_KEY_SECRET_ARN")
    assert {name: variables[name] for name in (*names, "MNEME_OPENAI_API_KEY_SECRET_ARNS")} == {
        name: run[name] for name in (*names, "MNEME_OPENAI_API_KEY_SECRET_ARNS")
    }
    statements = [
        entry["Fn::If"]
        for policy in resources()["WriterFunction"]["Properties"]["Policies"]
        if isinstance(policy, dict) and "Statement" in policy
        for entry in policy["Statement"]
        if isinstance(entry, dict) and "Fn::If" in entry and entry["Fn::If"][1].get("Sid") == "ReadModelApiKeys"
    ]
    assert statements == [["HasModelApiKeySecrets", statements[0][1], {"Ref": "AWS::NoValue"}]]


def test_rerank_is_granted_only_when_a_rerank_model_is_chosen() -> None:
    # MemoryRerankModel "" (the default) means no reranker and no bedrock:Rerank; a model adds the statement
    template = load_template()
    parameter = template["Parameters"]["MemoryRerankModel"]
    assert parameter["Default"] == "" and "" in parameter["AllowedValues"]
    assert template["Conditions"]["HasRerankModel"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "MemoryRerankModel"}, ""]}]}
    policies = resources()["RunFunction"]["Properties"]["Policies"]
    guarded = [
        entry["Fn::If"]
        for policy in policies
        if isinstance(policy, dict) and "Statement" in policy
        for entry in policy["Statement"]
        if isinstance(entry, dict) and "Fn::If" in entry and entry["Fn::If"][1].get("Sid") == "RerankMemory"
    ]
    assert guarded == [["HasRerankModel", guarded[0][1], {"Ref": "AWS::NoValue"}]]
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["MNEME_MEMORY_RERANK_MODEL"] == {"Ref": "MemoryRerankModel"}
    for owner in POLICY_OWNERS:
        if owner != "RunFunction":
            assert not any("bedrock:Rerank" in _actions(s) for s in policy_statements(owner))
