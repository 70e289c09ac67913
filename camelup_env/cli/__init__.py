"""The command-line tools that live with the game: ``camelup odds`` and the terminal demo."""
