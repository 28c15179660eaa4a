"""Tokens whose prefix (or fixed shape) names the service that issued them.

These are unambiguous on their own, so they are removed wherever they appear, with no name or
operator needed around them. When in doubt about where such a token ends, more is removed
rather than less. Each entry says what the real format is; the corpus in
``tests/support/secrets.py`` generates values of exactly those shapes.
"""

from __future__ import annotations

import re
from typing import Final

import attrs

from ..base import (
    ALNUM,
    BASE64_CHARS,
    CONTEXTUAL,
    JWT,
    PROVIDER,
    TOKEN_CHARS,
    WORD,
    Classifier,
    Rule,
    anchored,
    check_entropy,
    has_entropy,
    provider,
)


def _drawn_token(kind: str) -> Classifier:
    """Accept a prefixed token drawn from letters and digits, or from letters alone.

    Hugging Face tokens are ``hf_`` and 34 letters of both cases, no digit: a digit is not
    what tells a draw from ``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``, the share of each case is
    (a draw holds about as many capitals as small letters, an identifier one a word).
    """
    digits_too = check_entropy(kind, need_upper=False)

    def classify(m: re.Match[str], text: str) -> str | None:
        value = m.group("secret")
        upper = sum(c.isupper() for c in value)
        lower = sum(c.islower() for c in value)
        if upper >= len(value) // 4 and lower >= len(value) // 4:
            return kind
        return digits_too(m, text)

    return classify


def _secret_beside_key_id(m: re.Match[str], text: str) -> str | None:
    """A drawn secret has both cases; a 40-digit commit id or a path in the row is no key."""
    value = m.group("secret")
    drawn = any(c.isupper() for c in value) and any(c.islower() for c in value)
    return "aws-secret-key" if drawn else None


_OPENAI_STYLE: Final = check_entropy("openai-key")
# ``sk-`` and one unbroken run of small letters and digits, 32 or more: the keys of the
# services that copied OpenAI's API (``sk-`` and 32 hex digits). A slug has hyphens.
_LOWER_DRAW: Final = re.compile(r"sk-[a-z0-9]{32,}")


def _openai_style_key(m: re.Match[str], text: str) -> str | None:
    value = m.group("secret")
    if _LOWER_DRAW.fullmatch(value) and has_entropy(value, need_upper=False):
        return "openai-key"
    return _OPENAI_STYLE(m, text)


_PUBLISHABLE: Final = frozenset({"pk", "pub", "publishable"})


def _live_key(m: re.Match[str], text: str) -> str | None:
    """A live key's draw has digits and both cases; ``_live_reload_handler_...`` has not."""
    if not has_entropy(m.group("secret")):
        return None
    start = m.start("secret")
    back = start
    while back > 0 and back > start - 9 and "a" <= text[back - 1] <= "z":
        back -= 1
    if not 2 <= start - back <= 8 or text[back:start] in _PUBLISHABLE:
        return None  # pk_live_...: a publishable key, public by design
    return "live-key"


PROVIDER_RULES: Final[tuple[Rule, ...]] = (
    # --- clouds ---------------------------------------------------------------------------
    provider("aws-access-key", r"(?P<secret>(?:AKIA|ASIA)[A-Z0-9]{16})(?![A-Za-z0-9])", ALNUM),
    provider("google-api-key", r"(?P<secret>AIza[0-9A-Za-z_-]{35,})", BASE64_CHARS),
    provider("google-oauth", r"(?P<secret>GOCSPX-[A-Za-z0-9_-]{20,})", TOKEN_CHARS),
    provider("google-oauth", r"(?P<secret>ya29\.[A-Za-z0-9_-]{40,})", TOKEN_CHARS),
    provider("google-oauth", r"(?P<secret>1//0[A-Za-z0-9_-]{40,})", TOKEN_CHARS),
    # Microsoft Entra (Azure AD) client secrets: three characters, a digit, "Q~", then 31-34.
    anchored(
        "azure-client-secret",
        r"(?P<secret>Q~[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])",
        back=TOKEN_CHARS + "~.",
        least=4,
        most=4,
    ),
    provider("digitalocean-token", r"(?P<secret>do[opr]_v1_[a-f0-9]{64})", WORD),
    provider("heroku-key", r"(?P<secret>HRKU-[A-Za-z0-9_-]{20,})", TOKEN_CHARS),
    provider("databricks-token", r"(?P<secret>dapi[a-f0-9]{32}(?:-[0-9]+)?)", WORD),
    provider("vault-token", r"(?P<secret>hv[sbr]\.[A-Za-z0-9_-]{24,})", TOKEN_CHARS),
    anchored(
        "terraform-token",
        r"(?P<secret>\.atlasv1\.[A-Za-z0-9_=-]{60,})",
        back=ALNUM,
        least=14,
        most=14,
    ),
    provider("doppler-token", r"(?P<secret>dp\.(?:pt|st|ct|sa|scim)\.[A-Za-z0-9_-]{40,})", WORD),
    provider("pulumi-token", r"(?P<secret>pul-[a-f0-9]{40})", WORD),
    provider("supabase-token", r"(?P<secret>sbp_[a-f0-9]{40})", WORD),
    # Supabase's API keys since 2025: ``sb_secret_`` and a draw (``sb_publishable_`` is public).
    provider("supabase-key", r"(?P<secret>sb_secret_[A-Za-z0-9_-]{24,})", WORD),
    provider("netlify-token", r"(?P<secret>nfp_[A-Za-z0-9]{36,})", WORD),
    provider("render-key", r"(?P<secret>rnd_[A-Za-z0-9]{32,})", WORD),
    provider("dynatrace-token", r"(?P<secret>dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64})", WORD),
    provider("new-relic-key", r"(?P<secret>NR(?:AK|AA|II|JS)-[A-Z0-9]{27})", WORD),
    provider("grafana-token", r"(?P<secret>glc_[A-Za-z0-9+/]{32,}={0,2})", WORD),
    provider("grafana-token", r"(?P<secret>glsa_[A-Za-z0-9]{32}_[a-f0-9]{8})", WORD),
    provider("sentry-token", r"(?P<secret>sntry[su]_[A-Za-z0-9+/=_]{40,})", WORD),
    # --- source hosting and package registries --------------------------------------------
    provider("github-token", r"(?P<secret>gh[pousr]_[A-Za-z0-9]{36,})", ""),
    provider("github-token", r"(?P<secret>github_pat_[A-Za-z0-9_]{22,})", ""),
    provider(
        "gitlab-token",
        r"(?P<secret>gl(?:pat|dt|rt|ptt|cbt|soat|ffct|imt|agent)-[A-Za-z0-9_-]{20,}"
        r"(?:\.[A-Za-z0-9_-]+)*)",
        "",
    ),
    provider("gitlab-token", r"(?P<secret>GR1348941[A-Za-z0-9_-]{20,})", WORD),
    provider("atlassian-token", r"(?P<secret>ATATT3[A-Za-z0-9_=-]{60,})", WORD),
    provider("bitbucket-token", r"(?P<secret>ATBB[A-Za-z0-9]{28,})", WORD),
    provider("npm-token", r"(?P<secret>npm_[A-Za-z0-9]{36,})", WORD),
    provider("pypi-token", r"(?P<secret>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})", ""),
    # Named for the variable RubyGems reads it from: a marker naming "rubygems" would repeat
    # the token's own first eight characters.
    provider("gem-host-api-key", r"(?P<secret>rubygems_[a-f0-9]{48})", WORD),
    provider("nuget-key", r"(?P<secret>oy2[a-z0-9]{43})(?![a-z0-9])", ALNUM),
    provider("docker-token", r"(?P<secret>dckr_(?:pat|oat)_[A-Za-z0-9_-]{24,})", WORD),
    provider("jfrog-token", r"(?P<secret>AKCp[A-Za-z0-9]{60,})", WORD),
    provider("postman-key", r"(?P<secret>PMAK-[a-f0-9]{24}-[a-f0-9]{34})", WORD),
    provider("linear-key", r"(?P<secret>lin_(?:api|oauth)_[A-Za-z0-9]{40})", WORD),
    provider("notion-token", r"(?P<secret>ntn_[0-9]{11}[A-Za-z0-9]{35})", WORD),
    provider(
        "notion-token",
        r"(?P<secret>secret_[A-Za-z0-9]{43})(?![A-Za-z0-9])",
        WORD,
        check_entropy("notion-token"),
    ),
    provider("airtable-token", r"(?P<secret>pat[A-Za-z0-9]{14}\.[a-f0-9]{64})", WORD),
    provider("contentful-token", r"(?P<secret>CFPAT-[A-Za-z0-9_-]{43})", WORD),
    # --- chat and messaging ---------------------------------------------------------------
    provider("slack-token", r"(?P<secret>xox[abeoprs]-[A-Za-z0-9-]{10,})", ""),
    provider("slack-token", r"(?P<secret>xapp-[0-9]-[A-Za-z0-9-]{10,})", ""),
    provider(
        "slack-webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9_/+-]{10,})",
        "",
    ),
    provider(
        "discord-webhook",
        r"discord(?:app)?\.com/api/webhooks/(?P<secret>[0-9]{15,}/[A-Za-z0-9_-]{30,})",
        "",
    ),
    # A Discord bot token: the base64 of the bot's id, a timestamp and an HMAC.
    Rule(
        "discord-token",
        PROVIDER,
        re.compile(
            r"(?P<secret>[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})"
        ),
        check_entropy("discord-token"),
        BASE64_CHARS,
        run_chars=ALNUM + "_-.",
        min_run=58,
    ),
    anchored(
        "telegram-token",
        r"(?P<secret>:AA[A-Za-z0-9_-]{33})(?![A-Za-z0-9_-])",
        back="0123456789",
        least=8,
        most=10,
    ),
    provider("twilio-key", r"(?P<secret>SK[0-9a-f]{32})(?![0-9a-zA-Z])", ALNUM),
    provider("sendgrid-key", r"(?P<secret>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})", TOKEN_CHARS),
    provider("mailgun-key", r"(?P<secret>key-[0-9a-f]{32})(?![0-9a-z])", TOKEN_CHARS),
    anchored(
        "mailchimp-key",
        r"(?P<secret>-us[0-9]{1,2})(?![0-9A-Za-z])",
        back="0123456789abcdef",
        least=32,
        most=32,
    ),
    provider("firebase-key", r"(?P<secret>AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,})", WORD),
    # --- payments and commerce ------------------------------------------------------------
    provider("stripe-key", r"(?P<secret>sk_(?:live|test)_[A-Za-z0-9]{16,})", ALNUM),
    # Any provider's live-mode (or sandbox) key: a short lowercase prefix, then ``_live_`` or
    # ``_sdbx_`` and a draw (``pdl_live_apikey_...``, ``xyz_live_...``).
    attrs.evolve(
        anchored(
            "live-key",
            r"(?P<secret>_(?:live|sdbx)_[A-Za-z0-9_]{24,})(?![A-Za-z0-9_-])",
            back="abcdefghijklmnopqrstuvwxyz",
            least=2,
            most=8,
            priority=CONTEXTUAL,  # a provider's own rule (sk_live_, rk_live_) names it
        ),
        classify=_live_key,
    ),
    provider("stripe-key", r"(?P<secret>rk_(?:live|test)_[A-Za-z0-9]{16,})", ALNUM),
    provider("stripe-key", r"(?P<secret>whsec_[A-Za-z0-9]{24,})", ALNUM),
    provider("shopify-token", r"(?P<secret>shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32})", WORD),
    provider("square-token", r"(?P<secret>sq0(?:atp|csp)-[A-Za-z0-9_-]{22,})", WORD),
    provider("square-token", r"(?P<secret>EAAA[A-Za-z0-9_-]{60})(?![A-Za-z0-9_-])", WORD),
    provider(
        "paypal-token",
        r"(?P<secret>access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32})",
        WORD,
    ),
    provider(
        "plaid-token", r"(?P<secret>access-(?:sandbox|development|production)-[0-9a-f-]{36})", WORD
    ),
    provider("shippo-token", r"(?P<secret>shippo_(?:live|test)_[a-f0-9]{40})", WORD),
    provider(
        "facebook-token",
        r"(?P<secret>EAA[A-Za-z0-9]{90,})",
        WORD,
        check_entropy("facebook-token"),
    ),
    # --- AI services ----------------------------------------------------------------------
    provider(
        "anthropic-key",
        r"(?P<secret>sk-ant-[A-Za-z0-9_-]{20,})",
        TOKEN_CHARS,
        check_entropy("anthropic-key", need_upper=False),
    ),
    provider(
        "openai-key",
        r"(?P<secret>sk-(?!ant-)(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{20,})",
        TOKEN_CHARS,
        _openai_style_key,
    ),
    *(
        provider(
            "huggingface-token",
            rf"(?P<secret>{prefix}[A-Za-z0-9]{{30,}})",
            WORD,
            _drawn_token("huggingface-token"),
        )
        for prefix in ("hf_", "api_org_")
    ),
    provider("replicate-token", r"(?P<secret>r8_[A-Za-z0-9]{37})", WORD),
    provider("groq-key", r"(?P<secret>gsk_[A-Za-z0-9]{48,})", WORD),
    provider("xai-key", r"(?P<secret>xai-[A-Za-z0-9]{60,})", WORD),
    provider("perplexity-key", r"(?P<secret>pplx-[A-Za-z0-9]{40,})", WORD),
    # --- keys with a fixed shape ----------------------------------------------------------
    provider("age-key", r"(?P<secret>AGE-SECRET-KEY-1[0-9A-Z]{58})", WORD),
    provider("cloudflare-key", r"(?P<secret>v1\.0-[a-f0-9]{24}-[a-f0-9]{146})", WORD),
    # --- shapes that need a little context ------------------------------------------------
    Rule(
        "jwt",
        JWT,
        re.compile(r"(?P<secret>eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)"),
        not_after=BASE64_CHARS,
    ),
    Rule(
        "aws-secret-key",
        CONTEXTUAL,
        re.compile(
            r"secret[_-]?access[_-]?key[\"']?[ \t]*(?:=>|=|:)[ \t]*[\"']?"
            r"(?P<secret>[a-z0-9/+]{40})(?![a-z0-9/+])"
        ),
        on_lowercase=True,
    ),
    # The secret printed in the same row as its key id, whatever the table: ``aws iam
    # create-access-key --output text`` (``ACCESSKEY AKIA... <date> <secret> Active``), a
    # credentials CSV, a pasted ``id secret`` pair. Forty base64 characters, both cases.
    Rule(
        "aws-secret-key",
        CONTEXTUAL,
        re.compile(
            r"(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])[^\n]{1,120}?(?<![A-Za-z0-9/+])"
            r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        _secret_beside_key_id,
    ),
)
