"""
# Camel Up

| Import             | `from camelup_env import camelup_v1`                            |
|--------------------|-----------------------------------------------------------------|
| Actions            | Discrete                                                        |
| Parallel API       | No                                                              |
| Manual Control     | No                                                              |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`, n = 2..8 (10)     |
| Action Shape       | ()                                                              |
| Action Values      | Discrete(46) classic; supercup 114-130; persian_tutorial 36; cup 70 |
| Observation Shape  | Dict(observation: Box(float32, (N,)), action_mask: Box(int8))   |
| Observation Values | bounded per entry (see `observation_space(agent)["observation"]`) |

Camel Up is a 2-8 (Supercup: 2-10) player betting game about a camel race. Players never
control a camel: on a turn a player takes a leg-bet tile, places or moves their
desert/spectator tile, takes a pyramid tile (a die is drawn and its camel moves, carrying every
camel stacked on it), or bets face down on the overall winner or loser. Coins are paid at the
end of each leg (when the pyramid tiles are used up) and at the end of the race; the richest
player wins. The rules, presets (`classic` 2014, `second_edition` 2018 with crazy camels,
spectator tiles and partnerships at 6+ players, `supercup` = classic + the four Supercup
modules, R9) and every interpretation are on the rules page (`docs/rules.md`); rule ids (R4.2,
...) below refer to it.

Supercup (`RuleSet("supercup", num_players=2..10, support_dice=, extra_action=, photographer=,
position_bets=, partnerships=)`): module 1 (20-space track, 6 pyramid tiles, support dice),
module 2 (photographer), module 3 (position bets), module 4 (partnerships, 6+ players); 9-10
players need all four (R1.4). With `extra_action=True` (R9.1.4) a player who holds a pyramid
tile decides, **after** the turn's action, whether to return one and add a support die: that is
a **second decision of the same agent in the same turn**. `agent_selection` follows the
engine's `state.current`, which stays on that seat with `state.extra_pending=True`; the agent's
`action_mask` then allows only `SkipExtra` and the legal `AddSupportDie(camel)` actions, and the
`extra_pending` observation slice is 1. The extra decision is a step like any other (its
reward is 0 unless `coin_shaping` sees coins change, which it never does).

Seats are `player_0 .. player_{n-1}` = engine seats 0..n-1; seat 0 starts (or
`reset(options={"first_player": k})`). Chance (the setup, R2, and every die drawn, R4.3) comes
from the generator seeded by `reset(seed=...)` (`gymnasium.utils.seeding.np_random`), so a seed
fixes the whole game given the actions.

### Observation Space

`observe(agent)` returns a dict: `"observation"`, a flat `float32` vector of everything that agent
may see (R10), and `"action_mask"`, an `int8` 0/1 vector over the actions (all zero unless the
agent is the one to act). The vector is made of named slices; `env.unwrapped.observation_layout`
maps each name to its `(start, stop)` and `env.unwrapped.observer.view(obs, name)` returns a slice
in its documented shape. All per-seat slices are **relative**: seat 0 is the observing agent,
then the others in turn order. `camelup_env.observation.SLICES` is the table of every slice (its
shape in symbols, bounds, meaning, and the rule sets or settings that have it), rendered on the
documentation's environment page; `env.unwrapped.observer.slices` are this game's. In short: the
track (camels' spaces, heights, ranking, tiles), the leg (dice out, pyramid tiles, leg-bet
stacks), every seat's public holdings (coins, leg bets, tiles, how many race cards), who placed
each race-bet card - **another player's card colour is never encoded** - and the agent's own
cards; each Supercup module and the Persian tutorial add their slices. With
`odds_features=True` (default) the exact leg rank probabilities, the top leg-bet tiles' values
and estimated race odds (`camelup_env.odds.position_odds`; deterministic); with
`action_values=True` (default) the agent's immediate expected coins of every action / 10: the
numbers the `greedy` bot maximises, so a policy can represent greedy as an argmax over the
legal actions and learn corrections.

Sizes with the default slices: classic 2p 412, 4p 606, 8p 1234; second edition 4p 652, 6p 974,
8p 1360; supercup 4p (extra action) 823, 10p 2052; Persian tutorial 4p 647; Cup 722.

The Persian tutorial (`preset="persian_tutorial"`, R14) has no track tiles (its `tiles` slice
stays zero), a `wanderer` (L,) slice (the desert wanderer's space), `loser_cards` (n, R) and
`loser_card_value` (R,) (its leg loser cards); `leg_stacks` and `leg_bets_held` show its leg
winner cards (the value the next one pays, the values played). 36 actions: winner cards,
draw a die, race bets, then `PlayLoserCard(camel)` and the wanderer's `WandererSwap(lower,
upper)` / `WandererSendBack(camel)`.

The Camel Up Cup (`preset="cup"`, rules C1-C13, 4 players only) has 70 actions: its traps may
go on spaces 2-28, past the finish line, so the `tiles` slice covers those 27 spaces; coins may
be negative (`coins` from -5).

#### Legal Actions Mask

`observation["action_mask"]` (`int8` 0/1, PettingZoo's convention; the Gymnasium envs' masks
are `bool`) marks the legal actions of the agent to act. Through `env()`, an illegal action
ends the game: the offender gets -1 and every other agent 0 (PettingZoo's
`TerminateIllegalWrapper`). Through `raw_env()`, an illegal action raises
`camelup_env.IllegalActionError` naming the rule.

### Action Space

`Discrete(len(action_table(rules)))`; the layout is defined in `camelup_env/game/actions.py`: leg
bets
(one per racing camel), take a pyramid tile, place the tile (space 2..L x side +1/-1), race bets
(winner pile per colour, then loser pile per colour), and `Partner(seat)` per seat only when the
rule set has partnerships; then, only with their Supercup module, `Photograph(space)` per space
1..L (R9.2), `PositionBet(position, camel, from_stack)` (R9.3: 4 tiles x 5 camels x own tile /
stack bottom) and `SkipExtra()` + `AddSupportDie(camel)` (R9.1.4). Supercup 4p with modules 1-3:
114 actions (120 with the extra action); 10p with all four: 124 (130); in general
`len(action_table(rules))`. `camelup_env.describe(action_table(rules).actions[i], rules)` says what
action `i` does.

### Rewards

Rewards are given when the race ends (all agents terminate together), as
`camelup_env.game.rewards` computes them for every environment. With k tied winners (most coins,
R7.3) among n players:

* `reward_mode="win"` (default, zero-sum): each winner gets `+1/k`, each other player
  `-1/(n-k)`; if all n players tie, everyone gets 0. (2 players: +1 / -1, a tie 0 / 0.)
* `reward_mode="rank"` (zero-sum): rank r (0 = most coins) maps linearly to
  `1 - 2 r / (n - 1)` (+1 first ... -1 last); tied players share the average of the values of
  the ranks they occupy (4 players, two tied for first: +2/3 each, then -1/3, -1).
* `reward_mode="coins"`: `(own coins - best opponent's coins) / 10` (not zero-sum).

`coin_shaping=c` (default 0, a finite number >= 0) adds `c * (change in own coins)` at every
step (tile payouts, leg scoring, final bets), on top of the terminal reward. If the game reaches
`max_turns` turns (a positive whole number, or `None` for no limit) it is truncated (all
agents) with no terminal reward (every step counts, Supercup extra decisions included). The
three settings are checked and kept together as `env.unwrapped.episode`
(`camelup_env.game.episode.EpisodeSettings`, shared by every environment of the package).

### Infos and events

`infos[agent]` is an empty dict by default: the legal actions are in the observation, and an
info value that is not a fixed-shape number breaks the libraries that stack infos into arrays
(TorchRL's `PettingZooWrapper` builds a spec from the first infos and fills it at every step;
Tianshou's buffers stack them). What happened in the last step is `env.unwrapped.last_events`:
agent -> the engine's events of the last step as that agent may see them (other players'
race-bet colours hidden, see `camelup_env.game.events.public_view`), empty after `reset`. With
`info_events=True` the same tuples are also `infos[agent]["events"]`, for loops that read
events from `last()` and stack nothing.

### Arguments

``` python
camelup_v1.env(preset="classic", num_players=4, render_mode=None, reward_mode="win",
               odds_features=True, coin_shaping=0.0, race_samples=None, rules=None,
               max_turns=1000, render_viewer="current", action_values=True,
               info_events=False)
```

`preset`: `"classic"`, `"second_edition"`, `"supercup"` (modules at their defaults),
`"persian_tutorial"` (the Persian tutorial's game, R14) or `"cup"` (the Camel Up Cup, C1-C13).
`num_players`: 2-8 (supercup 2-10). `rules`: a `RuleSet` (overrides `preset` and
`num_players`; the way to switch Supercup modules). `render_mode`: `"human"` (prints the text view),
`"ansi"` (returns it), `"rgb_array"` (a Pillow-drawn HxWx3 image). `render_viewer`: whose view
the renderings show: `"current"` (default: the agent to act, as a training loop would show it;
hidden cards of others stay hidden; after the race everything is shown), a seat number, or
`None` (omniscient, for debugging). `reward_mode`, `coin_shaping`, `max_turns`: see Rewards.
`odds_features`, `action_values`, `race_samples`: see Observation Space (`race_samples=None`:
`camelup_env.odds.RACE_SAMPLES`, or 200 with `action_values=False`).
`info_events`: see Infos and events. `env.unwrapped.observer.metadata` is the dict of observer
flags a trained model records, next to `ENV_VERSION` (`"camelup_v1"`).

`env.unwrapped.state` is the engine's `GameState` (omniscient, for debugging: never give it to a
bot; bots get observations and `camelup_env.observation.public_view(state, seat)`). PettingZoo's
optional global `state()` method is not implemented.

### Version History

* v1 (camelup 0.2.0): `infos[agent]` no longer holds `"events"` and `"action_mask"` (an empty
  dict; the events are `env.unwrapped.last_events`, or `infos` again with `info_events=True`;
  the mask is the observation's). Observations, actions, rewards and rules are unchanged.
* v1: the observation gains the `action_values` slice (after the odds slices); the odds slices
  come from `camelup_env.odds.position_odds` (one leg enumeration per position, shared with
  greedy bots; a cheaper race estimate, exact when the race ends within the leg, with the error
  bound documented in `camelup_env.odds`), `race_samples` defaults to
  `camelup_env.odds.RACE_SAMPLES`. Actions, rewards and rules are unchanged.
  `camelup_v1.env(action_values=False)` is the v0 observation bit for bit (its race estimate
  included); `camelup_env.camelup_v0` is kept as exactly that, for models trained on v0.
* v0: initial (classic, second edition); v0: + supercup (preset, modules, the extra action as a
  second decision, Supercup observation slices). Rule sets that existed before keep their
  observation and action layouts.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from camelup_env.envs.spaces import masked_observation
from camelup_env.envs.spaces import masked_observation_space as observation_space
from camelup_env.game.actions import action_table
from camelup_env.game.engine import apply_action, winners
from camelup_env.game.episode import (
    DEFAULT_COIN_SHAPING,
    DEFAULT_MAX_TURNS,
    DEFAULT_REWARD_MODE,
    EpisodeSettings,
)
from camelup_env.game.events import Event, RaceBetPlaced
from camelup_env.game.events import public_view as public_event
from camelup_env.game.legality import IllegalActionError, legal_action_mask
from camelup_env.game.rewards import final_rewards
from camelup_env.game.rules import RuleSet
from camelup_env.game.setup import new_game
from camelup_env.game.state import GameState
from camelup_env.observation import Observer
from camelup_env.render.text import RENDER_MODES, check_render_settings, render_state

#: This environment's name and version (PettingZoo convention); trained models record it.
ENV_VERSION = "camelup_v1"


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard classic-game wrappers (see the docstring)."""
    return standard_wrappers(raw_env(**kwargs))


def standard_wrappers(e: AECEnv) -> AECEnv:
    """PettingZoo's classic-game wrappers, in the order ``env()`` applies them."""
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv):
    """Camel Up as a PettingZoo AEC environment; see the module docstring."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": list(RENDER_MODES),
        "name": ENV_VERSION,
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        preset: str = "classic",
        num_players: int = 4,
        render_mode: str | None = None,
        reward_mode: str = DEFAULT_REWARD_MODE,
        odds_features: bool = True,
        coin_shaping: float = DEFAULT_COIN_SHAPING,
        race_samples: int | None = None,
        rules: RuleSet | None = None,
        max_turns: int | None = DEFAULT_MAX_TURNS,
        render_viewer: int | str | None = "current",
        action_values: bool = True,
        info_events: bool = False,
    ):
        super().__init__()
        if rules is None:
            rules = RuleSet(preset, num_players=num_players)
        if not isinstance(rules, RuleSet):
            raise TypeError(f"rules must be a RuleSet, got {type(rules).__name__}")
        self.episode = EpisodeSettings(reward_mode, coin_shaping, max_turns)
        check_render_settings(render_mode, render_viewer, rules.num_players)
        self.rules = rules
        self.render_mode = render_mode
        self.render_viewer = render_viewer
        self.observer = Observer(
            rules,
            odds_features=odds_features,
            race_samples=race_samples,
            action_values=action_values,
        )
        self._n_actions = len(action_table(rules))
        self.possible_agents = [f"player_{i}" for i in range(rules.num_players)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_spaces = {
            a: observation_space(self.observer, self._n_actions) for a in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Discrete] = {
            a: spaces.Discrete(self._n_actions) for a in self.possible_agents
        }
        self._state: GameState | None = None
        self._np_random: np.random.Generator | None = None
        self._np_random_seed: int | None = None
        self._mask = np.zeros(self._n_actions, dtype=np.int8)
        self._zero_mask = np.zeros(self._n_actions, dtype=np.int8)
        self._zero_mask.setflags(write=False)
        self._turns = 0
        self.info_events = info_events
        #: agent -> the engine's events of the last step, as that agent may see them
        self.last_events: dict[str, tuple[Event, ...]] = {}

    # Spaces and views ------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    @property
    def observation_layout(self) -> dict[str, tuple[int, int]]:
        """Slice name -> (start, stop) in ``observe(agent)["observation"]``."""
        return dict(self.observer.layout)

    @property
    def state(self) -> GameState:
        """The engine's omniscient :class:`GameState` (debugging only; never give it to bots)."""
        if self._state is None:
            raise AttributeError("the environment has no game before reset()")
        return self._state

    @property
    def np_random(self) -> np.random.Generator:
        if self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random()
        return self._np_random

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        state = self.state
        mask = self._mask if seat == state.current and not state.game_over else self._zero_mask
        return masked_observation(self.observer.observe(state, seat), mask)

    # Game loop -------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        first = int((options or {}).get("first_player", 0))
        self._state = new_game(self.rules, seed=self._np_random, first_player=first)
        self._turns = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._set_mask_and_infos(())
        self.agent_selection = self.possible_agents[self._state.current]
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:  # only a finished agent's step may pass None (handled above)
            raise IllegalActionError("not a camelup action: None")
        old = self.state
        # Raises IllegalActionError (naming the rule) for an illegal or out-of-range action.
        new, events = apply_action(old, action, self.np_random)
        self._state = new
        self._turns += 1
        self._cumulative_rewards[agent] = 0.0
        rewards = dict.fromkeys(self.agents, 0.0)
        shaping = self.episode.coin_shaping
        if shaping and new.coins != old.coins:
            for a in self.agents:
                s = self._seat[a]
                rewards[a] += shaping * (new.coins[s] - old.coins[s])
        if new.game_over:
            for a, r in zip(
                self.possible_agents,
                final_rewards(new.coins, self.episode.reward_mode),
                strict=True,
            ):
                if a in rewards:
                    rewards[a] += r
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.episode.truncates(self._turns):
            self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = rewards
        self._set_mask_and_infos(events)
        self.agent_selection = self.possible_agents[new.current]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _set_mask_and_infos(self, events: tuple[Event, ...]) -> None:
        self._mask = legal_action_mask(self.state)  # all zero once the race is over
        hidden = RaceBetPlaced in map(type, events)
        self.last_events = {
            a: tuple(public_event(e, self._seat[a]) for e in events) if hidden else events
            for a in self.agents
        }
        self.infos = {
            a: {"events": self.last_events[a]} if self.info_events else {} for a in self.agents
        }

    def winners(self) -> tuple[str, ...]:
        """Agents with the most coins (R7.3); meaningful once the race is over."""
        return tuple(self.possible_agents[s] for s in winners(self.state))

    # Rendering -------------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode."
            )
            return None
        if self._state is None:
            raise RuntimeError("call reset() before render()")
        return render_state(self.state, self.render_mode, self.render_viewer)

    def close(self) -> None:
        pass
