"""Detectors vote only on what changed for their dimension; re-nesting teaches nothing.

Also the dimensions added with them: import style, and the naming of variables and
classes (functions are in test_corrections.py).
"""

from __future__ import annotations

import textwrap

import pytest
from comodor_lsp.conventions.corrections import Correction, analyse_correction


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def learned(correction: Correction) -> dict[str, str]:
    return {v.key: v.value for v in correction.votes}


# --- indentation is a unit, re-nesting is logic -----------------------------------------

# A 4-space module with a function whose body the user wraps in a new block.
SERVICE = code(
    """
    import json


    def save_report(path, rows, lock):
        header = rows[0]
        body = rows[1:]
        total = sum(row["size"] for row in body)
        if total > 1000:
            header["large"] = True
        payload = {"header": header, "rows": body}
        text = json.dumps(payload, indent=2)
        size = len(text)
        handle = open(path, "w")
        handle.write(text)
        handle.close()
        return size
    """
)


def wrap_body(text: str, opener: str) -> str:
    """Wrap every statement of ``save_report`` but the return in a new block."""
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("def save_report")) + 1
    stop = next(k for k, line in enumerate(lines) if line.strip().startswith("return"))
    wrapped = ["    " + line if line.strip() else line for line in lines[start:stop]]
    return "\n".join([*lines[:start], f"    {opener}", *wrapped, *lines[stop:]]) + "\n"


@pytest.mark.parametrize("opener", ["with lock:", "try:", "if rows:", "for _ in range(2):"])
def test_wrapping_ten_lines_in_a_new_block_is_a_logic_edit_that_teaches_no_indentation(
    opener: str,
) -> None:
    after = wrap_body(SERVICE, opener)
    if opener == "try:":
        after = after.replace(
            "    return size", "    finally:\n        lock.release()\n    return size"
        )
    assert sum(1 for line in after.splitlines() if line.startswith("        ")) >= 10
    result = analyse_correction(SERVICE, after, "python")
    assert result.votes == ()
    assert result.logic_change is True


def test_unwrapping_a_block_teaches_no_indentation_either() -> None:
    wrapped = wrap_body(SERVICE, "with lock:")
    result = analyse_correction(wrapped, SERVICE, "python")
    assert result.votes == ()
    assert result.logic_change is True


def test_dropping_an_else_and_dedenting_its_body_is_not_a_width_of_two() -> None:
    before = code(
        """
        def pick(cls, wrap):
            if cls is None:
                return wrap
            else:
                return wrap(cls)
        """
    )
    after = code(
        """
        def pick(cls, wrap):
            if cls is None:
                return wrap

            return wrap(cls)
        """
    )
    result = analyse_correction(before, after, "python")
    assert "indent.width" not in learned(result)
    assert result.logic_change is True


def test_wrapping_typescript_statements_in_an_if_block_teaches_no_indentation() -> None:
    before = (
        "export function run(items: string[]) {\n"
        + "".join(f"  const v{k} = items[{k}].trim();\n" for k in range(10))
        + "  return items.length;\n}\n"
    )
    lines = before.splitlines()
    after = (
        "\n".join(
            [
                lines[0],
                "  if (items.length > 0) {",
                *("  " + line for line in lines[1:11]),
                "  }",
                *lines[11:],
            ]
        )
        + "\n"
    )
    result = analyse_correction(before, after, "typescript")
    assert result.votes == ()
    assert result.logic_change is True


def halve_indentation(text: str) -> str:
    """The same code indented by 2 spaces per level instead of 4."""
    return (
        "\n".join(
            " " * ((len(line) - len(line.lstrip(" "))) // 2) + line.lstrip(" ")
            for line in text.splitlines()
        )
        + "\n"
    )


def test_re_indenting_a_whole_two_space_module_to_four_measures_the_unit_four() -> None:
    two = halve_indentation(SERVICE)
    assert "\n  header = rows[0]" in two and "\n    header = rows[0]" not in two
    result = analyse_correction(two, SERVICE, "python")
    assert learned(result) == {"indent.width": "4"}
    assert "from 2 to 4 spaces per level" in result.votes[0].detail
    assert result.logic_change is False


def test_re_indenting_while_also_wrapping_counts_only_the_lines_that_kept_their_level() -> None:
    before = halve_indentation(SERVICE) + "\n\ndef load(path, lock):\n  return open(path).read()\n"
    after = (
        SERVICE + "\n\ndef load(path, lock):\n    with lock:\n        return open(path).read()\n"
    )
    result = analyse_correction(before, after, "python")
    assert learned(result) == {"indent.width": "4"}
    assert result.logic_change is True


# --- names of variables and classes ----------------------------------------------------


def test_renaming_camel_case_variables_to_snake_case_votes_snake_case_variables() -> None:
    before = code(
        """
        def summary(order):
            itemCount = len(order.items)
            totalPrice = sum(item.price for item in order.items)
            return f"{itemCount} items, {totalPrice} total"
        """
    )
    after = before.replace("itemCount", "item_count").replace("totalPrice", "total_price")
    result = analyse_correction(before, after, "python")
    assert learned(result) == {"naming.variables": "snake_case"}
    assert "renamed 2 variables to snake_case" in result.votes[0].detail
    assert result.logic_change is False


def test_renaming_snake_case_variables_to_camel_case_in_typescript_votes_camel_case() -> None:
    before = "export function total(order: Order) {\n  const item_count = order.items.length\n"
    before += "  return item_count * 2\n}\n"
    after = before.replace("item_count", "itemCount")
    result = analyse_correction(before, after, "typescript")
    assert learned(result) == {"naming.variables": "camelCase"}
    assert result.logic_change is False


def test_keyword_arguments_and_constants_are_not_variable_names() -> None:
    before = "MAX_SIZE = 3\nresult = build(\n    pageSize=2,\n)\n"
    after = "maxSize = 3\nresult = build(\n    page_size=2,\n)\n"
    assert "naming.variables" not in learned(analyse_correction(before, after, "python"))


def test_renaming_classes_to_pascal_case_votes_pascal_case_classes() -> None:
    before = code(
        """
        class user_store:
            pass


        class cache:
            pass


        stores = [user_store(), cache()]
        """
    )
    after = (
        before.replace("user_store", "UserStore")
        .replace("class cache", "class Cache")
        .replace("cache()", "Cache()")
    )
    result = analyse_correction(before, after, "python")
    assert learned(result) == {"naming.classes": "PascalCase"}
    assert result.votes[0].statement == "Name classes in PascalCase."
    assert result.logic_change is False


def test_renaming_a_class_to_other_words_is_not_a_naming_vote() -> None:
    before = "class UserStore:\n    pass\n"
    result = analyse_correction(before, before.replace("UserStore", "AccountCache"), "python")
    assert learned(result) == {}
    assert result.logic_change is True


# --- import style -----------------------------------------------------------------------

QUALIFIED = code(
    """
    import os


    def locate(root, name):
        candidate = os.path.join(root, name)
        return candidate if os.path.exists(candidate) else None
    """
)
DIRECT = code(
    """
    from os import path


    def locate(root, name):
        candidate = path.join(root, name)
        return candidate if path.exists(candidate) else None
    """
)


def test_importing_names_instead_of_the_module_votes_from_imports() -> None:
    result = analyse_correction(QUALIFIED, DIRECT, "python")
    assert learned(result) == {"python.import_style": "from"}
    assert result.votes[0].statement.startswith("Import names from modules")
    assert "2 uses rewritten" in result.votes[0].detail
    assert result.logic_change is False


def test_importing_the_module_instead_of_names_votes_module_imports() -> None:
    before = DIRECT.replace("from os import path", "from os.path import exists, join")
    before = before.replace("path.join", "join").replace("path.exists", "exists")
    after = QUALIFIED.replace("import os\n", "import os.path\n")
    result = analyse_correction(before, after, "python")
    assert learned(result) == {"python.import_style": "module"}
    assert result.logic_change is False


def test_es_named_imports_instead_of_a_namespace_vote_named() -> None:
    before = code(
        """
        import * as fs from 'node:fs'

        export function load(file: string): string {
          return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''
        }
        """
    )
    after = before.replace("* as fs", "{ existsSync, readFileSync }").replace("fs.", "")
    result = analyse_correction(before, after, "typescript")
    assert learned(result) == {"js.import_style": "named"}
    assert result.votes[0].language == "typescript"
    assert result.logic_change is False


def test_a_new_import_or_one_dropped_with_its_code_is_not_an_import_style_vote() -> None:
    added = QUALIFIED.replace("import os\n", "import os\nfrom shutil import which\n")
    assert learned(analyse_correction(QUALIFIED, added, "python")) == {}
    dropped = "from os import path\n\n\ndef locate(root, name):\n    return None\n"
    result = analyse_correction(QUALIFIED, dropped, "python")
    assert learned(result) == {} and result.logic_change is True


COMMENTED = code(
    """
    def total(xs):
        # Start from zero so an empty list sums to zero.
        acc = 0
        # Add each number to the accumulator.
        for x in xs:
            acc += x  # accumulate
        return acc
    """
)


# --- votes only for what changed for that dimension -------------------------------------


def test_comments_deleted_with_the_code_they_described_are_not_a_vote_for_fewer() -> None:
    before = COMMENTED + code(
        """


        def legacy(xs):
            # Old entry point, kept for callers of version 1.
            # Remove when nobody calls it.
            return total(xs)
        """
    )
    result = analyse_correction(before, COMMENTED, "python")
    assert "comments" not in learned(result)
    assert result.logic_change is True


def test_a_semicolon_lost_with_the_statement_it_ended_is_not_a_vote() -> None:
    before = "export type Options = {\n  size: number;\n};\n"
    after = "export interface Options {\n  size: number;\n}\n"
    result = analyse_correction(before, after, "typescript")
    assert "js.semicolons" not in learned(result)
    assert result.logic_change is True
