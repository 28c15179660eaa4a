"""capture: turn what happens in a workspace into votes for house rules.

Pure analysis, no editor, LSP or storage code; the server wires it in.

- :mod:`~comodor.conventions.votes`: the :class:`Vote` and the one catalog of dimensions,
  values and the sentence each value stands for.
- :mod:`~comodor.conventions.corrections`: :func:`analyse_correction` (agent's text vs what
  the user saved) and :func:`language_of`.
- :mod:`~comodor.conventions.scanning.scan`: :func:`scan_project` and :func:`project_fingerprint`
  (config evidence plus observations counted in sampled code).
- :mod:`~comodor.capture.watcher`: :class:`WorkspaceWatcher`, coalesced and filtered
  file changes in the workspace, flagged when git made them (threads, no LSP).

The rest are their parts: ``changes`` (diff and line pairing), ``lexer`` (strings and
comments), ``canonical`` (logic vs convention), ``detect_*`` (one detector per
dimension), ``indentation``, ``sampling``, ``observe`` and ``config_sources``; the
watcher's are ``ignore``, ``vcs``, ``coalesce`` and ``known``.
"""
