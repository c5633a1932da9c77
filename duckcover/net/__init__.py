"""Playing together over SSH: the table server, its protocol and the SSH front (`duckcover serve`)."""
