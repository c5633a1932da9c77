"""`duckcover arena --cluster`: a local Dask cluster (a scheduler and two workers on 127.0.0.1)
gives the figures of the same run on one machine, even when a worker dies mid-run."""
from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

pytest.importorskip("distributed", reason="Dask distributed is not installed (pip install -e '.[cluster]')")

from duckcover.cli import main  # noqa: E402
from duckcover.players import cluster  # noqa: E402
from duckcover.players.arena import ArenaConfig, run as run_locally  # noqa: E402
from duckcover.players.cluster import LoopbackCluster  # noqa: E402

pytestmark = pytest.mark.keys  # the slow tier: a Dask scheduler and workers in processes of their own

RUN_LIMIT = 240.0  # seconds for a run (6 deals here; generous for a loaded machine)

FILE_BOT = """
from duckcover.players.bot import Bot

class FirstMove(Bot):
    description = "Plays the first legal move."

    def choose(self, view):
        return view.legal_moves()[0]
"""


@pytest.fixture(scope="module")
def local_cluster(tmp_path_factory):
    started = LoopbackCluster(tmp_path_factory.mktemp("cluster"), workers=2)
    try:
        yield started
    finally:
        started.stop()


def without_timings_and_place(figures: dict) -> dict:
    figures = json.loads(json.dumps(figures))
    figures.pop("ran_on")
    for row in figures["bots"]:
        row.pop("decision_ms")
    return figures


def test_a_cluster_run_gives_the_json_of_the_local_run(local_cluster, tmp_path, capsys):
    bot_file = tmp_path / "first_move.py"
    bot_file.write_text(FILE_BOT)
    argv = ["arena", "--bot", "greedy", "--bot", "random", "--bot", f"{bot_file}:FirstMove",
            "--games", "6", "--seed", "11", "--json"]
    assert main(argv) == 0
    local = json.loads(capsys.readouterr().out)
    on_cluster = subprocess.run([sys.executable, "-m", "duckcover", *argv, "--cluster", local_cluster.address],
                                capture_output=True, text=True, timeout=RUN_LIMIT)
    assert on_cluster.returncode == 0, on_cluster.stderr
    remote = json.loads(on_cluster.stdout)
    assert local["ran_on"] == {"where": "local", "jobs": 1}
    assert remote["ran_on"] == {"where": "cluster", "scheduler": local_cluster.address, "workers": 2, "threads": 2}
    assert without_timings_and_place(remote) == without_timings_and_place(local)
    assert remote["bots"][2]["decisions"] > 0 and remote["bots"][2]["fallbacks"] == 0  # the file bot played
    # It played from its content, copied to the workers by hash, in its own process there.
    copies = list(local_cluster.folder.glob("duckcover-cluster-bots/*/first_move.py"))
    assert [copy.read_text() for copy in copies] == [FILE_BOT]


def test_a_worker_killed_mid_run_changes_nothing_in_the_results(tmp_path):
    config = ArenaConfig(("greedy", "random", "greedy"), deals=6, seed=5)
    expected = run_locally(config)
    own = LoopbackCluster(tmp_path, workers=2)  # its own: this test leaves it with one worker
    try:
        done: list[int] = []

        def kill_a_worker_at_the_first_result(count: int) -> None:
            if not done:
                own.workers[0].send_signal(signal.SIGKILL)
                own.workers[0].wait(timeout=30)
            done.append(count)

        results, ran_on = cluster.run(config, own.address, progress=kill_a_worker_at_the_first_result, timeout=RUN_LIMIT)
        assert done[0] < config.deals  # the kill came with deals still to play
        assert own.workers[0].returncode == -signal.SIGKILL and own.worker_count() == 1
    finally:
        own.stop()
    assert sum(done) == config.deals  # each deal reported once
    assert [result.deal for result in results] == list(range(config.deals))
    for got, want in zip(results, expected):
        assert (got.totals, got.win_shares, got.fallbacks, got.incidents, got.reasons, got.output) == (
            want.totals, want.win_shares, want.fallbacks, want.incidents, want.reasons, want.output)
        assert [len(times) for times in got.times] == [len(times) for times in want.times]


def test_without_a_scheduler_the_arena_says_so_in_one_line(capsys):
    # A port on loopback where nothing listens (bound, never listened on, during the call).
    import socket

    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
        cluster_connect = cluster.CONNECT_TIMEOUT
        cluster.CONNECT_TIMEOUT = 3.0
        try:
            status = main(["arena", "--bot", "greedy", "--bot", "random", "--games", "1",
                           "--cluster", f"tcp://127.0.0.1:{port}"])
        finally:
            cluster.CONNECT_TIMEOUT = cluster_connect
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "cannot reach the scheduler" in err, err
