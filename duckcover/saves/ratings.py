"""Ratings: who is better, humans and bots, as OpenSkill's Weng-Lin Bayesian ratings.

Ratings are derived, never the source. `compute` replays a list of finished games, oldest
first, through the model; nothing else can move a rating. A game's result is its seats'
ranks, taken from the engine's outcome of the replayed moves (stats.py replays every record
before keeping it): winners first, then the rest by game total (lower is better). Equal ranks
are ties.

Who a seat is (its rating key, see `seat_keys`):
  - a bot: `bot:NAME@VERSION`, the bot and version stamped in the record when it was played (a
    bot whose code changed is a new entry that starts afresh; a record without them: its label
    and `@?`);
  - a player on a server: `ssh:USER KEY`, the SSH user and their key's fingerprint, stamped
    by the server (a record from elsewhere cannot make a local name an account);
  - anybody else: `name:NAME`, the name the statistics use.
The same key twice at one table (three `greedy` seats in an arena) is one player: each seat
is rated as its own entrant, and the player's new rating is the mean of its seats'.

Where a player starts: a newcomer at mu 25, sigma 8.33 (ordinal 0); a built-in bot at the version
its level was measured at starts from that published rating (common/measured.py), its prior, so
the rating a difficulty is offered with and the one the player's games then move are one number
on one scale. The player's games are the evidence that moves it, like anybody's.

The model is BradleyTerryFull (MODEL_VERSION names it and its settings; a change invalidates
every cache): it rates a game as every pair of seats compared, a tie between two seats being a
draw between them. PlackettLuce, the library's default, was tried first: from equal ratings, a
shared first place followed by a third player gives the third the same rating as the two
winners, so a tie is not treated as a tie. Pairs cost n^2, which is nothing at 2-7 seats: the
two are as fast here.

No Textual, no network: the app, the commands, the server and the arena all call this.
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from ..common.i18n import YOU, stored_name, you_words
from ..common.measured import MEASURED_BOTS
from ..common.untrusted import LABEL_MAX, NAME_MAX, shown


def model_version(published: dict) -> str:
    """The model's name, the published ratings included: new figures must invalidate every cache."""
    digest = hashlib.sha256(repr(sorted(published.items())).encode()).hexdigest()[:12]
    return f"openskill6-bradleyterryfull-mu25-sigma8.333-tau0.0833-v2-published-{digest}"


MODEL_VERSION = model_version(MEASURED_BOTS)
MU, SIGMA = 25.0, 25.0 / 3.0
RECENT = 10  # games in "the change over the last games"

BOT, ACCOUNT, NAME = "bot:", "ssh:", "name:"
UNVERSIONED = "?"


@dataclass(frozen=True)
class Rating:
    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        """The conservative estimate: mu - 3 sigma (a newcomer starts at 0)."""
        return self.mu - 3.0 * self.sigma

    def as_dict(self) -> dict:
        return {"mu": round(self.mu, 4), "sigma": round(self.sigma, 4), "ordinal": round(self.ordinal, 4)}


@dataclass
class Standing:
    """One player's rating and how it got there."""

    key: str
    rating: Rating = field(default_factory=Rating)
    history: list[float] = field(default_factory=list)  # ordinal after each rated game, oldest first
    game_ids: list[int] = field(default_factory=list)  # the games, in the same order

    @property
    def games(self) -> int:
        return len(self.history)

    @property
    def label(self) -> str:
        return label_of(self.key)

    @property
    def kind(self) -> str:
        return kind_of(self.key)

    def change(self, last: int = RECENT) -> float:
        """How far the ordinal moved over the last `last` games (from where it started if fewer:
        0 for a newcomer, the published rating for a measured bot)."""
        if not self.history:
            return 0.0
        before = self.history[-last - 1] if len(self.history) > last else starting_rating(self.key).ordinal
        return self.history[-1] - before

    def as_dict(self) -> dict:
        return {"player": self.label, "kind": self.kind, "key": shown(self.key, LABEL_MAX * 2),
                "rating": self.rating.as_dict(), "games": self.games, "change_last_10": round(self.change(), 4)}


@dataclass(frozen=True)
class RatedGame:
    """What a rating needs of one finished game: who sat where and how they ranked."""

    id: int
    keys: tuple[str, ...]  # by seat
    ranks: tuple[int, ...]  # by seat; 0 is first, equal numbers are ties
    names: tuple[str, ...] = ()  # by seat, as the statistics name them (not used by the rating)


# --- who a seat is ---------------------------------------------------------------------------
def bot_key(name: str, version: str | None) -> str:
    return f"{BOT}{shown(name, LABEL_MAX)}@{shown(version, LABEL_MAX) if version else UNVERSIONED}"


def account_key(user: str, fingerprint: str | None) -> str:
    return f"{ACCOUNT}{shown(user, NAME_MAX)} {shown(fingerprint, LABEL_MAX) if fingerprint else '-'}"


def name_key(name: str) -> str:
    """A player by name; the nameless player ("You", "Du", "Vous") is one player in any language."""
    return NAME + shown(stored_name(name), NAME_MAX)


def same_player(key: str) -> str:
    """A stored key as rated now: keys stored before the nameless player was one player in every
    language (`name:Du`) read as that player (`name:You`). Nothing stored is rewritten."""
    return NAME + YOU if key in _nameless_keys() else key


@functools.cache
def _nameless_keys() -> frozenset[str]:
    # Read for every seat of every game: the catalogues do not change while duckcover runs.
    return frozenset(NAME + word for word in you_words())


def bot_of(key: str) -> tuple[str, str | None] | None:
    """(bot name, version) of a bot's key (version None when the record had none), else None."""
    if not key.startswith(BOT):
        return None
    name, _, version = key[len(BOT):].rpartition("@")
    return name, (None if version == UNVERSIONED else version)


def starting_rating(key: str, published: bool = True) -> Rating:
    """Where a player starts: a measured bot at the version measured from its published rating,
    anybody else (any other version too) as a newcomer."""
    bot = bot_of(key) if published else None
    measured = MEASURED_BOTS.get(bot[0]) if bot else None
    if measured is not None and measured[0] == bot[1]:
        return Rating(measured[1], measured[2])
    return Rating()


def current_rating(key: str, standings: dict) -> Rating | None:
    """A player's rating as the statistics know it now: learned from the rated games, else a
    measured bot's published one; None for anybody else not rated yet."""
    standing = standings.get(key)
    if standing is not None:
        return standing.rating
    start = starting_rating(key)
    return None if start == Rating() else start


def bot_rating(name: str, version: str | None, standings: dict) -> Rating:
    """A bot's rating as the statistics know it now (current_rating), a newcomer's if none."""
    return current_rating(bot_key(name, version), standings) or Rating()


def seat_keys(players: Sequence[dict], names: Sequence[str], accounts_trusted: bool = False) -> list[str]:
    """The rating key of every seat, from a record's `players` (untrusted: only text is read from
    it, cut to size) and the names the statistics use for the seats.

    `bot_name` (else `bot`) and `bot_version` make a bot's key: the app stamps the bot a label
    stood for (`hard` -> `expert`) and its version when the game is played. `account` ([user, key fingerprint], what the server
    stamps) is read only when `accounts_trusted` (the server's own statistics): a record given to
    `stats --add` cannot claim to be somebody's login."""
    keys = []
    for seat, name in enumerate(names):
        player = players[seat] if seat < len(players) and isinstance(players[seat], dict) else {}
        bot, version, account = player.get("bot"), player.get("bot_version"), player.get("account")
        if isinstance(bot, str) and bot.strip():
            canonical = player.get("bot_name")
            name = canonical if isinstance(canonical, str) and canonical.strip() else bot
            keys.append(bot_key(name.strip(), version if isinstance(version, str) else None))
        elif accounts_trusted and _is_account(account):
            keys.append(account_key(account[0], account[1]))
        else:
            keys.append(name_key(name))
    return keys


def _is_account(value: object) -> bool:
    return (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)
            and (value[1] is None or isinstance(value[1], str)))


def kind_of(key: str) -> str:
    return "bot" if key.startswith(BOT) else "account" if key.startswith(ACCOUNT) else "human"


def label_of(key: str) -> str:
    """What a player is called on screen: the name, the SSH user, or `bot@version`."""
    for prefix in (BOT, NAME):
        if key.startswith(prefix):
            return key[len(prefix):]
    if key.startswith(ACCOUNT):
        return key[len(ACCOUNT):].rsplit(" ", 1)[0]
    return key


def ranks(totals: Sequence[int], winners: Sequence[int]) -> tuple[int, ...]:
    """Seats' ranks: the winners share first place (a tie-break already decided who won), the
    others follow by total, lower first; equal totals tie."""
    order = sorted({(0 if seat in winners else 1, total) for seat, total in enumerate(totals)})
    place = {item: index for index, item in enumerate(order)}
    return tuple(place[(0 if seat in winners else 1, total)] for seat, total in enumerate(totals))


# --- the computation -------------------------------------------------------------------------
def model():
    from openskill.models import BradleyTerryFull

    return BradleyTerryFull(mu=MU, sigma=SIGMA)


def compute(games: Iterable[RatedGame], published: bool = True) -> dict[str, Standing]:
    """Every player's standing after the games, rated one by one in the order given.
    `published`: measured bots start from their published ratings (False: everybody starts
    as a newcomer, what measuring them takes)."""
    rater = model()
    standings: dict[str, Standing] = {}
    current: dict[str, object] = {}  # the model's own rating objects: made once per player (they are not cheap)
    for game in games:
        rate_game(rater, standings, game, current, published)
    return standings


def rate_game(rater, standings: dict[str, Standing], game: RatedGame, current: dict | None = None,
              published: bool = True) -> None:
    """Update `standings` with one game (a game with fewer than two players changes nothing).
    `current`: the model's rating object of each player, kept between calls (compute's).
    A player not in `standings` starts where `starting_rating` says."""
    keys = game.keys
    if len(keys) < 2 or len(keys) != len(game.ranks) or len(set(keys)) < 2:
        return
    current = {} if current is None else current
    teams = []
    for key in keys:
        rating = current.get(key)
        if rating is None:
            standing = standings.setdefault(key, Standing(key, starting_rating(key, published)))
            rating = current[key] = rater.create_rating([standing.rating.mu, standing.rating.sigma])
        teams.append([rating])
    rated = rater.rate(teams, ranks=list(game.ranks))  # the model copies what it is given
    if len(set(keys)) == len(keys):
        after = {key: team[0] for key, team in zip(keys, rated)}
    else:  # one player in several seats: the mean of its seats' new ratings
        grouped: dict[str, list] = {}
        for key, team in zip(keys, rated):
            grouped.setdefault(key, []).append(team[0])
        after = {}
        for key, seats in grouped.items():
            first = seats[0]
            first.mu = sum(s.mu for s in seats) / len(seats)
            first.sigma = sum(s.sigma for s in seats) / len(seats)
            after[key] = first
    for key, rating in after.items():
        current[key] = rating
        standing = standings[key]
        standing.rating = Rating(rating.mu, rating.sigma)
        standing.history.append(rating.mu - 3.0 * rating.sigma)
        standing.game_ids.append(game.id)


def leaderboard(standings: dict[str, Standing], kinds: Iterable[str] | None = None) -> list[Standing]:
    """Best first: highest ordinal, then most games, then the label (a stable order)."""
    wanted = set(kinds) if kinds is not None else None
    found = [s for s in standings.values() if wanted is None or s.kind in wanted]
    return sorted(found, key=lambda s: (-s.rating.ordinal, -s.games, s.label.casefold(), s.key))
