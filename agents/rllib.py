"""RLlib checkpoints as agents: ``agents.make("rllib:runs/rllib_selfplay/checkpoints/iter_000020")``
(a checkpoint folder).

``camelup train --trainer rllib`` (:mod:`training.policy.rllib_trainer`) writes, into every RLlib
checkpoint folder, ``camelup_policy.zip``: the learner's weights as a camelup model file
(:mod:`agents.policy_file`: JSON and plain tensors). This loader reads that file and nothing
else of the checkpoint. RLlib's own restore (``Algorithm.from_checkpoint``,
``RLModule.from_checkpoint``) would unpickle ``class_and_ctor_args.pkl`` (cloudpickle: it
imports and calls whatever the file names) and every ``state.pkl``, so a crafted checkpoint
would run code the moment it is opened; here none of those files is even opened. The network
is rebuilt from project code (the recorded architecture, checked against the recorded rule set
and observation settings), exactly as for ``ppo:``; the agent is a
:class:`agents.ppo.PolicyAgent`.

``PATH`` is a checkpoint folder or a run folder (``out_dir``: its newest checkpoint is used).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.ppo import ModelFileError, PolicyAgent, load_agent

#: What ``camelup train --trainer rllib`` writes into each checkpoint folder (one home:
#: training.policy.rllib_trainer imports these names from here, so the loader needs no Ray).
POLICY_FILE = "camelup_policy.zip"
CHECKPOINT_PREFIX = "iter_"


def policy_file(path: str | Path) -> Path:
    """The camelup policy file of a checkpoint folder, or of a run folder's newest checkpoint;
    :class:`ModelFileError` (one line) if there is none."""
    path = Path(path)
    if not path.is_dir():
        raise ModelFileError(
            f"rllib: {path} is not a folder (give an RLlib checkpoint folder "
            "written by camelup train --trainer rllib, or its run folder)"
        )
    if (path / POLICY_FILE).is_file():
        return path / POLICY_FILE
    checkpoints = sorted(
        p
        for p in (path / "checkpoints").glob(f"{CHECKPOINT_PREFIX}*")
        if (p / POLICY_FILE).is_file()
    )
    if checkpoints:
        return checkpoints[-1] / POLICY_FILE
    raise ModelFileError(
        f"rllib: {path} holds no {POLICY_FILE} (only checkpoints of camelup "
        "train --trainer rllib can play: other RLlib checkpoints load only by "
        "unpickling, see docs/distributed.md)"
    )


def load(rest: str, **kwargs: Any) -> PolicyAgent:
    """Loader for the ``rllib:`` prefix."""
    agent = load_agent(policy_file(rest), **kwargs)
    agent.source = f"rllib:{rest}"
    return agent
