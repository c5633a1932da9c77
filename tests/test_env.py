"""The learning environment (duckcover.env, the `rl` extra): PettingZoo's own API and seed tests,
each seat's own view only, illegal actions handled, rewards that add up to the game."""
from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (pip install -e '.[rl]')")

from pettingzoo.test import parallel_api_test, parallel_seed_test  # noqa: E402

from duckcover.engine import Rules  # noqa: E402
from duckcover.env import MAX_ACTIONS, DuckCoverEnv, parallel_env  # noqa: E402


def test_pettingzoo_parallel_api_test():
    parallel_api_test(DuckCoverEnv(4), num_cycles=1000)


def test_pettingzoo_seed_test_with_unmasked_actions():
    """The seed test samples actions without the mask: illegal ones must play on, the same way."""
    parallel_seed_test(lambda: parallel_env(4), num_cycles=500)


def play(env: DuckCoverEnv, seed: int, pick):
    observations, _ = env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    trail = []
    while env.agents:
        actions = {agent: pick(observations[agent]) for agent in env.agents}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        trail.append(actions)
        for agent, reward in rewards.items():
            returns[agent] += reward
    return returns, trail, infos


def first_legal(observation):
    return int(observation["action_mask"].argmax())


def test_returns_are_minus_the_game_totals_and_a_seed_replays_the_game():
    env = DuckCoverEnv(3)
    returns, trail, _ = play(env, 5, first_legal)
    assert [returns[agent] for agent in env.possible_agents] == [-total for total in env.game.totals]
    assert env.game.over
    again, trail_again, _ = play(DuckCoverEnv(3), 5, first_legal)
    assert (again, trail_again) == (returns, trail)
    other, _, _ = play(DuckCoverEnv(3), 6, first_legal)
    assert other != returns


def test_an_illegal_action_plays_a_legal_move_and_says_so():
    """An action outside the mask plays legal move number `action % count`; a non-number the first."""
    env = DuckCoverEnv(4)
    _, infos = env.reset(seed=1)
    game = env.game
    choosing = [seat for seat, agent in enumerate(env.possible_agents) if infos[agent]["must_choose"]]
    assert choosing
    legal = {seat: game.legal_moves(seat) for seat in choosing}
    turns = len(game.round.turns)
    actions = dict.fromkeys(env.agents, MAX_ACTIONS - 1)  # past every legal move here
    actions[env.possible_agents[choosing[0]]] = "nonsense"
    _, _, _, _, infos = env.step(actions)
    played = game.rounds[0].turns[turns].moves
    for seat in choosing:
        assert infos[env.possible_agents[seat]]["illegal_action"] is True
        wanted = 0 if seat == choosing[0] else (MAX_ACTIONS - 1) % len(legal[seat])
        assert played[seat] == legal[seat][wanted]
    for seat in set(range(4)) - set(choosing):  # nothing to choose: the action is ignored
        assert infos[env.possible_agents[seat]]["illegal_action"] is False


def test_observations_come_from_the_seat_s_view_only():
    """The same table with another order of the cards still in the draw deck: the same observation."""
    import numpy as np

    from duckcover.engine import Game

    env = DuckCoverEnv(2)
    env.reset(seed=3)
    game = env.game
    first = env.observe(0)
    log = game.round
    flipped = sum(len(turn.flips) for turn in log.turns) + len(game.flips)
    deck = log.deck[:flipped] + log.deck[flipped:][::-1]
    assert deck != log.deck
    other = Game(2, Rules(), seed=game.seed, start=False)
    other.start_round(layouts=log.layouts, captain=log.captain, deck=deck)
    for turn in log.turns:
        other.flip()
        if other.awaiting:
            other.play(turn.moves)
    other.flip()
    env.game = other
    second = env.observe(0)
    for part in ("observation", "action_mask", "action_features"):
        assert np.array_equal(first[part], second[part])


@pytest.mark.parametrize("variant", ["low-blows", "two-flips", "surprises"])
def test_variants_play_through(variant):
    """Gifts and placements (low blows), two calls a turn: the same actions, the same masks."""
    env = DuckCoverEnv(3, Rules(variants=frozenset([variant])))
    returns, _, _ = play(env, 2, lambda observation: 0)
    assert env.game.over and len(returns) == 3
