"""The policy-gradient line: self-play PPO and what starts or refines its policies.

:mod:`training.policy.sb3_trainer` (``camelup train``, sb3-contrib's MaskablePPO) and
:mod:`training.policy.rllib_trainer` (``--trainer rllib``) share their settings
(:mod:`~training.policy.settings`) and opponents (:mod:`~training.policy.selfplay`,
:mod:`~training.policy.opponent_focus`); SB3 plays on the batch core through
:mod:`~training.policy.vec_env` (split over processes by :mod:`~training.policy.sharded_vec_env`).
A policy starts from a scripted bot's moves (:mod:`~training.policy.imitation`, the value head
from the win model: :mod:`~training.policy.value_warmup`), is fitted to one without PPO
(:mod:`~training.policy.distill`, ``camelup distill``), or improved towards its own search
(:mod:`~training.policy.expert_iteration`, ``camelup iterate``). These policies are the
baseline the afterstate learner (:mod:`training.afterstate`) is compared to.
"""
