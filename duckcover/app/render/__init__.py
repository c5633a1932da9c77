"""Textual's and Rich's insides, behind one door: the only package of duckcover that touches
their private names (tests/test_private_names.py checks the rest of the package).

- `paint`: the table's changes drawn as lines, without Textual's frame, and the widgets' lines
  drawn as Textual's StylesCache would (the compositor's map, the line cache).
- `lean_output`: fewer bytes to the terminal for the same picture (a driver that writes itself).
- `textual_compat`: the rest (the backdrop screen's private method).
"""
