"""Git awareness: what changed since a pull request's base (`check --base`) and the history of pins (`log`)."""
