# ruff: noqa: E501  (realistic config and shell lines are long; they are data here)
"""An eighth batch of credential kinds, written without reading the redactor's rules.

How it was written: the author read only the corpus format in
:mod:`tests.support.unlisted_secrets` (``UnlistedSample``, ``_Draw``, the alphabets,
``draw_batch``, the shape checks), the code layout and the kind *names* of the seventh batch
(and the names of the earlier batches, to repeat none), the helper signatures imported below,
and the corpus-shape tests at the top of ``tests/brain/test_redact_seventh_batch.py``. Nothing
under ``server/`` or ``bench/``, no README/ARCHITECTURE/CHANGELOG/docs, no git history; the
redactor was never imported or run and ``stored_kinds`` was never called. In passing, the
docstring of ``unlisted_secrets.py`` (which gives earlier stored counts, a few earlier stored kind
names and a one-line list of the general areas later rules covered) and the docstring of the
seventh batch's test module (an aggregate stored count) were read; no rule's code and no result
on this batch was seen. The formats come from providers' public
documentation of their tokens and from the documented syntax of the files and tools below.

Every value is FAKE, drawn from the seed with the provider's length, alphabet, prefix and (for
GitHub-style tokens) checksum; passwords are drawn the way people pick them (a word or two,
digits, a symbol, a few more characters). Every kind is unseen. Unlike the fifth to seventh
batches, this one is split as the issue asks, by the lead, before any run: the sorted names
shuffled by :data:`SPLIT_SEED`, a third held out (:data:`HELD_OUT`), the rest to tune on
(:data:`TUNE`).

What it covers, in proportion to what a coding assistant meets in a workspace: 266 kinds, about
three quarters (203) in ordinary places and a quarter (63: the last four parts, the ten
non-English messages and newer providers' formats elsewhere) less common but real:

* shell profiles and env files (``.envrc``, ``.zshenv``, ``environment.d``, ``/etc/environment``,
  ``~/.pam_environment``, tmux, ssh ``SetEnv``, heredocs, duplicated keys, ``#`` in values) and
  task runners (poe, nox, Rake, conda ``environment.yml``);
* framework configuration: Django, Rails, Laravel, Spring, .NET appsettings/user secrets/
  ``web.config``, Next.js, Nest, FastAPI, Flask, Symfony, Angular, Gatsby, Ktor, Rocket, Express,
  Strapi, Ghost, Discourse, Mastodon, Gitea, Keycloak, n8n, PrestaShop, TYPO3, Moodle, MediaWiki;
* client code building SDK clients in Python, TS/JS, Go, Java, Kotlin, C#, Ruby, PHP, Rust,
  Swift, Dart, Elixir, Scala, C++, Lua, Perl and Haskell;
* test fixtures and seed scripts; docker-compose, Kubernetes, Helm, Terraform state and logs,
  Pulumi, Ansible, CI files (Semaphore, AppVeyor, GitHub Actions inputs), Kamal, DO app specs,
  Loki and OpenTelemetry configs; connection strings for databases and queues; IDE and tool
  config files (VS Code, Continue, opencode, ``llm``, Thunder Client, yarn v1, bundler,
  Terraform/Pulumi/ngrok/Vercel/configstore credential files);
* terminal and agent output (``gh auth status --show-token``, ``git remote -v``, ``kubectl get
  secret -o json``, AWS/Azure/gcloud CLI output, ``op item get``, ``supabase status``, agent tool
  results as JSON, numbered file reads, MCP results), logs and traces (Rich tracebacks, Ruby
  exceptions, Whoops, Django's debug page, syslog, ``set -x``, mitmdump, TF_LOG, OTel spans),
  HTTP dumps, issue/PR/commit text and notes;
* less common: newer providers' formats (Paddle, Upstash, Vercel Blob, Svix, UploadThing,
  ImageKit, Stream, Unleash, GitLab feature-flag tokens, Trigger.dev, Inngest, Brave Search,
  Jina, NVIDIA NIM, Perplexity, OpenRouter), regional clouds and apps (Alibaba OSS, Tencent COS,
  Baidu BCE, Volcengine, Yandex Object Storage, Kakao, WeChat, DingTalk, Feishu, YooKassa, LINE,
  Azure China, Azure IoT Hub), devices and home labs (Arduino/ESP32, Zigbee2MQTT, Frigate,
  Pi-hole, Proxmox, TrueNAS, Jellyfin, Homebridge, iDRAC, Vaultwarden), password-manager
  exports (LastPass, KeePass XML, Enpass), prose in ten languages other than English, and values
  escaped the way tools write them (Go's ``\\u0026``, CDATA, ``\\|`` in Markdown tables, doubled
  SQL quotes, PowerShell backticks, C escapes, properties continuation lines, URL-encoding).

First look, by the lead (``python -m bench.redaction --arm eighth``, 20 seeds, a kind "stored"
when an 8-character piece of its secret survives ``redact`` in any run), once per part. The split
was committed (``41caf8f``) before the redactor first ran on the batch. On the redactor as the
stop found it, with the stop's leak fixes for earlier batches (``5dacc15``): **23 of 178 tune and
19 of 88 held-out kinds stored** (42 of 266, 16 %; the held-out part counted, not named). The last
line alone (every named rule off, caught in every seed of 0-4) caught 131 of 178 tune and 61 of 88
held-out kinds (72 %). Rules were then changed by a helper looking at tune misses only (printed
through a script that names tune kinds alone), each for a family (a typed passphrase's shape, a
password stated in a sentence in any language, what a command that reveals a stored secret prints,
values escaped by their host syntax, positional credentials, ``user:password`` handed to a base64
encoder), until tune stored 4 of 178. The held-out part, looked at once after that (``00169eb``):
**12 of 88 stored (14 %)** -- the held-out result: tuning carried 7 of 19 over (22 % -> 14 %),
about as the fourth batch's did (20 -> 14 of 88).
"""

from __future__ import annotations

import base64
import json
import random
import string
from typing import Final
from urllib.parse import quote

from tests.support.fourth_batch_secrets import _github_token
from tests.support.seventh_batch_secrets import NAMES as SEVENTH_NAMES
from tests.support.seventh_batch_secrets import (
    _anthropic_key,
    _aws_key_id,
    _aws_secret,
    _azure_ad_secret,
    _Batch7Draw,
    _jwt,
    _openai_key,
    _stripe_key,
)
from tests.support.seventh_batch_secrets import older_names as names_before_seventh
from tests.support.sixth_batch_secrets import DIGITS, LOWER, _b64, _b64url
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
CROCKFORD_LOWER = "0123456789abcdefghjkmnpqrstvwxyz"

_WORDS = (
    "Sunflower", "Riverbank", "Pancake", "Marmot", "Kestrel", "Juniper", "Nebula", "Pistachio",
    "Lighthouse", "Gecko", "Soleil", "Kirsche", "Mariposa", "Zorro", "Bluebird", "Waffle",
    "Otter", "Cobalt", "Hedgehog", "Tangerine", "Saturn", "Biscuit", "Fjord", "Paprika",
)  # fmt: skip


class _Batch8Draw(_Batch7Draw):
    """The same draws as the earlier corpora, from a stream of their own."""

    def rng(self, label: str) -> random.Random:
        return _Draw.rng(self, f"batch8/{label}")

    def human(self, label: str, symbols: str = "!*_.-#") -> str:
        """A password a person picked: words, digits, a symbol, a few more characters."""
        rng = self.rng(label)
        a, b = rng.choice(_WORDS), rng.choice(_WORDS).lower()
        digits = str(rng.randrange(10, 9999))
        sym = rng.choice(symbols)
        tail = "".join(rng.choice(ALNUM) for _ in range(rng.randrange(3, 6)))
        style = rng.randrange(4)
        if style == 0:
            return f"{a}{digits}{sym}{tail}"
        if style == 1:
            return f"{a}{sym}{b}{sym}{digits}{tail}"
        if style == 2:
            leet = a.replace("a", "4").replace("o", "0").replace("e", "3")
            return f"{tail}{leet}{digits}{sym}"
        return f"{a}{b.capitalize()}{sym}{digits}{tail}"


def _rich_panel(title: str, lines: list[str], width: int) -> str:
    """A box the way Rich draws a traceback or its locals, *width* characters wide."""
    inner = width - 4
    rule = "\u2500"
    top = "\u256d" + f" {title} ".center(width - 2, rule) + "\u256e"
    body = [f"\u2502 {line.ljust(inner)} \u2502" for line in lines]
    bottom = "\u2570" + "\u2500" * (width - 2) + "\u256f"
    return "\n".join([top, *body, bottom]) + "\n"


def _pem_line(d: _Batch8Draw, label: str) -> str:
    """One 64-character base64 line of a PEM body."""
    return _b64(d.raw(label, 48))


def _sendgrid(d: _Batch8Draw, label: str) -> str:
    return "SG." + d.s(label + "-a", 22, BASE64URL) + "." + d.s(label + "-b", 43, BASE64URL)


def _vault_token(d: _Batch8Draw, label: str) -> str:
    return "hvs.CAESI" + d.s(label, 86, BASE64URL)


def _google_refresh(d: _Batch8Draw, label: str) -> str:
    return "1//0" + d.s(label, 99, BASE64URL)


def _aws_session_token(d: _Batch8Draw, label: str) -> str:
    return "IQoJb3JpZ2luX2VjE" + _b64(d.raw(label, 300))


def _shell_and_env(d: _Batch8Draw, add: Add) -> None:
    t = "pplx-" + d.s("envrc-pplx", 48, ALNUM)
    add(
        "envrc-dotenv-if-exists-then-export-perplexity-key",
        t,
        f"# .envrc\nuse flake\ndotenv_if_exists .env.local\nexport PERPLEXITY_API_KEY={t}\nwatch_file flake.lock\n",
    )
    t = "sk-or-v1-" + d.s("profile-openrouter", 64, HEX)
    add(
        "bash-profile-export-openrouter-key-trailing-comment",
        t,
        f'# ~/.bash_profile\nexport PATH="$HOME/.local/bin:$PATH"\nexport OPENROUTER_API_KEY="{t}"   # personal key, billed to my card\n',
    )
    t = "nvapi-" + d.s("zshenv-nvapi", 64, BASE64URL)
    add(
        "zshenv-typeset-x-nvidia-nim-key",
        t,
        f"# ~/.zshenv\ntypeset -U path\ntypeset -x NVIDIA_API_KEY='{t}'\n",
    )
    t = "fw_" + d.s("ps-fireworks", 24, ALNUM)
    add(
        "powershell-profile-hashtable-getenumerator-set-env",
        t,
        "# Microsoft.PowerShell_profile.ps1\n@{\n    FIREWORKS_API_KEY = '"
        + t
        + "'\n    HF_HOME           = 'D:\\hf-cache'\n}.GetEnumerator() | ForEach-Object { Set-Item -Path \"env:$($_.Key)\" -Value $_.Value }\n",
    )
    t = (
        "pdl_live_apikey_01"
        + d.s("dotenv-paddle-a", 24, CROCKFORD_LOWER)
        + "_"
        + d.s("dotenv-paddle-b", 22, ALNUM)
        + "_"
        + d.s("dotenv-paddle-c", 3, ALNUM)
    )
    add(
        "dotenv-duplicate-key-later-line-wins-paddle-key",
        t,
        f"PADDLE_ENVIRONMENT=production\nPADDLE_API_KEY=pdl_sdbx_apikey_REPLACE_ME\nPADDLE_WEBHOOK_PATH=/hooks/paddle\n\n# overrides (do not commit)\nPADDLE_API_KEY={t}\n",
    )
    p = d.human("dotenv-hash-pw") + "#" + d.s("dotenv-hash-tail", 4, ALNUM)
    add(
        "dotenv-unquoted-password-containing-hash-then-comment",
        p,
        f"SMTP_HOST=smtp.office365.com\nSMTP_USER=noreply@acme.example\nSMTP_PASSWORD={p}   # rotated in March\n",
    )
    t = "hf_" + d.s("envrc-hf", 34, string.ascii_letters)
    add(
        "envrc-shell-default-expansion-hf-token",
        t,
        f'export HF_HOME="$PWD/.hf"\nexport HF_TOKEN="${{HF_TOKEN:-{t}}}"\n',
    )
    t = _anthropic_key(d, "environment-d-anthropic")
    add(
        "environment-d-user-conf-anthropic-key",
        t,
        f"# ~/.config/environment.d/60-ai.conf  (read by systemd --user at login)\nEDITOR=nvim\nANTHROPIC_API_KEY={t}\n",
    )
    p = d.human("etc-environment-proxy", symbols="!*_.-")
    add(
        "etc-environment-proxy-url-userinfo-password",
        p,
        f'PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"\nhttp_proxy="http://jdoe:{p}@proxy.corp.example:3128/"\nhttps_proxy="http://jdoe:{p}@proxy.corp.example:3128/"\nno_proxy="localhost,127.0.0.1,.corp.example"\n',
    )
    t = _openai_key(d, "pam-env-openai")
    add(
        "pam-environment-default-openai-key",
        t,
        f"# ~/.pam_environment\nLANG            DEFAULT=en_US.UTF-8\nOPENAI_API_KEY  DEFAULT={t}\n",
    )
    t = "key_" + d.s("dotenv-vault-key", 64, HEX)
    add(
        "dotenv-vault-dotenv-key-uri",
        t,
        f'# production decrypt key for .env.vault\nDOTENV_KEY="dotenv://:{t}@dotenv.org/vault/.env.vault?environment=production"\n',
    )
    t = _sendgrid(d, "heredoc-read-sendgrid")
    add(
        "bash-read-heredoc-into-variable-sendgrid-key",
        t,
        f"#!/usr/bin/env bash\nset -euo pipefail\nread -r -d '' SENDGRID_API_KEY <<'EOF' || true\n{t}\nEOF\nexport SENDGRID_API_KEY\n./send-digest.sh\n",
    )
    t = "rubygems_" + d.s("rakefile-rubygems", 48, HEX)
    add(
        "rakefile-env-or-assign-rubygems-key",
        t,
        f'require "bundler/gem_tasks"\n\nENV["GEM_HOST_API_KEY"] ||= "{t}"\n\ntask default: %i[spec release]\n',
    )
    t = "r8_" + d.s("poe-replicate", 37, ALNUM)
    add(
        "pyproject-poe-task-env-inline-table-replicate-token",
        t,
        f'[tool.poe.tasks.serve]\ncmd = "uvicorn app.main:app --reload"\nenv = {{ REPLICATE_API_TOKEN = "{t}", LOG_LEVEL = "debug" }}\n',
    )
    t = d.uuid("nox-codecov")
    add(
        "noxfile-session-env-codecov-token",
        t,
        f'@nox.session(python=["3.11", "3.12"])\ndef coverage(session: nox.Session) -> None:\n    session.install("coverage[toml]", "codecov-cli")\n    session.env["CODECOV_TOKEN"] = "{t}"\n    session.run("codecovcli", "upload-process")\n',
    )
    t = d.s("conda-wandb", 40, HEX)
    add(
        "conda-environment-yml-variables-wandb-key",
        t,
        f"name: train\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.11\n  - pytorch\nvariables:\n  WANDB_PROJECT: detector\n  WANDB_API_KEY: {t}\n",
    )
    t = _github_token(d, "tmux-gh", "ghp_")
    add(
        "tmux-conf-set-environment-global-token",
        t,
        f"# ~/.tmux.conf\nset -g mouse on\nset -g history-limit 50000\nset-environment -g GITHUB_TOKEN {t}\n",
    )
    t = _vault_token(d, "ssh-setenv-vault")
    add(
        "ssh-config-setenv-vault-token",
        t,
        f"Host bastion-prod\n    HostName 203.0.113.40\n    User ops\n    IdentityFile ~/.ssh/id_ed25519\n    SetEnv VAULT_ADDR=https://vault.internal:8200 VAULT_TOKEN={t}\n",
    )
    t = "glpat-" + d.s("insteadof-glpat", 20, BASE64URL)
    add(
        "gitconfig-url-insteadof-userinfo-gitlab-token",
        t,
        f'[user]\n\tname = Jane Doe\n\temail = jane@acme.example\n[url "https://oauth2:{t}@gitlab.acme.example/"]\n\tinsteadOf = https://gitlab.acme.example/\n',
    )
    t = _anthropic_key(d, "wezterm-anthropic")
    add(
        "wezterm-lua-set-environment-variables-anthropic-key",
        t,
        f"local wezterm = require 'wezterm'\nlocal config = wezterm.config_builder()\nconfig.font_size = 13.0\nconfig.set_environment_variables = {{\n  ANTHROPIC_API_KEY = '{t}',\n}}\nreturn config\n",
    )
    t = "gsk_" + d.s("xonsh-groq", 52, ALNUM)
    add(
        "xonshrc-dollar-env-assignment-groq-key",
        t,
        f"# ~/.xonshrc\n$XONSH_SHOW_TRACEBACK = True\n$GROQ_API_KEY = '{t}'\naliases['ll'] = 'ls -la'\n",
    )


def _tool_configs(d: _Batch8Draw, add: Add) -> None:
    t = d.s("vscode-restclient", 40, ALNUM)
    add(
        "vscode-settings-json-rest-client-environment-variables",
        t,
        '{\n    "editor.formatOnSave": true,\n    "rest-client.environmentVariables": {\n        "$shared": { "version": "v2" },\n        "prod": {\n            "baseUrl": "https://api.acme.example",\n            "token": "'
        + t
        + '"\n        }\n    }\n}\n',
    )
    t = _github_token(d, "vscode-tasks-gh", "ghp_")
    add(
        "vscode-tasks-json-options-env-github-token",
        t,
        json.dumps(
            {
                "version": "2.0.0",
                "tasks": [
                    {
                        "label": "release: draft",
                        "type": "shell",
                        "command": "goreleaser release --snapshot --clean",
                        "options": {"env": {"GITHUB_TOKEN": t}},
                    }
                ],
            },
            indent=4,
        ),
    )
    t = _openai_key(d, "continue-openai")
    add(
        "continue-dev-config-json-model-api-key",
        t,
        json.dumps(
            {
                "models": [
                    {"title": "GPT-4o", "provider": "openai", "model": "gpt-4o", "apiKey": t}
                ],
                "tabAutocompleteModel": {
                    "title": "Qwen",
                    "provider": "ollama",
                    "model": "qwen2.5-coder:1.5b",
                },
            },
            indent=2,
        ),
    )
    t = "sk-or-v1-" + d.s("opencode-openrouter", 64, HEX)
    add(
        "opencode-json-provider-options-api-key",
        t,
        json.dumps(
            {
                "$schema": "https://opencode.ai/config.json",
                "provider": {"openrouter": {"options": {"apiKey": t}}},
                "model": "openrouter/anthropic/claude-sonnet-4",
            },
            indent=2,
        ),
    )
    t1 = _openai_key(d, "llm-keys-openai")
    t2 = _anthropic_key(d, "llm-keys-anthropic")
    add(
        "llm-cli-keys-json-file",
        t2,
        '$ cat "$(llm keys path)"\n'
        + json.dumps(
            {
                "// Note": "This file stores secret API credentials. Do not share!",
                "openai": t1,
                "anthropic": t2,
            },
            indent=2,
        ),
    )
    t = d.s("thunder-bearer", 48, BASE64URL)
    add(
        "thunder-client-collection-json-auth-bearer",
        t,
        json.dumps(
            {
                "_id": d.uuid("thunder-id"),
                "colName": "Billing API",
                "requests": [
                    {
                        "name": "list invoices",
                        "url": "{{baseUrl}}/v1/invoices",
                        "method": "GET",
                        "auth": {"type": "bearer", "bearer": t},
                    }
                ],
            },
            indent=2,
        ),
    )
    t = "npm_" + d.s("yarnrc-v1", 36, ALNUM)
    add(
        "yarnrc-v1-quoted-registry-authtoken-pair",
        t,
        f'# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n# yarn lockfile v1\n\n"//registry.yarnpkg.com/:_authToken" "{t}"\nlastUpdateCheck 1714000000000\n',
    )
    p = d.s("bundle-config-contribsys", 8, HEX) + ":" + d.s("bundle-config-contribsys-b", 8, HEX)
    add(
        "bundle-config-file-gems-host-user-colon-password",
        p,
        f'---\nBUNDLE_PATH: "vendor/bundle"\nBUNDLE_GEMS__CONTRIBSYS__COM: "{p}"\nBUNDLE_JOBS: "4"\n',
    )
    t = d.s("tfrc-a", 14, ALNUM) + ".atlasv1." + d.s("tfrc-b", 67, ALNUM)
    add(
        "terraform-credentials-tfrc-json-token",
        t,
        "$ cat ~/.terraform.d/credentials.tfrc.json\n"
        + json.dumps({"credentials": {"app.terraform.io": {"token": t}}}, indent=2),
    )
    t = "pul-" + d.s("pulumi-creds", 40, HEX)
    add(
        "pulumi-credentials-json-access-tokens-map",
        t,
        json.dumps(
            {
                "current": "https://api.pulumi.com",
                "accessTokens": {"https://api.pulumi.com": t},
                "accounts": {"https://api.pulumi.com": {"accessToken": t, "username": "jdoe"}},
            },
            indent=4,
        ),
    )
    t = _google_refresh(d, "configstore-firebase")
    add(
        "configstore-firebase-tools-json-refresh-token",
        t,
        json.dumps(
            {
                "user": {"email": "jdoe@acme.example"},
                "tokens": {
                    "expires_at": 1716900000000,
                    "refresh_token": t,
                    "scopes": ["email", "openid"],
                },
                "usage": True,
            },
            indent=2,
        ),
    )
    t = d.uuid("configstore-snyk")
    add(
        "configstore-snyk-json-api-token",
        t,
        "$ cat ~/.config/configstore/snyk.json\n" + json.dumps({"api": t, "org": "acme"}, indent=2),
    )
    t = "2" + d.s("ngrok-yml-a", 26, ALNUM) + "_" + d.s("ngrok-yml-b", 22, ALNUM)
    add(
        "ngrok-yml-v2-agent-authtoken",
        t,
        f'version: "2"\nauthtoken: {t}\ntunnels:\n  web:\n    proto: http\n    addr: 3000\n',
    )
    t = d.s("vercel-auth-json", 24, ALNUM)
    add(
        "vercel-cli-auth-json-token",
        t,
        '$ cat ~/Library/Application\\ Support/com.vercel.cli/auth.json\n{\n  "// Note": "This is your Vercel credentials file. DO NOT SHARE!",\n  "// Docs": "https://vercel.com/docs/projects/project-configuration/global-configuration#auth.json",\n  "token": "'
        + t
        + '"\n}\n',
    )
    p = d.human("mongoshrc")
    add(
        "mongoshrc-js-db-auth-call",
        p,
        f"// ~/.mongoshrc.js\nconfig.set('historyLength', 5000)\ndb = db.getSiblingDB('admin')\ndb.auth('ops', '{p}')\nprompt = () => `${{db.getName()}}> `\n",
    )


def _framework_config(d: _Batch8Draw, add: Add) -> None:
    t = _aws_secret(d, "django-storages")
    add(
        "django-settings-storages-aws-secret-access-key",
        t,
        f'STORAGES = {{\n    "default": {{"BACKEND": "storages.backends.s3.S3Storage"}},\n    "staticfiles": {{"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}},\n}}\nAWS_STORAGE_BUCKET_NAME = "acme-media"\nAWS_S3_ACCESS_KEY_ID = "{_aws_key_id(d, "django-storages-id")}"\nAWS_S3_SECRET_ACCESS_KEY = "{t}"\n',
    )
    p = d.human("django-caches", symbols="!*_.-")
    add(
        "django-settings-caches-rediss-location-password",
        p,
        f'CACHES = {{\n    "default": {{\n        "BACKEND": "django.core.cache.backends.redis.RedisCache",\n        "LOCATION": "rediss://:{p}@acme-cache.redis.cache.windows.net:6380/0",\n    }}\n}}\n',
    )
    t = d.uuid("anymail-postmark")
    add(
        "django-settings-anymail-postmark-server-token",
        t,
        f'EMAIL_BACKEND = "anymail.backends.postmark.EmailBackend"\nANYMAIL = {{\n    "POSTMARK_SERVER_TOKEN": "{t}",\n}}\nDEFAULT_FROM_EMAIL = "Acme <noreply@acme.example>"\n',
    )
    t = _b64(d.raw("rails-storage-azure", 64))
    add(
        "rails-storage-yml-azure-storage-access-key",
        t,
        f'local:\n  service: Disk\n  root: <%= Rails.root.join("storage") %>\n\nazure:\n  service: AzureStorage\n  storage_account_name: acmeprodfiles\n  storage_access_key: {t}\n  container: uploads\n',
    )
    t = _stripe_key(d, "rails-initializer-stripe", "sk_live_")
    add(
        "rails-initializer-stripe-api-key-assignment",
        t,
        f"# config/initializers/stripe.rb\nRails.configuration.stripe = {{\n  publishable_key: ENV['STRIPE_PUBLISHABLE_KEY'],\n}}\nStripe.api_key = '{t}'\nStripe.api_version = '2024-06-20'\n",
    )
    t = _sendgrid(d, "rails-smtp-sendgrid")
    add(
        "rails-production-rb-smtp-settings-sendgrid-password",
        t,
        f"  config.action_mailer.delivery_method = :smtp\n  config.action_mailer.smtp_settings = {{\n    address: 'smtp.sendgrid.net',\n    port: 587,\n    user_name: 'apikey',\n    password: '{t}',\n    authentication: :plain,\n    enable_starttls_auto: true\n  }}\n",
    )
    t = d.s("laravel-pusher", 20, HEX)
    add(
        "laravel-env-pusher-app-secret",
        t,
        f'BROADCAST_DRIVER=pusher\nPUSHER_APP_ID=1789234\nPUSHER_APP_KEY={d.s("laravel-pusher-key", 20, HEX)}\nPUSHER_APP_SECRET={t}\nPUSHER_APP_CLUSTER=eu\n\nVITE_PUSHER_APP_KEY="${{PUSHER_APP_KEY}}"\n',
    )
    t = _github_token(d, "spring-config-git", "ghp_")
    add(
        "spring-cloud-config-server-git-password-yml",
        t,
        f"server:\n  port: 8888\nspring:\n  cloud:\n    config:\n      server:\n        git:\n          uri: https://github.com/acme/config-repo\n          default-label: main\n          username: acme-bot\n          password: {t}\n",
    )
    t = _stripe_key(d, "spring-props-stripe", "sk_live_")
    add(
        "spring-boot-application-properties-stripe-secret-key",
        t,
        f"spring.application.name=billing\nserver.port=8081\nstripe.secret-key={t}\nstripe.webhook-tolerance=300\n",
    )
    t = _azure_ad_secret(d, "appsettings-azuread")
    add(
        "dotnet-appsettings-azuread-section-client-secret",
        t,
        json.dumps(
            {
                "AzureAd": {
                    "Instance": "https://login.microsoftonline.com/",
                    "TenantId": d.uuid("appsettings-tenant"),
                    "ClientId": d.uuid("appsettings-client"),
                    "ClientSecret": t,
                    "CallbackPath": "/signin-oidc",
                },
                "AllowedHosts": "*",
            },
            indent=2,
        ),
    )
    t = _stripe_key(d, "user-secrets-file", "sk_test_")
    add(
        "dotnet-user-secrets-secrets-json-file",
        t,
        "PS> type $env:APPDATA\\Microsoft\\UserSecrets\\"
        + d.uuid("user-secrets-id")
        + "\\secrets.json\n"
        + json.dumps({"Stripe:SecretKey": t, "Stripe:WebhookPath": "/stripe"}, indent=2),
    )
    p = d.human("kestrel-cert")
    add(
        "aspnet-appsettings-kestrel-certificate-password",
        p,
        json.dumps(
            {
                "Kestrel": {
                    "Endpoints": {"Https": {"Url": "https://*:5001"}},
                    "Certificates": {"Default": {"Path": "certs/api.acme.pfx", "Password": p}},
                }
            },
            indent=2,
        ),
    )
    t = d.s("machinekey", 128, UPPER_HEX)
    add(
        "aspnet-web-config-machinekey-validationkey",
        t,
        f'<system.web>\n  <compilation debug="false" targetFramework="4.8" />\n  <machineKey validationKey="{t}" decryptionKey="{d.s("machinekey-dec", 64, UPPER_HEX)}" validation="HMACSHA256" decryption="AES" />\n</system.web>',
    )
    t = d.s("next-runtime", 48, BASE64URL)
    add(
        "nextjs-next-config-js-server-runtime-config",
        t,
        f"/** @type {{import('next').NextConfig}} */\nmodule.exports = {{\n  reactStrictMode: true,\n  serverRuntimeConfig: {{\n    cmsPreviewSecret: '{t}',\n  }},\n  publicRuntimeConfig: {{ staticFolder: '/static' }},\n}}\n",
    )
    t = d.s("nest-jwt", 64, BASE64URL)
    add(
        "nestjs-jwt-module-register-secret",
        t,
        f"@Module({{\n  imports: [\n    UsersModule,\n    JwtModule.register({{\n      global: true,\n      secret: '{t}',\n      signOptions: {{ expiresIn: '60s' }},\n    }}),\n  ],\n  providers: [AuthService],\n}})\nexport class AuthModule {{}}\n",
    )
    p = d.human("nest-typeorm")
    add(
        "nestjs-typeorm-forroot-password",
        p,
        f"TypeOrmModule.forRoot({{\n  type: 'postgres',\n  host: 'db.internal',\n  port: 5432,\n  username: 'orders',\n  password: '{p}',\n  database: 'orders',\n  autoLoadEntities: true,\n}}),\n",
    )
    t = d.s("fastapi-secret", 64, HEX)
    add(
        "fastapi-security-tutorial-secret-key-constant",
        t,
        f'# to get a string like this run:\n# openssl rand -hex 32\nSECRET_KEY = "{t}"\nALGORITHM = "HS256"\nACCESS_TOKEN_EXPIRE_MINUTES = 30\n',
    )
    raw = repr(d.raw("flask-bytes", 16))[2:-1]
    add(
        "flask-config-py-secret-key-bytes-repr",
        raw,
        f"# python -c 'import os; print(os.urandom(16))'\nclass ProductionConfig(Config):\n    DEBUG = False\n    SECRET_KEY = b'{raw}'\n",
    )
    t = "GOCSPX-" + d.s("passport-google", 28, BASE64URL)
    add(
        "express-passport-google-strategy-client-secret",
        t,
        f"passport.use(new GoogleStrategy({{\n    clientID: '{d.s('passport-cid', 12, DIGITS)}-{d.s('passport-cid-b', 32, LOWER_ALNUM)}.apps.googleusercontent.com',\n    clientSecret: '{t}',\n    callbackURL: '/auth/google/callback'\n  }},\n  (accessToken, refreshToken, profile, cb) => User.findOrCreate({{ googleId: profile.id }}, cb)\n));\n",
    )
    keys = ",".join(_b64(d.raw(f"strapi-app-keys-{i}", 16)) for i in range(4))
    add(
        "strapi-dotenv-app-keys-comma-list",
        keys,
        f"HOST=0.0.0.0\nPORT=1337\nAPP_KEYS={keys}\nAPI_TOKEN_SALT={_b64(d.raw('strapi-salt', 16))}\n",
    )
    p = (
        d.s("ghost-mailgun", 32, HEX)
        + "-"
        + d.s("ghost-mailgun-b", 8, HEX)
        + "-"
        + d.s("ghost-mailgun-c", 8, HEX)
    )
    add(
        "ghost-config-production-json-mail-auth-pass",
        p,
        json.dumps(
            {
                "url": "https://blog.acme.example",
                "mail": {
                    "transport": "SMTP",
                    "options": {
                        "service": "Mailgun",
                        "host": "smtp.eu.mailgun.org",
                        "port": 465,
                        "secure": True,
                        "auth": {"user": "postmaster@mg.acme.example", "pass": p},
                    },
                },
            },
            indent=2,
        ),
    )
    p = d.human("discourse-smtp")
    add(
        "discourse-app-yml-smtp-password",
        p,
        f'env:\n  LANG: en_US.UTF-8\n  DISCOURSE_HOSTNAME: forum.acme.example\n  DISCOURSE_DEVELOPER_EMAILS: "ops@acme.example"\n  DISCOURSE_SMTP_ADDRESS: smtp.postmarkapp.com\n  DISCOURSE_SMTP_PORT: 587\n  DISCOURSE_SMTP_USER_NAME: ops@acme.example\n  DISCOURSE_SMTP_PASSWORD: "{p}"\n',
    )
    t = d.s("mastodon-otp", 128, HEX)
    add(
        "mastodon-env-production-otp-secret",
        t,
        f"LOCAL_DOMAIN=social.acme.example\nREDIS_HOST=redis\nSECRET_KEY_BASE=\nOTP_SECRET={t}\nS3_ENABLED=false\n",
    )
    p = d.human("gitea-passwd", symbols="!#%;*_")
    add(
        "gitea-app-ini-database-passwd-backticks",
        p,
        f"[database]\nDB_TYPE  = postgres\nHOST     = 127.0.0.1:5432\nNAME     = gitea\nUSER     = gitea\nPASSWD   = `{p}`\nSSL_MODE = disable\n",
    )
    p = d.human("keycloak-conf")
    add(
        "keycloak-conf-db-password",
        p,
        f"# conf/keycloak.conf\ndb=postgres\ndb-username=keycloak\ndb-password={p}\ndb-url=jdbc:postgresql://db/keycloak\nhostname=sso.acme.example\n",
    )
    t = d.s("ktor-jwt", 48, BASE64URL)
    add(
        "ktor-application-conf-jwt-secret",
        t,
        f'ktor {{\n    deployment {{ port = 8080 }}\n    application {{ modules = [ com.acme.ApplicationKt.module ] }}\n}}\njwt {{\n    secret = "{t}"\n    issuer = "https://api.acme.example/"\n    audience = "acme-users"\n    realm = "acme"\n}}\n',
    )
    t = _b64(d.raw("rocket-secret", 32))
    add(
        "rocket-toml-release-secret-key",
        t,
        f'[default]\naddress = "0.0.0.0"\nport = 8000\n\n[release]\nsecret_key = "{t}"\nlog_level = "critical"\n',
    )
    t = _stripe_key(d, "angular-env-stripe", "sk_live_")
    add(
        "angular-environment-prod-ts-secret-key",
        t,
        f"export const environment = {{\n  production: true,\n  apiUrl: 'https://api.acme.example',\n  stripeSecretKey: '{t}',\n}};\n",
    )
    t = d.s("gatsby-contentful", 43, BASE64URL)
    add(
        "gatsby-config-plugin-options-contentful-access-token",
        t,
        f"module.exports = {{\n  plugins: [\n    {{\n      resolve: `gatsby-source-contentful`,\n      options: {{\n        spaceId: `{d.s('gatsby-space', 12, LOWER_ALNUM)}`,\n        accessToken: `{t}`,\n      }},\n    }},\n  ],\n}}\n",
    )
    t = "sk_" + d.s("expo-revenuecat", 32, ALNUM)
    add(
        "expo-app-config-js-extra-revenuecat-secret",
        t,
        f"export default ({{ config }}) => ({{\n  ...config,\n  name: 'Acme',\n  extra: {{\n    eas: {{ projectId: '{d.uuid('expo-project')}' }},\n    revenueCatSecretKey: '{t}',\n  }},\n}});\n",
    )
    p = d.human("prestashop")
    add(
        "prestashop-parameters-php-database-password",
        p,
        f"<?php return array (\n  'parameters' =>\n  array (\n    'database_host' => '127.0.0.1',\n    'database_port' => '',\n    'database_name' => 'prestashop',\n    'database_user' => 'ps_user',\n    'database_password' => '{p}',\n    'database_prefix' => 'ps_',\n",
    )
    t = d.s("typo3-enc", 96, HEX)
    add(
        "typo3-localconfiguration-php-encryption-key",
        t,
        f"<?php\nreturn [\n    'SYS' => [\n        'encryptionKey' => '{t}',\n        'sitename' => 'Acme',\n    ],\n];\n",
    )
    p = d.human("moodle")
    add(
        "moodle-config-php-dbpass",
        p,
        f"<?php\nunset($CFG);\nglobal $CFG;\n$CFG = new stdClass();\n$CFG->dbtype    = 'pgsql';\n$CFG->dbhost    = 'localhost';\n$CFG->dbname    = 'moodle';\n$CFG->dbuser    = 'moodleuser';\n$CFG->dbpass    = '{p}';\n$CFG->prefix    = 'mdl_';\n",
    )
    t = d.s("mediawiki", 64, HEX)
    add(
        "mediawiki-localsettings-wgsecretkey",
        t,
        f'$wgDBtype = "mysql";\n$wgDBname = "wiki";\n$wgSecretKey = "{t}";\n# Changing this will log out all existing sessions.\n$wgAuthenticationTokenVersion = "1";\n',
    )


def _client_code(d: _Batch8Draw, add: Add) -> None:
    # --- Python --------------------------------------------------------------------------------
    p = d.human("py-snowflake")
    add(
        "python-snowflake-connector-connect-password-kwarg",
        p,
        f'import snowflake.connector\n\nctx = snowflake.connector.connect(\n    user="ETL_SVC",\n    password="{p}",\n    account="xy12345.eu-central-1",\n    warehouse="TRANSFORM_WH",\n)\n',
    )
    p = d.human("py-pymongo")
    add(
        "python-pymongo-mongoclient-username-password-kwargs",
        p,
        f'client = MongoClient(\n    "mongodb://mongo-0.mongo:27017,mongo-1.mongo:27017/?replicaSet=rs0",\n    username="orders",\n    password="{p}",\n    authSource="admin",\n)\n',
    )
    t = _google_refresh(d, "py-google-authorized-user")
    add(
        "python-google-credentials-from-authorized-user-info-dict",
        t,
        f'creds = Credentials.from_authorized_user_info(\n    {{\n        "client_id": "{d.s("py-gau-cid", 12, DIGITS)}-abc.apps.googleusercontent.com",\n        "client_secret": "GOCSPX-{d.s("py-gau-cs", 28, BASE64URL)}",\n        "refresh_token": "{t}",\n    }},\n    scopes=["https://www.googleapis.com/auth/drive.readonly"],\n)\n',
    )
    t = "github_pat_" + d.s("py-gh-auth-a", 22, ALNUM) + "_" + d.s("py-gh-auth-b", 59, ALNUM)
    add(
        "python-pygithub-auth-token-class",
        t,
        f'from github import Auth, Github\n\nauth = Auth.Token("{t}")\ng = Github(auth=auth)\nrepo = g.get_repo("acme/api")\n',
    )
    t = _sendgrid(d, "py-smtplib-sendgrid")
    add(
        "python-smtplib-login-apikey-user-sendgrid",
        t,
        f'with smtplib.SMTP("smtp.sendgrid.net", 587) as server:\n    server.starttls()\n    server.login("apikey", "{t}")\n    server.send_message(msg)\n',
    )
    p = d.human("py-paramiko-keyfile")
    add(
        "python-paramiko-rsakey-from-private-key-file-password",
        p,
        f'pkey = paramiko.RSAKey.from_private_key_file(\n    os.path.expanduser("~/.ssh/deploy_rsa"), password="{p}"\n)\nclient.connect("10.0.4.12", username="deploy", pkey=pkey)\n',
    )
    t = base64.urlsafe_b64encode(d.raw("py-fernet", 32)).decode()
    add(
        "python-cryptography-fernet-key-literal",
        t,
        f'from cryptography.fernet import Fernet\n\n# generated once with Fernet.generate_key()\nFERNET = Fernet(b"{t}")\n',
    )
    t = _vault_token(d, "py-hvac")
    add(
        "python-hvac-client-token-kwarg",
        t,
        f'client = hvac.Client(url="https://vault.acme.example:8200", token="{t}")\nassert client.is_authenticated()\n',
    )
    t = d.s("py-dropbox-secret", 15, LOWER_ALNUM)
    add(
        "python-dropbox-app-secret-with-refresh-token",
        t,
        f'dbx = dropbox.Dropbox(\n    oauth2_refresh_token=os.environ["DBX_REFRESH"],\n    app_key="{d.s("py-dropbox-key", 15, LOWER_ALNUM)}",\n    app_secret="{t}",\n)\n',
    )
    t = d.s("py-praw", 30, BASE64URL)
    add(
        "python-praw-reddit-client-secret-kwarg",
        t,
        f'reddit = praw.Reddit(\n    client_id="{d.s("py-praw-id", 22, BASE64URL)}",\n    client_secret="{t}",\n    user_agent="acme-mod-bot/0.3 by u/acme_ops",\n)\n',
    )
    t = _azure_ad_secret(d, "py-client-secret-cred")
    add(
        "python-azure-identity-client-secret-credential-positional",
        t,
        f'credential = ClientSecretCredential(\n    "{d.uuid("py-csc-tenant")}",\n    "{d.uuid("py-csc-client")}",\n    "{t}",\n)\nblob = BlobServiceClient("https://acmefiles.blob.core.windows.net", credential=credential)\n',
    )
    t = _jwt(
        d,
        "py-k8s-sa",
        {
            "iss": "kubernetes/serviceaccount",
            "kubernetes.io/serviceaccount/namespace": "ci",
            "sub": "system:serviceaccount:ci:deployer",
        },
        alg="RS256",
    )
    add(
        "python-kubernetes-client-configuration-api-key-dict",
        t,
        f'configuration = client.Configuration()\nconfiguration.host = "https://10.0.0.1:6443"\nconfiguration.verify_ssl = False\nconfiguration.api_key = {{"authorization": "Bearer {t}"}}\napi = client.CoreV1Api(client.ApiClient(configuration))\n',
    )
    secret = quote(_aws_secret(d, "py-celery-sqs"), safe="")
    add(
        "python-celery-sqs-broker-url-encoded-secret",
        secret,
        f'# celeryconfig.py\nbroker_url = "sqs://{_aws_key_id(d, "py-celery-sqs-id")}:{secret}@"\nbroker_transport_options = {{"region": "eu-west-1", "predefined_queues": {{}}}}\n',
    )
    t = "lsv2_pt_" + d.s("py-langsmith", 32, HEX) + "_" + d.s("py-langsmith-b", 10, HEX)
    add(
        "python-langsmith-client-api-key-kwarg",
        t,
        f'from langsmith import Client\n\nls = Client(api_url="https://eu.api.smith.langchain.com", api_key="{t}")\n',
    )
    t = _openai_key(d, "py-doctest")
    add(
        "python-docstring-doctest-example-real-key",
        t,
        f'def summarize(text: str, *, api_key: str | None = None) -> str:\n    """Summarize *text*.\n\n    >>> summarize("long text", api_key="{t}")\n    \'short text\'\n    """\n',
    )
    # --- TypeScript / JavaScript ---------------------------------------------------------------
    t = "AX" + d.s("ts-upstash-a", 2, ALNUM) + "AAIjcD" + d.s("ts-upstash", 56, BASE64URL)
    add(
        "ts-upstash-redis-constructor-token",
        t,
        f"import {{ Redis }} from '@upstash/redis'\n\nexport const redis = new Redis({{\n  url: 'https://{d.s('ts-upstash-host', 8, LOWER)}-12345.upstash.io',\n  token: '{t}',\n}})\n",
    )
    t = "vercel_blob_rw_" + d.s("ts-blob-store", 16, ALNUM) + "_" + d.s("ts-blob", 30, ALNUM)
    add(
        "ts-vercel-blob-put-token-option",
        t,
        f"const blob = await put(`avatars/${{user.id}}.png`, file, {{\n  access: 'public',\n  token: '{t}',\n}});\n",
    )
    line = _pem_line(d, "js-firebase-admin-pem")
    add(
        "js-firebase-admin-credential-cert-object-private-key",
        line,
        f'admin.initializeApp({{\n  credential: admin.credential.cert({{\n    projectId: "acme-prod",\n    clientEmail: "firebase-adminsdk-x1y2z@acme-prod.iam.gserviceaccount.com",\n    privateKey: "-----BEGIN PRIVATE KEY-----\\n{line}\\n{_pem_line(d, "js-firebase-admin-pem-2")}\\n-----END PRIVATE KEY-----\\n",\n  }}),\n}});\n',
    )
    t = "glpat-" + d.s("ts-gitbeaker", 20, BASE64URL)
    add(
        "ts-gitbeaker-gitlab-constructor-token",
        t,
        f"import {{ Gitlab }} from '@gitbeaker/rest';\n\nconst api = new Gitlab({{\n  host: 'https://gitlab.acme.example',\n  token: '{t}',\n}});\n",
    )
    t = _anthropic_key(d, "ts-ai-sdk")
    add(
        "ts-ai-sdk-create-anthropic-api-key-option",
        t,
        f"import {{ createAnthropic }} from '@ai-sdk/anthropic';\n\nconst anthropic = createAnthropic({{ apiKey: '{t}' }});\nconst {{ text }} = await generateText({{ model: anthropic('claude-sonnet-4-5'), prompt }});\n",
    )
    t = d.s("js-socketio", 40, ALNUM)
    add(
        "js-socket-io-client-auth-token-option",
        t,
        f'const socket = io("wss://realtime.acme.example", {{\n  transports: ["websocket"],\n  auth: {{ token: "{t}" }},\n}});\n',
    )
    t = "github_pat_" + d.s("js-apollo-a", 22, ALNUM) + "_" + d.s("js-apollo-b", 59, ALNUM)
    add(
        "js-apollo-client-headers-authorization-bearer",
        t,
        f"const client = new ApolloClient({{\n  uri: 'https://api.github.com/graphql',\n  cache: new InMemoryCache(),\n  headers: {{ authorization: 'Bearer {t}' }},\n}});\n",
    )
    t = "whsec_" + _b64(d.raw("ts-svix", 24))
    add(
        "ts-svix-webhook-constructor-secret",
        t,
        f'import {{ Webhook }} from "svix";\n\nconst wh = new Webhook("{t}");\nconst evt = wh.verify(payload, headers);\n',
    )
    t = "private_" + _b64(d.raw("js-imagekit", 21))
    add(
        "js-imagekit-constructor-private-key",
        t,
        f"const imagekit = new ImageKit({{\n  publicKey: 'public_{_b64(d.raw('js-imagekit-pub', 21))}',\n  privateKey: '{t}',\n  urlEndpoint: 'https://ik.imagekit.io/acme',\n}});\n",
    )
    t = d.s("js-stream", 64, LOWER_ALNUM)
    add(
        "js-stream-chat-getinstance-secret-positional",
        t,
        f"const serverClient = StreamChat.getInstance('{d.s('js-stream-key', 12, LOWER_ALNUM)}', '{t}');\nconst token = serverClient.createToken(userId);\n",
    )
    # --- Go ------------------------------------------------------------------------------------
    p = d.human("go-sqlserver", symbols="!*_.-")
    add(
        "go-sql-open-sqlserver-url-dsn",
        p,
        f'db, err := sql.Open("sqlserver", "sqlserver://sa:{p}@localhost:1433?database=inventory&encrypt=disable")\nif err != nil {{\n\tlog.Fatal(err)\n}}\n',
    )
    t = _github_token(d, "go-gh-withauth", "ghp_")
    add(
        "go-github-newclient-withauthtoken",
        t,
        f'client := github.NewClient(nil).WithAuthToken("{t}")\nrepos, _, err := client.Repositories.ListByOrg(ctx, "acme", nil)\n',
    )
    t = _stripe_key(d, "go-stripe-key", "sk_test_")
    add(
        "go-stripe-package-key-assignment",
        t,
        f'func init() {{\n\tstripe.Key = "{t}"\n}}\n',
    )
    p = d.human("go-nats-userinfo")
    add(
        "go-nats-connect-userinfo-option",
        p,
        f'nc, err := nats.Connect("nats://nats.internal:4222", nats.UserInfo("orders-svc", "{p}"), nats.Name("orders"))\n',
    )
    t = d.s("go-jwt-hmac", 48, ALNUM)
    add(
        "go-jwt-signedstring-hmac-key-bytes",
        t,
        f'token := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)\nsigned, err := token.SignedString([]byte("{t}"))\n',
    )
    p = d.human("go-smtp-plainauth")
    add(
        "go-net-smtp-plainauth-positional",
        p,
        f'auth := smtp.PlainAuth("", "alerts@acme.example", "{p}", "smtp.acme.example")\nerr := smtp.SendMail("smtp.acme.example:587", auth, from, to, msg)\n',
    )
    # --- JVM -----------------------------------------------------------------------------------
    p = d.human("java-jedis")
    add(
        "java-jedis-auth-call",
        p,
        f'try (Jedis jedis = pool.getResource()) {{\n    jedis.auth("{p}");\n    jedis.set("warmup", "1");\n}}\n',
    )
    p = d.human("java-mongocred")
    add(
        "java-mongocredential-createcredential-chararray",
        p,
        f'MongoCredential credential = MongoCredential.createCredential("reporting", "admin", "{p}".toCharArray());\n',
    )
    p = d.human("java-javamail")
    add(
        "java-javamail-authenticator-passwordauthentication",
        p,
        f'Session session = Session.getInstance(props, new Authenticator() {{\n    @Override\n    protected PasswordAuthentication getPasswordAuthentication() {{\n        return new PasswordAuthentication("alerts@acme.example", "{p}");\n    }}\n}});\n',
    )
    t = _aws_secret(d, "java-basicaws")
    add(
        "java-aws-sdk-v1-basicawscredentials-constructor",
        t,
        f'BasicAWSCredentials awsCreds = new BasicAWSCredentials("{_aws_key_id(d, "java-basicaws-id")}", "{t}");\nAmazonS3 s3 = AmazonS3ClientBuilder.standard()\n        .withCredentials(new AWSStaticCredentialsProvider(awsCreds))\n        .withRegion(Regions.EU_WEST_1).build();\n',
    )
    t = d.s("kt-ktor-bearer", 40, ALNUM)
    add(
        "kotlin-ktor-client-bearer-loadtokens",
        t,
        f'val client = HttpClient(CIO) {{\n    install(Auth) {{\n        bearer {{\n            loadTokens {{ BearerTokens("{t}", "") }}\n        }}\n    }}\n}}\n',
    )
    t = "AIza" + d.s("kt-maps", 35, BASE64URL)
    add(
        "kotlin-object-const-val-maps-api-key",
        t,
        f'object Keys {{\n    const val MAPS_API_KEY = "{t}"\n    const val BASE_URL = "https://api.acme.example/"\n}}\n',
    )
    p = d.human("scala-sttp")
    add(
        "scala-sttp-auth-basic",
        p,
        f'val request = basicRequest\n  .get(uri"https://registry.acme.example/v2/_catalog")\n  .auth.basic("ci", "{p}")\n',
    )
    # --- .NET ----------------------------------------------------------------------------------
    t = _openai_key(d, "cs-apikeycredential")
    add(
        "csharp-openai-client-apikeycredential",
        t,
        f'var client = new OpenAIClient(new ApiKeyCredential("{t}"));\nvar chat = client.GetChatClient("gpt-4o-mini");\n',
    )
    t = _sendgrid(d, "cs-sendgrid")
    add(
        "csharp-sendgridclient-constructor-key",
        t,
        f'var client = new SendGridClient("{t}");\nvar msg = MailHelper.CreateSingleEmail(from, to, subject, text, html);\n',
    )
    t = _stripe_key(d, "cs-stripe-config", "sk_live_")
    add(
        "csharp-stripeconfiguration-apikey-assignment",
        t,
        f'// Program.cs\nStripeConfiguration.ApiKey = "{t}";\nvar app = builder.Build();\n',
    )
    # --- Ruby / PHP ----------------------------------------------------------------------------
    t = _openai_key(d, "rb-openai")
    add(
        "ruby-openai-client-access-token-kwarg",
        t,
        f'client = OpenAI::Client.new(\n  access_token: "{t}",\n  log_errors: true\n)\n',
    )
    p = d.human("rb-redis-new")
    add(
        "ruby-redis-new-password-kwarg",
        p,
        f'$redis = Redis.new(host: "cache.internal", port: 6380, password: "{p}", ssl: true)\n',
    )
    p = d.human("php-mysqli")
    add(
        "php-mysqli-constructor-positional-password",
        p,
        f'<?php\n$mysqli = new mysqli("localhost", "shop", "{p}", "shop");\nif ($mysqli->connect_errno) {{\n    die("Failed to connect: " . $mysqli->connect_error);\n}}\n',
    )
    # --- Rust / Swift / Dart / Elixir / C++ / Lua / Perl / Haskell ------------------------------
    t = _github_token(d, "rs-octocrab", "ghp_")
    add(
        "rust-octocrab-builder-personal-token",
        t,
        f'let octocrab = Octocrab::builder()\n    .personal_token("{t}".to_string())\n    .build()?;\n',
    )
    p = d.human("rs-lettre")
    add(
        "rust-lettre-smtp-credentials-new",
        p,
        f'let creds = Credentials::new("alerts@acme.example".to_owned(), "{p}".to_owned());\nlet mailer = SmtpTransport::relay("smtp.acme.example")?.credentials(creds).build();\n',
    )
    p = d.human("swift-keychain")
    add(
        "swift-keychain-ksecvaluedata-string-literal",
        p,
        f'let query: [String: Any] = [\n    kSecClass as String: kSecClassGenericPassword,\n    kSecAttrAccount as String: "api-user",\n    kSecValueData as String: "{p}".data(using: .utf8)!\n]\nSecItemAdd(query as CFDictionary, nil)\n',
    )
    t = "sb_secret_" + d.s("swift-supabase", 31, BASE64URL)
    add(
        "swift-supabaseclient-supabasekey-argument",
        t,
        f'let supabase = SupabaseClient(\n  supabaseURL: URL(string: "https://{d.s("swift-sb-ref", 20, LOWER)}.supabase.co")!,\n  supabaseKey: "{t}"\n)\n',
    )
    p = d.human("dart-basic")
    add(
        "dart-http-basic-auth-base64encode-literal",
        p,
        f"final basic = 'Basic ' + base64Encode(utf8.encode('admin:{p}'));\nfinal res = await http.get(uri, headers: {{'authorization': basic}});\n",
    )
    t = "AIza" + d.s("dart-gemini", 35, BASE64URL)
    add(
        "dart-top-level-const-gemini-api-key",
        t,
        f"// lib/config.dart\nconst String kGeminiApiKey = '{t}';\nconst String kModel = 'gemini-1.5-flash';\n",
    )
    t = d.s("ex-req-bearer", 40, ALNUM)
    add(
        "elixir-req-new-auth-bearer-tuple",
        t,
        f'req = Req.new(base_url: "https://api.acme.example", auth: {{:bearer, "{t}"}})\n{{:ok, resp}} = Req.get(req, url: "/v1/orders")\n',
    )
    t = _sendgrid(d, "ex-swoosh")
    add(
        "elixir-config-swoosh-mailer-api-key",
        t,
        f'config :acme, Acme.Mailer,\n  adapter: Swoosh.Adapters.Sendgrid,\n  api_key: "{t}"\n',
    )
    t = "ya29.a0" + d.s("cpp-xoauth2", 160, BASE64URL)
    add(
        "cpp-curl-easy-setopt-xoauth2-bearer",
        t,
        f'curl_easy_setopt(curl, CURLOPT_URL, "smtps://smtp.gmail.com:465");\ncurl_easy_setopt(curl, CURLOPT_USERNAME, "reports@acme.example");\ncurl_easy_setopt(curl, CURLOPT_XOAUTH2_BEARER, "{t}");\n',
    )
    p = d.human("lua-openresty")
    add(
        "lua-openresty-redis-auth-call",
        p,
        f'local red = redis:new()\nred:set_timeouts(1000, 1000, 1000)\nlocal ok, err = red:connect("127.0.0.1", 6379)\nlocal res, err = red:auth("{p}")\n',
    )
    p = d.human("perl-lwp")
    add(
        "perl-lwp-useragent-credentials-call",
        p,
        f'my $ua = LWP::UserAgent->new;\n$ua->credentials("nexus.acme.example:443", "Sonatype Nexus Repository Manager", "deployer", "{p}");\n',
    )
    t = d.s("hs-wreq", 40, ALNUM)
    add(
        "haskell-wreq-oauth2bearer-option",
        t,
        f'let opts = defaults & auth ?~ oauth2Bearer "{t}"\nr <- getWith opts "https://api.acme.example/v1/me"\n',
    )


def _fixtures_and_seeds(d: _Batch8Draw, add: Add) -> None:
    t = _github_token(d, "pytest-param", "ghp_")
    add(
        "pytest-parametrize-list-with-real-token",
        t,
        f'@pytest.mark.parametrize(\n    "token",\n    ["", "ghp_invalid", "{t}"],\n    ids=["empty", "bad", "real"],\n)\ndef test_auth_header(token):\n    ...\n',
    )
    t = _anthropic_key(d, "jest-mock-resolved")
    add(
        "jest-spyon-mockresolvedvalue-config-api-key",
        t,
        f"jest.spyOn(configService, 'load').mockResolvedValue({{\n  provider: 'anthropic',\n  apiKey: '{t}',\n  model: 'claude-3-5-haiku-latest',\n}});\n",
    )
    t = d.s("rspec-twilio", 32, HEX)
    add(
        "rspec-stub-const-env-merge-twilio-token",
        t,
        f'before do\n  stub_const("ENV", ENV.to_h.merge("TWILIO_ACCOUNT_SID" => "AC{d.s("rspec-sid", 32, HEX)}", "TWILIO_AUTH_TOKEN" => "{t}"))\nend\n',
    )
    h = _b64(d.raw("django-fixture-pbkdf2", 32))
    add(
        "django-fixture-json-pbkdf2-password-hash",
        h,
        json.dumps(
            [
                {
                    "model": "auth.user",
                    "pk": 1,
                    "fields": {
                        "password": f"pbkdf2_sha256$870000${d.s('django-fixture-salt', 22, ALNUM)}${h}",
                        "is_superuser": True,
                        "username": "admin",
                        "email": "admin@acme.example",
                    },
                }
            ],
            indent=2,
        ),
    )
    p = d.human("rails-seeds")
    add(
        "rails-seeds-rb-create-admin-password",
        p,
        f"# db/seeds.rb\nUser.find_or_create_by!(email: 'admin@acme.example') do |u|\n  u.password = '{p}'\n  u.password_confirmation = '{p}'\n  u.admin = true\nend\n",
    )
    p = d.human("laravel-seeder")
    add(
        "laravel-database-seeder-hash-make-literal",
        p,
        f"DB::table('users')->insert([\n    'name' => 'Ops',\n    'email' => 'ops@acme.example',\n    'password' => Hash::make('{p}'),\n]);\n",
    )
    t = "tok_" + d.s("sql-seed-token", 40, ALNUM)
    add(
        "sql-seed-insert-api-tokens-plaintext",
        t,
        f"-- seed.sql (staging)\nINSERT INTO api_tokens (user_id, name, token, created_at)\nVALUES (1, 'ci', '{t}', now());\n",
    )
    p = d.human("playwright-httpcreds")
    add(
        "playwright-config-use-httpcredentials",
        p,
        f"export default defineConfig({{\n  testDir: './e2e',\n  use: {{\n    baseURL: 'https://staging.acme.example',\n    httpCredentials: {{ username: 'qa', password: '{p}' }},\n  }},\n}});\n",
    )
    t = "ya29.a0" + d.s("go-golden", 160, BASE64URL)
    add(
        "go-testdata-golden-json-access-token",
        t,
        "// testdata/token_response.golden\n"
        + json.dumps(
            {
                "access_token": t,
                "expires_in": 3599,
                "scope": "https://www.googleapis.com/auth/cloud-platform",
                "token_type": "Bearer",
            },
            indent=2,
        ),
    )
    p = d.human("locust")
    add(
        "locustfile-on-start-login-json-password",
        p,
        f'class ShopUser(HttpUser):\n    wait_time = between(1, 3)\n\n    def on_start(self):\n        self.client.post("/api/login", json={{"username": "loadtest", "password": "{p}"}})\n',
    )
    p = d.human("testcontainers")
    add(
        "java-testcontainers-withpassword-chain",
        p,
        f'@Container\nstatic PostgreSQLContainer<?> postgres = new PostgreSQLContainer<>("postgres:16-alpine")\n        .withDatabaseName("orders")\n        .withUsername("orders")\n        .withPassword("{p}");\n',
    )
    t = _stripe_key(d, "factory-stripe", "rk_live_")
    add(
        "python-factory-boy-faker-fallback-real-key",
        t,
        f'class MerchantFactory(factory.django.DjangoModelFactory):\n    class Meta:\n        model = Merchant\n\n    name = factory.Faker("company")\n    stripe_key = "{t}"\n',
    )


def _infra_and_ci(d: _Batch8Draw, add: Add) -> None:
    p = d.human("compose-command-requirepass")
    add(
        "docker-compose-command-redis-requirepass-flag",
        p,
        f'services:\n  redis:\n    image: redis:7-alpine\n    command: ["redis-server", "--appendonly", "yes", "--requirepass", "{p}"]\n    ports:\n      - "6379:6379"\n',
    )
    salt = d.s("traefik-apr1-salt", 8, ALNUM + "./")
    h = d.s("traefik-apr1", 22, ALNUM + "./")
    add(
        "docker-compose-traefik-basicauth-label-doubled-dollar",
        h,
        f'    labels:\n      - "traefik.enable=true"\n      - "traefik.http.routers.dash.rule=Host(`traefik.acme.example`)"\n      - "traefik.http.middlewares.dash-auth.basicauth.users=admin:$$apr1$${salt}$${h}"\n',
    )
    t = "npm_" + d.s("compose-build-args", 36, ALNUM)
    add(
        "docker-compose-build-args-map-npm-token",
        t,
        f"services:\n  web:\n    build:\n      context: .\n      args:\n        NODE_ENV: production\n        NPM_TOKEN: {t}\n",
    )
    t = d.s("k8s-probe", 40, ALNUM)
    add(
        "kubernetes-probe-httpget-httpheaders-authorization",
        t,
        f"        livenessProbe:\n          httpGet:\n            path: /healthz\n            port: 8080\n            httpHeaders:\n              - name: Authorization\n                value: Bearer {t}\n          periodSeconds: 10\n",
    )
    p = d.human("helm-get-values")
    add(
        "helm-get-values-all-output-auth-password",
        p,
        f"$ helm get values cache -n data\nUSER-SUPPLIED VALUES:\narchitecture: replication\nauth:\n  enabled: true\n  password: {p}\nmaster:\n  persistence:\n    size: 8Gi\n",
    )
    t = _aws_secret(d, "pulumi-py-provider")
    add(
        "pulumi-python-aws-provider-secret-key-literal",
        t,
        f'prod = aws.Provider(\n    "prod",\n    region="eu-west-1",\n    access_key="{_aws_key_id(d, "pulumi-py-provider-id")}",\n    secret_key="{t}",\n)\n',
    )
    p = d.human("ansible-vault-pass")
    add(
        "ansible-vault-password-file-cat",
        p,
        f"$ grep vault ansible.cfg\nvault_password_file = .vault_pass\n$ cat .vault_pass\n{p}\n$ ansible-playbook site.yml\n",
    )
    t = _github_token(d, "ansible-uri", "ghp_")
    add(
        "ansible-uri-module-headers-authorization-token",
        t,
        f'- name: Create release\n  ansible.builtin.uri:\n    url: https://api.github.com/repos/acme/api/releases\n    method: POST\n    headers:\n      Authorization: "token {t}"\n    body_format: json\n    body: {{ tag_name: "v1.4.0" }}\n    status_code: 201\n',
    )
    t = d.s("semaphore-ci", 40, HEX)
    add(
        "semaphore-ci-yml-env-vars-name-value",
        t,
        f"version: v1.0\nname: Test\nblocks:\n  - name: Unit\n    task:\n      env_vars:\n        - name: NODE_ENV\n          value: test\n        - name: COVERALLS_REPO_TOKEN\n          value: {t}\n      jobs:\n        - name: npm test\n          commands:\n            - npm test\n",
    )
    t = d.s("appveyor", 32, ALNUM)
    add(
        "appveyor-yml-environment-plain-token",
        t,
        f"version: 1.0.{{build}}\nimage: Visual Studio 2022\nenvironment:\n  CODECOV_TOKEN: {d.uuid('appveyor-codecov')}\n  NUGET_API_KEY: oy2{t}\nbuild_script:\n  - dotnet build -c Release\n",
    )
    t = _github_token(d, "gha-dispatch-default", "ghp_")
    add(
        "github-actions-workflow-dispatch-input-default-token",
        t,
        f"on:\n  workflow_dispatch:\n    inputs:\n      registry_token:\n        description: 'token for the private registry'\n        required: false\n        default: '{t}'\n",
    )
    p = d.human("do-app-spec")
    add(
        "digitalocean-app-spec-envs-general-value",
        p,
        f"name: acme-api\nregion: fra\nservices:\n  - name: api\n    github:\n      repo: acme/api\n      branch: main\n    envs:\n      - key: DB_PASSWORD\n        value: {p}\n        scope: RUN_TIME\n        type: GENERAL\n",
    )
    t = "dckr_pat_" + d.s("kamal-registry", 27, BASE64URL)
    add(
        "kamal-deploy-yml-registry-password-literal",
        t,
        f"service: acme\nimage: acme/web\nservers:\n  web:\n    - 203.0.113.10\nregistry:\n  username: acmeops\n  password: {t}\n",
    )
    t = _aws_secret(d, "loki-s3")
    add(
        "loki-config-storage-aws-secret-access-key",
        t,
        f"storage_config:\n  aws:\n    s3: s3://eu-west-1/acme-loki-chunks\n    access_key_id: {_aws_key_id(d, 'loki-s3-id')}\n    secret_access_key: {t}\n  tsdb_shipper:\n    active_index_directory: /loki/index\n",
    )
    t = d.uuid("otel-signoz")
    add(
        "otel-collector-exporter-headers-signoz-ingestion-key",
        t,
        f'exporters:\n  otlp:\n    endpoint: "ingest.eu.signoz.cloud:443"\n    tls:\n      insecure: false\n    headers:\n      "signoz-ingestion-key": "{t}"\n',
    )
    t = d.s("nginx-api-key", 40, ALNUM)
    add(
        "nginx-conf-proxy-set-header-x-api-key",
        t,
        f"    location /upstream/ {{\n        proxy_pass https://partner.example.com/;\n        proxy_set_header X-Api-Key {t};\n        proxy_set_header Host partner.example.com;\n    }}\n",
    )
    t = _aws_secret(d, "tfstate-iam-key")
    add(
        "terraform-tfstate-aws-iam-access-key-secret-attribute",
        t,
        '{\n  "mode": "managed",\n  "type": "aws_iam_access_key",\n  "name": "ci",\n  "instances": [\n    {\n      "schema_version": 0,\n      "attributes": {\n        "id": "'
        + _aws_key_id(d, "tfstate-iam-key-id")
        + '",\n        "secret": "'
        + t
        + '",\n        "status": "Active",\n        "user": "ci-deployer"\n      },\n      "sensitive_attributes": []\n    }\n  ]\n}',
    )
    p = d.human("copilot-manifest")
    add(
        "aws-copilot-manifest-variables-literal",
        p,
        f"name: api\ntype: Load Balanced Web Service\nimage:\n  build: Dockerfile\n  port: 8080\nvariables:\n  LOG_LEVEL: info\n  DB_PASSWORD: '{p}'\n",
    )


def _connection_strings(d: _Batch8Draw, add: Add) -> None:
    p = d.human("cockroach-scheme", symbols="!*_.-")
    add(
        "sqlalchemy-cockroachdb-scheme-url-cluster-option",
        p,
        f'engine = create_engine(\n    "cockroachdb://maxroach:{p}@free-tier14.aws-eu-west-1.cockroachlabs.cloud:26257/defaultdb"\n    "?sslmode=verify-full&options=--cluster%3Dacme-3821"\n)\n',
    )
    p = d.human("oracle-jdbc-userinfo", symbols="!*_.-#")
    add(
        "oracle-jdbc-thin-url-user-slash-password",
        p,
        f"spring.datasource.url=jdbc:oracle:thin:scott/{p}@//orcl.db.acme.example:1521/ORCLPDB1\nspring.datasource.driver-class-name=oracle.jdbc.OracleDriver\n",
    )
    p = d.human("db2-jdbc")
    add(
        "db2-jdbc-url-trailing-properties-password",
        p,
        f'String url = "jdbc:db2://db2.acme.example:50000/SAMPLE:user=db2inst1;password={p};sslConnection=true;";\n',
    )
    p = d.human("neo4j-aura")
    add(
        "neo4j-aura-driver-auth-tuple",
        p,
        f'driver = GraphDatabase.driver(\n    "neo4j+s://{d.s("neo4j-aura-id", 8, LOWER_ALNUM)}.databases.neo4j.io",\n    auth=("neo4j", "{p}"),\n)\n',
    )
    p = d.human("surreal-pass")
    add(
        "surrealdb-sql-cli-pass-flag",
        p,
        f"$ surreal sql --endpoint http://localhost:8000 --namespace acme --database app --user root --pass '{p}' --pretty\n",
    )
    p = d.human("pylibmc-sasl")
    add(
        "pylibmc-client-sasl-username-password",
        p,
        f'mc = pylibmc.Client(\n    ["mc1.acme.example:11211"],\n    binary=True,\n    username="app",\n    password="{p}",\n    behaviors={{"tcp_nodelay": True, "ketama": True}},\n)\n',
    )
    secret = quote(_aws_secret(d, "mongo-aws-secret"), safe="")
    add(
        "mongodb-uri-aws-auth-mechanism-url-encoded-secret",
        secret,
        f'MONGODB_URI="mongodb+srv://{_aws_key_id(d, "mongo-aws-id")}:{secret}@cluster0.ab1cd.mongodb.net/?authSource=%24external&authMechanism=MONGODB-AWS"\n',
    )
    t = quote(_aws_session_token(d, "rds-iam-token"), safe="")
    add(
        "aws-rds-iam-auth-token-pgpassword",
        t,
        f'$ export PGPASSWORD="$(aws rds generate-db-auth-token --hostname prod.cluster-c9abc.eu-west-1.rds.amazonaws.com --port 5432 --username iam_reader)"\n$ echo $PGPASSWORD\nprod.cluster-c9abc.eu-west-1.rds.amazonaws.com:5432/?Action=connect&DBUser=iam_reader&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIA{d.s("rds-iam-cred", 16, UPPER_ALNUM)}%2F20240510%2Feu-west-1%2Frds-db%2Faws4_request&X-Amz-Date=20240510T101500Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Security-Token={t}&X-Amz-Signature={d.s("rds-iam-sig", 64, HEX)}\n',
    )
    p = d.human("solace-props")
    add(
        "solace-python-messaging-properties-basic-password",
        p,
        f'broker_props = {{\n    "solace.messaging.transport.host": "tcps://mr-connection-abc123.messaging.solace.cloud:55443",\n    "solace.messaging.service.vpn-name": "acme-prod",\n    "solace.messaging.authentication.scheme.basic.username": "solace-cloud-client",\n    "solace.messaging.authentication.scheme.basic.password": "{p}",\n}}\n',
    )
    p = d.human("kafka-client-ssl")
    add(
        "kafka-client-properties-ssl-keystore-password",
        p,
        f"bootstrap.servers=kafka-0.acme.example:9093\nsecurity.protocol=SSL\nssl.truststore.location=/etc/kafka/secrets/truststore.jks\nssl.keystore.location=/etc/kafka/secrets/client.keystore.jks\nssl.keystore.password={p}\nssl.key.password={p}\n",
    )
    t = _b64(f"{d.s('es-encoded-id', 20, BASE64URL)}:{d.s('es-encoded-key', 22, BASE64URL)}")
    add(
        "python-elasticsearch-cloud-id-encoded-api-key",
        t,
        f'es = Elasticsearch(\n    cloud_id="acme-prod:ZXUtd2VzdC0xLmF3cy5mb3VuZC5pbyQ0YTFiMmMzZDRlNWY2",\n    api_key="{t}",\n)\n',
    )
    p = d.human("winscp-open", symbols="!*_.-")
    add(
        "winscp-script-open-sftp-url-password",
        p,
        f'option batch abort\noption confirm off\nopen sftp://deploy:{p}@files.acme.example/ -hostkey="ssh-ed25519 255 {_b64(d.raw("winscp-hostkey", 32)).rstrip("=")}"\nput C:\\build\\*.zip /incoming/\nexit\n',
    )
    p = d.human("vsql")
    add(
        "vertica-vsql-w-password-flag",
        p,
        f"$ vsql -h vertica.acme.example -d analytics -U dbadmin -w '{p}' -c 'SELECT version();'\n",
    )
    p = d.human("beeline")
    add(
        "hive-beeline-n-p-flags",
        p,
        f'$ beeline -u "jdbc:hive2://hive.acme.example:10000/default;ssl=true" -n etl -p \'{p}\' -e "show tables;"\n',
    )
    p = d.human("sqlserver-sp-linked", symbols="!*_.-#")
    p = p[:4] + "''" + p[4:]
    add(
        "tsql-sp-addlinkedsrvlogin-doubled-quote-password",
        p,
        f"EXEC master.dbo.sp_addlinkedsrvlogin\n    @rmtsrvname = N'LEGACY01',\n    @useself = N'False',\n    @rmtuser = N'report_reader',\n    @rmtpassword = N'{p}';\nGO\n",
    )


def _terminal_and_agents(d: _Batch8Draw, add: Add) -> None:
    t = _github_token(d, "gh-auth-status", "gho_")
    add(
        "gh-auth-status-show-token-output",
        t,
        f"$ gh auth status --show-token\ngithub.com\n  \u2713 Logged in to github.com account jdoe (keyring)\n  - Active account: true\n  - Git operations protocol: https\n  - Token: {t}\n  - Token scopes: 'gist', 'read:org', 'repo', 'workflow'\n",
    )
    t = "glpat-" + d.s("glab-auth-status", 20, BASE64URL)
    add(
        "glab-auth-status-show-token-output",
        t,
        f"$ glab auth status --show-token\ngitlab.acme.example\n  \u2713 Logged in to gitlab.acme.example as jdoe (/home/jdoe/.config/glab-cli/config.yml)\n  \u2713 Git operations for gitlab.acme.example configured to use https protocol.\n  \u2713 API calls for gitlab.acme.example are made over https protocol.\n  \u2713 REST API Endpoint: https://gitlab.acme.example/api/v4/\n  \u2713 Token: {t}\n",
    )
    t = _github_token(d, "git-remote-v", "ghs_")
    add(
        "git-remote-v-output-installation-token-url",
        t,
        f"$ git remote -v\norigin\thttps://x-access-token:{t}@github.com/acme/api.git (fetch)\norigin\thttps://x-access-token:{t}@github.com/acme/api.git (push)\n",
    )
    t = _b64(_github_token(d, "kubectl-get-json", "ghp_"))
    add(
        "kubectl-get-secret-o-json-output-data",
        t,
        "$ kubectl get secret gh-token -n ci -o json\n"
        + json.dumps(
            {
                "apiVersion": "v1",
                "data": {"token": t, "username": _b64("acme-bot")},
                "kind": "Secret",
                "metadata": {
                    "creationTimestamp": "2024-05-10T09:12:44Z",
                    "name": "gh-token",
                    "namespace": "ci",
                    "resourceVersion": "918273",
                    "uid": d.uuid("kubectl-uid"),
                },
                "type": "Opaque",
            },
            indent=4,
        ),
    )
    p = d.human("aws-get-secret-value")
    add(
        "aws-secretsmanager-get-secret-value-json-output",
        p,
        "$ aws secretsmanager get-secret-value --secret-id prod/orders/db\n"
        + json.dumps(
            {
                "ARN": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/orders/db-AbCdEf",
                "Name": "prod/orders/db",
                "VersionId": d.uuid("aws-gsv-version"),
                "SecretString": json.dumps(
                    {
                        "username": "orders",
                        "password": p,
                        "engine": "postgres",
                        "host": "orders.cluster-c9abc.eu-west-1.rds.amazonaws.com",
                        "port": 5432,
                    }
                ),
                "VersionStages": ["AWSCURRENT"],
                "CreatedDate": "2024-05-10T10:15:00.000000+00:00",
            },
            indent=4,
        ),
    )
    t = _aws_secret(d, "aws-export-process")
    add(
        "aws-configure-export-credentials-process-json",
        t,
        "$ aws configure export-credentials --profile prod --format process\n"
        + json.dumps(
            {
                "Version": 1,
                "AccessKeyId": _aws_key_id(d, "aws-export-process-id", "ASIA"),
                "SecretAccessKey": t,
                "SessionToken": _aws_session_token(d, "aws-export-process-st"),
                "Expiration": "2024-05-10T11:15:00+00:00",
            },
            indent=2,
        ),
    )
    p = d.human("aws-ssm-text")
    add(
        "aws-ssm-get-parameter-with-decryption-text-output",
        p,
        f"$ aws ssm get-parameter --name /prod/api/db-password --with-decryption --output text\nPARAMETER\tarn:aws:ssm:eu-west-1:123456789012:parameter/prod/api/db-password\ttext\t2024-04-02T10:11:12.345000+00:00\t/prod/api/db-password\tSecureString\t{p}\t3\n",
    )
    t = _b64(d.raw("az-keys-list", 64))
    add(
        "az-storage-account-keys-list-table-output",
        t,
        f"$ az storage account keys list -g rg-prod -n acmeprodfiles -o table\nCreationTime                      KeyName    Permissions    Value\n--------------------------------  ---------  -------------  ----------------------------------------------------------------------------------------\n2024-03-01T08:00:00.000000+00:00  key1       FULL           {t}\n2024-03-01T08:00:00.000000+00:00  key2       FULL           {_b64(d.raw('az-keys-list-2', 64))}\n",
    )
    t = "ya29.a0" + d.s("gcloud-print-token", 200, BASE64URL)
    add(
        "gcloud-auth-print-access-token-output",
        t,
        f'$ gcloud auth print-access-token\n{t}\n$ curl -H "Authorization: Bearer $(gcloud auth print-access-token)" https://storage.googleapis.com/storage/v1/b?project=acme-prod\n',
    )
    t = _jwt(
        d,
        "vercel-oidc",
        {
            "iss": "https://oidc.vercel.com/acme",
            "sub": "owner:acme:project:web:environment:development",
            "aud": "https://vercel.com/acme",
            "exp": 1716900000,
        },
        alg="RS256",
    )
    add(
        "vercel-env-pull-generated-file-oidc-token",
        t,
        f'# Created by Vercel CLI\nNX_DAEMON="false"\nTURBO_CACHE="remote:rw"\nVERCEL="1"\nVERCEL_ENV="development"\nVERCEL_OIDC_TOKEN="{t}"\n',
    )
    p = d.human("op-item-get")
    add(
        "onepassword-op-item-get-human-output",
        p,
        f"$ op item get 'Prod DB' --vault Infra\nID:          {d.s('op-id', 26, LOWER_ALNUM)}\nTitle:       Prod DB\nVault:       Infra ({d.s('op-vault', 26, LOWER_ALNUM)})\nCategory:    DATABASE\nFields:\n  type:        postgresql\n  server:      orders.db.acme.example\n  port:        5432\n  database:    orders\n  username:    orders\n  password:    {p}\n",
    )
    p = d.human("security-find-w")
    add(
        "macos-security-find-generic-password-w-output",
        p,
        f"$ security find-generic-password -a jdoe -s smtp-relay -w\n{p}\n",
    )
    t = d.s("grpcurl", 48, BASE64URL)
    add(
        "grpcurl-h-authorization-bearer",
        t,
        f"$ grpcurl -H 'authorization: Bearer {t}' -d '{{\"id\": \"42\"}}' api.acme.example:443 orders.v1.OrderService/GetOrder\n",
    )
    t = _github_token(d, "dotnet-nuget-add", "ghp_")
    add(
        "dotnet-nuget-add-source-password-clear-text",
        t,
        f"> dotnet nuget add source https://nuget.pkg.github.com/acme/index.json --name github --username jdoe --password {t} --store-password-in-clear-text\nPackage source with Name: github added successfully.\n",
    )
    p = d.human("doppler-download")
    add(
        "doppler-secrets-download-no-file-json-output",
        p,
        "$ doppler secrets download --no-file --format json --project api --config prd\n"
        + json.dumps(
            {
                "DOPPLER_CONFIG": "prd",
                "DOPPLER_ENVIRONMENT": "prd",
                "DOPPLER_PROJECT": "api",
                "DB_PASSWORD": p,
                "LOG_LEVEL": "info",
            },
            indent=2,
        ),
    )
    t = "sb_secret_" + d.s("supabase-status", 31, BASE64URL)
    add(
        "supabase-status-output-secret-key",
        t,
        f"$ supabase status\n         API URL: http://127.0.0.1:54321\n     GraphQL URL: http://127.0.0.1:54321/graphql/v1\n          DB URL: postgresql://postgres:postgres@127.0.0.1:54322/postgres\n      Studio URL: http://127.0.0.1:54323\n  Publishable key: sb_publishable_{d.s('supabase-status-pub', 31, BASE64URL)}\n      Secret key: {t}\n",
    )
    payload = _b64(d.raw("ecr-login-payload", 500))
    token = _b64(
        json.dumps(
            {
                "payload": payload,
                "datakey": _b64(d.raw("ecr-datakey", 180)),
                "version": "2",
                "type": "DATA_KEY",
                "expiration": 1716900000,
            }
        )
    )
    add(
        "aws-ecr-get-login-password-output",
        token,
        f"$ aws ecr get-login-password --region eu-west-1\n{token}\n",
    )
    t = "sk-or-v1-" + d.s("agent-env-sort", 64, HEX)
    env_out = f"HOME=/home/dev\nLANG=C.UTF-8\nOPENROUTER_API_KEY={t}\nPATH=/usr/local/bin:/usr/bin:/bin\nPWD=/workspace\nSHELL=/bin/bash\n"
    add(
        "agent-tool-result-json-env-sort-output",
        t,
        json.dumps(
            {
                "type": "tool_result",
                "tool_use_id": "toolu_" + d.s("agent-env-id", 24, ALNUM),
                "content": [{"type": "text", "text": env_out}],
                "is_error": False,
            }
        ),
    )
    t = _stripe_key(d, "agent-read-numbered", "sk_live_")
    add(
        "agent-read-tool-numbered-lines-dotenv",
        t,
        f"\u23fa Read(.env.production)\n  \u23bf  Read 6 lines\n\n     1\u2192NODE_ENV=production\n     2\u2192PORT=3000\n     3\u2192DATABASE_URL=${{DATABASE_URL}}\n     4\u2192STRIPE_SECRET_KEY={t}\n     5\u2192STRIPE_WEBHOOK_PATH=/webhooks/stripe\n     6\u2192\n",
    )
    t = (
        "xoxp-"
        + d.s("agent-tool-call-a", 12, DIGITS)
        + "-"
        + d.s("agent-tool-call-b", 13, DIGITS)
        + "-"
        + d.s("agent-tool-call-c", 13, DIGITS)
        + "-"
        + d.s("agent-tool-call", 32, HEX)
    )
    add(
        "agent-tool-call-json-string-arguments-authorization",
        t,
        json.dumps(
            {
                "id": "call_" + d.s("agent-call-id", 24, ALNUM),
                "type": "function",
                "function": {
                    "name": "http_request",
                    "arguments": json.dumps(
                        {
                            "method": "POST",
                            "url": "https://slack.com/api/chat.postMessage",
                            "headers": {"Authorization": f"Bearer {t}"},
                            "body": {"channel": "#deploys", "text": "done"},
                        }
                    ),
                },
            }
        ),
    )
    t = "glpat-" + d.s("mcp-result", 20, BASE64URL)
    add(
        "mcp-tool-result-content-text-echoes-token",
        t,
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 7,
                "result": {
                    "content": [
                        {
                            "type": "text",
                            "text": f"Authenticated to gitlab.acme.example as jdoe using token {t} (scopes: api, read_repository).",
                        }
                    ],
                    "isError": False,
                },
            }
        ),
    )
    p = d.human("symfony-reveal")
    add(
        "symfony-secrets-list-reveal-table-output",
        p,
        f'$ php bin/console secrets:list --reveal\n\n Secrets\n =======\n\n ------------------- -------- -------------\n  Secret              Value    Local Value\n ------------------- -------- -------------\n  DATABASE_PASSWORD   "{p}"\n  MAILER_DSN          "null://null"\n ------------------- -------- -------------\n\n // Local values override secret values.\n',
    )
    t = _openai_key(d, "n8n-export")
    add(
        "n8n-export-credentials-decrypted-json-output",
        t,
        "$ n8n export:credentials --all --decrypted --pretty\n"
        + json.dumps(
            [
                {
                    "createdAt": "2024-05-10T10:00:00.000Z",
                    "id": d.s("n8n-id", 16, ALNUM),
                    "name": "OpenAI account",
                    "data": {"apiKey": t},
                    "type": "openAiApi",
                }
            ],
            indent=2,
        ),
    )


def _logs_and_http(d: _Batch8Draw, add: Add) -> None:
    t = _github_token(d, "tf-log", "ghp_")
    add(
        "terraform-tf-log-debug-provider-authorization-header",
        t,
        f"2024-05-10T10:21:33.118+0200 [DEBUG] provider.terraform-provider-github_v6.2.1: 2024/05/10 10:21:33 [DEBUG] Sending HTTP Request: GET /repos/acme/api HTTP/1.1\r\nHost: api.github.com\r\nAccept: application/vnd.github.v3+json\r\nAuthorization: Bearer {t}\r\nUser-Agent: go-github/v62.0.0\r\n\r\n: timestamp=2024-05-10T10:21:33.118+0200\n",
    )
    t = "ak_" + d.s("rich-traceback", 40, ALNUM)
    add(
        "rich-traceback-show-locals-panel",
        t,
        _rich_panel(
            "Traceback (most recent call last)",
            [
                "/app/search/client.py:41 in query",
                "",
                *_rich_panel(
                    "locals",
                    [
                        f"api_key = '{t}'",
                        "  index = 'products'",
                        "    url = 'https://search.acme.example'",
                    ],
                    70,
                ).splitlines(),
            ],
            78,
        )
        + "SearchAuthError: 403 Forbidden\n",
    )
    t = d.s("ruby-inspect", 40, ALNUM)
    add(
        "ruby-exception-message-hash-inspect-hashrocket",
        t,
        f'/app/lib/shipping/client.rb:27:in `request\': unexpected response 403 for {{:base_url=>"https://api.shipco.example", :api_key=>"{t}", :timeout=>10}} (Shipping::Error)\n\tfrom /app/lib/shipping/client.rb:12:in `rates\'\n',
    )
    p = d.human("whoops-env")
    add(
        "php-whoops-error-page-environment-table",
        p,
        f'Environment & details:\n\nServer/Request Data\nKey                      Value\nAPP_ENV                  "local"\nDB_CONNECTION            "mysql"\nDB_HOST                  "127.0.0.1"\nDB_USERNAME              "shop"\nDB_PASSWORD              "{p}"\nREDIS_HOST               "127.0.0.1"\n',
    )
    p = d.human("django-debug-url", symbols="!*_.-")
    add(
        "django-debug-page-settings-unmasked-database-url",
        p,
        f"Settings\nUsing settings module config.settings.staging\nSetting                  Value\nALLOWED_HOSTS            ['*']\nAPI_KEY                  '********************'\nDATABASE_URL             'postgres://app:{p}@db.staging.internal:5432/app'\nDEBUG                    True\n",
    )
    p = d.human("syslog-sudo")
    add(
        "syslog-sudo-command-line-mysql-password",
        p,
        f"May 10 10:02:11 web1 sudo:     jdoe : TTY=pts/0 ; PWD=/home/jdoe ; USER=root ; COMMAND=/usr/bin/mysql -uroot -p{p} -e SHOW\\x20DATABASES\nMay 10 10:02:11 web1 sudo: pam_unix(sudo:session): session opened for user root(uid=0) by jdoe(uid=1000)\n",
    )
    t = "sntrys_" + d.s("xtrace-sentry", 120, BASE64URL)
    add(
        "bash-xtrace-set-x-output-token",
        t,
        f"+ export SENTRY_ORG=acme\n+ SENTRY_ORG=acme\n+ export SENTRY_AUTH_TOKEN={t}\n+ SENTRY_AUTH_TOKEN={t}\n+ sentry-cli releases new 1.4.0\n",
    )
    t = "AIza" + d.s("mitmdump-goog", 35, BASE64URL)
    add(
        "mitmdump-flow-detail-x-goog-api-key",
        t,
        f"127.0.0.1:53412: POST https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-flash:generateContent HTTP/2.0\n    content-type: application/json\n    x-goog-api-key: {t}\n    user-agent: google-genai-sdk/1.2.0\n << HTTP/2.0 200 OK 1.2k\n",
    )
    basic = _b64(f"build:{d.human('proxy-auth-dump')}")
    add(
        "http-request-dump-proxy-authorization-basic",
        basic,
        f"CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\nProxy-Authorization: Basic {basic}\r\nUser-Agent: pip/24.0\r\n\r\n",
    )
    t = d.s("otel-span-auth", 48, BASE64URL)
    add(
        "otel-span-json-request-header-authorization-attribute",
        t,
        json.dumps(
            {
                "name": "GET /v1/orders",
                "kind": "SPAN_KIND_CLIENT",
                "attributes": [
                    {"key": "http.request.method", "value": {"stringValue": "GET"}},
                    {
                        "key": "http.request.header.authorization",
                        "value": {"arrayValue": {"values": [{"stringValue": f"Bearer {t}"}]}},
                    },
                ],
            }
        ),
    )
    t = _openai_key(d, "node-console-env")
    add(
        "node-console-log-process-env-inspect-output",
        t,
        f"> console.log(process.env)\n{{\n  SHELL: '/bin/zsh',\n  NODE_ENV: 'development',\n  OPENAI_API_KEY: '{t}',\n  HOME: '/Users/jdoe',\n  LOGNAME: 'jdoe',\n  _: '/usr/local/bin/node'\n}}\n",
    )


def _chat_issues_and_notes(d: _Batch8Draw, add: Add) -> None:
    t = d.s("pr-test-plan", 40, ALNUM)
    add(
        "pr-description-test-plan-curl-with-token",
        t,
        f"## Summary\nAdds pagination to `/v1/orders`.\n\n## Test plan\n- [x] unit tests\n- [x] against staging:\n\n```\ncurl -s -H 'Authorization: Bearer {t}' 'https://staging.acme.example/v1/orders?page=2' | jq length\n```\n",
    )
    t = _stripe_key(d, "issue-title", "rk_live_")
    add(
        "issue-title-quotes-restricted-key",
        t,
        f"#412  401 from /v1/charges with {t} after upgrading to stripe-python 9\nOpened by jdoe \u00b7 3 comments\n",
    )
    t = "key-" + d.s("commit-subject-mailgun", 32, HEX)
    add(
        "commit-message-subject-quotes-key",
        t,
        f"commit {d.s('commit-sha', 40, HEX)}\nAuthor: Jane Doe <jane@acme.example>\nDate:   Fri May 10 10:00:00 2024 +0200\n\n    Switch mailer to {t} until the new domain is verified\n",
    )
    p = d.human("jira-table")
    add(
        "jira-wiki-markup-table-credentials-row",
        p,
        f"h3. Test accounts\n||Environment||User||Password||Notes||\n|staging|qa-admin|{p}|reset weekly|\n|uat|qa-viewer|ask in #qa| |\n",
    )
    p = d.human("org-mode")
    add(
        "org-mode-properties-drawer-password",
        p,
        f"* Home server\n  :PROPERTIES:\n  :HOST:     nas.lan\n  :USER:     admin\n  :PASSWORD: {p}\n  :END:\n** TODO replace disk 3\n",
    )
    t = _openai_key(d, "obsidian-frontmatter")
    add(
        "obsidian-note-yaml-frontmatter-api-key",
        t,
        f"---\ntitle: LLM experiments\ntags: [ai, scratch]\nopenai_key: {t}\n---\n\n# Notes\n- batch API is 50% cheaper\n",
    )
    t = "key-" + d.s("changelog-mailgun", 32, HEX)
    add(
        "changelog-entry-mentions-rotated-old-key",
        t,
        f"## [1.8.2] - 2024-05-10\n### Security\n- Rotated the Mailgun key; the old one ({t}) was in the 1.8.1 image and is revoked.\n",
    )
    t = _anthropic_key(d, "assistant-echo")
    add(
        "assistant-reply-suggested-export-with-users-key",
        t,
        f'Assistant: The 401 happens because the key isn\'t exported in the shell that runs the worker. Add this to your `~/.zshrc` and restart the terminal:\n\n```sh\nexport ANTHROPIC_API_KEY="{t}"\n```\n\nThen run `make worker` again.',
    )
    p = d.human("discord-spoiler")
    add(
        "discord-message-spoiler-tags-password",
        p,
        f"jdoe \u2014 Today at 10:14\nwifi for the hack night is `acme-guest`, pw is ||{p}|| (don't post it in #general pls)\n",
    )
    # --- prose in other languages --------------------------------------------------------------
    p = d.human("chat-italian")
    add(
        "chat-italian-la-password-e",
        p,
        f"Ciao! La password del database di staging \u00e8 {p} \u2014 non condividerla fuori dal team.",
    )
    p = d.human("chat-russian")
    add(
        "chat-russian-parol-colon",
        p,
        f"\u041f\u0430\u0440\u043e\u043b\u044c \u043e\u0442 \u0441\u0435\u0440\u0432\u0435\u0440\u0430 \u0441\u0442\u0435\u0439\u0434\u0436\u0438\u043d\u0433\u0430: {p} (\u043b\u043e\u0433\u0438\u043d deploy). \u041f\u043e\u043c\u0435\u043d\u044f\u044e \u043f\u043e\u0441\u043b\u0435 \u0440\u0435\u043b\u0438\u0437\u0430.",
    )
    p = d.human("chat-chinese")
    add(
        "chat-chinese-mima-shi",
        p,
        f"\u6d4b\u8bd5\u73af\u5883\u6570\u636e\u5e93\u5bc6\u7801\u662f{p}\uff0c\u7528\u6237\u540d admin\uff0c\u522b\u5916\u4f20\u3002",
    )
    p = d.human("chat-korean")
    add(
        "chat-korean-bimilbeonho-neun",
        p,
        f"\uc2a4\ud14c\uc774\uc9d5 DB \ube44\ubc00\ubc88\ud638\ub294 {p} \uc785\ub2c8\ub2e4. \uacc4\uc815\uc740 app_rw \uc774\uc5d0\uc694.",
    )
    p = d.human("chat-vietnamese")
    add(
        "chat-vietnamese-mat-khau-la",
        p,
        f"M\u1eadt kh\u1ea9u m\u00e1y ch\u1ee7 th\u1eed nghi\u1ec7m l\u00e0 {p}, t\u00e0i kho\u1ea3n l\u00e0 deploy nh\u00e9.",
    )
    p = d.human("chat-indonesian")
    add(
        "chat-indonesian-kata-sandi",
        p,
        f"Kata sandi VPN kantor: {p} \u2014 jangan dibagikan ke luar tim ya.",
    )
    t = _github_token(d, "chat-ukrainian", "ghp_")
    add(
        "chat-ukrainian-token-dlia-api",
        t,
        f"\u041e\u0441\u044c \u0442\u043e\u043a\u0435\u043d \u0434\u043b\u044f API: {t}, \u0432\u0456\u043d \u0434\u0456\u0454 \u0434\u043e \u043a\u0456\u043d\u0446\u044f \u043c\u0456\u0441\u044f\u0446\u044f.",
    )
    p = d.human("chat-czech")
    add(
        "chat-czech-heslo-je",
        p,
        f"Heslo k produk\u010dn\u00ed datab\u00e1zi je {p}, u\u017eivatel je reporting.",
    )
    p = d.human("chat-hindi")
    add(
        "chat-hindi-password-hai",
        p,
        f"\u0938\u094d\u091f\u0947\u091c\u093f\u0902\u0917 \u0938\u0930\u094d\u0935\u0930 \u0915\u093e \u092a\u093e\u0938\u0935\u0930\u094d\u0921 {p} \u0939\u0948, \u092f\u0942\u091c\u093c\u0930 deploy \u0939\u0948\u0964",
    )
    p = d.human("chat-arabic")
    add(
        "chat-arabic-kalimat-al-murur",
        p,
        f"\u0643\u0644\u0645\u0629 \u0627\u0644\u0645\u0631\u0648\u0631 \u0644\u0642\u0627\u0639\u062f\u0629 \u0627\u0644\u0628\u064a\u0627\u0646\u0627\u062a \u0647\u064a {p} \u0648\u0627\u0633\u0645 \u0627\u0644\u0645\u0633\u062a\u062e\u062f\u0645 admin",
    )


def _newer_and_regional_providers(d: _Batch8Draw, add: Add) -> None:
    t = "*:production." + d.s("unleash", 64, HEX)
    add(
        "unleash-client-api-token-env",
        t,
        f"UNLEASH_URL=https://unleash.acme.example/api/\nUNLEASH_API_TOKEN={t}\nUNLEASH_APP_NAME=checkout\n",
    )
    t = "glffct-" + d.s("glffct", 20, BASE64URL)
    add(
        "gitlab-feature-flags-unleash-instance-id-token",
        t,
        f"const unleash = initialize({{\n  url: 'https://gitlab.com/api/v4/feature_flags/unleash/42',\n  appName: 'production',\n  instanceId: '{t}',\n}});\n",
    )
    t = "tr_prod_" + d.s("trigger-dev", 20, ALNUM)
    add(
        "trigger-dev-secret-key-env",
        t,
        f"# .env (trigger.dev v3)\nTRIGGER_PROJECT_REF=proj_{d.s('trigger-ref', 20, LOWER)}\nTRIGGER_SECRET_KEY={t}\n",
    )
    t = "signkey-prod-" + d.s("inngest", 64, HEX)
    add(
        "inngest-signing-key-env",
        t,
        f"INNGEST_EVENT_KEY={d.s('inngest-event', 86, BASE64URL)}\nINNGEST_SIGNING_KEY={t}\n",
    )
    inner = {
        "apiKey": "sk_live_" + d.s("uploadthing-key", 64, HEX),
        "appId": d.s("uploadthing-app", 10, LOWER_ALNUM),
        "regions": ["sea1"],
    }
    t = _b64(json.dumps(inner, separators=(",", ":")))
    add(
        "uploadthing-token-base64-json-env",
        t,
        f"# .env.local\nUPLOADTHING_TOKEN='{t}'\n",
    )
    t = "BSA" + d.s("brave-search", 28, ALNUM)
    add(
        "brave-search-x-subscription-token-header",
        t,
        f'curl -s "https://api.search.brave.com/res/v1/web/search?q=rust+async" \\\n  -H "Accept: application/json" \\\n  -H "X-Subscription-Token: {t}"\n',
    )
    t = "jina_" + d.s("jina", 60, ALNUM)
    add(
        "jina-reader-bearer-curl",
        t,
        f"curl https://r.jina.ai/https://example.com/blog/post -H 'Authorization: Bearer {t}' -H 'X-Return-Format: markdown'\n",
    )
    t = d.s("kakao", 32, HEX)
    add(
        "kakao-rest-api-key-kakaoak-header",
        t,
        f'curl -G "https://dapi.kakao.com/v2/local/search/address.json" \\\n  -H "Authorization: KakaoAK {t}" \\\n  --data-urlencode "query=\ud310\uad50\uc5ed\ub85c 166"\n',
    )
    t = d.s("wechat-secret", 32, HEX)
    add(
        "wechat-cgi-bin-token-url-appsecret-query",
        t,
        f'resp = requests.get(\n    "https://api.weixin.qq.com/cgi-bin/token?grant_type=client_credential&appid=wx{d.s("wechat-appid", 16, HEX)}&secret={t}"\n)\n',
    )
    t = "SEC" + d.s("dingtalk-sign", 64, HEX)
    add(
        "dingtalk-robot-sign-secret-python",
        t,
        f'WEBHOOK = "https://oapi.dingtalk.com/robot/send?access_token={d.s("dingtalk-at", 64, HEX)}"\nSECRET = "{t}"\n\ntimestamp = str(round(time.time() * 1000))\nstring_to_sign = f"{{timestamp}}\\n{{SECRET}}"\n',
    )
    t = d.s("feishu-secret", 32, ALNUM)
    add(
        "feishu-lark-app-secret-yaml",
        t,
        f"feishu:\n  app_id: cli_{d.s('feishu-app', 16, HEX)}\n  app_secret: {t}\n  verification_token: {d.s('feishu-verify', 32, ALNUM)}\n",
    )
    t = "live_" + d.s("yookassa", 43, BASE64URL)
    add(
        "yookassa-configuration-configure-secret-key",
        t,
        f"from yookassa import Configuration, Payment\n\nConfiguration.configure('{d.s('yookassa-shop', 6, DIGITS)}', '{t}')\n",
    )
    t = d.s("alibaba-oss", 30, ALNUM)
    add(
        "aliyun-oss2-auth-positional-secret",
        t,
        f"import oss2\n\nauth = oss2.Auth('LTAI5t{d.s('alibaba-oss-id', 18, ALNUM)}', '{t}')\nbucket = oss2.Bucket(auth, 'https://oss-cn-hangzhou.aliyuncs.com', 'acme-assets')\n",
    )
    t = d.s("tencent-cos", 32, ALNUM)
    add(
        "tencent-cos-python-cosconfig-secretkey",
        t,
        f"config = CosConfig(\n    Region='ap-guangzhou',\n    SecretId='AKID{d.s('tencent-cos-id', 32, ALNUM)}',\n    SecretKey='{t}',\n)\nclient = CosS3Client(config)\n",
    )
    t = d.s("baidu-bce", 32, HEX)
    add(
        "baidu-bce-credentials-positional-secret",
        t,
        f"from baidubce.auth.bce_credentials import BceCredentials\n\ncredentials = BceCredentials('{d.s('baidu-bce-ak', 32, HEX)}', '{t}')\nconfig = BceClientConfiguration(credentials=credentials, endpoint='bj.bcebos.com')\n",
    )
    t = _b64(d.raw("volcengine-sk", 40))
    add(
        "volcengine-sdk-env-ak-sk-pair",
        t,
        f"export VOLCENGINE_ACCESS_KEY=AKLT{d.s('volcengine-ak', 40, BASE64URL)}\nexport VOLCENGINE_SECRET_KEY={t}\nexport VOLCENGINE_REGION=cn-beijing\n",
    )
    t = "YC" + d.s("yandex-static", 38, BASE64URL)
    add(
        "yandex-object-storage-static-key-aws-credentials-profile",
        t,
        f"[yandex]\naws_access_key_id = YCAJE{d.s('yandex-static-id', 20, BASE64URL)}\naws_secret_access_key = {t}\n# endpoint_url = https://storage.yandexcloud.net  region = ru-central1\n",
    )
    t = d.s("line-bot", 171, BASE64) + "="
    add(
        "line-bot-sdk-python-channel-access-token",
        t,
        f"configuration = Configuration(access_token='{t}')\nhandler = WebhookHandler('{d.s('line-bot-secret', 32, HEX)}')\n",
    )
    t = _b64(d.raw("azure-iot-device", 32))
    add(
        "azure-iot-hub-device-connection-string",
        t,
        f'IOTHUB_DEVICE_CONNECTION_STRING="HostName=acme-hub.azure-devices.net;DeviceId=thermo-01;SharedAccessKey={t}"\n',
    )
    t = _b64(d.raw("azure-china-storage", 64))
    add(
        "azure-china-storage-connection-string-csharp",
        t,
        f'var blobService = new BlobServiceClient(\n    "DefaultEndpointsProtocol=https;AccountName=acmecnfiles;AccountKey={t};EndpointSuffix=core.chinacloudapi.cn");\n',
    )


def _devices_and_home_lab(d: _Batch8Draw, add: Add) -> None:
    p = d.human("arduino-define")
    add(
        "arduino-sketch-define-wifi-password",
        p,
        f'#include <WiFi.h>\n\n#define WIFI_SSID     "HomeNet-5G"\n#define WIFI_PASSWORD "{p}"\n\nvoid setup() {{\n  WiFi.begin(WIFI_SSID, WIFI_PASSWORD);\n}}\n',
    )
    p = d.human("esp32-begin")
    add(
        "esp32-wifi-begin-literal-arguments",
        p,
        f'void connectWifi() {{\n  WiFi.mode(WIFI_STA);\n  WiFi.begin("Garage-IoT", "{p}");\n  while (WiFi.status() != WL_CONNECTED) delay(500);\n}}\n',
    )
    key = ", ".join(str(b) for b in d.raw("z2m-network-key", 16))
    add(
        "zigbee2mqtt-configuration-yaml-network-key-array",
        key,
        f"mqtt:\n  base_topic: zigbee2mqtt\n  server: mqtt://localhost\n  user: z2m\n  password: '!secret mqtt_password'\nadvanced:\n  network_key: [{key}]\n  pan_id: 6754\n",
    )
    p = d.human("frigate-rtsp", symbols="!*_.-")
    add(
        "frigate-config-yml-rtsp-url-password",
        p,
        f"cameras:\n  driveway:\n    ffmpeg:\n      inputs:\n        - path: rtsp://admin:{p}@192.168.1.20:554/cam/realmonitor?channel=1&subtype=0\n          roles:\n            - detect\n",
    )
    t = d.s("pihole-hash", 64, HEX)
    add(
        "pihole-setupvars-webpassword-hash",
        t,
        f"$ cat /etc/pihole/setupVars.conf\nPIHOLE_INTERFACE=eth0\nQUERY_LOGGING=true\nINSTALL_WEB_SERVER=true\nWEBPASSWORD={t}\nBLOCKING_ENABLED=true\n",
    )
    t = d.uuid("proxmox-token")
    add(
        "proxmox-api-token-pveapitoken-header",
        t,
        f"curl -s -H 'Authorization: PVEAPIToken=root@pam!terraform={t}' https://pve.lan:8006/api2/json/nodes\n",
    )
    t = "1-" + d.s("truenas-key", 64, ALNUM)
    add(
        "truenas-api-key-bearer-curl",
        t,
        f'curl -k -H "Authorization: Bearer {t}" https://truenas.lan/api/v2.0/pool\n',
    )
    t = d.s("jellyfin-token", 32, HEX)
    add(
        "jellyfin-x-emby-token-header",
        t,
        f'curl -H "X-Emby-Token: {t}" "http://jellyfin.lan:8096/Items?Recursive=true&IncludeItemTypes=Movie"\n',
    )
    t = d.s("homebridge-ring", 180, BASE64URL)
    add(
        "homebridge-config-json-ring-refresh-token",
        t,
        json.dumps(
            {
                "bridge": {
                    "name": "Homebridge",
                    "username": "0E:54:AB:12:CD:34",
                    "port": 51826,
                    "pin": "031-45-154",
                },
                "platforms": [{"platform": "Ring", "refreshToken": t, "hideLightGroups": True}],
            },
            indent=4,
        ),
    )
    p = d.human("racadm")
    add(
        "idrac-racadm-remote-p-flag",
        p,
        f"$ racadm -r 10.0.10.21 -u root -p '{p}' getsysinfo\nSecurity Alert: Certificate is invalid - Certificate is not signed by Trusted Third Party\n",
    )
    salt = _b64url(d.raw("vaultwarden-salt", 16))
    h = _b64url(d.raw("vaultwarden-hash", 32))
    add(
        "vaultwarden-admin-token-argon2-phc-env",
        h,
        f"# vaultwarden.env\nDOMAIN=https://vault.home.example\nSIGNUPS_ALLOWED=false\nADMIN_TOKEN='$argon2id$v=19$m=65540,t=3,p=4${salt}${h}'\n",
    )


def _password_manager_exports(d: _Batch8Draw, add: Add) -> None:
    p = d.human("lastpass-csv")
    add(
        "lastpass-csv-export-row",
        p,
        f"url,username,password,totp,extra,name,grouping,fav\nhttps://admin.acme.example/login,jdoe,{p},,,Acme admin,Work,0\nhttp://sn,,,,NoteType:Server,NAS notes,Home,0\n",
    )
    p = d.human("keepass-xml")
    add(
        "keepass-xml-export-string-value",
        p,
        f'<Entry>\n\t<UUID>{_b64(d.raw("keepass-uuid", 16))}</UUID>\n\t<String><Key>Title</Key><Value>Router</Value></String>\n\t<String><Key>UserName</Key><Value>admin</Value></String>\n\t<String><Key>Password</Key><Value ProtectInMemory="True">{p}</Value></String>\n\t<String><Key>URL</Key><Value>http://192.168.1.1</Value></String>\n</Entry>',
    )
    p = d.human("enpass-json")
    add(
        "enpass-json-export-password-field",
        p,
        json.dumps(
            {
                "items": [
                    {
                        "title": "Hosting panel",
                        "category": "login",
                        "fields": [
                            {"label": "Username", "type": "username", "value": "jdoe"},
                            {"label": "Password", "type": "password", "value": p, "sensitive": 1},
                            {
                                "label": "Website",
                                "type": "url",
                                "value": "https://panel.host.example",
                            },
                        ],
                    }
                ]
            },
            indent=2,
        ),
    )


def _escaped_and_split(d: _Batch8Draw, add: Add) -> None:
    base = d.human("go-json-amp", symbols="!*_.-")
    p = base[:5] + "\\u0026" + base[5:]
    add(
        "go-json-marshal-html-escaped-ampersand-password",
        p,
        f'{{"level":"debug","ts":1715335200.123,"msg":"loaded config","config":{{"db_user":"app","db_password":"{p}","db_host":"db:5432"}}}}\n',
    )
    p = d.human("xml-cdata", symbols="!*_.-") + "<&" + d.s("xml-cdata-tail", 3, ALNUM)
    add(
        "xml-cdata-wrapped-password-element",
        p,
        f"<datasource>\n  <url>jdbc:postgresql://db:5432/app</url>\n  <user>app</user>\n  <password><![CDATA[{p}]]></password>\n</datasource>",
    )
    base = d.human("md-table-pipe", symbols="!*_.-")
    p = base[:6] + "\\|" + base[6:]
    add(
        "markdown-table-escaped-pipe-password",
        p,
        f"| Service | User | Password |\n|---------|------|----------|\n| Grafana | admin | {p} |\n| MinIO | root | see vault |\n",
    )
    base = d.human("ps-backtick", symbols="!*_.-")
    p = base[:5] + "`$" + base[5:]
    add(
        "powershell-backtick-escaped-dollar-password",
        p,
        f'$cred = New-Object System.Management.Automation.PSCredential("CORP\\svc-deploy", (ConvertTo-SecureString -AsPlainText -Force "{p}"))\n',
    )
    base = d.human("c-escaped", symbols="!*_.-")
    p = base[:4] + '\\"' + base[4:8] + "\\\\" + base[8:]
    add(
        "c-string-literal-escaped-quote-and-backslash-password",
        p,
        f'static const char *DB_PASS = "{p}";\nmysql_real_connect(conn, "localhost", "app", DB_PASS, "app", 0, NULL, 0);\n',
    )
    first = d.s("props-continued-a", 32, ALNUM)
    add(
        "java-properties-backslash-continued-token",
        first,
        f"# application.properties\npayments.api.base-url=https://api.payments.example\npayments.api.token={first}\\\n    {d.s('props-continued-b', 32, ALNUM)}\npayments.api.timeout=5s\n",
    )
    t = _github_token(d, "url-encoded-webhook", "ghp_")
    enc = quote(f"https://jdoe:{t}@git.acme.example/acme/api.git", safe="")
    add(
        "webhook-payload-form-urlencoded-clone-url-with-token",
        t,
        f"POST /hooks/deploy HTTP/1.1\r\nHost: ci.acme.example\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\nref=refs%2Fheads%2Fmain&clone_url={enc}&sha={d.s('url-encoded-sha', 40, HEX)}",
    )
    p = d.human("yaml-crlf-env")
    add(
        "yaml-crlf-line-endings-windows-checkout-password",
        p,
        f'smtp:\r\n  host: smtp.acme.example\r\n  port: 587\r\n  username: alerts\r\n  password: "{p}"\r\n',
    )


_PARTS = (
    _shell_and_env,
    _tool_configs,
    _framework_config,
    _client_code,
    _fixtures_and_seeds,
    _infra_and_ci,
    _connection_strings,
    _terminal_and_agents,
    _logs_and_http,
    _chat_issues_and_notes,
    _newer_and_regional_providers,
    _devices_and_home_lab,
    _password_manager_exports,
    _escaped_and_split,
)

# Every kind of this batch, written out literally; all of them are held out.
NAMES: frozenset[str] = frozenset(
    {
        "agent-read-tool-numbered-lines-dotenv",
        "agent-tool-call-json-string-arguments-authorization",
        "agent-tool-result-json-env-sort-output",
        "aliyun-oss2-auth-positional-secret",
        "angular-environment-prod-ts-secret-key",
        "ansible-uri-module-headers-authorization-token",
        "ansible-vault-password-file-cat",
        "appveyor-yml-environment-plain-token",
        "arduino-sketch-define-wifi-password",
        "aspnet-appsettings-kestrel-certificate-password",
        "aspnet-web-config-machinekey-validationkey",
        "assistant-reply-suggested-export-with-users-key",
        "aws-configure-export-credentials-process-json",
        "aws-copilot-manifest-variables-literal",
        "aws-ecr-get-login-password-output",
        "aws-rds-iam-auth-token-pgpassword",
        "aws-secretsmanager-get-secret-value-json-output",
        "aws-ssm-get-parameter-with-decryption-text-output",
        "az-storage-account-keys-list-table-output",
        "azure-china-storage-connection-string-csharp",
        "azure-iot-hub-device-connection-string",
        "baidu-bce-credentials-positional-secret",
        "bash-profile-export-openrouter-key-trailing-comment",
        "bash-read-heredoc-into-variable-sendgrid-key",
        "bash-xtrace-set-x-output-token",
        "brave-search-x-subscription-token-header",
        "bundle-config-file-gems-host-user-colon-password",
        "c-string-literal-escaped-quote-and-backslash-password",
        "changelog-entry-mentions-rotated-old-key",
        "chat-arabic-kalimat-al-murur",
        "chat-chinese-mima-shi",
        "chat-czech-heslo-je",
        "chat-hindi-password-hai",
        "chat-indonesian-kata-sandi",
        "chat-italian-la-password-e",
        "chat-korean-bimilbeonho-neun",
        "chat-russian-parol-colon",
        "chat-ukrainian-token-dlia-api",
        "chat-vietnamese-mat-khau-la",
        "commit-message-subject-quotes-key",
        "conda-environment-yml-variables-wandb-key",
        "configstore-firebase-tools-json-refresh-token",
        "configstore-snyk-json-api-token",
        "continue-dev-config-json-model-api-key",
        "cpp-curl-easy-setopt-xoauth2-bearer",
        "csharp-openai-client-apikeycredential",
        "csharp-sendgridclient-constructor-key",
        "csharp-stripeconfiguration-apikey-assignment",
        "dart-http-basic-auth-base64encode-literal",
        "dart-top-level-const-gemini-api-key",
        "db2-jdbc-url-trailing-properties-password",
        "digitalocean-app-spec-envs-general-value",
        "dingtalk-robot-sign-secret-python",
        "discord-message-spoiler-tags-password",
        "discourse-app-yml-smtp-password",
        "django-debug-page-settings-unmasked-database-url",
        "django-fixture-json-pbkdf2-password-hash",
        "django-settings-anymail-postmark-server-token",
        "django-settings-caches-rediss-location-password",
        "django-settings-storages-aws-secret-access-key",
        "docker-compose-build-args-map-npm-token",
        "docker-compose-command-redis-requirepass-flag",
        "docker-compose-traefik-basicauth-label-doubled-dollar",
        "doppler-secrets-download-no-file-json-output",
        "dotenv-duplicate-key-later-line-wins-paddle-key",
        "dotenv-unquoted-password-containing-hash-then-comment",
        "dotenv-vault-dotenv-key-uri",
        "dotnet-appsettings-azuread-section-client-secret",
        "dotnet-nuget-add-source-password-clear-text",
        "dotnet-user-secrets-secrets-json-file",
        "elixir-config-swoosh-mailer-api-key",
        "elixir-req-new-auth-bearer-tuple",
        "enpass-json-export-password-field",
        "environment-d-user-conf-anthropic-key",
        "envrc-dotenv-if-exists-then-export-perplexity-key",
        "envrc-shell-default-expansion-hf-token",
        "esp32-wifi-begin-literal-arguments",
        "etc-environment-proxy-url-userinfo-password",
        "expo-app-config-js-extra-revenuecat-secret",
        "express-passport-google-strategy-client-secret",
        "fastapi-security-tutorial-secret-key-constant",
        "feishu-lark-app-secret-yaml",
        "flask-config-py-secret-key-bytes-repr",
        "frigate-config-yml-rtsp-url-password",
        "gatsby-config-plugin-options-contentful-access-token",
        "gcloud-auth-print-access-token-output",
        "gh-auth-status-show-token-output",
        "ghost-config-production-json-mail-auth-pass",
        "git-remote-v-output-installation-token-url",
        "gitconfig-url-insteadof-userinfo-gitlab-token",
        "gitea-app-ini-database-passwd-backticks",
        "github-actions-workflow-dispatch-input-default-token",
        "gitlab-feature-flags-unleash-instance-id-token",
        "glab-auth-status-show-token-output",
        "go-github-newclient-withauthtoken",
        "go-json-marshal-html-escaped-ampersand-password",
        "go-jwt-signedstring-hmac-key-bytes",
        "go-nats-connect-userinfo-option",
        "go-net-smtp-plainauth-positional",
        "go-sql-open-sqlserver-url-dsn",
        "go-stripe-package-key-assignment",
        "go-testdata-golden-json-access-token",
        "grpcurl-h-authorization-bearer",
        "haskell-wreq-oauth2bearer-option",
        "helm-get-values-all-output-auth-password",
        "hive-beeline-n-p-flags",
        "homebridge-config-json-ring-refresh-token",
        "http-request-dump-proxy-authorization-basic",
        "idrac-racadm-remote-p-flag",
        "inngest-signing-key-env",
        "issue-title-quotes-restricted-key",
        "java-aws-sdk-v1-basicawscredentials-constructor",
        "java-javamail-authenticator-passwordauthentication",
        "java-jedis-auth-call",
        "java-mongocredential-createcredential-chararray",
        "java-properties-backslash-continued-token",
        "java-testcontainers-withpassword-chain",
        "jellyfin-x-emby-token-header",
        "jest-spyon-mockresolvedvalue-config-api-key",
        "jina-reader-bearer-curl",
        "jira-wiki-markup-table-credentials-row",
        "js-apollo-client-headers-authorization-bearer",
        "js-firebase-admin-credential-cert-object-private-key",
        "js-imagekit-constructor-private-key",
        "js-socket-io-client-auth-token-option",
        "js-stream-chat-getinstance-secret-positional",
        "kafka-client-properties-ssl-keystore-password",
        "kakao-rest-api-key-kakaoak-header",
        "kamal-deploy-yml-registry-password-literal",
        "keepass-xml-export-string-value",
        "keycloak-conf-db-password",
        "kotlin-ktor-client-bearer-loadtokens",
        "kotlin-object-const-val-maps-api-key",
        "ktor-application-conf-jwt-secret",
        "kubectl-get-secret-o-json-output-data",
        "kubernetes-probe-httpget-httpheaders-authorization",
        "laravel-database-seeder-hash-make-literal",
        "laravel-env-pusher-app-secret",
        "lastpass-csv-export-row",
        "line-bot-sdk-python-channel-access-token",
        "llm-cli-keys-json-file",
        "locustfile-on-start-login-json-password",
        "loki-config-storage-aws-secret-access-key",
        "lua-openresty-redis-auth-call",
        "macos-security-find-generic-password-w-output",
        "markdown-table-escaped-pipe-password",
        "mastodon-env-production-otp-secret",
        "mcp-tool-result-content-text-echoes-token",
        "mediawiki-localsettings-wgsecretkey",
        "mitmdump-flow-detail-x-goog-api-key",
        "mongodb-uri-aws-auth-mechanism-url-encoded-secret",
        "mongoshrc-js-db-auth-call",
        "moodle-config-php-dbpass",
        "n8n-export-credentials-decrypted-json-output",
        "neo4j-aura-driver-auth-tuple",
        "nestjs-jwt-module-register-secret",
        "nestjs-typeorm-forroot-password",
        "nextjs-next-config-js-server-runtime-config",
        "nginx-conf-proxy-set-header-x-api-key",
        "ngrok-yml-v2-agent-authtoken",
        "node-console-log-process-env-inspect-output",
        "noxfile-session-env-codecov-token",
        "obsidian-note-yaml-frontmatter-api-key",
        "onepassword-op-item-get-human-output",
        "opencode-json-provider-options-api-key",
        "oracle-jdbc-thin-url-user-slash-password",
        "org-mode-properties-drawer-password",
        "otel-collector-exporter-headers-signoz-ingestion-key",
        "otel-span-json-request-header-authorization-attribute",
        "pam-environment-default-openai-key",
        "perl-lwp-useragent-credentials-call",
        "php-mysqli-constructor-positional-password",
        "php-whoops-error-page-environment-table",
        "pihole-setupvars-webpassword-hash",
        "playwright-config-use-httpcredentials",
        "powershell-backtick-escaped-dollar-password",
        "powershell-profile-hashtable-getenumerator-set-env",
        "pr-description-test-plan-curl-with-token",
        "prestashop-parameters-php-database-password",
        "proxmox-api-token-pveapitoken-header",
        "pulumi-credentials-json-access-tokens-map",
        "pulumi-python-aws-provider-secret-key-literal",
        "pylibmc-client-sasl-username-password",
        "pyproject-poe-task-env-inline-table-replicate-token",
        "pytest-parametrize-list-with-real-token",
        "python-azure-identity-client-secret-credential-positional",
        "python-celery-sqs-broker-url-encoded-secret",
        "python-cryptography-fernet-key-literal",
        "python-docstring-doctest-example-real-key",
        "python-dropbox-app-secret-with-refresh-token",
        "python-elasticsearch-cloud-id-encoded-api-key",
        "python-factory-boy-faker-fallback-real-key",
        "python-google-credentials-from-authorized-user-info-dict",
        "python-hvac-client-token-kwarg",
        "python-kubernetes-client-configuration-api-key-dict",
        "python-langsmith-client-api-key-kwarg",
        "python-paramiko-rsakey-from-private-key-file-password",
        "python-praw-reddit-client-secret-kwarg",
        "python-pygithub-auth-token-class",
        "python-pymongo-mongoclient-username-password-kwargs",
        "python-smtplib-login-apikey-user-sendgrid",
        "python-snowflake-connector-connect-password-kwarg",
        "rails-initializer-stripe-api-key-assignment",
        "rails-production-rb-smtp-settings-sendgrid-password",
        "rails-seeds-rb-create-admin-password",
        "rails-storage-yml-azure-storage-access-key",
        "rakefile-env-or-assign-rubygems-key",
        "rich-traceback-show-locals-panel",
        "rocket-toml-release-secret-key",
        "rspec-stub-const-env-merge-twilio-token",
        "ruby-exception-message-hash-inspect-hashrocket",
        "ruby-openai-client-access-token-kwarg",
        "ruby-redis-new-password-kwarg",
        "rust-lettre-smtp-credentials-new",
        "rust-octocrab-builder-personal-token",
        "scala-sttp-auth-basic",
        "semaphore-ci-yml-env-vars-name-value",
        "solace-python-messaging-properties-basic-password",
        "spring-boot-application-properties-stripe-secret-key",
        "spring-cloud-config-server-git-password-yml",
        "sql-seed-insert-api-tokens-plaintext",
        "sqlalchemy-cockroachdb-scheme-url-cluster-option",
        "ssh-config-setenv-vault-token",
        "strapi-dotenv-app-keys-comma-list",
        "supabase-status-output-secret-key",
        "surrealdb-sql-cli-pass-flag",
        "swift-keychain-ksecvaluedata-string-literal",
        "swift-supabaseclient-supabasekey-argument",
        "symfony-secrets-list-reveal-table-output",
        "syslog-sudo-command-line-mysql-password",
        "tencent-cos-python-cosconfig-secretkey",
        "terraform-credentials-tfrc-json-token",
        "terraform-tf-log-debug-provider-authorization-header",
        "terraform-tfstate-aws-iam-access-key-secret-attribute",
        "thunder-client-collection-json-auth-bearer",
        "tmux-conf-set-environment-global-token",
        "trigger-dev-secret-key-env",
        "truenas-api-key-bearer-curl",
        "ts-ai-sdk-create-anthropic-api-key-option",
        "ts-gitbeaker-gitlab-constructor-token",
        "ts-svix-webhook-constructor-secret",
        "ts-upstash-redis-constructor-token",
        "ts-vercel-blob-put-token-option",
        "tsql-sp-addlinkedsrvlogin-doubled-quote-password",
        "typo3-localconfiguration-php-encryption-key",
        "unleash-client-api-token-env",
        "uploadthing-token-base64-json-env",
        "vaultwarden-admin-token-argon2-phc-env",
        "vercel-cli-auth-json-token",
        "vercel-env-pull-generated-file-oidc-token",
        "vertica-vsql-w-password-flag",
        "volcengine-sdk-env-ak-sk-pair",
        "vscode-settings-json-rest-client-environment-variables",
        "vscode-tasks-json-options-env-github-token",
        "webhook-payload-form-urlencoded-clone-url-with-token",
        "wechat-cgi-bin-token-url-appsecret-query",
        "wezterm-lua-set-environment-variables-anthropic-key",
        "winscp-script-open-sftp-url-password",
        "xml-cdata-wrapped-password-element",
        "xonshrc-dollar-env-assignment-groq-key",
        "yaml-crlf-line-endings-windows-checkout-password",
        "yandex-object-storage-static-key-aws-credentials-profile",
        "yarnrc-v1-quoted-registry-authtoken-pair",
        "yookassa-configuration-configure-secret-key",
        "zigbee2mqtt-configuration-yaml-network-key-array",
        "zshenv-typeset-x-nvidia-nim-key",
    }
)

SPLIT_SEED: Final = 20261205
"""Fixed before the redactor first saw this batch: the sorted names shuffled by it, a third held out."""

_TUNE, _HELD_OUT = split_a_third(sorted(NAMES), SPLIT_SEED)
TUNE: frozenset[str] = frozenset(_TUNE)
"""Two thirds: counted and named at the first look; rules may be changed looking at these."""
HELD_OUT: frozenset[str] = frozenset(_HELD_OUT)
"""A third: counted at the first look, never named; looked at once, after tuning on :data:`TUNE`."""

STILL_STORED: frozenset[str] = frozenset()
"""Kinds the redactor still stores after the fixes that followed the held-out look, and why."""


def build_eighth_batch(seed: int) -> list[UnlistedSample]:
    """Every sample of this batch, drawn from *seed* (same seed, same corpus)."""
    return draw_batch(_Batch8Draw(seed), _PARTS, frozenset(), NAMES)


def older_names() -> set[str]:
    """The kind names of the seven earlier corpora, which this batch must not repeat."""
    return names_before_seventh() | set(SEVENTH_NAMES)
