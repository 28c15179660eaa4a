"""``python -m comodor_lsp`` is the same as the ``comodor-lsp`` command."""

from .cli import main

raise SystemExit(main())
