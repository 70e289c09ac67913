"""Pictures of a game: text (the environments' ``render``, and events in words), PNG images and
SVG boards."""
