"""The provider check every model-calling command makes before writing anything."""

from __future__ import annotations

import subprocess
import sys

import pytest

from itemeval.engine.providers import ADDED_IN_RANGE, BUILT_IN, check_providers
from itemeval.errors import ConfigError


def test_the_built_in_providers_are_inspects_own_and_ours():
    """The installed inspect-ai's providers are BUILT_IN plus those a later release of
    the range added: a release that adds or drops a provider fails here, and the
    lists are brought up to date with it."""
    from itemeval.engine import compat
    from itemeval.engine.offline import provider as _registry  # noqa: F401 - registers ours

    registered = compat.model_providers()
    assert BUILT_IN <= registered
    assert registered - BUILT_IN <= ADDED_IN_RANGE


@pytest.mark.parametrize(
    ("models", "env", "message"),
    [
        (["nosuchprov/m"], {}, "no provider 'nosuchprov'"),
        (["itemeval/arith-good", "nosuchprov/m"], {}, "'nosuchprov/m'"),
        (["openai/gpt-4o-mini"], {}, "OPENAI_API_KEY is not set"),
        (["openai-api/local/m"], {"LOCAL_API_KEY": "k"}, "LOCAL_BASE_URL"),
        (["grok/grok-3"], {}, "XAI_API_KEY or GROK_API_KEY"),
    ],
)
def test_an_unknown_provider_or_missing_key_is_refused(
    monkeypatch, models, env, message
):
    for name in ("OPENAI_API_KEY", "XAI_API_KEY", "GROK_API_KEY", "LOCAL_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        check_providers(models)


def test_built_in_providers_are_checked_without_loading_inspect():
    script = (
        "import sys\n"
        "from itemeval.engine.providers import check_providers\n"
        "check_providers(['itemeval/arith-good', 'openai/gpt-4o', "
        "'anthropic/claude-x', 'vllm/meta/llama'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'inspect_ai'))\n"
    )
    env = {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k", "PATH": "/usr/bin"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
