"""The screens around the table: title, setup, help, games, settings, statistics, replay, review,
keys. A module that opens a place declares it at its end (see ..places): importing the modules of
this package is how the app finds them, so keep each cheap to import."""
