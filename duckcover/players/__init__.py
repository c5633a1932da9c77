"""The players room: who decides a seat's moves and how a turn gathers them (players.table).

Today only the table lives here; bot, plugins, safety, sandbox and the arena join it as the
rooms of docs/ARCHITECTURE.md are made.
"""
