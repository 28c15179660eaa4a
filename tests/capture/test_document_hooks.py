"""The document hooks an editor's server calls on its event loop leave capture's work to the worker.

``didOpen``, ``didSave`` and ``willCreateFiles`` arrive on the event loop, often
before capture has loaded (its tracker is built at first use, and its modules
take tens of ms to import). Building it there would hold up every request behind
them, so the hooks hand it to the brain worker's write lane, in order.
"""

from __future__ import annotations

import threading
from pathlib import Path

from comodor_lsp.app import ComodorApp


def test_opening_and_saving_before_capture_loads_builds_it_on_the_worker_not_the_caller(
    workspace: Path,
) -> None:
    source = workspace / "app.py"
    source.write_text("x = 1\n")
    app = ComodorApp(workspace)
    try:
        release = threading.Event()
        app.worker.submit(lambda: release.wait(10))  # the write lane is busy
        uri = source.as_uri()
        app.documents.opened(uri, "x = 1\n")
        app.documents.saved(uri, "x = 2\n")
        app.documents.created([(workspace / "new.py").as_uri()], done=False)
        assert app._tracker is None  # nothing was built on this (the loop's) thread
        release.set()
        assert app.worker.drain(10)
        assert app._tracker is not None
        assert app.relative_document_path(uri) == "app.py"
        outside = (workspace.parent / "elsewhere.py").as_uri()
        assert app.relative_document_path(outside) is None
    finally:
        app.close()
