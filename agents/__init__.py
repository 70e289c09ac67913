"""Scripted baselines and trained-policy loaders for camelup."""
