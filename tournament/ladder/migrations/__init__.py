"""The ladder database's migrations (Alembic): ``versions/`` holds one script a schema change,
applied in order by :func:`tournament.ladder.db.migrate`, so a ladder made by an older release
opens in a newer one with its games intact."""
