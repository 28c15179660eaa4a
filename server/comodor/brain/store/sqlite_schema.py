"""The brain's SQLite schema and its forward migrations.

``PRAGMA user_version`` records how far a file has been migrated. Migrations
only ever move forward, each in its own transaction. A file written by a newer
Comodor (a version we do not know) is used only when that Comodor recorded that
ours can still use it (:data:`COMPATIBLE_FROM`); otherwise it is refused rather
than guessed at, so an old release can never damage a newer brain.

The FTS5 index over lessons is an external-content table over the ``terms``
column (the lesson's terms in any script, computed in Python by
:func:`comodor.brain.recall.text.terms`; the tokenizer only splits them apart), kept in
sync by triggers. The update trigger fires only when the terms change: credit
updates (``wins = wins + 1``) happen on every task and must not rewrite the
full-text index each time. Migrations may call ``comodor_terms(text)`` and
``comodor_trigger_prefix(trigger, terms)``, which the store registers on its connection.

``lesson_log`` records which lessons changed, so every process holding an
in-memory recall index (language server, MCP server) can catch up with writes
made by the others.
"""

from __future__ import annotations

APPLICATION_ID = int.from_bytes(b"CmdL", "big")
"""``PRAGMA application_id`` of every Comodor brain ("CmdL", 0x436D644C): see store/identity.py."""

MIGRATIONS: tuple[str, ...] = (
    # 1: the first schema.
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

    CREATE TABLE lessons (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        scope TEXT NOT NULL,
        trigger TEXT NOT NULL,
        guidance TEXT NOT NULL,
        terms TEXT NOT NULL DEFAULT '',
        confidence REAL NOT NULL,
        pinned INTEGER NOT NULL DEFAULT 0,
        source TEXT NOT NULL DEFAULT '',
        uses INTEGER NOT NULL DEFAULT 0,
        wins INTEGER NOT NULL DEFAULT 0,
        losses INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        last_used REAL NOT NULL DEFAULT 0,
        last_success REAL NOT NULL DEFAULT 0
    );
    CREATE INDEX lessons_by_scope ON lessons(scope);

    CREATE VIRTUAL TABLE lessons_fts USING fts5(
        trigger, guidance, content='lessons', content_rowid='id',
        tokenize='porter unicode61'
    );
    CREATE TRIGGER lessons_fts_insert AFTER INSERT ON lessons BEGIN
        INSERT INTO lessons_fts(rowid, trigger, guidance)
        VALUES (new.id, new.trigger, new.guidance);
    END;
    CREATE TRIGGER lessons_fts_delete AFTER DELETE ON lessons BEGIN
        INSERT INTO lessons_fts(lessons_fts, rowid, trigger, guidance)
        VALUES ('delete', old.id, old.trigger, old.guidance);
    END;
    CREATE TRIGGER lessons_fts_update AFTER UPDATE OF trigger, guidance ON lessons BEGIN
        INSERT INTO lessons_fts(lessons_fts, rowid, trigger, guidance)
        VALUES ('delete', old.id, old.trigger, old.guidance);
        INSERT INTO lessons_fts(rowid, trigger, guidance)
        VALUES (new.id, new.trigger, new.guidance);
    END;

    CREATE TABLE lesson_log (
        rev INTEGER PRIMARY KEY AUTOINCREMENT,
        lesson_id INTEGER NOT NULL
    );
    CREATE TRIGGER lesson_log_insert AFTER INSERT ON lessons BEGIN
        INSERT INTO lesson_log(lesson_id) VALUES (new.id);
    END;
    CREATE TRIGGER lesson_log_delete AFTER DELETE ON lessons BEGIN
        INSERT INTO lesson_log(lesson_id) VALUES (old.id);
    END;
    CREATE TRIGGER lesson_log_update AFTER UPDATE OF
        kind, scope, trigger, guidance, confidence, pinned, wins, losses, last_success
        ON lessons BEGIN
        INSERT INTO lesson_log(lesson_id) VALUES (new.id);
    END;

    CREATE TABLE rules (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL,
        scope TEXT NOT NULL,
        language TEXT NOT NULL DEFAULT '',
        category TEXT NOT NULL,
        pinned INTEGER NOT NULL DEFAULT 0,
        active INTEGER NOT NULL DEFAULT 1,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        UNIQUE (key, scope, language)
    );
    CREATE TABLE rule_votes (
        id INTEGER PRIMARY KEY,
        rule_id INTEGER NOT NULL REFERENCES rules(id) ON DELETE CASCADE,
        value TEXT NOT NULL,
        statement TEXT NOT NULL,
        kind TEXT NOT NULL,
        weight REAL NOT NULL,
        origin TEXT NOT NULL,
        detail TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL,
        UNIQUE (rule_id, origin, value)
    );
    CREATE INDEX rule_votes_by_rule ON rule_votes(rule_id);
    CREATE INDEX rule_votes_by_origin ON rule_votes(origin);

    CREATE TABLE skills (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        description TEXT NOT NULL,
        steps TEXT NOT NULL,
        scope TEXT NOT NULL,
        source TEXT NOT NULL DEFAULT '',
        uses INTEGER NOT NULL DEFAULT 0,
        wins INTEGER NOT NULL DEFAULT 0,
        losses INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL
    );

    CREATE TABLE episodes (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL DEFAULT '',
        scope TEXT NOT NULL,
        goal TEXT NOT NULL,
        success INTEGER NOT NULL DEFAULT 0,
        stopped TEXT NOT NULL DEFAULT '',
        steps INTEGER NOT NULL DEFAULT 0,
        elapsed REAL NOT NULL DEFAULT 0,
        approvals INTEGER NOT NULL DEFAULT 0,
        tokens INTEGER NOT NULL DEFAULT 0,
        corrections INTEGER NOT NULL DEFAULT 0,
        undos INTEGER NOT NULL DEFAULT 0,
        retries INTEGER NOT NULL DEFAULT 0,
        tools_used TEXT NOT NULL DEFAULT '[]',
        error_kind TEXT NOT NULL DEFAULT '',
        rules_active INTEGER NOT NULL DEFAULT 0,
        recalled TEXT NOT NULL DEFAULT '[]',
        skills TEXT NOT NULL DEFAULT '[]',
        started_at REAL NOT NULL,
        ended_at REAL NOT NULL DEFAULT 0
    );
    CREATE INDEX episodes_by_scope ON episodes(scope, ended_at);

    CREATE TABLE signals (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        scope TEXT NOT NULL,
        episode_id INTEGER,
        path TEXT NOT NULL DEFAULT '',
        detail TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL
    );
    CREATE INDEX signals_by_scope ON signals(scope, kind);

    CREATE TABLE feedback (
        id INTEGER PRIMARY KEY,
        target TEXT NOT NULL,
        target_id INTEGER NOT NULL,
        value REAL NOT NULL,
        note TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL
    );

    CREATE TABLE agent_writes (
        id INTEGER PRIMARY KEY,
        scope TEXT NOT NULL,
        path TEXT NOT NULL,
        before_hash TEXT NOT NULL DEFAULT '',
        after_hash TEXT NOT NULL,
        created INTEGER NOT NULL DEFAULT 0,
        episode_id INTEGER,
        status TEXT NOT NULL DEFAULT 'open',
        last_hash TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL
    );
    CREATE INDEX agent_writes_by_path ON agent_writes(scope, path, id);
    """,
    # 2: tasks held out from memory (learning.holdoutRate), compared with the others.
    """
    ALTER TABLE episodes ADD COLUMN holdout INTEGER NOT NULL DEFAULT 0;
    """,
    # 3: every vote records its user (``voter``), and one origin votes once *per user*:
    # two people's ``save:12`` are two corrections, and a re-scan replaces only its
    # own user's votes. SQLite cannot change a UNIQUE constraint, so the table is
    # rebuilt (ids kept). Earlier votes have voter '' (this machine's user, unnamed).
    """
    CREATE TABLE rule_votes_v3 (
        id INTEGER PRIMARY KEY,
        rule_id INTEGER NOT NULL REFERENCES rules(id) ON DELETE CASCADE,
        value TEXT NOT NULL,
        statement TEXT NOT NULL,
        kind TEXT NOT NULL,
        weight REAL NOT NULL,
        origin TEXT NOT NULL,
        detail TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL,
        voter TEXT NOT NULL DEFAULT '',
        UNIQUE (rule_id, voter, origin, value)
    );
    INSERT INTO rule_votes_v3
        (id, rule_id, value, statement, kind, weight, origin, detail, created_at)
        SELECT id, rule_id, value, statement, kind, weight, origin, detail, created_at
        FROM rule_votes;
    DROP TABLE rule_votes;
    ALTER TABLE rule_votes_v3 RENAME TO rule_votes;
    CREATE INDEX rule_votes_by_rule ON rule_votes(rule_id);
    CREATE INDEX rule_votes_by_origin ON rule_votes(origin);
    """,
    # 4: the outbox of a team brain: writes for the team database, made durable here
    # first and deleted once the database has them (see ``brain/store/outbox.py``).
    """
    CREATE TABLE team_outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        target TEXT NOT NULL,
        op TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        args TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE INDEX team_outbox_by_target ON team_outbox(target, seq);
    CREATE TABLE team_ids (
        pending INTEGER PRIMARY KEY,
        real INTEGER NOT NULL
    );
    """,
    # 5: the file says it is a Comodor brain (store/identity.py), so another program's
    # brain.db (PyPI's `comodor` agent keeps one) is never mistaken for ours, nor ours for it.
    f"""
    PRAGMA application_id = {APPLICATION_ID};
    """,
    # 6: the brain's id, which its recall snapshot file must carry (brain/index_file.py);
    # terms in any script (brain/tokens.py), recomputed for every lesson, and full-text
    # search over those terms: one FTS5 token per term, whatever its script.
    """
    INSERT OR IGNORE INTO meta (key, value) VALUES ('brain_id', lower(hex(randomblob(16))));
    DROP TRIGGER IF EXISTS lessons_fts_insert;
    DROP TRIGGER IF EXISTS lessons_fts_delete;
    DROP TRIGGER IF EXISTS lessons_fts_update;
    DROP TABLE IF EXISTS lessons_fts;
    UPDATE lessons SET terms = comodor_terms(trigger || ': ' || guidance);
    CREATE VIRTUAL TABLE lessons_fts USING fts5(
        terms, content='lessons', content_rowid='id',
        tokenize="unicode61 remove_diacritics 0 categories 'L* N* M* Co Cf' tokenchars '_'"
    );
    CREATE TRIGGER lessons_fts_insert AFTER INSERT ON lessons BEGIN
        INSERT INTO lessons_fts(rowid, terms) VALUES (new.id, new.terms);
    END;
    CREATE TRIGGER lessons_fts_delete AFTER DELETE ON lessons BEGIN
        INSERT INTO lessons_fts(lessons_fts, rowid, terms) VALUES ('delete', old.id, old.terms);
    END;
    CREATE TRIGGER lessons_fts_update AFTER UPDATE OF terms ON lessons BEGIN
        INSERT INTO lessons_fts(lessons_fts, rowid, terms) VALUES ('delete', old.id, old.terms);
        INSERT INTO lessons_fts(rowid, terms) VALUES (new.id, new.terms);
    END;
    INSERT INTO lessons_fts(lessons_fts) VALUES ('rebuild');
    """,
    # 7: the learned vocabulary (brain/vocabulary.py): per project, how many successful
    # tasks were seen, how many had each request term / recalled-lesson term, and each pair.
    """
    CREATE TABLE IF NOT EXISTS vocab_tasks (
        scope TEXT PRIMARY KEY,
        tasks INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS vocab_terms (
        scope TEXT NOT NULL,
        side TEXT NOT NULL,
        term TEXT NOT NULL,
        tasks INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (scope, side, term)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS vocab_pairs (
        scope TEXT NOT NULL,
        query_term TEXT NOT NULL,
        lesson_term TEXT NOT NULL,
        tasks INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (scope, query_term, lesson_term)
    ) WITHOUT ROWID;
    """,
    # 8: how many of a lesson's terms (the first ones) are its trigger's, so recall can
    # weigh a word of the trigger above the same word in the guidance (brain/index.py).
    """
    ALTER TABLE lessons ADD COLUMN trigger_terms INTEGER NOT NULL DEFAULT 0;
    UPDATE lessons SET trigger_terms = comodor_trigger_prefix(trigger, terms);
    """,
    # 9: where an agent write came from (protocol v1.2 ``agentWritesBySource``): ``disk``
    # (the watcher), ``command`` (``comodor.agentEdit``), or an edit an assistant made
    # inside the editor (``comodor/assistantEdit``: ``chat-edit``, ``inline-completion``,
    # ``next-edit``, ``extension``). Rows from before were all the watcher's or a command's;
    # they count as ``disk``.
    """
    ALTER TABLE agent_writes ADD COLUMN source TEXT NOT NULL DEFAULT 'disk';
    """,
    # 10: ids are never reused (protocol v1.2, "Command line"): a forgotten lesson's or
    # rule's id is never given to another, so a stale ``forget 3`` (a second window, an
    # agent's cached list) cannot delete what was taught after it. ``AUTOINCREMENT``
    # keeps the highest id ever used in ``sqlite_sequence``; SQLite only grants it at
    # CREATE TABLE, so both tables are rebuilt, every row and id kept. The runner turns
    # foreign keys off around migrations (dropping ``rules`` would otherwise cascade
    # into ``rule_votes``) and checks them before committing. Lessons forgotten before
    # this migration are still in ``lesson_log``, so their ids are not reused either.
    """
    CREATE TABLE lessons_v10 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        scope TEXT NOT NULL,
        trigger TEXT NOT NULL,
        guidance TEXT NOT NULL,
        terms TEXT NOT NULL DEFAULT '',
        confidence REAL NOT NULL,
        pinned INTEGER NOT NULL DEFAULT 0,
        source TEXT NOT NULL DEFAULT '',
        uses INTEGER NOT NULL DEFAULT 0,
        wins INTEGER NOT NULL DEFAULT 0,
        losses INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        last_used REAL NOT NULL DEFAULT 0,
        last_success REAL NOT NULL DEFAULT 0,
        trigger_terms INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO lessons_v10 (id, kind, scope, trigger, guidance, terms, confidence, pinned,
        source, uses, wins, losses, created_at, updated_at, last_used, last_success,
        trigger_terms)
        SELECT id, kind, scope, trigger, guidance, terms, confidence, pinned, source, uses,
        wins, losses, created_at, updated_at, last_used, last_success, trigger_terms
        FROM lessons;
    DROP TABLE lessons;
    ALTER TABLE lessons_v10 RENAME TO lessons;
    CREATE INDEX lessons_by_scope ON lessons(scope);
    CREATE TRIGGER lessons_fts_insert AFTER INSERT ON lessons BEGIN
        INSERT INTO lessons_fts(rowid, terms) VALUES (new.id, new.terms);
    END;
    CREATE TRIGGER lessons_fts_delete AFTER DELETE ON lessons BEGIN
        INSERT INTO lessons_fts(lessons_fts, rowid, terms) VALUES ('delete', old.id, old.terms);
    END;
    CREATE TRIGGER lessons_fts_update AFTER UPDATE OF terms ON lessons BEGIN
        INSERT INTO lessons_fts(lessons_fts, rowid, terms) VALUES ('delete', old.id, old.terms);
        INSERT INTO lessons_fts(rowid, terms) VALUES (new.id, new.terms);
    END;
    CREATE TRIGGER lesson_log_insert AFTER INSERT ON lessons BEGIN
        INSERT INTO lesson_log(lesson_id) VALUES (new.id);
    END;
    CREATE TRIGGER lesson_log_delete AFTER DELETE ON lessons BEGIN
        INSERT INTO lesson_log(lesson_id) VALUES (old.id);
    END;
    CREATE TRIGGER lesson_log_update AFTER UPDATE OF
        kind, scope, trigger, guidance, confidence, pinned, wins, losses, last_success
        ON lessons BEGIN
        INSERT INTO lesson_log(lesson_id) VALUES (new.id);
    END;
    DELETE FROM sqlite_sequence WHERE name = 'lessons';
    INSERT INTO sqlite_sequence (name, seq) SELECT 'lessons', max(
        (SELECT coalesce(max(id), 0) FROM lessons),
        (SELECT coalesce(max(lesson_id), 0) FROM lesson_log));

    CREATE TABLE rules_v10 (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        key TEXT NOT NULL,
        scope TEXT NOT NULL,
        language TEXT NOT NULL DEFAULT '',
        category TEXT NOT NULL,
        pinned INTEGER NOT NULL DEFAULT 0,
        active INTEGER NOT NULL DEFAULT 1,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        UNIQUE (key, scope, language)
    );
    INSERT INTO rules_v10 (id, key, scope, language, category, pinned, active, created_at,
        updated_at)
        SELECT id, key, scope, language, category, pinned, active, created_at, updated_at
        FROM rules;
    DROP TABLE rules;
    ALTER TABLE rules_v10 RENAME TO rules;
    """,
    # 11: the vocabulary of the user's own words (brain/recall/vocabulary.py): per
    # project, how many ended tasks were seen, how many had each term in their goal or
    # the user's messages, and how many had each pair of those terms together (stored
    # once, the terms in sorted order) and the task count when it was last seen, so a
    # pair said together a few times long ago can be forgotten (``prune_words``).
    # Tables only added: older code ignores them.
    """
    CREATE TABLE IF NOT EXISTS vocab_word_tasks (
        scope TEXT PRIMARY KEY,
        tasks INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE IF NOT EXISTS vocab_word_terms (
        scope TEXT NOT NULL,
        term TEXT NOT NULL,
        tasks INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (scope, term)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS vocab_word_pairs (
        scope TEXT NOT NULL,
        first_term TEXT NOT NULL,
        second_term TEXT NOT NULL,
        tasks INTEGER NOT NULL DEFAULT 0,
        last_task INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (scope, first_term, second_term)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS vocab_word_pairs_by_tasks ON vocab_word_pairs(scope, tasks);
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)

COMPATIBLE_FROM = 7
"""The oldest schema whose Comodor can still use a brain at this one.

One brain file is shared by every Comodor on the machine (each editor's server,
the MCP server, the command line), and they are not always upgraded together.
A migration that only adds leaves the file usable by the release before; each
migration records this number in ``meta.compatible_from``, and a release at
least this new opens the newer file instead of refusing it. Raise it to
:data:`SCHEMA_VERSION` with any migration older code would misread or break.
Migration 8 only adds ``lessons.trigger_terms`` (0, "not told", in rows older
code writes, which recall reads correctly), migration 9 only adds
``agent_writes.source`` (``disk`` in rows older code writes), and migration 10 only
changes how new ids are chosen (older code inserts without an id), and migration 11
only adds the ``vocab_word_*`` tables (older code neither reads nor writes them: tasks
it ends simply teach no co-occurrence), so schema 7 stays compatible.
"""


def usable_by(known: int, version: int, compatible_from: int) -> bool:
    """Whether a Comodor that knows schema ``known`` may use a store at ``version`` as it is.

    Its own schema, or a newer one whose migrations recorded ``compatible_from`` at or
    below ``known``. An older store is not usable as it is: it must be migrated first.
    The team database follows the same rule (:mod:`comodor.teamdb.postgres_schema`).
    """
    return version == known or version > known >= compatible_from
