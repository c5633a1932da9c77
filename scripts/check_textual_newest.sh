#!/usr/bin/env bash
# The scheduled check a maintainer runs (monthly, and before moving the pin): does duckcover still
# draw right on the newest Textual 8.x and on both ends of the Rich range in pyproject.toml?
# Textual is pinned exactly because duckcover/app/render/ uses its private names (nothing else
# does: tests/test_private_names.py). This installs the project in a throw-away virtual
# environment and runs every drawing test (the painter against Textual's own drawing, the lean
# output, the line-drawn widgets, the snapshots, whole games by keys) with the painter on and off
# (DUCKCOVER_PAINTER=0: Textual's public drawing path alone, which should pass even where the
# painter's private names broke). Exit status 0: the pin can move to the version it prints.
#   1. the newest Textual 8.x with the newest Rich it takes;
#   2. the pinned Textual with the lowest Rich pyproject.toml allows (RICH_LOWEST below).
set -euo pipefail
cd "$(dirname "$0")/.."
RICH_LOWEST=14.2.0  # keep in step with pyproject.toml's rich>= bound
drawing_tests=(tests/test_paint.py tests/test_painter_switch.py tests/test_private_names.py
    tests/test_textual_compat.py tests/test_autoplay_textual_internals.py tests/test_lean_output.py
    tests/test_static_lines.py tests/test_table_drawing.py tests/test_app_play.py)
mapfile -t snapshot_tests < <(grep -l snap_compare tests/test_*.py)
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install -q -e '.[test]'

check() {
    echo "check: Textual $("$venv/bin/python" -c 'import textual.version as v; print(v.VERSION)')," \
        "Rich $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("rich"))')"
    for painter in 1 0; do
        echo "check: DUCKCOVER_PAINTER=$painter"
        DUCKCOVER_PAINTER=$painter "$venv/bin/python" -m pytest -q -p no:cacheprovider \
            "${drawing_tests[@]}" "${snapshot_tests[@]}"
    done
}

"$venv/bin/pip" install -q --upgrade 'textual>=8,<9' rich
check
"$venv/bin/pip" install -q -e '.[test]' "rich==$RICH_LOWEST"
check
