"""The VSIX a user installs: small enough to download (at most 35 MB, it was 63.5), without the
bundled packages' test suites and caches, and still carrying everything its server imports.

The pruning and the sharing of libraries are checked on small trees of real files; the slow
tests build the real VSIX for this machine with ``scripts/build_vsix.py`` (from PyPI and npm,
as a release does) and run its server from the extracted archive, the way the extension does.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support import builds
from tests.support.rpc import RawServer

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import build_vsix  # noqa: E402  (scripts/ is not a package)

MAX_VSIX_BYTES = 35_000_000
SO = "cpython-311-x86_64-linux-gnu.so"


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def _write(folder: Path, names: list[str]) -> None:
    for name in names:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(name.encode())


def test_pruning_leaves_out_tests_caches_headers_stubs_and_docs(tmp_path: Path) -> None:
    kept = [
        "numpy/__init__.py",
        "numpy/py.typed",
        "numpy/testing/__init__.py",  # public API, not a test suite
        f"numpy/_core/_multiarray_umath.{SO}",
        "numpy/linalg/lapack_lite/LICENSE.txt",
        "numpy-2.4.6.dist-info/METADATA",
        "numpy-2.4.6.dist-info/RECORD",
        "numpy-2.4.6.dist-info/licenses/numpy/_core/include/numpy/LICENSE.txt",
        "numpy-2.4.6.dist-info/licenses/numpy/_core/include/numpy/libdivide/README.md",
        "numpy.libs/libscipy_openblas64_-32a4b2a6.so",
        "certifi/cacert.pem",
    ]
    dropped = [
        "numpy/tests/test_numpy_version.py",
        "numpy/_core/tests/data/umath-validation-set-README.txt",
        "numpy/__pycache__/__init__.cpython-311.pyc",
        "numpy/stray.pyc",
        "numpy/__init__.pyi",
        "numpy/_core/include/numpy/ndarraytypes.h",
        "numpy/_core/lib/libnpymath.a",
        "numpy/_core/lib/pkgconfig/numpy.pc",
        f"numpy/_core/_simd.{SO}",
        f"numpy/_core/_multiarray_tests.{SO}",
        "numpy/random/_examples/cython/extending.pyx",
        "numpy/random/__init__.pxd",
        "numpy/f2py/src/fortranobject.c",
        "certifi/README.rst",
    ]
    _write(tmp_path, kept + dropped)
    build_vsix.prune(tmp_path)
    assert _files(tmp_path) == set(kept)
    assert not (tmp_path / "numpy" / "tests").exists(), "emptied folders are removed too"


def _version_folders(root: Path, libraries: dict[str, bytes]) -> list[Path]:
    folders = []
    for version in ("cp311", "cp312"):
        folder = root / "libs" / version
        for name, data in libraries.items():
            path = folder / "numpy.libs" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data + (version.encode() if data == b"differs" else b""))
        (folder / "numpy").mkdir()
        folders.append(folder)
    (root / "libs" / "common").mkdir()
    return folders


def test_libraries_the_same_for_every_python_are_carried_once_on_linux(tmp_path: Path) -> None:
    folders = _version_folders(tmp_path, {"libopenblas-1.so": b"ELF", "libgfortran-2.so": b"F"})
    common = tmp_path / "libs" / "common"
    assert build_vsix.share_libraries("linux-x64", folders, common) == ["numpy.libs"]
    assert _files(common) == {"numpy.libs/libgfortran-2.so", "numpy.libs/libopenblas-1.so"}
    assert not any((folder / "numpy.libs").exists() for folder in folders)
    assert all((folder / "numpy").is_dir() for folder in folders)


@pytest.mark.parametrize(
    ("target", "libraries"),
    [
        ("linux-x64", {"libopenblas-1.so": b"differs"}),
        ("win32-x64", {"libopenblas-1.dll": b"same"}),  # Windows finds DLLs beside the package
    ],
)
def test_libraries_stay_with_each_python_when_they_differ_or_off_linux(
    tmp_path: Path, target: str, libraries: dict[str, bytes]
) -> None:
    folders = _version_folders(tmp_path, libraries)
    assert build_vsix.share_libraries(target, folders, tmp_path / "libs" / "common") == []
    assert all((folder / "numpy.libs").is_dir() for folder in folders)


def test_every_python_gets_the_version_the_oldest_one_got() -> None:
    assert build_vsix.wheel_project("numpy-2.4.6-cp311-cp311-manylinux_2_28_x86_64.whl") == (
        "numpy",
        "2.4.6",
    )
    assert build_vsix.wheel_project("typing_extensions-4.16.0-py3-none-any.whl") == (
        "typing-extensions",
        "4.16.0",
    )


# ---- the VSIX, built for this machine ------------------------------------------------------


@pytest.fixture(scope="module")
def built_vsix(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The VSIX ``scripts/build_vsix.py`` builds for this machine, and the build's log."""
    return builds.built_vsix(tmp_path_factory)


@pytest.fixture(scope="module")
def extracted(built_vsix: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The extension folder as VS Code unpacks it."""
    folder = tmp_path_factory.mktemp("vsix")
    with zipfile.ZipFile(built_vsix[0]) as archive:
        archive.extractall(folder)
    return folder / "extension"


@pytest.mark.slow
def test_the_vsix_is_at_most_35_mb_and_says_its_size_and_file_count(
    built_vsix: tuple[Path, str],
) -> None:
    vsix, log = built_vsix
    size = vsix.stat().st_size
    assert size <= MAX_VSIX_BYTES, f"{vsix.name} is {size:,} bytes"
    with zipfile.ZipFile(vsix) as archive:
        files = [info.filename for info in archive.infolist() if not info.is_dir()]
    said = log.strip().splitlines()[-1]
    assert said == f"[build-vsix] {build_vsix.describe(vsix)}", said
    assert f"{len(files):,} files" in said and f"{size:,} bytes" in said


@pytest.mark.slow
def test_the_vsix_carries_no_test_suites_caches_or_headers_of_bundled_packages(
    built_vsix: tuple[Path, str],
) -> None:
    with zipfile.ZipFile(built_vsix[0]) as archive:
        bundled = [n for n in archive.namelist() if n.startswith("extension/bundled/libs/")]
    assert any(n.endswith("/comodor_lsp/__init__.py") for n in bundled)
    unwanted = re.compile(r"/(tests|__pycache__|include)/|\.(pyc|pyi|h)$")
    outside_metadata = [n for n in bundled if ".dist-info/" not in n]  # licences stay there
    assert [n for n in outside_metadata if unwanted.search(n)] == []
    # numpy's OpenBLAS (25 MB) once, not once per Python version
    openblas = [n for n in bundled if "openblas" in n]
    assert len(openblas) == (1 if build_vsix.this_target().startswith("linux-") else len(openblas))


IMPORT_AS_THE_SERVER_DOES = """
import json, runpy, sys
launch = runpy.run_path(sys.argv[1])
assert launch["use_bundle"](sys.argv[2]) is None
import numpy
import comodor_lsp
from comodor_lsp.brain.recall import index, ranking, snapshot_file
a = numpy.arange(12, dtype=numpy.float64).reshape(3, 4)
assert float((a @ a.T).sum()) == 1134.0  # a BLAS call
maps = open("/proc/self/maps").read().splitlines() if sys.platform == "linux" else []
print(json.dumps({
    "numpy": numpy.__file__,
    "comodor_lsp": comodor_lsp.__file__,
    "openblas": sorted({line.split()[-1] for line in maps if "openblas" in line}),
}))
"""


def _pythons_here(manifest: dict[str, object]) -> list[str]:
    """This test's Python and every other bundled Python version this machine can run
    (on ``PATH``, or installed by pyenv), so each is checked where it is there."""
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    pythons = manifest["pythons"]
    assert isinstance(pythons, list) and here in pythons, pythons
    found = [sys.executable]
    for version in pythons:
        if version == here:
            continue
        candidates = [shutil.which(f"python{version}")] + [
            str(p) for p in sorted(Path.home().glob(f".pyenv/versions/{version}.*/bin/python3"))
        ]
        for python in filter(None, candidates):
            runs = subprocess.run([python, "-c", "pass"], capture_output=True, check=False)
            if runs.returncode == 0:
                found.append(python)
                break
    return found


@pytest.mark.slow
def test_the_bundled_server_imports_numpy_and_its_recall_from_the_vsix(extracted: Path) -> None:
    bundle = extracted / "bundled"
    manifest = json.loads((bundle / "manifest.json").read_text())
    launch = str(bundle / "tool" / "launch.py")
    for python in _pythons_here(manifest):
        done = subprocess.run(
            [python, "-I", "-c", IMPORT_AS_THE_SERVER_DOES, launch, str(bundle)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, f"{python}: {done.stderr[-3000:]}"
        found = json.loads(done.stdout)
        assert Path(found["numpy"]).is_relative_to(bundle / "libs"), found
        assert Path(found["comodor_lsp"]).is_relative_to(bundle / "libs" / "common"), found
        if "numpy.libs" in manifest["sharedLibraries"]:
            assert found["openblas"], found
            assert all(
                Path(library).is_relative_to(bundle / "libs" / "common" / "numpy.libs")
                for library in found["openblas"]
            ), found


@pytest.mark.slow
def test_the_bundled_server_recalls_a_taught_lesson(extracted: Path, workspace: Path) -> None:
    launch = str(extracted / "bundled" / "tool" / "launch.py")

    def call(command: str, arguments: dict[str, object]) -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-I", launch, "call", command, json.dumps(arguments)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=workspace,
            env={"PATH": os.environ["PATH"], "COMODOR_HOME": os.environ["COMODOR_HOME"]},
        )
        assert done.returncode == 0, done.stderr[-3000:]
        result: dict[str, object] = json.loads(done.stdout)
        return result

    call("comodor.teach", {"text": "When running the tests: use pytest -q"})
    playbook = call("comodor.playbook", {"query": "running the tests"})
    assert "When running the tests: use pytest -q" in str(playbook["text"])


@pytest.mark.slow
def test_the_bundled_server_serves_an_editor(extracted: Path, workspace: Path) -> None:
    """``serve`` as the extension starts it: numpy is imported after ``initialize``, on a
    thread, so a library missing from the bundle would only show in the recall and the log."""
    (workspace / "app.py").write_text('NAME = "x"\n')
    launch = str(extracted / "bundled" / "tool" / "launch.py")
    server = RawServer(
        workspace,
        command=[sys.executable, "-I", launch, "serve"],
        env={"PATH": os.environ["PATH"], "COMODOR_HOME": os.environ["COMODOR_HOME"]},
        stderr=subprocess.PIPE,
    )
    try:
        assert "result" in server.initialize(), "no answer to initialize"
        taught = server.command("comodor.teach", {"text": "When running the tests: use pytest -q"})
        assert "result" in taught, taught
        playbook = server.command("comodor.playbook", {"query": "running the tests"})
        assert "When running the tests: use pytest -q" in playbook["result"]["text"], playbook
    finally:
        server.close()
    assert server.process.stderr is not None
    log = server.process.stderr.read().decode()
    for missing in ("ImportError", "ModuleNotFoundError", "cannot open shared object"):
        assert missing not in log, log[-3000:]
