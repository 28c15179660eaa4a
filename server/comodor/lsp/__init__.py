"""The language server: a thin translation from LSP to :class:`comodor.app.ComodorApp`.

Only this package knows about LSP and JSON-RPC. Handlers do three things: read
the request, hand the work to the brain thread (never doing SQLite or file I/O
on the event loop), and translate the answer or the error back.
"""
