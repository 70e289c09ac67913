"""Self-play PPO training, evaluation and tournaments for camelup."""
