# ruff: noqa: E501  (realistic config and shell lines are long; they are data here)
"""A tenth batch of credential kinds, written without reading the redactor's rules.

How it was written: the author read the corpus format in :mod:`tests.support.unlisted_secrets`
(``UnlistedSample``, ``_Draw``, the alphabets, ``draw_batch``, ``split_a_third``, the shape
checks, and in passing that module's whole docstring), the code layout, draw class, helper
generators, docstring and kind *names* of the ninth batch and, through its ``older_names()``,
the names of every earlier batch (to repeat none), the signatures and bodies of the helpers
imported below (seen by grep in the fourth, sixth, seventh and eighth modules, with a few lines
around them), and the corpus-shape tests at the top of ``tests/brain/test_redact_ninth_batch.py``
(up to the split test). Nothing under ``server/`` or ``bench/``, no README/ARCHITECTURE/
CHANGELOG/docs, no git history; the redactor was never imported or run and ``stored_kinds`` was
never called, so no redactor output was seen. The ninth module's docstring, read for its layout,
includes its lead's first-look paragraph (counts and a one-line list of the families later
rules covered). Two names first drafted here turned out to be earlier kinds' names and were
dropped rather than renamed.

Coverage (231 kinds), written as a developer-tools researcher listing where a coding assistant
working in a solo developer's, open-source maintainer's, data scientist's, mobile and game
developer's or home-lab workspace meets credentials, in roughly these proportions: home lab and
IoT 34 (15 %: Home Assistant secrets and long-lived tokens, ESPHome, Tasmota, Zigbee2MQTT,
Frigate, Pi-hole, WireGuard, wg-easy, Tailscale/Headscale, Proxmox, TrueNAS, Synology, UniFi,
Nextcloud, Vaultwarden, Portainer, Jellyfin/Sonarr/Plex, cloudflared, DuckDNS, Paperless, ntfy,
Gotify); open-source maintenance 33 (14 %: PyPI/npm/crates/RubyGems/Maven Central/Docker Hub
publish tokens in release scripts, Makefiles and CI, Codecov/Coveralls/SonarCloud/Sentry,
Discord/Telegram/Slack bots and webhooks, GitHub App keys and webhook secrets, Crowdin, Cachix,
VS Code marketplaces); side-project SaaS 32 (14 %: Stripe, Paddle, Lemon Squeezy, Supabase,
Clerk, Resend, Postmark, Twilio, Plaid, Algolia, Cloudinary, Pusher, Upstash, Neon,
PlanetScale, Turso, Vercel, Netlify, Fly, Railway, Render, Firebase Admin, UploadThing,
Convex); data science 31 (13 %: Kaggle, notebooks and their outputs, W&B, Hugging Face, MLflow,
Databricks, DVC, Jupyter, Snowflake, dbt, R, BigQuery, Great Expectations, Airflow, Prefect,
Streamlit, Gradio, Comet, Neptune, ClearML, Replicate, Label Studio); mobile and games 30 (13 %:
Gradle/keystore signing, xcconfig, Mapbox download tokens, Expo, Fastlane, App Store Connect
keys, Firebase configs, OneSignal, GameCI/Unity, PlayFab, Steamworks, Unreal EOS, itch.io,
Godot, Perforce); dotfiles and CLI credential files 29 (13 %: zsh/bash history, fish universal
variables, gitconfig helpers, git-credentials, netrc, rclone, s3cmd, AWS profiles, gcloud ADC,
kubeconfig, Docker, ssh config comments, aliases, direnv, gh/glab/tea, Terraform, flyctl,
Cargo); AI-assistant and MCP configs 28 (12 %: Claude Desktop/Code, Cursor, VS Code, Cline,
Windsurf, Codex, Goose, Gemini CLI, Continue, aider, opencode, llm, Open WebUI, LiteLLM,
LangSmith, shell-gpt, fabric, mods, aichat, rules and memory files); chats, issues and terminal
output 14 (6 %). Values are quoted, unquoted, JSON/YAML/TOML/XML/INI/HCL-escaped, CRLF,
percent-encoded, ``$$``-escaped for Compose, base64-wrapped, in templating defaults, URLs with
userinfo or query strings, comments, PEM lines inside escaped strings, and constructors of
several languages. Every value is FAKE, drawn from the seed with the provider's prefix, length
and alphabet where publicly known; passwords come from the human-like draw of the eighth batch.

The split: :data:`SPLIT_SEED` shuffles the sorted names and holds out a third, exactly as the
eighth and ninth batches do.

First look, by the lead (``python -m bench.redaction --arm tenth --names none``, 20 seeds, a
kind "stored" when an 8-character piece of its secret survives ``redact`` in any run), once per
part, after the batch was merged unchanged (``7aa79da``; the redactor with stop 37's gutter fix,
``b86d196``): **9 of 154 tune and 5 of 77 held-out kinds stored** (14 of 231, 6 %; the
held-out part counted, not named). The last line alone (every named rule off, caught in every
seed of 0-4) caught 128 of 154 tune and 66 of 77 held-out kinds (84 %). A helper then changed
rules looking at the nine tune misses only, through a script that names no held-out kind (any
provider's ``_live_``/``_sdbx_`` key and OpenAI-style ``sk-`` hex keys, a publish command's
``-p``, a dotted token in a URL's ``token=``, a password in backticks on a login line, ``appid``
hex, a password passed after a host address and user), until tune stored 0 of 154. The
held-out part, looked at once after that (``28d19f9``): **5 of 77 stored (6 %)** -- the
held-out result: tuning carried none over (5 -> 5). All five then fixed by family (a
``user@host`` prompt before a revealing command and glued after its output, names inside a
notebook's JSON-escaped code, a hex key beside the address of the service it opens, a licence
serial in a product key's groups, a Django-style key drawn in both cases): 0 of 231.
"""

from __future__ import annotations

import base64
import json
import random
import string
from typing import Final
from urllib.parse import quote

from tests.support.eighth_batch_secrets import _google_refresh
from tests.support.fourth_batch_secrets import _github_token
from tests.support.ninth_batch_secrets import NAMES as NINTH_NAMES
from tests.support.ninth_batch_secrets import _Batch9Draw
from tests.support.ninth_batch_secrets import older_names as names_before_ninth
from tests.support.seventh_batch_secrets import (
    _anthropic_key,
    _aws_key_id,
    _aws_secret,
    _jwt,
    _openai_key,
    _slack_token,
    _stripe_key,
)
from tests.support.sixth_batch_secrets import DIGITS, LOWER, _b64
from tests.support.unlisted_secrets import (
    ALNUM,
    BASE64,
    BASE64URL,
    HEX,
    LOWER_ALNUM,
    UPPER_ALNUM,
    Add,
    UnlistedSample,
    _Draw,
    draw_batch,
    split_a_third,
)

UPPER_HEX = HEX.upper()


class _Batch10Draw(_Batch9Draw):
    """The same draws as the earlier corpora, from a stream of their own."""

    def rng(self, label: str) -> random.Random:
        return _Draw.rng(self, f"batch10/{label}")


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _pypi_token(d: _Batch10Draw, label: str) -> str:
    """``pypi-`` and a base64url macaroon that starts with the encoded ``pypi.org`` location."""
    return "pypi-AgEIcHlwaS5vcmc" + d.s(label, 160, BASE64URL)


def _npm_token(d: _Batch10Draw, label: str) -> str:
    return "npm_" + d.s(label, 36, ALNUM)


def _docker_pat(d: _Batch10Draw, label: str) -> str:
    return "dckr_pat_" + d.s(label, 27, BASE64URL)


def _cargo_token(d: _Batch10Draw, label: str) -> str:
    return "cio" + d.s(label, 32, ALNUM)


def _gitlab_pat(d: _Batch10Draw, label: str) -> str:
    return "glpat-" + d.s(label, 20, BASE64URL)


def _hf_token(d: _Batch10Draw, label: str) -> str:
    return "hf_" + d.s(label, 34, string.ascii_letters)


def _google_api_key(d: _Batch10Draw, label: str) -> str:
    return "AIza" + d.s(label, 35, BASE64URL)


def _discord_bot_token(d: _Batch10Draw, label: str) -> str:
    """The bot's user id in base64, a 6-character timestamp, a 38-character HMAC."""
    user_id = "1" + d.s(label + "-id", 18, DIGITS)
    head = _b64url(user_id.encode())
    return f"{head}.{d.s(label + '-ts', 6, BASE64URL)}.{d.s(label, 38, BASE64URL)}"


def _telegram_bot_token(d: _Batch10Draw, label: str) -> str:
    return d.s(label + "-id", 10, DIGITS) + ":AA" + d.s(label, 33, BASE64URL)


def _mapbox_secret(d: _Batch10Draw, label: str, user: str) -> str:
    claims = json.dumps({"u": user, "a": d.s(label + "-a", 25, LOWER_ALNUM)}, separators=(",", ":"))
    return "sk." + _b64url(claims.encode()) + "." + d.s(label, 22, BASE64URL)


def _wg_key(d: _Batch10Draw, label: str) -> str:
    """A WireGuard (Curve25519) key: 32 bytes in base64, 44 characters ending ``=``."""
    return _b64(d.raw(label, 32))


def _pem_body_line(d: _Batch10Draw, label: str) -> str:
    """One 64-character base64 line out of the middle of a PEM body."""
    return _b64(d.raw(label, 48))


def _ha_token(d: _Batch10Draw, label: str) -> str:
    """A Home Assistant long-lived access token: an HS256 JWT whose ``iss`` is a refresh-token id."""
    iat = d.rng(label + "-iat").randrange(1_690_000_000, 1_730_000_000)
    return _jwt(
        d, label, {"iss": d.s(label + "-iss", 32, HEX), "iat": iat, "exp": iat + 315_360_000}
    )


def _supabase_jwt(d: _Batch10Draw, label: str, role: str) -> str:
    iat = d.rng(label + "-iat").randrange(1_690_000_000, 1_730_000_000)
    ref = d.s(label + "-ref", 20, LOWER)
    return _jwt(
        d,
        label,
        {"iss": "supabase", "ref": ref, "role": role, "iat": iat, "exp": iat + 315_360_000},
    )


def _app_password(d: _Batch10Draw, label: str) -> str:
    """An Apple app-specific password: four groups of four lower-case letters."""
    letters = d.s(label, 16, LOWER)
    return "-".join(letters[i : i + 4] for i in range(0, 16, 4))


def _nextcloud_app_password(d: _Batch10Draw, label: str) -> str:
    body = d.s(label, 25, ALNUM)
    return "-".join(body[i : i + 5] for i in range(0, 25, 5))


def _ai_assistants(d: _Batch10Draw, add: Add) -> None:
    """AI-assistant and MCP server configs, and the keys people give their coding tools."""
    t = _github_token(d, "claude-desktop-gh", "ghp_")
    add(
        "claude-desktop-config-mcp-github-server-env-pat",
        t,
        json.dumps(
            {
                "mcpServers": {
                    "github": {
                        "command": "npx",
                        "args": ["-y", "@modelcontextprotocol/server-github"],
                        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": t},
                    },
                    "filesystem": {
                        "command": "npx",
                        "args": [
                            "-y",
                            "@modelcontextprotocol/server-filesystem",
                            "/Users/jdoe/code",
                        ],
                    },
                }
            },
            indent=2,
        ),
    )
    t = "BSA" + d.s("cursor-brave", 28, ALNUM)
    add(
        "cursor-project-mcp-json-brave-search-env-key",
        t,
        '// .cursor/mcp.json\n{\n  "mcpServers": {\n    "brave-search": {\n      "command": "npx",\n      "args": ["-y", "@modelcontextprotocol/server-brave-search"],\n      "env": {\n        "BRAVE_API_KEY": "'
        + t
        + '"\n      }\n    }\n  }\n}\n',
    )
    t = "ctx7sk-" + d.uuid("vscode-context7")
    add(
        "vscode-mcp-json-http-server-headers-context7-key",
        t,
        json.dumps(
            {
                "servers": {
                    "context7": {
                        "type": "http",
                        "url": "https://mcp.context7.com/mcp",
                        "headers": {"CONTEXT7_API_KEY": t},
                    }
                },
                "inputs": [],
            },
            indent=4,
        ),
    )
    t = "sntryu_" + d.hex("claude-mcp-add-sentry", 64)
    add(
        "claude-code-mcp-add-env-flag-sentry-user-token",
        t,
        f"$ claude mcp add sentry -e SENTRY_ACCESS_TOKEN={t} -e SENTRY_HOST=sentry.io -- npx @sentry/mcp-server@latest\nAdded stdio MCP server sentry with command: npx @sentry/mcp-server@latest to local config\nFile modified: /Users/jdoe/.claude.json [project: /Users/jdoe/code/shop]\n",
    )
    t = "sk-or-v1-" + d.s("claude-settings-openrouter", 64, HEX)
    add(
        "claude-code-settings-json-env-auth-token-openrouter",
        t,
        json.dumps(
            {
                "$schema": "https://json.schemastore.org/claude-code-settings.json",
                "env": {
                    "ANTHROPIC_BASE_URL": "https://openrouter.ai/api",
                    "ANTHROPIC_AUTH_TOKEN": t,
                    "ANTHROPIC_MODEL": "anthropic/claude-sonnet-4",
                },
                "permissions": {"allow": ["Bash(npm run test:*)"]},
            },
            indent=2,
        ),
    )
    t = _anthropic_key(d, "continue-yaml")
    add(
        "continue-config-yaml-models-anthropic-apikey",
        t,
        f"name: Local Assistant\nversion: 1.0.0\nschema: v1\nmodels:\n  - name: Claude Sonnet\n    provider: anthropic\n    model: claude-sonnet-4-20250514\n    apiKey: {t}\n    roles:\n      - chat\n      - edit\ncontext:\n  - provider: code\n  - provider: diff\n",
    )
    t = d.s("continue-codestral", 32, ALNUM)
    add(
        "continue-config-json-tab-autocomplete-codestral-key",
        t,
        json.dumps(
            {
                "models": [],
                "tabAutocompleteModel": {
                    "title": "Codestral",
                    "provider": "mistral",
                    "model": "codestral-latest",
                    "apiKey": t,
                },
                "allowAnonymousTelemetry": False,
            },
            indent=2,
        ),
    )
    t = "sk-" + d.s("aider-deepseek", 32, HEX)
    add(
        "aider-conf-yml-api-key-list-provider-equals",
        t,
        f"# .aider.conf.yml\nmodel: deepseek/deepseek-chat\nauto-commits: false\napi-key:\n  - deepseek={t}\ndark-mode: true\n",
    )
    t = "sk-or-v1-" + d.s("aider-cli-openrouter", 64, HEX)
    add(
        "aider-cli-api-key-flag-in-zsh-history",
        t,
        f": 1733901122:0;cd ~/code/blog\n: 1733901130:0;aider --model openrouter/anthropic/claude-3.7-sonnet --api-key openrouter={t} src/posts.ts\n: 1733901502:0;git log --oneline | head\n",
    )
    t = "gsk_" + d.s("opencode-groq", 52, ALNUM)
    add(
        "opencode-json-provider-options-apikey-groq",
        t,
        '{\n  "$schema": "https://opencode.ai/config.json",\n  "provider": {\n    "groq": {\n      "options": {\n        "apiKey": "'
        + t
        + '"\n      }\n    }\n  },\n  "model": "groq/llama-3.3-70b-versatile"\n}\n',
    )
    t = "fc-" + d.s("cline-firecrawl", 32, HEX)
    add(
        "cline-mcp-settings-json-firecrawl-env",
        t,
        json.dumps(
            {
                "mcpServers": {
                    "firecrawl-mcp": {
                        "command": "npx",
                        "args": ["-y", "firecrawl-mcp"],
                        "env": {"FIRECRAWL_API_KEY": t},
                        "disabled": False,
                        "autoApprove": [],
                    }
                }
            },
            indent=2,
        ),
    )
    t = "tvly-dev-" + d.s("windsurf-tavily", 32, ALNUM)
    add(
        "windsurf-mcp-config-json-tavily-key-in-args",
        t,
        json.dumps(
            {
                "mcpServers": {
                    "tavily-remote-mcp": {
                        "command": "npx",
                        "args": [
                            "-y",
                            "mcp-remote",
                            f"https://mcp.tavily.com/mcp/?tavilyApiKey={t}",
                        ],
                    }
                }
            },
            indent=2,
        ),
    )
    t = "lin_api_" + d.s("codex-linear", 40, ALNUM)
    add(
        "codex-cli-config-toml-mcp-servers-env-inline-table",
        t,
        f'model = "o4-mini"\napproval_policy = "on-request"\n\n[mcp_servers.linear]\ncommand = "npx"\nargs = ["-y", "mcp-linear"]\nenv = {{ "LINEAR_API_KEY" = "{t}" }}\n',
    )
    t = "ntn_" + d.s("goose-notion", 46, ALNUM)
    add(
        "goose-config-yaml-extension-envs-notion-token",
        t,
        f"GOOSE_PROVIDER: anthropic\nGOOSE_MODEL: claude-3-5-sonnet-latest\nextensions:\n  notion:\n    enabled: true\n    name: notion\n    type: stdio\n    cmd: npx\n    args:\n      - -y\n      - '@notionhq/notion-mcp-server'\n    envs:\n      NOTION_TOKEN: {t}\n    timeout: 300\n",
    )
    p = d.human("mcp-postgres-arg")
    add(
        "mcp-server-postgres-args-connection-url-password",
        p,
        json.dumps(
            {
                "mcpServers": {
                    "postgres": {
                        "command": "npx",
                        "args": [
                            "-y",
                            "@modelcontextprotocol/server-postgres",
                            f"postgresql://postgres:{p}@localhost:5432/shop_dev",
                        ],
                    }
                }
            },
            indent=2,
        ),
    )
    t = d.s("mcp-remote-bearer", 40, ALNUM)
    add(
        "mcp-remote-header-arg-authorization-bearer-literal",
        t,
        '"homelab-tools": {\n  "command": "npx",\n  "args": [\n    "mcp-remote",\n    "https://mcp.home.lan/sse",\n    "--header",\n    "Authorization:Bearer '
        + t
        + '"\n  ]\n}',
    )
    t = _google_api_key(d, "llm-keys-json-gemini")
    add(
        "llm-cli-keys-json-file-gemini-entry",
        t,
        json.dumps(
            {
                "// Note": "This file stores secret API credentials. Do not share!",
                "gemini": t,
                "mistral": "",
            },
            indent=2,
        ),
    )
    t = "xai-" + d.s("open-webui-xai", 80, ALNUM)
    add(
        "open-webui-compose-openai-api-keys-semicolon-list",
        t,
        f'services:\n  open-webui:\n    image: ghcr.io/open-webui/open-webui:main\n    ports:\n      - "3000:8080"\n    environment:\n      - OLLAMA_BASE_URL=http://ollama:11434\n      - OPENAI_API_BASE_URLS=https://api.openai.com/v1;https://api.x.ai/v1\n      - OPENAI_API_KEYS=;{t}\n    volumes:\n      - open-webui:/app/backend/data\n',
    )
    t = "sk-" + d.s("litellm-master", 22, ALNUM)
    add(
        "litellm-proxy-config-general-settings-master-key",
        t,
        f"model_list:\n  - model_name: gpt-4o\n    litellm_params:\n      model: openai/gpt-4o\n      api_key: os.environ/OPENAI_API_KEY\n\ngeneral_settings:\n  master_key: {t}\n  database_url: os.environ/DATABASE_URL\n",
    )
    t = d.hex("litellm-azure", 32)
    add(
        "litellm-config-model-list-azure-api-key-literal",
        t,
        f'model_list:\n  - model_name: gpt-4o-mini\n    litellm_params:\n      model: azure/gpt-4o-mini\n      api_base: https://jdoe-openai.openai.azure.com/\n      api_version: "2024-08-01-preview"\n      api_key: "{t}"\n',
    )
    t = "lsv2_pt_" + d.s("langsmith", 32, HEX) + "_" + d.s("langsmith-b", 10, HEX)
    add(
        "langsmith-dotenv-api-key-lsv2-tracing-block",
        t,
        f'LANGSMITH_TRACING=true\nLANGSMITH_ENDPOINT="https://api.smith.langchain.com"\nLANGSMITH_API_KEY="{t}"\nLANGSMITH_PROJECT="rag-playground"\n',
    )
    t = d.hex("cursorrules-owm", 32)
    add(
        "cursorrules-instructions-test-api-key-sentence",
        t,
        f"# .cursorrules\nYou are helping build a small weather dashboard in SvelteKit.\n- Use TypeScript and Tailwind.\n- For local testing call OpenWeatherMap with appid {t} (my free-tier key, fine to hardcode in dev).\n- Never add new dependencies without asking.\n",
    )
    p = d.human("claude-md-staging")
    add(
        "claude-md-project-memory-staging-admin-login",
        p,
        f"# CLAUDE.md\n\n## Commands\n- `pnpm dev` starts the app on :5173\n- `pnpm test` runs vitest\n\n## Staging\n- URL: https://staging.tinyshop.dev/admin\n- admin login: `admin@tinyshop.dev` / `{p}`\n- Seed with `pnpm db:seed` before e2e runs\n",
    )
    t = _gitlab_pat(d, "gemini-settings-gitlab")
    add(
        "gemini-cli-settings-json-mcp-servers-gitlab-env",
        t,
        json.dumps(
            {
                "theme": "GitHub",
                "mcpServers": {
                    "gitlab": {
                        "command": "npx",
                        "args": ["-y", "@modelcontextprotocol/server-gitlab"],
                        "env": {
                            "GITLAB_PERSONAL_ACCESS_TOKEN": t,
                            "GITLAB_API_URL": "https://gitlab.com/api/v4",
                        },
                    }
                },
            },
            indent=2,
        ),
    )
    t = d.s("aichat-together", 64, HEX)
    add(
        "aichat-config-yaml-openai-compatible-client-api-key",
        t,
        f"model: together:meta-llama/Llama-3.3-70B-Instruct-Turbo\nstream: true\nclients:\n- type: openai-compatible\n  name: together\n  api_base: https://api.together.xyz/v1\n  api_key: {t}\n",
    )
    t = _openai_key(d, "sgptrc")
    add(
        "shell-gpt-sgptrc-openai-key-among-defaults",
        t,
        f"CHAT_CACHE_PATH=/tmp/chat_cache\nCACHE_PATH=/tmp/cache\nCHAT_CACHE_LENGTH=100\nREQUEST_TIMEOUT=60\nDEFAULT_MODEL=gpt-4o\nOPENAI_API_KEY={t}\nAPI_BASE_URL=default\nDEFAULT_EXECUTE_SHELL_CMD=false\n",
    )
    t = _anthropic_key(d, "fabric-env")
    add(
        "fabric-config-dotenv-default-vendor-anthropic",
        t,
        f"DEFAULT_VENDOR=Anthropic\nDEFAULT_MODEL=claude-3-5-sonnet-latest\nPATTERNS_LOADER_GIT_REPO_URL=https://github.com/danielmiessler/fabric.git\nPATTERNS_LOADER_GIT_REPO_PATTERNS_FOLDER=patterns\nANTHROPIC_API_KEY={t}\nYOUTUBE_API_KEY=\n",
    )
    t = d.s("mods-mistral", 32, ALNUM)
    add(
        "mods-yml-apis-mistral-api-key-field",
        t,
        f"default-model: mistral-large\nformat-text:\n  markdown: 'Format the response as markdown without enclosing backticks.'\napis:\n  mistral:\n    base-url: https://api.mistral.ai/v1\n    api-key: {t}\n    models:\n      mistral-large-latest:\n        aliases: [\"mistral-large\"]\n        max-input-chars: 384000\n",
    )


def _dotfiles(d: _Batch10Draw, add: Add) -> None:
    """Shell history, dotfiles and the credential files of cloud and forge CLIs in a home directory."""
    t = _openai_key(d, "zsh-history")
    add(
        "zsh-history-extended-format-export-line",
        t,
        f": 1733812201:0;brew upgrade\n: 1733812260:0;export OPENAI_API_KEY={t}\n: 1733812271:0;python scripts/summarise.py notes/*.md\n",
    )
    t = (
        "github_pat_"
        + d.s("bash-history-fg", 22, ALNUM)
        + "_"
        + d.s("bash-history-fg-b", 59, ALNUM)
    )
    add(
        "bash-history-curl-fine-grained-pat-header",
        t,
        f"cd ~/src/dotfiles\ngit status\ncurl -s -H \"Authorization: Bearer {t}\" https://api.github.com/user/repos?per_page=100 | jq -r '.[].full_name'\nvim install.sh\n",
    )
    t = "gsk_" + d.s("fish-variables-groq", 52, ALNUM)
    add(
        "fish-variables-setuvar-export-universal",
        t,
        f"# This file contains fish universal variable definitions.\n# VERSION: 3.0\nSETUVAR --export GROQ_API_KEY:{t}\nSETUVAR __fish_initialized:3800\nSETUVAR fish_color_autosuggestion:555\\x1ebrblack\nSETUVAR fish_user_paths:/opt/homebrew/bin\\x1e/Users/jdoe/\\x2ecargo/bin\n",
    )
    t = _hf_token(d, "fish-set-ux")
    add(
        "fish-config-set-ux-hf-token",
        t,
        f"# ~/.config/fish/config.fish\nif status is-interactive\n    starship init fish | source\nend\nset -Ux HF_TOKEN {t}\nfish_add_path ~/.local/bin\n",
    )
    t = _github_token(d, "gitconfig-helper", "ghp_")
    add(
        "gitconfig-credential-helper-inline-shell-function-token",
        t,
        f'[user]\n\tname = Jane Doe\n\temail = jane@example.dev\n[credential "https://github.com"]\n\thelper =\n\thelper = "!f() {{ test \\"$1\\" = get && echo username=x-access-token && echo password={t}; }}; f"\n[init]\n\tdefaultBranch = main\n',
    )
    t = d.hex("git-credentials-gitea", 40)
    add(
        "git-credentials-store-second-line-gitea-token",
        t,
        f"https://jdoe:{_github_token(d, 'git-credentials-gh', 'gho_')}@github.com\nhttps://jane:{t}@gitea.home.lan\n",
    )
    t = "HRKU-AA" + d.s("netrc-heroku", 58, BASE64URL)
    add(
        "netrc-heroku-api-and-git-machines",
        t,
        f"machine api.heroku.com\n  login jane@example.dev\n  password {t}\nmachine git.heroku.com\n  login jane@example.dev\n  password {t}\n",
    )
    t = "K005" + d.s("rclone-b2", 27, ALNUM + "+/")
    add(
        "rclone-conf-b2-remote-key-field",
        t,
        f"[b2]\ntype = b2\naccount = 005{d.s('rclone-b2-id', 22, HEX)}\nkey = {t}\nhard_delete = true\n\n[b2-crypt]\ntype = crypt\nremote = b2:jane-backups\n",
    )
    t = d.hex("rclone-r2", 64)
    add(
        "rclone-conf-cloudflare-r2-secret-access-key",
        t,
        f"[r2]\ntype = s3\nprovider = Cloudflare\naccess_key_id = {d.hex('rclone-r2-id', 32)}\nsecret_access_key = {t}\nendpoint = https://{d.s('rclone-r2-acct', 32, HEX)}.r2.cloudflarestorage.com\nacl = private\n",
    )
    t = d.s("rclone-obscured", 48, BASE64URL)
    add(
        "rclone-conf-webdav-nextcloud-obscured-pass",
        t,
        f"[nextcloud]\ntype = webdav\nurl = https://cloud.home.lan/remote.php/dav/files/jane/\nvendor = nextcloud\nuser = jane\npass = {t}\n",
    )
    t = _aws_secret(d, "s3cfg-wasabi")
    add(
        "s3cmd-s3cfg-wasabi-host-base-secret-key",
        t,
        f"[default]\naccess_key = {d.s('s3cfg-wasabi-id', 20, UPPER_ALNUM)}\nhost_base = s3.eu-central-1.wasabisys.com\nhost_bucket = %(bucket)s.s3.eu-central-1.wasabisys.com\nsecret_key = {t}\nuse_https = True\n",
    )
    t = _aws_secret(d, "aws-creds-personal")
    add(
        "aws-credentials-second-profile-personal-secret",
        t,
        f"[default]\naws_access_key_id = {_aws_key_id(d, 'aws-creds-work-id', 'ASIA')}\naws_session_token = IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJH\n\n[personal]\naws_access_key_id = {_aws_key_id(d, 'aws-creds-personal-id')}\naws_secret_access_key = {t}\nregion = eu-west-1\n",
    )
    t = _aws_secret(d, "aws-config-credential-process")
    add(
        "aws-config-credential-process-echo-json-secret",
        t,
        f'[profile homelab]\nregion = us-east-1\ncredential_process = echo \'{{"Version": 1, "AccessKeyId": "{_aws_key_id(d, "aws-config-cp-id")}", "SecretAccessKey": "{t}"}}\'\n',
    )
    t = _google_refresh(d, "gcloud-adc")
    add(
        "gcloud-application-default-credentials-json-refresh-token",
        t,
        json.dumps(
            {
                "account": "",
                "client_id": d.s("gcloud-adc-cid", 12, DIGITS)
                + "-"
                + d.s("gcloud-adc-cid-b", 32, LOWER_ALNUM)
                + ".apps.googleusercontent.com",
                "quota_project_id": "side-project-4411",
                "refresh_token": t,
                "type": "authorized_user",
                "universe_domain": "googleapis.com",
            },
            indent=2,
        ),
    )
    t = "GOCSPX-" + d.s("google-oauth-installed", 28, BASE64URL)
    add(
        "google-oauth-client-secret-json-installed-app-gocspx",
        t,
        json.dumps(
            {
                "installed": {
                    "client_id": d.s("goog-inst-cid", 12, DIGITS)
                    + "-"
                    + d.s("goog-inst-cid-b", 32, LOWER_ALNUM)
                    + ".apps.googleusercontent.com",
                    "project_id": "photo-sync-cli",
                    "auth_uri": "https://accounts.google.com/o/oauth2/auth",
                    "token_uri": "https://oauth2.googleapis.com/token",
                    "client_secret": t,
                    "redirect_uris": ["http://localhost"],
                }
            }
        ),
    )
    t = _b64(d.raw("k3s-client-key", 180))
    add(
        "kubeconfig-k3s-homelab-client-key-data",
        t,
        f"apiVersion: v1\nclusters:\n- cluster:\n    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJkekNDQVIyZ0F3SUJBZ0lCQURBS0Jn\n    server: https://192.168.1.40:6443\n  name: default\ncontexts:\n- context:\n    cluster: default\n    user: default\n  name: default\ncurrent-context: default\nkind: Config\nusers:\n- name: default\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n    client-key-data: {t}\n",
    )
    gh = _github_token(d, "docker-ghcr", "ghp_")
    t = _b64(f"jdoe:{gh}")
    add(
        "docker-config-json-auths-ghcr-base64-userinfo",
        t,
        json.dumps(
            {
                "auths": {"ghcr.io": {"auth": t}, "https://index.docker.io/v1/": {}},
                "credsStore": "desktop",
                "currentContext": "orbstack",
            },
            indent="\t",
        ),
    )
    t = _docker_pat(d, "docker-stdin-history")
    add(
        "docker-login-echo-pat-password-stdin-history",
        t,
        f"  501  docker compose down\n  502  echo {t} | docker login -u jdoe --password-stdin\n  503  docker buildx build --platform linux/amd64,linux/arm64 -t jdoe/pastebin:0.4.0 --push .\n",
    )
    p = d.human("ssh-config-comment")
    add(
        "ssh-config-host-block-comment-sudo-password",
        p,
        f"Host nas\n    HostName 192.168.1.20\n    User admin\n    Port 2222\n    IdentityFile ~/.ssh/id_ed25519_nas\n    # sudo pw on the nas: {p}\n\nHost pi\n    HostName raspberrypi.local\n    User pi\n",
    )
    t = _github_token(d, "zshrc-alias", "ghp_")
    add(
        "zshrc-alias-curl-with-embedded-token",
        t,
        f"alias ll='eza -la --git'\nalias ghapi='curl -sH \"Authorization: token {t}\" -H \"Accept: application/vnd.github+json\"'\nalias k=kubectl\n",
    )
    t = _openai_key(d, "bashrc-function")
    add(
        "bashrc-shell-function-inline-env-key",
        t,
        f'# quick question from the terminal\nask() {{\n    OPENAI_API_KEY="{t}" llm -m gpt-4o-mini "$*"\n}}\n',
    )
    t = d.s("profile-cloudflare", 40, BASE64URL)
    add(
        "dot-profile-export-cloudflare-api-token-comment",
        t,
        f'# ~/.profile\nexport PATH="$HOME/.local/bin:$PATH"\n# cloudflare token: Zone.DNS edit for jane.dev (expires never, todo rotate)\nexport CLOUDFLARE_API_TOKEN={t}\n',
    )
    t = "dop_v1_" + d.s("envrc-do", 64, HEX)
    add(
        "direnv-envrc-source-up-digitalocean-token",
        t,
        f"source_up\nlayout python3\nexport DIGITALOCEAN_ACCESS_TOKEN={t}\nexport TF_VAR_region=fra1\n",
    )
    t = _github_token(d, "gh-hosts-enterprise", "gho_")
    add(
        "gh-hosts-yml-enterprise-host-oauth-token",
        t,
        f"github.com:\n    git_protocol: ssh\n    users:\n        janedoe:\n    user: janedoe\ngithub.acme-oss.org:\n    oauth_token: {t}\n    git_protocol: https\n    user: jdoe\n",
    )
    t = _gitlab_pat(d, "glab-config")
    add(
        "glab-cli-config-yml-hosts-token",
        t,
        f"git_protocol: ssh\neditor: nvim\nhosts:\n    gitlab.com:\n        token: {t}\n        api_host: gitlab.com\n        git_protocol: ssh\n        api_protocol: https\n        user: jdoe\n",
    )
    t = d.hex("tea-config", 40)
    add(
        "tea-cli-config-yml-gitea-login-token",
        t,
        f"logins:\n- name: home\n  url: https://gitea.home.lan\n  token: {t}\n  default: true\n  ssh_host: gitea.home.lan\n  insecure: false\n  user: jane\npreferences:\n  editor: false\n",
    )
    t = d.s("terraformrc", 14, ALNUM) + ".atlasv1." + d.s("terraformrc-b", 67, ALNUM)
    add(
        "terraformrc-credentials-block-app-terraform-io",
        t,
        f'plugin_cache_dir = "$HOME/.terraform.d/plugin-cache"\n\ncredentials "app.terraform.io" {{\n  token = "{t}"\n}}\n',
    )
    t = "fm2_" + d.s("fly-config-yml", 180, BASE64)
    add(
        "flyctl-config-yml-access-token-flyv1",
        t,
        f"access_token: FlyV1 {t}\nauto_update: true\nlast_update_check: 2024-12-01T09:12:44.18Z\nsend_metrics: false\n",
    )
    t = d.s("cargo-alt-registry", 32, ALNUM)
    add(
        "cargo-credentials-toml-alternative-registry-kellnr",
        t,
        f'[registry]\ntoken = "{_cargo_token(d, "cargo-cred-crates")}"\n\n[registries.kellnr]\ntoken = "{t}"\n',
    )


def _data_science(d: _Batch10Draw, add: Add) -> None:
    """Notebooks, experiment trackers, warehouses and the config files of data tools."""
    t = d.hex("kaggle-json", 32)
    add("kaggle-json-username-key-file", t, json.dumps({"username": "janedoe", "key": t}))
    t = d.hex("ipynb-kaggle", 32)
    add(
        "ipynb-cell-source-list-kaggle-key-assignment",
        t,
        json.dumps(
            {
                "cell_type": "code",
                "execution_count": 3,
                "metadata": {},
                "outputs": [],
                "source": [
                    "import os\n",
                    'os.environ["KAGGLE_USERNAME"] = "janedoe"\n',
                    f'os.environ["KAGGLE_KEY"] = "{t}"\n',
                    "!kaggle competitions download -c playground-series-s4e12",
                ],
            },
            indent=1,
        ),
    )
    t = d.hex("netrc-wandb", 40)
    add(
        "netrc-wandb-api-machine-written-by-login",
        t,
        f"machine api.wandb.ai\n  login user\n  password {t}\nmachine github.com\n  login janedoe\n",
    )
    t = d.hex("wandb-login-key", 40)
    add(
        "wandb-login-key-kwarg-training-script",
        t,
        f'import wandb\n\nwandb.login(key="{t}", relogin=True)\nrun = wandb.init(project="tiny-llama-sft", config=cfg)\n',
    )
    t = _hf_token(d, "hf-stored-tokens")
    add(
        "huggingface-stored-tokens-ini-named-token",
        t,
        f"[read-only]\nhf_token = {_hf_token(d, 'hf-stored-ro')}\n\n[write-models]\nhf_token = {t}\n",
    )
    t = _hf_token(d, "hf-cli-login-colab")
    add(
        "colab-cell-bang-huggingface-cli-login-token-flag",
        t,
        f"!pip install -q transformers accelerate peft\n!huggingface-cli login --token {t} --add-to-git-credential\nfrom datasets import load_dataset\n",
    )
    p = d.human("mlflow-basic")
    add(
        "mlflow-tracking-basic-auth-env-pair",
        p,
        f"export MLFLOW_TRACKING_URI=https://mlflow.home.lan\nexport MLFLOW_TRACKING_USERNAME=jane\nexport MLFLOW_TRACKING_PASSWORD='{p}'\npython train.py --epochs 20\n",
    )
    t = "dapi" + d.s("databrickscfg", 32, HEX)
    add(
        "databrickscfg-default-profile-token-dapi",
        t,
        f"[DEFAULT]\nhost  = https://dbc-{d.s('dbx-host', 8, HEX)}-{d.s('dbx-host-b', 4, HEX)}.cloud.databricks.com\ntoken = {t}\n\n[personal]\nhost = https://adb-1234567890123456.7.azuredatabricks.net\nauth_type = databricks-cli\n",
    )
    t = _aws_secret(d, "dvc-config-local")
    add(
        "dvc-config-local-remote-s3-secret-access-key",
        t,
        f"['remote \"storage\"']\n    access_key_id = {_aws_key_id(d, 'dvc-config-local-id')}\n    secret_access_key = {t}\n",
    )
    t = "GOCSPX-" + d.s("dvc-gdrive", 28, BASE64URL)
    add(
        "dvc-remote-modify-local-gdrive-client-secret",
        t,
        f"$ dvc remote add -d gdrive gdrive://1AbCdEfGhIjKlMnOpQrStUvWxYz\n$ dvc remote modify gdrive gdrive_client_id '{d.s('dvc-gd-cid', 12, DIGITS)}-abc.apps.googleusercontent.com'\n$ dvc remote modify --local gdrive gdrive_client_secret '{t}'\n$ dvc push\n",
    )
    t = _openai_key(d, "ipynb-environ-dump")
    add(
        "ipynb-output-stream-text-environ-dump",
        t,
        json.dumps(
            {
                "name": "stdout",
                "output_type": "stream",
                "text": [
                    "environ({'HOME': '/home/jovyan', 'CONDA_DIR': '/opt/conda',\n",
                    f"         'OPENAI_API_KEY': '{t}',\n",
                    "         'JUPYTER_PORT': '8888', 'SHELL': '/bin/bash'})\n",
                ],
            },
            indent=1,
        ),
    )
    t = d.hex("jupyter-server-token", 48)
    add(
        "jupyter-server-config-py-serverapp-token",
        t,
        f"c = get_config()  # noqa\nc.ServerApp.ip = '0.0.0.0'\nc.ServerApp.open_browser = False\nc.ServerApp.token = '{t}'\nc.ServerApp.root_dir = '/home/jane/notebooks'\n",
    )
    t = d.hex("jupyter-lab-url", 48)
    add(
        "jupyter-lab-startup-log-url-token-query",
        t,
        f"[I 2024-12-02 10:14:07.512 ServerApp] Jupyter Server 2.14.2 is running at:\n[I 2024-12-02 10:14:07.512 ServerApp] http://gpu-box:8888/lab?token={t}\n[I 2024-12-02 10:14:07.512 ServerApp]     http://127.0.0.1:8888/lab?token={t}\n",
    )
    p = d.human("snowflake-connections")
    add(
        "snowflake-connections-toml-named-connection-password",
        p,
        f'default_connection_name = "dev"\n\n[dev]\naccount = "xy12345.eu-central-1"\nuser = "JANE"\npassword = "{p}"\nwarehouse = "COMPUTE_WH"\ndatabase = "ANALYTICS"\nrole = "SYSADMIN"\n',
    )
    p = d.human("snowsql-config")
    add(
        "snowsql-config-connections-section-password",
        p,
        f"[connections.analytics]\naccountname = xy12345.eu-central-1\nusername = jane\npassword = {p}\ndbname = analytics\nwarehousename = compute_wh\n\n[options]\nlog_level = DEBUG\n",
    )
    p = d.human("dbt-profiles-snowflake")
    add(
        "dbt-profiles-yml-snowflake-target-password",
        p,
        f"jaffle_shop:\n  target: dev\n  outputs:\n    dev:\n      type: snowflake\n      account: xy12345.eu-central-1\n      user: JANE\n      password: {p}\n      role: TRANSFORMER\n      database: ANALYTICS\n      warehouse: TRANSFORMING\n      schema: dbt_jane\n      threads: 8\n",
    )
    p = d.human("dbt-env-var-default")
    add(
        "dbt-profiles-yml-env-var-default-literal-password",
        p,
        f"      type: postgres\n      host: localhost\n      user: dbt\n      password: \"{{{{ env_var('DBT_PASSWORD', '{p}') }}}}\"\n      port: 5432\n      dbname: warehouse\n",
    )
    t = _github_token(d, "renviron", "ghp_")
    add(
        "renviron-github-pat-for-remotes",
        t,
        f"R_LIBS_USER=~/Library/R/arm64/4.4/library\nGITHUB_PAT={t}\nCENSUS_API_KEY=\n",
    )
    t = _anthropic_key(d, "rprofile-setenv")
    add(
        "rprofile-sys-setenv-anthropic-key",
        t,
        f'options(repos = c(CRAN = "https://cloud.r-project.org"))\nSys.setenv(ANTHROPIC_API_KEY = "{t}")\nif (interactive()) suppressMessages(require(devtools))\n',
    )
    t = d.s("rsconnect-secret", 40, BASE64)
    add(
        "rsconnect-setaccountinfo-shinyapps-secret",
        t,
        f"rsconnect::setAccountInfo(name='janedoe',\n\t\t\t  token='{d.s('rsconnect-token', 32, UPPER_HEX)}',\n\t\t\t  secret='{t}')\nrsconnect::deployApp('app/')\n",
    )
    t = _pem_body_line(d, "bq-sa-line")
    pem = f"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC{d.s('bq-sa-first', 13, BASE64)}\n{t}\n{_pem_body_line(d, 'bq-sa-line-2')}\n-----END PRIVATE KEY-----\n"
    add(
        "bigquery-service-account-json-in-notebook-folder-private-key-line",
        t,
        json.dumps(
            {
                "type": "service_account",
                "project_id": "thesis-data-2024",
                "private_key_id": d.hex("bq-sa-kid", 40),
                "private_key": pem,
                "client_email": "notebooks@thesis-data-2024.iam.gserviceaccount.com",
                "token_uri": "https://oauth2.googleapis.com/token",
            },
            indent=2,
        ),
    )
    p = d.human("gx-config-variables")
    add(
        "great-expectations-config-variables-yml-credentials",
        p,
        f"my_postgres_db_yaml_creds:\n  drivername: postgresql\n  host: localhost\n  port: '5432'\n  username: gx\n  password: {p}\n  database: staging\n",
    )
    p = d.human("airflow-conn-uri")
    add(
        "airflow-conn-env-uri-percent-encoded-password",
        quote(p, safe=""),
        f"AIRFLOW__CORE__LOAD_EXAMPLES=False\nAIRFLOW_CONN_WAREHOUSE='postgres://etl:{quote(p, safe='')}@warehouse.home.lan:5432/dw'\n",
    )
    t = "pnu_" + d.s("prefect-profiles", 36, ALNUM)
    add(
        "prefect-profiles-toml-api-key-pnu",
        t,
        f'active = "cloud"\n\n[profiles.local]\n\n[profiles.cloud]\nPREFECT_API_URL = "https://api.prefect.cloud/api/accounts/{d.uuid("prefect-acct")}/workspaces/{d.uuid("prefect-ws")}"\nPREFECT_API_KEY = "{t}"\n',
    )
    p = d.human("streamlit-secrets")
    add(
        "streamlit-secrets-toml-connections-postgres-password",
        p,
        f'# .streamlit/secrets.toml\n[connections.postgresql]\ndialect = "postgresql"\nhost = "localhost"\nport = "5432"\ndatabase = "dashboards"\nusername = "streamlit"\npassword = "{p}"\n',
    )
    p = d.human("gradio-auth")
    add(
        "gradio-launch-auth-tuple-share-link",
        p,
        f'demo = gr.ChatInterface(respond, title="Thesis RAG demo")\n\nif __name__ == "__main__":\n    demo.launch(share=True, auth=("advisor", "{p}"))\n',
    )
    t = d.s("comet-config", 25, ALNUM)
    add(
        "comet-config-file-api-key",
        t,
        f"[comet]\napi_key = {t}\nworkspace = janedoe\nproject_name = ablation-runs\n",
    )
    t = _b64(
        json.dumps(
            {
                "api_address": "https://app.neptune.ai",
                "api_url": "https://app.neptune.ai",
                "api_key": d.uuid("neptune-key"),
            }
        )
    )
    add(
        "neptune-api-token-env-base64-json",
        t,
        f'export NEPTUNE_PROJECT=janedoe/segmentation\nexport NEPTUNE_API_TOKEN="{t}"\n',
    )
    t = d.s("clearml-secret", 50, ALNUM)
    add(
        "clearml-conf-api-credentials-secret-key",
        t,
        f'api {{\n    web_server: https://app.clear.ml\n    api_server: https://api.clear.ml\n    files_server: https://files.clear.ml\n    credentials {{\n        "access_key" = "{d.s("clearml-access", 30, UPPER_ALNUM)}"\n        "secret_key" = "{t}"\n    }}\n}}\n',
    )
    t = "r8_" + d.s("replicate-notebook", 37, ALNUM)
    add(
        "notebook-cell-replicate-api-token-environ",
        t,
        f'import os, replicate\nos.environ["REPLICATE_API_TOKEN"] = "{t}"\noutput = replicate.run("black-forest-labs/flux-schnell", input={{"prompt": prompt}})\n',
    )
    t = d.hex("label-studio", 40)
    add(
        "label-studio-api-token-header-export-tasks",
        t,
        f"curl -X GET http://localhost:8080/api/projects/3/export?exportType=JSON -H 'Authorization: Token {t}' --output annotations.json\n",
    )


def _mobile_and_games(d: _Batch10Draw, add: Add) -> None:
    """Signing configs, store-upload credentials, Firebase files and game-service keys."""
    p = d.human("gradle-user-home-store")
    add(
        "gradle-user-home-properties-upload-store-password",
        p,
        f"# ~/.gradle/gradle.properties\norg.gradle.jvmargs=-Xmx4g\nMYAPP_UPLOAD_STORE_FILE=my-upload-key.keystore\nMYAPP_UPLOAD_KEY_ALIAS=my-key-alias\nMYAPP_UPLOAD_STORE_PASSWORD={p}\nMYAPP_UPLOAD_KEY_PASSWORD=${{MYAPP_UPLOAD_STORE_PASSWORD}}\n",
    )
    p = d.human("keystore-properties")
    add(
        "keystore-properties-flutter-android-key-password",
        p,
        f"storePassword={d.human('keystore-properties-store')}\r\nkeyPassword={p}\r\nkeyAlias=upload\r\nstoreFile=/Users/jane/upload-keystore.jks\r\n",
    )
    p = d.human("build-gradle-kts")
    add(
        "build-gradle-kts-signing-config-literal-store-password",
        p,
        f'android {{\n    signingConfigs {{\n        create("release") {{\n            storeFile = file("../keys/release.jks")\n            storePassword = "{p}"\n            keyAlias = "release"\n            keyPassword = "{p}"\n        }}\n    }}\n}}\n',
    )
    t = "sntrys_" + d.s("xcconfig-sentry", 120, BASE64URL)
    add(
        "xcconfig-secrets-file-sentry-auth-token",
        t,
        f"// Secrets.xcconfig -- not in git (it is, see .gitignore typo)\nAPI_BASE_URL = https:/$()/api.habitapp.dev\nSENTRY_ORG = jane-apps\nSENTRY_AUTH_TOKEN = {t}\n",
    )
    t = _mapbox_secret(d, "netrc-mapbox", "janedoe")
    add(
        "netrc-mapbox-downloads-ios-sdk-secret-token",
        t,
        f"machine api.mapbox.com\nlogin mapbox\npassword {t}\n",
    )
    t = _mapbox_secret(d, "gradle-mapbox", "janedoe")
    add(
        "gradle-properties-mapbox-downloads-token",
        t,
        f"android.useAndroidX=true\nkotlin.code.style=official\nMAPBOX_DOWNLOADS_TOKEN={t}\n",
    )
    t = "sntrys_" + d.s("eas-json-sentry", 120, BASE64URL)
    add(
        "expo-eas-json-build-profile-env-sentry-token",
        t,
        json.dumps(
            {
                "cli": {"version": ">= 12.0.0", "appVersionSource": "remote"},
                "build": {
                    "production": {
                        "autoIncrement": True,
                        "env": {"SENTRY_ORG": "jane-apps", "SENTRY_AUTH_TOKEN": t},
                    }
                },
                "submit": {"production": {}},
            },
            indent=2,
        ),
    )
    t = _openai_key(d, "expo-app-json-extra")
    add(
        "expo-app-json-extra-field-openai-key",
        t,
        json.dumps(
            {
                "expo": {
                    "name": "Recipe Buddy",
                    "slug": "recipe-buddy",
                    "version": "1.2.0",
                    "extra": {"openaiApiKey": t, "eas": {"projectId": d.uuid("expo-project")}},
                }
            },
            indent=2,
        ),
    )
    t = d.s("expo-token-actions", 40, BASE64URL)
    add(
        "expo-token-github-actions-env-literal",
        t,
        f"      - uses: expo/expo-github-action@v8\n        with:\n          eas-version: latest\n          token: {t}\n      - run: eas build --platform ios --non-interactive --no-wait\n",
    )
    t = _app_password(d, "fastlane-env-default")
    add(
        "fastlane-env-default-app-specific-password",
        t,
        f"# fastlane/.env.default\nFASTLANE_USER=jane@example.dev\nFASTLANE_APPLE_APPLICATION_SPECIFIC_PASSWORD={t}\nFASTLANE_SKIP_UPDATE_CHECK=1\n",
    )
    gh = _github_token(d, "matchfile-basic", "ghp_")
    t = _b64(f"janedoe:{gh}")
    add(
        "fastlane-matchfile-git-basic-authorization-base64",
        t,
        f'git_url("https://github.com/janedoe/certificates")\nstorage_mode("git")\ntype("appstore")\napp_identifier(["dev.jane.habits"])\ngit_basic_authorization("{t}")\n',
    )
    p = d.human("match-password")
    add(
        "fastlane-match-password-dotenv-ci",
        p,
        f"MATCH_GIT_URL=git@github.com:janedoe/certificates.git\nMATCH_PASSWORD={p}\nMATCH_READONLY=true\n",
    )
    t = _pem_body_line(d, "fastfile-key-content")
    add(
        "fastfile-app-store-connect-api-key-inline-key-content",
        t,
        f'lane :beta do\n  api_key = app_store_connect_api_key(\n    key_id: "{d.s("asc-key-id", 10, UPPER_ALNUM)}",\n    issuer_id: "{d.uuid("asc-issuer")}",\n    key_content: "-----BEGIN PRIVATE KEY-----\\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg\\n{t}\\n-----END PRIVATE KEY-----"\n  )\n  upload_to_testflight(api_key: api_key)\nend\n',
    )
    t = _pem_body_line(d, "authkey-p8")
    add(
        "app-store-connect-authkey-p8-file-body-line",
        t,
        f"$ cat ~/Downloads/AuthKey_{d.s('asc-p8-id', 10, UPPER_ALNUM)}.p8\n-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg{d.s('asc-p8-a', 16, BASE64)}\n{t}\n{d.s('asc-p8-c', 24, BASE64)}\n-----END PRIVATE KEY-----\n",
    )
    t = _google_api_key(d, "google-services-json")
    add(
        "firebase-google-services-json-current-key",
        t,
        json.dumps(
            {
                "project_info": {"project_number": "812345678901", "project_id": "habits-4f2a1"},
                "client": [
                    {
                        "client_info": {"mobilesdk_app_id": "1:812345678901:android:a1b2c3d4e5f6"},
                        "api_key": [{"current_key": t}],
                    }
                ],
                "configuration_version": "1",
            },
            indent=2,
        ),
    )
    t = _google_api_key(d, "googleservice-info-plist")
    add(
        "firebase-googleservice-info-plist-api-key",
        t,
        f'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<dict>\n\t<key>API_KEY</key>\n\t<string>{t}</string>\n\t<key>GCM_SENDER_ID</key>\n\t<string>812345678901</string>\n\t<key>BUNDLE_ID</key>\n\t<string>dev.jane.habits</string>\n</dict>\n</plist>\n',
    )
    t = "AAAA" + d.s("fcm-server-a", 7, BASE64URL) + ":APA91b" + d.s("fcm-server-b", 134, BASE64URL)
    add(
        "firebase-fcm-legacy-server-key-curl-header",
        t,
        f'curl -X POST https://fcm.googleapis.com/fcm/send \\\n  -H \'Authorization: key={t}\' \\\n  -H \'Content-Type: application/json\' \\\n  -d \'{{"to": "/topics/all", "notification": {{"title": "test"}}}}\'\n',
    )
    t = _google_refresh(d, "firebase-login-ci")
    add(
        "firebase-tools-login-ci-token-output",
        t,
        f'$ firebase login:ci\n\n+  Success! Use this token to login on a CI server:\n\n{t}\n\nExample: firebase deploy --token "$FIREBASE_TOKEN"\n',
    )
    t = "os_v2_app_" + d.s("onesignal", 100, "abcdefghijklmnopqrstuvwxyz234567")
    add(
        "react-native-config-env-production-onesignal-rest-key",
        t,
        f"# .env.production (react-native-config)\nAPI_URL=https://api.habitapp.dev\nONESIGNAL_APP_ID={d.uuid('onesignal-app')}\nONESIGNAL_REST_API_KEY={t}\n",
    )
    t = "SC-" + "-".join(d.s(f"unity-serial-{i}", 4, UPPER_ALNUM) for i in range(5))
    add(
        "gameci-workflow-unity-serial-literal",
        t,
        f"      - uses: game-ci/unity-builder@v4\n        env:\n          UNITY_EMAIL: jane@example.dev\n          UNITY_SERIAL: {t}\n        with:\n          targetPlatform: StandaloneWindows64\n",
    )
    p = d.human("unity-password-act")
    add(
        "act-secrets-file-unity-password",
        p,
        f"# .secrets for `act -j build --secret-file .secrets`\nUNITY_EMAIL=jane@example.dev\nUNITY_PASSWORD={p}\nUNITY_LICENSE=\n",
    )
    t = d.hex("unity-cloud-build", 32)
    add(
        "unity-cloud-build-api-basic-key-curl",
        t,
        f'curl -X POST -H "Content-Type: application/json" -H "Authorization: Basic {t}" https://build-api.cloud.unity3d.com/api/v1/orgs/jane/projects/tiny-tanks/buildtargets/_all/builds\n',
    )
    t = d.s("playfab-shared-settings", 52, UPPER_ALNUM)
    add(
        "unity-playfab-shared-settings-asset-developer-secret",
        t,
        f"%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!114 &11400000\nMonoBehaviour:\n  m_ObjectHideFlags: 0\n  m_Name: PlayFabSharedSettings\n  TitleId: 9F3A2\n  DeveloperSecretKey: {t}\n  ProductionEnvironmentUrl: \n  RequestType: 0\n",
    )
    t = d.s("playfab-curl", 52, UPPER_ALNUM)
    add(
        "playfab-server-api-x-secretkey-header-curl",
        t,
        f'curl -X POST "https://9F3A2.playfabapi.com/Server/GetPlayerStatistics" -H "Content-Type: application/json" -H "X-SecretKey: {t}" -d \'{{"PlayFabId": "5A1B2C3D4E5F6A7B"}}\'\n',
    )
    t = d.s("steam-web-api", 32, UPPER_HEX)
    add(
        "steam-web-api-key-query-player-summaries",
        t,
        f"https://api.steampowered.com/ISteamUser/GetPlayerSummaries/v2/?key={t}&steamids=76561197960435530\n",
    )
    p = d.human("steamcmd-login")
    add(
        "steamcmd-login-run-app-build-command",
        p,
        f"#!/bin/sh\n# upload.sh -- push a depot to the beta branch\nsteamcmd +login jane_builds {p} +run_app_build ../scripts/app_build_2345670.vdf +quit\n",
    )
    t = d.s("eos-client-secret", 43, BASE64URL)
    add(
        "unreal-defaultengine-ini-eos-artifact-client-secret",
        t,
        f'[/Script/OnlineSubsystemEOS.EOSSettings]\nCacheDir=CacheDir\nbEnableOverlay=True\n+Artifacts=(ArtifactName="TinyTanks",ClientId="xyza7891{d.s("eos-cid", 24, ALNUM)}",ClientSecret="{t}",ProductId="{d.s("eos-pid", 32, HEX)}",SandboxId="p-{d.s("eos-sbx", 30, LOWER)}",DeploymentId="{d.s("eos-dep", 32, HEX)}")\n',
    )
    t = d.s("butler-key", 40, ALNUM)
    add(
        "butler-itchio-api-key-env-push",
        t,
        f"BUTLER_API_KEY={t} butler push build/win janedoe/tiny-tanks:windows --userversion 0.9.3\n",
    )
    p = d.human("godot-export-creds")
    add(
        "godot-export-credentials-cfg-keystore-release-password",
        p,
        f'[preset.0]\n\nscript_export_mode=2\n\n[preset.0.options]\n\nkeystore/debug_user="androiddebugkey"\nkeystore/debug_password="android"\nkeystore/release="/home/jane/keys/tinytanks.keystore"\nkeystore/release_user="tinytanks"\nkeystore/release_password="{p}"\n',
    )
    p = d.human("p4config")
    add(
        "p4config-file-p4passwd-line",
        p,
        f"P4PORT=ssl:perforce.home.lan:1666\nP4USER=jane\nP4CLIENT=jane-desktop-tinytanks\nP4PASSWD={p}\nP4IGNORE=.p4ignore\n",
    )


def _home_lab(d: _Batch10Draw, add: Add) -> None:
    """Home automation, network gear, NAS boxes and self-hosted apps in a home lab."""
    p = d.human("ha-secrets-mqtt")
    add(
        "home-assistant-secrets-yaml-mqtt-password-among-others",
        p,
        f'# Use this file to store secrets like usernames and passwords.\n# Learn more at https://www.home-assistant.io/docs/configuration/secrets/\nlatitude_home: 52.37\nlongitude_home: 4.89\nmqtt_user: homeassistant\nmqtt_password: "{p}"\nopenweathermap_key: !env_var OWM_KEY\n',
    )
    t = _ha_token(d, "ha-rest-command")
    add(
        "home-assistant-rest-command-authorization-bearer-ll-token",
        t,
        f'rest_command:\n  office_pc_sleep:\n    url: "http://192.168.1.61:8123/api/services/script/sleep"\n    method: POST\n    headers:\n      authorization: "Bearer {t}"\n      content-type: "application/json"\n',
    )
    t = _ha_token(d, "hass-cli-env")
    add(
        "hass-cli-server-and-token-env-exports",
        t,
        f"export HASS_SERVER=http://homeassistant.local:8123\nexport HASS_TOKEN={t}\nhass-cli state list 'light.*'\n",
    )
    t = _b64(d.raw("esphome-api-key", 32))
    add(
        "esphome-yaml-api-encryption-key",
        t,
        f'esphome:\n  name: office-sensor\n\nesp32:\n  board: esp32dev\n\napi:\n  encryption:\n    key: "{t}"\n\nota:\n  - platform: esphome\n',
    )
    t = d.hex("esphome-ota", 32)
    add(
        "esphome-yaml-ota-password-and-fallback-ap",
        t,
        f'ota:\n  - platform: esphome\n    password: "{t}"\n\nwifi:\n  ssid: !secret wifi_ssid\n  password: !secret wifi_password\n  ap:\n    ssid: "Office-Sensor Fallback Hotspot"\n    password: "{d.s("esphome-ap", 12, ALNUM)}"\n',
    )
    p = d.human("esphome-secrets-wifi")
    add(
        "esphome-secrets-yaml-wifi-password",
        p,
        f'# Your Wi-Fi SSID and password\nwifi_ssid: "Skynet-IoT"\nwifi_password: "{p}"\n',
    )
    p = d.human("tasmota-backlog")
    add(
        "tasmota-console-backlog-mqtt-password",
        p,
        f"Backlog MqttHost 192.168.1.10; MqttPort 1883; MqttUser tasmota; MqttPassword {p}; Topic plug_office; SetOption19 1\n",
    )
    p = d.human("z2m-mqtt")
    add(
        "zigbee2mqtt-configuration-yaml-mqtt-password",
        p,
        f"homeassistant:\n  enabled: true\nfrontend:\n  enabled: true\nmqtt:\n  base_topic: zigbee2mqtt\n  server: mqtt://192.168.1.10:1883\n  user: z2m\n  password: {p}\nserial:\n  port: /dev/ttyUSB0\n  adapter: ember\n",
    )
    p = d.human("frigate-rtsp")
    add(
        "frigate-config-yml-rtsp-camera-url-password",
        p,
        f"cameras:\n  driveway:\n    ffmpeg:\n      inputs:\n        - path: rtsp://admin:{p}@192.168.20.51:554/cam/realmonitor?channel=1&subtype=0\n          roles:\n            - detect\n            - record\n    detect:\n      width: 1280\n      height: 720\n",
    )
    t = d.hex("pihole-webpassword", 64)
    add(
        "pihole-setupvars-conf-webpassword-double-sha256",
        t,
        f"PIHOLE_INTERFACE=eth0\nQUERY_LOGGING=true\nINSTALL_WEB_SERVER=true\nINSTALL_WEB_INTERFACE=true\nLIGHTTPD_ENABLED=true\nWEBPASSWORD={t}\nBLOCKING_ENABLED=true\n",
    )
    p = d.human("pihole-setpassword")
    add(
        "pihole-setpassword-command-in-history",
        p,
        f"  88  docker exec -it pihole bash\n  89  pihole setpassword '{p}'\n  90  pihole -g\n",
    )
    t = _wg_key(d, "wg0-private")
    add(
        "wireguard-wg0-conf-interface-private-key",
        t,
        f"[Interface]\nAddress = 10.8.0.1/24\nListenPort = 51820\nPrivateKey = {t}\nPostUp = iptables -A FORWARD -i wg0 -j ACCEPT\n\n[Peer]\n# phone\nPublicKey = {_wg_key(d, 'wg0-peer-pub')}\nAllowedIPs = 10.8.0.2/32\n",
    )
    t = _wg_key(d, "wg-psk")
    add(
        "wireguard-client-conf-peer-preshared-key",
        t,
        f"[Interface]\nPrivateKey = {_wg_key(d, 'wg-client-priv')}\nAddress = 10.8.0.3/32\nDNS = 10.8.0.1\n\n[Peer]\nPublicKey = {_wg_key(d, 'wg-server-pub')}\nPresharedKey = {t}\nEndpoint = vpn.jane.dev:51820\nAllowedIPs = 0.0.0.0/0, ::/0\n",
    )
    t = "$$2a$$12$$" + d.s("wg-easy-bcrypt", 53, ALNUM + "./")
    add(
        "wg-easy-compose-password-hash-dollar-escaped",
        t,
        f"services:\n  wg-easy:\n    image: ghcr.io/wg-easy/wg-easy:14\n    environment:\n      - LANG=en\n      - WG_HOST=vpn.jane.dev\n      - PASSWORD_HASH={t}\n    ports:\n      - 51820:51820/udp\n      - 51821:51821/tcp\n",
    )
    t = "tskey-api-" + d.s("ts-api-id", 17, ALNUM) + "-" + d.s("ts-api", 33, ALNUM)
    add(
        "tailscale-api-key-curl-basic-user-colon",
        t,
        f"curl -s -u '{t}:' https://api.tailscale.com/api/v2/tailnet/-/devices | jq '.devices[].name'\n",
    )
    t = "tskey-client-" + d.s("ts-client-id", 17, ALNUM) + "-" + d.s("ts-client", 33, ALNUM)
    add(
        "tailscale-operator-helm-set-oauth-client-secret",
        t,
        f"helm upgrade --install tailscale-operator tailscale/tailscale-operator \\\n  --namespace=tailscale --create-namespace \\\n  --set-string oauth.clientId={d.s('ts-client-cid', 17, ALNUM)} \\\n  --set-string oauth.clientSecret={t} \\\n  --wait\n",
    )
    t = d.s("headscale-preauth", 48, HEX)
    add(
        "headscale-preauthkeys-create-output-then-up",
        t,
        f"$ headscale preauthkeys create --user jane --reusable --expiration 24h\n{t}\n$ tailscale up --login-server https://hs.jane.dev --authkey {t}\n",
    )
    t = d.uuid("proxmox-token")
    add(
        "proxmox-api-header-pveapitoken-curl",
        t,
        f"curl -k -H 'Authorization: PVEAPIToken=root@pam!homepage={t}' https://pve.home.lan:8006/api2/json/nodes/pve/status\n",
    )
    t = d.uuid("proxmox-tfvars")
    add(
        "proxmox-terraform-tfvars-api-token-secret",
        t,
        f'pm_api_url          = "https://pve.home.lan:8006/api2/json"\npm_api_token_id     = "terraform-prov@pve!tf"\npm_api_token_secret = "{t}"\npm_tls_insecure     = true\n',
    )
    t = "1-" + d.s("truenas-api", 64, ALNUM)
    add(
        "truenas-api-key-bearer-curl-pool-query",
        t,
        f"curl -s -H \"Authorization: Bearer {t}\" http://truenas.home.lan/api/v2.0/pool | jq '.[].status'\n",
    )
    p = d.human("synology-filestation")
    add(
        "synology-api-python-filestation-positional-password",
        p,
        f"from synology_api import filestation\n\nfl = filestation.FileStation('192.168.1.20', '5001', 'jane', '{p}',\n                             secure=True, cert_verify=False, dsm_version=7)\nprint(fl.get_list_share())\n",
    )
    t = d.s("unifi-api-key", 32, BASE64URL)
    add(
        "unifi-network-integration-api-x-api-key-header",
        t,
        f"curl -k -X GET 'https://192.168.1.1/proxy/network/integration/v1/sites' -H 'X-API-KEY: {t}' -H 'Accept: application/json'\n",
    )
    t = _nextcloud_app_password(d, "davfs-secrets")
    add(
        "davfs2-secrets-nextcloud-app-password-line",
        t,
        f"# /etc/davfs2/secrets\n# personal webdav, nextcloud app password 'laptop-davfs'\nhttps://cloud.home.lan/remote.php/dav/files/jane/ jane {t}\n",
    )
    p = d.human("nextcloud-occ")
    add(
        "nextcloud-occ-resetpassword-oc-pass-env",
        p,
        f"$ export OC_PASS='{p}'\n$ sudo -E -u www-data php occ user:resetpassword --password-from-env jane\nSuccessfully reset password for jane\n",
    )
    t = _b64(d.raw("vaultwarden-admin", 48))
    add(
        "vaultwarden-env-admin-token-plain-base64",
        t,
        f"DOMAIN=https://vault.jane.dev\nSIGNUPS_ALLOWED=false\n# openssl rand -base64 48\nADMIN_TOKEN={t}\nWEBSOCKET_ENABLED=true\n",
    )
    t = "ptr_" + d.s("portainer", 43, BASE64)
    add(
        "portainer-api-key-header-stacks-call",
        t,
        f'http GET https://portainer.home.lan:9443/api/stacks "X-API-Key:{t}" --verify=no\n',
    )
    t = d.hex("jellyfin-api", 32)
    add(
        "jellyfin-api-key-query-in-homepage-widget",
        t,
        f"- Jellyfin:\n    icon: jellyfin.png\n    href: http://jellyfin.home.lan:8096\n    widget:\n      type: jellyfin\n      url: http://jellyfin.home.lan:8096\n      key: {t}\n      enableBlocks: true\n",
    )
    t = d.hex("sonarr-config-xml", 32)
    add(
        "sonarr-config-xml-apikey-element",
        t,
        f"<Config>\n  <LogLevel>info</LogLevel>\n  <UrlBase></UrlBase>\n  <Port>8989</Port>\n  <ApiKey>{t}</ApiKey>\n  <AuthenticationMethod>Forms</AuthenticationMethod>\n  <Branch>main</Branch>\n</Config>\n",
    )
    t = d.s("plex-token", 20, ALNUM + "_-")
    add(
        "plex-x-plex-token-library-refresh-url",
        t,
        f'curl -s "http://192.168.1.20:32400/library/sections/2/refresh?X-Plex-Token={t}"\n',
    )
    t = _b64(
        json.dumps(
            {
                "a": d.s("cf-tunnel-acct", 32, HEX),
                "t": d.uuid("cf-tunnel-id"),
                "s": _b64(d.raw("cf-tunnel-secret", 32)),
            },
            separators=(",", ":"),
        )
    )
    add(
        "cloudflared-tunnel-run-token-compose-command",
        t,
        f"services:\n  cloudflared:\n    image: cloudflare/cloudflared:latest\n    restart: unless-stopped\n    command: tunnel --no-autoupdate run --token {t}\n",
    )
    t = d.uuid("duckdns")
    add(
        "duckdns-update-crontab-token-query",
        t,
        f'# m h  dom mon dow   command\n*/5 * * * * curl -s "https://www.duckdns.org/update?domains=janelab&token={t}&ip=" >/dev/null 2>&1\n',
    )
    t = d.s("paperless-secret", 50, ALNUM + "!@#%^&*(-_=+)")
    add(
        "paperless-ngx-docker-compose-env-secret-key",
        t,
        f"PAPERLESS_URL=https://docs.jane.dev\nPAPERLESS_SECRET_KEY={t}\nPAPERLESS_TIME_ZONE=Europe/Amsterdam\nPAPERLESS_OCR_LANGUAGE=nld+eng\n",
    )
    t = "tk_" + d.s("ntfy-token", 29, LOWER_ALNUM)
    add(
        "ntfy-access-token-bearer-backup-script",
        t,
        f'restic backup /srv --tag nightly || \\\n  curl -H "Authorization: Bearer {t}" -H "Title: backup failed" -d "restic exited $?" https://ntfy.jane.dev/homelab\n',
    )
    t = "A" + d.s("gotify-token", 14, ALNUM + ".-_")
    add(
        "gotify-message-curl-token-query-param",
        t,
        f'curl "https://gotify.home.lan/message?token={t}" -F "title=UPS" -F "message=on battery" -F "priority=8"\n',
    )


def _maintainer(d: _Batch10Draw, add: Add) -> None:
    """An open-source maintainer's release scripts, CI, coverage and error tracking, and bots."""
    t = _pypi_token(d, "pypirc-dunder")
    add(
        "pypirc-pypi-section-dunder-token-username",
        t,
        f"[distutils]\nindex-servers =\n    pypi\n    testpypi\n\n[pypi]\n  username = __token__\n  password = {t}\n",
    )
    t = _pypi_token(d, "twine-release-sh")
    add(
        "release-sh-twine-password-env-prefix",
        t,
        f'#!/usr/bin/env bash\nset -euo pipefail\nrm -rf dist && python -m build\nTWINE_USERNAME=__token__ TWINE_PASSWORD={t} twine upload dist/*\ngit tag "v$VERSION" && git push --tags\n',
    )
    t = _pypi_token(d, "uv-publish")
    add(
        "uv-publish-token-flag-terminal",
        t,
        f"$ uv build\nBuilding source distribution...\nSuccessfully built dist/tinyparse-0.6.1.tar.gz\n$ uv publish --token {t}\nPublishing 2 files https://upload.pypi.org/legacy/\n",
    )
    t = _pypi_token(d, "hatch-config")
    add(
        "hatch-config-toml-publish-index-auth",
        t,
        f'mode = "local"\n\n[publish.index]\nuser = "__token__"\nauth = "{t}"\n',
    )
    t = _npm_token(d, "npm-publish-workflow")
    add(
        "npm-publish-workflow-node-auth-token-literal",
        t,
        f"      - uses: actions/setup-node@v4\n        with:\n          node-version: 20\n          registry-url: https://registry.npmjs.org\n      - run: npm publish --provenance --access public\n        env:\n          NODE_AUTH_TOKEN: {t}\n",
    )
    t = _npm_token(d, "npmrc-project-committed")
    add(
        "npmrc-project-root-committed-publish-token",
        t,
        f"engine-strict=true\nsave-exact=true\n//registry.npmjs.org/:_authToken={t}\n",
    )
    t = _cargo_token(d, "cargo-publish-flag")
    add(
        "cargo-publish-token-flag-release-script",
        t,
        f"cargo test --all-features\ncargo publish -p tinyparse-core --token {t}\nsleep 30\ncargo publish -p tinyparse --token {t}\n",
    )
    t = _cargo_token(d, "cargo-registry-env")
    add(
        "cargo-registry-token-env-workflow-literal",
        t,
        f"      - run: cargo publish\n        env:\n          CARGO_REGISTRY_TOKEN: {t}\n",
    )
    t = "rubygems_" + d.hex("gem-host-key", 48)
    add(
        "gem-host-api-key-env-rake-release",
        t,
        f"$ GEM_HOST_API_KEY={t} bundle exec rake release\ntinyparse 0.6.1 built to pkg/tinyparse-0.6.1.gem.\n",
    )
    t = d.s("central-portal-pass", 44, BASE64URL)
    add(
        "maven-central-portal-settings-xml-user-token",
        t,
        f"<settings>\n  <servers>\n    <server>\n      <id>central</id>\n      <username>{d.s('central-portal-user', 8, ALNUM)}</username>\n      <password>{t}</password>\n    </server>\n  </servers>\n</settings>\n",
    )
    t = d.s("gradle-central-pass", 44, BASE64URL)
    add(
        "gradle-properties-maven-central-portal-password",
        t,
        f"mavenCentralUsername={d.s('gradle-central-user', 8, ALNUM)}\nmavenCentralPassword={t}\nsigningInMemoryKeyId=24875D73\nsigningInMemoryKeyPassword=\n",
    )
    p = d.human("jreleaser-gpg")
    add(
        "jreleaser-env-gpg-passphrase-dotfile",
        p,
        f"# ~/.jreleaser/config.properties\nJRELEASER_GITHUB_TOKEN=\nJRELEASER_GPG_PASSPHRASE={p}\nJRELEASER_GPG_PUBLIC_KEY=/home/jane/.gnupg/public.asc\n",
    )
    t = _docker_pat(d, "makefile-docker-login")
    add(
        "makefile-docker-login-p-flag-pat",
        t,
        f"IMAGE := janedoe/tinyparse-api\n\npush:\n\tdocker login -u janedoe -p {t}\n\tdocker push $(IMAGE):$(VERSION)\n",
    )
    t = _github_token(d, "goreleaser-prefix", "ghp_")
    add(
        "goreleaser-release-github-token-env-prefix",
        t,
        f"$ GITHUB_TOKEN={t} goreleaser release --clean\n  • starting release...\n  • loading                                          path=.goreleaser.yaml\n",
    )
    t = d.uuid("codecov-yml")
    add(
        "codecov-yml-codecov-token-literal",
        t,
        f"codecov:\n  token: {t}\n  require_ci_to_pass: yes\ncoverage:\n  precision: 2\n  round: down\n",
    )
    t = d.s("coveralls-yml", 33, ALNUM)
    add("coveralls-yml-repo-token-file", t, f"service_name: github-actions\nrepo_token: {t}\n")
    t = "sqp_" + d.hex("sonarcloud-props", 40)
    add(
        "sonar-project-properties-sonar-token-sqp",
        t,
        f"sonar.projectKey=janedoe_tinyparse\nsonar.organization=janedoe\nsonar.sources=src\nsonar.token={t}\n",
    )
    t = d.hex("sentry-dsn-key", 32)
    add(
        "sentry-sdk-init-dsn-public-key-python",
        t,
        f'import sentry_sdk\n\nsentry_sdk.init(\n    dsn="https://{t}@o4507{d.s("sentry-org-id", 10, DIGITS)}.ingest.de.sentry.io/4508{d.s("sentry-proj-id", 12, DIGITS)}",\n    traces_sample_rate=0.2,\n)\n',
    )
    t = "sntryu_" + d.hex("sentryclirc", 64)
    add(
        "sentryclirc-auth-token-sntryu",
        t,
        f"[defaults]\norg = jane-apps\nproject = tinyparse-api\n\n[auth]\ntoken = {t}\n",
    )
    t = _discord_bot_token(d, "discordjs-config-json")
    add(
        "discordjs-config-json-token-client-guild",
        t,
        json.dumps(
            {
                "token": t,
                "clientId": "1" + d.s("discord-cid", 18, DIGITS),
                "guildId": "1" + d.s("discord-gid", 18, DIGITS),
            },
            indent=2,
        ),
    )
    t = d.s("discord-webhook", 68, BASE64URL)
    add(
        "discord-webhook-url-release-notify-step",
        t,
        f'      - name: Notify Discord\n        run: |\n          curl -H "Content-Type: application/json" -d "{{\\"content\\": \\"tinyparse $TAG released\\"}}" \\\n            https://discord.com/api/webhooks/1{d.s("discord-wh-id", 18, DIGITS)}/{t}\n',
    )
    t = _telegram_bot_token(d, "ptb-builder")
    add(
        "python-telegram-bot-application-builder-token",
        t,
        f'from telegram.ext import ApplicationBuilder, CommandHandler\n\napp = ApplicationBuilder().token("{t}").build()\napp.add_handler(CommandHandler("start", start))\napp.run_polling()\n',
    )
    t = _telegram_bot_token(d, "telegram-sendmessage")
    add(
        "telegram-bot-api-sendmessage-url-in-cron",
        t,
        f'0 9 * * 1 curl -s "https://api.telegram.org/bot{t}/sendMessage?chat_id=-100{d.s("tg-chat", 10, DIGITS)}&text=weekly+stats+ready"\n',
    )
    t = (
        "xapp-1-A"
        + d.s("slack-xapp-a", 10, UPPER_ALNUM)
        + "-"
        + d.s("slack-xapp-b", 13, DIGITS)
        + "-"
        + d.s("slack-xapp", 64, HEX)
    )
    add(
        "slack-bolt-socket-mode-app-token-xapp-dotenv",
        t,
        f"SLACK_BOT_TOKEN={_slack_token(d, 'slack-bolt-bot')}\nSLACK_APP_TOKEN={t}\nSLACK_SIGNING_SECRET=\n",
    )
    t = d.s("slack-webhook-release", 24, ALNUM)
    add(
        "slack-incoming-webhook-url-release-script",
        t,
        f"curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"Released v'$VERSION'\"}}' https://hooks.slack.com/services/T{d.s('slack-wh-t', 10, UPPER_ALNUM)}/B{d.s('slack-wh-b', 10, UPPER_ALNUM)}/{t}\n",
    )
    t = _pem_body_line(d, "gh-app-pem-env")
    add(
        "github-app-private-key-dotenv-multiline-double-quoted",
        t,
        f'APP_ID=912345\nWEBHOOK_SECRET=development\nPRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA{d.s("gh-app-pem-a", 48, BASE64)}\n{t}\n{_pem_body_line(d, "gh-app-pem-c")}\n-----END RSA PRIVATE KEY-----"\n',
    )
    t = d.hex("probot-webhook-secret", 40)
    add(
        "probot-dotenv-webhook-secret-hex",
        t,
        f"# The ID of your GitHub App\nAPP_ID=912345\nWEBHOOK_SECRET={t}\n# Use `trace` to get verbose logging or `info` to show less\nLOG_LEVEL=debug\nPRIVATE_KEY_PATH=tinyparse-bot.2024-11-30.private-key.pem\n",
    )
    t = _npm_token(d, "gh-secret-set-body")
    add(
        "gh-secret-set-body-flag-npm-token",
        t,
        f"$ gh secret set NPM_TOKEN --body {t} --repo janedoe/tinyparse-js\n✓ Set Actions secret NPM_TOKEN for janedoe/tinyparse-js\n",
    )
    t = _github_token(d, "homebrew-token", "ghp_")
    add(
        "zprofile-homebrew-github-api-token-export",
        t,
        f'eval "$(/opt/homebrew/bin/brew shellenv)"\nexport HOMEBREW_NO_ANALYTICS=1\nexport HOMEBREW_GITHUB_API_TOKEN={t}\n',
    )
    t = d.hex("crowdin-token", 80)
    add(
        "crowdin-yml-api-token-literal",
        t,
        f'"project_id": "612345"\n"api_token": "{t}"\n"base_path": "."\n"preserve_hierarchy": true\nfiles:\n  - source: /locales/en.json\n    translation: /locales/%two_letters_code%.json\n',
    )
    t = _jwt(d, "cachix-auth", {"jti": d.uuid("cachix-jti"), "scopes": "cache"})
    add(
        "cachix-authtoken-command-jwt",
        t,
        f"$ cachix authtoken {t}\nWritten to /home/jane/.config/cachix/cachix.dhall\n$ cachix use tinyparse\n",
    )
    t = d.s("vsce-pat", 52, "abcdefghijklmnopqrstuvwxyz234567")
    add(
        "vsce-publish-pat-flag",
        t,
        f"$ npx @vscode/vsce publish -p {t} minor\nExecuting prepublish script 'npm run vscode:prepublish'...\n",
    )
    t = d.uuid("ovsx-pat")
    add("ovsx-publish-pat-flag-open-vsx", t, f"npx ovsx publish tinyparse-0.6.1.vsix -p {t}\n")


def _side_project_saas(d: _Batch10Draw, add: Add) -> None:
    """Payments, auth, mail, databases and hosting in a side project's code, env and CLI files."""
    t = _stripe_key(d, "stripe-cli-config", "rk_test_")
    add(
        "stripe-cli-config-toml-test-mode-api-key",
        t,
        f"color = ''\n\n[default]\ndevice_name = 'janes-mbp'\ndisplay_name = 'Tiny Shop'\ntest_mode_api_key = '{t}'\ntest_mode_key_expires_at = '2025-03-01'\n",
    )
    t = "whsec_" + d.s("stripe-listen", 64, HEX)
    add(
        "stripe-listen-terminal-ready-signing-secret",
        t,
        f"$ stripe listen --forward-to localhost:3000/api/webhooks/stripe\n> Ready! You are using Stripe API Version [2024-06-20]. Your webhook signing secret is {t} (^C to quit)\n",
    )
    t = (
        "pdl_live_apikey_01"
        + d.s("paddle-a", 24, "0123456789abcdefghjkmnpqrstvwxyz")
        + "_"
        + d.s("paddle-b", 22, ALNUM)
        + "_"
        + d.s("paddle-c", 3, ALNUM)
    )
    add(
        "paddle-billing-node-sdk-constructor-live-key",
        t,
        f"import {{ Environment, Paddle }} from '@paddle/paddle-node-sdk'\n\nconst paddle = new Paddle('{t}', {{\n  environment: Environment.production,\n}})\n",
    )
    t = _jwt(
        d,
        "lemonsqueezy",
        {"aud": "1", "jti": d.s("ls-jti", 80, HEX), "sub": "112233", "scopes": []},
        alg="RS256",
    )
    add(
        "lemon-squeezy-setup-apikey-jwt",
        t,
        f'import {{ lemonSqueezySetup }} from "@lemonsqueezy/lemonsqueezy.js";\n\nlemonSqueezySetup({{\n  apiKey: "{t}",\n  onError: (error) => console.error("LS error", error),\n}});\n',
    )
    t = _supabase_jwt(d, "supabase-env-local", "service_role")
    add(
        "supabase-service-role-jwt-env-local-next",
        t,
        f"NEXT_PUBLIC_SUPABASE_URL=https://{d.s('sb-ref', 20, LOWER)}.supabase.co\nNEXT_PUBLIC_SUPABASE_ANON_KEY=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoiYW5vbiJ9.x\nSUPABASE_SERVICE_ROLE_KEY={t}\n",
    )
    t = "sb_secret_" + d.s("sb-secret-py", 31, BASE64URL)
    add(
        "supabase-python-create-client-sb-secret-key",
        t,
        f'from supabase import create_client\n\nsupabase = create_client(\n    "https://{d.s("sb-ref-py", 20, LOWER)}.supabase.co",\n    "{t}",\n)\n',
    )
    t = "sbp_" + d.hex("sbp-access", 40)
    add(
        "supabase-cli-access-token-env-link-command",
        t,
        f"SUPABASE_ACCESS_TOKEN={t} supabase link --project-ref {d.s('sb-ref-cli', 20, LOWER)}\n",
    )
    p = d.human("supabase-pooler")
    add(
        "supabase-pooler-database-url-transaction-mode",
        p,
        f'DATABASE_URL="postgresql://postgres.{d.s("sb-ref-pool", 20, LOWER)}:{p}@aws-0-eu-central-1.pooler.supabase.com:6543/postgres?pgbouncer=true"\n',
    )
    t = "sk_live_" + d.s("clerk-sk", 40, ALNUM)
    add(
        "clerk-secret-key-env-next-beside-publishable",
        t,
        f"NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=pk_live_Y2xlcmsuamFuZS5kZXYk\nCLERK_SECRET_KEY={t}\nNEXT_PUBLIC_CLERK_SIGN_IN_URL=/sign-in\n",
    )
    t = "whsec_" + _b64(d.raw("clerk-svix", 24))
    add("clerk-webhook-signing-secret-svix-whsec", t, f"CLERK_WEBHOOK_SIGNING_SECRET={t}\n")
    t = "re_" + d.s("resend-a", 8, ALNUM) + "_" + d.s("resend-b", 24, ALNUM)
    add(
        "resend-node-constructor-literal-key",
        t,
        f"import {{ Resend }} from 'resend';\n\nconst resend = new Resend('{t}');\n\nawait resend.emails.send({{ from: 'Tiny Shop <hi@tinyshop.dev>', to, subject, html }});\n",
    )
    t = d.uuid("postmark-server")
    add(
        "postmark-server-token-header-curl-email",
        t,
        f'curl "https://api.postmarkapp.com/email" \\\n  -X POST \\\n  -H "Accept: application/json" \\\n  -H "Content-Type: application/json" \\\n  -H "X-Postmark-Server-Token: {t}" \\\n  -d \'{{"From": "hi@tinyshop.dev", "To": "jane@example.dev", "Subject": "test"}}\'\n',
    )
    t = d.s("twilio-api-secret", 32, ALNUM)
    add(
        "twilio-api-key-and-secret-env-pair",
        t,
        f"TWILIO_ACCOUNT_SID=AC{d.hex('twilio-acct', 32)}\nTWILIO_API_KEY=SK{d.hex('twilio-sk', 32)}\nTWILIO_API_SECRET={t}\n",
    )
    t = d.hex("plaid-secret", 30)
    add(
        "plaid-python-configuration-api-key-dict-secret",
        t,
        f"configuration = plaid.Configuration(\n    host=plaid.Environment.Sandbox,\n    api_key={{\n        'clientId': '{d.hex('plaid-cid', 24)}',\n        'secret': '{t}',\n    }}\n)\n",
    )
    t = "access-sandbox-" + d.uuid("plaid-access")
    add(
        "plaid-access-token-console-log-line",
        t,
        f"[server] exchanged public token for item {d.s('plaid-item', 37, ALNUM)}\n[server] access_token: {t}\n",
    )
    t = d.hex("algolia-index-script", 32)
    add(
        "algolia-admin-key-env-prefix-index-script",
        t,
        f"$ ALGOLIA_APP_ID=LATENCY7X ALGOLIA_ADMIN_KEY={t} npm run index:docs\n> indexed 412 records into docs_v2\n",
    )
    t = d.s("cloudinary-secret", 27, BASE64URL)
    add(
        "cloudinary-url-env-api-secret-userinfo",
        t,
        f"CLOUDINARY_URL=cloudinary://{d.s('cloudinary-key', 15, DIGITS)}:{t}@tinyshop\n",
    )
    t = d.hex("pusher-secret", 20)
    add(
        "pusher-server-constructor-secret-option",
        t,
        f'const pusher = new Pusher({{\n  appId: "1{d.s("pusher-app", 6, DIGITS)}",\n  key: "{d.hex("pusher-key", 20)}",\n  secret: "{t}",\n  cluster: "eu",\n  useTLS: true,\n}});\n',
    )
    t = "AX" + d.s("upstash-rest", 60, BASE64URL) + "="
    add(
        "upstash-redis-rest-token-env-pair",
        t,
        f'UPSTASH_REDIS_REST_URL="https://eu1-lucky-marmot-31234.upstash.io"\nUPSTASH_REDIS_REST_TOKEN="{t}"\n',
    )
    t = "sig_" + d.s("qstash-signing", 28, ALNUM)
    add(
        "upstash-qstash-current-signing-key-env",
        t,
        f"QSTASH_URL=https://qstash.upstash.io\nQSTASH_TOKEN=\nQSTASH_CURRENT_SIGNING_KEY={t}\nQSTASH_NEXT_SIGNING_KEY=\n",
    )
    t = "napi_" + d.s("neon-api", 60, LOWER_ALNUM)
    add(
        "neon-api-key-bearer-curl-projects",
        t,
        f"curl 'https://console.neon.tech/api/v2/projects' -H 'Accept: application/json' -H 'Authorization: Bearer {t}' | jq\n",
    )
    t = "npg_" + d.s("neon-npg", 12, ALNUM)
    add(
        "drizzle-config-ts-neon-url-npg-password",
        t,
        f'import {{ defineConfig }} from "drizzle-kit";\n\nexport default defineConfig({{\n  schema: "./src/db/schema.ts",\n  dialect: "postgresql",\n  dbCredentials: {{\n    url: "postgresql://neondb_owner:{t}@ep-{d.s("neon-ep", 8, LOWER)}-pooler.eu-central-1.aws.neon.tech/neondb?sslmode=require",\n  }},\n}});\n',
    )
    t = "pscale_pw_" + d.s("pscale-pw", 43, BASE64URL)
    add(
        "planetscale-mysql-url-pscale-pw-prisma-env",
        t,
        f"DATABASE_URL='mysql://{d.s('pscale-user', 12, LOWER_ALNUM)}:{t}@aws.connect.psdb.cloud/tinyshop?sslaccept=strict'\n",
    )
    t = _jwt(
        d, "turso-token", {"a": "rw", "iat": 1733000000, "id": d.uuid("turso-id")}, alg="EdDSA"
    )
    add(
        "turso-libsql-create-client-auth-token",
        t,
        f'import {{ createClient }} from "@libsql/client";\n\nexport const db = createClient({{\n  url: "libsql://tinyshop-janedoe.turso.io",\n  authToken: "{t}",\n}});\n',
    )
    t = d.s("vercel-auth-json", 24, ALNUM)
    add(
        "vercel-cli-auth-json-token-file",
        t,
        json.dumps(
            {
                "// Note": "This is your Vercel credentials file. DO NOT SHARE!",
                "// Docs": "https://vercel.com/docs/projects/project-configuration/global-configuration#auth.json",
                "token": t,
            },
            indent=2,
        ),
    )
    t = "nfp_" + d.s("netlify-config-json", 40, ALNUM)
    uid = d.s("netlify-uid", 24, HEX)
    add(
        "netlify-cli-config-json-users-auth-token",
        t,
        json.dumps(
            {
                "telemetryDisabled": True,
                "userId": uid,
                "users": {uid: {"id": uid, "name": "Jane", "auth": {"token": t, "github": {}}}},
            },
            indent=2,
        ),
    )
    p = d.human("fly-secrets-set")
    add(
        "fly-secrets-set-database-url-command",
        p,
        f"$ fly secrets set DATABASE_URL=postgres://tinyshop:{p}@tinyshop-db.flycast:5432/tinyshop?sslmode=disable\nUpdating existing machines in 'tinyshop' with rolling strategy\n",
    )
    t = d.uuid("railway-token")
    add(
        "railway-token-workflow-env-literal",
        t,
        f"      - run: npm i -g @railway/cli\n      - run: railway up --service api\n        env:\n          RAILWAY_TOKEN: {t}\n",
    )
    t = "rnd_" + d.s("render-api", 32, ALNUM)
    add(
        "render-api-key-bearer-deploy-hook-script",
        t,
        f'curl --request POST --url https://api.render.com/v1/services/srv-{d.s("render-srv", 20, LOWER_ALNUM)}/deploys --header "authorization: Bearer {t}"\n',
    )
    t = _pem_body_line(d, "firebase-admin-env")
    add(
        "firebase-admin-env-private-key-escaped-newlines",
        t,
        f'FIREBASE_PROJECT_ID=tinyshop-7c1e\nFIREBASE_CLIENT_EMAIL=firebase-adminsdk-x1y2z@tinyshop-7c1e.iam.gserviceaccount.com\nFIREBASE_PRIVATE_KEY="-----BEGIN PRIVATE KEY-----\\nMIIEvgIBADANBgkqhkiG9w0BAQEFAASC\\n{t}\\n-----END PRIVATE KEY-----\\n"\n',
    )
    t = _b64(
        json.dumps(
            {
                "apiKey": "sk_live_" + d.s("uploadthing-inner", 64, HEX),
                "appId": d.s("ut-app", 10, LOWER_ALNUM),
                "regions": ["sea1"],
            },
            separators=(",", ":"),
        )
    )
    add("uploadthing-token-env-base64-json", t, f"UPLOADTHING_TOKEN='{t}'\n")
    t = "prod:" + "happy-otter-123|" + _b64(d.raw("convex-deploy", 60))
    add(
        "convex-deploy-key-env-prod-prefix",
        t,
        f"CONVEX_DEPLOY_KEY={t} npx convex deploy --cmd 'npm run build'\n",
    )


def _chats_and_terminal(d: _Batch10Draw, add: Add) -> None:
    """Issues, chat messages and terminal sessions where someone pastes or prints a secret."""
    t = _openai_key(d, "issue-env-block")
    add(
        "github-issue-bug-report-environment-section-env-block",
        t,
        f"### Describe the bug\nChat panel stays empty after the first message.\n\n### Environment\n```\nOS: macOS 14.6\nplugin: 0.9.2\nOPENAI_API_KEY={t}\n```\n\n### Logs\n_No response_\n",
    )
    t = _discord_bot_token(d, "discord-help-paste")
    add(
        "discord-help-channel-message-client-login-snippet",
        t,
        f"jane — Today at 14:02\nbot just won't come online, no errors?? \n```js\nclient.once(Events.ClientReady, c => console.log(`Ready as ${{c.user.tag}}`));\nclient.login('{t}');\n```\n",
    )
    t = d.hex("so-twilio-auth", 32)
    add(
        "forum-question-code-block-twilio-auth-token",
        t,
        f"**Twilio SMS returns 20003 Authenticate**\n\nI copied the token straight from the console, what am I missing?\n\n    client = Client('AC{d.hex('so-twilio-sid', 32)}', '{t}')\n    client.messages.create(to='+31600000000', from_='+3197010200000', body='hi')\n",
    )
    t = _stripe_key(d, "vercel-env-pull", "sk_live_")
    add(
        "terminal-vercel-env-pull-then-cat-env-local",
        t,
        f'$ vercel env pull .env.local\n> Downloading `development` Environment Variables for janedoe/tinyshop\n✅  Created .env.local file  [312ms]\n$ cat .env.local\n# Created by Vercel CLI\nSTRIPE_SECRET_KEY="{t}"\nVERCEL_ENV="development"\n',
    )
    t = _hf_token(d, "env-grep-token")
    add(
        "terminal-env-grep-i-token-output",
        t,
        f"$ env | grep -i token\nGITHUB_TOKEN=\nHF_TOKEN={t}\nTERM_SESSION_ID=w0t0p0:4B2F\n",
    )
    t = _anthropic_key(d, "pytest-locals")
    add(
        "pytest-l-failure-locals-table-api-key",
        t,
        f"    def test_summarise_calls_api(client):\n>       assert summarise(client, 'hello') == 'hi'\nE       AssertionError: assert None == 'hi'\n\napi_key    = '{t}'\nclient     = <anthropic.Anthropic object at 0x104e2b4d0>\n\ntests/test_summarise.py:14: AssertionError\n",
    )
    p = d.human("docker-inspect-env")
    add(
        "docker-inspect-config-env-array-output",
        p,
        f'$ docker inspect immich_postgres --format \'{{{{json .Config.Env}}}}\' | jq\n[\n  "POSTGRES_PASSWORD={p}",\n  "POSTGRES_USER=postgres",\n  "POSTGRES_DB=immich",\n  "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"\n]\n',
    )
    p = d.human("kubectl-base64-d")
    add(
        "kubectl-get-secret-jsonpath-base64-decode-prompt-glued",
        p,
        f"jane@k3s-1:~$ kubectl get secret -n monitoring grafana -o jsonpath='{{.data.admin-password}}' | base64 -d\n{p}jane@k3s-1:~$ \n",
    )
    t = _github_token(d, "gh-auth-token-out", "gho_")
    add(
        "gh-auth-token-command-printed-output",
        t,
        f"$ gh auth token\n{t}\n$ gh auth status\ngithub.com\n  ✓ Logged in to github.com account janedoe (keyring)\n",
    )
    t = _aws_secret(d, "aws-export-creds")
    add(
        "aws-configure-export-credentials-env-format-output",
        t,
        f"$ aws configure export-credentials --profile personal --format env\nexport AWS_ACCESS_KEY_ID={_aws_key_id(d, 'aws-export-id')}\nexport AWS_SECRET_ACCESS_KEY={t}\n",
    )
    t = _github_token(d, "git-push-fatal", "ghp_")
    add(
        "git-push-fatal-authentication-failed-url-with-token",
        t,
        f"$ git push origin main\nremote: Invalid username or token. Password authentication is not supported for Git operations.\nfatal: Authentication failed for 'https://janedoe:{t}@github.com/janedoe/tinyparse.git/'\n",
    )
    p = d.human("reddit-compose")
    add(
        "selfhosted-forum-post-compose-environment-list",
        p,
        f"Nextcloud AIO keeps restarting, any idea? My compose:\n\n```yaml\n  db:\n    image: mariadb:11\n    environment:\n      - MYSQL_ROOT_PASSWORD={p}\n      - MYSQL_DATABASE=nextcloud\n```\n\nEdit: formatting\n",
    )
    t = _stripe_key(d, "git-show-removed", "sk_test_")
    add(
        "git-show-commit-diff-removed-hardcoded-key-line",
        t,
        f"commit 4f1c2e9\nAuthor: Jane Doe <jane@example.dev>\n\n    remove hardcoded stripe key\n\ndiff --git a/src/lib/stripe.ts b/src/lib/stripe.ts\n@@ -1,3 +1,3 @@\n-export const stripe = new Stripe('{t}');\n+export const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!);\n",
    )
    t = _hf_token(d, "matrix-inline-code")
    add(
        "matrix-room-message-inline-code-token",
        t,
        f"<jane> ok try with my read token for now: `{t}` — I'll revoke it tonight\n<sam> works, thanks!\n",
    )


_PARTS = (
    _ai_assistants,
    _dotfiles,
    _data_science,
    _mobile_and_games,
    _home_lab,
    _maintainer,
    _side_project_saas,
    _chats_and_terminal,
)

# Every kind of this batch, written out literally; all of them are held out.
NAMES: frozenset[str] = frozenset(
    {
        "act-secrets-file-unity-password",
        "aichat-config-yaml-openai-compatible-client-api-key",
        "aider-cli-api-key-flag-in-zsh-history",
        "aider-conf-yml-api-key-list-provider-equals",
        "airflow-conn-env-uri-percent-encoded-password",
        "algolia-admin-key-env-prefix-index-script",
        "app-store-connect-authkey-p8-file-body-line",
        "aws-config-credential-process-echo-json-secret",
        "aws-configure-export-credentials-env-format-output",
        "aws-credentials-second-profile-personal-secret",
        "bash-history-curl-fine-grained-pat-header",
        "bashrc-shell-function-inline-env-key",
        "bigquery-service-account-json-in-notebook-folder-private-key-line",
        "build-gradle-kts-signing-config-literal-store-password",
        "butler-itchio-api-key-env-push",
        "cachix-authtoken-command-jwt",
        "cargo-credentials-toml-alternative-registry-kellnr",
        "cargo-publish-token-flag-release-script",
        "cargo-registry-token-env-workflow-literal",
        "claude-code-mcp-add-env-flag-sentry-user-token",
        "claude-code-settings-json-env-auth-token-openrouter",
        "claude-desktop-config-mcp-github-server-env-pat",
        "claude-md-project-memory-staging-admin-login",
        "clearml-conf-api-credentials-secret-key",
        "clerk-secret-key-env-next-beside-publishable",
        "clerk-webhook-signing-secret-svix-whsec",
        "cline-mcp-settings-json-firecrawl-env",
        "cloudflared-tunnel-run-token-compose-command",
        "cloudinary-url-env-api-secret-userinfo",
        "codecov-yml-codecov-token-literal",
        "codex-cli-config-toml-mcp-servers-env-inline-table",
        "colab-cell-bang-huggingface-cli-login-token-flag",
        "comet-config-file-api-key",
        "continue-config-json-tab-autocomplete-codestral-key",
        "continue-config-yaml-models-anthropic-apikey",
        "convex-deploy-key-env-prod-prefix",
        "coveralls-yml-repo-token-file",
        "crowdin-yml-api-token-literal",
        "cursor-project-mcp-json-brave-search-env-key",
        "cursorrules-instructions-test-api-key-sentence",
        "databrickscfg-default-profile-token-dapi",
        "davfs2-secrets-nextcloud-app-password-line",
        "dbt-profiles-yml-env-var-default-literal-password",
        "dbt-profiles-yml-snowflake-target-password",
        "direnv-envrc-source-up-digitalocean-token",
        "discord-help-channel-message-client-login-snippet",
        "discord-webhook-url-release-notify-step",
        "discordjs-config-json-token-client-guild",
        "docker-config-json-auths-ghcr-base64-userinfo",
        "docker-inspect-config-env-array-output",
        "docker-login-echo-pat-password-stdin-history",
        "dot-profile-export-cloudflare-api-token-comment",
        "drizzle-config-ts-neon-url-npg-password",
        "duckdns-update-crontab-token-query",
        "dvc-config-local-remote-s3-secret-access-key",
        "dvc-remote-modify-local-gdrive-client-secret",
        "esphome-secrets-yaml-wifi-password",
        "esphome-yaml-api-encryption-key",
        "esphome-yaml-ota-password-and-fallback-ap",
        "expo-app-json-extra-field-openai-key",
        "expo-eas-json-build-profile-env-sentry-token",
        "expo-token-github-actions-env-literal",
        "fabric-config-dotenv-default-vendor-anthropic",
        "fastfile-app-store-connect-api-key-inline-key-content",
        "fastlane-env-default-app-specific-password",
        "fastlane-match-password-dotenv-ci",
        "fastlane-matchfile-git-basic-authorization-base64",
        "firebase-admin-env-private-key-escaped-newlines",
        "firebase-fcm-legacy-server-key-curl-header",
        "firebase-google-services-json-current-key",
        "firebase-googleservice-info-plist-api-key",
        "firebase-tools-login-ci-token-output",
        "fish-config-set-ux-hf-token",
        "fish-variables-setuvar-export-universal",
        "fly-secrets-set-database-url-command",
        "flyctl-config-yml-access-token-flyv1",
        "forum-question-code-block-twilio-auth-token",
        "frigate-config-yml-rtsp-camera-url-password",
        "gameci-workflow-unity-serial-literal",
        "gcloud-application-default-credentials-json-refresh-token",
        "gem-host-api-key-env-rake-release",
        "gemini-cli-settings-json-mcp-servers-gitlab-env",
        "gh-auth-token-command-printed-output",
        "gh-hosts-yml-enterprise-host-oauth-token",
        "gh-secret-set-body-flag-npm-token",
        "git-credentials-store-second-line-gitea-token",
        "git-push-fatal-authentication-failed-url-with-token",
        "git-show-commit-diff-removed-hardcoded-key-line",
        "gitconfig-credential-helper-inline-shell-function-token",
        "github-app-private-key-dotenv-multiline-double-quoted",
        "github-issue-bug-report-environment-section-env-block",
        "glab-cli-config-yml-hosts-token",
        "godot-export-credentials-cfg-keystore-release-password",
        "google-oauth-client-secret-json-installed-app-gocspx",
        "goose-config-yaml-extension-envs-notion-token",
        "goreleaser-release-github-token-env-prefix",
        "gotify-message-curl-token-query-param",
        "gradio-launch-auth-tuple-share-link",
        "gradle-properties-mapbox-downloads-token",
        "gradle-properties-maven-central-portal-password",
        "gradle-user-home-properties-upload-store-password",
        "great-expectations-config-variables-yml-credentials",
        "hass-cli-server-and-token-env-exports",
        "hatch-config-toml-publish-index-auth",
        "headscale-preauthkeys-create-output-then-up",
        "home-assistant-rest-command-authorization-bearer-ll-token",
        "home-assistant-secrets-yaml-mqtt-password-among-others",
        "huggingface-stored-tokens-ini-named-token",
        "ipynb-cell-source-list-kaggle-key-assignment",
        "ipynb-output-stream-text-environ-dump",
        "jellyfin-api-key-query-in-homepage-widget",
        "jreleaser-env-gpg-passphrase-dotfile",
        "jupyter-lab-startup-log-url-token-query",
        "jupyter-server-config-py-serverapp-token",
        "kaggle-json-username-key-file",
        "keystore-properties-flutter-android-key-password",
        "kubeconfig-k3s-homelab-client-key-data",
        "kubectl-get-secret-jsonpath-base64-decode-prompt-glued",
        "label-studio-api-token-header-export-tasks",
        "langsmith-dotenv-api-key-lsv2-tracing-block",
        "lemon-squeezy-setup-apikey-jwt",
        "litellm-config-model-list-azure-api-key-literal",
        "litellm-proxy-config-general-settings-master-key",
        "llm-cli-keys-json-file-gemini-entry",
        "makefile-docker-login-p-flag-pat",
        "matrix-room-message-inline-code-token",
        "maven-central-portal-settings-xml-user-token",
        "mcp-remote-header-arg-authorization-bearer-literal",
        "mcp-server-postgres-args-connection-url-password",
        "mlflow-tracking-basic-auth-env-pair",
        "mods-yml-apis-mistral-api-key-field",
        "neon-api-key-bearer-curl-projects",
        "neptune-api-token-env-base64-json",
        "netlify-cli-config-json-users-auth-token",
        "netrc-heroku-api-and-git-machines",
        "netrc-mapbox-downloads-ios-sdk-secret-token",
        "netrc-wandb-api-machine-written-by-login",
        "nextcloud-occ-resetpassword-oc-pass-env",
        "notebook-cell-replicate-api-token-environ",
        "npm-publish-workflow-node-auth-token-literal",
        "npmrc-project-root-committed-publish-token",
        "ntfy-access-token-bearer-backup-script",
        "open-webui-compose-openai-api-keys-semicolon-list",
        "opencode-json-provider-options-apikey-groq",
        "ovsx-publish-pat-flag-open-vsx",
        "p4config-file-p4passwd-line",
        "paddle-billing-node-sdk-constructor-live-key",
        "paperless-ngx-docker-compose-env-secret-key",
        "pihole-setpassword-command-in-history",
        "pihole-setupvars-conf-webpassword-double-sha256",
        "plaid-access-token-console-log-line",
        "plaid-python-configuration-api-key-dict-secret",
        "planetscale-mysql-url-pscale-pw-prisma-env",
        "playfab-server-api-x-secretkey-header-curl",
        "plex-x-plex-token-library-refresh-url",
        "portainer-api-key-header-stacks-call",
        "postmark-server-token-header-curl-email",
        "prefect-profiles-toml-api-key-pnu",
        "probot-dotenv-webhook-secret-hex",
        "proxmox-api-header-pveapitoken-curl",
        "proxmox-terraform-tfvars-api-token-secret",
        "pusher-server-constructor-secret-option",
        "pypirc-pypi-section-dunder-token-username",
        "pytest-l-failure-locals-table-api-key",
        "python-telegram-bot-application-builder-token",
        "railway-token-workflow-env-literal",
        "rclone-conf-b2-remote-key-field",
        "rclone-conf-cloudflare-r2-secret-access-key",
        "rclone-conf-webdav-nextcloud-obscured-pass",
        "react-native-config-env-production-onesignal-rest-key",
        "release-sh-twine-password-env-prefix",
        "render-api-key-bearer-deploy-hook-script",
        "renviron-github-pat-for-remotes",
        "resend-node-constructor-literal-key",
        "rprofile-sys-setenv-anthropic-key",
        "rsconnect-setaccountinfo-shinyapps-secret",
        "s3cmd-s3cfg-wasabi-host-base-secret-key",
        "selfhosted-forum-post-compose-environment-list",
        "sentry-sdk-init-dsn-public-key-python",
        "sentryclirc-auth-token-sntryu",
        "shell-gpt-sgptrc-openai-key-among-defaults",
        "slack-bolt-socket-mode-app-token-xapp-dotenv",
        "slack-incoming-webhook-url-release-script",
        "snowflake-connections-toml-named-connection-password",
        "snowsql-config-connections-section-password",
        "sonar-project-properties-sonar-token-sqp",
        "sonarr-config-xml-apikey-element",
        "ssh-config-host-block-comment-sudo-password",
        "steam-web-api-key-query-player-summaries",
        "steamcmd-login-run-app-build-command",
        "streamlit-secrets-toml-connections-postgres-password",
        "stripe-cli-config-toml-test-mode-api-key",
        "stripe-listen-terminal-ready-signing-secret",
        "supabase-cli-access-token-env-link-command",
        "supabase-pooler-database-url-transaction-mode",
        "supabase-python-create-client-sb-secret-key",
        "supabase-service-role-jwt-env-local-next",
        "synology-api-python-filestation-positional-password",
        "tailscale-api-key-curl-basic-user-colon",
        "tailscale-operator-helm-set-oauth-client-secret",
        "tasmota-console-backlog-mqtt-password",
        "tea-cli-config-yml-gitea-login-token",
        "telegram-bot-api-sendmessage-url-in-cron",
        "terminal-env-grep-i-token-output",
        "terminal-vercel-env-pull-then-cat-env-local",
        "terraformrc-credentials-block-app-terraform-io",
        "truenas-api-key-bearer-curl-pool-query",
        "turso-libsql-create-client-auth-token",
        "twilio-api-key-and-secret-env-pair",
        "unifi-network-integration-api-x-api-key-header",
        "unity-cloud-build-api-basic-key-curl",
        "unity-playfab-shared-settings-asset-developer-secret",
        "unreal-defaultengine-ini-eos-artifact-client-secret",
        "uploadthing-token-env-base64-json",
        "upstash-qstash-current-signing-key-env",
        "upstash-redis-rest-token-env-pair",
        "uv-publish-token-flag-terminal",
        "vaultwarden-env-admin-token-plain-base64",
        "vercel-cli-auth-json-token-file",
        "vsce-publish-pat-flag",
        "vscode-mcp-json-http-server-headers-context7-key",
        "wandb-login-key-kwarg-training-script",
        "wg-easy-compose-password-hash-dollar-escaped",
        "windsurf-mcp-config-json-tavily-key-in-args",
        "wireguard-client-conf-peer-preshared-key",
        "wireguard-wg0-conf-interface-private-key",
        "xcconfig-secrets-file-sentry-auth-token",
        "zigbee2mqtt-configuration-yaml-mqtt-password",
        "zprofile-homebrew-github-api-token-export",
        "zsh-history-extended-format-export-line",
        "zshrc-alias-curl-with-embedded-token",
    }
)

SPLIT_SEED: Final = 20261207
"""Fixed before the redactor first saw this batch: the sorted names shuffled by it, a third held out."""

_TUNE, _HELD_OUT = split_a_third(sorted(NAMES), SPLIT_SEED)
TUNE: frozenset[str] = frozenset(_TUNE)
"""Two thirds: counted and named at the first look; rules may be changed looking at these."""
HELD_OUT: frozenset[str] = frozenset(_HELD_OUT)
"""A third: counted at the first look, never named; looked at once, after tuning on :data:`TUNE`."""

# Kinds still stored after the held-out look and the fixes that followed it.
STILL_STORED: frozenset[str] = frozenset()


def build_tenth_batch(seed: int) -> list[UnlistedSample]:
    """Every sample of this batch, drawn from *seed* (same seed, same corpus)."""
    return draw_batch(_Batch10Draw(seed), _PARTS, frozenset(), NAMES)


def older_names() -> set[str]:
    """The kind names of the nine earlier corpora, which this batch must not repeat."""
    return names_before_ninth() | set(NINTH_NAMES)
