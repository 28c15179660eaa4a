"""``python -m comodor`` is the same as the ``comodor`` command."""

from comodor.cli import main

raise SystemExit(main())
