#!/usr/bin/env bash
# The scheduled check a maintainer runs (monthly, and before moving the pin): does duckcover still
# work on the newest Textual 8.x? pyproject.toml pins Textual exactly because app/render/textual_compat.py
# (and the tests' autoplay helpers) use a few private names. This installs the project with the
# newest 8.x in a throw-away virtual environment and runs the tests that touch those names, the
# snapshots and the whole games by keys. Exit status 0: the pin can move to the version it prints.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install -q -e '.[test]'
"$venv/bin/pip" install -q --upgrade 'textual>=8,<9'
echo "check: Textual $("$venv/bin/python" -c 'import textual.version as v; print(v.VERSION)')"
"$venv/bin/python" -m pytest -p no:cacheprovider tests/test_textual_compat.py \
    tests/test_autoplay_textual_internals.py tests/test_lean_output.py tests/test_app_snapshots.py \
    tests/test_app_play.py
