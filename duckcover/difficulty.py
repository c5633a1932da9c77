"""Difficulty names the app offers, and the bot each one stands for.

They are plain aliases of bot specs, so anything that takes a bot spec takes a difficulty.
"""
from __future__ import annotations

DIFFICULTIES: dict[str, str] = {
    "easy": "random",
    "medium": "greedy",
    "hard": "expert",
}

