"""Widgets the screens share: cards, grids, the key bar, the log, glyphs."""
