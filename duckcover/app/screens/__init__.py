"""The screens around the table: title, setup, help, games, settings, statistics, replay, review."""
