"""What is kept: game records, saved games, statistics, ratings, settings, paths. Imports engine and common."""
