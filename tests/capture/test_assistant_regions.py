"""The assistant's lines follow the document as the user edits it; a save sees only them."""

from __future__ import annotations

from comodor_lsp.capture.assistant_regions import (
    Region,
    TextChange,
    add_spans,
    apply_change,
    assistant_view,
    follow,
    lines_of,
    spans_of,
)

DOC = 'mine = 1\nhelper = "a"\nmore = "b"\nend = 2\n'


def written() -> list[Region]:
    """The assistant wrote lines 1–2 of DOC."""
    return add_spans([], spans_of([(1, 2)], 5), lines_of(DOC))


def test_what_the_user_types_above_moves_the_assistants_lines_down() -> None:
    after = "top = 0\n" + DOC
    regions = follow(written(), DOC, after, [TextChange(0, 0, 0, 0, "top = 0\n")])
    assert [(r.start, r.end) for r in regions] == [(2, 4)]
    assert assistant_view(lines_of(after), regions) == lines_of(after)


def test_a_fix_inside_the_assistants_lines_shows_against_what_it_wrote() -> None:
    after = DOC.replace('"a"', "'a'")
    regions = follow(written(), DOC, after, [TextChange(1, 9, 1, 12, "'a'")])
    assert "\n".join(assistant_view(lines_of(after), regions)) == DOC


def test_a_fix_of_the_users_own_line_is_not_put_back() -> None:
    after = DOC.replace("mine = 1", "mine = 'x'")
    regions = follow(written(), DOC, after, [TextChange(0, 7, 0, 8, "'x'")])
    assert "\n".join(assistant_view(lines_of(after), regions)) == after


def test_a_client_sending_whole_texts_is_followed_too() -> None:
    after = "top = 0\n" + DOC.replace('"b"', "'b'")
    regions = follow(written(), DOC, after, None)
    view = "\n".join(assistant_view(lines_of(after), regions))
    assert view == "top = 0\n" + DOC


def test_several_changes_in_one_notice_apply_in_order() -> None:
    after = "a = 0\n" + DOC.replace('"b"', "'b'") + "z = 9\n"
    changes = [
        TextChange(4, 0, 4, 0, "z = 9\n"),  # bottom first, as VS Code sends a multi-edit
        TextChange(2, 7, 2, 10, "'b'"),
        TextChange(0, 0, 0, 0, "a = 0\n"),
    ]
    regions = follow(written(), DOC, after, changes)
    assert "\n".join(assistant_view(lines_of(after), regions)) == "a = 0\n" + DOC + "z = 9\n"


def test_columns_count_utf16_units_like_lsp() -> None:
    line = 'x = "😀"; z = "b"'  # the emoji is two UTF-16 units: "b" starts at column 15
    assert apply_change([line], TextChange(0, 14, 0, 17, "'b'")) == ["x = \"😀\"; z = 'b'"]
