"""A PettingZoo Parallel environment of Duck & Cover, for learning (the `duckcover[rl]` extra).

    pip install 'duckcover[rl]'

    from duckcover.env import DuckCoverEnv
    env = DuckCoverEnv(players=4)
    observations, infos = env.reset(seed=7)
    while env.agents:
        actions = {agent: policy(observations[agent]) for agent in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)

One episode is one game (three rounds, or the rules' count). The engine (duckcover.engine) plays
it; the environment only turns views into arrays and actions into moves.

- **Agents** `seat_0` ... `seat_{n-1}`, all present from reset to the game's end. Every step
  all of them choose at once, as the game does: the Captain's flip is automatic, and steps
  where nobody has anything to choose (everybody quacked, a Repeat to the Discard) are played
  through, so each step is one decision of every seat that has one.
- **Observations** are each seat's own view only (`Game.view`, never the deck order): a dict
  `{"observation": float32 vector, "action_mask": int8 vector, "action_features": float32
  matrix}`. The vector holds the call, the phase, the round, the Discard area, the draw size,
  the unseen captain cards (counted from the public history, as a careful player would), the
  totals, and every seat's stacks (this seat first, then to its left), each stack as (x, y
  relative to the grid's top-left corner, top number, top value, height). `action_features`
  describe action slot i (card number, card value, cover or duck, the value of the stack it
  covers, how many of the seat's other stacks touch the destination, the highest value there).
- **Actions** are `Discrete(MAX_ACTIONS)`: slot i is the i-th of `view.legal_moves()` (the
  engine's order). A seat with nothing to choose (Quack, or not its call) has one legal action,
  0, meaning "nothing". The mask marks the legal slots.
- **An illegal action** (outside the mask, as PettingZoo's seed test samples them) never
  raises: it plays legal move number `action % count` and says so in
  `infos[agent]["illegal_action"]` (True). Nothing else is charged for it. Beyond
  MAX_ACTIONS legal moves (never seen in 4-player games) only the first MAX_ACTIONS are offered.
- **Rewards** are the negated round scores, paid at the step that ends a round (0 otherwise),
  so an episode's return is minus the game total. Cooperative games pay each seat its own.
- **Termination** at the game's end, for every agent at once; never a truncation (the engine's
  own turn cap ends a round that runs away).
- `reset(seed=S)` plays the game of seed S (layouts, decks, reshuffles: `Game(seed=S)`, the
  arena's deal S); `reset()` without a seed plays the next deal (S + 1, S + 2, ...), so a
  sequence of resets is reproducible too; before any seed, a fresh one (`new_seed`).
"""
from __future__ import annotations

import functools
from collections import Counter

from .engine import Game, Phase, Rules, new_seed
from .engine.game import captain_cards
from .engine.grid import neighbours
from .players.sequence import InlinePacing, Sequencer
from .players.table import Table

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import ParallelEnv
except ImportError as error:  # the extra is not installed: importing works, building says how
    np = spaces = None
    ParallelEnv = object
    MISSING: ImportError | None = error
else:
    MISSING = None

MAX_ACTIONS = 128  # action slots: legal moves beyond this many are not offered
STACK_SLOTS = 12  # a grid never has more stacks than a family has cards
STACK_FEATURES = 5  # x, y (from the grid's top-left), top number, top value, height
ACTION_FEATURES = 6
PHASES = (Phase.FLIP, Phase.MOVE, Phase.GIFT, Phase.PLACE)
CODES = 14  # flip codes 1-12, MAX (13), REPEAT (14)
LIMIT = 64.0  # every number in an observation lies in [-LIMIT, LIMIT]


def observation_size(players: int) -> int:
    """The observation vector's length for a table of `players`."""
    globals_ = CODES + len(PHASES) + 4 + CODES + 2 * players
    return globals_ + players * (1 + STACK_SLOTS * STACK_FEATURES)


class DuckCoverEnv(ParallelEnv):
    """Duck & Cover for `players` seats under `rules` (default rules), all seats learning."""

    metadata = {"name": "duckcover_v0", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(self, players: int = 4, rules: Rules | None = None, render_mode: str | None = None):
        if MISSING is not None:
            raise ImportError("the learning environment needs the rl extra: pip install 'duckcover[rl]'") from MISSING
        self.rules = rules or Rules()
        self.rules.check_players(players)
        self.players = players
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{seat}" for seat in range(players)]
        self.agents: list[str] = []
        self.game: Game | None = None
        self._sequence: Sequencer | None = None  # every seat's choice is the agents': they are its people
        self._pacing = InlinePacing()
        self._next_seed: int | None = None
        self._size = observation_size(players)

    # --- spaces: one object per agent, always the same ---------------------------------------
    @functools.lru_cache(maxsize=None)
    def observation_space(self, agent):
        return spaces.Dict({
            "observation": spaces.Box(-LIMIT, LIMIT, (self._size,), np.float32),
            "action_mask": spaces.Box(0, 1, (MAX_ACTIONS,), np.int8),
            "action_features": spaces.Box(-LIMIT, LIMIT, (MAX_ACTIONS, ACTION_FEATURES), np.float32),
        })

    @functools.lru_cache(maxsize=None)
    def action_space(self, agent):
        return spaces.Discrete(MAX_ACTIONS)

    # --- the episode -------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is None:
            seed = new_seed() if self._next_seed is None else self._next_seed
        self._next_seed = seed + 1
        self.game = Game(self.players, self.rules, seed=seed)
        self.agents = list(self.possible_agents)
        table = Table(self.game, is_human=lambda seat: True, keep_views=False)
        self._pacing.queue.clear()
        self._sequence = Sequencer(table, self._pacing, flips_itself=lambda seat: True)
        self._sequence.start()
        self._advance()
        return self._observations(), {agent: self._info(seat, False) for seat, agent in enumerate(self.agents)}

    def step(self, actions: dict):
        if not self.agents:
            raise RuntimeError("the game is over: call reset()")
        game = self.game
        illegal = [False] * self.players
        rounds = len(game.results)
        if self._sequence.choosing:
            moves: dict = {}
            for seat in game.awaiting:
                legal = game.legal_moves(seat)[:MAX_ACTIONS]
                action = actions.get(self.possible_agents[seat], 0)
                index = int(action) if _is_index(action) else -1
                if not 0 <= index < len(legal):
                    illegal[seat] = True
                    index = index % len(legal) if index >= 0 else 0
                moves[seat] = legal[index]
            for seat, move in moves.items():  # the last one plays the turn
                self._sequence.choose(seat, move, checked=True)
        rewards = dict.fromkeys(self.agents, 0.0)
        self._advance()
        for outcome in game.results[rounds:]:
            for seat, agent in enumerate(self.possible_agents):
                rewards[agent] -= float(outcome.scores[seat])
        over = game.over
        observations = self._observations()
        infos = {agent: self._info(seat, illegal[seat]) for seat, agent in enumerate(self.possible_agents)}
        terminations = dict.fromkeys(self.possible_agents, over)
        truncations = dict.fromkeys(self.possible_agents, False)
        if over:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _advance(self) -> None:
        """The sequence goes on (flips, deals) until some seat must choose or the game is over."""
        self._pacing.drain()

    def render(self):
        if self.render_mode != "ansi" or self.game is None:
            return None
        lines = []
        for seat in range(self.players):
            grid = self.game.grid(seat)
            tops = " ".join(f"{stack[-1].number}x{len(stack)}@{cell}" for cell, stack in sorted(grid.items()))
            lines.append(f"seat {seat}: {tops}")
        return "\n".join(lines)

    def close(self):
        pass

    # --- what a seat sees ----------------------------------------------------------------------
    def _observations(self) -> dict:
        return {agent: self.observe(seat) for seat, agent in enumerate(self.possible_agents)}

    def _info(self, seat: int, illegal: bool) -> dict:
        game = self.game
        return {"illegal_action": illegal, "must_choose": seat in game.awaiting, "phase": game.phase.value}

    def observe(self, seat: int) -> dict:
        """Seat `seat`'s observation, from its own view (`Game.view`) alone."""
        view = self.game.view(seat)
        values = view.rules.values
        n = self.players
        vector = np.zeros(self._size, np.float32)
        at = 0
        for code in view.flips if view.phase in (Phase.MOVE, Phase.GIFT, Phase.PLACE) else ():
            vector[at + code - 1] = 1.0
        at += CODES
        if view.phase in PHASES:
            vector[at + PHASES.index(view.phase)] = 1.0
        at += len(PHASES)
        vector[at: at + 4] = (view.round_index, len(view.discard),
                              view.discard_limit if view.discard_limit is not None else 0, view.draw_size)
        at += 4
        if view.phase in PHASES:  # what the seat has not seen of the captain cards
            unseen = Counter(captain_cards(view)[0])
            for code in range(1, CODES + 1):
                vector[at + code - 1] = unseen[code]
        at += CODES
        for k in range(n):
            other = (seat + k) % n
            vector[at + k] = view.totals[other] / 4.0
            vector[at + n + k] = float(other == view.captain)
        at += 2 * n
        for k in range(n):
            grid = view.grids[(seat + k) % n].cells
            vector[at] = len(grid)
            at += 1
            if grid:
                left = min(x for x, _ in grid)
                top = min(y for _, y in grid)
                for slot, (cell, stack) in enumerate(sorted(grid.items(), key=lambda item: (item[0][1], item[0][0]))[:STACK_SLOTS]):
                    card = stack[-1]
                    base = at + slot * STACK_FEATURES
                    vector[base: base + STACK_FEATURES] = (cell[0] - left, cell[1] - top, card.number,
                                                           values[card.number], len(stack))
            at += STACK_SLOTS * STACK_FEATURES
        np.clip(vector, -LIMIT, LIMIT, out=vector)
        mask = np.zeros(MAX_ACTIONS, np.int8)
        features = np.zeros((MAX_ACTIONS, ACTION_FEATURES), np.float32)
        legal = view.legal_moves()[:MAX_ACTIONS] if view.candidates else []
        if not legal:
            mask[0] = 1  # nothing to choose: action 0, "nothing"
        cells = view.grid.cells
        origin = {card: cell for card, cell in view.candidates}
        for index, move in enumerate(legal):
            mask[index] = 1
            number = move.card.number
            row = [number, values[number], 0.0, 0.0, 0.0, 0.0]
            if move.to is not None:
                if move.to in cells:
                    row[2], row[3] = 1.0, values[cells[move.to][-1].number]
                near = [values[cells[c][-1].number] for c in neighbours(move.to)
                        if c in cells and c != origin.get(move.card) and c != move.to]
                row[4], row[5] = len(near), max(near, default=0)
            features[index] = row
        return {"observation": vector, "action_mask": mask, "action_features": features}


def _is_index(action) -> bool:
    try:
        return int(action) == action
    except (TypeError, ValueError, OverflowError):
        return False


def parallel_env(players: int = 4, rules: Rules | None = None, render_mode: str | None = None) -> DuckCoverEnv:
    """PettingZoo's usual constructor name."""
    return DuckCoverEnv(players, rules, render_mode)


__all__ = ["ACTION_FEATURES", "MAX_ACTIONS", "DuckCoverEnv", "observation_size", "parallel_env"]
