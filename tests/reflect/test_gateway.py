"""ChatGateway against a real local HTTP server: replies, errors, retries, cancel."""

from __future__ import annotations

import threading
import time

import pytest
from comodor_lsp.reflect import ChatGateway, ReflectError

from tests.support.fake_llm import FakeLLM, Reply

MSGS = [{"role": "user", "content": "hello"}]
KEY_ENV = "COMODOR_TEST_REFLECT_KEY"


def gw(llm: FakeLLM, **kw: object) -> ChatGateway:
    opts: dict[str, object] = {"backoff_s": 0.01, "timeout_s": 5}
    opts.update(kw)
    return ChatGateway(llm.url, "fake-model", **opts)  # type: ignore[arg-type]


def fail(g: ChatGateway) -> str:
    with pytest.raises(ReflectError) as info:
        g.complete(MSGS)
    msg = str(info.value)
    assert "\n" not in msg
    return msg


# -- happy path and request shape ---------------------------------------------


def test_normal_reply_and_minimal_body(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.chat('{"lessons": []}'))
    assert gw(fake_llm).complete(MSGS) == '{"lessons": []}'
    (req,) = fake_llm.requests
    assert req.method == "POST"
    assert req.path == "/v1/chat/completions"
    assert req.json == {"model": "fake-model", "messages": MSGS, "temperature": 0.2}


def test_json_mode_adds_response_format(fake_llm: FakeLLM) -> None:
    gw(fake_llm).complete(MSGS, json_mode=True)
    assert fake_llm.requests[0].json["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize("suffix", ["/", "//", "/chat/completions", "/chat/completions/"])
def test_endpoint_variants_are_tolerated(fake_llm: FakeLLM, suffix: str) -> None:
    g = ChatGateway(fake_llm.url + suffix, "fake-model")
    g.complete(MSGS)
    assert fake_llm.requests[0].path == "/v1/chat/completions"
    assert g.endpoint == fake_llm.url


def test_content_parts_and_legacy_text_are_accepted(fake_llm: FakeLLM) -> None:
    parts = {"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"text": "b"}]}}]}
    fake_llm.script(Reply.json(parts), Reply.json({"choices": [{"text": "legacy"}]}))
    g = gw(fake_llm)
    assert g.complete(MSGS) == "ab"
    assert g.complete(MSGS) == "legacy"


# -- API key handling -----------------------------------------------------------


def test_no_authorization_header_without_env(
    fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    gw(fake_llm, api_key_env=KEY_ENV).complete(MSGS)
    monkeypatch.setenv(KEY_ENV, "")
    gw(fake_llm, api_key_env=KEY_ENV).complete(MSGS)
    gw(fake_llm).complete(MSGS)  # no variable configured at all
    assert all("authorization" not in r.headers for r in fake_llm.requests)


def test_key_read_at_call_time_and_never_stored(
    fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    g = gw(fake_llm, api_key_env=KEY_ENV)
    monkeypatch.setenv(KEY_ENV, "sk-test-SECRETKEY")
    g.complete(MSGS)
    (req,) = fake_llm.requests
    assert req.headers["authorization"] == "Bearer sk-test-SECRETKEY"
    assert "SECRETKEY" not in req.body
    assert "SECRETKEY" not in repr(g)
    assert "SECRETKEY" not in repr(vars(g))
    monkeypatch.setenv(KEY_ENV, "sk-rotated")
    g.complete(MSGS)
    assert fake_llm.requests[1].headers["authorization"] == "Bearer sk-rotated"


def test_key_echoed_by_server_is_scrubbed(
    fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-echo-me")
    fake_llm.script(Reply.error(400, "bad key format: sk-echo-me"))
    msg = fail(gw(fake_llm, api_key_env=KEY_ENV))
    assert "sk-echo-me" not in msg
    assert msg == "the endpoint refused the request (400): bad key format: ***"


# -- error messages -------------------------------------------------------------


@pytest.mark.parametrize(
    ("endpoint", "expected"),
    [
        (
            "ftp://example.com/v1",
            "invalid endpoint URL 'ftp://example.com/v1': must start with http:// or https://",
        ),
        (
            "localhost:11434/v1",
            "invalid endpoint URL 'localhost:11434/v1': must start with http:// or https://",
        ),
        ("http:///v1", "invalid endpoint URL 'http:///v1': missing host"),
        ("", "invalid endpoint URL '<empty>': must start with http:// or https://"),
    ],
)
def test_bad_url(endpoint: str, expected: str) -> None:
    g = ChatGateway(endpoint, "m")  # constructing never raises
    with pytest.raises(ReflectError) as info:
        g.complete(MSGS)
    assert str(info.value) == expected
    with pytest.raises(ReflectError):
        g.ping()


def test_connection_refused_is_retried_then_named() -> None:
    g = ChatGateway("http://127.0.0.1:9/v1", "m", max_retries=2, backoff_s=0.01)
    start = time.monotonic()
    msg = fail(g)
    assert msg == "cannot reach http://127.0.0.1:9/v1: connection refused (after 3 attempts)"
    assert time.monotonic() - start < 2


def test_connection_refused_without_retries_is_exact() -> None:
    g = ChatGateway("http://127.0.0.1:9/v1", "m", max_retries=0)
    assert fail(g) == "cannot reach http://127.0.0.1:9/v1: connection refused"


def test_timeout_on_slow_reply_is_not_retried(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.slow(5.0))
    start = time.monotonic()
    msg = fail(gw(fake_llm, timeout_s=0.3))
    assert time.monotonic() - start < 1.5
    assert msg == f"no reply from {fake_llm.url} within 0.3 s (timeout)"
    assert len(fake_llm.requests) == 1


@pytest.mark.parametrize("status", [401, 403])
def test_rejected_key(fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch, status: int) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-wrong")
    fake_llm.script(Reply.error(status, "invalid api key"))
    msg = fail(gw(fake_llm, api_key_env=KEY_ENV))
    assert msg == (
        f"the endpoint rejected the API key ({status}); "
        "check the variable named by reflect.apiKeyEnv"
    )
    assert len(fake_llm.requests) == 1  # never retried


def test_rejected_without_key_says_none_was_sent(
    fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    fake_llm.script(Reply.error(401, "missing key"))
    msg = fail(gw(fake_llm, api_key_env=KEY_ENV))
    assert msg.startswith("the endpoint rejected the API key (401); check the variable named by")
    assert f"no key was sent: {KEY_ENV} is unset or empty" in msg


def test_model_not_found_404(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.error(404, "The model `llama9` does not exist"))
    g = ChatGateway(fake_llm.url, "llama9", backoff_s=0.01)
    with pytest.raises(ReflectError) as info:
        g.complete(MSGS)
    assert str(info.value) == f"model 'llama9' not found at {fake_llm.url}"
    assert info.value.status == 404
    assert len(fake_llm.requests) == 1


def test_plain_404_hints_at_the_path(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.html(status=404))
    msg = fail(gw(fake_llm))
    assert msg.startswith(f"model 'fake-model' not found at {fake_llm.url} (404 for ")
    assert "ends in /v1" in msg


def test_model_missing_reported_as_400(fake_llm: FakeLLM) -> None:
    # Some local servers answer an unknown model with 400 rather than 404.
    fake_llm.script(Reply.error(400, 'model "qwen" not found, try pulling it first'))
    assert fail(gw(fake_llm)) == f"model 'fake-model' not found at {fake_llm.url}"


def test_other_4xx_is_not_retried(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.error(422, "messages: field required"))
    assert fail(gw(fake_llm)) == "the endpoint refused the request (422): messages: field required"
    assert len(fake_llm.requests) == 1


def test_non_json_html_page(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.html())
    msg = fail(gw(fake_llm))
    assert msg.startswith("the endpoint replied with text/html, not JSON, from ")
    assert "/v1" in msg


def test_malformed_json_body(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.raw('{"choices": ['))
    assert fail(gw(fake_llm)).startswith("the endpoint's reply is malformed JSON (13 bytes)")


def test_redirect_is_reported_not_followed(fake_llm: FakeLLM) -> None:
    moved = Reply(
        status=307, headers=(("Location", "https://api.example.com/v1/chat/completions"),)
    )
    fake_llm.script(moved)
    assert fail(gw(fake_llm)) == (
        "the endpoint redirected (307) to https://api.example.com/v1/chat/completions; "
        "set reflect.endpoint to the final URL"
    )
    assert len(fake_llm.requests) == 1


def test_loopback_endpoints_ignore_proxy_variables(
    fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    assert gw(fake_llm).complete(MSGS)


def test_reply_without_choices(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.json({"id": "x", "choices": []}), Reply.json({"object": "list"}))
    g = gw(fake_llm)
    assert fail(g) == "the endpoint's reply has no choices"
    assert fail(g) == "the endpoint's reply has no choices"


def test_error_object_in_200_reply(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.json({"error": {"message": "upstream provider overloaded"}}))
    assert fail(gw(fake_llm)) == "the endpoint returned an error: upstream provider overloaded"


def test_reply_with_null_content(fake_llm: FakeLLM) -> None:
    body = {"choices": [{"message": {"content": None}, "finish_reason": "length"}]}
    fake_llm.script(Reply.json(body))
    assert (
        fail(gw(fake_llm)) == "the endpoint's reply has no message content (finish_reason=length)"
    )


# -- retries ----------------------------------------------------------------------


def test_429_honours_retry_after_capped(fake_llm: FakeLLM) -> None:
    fake_llm.script(
        Reply.error(429, "slow down", headers=(("Retry-After", "30"),)), Reply.chat("ok")
    )
    start = time.monotonic()
    assert gw(fake_llm, retry_after_max_s=0.3).complete(MSGS) == "ok"
    elapsed = time.monotonic() - start
    assert 0.3 <= elapsed < 5.0  # capped at 0.3 s, not the 30 s asked for
    assert len(fake_llm.requests) == 2


def test_429_retry_after_seconds_below_cap(fake_llm: FakeLLM) -> None:
    fake_llm.script(
        Reply.error(429, "slow down", headers=(("Retry-After", "0.2"),)), Reply.chat("ok")
    )
    start = time.monotonic()
    assert gw(fake_llm, backoff_s=0).complete(MSGS) == "ok"
    # At least the 0.2 s asked for, and far below the 30 s cap, with room for the two
    # HTTP round trips on a loaded machine (a CI run took 0.95 s in all).
    assert 0.2 <= time.monotonic() - start < 2.0


def test_500_twice_then_success(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.error(500, "boom"), Reply.error(502, "bad gateway"), Reply.chat("ok"))
    assert gw(fake_llm).complete(MSGS) == "ok"
    assert len(fake_llm.requests) == 3


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_5xx_exhausts_retries(fake_llm: FakeLLM, status: int) -> None:
    fake_llm.set_default(Reply.error(status, "down"))
    with pytest.raises(ReflectError) as info:
        gw(fake_llm, max_retries=2).complete(MSGS)
    assert str(info.value) == f"the endpoint failed with HTTP {status}: down (after 3 attempts)"
    assert info.value.status == status
    assert len(fake_llm.requests) == 3


def test_429_exhausts_retries(fake_llm: FakeLLM) -> None:
    fake_llm.set_default(Reply.error(429, "quota"))
    msg = fail(gw(fake_llm, max_retries=1))
    assert msg == "the endpoint is rate limiting requests (429): quota (after 2 attempts)"


def test_backoff_grows_exponentially(fake_llm: FakeLLM) -> None:
    fake_llm.set_default(Reply.error(503, "busy"))
    start = time.monotonic()
    fail(gw(fake_llm, max_retries=3, backoff_s=0.05))
    # delays are 0.05, 0.1, 0.2 each scaled by jitter in [0.5, 1.0]
    assert 0.17 <= time.monotonic() - start < 1.0


# -- cancel / close ----------------------------------------------------------------


def _later(seconds: float, fn: object) -> threading.Timer:
    timer = threading.Timer(seconds, fn)  # type: ignore[arg-type]
    timer.start()
    return timer


def test_cancel_hung_call_promptly(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.hung())
    g = gw(fake_llm, timeout_s=60)
    _later(0.2, g.cancel)
    start = time.monotonic()
    msg = fail(g)
    latency = time.monotonic() - start - 0.2
    assert msg == f"the call to {fake_llm.url} was cancelled"
    assert latency < 0.5, latency
    # cancel() is per call: the gateway keeps working afterwards
    assert g.complete(MSGS) == '{"lessons": [], "skill": null}'


def test_close_from_another_thread_aborts_and_refuses_later_calls(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.hung())
    g = gw(fake_llm, timeout_s=60)
    _later(0.2, g.close)
    start = time.monotonic()
    fail(g)
    assert time.monotonic() - start < 1.0
    assert fail(g) == "the reflection gateway is closed"


def test_cancel_interrupts_backoff_sleep(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.error(429, "wait", headers=(("Retry-After", "20"),)))
    g = gw(fake_llm, retry_after_max_s=20)
    _later(0.2, g.cancel)
    start = time.monotonic()
    assert "cancelled" in fail(g)
    assert time.monotonic() - start < 1.0


# -- ping ---------------------------------------------------------------------------


def test_ping_ok(fake_llm: FakeLLM) -> None:
    assert gw(fake_llm).ping() == f"ok: {fake_llm.url} serves model 'fake-model'"
    assert fake_llm.requests[0].method == "GET"
    assert fake_llm.requests[0].path == "/v1/models"


def test_ping_warns_about_unlisted_model(fake_llm: FakeLLM) -> None:
    fake_llm.set_models(["a", "b"])
    status = gw(fake_llm).ping()
    assert status.startswith("warning:") and "'fake-model'" in status and "2 models" in status


def test_ping_falls_back_to_tiny_completion(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.html(status=404), Reply.chat("p"))
    assert gw(fake_llm).ping().startswith("ok: ")
    assert fake_llm.requests[1].json["max_tokens"] == 1


def test_ping_raises_one_line_errors(fake_llm: FakeLLM) -> None:
    fake_llm.script(Reply.error(401, "nope"))
    with pytest.raises(ReflectError, match=r"rejected the API key \(401\)"):
        gw(fake_llm).ping()
    with pytest.raises(ReflectError, match="connection refused"):
        ChatGateway("http://127.0.0.1:9/v1", "m").ping()


def test_credentials_in_the_url_are_masked(fake_llm: FakeLLM) -> None:
    port = fake_llm.url.split(":")[2].split("/")[0]
    g = ChatGateway(f"http://user:pa55word@127.0.0.1:{port}/v1", "fake-model")
    assert "pa55word" not in repr(g)
    fake_llm.script(Reply.html(), Reply.html(status=404))
    for _ in range(2):
        msg = fail(g)
        assert "pa55word" not in msg and "***@127.0.0.1" in msg
    refused = ChatGateway("http://u:pa55word@127.0.0.1:9/v1", "m", max_retries=0)
    assert fail(refused) == "cannot reach http://***@127.0.0.1:9/v1: connection refused"
    bad = ChatGateway("ftp://u:pa55word@host/v1", "m")
    assert "pa55word" not in fail(bad)
