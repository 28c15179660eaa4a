"""End-to-end tests of the VS Code extension in a real VS Code (code-server + headless Chromium)."""
