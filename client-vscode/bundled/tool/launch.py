"""Start the Comodor language server that this VS Code extension carries.

The extension runs ``<python> -I bundled/tool/launch.py serve --stdio`` with the
Python the user selected (or found on PATH). ``-I`` keeps PYTHONPATH and the
user's site-packages out, and the bundle's folders go first on ``sys.path``, so
the server and its dependencies are always the ones built into this VSIX, never
another ``comodor`` installed in that Python. ``libs/common`` holds what every
Python version shares; ``libs/cp3XX`` the compiled parts for one version, when
the build has any (``manifest.json`` lists those versions).

Kept free of newer syntax on purpose: an old Python must reach the version check
and print a sentence, not a SyntaxError.
"""

# ruff: noqa: UP031  (percent formatting: see above)

import json
import os
import sys

MIN_PYTHON = (3, 11)


def main():
    bundle = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(bundle, "manifest.json"), encoding="utf-8") as file:
        manifest = json.load(file)
    here = "%d.%d" % sys.version_info[:2]
    if sys.version_info[:2] < MIN_PYTHON:
        sys.stderr.write(
            "comodor-lsp: this Python is %s (%s); the bundled server needs Python %d.%d or newer.\n"
            % (here, sys.executable, MIN_PYTHON[0], MIN_PYTHON[1])
        )
        return 3
    folders = [os.path.join(bundle, "libs", "common")]
    if manifest["pythons"]:
        if here not in manifest["pythons"]:
            sys.stderr.write(
                "comodor-lsp: this build bundles its server for Python %s, not %s (%s).\n"
                % (", ".join(manifest["pythons"]), here, sys.executable)
            )
            return 3
        folders.insert(0, os.path.join(bundle, "libs", "cp" + here.replace(".", "")))
    sys.path[0:0] = folders
    import runpy

    sys.argv = ["comodor-lsp", *sys.argv[1:]]
    runpy.run_module("comodor_lsp", run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
