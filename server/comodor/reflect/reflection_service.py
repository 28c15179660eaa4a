"""Reflection, wired to one engine: gateway → reflector → worker → ``absorb_reflection``.

This is the object the engine sees as its :class:`~comodor.brain.tasks.Reflector`.
It exists only while ``reflect.enabled`` is on and an endpoint and a model are
set; with reflection off, nothing is constructed and nothing is ever sent.

The model is asked on reflection's own thread (a slow model must never hold up
the brain); what it proposes is handed to the brain worker (``post``), which
stores it in order with everything else.
"""

from __future__ import annotations

import logging
import time

from ..brain.engine import LearningEngine
from ..brain.models import EpisodeSummary, Skill
from ..brain.redaction.redactor import redact
from ..brain.worker import BrainWorker
from ..settings import ReflectSettings
from .background import ReflectionWorker
from .gateway import ChatGateway
from .parse import Reflection
from .reflector import Reflector

log = logging.getLogger(__name__)


class ReflectionService:
    """Background reflection for one engine; one model call at a time."""

    def __init__(
        self,
        engine: LearningEngine,
        settings: ReflectSettings,
        brain: BrainWorker,
    ) -> None:
        self.engine = engine
        self.settings = settings
        self.brain = brain
        self.gateway = ChatGateway(
            settings.endpoint,
            settings.model,
            settings.api_key_env,
            timeout_s=settings.timeout_s,
            log=log,
        )
        self.reflector = Reflector(self.gateway, redact, log=log)
        self.worker = ReflectionWorker(
            self.reflector.reflect, self._absorb, log=log, on_stop=self.gateway.close
        )

    def submit(self, episode_id: int, summary: EpisodeSummary) -> None:
        self.worker.submit(episode_id, summary)

    def wait_idle(self, timeout: float) -> bool:
        """Until the model is done and the brain worker stored what it proposed."""
        deadline = time.monotonic() + timeout
        if not self.worker.wait_idle(timeout):
            return False
        return self.brain.drain(max(0.0, deadline - time.monotonic()))

    def stop(self, timeout: float) -> None:
        self.worker.stop(timeout)

    def _absorb(self, episode_id: int, reflection: Reflection) -> None:
        if reflection.empty:
            return
        skill = None
        if reflection.skill is not None:
            skill = Skill(
                name=reflection.skill.name,
                description=reflection.skill.description,
                steps=list(reflection.skill.steps),
                scope="",
            )
        engine, lessons = self.engine, reflection.lessons

        def absorb() -> None:
            stored, merged = engine.absorb_reflection(episode_id, lessons, skill)
            log.info(
                "reflection on task %d: %d new lessons, %d merged", episode_id, len(stored), merged
            )

        self.brain.post(absorb, f"store the reflection on task {episode_id}")
