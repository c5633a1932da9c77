"""Subcommands of the `duckcover` command, one module each."""
