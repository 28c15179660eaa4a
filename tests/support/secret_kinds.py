# ruff: noqa: E501  (realistic config and shell lines are long; they are data here)
"""The credential kinds of the fake-secret corpus, one ``add(...)`` each.

Split from :mod:`tests.support.secrets` (which draws the values and holds the public API) so
each file stays readable. Three families: tokens whose prefix names their provider, key
material, and secrets that only their *name* gives away.
"""

from __future__ import annotations

import base64
import json
import urllib.parse
from collections.abc import Callable
from typing import Any

from tests.support.secrets import (
    ALNUM,
    BASE32,
    BASE58,
    BASE64,
    BASE64URL,
    DIGITS,
    LOWER_ALNUM,
    UPPER_ALNUM,
)

Add = Callable[[str, str, str, str], None]


def providers(draw: Any, add: Add) -> None:
    """Tokens whose prefix or fixed shape names the service that issued them."""
    fake, hx = draw.fake, draw.hex
    aws_id = "AKIA" + fake("aws-id", 16, BASE32)
    add("aws-access-key-id", "aws-access-key", aws_id, f"export AWS_ACCESS_KEY_ID={aws_id}")
    aws_session_id = "ASIA" + fake("aws-session-id", 16, BASE32)
    add(
        "aws-temporary-key-id",
        "aws-access-key",
        aws_session_id,
        f"aws_access_key_id = {aws_session_id}",
    )
    aws_secret = fake("aws-secret", 40, BASE64, marker="fakeFAKE/")
    add(
        "aws-secret-key-env",
        "aws-secret-key",
        aws_secret,
        f"export AWS_SECRET_ACCESS_KEY={aws_secret}",
    )
    aws_secret2 = fake("aws-secret-2", 40, BASE64, marker="FAKEfake+")
    add(
        "aws-credentials-file",
        "aws-secret-key",
        aws_secret2,
        f"aws_secret_access_key = {aws_secret2}",
    )
    ghp = "ghp_" + fake("github-classic", 36)
    add(
        "github-classic-token",
        "github-token",
        ghp,
        f"git remote add origin https://{ghp}@github.com/acme/widgets.git",
    )
    ghs = "ghs_" + fake("github-app", 36)
    add(
        "github-app-token",
        "github-token",
        ghs,
        f"remote: https://x-access-token:{ghs}@github.com/acme/widgets.git (fetch)",
    )
    github_pat = "github_pat_" + fake("github-pat-a", 22) + "_" + fake("github-pat-b", 59)
    add("github-fine-grained-token", "github-token", github_pat, f"GITHUB_TOKEN={github_pat}")
    glpat = "glpat-" + fake("gitlab", 20, BASE64URL)
    add(
        "gitlab-personal-token",
        "gitlab-token",
        glpat,
        f"git clone https://oauth2:{glpat}@gitlab.example.com/acme/widgets.git",
    )
    glrt = "glrt-" + fake("gitlab-runner", 20, BASE64URL)
    add(
        "gitlab-runner-token",
        "gitlab-token",
        glrt,
        f'[[runners]]\n  name = "ci-1"\n  url = "https://gitlab.example.com"\n  token = "{glrt}"',
    )
    gldt = "gldt-" + fake("gitlab-deploy", 20, BASE64URL)
    add(
        "gitlab-deploy-token",
        "gitlab-token",
        gldt,
        f"curl --header 'PRIVATE-TOKEN: {gldt}' https://gitlab.example.com/api/v4/projects",
    )
    xoxb = "-".join(
        [
            "xoxb",
            fake("slack-a", 12, DIGITS, "1"),
            fake("slack-b", 13, DIGITS, "1"),
            fake("slack-c", 24),
        ]
    )
    add("slack-bot-token", "slack-token", xoxb, f'SLACK_BOT_TOKEN="{xoxb}"')
    xoxp = "-".join(
        [
            "xoxp",
            fake("slack-p-a", 12, DIGITS, "1"),
            fake("slack-p-b", 12, DIGITS, "1"),
            fake("slack-p-c", 13, DIGITS, "1"),
            hx("slack-p-d", 32),
        ]
    )
    add("slack-user-token", "slack-token", xoxp, f"slack_client = WebClient(token='{xoxp}')")
    xapp = f"xapp-1-A{fake('slack-app-a', 10, UPPER_ALNUM)}-{fake('slack-app-b', 13, DIGITS, '1')}-{hx('slack-app-c', 64)}"
    add(
        "slack-app-token",
        "slack-token",
        xapp,
        f"app = App(token=os.environ['BOT'], app_token='{xapp}')",
    )
    webhook = (
        f"T{fake('slack-team', 10, UPPER_ALNUM)}/B{fake('slack-bot', 10, UPPER_ALNUM)}/"
        f"{fake('slack-hook', 24)}"
    )
    add(
        "slack-webhook",
        "slack-webhook",
        webhook,
        "curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deployed\"}' "
        f"https://hooks.slack.com/services/{webhook}",
    )
    bot_id = str(draw.rng("discord-id").randrange(10**17, 10**18))
    discord = ".".join(
        [
            base64.b64encode(bot_id.encode()).decode().rstrip("="),
            fake("discord-ts", 6, BASE64URL, marker="G"),
            fake("discord-hmac", 38, BASE64URL),
        ]
    )
    add("discord-bot-token", "discord-token", discord, f"client.run('{discord}')")
    discord_hook = f"{draw.rng('discord-hook-id').randrange(10**17, 10**18)}/{fake('discord-hook', 68, BASE64URL)}"
    add(
        "discord-webhook",
        "discord-webhook",
        discord_hook,
        f"WEBHOOK = 'https://discord.com/api/webhooks/{discord_hook}'",
    )
    telegram = (
        f"{draw.rng('telegram-id').randrange(10**8, 10**10)}:AA{fake('telegram', 33, BASE64URL)}"
    )
    add(
        "telegram-bot-token",
        "telegram-token",
        telegram,
        f"curl https://api.telegram.org/bot{telegram}/getMe",
    )
    openai_legacy = "sk-" + fake("openai-legacy", 48)
    add("openai-legacy-key", "openai-key", openai_legacy, f"OPENAI_API_KEY={openai_legacy}")
    openai_project = "sk-proj-" + fake("openai-project", 156, BASE64URL)
    add(
        "openai-project-key",
        "openai-key",
        openai_project,
        f'client = OpenAI(api_key="{openai_project}")',
    )
    anthropic = "sk-ant-api03-" + fake("anthropic", 93, BASE64URL) + "AA"
    add("anthropic-key", "anthropic-key", anthropic, f"export ANTHROPIC_API_KEY='{anthropic}'")
    google = "AIza" + fake("google", 35, BASE64URL)
    add(
        "google-api-key",
        "google-api-key",
        google,
        f"GET https://maps.googleapis.com/maps/api/geocode/json?address=Main+St&key={google}",
    )
    gocspx = "GOCSPX-" + fake("google-oauth", 28, BASE64URL)
    add(
        "google-oauth-client-secret",
        "google-oauth",
        gocspx,
        f'{{"installed": {{"client_id": "1234-x.apps.googleusercontent.com", "client_secret": "{gocspx}"}}}}',
    )
    refresh = "1//0" + fake("google-refresh", 100, BASE64URL)
    add("google-refresh-token", "google-oauth", refresh, f"refresh_token: {refresh}")
    stripe_live = "sk_live_" + fake("stripe-live", 99)
    add("stripe-live-key", "stripe-key", stripe_live, f'stripe.api_key = "{stripe_live}"')
    stripe_test = "sk_test_" + fake("stripe-test", 24)
    add("stripe-test-key", "stripe-key", stripe_test, f"STRIPE_SECRET_KEY: {stripe_test}")
    stripe_restricted = "rk_live_" + fake("stripe-restricted", 24)
    add(
        "stripe-restricted-key",
        "stripe-key",
        stripe_restricted,
        f'{{"stripe": {{"key": "{stripe_restricted}"}}}}',
    )
    whsec = "whsec_" + fake("stripe-webhook", 32)
    add(
        "stripe-webhook-secret",
        "stripe-key",
        whsec,
        f"event = stripe.Webhook.construct_event(payload, sig, '{whsec}')",
    )
    twilio = "SK" + hx("twilio-key", 32)
    add(
        "twilio-api-key",
        "twilio-key",
        twilio,
        f"client = Client('{twilio}', api_secret, account_sid)",
    )
    sendgrid = f"SG.{fake('sendgrid-a', 22, BASE64URL)}.{fake('sendgrid-b', 43, BASE64URL)}"
    add("sendgrid-key", "sendgrid-key", sendgrid, f'sg = SendGridAPIClient("{sendgrid}")')
    mailgun = "key-" + hx("mailgun", 32)
    add(
        "mailgun-key",
        "mailgun-key",
        mailgun,
        f"curl -s --user 'api:{mailgun}' https://api.mailgun.net/v3/mg.example.com/messages",
    )
    mailchimp = hx("mailchimp", 32) + "-us14"
    add(
        "mailchimp-key",
        "mailchimp-key",
        mailchimp,
        f"client.set_config({{'api_key': '{mailchimp}'}})",
    )
    shopify = "shpat_" + hx("shopify", 32)
    add(
        "shopify-admin-token",
        "shopify-token",
        shopify,
        f"X-Shopify-Access-Token: {shopify}",
    )
    atlassian = (
        "ATATT3xFfGF0" + fake("atlassian", 180, BASE64URL) + "=" + hx("atlassian-crc", 8).upper()
    )
    add(
        "atlassian-api-token",
        "atlassian-token",
        atlassian,
        f"jira = JIRA(server, basic_auth=('me@example.com', '{atlassian}'))",
    )
    digitalocean = "dop_v1_" + hx("digitalocean", 64)
    add(
        "digitalocean-token",
        "digitalocean-token",
        digitalocean,
        f'DIGITALOCEAN_TOKEN="{digitalocean}" terraform apply',
    )
    heroku = "HRKU-" + fake("heroku", 60, BASE64URL)
    add("heroku-api-key", "heroku-key", heroku, f"heroku authorizations:info  # {heroku}")
    databricks = "dapi" + hx("databricks", 32)
    add(
        "databricks-token",
        "databricks-token",
        databricks,
        f"[DEFAULT]\nhost = https://adb-1234.azuredatabricks.net\ntoken = {databricks}",
    )
    vault = "hvs." + fake("vault", 90, BASE64URL)
    add("vault-token", "vault-token", vault, f"$ vault login {vault}")
    npm = "npm_" + fake("npm", 36)
    add("npm-token", "npm-token", npm, f"//registry.npmjs.org/:_authToken={npm}")
    pypi = "pypi-AgEIcHlwaS5vcmc" + fake("pypi", 160, BASE64URL)
    add("pypi-token", "pypi-token", pypi, f"  password = {pypi}")
    docker = "dckr_pat_" + fake("docker", 27, BASE64URL)
    add(
        "docker-hub-token",
        "docker-token",
        docker,
        f"echo {docker} | docker login -u acme --password-stdin",
    )
    huggingface = "hf_" + fake("huggingface", 34, marker="fake")
    add(
        "huggingface-token",
        "huggingface-token",
        huggingface,
        f"huggingface-cli login --token {huggingface}",
    )
    grafana = "glsa_" + fake("grafana", 32) + "_" + hx("grafana-crc", 8)
    add("grafana-service-token", "grafana-token", grafana, f"GF_TOKEN: {grafana}")
    sentry = "sntrys_" + fake("sentry", 120, BASE64)
    add(
        "sentry-auth-token",
        "sentry-token",
        sentry,
        f"sentry-cli --auth-token {sentry} releases new 1.0",
    )
    newrelic = "NRAK-" + fake("newrelic", 27, UPPER_ALNUM)
    add("new-relic-key", "new-relic-key", newrelic, f"newrelic:\n  api_key: {newrelic}")
    postman = f"PMAK-{hx('postman-a', 24)}-{hx('postman-b', 34)}"
    add("postman-key", "postman-key", postman, f"postman collection run 1234 --api-key {postman}")
    linear = "lin_api_" + fake("linear", 40)
    add(
        "linear-key",
        "linear-key",
        linear,
        f"const linear = new LinearClient({{ apiKey: '{linear}' }})",
    )
    notion = "ntn_" + fake("notion-a", 11, DIGITS, "1") + fake("notion-b", 35)
    add("notion-token", "notion-token", notion, f"notion = Client(auth='{notion}')")
    airtable = f"pat{fake('airtable-a', 14)}.{hx('airtable-b', 64)}"
    add("airtable-token", "airtable-token", airtable, f"AIRTABLE_PAT={airtable}")
    square = "EAAA" + fake("square", 60, BASE64URL)
    add("square-access-token", "square-token", square, f"square:\n  access_token: {square}")
    replicate = "r8_" + fake("replicate", 37)
    add(
        "replicate-token",
        "replicate-token",
        replicate,
        f"REPLICATE_API_TOKEN={replicate} python run.py",
    )
    groq = "gsk_" + fake("groq", 52)
    add("groq-key", "groq-key", groq, f"client = Groq(api_key='{groq}')")
    age = "AGE-SECRET-KEY-1" + fake("age", 58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", marker="")
    add(
        "age-secret-key",
        "age-key",
        age,
        f"# created: 2024-01-01T00:00:00Z\n# public key: age1x\n{age}",
    )
    terraform = f"{fake('tfc-a', 14)}.atlasv1.{fake('tfc-b', 67, BASE64URL)}"
    add(
        "terraform-cloud-token",
        "terraform-token",
        terraform,
        f'credentials "app.terraform.io" {{\n  token = "{terraform}"\n}}',
    )
    doppler = "dp.pt." + fake("doppler", 43)
    add("doppler-token", "doppler-token", doppler, f"doppler configure set token {doppler}")
    firebase = f"AAAA{fake('fcm-a', 7, BASE64URL)}:APA91b{fake('fcm-b', 134, BASE64URL)}"
    add(
        "firebase-server-key",
        "firebase-key",
        firebase,
        f"headers = {{'Authorization': 'key=' + '{firebase}'}}",
    )
    paypal = f"access_token$production${fake('paypal-a', 16, LOWER_ALNUM, marker='fake')}${hx('paypal-b', 32)}"
    add(
        "braintree-token",
        "paypal-token",
        paypal,
        f"gateway = braintree.BraintreeGateway(token='{paypal}')",
    )
    plaid = f"access-sandbox-{draw.uuid('plaid')}"
    add(
        "plaid-access-token", "plaid-token", plaid, f'{{"access_token": "{plaid}", "item_id": "x"}}'
    )
    azure_secret = f"{fake('azure-a', 3, BASE64URL, marker='')}{draw.rng('azure-d').randrange(10)}Q~{fake('azure-b', 34, ALNUM + '~._-')}"
    add(
        "azure-ad-client-secret",
        "azure-client-secret",
        azure_secret,
        f"az login --service-principal -u {draw.uuid('azure-app')} -p={azure_secret} --tenant t",
    )


def keys(draw: Any, add: Add, *, jwt: str, pem: Callable[..., str]) -> None:
    """Key material: PEM blocks, bare and encoded keys, wallets, tokens with a fixed shape."""
    fake = draw.fake
    add(
        "jwt-in-curl",
        "jwt",
        jwt,
        f'curl -H "Authorization: Bearer {jwt}" https://api.example.com/v1/me',
    )
    rsa = pem("RSA PRIVATE KEY", bytes.fromhex("308204a40201000282010100"), 1180)
    add("rsa-private-key-pem", "private-key", rsa, f'TEST_KEY = """{rsa}"""\n')
    openssh = pem("OPENSSH PRIVATE KEY", b"openssh-key-v1\x00", 380)
    add("openssh-private-key", "private-key", openssh, f"$ cat ~/.ssh/id_ed25519\n{openssh}\n$ ")
    ec_json = pem("EC PRIVATE KEY", bytes.fromhex("30770201010420"), 112, line_break="\\n")
    add(
        "ec-private-key-in-json",
        "private-key",
        ec_json,
        f'{{"type": "service_account", "private_key": "{ec_json}\\n"}}',
    )
    pkcs8 = pem("PRIVATE KEY", bytes.fromhex("308204bd020100300d06092a864886f70d"), 1200)
    pkcs8_escaped = pkcs8.replace("\n", "\\n")  # as repr() or a log line would print it
    add(
        "pkcs8-key-escaped-in-log",
        "private-key",
        pkcs8_escaped,
        f"Loaded signing key from settings: '{pkcs8_escaped}'",
    )
    pgp = pem("PGP PRIVATE KEY BLOCK", b"\x95\x03\xc6\x04fake", 900)
    add("pgp-private-key", "private-key", pgp, f"$ gpg --import <<'EOF'\n{pgp}\nEOF")
    gcp = pem("PRIVATE KEY", bytes.fromhex("308204be020100300d06092a864886f70d"), 1190)
    gcp_escaped = gcp.replace("\n", "\\n") + "\\n"
    service_account = json.dumps(
        {
            "type": "service_account",
            "project_id": "fake-project-123",
            "private_key_id": draw.hex("gcp-key-id", 40),
            "private_key": "PLACEHOLDER",
            "client_email": "ci@fake-project-123.iam.gserviceaccount.com",
            "client_id": str(draw.rng("gcp-client").randrange(10**20, 10**21)),
        },
        indent=2,
    ).replace("PLACEHOLDER", gcp_escaped)
    add("gcp-service-account-json", "private-key", gcp_escaped, service_account)
    encrypted = pem("ENCRYPTED PRIVATE KEY", bytes.fromhex("308205263050"), 1250)
    indented = "\n".join("    " + line for line in encrypted.split("\n"))
    add(
        "encrypted-private-key-in-yaml",
        "private-key",
        indented.strip(),
        f"tls:\n  key: |\n{indented}",
    )
    der = base64.b64encode(
        bytes.fromhex("308204bd020100300d06092a864886f70d0101010500")
        + draw.rng("der").randbytes(1100)
    ).decode()
    add("bare-der-private-key", "private-key", der, f"signing_key: {der}")
    encoded_pem = base64.b64encode(
        pem("RSA PRIVATE KEY", bytes.fromhex("308204a4020100"), 600).encode()
    ).decode()
    add(
        "kubernetes-tls-key",
        "private-key",
        encoded_pem,
        f"apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.key: {encoded_pem}\n",
    )
    putty_private = "\n".join(
        draw.b64("putty-private", 48 * 3)[i : i + 64] for i in range(0, 192, 64)
    )
    # The public half is an SSH wire-format blob: length-prefixed "ssh-ed25519", then the key.
    blob = b"\0\0\0\x0bssh-ed25519\0\0\0\x20" + draw.rng("putty-public").randbytes(32)
    public = base64.b64encode(blob).decode()
    putty = (
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: fake-key\nPublic-Lines: 2\n"
        f"{public[:64]}\n{public[64:]}\n"
        f"Private-Lines: 3\n{putty_private}\nPrivate-MAC: {draw.hex('putty-mac', 64)}\n"
    )
    add("putty-private-key", "private-key", putty_private, putty)
    wireguard = draw.b64("wireguard", 32)
    add(
        "wireguard-private-key",
        "private-key",
        wireguard,
        f"[Interface]\nAddress = 10.0.0.2/32\nPrivateKey = {wireguard}\nDNS = 1.1.1.1",
    )
    eth = draw.hex("ethereum", 64)
    add("ethereum-private-key-env", "wallet-key", eth, f"PRIVATE_KEY=0x{eth}")
    eth2 = draw.hex("ethereum-2", 64)
    add(
        "ethereum-wallet-in-code",
        "wallet-key",
        eth2,
        f'const wallet = new ethers.Wallet("0x{eth2}", provider);',
    )
    xprv = "xprv9s21ZrQH143K" + fake("xprv", 95, BASE58, marker="")
    add("bitcoin-extended-private-key", "wallet-key", xprv, f"master = BIP32.fromBase58('{xprv}')")
    wif = "5" + draw.rng("wif").choice("HJK") + fake("wif", 49, BASE58, marker="")
    add("bitcoin-wif-key", "random-token", wif, f"import this key into the hot wallet: {wif}")
    seed12 = draw.words("seed-12", 12)
    add("bip39-seed-phrase-env", "seed-phrase", seed12, f'MNEMONIC="{seed12}"')
    seed24 = draw.words("seed-24", 24)
    add(
        "bip39-recovery-phrase-note",
        "seed-phrase",
        seed24,
        f"Wallet backup. Recovery phrase: {seed24}\nStore offline.",
    )
    docker_config = base64.b64encode(
        json.dumps(
            {
                "auths": {
                    "ghcr.io": {
                        "auth": base64.b64encode(f"ci:{fake('ghcr', 30)}".encode()).decode()
                    }
                }
            }
        ).encode()
    ).decode()
    add(
        "kubernetes-docker-config",
        "docker-config",
        docker_config,
        "kind: Secret\ntype: kubernetes.io/dockerconfigjson\ndata:\n"
        f"  .dockerconfigjson: {docker_config}\n",
    )
    k8s_password = base64.b64encode(draw.password("k8s-password", 20).encode()).decode()
    add(
        "kubernetes-secret-data",
        "kubernetes-secret",
        k8s_password,
        f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  DB_PASS_B64: {k8s_password}\n",
    )
    encoded_url = base64.b64encode(
        f"postgres://app:{draw.password('encoded-url', 20)}@db:5432/app".encode()
    ).decode()
    add(
        "base64-encoded-database-url",
        "encoded-secret",
        encoded_url,
        f"# the connection string, base64 as the CI variable stores it\nconn = {encoded_url}",
    )
    opaque = fake("unknown-provider", 48)
    add(
        "unknown-provider-token-in-prose",
        "random-token",
        opaque,
        f"The staging deploy hook wants {opaque} as its only argument.",
    )


def context(draw: Any, add: Add) -> None:
    """Secrets only their name gives away: assignments, config lines, flags, headers, URLs."""
    fake, password = draw.fake, draw.password
    opaque = fake("bearer-opaque", 40, ALNUM + "._-")
    add("opaque-bearer-token", "bearer", opaque, f"> Authorization: Bearer {opaque}")
    basic = base64.b64encode(b"fakeuser:" + fake("basic", 20).encode()).decode()
    add(
        "basic-auth-header",
        "basic-auth",
        basic,
        f'requests.get(url, headers={{"Authorization": "Basic {basic}"}})',
    )
    digest = (
        f'username="deploy", realm="api@example.com", nonce="{draw.hex("nonce", 32)}", '
        f'uri="/v1/items", response="{draw.hex("digest", 32)}"'
    )
    add("digest-auth-header", "authorization", digest, f"Authorization: Digest {digest}")
    sigv4 = (
        f"Credential=ASIA{fake('sigv4-id', 16, BASE32)}/20240101/us-east-1/s3/aws4_request, "
        f"SignedHeaders=host;x-amz-date, Signature={draw.hex('sigv4', 64)}"
    )
    add(
        "aws-sigv4-authorization",
        "aws-access-key",
        sigv4,
        f"authorization: AWS4-HMAC-SHA256 {sigv4}",
    )
    github_token_header = draw.hex("gh-header", 40)
    add(
        "token-scheme-authorization",
        "authorization",
        github_token_header,
        f"curl -H 'Authorization: token {github_token_header}' https://api.github.com/user",
    )
    okta = "00" + fake("okta", 40, BASE64URL)
    add("okta-ssws-authorization", "authorization", okta, f"Authorization: SSWS {okta}")
    session = fake("session-cookie", 32, LOWER_ALNUM, marker="fake")
    add("session-cookie-header", "cookie", session, f"Cookie: sessionid={session}; theme=dark")
    connect_sid = (
        "s%3A" + fake("connect-sid", 32, BASE64URL) + "." + fake("connect-sig", 43, BASE64URL)
    )
    add(
        "express-set-cookie",
        "cookie",
        connect_sid,
        f"< Set-Cookie: connect.sid={connect_sid}; Path=/; HttpOnly; Secure",
    )
    db_password = fake("db-password", 24, ALNUM + "!#%^*-_", marker="Fake-")
    add(
        "postgres-url-password",
        "url-credentials",
        db_password,
        f"DATABASE_URL=postgres://app_user:{db_password}@db.internal:5432/app",
    )
    redis_password = fake("redis-password", 32, marker="fake")
    add(
        "redis-url-password",
        "url-credentials",
        redis_password,
        f"cache = redis.from_url('rediss://:{redis_password}@cache.example.com:6380/0')",
    )
    amqp = password("amqp")
    add(
        "amqp-url-password",
        "url-credentials",
        amqp,
        f"BROKER_URL = 'amqp://celery:{amqp}@rabbit:5672//'",
    )
    azure_pat = fake("azure-devops-pat", 52, "abcdefghijklmnopqrstuvwxyz234567", marker="")
    add(
        "azure-devops-pat-in-url",
        "url-credentials",
        azure_pat,
        f"git clone https://pat:{azure_pat}@dev.azure.com/acme/app/_git/app",
    )
    env_password = fake("env-password", 20, ALNUM + "@$!%", marker="FakePass1")
    add("dotenv-password", "password", env_password, f"DB_PASSWORD={env_password}")
    django = fake("django-secret", 50, ALNUM + "!@#%^&*(-_=+)", marker="fake-")
    add("django-secret-key", "secret-key", django, f"SECRET_KEY = '{django}'")
    dotenv_secret = fake("dotenv-secret", 64, BASE64URL)
    add(
        "dotenv-secret-key",
        "secret-key",
        dotenv_secret,
        f"# .env\nSECRET_KEY={dotenv_secret}\nDEBUG=false",
    )
    py_password = fake("py-password", 16, marker="fakePw9")
    add(
        "python-password",
        "password",
        py_password,
        f'    password = "{py_password}"  # TODO: move to vault',
    )
    yaml_password = fake("yaml-password", 18, ALNUM + "-_.", marker="fake")
    add("yaml-quoted-password", "password", yaml_password, f'  password: "{yaml_password}"')
    yaml_word = draw.rng("yaml-word").choice(
        ["sunflower", "changeme", "dragonfly", "letmeinplease"]
    )
    add(
        "yaml-plain-word-password",
        "password",
        yaml_word,
        f"database:\n  user: app\n  password: {yaml_word}\n",
    )
    json_password = fake("json-password", 22)
    add(
        "json-password",
        "password",
        json_password,
        f'{{"username": "admin", "password": "{json_password}"}}',
    )
    ini = password("ini")
    add("ini-password", "password", ini, f"[database]\nhost = db.internal\npassword = {ini}\n")
    toml = password("toml")
    add(
        "toml-password",
        "password",
        toml,
        f'[tool.poetry.http-basic.private]\nusername = "ci"\npassword = "{toml}"',
    )
    properties = password("properties")
    add(
        "java-properties-password",
        "password",
        properties,
        f"spring.datasource.url=jdbc:postgresql://db/app\nspring.datasource.password={properties}",
    )
    compose = draw.rng("compose").choice(["example", "postgres", "rootpass", "secretive"]) + str(
        draw.rng("compose-n").randrange(100, 999)
    )
    add(
        "docker-compose-environment",
        "password",
        compose,
        f"    environment:\n      - POSTGRES_USER=app\n      - POSTGRES_PASSWORD={compose}\n",
    )
    docker_run = password("docker-run")
    add(
        "docker-run-env-flag",
        "password",
        docker_run,
        f"docker run -d -e MYSQL_ROOT_PASSWORD={docker_run} -p 3306:3306 mysql:8",
    )
    pgpassword = password("pgpassword")
    add(
        "pgpassword-prefix",
        "password",
        pgpassword,
        f"PGPASSWORD={pgpassword} psql -h db -U app -c 'select 1'",
    )
    mysql = password("mysql")
    add("mysql-p-flag", "password", mysql, f"mysql -u root -p{mysql} -h 127.0.0.1 app < dump.sql")
    mysqldump = password("mysqldump")
    add(
        "mysqldump-password-flag",
        "password",
        mysqldump,
        f"mysqldump --user=backup --password={mysqldump} app",
    )
    sshpass = password("sshpass")
    add("sshpass-flag", "password", sshpass, f"sshpass -p '{sshpass}' ssh deploy@10.0.0.5 uptime")
    redis_cli = password("redis-cli")
    add(
        "redis-cli-auth-flag",
        "password",
        redis_cli,
        f"redis-cli -h cache -p 6379 -a {redis_cli} ping",
    )
    cli_password = fake("cli-password", 20, marker="Fake")
    add(
        "docker-login-password-flag",
        "password",
        cli_password,
        f"docker login --username ci --password {cli_password}",
    )
    jdbc = password("jdbc")
    add(
        "jdbc-url-password",
        "password",
        jdbc,
        f'url: "jdbc:mysql://db:3306/app?user=app&password={jdbc}&useSSL=true"',
    )
    netrc = password("netrc")
    add(
        "netrc-password",
        "password",
        netrc,
        f"machine api.example.com login deploy password {netrc}",
    )
    email = password("email")
    add("django-email-password", "password", email, f"EMAIL_HOST_PASSWORD = '{email}'")
    client_secret = fake("client-secret", 40, ALNUM + "~._-", marker="fake~")
    add("oauth-client-secret", "client-secret", client_secret, f"  client_secret: {client_secret}")
    generic_token = draw.hex("generic-token", 32)
    add(
        "hex-token-in-js",
        "token",
        generic_token,
        f'const config = {{ token: "{generic_token}", retries: 3 }};',
    )
    twilio_auth = draw.hex("twilio-auth", 32)
    add("twilio-auth-token", "token", twilio_auth, f"TWILIO_AUTH_TOKEN={twilio_auth}")
    cloudflare = fake("cloudflare", 40, BASE64URL)
    add("cloudflare-api-token", "token", cloudflare, f"export CLOUDFLARE_API_TOKEN={cloudflare}")
    session_token = "IQoJb3JpZ2luX2Vj" + fake("aws-session-token", 300, BASE64, marker="")
    add("aws-session-token", "token", session_token, f"aws_session_token = {session_token}")
    api_key = fake("api-key", 32)
    add(
        "x-api-key-header",
        "api-key",
        api_key,
        f"curl -H 'X-Api-Key: {api_key}' https://api.example.com/v2/items",
    )
    datadog = draw.hex("datadog", 32)
    add("datadog-api-key", "api-key", datadog, f"DD_API_KEY={datadog} DD_SITE=datadoghq.eu ./agent")
    heroku_uuid = draw.uuid("heroku-uuid")
    add("heroku-legacy-api-key", "api-key", heroku_uuid, f"HEROKU_API_KEY={heroku_uuid}")
    account_key = draw.b64("azure-storage", 64)
    add(
        "azure-storage-connection-string",
        "account-key",
        account_key,
        "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=fakeacct;"
        f"AccountKey={account_key};EndpointSuffix=core.windows.net",
    )
    sas = urllib.parse.quote(draw.b64("azure-sas", 32), safe="")
    add(
        "azure-sas-url",
        "url-signature",
        sas,
        "https://fakeacct.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=o"
        f"&sp=r&se=2030-01-01T00:00:00Z&sig={sas}",
    )
    npm_auth = base64.b64encode(f"ci:{fake('npm-auth', 24)}".encode()).decode()
    add(
        "npmrc-basic-auth",
        "auth",
        npm_auth,
        f"registry=https://npm.example.com/\n_auth={npm_auth}\nalways-auth=true",
    )
    docker_auth = base64.b64encode(f"ci:{fake('docker-auth', 24)}".encode()).decode()
    add(
        "docker-config-auth",
        "auth",
        docker_auth,
        json.dumps({"auths": {"registry.example.com": {"auth": docker_auth}}}),
    )
    credentials = fake("credentials", 40, BASE64URL)
    add("credentials-assignment", "credentials", credentials, f'CREDENTIALS = "{credentials}"')
    passphrase = " ".join(
        draw.rng("passphrase").sample(
            ["correct", "horse", "battery", "staple", "violet", "kettle", "orbit", "pepper"], 4
        )
    )
    add("ssh-key-passphrase", "password", passphrase, f'ssh_passphrase: "{passphrase}"')
