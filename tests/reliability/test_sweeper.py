"""The sweeper (issue 12.1): a run left ``queued`` / ``running`` past its lease, that no execution runs, is
failed as interrupted — on AWS by the scheduled ``{"action": "sweep"}``, locally by the server itself."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from mneme.adapters.models.offline import OfflineModel
from mneme.models.run import Run, RunStatus
from mneme.runtime import Runtime
from tests.functional.local.support import LocalServer, wait_until
from tests.reliability.figures import Figures
from tests.reliability.ledger import LEDGER
from tests.support.deps import World, make_world


def _run(world: World, run_id: str, *, status: RunStatus = RunStatus.RUNNING, **fields: object) -> Run:
    now = world.clock.now()
    run = Run(
        run_id=run_id,
        user_id="alice",
        agent_id="echo",
        root_run_id=str(fields.pop("root_run_id", run_id)),
        status=status,
        created_at=now,
        updated_at=now,
        lease_until=now + timedelta(minutes=3),
        **fields,
    )
    world.deps.runs.create_run(run)
    return run


def _status(world: World, run_id: str) -> tuple[str, str | None]:
    run = world.deps.runs.get_run(run_id)
    assert run is not None
    return run.status.value, run.error


def test_the_sweep_fails_only_runs_past_their_lease_that_nothing_runs(figures: Figures) -> None:
    world = LEDGER.world("sweeper", make_world(OfflineModel()))
    # Given runs of every kind, three minutes old
    _run(world, "crashed")  # its invocation died: no execution was ever started
    _run(world, "alive", execution_arn="arn:execution:alive")  # its execution still runs
    world.orchestrator.running.add("arn:execution:alive")
    _run(world, "handed-off")  # a root whose hand-off started an execution that ended without finishing it
    world.orchestrator.started.append(("handed-off", 0))
    world.orchestrator.ended.add("handed-off")
    _run(world, "waiting", status=RunStatus.WAITING_APPROVAL)  # a person decides: not the sweeper's
    _run(world, "queued-child", status=RunStatus.QUEUED, parent_run_id="alive", root_run_id="alive", depth=1)
    _run(world, "orphan", status=RunStatus.QUEUED, parent_run_id="crashed", root_run_id="crashed", depth=1)
    world.clock.advance(minutes=2)
    _run(world, "young")  # its lease is not over
    world.clock.advance(minutes=2)
    # When the scheduled event reaches the run function
    report = Runtime(world.deps).handle({"action": "sweep"})
    # Then exactly the runs nothing runs any more are failed as interrupted, with an error event
    assert sorted(report["failed"]) == ["crashed", "handed-off", "orphan"]
    for run_id in report["failed"]:
        status, error = _status(world, run_id)
        assert status == "failed" and error is not None and error.startswith("Interrupted: the run's lease expired")
        assert [e.type for e in world.deps.runs.list_events(run_id)][-2:] == ["error", "completed"]
    for run_id, status in [
        ("alive", "running"),
        ("waiting", "waiting_approval"),
        ("queued-child", "queued"),
        ("young", "running"),
    ]:
        assert _status(world, run_id)[0] == status, run_id
    # And a second sweep finds nothing more to do
    assert Runtime(world.deps).handle({"action": "sweep"})["failed"] == []
    # Until the execution ends without finishing its runs: the next sweep past their leases fails them too
    world.orchestrator.running.clear()
    world.clock.advance(minutes=5)
    later = Runtime(world.deps).handle({"action": "sweep"})
    assert sorted(later["failed"]) == ["alive", "queued-child", "young"]
    assert _status(world, "waiting")[0] == "waiting_approval"
    figures.add("sweeper runs failed as interrupted", len(report["failed"]) + len(later["failed"]))


def test_the_local_server_sweeps_while_it_runs(tmp_path: Path, figures: Figures) -> None:
    from mneme.adapters.dynamo.run_store import ItemRunStore
    from mneme.clock import SystemClock
    from mneme_local.sqlite_items import open_local_tables

    # Given a local server that sweeps every second
    data = LEDGER.data_dir("sweeping server", tmp_path / "data")
    server = LocalServer(data, env={"MNEME_SWEEP_SECONDS": "1"}).start()
    try:
        # When a run is left running with its lease over and no execution (as a crashed invocation leaves it)
        main, audit = open_local_tables(data)
        runs = ItemRunStore(main)
        long_ago = SystemClock().now() - timedelta(hours=1)
        runs.create_run(
            Run(
                run_id="left-behind",
                user_id="alice",
                agent_id="echo",
                root_run_id="left-behind",
                status=RunStatus.RUNNING,
                created_at=long_ago,
                updated_at=long_ago,
                lease_until=long_ago + timedelta(minutes=3),
            )
        )
        # Then the server's sweeper fails it as interrupted within seconds
        assert wait_until(lambda: runs.get_run("left-behind").status is RunStatus.FAILED, timeout=20)  # type: ignore[union-attr]
        assert (runs.get_run("left-behind").error or "").startswith("Interrupted")  # type: ignore[union-attr]
        main.close()
        audit.close()
    finally:
        server.stop()
    figures.add("sweeper runs failed as interrupted")
