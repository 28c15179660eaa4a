"""One correction per (dimension, value): the agent's text and the text the user saves.

Shared by the contested-rules tests and ``bench.learning_judgement``: both replay the
same histories (two one way, then two or three the other), and one table keeps the
test and the bench measuring the same thing.
"""

from __future__ import annotations

CORRECTION: dict[tuple[str, str], tuple[str, str]] = {
    ("quotes.style", "single"): ('x = "a"\ny = "b"\n', "x = 'a'\ny = 'b'\n"),
    ("quotes.style", "double"): ("x = 'a'\ny = 'b'\n", 'x = "a"\ny = "b"\n'),
    ("js.semicolons", "always"): ("const a = 1\nconst b = 2\n", "const a = 1;\nconst b = 2;\n"),
    ("js.semicolons", "never"): ("const a = 1;\nconst b = 2;\n", "const a = 1\nconst b = 2\n"),
    ("indent.style", "spaces"): (
        "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n",
        "def f(x):\n    if x:\n        return 1\n    return 2\n",
    ),
    ("indent.style", "tabs"): (
        "def f(x):\n    if x:\n        return 1\n    return 2\n",
        "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n",
    ),
}
