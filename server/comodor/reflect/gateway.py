"""A small, defensive client for OpenAI-compatible chat-completions endpoints.

Users point Comodor at hosted and local servers (OpenAI, OpenRouter, Ollama,
LM Studio, llama.cpp, vLLM) that all speak ``POST /v1/chat/completions`` but
differ in how they fail. This module turns every failure into one
:class:`ReflectError` with a one-line message that says what to fix, retries
only what is worth retrying, and can be abandoned from another thread so a hung
model never delays shutdown.

Why a helper thread per attempt: a blocking socket read cannot be interrupted
portably from another thread (closing the socket does not wake ``recv`` on
every platform). The caller therefore waits on a condition that either the
request or :meth:`ChatGateway.cancel` signals; an abandoned request finishes
(or times out) on its own daemon thread and its result is discarded.
"""

from __future__ import annotations

import email.utils
import functools
import ipaddress
import json
import logging
import math
import os
import random
import re
import ssl
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from .reflection_error import ReflectError

__all__ = ["ChatGateway", "ReflectError", "normalize_endpoint"]

_LOG = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
_KEY_STATUSES = frozenset({401, 403})
_DETAIL_MAX = 160


def normalize_endpoint(endpoint: str) -> str:
    """Return the base URL without trailing slashes, or raise ``ReflectError``.

    A pasted full URL (``…/v1/chat/completions``) is tolerated because it is the
    most common copy-paste mistake from provider docs.
    """
    raw = (endpoint or "").strip()
    shown = _mask_userinfo(raw) or "<empty>"
    try:
        parts = urlsplit(raw)
    except ValueError:
        raise ReflectError(f"invalid endpoint URL {shown!r}: cannot be parsed") from None
    if parts.scheme not in ("http", "https"):
        raise ReflectError(f"invalid endpoint URL {shown!r}: must start with http:// or https://")
    try:
        host = parts.hostname
    except ValueError:
        host = None
    if not host:
        raise ReflectError(f"invalid endpoint URL {shown!r}: missing host")
    if any(ch.isspace() for ch in raw):
        raise ReflectError(f"invalid endpoint URL {shown!r}: contains whitespace")
    base = raw.rstrip("/")
    for suffix in ("/chat/completions", "/completions"):
        if base.endswith(suffix):
            base = base[: -len(suffix)].rstrip("/")
            break
    return base


class _Attempt:
    """The outcome slot of one HTTP request running on a helper thread."""

    __slots__ = ("done", "error", "response")

    def __init__(self) -> None:
        self.done = False
        self.response: httpx.Response | None = None
        self.error: BaseException | None = None


class _Call:
    """One logical call (all its attempts); cancel() flips ``cancelled``."""

    __slots__ = ("cancelled", "cond")

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.cancelled = False


class _Retry(Exception):
    """Internal: this attempt failed in a way worth retrying."""

    def __init__(self, message: str, delay_s: float | None = None, status: int | None = None):
        super().__init__(message)
        self.message = message
        self.delay_s = delay_s
        self.status = status


class ChatGateway:
    """Blocking chat-completions client meant to run on a worker thread.

    The API key is looked up in ``os.environ[api_key_env]`` at every call and
    is never stored on the object, so it cannot leak through ``repr`` or logs.
    """

    def __init__(  # positional order is the documented config order
        self,
        endpoint: str,
        model: str,
        api_key_env: str = "",
        timeout_s: float = 60,
        max_retries: int = 3,
        transport: httpx.BaseTransport | None = None,
        *,
        backoff_s: float = 0.5,
        backoff_max_s: float = 8.0,
        retry_after_max_s: float = 30.0,
        temperature: float = 0.2,
        log: logging.Logger | None = None,
    ) -> None:
        self.model = model
        self.api_key_env = api_key_env
        self.timeout_s = float(timeout_s)
        self.max_retries = max(0, int(max_retries))
        self.backoff_s = max(0.0, backoff_s)
        self.backoff_max_s = max(0.0, backoff_max_s)
        self.retry_after_max_s = max(0.0, retry_after_max_s)
        self.temperature = temperature
        self._log = log or _LOG
        # Validation is deferred to call time so a bad setting surfaces as a
        # normal ReflectError from the worker or doctor, not a startup crash.
        try:
            self._url = normalize_endpoint(endpoint)
            self._url_error: str | None = None
        except ReflectError as err:
            self._url = endpoint
            self._url_error = str(err)
        #: The endpoint as shown in messages: credentials in the URL are masked.
        self.endpoint = _mask_userinfo(self._url)
        self._client = httpx.Client(
            transport=transport,
            verify=_ssl_context(),
            # Connecting is quick or hopeless; fail it early so it can be retried.
            timeout=httpx.Timeout(self.timeout_s, connect=min(self.timeout_s, 10.0)),
            # A redirected POST silently turns into a GET; better to say so.
            follow_redirects=False,
            # Honour proxy variables like other OpenAI clients, except for a
            # model on this machine, which must never be sent via a proxy.
            trust_env=not _is_loopback(self._url),
        )
        self._lock = threading.Lock()
        self._inflight: set[_Call] = set()
        self._closed = False

    def __repr__(self) -> str:
        return (
            f"ChatGateway(endpoint={self.endpoint!r}, model={self.model!r}, "
            f"api_key_env={self.api_key_env!r})"
        )

    # -- lifecycle -----------------------------------------------------------

    def cancel(self) -> None:
        """Make every in-flight call give up now with ``ReflectError``.

        Safe to call from any thread; later calls still work.
        """
        with self._lock:
            calls = list(self._inflight)
        for call in calls:
            with call.cond:
                call.cancelled = True
                call.cond.notify_all()

    def close(self) -> None:
        """Cancel in-flight calls and release the HTTP client; later calls fail."""
        with self._lock:
            self._closed = True
        self.cancel()
        try:
            self._client.close()
        except Exception:  # pragma: no cover - best effort during shutdown
            self._log.debug("error while closing the HTTP client", exc_info=True)

    # -- public calls --------------------------------------------------------

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        json_mode: bool = False,
        max_tokens: int | None = None,
    ) -> str:
        """Send one chat completion and return the assistant's text.

        ``json_mode`` adds ``response_format: {"type": "json_object"}``; it is
        off by default because some local servers reject it and the reply
        parser copes with prose around the JSON anyway.
        """
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "temperature": self.temperature,
        }
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        data = self._request("POST", "/chat/completions", body)
        return _extract_text(data)

    def ping(self) -> str:
        """Check the endpoint and model for ``comodor-lsp doctor``; return one line.

        Uses ``GET /models`` (cheap, no tokens). If the server lacks that route
        a one-token completion is tried instead. Raises ``ReflectError``.
        """
        try:
            data = self._request("GET", "/models", None, retries=0)
        except ReflectError as err:
            if err.status != 404:
                raise
            self.complete([{"role": "user", "content": "ping"}], max_tokens=1)
            return f"ok: {self.endpoint} answered a test completion with model {self.model!r}"
        ids = _model_ids(data)
        if ids is None:
            return f"ok: {self.endpoint} is reachable (model list not understood)"
        if self.model in ids:
            return f"ok: {self.endpoint} serves model {self.model!r}"
        return (
            f"warning: {self.endpoint} is reachable but does not list model {self.model!r} "
            f"({len(ids)} models available)"
        )

    # -- internals -----------------------------------------------------------

    def _request(
        self, method: str, path: str, body: dict[str, Any] | None, retries: int | None = None
    ) -> Any:
        if self._url_error:
            raise ReflectError(self._url_error)
        call = _Call()
        with self._lock:
            if self._closed:
                raise ReflectError("the reflection gateway is closed")
            self._inflight.add(call)
        try:
            return self._with_retries(call, method, path, body, retries)
        finally:
            with self._lock:
                self._inflight.discard(call)

    def _with_retries(
        self,
        call: _Call,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        retries: int | None,
    ) -> Any:
        allowed = self.max_retries if retries is None else retries
        attempt = 0
        while True:
            try:
                return self._attempt(call, method, path, body)
            except _Retry as retry:
                if attempt >= allowed:
                    tries = attempt + 1
                    suffix = f" (after {tries} attempts)" if tries > 1 else ""
                    raise ReflectError(retry.message + suffix, status=retry.status) from None
                delay = retry.delay_s
                if delay is None:
                    delay = min(self.backoff_max_s, self.backoff_s * 2**attempt)
                    delay *= random.uniform(0.5, 1.0)
                attempt += 1
                self._log.debug(
                    "reflection call retry %d/%d in %.2fs: %s",
                    attempt,
                    allowed,
                    delay,
                    retry.message,
                )
                self._sleep(call, delay)

    def _sleep(self, call: _Call, delay_s: float) -> None:
        with call.cond:
            call.cond.wait_for(lambda: call.cancelled, timeout=delay_s)
            if call.cancelled:
                raise ReflectError(f"the call to {self.endpoint} was cancelled")

    def _attempt(self, call: _Call, method: str, path: str, body: dict[str, Any] | None) -> Any:
        url = self._url + path
        headers = {"Accept": "application/json"}
        key = os.environ.get(self.api_key_env, "") if self.api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        slot = _Attempt()

        def run() -> None:
            resp: httpx.Response | None = None
            error: BaseException | None = None
            try:
                if body is None:
                    resp = self._client.request(method, url, headers=headers)
                else:
                    resp = self._client.request(method, url, headers=headers, json=body)
            except BaseException as exc:
                error = exc
            with call.cond:
                slot.response, slot.error, slot.done = resp, error, True
                call.cond.notify_all()

        worker = threading.Thread(target=run, name="comodor-reflect-http", daemon=True)
        with call.cond:
            if call.cancelled:
                raise ReflectError(f"the call to {self.endpoint} was cancelled")
            worker.start()
            finished = call.cond.wait_for(
                lambda: slot.done or call.cancelled, timeout=self.timeout_s
            )
            if call.cancelled:
                raise ReflectError(f"the call to {self.endpoint} was cancelled")
        if not finished:
            raise ReflectError(self._timeout_message())
        if slot.error is not None:
            raise self._transport_error(slot.error, key)
        assert slot.response is not None
        return self._decode(slot.response, key)

    def _timeout_message(self) -> str:
        return f"no reply from {self.endpoint} within {self.timeout_s:g} s (timeout)"

    def _transport_error(self, exc: BaseException, key: str) -> Exception:
        where = self.endpoint
        if self._closed:
            return ReflectError(f"the call to {where} was cancelled")
        if isinstance(exc, httpx.ConnectTimeout):
            return _Retry(f"cannot reach {where}: connection timed out")
        if isinstance(exc, httpx.TimeoutException):
            return ReflectError(self._timeout_message())
        if isinstance(exc, httpx.ConnectError):
            return _Retry(f"cannot reach {where}: {_connect_reason(exc)}")
        if isinstance(exc, httpx.RemoteProtocolError):
            detail = _scrub(str(exc), key)
            return _Retry(f"the connection to {where} broke: {detail}")
        if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
            return ReflectError(f"invalid endpoint URL {where!r}: {_scrub(str(exc), key)}")
        if isinstance(exc, httpx.HTTPError):
            return ReflectError(f"request to {where} failed: {_scrub(str(exc), key)}")
        return ReflectError(
            f"request to {where} failed: {type(exc).__name__}: {_scrub(str(exc), key)}"
        )

    def _decode(self, resp: httpx.Response, key: str) -> Any:
        status = resp.status_code
        if status >= 400:
            raise self._status_error(resp, key)
        if 300 <= status < 400:
            target = _short(resp.headers.get("location", ""), 120) or "another URL"
            raise ReflectError(
                f"the endpoint redirected ({status}) to {target}; "
                "set reflect.endpoint to the final URL",
                status=status,
            )
        ctype = resp.headers.get("content-type", "").split(";")[0].strip() or "no content type"
        try:
            return json.loads(resp.content)
        except ValueError:
            pass
        if "json" in ctype:
            raise ReflectError(
                f"the endpoint's reply is malformed JSON ({len(resp.content)} bytes) "
                f"from {_shown(resp)}"
            )
        raise ReflectError(
            f"the endpoint replied with {ctype}, not JSON, from {_shown(resp)}; "
            "is reflect.endpoint an OpenAI-compatible base URL ending in /v1?"
        )

    def _status_error(self, resp: httpx.Response, key: str) -> Exception:
        status = resp.status_code
        detail = _scrub(_error_detail(resp), key)
        tail = f": {detail}" if detail else ""
        if status in RETRY_STATUSES:
            delay = _retry_after(resp.headers.get("retry-after"), self.retry_after_max_s)
            if status == 429:
                return _Retry(f"the endpoint is rate limiting requests (429){tail}", delay, status)
            return _Retry(f"the endpoint failed with HTTP {status}{tail}", delay, status)
        if status in _KEY_STATUSES:
            msg = (
                f"the endpoint rejected the API key ({status}); "
                "check the variable named by reflect.apiKeyEnv"
            )
            if not key:
                unset = self.api_key_env or "reflect.apiKeyEnv"
                msg += f" (no key was sent: {unset} is unset or empty)"
            return ReflectError(msg, status=status)
        lowered = detail.lower()
        model_missing = "model" in lowered and (
            "not found" in lowered or "does not exist" in lowered or "not exist" in lowered
        )
        if status == 404 or model_missing:
            msg = f"model {self.model!r} not found at {self.endpoint}"
            if status == 404 and not model_missing:
                msg += f" (404 for {_shown(resp)}; check that the endpoint ends in /v1)"
            return ReflectError(msg, status=status)
        return ReflectError(f"the endpoint refused the request ({status}){tail}", status=status)


def _mask_userinfo(url: str) -> str:
    """Hide ``user:password@`` in a URL so it never reaches a message or log."""
    return re.sub(r"(?<=://)[^/@\s]*@", "***@", url, count=1)


def _shown(resp: httpx.Response) -> str:
    return _mask_userinfo(str(resp.request.url))


def _is_loopback(url: str) -> bool:
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """One verifying TLS context for all gateways (building one costs ~30 ms)."""
    return httpx.create_ssl_context()


def _extract_text(data: Any) -> str:
    """Pull the assistant text out of a chat-completions reply."""
    if not isinstance(data, dict):
        raise ReflectError("the endpoint's reply is not a JSON object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        err = data.get("error")
        if err:
            message = err.get("message") if isinstance(err, dict) else err
            raise ReflectError(f"the endpoint returned an error: {_short(str(message))}")
        raise ReflectError("the endpoint's reply has no choices")
    first = choices[0]
    if not isinstance(first, dict):
        raise ReflectError("the endpoint's reply has a malformed choice")
    message = first.get("message")
    content: Any = message.get("content") if isinstance(message, dict) else None
    if content is None:
        content = first.get("text")  # legacy completions shape from some servers
    if isinstance(content, list):  # content parts
        content = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    if not isinstance(content, str) or not content.strip():
        reason = first.get("finish_reason")
        why = f" (finish_reason={reason})" if reason else ""
        raise ReflectError(f"the endpoint's reply has no message content{why}")
    return content


def _model_ids(data: Any) -> list[str] | None:
    items = data.get("data") if isinstance(data, dict) else data
    if not isinstance(items, list):
        return None
    return [str(item["id"]) for item in items if isinstance(item, dict) and "id" in item]


def _error_detail(resp: httpx.Response) -> str:
    """Best-effort short server explanation from an error body."""
    try:
        data = resp.json()
    except ValueError:
        text = resp.text.strip()
        if text.startswith("<"):
            return ""  # an HTML error page says nothing useful on one line
        return _short(text)
    if isinstance(data, dict):
        err = data.get("error", data.get("detail", data.get("message")))
        if isinstance(err, dict):
            err = err.get("message", err.get("code", ""))
        if err:
            return _short(str(err))
    return ""


def _connect_reason(exc: BaseException) -> str:
    text = str(exc)
    lowered = text.lower()
    if "refused" in lowered:
        return "connection refused"
    if (
        "name or service not known" in lowered
        or "nodename nor servname" in lowered
        or ("name resolution" in lowered)
        or "getaddrinfo" in lowered
    ):
        return "host name not found"
    if "certificate" in lowered or "ssl" in lowered:
        return f"TLS error ({_short(text)})"
    if "unreachable" in lowered:
        return "network unreachable"
    return _short(text) or type(exc).__name__


def _retry_after(value: str | None, cap_s: float) -> float | None:
    """Seconds from a Retry-After header (delta or HTTP date), capped."""
    if not value:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    if math.isnan(seconds):
        return None
    return min(max(0.0, seconds), cap_s)


def _short(text: str, limit: int = _DETAIL_MAX) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _scrub(text: str, key: str) -> str:
    """Never let the key reach a message, even if a server echoes it back."""
    return text.replace(key, "***") if key else text
