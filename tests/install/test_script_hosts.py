"""Install scripts (`npm rebuild`) reach only the configured registry, through mcp-lock's gate, one package at
a time; a package the base policy names in `script-hosts:` reaches its hosts too, and no other package does.

Each script downloads from a loopback listener standing in for a browser host (puppeteer's, playwright's),
through the proxy npm hands it when there is one (as those downloaders do), else directly.
"""

from __future__ import annotations

import json
import time

import pytest
from artifacts.npm_registry import Registry
from fixture_repo import Repo
from vcs.exfil import Listener

from install.demo_npm import declare
from scanner.policy.settings import PolicyError, policy_from

TOP, DEP = "mcp-tree-top", "mcp-tree-dep"


def downloading(port: int, who: str) -> dict[str, str]:
    """An install script that asks 127.0.0.1:`port` for a download, and fails when the answer is a refusal."""
    script = (
        "const net=require('net');const p=process.env.npm_config_proxy;const u=p?new URL(p):null;"
        f"const s=net.connect(u?Number(u.port):{port},u?u.hostname:'127.0.0.1');const nl=String.fromCharCode(13,10);"
        "s.on('error',()=>process.exit(4));"
        f"s.on('connect',()=>s.write('GET http://127.0.0.1:{port}/download?by={who} HTTP/1.1'+nl+"
        f"'Host: 127.0.0.1:{port}'+nl+nl));"
        "let got='';s.on('data',d=>{got+=d;if(got.indexOf(' 403 ')>0){"
        "process.stderr.write('download refused');process.exit(5);}});"
        "setTimeout(()=>{s.end();setTimeout(()=>process.exit(0),300);},1500);"
    )
    return {"install": f'node -e "{script}"'}


def publish_both(registry: Registry, port: int) -> None:
    registry.publish(DEP, "1.0.0", "dependency one", scripts=downloading(port, DEP), hasInstallScript=True)
    registry.publish(
        TOP, "1.0.0", "top one", dependencies={DEP: "1.0.0"}, scripts=downloading(port, TOP), hasInstallScript=True
    )


def notes(output: str) -> dict[str, str]:
    found = [f["message"] for f in json.loads(output)["findings"] if f["rule"] == "install-script-failed"]
    return {message.split("`")[1]: message for message in found}


def heard(listener: Listener) -> list[str]:
    time.sleep(0.5)  # the listener keeps a request when its connection closes
    return sorted(line.split()[1] for line in listener.text().splitlines() if line.startswith("GET "))


def test_an_install_script_reaches_no_host_but_the_registry_and_the_note_names_package_host_and_fix(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str], listener: Listener
) -> None:
    publish_both(npm_registry, listener.port)
    declare(repo, npm_registry, f"{TOP}@1.0.0")
    done = repo.run("lock", "--format", "json", env=npm_env)
    assert done.exit_code == 0, done.output
    assert heard(listener) == []
    said = notes(done.stdout)
    assert sorted(said) == [DEP, TOP], said
    for name in (DEP, TOP):
        assert f"asking for 127.0.0.1:{listener.port}" in said[name], said[name]
        assert f"`script-hosts: {{{name}: [127.0.0.1:{listener.port}]}}` to mcp-lock.yaml" in said[name]
    assert repo.lock_json()["servers"]["demo"]["tools"]["echo"]  # booted without what the scripts fetch


def test_the_base_policy_lets_one_named_package_reach_its_host_and_no_other(
    repo: Repo, npm_registry: Registry, npm_env: dict[str, str], listener: Listener
) -> None:
    publish_both(npm_registry, listener.port)
    declare(repo, npm_registry, f"{TOP}@1.0.0")
    # Spelled otherwise than the script asks (localhost is 127.0.0.1): matched by what is fetched.
    (repo.root / "mcp-lock.yaml").write_text(f"script-hosts: {{{DEP}: ['LOCALHOST:{listener.port}']}}\n")
    done = repo.run("lock", "--format", "json", env=npm_env)
    assert done.exit_code == 0, done.output
    assert heard(listener) == [f"/download?by={DEP}"]
    said = notes(done.stdout)
    assert sorted(said) == [TOP] and f"asking for 127.0.0.1:{listener.port}" in said[TOP], said


@pytest.mark.parametrize("value", [
    "{puppeteer: https://host.example/}",  # a URL, not a list
    "{puppeteer: ['https://host.example/path']}",
    "{Puppeteer: [host.example]}",  # npm names are lower-case
    "[puppeteer]",
    "{puppeteer: ['host.example:99999']}",
])
def test_a_script_hosts_entry_that_is_not_package_to_hosts_is_refused(value: str) -> None:
    import yaml

    text = f"script-hosts: {value}\n"
    with pytest.raises(PolicyError, match="script-hosts"):
        policy_from(yaml.safe_load(text), text, {})
