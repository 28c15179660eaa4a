"""The start-up scan: what a project's config files and its own code say about conventions."""
