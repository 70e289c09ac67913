"""Evaluation moved to :mod:`tournament.evaluate` (one runner for tournaments and evaluation);
this re-export keeps ``from training.evaluate import evaluate`` working for training code."""

from tournament.evaluate import EvalResult, evaluate

__all__ = ["EvalResult", "evaluate"]
