"""List a deployed stack's earlier runs (issue 33.3): ``GET /v1/runs`` reads the main table's GSI2, which a root
run item joins when it is written from this version on. Runs written before have no listing attributes; this
one-off gives them theirs — a Scan of the ``RUN`` items not on the index (an upgrade step, never a request's
read), then one conditional UpdateItem per root run. Sub-runs stay off the index (listed through their root).

    PYTHONPATH=layers/mneme .venv/bin/python -m scripts.backfill_run_list --table <MainTableName> [--region …]

Safe to run again (an item already listed is skipped) and while the stack serves (an item written meanwhile
carries its attributes already; the update requires them to be absent).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from mneme.adapters.dynamo.run_list import RUNS_INDEX_PK, stored_listing
from mneme.adapters.dynamo.values import deserialize, serialize


def backfill(client: Any, table: str) -> int:
    """Give each root run item not on the runs index its listing attributes; the number updated."""
    updated = 0
    pages = client.get_paginator("scan").paginate(
        TableName=table,
        FilterExpression="SK = :run AND attribute_not_exists(#ipk) AND attribute_not_exists(parent_run_id)",
        ExpressionAttributeNames={"#ipk": RUNS_INDEX_PK, "#data": "data"},
        ExpressionAttributeValues={":run": {"S": "RUN"}},
        ProjectionExpression="PK, SK, #data",
    )
    for page in pages:
        for raw in page.get("Items", []):
            item = {name: deserialize(value) for name, value in raw.items()}
            values = stored_listing(item)
            if not values:
                continue
            names = {f"#v{i}": name for i, name in enumerate(values)}
            try:
                client.update_item(
                    TableName=table,
                    Key={"PK": raw["PK"], "SK": raw["SK"]},
                    UpdateExpression="SET " + ", ".join(f"#v{i} = :v{i}" for i in range(len(values))),
                    ConditionExpression="attribute_exists(PK) AND attribute_not_exists(#ipk)",
                    ExpressionAttributeNames={**names, "#ipk": RUNS_INDEX_PK},
                    ExpressionAttributeValues={f":v{i}": serialize(v) for i, v in enumerate(values.values())},
                )
            except client.exceptions.ConditionalCheckFailedException:
                continue  # deleted, or written with its attributes meanwhile
            updated += 1
    return updated


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Give a deployed stack's earlier root runs their GET /v1/runs keys.")
    parser.add_argument("--table", required=True, help="the stack's MainTableName output")
    parser.add_argument("--region")
    args = parser.parse_args(argv)
    import boto3

    count = backfill(boto3.client("dynamodb", region_name=args.region), args.table)
    sys.stdout.write(f"{count} earlier root run(s) listed\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
