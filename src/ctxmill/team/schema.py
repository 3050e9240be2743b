"""The team store's tables, versioned: ``ctx_meta.schema_version`` says which layout a database
has; a client applies the steps from there to ``SCHEMA_VERSION`` in one transaction, under an
advisory lock (so two clients that start together do not both run them), and refuses a newer
layout. docs/team.md lists every column.

Version 1:

* ``ctx_meta``    key/value: schema version, embedder name and dimension, the key check value
* ``ctx_files``   one row per (repo, branch, path): the file's content hash (the Merkle leaf),
                  the blob its chunks belong to, status, language, chunk count
* ``ctx_nodes``   Merkle folder nodes per (repo, branch)
* ``ctx_blobs``   one row per chunked file content; a file's chunks are written with it, once,
                  and shared by every branch where the file is unchanged
* ``ctx_chunks``  line ranges, kind, language, the content hash, the symbol and context sealed
                  with the team key, keyed term hashes as a tsvector (GIN), text only with
                  ``--store-text``
* ``ctx_terms``   document frequency of each keyed term hash (idf for the lexical score)
* ``ctx_vectors`` one embedding per chunk content hash (pgvector, HNSW with cosine distance);
                  created when the first client names its embedder, because the column's
                  dimension comes from it

Version 2 adds ``ctx_postings``, an impact-ordered inverted index of the keyed terms (below);
version 3 an index of the forwarding files' chunks (``ctx_chunks_facade``); version 4 covering
indexes for the reads of a search; version 5 each blob's naming terms, sealed (``ctx_blobs.names``),
and a covering index of the file rows by blob.

Repository, branch, path and folder names are keyed HMACs (ctxmill.team.keys).
"""

from __future__ import annotations

from ctxmill.errors import InputRefused

SCHEMA_VERSION = 5
LOCK_ID = 0x637478_6D696C6C  # pg_advisory lock for schema changes ("ctxmill")

_V1 = [
    "CREATE TABLE IF NOT EXISTS ctx_meta(key text PRIMARY KEY, value text NOT NULL)",
    """CREATE TABLE IF NOT EXISTS ctx_files(
        repo text NOT NULL, branch text NOT NULL, path text NOT NULL, dir text NOT NULL,
        hash text NOT NULL, blob text NOT NULL, status text NOT NULL, language text,
        chunks integer NOT NULL DEFAULT 0, updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (repo, branch, path))""",
    "CREATE INDEX IF NOT EXISTS ctx_files_dir ON ctx_files(repo, branch, dir)",
    "CREATE INDEX IF NOT EXISTS ctx_files_blob ON ctx_files(blob)",
    """CREATE TABLE IF NOT EXISTS ctx_nodes(
        repo text NOT NULL, branch text NOT NULL, path text NOT NULL, parent text, hash text NOT NULL,
        PRIMARY KEY (repo, branch, path))""",
    "CREATE INDEX IF NOT EXISTS ctx_nodes_parent ON ctx_nodes(repo, branch, parent)",
    """CREATE TABLE IF NOT EXISTS ctx_blobs(
        blob text PRIMARY KEY, chunks integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now())""",
    """CREATE TABLE IF NOT EXISTS ctx_chunks(
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        blob text NOT NULL REFERENCES ctx_blobs(blob) ON DELETE CASCADE,
        start_line integer NOT NULL, end_line integer NOT NULL, kind text, language text,
        hash text NOT NULL, symbol bytea, context bytea, text text, terms tsvector, doclen integer NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS ctx_chunks_blob ON ctx_chunks(blob)",
    "CREATE INDEX IF NOT EXISTS ctx_chunks_hash ON ctx_chunks(hash)",
    "CREATE INDEX IF NOT EXISTS ctx_chunks_terms ON ctx_chunks USING gin(terms)",
    # document frequency of each keyed term over a repository's chunk rows ('' counts the chunks,
    # '#len' adds up their lengths): BM25's idf and average length for the lexical score, and the
    # lexical score's idf, and the near-universal terms a query leaves out, as the local index does
    """CREATE TABLE IF NOT EXISTS ctx_terms(
        repo text NOT NULL, term text NOT NULL, df bigint NOT NULL, PRIMARY KEY (repo, term))""",
]

# Version 2: an impact-ordered inverted index beside the tsvector, so a search of a large
# repository reads a bounded number of postings (the top few hundred of each query term, then
# one primary-key probe per candidate and term) instead of every chunk that matches. ``term``
# is the keyed term hash XOR the repository's (64 bits each), so one term's postings of one
# repository are one range of the index; ``tf`` is the term's weighted frequency in the chunk
# (body 1, path 2, symbol 4, as stored in the tsvector) and ``impact`` its BM25 saturation
# against the repository's average chunk length when written (the order of the top-k only; the
# score is computed from ``tf`` and the current average). Filled from the tsvectors of every
# chunk a file row uses (old blobs are garbage).
_BM25_TF = "sum(CASE x WHEN 'A' THEN 4 WHEN 'B' THEN 2 ELSE 1 END)::real"
_V2 = [
    """CREATE TABLE IF NOT EXISTS ctx_postings(
        chunk bigint NOT NULL, term bigint NOT NULL, tf real NOT NULL, impact real NOT NULL,
        PRIMARY KEY (chunk, term))""",
    f"""INSERT INTO ctx_postings(chunk, term, tf, impact)
        SELECT c.id, ('x' || e.lexeme)::bit(64)::bigint # ('x' || substr(fb.repo, 1, 16))::bit(64)::bigint, t.tf,
               t.tf * 2.2 / (t.tf + 1.2 * (0.25 + 0.75 * c.doclen / coalesce(a.avgdl, 1)))
        FROM (SELECT DISTINCT repo, blob FROM ctx_files) fb
        JOIN ctx_chunks c ON c.blob = fb.blob
        LEFT JOIN (SELECT l.repo, greatest(l.df::float8 / greatest(n.df, 1), 1) AS avgdl FROM ctx_terms l
                   JOIN ctx_terms n ON n.repo = l.repo AND n.term = '' WHERE l.term = '#len') a ON a.repo = fb.repo
        CROSS JOIN LATERAL unnest(c.terms) e
        CROSS JOIN LATERAL (SELECT {_BM25_TF} AS tf FROM unnest(e.weights) x) t
        ON CONFLICT DO NOTHING""",
    "CREATE INDEX IF NOT EXISTS ctx_postings_impact ON ctx_postings(term, impact DESC, chunk)",
]

# Version 3: the forwarding files' chunks (kind 'facade', ctxmill.index.facades) in an index of
# their own, so the ranker's facade lookup (pgstore._facades, once per synced state) reads those
# few rows instead of every chunk of the (repo, branch)
_V3 = ["CREATE INDEX IF NOT EXISTS ctx_chunks_facade ON ctx_chunks(blob) WHERE kind = 'facade'"]

# Version 4: covering indexes for the reads of a search, so they come from the indexes alone
# (index-only scans) and never from the wide chunk rows (tsvector, sealed symbol and context),
# which at 10^5-10^6 chunks are random page reads: the vector leg's content hash -> chunk id and
# blob, the lexical leg's chunk id -> blob and length, and its per-chunk probe of a query
# term's frequency (the postings' key now carries tf)
_V4 = [
    "CREATE INDEX IF NOT EXISTS ctx_chunks_hash_cover ON ctx_chunks(hash) INCLUDE (id, blob)",
    "DROP INDEX IF EXISTS ctx_chunks_hash",
    "CREATE INDEX IF NOT EXISTS ctx_chunks_id_cover ON ctx_chunks(id) INCLUDE (blob, doclen)",
    "ALTER TABLE ctx_postings DROP CONSTRAINT IF EXISTS ctx_postings_pkey, "
    "ADD CONSTRAINT ctx_postings_pkey PRIMARY KEY (chunk, term) INCLUDE (tf)",
]

# Version 5: what names each file as a whole for the ranker (rank.FileNames: its path's, its
# symbols' and its head comment's identifiers), per blob, sealed with the team key like the
# symbols it is made of. A search then reads one sealed value per hit file instead of every chunk
# row of the file (and the file's head from the checkout): at 519k chunks that was 20-38 ms a
# search. A blob is per (keyed path, content), so its names never change. Blobs written before
# have none until a client of their (repo, branch) fills them (``names_todo:<repo>:<branch>``,
# read by the client's query at open; pgstore.PgStore._fill_names); a search reads the chunk rows
# of a file whose blob has none, as before. The file rows' blob index also carries (repo, branch),
# so the search's per-candidate "is this chunk in my branch" probe is read from the index alone.
_V5 = [
    "ALTER TABLE ctx_blobs ADD COLUMN IF NOT EXISTS names bytea",
    "CREATE INDEX IF NOT EXISTS ctx_files_blob_cover ON ctx_files(blob) INCLUDE (repo, branch)",
    "DROP INDEX IF EXISTS ctx_files_blob",
    "INSERT INTO ctx_meta(key, value) SELECT DISTINCT 'names_todo:' || repo || ':' || branch, '1' FROM ctx_files "
    "ON CONFLICT (key) DO NOTHING",
]

STEPS = {0: _V1, 1: _V2, 2: _V3, 3: _V4, 4: _V5}  # from version N to N + 1

# The chunk and postings indexes as SCHEMA_VERSION has them, by name: a first load of an empty
# store drops them, writes every row, then builds each once from a sort (pgstore.PgStore's
# bulk load), instead of updating ~7 indexes for every chunk and ~56 postings a chunk row by
# row (random inserts into indexes larger than the buffers, each page written to the WAL again
# after every checkpoint). (name, how to drop it, how to build it); the builds are idempotent.
DEFERRED = [
    ("ctx_chunks_blob", "DROP INDEX IF EXISTS ctx_chunks_blob",
     "CREATE INDEX IF NOT EXISTS ctx_chunks_blob ON ctx_chunks(blob)"),
    ("ctx_chunks_terms", "DROP INDEX IF EXISTS ctx_chunks_terms",
     "CREATE INDEX IF NOT EXISTS ctx_chunks_terms ON ctx_chunks USING gin(terms)"),
    ("ctx_chunks_facade", "DROP INDEX IF EXISTS ctx_chunks_facade", _V3[0]),
    ("ctx_chunks_hash_cover", "DROP INDEX IF EXISTS ctx_chunks_hash_cover", _V4[0]),
    ("ctx_chunks_id_cover", "DROP INDEX IF EXISTS ctx_chunks_id_cover", _V4[2]),
    ("ctx_postings_impact", "DROP INDEX IF EXISTS ctx_postings_impact", _V2[2]),
    ("ctx_postings_pkey", "ALTER TABLE ctx_postings DROP CONSTRAINT IF EXISTS ctx_postings_pkey",
     "DO $$ BEGIN IF to_regclass('ctx_postings_pkey') IS NULL THEN "
     "ALTER TABLE ctx_postings ADD CONSTRAINT ctx_postings_pkey PRIMARY KEY (chunk, term) INCLUDE (tf); "
     "END IF; END $$"),
]
BULK_LOCK = LOCK_ID + 1  # held (session-level) by the client whose bulk load dropped DEFERRED
BULK_KEY = "bulk_load"  # ctx_meta: set while DEFERRED are dropped (a load died when no one holds BULK_LOCK)


def vector_table(dim: int) -> list[str]:
    return [f"""CREATE TABLE IF NOT EXISTS ctx_vectors(
        hash text PRIMARY KEY, embedding vector({int(dim)}) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now())"""]


# Built after a first bulk load (building the graph once is several times faster than growing
# it row by row), and from then on kept up by every insert.
HNSW_INDEX = ("CREATE INDEX IF NOT EXISTS ctx_vectors_hnsw ON ctx_vectors "
              "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)")


def ensure(conn) -> None:
    """Bring the database to SCHEMA_VERSION (or refuse); pgvector must be there."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK_ID,))
        have = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
        if have is None:
            available = conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
            if available is None:
                raise InputRefused("the team store's PostgreSQL server has no pgvector (extension 'vector' is not "
                                   "available); install pgvector there, or use `ctxmill store start`")
            try:
                with conn.transaction():
                    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except Exception as exc:
                raise InputRefused("pgvector is installed on the server but not enabled in this database and this "
                                   f"role cannot enable it ({_first_line(exc)}); run CREATE EXTENSION vector "
                                   "as its owner") from None
        row = conn.execute("SELECT to_regclass('ctx_meta') IS NOT NULL").fetchone()
        version = 0
        if row[0]:
            got = conn.execute("SELECT value FROM ctx_meta WHERE key = 'schema_version'").fetchone()
            version = int(got[0]) if got else 0
        if version > SCHEMA_VERSION:
            raise InputRefused(f"the team store's schema version {version} is newer than this ctxmill supports "
                               f"({SCHEMA_VERSION}); upgrade ctxmill")
        for step in range(version, SCHEMA_VERSION):
            for statement in STEPS[step]:
                conn.execute(statement)
        if version != SCHEMA_VERSION:
            conn.execute("INSERT INTO ctx_meta(key, value) VALUES ('schema_version', %s) "
                         "ON CONFLICT (key) DO UPDATE SET value = excluded.value", (str(SCHEMA_VERSION),))


def check(conn) -> None:
    """For a reader (which may be on a read replica, where nothing can be written): the store
    exists and its layout is one this ctxmill reads."""
    if not conn.execute("SELECT to_regclass('ctx_meta') IS NOT NULL").fetchone()[0]:
        raise InputRefused("the team store is empty: run `ctxmill index ROOT --store URL` first")
    got = conn.execute("SELECT value FROM ctx_meta WHERE key = 'schema_version'").fetchone()
    version = int(got[0]) if got else 0
    if version != SCHEMA_VERSION:
        raise InputRefused(f"the team store's schema version {version} is not the one this ctxmill reads "
                           f"({SCHEMA_VERSION}); {'upgrade ctxmill' if version > SCHEMA_VERSION else 'sync into it once'}")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
