"""contrib/: the systemd unit and the container file a host installs (docs/serve.md).

`systemd-analyze verify` reads the unit as systemd would (where systemd-analyze is installed:
skipped with the reason elsewhere); the container file is built where a container engine
runs (skipped with the reason elsewhere). What they must say is checked everywhere.
"""
from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "contrib" / "duckcover.service"
CONTAINERFILE = ROOT / "contrib" / "Containerfile"
INSTALLED = "/opt/duckcover/bin/duckcover"  # where docs/serve.md installs the program


def settings(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.lstrip().startswith(("#", ";", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def test_the_unit_asks_for_every_wall_the_issue_names_and_drains_on_stop():
    unit = settings(UNIT.read_text())
    assert unit["User"] == ["duckcover"] and unit["StateDirectory"] == ["duckcover"]
    for key, value in (("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("ProtectHome", "yes"),
                       ("PrivateTmp", "yes"), ("Restart", "on-failure")):
        assert unit[key] == [value], key
    assert set(unit["RestrictAddressFamilies"][0].split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert unit["SystemCallFilter"][0].split()[0] == "@system-service"
    assert unit["ExecStop"] == [f"-{INSTALLED} admin drain --wait"]
    assert unit["ExecStart"][0].startswith(f"{INSTALLED} serve ")


def test_the_commands_the_unit_and_the_container_run_are_duckcovers_own():
    from duckcover.cli import build_parser

    unit = settings(UNIT.read_text())
    for command in (unit["ExecStart"][0], unit["ExecStop"][0].lstrip("-")):
        words = shlex.split(command)[1:]
        build_parser(words[0]).parse_args(words)  # an unknown option: UsageError
    lines = dict(line.split(None, 1) for line in CONTAINERFILE.read_text().splitlines()
                 if line.startswith(("ENTRYPOINT", "CMD")))
    words = json.loads(lines["ENTRYPOINT"])[1:] + json.loads(lines["CMD"])
    assert words[0] == "serve"
    build_parser("serve").parse_args(words)


def test_the_unit_passes_systemd_analyze_verify(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed here (no systemd)")
    # verify checks that the program exists: the unit as installed, pointing at this duckcover.
    program = Path(sys.executable).parent / "duckcover"
    if not program.exists():
        pytest.skip(f"no installed duckcover script beside {sys.executable}")
    unit = tmp_path / "duckcover.service"
    unit.write_text(UNIT.read_text().replace(INSTALLED, str(program)))
    result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == ""  # an unknown key or system call is only a warning: none at all


def test_the_container_runs_as_a_user_with_its_data_a_volume_and_the_doors_exposed():
    text = CONTAINERFILE.read_text()
    lines = [line.split(None, 1) for line in text.splitlines() if line.strip() and not line.startswith("#")]
    users = [line[1].strip() for line in lines if line[0] == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert ["VOLUME", "/data"] in lines
    exposed = {port for line in lines if line[0] == "EXPOSE" for port in line[1].split()}
    assert {"2222", "8080"} <= exposed
    assert "DUCKCOVER_DATA=/data" in text


def container_engine() -> str | None:
    for engine in ("podman", "docker"):
        path = shutil.which(engine)
        if path and subprocess.run([path, "info"], capture_output=True, timeout=60).returncode == 0:
            return path
    return None


def test_the_container_file_builds():
    engine = container_engine()
    if engine is None:
        pytest.skip("no container engine runs here (podman or docker: none installed, or its daemon is not running)")
    result = subprocess.run([engine, "build", "-f", str(CONTAINERFILE), "-t", "duckcover-test", str(ROOT)],
                            capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, result.stderr[-4000:]
