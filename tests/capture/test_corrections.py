"""What a user's correction of an agent's file teaches Comodor."""

from __future__ import annotations

import textwrap

import pytest
from comodor_lsp.conventions.corrections import Correction, analyse_correction, language_of
from comodor_lsp.conventions.votes import CATALOG
from hypothesis import given, settings
from hypothesis import strategies as st


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def learned(correction: Correction) -> dict[str, str]:
    return {v.key: v.value for v in correction.votes}


# --- quotes -----------------------------------------------------------------------------

PY_QUOTES = code(
    """
    def greet(name):
        title = "Dr"
        return "hello " + title + name
    """
)


def test_switching_strings_to_single_quotes_votes_single() -> None:
    result = analyse_correction(PY_QUOTES, PY_QUOTES.replace('"', "'"), "python")
    assert learned(result) == {"quotes.style": "single"}
    vote = result.votes[0]
    assert vote.statement == "Use single quotes for strings."
    assert vote.language == "python" and vote.kind == "correction" and vote.weight == 1.0
    assert "2 strings from double to single" in vote.detail
    assert result.logic_change is False


def test_switching_strings_to_double_quotes_in_javascript_votes_double() -> None:
    before = "const a = 'x';\nconst b = 'y';\n"
    result = analyse_correction(before, before.replace("'", '"'), "javascript")
    assert learned(result) == {"quotes.style": "double"}
    assert result.votes[0].statement == "Use double quotes for strings."
    assert result.logic_change is False


def test_two_fixed_strings_in_a_file_of_fifty_double_quoted_ones_vote_single() -> None:
    before = "".join(f'v{i} = "s{i}"\n' for i in range(200))
    after = before.replace('v7 = "s7"', "v7 = 's7'").replace('v190 = "s190"', "v190 = 's190'")
    result = analyse_correction(before, after, "python")
    assert learned(result) == {"quotes.style": "single"}
    assert "2 strings" in result.votes[0].detail
    assert result.changed_lines == 4


def test_fstring_quote_switch_counts_and_keeps_its_prefix() -> None:
    before = 'msg = f"{a} and {b}"\n'
    result = analyse_correction(before, "msg = f'{a} and {b}'\n", "python")
    assert learned(result) == {"quotes.style": "single"}


def test_docstring_quotes_and_strings_holding_the_other_quote_are_not_votes() -> None:
    before = code(
        '''
        def f():
            """Say hi."""
            return "it's"
        '''
    )
    after = before.replace('"""Say hi."""', "'''Say hi.'''")
    assert learned(analyse_correction(before, after, "python")) == {}


def test_quotes_are_not_a_style_in_go() -> None:
    before = 'x := "a"\n'
    assert "quotes.style" not in learned(analyse_correction(before, "x := 'a'\n", "go"))


# --- indentation ------------------------------------------------------------------------

PY_BLOCK = code(
    """
    def f(items):
        total = compute(items,
                        scale=2)
        for item in items:
            if item:
                total += item
        return total
    """
)


def test_converting_tabs_to_four_spaces_votes_spaces_and_width_four() -> None:
    tabbed = PY_BLOCK.replace("    ", "\t")
    result = analyse_correction(tabbed, PY_BLOCK, "python")
    assert learned(result) == {"indent.style": "spaces", "indent.width": "4"}
    assert result.logic_change is False


def test_converting_spaces_to_tabs_votes_tabs() -> None:
    result = analyse_correction(PY_BLOCK, PY_BLOCK.replace("    ", "\t"), "python")
    assert learned(result) == {"indent.style": "tabs"}
    assert result.logic_change is False


def test_reindenting_four_space_python_to_two_votes_width_two() -> None:
    result = analyse_correction(PY_BLOCK, PY_BLOCK.replace("    ", "  "), "python")
    assert learned(result) == {"indent.width": "2"}


def test_reindenting_two_space_code_to_four_votes_width_four_not_two() -> None:
    result = analyse_correction(PY_BLOCK.replace("    ", "  "), PY_BLOCK, "python")
    assert learned(result) == {"indent.width": "4"}
    assert "to 4 spaces" in result.votes[0].detail


def test_typescript_reindent_votes_carry_typescript() -> None:
    before = "function f() {\n    if (a) {\n        b();\n    }\n}\n"
    result = analyse_correction(before, before.replace("    ", "  "), "typescript")
    assert learned(result) == {"indent.width": "2"}
    assert result.votes[0].language == "typescript"


# --- return annotations -----------------------------------------------------------------

ANNOTATED = code(
    """
    def size(items: list[int]) -> int:
        return len(items)


    async def load(
        path: str,
    ) -> bytes:
        return b""
    """
)


def test_adding_return_annotations_votes_added() -> None:
    bare = ANNOTATED.replace(" -> int", "").replace(") -> bytes:", "):")
    result = analyse_correction(bare, ANNOTATED, "python")
    assert learned(result) == {"python.return_annotations": "added"}
    assert "2 functions" in result.votes[0].detail
    assert result.logic_change is False


def test_annotating_a_function_while_renaming_it_still_votes_added() -> None:
    # Found by bench.learning: a user who fixes a camelCase name and adds `-> T` in the
    # same save used to teach only the naming rule; the annotation went unseen.
    before = "def loadUsers(rows):\n    return len(rows)\n"
    after = "def load_users(rows) -> int:\n    return len(rows)\n"
    result = analyse_correction(before, after, "python")
    assert learned(result) == {
        "python.return_annotations": "added",
        "naming.functions": "snake_case",
    }
    assert result.logic_change is False


def test_removing_return_annotations_votes_removed() -> None:
    bare = ANNOTATED.replace(" -> int", "")
    result = analyse_correction(ANNOTATED, bare, "python")
    assert learned(result) == {"python.return_annotations": "removed"}
    assert result.votes[0].statement.startswith("Do not add return type")


# --- string formatting ------------------------------------------------------------------


def test_rewriting_format_and_percent_into_fstrings_votes_fstring() -> None:
    before = 'a = "{} items".format(count)\nb = "%s of %s" % (done, total)\n'
    after = 'a = f"{count} items"\nb = f"{done} of {total}"\n'
    result = analyse_correction(before, after, "python")
    assert learned(result) == {"python.string_format": "fstring"}
    assert result.logic_change is False


def test_rewriting_fstrings_into_format_votes_format() -> None:
    result = analyse_correction(
        'a = f"{count} items"\n', 'a = "{} items".format(count)\n', "python"
    )
    assert learned(result) == {"python.string_format": "format"}
    assert result.logic_change is False


def test_fstring_rewrite_that_also_uses_a_new_name_is_a_logic_change_not_a_vote() -> None:
    result = analyse_correction(
        'a = "{} items".format(count)\n', 'a = f"{total} items"\n', "python"
    )
    assert learned(result) == {}
    assert result.logic_change is True


# --- semicolons -------------------------------------------------------------------------

JS_SEMI = "const a = load();\nlet b = a + 1;\nexport default b;\n"


@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_dropping_semicolons_votes_never(language: str) -> None:
    result = analyse_correction(JS_SEMI, JS_SEMI.replace(";", ""), language)
    assert learned(result) == {"js.semicolons": "never"}
    assert result.votes[0].language == language
    assert result.logic_change is False


def test_adding_semicolons_votes_always() -> None:
    result = analyse_correction(JS_SEMI.replace(";", ""), JS_SEMI, "typescript")
    assert learned(result) == {"js.semicolons": "always"}


def test_semicolons_are_not_a_python_style() -> None:
    assert learned(analyse_correction("a = 1;\n", "a = 1\n", "python")) == {}


# --- verbosity --------------------------------------------------------------------------

VERBOSE = code(
    """
    def parse(text):
        if text is None:
            raise ValueError("no text")
        if not isinstance(text, str):
            raise TypeError("not text")
        cleaned = text.strip()
        if not cleaned:
            return []
        parts = cleaned.split(",")
        result = [p.strip() for p in parts]
        return result
    """
)


def test_deleting_most_of_what_the_agent_wrote_votes_concise() -> None:
    after = 'def parse(text):\n    return [p.strip() for p in text.split(",")]\n'
    result = analyse_correction(VERBOSE, after, "python")
    assert learned(result) == {"verbosity": "concise"}
    assert result.votes[0].statement.startswith("Keep changes short:")
    assert result.logic_change is True


def test_adding_code_or_trimming_a_little_is_not_a_verbosity_vote() -> None:
    longer = VERBOSE + "\n\ndef extra():\n    return 1\n"
    assert "verbosity" not in learned(analyse_correction(VERBOSE, longer, "python"))
    trimmed = VERBOSE.replace("    if not cleaned:\n        return []\n", "")
    assert "verbosity" not in learned(analyse_correction(VERBOSE, trimmed, "python"))


def test_verbosity_is_measured_against_the_agents_lines_when_the_baseline_is_known() -> None:
    baseline = "".join(f"keep_{i} = {i}\n" for i in range(60))
    before = baseline + VERBOSE
    after = baseline + 'def parse(text):\n    return text.split(",")\n'
    assert "verbosity" not in learned(analyse_correction(before, after, "python"))
    with_baseline = analyse_correction(before, after, "python", baseline=baseline)
    assert learned(with_baseline) == {"verbosity": "concise"}


# --- comments ---------------------------------------------------------------------------

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
UNCOMMENTED = code(
    """
    def total(xs):
        acc = 0
        for x in xs:
            acc += x
        return acc
    """
)


def test_deleting_the_agents_comments_votes_fewer_comments_without_logic_change() -> None:
    result = analyse_correction(COMMENTED, UNCOMMENTED, "python")
    assert learned(result) == {"comments": "fewer"}
    assert "3 comments" in result.votes[0].detail
    assert result.votes[0].category == "avoid"
    assert result.logic_change is False


def test_adding_comments_is_not_a_vote_for_fewer() -> None:
    assert learned(analyse_correction(UNCOMMENTED, COMMENTED, "python")) == {}


def test_deleting_one_stale_comment_or_pragmas_is_not_a_pattern() -> None:
    before = "x = 1  # type: ignore\ny = 2  # noqa: E501\n# old note\nz = 3\n"
    assert learned(analyse_correction(before, "x = 1\ny = 2\nz = 3\n", "python")) == {}


# --- logging ----------------------------------------------------------------------------


def test_replacing_print_with_logger_calls_votes_logging() -> None:
    before = 'def run(n):\n    print("starting", n)\n    print("done")\n'
    after = 'def run(n):\n    logger.info("starting %s", n)\n    logger.info("done")\n'
    result = analyse_correction(before, after, "python")
    assert learned(result) == {"python.logging": "logging"}
    assert result.logic_change is False


def test_adding_the_logger_setup_with_the_switch_is_not_a_logic_change() -> None:
    before = 'import os\n\n\ndef run(n):\n    print("starting", n)\n'
    after = (
        "import logging\nimport os\n\nlogger = logging.getLogger(__name__)\n\n\n"
        'def run(n):\n    logger.info("starting %s", n)\n'
    )
    result = analyse_correction(before, after, "python")
    assert learned(result) == {"python.logging": "logging"}
    assert result.logic_change is False


def test_replacing_logger_calls_with_print_votes_print() -> None:
    before = 'def run(n):\n    logging.debug("starting %s", n)\n'
    after = 'def run(n):\n    print("starting", n)\n'
    assert learned(analyse_correction(before, after, "python")) == {"python.logging": "print"}


# --- function naming --------------------------------------------------------------------


def test_renaming_camel_case_functions_to_snake_case_votes_snake_case() -> None:
    before = "def loadUser(uid):\n    return uid\n\n\nprofile = loadUser(3)\n"
    after = "def load_user(uid):\n    return uid\n\n\nprofile = load_user(3)\n"
    result = analyse_correction(before, after, "python")
    assert learned(result) == {"naming.functions": "snake_case"}
    assert result.logic_change is False


def test_renaming_snake_case_functions_to_camel_case_in_javascript_votes_camel() -> None:
    before = "function load_user(id) {\n  return id;\n}\nconst p = load_user(3);\n"
    after = "function loadUser(id) {\n  return id;\n}\nconst p = loadUser(3);\n"
    result = analyse_correction(before, after, "javascript")
    assert learned(result) == {"naming.functions": "camelCase"}
    assert result.votes[0].language == "javascript"
    assert result.logic_change is False


def test_renaming_a_function_to_a_different_word_is_not_a_casing_vote() -> None:
    before = "def load_user(uid):\n    return uid\n"
    result = analyse_correction(before, before.replace("load_user", "fetchAccount"), "python")
    assert learned(result) == {}
    assert result.logic_change is True


# --- trailing commas --------------------------------------------------------------------

CALL = code(
    """
    result = build(
        first,
        second
    )
    """
)


def test_adding_trailing_commas_to_multiline_calls_votes_always() -> None:
    result = analyse_correction(CALL, CALL.replace("second\n", "second,\n"), "python")
    assert learned(result) == {"trailing_commas": "always"}
    assert result.logic_change is False


def test_removing_trailing_commas_in_typescript_votes_never() -> None:
    before = "const xs = [\n  1,\n  2,\n];\n"
    result = analyse_correction(before, before.replace("2,", "2"), "typescript")
    assert learned(result) == {"trailing_commas": "never"}
    assert result.votes[0].language == "typescript"
    assert result.logic_change is False


def test_a_comma_that_makes_a_one_line_tuple_is_not_a_trailing_comma_vote() -> None:
    assert "trailing_commas" not in learned(analyse_correction("x = 1\n", "x = 1,\n", "python"))


# --- logic changes ----------------------------------------------------------------------

LOGIC = code(
    """
    def pick(items, limit):
        count = 0
        for item in items:
            if item > limit:
                count += 1
        log(count)
        return count
    """
)


@pytest.mark.parametrize(
    "after",
    [
        pytest.param(LOGIC.replace("count", "hits"), id="renamed-local"),
        pytest.param(LOGIC.replace("item > limit", "item >= limit"), id="changed-condition"),
        pytest.param(LOGIC.replace("    return", "    check(items)\n    return"), id="new-stmt"),
        pytest.param(
            LOGIC.replace(
                "    log(count)\n    return count\n", "    return count\n    log(count)\n"
            ),
            id="reordered",
        ),
        pytest.param(LOGIC.replace("        count += 1", "    count += 1"), id="dedented-stmt"),
    ],
)
def test_logic_edits_teach_no_rule_but_are_flagged(after: str) -> None:
    result = analyse_correction(LOGIC, after, "python")
    assert result.votes == ()
    assert result.logic_change is True
    assert result.changed_lines > 0


def test_a_quote_fix_on_a_line_whose_logic_also_changed_teaches_nothing() -> None:
    # The line is not the same tokens up to quote style: the user rewrote it.
    before = 'if mode == "fast":\n    run()\n'
    after = "if mode != 'fast':\n    run()\n"
    result = analyse_correction(before, after, "python")
    assert learned(result) == {}
    assert result.logic_change is True


def test_a_quote_fix_next_to_a_logic_edit_in_the_same_save_is_both() -> None:
    before = 'if mode == "fast":\n    run("now")\n'
    after = "if mode != \"fast\":\n    run('now')\n"
    result = analyse_correction(before, after, "python")
    assert learned(result) == {"quotes.style": "single"}
    assert result.logic_change is True


def test_pure_formatting_changes_together_are_not_logic() -> None:
    before = 'const a = {\n    name: "x",\n    size: 2\n};\n'
    after = "const a = {\n  name: 'x',\n  size: 2,\n}\n"
    result = analyse_correction(before, after, "javascript")
    assert learned(result) == {
        "quotes.style": "single",
        "indent.width": "2",
        "trailing_commas": "always",
        "js.semicolons": "never",
    }
    assert result.logic_change is False


# --- shape of the result ----------------------------------------------------------------


def test_diff_holds_only_the_changed_hunks() -> None:
    before = "".join(f"line_{i} = {i}\n" for i in range(100))
    after = before.replace("line_50 = 50", "line_50 = 'fifty'")
    diff = analyse_correction(before, after, "python").diff
    assert diff.startswith("--- agent\n+++ user\n@@")
    assert "-line_50 = 50" in diff and "+line_50 = 'fifty'" in diff
    assert "line_10 " not in diff and "line_90 " not in diff
    assert diff.count("@@") == 2


def test_changed_lines_counts_added_and_removed() -> None:
    result = analyse_correction("a = 1\nb = 2\n", "a = 1\nb = 3\nc = 4\n", "python")
    assert result.changed_lines == 3


def test_each_key_gets_at_most_one_vote_and_statements_match_the_catalog() -> None:
    result = analyse_correction(PY_BLOCK.replace("    ", "\t"), PY_BLOCK, "python")
    keys = [v.key for v in result.votes]
    assert len(keys) == len(set(keys))
    for vote in result.votes:
        assert vote.statement == CATALOG[vote.key].statement_for(vote.value)


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=400),
    language=st.sampled_from([None, "python", "javascript", "typescript", "go", "css", "rust"]),
)
def test_saving_the_agents_text_unchanged_teaches_nothing(text: str, language: str | None) -> None:
    result = analyse_correction(text, text, language)
    assert result.votes == ()
    assert result.changed_lines == 0
    assert result.logic_change is False
    assert result.diff == ""


@settings(max_examples=150, deadline=None)
@given(
    before=st.text(alphabet="ab'\"#/ \t\n(),;{}:-=>fx%.", max_size=200),
    after=st.text(alphabet="ab'\"#/ \t\n(),;{}:-=>fx%.", max_size=200),
    language=st.sampled_from([None, "python", "javascript", "typescript", "go"]),
)
def test_any_edit_of_code_like_text_is_analysed_without_crashing(
    before: str, after: str, language: str | None
) -> None:
    result = analyse_correction(before, after, language)
    assert len({v.key for v in result.votes}) == len(result.votes)


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("src/app.py", "python"),
        ("web/App.tsx", "typescript"),
        ("a.ts", "typescript"),
        ("a.jsx", "javascript"),
        ("lib/x.mjs", "javascript"),
        ("x.cjs", "javascript"),
        ("main.go", "go"),
        ("lib.rs", "rust"),
        ("A.java", "java"),
        ("x.rb", "ruby"),
        ("site.css", "css"),
        ("package.json", "json"),
        ("README.md", "markdown"),
        ("Makefile", "makefile"),  # by name: a Makefile's rules are not Python's
        ("build/rules.mk", "makefile"),
        ("notes.xyz", None),
    ],
)
def test_language_is_told_by_extension(path: str, language: str | None) -> None:
    assert language_of(path) == language
