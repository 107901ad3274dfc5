from fixture_repo import http_server, repo  # noqa: F401  (fixtures shared by every test module)
