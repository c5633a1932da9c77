"""duckcover: Duck & Cover in the terminal.

The rooms (README.md, "For developers"): `engine` (the rules; its door is `from duckcover.engine
import Game, Rules, Move, ...`), `common`, `players`, `saves`, `net`, `app`, `commands`. The
package itself re-exports nothing: importing it costs nothing, and every name has one home.
"""
__version__ = "0.1.0"
