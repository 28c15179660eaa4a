"""Start the Comodor language server that this VS Code extension carries.

The extension runs ``<python> -I bundled/tool/launch.py serve --stdio`` with the
Python the user selected (or found on PATH). ``-I`` keeps PYTHONPATH and the
user's site-packages out, and the bundle's folders go first on ``sys.path``, so
the server and its dependencies are always the ones built into this VSIX, never
another ``comodor`` installed in that Python. ``libs/common`` holds what every
Python version shares; ``libs/cp3XX`` the compiled parts for one version, when
the build has any (``manifest.json`` lists those versions).

On Linux the build carries a compiled package's shared libraries once, in
``libs/common/<package>.libs``, when they are the same for every Python version
(``sharedLibraries`` in the manifest: numpy's OpenBLAS is 25 MB a copy). The
package's own modules look for them beside the package only, so they are loaded
here first, just before the package is first imported: the dynamic loader then
reuses the library it already has under that name.

Kept free of newer syntax on purpose: an old Python must reach the version check
and print a sentence, not a SyntaxError.
"""

# ruff: noqa: UP031  (percent formatting: see above)

import json
import os
import sys

MIN_PYTHON = (3, 11)


class SharedLibraries:
    """Loads ``folder``'s libraries when ``package`` is about to be imported, once."""

    def __init__(self, package, folder):
        self.package = package
        self.folder = folder

    def find_spec(self, name, path=None, target=None):
        if name == self.package:
            sys.meta_path.remove(self)
            load_libraries(self.folder)
        return None  # noqa: PLR1711  (explicit: the usual finders import the package itself)


def load_libraries(folder):
    """Load every shared library in ``folder``, each after the ones it needs.

    A library whose dependencies are not loaded yet is retried, until a round loads
    nothing new.
    """
    import ctypes

    waiting = sorted(os.path.join(folder, name) for name in os.listdir(folder))
    while waiting:
        failed = []
        for library in waiting:
            try:
                ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
            except OSError:
                failed.append(library)
        if len(failed) == len(waiting):
            return  # the package's own import then says which library is missing
        waiting = failed


def use_bundle(bundle):
    """Put ``bundle``'s server and dependencies first on ``sys.path`` for this Python.

    Returns None, or the exit status after saying why this Python cannot run it.
    (``tests/test_vsix.py`` calls this too, to import the built bundle as the server would.)
    """
    with open(os.path.join(bundle, "manifest.json"), encoding="utf-8") as file:
        manifest = json.load(file)
    here = "%d.%d" % sys.version_info[:2]
    if sys.version_info[:2] < MIN_PYTHON:
        sys.stderr.write(
            "comodor-lsp: this Python is %s (%s); the bundled server needs Python %d.%d or newer.\n"
            % (here, sys.executable, MIN_PYTHON[0], MIN_PYTHON[1])
        )
        return 3
    common = os.path.join(bundle, "libs", "common")
    folders = [common]
    if manifest["pythons"]:
        if here not in manifest["pythons"]:
            sys.stderr.write(
                "comodor-lsp: this build bundles its server for Python %s, not %s (%s).\n"
                % (", ".join(manifest["pythons"]), here, sys.executable)
            )
            return 3
        folders.insert(0, os.path.join(bundle, "libs", "cp" + here.replace(".", "")))
    sys.path[0:0] = folders
    for libraries in manifest.get("sharedLibraries", []):
        package = libraries[: -len(".libs")]
        sys.meta_path.insert(0, SharedLibraries(package, os.path.join(common, libraries)))
    return None


def main():
    refused = use_bundle(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if refused is not None:
        return refused
    import runpy

    sys.argv = ["comodor-lsp", *sys.argv[1:]]
    runpy.run_module("comodor_lsp", run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
