"""duckcover's built-in bots. Installed as `duckcover_bots`; found through the `duckcover.bots`
entry-point group exactly like a third-party bot."""
