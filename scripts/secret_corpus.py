#!/usr/bin/env python3
"""Writes tests/fixtures/redaction/corpus.json: synthetic secrets inside the
error texts and commands a coding agent really sees, and harmless
look-alikes that must come out of redact_secrets() untouched.

Every secret is random (a seeded generator, so the file is reproducible and
its diffs are reviewable); none is real. Formats follow the shapes secret
scanners such as gitleaks publish; the texts around them are what tools
print (tracebacks, HTTP client errors, shell commands, config dumps).

  python3 scripts/secret_corpus.py            # rewrite the fixture
  python3 scripts/secret_corpus.py --check    # exit 1 if it is out of date
"""
import base64
import json
import random
import string
import sys
import uuid
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "redaction" / "corpus.json"
rng = random.Random(20261126)

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
UPPER_ALNUM = string.ascii_uppercase + string.digits
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
# What people type as passwords: letters, digits and the symbols a shell or
# a URL lets through without quoting.
PASSWORD = ALNUM + "!#%^*-_+.~"


def r(chars, n):
    return "".join(rng.choice(chars) for _ in range(n))


def password(n=None):
    n = n or rng.randint(10, 20)
    while True:
        p = r(PASSWORD, n)
        # at least a letter and a digit, as password policies ask
        if any(c.isdigit() for c in p) and any(c.isalpha() for c in p) and p[0] not in "-~":
            return p


def b64_text(n):
    return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(n))).decode()


def pem(kind):
    body = "\n".join(b64_text(48) for _ in range(6))
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"


def jwt():
    head = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    claims = base64.urlsafe_b64encode(
        json.dumps({"sub": r(ALNUM, 12), "iat": rng.randint(1_600_000_000, 1_800_000_000)}).encode()
    ).decode().rstrip("=")
    return f"{head}.{claims}.{r(URLSAFE, 43)}"


# Where a self-identifying token shows up: in an error, in a command, in
# printed configuration. {s} is the secret.
ANYWHERE = [
    "openai.AuthenticationError: Error code: 401 - {{'error': {{'message': 'Incorrect API key provided: {s}. "
    "You can find your API key at https://platform.openai.com/account/api-keys.', 'type': 'invalid_request_error'}}}}",
    "curl -sS -H 'Authorization: Bearer {s}' https://api.example.com/v1/items | jq .",
    "Error: Request failed with status code 401\n    at createError (/app/node_modules/axios/lib/core/createError.js:16:15)\n"
    "  config: {{ headers: {{ 'X-Api-Key': '{s}' }} }}",
    "export SERVICE_CREDENTIAL={s} && python3 deploy.py --env prod",
    "$ env | sort\nHOME=/home/dev\nLANG=en_US.UTF-8\nAPP_AUTH={s}\nPATH=/usr/local/bin:/usr/bin",
    "requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://api.example.com/v2/repos?access_token={s}",
    "Traceback (most recent call last):\n  File \"/srv/app/main.py\", line 12, in <module>\n    client = Client(\"{s}\")\n"
    "  File \"/srv/app/lib/client.py\", line 40, in __init__\n    raise ValueError(f\"token rejected: {s}\")\nValueError: token rejected: {s}",
    "node scripts/upload.js {s}\nError: upload failed (401)",
    "{{\"level\":\"error\",\"msg\":\"auth failed\",\"credential\":\"{s}\",\"ts\":\"2026-11-02T10:00:00Z\"}}",
    "docker run --rm -e KEY_MATERIAL={s} ghcr.io/acme/worker:1.4 ./run\ndocker: Error response from daemon: pull access denied",
    "fatal: could not read Username for 'https://github.com': No such device or address\n+ echo {s} | gh auth login --with-token",
    "warning: ignoring value {s} from ~/.config/tool/config.toml (unknown field `tokn`)",
]


def prefixed(name, make, contexts=3):
    """A self-identifying token in `contexts` of the generic places."""
    out = []
    for tpl in rng.sample(ANYWHERE, contexts):
        s = make()
        out.append({"format": name, "secret": s, "text": tpl.format(s=s)})
    return out


def placed(name, make, templates):
    """A secret recognised by where it stands: each template once. Returns
    the cases."""
    out = []
    for tpl in templates:
        s = make()
        if "{s_json}" in tpl:
            # inside a JSON string: the file holds the escaped form
            s = json.dumps(s)[1:-1]
            out.append({"format": name, "secret": s, "text": tpl.format(s_json=f'"{s}"')})
        else:
            out.append({"format": name, "secret": s, "text": tpl.format(s=s)})
    return out


SECRETS = []
add = SECRETS.extend

# Self-identifying tokens of the common providers.
add(prefixed("anthropic", lambda: "sk-ant-api03-" + r(URLSAFE, 93) + "AA"))
add(prefixed("openai-project", lambda: "sk-proj-" + r(URLSAFE, 74) + "T3BlbkFJ" + r(URLSAFE, 74)))
add(prefixed("openai-legacy", lambda: "sk-" + r(ALNUM, 20) + "T3BlbkFJ" + r(ALNUM, 20)))
add(prefixed("github-pat", lambda: "ghp_" + r(ALNUM, 36)))
add(prefixed("github-oauth", lambda: "gho_" + r(ALNUM, 36), 2))
add(prefixed("github-app", lambda: "ghs_" + r(ALNUM, 36), 2))
add(prefixed("github-fine-grained", lambda: "github_pat_" + r(ALNUM, 22) + "_" + r(ALNUM, 59)))
add(prefixed("gitlab-pat", lambda: "glpat-" + r(URLSAFE, 20)))
add(prefixed("gitlab-runner", lambda: "glrt-" + r(URLSAFE, 20), 2))
add(prefixed("slack-bot", lambda: f"xoxb-{r(string.digits, 12)}-{r(string.digits, 13)}-{r(ALNUM, 24)}"))
add(prefixed("slack-user", lambda: f"xoxp-{r(string.digits, 12)}-{r(string.digits, 12)}-{r(string.digits, 13)}-{r(HEX, 32)}", 2))
add(prefixed("slack-app", lambda: f"xapp-1-A{r(UPPER_ALNUM, 10)}-{r(string.digits, 13)}-{r(HEX, 64)}"))
add(prefixed("aws-access-key-id", lambda: rng.choice(["AKIA", "ASIA"]) + r(UPPER_ALNUM, 16)))
add(prefixed("google-api-key", lambda: "AIza" + r(URLSAFE, 35)))
add(prefixed("google-oauth-client-secret", lambda: "GOCSPX-" + r(URLSAFE, 28)))
add(prefixed("google-refresh-token", lambda: "1//0" + r(URLSAFE, 99), 2))
add(prefixed("google-access-token", lambda: "ya29." + r(URLSAFE, 150), 2))
add(prefixed("stripe-secret", lambda: rng.choice(["sk_live_", "sk_test_"]) + r(ALNUM, 99)))
add(prefixed("stripe-restricted", lambda: "rk_live_" + r(ALNUM, 99), 2))
add(prefixed("stripe-webhook-secret", lambda: "whsec_" + r(ALNUM, 32)))
add(prefixed("npm", lambda: "npm_" + r(ALNUM, 36)))
add(prefixed("pypi", lambda: "pypi-AgEIcHlwaS5vcmc" + r(URLSAFE, 150)))
add(prefixed("huggingface", lambda: "hf_" + r(string.ascii_letters, 34)))
add(prefixed("jwt", jwt))
add(prefixed("twilio-api-key", lambda: "SK" + r(HEX, 32)))
add(prefixed("sendgrid", lambda: "SG." + r(URLSAFE, 22) + "." + r(URLSAFE, 43)))
add(prefixed("digitalocean", lambda: rng.choice(["dop_v1_", "doo_v1_"]) + r(HEX, 64)))
add(prefixed("shopify", lambda: rng.choice(["shpat_", "shpss_", "shpca_"]) + r(HEX, 32)))
add(prefixed("postman", lambda: f"PMAK-{r(HEX, 24)}-{r(HEX, 34)}"))
add(prefixed("linear", lambda: "lin_api_" + r(ALNUM, 40)))
add(prefixed("grafana", lambda: rng.choice([
    lambda: "glsa_" + r(ALNUM, 32) + "_" + r(HEX, 8), lambda: "glc_" + r(ALNUM, 60) + "=="])()))
add(prefixed("doppler", lambda: "dp.pt." + r(ALNUM, 43)))
add(prefixed("sentry", lambda: rng.choice(["sntryu_" + r(HEX, 64), "sntrys_eyJpYXQiO" + r(ALNUM, 80) + "_" + r(ALNUM, 43)])))
add(prefixed("vault", lambda: "hvs." + r(URLSAFE, 95)))
add(prefixed("age-secret-key", lambda: "AGE-SECRET-KEY-1" + r(BECH32, 58)))
add(prefixed("1password", lambda: "ops_eyJ" + r(B64, 260) + "="))
add(prefixed("facebook", lambda: "EAA" + rng.choice("BCGM") + r(ALNUM, 160)))
add(prefixed("square", lambda: rng.choice(["EAAA" + r(URLSAFE, 60), "sq0atp-" + r(URLSAFE, 22), "sq0csp-" + r(URLSAFE, 43)])))
add(prefixed("atlassian", lambda: "ATATT3" + r(URLSAFE, 186)))
add(prefixed("mailgun", lambda: "key-" + r(HEX, 32)))
add(prefixed("heroku", lambda: "HRKU-" + r(URLSAFE, 60), 2))
add(prefixed("databricks", lambda: "dapi" + r(HEX, 32), 2))
add(prefixed("pulumi", lambda: "pul-" + r(HEX, 40), 2))
add(prefixed("rubygems", lambda: "rubygems_" + r(HEX, 48), 2))
add(prefixed("planetscale", lambda: "pscale_tkn_" + r(URLSAFE, 43), 2))
add(prefixed("tailscale", lambda: "tskey-auth-" + r(ALNUM, 12) + "-" + r(ALNUM, 30), 2))
add(prefixed("supabase", lambda: "sbp_" + r(HEX, 40), 2))
add(prefixed("groq", lambda: "gsk_" + r(ALNUM, 52), 2))
add(prefixed("docker-hub", lambda: "dckr_pat_" + r(URLSAFE, 27), 2))
add(prefixed("new-relic", lambda: "NRAK-" + r(UPPER_ALNUM, 27), 2))
add(prefixed("azure-ad-client-secret", lambda: r(ALNUM, 3) + rng.choice("0123456789") + "Q~" + r(ALNUM + "_~.-", 34)))
add(prefixed("cloudflare-origin-ca", lambda: "v1.0-" + r(HEX, 24) + "-" + r(HEX, 146), 2))
add(prefixed("figma", lambda: "figd_" + r(URLSAFE, 40), 2))
add(prefixed("notion", lambda: rng.choice(["secret_", "ntn_"]) + r(ALNUM, 43), 2))

# Secrets recognised by where they stand.
add(placed("private-key", lambda: pem(rng.choice(["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY"])), [
    "$ cat ~/.ssh/deploy_key\n{s}\n$ ssh -i ~/.ssh/deploy_key deploy@10.0.0.5\nPermission denied (publickey).",
    "Error: error:1E08010C:DECODER routines::unsupported\nkey: {s}",
    "{{\"type\": \"service_account\", \"private_key\": {s_json}, \"client_email\": \"ci@proj.iam.gserviceaccount.com\"}}",
]))
add(placed("pgp-private-key", lambda: pem("PGP PRIVATE KEY BLOCK"), [
    "gpg: importing {s}\ngpg: key 1A2B3C4D: secret key imported",
    "$ cat signing.asc\n{s}",
]))
# webhooks: the path after the host is the credential
add(placed("slack-webhook", lambda: f"T{r(UPPER_ALNUM, 8)}/B{r(UPPER_ALNUM, 10)}/{r(ALNUM, 24)}", [
    "curl -X POST -d '{{\"text\":\"deploy done\"}}' https://hooks.slack.com/services/{s}\ncurl: (6) Could not resolve host: hooks.slack.com",
    "Error: POST https://hooks.slack.com/services/{s} failed: 404 no_service",
    "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/{s} npm run notify",
]))
add(placed("discord-webhook", lambda: f"{r(string.digits, 18)}/{r(URLSAFE, 68)}", [
    "requests.post('https://discord.com/api/webhooks/{s}', json=payload)\nrequests.exceptions.ConnectionError: Max retries exceeded",
    "Error: webhook https://discord.com/api/webhooks/{s} returned 401",
]))
add(placed("telegram-bot-token", lambda: f"{r(string.digits, 10)}:AA{r(URLSAFE, 33)}", [
    "curl https://api.telegram.org/bot{s}/sendMessage -d chat_id=42\n{{\"ok\":false,\"error_code\":401,\"description\":\"Unauthorized\"}}",
    "telegram.error.InvalidToken: Invalid token {s}",
    "TELEGRAM_BOT_TOKEN={s} python3 bot.py",
]))
add(placed("aws-secret-access-key", lambda: r(B64, 40), [
    "aws_secret_access_key = {s}",
    "export AWS_SECRET_ACCESS_KEY={s}\n$ aws s3 ls\nAn error occurred (SignatureDoesNotMatch) when calling the ListBuckets operation",
    "botocore.exceptions.ClientError: credentials {{'aws_access_key_id': 'AKIAIOSFODNN7EXAMPLE', 'aws_secret_access_key': '{s}'}}",
]))
add(placed("azure-storage-account-key", lambda: b64_text(64), [
    "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={s};EndpointSuffix=core.windows.net",
    "azure.core.exceptions.ClientAuthenticationError: Server failed to authenticate the request. "
    "Connection string: BlobEndpoint=https://acme.blob.core.windows.net/;SharedAccessKey={s}",
]))
add(placed("azure-sas-signature", lambda: r(B64, 43).replace("+", "%2B").replace("/", "%2F") + "%3D", [
    "azcopy copy ./dist 'https://acme.blob.core.windows.net/web?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2026-12-01T00:00:00Z&sig={s}'\n"
    "INFO: Authentication failed, it is either not correct, or expired",
    "HttpResponseError: 403 AuthenticationFailed for https://acme.blob.core.windows.net/c/x.txt?sp=r&st=2026-11-01&se=2026-11-02&spr=https&sv=2022-11-02&sr=b&sig={s}",
]))
add(placed("heroku-api-key", lambda: str(uuid.UUID(int=rng.getrandbits(128))), [
    "HEROKU_API_KEY={s} heroku apps:info -a acme\n ▸    Invalid credentials provided.",
    "heroku_api_key: {s}",
]))
add(placed("cloudflare-api-token", lambda: r(URLSAFE, 40), [
    "CLOUDFLARE_API_TOKEN={s} wrangler deploy\n✘ [ERROR] A request to the Cloudflare API failed. Authentication error [code: 10000]",
    "curl -H \"X-Auth-Key: {s}\" -H 'X-Auth-Email: ops@example.com' https://api.cloudflare.com/client/v4/zones",
]))
add(placed("url-password", password, [
    "psql postgresql://app:{s}@db.internal:5432/prod\npsql: error: connection to server at \"db.internal\" (10.0.0.7), port 5432 failed: FATAL:  password authentication failed for user \"app\"",
    "redis.exceptions.ConnectionError: Error connecting to redis://:{s}@cache:6379/0",
    "git clone https://deploy:{s}@git.example.com/acme/api.git\nfatal: Authentication failed for 'https://git.example.com/acme/api.git/'",
    "pymongo.errors.OperationFailure: bad auth : Authentication failed., full error: mongodb+srv://admin:{s}@cluster0.abcde.mongodb.net/?retryWrites=true",
    "Error: P1001: Can't reach database server. DATABASE_URL=mysql://root:{s}@localhost:3306/shop",
]))
add(placed("url-token-user", lambda: "ghp_" + r(ALNUM, 36), [
    "git push https://{s}@github.com/acme/api.git main\nremote: Permission to acme/api.git denied",
]))
add(placed("sentry-dsn", lambda: r(HEX, 32), [
    "sentry_sdk.init(dsn=\"https://{s}@o450123.ingest.sentry.io/4504123\")\nBadDsn: Unsupported scheme",
    "SENTRY_DSN=https://{s}@o450123.ingest.us.sentry.io/4504123 npm start",
]))
add(placed("curl-user", password, [
    "curl -u admin:{s} https://ci.example.com/api/json\ncurl: (22) The requested URL returned error: 401",
    "curl --user 'deploy:{s}' -X POST https://registry.example.com/upload",
    "curl -fsSL --user=ops:{s} https://nexus.example.com/repository/raw/app.tgz -o app.tgz",
]))
add(placed("mysql-password-flag", password, [
    "mysql -u root -p{s} shop < schema.sql\nERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)",
    "mysqldump -h db -uadmin -p{s} --single-transaction shop > dump.sql",
]))
add(placed("password-assignment", password, [
    "DB_PASSWORD='{s}' npm run migrate\nError: password authentication failed for user \"app\"",
    "export PGPASSWORD=\"{s}\"; psql -h db -U app -c 'select 1'",
    "django.db.utils.OperationalError: settings.DATABASES: {{'ENGINE': 'django.db.backends.postgresql', 'PASSWORD': '{s}', 'HOST': 'db'}}",
    "  File \"/srv/app/settings.py\", line 8\n    password = \"{s}\"\n",
    "config.yaml: line 4: password: {s}",
    "{{\"username\": \"admin\", \"password\": \"{s}\"}}",
    "Server=tcp:acme.database.windows.net,1433;Database=shop;User ID=sa;Password={s};Encrypt=true",
    "Driver={{ODBC Driver 18}};Server=db;UID=sa;PWD={s};TrustServerCertificate=yes",
]))
add(placed("sshpass", password, [
    "sshpass -p {s} ssh -o StrictHostKeyChecking=no deploy@203.0.113.10 'systemctl restart api'\nPermission denied, please try again.",
    "sshpass -p '{s}' scp build.tgz ops@203.0.113.10:/srv/",
]))
add(placed("docker-login", password, [
    "docker login -u ci -p {s} registry.example.com\nWARNING! Using --password via the CLI is insecure. Use --password-stdin.\nError response from daemon: unauthorized",
    "docker login registry.gitlab.com --username bot --password {s}",
]))
add(placed("netrc", password, [
    "$ cat ~/.netrc\nmachine api.example.com login ops@example.com password {s}\nmachine github.com login bot password {s}",
    "netrc: machine pypi.example.com\n  login deploy\n  password {s}",
]))
add(placed("cli-token-flag", lambda: r(ALNUM, 24), [
    "vercel deploy --prod --token {s}\nError: The specified token is not valid.",
    "terraform login --token={s} app.terraform.io",
    "npx netlify deploy --auth {s} --dir dist\nError: Unauthorized",
    "huggingface-cli login --token hf_{s}XYZ0123456\nInvalid token passed!",
    "./manage.sh --api-key {s} --region eu-west-1",
    "gitlab-runner register --registration-token {s} --url https://gitlab.example.com",
]))
add(placed("authorization-header", lambda: r(URLSAFE, 32), [
    "curl -H \"Authorization: Bearer {s}\" https://api.example.com/me\n{{\"error\":\"invalid_token\"}}",
    "> GET /v1/me HTTP/1.1\n> Host: api.example.com\n> Authorization: token {s}\n< HTTP/1.1 401 Unauthorized",
    "fetch failed: 401 {{ headers: {{ authorization: 'Bearer {s}', accept: 'application/json' }} }}",
    "curl -H 'PRIVATE-TOKEN: {s}' https://gitlab.example.com/api/v4/projects",
]))
add(placed("basic-auth-header", lambda: base64.b64encode(f"admin:{password()}".encode()).decode(), [
    "curl -H 'Authorization: Basic {s}' https://jenkins.example.com/api/json",
    "HTTP 401: WWW-Authenticate failed for request with Authorization: Basic {s}",
]))
add(placed("generic-api-key", lambda: r(ALNUM, 32), [
    "{{\"api_key\": \"{s}\", \"region\": \"us-east-1\"}}",
    "MAILCHIMP_API_KEY={s}-us21 python3 sync.py\nmailchimp_marketing.api_client.ApiClientError: 401",
    "ValueError: Invalid api_key='{s}' for OpenWeatherMap",
    "stripe.error.AuthenticationError: Invalid API Key provided: {s}",
    "client_secret: {s}",
    "SECRET_KEY = '{s}'",
]))
add(placed("keystore-password", password, [
    "keytool -importcert -alias ca -file ca.pem -keystore app.jks -storepass {s} -noprompt\nkeytool error: java.io.IOException: Keystore was tampered with, or password was incorrect",
    "openssl pkcs12 -export -in cert.pem -inkey key.pem -out app.p12 -passout pass:{s}\nunable to load private key",
]))
add(placed("cookie", lambda: r(URLSAFE, 40), [
    "> GET /dashboard HTTP/1.1\n> Cookie: sessionid={s}; csrftoken=abc\n< HTTP/1.1 403 Forbidden",
]))
add(placed("redis-cli-password", password, [
    "redis-cli -h cache -a {s} ping\nWarning: Using a password with '-a' option on the command line interface may not be safe.\nAUTH failed: WRONGPASS",
]))


# Harmless texts that share words or shapes with secrets: they must come
# out exactly as they went in.
def sha():
    return r(HEX, 40)


LOOKALIKES = [
    f"commit {sha()}\nAuthor: Dev <dev@example.com>\n\n    fix: rotate token handling",
    f"error: pathspec '{sha()[:12]}' did not match any file(s) known to git",
    f"HEAD is now at {sha()[:7]} Merge pull request #42 from acme/fix-auth",
    f"fatal: bad object {sha()}",
    f"Request {uuid.UUID(int=rng.getrandbits(128))} failed: timeout after 30s",
    f"sqlite3.IntegrityError: UNIQUE constraint failed: sessions.id ('{uuid.UUID(int=rng.getrandbits(128))}')",
    f"npm ERR! integrity sha512-{b64_text(64)} checksum failed",
    f"resolved \"https://registry.yarnpkg.com/left-pad/-/left-pad-1.3.0.tgz#{sha()}\"\n  integrity sha1-{b64_text(20)}",
    f"ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE.\n    requests==2.32.3 from https://files.pythonhosted.org/packages/x/requests.whl:\n"
    f"        Expected sha256 {r(HEX, 64)}\n             Got        {r(HEX, 64)}",
    f"Digest: sha256:{r(HEX, 64)}\nStatus: Downloaded newer image for node:20-alpine",
    f"docker: Error response from daemon: manifest for ghcr.io/acme/api@sha256:{r(HEX, 64)} not found",
    "echo SGVsbG8sIHdvcmxkIQ== | base64 -d",
    "binascii.Error: Incorrect padding in VGhpcyBpcyBhIHRlc3Qgb2YgYmFzZTY0",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "ls: cannot access '/home/dev/.cache/pip/wheels/3f/9a/8b2c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5/pkg.whl': No such file or directory",
    "ModuleNotFoundError: No module named 'app.services.token_refresh'",
    "SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON",
    "Parse error at 3,14: Unexpected token: punc ())",
    "ERROR in main.js from UglifyJs\nUnexpected token: punc (,) [./src/index.js:12,18]",
    "cat: /etc/passwd: Permission denied",
    "grep: /etc/shadow: Permission denied\n/etc/passwd:root:x:0:0:root:/root:/bin/bash",
    "OLDPWD=/home/dev/app\nPWD=/home/dev/app/src\nSHLVL=1",
    "npm ERR! 404 Not Found - GET https://registry.npmjs.org/sk-ui-kit - Not found\nnpm ERR! 404  'sk-ui-kit@^2.1.0' is not in this registry.",
    "Error: Cannot find module 'sk-learn-utils'\nRequire stack:\n- /app/index.js",
    "pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings\ntoken\n  Field required [type=missing, input_value={}, input_type=dict]",
    "pydantic_core._pydantic_core.ValidationError: 1 validation error for Login\npassword\n  String should have at least 8 characters [type=string_too_short]",
    "Redirecting to https://app.example.com/login?next=user@example.com",
    "GET https://example.com:8443/auth/callback?state=abc&next=admin@example.org 302",
    "TypeError: Cannot read properties of undefined (reading 'token')\n    at getUser (/app/src/auth.js:14:22)",
    "KeyError: 'SECRET_KEY'",
    "KeyError: 'GITHUB_TOKEN'",
    "psql: error: connection to server on socket \"/var/run/postgresql/.s.PGSQL.5432\" failed: FATAL:  password authentication failed for user \"postgres\"",
    "Warning: Using a password on the command line interface can be insecure.",
    "echo \"$CI_REGISTRY_PASSWORD\" | docker login --password-stdin -u ci registry.example.com",
    "docker login --username ci --password-stdin < token.txt",
    "Enter passphrase for key '/home/dev/.ssh/id_ed25519':",
    "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.",
    "ssh: connect to host github.com port 22: Connection refused",
    "openai.AuthenticationError: No API key provided. You can set your API key in code using 'openai.api_key = <API-KEY>'",
    "Error: api_key must be set either by passing api_key to the client or by setting the OPENAI_API_KEY environment variable",
    "max_tokens=4096 exceeds the model's context window (tokens: 8192, requested: 12288)",
    "RuntimeError: num_tokens = 128 but the sequence has 512 tokens",
    "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
    "TOKEN_FILE=/var/run/secrets/kubernetes.io/serviceaccount/token kubectl get pods\nerror: You must be logged in to the server (Unauthorized)",
    "KEY_PATH=/etc/ssl/private/server.key nginx -t\nnginx: [emerg] cannot load certificate key \"/etc/ssl/private/server.key\"",
    "token_url=https://oauth2.googleapis.com/token returned 400 invalid_grant",
    "Cache key: v1-deps-3f9a8b2c4d5e6f70 not found, falling back",
    "sqlite3.IntegrityError: UNIQUE constraint failed: users.api_key",
    "Fingerprint: SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s",
    "arn:aws:iam::123456789012:role/deploy-role is not authorized to perform: s3:GetObject",
    "export PATH=$PATH:/usr/local/go/bin:/home/dev/.cargo/bin",
    "PASSWORD=$DB_PASSWORD npm run migrate",
    "gh release create v1.2.0 --token $GITHUB_TOKEN",
    "mysql --password=${MYSQL_PASSWORD} -u root shop",
    "curl -H 'Authorization: Bearer <token>' https://api.example.com",
    "Set api_key=YOUR_API_KEY in .env before running",
    "password: ********",
    "error[E0425]: cannot find value `token` in this scope\n --> src/main.rs:12:9",
    "let secret = read_secret(&path)?;",
    "def get_password(user: str) -> str:\nNameError: name 'get_password' is not defined",
    "kubectl get secret db-creds -o yaml\nError from server (NotFound): secrets \"db-creds\" not found",
    "grep -rn 'password' src/ | head",
    "env | grep -i token",
    "W/\"5e-1a2b3c4d5e6f7a8b9c0d\" etag mismatch",
    "main.3f9a8b2c4d5e6f70.js:1 Uncaught ReferenceError: process is not defined",
    "ssh://git@github.com:22/acme/api.git: repository not found",
    "https://user@bitbucket.org/team/repo.git: authentication required",
    "postgres://localhost:5432/app: connection refused",
    "The secret is stored in the team vault; ask ops for access.",
    "jwt malformed\n    at Object.module.exports [as verify] (/app/node_modules/jsonwebtoken/verify.js:70:17)",
    "ValueError: Invalid token: expired",
    "Traceback (most recent call last):\n  File \"/app/auth.py\", line 3, in <module>\n    from tokens import refresh\nImportError: cannot import name 'refresh' from 'tokens'",
    "accessTokenExpiresIn must be a number, got \"1h\"",
    "error: invalid value 'skip-tests' for '--mode <MODE>'",
    "Skipping key 'sk-test-fixture' (already present)",
    "java.lang.IllegalArgumentException: secretKey cannot be null or empty",
    "Error: ENOENT: no such file or directory, open '/home/dev/.npmrc'",
    "npm ERR! code E401\nnpm ERR! Unable to authenticate, need: Basic realm=\"GitHub Package Registry\"",
    "fatal: Authentication failed for 'https://github.com/acme/api.git/'",
    f"Successfully built 3f9a8b2c4d5e\nSuccessfully tagged acme/api:{sha()[:8]}",
    "bash: AKIA: command not found",
    "The key 'auth' was not found in section 'server'",
    "key=value pairs must be separated by '&'",
    "Invalid value for 'signature': expected 64 hex characters",
]


# Held out: written after the rules above were tuned, and never tuned on.
# Other formats, other tools' wording, other places in a text.
HELD_OUT_SECRETS = []


def held(name, make, templates):
    HELD_OUT_SECRETS.extend(placed(name, make, templates))


held("aws-session-token", lambda: "IQoJb3JpZ2luX2Vj" + r(B64, 300), [
    "export AWS_SESSION_TOKEN={s}\nAn error occurred (ExpiredToken) when calling the GetCallerIdentity operation",
    "[default]\naws_session_token = {s}",
])
held("gcp-oauth-access", lambda: "ya29.a0" + r(URLSAFE, 120), [
    "google.auth.exceptions.RefreshError: ('invalid_grant: Bad Request', {{'access_token': '{s}'}})",
])
held("npmrc-auth-token", lambda: "npm_" + r(ALNUM, 36), [
    "$ cat .npmrc\n//registry.npmjs.org/:_authToken={s}\nnpm ERR! code E403",
])
held("npmrc-legacy-auth", lambda: base64.b64encode(f"ci:{password()}".encode()).decode(), [
    "_auth={s}\nalways-auth=true\nnpm ERR! 401 Unauthorized",
])
held("docker-config-auth", lambda: base64.b64encode(f"bot:{password()}".encode()).decode(), [
    "{{\"auths\": {{\"registry.example.com\": {{\"auth\": \"{s}\"}}}}}}",
])
held("jdbc-password", password, [
    "java.sql.SQLException: Access denied; url=jdbc:mysql://db:3306/shop?user=app&password={s}&useSSL=false",
    "spring.datasource.password={s}\nHikariPool-1 - Exception during pool initialization.",
])
held("amqp-url", password, [
    "pika.exceptions.ProbableAuthenticationError: amqp://worker:{s}@rabbit:5672/%2F",
])
held("ldap-bind-password", password, [
    "ldap_bind: Invalid credentials (49) bindpw={s}",
])
held("python-kwarg", lambda: r(ALNUM, 40), [
    "  File \"/app/pay.py\", line 9, in charge\n    gateway = Gateway(merchant_id='acme', private_key='{s}')\nTypeError: unexpected keyword",
    "boto3.client('s3', aws_access_key_id='AKIAIOSFODNN7EXAMPLE', aws_secret_access_key='{s}')",
])
held("yaml-secret", lambda: r(ALNUM + "+/", 44), [
    "Error: INSTALLATION FAILED: values.yaml: secretKey: {s}\n  invalid",
    "  webhookSecret: \"{s}\"\nerror converting YAML to JSON",
])
held("x-api-key-header", lambda: r(ALNUM, 40), [
    "curl -s -H \"x-api-key: {s}\" -H 'anthropic-version: 2023-06-01' https://api.anthropic.com/v1/messages",
    "HTTP/1.1 401 Unauthorized for request with headers {{'X-Goog-Api-Key': '{s}'}}",
])
held("github-token-env", lambda: "ghp_" + r(ALNUM, 36), [
    "GH_TOKEN={s} gh pr create --fill\nHTTP 401: Bad credentials (https://api.github.com/graphql)",
])
held("openai-key-env", lambda: "sk-proj-" + r(URLSAFE, 120), [
    "OPENAI_API_KEY={s} python3 -m app\nopenai.RateLimitError: Error code: 429",
])
held("anthropic-key-in-log", lambda: "sk-ant-api03-" + r(URLSAFE, 95), [
    "anthropic.AuthenticationError: Error code: 401 - invalid x-api-key (key ends in {s})",
])
held("stripe-in-js", lambda: "sk_live_" + r(ALNUM, 24), [
    "    at Object.<anonymous> (/app/server.js:3:34)\n  const stripe = require('stripe')('{s}');",
])
held("slack-bot-in-yaml", lambda: f"xoxb-{r(string.digits, 11)}-{r(string.digits, 12)}-{r(ALNUM, 24)}", [
    "slack:\n  bot_token: {s}\nslack_sdk.errors.SlackApiError: invalid_auth",
])
held("gitlab-ci-token", lambda: "glpat-" + r(URLSAFE, 20), [
    "git remote add origin https://oauth2:{s}@gitlab.com/acme/app.git",
])
held("password-in-sql", password, [
    "psql: ERROR:  syntax error at or near \"PASSWORD\"\nLINE 1: CREATE ROLE app LOGIN PASSWORD '{s}'",
])
held("htpasswd-like", password, [
    "mongosh \"mongodb://localhost:27017\" --username admin --password {s}\nMongoServerError: Authentication failed.",
])
held("env-file-dump", password, [
    "$ cat .env\nNODE_ENV=production\nDB_PASS={s}\nREDIS_URL=redis://cache:6379",
])
held("secret-in-json-log", lambda: r(URLSAFE, 48), [
    "{{\"event\":\"login\",\"refresh_token\":\"{s}\",\"status\":401}}",
])
held("private-key-pkcs8-cut", lambda: "-----BEGIN PRIVATE KEY-----\n" + b64_text(48) + "\n" + b64_text(30), [
    "Error: Invalid PEM: {s}",
])
held("age-key-file", lambda: "AGE-SECRET-KEY-1" + r(BECH32, 58), [
    "# created: 2026-01-01T00:00:00Z\n# public key: age1{pub}\n{s}\nsops: failed to decrypt".replace("{pub}", r(BECH32.lower(), 58)),
])

HELD_OUT_LOOKALIKES = [
    f"Traceback (most recent call last):\n  File \"/app/tokens.py\", line 3\nModuleNotFoundError: No module named 'tokenize_rt'",
    f"fatal: unable to access 'https://github.com/acme/api.git/': The requested URL returned error: 403",
    f"npm ERR! code EINTEGRITY\nnpm ERR! sha512-{b64_text(64)} integrity checksum failed when using sha512",
    f"Error: secretOrPrivateKey must have a value",
    f"passport.authenticate('jwt') failed: No auth token",
    f"WARN  [o.s.b.a.s.s.UserDetailsServiceAutoConfiguration] Using generated security password",
    f"error: RPC failed; HTTP 401 curl 22 The requested URL returned error: 401",
    f"Generating public/private ed25519 key pair.\nYour identification has been saved in /home/dev/.ssh/id_ed25519",
    f"key fingerprint is SHA256:{b64_text(32).rstrip('=')}",
    f"Object {{ id: '{uuid.UUID(int=rng.getrandbits(128))}', token_type: 'bearer', expires_in: 3600 }}",
    f"git log --oneline\n{sha()[:7]} Add password reset flow\n{sha()[:7]} Remove secret from config",
    f"AssertionError: expected 'token' to equal 'session'",
    f"ERROR: relation \"api_keys\" does not exist at character 15",
    f"Error: Invalid key length\n    at Cipheriv.createCipherBase (node:internal/crypto/cipher:121:19)",
    f"warning: auth.json not found, using anonymous access",
    f"/usr/lib/python3/dist-packages/keyring/backends/SecretService.py:45: UserWarning",
]

# Learnt in use: one standard-base64 secret in 64 starts with "/", the first
# byte of a path. (Written last so the cases above keep their values.)
SECRETS.extend(placed("base64-secret-starting-with-slash", lambda: "/" + r(B64, 39), [
    "  config: {{ aws_secret_access_key: '{s}', url: 'postgres://app@db/shop' }}",
    "export AWS_SECRET_ACCESS_KEY={s}\n$ aws s3 ls\nAn error occurred (SignatureDoesNotMatch)",
    "{{\"client_secret\": \"{s}\", \"grant_type\": \"client_credentials\"}}",
]))
SECRETS.extend(placed("aws-configure-set", lambda: r(B64, 40), [
    "aws configure set aws_secret_access_key {s} --profile ci\naws: error: argument --profile: expected one argument",
    "aws configure set default.aws_secret_access_key {s}",
]))
LOOKALIKES.extend([
    "PRIVATE_KEY=/Users/Dev/keys/deploy node sign.js\nError: ENOENT: no such file or directory",
    "secret: /var/run/secrets/app/db\nError: secret file not readable",
    "aws configure set region eu-west-1 --profile ci",
])


def main():
    corpus = {"secrets": SECRETS, "lookalikes": LOOKALIKES,
              "held_out": {"secrets": HELD_OUT_SECRETS, "lookalikes": HELD_OUT_LOOKALIKES}}
    text = json.dumps(corpus, ensure_ascii=False, indent=1) + "\n"
    if "--check" in sys.argv:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{OUT} is out of date: run scripts/secret_corpus.py")
        sys.exit(0 if same else 1)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    formats = {s["format"] for s in SECRETS}
    print(f"{OUT}: {len(SECRETS)} secrets in {len(formats)} formats, {len(LOOKALIKES)} look-alikes; "
          f"held out: {len(HELD_OUT_SECRETS)} secrets, {len(HELD_OUT_LOOKALIKES)} look-alikes")


if __name__ == "__main__":
    main()
