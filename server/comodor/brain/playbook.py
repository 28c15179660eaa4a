"""The playbook: what an assistant gets before a request, under a hard token cap.

House rules come first under their own budget: they are counted facts about how
this user works, cheaper and more reliable than prose, and must survive a budget
that truncates everything else. Then lessons (pinned first), then skills, each
entry whole or not at all.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from .lessons.book import LessonBook
from .lessons.markdown import lesson_line
from .models import Lesson, Rule, Skill
from .recall.text import estimate_tokens
from .rules import judgement as rules_module
from .rules.house_rules import HouseRules
from .shared import Shared

PLAYBOOK_HEADER = (
    "Learned playbook: what earlier tasks in this project established. Treat these as "
    "strong priors, not orders; if what you observe contradicts one, trust the observation "
    "and say so."
)


@attrs.frozen
class Playbook:
    """The rendered block an assistant gets, and what it was made of."""

    text: str
    lessons: tuple[Lesson, ...]
    rules: tuple[Rule, ...]
    skills: tuple[Skill, ...]
    tokens: int
    prefetched: bool

    @classmethod
    def empty(cls) -> Playbook:
        return cls("", (), (), (), 0, False)


def render(
    lessons: Sequence[Lesson],
    skills: Sequence[Skill],
    rules: Sequence[Rule],
    *,
    budget: int,
    rules_budget: int,
    half_life_days: float,
) -> tuple[str, list[Lesson], list[Skill]]:
    """The playbook text, and the lessons and skills that made it in whole."""
    blocks: list[str] = []
    rules_block = rules_module.render_rules(rules, rules_budget)
    if rules_block:
        blocks.append(rules_block)
    lines = [PLAYBOOK_HEADER]
    used = estimate_tokens(PLAYBOOK_HEADER)
    shown: list[Lesson] = []
    shown_skills: list[Skill] = []
    for lesson in sorted(lessons, key=lambda lesson: not lesson.pinned):
        entry = lesson_line(lesson, half_life_days)
        cost = estimate_tokens(entry)
        if used + cost > budget:
            continue
        lines.append(entry)
        shown.append(lesson)
        used += cost
    for skill in skills:
        entry = (
            f"- (skill: {skill.name}, {skill.success_rate:.0%} success) "
            f"{skill.description} Steps: {'; '.join(skill.steps[:6])}"
        )
        cost = estimate_tokens(entry)
        if used + cost > budget:
            continue
        lines.append(entry)
        shown_skills.append(skill)
        used += cost
    if len(lines) > 1:
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks), shown, shown_skills


class PlaybookMaker:
    """Recall plus rules, rendered; answers from a prefetch when there is one."""

    def __init__(self, shared: Shared, lessons: LessonBook, rules: HouseRules) -> None:
        self.shared = shared
        self.lessons = lessons
        self.rules = rules

    def make(
        self, query: str, max_tokens: int | None = None, language: str | None = None
    ) -> Playbook:
        settings = self.shared.settings
        recall = self.lessons.take_prefetched(query)
        prefetched = recall is not None
        if recall is None:
            recall = self.lessons.recall(query)
        rules = self.rules.active(language)
        text, lessons, skills = render(
            recall.lessons,
            recall.skills,
            rules,
            budget=max_tokens if max_tokens is not None else settings.max_playbook_tokens,
            rules_budget=settings.rules_tokens,
            half_life_days=settings.half_life_days,
        )
        return Playbook(
            text=text,
            lessons=tuple(lessons),
            rules=tuple(rules),
            skills=tuple(skills),
            tokens=estimate_tokens(text) if text else 0,
            prefetched=prefetched,
        )
