from __future__ import annotations

from scanner.sources.declarations import LaunchTemplate
from scanner.sources.describe import describe_launch


def test_stdio_launch_masks_secret_arguments():
    template = LaunchTemplate(
        "stdio",
        command="npx",
        args=("-y", "server", "--token", "abc123", "--api-key=plain", "ghp_abcdefghij", "--verbose", "x y"),
        env_names=("B_TOKEN", "A_HOME"),
    )
    assert describe_launch(template) == (
        "npx -y server --token '****' '--api-key=****' '****' --verbose 'x y'  (env: A_HOME, B_TOKEN)"
    )


def test_remote_launch_masks_password_and_secret_query():
    template = LaunchTemplate(
        "http", url="https://user:hunter2@example.test/mcp?api_key=s3cret&region=eu", header_names=("X-Z", "Auth")
    )
    assert describe_launch(template) == (
        "http https://user:****@example.test/mcp?api_key=%2A%2A%2A%2A&region=eu  (headers: Auth, X-Z)"
    )
