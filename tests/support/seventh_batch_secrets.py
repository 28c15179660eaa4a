# ruff: noqa: E501  (realistic config, log and shell lines are long; they are data here)
"""A seventh batch of credential kinds, written without reading the redactor's rules.

How it was written: from :mod:`tests.support.unlisted_secrets` only the corpus format was read
(``UnlistedSample``, the ``_Draw`` helpers and alphabets, ``draw_batch``, ``Add`` and the two
shape checks); from :mod:`tests.support.sixth_batch_secrets` only its code structure (its
``_Batch6Draw``, its checksum and encoding helpers, the ``_PARTS``/``NAMES``/``build``/
``older_names`` layout) and its kind *names*; from ``tests/brain/test_redact_sixth_batch.py``
only the corpus-shape tests at its top. Nothing under ``server/`` or ``bench/``, no README,
architecture notes, changelog or commit message, no other test file and no redaction result was
read, and the redactor was never run while writing it. Earlier kind names were compared only to
avoid repeating a kind (the same format in the same place) under a new name.

What it covers, in roughly the proportions a typical product team's repositories, terminals,
notes and assistant chats hold them: ``.env`` files and shell set-ups (exports, aliases, zsh
history, cmd and PowerShell, crontabs, platform CLIs that set variables); application and tool
configuration (framework settings, platform manifests, MCP and assistant configs, ORM and
migration configs, observability agents); code that builds clients of the most used providers
(cloud SDKs, AI APIs, payments, source hosting, messaging, databases) in Python, TypeScript, Go,
Java, C#, Ruby, PHP, Rust, Swift and R; CI and deployment files (GitHub Actions, Cloud Build,
CodeBuild, ECS, SAM, Argo CD, Terraform, Docker builds); shell commands and what tools print
(create-access-key, service principals, ``stripe listen``, initial admin passwords, ``curl -v``);
connection strings; logs, traces and request dumps; and chats, issues, notes and password-manager
output. About a quarter are less common but real formats (Azure connection strings of rarer
services, Google Chat and Mattermost webhooks, Sourcegraph and Salesforce tokens, filter-repo
replacement files, Japanese prose). Values are written the ways people and tools write them:
odd spacing and quoting, comments on the same line, CRLF endings, line continuations, values
split by concatenation or wrapped by a terminal, and values inline in prose.

Every secret is fake and drawn from the seed with the provider's length, alphabet, prefix and
checksum where one is known (the GitHub/npm CRC-32 tokens reuse the earlier batches' helper);
passwords people pick come from the human-like password draw. Every kind is held out: there is
no tune part.

First look, once, by the lead (``python -m bench.redaction --arm seventh``, 20 seeds, a kind
"stored" when an 8-character piece of its secret survives ``redact`` in any run), on
``f461fea`` -- the redactor after the sixth batch's fixes: **16 of 208 stored (8 %)**. The
redactor as this stop found it (``06e8f3b``) stores 24 of 208 (12 %). The last line alone
(every named rule off, caught in every seed of 0-4) catches 180 of 208 (87 %; 167 at
``06e8f3b``). The author saw, by accident, the sixth batch's first-look count in its test
file's docstring, nothing of the rules. The 16: ``argocd-admin-initial-password-output``,
``aws-iam-create-access-key-text-output``, ``chat-japanese-pasuwado-colon``,
``chat-pasted-terminal-hard-wrapped-token``, ``elasticsearch-reset-password-output``,
``handoff-notes-parenthetical-pw``, ``mysqld-log-temporary-root-password``,
``openssl-rand-base64-output-then-env``, ``php-ini-mysqli-default-pw-semicolon-comment``,
``python-smtplib-gmail-app-password-spaced``, ``rubygems-gem-host-api-key-env``,
``sentry-config-yml-system-secret-key``, ``spring-application-yml-placeholder-default-password``,
``sqlalchemy-mssql-odbc-connect-urlencoded-pwd``, ``supabase-new-secret-key-createclient-python``,
``toml-triple-quoted-webhook-secret``. From here on this batch is not unseen either.
"""

from __future__ import annotations

import json
import random
import string
import zlib
from urllib.parse import quote, quote_plus

from tests.support.sixth_batch_secrets import (
    DIGITS,
    LOWER,
    _b64,
    _b64url,
    _github_token,
    _wrap,
)
from tests.support.sixth_batch_secrets import NAMES as SIXTH_NAMES
from tests.support.sixth_batch_secrets import older_names as names_before_sixth
from tests.support.unlisted_secrets import (
    ALNUM,
    BASE32,
    BASE64,
    BASE64URL,
    HEX,
    LOWER_ALNUM,
    UPPER_ALNUM,
    Add,
    UnlistedSample,
    _Draw,
    draw_batch,
)


class _Batch7Draw(_Draw):
    """The same draws as the earlier corpora, from a stream of their own."""

    def rng(self, label: str) -> random.Random:
        return super().rng(f"batch7/{label}")

    def raw(self, label: str, size: int) -> bytes:
        return self.rng(label).randbytes(size)


# --- provider formats (stdlib only) ---------------------------------------------------------


def _openai_key(d: _Batch7Draw, label: str, kind: str = "proj") -> str:
    """``sk-proj-`` (or ``sk-svcacct-``/``sk-admin-``) keys with ``T3BlbkFJ`` in the middle."""
    return (
        f"sk-{kind}-"
        + d.s(label + "-a", 74, BASE64URL)
        + "T3BlbkFJ"
        + d.s(label + "-b", 74, BASE64URL)
    )


def _anthropic_key(d: _Batch7Draw, label: str, kind: str = "api03") -> str:
    return f"sk-ant-{kind}-" + d.s(label, 93, BASE64URL) + "AA"


def _aws_key_id(d: _Batch7Draw, label: str, prefix: str = "AKIA") -> str:
    return prefix + d.s(label, 16, BASE32.replace("0", "").replace("1", ""))


def _aws_secret(d: _Batch7Draw, label: str) -> str:
    return d.s(label, 40, BASE64)


def _jwt(d: _Batch7Draw, label: str, claims: dict[str, object], alg: str = "HS256") -> str:
    header = _b64url(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    body = _b64url(json.dumps(claims, separators=(",", ":")).encode())
    size = 32 if alg == "HS256" else 256
    return f"{header}.{body}.{_b64url(d.raw(label, size))}"


def _stripe_key(d: _Batch7Draw, label: str, prefix: str) -> str:
    return prefix + "51" + d.s(label, 97, ALNUM)


def _slack_token(d: _Batch7Draw, label: str, prefix: str = "xoxb") -> str:
    return f"{prefix}-{d.s(label + '-t', 12, DIGITS)}-{d.s(label + '-u', 13, DIGITS)}-" + d.s(
        label, 24, ALNUM
    )


def _atlassian_token(d: _Batch7Draw, label: str) -> str:
    """``ATATT3xFfGF0`` and a body, then ``=`` and the CRC-32 of the rest in upper hex."""
    body = "ATATT3xFfGF0" + d.s(label, 170, BASE64URL)
    return f"{body}={zlib.crc32(body.encode()):08X}"


def _azure_ad_secret(d: _Batch7Draw, label: str) -> str:
    """Entra ID client secrets: three characters, a digit, ``Q~``, then 34 more."""
    return (
        d.s(label + "-a", 3, ALNUM)
        + d.s(label + "-d", 1, DIGITS)
        + "Q~"
        + d.s(label, 34, ALNUM + "~._-")
    )


def _gmail_app_password(d: _Batch7Draw, label: str) -> str:
    return " ".join(_wrap(d.s(label, 16, LOWER), 4))


def _env_and_shell(d: _Batch7Draw, add: Add) -> None:
    # --- .env files: the ways people actually leave them -------------------------------------
    old = _openai_key(d, "dotenv-old-openai")
    add(
        "dotenv-commented-out-previous-openai-key",
        old,
        f"# --- AI ---\n# OPENAI_API_KEY={old}\nOPENAI_API_KEY=${{OPENAI_KEY_FROM_VAULT}}\nOPENAI_MODEL=gpt-4o-mini\n",
    )
    t = _anthropic_key(d, "dotenv-spaced-anthropic")
    add(
        "dotenv-spaces-around-equals-anthropic-key",
        t,
        f'DEBUG = true\nANTHROPIC_API_KEY = "{t}"\nCLAUDE_MODEL = claude-sonnet-4-5\n',
    )
    t = _jwt(
        d,
        "next-public-service-role",
        {
            "iss": "supabase",
            "ref": d.s("sb-ref", 20, LOWER),
            "role": "service_role",
            "iat": 1716900000,
            "exp": 2032476000,
        },
    )
    add(
        "dotenv-next-public-prefixed-supabase-service-role",
        t,
        f"NEXT_PUBLIC_SUPABASE_URL=https://{d.s('sb-ref', 20, LOWER)}.supabase.co\nNEXT_PUBLIC_SUPABASE_SERVICE_ROLE_KEY={t}\n",
    )
    t = "AIza" + d.s("vite-gemini", 35, BASE64URL)
    add(
        "dotenv-vite-prefixed-gemini-key",
        t,
        f"# .env.local (vite exposes VITE_* to the browser bundle!)\nVITE_API_BASE=/api\nVITE_GEMINI_API_KEY={t}\n",
    )
    t = d.s("crlf-mistral", 32, ALNUM)
    add(
        "dotenv-crlf-line-endings-mistral-key",
        t,
        f"APP_ENV=local\r\nMISTRAL_API_KEY={t}\r\nLOG_LEVEL=debug\r\n",
    )
    t = "sntryu_" + d.hex("example-sentry", 64)
    add(
        "dotenv-example-file-real-sentry-user-token",
        t,
        f"# .env.example -- copy to .env and fill in\nSENTRY_ORG=acme\nSENTRY_PROJECT=web\nSENTRY_AUTH_TOKEN={t}\nNEXT_PUBLIC_SENTRY_DSN=\n",
    )
    t = "sk_test_" + d.s("clerk", 42, ALNUM)
    add(
        "dotenv-local-clerk-secret-key",
        t,
        f"NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=pk_test_{_b64('acme-app.clerk.accounts.dev$').rstrip('=')}\nCLERK_SECRET_KEY={t}\n",
    )
    t = "fw_" + d.s("fireworks", 24, ALNUM)
    add(
        "dotenv-ai-keys-block-fireworks",
        t,
        f"## model providers (only one needs to be set)\nGROQ_API_KEY=\nFIREWORKS_API_KEY={t}\nTOGETHER_API_KEY=\n# GROQ_API_KEY_OLD=revoked\nLLM_FALLBACK=groq\n",
    )
    p = d.password("netcore-env")
    add(
        "dotnet-env-double-underscore-connection-string",
        p,
        f'services:\n  api:\n    image: acme/orders-api:1.14\n    environment:\n      ASPNETCORE_ENVIRONMENT: Staging\n      ConnectionStrings__Default: "Server=sql;Database=Orders;User Id=orders_api;Password={p};TrustServerCertificate=true"\n',
    )
    p = d.password("compose-default")
    add(
        "docker-compose-variable-default-password",
        p,
        f"  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: ${{POSTGRES_USER:-app}}\n      POSTGRES_PASSWORD: ${{POSTGRES_PASSWORD:-{p}}}\n    ports: ['5432:5432']\n",
    )
    # --- shells ------------------------------------------------------------------------------
    t = _github_token(d, "semicolon-chain", "ghp_")
    add(
        "shell-export-github-token-semicolon-chain",
        t,
        f"$ export GITHUB_TOKEN={t}; gh pr list --repo acme/web --state open\nShowing 3 of 3 open pull requests in acme/web\n",
    )
    t = "sk-or-v1-" + d.hex("zsh-hist-or", 64)
    add(
        "zsh-extended-history-export",
        t,
        f": 1718012345:0;cd ~/src/agent\n: 1718012361:0;export OPENROUTER_API_KEY={t}\n: 1718012399:12;uv run agent.py --model anthropic/claude-3.5-sonnet\n",
    )
    t = "gsk_" + d.s("ps-set-item", 52, ALNUM)
    add(
        "powershell-set-item-env-drive",
        t,
        f'PS C:\\Users\\jdoe\\src\\bot> Set-Item -Path Env:GROQ_API_KEY -Value "{t}"\nPS C:\\Users\\jdoe\\src\\bot> python .\\bot.py\n',
    )
    t = "sk-" + d.hex("cmd-deepseek", 32)
    add(
        "windows-cmd-set-quoted-assignment",
        t,
        f'C:\\work\\rag>set "DEEPSEEK_API_KEY={t}"\n\nC:\\work\\rag>python ingest.py --provider deepseek\n',
    )
    t = _github_token(d, "herestring", "ghp_")
    add(
        "gh-auth-login-with-token-herestring",
        t,
        f"jdoe@build-01:~$ gh auth login --hostname github.com --with-token <<< {t}\njdoe@build-01:~$ gh auth status\n",
    )
    t = _github_token(d, "ghcr-echo", "ghp_")
    add(
        "ghcr-docker-login-echo-pipe-stdin",
        t,
        f"echo \"{t}\" | docker login ghcr.io -u jdoe --password-stdin\nWARNING! Your credentials are stored unencrypted in '/home/jdoe/.docker/config.json'.\nLogin Succeeded\n",
    )
    t = _github_token(d, "npm-config-set", "npm_")
    add(
        "npm-config-set-authtoken-command",
        t,
        f"npm config set //registry.npmjs.org/:_authToken {t}\nnpm publish --access public\n",
    )
    t = _openai_key(d, "zsh-alias")
    add(
        "zsh-alias-inline-openai-key",
        t,
        f"# ~/.zshrc\nalias ll='ls -lah'\nalias ask='OPENAI_API_KEY={t} llm -m gpt-4o'\nsource ~/.zsh_plugins.sh\n",
    )
    t = _github_token(d, "bash-fn", "ghp_")
    add(
        "bash-function-wrapper-github-token-header",
        t,
        f'# ~/.bash_aliases\nghapi() {{\n  curl -sS -H "Authorization: token {t}" \\\n       -H "Accept: application/vnd.github+json" "https://api.github.com/$1"\n}}\n',
    )
    s = _aws_secret(d, "crontab-aws")
    add(
        "crontab-env-assignment-aws-secret",
        s,
        f"$ crontab -l\nSHELL=/bin/bash\nAWS_ACCESS_KEY_ID={_aws_key_id(d, 'crontab-aws-id')}\nAWS_SECRET_ACCESS_KEY={s}\n30 2 * * * aws s3 sync /srv/backups s3://acme-nightly-backups/ --quiet\n",
    )
    t = "dp.st.prd." + d.s("launchctl", 40, ALNUM)
    add(
        "launchctl-setenv-command",
        t,
        f"# make it visible to GUI apps too (macOS)\nlaunchctl setenv DOPPLER_TOKEN {t}\nkillall Dock\n",
    )
    t = _stripe_key(d, "vercel-env-add", "sk_live_")
    add(
        "vercel-env-add-echo-pipe",
        t,
        f"$ echo -n '{t}' | vercel env add STRIPE_SECRET_KEY production\nVercel CLI 37.4.2\n✅  Added Environment Variable STRIPE_SECRET_KEY to Project acme-shop [212ms]\n",
    )
    p = d.password("railway-set")
    add(
        "railway-variables-set-flag",
        p,
        f'railway variables --service api --set "SMTP_PASSWORD={p}" --set "SMTP_USER=apikey"\n',
    )
    t = "re_" + d.s("gcloud-run-a", 8, ALNUM) + "_" + d.s("gcloud-run-b", 24, ALNUM)
    add(
        "gcloud-run-set-env-vars-comma-list",
        t,
        f"gcloud run deploy mailer \\\n  --image europe-west1-docker.pkg.dev/acme/app/mailer:latest \\\n  --region europe-west1 \\\n  --set-env-vars NODE_ENV=production,RESEND_API_KEY={t},FROM_EMAIL=hello@acme.dev\n",
    )
    p = d.password("lambda-env")
    add(
        "aws-lambda-environment-variables-shorthand",
        p,
        f'aws lambda update-function-configuration --function-name report-export \\\n    --environment "Variables={{DB_HOST=reports.cluster-c1x2.eu-west-1.rds.amazonaws.com,DB_USER=reporter,DB_PASS={p}}}"\n',
    )
    t = d.hex("az-appsettings", 32)
    add(
        "az-webapp-appsettings-set-settings",
        t,
        f"az webapp config appsettings set -g rg-prod -n acme-api --settings AZURE_OPENAI_ENDPOINT=https://acme-oai.openai.azure.com/ AZURE_OPENAI_KEY={t} WEBSITE_RUN_FROM_PACKAGE=1\n",
    )
    t = "sk-" + d.hex("jupyter-env", 48)
    add(
        "jupyter-percent-env-magic",
        t,
        f"In [1]: %env TOGETHER_BASE=https://api.together.xyz/v1\nIn [2]: %env TOGETHER_API_KEY={t}\nenv: TOGETHER_API_KEY={t}\nIn [3]: from openai import OpenAI\n",
    )
    t = _anthropic_key(d, "r-setenv")
    add(
        "r-sys-setenv-call",
        t,
        f'library(ellmer)\nSys.setenv(ANTHROPIC_API_KEY = "{t}")\nchat <- chat_anthropic(model = "claude-sonnet-4-5")\n',
    )
    p = d.password("gitpod-env")
    add(
        "gitpod-gp-env-set-command",
        p,
        f"gitpod /workspace/shop (main) $ gp env MYSQL_PASSWORD='{p}'\nMYSQL_PASSWORD='{p}'\n",
    )


def _config_files(d: _Batch7Draw, add: Add) -> None:
    # --- framework and application settings --------------------------------------------------
    p = d.password("spring-placeholder")
    add(
        "spring-application-yml-placeholder-default-password",
        p,
        f"spring:\n  datasource:\n    url: jdbc:postgresql://${{DB_HOST:localhost}}:5432/billing\n    username: ${{DB_USER:billing}}\n    password: ${{DB_PASSWORD:{p}}}\n  jpa:\n    open-in-view: false\n",
    )
    t = _openai_key(d, "appsettings-dev")
    add(
        "dotnet-appsettings-development-openai-apikey",
        t,
        json.dumps(
            {
                "Logging": {"LogLevel": {"Default": "Information"}},
                "OpenAI": {"ApiKey": t, "Model": "gpt-4o", "MaxTokens": 2048},
            },
            indent=2,
        ),
    )
    p = d.password("django-databases")
    add(
        "django-settings-databases-dict-password",
        p,
        f"DATABASES = {{\n    'default': {{\n        'ENGINE': 'django.db.backends.postgresql',\n        'NAME': 'shop',\n        'USER': 'shop',\n        'PASSWORD': '{p}',  # TODO env var before go-live\n        'HOST': 'db.internal',\n    }}\n}}\n",
    )
    t = d.s("flask-secret", 48, BASE64URL)
    add(
        "flask-app-config-secret-key-subscript",
        t,
        f"app = Flask(__name__)\napp.config['SECRET_KEY'] = '{t}'\napp.config['SESSION_COOKIE_SECURE'] = True\n",
    )
    p = d.password("alembic")
    add(
        "alembic-ini-sqlalchemy-url",
        p,
        f"[alembic]\nscript_location = migrations\nprepend_sys_path = .\nsqlalchemy.url = postgresql+psycopg://inventory:{p}@10.20.0.14:5432/inventory\n",
    )
    p = d.password("prisma-literal")
    add(
        "prisma-schema-datasource-literal-url",
        p,
        f'datasource db {{\n  provider = "postgresql"\n  // url   = env("DATABASE_URL")\n  url      = "postgresql://postgres:{p}@localhost:5433/app_dev?schema=public"\n}}\n',
    )
    p = d.password("drizzle")
    add(
        "drizzle-config-dbcredentials-url",
        p,
        f"import {{ defineConfig }} from 'drizzle-kit';\n\nexport default defineConfig({{\n  schema: './src/db/schema.ts',\n  dialect: 'mysql',\n  dbCredentials: {{ url: 'mysql://root:{p}@127.0.0.1:3306/crm' }},\n}});\n",
    )
    p = d.password("sequelize-json")
    add(
        "sequelize-config-json-development-password",
        p,
        json.dumps(
            {
                "development": {
                    "username": "root",
                    "password": p,
                    "database": "crm_dev",
                    "host": "127.0.0.1",
                    "dialect": "mysql",
                },
                "test": {
                    "username": "root",
                    "password": None,
                    "database": "crm_test",
                    "host": "127.0.0.1",
                    "dialect": "mysql",
                },
            },
            indent=2,
        ),
    )
    p = d.password("hibernate")
    add(
        "hibernate-cfg-xml-connection-password",
        p,
        f'<hibernate-configuration>\n  <session-factory>\n    <property name="hibernate.connection.url">jdbc:mysql://db:3306/hr</property>\n    <property name="hibernate.connection.username">hr_app</property>\n    <property name="hibernate.connection.password">{p}</property>\n  </session-factory>\n</hibernate-configuration>',
    )
    p = d.password("dbt-pass")
    add(
        "dbt-profiles-yml-pass-field",
        p,
        f"analytics:\n  target: dev\n  outputs:\n    dev:\n      type: postgres\n      host: warehouse.internal\n      user: dbt_jdoe\n      pass: {p}\n      port: 5432\n      dbname: analytics\n      schema: dbt_jdoe\n      threads: 4\n",
    )
    t = _openai_key(d, "streamlit")
    add(
        "streamlit-secrets-toml-openai-key",
        t,
        f'# .streamlit/secrets.toml\nOPENAI_API_KEY = "{t}"\n\n[connections.snowflake]\naccount = "acme-xy12345"\nuser = "STREAMLIT"\n',
    )
    t = d.s("rails-creds-smtp", 43, BASE64URL)
    add(
        "rails-credentials-show-output",
        t,
        f"$ bin/rails credentials:show --environment production\nsecret_key_base: {d.hex('rails-creds-skb', 128)}\n\nsmtp:\n  user_name: apikey\n  password: {t}\n",
    )
    t = d.s("seq-apikey", 20, ALNUM)
    add(
        "serilog-seq-sink-apikey-json",
        t,
        '{\n  "Serilog": {\n    "WriteTo": [\n      { "Name": "Console" },\n      { "Name": "Seq", "Args": { "serverUrl": "https://seq.acme.internal", "apiKey": "'
        + t
        + '" } }\n    ]\n  }\n}',
    )
    # --- platform manifests ------------------------------------------------------------------
    t = _stripe_key(d, "wrangler-vars", "sk_live_")
    add(
        "wrangler-toml-vars-stripe-key",
        t,
        f'name = "checkout-worker"\nmain = "src/index.ts"\ncompatibility_date = "2024-09-23"\n\n[vars]\nSTRIPE_KEY = "{t}"\nENVIRONMENT = "production"\n',
    )
    t = d.s("netlify-toml", 40, ALNUM)
    add(
        "netlify-toml-build-environment-token",
        t,
        f'[build]\n  command = "npm run build"\n  publish = "dist"\n\n[build.environment]\n  NODE_VERSION = "20"\n  CONTENTFUL_DELIVERY_TOKEN = "{t}"\n',
    )
    p = d.password("vercel-json")
    add(
        "vercel-json-env-block-secret",
        p,
        json.dumps(
            {
                "$schema": "https://openapi.vercel.sh/vercel.json",
                "framework": "nextjs",
                "env": {"ADMIN_PASSWORD": p, "NEXT_TELEMETRY_DISABLED": "1"},
            },
            indent=2,
        ),
    )
    t = _stripe_key(d, "runtimeconfig", "sk_test_")
    add(
        "firebase-runtimeconfig-json-stripe-secret",
        t,
        json.dumps(
            {"stripe": {"secret": t, "webhook_path": "/stripe"}, "app": {"env": "staging"}},
            indent=2,
        ),
    )
    p = d.password("serverless-env")
    add(
        "serverless-yml-provider-environment-literal",
        p,
        f"service: invoices\nprovider:\n  name: aws\n  runtime: nodejs20.x\n  region: eu-central-1\n  environment:\n    PG_HOST: invoices.cluster-abc.eu-central-1.rds.amazonaws.com\n    PG_PASSWORD: '{p}'\n",
    )
    t = d.s("appengine-sendgrid", 43, BASE64URL)
    t = "SG." + d.s("appengine-sendgrid-id", 22, BASE64URL) + "." + t
    add(
        "appengine-app-yaml-env-variables",
        t,
        f'runtime: python312\nentrypoint: gunicorn -b :$PORT main:app\n\nenv_variables:\n  SENDGRID_API_KEY: "{t}"\n  BUCKET: acme-uploads\n',
    )
    p = d.password("fly-toml-env")
    add(
        "fly-toml-env-section-literal",
        p,
        f"app = 'acme-wiki'\nprimary_region = 'ams'\n\n[env]\n  WIKI_ADMIN_USER = 'admin'\n  WIKI_ADMIN_PASSWORD = '{p}'\n\n[http_service]\n  internal_port = 3000\n",
    )
    p = d.password("render-yaml-pw")
    add(
        "render-yaml-envvars-value",
        p,
        f"services:\n  - type: web\n    name: api\n    runtime: node\n    envVars:\n      - key: NODE_ENV\n        value: production\n      - key: REDIS_PASSWORD\n        value: {p}\n      - key: RENDER_DEPLOY_HOOK_KEY\n        sync: false\n",
    )
    t = _github_token(d, "eas-json", "npm_")
    add(
        "expo-eas-json-build-profile-env",
        t,
        json.dumps(
            {
                "build": {
                    "production": {
                        "env": {"NPM_TOKEN": t, "APP_VARIANT": "production"},
                        "autoIncrement": True,
                    }
                }
            },
            indent=2,
        ),
    )
    # --- editors, assistants, MCP ------------------------------------------------------------
    t = _openai_key(d, "vscode-launch")
    add(
        "vscode-launch-json-env-key",
        t,
        '{\n    "version": "0.2.0",\n    "configurations": [\n        {\n            "name": "Python: FastAPI",\n            "type": "debugpy",\n            "request": "launch",\n            "module": "uvicorn",\n            "args": ["app.main:app", "--reload"],\n            "env": {"OPENAI_API_KEY": "'
        + t
        + '", "LOG_LEVEL": "debug"}\n        }\n    ]\n}',
    )
    t = "github_pat_" + d.s("mcp-ghpat-a", 22, ALNUM) + "_" + d.s("mcp-ghpat-b", 59, ALNUM)
    add(
        "mcp-server-config-env-github-pat",
        t,
        json.dumps(
            {
                "mcpServers": {
                    "github": {
                        "command": "docker",
                        "args": [
                            "run",
                            "-i",
                            "--rm",
                            "-e",
                            "GITHUB_PERSONAL_ACCESS_TOKEN",
                            "ghcr.io/github/github-mcp-server",
                        ],
                        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": t},
                    }
                }
            },
            indent=2,
        ),
    )
    t = "lin_api_" + d.s("mcp-remote", 40, ALNUM)
    add(
        "mcp-remote-server-headers-bearer",
        t,
        '{\n  "servers": {\n    "linear": {\n      "type": "http",\n      "url": "https://mcp.linear.app/mcp",\n      "headers": { "Authorization": "Bearer '
        + t
        + '" }\n    }\n  }\n}',
    )
    t = _anthropic_key(d, "claude-settings")
    add(
        "claude-code-settings-json-env",
        t,
        json.dumps(
            {
                "permissions": {"allow": ["Bash(npm run test:*)"]},
                "env": {"ANTHROPIC_API_KEY": t, "DISABLE_TELEMETRY": "1"},
            },
            indent=2,
        ),
    )
    t = _anthropic_key(d, "aider-conf")
    add(
        "aider-conf-yml-api-key",
        t,
        f"# .aider.conf.yml\nmodel: sonnet\napi-key:\n  - anthropic={t}\nauto-commits: false\n",
    )
    # --- observability agents and tools ------------------------------------------------------
    t = d.hex("dd-agent-yaml", 32)
    add(
        "datadog-agent-yaml-api-key",
        t,
        f"## /etc/datadog-agent/datadog.yaml\napi_key: {t}\nsite: datadoghq.eu\nlogs_enabled: true\ntags:\n  - env:prod\n",
    )
    t = d.hex("otel-dd", 32)
    add(
        "otel-collector-datadog-exporter-api-key",
        t,
        f"exporters:\n  datadog:\n    api:\n      site: datadoghq.com\n      key: {t}\nservice:\n  pipelines:\n    traces:\n      receivers: [otlp]\n      exporters: [datadog]\n",
    )
    p = d.password("grafana-provisioning")
    add(
        "grafana-datasource-provisioning-securejsondata",
        p,
        f"apiVersion: 1\ndatasources:\n  - name: Postgres\n    type: postgres\n    url: pg.internal:5432\n    user: grafana_ro\n    jsonData:\n      database: metrics\n      sslmode: require\n    secureJsonData:\n      password: '{p}'\n",
    )
    p = d.password("prom-remote-write")
    add(
        "prometheus-remote-write-basic-auth-password",
        p,
        f"remote_write:\n  - url: https://prometheus-prod-24-prod-eu-west-2.grafana.net/api/prom/push\n    basic_auth:\n      username: 1234567\n      password: {p}\n",
    )
    b = _b64(
        json.dumps(
            {
                "iat": 1717171717,
                "url": "https://sentry.io",
                "region_url": "https://de.sentry.io",
                "org": "acme",
            },
            separators=(",", ":"),
        )
    )
    t = f"sntrys_{b}_{d.s('sentry-props', 43, BASE64URL)}"
    add(
        "sentry-properties-auth-token",
        t,
        f"# android/sentry.properties\ndefaults.url=https://sentry.io/\ndefaults.org=acme\ndefaults.project=mobile\nauth.token={t}\n",
    )
    t = _github_token(d, "uv-toml", "ghp_")
    add(
        "uv-toml-index-url-embedded-token",
        t,
        f'[[index]]\nname = "internal"\nurl = "https://jdoe:{t}@pypi.acme.dev/simple/"\nexplicit = true\n',
    )
    p = d.password("dependabot-registry")
    add(
        "dependabot-yml-registries-literal-password",
        p,
        f'version: 2\nregistries:\n  nexus:\n    type: maven-repository\n    url: https://nexus.acme.dev/repository/maven-public\n    username: dependabot\n    password: "{p}"\nupdates:\n  - package-ecosystem: maven\n    directory: "/"\n    registries: [nexus]\n    schedule: {{ interval: weekly }}\n',
    )
    t = d.s("tfvars-json", 40, ALNUM)
    add(
        "terraform-auto-tfvars-json-value",
        t,
        json.dumps(
            {"region": "eu-west-1", "cloudflare_api_token": t, "zone": "acme.dev"}, indent=2
        ),
    )
    p = d.password("code-server")
    add(
        "code-server-config-yaml-password",
        p,
        f"# ~/.config/code-server/config.yaml\nbind-addr: 0.0.0.0:8080\nauth: password\npassword: {p}\ncert: false\n",
    )
    p = d.password("odoo-admin")
    add(
        "odoo-conf-tab-aligned-admin-passwd",
        p,
        f"[options]\naddons_path\t= /mnt/extra-addons\nadmin_passwd\t= {p}\ndb_host\t\t= db\ndb_user\t\t= odoo\n",
    )
    p = d.password("php-ini")
    add(
        "php-ini-mysqli-default-pw-semicolon-comment",
        p,
        f"[MySQLi]\nmysqli.default_host = db.local\nmysqli.default_user = legacy\nmysqli.default_pw = {p} ; FIXME shared with the cron box\n",
    )
    t = d.s("synapse-reg", 40, ALNUM + "~.;:&=")
    add(
        "synapse-homeserver-yaml-registration-shared-secret",
        t,
        f'server_name: "chat.acme.dev"\nenable_registration: false\nregistration_shared_secret: "{t}"\nreport_stats: false\n',
    )
    t = d.s("sentry-system-key", 50, LOWER_ALNUM + "!@#%^&*(-_=+)")
    add(
        "sentry-config-yml-system-secret-key",
        t,
        f"# self-hosted/sentry/config.yml\nmail.host: 'smtp'\nsystem.secret-key: '{t}'\nsymbolicator.enabled: true\n",
    )
    t = d.s("toml-triple", 64, HEX)
    add(
        "toml-triple-quoted-webhook-secret",
        t,
        f'[webhooks.github]\npath = "/hooks/github"\nsecret = """\n{t}"""\n',
    )


def _client_code(d: _Batch7Draw, add: Add) -> None:
    # --- AI APIs -----------------------------------------------------------------------------
    t = _openai_key(d, "py-openai")
    add(
        "python-openai-client-api-key-kwarg",
        t,
        f'from openai import OpenAI\n\nclient = OpenAI(api_key="{t}")\nresp = client.responses.create(model="gpt-4.1-mini", input="ping")\n',
    )
    t = _anthropic_key(d, "py-anthropic")
    add(
        "python-anthropic-client-api-key-kwarg",
        t,
        f"import anthropic\n\nclient = anthropic.Anthropic(\n    api_key='{t}',  # from console.anthropic.com\n)\nmsg = client.messages.create(model=\"claude-sonnet-4-5\", max_tokens=512, messages=msgs)\n",
    )
    t = "sk-" + d.hex("ts-deepseek", 32)
    add(
        "ts-openai-sdk-deepseek-baseurl-apikey",
        t,
        f"import OpenAI from 'openai';\n\nexport const deepseek = new OpenAI({{\n  baseURL: 'https://api.deepseek.com',\n  apiKey: '{t}',\n}});\n",
    )
    t = _anthropic_key(d, "js-fetch-anthropic")
    add(
        "js-fetch-anthropic-x-api-key-header",
        t,
        f"const res = await fetch('https://api.anthropic.com/v1/messages', {{\n  method: 'POST',\n  headers: {{\n    'content-type': 'application/json',\n    'x-api-key': '{t}',\n    'anthropic-version': '2023-06-01',\n  }},\n  body: JSON.stringify(payload),\n}});\n",
    )
    t = _openai_key(d, "langchain-chatopenai")
    add(
        "python-langchain-chatopenai-openai-api-key-kwarg",
        t,
        f'from langchain_openai import ChatOpenAI\n\nllm = ChatOpenAI(model="gpt-4o", temperature=0, openai_api_key="{t}")\n',
    )
    t = "AIza" + d.s("genai-configure", 35, BASE64URL)
    add(
        "python-google-genai-configure-api-key",
        t,
        f"import google.generativeai as genai\n\ngenai.configure(api_key='{t}')\nmodel = genai.GenerativeModel('gemini-1.5-flash')\n",
    )
    t = d.s("mistral-client", 32, ALNUM)
    add(
        "python-mistral-client-api-key-no-prefix",
        t,
        f'from mistralai import Mistral\n\nwith Mistral(api_key="{t}") as mistral:\n    res = mistral.chat.complete(model="mistral-small-latest", messages=messages)\n',
    )
    t = "tvly-dev-" + d.s("tavily", 32, ALNUM)
    add(
        "python-tavily-client-api-key",
        t,
        f'from tavily import TavilyClient\n\ntavily = TavilyClient(api_key="{t}")\nresults = tavily.search("latest pgvector release")\n',
    )
    t = d.hex("deepgram", 40)
    add(
        "python-deepgram-client-positional-key",
        t,
        f'from deepgram import DeepgramClient, PrerecordedOptions\n\ndeepgram = DeepgramClient("{t}")\n',
    )
    t = d.hex("assemblyai", 32)
    add(
        "python-assemblyai-settings-api-key-assignment",
        t,
        f'import assemblyai as aai\n\naai.settings.api_key = "{t}"\ntranscript = aai.Transcriber().transcribe("./standup.m4a")\n',
    )
    t = "hf_" + d.s("hf-login", 34, string.ascii_letters)
    add(
        "python-huggingface-hub-login-token-kwarg",
        t,
        f'from huggingface_hub import login\nlogin(token="{t}", add_to_git_credential=True)\n',
    )
    t = _openai_key(d, "swift-openai")
    add(
        "swift-openai-apitoken-init",
        t,
        f'import OpenAI\n\nlet openAI = OpenAI(apiToken: "{t}")\nlet query = ChatQuery(messages: [.user(.init(content: .string(prompt)))!], model: .gpt4_o)\n',
    )
    t = d.hex("az-keycred", 32)
    add(
        "csharp-azurekeycredential-openai-endpoint",
        t,
        f'var client = new AzureOpenAIClient(\n    new Uri("https://acme-oai.openai.azure.com/"),\n    new AzureKeyCredential("{t}"));\nChatClient chat = client.GetChatClient("gpt-4o");\n',
    )
    t = _openai_key(d, "rust-set-var")
    add(
        "rust-env-set-var-openai-key",
        t,
        f'#[tokio::main]\nasync fn main() -> anyhow::Result<()> {{\n    unsafe {{ std::env::set_var("OPENAI_API_KEY", "{t}") }};\n    let client = async_openai::Client::new();\n',
    )
    # --- cloud SDKs --------------------------------------------------------------------------
    s = _aws_secret(d, "js-s3client")
    add(
        "js-aws-sdk-v3-s3client-credentials-object",
        s,
        f"const s3 = new S3Client({{\n  region: 'eu-west-1',\n  credentials: {{\n    accessKeyId: '{_aws_key_id(d, 'js-s3client-id')}',\n    secretAccessKey: '{s}',\n  }},\n}});\n",
    )
    s = _aws_secret(d, "go-static")
    add(
        "go-aws-static-credentials-provider",
        s,
        f'cfg, err := config.LoadDefaultConfig(ctx,\n\tconfig.WithRegion("us-east-1"),\n\tconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("{_aws_key_id(d, "go-static-id")}", "{s}", "")),\n)\n',
    )
    t = d.s("es-api-key", 22, BASE64URL)
    add(
        "python-elasticsearch-api-key-tuple",
        t,
        f'es = Elasticsearch(\n    cloud_id="acme-prod:{_b64("europe-west1.gcp.cloud.es.io$abc123$def456")}",\n    api_key=("{d.s("es-api-id", 20, BASE64URL)}", "{t}"),\n)\n',
    )
    # --- payments, source hosting, messaging -------------------------------------------------
    t = _stripe_key(d, "py-stripe", "sk_test_")
    add(
        "python-stripe-module-api-key-assignment",
        t,
        f"import stripe\n\nstripe.api_key = '{t}'\nintent = stripe.PaymentIntent.create(amount=1999, currency='eur')\n",
    )
    t = _stripe_key(d, "node-stripe", "sk_live_")
    add(
        "node-stripe-require-invoked-with-key",
        t,
        f"// api/checkout.js\nconst stripe = require('stripe')('{t}');\n\nmodule.exports = async (req, res) => {{\n",
    )
    t = _stripe_key(d, "php-stripe", "sk_live_")
    add(
        "php-stripe-client-constructor",
        t,
        f"<?php\nrequire 'vendor/autoload.php';\n\n$stripe = new \\Stripe\\StripeClient('{t}');\n$customer = $stripe->customers->retrieve($id);\n",
    )
    t = "github_pat_" + d.s("octokit-a", 22, ALNUM) + "_" + d.s("octokit-b", 59, ALNUM)
    add(
        "ts-octokit-auth-option",
        t,
        f'import {{ Octokit }} from "@octokit/rest";\n\nconst octokit = new Octokit({{ auth: "{t}", userAgent: "release-notes v1.2" }});\n',
    )
    t = _github_token(d, "ruby-octokit", "ghp_")
    add(
        "ruby-octokit-client-access-token",
        t,
        f'require "octokit"\n\nclient = Octokit::Client.new(access_token: "{t}")\nclient.auto_paginate = true\n',
    )
    t = _github_token(d, "go-oauth2-static", "gho_")
    add(
        "go-oauth2-static-token-source-github",
        t,
        f'ts := oauth2.StaticTokenSource(\n\t&oauth2.Token{{AccessToken: "{t}"}},\n)\nclient := github.NewClient(oauth2.NewClient(ctx, ts))\n',
    )
    t = "glpat-" + d.s("python-gitlab", 20, BASE64URL)
    add(
        "python-gitlab-private-token-kwarg",
        t,
        f"import gitlab\n\ngl = gitlab.Gitlab('https://gitlab.acme.dev', private_token='{t}')\ngl.auth()\n",
    )
    t = _atlassian_token(d, "py-jira")
    add(
        "python-jira-basic-auth-tuple-atlassian-token",
        t,
        f'from jira import JIRA\n\njira = JIRA(server="https://acme.atlassian.net", basic_auth=("jdoe@acme.dev", "{t}"))\n',
    )
    t = _slack_token(d, "py-slack")
    add(
        "python-slack-webclient-token-kwarg",
        t,
        f'from slack_sdk import WebClient\n\nclient = WebClient(token="{t}")\nclient.chat_postMessage(channel="#deploys", text=":rocket: shipped")\n',
    )
    t = d.s("go-twilio", 32, HEX)
    add(
        "go-twilio-clientparams-password",
        t,
        f'client := twilio.NewRestClientWithParams(twilio.ClientParams{{\n\tUsername: "AC{d.hex("go-twilio-sid", 32)}",\n\tPassword: "{t}",\n}})\n',
    )
    t = d.s("java-static-sendgrid", 43, BASE64URL)
    t = "SG." + d.s("java-static-sendgrid-id", 22, BASE64URL) + "." + t
    add(
        "java-static-final-sendgrid-key",
        t,
        f'public final class MailConfig {{\n    private static final String SENDGRID_API_KEY = "{t}";\n    private static final String FROM = "no-reply@acme.dev";\n',
    )
    t = (
        d.hex("go-const-mailgun", 32)
        + "-"
        + d.hex("go-const-mailgun-b", 8)
        + "-"
        + d.hex("go-const-mailgun-c", 8)
    )
    add(
        "go-const-block-mailgun-key",
        t,
        f'const (\n\tmailgunDomain = "mg.acme.dev"\n\tmailgunAPIKey = "{t}"\n)\n',
    )
    # --- databases, queues, sessions ---------------------------------------------------------
    p = d.password("psycopg2-kwarg")
    add(
        "python-psycopg2-connect-password-kwarg",
        p,
        f'conn = psycopg2.connect(\n    host="analytics-db.internal",\n    dbname="events",\n    user="etl",\n    password="{p}",\n)\n',
    )
    p = d.password("node-pg-pool")
    add(
        "node-pg-pool-password-property",
        p,
        f"const pool = new Pool({{\n  host: process.env.PGHOST ?? 'localhost',\n  user: 'api',\n  password: '{p}',\n  database: 'api',\n  max: 10,\n}});\n",
    )
    p = d.password("datasourcebuilder")
    add(
        "java-datasourcebuilder-password-chain",
        p,
        f'return DataSourceBuilder.create()\n        .url("jdbc:postgresql://db:5432/ledger")\n        .username("ledger")\n        .password("{p}")\n        .build();\n',
    )
    t = d.s("kafka-sasl", 64, BASE64URL.replace("-", "+").replace("_", "/"))
    add(
        "python-kafka-producer-sasl-plain-password",
        t,
        f"producer = KafkaProducer(\n    bootstrap_servers='pkc-12576z.us-west2.gcp.confluent.cloud:9092',\n    security_protocol='SASL_SSL',\n    sasl_mechanism='PLAIN',\n    sasl_plain_username='{d.s('kafka-sasl-user', 16, UPPER_ALNUM)}',\n    sasl_plain_password='{t}',\n)\n",
    )
    t = d.s("express-session", 32, ALNUM)
    add(
        "express-session-middleware-secret",
        t,
        f"app.use(\n  session({{\n    secret: '{t}',\n    resave: false,\n    saveUninitialized: false,\n    cookie: {{ secure: true }},\n  }})\n);\n",
    )
    p = d.password("axios-auth")
    add(
        "js-axios-auth-option-basic",
        p,
        f"const {{ data }} = await axios.get(`${{BASE}}/rest/api/2/search`, {{\n  params: {{ jql }},\n  auth: {{ username: 'svc-reporting', password: '{p}' }},\n}});\n",
    )
    t = _gmail_app_password(d, "smtplib-gmail")
    add(
        "python-smtplib-gmail-app-password-spaced",
        t,
        f'with smtplib.SMTP_SSL("smtp.gmail.com", 465) as server:\n    server.login("acme.alerts@gmail.com", "{t}")\n    server.send_message(msg)\n',
    )
    t = d.s("typesense", 32, ALNUM)
    add(
        "typesense-client-admin-api-key",
        t,
        f"const client = new Typesense.Client({{\n  nodes: [{{ host: 'search.acme.dev', port: 443, protocol: 'https' }}],\n  apiKey: '{t}',\n  connectionTimeoutSeconds: 2,\n}});\n",
    )
    t = d.s("segment-write", 32, ALNUM)
    add(
        "segment-analytics-node-write-key",
        t,
        f"import {{ Analytics }} from '@segment/analytics-node';\n\nexport const analytics = new Analytics({{ writeKey: '{t}' }});\n",
    )
    t = d.s("logtail", 24, ALNUM)
    add(
        "betterstack-logtail-source-token-ruby",
        t,
        f'# config/environments/production.rb\nconfig.logger = Logtail::Logger.create_default_logger("{t}", ingesting_host: "s1234.eu-nbg-2.betterstackdata.com")\n',
    )
    t = d.hex("serpapi", 64)
    add(
        "python-requests-params-api-key-query-dict",
        t,
        f'resp = requests.get(\n    "https://serpapi.com/search.json",\n    params={{"engine": "google", "q": query, "api_key": "{t}"}},\n    timeout=30,\n)\n',
    )
    t = _openai_key(d, "js-concat")
    cut = 60
    span = t[:cut] + "' +\n  '" + t[cut:]
    add(
        "js-string-concatenation-split-openai-key",
        span,
        f"// split so the scanner doesn't flag it (lol)\nconst OPENAI_KEY =\n  '{span}';\n",
    )


def _ci_and_deploy(d: _Batch7Draw, add: Add) -> None:
    t = _github_token(d, "gha-job-env", "npm_")
    add(
        "github-actions-job-env-literal-npm-token",
        t,
        f"jobs:\n  publish:\n    runs-on: ubuntu-latest\n    env:\n      NODE_AUTH_TOKEN: {t}   # TODO: move to secrets.NPM_TOKEN\n    steps:\n      - uses: actions/checkout@v4\n      - run: npm publish\n",
    )
    t = d.s("gha-run-cf", 40, BASE64URL)
    add(
        "github-actions-run-block-curl-literal-token",
        t,
        f'      - name: Purge CDN cache\n        run: |\n          curl -fsS -X POST "https://api.cloudflare.com/client/v4/zones/$ZONE/purge_cache" \\\n            -H "Authorization: Bearer {t}" \\\n            -H "Content-Type: application/json" --data \'{{"purge_everything":true}}\'\n',
    )
    p = d.password("cloudbuild")
    add(
        "cloudbuild-yaml-step-env-list",
        p,
        f"steps:\n  - name: gcr.io/cloud-builders/npm\n    args: ['run', 'migrate']\n    env:\n      - 'DB_HOST=10.12.0.3'\n      - 'DB_PASSWORD={p}'\n",
    )
    t = _github_token(d, "codebuild", "ghp_")
    add(
        "codebuild-buildspec-env-variables-literal",
        t,
        f'version: 0.2\nenv:\n  variables:\n    GO_VERSION: "1.22"\n    GITHUB_TOKEN: "{t}"\nphases:\n  build:\n    commands:\n      - goreleaser release --clean\n',
    )
    p = d.password("ecs-taskdef")
    add(
        "ecs-task-definition-environment-name-value",
        p,
        json.dumps(
            {
                "family": "billing-api",
                "containerDefinitions": [
                    {
                        "name": "api",
                        "image": "123456789012.dkr.ecr.eu-west-1.amazonaws.com/billing-api:2.3.1",
                        "environment": [
                            {"name": "SPRING_PROFILES_ACTIVE", "value": "prod"},
                            {"name": "SPRING_DATASOURCE_PASSWORD", "value": p},
                        ],
                    }
                ],
            },
            indent=2,
        ),
    )
    t = d.s("sam-template", 32, ALNUM)
    add(
        "sam-template-function-environment-variables",
        t,
        f"  WebhookFunction:\n    Type: AWS::Serverless::Function\n    Properties:\n      Handler: app.handler\n      Runtime: python3.12\n      Environment:\n        Variables:\n          SHOPIFY_WEBHOOK_SECRET: {t}\n          TABLE_NAME: !Ref OrdersTable\n",
    )
    p = d.password("argocd-helm-param")
    add(
        "argocd-application-helm-parameters-value",
        p,
        f"spec:\n  source:\n    repoURL: https://charts.bitnami.com/bitnami\n    chart: keycloak\n    targetRevision: 21.4.1\n    helm:\n      parameters:\n        - name: auth.adminUser\n          value: admin\n        - name: auth.adminPassword\n          value: {p}\n",
    )
    p = d.password("tf-ssm")
    add(
        "terraform-aws-ssm-parameter-value-literal",
        p,
        f'resource "aws_ssm_parameter" "db_password" {{\n  name  = "/prod/orders/db_password"\n  type  = "SecureString"\n  value = "{p}"\n}}\n',
    )
    p = d.password("tf-output-json")
    add(
        "terraform-output-json-sensitive-value",
        p,
        f'$ terraform output -json\n{{\n  "db_endpoint": {{\n    "sensitive": false,\n    "type": "string",\n    "value": "orders.c9x.eu-west-1.rds.amazonaws.com"\n  }},\n  "db_master_password": {{\n    "sensitive": true,\n    "type": "string",\n    "value": "{p}"\n  }}\n}}\n',
    )
    t = _github_token(d, "build-arg", "npm_")
    add(
        "docker-build-build-arg-npm-token",
        t,
        f"docker build \\\n  --build-arg NPM_TOKEN={t} \\\n  -t registry.acme.dev/web:$(git rev-parse --short HEAD) .\n",
    )
    t = _github_token(d, "docker-history", "ghp_")
    add(
        "docker-history-no-trunc-build-arg",
        t,
        f"$ docker history --no-trunc acme/api:latest | head -4\nIMAGE          CREATED       CREATED BY                                                                                  SIZE\nsha256:9f1c…   2 hours ago   RUN |1 GH_TOKEN={t} /bin/sh -c go mod download # buildkit   312MB\nsha256:4ab2…   2 hours ago   ARG GH_TOKEN                                                                                0B\n",
    )
    t = _github_token(d, "dockerfile-env", "ghp_")
    add(
        "dockerfile-env-instruction-token",
        t,
        f'FROM golang:1.22 AS build\nENV GOPRIVATE=github.com/acme/*\nENV GITHUB_TOKEN={t}\nRUN git config --global url."https://${{GITHUB_TOKEN}}@github.com/".insteadOf "https://github.com/"\n',
    )
    p = d.password("compose-config")
    add(
        "docker-compose-config-resolved-output",
        p,
        f"$ docker compose config\nname: shop\nservices:\n  db:\n    environment:\n      MARIADB_DATABASE: shop\n      MARIADB_ROOT_PASSWORD: {p}\n    image: mariadb:11\n",
    )
    t = _jwt(
        d,
        "kubectl-create-token",
        {
            "aud": ["https://kubernetes.default.svc"],
            "exp": 1718016000,
            "iss": "https://kubernetes.default.svc",
            "sub": "system:serviceaccount:ci:deployer",
        },
        alg="RS256",
    )
    add(
        "kubectl-create-token-output-jwt",
        t,
        f"$ kubectl -n ci create token deployer --duration=24h\n{t}\n$ kubectl config set-credentials deployer --token=$TOKEN\n",
    )
    t = "CCIPAT_" + d.s("circleci-new", 22, ALNUM) + "_" + d.hex("circleci-new-b", 40)
    add(
        "circleci-ccipat-token-api-curl",
        t,
        f"curl --request POST \\\n  --url https://circleci.com/api/v2/project/gh/acme/web/pipeline \\\n  --header 'Circle-Token: {t}' \\\n  --header 'content-type: application/json'\n",
    )
    t = "bkua_" + d.hex("buildkite-bkua", 40)
    add(
        "buildkite-user-token-graphql-env",
        t,
        f"export BUILDKITE_API_TOKEN={t}\nbk pipeline view web --org acme\n",
    )
    p = d.password("containerapp-secrets")
    add(
        "az-containerapp-secrets-flag",
        p,
        f'az containerapp create -n orders -g rg-apps --environment cae-prod \\\n  --image acme.azurecr.io/orders:1.8.0 \\\n  --secrets "db-pass={p}" \\\n  --env-vars DB_USER=orders DB_PASS=secretref:db-pass\n',
    )


def _terminal(d: _Batch7Draw, add: Add) -> None:
    # --- commands people type --------------------------------------------------------------
    t = _stripe_key(d, "curl-u-stripe", "sk_test_")
    add(
        "curl-basic-u-key-colon-empty-password",
        t,
        f"curl https://api.stripe.com/v1/customers \\\n  -u {t}: \\\n  -d email=jenny@example.com\n",
    )
    t = d.hex("owm-appid", 32)
    add(
        "curl-url-query-appid-key",
        t,
        f'$ curl -s "https://api.openweathermap.org/data/2.5/weather?q=Berlin&units=metric&appid={t}" | jq .main\n',
    )
    t = "tskey-api-" + d.s("ts-api-a", 17, ALNUM) + "-" + d.s("ts-api-b", 33, ALNUM)
    add(
        "tailscale-api-key-curl-basic-u",
        t,
        f"curl -s -u \"{t}:\" https://api.tailscale.com/api/v2/tailnet/-/devices | jq '.devices[].name'\n",
    )
    t = d.hex("azure-oai-header", 32)
    add(
        "azure-openai-api-key-header-curl",
        t,
        f'curl "https://acme-oai.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21" \\\n  -H "Content-Type: application/json" \\\n  -H "api-key: {t}" \\\n  -d \'{{"messages":[{{"role":"user","content":"hi"}}]}}\'\n',
    )
    t = _openai_key(d, "openai-admin", "admin")
    add(
        "openai-admin-key-curl-organization-endpoint",
        t,
        f'curl https://api.openai.com/v1/organization/users?limit=20 \\\n  -H "Authorization: Bearer {t}" \\\n  -H "Content-Type: application/json"\n',
    )
    t = _anthropic_key(d, "anthropic-admin", "admin01")
    add(
        "anthropic-admin-key-curl-workspaces",
        t,
        f"curl https://api.anthropic.com/v1/organizations/workspaces \\\n  --header 'anthropic-version: 2023-06-01' \\\n  --header 'x-api-key: {t}'\n",
    )
    t = "hf_" + d.s("hf-clone", 34, string.ascii_letters)
    add(
        "huggingface-git-clone-url-token",
        t,
        f"git clone https://jdoe:{t}@huggingface.co/acme/support-intent-classifier\n",
    )
    t = "pypi-AgEIcHlwaS5vcmc" + d.s("poetry-pypi", 160, BASE64URL)
    add(
        "poetry-config-pypi-token-command",
        t,
        f"poetry config pypi-token.pypi {t}\npoetry publish --build\n",
    )
    t = "rubygems_" + d.hex("gem-host", 48)
    add(
        "rubygems-gem-host-api-key-env",
        t,
        f"GEM_HOST_API_KEY={t} gem push pkg/acme-client-2.1.0.gem\n",
    )
    t = "sgp_" + d.hex("sourcegraph-a", 16) + "_" + d.hex("sourcegraph-b", 40)
    add(
        "sourcegraph-src-access-token-env",
        t,
        f"export SRC_ENDPOINT=https://sourcegraph.acme.dev\nexport SRC_ACCESS_TOKEN={t}\nsrc search 'repo:acme/ lang:go context.TODO'\n",
    )
    p = d.password("kopia")
    add(
        "kopia-repository-connect-password-flag",
        p,
        f"kopia repository connect s3 --bucket=acme-kopia --access-key=$AWS_ACCESS_KEY_ID --secret-access-key=$AWS_SECRET_ACCESS_KEY --password='{p}'\n",
    )
    p = d.password("redis-cli-auth")
    add(
        "redis-cli-interactive-auth-command",
        p,
        f"$ redis-cli -h cache.internal\ncache.internal:6379> AUTH default {p}\nOK\ncache.internal:6379> INFO keyspace\n",
    )
    p = d.password("mongosh-createuser")
    add(
        "mongosh-db-createuser-pwd",
        p,
        f'test> use reporting\nreporting> db.createUser({{ user: "metabase", pwd: "{p}", roles: [{{ role: "read", db: "reporting" }}] }})\n{{ ok: 1 }}\n',
    )
    # --- what tools print ------------------------------------------------------------------
    s = _aws_secret(d, "iam-create-text")
    add(
        "aws-iam-create-access-key-text-output",
        s,
        f"$ aws iam create-access-key --user-name ci-deployer --output text\nACCESSKEY\t{_aws_key_id(d, 'iam-create-text-id')}\t2024-06-10T09:14:02+00:00\t{s}\tActive\tci-deployer\n",
    )
    s = _aws_secret(d, "sts-session")
    add(
        "aws-sts-get-session-token-json-output",
        s,
        f'$ aws sts get-session-token --serial-number arn:aws:iam::123456789012:mfa/jdoe --token-code 492817\n{{\n    "Credentials": {{\n        "AccessKeyId": "{_aws_key_id(d, "sts-session-id", "ASIA")}",\n        "SecretAccessKey": "{s}",\n        "SessionToken": "IQoJb3JpZ2luX2VjE...",\n        "Expiration": "2024-06-10T21:14:02+00:00"\n    }}\n}}\n',
    )
    t = _azure_ad_secret(d, "sp-rbac")
    add(
        "az-ad-sp-create-for-rbac-json-output",
        t,
        f'$ az ad sp create-for-rbac --name gh-deploy --role contributor --scopes /subscriptions/{d.uuid("sp-sub")}\nCreating \'contributor\' role assignment under scope \'/subscriptions/…\'\n{{\n  "appId": "{d.uuid("sp-app")}",\n  "displayName": "gh-deploy",\n  "password": "{t}",\n  "tenant": "{d.uuid("sp-tenant")}"\n}}\n',
    )
    t = _jwt(
        d,
        "az-get-token",
        {
            "aud": "https://management.azure.com/",
            "iss": "https://sts.windows.net/x/",
            "upn": "jdoe@acme.dev",
        },
        alg="RS256",
    )
    add(
        "az-account-get-access-token-json",
        t,
        f'$ az account get-access-token\n{{\n  "accessToken": "{t}",\n  "expiresOn": "2024-06-10 11:02:45.000000",\n  "subscription": "{d.uuid("az-get-token-sub")}",\n  "tokenType": "Bearer"\n}}\n',
    )
    t = d.s("gsutil-hmac", 40, BASE64)
    add(
        "gsutil-hmac-create-output-secret",
        t,
        f"$ gsutil hmac create backup-sa@acme-prod.iam.gserviceaccount.com\nAccess ID:   GOOG1E{d.s('gsutil-hmac-id', 55, UPPER_ALNUM)}\nSecret:      {t}\n",
    )
    t = d.s("kubectl-b64d", 24, ALNUM)
    add(
        "kubectl-jsonpath-base64-decode-output",
        t,
        f"$ kubectl -n monitoring get secret grafana -o jsonpath='{{.data.admin-password}}' | base64 -d; echo\n{t}\n",
    )
    p = d.password("heroku-config")
    add(
        "heroku-config-output-colon-aligned",
        p,
        f"$ heroku config -a acme-crm\n=== acme-crm Config Vars\nDATABASE_URL:      postgres://u8f3k2:{p}@ec2-52-1-2-3.compute-1.amazonaws.com:5432/d9h2\nRAILS_LOG_TO_STDOUT: enabled\n",
    )
    p = d.password("vault-kv-get")
    add(
        "vault-kv-get-table-output",
        p,
        f"$ vault kv get secret/payments/db\n====== Data ======\nKey         Value\n---         -----\npassword    {p}\nusername    payments\n",
    )
    t = "hvs." + d.s("vault-token-file", 24, ALNUM)
    add(
        "vault-token-file-contents-cat",
        t,
        f"$ cat ~/.vault-token\n{t}$ vault token lookup | grep policies\n",
    )
    t = "whsec_" + d.hex("stripe-listen", 64)
    add(
        "stripe-cli-listen-output-whsec",
        t,
        f"$ stripe listen --forward-to localhost:3000/api/webhooks\n> Ready! You are using Stripe API Version [2024-06-20]. Your webhook signing secret is {t} (^C to quit)\n",
    )
    t = "rk_test_51" + d.s("stripe-cli-config", 97, ALNUM)
    add(
        "stripe-cli-config-toml-test-mode-key",
        t,
        f"[default]\n  device_name = 'jdoe-mbp'\n  display_name = 'Acme'\n  test_mode_api_key = '{t}'\n  test_mode_key_expires_at = '2024-09-08'\n",
    )
    t = _github_token(d, "gh-auth-token", "gho_")
    add(
        "gh-auth-token-command-output",
        t,
        f"$ gh auth token\n{t}\n$ GH_TOKEN=$(gh auth token) goreleaser release\n",
    )
    t = "1//0" + d.s("firebase-login-ci", 99, BASE64URL)
    add(
        "firebase-login-ci-output-token",
        t,
        f'✔  Success! Use this token to login on a CI server:\n\n{t}\n\nExample: firebase deploy --token "$FIREBASE_TOKEN"\n',
    )
    t = "HRKU-AA" + d.s("heroku-auth-token", 58, BASE64URL)
    add(
        "heroku-auth-token-output-warning",
        t,
        f"$ heroku auth:token\n ›   Warning: token will expire 06/10/2025\n ›   Use heroku authorizations:create to generate a long-term token\n{t}\n",
    )
    t = d.s("es-reset", 20, ALNUM + "*=_+-")
    add(
        "elasticsearch-reset-password-output",
        t,
        f"$ bin/elasticsearch-reset-password -u elastic\nThis tool will reset the password of the [elastic] user to an autogenerated value.\nDo you want to continue [y/N]y\n\n\nPassword for the [elastic] user successfully reset.\nNew value: {t}\n",
    )
    t = d.hex("jenkins-initial", 32)
    add(
        "jenkins-initial-admin-password-cat",
        t,
        f"$ docker exec jenkins cat /var/jenkins_home/secrets/initialAdminPassword\n{t}\n",
    )
    t = d.s("argocd-initial", 16, ALNUM + "-")
    add(
        "argocd-admin-initial-password-output",
        t,
        f"$ argocd admin initial-password -n argocd\n{t}\n\n This password must be only used for first time login. We strongly recommend you update the password using `argocd account update-password`.\n",
    )
    t = d.s("mysqld-temp", 12, ALNUM + ";:<>_#%!")
    add(
        "mysqld-log-temporary-root-password",
        t,
        f"2024-06-10T09:01:12.518231Z 6 [Note] [MY-010454] [Server] A temporary password is generated for root@localhost: {t}\n",
    )
    t = _b64(d.raw("openssl-rand", 32))
    add(
        "openssl-rand-base64-output-then-env",
        t,
        f"$ openssl rand -base64 32\n{t}\n$ # pasted that into AUTH_SECRET on vercel\n",
    )
    t = "glpat-" + d.s("git-config-list", 20, BASE64URL)
    add(
        "git-config-list-remote-url-token",
        t,
        f"$ git config --list --show-origin | grep remote\nfile:.git/config        remote.origin.url=https://oauth2:{t}@gitlab.acme.dev/platform/infra.git\nfile:.git/config        remote.origin.fetch=+refs/heads/*:refs/remotes/origin/*\n",
    )
    p = d.password("redis-config-get")
    add(
        "redis-cli-config-get-requirepass-output",
        p,
        f'127.0.0.1:6379> CONFIG GET requirepass\n1) "requirepass"\n2) "{p}"\n',
    )
    t = "00D" + d.s("sf-org-a", 12, ALNUM) + "!AQ" + d.s("sf-org-b", 94, ALNUM + "._")
    add(
        "sf-org-display-access-token-output",
        t,
        f"$ sf org display --target-org acme-prod --verbose\n=== Org Description\n\n KEY              VALUE\n ──────────────── ─────────────────────────\n Access Token     {t}\n Api Version      61.0\n Instance Url     https://acme.my.salesforce.com\n",
    )


def _connection_strings(d: _Batch7Draw, add: Add) -> None:
    p = d.password("jdbc-sqlserver")
    add(
        "jdbc-sqlserver-semicolon-password-property",
        p,
        f"spring.datasource.url=jdbc:sqlserver://sql01.acme.local:1433;databaseName=Payroll;user=payroll_app;password={p};encrypt=true;trustServerCertificate=true\n",
    )
    t = _b64(d.raw("appconfig-secret", 32))
    add(
        "azure-app-configuration-connection-string",
        t,
        f'"AppConfig": "Endpoint=https://acme-config.azconfig.io;Id={d.s("appconfig-id", 4, ALNUM)}-l1-s0:{d.s("appconfig-id2", 20, ALNUM)};Secret={t}"',
    )
    t = _b64(d.raw("signalr", 32))
    add(
        "azure-signalr-connection-string-accesskey",
        t,
        f"Azure__SignalR__ConnectionString=Endpoint=https://acme-chat.service.signalr.net;AccessKey={t};Version=1.0;\n",
    )
    t = _b64(d.raw("acs", 64))
    add(
        "azure-communication-services-connection-string",
        t,
        f'var client = new EmailClient("endpoint=https://acme-comms.europe.communication.azure.com/;accesskey={t}");\n',
    )
    p = d.password("es-url")
    add(
        "elasticsearch-url-elastic-user-password",
        p,
        f'output.elasticsearch:\n  hosts: ["https://elastic:{p}@es01.internal:9200"]\n  ssl.verification_mode: none\n',
    )
    p = d.password("mysql-connector-net")
    add(
        "mysql-connector-net-connection-string-pwd",
        p,
        f'<add name="LegacyDb" connectionString="Server=mysql-legacy;Port=3306;Database=erp;Uid=erp_web;Pwd={p};SslMode=Preferred;" providerName="MySql.Data.MySqlClient" />',
    )
    p = d.password("oracle-tns")
    add(
        "oracle-tns-descriptor-connect-string",
        p,
        f"sqlplus 'hr/{p}@(DESCRIPTION=(ADDRESS=(PROTOCOL=TCP)(HOST=ora-prod.acme.local)(PORT=1521))(CONNECT_DATA=(SERVICE_NAME=HRPDB)))'\n",
    )
    p = d.password("sqlalchemy-odbc")
    odbc = quote_plus(
        f"DRIVER={{ODBC Driver 18 for SQL Server}};SERVER=sql01;DATABASE=dw;UID=etl;PWD={p}"
    )
    enc = quote_plus(p)
    add(
        "sqlalchemy-mssql-odbc-connect-urlencoded-pwd",
        enc,
        f'engine = create_engine("mssql+pyodbc:///?odbc_connect={odbc}")\n',
    )
    p = d.password("curl-ftp")
    add(
        "curl-ftp-url-userinfo",
        p,
        f"curl -T nightly-export.csv ftp://exports:{p}@ftp.partner.example.com/incoming/\n",
    )
    t = "npg_" + d.s("neon-npg", 12, ALNUM)
    add(
        "neon-postgres-url-npg-password",
        t,
        f"DATABASE_URL='postgresql://neondb_owner:{t}@ep-cool-river-a5x7b2c1-pooler.us-east-2.aws.neon.tech/neondb?sslmode=require'\n",
    )
    p = d.password("supabase-pooler")
    ref = d.s("supabase-pooler-ref", 20, LOWER)
    add(
        "supabase-pooler-url-dotted-user",
        p,
        f"# Transaction pooler\npostgresql://postgres.{ref}:{p}@aws-0-eu-central-1.pooler.supabase.com:6543/postgres\n",
    )
    p = d.password("mongo-authsource")
    add(
        "mongodb-uri-encoded-at-sign-authsource",
        quote(p + "@1", safe=""),
        f'MONGO_URL="mongodb://root:{quote(p + "@1", safe="")}@mongo-0.mongo:27017,mongo-1.mongo:27017/app?authSource=admin&replicaSet=rs0"\n',
    )


def _logs_and_traces(d: _Batch7Draw, add: Add) -> None:
    t = _openai_key(d, "json-log-headers")
    add(
        "json-log-line-request-headers-authorization",
        t,
        json.dumps(
            {
                "ts": "2024-06-10T09:12:44.120Z",
                "level": "debug",
                "msg": "outgoing request",
                "method": "POST",
                "url": "https://api.openai.com/v1/embeddings",
                "headers": {"authorization": f"Bearer {t}", "content-type": "application/json"},
            }
        ),
    )
    t = d.s("traceback-key", 40, ALNUM)
    add(
        "python-traceback-source-line-literal-key",
        t,
        f'Traceback (most recent call last):\n  File "/app/jobs/sync.py", line 14, in <module>\n    client = cohere.ClientV2(api_key="{t}")\n  File "/usr/local/lib/python3.12/site-packages/cohere/client_v2.py", line 47, in __init__\ncohere.errors.UnauthorizedError: status_code: 401\n',
    )
    t = d.s("journal-flag", 32, ALNUM)
    add(
        "journalctl-line-api-key-flag",
        t,
        f"Jun 10 09:14:02 app-02 systemd[1]: Started exporter.service - Metrics exporter.\nJun 10 09:14:02 app-02 exporter[81234]: starting: /usr/local/bin/exporter --listen :9108 --api-key={t} --interval 60s\n",
    )
    t = _anthropic_key(d, "http-dump")
    add(
        "http-request-dump-x-api-key-header",
        t,
        f"DEBUG request dump:\nPOST /v1/messages HTTP/1.1\r\nHost: api.anthropic.com\r\nAnthropic-Version: 2023-06-01\r\nContent-Type: application/json\r\nX-Api-Key: {t}\r\n\r\n",
    )
    t = "glsa_" + d.s("curl-verbose", 32, ALNUM) + "_" + d.hex("curl-verbose-crc", 8)
    add(
        "curl-verbose-request-header-output",
        t,
        f"* Connected to grafana.acme.dev (10.0.3.7) port 443\n> GET /api/dashboards/uid/k8s-overview HTTP/2\n> Host: grafana.acme.dev\n> user-agent: curl/8.5.0\n> authorization: Bearer {t}\n> accept: */*\n< HTTP/2 200\n",
    )
    t = d.hex("urllib3-debug", 32)
    add(
        "urllib3-debug-log-query-api-key",
        t,
        f'DEBUG:urllib3.connectionpool:Starting new HTTPS connection (1): api.themoviedb.org:443\nDEBUG:urllib3.connectionpool:https://api.themoviedb.org:443 "GET /3/search/movie?query=heat&api_key={t} HTTP/1.1" 200 4312\n',
    )
    t = _jwt(
        d,
        "devtools-fetch",
        {"sub": "auth0|6123", "aud": "https://api.acme.dev", "scope": "openid profile read:orders"},
        alg="RS256",
    )
    add(
        "devtools-copy-as-fetch-authorization",
        t,
        f'fetch("https://api.acme.dev/v2/orders?page=2", {{\n  "headers": {{\n    "accept": "application/json",\n    "authorization": "Bearer {t}",\n    "sec-fetch-mode": "cors"\n  }},\n  "method": "GET",\n  "mode": "cors"\n}});\n',
    )
    t = d.s("copy-as-curl", 40, BASE64URL)
    add(
        "devtools-copy-as-curl-cookie-flag",
        t,
        f"curl 'https://admin.acme.dev/api/users?limit=50' \\\n  -H 'accept: application/json' \\\n  -b '_ga=GA1.1.1234.5678; admin_session={t}; theme=dark' \\\n  -H 'referer: https://admin.acme.dev/users'\n",
    )
    p = d.password("cloudwatch-body")
    body = json.dumps({"email": "qa@acme.dev", "password": p})
    add(
        "cloudwatch-lambda-event-body-password",
        p,
        "2024-06-10T09:20:11.402Z\t1f0c2f5e-2a3b-4c5d-9e8f-0a1b2c3d4e5f\tINFO\tevent "
        + json.dumps(
            {"httpMethod": "POST", "path": "/login", "body": body, "isBase64Encoded": False}
        ),
    )
    t = _slack_token(d, "log-slack-bot")
    add(
        "python-logging-debug-slack-token-repr",
        t,
        f"2024-06-10 09:31:07,511 DEBUG slack_sdk.web.base_client Sending a request - url: https://slack.com/api/chat.postMessage, query_params: {{}}, body_params: {{}}, files: {{}}, json_body: {{'channel': 'C04AB12CD'}}, headers: {{'Content-Type': 'application/json;charset=utf-8', 'Authorization': '(redacted)', 'User-Agent': 'Python/3.12'}}\n2024-06-10 09:31:07,512 DEBUG app.notify using token={t!r}\n",
    )
    t = "dapi" + d.hex("databricks-log", 32)
    add(
        "databricks-cli-debug-log-bearer",
        t,
        f"09:40:11 DEBUG GET /api/2.0/clusters/list\n> * Authorization: Bearer {t}\n< HTTP/2.0 200 OK\n",
    )
    p = d.password("node-unhandled")
    add(
        "node-error-stack-connection-uri-password",
        p,
        f"node:internal/process/promises:288\n            triggerUncaughtException(err, true /* fromPromise */);\n            ^\n\nMongoServerError: bad auth : authentication failed\n    at Connection.onMessage (/app/node_modules/mongodb/lib/cmap/connection.js:231:30) {{\n  connectionUri: 'mongodb+srv://api:{p}@cluster0.x1y2z.mongodb.net/shop',\n  code: 8000\n}}\n",
    )


def _chat_issues_and_notes(d: _Batch7Draw, add: Add) -> None:
    t = _anthropic_key(d, "chat-inline")
    add(
        "chat-inline-anthropic-key-mid-sentence",
        t,
        f"hey so i set my key to {t} and the sdk still says invalid x-api-key?? it worked yesterday, is the console down or did i paste it wrong\n",
    )
    p = d.password("chat-user-slash")
    add(
        "chat-user-slash-password-pair",
        p,
        f"[09:42] Priya: anyone have the staging admin login?\n[09:43] Tom: admin / {p} — don't share it outside #eng-staging pls\n[09:43] Priya: 🙏\n",
    )
    t = _openai_key(d, "chat-wrap")
    span = t[:65] + "\n" + "\n".join(_wrap(t[65:], 80))
    add(
        "chat-pasted-terminal-hard-wrapped-token",
        span,
        f"this is what printenv shows on the box (it wrapped, sorry):\n\n```\nOPENAI_BASE_URL=https://api.openai.com/v1\nOPENAI_API_KEY={span}\nPORT=8080\n```\nbut the app still logs 'no api key provided'\n",
    )
    t = _github_token(d, "filter-repo", "ghp_")
    add(
        "git-filter-repo-replacements-file-line",
        t,
        f"I leaked a token in an old commit, is this the right way to scrub it?\n\n$ cat replacements.txt\n{t}==>***REMOVED***\nregex:password=\\w+==>password=***\n$ git filter-repo --replace-text replacements.txt\n",
    )
    t = _stripe_key(d, "issue-env", "sk_test_")
    add(
        "github-issue-bug-report-environment-bullets",
        t,
        f"### Describe the bug\nCheckout session creation fails with `StripeAuthenticationError`.\n\n### Environment\n- OS: macOS 14.5\n- Node: 20.14.0\n- stripe-node: 16.2.0\n- Key used: {t}\n\n### Steps to reproduce\n1. `npm run dev`\n",
    )
    p = d.password("jira-wiki")
    add(
        "jira-wiki-markup-bold-password-label",
        p,
        f"h3. Access for the vendor\n*Host:* sftp.acme.dev\n*User:* vendor_upload\n*Password:* {p}\n{{color:red}}Rotate after the migration!{{color}}\n",
    )
    t = _github_token(d, "review-quote", "ghp_")
    add(
        "github-review-comment-quoted-line-token",
        t,
        f"> ```python\n> GITHUB_TOKEN = \"{t}\"\n> ```\n\nPlease don't hard-code this, read it from the environment (and revoke this one, it's in the PR now).\n",
    )
    t = (
        "sk."
        + _b64url(
            json.dumps(
                {"u": "acme-maps", "a": d.s("mapbox-a", 25, LOWER_ALNUM)}, separators=(",", ":")
            ).encode()
        )
        + "."
        + d.s("mapbox-b", 22, BASE64URL)
    )
    add(
        "readme-quickstart-mapbox-secret-token",
        t,
        f"## Quickstart\n\n```bash\nexport MAPBOX_DOWNLOADS_TOKEN={t}\n./gradlew :app:installDebug\n```\n\nThe token above is the team one, ask @maps-team if it stops working.\n",
    )
    p = d.password("handoff-paren")
    add(
        "handoff-notes-parenthetical-pw",
        p,
        f"Handover notes – Grafana\n\nThe on-prem Grafana (grafana.corp.acme.local, login admin, pw {p}) still feeds the NOC wall; the cloud one doesn't have the SNMP dashboards yet.\n",
    )
    p = d.password("chat-japanese")
    add(
        "chat-japanese-pasuwado-colon",
        p,
        f"検証環境のDBです。\nホスト: stg-db.acme.local\nユーザー: app_stg\nパスワード：{p}\n終わったら共有を削除してください。\n",
    )
    p = d.password("bitwarden-export")
    add(
        "bitwarden-json-export-login-password",
        p,
        json.dumps(
            {
                "encrypted": False,
                "items": [
                    {
                        "type": 1,
                        "name": "AWS root (billing)",
                        "login": {
                            "uris": [{"uri": "https://signin.aws.amazon.com"}],
                            "username": "aws-root@acme.dev",
                            "password": p,
                            "totp": None,
                        },
                    }
                ],
            },
            indent=2,
        ),
    )
    p = d.password("keepassxc")
    add(
        "keepassxc-cli-show-output",
        p,
        f"$ keepassxc-cli show -s ~/vault.kdbx infra/pfsense\nEnter password to unlock /home/jdoe/vault.kdbx:\nTitle: pfsense\nUserName: admin\nPassword: {p}\nURL: https://10.0.0.1\nNotes:\n",
    )
    p = d.password("pass-show")
    add(
        "pass-show-output-first-line",
        p,
        f"$ pass show work/vpn\n{p}\nlogin: jdoe\nurl: vpn.acme.dev\n",
    )
    p = d.password("notes-wifi")
    add(
        "notes-office-wifi-and-door-line",
        p,
        f"# Office (Berlin)\n- door code 4711#\n- WiFi: Acme-Staff / {p}\n- printer: 2nd floor, PaperCut\n",
    )
    t = "https://chat.googleapis.com/v1/spaces/AAAA" + d.s("gchat-space", 7, BASE64URL)
    k = "AIzaSy" + d.s("gchat-key", 33, BASE64URL)
    tok = d.s("gchat-token", 43, BASE64URL) + "%3D"
    add(
        "google-chat-webhook-url-token",
        tok,
        f'ALERT_WEBHOOK="{t}/messages?key={k}&token={tok}"\ncurl -X POST -H "Content-Type: application/json" "$ALERT_WEBHOOK" -d \'{{"text": "deploy done"}}\'\n',
    )
    t = d.s("mattermost-hook", 26, LOWER_ALNUM)
    add(
        "mattermost-incoming-webhook-url",
        t,
        f"notify:\n  mattermost:\n    url: https://chat.acme.dev/hooks/{t}\n    channel: release-train\n",
    )
    t = _jwt(
        d,
        "monday",
        {
            "tid": 398123456,
            "aai": 11,
            "uid": 5123456,
            "iad": "2024-05-31T10:00:00.000Z",
            "per": "me:write",
            "actid": 2123456,
            "rgn": "euc1",
        },
    )
    add(
        "monday-api-token-graphql-authorization",
        t,
        f"const res = await fetch('https://api.monday.com/v2', {{\n  method: 'post',\n  headers: {{ 'Content-Type': 'application/json', Authorization: '{t}', 'API-Version': '2024-04' }},\n  body: JSON.stringify({{ query: '{{ boards(limit: 5) {{ name }} }}' }}),\n}});\n",
    )
    t = "{AQAAABAAAAAQ" + d.s("jenkins-cred-xml", 44, BASE64) + "}"
    add(
        "jenkins-credentials-xml-encrypted-secret",
        t,
        f"<com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>\n  <scope>GLOBAL</scope>\n  <id>nexus-deploy</id>\n  <username>deployment</username>\n  <password>{t}</password>\n</com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>",
    )
    t = d.s("postman-collection", 40, ALNUM)
    add(
        "postman-collection-auth-bearer-array",
        t,
        json.dumps(
            {
                "info": {
                    "name": "Billing API",
                    "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json",
                },
                "auth": {
                    "type": "bearer",
                    "bearer": [{"key": "token", "value": t, "type": "string"}],
                },
            },
            indent=2,
        ),
    )
    t = d.s("invoke-restmethod", 40, ALNUM)
    add(
        "powershell-invoke-restmethod-headers-hashtable",
        t,
        f'$headers = @{{ Authorization = "Bearer {t}"; Accept = "application/json" }}\nInvoke-RestMethod -Uri "https://api.acme.dev/v1/tickets" -Headers $headers -Method Get\n',
    )
    t = "sb_secret_" + d.s("sb-secret", 31, BASE64URL)
    add(
        "supabase-new-secret-key-createclient-python",
        t,
        f'from supabase import create_client\n\nsupabase = create_client("https://{d.s("sb-new-ref", 20, LOWER)}.supabase.co", "{t}")\n',
    )


_PARTS = (
    _env_and_shell,
    _config_files,
    _client_code,
    _ci_and_deploy,
    _terminal,
    _connection_strings,
    _logs_and_traces,
    _chat_issues_and_notes,
)

# Every kind of this batch, written out literally; all of them are held out.
NAMES: frozenset[str] = frozenset(
    {
        "aider-conf-yml-api-key",
        "alembic-ini-sqlalchemy-url",
        "anthropic-admin-key-curl-workspaces",
        "appengine-app-yaml-env-variables",
        "argocd-admin-initial-password-output",
        "argocd-application-helm-parameters-value",
        "aws-iam-create-access-key-text-output",
        "aws-lambda-environment-variables-shorthand",
        "aws-sts-get-session-token-json-output",
        "az-account-get-access-token-json",
        "az-ad-sp-create-for-rbac-json-output",
        "az-containerapp-secrets-flag",
        "az-webapp-appsettings-set-settings",
        "azure-app-configuration-connection-string",
        "azure-communication-services-connection-string",
        "azure-openai-api-key-header-curl",
        "azure-signalr-connection-string-accesskey",
        "bash-function-wrapper-github-token-header",
        "betterstack-logtail-source-token-ruby",
        "bitwarden-json-export-login-password",
        "buildkite-user-token-graphql-env",
        "chat-inline-anthropic-key-mid-sentence",
        "chat-japanese-pasuwado-colon",
        "chat-pasted-terminal-hard-wrapped-token",
        "chat-user-slash-password-pair",
        "circleci-ccipat-token-api-curl",
        "claude-code-settings-json-env",
        "cloudbuild-yaml-step-env-list",
        "cloudwatch-lambda-event-body-password",
        "code-server-config-yaml-password",
        "codebuild-buildspec-env-variables-literal",
        "crontab-env-assignment-aws-secret",
        "csharp-azurekeycredential-openai-endpoint",
        "curl-basic-u-key-colon-empty-password",
        "curl-ftp-url-userinfo",
        "curl-url-query-appid-key",
        "curl-verbose-request-header-output",
        "databricks-cli-debug-log-bearer",
        "datadog-agent-yaml-api-key",
        "dbt-profiles-yml-pass-field",
        "dependabot-yml-registries-literal-password",
        "devtools-copy-as-curl-cookie-flag",
        "devtools-copy-as-fetch-authorization",
        "django-settings-databases-dict-password",
        "docker-build-build-arg-npm-token",
        "docker-compose-config-resolved-output",
        "docker-compose-variable-default-password",
        "docker-history-no-trunc-build-arg",
        "dockerfile-env-instruction-token",
        "dotenv-ai-keys-block-fireworks",
        "dotenv-commented-out-previous-openai-key",
        "dotenv-crlf-line-endings-mistral-key",
        "dotenv-example-file-real-sentry-user-token",
        "dotenv-local-clerk-secret-key",
        "dotenv-next-public-prefixed-supabase-service-role",
        "dotenv-spaces-around-equals-anthropic-key",
        "dotenv-vite-prefixed-gemini-key",
        "dotnet-appsettings-development-openai-apikey",
        "dotnet-env-double-underscore-connection-string",
        "drizzle-config-dbcredentials-url",
        "ecs-task-definition-environment-name-value",
        "elasticsearch-reset-password-output",
        "elasticsearch-url-elastic-user-password",
        "expo-eas-json-build-profile-env",
        "express-session-middleware-secret",
        "firebase-login-ci-output-token",
        "firebase-runtimeconfig-json-stripe-secret",
        "flask-app-config-secret-key-subscript",
        "fly-toml-env-section-literal",
        "gcloud-run-set-env-vars-comma-list",
        "gh-auth-login-with-token-herestring",
        "gh-auth-token-command-output",
        "ghcr-docker-login-echo-pipe-stdin",
        "git-config-list-remote-url-token",
        "git-filter-repo-replacements-file-line",
        "github-actions-job-env-literal-npm-token",
        "github-actions-run-block-curl-literal-token",
        "github-issue-bug-report-environment-bullets",
        "github-review-comment-quoted-line-token",
        "gitpod-gp-env-set-command",
        "go-aws-static-credentials-provider",
        "go-const-block-mailgun-key",
        "go-oauth2-static-token-source-github",
        "go-twilio-clientparams-password",
        "google-chat-webhook-url-token",
        "grafana-datasource-provisioning-securejsondata",
        "gsutil-hmac-create-output-secret",
        "handoff-notes-parenthetical-pw",
        "heroku-auth-token-output-warning",
        "heroku-config-output-colon-aligned",
        "hibernate-cfg-xml-connection-password",
        "http-request-dump-x-api-key-header",
        "huggingface-git-clone-url-token",
        "java-datasourcebuilder-password-chain",
        "java-static-final-sendgrid-key",
        "jdbc-sqlserver-semicolon-password-property",
        "jenkins-credentials-xml-encrypted-secret",
        "jenkins-initial-admin-password-cat",
        "jira-wiki-markup-bold-password-label",
        "journalctl-line-api-key-flag",
        "js-aws-sdk-v3-s3client-credentials-object",
        "js-axios-auth-option-basic",
        "js-fetch-anthropic-x-api-key-header",
        "js-string-concatenation-split-openai-key",
        "json-log-line-request-headers-authorization",
        "jupyter-percent-env-magic",
        "keepassxc-cli-show-output",
        "kopia-repository-connect-password-flag",
        "kubectl-create-token-output-jwt",
        "kubectl-jsonpath-base64-decode-output",
        "launchctl-setenv-command",
        "mattermost-incoming-webhook-url",
        "mcp-remote-server-headers-bearer",
        "mcp-server-config-env-github-pat",
        "monday-api-token-graphql-authorization",
        "mongodb-uri-encoded-at-sign-authsource",
        "mongosh-db-createuser-pwd",
        "mysql-connector-net-connection-string-pwd",
        "mysqld-log-temporary-root-password",
        "neon-postgres-url-npg-password",
        "netlify-toml-build-environment-token",
        "node-error-stack-connection-uri-password",
        "node-pg-pool-password-property",
        "node-stripe-require-invoked-with-key",
        "notes-office-wifi-and-door-line",
        "npm-config-set-authtoken-command",
        "odoo-conf-tab-aligned-admin-passwd",
        "openai-admin-key-curl-organization-endpoint",
        "openssl-rand-base64-output-then-env",
        "oracle-tns-descriptor-connect-string",
        "otel-collector-datadog-exporter-api-key",
        "pass-show-output-first-line",
        "php-ini-mysqli-default-pw-semicolon-comment",
        "php-stripe-client-constructor",
        "poetry-config-pypi-token-command",
        "postman-collection-auth-bearer-array",
        "powershell-invoke-restmethod-headers-hashtable",
        "powershell-set-item-env-drive",
        "prisma-schema-datasource-literal-url",
        "prometheus-remote-write-basic-auth-password",
        "python-anthropic-client-api-key-kwarg",
        "python-assemblyai-settings-api-key-assignment",
        "python-deepgram-client-positional-key",
        "python-elasticsearch-api-key-tuple",
        "python-gitlab-private-token-kwarg",
        "python-google-genai-configure-api-key",
        "python-huggingface-hub-login-token-kwarg",
        "python-jira-basic-auth-tuple-atlassian-token",
        "python-kafka-producer-sasl-plain-password",
        "python-langchain-chatopenai-openai-api-key-kwarg",
        "python-logging-debug-slack-token-repr",
        "python-mistral-client-api-key-no-prefix",
        "python-openai-client-api-key-kwarg",
        "python-psycopg2-connect-password-kwarg",
        "python-requests-params-api-key-query-dict",
        "python-slack-webclient-token-kwarg",
        "python-smtplib-gmail-app-password-spaced",
        "python-stripe-module-api-key-assignment",
        "python-tavily-client-api-key",
        "python-traceback-source-line-literal-key",
        "r-sys-setenv-call",
        "rails-credentials-show-output",
        "railway-variables-set-flag",
        "readme-quickstart-mapbox-secret-token",
        "redis-cli-config-get-requirepass-output",
        "redis-cli-interactive-auth-command",
        "render-yaml-envvars-value",
        "ruby-octokit-client-access-token",
        "rubygems-gem-host-api-key-env",
        "rust-env-set-var-openai-key",
        "sam-template-function-environment-variables",
        "segment-analytics-node-write-key",
        "sentry-config-yml-system-secret-key",
        "sentry-properties-auth-token",
        "sequelize-config-json-development-password",
        "serilog-seq-sink-apikey-json",
        "serverless-yml-provider-environment-literal",
        "sf-org-display-access-token-output",
        "shell-export-github-token-semicolon-chain",
        "sourcegraph-src-access-token-env",
        "spring-application-yml-placeholder-default-password",
        "sqlalchemy-mssql-odbc-connect-urlencoded-pwd",
        "streamlit-secrets-toml-openai-key",
        "stripe-cli-config-toml-test-mode-key",
        "stripe-cli-listen-output-whsec",
        "supabase-new-secret-key-createclient-python",
        "supabase-pooler-url-dotted-user",
        "swift-openai-apitoken-init",
        "synapse-homeserver-yaml-registration-shared-secret",
        "tailscale-api-key-curl-basic-u",
        "terraform-auto-tfvars-json-value",
        "terraform-aws-ssm-parameter-value-literal",
        "terraform-output-json-sensitive-value",
        "toml-triple-quoted-webhook-secret",
        "ts-octokit-auth-option",
        "ts-openai-sdk-deepseek-baseurl-apikey",
        "typesense-client-admin-api-key",
        "urllib3-debug-log-query-api-key",
        "uv-toml-index-url-embedded-token",
        "vault-kv-get-table-output",
        "vault-token-file-contents-cat",
        "vercel-env-add-echo-pipe",
        "vercel-json-env-block-secret",
        "vscode-launch-json-env-key",
        "windows-cmd-set-quoted-assignment",
        "wrangler-toml-vars-stripe-key",
        "zsh-alias-inline-openai-key",
        "zsh-extended-history-export",
    }
)

STILL_STORED: frozenset[str] = frozenset()
"""Kinds the redactor still stores after the fixes that followed the first look, and why."""


def build_seventh_batch(seed: int) -> list[UnlistedSample]:
    """Every sample of this batch, drawn from *seed* (same seed, same corpus)."""
    return draw_batch(_Batch7Draw(seed), _PARTS, frozenset(), NAMES)


def older_names() -> set[str]:
    """The kind names of the six earlier corpora, which this batch must not repeat."""
    return names_before_sixth() | set(SIXTH_NAMES)
