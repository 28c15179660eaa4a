"""bench.realcode on small, local releases, so the benchmark cannot rot (and needs no network)."""

from __future__ import annotations

import asyncio
import io
import tarfile
from pathlib import Path

from bench import realcode
from bench.formatting import js_tokens, keep_human_edits
from bench.releases import Release, archive_path, fetch, source_files, write_tarball, write_wheel

OLD_MODULE = '''"""Reports."""

import json


def save(path, rows, lock):
    header = rows[0]
    body = rows[1:]
    text = json.dumps({'header': header, 'rows': body})
    handle = open(path, "w")
    handle.write(text)
    handle.close()
    return len(text)


def size(rows):
    # Count every row.
    return len(rows)
'''
NEW_MODULE = '''"""Reports."""

import json


def save(path, rows, lock):
    with lock:
        header = rows[0]
        body = rows[1:]
        text = json.dumps({"header": header, "rows": body})
        handle = open(path, "w")
        handle.write(text)
        handle.close()
    return len(text)


def size(rows, limit=None):
    # Count the rows up to the limit.
    return len(rows) if limit is None else min(limit, len(rows))
'''


def test_a_formatting_only_hunk_is_reverted_and_human_edits_are_kept() -> None:
    old = "x = 'a'\ny = 1\n\n\ndef f():\n    return y\n"
    new = 'x = "a"\ny = 1\n\n\ndef f():\n    return y + 1\n'
    kept = keep_human_edits(old, new, "python")
    assert (kept.human, kept.formatting) == (1, 1)
    assert kept.text == "x = 'a'\ny = 1\n\n\ndef f():\n    return y + 1\n"


def test_comment_docstring_and_re_nesting_edits_are_human_edits_and_re_quoting_is_not() -> None:
    kept = keep_human_edits(OLD_MODULE, NEW_MODULE, "python")
    assert (kept.human, kept.formatting, kept.formatting_lines) == (2, 0, 1)
    # The re-nested line keeps its new depth and gets its old quotes back.
    assert kept.text == NEW_MODULE.replace(
        '{"header": header, "rows": body}', "{'header': header, 'rows': body}"
    )
    docstring = keep_human_edits('"""Reports."""\n', '"""Reports, daily."""\n', "python")
    assert docstring.human == 1


def test_prettier_options_are_formatting_in_javascript() -> None:
    assert js_tokens("const f = (x) => x + 1;\n") == js_tokens("const f = x => x + 1\n")
    assert js_tokens("call(a, 'b',)") == js_tokens('call(a, "b")')
    assert js_tokens("if (a) b()") != js_tokens("if (!a) b()")
    kept = keep_human_edits(
        "const a = 'x';\n\nlet b = 1;\n", 'const a = "x"\n\nlet b = 2\n', "javascript"
    )
    assert (kept.human, kept.formatting) == (1, 1)
    assert kept.text == "const a = 'x';\n\nlet b = 2\n"


def test_archives_are_read_in_memory_and_names_that_escape_are_refused(tmp_path: Path) -> None:
    files = {
        "pkg/ok.py": "x = 1\n",
        "../evil.py": "x = 2\n",
        "/abs.py": "x = 3\n",
        "pkg/dist/bundle.js": "var a\n",
        "pkg-1.0.dist-info/METADATA.py": "x = 4\n",
        "pkg/data.json": "{}\n",
    }
    wheel = write_wheel(tmp_path / "a.whl", files)
    assert source_files(wheel) == {"pkg/ok.py": "x = 1\n"}
    tarball = write_tarball(tmp_path / "a.tgz", {"lib/ok.js": "const a = 1\n"})
    with tarfile.open(tarball, "r:gz") as tar:
        assert [m.name for m in tar.getmembers()] == ["package/lib/ok.js"]
    escaping = tmp_path / "b.tgz"
    with tarfile.open(escaping, "w:gz") as tar:
        for name in ("package/lib/ok.js", "../outside.js", "/etc/abs.js"):
            info = tarfile.TarInfo(name)
            info.size = 12
            tar.addfile(info, io.BytesIO(b"const a = 1\n"))
    assert source_files(tarball) == source_files(escaping) == {"lib/ok.js": "const a = 1\n"}
    assert not (tmp_path.parent / "evil.py").exists()


def test_quotes_swap_only_where_it_cannot_change_a_string() -> None:
    text = 'a = "x"\nb = f"{a}"\nc = "it\'s"\nd = r"\\d"\ne = \'y\'\n'
    single, count = realcode.swap_quotes(text, "'")
    assert count == 1 and single == 'a = \'x\'\nb = f"{a}"\nc = "it\'s"\nd = r"\\d"\ne = \'y\'\n'


def make_release(cache: Path, name: str, old: dict[str, str], new: dict[str, str]) -> Release:
    release = Release("pypi", name, "1.0", "1.1")
    write_wheel(archive_path("pypi", name, "1.0", cache), old)
    write_wheel(archive_path("pypi", name, "1.1", cache), new)
    return release


def test_a_replay_of_human_edits_through_the_server_learns_no_false_rule(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    release = make_release(
        cache,
        "reports",
        {f"reports/m{k}.py": OLD_MODULE for k in range(3)},
        {f"reports/m{k}.py": NEW_MODULE for k in range(3)},
    )
    old = source_files(fetch("pypi", "reports", "1.0", cache))  # from the cache: no network
    new = source_files(fetch("pypi", "reports", "1.1", cache))
    replay = asyncio.run(realcode.replay_package(release, old, new, tmp_path / "run"))
    assert replay.files == 3 and replay.corrections == 3
    assert replay.formatting_lines == 3  # the re-quoted line inside the re-nested block
    assert replay.false_rules == [] and replay.ever_confident == set()
    assert "indent.width" not in replay.votes


def test_a_changed_mind_on_real_files_turns_within_three(tmp_path: Path) -> None:
    files = {
        f"pkg/mod_{k}.py": "".join(f'name_{i} = "value {k} {i}"\n' for i in range(8))
        for k in range(realcode.FLIP_HISTORY + realcode.FLIP_LIMIT)
    }
    flip = asyncio.run(realcode.changed_mind(files, tmp_path / "flip"))
    assert flip["held"]["value"] == "double" and flip["held"]["confident"]
    assert flip["old_dropped_after"] == 1
    assert flip["turned_after"] is not None and flip["turned_after"] <= 3
    turned = flip["turned_after"]
    total = realcode.FLIP_HISTORY + turned
    assert flip["evidence"] == f"{turned} of the last 3 corrections · {turned} of {total} in all"
