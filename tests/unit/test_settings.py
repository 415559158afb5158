from __future__ import annotations

import pytest

from mneme.settings import Settings, SettingsError


def test_settings_read_their_environment_names() -> None:
    settings = Settings.from_env({"MNEME_TABLE": "t1", "MNEME_EMBEDDING_DIMENSION": "512", "OTHER": "x"})
    assert (settings.table_name, settings.embedding_dimension) == ("t1", 512)


def test_invalid_settings_fail_at_cold_start_with_the_field_named() -> None:
    with pytest.raises(SettingsError, match="MNEME_EMBEDDING_DIMENSION"):
        Settings.from_env({"MNEME_EMBEDDING_DIMENSION": "many"})


def test_namespace_rules_come_from_json() -> None:
    settings = Settings.from_env({"MNEME_NAMESPACE_RULES": '[{"pattern": "vector.global.*", "bonus": 0.2}]'})
    assert settings.namespace_rules[0].bonus == 0.2


def test_retention_is_days_from_zero_forever_to_a_hundred_years() -> None:
    settings = Settings.from_env({"MNEME_RETENTION_DAYS_CHATS": "30", "MNEME_RETENTION_DAYS_REQUESTS": "0"})
    assert (settings.retention_days_chats, settings.retention_days_runs, settings.retention_days_requests) == (30, 0, 0)
    with pytest.raises(SettingsError, match="MNEME_RETENTION_DAYS_RUNS"):
        Settings.from_env({"MNEME_RETENTION_DAYS_RUNS": "-1"})


def test_the_s3vectors_backend_is_accepted_with_its_bucket_and_index() -> None:
    # issue 32.3: the adapter exists now (it was refused at start before it did); without its index it still is
    with pytest.raises(ValueError, match="MNEME_S3VECTORS_BUCKET and MNEME_S3VECTORS_INDEX"):
        Settings.model_validate({"MNEME_MEMORY_BACKEND": "s3vectors"})
    named = {"MNEME_S3VECTORS_BUCKET": "vectors", "MNEME_S3VECTORS_INDEX": "mneme-memory"}
    assert Settings.model_validate({"MNEME_MEMORY_BACKEND": "s3vectors", **named}).memory_backend == "s3vectors"
    assert Settings.model_validate({"MNEME_MEMORY_BACKEND": "opensearch"}).memory_backend == "opensearch"
