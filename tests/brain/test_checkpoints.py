"""Checkpoints: the texts around agent writes are kept as long as they matter, then pruned."""

from __future__ import annotations

import os
import time

from comodor_lsp.brain.engine import LearningEngine


def test_old_checkpoints_and_orphan_blobs_are_pruned_and_live_ones_kept(
    engine: LearningEngine,
) -> None:
    old = engine.record_agent_write("old.py", "before old\n", "after old\n")
    local = getattr(engine.store, "local", engine.store)  # checkpoints never leave the laptop
    local._conn.execute(
        "UPDATE agent_writes SET created_at = ? WHERE id = ?", (time.time() - 90 * 86_400, old)
    )
    orphan = engine.blobs.put("nobody refers to this\n")
    two_hours_ago = time.time() - 7200
    for path in engine.blobs.root.rglob("*"):
        if path.is_file():
            os.utime(path, (two_hours_ago, two_hours_ago))
    live = engine.record_agent_write("live.py", "before live\n", "after live\n")
    in_flight = engine.blobs.put("a write whose row is not stored yet\n")
    removed_writes, removed_blobs = engine.prune_checkpoints()
    assert removed_writes == 1
    assert removed_blobs >= 3  # the old write's two texts and the orphan
    assert engine.blobs.get(orphan) is None
    assert engine.blobs.get(in_flight) is not None  # young orphans may be in flight
    write = engine.store.last_agent_write(engine.project_scope, "live.py")
    assert write is not None and write.id == live
    assert engine.blobs.get(write.before_hash) == "before live\n"
    assert engine.blobs.get(write.after_hash) == "after live\n"
    assert engine.store.last_agent_write(engine.project_scope, "old.py") is None


def test_checkpoint_texts_on_disk_are_redacted(engine: LearningEngine) -> None:
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    engine.record_agent_write("conf.py", None, f"TOKEN = '{secret}'\n")
    for path in engine.blobs.root.rglob("*"):
        if path.is_file():
            assert secret not in path.read_text()
