"""A team brain on PostgreSQL: the database backend, its schema, and its listener.

This package is where Comodor talks to a database server; the brain itself imports
no driver (``comodor.brain`` stays a plain library). :mod:`.opening` chooses between
the local file and a team database and is all a plain workspace loads;
:func:`~comodor.teamdb.connect.open_team_store` builds the brain's
:class:`~comodor.teamdb.team_store.TeamStore` over the local file and a
:class:`~comodor.teamdb.postgres.PostgresStore`; :class:`~comodor.teamdb.listener.
TeamListener` turns ``NOTIFY`` into catch-ups and notices an outage and its end.

Everything here needs the optional extra ``comodor-lsp[team]`` (psycopg 3 and
psycopg-pool); without it, a ``brain.url`` is a clear error naming the extra.
"""
