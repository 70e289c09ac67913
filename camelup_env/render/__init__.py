"""Pictures of a game: text (the environments' ``render``), PNG images and SVG boards."""
