"""Secret redaction: real-looking secrets are replaced, ordinary code is left alone."""

from __future__ import annotations

import pytest

from ctxmill.redact import entropy, redact, redact_obj, summarize

# Real-looking, but not real: the shapes providers use, made up for the test. Built from
# pieces so that this file itself does not trip secret scanners.
AWS_ID = "AKIA" + "Q3EGRK7B5UZXHM2P"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzq8Rk2LtWp"
GH = "ghp_" + "R8d2kLq9ZxT4mNb7VcY1wPa6sJe3Hf0gUiOo"
GH_PAT = "github_pat_" + "11ABCDEFG0" + "x" * 4 + "_" + "Qw3rTy7uIoP9aSdF2gHjK4lZxC6vBnM8qWeRtYuI0oPaSdFgHjKlZxCvBnMqWeRtY"
SLACK = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
GOOGLE = "AIza" + "SyD3kF9qL2mN8pR4tV6xZ0bC7eG1hJ5nW9y"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFsaWNlIn0."
       + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
OPENAI = "sk-proj-" + "Xy7Qk2Lm9Np4Rs6Tv8Wz0Ab3Cd5Ef7Gh9Jk"
PEM = ("-----BEGIN RSA PRIVATE KEY-----\n"
       "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
       "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
       "-----END RSA PRIVATE KEY-----")

CODE = f'''import os

AWS_ACCESS_KEY_ID = "{AWS_ID}"
aws_secret_access_key = "{AWS_SECRET}"
GITHUB = '{GH}'
slack_token = "{SLACK}"
MAPS = "{GOOGLE}"
session = "{JWT}"
client = OpenAI(api_key="{OPENAI}")
DB_PASSWORD = "Tr0ub4dor&3x"
KEY = """{PEM}"""

def get_token(user):
    token = make_token(user)
    api_key = settings.OPENAI_API_KEY
    password_hash = hash_password(password)
    if token == expected_token:
        return token
'''


def test_every_secret_in_code_is_redacted_and_listed_by_line():
    r = redact(CODE, path="app/config.py")
    for secret in (AWS_ID, AWS_SECRET, GH, SLACK, GOOGLE, JWT, OPENAI, "Tr0ub4dor&3x", "MIIEowIBAAKCAQEA"):
        assert secret not in r.text
    rules = {(f.line, f.rule) for f in r.findings}
    assert (3, "aws-access-key-id") in rules
    assert (4, "secret-assignment") in rules
    assert (5, "github-token") in rules
    assert (6, "slack-token") in rules
    assert (7, "google-api-key") in rules
    assert (8, "jwt") in rules
    assert (9, "openai-api-key") in rules
    assert (10, "secret-assignment") in rules
    assert (11, "private-key") in rules
    assert len(r.findings) == 9
    assert all(f.path == "app/config.py" for f in r.findings)
    # line numbers survive: a multi-line PEM block keeps its line breaks
    assert r.text.count("\n") == CODE.count("\n")
    n = CODE.splitlines().index("def get_token(user):")
    assert r.text.splitlines()[n] == "def get_token(user):"


def test_ordinary_code_is_left_alone():
    code = CODE.split("def get_token")[1]
    assert redact(code).findings == []
    plain = "The token budget is 400; see password policy. TOKEN_TYPES = ('bearer', 'basic')\n"
    assert redact(plain).text == plain


def test_placeholders_are_not_secrets():
    text = 'api_key = "<your-api-key>"\nOPENAI_API_KEY=${OPENAI_API_KEY}\npassword: "changeme"\ntoken = "xxxxxxxxxxxx"\n'
    assert redact(text).findings == []


def test_secrets_in_documents_and_env_files():
    doc = (f"To call the API, export the key:\n\n    export GITHUB_TOKEN={GH_PAT}\n\n"
           f"and a webhook https://hooks.slack.com/services/T0123ABCD/B0456EFGH/aBcDeFgHiJkLmNoPqRsTuVwX\n")
    r = redact(doc)
    assert GH_PAT not in r.text and "hooks.slack.com/services/T0" not in r.text
    assert {f.rule for f in r.findings} == {"github-token", "slack-webhook"}
    env = "DB_PASSWORD=s3cr3tP4ss!\nDEBUG=true\nSECRET_KEY=9f8e7d6c5b4a39281706f5e4d3c2b1a0\n"
    r = redact(env)
    assert "s3cr3tP4ss!" not in r.text and "9f8e7d6c5b4a" not in r.text
    assert "DEBUG=true" in r.text
    assert [f.line for f in r.findings] == [1, 3]


def test_redaction_is_idempotent_and_findings_hold_no_secret():
    once = redact(CODE)
    twice = redact(once.text)
    assert twice.text == once.text and twice.findings == []
    listed = repr(summarize(once.findings))
    for secret in (AWS_ID, GH, SLACK, JWT):
        assert secret not in listed
    assert summarize(once.findings)["count"] == 9


def test_redact_obj_walks_json():
    findings = []
    out = redact_obj({"hits": [{"path": "a.py", "text": f"k = '{GH}'"}], "n": 3}, findings)
    assert GH not in repr(out) and out["n"] == 3 and len(findings) == 1


@pytest.mark.parametrize("value,high", [("aaaaaaaaaaaa", False), ("9f8e7d6c5b4a3928", True)])
def test_entropy(value, high):
    assert (entropy(value) >= 3.0) is high


def test_more_providers_and_unicode_that_changes_length_when_lowered():
    ant = "sk-ant-" + "api03-Zx8Qk2Lm9Np4Rs6Tv8Wz0Ab3Cd5Ef7Gh9Jk1Lm"
    stripe = "sk_live_" + "51HqX2bCd3Ef4Gh5Ij6Kl7Mn"
    text = f"İstanbul ofisi için: ANTHROPIC = '{ant}'\nstripe = \"{stripe}\"\nİİ secret: 'Zq8#kP2$wL9!xR4v'\n"
    r = redact(text)
    assert ant not in r.text and stripe not in r.text and "Zq8#kP2$wL9!xR4v" not in r.text
    assert [(f.line, f.rule) for f in r.findings] == [(1, "anthropic-api-key"), (2, "stripe-key"),
                                                      (3, "secret-assignment")]
    assert r.text.startswith("İstanbul ofisi için: ANTHROPIC = '[REDACTED:anthropic-api-key]'")
